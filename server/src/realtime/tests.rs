//! The timing rule and the judgment, on exact arrival times: honest runs at the slack's edge
//! pass; every way of banking time a cheater would try fails, whichever way the start is
//! timed.

use super::*;
use proptest::prelude::*;

const RULES: Rules = Rules {
    rate: 60,
    slack_ms: 1500,
};
/// The ticket's GO (the server's clock, Unix ms).
const GO: i64 = 1_000_000;

/// A minute-long run: checkpoints 0 and 1 at ticks 1200 and 2400 (20 s, 40 s), the finish at
/// 3600 (60 s). Long enough that a game slowed by 5 % loses 3 s, twice the slack.
fn run() -> Resimulated {
    Resimulated {
        start_hash: 0xaa,
        splits: vec![(Some(0), 1200), (Some(1), 2400), (None, 3600)],
        split_hashes: vec![0xb0, 0xb1, 0xbf],
    }
}

/// The run's commitments, the start first, each arriving at `arrive(game ms)` (the split's
/// game time since GO: its tick's start).
fn commits(run: &Resimulated, arrive: impl Fn(i64) -> i64) -> Vec<Commit> {
    let mut commits = vec![Commit {
        kind: CommitKind::Start,
        tick: 0,
        hash: run.start_hash,
        received_ms: arrive(0),
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
            received_ms: arrive(i64::from(tick) * 1000 / 60),
        });
    }
    commits
}

/// Played at real speed, each commitment `delay_ms` after its game time since GO.
fn honest(run: &Resimulated, delay_ms: i64) -> Vec<Commit> {
    commits(run, |game| GO + game + delay_ms)
}

#[test]
fn a_run_played_at_real_speed_is_real_time() {
    assert_eq!(judge(RULES, GO, &honest(&run(), 40), &run()), Ok(()));
    assert_eq!(judge(RULES, GO, &honest(&run(), 0), &run()), Ok(()));
}

#[test]
fn every_commitment_at_the_slack_edge_passes_one_ms_past_fails() {
    assert_eq!(judge(RULES, GO, &honest(&run(), 1500), &run()), Ok(()));
    for i in 0..4 {
        let mut commits = honest(&run(), 1500);
        commits[i].received_ms += 1;
        let note = judge(RULES, GO, &commits, &run()).unwrap_err();
        assert!(
            note.ends_with("after its game time since GO (at most 1.5 s allowed)"),
            "{note}"
        );
    }
    // A tick whose game time is not a whole ms (601 ticks = 10 016.67 ms): the bound is
    // GO + 10 016.67 + 1500, so 11 516 passes and 11 517 fails.
    let mut odd = run();
    odd.splits[0].1 = 601;
    let mut commits = honest(&odd, 0);
    commits[1].received_ms = GO + 11_516;
    assert_eq!(judge(RULES, GO, &commits, &odd), Ok(()));
    commits[1].received_ms = GO + 11_517;
    assert_eq!(
        judge(RULES, GO, &commits, &odd).unwrap_err(),
        "CP1 was committed 1.5 s after its game time since GO (at most 1.5 s allowed)"
    );
}

#[test]
fn exactly_at_game_time_passes_one_ms_sooner_fails() {
    let mut commits = honest(&run(), 0);
    assert_eq!(judge(RULES, GO, &commits, &run()), Ok(()));
    commits[3].received_ms -= 1;
    assert_eq!(
        judge(RULES, GO, &commits, &run()).unwrap_err(),
        "the finish was committed 0.001 s before its game time since GO: sooner than the game can run"
    );
}

/// How a cheater times the start, relative to GO.
const STARTS: [(&str, i64); 5] = [
    ("at GO", 0),
    ("at the slack's edge", 1500),
    ("late, as the old start window allowed", 57_000),
    ("late by a second past the slack", 2500),
    ("early", -3000),
];

/// When a split arrives, given its game time (ms): a cheater's schedule.
type Arrival = Box<dyn Fn(i64) -> i64>;

