//! Random call sequences through the C ABI (called from Rust, exactly as C calls it): live,
//! freed, zero, forged and wrong-kind handles; short, NULL and exact buffers; garbage and
//! damaged bytes for snapshots, replays (verified and decoded), levels and tunings;
//! out-of-range players, ticks and buttons; calls out of order. The oracle, for every call:
//!
//! - it returns a defined status and never `POGO_STATUS_INTERNAL` (a caught panic) — and the
//!   process does not crash;
//! - a failed call leaves a non-empty, printable message for `pogo_last_error`;
//! - a plain getter on a handle answers by the handle's fate: OK when live,
//!   `STALE_HANDLE` once freed, `INVALID_HANDLE` for zero, `WRONG_HANDLE_KIND` for a live
//!   handle of another kind;
//! - at the end of a sequence, freeing every live handle leaves no object behind.
//!
//! Seeded: the seed is fixed for CI, printed, and overridable (`POGO_TEST_SEED=<u64>` or
//! `random`; `POGO_TEST_CASES=<n>`).

#![allow(unsafe_code)] // calling the extern "C" entry points

use core::ffi::c_char;
use std::cell::Cell;
use std::ptr::null_mut;

use pogo_ffi::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};

const DEFAULT_SEED: u64 = 0x706f_676f_ff10_0001;

fn config() -> Config {
    let seed = match std::env::var("POGO_TEST_SEED").ok().as_deref() {
        None => DEFAULT_SEED,
        Some("random") => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(DEFAULT_SEED, |d| d.as_nanos() as u64),
        Some(text) => text.parse().expect("POGO_TEST_SEED is a u64 or `random`"),
    };
    let cases = std::env::var("POGO_TEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(48);
    eprintln!("abi_properties: POGO_TEST_SEED={seed} POGO_TEST_CASES={cases}");
    Config {
        cases,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        ..Config::default()
    }
}

/// Which handle an operation passes.
#[derive(Clone, Copy, Debug)]
enum Pick {
    /// A live handle of the right kind (the n-th, modulo how many there are).
    Live(u8),
    /// A freed handle of the right kind.
    Freed(u8),
    /// A live handle of another kind.
    OtherKind(u8),
    Zero,
    Forged(u32),
}

fn pick() -> impl Strategy<Value = Pick> {
    prop_oneof![
        12 => any::<u8>().prop_map(Pick::Live),
        1 => any::<u8>().prop_map(Pick::Freed),
        1 => any::<u8>().prop_map(Pick::OtherKind),
        1 => Just(Pick::Zero),
        1 => any::<u32>().prop_map(Pick::Forged),
    ]
}

/// Bytes an operation passes where a snapshot or a replay is expected.
#[derive(Clone, Debug)]
enum Bytes {
    Garbage(Vec<u8>),
    /// A snapshot or recording taken earlier, maybe with one bit flipped, maybe cut short.
    Earlier {
        which: u8,
        flip: Option<u16>,
        cut: Option<u16>,
    },
}

fn bytes() -> impl Strategy<Value = Bytes> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..700).prop_map(Bytes::Garbage),
        (
            any::<u8>(),
            proptest::option::of(any::<u16>()),
            proptest::option::of(any::<u16>())
        )
            .prop_map(|(which, flip, cut)| Bytes::Earlier { which, flip, cut }),
    ]
}

