//! Filing a run: the one way a run enters the database. Three callers file one, each on a
//! write transaction of its own ([`BeginWrite`](super::BeginWrite)) where it also does what is
//! its own:
//!
//! - an upload (`Queue::insert_run`): filed `queued`, after the queue's limit is checked; its
//!   ticket consumed in the same transaction; the verdict comes later, through a claim
//!   (`Queue::write_verdicts`);
//! - a live run (`RoomRows::file_live_runs`: a wave's finishes, one transaction): filed
//!   verified by the room it was raced in, with its `room_id`, verified at its upload time;
//! - a re-verified copy (`Seasons::file_reverified`): filed verified on the current season,
//!   with the original's player, upload time, hiding and real-time judgment, and
//!   `reverified_from` naming it; beside the candidate's `reverifications` row, in the
//!   batch's transaction.
//!
//! Here, the replay and the run, by one statement each: [`FileRun::run_by_replay`] (the run
//! already filed with these bytes), [`FileRun::insert_new`] (the bytes, once per content, and
//! the run row, with or without a verdict: one `INSERT INTO runs` for every caller) and
//! [`FileRun::file_run`] (the two in turn; the upload looks first and inserts after its queue
//! check). What a run's insert sets off — the board change feed, the seasons' counts and
//! bests — is the schema's triggers' (migrations 0008, 0011, 0014): they read the row, so a
//! verified run enters its boards on insert and a queued one at its verdict.
//!
//! Two identical replays filed at once are settled here, once, for every caller. SQLite:
//! each filing holds the write lock from its `BEGIN IMMEDIATE`, so the second looks after the
//! first committed and finds its run. PostgreSQL (READ COMMITTED): both may look before
//! either commits; the second's replay insert waits on the first's (the replays' primary
//! key), and once the first has committed, its run insert (`ON CONFLICT (replay_hash) DO
//! NOTHING`) inserts nothing: the run is read again (a new statement sees the commit) and
//! returned as [`RunFiled::Duplicate`]. Nothing fails, so the transaction goes on: a
//! reverify batch files its other candidates.

use sqlx::Row;

use super::{Result, RunState, StoreError};

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

/// A verdict's columns as stored (`None` is SQL `NULL`): a new verdict field is one more
/// field here, one more column in [`RUN`], one more bind in `queue`'s `bind_verdict!` and one
/// more array in its `VERDICTS_POSTGRES`.
#[derive(Clone, Debug)]
pub(super) struct VerdictColumns<'a> {
    pub(super) status: RunState,
    pub(super) ticks: Option<i64>,
    pub(super) finish_tick: Option<i64>,
    /// JSON array of `{"checkpoint", "tick"}` ([`Verdict::Verified`]'s `splits`).
    pub(super) splits: Option<&'a str>,
    pub(super) reason_kind: Option<&'a str>,
    pub(super) reason: Option<&'a str>,
    /// 16 lowercase hex digits.
    pub(super) final_hash: Option<String>,
    /// Played in real time under a run ticket (`crate::realtime`); false for a rejection.
    pub(super) realtime: bool,
    /// Why a ticketed run is not real-time.
    pub(super) realtime_note: Option<&'a str>,
}

impl<'a> VerdictColumns<'a> {
    /// A verdict's columns: the one mapping of a [`Verdict`] to the row.
    pub(super) fn of(verdict: &'a Verdict) -> VerdictColumns<'a> {
        match verdict {
            Verdict::Verified {
                ticks,
                finish_tick,
                splits,
                final_hash,
                realtime,
                realtime_note,
            } => VerdictColumns {
                status: RunState::Verified,
                ticks: Some(i64::from(*ticks)),
                finish_tick: finish_tick.map(i64::from),
                splits: Some(splits.as_str()),
                reason_kind: None,
                reason: None,
                final_hash: Some(super::hash_hex(*final_hash)),
                realtime: *realtime,
                realtime_note: realtime_note.as_deref(),
            },
            Verdict::Rejected { kind, reason } => VerdictColumns {
                status: RunState::Rejected,
                ticks: None,
                finish_tick: None,
                splits: None,
                reason_kind: Some(kind.as_str()),
                reason: Some(reason.as_str()),
                final_hash: None,
                realtime: false,
                realtime_note: None,
            },
        }
    }

    /// A run with no verdict yet: `queued`, every verdict column `NULL`, not real-time.
    pub(super) fn queued() -> VerdictColumns<'static> {
        VerdictColumns {
            status: RunState::Queued,
            ticks: None,
            finish_tick: None,
            splits: None,
            reason_kind: None,
            reason: None,
            final_hash: None,
            realtime: false,
            realtime_note: None,
        }
    }
}

/// A run's row as filed: every column a way in sets (the rest are the schema's defaults: no
/// lease, no attempts). Times are milliseconds since the Unix epoch.
#[derive(Clone, Debug)]
pub(super) struct RunInsert<'a> {
    /// The replay (bytes and SHA-256) and the run's player, level, board and `uploaded_ms`.
    /// Its `ticket` is not read here: an upload consumes it on the same transaction.
    pub(super) run: &'a NewRun<'a>,
    /// The verdict's columns ([`VerdictColumns::queued`] for none yet).
    pub(super) verdict: VerdictColumns<'a>,
    /// When the verdict was reached; `None` while queued.
    pub(super) verified_ms: Option<i64>,
    /// Hidden from its first moment (a re-verified copy of a hidden run), and the admin's
    /// reason (`None` also for a run hidden before reasons were kept).
    pub(super) hidden: bool,
    pub(super) hidden_reason: Option<&'a str>,
    /// The live room it was raced in.
    pub(super) room_id: Option<&'a str>,
    /// The run it is a re-verified copy of.
    pub(super) reverified_from: Option<i64>,
}

