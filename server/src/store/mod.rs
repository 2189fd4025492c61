//! Storage: one interface over SQLite (the embedded default) and PostgreSQL (for several
//! server processes on one database). The SQL is written once where the dialects agree —
//! which is everywhere but the schema's types (two migration folders, their differences named
//! at the top of each), the claim query (PostgreSQL adds `FOR UPDATE SKIP LOCKED`) and the
//! seasons list (SQLite is told which index to walk: `seasons::season_end_hint`) — and each
//! query sits next to the code that runs it.
//!
//! Durability: an upload is one transaction (replay bytes, run row) committed before the
//! server answers 202; SQLite runs in WAL mode with `synchronous = FULL`, so a commit
//! survives a crash of the process and of the machine. Nothing half-written is visible: a
//! run and its replay appear together or not at all, and a verdict is one `UPDATE`.

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use sqlx::Row;
use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::sqlite::SqliteSynchronous;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions};

use serde::Serialize;
use utoipa::ToSchema;

use crate::config::DatabaseUrl;

/// Connections per pool. SQLite serialises writers anyway (a few connections let reads run
/// beside a write in WAL mode); PostgreSQL's default `max_connections` is 100, and two or
/// three server processes with 16 each leave room for everything else.
const SQLITE_CONNECTIONS_MAX: u32 = 8;
const POSTGRES_CONNECTIONS_MAX: u32 = 16;
/// How long a query waits for a connection, or SQLite for a lock, before the request is
/// answered 503: long enough to ride out a burst, short enough that a client is not left
/// hanging.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(10);
/// A PostgreSQL connection idle in the pool longer than this is pinged before it is handed
/// out, so that one the server dropped meanwhile (a restart, an idle timeout) is replaced
/// rather than failing a request; one used lately is not. sqlx pings on every acquire by
/// default: a second round trip to every query, half of what a board read cost under 16
/// clients (PERFORMANCE.md). SQLite's connections are in the process: never pinged.
const PING_IF_IDLE_FOR: Duration = Duration::from_secs(30);

static SQLITE_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// A storage failure.
#[derive(Debug)]
pub enum StoreError {
    /// The database is unreachable, overloaded or locked: retry later (503).
    Database(sqlx::Error),
    /// The database answered something the schema does not allow, or a query is wrong: a bug.
    Corrupt(String),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Database(e) => write!(f, "database unavailable: {e}"),
            StoreError::Corrupt(e) => write!(f, "database error: {e}"),
        }
    }
}

impl std::error::Error for StoreError {}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> StoreError {
        match &e {
            sqlx::Error::Io(_)
            | sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::Tls(_)
            | sqlx::Error::Protocol(_)
            | sqlx::Error::WorkerCrashed => StoreError::Database(e),
            // SQLite's "database is locked" / "busy" (SQLITE_BUSY 5, SQLITE_LOCKED 6) and
            // PostgreSQL's connection and resource classes (08, 53, 57P): transient.
            sqlx::Error::Database(db) => {
                let code = db.code().unwrap_or_default();
                let transient = matches!(code.as_ref(), "5" | "6" | "517" | "262")
                    || code.starts_with("08")
                    || code.starts_with("53")
                    || code.starts_with("57P");
                if transient {
                    StoreError::Database(e)
                } else {
                    StoreError::Corrupt(e.to_string())
                }
            }
            _ => StoreError::Corrupt(e.to_string()),
        }
    }
}

type Result<T, E = StoreError> = std::result::Result<T, E>;

#[derive(Clone, Debug)]
enum Pool {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// Runs `$body` with `$pool` bound to whichever pool the store has: the same query text and
/// code, compiled for each driver.
macro_rules! on_pool {
    ($store:expr, |$pool:ident| $body:expr) => {
        match &$store.pool {
            $crate::store::Pool::Sqlite($pool) => $body,
            $crate::store::Pool::Postgres($pool) => $body,
        }
    };
}

/// Beginning a write transaction, per backend.
trait BeginWrite {
    type Db: sqlx::Database;
    /// `BEGIN IMMEDIATE` on SQLite (the write lock from the start), `BEGIN` on PostgreSQL.
    async fn begin_write(&self) -> Result<sqlx::Transaction<'static, Self::Db>, sqlx::Error>;
}

impl BeginWrite for SqlitePool {
    type Db = sqlx::Sqlite;
    async fn begin_write(&self) -> Result<sqlx::Transaction<'static, sqlx::Sqlite>, sqlx::Error> {
        self.begin_with("BEGIN IMMEDIATE").await
    }
}

