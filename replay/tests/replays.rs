//! Replays end to end: record → verify, canonical re-encoding, hostile bytes, desyncs.

use std::sync::Arc;
use std::time::{Duration, Instant};

use pogo_core::bot::Bot;
use pogo_core::world::World;
use pogo_core::{Input, Simulation, Ticks, Tuning};
use pogo_replay::{
    Header, Limits, Recorder, Replay, ReplayError, Verifier, VerifyError, builtin_level,
};

fn simulation(level: &str, players: usize) -> Simulation {
    let tuning = Tuning::default();
    let world = World::new(builtin_level(level).unwrap(), &tuning).unwrap();
    Simulation::new(Arc::new(world), tuning, players).unwrap()
}

/// Records a bot run (every player a bot) of at most `ticks` ticks, stopping when all finish.
fn record_bot(level: &str, players: usize, ticks: u32) -> Vec<u8> {
    let mut sim = simulation(level, players);
    let header = Header::for_simulation(&sim, Some("bot".into()), Some("2026-11-29".into()));
    let mut recorder = Recorder::new(Vec::new(), header).unwrap();
    let mut bots = vec![Bot::new(); players];
    for _ in 0..ticks {
        let inputs: Vec<Input> = (0..players)
            .map(|p| bots[p].input(sim.world(), sim.tuning(), &sim.state().pogos[p]))
            .collect();
        sim.step(&inputs);
        recorder.record(&inputs, || sim.state_hash()).unwrap();
        if sim.state().pogos.iter().all(|p| p.finish_tick.is_some()) {
            break;
        }
    }
    recorder.finish_simulation(&sim).unwrap()
}

fn verifier() -> Verifier {
    Verifier::with_builtin_levels(Tuning::default(), Limits::default())
}

#[test]
fn bot_runs_verify_on_every_builtin_level() {
    let v = verifier();
    for (level, ticks) in [("flat", 600), ("course", 4800), ("sprawl", 900)] {
        let bytes = record_bot(level, 1, ticks);
        let verified = v
            .verify(&bytes[..])
            .unwrap_or_else(|e| panic!("{level}: {e}"));
        assert_eq!(verified.header.level_name, level);
        if level == "course" {
            assert!(verified.finish[0].is_some(), "the bot finishes course");
        }
    }
    let two = record_bot("course", 2, 900);
    assert_eq!(v.verify(&two[..]).unwrap().finish.len(), 2);
}

#[test]
fn decoding_and_re_encoding_gives_the_same_bytes() {
    let bytes = record_bot("course", 2, 700);
    let replay = Replay::decode(&bytes, Limits::default()).unwrap();
    assert_eq!(replay.encode(), bytes);
    assert_eq!(replay.ticks(), 700);
    assert_eq!(replay.inputs().len(), 700);
}

#[test]
fn every_single_byte_change_is_rejected_with_a_specific_error() {
    let bytes = record_bot("course", 1, 420);
    let v = verifier();
    let slowest = std::cell::Cell::new(Duration::ZERO);
    for offset in 0..bytes.len() {
        for delta in [1u8, 0x80, 0xff] {
            let mut bad = bytes.clone();
            bad[offset] ^= delta;
            let started = Instant::now();
            let err = v
                .verify(&bad[..])
                .expect_err(&format!("byte {offset} ^ {delta:#x} verified"));
            slowest.set(slowest.get().max(started.elapsed()));
            assert!(
                matches!(
                    err,
                    VerifyError::Replay(
                        ReplayError::BadMagic { .. }
                            | ReplayError::UnsupportedFormat { .. }
                            | ReplayError::ChunkChecksum { .. }
                            | ReplayError::ChunkTooLarge { .. }
                            | ReplayError::UnexpectedChunk { .. }
                            | ReplayError::Truncated { .. }
                    )
                ),
                "byte {offset} ^ {delta:#x}: {err}"
            );
        }
    }
    assert!(
        slowest.get() < Duration::from_secs(1),
        "slowest rejection took {:?}",
        slowest.get()
    );
}

