//! The simulation: a world, a tuning and the state of every pogo, advanced tick by tick.
//!
//! [`SimState`] is plain data — the tick count and the pogos — so a snapshot is a copy and a
//! rollback is an assignment. [`Simulation`] bundles it with the (shared, immutable) world and
//! the tuning.

use alloc::boxed::Box;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt;

use crate::hash::Encoder;
use crate::input::Input;
use crate::neighbourhood::Neighbourhood;
use crate::pogo::Pogo;
use crate::step;
use crate::tick::Ticks;
use crate::tuning::Tuning;
use crate::world::World;

/// Most pogos in one simulation.
pub const PLAYERS_MAX: usize = 16;

/// Everything that changes from tick to tick: plain data, so a copy is a snapshot.
///
/// Read it to render ([`Pogo::position`] is the tip, the body's lowest point; [`Pogo::events`]
/// says what happened in the last tick, [`Events::TELEPORT`](crate::Events::TELEPORT) when
/// not to interpolate). Editing it (through [`Simulation::state_mut`]) is for tools and tests.
#[derive(PartialEq, Eq, Debug)]
pub struct SimState {
    /// Ticks run so far; the next tick to run is this one.
    pub tick: Ticks,
    /// One pogo per player, in player order.
    pub pogos: Vec<Pogo>,
}

/// Written out for `clone_from`, which [`Simulation::restore`] is: the derived one would clone
/// anew, allocating the pogos' `Vec` on every restore (16 pogos: 1.2 µs against 85 ns); this
/// copies into the vector already there.
impl Clone for SimState {
    fn clone(&self) -> SimState {
        SimState {
            tick: self.tick,
            pogos: self.pogos.clone(),
        }
    }

    fn clone_from(&mut self, source: &SimState) {
        self.tick = source.tick;
        self.pogos.clone_from(&source.pogos);
    }
}

impl SimState {
    /// `players` pogos waiting at the world's spawn; the first tick places them.
    pub fn new(world: &World, players: usize) -> SimState {
        SimState {
            tick: Ticks::ZERO,
            pogos: (0..players).map(|_| Pogo::new(world.spawn())).collect(),
        }
    }

    /// Per player, the tick it finished on (`None` if it has not): the outcome a replay
    /// claims and a verifier checks.
    pub fn finish_ticks(&self) -> Vec<Option<u32>> {
        self.pogos
            .iter()
            .map(|p| p.finish_tick.map(|t| t.0))
            .collect()
    }

    /// A stable 64-bit hash of the whole state: xxh3-64 (seed 0) over the bytes
    ///
    /// ```text
    /// u32 len + "pogo-state/2"    domain tag (length-prefixed)
    /// u32 tick
    /// u32 number of pogos
    /// per pogo, its fields in declaration order (see `Pogo`):
    ///   u8 state (0 respawn, 1 airborne, 2 compression, 3 stunned, 4 finished)
    ///   position, velocity: 3 × i64 each; lean x, z: i64; u32 combo; u32 bounces; i64 apex
    ///   last_launch: u8 0/1 [u32 tick, 3 × i64 point, surface]; u32 stun_ticks_left
    ///   trick_ticks_left: u8 0/1 [u32]; u8 buttons_held
    ///   compression: u8 0/1 [u32 ticks_left, 3 × i64 normal, surface, 3 × i64 approach]
    ///   tip_memory: u8 0/1 [3 × i64 normal, surface, u32 age]
    ///   checkpoint: u8 0/1 [u32]; finish_tick: u8 0/1 [u32]; u32 events
    /// ```
    ///
    /// where every integer is little-endian, every `i64` is a 32.32 fixed-point value's raw
    /// bits, and a surface is `u8` kind (0 solid, 1 platform, 2 ramp) + `u32` index. Equal
    /// states hash equally on every platform and in every build.
    pub fn state_hash(&self) -> u64 {
        let mut e = Encoder::new(b"pogo-state/2");
        e.u32(self.tick.0);
        e.len(self.pogos.len());
        for pogo in &self.pogos {
            pogo.encode(&mut e);
        }
        e.finish()
    }
}

/// Why a simulation could not be set up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    /// Players must be 1…`PLAYERS_MAX`.
    Players {
        /// [`PLAYERS_MAX`].
        max: usize,
        /// The player count asked for.
        found: usize,
    },
    /// The world was prepared for another tick rate than the tuning's.
    TickRate {
        /// The tick rate (Hz) the world was prepared for ([`crate::world::World::tick_rate`]).
        world: u32,
        /// The tuning's tick rate (Hz).
        tuning: u32,
    },
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Players { max, found } => {
                write!(f, "{found} players; 1 to {max} are allowed")
            }
            SimError::TickRate { world, tuning } => {
                write!(
                    f,
                    "the world was built for {world} Hz but the tuning runs at {tuning} Hz"
                )
            }
        }
    }
}

impl core::error::Error for SimError {}

