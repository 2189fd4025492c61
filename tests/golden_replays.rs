//! Golden replays: recordings in `tests/golden/*.pogo` whose outcome is pinned here, and the
//! sample replays in `samples/` that the README's `pogo verify samples/*.pogo` shows.
//!
//! Each golden replay must verify with the library's `Verifier` and reach its pinned outcome
//! (ticks, finish ticks, final hash), decode and re-encode to the same bytes, and be exactly
//! what both the library recorder and `pogo simulate --record` produce from the same inputs
//! today: a change of rules, format or recorder shows here.
//!
//! They change only on purpose: regenerate with `POGO_BLESS=1 cargo test --test
//! golden_replays` (which records them through the library, with no date, so the bytes are
//! reproducible, and rewrites `samples/` from them), then update the pinned values below by
//! hand from the failure messages, and say why in the commit message.

mod support;

#[cfg(feature = "cli")]
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use pogo::core::bot::Bot;
use pogo::core::driver::NS_PER_SECOND;
use pogo::core::world::World;
use pogo::core::{Input, Simulation, Ticks, Tuning};
use pogo::replay::{
    Header, Limits, Recorder, Replay, ReplayError, Verifier, VerifyError, builtin_level,
    parse_input_script, salvage,
};
use support::retimed;
#[cfg(feature = "cli")]
use support::{pogo, temp_dir};

