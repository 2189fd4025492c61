//! `pogo-loadgen`: a bounded load test of running `pogo-server` processes, on loopback only.
//!
//! 1. Records `--uploads` distinct replays of the demo bot on a level (one player each:
//!    `load-<run>-<i>`, so the bytes differ) and registers those players.
//! 2. Measures leaderboard reads alone for `--baseline-s` seconds (`--readers` tasks, each
//!    reading `GET /api/levels/L/leaderboard` in a loop).
//! 3. Uploads every replay (`--concurrency` at once, spread over the `--server`s in turn)
//!    while the readers go on, and waits until the database has no run queued or being
//!    verified: uploads verified per second is uploads ÷ (last verdict − first upload).
//!    Read latencies are collected separately for this phase.
//!
//! It stops by itself: after the phases, or after `--seconds-max` seconds (once `--max-s`, still accepted) whatever happens. It
//! refuses any server address that is not loopback.
//!
//! ```text
//! cargo run --release -p pogo-server --bin pogo-loadgen -- --server http://127.0.0.1:8080 --uploads 1000
//! ```

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use clap::Parser;
use pogo_core::bot::Bot;
use pogo_core::world::World;
use pogo_core::{Simulation, Tuning};
use pogo_replay::{Header, Recorder};
use tokio::sync::Mutex;

/// Most uploads one run of the load generator makes.
const UPLOADS_MAX: usize = 20_000;
/// The highest `--seconds-max` accepted: longest a run of the load generator may be told to
/// last (s).
const SECONDS_MAX_CEILING: u64 = 1800;

#[path = "loadgen/boards.rs"]
mod boards;

#[derive(Debug, Parser)]
#[command(
    name = "pogo-loadgen",
    about = "Bounded loopback load test of pogo-server",
    subcommand_negates_reqs = true
)]
struct Args {
    /// `seed` a big board, or time its `reads` (without one: the upload load test).
    #[command(subcommand)]
    mode: Option<boards::Mode>,
    /// A server's base URL (loopback only); repeat for several processes on one database.
    #[arg(long = "server", required = true)]
    servers: Vec<String>,
    /// Replays to upload (distinct players).
    #[arg(long, default_value_t = 500)]
    uploads: usize,
    /// Uploads in flight at once.
    #[arg(long, default_value_t = 8)]
    concurrency: usize,
    /// Tasks reading the leaderboard in a loop.
    #[arg(long, default_value_t = 2)]
    readers: usize,
    /// The level the bot plays.
    #[arg(long, default_value = "course")]
    level: String,
    /// Seconds of reads before the uploads (the idle baseline).
    #[arg(long, default_value_t = 3)]
    baseline_s: u64,
    /// Stop after this many seconds whatever happens (also `--max-s`, the old spelling).
    #[arg(long, alias = "max-s", default_value_t = 300)]
    seconds_max: u64,
    /// A tag making this run's player names unique (default: the time).
    #[arg(long)]
    tag: Option<String>,
}

fn main() -> Result<(), String> {
    let args = Args::parse();
    if let Some(mode) = args.mode {
        return boards::run(mode);
    }
    for server in &args.servers {
        check_loopback(server)?;
    }
    if args.uploads == 0 || args.uploads > UPLOADS_MAX {
        return Err(format!("--uploads must be within 1..={UPLOADS_MAX}"));
    }
    if args.seconds_max > SECONDS_MAX_CEILING || args.concurrency == 0 {
        return Err(format!(
            "--seconds-max at most {SECONDS_MAX_CEILING}, --concurrency at least 1"
        ));
    }
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let deadline = Duration::from_secs(args.seconds_max);
    runtime.block_on(async {
        tokio::time::timeout(deadline, run(&args))
            .await
            .map_err(|_| format!("stopped after --seconds-max {} s", args.seconds_max))?
    })
}

