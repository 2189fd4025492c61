//! `contact_evaluator`: any contact, any pogo state, any valid tuning → the classification
//! and the launch.
//!
//! The input is the contact's geometry (height of the point on the body, surface normal,
//! the `no_bounce` flag, the pogo's and the surface's velocities, the timers) and the pogo's
//! state (lean, combo), every number from raw bits up. The contact the rules see is derived
//! from it as the tick derives it: `normal_speed = (v − v_surface)·n`, `normal_y = n.y`.
//!
//! Oracles, for every input:
//! - no panic and no overflow (fuzz builds keep debug assertions; `Fx` must saturate);
//! - the same input evaluated twice gives the same bits (verdict, launch, ricochet);
//! - the verdict is the one the contact rules prescribe, checked against [`expected_verdict`], a
//!   reference model written from the spec's list; in particular a contact above the tip
//!   zone is never a bounce, a `no_bounce` surface never bounces (nor ricochets), a normal with
//!   y below `bounce_normal_y_min` (0.35 by default) never bounces;
//! - the launch speed lies within `[min_launch_speed, max_launch_speed]`, the launch velocity
//!   relative to the surface within `max_total_speed` and its horizontal part within
//!   `max_horizontal_speed`, and the world velocity is the relative one plus the surface's;
//! - the impact is the approach speed along the normal, never negative.
//!
//! For unit normals and a legal lean (the only inputs the tick produces), moreover:
//! - the launch direction is a unit vector within `max_launch_angle` of the normal (cos
//!   compared with a tolerance of 10⁻⁶, as in `core/tests/launch_properties.rs`);
//! - the landing assist fires only within `assist_angle` of the normal;
//! - a ricochet of a velocity within the state bounds reflects the approach speed with
//!   `ricochet_restitution` and keeps the tangential part.

use arbitrary::Arbitrary;
use pogo_core::contact::{self, Contact, Ignored, Verdict};
use pogo_core::launch::{self, Landing};
use pogo_core::{Fx, Lean, SPEED_MAX, Ticks, Tuning, Vec3};

use crate::num::{Scalar, near, within};
use crate::tuning::{self, Override};

/// Most tuning keys one input moves.
const OVERRIDES_MAX: usize = 4;

#[derive(Arbitrary, Clone, Debug)]
pub struct Input {
    /// Height of the contact point above the tip (m).
    pub height_on_body: Scalar,
    /// The surface normal; normalised first when `unit_normal`.
    pub normal: [Scalar; 3],
    pub unit_normal: bool,
    pub no_bounce: bool,
    /// The pogo's velocity (m/s).
    pub velocity: [Scalar; 3],
    /// The surface's velocity (m/s).
    pub surface_velocity: [Scalar; 3],
    /// Ticks since the last launch.
    pub since_launch: u32,
    /// Ticks since the contact was last touched.
    pub age: u32,
    /// The lean (horizontal part of the up axis); clamped to the tuning's largest lean when
    /// `legal_lean`, as the tick keeps it.
    pub lean: [Scalar; 2],
    pub legal_lean: bool,
    pub combo: u32,
    /// A last launch point for the perfect-landing rule, if any.
    pub last_launch: Option<[Scalar; 3]>,
    pub tuning: Vec<Override>,
}

/// One decoded evaluation: what the rules saw and what they said.
#[derive(Debug)]
struct Case {
    contact: Contact,
    landing: Landing,
    verdict: Verdict,
}

