//! `pogo-server reverify`'s queries: the past seasons' runs still to re-verify for a target
//! season, and filing a batch of outcomes — each outcome row (table `reverifications`) and the
//! run it files committed in one transaction, so a killed invocation leaves nothing half-done
//! and the next one skips exactly what is recorded. Runs of past seasons are only read.

use sqlx::Row;

use super::filing::{FileRun, RunFiled, RunInsert, VerdictColumns};
use super::{BeginWrite, Board, NewRun, Result, Verdict};
use crate::season::SeasonId;

/// A stored run to re-verify: a verified finish of a past season, not itself a re-verified
/// copy (its original is re-verified instead, so a chain of seasons files each run once).
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Candidate {
    pub id: i64,
    pub player_id: i64,
    /// The player's name as registered (untrusted text: escape it to print).
    pub player: String,
    pub level: String,
    pub level_hash: String,
    pub tuning_hash: String,
    pub rules_version: i64,
    pub uploaded_ms: i64,
    /// The run itself is hidden, and why (carried to its copy: moderation follows the run).
    pub hidden: bool,
    pub hidden_reason: Option<String>,
    /// Played in real time under a run ticket (carried to its copy: the inputs and the state
    /// hashes the ticket's commitments were checked against are the same).
    pub realtime: bool,
}

/// What re-verifying a candidate showed.
#[derive(Clone, Debug)]
pub enum Recheck {
    /// The re-stamped replay verifies on the target: file it.
    Verified {
        /// The re-stamped replay file, and its SHA-256.
        bytes: Vec<u8>,
        replay_hash: [u8; 32],
        /// Always [`Verdict::Verified`].
        verdict: Verdict,
    },
    /// It does not: the verifier's (or the reader's) kind and message.
    Failed { kind: String, reason: String },
}

/// What filing one outcome did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filed {
    /// A new run on the target board, with this id.
    New(i64),
    /// The re-stamped bytes were stored already, as this run: recorded, nothing new filed.
    Duplicate(i64),
    /// Recorded as no longer verifying.
    Failed,
    /// Another invocation recorded this run for the target first: nothing written.
    DoneAlready,
}

/// The candidates of `$1` (level) for the target board `$2`…`$4`, optionally only of the
/// source season `$6`…`$8` (when `$5`), after run id `$9`. Queries append their `SELECT`
/// list in front and their order and limit after.
const CANDIDATES: &str = "
    FROM runs r JOIN players p ON p.id = r.player_id
    WHERE r.level = $1 AND r.status = 'verified' AND r.finish_tick IS NOT NULL
      AND r.reverified_from IS NULL
      AND NOT (r.level_hash = $2 AND r.tuning_hash = $3 AND r.rules_version = $4)
      AND ($5 = FALSE OR (r.level_hash = $6 AND r.tuning_hash = $7 AND r.rules_version = $8))
      AND r.id > $9
      AND NOT EXISTS (
          SELECT 1 FROM reverifications v
          WHERE v.run_id = r.id AND v.level_hash = $2 AND v.tuning_hash = $3
            AND v.rules_version = $4)";

/// Binds the target board and the source filter to `$1`…`$9` of [`CANDIDATES`].
macro_rules! bind_candidates {
    ($query:expr, $target:expr, $source:expr, $after:expr) => {{
        let source = $source.map(|s: SeasonId| s.board(&$target.level, $target.category));
        $query
            .bind($target.level.as_str())
            .bind($target.level_hash.as_str())
            .bind($target.tuning_hash.as_str())
            .bind(i64::from($target.rules_version))
            .bind(source.is_some())
            .bind(
                source
                    .as_ref()
                    .map_or("", |b| b.level_hash.as_str())
                    .to_string(),
            )
            .bind(
                source
                    .as_ref()
                    .map_or("", |b| b.tuning_hash.as_str())
                    .to_string(),
            )
            .bind(source.as_ref().map_or(0, |b| i64::from(b.rules_version)))
            .bind($after)
    }};
}

