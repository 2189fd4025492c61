//! Jump design from goals: turn what a designer wants a hop to look like into tuning values.
//!
//! Instead of guessing `gravity` and a launch speed, a designer states the shape of the jump
//! and the values follow from the constant-gravity parabola (upward positive, gravity `g > 0`
//! pulling down, vertical speed zero at the apex, ascent and descent symmetric):
//!
//! | goals | derived |
//! | --- | --- |
//! | height `H` (m), time to apex `Th` (s) | `g = 2H/Th²`, `v0 = 2H/Th` |
//! | height `H`, horizontal distance to apex `xh` (m), horizontal speed `vx` (m/s) | `Th = xh/vx`, `v0 = 2H·vx/xh`, `g = 2H·vx²/xh²` |
//! | reach `R` (m, the whole jump's horizontal distance), time to apex `T` (s), height `H` | `vx = R/(2T)`, `g = 2H/T²`, `v0 = g·T = 2H/T` |
//!
//! [`from_height_and_time`], [`from_height_distance_and_speed`] and
//! [`from_reach_time_and_height`] return a [`JumpDesign`]; [`JumpDesign::apply_to`] writes it
//! into a [`TuningSpec`] (`gravity` and `base_bounce_speed`).
//!
//! # Precision
//!
//! Every derived value is computed from the goals' raw bits in 128-bit integers as one
//! quotient, so it is the exact value truncated toward zero to 2⁻³², rounded once. The goal
//! ranges (the `*_MIN` / `*_MAX` constants) bound those integers below 2¹²³ and every quotient
//! below 2·10⁷, so no intermediate overflows and no result saturates: a result outside a
//! tuning key's range is reported with its true value, never a clamped one.
//!
//! # Ranges
//!
//! Goals must be positive and within their ranges ([`Goal::range`]); the results are then
//! checked against the ranges of the tuning keys they end up in (see [`DesignError`]). The goal
//! ranges alone cannot keep every combination inside the key ranges (a tall, quick jump needs a
//! huge gravity), so both checks are needed.
//!
//! Pittman's "faster falling" (a stronger gravity after the apex) is not designed here: it is
//! the tuning keys `fall_gravity_scale` and `dive_gravity_scale`. The ascent, and with it the
//! designed height and time to apex, does not depend on them; [`JumpDesign::apply_to`] takes
//! the faster fall into account for the landing speed.

use core::fmt;

use crate::fx::Fx;
use crate::tuning::{Key, TuningError, TuningSpec};

/// Smallest jump height goal (m).
pub const HEIGHT_MIN: Fx = Fx::lit("0.01");
/// Largest jump height goal (m).
pub const HEIGHT_MAX: Fx = Fx::lit("1000");
/// Smallest time to apex (s), given directly or implied as distance / speed.
pub const TIME_TO_APEX_MIN: Fx = Fx::lit("0.01");
/// Largest time to apex (s), given directly or implied as distance / speed.
pub const TIME_TO_APEX_MAX: Fx = Fx::lit("60");
/// Smallest horizontal distance to the apex (m).
pub const HORIZONTAL_DISTANCE_MIN: Fx = Fx::lit("0.01");
/// Largest horizontal distance to the apex (m).
pub const HORIZONTAL_DISTANCE_MAX: Fx = Fx::lit("10000");
/// Smallest horizontal speed goal (m/s).
pub const HORIZONTAL_SPEED_MIN: Fx = Fx::lit("0.01");
/// Largest horizontal speed goal (m/s): the largest allowed `max_horizontal_speed`.
pub const HORIZONTAL_SPEED_MAX: Fx = Fx::lit("200");
/// Smallest reach, the whole jump's horizontal distance (m).
pub const REACH_MIN: Fx = Fx::lit("0.02");
/// Largest reach, the whole jump's horizontal distance (m).
pub const REACH_MAX: Fx = Fx::lit("20000");

/// One designer goal, for error reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// Apex height above the launch point (m).
    Height,
    /// Time from launch to apex (s).
    TimeToApex,
    /// Horizontal distance from launch to apex (m).
    HorizontalDistance,
    /// Horizontal speed during the jump (m/s).
    HorizontalSpeed,
    /// The time to apex implied by horizontal distance / horizontal speed (s).
    ImpliedTimeToApex,
    /// Horizontal distance of the whole jump, launch to landing (m).
    Reach,
}

impl Goal {
    /// The goal's name in messages.
    pub const fn name(self) -> &'static str {
        match self {
            Goal::Height => "height",
            Goal::TimeToApex => "time_to_apex",
            Goal::HorizontalDistance => "horizontal_distance",
            Goal::HorizontalSpeed => "horizontal_speed",
            Goal::ImpliedTimeToApex => "horizontal_distance/horizontal_speed",
            Goal::Reach => "reach",
        }
    }

    /// The goal's unit (`"m"`, `"s"`, `"m/s"`).
    pub const fn unit(self) -> &'static str {
        match self {
            Goal::Height | Goal::HorizontalDistance | Goal::Reach => "m",
            Goal::TimeToApex | Goal::ImpliedTimeToApex => "s",
            Goal::HorizontalSpeed => "m/s",
        }
    }

    /// Inclusive allowed range `(min, max)`, in the goal's unit.
    pub const fn range(self) -> (Fx, Fx) {
        match self {
            Goal::Height => (HEIGHT_MIN, HEIGHT_MAX),
            Goal::TimeToApex | Goal::ImpliedTimeToApex => (TIME_TO_APEX_MIN, TIME_TO_APEX_MAX),
            Goal::HorizontalDistance => (HORIZONTAL_DISTANCE_MIN, HORIZONTAL_DISTANCE_MAX),
            Goal::HorizontalSpeed => (HORIZONTAL_SPEED_MIN, HORIZONTAL_SPEED_MAX),
            Goal::Reach => (REACH_MIN, REACH_MAX),
        }
    }
}

