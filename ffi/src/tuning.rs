//! Tunings: the default one, or one parsed from tuning JSON (the keys of `pogo_core::Tuning`, each checked,
//! then the whole validated), as a handle's object.

use pogo_core::Tuning;
use pogo_replay::parse_tuning_json;

use crate::error::Error;
use crate::types::PogoStatus;

/// A tuning from tuning JSON: the defaults with the file's entries applied, validated.
pub fn from_json(text: &str) -> Result<Tuning, Error> {
    let spec = parse_tuning_json(text)
        .map_err(|e| Error::new(PogoStatus::Parse, format_args!("tuning JSON: {e}")))?;
    Tuning::new(spec).map_err(|e| Error::new(PogoStatus::Parse, format_args!("tuning JSON: {e}")))
}