#[derive(Clone, Debug)]
enum Op {
    Level(u8),
    Tuning(u8),
    Sim {
        level: Pick,
        tuning: Pick,
        players: u32,
        cookie: bool,
    },
    Free(Pick, u8),
    Step {
        sim: Pick,
        count: usize,
        buttons: u8,
        null: bool,
    },
    /// `pogo_sim_step_many` with a buffer of 40 ticks of 16 players (always enough for
    /// `ticks` ≤ 40; 36 001 ticks is over the limit and refused before anything is read),
    /// the `bad`-th input carrying `buttons`.
    StepMany {
        sim: Pick,
        recorder: Option<Pick>,
        ticks: u32,
        bad: u16,
        buttons: u8,
        stop: u32,
        null_inputs: bool,
        null_ran: bool,
        events: bool,
    },
    /// Steps a simulation `ticks` times with the bot's input for player 0, recording each
    /// tick with a recorder (whichever statuses that gives).
    Play {
        sim: Pick,
        recorder: Pick,
        bot: Pick,
        ticks: u8,
    },
    PlayerState {
        sim: Pick,
        player: u32,
        previous: bool,
        null: bool,
    },
    Getters(Pick, u8),
    Snapshot {
        sim: Pick,
        capacity: u16,
        null_len: bool,
    },
    Restore {
        sim: Pick,
        bytes: Bytes,
    },
    Recorder {
        sim: Pick,
        name: u8,
    },
    Record(Pick),
    Finish(Pick),
    RecorderBytes {
        recorder: Pick,
        capacity: u16,
    },
    Driver {
        players: u32,
        rate: u32,
        cap: u32,
    },
    Push {
        driver: Pick,
        at: u64,
        player: u32,
        buttons: u8,
    },
    Advance {
        driver: Pick,
        sim: Pick,
        recorder: Option<Pick>,
        now: u64,
    },
    Verifier {
        tuning: Pick,
        interval: u32,
    },
    Verify {
        verifier: Pick,
        bytes: Bytes,
    },
    Bot,
    /// Decodes bytes as a replay.
    Decode(Bytes),
    ReplayInputs {
        replay: Pick,
        player: u32,
        first_tick: u32,
        count: u16,
        null: bool,
    },
    BotInput {
        bot: Pick,
        sim: Pick,
        player: u32,
    },
    Alloc(u32),
    LastError(u16),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => any::<u8>().prop_map(Op::Level),
        2 => any::<u8>().prop_map(Op::Tuning),
        4 => (pick(), pick(), 0u32..18, prop::bool::weighted(0.9))
            .prop_map(|(level, tuning, players, cookie)| Op::Sim { level, tuning, players, cookie }),
        2 => (pick(), any::<u8>()).prop_map(|(p, k)| Op::Free(p, k)),
        10 => (pick(), 0usize..18, prop_oneof![4 => Just(0u8), 1 => any::<u8>()], prop::bool::weighted(0.05))
            .prop_map(|(sim, count, buttons, null)| Op::Step { sim, count, buttons, null }),
        6 => (
            (pick(), proptest::option::of(pick()), prop_oneof![8 => 0u32..40, 1 => Just(36_001u32), 1 => 36_000u32..u32::MAX]),
            (any::<u16>(), prop_oneof![4 => Just(0u8), 1 => any::<u8>()], prop_oneof![2 => Just(0u32), 1 => any::<u32>()]),
            (prop::bool::weighted(0.05), prop::bool::weighted(0.05), any::<bool>()),
        )
            .prop_map(|((sim, recorder, ticks), (bad, buttons, stop), (null_inputs, null_ran, events))| Op::StepMany {
                sim, recorder, ticks, bad, buttons, stop, null_inputs, null_ran, events,
            }),
        6 => (pick(), pick(), pick(), 1u8..150)
            .prop_map(|(sim, recorder, bot, ticks)| Op::Play { sim, recorder, bot, ticks }),
        2 => (pick(), 0u32..4, any::<bool>(), prop::bool::weighted(0.1))
            .prop_map(|(sim, player, previous, null)| Op::PlayerState { sim, player, previous, null }),
        4 => (pick(), any::<u8>()).prop_map(|(p, k)| Op::Getters(p, k)),
        2 => (pick(), 0u16..1200, prop::bool::weighted(0.1))
            .prop_map(|(sim, capacity, null_len)| Op::Snapshot { sim, capacity, null_len }),
        2 => (pick(), bytes()).prop_map(|(sim, bytes)| Op::Restore { sim, bytes }),
        2 => (pick(), any::<u8>()).prop_map(|(sim, name)| Op::Recorder { sim, name }),
        6 => pick().prop_map(Op::Record),
        1 => pick().prop_map(Op::Finish),
        1 => (pick(), 0u16..4000).prop_map(|(recorder, capacity)| Op::RecorderBytes { recorder, capacity }),
        1 => (0u32..18, prop_oneof![Just(60u32), Just(30), Just(0), any::<u32>()], prop_oneof![Just(240u32), Just(0), 1u32..50])
            .prop_map(|(players, rate, cap)| Op::Driver { players, rate, cap }),
        2 => (pick(), 0u64..20_000_000_000, 0u32..3, prop_oneof![4 => Just(0u8), 1 => any::<u8>()])
            .prop_map(|(driver, at, player, buttons)| Op::Push { driver, at, player, buttons }),
        3 => (pick(), pick(), proptest::option::of(pick()), 0u64..20_000_000_000)
            .prop_map(|(driver, sim, recorder, now)| Op::Advance { driver, sim, recorder, now }),
        1 => (pick(), 0u32..12).prop_map(|(tuning, interval)| Op::Verifier { tuning, interval }),
        2 => (pick(), bytes()).prop_map(|(verifier, bytes)| Op::Verify { verifier, bytes }),
        1 => Just(Op::Bot),
        2 => bytes().prop_map(Op::Decode),
        3 => (pick(), 0u32..4, prop_oneof![4 => 0u32..2000, 1 => any::<u32>()], 0u16..2000, prop::bool::weighted(0.05))
            .prop_map(|(replay, player, first_tick, count, null)| Op::ReplayInputs { replay, player, first_tick, count, null }),
        3 => (pick(), pick(), 0u32..3).prop_map(|(bot, sim, player)| Op::BotInput { bot, sim, player }),
        1 => any::<u32>().prop_map(Op::Alloc),
        1 => (0u16..64).prop_map(Op::LastError),
    ]
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Level,
    Tuning,
    Sim,
    Recorder,
    Driver,
    Verifier,
    Bot,
    Replay,
}

