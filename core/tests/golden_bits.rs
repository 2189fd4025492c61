//! Golden bits: a fixed set of launches, contact verdicts and derived tuning values, printed as
//! raw bits and compared with `tests/golden/rules.txt`. The same file is checked in debug and
//! release, with `-C target-cpu=native` and on other architectures, so it proves they agree.
//!
//! After an intended rule change, regenerate with `POGO_BLESS=1 cargo test -p pogo-core --test
//! golden_bits` and say why in the commit.

use std::fmt::Write;

mod support;

use pogo_core::contact::{self, Contact};
use pogo_core::launch::{self, Landing};
use pogo_core::{Fx, Lean, Ticks, Tuning, TuningSpec, Vec3};
use support::SplitMix;

fn bits(v: Vec3) -> String {
    format!(
        "{:016x} {:016x} {:016x}",
        v.x.to_bits(),
        v.y.to_bits(),
        v.z.to_bits()
    )
}

fn render() -> String {
    let mut out = String::new();
    let mut rng = SplitMix(0x706f_676f);
    let tunings = [
        ("default", Tuning::default()),
        ("transfer35", {
            let mut spec = TuningSpec::default();
            spec.set("impact_transfer", "0.35").unwrap();
            spec.set("max_launch_angle", "40").unwrap();
            Tuning::new(spec).unwrap()
        }),
    ];
    for (name, tuning) in &tunings {
        let d = tuning.derived();
        writeln!(out, "tuning {name} hash={:016x}", tuning.content_hash()).unwrap();
        for (label, value) in [
            ("dt", d.dt),
            ("cone_cos", d.launch_cone_cos),
            ("cone_sin", d.launch_cone_sin),
            ("assist_cos", d.assist_cos),
            ("perfect_cos", d.perfect_cos),
            ("lean_max_sin", d.lean_max_sin),
            ("lean_step_cos", d.lean_step_cos),
            ("lean_step_sin", d.lean_step_sin),
            (
                "fade_per_speed_squared",
                d.air_control_fade_per_speed_squared,
            ),
        ] {
            writeln!(out, "  {label} {:016x}", value.to_bits()).unwrap();
        }
        for case in 0..40 {
            let normal = rng.vec(1).normalize_or(Vec3::UP);
            let lean = Lean {
                x: rng.fx(1) * Fx::HALF,
                z: rng.fx(1) * Fx::HALF,
            };
            let landing = Landing {
                normal,
                lean_up: lean.up(),
                velocity: rng.vec(40),
                surface_velocity: if case % 3 == 0 {
                    rng.vec(8)
                } else {
                    Vec3::ZERO
                },
                combo: (rng.next() % 8) as u32,
            };
            let l = launch::compute(&landing, tuning);
            writeln!(
                out,
                "  launch {case:02} dir {} speed {:016x}",
                bits(l.direction),
                l.speed.to_bits()
            )
            .unwrap();
            writeln!(
                out,
                "            vel {} assisted={}",
                bits(l.velocity),
                l.assisted
            )
            .unwrap();
            let c = Contact {
                height_on_body: rng.fx(1).abs(),
                no_bounce: rng.next() % 5 == 0,
                normal_speed: rng.fx(10),
                normal_y: normal.y,
                since_launch: Ticks((rng.next() % 12) as u32),
                age: Ticks((rng.next() % 4) as u32),
            };
            let ricochet =
                contact::ricochet(landing.velocity, normal, landing.surface_velocity, tuning);
            writeln!(
                out,
                "            {:?} ricochet {}",
                contact::classify(&c, tuning),
                bits(ricochet)
            )
            .unwrap();
        }
    }
    out
}

#[test]
fn rules_match_the_committed_bits() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/rules.txt");
    let actual = render();
    if std::env::var_os("POGO_BLESS").is_some() {
        std::fs::write(path, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(path).expect("golden file; POGO_BLESS=1 creates it");
    if actual != expected {
        let (n, (a, e)) = actual
            .lines()
            .zip(expected.lines())
            .enumerate()
            .find(|(_, (a, e))| a != e)
            .unwrap_or((0, ("(length differs)", "")));
        panic!(
            "rules changed at line {}:\n  expected {e}\n  actual   {a}\n",
            n + 1
        );
    }
}
