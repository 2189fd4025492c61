//! Replay objects through the C ABI (called from Rust exactly as C calls them): the golden
//! replays decode to what `pogo_replay` decodes, and re-simulating their inputs with
//! `pogo_sim_step` reproduces the verifier's final hash and finish ticks — a ghost in a page
//! is exactly the verified run. Bad bytes of every kind (empty, every truncation, every byte
//! flipped, garbage, over the budget) are refused with a status and a message and leave no
//! object behind; bad arguments say what is wrong.

#![allow(unsafe_code)] // calling the extern "C" entry points

use core::ffi::c_char;
use std::path::PathBuf;
use std::ptr::{null, null_mut};
use std::sync::Mutex;

use pogo_core::{Buttons, Input, RULES_VERSION};
use pogo_ffi::*;
use pogo_replay::{Header, Limits, Recorder, Replay};

/// The handle and block counts are global: the tests of this file take turns.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn golden(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/golden")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn last_error() -> String {
    let mut buf = [0 as c_char; 1100];
    // SAFETY: the buffer is valid for its length.
    let len = unsafe { pogo_last_error(buf.as_mut_ptr(), buf.len()) };
    let bytes: Vec<u8> = buf[..len.min(buf.len() - 1)]
        .iter()
        .map(|&c| c as u8)
        .collect();
    String::from_utf8(bytes).unwrap()
}

/// `pogo_replay_decode`, its status and message on failure.
fn decode(bytes: &[u8]) -> Result<PogoReplay, (PogoStatus, String)> {
    let mut replay = PogoReplay::default();
    // SAFETY: `bytes` is a live slice of its length; `replay` a live local.
    let status = unsafe { pogo_replay_decode(bytes.as_ptr(), bytes.len(), &mut replay) };
    match status {
        PogoStatus::Ok => Ok(replay),
        status => Err((status, last_error())),
    }
}

fn info(replay: PogoReplay) -> PogoReplayInfo {
    let mut info = PogoReplayInfo::default();
    // SAFETY: `info` is a live local.
    let status = unsafe { pogo_replay_info(replay, &mut info) };
    assert_eq!(status, PogoStatus::Ok, "{}", last_error());
    info
}

/// A name through the (buffer, capacity, len) convention: the length query, then the copy.
fn name(
    replay: PogoReplay,
    get: unsafe extern "C" fn(PogoReplay, *mut c_char, usize, *mut usize) -> PogoStatus,
) -> String {
    let mut len = usize::MAX;
    // SAFETY: NULL with capacity 0 is the length query; `len` is a live local.
    let status = unsafe { get(replay, null_mut(), 0, &mut len) };
    assert_eq!(status, PogoStatus::Ok);
    let mut buf = vec![0 as c_char; len];
    let mut copied = 0usize;
    // SAFETY: the buffer holds `len` bytes.
    let status = unsafe { get(replay, buf.as_mut_ptr(), buf.len(), &mut copied) };
    assert_eq!(status, PogoStatus::Ok, "{}", last_error());
    assert_eq!(copied, len);
    String::from_utf8(buf.iter().map(|&c| c as u8).collect()).unwrap()
}

/// Every input of `player`, fetched `batch` at a time (as a binding does).
fn inputs(replay: PogoReplay, player: u32, batch: u32) -> Vec<PogoInput> {
    let ticks = info(replay).ticks;
    let mut all = Vec::new();
    let mut buf = vec![PogoInput::default(); batch as usize];
    loop {
        let mut written = u32::MAX;
        // SAFETY: `buf` holds `batch` inputs; `written` is a live local.
        let status = unsafe {
            pogo_replay_inputs(
                replay,
                player,
                all.len() as u32,
                buf.as_mut_ptr(),
                batch,
                &mut written,
            )
        };
        assert_eq!(status, PogoStatus::Ok, "{}", last_error());
        assert!(written <= batch);
        if written == 0 {
            break;
        }
        all.extend_from_slice(&buf[..written as usize]);
    }
    assert_eq!(all.len(), ticks as usize);
    all
}

/// What the verifier (default tuning, built-in levels) says of `bytes`.
fn verify(bytes: &[u8]) -> PogoVerdict {
    let mut tuning = PogoTuning::default();
    let mut verifier = PogoVerifier::default();
    let mut verdict = PogoVerdict::default();
    // SAFETY: every pointer is a live local or slice of the stated length.
    unsafe {
        assert_eq!(pogo_tuning_default(&mut tuning), PogoStatus::Ok);
        let mut def = pogo_default_verifier_def();
        def.tuning = tuning;
        assert_eq!(
            pogo_verifier_create(&def, &mut verifier),
            PogoStatus::Ok,
            "{}",
            last_error()
        );
        let status = pogo_verifier_verify(verifier, bytes.as_ptr(), bytes.len(), &mut verdict);
        assert_eq!(status, PogoStatus::Ok);
    }
    assert_eq!(pogo_verifier_free(verifier), PogoStatus::Ok);
    assert_eq!(pogo_tuning_free(tuning), PogoStatus::Ok);
    verdict
}