impl<'a> RunInsert<'a> {
    /// An upload's run: queued, shown, no room, not a copy.
    pub(super) fn queued(run: &'a NewRun<'a>) -> RunInsert<'a> {
        RunInsert {
            run,
            verdict: VerdictColumns::queued(),
            verified_ms: None,
            hidden: false,
            hidden_reason: None,
            room_id: None,
            reverified_from: None,
        }
    }

    /// A run filed with its verdict (`verdict`, reached at `verified_ms`): shown, no room, not
    /// a copy, unless the caller says otherwise.
    pub(super) fn judged(
        run: &'a NewRun<'a>,
        verdict: VerdictColumns<'a>,
        verified_ms: i64,
    ) -> RunInsert<'a> {
        RunInsert {
            verdict,
            verified_ms: Some(verified_ms),
            ..RunInsert::queued(run)
        }
    }
}

/// What filing a run did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RunFiled {
    /// A new run, with this id (and its replay, unless the bytes were stored already).
    New(i64),
    /// These bytes were filed already, as this run (committed before, or by a concurrent
    /// filing since the look): nothing was written.
    Duplicate(i64),
}

/// The run filed with replay `$1` (SHA-256), if any (`runs.replay_hash` is unique).
const EXISTING: &str = "SELECT id FROM runs WHERE replay_hash = $1";

/// A replay's bytes, once per content: `$1` SHA-256, `$2` the bytes, `$3` their length.
const REPLAY: &str = "INSERT INTO replays (hash, bytes, size) VALUES ($1, $2, $3)
                      ON CONFLICT (hash) DO NOTHING";

/// A run's row ([`RunInsert`], bound by [`FileRun::insert_new`]); no row returned if its
/// replay's run exists (committed by a concurrent filing: see the module's docs).
const RUN: &str = "
    INSERT INTO runs (player_id, replay_hash, level, level_hash, tuning_hash, rules_version,
                      uploaded_ms, status, ticks, finish_tick, splits, reason_kind, reason,
                      verified_ms, final_hash, realtime, realtime_note, hidden, hidden_reason,
                      room_id, reverified_from)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,
            $19, $20, $21)
    ON CONFLICT (replay_hash) DO NOTHING
    RETURNING id";

/// Filing a run on an open write transaction (`tx.file_run(&row)`): implemented for both
/// drivers' connections by the same code (a transaction derefs to its connection).
pub(super) trait FileRun {
    /// The run filed with replay `replay_hash` (SHA-256), if any.
    async fn run_by_replay(&mut self, replay_hash: &[u8]) -> Result<Option<i64>>;

    /// Inserts `row`'s replay (unless stored already) and its run row, without looking
    /// first: [`RunFiled::Duplicate`] only for a run a concurrent filing committed since.
    async fn insert_new(&mut self, row: &RunInsert<'_>) -> Result<RunFiled>;

    /// Files `row`: the run filed with its bytes before ([`RunFiled::Duplicate`]), or a new
    /// one ([`FileRun::run_by_replay`], then [`FileRun::insert_new`]).
    async fn file_run(&mut self, row: &RunInsert<'_>) -> Result<RunFiled>;
}

/// Implements [`FileRun`] for a driver's connection.
macro_rules! impl_file_run {
    ($conn:ty) => {
        impl FileRun for $conn {
            async fn run_by_replay(&mut self, replay_hash: &[u8]) -> Result<Option<i64>> {
                let row = sqlx::query(EXISTING)
                    .bind(replay_hash)
                    .fetch_optional(&mut *self)
                    .await?;
                Ok(row.map(|row| row.try_get(0)).transpose()?)
            }

            async fn insert_new(&mut self, row: &RunInsert<'_>) -> Result<RunFiled> {
                let (run, v) = (row.run, &row.verdict);
                let hash = &run.replay_hash[..];
                sqlx::query(REPLAY)
                    .bind(hash)
                    .bind(run.bytes)
                    .bind(run.bytes.len() as i64)
                    .execute(&mut *self)
                    .await?;
                let inserted = sqlx::query(RUN)
                    .bind(run.player_id)
                    .bind(hash)
                    .bind(run.level)
                    .bind(&run.level_hash)
                    .bind(&run.tuning_hash)
                    .bind(i64::from(run.rules_version))
                    .bind(run.uploaded_ms)
                    .bind(v.status.as_str())
                    .bind(v.ticks)
                    .bind(v.finish_tick)
                    .bind(v.splits)
                    .bind(v.reason_kind)
                    .bind(v.reason)
                    .bind(row.verified_ms)
                    .bind(v.final_hash.as_deref())
                    .bind(v.realtime)
                    .bind(v.realtime_note)
                    .bind(row.hidden)
                    .bind(row.hidden_reason)
                    .bind(row.room_id)
                    .bind(row.reverified_from)
                    .fetch_optional(&mut *self)
                    .await?;
                if let Some(inserted) = inserted {
                    return Ok(RunFiled::New(inserted.try_get(0)?));
                }
                // The same bytes, committed by a concurrent filing since our look.
                match self.run_by_replay(hash).await? {
                    Some(id) => Ok(RunFiled::Duplicate(id)),
                    None => Err(StoreError::Corrupt(
                        "a run's replay conflicted with a run that cannot be read".into(),
                    )),
                }
            }

            async fn file_run(&mut self, row: &RunInsert<'_>) -> Result<RunFiled> {
                match self.run_by_replay(&row.run.replay_hash).await? {
                    Some(id) => Ok(RunFiled::Duplicate(id)),
                    None => self.insert_new(row).await,
                }
            }
        }
    };
}

impl_file_run!(sqlx::SqliteConnection);
impl_file_run!(sqlx::PgConnection);
