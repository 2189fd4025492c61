//! `format::replay_bytes_max` holds the largest legal replay, for one player and for several,
//! and is tight: the worst case built as a real file (a chunk a tick, a hash a tick with the
//! longest varint, every player changing input every tick, the longest header strings).

use pogo_replay::format::{replay_bytes_max, tick_bytes_max};
use pogo_replay::{Header, InputChunk, Limits, Replay, Run, Trailer};

fn worst_case(ticks: u32, players: u8) -> Vec<u8> {
    let header = Header {
        rules_version: pogo_core::RULES_VERSION,
        tick_rate: 60,
        frac_bits: 32,
        level_name: "x".repeat(64),
        level_hash: u64::MAX,
        tuning_hash: u64::MAX,
        players,
        chunk_ticks: 1,
        hash_interval: 1,
        player_name: Some("y".repeat(32)),
        date: Some("2".repeat(32)),
    };
    let run = Run {
        length: 1,
        steer_x: -127,
        steer_z: 127,
        buttons: 3,
    };
    let chunks = (0..ticks)
        .map(|first_tick| InputChunk {
            first_tick,
            ticks: 1,
            runs: vec![vec![run]; usize::from(players)],
            hashes: vec![u64::MAX],
        })
        .collect();
    let replay = Replay {
        header,
        chunks,
        trailer: Trailer {
            ticks,
            finish: vec![Some(ticks - 1); usize::from(players)],
            final_hash: u64::MAX,
            file_check: 0,
        },
    };
    let bytes = replay.encode();
    let limits = Limits {
        ticks_max: ticks,
        player_ticks_max: u64::from(ticks) * u64::from(players),
        ..Limits::default()
    };
    Replay::decode(&bytes, limits).expect("the worst case is a legal replay");
    bytes
}

#[test]
fn the_bound_holds_the_largest_legal_replay_and_is_tight() {
    for players in [1, 3, 16] {
        for ticks in [1, 100, 3000] {
            let size = worst_case(ticks, players).len() as u64;
            let bound = replay_bytes_max(u64::from(ticks), players);
            assert!(
                size <= bound,
                "{players} players, {ticks} ticks: {size} > {bound}"
            );
        }
        // A worst-case tick's marginal cost, rounded up: within 3 bytes of the bound (a
        // `first_tick` below 2^14 takes 2 bytes of the 5 the bound allows any u32).
        let marginal = ((worst_case(3000, players).len() - worst_case(2000, players).len()) as u64)
            .div_ceil(1000);
        let per_tick = tick_bytes_max(players);
        assert!(
            marginal <= per_tick && marginal + 3 >= per_tick,
            "{players} players: a worst-case tick takes {marginal} bytes, the bound says {per_tick}"
        );
    }
}
