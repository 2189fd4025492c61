//! An arbitrary valid replay through the Recorder, decoded back and cut (oracles: pogo_checks::replay_roundtrip).
#![no_main]

use libfuzzer_sys::{Corpus, fuzz_target};
use pogo_checks::replay_roundtrip::{Input, check};

fuzz_target!(|input: Input| -> Corpus {
    if check(&input) {
        Corpus::Keep
    } else {
        Corpus::Reject
    }
});