/// A copy of the whole simulation state at one tick, for rollback: restoring it and stepping
/// on gives bit-identical results (checked by [`SyncTest`](crate::SyncTest)).
///
/// It holds the simulation's state only: the world and the tuning are shared and immutable,
/// and whatever chooses the inputs is not part of it. In particular the demo
/// [`Bot`](crate::bot::Bot) keeps its own small state (the waypoint it aims at, the input it
/// holds); to roll back a run driven by a bot, save the bot with the snapshot:
///
/// ```
/// use std::sync::Arc;
/// use pogo_core::bot::Bot;
/// use pogo_core::world::{Aabb, Solid, World, WorldDesc};
/// use pogo_core::{Fx, Simulation, Tuning, Vec3};
///
/// let ground = Solid {
///     bounds: Aabb::new(Vec3::new(Fx::from_int(-50), Fx::from_int(-1), Fx::from_int(-5)),
///                       Vec3::new(Fx::from_int(50), Fx::ZERO, Fx::from_int(5))),
///     no_bounce: false,
/// };
/// let waypoint = |x| Vec3::new(Fx::from_int(x), Fx::ZERO, Fx::ZERO);
/// let level = WorldDesc {
///     name: "line".into(),
///     solids: vec![ground],
///     bot_path: vec![waypoint(10), waypoint(20), waypoint(30)],
///     ..WorldDesc::default()
/// };
/// let tuning = Tuning::default();
/// let mut sim = Simulation::new(Arc::new(World::new(level, &tuning)?), tuning, 1)?;
/// let mut bot = Bot::new();
/// let mut step = |sim: &mut Simulation, bot: &mut Bot| {
///     let input = bot.input(sim.world(), sim.tuning(), &sim.state().pogos[0]);
///     sim.step(&[input]);
/// };
/// for _ in 0..100 {
///     step(&mut sim, &mut bot);
/// }
/// // Save both: the simulation's snapshot and a copy of the bot.
/// let (snapshot, saved_bot) = (sim.snapshot(), bot.clone());
/// for _ in 0..100 {
///     step(&mut sim, &mut bot);
/// }
/// let ahead = sim.state_hash();
/// // Restore both, and the run continues exactly as before.
/// sim.restore(&snapshot);
/// bot = saved_bot;
/// for _ in 0..100 {
///     step(&mut sim, &mut bot);
/// }
/// assert_eq!(sim.state_hash(), ahead);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Restoring the simulation but not the bot would continue from the bot's later state: the
/// inputs, and so the run, would silently differ.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Snapshot(SimState);

impl Snapshot {
    /// The tick the snapshot was taken at: the next tick to run after restoring it.
    pub fn tick(&self) -> Ticks {
        self.0.tick
    }

    /// The saved state.
    pub fn state(&self) -> &SimState {
        &self.0
    }
}

/// A world, a tuning and the state of every pogo, stepped together: the type a game holds.
///
/// [`step`](Simulation::step) runs one tick with one [`Input`] per player and cannot fail;
/// [`state`](Simulation::state) is what to render; [`state_hash`](Simulation::state_hash)
/// identifies the state on every machine; [`snapshot`](Simulation::snapshot) and
/// [`restore`](Simulation::restore) roll back. The world and the tuning are shared (`Arc`), so
/// simulations of the same level are cheap to create and to clone.
#[derive(Clone, Debug)]
pub struct Simulation {
    world: Arc<World>,
    tuning: Arc<Tuning>,
    state: SimState,
    /// Each pogo's [`Neighbourhood`]: what the grids reported around it, kept to spare most
    /// ticks the grid queries. Not state: a function of the world and a region, whatever
    /// tick gathered it (never hashed, saved or compared). A boxed slice, two words: the
    /// simulation's own size is what a server's per-racer state lays out in cache lines.
    hoods: Box<[Neighbourhood]>,
}

impl Simulation {
    /// A simulation of `players` pogos in `world`, which must have been built for `tuning`.
    /// `tuning` is a [`Tuning`] or an `Arc` of one: a server re-simulating hundreds of runs
    /// under one tuning gives them all one copy, whose lines stay in the CPU's caches.
    pub fn new(
        world: Arc<World>,
        tuning: impl Into<Arc<Tuning>>,
        players: usize,
    ) -> Result<Simulation, SimError> {
        let tuning = tuning.into();
        if players == 0 || players > PLAYERS_MAX {
            return Err(SimError::Players {
                max: PLAYERS_MAX,
                found: players,
            });
        }
        if world.tick_rate() != tuning.spec().tick_rate {
            return Err(SimError::TickRate {
                world: world.tick_rate(),
                tuning: tuning.spec().tick_rate,
            });
        }
        let state = SimState::new(&world, players);
        Ok(Simulation {
            world,
            tuning,
            state,
            hoods: alloc::vec![Neighbourhood::EMPTY; players].into_boxed_slice(),
        })
    }

