//! Tunings as the fuzzer gives them: the defaults with a few keys moved anywhere within
//! their ranges.

use std::sync::OnceLock;

use arbitrary::Arbitrary;
use pogo_core::{Fx, Tuning, TuningSpec};

/// One key set to `min + (max − min) · pick / 2³²` (`u32::MAX` gives exactly `max`; whole
/// number keys are rounded), the key chosen modulo the key count.
#[derive(Arbitrary, Clone, Copy, Debug)]
pub struct Override {
    pub key: u8,
    pub pick: u32,
}

/// The default tuning with at most `max` of `overrides` applied, or `None` if the result is
/// not a valid tuning (say `min_launch_speed` above `max_launch_speed`): such inputs are
/// skipped, not failures.
pub(crate) fn build(overrides: &[Override], max: usize) -> Option<Tuning> {
    if overrides.is_empty() {
        return Some(default_tuning().clone());
    }
    let mut spec = TuningSpec::default();
    for o in overrides.iter().take(max) {
        let key = &TuningSpec::KEYS[usize::from(o.key) % TuningSpec::KEYS.len()];
        let value = if o.pick == u32::MAX {
            key.max
        } else {
            key.min + (key.max - key.min) * Fx::from_bits(i64::from(o.pick))
        };
        let text = if key.integer {
            value.round_to_int().to_string()
        } else {
            value.to_string()
        };
        // Display is exact and parse_decimal is exact, so this sets `value` itself.
        spec.set(key.name, &text).ok()?;
    }
    Tuning::new(spec).ok()
}

/// The default tuning, built once (building derives cosines with `cordic`).
pub(crate) fn default_tuning() -> &'static Tuning {
    static DEFAULT: OnceLock<Tuning> = OnceLock::new();
    DEFAULT.get_or_init(Tuning::default)
}
