//! The pieces of a tick and of rollback, one at a time: the launch function, contact
//! classification, the state hash, snapshot and restore, the square root; and preparing a level
//! (`World::new`, once per level per process: validation, the grids, the platform paths).
//!
//! Inputs are fixed, varied sets (64 landings, 64 contacts covering every verdict; states from
//! a bot run on `course`), cycled through so that branch prediction sees a realistic mix rather
//! than one case. `cargo bench --bench rules`; `cargo test --benches` runs each once.

mod support;

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

use pogo::core::bot::Bot;
use pogo::core::contact::{self, Contact};
use pogo::core::launch::{self, Landing};
use pogo::core::world::World;
use pogo::core::{Fx, Lean, Simulation, Ticks, Tuning, Vec3};
use pogo::replay::builtin_level;
use support::float::{self, FTuning, V3};

/// SplitMix64: a deterministic stream for the input sets.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [−scale, scale], in steps of 2⁻¹⁶.
    fn fx(&mut self, scale: i32) -> Fx {
        let unit = Fx::from_bits(((self.next() >> 31) as i64 & 0x1_ffff_ffff) - (1 << 32));
        unit * Fx::from_int(scale)
    }

    fn vec(&mut self, scale: i32) -> Vec3 {
        Vec3::new(self.fx(scale), self.fx(scale), self.fx(scale))
    }
}

const CASES: usize = 64;

/// Landings as the tick makes them: mostly upward normals (ground, ramps, edges), a lean within
/// the default 25°, falling velocities, a platform's velocity now and then, small combos.
fn landings() -> Vec<Landing> {
    let mut rng = Rng(0x6c61_756e);
    (0..CASES)
        .map(|i| {
            let mut normal = rng.vec(1);
            normal.y = normal.y.abs() + Fx::HALF;
            let lean = Lean {
                x: rng.fx(1) * Fx::lit("0.3"),
                z: rng.fx(1) * Fx::lit("0.3"),
            };
            let mut velocity = rng.vec(10);
            velocity.y = -velocity.y.abs() - Fx::from_int(4);
            Landing {
                normal: normal.normalize_or(Vec3::UP),
                lean_up: lean.up(),
                velocity,
                surface_velocity: if i % 4 == 0 { rng.vec(3) } else { Vec3::ZERO },
                combo: (rng.next() % 7) as u32,
            }
        })
        .collect()
}

/// Contacts reaching every verdict: bounce, ricochet, body hit with and without stun, and
/// each reason to ignore.
fn contacts() -> Vec<Contact> {
    let mut rng = Rng(0x636f_6e74);
    (0..CASES)
        .map(|_| Contact {
            height_on_body: if rng.next() % 4 == 0 {
                rng.fx(1).abs() + Fx::HALF
            } else {
                rng.fx(1).abs() * Fx::lit("0.3")
            },
            no_bounce: rng.next() % 8 == 0,
            normal_speed: rng.fx(10) - Fx::from_int(3),
            normal_y: rng.fx(1).abs(),
            since_launch: Ticks((rng.next() % 40) as u32),
            age: Ticks((rng.next() % 4) as u32),
        })
        .collect()
}

fn launch_and_contacts(c: &mut Criterion) {
    let tuning = Tuning::default();
    let ftuning = FTuning::new(&tuning);
    let landings = landings();
    let flandings: Vec<_> = landings
        .iter()
        .map(|l| {
            (
                V3::from_fixed(l.normal),
                V3::from_fixed(l.lean_up),
                V3::from_fixed(l.velocity),
                V3::from_fixed(l.surface_velocity),
                l.combo,
            )
        })
        .collect();
    let contacts = contacts();

    let mut group = c.benchmark_group("launch");
    group.throughput(Throughput::Elements(1));
    let mut i = 0;
    group.bench_function("compute", |b| {
        b.iter(|| {
            i = (i + 1) % CASES;
            launch::compute(black_box(&landings[i]), &tuning)
        })
    });
    let mut i = 0;
    group.bench_function("compute_f64", |b| {
        b.iter(|| {
            i = (i + 1) % CASES;
            let (n, lean, v, sv, combo) = black_box(flandings[i]);
            float::launch(n, lean, v, sv, combo, &ftuning)
        })
    });
    group.finish();

    let mut group = c.benchmark_group("contact");
    group.throughput(Throughput::Elements(1));
    let mut i = 0;
    group.bench_function("classify", |b| {
        b.iter(|| {
            i = (i + 1) % CASES;
            contact::classify(black_box(&contacts[i]), &tuning)
        })
    });
    group.finish();
}

