//! A capsule against one box or ramp through pogo_core::sweep (oracles: pogo_checks::contact_geometry).
#![no_main]

use libfuzzer_sys::{Corpus, fuzz_target};
use pogo_checks::contact_geometry::{Input, check};

fuzz_target!(|input: Input| -> Corpus {
    if check(&input) {
        Corpus::Keep
    } else {
        Corpus::Reject
    }
});
