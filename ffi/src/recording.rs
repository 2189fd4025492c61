//! A recorder's two calls that read its simulation (`pogo_recorder_record`,
//! `pogo_recorder_finish`), and the check that a call stepping and recording many ticks (a
//! batch step, a driver's frame) makes before it runs any ([`check_room`]): both objects are
//! taken from the registry, so these sit above it (`handle.rs` holds the recorder,
//! `recorder.rs` is the recording).

use pogo_core::{Input, PLAYERS_MAX};

use crate::error::Error;
use crate::handle::Registry;
use crate::recorder::{RECORD_TICKS_MAX, Stepped};
use crate::types::{PogoRecorder, PogoSim};

/// Records the tick the simulation of `recorder` just stepped (`pogo_recorder_record`).
pub fn record_tick(reg: &mut Registry, recorder: PogoRecorder) -> Result<(), Error> {
    let (sim_h, needs_hash) = {
        let r = reg.recorder_mut(recorder)?;
        (r.sim, r.needs_hash()?)
    };
    let sim = reg.sim(sim_h).map_err(|e| {
        Error::new(
            e.status,
            format_args!("the recorder's simulation: {}", e.message),
        )
    })?;
    let stepped = Stepped {
        tick: sim.sim.state().tick.0,
        last: sim.last_step.map(|t| t.0),
        inputs: {
            let mut inputs = [Input::default(); PLAYERS_MAX];
            for (slot, input) in inputs.iter_mut().zip(&sim.last_inputs) {
                *slot = *input;
            }
            inputs
        },
        players: sim.last_inputs.len(),
        hash: needs_hash.then(|| sim.sim.state_hash()),
    };
    reg.recorder_mut(recorder)?.record(stepped)
}

/// Finishes `recorder` with the outcome its simulation reached (`pogo_recorder_finish`).
pub fn finish(reg: &mut Registry, recorder: PogoRecorder) -> Result<(), Error> {
    let sim_h = reg.recorder(recorder)?.sim;
    let sim = reg.sim(sim_h).map_err(|e| {
        Error::new(
            e.status,
            format_args!("the recorder's simulation: {}", e.message),
        )
    })?;
    let state = sim.sim.state();
    let (tick, finish, hash) = (state.tick.0, state.finish_ticks(), state.state_hash());
    reg.recorder_mut(recorder)?.finish(tick, finish, hash)
}

/// Before a call that steps simulation `sim` (now at tick `at`) up to `ticks` times and
/// records each tick with `recorder` (a batch step, a driver's frame): the recorder records
/// that simulation, from that tick, and has room for them all. Nothing runs otherwise.
pub fn check_room(
    reg: &Registry,
    recorder: PogoRecorder,
    sim: PogoSim,
    at: u32,
    ticks: u32,
) -> Result<(), Error> {
    let recorder = reg.recorder(recorder)?;
    if recorder.sim != sim {
        return Err(Error::mismatch(
            "the recorder records another simulation than this one",
        ));
    }
    let recorded = recorder.ticks();
    if recorded != at || recorder.bytes().is_ok() {
        return Err(Error::state(format_args!(
            "the recorder is not recording this simulation's next tick ({recorded} ticks \
             recorded, the simulation is at tick {at}, or it has finished)"
        )));
    }
    if u64::from(recorded) + u64::from(ticks) > u64::from(RECORD_TICKS_MAX) {
        return Err(Error::limit(format_args!(
            "a recording holds at most {RECORD_TICKS_MAX} ticks"
        )));
    }
    Ok(())
}
