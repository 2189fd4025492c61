//! A player's track (file text or hostile geometry) through the publish gate, then played
//! with every tick's cost metered against the track's bound (oracles: pogo_checks::track).
//!
//! Besides coverage, libFuzzer is steered toward expensive ticks: each threshold of the most
//! a tick cost (in the core's cost units) and of its share of the bound is a branch of its
//! own, so an input that first crosses one is new coverage, kept and mutated further.
#![no_main]

use std::hint::black_box;

use libfuzzer_sys::{Corpus, fuzz_target};
use pogo_checks::track::{Input, run};

/// One distinct branch per threshold that `$value` reaches.
macro_rules! thresholds {
    ($value:expr; $($t:literal)*) => {
        $( if $value >= $t { black_box($t); } )*
    };
}

fuzz_target!(|input: Input| -> Corpus {
    let Ok(played) = run(&input) else {
        return Corpus::Reject;
    };
    let cost = played.cost_max;
    thresholds!(cost; 8 12 16 24 32 40 48 56 64 80 96 112 128 160 192 224 256 320 384 448 512
        640 768 896 1024 1280 1536 1792 2048 2560 3072 3584 4096 5120 6144);
    // The share of the bound, in 1/64ths.
    let share = cost * 64 / played.bound.max(1);
    thresholds!(share; 1 2 3 4 5 6 8 10 12 14 16 20 24 28 32 40 48 56 64);
    Corpus::Keep
});
