//! The verification workers: a fixed number of tasks (one per core by default), each
//! claiming a batch of runs at a time from the database (`--verify-batch`, 64 by default),
//! re-simulating them one after the other on a blocking thread with the verifier's budget
//! (`Limits`: player-ticks, hash interval, wall-clock bound) and writing the batch's verdicts
//! under their claims in one transaction. At most `workers` verifications run at once, in this
//! process; several processes on one PostgreSQL database share the queue.
//!
//! # Exactly once
//!
//! A run gets exactly one verdict, whatever dies when.
//!
//! - **Claims.** One statement ([`Queue::claim_batch`](crate::store::Queue::claim_batch)) moves up to N runs that are queued, or
//!   `verifying` under a lease that has expired, to `verifying`, leased to this worker
//!   (`lease_owner`, this process's random name and the worker's index) until now + the lease,
//!   and numbers each claim (`attempts` + 1). Two claims never get the same run: PostgreSQL
//!   locks the rows (`FOR UPDATE SKIP LOCKED`), SQLite serialises the statements (`BEGIN
//!   IMMEDIATE`). On PostgreSQL the same statement returns the batch's replay bytes
//!   ([`Queue::claim_and_read`](crate::store::Queue::claim_and_read)); SQLite reads them
//!   in a second query.
//! - **Fencing.** A verdict is an `UPDATE` conditional on the run still being `verifying` under
//!   the same owner and attempt number; so is handing a run back. A claim that is no longer
//!   the run's latest — its lease expired and the run was claimed again — writes nothing, and
//!   once a verdict is written the run is no longer `verifying`, so nothing writes a second.
//! - **One transaction per batch.** A batch's verdicts, and the release of its runs not yet
//!   started (back to `queued`, the attempt not counted: nothing of it was tried), are one
//!   transaction ([`Queue::write_verdicts`](crate::store::Queue::write_verdicts)): all of it is durable, or none of it is.
//!   On PostgreSQL a batch with nothing to hand back is one `UPDATE` statement, which is its
//!   own transaction.
//! - **The lease covers the batch.** Every claim of a batch is leased from the claim. A worker
//!   starts a run only if, at the verifier's wall-clock bound, it would end within
//!   [`VERIFY_BATCH_LEASE_FRACTION`] of the lease (the first run of a batch: within the lease,
//!   which the configuration makes longer than that bound); otherwise it writes what it has
//!   and hands back the rest. A batch of slow runs is written run by run, and a run never
//!   waits behind more than one slow run of its batch.
//! - **One batch ahead.** While a batch is re-simulated, the worker claims the next one and
//!   the batch before commits its verdicts, so the database's round trips and commits overlap
//!   the re-simulation. A worker holds at most two batches and one open verdict transaction;
//!   the batch claimed ahead is leased from its own claim (the rule above counts its wait), and
//!   handed back if the server stops before starting it.
//!
//! What happens when:
//!
//! - **the process dies mid-batch** (or before the verdict transaction commits): nothing of
//!   the batch was written; its runs stay `verifying` until their leases expire, then any
//!   worker, in any process, claims them again (attempt 2) and writes their verdicts. If it
//!   dies after the commit, the verdicts stand and the runs are never claimed again.
//! - **a lease expires mid-batch** (the worker was paused, or the machine starved it): another
//!   worker may claim those runs again; whichever verdict commits first is written and the
//!   other claim's `UPDATE`s change nothing (the rest of its batch is written as usual).
//!   Verification is deterministic, so both would have written the same verdict.
//! - **the verdict transaction fails**: it is rolled back, nothing of it is written, and it is
//!   tried again (three times in all, as the lease allows); if it never commits the runs are
//!   claimed again when their leases expire. A commit whose answer was lost and is tried again
//!   writes nothing the second time (the runs are no longer `verifying`) and is logged as a
//!   lost claim.
//! - **a run is claimed again and again** (every claim died): after
//!   [`CLAIM_ATTEMPTS_MAX`] claims it is rejected `abandoned` without being simulated.
//!
//! A run uploaded under a run ticket is judged real-time or not with its verdict
//! ([`verify_ticketed`]): the batch's tickets and their commitments are read with its bytes.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pogo_replay::{Ghost, Replay, Split, SplitRecorder, Verifier, VerifyError};
use serde_json::json;
use sha2::{Digest, Sha256};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use crate::catalog::{Catalog, Hidden};
use crate::limits::{CLAIM_ATTEMPTS_MAX, VERIFY_BATCH_LEASE_FRACTION, WORKER_POLL_INTERVAL};
use crate::metrics::Metrics;
use crate::realtime;
use crate::shutdown::Shutdown;
use crate::store::{Claim, ClaimRead, RunState, RunTicket, Store, StoreError, Verdict};
use crate::times::now_ms;

