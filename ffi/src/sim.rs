//! Simulations as handle objects: a `pogo_core::Simulation`, plus what the boundary needs
//! besides — the pogos before the last tick (the `previous` state a renderer interpolates
//! from) and the inputs that tick used (what a recorder records, so a caller cannot record
//! other inputs than it stepped with).

use pogo_core::{Buttons, Events, Fx, Input, PLAYERS_MAX, Pogo, Simulation, State, Ticks};

use crate::error::Error;
use crate::snapshot;
use crate::types::{
    POGO_EVENT_BODY_HIT, POGO_EVENT_BOUNCE, POGO_EVENT_CHECKPOINT, POGO_EVENT_DEATH,
    POGO_EVENT_FINISH, POGO_EVENT_LAUNCH, POGO_EVENT_PERFECT, POGO_EVENT_RICOCHET, POGO_EVENT_STUN,
    POGO_EVENT_TELEPORT, POGO_EVENT_TRICK_FAILED, POGO_EVENT_TRICK_LANDED,
    POGO_EVENT_TRICK_STARTED, POGO_STATE_AIRBORNE, POGO_STATE_COMPRESSION, POGO_STATE_FINISHED,
    POGO_STATE_RESPAWN, POGO_STATE_STUNNED, PogoInput, PogoPlayerState, PogoStatus,
};

// The event bits are core's, one for one.
const _: () = {
    let pairs = [
        (POGO_EVENT_BOUNCE, Events::BOUNCE),
        (POGO_EVENT_PERFECT, Events::PERFECT),
        (POGO_EVENT_LAUNCH, Events::LAUNCH),
        (POGO_EVENT_RICOCHET, Events::RICOCHET),
        (POGO_EVENT_BODY_HIT, Events::BODY_HIT),
        (POGO_EVENT_STUN, Events::STUN),
        (POGO_EVENT_TRICK_STARTED, Events::TRICK_STARTED),
        (POGO_EVENT_TRICK_LANDED, Events::TRICK_LANDED),
        (POGO_EVENT_TRICK_FAILED, Events::TRICK_FAILED),
        (POGO_EVENT_CHECKPOINT, Events::CHECKPOINT),
        (POGO_EVENT_FINISH, Events::FINISH),
        (POGO_EVENT_DEATH, Events::DEATH),
        (POGO_EVENT_TELEPORT, Events::TELEPORT),
    ];
    let mut i = 0;
    while i < pairs.len() {
        assert!(pairs[i].0 == pairs[i].1.0 as u32);
        i += 1;
    }
};

/// A simulation handle's object.
#[derive(Debug)]
pub struct SimObject {
    pub sim: Simulation,
    /// Every pogo before the last tick (equal to the current ones after creation or restore).
    pub previous: Vec<Pogo>,
    /// The number of the last tick stepped; `None` after creation or restore, when no tick
    /// has been stepped since.
    pub last_step: Option<Ticks>,
    /// The inputs of that tick, one per player (kept, not reallocated, from tick to tick).
    pub last_inputs: Vec<Input>,
}

impl SimObject {
    pub fn new(sim: Simulation) -> SimObject {
        SimObject {
            previous: sim.state().pogos.clone(),
            last_inputs: Vec::with_capacity(sim.state().pogos.len()),
            sim,
            last_step: None,
        }
    }

    pub fn players(&self) -> usize {
        self.sim.state().pogos.len()
    }

    /// Checks one input per player, then runs one tick.
    pub fn step_checked(&mut self, inputs: &[PogoInput]) -> Result<(), Error> {
        if inputs.len() != self.players() {
            return Err(Error::invalid(format_args!(
                "{} inputs for {} players: pass exactly one per player",
                inputs.len(),
                self.players()
            )));
        }
        let mut checked = [Input::default(); PLAYERS_MAX];
        for (player, (slot, i)) in checked.iter_mut().zip(inputs).enumerate() {
            *slot = input(i, player)?;
        }
        self.step(&checked[..inputs.len()]);
        Ok(())
    }

    /// Runs one tick with checked inputs (one per player).
    pub fn step(&mut self, inputs: &[Input]) {
        self.previous.clone_from(&self.sim.state().pogos);
        let tick = self.sim.state().tick;
        self.sim.step(inputs);
        self.last_step = Some(tick);
        self.last_inputs.clear();
        self.last_inputs.extend_from_slice(inputs);
    }

