//! `pogo verify`: verify replays by re-simulating them, several files at once.
//!
//! ```text
//! OK  samples/course-bot.pogo  ticks=3456 finish=3455 player=bot
//! FAIL samples/bad/tampered.pogo  desync at tick 359: recorded state hash …, re-simulated …
//! ```
//!
//! One line per file, in the order the files were given (each printed as soon as it and every
//! file before it are done); with several players `finish=` lists each player's, comma-
//! separated. With `--json`, one JSON object per line instead:
//!
//! ```text
//! {"file":"a.pogo","ok":true,"ticks":3456,"players":1,"finish":[3455],"final_hash":"…","level":"course","player_name":"bot"}
//! {"file":"b.pogo","ok":false,"exit":1,"error":"desync","message":"desync at tick 359: …","tick":359,"expected":"…","found":"…"}
//! ```
//!
//! `error` is [`VerifyError::kind`] (or `io` for a file that cannot be opened), `exit` the
//! file's own exit code (1 or 2, see below); the other fields of a failure are the error's
//! details: `offset` (bytes), `tick`, `player`, `level`,
//! `expected` / `found` (hashes as 16 hex digits, versions and rates as numbers), `claimed`
//! / `actual` (finish ticks or null), `ticks_max`.
//!
//! Paths, player names and error messages are [escaped](mod@super::escape) in the text lines
//! (JSON escapes its own strings), so no file can print a line of its own.
//!
//! Files are verified in parallel on `--jobs` threads (default: one per core, at most
//! [`JOBS_MAX`], never more than there are files), each read as a stream through a buffer,
//! never whole. A progress bar shows on stderr when stderr is a terminal and there is more
//! than one file.
//!
//! Exit code, the worst of the files' (2 over 1 over 0), every file still verified and
//! reported on its line: 0 if every file verifies; 1 if a file is a well-formed replay that
//! does not verify (desync, claimed outcome, another tuning, level or rules version, over the
//! budget); 2 if a file cannot be read (missing, a directory, `-`) or is not a well-formed
//! replay (bad magic, checksum, truncated, malformed, too long, sparse hashes). Bad arguments
//! (a bad `--set`, `--jobs 0` or above [`JOBS_MAX`], an unreadable `--level` file, no files)
//! are 2 with nothing verified.

