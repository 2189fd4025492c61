//! `pogo-loadgen seed-tracks` and `track-reads`: many published tracks, and the cost of
//! finding them.
//!
//! `seed-tracks` writes `--tracks` published tracks straight into a pogo-server database,
//! through the real schema (its migrations, triggers and indexes) without re-simulating
//! anything. Each is a real level file — a 40 m runway, a finish, and a marker box whose place
//! is the track's number, so no two geometries are equal — put through the publish gate
//! (`check_track`) for its id, level name and level hash, exactly as `POST /api/tracks` stores
//! it; its author run is a verified finish on its current board (placeholder replay bytes:
//! the reads never open them). Authors are `--authors` players `track-author-N`; names are
//! `<word> <number>` from a fixed list of 64 words, so a prefix search finds a share of them.
//! Tracks were published one every minute up to now. Then `--recent` more verified finishes
//! by 1 000 `track-racer-N` players, in the last 7 days, spread over the tracks by a skewed
//! fixed formula (a few tracks raced a lot, most a little): what the popular list ranks.
//!
//! `track-reads` times, on servers whose databases differ only in how many tracks they hold,
//! what `#/tracks` and a track's page read: the newest, the most raced, an author's, a name
//! search, a deep page (the cursor of the 50th page of 100, or the last), a track, its level file and its board's top
//! ten. As `reads` does: the servers in turn, request by request, 20 untimed then
//! `--requests` timed per route and server, one at a time, send to last byte.
//!
//! ```text
//! pogo-loadgen seed-tracks --database sqlite:/tmp/tracks-100k.db --tracks 100000
//! pogo-loadgen track-reads --board 1k=http://127.0.0.1:18111 --board 100k=http://127.0.0.1:18112
//! ```

use std::time::Instant;

use clap::Subcommand;
use pogo_core::Tuning;
use pogo_replay::track::check_track;
use reqwest::{Client, Method, StatusCode};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Most tracks one `seed-tracks` writes.
const SEED_TRACKS_MAX: u64 = 1_000_000;
/// Rows per INSERT statement.
const ROWS_PER_STATEMENT: u64 = 500;
/// The racers the recent finishes are spread over.
const RACERS: u64 = 1_000;
/// The popular list's window (`limits::TRACK_POPULAR_WINDOW_MS`).
const WEEK_MS: i64 = 7 * 86_400_000;
/// Most timed requests per route and server.
const READS_MAX: u32 = 100_000;
/// Untimed requests per route and server first.
const WARM_UP: u32 = 20;
/// Words the names start with (a prefix search of one finds about 1/64 of the tracks).
const WORDS: [&str; 64] = [
    "alpine", "basalt", "canyon", "delta", "ember", "fjord", "glacier", "harbor", "island",
    "jungle", "karst", "lagoon", "mesa", "nebula", "oasis", "prairie", "quarry", "ridge", "summit",
    "tundra", "upland", "valley", "wadi", "xeric", "yardang", "zenith", "arch", "bluff", "cove",
    "dune", "estuary", "fen", "gorge", "heath", "inlet", "jetty", "knoll", "ledge", "marsh",
    "notch", "outcrop", "pass", "quay", "reef", "shoal", "tor", "uvala", "vent", "weir", "xylem",
    "yoke", "zigzag", "atoll", "butte", "cirque", "dell", "esker", "flume", "gully", "hollow",
    "ice", "jade", "kettle", "loop",
];

#[derive(Debug, Subcommand)]
pub enum Mode {
    /// Write published tracks straight into a server's database (see `tracks.rs`).
    SeedTracks {
        /// `sqlite:PATH` or `postgres://…` (the server's `--database`).
        #[arg(long)]
        database: String,
        /// Tracks to write.
        #[arg(long)]
        tracks: u64,
        /// Players they are by, in turn.
        #[arg(long, default_value_t = 1_000)]
        authors: u64,
        /// Verified finishes on them in the last 7 days (default: two per track).
        #[arg(long)]
        recent: Option<u64>,
    },
    /// Time what `#/tracks` and a track's page read, on servers differing in tracks held.
    TrackReads {
        /// `LABEL=URL`: a running server (loopback only); repeat, fewest tracks first (the
        /// ratio is the last's ÷ the first's).
        #[arg(long = "board", required = true)]
        boards: Vec<String>,
        /// Timed requests per route and server (after 20 untimed).
        #[arg(long, default_value_t = 300)]
        requests: u32,
    },
}

