//! `pogo inspect`: what a replay says about itself — header, length, claimed outcome, size —
//! without verifying it (nothing is re-simulated; `pogo verify` does that).
//!
//! ```text
//! file: samples/course-bot.pogo
//! format: 1
//! rules: 1
//! tick rate: 60 Hz
//! fixed point: 32 fractional bits
//! level: course (hash 0123456789abcdef)
//! tuning: hash 0123456789abcdef
//! players: 1
//! player name: bot
//! date: -
//! chunks: 12 (up to 300 ticks each; a state hash every 60 ticks)
//! ticks: 3456
//! duration: 57.600 s
//! finish: P0 tick 3455 (57.600 s)
//! final hash: 0123456789abcdef
//! size: 2843 bytes (2961 bytes per minute of play)
//! verified: no (inspect checks the bytes only; `pogo verify` re-simulates)
//! ```
//!
//! Times are ticks over the tick rate, to 3 decimals; a finish at tick `t` is at the end of
//! that tick, `(t + 1)` ticks in. The file is read as a stream and every byte is checked
//! (framing, checksums, canonical records), so a damaged file is rejected with the reader's
//! error: exit 2, it is not a readable replay. The file name and the header's strings are
//! [escaped](mod@super::escape).

use std::io::{BufReader, Write};
use std::path::PathBuf;

use clap::Args;
use pogo::replay::format::FORMAT_VERSION;
use pogo::replay::{Chunk, Limits, ReplayReader};

use super::replays::seconds;
use super::{CliError, escape, input};

/// Arguments of `pogo inspect`.
#[derive(Debug, Args)]
pub(crate) struct InspectCommand {
    /// The replay file.
    #[arg(value_name = "FILE")]
    file: PathBuf,
}

/// Runs `pogo inspect`.
pub(crate) fn run(args: &InspectCommand, out: &mut dyn Write) -> Result<(), CliError> {
    let path = &args.file;
    let name = path.display();
    let file = input::open_or_bad_input(path)?;
    let size = file
        .metadata()
        .map_err(|e| CliError::bad_input(format!("{name}: cannot read: {e}")))?
        .len();
    let bad = |e| CliError::bad_input(format!("{name}: {e}"));
    let mut reader = ReplayReader::open(BufReader::new(file), Limits::default()).map_err(bad)?;
    let mut chunks = 0u64;
    let trailer = loop {
        match reader.next_chunk().map_err(bad)? {
            Some(Chunk::Inputs(_)) => chunks += 1,
            Some(Chunk::Trailer(trailer)) => break trailer,
            None => return Err(CliError::bad_input(format!("{name}: no trailer"))),
        }
    };
    let h = reader.header();
    let rate = h.tick_rate;
    let ticks = u64::from(trailer.ticks);
    writeln!(out, "file: {}", super::escape::path(path))?;
    writeln!(out, "format: {FORMAT_VERSION}")?;
    writeln!(out, "rules: {}", h.rules_version)?;
    writeln!(out, "tick rate: {rate} Hz")?;
    writeln!(out, "fixed point: {} fractional bits", h.frac_bits)?;
    writeln!(
        out,
        "level: {} (hash {:016x})",
        escape(&h.level_name),
        h.level_hash
    )?;
    writeln!(out, "tuning: hash {:016x}", h.tuning_hash)?;
    writeln!(out, "players: {}", h.players)?;
    writeln!(
        out,
        "player name: {}",
        escape(h.player_name.as_deref().unwrap_or("-"))
    )?;
    writeln!(out, "date: {}", escape(h.date.as_deref().unwrap_or("-")))?;
    writeln!(
        out,
        "chunks: {chunks} (up to {} ticks each; a state hash every {} ticks)",
        h.chunk_ticks, h.hash_interval
    )?;
    writeln!(out, "ticks: {ticks}")?;
    writeln!(out, "duration: {} s", seconds(ticks, rate))?;
    let finish: Vec<String> = trailer
        .finish
        .iter()
        .enumerate()
        .map(|(player, finish)| match finish {
            Some(t) => format!(
                "P{player} tick {t} ({} s)",
                seconds(u64::from(*t) + 1, rate)
            ),
            None => format!("P{player} none"),
        })
        .collect();
    writeln!(out, "finish: {}", finish.join(", "))?;
    writeln!(out, "final hash: {:016x}", trailer.final_hash)?;
    // Bytes per minute of play: size / (ticks / rate / 60), rounded.
    let per_minute = match ticks {
        0 => "-".to_string(),
        _ => {
            let num = u128::from(size) * 60 * u128::from(rate);
            let den = u128::from(ticks);
            ((2 * num + den) / (2 * den)).to_string()
        }
    };
    writeln!(
        out,
        "size: {size} bytes ({per_minute} bytes per minute of play)"
    )?;
    writeln!(
        out,
        "verified: no (inspect checks the bytes only; `pogo verify` re-simulates)"
    )?;
    Ok(())
}
