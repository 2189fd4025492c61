//! What the replay subcommands share: the options that build a [`Verifier`] (the tuning and
//! the levels replays are checked against), reading replay files, which replays can be
//! compared, what a verification error means for the exit code, and times as seconds.

use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use clap::Args;
use pogo::core::world::World;
use pogo::replay::format::HASH_INTERVAL_SECONDS_MAX;
use pogo::replay::{
    BUILTIN_LEVELS, Chunk, Ghost, Header, LEVEL_FILE_BYTES_MAX, Limits, Replay, ReplayReader,
    Verifier, VerifyError, parse_level_json,
};

use super::tuning::TuningArgs;
use super::{CliError, input};

/// Largest replay file a whole-file tool (`race`, `salvage`, `plot`) reads into memory: the
/// largest legal replay the default limits allow, of the most players
/// (`pogo_replay::format::replay_bytes_max`, the one bound). `verify` and `inspect` stream
/// and have no such limit.
pub(crate) const REPLAY_FILE_BYTES_MAX: u64 = pogo::replay::format::replay_bytes_max(
    pogo::replay::Limits::DEFAULT_TICKS_MAX as u64,
    pogo::core::PLAYERS_MAX as u8,
);

/// What replays are checked against: the tuning the server runs (defaults ← --tuning ←
/// --set, as for `simulate`), the levels it knows (built-in, plus --level files) and the
/// longest replay it accepts.
#[derive(Debug, Args)]
pub(crate) struct VerifierArgs {
    #[command(flatten)]
    pub tuning: TuningArgs,
    /// A level JSON file replays may be of, besides the built-in levels (replays name it by
    /// the file's `name`; it replaces a built-in level of that name). May be repeated.
    #[arg(long = "level", value_name = "FILE")]
    pub levels: Vec<PathBuf>,
    /// The most ticks a replay may have, whatever it claims (default: 4 hours at 60 Hz).
    /// (`--max-ticks`, its name before the limits were named `*-max`, still works.)
    #[arg(long = "ticks-max", alias = "max-ticks", value_name = "N")]
    pub ticks_max: Option<u32>,
    /// The most player-ticks (ticks × players) one verification may simulate (default:
    /// 864000, 4 hours of one player or 15 minutes of 16).
    #[arg(
        long = "player-ticks-max",
        alias = "max-player-ticks",
        value_name = "N"
    )]
    pub player_ticks_max: Option<u64>,
    /// The longest stretch of play between two stored state hashes a replay may have, in
    /// seconds, 1 to 10 (default: 1).
    #[arg(
        long = "hash-interval-max",
        alias = "max-hash-interval",
        value_name = "SECONDS"
    )]
    pub hash_interval_max: Option<u32>,
}

impl VerifierArgs {
    /// The verifier: built-in levels and every --level file (each checked to build a world
    /// with the tuning, so a bad level file is bad input, not an "unknown level" per replay).
    pub fn build(&self) -> Result<Verifier, CliError> {
        let tuning = self.tuning.resolve()?;
        let mut limits = Limits::default();
        match self.ticks_max {
            Some(0) => {
                return Err(CliError::bad_input(
                    "--ticks-max 0: must be at least 1 tick",
                ));
            }
            Some(ticks_max) => limits.ticks_max = ticks_max,
            None => {}
        }
        match self.player_ticks_max {
            Some(0) => {
                return Err(CliError::bad_input(
                    "--player-ticks-max 0: must be at least 1",
                ));
            }
            Some(max) => limits.player_ticks_max = max,
            None => {}
        }
        match self.hash_interval_max {
            Some(s) if !(1..=HASH_INTERVAL_SECONDS_MAX).contains(&s) => {
                return Err(CliError::bad_input(format!(
                    "--hash-interval-max {s}: must be within 1..={HASH_INTERVAL_SECONDS_MAX} seconds"
                )));
            }
            Some(s) => limits.hash_interval_s_max = s,
            None => {}
        }
        let mut levels = Vec::with_capacity(self.levels.len());
        for path in &self.levels {
            let text = input::read_text(path, LEVEL_FILE_BYTES_MAX)?;
            let name = path.display();
            let desc =
                parse_level_json(&text).map_err(|e| CliError::bad_input(format!("{name}: {e}")))?;
            World::new(desc.clone(), &tuning)
                .map_err(|e| CliError::bad_input(format!("{name}: {e}")))?;
            levels.push(desc);
        }
        // Built-in levels are generated only when a replay names one.
        Ok(Verifier::new(tuning, levels, limits).and_builtin_levels())
    }
}

/// Reads a whole replay file (at most [`REPLAY_FILE_BYTES_MAX`] bytes).
pub(crate) fn read_bytes(path: &Path) -> Result<Vec<u8>, CliError> {
    let name = path.display();
    let file = input::open_or_bad_input(path)?;
    let mut bytes = Vec::new();
    file.take(REPLAY_FILE_BYTES_MAX + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| CliError::bad_input(format!("{name}: cannot read: {e}")))?;
    if bytes.len() as u64 > REPLAY_FILE_BYTES_MAX {
        return Err(CliError::bad_input(format!(
            "{name}: larger than the {REPLAY_FILE_BYTES_MAX}-byte limit for a replay"
        )));
    }
    Ok(bytes)
}

