//! `pogo-server reverify`: carries the past seasons' runs (`crate::season`) over to the
//! current boards when they still verify.
//!
//! For each level the server runs, the target is its current season (the level's content
//! hash, the running tuning hash, `pogo_core::RULES_VERSION`). Every stored verified finish
//! on another board of the level — not itself a re-verified copy — is re-simulated under the
//! running binary's rules, tuning and level:
//!
//! 1. Its replay is decoded and its header **re-stamped**: only `rules_version`,
//!    `tuning_hash` and `level_hash` change. The inputs, every recorded state hash and the
//!    trailer's claims (ticks, finish, final hash) are kept: they are the check. The file is
//!    encoded again (new chunk and file checks over the new header).
//! 2. The re-stamped file is verified by the server's verifier (`verdict::verify`, the
//!    verdict rule of every run, with the operator's budget per run: player-ticks, hash interval,
//!    wall-clock bound). It passes only if the new rules reproduce every recorded hash and
//!    the claimed outcome.
//! 3. A run that passes is **filed**: a new `runs` row on the target board — the same
//!    player, the re-stamped bytes as its replay, status verified with the new verdict, the
//!    original's upload time (ties on the new board keep the old upload order), its hidden
//!    flag and reason, its real-time flag, and `reverified_from` naming the original. A run
//!    that fails is recorded with the verifier's kind and message. The original run and its
//!    board are never written to.
//!
//! **Resumable and idempotent.** Each outcome is a row of `reverifications` (run, target
//! season, outcome, kind, reason, time), committed in the same transaction as the run it
//! files, a batch at a time: an invocation killed mid-way leaves whole batches, and the next
//! one skips every run with an outcome for the target. Two invocations at once file each run
//! once (the outcome row's primary key decides).
//!
//! **Bounded.** At most `--limit` runs per invocation, `--batch` per transaction (at most
//! [`BATCH_MAX`]), one verification at a time on a blocking thread within the verifier's
//! budget. The serving process need not stop: reverify only adds verified runs, which the
//! current board then ranks.

use std::fmt;

use indicatif::ProgressBar;
use pogo_replay::{Replay, Verifier, VerifyError};
use sha2::{Digest, Sha256};

use crate::catalog::Hidden;
use crate::season::SeasonId;
use crate::state::AppState;
use crate::store::reverify::{Candidate, Filed, Recheck, candidate_season};
use crate::store::{Category, StoreError, Verdict};
use crate::times::now_ms;
use crate::verdict;

/// Most runs in one batch (one transaction): a batch's re-stamped replays sit in memory
/// until it is committed.
pub const BATCH_MAX: u32 = 256;

/// What to re-verify.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Most runs to re-verify in this invocation.
    pub limit: u64,
    /// Runs per batch (transaction), 1…[`BATCH_MAX`].
    pub batch: u32,
    /// Only runs of this season (of whichever levels have it).
    pub season: Option<SeasonId>,
    /// Only this level (by name); default every level the server runs.
    pub level: Option<String>,
}

/// Why reverify could not run (it changed nothing that was not committed).
#[derive(Debug)]
pub enum ReverifyError {
    /// A bad option (the message names it).
    Options(String),
    Store(StoreError),
    /// A verification thread panicked (a bug in the verifier).
    Internal(String),
}

impl fmt::Display for ReverifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReverifyError::Options(e) | ReverifyError::Internal(e) => f.write_str(e),
            ReverifyError::Store(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ReverifyError {}

impl From<StoreError> for ReverifyError {
    fn from(e: StoreError) -> ReverifyError {
        ReverifyError::Store(e)
    }
}

/// A run that no longer verifies under the running rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub run_id: i64,
    /// As registered: untrusted text (the report escapes it).
    pub player: String,
    pub level: String,
    /// The run's own (past) season.
    pub season: Option<SeasonId>,
    /// The verifier's short name (`desync`, `outcome_mismatch`, `over_budget`, …).
    pub kind: String,
    /// The verifier's message.
    pub reason: String,
}