    /// Runs one tick with one input per player (a missing input is neutral, extra ones are
    /// ignored). Cannot fail.
    pub fn step(&mut self, inputs: &[Input]) {
        let tick = self.state.tick;
        self.fit_hoods();
        step::step(
            &self.world,
            &self.tuning,
            tick,
            &mut self.state.pogos,
            &mut self.hoods,
            inputs,
        );
        self.state.tick = tick.next();
    }

    /// [`step`](Simulation::step), metered: the same tick, bit for bit, that also sets
    /// `costs[i]` to the work of pogo `i`'s tick in the cost model's units ([`crate::cost`]).
    /// Only with the `meter` feature (tests and fuzzing).
    #[cfg(feature = "meter")]
    pub fn step_metered(&mut self, inputs: &[Input], costs: &mut [u64]) {
        let tick = self.state.tick;
        self.fit_hoods();
        step::step_metered(
            &self.world,
            &self.tuning,
            tick,
            &mut self.state.pogos,
            &mut self.hoods,
            inputs,
            costs,
        );
        self.state.tick = tick.next();
    }

    /// One neighbourhood per pogo, whatever [`state_mut`](Simulation::state_mut) or
    /// [`restore`](Simulation::restore) did to the pogos (a new pogo's is empty).
    fn fit_hoods(&mut self) {
        if self.hoods.len() != self.state.pogos.len() {
            let mut hoods = core::mem::take(&mut self.hoods).into_vec();
            hoods.resize(self.state.pogos.len(), Neighbourhood::EMPTY);
            self.hoods = hoods.into_boxed_slice();
        }
    }

    /// The state after the last tick: the tick count and every pogo (to render, hash or
    /// inspect).
    pub fn state(&self) -> &SimState {
        &self.state
    }

    /// The state, for editing by tools and tests (placing a pogo, setting up a scenario).
    /// Replays and hashes are only as reproducible as such edits are.
    pub fn state_mut(&mut self) -> &mut SimState {
        &mut self.state
    }

    /// The level being simulated.
    pub fn world(&self) -> &Arc<World> {
        &self.world
    }

    /// The tuning the rules read.
    pub fn tuning(&self) -> &Tuning {
        &self.tuning
    }

    /// The [state hash](SimState::state_hash).
    pub fn state_hash(&self) -> u64 {
        self.state.state_hash()
    }

    /// A copy of the state now (see [`Snapshot`] for what it does not include).
    pub fn snapshot(&self) -> Snapshot {
        Snapshot(self.state.clone())
    }

    /// Puts the state back to `snapshot`; stepping on continues bit-identically. Allocates
    /// nothing when the snapshot has as many pogos as the state (a rollback's case).
    pub fn restore(&mut self, snapshot: &Snapshot) {
        self.state.clone_from(&snapshot.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fx::Fx;
    use crate::vec3::Vec3;
    use crate::world::{Aabb, Solid, WorldDesc};

    #[test]
    fn restore_copies_into_the_state_it_has() {
        let tuning = Tuning::default();
        let desc = WorldDesc {
            solids: alloc::vec![Solid {
                bounds: Aabb::new(
                    Vec3::new(-Fx::from_int(10), -Fx::ONE, -Fx::from_int(10)),
                    Vec3::new(Fx::from_int(10), Fx::ZERO, Fx::from_int(10)),
                ),
                no_bounce: false,
            }],
            name: "slab".into(),
            ..WorldDesc::default()
        };
        let world = Arc::new(World::new(desc, &tuning).unwrap());
        let mut sim = Simulation::new(world, tuning, 16).unwrap();
        let snapshot = sim.snapshot();
        let expected = sim.state_hash();
        for _ in 0..30 {
            sim.step(&[]);
        }
        assert_ne!(sim.state_hash(), expected);
        let pogos = sim.state().pogos.as_ptr();
        sim.restore(&snapshot);
        assert_eq!(sim.state_hash(), expected);
        assert_eq!(sim.state(), snapshot.state());
        // The same allocation: cloning anew would have allocated before freeing the old one.
        assert_eq!(sim.state().pogos.as_ptr(), pogos);
    }

    /// A pogo added or removed through `state_mut` is stepped like the others: each pogo
    /// gets a neighbourhood (the tick pairs them up, and one without would not be stepped).
    #[test]
    fn pogos_added_by_hand_are_stepped() {
        let tuning = Tuning::default();
        let desc = WorldDesc {
            name: "empty".into(),
            ..WorldDesc::default()
        };
        let world = Arc::new(World::new(desc, &tuning).unwrap());
        let mut sim = Simulation::new(world.clone(), tuning.clone(), 1).unwrap();
        let mut alone = Simulation::new(world, tuning, 1).unwrap();
        let extra = sim.state().pogos[0];
        sim.state_mut().pogos.push(extra);
        for _ in 0..10 {
            sim.step(&[]);
            alone.step(&[]);
        }
        assert_eq!(sim.state().pogos[1], alone.state().pogos[0]);
        sim.state_mut().pogos.truncate(1);
        sim.step(&[]);
        alone.step(&[]);
        assert_eq!(sim.state().pogos, alone.state().pogos);
    }
}