impl fmt::Display for Goal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why goals could not be turned into tuning values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DesignError {
    /// A goal is zero or negative.
    NotPositive {
        /// The goal given.
        goal: Goal,
        /// Its value, in the goal's unit ([`Goal::unit`]).
        found: Fx,
    },
    /// A goal is positive but outside its range ([`Goal::range`]).
    GoalOutOfRange {
        /// The goal given.
        goal: Goal,
        /// The smallest value allowed, in the goal's unit.
        min: Fx,
        /// The largest value allowed, in the goal's unit.
        max: Fx,
        /// The value given, in the goal's unit.
        found: Fx,
    },
    /// A derived value (`result`) is outside the range of the tuning key `key` it must fit.
    ResultOutOfRange {
        /// What was derived, in words ("gravity").
        result: &'static str,
        /// The tuning key the derived value is stored in.
        key: &'static str,
        /// The key's unit ("m/s", "m/s²", …).
        unit: &'static str,
        /// The smallest value the key accepts, in `unit`.
        min: Fx,
        /// The largest value the key accepts, in `unit`.
        max: Fx,
        /// The derived value, in `unit`.
        found: Fx,
    },
    /// The spec's launch-speed clamp or cap would change the designed launch speed, so the
    /// steady bounce could not reach it.
    LaunchSpeedLimited {
        /// The tuning key of the clamp or cap.
        key: &'static str,
        /// Its value (m/s).
        limit: Fx,
        /// The launch speed the design needs (m/s), beyond `limit`.
        launch_speed: Fx,
    },
    /// A tuning key this module relies on is missing (a renamed key).
    Tuning(TuningError),
}

impl fmt::Display for DesignError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DesignError::NotPositive { goal, found } => {
                let (min, max) = goal.range();
                let unit = goal.unit();
                write!(
                    f,
                    "jump goal `{goal}` must be positive, within {min}..={max} {unit}; found {found} {unit}"
                )
            }
            DesignError::GoalOutOfRange {
                goal,
                min,
                max,
                found,
            } => {
                let unit = goal.unit();
                write!(
                    f,
                    "jump goal `{goal}` must be within {min}..={max} {unit}; found {found} {unit}"
                )
            }
            DesignError::ResultOutOfRange {
                result,
                key,
                unit,
                min,
                max,
                found,
            } => write!(
                f,
                "the designed {result} {found} {unit} is outside {min}..={max} {unit}, the range of \
                 tuning key `{key}`; change the jump goals"
            ),
            DesignError::LaunchSpeedLimited {
                key,
                limit,
                launch_speed,
            } => {
                let side = if launch_speed < limit {
                    "below"
                } else {
                    "above"
                };
                write!(
                    f,
                    "the designed launch speed {launch_speed} m/s is {side} `{key}` = {limit} m/s, \
                     which would change the steady bounce"
                )
            }
            DesignError::Tuning(error) => write!(f, "tuning: {error}"),
        }
    }
}

impl core::error::Error for DesignError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            DesignError::Tuning(error) => Some(error),
            _ => None,
        }
    }
}

/// A jump derived from goals: the values the simulation needs and the goals they realise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JumpDesign {
    /// Downward acceleration `g` (m/s², positive), as the `gravity` key.
    pub gravity: Fx,
    /// Vertical launch speed `v0` (m/s, upward).
    pub launch_speed: Fx,
    /// Horizontal speed during the jump (m/s); zero when the goals had none.
    pub horizontal_speed: Fx,
    /// Time from launch to apex, `v0/g` (s).
    pub time_to_apex: Fx,
    /// Apex height above the launch point, `v0²/(2g)` (m).
    pub height: Fx,
}

/// Designs a jump from its height `height` (m) and time to apex `time_to_apex` (s):
/// `g = 2H/Th²`, `v0 = 2H/Th`, no horizontal speed.
pub fn from_height_and_time(height: Fx, time_to_apex: Fx) -> Result<JumpDesign, DesignError> {
    check_goal(Goal::Height, height)?;
    check_goal(Goal::TimeToApex, time_to_apex)?;
    let (h, th) = (bits(height), bits(time_to_apex));
    check_results(JumpDesign {
        gravity: quotient((2 * h) << 64, th * th),
        launch_speed: quotient((2 * h) << 32, th),
        horizontal_speed: Fx::ZERO,
        time_to_apex,
        height,
    })
}

/// Designs a jump from its height `height` (m), the horizontal distance to the apex
/// `distance_to_apex` (m) and the horizontal speed `horizontal_speed` (m/s). The time to apex
/// is `Th = xh/vx`, which must lie within [`TIME_TO_APEX_MIN`]..=[`TIME_TO_APEX_MAX`];
/// `v0 = 2H·vx/xh`, `g = 2H·vx²/xh²` (each computed from the goals directly, not through a
/// rounded `Th`).
pub fn from_height_distance_and_speed(
    height: Fx,
    distance_to_apex: Fx,
    horizontal_speed: Fx,
) -> Result<JumpDesign, DesignError> {
    check_goal(Goal::Height, height)?;
    check_goal(Goal::HorizontalDistance, distance_to_apex)?;
    check_goal(Goal::HorizontalSpeed, horizontal_speed)?;
    let (h, xh, vx) = (bits(height), bits(distance_to_apex), bits(horizontal_speed));
    // Th = xh/vx, compared with its range exactly: xh·2³² against min/max bits · vx.
    let time_to_apex = quotient(xh << 32, vx);
    let (min, max) = Goal::ImpliedTimeToApex.range();
    if xh << 32 < bits(min) * vx || xh << 32 > bits(max) * vx {
        return Err(DesignError::GoalOutOfRange {
            goal: Goal::ImpliedTimeToApex,
            min,
            max,
            found: time_to_apex,
        });
    }
    check_results(JumpDesign {
        gravity: quotient(2 * h * vx * vx, xh * xh),
        launch_speed: quotient(2 * h * vx, xh),
        horizontal_speed,
        time_to_apex,
        height,
    })
}