use std::collections::BTreeMap;
use std::io::{BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use pogo::replay::{ReplayError, Verified, Verifier, VerifyError};
use rayon::prelude::*;
use serde_json::{Value, json};

use super::input::{self, OpenError};
use super::replays::{VerifierArgs, why};
use super::{CliError, escape};

/// Most `--jobs`. Verification is CPU-bound, one file per thread: beyond the machine's cores
/// more threads only cost memory (a stack and a verifier's buffers each) and scheduling, and
/// 64 is above the core count of any machine this is meant for. Without a bound, `--jobs
/// 10000` starts ten thousand threads before verifying anything.
const JOBS_MAX: usize = 64;

/// Arguments of `pogo verify`.
#[derive(Debug, Args)]
pub(crate) struct VerifyCommand {
    /// Replay files to verify.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
    /// Print one JSON object per file (JSON lines) instead of text.
    #[arg(long)]
    json: bool,
    /// Verify this many files at once, 1 to 64 (default: the number of cores; never more
    /// than there are files).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    #[command(flatten)]
    verifier: VerifierArgs,
}

/// Why one file failed.
#[derive(Debug)]
enum Failure {
    /// The file could not be opened.
    Open(OpenError),
    Verify(VerifyError),
}

impl Failure {
    /// The file's exit code: 2 for a file that is not a readable, well-formed replay, 1 for
    /// one that is but does not verify.
    fn exit_code(&self) -> u8 {
        match self {
            Failure::Open(_) | Failure::Verify(VerifyError::Replay(_)) => 2,
            Failure::Verify(_) => 1,
        }
    }
}

/// Runs `pogo verify`.
pub(crate) fn run(args: &VerifyCommand, out: &mut dyn Write) -> Result<(), CliError> {
    let verifier = args.verifier.build()?;
    let jobs = match args.jobs {
        Some(n) if !(1..=JOBS_MAX).contains(&n) => {
            return Err(CliError::bad_input(format!(
                "--jobs {n}: must be 1 to {JOBS_MAX}"
            )));
        }
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get().min(JOBS_MAX)),
    }
    .min(args.files.len().max(1));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| CliError::bad_input(format!("--jobs {jobs}: cannot start threads: {e}")))?;
    let bar = progress_bar(args.files.len());
    // Lines go out one by one while a bar shows (it is redrawn below them), else buffered.
    let live = !bar.is_hidden();
    let cancelled = AtomicBool::new(false);
    let files = &args.files;
    let (mut failed, mut bad) = (0usize, 0usize);
    let mut written: Result<(), CliError> = Ok(());
    std::thread::scope(|scope| {
        let (sender, results) = mpsc::channel();
        let (verifier, cancelled) = (&verifier, &cancelled);
        scope.spawn(move || {
            pool.install(|| {
                files
                    .par_iter()
                    .enumerate()
                    .for_each_with(sender, |sender, (i, path)| {
                        if cancelled.load(Ordering::Relaxed) {
                            return;
                        }
                        // The receiver is gone only if printing failed; nothing to do then.
                        let _ = sender.send((i, verify_file(path, verifier)));
                    });
            });
        });
        // Print in input order: hold results that arrive before an earlier file's.
        let mut pending = BTreeMap::new();
        let mut next = 0;
        for (i, outcome) in results {
            bar.inc(1);
            pending.insert(i, outcome);
            while let Some(outcome) = pending.remove(&next) {
                let path = &files[next];
                next += 1;
                match &outcome {
                    Err(f) if f.exit_code() == 2 => bad += 1,
                    Err(_) => failed += 1,
                    Ok(_) => {}
                }
                let line = if args.json {
                    json_line(path, &outcome)
                } else {
                    text_line(path, &outcome)
                };
                let result = bar.suspend(|| {
                    writeln!(out, "{line}")?;
                    if live {
                        out.flush()?;
                    }
                    Ok::<(), std::io::Error>(())
                });
                if let Err(e) = result {
                    written = Err(CliError::from(e));
                    cancelled.store(true, Ordering::Relaxed);
                    return;
                }
            }
        }
    });
    bar.finish_and_clear();
    written?;
    let total = files.len();
    match (bad, failed) {
        (0, 0) => Ok(()),
        (0, failed) => Err(CliError::failed(format!(
            "{failed} of {total} replays failed verification"
        ))),
        (bad, failed) => Err(CliError::bad_input(format!(
            "{bad} of {total} files cannot be read or are not well-formed replays{}",
            match failed {
                0 => String::new(),
                n => format!("; {n} more failed verification"),
            }
        ))),
    }
}

/// A progress bar on stderr if it is a terminal and there is more than one file; hidden
/// otherwise.
fn progress_bar(files: usize) -> ProgressBar {
    if files < 2 || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(files as u64);
    if let Ok(style) =
        ProgressStyle::with_template("{bar:40} {pos}/{len} replays verified, {elapsed} {eta}")
    {
        bar.set_style(style);
    }
    bar
}

/// Verifies one file, streaming it through a buffer.
fn verify_file(path: &Path, verifier: &Verifier) -> Result<Verified, Failure> {
    let file = input::open(path).map_err(Failure::Open)?;
    verifier
        .verify(BufReader::new(file))
        .map_err(Failure::Verify)
}

/// `OK  <file>  ticks=<n> finish=<tick|none>[,…] player=<name|->` or `FAIL <file>  <why>`.
fn text_line(path: &Path, outcome: &Result<Verified, Failure>) -> String {
    let name = super::escape::path(path);
    match outcome {
        Ok(v) => {
            let finish: Vec<String> = v
                .finish
                .iter()
                .map(|t| t.map_or_else(|| "none".to_string(), |t| t.to_string()))
                .collect();
            format!(
                "OK  {name}  ticks={} finish={} player={}",
                v.ticks,
                finish.join(","),
                escape(v.header.player_name.as_deref().unwrap_or("-"))
            )
        }
        Err(Failure::Open(e)) => format!("FAIL {name}  {}", escape(&e.to_string())),
        Err(Failure::Verify(e)) => format!("FAIL {name}  {}", escape(&why(e))),
    }
}

