//! `pogo-loadgen seed`, `reads` and `concurrent`: big boards and the cost of reading them.
//!
//! `seed` writes verified runs straight into a pogo-server database, through the real schema
//! (the server's migrations, its triggers, its indexes) but without re-simulating anything:
//! a million verifications would take hours and measure the verifier, not the board. Each run
//! is what a verdict leaves behind — status `verified`, a finish tick, its splits — by one of
//! `--players` players named `seed-1`, `seed-2`, …; finish ticks are spread over 20 s to 10 min
//! (with ties) by a fixed formula, uploads one every 10 ms up to now, each verified 0.5 s
//! after it. The replay rows hold 64 placeholder bytes (reads never
//! open them; the retention figure in the README is measured with real replays).
//!
//! `reads` (`reads.rs`) times every public route on servers whose boards differ only in size;
//! `concurrent` (`concurrent.rs`) the page's board reads from many clients at once, with the
//! CPU the server used. `scripts/board-reads.sh` runs all three.
//!
//! ```text
//! pogo-loadgen seed --database postgres://pogo:pogo@127.0.0.1:5432/pogo --level course --runs 1000000
//! pogo-loadgen reads --board 1k=http://127.0.0.1:18101 --board 1M=http://127.0.0.1:18103
//! pogo-loadgen concurrent --server http://127.0.0.1:18103 --clients 16 --pid 4242 --postgres
//! ```

use std::time::Instant;

use clap::Subcommand;
use pogo_core::Tuning;
use pogo_core::world::World;

/// Most runs one `seed` writes.
const SEED_RUNS_MAX: u64 = 5_000_000;
/// Most timed requests per route and board.
const READS_MAX: u32 = 100_000;
/// Most boards `reads` compares.
const BOARDS_MAX: usize = 8;

#[derive(Debug, Subcommand)]
pub enum Mode {
    /// Write verified runs of one level straight into a server's database (see the module doc).
    Seed {
        /// `sqlite:PATH` or `postgres://…` (the server's `--database`).
        #[arg(long)]
        database: String,
        /// A built-in level; the board is its current one under the default tuning.
        #[arg(long)]
        level: String,
        /// Runs to write.
        #[arg(long)]
        runs: u64,
        /// Players they belong to, in turn (default: one run each).
        #[arg(long)]
        players: Option<u64>,
        /// Gather the planner's statistics (`ANALYZE`) once seeded. Off by default: the board
        /// is then read as one the server grew itself, with only the statistics the server
        /// gathers (`store::statistics`).
        #[arg(long)]
        analyze: bool,
    },
    /// Time every public route on servers whose boards differ in size (see `reads.rs`).
    Reads {
        /// `LABEL=URL`: a running server (loopback only) and the label of its column; repeat
        /// for each board size, smallest first (the ratio is the last's ÷ the first's).
        #[arg(long = "board", required = true)]
        boards: Vec<String>,
        /// The level whose board every server holds.
        #[arg(long, default_value = "course")]
        level: String,
        /// Timed requests per route and board (after 20 untimed).
        #[arg(long, default_value_t = 300)]
        requests: u32,
    },
    /// The page's board reads from many clients at once, with the CPU used (see
    /// `concurrent.rs`).
    Concurrent {
        /// The server's base URL (loopback only).
        #[arg(long)]
        server: String,
        #[arg(long, default_value = "course")]
        level: String,
        /// Clients sending requests at once, each its next as soon as one is answered.
        #[arg(long, default_value_t = 16)]
        clients: u32,
        /// Timed seconds (after one untimed).
        #[arg(long, default_value_t = 20)]
        seconds: u64,
        /// The reads each client sends in turn, by short name: `top`, `page`, `around`,
        /// `realtime`, `seasons`, `run` (default: all, the page's board reads).
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "top,page,around,realtime,seasons,run"
        )]
        reads: Vec<String>,
        /// A process whose CPU use to report (the server's); repeatable.
        #[arg(long = "pid")]
        pids: Vec<u32>,
        /// Report the CPU used by every process named `postgres` too.
        #[arg(long)]
        postgres: bool,
    },
}