/// Re-simulates a decoded replay with the ABI's simulation, stepping each tick with every
/// player's decoded input: the final state hash and each player's finish tick.
fn resimulate(replay: PogoReplay, batch: u32) -> (u64, Vec<Option<u32>>) {
    let info = info(replay);
    let level_name = name(replay, pogo_replay_level_name);
    let per_player: Vec<Vec<PogoInput>> = (0..info.players)
        .map(|p| inputs(replay, p, batch))
        .collect();
    let mut level = PogoLevel::default();
    let mut tuning = PogoTuning::default();
    let mut sim = PogoSim::default();
    let mut hash = 0u64;
    let mut finish = Vec::new();
    // SAFETY: every pointer is a live local or slice of the stated length.
    unsafe {
        let status = pogo_level_builtin(level_name.as_ptr().cast(), level_name.len(), &mut level);
        assert_eq!(status, PogoStatus::Ok, "{}", last_error());
        assert_eq!(pogo_tuning_default(&mut tuning), PogoStatus::Ok);
        let mut level_hash = 0u64;
        let mut tuning_hash = 0u64;
        assert_eq!(pogo_level_hash(level, &mut level_hash), PogoStatus::Ok);
        assert_eq!(pogo_tuning_hash(tuning, &mut tuning_hash), PogoStatus::Ok);
        assert_eq!(info.level_hash, level_hash, "level hash");
        assert_eq!(info.tuning_hash, tuning_hash, "tuning hash");
        let mut def = pogo_default_sim_def();
        def.level = level;
        def.tuning = tuning;
        def.players = info.players;
        assert_eq!(pogo_sim_create(&def, &mut sim), PogoStatus::Ok);
        let mut tick_inputs = vec![PogoInput::default(); info.players as usize];
        for tick in 0..info.ticks as usize {
            for (slot, player) in tick_inputs.iter_mut().zip(&per_player) {
                *slot = player[tick];
            }
            let status = pogo_sim_step(sim, tick_inputs.as_ptr(), tick_inputs.len());
            assert_eq!(status, PogoStatus::Ok, "tick {tick}: {}", last_error());
        }
        assert_eq!(pogo_sim_state_hash(sim, &mut hash), PogoStatus::Ok);
        for player in 0..info.players {
            let mut state = PogoPlayerState::default();
            assert_eq!(
                pogo_sim_player_state(sim, player, &mut state),
                PogoStatus::Ok
            );
            finish.push((state.finished == 1).then_some(state.finish_tick));
        }
    }
    assert_eq!(pogo_sim_free(sim), PogoStatus::Ok);
    assert_eq!(pogo_tuning_free(tuning), PogoStatus::Ok);
    assert_eq!(pogo_level_free(level), PogoStatus::Ok);
    (hash, finish)
}

fn finish_of(mask: u32, ticks: &[u32], players: u32) -> Vec<Option<u32>> {
    (0..players as usize)
        .map(|p| (mask >> p & 1 == 1).then_some(ticks[p]))
        .collect()
}

#[test]
fn golden_replays_decode_and_resimulate_to_the_verified_run() {
    let _serial = serial();
    let baseline = pogo_handle_count();
    for (file, players) in [("course-bot.pogo", 1), ("course-multi.pogo", 3)] {
        let bytes = golden(file);
        let verdict = verify(&bytes);
        assert_eq!(verdict.kind, POGO_VERDICT_VERIFIED, "{file}");
        let oracle = Replay::decode(&bytes, Limits::default()).unwrap();

        let replay = decode(&bytes).unwrap_or_else(|e| panic!("{file}: {e:?}"));
        assert_eq!(pogo_handle_count(), baseline + 1);
        let info = info(replay);
        assert_eq!(info.players, players, "{file}");
        assert_eq!(info.players, verdict.players, "{file}");
        assert_eq!(info.ticks, verdict.ticks, "{file}");
        assert_eq!(info.rules_version, RULES_VERSION, "{file}");
        assert_eq!(info.rules_version, verdict.rules_version, "{file}");
        assert_eq!(info.level_hash, verdict.level_hash, "{file}");
        assert_eq!(info.tuning_hash, verdict.tuning_hash, "{file}");
        assert_eq!(info.claimed_final_hash, verdict.final_hash, "{file}");
        assert_eq!(info.tick_rate, oracle.header.tick_rate, "{file}");
        assert_eq!(info.hash_interval, oracle.header.hash_interval, "{file}");
        assert_eq!(info.finished_mask, verdict.finished_mask, "{file}");
        assert_eq!(info.finish_ticks, verdict.finish_ticks, "{file}");
        assert_eq!(name(replay, pogo_replay_level_name), "course");
        assert_eq!(
            name(replay, pogo_replay_player_name),
            oracle.header.player_name.clone().unwrap_or_default()
        );
        assert_eq!(
            name(replay, pogo_replay_date),
            oracle.header.date.clone().unwrap_or_default()
        );

        // The inputs are the decoder's, whatever the batch size (a batch boundary inside a
        // run, at a chunk's end, one tick at a time).
        let expected = oracle.inputs();
        for batch in [1, 599, 600, 4096] {
            for player in 0..players {
                let got = inputs(replay, player, batch);
                for (tick, (got, want)) in got.iter().zip(&expected).enumerate() {
                    let want = want[player as usize];
                    assert_eq!(
                        (got.steer_x, got.steer_z, got.buttons),
                        (want.steer_x, want.steer_z, want.buttons.0),
                        "{file} player {player} tick {tick} (batch {batch})"
                    );
                }
            }
        }

        // Re-simulated from the decoded inputs: the verified run, bit for bit.
        let (hash, finish) = resimulate(replay, 1000);
        assert_eq!(hash, verdict.final_hash, "{file}: final hash");
        assert_eq!(
            finish,
            finish_of(verdict.finished_mask, &verdict.finish_ticks, players),
            "{file}: finish ticks"
        );
        assert_eq!(pogo_replay_free(replay), PogoStatus::Ok);
    }
    assert_eq!(pogo_handle_count(), baseline);
}

