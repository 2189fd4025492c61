//! Whether a run was played in real time: the one timing rule ([`timing`]) and the judgment
//! of a run ticket's commitments against the run's re-simulation ([`judge`]), pure functions.
//! What a ticket is, what makes a run real-time and what that proves (and does not) is
//! `docs/server.md`, "Real-time runs"; how a live race applies the same rule to every input,
//! `docs/live.md`, "Real time".
//!
//! **The rule.** Every arrival is measured from **GO**, an instant of the server's clock that
//! the server alone sets and the client cannot move (a ticket's: `issued +
//! TICKET_COUNTDOWN_MS`). A message about game time `g` (the start of the tick it speaks of,
//! or an input's stamp) that arrives at `W` (the server's clock) is **on time** iff
//!
//! ```text
//!     GO + g  ≤  W  ≤  GO + g + slack
//! ```
//!
//! (`--ticket-slack-ms`, default [`SLACK_MS_DEFAULT`]). Both bounds hang on the same GO, so a
//! game begun at GO can fall at most the slack behind the wall clock at any message, however
//! its messages are timed. Compared in integers (`(W − GO) · per_ms ≥ game`, the game time a
//! fraction of milliseconds, [`GameTime`]): a message exactly on a bound passes, one
//! millisecond past it fails.
//!
//! **What a run can bank.** Nothing in a run depends on its ticket or on GO (the start is the
//! level's fixed starting state), so a game may begin before GO, as soon as the ticket is
//! issued, and hold each message until its window opens: it then banks the countdown too.
//! The true bound, from the ticket's issue, is [`TICKET_COUNTDOWN_MS`] + slack (2.5 s by
//! default), and the countdown is only what a page needs for the ticket's answer to arrive
//! before GO. A game begun before the ticket was even asked for is a run computed ahead,
//! which real time does not catch (docs/server.md, "Real-time runs").
//!
//! [`judge`]: real-time iff the start was committed, every split of the re-simulation has a
//! commitment of its kind at its tick and no other commitment was made, every committed hash
//! is the re-simulation's, and every commitment was on time, tick `t` at `t / rate` s (its
//! start: generous by one tick).

/// Default slack (ms): how much later than GO plus its game time a message may arrive.
/// Covers a frame, the network's delay both ways and a browser's hiccup; it is the most a
/// slowed-down game can bank over a whole run.
pub const SLACK_MS_DEFAULT: u64 = 1500;

/// The countdown a run ticket's GO is set after its issue (ms): what a page needs for the
/// ticket's answer to reach it before GO, and all it needs. The page shows its own 3 s
/// countdown and asks for the ticket in its last second (`play/ticket.js`). A game begun at
/// the issue banks this on top of the slack (see the module doc), so it is kept short.
pub const TICKET_COUNTDOWN_MS: i64 = 1000;

/// A game time, exactly: `num / per_ms` milliseconds after GO (both ≥ 0, `per_ms` ≥ 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameTime {
    num: i128,
    per_ms: i128,
}

impl GameTime {
    /// The start of tick `tick` at `rate` ticks per second: `tick · 1000 / rate` ms.
    pub fn tick(tick: u32, rate: u32) -> GameTime {
        GameTime {
            num: i128::from(tick) * 1000,
            per_ms: i128::from(rate.max(1)),
        }
    }

    /// An input's stamp: `ns` nanoseconds of game time since GO.
    pub fn ns(ns: u64) -> GameTime {
        GameTime {
            num: i128::from(ns),
            per_ms: 1_000_000,
        }
    }
}

/// Where an arrival falls against its window `[GO + game, GO + game + slack]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timing {
    /// Within the window.
    OnTime,
    /// Before the game could have got there: by this many ms (at least 1).
    Early { by_ms: i64 },
    /// After the slack: this many ms after its game time since GO (more than the slack).
    Late { after_ms: i64 },
}

/// Whether a message about game time `game` arriving at `received_ms` (the server's clock,
/// Unix ms) is on time for a run whose GO is `go_ms`, with `slack_ms` of slack.
pub fn timing(go_ms: i64, slack_ms: i64, game: GameTime, received_ms: i64) -> Timing {
    timing_us(
        go_ms.saturating_mul(1000),
        slack_ms,
        game,
        received_ms.saturating_mul(1000),
    )
}

