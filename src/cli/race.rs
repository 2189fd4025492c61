//! `pogo race GHOST RUN`: split times of a run against a ghost, player 0 of each, at every
//! checkpoint of the level (matched by index, shown 1-based) and at the finish.
//!
//! ```text
//! level: course
//! split         ghost tick  ghost time  run tick  run time  gap
//! checkpoint 1  745         12.433 s    760       12.683 s  +0.250 s
//! checkpoint 2  -           -           1810      30.183 s  -
//! finish        3455        57.600 s    3470      57.850 s  +0.250 s
//! run finishes 0.250 s behind the ghost
//! ```
//!
//! A split's tick is the tick on which the checkpoint was first reached; its time is the end
//! of that tick, `(tick + 1) / tick rate`. The gap is run − ghost, exact from the ticks and
//! rounded to milliseconds: positive when the run is behind. A split one of them never
//! reached shows `-`. Both replays are verified first (a ghost is only as good as its
//! proof) and must be of the same level.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use pogo::replay::{Ghost, Split};

use super::CliError;
use super::replays::{VerifierArgs, load_ghost, seconds, signed_seconds};

/// Arguments of `pogo race`.
#[derive(Debug, Args)]
pub(crate) struct RaceCommand {
    /// The replay to race against.
    #[arg(value_name = "GHOST")]
    ghost: PathBuf,
    /// The replay compared with it.
    #[arg(value_name = "RUN")]
    run: PathBuf,
    #[command(flatten)]
    verifier: VerifierArgs,
}

/// Runs `pogo race`.
pub(crate) fn run(args: &RaceCommand, out: &mut dyn Write) -> Result<(), CliError> {
    let verifier = args.verifier.build()?;
    let ghost = load_ghost(&args.ghost, &verifier)?;
    let run = load_ghost(&args.run, &verifier)?;
    let (gh, rh) = (&ghost.verified().header, &run.verified().header);
    if (&gh.level_name, gh.level_hash) != (&rh.level_name, rh.level_hash) {
        return Err(CliError::bad_input(format!(
            "{} is of level {:?} and {} of level {:?}: a race needs one level",
            args.ghost.display(),
            gh.level_name,
            args.run.display(),
            rh.level_name
        )));
    }
    let checkpoints = verifier
        .world(&gh.level_name)
        .map_or(0, |world| world.desc().checkpoints.len() as u32);
    let rate = gh.tick_rate;
    let mut rows = vec![[
        "split".to_string(),
        "ghost tick".to_string(),
        "ghost time".to_string(),
        "run tick".to_string(),
        "run time".to_string(),
        "gap".to_string(),
    ]];
    let targets = (0..checkpoints).map(Some).chain([None]);
    for target in targets {
        let label = match target {
            Some(i) => format!("checkpoint {}", i + 1),
            None => "finish".to_string(),
        };
        let (g, r) = (split(&ghost, target), split(&run, target));
        let tick = |t: Option<u32>| t.map_or_else(|| "-".to_string(), |t| t.to_string());
        let time = |t: Option<u32>| {
            t.map_or_else(
                || "-".to_string(),
                |t| format!("{} s", seconds(u64::from(t) + 1, rate)),
            )
        };
        let gap = match (g, r) {
            (Some(g), Some(r)) => {
                format!("{} s", signed_seconds(i64::from(r) - i64::from(g), rate))
            }
            _ => "-".to_string(),
        };
        rows.push([label, tick(g), time(g), tick(r), time(r), gap]);
    }
    writeln!(out, "level: {}", gh.level_name)?;
    write_table(out, &rows)?;
    let summary = match (split(&ghost, None), split(&run, None)) {
        (Some(g), Some(r)) if r > g => format!(
            "run finishes {} s behind the ghost",
            seconds(u64::from(r - g), rate)
        ),
        (Some(g), Some(r)) if r < g => format!(
            "run finishes {} s ahead of the ghost",
            seconds(u64::from(g - r), rate)
        ),
        (Some(_), Some(_)) => "run finishes level with the ghost".to_string(),
        (Some(_), None) => "run does not finish; the ghost does".to_string(),
        (None, Some(_)) => "run finishes; the ghost does not".to_string(),
        (None, None) => "neither finishes".to_string(),
    };
    writeln!(out, "{summary}")?;
    Ok(())
}

/// The tick on which player 0 first reached checkpoint `target` (`None`: the finish).
fn split(ghost: &Ghost, target: Option<u32>) -> Option<u32> {
    ghost
        .splits(0)
        .iter()
        .find(|s: &&Split| s.checkpoint == target)
        .map(|s| s.tick.0)
}

/// Rows with every column but the last padded to its widest cell.
fn write_table(out: &mut dyn Write, rows: &[[String; 6]]) -> std::io::Result<()> {
    let mut widths = [0; 6];
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    for row in rows {
        let mut line = String::new();
        for (i, (cell, width)) in row.iter().zip(widths).enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<width$}  "));
            }
        }
        writeln!(out, "{line}")?;
    }
    Ok(())
}