/// A replay recorded through the ABI with a player name gives that name back, and its
/// inputs are the ones stepped (including steer −128, recorded as −127).
#[test]
fn a_recorded_run_decodes_to_its_inputs_and_name() {
    let _serial = serial();
    let baseline = pogo_handle_count();
    let played: Vec<[PogoInput; 2]> = (0..250u32)
        .map(|t| {
            let i = |x: u32| PogoInput {
                steer_x: ((t * x) % 256) as u8 as i8,
                steer_z: (t / 7 % 3) as i8 - 1,
                buttons: (t / 11 % 4) as u8,
            };
            [i(37), i(5)]
        })
        .collect();
    let mut level = PogoLevel::default();
    let mut tuning = PogoTuning::default();
    let mut sim = PogoSim::default();
    let mut recorder = PogoRecorder::default();
    let mut bytes = Vec::new();
    // SAFETY: every pointer is a live local or slice of the stated length.
    unsafe {
        assert_eq!(
            pogo_level_builtin(c"flat".as_ptr(), 4, &mut level),
            PogoStatus::Ok
        );
        assert_eq!(pogo_tuning_default(&mut tuning), PogoStatus::Ok);
        let mut def = pogo_default_sim_def();
        (def.level, def.tuning, def.players) = (level, tuning, 2);
        assert_eq!(pogo_sim_create(&def, &mut sim), PogoStatus::Ok);
        let mut rdef = pogo_default_recorder_def();
        rdef.sim = sim;
        (rdef.player_name, rdef.player_name_len) = (c"Ghost Tester".as_ptr(), 12);
        (rdef.date, rdef.date_len) = (c"2026-01-02T03:04:05Z".as_ptr(), 20);
        assert_eq!(pogo_recorder_create(&rdef, &mut recorder), PogoStatus::Ok);
        for tick in &played {
            assert_eq!(pogo_sim_step(sim, tick.as_ptr(), 2), PogoStatus::Ok);
            assert_eq!(pogo_recorder_record(recorder), PogoStatus::Ok);
        }
        assert_eq!(pogo_recorder_finish(recorder), PogoStatus::Ok);
        let mut len = 0usize;
        assert_eq!(
            pogo_recorder_bytes(recorder, null_mut(), 0, &mut len),
            PogoStatus::Ok
        );
        bytes.resize(len, 0);
        assert_eq!(
            pogo_recorder_bytes(recorder, bytes.as_mut_ptr(), len, &mut len),
            PogoStatus::Ok
        );
    }
    let mut final_hash = 0u64;
    // SAFETY: a live local.
    let status = unsafe { pogo_sim_state_hash(sim, &mut final_hash) };
    assert_eq!(status, PogoStatus::Ok);
    for status in [
        pogo_recorder_free(recorder),
        pogo_sim_free(sim),
        pogo_tuning_free(tuning),
        pogo_level_free(level),
    ] {
        assert_eq!(status, PogoStatus::Ok);
    }

    let replay = decode(&bytes).unwrap();
    let info = info(replay);
    assert_eq!((info.players, info.ticks), (2, 250));
    assert_eq!(info.claimed_final_hash, final_hash);
    assert_eq!(info.finished_mask, 0);
    assert_eq!(name(replay, pogo_replay_player_name), "Ghost Tester");
    assert_eq!(name(replay, pogo_replay_level_name), "flat");
    assert_eq!(name(replay, pogo_replay_date), "2026-01-02T03:04:05Z");
    for player in 0..2 {
        let got = inputs(replay, player, 64);
        for (tick, (got, want)) in got.iter().zip(&played).enumerate() {
            let mut want = want[player as usize];
            want.steer_x = want.steer_x.max(-127);
            assert_eq!(*got, want, "player {player} tick {tick}");
        }
    }
    let (hash, _) = resimulate(replay, 100);
    assert_eq!(hash, final_hash);
    assert_eq!(pogo_replay_free(replay), PogoStatus::Ok);
    assert_eq!(pogo_handle_count(), baseline);
}

#[test]
fn bad_bytes_are_parse_errors_with_a_reason_and_leave_nothing_behind() {
    let _serial = serial();
    let baseline = pogo_handle_count();
    let bytes = golden("course-multi.pogo");
    let refused = |bytes: &[u8], what: &str| -> (PogoStatus, String) {
        let (status, message) = decode(bytes).expect_err(what);
        assert!(!message.is_empty(), "{what}: no message");
        assert!(
            !message.chars().any(char::is_control),
            "{what}: {message:?}"
        );
        assert_eq!(pogo_handle_count(), baseline, "{what}: an object was left");
        (status, message)
    };

    let (status, message) = refused(&[], "empty");
    assert_eq!(status, PogoStatus::Parse);
    assert!(message.contains("empty"), "{message}");
    assert!(!message.contains("truncated"), "{message}");

    for cut in 1..bytes.len() {
        let (status, message) = refused(&bytes[..cut], &format!("cut at {cut}"));
        assert_eq!(status, PogoStatus::Parse, "cut at {cut}: {message}");
        assert!(
            message.contains("truncated at byte"),
            "cut at {cut}: {message}"
        );
    }
    for at in 0..bytes.len() {
        let mut flipped = bytes.clone();
        flipped[at] ^= 0x20;
        let (status, message) = refused(&flipped, &format!("byte {at} flipped"));
        assert_eq!(status, PogoStatus::Parse, "byte {at}: {message}");
    }
    let mut damaged = bytes.clone();
    damaged[bytes.len() / 2] ^= 1;
    let (_, message) = refused(&damaged, "damaged");
    assert!(message.contains("checksum"), "{message}");
    let (_, message) = refused(b"GIF89a and more bytes", "garbage");
    assert!(message.contains("not a pogo replay"), "{message}");
    let mut extra = bytes.clone();
    extra.push(0);
    let (_, message) = refused(&extra, "trailing byte");
    assert!(message.contains("after the trailer"), "{message}");

    // SAFETY: NULL pointers are what is tested; `replay` is a live local.
    unsafe {
        let mut replay = PogoReplay::default();
        assert_eq!(
            pogo_replay_decode(null(), 10, &mut replay),
            PogoStatus::NullPointer
        );
        assert_eq!(
            pogo_replay_decode(bytes.as_ptr(), bytes.len(), null_mut()),
            PogoStatus::NullPointer
        );
        assert_eq!(
            pogo_replay_decode(null(), 0, &mut replay),
            PogoStatus::Parse
        );
    }
    assert_eq!(pogo_handle_count(), baseline);
}

