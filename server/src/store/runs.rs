//! A run by its id: its row (status, verdict, player), its replay's bytes, hiding it.

use sha2::{Digest, Sha256};
use sqlx::Row;

use serde::Serialize;
use utoipa::ToSchema;

use super::board::FEED_END;
use super::{FeedSeq, Result, Store, StoreError};

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
const RUN_COLUMNS: &str = concat!(
    "
    r.id, r.player_id, ",
    player_name!(),
    " AS player, r.level, r.level_hash, r.tuning_hash,
    r.rules_version, r.status, r.ticks, r.finish_tick, r.reason_kind, r.reason,
    r.splits, r.final_hash, r.uploaded_ms, r.verified_ms,
    (r.hidden OR p.hidden) AS hidden, r.hidden AS run_hidden,
    p.hidden AS player_hidden, r.hidden_reason, r.realtime, r.realtime_note,
    r.reverified_from"
);
/// Run `$1` and its player.
const RUN_FROM: &str = "FROM runs r JOIN players p ON p.id = r.player_id WHERE r.id = $1";

/// Runs by id: `store.runs()`.
#[derive(Clone, Copy, Debug)]
pub struct Runs<'a> {
    pub(super) store: &'a Store,
}

impl Runs<'_> {
    /// A run, with its player's name.
    pub async fn run(&self, id: i64) -> Result<Option<RunRow>> {
        let sql = format!("SELECT {RUN_COLUMNS} {RUN_FROM}");
        let row = on_pool!(self.store, |pool| {
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
        let row: Option<Read> = on_pool!(self.store, |pool| {
            sqlx::query_as(&sql).bind(id).fetch_optional(pool).await?
        });
        Ok(row.map(|read| (read.run, FeedSeq(read.feed_seq))))
    }

    /// Hides a run with the admin's reason (`Some`), or shows it again and forgets the reason
    /// (`None`); `false` if there is no such run.
    pub async fn set_run_hidden(&self, run_id: i64, reason: Option<&str>) -> Result<bool> {
        const SQL: &str = "UPDATE runs SET hidden = $1, hidden_reason = $2 WHERE id = $3";
        let rows = on_pool!(self.store, |pool| {
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

    /// The replay bytes of a run, checked against their key: bytes that no longer hash to
    /// the SHA-256 they were stored under (a bit flipped on disk) are
    /// [`StoreError::CorruptReplay`], never returned. Hashing costs about a millisecond per
    /// MB, beside a read that costs more.
    pub async fn run_bytes(&self, run_id: i64) -> Result<Option<Vec<u8>>> {
        const SQL: &str = "SELECT r.replay_hash, b.bytes
                           FROM runs r JOIN replays b ON b.hash = r.replay_hash
                           WHERE r.id = $1";
        let read = on_pool!(self.store, |pool| {
            sqlx::query(SQL)
                .bind(run_id)
                .fetch_optional(pool)
                .await?
                .map(|row| -> Result<(Vec<u8>, Vec<u8>), sqlx::Error> {
                    Ok((row.try_get(0)?, row.try_get(1)?))
                })
                .transpose()?
        });
        let Some((hash, bytes)) = read else {
            return Ok(None);
        };
        if Sha256::digest(&bytes)[..] != hash[..] {
            return Err(StoreError::CorruptReplay { run_id });
        }
        Ok(Some(bytes))
    }
}
