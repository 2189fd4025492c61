//! What a verification costs is bounded by the verifier's `Limits`, not by what a file claims.
//!
//! The file that started it: 16 players on `sprawl` for 864 000 ticks (4 hours, the old tick
//! limit), every player holding the stick diagonally, no state hashes (`hash_interval`
//! `u32::MAX`) and a made-up final hash: 167 KB that cost 28 s of CPU before the last tick
//! showed the forgery. Each test prints what the verification cost.

use std::sync::Arc;
use std::time::Instant;

use pogo_core::world::World;
use pogo_core::{Input, Simulation, Tuning};
use pogo_replay::format::Run;
use pogo_replay::{
    Header, InputChunk, Limits, Replay, ReplayError, Trailer, Verifier, VerifyError, builtin_level,
};

const PLAYERS: usize = 16;
const TICKS: u32 = 864_000;
/// Ticks per input chunk: the format's largest (10 s), which makes the file 167 KB.
const CHUNK_TICKS: u32 = 600;

/// Every player's input: the stick held diagonally, into `sprawl`'s pillars.
const DIAGONAL: Input = Input {
    steer_x: 127,
    steer_z: 127,
    buttons: pogo_core::Buttons::NONE,
};

fn simulation() -> Simulation {
    let tuning = Tuning::default();
    let world = World::new(builtin_level("sprawl").unwrap(), &tuning).unwrap();
    Simulation::new(Arc::new(world), tuning, PLAYERS).unwrap()
}

/// The cheater's file with the given hash interval, the state hash after each hashed tick
/// from `hash(tick)` (called in tick order), and a made-up outcome.
fn forged(hash_interval: u32, mut hash: impl FnMut(u32) -> u64) -> Vec<u8> {
    let sim = simulation();
    let header = Header {
        hash_interval,
        chunk_ticks: CHUNK_TICKS,
        ..Header::for_simulation(&sim, Some("cheater".into()), None)
    };
    let run = Run {
        length: CHUNK_TICKS,
        steer_x: DIAGONAL.steer_x,
        steer_z: DIAGONAL.steer_z,
        buttons: DIAGONAL.buttons.0,
    };
    let chunks = (0..TICKS / CHUNK_TICKS)
        .map(|c| {
            let first_tick = c * CHUNK_TICKS;
            let hashes = (first_tick..first_tick + CHUNK_TICKS)
                .filter(|t| (u64::from(*t) + 1) % u64::from(hash_interval) == 0)
                .map(&mut hash)
                .collect();
            InputChunk {
                first_tick,
                ticks: CHUNK_TICKS,
                runs: vec![vec![run]; PLAYERS],
                hashes,
            }
        })
        .collect();
    let trailer = Trailer {
        ticks: TICKS,
        finish: vec![None; PLAYERS],
        final_hash: 0x0123_4567_89ab_cdef,
        file_check: 0, // Replay::encode computes it
    };
    Replay {
        header,
        chunks,
        trailer,
    }
    .encode()
}

/// Honest state hashes up to tick `honest_until` (by simulating the file's inputs), then
/// made-up ones that are never reached.
fn honest_until(honest_until: u32) -> impl FnMut(u32) -> u64 {
    let mut sim = simulation();
    let inputs = [DIAGONAL; PLAYERS];
    move |tick| {
        if tick >= honest_until {
            return 0;
        }
        while sim.state().tick.0 <= tick {
            sim.step(&inputs);
        }
        sim.state_hash()
    }
}

/// Verifies `bytes` with `limits`: the outcome, the ticks simulated and the wall time (one
/// thread, so about the CPU time).
fn verify(bytes: &[u8], limits: Limits) -> (Result<(), VerifyError>, u32, f64) {
    let verifier = Verifier::with_builtin_levels(Tuning::default(), limits);
    verifier.world("sprawl"); // built before the clock starts: once per process on a server
    let mut ticks = 0;
    let started = Instant::now();
    let result = verifier.verify_with(bytes, |_| ticks += 1).map(|_| ());
    (result, ticks, started.elapsed().as_secs_f64())
}

