//! `pogo-loadgen concurrent`: the page's board reads from `--clients` clients at once, each
//! sending its next request as soon as the last one is answered, for `--seconds` after one
//! untimed second; p50 and p99 per read and overall, the requests answered per second, and
//! the CPU each process used meanwhile (`--pid`: the server; `--postgres`: every process
//! named `postgres`; and this load generator), in cores: CPU seconds ÷ wall seconds, from
//! `/proc/PID/stat` (user + system time of every thread, in the kernel's 100 Hz ticks).

use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use tokio::sync::Mutex;

use super::reads::{Lcg, Route, Target, at, client, timed};

/// Most clients at once.
pub const CLIENTS_MAX: u32 = 256;
/// Longest timed pass (s).
pub const SECONDS_MAX: u64 = 600;
/// The untimed start of a pass.
const WARM_UP: Duration = Duration::from_secs(1);
/// `/proc/PID/stat`'s time unit: USER_HZ, 100 on Linux whatever the kernel's own tick rate.
const PROC_TICKS_PER_S: f64 = 100.0;

/// User + system CPU seconds of a process so far (every thread), from `/proc/PID/stat`.
fn cpu_s(pid: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: fields count from
    // the last ')'. utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / PROC_TICKS_PER_S)
}

/// CPU seconds of every process named `postgres` (the server and its backends).
fn postgres_cpu_s() -> f64 {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0.0;
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| name.bytes().all(|b| b.is_ascii_digit()))
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|comm| comm.trim() == "postgres")
        })
        .filter_map(|pid| cpu_s(&pid))
        .sum()
}

/// The CPU counters a pass reads before and after.
struct Cpu {
    pids: Vec<(String, String)>,
    postgres: bool,
}

impl Cpu {
    fn sample(&self) -> Vec<f64> {
        let mut s: Vec<f64> = self
            .pids
            .iter()
            .map(|(pid, _)| cpu_s(pid).unwrap_or(f64::NAN))
            .collect();
        if self.postgres {
            s.push(postgres_cpu_s());
        }
        s.push(cpu_s("self").unwrap_or(f64::NAN));
        s
    }

    fn names(&self) -> Vec<String> {
        let mut n: Vec<String> = self.pids.iter().map(|(_, name)| name.clone()).collect();
        if self.postgres {
            n.push("postgres (all processes)".into());
        }
        n.push("pogo-loadgen".into());
        n
    }
}

/// What a pass asks and measures.
pub struct Pass<'a> {
    pub base: &'a str,
    pub level: &'a str,
    pub clients: u32,
    pub seconds: u64,
    /// The reads each client sends in turn.
    pub reads: Vec<Route>,
    pub pids: &'a [u32],
    pub postgres: bool,
}

pub async fn run(pass: Pass<'_>) -> Result<(), String> {
    let Pass {
        base,
        level,
        clients,
        seconds,
        reads,
        pids,
        postgres,
    } = pass;
    let reads = Arc::new(reads);
    let http = client()?;
    let mut random = Lcg(0x5eed_cafe);
    let target = Arc::new(Target::discover(&http, "server", base, level, &mut random).await?);
    let cpu = Cpu {
        pids: pids
            .iter()
            .map(|pid| {
                let comm = std::fs::read_to_string(format!("/proc/{pid}/comm"))
                    .map_or_else(|_| "?".into(), |c| c.trim().to_string());
                (pid.to_string(), format!("{comm} ({pid})"))
            })
            .collect(),
        postgres,
    };
    let started = Instant::now();
    let timed_from = started + WARM_UP;
    let until = timed_from + Duration::from_secs(seconds);
    let samples: Arc<Mutex<Vec<(Route, f64)>>> = Arc::default();
    let failures: Arc<Mutex<Vec<String>>> = Arc::default();
    let mut tasks = tokio::task::JoinSet::new();
    for c in 0..clients {
        let (http, target, samples, failures, reads) = (
            http.clone(),
            target.clone(),
            samples.clone(),
            failures.clone(),
            reads.clone(),
        );
        tasks.spawn(async move {
            let mut random = Lcg(0x1234_5678 + u64::from(c));
            let mut mine = Vec::new();
            let mut i = c as usize;
            while Instant::now() < until {
                let route = reads[i % reads.len()];
                let url = target.read_url(route, i, &mut random);
                let sent = Instant::now();
                match timed(&http, Method::GET, &url, route, |r| r, StatusCode::OK).await {
                    Ok(ms) if sent >= timed_from => mine.push((route, ms)),
                    Ok(_) => {}
                    Err(e) => {
                        failures.lock().await.push(e);
                        return;
                    }
                }
                i += 1;
            }
            samples.lock().await.extend(mine);
        });
    }
    tokio::time::sleep_until(timed_from.into()).await;
    let cpu_before = cpu.sample();
    tokio::time::sleep_until(until.into()).await;
    let cpu_after = cpu.sample();
    let wall_s = until.duration_since(timed_from).as_secs_f64();
    while tasks.join_next().await.is_some() {}
    if let Some(e) = failures.lock().await.first() {
        return Err(e.clone());
    }
    let samples = samples.lock().await;
    println!(
        "{clients} clients at once, {seconds} s timed: {} requests answered, {:.0} a second; {} players on {level}'s board",
        samples.len(),
        samples.len() as f64 / wall_s,
        target.total
    );
    println!("| read (ms) | requests | p50 | p99 | max |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    let row = |name: &str, mut ms: Vec<f64>| {
        ms.sort_by(f64::total_cmp);
        println!(
            "| {name} | {} | {:.2} | {:.2} | {:.2} |",
            ms.len(),
            at(&ms, 0.5),
            at(&ms, 0.99),
            ms.last().copied().unwrap_or(f64::NAN)
        );
    };
    for &route in reads.iter() {
        row(
            route.name(),
            samples
                .iter()
                .filter(|(r, _)| *r == route)
                .map(|s| s.1)
                .collect(),
        );
    }
    row("all", samples.iter().map(|s| s.1).collect());
    let used: Vec<String> = cpu
        .names()
        .iter()
        .zip(cpu_before.iter().zip(&cpu_after))
        .map(|(name, (b, a))| format!("{name} {:.2}", (a - b) / wall_s))
        .collect();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!("CPU used, in cores (of {cores}): {}", used.join(", "));
    Ok(())
}
