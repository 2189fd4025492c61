//! # pogo-checks
//!
//! The oracles of the fuzz targets, in a library so that two callers share them:
//!
//! 1. the cargo-fuzz targets in `fuzz/fuzz_targets/` (nightly, libFuzzer), each a one-line
//!    call of a `check` function below on an input libFuzzer's bytes were decoded into;
//! 2. the stable tests in `checks/tests/`, which decode every committed file of
//!    `fuzz/corpus/<target>/` and `fuzz/regressions/<target>/` the same way ([`decode`]) and
//!    call the same `check`, so `cargo test` replays every input the fuzzer ever kept and
//!    every crash it ever found.
//!
//! One module per target. Each has an `Input` — structure-aware: the fuzzer mutates a
//! contact, a capsule and a box, a small world, not raw bytes — and a
//! `check(&Input) -> bool` that **panics with a message naming the broken oracle** and
//! otherwise returns whether the input was used (`false`: a level or tuning the core rejects,
//! which is skipped, not a failure; the fuzz target then tells libFuzzer not to keep it).
//!
//! | target | module | what it drives |
//! | --- | --- | --- |
//! | `contact_evaluator` | [`contact_evaluator`] | `contact::classify`, `launch::compute`, `contact::ricochet` on any bits |
//! | `contact_geometry` | [`contact_geometry`] | `sweep::{sweep_box, sweep_plane, depenetrate_*}`: a capsule against one box or ramp |
//! | `tick` | [`tick`] | `Simulation` on a small world and input stream, with snapshot / restore |
//! | `replay_decode` | [`replay_decode`] | raw bytes into `Replay::decode`, `ReplayReader`, the `Verifier` and `salvage` |
//! | `replay_roundtrip` | [`replay_roundtrip`] | an arbitrary valid replay through the `Recorder`, decoded back, and cut |
//! | `track` | [`track`] | a player's level (file text, or hostile geometry written out) through `check_track`, then 1–4 pogos on it, every tick's cost metered against the track's bound |
//!
//! `replay_decode` takes libFuzzer's bytes as they are (a replay *is* bytes): its `check`
//! takes `&[u8]`, and its corpus files are replay files.

// No function over 120 lines (blank lines and comments aside; the threshold is clippy.toml's).
#![warn(clippy::too_many_lines)]

use arbitrary::{Arbitrary, Unstructured};

pub mod contact_evaluator;
pub mod contact_geometry;
mod input;
mod num;
pub mod replay_decode;
pub mod replay_roundtrip;
pub mod tick;
pub mod track;
mod tuning;

pub use input::InputIn;
pub use num::{Coord, Scalar};
pub use tuning::Override;

/// Decodes fuzzer bytes exactly as `libfuzzer_sys::fuzz_target!` does for a typed input:
/// inputs shorter than the type's minimal size are rejected, the rest is decoded with
/// `arbitrary_take_rest`. `None` means libFuzzer would not have run the target at all.
pub fn decode<'a, T: Arbitrary<'a>>(bytes: &'a [u8]) -> Option<T> {
    if bytes.len() < T::size_hint(0).0 {
        return None;
    }
    T::arbitrary_take_rest(Unstructured::new(bytes)).ok()
}

/// A fuzz target as the stable replay sees it: its name (the directory under `fuzz/corpus/`
/// and `fuzz/regressions/`) and a function that decodes bytes and runs its check.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    pub name: &'static str,
    /// `None`: the bytes do not decode; `Some(used)`: the check ran (and did not panic).
    pub run: fn(&[u8]) -> Option<bool>,
}

/// Every fuzz target with a corpus.
pub const TARGETS: &[Target] = &[
    Target {
        name: "contact_evaluator",
        run: |bytes| decode(bytes).map(|input| contact_evaluator::check(&input)),
    },
    Target {
        name: "contact_geometry",
        run: |bytes| decode(bytes).map(|input| contact_geometry::check(&input)),
    },
    Target {
        name: "tick",
        run: |bytes| decode(bytes).map(|input| tick::check(&input)),
    },
    Target {
        name: "replay_decode",
        run: |bytes| Some(replay_decode::check(bytes)),
    },
    Target {
        name: "replay_roundtrip",
        run: |bytes| decode(bytes).map(|input| replay_roundtrip::check(&input)),
    },
    Target {
        name: "track",
        run: |bytes| decode(bytes).map(|input| track::check(&input)),
    },
];

/// The target called `name`.
pub fn target(name: &str) -> Option<Target> {
    TARGETS.iter().copied().find(|t| t.name == name)
}