fn check_loopback(url: &str) -> Result<(), String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("{url}: only http:// on loopback"))?;
    let host = rest.split('/').next().unwrap_or("");
    let host = match host.rsplit_once(':') {
        Some((h, _)) => h,
        None => host,
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let loopback = host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback());
    if loopback {
        Ok(())
    } else {
        Err(format!(
            "{url}: not a loopback address; this load generator only targets this machine"
        ))
    }
}

async fn run(args: &Args) -> Result<(), String> {
    let http = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(60))
        .build()
        .map_err(|e| e.to_string())?;
    let tag = args.tag.clone().unwrap_or_else(|| {
        let s = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        format!("{s:x}")
    });
    let started = Instant::now();
    let names: Vec<String> = (0..args.uploads)
        .map(|i| format!("load-{tag}-{i}"))
        .collect();
    let replays = record_all(&args.level, &names)?;
    let bytes: usize = replays.iter().map(Vec::len).sum();
    eprintln!(
        "recorded {} bot runs of {} ({} bytes each) in {:.1} s",
        replays.len(),
        args.level,
        bytes / replays.len(),
        started.elapsed().as_secs_f64()
    );
    let mut tokens = Vec::with_capacity(names.len());
    for name in &names {
        let response = http
            .post(format!("{}/api/players", args.servers[0]))
            .json(&serde_json::json!({ "name": name }))
            .send()
            .await
            .map_err(|e| e.to_string())?;
        if response.status() != 201 {
            return Err(format!("registering {name}: {}", response.status()));
        }
        let body: serde_json::Value = response.json().await.map_err(|e| e.to_string())?;
        tokens.push(body["token"].as_str().unwrap_or_default().to_string());
    }

    let board = format!(
        "{}/api/levels/{}/leaderboard?limit=20",
        args.servers[0], args.level
    );
    let latencies = Arc::new(Mutex::new((Vec::new(), Vec::new())));
    let loaded = Arc::new(AtomicBool::new(false));
    let stop = Arc::new(AtomicBool::new(false));
    let mut readers = Vec::new();
    for _ in 0..args.readers {
        let (http, board, latencies, loaded, stop) = (
            http.clone(),
            board.clone(),
            latencies.clone(),
            loaded.clone(),
            stop.clone(),
        );
        readers.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let t = Instant::now();
                let ok = match http.get(&board).send().await {
                    Ok(r) => r.status() == 200 && r.bytes().await.is_ok(),
                    Err(_) => false,
                };
                let ms = t.elapsed().as_secs_f64() * 1000.0;
                if ok {
                    let mut l = latencies.lock().await;
                    if loaded.load(Ordering::Relaxed) {
                        l.1.push(ms)
                    } else {
                        l.0.push(ms)
                    }
                }
            }
        }));
    }
    tokio::time::sleep(Duration::from_secs(args.baseline_s)).await;
    loaded.store(true, Ordering::Relaxed);

    let upload_started = Instant::now();
    let semaphore = Arc::new(tokio::sync::Semaphore::new(args.concurrency));
    let mut uploads = tokio::task::JoinSet::new();
    for (i, (bytes, token)) in replays.into_iter().zip(tokens).enumerate() {
        let server = args.servers[i % args.servers.len()].clone();
        let (http, semaphore) = (http.clone(), semaphore.clone());
        uploads.spawn(async move {
            let _permit = semaphore.acquire_owned().await.ok()?;
            let t = Instant::now();
            let response = http
                .post(format!("{server}/api/runs"))
                .bearer_auth(token)
                .header("content-type", "application/octet-stream")
                .body(bytes)
                .send()
                .await
                .ok()?;
            Some((
                response.status().as_u16(),
                t.elapsed().as_secs_f64() * 1000.0,
            ))
        });
    }
    let mut statuses = std::collections::BTreeMap::<u16, usize>::new();
    let mut ack_ms = Vec::new();
    while let Some(done) = uploads.join_next().await {
        if let Ok(Some((status, ms))) = done {
            *statuses.entry(status).or_default() += 1;
            ack_ms.push(ms);
        }
    }
    let uploaded_s = upload_started.elapsed().as_secs_f64();
    let accepted = statuses.get(&202).copied().unwrap_or(0);
    // Done when the database holds nothing queued or being verified.
    loop {
        let text = http
            .get(format!("{}/metrics", args.servers[0]))
            .send()
            .await
            .map_err(|e| e.to_string())?
            .text()
            .await
            .map_err(|e| e.to_string())?;
        let idle = ["queued", "verifying"].iter().all(|s| {
            text.lines()
                .any(|l| l == format!("pogo_runs{{status=\"{s}\"}} 0"))
        });
        if idle {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let verified_s = upload_started.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    for reader in readers {
        let _ = reader.await;
    }
    let (idle, busy) = {
        let mut l = latencies.lock().await;
        (std::mem::take(&mut l.0), std::mem::take(&mut l.1))
    };
    println!("servers: {}", args.servers.join(" "));
    println!(
        "uploads: {statuses:?} in {uploaded_s:.2} s (ack p50 {:.1} ms, p99 {:.1} ms)",
        pct(&ack_ms, 50.0),
        pct(&ack_ms, 99.0)
    );
    println!(
        "verified: {accepted} runs in {verified_s:.2} s from the first upload: {:.1} uploads verified/s",
        accepted as f64 / verified_s
    );
    println!(
        "leaderboard reads, idle: {} reads, p50 {:.2} ms, p99 {:.2} ms",
        idle.len(),
        pct(&idle, 50.0),
        pct(&idle, 99.0)
    );
    println!(
        "leaderboard reads, while verifying: {} reads, p50 {:.2} ms, p99 {:.2} ms",
        busy.len(),
        pct(&busy, 50.0),
        pct(&busy, 99.0)
    );
    Ok(())
}

/// The `p`-th percentile (nearest rank) of `values`, 0 if empty.
fn pct(values: &[f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The bot's run of `level` under each name (to the finish, at most an hour).
fn record_all(level: &str, names: &[String]) -> Result<Vec<Vec<u8>>, String> {
    let tuning = Tuning::default();
    let desc =
        pogo_replay::builtin_level(level).ok_or_else(|| format!("no built-in level {level}"))?;
    let world = Arc::new(World::new(desc, &tuning).map_err(|e| e.to_string())?);
    names
        .iter()
        .map(|name| {
            let mut sim =
                Simulation::new(world.clone(), tuning.clone(), 1).map_err(|e| e.to_string())?;
            let header = Header::for_simulation(&sim, Some(name.clone()), None);
            let mut recorder = Recorder::new(Vec::new(), header).map_err(|e| e.to_string())?;
            let mut bot = Bot::new();
            for _ in 0..216_000 {
                let input = bot.input(&world, &tuning, &sim.state().pogos[0]);
                sim.step(&[input]);
                recorder
                    .record(&[input], || sim.state_hash())
                    .map_err(|e| e.to_string())?;
                if sim.state().pogos[0].finish_tick.is_some() {
                    break;
                }
            }
            recorder.finish_simulation(&sim).map_err(|e| e.to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_servers_are_targets() {
        for ok in [
            "http://127.0.0.1:8080",
            "http://127.8.0.1",
            "http://localhost:1/x",
            "http://[::1]:80",
        ] {
            assert_eq!(check_loopback(ok), Ok(()), "{ok}");
        }
        for bad in [
            "http://10.0.0.1:8080",
            "http://192.168.1.2",
            "http://example.com",
            "https://127.0.0.1",
            "http://127.0.0.1.example.com:80",
            "127.0.0.1:8080",
        ] {
            assert!(check_loopback(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(
            (pct(&v, 50.0), pct(&v, 99.0), pct(&v, 100.0)),
            (50.0, 99.0, 100.0)
        );
        assert_eq!(pct(&[], 50.0), 0.0);
    }
}
