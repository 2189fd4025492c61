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
//! Before the uploads, and again after them, it verifies the same replays in-process with
//! `Verifier::verify` on one thread: the **re-simulation alone**, runs/s, the ceiling a
//! verification worker can approach on this machine in this sitting. The server's figure is
//! then given per worker (`--workers`: the verification workers of each server process) and
//! as a ratio of that ceiling. `--no-resimulation` skips it (a run whose core is shared with
//! `pogo-loadgen live`'s racers).
//!
//! With `--spawn <pogo-server binary> --database <URL>` it runs the servers itself, so that
//! the verification rate is measured on a full queue: it starts one server with `--workers 0`
//! (it only stores uploads), uploads every replay to it, stops it, then starts `--processes`
//! servers with `--workers` workers each (and `--verify-batch`) on the same database and
//! times how fast they empty the queue — from the first verdict to the last, as stored in the
//! database (`runs.verified_ms`), so the servers' start-up is not counted. Without `--spawn`,
//! the uploads go to the running `--server`s while they verify (and, with `--database`, the
//! verdicts' span is read from the database too).
//!
//! It stops by itself: after the phases, or after `--seconds-max` seconds (once `--max-s`,
//! still accepted) whatever happens, and stops the servers it started. It refuses any server
//! address and database host that is not loopback.
//!
//! ```text
//! cargo run --release -p pogo-server --bin pogo-loadgen -- --server http://127.0.0.1:8080 --uploads 1000
//! cargo build --release -p pogo-server --bins
//! target/release/pogo-loadgen --spawn target/release/pogo-server --database sqlite:/tmp/load.db \
//!     --processes 1 --workers 1 --uploads 2000 --readers 0
//! ```

// No function over 120 lines (blank lines and comments aside; the threshold is clippy.toml's).
#![warn(clippy::too_many_lines)]

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use clap::Parser;
use pogo_core::bot::Bot;
use pogo_core::world::World;
use pogo_core::{Simulation, Tuning};
use pogo_replay::{Header, Limits, Recorder, Verifier};
use tokio::sync::Mutex;

/// Most uploads one run of the load generator makes.
const UPLOADS_MAX: usize = 20_000;
/// The highest `--seconds-max` accepted: longest a run of the load generator may be told to
/// last (s).
const SECONDS_MAX_CEILING: u64 = 1800;

/// Most server processes `--spawn` starts.
const PROCESSES_MAX: usize = 8;

#[path = "loadgen/bare.rs"]
mod bare;
#[path = "loadgen/boards.rs"]
mod boards;
#[path = "loadgen/concurrent.rs"]
mod concurrent;
#[path = "loadgen/live.rs"]
mod live;
#[path = "loadgen/reads.rs"]
mod reads;
#[path = "loadgen/tracks.rs"]
mod tracks;

/// Most ticks a bot run is recorded for (an hour at 60 Hz): the bot finishes long before.
const BOT_TICKS_MAX: u32 = 216_000;

/// What to load, when not the uploads.
#[derive(Debug, clap::Subcommand)]
enum Mode {
    #[command(flatten)]
    Boards(boards::Mode),
    /// Live races: how many concurrent racers one server process holds (see `loadgen/live.rs`).
    Live(live::LiveArgs),
    #[command(flatten)]
    Tracks(tracks::Mode),
    /// The bare relay `live --bare` measures pogo-server's floor with (see `loadgen/bare.rs`).
    #[command(hide = true)]
    BareRelay(bare::BareArgs),
}

