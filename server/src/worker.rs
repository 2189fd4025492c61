//! The verification workers: a fixed number of tasks (one per core by default), each
//! claiming one run at a time from the database, re-simulating it on a blocking thread with
//! the verifier's budget (`Limits`: player-ticks, hash interval, wall-clock bound) and
//! writing the verdict under its claim. At most `workers` verifications run at once, in
//! this process; several processes on one PostgreSQL database share the queue.
//!
//! Exactly once: a verdict is written by one `UPDATE` conditional on the claim still being
//! the run's latest (owner and attempt number). A worker that dies mid-way leaves the run
//! `verifying` under a lease; when the lease expires, any worker claims it again, and the
//! dead worker's verdict, should it ever come, is refused. Verification is deterministic, so
//! whichever claim writes, the verdict is the same.

use std::time::Instant;

use pogo_replay::{Ghost, Split, Verifier};
use serde_json::json;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::limits::{CLAIM_ATTEMPTS_MAX, WORKER_POLL_INTERVAL};
use crate::realtime;
use crate::state::AppState;
use crate::store::{Claim, RunState, RunTicket, Verdict};
use crate::times::now_ms;

/// Starts the workers; they stop claiming when `stop` turns true and end after their
/// current run.
pub fn spawn(state: &AppState, stop: &watch::Receiver<bool>) -> Vec<JoinHandle<()>> {
    (0..state.workers)
        .map(|index| tokio::spawn(work(state.clone(), index, stop.clone())))
        .collect()
}

async fn work(state: AppState, index: usize, mut stop: watch::Receiver<bool>) {
    let owner = format!("{}#{index}", state.instance);
    let lease_ms = i64::try_from(state.lease.as_millis()).unwrap_or(i64::MAX);
    loop {
        if *stop.borrow() {
            return;
        }
        match state.store.claim(&owner, now_ms(), lease_ms).await {
            Ok(Some(claim)) => verify_claimed(&state, claim).await,
            Ok(None) => {
                tokio::select! {
                    _ = state.work.notified() => {}
                    _ = tokio::time::sleep(WORKER_POLL_INTERVAL) => {}
                    _ = stop.changed() => {}
                }
            }
            Err(e) => {
                tracing::warn!(worker = %owner, error = %e, "cannot claim a run");
                tokio::select! {
                    _ = tokio::time::sleep(WORKER_POLL_INTERVAL * 4) => {}
                    _ = stop.changed() => {}
                }
            }
        }
    }
}

#[tracing::instrument(skip_all, fields(run = claim.run_id, attempt = claim.attempt))]
async fn verify_claimed(state: &AppState, claim: Claim) {
    let started = Instant::now();
    let verdict = if claim.attempt > CLAIM_ATTEMPTS_MAX {
        Verdict::Rejected {
            kind: "abandoned".into(),
            reason: format!("verification was interrupted {CLAIM_ATTEMPTS_MAX} times; given up"),
        }
    } else {
        let bytes = match state.store.replay_bytes(&claim.replay_hash).await {
            Ok(Some(bytes)) => bytes,
            Ok(None) => {
                tracing::error!("the run's replay bytes are missing");
                return;
            }
            Err(e) => {
                // The lease runs out and the run is claimed again.
                tracing::warn!(error = %e, "cannot read the replay");
                return;
            }
        };
        let ticket = match state.store.run_ticket(claim.run_id).await {
            Ok(ticket) => ticket,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the run's ticket");
                return;
            }
        };
        let catalog = state.catalog.clone();
        let slack_ms = state.ticket_slack_ms;
        let verify = move || verify_ticketed(catalog.verifier(), &bytes, ticket.as_ref(), slack_ms);
        match tokio::task::spawn_blocking(verify).await {
            Ok(verdict) => verdict,
            Err(e) => {
                tracing::error!(error = %e, "verification panicked");
                Verdict::Rejected {
                    kind: "internal".into(),
                    reason: "the verifier failed on this replay (a bug: please report it)".into(),
                }
            }
        }
    };
    let seconds = started.elapsed().as_secs_f64();
    let (label, reason) = match &verdict {
        Verdict::Verified { finish_tick, .. } => (
            RunState::Verified.as_str(),
            if finish_tick.is_some() {
                "finished"
            } else {
                "unfinished"
            },
        ),
        Verdict::Rejected { kind, .. } => (RunState::Rejected.as_str(), kind.as_str()),
    };
    // A few tries while the lease lasts: the database may be briefly busy.
    for attempt in 0..3u32 {
        match state.store.write_verdict(&claim, &verdict, now_ms()).await {
            Ok(true) => {
                state.metrics.verdict(label, reason, seconds);
                tracing::info!(verdict = label, reason, seconds, "verdict");
                return;
            }
            Ok(false) => {
                tracing::warn!("claim lost (lease expired, run taken over); verdict dropped");
                return;
            }
            Err(e) => {
                tracing::warn!(error = %e, attempt, "cannot write the verdict");
                tokio::time::sleep(WORKER_POLL_INTERVAL * (attempt + 1)).await;
            }
        }
    }
}

/// Re-simulates a replay; the verdict is only what the re-simulation shows. Loads it as a
/// [`Ghost`] (which verifies it) for the splits. Never real-time (no ticket).
pub fn verify(verifier: &Verifier, bytes: &[u8]) -> Verdict {
    verify_ticketed(verifier, bytes, None, 0)
}

/// [`verify`], and for a run uploaded under a run ticket, the judgment of its commitments
/// ([`realtime::judge`], with `slack_ms`): `realtime` and, if not, `realtime_note`.
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
    match Ghost::load(bytes, verifier) {
        Ok(ghost) => {
            let verified = ghost.verified();
            if verified.finish.len() != 1 {
                return Verdict::Rejected {
                    kind: "not_single_player".into(),
                    reason: format!(
                        "a leaderboard run has exactly one player; this replay has {}",
                        verified.finish.len()
                    ),
                };
            }
            let (realtime, realtime_note) = match ticket {
                None => (false, None),
                Some(ticket) => {
                    let rules = realtime::Rules {
                        rate: verifier.tuning().spec().tick_rate,
                        slack_ms,
                        start_window_ms: realtime::START_WINDOW_MS,
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
                    match realtime::judge(rules, ticket.issued_ms, &ticket.commits, &run) {
                        Ok(()) => (true, None),
                        Err(note) => (false, Some(note)),
                    }
                }
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
        Err(e) => Verdict::Rejected {
            kind: e.kind().into(),
            reason: e.to_string(),
        },
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

/// Stored splits back: `(checkpoint, tick)` pairs.
pub fn parse_splits(text: &str) -> Vec<(Option<u32>, u32)> {
    #[derive(serde::Deserialize)]
    struct Stored {
        checkpoint: Option<u32>,
        tick: u32,
    }
    serde_json::from_str::<Vec<Stored>>(text)
        .map(|v| v.into_iter().map(|s| (s.checkpoint, s.tick)).collect())
        .unwrap_or_default()
}
