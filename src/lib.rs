//! # pogo
//!
//! Facade over [`pogo_core`] (the deterministic simulation) and [`pogo_replay`] (file formats),
//! and the home of the `pogo` command-line tool.

pub use pogo_core as core;
pub use pogo_replay as replay;
