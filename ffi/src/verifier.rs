//! The verifier across the boundary: a `pogo_replay::Verifier` (a tuning, the levels it
//! accepts, limits), and its result as a [`PogoVerdict`]: a kind code, the numbers that go
//! with it and the reason as text.

use std::ffi::CStr;
use std::sync::Arc;
use std::time::Duration;

use pogo_replay::format::HASH_INTERVAL_SECONDS_MAX;
use pogo_replay::{Limits, Verified, Verifier, VerifyError};

use crate::error::{Error, printable};
use crate::handle::Registry;
use crate::types::{
    POGO_REASON_BYTES, POGO_VERDICT_BAD_MAGIC, POGO_VERDICT_CHECKSUM, POGO_VERDICT_DESYNC,
    POGO_VERDICT_FORMAT_MISMATCH, POGO_VERDICT_IO, POGO_VERDICT_LEVEL_MISMATCH,
    POGO_VERDICT_MALFORMED, POGO_VERDICT_OTHER, POGO_VERDICT_OUT_OF_TIME,
    POGO_VERDICT_OUTCOME_MISMATCH, POGO_VERDICT_OVER_BUDGET, POGO_VERDICT_RULES_VERSION,
    POGO_VERDICT_SPARSE_HASHES, POGO_VERDICT_TOO_LONG, POGO_VERDICT_TRUNCATED,
    POGO_VERDICT_TUNING_MISMATCH, POGO_VERDICT_UNKNOWN_LEVEL, POGO_VERDICT_UNSUPPORTED_FORMAT,
    POGO_VERDICT_VERIFIED, PogoVerdict, PogoVerifierDef, VERIFIER_DEF_COOKIE,
};

/// Most levels a verifier definition may list besides the built-in ones.
pub(crate) const LEVELS_MAX: usize = 256;

/// Every verdict kind: its code and its name (`VerifyError::kind`'s, as `pogo verify --json`
/// prints them).
pub(crate) const KINDS: &[(u32, &CStr)] = &[
    (POGO_VERDICT_VERIFIED, c"verified"),
    (POGO_VERDICT_BAD_MAGIC, c"bad_magic"),
    (POGO_VERDICT_UNSUPPORTED_FORMAT, c"unsupported_format"),
    (POGO_VERDICT_TRUNCATED, c"truncated"),
    (POGO_VERDICT_CHECKSUM, c"checksum"),
    (POGO_VERDICT_TOO_LONG, c"too_long"),
    (POGO_VERDICT_SPARSE_HASHES, c"sparse_hashes"),
    (POGO_VERDICT_IO, c"io"),
    (POGO_VERDICT_MALFORMED, c"malformed"),
    (POGO_VERDICT_RULES_VERSION, c"rules_version"),
    (POGO_VERDICT_FORMAT_MISMATCH, c"format_mismatch"),
    (POGO_VERDICT_TUNING_MISMATCH, c"tuning_mismatch"),
    (POGO_VERDICT_UNKNOWN_LEVEL, c"unknown_level"),
    (POGO_VERDICT_LEVEL_MISMATCH, c"level_mismatch"),
    (POGO_VERDICT_DESYNC, c"desync"),
    (POGO_VERDICT_OUTCOME_MISMATCH, c"outcome_mismatch"),
    (POGO_VERDICT_OVER_BUDGET, c"over_budget"),
    (POGO_VERDICT_OUT_OF_TIME, c"out_of_time"),
    (POGO_VERDICT_OTHER, c"other"),
];

/// The name of verdict kind `kind`, or "unknown".
pub fn kind_name(kind: u32) -> &'static CStr {
    KINDS
        .iter()
        .find(|(code, _)| *code == kind)
        .map_or(c"unknown", |(_, name)| name)
}

pub fn default_def() -> PogoVerifierDef {
    let limits = Limits::default();
    PogoVerifierDef {
        internal_value: VERIFIER_DEF_COOKIE,
        tuning: Default::default(),
        levels: core::ptr::null(),
        level_count: 0,
        builtin_levels: 1,
        ticks_max: limits.ticks_max,
        hash_interval_s_max: limits.hash_interval_s_max,
        duration_ms_max: 0,
        player_ticks_max: limits.player_ticks_max,
    }
}

