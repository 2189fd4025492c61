//! The `pogo` command line: argument parsing, dispatch to one module per subcommand, and the
//! error contract of SPEC §8.
//!
//! - Success exits 0.
//! - A check that ran and said no exits 1: `verify` when any replay fails verification
//!   (including a file that cannot be opened or read: it is that file's failure, reported on
//!   its line), `diff` when the two runs differ, `race` and `plot` when a replay is
//!   well-formed but does not verify. A one-line summary goes to stderr.
//! - Bad input or bad arguments exit 2 with one line on stderr, `error: <what and where>`
//!   (clap's own usage errors also exit 2, with clap's usage text). That includes a file that
//!   is not a readable replay (`inspect`, `diff`, `race`, `salvage`, `plot`), a bad `--set`,
//!   `--jobs 0`, and `salvage` finding nothing to salvage.
//! - Nothing panics on any input: every failure is a [`CliError`].
//!
//! Subcommands write their output to the `out` they are given (stdout, buffered); an output
//! error ends the run with exit code 2, except a closed pipe (`pogo tuning | head -1`), which
//! ends it quietly with success.
//!
//! Adding a subcommand: a module here with an `Args` struct and a `run(args, out)`, a variant
//! in [`Command`], an arm in [`run`].

mod diff;
mod input;
mod inspect;
mod levels;
#[cfg(feature = "netplay")]
mod netplay;
mod plot;
mod race;
mod replays;
mod salvage;
mod simulate;
mod tuning;
mod verify;

use std::fmt;
use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Deterministic fixed-point pogo-stick simulation.
#[derive(Debug, Parser)]
#[command(name = "pogo", version, about, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Show the resolved tuning (defaults ← --tuning FILE ← --set overrides): every key with
    /// its value, unit and range, the derived tick values, the content hash and the steady
    /// no-input bounce. With --json, print it as a tuning file instead.
    Tuning(tuning::TuningCommand),
    /// List the built-in levels: name, box, ramp, platform and checkpoint counts, content
    /// hash and a one-line description.
    Levels(levels::LevelsCommand),
    /// Run a level for up to --ticks ticks with scripted (--inputs), bot (--bot) or neutral
    /// input, through the frame driver at a render rate (--render-fps, --render-jitter), and
    /// print one SIG line per pogo: ticks, bounces, apex, finish tick and state hash. The
    /// result is the same at every render rate. --trace writes a per-tick CSV; --record
    /// writes a replay.
    Simulate(simulate::SimulateCommand),
    /// Verify replays by re-simulating them: one line per file (OK or FAIL and why), JSON
    /// lines with --json. Exit 0 only if every file verifies, 1 if any fails.
    Verify(verify::VerifyCommand),
    /// Show a replay's header, length, claimed outcome and size, without verifying it.
    Inspect(inspect::InspectCommand),
    /// Re-simulate two replays side by side and name the first tick where their states
    /// differ, and the fields. Exit 0 if identical, 1 if they differ.
    Diff(diff::DiffCommand),
    /// Split times of a run against a ghost at every checkpoint and the finish.
    Race(race::RaceCommand),
    /// Repair a recording that stopped mid-write: keep every whole chunk, re-simulate it and
    /// write a valid replay.
    Salvage(salvage::SalvageCommand),
    /// Draw replays' trajectories over their level, seen from the side, as an SVG file.
    Plot(plot::PlotCommand),
    /// Play one peer of a two-player rollback session (GGRS) over UDP: drive the local player
    /// (--bot, --inputs, --random), play the remote one as it arrives, and print the SIG lines
    /// of `simulate` when --ticks are confirmed. --record writes the confirmed session as a
    /// replay (the same bytes on both peers). --loss, --delay-ms, --duplicate, --reorder make
    /// the outgoing packets faulty.
    #[cfg(feature = "netplay")]
    Netplay(netplay::NetplayCommand),
}

/// Why a command failed; decides the exit code.
#[derive(Debug)]
pub(crate) enum CliError {
    /// Bad input or bad arguments (a file that cannot be read or parsed, a bad `--set`): exit
    /// code 2. The message says what and where.
    BadInput(String),
    /// A check that ran and said no (a replay failed verification, two runs differ): exit
    /// code 1. The output already says why; the message is a one-line summary for stderr.
    Failed(String),
    /// Writing the output failed.
    Output(io::Error),
}

impl CliError {
    /// A bad-input error from anything printable.
    pub(crate) fn bad_input(message: impl fmt::Display) -> CliError {
        CliError::BadInput(message.to_string())
    }

    /// A failed-check error from anything printable.
    pub(crate) fn failed(message: impl fmt::Display) -> CliError {
        CliError::Failed(message.to_string())
    }

    fn exit_code(&self) -> u8 {
        match self {
            CliError::Failed(_) => 1,
            CliError::BadInput(_) | CliError::Output(_) => 2,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::BadInput(message) | CliError::Failed(message) => f.write_str(message),
            CliError::Output(error) => write!(f, "writing output: {error}"),
        }
    }
}

impl From<io::Error> for CliError {
    fn from(error: io::Error) -> CliError {
        CliError::Output(error)
    }
}

/// Parses the arguments, runs the subcommand and turns the outcome into an exit code.
pub(crate) fn main() -> ExitCode {
    // Usage errors print clap's message and exit 2; --help and --version exit 0.
    let cli = Cli::parse();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let result = run(cli.command, &mut out).and_then(|()| out.flush().map_err(CliError::from));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError::Output(error)) if error.kind() == io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(error) => {
            // Nothing sensible is left to do if stderr is gone too.
            let _ = writeln!(io::stderr(), "error: {}", one_line(&error.to_string()));
            ExitCode::from(error.exit_code())
        }
    }
}

/// Runs one subcommand, writing its output to `out`.
fn run(command: Command, out: &mut dyn Write) -> Result<(), CliError> {
    match command {
        Command::Tuning(args) => tuning::run(&args, out),
        Command::Levels(args) => levels::run(&args, out),
        Command::Simulate(args) => simulate::run(&args, out),
        Command::Verify(args) => verify::run(&args, out),
        Command::Inspect(args) => inspect::run(&args, out),
        Command::Diff(args) => diff::run(&args, out),
        Command::Race(args) => race::run(&args, out),
        Command::Salvage(args) => salvage::run(&args, out),
        Command::Plot(args) => plot::run(&args, out),
        #[cfg(feature = "netplay")]
        Command::Netplay(args) => netplay::run(&args, out),
    }
}

/// Keeps an error message on one line, whatever it quotes.
fn one_line(message: &str) -> String {
    message
        .split(['\n', '\r'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}
