//! The cost of a GGRS rollback of N ticks in pogo: what `Adapter::fulfil` does for the
//! requests GGRS sends when a remote input N ticks old turns out mispredicted — load the
//! snapshot of N ticks ago, then N times advance one tick (and save the state on the way, as
//! GGRS asks: N saves in all, the last one of the present frame).
//!
//! Setup, untimed: `course` with 2 or 8 players, every one a demo bot, played 600 ticks (the
//! pogos spread over the first sections); the next 128 ticks' inputs are recorded and the
//! state at tick 600 saved into a GGRS cell. An iteration fulfils one freshly built request
//! list (building it is untimed: `iter_batched`). Criterion's "thrpt" is re-simulated ticks
//! per second.
//!
//! `plain/players_P/N` is the same rollback without GGRS: `Simulation::restore` and N steps,
//! no cells, no saves — measured in the same run, so the ratio of the two is the adapter's
//! (and GGRS's saves') share, whatever the machine's load.
//!
//! `cargo bench --bench netplay`; `cargo test --benches` runs each once. PERFORMANCE.md
//! ("Netplay") turns the medians into the largest prediction window that fits a 60 Hz frame.

use std::sync::Arc;
use std::time::Duration;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use pogo::core::world::World;
use pogo::core::{Simulation, Tuning};
use pogo::netplay::ggrs::{GameStateCell, GgrsRequest, InputStatus};
use pogo::netplay::{Adapter, NetInput, Player, Requests};
use pogo::replay::builtin_level;

/// Ticks played before the rollback point.
const WARM_UP_TICKS: u32 = 600;
/// Rollback lengths measured (GGRS's default window is 8; its input queue allows 127).
const LENGTHS: [u32; 6] = [1, 2, 4, 8, 32, 127];

/// A simulation at the rollback point, the cell holding its snapshot, and the inputs of the
/// ticks after it.
struct Scenario {
    sim: Simulation,
    cell: GameStateCell<pogo::core::Snapshot>,
    inputs: Vec<Vec<NetInput>>,
}

fn scenario(players: usize) -> Scenario {
    let tuning = Tuning::default();
    let world = World::new(builtin_level("course").unwrap(), &tuning).unwrap();
    let mut sim = Simulation::new(Arc::new(world), tuning, players).unwrap();
    let mut bots: Vec<Player> = (0..players).map(|_| Player::bot()).collect();
    let mut next_inputs = |sim: &Simulation| -> Vec<NetInput> {
        let inputs = bots
            .iter_mut()
            .enumerate()
            .map(|(p, bot)| bot.input(sim, p));
        inputs.map(NetInput::from).collect()
    };
    for _ in 0..WARM_UP_TICKS {
        let inputs: Vec<_> = next_inputs(&sim).iter().map(|n| n.input()).collect();
        sim.step(&inputs);
    }
    let cell = GameStateCell::default();
    cell.save(
        WARM_UP_TICKS as i32,
        Some(sim.snapshot()),
        Some(u128::from(sim.state_hash())),
    );
    let mut ahead = sim.clone();
    let mut inputs = Vec::new();
    for _ in 0..LENGTHS[LENGTHS.len() - 1] {
        let tick_inputs = next_inputs(&ahead);
        let plain: Vec<_> = tick_inputs.iter().map(|n| n.input()).collect();
        ahead.step(&plain);
        inputs.push(tick_inputs);
    }
    Scenario { sim, cell, inputs }
}

/// The requests of a rollback of `n` ticks, as GGRS builds them (`adjust_gamestate`, then the
/// save of the present frame).
fn rollback_requests(scenario: &Scenario, n: u32) -> Requests {
    let start = WARM_UP_TICKS as i32;
    let mut requests: Requests = vec![GgrsRequest::LoadGameState {
        cell: scenario.cell.clone(),
        frame: start,
    }];
    for i in 0..n {
        if i > 0 {
            requests.push(GgrsRequest::SaveGameState {
                cell: GameStateCell::default(),
                frame: start + i as i32,
            });
        }
        let inputs = scenario.inputs[i as usize]
            .iter()
            .map(|&input| (input, InputStatus::Confirmed))
            .collect();
        requests.push(GgrsRequest::AdvanceFrame { inputs });
    }
    requests.push(GgrsRequest::SaveGameState {
        cell: GameStateCell::default(),
        frame: start + n as i32,
    });
    requests
}

fn rollback(c: &mut Criterion) {
    for players in [2, 8] {
        let scenario = scenario(players);
        let mut group = c.benchmark_group(format!("rollback/players_{players}"));
        group
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(3));
        for n in LENGTHS {
            let mut adapter = Adapter::new(scenario.sim.clone());
            // The request list must fit: check once, outside the timing.
            adapter.fulfil(rollback_requests(&scenario, n)).unwrap();
            group.throughput(Throughput::Elements(u64::from(n)));
            group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
                b.iter_batched(
                    || rollback_requests(&scenario, n),
                    |requests| adapter.fulfil(requests).unwrap(),
                    BatchSize::SmallInput,
                );
            });
        }
        group.finish();

        let mut group = c.benchmark_group(format!("plain/players_{players}"));
        group
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(3));
        let snapshot = scenario.cell.load().unwrap();
        let inputs: Vec<Vec<pogo::core::Input>> = scenario
            .inputs
            .iter()
            .map(|tick| tick.iter().map(|n| n.input()).collect())
            .collect();
        for n in LENGTHS {
            let mut sim = scenario.sim.clone();
            group.throughput(Throughput::Elements(u64::from(n)));
            group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
                b.iter(|| {
                    sim.restore(&snapshot);
                    for tick in &inputs[..n as usize] {
                        sim.step(tick);
                    }
                    sim.state().tick
                });
            });
        }
        group.finish();
    }
}

criterion_group!(benches, rollback);
criterion_main!(benches);