pub fn run(mode: Mode) -> Result<(), String> {
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    match mode {
        Mode::SeedTracks {
            database,
            tracks,
            authors,
            recent,
        } => {
            if !(1..=SEED_TRACKS_MAX).contains(&tracks) || !(1..=tracks).contains(&authors) {
                return Err(format!(
                    "--tracks within 1..={SEED_TRACKS_MAX}, --authors within 1..=tracks"
                ));
            }
            super::check_loopback_database(&database)?;
            let recent = recent.unwrap_or(2 * tracks);
            runtime.block_on(seed(&database, tracks, authors, recent))
        }
        Mode::TrackReads { boards, requests } => {
            if requests == 0 || requests > READS_MAX {
                return Err(format!("--requests must be within 1..={READS_MAX}"));
            }
            let labelled = super::boards::labelled(&boards)?;
            runtime.block_on(reads(&labelled, requests))
        }
    }
}

/// One seeded track, as the publish route would store it.
struct SeedTrack {
    id: String,
    level: String,
    level_json: String,
    level_hash: String,
}

/// Track `i`'s level, through the publish gate.
fn seed_track(i: u64, tuning: &Tuning) -> Result<SeedTrack, String> {
    // The marker's place is the number: x in 0..400, z in 0..2500 (within a track's 2 km).
    let (x, z) = (i % 400, i / 400);
    let text = format!(
        r#"{{"name":"seed","spawn":[0,1,0],
            "solids":[{{"min":[-5,-1,-5],"max":[40,0,5]}},
                      {{"min":[{x},-3,{z}],"max":[{x1},-2,{z1}]}}],
            "finishes":[{{"min":[34,0,-2],"max":[36,3,2]}}]}}"#,
        x1 = x + 1,
        z1 = z + 1,
    );
    let track = check_track(&text, tuning).map_err(|e| format!("seed track {i}: {e}"))?;
    Ok(SeedTrack {
        id: format!("{:016x}", track.geometry_hash),
        level: track.desc.name.clone(),
        level_json: pogo_replay::level_to_json(&track.desc),
        level_hash: format!("{:016x}", track.desc.content_hash()),
    })
}

/// A database to seed: its dialect decides how bytes are written.
enum Db {
    Postgres(sqlx::PgPool),
    Sqlite(sqlx::SqlitePool),
}

impl Db {
    async fn open(database: &str) -> Result<Db, String> {
        let url = pogo_server::config::DatabaseUrl::parse(database);
        // Opening the store creates the schema (the server's migrations) if it is new.
        let store = pogo_server::store::Store::open(&url)
            .await
            .map_err(|e| e.to_string())?;
        store.close().await;
        Ok(match url {
            pogo_server::config::DatabaseUrl::Postgres(url) => Db::Postgres(
                sqlx::PgPool::connect(&url)
                    .await
                    .map_err(|e| e.to_string())?,
            ),
            pogo_server::config::DatabaseUrl::Sqlite(path) => {
                let options = sqlx::sqlite::SqliteConnectOptions::new()
                    .filename(path)
                    .journal_mode(sqlx::sqlite::SqliteJournalMode::Wal);
                Db::Sqlite(
                    sqlx::SqlitePool::connect_with(options)
                        .await
                        .map_err(|e| e.to_string())?,
                )
            }
        })
    }

