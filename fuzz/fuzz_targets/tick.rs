//! A small world and input stream through the full tick, with snapshot / restore (oracles: pogo_checks::tick).
#![no_main]

use libfuzzer_sys::{Corpus, fuzz_target};
use pogo_checks::tick::{Input, check};

fuzz_target!(|input: Input| -> Corpus {
    if check(&input) {
        Corpus::Keep
    } else {
        Corpus::Reject
    }
});
