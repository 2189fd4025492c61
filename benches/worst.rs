//! What a tick costs when someone wants it to be expensive, against what it costs the bot on
//! `course` (the mean), in the same run: the verifier's player-tick budget is only as good as
//! the worst case it is multiplied by.
//!
//! - `players/course/N`: N pogos (N = 1, 2, 8, 16), each driven by its own bot, all starting
//!   on the same spot; criterion's throughput is pogo-ticks, so `thrpt` compares the cost per
//!   pogo across player counts.
//! - `worst/sprawl_diagonal`: one pogo holding the stick diagonally into `sprawl`'s pillars
//!   for a minute.
//! - `worst/dense`: a level built to every density limit of `World::new` at once, around the
//!   spawn: each 2 m grid cell of a 40 m floor holds `CELL_BOXES_MAX` coincident floor slabs,
//!   plus `LARGE_BOXES_MAX` huge slabs, `SURFACES_MAX` ramps and `SURFACES_MAX` platforms all
//!   coincident with the floor, and as many trigger zones covering the area as the volume
//!   grid allows; the pogo dives and steers diagonally over it for a minute. (The level of
//!   100 000 boxes at the spawn that cost 6.7 ms a tick is refused by `World::new` now.)
//! - `worst/mean`: the bot on `course`, the reference (the same as `tick/fixed/course`).
//!
//! Each iteration is one tick of the whole simulation (all its pogos), replaying inputs
//! recorded before timing, as `tick.rs` does. `cargo bench --bench worst`.

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

use pogo::core::bot::Bot;
use pogo::core::world::{
    Aabb, CELL_BOXES_MAX, LARGE_BOXES_MAX, Path, Platform, Ramp, SURFACES_MAX, Solid, World,
    WorldDesc, Zone,
};
use pogo::core::{Buttons, Fx, Input, Simulation, Snapshot, Tuning, Vec3};
use pogo::replay::builtin_level;

/// A run recorded before timing: the simulation at tick 0 and every tick's inputs.
struct Run {
    sim: Simulation,
    start: Snapshot,
    inputs: Vec<Vec<Input>>,
}

impl Run {
    /// `ticks` ticks of `sim`, each player's input from `input(tick, player, sim)`.
    fn record(
        mut sim: Simulation,
        ticks: u32,
        mut input: impl FnMut(u32, usize, &Simulation) -> Input,
    ) -> Run {
        let start = sim.snapshot();
        let players = sim.state().pogos.len();
        let mut inputs = Vec::new();
        for t in 0..ticks {
            let tick: Vec<Input> = (0..players).map(|p| input(t, p, &sim)).collect();
            sim.step(&tick);
            inputs.push(tick);
        }
        sim.restore(&start);
        Run { sim, start, inputs }
    }

    /// Steps `n` ticks, going back to tick 0 at the end of the run (untimed).
    fn step_timed(&mut self, next: &mut usize, mut n: u64) -> Duration {
        let mut total = Duration::ZERO;
        while n > 0 {
            if *next == self.inputs.len() {
                self.sim.restore(&self.start);
                *next = 0;
            }
            let chunk = (self.inputs.len() - *next).min(n as usize);
            let started = Instant::now();
            for inputs in &self.inputs[*next..*next + chunk] {
                self.sim.step(inputs);
            }
            total += started.elapsed();
            *next += chunk;
            n -= chunk as u64;
        }
        total
    }
}

fn simulation(desc: WorldDesc, players: usize) -> Simulation {
    let tuning = Tuning::default();
    let world = World::new(desc, &tuning).expect("a valid level");
    Simulation::new(Arc::new(world), tuning, players).expect("players")
}

/// Every player driven by its own bot until all finish (or `max` ticks).
fn bots(level: &str, players: usize, max: u32) -> Run {
    let sim = simulation(builtin_level(level).expect("built-in"), players);
    let mut bots = vec![Bot::new(); players];
    let mut run = Run::record(sim, max, |_, p, sim| {
        bots[p].input(sim.world(), sim.tuning(), &sim.state().pogos[p])
    });
    // Cut the run where every pogo has finished: finished pogos cost nothing.
    let mut probe = run.sim.clone();
    let end = run
        .inputs
        .iter()
        .position(|inputs| {
            probe.step(inputs);
            probe.state().pogos.iter().all(|p| p.finish_tick.is_some())
        })
        .map_or(run.inputs.len(), |t| t + 1);
    run.inputs.truncate(end);
    run
}

const DIAGONAL: Input = Input {
    steer_x: 127,
    steer_z: 127,
    buttons: Buttons::NONE,
};