pub fn run(mode: Mode) -> Result<(), String> {
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    match mode {
        Mode::Seed {
            database,
            level,
            runs,
            players,
            analyze,
        } => runtime.block_on(seed(
            &database,
            &level,
            runs,
            players.unwrap_or(runs),
            analyze,
        )),
        Mode::Reads {
            boards,
            level,
            requests,
        } => {
            if requests == 0 || requests > READS_MAX {
                return Err(format!("--requests must be within 1..={READS_MAX}"));
            }
            let labelled = labelled(&boards)?;
            runtime.block_on(super::reads::run(&labelled, &level, requests))
        }
        Mode::Concurrent {
            server,
            level,
            clients,
            seconds,
            reads,
            pids,
            postgres,
        } => {
            super::check_loopback(&server)?;
            let reads = reads
                .iter()
                .map(|short| {
                    super::reads::Route::page_read(short)
                        .ok_or_else(|| format!("--reads {short}: not one of the page's reads"))
                })
                .collect::<Result<Vec<_>, _>>()?;
            if !(1..=super::concurrent::CLIENTS_MAX).contains(&clients)
                || !(1..=super::concurrent::SECONDS_MAX).contains(&seconds)
            {
                return Err(format!(
                    "--clients within 1..={}, --seconds within 1..={}",
                    super::concurrent::CLIENTS_MAX,
                    super::concurrent::SECONDS_MAX
                ));
            }
            let server = server.trim_end_matches('/');
            runtime.block_on(super::concurrent::run(super::concurrent::Pass {
                base: server,
                level: &level,
                clients,
                seconds,
                reads,
                pids: &pids,
                postgres,
            }))
        }
    }
}

/// `--board LABEL=URL` arguments (at most [`BOARDS_MAX`], loopback only) as (label, base URL).
pub fn labelled(boards: &[String]) -> Result<Vec<(String, String)>, String> {
    if boards.len() > BOARDS_MAX {
        return Err(format!("at most {BOARDS_MAX} --board"));
    }
    let mut labelled = Vec::new();
    for board in boards {
        let (label, url) = board
            .split_once('=')
            .ok_or_else(|| format!("--board {board}: LABEL=URL"))?;
        super::check_loopback(url)?;
        labelled.push((label.to_string(), url.trim_end_matches('/').to_string()));
    }
    Ok(labelled)
}

/// The board key of a built-in level under the default tuning and this build's rules.
fn board_key(level: &str) -> Result<(String, String, i64), String> {
    let tuning = Tuning::default();
    let desc =
        pogo_replay::builtin_level(level).ok_or_else(|| format!("no built-in level {level}"))?;
    let world = World::new(desc, &tuning).map_err(|e| e.to_string())?;
    Ok((
        format!("{:016x}", world.content_hash()),
        format!("{:016x}", tuning.content_hash()),
        i64::from(pogo_core::RULES_VERSION),
    ))
}

async fn seed(
    database: &str,
    level: &str,
    runs: u64,
    players: u64,
    analyze: bool,
) -> Result<(), String> {
    if runs == 0 || runs > SEED_RUNS_MAX || players == 0 || players > runs {
        return Err(format!(
            "--runs within 1..={SEED_RUNS_MAX}, --players within 1..=runs"
        ));
    }
    let (level_hash, tuning_hash, rules) = board_key(level)?;
    let url = pogo_server::config::DatabaseUrl::parse(database);
    // Opening the store creates the schema (the server's migrations) if it is new.
    let store = pogo_server::store::Store::open(&url)
        .await
        .map_err(|e| e.to_string())?;
    store.close().await;
    let seed = Seed {
        level,
        level_hash,
        tuning_hash,
        rules,
        runs,
        players,
        analyze,
        now: pogo_server::times::now_ms(),
        started: Instant::now(),
    };
    match &url {
        pogo_server::config::DatabaseUrl::Postgres(url) => seed_postgres(url, &seed).await?,
        pogo_server::config::DatabaseUrl::Sqlite(path) => seed_sqlite(path, &seed).await?,
    }
    eprintln!(
        "seeded {runs} verified runs of {level} by {players} players in {:.1} s",
        seed.started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// What a seed writes: `runs` verified runs of `level` by `players` players.
struct Seed<'a> {
    level: &'a str,
    level_hash: String,
    tuning_hash: String,
    rules: i64,
    runs: u64,
    players: u64,
    /// Whether to `ANALYZE` once seeded.
    analyze: bool,
    /// The newest upload time (ms since the epoch); each earlier run 10 ms before the next.
    now: i64,
    started: Instant,
}

impl Seed<'_> {
    /// Says how far the seed has come.
    fn progress(&self, seeded: u64) {
        eprintln!(
            "seeded {seeded} of {} runs ({:.0} s)",
            self.runs,
            self.started.elapsed().as_secs_f64()
        );
    }
}