    /// Player `player`'s pogo now (`previous` false) or before the last tick.
    pub fn pogo(&self, player: u32, previous: bool) -> Result<&Pogo, Error> {
        let pogos = if previous {
            &self.previous
        } else {
            &self.sim.state().pogos
        };
        pogos.get(player as usize).ok_or_else(|| {
            Error::invalid(format_args!(
                "player {player} does not exist (players: {})",
                pogos.len()
            ))
        })
    }

    pub fn snapshot(&self) -> Vec<u8> {
        snapshot::encode(&self.sim)
    }

    /// Puts the state back to the snapshot in `bytes`, if it is a valid snapshot of this
    /// simulation; otherwise changes nothing.
    pub fn restore(&mut self, bytes: &[u8]) -> Result<(), Error> {
        let state = snapshot::decode(bytes, &self.sim).map_err(|e| {
            let status = if e.is_mismatch() {
                PogoStatus::Mismatch
            } else {
                PogoStatus::InvalidSnapshot
            };
            Error::new(status, e)
        })?;
        self.previous.clone_from(&state.pogos);
        *self.sim.state_mut() = state;
        self.last_step = None;
        Ok(())
    }
}

/// A caller's input, checked: undefined button bits are refused (steer −128 is fine: the
/// core reads it as −127).
pub fn input(i: &PogoInput, player: usize) -> Result<Input, Error> {
    if i.buttons & !Buttons::ALL.0 != 0 {
        return Err(Error::invalid(format_args!(
            "input of player {player}: buttons {:#04x} has undefined bits (only POGO_BUTTON_TRICK \
             and POGO_BUTTON_DIVE exist)",
            i.buttons
        )));
    }
    Ok(Input {
        steer_x: i.steer_x,
        steer_z: i.steer_z,
        buttons: Buttons(i.buttons),
    })
}

/// A core input as the boundary's struct.
pub fn to_c_input(i: Input) -> PogoInput {
    PogoInput {
        steer_x: i.steer_x,
        steer_z: i.steer_z,
        buttons: i.buttons.0,
    }
}

/// A fixed-point value as a double, for rendering: raw / 2³² (exact for |raw| < 2⁵³).
pub fn to_f64(x: Fx) -> f64 {
    x.to_bits() as f64 / (1u64 << Fx::FRAC_BITS) as f64
}

fn state_code(state: State) -> u32 {
    match state {
        State::Respawn => POGO_STATE_RESPAWN,
        State::Airborne => POGO_STATE_AIRBORNE,
        State::Compression => POGO_STATE_COMPRESSION,
        State::Stunned => POGO_STATE_STUNNED,
        State::Finished => POGO_STATE_FINISHED,
    }
}

/// A pogo as the boundary's struct.
pub fn player_state(p: &Pogo) -> PogoPlayerState {
    let v3 = |v: pogo_core::Vec3| [v.x, v.y, v.z];
    let raw3 = |v: pogo_core::Vec3| v3(v).map(Fx::to_bits);
    let f3 = |v: pogo_core::Vec3| v3(v).map(to_f64);
    PogoPlayerState {
        position_raw: raw3(p.position),
        velocity_raw: raw3(p.velocity),
        lean_raw: [p.lean.x.to_bits(), p.lean.z.to_bits()],
        apex_raw: p.apex.to_bits(),
        position: f3(p.position),
        velocity: f3(p.velocity),
        lean: [to_f64(p.lean.x), to_f64(p.lean.z)],
        apex: to_f64(p.apex),
        state: state_code(p.state),
        combo: p.combo,
        bounces: p.bounces,
        events: u32::from(p.events.0),
        finished: u32::from(p.finish_tick.is_some()),
        finish_tick: p.finish_tick.map_or(0, |t| t.0),
        has_checkpoint: u32::from(p.checkpoint.is_some()),
        checkpoint: p.checkpoint.unwrap_or(0),
        stun_ticks_left: p.stun_ticks_left,
        trick_active: u32::from(p.trick_ticks_left.is_some()),
        trick_ticks_left: p.trick_ticks_left.unwrap_or(0),
        reserved: 0,
    }
}