fn v(x: i32, y: i32, z: i32) -> Vec3 {
    Vec3::new(Fx::from_int(x), Fx::from_int(y), Fx::from_int(z))
}

/// The level of `worst/dense` (see the module docs). The floor's top is y = 0.
fn dense_level() -> WorldDesc {
    let slab = Fx::lit("0.1");
    let floor = |min: Vec3, max: Vec3| Solid {
        bounds: Aabb::new(min, max),
        no_bounce: false,
    };
    let mut solids = Vec::new();
    // 20 × 20 cells of 2 m, each with CELL_BOXES_MAX coincident slabs filling it exactly
    // (a slab's box ends on the next cell's boundary, which counts as touching it, so each
    // slab is shrunk by a hair to stay in its own cell).
    let hair = Fx::from_bits(1 << 20);
    for i in -10..10 {
        for j in -10..10 {
            let min = Vec3::new(Fx::from_int(2 * i), -slab, Fx::from_int(2 * j));
            let max = Vec3::new(
                Fx::from_int(2 * i + 2) - hair,
                Fx::ZERO,
                Fx::from_int(2 * j + 2) - hair,
            );
            for _ in 0..CELL_BOXES_MAX {
                solids.push(floor(min, max));
            }
        }
    }
    // The large slabs: huge, coincident with the floor's top.
    for _ in 0..LARGE_BOXES_MAX {
        solids.push(floor(v(-500, -1, -500), v(500, 0, 500)));
    }
    let area = Aabb::new(v(-20, -1, -20), v(20, 0, 20));
    let ramps = (0..SURFACES_MAX)
        .map(|_| Ramp {
            normal: Vec3::UP,
            point: Vec3::ZERO,
            bounds: Some(area),
            no_bounce: false,
        })
        .collect();
    let platforms = (0..SURFACES_MAX)
        .map(|_| Platform {
            size: v(40, 1, 40),
            path: Path::PingPong {
                from: v(-20, -1, -20),
                to: v(-20, -1, -20),
                period: Fx::from_int(10),
            },
            no_bounce: false,
        })
        .collect();
    // Zones covering the play area, as many as the volume grid allows: CELL_BOXES_MAX in its
    // cells, and huge ones in its large list beside the kill box.
    let zone = |bounds| Zone {
        bounds,
        gravity_scale: Fx::ONE,
        wind: Vec3::ZERO,
    };
    let mut zones: Vec<Zone> = (0..CELL_BOXES_MAX)
        .map(|_| zone(Aabb::new(v(-20, -1, -20), v(20, 30, 20))))
        .collect();
    zones.extend(
        (1..LARGE_BOXES_MAX).map(|_| zone(Aabb::new(v(-2000, -1, -2000), v(2000, 60, 2000)))),
    );
    WorldDesc {
        name: "dense".into(),
        spawn: v(0, 2, 0),
        solids,
        ramps,
        platforms,
        zones,
        kills: vec![Aabb::new(v(-5000, -200, -5000), v(5000, -100, 5000))],
        ..WorldDesc::default()
    }
}

fn worst(c: &mut Criterion) {
    let mut group = c.benchmark_group("players");
    group.warm_up_time(Duration::from_secs(2));
    group.measurement_time(Duration::from_secs(5));
    for players in [1usize, 2, 8, 16] {
        let mut run = bots("course", players, 20_000);
        group.throughput(Throughput::Elements(players as u64));
        let mut next = 0;
        group.bench_function(BenchmarkId::new("course", players), |b| {
            b.iter_custom(|iters| run.step_timed(&mut next, iters))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("worst");
    group.throughput(Throughput::Elements(1));
    group.warm_up_time(Duration::from_secs(2));
    group.measurement_time(Duration::from_secs(5));
    let sprawl = simulation(builtin_level("sprawl").expect("built-in"), 1);
    let dive = Input {
        buttons: Buttons::DIVE,
        ..DIAGONAL
    };
    let runs = [
        (
            "sprawl_diagonal",
            Run::record(sprawl, 3600, |_, _, _| DIAGONAL),
        ),
        (
            "dense",
            Run::record(simulation(dense_level(), 1), 3600, |t, _, _| {
                if t % 120 < 60 { dive } else { DIAGONAL }
            }),
        ),
        ("mean", bots("course", 1, 20_000)),
    ];
    for (name, mut run) in runs {
        let mut next = 0;
        group.bench_function(name, |b| {
            b.iter_custom(|iters| run.step_timed(&mut next, iters))
        });
    }
    group.finish();
}

criterion_group!(benches, worst);
criterion_main!(benches);