/// Runs per statement: the numbers are generated by the database itself.
const SEED_SLICE: u64 = 100_000;

/// Seeds on PostgreSQL: players first (those already there are kept), then replays and runs
/// in slices of [`SEED_SLICE`], each slice one statement. A run's player is looked up by a
/// subquery (one probe of `players`' unique name each), not a join. The connection plans
/// every statement afresh (`plan_cache_mode = force_custom_plan`): from its sixth run, a
/// PL/pgSQL function's statement may keep a generic plan, made without knowing the size of
/// the array it is given, and the board triggers' plans for a slice (100 000 changed runs,
/// where the server changes a handful) then did not end in 5 minutes; the first five slices
/// took 6 s each.
async fn seed_postgres(url: &str, seed: &Seed<'_>) -> Result<(), String> {
    let pool = sqlx::postgres::PgPoolOptions::new()
        .after_connect(|conn, _| {
            Box::pin(async move {
                sqlx::query("SET plan_cache_mode = force_custom_plan")
                    .execute(conn)
                    .await
                    .map(drop)
            })
        })
        .connect(url)
        .await
        .map_err(|e| e.to_string())?;
    sqlx::query(
        "INSERT INTO players (name, name_key, token_hash, created_ms)
         SELECT 'seed-' || i, 'seed-' || i, sha256(('seed-token-' || i)::bytea), $2
         FROM generate_series(1, $1) AS i
         ON CONFLICT DO NOTHING",
    )
    .bind(seed.players as i64)
    .bind(seed.now)
    .execute(&pool)
    .await
    .map_err(|e| e.to_string())?;
    let mut from = 0;
    while from < seed.runs {
        let to = (from + SEED_SLICE).min(seed.runs);
        let tag = format!("{}-{}-", seed.level, seed.now);
        sqlx::query(
            "INSERT INTO replays (hash, bytes, size)
             SELECT sha256(($3 || i)::bytea), decode(repeat('00', 64), 'hex'), 64
             FROM generate_series($1, $2) AS i",
        )
        .bind(from as i64 + 1)
        .bind(to as i64)
        .bind(&tag)
        .execute(&pool)
        .await
        .map_err(|e| e.to_string())?;
        sqlx::query(
            "INSERT INTO runs (player_id, replay_hash, level, level_hash, tuning_hash,
                 rules_version, uploaded_ms, status, ticks, finish_tick, splits,
                 verified_ms, final_hash)
             SELECT (SELECT p.id FROM players p WHERE p.name_key = 'seed-' || (1 + (i - 1) % $9)),
                    sha256(($3 || i)::bytea), $4, $5, $6, $7,
                    $8 - ($10 - i) * 10, 'verified',
                    f + 1, f, '[{\"checkpoint\":null,\"tick\":' || f || '}]',
                    $8 - ($10 - i) * 10 + 500, '0000000000000000'
             FROM (SELECT i, 1200 + (i * 7919) % 34800 AS f
                   FROM generate_series($1, $2) AS i) AS g
             ORDER BY i",
        )
        .bind(from as i64 + 1)
        .bind(to as i64)
        .bind(&tag)
        .bind(seed.level)
        .bind(&seed.level_hash)
        .bind(&seed.tuning_hash)
        .bind(seed.rules)
        .bind(seed.now)
        .bind(seed.players as i64)
        .bind(seed.runs as i64)
        .execute(&pool)
        .await
        .map_err(|e| e.to_string())?;
        from = to;
        seed.progress(to);
    }
    if seed.analyze {
        sqlx::query("ANALYZE")
            .execute(&pool)
            .await
            .map_err(|e| e.to_string())?;
    }
    pool.close().await;
    Ok(())
}

