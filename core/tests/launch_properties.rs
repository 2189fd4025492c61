//! Property tests of the launch and contact rules over random normals, leans, velocities,
//! combos, surface velocities and tunings.
//!
//! Seeded: the seed is fixed so CI is reproducible, printed at the start of each property (cargo
//! shows it when a test fails), and overridable: `POGO_TEST_SEED=<u64>` reruns one seed,
//! `POGO_TEST_SEED=random` explores. `POGO_TEST_CASES=<n>` changes the number of cases.

use pogo_core::contact::{self, Contact, Verdict};
use pogo_core::launch::{self, Landing};
use pogo_core::{Fx, Lean, Ticks, Tuning, TuningSpec, Vec3};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

const DEFAULT_SEED: u64 = 0x706f_676f_5eed_0001;

fn config(property: &str) -> Config {
    let seed = match std::env::var("POGO_TEST_SEED").ok().as_deref() {
        None => DEFAULT_SEED,
        Some("random") => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(DEFAULT_SEED, |d| d.as_nanos() as u64),
        Some(text) => text.parse().expect("POGO_TEST_SEED is a u64 or `random`"),
    };
    let cases = std::env::var("POGO_TEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(2000);
    eprintln!("{property}: POGO_TEST_SEED={seed} POGO_TEST_CASES={cases}");
    Config {
        cases,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        ..Config::default()
    }
}

/// A decimal in `lo..=hi` with 2⁻¹⁶ resolution, as fixed point.
fn fx_in(lo: i32, hi: i32) -> impl Strategy<Value = Fx> {
    ((lo as i64) << 16..=(hi as i64) << 16).prop_map(|b| Fx::from_bits(b << 16))
}

fn vec_in(lo: i32, hi: i32) -> impl Strategy<Value = Vec3> {
    (fx_in(lo, hi), fx_in(lo, hi), fx_in(lo, hi)).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

fn unit_vector() -> impl Strategy<Value = Vec3> {
    vec_in(-1, 1).prop_filter_map("zero vector", |v| v.normalize())
}

/// A lean anywhere up to about 45°, turned into the pogo's up axis.
fn lean_up() -> impl Strategy<Value = Vec3> {
    (fx_in(-1, 1), fx_in(-1, 1)).prop_map(|(x, z)| {
        let half = Fx::HALF;
        Lean {
            x: x * half,
            z: z * half,
        }
        .up()
    })
}

fn combo() -> impl Strategy<Value = u32> {
    prop_oneof![0u32..=12, any::<u32>()]
}

fn landing() -> impl Strategy<Value = Landing> {
    (
        unit_vector(),
        lean_up(),
        vec_in(-60, 60),
        vec_in(-20, 20),
        combo(),
    )
        .prop_map(
            |(normal, lean_up, velocity, surface_velocity, combo)| Landing {
                normal,
                lean_up,
                velocity,
                surface_velocity,
                combo,
            },
        )
}

/// A random tuning: the launch-relevant keys anywhere within their ranges.
fn tuning() -> impl Strategy<Value = Tuning> {
    let names = [
        "normal_weight",
        "lean_weight",
        "momentum_weight",
        "momentum_reference_speed",
        "max_launch_angle",
        "base_bounce_speed",
        "impact_transfer",
        "combo_bonus",
        "min_launch_speed",
        "max_launch_speed",
        "tangential_keep",
        "max_total_speed",
        "max_horizontal_speed",
        "assist_angle",
        "assist_strength",
    ];
    proptest::collection::vec(0u64..=1 << 32, names.len()).prop_map(move |picks| {
        let mut spec = TuningSpec::default();
        for (name, pick) in names.iter().zip(picks) {
            let key = TuningSpec::key(name).unwrap();
            // min + (max − min)·pick/2³²
            let span = key.max - key.min;
            let value = key.min + span * Fx::from_bits(pick as i64);
            let text = value.to_string();
            spec.set(name, &text).unwrap();
        }
        if spec.min_launch_speed > spec.max_launch_speed {
            core::mem::swap(&mut spec.min_launch_speed, &mut spec.max_launch_speed);
        }
        Tuning::new(spec).unwrap()
    })
}

fn epsilon() -> Fx {
    Fx::lit("0.000001")
}

/// The guarantees the launch rules state for every launch.
fn check_launch(landing: &Landing, tuning: &Tuning) -> Result<(), TestCaseError> {
    let spec = tuning.spec();
    let out = launch::compute(landing, tuning);
    let cos_max = tuning.derived().launch_cone_cos;
    prop_assert!(
        out.direction.dot(landing.normal) >= cos_max - epsilon(),
        "direction {:?} is more than {}° from the normal {:?}",
        out.direction,
        spec.max_launch_angle,
        landing.normal
    );
    prop_assert!(
        (out.direction.length() - Fx::ONE).abs() <= epsilon(),
        "{:?}",
        out.direction
    );
    prop_assert!(out.speed >= spec.min_launch_speed, "speed {}", out.speed);
    prop_assert!(out.speed <= spec.max_launch_speed, "speed {}", out.speed);
    prop_assert!(
        out.relative_velocity.length() <= spec.max_total_speed,
        "{:?}",
        out
    );
    prop_assert!(
        out.relative_velocity.horizontal().length() <= spec.max_horizontal_speed,
        "{:?}",
        out
    );
    prop_assert_eq!(
        out.velocity,
        out.relative_velocity + landing.surface_velocity
    );
    prop_assert_eq!(
        out,
        launch::compute(landing, tuning),
        "same input, same bits"
    );
    Ok(())
}

#[test]
fn launch_respects_cone_clamp_and_caps_with_default_tuning() {
    let tuning = Tuning::default();
    proptest!(config("default tuning"), |(landing in landing())| {
        // The default limits, spelled out: 75°, [8, 22], 26, 10.
        let out = launch::compute(&landing, &tuning);
        prop_assert!(out.direction.dot(landing.normal) >= Fx::lit("0.2588190451") - epsilon());
        prop_assert!(out.speed >= Fx::from_int(8) && out.speed <= Fx::from_int(22));
        prop_assert!(out.relative_velocity.length() <= Fx::from_int(26));
        prop_assert!(out.relative_velocity.horizontal().length() <= Fx::from_int(10));
        check_launch(&landing, &tuning)?;
    });
}

#[test]
fn launch_respects_cone_clamp_and_caps_with_random_tunings() {
    proptest!(config("random tunings"), |(landing in landing(), tuning in tuning())| {
        check_launch(&landing, &tuning)?;
    });
}

fn any_fx() -> impl Strategy<Value = Fx> {
    prop_oneof![
        any::<i64>().prop_map(Fx::from_bits),
        Just(Fx::MAX),
        Just(Fx::MIN),
        Just(Fx::ZERO)
    ]
}

fn any_vec() -> impl Strategy<Value = Vec3> {
    (any_fx(), any_fx(), any_fx()).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

/// Hostile inputs (any bits, non-unit vectors): no panic in any profile, and still the
/// caps that do not depend on unit inputs.
#[test]
fn launch_and_classify_never_panic_on_any_bits() {
    let tuning = Tuning::default();
    let inputs = (any_vec(), any_vec(), any_vec(), any_vec(), any::<u32>());
    proptest!(config("any bits"), |((normal, lean_up, velocity, surface_velocity, combo) in inputs,
                                    height in any_fx(), speed in any_fx(), ny in any_fx(),
                                    since in any::<u32>(), age in any::<u32>(), flag in any::<bool>())| {
        let landing = Landing { normal, lean_up, velocity, surface_velocity, combo };
        let out = launch::compute(&landing, &tuning);
        prop_assert!(out.speed >= Fx::from_int(8) && out.speed <= Fx::from_int(22));
        prop_assert!(out.relative_velocity.horizontal().length() <= Fx::from_int(10));
        let c = Contact {
            height_on_body: height,
            no_bounce: flag,
            normal_speed: speed,
            normal_y: ny,
            since_launch: Ticks(since),
            age: Ticks(age),
        };
        let verdict = contact::classify(&c, &tuning);
        let _ = contact::ricochet(velocity, normal, surface_velocity, &tuning);
        let _ = contact::is_perfect_landing(lean_up, normal, Some(velocity), surface_velocity, &tuning);
        // The invariants of the classification.
        if verdict == Verdict::Bounce || verdict == Verdict::Ricochet {
            prop_assert!(height <= tuning.spec().tip_height, "above the tip zone: {c:?}");
            prop_assert!(!flag, "no_bounce surface: {c:?}");
            prop_assert!(speed <= Fx::ZERO, "separating: {c:?}");
            prop_assert!(Ticks(since) >= tuning.derived().relaunch_cooldown_ticks);
            prop_assert!(Ticks(age) <= Ticks(tuning.spec().tip_grace_ticks));
        }
        if verdict == Verdict::Bounce {
            prop_assert!(ny >= Fx::lit("0.35"), "steep surface bounced: {c:?}");
        }
    });
}
