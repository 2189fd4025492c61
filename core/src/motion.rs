//! Motion under constant acceleration: the exact update every airborne tick moves by.
//!
//! Units: positions in metres, velocities in m/s, accelerations in m/s², times in seconds.
//! Axes are the world's (x east, y up, z south), so gravity is the acceleration `(0, −g, 0)`
//! with `g` the positive [`gravity`](crate::TuningSpec::gravity) key.
//!
//! Over one step of length `dt` with the acceleration `a` held constant, the update
//!
//! ```text
//! p ← p + v·dt + a·dt²/2
//! v ← v + a·dt
//! ```
//!
//! is the closed-form solution of the motion, not an approximation of it: however many steps a
//! ballistic arc takes, each step lands on the analytic parabola `p₀ + v₀·t + a·t²/2` at
//! `t = k·dt`, up to fixed-point rounding (about (2 + |a|)·2⁻³² m per step, because the stored
//! dt²/2 is itself rounded: a few micrometres after a thousand ticks at |a| = 24 m/s²). With a
//! tick length that is a binary fraction (64 Hz) nothing rounds and the match is bit-for-bit.
//! Euler steps (`p += v·dt`, before or after `v += a·dt`) would instead drift by `a·t·dt/2`,
//! which depends on the tick rate. When the acceleration changes between ticks (at the apex,
//! when a dive starts), the update is still exact within each tick.
//!
//! # In the tick
//!
//! The tick (`step.rs`) sweeps the capsule along a step before taking it, so it uses the
//! update in its two halves, written here once: the displacement `v·τ + a·τ²/2`
//! (`displacement_with`), which it sweeps, and the velocity gained `a·τ` (`gained_with`). A
//! step that touches nothing is [`integrate_over`] exactly. A step that touches something a
//! fraction `t` of the way moves `t` of the displacement (along the chord of that step's arc)
//! and gains `a·τ·t`; the rest of the tick is a new step from there.
//!
//! # Arithmetic
//!
//! The public functions saturate like [`Fx`]'s operators, so no input can panic or wrap. The
//! tick runs the same formulas with the in-range operations (`InRange`: no saturation tests,
//! each result debug-asserted representable), which its bound (D) proves exact for any
//! velocity and acceleration over at most one tick.

use crate::fx::Fx;
use crate::tuning::Derived;
use crate::vec3::{Arith, Saturating, Vec3};

/// Moves a body one tick of the tuning's tick length: returns the new `(position, velocity)`
/// after `dt = derived.dt` seconds at the constant `acceleration`.
///
/// `position` in m, `velocity` in m/s, `acceleration` in m/s² (y up: gravity is `(0, −g, 0)`).
/// See the [module docs](self) for why this update is exact.
pub fn integrate(
    position: Vec3,
    velocity: Vec3,
    acceleration: Vec3,
    derived: &Derived,
) -> (Vec3, Vec3) {
    integrate_over(
        position,
        velocity,
        acceleration,
        derived.dt,
        derived.half_dt_squared,
    )
}

/// [`integrate`] over a step of any length (for example the part of a tick before a contact):
/// `dt` in s, `half_dt_squared` = dt²/2 in s². Returns the new `(position, velocity)`: the
/// position plus the step's displacement, the velocity plus what the acceleration adds.
pub fn integrate_over(
    position: Vec3,
    velocity: Vec3,
    acceleration: Vec3,
    dt: Fx,
    half_dt_squared: Fx,
) -> (Vec3, Vec3) {
    let d = displacement_with::<Saturating>(velocity, acceleration, dt, half_dt_squared);
    let gained = gained_with::<Saturating>(acceleration, dt);
    (position + d, velocity + gained)
}

/// The same update on one axis: position (m), velocity (m/s), acceleration (m/s²), `dt` (s) and
/// `half_dt_squared` = dt²/2 (s²). Returns the new `(position, velocity)`.
pub fn integrate_axis(
    position: Fx,
    velocity: Fx,
    acceleration: Fx,
    dt: Fx,
    half_dt_squared: Fx,
) -> (Fx, Fx) {
    let (p, v) = integrate_over(
        Vec3::new(position, Fx::ZERO, Fx::ZERO),
        Vec3::new(velocity, Fx::ZERO, Fx::ZERO),
        Vec3::new(acceleration, Fx::ZERO, Fx::ZERO),
        dt,
        half_dt_squared,
    );
    (p.x, v.x)
}