/// What the verification workers share, and nothing the handlers do: each task holds a
/// handle. The store, catalog and metrics are the handlers' too; `work` is the upload
/// handler's other end.
#[derive(Debug)]
pub struct Workers {
    pub store: Store,
    pub catalog: Arc<Catalog>,
    pub metrics: Arc<Metrics>,
    /// This process's name in claims (`lease_owner`): random, so two processes never share
    /// one, even on two machines.
    pub instance: String,
    /// How many tasks verify at once (`--workers`).
    pub count: usize,
    pub lease: Duration,
    /// Runs a worker claims at once (`--verify-batch`).
    pub verify_batch: u32,
    /// How late a ticket's commitment may arrive after its game time (ms), for the judgment
    /// of a ticketed run.
    pub ticket_slack_ms: i64,
    /// Wakes an idle worker when a run is queued.
    pub work: Arc<Notify>,
}

/// Starts the workers; they stop claiming when `stop` begins and end after their current
/// run, writing their batch's verdicts and handing back the runs not started.
pub fn spawn(workers: &Arc<Workers>, stop: &Shutdown) -> Vec<JoinHandle<()>> {
    (0..workers.count)
        .map(|index| tokio::spawn(work(workers.clone(), index, stop.clone())))
        .collect()
}

async fn work(state: Arc<Workers>, index: usize, mut stop: Shutdown) {
    let owner = format!("{}#{index}", state.instance);
    // The batch claimed while the one before was being verified.
    let mut next: Option<Claimed> = None;
    // The verdict transaction of the batch before, committing while this one is verified.
    let mut writing: Option<JoinHandle<()>> = None;
    loop {
        if stop.is_shutdown() {
            break;
        }
        let batch = match next.take() {
            Some(batch) => batch,
            None => match claim(&state, &owner).await {
                Ok(Some(batch)) => batch,
                Ok(None) => {
                    tokio::select! {
                        _ = state.work.notified() => {}
                        _ = tokio::time::sleep(WORKER_POLL_INTERVAL) => {}
                        () = stop.recv() => {}
                    }
                    continue;
                }
                Err(e) => {
                    tracing::warn!(worker = %owner, error = %e, "cannot claim runs");
                    tokio::select! {
                        _ = tokio::time::sleep(WORKER_POLL_INTERVAL * 4) => {}
                        () = stop.recv() => {}
                    }
                    continue;
                }
            },
        };
        let (catalog, lease, stop_flag) = (state.catalog.clone(), state.lease, stop.clone());
        let slack_ms = state.ticket_slack_ms;
        let verifying = tokio::task::spawn_blocking(move || {
            verify_claims(catalog.verifier(), batch, lease, slack_ms, &stop_flag)
        });
        // Meanwhile the next batch is claimed and read: the database's round trips and
        // commits overlap the re-simulation instead of adding to it.
        if !stop.is_shutdown() {
            match claim(&state, &owner).await {
                Ok(batch) => next = batch,
                Err(e) => tracing::warn!(worker = %owner, error = %e, "cannot claim runs"),
            }
        }
        let verified = verifying.await;
        // One verdict transaction at a time per worker, in the order of the claims.
        if let Some(previous) = writing.take() {
            let _ = previous.await;
        }
        match verified {
            Ok(batch) => writing = Some(tokio::spawn(write_batch(state.clone(), batch))),
            // `verify_claims` catches each verification's panic: this is not expected. The
            // leases run out and the runs are claimed again.
            Err(e) => tracing::error!(error = %e, "a verification batch failed"),
        }
    }
    if let Some(previous) = writing.take() {
        let _ = previous.await;
    }
    if let Some(unstarted) = next.take() {
        let batch = Verified {
            verdicts: Vec::new(),
            unstarted: unstarted.claims,
        };
        write_batch(state.clone(), batch).await;
    }
}