#[test]
fn truncation_at_every_offset_is_rejected() {
    let bytes = record_bot("course", 1, 700);
    let v = verifier();
    for len in 0..bytes.len() {
        let err = v
            .verify(&bytes[..len])
            .expect_err(&format!("a replay cut to {len} bytes verified"));
        // No bytes at all is empty, not truncated at byte 0; the stable kind is the same.
        if len == 0 {
            assert!(
                matches!(err, VerifyError::Replay(ReplayError::Empty)),
                "cut to 0 bytes: {err}"
            );
            assert_eq!(err.to_string(), "empty: no bytes, not a pogo replay");
            assert_eq!(err.kind(), "truncated");
            continue;
        }
        assert!(
            matches!(err, VerifyError::Replay(ReplayError::Truncated { .. })),
            "cut to {len} bytes: {err}"
        );
    }
}

#[test]
fn hostile_lengths_cost_bounded_memory_and_time() {
    let v = verifier();
    // A header chunk claiming 4 GiB.
    let mut bytes = b"POGOREPL\x02\x00".to_vec();
    bytes.push(1);
    bytes.extend_from_slice(&u32::MAX.to_le_bytes());
    let err = v.verify(&bytes[..]).unwrap_err();
    assert!(
        matches!(
            err,
            VerifyError::Replay(ReplayError::ChunkTooLarge {
                length: u32::MAX,
                ..
            })
        ),
        "{err}"
    );
    // A header claiming a 4 GiB player name inside a normal-sized chunk does not decode.
    let sim = simulation("flat", 1);
    let header = Header::for_simulation(&sim, Some("x".into()), None);
    let mut payload = postcard::to_allocvec(&header).unwrap();
    let at = payload.len() - 3; // Some("x") → 01 01 78, then None → 00
    payload.splice(at + 1..at + 2, [0xff, 0xff, 0xff, 0xff, 0x0f]);
    let framed = frame(1, &payload);
    let mut hostile = b"POGOREPL\x02\x00".to_vec();
    hostile.extend(framed);
    let started = Instant::now();
    let err = v.verify(&hostile[..]).unwrap_err();
    assert!(started.elapsed() < Duration::from_millis(100));
    assert!(
        matches!(err, VerifyError::Replay(ReplayError::Malformed { .. })),
        "{err}"
    );
}

/// A chunk's framing, as FORMAT.md specifies, for hand-made hostile files.
fn frame(kind: u8, payload: &[u8]) -> Vec<u8> {
    let mut bytes = vec![kind];
    bytes.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    bytes.extend_from_slice(payload);
    let check = xxhash_rust::xxh3::xxh3_64(&bytes);
    bytes.extend_from_slice(&check.to_le_bytes());
    bytes
}

#[test]
fn a_claimed_length_beyond_the_limit_is_rejected_early() {
    let bytes = record_bot("flat", 1, 1200);
    let strict = Verifier::with_builtin_levels(
        Tuning::default(),
        Limits {
            ticks_max: 600,
            ..Limits::default()
        },
    );
    let err = strict.verify(&bytes[..]).unwrap_err();
    assert_eq!(
        err,
        VerifyError::Replay(ReplayError::TooLong { ticks_max: 600 })
    );
}

#[test]
fn inputs_retimed_by_one_tick_desync_at_the_first_hashed_tick_after() {
    let bytes = record_bot("course", 1, 900);
    let mut replay = Replay::decode(&bytes, Limits::default()).unwrap();
    // Delay the first input change after tick 130 by one tick: lengthen the run before it,
    // shorten the run after it.
    let chunk = &mut replay.chunks[0];
    let runs = &mut chunk.runs[0];
    let mut start = 0;
    let index = runs
        .iter()
        .position(|r| {
            start += r.length;
            start > 130
        })
        .unwrap();
    let changed_at = start; // the tick at which runs[index + 1] begins
    runs[index].length += 1;
    runs[index + 1].length -= 1;
    if runs[index + 1].length == 0 {
        runs.remove(index + 1);
    }
    let err = verifier().verify(&replay.encode()[..]).unwrap_err();
    let VerifyError::Desync { tick, .. } = err else {
        panic!("{err}")
    };
    // The first stored hash at or after the changed tick: hashes are stored every 60 ticks.
    let first_hashed = (changed_at / 60 + 1) * 60 - 1;
    assert_eq!(tick, Ticks(first_hashed), "changed at tick {changed_at}");
}

