//! The GGRS adapter: pogo's types as a GGRS [`Config`], and the requests GGRS hands back
//! fulfilled, in order, with a [`Simulation`].
//!
//! GGRS drives rollback by returning, from every `advance_frame`, an ordered list of requests:
//! save the state of frame F into a cell (with a checksum), load the state saved for frame F,
//! advance one frame with these inputs. [`Adapter::fulfil`] does exactly that and nothing
//! else: a save is a [`Snapshot`] with the [state hash](pogo_core::SimState::state_hash) as
//! the checksum, a load is [`Simulation::restore`], an advance is [`Simulation::step`].
//! GGRS's `frame` is pogo's tick: the state saved for frame F is the state before tick F runs.

use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;

use ggrs::{Config, GgrsRequest, InputStatus};
use pogo_core::{Input, Simulation, Snapshot};

use crate::input::NetInput;

/// pogo as GGRS sees it: per-player input is a [`NetInput`] (four plain bytes), predicted by
/// repeating the last one (a held stick stays held), the saved state is a [`Snapshot`], peers
/// are UDP socket addresses.
#[derive(Debug)]
pub struct PogoConfig;

impl Config for PogoConfig {
    type Input = NetInput;
    type InputPredictor = ggrs::PredictRepeatLast;
    type State = Snapshot;
    type Address = SocketAddr;
}

/// A request list as GGRS returns it.
pub type Requests = Vec<GgrsRequest<PogoConfig>>;

/// What GGRS's requests act on: save, load and advance a simulation. [`Simulation`] is the
/// real thing; tests wrap it to break determinism on purpose and see the oracle notice.
pub trait Rollback {
    /// The simulation, for reading.
    fn simulation(&self) -> &Simulation;
    /// A copy of the whole state.
    fn snapshot(&self) -> Snapshot;
    /// Puts the state back to `snapshot`.
    fn restore(&mut self, snapshot: &Snapshot);
    /// Runs one tick.
    fn step(&mut self, inputs: &[Input]);
}

impl Rollback for Simulation {
    fn simulation(&self) -> &Simulation {
        self
    }

    fn snapshot(&self) -> Snapshot {
        Simulation::snapshot(self)
    }

    fn restore(&mut self, snapshot: &Snapshot) {
        Simulation::restore(self, snapshot);
    }

    fn step(&mut self, inputs: &[Input]) {
        Simulation::step(self, inputs);
    }
}

/// A request that does not fit the simulation: GGRS and the adapter disagree about where the
/// simulation is. Never expected; reported as data rather than papered over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RequestError {
    /// A save or load for `frame` while the simulation (or the saved snapshot) is at `tick`.
    FrameMismatch {
        request: &'static str,
        frame: i32,
        tick: u32,
    },
    /// A load from a cell nothing was saved into.
    EmptyCell { frame: i32 },
    /// An advance with inputs for `found` players in a simulation of `expected`.
    Players { expected: usize, found: usize },
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestError::FrameMismatch {
                request,
                frame,
                tick,
            } => write!(
                f,
                "GGRS asked to {request} frame {frame} but the simulation is at tick {tick}"
            ),
            RequestError::EmptyCell { frame } => {
                write!(f, "GGRS asked to load frame {frame}, which was never saved")
            }
            RequestError::Players { expected, found } => write!(
                f,
                "GGRS sent inputs for {found} players to a simulation of {expected}"
            ),
        }
    }
}

impl std::error::Error for RequestError {}

/// What the rollbacks cost so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RollbackStats {
    /// Load requests: each one is a rollback.
    pub rollbacks: u64,
    /// The longest rollback: ticks between the tick loaded and the tick the simulation was at.
    pub longest_ticks: u32,
    /// Ticks run again after a load (the re-simulation work).
    pub resimulated_ticks: u64,
    /// Ticks run in all (first runs and re-simulations).
    pub advanced_ticks: u64,
    /// Save requests.
    pub saves: u64,
}