#[derive(Debug, Parser)]
#[command(
    name = "pogo-loadgen",
    about = "Bounded loopback load test of pogo-server",
    subcommand_negates_reqs = true
)]
struct Args {
    /// `seed` a big board, time its `reads`, or race `live` (without one: the upload load
    /// test).
    #[command(subcommand)]
    mode: Option<Mode>,
    /// A server's base URL (loopback only); repeat for several processes on one database.
    /// Not with `--spawn`.
    #[arg(
        long = "server",
        required_unless_present = "spawn",
        conflicts_with = "spawn"
    )]
    servers: Vec<String>,
    /// Start the servers: this `pogo-server` binary (needs `--database`).
    #[arg(long, value_name = "BIN", requires = "database")]
    spawn: Option<std::path::PathBuf>,
    /// The servers' database (`sqlite:<file>` or a loopback `postgres://` URL): where the
    /// verdicts' times are read from; the database `--spawn` starts the servers on.
    #[arg(long, value_name = "URL")]
    database: Option<String>,
    /// With `--spawn`: server processes verifying at once (1 to 8).
    #[arg(long, default_value_t = 1)]
    processes: usize,
    /// Verification workers per server process (`pogo-server --workers`): passed to the
    /// servers with `--spawn`, else what they were started with (for the per-worker figure).
    #[arg(long, default_value_t = 1)]
    workers: usize,
    /// With `--spawn`: the servers' `--verify-batch` (default: theirs).
    #[arg(long, value_name = "N")]
    verify_batch: Option<u32>,
    /// Replays to upload (distinct players).
    #[arg(long, default_value_t = 500)]
    uploads: usize,
    /// Uploads in flight at once.
    #[arg(long, default_value_t = 8)]
    concurrency: usize,
    /// Start the uploads this many ms apart (0: as fast as `--concurrency` allows). Spaced
    /// wider than a verification takes, each upload meets an idle queue: "upload to verdict"
    /// is then a fresh upload's wait for its verdict.
    #[arg(long, default_value_t = 0)]
    every_ms: u64,
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
    /// Skip the re-simulation alone (before and after the uploads: seconds of a core each),
    /// and with it the per-worker ratio: for a run that shares its cores with another load
    /// generator (`live` racers beside the uploads).
    #[arg(long)]
    no_resimulation: bool,
}

/// pogo-server's allocator: the bare relay (`bare-relay`) is the live floor, on the same stack.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> Result<(), String> {
    let args = Args::parse();
    match args.mode {
        Some(Mode::Boards(mode)) => return boards::run(mode),
        Some(Mode::Live(live)) => return live::run(live),
        Some(Mode::Tracks(mode)) => return tracks::run(mode),
        Some(Mode::BareRelay(args)) => return bare::serve(args),
        None => {}
    }
    for server in &args.servers {
        check_loopback(server)?;
    }
    if args.spawn.is_some() && args.readers > 0 {
        // The storing server stops after the uploads: reads would measure nothing useful.
        eprintln!("--spawn: the leaderboard reads measure the storing server only");
    }
    if args.uploads == 0 || args.uploads > UPLOADS_MAX {
        return Err(format!("--uploads must be within 1..={UPLOADS_MAX}"));
    }
    if args.seconds_max > SECONDS_MAX_CEILING || args.concurrency == 0 {
        return Err(format!(
            "--seconds-max at most {SECONDS_MAX_CEILING}, --concurrency at least 1"
        ));
    }
    if !(1..=PROCESSES_MAX).contains(&args.processes) || args.workers == 0 {
        return Err(format!(
            "--processes within 1..={PROCESSES_MAX}, --workers at least 1"
        ));
    }
    if let Some(database) = &args.database {
        check_loopback_database(database)?;
    }
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let deadline = Duration::from_secs(args.seconds_max);
    runtime.block_on(async {
        tokio::time::timeout(deadline, run(&args))
            .await
            .map_err(|_| format!("stopped after --seconds-max {} s", args.seconds_max))?
    })
}