/// How far a body moving at `velocity` (m/s) with the constant `acceleration` (m/s²) goes in
/// `duration` (s), given `half_duration_squared` = `duration · duration / 2` (s², as the
/// caller computes it): `v·τ + a·τ²/2`, in the arithmetic `A`.
#[inline]
pub(crate) fn displacement_with<A: Arith>(
    velocity: Vec3,
    acceleration: Vec3,
    duration: Fx,
    half_duration_squared: Fx,
) -> Vec3 {
    let v = A::scale(velocity, duration);
    let a = A::scale(acceleration, half_duration_squared);
    Vec3::new(A::add(v.x, a.x), A::add(v.y, a.y), A::add(v.z, a.z))
}

/// The velocity (m/s) the constant `acceleration` (m/s²) adds over `duration` (s): `a·τ`, in
/// the arithmetic `A`.
#[inline]
pub(crate) fn gained_with<A: Arith>(acceleration: Vec3, duration: Fx) -> Vec3 {
    A::scale(acceleration, duration)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::v;
    use crate::{Tuning, TuningSpec};

    fn derived_at(tick_rate: u32) -> Derived {
        let spec = TuningSpec {
            tick_rate,
            ..TuningSpec::default()
        };
        Tuning::new(spec).unwrap().derived().clone()
    }

    /// `p₀ + v₀·t + a·t²/2`, evaluated in `Fx` at `t = k·dt`.
    fn parabola(p0: Vec3, v0: Vec3, a: Vec3, dt: Fx, k: u32) -> Vec3 {
        let t = dt.mul_int(i64::from(k));
        p0 + v0 * t + a * (t * t / Fx::from_int(2))
    }

    fn run(p0: Vec3, v0: Vec3, a: Vec3, derived: &Derived, ticks: u32) -> (Vec3, Vec3) {
        (0..ticks).fold((p0, v0), |(p, vel), _| integrate(p, vel, a, derived))
    }

    /// At 64 Hz, dt = 2⁻⁶ and dt²/2 = 2⁻¹³ are exact, and with these start values every product
    /// and sum along the way is a binary fraction of at most 32 fractional bits well inside the
    /// range: no operation rounds on either side, so the comparison is bit-for-bit. Equality
    /// then holds only because the update is the exact solution, not an approximation.
    #[test]
    fn arc_lands_bit_for_bit_on_the_parabola_when_dt_is_a_binary_fraction() {
        let derived = derived_at(64);
        assert_eq!(derived.dt, Fx::lit("0.015625"));
        let gravity = Vec3::new(Fx::ZERO, Fx::from_int(-24), Fx::ZERO);
        let cases = [
            (v("1", "2", "-3"), Vec3::ZERO, gravity), // from rest
            (v("0", "0.5", "0"), v("3", "12.5", "-0.75"), gravity),
            (
                v("-4", "10", "7"),
                v("-1.25", "0", "2"),
                v("5", "-43.25", "-0.5"),
            ),
        ];
        for (p0, v0, a) in cases {
            for k in [1, 10, 100] {
                let (p, vel) = run(p0, v0, a, &derived, k);
                assert_eq!(
                    p,
                    parabola(p0, v0, a, derived.dt, k),
                    "p0 {p0:?} v0 {v0:?} tick {k}"
                );
                assert_eq!(vel, v0 + a * derived.dt.mul_int(i64::from(k)), "tick {k}");
            }
        }
    }

    /// At 60 Hz, dt = 1/60 is not a binary fraction and the products round, so the comparison
    /// is within a bound, in units of 2⁻³² (ulps). Per tick: ≤ 1 each for rounding v·dt and
    /// a·(dt²/2); ≤ |a| because the stored dt²/2 is itself rounded (by ≤ 1 ulp) from the exact
    /// square of the stored dt; and the velocity, off by ≤ i ulps after i ticks from rounding
    /// a·dt, adds i·dt < i/60 ulps. Over k ticks that is ≤ (2 + |a|)·k + k²/120, plus a few
    /// |a| ulps for rounding the reference parabola itself. The test allows
    /// (2 + |a|)·k + k²/100 + 2·|a| + 32 ulps: about 6·10⁻⁷ m at tick 100 with |a| = 24, while
    /// an Euler step is off by a·t·dt/2 ≈ 0.33 m there.
    #[test]
    fn arc_stays_within_rounding_of_the_parabola_at_60_hz() {
        let derived = derived_at(60);
        let a = Vec3::new(Fx::ZERO, Fx::from_int(-24), Fx::ZERO);
        for (p0, v0) in [
            (Vec3::ZERO, Vec3::ZERO),
            (v("2", "0.1", "-3"), v("6", "12.63", "-2.5")),
        ] {
            for k in [1u32, 10, 100] {
                let (p, _) = run(p0, v0, a, &derived, k);
                let expected = parabola(p0, v0, a, derived.dt, k);
                let k = i64::from(k);
                let allowed = (2 + 24) * k + k * k / 100 + 2 * 24 + 32;
                for (got, want) in [(p.x, expected.x), (p.y, expected.y), (p.z, expected.z)] {
                    let ulps = (got - want).to_bits().abs();
                    assert!(
                        ulps <= allowed,
                        "tick {k}: {got} vs {want}, {ulps} ulps > {allowed}"
                    );
                }
            }
        }
    }

    /// One tick from rest at 64 Hz under −24 m/s²: the exact update gives y = −24·2⁻¹³ and
    /// vy = −24·2⁻⁶. Both Euler orders give other values, so this assertion catches them.
    #[test]
    fn first_tick_from_rest_is_not_what_euler_gives() {
        let derived = derived_at(64);
        let (dt, a) = (derived.dt, Fx::from_int(-24));
        let (y, vy) = integrate_axis(Fx::ZERO, Fx::ZERO, a, dt, derived.half_dt_squared);
        assert_eq!((y, vy), (Fx::lit("-0.0029296875"), Fx::lit("-0.375")));

        let explicit_euler = Fx::ZERO + Fx::ZERO * dt; // p += v·dt, then v += a·dt
        let semi_implicit_euler = Fx::ZERO + (Fx::ZERO + a * dt) * dt; // v first, then p
        assert_eq!(explicit_euler, Fx::ZERO);
        assert_eq!(semi_implicit_euler, Fx::lit("-0.005859375"));
        assert_ne!(y, explicit_euler);
        assert_ne!(y, semi_implicit_euler);

        // After 100 ticks semi-implicit Euler is a·dt²·k/2 ≈ 0.29 m below the exact arc.
        let mut euler = (Fx::ZERO, Fx::ZERO);
        let mut exact = (Fx::ZERO, Fx::ZERO);
        for _ in 0..100 {
            euler.1 += a * dt;
            euler.0 += euler.1 * dt;
            exact = integrate_axis(exact.0, exact.1, a, dt, derived.half_dt_squared);
        }
        let t = dt.mul_int(100);
        assert_eq!(exact.0, a * (t * t) / Fx::from_int(2));
        assert_eq!(exact.0 - euler.0, Fx::lit("0.29296875"));
    }

    #[test]
    fn the_vector_update_is_the_axis_update_on_each_component() {
        let derived = derived_at(60);
        let (p, vel, a) = (
            v("1.5", "-2", "3"),
            v("-7", "12.6", "0.25"),
            v("18", "-24", "-3.5"),
        );
        let (p1, v1) = integrate(p, vel, a, &derived);
        let axis = |p, v, a| integrate_axis(p, v, a, derived.dt, derived.half_dt_squared);
        assert_eq!((p1.x, v1.x), axis(p.x, vel.x, a.x));
        assert_eq!((p1.y, v1.y), axis(p.y, vel.y, a.y));
        assert_eq!((p1.z, v1.z), axis(p.z, vel.z, a.z));
        // Zero acceleration is a straight line: exactly v·dt per tick.
        let (p2, v2) = integrate(p, vel, Vec3::ZERO, &derived);
        assert_eq!((p2, v2), (p + vel * derived.dt, vel));
    }

    #[test]
    fn extreme_inputs_saturate_instead_of_panicking() {
        let derived = derived_at(60);
        for extreme in [Fx::MAX, Fx::MIN] {
            let big = Vec3::new(extreme, extreme, extreme);
            assert_eq!(integrate(big, big, big, &derived), (big, big));
        }
        // Mixed signs: no panic, and the result stays in range by construction.
        let mixed = Vec3::new(Fx::MAX, Fx::MIN, Fx::ZERO);
        let (p, _) = integrate(mixed, -mixed, mixed, &derived);
        assert!(p.x < Fx::MAX && p.y > Fx::MIN);
    }
}
