//! `pogo-loadgen reads`: every public route, timed on servers whose boards differ only in
//! size.
//!
//! Each `--board LABEL=URL` is a running server on its own database, holding one big board of
//! `--level` (seeded by `pogo-loadgen seed`); the servers run the same level, so a route that
//! does not read the board asks each the same thing and only the board's size differs. The
//! requests go to the servers in turn, request by request, so that every size is timed under
//! the same machine load; after 20 untimed requests, `--requests` timed ones per route and
//! server, one at a time (latency, not throughput), each from its send to the last byte of
//! its answer.
//!
//! Routes, as the page and an API client call them (the admin routes and the run tickets'
//! are left out: the admin's are not public, the tickets' are being rewritten):
//! the board (top 20, a page at a random offset, around a random player, the real-time
//! board's first entry), the seasons list, a run's status and rank, a verified run's replay,
//! ghost and inspection, the levels, the level's geometry, `/healthz`, `/metrics`, the
//! OpenAPI document, the page itself, registering a player, an upload, and the export. The
//! export is a stream as long as the board, so it is timed twice: its first byte (what a
//! client waits for, every request: the first batch of rows), and a whole download, as
//! microseconds a row (what the board's length costs, which should not grow per row) — once
//! the uploads are verified, downloaded twice per board, the second (warm) one reported.
//!
//! Before timing, each server gets one real run (the bot's, under a player registered for
//! it) and verifies it: the seeded runs' replay bytes are placeholders, and the replay, ghost
//! and inspection need a real file.

use std::time::{Duration, Instant};

use reqwest::{Client, Method, StatusCode};
use serde_json::Value;

/// Untimed requests per route and server before the timed ones.
const WARM_UP: u32 = 20;
/// How long the set-up waits for its real run's verdict.
const VERDICT_WAIT: Duration = Duration::from_secs(120);
/// Pages read to pick the players and runs that reads look up.
const SAMPLE_PAGES: u32 = 40;

/// One server and what the reads ask of it.
pub struct Target {
    pub label: String,
    pub base: String,
    pub level: String,
    /// Players on the board.
    pub total: u64,
    /// Players and runs on the board, spread over it.
    pub players: Vec<String>,
    pub runs: Vec<i64>,
}

/// What `reads` adds to a target: a verified real run, a player to upload as, its uploads.
struct Writer {
    token: String,
    player: String,
    ghost_run: i64,
    /// Distinct replays of this player, one per upload.
    uploads: Vec<Vec<u8>>,
    /// Players registered so far (each needs a new name).
    registered: u32,
    tag: String,
    /// The last upload's run.
    last_upload: Option<i64>,
}

/// A route as timed: what it asks, what status it must answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    Top,
    Page,
    Around,
    RealtimeTop,
    Seasons,
    RunStatus,
    Replay,
    Ghost,
    Inspect,
    Levels,
    Geometry,
    Healthz,
    Metrics,
    OpenApi,
    WebPage,
    Register,
    Upload,
    ExportFirstByte,
}

impl Route {
    pub const ALL: [Route; 18] = [
        Route::Top,
        Route::Page,
        Route::Around,
        Route::RealtimeTop,
        Route::Seasons,
        Route::RunStatus,
        Route::Replay,
        Route::Ghost,
        Route::Inspect,
        Route::Levels,
        Route::Geometry,
        Route::Healthz,
        Route::Metrics,
        Route::OpenApi,
        Route::WebPage,
        Route::Register,
        Route::Upload,
        Route::ExportFirstByte,
    ];

    /// A board read by its short name (`top`, `page`, `around`, `realtime`, `seasons`,
    /// `run`), for `concurrent --reads`.
    pub fn page_read(short: &str) -> Option<Route> {
        let found = match short {
            "top" => Route::Top,
            "page" => Route::Page,
            "around" => Route::Around,
            "realtime" => Route::RealtimeTop,
            "seasons" => Route::Seasons,
            "run" => Route::RunStatus,
            _ => return None,
        };
        Some(found)
    }

    pub fn name(self) -> &'static str {
        match self {
            Route::Top => "board: top 20",
            Route::Page => "board: page at any offset",
            Route::Around => "board: around a player",
            Route::RealtimeTop => "board: real-time top 1",
            Route::Seasons => "seasons list",
            Route::RunStatus => "run status + rank",
            Route::Replay => "run replay (bytes)",
            Route::Ghost => "run ghost",
            Route::Inspect => "run inspect",
            Route::Levels => "levels",
            Route::Geometry => "level geometry",
            Route::Healthz => "/healthz",
            Route::Metrics => "/metrics",
            Route::OpenApi => "OpenAPI document",
            Route::WebPage => "the page (/)",
            Route::Register => "register a player",
            Route::Upload => "upload a run",
            Route::ExportFirstByte => "export: first byte",
        }
    }
}

