//! `pogo salvage IN OUT`: repair a recording that stopped mid-write (a crash, a full disk).
//! Every whole input chunk is kept, re-simulated (its stored state hashes must agree, so a
//! tampered file is not laundered) and written to OUT with a trailer holding the outcome the
//! re-simulation reaches; OUT then verifies.
//!
//! ```text
//! kept 900 ticks (3 input chunks), dropped 123 bytes: truncated at byte 2210
//! wrote out.pogo: ticks=900 finish=none final_hash=0123456789abcdef
//! ```
//!
//! Exit code (nothing is written unless it is 0): 0 when salvaged — a truncated recording is
//! what salvage is for, and a complete replay salvages to itself; 1 when the file is a replay
//! but not one this can vouch for: its kept inputs do not reproduce their own stored hashes (it
//! was tampered with), or its header does not fit the tuning and levels given (as `verify`
//! would fail it); 2 when there is nothing to keep: the file cannot be read, its preamble or
//! header is damaged, or not one whole input chunk is left — or OUT cannot be written.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use pogo::replay::{SalvageError, salvage};

use super::replays::{VerifierArgs, read_bytes};
use super::{CliError, escape, input};

/// Arguments of `pogo salvage`.
#[derive(Debug, Args)]
pub(crate) struct SalvageCommand {
    /// The damaged recording.
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// Where to write the repaired replay.
    #[arg(value_name = "OUT")]
    output: PathBuf,
    #[command(flatten)]
    verifier: VerifierArgs,
}

/// Runs `pogo salvage`.
pub(crate) fn run(args: &SalvageCommand, out: &mut dyn Write) -> Result<(), CliError> {
    input::check_output("OUT", &args.output)?;
    let verifier = args.verifier.build()?;
    let name = args.input.display();
    let bytes = read_bytes(&args.input)?;
    let salvaged = salvage(&bytes, &verifier).map_err(|e| match e {
        SalvageError::Header(_) => CliError::bad_input(format!("{name}: {e}")),
        SalvageError::Mismatch(_) | SalvageError::Desync(_) => {
            CliError::failed(format!("{name}: {e}"))
        }
    })?;
    let replay = &salvaged.replay;
    if replay.chunks.is_empty() {
        let why = salvaged
            .stopped
            .as_ref()
            .map_or_else(|| "it records no ticks".to_string(), ToString::to_string);
        return Err(CliError::bad_input(format!(
            "{name}: nothing to salvage: no whole input chunk ({why})"
        )));
    }
    let dropped = match &salvaged.stopped {
        Some(e) => format!(
            "dropped {} bytes: {}",
            salvaged.dropped_bytes,
            escape(&e.to_string())
        ),
        None => format!(
            "dropped {} bytes (the input was a complete replay)",
            salvaged.dropped_bytes
        ),
    };
    writeln!(
        out,
        "kept {} ticks ({} input chunks), {dropped}",
        replay.ticks(),
        replay.chunks.len(),
    )?;
    std::fs::write(&args.output, replay.encode()).map_err(|e| {
        CliError::bad_input(format!("{}: cannot write: {e}", args.output.display()))
    })?;
    let finish: Vec<String> = replay
        .trailer
        .finish
        .iter()
        .map(|t| t.map_or_else(|| "none".to_string(), |t| t.to_string()))
        .collect();
    writeln!(
        out,
        "wrote {}: ticks={} finish={} final_hash={:016x}",
        super::escape::path(&args.output),
        replay.ticks(),
        finish.join(","),
        replay.trailer.final_hash
    )?;
    Ok(())
}
