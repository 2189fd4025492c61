//! Contact rules: what a touch between the pogo and a surface means.
//!
//! The collision code reports contacts; this module decides, as pure functions, whether a
//! contact is a bounce, a ricochet, a body hit or nothing for the rules, and whether a landing
//! is perfect. The checks run in this order, the first that applies decides:
//!
//! 1. **Stale**: a contact last touched more than `tip_grace_ticks` ticks ago is forgotten.
//!    A tip contact stays eligible for that many ticks after it is lost, so one tick without
//!    contact (a sliver of separation on a ramp, a platform stepping away) does not eat a bounce.
//! 2. **Body hit**: a contact higher than `tip_height` above the tip. It stuns when the approach
//!    speed along the normal exceeds `stun_speed`. Only a current contact (age 0) hits the body.
//! 3. **No-bounce surface**: never a bounce (nor a ricochet); the collision just blocks.
//! 4. **Separating**: the tip moves away from the surface (relative normal speed > 0).
//! 5. **Cooldown**: fewer than `relaunch_cooldown` ticks since the last launch; with 4, this is
//!    what keeps one contact from counting twice.
//! 6. **Ricochet**: the surface is steeper than `bounce_normal_y_min` (normal y below it).
//! 7. **Bounce** otherwise.

use crate::fx::Fx;
use crate::tick::Ticks;
use crate::tuning::Tuning;
use crate::vec3::Vec3;

/// One contact as the rules see it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Contact {
    /// Height of the contact point above the pogo's lowest point (m, ≥ 0; the tip is 0).
    pub height_on_body: Fx,
    /// The surface's `no_bounce` flag.
    pub no_bounce: bool,
    /// The pogo's velocity relative to the surface, along the unit normal (m/s):
    /// negative while approaching, positive while separating.
    pub normal_speed: Fx,
    /// The y component of the unit surface normal (1 on flat ground, 0 on a wall).
    pub normal_y: Fx,
    /// Ticks since the pogo last launched ([`Ticks::MAX`] if it never has).
    pub since_launch: Ticks,
    /// Ticks since this contact was last touched: 0 while touching, then the grace count.
    pub age: Ticks,
}

/// What a contact is for the rules.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Verdict {
    /// Compress, then launch (see [`crate::launch`]).
    Bounce,
    /// Reflect the normal speed with `ricochet_restitution`, reset the combo.
    Ricochet,
    /// The body, not the tip, touched.
    BodyHit {
        /// The approach speed along the normal exceeded `stun_speed`: the rider is stunned.
        stun: bool,
    },
    /// Nothing for the rules (the collision still blocks), and why.
    Ignore(Ignored),
}

/// Why a contact was ignored by the rules.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ignored {
    /// Last touched longer ago than the grace window (or a body contact no longer touching).
    Stale,
    /// The surface is flagged `no_bounce`.
    NoBounceSurface,
    /// The tip is moving away from the surface.
    Separating,
    /// Too soon after the last launch.
    Cooldown,
}

/// Classifies a contact. Pure and total.
pub fn classify(contact: &Contact, tuning: &Tuning) -> Verdict {
    let spec = tuning.spec();
    if contact.age > Ticks(spec.tip_grace_ticks) {
        return Verdict::Ignore(Ignored::Stale);
    }
    if contact.height_on_body > spec.tip_height {
        if contact.age > Ticks::ZERO {
            return Verdict::Ignore(Ignored::Stale);
        }
        let approach = -contact.normal_speed;
        return Verdict::BodyHit {
            stun: approach > spec.stun_speed,
        };
    }
    if contact.no_bounce {
        return Verdict::Ignore(Ignored::NoBounceSurface);
    }
    if contact.normal_speed > Fx::ZERO {
        return Verdict::Ignore(Ignored::Separating);
    }
    if contact.since_launch < tuning.derived().relaunch_cooldown_ticks {
        return Verdict::Ignore(Ignored::Cooldown);
    }
    if contact.normal_y < spec.bounce_normal_y_min {
        return Verdict::Ricochet;
    }
    Verdict::Bounce
}