/// Where a golden run's input comes from.
enum Source {
    /// Every player its own demo bot.
    Bot,
    /// An input script in `tests/golden/`.
    Script(&'static str),
}

/// A golden replay: how it is recorded and what it must prove.
struct Golden {
    /// File name in `tests/golden/` (and `samples/`).
    file: &'static str,
    level: &'static str,
    players: usize,
    /// `--ticks`: the run stops there or when every player has finished.
    ticks_max: u32,
    source: Source,
    player_name: Option<&'static str>,
    /// The pinned outcome.
    ticks: u32,
    finish: &'static [Option<u32>],
    final_hash: u64,
}

const GOLDEN: &[Golden] = &[
    Golden {
        file: "course-bot.pogo",
        level: "course",
        players: 1,
        ticks_max: 7200,
        source: Source::Bot,
        player_name: Some("bot"),
        ticks: 3294,
        finish: &[Some(3293)],
        final_hash: 0x7672_2851_cbb6_0a6d,
    },
    Golden {
        file: "flat-script.pogo",
        level: "flat",
        players: 1,
        ticks_max: 1200,
        source: Source::Script("flat-script.txt"),
        player_name: Some("script"),
        ticks: 1200,
        finish: &[None],
        final_hash: 0xbe26_a11e_5fd4_2327,
    },
    Golden {
        file: "course-multi.pogo",
        level: "course",
        players: 3,
        ticks_max: 1800,
        source: Source::Script("course-multi.txt"),
        player_name: None,
        ticks: 1800,
        finish: &[None, None, None],
        final_hash: 0x1879_1d7c_610c_0ccf,
    },
];

/// The tampered sample: `course-bot` with one input change held a tick longer.
const TAMPERED_DESYNC_TICK: u32 = 179;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn golden_dir() -> PathBuf {
    root().join("tests/golden")
}

fn blessing() -> bool {
    std::env::var_os("POGO_BLESS").is_some()
}

fn verifier() -> Verifier {
    Verifier::with_builtin_levels(Tuning::default(), Limits::default())
}

/// Every player's input for ticks `0..ticks` from an input script, as the frame driver hands
/// them out: a line at `ns` applies from the first tick starting at or after it
/// (`ns · rate ≤ k · 10⁹`); of several lines of a player for the same tick, the last.
fn script_inputs(path: &Path, players: usize, rate: u32, ticks: u32) -> Vec<Vec<Input>> {
    let text = std::fs::read_to_string(path).unwrap();
    let script = parse_input_script(&text).unwrap();
    assert_eq!(script.player_count(), players, "{}", path.display());
    let events = script.events(rate);
    let mut events = events.iter().peekable();
    let mut current = vec![Input::default(); players];
    (0..ticks)
        .map(|k| {
            let start = u128::from(k) * u128::from(NS_PER_SECOND);
            while let Some(&(_, player, input)) =
                events.next_if(|(ns, ..)| u128::from(*ns) * u128::from(rate) <= start)
            {
                current[player] = input;
            }
            current.clone()
        })
        .collect()
}

/// Records a golden run through the library, as `pogo simulate --record` does.
fn record(g: &Golden) -> Vec<u8> {
    let tuning = Tuning::default();
    let world = World::new(builtin_level(g.level).unwrap(), &tuning).unwrap();
    let rate = tuning.spec().tick_rate;
    let mut sim = Simulation::new(Arc::new(world), tuning, g.players).unwrap();
    let header = Header::for_simulation(&sim, g.player_name.map(String::from), None);
    let mut recorder = Recorder::new(Vec::new(), header).unwrap();
    let scripted = match g.source {
        Source::Bot => None,
        Source::Script(file) => Some(script_inputs(
            &golden_dir().join(file),
            g.players,
            rate,
            g.ticks_max,
        )),
    };
    let mut bots = vec![Bot::new(); g.players];
    for tick in 0..g.ticks_max {
        if sim.state().pogos.iter().all(|p| p.finish_tick.is_some()) {
            break;
        }
        let inputs: Vec<Input> = match &scripted {
            Some(inputs) => inputs[tick as usize].clone(),
            None => (0..g.players)
                .map(|p| bots[p].input(sim.world(), sim.tuning(), &sim.state().pogos[p]))
                .collect(),
        };
        sim.step(&inputs);
        recorder.record(&inputs, || sim.state_hash()).unwrap();
    }
    recorder.finish_simulation(&sim).unwrap()
}

/// The `pogo simulate` arguments that record `g` (without `--record`).
#[cfg(feature = "cli")]
fn cli_args(g: &Golden) -> Vec<String> {
    let mut args = vec!["simulate".to_string(), "--level".into(), g.level.into()];
    match g.source {
        Source::Bot => args.push("--bot".into()),
        Source::Script(file) => {
            args.push("--inputs".into());
            args.push(golden_dir().join(file).to_string_lossy().into_owned());
        }
    }
    args.extend(["--ticks".to_string(), g.ticks_max.to_string()]);
    if g.players > 1 {
        args.extend(["--players".to_string(), g.players.to_string()]);
    }
    if let Some(name) = g.player_name {
        args.extend(["--player-name".to_string(), name.to_string()]);
    }
    args
}

/// The golden file's bytes; when blessing, recorded afresh and written first.
fn golden_bytes(g: &Golden) -> Vec<u8> {
    let path = golden_dir().join(g.file);
    if blessing() {
        std::fs::write(&path, record(g)).unwrap();
    }
    std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; POGO_BLESS=1 creates it", path.display()))
}

#[test]
fn golden_replays_verify_to_their_pinned_outcome_and_re_encode_byte_for_byte() {
    let v = verifier();
    let mut wrong = Vec::new();
    for g in GOLDEN {
        let bytes = golden_bytes(g);
        let verified = v
            .verify(&bytes[..])
            .unwrap_or_else(|e| panic!("{}: {e}", g.file));
        if (verified.ticks, &verified.finish[..], verified.final_hash)
            != (g.ticks, g.finish, g.final_hash)
        {
            wrong.push(format!(
                "{}: ticks: {}, finish: &{:?}, final_hash: {:#018x}",
                g.file, verified.ticks, verified.finish, verified.final_hash
            ));
        }
        assert_eq!(verified.header.level_name, g.level);
        assert_eq!(usize::from(verified.header.players), g.players);
        assert_eq!(verified.header.player_name.as_deref(), g.player_name);
        assert_eq!(verified.header.date, None, "{}: no date", g.file);
        let replay = Replay::decode(&bytes, Limits::default()).unwrap();
        assert!(replay.encode() == bytes, "{}: re-encoding differs", g.file);
        assert!(
            record(g) == bytes,
            "{}: recording the same inputs today gives other bytes",
            g.file
        );
    }
    assert!(
        wrong.is_empty(),
        "outcomes differ from the pinned ones:\n{}",
        wrong.join("\n")
    );
    // The bot finishes the course: the finish is part of the pinned outcome.
    assert!(GOLDEN[0].finish[0].is_some());
}

/// (With the `cli` feature only: the cross-architecture check builds the library alone.)
#[cfg(feature = "cli")]
#[test]
fn the_cli_records_the_golden_bytes() {
    let dir = temp_dir("golden-replays");
    for g in GOLDEN {
        let expected = golden_bytes(g);
        let out_path = dir.path().join(g.file);
        let args = cli_args(g);
        let out = pogo(
            args.iter()
                .map(OsStr::new)
                .chain([OsStr::new("--record"), out_path.as_os_str()]),
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {}",
            g.file,
            String::from_utf8_lossy(&out.stderr)
        );
        let recorded = std::fs::read(&out_path).unwrap();
        assert!(
            recorded == expected,
            "{}: `pogo {}` records other bytes",
            g.file,
            cli_args(g).join(" ")
        );
        // The SIG lines report the pinned outcome too.
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(
            stdout.contains(&format!("hash={:016x}", g.final_hash)),
            "{}: {stdout}",
            g.file
        );
    }
}

/// `samples/`: the golden replays, a short bot run on `sprawl`, and under `bad/` a tampered
/// copy of `course-bot` (an input change held one tick longer: a desync) and a truncated one.
fn sample_files() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = GOLDEN
        .iter()
        .map(|g| (g.file.to_string(), record(g)))
        .collect();
    let sprawl = Golden {
        file: "sprawl-bot.pogo",
        level: "sprawl",
        players: 1,
        ticks_max: 600,
        source: Source::Bot,
        player_name: Some("bot"),
        // Not pinned: the sample only has to verify.
        ticks: 0,
        finish: &[],
        final_hash: 0,
    };
    files.push((sprawl.file.to_string(), record(&sprawl)));
    let course = files[0].1.clone();
    // The first input change after tick 130 held one tick longer.
    files.push(("bad/tampered.pogo".to_string(), retimed(&course, 130).0));
    // Cut 7 bytes into the fifth input chunk: four whole chunks (1200 ticks) survive.
    let cut = chunk_ends(&course)[4] + 7;
    files.push(("bad/truncated.pogo".to_string(), course[..cut].to_vec()));
    files
}