/// A verifier from a definition whose `levels` array has already been read into `levels`.
pub fn create(
    reg: &Registry,
    def: &PogoVerifierDef,
    levels: &[crate::types::PogoLevel],
) -> Result<Verifier, Error> {
    if def.internal_value != VERIFIER_DEF_COOKIE {
        return Err(Error::invalid(
            "PogoVerifierDef was not initialised with pogo_default_verifier_def()",
        ));
    }
    if def.builtin_levels > 1 {
        return Err(Error::invalid(format_args!(
            "builtin_levels is {}: it must be 0 or 1",
            def.builtin_levels
        )));
    }
    if def.ticks_max == 0 || def.player_ticks_max == 0 {
        return Err(Error::invalid(
            "ticks_max and player_ticks_max must be at least 1",
        ));
    }
    if !(1..=HASH_INTERVAL_SECONDS_MAX).contains(&def.hash_interval_s_max) {
        return Err(Error::invalid(format_args!(
            "hash_interval_s_max {} is outside 1…{HASH_INTERVAL_SECONDS_MAX}",
            def.hash_interval_s_max
        )));
    }
    // wasm32-unknown-unknown has no clock: `Instant::now` would abort the module.
    if cfg!(target_family = "wasm") && def.duration_ms_max != 0 {
        return Err(Error::invalid(
            "duration_ms_max must be 0 in the WebAssembly build, which has no clock",
        ));
    }
    let tuning = (**reg.tuning(def.tuning)?).clone();
    let descs = levels
        .iter()
        .map(|&l| Ok(reg.level(l)?.desc().clone()))
        .collect::<Result<Vec<_>, Error>>()?;
    let limits = Limits {
        ticks_max: def.ticks_max,
        player_ticks_max: def.player_ticks_max,
        hash_interval_s_max: def.hash_interval_s_max,
        duration_max: (def.duration_ms_max != 0)
            .then(|| Duration::from_millis(u64::from(def.duration_ms_max))),
    };
    let verifier = Verifier::new(tuning, descs, limits);
    Ok(if def.builtin_levels == 1 {
        verifier.and_builtin_levels()
    } else {
        verifier
    })
}

/// Verifies `bytes` with `verifier` (outside the registry lock: it may take a while).
pub fn verify(verifier: &Arc<Verifier>, bytes: &[u8]) -> PogoVerdict {
    verdict(verifier.verify(bytes))
}

fn verdict(result: Result<Verified, VerifyError>) -> PogoVerdict {
    let mut v = PogoVerdict::default();
    match result {
        Ok(verified) => {
            v.kind = POGO_VERDICT_VERIFIED;
            v.final_hash = verified.final_hash;
            v.level_hash = verified.header.level_hash;
            v.tuning_hash = verified.header.tuning_hash;
            v.ticks = verified.ticks;
            v.players = u32::from(verified.header.players);
            v.rules_version = verified.header.rules_version;
            for (player, finish) in verified
                .finish
                .iter()
                .enumerate()
                .take(v.finish_ticks.len())
            {
                if let Some(tick) = finish {
                    v.finished_mask |= 1 << player;
                    v.finish_ticks[player] = *tick;
                }
            }
            set_reason(&mut v, "verified");
        }
        Err(e) => {
            let name = e.kind();
            v.kind = KINDS
                .iter()
                .find(|(_, n)| n.to_bytes() == name.as_bytes())
                .map_or(POGO_VERDICT_OTHER, |(code, _)| *code);
            match &e {
                VerifyError::Desync {
                    tick,
                    expected,
                    found,
                } => {
                    v.desync_tick = tick.0;
                    (v.expected, v.found) = (*expected, *found);
                }
                VerifyError::TuningMismatch { expected, found }
                | VerifyError::LevelMismatch {
                    expected, found, ..
                } => (v.expected, v.found) = (*expected, *found),
                VerifyError::RulesVersion { expected, found }
                | VerifyError::TickRate { expected, found } => {
                    (v.expected, v.found) = (u64::from(*expected), u64::from(*found));
                }
                VerifyError::FracBits { expected, found } => {
                    (v.expected, v.found) = (u64::from(*expected), u64::from(*found));
                }
                VerifyError::OutcomeMismatch { player, .. } => {
                    v.player = u32::try_from(*player).unwrap_or(u32::MAX);
                }
                _ => {}
            }
            set_reason(&mut v, &e.to_string());
        }
    }
    v
}

/// Stores `text` (made printable) as the verdict's NUL-terminated reason, cut at a
/// character boundary to fit.
fn set_reason(v: &mut PogoVerdict, text: &str) {
    let text = printable(text);
    let mut end = text.len().min(POGO_REASON_BYTES - 1);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    for (slot, byte) in v.reason.iter_mut().zip(text.as_bytes()[..end].iter()) {
        *slot = *byte as core::ffi::c_char;
    }
    v.reason[end] = 0;
    v.reason_len = end as u32;
}
