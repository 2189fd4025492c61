//! The f64 measuring stick (`benches/support/float.rs`) cannot drift from core silently.
//!
//! The stick redoes the tick in `f64` so that the benchmarks can time the same work in floats
//! (PERFORMANCE.md says why it is a mirror and not a second instance of one generic tick). A
//! rule or a clamp changed in core and not in the mirror would make that comparison time other
//! work. These tests fail when it does:
//!
//! - on every built-in level, the demo bot's run replayed by both: the same number of bounces,
//!   the same ticks spent compressed, the same finish tick (no tolerance: rounding moves
//!   neither), and the f64 tip within [`TIP_TOLERANCE_M`] of the fixed-point tip at the end of
//!   every tick (so at every whole second too) — a forgotten rule drifts by centimetres within
//!   seconds;
//! - from states edited beyond the tick's entry bounds (which no tick leaves, so the runs
//!   above never reach them), the same next state within [`TIP_TOLERANCE_M`]: the stick clamps
//!   as core does.

#[path = "../benches/support/mod.rs"]
mod support;

use pogo::core::{Fx, Input, State, Vec3};
use pogo::replay::levels::BUILTIN_LEVELS;
use support::float::{FPogo, FSim, FTuning, FWorld, V3};

/// How far (m) the f64 tip may be from the fixed-point tip at the end of any tick: 1 mm. The
/// runs today stay within a few micrometres (the largest gap is printed); 1 mm is far above
/// rounding and far below what a forgotten rule does.
const TIP_TOLERANCE_M: f64 = 0.001;

/// Most ticks of a level's run: `support::LEVELS`'s (`flat` has no finish), else 20 000.
fn ticks_max(level: &str) -> u32 {
    support::LEVELS
        .iter()
        .find(|(name, _)| *name == level)
        .map_or(20_000, |&(_, max)| max)
}

#[test]
fn the_f64_stick_follows_core_on_every_built_in_level() {
    for &(level, _) in BUILTIN_LEVELS {
        let run = support::record(level, ticks_max(level));
        let tuning = run.sim.tuning();
        let world = FWorld::new(run.sim.world(), tuning.spec().tick_rate);
        let ftuning = FTuning::new(tuning);
        let t = support::tracking(&run, &world, &ftuning);
        let (gap, at) = t.gap_max;
        eprintln!(
            "{level}: {} ticks, largest tip gap {:.3} µm at tick {at}",
            t.ticks,
            gap * 1e6
        );
        assert_eq!(t.float_bounces, t.fixed_bounces, "{level}: bounces");
        assert_eq!(
            t.float_compression_ticks, t.fixed_compression_ticks,
            "{level}: ticks compressed"
        );
        assert_eq!(t.float_finish, t.fixed_finish, "{level}: finish tick");
        assert!(
            gap <= TIP_TOLERANCE_M,
            "{level}: the f64 tip is {:.3} mm from the fixed-point tip after tick {at}",
            gap * 1e3
        );
    }
}

#[test]
fn the_f64_stick_clamps_an_edited_state_as_core_does() {
    let m = |x: i32| Fx::from_int(x);
    let edits: [(&str, Vec3, Vec3); 3] = [
        // High above the ground, far faster than SPEED_MAX on every axis.
        (
            "too fast",
            Vec3::new(m(5), m(40), m(-3)),
            Vec3::new(m(500), m(-300), m(450)),
        ),
        // Beyond POSITION_MAX (2²⁰ m): clamped to it, then out of the world.
        (
            "too far",
            Vec3::new(m(3_000_000), m(10), m(-2_000_000)),
            Vec3::ZERO,
        ),
        (
            "both",
            Vec3::new(m(0), m(-1_500_000), m(0)),
            Vec3::new(m(-900), m(0), m(0)),
        ),
    ];
    for (name, position, velocity) in edits {
        let mut sim = support::simulation("flat");
        sim.step(&[Input::default()]); // placed at the spawn
        let pogo = &mut sim.state_mut().pogos[0];
        pogo.state = State::Airborne;
        pogo.position = position;
        pogo.velocity = velocity;
        let tuning = sim.tuning();
        let world = FWorld::new(sim.world(), tuning.spec().tick_rate);
        let ftuning = FTuning::new(tuning);
        let mut float = FSim::new(&world, &ftuning);
        float.tick = sim.state().tick.0;
        float.pogo = FPogo::from_fixed(&sim.state().pogos[0]);
        let input = Input {
            steer_x: 90,
            ..Input::default()
        };
        sim.step(&[input]);
        float.step(input);
        let fixed = FPogo::from_fixed(&sim.state().pogos[0]);
        let gap = |a: V3, b: V3| (a - b).length();
        assert_eq!(float.pogo.state, fixed.state, "{name}: state");
        assert!(
            gap(float.pogo.position, fixed.position) <= TIP_TOLERANCE_M,
            "{name}: tip at {:?} in f64, {:?} in core",
            float.pogo.position,
            fixed.position
        );
        assert!(
            gap(float.pogo.velocity, fixed.velocity) <= TIP_TOLERANCE_M,
            "{name}: velocity {:?} in f64, {:?} in core",
            float.pogo.velocity,
            fixed.velocity
        );
    }
}
