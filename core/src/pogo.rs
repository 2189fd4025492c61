//! The pogo's state: everything about one player that changes from tick to tick.
//!
//! Plain data, `Clone` and comparable: a snapshot is a copy. Every field is part of the
//! state hash (see [`crate::SimState::state_hash`] for the byte layout).

use crate::fx::Fx;
use crate::hash::Encoder;
use crate::input::Buttons;
use crate::lean::Lean;
use crate::tick::Ticks;
use crate::vec3::Vec3;
use crate::world::SurfaceId;

/// The five states of a pogo.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum State {
    /// Dead or not yet placed: the next tick teleports the pogo to its respawn point.
    Respawn,
    /// In the air, steering.
    Airborne,
    /// On a surface, moving with it, about to launch.
    Compression,
    /// In the air after a stun: no steering, no lean, until the stun wears off.
    Stunned,
    /// Reached a finish volume; frozen.
    Finished,
}

impl State {
    /// The state's name, as in trace files.
    pub const fn name(self) -> &'static str {
        match self {
            State::Respawn => "respawn",
            State::Airborne => "airborne",
            State::Compression => "compression",
            State::Stunned => "stunned",
            State::Finished => "finished",
        }
    }

    const fn code(self) -> u8 {
        match self {
            State::Respawn => 0,
            State::Airborne => 1,
            State::Compression => 2,
            State::Stunned => 3,
            State::Finished => 4,
        }
    }
}

/// A landing being compressed: what the launch at its end needs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Compression {
    /// Ticks until the launch (≥ 1 while compressing).
    pub ticks_left: u32,
    /// Unit surface normal of the landing.
    pub normal: Vec3,
    /// What the pogo landed on (and rides).
    pub surface: SurfaceId,
    /// The approach velocity relative to the surface at landing (m/s).
    pub approach: Vec3,
}

/// The last launch: when, from where, and off what. A later landing measures its hop from
/// this point carried along with the launch surface (a moving platform's travel since the
/// launch does not count as a hop).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Launch {
    /// The tick the launch happened in.
    pub tick: Ticks,
    /// The tip's position at the launch (m).
    pub point: Vec3,
    /// The surface launched from.
    pub surface: SurfaceId,
}

/// A tip contact that did not bounce when touched (too soon after a launch, or separating),
/// kept for the grace window so it can still bounce a tick or two later.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct TipMemory {
    /// Unit surface normal of the contact, pointing away from the surface.
    pub normal: Vec3,
    /// The surface touched.
    pub surface: SurfaceId,
    /// Ticks since it was last touched.
    pub age: u32,
}

/// What happened to a pogo during the last tick, as a bit set.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct Events(pub u16);

impl Events {
    /// Nothing happened.
    pub const NONE: Events = Events(0);
    /// Landed on a bounceable surface (compression starts).
    pub const BOUNCE: Events = Events(1 << 0);
    /// The landing was perfect (combo + 1).
    pub const PERFECT: Events = Events(1 << 1);
    /// Launched off a surface at the end of a compression.
    pub const LAUNCH: Events = Events(1 << 2);
    /// Glanced off a surface too steep or too fast to bounce on: the normal speed was
    /// reflected with `ricochet_restitution` and the combo reset.
    pub const RICOCHET: Events = Events(1 << 3);
    /// The body (above the tip zone) hit something.
    pub const BODY_HIT: Events = Events(1 << 4);
    /// Stunned (a hard body hit or a failed trick): no steering and no lean for `stun_time`,
    /// the combo reset.
    pub const STUN: Events = Events(1 << 5);
    /// The trick button was pressed in the air: a trick started.
    pub const TRICK_STARTED: Events = Events(1 << 6);
    /// Landed after the trick completed (combo + 1).
    pub const TRICK_LANDED: Events = Events(1 << 7);
    /// Landed before the trick completed (stun).
    pub const TRICK_FAILED: Events = Events(1 << 8);
    /// Entered a checkpoint other than the last one: the respawn point moved there.
    pub const CHECKPOINT: Events = Events(1 << 9);
    /// Entered a finish volume: the run is over, the pogo frozen.
    pub const FINISH: Events = Events(1 << 10);
    /// Entered a kill volume, fell below `kill_height` or left the world: respawns next tick.
    pub const DEATH: Events = Events(1 << 11);
    /// The pogo was moved without travelling (respawn): renderers must not interpolate across
    /// this tick.
    pub const TELEPORT: Events = Events(1 << 12);

    /// Whether every event of `other` happened (true for [`Events::NONE`]).
    pub const fn contains(self, other: Events) -> bool {
        self.0 & other.0 == other.0
    }

    /// Adds the events of `other`.
    pub fn insert(&mut self, other: Events) {
        self.0 |= other.0;
    }
}