/// A header for forged replays (decoding does not look at the level).
fn forged_header(players: u8) -> Header {
    Header {
        rules_version: RULES_VERSION,
        tick_rate: 60,
        frac_bits: 32,
        level_name: "flat".into(),
        level_hash: 1,
        tuning_hash: 2,
        players,
        chunk_ticks: 600,
        hash_interval: 60,
        player_name: None,
        date: None,
    }
}

fn forged(players: u8, ticks: u32) -> Vec<u8> {
    let mut recorder = Recorder::new(Vec::new(), forged_header(players)).unwrap();
    let inputs: Vec<Input> = (0..players)
        .map(|p| Input {
            steer_x: p as i8,
            steer_z: -(p as i8),
            buttons: Buttons(p % 4),
        })
        .collect();
    for _ in 0..ticks {
        recorder.record(&inputs, || 7).unwrap();
    }
    recorder
        .finish(vec![None; usize::from(players)], 9)
        .unwrap()
}

/// The verifier's budget of player-ticks bounds what one decode expands: 16 players for
/// 54 000 ticks (864 000 player-ticks) decode, one tick more is `POGO_STATUS_LIMIT`.
#[test]
fn replays_over_the_verifier_budget_are_refused() {
    let _serial = serial();
    let baseline = pogo_handle_count();
    let budget = Limits::default().player_ticks_max;
    let ticks = (budget / 16) as u32;
    let replay = decode(&forged(16, ticks)).unwrap();
    let info = info(replay);
    assert_eq!((info.players, info.ticks), (16, ticks));
    assert_eq!(info.claimed_final_hash, 9);
    let last = inputs(replay, 15, 4096);
    assert_eq!(
        last[ticks as usize - 1],
        PogoInput {
            steer_x: 15,
            steer_z: -15,
            buttons: 3
        }
    );
    assert_eq!(pogo_replay_free(replay), PogoStatus::Ok);

    let (status, message) = decode(&forged(16, ticks + 1)).unwrap_err();
    assert_eq!(status, PogoStatus::Limit, "{message}");
    assert!(message.contains("864000 player-ticks"), "{message}");
    assert_eq!(pogo_handle_count(), baseline);
}

#[test]
fn bad_arguments_say_what_is_wrong() {
    let _serial = serial();
    let baseline = pogo_handle_count();
    let replay = decode(&golden("course-multi.pogo")).unwrap();
    let ticks = info(replay).ticks;
    let mut buf = [PogoInput::default(); 8];
    let mut written = u32::MAX;
    // SAFETY: every pointer is NULL (as tested) or a live local of the stated length.
    unsafe {
        let status = pogo_replay_inputs(replay, 3, 0, buf.as_mut_ptr(), 8, &mut written);
        assert_eq!(status, PogoStatus::InvalidArgument);
        assert!(last_error().contains("player 3"), "{}", last_error());
        let status = pogo_replay_inputs(replay, u32::MAX, 0, buf.as_mut_ptr(), 8, &mut written);
        assert_eq!(status, PogoStatus::InvalidArgument);
        let status = pogo_replay_inputs(replay, 0, ticks + 1, buf.as_mut_ptr(), 8, &mut written);
        assert_eq!(status, PogoStatus::InvalidArgument);
        assert!(last_error().contains("first_tick"), "{}", last_error());
        assert_eq!(written, u32::MAX, "a refused call wrote");

        // The end: nothing left; near the end: what is left.
        let status = pogo_replay_inputs(replay, 0, ticks, buf.as_mut_ptr(), 8, &mut written);
        assert_eq!((status, written), (PogoStatus::Ok, 0));
        let status = pogo_replay_inputs(replay, 2, ticks - 3, buf.as_mut_ptr(), 8, &mut written);
        assert_eq!((status, written), (PogoStatus::Ok, 3));
        let status = pogo_replay_inputs(replay, 0, 0, null_mut(), 0, &mut written);
        assert_eq!((status, written), (PogoStatus::Ok, 0));
        let status = pogo_replay_inputs(replay, 0, ticks, null_mut(), 8, &mut written);
        assert_eq!(status, PogoStatus::NullPointer);
        let status = pogo_replay_inputs(replay, 0, 0, buf.as_mut_ptr(), 8, null_mut());
        assert_eq!(status, PogoStatus::NullPointer);
        assert_eq!(
            pogo_replay_info(replay, null_mut()),
            PogoStatus::NullPointer
        );

        let mut small = [0 as c_char; 2];
        let mut len = 0usize;
        let status = pogo_replay_level_name(replay, small.as_mut_ptr(), 2, &mut len);
        assert_eq!((status, len), (PogoStatus::BufferTooSmall, 6));
        let status = pogo_replay_level_name(replay, null_mut(), 4, &mut len);
        assert_eq!(status, PogoStatus::NullPointer);
        let status = pogo_replay_player_name(replay, null_mut(), 0, null_mut());
        assert_eq!(status, PogoStatus::NullPointer);
        let status = pogo_replay_date(replay, null_mut(), 0, null_mut());
        assert_eq!(status, PogoStatus::NullPointer);

        // Handles: zero, another kind, freed.
        let mut out = PogoReplayInfo::default();
        let zero = PogoReplay::default();
        assert_eq!(pogo_replay_info(zero, &mut out), PogoStatus::InvalidHandle);
        let mut tuning = PogoTuning::default();
        assert_eq!(pogo_tuning_default(&mut tuning), PogoStatus::Ok);
        let not_a_replay = PogoReplay { id: tuning.id };
        assert_eq!(
            pogo_replay_info(not_a_replay, &mut out),
            PogoStatus::WrongHandleKind
        );
        assert!(last_error().contains("tuning handle"), "{}", last_error());
        assert_eq!(
            pogo_replay_free(PogoReplay { id: tuning.id }),
            PogoStatus::WrongHandleKind
        );
        assert_eq!(pogo_tuning_free(tuning), PogoStatus::Ok);
        let not_a_sim = PogoSim { id: replay.id };
        let mut hash = 0u64;
        assert_eq!(
            pogo_sim_state_hash(not_a_sim, &mut hash),
            PogoStatus::WrongHandleKind
        );
        assert!(last_error().contains("replay handle"), "{}", last_error());
        assert_eq!(pogo_replay_free(replay), PogoStatus::Ok);
        assert_eq!(pogo_replay_info(replay, &mut out), PogoStatus::StaleHandle);
        assert_eq!(pogo_replay_free(replay), PogoStatus::StaleHandle);
        let status = pogo_replay_inputs(replay, 0, 0, buf.as_mut_ptr(), 8, &mut written);
        assert_eq!(status, PogoStatus::StaleHandle);
    }
    assert_eq!(pogo_handle_count(), baseline);
    assert_eq!(
        pogo_sizeof(POGO_STRUCT_REPLAY_INFO),
        size_of::<PogoReplayInfo>()
    );
    assert_eq!(size_of::<PogoReplayInfo>(), 112);
}

