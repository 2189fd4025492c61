//! Whether a run was played in real time: the judgment of a run ticket's commitments against
//! the run's re-simulation, as a pure function ([`judge`]).
//!
//! ## The protocol
//!
//! A play session asks for a run ticket before its countdown (`POST
//! /api/levels/{level}/tickets`, the player's token); the server notes the time, **T0**
//! (its own clock, Unix ms). As the run goes, the page posts *commitments* to the ticket, each
//! the moment it happens: `start` at GO (tick 0, the state hash before the first tick), one
//! per checkpoint split and one at the finish (the split's tick, the state hash after that
//! tick). The server stamps each with its own clock on arrival, **W_k**. The replay is
//! uploaded later (at once, or days later after an outage) and names the ticket; the
//! verifier re-simulates it and this module judges.
//!
//! With `rate` ticks per second and the game time of tick `t` taken as `t · 1000 / rate` ms
//! (the tick's start: generous by one tick, 17 ms at 60 Hz), a run is **real-time** iff
//!
//! - the start came within the start window of the ticket's issue (`W_start − T0 ≤
//!   start_window_ms`, which covers the countdown);
//! - the committed ticks are exactly the run's splits, in order: every checkpoint split and
//!   the finish as the verifier found them; a missing or extra commitment fails;
//! - every committed hash is the re-simulation's state hash at that tick (so the uploaded
//!   replay is the run that was committed to: another replay cannot reproduce them);
//! - no commitment is sooner than possible: `W_k − T0 ≥ t_k · 1000 / rate`;
//! - none is later than allowed: `W_k − W_start ≤ t_k · 1000 / rate + slack_ms`
//!   (`--ticket-slack-ms`, default [`SLACK_MS_DEFAULT`]).
//!
//! Everything is compared in integers (`(W_k − T0) · rate ≥ t_k · 1000`), so a commitment
//! exactly on a bound passes and one millisecond past it fails.
//!
//! ## What it proves, and what it does not
//!
//! It proves that the commitments were produced on a schedule consistent with real-time
//! play, by something holding the player's token, and that the uploaded replay is the run
//! committed to. A game slowed down, even in one section, falls behind the wall clock by the
//! time it lost, and every later commitment is late by at least that: past the slack, the
//! run is not real-time. The slack bounds the slowdown a cheater can bank: at most
//! `slack_ms` of extra thinking time over the whole run.
//!
//! It does **not** prove that a human played: a bot playing in real time passes. It does not
//! stop a tool that computes the inputs ahead (a tool-assisted run) and then plays them back
//! at real speed under a fresh ticket. The clock trusted is the server's alone; a client's
//! clock is never read. Network delay counts against the player (it must fit in the slack).
//! Runs that are not real-time still verify and rank on the open board.

/// Default slack (ms): how much later than its game time since the start a commitment may
/// arrive. Covers a frame, a network round trip and a browser's hiccup; bounds the time a
/// slowed-down game can bank.
pub const SLACK_MS_DEFAULT: u64 = 1500;

/// Default start window (ms): how long after a ticket's issue its start may be committed.
/// Covers the page's 3 s countdown with a wide margin (a slow level load, a player who looks
/// away before pressing on).
pub const START_WINDOW_MS: i64 = 60_000;

/// What a commitment marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CommitKind {
    /// GO: tick 0, the state before the first tick.
    Start,
    /// A checkpoint reached for the first time: its split's tick, the state after it.
    Checkpoint,
    /// The finish: the finish tick, the state after it.
    Finish,
}

impl CommitKind {
    pub const ALL: [CommitKind; 3] = [
        CommitKind::Start,
        CommitKind::Checkpoint,
        CommitKind::Finish,
    ];

    /// The name in the API and in `ticket_commits.kind`.
    pub const fn as_str(self) -> &'static str {
        match self {
            CommitKind::Start => "start",
            CommitKind::Checkpoint => "checkpoint",
            CommitKind::Finish => "finish",
        }
    }

    /// The kind named `name`, if any.
    pub fn parse(name: &str) -> Option<CommitKind> {
        CommitKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

/// One commitment, as received.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Commit {
    pub kind: CommitKind,
    /// The tick: 0 for the start, the split's tick otherwise (ticks counted from 0).
    pub tick: u32,
    /// The state hash the page had at that tick.
    pub hash: u64,
    /// When it arrived: the server's clock, Unix ms.
    pub received_ms: i64,
}