/// The ways to bank time, each the arrival of a split at game time `g` ms (60 s in all).
fn cheats() -> Vec<(&'static str, Arrival)> {
    vec![
        ("slowed 1.05×", Box::new(|g| GO + g * 105 / 100)),
        ("slowed 1.25×", Box::new(|g| GO + g * 125 / 100)),
        ("slowed 2×", Box::new(|g| GO + g * 2)),
        (
            // 20–30 s of game played at half speed (10 s lost), real speed elsewhere.
            "slowed in one section",
            Box::new(|g| GO + g + (g - 20_000).clamp(0, 10_000)),
        ),
        // Every commitment in one burst after playing at half speed (the finish's wall time).
        ("every commitment in a burst", Box::new(|_| GO + 120_000)),
        (
            "every commitment in a burst at the finish's game time",
            Box::new(|_| GO + 60_000),
        ),
        // Every split 1 ms past the slack: a steady lag just over what may be banked.
        (
            "every split 1 ms past the slack",
            Box::new(|g| GO + g + 1501),
        ),
    ]
}

/// The attack matrix: every slowed or bursty schedule, against every way of timing
/// the start, is not real-time; the same schedules at real speed are.
#[test]
fn no_way_of_timing_the_start_banks_more_than_the_slack() {
    for (cheat, arrive) in cheats() {
        for (start, offset) in STARTS {
            let mut commits = commits(&run(), &arrive);
            commits[0].received_ms = GO + offset;
            let verdict = judge(RULES, GO, &commits, &run());
            assert!(verdict.is_err(), "{cheat}, start {start}: judged real-time");
        }
    }
    // The honest schedule with each start timing: on time iff the start is within the slack.
    for (start, offset) in STARTS {
        let mut commits = honest(&run(), 100);
        commits[0].received_ms = GO + offset;
        let verdict = judge(RULES, GO, &commits, &run());
        assert_eq!(
            verdict.is_ok(),
            (0..=1500).contains(&offset),
            "honest, start {start}: {verdict:?}"
        );
    }
}

#[test]
fn the_notes_name_the_first_late_split() {
    // 2 s lost between checkpoint 0 and 1: both later commitments are 2 s late.
    let commits = commits(&run(), |g| GO + g + 100 + if g > 20_000 { 2000 } else { 0 });
    assert_eq!(
        judge(RULES, GO, &commits, &run()).unwrap_err(),
        "CP2 was committed 2.1 s after its game time since GO (at most 1.5 s allowed)"
    );
    let mut late_start = honest(&run(), 0);
    late_start[0].received_ms = GO + 57_000;
    assert_eq!(
        judge(RULES, GO, &late_start, &run()).unwrap_err(),
        "the start was committed 57 s after its game time since GO (at most 1.5 s allowed)"
    );
    let mut early_start = honest(&run(), 0);
    early_start[0].received_ms = GO - 2500;
    assert_eq!(
        judge(RULES, GO, &early_start, &run()).unwrap_err(),
        "the start was committed 2.5 s before its game time since GO: sooner than the game can run"
    );
}

#[test]
fn commitments_in_any_order_are_judged_the_same() {
    let mut commits = honest(&run(), 200);
    commits.reverse();
    assert_eq!(judge(RULES, GO, &commits, &run()), Ok(()));
    commits.swap(0, 2);
    assert_eq!(judge(RULES, GO, &commits, &run()), Ok(()));
}

#[test]
fn a_checkpoint_on_the_finish_is_one_tick_two_splits() {
    // The last checkpoint's volume is the finish's: both splits at tick 3600, one state.
    let run = Resimulated {
        start_hash: 0xaa,
        splits: vec![(Some(0), 1200), (Some(1), 3600), (None, 3600)],
        split_hashes: vec![0xb0, 0xbf, 0xbf],
    };
    let commits = honest(&run, 30);
    assert_eq!(commits.len(), 4);
    assert_eq!(judge(RULES, GO, &commits, &run), Ok(()));
    // Without the checkpoint's own commitment, it was never committed.
    let mut missing = commits.clone();
    missing.remove(2);
    assert_eq!(
        judge(RULES, GO, &missing, &run).unwrap_err(),
        "CP2 (tick 3600) was never committed"
    );
}