// ---------------------------------------------------------------------------------------------
// pogo_sim_step_many: many ticks in one call

/// A simulation of `players` on built-in level `level` (default tuning), with its level and
/// tuning (free all three).
fn new_sim(level_name: &str, players: u32) -> (PogoLevel, PogoTuning, PogoSim) {
    let mut level = PogoLevel::default();
    let mut tuning = PogoTuning::default();
    let mut sim = PogoSim::default();
    // SAFETY: every pointer is a live local or slice of the stated length.
    unsafe {
        let status = pogo_level_builtin(level_name.as_ptr().cast(), level_name.len(), &mut level);
        assert_eq!(status, PogoStatus::Ok, "{}", last_error());
        assert_eq!(pogo_tuning_default(&mut tuning), PogoStatus::Ok);
        let mut def = pogo_default_sim_def();
        (def.level, def.tuning, def.players) = (level, tuning, players);
        assert_eq!(pogo_sim_create(&def, &mut sim), PogoStatus::Ok);
    }
    (level, tuning, sim)
}

fn free_sim((level, tuning, sim): (PogoLevel, PogoTuning, PogoSim)) {
    assert_eq!(pogo_sim_free(sim), PogoStatus::Ok);
    assert_eq!(pogo_tuning_free(tuning), PogoStatus::Ok);
    assert_eq!(pogo_level_free(level), PogoStatus::Ok);
}

fn sim_hash(sim: PogoSim) -> u64 {
    let mut hash = 0u64;
    // SAFETY: a live local.
    let status = unsafe { pogo_sim_state_hash(sim, &mut hash) };
    assert_eq!(status, PogoStatus::Ok);
    hash
}

fn sim_tick(sim: PogoSim) -> u32 {
    let mut tick = 0u32;
    // SAFETY: a live local.
    assert_eq!(unsafe { pogo_sim_tick(sim, &mut tick) }, PogoStatus::Ok);
    tick
}

/// Everything a caller can read of a simulation: its snapshot bytes (the whole state), and
/// every player's state now and before the last tick.
fn observed(sim: PogoSim, players: u32) -> (Vec<u8>, Vec<PogoPlayerState>) {
    let mut len = 0usize;
    let mut states = Vec::new();
    // SAFETY: every pointer is NULL with capacity 0 or a live local of the stated length.
    let bytes = unsafe {
        assert_eq!(
            pogo_sim_snapshot(sim, null_mut(), 0, &mut len),
            PogoStatus::Ok
        );
        let mut bytes = vec![0u8; len];
        assert_eq!(
            pogo_sim_snapshot(sim, bytes.as_mut_ptr(), len, &mut len),
            PogoStatus::Ok
        );
        for player in 0..players {
            let mut now = PogoPlayerState::default();
            let mut before = PogoPlayerState::default();
            assert_eq!(pogo_sim_player_state(sim, player, &mut now), PogoStatus::Ok);
            let status = pogo_sim_previous_player_state(sim, player, &mut before);
            assert_eq!(status, PogoStatus::Ok);
            states.extend([now, before]);
        }
        bytes
    };
    (bytes, states)
}

