//! The batch step (`pogo_sim_step_many`): many ticks in one call, from every tick's inputs
//! already in memory, each exactly the tick `pogo_sim_step` runs — what a ghost or a replay
//! steps with, without a call a tick.

use pogo_core::{Buttons, Input, PLAYERS_MAX};

use crate::error::Error;
use crate::handle::Registry;
use crate::recording;
use crate::sim::SimObject;
use crate::types::{POGO_STEP_TICKS_MAX, PogoInput, PogoRecorder, PogoSim};

/// What one `pogo_sim_step_many` call did: the ticks it ran, and each player's events over
/// them, OR'd (`POGO_EVENT_*` bits; players past the simulation's count are 0).
#[derive(Clone, Copy, Debug)]
pub struct Batch {
    pub ran: u32,
    pub events: [u32; PLAYERS_MAX],
}

impl Batch {
    /// Runs one tick of `object` with `row` (one `PogoInput`'s bytes per player, checked),
    /// keeping the previous pogos and the inputs (`keep`; only the last tick of a batch
    /// without a stop or a recorder may skip it: they are read only after the call, or by
    /// the recorder after each tick), and ORs the tick's events in. Returns whether a
    /// player's events share a bit with `stop_events`.
    fn tick(
        &mut self,
        object: &mut SimObject,
        tick_inputs: &mut [Input],
        row: &[u8],
        keep: bool,
        stop_events: u32,
    ) -> bool {
        for (slot, bytes) in tick_inputs
            .iter_mut()
            .zip(row.chunks_exact(size_of::<PogoInput>()))
        {
            *slot = input_of(bytes);
        }
        if keep {
            object.step(tick_inputs);
        } else {
            object.sim.step(tick_inputs);
        }
        self.ran += 1;
        let mut stop = false;
        for (all, pogo) in self.events.iter_mut().zip(&object.sim.state().pogos) {
            let events = u32::from(pogo.events.0);
            *all |= events;
            stop |= events & stop_events != 0;
        }
        stop
    }
}

/// The bytes of one `PogoInput` (steer x, steer z, buttons) as a core input, unchecked.
fn input_of(bytes: &[u8]) -> Input {
    Input {
        steer_x: bytes[0] as i8,
        steer_z: bytes[1] as i8,
        buttons: Buttons(bytes[2]),
    }
}

/// Refuses more ticks than one `pogo_sim_step_many` runs (before the inputs are read).
pub fn check_ticks(ticks: u32) -> Result<(), Error> {
    if ticks > POGO_STEP_TICKS_MAX {
        return Err(Error::invalid(format_args!(
            "ticks {ticks} is more than one call runs ({POGO_STEP_TICKS_MAX}): step a longer \
             run in several calls"
        )));
    }
    Ok(())
}

/// `pogo_sim_step_many`: runs up to `ticks` ticks of `sim_h` with `inputs` — the bytes of
/// `ticks` × players `PogoInput`s, tick-major (tick `t`'s input of player `p` at index
/// `t · players + p`), which the caller has cut to exactly that length — recording each tick
/// with `recorder_h` unless its id is 0, and stopping after the first tick in which a
/// player's events share a bit with `stop_events` (0: never). Everything that could refuse
/// is checked before the first tick runs (the tick count, every input's buttons, the
/// recorder), so on error nothing has changed. Each tick is exactly what `pogo_sim_step`
/// runs with the same inputs.
pub fn step_many(
    reg: &mut Registry,
    sim_h: PogoSim,
    recorder_h: PogoRecorder,
    inputs: &[u8],
    ticks: u32,
    stop_events: u32,
) -> Result<Batch, Error> {
    let players = reg.sim(sim_h)?.players();
    check_ticks(ticks)?;
    let width = players * size_of::<PogoInput>();
    if inputs.len() != ticks as usize * width {
        return Err(Error::invalid(format_args!(
            "{} bytes of inputs for {ticks} ticks of {players} players",
            inputs.len()
        )));
    }
    for (at, i) in inputs.chunks_exact(size_of::<PogoInput>()).enumerate() {
        if i[2] & !Buttons::ALL.0 != 0 {
            return Err(Error::invalid(format_args!(
                "input of player {} at tick {} of the batch: buttons {:#04x} has undefined \
                 bits (only POGO_BUTTON_TRICK and POGO_BUTTON_DIVE exist); nothing ran",
                at % players,
                at / players,
                i[2]
            )));
        }
    }
    let recording = recorder_h.id != 0;
    if recording {
        let at = reg.sim(sim_h)?.sim.state().tick.0;
        recording::check_room(reg, recorder_h, sim_h, at, ticks)?;
    }

    let mut batch = Batch {
        ran: 0,
        events: [0; PLAYERS_MAX],
    };
    let mut tick_inputs = [Input::default(); PLAYERS_MAX];
    let tick_inputs = &mut tick_inputs[..players];
    let rows = inputs.chunks_exact(width);
    if !recording {
        // The simulation looked up once for the whole batch.
        let object = reg.sim_mut(sim_h)?;
        for (t, row) in rows.enumerate() {
            let keep = stop_events != 0 || t + 1 == ticks as usize;
            if batch.tick(object, tick_inputs, row, keep, stop_events) {
                break;
            }
        }
        return Ok(batch);
    }
    // Recording: the recorder takes the simulation from the registry after each tick.
    for row in rows {
        let stop = batch.tick(reg.sim_mut(sim_h)?, tick_inputs, row, true, stop_events);
        recording::record_tick(reg, recorder_h)?;
        if stop {
            break;
        }
    }
    Ok(batch)
}
