//! Any bytes into the replay decoder, streaming reader, verifier and salvage (oracles: pogo_checks::replay_decode).
#![no_main]

use libfuzzer_sys::{Corpus, fuzz_target};
use pogo_checks::replay_decode::check;

fuzz_target!(|bytes: &[u8]| -> Corpus {
    if check(bytes) {
        Corpus::Keep
    } else {
        Corpus::Reject
    }
});
