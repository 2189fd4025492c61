//! GGRS's own `SyncTestSession` as an external determinism oracle.
//!
//! Every frame GGRS saves the state, advances it, then loads the state of `distance` frames
//! ago and re-advances to the present, comparing the checksum (our state hash) of every
//! re-simulated frame with the first run's. The adapter fulfils those requests exactly as it
//! does in a real P2P session. Cases: every built-in level, check distances 2, 7 and GGRS's
//! largest, one to several players (player 0 the demo bot, the others seeded random
//! players), thousands of frames. Then the same suite over a simulation whose restore is
//! deliberately wrong must fail: the oracle can see a broken rollback.
//!
//! Seeds are printed; rerun one with `POGO_TEST_SEED=<seed>`.

use std::sync::{Arc, OnceLock};

use ggrs::{GgrsError, SessionBuilder};
use pogo_core::world::World;
use pogo_core::{Fx, Input, Simulation, Snapshot, Tuning};
use pogo_netplay::{Adapter, NetInput, Player, PogoConfig, RequestError, Rollback};

/// GGRS's largest check distance: it must stay below the prediction window, and a window
/// above 127 overflows GGRS's 128-frame input queue (a panic inside GGRS, found by trying).
const CHECK_DISTANCE_MAX: usize = 126;

/// The prediction window a check distance needs (GGRS: distance < window; default 8).
fn window_for(distance: usize) -> usize {
    (distance + 1).max(8)
}

/// Each built-in level's world, built once (sprawl's 102 401 boxes take a moment).
fn world(level: &str) -> Arc<World> {
    static WORLDS: [OnceLock<Arc<World>>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let index = ["flat", "course", "sprawl"]
        .iter()
        .position(|&l| l == level)
        .expect("a built-in level");
    WORLDS[index]
        .get_or_init(|| {
            let desc = pogo_replay::builtin_level(level).unwrap();
            Arc::new(World::new(desc, &Tuning::default()).unwrap())
        })
        .clone()
}

fn simulation(level: &str, players: usize) -> Simulation {
    Simulation::new(world(level), Tuning::default(), players).unwrap()
}

fn seed(test: &str, default: u64) -> u64 {
    let seed = std::env::var("POGO_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default);
    eprintln!("{test}: POGO_TEST_SEED={seed}");
    seed
}

/// Runs `frames` frames of a sync test over `rollback` with check distance `distance`: player
/// 0 is the demo bot, every other player a random player seeded `seed + player`.
fn sync_test<S: Rollback>(
    rollback: S,
    distance: usize,
    frames: u32,
    seed: u64,
) -> Result<Adapter<S>, GgrsError> {
    let players = rollback.simulation().state().pogos.len();
    let mut session = SessionBuilder::<PogoConfig>::new()
        .with_num_players(players)
        .and_then(|b| {
            b.with_max_prediction_window(window_for(distance))
                .with_check_distance(distance)
                .start_synctest_session()
        })?;
    let mut sources: Vec<Player> = (0..players)
        .map(|p| match p {
            0 => Player::bot(),
            _ => Player::random(seed.wrapping_add(p as u64)),
        })
        .collect();
    let mut adapter = Adapter::new(rollback);
    for _ in 0..frames {
        for (player, source) in sources.iter_mut().enumerate() {
            let input = source.input(adapter.simulation(), player);
            session.add_local_input(player, NetInput::from(input))?;
        }
        let requests = session.advance_frame()?;
        // A request that does not fit is an adapter bug, never a determinism failure.
        adapter
            .fulfil(requests)
            .unwrap_or_else(|e: RequestError| panic!("{e}"));
    }
    Ok(adapter)
}

/// The suite on one level: check distances 2, 7 and the largest, one to eight players.
fn suite_on(level: &str, default_seed: u64) {
    let seed = seed(&format!("sync_test {level}"), default_seed);
    for (distance, players, frames) in [
        (2, 1, 3000),
        (2, 8, 3000),
        (7, 2, 3000),
        (7, 4, 2000),
        (CHECK_DISTANCE_MAX, 2, 2000),
    ] {
        let adapter =
            sync_test(simulation(level, players), distance, frames, seed).unwrap_or_else(|e| {
                panic!("{level}, distance {distance}, {players} players, seed {seed}: {e:?}")
            });
        let stats = adapter.stats();
        // The oracle really rolled back: a load every frame once `distance` frames have run,
        // each re-running `distance` ticks.
        let expected_rollbacks = u64::from(frames) - distance as u64 - 1;
        assert_eq!(stats.rollbacks, expected_rollbacks, "{level} {distance}");
        assert_eq!(stats.longest_ticks as usize, distance);
        assert_eq!(
            stats.resimulated_ticks,
            expected_rollbacks * distance as u64
        );
        assert_eq!(adapter.simulation().state().tick.0, frames);
        eprintln!(
            "{level}: distance {distance}, {players} players, {frames} frames: \
             {} rollbacks, {} ticks re-simulated, no mismatch",
            stats.rollbacks, stats.resimulated_ticks
        );
    }
}

#[test]
fn sync_test_flat() {
    suite_on("flat", 1);
}

#[test]
fn sync_test_course() {
    suite_on("course", 2);
}

#[test]
fn sync_test_sprawl() {
    suite_on("sprawl", 3);
}

/// A simulation whose restore is off by one: every `every`-th restore nudges pogo 0 one
/// 2⁻³² m east, a bug as small as a rollback bug can be.
#[derive(Debug)]
struct NudgingRestore {
    sim: Simulation,
    every: u32,
    restores: u32,
}

impl Rollback for NudgingRestore {
    fn simulation(&self) -> &Simulation {
        &self.sim
    }
    fn snapshot(&self) -> Snapshot {
        self.sim.snapshot()
    }
    fn restore(&mut self, snapshot: &Snapshot) {
        self.sim.restore(snapshot);
        self.restores += 1;
        if self.restores.is_multiple_of(self.every) {
            let pogo = &mut self.sim.state_mut().pogos[0];
            pogo.position.x += Fx::from_bits(1);
        }
    }
    fn step(&mut self, inputs: &[Input]) {
        self.sim.step(inputs);
    }
}

#[test]
fn a_perturbed_restore_is_caught() {
    let seed = seed("a_perturbed_restore_is_caught", 4);
    for (level, distance, every) in [
        ("flat", 2, 1),
        ("course", 7, 50),
        ("sprawl", CHECK_DISTANCE_MAX, 7),
    ] {
        let broken = NudgingRestore {
            sim: simulation(level, 2),
            every,
            restores: 0,
        };
        match sync_test(broken, distance, 2000, seed) {
            Err(GgrsError::MismatchedChecksum {
                current_frame,
                mismatched_frames,
            }) => {
                assert!(!mismatched_frames.is_empty());
                // Caught on the first check after the first nudged restore.
                let first_nudge = distance as i32 + every as i32;
                assert!(
                    current_frame <= first_nudge + distance as i32 + 1,
                    "{level}: caught only at frame {current_frame}"
                );
                eprintln!(
                    "{level}: nudged restore caught at frame {current_frame}, \
                     frames {mismatched_frames:?}"
                );
            }
            other => panic!("{level}: a broken restore went unnoticed: {other:?}"),
        }
    }
    // The same wrapper with no nudge passes: the failure is the nudge, not the wrapper.
    let honest = NudgingRestore {
        sim: simulation("course", 2),
        every: u32::MAX,
        restores: 0,
    };
    sync_test(honest, 7, 500, seed).unwrap();
}