/// A fixed sequence (a simple LCG: reproducible, spread over the board).
pub struct Lcg(pub u64);

impl Lcg {
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n.max(1)
    }
}

pub fn client() -> Result<Client, String> {
    Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(120))
        .build()
        .map_err(|e| e.to_string())
}

/// GETs `url` as JSON, failing on any status but 200.
pub async fn get_json(http: &Client, url: &str) -> Result<Value, String> {
    let response = http.get(url).send().await.map_err(|e| e.to_string())?;
    let status = response.status();
    let body: Value = response.json().await.map_err(|e| format!("{url}: {e}"))?;
    if status != StatusCode::OK {
        return Err(format!("{url}: {status} {body}"));
    }
    Ok(body)
}

impl Target {
    /// The server's board of `level`, and players and runs picked from pages spread over it.
    pub async fn discover(
        http: &Client,
        label: &str,
        base: &str,
        level: &str,
        random: &mut Lcg,
    ) -> Result<Target, String> {
        let board = format!("{base}/api/levels/{level}/leaderboard");
        let top = get_json(http, &format!("{board}?limit=1")).await?;
        let total = top["total"].as_u64().unwrap_or(0);
        if total == 0 {
            return Err(format!("{label}: {level}'s board is empty: seed it first"));
        }
        let mut players = Vec::new();
        let mut runs = Vec::new();
        for _ in 0..SAMPLE_PAGES {
            let url = format!("{board}?limit=5&offset={}", random.below(total));
            let page = get_json(http, &url).await?;
            for entry in page["entries"].as_array().into_iter().flatten() {
                players.push(entry["player"].as_str().unwrap_or_default().to_string());
                runs.push(entry["run_id"].as_i64().unwrap_or_default());
            }
        }
        if players.is_empty() {
            return Err(format!("{label}: no entries read on {level}"));
        }
        Ok(Target {
            label: label.to_string(),
            base: base.to_string(),
            level: level.to_string(),
            total,
            players,
            runs,
        })
    }

    /// The request of `route`'s `i`-th sample (for a read; the writes are [`Writer`]'s).
    pub fn read_url(&self, route: Route, i: usize, random: &mut Lcg) -> String {
        let (base, level) = (&self.base, &self.level);
        let board = format!("{base}/api/levels/{level}/leaderboard");
        let pick = i.wrapping_mul(7919);
        match route {
            Route::Top => format!("{board}?limit=20"),
            Route::Page => format!("{board}?limit=20&offset={}", random.below(self.total)),
            Route::Around => format!(
                "{board}?limit=20&around={}",
                self.players[pick % self.players.len()]
            ),
            Route::RealtimeTop => format!("{board}?limit=1&category=realtime"),
            Route::Seasons => format!("{base}/api/levels/{level}/seasons"),
            Route::RunStatus => format!("{base}/api/runs/{}", self.runs[pick % self.runs.len()]),
            Route::Levels => format!("{base}/api/levels"),
            Route::Geometry => format!("{base}/api/levels/{level}"),
            Route::Healthz => format!("{base}/healthz"),
            Route::Metrics => format!("{base}/metrics"),
            Route::OpenApi => format!("{base}/api/openapi.json"),
            Route::WebPage => format!("{base}/"),
            Route::ExportFirstByte => format!("{base}/api/levels/{level}/export?format=csv"),
            // The run routes of `reads` name its real run; these are for other callers.
            Route::Replay | Route::Ghost | Route::Inspect | Route::Register | Route::Upload => {
                format!("{base}/api/runs/{}", self.runs[pick % self.runs.len()])
            }
        }
    }
}

/// Sends one request of `route` and reads its answer to the end (the export: to its first
/// byte); the time taken (ms).
pub async fn timed(
    http: &Client,
    method: Method,
    url: &str,
    route: Route,
    build: impl FnOnce(reqwest::RequestBuilder) -> reqwest::RequestBuilder,
    want: StatusCode,
) -> Result<f64, String> {
    Ok(timed_body(http, method, url, route, build, want).await?.0)
}

