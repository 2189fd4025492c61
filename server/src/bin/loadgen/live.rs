//! `pogo-loadgen live`: how many live racers one server process holds.
//!
//! Simulated racers stream the demo bot's run of a level, exactly what a page sends
//! (`live::client::page_stream`), each message at GO plus its game time, through rooms of
//! `--room-size` racers. The bot changes its input a dozen times a second; a racer on a stick
//! or a touch screen changes it every frame, so every tick without a change gets an input
//! event too (the input it already has: the run is the bot's, the stream a 60 Hz one, plus ten
//! heartbeats a second and the splits). `--changes-only` streams the bot's changes alone. A wave puts `N` racers in rooms at once, races
//! them to the finish, and measures:
//!
//! - **relay latency**: for every relayed message a racer receives, its arrival minus the
//!   server's receive time (the relay frame carries it, µs after GO; one clock, one machine):
//!   the server's relay work plus the loopback hop, p50 / p99 / max;
//! - **every race verified**: each racer's run filed (its `run_id` in the room's view) and
//!   real-time;
//! - **CPU**: the server process's user + system time over the wave (`/proc/PID/stat`),
//!   per racer, and per frame the server reads or writes (a message in, each relay out);
//! - **send lag**: how late the load generator itself sent (p99). When it is high the load
//!   generator, not the server, is the limit: its racers then arrive late and stop being
//!   real-time;
//! - **the load generator's CPU** over the wave (cores, this process's `/proc/self/stat`):
//!   beside the cores it is pinned to, it says how near it ran to its own limit.
//!
//! Waves grow through `--racers` (a list) until one fails (p99 over `--p99-max-ms`, a race not
//! filed real-time): the last one that held is the figure. The server and this load generator
//! share the machine's cores, which is stated beside the figures.
//!
//! `--bare` races the same streams, after each wave, through a bare relay on the same stack
//! that only forwards frames (`loadgen/bare.rs`): its CPU per frame is the floor, printed on
//! the row above the server's. Its rooms start as the wave's rooms went (each at its GO's
//! offset from the first GO: set as each room's racers got ready, they spread over about a
//! tenth of a second, one room a millisecond or so, so their frames arrive out of phase);
//! `--bare-in-phase` starts them all at once. `--server-cpus` pins the server and the bare
//! relay (`taskset -c`); pin the load generator to the other cores yourself.
//!
//! Every racer connects from 127.0.0.1: `--spawn` starts the server with no per-address
//! connection cap; a server given with `--server` needs `--connections-per-address-max 0` (or
//! one above the racers) for waves over its default 256.
//!
//! ```text
//! cargo build --release -p pogo-server --bins
//! target/release/pogo-loadgen live --spawn target/release/pogo-server \
//!     --database sqlite:/tmp/live.db --racers 100,200,400,800,1600
//! ```

use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use pogo_server::live::client::{Client, Event, bot_page_stream};
use pogo_server::live::wire::{
    LiveClientMessage, LiveServerMessage, Phase, Role, RoomView, Stream,
};

/// Most racers in one wave.
const RACERS_MAX: usize = 20_000;

#[derive(Debug, Args)]
pub struct LiveArgs {
    /// Start the server: this `pogo-server` binary, on `--database` (its CPU is measured).
    #[arg(long, value_name = "BIN", conflicts_with = "server")]
    spawn: Option<std::path::PathBuf>,
    /// The spawned server's database (`sqlite:<file>` or a loopback `postgres://` URL).
    #[arg(long, value_name = "URL", requires = "spawn")]
    database: Option<String>,
    /// Or a running server's base URL (loopback only; its CPU is not measured).
    #[arg(long)]
    server: Option<String>,
    /// The waves' sizes: racers at once, e.g. `100,200,400`.
    #[arg(long, value_delimiter = ',', default_value = "50,100,200,400")]
    racers: Vec<usize>,
    /// Racers per room (1 to 8).
    #[arg(long, default_value_t = 4)]
    room_size: usize,
    /// The level the bot races (its run to the finish is the stream).
    #[arg(long, default_value = "course")]
    level: String,
    /// Stream only the bot's input changes (about 12 a second), not an input every tick.
    #[arg(long)]
    changes_only: bool,
    /// A wave fails when the relay's p99 is over this (ms).
    #[arg(long, default_value_t = 10.0)]
    p99_max_ms: f64,
    /// Stop after this many seconds whatever happens.
    #[arg(long, default_value_t = 1200)]
    seconds_max: u64,
    /// After each wave, race the same streams through a bare relay (`loadgen/bare.rs`: the
    /// same stack, forwarding frames and nothing else) and print its row: the floor.
    #[arg(long, requires = "spawn")]
    bare: bool,
    /// Start every bare room at the same moment (their frames in phase, which batches the bare
    /// relay's wake-ups) instead of at the offsets of the wave's GOs: the floor as rounds one
    /// and two of PERFORMANCE.md measured it.
    #[arg(long, requires = "bare")]
    bare_in_phase: bool,
    /// Pin the spawned server (and the bare relay) to these CPUs (`taskset -c`, e.g. `0` or
    /// `0-3`); run the load generator itself on the others (`taskset -c 4-7 pogo-loadgen …`).
    #[arg(long, value_name = "LIST", requires = "spawn")]
    server_cpus: Option<String>,
}