    /// A byte string literal of the dialect.
    fn bytes(&self, bytes: &[u8]) -> String {
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        match self {
            Db::Postgres(_) => format!("'\\x{hex}'::bytea"),
            Db::Sqlite(_) => format!("X'{hex}'"),
        }
    }

    /// Runs `statements` in one transaction: one script between BEGIN and COMMIT (`raw_sql`
    /// runs several statements). A failure ends the seed.
    async fn in_transaction(&self, statements: &[String]) -> Result<(), String> {
        let script = format!("BEGIN; {}; COMMIT;", statements.join("; "));
        match self {
            Db::Postgres(pool) => sqlx::raw_sql(&script).execute(pool).await.map(drop),
            Db::Sqlite(pool) => sqlx::raw_sql(&script).execute(pool).await.map(drop),
        }
        .map_err(|e| e.to_string())
    }

    /// Closes the pool. No ANALYZE: the server gathers no statistics of its own either, so
    /// the reads are timed on plans made without them, as on a database the server grew.
    async fn finish(self) {
        match self {
            Db::Postgres(pool) => pool.close().await,
            Db::Sqlite(pool) => pool.close().await,
        }
    }
}

/// Text as an SQL string literal (text this tool wrote: names from [`WORDS`], level files).
fn text(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// The columns a seeded run fills, for [`verified_run`]'s values.
const INSERT_RUNS: &str = "INSERT INTO runs (player_id, replay_hash, level, level_hash,
    tuning_hash, rules_version, uploaded_ms, status, ticks, finish_tick, splits, verified_ms,
    final_hash) VALUES ";
/// The columns of a placeholder replay.
const INSERT_REPLAYS: &str = "INSERT INTO replays (hash, bytes, size) VALUES ";

/// A verified finish, as [`INSERT_RUNS`] values: by `player` (a name key), of replay `hash`
/// (a literal) on board `level`, `level_hash` of `seed`'s tuning and rules, uploaded at
/// `uploaded` ms and verified 0.5 s later, finished on tick `finish`.
fn verified_run(
    seed: &Seed,
    player: &str,
    hash: &str,
    board: (&str, &str),
    uploaded: i64,
    finish: u64,
) -> String {
    let (level, level_hash) = board;
    format!(
        "((SELECT id FROM players WHERE name_key = {p}), {hash}, {level}, {lh}, {th}, {rules},
          {uploaded}, 'verified', {ticks}, {finish}, '[{{\"checkpoint\":null,\"tick\":{finish}}}]',
          {verified}, '0000000000000000')",
        p = text(player),
        level = text(level),
        lh = text(level_hash),
        th = text(&seed.tuning_hash),
        rules = seed.rules,
        ticks = finish + 1,
        verified = uploaded + 500,
    )
}

/// A placeholder replay of `hash` (a literal), as [`INSERT_REPLAYS`] values.
fn placeholder_replay(db: &Db, hash: &str) -> String {
    format!("({hash}, {}, 64)", db.bytes(&[0; 64]))
}

