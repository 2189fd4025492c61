//! A demo bot that hops along a level's `bot_path`, for demos, tests and benchmarks.
//!
//! Deterministic like everything in core: its input for a tick is a pure function of its own
//! small state (the next waypoint) and the pogo's state, so a bot run is reproducible and can be
//! recorded like a human's. It is not clever: it aims each hop at the next waypoint by leaning
//! toward it while compressed and steering in the air so that it arrives at the waypoint's
//! height above it, and moves on to the next waypoint once it lands within `ARRIVE_RADIUS`.
//!
//! Like a person, it changes its input a few times a second, not every tick: it decides every
//! `DECISION_TICKS` ticks (and on landing), on a coarse stick grid. That keeps its replays small
//! (run-length encoding) and makes it a fair stand-in for human input in benchmarks.

use crate::fx::Fx;
use crate::input::{Input, STEER_MAX};
use crate::pogo::{Events, Pogo, State};
use crate::tuning::Tuning;
use crate::vec3::Vec3;
use crate::world::World;

/// A landing this close to the waypoint (horizontally, m) reaches it.
pub const ARRIVE_RADIUS: Fx = Fx::from_int(1);
/// The fastest horizontal speed the bot asks for (m/s), under the 10 m/s launch cap.
const SPEED_WANTED_MAX: Fx = Fx::from_int(9);
/// Speed error (m/s) that deflects the stick fully.
const SPEED_ERROR_FULL: Fx = Fx::from_int(2);
/// Horizontal distance (m) at which the bot leans fully toward the waypoint while compressed.
const LEAN_DISTANCE_FULL: Fx = Fx::from_int(8);
/// The bot decides anew every this many ticks (10 Hz at 60 Hz), or when it lands.
pub const DECISION_TICKS: u32 = 6;
/// Stick values are multiples of this (plus full deflection, 127).
const STICK_STEP: i64 = 16;
/// Shortest time-to-landing estimate (s), so the desired speed stays finite.
const LANDING_TIME_MIN: Fx = Fx::lit("0.15");

/// The demo bot. Its state is not part of the simulation's [`Snapshot`](crate::Snapshot):
/// to roll back a bot-driven run, clone the bot when taking the snapshot and put the clone
/// back when restoring (the `Snapshot` docs show it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bot {
    /// Index into the level's `bot_path` of the waypoint being aimed at.
    pub next: usize,
    /// The input being held, and for how many more ticks.
    held: Input,
    hold_ticks: u32,
}

impl Bot {
    /// A bot aiming at the level's first waypoint.
    pub fn new() -> Bot {
        Bot::default()
    }

    /// The input for the next tick, given the pogo's state after the last one.
    pub fn input(&mut self, world: &World, tuning: &Tuning, pogo: &Pogo) -> Input {
        let landed = pogo.events.contains(Events::BOUNCE) || pogo.events.contains(Events::TELEPORT);
        if self.hold_ticks > 0 && !landed {
            self.hold_ticks -= 1;
            return self.held;
        }
        self.held = self.decide(world, tuning, pogo);
        self.hold_ticks = DECISION_TICKS - 1;
        self.held
    }

    fn decide(&mut self, world: &World, tuning: &Tuning, pogo: &Pogo) -> Input {
        let path = &world.desc().bot_path;
        if pogo.events.contains(Events::TELEPORT) {
            self.next = nearest_waypoint(path, pogo.position, self.next);
        }
        if pogo.state == State::Compression && self.next < path.len() {
            let to = path[self.next] - pogo.position;
            if to.horizontal().length() < ARRIVE_RADIUS {
                self.next += 1;
            }
        }
        let Some(&target) = path.get(self.next) else {
            return Input::default();
        };
        let to_target = (target - pogo.position).horizontal();
        let stick = match pogo.state {
            State::Compression => to_target.clamp_length(LEAN_DISTANCE_FULL) / LEAN_DISTANCE_FULL,
            State::Airborne => {
                let landing_in = time_to_height(pogo, target.y, tuning).max(LANDING_TIME_MIN);
                let wanted = (to_target / landing_in).clamp_length(SPEED_WANTED_MAX);
                (wanted - pogo.velocity.horizontal()).clamp_length(SPEED_ERROR_FULL)
                    / SPEED_ERROR_FULL
            }
            State::Respawn | State::Stunned | State::Finished => Vec3::ZERO,
        };
        Input {
            steer_x: axis(stick.x),
            steer_z: axis(stick.z),
            buttons: Default::default(),
        }
    }
}

/// Seconds until the tip, under plain gravity, comes down to `height` (or, if it cannot rise
/// that high, until the apex).
fn time_to_height(pogo: &Pogo, height: Fx, tuning: &Tuning) -> Fx {
    let g = tuning.spec().gravity;
    let vy = pogo.velocity.y;
    // y + vy·t − g·t²/2 = height  ⇒  t = (vy + √(vy² + 2g(y − height))) / g
    let discriminant = vy * vy + Fx::from_int(2) * g * (pogo.position.y - height);
    (vy + discriminant.max(Fx::ZERO).sqrt()) / g
}

/// The waypoint nearest `p` among the first `upto + 1`, where a respawned bot resumes.
fn nearest_waypoint(path: &[Vec3], p: Vec3, upto: usize) -> usize {
    let mut best = 0;
    let mut best_distance = Fx::MAX;
    for (i, w) in path.iter().enumerate().take(upto.saturating_add(1)) {
        let distance = (*w - p).length();
        if distance < best_distance {
            best = i;
            best_distance = distance;
        }
    }
    best
}

/// A stick axis value from −1…1, on the bot's coarse grid.
fn axis(value: Fx) -> i8 {
    let max = i64::from(STEER_MAX);
    let scaled = value.clamp(-Fx::ONE, Fx::ONE).mul_int(max).round_to_int();
    let snapped = if scaled.abs() >= max - STICK_STEP / 2 {
        scaled.signum() * max
    } else {
        scaled / STICK_STEP * STICK_STEP
    };
    snapped.clamp(-max, max) as i8
}
