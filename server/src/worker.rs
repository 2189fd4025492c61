//! The verification workers: a fixed number of tasks (one per core by default), each
//! claiming a batch of runs at a time from the database (`--verify-batch`, 64 by default),
//! re-simulating them one after the other on a blocking thread with the verifier's budget
//! (`Limits`: player-ticks, hash interval, wall-clock bound) and the verdict rule
//! ([`crate::verdict`]), and writing the batch's verdicts under their claims in one
//! transaction. At most `workers` verifications run at once, in this process; several
//! processes on one PostgreSQL database share the queue.
//!
//! A run gets exactly one verdict, whatever dies when. The argument, and what happens when a
//! process dies, a lease expires or a verdict transaction fails, is docs/server.md's "Each
//! run's verdict, exactly once"; in short:
//!
//! - **Claims** ([`Queue::claim_batch`](crate::store::Queue::claim_batch)) lease up to N runs
//!   to this worker and number each claim; two claims never get the same run.
//! - **Fencing**: a verdict, or handing a run back, is written only under the run's latest
//!   claim, and only while the run is `verifying`.
//! - **One transaction per batch**
//!   ([`Queue::write_verdicts`](crate::store::Queue::write_verdicts)): the batch's verdicts
//!   and the hand-back of its runs not started.
//! - **The lease covers the batch**: a run starts only if, at the verifier's wall-clock
//!   bound, it would end within [`VERIFY_BATCH_LEASE_FRACTION`] of the lease.
//! - **One batch ahead**: while a batch is re-simulated, the next is claimed and the one
//!   before commits.
//! - A run claimed more than [`CLAIM_ATTEMPTS_MAX`] times is rejected `abandoned` unsimulated.
//! - A verification that only the wall clock stopped (the process paused mid-way) is judged
//!   again, not rejected ([`crate::verdict`]), while its claim would outlast the try; one
//!   stopped so on every try it gets is handed back to the queue, its claim not counted.
//!
//! A run uploaded under a run ticket is judged real-time or not with its verdict
//! ([`verify_ticketed`]): the batch's tickets and their commitments are read with its bytes.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pogo_replay::Verifier;
use sha2::{Digest, Sha256};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use crate::catalog::{Catalog, Hidden};
use crate::limits::{CLAIM_ATTEMPTS_MAX, VERIFY_BATCH_LEASE_FRACTION, WORKER_POLL_INTERVAL};
use crate::metrics::Metrics;
use crate::shutdown::Shutdown;
use crate::store::{Claim, ClaimRead, RunState, RunTicket, Store, StoreError, Verdict};
use crate::times::now_ms;
use crate::verdict::{Starved, verify_ticketed};

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
        // On the queue lane's threads, on what the relay leaves idle (`lanes`).
        let verifying = crate::lanes::run(crate::lanes::Lane::Queue, move || {
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
    // A starved verification is tried again by the rule that starts a run after the first:
    // only if, at the bound, the try would end within the horizon (`verdict::Starved`).
    let retry_by = claimed_at.checked_add(horizon).unwrap_or(claimed_at);
    let mut verdicts = Vec::with_capacity(claims.len());
    // Verifications the machine starved (`verdict::Starved`): handed back, not judged.
    let mut starved = Vec::new();
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
            let mut unstarted = starved;
            unstarted.push(claim);
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
            let verify = || verify_ticketed(verifier, &bytes, ticket.as_ref(), slack_ms, retry_by);
            match std::panic::catch_unwind(AssertUnwindSafe(verify)) {
                Ok(Ok(verdict)) => verdict,
                // Starved of CPU on every try (the relay kept the cores busy): the run goes
                // back to the queue, its attempt not counted, rather than be rejected for
                // the machine's load.
                Ok(Err(Starved { tries, .. })) => {
                    tracing::warn!(
                        run = claim.run_id,
                        tries,
                        claim_ms = claimed_at.elapsed().as_millis() as u64,
                        "starved of CPU on every try: handed back to the queue"
                    );
                    starved.push(claim);
                    continue;
                }
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
        unstarted: starved,
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
