//! Any contact and pogo state → classification and launch (oracles: pogo_checks::contact_evaluator).
#![no_main]

use libfuzzer_sys::{Corpus, fuzz_target};
use pogo_checks::contact_evaluator::{Input, check};

fuzz_target!(|input: Input| -> Corpus {
    if check(&input) {
        Corpus::Keep
    } else {
        Corpus::Reject
    }
});
