//! Splits: the tick on which each player first reached each checkpoint, and the finish — what
//! a leaderboard stores beside a verified run, and what a ghost shows while it is raced.
//!
//! [`SplitRecorder`] collects them as a re-simulation goes (call it after every tick, e.g. from
//! [`Verifier::verify_with`](crate::Verifier::verify_with)'s `on_tick`); it keeps nothing else,
//! so verifying a run for its splits costs the re-simulation and a few comparisons a tick.

use pogo_core::{Events, Simulation, Ticks};

/// Reaching a checkpoint (or the finish) for the first time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split {
    /// The checkpoint's index in the level, or `None` for the finish.
    pub checkpoint: Option<u32>,
    /// The tick on which it was reached (0 = the first tick simulated).
    pub tick: Ticks,
}

/// A checkpoint as a person reads it: `CP1` for the level's first (index 0), `finish` for
/// `None`. Files and the API's JSON keep the index from 0; the CLI's output, the server's
/// messages and the web page (`shared/format.js`'s `checkpointLabel`) name it this way.
pub fn checkpoint_name(checkpoint: Option<u32>) -> String {
    match checkpoint {
        Some(i) => format!("CP{}", u64::from(i) + 1),
        None => "finish".to_string(),
    }
}

/// Every player's splits, recorded tick by tick.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SplitRecorder {
    splits: Vec<Vec<Split>>,
}

impl SplitRecorder {
    /// A recorder for `players` players, nothing reached yet.
    pub fn new(players: usize) -> SplitRecorder {
        SplitRecorder {
            splits: vec![Vec::new(); players],
        }
    }

    /// Records what the tick just simulated reached: a checkpoint's first visit by a player
    /// (a checkpoint visited again adds nothing), and a finish. Call once after every tick.
    pub fn observe(&mut self, sim: &Simulation) {
        let state = sim.state();
        // `state.tick` counts the ticks simulated: the tick just simulated is one less.
        let tick = Ticks(state.tick.0 - 1);
        if self.splits.len() < state.pogos.len() {
            self.splits.resize(state.pogos.len(), Vec::new());
        }
        for (pogo, seen) in state.pogos.iter().zip(&mut self.splits) {
            if pogo.events.contains(Events::CHECKPOINT) {
                if let Some(i) = pogo.checkpoint {
                    if !seen.iter().any(|s| s.checkpoint == Some(i)) {
                        seen.push(Split {
                            checkpoint: Some(i),
                            tick,
                        });
                    }
                }
            }
            if pogo.events.contains(Events::FINISH) {
                seen.push(Split {
                    checkpoint: None,
                    tick,
                });
            }
        }
    }

    /// A player's splits, in the order reached; the finish, if reached, is last.
    pub fn player(&self, player: usize) -> &[Split] {
        self.splits.get(player).map_or(&[], |s| &s[..])
    }

    /// Every player's splits.
    pub fn into_players(self) -> Vec<Vec<Split>> {
        self.splits
    }
}
