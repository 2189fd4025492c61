//! # pogo-replay
//!
//! The file formats around `pogo-core`: tuning files and level files (JSON), the built-in
//! levels, scripted input files; the replay format, the recorder and the verifier as they land.

#![forbid(unsafe_code)]

pub mod input_script;
pub mod level_file;
pub mod levels;
pub mod tuning_file;

pub use input_script::{InputScript, InputScriptError, parse_input_script};
pub use level_file::{LevelFileError, MAX_LEVEL_FILE_BYTES, level_to_json, parse_level_json};
pub use levels::{BUILTIN_LEVELS, builtin_level};
pub use tuning_file::{
    MAX_TUNING_FILE_BYTES, TuningFileError, apply_tuning_json, parse_tuning_json, tuning_to_json,
};