/// The timing rules: the tick rate and the operator's bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// Ticks per second.
    pub rate: u32,
    /// Milliseconds a commitment may arrive after its game time since the start.
    pub slack_ms: i64,
    /// Milliseconds after the ticket's issue within which the start must arrive.
    pub start_window_ms: i64,
}

/// What the re-simulation of the uploaded replay showed, for judging commitments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resimulated {
    /// The state hash before the first tick (what `start` commits to).
    pub start_hash: u64,
    /// The splits, in order: `(checkpoint, tick)`, checkpoint `None` for the finish.
    pub splits: Vec<(Option<u32>, u32)>,
    /// The state hash after each split's tick, in the same order.
    pub split_hashes: Vec<u64>,
}

/// `Ok` if the run was played in real time; else why not, for a human (one sentence).
pub fn judge(
    rules: Rules,
    issued_ms: i64,
    commits: &[Commit],
    run: &Resimulated,
) -> Result<(), String> {
    let rate = i64::from(rules.rate.max(1));
    let Some((start, rest)) = commits.split_first() else {
        return Err("no commitment arrived: the start was never committed".into());
    };
    if start.kind != CommitKind::Start || start.tick != 0 {
        return Err(format!(
            "the first commitment is a {} at tick {}, not the start at tick 0",
            start.kind.as_str(),
            start.tick
        ));
    }
    let waited = start.received_ms - issued_ms;
    if waited > rules.start_window_ms {
        return Err(format!(
            "the start was committed {} after the ticket was issued (at most {} allowed)",
            seconds(waited),
            seconds(rules.start_window_ms)
        ));
    }
    if start.hash != run.start_hash {
        return Err("the start's committed state hash is not the level's starting state".into());
    }
    // The rest must be the splits, one for one.
    for (i, split) in run.splits.iter().enumerate() {
        let name = split_name(split.0);
        let Some(commit) = rest.get(i) else {
            return Err(format!("{name} (tick {}) was never committed", split.1));
        };
        let kind = if split.0.is_some() {
            CommitKind::Checkpoint
        } else {
            CommitKind::Finish
        };
        if commit.kind != kind || commit.tick != split.1 {
            return Err(format!(
                "commitment {} is a {} at tick {}, but the run's split there is {name} at tick {}",
                i + 2,
                commit.kind.as_str(),
                commit.tick,
                split.1
            ));
        }
        if commit.hash != run.split_hashes.get(i).copied().unwrap_or(!commit.hash) {
            return Err(format!(
                "{name}'s committed state hash (tick {}) is not the replay's: the replay is not the run committed to",
                split.1
            ));
        }
    }
    if let Some(extra) = rest.get(run.splits.len()) {
        return Err(format!(
            "a {} at tick {} was committed, but the run has no such split",
            extra.kind.as_str(),
            extra.tick
        ));
    }
    // Timing, in integers: elapsed_ms · rate against tick · 1000.
    for (i, commit) in commits.iter().enumerate() {
        let name = if i == 0 {
            "the start".to_string()
        } else {
            split_name(run.splits[i - 1].0)
        };
        let game = i64::from(commit.tick) * 1000;
        let since_issue = commit.received_ms - issued_ms;
        if since_issue * rate < game {
            return Err(format!(
                "{name} was committed {} after the ticket was issued, sooner than its game time ({}) allows",
                seconds(since_issue),
                seconds(game / rate)
            ));
        }
        let since_start = commit.received_ms - start.received_ms;
        if (since_start - rules.slack_ms) * rate > game {
            // Game time rounded up to the ms (game ≥ 0, rate ≥ 1).
            let late = since_start - (game + rate - 1) / rate;
            return Err(format!(
                "{name} was committed {} after its game time since the start (at most {} allowed)",
                seconds(late),
                seconds(rules.slack_ms)
            ));
        }
    }
    Ok(())
}

/// "checkpoint 2" (the level's index) or "the finish".
fn split_name(checkpoint: Option<u32>) -> String {
    match checkpoint {
        Some(i) => format!("checkpoint {i}"),
        None => "the finish".into(),
    }
}