/// A claimed batch: its claims (by run id), their replays, the tickets of those uploaded
/// under one, and when it was claimed (the leases run from no earlier than this).
struct Claimed {
    claims: Vec<Claim>,
    bytes: HashMap<i64, Vec<u8>>,
    /// The verifiers of the claims on tracks (`Catalog::verifier_for`); the others meet the
    /// catalog's.
    verifiers: HashMap<i64, Verifier>,
    tickets: HashMap<i64, RunTicket>,
    claimed_at: Instant,
}

/// Claims a batch for `owner` and reads its replays; `None` if no run is waiting. On an
/// error after the claim, the claims' leases run out and the runs are claimed again.
async fn claim(state: &Workers, owner: &str) -> Result<Option<Claimed>, StoreError> {
    let lease_ms = i64::try_from(state.lease.as_millis()).unwrap_or(i64::MAX);
    let claimed_at = Instant::now();
    let ClaimRead {
        claims,
        bytes,
        tickets,
    } = state
        .store
        .queue()
        .claim_and_read(owner, now_ms(), lease_ms, state.verify_batch)
        .await?;
    if claims.is_empty() {
        return Ok(None);
    }
    // A track's world is resolved here, on the async side (the database, then a build off
    // these threads), so that verification never looks a level up by name.
    let limits = state.catalog.verifier().limits();
    let mut verifiers = HashMap::new();
    for (run_id, replay) in &bytes {
        let Ok(reader) = pogo_replay::ReplayReader::open(&replay[..], limits) else {
            continue;
        };
        let name = &reader.header().level_name;
        if !pogo_replay::track::is_track_level_name(name) {
            continue;
        }
        if let Some(level) = state
            .catalog
            .resolve(&state.store, name, Hidden::Included)
            .await?
        {
            verifiers.insert(*run_id, state.catalog.verifier_for(&level));
        }
    }
    Ok(Some(Claimed {
        claims,
        bytes,
        verifiers,
        tickets,
        claimed_at,
    }))
}

/// A batch after its verifications: the verdicts (with the seconds each took) and the claims
/// not started, to hand back.
struct Verified {
    verdicts: Vec<(Claim, Verdict, f64)>,
    unstarted: Vec<Claim>,
}

/// Verifies a batch's claims in order while the next one, at the verifier's wall-clock
/// bound, would still end within [`VERIFY_BATCH_LEASE_FRACTION`] of the `lease` after the
/// claim — the first one: within the lease — and `stop` has not begun; hands back the rest.
fn verify_claims(
    verifier: &Verifier,
    batch: Claimed,
    lease: Duration,
    slack_ms: i64,
    stop: &Shutdown,
) -> Verified {
    let Claimed {
        claims,
        mut bytes,
        verifiers,
        mut tickets,
        claimed_at,
    } = batch;
    let longest = verifier.limits().duration_max.unwrap_or(Duration::ZERO);
    let (numerator, denominator) = VERIFY_BATCH_LEASE_FRACTION;
    let horizon = lease * numerator / denominator;
    let mut verdicts = Vec::with_capacity(claims.len());
    let mut claims = claims.into_iter();
    let mut started = false;
    while let Some(claim) = claims.next() {
        let ends_by = claimed_at.elapsed() + longest;
        let late = if started {
            ends_by > horizon
        } else {
            ends_by >= lease
        };
        if late || (started && stop.is_shutdown()) {
            let mut unstarted = vec![claim];
            unstarted.extend(claims);
            return Verified {
                verdicts,
                unstarted,
            };
        }
        started = true;
        let begun = Instant::now();
        let verdict = if claim.attempt > CLAIM_ATTEMPTS_MAX {
            Verdict::Rejected {
                kind: "abandoned".into(),
                reason: format!(
                    "verification was interrupted {CLAIM_ATTEMPTS_MAX} times; given up"
                ),
            }
        } else {
            let Some(bytes) = bytes.remove(&claim.run_id) else {
                tracing::error!(run = claim.run_id, "the run's replay bytes are missing");
                continue;
            };
            // Damaged at rest (`pogo-server check`): not judged. No verdict of a player's run
            // on bytes that are not theirs; like missing bytes, the claim's lease runs out.
            if Sha256::digest(&bytes)[..] != claim.replay_hash[..] {
                tracing::error!(
                    run = claim.run_id,
                    "stored replay of run {} is corrupt: not verified",
                    claim.run_id
                );
                continue;
            }
            let ticket = tickets.remove(&claim.run_id);
            let verifier = verifiers.get(&claim.run_id).unwrap_or(verifier);
            let verify = || verify_ticketed(verifier, &bytes, ticket.as_ref(), slack_ms);
            match std::panic::catch_unwind(AssertUnwindSafe(verify)) {
                Ok(verdict) => verdict,
                Err(_) => {
                    tracing::error!(run = claim.run_id, "verification panicked");
                    Verdict::Rejected {
                        kind: "internal".into(),
                        reason: "the verifier failed on this replay (a bug: please report it)"
                            .into(),
                    }
                }
            }
        };
        verdicts.push((claim, verdict, begun.elapsed().as_secs_f64()));
    }
    Verified {
        verdicts,
        unstarted: Vec::new(),
    }
}