/// The byte offset where each chunk (header, inputs…, trailer) ends.
fn chunk_ends(bytes: &[u8]) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut at = 10;
    while at < bytes.len() {
        let len = u32::from_le_bytes(bytes[at + 1..at + 5].try_into().unwrap()) as usize;
        at += 1 + 4 + len + 8;
        ends.push(at);
    }
    ends
}

#[test]
fn samples_are_the_documented_replays() {
    let dir = root().join("samples");
    let expected = sample_files();
    if blessing() {
        std::fs::create_dir_all(dir.join("bad")).unwrap();
        for (name, bytes) in &expected {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
    }
    for (name, bytes) in &expected {
        let on_disk = std::fs::read(dir.join(name))
            .unwrap_or_else(|e| panic!("samples/{name}: {e}; POGO_BLESS=1 creates it"));
        assert!(
            &on_disk == bytes,
            "samples/{name} is not what it is documented to be"
        );
    }
    let v = verifier();
    for (name, bytes) in &expected {
        let result = v.verify(&bytes[..]);
        match name.as_str() {
            "bad/tampered.pogo" => assert_eq!(
                result.map_err(|e| match e {
                    VerifyError::Desync { tick, .. } => tick,
                    other => panic!("samples/{name}: {other}"),
                }),
                Err(Ticks(TAMPERED_DESYNC_TICK)),
                "samples/{name}"
            ),
            "bad/truncated.pogo" => {
                assert!(
                    matches!(
                        result,
                        Err(VerifyError::Replay(ReplayError::Truncated { .. }))
                    ),
                    "samples/{name}: {result:?}"
                );
                let salvaged = salvage(bytes, &v).unwrap();
                assert_eq!(salvaged.replay.ticks(), 1200);
                v.verify(&salvaged.replay.encode()[..]).unwrap();
            }
            _ => {
                result.unwrap_or_else(|e| panic!("samples/{name}: {e}"));
            }
        }
    }
}
