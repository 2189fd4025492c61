//! Launch: the velocity a bounce gives the pogo, as one pure function.
//!
//! Everything is worked out relative to the surface, so a moving platform launches the pogo
//! exactly as a static one would, and its velocity is added in full at the very end. With `n`
//! the unit surface normal, `u` the pogo's up axis and `v` the approach velocity relative to the
//! surface, split into `v = n·vₙ + t` (vₙ < 0 approaching):
//!
//! ```text
//! impact    = max(0, −vₙ)                                  approach speed along the normal
//! d         = normalise(n·w_normal + u·w_lean + t·(w_momentum / v_ref))
//! d         = d rotated back onto the cone of max_launch_angle around n, if outside it
//! d         = normalise(d + (n − d)·assist_strength)       only if u·n ≥ cos(assist_angle)
//! speed     = clamp(base + impact·transfer + min(combo, max_combo)·combo_bonus, min, max)
//! launch    = d·speed + t·tangential_keep
//! launch    = launch capped to max_total_speed, then its horizontal part to max_horizontal_speed
//! velocity  = launch + surface velocity
//! ```
//!
//! Impact transfer is a feedback loop: bouncing in place, each landing arrives at the previous
//! launch speed, so the launch speed converges to `(base + combo term) / (1 − transfer)`
//! (12.63 m/s at the default 0.05; 18.46 m/s at 0.35).

use crate::fx::Fx;
use crate::tuning::Tuning;
use crate::vec3::Vec3;

/// What the launch depends on, all in the world frame.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Landing {
    /// Unit surface normal at the contact, pointing from the surface toward the pogo.
    pub normal: Vec3,
    /// The pogo's up axis (unit): vertical when not leaning, tilted toward the lean.
    pub lean_up: Vec3,
    /// The pogo's velocity as it lands (m/s).
    pub velocity: Vec3,
    /// The surface's own velocity at the contact (m/s); zero for static geometry.
    pub surface_velocity: Vec3,
    /// Combo count at landing (after this landing's own increment, if any).
    pub combo: u32,
}

/// The launch and the intermediate values the rules are stated in (tests and tools read them).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Launch {
    /// Unit launch direction after weighting, cone clamp and assist.
    pub direction: Vec3,
    /// Launch speed along `direction` after its clamp (m/s), before the additive terms.
    pub speed: Fx,
    /// Approach speed along the normal relative to the surface (m/s, ≥ 0).
    pub impact: Fx,
    /// Whether the landing assist bent the direction.
    pub assisted: bool,
    /// Launch velocity relative to the surface, after both caps (m/s).
    pub relative_velocity: Vec3,
    /// The pogo's new world velocity: `relative_velocity + surface_velocity` (m/s).
    pub velocity: Vec3,
}

