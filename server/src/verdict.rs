//! The verdict rule: what a replay's re-simulation shows is the one judgment of a run,
//! whichever way it comes — an upload claimed by a worker ([`crate::worker`], which adds a
//! ticket's real-time judgment: [`verify_ticketed`]), a live room's finished run
//! (`live::filer`), an author's run published with a track (`api::tracks`), a past season's
//! run re-stamped by `reverify`. A run is ranked on [`Verified::finish`] alone, never on what
//! the replay claims; a leaderboard run has exactly one player; a replay with several
//! problems is rejected for the first a reader meets (`first_problem`).
//!
//! [`Verified::finish`]: pogo_replay::Verified::finish

use pogo_replay::{Ghost, Replay, Split, SplitRecorder, Verifier, VerifyError};
use serde_json::json;

use crate::realtime;
use crate::store::{RunTicket, Verdict};

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
/// states the verification went through. What the ghost and its seeks cost is in
/// PERFORMANCE.md ("Verification throughput").
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