/// `pogo_sim_step_many` over `inputs` (tick-major): the status, ticks run and events.
fn step_many(
    sim: PogoSim,
    recorder: PogoRecorder,
    inputs: &[PogoInput],
    ticks: u32,
    stop: u32,
) -> (PogoStatus, u32, [u32; 16]) {
    let (mut ran, mut events) = (u32::MAX, [u32::MAX; 16]);
    let ptr = if inputs.is_empty() {
        null()
    } else {
        inputs.as_ptr()
    };
    // SAFETY: `inputs` holds `ticks` × players inputs (the callers pass exactly that);
    // `ran` and `events` (16 ≥ players) are live locals.
    let status = unsafe {
        pogo_sim_step_many(
            sim,
            recorder,
            ptr,
            ticks,
            stop,
            &mut ran,
            events.as_mut_ptr(),
        )
    };
    (status, ran, events)
}

/// A new recorder of `sim`, which must be at tick 0.
fn recorder_of(sim: PogoSim) -> PogoRecorder {
    let mut recorder = PogoRecorder::default();
    let mut def = pogo_default_recorder_def();
    def.sim = sim;
    // SAFETY: live locals.
    let status = unsafe { pogo_recorder_create(&def, &mut recorder) };
    assert_eq!(status, PogoStatus::Ok, "{}", last_error());
    recorder
}

/// A tiny LCG for batch sizes (seeded: the same batches every run).
fn lcg(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    *state >> 33
}

/// The golden replays stepped one tick a call and many ticks a call — the whole run in one
/// call, seeded random batches (empty ones too), and batches stopped at events — pass
/// through the very same states: every batch ends on the state hash the tick-by-tick run
/// had at that tick, the whole run ends on the same snapshot bytes and player states (now
/// and previous), and the verified final hash.
#[test]
fn a_batch_of_ticks_is_the_same_ticks_one_by_one() {
    let _serial = serial();
    let baseline = pogo_handle_count();
    for (file, players) in [("course-bot.pogo", 1u32), ("course-multi.pogo", 3)] {
        let bytes = golden(file);
        let verdict = verify(&bytes);
        let replay = decode(&bytes).unwrap();
        let ticks = info(replay).ticks;
        let per_player: Vec<Vec<PogoInput>> =
            (0..players).map(|p| inputs(replay, p, 4096)).collect();
        assert_eq!(pogo_replay_free(replay), PogoStatus::Ok);
        let tick_major: Vec<PogoInput> = (0..ticks as usize)
            .flat_map(|t| per_player.iter().map(move |row| row[t]))
            .collect();
        let width = players as usize;

        // One by one: each tick's hash and each player's events.
        let one = new_sim("course", players);
        let mut hashes = vec![sim_hash(one.2)];
        let mut events: Vec<Vec<u32>> = Vec::new();
        for row in tick_major.chunks(width) {
            // SAFETY: `row` holds one input per player.
            let status = unsafe { pogo_sim_step(one.2, row.as_ptr(), row.len()) };
            assert_eq!(status, PogoStatus::Ok);
            hashes.push(sim_hash(one.2));
            let mut state = PogoPlayerState::default();
            events.push(
                (0..players)
                    .map(|p| {
                        // SAFETY: a live local.
                        let status = unsafe { pogo_sim_player_state(one.2, p, &mut state) };
                        assert_eq!(status, PogoStatus::Ok);
                        state.events
                    })
                    .collect(),
            );
        }
        assert_eq!(hashes[ticks as usize], verdict.final_hash, "{file}");
        let want = observed(one.2, players);

        // The whole run in one call.
        let all = new_sim("course", players);
        let (status, ran, got_events) =
            step_many(all.2, PogoRecorder::default(), &tick_major, ticks, 0);
        assert_eq!(
            (status, ran),
            (PogoStatus::Ok, ticks),
            "{file}: {}",
            last_error()
        );
        assert!(
            observed(all.2, players) == want,
            "{file}: one batch differs"
        );
        for p in 0..width {
            let or = events.iter().fold(0, |acc, e| acc | e[p]);
            assert_eq!(got_events[p], or, "{file}: events of player {p}");
        }
        assert_eq!(
            &got_events[width..],
            &[u32::MAX; 16][width..],
            "wrote past the players"
        );

        // Seeded random batches, 0 to 96 ticks each: the hash at every batch's end.
        let random = new_sim("course", players);
        let mut seed = 0x5eed_0036u64 + u64::from(players);
        let mut at = 0usize;
        while at < ticks as usize {
            let n = (lcg(&mut seed) % 97) as usize;
            let n = n.min(ticks as usize - at);
            let batch = &tick_major[at * width..(at + n) * width];
            let (status, ran, _) = step_many(random.2, PogoRecorder::default(), batch, n as u32, 0);
            assert_eq!((status, ran), (PogoStatus::Ok, n as u32));
            at += n;
            assert_eq!(sim_hash(random.2), hashes[at], "{file}: after tick {at}");
        }
        assert!(
            observed(random.2, players) == want,
            "{file}: random batches differ"
        );

        // Stopping at bounces and checkpoints: each call ends on the first such tick.
        let stop = POGO_EVENT_BOUNCE | POGO_EVENT_CHECKPOINT;
        let stopped = new_sim("course", players);
        let (mut at, mut stops) = (0usize, 0);
        while at < ticks as usize {
            let rest = &tick_major[at * width..];
            let (status, ran, got) = step_many(
                stopped.2,
                PogoRecorder::default(),
                rest,
                ticks - at as u32,
                stop,
            );
            assert_eq!(status, PogoStatus::Ok);
            assert!(ran >= 1, "{file}: a call at tick {at} ran nothing");
            let end = at + ran as usize;
            let first = (at..ticks as usize).find(|&t| events[t].iter().any(|e| e & stop != 0));
            assert_eq!(
                end,
                first.map_or(ticks as usize, |t| t + 1),
                "{file}: from {at}"
            );
            for p in 0..width {
                let or = events[at..end].iter().fold(0, |acc, e| acc | e[p]);
                assert_eq!(got[p], or, "{file}: events of player {p} from {at}");
            }
            assert_eq!(sim_hash(stopped.2), hashes[end], "{file}: after tick {end}");
            at = end;
            stops += 1;
        }
        assert!(stops > 10, "{file}: only {stops} stops");
        assert!(
            observed(stopped.2, players) == want,
            "{file}: stopped batches differ"
        );

        for sim in [one, all, random, stopped] {
            free_sim(sim);
        }
    }
    assert_eq!(pogo_handle_count(), baseline);
}

