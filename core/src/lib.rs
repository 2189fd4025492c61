//! # pogo-core
//!
//! The deterministic simulation core of a self-bouncing pogo stick. Same level, same tuning,
//! same per-tick inputs ⇒ the same state, bit for bit, on every machine, in every build profile
//! and at every render frame rate.
//!
//! ## How it works
//!
//! 1. Build a [`Tuning`] from a [`TuningSpec`] (defaults, a tuning file, `--set` overrides, or
//!    [`design`]ed from jump goals) and a [`world::World`] from a level description: seconds
//!    become ticks and degrees cosine thresholds once, the broad phase is built once.
//! 2. Step a [`Simulation`] with one [`Input`] per player per tick — or let a
//!    [`driver::Driver`] turn render frames and timestamped input events into ticks. Every
//!    quantity is an [`Fx`] (32.32 fixed point whose operators saturate, never wrap or panic)
//!    or a [`Vec3`] of them; time is counted in [`Ticks`].
//! 3. Read the [`SimState`] to render it (the [`Events::TELEPORT`] flag says when not to
//!    interpolate), hash it ([`SimState::state_hash`], documented byte layout), snapshot and
//!    restore it for rollback ([`SyncTest`] checks that).
//!
//! The rules themselves are pure functions, usable on their own: [`contact::classify`] decides
//! what a touch is, [`launch::compute`] turns a landing into a launch, [`motion::integrate`]
//! moves a body one tick with the exact constant-acceleration update.
//!
//! ```
//! use pogo_core::{launch, Fx, Tuning, Vec3};
//!
//! let tuning = Tuning::default();
//! // Landing straight down at 12 m/s on flat, static ground, no lean, no combo.
//! let landing = launch::Landing {
//!     normal: Vec3::UP,
//!     lean_up: Vec3::UP,
//!     velocity: Vec3::new(Fx::ZERO, Fx::from_int(-12), Fx::ZERO),
//!     surface_velocity: Vec3::ZERO,
//!     combo: 0,
//! };
//! let out = launch::compute(&landing, &tuning);
//! // base 12 + 12 · transfer 0.05 = 12.6 m/s, straight up (0.05 is not a binary fraction,
//! // so the product carries rounding below 10⁻⁹).
//! assert_eq!(out.velocity.x, Fx::ZERO);
//! assert!((out.velocity.y - Fx::lit("12.6")).abs() < Fx::lit("0.000001"));
//! ```
//!
//! ## Invariants
//!
//! No I/O, no floats, no `unsafe`, no panics on any input: every arithmetic operation
//! saturates, and every loop is bounded.

#![no_std]
#![forbid(unsafe_code)]
#![deny(clippy::float_arithmetic)]
#![warn(missing_debug_implementations)]

extern crate alloc;

pub mod air;
pub mod bot;
mod broad_phase;
pub mod contact;
pub mod design;
pub mod driver;
mod fx;
mod hash;
mod input;
pub mod launch;
mod lean;
pub mod motion;
mod pogo;
mod sim;
mod step;
pub mod sweep;
mod sync_test;
#[cfg(test)]
mod test_util;
mod tick;
mod tuning;
mod vec3;
pub mod world;

/// Version of the simulation rules: what a tick computes. Recorded in replays; bumped, with
/// the golden files regenerated and the reason in the commit message, whenever a change makes
/// any golden hash change. A verifier refuses replays of another rules version.
pub const RULES_VERSION: u32 = 2;

pub use fx::{Fx, ParseFxError};
pub use input::{Buttons, Input, STEER_MAX};
pub use lean::Lean;
pub use pogo::{Compression, Events, Launch, Pogo, State, TipMemory};
pub use sim::{PLAYERS_MAX, SimError, SimState, Simulation, Snapshot};
pub use step::{SPEED_MAX, capsule};
pub use sync_test::{DISTANCE_MAX, Desync, SyncTest};
pub use tick::Ticks;
pub use tuning::{Derived, Key, Tuning, TuningError, TuningSpec, seconds_to_ticks};
pub use vec3::Vec3;