impl BeginWrite for PgPool {
    type Db = sqlx::Postgres;
    async fn begin_write(&self) -> Result<sqlx::Transaction<'static, sqlx::Postgres>, sqlx::Error> {
        self.begin().await
    }
}

/// Binds a [`Board`] to `$1`…`$5` of a query on [`BOARD_CTE`] (`$5`: real-time runs only).
macro_rules! bind_board {
    ($query:expr, $board:expr) => {
        $query
            .bind($board.level.as_str())
            .bind($board.level_hash.as_str())
            .bind($board.tuning_hash.as_str())
            .bind(i64::from($board.rules_version))
            .bind($board.category == $crate::store::Category::RealTime)
    };
}

mod board;
mod board_sql;
mod claims;
mod ranks;
// Queries by concern, in files of their own (after the macros above, which they use).
pub mod reverify;
mod rooms;
pub mod seasons;
mod tickets;

pub use board::{BestRun, BoardChange, parse_splits};
pub use claims::ClaimRead;
pub use ranks::{BoardPage, BoardVersion, FEED_STALE, PageAt, Ranks};
pub use rooms::{RoomRow, RoomWrite};
pub use tickets::{Added, Minted, NewTicket, RunTicket, Ticket};

/// What the claim query returns.
#[derive(sqlx::FromRow)]
struct ClaimRow {
    id: i64,
    replay_hash: Vec<u8>,
    attempts: i64,
}

/// The database, behind the queries the server runs.
#[derive(Clone, Debug)]
pub struct Store {
    pool: Pool,
    /// The leaderboards' rank index, shared by the store's clones ([`ranks`]).
    ranks: std::sync::Arc<Ranks>,
}

/// A registered player.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Player {
    pub id: i64,
    pub name: String,
    pub hidden: bool,
}

/// What an upload stores beside its bytes: the replay header's claims, checked already.
#[derive(Clone, Debug)]
pub struct NewRun<'a> {
    pub player_id: i64,
    pub bytes: &'a [u8],
    /// SHA-256 of `bytes`.
    pub replay_hash: [u8; 32],
    pub level: &'a str,
    pub level_hash: String,
    pub tuning_hash: String,
    pub rules_version: u32,
    pub uploaded_ms: i64,
    /// The run ticket the upload names (checked already), consumed with the insert.
    pub ticket: Option<&'a str>,
}

/// The result of an upload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inserted {
    /// A new run, queued.
    New(i64),
    /// These exact bytes were uploaded before: that run.
    Duplicate(i64),
    /// The queue holds `queued` runs, at or over the limit: nothing was stored.
    QueueFull { queued: i64 },
    /// The ticket the upload names was consumed by another upload first: nothing was stored.
    TicketUsed,
}

/// A run claimed for verification.
#[derive(Clone, Debug)]
pub struct Claim {
    pub run_id: i64,
    pub replay_hash: Vec<u8>,
    /// The claim's number (1 for the first): the fencing token the verdict is written under.
    pub attempt: i64,
    pub owner: String,
}

/// A run's state: the `runs.status` column, whose `CHECK` in the schema lists these four
/// names (the SQL below writes them as literals: `'queued'`, `'verifying'`, `'verified'`).
///
/// queued → verifying (claimed by a worker) → verified or rejected; verifying → verifying
/// again when a claim's lease expires; verifying → queued when a worker hands back a run of
/// its batch it did not start. Shown as is in the API's `status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum RunState {
    /// Stored, waiting for a worker.
    Queued,
    /// A worker is re-simulating it.
    Verifying,
    /// Re-simulated: it is what it claims. Ranked if it finished.
    Verified,
    /// Re-simulated (or checked) and refused: `reason` says why.
    Rejected,
}

impl RunState {
    /// Every state, in the order a run goes through them.
    pub const ALL: [RunState; 4] = [
        RunState::Queued,
        RunState::Verifying,
        RunState::Verified,
        RunState::Rejected,
    ];

    /// The name stored in `runs.status` and shown in the API.
    pub const fn as_str(self) -> &'static str {
        match self {
            RunState::Queued => "queued",
            RunState::Verifying => "verifying",
            RunState::Verified => "verified",
            RunState::Rejected => "rejected",
        }
    }
}