#[test]
fn the_file_without_hashes_is_refused_before_anything_is_simulated() {
    let bytes = forged(u32::MAX, |_| 0);
    let (result, ticks, seconds) = verify(&bytes, Limits::default());
    eprintln!(
        "{} bytes, hash_interval u32::MAX: {result:?} after {ticks} ticks, {seconds:.4} s",
        bytes.len()
    );
    assert!((150_000..200_000).contains(&bytes.len()), "{}", bytes.len());
    assert_eq!(
        result,
        Err(VerifyError::Replay(ReplayError::Malformed {
            offset: 10,
            what: "hash_interval longer than 10 seconds of play",
        }))
    );
    assert_eq!(ticks, 0);
}

#[test]
fn made_up_hashes_are_caught_within_the_hash_interval() {
    // A hash every second (what the verifier asks for by default): caught at tick 59.
    let bytes = forged(60, |_| 0);
    let (result, ticks, seconds) = verify(&bytes, Limits::default());
    eprintln!("hash every 60 ticks: {result:?} after {ticks} ticks, {seconds:.4} s");
    assert!(matches!(result, Err(VerifyError::Desync { tick, .. }) if tick.0 == 59));
    assert_eq!(ticks, 60);

    // A hash every 10 s is all the format allows; the default verifier refuses it unread,
    // one that allows it catches the forgery at tick 599.
    let bytes = forged(600, |_| 0);
    let (result, ticks, _) = verify(&bytes, Limits::default());
    assert_eq!(
        result,
        Err(VerifyError::Replay(ReplayError::SparseHashes {
            hash_interval: 600,
            max: 60
        }))
    );
    assert_eq!(ticks, 0);
    let relaxed = Limits {
        hash_interval_s_max: 10,
        ..Limits::default()
    };
    let (result, ticks, seconds) = verify(&bytes, relaxed);
    eprintln!("hash every 600 ticks: {result:?} after {ticks} ticks, {seconds:.4} s");
    assert!(matches!(result, Err(VerifyError::Desync { tick, .. }) if tick.0 == 599));
    assert_eq!(ticks, 600);
}

#[test]
fn honest_hashes_are_refused_at_the_budget_it_sets() {
    // The operator's budget: 1 200 ticks of 16 players. The file's chunks claim 600 ticks
    // each: two are simulated, the third would exceed the budget and is refused unsimulated.
    let budget = Limits {
        player_ticks_max: 1200 * PLAYERS as u64,
        ..Limits::default()
    };
    let bytes = forged(60, honest_until(2400));
    let (result, ticks, seconds) = verify(&bytes, budget);
    eprintln!("budget 19 200 player-ticks: {result:?} after {ticks} ticks, {seconds:.3} s");
    assert_eq!(
        result,
        Err(VerifyError::OverBudget {
            player_ticks_max: 19_200,
            players: 16
        })
    );
    assert_eq!(ticks, 1200);
    // The same file and a larger budget: simulated further, refused later.
    let (result, ticks, _) = verify(
        &bytes,
        Limits {
            player_ticks_max: 1800 * PLAYERS as u64,
            ..Limits::default()
        },
    );
    assert!(matches!(result, Err(VerifyError::OverBudget { .. })));
    assert_eq!(ticks, 1800);
}

/// The default budget against the whole file with honest hashes: 864 000 player-ticks, so
/// 54 000 ticks of 16 players, then refused. Release only (debug builds simulate about ten
/// times slower; CI runs the release tests too): on the development VM this takes about
/// 0.3 s, the figure PERFORMANCE.md quotes.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "release only: simulates 864 000 player-ticks twice"
)]
fn the_default_budget_bounds_an_honest_16_player_file() {
    let limits = Limits::default();
    let bytes = forged(60, honest_until(54_000 + 600));
    let (result, ticks, seconds) = verify(&bytes, limits);
    eprintln!("default budget: {result:?} after {ticks} ticks, {seconds:.3} s");
    assert_eq!(
        result,
        Err(VerifyError::OverBudget {
            player_ticks_max: 864_000,
            players: 16
        })
    );
    assert_eq!(ticks, 54_000);
}
