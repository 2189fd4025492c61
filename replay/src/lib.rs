//! # pogo-replay
//!
//! The file formats around `pogo-core`: tuning files and level files (JSON), the built-in
//! levels, scripted input files; the replay format, the recorder and the verifier as they land.

#![forbid(unsafe_code)]

pub mod diff;
pub mod format;
pub mod ghost;
pub mod input_script;
pub mod level_file;
pub mod levels;
pub mod reader;
pub mod recorder;
pub mod salvage;
pub mod tuning_file;
pub mod verify;

pub use diff::{Difference, first_difference};
pub use format::{FORMAT_VERSION, Header, InputChunk, ReplayError, Run, Trailer};
pub use ghost::{Ghost, Split};
pub use input_script::{InputScript, InputScriptError, parse_input_script};
pub use level_file::{LevelFileError, MAX_LEVEL_FILE_BYTES, level_to_json, parse_level_json};
pub use levels::{BUILTIN_LEVELS, builtin_level};
pub use reader::{Chunk, Limits, Replay, ReplayReader};
pub use recorder::Recorder;
pub use salvage::{SalvageError, Salvaged, salvage};
pub use tuning_file::{
    MAX_TUNING_FILE_BYTES, TuningFileError, apply_tuning_json, parse_tuning_json, tuning_to_json,
};
pub use verify::{Verified, Verifier, VerifyError};