/// Fulfils GGRS requests with a simulation, keeping count of rollbacks and, if asked, each
/// tick's latest inputs and saved state hashes (what a peer needs to record confirmed ticks).
#[derive(Debug)]
pub struct Adapter<S: Rollback = Simulation> {
    sim: S,
    stats: RollbackStats,
    /// Ticks still to re-run after the last load (for `resimulated_ticks`).
    replaying: u32,
    /// Scratch: one tick's inputs.
    inputs: Vec<Input>,
    /// Whether to keep `advanced` and `saved`.
    keep: bool,
    /// Per tick, the inputs it last ran with (a re-simulation overwrites them).
    advanced: BTreeMap<u32, Vec<NetInput>>,
    /// Per tick F, the hash of the state saved for frame F (the state before tick F); entries
    /// after a loaded frame are dropped on load, so every entry is of the current timeline.
    saved: BTreeMap<u32, u64>,
}

impl<S: Rollback> Adapter<S> {
    /// An adapter over `sim`, at the tick GGRS's frame 0 is (normally a new simulation).
    pub fn new(sim: S) -> Adapter<S> {
        let players = sim.simulation().state().pogos.len();
        Adapter {
            sim,
            stats: RollbackStats::default(),
            replaying: 0,
            inputs: Vec::with_capacity(players),
            keep: false,
            advanced: BTreeMap::new(),
            saved: BTreeMap::new(),
        }
    }

    /// Also keep each tick's latest inputs and saved hashes until [`take_tick`] takes them.
    ///
    /// [`take_tick`]: Adapter::take_tick
    pub fn keeping_history(self) -> Adapter<S> {
        Adapter { keep: true, ..self }
    }

    pub fn simulation(&self) -> &Simulation {
        self.sim.simulation()
    }

    pub fn inner(&self) -> &S {
        &self.sim
    }

    pub fn stats(&self) -> RollbackStats {
        self.stats
    }

    /// Fulfils `requests` in order. Stops at the first request that does not fit.
    pub fn fulfil(&mut self, requests: Requests) -> Result<(), RequestError> {
        for request in requests {
            match request {
                GgrsRequest::SaveGameState { cell, frame } => {
                    let tick = self.tick();
                    if frame_tick(frame) != Some(tick) {
                        return Err(RequestError::FrameMismatch {
                            request: "save",
                            frame,
                            tick,
                        });
                    }
                    let hash = self.sim.simulation().state_hash();
                    cell.save(frame, Some(self.sim.snapshot()), Some(u128::from(hash)));
                    if self.keep {
                        self.saved.insert(tick, hash);
                    }
                    self.stats.saves += 1;
                }
                GgrsRequest::LoadGameState { cell, frame } => {
                    let snapshot = cell.load().ok_or(RequestError::EmptyCell { frame })?;
                    let saved_tick = snapshot.tick().0;
                    if frame_tick(frame) != Some(saved_tick) {
                        return Err(RequestError::FrameMismatch {
                            request: "load",
                            frame,
                            tick: saved_tick,
                        });
                    }
                    let distance = self.tick().saturating_sub(saved_tick);
                    self.sim.restore(&snapshot);
                    self.stats.rollbacks += 1;
                    self.stats.longest_ticks = self.stats.longest_ticks.max(distance);
                    self.replaying = distance;
                    if self.keep {
                        drop(self.saved.split_off(&saved_tick.saturating_add(1)));
                    }
                }
                GgrsRequest::AdvanceFrame { inputs } => {
                    let players = self.sim.simulation().state().pogos.len();
                    if inputs.len() != players {
                        return Err(RequestError::Players {
                            expected: players,
                            found: inputs.len(),
                        });
                    }
                    let tick = self.tick();
                    self.inputs.clear();
                    self.inputs
                        .extend(inputs.iter().map(|(net, status)| match status {
                            // A disconnected player's input is GGRS's neutral default anyway.
                            InputStatus::Disconnected => Input::default(),
                            InputStatus::Confirmed | InputStatus::Predicted => net.input(),
                        }));
                    self.sim.step(&self.inputs);
                    if self.keep {
                        self.advanced
                            .insert(tick, inputs.iter().map(|(net, _)| *net).collect());
                    }
                    self.stats.advanced_ticks += 1;
                    if self.replaying > 0 {
                        self.replaying -= 1;
                        self.stats.resimulated_ticks += 1;
                    }
                }
            }
        }
        Ok(())
    }