const KINDS: [Kind; 8] = [
    Kind::Level,
    Kind::Tuning,
    Kind::Sim,
    Kind::Recorder,
    Kind::Driver,
    Kind::Verifier,
    Kind::Bot,
    Kind::Replay,
];

/// What the sequence has created: live and freed handle ids per kind, and byte strings seen.
#[derive(Default)]
struct Model {
    live: Vec<(Kind, u32)>,
    freed: Vec<(Kind, u32)>,
    blobs: Vec<Vec<u8>>,
    level_json: String,
    /// Calls per returned status code, for the coverage summary.
    statuses: [usize; 14],
}

impl Model {
    fn resolve(&self, kind: Kind, pick: Pick) -> (u32, Fate) {
        let of = |list: &[(Kind, u32)], same: bool| -> Vec<u32> {
            list.iter()
                .filter(|(k, _)| (*k == kind) == same)
                .map(|(_, id)| *id)
                .collect()
        };
        let choose = |ids: Vec<u32>, n: u8, fate: Fate| match ids.len() {
            0 => (0, Fate::Zero),
            len => (ids[n as usize % len], fate),
        };
        match pick {
            Pick::Live(n) => choose(of(&self.live, true), n, Fate::Live),
            Pick::Freed(n) => choose(of(&self.freed, true), n, Fate::Freed),
            Pick::OtherKind(n) => choose(of(&self.live, false), n, Fate::OtherKind),
            Pick::Zero => (0, Fate::Zero),
            Pick::Forged(id) => (id, Fate::Unknown),
        }
    }

    fn blob(&self, bytes: &Bytes) -> Vec<u8> {
        match bytes {
            Bytes::Garbage(g) => g.clone(),
            Bytes::Earlier { which, flip, cut } => {
                let Some(mut b) = (!self.blobs.is_empty())
                    .then(|| self.blobs[*which as usize % self.blobs.len()].clone())
                else {
                    return Vec::new();
                };
                if let Some(flip) = flip.filter(|_| !b.is_empty()) {
                    let bit = flip as usize % (b.len() * 8);
                    b[bit / 8] ^= 1 << (bit % 8);
                }
                if let Some(cut) = cut {
                    b.truncate(*cut as usize % (b.len() + 1));
                }
                b
            }
        }
    }

    fn remember(&mut self, bytes: Vec<u8>) {
        if self.blobs.len() < 32 {
            self.blobs.push(bytes);
        }
    }
}

/// What a handle passed to a call is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Fate {
    Live,
    Freed,
    OtherKind,
    Zero,
    Unknown,
}

/// The oracle for one call: a known status, never an internal error; a message on failure.
fn checked(model: &mut Model, what: &str, status: PogoStatus) -> Result<PogoStatus, TestCaseError> {
    model.statuses[status as usize] += 1;
    prop_assert_ne!(status, PogoStatus::Internal, "{}: internal error", what);
    if status != PogoStatus::Ok {
        let mut buf = [0 as c_char; 1100];
        // SAFETY: the buffer is valid for its length.
        let len = unsafe { pogo_last_error(buf.as_mut_ptr(), buf.len()) };
        let bytes: Vec<u8> = buf[..len.min(buf.len() - 1)]
            .iter()
            .map(|&c| c as u8)
            .collect();
        let message = String::from_utf8(bytes);
        prop_assert!(message.is_ok(), "{}: message is not UTF-8", what);
        let message = message.unwrap();
        prop_assert!(
            !message.is_empty(),
            "{}: {:?} without a message",
            what,
            status
        );
        prop_assert!(
            !message.chars().any(char::is_control),
            "{}: unprintable message {:?}",
            what,
            message
        );
    }
    Ok(status)
}

