//! The verdict rule: what a replay's re-simulation shows is the one judgment of a run,
//! whichever way it comes — an upload claimed by a worker ([`crate::worker`], which adds a
//! ticket's real-time judgment: [`verify_ticketed`]), a live room's finished run
//! (`live::filer`), an author's run published with a track (`api::tracks`), a past season's
//! run re-stamped by `reverify`. A run is ranked on [`Verified::finish`] alone, never on what
//! the replay claims; a leaderboard run has exactly one player; a replay with several
//! problems is rejected for the first a reader meets (`first_problem`). A verification that
//! only the wall clock stopped (a paused or starved process) is judged again (`unstalled`).
//!
//! [`Verified::finish`]: pogo_replay::Verified::finish

use std::time::{Duration, Instant};

use pogo_replay::{Ghost, Replay, Split, SplitRecorder, Verifier, VerifyError};
use serde_json::json;

use crate::realtime;
use crate::store::{RunTicket, Verdict};

/// Re-simulates a replay; the verdict is only what the re-simulation shows. Runs the
/// verifier with an `on_tick` that records the splits and nothing else (no positions, no
/// snapshots): the same verdict as loading the replay as a `Ghost` and taking its first
/// player's splits, at the cost of the re-simulation alone.
///
/// A verification the wall clock alone stopped is judged again (`unstalled`).
pub fn verify(verifier: &Verifier, bytes: &[u8]) -> Verdict {
    unstalled(verifier, || verify_once(verifier, bytes))
}

