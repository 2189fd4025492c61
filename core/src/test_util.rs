//! Helpers shared by the unit tests: numbers written as exact decimal text.

use crate::fx::Fx;
use crate::vec3::Vec3;

/// `text` parsed exactly as tuning and level files are (`Fx::parse_decimal`).
pub(crate) fn fx(text: &str) -> Fx {
    Fx::parse_decimal(text).unwrap()
}

pub(crate) fn v(x: &str, y: &str, z: &str) -> Vec3 {
    Vec3::new(fx(x), fx(y), fx(z))
}
