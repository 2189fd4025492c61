//! A game's frame loop over pogo, and how its renderer turns the state into floats.
//!
//! Each render frame, the game pushes the input events that happened since the last frame
//! (stamped with their time), then asks the frame driver to run the ticks that have become
//! due. The driver says how far the clock is into the next tick, `alpha` ∈ [0, 1), exact in
//! fixed point. The renderer keeps two states — before the last tick (`previous`) and after it
//! (`current`) — and draws `previous + (current − previous) · alpha`: a picture one tick behind
//! the clock that moves smoothly at any frame rate (here 144 Hz over 60 Hz ticks). A tick that
//! teleported the pogo (a respawn) is never interpolated across: `previous` is on the other
//! side of the jump, so the renderer draws `current`.
//!
//! Floats appear only here, at the edge: the interpolation is done in fixed point
//! ([`Vec3::lerp`]) and each coordinate becomes an `f32` once, at the end. Nothing computed
//! from a float goes back into the simulation, so the run stays bit-identical on every
//! machine and at every frame rate.
//!
//! `tests/render.rs` checks the frames against positions computed apart, without the driver.
//! Run it with `cargo run --example render`.

use std::error::Error;
use std::sync::Arc;

use pogo::core::driver::{Driver, DriverError, FrameInfo, NS_PER_SECOND, frame_times};
use pogo::core::world::World;
use pogo::core::{Events, Fx, Input, SimState, Simulation, Tuning, Vec3};
use pogo::replay::builtin_level;

/// 2³²: a raw [`Fx`] over this is its value.
const FX_ONE_BITS: f64 = 4_294_967_296.0;

/// What a renderer keeps between frames: every pogo's tip position before the last tick and
/// after it, and whether the last tick teleported it.
#[derive(Clone, Debug)]
pub struct Interpolation {
    previous: Vec<Vec3>,
    current: Vec<Vec3>,
    teleported: Vec<bool>,
}

impl Interpolation {
    /// Before the first tick both states are `state`'s: there is nothing to interpolate.
    pub fn new(state: &SimState) -> Interpolation {
        let positions: Vec<Vec3> = state.pogos.iter().map(|p| p.position).collect();
        Interpolation {
            previous: positions.clone(),
            current: positions,
            teleported: vec![false; state.pogos.len()],
        }
    }

    /// After every tick (not every frame): the newest state becomes the previous one. When a
    /// frame runs several ticks only the last two states matter, so an earlier tick's
    /// teleport leaves `previous` already past the jump.
    pub fn push(&mut self, state: &SimState) {
        std::mem::swap(&mut self.previous, &mut self.current);
        self.current.clear();
        self.current.extend(state.pogos.iter().map(|p| p.position));
        self.teleported.clear();
        self.teleported.extend(
            state
                .pogos
                .iter()
                .map(|p| p.events.contains(Events::TELEPORT)),
        );
    }

    /// Where to draw each pogo's tip at `alpha` (the driver's [`FrameInfo::alpha`]): metres,
    /// x east, y up, z south, as the renderer's `f32`s.
    pub fn positions(&self, alpha: Fx) -> Vec<[f32; 3]> {
        self.previous
            .iter()
            .zip(&self.current)
            .zip(&self.teleported)
            .map(|((&previous, &current), &teleported)| {
                let at = if teleported {
                    current
                } else {
                    previous.lerp(current, alpha)
                };
                to_f32(at)
            })
            .collect()
    }
}

/// A position (m) as `f32`s: each raw value is exact as an `f64` (|x| < 2²¹ m, and the state
/// stays within ±100 km), so the only rounding is the final one to `f32`.
pub fn to_f32(v: Vec3) -> [f32; 3] {
    [v.x, v.y, v.z].map(|c| (c.to_bits() as f64 / FX_ONE_BITS) as f32)
}

/// One player's game: the simulation, the driver that decides when its ticks run, and what
/// the renderer keeps. One driver per simulation: it alone calls `step`.
#[derive(Debug)]
pub struct Game {
    sim: Simulation,
    driver: Driver,
    view: Interpolation,
}

/// What one render frame shows.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// The frame's time (ns since the run started).
    pub now_ns: u64,
    /// What the driver did: ticks run, `alpha`.
    pub info: FrameInfo,
    /// Where each pogo's tip is drawn (m).
    pub positions: Vec<[f32; 3]>,
}

impl Game {
    /// A game over `sim`, its driver at the tuning's tick rate.
    pub fn new(sim: Simulation) -> Result<Game, DriverError> {
        let driver = Driver::new(sim.tuning().spec().tick_rate, sim.state().pogos.len())?;
        let view = Interpolation::new(sim.state());
        Ok(Game { sim, driver, view })
    }

    /// An input event: `player`'s input became `input` at `at_ns` (the device's timestamp on
    /// the run's clock). Push every event up to a frame's time before that frame.
    pub fn input(&mut self, at_ns: u64, player: usize, input: Input) -> Result<u64, DriverError> {
        self.driver.push_event(at_ns, player, input)
    }

    /// One render frame at `now_ns`: the ticks due run, then the picture is interpolated.
    pub fn frame(&mut self, now_ns: u64) -> Frame {
        let Game { sim, driver, view } = self;
        let info = driver.advance_to(now_ns, |_tick, inputs| {
            sim.step(inputs);
            view.push(sim.state());
        });
        Frame {
            now_ns,
            info,
            positions: view.positions(info.alpha),
        }
    }

    /// The simulation (to hash, snapshot, or record its inputs).
    pub fn simulation(&self) -> &Simulation {
        &self.sim
    }
}

/// A scripted player for `main`: (ms since the start, stick x, stick z), as a keyboard would
/// report it.
const SCRIPT: &[(u64, i8, i8)] = &[(250, 127, 0), (1500, 127, -60), (2500, 0, 0)];

/// Render frames per second of `main`.
const FPS: u64 = 144;
/// How long `main` plays (s).
const SECONDS: u64 = 3;

fn main() -> Result<(), Box<dyn Error>> {
    let tuning = Tuning::default();
    let world = World::new(builtin_level("course").ok_or("no level")?, &tuning)?;
    let mut game = Game::new(Simulation::new(Arc::new(world), tuning, 1)?)?;
    let mut script = SCRIPT.iter().peekable();
    println!("frame_ms ticks alpha x y z");
    for (i, now_ns) in frame_times(FPS, 1, SECONDS * NS_PER_SECOND).enumerate() {
        // 1. The events up to now, before advancing (a game polls its devices here).
        while let Some(&&(ms, x, z)) = script.peek() {
            if ms * 1_000_000 > now_ns {
                break;
            }
            let input = Input {
                steer_x: x,
                steer_z: z,
                ..Input::default()
            };
            game.input(ms * 1_000_000, 0, input)?;
            script.next();
        }
        // 2. The ticks due, and the picture between the last two states.
        let frame = game.frame(now_ns);
        // 3. Draw (here: print about seven frames a second).
        if i % 20 == 0 {
            let [x, y, z] = frame.positions[0];
            println!(
                "{:8.3} {:5} {:.4} {x:8.3} {y:8.3} {z:8.3}",
                now_ns as f64 / 1e6,
                frame.info.total_ticks,
                frame.info.alpha,
            );
        }
    }
    println!("hash {:016x}", game.simulation().state_hash());
    Ok(())
}