/// [`timed`], and the answer's body (empty for the export).
async fn timed_body(
    http: &Client,
    method: Method,
    url: &str,
    route: Route,
    build: impl FnOnce(reqwest::RequestBuilder) -> reqwest::RequestBuilder,
    want: StatusCode,
) -> Result<(f64, Vec<u8>), String> {
    let started = Instant::now();
    let mut response = build(http.request(method, url))
        .send()
        .await
        .map_err(|e| format!("{url}: {e}"))?;
    let status = response.status();
    if route == Route::ExportFirstByte {
        let first = response.chunk().await.map_err(|e| format!("{url}: {e}"))?;
        let took = started.elapsed().as_secs_f64() * 1000.0;
        if status != want || first.is_none_or(|c| c.is_empty()) {
            return Err(format!("{url}: {status}, no first chunk"));
        }
        // Dropping the response closes the connection: the rest is not read.
        return Ok((took, Vec::new()));
    }
    let body = response.bytes().await.map_err(|e| format!("{url}: {e}"))?;
    let took = started.elapsed().as_secs_f64() * 1000.0;
    if status != want {
        return Err(format!(
            "{url}: {status} (wanted {want}): {}",
            String::from_utf8_lossy(&body[..body.len().min(300)])
        ));
    }
    if route == Route::RunStatus {
        let run: Value = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
        if run["rank"].as_i64().is_none() {
            return Err(format!("{url}: a board's run has no rank: {run}"));
        }
    }
    Ok((took, body.to_vec()))
}

