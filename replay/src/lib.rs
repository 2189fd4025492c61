//! # pogo-replay
//!
//! The file formats around `pogo-core`: tuning files (JSON) today; the replay format, the
//! recorder, the verifier and the level files as they land.

#![forbid(unsafe_code)]

pub mod tuning_file;

pub use tuning_file::{
    MAX_TUNING_FILE_BYTES, TuningFileError, apply_tuning_json, parse_tuning_json, tuning_to_json,
};
