//! Replays: verifying a 10-minute replay, decoding and encoding it, and `pogo verify` over 200
//! replays with 1 and 2 jobs (the leaderboard server's batch).
//!
//! The 10-minute replay is the demo bot on `flat` (course is finished in under a minute);
//! the batch is 200 finished runs of `course` (the demo bot from the start to the finish,
//! 3 410 ticks, what a leaderboard receives), written to a temporary directory and verified by
//! the real `pogo` binary, so process start-up and file reading are included.
//! `cargo bench --bench replay`; `cargo test --benches` runs each once.

mod support;

use std::hint::black_box;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

use pogo::core::bot::Bot;
use pogo::core::{Input, Tuning};
use pogo::replay::{Header, Limits, Recorder, Replay, Verifier};

/// Records the bot on a built-in level for `ticks` ticks (or to the finish) as replay bytes.
fn record_bot(level: &str, ticks: u32) -> Vec<u8> {
    let mut sim = support::simulation(level);
    let mut recorder =
        Recorder::new(Vec::new(), Header::for_simulation(&sim, None, None)).expect("header");
    let mut bot = Bot::new();
    for _ in 0..ticks {
        let input: Input = bot.input(sim.world(), sim.tuning(), &sim.state().pogos[0]);
        sim.step(&[input]);
        recorder
            .record(&[input], || sim.state_hash())
            .expect("in memory");
        if sim.state().pogos[0].finish_tick.is_some() {
            break;
        }
    }
    recorder.finish_simulation(&sim).expect("in memory")
}

fn verifier() -> Verifier {
    Verifier::with_builtin_levels(Tuning::default(), Limits::default())
}

fn ten_minutes(c: &mut Criterion) {
    let bytes = record_bot("flat", 10 * 60 * 60);
    let v = verifier();
    assert_eq!(
        v.verify(&bytes[..]).expect("the recording verifies").ticks,
        36_000
    );
    let replay = Replay::decode(&bytes, Limits::default()).expect("decodes");
    let mut group = c.benchmark_group("replay");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(8));
    group.bench_function("verify_10min", |b| {
        b.iter(|| v.verify(black_box(&bytes[..])).map(|r| r.final_hash))
    });
    group.bench_function("decode_10min", |b| {
        b.iter(|| Replay::decode(black_box(&bytes), Limits::default()))
    });
    group.bench_function("encode_10min", |b| b.iter(|| black_box(&replay).encode()));
    group.finish();
}

/// 200 replays in a fresh temporary directory, kept for the whole benchmark.
fn batch() -> (tempfile::TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let bytes = record_bot("course", u32::MAX);
    let run = verifier()
        .verify(&bytes[..])
        .expect("the recording verifies");
    assert!(run.finish.iter().all(Option::is_some), "a finished run");
    let files = (0..200)
        .map(|i| {
            let path = dir.path().join(format!("run-{i:03}.pogo"));
            std::fs::write(&path, &bytes).expect("writable");
            path
        })
        .collect();
    (dir, files)
}

fn verify_batch(c: &mut Criterion) {
    let (_dir, files) = batch();
    let mut group = c.benchmark_group("pogo_verify_200");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    for jobs in [1, 2] {
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("jobs{jobs}")),
            &jobs,
            |b, &jobs| {
                b.iter(|| {
                    let status = Command::new(env!("CARGO_BIN_EXE_pogo"))
                        .arg("verify")
                        .arg("--jobs")
                        .arg(jobs.to_string())
                        .args(&files)
                        .stdout(std::process::Stdio::null())
                        .status()
                        .expect("pogo runs");
                    assert!(status.success());
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, ten_minutes, verify_batch);
criterion_main!(benches);
