//! Replays every committed fuzz input on stable: each file of `fuzz/corpus/<target>/` and
//! `fuzz/regressions/<target>/` is decoded as libFuzzer decodes it and run through the same
//! check the fuzz target calls (see `pogo_checks`). A failing file is named with the panic.

use std::fs;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use pogo_checks::{TARGETS, Target};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

/// The files of `dir`, sorted (a missing directory has none).
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .filter(|p| {
            !p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    files.sort();
    files
}

/// How the files of one directory fared.
#[derive(Default)]
struct Tally {
    /// Checked and passed.
    passed: usize,
    /// Decoded, but a level or tuning the core rejects: skipped by the check.
    skipped: usize,
    /// Too short to decode: libFuzzer would not have run the target on them.
    undecoded: usize,
}

/// Runs `target` on every file of `fuzz/<kind>/<target>/`; returns the tally and the failures
/// as (file, panic message).
fn replay_dir(target: &Target, kind: &str) -> (Tally, Vec<(PathBuf, String)>) {
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    for file in files(&fuzz_dir().join(kind).join(target.name)) {
        let bytes = fs::read(&file).unwrap();
        match catch_unwind(AssertUnwindSafe(|| (target.run)(&bytes))) {
            Ok(Some(true)) => tally.passed += 1,
            Ok(Some(false)) => tally.skipped += 1,
            Ok(None) => tally.undecoded += 1,
            Err(panic) => {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push((file, message));
            }
        }
    }
    (tally, failures)
}

fn replay_all(kind: &str) {
    let mut failures = Vec::new();
    for target in TARGETS {
        let (tally, failed) = replay_dir(target, kind);
        eprintln!(
            "{kind}/{}: {} passed, {} skipped (invalid level or tuning), {} too short, {} failed",
            target.name,
            tally.passed,
            tally.skipped,
            tally.undecoded,
            failed.len()
        );
        failures.extend(failed);
    }
    for (file, message) in &failures {
        eprintln!("FAILED {}:\n{message}\n", file.display());
    }
    assert!(failures.is_empty(), "{} inputs failed", failures.len());
}

#[test]
fn every_corpus_input_passes_its_check() {
    replay_all("corpus");
    for target in TARGETS {
        let dir = fuzz_dir().join("corpus").join(target.name);
        assert!(
            !files(&dir).is_empty(),
            "no seed corpus committed in {}",
            dir.display()
        );
    }
}

#[test]
fn every_regression_input_passes_its_check() {
    replay_all("regressions");
}

/// The fuzz targets and the stable replay must know the same targets.
#[test]
fn every_fuzz_target_has_a_replay() {
    let dir = fuzz_dir().join("fuzz_targets");
    for file in files(&dir) {
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        assert!(
            pogo_checks::target(&name).is_some(),
            "fuzz target {name} has no entry in pogo_checks::TARGETS"
        );
    }
}