/// Runs the oracles on `input`; panics naming the first that fails. Returns `false` for an
/// invalid tuning (skipped).
pub fn check(input: &Input) -> bool {
    let Some(tuning) = tuning::build(&input.tuning, OVERRIDES_MAX) else {
        return false;
    };
    let raw_normal = Scalar::vec(input.normal);
    let normal = if input.unit_normal {
        raw_normal.normalize_or(Vec3::UP)
    } else {
        raw_normal
    };
    let lean = Lean {
        x: input.lean[0].fx(),
        z: input.lean[1].fx(),
    };
    let lean = if input.legal_lean {
        let h = Vec3::new(lean.x, Fx::ZERO, lean.z).clamp_length(tuning.derived().lean_max_sin);
        Lean { x: h.x, z: h.z }
    } else {
        lean
    };
    let velocity = Scalar::vec(input.velocity);
    let surface_velocity = Scalar::vec(input.surface_velocity);
    let contact = Contact {
        height_on_body: input.height_on_body.fx(),
        no_bounce: input.no_bounce,
        normal_speed: (velocity - surface_velocity).dot(normal),
        normal_y: normal.y,
        since_launch: Ticks(input.since_launch),
        age: Ticks(input.age),
    };
    let landing = Landing {
        normal,
        lean_up: lean.up(),
        velocity,
        surface_velocity,
        combo: input.combo,
    };
    let case = Case {
        contact,
        landing,
        verdict: contact::classify(&contact, &tuning),
    };

    check_verdict(&case, &tuning);
    let legal_geometry = input.unit_normal && input.legal_lean;
    check_launch(&case, &tuning, legal_geometry);
    check_ricochet(&case, &tuning, input.unit_normal);

    let last_launch = input.last_launch.map(Scalar::vec);
    let perfect = contact::is_perfect_landing(
        landing.lean_up,
        normal,
        last_launch,
        landing.velocity,
        &tuning,
    );
    assert!(
        last_launch.is_some() || !perfect,
        "a landing with no launch before it was perfect: {case:#?}"
    );
    true
}

/// The verdict the contact rules prescribe, checks in their documented order.
pub fn expected_verdict(c: &Contact, tuning: &Tuning) -> Verdict {
    let spec = tuning.spec();
    let grace = Ticks(spec.tip_grace_ticks);
    let tip = c.height_on_body <= spec.tip_height;
    match () {
        _ if c.age > grace => Verdict::Ignore(Ignored::Stale),
        _ if !tip && c.age != Ticks::ZERO => Verdict::Ignore(Ignored::Stale),
        _ if !tip => Verdict::BodyHit {
            stun: -c.normal_speed > spec.stun_speed,
        },
        _ if c.no_bounce => Verdict::Ignore(Ignored::NoBounceSurface),
        _ if c.normal_speed > Fx::ZERO => Verdict::Ignore(Ignored::Separating),
        _ if c.since_launch < tuning.derived().relaunch_cooldown_ticks => {
            Verdict::Ignore(Ignored::Cooldown)
        }
        _ if c.normal_y < spec.bounce_normal_y_min => Verdict::Ricochet,
        _ => Verdict::Bounce,
    }
}

fn check_verdict(case: &Case, tuning: &Tuning) {
    let c = &case.contact;
    let spec = tuning.spec();
    assert_eq!(
        case.verdict,
        contact::classify(c, tuning),
        "classify gave two answers for one contact: {case:#?}"
    );
    // The rules' invariants, stated on their own before the full model.
    if case.verdict == Verdict::Bounce {
        assert!(
            c.height_on_body <= spec.tip_height,
            "a contact above the tip zone bounced: {case:#?}"
        );
        assert!(!c.no_bounce, "a no_bounce surface bounced: {case:#?}");
        assert!(
            c.normal_y >= spec.bounce_normal_y_min,
            "a surface steeper than bounce_normal_y_min bounced: {case:#?}"
        );
        if *tuning == *tuning::default_tuning() {
            assert!(
                c.normal_y >= Fx::lit("0.35"),
                "a normal with y < 0.35 bounced: {case:#?}"
            );
        }
    }
    if case.verdict == Verdict::Ricochet {
        assert!(!c.no_bounce, "a no_bounce surface ricocheted: {case:#?}");
    }
    let expected = expected_verdict(c, tuning);
    assert_eq!(
        case.verdict, expected,
        "classify disagrees with the documented order of checks: {case:#?}"
    );
}