impl Writer {
    /// Registers a player on the target's server, uploads the bot's whole run of the level
    /// under that name and waits for its verdict; records `uploads` short runs to upload later.
    async fn set_up(
        http: &Client,
        target: &Target,
        tag: &str,
        uploads: u32,
    ) -> Result<Writer, String> {
        let player = format!("reads {tag} {}", target.label);
        let token = super::register(http, &target.base, std::slice::from_ref(&player))
            .await?
            .remove(0);
        let run = super::record_bot(&target.level, &player, super::BOT_TICKS_MAX)?;
        let response = http
            .post(format!("{}/api/runs", target.base))
            .bearer_auth(&token)
            .header("content-type", "application/octet-stream")
            .body(run)
            .send()
            .await
            .map_err(|e| e.to_string())?;
        let uploaded: Value = response.json().await.map_err(|e| e.to_string())?;
        let id = uploaded["id"]
            .as_i64()
            .ok_or_else(|| format!("{}: the real run was refused: {uploaded}", target.label))?;
        let waited = Instant::now();
        loop {
            let run = get_json(http, &format!("{}/api/runs/{id}", target.base)).await?;
            match run["status"].as_str() {
                Some("verified") => break,
                Some("rejected") => {
                    return Err(format!("{}: run {id} rejected: {run}", target.label));
                }
                _ if waited.elapsed() > VERDICT_WAIT => {
                    return Err(format!("{}: run {id} not verified in time", target.label));
                }
                _ => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
        // Short, unfinished runs (each a tick longer: distinct bytes): an upload is timed,
        // not the verification that follows it.
        let uploads = (0..uploads)
            .map(|i| super::record_bot(&target.level, &player, 30 + i))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Writer {
            token,
            player,
            ghost_run: id,
            uploads,
            registered: 0,
            tag: tag.to_string(),
            last_upload: None,
        })
    }

    /// Times the `i`-th request of `route` on `target`.
    async fn request(
        &mut self,
        http: &Client,
        target: &Target,
        route: Route,
        i: usize,
        random: &mut Lcg,
    ) -> Result<f64, String> {
        let base = &target.base;
        let run = self.ghost_run;
        let get = |url: String| (Method::GET, url, StatusCode::OK);
        let (method, url, want) = match route {
            Route::Replay => get(format!("{base}/api/runs/{run}/replay")),
            Route::Ghost => get(format!("{base}/api/runs/{run}/ghost")),
            Route::Inspect => get(format!("{base}/api/runs/{run}/inspect")),
            Route::Register => (
                Method::POST,
                format!("{base}/api/players"),
                StatusCode::CREATED,
            ),
            Route::Upload => (
                Method::POST,
                format!("{base}/api/runs"),
                StatusCode::ACCEPTED,
            ),
            read => get(target.read_url(read, i, random)),
        };
        match route {
            Route::Register => {
                self.registered += 1;
                let name = format!("reads {} {} {}", self.tag, target.label, self.registered);
                let body = serde_json::json!({ "name": name });
                timed(http, method, &url, route, |r| r.json(&body), want).await
            }
            Route::Upload => {
                let bytes = self
                    .uploads
                    .get(i)
                    .cloned()
                    .ok_or_else(|| format!("no upload {i} recorded for {}", self.player))?;
                let token = self.token.clone();
                let (took, body) = timed_body(
                    http,
                    method,
                    &url,
                    route,
                    |r| {
                        r.bearer_auth(token)
                            .header("content-type", "application/octet-stream")
                            .body(bytes)
                    },
                    want,
                )
                .await?;
                let uploaded: Value = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
                self.last_upload = uploaded["id"].as_i64();
                Ok(took)
            }
            _ => timed(http, method, &url, route, |r| r, want).await,
        }
    }
}

impl Writer {
    /// Waits until the last upload is verified (the worker takes them in order).
    async fn wait_verified(&self, http: &Client, target: &Target) -> Result<(), String> {
        let Some(last) = self.last_upload else {
            return Ok(());
        };
        let waited = Instant::now();
        loop {
            let run = get_json(http, &format!("{}/api/runs/{last}", target.base)).await?;
            if matches!(run["status"].as_str(), Some("verified" | "rejected")) {
                return Ok(());
            }
            if waited.elapsed() > VERDICT_WAIT {
                return Err(format!("{}: run {last} not verified in time", target.label));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// Downloads the whole export; (rows, seconds).
async fn whole_export(http: &Client, target: &Target) -> Result<(u64, f64), String> {
    let url = format!(
        "{}/api/levels/{}/export?format=csv",
        target.base, target.level
    );
    let started = Instant::now();
    let mut response = http.get(&url).send().await.map_err(|e| e.to_string())?;
    if response.status() != StatusCode::OK {
        return Err(format!("{url}: {}", response.status()));
    }
    let mut lines = 0u64;
    while let Some(chunk) = response.chunk().await.map_err(|e| e.to_string())? {
        lines += chunk.iter().filter(|&&b| b == b'\n').count() as u64;
    }
    // The header row is not an entry.
    Ok((lines.saturating_sub(1), started.elapsed().as_secs_f64()))
}

/// Nearest-rank percentile of sorted latencies.
pub fn at(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() as f64 - 1.0) * q).round() as usize]
}

pub async fn run(boards: &[(String, String)], level: &str, requests: u32) -> Result<(), String> {
    let http = client()?;
    let mut random = Lcg(0x9e37_79b9);
    let tag = format!(
        "{:x}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
            % 0xff_ffff
    );
    let mut targets = Vec::new();
    let mut writers = Vec::new();
    for (label, base) in boards {
        let target = Target::discover(&http, label, base, level, &mut random).await?;
        eprintln!("{label}: {} players on {level}'s board", target.total);
        writers.push(Writer::set_up(&http, &target, &tag, WARM_UP + requests).await?);
        targets.push(target);
    }
    // ms per route, per target.
    let mut ms: Vec<Vec<Vec<f64>>> = vec![vec![Vec::new(); targets.len()]; Route::ALL.len()];
    for (r, &route) in Route::ALL.iter().enumerate() {
        let started = Instant::now();
        for i in 0..(WARM_UP + requests) as usize {
            for (t, target) in targets.iter().enumerate() {
                let took = writers[t]
                    .request(&http, target, route, i, &mut random)
                    .await?;
                if i >= WARM_UP as usize {
                    ms[r][t].push(took);
                }
            }
        }
        eprintln!("{}: {:.1} s", route.name(), started.elapsed().as_secs_f64());
    }
    // The uploads' runs are verified first (their verdicts would share the machine with the
    // download), and each board is downloaded twice: the second, warm, is the one reported.
    for (target, writer) in targets.iter().zip(&writers) {
        writer.wait_verified(&http, target).await?;
    }
    let mut exports = Vec::new();
    for target in &targets {
        whole_export(&http, target).await?;
        exports.push(whole_export(&http, target).await?);
    }
    print_table(&targets, &mut ms, &exports, requests);
    Ok(())
}

fn print_table(
    targets: &[Target],
    ms: &mut [Vec<Vec<f64>>],
    exports: &[(u64, f64)],
    requests: u32,
) {
    println!(
        "{} level, {requests} timed requests per route and board, one at a time",
        targets[0].level
    );
    let mut head = String::from("| route (ms) |");
    let mut rule = String::from("| --- |");
    for t in targets {
        head += &format!(" {} ({} on the board) p50 / p99 |", t.label, t.total);
        rule += " ---: |";
    }
    let (first, last) = (&targets[0].label, &targets[targets.len() - 1].label);
    println!("{head} {last} ÷ {first} (p50) |");
    println!("{rule} ---: |");
    for (r, route) in Route::ALL.iter().enumerate() {
        let mut line = format!("| {} |", route.name());
        let mut p50s = Vec::new();
        for latencies in ms[r].iter_mut() {
            latencies.sort_by(f64::total_cmp);
            let p50 = at(latencies, 0.5);
            p50s.push(p50);
            line += &format!(" {p50:.2} / {:.2} |", at(latencies, 0.99));
        }
        let ratio = p50s[p50s.len() - 1] / p50s[0];
        println!("{line} {ratio:.2} |");
    }
    let mut line = String::from("| export: whole board, µs a row |");
    let per_row: Vec<f64> = exports
        .iter()
        .map(|&(rows, s)| s * 1e6 / rows.max(1) as f64)
        .collect();
    for (&(rows, s), us) in exports.iter().zip(&per_row) {
        line += &format!(" {us:.2} ({rows} rows in {s:.2} s) |");
    }
    println!("{line} {:.2} |", per_row[per_row.len() - 1] / per_row[0]);
}