impl super::Seasons<'_> {
    /// How many runs are still to re-verify for `target` (of `source` only, if given).
    pub async fn reverify_pending(&self, target: &Board, source: Option<SeasonId>) -> Result<i64> {
        let sql = format!("SELECT COUNT(*) {CANDIDATES}");
        let count = on_pool!(self.store, |pool| {
            bind_candidates!(sqlx::query(&sql), target, source, 0i64)
                .fetch_one(pool)
                .await?
                .try_get::<i64, _>(0)?
        });
        Ok(count)
    }

    /// The next `limit` runs to re-verify for `target` (of `source` only, if given), after run
    /// id `after`, in id order.
    pub async fn reverify_candidates(
        &self,
        target: &Board,
        source: Option<SeasonId>,
        after: i64,
        limit: u32,
    ) -> Result<Vec<Candidate>> {
        let sql = format!(
            "SELECT r.id, r.player_id, {name} AS player, r.level, r.level_hash, r.tuning_hash,
                    r.rules_version, r.uploaded_ms, r.hidden, r.hidden_reason, r.realtime
             {CANDIDATES}
             ORDER BY r.id LIMIT $10",
            name = player_name!(),
        );
        let rows = on_pool!(self.store, |pool| {
            bind_candidates!(sqlx::query_as(&sql), target, source, after)
                .bind(i64::from(limit))
                .fetch_all(pool)
                .await?
        });
        Ok(rows)
    }

    /// Records a batch of outcomes for `target`, in one transaction: per candidate, its
    /// `reverifications` row and, if it verified, the new run on the target board (the
    /// re-stamped bytes, the player, the original's upload time, `reverified_from` naming
    /// the original: `copy_row`, filed by `filing.rs`) — or, if those bytes were filed
    /// already (before, or by a concurrent filing), that run, recorded as a duplicate
    /// ([`Filed::Duplicate`]). A candidate another invocation recorded first is left alone
    /// ([`Filed::DoneAlready`]).
    pub async fn file_reverified(
        &self,
        target: &Board,
        batch: &[(Candidate, Recheck)],
        now_ms: i64,
    ) -> Result<Vec<Filed>> {
        const OUTCOME: &str = "
            INSERT INTO reverifications (run_id, level_hash, tuning_hash, rules_version,
                                         outcome, reason_kind, reason, done_ms)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
            ON CONFLICT (run_id, level_hash, tuning_hash, rules_version) DO NOTHING";
        const LINK: &str = "
            UPDATE reverifications SET outcome = $1, new_run_id = $2
            WHERE run_id = $3 AND level_hash = $4 AND tuning_hash = $5 AND rules_version = $6";
        let rules = i64::from(target.rules_version);
        on_pool!(self.store, |pool| {
            let mut tx = pool.begin_write().await?;
            let mut filed = Vec::with_capacity(batch.len());
            for (run, recheck) in batch {
                let (outcome, kind, reason) = match recheck {
                    Recheck::Verified { .. } => ("filed", None, None),
                    Recheck::Failed { kind, reason } => {
                        ("failed", Some(kind.as_str()), Some(reason.as_str()))
                    }
                };
                let recorded = sqlx::query(OUTCOME)
                    .bind(run.id)
                    .bind(&target.level_hash)
                    .bind(&target.tuning_hash)
                    .bind(rules)
                    .bind(outcome)
                    .bind(kind)
                    .bind(reason)
                    .bind(now_ms)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                if recorded == 0 {
                    filed.push(Filed::DoneAlready);
                    continue;
                }
                let Recheck::Verified {
                    bytes,
                    replay_hash,
                    verdict,
                } = recheck
                else {
                    filed.push(Filed::Failed);
                    continue;
                };
                let copy = NewRun {
                    player_id: run.player_id,
                    bytes,
                    replay_hash: *replay_hash,
                    level: &run.level,
                    level_hash: target.level_hash.clone(),
                    tuning_hash: target.tuning_hash.clone(),
                    rules_version: target.rules_version,
                    uploaded_ms: run.uploaded_ms,
                    ticket: None,
                };
                let row = copy_row(&copy, run, verdict, now_ms);
                let (outcome, new_id) = match tx.file_run(&row).await? {
                    RunFiled::New(id) => ("filed", id),
                    RunFiled::Duplicate(id) => ("duplicate", id),
                };
                sqlx::query(LINK)
                    .bind(outcome)
                    .bind(new_id)
                    .bind(run.id)
                    .bind(&target.level_hash)
                    .bind(&target.tuning_hash)
                    .bind(rules)
                    .execute(&mut *tx)
                    .await?;
                filed.push(if outcome == "filed" {
                    Filed::New(new_id)
                } else {
                    Filed::Duplicate(new_id)
                });
            }
            tx.commit().await?;
            Ok(filed)
        })
    }
}

/// A re-verified copy's row (`copy`: the re-stamped bytes on the target board, the
/// original's player and upload time), verified at `now_ms` (milliseconds since the Unix
/// epoch): `verdict`'s columns, but the original's real-time judgment (`run.realtime`, with no
/// note: the same inputs, played on the same schedule), its hiding, and `reverified_from`
/// naming it.
fn copy_row<'a>(
    copy: &'a NewRun<'a>,
    run: &'a Candidate,
    verdict: &'a Verdict,
    now_ms: i64,
) -> RunInsert<'a> {
    let verdict = VerdictColumns {
        realtime: run.realtime,
        realtime_note: None,
        ..VerdictColumns::of(verdict)
    };
    RunInsert {
        hidden: run.hidden,
        hidden_reason: run.hidden_reason.as_deref(),
        reverified_from: Some(run.id),
        ..RunInsert::judged(copy, verdict, now_ms)
    }
}

/// The season id of a candidate's board, for reports (`None` for a malformed stored key).
pub fn candidate_season(run: &Candidate) -> Option<SeasonId> {
    let rules = u32::try_from(run.rules_version).ok()?;
    SeasonId::from_stored(rules, &run.level_hash, &run.tuning_hash)
}