/// [`verify`], once.
fn verify_once(verifier: &Verifier, bytes: &[u8]) -> Verdict {
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

/// Most tries of one verification that the wall clock alone stops ([`unstalled`]).
const STALLED_TRIES: u32 = 3;

/// `judge`'s verdict, judged again while it is only the wall clock's ([`stalled`]), at most
/// [`STALLED_TRIES`] times in all.
///
/// The verifier's wall-clock bound (`--duration-ms-max`) is a last line of defence against
/// a replay too costly to re-simulate. A process paused mid-verification (`SIGSTOP`, a
/// virtual machine migrated) or starved of CPU passes it while the verification's thread
/// does nothing, and judged on it a fair run was rejected `out_of_time` for good: an
/// upload, or a live race's finished run, which then was not filed. A replay that does take
/// the bound's CPU time is rejected as before; so is one a machine starves three times over.
fn unstalled(verifier: &Verifier, judge: impl FnMut() -> Verdict) -> Verdict {
    unstalled_or_starved(verifier, None, judge).unwrap_or_else(|starved| starved.verdict)
}

/// A verification stalled on every one of its tries (three, or fewer where another would
/// not end in time: [`verify_ticketed`]): the wall-clock bound's rejection (`out_of_time`),
/// which says nothing of the replay. The upload queue's worker, whose verifications run only
/// on CPU the relay leaves idle (`lanes`), hands such a run back to the queue rather than
/// reject it.
#[derive(Clone, Debug, PartialEq)]
pub struct Starved {
    /// The last try's verdict.
    pub verdict: Verdict,
    /// How many tries were made.
    pub tries: u32,
}

/// [`unstalled`], telling a verification starved on every try apart, and trying again only
/// if the try would end by `retry_by` (if given) at the verifier's wall-clock bound.
fn unstalled_or_starved(
    verifier: &Verifier,
    retry_by: Option<Instant>,
    mut judge: impl FnMut() -> Verdict,
) -> Result<Verdict, Starved> {
    let Some(bound) = verifier.limits().duration_max else {
        return Ok(judge());
    };
    let mut tries = 1;
    loop {
        let begun = thread_cpu_time();
        let verdict = judge();
        let used = begun
            .zip(thread_cpu_time())
            .map(|(a, b)| b.saturating_sub(a));
        if !stalled(&verdict, used, bound) {
            return Ok(verdict);
        }
        let too_late =
            retry_by.is_some_and(|by| Instant::now().checked_add(bound).is_none_or(|end| end > by));
        if tries == STALLED_TRIES || too_late {
            return Err(Starved { verdict, tries });
        }
        tracing::warn!(
            cpu_ms = used.unwrap_or_default().as_millis() as u64,
            "out of time by the wall clock, not by its own work (the process was paused or \
             starved of CPU): verified again"
        );
        tries += 1;
    }
}

/// Whether `verdict` is the verifier's wall-clock bound (`out_of_time`) reached by a
/// verification whose thread used less CPU time than the bound (`cpu_used`; `None` where it
/// cannot be read): a verdict that says nothing of the replay.
fn stalled(verdict: &Verdict, cpu_used: Option<Duration>, bound: Duration) -> bool {
    let out_of_time = VerifyError::OutOfTime { max_ms: 0 }.kind();
    matches!(verdict, Verdict::Rejected { kind, .. } if kind == out_of_time)
        && cpu_used.is_some_and(|used| used < bound)
}

/// The CPU time the calling thread has used (`None` where it cannot be read).
fn thread_cpu_time() -> Option<Duration> {
    #[cfg(unix)]
    {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        Some(Duration::new(
            u64::try_from(t.tv_sec).ok()?,
            u32::try_from(t.tv_nsec).ok()?,
        ))
    }
    #[cfg(not(unix))]
    None
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
///
/// A verification the wall clock alone stopped is judged again (`unstalled`), but only if,
/// at the verifier's wall-clock bound, the next try would end by `retry_by` (the worker's
/// claim must outlast it: a try past the lease would let another worker take the run over,
/// and a run taken over often enough is given up); one stopped so on every try it had is
/// [`Starved`], not judged.
pub fn verify_ticketed(
    verifier: &Verifier,
    bytes: &[u8],
    ticket: Option<&RunTicket>,
    slack_ms: i64,
    retry_by: Instant,
) -> Result<Verdict, Starved> {
    unstalled_or_starved(verifier, Some(retry_by), || {
        verify_ticketed_once(verifier, bytes, ticket, slack_ms)
    })
}

/// [`verify_ticketed`], once.
fn verify_ticketed_once(
    verifier: &Verifier,
    bytes: &[u8],
    ticket: Option<&RunTicket>,
    slack_ms: i64,
) -> Verdict {
    let Some(ticket) = ticket else {
        return verify_once(verifier, bytes);
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

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use pogo_core::Tuning;
    use pogo_replay::Limits;

    use super::*;

    fn rejected(kind: &str) -> Verdict {
        Verdict::Rejected {
            kind: kind.into(),
            reason: String::new(),
        }
    }

    /// Starved after `tries` tries, each out of time by the wall clock.
    fn starved(tries: u32) -> Starved {
        Starved {
            verdict: rejected("out_of_time"),
            tries,
        }
    }

    fn verified() -> Verdict {
        Verdict::Verified {
            ticks: 1,
            finish_tick: None,
            splits: String::new(),
            final_hash: 0,
            realtime: false,
            realtime_note: None,
        }
    }

    fn bounded(bound: Duration) -> Verifier {
        let limits = Limits {
            duration_max: Some(bound),
            ..Limits::default()
        };
        Verifier::with_builtin_levels(Tuning::default(), limits)
    }

    /// Keeps this thread at work for `span` of its own CPU time.
    fn work_for(span: Duration) {
        let begun = thread_cpu_time().unwrap();
        let mut x = 0u64;
        while thread_cpu_time().unwrap() - begun < span {
            x = std::hint::black_box(x.wrapping_add(1));
        }
    }

    #[test]
    fn only_a_wall_clock_timeout_without_the_work_is_stalled() {
        let bound = Duration::from_millis(1000);
        let short = Some(Duration::from_millis(3));
        assert!(stalled(&rejected("out_of_time"), short, bound));
        // The replay did take the bound's CPU time: its verdict stands.
        assert!(!stalled(&rejected("out_of_time"), Some(bound), bound));
        // No CPU clock here: the wall clock's verdict stands.
        assert!(!stalled(&rejected("out_of_time"), None, bound));
        assert!(!stalled(&rejected("desync"), short, bound));
        assert!(!stalled(&verified(), short, bound));
    }

    /// A stalled verification is judged again, at most three times in all; one that took
    /// the bound's CPU time, or any other verdict, is not.
    #[cfg(unix)]
    #[test]
    fn a_stalled_verification_is_judged_again_a_few_times_at_most() {
        let verifier = bounded(Duration::from_millis(20));
        let mut calls = 0;
        let verdict = unstalled(&verifier, || {
            calls += 1;
            if calls == 1 {
                rejected("out_of_time")
            } else {
                verified()
            }
        });
        assert_eq!(
            (calls, verdict),
            (2, verified()),
            "paused once, then verified"
        );
        let mut calls = 0;
        let verdict = unstalled(&verifier, || {
            calls += 1;
            rejected("out_of_time")
        });
        assert_eq!(
            (calls, verdict),
            (3, rejected("out_of_time")),
            "starved every time"
        );
        // The same, told apart: starved, not judged.
        let mut calls = 0;
        let verdict = unstalled_or_starved(&verifier, None, || {
            calls += 1;
            rejected("out_of_time")
        });
        assert_eq!(verdict, Err(starved(3)));
        assert_eq!(calls, 3);
        // Tried again only while another try at the bound (20 ms) would end by `retry_by`:
        // 10 ms away, not at all; a minute away, up to three tries in all.
        for (away, tries) in [(Duration::from_millis(10), 1), (Duration::from_secs(60), 3)] {
            let mut calls = 0;
            let retry_by = Some(Instant::now() + away);
            let verdict = unstalled_or_starved(&verifier, retry_by, || {
                calls += 1;
                rejected("out_of_time")
            });
            assert_eq!(
                (calls, verdict),
                (tries, Err(starved(tries))),
                "{away:?} away"
            );
        }
        let verdict = unstalled_or_starved(&verifier, None, || {
            work_for(Duration::from_millis(25));
            rejected("out_of_time")
        });
        assert_eq!(verdict, Ok(rejected("out_of_time")), "too costly: judged");
        let mut calls = 0;
        let verdict = unstalled(&verifier, || {
            calls += 1;
            work_for(Duration::from_millis(25));
            rejected("out_of_time")
        });
        assert_eq!((calls, verdict), (1, rejected("out_of_time")), "too costly");
        let mut calls = 0;
        let verdict = unstalled(&verifier, || {
            calls += 1;
            rejected("desync")
        });
        assert_eq!((calls, verdict), (1, rejected("desync")));
        // No wall-clock bound: nothing to tell apart.
        let free = Verifier::with_builtin_levels(Tuning::default(), Limits::default());
        let mut calls = 0;
        let verdict = unstalled(&free, || {
            calls += 1;
            rejected("out_of_time")
        });
        assert_eq!((calls, verdict), (1, rejected("out_of_time")));
    }

    /// The thread's CPU clock counts its work, and not a sleep (what a pause looks like to
    /// it).
    #[cfg(unix)]
    #[test]
    fn the_thread_cpu_clock_counts_work_not_sleep() {
        let cpu = || thread_cpu_time().unwrap();
        let before = cpu();
        std::thread::sleep(Duration::from_millis(200));
        let slept = cpu() - before;
        assert!(slept < Duration::from_millis(100), "asleep: {slept:?}");
        let before = cpu();
        let spin = Instant::now();
        let mut x = 0u64;
        while spin.elapsed() < Duration::from_millis(200) {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let worked = cpu() - before;
        // A busy machine may take the CPU from the spin for part of its 200 ms.
        assert!(worked > Duration::from_millis(20), "at work: {worked:?}");
    }
}
