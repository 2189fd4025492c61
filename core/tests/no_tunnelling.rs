//! No tunnelling: drops and throws at every speed the state allows, at many angles and
//! sub-tick offsets, onto a 5 cm slab and its edges. After every tick the capsule must not
//! overlap the slab, and it must never have passed through it.

use std::sync::Arc;

use pogo_core::sweep::depenetrate_box;
use pogo_core::world::{Aabb, Solid, World, WorldDesc};
use pogo_core::{Fx, Input, Pogo, SPEED_MAX, Simulation, State, Tuning, Vec3, capsule};

mod support;
use support::{SplitMix, seed};

const TRIALS: u32 = 3000;

#[test]
fn capsule_never_ends_a_tick_inside_or_beyond_a_thin_slab() {
    let mut rng = SplitMix(seed("no_tunnelling", 0x5eed_0005));
    let tuning = Tuning::default();
    let body = capsule(&tuning);
    let slab = Aabb::new(
        Vec3::new(Fx::from_int(-1), Fx::lit("-0.05"), Fx::from_int(-1)),
        Vec3::new(Fx::from_int(1), Fx::ZERO, Fx::from_int(1)),
    );
    let desc = WorldDesc {
        name: "slab".into(),
        solids: vec![Solid {
            bounds: slab,
            no_bounce: false,
        }],
        ..WorldDesc::default()
    };
    let world = Arc::new(World::new(desc, &tuning).unwrap());
    let mut sim = Simulation::new(world, tuning, 1).unwrap();
    let r = body.radius;
    for trial in 0..TRIALS {
        // Start above the slab: over its middle, or within a radius of an edge or corner.
        let near_edge = trial % 2 == 1;
        let spread = if near_edge { 2 } else { 1 };
        let start = Vec3::new(
            rng.fx(spread),
            Fx::lit("0.001") + rng.fx_positive(6),
            rng.fx(spread),
        );
        // Any direction with a downward part, at up to SPEED_MAX (far beyond the caps).
        let dir = Vec3::new(
            rng.fx(1),
            -(Fx::lit("0.05") + rng.fx_positive(1)),
            rng.fx(1),
        );
        let speed = rng.fx_positive(SPEED_MAX.round_to_int());
        let velocity = dir.normalize().unwrap() * speed;
        let p = &mut sim.state_mut().pogos[0];
        *p = Pogo {
            state: State::Airborne,
            position: start,
            velocity,
            ..Pogo::new(start)
        };
        let mut was_above = true;
        for tick in 0..20 {
            sim.step(&[Input::default()]);
            let p = &sim.state().pogos[0];
            let tip = p.position;
            assert!(
                depenetrate_box(&body, tip, &slab).is_none(),
                "trial {trial} tick {tick}: inside the slab at {tip:?}, started {start:?} v {velocity:?}"
            );
            let over_footprint = tip.x.abs() < Fx::ONE + r && tip.z.abs() < Fx::ONE + r;
            let below = tip.y + body.height < slab.min.y;
            assert!(
                !(was_above && below && over_footprint),
                "trial {trial} tick {tick}: passed through to {tip:?}, started {start:?} v {velocity:?}"
            );
            was_above = tip.y >= slab.max.y;
            if p.state == State::Respawn {
                break;
            }
        }
    }
}
