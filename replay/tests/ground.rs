//! `World::ground_below` (what a renderer's shadows ask: the highest surface under a point)
//! against the rule written out plainly over every solid, platform and ramp of each built-in
//! level: the broad phase's column must find what a scan of the whole level finds. Seeded;
//! the seed is printed, and `POGO_TEST_SEED=N` reruns one.

use pogo_core::world::{GROUND_RAMP_NY_MIN, World};
use pogo_core::{Fx, Ticks, Tuning, Vec3};
use pogo_replay::levels::{BUILTIN_LEVELS, builtin_level};

/// Points asked per level; a level of more than `BIG_LEVEL_SOLIDS` (sprawl) gets
/// `BIG_LEVEL_POINTS` (the scan of 102 401 boxes is the test's cost).
const POINTS: u32 = 3000;
const BIG_LEVEL_SOLIDS: usize = 10_000;
const BIG_LEVEL_POINTS: u32 = 200;

/// The rule, scanning everything: the highest top over (x, z) no higher than y + reach.
fn scanned(world: &World, point: Vec3, reach: Fx, tick: Ticks) -> Option<Fx> {
    let limit = point.y + reach;
    let over = |min: Vec3, max: Vec3| {
        point.x >= min.x && point.x <= max.x && point.z >= min.z && point.z <= max.z
    };
    let mut tops = Vec::new();
    for solid in &world.desc().solids {
        if over(solid.bounds.min, solid.bounds.max) {
            tops.push(solid.bounds.max.y);
        }
    }
    for i in 0..world.platform_count() {
        let b = world.platform_bounds(i, tick);
        if over(b.min, b.max) {
            tops.push(b.max.y);
        }
    }
    for i in 0..world.ramp_count() {
        let plane = world.ramp_plane(i);
        if let Some(b) = plane.bounds {
            let n = plane.normal;
            if over(b.min, b.max) && n.y.abs() > GROUND_RAMP_NY_MIN {
                let y = (plane.offset - n.x * point.x - n.z * point.z) / n.y;
                tops.push(y.clamp(b.min.y, b.max.y));
            }
        }
    }
    tops.into_iter().filter(|&t| t <= limit).max()
}

/// xorshift64*: a small seeded generator (the test needs no crate for it).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A value in [lo, hi] (raw units).
    fn within(&mut self, lo: Fx, hi: Fx) -> Fx {
        let span = (hi.to_bits() - lo.to_bits()).max(1) as u64;
        Fx::from_bits(lo.to_bits() + (self.next() % span) as i64)
    }
}

#[test]
fn the_ground_below_a_point_is_what_a_scan_of_the_level_finds() {
    let seed = std::env::var("POGO_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x9e37_79b9_7f4a_7c15_u64);
    println!("seed {seed} (POGO_TEST_SEED={seed} reruns it)");
    let mut rng = Rng(seed | 1);
    let reach = Fx::lit("0.1");
    for (name, _) in BUILTIN_LEVELS {
        let world = World::new(builtin_level(name).unwrap(), &Tuning::default()).unwrap();
        let solids = &world.desc().solids;
        // The level's extent, a little beyond.
        let (mut min, mut max) = (world.spawn(), world.spawn());
        for s in solids {
            min = Vec3::new(
                min.x.min(s.bounds.min.x),
                min.y.min(s.bounds.min.y),
                min.z.min(s.bounds.min.z),
            );
            max = Vec3::new(
                max.x.max(s.bounds.max.x),
                max.y.max(s.bounds.max.y),
                max.z.max(s.bounds.max.z),
            );
        }
        let margin = Fx::from_int(4);
        let points = if solids.len() > BIG_LEVEL_SOLIDS {
            BIG_LEVEL_POINTS
        } else {
            POINTS
        };
        let mut found = 0;
        for k in 0..points {
            // Half the points over a solid (its top, a little above or below), half anywhere.
            let point = if k % 2 == 0 && !solids.is_empty() {
                let s = &solids[(rng.next() % solids.len() as u64) as usize].bounds;
                let y = s.max.y + rng.within(Fx::from_int(-1), Fx::from_int(3));
                Vec3::new(
                    rng.within(s.min.x, s.max.x),
                    y,
                    rng.within(s.min.z, s.max.z),
                )
            } else {
                Vec3::new(
                    rng.within(min.x - margin, max.x + margin),
                    rng.within(min.y - margin, max.y + margin),
                    rng.within(min.z - margin, max.z + margin),
                )
            };
            let tick = Ticks((rng.next() % 100_000) as u32);
            let expected = scanned(&world, point, reach, tick);
            found += u32::from(expected.is_some());
            assert_eq!(
                world.ground_below(point, reach, tick),
                expected,
                "{name}: point {point:?} at tick {}, seed {seed}",
                tick.0
            );
        }
        // The points are not all in the air: most have ground under them.
        assert!(
            found > points / 3,
            "{name}: only {found} of {points} points had ground below"
        );
    }
}

#[test]
fn the_spawn_stands_over_ground_and_nothing_above_the_point_counts() {
    let world = World::new(builtin_level("flat").unwrap(), &Tuning::default()).unwrap();
    let spawn = world.spawn();
    let top = world
        .ground_below(spawn, Fx::ZERO, Ticks(0))
        .expect("ground under flat's spawn");
    assert!(top <= spawn.y);
    // Asked from just under that top, the same surface is out of reach, and what is found
    // (if anything) is lower.
    let under = Vec3::new(spawn.x, top - Fx::lit("0.2"), spawn.z);
    assert!(
        world
            .ground_below(under, Fx::lit("0.1"), Ticks(0))
            .is_none_or(|t| t < top)
    );
}