/// The status a getter must return for a handle of this fate.
fn expect_fate(what: &str, fate: Fate, status: PogoStatus) -> Result<(), TestCaseError> {
    let expected = match fate {
        Fate::Live => PogoStatus::Ok,
        Fate::Freed => PogoStatus::StaleHandle,
        Fate::OtherKind => PogoStatus::WrongHandleKind,
        Fate::Zero => PogoStatus::InvalidHandle,
        Fate::Unknown => return Ok(()),
    };
    prop_assert_eq!(status, expected, "{} with a {:?} handle", what, fate);
    Ok(())
}

fn text(s: &str) -> (*const c_char, usize) {
    (s.as_ptr().cast(), s.len())
}

fn run_op(model: &mut Model, op: &Op) -> Result<(), TestCaseError> {
    // SAFETY: for every call below, the pointers passed are NULL or point to live locals of
    // the right type and length, exactly as the header's contract asks of a C caller.
    unsafe {
        match op {
            Op::Level(n) => {
                let json = model.level_json.clone();
                let sources: [&str; 6] = ["flat", "course", "nope", "", "{", &json];
                let source = sources[*n as usize % sources.len()];
                let mut level = PogoLevel::default();
                let status = if *n as usize % sources.len() >= 3 {
                    let (p, l) = text(source);
                    pogo_level_from_json(p, l, &mut level)
                } else {
                    let (p, l) = text(source);
                    pogo_level_builtin(p, l, &mut level)
                };
                if checked(model, "level", status)? == PogoStatus::Ok {
                    model.live.push((Kind::Level, level.id));
                }
            }
            Op::Tuning(n) => {
                let sources = [
                    "",
                    "{}",
                    "{\"tick_rate\": 30}",
                    "{\"gravity\": -1}",
                    "{\"gravty\": 1}",
                    "[1, 2]",
                    "{\"tick_rate\": 30, \"tick_rate\": 60}",
                ];
                let mut tuning = PogoTuning::default();
                let status = match *n as usize % (sources.len() + 1) {
                    0 => pogo_tuning_default(&mut tuning),
                    i => {
                        let (p, l) = text(sources[i - 1]);
                        pogo_tuning_from_json(p, l, &mut tuning)
                    }
                };
                if checked(model, "tuning", status)? == PogoStatus::Ok {
                    model.live.push((Kind::Tuning, tuning.id));
                }
            }
            Op::Sim {
                level,
                tuning,
                players,
                cookie,
            } => {
                let mut def = pogo_default_sim_def();
                if !cookie {
                    def.internal_value = 0;
                }
                def.level = PogoLevel {
                    id: model.resolve(Kind::Level, *level).0,
                };
                def.tuning = PogoTuning {
                    id: model.resolve(Kind::Tuning, *tuning).0,
                };
                def.players = *players;
                let mut sim = PogoSim::default();
                if checked(model, "sim", pogo_sim_create(&def, &mut sim))? == PogoStatus::Ok {
                    model.live.push((Kind::Sim, sim.id));
                }
            }
            Op::Free(p, k) => {
                let kind = KINDS[*k as usize % KINDS.len()];
                let (id, fate) = model.resolve(kind, *p);
                let status = match kind {
                    Kind::Level => pogo_level_free(PogoLevel { id }),
                    Kind::Tuning => pogo_tuning_free(PogoTuning { id }),
                    Kind::Sim => pogo_sim_free(PogoSim { id }),
                    Kind::Recorder => pogo_recorder_free(PogoRecorder { id }),
                    Kind::Driver => pogo_driver_free(PogoDriver { id }),
                    Kind::Verifier => pogo_verifier_free(PogoVerifier { id }),
                    Kind::Bot => pogo_bot_free(PogoBot { id }),
                    Kind::Replay => pogo_replay_free(PogoReplay { id }),
                };
                let status = checked(model, "free", status)?;
                expect_fate("free", fate, status)?;
                if status == PogoStatus::Ok {
                    model.live.retain(|&(_, i)| i != id);
                    model.freed.push((kind, id));
                }
            }
            Op::Step {
                sim,
                count,
                buttons,
                null: no_inputs,
            } => {
                let (id, _) = model.resolve(Kind::Sim, *sim);
                let inputs = [PogoInput {
                    steer_x: 40,
                    steer_z: -128,
                    buttons: *buttons,
                }; 17];
                let ptr = if *no_inputs {
                    std::ptr::null()
                } else {
                    inputs.as_ptr()
                };
                checked(model, "step", pogo_sim_step(PogoSim { id }, ptr, *count))?;
            }
            Op::StepMany {
                sim,
                recorder,
                ticks,
                bad,
                buttons,
                stop,
                null_inputs,
                null_ran,
                events,
            } => {
                let sim = PogoSim {
                    id: model.resolve(Kind::Sim, *sim).0,
                };
                let recorder = PogoRecorder {
                    id: recorder.map_or(0, |r| model.resolve(Kind::Recorder, r).0),
                };
                let mut inputs = vec![
                    PogoInput {
                        steer_x: -20,
                        steer_z: 127,
                        buttons: 0,
                    };
                    40 * 16
                ];
                let at = *bad as usize % inputs.len();
                inputs[at].buttons = *buttons;
                let (mut ran, mut out) = (0u32, [0u32; 16]);
                // `inputs` holds 40 ticks of 16 players, as many as any call may read (more
                // ticks are refused first); `ran` and `out` are valid (or NULL).
                let status = {
                    pogo_sim_step_many(
                        sim,
                        recorder,
                        if *null_inputs {
                            std::ptr::null()
                        } else {
                            inputs.as_ptr()
                        },
                        *ticks,
                        *stop,
                        if *null_ran { null_mut() } else { &mut ran },
                        if *events {
                            out.as_mut_ptr()
                        } else {
                            null_mut()
                        },
                    )
                };
                checked(model, "step many", status)?;
                if status == PogoStatus::Ok {
                    prop_assert!(ran <= *ticks, "ran {ran} of {ticks}");
                    prop_assert!(*stop != 0 || ran == *ticks, "ran {ran} of {ticks}");
                }
            }
            Op::Play {
                sim,
                recorder,
                bot,
                ticks,
            } => {
                let sim = PogoSim {
                    id: model.resolve(Kind::Sim, *sim).0,
                };
                let recorder = PogoRecorder {
                    id: model.resolve(Kind::Recorder, *recorder).0,
                };
                let bot = PogoBot {
                    id: model.resolve(Kind::Bot, *bot).0,
                };
                let mut players = 0u32;
                if checked(model, "players", pogo_sim_players(sim, &mut players))? != PogoStatus::Ok
                {
                    return Ok(());
                }
                for _ in 0..*ticks {
                    let mut inputs = vec![PogoInput::default(); players as usize];
                    checked(
                        model,
                        "bot input",
                        pogo_bot_input(bot, sim, 0, &mut inputs[0]),
                    )?;
                    if checked(
                        model,
                        "play step",
                        pogo_sim_step(sim, inputs.as_ptr(), inputs.len()),
                    )? != PogoStatus::Ok
                    {
                        break;
                    }
                    checked(model, "play record", pogo_recorder_record(recorder))?;
                }
            }
            Op::PlayerState {
                sim,
                player,
                previous,
                null: no_out,
            } => {
                let (id, _) = model.resolve(Kind::Sim, *sim);
                let mut state = PogoPlayerState::default();
                let out = if *no_out {
                    null_mut()
                } else {
                    &mut state as *mut _
                };
                let status = if *previous {
                    pogo_sim_previous_player_state(PogoSim { id }, *player, out)
                } else {
                    pogo_sim_player_state(PogoSim { id }, *player, out)
                };
                checked(model, "player state", status)?;
            }
            Op::Getters(p, k) => {
                let kind = KINDS[*k as usize % KINDS.len()];
                let (id, fate) = model.resolve(kind, *p);
                let (mut a, mut b) = (0u64, 0u32);
                let status = match kind {
                    Kind::Level => pogo_level_hash(PogoLevel { id }, &mut a),
                    Kind::Tuning => pogo_tuning_tick_rate(PogoTuning { id }, &mut b),
                    Kind::Sim => pogo_sim_state_hash(PogoSim { id }, &mut a),
                    Kind::Recorder => pogo_recorder_ticks(PogoRecorder { id }, &mut b),
                    Kind::Replay => {
                        let mut info = PogoReplayInfo::default();
                        pogo_replay_info(PogoReplay { id }, &mut info)
                    }
                    Kind::Driver | Kind::Verifier | Kind::Bot => {
                        // No plain getter: the handle's error text, which never fails.
                        let mut buf = [0 as c_char; 64];
                        pogo_handle_error(id, buf.as_mut_ptr(), buf.len());
                        return Ok(());
                    }
                };
                let status = checked(model, "getter", status)?;
                expect_fate("getter", fate, status)?;
            }
            Op::Snapshot {
                sim,
                capacity,
                null_len,
            } => {
                let (id, _) = model.resolve(Kind::Sim, *sim);
                let mut buf = vec![0u8; *capacity as usize];
                let mut len = 0usize;
                let len_ptr = if *null_len {
                    null_mut()
                } else {
                    &mut len as *mut usize
                };
                let ptr = if buf.is_empty() {
                    null_mut()
                } else {
                    buf.as_mut_ptr()
                };
                let status = checked(
                    model,
                    "snapshot",
                    pogo_sim_snapshot(PogoSim { id }, ptr, buf.len(), len_ptr),
                )?;
                if status == PogoStatus::Ok && !buf.is_empty() {
                    buf.truncate(len);
                    model.remember(buf);
                } else if status == PogoStatus::BufferTooSmall {
                    prop_assert!(len > buf.len());
                }
            }
            Op::Restore { sim, bytes } => {
                let (id, _) = model.resolve(Kind::Sim, *sim);
                let b = model.blob(bytes);
                let mut before = 0u64;
                pogo_sim_state_hash(PogoSim { id }, &mut before);
                let status = checked(
                    model,
                    "restore",
                    pogo_sim_restore(PogoSim { id }, b.as_ptr(), b.len()),
                )?;
                if status != PogoStatus::Ok {
                    let mut after = 0u64;
                    pogo_sim_state_hash(PogoSim { id }, &mut after);
                    prop_assert_eq!(before, after, "a refused restore changed the state");
                }
            }
            Op::Recorder { sim, name } => {
                let names = [
                    "",
                    "bot",
                    "bad\nname",
                    "Émile",
                    "a name of more than thirty-two characters",
                ];
                let name = names[*name as usize % names.len()];
                let mut def = pogo_default_recorder_def();
                def.sim = PogoSim {
                    id: model.resolve(Kind::Sim, *sim).0,
                };
                (def.player_name, def.player_name_len) = text(name);
                let mut recorder = PogoRecorder::default();
                if checked(model, "recorder", pogo_recorder_create(&def, &mut recorder))?
                    == PogoStatus::Ok
                {
                    model.live.push((Kind::Recorder, recorder.id));
                }
            }
            Op::Record(p) => {
                let (id, _) = model.resolve(Kind::Recorder, *p);
                checked(model, "record", pogo_recorder_record(PogoRecorder { id }))?;
            }
            Op::Finish(p) => {
                let (id, _) = model.resolve(Kind::Recorder, *p);
                checked(model, "finish", pogo_recorder_finish(PogoRecorder { id }))?;
            }
            Op::RecorderBytes { recorder, capacity } => {
                let (id, _) = model.resolve(Kind::Recorder, *recorder);
                let mut buf = vec![0u8; *capacity as usize];
                let mut len = 0usize;
                let ptr = if buf.is_empty() {
                    null_mut()
                } else {
                    buf.as_mut_ptr()
                };
                let status = checked(
                    model,
                    "recorder bytes",
                    pogo_recorder_bytes(PogoRecorder { id }, ptr, buf.len(), &mut len),
                )?;
                if status == PogoStatus::Ok && !buf.is_empty() {
                    buf.truncate(len);
                    model.remember(buf);
                }
            }
            Op::Driver { players, rate, cap } => {
                let mut def = pogo_default_driver_def();
                def.players = *players;
                def.tick_rate = *rate;
                def.ticks_per_frame_max = *cap;
                let mut driver = PogoDriver::default();
                if checked(model, "driver", pogo_driver_create(&def, &mut driver))?
                    == PogoStatus::Ok
                {
                    model.live.push((Kind::Driver, driver.id));
                }
            }
            Op::Push {
                driver,
                at,
                player,
                buttons,
            } => {
                let (id, _) = model.resolve(Kind::Driver, *driver);
                let input = PogoInput {
                    steer_x: -90,
                    steer_z: 12,
                    buttons: *buttons,
                };
                let mut filed = 0u64;
                checked(
                    model,
                    "push",
                    pogo_driver_push_event(PogoDriver { id }, *at, *player, &input, &mut filed),
                )?;
            }
            Op::Advance {
                driver,
                sim,
                recorder,
                now,
            } => {
                let driver = PogoDriver {
                    id: model.resolve(Kind::Driver, *driver).0,
                };
                let sim = PogoSim {
                    id: model.resolve(Kind::Sim, *sim).0,
                };
                let recorder = PogoRecorder {
                    id: recorder.map_or(0, |r| model.resolve(Kind::Recorder, r).0),
                };
                let mut info = PogoFrameInfo::default();
                let status = checked(
                    model,
                    "advance",
                    pogo_driver_advance(driver, sim, recorder, *now, &mut info),
                )?;
                if status == PogoStatus::Ok {
                    prop_assert!(info.alpha >= 0.0 && info.alpha < 1.0);
                }
            }
            Op::Verifier { tuning, interval } => {
                let mut def = pogo_default_verifier_def();
                def.tuning = PogoTuning {
                    id: model.resolve(Kind::Tuning, *tuning).0,
                };
                def.hash_interval_s_max = *interval;
                let mut verifier = PogoVerifier::default();
                if checked(model, "verifier", pogo_verifier_create(&def, &mut verifier))?
                    == PogoStatus::Ok
                {
                    model.live.push((Kind::Verifier, verifier.id));
                }
            }
            Op::Verify { verifier, bytes } => {
                let (id, _) = model.resolve(Kind::Verifier, *verifier);
                let b = model.blob(bytes);
                let mut verdict = PogoVerdict::default();
                let status = checked(
                    model,
                    "verify",
                    pogo_verifier_verify(PogoVerifier { id }, b.as_ptr(), b.len(), &mut verdict),
                )?;
                if status == PogoStatus::Ok {
                    prop_assert!(verdict.reason_len > 0);
                    prop_assert_eq!(verdict.reason[verdict.reason_len as usize], 0);
                }
            }
            Op::Bot => {
                let mut bot = PogoBot::default();
                if checked(model, "bot", pogo_bot_create(&mut bot))? == PogoStatus::Ok {
                    model.live.push((Kind::Bot, bot.id));
                }
            }
            Op::Decode(bytes) => {
                let b = model.blob(bytes);
                let mut replay = PogoReplay::default();
                let status = checked(
                    model,
                    "decode",
                    pogo_replay_decode(b.as_ptr(), b.len(), &mut replay),
                )?;
                if status == PogoStatus::Ok {
                    model.live.push((Kind::Replay, replay.id));
                }
            }
            Op::ReplayInputs {
                replay,
                player,
                first_tick,
                count,
                null: no_out,
            } => {
                let (id, _) = model.resolve(Kind::Replay, *replay);
                let mut buf = vec![PogoInput::default(); *count as usize];
                let out = if *no_out || buf.is_empty() {
                    null_mut()
                } else {
                    buf.as_mut_ptr()
                };
                let mut written = u32::MAX;
                let status = checked(
                    model,
                    "replay inputs",
                    pogo_replay_inputs(
                        PogoReplay { id },
                        *player,
                        *first_tick,
                        out,
                        u32::from(*count),
                        &mut written,
                    ),
                )?;
                if status == PogoStatus::Ok {
                    prop_assert!(written <= u32::from(*count));
                    for input in &buf[..written as usize] {
                        prop_assert_eq!(input.buttons & !(POGO_BUTTON_TRICK | POGO_BUTTON_DIVE), 0);
                        prop_assert!(input.steer_x != -128 && input.steer_z != -128);
                    }
                } else {
                    prop_assert_eq!(written, u32::MAX, "a refused call wrote");
                }
            }
            Op::BotInput { bot, sim, player } => {
                let bot = PogoBot {
                    id: model.resolve(Kind::Bot, *bot).0,
                };
                let sim = PogoSim {
                    id: model.resolve(Kind::Sim, *sim).0,
                };
                let mut input = PogoInput::default();
                checked(
                    model,
                    "bot input",
                    pogo_bot_input(bot, sim, *player, &mut input),
                )?;
            }
            Op::Alloc(len) => {
                let len = *len as usize % 5000;
                let block = pogo_alloc(len);
                if block.is_null() {
                    prop_assert_eq!(len, 0);
                } else {
                    prop_assert_eq!(
                        checked(model, "dealloc", pogo_dealloc(block))?,
                        PogoStatus::Ok
                    );
                    let again = checked(model, "dealloc twice", pogo_dealloc(block))?;
                    prop_assert_eq!(again, PogoStatus::InvalidArgument);
                }
            }
            Op::LastError(capacity) => {
                let mut buf = vec![0 as c_char; *capacity as usize];
                let ptr = if buf.is_empty() {
                    null_mut()
                } else {
                    buf.as_mut_ptr()
                };
                let full = pogo_last_error(ptr, buf.len());
                if !buf.is_empty() {
                    let written = buf.iter().position(|&c| c == 0).unwrap();
                    prop_assert!(written <= full && written < buf.len());
                }
            }
        }
    }
    Ok(())
}

