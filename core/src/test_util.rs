//! Helpers shared by the unit tests: numbers written as exact decimal text, and the seeded
//! stream of the randomized ones.

use crate::fx::Fx;
use crate::vec3::Vec3;

/// `text` parsed exactly as tuning and level files are (`Fx::parse_decimal`).
pub(crate) fn fx(text: &str) -> Fx {
    Fx::parse_decimal(text).unwrap()
}

pub(crate) fn v(x: &str, y: &str, z: &str) -> Vec3 {
    Vec3::new(fx(x), fx(y), fx(z))
}

/// SplitMix64 (Steele, Lea, Flood 2014): the seeded stream of the randomized unit tests, which
/// print their seed on failure.
pub(crate) struct SplitMix64(pub(crate) u64);

impl SplitMix64 {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}
