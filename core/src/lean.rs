//! Lean: how far the pogo's axis tilts from vertical, following the stick.
//!
//! The lean is stored as the horizontal part of the pogo's unit up axis (x east, z south),
//! i.e. the sine of the tilt along each axis; its length never exceeds sin(`max_lean_angle`).
//! The stick (length ≤ 1) sets the target: the up axis whose horizontal part is
//! `stick · sin(max_lean_angle)`. Each tick the up axis turns toward the target's along the
//! great circle through both, by at most `lean_rate · dt` degrees, so the lean turns at
//! `lean_rate` (120°/s: 2° per tick at 60 Hz, 25° after 12.5 ticks) whatever its tilt.
//!
//! The turn needs no trigonometry per tick: with `u` the up axis, `w` the target's and
//! `δ` the step (cos δ and sin δ computed once, when the tuning is built),
//!
//! ```text
//! u·w ≥ cos δ        the target is within one step: u' = w
//! otherwise          p = (w − u (u·w)) / |w − u (u·w)|   unit, ⊥ u, toward w
//!                    u' = u cos δ + p sin δ              exactly δ from u, toward w
//! ```
//!
//! Both axes lie in the cap of tilt ≤ `max_lean_angle` (≤ 90°), which contains the arc between
//! them, so the turn never leaves it (a final clamp absorbs rounding).

use crate::fx::Fx;
use crate::tuning::Tuning;
use crate::vec3::Vec3;

/// The pogo's tilt: the horizontal part of its unit up axis (x east, z south), each component
/// dimensionless, the length the sine of the tilt from vertical and at most
/// sin(`max_lean_angle`). The up axis is [`Lean::up`]; it turns toward the stick at
/// `lean_rate` (degrees a second) without trigonometry per tick.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct Lean {
    /// Horizontal part of the up axis toward east (+x).
    pub x: Fx,
    /// Horizontal part of the up axis toward south (+z).
    pub z: Fx,
}

impl Lean {
    /// No tilt: the stick points straight up.
    pub const UPRIGHT: Lean = Lean {
        x: Fx::ZERO,
        z: Fx::ZERO,
    };

    /// The lean whose up axis has `h`'s horizontal part (x and z; `h.y` is dropped).
    fn from_horizontal(h: Vec3) -> Lean {
        Lean { x: h.x, z: h.z }
    }

    fn horizontal(self) -> Vec3 {
        Vec3::new(self.x, Fx::ZERO, self.z)
    }

    /// The lean scaled to length at most `max`: `horizontal().clamp_length(max)`, bit for bit.
    ///
    /// Written for the lean because of where its result goes. A `Lean` comes back in two
    /// registers, a `Vec3` through memory; the tick's lean once merged the square-free test's
    /// `self` with the slow path's answer in memory, copying the spilled vector with 16-byte
    /// loads of 8-byte stores, which the CPU cannot forward: a stall that cost a third of the
    /// lean's time (a cycle profile's 5 % of a `course` tick).
    #[inline]
    fn clamped(self, max: Fx) -> Lean {
        if self.horizontal().length_is_at_most(max) {
            self
        } else {
            self.clamped_slow(max)
        }
    }

    /// [`clamped`](Lean::clamped) past its square-free test.
    #[inline(never)]
    fn clamped_slow(self, max: Fx) -> Lean {
        Lean::from_horizontal(self.horizontal().clamp_length_slow(max))
    }

    /// The pogo's unit up axis: (x, √(1 − x² − z²), z).
    pub fn up(self) -> Vec3 {
        let y = (Fx::ONE - self.horizontal().length_squared()).sqrt();
        Vec3::new(self.x, y, self.z)
    }

    /// [`up`](Lean::up) for a lean of length at most 1, in range: |h|² ≤ 1 and 1 − |h|² are.
    fn up_in_range(self) -> Vec3 {
        let h = self.horizontal();
        let y = Fx::ONE.sub_in_range(h.dot_in_range(h)).sqrt();
        Vec3::new(self.x, y, self.z)
    }

    /// The lean after one tick of following `stick` (horizontal, length ≤ 1).
    ///
    /// Any stick and lean are accepted: both are first clamped (to length 1 and to
    /// `lean_max_sin` ≤ 1), so every vector below has components within ±1 (the up axes),
    /// ±3 (`cos`, a dot product of two of them), ±4 (`w − u·cos`) or ±2 (the turned axis),
    /// and the arithmetic is in range.
    pub fn follow(self, stick: Vec3, tuning: &Tuning) -> Lean {
        self.follow_unit_stick(stick.horizontal().clamp_length(Fx::ONE), tuning)
    }

