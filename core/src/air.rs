//! Airborne rules: gravity with faster falling and the dive, terminal speed, steering.
//!
//! Sign convention: y is up, so gravity is a negative vertical acceleration.

use crate::fx::Fx;
use crate::tuning::Tuning;
use crate::vec3::{Arith, Saturating, Vec3};

/// Gravity's multiplier for this tick (Pittman's faster falling): 1 while rising or level;
/// while falling (vertical speed below zero) `dive_gravity_scale` if the dive button is held,
/// else `fall_gravity_scale`.
pub fn gravity_scale(vertical_speed: Fx, diving: bool, tuning: &Tuning) -> Fx {
    let spec = tuning.spec();
    match (vertical_speed < Fx::ZERO, diving) {
        (false, _) => Fx::ONE,
        (true, true) => spec.dive_gravity_scale,
        (true, false) => spec.fall_gravity_scale,
    }
}

/// Vertical acceleration from gravity (m/s², negative: down), including a zone's gravity
/// multiplier (`zone_scale`, 1 outside zones).
pub fn gravity(vertical_speed: Fx, diving: bool, zone_scale: Fx, tuning: &Tuning) -> Fx {
    // gravity ≤ 1000 m/s² and its scales ≤ 10 (tuning ranges): their product is in range;
    // a zone's scale (overlapping zones multiply) is not bounded, so it saturates.
    let scaled = tuning
        .spec()
        .gravity
        .mul_in_range(gravity_scale(vertical_speed, diving, tuning));
    -(scaled * zone_scale)
}

/// `velocity` with its downward speed limited to `terminal_speed`; upward speed is untouched.
pub fn limit_fall_speed(velocity: Vec3, tuning: &Tuning) -> Vec3 {
    let floor = -tuning.spec().terminal_speed;
    Vec3::new(velocity.x, velocity.y.max(floor), velocity.z)
}

/// `acceleration` with its vertical part limited so that a body moving at `velocity` for
/// `duration` seconds ends no faster downward than `terminal_speed`: in the tick (or part of
/// one) in which the fall reaches terminal speed, the vertical acceleration is the constant
/// one that arrives exactly at it, `(−terminal_speed − v_y) / duration`; at terminal speed it
/// is zero. Downward speed then never exceeds the limit anywhere in the motion, since under a
/// constant acceleration the speed moves monotonically from its start to its end value (a
/// fall at terminal speed moves exactly `terminal_speed · dt` per tick). `velocity` must be
/// within the limit already ([`limit_fall_speed`]); upward motion and the horizontal are
/// untouched.
pub fn limit_fall_acceleration(
    acceleration: Vec3,
    velocity: Vec3,
    duration: Fx,
    tuning: &Tuning,
) -> Vec3 {
    limit_fall_acceleration_with::<Saturating>(acceleration, velocity, duration, tuning)
}

/// [`limit_fall_acceleration`] in the arithmetic `A` (see [`Arith`]): in range when
/// `v_y + a_y · duration` and its product are.
pub(crate) fn limit_fall_acceleration_with<A: Arith>(
    acceleration: Vec3,
    velocity: Vec3,
    duration: Fx,
    tuning: &Tuning,
) -> Vec3 {
    let floor = -tuning.spec().terminal_speed;
    if duration <= Fx::ZERO || A::add(velocity.y, A::mul(acceleration.y, duration)) >= floor {
        return acceleration;
    }
    // v_y ≥ floor, so the numerator is ≤ 0 and the result lies in [a_y, 0].
    let limited = ((floor - velocity.y) / duration).max(acceleration.y);
    Vec3::new(acceleration.x, limited, acceleration.z)
}

/// Share of the steering acceleration available at a horizontal speed (m/s): 1 at rest,
/// falling linearly **in the squared speed** to `air_control_min` at
/// `air_control_fade_speed`, constant beyond. With the defaults: 1 at 0, 0.84 at 7 m/s, 0.35
/// at 14 m/s and above.
///
/// The fade is linear in speed² rather than in speed so that it needs no square root: the
/// tick computes it from `|v_h|²` (see [`air_control_squared`]), one multiplication.
pub fn air_control(horizontal_speed: Fx, tuning: &Tuning) -> Fx {
    air_control_squared(horizontal_speed * horizontal_speed, tuning)
}

/// [`air_control`] of a squared horizontal speed (m²/s²):
/// `1 − (1 − air_control_min) · min(s², fade²) / fade²`, the quotient precomputed once per
/// tuning and rounded up, so that at and beyond the fade speed the result is exactly
/// `air_control_min`, never below it.
pub fn air_control_squared(horizontal_speed_squared: Fx, tuning: &Tuning) -> Fx {
    air_control_squared_with::<Saturating>(horizontal_speed_squared, tuning)
}

/// [`air_control_squared`] in the arithmetic `A`: in range for a squared speed ≥ 0, whose
/// fade is at most `fade² · (1 − air_control_min)/fade²` rounded up, about 1.
fn air_control_squared_with<A: Arith>(horizontal_speed_squared: Fx, tuning: &Tuning) -> Fx {
    let derived = tuning.derived();
    let faded = A::mul(
        horizontal_speed_squared.min(derived.air_control_fade_speed_squared),
        derived.air_control_fade_per_speed_squared,
    );
    A::sub(Fx::ONE, faded).max(tuning.spec().air_control_min)
}