/// A simulation of `players` pogos on `course`, each following its own bot for 1000 ticks
/// (mid-course: compressions, tip memories, checkpoints and launches all set somewhere).
fn mid_run(players: usize) -> Simulation {
    let mut sim = support::simulation("course");
    sim = Simulation::new(sim.world().clone(), sim.tuning().clone(), players).unwrap();
    let mut bots = vec![Bot::new(); players];
    for _ in 0..1000 {
        let inputs: Vec<_> = (0..players)
            .map(|p| bots[p].input(sim.world(), sim.tuning(), &sim.state().pogos[p]))
            .collect();
        sim.step(&inputs);
    }
    sim
}

fn state(c: &mut Criterion) {
    let mut group = c.benchmark_group("state");
    group.measurement_time(Duration::from_secs(3));
    for players in [1, 16] {
        let mut sim = mid_run(players);
        group.bench_function(BenchmarkId::new("hash", players), |b| {
            b.iter(|| black_box(&sim).state_hash())
        });
        group.bench_function(BenchmarkId::new("snapshot", players), |b| {
            b.iter(|| black_box(&sim).snapshot())
        });
        let snapshot = sim.snapshot();
        group.bench_function(BenchmarkId::new("restore", players), |b| {
            b.iter(|| black_box(&mut sim).restore(black_box(&snapshot)))
        });
    }
    group.finish();
}

/// `World::new` on each built-in level (the level description is cloned outside the timing).
fn world(c: &mut Criterion) {
    let mut group = c.benchmark_group("world_new");
    group.measurement_time(Duration::from_secs(3));
    let tuning = Tuning::default();
    for level in ["flat", "course", "sprawl"] {
        let desc = builtin_level(level).expect("a built-in level");
        if level == "sprawl" {
            group.sample_size(10);
        }
        group.bench_function(level, |b| {
            b.iter_batched(
                || desc.clone(),
                |desc| World::new(desc, &tuning).expect("valid"),
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

/// `Fx::sqrt` below one, as the lean asks for it (the up axis's height, √(1 − |h|²), with
/// |h| at most sin 25°: operands in [0.82, 1)), and from one to 2²⁰ (the 128-bit root). Each
/// operand's lowest bit is the last root's, so every root waits for the one before: the
/// figure is a root's latency, which is what the tick's chain of dependent arithmetic pays.
fn sqrt(c: &mut Criterion) {
    let mut rng = Rng(0x7371_7274);
    let below_one: Vec<Fx> = (0..CASES)
        .map(|_| Fx::from_bits((0xd1c0_0000 + rng.next() % 0x2e40_0000) as i64))
        .collect();
    let above_one: Vec<Fx> = (0..CASES)
        .map(|_| Fx::from_bits((1 << 32) + (rng.next() >> 12) as i64))
        .collect();
    let mut group = c.benchmark_group("sqrt");
    group.throughput(Throughput::Elements(1));
    group.measurement_time(Duration::from_secs(3));
    for (name, operands) in [("below_one", below_one), ("above_one", above_one)] {
        let (mut i, mut last) = (0, Fx::ZERO);
        group.bench_function(name, |b| {
            b.iter(|| {
                i = (i + 1) % CASES;
                let x = Fx::from_bits(operands[i].to_bits() ^ (last.to_bits() & 1));
                last = black_box(x).sqrt();
                last
            })
        });
    }
    group.finish();
}

criterion_group!(benches, launch_and_contacts, state, world, sqrt);
criterion_main!(benches);