impl std::fmt::Display for RunState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A `runs.status` that is none of [`RunState`]'s names (the schema's `CHECK` forbids it, so
/// reading one is a corrupt or foreign database).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownRunState(pub String);

impl std::fmt::Display for UnknownRunState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a run with status {:?}, not one of ", self.0)?;
        let names: Vec<_> = RunState::ALL.iter().map(|s| s.as_str()).collect();
        f.write_str(&names.join(", "))
    }
}

impl std::error::Error for UnknownRunState {}

impl TryFrom<String> for RunState {
    type Error = UnknownRunState;

    fn try_from(name: String) -> std::result::Result<RunState, UnknownRunState> {
        RunState::ALL
            .into_iter()
            .find(|s| s.as_str() == name)
            .ok_or(UnknownRunState(name))
    }
}

/// A verification's outcome, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Verified {
        ticks: u32,
        finish_tick: Option<u32>,
        /// JSON array of `{"checkpoint", "tick"}` (checkpoint `null` for the finish).
        splits: String,
        /// The re-simulation's final state hash (`Verified::final_hash`).
        final_hash: u64,
        /// Played in real time under a run ticket (`crate::realtime`).
        realtime: bool,
        /// Why a ticketed run is not real-time (`None` if it is, or had no ticket).
        realtime_note: Option<String>,
    },
    Rejected {
        kind: String,
        reason: String,
    },
}

/// A run as the API shows it.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct RunRow {
    pub id: i64,
    pub player_id: i64,
    pub player: String,
    pub level: String,
    pub level_hash: String,
    pub tuning_hash: String,
    pub rules_version: i64,
    #[sqlx(try_from = "String")]
    pub status: RunState,
    pub ticks: Option<i64>,
    pub finish_tick: Option<i64>,
    pub reason_kind: Option<String>,
    pub reason: Option<String>,
    pub splits: Option<String>,
    /// The verifier's final state hash, 16 lowercase hex digits (verified runs).
    pub final_hash: Option<String>,
    pub uploaded_ms: i64,
    pub verified_ms: Option<i64>,
    /// The run or its player is hidden.
    pub hidden: bool,
    /// The run itself is hidden (by `PUT /api/admin/runs/{id}/hidden`).
    pub run_hidden: bool,
    /// The player is hidden (and so all their runs).
    pub player_hidden: bool,
    /// Why an admin hid the run itself (`None` while it is shown).
    pub hidden_reason: Option<String>,
    /// Played in real time under a run ticket (`crate::realtime`).
    pub realtime: bool,
    /// Why a ticketed run is not real-time.
    pub realtime_note: Option<String>,
    /// The run this one is a re-verified copy of (`pogo-server reverify`).
    pub reverified_from: Option<i64>,
}

/// The columns of a [`RunRow`], for `FROM runs r JOIN players p` ([`RUN_FROM`]).
const RUN_COLUMNS: &str = "
    r.id, r.player_id, p.name AS player, r.level, r.level_hash, r.tuning_hash,
    r.rules_version, r.status, r.ticks, r.finish_tick, r.reason_kind, r.reason,
    r.splits, r.final_hash, r.uploaded_ms, r.verified_ms,
    (r.hidden OR p.hidden) AS hidden, r.hidden AS run_hidden,
    p.hidden AS player_hidden, r.hidden_reason, r.realtime, r.realtime_note,
    r.reverified_from";
/// Run `$1` and its player.
const RUN_FROM: &str = "FROM runs r JOIN players p ON p.id = r.player_id WHERE r.id = $1";
/// Where the board change feed ends, as a scalar subquery (`MAX(seq)`: one probe of its
/// primary key; 0 while empty).
const FEED_END: &str = "(SELECT COALESCE(MAX(seq), 0) FROM board_changes)";

/// Where the board change feed ended (its last `seq`) when a read looked: a read of the rank
/// index that knows it applies the feed that far first, without a query of its own
/// (`store::ranks`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeedSeq(pub i64);

/// Which leaderboard: a level's content under one tuning and rules version (a run verified
/// under other rules stays in the database but is not on this board), in one category.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    pub level: String,
    /// 16 hex digits, as stored.
    pub level_hash: String,
    pub tuning_hash: String,
    pub rules_version: u32,
    pub category: Category,
}

