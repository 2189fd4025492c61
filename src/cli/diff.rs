//! `pogo diff A B`: re-simulate two replays side by side (each from its own inputs, on the
//! verifier's tuning and levels) and name the first tick after which their states differ,
//! and which fields of which players.
//!
//! ```text
//! identical for 3456 ticks
//! first difference after tick 131 (2.200 s): P0 position, velocity, lean
//! identical for 3000 ticks, then A goes on for 456 more
//! ```
//!
//! Fields are named as in `pogo_core::Pogo`, players as `P<i>` (a player present in one run
//! only shows as `P<i> player`). Nothing is verified: stored hashes and claims are not
//! checked, only the inputs are replayed.
//!
//! Exit code: 0 if the runs are identical (same states after every tick, same length); 1 if
//! they differ (in a state, or in length); 2 if either file is not a readable replay or
//! cannot be simulated here (unknown level, other tuning or rules).

use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use pogo::replay::first_difference;

use super::CliError;
use super::replays::{VerifierArgs, read_replay, seconds};

/// Arguments of `pogo diff`.
#[derive(Debug, Args)]
pub(crate) struct DiffCommand {
    /// The first replay.
    #[arg(value_name = "A")]
    a: PathBuf,
    /// The second replay.
    #[arg(value_name = "B")]
    b: PathBuf,
    #[command(flatten)]
    verifier: VerifierArgs,
}

/// Runs `pogo diff`.
pub(crate) fn run(args: &DiffCommand, out: &mut dyn Write) -> Result<(), CliError> {
    let verifier = args.verifier.build()?;
    let a = read_replay(&args.a, verifier.limits())?;
    let b = read_replay(&args.b, verifier.limits())?;
    let difference = first_difference(&a, &b, &verifier).map_err(|e| {
        CliError::bad_input(format!(
            "cannot re-simulate {} and {}: {e}",
            args.a.display(),
            args.b.display()
        ))
    })?;
    let rate = a.header.tick_rate;
    if let Some(difference) = difference {
        let mut players: Vec<(usize, Vec<&str>)> = Vec::new();
        for (player, field) in difference.fields {
            match players.last_mut() {
                Some((p, fields)) if *p == player => fields.push(field),
                _ => players.push((player, vec![field])),
            }
        }
        let mut text = String::new();
        for (i, (player, fields)) in players.iter().enumerate() {
            let sep = if i == 0 { "" } else { "; " };
            let _ = write!(text, "{sep}P{player} {}", fields.join(", "));
        }
        let tick = difference.tick.0;
        writeln!(
            out,
            "first difference after tick {tick} ({} s): {text}",
            seconds(u64::from(tick) + 1, rate)
        )?;
        return Err(CliError::failed(format!(
            "the runs differ after tick {tick}"
        )));
    }
    let (ta, tb) = (a.ticks(), b.ticks());
    let common = ta.min(tb);
    if ta == tb {
        writeln!(out, "identical for {common} ticks")?;
        return Ok(());
    }
    let longer = if ta > tb { "A" } else { "B" };
    writeln!(
        out,
        "identical for {common} ticks, then {longer} goes on for {} more",
        ta.max(tb) - common
    )?;
    Err(CliError::failed(format!(
        "the runs differ in length: A has {ta} ticks, B {tb}"
    )))
}