/// One player's pogo.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Pogo {
    /// Where the pogo is in its bounce cycle.
    pub state: State,
    /// The tip, the body's lowest point (m).
    pub position: Vec3,
    /// Velocity of the tip (m/s; x east, y up, z south).
    pub velocity: Vec3,
    /// The stick's tilt, following the player's steering.
    pub lean: Lean,
    /// Perfect landings and landed tricks in a row; each adds `combo_bonus` (m/s) to the
    /// launch speed, up to `max_combo`. A ricochet, a stun or a respawn resets it.
    pub combo: u32,
    /// Landings that bounced, since the start of the run.
    pub bounces: u32,
    /// Highest tip height reached since the start of the run (m); `Fx::MIN` before the first
    /// tick.
    pub apex: Fx,
    /// The last launch, if any since the last respawn.
    pub last_launch: Option<Launch>,
    /// Ticks of stun left; steering and lean are off while it is non-zero.
    pub stun_ticks_left: u32,
    /// `Some(n)`: a trick is on, `n` ticks from completion (0 = complete, awaiting landing).
    pub trick_ticks_left: Option<u32>,
    /// Buttons held during the last tick (a trick starts on a press, not a hold).
    pub buttons_held: Buttons,
    /// The landing being compressed: `Some` exactly while the state is
    /// [`State::Compression`].
    pub compression: Option<Compression>,
    /// A tip contact that may still bounce within the grace window (`tip_grace_ticks`).
    pub tip_memory: Option<TipMemory>,
    /// The last checkpoint entered: where the pogo respawns.
    pub checkpoint: Option<u32>,
    /// The tick (0-based) in which the pogo entered a finish volume, once it has.
    pub finish_tick: Option<Ticks>,
    /// What happened during the last tick.
    pub events: Events,
}

impl Pogo {
    /// A pogo waiting to be placed at `spawn` by its first tick.
    pub fn new(spawn: Vec3) -> Pogo {
        Pogo {
            state: State::Respawn,
            position: spawn,
            velocity: Vec3::ZERO,
            lean: Lean::UPRIGHT,
            combo: 0,
            bounces: 0,
            apex: Fx::MIN,
            last_launch: None,
            stun_ticks_left: 0,
            trick_ticks_left: None,
            buttons_held: Buttons::NONE,
            compression: None,
            tip_memory: None,
            checkpoint: None,
            finish_tick: None,
            events: Events::NONE,
        }
    }

    /// Writes the canonical encoding, field by field in declaration order.
    ///
    /// Every field is named (no `..`), here and in the pogo's other field lists (the C ABI's
    /// snapshot, the replay diff, the floating-point measuring stick): a field added to `Pogo`, or to
    /// the structs it holds, is a compile error in each until it is encoded there too.
    pub(crate) fn encode(&self, e: &mut Encoder) {
        let Pogo {
            state,
            position,
            velocity,
            lean: Lean {
                x: lean_x,
                z: lean_z,
            },
            combo,
            bounces,
            apex,
            last_launch,
            stun_ticks_left,
            trick_ticks_left,
            buttons_held,
            compression,
            tip_memory,
            checkpoint,
            finish_tick,
            events,
        } = *self;
        e.u8(state.code());
        e.vec3(position);
        e.vec3(velocity);
        e.fx(lean_x);
        e.fx(lean_z);
        e.u32(combo);
        e.u32(bounces);
        e.fx(apex);
        e.bool(last_launch.is_some());
        if let Some(Launch {
            tick,
            point,
            surface,
        }) = last_launch
        {
            e.u32(tick.0);
            e.vec3(point);
            encode_surface(e, surface);
        }
        e.u32(stun_ticks_left);
        encode_option_u32(e, trick_ticks_left);
        e.u8(buttons_held.0);
        e.bool(compression.is_some());
        if let Some(Compression {
            ticks_left,
            normal,
            surface,
            approach,
        }) = compression
        {
            e.u32(ticks_left);
            e.vec3(normal);
            encode_surface(e, surface);
            e.vec3(approach);
        }
        e.bool(tip_memory.is_some());
        if let Some(TipMemory {
            normal,
            surface,
            age,
        }) = tip_memory
        {
            e.vec3(normal);
            encode_surface(e, surface);
            e.u32(age);
        }
        encode_option_u32(e, checkpoint);
        encode_option_u32(e, finish_tick.map(|t| t.0));
        e.u32(u32::from(events.0));
    }
}

fn encode_option_u32(e: &mut Encoder, v: Option<u32>) {
    e.bool(v.is_some());
    if let Some(v) = v {
        e.u32(v);
    }
}

fn encode_surface(e: &mut Encoder, s: SurfaceId) {
    let (tag, index) = match s {
        SurfaceId::Solid(i) => (0, i),
        SurfaceId::Platform(i) => (1, i),
        SurfaceId::Ramp(i) => (2, i),
    };
    e.u8(tag);
    e.u32(index);
}
