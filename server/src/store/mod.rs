//! Storage: one interface over SQLite (the embedded default) and PostgreSQL (for several
//! server processes on one database). The SQL is written once where the dialects agree —
//! which is everywhere but the schema's types (two migration folders, their differences named
//! at the top of each), the claim query (PostgreSQL adds `FOR UPDATE SKIP LOCKED`) and the
//! statements SQLite is told which index to walk (`Store::sqlite_index`) — and each query
//! sits next to the code that runs it. The planner's statistics are the server's to keep:
//! `statistics.rs`.
//!
//! The queries are grouped by concern, each behind a handle that borrows the store:
//! [`Store::queue`] (uploads, claims, verdicts), [`Store::runs`] (a run by id),
//! [`Store::boards`] (leaderboards, ranks and the rank index, exports), [`Store::players`],
//! [`Store::tickets`], [`Store::seasons`] (and re-verification), [`Store::room_rows`] (the
//! live rooms' rows; the rooms themselves are `live::Rooms`), [`Store::tracks`]; a caller
//! names the concern it uses (`state.store.boards().leaderboard(…)`). The `Store` itself
//! only opens, pings and closes the database, and reads it through for `pogo-server check`
//! (`check.rs`). A run enters one way, whichever handle files it (an upload, a live room,
//! reverify): `filing.rs`. Each row type sits with the queries that hand it out (`RunRow` in
//! `runs.rs`, `Board` and `Entry` in `board.rs`, …), re-exported here; the reference queries
//! the tests hold the fast reads to are [`reference`](mod@reference)'s.
//!
//! Durability: an upload is one transaction (replay bytes, run row) committed before the
//! server answers 202; SQLite runs in WAL mode with `synchronous = FULL`, so a commit
//! survives a crash of the process and of the machine. Nothing half-written is visible: a
//! run and its replay appear together or not at all, and a verdict is one `UPDATE`.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::SqliteSynchronous;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions};

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

/// What a database URL names (`--database`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DatabaseUrl {
    /// A SQLite file (created if missing).
    Sqlite(PathBuf),
    /// A PostgreSQL connection URL.
    Postgres(String),
}

impl DatabaseUrl {
    pub fn parse(text: &str) -> DatabaseUrl {
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            return DatabaseUrl::Postgres(text.to_string());
        }
        let path = text
            .strip_prefix("sqlite://")
            .or_else(|| text.strip_prefix("sqlite:"))
            .unwrap_or(text);
        DatabaseUrl::Sqlite(PathBuf::from(path))
    }
}

/// A storage failure.
#[derive(Debug)]
pub enum StoreError {
    /// The database is unreachable, overloaded or locked: retry later (503).
    Database(sqlx::Error),
    /// The database's disk is full (SQLite's `SQLITE_FULL`, PostgreSQL's `disk_full`,
    /// SQLSTATE 53100): nothing of the failed write was kept; retry once space is freed (503).
    Full(sqlx::Error),
    /// The database answered something the schema does not allow, or a query is wrong: a bug.
    Corrupt(String),
    /// Run `run_id`'s stored replay does not hash to its key: a bit flipped on disk.
    CorruptReplay { run_id: i64 },
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Database(e) => write!(f, "database unavailable: {e}"),
            StoreError::Full(e) => write!(f, "database disk full: {e}"),
            StoreError::Corrupt(e) => write!(f, "database error: {e}"),
            StoreError::CorruptReplay { run_id } => write!(
                f,
                "the stored replay of run {run_id} is corrupt (its bytes do not match their hash)"
            ),
        }
    }
}

impl std::error::Error for StoreError {}

/// Where a PostgreSQL URL points, `host:port` (never its user or password), for messages.
pub fn postgres_address(url: &str) -> String {
    match PgConnectOptions::from_str(url) {
        Ok(options) => format!("{}:{}", options.get_host(), options.get_port()),
        Err(_) => "(a URL that does not parse)".to_string(),
    }
}

/// Why the pool could not open its first connection. A refused connection is retried until
/// the acquire timeout and then reported as `PoolTimedOut`, which says nothing of the cause:
/// then one direct attempt (bounded by the same timeout) tells it — refused, unknown host,
/// authentication. Only at the start, and only when it failed.
async fn why_not_connected(url: &str, e: sqlx::Error) -> sqlx::Error {
    if !matches!(e, sqlx::Error::PoolTimedOut) {
        return e;
    }
    let attempt = <sqlx::PgConnection as sqlx::Connection>::connect(url);
    match tokio::time::timeout(ACQUIRE_TIMEOUT, attempt).await {
        Ok(Err(cause)) => cause,
        Ok(Ok(connection)) => {
            let _ = sqlx::Connection::close(connection).await;
            e
        }
        Err(_) => e,
    }
}