/// Writes a batch's verdicts and releases its unstarted claims in one transaction, a few
/// tries while the database is briefly busy; logs and counts each verdict written.
async fn write_batch(state: Arc<Workers>, batch: Verified) {
    let verdicts: Vec<(&Claim, &Verdict)> = batch.verdicts.iter().map(|(c, v, _)| (c, v)).collect();
    let release: Vec<&Claim> = batch.unstarted.iter().collect();
    if verdicts.is_empty() && release.is_empty() {
        return;
    }
    for attempt in 0..3u32 {
        match state
            .store
            .queue()
            .write_verdicts(&verdicts, &release, now_ms())
            .await
        {
            Ok(written) => {
                for ((claim, verdict, seconds), written) in batch.verdicts.iter().zip(written) {
                    let span =
                        tracing::info_span!("verdict", run = claim.run_id, attempt = claim.attempt);
                    let _entered = span.enter();
                    if !written {
                        tracing::warn!(
                            "claim lost (lease expired, run taken over); verdict dropped"
                        );
                        continue;
                    }
                    let (label, reason) = labels(verdict);
                    state.metrics.verdict(label, reason, *seconds);
                    tracing::info!(verdict = label, reason, seconds, "verdict");
                }
                if !release.is_empty() {
                    tracing::debug!(runs = release.len(), "handed back unstarted");
                }
                return;
            }
            Err(e) => {
                tracing::warn!(error = %e, attempt, runs = verdicts.len(), "cannot write the verdicts");
                tokio::time::sleep(WORKER_POLL_INTERVAL * (attempt + 1)).await;
            }
        }
    }
}

/// A verdict's metric labels: the state, and `finished` / `unfinished` or the reject kind.
fn labels(verdict: &Verdict) -> (&'static str, &str) {
    match verdict {
        Verdict::Verified { finish_tick, .. } => (
            RunState::Verified.as_str(),
            if finish_tick.is_some() {
                "finished"
            } else {
                "unfinished"
            },
        ),
        Verdict::Rejected { kind, .. } => (RunState::Rejected.as_str(), kind.as_str()),
    }
}

/// Re-simulates a replay; the verdict is only what the re-simulation shows. Runs the
/// verifier with an `on_tick` that records the splits and nothing else (no positions, no
/// snapshots): the same verdict as loading the replay as a `Ghost` and taking its first
/// player's splits, at the cost of the re-simulation alone.
pub fn verify(verifier: &Verifier, bytes: &[u8]) -> Verdict {
    let mut splits = SplitRecorder::default();
    match verifier.verify_with(bytes, |sim| splits.observe(sim)) {
        Ok(verified) => {
            if let Some(rejected) = not_single_player(&verified) {
                return rejected;
            }
            Verdict::Verified {
                ticks: verified.ticks,
                finish_tick: verified.finish[0],
                splits: splits_json(splits.player(0)),
                final_hash: verified.final_hash,
                realtime: false,
                realtime_note: None,
            }
        }
        Err(found) => {
            let problem = first_problem(verifier, bytes, found);
            Verdict::Rejected {
                kind: problem.kind().into(),
                reason: problem.to_string(),
            }
        }
    }
}