fn check_launch(case: &Case, tuning: &Tuning, legal_geometry: bool) {
    let spec = tuning.spec();
    let landing = &case.landing;
    let out = launch::compute(landing, tuning);
    assert_eq!(
        out,
        launch::compute(landing, tuning),
        "launch gave two answers for one landing: {case:#?}"
    );
    assert!(
        out.speed >= spec.min_launch_speed && out.speed <= spec.max_launch_speed,
        "launch speed {} outside [{}, {}]: {case:#?}",
        out.speed,
        spec.min_launch_speed,
        spec.max_launch_speed
    );
    assert!(
        out.relative_velocity.length() <= spec.max_total_speed,
        "launch speed |{:?}| = {} above max_total_speed {}: {case:#?}",
        out.relative_velocity,
        out.relative_velocity.length(),
        spec.max_total_speed
    );
    assert!(
        out.relative_velocity.horizontal().length() <= spec.max_horizontal_speed,
        "horizontal launch speed {} above max_horizontal_speed {}: {case:#?}",
        out.relative_velocity.horizontal().length(),
        spec.max_horizontal_speed
    );
    assert_eq!(
        out.velocity,
        out.relative_velocity + landing.surface_velocity,
        "the surface velocity is not added in full after the caps: {case:#?}"
    );
    let approach = (landing.velocity - landing.surface_velocity).dot(landing.normal);
    assert_eq!(
        out.impact,
        (-approach).max(Fx::ZERO),
        "impact is not the approach speed along the normal: {case:#?}"
    );
    if !legal_geometry {
        return;
    }
    let epsilon = Fx::lit("0.000001");
    let derived = tuning.derived();
    assert!(
        near(out.direction.length(), Fx::ONE, epsilon),
        "launch direction {:?} is not unit length: {case:#?}",
        out.direction
    );
    assert!(
        out.direction.dot(landing.normal) >= derived.launch_cone_cos - epsilon,
        "launch direction {:?} is more than {}° from the normal (cos {} < {}): {case:#?}",
        out.direction,
        spec.max_launch_angle,
        out.direction.dot(landing.normal),
        derived.launch_cone_cos
    );
    if out.assisted {
        assert!(
            landing.lean_up.dot(landing.normal) >= derived.assist_cos,
            "the assist fired with the lean more than {}° from the normal: {case:#?}",
            spec.assist_angle
        );
    }
}

fn check_ricochet(case: &Case, tuning: &Tuning, unit_normal: bool) {
    let l = &case.landing;
    let out = contact::ricochet(l.velocity, l.normal, l.surface_velocity, tuning);
    assert_eq!(
        out,
        contact::ricochet(l.velocity, l.normal, l.surface_velocity, tuning),
        "ricochet gave two answers: {case:#?}"
    );
    // Exact reflection is only defined without saturation: unit normal, velocities within
    // the state bound.
    if !(unit_normal && within(l.velocity, SPEED_MAX) && within(l.surface_velocity, SPEED_MAX)) {
        return;
    }
    let n = l.normal;
    let before = (l.velocity - l.surface_velocity).dot(n);
    let after = (out - l.surface_velocity).dot(n);
    // |n| is 1 within a few 2⁻³², times speeds of up to ~700 m/s: 10⁻⁵ is ample.
    let tolerance = Fx::lit("0.00001");
    if before >= Fx::ZERO {
        assert_eq!(
            out, l.velocity,
            "a separating velocity was ricocheted: {case:#?}"
        );
        return;
    }
    let expected = -(before * tuning.spec().ricochet_restitution);
    assert!(
        near(after, expected, tolerance),
        "ricochet left normal speed {after}, expected {expected}: {case:#?}"
    );
    let tangential_before = l.velocity.reject_from(n);
    let tangential_after = out.reject_from(n);
    assert!(
        (tangential_after - tangential_before).length() <= tolerance,
        "ricochet changed the tangential velocity {tangential_before:?} → {tangential_after:?}: {case:#?}"
    );
}
