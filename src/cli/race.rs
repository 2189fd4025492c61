//! `pogo race GHOST RUN`: split times of a run against a ghost at every checkpoint of the
//! level (matched by index, shown 1-based) and at the finish.
//!
//! ```text
//! level: course
//! ghost: ghost.pogo
//! run:   multi.pogo P1 (of 3 players)
//! split         ghost tick  ghost time  run tick  run time  gap
//! checkpoint 1  745         12.433 s    760       12.683 s  +0.250 s
//! checkpoint 2  -           -           1810      30.183 s  -
//! finish        3455        57.600 s    3470      57.850 s  +0.250 s
//! run finishes 0.250 s behind the ghost
//! ```
//!
//! Which player of each replay races is `--player N` (default 0; `--ghost-player N` picks the
//! ghost's separately); a multi-player replay's player is shown as `P<i> (of n players)`.
//! A split's tick is the tick on which the checkpoint was first reached; its time is the end
//! of that tick, `(tick + 1) / tick rate`. The gap is run − ghost, exact from the ticks and
//! rounded to milliseconds: positive when the run is behind. A split one of them never
//! reached shows `-`. Both replays must be of one level and one tuning (else bad input, exit
//! 2, as for `diff` and `plot`), and both are verified (a ghost is only as good as its proof:
//! one that does not verify is a failed check, exit 1).

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use pogo::replay::{Ghost, Split};

use super::replays::{ReplayFile, VerifierArgs, check_comparable, seconds, signed_seconds};
use super::{CliError, escape};

/// Arguments of `pogo race`.
#[derive(Debug, Args)]
pub(crate) struct RaceCommand {
    /// The replay to race against.
    #[arg(value_name = "GHOST")]
    ghost: PathBuf,
    /// The replay compared with it.
    #[arg(value_name = "RUN")]
    run: PathBuf,
    /// The player (0-based) to race, in both replays (see --ghost-player).
    #[arg(long, value_name = "N", default_value_t = 0)]
    player: u8,
    /// The ghost's player, if not the same as --player.
    #[arg(long, value_name = "N")]
    ghost_player: Option<u8>,
    #[command(flatten)]
    verifier: VerifierArgs,
}

/// Runs `pogo race`.
pub(crate) fn run(args: &RaceCommand, out: &mut dyn Write) -> Result<(), CliError> {
    let verifier = args.verifier.build()?;
    let ghost_file = ReplayFile::read(&args.ghost, &verifier)?;
    let run_file = ReplayFile::read(&args.run, &verifier)?;
    let (gh, rh) = (&ghost_file.header, &run_file.header);
    check_comparable("race", (&args.ghost, gh), (&args.run, rh))?;
    let ghost_player = args.ghost_player.unwrap_or(args.player);
    for (option, player, file) in [
        (
            if args.ghost_player.is_some() {
                "--ghost-player"
            } else {
                "--player"
            },
            ghost_player,
            &ghost_file,
        ),
        ("--player", args.player, &run_file),
    ] {
        if player >= file.header.players {
            return Err(CliError::bad_input(format!(
                "{option} {player}: {} has {} player(s), P0 to P{}",
                file.path.display(),
                file.header.players,
                file.header.players.saturating_sub(1)
            )));
        }
    }
    let ghost = ghost_file.ghost(&verifier)?;
    let run = run_file.ghost(&verifier)?;
    let (ghost_player, run_player) = (usize::from(ghost_player), usize::from(args.player));
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
        let label = pogo::replay::checkpoint_name(target);
        let (g, r) = (
            split(&ghost, ghost_player, target),
            split(&run, run_player, target),
        );
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
    writeln!(out, "level: {}", escape(&gh.level_name))?;
    writeln!(out, "ghost: {}", racer(&ghost_file, ghost_player))?;
    writeln!(out, "run:   {}", racer(&run_file, run_player))?;
    write_table(out, &rows)?;
    let summary = match (
        split(&ghost, ghost_player, None),
        split(&run, run_player, None),
    ) {
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

/// Who races: the file, and with several players which one (`a.pogo P1 (of 3 players)`).
fn racer(file: &ReplayFile, player: usize) -> String {
    let name = super::escape::path(file.path);
    match file.header.players {
        1 => name,
        n => format!("{name} P{player} (of {n} players)"),
    }
}

/// The tick on which `player` first reached checkpoint `target` (`None`: the finish).
fn split(ghost: &Ghost, player: usize, target: Option<u32>) -> Option<u32> {
    ghost
        .splits(player)
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