/// A board's category: which verified runs it ranks.
///
/// **Open** ranks every verified run — the CLI's, files made offline, tool-assisted runs and
/// real-time runs alike: anything the re-simulation accepts. **Real-time** ranks only runs
/// the server saw played in real time (`runs.realtime`: a run ticket whose every commitment
/// arrived on time and was reproduced by the replay). A run without a valid ticket is never
/// on the real-time board.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, serde::Deserialize, ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    #[default]
    Open,
    #[serde(rename = "realtime")]
    RealTime,
}

impl Category {
    /// The name in the API (`open`, `realtime`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Category::Open => "open",
            Category::RealTime => "realtime",
        }
    }
}

/// One leaderboard entry: a player's best run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub rank: i64,
    pub run_id: i64,
    pub player: String,
    pub finish_tick: i64,
    pub uploaded_ms: i64,
    /// `(checkpoint, tick)` at each split, the finish last (`None` checkpoint).
    pub splits: Vec<(Option<u32>, u32)>,
}

/// Where a leaderboard export stands: the last entry sent, as its rank and the board's order
/// key (finish tick, run id); [`ExportCursor::START`] before the first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExportCursor {
    pub rank: i64,
    pub finish_tick: i64,
    pub run_id: i64,
}

impl ExportCursor {
    /// Before every entry (ranks start at 1, finish ticks at 0, run ids at 1).
    pub const START: ExportCursor = ExportCursor {
        rank: 0,
        finish_tick: -1,
        run_id: 0,
    };

    /// Just after `entry`.
    pub fn after(entry: &Entry) -> ExportCursor {
        ExportCursor {
            rank: entry.rank,
            finish_tick: entry.finish_tick,
            run_id: entry.run_id,
        }
    }
}

impl Store {
    /// Connects (creating a SQLite file if missing) and brings the schema up to date.
    pub async fn open(url: &DatabaseUrl) -> Result<Store> {
        let pool = match url {
            DatabaseUrl::Sqlite(path) => Pool::Sqlite(open_sqlite(path).await?),
            DatabaseUrl::Postgres(url) => Pool::Postgres(
                PgPoolOptions::new()
                    .max_connections(POSTGRES_CONNECTIONS_MAX)
                    .acquire_timeout(ACQUIRE_TIMEOUT)
                    .test_before_acquire(false)
                    .before_acquire(|conn, meta| {
                        Box::pin(async move {
                            if meta.idle_for > PING_IF_IDLE_FOR {
                                sqlx::Connection::ping(conn).await?;
                            }
                            Ok(true)
                        })
                    })
                    .connect(url)
                    .await?,
            ),
        };
        let store = Store {
            pool,
            ranks: Default::default(),
        };
        store.migrate().await?;
        Ok(store)
    }