/// Milliseconds as seconds for a human: `3.4 s`, `0.001 s`.
fn seconds(ms: i64) -> String {
    let sign = if ms < 0 { "-" } else { "" };
    let ms = ms.unsigned_abs();
    let text = format!("{}.{:03}", ms / 1000, ms % 1000);
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{sign}{text} s")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const RULES: Rules = Rules {
        rate: 60,
        slack_ms: 1500,
        start_window_ms: 60_000,
    };
    const T0: i64 = 1_000_000;
    /// GO 3 s after the issue (the countdown).
    const GO: i64 = T0 + 3000;

    /// A run with checkpoints 0 and 1 at ticks 600 and 1200, the finish at 1800.
    fn run() -> Resimulated {
        Resimulated {
            start_hash: 0xaa,
            splits: vec![(Some(0), 600), (Some(1), 1200), (None, 1800)],
            split_hashes: vec![0xb0, 0xb1, 0xbf],
        }
    }

    /// The commitments of `run` played at real speed, each arriving `delay_ms` after its
    /// game time since GO (the start `delay_ms` after GO too).
    fn honest(run: &Resimulated, delay_ms: i64) -> Vec<Commit> {
        let mut commits = vec![Commit {
            kind: CommitKind::Start,
            tick: 0,
            hash: run.start_hash,
            received_ms: GO,
        }];
        for (&(checkpoint, tick), &hash) in run.splits.iter().zip(&run.split_hashes) {
            commits.push(Commit {
                kind: if checkpoint.is_some() {
                    CommitKind::Checkpoint
                } else {
                    CommitKind::Finish
                },
                tick,
                hash,
                received_ms: GO + i64::from(tick) * 1000 / 60 + delay_ms,
            });
        }
        commits
    }

    #[test]
    fn a_run_played_at_real_speed_is_real_time() {
        assert_eq!(judge(RULES, T0, &honest(&run(), 40), &run()), Ok(()));
        assert_eq!(judge(RULES, T0, &honest(&run(), 0), &run()), Ok(()));
    }

    #[test]
    fn exactly_at_the_slack_bound_passes_one_ms_over_fails() {
        let mut commits = honest(&run(), 0);
        // Tick 1200 is exactly 20 000 ms of game time: the bound is GO + 21 500.
        commits[2].received_ms = GO + 20_000 + 1500;
        assert_eq!(judge(RULES, T0, &commits, &run()), Ok(()));
        commits[2].received_ms += 1;
        assert_eq!(
            judge(RULES, T0, &commits, &run()).unwrap_err(),
            "checkpoint 1 was committed 1.501 s after its game time since the start (at most 1.5 s allowed)"
        );
        // A tick whose game time is not a whole ms (601 ticks = 10 016.67 ms): the bound is
        // 10 016.67 + 1500, so 11 516 passes and 11 517 fails.
        let mut odd = run();
        odd.splits[0].1 = 601;
        let mut commits = honest(&odd, 0);
        commits[1].received_ms = GO + 11_516;
        assert_eq!(judge(RULES, T0, &commits, &odd), Ok(()));
        commits[1].received_ms = GO + 11_517;
        assert!(judge(RULES, T0, &commits, &odd).is_err());
    }

    #[test]
    fn sooner_than_game_time_fails_exactly_at_it_passes() {
        let mut commits = honest(&run(), 0);
        // The finish (tick 1800 = 30 s) arriving 30 s after the issue: possible (a start
        // the instant the ticket was issued), so it passes…
        for c in &mut commits {
            c.received_ms -= 3000;
        }
        assert_eq!(judge(RULES, T0, &commits, &run()), Ok(()));
        // …one ms sooner does not.
        commits[3].received_ms -= 1;
        assert_eq!(
            judge(RULES, T0, &commits, &run()).unwrap_err(),
            "the finish was committed 29.999 s after the ticket was issued, sooner than its game time (30 s) allows"
        );
    }

    #[test]
    fn a_section_played_slowly_makes_every_later_commit_late() {
        // 2 s lost between checkpoint 0 and 1: both later commitments are 2 s late.
        let mut commits = honest(&run(), 100);
        for c in &mut commits[2..] {
            c.received_ms += 2000;
        }
        let note = judge(RULES, T0, &commits, &run()).unwrap_err();
        assert_eq!(
            note,
            "checkpoint 1 was committed 2.1 s after its game time since the start (at most 1.5 s allowed)"
        );
    }

    #[test]
    fn a_missing_checkpoint_an_extra_commit_a_wrong_hash_fail() {
        let mut missing = honest(&run(), 0);
        missing.remove(2);
        assert!(judge(RULES, T0, &missing, &run()).unwrap_err().starts_with(
            "commitment 3 is a finish at tick 1800, but the run's split there is checkpoint 1"
        ));
        let mut no_finish = honest(&run(), 0);
        no_finish.pop();
        assert_eq!(
            judge(RULES, T0, &no_finish, &run()).unwrap_err(),
            "the finish (tick 1800) was never committed"
        );
        let mut extra = honest(&run(), 0);
        let mut more = extra[3];
        more.tick = 1900;
        extra.push(more);
        assert_eq!(
            judge(RULES, T0, &extra, &run()).unwrap_err(),
            "a finish at tick 1900 was committed, but the run has no such split"
        );
        let mut wrong = honest(&run(), 0);
        wrong[1].hash ^= 1;
        assert!(
            judge(RULES, T0, &wrong, &run())
                .unwrap_err()
                .starts_with("checkpoint 0's committed state hash (tick 600) is not the replay's")
        );
        let mut wrong_start = honest(&run(), 0);
        wrong_start[0].hash ^= 1;
        assert!(judge(RULES, T0, &wrong_start, &run()).is_err());
        let mut shifted = honest(&run(), 0);
        shifted[1].tick += 1;
        assert!(judge(RULES, T0, &shifted, &run()).is_err());
    }

    #[test]
    fn the_start_must_come_first_and_within_its_window() {
        assert_eq!(
            judge(RULES, T0, &[], &run()).unwrap_err(),
            "no commitment arrived: the start was never committed"
        );
        let commits = honest(&run(), 0);
        assert!(judge(RULES, T0, &commits[1..], &run()).is_err());
        let mut late = honest(&run(), 0);
        let shift = T0 + 60_000 - late[0].received_ms;
        for c in &mut late {
            c.received_ms += shift;
        }
        assert_eq!(judge(RULES, T0, &late, &run()), Ok(()));
        for c in &mut late {
            c.received_ms += 1;
        }
        assert_eq!(
            judge(RULES, T0, &late, &run()).unwrap_err(),
            "the start was committed 60.001 s after the ticket was issued (at most 60 s allowed)"
        );
    }

    #[test]
    fn an_unfinished_run_is_judged_on_its_checkpoints() {
        let mut unfinished = run();
        unfinished.splits.pop();
        unfinished.split_hashes.pop();
        let mut commits = honest(&run(), 0);
        commits.pop();
        assert_eq!(judge(RULES, T0, &commits, &unfinished), Ok(()));
    }

    #[test]
    fn seconds_read_plainly() {
        assert_eq!(seconds(3400), "3.4 s");
        assert_eq!(seconds(1501), "1.501 s");
        assert_eq!(seconds(60_000), "60 s");
        assert_eq!(seconds(-20), "-0.02 s");
    }

    proptest! {
        /// Any delay within the slack (network, frames) passes; any delay past it fails, on
        /// whichever commitment it falls.
        #[test]
        fn delay_within_slack_passes_past_it_fails(
            delays in proptest::collection::vec(0i64..=1500, 3),
            which in 0usize..3,
            over in 1i64..100_000,
        ) {
            let mut commits = honest(&run(), 0);
            for (c, d) in commits[1..].iter_mut().zip(&delays) {
                c.received_ms += d;
            }
            prop_assert_eq!(judge(RULES, T0, &commits, &run()), Ok(()));
            commits[1 + which].received_ms = commits[1 + which].received_ms - delays[which] + 1500 + over;
            prop_assert!(judge(RULES, T0, &commits, &run()).is_err());
        }

        /// A run played faster than real time (game time compressed by any factor) is caught
        /// as too soon, if its start is not delayed: its finish arrives before its game time.
        #[test]
        fn compressed_game_time_is_too_soon(percent in 1i64..90) {
            let mut commits = honest(&run(), 0);
            for c in &mut commits[1..] {
                let game = c.received_ms - GO;
                c.received_ms = T0 + game * percent / 100;
            }
            commits[0].received_ms = T0;
            prop_assert!(judge(RULES, T0, &commits, &run()).is_err());
        }
    }
}
