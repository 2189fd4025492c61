//! Shared helpers for the integration tests of pogo-core.
#![allow(dead_code)] // each test binary uses its own subset

use pogo_core::{Fx, Vec3};

/// SplitMix64: a tiny deterministic generator, so seeded tests need no RNG crate.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A value in −range…range (whole units) with 2⁻³² resolution.
    pub fn fx(&mut self, range: i64) -> Fx {
        let span = (2 * range) << 32;
        Fx::from_bits((self.next() % span as u64) as i64 - (range << 32))
    }

    /// A value in 0…range with 2⁻³² resolution.
    pub fn fx_positive(&mut self, range: i64) -> Fx {
        Fx::from_bits((self.next() % ((range << 32) as u64)) as i64)
    }

    pub fn vec(&mut self, range: i64) -> Vec3 {
        Vec3::new(self.fx(range), self.fx(range), self.fx(range))
    }
}

/// The seed for a randomized test: `POGO_TEST_SEED` if set (a u64), else `default`. Printed,
/// so a failure can be replayed.
pub fn seed(test: &str, default: u64) -> u64 {
    let seed = std::env::var("POGO_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default);
    eprintln!("{test}: POGO_TEST_SEED={seed}");
    seed
}

/// `text` parsed exactly as tuning and level files are (`Fx::parse_decimal`).
pub fn fx(text: &str) -> Fx {
    Fx::parse_decimal(text).unwrap()
}

pub fn v(x: &str, y: &str, z: &str) -> Vec3 {
    Vec3::new(fx(x), fx(y), fx(z))
}