/// A deterministic 64-bit mix of `i` (SplitMix64's finaliser).
fn mix(i: u64) -> u64 {
    let mut z = i.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The placeholder replay hash of seeded run `tag`/`i`.
fn replay_hash(tag: &str, i: u64) -> [u8; 32] {
    Sha256::digest(format!("{tag}-{i}").as_bytes()).into()
}

/// What a seed writes, and the names and board key it writes them under.
struct Seed {
    db: Db,
    started: Instant,
    tracks: u64,
    authors: u64,
    recent: u64,
    tuning: Tuning,
    tuning_hash: String,
    rules: i64,
    now: i64,
    /// Makes the replay hashes of this run of the tool its own.
    tag: String,
}

async fn seed(database: &str, tracks: u64, authors: u64, recent: u64) -> Result<(), String> {
    let tuning = Tuning::default();
    let now = pogo_server::times::now_ms();
    let seed = Seed {
        db: Db::open(database).await?,
        started: Instant::now(),
        tracks,
        authors,
        recent,
        tuning_hash: format!("{:016x}", tuning.content_hash()),
        tuning,
        rules: i64::from(pogo_core::RULES_VERSION),
        now,
        tag: format!("tracks-{now}"),
    };
    seed_players(&seed).await?;
    let levels = seed_tracks(&seed).await?;
    seed_recent(&seed, &levels).await?;
    let Seed { db, started, .. } = seed;
    db.finish().await;
    eprintln!(
        "seeded {tracks} tracks by {authors} authors and {recent} recent finishes in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The authors and the racers (those already there are kept).
async fn seed_players(seed: &Seed) -> Result<(), String> {
    let Seed {
        db,
        authors,
        now,
        tag,
        ..
    } = seed;
    let (authors, now) = (*authors, *now);
    let players: Vec<String> = (1..=authors)
        .map(|a| format!("track-author-{a}"))
        .chain((1..=RACERS).map(|r| format!("track-racer-{r}")))
        .collect();
    for chunk in players.chunks(ROWS_PER_STATEMENT as usize) {
        let values: Vec<String> = chunk
            .iter()
            .map(|name| {
                let token = db.bytes(&Sha256::digest(format!("{tag}-{name}").as_bytes()));
                format!("({}, {}, {token}, {now})", text(name), text(name))
            })
            .collect();
        db.in_transaction(&[format!(
            "INSERT INTO players (name, name_key, token_hash, created_ms) VALUES {}
             ON CONFLICT DO NOTHING",
            values.join(", ")
        )])
        .await?;
    }
    Ok(())
}

/// The tracks, each with its author's run: published one a minute, up to now. Each track's
/// level name and level hash, in order.
async fn seed_tracks(seed: &Seed) -> Result<Vec<(String, String)>, String> {
    let Seed {
        db,
        started,
        tracks,
        authors,
        tuning,
        now,
        tag,
        ..
    } = seed;
    let (tracks, authors, now) = (*tracks, *authors, *now);
    let mut levels = Vec::with_capacity(tracks as usize);
    let mut i = 0;
    while i < tracks {
        let to = (i + ROWS_PER_STATEMENT).min(tracks);
        let mut replays = Vec::new();
        let mut runs = Vec::new();
        let mut rows = Vec::new();
        for n in i..to {
            let t = seed_track(n, tuning)?;
            let created = now - (tracks - n) as i64 * 60_000;
            let author = format!("track-author-{}", 1 + n % authors);
            let finish = 300 + mix(n) % 1200;
            let hash = db.bytes(&replay_hash(tag, n));
            replays.push(placeholder_replay(db, &hash));
            runs.push(verified_run(
                seed,
                &author,
                &hash,
                (&t.level, &t.level_hash),
                created,
                finish,
            ));
            let name = format!("{} {n}", WORDS[(mix(n ^ 0x5eed) % 64) as usize]);
            rows.push(format!(
                "({id}, {level}, {json}, {lh}, (SELECT id FROM players WHERE name_key = {a}),
                  {name}, {name}, '', {created}, {created}, NULL, FALSE,
                  (SELECT id FROM runs WHERE replay_hash = {hash}), {finish})",
                id = text(&t.id),
                level = text(&t.level),
                json = text(&t.level_json),
                lh = text(&t.level_hash),
                a = text(&author),
                name = text(&name),
            ));
            levels.push((t.level, t.level_hash));
        }
        db.in_transaction(&[
            format!("{INSERT_REPLAYS}{}", replays.join(", ")),
            format!("{INSERT_RUNS}{}", runs.join(", ")),
            format!(
                "INSERT INTO tracks (id, level, level_json, level_hash, author_id, name,
                     name_key, description, created_ms, updated_ms, remix_of, hidden,
                     author_run_id, author_finish_tick) VALUES {}",
                rows.join(", ")
            ),
        ])
        .await?;
        i = to;
        if i % 10_000 == 0 || i == tracks {
            eprintln!(
                "seeded {i} of {tracks} tracks ({:.0} s)",
                started.elapsed().as_secs_f64()
            );
        }
    }
    Ok(levels)
}

/// The recent finishes by the racers, spread over `levels`.
async fn seed_recent(seed: &Seed, levels: &[(String, String)]) -> Result<(), String> {
    let Seed {
        db,
        started,
        tracks,
        recent,
        now,
        tag,
        ..
    } = seed;
    let (tracks, recent, now) = (*tracks, *recent, *now);
    // Recent finishes by the racers: track j = ⌊tracks · u³⌋ for u uniform in [0, 1), so the
    // first tracks are raced most; verified in the last 7 days.
    let mut i = 0;
    while i < recent {
        let to = (i + ROWS_PER_STATEMENT).min(recent);
        let mut replays = Vec::new();
        let mut runs = Vec::new();
        for n in i..to {
            let u = (mix(n ^ 0xface) >> 11) as f64 / (1u64 << 53) as f64;
            let j = ((tracks as f64 * u * u * u) as u64).min(tracks - 1);
            let (level, level_hash) = &levels[j as usize];
            let racer = format!("track-racer-{}", 1 + n % RACERS);
            let finish = 320 + mix(n ^ 0xbeef) % 2400;
            let verified = now - (mix(n ^ 0xd00d) % WEEK_MS as u64) as i64;
            let hash = db.bytes(&replay_hash(&format!("{tag}-recent"), n));
            replays.push(placeholder_replay(db, &hash));
            runs.push(verified_run(
                seed,
                &racer,
                &hash,
                (level, level_hash),
                verified - 500,
                finish,
            ));
        }
        db.in_transaction(&[
            format!("{INSERT_REPLAYS}{}", replays.join(", ")),
            format!("{INSERT_RUNS}{}", runs.join(", ")),
        ])
        .await?;
        i = to;
        if i % 20_000 == 0 || i == recent {
            eprintln!(
                "seeded {i} of {recent} recent finishes ({:.0} s)",
                started.elapsed().as_secs_f64()
            );
        }
    }
    Ok(())
}

/// A route of `track-reads`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Read {
    New,
    Deep,
    Popular,
    Author,
    Search,
    Track,
    LevelFile,
    Board,
}