/// A leaderboard run has exactly one player: the rejection of a verified replay with more.
fn not_single_player(verified: &pogo_replay::Verified) -> Option<Verdict> {
    (verified.finish.len() != 1).then(|| Verdict::Rejected {
        kind: "not_single_player".into(),
        reason: format!(
            "a leaderboard run has exactly one player; this replay has {}",
            verified.finish.len()
        ),
    })
}

/// The problem a replay is rejected for when it has several: a malformed byte anywhere in the
/// file comes first (a `Ghost` decodes the whole file before simulating, and verdicts were
/// written that way), then what the streaming verifier found — a header that does not match,
/// the budget, a desync. Only a refused replay pays for the decoding (no simulation).
fn first_problem(verifier: &Verifier, bytes: &[u8], found: VerifyError) -> VerifyError {
    if matches!(found, VerifyError::Replay(_)) {
        // The stream stopped at the first malformed byte: the same one decoding stops at.
        return found;
    }
    match Replay::decode(bytes, verifier.limits()) {
        Err(malformed) => malformed.into(),
        Ok(_) => found,
    }
}

/// [`verify`], and for a run uploaded under a run ticket, the judgment of its commitments
/// ([`realtime::judge`], with `slack_ms`): `realtime` and, if not, `realtime_note`. Without a
/// ticket, [`verify`] itself (the light path); with one, the run is loaded as a [`Ghost`] to
/// seek the committed states.
///
/// The state hashes the commitments are compared with are the ghost's: the state before the
/// first tick (`seek(0)`) and after each split's tick `t` (`seek(t + 1)`, at most
/// `SNAPSHOT_INTERVAL` ticks re-simulated from the nearest snapshot per split), the same
/// states the verification went through. Measured 2026-12-03 on `samples/course-bot.pogo`
/// (3 294 ticks, 5 splits; release build, medians of 41, one sitting on a loaded 2-core
/// machine): `Ghost::load` 0.52 ms, with the ticket's seeks 0.70 ms (×1.35).
pub fn verify_ticketed(
    verifier: &Verifier,
    bytes: &[u8],
    ticket: Option<&RunTicket>,
    slack_ms: i64,
) -> Verdict {
    let Some(ticket) = ticket else {
        return verify(verifier, bytes);
    };
    match Ghost::load(bytes, verifier) {
        Ok(ghost) => {
            let verified = ghost.verified();
            if let Some(rejected) = not_single_player(verified) {
                return rejected;
            }
            let rules = realtime::Rules {
                rate: verifier.tuning().spec().tick_rate,
                slack_ms,
            };
            let splits = ghost.splits(0);
            let run = realtime::Resimulated {
                start_hash: ghost.seek(0).state_hash(),
                splits: splits.iter().map(|s| (s.checkpoint, s.tick.0)).collect(),
                split_hashes: splits
                    .iter()
                    .map(|s| ghost.seek(s.tick.0 + 1).state_hash())
                    .collect(),
            };
            let (realtime, realtime_note) =
                match realtime::judge(rules, ticket.go_ms, &ticket.commits, &run) {
                    Ok(()) => (true, None),
                    Err(note) => (false, Some(note)),
                };
            Verdict::Verified {
                ticks: verified.ticks,
                finish_tick: verified.finish[0],
                splits: splits_json(ghost.splits(0)),
                final_hash: verified.final_hash,
                realtime,
                realtime_note,
            }
        }
        Err(found) => {
            let problem = first_problem(verifier, bytes, found);
            Verdict::Rejected {
                kind: problem.kind().into(),
                reason: problem.to_string(),
            }
        }
    }
}

/// Splits as stored: `[{"checkpoint": 0, "tick": 812}, …, {"checkpoint": null, "tick": 3455}]`.
pub fn splits_json(splits: &[Split]) -> String {
    let list: Vec<_> = splits
        .iter()
        .map(|s| json!({"checkpoint": s.checkpoint, "tick": s.tick.0}))
        .collect();
    serde_json::Value::Array(list).to_string()
}
