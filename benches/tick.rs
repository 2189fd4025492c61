//! One tick of one pogo, with the demo bot's input, on `flat`, `course` and `sprawl`; and the
//! same per-tick work in f64 (`support/float.rs`), measured in the same run, for the cost of
//! fixed point as a ratio.
//!
//! Method: each level's bot run is recorded once before timing (`support::record`): its
//! inputs until the finish (course, sprawl) or for 3600 ticks (flat, no finish). A benchmark
//! iteration is one tick: the simulation steps through the recorded run with the recorded
//! inputs, continuing where the previous sample stopped, and is restored to tick 0 (untimed)
//! when the run ends. Over a sample of thousands of iterations every tick of the run is timed
//! about equally often, so the figure is the mean cost of a tick over the whole run — what a
//! verifier re-simulating that run pays per tick — and criterion's "time" is ns per tick, its
//! "thrpt" ticks per second.
//!
//! `scaling/sprawl_boxes/N` times the same run on `sprawl` cut down to N boxes: the cost of a
//! tick against the level's size, all else equal.
//!
//! `cargo bench --bench tick` (all), `cargo bench --bench tick -- course` (one level);
//! `cargo test --benches` runs each once as a smoke test. Before timing it prints each run's
//! length and how closely the f64 run follows the fixed-point one. See PERFORMANCE.md.

mod support;

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

use support::float::{FTuning, FWorld};
use support::{Cursor, FloatCursor, Recorded};

fn describe(run: &Recorded, world: &FWorld, tuning: &FTuning) {
    let t = support::tracking(run, world, tuning);
    let tick = |t: Option<usize>| t.map_or("never".to_string(), |t| t.to_string());
    let finish = |t: Option<u32>| t.map_or("no finish".to_string(), |t| format!("finish at {t}"));
    eprintln!(
        "{}: {} ticks recorded ({}), {} boxes; fixed {} bounces, {}; \
         f64 {} bounces, {}; f64 leaves the fixed path by 1 mm at tick {}, \
         1 cm at {}, 10 cm at {}; compression ticks fixed {} / f64 {}",
        run.level,
        run.inputs.len(),
        finish(run.finish_tick),
        run.sim.world().desc().solids.len(),
        t.fixed_bounces,
        finish(t.fixed_finish),
        t.float_bounces,
        finish(t.float_finish),
        tick(t.diverges_1mm),
        tick(t.diverges_1cm),
        tick(t.diverges_10cm),
        t.fixed_compression_ticks,
        t.float_compression_ticks,
    );
}

fn ticks(c: &mut Criterion) {
    let runs = support::record_selected();
    let floats: Vec<(FWorld, FTuning)> = runs
        .iter()
        .map(|run| {
            let tuning = run.sim.tuning();
            (
                FWorld::new(run.sim.world(), tuning.spec().tick_rate),
                FTuning::new(tuning),
            )
        })
        .collect();
    for (run, (world, tuning)) in runs.iter().zip(&floats) {
        describe(run, world, tuning);
    }

    let mut group = c.benchmark_group("tick");
    group.throughput(Throughput::Elements(1));
    group.warm_up_time(Duration::from_secs(2));
    group.measurement_time(Duration::from_secs(5));
    // Fixed and f64 of one level back to back, so their ratio sees the same machine load.
    for (run, (world, tuning)) in runs.iter().zip(&floats) {
        let mut cursor = Cursor::new(run);
        group.bench_function(BenchmarkId::new("fixed", &run.level), |b| {
            b.iter_custom(|iters| cursor.step_timed(iters))
        });
        let mut cursor = FloatCursor::new(run, world, tuning);
        group.bench_function(BenchmarkId::new("f64", &run.level), |b| {
            b.iter_custom(|iters| cursor.step_timed(iters))
        });
    }
    group.finish();
}

/// Half-widths (m) of the bands of `sprawl` kept for the scaling benchmark: 4, 20 and 80 of
/// its 320 pillar rows around the bot's street, and all of them.
const BANDS: &[i32] = &[15, 95, 395, 1600];

/// The cost of a tick against the number of boxes, all else equal: `sprawl` cut down to a
/// band of pillar rows around the street the bot runs along (the ground slab, and so the
/// level's extent and the grid's cells, stay the same). The bot's run is the same in every
/// band (checked: the same final state hash), so only the level's size differs.
fn scaling(c: &mut Criterion) {
    if !support::level_named()("scaling") && std::env::args().skip(1).any(|a| !a.starts_with('-')) {
        return; // a filter for other benchmarks: skip the set-up
    }
    let full = support::record("sprawl", 20_000);
    let mut group = c.benchmark_group("scaling");
    group.throughput(Throughput::Elements(1));
    group.warm_up_time(Duration::from_secs(2));
    group.measurement_time(Duration::from_secs(5));
    for &band in BANDS {
        let mut desc = pogo::replay::builtin_level("sprawl").expect("built-in");
        let half = pogo::core::Fx::from_int(band);
        let ground = desc.solids[0];
        desc.solids
            .retain(|s| *s == ground || (s.bounds.max.z >= -half && s.bounds.min.z <= half));
        let boxes = desc.solids.len();
        let run = support::record_in(
            format!("sprawl-band-{band}"),
            support::simulation_of(desc),
            20_000,
        );
        assert_eq!(run.end_hash, full.end_hash, "band {band}: another run");
        let mut cursor = Cursor::new(&run);
        group.bench_function(BenchmarkId::new("sprawl_boxes", boxes), |b| {
            b.iter_custom(|iters| cursor.step_timed(iters))
        });
    }
    group.finish();
}

criterion_group!(benches, ticks, scaling);
criterion_main!(benches);