#[test]
fn a_missing_split_an_extra_commit_a_wrong_hash_fail() {
    let mut missing = honest(&run(), 0);
    missing.remove(2);
    assert_eq!(
        judge(RULES, GO, &missing, &run()).unwrap_err(),
        "CP2 (tick 2400) was never committed"
    );
    let mut no_finish = honest(&run(), 0);
    no_finish.pop();
    assert_eq!(
        judge(RULES, GO, &no_finish, &run()).unwrap_err(),
        "the finish (tick 3600) was never committed"
    );
    let mut no_start = honest(&run(), 0);
    no_start.remove(0);
    assert_eq!(
        judge(RULES, GO, &no_start, &run()).unwrap_err(),
        "the start was never committed"
    );
    let mut extra = honest(&run(), 0);
    let mut more = extra[3];
    more.tick = 3700;
    extra.push(more);
    assert_eq!(
        judge(RULES, GO, &extra, &run()).unwrap_err(),
        "a finish at tick 3700 was committed, but the run has no such split"
    );
    let mut wrong = honest(&run(), 0);
    wrong[1].hash ^= 1;
    assert!(
        judge(RULES, GO, &wrong, &run())
            .unwrap_err()
            .starts_with("CP1's committed state hash (tick 1200) is not the replay's")
    );
    let mut wrong_start = honest(&run(), 0);
    wrong_start[0].hash ^= 1;
    assert!(judge(RULES, GO, &wrong_start, &run()).is_err());
    let mut shifted = honest(&run(), 0);
    shifted[1].tick += 1;
    assert!(judge(RULES, GO, &shifted, &run()).is_err());
}

#[test]
fn an_unfinished_run_is_judged_on_its_checkpoints() {
    let mut unfinished = run();
    unfinished.splits.pop();
    unfinished.split_hashes.pop();
    let mut commits = honest(&run(), 0);
    commits.pop();
    assert_eq!(judge(RULES, GO, &commits, &unfinished), Ok(()));
}

#[test]
fn timing_of_an_input_stamp_in_ns() {
    // An input stamped 1.5 s after GO (1 500 000 000 ns) with 200 ms of slack.
    let game = GameTime::ns(1_500_000_000);
    assert_eq!(timing(GO, 200, game, GO + 1500), Timing::OnTime);
    assert_eq!(timing(GO, 200, game, GO + 1700), Timing::OnTime);
    assert_eq!(
        timing(GO, 200, game, GO + 1701),
        Timing::Late { after_ms: 201 }
    );
    assert_eq!(timing(GO, 200, game, GO + 1499), Timing::Early { by_ms: 1 });
    // A stamp between two ms: 1.0000005 s is reached at 1001 ms, not 1000.
    let odd = GameTime::ns(1_000_000_500);
    assert_eq!(timing(GO, 0, odd, GO + 1000), Timing::Early { by_ms: 1 });
    assert_eq!(timing(GO, 1, odd, GO + 1001), Timing::OnTime);
}

#[test]
fn a_live_message_is_judged_to_the_microsecond() {
    // Tick 1 starts at 16 666.67 µs: a message about it 16 667 µs after GO is on time, one
    // 16 666 µs after is early (a stamp rounded down to the ms would call 16 999 µs early).
    let tick1 = GameTime::tick(1, 60);
    assert_eq!(timing_us(0, 1, tick1, 16_667), Timing::OnTime);
    assert_eq!(timing_us(0, 1, tick1, 16_666), Timing::Early { by_ms: 1 });
    assert_eq!(timing_us(0, 1, tick1, 16_999), Timing::OnTime);
    // 1 ms of slack: on time until 17 666.67 µs.
    assert_eq!(timing_us(0, 1, tick1, 17_666), Timing::OnTime);
    assert_eq!(timing_us(0, 1, tick1, 17_667), Timing::Late { after_ms: 1 });
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
        delays in proptest::collection::vec(0i64..=1500, 4),
        which in 0usize..4,
        over in 1i64..100_000,
    ) {
        let mut commits = honest(&run(), 0);
        for (c, d) in commits.iter_mut().zip(&delays) {
            c.received_ms += d;
        }
        prop_assert_eq!(judge(RULES, GO, &commits, &run()), Ok(()));
        commits[which].received_ms = commits[which].received_ms - delays[which] + 1500 + over;
        prop_assert!(judge(RULES, GO, &commits, &run()).is_err());
    }

    /// Whatever a game does to its clock (slowed, sped up, in sections, any start), the run
    /// is real-time only if no split fell behind GO plus its game time by more than the
    /// slack, nor ahead of it: the time banked is at most the slack.
    #[test]
    fn the_time_banked_is_at_most_the_slack(
        lags in proptest::collection::vec(-3000i64..6000, 4),
    ) {
        let commits: Vec<Commit> = honest(&run(), 0)
            .into_iter()
            .zip(&lags)
            .map(|(c, lag)| Commit { received_ms: c.received_ms + lag, ..c })
            .collect();
        let real_time = judge(RULES, GO, &commits, &run()).is_ok();
        prop_assert_eq!(real_time, lags.iter().all(|lag| (0..=1500).contains(lag)));
    }
}
