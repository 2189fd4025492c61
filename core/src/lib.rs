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
//! ## Quick start
//!
//! Build a level, step the pogo, read its state, hash it, snapshot and restore it:
//!
//! ```
//! use std::sync::Arc;
//! use pogo_core::world::{Aabb, Solid, World, WorldDesc};
//! use pogo_core::{Fx, Input, Simulation, State, Tuning, Vec3};
//!
//! // A level: a 40 m ground slab with its top at y = 0, the spawn 2 m above it.
//! let ground = Solid {
//!     bounds: Aabb::new(Vec3::new(Fx::from_int(-20), Fx::from_int(-1), Fx::from_int(-20)),
//!                       Vec3::new(Fx::from_int(20), Fx::ZERO, Fx::from_int(20))),
//!     no_bounce: false,
//! };
//! let level = WorldDesc {
//!     name: "quickstart".into(),
//!     spawn: Vec3::new(Fx::ZERO, Fx::from_int(2), Fx::ZERO),
//!     solids: vec![ground],
//!     ..WorldDesc::default()
//! };
//! let tuning = Tuning::default();
//! let world = Arc::new(World::new(level, &tuning)?);
//! let mut sim = Simulation::new(world, tuning, 1)?; // one player
//!
//! // Tick by tick, one input per player: steer east (x) for two seconds at 60 Hz.
//! let east = Input { steer_x: 127, ..Input::default() };
//! for _ in 0..120 {
//!     sim.step(&[east]);
//! }
//! let pogo = &sim.state().pogos[0];
//! assert_eq!(sim.state().tick.0, 120);
//! assert!(pogo.position.x > Fx::ZERO, "it moved east");
//! assert!(pogo.bounces >= 1 && pogo.state != State::Respawn);
//!
//! // The state hash: the same on every machine for the same level, tuning and inputs.
//! let hash = sim.state_hash();
//!
//! // Rollback: snapshot, step ahead on a guess, restore, step again with the real input.
//! let snapshot = sim.snapshot();
//! sim.step(&[Input::default()]);
//! sim.restore(&snapshot);
//! assert_eq!(sim.state_hash(), hash);
//! sim.step(&[east]);
//! assert_eq!(sim.state().tick.0, 121);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Levels usually come from JSON files or the built-in ones of `pogo-replay`
//! (`pogo_replay::builtin_level("course")`), which also records and verifies replays.
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
//! ## Staying in step with a server
//!
//! A game client and the leaderboard server that verifies its replays must run the very same
//! rules, bit for bit. Three things must match:
//!
//! - **The code.** The crates are not published: a game depends on the repository pinned to
//!   the commit the server runs (`pogo = { git = "…", rev = "…", default-features = false }`;
//!   `docs/embedding.md` gives the line). A lockfile does not travel with a dependency, and
//!   the versions of `fixed`, `cordic` and `xxhash-rust` are part of the result: start the
//!   game's `Cargo.lock` from the repository's and commit it.
//! - **The rules version**, [`RULES_VERSION`]: every replay records it, and a verifier refuses
//!   a replay of another rules version outright ("rules version N is not supported").
//!   Any release that changes what a tick computes bumps it.
//! - **The tuning and the level**: replays record their content hashes
//!   ([`Tuning::content_hash`], [`world::World::content_hash`]); a mismatch is refused as
//!   such. A leaderboard server publishes both, so a client can check before uploading.
//!
//! If the versions differ but the rules version matches, the results are still identical as
//! long as the release did not change the rules (that is what the rules version promises); a
//! mistake there shows up as a desync at the first stored state hash, never as a silently
//! different ranking.

//! ## Invariants
//!
//! No I/O, no floats, no `unsafe`, no panics on any input: every [`Fx`] operator saturates,
//! the tick's own in-range operations (no saturation test) are used only where its bounds,
//! written once in `step.rs`, prove the result representable (each debug-asserted), and
//! every loop is bounded.

#![no_std]
#![forbid(unsafe_code)]
// No function over 120 lines (blank lines and comments aside; the threshold is clippy.toml's).
#![warn(clippy::too_many_lines)]
#![deny(clippy::float_arithmetic)]
#![warn(missing_docs)]
#![warn(missing_debug_implementations)]

extern crate alloc;

pub mod air;
pub mod bot;
mod broad_phase;
mod collision;
pub mod contact;
pub mod cost;
mod ctx;
pub mod design;
pub mod driver;
mod fx;
mod hash;
mod input;
mod isqrt;
pub mod launch;
mod lean;
pub mod motion;
mod neighbourhood;
mod pogo;
mod shape;
mod sim;
mod step;
pub mod sweep;
mod sync_test;
#[cfg(test)]
mod test_util;
mod tick;
mod tuning;
mod vec3;
mod wide;
pub mod world;

/// Version of the simulation rules: what a tick computes. Recorded in replays; bumped, with
/// the golden files regenerated and the reason in the commit message, whenever a change makes
/// any golden hash change. A verifier refuses replays of another rules version.
pub const RULES_VERSION: u32 = 2;

pub use ctx::capsule;
pub use fx::{Fx, ParseFxError};
pub use input::{Buttons, Input, STEER_MAX};
pub use lean::Lean;
pub use pogo::{Compression, Events, Launch, Pogo, State, TipMemory};
pub use sim::{PLAYERS_MAX, SimError, SimState, Simulation, Snapshot};
pub use step::{POSITION_MAX, SPEED_MAX};
pub use sync_test::{DISTANCE_MAX, Desync, SyncTest};
pub use tick::Ticks;
pub use tuning::{Derived, Key, Tuning, TuningError, TuningSpec, seconds_to_ticks};
pub use vec3::Vec3;
