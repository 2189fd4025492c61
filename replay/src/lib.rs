//! # pogo-replay
//!
//! Everything around `pogo-core` that has a file format: tuning files, level files and the
//! built-in levels, input scripts, and replays — the recorder, the streaming verifier a
//! leaderboard runs on untrusted uploads, salvage, ghosts (positions, splits, seeking) and diffs.
//!
//! ## How it works
//!
//! 1. While a run is played, a [`Recorder`] writes the per-tick inputs in self-checking chunks,
//!    with a state hash every second of play and, at the end, the claimed outcome
//!    (`FORMAT.md` specifies every byte).
//! 2. A [`Verifier`] reads a replay as a stream, bounded in memory and time whatever it claims,
//!    re-simulates it and reports the first problem as data ([`VerifyError`]).
//! 3. A [`Ghost`] keeps a verified run's positions, splits and snapshots for racing against it.
//!
//! ```
//! use std::sync::Arc;
//! use pogo_core::{Input, Simulation, Tuning, world::World};
//! use pogo_replay::{Header, Limits, Recorder, Verifier, builtin_level};
//!
//! let tuning = Tuning::default();
//! let world = World::new(builtin_level("flat").unwrap(), &tuning).unwrap();
//! let mut sim = Simulation::new(Arc::new(world), tuning.clone(), 1).unwrap();
//! let mut recorder = Recorder::new(Vec::new(), Header::for_simulation(&sim, None, None)).unwrap();
//! for tick in 0..300 {
//!     let input = Input { steer_x: if tick < 100 { 64 } else { 0 }, ..Input::default() };
//!     sim.step(&[input]);
//!     recorder.record(&[input], || sim.state_hash()).unwrap();
//! }
//! let bytes = recorder.finish(vec![None], sim.state_hash()).unwrap();
//!
//! let verifier = Verifier::with_builtin_levels(tuning, Limits::default());
//! let verified = verifier.verify(&bytes[..]).unwrap();
//! assert_eq!(verified.ticks, 300);
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]
// No function over 120 lines (blank lines and comments aside; the threshold is clippy.toml's).
#![warn(clippy::too_many_lines)]

pub mod diff;
pub mod format;
pub mod ghost;
pub mod input_script;
pub mod level_file;
pub mod levels;
pub mod names;
pub mod reader;
pub mod recorder;
pub mod salvage;
pub mod splits;
pub mod track;
pub mod tuning_file;
pub mod verify;

pub use diff::{Difference, first_difference};
pub use format::{FORMAT_VERSION, Header, InputChunk, ReplayError, Run, Trailer};
pub use ghost::Ghost;
pub use input_script::{InputScript, InputScriptError, parse_input_script};
pub use level_file::{LEVEL_FILE_BYTES_MAX, LevelFileError, level_to_json, parse_level_json};
pub use levels::{BUILTIN_LEVELS, builtin_level};
pub use names::{NameError, check_player_name};
pub use reader::{Chunk, Limits, Replay, ReplayReader};
pub use recorder::Recorder;
pub use salvage::{SalvageError, Salvaged, salvage};
pub use splits::{Split, SplitRecorder, checkpoint_name};
pub use tuning_file::{
    TUNING_FILE_BYTES_MAX, TuningFileError, apply_tuning_json, parse_tuning_json, tuning_to_json,
};
pub use verify::{Verified, Verifier, VerifyError};