impl Read {
    const ALL: [Read; 8] = [
        Read::New,
        Read::Deep,
        Read::Popular,
        Read::Author,
        Read::Search,
        Read::Track,
        Read::LevelFile,
        Read::Board,
    ];

    fn label(self) -> &'static str {
        match self {
            Read::New => "newest (#/tracks)",
            Read::Deep => "newest, a deep page",
            Read::Popular => "most raced, 7 days",
            Read::Author => "an author's",
            Read::Search => "name search",
            Read::Track => "a track",
            Read::LevelFile => "its level file",
            Read::Board => "its board, top 10",
        }
    }
}

/// What the reads ask one server: tracks, authors and a deep cursor sampled from it.
struct Target {
    label: String,
    base: String,
    tracks: Vec<(String, String)>,
    authors: Vec<String>,
    deep_cursor: String,
}

async fn sample(http: &Client, label: &str, base: &str) -> Result<Target, String> {
    let mut tracks = Vec::new();
    let mut authors = Vec::new();
    let mut cursor: Option<String> = None;
    let mut deep_cursor = String::new();
    for _ in 0..50 {
        let url = match &cursor {
            Some(c) => format!("{base}/api/tracks?limit=100&cursor={c}"),
            None => format!("{base}/api/tracks?limit=100"),
        };
        let page = super::reads::get_json(http, &url).await?;
        let listed = page["tracks"].as_array().map_or(0, Vec::len);
        for t in page["tracks"].as_array().into_iter().flatten() {
            let id = t["id"].as_str().unwrap_or_default().to_string();
            let level = t["level"].as_str().unwrap_or_default().to_string();
            if tracks.len() % 37 == 0 {
                authors.push(t["author"].as_str().unwrap_or_default().to_string());
            }
            tracks.push((id, level));
        }
        if let Some(c) = cursor.as_ref().filter(|_| listed > 0) {
            deep_cursor = c.clone();
        }
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    if tracks.is_empty() {
        return Err(format!(
            "{label}: {base} lists no tracks (seed-tracks first)"
        ));
    }
    Ok(Target {
        label: label.to_string(),
        base: base.to_string(),
        deep_cursor,
        tracks,
        authors,
    })
}

/// The URL of read `read` number `n` of `target`.
fn url_of(target: &Target, read: Read, n: usize) -> String {
    let base = &target.base;
    let (id, level) = &target.tracks[(n * 7919) % target.tracks.len()];
    match read {
        Read::New => format!("{base}/api/tracks"),
        Read::Deep if target.deep_cursor.is_empty() => format!("{base}/api/tracks"),
        Read::Deep => format!("{base}/api/tracks?cursor={}", target.deep_cursor),
        Read::Popular => format!("{base}/api/tracks?sort=popular"),
        Read::Author => format!(
            "{base}/api/tracks?author={}",
            target.authors[n % target.authors.len()]
        ),
        // A name's first letter: a full page on 1 000 tracks as on 100 000 (with three, a
        // page of 1 000 tracks was often short, and the ratio measured the page's length).
        Read::Search => format!("{base}/api/tracks?q={}", &WORDS[n % WORDS.len()][..1]),
        Read::Track => format!("{base}/api/tracks/{id}"),
        Read::LevelFile => format!("{base}/api/tracks/{id}/level.json"),
        Read::Board => format!("{base}/api/levels/{level}/leaderboard?limit=10"),
    }
}

async fn reads(boards: &[(String, String)], requests: u32) -> Result<(), String> {
    let http = super::reads::client()?;
    let mut targets = Vec::new();
    for (label, base) in boards {
        targets.push(sample(&http, label, base).await?);
    }
    println!(
        "| route | {} | ratio p50 |",
        targets
            .iter()
            .map(|t| format!("{} p50 / p99 (ms)", t.label))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("| --- |{} ---: |", " ---: |".repeat(targets.len()));
    for read in Read::ALL {
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); targets.len()];
        for n in 0..(WARM_UP + requests) as usize {
            for (t, target) in targets.iter().enumerate() {
                let url = url_of(target, read, n);
                let started = Instant::now();
                let response = http
                    .request(Method::GET, &url)
                    .send()
                    .await
                    .map_err(|e| format!("{url}: {e}"))?;
                let status = response.status();
                let body = response.bytes().await.map_err(|e| format!("{url}: {e}"))?;
                let took = started.elapsed().as_secs_f64() * 1000.0;
                if status != StatusCode::OK {
                    return Err(format!(
                        "{url}: {status}: {}",
                        String::from_utf8_lossy(&body[..body.len().min(300)])
                    ));
                }
                if read != Read::LevelFile {
                    let v: Value = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
                    let empty = match read {
                        Read::Track => v["id"].is_null(),
                        Read::Board => v["entries"].as_array().is_none_or(|e| e.is_empty()),
                        _ => v["tracks"].as_array().is_none_or(|e| e.is_empty()),
                    };
                    if empty {
                        return Err(format!("{url}: an empty answer: {v}"));
                    }
                }
                if n >= WARM_UP as usize {
                    times[t].push(took);
                }
            }
        }
        let mut cells = Vec::new();
        let mut p50s = Vec::new();
        for t in &mut times {
            t.sort_by(f64::total_cmp);
            let (p50, p99) = (super::reads::at(t, 0.5), super::reads::at(t, 0.99));
            p50s.push(p50);
            cells.push(format!("{p50:.2} / {p99:.2}"));
        }
        println!(
            "| {} | {} | {:.2} |",
            read.label(),
            cells.join(" | "),
            p50s.last().unwrap_or(&f64::NAN) / p50s.first().unwrap_or(&f64::NAN)
        );
    }
    Ok(())
}