/// What an invocation did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Each level with runs of past seasons to re-verify, and its target (current) season.
    pub targets: Vec<(String, SeasonId)>,
    /// Levels looked at with nothing of a past season to re-verify.
    pub idle: u64,
    /// Runs re-verified in this invocation.
    pub checked: u64,
    /// Filed on the current board (new runs, by id).
    pub filed: Vec<i64>,
    /// Verified, but their re-stamped bytes were a stored run already (nothing new filed).
    pub duplicates: u64,
    /// Recorded by a concurrent invocation first (nothing written by this one).
    pub done_elsewhere: u64,
    /// No longer verifying, in run id order per level.
    pub failures: Vec<Failure>,
    /// Runs still to re-verify after this invocation (over the limit): run it again.
    pub left: i64,
}

/// Re-verifies up to `options.limit` runs of past seasons and files those that still
/// verify (see the module's documentation); `progress` counts runs.
pub async fn reverify(
    state: &AppState,
    options: &Options,
    progress: &ProgressBar,
) -> Result<Report, ReverifyError> {
    if !(1..=BATCH_MAX).contains(&options.batch) {
        return Err(ReverifyError::Options(format!(
            "--batch {}: must be within 1..={BATCH_MAX}",
            options.batch
        )));
    }
    // Every level: the built-in ones and level files, and every published track (hidden
    // ones too: hiding a track and showing it again after a rules change loses nothing).
    let levels: Vec<String> = match &options.level {
        Some(name) => vec![name.clone()],
        None => {
            let mut levels: Vec<String> = state.catalog.levels().map(|l| l.name.clone()).collect();
            levels.extend(state.store.tracks().levels().await?);
            levels
        }
    };
    let mut report = Report::default();
    let mut targets = Vec::with_capacity(levels.len());
    let mut pending = 0i64;
    for level in &levels {
        let Some(info) = state
            .catalog
            .resolve(&state.store, level, Hidden::Included)
            .await?
        else {
            return Err(ReverifyError::Options(format!(
                "--only-level {}: the server runs no such level",
                escape(level)
            )));
        };
        let season = state.catalog.season(&info);
        let target = season.board(&info.name, Category::Open);
        let waiting = state
            .store
            .seasons()
            .reverify_pending(&target, options.season)
            .await?;
        if waiting == 0 {
            // Nothing from a past season (most tracks, on a server with many).
            report.idle += 1;
            continue;
        }
        pending += waiting;
        report.targets.push((level.clone(), season));
        targets.push((target, season, state.catalog.verifier_for(&info)));
    }
    progress.set_length(u64::try_from(pending).unwrap_or(0).min(options.limit));
    let mut budget = options.limit;
    for (target, season, verifier) in &targets {
        let mut after = 0i64;
        while budget > 0 {
            let take = u32::try_from(budget.min(u64::from(options.batch))).unwrap_or(1);
            let batch = state
                .store
                .seasons()
                .reverify_candidates(target, options.season, after, take)
                .await?;
            let Some(last) = batch.last() else {
                break;
            };
            after = last.id;
            let rechecked = recheck_batch(state, verifier, batch, *season, progress).await?;
            let filed = state
                .store
                .seasons()
                .file_reverified(target, &rechecked, now_ms())
                .await?;
            budget = budget.saturating_sub(rechecked.len() as u64);
            report.checked += rechecked.len() as u64;
            for ((run, recheck), filed) in rechecked.into_iter().zip(filed) {
                match (filed, recheck) {
                    (Filed::New(id), _) => report.filed.push(id),
                    (Filed::Duplicate(_), _) => report.duplicates += 1,
                    (Filed::DoneAlready, _) => report.done_elsewhere += 1,
                    (Filed::Failed, Recheck::Failed { kind, reason }) => {
                        report.failures.push(Failure {
                            run_id: run.id,
                            season: candidate_season(&run),
                            player: run.player,
                            level: run.level,
                            kind,
                            reason,
                        })
                    }
                    (Filed::Failed, Recheck::Verified { .. }) => {}
                }
            }
        }
    }
    for (target, _, _) in &targets {
        report.left += state
            .store
            .seasons()
            .reverify_pending(target, options.season)
            .await?;
    }
    progress.finish_and_clear();
    Ok(report)
}

