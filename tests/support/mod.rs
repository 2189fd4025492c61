//! Helpers shared by the integration tests that run the `pogo` binary: scratch directories,
//! running the binary, reading its output, the error-line contract and replay tampering.
//!
//! Each test binary uses only some of them.
#![allow(dead_code)]

use std::path::PathBuf;
#[cfg(feature = "cli")]
use std::process::Command;
use std::process::Output;

use pogo::replay::{Limits, Replay};
pub use tempfile::TempDir;

/// A scratch directory under the system temp dir, named after `name`, removed on drop.
pub fn temp_dir(name: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("pogo-test-{name}-"))
        .tempdir()
        .unwrap()
}

/// Writing files into a [`TempDir`].
pub trait TempDirExt {
    /// Writes `contents` to `file` in the directory; returns its path.
    fn write(&self, file: &str, contents: impl AsRef<[u8]>) -> PathBuf;
}

impl TempDirExt for TempDir {
    fn write(&self, file: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path().join(file);
        std::fs::write(&path, contents).unwrap();
        path
    }
}

/// Runs the `pogo` binary with `args` (built only with the `cli` feature).
#[cfg(feature = "cli")]
pub fn pogo<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    Command::new(env!("CARGO_BIN_EXE_pogo"))
        .args(args)
        .output()
        .unwrap()
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

/// `hash` is a state hash as printed: 16 lowercase hex digits. `context` goes in the message.
#[track_caller]
pub fn assert_hash_format(hash: &str, context: &str) {
    assert_eq!(hash.len(), 16, "{context}");
    assert!(
        hash.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
        "{context}"
    );
}

/// `err` (stderr) is exactly one line starting `error: `, and no panic.
#[track_caller]
pub fn assert_one_error_line(err: &str) {
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.lines().count(), 1, "not one line: {err}");
    assert!(err.starts_with("error: "), "{err}");
}

/// `diff`'s answer that two runs differ: exactly one stderr line, unlabelled (an answer, not
/// an error), starting `the runs differ`.
#[track_caller]
pub fn assert_one_difference_line(err: &str) {
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.lines().count(), 1, "not one line: {err}");
    assert!(err.starts_with("the runs differ "), "{err}");
}

/// The one stderr line of a `pogo ARGS…` that exited `code` (not 0): `diff` finding a
/// difference (1) says so unlabelled, everything else (a `diff` that could not compare
/// included) is an `error: ` line.
#[track_caller]
pub fn assert_one_failure_line(args: &[&str], code: i32, err: &str) {
    if code == 1 && args.first() == Some(&"diff") && err.starts_with("the runs differ") {
        assert_one_difference_line(err);
    } else {
        assert_one_error_line(err);
    }
}

/// Exit code 2, exactly one line on stderr starting `error: ` and containing every `needle`,
/// no panic, nothing on stdout.
#[track_caller]
pub fn assert_bad_input(out: &Output, needles: &[&str]) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert_one_error_line(&err);
    for needle in needles {
        assert!(err.contains(needle), "{needle:?} not in {err}");
    }
    assert!(out.stdout.is_empty(), "stdout: {}", stdout(out));
}

/// `bytes` (a replay) with player 0's first input change after tick `after` held one tick
/// longer; returns the new bytes and the tick the change moved from.
pub fn retimed(bytes: &[u8], after: u32) -> (Vec<u8>, u32) {
    let mut replay = Replay::decode(bytes, Limits::default()).unwrap();
    let chunk = replay
        .chunks
        .iter_mut()
        .find(|c| c.first_tick + c.ticks > after + 2)
        .unwrap();
    let runs = &mut chunk.runs[0];
    let mut start = chunk.first_tick;
    let index = runs
        .iter()
        .position(|r| {
            start += r.length;
            start > after
        })
        .unwrap();
    assert!(
        index + 1 < runs.len(),
        "an input change follows tick {after}"
    );
    runs[index].length += 1;
    runs[index + 1].length -= 1;
    if runs[index + 1].length == 0 {
        runs.remove(index + 1);
    }
    (replay.encode(), start)
}

/// Compares `actual` with the golden text file `tests/golden/<name>` line by line (the first
/// differing line is named), or rewrites the file when `POGO_BLESS` is set.
pub fn golden_text(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("POGO_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; POGO_BLESS=1 creates it", path.display()));
    for (line, (a, e)) in actual.lines().zip(expected.lines()).enumerate() {
        assert_eq!(a, e, "{name} differs first at line {}", line + 1);
    }
    assert_eq!(
        actual.lines().count(),
        expected.lines().count(),
        "{name}: line count"
    );
}