/// The velocity after a ricochet: the approach speed along the unit `normal`, relative to the
/// surface, is reflected and scaled by `ricochet_restitution`; the tangential part is kept.
/// A velocity already separating from the surface is returned unchanged.
pub fn ricochet(velocity: Vec3, normal: Vec3, surface_velocity: Vec3, tuning: &Tuning) -> Vec3 {
    let relative = velocity - surface_velocity;
    let along = relative.dot(normal);
    if along >= Fx::ZERO {
        return velocity;
    }
    // v' = v − n·vₙ·(1 + e): removes the approach and adds back e of it, outward.
    let restitution = tuning.spec().ricochet_restitution;
    velocity - normal * (along * (Fx::ONE + restitution))
}

/// A landing is perfect when the pogo's up axis is within `perfect_angle` of the unit surface
/// `normal` **and** the hop since the last launch covered at least `perfect_min_hop` metres
/// horizontally. Bouncing in place never counts; neither does a landing with no launch before
/// it (`last_launch` is `None` after a spawn).
///
/// The hop is measured relative to the surface launched from: the tick passes the launch
/// point carried along with that surface (a moving platform's travel since the launch is not
/// a hop, so bouncing in place on a platform never counts). And a stunned pogo scores no
/// perfect landing at all: the tick does not ask.
pub fn is_perfect_landing(
    lean_up: Vec3,
    normal: Vec3,
    last_launch: Option<Vec3>,
    landing_point: Vec3,
    tuning: &Tuning,
) -> bool {
    let Some(launch_point) = last_launch else {
        return false;
    };
    let straight = lean_up.dot(normal) >= tuning.derived().perfect_cos;
    // Squared distances saturate only far beyond any hop threshold, so the comparison holds.
    let hop_squared = (landing_point - launch_point).horizontal().length_squared();
    straight && hop_squared >= tuning.derived().perfect_min_hop_squared
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::fx;
    use crate::tuning::TuningSpec;

    /// A fresh tip contact on flat ground, approaching at 10 m/s, long after the last launch.
    fn landing() -> Contact {
        Contact {
            height_on_body: Fx::ZERO,
            no_bounce: false,
            normal_speed: fx("-10"),
            normal_y: Fx::ONE,
            since_launch: Ticks(100),
            age: Ticks::ZERO,
        }
    }

    fn tuning_with(overrides: &[&str]) -> Tuning {
        let mut spec = TuningSpec::default();
        for o in overrides {
            spec.apply_override(o).unwrap();
        }
        Tuning::new(spec).unwrap()
    }

    #[test]
    fn flat_tip_contact_bounces() {
        assert_eq!(classify(&landing(), &Tuning::default()), Verdict::Bounce);
        // Resting contact (zero normal speed) is not separating: still a bounce.
        let resting = Contact {
            normal_speed: Fx::ZERO,
            ..landing()
        };
        assert_eq!(classify(&resting, &Tuning::default()), Verdict::Bounce);
    }

    #[test]
    fn tip_zone_is_the_lowest_tip_height() {
        let t = Tuning::default();
        let at = |h: &str| {
            classify(
                &Contact {
                    height_on_body: fx(h),
                    ..landing()
                },
                &t,
            )
        };
        assert_eq!(
            at("0.4"),
            Verdict::Bounce,
            "the zone's top edge is still tip"
        );
        assert_eq!(at("0.4000001"), Verdict::BodyHit { stun: true });
        assert_eq!(at("1.2"), Verdict::BodyHit { stun: true });
        let t = tuning_with(&["tip_height=0.2"]);
        let c = Contact {
            height_on_body: fx("0.3"),
            ..landing()
        };
        assert_eq!(classify(&c, &t), Verdict::BodyHit { stun: true });
    }

    #[test]
    fn body_hit_stuns_only_above_stun_speed() {
        let t = Tuning::default();
        let hit = |speed: &str| {
            let c = Contact {
                height_on_body: fx("1"),
                normal_speed: fx(speed),
                ..landing()
            };
            classify(&c, &t)
        };
        assert_eq!(hit("-4.0001"), Verdict::BodyHit { stun: true });
        assert_eq!(
            hit("-4"),
            Verdict::BodyHit { stun: false },
            "faster than, not as fast as"
        );
        assert_eq!(hit("-1"), Verdict::BodyHit { stun: false });
        assert_eq!(hit("3"), Verdict::BodyHit { stun: false });
        let t = tuning_with(&["stun_speed=8"]);
        let c = Contact {
            height_on_body: fx("1"),
            normal_speed: fx("-6"),
            ..landing()
        };
        assert_eq!(classify(&c, &t), Verdict::BodyHit { stun: false });
    }

    #[test]
    fn no_bounce_surface_never_bounces_nor_ricochets() {
        let t = Tuning::default();
        let c = Contact {
            no_bounce: true,
            ..landing()
        };
        assert_eq!(classify(&c, &t), Verdict::Ignore(Ignored::NoBounceSurface));
        let wall = Contact {
            no_bounce: true,
            normal_y: Fx::ZERO,
            ..landing()
        };
        assert_eq!(
            classify(&wall, &t),
            Verdict::Ignore(Ignored::NoBounceSurface)
        );
        // The body still gets hit by a no-bounce surface.
        let body = Contact {
            no_bounce: true,
            height_on_body: fx("1"),
            ..landing()
        };
        assert_eq!(classify(&body, &t), Verdict::BodyHit { stun: true });
    }

    #[test]
    fn separating_contact_is_ignored() {
        let c = Contact {
            normal_speed: fx("0.0001"),
            ..landing()
        };
        assert_eq!(
            classify(&c, &Tuning::default()),
            Verdict::Ignore(Ignored::Separating)
        );
    }

    #[test]
    fn cooldown_blocks_a_second_bounce() {
        // 0.12 s at 60 Hz = 7.2 → 7 ticks.
        let t = Tuning::default();
        assert_eq!(t.derived().relaunch_cooldown_ticks, Ticks(7));
        let after = |ticks| {
            classify(
                &Contact {
                    since_launch: Ticks(ticks),
                    ..landing()
                },
                &t,
            )
        };
        assert_eq!(after(0), Verdict::Ignore(Ignored::Cooldown));
        assert_eq!(after(6), Verdict::Ignore(Ignored::Cooldown));
        assert_eq!(after(7), Verdict::Bounce);
        let t = tuning_with(&["relaunch_cooldown=0.5"]); // 30 ticks
        let c = Contact {
            since_launch: Ticks(20),
            ..landing()
        };
        assert_eq!(classify(&c, &t), Verdict::Ignore(Ignored::Cooldown));
    }

    #[test]
    fn steep_tip_contact_ricochets() {
        let t = Tuning::default();
        let at = |y: &str| {
            classify(
                &Contact {
                    normal_y: fx(y),
                    ..landing()
                },
                &t,
            )
        };
        assert_eq!(at("0.35"), Verdict::Bounce, "at least 0.35 bounces");
        assert_eq!(at("0.3499"), Verdict::Ricochet);
        assert_eq!(at("0"), Verdict::Ricochet);
        let t = tuning_with(&["bounce_normal_y_min=0.7"]);
        assert_eq!(
            classify(
                &Contact {
                    normal_y: fx("0.6"),
                    ..landing()
                },
                &t
            ),
            Verdict::Ricochet
        );
    }

    #[test]
    fn grace_window_keeps_a_lost_tip_contact_for_two_ticks() {
        let t = Tuning::default();
        let aged = |age| {
            classify(
                &Contact {
                    age: Ticks(age),
                    ..landing()
                },
                &t,
            )
        };
        assert_eq!(aged(1), Verdict::Bounce);
        assert_eq!(aged(2), Verdict::Bounce);
        assert_eq!(aged(3), Verdict::Ignore(Ignored::Stale));
        let t = tuning_with(&["tip_grace_ticks=0"]);
        assert_eq!(
            classify(
                &Contact {
                    age: Ticks(1),
                    ..landing()
                },
                &t
            ),
            Verdict::Ignore(Ignored::Stale)
        );
        // A remembered body contact does not hit again.
        let body = Contact {
            height_on_body: fx("1"),
            age: Ticks(1),
            ..landing()
        };
        assert_eq!(
            classify(&body, &Tuning::default()),
            Verdict::Ignore(Ignored::Stale)
        );
    }

    #[test]
    fn ricochet_reflects_half_the_normal_speed() {
        let t = Tuning::default();
        let wall = Vec3::new(-Fx::ONE, Fx::ZERO, Fx::ZERO); // facing west
        let v = Vec3::new(fx("8"), fx("-2"), fx("1"));
        assert_eq!(
            ricochet(v, wall, Vec3::ZERO, &t),
            Vec3::new(fx("-4"), fx("-2"), fx("1"))
        );
        let t = tuning_with(&["ricochet_restitution=1"]);
        assert_eq!(
            ricochet(v, wall, Vec3::ZERO, &t),
            Vec3::new(fx("-8"), fx("-2"), fx("1"))
        );
        // Relative to a wall moving west at 2 m/s: approach 10, leaves at 2 − 5 = −3... east
        // component: 8 − (−10)(−1)(1.5) = −7.
        let t = Tuning::default();
        let moving = Vec3::new(fx("-2"), Fx::ZERO, Fx::ZERO);
        assert_eq!(ricochet(v, wall, moving, &t).x, fx("-7"));
        // Separating: untouched.
        let away = Vec3::new(fx("-1"), Fx::ZERO, Fx::ZERO);
        assert_eq!(ricochet(away, wall, Vec3::ZERO, &t), away);
    }

    #[test]
    fn perfect_landing_needs_a_straight_lean_and_a_real_hop() {
        let t = Tuning::default();
        let origin = Vec3::ZERO;
        let at = |x: &str, z: &str| Vec3::new(fx(x), fx("-2"), fx(z));
        let upright = Vec3::UP;
        assert!(is_perfect_landing(
            upright,
            Vec3::UP,
            Some(origin),
            at("3", "0"),
            &t
        ));
        // Both horizontal axes count: 2.25² + 2² > 9, while 2.1² + 2.1² < 9.
        assert!(is_perfect_landing(
            upright,
            Vec3::UP,
            Some(origin),
            at("2.25", "2"),
            &t
        ));
        assert!(!is_perfect_landing(
            upright,
            Vec3::UP,
            Some(origin),
            at("2.1", "-2.1"),
            &t
        ));
        assert!(!is_perfect_landing(
            upright,
            Vec3::UP,
            Some(origin),
            at("2.99", "0"),
            &t
        ));
        // Bouncing in place (vertical distance does not count).
        assert!(!is_perfect_landing(
            upright,
            Vec3::UP,
            Some(origin),
            at("0", "0"),
            &t
        ));
        assert!(!is_perfect_landing(
            upright,
            Vec3::UP,
            None,
            at("5", "0"),
            &t
        ));
        // Lean 5.9° vs 6.1° from the normal (tan 5.9° = 0.10334, tan 6.1° = 0.10687).
        let tilted = |tan: &str| Vec3::new(fx(tan), Fx::ONE, Fx::ZERO).normalize().unwrap();
        assert!(is_perfect_landing(
            tilted("0.10334"),
            Vec3::UP,
            Some(origin),
            at("4", "0"),
            &t
        ));
        assert!(!is_perfect_landing(
            tilted("0.10687"),
            Vec3::UP,
            Some(origin),
            at("4", "0"),
            &t
        ));
        let t = tuning_with(&["perfect_min_hop=5"]);
        assert!(!is_perfect_landing(
            upright,
            Vec3::UP,
            Some(origin),
            at("4", "0"),
            &t
        ));
    }
}
