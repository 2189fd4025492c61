//! The frame driver across the boundary: `pogo_core::driver::Driver` (render frames in integer
//! nanoseconds, timestamped input events, each tick's input as of its own start), driving a
//! simulation handle and, optionally, a recorder of it.
//!
//! One `advance` call checks everything that could go wrong first — the driver, simulation
//! and recorder belong together, the recorder has room — then lets the driver decide which
//! ticks run with which inputs, then steps (and records) them. So a call either runs its ticks
//! completely or changes nothing.

use pogo_core::driver::{Driver, TICKS_PER_FRAME_MAX};
use pogo_core::{Input, PLAYERS_MAX, TuningSpec};

use crate::error::Error;
use crate::handle::Registry;
use crate::recording;
use crate::sim;
use crate::types::{
    DRIVER_DEF_COOKIE, POGO_TICKS_PER_FRAME_LIMIT, PogoDriver, PogoDriverDef, PogoFrameInfo,
    PogoInput, PogoRecorder, PogoSim,
};

/// Highest `ticks_per_frame_max`, which bounds the work one call can do (and the inputs it
/// buffers: 36 000 ticks × 16 players × 3 bytes).
const TICKS_PER_FRAME_LIMIT: u32 = POGO_TICKS_PER_FRAME_LIMIT;

pub fn default_def() -> PogoDriverDef {
    PogoDriverDef {
        internal_value: DRIVER_DEF_COOKIE,
        tick_rate: TuningSpec::default().tick_rate,
        players: 1,
        ticks_per_frame_max: TICKS_PER_FRAME_MAX,
    }
}

pub fn create(def: &PogoDriverDef) -> Result<Driver, Error> {
    if def.internal_value != DRIVER_DEF_COOKIE {
        return Err(Error::invalid(
            "PogoDriverDef was not initialised with pogo_default_driver_def()",
        ));
    }
    if !(1..=TICKS_PER_FRAME_LIMIT).contains(&def.ticks_per_frame_max) {
        return Err(Error::invalid(format_args!(
            "ticks_per_frame_max {} is outside 1…{TICKS_PER_FRAME_LIMIT}",
            def.ticks_per_frame_max
        )));
    }
    if def.players == 0 || def.players as usize > PLAYERS_MAX {
        return Err(Error::invalid(format_args!(
            "players {} is outside 1…{PLAYERS_MAX}",
            def.players
        )));
    }
    let driver = Driver::new(def.tick_rate, def.players as usize)
        .map_err(|e| Error::invalid(format_args!("driver: {e}")))?;
    Ok(driver.with_ticks_per_frame_max(def.ticks_per_frame_max))
}

/// Queues `input` as `player`'s input from `at_ns` on; returns the time it was filed at.
pub fn push_event(
    driver: &mut Driver,
    at_ns: u64,
    player: u32,
    input: &PogoInput,
) -> Result<u64, Error> {
    let input = sim::input(input, player as usize)?;
    driver
        .push_event(at_ns, player as usize, input)
        .map_err(|e| match e {
            pogo_core::driver::DriverError::QueueFull => Error::limit(e),
            _ => Error::invalid(e),
        })
}

/// Advances `driver` to `now_ns`, stepping `sim` through every tick that runs and recording
/// each with `recorder` (id 0: none).
pub fn advance(
    reg: &mut Registry,
    driver_h: PogoDriver,
    sim_h: PogoSim,
    recorder_h: PogoRecorder,
    now_ns: u64,
) -> Result<PogoFrameInfo, Error> {
    let recording = recorder_h.id != 0;
    // Everything that could refuse, before anything changes.
    let ticks_at_most = {
        let driver = reg.driver(driver_h)?;
        let sim = reg.sim(sim_h)?;
        let (players, rate) = (sim.players(), sim.sim.tuning().spec().tick_rate);
        if driver.players() != players {
            return Err(Error::mismatch(format_args!(
                "the driver is for {} players, the simulation has {players}",
                driver.players()
            )));
        }
        if driver.tick_rate() != rate {
            return Err(Error::mismatch(format_args!(
                "the driver runs at {} Hz, the simulation's tuning at {rate} Hz",
                driver.tick_rate()
            )));
        }
        let at = sim.sim.state().tick.0;
        if driver.total_ticks().0 != at {
            return Err(Error::mismatch(format_args!(
                "the driver has run {} ticks but the simulation is at tick {at}: one driver \
                 drives one simulation from its start (and not across a restore)",
                driver.total_ticks()
            )));
        }
        let due = driver.ticks_due(driver.now_ns().max(now_ns));
        let at_most = due.saturating_sub(at).min(driver.ticks_per_frame_max());
        if recording {
            recording::check_room(reg, recorder_h, sim_h, at, at_most)?;
        }
        at_most
    };

    let mut inputs: Vec<Input> = Vec::with_capacity(ticks_at_most as usize * PLAYERS_MAX);
    let frame = reg
        .driver_mut(driver_h)?
        .advance_to(now_ns, |_, tick_inputs| {
            inputs.extend_from_slice(tick_inputs)
        });
    let players = reg.sim(sim_h)?.players();
    for tick_inputs in inputs.chunks(players.max(1)) {
        reg.sim_mut(sim_h)?.step(tick_inputs);
        if recording {
            recording::record_tick(reg, recorder_h)?;
        }
    }
    Ok(PogoFrameInfo {
        alpha_raw: frame.alpha.to_bits(),
        alpha: sim::to_f64(frame.alpha),
        ticks_run: frame.ticks_run_this_frame,
        total_ticks: frame.total_ticks.0,
        ticks_pending: frame.ticks_pending,
        reserved: 0,
    })
}
