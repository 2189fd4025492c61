//! The `pogo` command line: argument parsing, dispatch to one module per subcommand, and the
//! error contract below.
//!
//! # Exit codes (one rule for every command)
//!
//! - **0**: success.
//! - **1**: a check ran and said no. A well-formed replay that does not verify against the
//!   given tuning and levels (desync, claimed outcome differs, another tuning, level or rules
//!   version, over the verification budget), `diff` finding that two runs differ, `salvage`
//!   of a tampered recording (its kept inputs desync).
//! - **2**: bad input. Bad or conflicting arguments (clap's usage errors included); a path
//!   that cannot be read (missing, a directory, `-`: no command reads standard input); bytes
//!   that are not a well-formed replay ([`VerifyError::Replay`](pogo::replay::VerifyError):
//!   bad magic, checksum, truncated, malformed, too long, sparse hashes); `race`, `diff` or
//!   `plot` of replays that cannot be compared (different levels or tunings); `salvage`
//!   finding nothing to keep; an output file that cannot be written.
//!
//! When one run has several outcomes (`verify` of many files), every readable file is still
//! verified and reported on its own line, and the exit code is the worst one: 2 over 1 over 0.
//! A one-line summary goes to stderr: `error: <what and where>` (`diff` finding that the runs
//! differ, an answer rather than an error, says so unlabelled: `the runs differ after tick
//! T`). Every argument error is one such line too (clap's multi-line messages are folded into one); `--help` and `--version`
//! print normally and exit 0; `pogo` alone prints the help and exits 2.
//!
//! Nothing panics on any input: every failure is a [`CliError`]. Untrusted text (file paths,
//! names and strings from files) is printed through [`escape()`]; the stderr line is escaped
//! as a whole.
//!
//! Subcommands write their output to the `out` they are given (stdout, buffered); an output
//! error ends the run with exit code 2, except a closed pipe (`pogo tuning | head -1`), which
//! ends it quietly with success.
//!
//! Adding a subcommand: a module here with an `Args` struct and a `run(args, out)`, a variant
//! in [`Command`] (its doc comment's first line is the one-line summary `pogo --help` lists;
//! the rest is its own `--help`; its exit codes go in `after_help`), an arm in [`run`].

mod diff;
mod escape;
mod input;
mod inspect;
mod levels;
#[cfg(feature = "netplay")]
mod netplay;
mod plot;
mod race;
mod replays;
mod salvage;
mod signature;
mod simulate;
mod tuning;
mod verify;

use std::fmt;
use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub(crate) use escape::escape;

/// What `pogo --help` says first (`-h` shows only the first paragraph).
const ABOUT: &str = "Simulate a self-bouncing pogo stick, record runs as replays, and verify, \
                     race, compare and plot them.";
const LONG_ABOUT: &str = "Simulate a self-bouncing pogo stick, record runs as replays, and \
    verify, race, compare and plot them.\n\n\
    pogo steps its simulation in exact fixed-point arithmetic (60 ticks a second by default): the same \
    level, tuning and inputs give the same run, bit for bit, on every machine and at every \
    frame rate. So a replay (a run's inputs) proves its result: `pogo verify` re-simulates it \
    and checks every stored state hash and the claimed finish, as a leaderboard does.\n\n\
    Start with `pogo levels` and `pogo simulate --level course --bot`; `pogo <COMMAND> \
    --help` explains each command.";

/// The exit codes, as every command's `--help` ends (each names what applies to it).
const EXIT_TOP: &str = "Exit status: 0 success; 1 a check said no (a replay does not verify, \
    two runs differ); 2 bad input (arguments, unreadable files, bytes that are not a replay, \
    replays that cannot be compared).";
const EXIT_TUNING: &str = "Exit status: 0 printed; 2 bad arguments, or a tuning file that \
    cannot be read or is invalid.";
const EXIT_LEVELS: &str = "Exit status: 0 printed; 2 bad arguments.";
const EXIT_SIMULATE: &str = "Exit status: 0 the run completed; 2 bad arguments, a level, input \
    script or tuning that cannot be read or is invalid, or an output file that cannot be \
    written.";
