//! # pogo
//!
//! Facade over [`pogo_core`] (the deterministic simulation) and [`pogo_replay`] (file formats,
//! replays, the verifier) — and, with the default `netplay` feature, `pogo_netplay` (rollback
//! netplay with GGRS) — and the home of the `pogo` command-line tool.
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
#[cfg(feature = "netplay")]
pub use pogo_netplay as netplay;
pub use pogo_replay as replay;