/// What one racer saw.
#[derive(Default)]
struct Seen {
    /// Relay latencies (µs).
    relay_us: Vec<u32>,
    /// How late each of the racer's own messages was sent (µs).
    lag_us: Vec<u32>,
    /// The room's last view, once every racer's run was filed (none: not in time).
    filed: Option<RoomView>,
    /// Why the racer failed, if it did.
    failure: Option<String>,
}

pub fn run(args: LiveArgs) -> Result<(), String> {
    if args.racers.iter().any(|&n| n == 0 || n > RACERS_MAX) || !(1..=8).contains(&args.room_size) {
        return Err(format!(
            "--racers within 1..={RACERS_MAX} each, --room-size within 1..=8"
        ));
    }
    if let Some(server) = &args.server {
        super::check_loopback(server)?;
    }
    if let Some(database) = &args.database {
        super::check_loopback_database(database)?;
    }
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let deadline = Duration::from_secs(args.seconds_max);
    runtime.block_on(async {
        tokio::time::timeout(deadline, waves(&args))
            .await
            .map_err(|_| format!("stopped after --seconds-max {} s", args.seconds_max))?
    })
}

async fn waves(args: &LiveArgs) -> Result<(), String> {
    let http = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(60))
        // Let an idle connection go before the server does (`--header-read-timeout-s`).
        .pool_idle_timeout(Duration::from_secs(5))
        .build()
        .map_err(|e| e.to_string())?;
    let mut spawned = super::Spawned::default();
    spawned.cpus.clone_from(&args.server_cpus);
    let bare = if args.bare {
        let base = spawned.start_bare(&http).await?;
        Some((base, spawned.pids()[0]))
    } else {
        None
    };
    let (base, pid) = match (&args.spawn, &args.database, &args.server) {
        (Some(bin), Some(database), _) => {
            let base = spawned.start(bin, database, 0, None, &http).await?;
            (base, spawned.pids().last().copied())
        }
        (_, _, Some(server)) => (server.clone(), None),
        _ => return Err("give --spawn BIN --database URL, or --server URL".into()),
    };
    let stream = Arc::new(bot_page_stream(&args.level, !args.changes_only)?);
    let game_s = stream.last().map_or(0.0, |m| m.1 as f64 / 1e6);
    eprintln!(
        "the bot's run of {}: {} messages over {game_s:.1} s ({:.0} a second)",
        args.level,
        stream.len(),
        stream.len() as f64 / game_s.max(1e-9)
    );
    println!(
        "| relay | racers | rooms | messages in/s | relayed/s | relay p50 / p99 / max (ms) | server CPU (cores) | CPU per racer (ms/s) | CPU per frame (µs) | send lag p99 (ms) | filed real-time | load generator CPU (cores) |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    let frames: Arc<Vec<(Vec<u8>, i64)>> =
        Arc::new(stream.iter().map(|(m, t)| (m.encode(), *t)).collect());
    for (wave, &racers) in args.racers.iter().enumerate() {
        let tokens = register(&http, &base, wave, racers).await?;
        let cpu_before = pid.map(cpu_seconds).transpose()?;
        let own_before = cpu_seconds(std::process::id())?;
        let started = Instant::now();
        let seen = race_wave(&base, args, &tokens, stream.clone()).await?;
        let elapsed = started.elapsed().as_secs_f64();
        let cpu = match (pid, cpu_before) {
            (Some(pid), Some(before)) => Some((cpu_seconds(pid)? - before) / elapsed),
            _ => None,
        };
        let own = (cpu_seconds(std::process::id())? - own_before) / elapsed;
        if let Some((bare_base, bare_pid)) = &bare {
            // The floor's rooms start as this wave's rooms went: each at one of their GOs'
            // offsets from the first (or all at once, `--bare-in-phase`).
            let rooms = racers.div_ceil(args.room_size);
            let starts_us = if args.bare_in_phase {
                vec![0; rooms]
            } else {
                go_offsets_us(&seen, rooms)
            };
            let before = cpu_seconds(*bare_pid)?;
            let own_before = cpu_seconds(std::process::id())?;
            let started = Instant::now();
            let bare_seen = super::bare::wave(
                bare_base,
                wave,
                racers,
                args.room_size,
                &starts_us,
                frames.clone(),
            )
            .await?;
            let elapsed = started.elapsed().as_secs_f64();
            let cpu = (cpu_seconds(*bare_pid)? - before) / elapsed;
            let own = (cpu_seconds(std::process::id())? - own_before) / elapsed;
            let bare_seen: Vec<Seen> = bare_seen
                .into_iter()
                .map(|b| Seen {
                    relay_us: b.relay_us,
                    lag_us: b.lag_us,
                    filed: None,
                    failure: b.failure,
                })
                .collect();
            let cpu = Cpu {
                relay: Some(cpu),
                own,
            };
            report(args, "bare", racers, &stream, &bare_seen, cpu, game_s);
        }
        let cpu = Cpu { relay: cpu, own };
        let held = report(args, "pogo-server", racers, &stream, &seen, cpu, game_s);
        if !held {
            eprintln!("the wave of {racers} racers did not hold; stopping");
            break;
        }
    }
    Ok(())
}