/// Horizontal steering acceleration (m/s²) for a stick vector (horizontal, length ≤ 1) at the
/// pogo's current velocity. Zero, with nothing computed, when the stick is centred.
pub fn steering(stick: Vec3, velocity: Vec3, tuning: &Tuning) -> Vec3 {
    steering_with::<Saturating>(stick, velocity, tuning)
}

/// [`steering`] in the arithmetic `A`: in range for a stick within the unit circle and a
/// velocity whose squared horizontal length is (below 2³¹ m²/s²).
pub(crate) fn steering_with<A: Arith>(stick: Vec3, velocity: Vec3, tuning: &Tuning) -> Vec3 {
    let stick = stick.horizontal();
    if stick == Vec3::ZERO {
        return Vec3::ZERO;
    }
    let horizontal = velocity.horizontal();
    let control = air_control_squared_with::<A>(A::dot(horizontal, horizontal), tuning);
    // air_accel ≤ 200 m/s² (tuning range), and the control of a squared length (≥ 0) is
    // within air_control_min…1: in range.
    A::scale(stick, tuning.spec().air_accel.mul_in_range(control))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::fx;
    use crate::tuning::TuningSpec;

    fn tuning_with(overrides: &[&str]) -> Tuning {
        let mut spec = TuningSpec::default();
        for o in overrides {
            spec.apply_override(o).unwrap();
        }
        Tuning::new(spec).unwrap()
    }

    #[test]
    fn gravity_is_24_down_and_scaled_by_zone() {
        let t = Tuning::default();
        assert_eq!(gravity(fx("1"), false, Fx::ONE, &t), fx("-24"));
        assert_eq!(gravity(fx("1"), false, fx("0.5"), &t), fx("-12"));
        assert_eq!(
            gravity(fx("1"), false, Fx::ONE, &tuning_with(&["gravity=9.75"])),
            fx("-9.75")
        );
    }

    #[test]
    fn faster_falling_and_dive_apply_only_while_falling() {
        let t = tuning_with(&["fall_gravity_scale=1.5"]);
        assert_eq!(gravity_scale(fx("2"), true, &t), Fx::ONE, "rising: no dive");
        assert_eq!(
            gravity_scale(Fx::ZERO, true, &t),
            Fx::ONE,
            "at the apex: not yet falling"
        );
        assert_eq!(gravity_scale(fx("-0.001"), false, &t), fx("1.5"));
        assert_eq!(gravity_scale(fx("-0.001"), true, &t), fx("1.8"));
        let t = Tuning::default();
        assert_eq!(gravity(fx("-3"), true, Fx::ONE, &t), fx("-24") * fx("1.8"));
        assert_eq!(gravity(fx("-3"), false, Fx::ONE, &t), fx("-24"));
    }

    #[test]
    fn fall_speed_is_limited_to_terminal_speed() {
        let t = Tuning::default();
        let v = limit_fall_speed(Vec3::new(fx("3"), fx("-31"), fx("-1")), &t);
        assert_eq!(v, Vec3::new(fx("3"), fx("-30"), fx("-1")));
        let up = Vec3::new(Fx::ZERO, fx("40"), Fx::ZERO);
        assert_eq!(limit_fall_speed(up, &t), up, "rising speed is not limited");
        let edge = Vec3::new(Fx::ZERO, fx("-29.9"), Fx::ZERO);
        assert_eq!(limit_fall_speed(edge, &t), edge);
        let t = tuning_with(&["terminal_speed=12"]);
        assert_eq!(
            limit_fall_speed(Vec3::new(Fx::ZERO, fx("-20"), Fx::ZERO), &t).y,
            fx("-12")
        );
    }

    #[test]
    fn air_control_fades_in_speed_squared_from_full_to_35_percent_at_14() {
        let t = Tuning::default();
        let close = |a: Fx, b: &str| (a - fx(b)).abs() < fx("0.000001");
        assert_eq!(air_control(Fx::ZERO, &t), Fx::ONE);
        // 7 m/s is a quarter of 14² = 196: 1 − 0.65/4.
        assert!(close(air_control(fx("7"), &t), "0.8375"));
        assert!(
            close(air_control(fx("9.899494937"), &t), "0.675"),
            "halfway in speed²"
        );
        assert_eq!(air_control(fx("14"), &t), fx("0.35"));
        assert!(air_control(fx("13.99"), &t) > fx("0.35"));
        assert_eq!(air_control(fx("40"), &t), fx("0.35"));
        assert_eq!(
            air_control_squared(fx("49"), &t),
            air_control(fx("7"), &t),
            "the same rule by squared speed"
        );
        let accel = steering(Vec3::new(Fx::ONE, Fx::ZERO, Fx::ZERO), Vec3::ZERO, &t);
        assert_eq!(accel, Vec3::new(fx("18"), Fx::ZERO, Fx::ZERO));
        // Vertical speed does not count toward the fade.
        let falling = Vec3::new(Fx::ZERO, fx("-20"), Fx::ZERO);
        assert_eq!(
            steering(Vec3::new(Fx::ZERO, Fx::ZERO, -Fx::ONE), falling, &t).z,
            fx("-18")
        );
        let fast = Vec3::new(fx("14"), Fx::ZERO, Fx::ZERO);
        assert_eq!(
            steering(Vec3::new(Fx::ONE, Fx::ZERO, Fx::ZERO), fast, &t).x,
            fx("18") * fx("0.35")
        );
    }
}