/// SQLite's primary result codes that say the file or its disk failed, not the query
/// (`sqlite3.h`; an extended code's low byte is its primary code): `SQLITE_BUSY` 5,
/// `SQLITE_LOCKED` 6, `SQLITE_IOERR` 10, `SQLITE_FULL` 13, `SQLITE_CANTOPEN` 14,
/// `SQLITE_PROTOCOL` 15 (a WAL lock race).
const SQLITE_FULL: i64 = 13;
const SQLITE_TRANSIENT: [i64; 5] = [5, 6, 10, 14, 15];
/// PostgreSQL's `disk_full` (class 53, insufficient resources).
const POSTGRES_DISK_FULL: &str = "53100";

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> StoreError {
        match &e {
            sqlx::Error::Io(_)
            | sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::Tls(_)
            | sqlx::Error::Protocol(_)
            | sqlx::Error::WorkerCrashed => StoreError::Database(e),
            sqlx::Error::Database(db) => {
                let code = db.code().unwrap_or_default();
                if db.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some() {
                    // sqlx reports SQLite's extended code; its low byte is the primary one.
                    let primary = code.parse::<i64>().unwrap_or(-1) & 0xff;
                    if primary == SQLITE_FULL {
                        StoreError::Full(e)
                    } else if SQLITE_TRANSIENT.contains(&primary) {
                        StoreError::Database(e)
                    } else {
                        StoreError::Corrupt(e.to_string())
                    }
                } else if code == POSTGRES_DISK_FULL {
                    StoreError::Full(e)
                } else if code.starts_with("08")
                    || code.starts_with("53")
                    || code.starts_with("57P")
                {
                    // PostgreSQL's connection and resource classes, and an administrator's
                    // shutdown: transient.
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
    // The live journal's pool ([`Store::journal`]).
    (journal $store:expr, |$pool:ident| $body:expr) => {
        match &$store.journal {
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

/// A player's name as every query serves it, for `players p`: the name where its two copies
/// agree (migration 0016), else `(corrupt name: player ID)` — a text the name rule refuses
/// (no parentheses, no colon), so it can never be another player's name. A bit flipped at
/// rest in either copy shows as that text, never as another name; `pogo-server check` lists
/// the player. A literal, for `concat!` in the queries that are constants.
macro_rules! player_name {
    () => {
        "(CASE WHEN p.name = p.name_check THEN p.name \
          ELSE '(corrupt name: player ' || p.id || ')' END)"
    };
}

/// Binds a [`Board`] to `$1`…`$5` of a query on [`BOARD_CTE`] (`$5`: real-time runs only).
macro_rules! bind_board {
    ($query:expr, $board:expr) => {
        $query
            .bind($board.level.as_str())
            .bind($board.level_hash.as_str())
            .bind($board.tuning_hash.as_str())
            .bind(i64::from($board.rules_version))
            .bind($board.real_time_only())
    };
}

/// `count` groups of `width` anonymous parameters for SQLite, each in parentheses: `(?), (?)`
/// (width 1) or `(?, ?), (?, ?)` (width 2), bound in the order they appear.
///
/// For statements with hundreds of parameters: sqlx asks SQLite for every parameter's name
/// as it binds it, and SQLite finds a named one (`$7`) by a walk along the list of names, so
/// binding `n` named parameters takes time in `n²` (0.6 % of pogo-server's CPU, the live
/// journal's commits, in one profile); an anonymous `?` has no name to look for.
fn anonymous(count: usize, width: usize) -> String {
    let group = format!("({})", vec!["?"; width].join(", "));
    // The group borrowed `count` times, not copied: a journal commit writes a hundred rooms'
    // rows ten times a second.
    vec![group.as_str(); count].join(", ")
}

/// The parameters of a multi-row `VALUES` from the statement's first: `count` rows of `width`
/// (at least 2), numbered on PostgreSQL (`($1, $2), ($3, $4)`), [`anonymous`] on SQLite
/// (`(?, ?), (?, ?)`); either way bound row by row, in order.
fn value_rows(postgres: bool, count: usize, width: usize) -> String {
    debug_assert!(
        width >= 2,
        "numbered() puts no parentheses around one parameter"
    );
    if postgres {
        numbered(1, count, width)
    } else {
        anonymous(count, width)
    }
}

/// A list of `count` single parameters from the statement's `first` (`IN (…)`'s): numbered
/// on PostgreSQL (`$2, $3`), anonymous on SQLite (`?, ?`); bound in order either way.
fn in_list(postgres: bool, first: usize, count: usize) -> String {
    if postgres {
        numbered(first, count, 1)
    } else {
        vec!["?"; count].join(", ")
    }
}

/// `count` groups of `width` numbered parameters from `$first`: `$2, $3` (width 1) or
/// `($1, $2), ($3, $4)` (width 2).
fn numbered(first: usize, count: usize, width: usize) -> String {
    use std::fmt::Write;
    // Written into one string, not a string a parameter.
    let mut sql = String::with_capacity(count * width * 7);
    for g in 0..count {
        if g > 0 {
            sql.push_str(", ");
        }
        if width > 1 {
            sql.push('(');
        }
        for i in 0..width {
            if i > 0 {
                sql.push_str(", ");
            }
            let _ = write!(sql, "${}", first + g * width + i);
        }
        if width > 1 {
            sql.push(')');
        }
    }
    sql
}

// Queries by concern, in files of their own (after the macros above, which they use), each
// behind a handle: `store.queue()`, `store.boards()`, … (see `impl Store`).
mod board;
mod board_sql;
pub mod check;
mod filing;
mod players;
mod queue;
mod ranks;
pub mod reference;
pub mod reverify;
mod rooms;
mod runs;
pub mod seasons;
pub mod statistics;
mod tickets;
pub mod tracks;

pub use board::Boards;
pub use board::{
    Board, BoardPage, BoardVersion, Category, Entry, ExportCursor, FeedSeq, PageAt, hash_hex,
    parse_splits,
};
pub use filing::{Inserted, NewRun, Verdict};
pub use players::Players;
pub use players::{PlayerRow, name_key};
pub use queue::{Claim, ClaimRead, Queue};
pub use ranks::{FEED_STALE, Ranks};
pub use rooms::RoomRows;
pub use rooms::{LiveFiling, RoomRow, RoomWrite};
pub use runs::Runs;
pub use runs::{RunRow, RunState, UnknownRunState};
pub use seasons::Seasons;
pub use tickets::Tickets;
pub use tickets::{Added, Minted, NewTicket, RunTicket, Ticket};
pub use tracks::Tracks;

/// The database, behind the queries the server runs.
#[derive(Clone, Debug)]
pub struct Store {
    pool: Pool,
    /// Where the live rooms' journal is appended (`rooms.rs`, ten commits a second under
    /// live races): on SQLite a pool of its own with one connection, so that every commit
    /// finds its connection's page cache as the last commit left it and runs on the same
    /// thread. Taken from the shared pool, whose idle connections are handed out in turn,
    /// each commit ran on another of its eight connections, which first read back from the
    /// write-ahead log every page the other connections had changed (PERFORMANCE.md, "The
    /// relay and its floor"). On PostgreSQL, the shared pool.
    journal: Pool,
    /// The leaderboards' rank index, shared by the store's clones ([`ranks`]).
    ranks: std::sync::Arc<Ranks>,
}

impl Store {
    /// Connects (creating a SQLite file if missing) and brings the schema up to date.
    pub async fn open(url: &DatabaseUrl) -> Result<Store> {
        let pool = match url {
            DatabaseUrl::Sqlite(path) => {
                Pool::Sqlite(open_sqlite(path, SQLITE_CONNECTIONS_MAX).await?)
            }
            DatabaseUrl::Postgres(url) => Pool::Postgres(
                match PgPoolOptions::new()
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
                    .await
                {
                    Ok(pool) => pool,
                    Err(e) => return Err(why_not_connected(url, e).await.into()),
                },
            ),
        };
        let mut store = Store {
            journal: pool.clone(),
            pool,
            ranks: Default::default(),
        };
        store.migrate().await?;
        if let DatabaseUrl::Sqlite(path) = url {
            store.journal = Pool::Sqlite(open_sqlite(path, 1).await?);
        }
        Ok(store)
    }

    /// `INDEXED BY index` on SQLite, nothing on PostgreSQL: for a statement with one good
    /// plan, which walks `index`, and that SQLite's planner has been seen to miss (without
    /// statistics, or with misleading ones: `statistics.rs`). SQLite then refuses the
    /// statement if the index cannot serve it, rather than planning around it.
    pub(super) fn sqlite_index(&self, index: &str) -> String {
        match self.pool {
            Pool::Sqlite(_) => format!("INDEXED BY {index}"),
            Pool::Postgres(_) => String::new(),
        }
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

    /// The verification queue: uploads in, claims, verdicts out (`queue.rs`).
    pub fn queue(&self) -> Queue<'_> {
        Queue { store: self }
    }

    /// Runs by id: status rows, replay bytes, hiding (`runs.rs`).
    pub fn runs(&self) -> Runs<'_> {
        Runs { store: self }
    }

    /// Leaderboards, ranks and the rank index, the change feed, exports (`board.rs`,
    /// `board_sql.rs`, `ranks.rs`).
    pub fn boards(&self) -> Boards<'_> {
        Boards { store: self }
    }

    /// Players: registration, lookups, hiding (`players.rs`).
    pub fn players(&self) -> Players<'_> {
        Players { store: self }
    }

    /// Run tickets and their commitments (`tickets.rs`).
    pub fn tickets(&self) -> Tickets<'_> {
        Tickets { store: self }
    }

    /// Seasons, and re-verification onto the current one (`seasons.rs`, `reverify.rs`).
    pub fn seasons(&self) -> Seasons<'_> {
        Seasons { store: self }
    }

    /// The live rooms' rows, and filing a live run (`rooms.rs`).
    pub fn room_rows(&self) -> RoomRows<'_> {
        RoomRows { store: self }
    }

    /// Player-made tracks, and publishing one with its author's run (`tracks.rs`).
    pub fn tracks(&self) -> Tracks<'_> {
        Tracks { store: self }
    }

    pub async fn close(&self) {
        on_pool!(self, |pool| pool.close().await);
        on_pool!(journal self, |pool| pool.close().await);
    }

    /// Whether the database answers within `within`: a connection (the pool's, or a new one)
    /// and `SELECT 1`. Nothing is remembered: each call asks the database. Past `within`
    /// (the pool retrying a refused connection until its own, longer, acquire timeout) it is
    /// [`StoreError::Database`] with `PoolTimedOut`.
    pub async fn ping(&self, within: Duration) -> Result<()> {
        let ping = async {
            on_pool!(self, |pool| {
                sqlx::query("SELECT 1").execute(pool).await?;
            });
            Ok(())
        };
        match tokio::time::timeout(within, ping).await {
            Ok(pinged) => pinged,
            Err(_) => Err(StoreError::Database(sqlx::Error::PoolTimedOut)),
        }
    }
}

