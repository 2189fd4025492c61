//! Lean: how far the pogo's axis tilts from vertical, following the stick.
//!
//! The lean is stored as the horizontal part of the pogo's unit up axis (x east, z south),
//! i.e. the sine of the tilt along each axis; its length never exceeds sin(`max_lean_angle`).
//! Each tick it moves straight toward `stick · sin(max_lean_angle)` by at most `lean_rate · dt`.
//! The rate is stated in degrees per second but applied to the sine, so the step is exact for
//! small tilts and about 3% slow near the default 25° limit (sin θ vs θ); a documented choice
//! that keeps trigonometry out of the tick.

use crate::fx::Fx;
use crate::tuning::Tuning;
use crate::vec3::Vec3;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct Lean {
    /// Horizontal part of the up axis toward east (+x).
    pub x: Fx,
    /// Horizontal part of the up axis toward south (+z).
    pub z: Fx,
}

impl Lean {
    pub const UPRIGHT: Lean = Lean {
        x: Fx::ZERO,
        z: Fx::ZERO,
    };

    /// The pogo's unit up axis: (x, √(1 − x² − z²), z).
    pub fn up(self) -> Vec3 {
        let horizontal = Vec3::new(self.x, Fx::ZERO, self.z);
        let y = (Fx::ONE - horizontal.length_squared()).sqrt();
        Vec3::new(self.x, y, self.z)
    }

    /// The lean after one tick of following `stick` (horizontal, length ≤ 1).
    pub fn follow(self, stick: Vec3, tuning: &Tuning) -> Lean {
        let derived = tuning.derived();
        let current = Vec3::new(self.x, Fx::ZERO, self.z);
        let target = stick.horizontal().clamp_length(Fx::ONE) * derived.lean_max_sin;
        let next = current + (target - current).clamp_length(derived.lean_step);
        // Also re-limits a lean left over from a tuning with a larger max_lean_angle.
        let next = next.clamp_length(derived.lean_max_sin);
        Lean {
            x: next.x,
            z: next.z,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tuning::TuningSpec;

    fn east() -> Vec3 {
        Vec3::new(Fx::ONE, Fx::ZERO, Fx::ZERO)
    }

    #[test]
    fn lean_moves_at_lean_rate_and_stops_at_max_lean() {
        let t = Tuning::default();
        // 120°/s at 60 Hz: 2° = 0.0349 rad per tick.
        let one = Lean::UPRIGHT.follow(east(), &t);
        assert!(
            (one.x - Fx::lit("0.034906585")).abs() < Fx::lit("0.000001"),
            "{one:?}"
        );
        assert_eq!(one.z, Fx::ZERO);
        let mut lean = Lean::UPRIGHT;
        let mut ticks = 0;
        while lean.x < t.derived().lean_max_sin && ticks < 100 {
            lean = lean.follow(east(), &t);
            ticks += 1;
        }
        // sin 25° = 0.4226 at 0.0349 per tick: 13 ticks.
        assert_eq!(ticks, 13);
        assert!((lean.x - Fx::lit("0.4226183")).abs() < Fx::lit("0.000001"));
        assert_eq!(lean.follow(east(), &t), lean, "held at the limit");
        // Releasing the stick returns upright.
        for _ in 0..13 {
            lean = lean.follow(Vec3::ZERO, &t);
        }
        assert_eq!(lean, Lean::UPRIGHT);
    }

    #[test]
    fn max_lean_angle_limits_the_tilt() {
        let mut spec = TuningSpec::default();
        spec.set("max_lean_angle", "10").unwrap();
        let t = Tuning::new(spec).unwrap();
        let mut lean = Lean::UPRIGHT;
        for _ in 0..60 {
            lean = lean.follow(east(), &t);
        }
        // cos of the tilt: up·vertical = cos 10° = 0.98481.
        assert!((lean.up().y - Fx::lit("0.9848078")).abs() < Fx::lit("0.000001"));
    }

    #[test]
    fn up_axis_is_unit_length() {
        let lean = Lean {
            x: Fx::lit("0.3"),
            z: Fx::lit("-0.2"),
        };
        let up = lean.up();
        assert!((up.length() - Fx::ONE).abs() < Fx::lit("0.000001"));
        assert_eq!(Lean::UPRIGHT.up(), Vec3::UP);
    }
}