/// A JSON object whose keys keep the order they were put in (`file` and `ok` first).
#[derive(Default)]
struct Object(Vec<(&'static str, Value)>);

impl Object {
    fn put(&mut self, key: &'static str, value: Value) {
        self.0.push((key, value));
    }

    /// The object on one line (serde_json escapes any newline in a file name).
    fn line(&self) -> String {
        let fields: Vec<String> = self
            .0
            .iter()
            .map(|(key, value)| format!("{}:{value}", Value::from(*key)))
            .collect();
        format!("{{{}}}", fields.join(","))
    }
}

/// One JSON object on one line.
fn json_line(path: &Path, outcome: &Result<Verified, Failure>) -> String {
    let mut object = Object::default();
    object.put("file", json!(path.to_string_lossy()));
    match outcome {
        Ok(v) => {
            object.put("ok", json!(true));
            object.put("ticks", json!(v.ticks));
            object.put("players", json!(v.header.players));
            object.put("finish", json!(v.finish));
            object.put("final_hash", json!(hex(v.final_hash)));
            object.put("level", json!(v.header.level_name));
            object.put("player_name", json!(v.header.player_name));
        }
        Err(failure) => {
            object.put("ok", json!(false));
            object.put("exit", json!(failure.exit_code()));
            match failure {
                Failure::Open(e) => {
                    object.put("error", json!("io"));
                    object.put("message", json!(e.to_string()));
                }
                Failure::Verify(e) => {
                    object.put("error", json!(e.kind()));
                    object.put("message", json!(e.to_string()));
                    details(e, &mut object);
                }
            }
        }
    }
    object.line()
}

/// The details of a verification error, as JSON fields.
fn details(error: &VerifyError, object: &mut Object) {
    let mut put = |key: &'static str, value: Value| object.put(key, value);
    match error {
        VerifyError::Replay(e) => match e {
            ReplayError::Io { .. } => {}
            // As before it had a name of its own: truncated at byte 0.
            ReplayError::Empty => put("offset", json!(0)),
            ReplayError::UnsupportedFormat { found, supported } => {
                put("expected", json!(supported));
                put("found", json!(found));
            }
            ReplayError::BadMagic { found } => {
                // A file under 8 bytes is padded with zeros: not shown.
                put(
                    "found",
                    json!(String::from_utf8_lossy(found).trim_end_matches('\0')),
                );
            }
            ReplayError::Truncated { offset }
            | ReplayError::TrailingBytes { offset }
            | ReplayError::Malformed { offset, .. }
            | ReplayError::UnexpectedChunk { offset, .. }
            | ReplayError::ChunkTooLarge { offset, .. } => {
                put("offset", json!(offset));
            }
            ReplayError::ChunkChecksum {
                offset,
                expected,
                found,
            } => {
                put("offset", json!(offset));
                put("expected", json!(hex(*expected)));
                put("found", json!(hex(*found)));
            }
            ReplayError::FileChecksum { expected, found } => {
                put("expected", json!(hex(*expected)));
                put("found", json!(hex(*found)));
            }
            ReplayError::TooLong { ticks_max } => put("ticks_max", json!(ticks_max)),
            ReplayError::SparseHashes { hash_interval, max } => {
                put("found", json!(hash_interval));
                put("expected", json!(max));
            }
        },
        VerifyError::RulesVersion { expected, found }
        | VerifyError::TickRate { expected, found } => {
            put("expected", json!(expected));
            put("found", json!(found));
        }
        VerifyError::FracBits { expected, found } => {
            put("expected", json!(expected));
            put("found", json!(found));
        }
        VerifyError::TuningMismatch { expected, found } => {
            put("expected", json!(hex(*expected)));
            put("found", json!(hex(*found)));
        }
        VerifyError::UnknownLevel { name } => put("level", json!(name)),
        VerifyError::LevelMismatch {
            name,
            expected,
            found,
        } => {
            put("level", json!(name));
            put("expected", json!(hex(*expected)));
            put("found", json!(hex(*found)));
        }
        VerifyError::Desync {
            tick,
            expected,
            found,
        } => {
            put("tick", json!(tick.0));
            put("expected", json!(hex(*expected)));
            put("found", json!(hex(*found)));
        }
        VerifyError::OutcomeMismatch {
            player,
            claimed,
            actual,
        } => {
            put("player", json!(player));
            put("claimed", json!(claimed));
            put("actual", json!(actual));
        }
        VerifyError::OverBudget {
            player_ticks_max,
            players,
        } => {
            put("player_ticks_max", json!(player_ticks_max));
            put("players", json!(players));
        }
        VerifyError::OutOfTime { max_ms } => put("max_ms", json!(max_ms)),
    }
}

/// A hash as 16 lowercase hex digits.
fn hex(hash: u64) -> String {
    format!("{hash:016x}")
}