#[test]
fn wrong_tuning_or_level_is_named() {
    let bytes = record_bot("flat", 1, 120);
    let mut spec = pogo_core::TuningSpec::default();
    spec.set("gravity", "20").unwrap();
    let other = Verifier::with_builtin_levels(Tuning::new(spec).unwrap(), Limits::default());
    assert!(matches!(
        other.verify(&bytes[..]),
        Err(VerifyError::TuningMismatch { .. })
    ));
    let mut replay = Replay::decode(&bytes, Limits::default()).unwrap();
    replay.header.level_hash ^= 1;
    assert!(matches!(
        verifier().verify(&replay.encode()[..]),
        Err(VerifyError::LevelMismatch { .. })
    ));
    replay.header.level_name = "moon".into();
    assert_eq!(
        verifier().verify(&replay.encode()[..]),
        Err(VerifyError::UnknownLevel {
            name: "moon".into()
        })
    );
    let mut replay = Replay::decode(&bytes, Limits::default()).unwrap();
    replay.header.rules_version += 1;
    assert!(matches!(
        verifier().verify(&replay.encode()[..]),
        Err(VerifyError::RulesVersion { .. })
    ));
}

#[test]
fn a_false_claim_is_an_outcome_mismatch() {
    let bytes = record_bot("course", 1, 4800);
    let mut replay = Replay::decode(&bytes, Limits::default()).unwrap();
    let real = replay.trailer.finish[0];
    assert!(real.is_some());
    replay.trailer.finish[0] = real.map(|t| t - 100);
    let err = verifier().verify(&replay.encode()[..]).unwrap_err();
    assert_eq!(
        err,
        VerifyError::OutcomeMismatch {
            player: 0,
            claimed: real.map(|t| t - 100),
            actual: real
        }
    );
}

#[test]
fn bot_play_on_course_takes_under_4_kib_per_minute() {
    let bytes = record_bot("course", 1, 4800);
    let ticks = Replay::decode(&bytes, Limits::default()).unwrap().ticks();
    let per_minute = bytes.len() as u64 * 3600 / u64::from(ticks);
    eprintln!(
        "course bot: {} bytes for {ticks} ticks = {per_minute} bytes per minute",
        bytes.len()
    );
    assert!(per_minute < 4096, "{per_minute} bytes per minute");
}

#[test]
fn a_truncated_recording_is_salvaged_up_to_its_last_whole_chunk() {
    let bytes = record_bot("course", 1, 1000);
    let full = Replay::decode(&bytes, Limits::default()).unwrap();
    let v = verifier();
    // Cut inside the fourth input chunk (ticks 900…999): three whole chunks survive.
    let chunk_ends: Vec<usize> = {
        let mut ends = Vec::new();
        let mut at = 10;
        while at < bytes.len() {
            let len = u32::from_le_bytes(bytes[at + 1..at + 5].try_into().unwrap()) as usize;
            at += 1 + 4 + len + 8;
            ends.push(at);
        }
        ends
    };
    for cut in [chunk_ends[3] + 7, chunk_ends[4] - 1, chunk_ends[1] + 1] {
        let salvaged = pogo_replay::salvage(&bytes[..cut], &v).unwrap();
        let kept = salvaged.replay.chunks.len();
        assert!(matches!(
            salvaged.stopped,
            Some(ReplayError::Truncated { .. })
        ));
        assert_eq!(
            salvaged.replay.chunks[..],
            full.chunks[..kept],
            "whole chunks kept as they were"
        );
        let repaired = salvaged.replay.encode();
        let verified = v.verify(&repaired[..]).unwrap();
        assert_eq!(verified.ticks, kept as u32 * 300);
        assert_eq!(salvaged.dropped_bytes, (cut - chunk_ends[kept]) as u64);
    }
    // Nothing to salvage without a whole header.
    assert!(matches!(
        pogo_replay::salvage(&bytes[..20], &v),
        Err(pogo_replay::SalvageError::Header(_))
    ));
}