/// Recording through `pogo_sim_step_many` (batches of every size, one stopped early) gives
/// the same replay bytes as recording tick by tick.
#[test]
fn a_batch_records_what_the_ticks_one_by_one_record() {
    let _serial = serial();
    let baseline = pogo_handle_count();
    let played: Vec<PogoInput> = (0..700u32)
        .flat_map(|t| {
            let i = |x: u32| PogoInput {
                steer_x: ((t * x) % 256) as u8 as i8,
                steer_z: (t / 7 % 3) as i8 - 1,
                buttons: (t / 11 % 4) as u8,
            };
            [i(37), i(5)]
        })
        .collect();
    let record = |batches: &[u32]| -> Vec<u8> {
        let made = new_sim("course", 2);
        let mut recorder = PogoRecorder::default();
        let mut bytes = Vec::new();
        // SAFETY: every pointer is a live local or slice of the stated length.
        unsafe {
            let mut def = pogo_default_recorder_def();
            def.sim = made.2;
            (def.player_name, def.player_name_len) = (c"Batch".as_ptr(), 5);
            assert_eq!(pogo_recorder_create(&def, &mut recorder), PogoStatus::Ok);
            let mut at = 0usize;
            for &n in batches {
                if n == 0 {
                    // One tick the old way, between batches.
                    let tick = &played[at * 2..at * 2 + 2];
                    assert_eq!(pogo_sim_step(made.2, tick.as_ptr(), 2), PogoStatus::Ok);
                    assert_eq!(pogo_recorder_record(recorder), PogoStatus::Ok);
                    at += 1;
                    continue;
                }
                let batch = &played[at * 2..(at + n as usize) * 2];
                let (status, ran, _) = step_many(made.2, recorder, batch, n, 0);
                assert_eq!((status, ran), (PogoStatus::Ok, n), "{}", last_error());
                at += n as usize;
            }
            assert_eq!(at, 700);
            assert_eq!(pogo_recorder_finish(recorder), PogoStatus::Ok);
            let mut len = 0usize;
            let status = pogo_recorder_bytes(recorder, null_mut(), 0, &mut len);
            assert_eq!(status, PogoStatus::Ok);
            bytes.resize(len, 0);
            let status = pogo_recorder_bytes(recorder, bytes.as_mut_ptr(), len, &mut len);
            assert_eq!(status, PogoStatus::Ok);
        }
        assert_eq!(pogo_recorder_free(recorder), PogoStatus::Ok);
        free_sim(made);
        bytes
    };
    let one_by_one = record(&[0; 700]);
    assert_eq!(record(&[700]), one_by_one, "one batch");
    assert_eq!(record(&[1, 59, 60, 61, 0, 119, 399]), one_by_one, "batches");
    assert!(verify(&one_by_one).kind == POGO_VERDICT_VERIFIED);
    assert_eq!(pogo_handle_count(), baseline);
}