/// The start of each of `rooms` rooms, µs from the first: the GOs of the rooms the wave
/// `seen` raced, in order (a room whose GO no racer saw starts with the last one). Their
/// spread is what batches a relay's wake-ups or not: frames of rooms whose GOs fall in the
/// same millisecond arrive together.
fn go_offsets_us(seen: &[Seen], rooms: usize) -> Vec<i64> {
    let gos: std::collections::BTreeMap<&str, i64> = seen
        .iter()
        .filter_map(|s| s.filed.as_ref())
        .filter_map(|room| Some((room.id.as_str(), room.go_ms?)))
        .collect();
    let mut gos: Vec<i64> = gos.into_values().collect();
    gos.sort_unstable();
    let first = gos.first().copied().unwrap_or(0);
    let mut starts: Vec<i64> = gos.iter().map(|go| (go - first) * 1000).collect();
    let last = starts.last().copied().unwrap_or(0);
    starts.resize(rooms, last);
    starts
}

/// CPU over a wave, in cores (CPU seconds a second).
struct Cpu {
    /// The relay's (pogo-server's or the bare relay's), where its process is known.
    relay: Option<f64>,
    /// This load generator's.
    own: f64,
}

/// Prints a wave's row; whether it held (p99 within the bound, every race filed real-time).
fn report(
    args: &LiveArgs,
    relay_name: &str,
    racers: usize,
    stream: &[(Stream, i64)],
    seen: &[Seen],
    cpu: Cpu,
    game_s: f64,
) -> bool {
    let Cpu { relay: cpu, own } = cpu;
    let mut relay: Vec<f64> = seen
        .iter()
        .flat_map(|s| s.relay_us.iter().map(|&us| f64::from(us) / 1000.0))
        .collect();
    relay.sort_by(f64::total_cmp);
    let lag: Vec<f64> = seen
        .iter()
        .flat_map(|s| s.lag_us.iter().map(|&us| f64::from(us) / 1000.0))
        .collect();
    let rooms = racers.div_ceil(args.room_size);
    let filed_real_time = seen
        .iter()
        .filter(|s| s.failure.is_none() && s.filed.is_some())
        .count();
    let failed = seen.iter().filter(|s| s.failure.is_some()).count();
    for failure in seen.iter().filter_map(|s| s.failure.as_ref()).take(3) {
        eprintln!("  a racer failed: {failure}");
    }
    let per_s = stream.len() as f64 / game_s.max(1e-9);
    let p99 = super::pct(&relay, 99.0);
    let (in_s, out_s) = (per_s * racers as f64, relay.len() as f64 / game_s.max(1e-9));
    // The server's CPU for each frame it reads or writes (a relay: one in, room size − 1 out).
    let per_frame = cpu.map_or("-".into(), |c| format!("{:.2}", c * 1e6 / (in_s + out_s)));
    let filed = if relay_name == "bare" {
        format!("({failed} failed)")
    } else {
        format!("{filed_real_time} of {racers}")
    };
    println!(
        "| {relay_name} | {racers} | {rooms} | {in_s:.0} | {out_s:.0} | {:.2} / {:.2} / {:.2} | {} | {} | {per_frame} | {:.2} | {filed} | {own:.2} |",
        super::pct(&relay, 50.0),
        p99,
        relay.last().copied().unwrap_or(0.0),
        cpu.map_or("-".into(), |c| format!("{c:.2}")),
        cpu.map_or("-".into(), |c| format!("{:.3}", c * 1000.0 / racers as f64)),
        super::pct(&lag, 99.0),
    );
    p99 <= args.p99_max_ms && filed_real_time == racers
}