const EXIT_VERIFY: &str = "Exit status: 0 every file verifies; 1 a file is a well-formed replay \
    that does not verify (desync, claimed outcome differs, other tuning, level or rules \
    version, over the budget); 2 bad arguments, or a file that cannot be read (missing, a \
    directory, -) or is not a well-formed replay (bad magic, checksum, truncated, malformed). \
    Every file is still verified and reported on its line; the exit status is the worst: 2 \
    over 1 over 0.";
const EXIT_INSPECT: &str = "Exit status: 0 a well-formed replay; 2 the file cannot be read or \
    is not a well-formed replay.";
const EXIT_DIFF: &str = "Exit status: 0 the runs are identical; 1 they differ, or a replay does \
    not fit the tuning and levels given; 2 bad arguments, a file that cannot be read or is \
    not a well-formed replay, or replays of different levels or tunings (they cannot be \
    compared).";
const EXIT_RACE: &str = "Exit status: 0 raced; 1 a replay does not verify; 2 bad arguments \
    (--player out of range), a file that cannot be read or is not a well-formed replay, or \
    replays of different levels or tunings.";
const EXIT_SALVAGE: &str = "Exit status: 0 salvaged (a truncated recording, or a complete one, \
    which salvages to itself); 1 the kept inputs do not reproduce their own state hashes \
    (tampered), or the recording is not of the tuning and levels given; 2 bad arguments, a \
    file that cannot be read, a damaged header, nothing to keep, or OUT cannot be written.";
const EXIT_PLOT: &str = "Exit status: 0 written; 1 a replay does not verify; 2 bad arguments, a \
    file that cannot be read or is not a well-formed replay, replays of different levels or \
    tunings, or OUT cannot be written.";
#[cfg(feature = "netplay")]
const EXIT_NETPLAY: &str = "Exit status: 0 the session completed (both peers confirmed --ticks); \
    1 it ran but did not complete (no answer from the peer, an early disconnect, a desync); 2 \
    bad arguments, a port that cannot be bound, or a recording that cannot be written.";