/// Seeds on SQLite, as [`seed_postgres`] does (a slice's hashes in a temporary table).
async fn seed_sqlite(path: &std::path::Path, seed: &Seed<'_>) -> Result<(), String> {
    let options = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(path)
        .journal_mode(sqlx::sqlite::SqliteJournalMode::Wal);
    let pool = sqlx::SqlitePool::connect_with(options)
        .await
        .map_err(|e| e.to_string())?;
    sqlx::query(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $1)
         INSERT OR IGNORE INTO players (name, name_key, token_hash, created_ms)
         SELECT 'seed-' || i, 'seed-' || i, randomblob(32), $2 FROM n",
    )
    .bind(seed.players as i64)
    .bind(seed.now)
    .execute(&pool)
    .await
    .map_err(|e| e.to_string())?;
    let mut from = 0;
    while from < seed.runs {
        let to = (from + SEED_SLICE).min(seed.runs);
        let mut tx = pool.begin().await.map_err(|e| e.to_string())?;
        sqlx::query(
            "CREATE TEMP TABLE IF NOT EXISTS seed_slice (i INTEGER PRIMARY KEY,
                 hash BLOB NOT NULL)",
        )
        .execute(&mut *tx)
        .await
        .map_err(|e| e.to_string())?;
        sqlx::query("DELETE FROM seed_slice")
            .execute(&mut *tx)
            .await
            .map_err(|e| e.to_string())?;
        sqlx::query(
            "WITH RECURSIVE n(i) AS (SELECT $1 UNION ALL SELECT i + 1 FROM n WHERE i < $2)
             INSERT INTO seed_slice (i, hash) SELECT i, randomblob(32) FROM n",
        )
        .bind(from as i64 + 1)
        .bind(to as i64)
        .execute(&mut *tx)
        .await
        .map_err(|e| e.to_string())?;
        sqlx::query(
            "INSERT INTO replays (hash, bytes, size)
             SELECT hash, zeroblob(64), 64 FROM seed_slice",
        )
        .execute(&mut *tx)
        .await
        .map_err(|e| e.to_string())?;
        sqlx::query(
            "INSERT INTO runs (player_id, replay_hash, level, level_hash, tuning_hash,
                 rules_version, uploaded_ms, status, ticks, finish_tick, splits,
                 verified_ms, final_hash)
             SELECT p.id, s.hash, $1, $2, $3, $4, $5 - ($7 - s.i) * 10, 'verified',
                    f + 1, f, '[{\"checkpoint\":null,\"tick\":' || f || '}]',
                    $5 - ($7 - s.i) * 10 + 500, '0000000000000000'
             FROM (SELECT i, hash, 1200 + (i * 7919) % 34800 AS f FROM seed_slice) AS s
             JOIN players p ON p.name_key = 'seed-' || (1 + (s.i - 1) % $6)
             ORDER BY s.i",
        )
        .bind(seed.level)
        .bind(&seed.level_hash)
        .bind(&seed.tuning_hash)
        .bind(seed.rules)
        .bind(seed.now)
        .bind(seed.players as i64)
        .bind(seed.runs as i64)
        .execute(&mut *tx)
        .await
        .map_err(|e| e.to_string())?;
        tx.commit().await.map_err(|e| e.to_string())?;
        from = to;
        seed.progress(to);
    }
    if seed.analyze {
        sqlx::query("ANALYZE")
            .execute(&pool)
            .await
            .map_err(|e| e.to_string())?;
    }
    pool.close().await;
    Ok(())
}