/// A database URL on this machine: a SQLite file, or PostgreSQL on a loopback host.
fn check_loopback_database(url: &str) -> Result<(), String> {
    if url.starts_with("sqlite:") {
        return Ok(());
    }
    let rest = url
        .strip_prefix("postgres://")
        .or_else(|| url.strip_prefix("postgresql://"))
        .ok_or_else(|| format!("{url}: not a sqlite: or postgres:// URL"))?;
    let authority = rest.split('/').next().unwrap_or("");
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    check_loopback(&format!("http://{host}")).map_err(|_| {
        format!("{url}: not a loopback database; this load generator only targets this machine")
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

/// The upload load test: record bot runs, register their players, upload them all while
/// readers time the board, wait for every verdict, then report.
async fn run(args: &Args) -> Result<(), String> {
    let http = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(60))
        // Let an idle connection go before the server does (`--header-read-timeout-s`).
        .pool_idle_timeout(Duration::from_secs(5))
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
    let resim_before = if args.no_resimulation {
        None
    } else {
        let rate = resimulate(&replays)?;
        eprintln!("re-simulation alone: {rate:.1} runs/s");
        Some(rate)
    };

    // With --spawn: one server that only stores uploads; the verifying ones come later.
    let mut spawned = Spawned::default();
    let api: Vec<String> = match (&args.spawn, &args.database) {
        (Some(bin), Some(database)) => {
            vec![spawned.start(bin, database, 0, None, &http).await?]
        }
        _ => args.servers.clone(),
    };
    let tokens = register(&http, &api[0], &names).await?;
    let readers = Readers::start(
        &http,
        format!("{}/api/levels/{}/leaderboard?limit=20", api[0], args.level),
        args.readers,
    );
    tokio::time::sleep(Duration::from_secs(args.baseline_s)).await;
    readers.loaded.store(true, Ordering::Relaxed);

    let upload_started = Instant::now();
    let uploaded = upload_all(
        &http,
        &api,
        &replays,
        tokens,
        args.concurrency,
        args.every_ms,
    )
    .await;
    let uploaded_s = upload_started.elapsed().as_secs_f64();
    // The reads were of the storing server, which stops now if it was ours.
    let verifying: Vec<String> = match (&args.spawn, &args.database) {
        (Some(bin), Some(database)) => {
            readers.stop.store(true, Ordering::Relaxed);
            spawned.stop_all();
            let mut bases = Vec::new();
            for _ in 0..args.processes {
                bases.push(
                    spawned
                        .start(bin, database, args.workers, args.verify_batch, &http)
                        .await?,
                );
            }
            bases
        }
        _ => api.clone(),
    };
    wait_idle(&http, &verifying[0]).await?;
    let verified_s = upload_started.elapsed().as_secs_f64();
    let (idle, busy) = readers.finish().await;
    spawned.stop_all();
    let resim_after = if args.no_resimulation {
        None
    } else {
        Some(resimulate(&replays)?)
    };
    let span = match &args.database {
        Some(database) => Some(verdict_span(database, &tag).await?),
        None => None,
    };
    println!("servers: {}", verifying.join(" "));
    report(
        args,
        &Outcome {
            uploaded,
            uploaded_s,
            verified_s,
            resim: resim_before.zip(resim_after),
            span,
            reads: (idle, busy),
        },
    );
    Ok(())
}

/// Registers a player per name at `base`: their tokens, in order.
async fn register(
    http: &reqwest::Client,
    base: &str,
    names: &[String],
) -> Result<Vec<String>, String> {
    let mut tokens = Vec::with_capacity(names.len());
    for name in names {
        let response = http
            .post(format!("{base}/api/players"))
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
    Ok(tokens)
}

/// Readers of the board, each reading it back to back until stopped; each read's time (ms)
/// filed as idle (before `loaded`) or busy.
struct Readers {
    latencies: Arc<Mutex<(Vec<f64>, Vec<f64>)>>,
    loaded: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Readers {
    fn start(http: &reqwest::Client, board: String, count: usize) -> Readers {
        let latencies = Arc::new(Mutex::new((Vec::new(), Vec::new())));
        let loaded = Arc::new(AtomicBool::new(false));
        let stop = Arc::new(AtomicBool::new(false));
        let tasks = (0..count)
            .map(|_| {
                let (http, board, latencies, loaded, stop) = (
                    http.clone(),
                    board.clone(),
                    latencies.clone(),
                    loaded.clone(),
                    stop.clone(),
                );
                tokio::spawn(async move {
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
                })
            })
            .collect();
        Readers {
            latencies,
            loaded,
            stop,
            tasks,
        }
    }

    /// Stops the readers: the idle reads' times and the busy ones' (ms).
    async fn finish(self) -> (Vec<f64>, Vec<f64>) {
        self.stop.store(true, Ordering::Relaxed);
        for task in self.tasks {
            let _ = task.await;
        }
        let mut l = self.latencies.lock().await;
        (std::mem::take(&mut l.0), std::mem::take(&mut l.1))
    }
}

/// Every upload's status and the time to its answer (ms).
struct Uploaded {
    statuses: std::collections::BTreeMap<u16, usize>,
    ack_ms: Vec<f64>,
}

/// Uploads every replay with its player's token, `concurrency` at a time (and each
/// `every_ms` after the one before, if not 0), round robin over the servers in `api`.
async fn upload_all(
    http: &reqwest::Client,
    api: &[String],
    replays: &[Vec<u8>],
    tokens: Vec<String>,
    concurrency: usize,
    every_ms: u64,
) -> Uploaded {
    let semaphore = Arc::new(tokio::sync::Semaphore::new(concurrency));
    let mut uploads = tokio::task::JoinSet::new();
    let start = tokio::time::Instant::now();
    for (i, (bytes, token)) in replays.iter().cloned().zip(tokens).enumerate() {
        let server = api[i % api.len()].clone();
        let (http, semaphore) = (http.clone(), semaphore.clone());
        let at = start + Duration::from_millis(every_ms.saturating_mul(i as u64));
        uploads.spawn(async move {
            tokio::time::sleep_until(at).await;
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
    let mut uploaded = Uploaded {
        statuses: std::collections::BTreeMap::new(),
        ack_ms: Vec::new(),
    };
    while let Some(done) = uploads.join_next().await {
        if let Ok(Some((status, ms))) = done {
            *uploaded.statuses.entry(status).or_default() += 1;
            uploaded.ack_ms.push(ms);
        }
    }
    uploaded
}

/// Waits until the database holds nothing queued or being verified (as `base`'s metrics say).
async fn wait_idle(http: &reqwest::Client, base: &str) -> Result<(), String> {
    loop {
        let text = http
            .get(format!("{base}/metrics"))
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
            return Ok(());
        }
        // Each look counts the runs by status in the database: not so often that it takes a
        // share of the CPU the verifiers are measured on (their rate comes from the
        // database's timestamps, not from this loop).
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// What one upload load test measured.
struct Outcome {
    uploaded: Uploaded,
    /// From the first upload to the last answer (s).
    uploaded_s: f64,
    /// From the first upload to the last verdict (s).
    verified_s: f64,
    /// The re-simulation alone before and after (runs/s), unless skipped.
    resim: Option<(f64, f64)>,
    /// Verdicts in the database: their count, the first's and the last's time (ms).
    span: Option<Span>,
    /// The board's read times, idle and while verifying (ms).
    reads: (Vec<f64>, Vec<f64>),
}

/// Prints what the upload load test measured.
fn report(args: &Args, o: &Outcome) {
    let Outcome {
        uploaded,
        uploaded_s,
        verified_s,
        resim,
        span,
        reads: (idle, busy),
    } = o;
    let accepted = uploaded.statuses.get(&202).copied().unwrap_or(0);
    // The figure the servers are held to: the mean of the two medians.
    let resim_mean = resim.map(|(before, after)| (before + after) / 2.0);
    let of_resim = |per_worker: f64| {
        resim_mean.map_or(String::new(), |mean| {
            format!(
                " = {:.1} % of the re-simulation alone",
                100.0 * per_worker / mean
            )
        })
    };
    println!(
        "uploads: {:?} in {uploaded_s:.2} s (ack p50 {:.1} ms, p99 {:.1} ms)",
        uploaded.statuses,
        pct(&uploaded.ack_ms, 50.0),
        pct(&uploaded.ack_ms, 99.0)
    );
    // With --spawn the time from the first upload includes stopping the storing server and
    // starting the verifying ones: not a rate of anything.
    if args.spawn.is_none() {
        println!(
            "verified: {accepted} runs in {verified_s:.2} s from the first upload: {:.1} uploads verified/s",
            accepted as f64 / verified_s
        );
    }
    if let (Some((before, after)), Some(mean)) = (resim, resim_mean) {
        println!(
            "re-simulation alone (Verifier::verify, one thread, this process; median of {RESIM_PASSES} passes): {before:.1} runs/s before, {after:.1} after, mean {mean:.1}"
        );
    }
    let workers = if args.spawn.is_some() {
        args.processes * args.workers
    } else {
        args.servers.len() * args.workers
    };
    if let Some(Span {
        count,
        first_ms,
        last_ms,
        waits_ms,
    }) = span
    {
        let seconds = (last_ms - first_ms) as f64 / 1000.0;
        // Verdicts after the first, over the time from the first to the last.
        let rate = (count.saturating_sub(1)) as f64 / seconds.max(0.001);
        let per_worker = rate / workers as f64;
        println!(
            "verdicts in the database: {count} from the first to the last in {seconds:.2} s: {rate:.1} runs/s; \
             {workers} workers: {per_worker:.1} runs/s per worker{}",
            of_resim(per_worker)
        );
        println!(
            "upload to verdict: p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms",
            pct(waits_ms, 50.0),
            pct(waits_ms, 99.0),
            pct(waits_ms, 100.0)
        );
    }
    if args.spawn.is_none() {
        let per_worker = accepted as f64 / verified_s / workers as f64;
        println!(
            "end to end (first upload to last verdict): {per_worker:.1} runs/s per worker{}",
            of_resim(per_worker)
        );
    }
    if args.readers > 0 {
        for (what, reads) in [("idle", idle), ("while verifying", busy)] {
            println!(
                "leaderboard reads, {what}: {} reads, p50 {:.2} ms, p99 {:.2} ms",
                reads.len(),
                pct(reads, 50.0),
                pct(reads, 99.0)
            );
        }
    }
}

/// Replays verified per pass of the re-simulation alone (the first ones recorded).
const RESIM_PASS_RUNS: usize = 2000;
/// Passes of the re-simulation alone, before and after the uploads each: the median is the
/// figure (the machine is shared; one pass can land on another process's burst).
const RESIM_PASSES: usize = 3;

/// Verifies the replays in this process on one thread, [`RESIM_PASSES`] passes over at most
/// [`RESIM_PASS_RUNS`] of them (the world built beforehand): the median pass, runs/s.
fn resimulate(replays: &[Vec<u8>]) -> Result<f64, String> {
    let verifier = Verifier::with_builtin_levels(Tuning::default(), Limits::default());
    let replays = &replays[..replays.len().min(RESIM_PASS_RUNS)];
    if let Some(first) = replays.first() {
        verifier.verify(&first[..]).map_err(|e| e.to_string())?;
    }
    let mut rates = Vec::with_capacity(RESIM_PASSES);
    for _ in 0..RESIM_PASSES {
        let started = Instant::now();
        for bytes in replays {
            verifier.verify(&bytes[..]).map_err(|e| e.to_string())?;
        }
        rates.push(replays.len() as f64 / started.elapsed().as_secs_f64());
    }
    eprintln!(
        "re-simulation alone, {RESIM_PASSES} passes of {} runs: {}",
        replays.len(),
        rates
            .iter()
            .map(|r| format!("{r:.1}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(pct(&rates, 50.0))
}

/// This run's verdicts (players `load-<tag>-…`), read from the database: their count, the
/// first's and the last's time (ms), and each one's wait from its upload (`verified_ms −
/// uploaded_ms`, ms: the queue and the verification).
async fn verdict_span(database: &str, tag: &str) -> Result<Span, String> {
    const SQL: &str = "SELECT r.uploaded_ms, r.verified_ms
                       FROM runs r JOIN players p ON p.id = r.player_id
                       WHERE p.name LIKE $1 AND r.verified_ms IS NOT NULL";
    let pattern = format!("load-{tag}-%");
    let rows: Vec<(i64, i64)> = if database.starts_with("sqlite:") {
        let pool = sqlx::SqlitePool::connect(database)
            .await
            .map_err(|e| e.to_string())?;
        let rows = sqlx::query_as(SQL).bind(&pattern).fetch_all(&pool).await;
        pool.close().await;
        rows.map_err(|e| e.to_string())?
    } else {
        let pool = sqlx::PgPool::connect(database)
            .await
            .map_err(|e| e.to_string())?;
        let rows = sqlx::query_as(SQL).bind(&pattern).fetch_all(&pool).await;
        pool.close().await;
        rows.map_err(|e| e.to_string())?
    };
    Ok(Span {
        count: rows.len(),
        first_ms: rows.iter().map(|r| r.1).min().unwrap_or(0),
        last_ms: rows.iter().map(|r| r.1).max().unwrap_or(0),
        waits_ms: rows.iter().map(|r| (r.1 - r.0) as f64).collect(),
    })
}

/// What [`verdict_span`] reads.
struct Span {
    count: usize,
    first_ms: i64,
    last_ms: i64,
    waits_ms: Vec<f64>,
}

/// Server processes this load generator started; stopped (SIGKILL) when dropped, so a
/// timeout or an error leaves none behind.
#[derive(Default)]
struct Spawned {
    children: Vec<std::process::Child>,
    /// Pin the processes to these CPUs (`taskset -c`), if given.
    cpus: Option<String>,
}

impl Spawned {
    /// Starts `bin` on `database` with `workers` workers on a free loopback port and waits
    /// until it answers; its base URL.
    async fn start(
        &mut self,
        bin: &std::path::Path,
        database: &str,
        workers: usize,
        verify_batch: Option<u32>,
        http: &reqwest::Client,
    ) -> Result<String, String> {
        let port = free_port()?;
        let mut command = self.command(bin);
        command
            .args(["--database", database, "--listen"])
            .arg(format!("127.0.0.1:{port}"))
            .args(["--workers", &workers.to_string()])
            .args(["--queue-max", &UPLOADS_MAX.to_string()])
            // Every racer, reader and uploader comes from 127.0.0.1: no per-address cap.
            .args(["--connections-per-address-max", "0"]);
        for flag in [
            "--token-rate",
            "--token-burst",
            "--address-rate",
            "--address-burst",
        ] {
            command.args([flag, "1000000"]);
        }
        if let Some(n) = verify_batch {
            command.args(["--verify-batch", &n.to_string()]);
        }
        self.spawn(command, bin)?;
        let base = format!("http://127.0.0.1:{port}");
        Self::wait_healthy(bin, &base, http).await?;
        Ok(base)
    }

    /// Starts the bare relay (`pogo-loadgen bare-relay`, this binary) on a free loopback port;
    /// its base URL.
    async fn start_bare(&mut self, http: &reqwest::Client) -> Result<String, String> {
        let bin = std::env::current_exe().map_err(|e| e.to_string())?;
        let port = free_port()?;
        let mut command = self.command(&bin);
        command
            .args(["bare-relay", "--listen"])
            .arg(format!("127.0.0.1:{port}"));
        self.spawn(command, &bin)?;
        let base = format!("http://127.0.0.1:{port}");
        Self::wait_healthy(&bin, &base, http).await?;
        Ok(base)
    }

    /// `bin`, under `taskset -c` when the processes are pinned.
    fn command(&self, bin: &std::path::Path) -> std::process::Command {
        match &self.cpus {
            Some(cpus) => {
                let mut command = std::process::Command::new("taskset");
                command.args(["-c", cpus]).arg(bin);
                command
            }
            None => std::process::Command::new(bin),
        }
    }

    fn spawn(
        &mut self,
        mut command: std::process::Command,
        bin: &std::path::Path,
    ) -> Result<(), String> {
        let child = command
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| format!("starting {}: {e}", bin.display()))?;
        self.children.push(child);
        Ok(())
    }

    /// Waits until `base` answers `/healthz` (a minute at most).
    async fn wait_healthy(
        bin: &std::path::Path,
        base: &str,
        http: &reqwest::Client,
    ) -> Result<(), String> {
        let started = Instant::now();
        loop {
            if let Ok(r) = http.get(format!("{base}/healthz")).send().await {
                if r.status() == 200 {
                    return Ok(());
                }
            }
            if started.elapsed() > Duration::from_secs(60) {
                return Err(format!("{} did not start on {base}", bin.display()));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The started processes' ids.
    fn pids(&self) -> Vec<u32> {
        self.children.iter().map(std::process::Child::id).collect()
    }

    fn stop_all(&mut self) {
        for mut child in self.children.drain(..) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        self.stop_all();
    }
}

/// A loopback port free now.
fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| e.to_string())
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
    names
        .iter()
        .map(|name| record_bot(level, name, BOT_TICKS_MAX))
        .collect()
}

/// The bot's run of `level` under `name`, to the finish or for `ticks_max` ticks.
fn record_bot(level: &str, name: &str, ticks_max: u32) -> Result<Vec<u8>, String> {
    let tuning = Tuning::default();
    let desc =
        pogo_replay::builtin_level(level).ok_or_else(|| format!("no built-in level {level}"))?;
    let world = Arc::new(World::new(desc, &tuning).map_err(|e| e.to_string())?);
    let mut sim = Simulation::new(world.clone(), tuning.clone(), 1).map_err(|e| e.to_string())?;
    let header = Header::for_simulation(&sim, Some(name.to_string()), None);
    let mut recorder = Recorder::new(Vec::new(), header).map_err(|e| e.to_string())?;
    let mut bot = Bot::new();
    for _ in 0..ticks_max {
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
    fn only_loopback_databases_are_targets() {
        for ok in [
            "sqlite:/tmp/load.db",
            "postgres://pogo:pogo@127.0.0.1:5432/pogo",
            "postgresql://localhost/pogo",
        ] {
            assert_eq!(check_loopback_database(ok), Ok(()), "{ok}");
        }
        for bad in [
            "postgres://pogo:pogo@db.example.com:5432/pogo",
            "postgres://10.0.0.1/pogo",
            "mysql://127.0.0.1/pogo",
        ] {
            assert!(check_loopback_database(bad).is_err(), "{bad}");
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