#[derive(Debug, Parser)]
#[command(
    name = "pogo",
    version,
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_help = EXIT_TOP,
    arg_required_else_help = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Show the tuning: every key's value, unit and range, derived values, hash.
    ///
    /// The tuning is resolved in layers: the defaults, then --tuning FILE, then each --set
    /// key=value in order. Shown: every key with its value, unit and range, the derived tick
    /// values, the content hash (what a replay records) and the steady no-input bounce. With
    /// --json, the resolved tuning is printed as a tuning file instead, to start one from.
    #[command(after_help = EXIT_TUNING)]
    Tuning(tuning::TuningCommand),
    /// List the built-in levels.
    ///
    /// One line per level: its name, its box, ramp, platform and checkpoint counts, its
    /// content hash (what a replay records) and a one-line description.
    #[command(after_help = EXIT_LEVELS)]
    Levels(levels::LevelsCommand),
    /// Run a level and print each pogo's SIG line; optionally trace or record it.
    ///
    /// The run lasts up to --ticks ticks (it stops early once every pogo has finished), with
    /// input from a script (--inputs), the demo bot (--bot) or none. Ticks are driven through
    /// the frame driver at a render rate (--render-fps, --render-jitter) as a game would; the
    /// result is the same at every rate.
    ///
    /// Output, one pogo: `SIG ticks=<n> bounces=<n> apex=<m|none> finish=<tick|none>
    /// hash=<16 hex>` (apex: the highest the tip has been, `none` before the first tick; hash:
    /// the simulation's state hash). Several pogos: one line each, `P<i> SIG ticks=…
    /// bounces=… apex=… finish=… sim_hash=<16 hex>`, where sim_hash is the whole
    /// simulation's state hash (all pogos together), the same on every line.
    ///
    /// --trace FILE writes a per-tick CSV (--trace - writes it to stdout, and the SIG lines
    /// then go to stderr); --record FILE writes a replay that `pogo verify` checks.
    #[command(after_help = EXIT_SIMULATE)]
    Simulate(simulate::SimulateCommand),
    /// Verify replays by re-simulating them: one OK or FAIL line per file.
    ///
    /// Each replay is re-simulated from its inputs against the tuning and levels given
    /// (default: the default tuning and the built-in levels), and every stored state hash and
    /// the claimed outcome are checked. One line per file, in the order given: `OK  <file>
    /// ticks=… finish=… player=…` or `FAIL <file>  <why>`; one JSON object per line with
    /// --json. Files are verified in parallel (--jobs).
    #[command(after_help = EXIT_VERIFY)]
    Verify(verify::VerifyCommand),
    /// Show a replay's header, length, claimed outcome and size, without verifying it.
    ///
    /// Every byte is checked (framing, checksums, canonical records) but nothing is
    /// re-simulated: `pogo verify` does that.
    #[command(after_help = EXIT_INSPECT)]
    Inspect(inspect::InspectCommand),
    /// Find the first tick where two runs differ, with both runs' values.
    ///
    /// Both replays are re-simulated side by side from their own inputs (nothing is verified)
    /// and the first tick after which their states differ is named, with every differing
    /// field of every player, A's value and B's. Both must be of one level and one tuning.
    #[command(after_help = EXIT_DIFF)]
    Diff(diff::DiffCommand),
    /// Split times of a run against a ghost at every checkpoint and the finish.
    ///
    /// Both replays are verified first, and must be of one level and one tuning. With
    /// multi-player replays, --player (and --ghost-player) choose whom to race.
    #[command(after_help = EXIT_RACE)]
    Race(race::RaceCommand),
    /// Repair a recording that stopped mid-write, keeping every whole chunk.
    ///
    /// Every whole input chunk is kept and re-simulated (its stored state hashes must agree,
    /// so a tampered file is not laundered), and OUT is written with the outcome the
    /// re-simulation reaches: it then verifies.
    #[command(after_help = EXIT_SALVAGE)]
    Salvage(salvage::SalvageCommand),
    /// Draw replays' trajectories over their level, seen from the side, as an SVG file.
    ///
    /// Every replay is verified first (the lines are the re-simulation's) and all must be of
    /// one level and one tuning. Each trajectory is marked every second with the time, and at
    /// each checkpoint and the finish with its split time (also listed in the legend); the
    /// level's boxes, ramps, platforms, zones and volumes near the trajectories are drawn
    /// under them.
    #[command(after_help = EXIT_PLOT)]
    Plot(plot::PlotCommand),
    /// Play one peer of a two-player rollback session (GGRS) over UDP.
    ///
    /// Drive the local player (--bot, --inputs, --random), play the remote one as it arrives,
    /// and print the SIG lines of `simulate` when --ticks are confirmed. --record writes the
    /// confirmed session as a replay (the same bytes on both peers). --loss, --delay-ms,
    /// --duplicate, --reorder make the outgoing packets faulty.
    #[cfg(feature = "netplay")]
    #[command(after_help = EXIT_NETPLAY)]
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
    /// A comparison's expected answer that its inputs are not the same (`diff`: the runs
    /// differ): exit code 1, as a check that said no, but not an error, so its one-line
    /// summary on stderr has no `error:` label.
    Differ(String),
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

    /// A difference found by a comparison, from anything printable.
    pub(crate) fn differ(message: impl fmt::Display) -> CliError {
        CliError::Differ(message.to_string())
    }

    fn exit_code(&self) -> u8 {
        match self {
            CliError::Failed(_) | CliError::Differ(_) => 1,
            CliError::BadInput(_) | CliError::Output(_) => 2,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::BadInput(message) | CliError::Failed(message) | CliError::Differ(message) => {
                f.write_str(message)
            }
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
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return argument_error(&error),
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let result = run(cli.command, &mut out).and_then(|()| out.flush().map_err(CliError::from));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError::Output(error)) if error.kind() == io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(CliError::Differ(summary)) => {
            // Nothing sensible is left to do if stderr is gone too.
            let _ = writeln!(io::stderr(), "{}", escape(&summary));
            ExitCode::from(1)
        }
        Err(error) => {
            // Nothing sensible is left to do if stderr is gone too.
            let _ = writeln!(io::stderr(), "error: {}", escape(&error.to_string()));
            ExitCode::from(error.exit_code())
        }
    }
}

/// What clap's parse error means: `--help` and `--version` print and exit 0, `pogo` alone
/// prints the help and exits 2, every real argument error is one line on stderr, exit 2.
fn argument_error(error: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            // Printed as clap formats them, to stdout; a closed pipe is not an error.
            let _ = error.print();
            ExitCode::SUCCESS
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = error.print();
            ExitCode::from(2)
        }
        _ => {
            let line = clap_error_line(&error.render().to_string(), subcommand_typed().as_deref());
            let _ = writeln!(io::stderr(), "error: {}", escape(&line));
            ExitCode::from(2)
        }
    }
}