    /// `"sqlite"` or `"postgres"`.
    pub fn backend(&self) -> &'static str {
        match self.pool {
            Pool::Sqlite(_) => "sqlite",
            Pool::Postgres(_) => "postgres",
        }
    }

    async fn migrate(&self) -> Result<()> {
        let migrated = match &self.pool {
            Pool::Sqlite(pool) => SQLITE_MIGRATIONS.run(pool).await,
            Pool::Postgres(pool) => POSTGRES_MIGRATIONS.run(pool).await,
        };
        migrated.map_err(|e| match e {
            sqlx::migrate::MigrateError::Execute(e) => StoreError::from(e),
            other => StoreError::Corrupt(format!("migrations: {other}")),
        })
    }

    pub async fn close(&self) {
        on_pool!(self, |pool| pool.close().await)
    }

    /// Whether the database answers.
    pub async fn ping(&self) -> Result<()> {
        on_pool!(self, |pool| {
            sqlx::query("SELECT 1").execute(pool).await?;
        });
        Ok(())
    }

    /// Registers a player; `None` if the name (ignoring case) is taken.
    pub async fn register(
        &self,
        name: &str,
        token_hash: &[u8; 32],
        now_ms: i64,
    ) -> Result<Option<Player>> {
        const SQL: &str = "INSERT INTO players (name, name_key, token_hash, created_ms)
                           VALUES ($1, $2, $3, $4) RETURNING id";
        let inserted = on_pool!(self, |pool| {
            sqlx::query(SQL)
                .bind(name)
                .bind(name_key(name))
                .bind(&token_hash[..])
                .bind(now_ms)
                .fetch_one(pool)
                .await
                .map(|row| row.get::<i64, _>(0))
        });
        match inserted {
            Ok(id) => Ok(Some(Player {
                id,
                name: name.to_string(),
                hidden: false,
            })),
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// The player a token (by its hash) belongs to.
    pub async fn player_by_token(&self, token_hash: &[u8; 32]) -> Result<Option<Player>> {
        const SQL: &str = "SELECT id, name, hidden FROM players WHERE token_hash = $1";
        let row = on_pool!(self, |pool| {
            sqlx::query_as(SQL)
                .bind(&token_hash[..])
                .fetch_optional(pool)
                .await?
        });
        Ok(row)
    }

    /// The player of a name (ignoring case).
    pub async fn player_by_name(&self, name: &str) -> Result<Option<Player>> {
        Ok(self.player_by_name_and_feed(name).await?.0)
    }

    /// The player of a name (ignoring case), and where the board change feed ended when it
    /// was read (one statement: see [`Store::run_and_feed`]).
    pub async fn player_by_name_and_feed(&self, name: &str) -> Result<(Option<Player>, FeedSeq)> {
        let sql = format!(
            "SELECT p.id, p.name, p.hidden, f.seq FROM (SELECT {FEED_END} AS seq) f
             LEFT JOIN players p ON p.name_key = $1"
        );
        let (player, seq) = on_pool!(self, |pool| {
            let row = sqlx::query(&sql)
                .bind(name_key(name))
                .fetch_one(pool)
                .await?;
            let player = match row.try_get::<Option<i64>, _>(0)? {
                Some(id) => Some(Player {
                    id,
                    name: row.try_get(1)?,
                    hidden: row.try_get(2)?,
                }),
                None => None,
            };
            (player, row.try_get::<i64, _>(3)?)
        });
        Ok((player, FeedSeq(seq)))
    }

    /// Stores an upload: its bytes (once per content) and a queued run, in one transaction
    /// committed before this returns — unless the same bytes were uploaded before (that run
    /// is returned) or `queue_max` runs are waiting already (nothing is stored).
    pub async fn insert_run(&self, run: &NewRun<'_>, queue_max: u64) -> Result<Inserted> {
        const EXISTING: &str = "SELECT id FROM runs WHERE replay_hash = $1";
        const QUEUED: &str = "SELECT COUNT(*) FROM runs WHERE status = 'queued'";
        const REPLAY: &str = "INSERT INTO replays (hash, bytes, size) VALUES ($1, $2, $3)
                              ON CONFLICT (hash) DO NOTHING";
        const RUN: &str = "INSERT INTO runs (player_id, replay_hash, level, level_hash,
                               tuning_hash, rules_version, uploaded_ms)
                           VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id";
        let hash = &run.replay_hash[..];
        let queue_max = i64::try_from(queue_max).unwrap_or(i64::MAX);
        on_pool!(self, |pool| {
            // SQLite: `BEGIN IMMEDIATE` takes the write lock at once, so this read-then-write
            // transaction never has to upgrade a read lock (which fails at once, busy timeout
            // or not, when another writer got in between). PostgreSQL: READ COMMITTED; the
            // unique index on replay_hash settles two identical uploads racing.
            let mut tx = pool.begin_write().await?;
            if let Some(row) = sqlx::query(EXISTING)
                .bind(hash)
                .fetch_optional(&mut *tx)
                .await?
            {
                return Ok(Inserted::Duplicate(row.try_get(0)?));
            }
            let queued: i64 = sqlx::query(QUEUED).fetch_one(&mut *tx).await?.try_get(0)?;
            if queued >= queue_max {
                return Ok(Inserted::QueueFull { queued });
            }
            sqlx::query(REPLAY)
                .bind(hash)
                .bind(run.bytes)
                .bind(run.bytes.len() as i64)
                .execute(&mut *tx)
                .await?;
            let inserted = sqlx::query(RUN)
                .bind(run.player_id)
                .bind(hash)
                .bind(run.level)
                .bind(&run.level_hash)
                .bind(&run.tuning_hash)
                .bind(i64::from(run.rules_version))
                .bind(run.uploaded_ms)
                .fetch_one(&mut *tx)
                .await;
            match inserted {
                Ok(row) => {
                    let id: i64 = row.try_get(0)?;
                    if let Some(ticket) = run.ticket {
                        let consumed = sqlx::query(tickets::CONSUME)
                            .bind(id)
                            .bind(ticket)
                            .execute(&mut *tx)
                            .await?;
                        if consumed.rows_affected() != 1 {
                            return Ok(Inserted::TicketUsed);
                        }
                    }
                    tx.commit().await?;
                    Ok(Inserted::New(id))
                }
                Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                    // The same bytes, committed by a concurrent upload since our check.
                    drop(tx);
                    let row = sqlx::query(EXISTING).bind(hash).fetch_one(pool).await?;
                    Ok(Inserted::Duplicate(row.try_get(0)?))
                }
                Err(e) => Err(e.into()),
            }
        })
    }

    /// Claims the oldest run waiting for verification: [`Store::claim_batch`] of one.
    pub async fn claim(&self, owner: &str, now_ms: i64, lease_ms: i64) -> Result<Option<Claim>> {
        Ok(self
            .claim_batch(owner, now_ms, lease_ms, 1)
            .await?
            .into_iter()
            .next())
    }

    /// The bytes of a stored replay.
    pub async fn replay_bytes(&self, hash: &[u8]) -> Result<Option<Vec<u8>>> {
        const SQL: &str = "SELECT bytes FROM replays WHERE hash = $1";
        let bytes = on_pool!(self, |pool| {
            sqlx::query(SQL)
                .bind(hash)
                .fetch_optional(pool)
                .await?
                .map(|row| row.try_get::<Vec<u8>, _>(0))
                .transpose()?
        });
        Ok(bytes)
    }

    /// The replay bytes of a run.
    pub async fn run_bytes(&self, run_id: i64) -> Result<Option<Vec<u8>>> {
        const SQL: &str = "SELECT b.bytes FROM runs r JOIN replays b ON b.hash = r.replay_hash
                           WHERE r.id = $1";
        let bytes = on_pool!(self, |pool| {
            sqlx::query(SQL)
                .bind(run_id)
                .fetch_optional(pool)
                .await?
                .map(|row| row.try_get::<Vec<u8>, _>(0))
                .transpose()?
        });
        Ok(bytes)
    }

    /// Writes a verdict, once: only while `claim` is still the run's latest claim and the run
    /// is still being verified. `false` if the claim was lost (the lease expired and another
    /// worker took the run over; its verdict stands). [`Store::write_verdicts`] of one.
    pub async fn write_verdict(
        &self,
        claim: &Claim,
        verdict: &Verdict,
        now_ms: i64,
    ) -> Result<bool> {
        let written = self
            .write_verdicts(&[(claim, verdict)], &[], now_ms)
            .await?;
        Ok(written == [true])
    }

    /// A run, with its player's name.
    pub async fn run(&self, id: i64) -> Result<Option<RunRow>> {
        let sql = format!("SELECT {RUN_COLUMNS} {RUN_FROM}");
        let row = on_pool!(self, |pool| {
            sqlx::query_as(&sql).bind(id).fetch_optional(pool).await?
        });
        Ok(row)
    }

    /// A run, and where the board change feed ended when it was read ([`FeedSeq`]): one
    /// statement, so that a run's status reads its row and its ranks' freshness in one round
    /// trip.
    pub async fn run_and_feed(&self, id: i64) -> Result<Option<(RunRow, FeedSeq)>> {
        #[derive(sqlx::FromRow)]
        struct Read {
            #[sqlx(flatten)]
            run: RunRow,
            feed_seq: i64,
        }
        let sql = format!("SELECT {RUN_COLUMNS}, {FEED_END} AS feed_seq {RUN_FROM}");
        let row: Option<Read> = on_pool!(self, |pool| {
            sqlx::query_as(&sql).bind(id).fetch_optional(pool).await?
        });
        Ok(row.map(|read| (read.run, FeedSeq(read.feed_seq))))
    }

    /// Hides a run with the admin's reason (`Some`), or shows it again and forgets the reason
    /// (`None`); `false` if there is no such run.
    pub async fn set_run_hidden(&self, run_id: i64, reason: Option<&str>) -> Result<bool> {
        const SQL: &str = "UPDATE runs SET hidden = $1, hidden_reason = $2 WHERE id = $3";
        let rows = on_pool!(self, |pool| {
            sqlx::query(SQL)
                .bind(reason.is_some())
                .bind(reason)
                .bind(run_id)
                .execute(pool)
                .await?
                .rows_affected()
        });
        Ok(rows == 1)
    }

    /// Hides or shows a player (by name, ignoring case) and so all their runs; the player's
    /// registered name, or `None` if there is no such player.
    pub async fn set_player_hidden(&self, name: &str, hidden: bool) -> Result<Option<String>> {
        const SQL: &str = "UPDATE players SET hidden = $1 WHERE name_key = $2 RETURNING name";
        let name = on_pool!(self, |pool| {
            sqlx::query(SQL)
                .bind(hidden)
                .bind(name_key(name))
                .fetch_optional(pool)
                .await?
                .map(|row| row.try_get::<String, _>(0))
                .transpose()?
        });
        Ok(name)
    }

    /// Runs per state (the states no run is in are absent): a pass over every run.
    pub async fn status_counts(&self) -> Result<Vec<(RunState, i64)>> {
        const SQL: &str = "SELECT status, COUNT(*) FROM runs GROUP BY status ORDER BY status";
        self.counts_by_status(SQL).await
    }

    /// The runs waiting for a verdict (`queued`, `verifying`) per state, through the claim's
    /// partial index `runs_waiting`: as cheap as the queue is short, whatever the board.
    pub async fn waiting_counts(&self) -> Result<Vec<(RunState, i64)>> {
        const SQL: &str = "SELECT status, COUNT(*) FROM runs
                           WHERE status IN ('queued', 'verifying') GROUP BY status";
        self.counts_by_status(SQL).await
    }

    async fn counts_by_status(&self, sql: &str) -> Result<Vec<(RunState, i64)>> {
        let counts = on_pool!(self, |pool| {
            sqlx::query(sql)
                .fetch_all(pool)
                .await?
                .iter()
                .map(|row| {
                    let status = RunState::try_from(row.try_get::<String, _>(0)?)
                        .map_err(|e| sqlx::Error::Decode(Box::new(e)))?;
                    Ok::<_, sqlx::Error>((status, row.try_get(1)?))
                })
                .collect::<Result<Vec<_>, _>>()?
        });
        Ok(counts)
    }
}