/// Registers a player per racer of wave `wave`; their tokens.
async fn register(
    http: &reqwest::Client,
    base: &str,
    wave: usize,
    racers: usize,
) -> Result<Vec<String>, String> {
    let tag = std::process::id();
    let names: Vec<String> = (0..racers)
        .map(|i| format!("live-{tag}-{wave}-{i}"))
        .collect();
    super::register(http, base, &names).await
}

/// One wave: rooms made, racers joined and ready, every race run to its finish.
async fn race_wave(
    base: &str,
    args: &LiveArgs,
    tokens: &[String],
    stream: Arc<Vec<(Stream, i64)>>,
) -> Result<Vec<Seen>, String> {
    let http = reqwest::Client::builder()
        .no_proxy()
        .build()
        .map_err(|e| e.to_string())?;
    let mut tasks = Vec::new();
    for room_tokens in tokens.chunks(args.room_size) {
        let response = http
            .post(format!("{base}/api/levels/{}/rooms", args.level))
            .send()
            .await
            .map_err(|e| e.to_string())?;
        let body: serde_json::Value = response.json().await.map_err(|e| e.to_string())?;
        let room = body["id"].as_str().ok_or("no room id")?.to_string();
        let room_size = room_tokens.len();
        for token in room_tokens {
            let (base, room, token, stream) = (
                base.to_string(),
                room.clone(),
                token.clone(),
                stream.clone(),
            );
            tasks.push(tokio::spawn(async move {
                racer(&base, &room, &token, &stream, room_size)
                    .await
                    .unwrap_or_else(|failure| Seen {
                        failure: Some(failure),
                        ..Seen::default()
                    })
            }));
        }
    }
    let mut seen = Vec::new();
    for task in tasks {
        seen.push(task.await.map_err(|e| e.to_string())?);
    }
    Ok(seen)
}

