//! # pogo
//!
//! Facade over [`pogo_core`] (the deterministic simulation) and [`pogo_replay`] (file formats,
//! replays, the verifier) — and, with the default `netplay` feature, `pogo_netplay` (rollback
//! netplay with GGRS) — and the home of the `pogo` command-line tool.
//!
//! To embed the simulation, depend on the repository with the default features off (pogo is
//! not published on crates.io):
//!
//! ```toml
//! pogo = { git = "https://example.invalid/pogo.git", rev = "COMMIT", default-features = false }
//! pogo = { path = "../pogo", default-features = false }   # or a checkout beside your game
//! ```
//!
//! This library is then the two crates above and nothing else. The default `cli` feature
//! builds the `pogo` binary and brings what only it needs (clap, rayon, indicatif, plotters,
//! serde_json, unicode-properties); nothing in this library depends on it. `docs/embedding.md`
//! is the guide: the dependency line (tested), driving by render frames, rendering between
//! ticks with the driver's `alpha`, replays, rollback, the C ABI, and the rules an embedder
//! keeps.
//!
//! ## Quick start
//!
//! A built-in level, a few seconds of play, the state, its hash, a rollback, and the run
//! recorded as a replay that a server's verifier re-simulates:
//!
//! ```
//! use std::sync::Arc;
//! use pogo::core::{Input, Simulation, Tuning, world::World};
//! use pogo::replay::{Header, Limits, Recorder, Verifier, builtin_level};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let tuning = Tuning::default();
//! let world = World::new(builtin_level("course").ok_or("no such level")?, &tuning)?;
//! let mut sim = Simulation::new(Arc::new(world), tuning.clone(), 1)?;
//! let header = Header::for_simulation(&sim, Some("quickstart".into()), None);
//! let mut recorder = Recorder::new(Vec::new(), header)?;
//!
//! let east = Input { steer_x: 127, ..Input::default() };
//! for _ in 0..180 {
//!     sim.step(&[east]); // one input per player per tick, 60 ticks a second
//!     recorder.record(&[east], || sim.state_hash())?;
//! }
//! let pogo = &sim.state().pogos[0]; // position (the tip, m), velocity (m/s), state, combo…
//! assert!(pogo.position.x > pogo::core::Fx::ZERO);
//! let hash = sim.state_hash(); // the same on every machine
//!
//! // Rollback: snapshot, step on a guess, restore, and the real input gives the real state.
//! let snapshot = sim.snapshot();
//! sim.step(&[Input::default()]);
//! sim.restore(&snapshot);
//! assert_eq!(sim.state_hash(), hash);
//!
//! // The replay: what a leaderboard server verifies by re-simulating it.
//! let bytes = recorder.finish_simulation(&sim)?;
//! let verified = Verifier::with_builtin_levels(tuning, Limits::default()).verify(&bytes[..])?;
//! assert_eq!(verified.ticks, 180);
//! # Ok(())
//! # }
//! ```
//!
//! `pogo_core`'s crate docs say how a game stays in step with a server: build the commit the
//! server runs with its lockfile, and check the rules version and the tuning and level hashes.

pub use pogo_core as core;
#[cfg(feature = "netplay")]
pub use pogo_netplay as netplay;
pub use pogo_replay as replay;

/// `docs/embedding.md`, whose Rust blocks run as this package's doctests (`cargo test -p pogo
/// --doc`), so every block of the guide compiles and runs.
#[cfg(doctest)]
#[doc = include_str!("../docs/embedding.md")]
pub struct EmbeddingGuide;