/// Every case starts from a few live objects of each kind (a course and a flat level, the
/// default and a 30 Hz tuning, simulations of 1 and 2 players, recorders of them, a bot, a
/// driver, a verifier, a decoded golden replay of 3 players, whose bytes are the first
/// earlier bytes), so random operations reach past the handle checks.
fn prelude(model: &mut Model) -> Result<(), TestCaseError> {
    model.remember(golden_replay());
    let live = Pick::Live;
    let ops = [
        Op::Level(1),
        Op::Level(0),
        Op::Tuning(0),
        Op::Tuning(3),
        Op::Sim {
            level: live(0),
            tuning: live(0),
            players: 1,
            cookie: true,
        },
        Op::Sim {
            level: live(1),
            tuning: live(0),
            players: 2,
            cookie: true,
        },
        Op::Recorder {
            sim: live(0),
            name: 1,
        },
        Op::Recorder {
            sim: live(1),
            name: 0,
        },
        Op::Bot,
        Op::Driver {
            players: 1,
            rate: 60,
            cap: 240,
        },
        Op::Verifier {
            tuning: live(0),
            interval: 1,
        },
        Op::Decode(Bytes::Earlier {
            which: 0,
            flip: None,
            cut: None,
        }),
    ];
    for op in &ops {
        run_op(model, op)?;
    }
    prop_assert_eq!(model.live.len(), ops.len());
    Ok(())
}