/// Computes the launch for a landing. Pure and total: any input gives a result, no panics.
///
/// `landing.normal` and `landing.lean_up` should be unit vectors; other inputs are accepted
/// (a zero weighted direction falls back to the normal) but the result's guarantees — direction
/// within the cone, speed within its clamp, caps respected — are stated for unit inputs.
pub fn compute(landing: &Landing, tuning: &Tuning) -> Launch {
    let spec = tuning.spec();
    let derived = tuning.derived();
    let n = landing.normal;

    let relative = landing.velocity - landing.surface_velocity;
    let along_normal = relative.dot(n);
    let impact = (-along_normal).max(Fx::ZERO);
    let tangential = relative.reject_from(n);

    let momentum_scale = spec.momentum_weight / spec.momentum_reference_speed;
    let weighted =
        n * spec.normal_weight + landing.lean_up * spec.lean_weight + tangential * momentum_scale;
    let direction =
        weighted
            .normalize_or(n)
            .clamp_to_cone(n, derived.launch_cone_cos, derived.launch_cone_sin);

    let assisted = landing.lean_up.dot(n) >= derived.assist_cos;
    let direction = if assisted {
        direction.lerp(n, spec.assist_strength).normalize_or(n)
    } else {
        direction
    };

    let combo_steps = landing.combo.min(spec.max_combo);
    let speed = (spec.base_bounce_speed
        + impact * spec.impact_transfer
        + spec.combo_bonus.mul_int(i64::from(combo_steps)))
    .clamp(spec.min_launch_speed, spec.max_launch_speed);

    let uncapped = direction * speed + tangential * spec.tangential_keep;
    let total_capped = uncapped.clamp_length(spec.max_total_speed);
    let horizontal = total_capped
        .horizontal()
        .clamp_length(spec.max_horizontal_speed);
    let relative_velocity = Vec3::new(horizontal.x, total_capped.y, horizontal.z);

    Launch {
        direction,
        speed,
        impact,
        assisted,
        relative_velocity,
        velocity: relative_velocity + landing.surface_velocity,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{fx, v};
    use crate::tuning::TuningSpec;

    fn tuning_with(overrides: &[&str]) -> Tuning {
        let mut spec = TuningSpec::default();
        for o in overrides {
            spec.apply_override(o).unwrap();
        }
        Tuning::new(spec).unwrap()
    }

    fn straight_down(speed: &str) -> Landing {
        Landing {
            normal: Vec3::UP,
            lean_up: Vec3::UP,
            velocity: v("0", &alloc::format!("-{speed}"), "0"),
            surface_velocity: Vec3::ZERO,
            combo: 0,
        }
    }

    fn near(a: Fx, b: Fx, tolerance: &str) -> bool {
        (a - b).abs() <= fx(tolerance)
    }

    /// Equal within 10⁻⁶ (decimal tuning values like 0.05 are not binary fractions, so their
    /// products carry rounding far below anything a wrong rule would change).
    #[track_caller]
    fn assert_near(a: Fx, b: Fx) {
        assert!(near(a, b, "0.000001"), "{a} vs {b}");
    }

    #[track_caller]
    fn assert_near_v(a: Vec3, b: Vec3) {
        assert!((a - b).length() <= fx("0.000001"), "{a:?} vs {b:?}");
    }

    #[test]
    fn base_speed_plus_impact_times_transfer() {
        let t = Tuning::default();
        let out = compute(&straight_down("10"), &t);
        assert_eq!(out.impact, fx("10"));
        assert_near(out.speed, fx("12.5")); // 12 + 10·0.05
        assert_near_v(out.velocity, v("0", "12.5", "0"));
        let t = tuning_with(&["impact_transfer=0.35"]);
        assert_near(compute(&straight_down("10"), &t).speed, fx("15.5")); // 12 + 10·0.35
        let t = tuning_with(&["base_bounce_speed=9"]);
        assert_near(compute(&straight_down("10"), &t).speed, fx("9.5"));
    }

    #[test]
    fn combo_bonus_counts_up_to_max_combo() {
        let t = Tuning::default();
        let at = |combo| {
            compute(
                &Landing {
                    combo,
                    ..straight_down("0")
                },
                &t,
            )
            .speed
        };
        assert_eq!(at(0), fx("12"));
        assert_near(at(3), fx("12.6"));
        assert_near(at(5), fx("13"));
        assert_eq!(at(6), at(5), "combo beyond max_combo adds nothing");
        assert_eq!(at(u32::MAX), at(5));
        let t = tuning_with(&["max_combo=2", "combo_bonus=1"]);
        assert_eq!(
            compute(
                &Landing {
                    combo: 4,
                    ..straight_down("0")
                },
                &t
            )
            .speed,
            fx("14")
        );
    }

    #[test]
    fn launch_speed_is_clamped_to_min_and_max() {
        let t = Tuning::default();
        // 12 + 300·0.05 = 27 → 22.
        assert_eq!(compute(&straight_down("300"), &t).speed, fx("22"));
        assert_eq!(compute(&straight_down("200"), &t).speed, fx("22"));
        // 12 + 199·0.05 = 21.95: just inside.
        assert_near(compute(&straight_down("199"), &t).speed, fx("21.95"));
        let t = tuning_with(&["base_bounce_speed=5"]);
        assert_eq!(compute(&straight_down("0"), &t).speed, fx("8"));
        assert_near(compute(&straight_down("60"), &t).speed, fx("8")); // 5 + 3 = 8, the edge
        assert_near(compute(&straight_down("80"), &t).speed, fx("9"));
    }

    #[test]
    fn separating_velocity_has_no_impact() {
        let t = Tuning::default();
        let rising = Landing {
            velocity: v("0", "3", "0"),
            ..straight_down("0")
        };
        let out = compute(&rising, &t);
        assert_eq!(out.impact, Fx::ZERO);
        assert_eq!(out.speed, fx("12"));
    }

    #[test]
    fn direction_weights_normal_lean_and_momentum() {
        // Flat ground, upright, moving east at 10 m/s (= the reference speed): the weighted
        // direction is (0.6, 1 + 1.4, 0) normalised; lean is vertical, so the assist bends it
        // 60% back toward the normal.
        let t = tuning_with(&["tangential_keep=0"]);
        let landing = Landing {
            velocity: v("10", "-10", "0"),
            ..straight_down("0")
        };
        let out = compute(&landing, &t);
        let raw = v("0.6", "2.4", "0").normalize().unwrap();
        let assisted = raw.lerp(Vec3::UP, fx("0.6")).normalize().unwrap();
        assert!(out.assisted);
        assert_near_v(out.direction, assisted);
        // Without the assist the raw weighted direction is kept.
        let t = tuning_with(&["tangential_keep=0", "assist_strength=0"]);
        assert_near_v(compute(&landing, &t).direction, raw);
        // A doubled reference speed halves the momentum term.
        let t = tuning_with(&[
            "tangential_keep=0",
            "assist_strength=0",
            "momentum_reference_speed=20",
        ]);
        assert_near_v(
            compute(&landing, &t).direction,
            v("0.3", "2.4", "0").normalize().unwrap(),
        );
        // Lean weight: the same landing leaning east shifts the direction east.
        let t = tuning_with(&["assist_strength=0", "momentum_weight=0"]);
        let lean = v("0.2", "1", "0").normalize().unwrap();
        let leaning = Landing {
            lean_up: lean,
            ..straight_down("5")
        };
        let expected = (Vec3::UP + lean * fx("1.4")).normalize().unwrap();
        assert_near_v(compute(&leaning, &t).direction, expected);
    }

    #[test]
    fn direction_is_rotated_back_onto_the_launch_cone() {
        // Strong lean and momentum sideways push the direction past 75°.
        let t = tuning_with(&["lean_weight=10", "momentum_weight=10"]);
        let landing = Landing {
            lean_up: v("1", "0.1", "0").normalize().unwrap(),
            velocity: v("40", "-1", "0"),
            ..straight_down("0")
        };
        let out = compute(&landing, &t);
        let cos75 = t.derived().launch_cone_cos;
        assert!(
            near(out.direction.dot(Vec3::UP), cos75, "0.000001"),
            "{out:?}"
        );
        assert!(out.direction.x > Fx::ZERO);
        // A 30° cone clamps the same landing to 30°.
        let t = tuning_with(&[
            "lean_weight=10",
            "momentum_weight=10",
            "max_launch_angle=30",
        ]);
        let out = compute(&landing, &t);
        assert!(
            near(out.direction.dot(Vec3::UP), fx("0.8660254"), "0.000001"),
            "{out:?}"
        );
    }

    #[test]
    fn assist_applies_only_within_the_assist_angle() {
        let t = tuning_with(&["momentum_weight=0"]);
        // cos 12° = 0.97815; a lean 11.9° off vertical is assisted, 12.1° is not.
        let lean_at = |deg_tan: &str| v(deg_tan, "1", "0").normalize().unwrap();
        let inside = Landing {
            lean_up: lean_at("0.2107"),
            ..straight_down("5")
        }; // 11.90°
        let outside = Landing {
            lean_up: lean_at("0.2144"),
            ..straight_down("5")
        }; // 12.10°
        assert!(compute(&inside, &t).assisted);
        assert!(!compute(&outside, &t).assisted);
        // The assist bends toward the normal: the assisted direction is closer to vertical.
        let bent = compute(&inside, &t).direction;
        let t0 = tuning_with(&["momentum_weight=0", "assist_strength=0"]);
        assert!(bent.y > compute(&inside, &t0).direction.y);
        let full = tuning_with(&["momentum_weight=0", "assist_strength=1"]);
        assert_eq!(compute(&inside, &full).direction, Vec3::UP);
    }

    #[test]
    fn tangential_part_is_kept_after_the_launch() {
        let t = tuning_with(&["momentum_weight=0"]);
        let landing = Landing {
            velocity: v("5", "-10", "0"),
            ..straight_down("0")
        };
        let out = compute(&landing, &t);
        // Direction straight up (no lean, no momentum weight): 12.5 up plus 0.6·5 east.
        assert_near_v(out.velocity, v("3", "12.5", "0"));
        let t = tuning_with(&["momentum_weight=0", "tangential_keep=1"]);
        assert_near_v(compute(&landing, &t).velocity, v("5", "12.5", "0"));
    }

    #[test]
    fn total_cap_then_horizontal_cap() {
        // Speed 22 up plus 0.6·40 = 24 east: |(24, 22)| ≈ 32.6 > 26 → scaled to 26, then the
        // horizontal part (≈ 19.2) is cut to 10 while the vertical part stays.
        let t = tuning_with(&["momentum_weight=0", "max_horizontal_speed=10"]);
        let landing = Landing {
            velocity: v("40", "-300", "0"),
            ..straight_down("0")
        };
        let out = compute(&landing, &t);
        let total_first = v("24", "22", "0").clamp_length(fx("26"));
        assert_near(out.velocity.y, total_first.y);
        assert!(near(out.velocity.x, fx("10"), "0.000001"));
        assert!(out.velocity.x <= fx("10"));
        // Capping the horizontal part first would have left y at 22, not ≈ 17.5.
        assert!(out.velocity.y < fx("17.6") && out.velocity.y > fx("17.5"));
        assert!(out.velocity.length() <= fx("26"));
    }

    #[test]
    fn moving_surface_launches_relative_and_adds_its_velocity_last() {
        let t = Tuning::default();
        let platform = v("4", "1", "0");
        // Falling at 10 m/s relative to a platform moving (4, 1, 0): relative approach is the
        // same as landing on static ground at 10 m/s.
        let landing = Landing {
            velocity: v("4", "-9", "0"),
            surface_velocity: platform,
            ..straight_down("0")
        };
        let out = compute(&landing, &t);
        let still = compute(&straight_down("10"), &t);
        assert_eq!(out.relative_velocity, still.velocity);
        assert_eq!(out.velocity, still.velocity + platform);
        // Added after the caps: a fast platform can take the pogo past max_horizontal_speed.
        let fast = Landing {
            surface_velocity: v("30", "0", "0"),
            ..landing
        };
        let fast = Landing {
            velocity: fast.surface_velocity + v("0", "-10", "0"),
            ..fast
        };
        assert_eq!(compute(&fast, &t).velocity.x, fx("30"));
    }

    #[test]
    fn steady_state_on_flat_ground_matches_the_feedback_formula() {
        // Bouncing in place, a landing arrives at the previous launch speed (a ballistic arc
        // returns to its height at the speed it left with). Iterating the launch map converges
        // to (base + combo·bonus)/(1 − transfer).
        for transfer in ["0.05", "0.35"] {
            for combo in [0u32, 5] {
                let t = tuning_with(&[&alloc::format!("impact_transfer={transfer}")]);
                let mut speed = Fx::ZERO;
                for _ in 0..200 {
                    let landing = Landing {
                        combo,
                        velocity: Vec3::new(Fx::ZERO, -speed, Fx::ZERO),
                        ..straight_down("0")
                    };
                    speed = compute(&landing, &t).velocity.y;
                }
                let bonus = Fx::lit("0.2").mul_int(i64::from(combo));
                let expected = (fx("12") + bonus) / (Fx::ONE - fx(transfer));
                assert!(
                    near(speed, expected, "0.0001"),
                    "transfer {transfer} combo {combo}: {speed} vs {expected}"
                );
            }
        }
    }
}