#[test]
fn ghost_gives_positions_splits_and_seeks_to_any_tick() {
    let bytes = record_bot("course", 1, 4800);
    let v = verifier();
    let ghost = pogo_replay::Ghost::load(&bytes, &v).unwrap();
    let finish = ghost.verified().finish[0].unwrap();
    assert_eq!(ghost.ticks(), finish + 1);
    // Splits: every checkpoint of the course in order, then the finish at the finish tick.
    let splits = ghost.splits(0);
    let checkpoints: Vec<Option<u32>> = splits.iter().map(|s| s.checkpoint).collect();
    assert_eq!(
        checkpoints,
        [Some(0), Some(1), Some(2), Some(3), None],
        "{splits:?}"
    );
    assert_eq!(splits.last().unwrap().tick, Ticks(finish));
    assert!(splits.windows(2).all(|w| w[0].tick < w[1].tick));
    // Seeking: the state after any tick matches the ghost's recorded positions, and seeking
    // to the end reproduces the final hash.
    for t in [1, 299, 300, 301, 1234, finish] {
        let sim = ghost.seek(t);
        assert_eq!(sim.state().tick, Ticks(t));
        assert_eq!(
            Some(sim.state().pogos[0].position),
            ghost.position(Ticks(t - 1), 0),
            "tick {t}"
        );
    }
    assert_eq!(
        ghost.seek(ghost.ticks()).state_hash(),
        ghost.verified().final_hash
    );
    assert_eq!(ghost.frames().count() as u32, ghost.ticks());
    assert!(
        ghost.frames().next().unwrap().2,
        "the first tick places the pogo: a teleport"
    );
}

#[test]
fn diff_names_the_first_differing_tick_and_fields() {
    let bytes = record_bot("course", 1, 900);
    let a = Replay::decode(&bytes, Limits::default()).unwrap();
    let v = verifier();
    assert_eq!(pogo_replay::first_difference(&a, &a, &v).unwrap(), None);
    // B: the same run with its input from tick 200 on held one tick later.
    let mut b = a.clone();
    let runs = &mut b.chunks[0].runs[0];
    let mut start = 0;
    let index = runs
        .iter()
        .position(|r| {
            start += r.length;
            start > 200
        })
        .unwrap();
    runs[index].length += 1;
    runs[index + 1].length -= 1;
    if runs[index + 1].length == 0 {
        runs.remove(index + 1);
    }
    let difference = pogo_replay::first_difference(&a, &b, &v)
        .unwrap()
        .expect("they differ");
    assert!(
        difference.tick.0 >= start,
        "{difference:?} before the change at {start}"
    );
    assert!(difference.tick.0 <= start + 1, "{difference:?}");
    assert!(
        difference.fields.contains(&(0, "buttons_held"))
            || difference.fields.contains(&(0, "lean"))
            || difference.fields.contains(&(0, "velocity")),
        "{difference:?}"
    );
    assert!(
        !difference.fields.contains(&(0, "bounces")),
        "{difference:?}"
    );
}

#[test]
fn recorder_refuses_an_outcome_no_reader_would_accept() {
    let sim = simulation("flat", 2);
    let header = Header::for_simulation(&sim, None, None);
    let record = |finish: Vec<Option<u32>>| {
        let mut recorder = Recorder::new(Vec::new(), header.clone()).unwrap();
        for _ in 0..10 {
            recorder.record(&[Input::default(); 2], || 0).unwrap();
        }
        recorder.finish(finish, 0)
    };
    assert!(record(vec![None]).is_err(), "one outcome for two players");
    assert!(
        record(vec![Some(10), None]).is_err(),
        "finish at the tick count"
    );
    assert!(record(vec![Some(9), None]).is_ok());
}

#[test]
fn with_world_accepts_one_more_level_and_shares_the_rest() {
    // A level no verifier knows up front (a track a server loads on demand), by its own name.
    let mut desc = builtin_level("flat").unwrap();
    desc.name = "t-0123456789abcdef".into();
    let world = Arc::new(World::new(desc, &Tuning::default()).unwrap());
    let mut sim = Simulation::new(world.clone(), Tuning::default(), 1).unwrap();
    let header = Header::for_simulation(&sim, Some("bot".into()), None);
    let mut recorder = Recorder::new(Vec::new(), header).unwrap();
    for _ in 0..300 {
        sim.step(&[Input::default()]);
        recorder
            .record(&[Input::default()], || sim.state_hash())
            .unwrap();
    }
    let bytes = recorder.finish_simulation(&sim).unwrap();
    let base = verifier();
    assert!(matches!(
        base.verify(&bytes[..]),
        Err(VerifyError::UnknownLevel { .. })
    ));
    let on_track = base.with_world(world);
    assert_eq!(on_track.verify(&bytes[..]).unwrap().ticks, 300);
    // The other levels are still there, and the base verifier is unchanged.
    assert!(on_track.world("course").is_some());
    assert!(base.world("t-0123456789abcdef").is_none());
}