/// Designs a jump from its reach `reach` (m, horizontal distance from launch to landing at the
/// same height), its time to apex `time_to_apex` (s) and its height `height` (m), as in "Building
/// a perfect jump for The Lightbringer": forward speed `R/(2T)` (the jump lasts `2T`),
/// `g = 2H/T²` and `v0 = g·T` (computed as `2H/T`, which is the same value rounded once).
pub fn from_reach_time_and_height(
    reach: Fx,
    time_to_apex: Fx,
    height: Fx,
) -> Result<JumpDesign, DesignError> {
    check_goal(Goal::Reach, reach)?;
    check_goal(Goal::TimeToApex, time_to_apex)?;
    check_goal(Goal::Height, height)?;
    let vertical = from_height_and_time(height, time_to_apex)?;
    check_results(JumpDesign {
        horizontal_speed: quotient(bits(reach) << 32, 2 * bits(time_to_apex)),
        ..vertical
    })
}

impl JumpDesign {
    /// Writes the design into `spec`: `gravity` = [`gravity`](Self::gravity), and
    /// `base_bounce_speed` chosen so that bouncing in place on flat, static ground with no input
    /// and no combo settles at the launch speed [`launch_speed`](Self::launch_speed) `v0`.
    ///
    /// The launch speed is `base + impact_transfer·impact + combo term`, and the impact is the
    /// landing speed, which feeds back into the next launch. Landing after a hop of height H
    /// with gravity `g·fall_gravity_scale` on the way down, the landing speed is
    /// `v_land = min(v0·√fall_gravity_scale, terminal_speed)`; the steady launch speed is `v0`
    /// exactly when `base = v0 − impact_transfer·v_land`. With the default fall scale of 1 and
    /// no terminal cap this is `base = v0·(1 − impact_transfer)`, i.e. the steady speed
    /// `(base + combo term)/(1 − impact_transfer)` with combo 0. A combo adds its
    /// bonus on top (the design is for combo 0). These are continuous-time landing speeds; the
    /// simulation's contact handling reproduces them up to its own per-tick accuracy.
    ///
    /// Errors, leaving `spec` unchanged:
    /// - [`DesignError::ResultOutOfRange`] if `gravity` or the new `base_bounce_speed` is outside
    ///   its key's range;
    /// - [`DesignError::LaunchSpeedLimited`] if `v0` is below `min_launch_speed`, above
    ///   `max_launch_speed` or above `max_total_speed` of `spec`: those would clamp the launch,
    ///   and the steady bounce would not be the designed one.
    ///
    /// The other keys of `spec` are not validated here; [`Tuning::new`](crate::Tuning::new)
    /// does that.
    pub fn apply_to(&self, spec: &mut TuningSpec) -> Result<(), DesignError> {
        check_result("gravity", self.gravity, key("gravity")?)?;
        let v0 = self.launch_speed;
        for (name, limit, fits) in [
            (
                "min_launch_speed",
                spec.min_launch_speed,
                v0 >= spec.min_launch_speed,
            ),
            (
                "max_launch_speed",
                spec.max_launch_speed,
                v0 <= spec.max_launch_speed,
            ),
            (
                "max_total_speed",
                spec.max_total_speed,
                v0 <= spec.max_total_speed,
            ),
        ] {
            if !fits {
                return Err(DesignError::LaunchSpeedLimited {
                    key: name,
                    limit,
                    launch_speed: v0,
                });
            }
        }
        // v0 ≤ max_launch_speed ≤ 100 m/s and √fall_gravity_scale ≤ √10: nothing below saturates.
        let landing_speed = (v0 * spec.fall_gravity_scale.sqrt()).min(spec.terminal_speed);
        let base = v0 - spec.impact_transfer * landing_speed;
        check_result("base_bounce_speed", base, key("base_bounce_speed")?)?;
        spec.gravity = self.gravity;
        spec.base_bounce_speed = base;
        Ok(())
    }
}

/// The goal's raw bits (value · 2³²) in a wide integer.
fn bits(value: Fx) -> i128 {
    i128::from(value.to_bits())
}

/// `num / den` of raw-bit products as a value, truncated toward zero. Callers pass positive
/// `den` and, by the goal ranges, a quotient inside `Fx`'s range.
fn quotient(num: i128, den: i128) -> Fx {
    Fx::from_wide_bits(num.checked_div(den).unwrap_or(i128::MAX))
}

fn check_goal(goal: Goal, value: Fx) -> Result<(), DesignError> {
    let (min, max) = goal.range();
    if value <= Fx::ZERO {
        Err(DesignError::NotPositive { goal, found: value })
    } else if value < min || value > max {
        Err(DesignError::GoalOutOfRange {
            goal,
            min,
            max,
            found: value,
        })
    } else {
        Ok(())
    }
}

fn key(name: &str) -> Result<&'static Key, DesignError> {
    TuningSpec::key(name).map_err(DesignError::Tuning)
}

fn check_result(result: &'static str, value: Fx, key: &'static Key) -> Result<(), DesignError> {
    if value < key.min || value > key.max {
        return Err(DesignError::ResultOutOfRange {
            result,
            key: key.name,
            unit: key.unit,
            min: key.min,
            max: key.max,
            found: value,
        });
    }
    Ok(())
}