/// Decodes a whole replay from a file, streaming (the file is read a chunk at a time; only
/// the decoded inputs are kept). Any error is bad input naming the file.
pub(crate) fn read_replay(path: &Path, limits: Limits) -> Result<Replay, CliError> {
    let name = path.display();
    let file = input::open_or_bad_input(path)?;
    let bad = |e| CliError::bad_input(format!("{name}: {e}"));
    let mut reader = ReplayReader::open(BufReader::new(file), limits).map_err(bad)?;
    let mut chunks = Vec::new();
    loop {
        match reader.next_chunk().map_err(bad)? {
            Some(Chunk::Inputs(chunk)) => chunks.push(chunk),
            Some(Chunk::Trailer(trailer)) => {
                return Ok(Replay {
                    header: reader.header().clone(),
                    chunks,
                    trailer,
                });
            }
            // `next_chunk` returns `None` only after the trailer.
            None => return Err(CliError::bad_input(format!("{name}: no trailer"))),
        }
    }
}

/// A replay file read whole, and its header (nothing verified yet).
pub(crate) struct ReplayFile<'a> {
    pub path: &'a Path,
    pub bytes: Vec<u8>,
    pub header: Header,
}

impl ReplayFile<'_> {
    /// Reads `path` and decodes its header. A file that cannot be read or whose header is not
    /// well-formed is bad input.
    pub fn read<'a>(path: &'a Path, verifier: &Verifier) -> Result<ReplayFile<'a>, CliError> {
        let bytes = read_bytes(path)?;
        let header = pogo::replay::ghost::read_header(&bytes, verifier)
            .map_err(|e| CliError::bad_input(format!("{}: {e}", path.display())))?;
        Ok(ReplayFile {
            path,
            bytes,
            header,
        })
    }

    /// Verifies the replay and loads it as a ghost: a well-formed replay that does not verify
    /// is a failed check (exit 1), bytes that are not a well-formed replay bad input (exit 2).
    pub fn ghost(&self, verifier: &Verifier) -> Result<Ghost, CliError> {
        Ghost::load(&self.bytes, verifier).map_err(|e| verify_error(self.path, &e))
    }
}

/// Refuses to `task` (race, diff, plot) two replays that cannot be compared: of different
/// levels (name or content) or recorded with different tunings. Bad input (exit 2): no
/// tuning or level given could make both verify.
pub(crate) fn check_comparable(
    task: &str,
    (a_path, a): (&Path, &Header),
    (b_path, b): (&Path, &Header),
) -> Result<(), CliError> {
    let (a_name, b_name) = (a_path.display(), b_path.display());
    if (&a.level_name, a.level_hash) != (&b.level_name, b.level_hash) {
        return Err(CliError::bad_input(format!(
            "cannot {task} replays of different levels: {a_name} is of level {:?} (hash \
             {:016x}), {b_name} of level {:?} (hash {:016x})",
            a.level_name, a.level_hash, b.level_name, b.level_hash
        )));
    }
    if a.tuning_hash != b.tuning_hash {
        return Err(CliError::bad_input(format!(
            "cannot {task} replays of different tunings: {a_name} was recorded with tuning \
             {:016x}, {b_name} with tuning {:016x}",
            a.tuning_hash, b.tuning_hash
        )));
    }
    Ok(())
}

/// A verification error about `path` as a CLI error: bytes that are not a well-formed replay
/// are bad input (exit 2), any other reason a check that said no (exit 1).
pub(crate) fn verify_error(path: &Path, error: &VerifyError) -> CliError {
    let name = path.display();
    match error {
        VerifyError::Replay(e) => CliError::bad_input(format!("{name}: {e}")),
        e => CliError::failed(format!("{name}: does not verify: {}", why(e))),
    }
}

/// A verification error as the CLI's text says it: the verifier's message, and for a level
/// it does not know, where levels come from (the built-in ones, and `--level FILE`).
pub(crate) fn why(error: &VerifyError) -> String {
    match error {
        VerifyError::UnknownLevel { .. } => {
            let names: Vec<&str> = BUILTIN_LEVELS.iter().map(|(name, _)| *name).collect();
            format!(
                "{error}: not a built-in level ({}); give its level file with --level FILE",
                names.join(", ")
            )
        }
        e => e.to_string(),
    }
}

/// `ticks / rate` seconds with 3 decimals, rounded half away from zero, by integer arithmetic
/// (`3455` ticks at 60 Hz → `57.583`).
pub(crate) fn seconds(ticks: u64, rate: u32) -> String {
    let millis = round_millis(ticks, rate);
    format!("{}.{:03}", millis / 1000, millis % 1000)
}

/// A signed difference of ticks as seconds with 3 decimals and a sign (`+0.250`, `-0.017`,
/// `+0.000`).
pub(crate) fn signed_seconds(delta: i64, rate: u32) -> String {
    let sign = if delta < 0 { '-' } else { '+' };
    format!("{sign}{}", seconds(delta.unsigned_abs(), rate))
}

/// `ticks · 1000 / rate` rounded half up.
fn round_millis(ticks: u64, rate: u32) -> u128 {
    let rate = u128::from(rate.max(1));
    (u128::from(ticks) * 2000 + rate) / (2 * rate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_rounded_exactly() {
        assert_eq!(seconds(0, 60), "0.000");
        assert_eq!(seconds(1, 60), "0.017");
        assert_eq!(seconds(3455, 60), "57.583");
        assert_eq!(seconds(3600, 60), "60.000");
        assert_eq!(seconds(1, 2000), "0.001"); // 0.0005 rounds up
        assert_eq!(signed_seconds(15, 60), "+0.250");
        assert_eq!(signed_seconds(-1, 60), "-0.017");
        assert_eq!(signed_seconds(0, 60), "+0.000");
        assert_eq!(seconds(u64::MAX, 1), format!("{}.000", u64::MAX));
    }
}
