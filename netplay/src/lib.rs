//! # pogo-netplay
//!
//! Rollback netplay for pogo with [GGRS](ggrs), the Rust ecosystem's GGPO: every peer
//! simulates every player, predicts the remote inputs, and rolls back and re-simulates when
//! the real ones arrive. That works only if snapshot, restore and re-simulation are exactly
//! deterministic — which is what pogo exists to guarantee, and what this crate puts to the
//! test over a real (and, on request, deliberately bad) network.
//!
//! ## How it works
//!
//! 1. [`PogoConfig`] tells GGRS pogo's types: the per-player input is a [`NetInput`] (pogo's
//!    `Input` as four plain bytes), the saved state a `pogo_core::Snapshot`, the checksum the
//!    state hash.
//! 2. Every `advance_frame` of a GGRS session returns an ordered list of save / load /
//!    advance requests; an [`Adapter`] fulfils them, in order, with a `Simulation` — the same
//!    for GGRS's own `SyncTestSession` (the determinism oracle of this crate's tests) and for
//!    a real P2P session.
//! 3. [`run_peer`] plays one peer of a two-player session over GGRS's UDP socket, wrapped in a
//!    [`FaultySocket`] that can lose, delay, duplicate and reorder packets; it records the
//!    *confirmed* ticks as a normal replay, so the two peers write the same bytes, which
//!    `pogo verify` accepts.
//!
//! ```
//! use std::sync::Arc;
//! use ggrs::SessionBuilder;
//! use pogo_core::{Simulation, Tuning, world::World};
//! use pogo_netplay::{Adapter, NetInput, Player, PogoConfig};
//!
//! let tuning = Tuning::default();
//! let world = World::new(pogo_replay::builtin_level("flat").unwrap(), &tuning).unwrap();
//! let sim = Simulation::new(Arc::new(world), tuning, 1).unwrap();
//! // GGRS rolls back 4 ticks and re-simulates them after every tick, comparing checksums.
//! let mut session = SessionBuilder::<PogoConfig>::new()
//!     .with_num_players(1).unwrap()
//!     .with_check_distance(4)
//!     .start_synctest_session()
//!     .unwrap();
//! let mut adapter = Adapter::new(sim);
//! let mut player = Player::random(7);
//! for _ in 0..120 {
//!     let input = player.input(adapter.simulation(), 0);
//!     session.add_local_input(0, NetInput::from(input)).unwrap();
//!     let requests = session.advance_frame().expect("no checksum mismatch");
//!     adapter.fulfil(requests).unwrap();
//! }
//! assert_eq!(adapter.simulation().state().tick.0, 120);
//! assert!(adapter.stats().rollbacks > 100);
//! ```
//!
//! ## Invariants
//!
//! - The adapter does what GGRS asks, in order, and nothing else; a request that does not fit
//!   the simulation (wrong frame, empty cell) is an error, not a guess.
//! - A replay holds confirmed inputs only: ticks are recorded once GGRS has confirmed them,
//!   by a second simulation that runs each confirmed tick once.
//! - Bytes from the other peer are hostile: GGRS discards malformed packets, and any four
//!   input bytes read as a valid input.

#![forbid(unsafe_code)]
// No function over 120 lines (blank lines and comments aside; the threshold is clippy.toml's).
#![warn(clippy::too_many_lines)]

mod adapter;
mod faulty;
mod input;
mod players;
mod rng;
pub mod session;

pub use adapter::{Adapter, PogoConfig, RequestError, Requests, Rollback, RollbackStats};
pub use faulty::{
    DELAY_MS_MAX, FaultStats, Faults, FaultsError, FaultySocket, PPM, QUEUED_PACKETS_MAX,
    REORDER_HOLD_MS,
};
pub use input::NetInput;
pub use players::{Player, RandomPlayer, ScriptPlayer};
pub use rng::SplitMix64;
pub use session::{NetplayError, PeerConfig, PeerOutcome, run_peer};

/// The GGRS this crate is built on, for callers that drive sessions themselves.
pub use ggrs;