/// Checks a design's values against the keys they must fit: `gravity` its own key, the launch
/// speed the largest `max_launch_speed` (no steady bounce can be faster), the horizontal speed
/// the largest `max_horizontal_speed`.
fn check_results(design: JumpDesign) -> Result<JumpDesign, DesignError> {
    check_result("gravity", design.gravity, key("gravity")?)?;
    check_result(
        "launch_speed",
        design.launch_speed,
        key("max_launch_speed")?,
    )?;
    check_result(
        "horizontal_speed",
        design.horizontal_speed,
        key("max_horizontal_speed")?,
    )?;
    Ok(design)
}

/// The analytic steady no-input bounce on flat, static ground: `(launch speed m/s, apex m)`,
/// the feedback loop of impact transfer that the simulation must reproduce (within 1 %).
///
/// With no input nothing steers, leans, dives or tricks, and bouncing in place is never a
/// perfect landing, so the combo stays 0 and each launch is straight up at
/// `base_bounce_speed + impact · impact_transfer`. The impact of the next landing is the
/// launch speed again, so the launch speed converges to the fixed point
/// `v = base_bounce_speed / (1 − impact_transfer)`, and the apex is `v² / (2 · gravity)`.
///
/// Generalised, exactly, to tunings where that simple form does not hold:
/// - falling under `fall_gravity_scale · gravity` lands at `v · √fall_gravity_scale`
///   (`√1 = 1` exactly, so the default is the plain formula), at most `terminal_speed`; if the
///   fixed point would land faster than that (or there is none, `impact_transfer ·
///   √fall_gravity_scale ≥ 1`), the impact is `terminal_speed` and `v = base + terminal ·
///   impact_transfer`;
/// - the launch map is monotone with slope below one, so clamping it to
///   `min_launch_speed…max_launch_speed` and capping it by `max_total_speed` clamps and caps
///   its fixed point the same way.
///
/// Computed in fixed point (saturating; no floats). The apex counts the rise only, under plain
/// gravity.
pub fn steady_bounce(spec: &TuningSpec) -> (Fx, Fx) {
    let fall_factor = spec.fall_gravity_scale.sqrt();
    let gain = spec.impact_transfer * fall_factor;
    let capped_by_terminal = spec.base_bounce_speed + spec.terminal_speed * spec.impact_transfer;
    let free = if gain < Fx::ONE {
        let v = spec.base_bounce_speed / (Fx::ONE - gain);
        if v * fall_factor <= spec.terminal_speed {
            v
        } else {
            capped_by_terminal
        }
    } else {
        capped_by_terminal
    };
    let launch = free
        .clamp(spec.min_launch_speed, spec.max_launch_speed)
        .min(spec.max_total_speed);
    let apex = launch * launch / (spec.gravity * Fx::from_int(2));
    (launch, apex)
}

#[cfg(test)]
mod tests {
    use alloc::string::ToString;

    use super::*;
    use crate::test_util::fx;
    use crate::{Tuning, Vec3, motion};

    struct Hop {
        /// Highest sampled y (m) and the tick it was reached at.
        apex: Fx,
        apex_tick: u32,
        /// x at the apex tick and at the first tick below the launch height (m).
        apex_x: Fx,
        landing_x: Fx,
        landing_tick: u32,
    }

    /// A ballistic hop at 60 Hz from the origin, launched at (vx, v0, 0) under (0, −g, 0),
    /// integrated with the simulation's own update until it falls below y = 0.
    fn hop(design: &JumpDesign) -> Hop {
        let derived = Tuning::default().derived().clone();
        assert_eq!(derived.dt, Fx::from_ratio(1, 60));
        let gravity = Vec3::new(Fx::ZERO, -design.gravity, Fx::ZERO);
        let mut p = Vec3::ZERO;
        let mut v = Vec3::new(design.horizontal_speed, design.launch_speed, Fx::ZERO);
        let mut out = Hop {
            apex: Fx::MIN,
            apex_tick: 0,
            apex_x: Fx::ZERO,
            landing_x: Fx::ZERO,
            landing_tick: 0,
        };
        for tick in 1..=100_000 {
            (p, v) = motion::integrate(p, v, gravity, &derived);
            if p.y > out.apex {
                (out.apex, out.apex_tick, out.apex_x) = (p.y, tick, p.x);
            }
            if p.y < Fx::ZERO {
                (out.landing_x, out.landing_tick) = (p.x, tick);
                break;
            }
        }
        out
    }