async fn open_sqlite(path: &Path) -> Result<SqlitePool> {
    let options = SqliteConnectOptions::from_str("sqlite:")
        .map_err(StoreError::from)?
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        // FULL: a commit is on disk before it returns, so a 202 survives a power cut too,
        // not only a crash of the process (which WAL with NORMAL would already survive).
        .synchronous(SqliteSynchronous::Full)
        .foreign_keys(true)
        // Reads through a memory map of the file (up to 1 GiB of it) instead of a copy into
        // each connection's 2 MB page cache: a page at a random offset of a big board reads
        // rows scattered over the file, and every connection shares the OS's cached pages.
        .pragma("mmap_size", "1073741824")
        .busy_timeout(ACQUIRE_TIMEOUT);
    Ok(SqlitePoolOptions::new()
        .max_connections(SQLITE_CONNECTIONS_MAX)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .test_before_acquire(false)
        .connect_with(options)
        .await?)
}

/// The key names are unique on: the name in lower case (Unicode's default case mapping,
/// the same on every machine), so `Bot` and `bot` are the same name.
pub fn name_key(name: &str) -> String {
    name.to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The enum and the schema agree: both migrations' `CHECK` lists exactly
    /// [`RunState::ALL`]'s names, and each name reads back as its state.
    #[test]
    fn run_states_are_the_schemas_statuses() {
        let names: Vec<String> = RunState::ALL
            .iter()
            .map(|s| format!("'{}'", s.as_str()))
            .collect();
        let check = format!("CHECK (status IN ({}))", names.join(", "));
        for schema in [
            include_str!("../../migrations/sqlite/0001_schema.sql"),
            include_str!("../../migrations/postgres/0001_schema.sql"),
        ] {
            assert!(schema.contains(&check), "the schema lacks {check}");
        }
        for state in RunState::ALL {
            assert_eq!(RunState::try_from(state.to_string()), Ok(state));
        }
        assert_eq!(
            RunState::try_from("done".to_string())
                .unwrap_err()
                .to_string(),
            "a run with status \"done\", not one of queued, verifying, verified, rejected"
        );
    }
}