fn golden_replay() -> Vec<u8> {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/course-multi.pogo");
    std::fs::read(path).unwrap()
}

#[test]
fn random_call_sequences_never_crash_and_always_explain() {
    let level_json = pogo_replay::level_to_json(&pogo_replay::levels::flat());
    let mut runner = TestRunner::new(config());
    let statuses = Cell::new([0usize; 14]);
    runner
        .run(&proptest::collection::vec(op(), 1..80), |ops| {
            let baseline = pogo_handle_count();
            let mut model = Model {
                level_json: level_json.clone(),
                ..Model::default()
            };
            let outcome = prelude(&mut model)
                .and_then(|()| ops.iter().try_for_each(|op| run_op(&mut model, op)));
            // Free everything, also after a failure (so shrinking starts clean): nothing may
            // be left behind.
            for &(kind, id) in &model.live {
                let status = match kind {
                    Kind::Level => pogo_level_free(PogoLevel { id }),
                    Kind::Tuning => pogo_tuning_free(PogoTuning { id }),
                    Kind::Sim => pogo_sim_free(PogoSim { id }),
                    Kind::Recorder => pogo_recorder_free(PogoRecorder { id }),
                    Kind::Driver => pogo_driver_free(PogoDriver { id }),
                    Kind::Verifier => pogo_verifier_free(PogoVerifier { id }),
                    Kind::Bot => pogo_bot_free(PogoBot { id }),
                    Kind::Replay => pogo_replay_free(PogoReplay { id }),
                };
                prop_assert_eq!(status, PogoStatus::Ok);
            }
            outcome?;
            prop_assert_eq!(pogo_handle_count(), baseline, "objects left alive");
            prop_assert_eq!(pogo_block_count(), 0, "blocks left allocated");
            let mut sum = statuses.get();
            for (total, n) in sum.iter_mut().zip(model.statuses) {
                *total += n;
            }
            statuses.set(sum);
            Ok(())
        })
        .unwrap();
    // What the sequences reached: every status a caller can cause should show up.
    let summary: Vec<String> = statuses
        .get()
        .iter()
        .enumerate()
        .map(|(code, n)| {
            // SAFETY: pogo_status_name returns a static NUL-terminated string.
            let name = unsafe { std::ffi::CStr::from_ptr(pogo_status_name(code as i32)) };
            format!("{}={n}", name.to_string_lossy())
        })
        .collect();
    eprintln!("abi_properties: {}", summary.join(" "));
    let reached = statuses.get();
    for code in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] {
        assert!(
            reached[code] > 0,
            "no call returned status {code}: {summary:?}"
        );
    }
}