    /// The goal sets of the tests: (label, design).
    fn goal_sets() -> [(&'static str, JumpDesign); 7] {
        [
            (
                "H 3.32 Th 0.526 (seed)",
                from_height_and_time(fx("3.32"), fx("0.526")).unwrap(),
            ),
            (
                "H 4 Th 0.5",
                from_height_and_time(fx("4"), fx("0.5")).unwrap(),
            ),
            (
                "H 1 Th 0.25",
                from_height_and_time(fx("1"), fx("0.25")).unwrap(),
            ),
            (
                "H 0.5 Th 0.1",
                from_height_and_time(fx("0.5"), fx("0.1")).unwrap(),
            ),
            (
                "H 3 xh 5 vx 8",
                from_height_distance_and_speed(fx("3"), fx("5"), fx("8")).unwrap(),
            ),
            (
                "H 2 xh 3 vx 7",
                from_height_distance_and_speed(fx("2"), fx("3"), fx("7")).unwrap(),
            ),
            (
                "R 10 T 0.6 H 3",
                from_reach_time_and_height(fx("10"), fx("0.6"), fx("3")).unwrap(),
            ),
        ]
    }

    #[test]
    fn simulated_hops_reach_the_designed_height_and_apex_tick() {
        let one_cm = fx("0.01");
        for (label, design) in goal_sets() {
            let hop = hop(&design);
            let (h, th) = (design.height, design.time_to_apex);
            // Samples lie on the parabola, whose true apex is H (up to rounding), so the
            // sampled maximum is at most a hair above H and at most g·dt²/8 below it.
            assert!(
                hop.apex <= h + fx("0.000001"),
                "{label}: apex {} above H {h}",
                hop.apex
            );
            assert!(
                h - hop.apex <= one_cm,
                "{label}: apex {} vs H {h}",
                hop.apex
            );
            let designed_tick = th.mul_int(60);
            let tick_error = (Fx::from_int(hop.apex_tick as i32) - designed_tick).abs();
            assert!(
                tick_error <= Fx::ONE,
                "{label}: apex tick {} vs {designed_tick}",
                hop.apex_tick
            );
            // Symmetric descent: lands (first sample below 0) within a tick of 2·Th.
            let landing_error = Fx::from_int(hop.landing_tick as i32) - designed_tick.mul_int(2);
            assert!(
                landing_error.abs() <= Fx::ONE,
                "{label}: lands at tick {}",
                hop.landing_tick
            );
            // Horizontally: at the apex tick the hop has covered xh = vx·Th within one tick of
            // travel, and it lands at the reach 2·xh within one tick of travel.
            let tick_travel = design.horizontal_speed / Fx::from_int(60) + fx("0.000001");
            let xh = design.horizontal_speed * th;
            assert!(
                (hop.apex_x - xh).abs() <= tick_travel,
                "{label}: apex x {}",
                hop.apex_x
            );
            assert!(
                (hop.landing_x - xh.mul_int(2)).abs() <= tick_travel,
                "{label}: lands at x {}",
                hop.landing_x
            );
        }
    }

    #[test]
    fn simple_goals_give_exact_values() {
        let d = from_height_and_time(Fx::ONE, Fx::HALF).unwrap();
        assert_eq!(
            (d.gravity, d.launch_speed),
            (Fx::from_int(8), Fx::from_int(4))
        );
        assert_eq!(
            (d.height, d.time_to_apex, d.horizontal_speed),
            (Fx::ONE, Fx::HALF, Fx::ZERO)
        );
        let d = from_height_and_time(Fx::from_int(4), Fx::HALF).unwrap();
        assert_eq!(
            (d.gravity, d.launch_speed),
            (Fx::from_int(32), Fx::from_int(16))
        );
        // Th = 5/8 exactly: g = 6·64/25 = 15.36, v0 = 6·8/5 = 9.6 (truncated to 2⁻³²).
        let d = from_height_distance_and_speed(Fx::from_int(3), Fx::from_int(5), Fx::from_int(8))
            .unwrap();
        assert_eq!(d.time_to_apex, fx("0.625"));
        assert_eq!(d.gravity, Fx::from_ratio(1536, 100));
        assert_eq!(d.launch_speed, Fx::from_ratio(96, 10));
        // The default hop (3.32 m apex 0.526 s after launch) gives the default gravity 24.
        let d = from_height_and_time(fx("3.32"), fx("0.526")).unwrap();
        assert!(
            (d.gravity - Fx::from_int(24)).abs() < fx("0.001"),
            "{}",
            d.gravity
        );
        assert!(
            (d.launch_speed - fx("12.623574")).abs() < fx("0.000001"),
            "{}",
            d.launch_speed
        );
    }

    /// Each result is the exact quotient of the goals truncated once: r ≤ exact < r + 2⁻³².
    #[test]
    fn results_are_the_exact_quotient_truncated_once() {
        for (h, th) in [
            ("3.32", "0.526"),
            ("0.7", "0.3"),
            ("123.456", "7.89"),
            ("0.01", "0.01"),
        ] {
            let (hf, tf) = (fx(h), fx(th));
            let d = from_height_and_time(hf, tf).unwrap();
            let (hb, tb) = (bits(hf), bits(tf));
            // g: 2H/Th², bits g·2³² = 2·hb·2⁶⁴ / tb².
            let (g, num, den) = (bits(d.gravity), (2 * hb) << 64, tb * tb);
            assert!(g * den <= num && num < (g + 1) * den, "g for {h}, {th}");
            let (v, num, den) = (bits(d.launch_speed), (2 * hb) << 32, tb);
            assert!(v * den <= num && num < (v + 1) * den, "v0 for {h}, {th}");
        }
    }

    #[test]
    fn distance_and_speed_form_agrees_with_height_and_time_form() {
        // Th = xh/vx exactly representable: the same exact quotients, so the same bits.
        for (h, xh, vx) in [("3", "5", "8"), ("2", "3", "4"), ("7.5", "10", "16")] {
            let a = from_height_distance_and_speed(fx(h), fx(xh), fx(vx)).unwrap();
            let b = from_height_and_time(fx(h), a.time_to_apex).unwrap();
            assert_eq!(fx(xh), fx(vx) * a.time_to_apex, "Th exact for {xh}/{vx}");
            assert_eq!(
                (a.gravity, a.launch_speed, a.height),
                (b.gravity, b.launch_speed, b.height)
            );
            assert_eq!(a.horizontal_speed, fx(vx));
        }
        // Th = 9/7 is rounded: the (H, Th) form works from the rounded Th and so differs by a
        // few units of 2⁻³² at most.
        let a = from_height_distance_and_speed(fx("2"), fx("9"), fx("7")).unwrap();
        let b = from_height_and_time(fx("2"), a.time_to_apex).unwrap();
        assert!(
            (a.gravity - b.gravity).abs() <= Fx::from_bits(16),
            "{} vs {}",
            a.gravity,
            b.gravity
        );
        assert!((a.launch_speed - b.launch_speed).abs() <= Fx::from_bits(16));
        assert_ne!(a.gravity, Fx::ZERO);
    }

    #[test]
    fn reach_form_follows_the_lightbringer_formulas() {
        let (r, t, h) = (Fx::from_int(10), fx("0.6"), Fx::from_int(3));
        let d = from_reach_time_and_height(r, t, h).unwrap();
        let vertical = from_height_and_time(h, t).unwrap();
        assert_eq!(
            (d.gravity, d.launch_speed, d.time_to_apex, d.height),
            (vertical.gravity, vertical.launch_speed, t, h)
        );
        // forward = 0.5·R/T ≈ 8.333, g = 2H/T² ≈ 16.667, v0 = g·T = 10.
        let tiny = fx("0.000001");
        assert!(
            (d.horizontal_speed - Fx::from_ratio(25, 3)).abs() < tiny,
            "{}",
            d.horizontal_speed
        );
        assert!(
            (d.gravity - Fx::from_ratio(50, 3)).abs() < tiny,
            "{}",
            d.gravity
        );
        assert!((d.launch_speed - d.gravity * t).abs() < tiny);
        assert!((d.launch_speed - Fx::from_int(10)).abs() < tiny);
        // Same jump as reaching the apex at R/2 at the forward speed.
        let e = from_height_distance_and_speed(h, Fx::from_int(5), d.horizontal_speed).unwrap();
        assert!(
            (e.gravity - d.gravity).abs() < tiny && (e.launch_speed - d.launch_speed).abs() < tiny
        );
    }

    #[test]
    fn invalid_goals_are_rejected_with_the_specific_error() {
        let not_positive = |goal, found| Err(DesignError::NotPositive { goal, found });
        let out_of_range = |goal: Goal, found| {
            let (min, max) = goal.range();
            Err(DesignError::GoalOutOfRange {
                goal,
                min,
                max,
                found,
            })
        };
        let (one, half) = (Fx::ONE, Fx::HALF);
        assert_eq!(
            from_height_and_time(Fx::ZERO, half),
            not_positive(Goal::Height, Fx::ZERO)
        );
        assert_eq!(
            from_height_and_time(-one, half),
            not_positive(Goal::Height, -one)
        );
        assert_eq!(
            from_height_and_time(one, Fx::ZERO),
            not_positive(Goal::TimeToApex, Fx::ZERO)
        );
        assert_eq!(
            from_height_and_time(one, -half),
            not_positive(Goal::TimeToApex, -half)
        );
        assert_eq!(
            from_height_and_time(Fx::MIN, Fx::MIN),
            not_positive(Goal::Height, Fx::MIN)
        );
        assert_eq!(
            from_height_and_time(fx("1000.5"), half),
            out_of_range(Goal::Height, fx("1000.5"))
        );
        assert_eq!(
            from_height_and_time(fx("0.009"), half),
            out_of_range(Goal::Height, fx("0.009"))
        );
        assert_eq!(
            from_height_and_time(one, fx("0.005")),
            out_of_range(Goal::TimeToApex, fx("0.005"))
        );
        assert_eq!(
            from_height_and_time(one, Fx::MAX),
            out_of_range(Goal::TimeToApex, Fx::MAX)
        );

        let three = Fx::from_int(3);
        let dist = |xh, vx| from_height_distance_and_speed(three, xh, vx);
        assert_eq!(
            dist(Fx::ZERO, one),
            not_positive(Goal::HorizontalDistance, Fx::ZERO)
        );
        assert_eq!(dist(one, -one), not_positive(Goal::HorizontalSpeed, -one));
        assert_eq!(
            dist(fx("10001"), one),
            out_of_range(Goal::HorizontalDistance, fx("10001"))
        );
        assert_eq!(
            dist(one, fx("200.5")),
            out_of_range(Goal::HorizontalSpeed, fx("200.5"))
        );
        // Each goal alone is fine, but xh/vx = 0.005 s or 100 s is not a time to apex.
        assert_eq!(
            dist(one, Fx::from_int(200)),
            out_of_range(Goal::ImpliedTimeToApex, fx("0.005"))
        );
        assert_eq!(
            dist(Fx::from_int(100), one),
            out_of_range(Goal::ImpliedTimeToApex, Fx::from_int(100))
        );
        // The end of the range itself is allowed (xh/vx = 60 s exactly); then g is too small.
        assert!(
            from_height_distance_and_speed(Fx::from_int(100), Fx::from_int(60), one).is_err_and(
                |e| matches!(
                    e,
                    DesignError::ResultOutOfRange {
                        result: "gravity",
                        ..
                    }
                )
            )
        );

        let reach = from_reach_time_and_height;
        assert_eq!(
            reach(Fx::ZERO, half, one),
            not_positive(Goal::Reach, Fx::ZERO)
        );
        assert_eq!(
            reach(fx("0.01"), half, one),
            out_of_range(Goal::Reach, fx("0.01"))
        );
        assert_eq!(
            reach(one, -half, one),
            not_positive(Goal::TimeToApex, -half)
        );
        assert_eq!(
            reach(one, half, fx("2000")),
            out_of_range(Goal::Height, fx("2000"))
        );
    }

    #[test]
    fn results_outside_the_tuning_ranges_are_rejected_with_their_true_value() {
        let gravity_key = TuningSpec::key("gravity").unwrap();
        let gravity = |found| {
            Err(DesignError::ResultOutOfRange {
                result: "gravity",
                key: "gravity",
                unit: "m/s²",
                min: gravity_key.min,
                max: gravity_key.max,
                found,
            })
        };
        // The corners of the goal ranges: huge and tiny gravities, computed without saturating.
        // (TIME_TO_APEX_MIN is 0.01 rounded to the nearest 2⁻³², a hair above 0.01.)
        let huge = from_height_and_time(HEIGHT_MAX, TIME_TO_APEX_MIN);
        let Err(DesignError::ResultOutOfRange { found, .. }) = huge else {
            panic!("{huge:?}")
        };
        assert!(
            (found - Fx::from_int(20_000_000)).abs() < Fx::lit("0.1"),
            "{found}"
        );
        assert_eq!(huge, gravity(found));
        let tiny = from_height_and_time(HEIGHT_MIN, TIME_TO_APEX_MAX);
        assert_eq!(
            tiny,
            gravity(Fx::from_bits(2 * HEIGHT_MIN.to_bits() / 3600))
        );
        // The largest numerator 2·H·vx² of the distance form: 2·1000·200²/4² = 5·10⁶ exactly.
        assert_eq!(
            from_height_distance_and_speed(HEIGHT_MAX, Fx::from_int(4), HORIZONTAL_SPEED_MAX),
            gravity(Fx::from_int(5_000_000))
        );
        assert_eq!(
            from_height_and_time(Fx::from_int(1000), Fx::HALF),
            gravity(Fx::from_int(8000))
        );
        // In range just at the limit: 2·1.953125/0.0625² = 1000 m/s², v0 = 62.5 m/s.
        let limit = from_height_and_time(fx("1.953125"), fx("0.0625")).unwrap();
        assert_eq!(
            (limit.gravity, limit.launch_speed),
            (Fx::from_int(1000), fx("62.5"))
        );

        // g = 200 is fine, but v0 = 200 m/s is faster than any allowed max_launch_speed.
        let launch_key = TuningSpec::key("max_launch_speed").unwrap();
        assert_eq!(
            from_height_and_time(Fx::from_int(100), Fx::ONE),
            Err(DesignError::ResultOutOfRange {
                result: "launch_speed",
                key: "max_launch_speed",
                unit: "m/s",
                min: launch_key.min,
                max: launch_key.max,
                found: Fx::from_int(200),
            })
        );
        // Reach 400 m in 2·0.5 s is 400 m/s forward, above any max_horizontal_speed.
        assert!(
            from_reach_time_and_height(Fx::from_int(400), Fx::HALF, Fx::ONE).is_err_and(|e| matches!(
                e,
                DesignError::ResultOutOfRange { result: "horizontal_speed", found, .. } if found == Fx::from_int(400)
            ))
        );
    }

    #[test]
    fn applying_a_design_gives_a_valid_tuning_with_the_designed_steady_speed() {
        for (label, design) in goal_sets() {
            for transfer in ["0.05", "0.35", "0"] {
                let mut spec = TuningSpec {
                    impact_transfer: fx(transfer),
                    ..TuningSpec::default()
                };
                design.apply_to(&mut spec).unwrap();
                let tuning = Tuning::new(spec.clone()).unwrap();
                assert_eq!(tuning.spec().gravity, design.gravity, "{label}");
                let steady = spec.base_bounce_speed / (Fx::ONE - spec.impact_transfer);
                let error = (steady - design.launch_speed).abs();
                assert!(
                    error <= fx("0.000001"),
                    "{label} at {transfer}: {steady} vs {}",
                    design.launch_speed
                );
                // The bounce feedback itself converges there: v ← base + transfer·v.
                let mut v = Fx::ZERO;
                for _ in 0..60 {
                    v = spec.base_bounce_speed + spec.impact_transfer * v;
                }
                assert!(
                    (v - design.launch_speed).abs() <= fx("0.00001"),
                    "{label}: converges to {v}"
                );
            }
        }
        // Default transfer 0.05 and the default hop: base = 12.6236·0.95 ≈ 11.99, near the
        // default 12 m/s.
        let mut spec = TuningSpec::default();
        from_height_and_time(fx("3.32"), fx("0.526"))
            .unwrap()
            .apply_to(&mut spec)
            .unwrap();
        assert!(
            (spec.base_bounce_speed - Fx::from_int(12)).abs() < fx("0.01"),
            "{}",
            spec.base_bounce_speed
        );
    }

    #[test]
    fn apply_accounts_for_fall_gravity_and_terminal_speed() {
        let design = from_height_and_time(Fx::from_int(4), Fx::HALF).unwrap(); // v0 = 16
        // Falling at 4·g lands at 2·v0 = 32 m/s: base = 16 − 0.1·32 = 12.8.
        let mut spec = TuningSpec {
            impact_transfer: fx("0.1"),
            fall_gravity_scale: Fx::from_int(4),
            terminal_speed: Fx::from_int(100),
            ..TuningSpec::default()
        };
        design.apply_to(&mut spec).unwrap();
        assert!(
            (spec.base_bounce_speed - fx("12.8")).abs() <= fx("0.000001"),
            "{}",
            spec.base_bounce_speed
        );
        // Terminal speed 20 m/s caps the landing speed: base = 16 − 0.1·20 = 14.
        spec.terminal_speed = Fx::from_int(20);
        design.apply_to(&mut spec).unwrap();
        assert!((spec.base_bounce_speed - Fx::from_int(14)).abs() <= fx("0.000001"));
        // A fall scale and transfer for which no positive base exists: 0.95·√4 > 1.
        let mut spec = TuningSpec {
            impact_transfer: fx("0.95"),
            fall_gravity_scale: Fx::from_int(4),
            terminal_speed: Fx::from_int(100),
            ..TuningSpec::default()
        };
        let before = spec.clone();
        let err = design.apply_to(&mut spec).unwrap_err();
        assert!(
            matches!(
                err,
                DesignError::ResultOutOfRange {
                    key: "base_bounce_speed",
                    ..
                }
            ),
            "{err:?}"
        );
        assert_eq!(spec, before);
    }

    #[test]
    fn apply_rejects_launch_speeds_the_clamps_would_change() {
        let spec = TuningSpec::default();
        let limited = |design: JumpDesign, key, limit| {
            let mut s = spec.clone();
            assert_eq!(
                design.apply_to(&mut s),
                Err(DesignError::LaunchSpeedLimited {
                    key,
                    limit,
                    launch_speed: design.launch_speed
                })
            );
            assert_eq!(s, spec, "unchanged on error");
        };
        // v0 = 4 m/s is below the default min_launch_speed 8.
        limited(
            from_height_and_time(Fx::ONE, Fx::HALF).unwrap(),
            "min_launch_speed",
            Fx::from_int(8),
        );
        // v0 = 24 m/s is above the default max_launch_speed 22.
        limited(
            from_height_and_time(Fx::from_int(6), Fx::HALF).unwrap(),
            "max_launch_speed",
            Fx::from_int(22),
        );
        // With max_launch_speed raised to 30, max_total_speed 26 still caps it.
        let spec = TuningSpec {
            max_launch_speed: Fx::from_int(30),
            ..TuningSpec::default()
        };
        let mut s = spec.clone();
        let design = from_height_and_time(Fx::from_int(7), Fx::HALF).unwrap(); // 28 m/s
        assert_eq!(
            design.apply_to(&mut s),
            Err(DesignError::LaunchSpeedLimited {
                key: "max_total_speed",
                limit: Fx::from_int(26),
                launch_speed: Fx::from_int(28)
            })
        );
        // A hand-made design is checked too.
        let mut s = TuningSpec::default();
        let bad = JumpDesign {
            gravity: Fx::from_int(5000),
            ..from_height_and_time(Fx::from_int(4), Fx::HALF).unwrap()
        };
        assert!(matches!(
            bad.apply_to(&mut s),
            Err(DesignError::ResultOutOfRange { key: "gravity", .. })
        ));
        assert_eq!(s, TuningSpec::default());
    }

    #[test]
    fn error_messages_name_the_goal_and_the_range() {
        let msg = from_height_and_time(Fx::from_int(-2), Fx::HALF)
            .unwrap_err()
            .to_string();
        assert_eq!(
            msg,
            "jump goal `height` must be positive, within 0.01..=1000 m; found -2 m"
        );
        let msg = from_height_and_time(Fx::ONE, Fx::from_int(61))
            .unwrap_err()
            .to_string();
        assert_eq!(
            msg,
            "jump goal `time_to_apex` must be within 0.01..=60 s; found 61 s"
        );
        let msg = from_height_distance_and_speed(Fx::ONE, Fx::from_int(100), Fx::ONE)
            .unwrap_err()
            .to_string();
        assert!(
            msg.starts_with(
                "jump goal `horizontal_distance/horizontal_speed` must be within 0.01..=60 s"
            ),
            "{msg}"
        );
        let msg = from_height_and_time(Fx::from_int(1000), Fx::HALF)
            .unwrap_err()
            .to_string();
        assert_eq!(
            msg,
            "the designed gravity 8000 m/s² is outside 0.1..=1000 m/s², the range of tuning key \
             `gravity`; change the jump goals"
        );
        let mut spec = TuningSpec::default();
        let msg = from_height_and_time(Fx::ONE, Fx::HALF)
            .unwrap()
            .apply_to(&mut spec)
            .unwrap_err()
            .to_string();
        assert_eq!(
            msg,
            "the designed launch speed 4 m/s is below `min_launch_speed` = 8 m/s, which would change the \
             steady bounce"
        );
    }

    #[test]
    fn the_keys_used_by_name_exist() {
        for name in [
            "gravity",
            "base_bounce_speed",
            "max_launch_speed",
            "max_horizontal_speed",
        ] {
            assert!(key(name).is_ok(), "{name}");
        }
        assert_eq!(
            key("max_horizontal_speed").unwrap().max,
            HORIZONTAL_SPEED_MAX
        );
    }

    fn steady(overrides: &[&str]) -> (alloc::string::String, alloc::string::String) {
        let mut spec = TuningSpec::default();
        for o in overrides {
            spec.apply_override(o).unwrap();
        }
        let (launch, apex) = steady_bounce(&spec);
        (alloc::format!("{launch:.4}"), alloc::format!("{apex:.4}"))
    }

    #[test]
    fn steady_bounce_matches_the_feedback_formula() {
        // 12.63 m/s and 3.32 m at transfer 0.05; 18.46 m/s and 7.10 m at 0.35.
        assert_eq!(steady(&[]), ("12.6316".into(), "3.3241".into()));
        assert_eq!(
            steady(&["impact_transfer=0.35"]),
            ("18.4615".into(), "7.1006".into())
        );
    }

    #[test]
    fn steady_bounce_respects_clamps_and_terminal_speed() {
        // 12 / 0.05 = 240 m/s, far over the 22 m/s clamp.
        assert_eq!(steady(&["impact_transfer=0.95"]).0, "22.0000");
        // Faster falling lands harder: 12 / (1 − 0.35·√4) = 40, over terminal 30 → 12 + 0.35·30.
        assert_eq!(
            steady(&[
                "impact_transfer=0.35",
                "fall_gravity_scale=4",
                "max_launch_speed=100",
                "max_total_speed=100"
            ])
            .0,
            "22.5000"
        );
        // No fixed point (gain ≥ 1): terminal speed bounds the impact.
        assert_eq!(
            steady(&[
                "impact_transfer=0.5",
                "fall_gravity_scale=9",
                "max_launch_speed=100",
                "max_total_speed=100"
            ])
            .0,
            "27.0000"
        );
        assert_eq!(steady(&["base_bounce_speed=1"]).0, "8.0000");
        assert_eq!(steady(&["max_total_speed=5"]).0, "5.0000");
    }
}