/// [`timing`] with the times in µs: a live room stamps its messages to the µs, so a message
/// sent the instant its game time comes is not judged a millisecond early by a rounded stamp.
pub fn timing_us(go_us: i64, slack_ms: i64, game: GameTime, received_us: i64) -> Timing {
    let since_us = i128::from(received_us) - i128::from(go_us);
    // The game time in µs is `game.num · 1000 / game.per_ms`; compared multiplied out.
    let game_us_scaled = game.num * 1000;
    if since_us * game.per_ms < game_us_scaled {
        let early_us = (game_us_scaled - since_us * game.per_ms + game.per_ms - 1) / game.per_ms;
        let by_ms = i64::try_from((early_us + 999) / 1000).unwrap_or(i64::MAX);
        return Timing::Early {
            by_ms: by_ms.max(1),
        };
    }
    if (since_us - i128::from(slack_ms) * 1000) * game.per_ms > game_us_scaled {
        let game_us_ceil = (game_us_scaled + game.per_ms - 1) / game.per_ms;
        let after_ms = i64::try_from((since_us - game_us_ceil) / 1000).unwrap_or(i64::MAX);
        return Timing::Late { after_ms };
    }
    Timing::OnTime
}

/// What a commitment marks.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
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
    /// Every kind, in run order.
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
    /// What it marks.
    pub kind: CommitKind,
    /// The tick: 0 for the start, the split's tick otherwise (ticks counted from 0).
    pub tick: u32,
    /// The state hash the page had at that tick.
    pub hash: u64,
    /// When it first arrived: the server's clock, Unix ms (a repeated copy keeps this).
    pub received_ms: i64,
}

/// The timing rules: the tick rate and the operator's slack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// Ticks per second.
    pub rate: u32,
    /// Milliseconds a message may arrive after GO plus its game time.
    pub slack_ms: i64,
}

impl Rules {
    /// Where commitment `commit` falls for a run whose GO is `go_ms`.
    pub fn timing(self, go_ms: i64, commit: &Commit) -> Timing {
        let game = GameTime::tick(commit.tick, self.rate);
        timing(go_ms, self.slack_ms, game, commit.received_ms)
    }
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
/// `commits` may be in any order; `go_ms` is the ticket's GO.
pub fn judge(
    rules: Rules,
    go_ms: i64,
    commits: &[Commit],
    run: &Resimulated,
) -> Result<(), String> {
    let find =
        |kind: CommitKind, tick: u32| commits.iter().find(|c| (c.kind, c.tick) == (kind, tick));
    let Some(start) = find(CommitKind::Start, 0) else {
        return Err("the start was never committed".into());
    };
    if start.hash != run.start_hash {
        return Err("the start's committed state hash is not the level's starting state".into());
    }
    let mut judged = vec![("the start".to_string(), start)];
    for (&(checkpoint, tick), &hash) in run.splits.iter().zip(&run.split_hashes) {
        let name = split_name(checkpoint);
        let kind = if checkpoint.is_some() {
            CommitKind::Checkpoint
        } else {
            CommitKind::Finish
        };
        let Some(commit) = find(kind, tick) else {
            return Err(format!("{name} (tick {tick}) was never committed"));
        };
        if commit.hash != hash {
            return Err(format!(
                "{name}'s committed state hash (tick {tick}) is not the replay's: the replay is not the run committed to"
            ));
        }
        judged.push((name, commit));
    }
    // Every commitment must be one of those: the lowest tick first, for a stable answer.
    let mut extras: Vec<&Commit> = commits
        .iter()
        .filter(|c| !judged.iter().any(|(_, j)| std::ptr::eq(*j, *c)))
        .collect();
    extras.sort_by_key(|c| (c.tick, c.kind));
    if let Some(extra) = extras.first() {
        return Err(format!(
            "a {} at tick {} was committed, but the run has no such split",
            extra.kind.as_str(),
            extra.tick
        ));
    }
    // Timing: in run order, so the first late or early split is the one named.
    for (name, commit) in &judged {
        match rules.timing(go_ms, commit) {
            Timing::OnTime => {}
            Timing::Early { by_ms } => {
                return Err(format!(
                    "{name} was committed {} before its game time since GO: sooner than the game can run",
                    seconds(by_ms)
                ));
            }
            Timing::Late { after_ms } => {
                return Err(format!(
                    "{name} was committed {} after its game time since GO (at most {} allowed)",
                    seconds(after_ms),
                    seconds(rules.slack_ms)
                ));
            }
        }
    }
    Ok(())
}

/// "CP2" (as the CLI and the page name a checkpoint: `pogo_replay::checkpoint_name`) or
/// "the finish".
pub(crate) fn split_name(checkpoint: Option<u32>) -> String {
    match checkpoint {
        Some(_) => pogo_replay::checkpoint_name(checkpoint),
        None => "the finish".into(),
    }
}

/// Milliseconds as seconds for a human: `3.4 s`, `0.001 s`.
pub fn seconds(ms: i64) -> String {
    let sign = if ms < 0 { "-" } else { "" };
    let ms = ms.unsigned_abs();
    let text = format!("{}.{:03}", ms / 1000, ms % 1000);
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{sign}{text} s")
}

#[cfg(test)]
mod tests;