/// Bad arguments to `pogo_sim_step_many` are a status with a reason, and nothing runs: no
/// tick, no recording.
#[test]
fn a_bad_batch_is_refused_before_any_tick_runs() {
    let _serial = serial();
    let baseline = pogo_handle_count();
    let made = new_sim("course", 2);
    let other = new_sim("flat", 2);
    let sim = made.2;
    let good = vec![
        PogoInput {
            steer_x: 90,
            steer_z: -128,
            buttons: POGO_BUTTON_DIVE,
        };
        2 * 30
    ];
    let none = PogoRecorder::default();
    let (status, ran, _) = step_many(sim, none, &good[..20], 10, 0);
    assert_eq!((status, ran), (PogoStatus::Ok, 10));
    let before = (sim_tick(sim), sim_hash(sim));
    let unchanged = |what: &str| assert_eq!((sim_tick(sim), sim_hash(sim)), before, "{what}");

    // An undefined button bit anywhere in the batch (the last tick's second player here).
    let mut bad = good.clone();
    bad[2 * 30 - 1].buttons = 0x04;
    let (status, ran, _) = step_many(sim, none, &bad, 30, 0);
    assert_eq!(status, PogoStatus::InvalidArgument);
    assert_eq!(ran, u32::MAX, "a refused call wrote");
    let message = last_error();
    assert!(
        message.contains("player 1 at tick 29") && message.contains("0x04"),
        "{message}"
    );
    unchanged("undefined buttons");

    // Too many ticks: refused before the inputs are read.
    let (status, _, _) = step_many(sim, none, &good, POGO_STEP_TICKS_MAX + 1, 0);
    assert_eq!(status, PogoStatus::InvalidArgument);
    assert!(last_error().contains("36000"), "{}", last_error());
    unchanged("too many ticks");

    // NULL inputs with ticks, a NULL `ran`; NULL inputs and no ticks are fine.
    let (status, _, _) = step_many(sim, none, &[], 3, 0);
    assert_eq!(status, PogoStatus::NullPointer);
    unchanged("NULL inputs");
    // SAFETY: `good` holds 30 ticks of 2 players; `ran` is NULL, as tested.
    let status =
        unsafe { pogo_sim_step_many(sim, none, good.as_ptr(), 3, 0, null_mut(), null_mut()) };
    assert_eq!(status, PogoStatus::NullPointer);
    assert!(last_error().contains("ran"), "{}", last_error());
    unchanged("NULL ran");
    let (status, ran, _) = step_many(sim, none, &[], 0, 0);
    assert_eq!((status, ran), (PogoStatus::Ok, 0));
    unchanged("no ticks");

    // Handles: zero, forged, of another kind, freed.
    let freed = new_sim("flat", 1);
    let freed_sim = freed.2;
    free_sim(freed);
    for (handle, want) in [
        (PogoSim::default(), PogoStatus::InvalidHandle),
        (PogoSim { id: 0xdead_beef }, PogoStatus::InvalidHandle),
        (PogoSim { id: made.1.id }, PogoStatus::WrongHandleKind),
        (freed_sim, PogoStatus::StaleHandle),
    ] {
        let (status, _, _) = step_many(handle, none, &good[..2], 1, 0);
        assert_eq!(status, want, "{handle:?}: {}", last_error());
    }

    // Recorders: of another simulation, behind the simulation, finished, stale.
    let fresh = new_sim("course", 2);
    let theirs = recorder_of(other.2);
    let (status, _, _) = step_many(fresh.2, theirs, &good[..2], 1, 0);
    assert_eq!(status, PogoStatus::Mismatch, "{}", last_error());
    let behind = recorder_of(fresh.2);
    // SAFETY: one tick of 2 players.
    let status = unsafe { pogo_sim_step(fresh.2, good.as_ptr(), 2) };
    assert_eq!(status, PogoStatus::Ok);
    let (status, _, _) = step_many(fresh.2, behind, &good[..2], 1, 0);
    assert_eq!(status, PogoStatus::InvalidState, "{}", last_error());
    assert_eq!(sim_tick(fresh.2), 1, "a refused batch ran");
    let finished = recorder_of(other.2);
    assert_eq!(pogo_recorder_finish(finished), PogoStatus::Ok);
    let (status, _, _) = step_many(other.2, finished, &good[..2], 1, 0);
    assert_eq!(status, PogoStatus::InvalidState, "{}", last_error());
    assert_eq!(pogo_recorder_free(finished), PogoStatus::Ok);
    let (status, _, _) = step_many(other.2, finished, &good[..2], 1, 0);
    assert_eq!(status, PogoStatus::StaleHandle, "{}", last_error());
    assert_eq!(sim_tick(other.2), 0, "a refused batch ran");

    for recorder in [theirs, behind] {
        assert_eq!(pogo_recorder_free(recorder), PogoStatus::Ok);
    }
    for made in [made, other, fresh] {
        free_sim(made);
    }
    assert_eq!(pogo_handle_count(), baseline);
}

/// A driver's frame checks its recorder as a batch does (`recording::check_room`), before
/// any tick runs: a recorder of another simulation, one that did not record from the
/// simulation's tick, or a finished one is refused, and neither the simulation nor the
/// driver has moved.
#[test]
fn a_frame_refuses_a_recorder_that_cannot_take_its_ticks_before_any_tick_runs() {
    let _serial = serial();
    let baseline = pogo_handle_count();
    let ours = new_sim("course", 2);
    let other = new_sim("course", 2);
    let mut driver = PogoDriver::default();
    let mut def = pogo_default_driver_def();
    def.players = 2;
    // SAFETY: live locals.
    let status = unsafe { pogo_driver_create(&def, &mut driver) };
    assert_eq!(status, PogoStatus::Ok);
    let advance = |recorder: PogoRecorder, now_ns: u64| {
        let mut info = PogoFrameInfo::default();
        // SAFETY: a live local.
        let status = unsafe { pogo_driver_advance(driver, ours.2, recorder, now_ns, &mut info) };
        (status, info.ticks_run)
    };
    const SECOND: u64 = 1_000_000_000;

    let theirs = recorder_of(other.2);
    assert_eq!(
        advance(theirs, SECOND).0,
        PogoStatus::Mismatch,
        "{}",
        last_error()
    );
    assert!(
        last_error().contains("another simulation"),
        "{}",
        last_error()
    );
    let finished = recorder_of(ours.2);
    assert_eq!(pogo_recorder_finish(finished), PogoStatus::Ok);
    assert_eq!(
        advance(finished, SECOND).0,
        PogoStatus::InvalidState,
        "{}",
        last_error()
    );
    assert_eq!(sim_tick(ours.2), 0, "a refused frame ran");
    // A recorder made at tick 0, then one tick run without it: it has not recorded tick 0.
    let behind = recorder_of(ours.2);
    assert_eq!(
        advance(PogoRecorder::default(), SECOND / 60 + 1),
        (PogoStatus::Ok, 1)
    );
    assert_eq!(
        advance(behind, SECOND).0,
        PogoStatus::InvalidState,
        "{}",
        last_error()
    );
    assert!(last_error().contains("next tick"), "{}", last_error());
    assert_eq!(sim_tick(ours.2), 1, "a refused frame ran");
    // The driver did not move either: the frame runs the 59 ticks due since.
    assert_eq!(
        advance(PogoRecorder::default(), SECOND),
        (PogoStatus::Ok, 59)
    );

    for recorder in [theirs, finished, behind] {
        assert_eq!(pogo_recorder_free(recorder), PogoStatus::Ok);
    }
    assert_eq!(pogo_driver_free(driver), PogoStatus::Ok);
    for made in [ours, other] {
        free_sim(made);
    }
    assert_eq!(pogo_handle_count(), baseline);
}
