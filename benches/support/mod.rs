//! Shared set-up of the benchmarks: recorded bot runs on the built-in levels, and the f64
//! measuring stick.
//!
//! A benchmark of "one tick" must not time the bot (its decisions are not part of a tick) nor
//! the set-up of a run, so each level's run is recorded once, before any timing: the demo bot
//! drives a fresh simulation until it finishes (or for a fixed number of ticks on `flat`,
//! which has no finish), and its per-tick inputs are kept. The benchmarks then replay those
//! inputs (see `tick.rs`).

#![allow(dead_code)] // each bench target uses its own part of this module

pub mod float;

use std::sync::Arc;

use pogo::core::bot::Bot;
use pogo::core::world::{World, WorldDesc};
use pogo::core::{Input, Simulation, Snapshot, Tuning};
use pogo::replay::builtin_level;

/// The levels every tick benchmark runs on, and the most ticks recorded on each (`flat` has
/// no finish: a minute of the bot's square loop, then hopping in place).
pub const LEVELS: &[(&str, u32)] = &[("flat", 3600), ("course", 20_000), ("sprawl", 20_000)];

/// A bot run, recorded: the simulation (at tick 0), the inputs of every tick until the finish
/// (inclusive) or the tick limit, and what the run did.
pub struct Recorded {
    pub level: String,
    pub sim: Simulation,
    pub start: Snapshot,
    pub inputs: Vec<Input>,
    /// The tick at which the pogo finished, if it did.
    pub finish_tick: Option<u32>,
    /// The state hash after the last recorded tick.
    pub end_hash: u64,
}

/// A fresh single-player simulation of a built-in level with the default tuning.
pub fn simulation(level: &str) -> Simulation {
    let desc = builtin_level(level).unwrap_or_else(|| panic!("no built-in level {level}"));
    simulation_of(desc)
}

/// A fresh single-player simulation of `desc` with the default tuning.
pub fn simulation_of(desc: WorldDesc) -> Simulation {
    let tuning = Tuning::default();
    let world = World::new(desc, &tuning).expect("a valid level");
    Simulation::new(Arc::new(world), tuning, 1).expect("one player")
}

/// Records the bot on the built-in `level` for at most `ticks_max` ticks (stopping after the
/// finish).
pub fn record(level: &str, ticks_max: u32) -> Recorded {
    record_in(level.to_string(), simulation(level), ticks_max)
}

/// Records the bot in `sim` (at tick 0), as [`record`].
pub fn record_in(level: String, mut sim: Simulation, ticks_max: u32) -> Recorded {
    let start = sim.snapshot();
    let mut bot = Bot::new();
    let mut inputs = Vec::new();
    while inputs.len() < ticks_max as usize {
        let input = bot.input(sim.world(), sim.tuning(), &sim.state().pogos[0]);
        sim.step(&[input]);
        inputs.push(input);
        if sim.state().pogos[0].finish_tick.is_some() {
            break;
        }
    }
    let end_hash = sim.state_hash();
    let finish_tick = sim.state().pogos[0].finish_tick.map(|t| t.0);
    sim.restore(&start);
    // Replaying the recorded inputs must give the very same run (the bot is deterministic and
    // only reads the state), or the benchmark would time something else.
    let mut replay = sim.clone();
    for input in &inputs {
        replay.step(&[*input]);
    }
    assert_eq!(replay.state_hash(), end_hash, "{level}: replay differs");
    Recorded {
        level,
        sim,
        start,
        inputs,
        finish_tick,
        end_hash,
    }
}

/// The recorded runs of the levels the command line asks for, in `LEVELS` order: if any
/// argument names a level (a filter like `course` or `tick/fixed/sprawl`), only those levels
/// are recorded (and so benchmarked), which keeps set-up out of a profile of one level;
/// otherwise all of them.
pub fn record_selected() -> Vec<Recorded> {
    let named = level_named();
    let any_named = LEVELS.iter().any(|&(level, _)| named(level));
    LEVELS
        .iter()
        .filter(|&&(level, _)| !any_named || named(level))
        .map(|&(level, max)| record(level, max))
        .collect()
}

/// Whether a command-line argument (a benchmark filter) mentions `name`.
pub fn level_named() -> impl Fn(&str) -> bool {
    let args: Vec<String> = std::env::args().skip(1).collect();
    move |name: &str| args.iter().any(|a| a.contains(name))
}