    /// [`follow`](Lean::follow) for a stick already within the unit circle (horizontal, its
    /// squared raw length at most 2⁶⁴), which `follow`'s clamp would return unchanged: every
    /// [`Input::stick`](crate::input::Input::stick) is one (`input::tests` checks all 65 536,
    /// with this clamp), and so is zero. The tick's lean.
    pub(crate) fn follow_unit_stick(self, stick: Vec3, tuning: &Tuning) -> Lean {
        debug_assert!(stick.y == Fx::ZERO && stick.clamp_length(Fx::ONE) == stick);
        let derived = tuning.derived();
        let target = Lean::from_horizontal(stick.scale_in_range(derived.lean_max_sin));
        // Also re-limits a lean left over from a tuning with a larger max_lean_angle.
        let current = self.clamped(derived.lean_max_sin);
        if current == target {
            return target;
        }
        let (u, w) = (current.up_in_range(), target.up_in_range());
        let cos = u.dot_in_range(w);
        if cos >= derived.lean_step_cos {
            return target;
        }
        let Some(toward) = w.sub_in_range(u.scale_in_range(cos)).normalize() else {
            return target; // u and w coincide up to rounding
        };
        let turned = u
            .scale_in_range(derived.lean_step_cos)
            .add_in_range(toward.scale_in_range(derived.lean_step_sin));
        Lean::from_horizontal(turned).clamped(derived.lean_max_sin)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tuning::TuningSpec;

    fn east() -> Vec3 {
        Vec3::new(Fx::ONE, Fx::ZERO, Fx::ZERO)
    }

    fn close(a: Fx, b: &str) -> bool {
        (a - Fx::lit(b)).abs() < Fx::lit("0.0000001")
    }

    /// The lean's tilt from vertical, as the cosine of the angle (the up axis's y).
    fn cos_tilt(lean: Lean) -> Fx {
        lean.up().y
    }

    #[test]
    fn lean_turns_at_lean_rate_and_stops_at_max_lean() {
        let t = Tuning::default();
        // 120°/s at 60 Hz: 2° per tick, the tilt after k ticks is 2k° (cos listed) until 25°.
        let cos_after = [
            (1, "0.9993908270"),  // 2°
            (6, "0.9781476007"),  // 12°
            (12, "0.9135454576"), // 24°, not 24.8° as a step on the sine gave
            (13, "0.9063077870"), // 25°: the limit (12.5 ticks away)
            (30, "0.9063077870"),
        ];
        let mut lean = Lean::UPRIGHT;
        let mut ticks = 0;
        for (at, cos) in cos_after {
            while ticks < at {
                lean = lean.follow(east(), &t);
                ticks += 1;
            }
            assert!(close(cos_tilt(lean), cos), "after {ticks} ticks: {lean:?}");
            assert_eq!(lean.z, Fx::ZERO);
        }
        assert!(close(lean.x, "0.4226182617"), "sin 25°: {lean:?}");
        assert_eq!(lean.follow(east(), &t), lean, "held at the limit");
        // Releasing the stick returns upright at the same rate: 12 ticks leave 1°.
        for _ in 0..12 {
            lean = lean.follow(Vec3::ZERO, &t);
        }
        assert!(close(cos_tilt(lean), "0.9998476952"), "1° left: {lean:?}");
        lean = lean.follow(Vec3::ZERO, &t);
        assert_eq!(lean, Lean::UPRIGHT);
    }

    #[test]
    fn every_turn_is_one_step_along_the_great_circle() {
        // From full east to full south: 34.8° apart, turned 2° a tick, never leaving the
        // 25° cap, and each tick's axis in the plane of the start and the target.
        let t = Tuning::default();
        let south = Vec3::new(Fx::ZERO, Fx::ZERO, Fx::ONE);
        let mut lean = Lean::UPRIGHT;
        for _ in 0..20 {
            lean = lean.follow(east(), &t);
        }
        let start = lean.up();
        let target = Lean::UPRIGHT;
        let target = (0..20).fold(target, |l, _| l.follow(south, &t)).up();
        let normal = start.cross(target);
        let mut ticks = 0;
        while lean.up() != target && ticks < 100 {
            let next = lean.follow(south, &t);
            let step = lean.up().dot(next.up());
            if next.up() != target {
                assert!(close(step, "0.9993908270"), "tick {ticks}: cos {step}");
            } else {
                assert!(step >= Fx::lit("0.9993908"), "last step longer than 2°");
            }
            assert!(
                next.up().dot(normal).abs() < Fx::lit("0.000001"),
                "off the circle"
            );
            assert!(
                cos_tilt(next) >= Fx::lit("0.9063077"),
                "outside 25°: {next:?}"
            );
            lean = next;
            ticks += 1;
        }
        // acos(cos² 25°) = 34.77°: 17 full steps and a short one.
        assert_eq!(ticks, 18);
    }

    #[test]
    fn the_rate_follows_the_tuning() {
        let mut spec = TuningSpec::default();
        spec.set("lean_rate", "60").unwrap(); // 1° per tick
        let t = Tuning::new(spec).unwrap();
        let mut lean = Lean::UPRIGHT;
        for _ in 0..10 {
            lean = lean.follow(east(), &t);
        }
        assert!(close(cos_tilt(lean), "0.9848077530"), "10°: {lean:?}");
        let mut spec = TuningSpec::default();
        spec.set("lean_rate", "3600").unwrap(); // 60° per tick: one tick to the limit
        let t = Tuning::new(spec).unwrap();
        assert!(close(
            cos_tilt(Lean::UPRIGHT.follow(east(), &t)),
            "0.9063077870"
        ));
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
        // A lean left from a 25° tuning is brought back within 10° at once.
        let wide = Lean {
            x: Fx::lit("0.4226182617"),
            z: Fx::ZERO,
        };
        assert!(wide.follow(east(), &t).up().y >= Fx::lit("0.9848077"));
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