/// A pool of at most `connections` connections to the SQLite file at `path`.
async fn open_sqlite(path: &Path, connections: u32) -> Result<SqlitePool> {
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
        .max_connections(connections)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .test_before_acquire(false)
        .after_release(|conn, _| Box::pin(sqlite_reusable(conn)))
        .connect_with(options)
        .await?)
}

/// Whether a SQLite connection handed back to the pool may be handed out again: not if it is
/// still inside a transaction once its queued work has run.
///
/// SQLite rolls a transaction back by itself when a write fails with `SQLITE_FULL` or
/// `SQLITE_IOERR` (a full disk). sqlx does not know: the `ROLLBACK` it sends when the failed
/// `Transaction` is dropped fails ("no transaction is active"), and it keeps counting the
/// connection as one transaction deep, so its every later `BEGIN IMMEDIATE` fails
/// (`InvalidSavePointStatement`) — the pool kept such connections, and uploads failed until
/// a restart, long after the disk had room again. The ping runs after the queued rollback
/// (one worker thread per connection, in order); a connection still "in a transaction" then
/// is closed, and the pool opens a fresh one when it needs it.
async fn sqlite_reusable(conn: &mut sqlx::SqliteConnection) -> Result<bool, sqlx::Error> {
    use sqlx::Connection;
    conn.ping().await?;
    if conn.is_in_transaction() {
        tracing::warn!("a SQLite connection left in a failed transaction is closed");
        return Ok(false);
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_lists_are_as_documented() {
        assert_eq!(numbered(2, 2, 1), "$2, $3");
        assert_eq!(numbered(1, 2, 2), "($1, $2), ($3, $4)");
        assert_eq!(anonymous(2, 1), "(?), (?)");
        assert_eq!(anonymous(2, 2), "(?, ?), (?, ?)");
        assert_eq!(anonymous(1, 3), "(?, ?, ?)");
        assert_eq!(value_rows(true, 2, 2), "($1, $2), ($3, $4)");
        assert_eq!(value_rows(false, 2, 2), "(?, ?), (?, ?)");
        assert_eq!(in_list(true, 2, 3), "$2, $3, $4");
        assert_eq!(in_list(false, 2, 3), "?, ?, ?");
    }

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
