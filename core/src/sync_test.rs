//! The rollback sync-test (as ggrs's `SyncTestSession`): every tick, roll back `distance`
//! ticks, re-simulate them with the same inputs and compare every state hash with the first
//! run's. A mismatch means the simulation depends on something besides its state and inputs.

use alloc::collections::VecDeque;
use alloc::vec::Vec;
use core::fmt;

use crate::input::Input;
use crate::sim::{Simulation, Snapshot};
use crate::tick::Ticks;

/// Longest rollback the sync-test accepts (ticks).
pub const DISTANCE_MAX: u32 = 240;

/// A re-simulated tick's hash differed from the first run's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Desync {
    /// The tick whose resulting state differed (the state after it ran).
    pub tick: Ticks,
    /// The state hash after the tick on the first run.
    pub expected: u64,
    /// The state hash after the tick once rolled back and re-simulated.
    pub found: u64,
}

impl fmt::Display for Desync {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "desync at tick {}: expected hash {:016x}, found {:016x}",
            self.tick, self.expected, self.found
        )
    }
}

impl core::error::Error for Desync {}

/// One remembered tick: the state before it, its inputs, the hash after it.
#[derive(Debug)]
struct Frame {
    before: Snapshot,
    inputs: Vec<Input>,
    hash_after: u64,
}

/// Wraps a simulation and checks every tick by rolling back and re-simulating.
#[derive(Debug)]
pub struct SyncTest {
    sim: Simulation,
    distance: usize,
    history: VecDeque<Frame>,
}

impl SyncTest {
    /// `distance` is clamped to 1…[`DISTANCE_MAX`].
    pub fn new(sim: Simulation, distance: u32) -> SyncTest {
        let distance = distance.clamp(1, DISTANCE_MAX) as usize;
        SyncTest {
            sim,
            distance,
            history: VecDeque::with_capacity(distance + 1),
        }
    }

    /// Runs one tick, then rolls back up to `distance` ticks and re-simulates them.
    pub fn step(&mut self, inputs: &[Input]) -> Result<(), Desync> {
        let before = self.sim.snapshot();
        self.sim.step(inputs);
        let hash_after = self.sim.state_hash();
        self.history.push_back(Frame {
            before,
            inputs: inputs.to_vec(),
            hash_after,
        });
        if self.history.len() > self.distance {
            self.history.pop_front();
        }
        let Some(oldest) = self.history.front() else {
            return Ok(());
        };
        self.sim.restore(&oldest.before);
        for frame in &self.history {
            self.sim.step(&frame.inputs);
            let found = self.sim.state_hash();
            if found != frame.hash_after {
                let tick = frame.before.tick();
                return Err(Desync {
                    tick,
                    expected: frame.hash_after,
                    found,
                });
            }
        }
        Ok(())
    }

    /// The simulation being checked, at the newest tick stepped.
    pub fn simulation(&self) -> &Simulation {
        &self.sim
    }
}