/// Replays a recorded run tick by tick without end: after the last recorded tick the state is
/// restored to tick 0. Used by the tick benchmarks so that, over many iterations, every tick
/// of the run is timed equally often.
pub struct Cursor<'a> {
    pub run: &'a Recorded,
    pub sim: Simulation,
    pub next: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(run: &'a Recorded) -> Cursor<'a> {
        Cursor {
            run,
            sim: run.sim.clone(),
            next: 0,
        }
    }

    /// Steps `n` ticks, restoring to tick 0 at the end of the run; returns the time spent in
    /// the steps only (restores are not timed).
    pub fn step_timed(&mut self, mut n: u64) -> std::time::Duration {
        let mut total = std::time::Duration::ZERO;
        while n > 0 {
            if self.next == self.run.inputs.len() {
                self.sim.restore(&self.run.start);
                self.next = 0;
            }
            let chunk = (self.run.inputs.len() - self.next).min(n as usize);
            let inputs = &self.run.inputs[self.next..self.next + chunk];
            let started = std::time::Instant::now();
            for input in inputs {
                self.sim.step(std::slice::from_ref(input));
            }
            total += started.elapsed();
            self.next += chunk;
            n -= chunk as u64;
        }
        total
    }
}

/// The f64 measuring stick replaying a recorded run, like [`Cursor`].
pub struct FloatCursor<'a> {
    pub inputs: &'a [Input],
    pub sim: float::FSim<'a>,
    pub start: float::FSnapshot,
    pub next: usize,
}

impl<'a> FloatCursor<'a> {
    pub fn new(
        run: &'a Recorded,
        world: &'a float::FWorld,
        tuning: &'a float::FTuning,
    ) -> FloatCursor<'a> {
        let sim = float::FSim::new(world, tuning);
        FloatCursor {
            inputs: &run.inputs,
            start: sim.snapshot(),
            sim,
            next: 0,
        }
    }

    /// As [`Cursor::step_timed`].
    pub fn step_timed(&mut self, mut n: u64) -> std::time::Duration {
        let mut total = std::time::Duration::ZERO;
        while n > 0 {
            if self.next == self.inputs.len() {
                self.sim.restore(&self.start);
                self.next = 0;
            }
            let chunk = (self.inputs.len() - self.next).min(n as usize);
            let inputs = &self.inputs[self.next..self.next + chunk];
            let started = std::time::Instant::now();
            for input in inputs {
                self.sim.step(*input);
            }
            total += started.elapsed();
            self.next += chunk;
            n -= chunk as u64;
        }
        total
    }
}

/// How closely the f64 run follows the fixed-point one on the same recorded inputs.
#[derive(Debug)]
pub struct Tracking {
    pub ticks: usize,
    /// Ticks before the tip positions first differ by more than 1 mm, 1 cm, 10 cm (`None`:
    /// never over the run).
    pub diverges_1mm: Option<usize>,
    pub diverges_1cm: Option<usize>,
    pub diverges_10cm: Option<usize>,
    /// The largest distance between the two tips at the end of a tick (m), and that tick.
    pub gap_max: (f64, usize),
    pub fixed_bounces: u32,
    pub float_bounces: u32,
    pub fixed_finish: Option<u32>,
    pub float_finish: Option<u32>,
    /// Ticks each run spent in compression (a cheap tick) and airborne (a swept tick).
    pub fixed_compression_ticks: usize,
    pub float_compression_ticks: usize,
}

/// Runs both on the recorded inputs and compares tip positions tick by tick.
pub fn tracking(run: &Recorded, world: &float::FWorld, tuning: &float::FTuning) -> Tracking {
    let mut fixed = run.sim.clone();
    fixed.restore(&run.start);
    let mut float = float::FSim::new(world, tuning);
    let mut out = Tracking {
        ticks: run.inputs.len(),
        diverges_1mm: None,
        diverges_1cm: None,
        diverges_10cm: None,
        gap_max: (0.0, 0),
        fixed_bounces: 0,
        float_bounces: 0,
        fixed_finish: None,
        float_finish: None,
        fixed_compression_ticks: 0,
        float_compression_ticks: 0,
    };
    for (tick, input) in run.inputs.iter().enumerate() {
        fixed.step(&[*input]);
        float.step(*input);
        let p = &fixed.state().pogos[0];
        let gap = (float::FPogo::from_fixed(p).position - float.pogo.position).length();
        if gap > out.gap_max.0 {
            out.gap_max = (gap, tick);
        }
        for (limit, slot) in [
            (0.001, &mut out.diverges_1mm),
            (0.01, &mut out.diverges_1cm),
            (0.1, &mut out.diverges_10cm),
        ] {
            if gap > limit && slot.is_none() {
                *slot = Some(tick);
            }
        }
        use pogo::core::State;
        out.fixed_compression_ticks += usize::from(p.state == State::Compression);
        out.float_compression_ticks += usize::from(float.pogo.state == State::Compression);
    }
    let p = &fixed.state().pogos[0];
    out.fixed_bounces = p.bounces;
    out.fixed_finish = p.finish_tick.map(|t| t.0);
    out.float_bounces = float.pogo.bounces;
    out.float_finish = float.pogo.finish_tick;
    out
}