/// One racer: join, ready, stream the run on time while reading the relays, then wait until
/// the room has filed every run.
async fn racer(
    base: &str,
    room: &str,
    token: &str,
    stream: &[(Stream, i64)],
    room_size: usize,
) -> Result<Seen, String> {
    let mut client = Client::connect(base, room).await?;
    client.hello(Role::Racer, Some(token), None).await?;
    let mut joined = 0;
    let mut me = None;
    let go_ms = loop {
        let event = timeout(client.next()).await?;
        if let Event::Control(LiveServerMessage::Welcome { racer, .. }) = &event {
            me = *racer;
        }
        match event {
            Event::Control(
                LiveServerMessage::Welcome { room, .. } | LiveServerMessage::Room { room },
            ) => {
                if let Some(go) = room.go_ms {
                    break go;
                }
                // Ready once the room is whole (a room of several waits for the others).
                if room.racers.len() == room_size && joined == 0 {
                    joined = 1;
                    client
                        .send(&LiveClientMessage::Ready { ready: true })
                        .await?;
                }
            }
            Event::Closed { code, reason } => return Err(format!("closed {code}: {reason}")),
            _ => {}
        }
    };
    let (mut tx, mut rx) = client.split();
    let go_us = go_ms * 1000;
    let sender = async {
        let mut lag_us = Vec::with_capacity(stream.len());
        for (message, game_us) in stream {
            let due = go_us + game_us;
            let wait = due - pogo_server::live::now_us();
            if wait > 0 {
                tokio::time::sleep(Duration::from_micros(wait as u64)).await;
            }
            lag_us.push(
                u32::try_from((pogo_server::live::now_us() - due).max(0)).unwrap_or(u32::MAX),
            );
            tx.stream(message).await?;
        }
        Ok::<_, String>(lag_us)
    };
    let reader = async {
        let mut relay_us = Vec::new();
        loop {
            match timeout(rx.next()).await? {
                Event::Relay { received_us, .. } => {
                    let sent = go_us + i64::try_from(received_us).unwrap_or(i64::MAX);
                    let latency = pogo_server::live::now_us() - sent;
                    relay_us.push(u32::try_from(latency.max(0)).unwrap_or(u32::MAX));
                }
                Event::Control(LiveServerMessage::Room { room }) => {
                    let filed = room.racers.iter().all(|r| r.run_id.is_some());
                    if room.phase == Phase::Over && filed {
                        return Ok::<_, String>((relay_us, room));
                    }
                }
                Event::Closed { code, reason } => return Err(format!("closed {code}: {reason}")),
                _ => {}
            }
        }
    };
    let (lag_us, read) = tokio::join!(sender, reader);
    let lag_us = lag_us?;
    let (relay_us, view) = read?;
    let mine = view.racers.iter().find(|r| Some(r.racer) == me);
    let failure = mine.filter(|r| !r.realtime).map(|r| {
        format!(
            "{} not real-time: {}",
            r.name,
            r.realtime_note.clone().unwrap_or_default()
        )
    });
    drop(tx);
    Ok(Seen {
        relay_us,
        lag_us,
        filed: Some(view),
        failure,
    })
}

/// Waits for the room's next event, at most a minute past a race's length.
async fn timeout(next: impl std::future::Future<Output = Option<Event>>) -> Result<Event, String> {
    tokio::time::timeout(Duration::from_secs(700), next)
        .await
        .map_err(|_| "the room went silent".to_string())?
        .ok_or_else(|| "the socket ended".to_string())
}

/// A process's user + system CPU time so far (s), from `/proc/PID/stat`.
fn cpu_seconds(pid: u32) -> Result<f64, String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).map_err(|e| e.to_string())?;
    // The fields after the command's closing parenthesis: utime and stime are the 12th and
    // 13th of them (fields 14 and 15 of the line), in clock ticks of 1/100 s on Linux.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    Ok((ticks(11) + ticks(12)) / 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen_in(room: &str, go_ms: Option<i64>) -> Seen {
        let view = RoomView {
            id: room.into(),
            level: "course".into(),
            tick_rate: 60,
            phase: Phase::Over,
            go_ms,
            ends_ms: None,
            slack_ms: 0,
            racers: Vec::new(),
            spectators: 0,
            note: None,
        };
        Seen {
            filed: Some(view),
            ..Seen::default()
        }
    }

    /// Each room's GO once, as offsets from the first, in order; the rooms no racer saw a GO
    /// of start with the last.
    #[test]
    fn the_floors_rooms_start_at_the_waves_go_offsets() {
        let mut seen: Vec<Seen> = ["a", "b", "c"]
            .iter()
            .zip([1_000, 1_003, 1_001])
            .flat_map(|(room, go)| (0..4).map(move |_| seen_in(room, Some(go))))
            .collect();
        seen.push(seen_in("d", None));
        seen.push(Seen::default());
        assert_eq!(go_offsets_us(&seen, 5), [0, 1_000, 3_000, 3_000, 3_000]);
        assert_eq!(go_offsets_us(&seen, 2), [0, 1_000]);
        assert_eq!(go_offsets_us(&[], 2), [0, 0]);
    }
}
