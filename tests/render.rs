//! The renderer's view of `examples/render.rs`, checked frame by frame: at 144 Hz over 60 Hz
//! ticks, every position it draws is the last two ticks' positions interpolated by the exact
//! fraction of a tick the frame's time is past the last tick, or the newest position alone
//! after a teleport.
//!
//! The expected values are computed apart from the example: the simulation stepped directly
//! (no driver) with each tick's input worked out from the script here, the fraction from the
//! frame time in integers, the interpolation in `f64`.

#[path = "../examples/render.rs"]
#[allow(dead_code)]
mod render;

use std::sync::Arc;

use pogo::core::world::{Aabb, Solid, World, WorldDesc};
use pogo::core::{Events, Fx, Input, Simulation, Tuning, Vec3};

/// Ticks per second of the default tuning.
const RATE: u64 = 60;
/// Render frames per second.
const FPS: u64 = 144;
/// Seconds played.
const SECONDS: u64 = 5;
/// Nanoseconds in a second.
const NS: u64 = 1_000_000_000;
/// The player: (ms since the start, stick east). East off the slab, over the kill volume.
const SCRIPT: &[(u64, i8)] = &[(500, 127), (2000, 0)];

/// A 6 m slab (top at y = 0) with the spawn 1 m above its centre, and a kill volume below
/// its east edge: steering east, the pogo falls off, dies and respawns (a teleport).
fn level() -> WorldDesc {
    let v = |x, y, z| Vec3::new(Fx::from_int(x), Fx::from_int(y), Fx::from_int(z));
    WorldDesc {
        name: "render-test".into(),
        spawn: v(0, 1, 0),
        solids: vec![Solid {
            bounds: Aabb::new(v(-3, -1, -3), v(3, 0, 3)),
            no_bounce: false,
        }],
        kills: vec![Aabb::new(v(4, -30, -20), v(60, -2, 20))],
        ..WorldDesc::default()
    }
}

fn simulation() -> Simulation {
    let tuning = Tuning::default();
    assert_eq!(u64::from(tuning.spec().tick_rate), RATE);
    let world = World::new(level(), &tuning).unwrap();
    Simulation::new(Arc::new(world), tuning, 1).unwrap()
}

fn input(steer_x: i8) -> Input {
    Input {
        steer_x,
        ..Input::default()
    }
}

/// The run stepped directly, tick by tick.
struct Ticks {
    /// The tip position after k ticks (0: the start), in metres as `f64` (exact).
    positions: Vec<[f64; 3]>,
    /// Whether tick k − 1 teleported the pogo (false at 0).
    teleported: Vec<bool>,
    /// The state hash after the last tick.
    final_hash: u64,
}

/// The first `ticks` ticks of the run, stepped directly.
fn tick_by_tick(ticks: u64) -> Ticks {
    let metres = |p: Vec3| [p.x, p.y, p.z].map(|c| c.to_bits() as f64 / 4_294_967_296.0);
    let mut sim = simulation();
    let mut positions = vec![metres(sim.state().pogos[0].position)];
    let mut teleported = vec![false];
    for k in 0..ticks {
        // Tick k's input: the last script line at or before its start, k / RATE seconds.
        let steer = SCRIPT
            .iter()
            .rfind(|(ms, _)| ms * 1_000_000 * RATE <= k * NS)
            .map_or(0, |&(_, steer)| steer);
        sim.step(&[input(steer)]);
        let pogo = &sim.state().pogos[0];
        positions.push(metres(pogo.position));
        teleported.push(pogo.events.contains(Events::TELEPORT));
    }
    Ticks {
        positions,
        teleported,
        final_hash: sim.state_hash(),
    }
}

/// Whether `drawn` is `expected` rounded to `f32`: within one unit in the last place of an
/// `f32` at its size (or a micrometre near zero), which covers the fixed-point interpolation's
/// rounding (a few 2⁻³² m) as well.
fn close(drawn: f32, expected: f64) -> bool {
    let ulp = expected.abs() * f64::from(f32::EPSILON);
    (f64::from(drawn) - expected).abs() <= ulp.max(1e-6)
}

#[test]
fn frames_at_144_hz_interpolate_the_last_two_ticks_by_alpha_and_not_across_a_teleport() {
    let direct = tick_by_tick(RATE * SECONDS);
    let (positions, teleported) = (&direct.positions, &direct.teleported);
    let mut game = render::Game::new(simulation()).unwrap();
    let mut script = SCRIPT.iter().peekable();
    let (mut interpolated, mut across_teleport) = (0, 0);
    for frame in 0..=FPS * SECONDS {
        let now_ns = frame * NS / FPS;
        while let Some(&&(ms, steer)) = script.peek() {
            if ms * 1_000_000 > now_ns {
                break;
            }
            game.input(ms * 1_000_000, 0, input(steer)).unwrap();
            script.next();
        }
        let drawn = game.frame(now_ns);

        // Ticks run by `now`, and how far `now` is into the next one, exactly.
        let ticks = now_ns * RATE / NS;
        let alpha = (now_ns * RATE - ticks * NS) as f64 / NS as f64;
        let t = ticks as usize;
        assert_eq!(u64::from(drawn.info.total_ticks.0), ticks, "frame {frame}");
        let expected: [f64; 3] = if t == 0 || teleported[t] {
            positions[t]
        } else {
            let (a, b) = (positions[t - 1], positions[t]);
            [0, 1, 2].map(|i| a[i] + (b[i] - a[i]) * alpha)
        };
        for (axis, (&drew, &wanted)) in drawn.positions[0].iter().zip(&expected).enumerate() {
            assert!(
                close(drew, wanted),
                "frame {frame} at {now_ns} ns (tick {ticks}, alpha {alpha}), axis {axis}: drew \
                 {drew}, expected {wanted}",
            );
        }
        if t > 0 && alpha > 0.0 {
            let jump = (0..3)
                .map(|i| (positions[t][i] - positions[t - 1][i]).abs())
                .fold(0.0, f64::max);
            if teleported[t] && jump > 1.0 {
                across_teleport += 1;
            } else if jump > 0.0 {
                interpolated += 1;
            }
        }
    }
    // The run exercises both cases: frames between two moving states, and frames after a
    // respawn that moved the pogo metres (where interpolating would draw it mid-air).
    assert!(interpolated > 300, "{interpolated} interpolated frames");
    assert!(across_teleport >= 1, "no frame after a teleport");
    // The driver ran the same ticks with the same inputs as the direct stepping.
    assert_eq!(game.simulation().state_hash(), direct.final_hash);
}
