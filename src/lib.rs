//! # pogo
//!
//! Facade over [`pogo_core`] (the deterministic simulation) and [`pogo_replay`] (file formats,
//! replays, the verifier), and the home of the `pogo` command-line tool.
//!
//! To embed the simulation, depend on `pogo = { version = "0.1", default-features = false }`:
//! this library is then the two crates above and nothing else. The default `cli` feature builds
//! the `pogo` binary and brings what only it needs (clap, rayon, indicatif, plotters,
//! serde_json, unicode-properties); nothing in this library depends on it.
//!
//! ```
//! use std::sync::Arc;
//! use pogo::core::{Input, Simulation, Tuning, world::World};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let tuning = Tuning::default();
//! let world = World::new(pogo::replay::builtin_level("course").unwrap(), &tuning)?;
//! let mut sim = Simulation::new(Arc::new(world), tuning, 1)?;
//! let snapshot = sim.snapshot();
//! sim.step(&[Input { steer_x: 127, ..Input::default() }]);
//! let hash = sim.state_hash(); // documented, platform-independent
//! sim.restore(&snapshot); // rollback
//! sim.step(&[Input { steer_x: 127, ..Input::default() }]);
//! assert_eq!(sim.state_hash(), hash);
//! # Ok(())
//! # }
//! ```

pub use pogo_core as core;
pub use pogo_replay as replay;