/// The subcommand named on the command line, if any: the first argument that is one.
fn subcommand_typed() -> Option<String> {
    use clap::CommandFactory;
    let cli = Cli::command();
    std::env::args_os().skip(1).find_map(|arg| {
        let arg = arg.to_str()?;
        cli.find_subcommand(arg).map(|c| c.get_name().to_string())
    })
}

/// clap's error text on one line: its `error:` line, then any `tip:` lines, then a pointer to
/// the help of the command typed (`subcommand`, else the one in clap's `Usage:` line); clap's
/// `Usage:` and `For more information` lines are dropped.
///
/// ```text
/// error: invalid value 'abc' for '--ticks <N>': invalid digit found in string
///
/// For more information, try '--help'.
/// ```
/// becomes `invalid value 'abc' for '--ticks <N>': invalid digit found in string (see
/// `pogo simulate --help`)` when the command is `simulate`.
fn clap_error_line(text: &str, subcommand: Option<&str>) -> String {
    let mut message = String::new();
    let mut usage = None;
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("error:") {
            message.push_str(rest.trim());
        } else if let Some(rest) = line.strip_prefix("tip:") {
            join(&mut message, "tip: ");
            message.push_str(rest.trim());
        } else if let Some(rest) = line.strip_prefix("Usage:") {
            // `pogo simulate [OPTIONS] --level <LEVEL>`: the command is the words before
            // the first option or argument.
            let words: Vec<&str> = rest
                .split_whitespace()
                .take_while(|w| !w.starts_with(['[', '<', '-']))
                .collect();
            usage = Some(words.join(" "));
        } else if !line.is_empty() && !line.starts_with("For more information") {
            join(&mut message, line);
        }
    }
    let command = match (subcommand, usage) {
        (Some(sub), _) => format!("pogo {sub}"),
        (None, Some(usage)) if !usage.is_empty() => usage,
        (None, _) => "pogo".to_string(),
    };
    format!("{message} (see `{command} --help`)")
}

/// Appends `part` to a one-line message: after a space if the message ends with a colon (a
/// list follows), else after `; `.
fn join(message: &mut String, part: &str) {
    message.push_str(if message.ends_with(':') { " " } else { "; " });
    message.push_str(part);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// clap's rendering of `args` as an error (they must not parse).
    fn clap_error(args: &[&str]) -> String {
        let error = Cli::try_parse_from(std::iter::once("pogo").chain(args.iter().copied()))
            .expect_err("not an argument error");
        error.render().to_string()
    }

    #[test]
    fn clap_errors_fold_into_one_line_naming_the_help() {
        let line = clap_error_line(
            &clap_error(&["simulate", "--level", "flat", "--ticks", "abc"]),
            Some("simulate"),
        );
        assert_eq!(
            line,
            "invalid value 'abc' for '--ticks <N>': invalid digit found in string \
             (see `pogo simulate --help`)"
        );
        let line = clap_error_line(&clap_error(&["simulate"]), None);
        assert_eq!(
            line,
            "the following required arguments were not provided: --level <LEVEL> \
             (see `pogo simulate --help`)"
        );
        for args in [
            &["tuning", "--bogus"][..],
            &["nosuch"],
            &["verify"],
            &["race", "a"],
        ] {
            let line = clap_error_line(&clap_error(args), None);
            assert!(!line.contains('\n'), "{line}");
            assert!(!line.starts_with("error"), "{line}");
            assert!(line.ends_with("--help`)"), "{line}");
        }
    }

    #[test]
    fn every_subcommand_has_a_one_line_summary_and_its_exit_codes() {
        use clap::CommandFactory;
        let cli = Cli::command();
        for sub in cli.get_subcommands() {
            let name = sub.get_name();
            let about = sub.get_about().map(ToString::to_string).unwrap_or_default();
            assert!(
                !about.is_empty() && !about.contains('\n'),
                "{name}: {about:?}"
            );
            let exit = sub
                .get_after_help()
                .map(ToString::to_string)
                .unwrap_or_default();
            assert!(exit.starts_with("Exit status: 0 "), "{name}: {exit:?}");
            assert!(exit.contains("; 2 "), "{name}: {exit:?}");
        }
    }
}