    /// Takes tick `tick`'s latest inputs and the hash of the saved state after it (the state
    /// saved for frame `tick + 1`, if it was saved), forgetting everything up to `tick`. Once
    /// GGRS has confirmed `tick`, these are its confirmed inputs: either it ran with them, or
    /// it ran with a prediction that turned out right (and so was not rolled back).
    pub fn take_tick(&mut self, tick: u32) -> Option<(Vec<NetInput>, Option<u64>)> {
        let inputs = self.advanced.remove(&tick)?;
        let after = self.saved.get(&(tick + 1)).copied();
        self.advanced = self.advanced.split_off(&tick);
        self.saved = self.saved.split_off(&(tick + 1));
        Some((inputs, after))
    }

    fn tick(&self) -> u32 {
        self.sim.simulation().state().tick.0
    }
}

/// GGRS's frame as a tick (frames are `i32`, `-1` meaning none).
fn frame_tick(frame: i32) -> Option<u32> {
    u32::try_from(frame).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ggrs::GameStateCell;
    use std::sync::Arc;

    fn sim(players: usize) -> Simulation {
        let tuning = pogo_core::Tuning::default();
        let world =
            pogo_core::world::World::new(pogo_replay::builtin_level("flat").unwrap(), &tuning)
                .unwrap();
        Simulation::new(Arc::new(world), tuning, players).unwrap()
    }

    fn advance(x: i8) -> GgrsRequest<PogoConfig> {
        let input = NetInput::from(Input {
            steer_x: x,
            ..Input::default()
        });
        GgrsRequest::AdvanceFrame {
            inputs: vec![
                (input, InputStatus::Confirmed),
                (input, InputStatus::Predicted),
            ],
        }
    }

    #[test]
    fn a_rollback_reruns_to_the_same_hash_and_is_counted() {
        let mut adapter = Adapter::new(sim(2)).keeping_history();
        let cell = GameStateCell::default();
        let mut requests = vec![GgrsRequest::SaveGameState {
            cell: cell.clone(),
            frame: 0,
        }];
        requests.extend((0..5).map(|_| advance(40)));
        adapter.fulfil(requests).unwrap();
        let first = adapter.simulation().state_hash();
        let mut again = vec![GgrsRequest::LoadGameState { cell, frame: 0 }];
        again.extend((0..5).map(|_| advance(40)));
        adapter.fulfil(again).unwrap();
        assert_eq!(adapter.simulation().state_hash(), first);
        let stats = adapter.stats();
        assert_eq!(
            (
                stats.rollbacks,
                stats.longest_ticks,
                stats.resimulated_ticks
            ),
            (1, 5, 5)
        );
        assert_eq!((stats.advanced_ticks, stats.saves), (10, 1));
        let (inputs, _) = adapter.take_tick(4).unwrap();
        assert_eq!(inputs[0].input().steer_x, 40);
        assert_eq!(adapter.take_tick(3), None, "forgotten with tick 4");
    }

    #[test]
    fn requests_that_do_not_fit_are_errors() {
        let mut adapter = Adapter::new(sim(2));
        let cell = GameStateCell::default();
        let save_late = vec![GgrsRequest::SaveGameState {
            cell: cell.clone(),
            frame: 3,
        }];
        assert_eq!(
            adapter.fulfil(save_late),
            Err(RequestError::FrameMismatch {
                request: "save",
                frame: 3,
                tick: 0
            })
        );
        let load_empty = vec![GgrsRequest::LoadGameState {
            cell: cell.clone(),
            frame: 0,
        }];
        assert_eq!(
            adapter.fulfil(load_empty),
            Err(RequestError::EmptyCell { frame: 0 })
        );
        let one_player = vec![GgrsRequest::AdvanceFrame {
            inputs: vec![(NetInput::default(), InputStatus::Confirmed)],
        }];
        assert_eq!(
            adapter.fulfil(one_player),
            Err(RequestError::Players {
                expected: 2,
                found: 1
            })
        );
    }
}