/// Re-checks a batch, one run at a time on a blocking thread (verification is CPU-bound).
async fn recheck_batch(
    state: &AppState,
    verifier: &Verifier,
    batch: Vec<Candidate>,
    target: SeasonId,
    progress: &ProgressBar,
) -> Result<Vec<(Candidate, Recheck)>, ReverifyError> {
    let mut out = Vec::with_capacity(batch.len());
    for run in batch {
        let recheck = match state.store.runs().run_bytes(run.id).await {
            Err(StoreError::CorruptReplay { .. }) => Recheck::Failed {
                kind: "corrupt".into(),
                reason: "the run's stored replay does not match its hash (`pogo-server check`)"
                    .into(),
            },
            Err(e) => return Err(e.into()),
            Ok(None) => Recheck::Failed {
                kind: "missing".into(),
                reason: "the run's replay bytes are missing from the database".into(),
            },
            Ok(Some(bytes)) => {
                let verifier = verifier.clone();
                tokio::task::spawn_blocking(move || recheck(&verifier, &bytes, target))
                    .await
                    .unwrap_or_else(|e| {
                        tracing::error!(run = run.id, error = %e, "re-verification panicked");
                        Recheck::Failed {
                            kind: "internal".into(),
                            reason: "the verifier failed on this replay (a bug: please report it)"
                                .into(),
                        }
                    })
            }
        };
        progress.inc(1);
        out.push((run, recheck));
    }
    Ok(out)
}

/// Re-stamps a stored replay for `target` (see [`restamp`]) and verifies it: the new file
/// and its verdict, or why it no longer verifies.
pub fn recheck(verifier: &Verifier, bytes: &[u8], target: SeasonId) -> Recheck {
    let restamped = match restamp(bytes, verifier, target) {
        Ok(bytes) => bytes,
        Err(e) => {
            return Recheck::Failed {
                kind: e.kind().into(),
                reason: e.to_string(),
            };
        }
    };
    match verdict::verify(verifier, &restamped) {
        verdict @ Verdict::Verified { .. } => Recheck::Verified {
            replay_hash: Sha256::digest(&restamped).into(),
            bytes: restamped,
            verdict,
        },
        Verdict::Rejected { kind, reason } => Recheck::Failed { kind, reason },
    }
}

/// A replay's bytes with its header's `rules_version`, `level_hash` and `tuning_hash` set to
/// `target`'s and nothing else changed: the inputs, the recorded state hashes and the
/// trailer's claims are kept (the chunk and file checks are recomputed, as any encoding
/// does). Decoded within the verifier's limits.
pub fn restamp(
    bytes: &[u8],
    verifier: &Verifier,
    target: SeasonId,
) -> Result<Vec<u8>, VerifyError> {
    let mut replay = Replay::decode(bytes, verifier.limits())?;
    replay.header.rules_version = target.rules_version;
    replay.header.level_hash = target.level_hash;
    replay.header.tuning_hash = target.tuning_hash;
    Ok(replay.encode())
}

/// Untrusted text for a terminal: quoted, with control characters, quotes and backslashes
/// escaped (`"bob\u{1b}[2J"` prints as `"bob\u{1b}[2J"`, not as a cleared screen).
pub fn escape(text: &str) -> String {
    format!("\"{}\"", text.escape_debug())
}

impl fmt::Display for Report {
    /// The levels with runs to re-verify, the count of the others, the counts, then each run
    /// that no longer verifies with its reason, one a line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (level, season) in &self.targets {
            writeln!(f, "level {}: current season {season}", escape(level))?;
        }
        if self.idle > 0 {
            writeln!(
                f,
                "{} other level(s) have nothing of a past season to re-verify",
                self.idle
            )?;
        }
        writeln!(
            f,
            "re-verified {} run(s): {} filed on the current board, {} no longer verify, {} \
             already stored, {} done by another invocation; {} left (run again for more)",
            self.checked,
            self.filed.len(),
            self.failures.len(),
            self.duplicates,
            self.done_elsewhere,
            self.left
        )?;
        if !self.failures.is_empty() {
            writeln!(f, "no longer verify:")?;
        }
        for failure in &self.failures {
            let season = failure
                .season
                .map_or_else(|| "?".to_string(), |s| s.to_string());
            writeln!(
                f,
                "  run {} by {} on {} (season {season}): {}: {}",
                failure.run_id,
                escape(&failure.player),
                escape(&failure.level),
                failure.kind.escape_debug(),
                failure.reason.escape_debug()
            )?;
        }
        Ok(())
    }
}
