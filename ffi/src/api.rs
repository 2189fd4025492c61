//! The C entry points: every `pogo_` symbol, each a thin wrapper that checks its pointers
//! through `ptr.rs`, runs its body through `call` (no panic crosses the boundary; errors
//! become a status and a message) and leaves the work to the modules of the crate.
//!
//! Lint note: this module allows `unsafe_code` only for `#[unsafe(no_mangle)]` and the
//! `unsafe extern "C" fn` declarations of entry points that take pointers (their `# Safety`
//! sections state the caller's side of the contract). It contains no unsafe block.

#![allow(unsafe_code)]

use core::ffi::c_char;
use std::ffi::CStr;
use std::sync::Arc;

use pogo_core::bot::Bot;
use pogo_core::{Fx, PLAYERS_MAX, RULES_VERSION, Simulation, Ticks, Tuning, Vec3};
use pogo_replay::{BUILTIN_LEVELS, FORMAT_VERSION};

use crate::error::{self, Error, call_value};
use crate::handle::{self, Object};
use crate::level::Level;
use crate::ptr;
use crate::recorder::RecorderObject;
use crate::sim::{self, SimObject};
use crate::types::*;
use crate::{batch, driver, memory, recording, replay, track, tuning, verifier};

/// Runs one entry point's body: catches any panic (it must not unwind into C), and on error
/// remembers the message for this thread (`error.rs`) and for the call's first handle
/// `primary` (0: none; the registry's) and returns the status.
fn call(primary: u32, body: impl FnOnce() -> Result<(), Error>) -> PogoStatus {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body))
        .unwrap_or_else(|payload| Err(Error::internal(&*payload)));
    match result {
        Ok(()) => PogoStatus::Ok,
        Err(error) => {
            error::set_last(&error);
            if primary != 0 {
                handle::with(|r| r.set_error(primary, &error.message));
            }
            error.status
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Versions, status codes, errors

/// The ABI version this library implements (`POGO_ABI_VERSION` of its header). A caller
/// compiled against another header should refuse to run.
#[unsafe(no_mangle)]
pub extern "C" fn pogo_abi_version() -> u32 {
    POGO_ABI_VERSION
}

/// The simulation rules version (`pogo_core::RULES_VERSION`): a client and a server agree on
/// results only if they report the same one.
#[unsafe(no_mangle)]
pub extern "C" fn pogo_rules_version() -> u32 {
    RULES_VERSION
}

/// The replay format version the recorder writes and the verifier reads.
#[unsafe(no_mangle)]
pub extern "C" fn pogo_replay_format_version() -> u32 {
    u32::from(FORMAT_VERSION)
}

/// The name of a status code ("ok", "null_pointer", …; "unknown" for other numbers), a
/// static NUL-terminated string.
#[unsafe(no_mangle)]
pub extern "C" fn pogo_status_name(status: i32) -> *const c_char {
    let name: &CStr = match status {
        0 => c"ok",
        1 => c"null_pointer",
        2 => c"invalid_handle",
        3 => c"stale_handle",
        4 => c"wrong_handle_kind",
        5 => c"invalid_argument",
        6 => c"buffer_too_small",
        7 => c"parse",
        8 => c"unknown_level",
        9 => c"mismatch",
        10 => c"invalid_snapshot",
        11 => c"invalid_state",
        12 => c"limit",
        13 => c"internal",
        _ => c"unknown",
    };
    name.as_ptr()
}

/// Copies the message of this thread's last failed call into `buffer` (NUL-terminated, cut
/// at a character boundary to fit `capacity`) and returns its full length in bytes without
/// the NUL ("" and 0 if no call on this thread has failed). Successful calls leave it alone.
/// NULL or capacity 0 only returns the length.
///
/// # Safety
///
/// `buffer` is NULL or valid for writing `capacity` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_last_error(buffer: *mut c_char, capacity: usize) -> usize {
    call_value(0, || ptr::write_text(&error::last(), buffer, capacity))
}

/// Like `pogo_last_error`, for the last failed call whose first argument was this handle
/// (any kind: pass `handle.id`); if the handle is not live, says why (freed, never issued).
///
/// # Safety
///
/// `buffer` is NULL or valid for writing `capacity` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_handle_error(
    handle: u32,
    buffer: *mut c_char,
    capacity: usize,
) -> usize {
    call_value(0, || {
        let message = handle::with(|r| r.error_of(handle));
        ptr::write_text(&message, buffer, capacity)
    })
}

/// Objects alive (handles not yet freed), of every kind: 0 once a program has freed all.
#[unsafe(no_mangle)]
pub extern "C" fn pogo_handle_count() -> u32 {
    call_value(0, || handle::with(|r| r.live() as u32))
}

/// `sizeof` of a struct of this ABI (`POGO_STRUCT_*`), 0 for an unknown selector: for
/// bindings that mirror the structs (C#, JavaScript) to check their layout at load time.
#[unsafe(no_mangle)]
pub extern "C" fn pogo_sizeof(which: u32) -> usize {
    match which {
        POGO_STRUCT_INPUT => size_of::<PogoInput>(),
        POGO_STRUCT_PLAYER_STATE => size_of::<PogoPlayerState>(),
        POGO_STRUCT_FRAME_INFO => size_of::<PogoFrameInfo>(),
        POGO_STRUCT_VERDICT => size_of::<PogoVerdict>(),
        POGO_STRUCT_SIM_DEF => size_of::<PogoSimDef>(),
        POGO_STRUCT_DRIVER_DEF => size_of::<PogoDriverDef>(),
        POGO_STRUCT_RECORDER_DEF => size_of::<PogoRecorderDef>(),
        POGO_STRUCT_VERIFIER_DEF => size_of::<PogoVerifierDef>(),
        POGO_STRUCT_REPLAY_INFO => size_of::<PogoReplayInfo>(),
        POGO_STRUCT_TRACK_CHECK => size_of::<PogoTrackCheck>(),
        _ => 0,
    }
}

// ---------------------------------------------------------------------------------------------
// Memory (for WebAssembly hosts)

/// A zeroed block of `len` bytes (1 … 128 MiB) in the library's memory, 8-byte aligned, or
/// NULL (see `pogo_last_error`). For hosts that must place arguments in the library's memory
/// (JavaScript with the WebAssembly build); C callers use their own memory.
#[unsafe(no_mangle)]
pub extern "C" fn pogo_alloc(len: usize) -> *mut u8 {
    let mut block = core::ptr::null_mut();
    call(0, || {
        block = memory::alloc(len)?;
        Ok(())
    });
    block
}

/// Frees a block from `pogo_alloc`. Any other pointer, or a block freed already, is refused
/// with `POGO_STATUS_INVALID_ARGUMENT` (nothing is freed).
#[unsafe(no_mangle)]
pub extern "C" fn pogo_dealloc(block: *mut u8) -> PogoStatus {
    call(0, || memory::dealloc(block))
}

/// Blocks from `pogo_alloc` not yet freed.
#[unsafe(no_mangle)]
pub extern "C" fn pogo_block_count() -> u32 {
    call_value(0, || memory::live() as u32)
}

// ---------------------------------------------------------------------------------------------
// Levels

/// Loads the built-in level called `name` (UTF-8, `name_len` bytes: "flat", "course",
/// "sprawl").
///
/// # Safety
///
/// `name` is valid for reading `name_len` bytes; `out` is valid for writing a `PogoLevel`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_level_builtin(
    name: *const c_char,
    name_len: usize,
    out: *mut PogoLevel,
) -> PogoStatus {
    call(0, || {
        let out = ptr::out(out, "out")?;
        let name = ptr::text(name, name_len, "name")?;
        let level = Level::builtin(name)?;
        out.write(insert_level(level)?);
        Ok(())
    })
}

/// Loads a level from level JSON text (UTF-8, `text_len` bytes, at most 64 MiB; schema in
/// `replay/LEVELS.md`), parsed and validated: `POGO_STATUS_PARSE` with the line and column
/// of the problem otherwise.
///
/// # Safety
///
/// `text` is valid for reading `text_len` bytes; `out` is valid for writing a `PogoLevel`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_level_from_json(
    text: *const c_char,
    text_len: usize,
    out: *mut PogoLevel,
) -> PogoStatus {
    call(0, || {
        let out = ptr::out(out, "out")?;
        let text = ptr::text(text, text_len, "text")?;
        let level = Level::from_json(text)?;
        out.write(insert_level(level)?);
        Ok(())
    })
}

fn insert_level(level: Level) -> Result<PogoLevel, Error> {
    let id = handle::with(|r| r.insert(Object::Level(Arc::new(level))))?;
    Ok(PogoLevel { id })
}

/// Frees a level. Simulations and verifiers made from it keep working.
#[unsafe(no_mangle)]
pub extern "C" fn pogo_level_free(level: PogoLevel) -> PogoStatus {
    call(level.id, || {
        handle::with(|r| r.remove(level.id, handle::Kind::Level)).map(drop)
    })
}

/// The level's content hash (what a replay's header names it by).
///
/// # Safety
///
/// `out` is valid for writing a `uint64_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_level_hash(level: PogoLevel, out: *mut u64) -> PogoStatus {
    call(level.id, || {
        let out = ptr::out(out, "out")?;
        out.write(handle::with(|r| {
            Ok::<_, Error>(r.level(level)?.desc().content_hash())
        })?);
        Ok(())
    })
}

/// The level's name, UTF-8 without a NUL: copied into `buffer` if it holds `*len` bytes. A
/// NULL `buffer` with capacity 0 only writes `*len`; a smaller buffer gets
/// `POGO_STATUS_BUFFER_TOO_SMALL` and `*len` too.
///
/// # Safety
///
/// `buffer` is NULL or valid for writing `capacity` bytes; `len` is valid for writing a
/// `size_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_level_name(
    level: PogoLevel,
    buffer: *mut c_char,
    capacity: usize,
    len: *mut usize,
) -> PogoStatus {
    call(level.id, || {
        let len = ptr::out(len, "len")?;
        let name = handle::with(|r| Ok::<_, Error>(r.level(level)?.desc().name.clone()))?;
        ptr::copy_out(name.as_bytes(), buffer.cast::<u8>(), capacity, len)
    })
}

/// The number of built-in levels.
#[unsafe(no_mangle)]
pub extern "C" fn pogo_builtin_level_count() -> u32 {
    BUILTIN_LEVELS.len() as u32
}

/// The name of built-in level `index` (0 … count − 1), as `pogo_level_name` gives names.
///
/// # Safety
///
/// `buffer` is NULL or valid for writing `capacity` bytes; `len` is valid for writing a
/// `size_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_builtin_level_name(
    index: u32,
    buffer: *mut c_char,
    capacity: usize,
    len: *mut usize,
) -> PogoStatus {
    call(0, || {
        let len = ptr::out(len, "len")?;
        let (name, _) = BUILTIN_LEVELS.get(index as usize).ok_or_else(|| {
            Error::invalid(format_args!(
                "built-in level {index} does not exist (there are {})",
                BUILTIN_LEVELS.len()
            ))
        })?;
        ptr::copy_out(name.as_bytes(), buffer.cast::<u8>(), capacity, len)
    })
}

/// Checks level JSON text (UTF-8, `text_len` bytes) as a player-made track under `tuning`:
/// the same gate the server applies before publishing one (`pogo_replay::track::check_track`:
/// at most 256 KiB, the level format, the core's validation, then a track's limits — 2 000
/// objects, 64 moving platforms, 64 checkpoints, a finish, every coordinate within 2 km of
/// the origin). A refusal is an answer, not an error: the status is OK either way and
/// `out->accepted` says which. The text written to `buffer` is the track's level name when
/// accepted, else the refusal's field (its first `out->field_len` bytes) and reason. `*out`
/// is written whenever the status is OK or `POGO_STATUS_BUFFER_TOO_SMALL` (with `*len`); a
/// NULL `buffer` with capacity 0 only asks for the length.
///
/// # Safety
///
/// `text` is valid for reading `text_len` bytes; `out` for writing a `PogoTrackCheck`;
/// `buffer` is NULL or valid for writing `capacity` bytes; `len` for writing a `size_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_track_check(
    tuning: PogoTuning,
    text: *const c_char,
    text_len: usize,
    out: *mut PogoTrackCheck,
    buffer: *mut c_char,
    capacity: usize,
    len: *mut usize,
) -> PogoStatus {
    call(tuning.id, || {
        let out = ptr::out(out, "out")?;
        let len = ptr::out(len, "len")?;
        let text = ptr::text(text, text_len, "text")?;
        let tuning = handle::with(|r| Ok::<_, Error>((**r.tuning(tuning)?).clone()))?;
        let (check, words) = track::check(text, &tuning);
        out.write(check);
        ptr::copy_out(words.as_bytes(), buffer.cast::<u8>(), capacity, len)
    })
}

// ---------------------------------------------------------------------------------------------
// Tunings

/// The default tuning (`pogo_core::Tuning::default()`).
///
/// # Safety
///
/// `out` is valid for writing a `PogoTuning`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_tuning_default(out: *mut PogoTuning) -> PogoStatus {
    call(0, || {
        let out = ptr::out(out, "out")?;
        out.write(insert_tuning(Tuning::default())?);
        Ok(())
    })
}

/// A tuning from tuning JSON (UTF-8, `text_len` bytes, at most 1 MiB): the defaults with the
/// file's keys applied, each checked, then the whole validated; `POGO_STATUS_PARSE` with the
/// key and place of the problem otherwise.
///
/// # Safety
///
/// `text` is valid for reading `text_len` bytes; `out` is valid for writing a `PogoTuning`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_tuning_from_json(
    text: *const c_char,
    text_len: usize,
    out: *mut PogoTuning,
) -> PogoStatus {
    call(0, || {
        let out = ptr::out(out, "out")?;
        let text = ptr::text(text, text_len, "text")?;
        out.write(insert_tuning(tuning::from_json(text)?)?);
        Ok(())
    })
}

fn insert_tuning(tuning: Tuning) -> Result<PogoTuning, Error> {
    let id = handle::with(|r| r.insert(Object::Tuning(Box::new(tuning))))?;
    Ok(PogoTuning { id })
}

/// Frees a tuning. Simulations and verifiers made with it keep working.
#[unsafe(no_mangle)]
pub extern "C" fn pogo_tuning_free(tuning: PogoTuning) -> PogoStatus {
    call(tuning.id, || {
        handle::with(|r| r.remove(tuning.id, handle::Kind::Tuning)).map(drop)
    })
}

/// The tuning's content hash: a client's and the server's must be equal for its replays to
/// verify.
///
/// # Safety
///
/// `out` is valid for writing a `uint64_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_tuning_hash(tuning: PogoTuning, out: *mut u64) -> PogoStatus {
    call(tuning.id, || {
        let out = ptr::out(out, "out")?;
        out.write(handle::with(|r| {
            Ok::<_, Error>(r.tuning(tuning)?.content_hash())
        })?);
        Ok(())
    })
}

/// The tuning's tick rate (Hz), which a driver for its simulations must use.
///
/// # Safety
///
/// `out` is valid for writing a `uint32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_tuning_tick_rate(tuning: PogoTuning, out: *mut u32) -> PogoStatus {
    call(tuning.id, || {
        let out = ptr::out(out, "out")?;
        out.write(handle::with(|r| {
            Ok::<_, Error>(r.tuning(tuning)?.spec().tick_rate)
        })?);
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------
// Simulations

/// A simulation definition with the defaults: no level or tuning yet (set them), 1 player.
#[unsafe(no_mangle)]
pub extern "C" fn pogo_default_sim_def() -> PogoSimDef {
    PogoSimDef {
        internal_value: SIM_DEF_COOKIE,
        level: PogoLevel::default(),
        tuning: PogoTuning::default(),
        players: 1,
    }
}

/// Creates a simulation of `def->players` pogos at the level's spawn, at tick 0. Building the
/// level's world for the tuning's tick rate happens here (once per level and rate).
///
/// # Safety
///
/// `def` is valid for reading a `PogoSimDef`; `out` is valid for writing a `PogoSim`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_sim_create(def: *const PogoSimDef, out: *mut PogoSim) -> PogoStatus {
    call(0, || {
        let out = ptr::out(out, "out")?;
        let def = ptr::read(def, "def")?;
        if def.internal_value != SIM_DEF_COOKIE {
            return Err(Error::invalid(
                "PogoSimDef was not initialised with pogo_default_sim_def()",
            ));
        }
        if def.players == 0 || def.players as usize > PLAYERS_MAX {
            return Err(Error::invalid(format_args!(
                "players {} is outside 1…{PLAYERS_MAX}",
                def.players
            )));
        }
        let (level, tuning) = handle::with(|r| {
            Ok::<_, Error>((
                r.level(def.level)?.clone(),
                (**r.tuning(def.tuning)?).clone(),
            ))
        })?;
        let world = level.world(&tuning)?;
        let sim = Simulation::new(world, tuning, def.players as usize)
            .map_err(|e| Error::invalid(format_args!("cannot create the simulation: {e}")))?;
        let id = handle::with(|r| r.insert(Object::Sim(Box::new(SimObject::new(sim)))))?;
        out.write(PogoSim { id });
        Ok(())
    })
}

/// Frees a simulation. A recorder of it can no longer record or finish.
#[unsafe(no_mangle)]
pub extern "C" fn pogo_sim_free(sim: PogoSim) -> PogoStatus {
    call(sim.id, || {
        handle::with(|r| r.remove(sim.id, handle::Kind::Sim)).map(drop)
    })
}

/// The number of players.
///
/// # Safety
///
/// `out` is valid for writing a `uint32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_sim_players(sim: PogoSim, out: *mut u32) -> PogoStatus {
    call(sim.id, || {
        let out = ptr::out(out, "out")?;
        out.write(handle::with(|r| {
            Ok::<_, Error>(r.sim(sim)?.players() as u32)
        })?);
        Ok(())
    })
}

/// Ticks run so far (the next tick to run).
///
/// # Safety
///
/// `out` is valid for writing a `uint32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_sim_tick(sim: PogoSim, out: *mut u32) -> PogoStatus {
    call(sim.id, || {
        let out = ptr::out(out, "out")?;
        out.write(handle::with(|r| {
            Ok::<_, Error>(r.sim(sim)?.sim.state().tick.0)
        })?);
        Ok(())
    })
}

/// Runs one tick with one input per player (`count` must be the player count; buttons with
/// undefined bits are refused, and then nothing runs).
///
/// # Safety
///
/// `inputs` is valid for reading `count` `PogoInput`s.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_sim_step(
    sim: PogoSim,
    inputs: *const PogoInput,
    count: usize,
) -> PogoStatus {
    call(sim.id, || {
        let mut buffer = [PogoInput::default(); PLAYERS_MAX];
        let inputs = ptr::array_into(inputs, count, &mut buffer, "inputs")?;
        handle::with(|r| r.sim_mut(sim)?.step_checked(inputs))
    })
}

/// Runs up to `ticks` ticks in one call, with the inputs of every tick already in memory:
/// what a ghost or a replay steps with, without a call per tick. `inputs` holds `ticks` ×
/// players `PogoInput`s, tick-major (tick `t`'s input of player `p` is `inputs[t · players +
/// p]`, tick 0 being the simulation's next tick); each tick runs exactly as `pogo_sim_step`
/// with that tick's inputs, so the states and hashes are the same bit for bit. Each tick is
/// recorded with `recorder` unless its id is 0 (as `pogo_driver_advance` records: the
/// recorder must record this simulation and be at its tick). The call stops after the first
/// tick in which a player's events share a bit with `stop_events` (`POGO_EVENT_*` bits; 0:
/// run every tick), so a caller can read the state at a checkpoint or a finish.
///
/// `*ran` (required) gets the number of ticks run; `events` (NULL if not wanted) gets, per
/// player, the `POGO_EVENT_*` bits of every tick run OR'd together. `ticks` is at most
/// `POGO_STEP_TICKS_MAX` (36 000); 0 runs nothing (NULL `inputs` is fine then). Everything is
/// checked before the first tick runs — the handles, the tick count, every input's buttons
/// (undefined bits are `POGO_STATUS_INVALID_ARGUMENT`, with the tick and player), the
/// recorder — so on error nothing has run.
///
/// # Safety
///
/// `inputs` is valid for reading `ticks` × players `PogoInput`s (NULL is fine when `ticks`
/// is 0); `ran` is valid for writing a `uint32_t`; `events` is NULL or valid for writing
/// players `uint32_t`s.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_sim_step_many(
    sim: PogoSim,
    recorder: PogoRecorder,
    inputs: *const PogoInput,
    ticks: u32,
    stop_events: u32,
    ran: *mut u32,
    events: *mut u32,
) -> PogoStatus {
    call(sim.id, || {
        let ran = ptr::out(ran, "ran")?;
        let (batch, players) = handle::with(|r| {
            let players = r.sim(sim)?.players();
            batch::check_ticks(ticks)?;
            // At most 36 000 × 16 × 3 bytes: no overflow.
            let len = ticks as usize * players * size_of::<PogoInput>();
            let bytes = ptr::bytes(inputs.cast::<u8>(), len, "inputs")?;
            Ok::<_, Error>((
                batch::step_many(r, sim, recorder, bytes, ticks, stop_events)?,
                players,
            ))
        })?;
        ran.write(batch.ran);
        if !events.is_null() {
            ptr::copy_array_out(&batch.events[..players], events, players, "events")?;
        }
        Ok(())
    })
}

/// Player `player`'s pogo after the last tick.
///
/// # Safety
///
/// `out` is valid for writing a `PogoPlayerState`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_sim_player_state(
    sim: PogoSim,
    player: u32,
    out: *mut PogoPlayerState,
) -> PogoStatus {
    call(sim.id, || {
        let out = ptr::out(out, "out")?;
        let state =
            handle::with(|r| Ok::<_, Error>(sim::player_state(r.sim(sim)?.pogo(player, false)?)))?;
        out.write(state);
        Ok(())
    })
}

/// Player `player`'s pogo before the last tick: what a renderer interpolates from (the same
/// as `pogo_sim_player_state` after creation and after a restore).
///
/// # Safety
///
/// `out` is valid for writing a `PogoPlayerState`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_sim_previous_player_state(
    sim: PogoSim,
    player: u32,
    out: *mut PogoPlayerState,
) -> PogoStatus {
    call(sim.id, || {
        let out = ptr::out(out, "out")?;
        let state =
            handle::with(|r| Ok::<_, Error>(sim::player_state(r.sim(sim)?.pogo(player, true)?)))?;
        out.write(state);
        Ok(())
    })
}

/// Where moving platform `platform`'s `min` corner is at the start of `tick` (metres × 2³²;
/// x, y, z into `out[0..3]`): `World::platform_position`, the rule the simulation moves it
/// by. A renderer interpolates between two ticks' positions.
///
/// # Safety
///
/// `out` is valid for writing three `int64_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_sim_platform_position(
    sim: PogoSim,
    platform: u32,
    tick: u32,
    out: *mut i64,
) -> PogoStatus {
    call(sim.id, || {
        let position = handle::with(|r| {
            let world = r.sim(sim)?.sim.world();
            if platform >= world.platform_count() {
                return Err(Error::invalid(format_args!(
                    "platform {platform} of a level with {}",
                    world.platform_count()
                )));
            }
            Ok(world.platform_position(platform, Ticks(tick)))
        })?;
        let raw = [position.x, position.y, position.z].map(Fx::to_bits);
        ptr::copy_array_out(&raw, out, raw.len(), "out")
    })
}

/// The highest surface under the point (`x_raw`, `y_raw`, `z_raw`) (metres × 2³²) at the
/// start of `tick`, no higher than the point's height plus `reach_raw`: `World::ground_below`
/// (a solid's or a platform's top, or a ramp's surface), for a renderer's shadows. Writes 1 to
/// `found` and the surface's height (metres × 2³²) to `top_raw` if there is one, else 0 to
/// `found`.
///
/// # Safety
///
/// `top_raw` and `found` are valid for writing an `int64_t` and a `uint32_t`.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn pogo_sim_ground_below(
    sim: PogoSim,
    x_raw: i64,
    y_raw: i64,
    z_raw: i64,
    reach_raw: i64,
    tick: u32,
    top_raw: *mut i64,
    found: *mut u32,
) -> PogoStatus {
    call(sim.id, || {
        let (top_out, found_out) = (ptr::out(top_raw, "top_raw")?, ptr::out(found, "found")?);
        let point = Vec3::new(
            Fx::from_bits(x_raw),
            Fx::from_bits(y_raw),
            Fx::from_bits(z_raw),
        );
        let top = handle::with(|r| {
            let world = r.sim(sim)?.sim.world();
            Ok::<_, Error>(world.ground_below(point, Fx::from_bits(reach_raw), Ticks(tick)))
        })?;
        top_out.write(top.map_or(0, Fx::to_bits));
        found_out.write(u32::from(top.is_some()));
        Ok(())
    })
}

/// The state hash (`SimState::state_hash`: xxh3-64 of a documented little-endian encoding;
/// the same on every platform, in every build).
///
/// # Safety
///
/// `out` is valid for writing a `uint64_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_sim_state_hash(sim: PogoSim, out: *mut u64) -> PogoStatus {
    call(sim.id, || {
        let out = ptr::out(out, "out")?;
        out.write(handle::with(|r| {
            Ok::<_, Error>(r.sim(sim)?.sim.state_hash())
        })?);
        Ok(())
    })
}

/// Writes a snapshot of the whole state (`ffi/src/snapshot.rs` documents the bytes:
/// 273 bytes for one player, 229 more per extra player) into `buffer` if it holds `*len`
/// bytes. A NULL `buffer` with capacity 0 only writes `*len`; a smaller buffer gets
/// `POGO_STATUS_BUFFER_TOO_SMALL` and `*len` too.
///
/// # Safety
///
/// `buffer` is NULL or valid for writing `capacity` bytes; `len` is valid for writing a
/// `size_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_sim_snapshot(
    sim: PogoSim,
    buffer: *mut u8,
    capacity: usize,
    len: *mut usize,
) -> PogoStatus {
    call(sim.id, || {
        let len = ptr::out(len, "len")?;
        let bytes = handle::with(|r| Ok::<_, Error>(r.sim(sim)?.snapshot()))?;
        ptr::copy_out(&bytes, buffer, capacity, len)
    })
}

/// Restores a snapshot of this simulation (same level, tuning, player count and rules);
/// stepping on continues bit-identically. Every field is validated: garbage, damaged or
/// forged bytes are `POGO_STATUS_INVALID_SNAPSHOT`, another simulation's snapshot
/// `POGO_STATUS_MISMATCH`, and then nothing changes.
///
/// # Safety
///
/// `bytes` is valid for reading `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_sim_restore(
    sim: PogoSim,
    bytes: *const u8,
    len: usize,
) -> PogoStatus {
    call(sim.id, || {
        let bytes = ptr::bytes(bytes, len, "bytes")?;
        handle::with(|r| r.sim_mut(sim)?.restore(bytes))
    })
}

// ---------------------------------------------------------------------------------------------
// The demo bot

/// Creates a demo bot: it hops along the level's bot path (for demos and tests).
///
/// # Safety
///
/// `out` is valid for writing a `PogoBot`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_bot_create(out: *mut PogoBot) -> PogoStatus {
    call(0, || {
        let out = ptr::out(out, "out")?;
        let id = handle::with(|r| r.insert(Object::Bot(Box::new(Bot::new()))))?;
        out.write(PogoBot { id });
        Ok(())
    })
}

/// Frees a bot.
#[unsafe(no_mangle)]
pub extern "C" fn pogo_bot_free(bot: PogoBot) -> PogoStatus {
    call(bot.id, || {
        handle::with(|r| r.remove(bot.id, handle::Kind::Bot)).map(drop)
    })
}

/// The bot's input for player `player`'s next tick, from that pogo's state now. Use one bot
/// per player, and ask it once per tick.
///
/// # Safety
///
/// `out` is valid for writing a `PogoInput`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_bot_input(
    bot: PogoBot,
    sim: PogoSim,
    player: u32,
    out: *mut PogoInput,
) -> PogoStatus {
    call(bot.id, || {
        let out = ptr::out(out, "out")?;
        let input = handle::with(|r| {
            let mut b = (**r.bot(bot)?).clone();
            let s = r.sim(sim)?;
            let input = b.input(s.sim.world(), s.sim.tuning(), s.pogo(player, false)?);
            **r.bot_mut(bot)? = b;
            Ok::<_, Error>(input)
        })?;
        out.write(sim::to_c_input(input));
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------
// Frame drivers

/// A driver definition with the defaults: 60 Hz, 1 player, at most 240 ticks per frame.
#[unsafe(no_mangle)]
pub extern "C" fn pogo_default_driver_def() -> PogoDriverDef {
    driver::default_def()
}

/// Creates a frame driver at time 0, with every player's input neutral.
///
/// # Safety
///
/// `def` is valid for reading a `PogoDriverDef`; `out` is valid for writing a `PogoDriver`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_driver_create(
    def: *const PogoDriverDef,
    out: *mut PogoDriver,
) -> PogoStatus {
    call(0, || {
        let out = ptr::out(out, "out")?;
        let def = ptr::read(def, "def")?;
        let driver = driver::create(&def)?;
        let id = handle::with(|r| r.insert(Object::Driver(Box::new(driver))))?;
        out.write(PogoDriver { id });
        Ok(())
    })
}

/// Frees a driver.
#[unsafe(no_mangle)]
pub extern "C" fn pogo_driver_free(driver: PogoDriver) -> PogoStatus {
    call(driver.id, || {
        handle::with(|r| r.remove(driver.id, handle::Kind::Driver)).map(drop)
    })
}

/// When tick `tick` ends (nanoseconds since the run started): the first time at which
/// `pogo_driver_advance` runs it, `ceil((tick + 1) · 10⁹ / rate)`. With `tick` the
/// simulation's next tick, the time to advance to to run exactly one more tick. The driver
/// alone keeps the schedule: a host never computes it.
///
/// # Safety
///
/// `out` is valid for writing a `uint64_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_driver_tick_end_ns(
    driver: PogoDriver,
    tick: u32,
    out: *mut u64,
) -> PogoStatus {
    call(driver.id, || {
        let out = ptr::out(out, "out")?;
        out.write(handle::with(|r| {
            Ok::<_, Error>(r.driver(driver)?.tick_end_ns(tick))
        })?);
        Ok(())
    })
}

/// Queues `*input` as player `player`'s input from time `at_ns` (nanoseconds since the run
/// started) on: each tick uses the input of the latest event at or before its own start, so
/// the ticks' inputs do not depend on the frame rate. Push every event up to `now` before
/// `pogo_driver_advance(…, now)`. An event older than the last one pushed is filed at the
/// last one's time, and one whose tick already ran at the next tick's start; `*filed_at_ns`
/// (if not NULL) says when it was filed: those times, pushed in order into a fresh driver
/// before their ticks run, give the same ticks (what a live race sends its server). A full
/// queue (4096 events) is `POGO_STATUS_LIMIT` and changes nothing.
///
/// # Safety
///
/// `input` is valid for reading a `PogoInput`; `filed_at_ns` is NULL or valid for writing a
/// `uint64_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_driver_push_event(
    driver: PogoDriver,
    at_ns: u64,
    player: u32,
    input: *const PogoInput,
    filed_at_ns: *mut u64,
) -> PogoStatus {
    call(driver.id, || {
        let filed_out = ptr::out_optional(filed_at_ns);
        let input = ptr::read(input, "input")?;
        let filed =
            handle::with(|r| driver::push_event(r.driver_mut(driver)?, at_ns, player, &input))?;
        if let Some(out) = filed_out {
            out.write(filed);
        }
        Ok(())
    })
}

/// Advances the clock to `now_ns` and runs every tick that became due (at most the
/// per-frame cap) on `sim`, recording each with `recorder` unless its id is 0. The driver
/// must be for the simulation's player count and tick rate and have run as many ticks as
/// the simulation (one driver drives one simulation from tick 0); the recorder must record
/// this simulation. Everything is checked first: on error nothing has run. `*out` says how
/// many ticks ran and the interpolation factor.
///
/// # Safety
///
/// `out` is valid for writing a `PogoFrameInfo`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_driver_advance(
    driver: PogoDriver,
    sim: PogoSim,
    recorder: PogoRecorder,
    now_ns: u64,
    out: *mut PogoFrameInfo,
) -> PogoStatus {
    call(driver.id, || {
        let out = ptr::out(out, "out")?;
        let frame = handle::with(|r| driver::advance(r, driver, sim, recorder, now_ns))?;
        out.write(frame);
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------
// Recorders

/// A recorder definition with the defaults: no simulation yet (set it), no player name, no
/// date.
#[unsafe(no_mangle)]
pub extern "C" fn pogo_default_recorder_def() -> PogoRecorderDef {
    PogoRecorderDef {
        internal_value: RECORDER_DEF_COOKIE,
        sim: PogoSim::default(),
        player_name: core::ptr::null(),
        player_name_len: 0,
        date: core::ptr::null(),
        date_len: 0,
    }
}

/// Starts recording `def->sim`, which must be at tick 0. Then call `pogo_recorder_record`
/// once after every `pogo_sim_step` (or pass the recorder to `pogo_driver_advance`), and
/// `pogo_recorder_finish` at the end.
///
/// # Safety
///
/// `def` is valid for reading a `PogoRecorderDef` whose text pointers are NULL or valid for
/// reading their lengths; `out` is valid for writing a `PogoRecorder`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_recorder_create(
    def: *const PogoRecorderDef,
    out: *mut PogoRecorder,
) -> PogoStatus {
    call(0, || {
        let out = ptr::out(out, "out")?;
        let def = ptr::read(def, "def")?;
        if def.internal_value != RECORDER_DEF_COOKIE {
            return Err(Error::invalid(
                "PogoRecorderDef was not initialised with pogo_default_recorder_def()",
            ));
        }
        let optional = |text: &str| (!text.is_empty()).then(|| text.to_string());
        let name = optional(ptr::text(
            def.player_name,
            def.player_name_len,
            "player_name",
        )?);
        let date = optional(ptr::text(def.date, def.date_len, "date")?);
        let id = handle::with(|r| {
            let recorder = RecorderObject::new(def.sim, r.sim(def.sim)?, name, date)?;
            r.insert(Object::Recorder(Box::new(recorder)))
        })?;
        out.write(PogoRecorder { id });
        Ok(())
    })
}

/// Frees a recorder (and its recording).
#[unsafe(no_mangle)]
pub extern "C" fn pogo_recorder_free(recorder: PogoRecorder) -> PogoStatus {
    call(recorder.id, || {
        handle::with(|r| r.remove(recorder.id, handle::Kind::Recorder)).map(drop)
    })
}

/// Records the tick the simulation just ran: the inputs it ran with and, once a second, its
/// state hash, both taken from the simulation. `POGO_STATUS_INVALID_STATE` unless exactly
/// one tick was stepped since the last record (from tick 0, no restore in between).
#[unsafe(no_mangle)]
pub extern "C" fn pogo_recorder_record(recorder: PogoRecorder) -> PogoStatus {
    call(recorder.id, || {
        handle::with(|r| recording::record_tick(r, recorder))
    })
}

/// Ends the recording with the outcome the simulation reached (finish ticks, final hash);
/// the simulation must be at the last recorded tick. Then `pogo_recorder_bytes` gives the
/// replay.
#[unsafe(no_mangle)]
pub extern "C" fn pogo_recorder_finish(recorder: PogoRecorder) -> PogoStatus {
    call(recorder.id, || {
        handle::with(|r| recording::finish(r, recorder))
    })
}

/// Ticks recorded so far.
///
/// # Safety
///
/// `out` is valid for writing a `uint32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_recorder_ticks(recorder: PogoRecorder, out: *mut u32) -> PogoStatus {
    call(recorder.id, || {
        let out = ptr::out(out, "out")?;
        out.write(handle::with(|r| {
            Ok::<_, Error>(r.recorder(recorder)?.ticks())
        })?);
        Ok(())
    })
}

/// The finished replay (`replay/FORMAT.md`), copied into `buffer` if it holds `*len` bytes.
/// A NULL `buffer` with capacity 0 only writes `*len` (the "how many bytes" query); a
/// smaller buffer gets `POGO_STATUS_BUFFER_TOO_SMALL` and `*len` too. Before
/// `pogo_recorder_finish`: `POGO_STATUS_INVALID_STATE`.
///
/// # Safety
///
/// `buffer` is NULL or valid for writing `capacity` bytes; `len` is valid for writing a
/// `size_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_recorder_bytes(
    recorder: PogoRecorder,
    buffer: *mut u8,
    capacity: usize,
    len: *mut usize,
) -> PogoStatus {
    call(recorder.id, || {
        let len = ptr::out(len, "len")?;
        handle::with(|r| {
            let bytes = r.recorder(recorder)?.bytes()?;
            ptr::copy_out(bytes, buffer, capacity, len)
        })
    })
}

// ---------------------------------------------------------------------------------------------
// Verifiers

/// A verifier definition with the defaults: no tuning yet (set it), built-in levels
/// accepted, `pogo verify`'s limits (4 hours, a hash every second), no time limit.
#[unsafe(no_mangle)]
pub extern "C" fn pogo_default_verifier_def() -> PogoVerifierDef {
    verifier::default_def()
}

/// Creates a verifier: replays must match its tuning and name one of its levels.
///
/// # Safety
///
/// `def` is valid for reading a `PogoVerifierDef` whose `levels` is NULL or valid for
/// reading `level_count` handles; `out` is valid for writing a `PogoVerifier`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_verifier_create(
    def: *const PogoVerifierDef,
    out: *mut PogoVerifier,
) -> PogoStatus {
    call(0, || {
        let out = ptr::out(out, "out")?;
        let def = ptr::read(def, "def")?;
        let levels = ptr::array(def.levels, def.level_count, verifier::LEVELS_MAX, "levels")?;
        let id = handle::with(|r| {
            let verifier = verifier::create(r, &def, &levels)?;
            r.insert(Object::Verifier(Arc::new(verifier)))
        })?;
        out.write(PogoVerifier { id });
        Ok(())
    })
}

/// Frees a verifier.
#[unsafe(no_mangle)]
pub extern "C" fn pogo_verifier_free(verifier: PogoVerifier) -> PogoStatus {
    call(verifier.id, || {
        handle::with(|r| r.remove(verifier.id, handle::Kind::Verifier)).map(drop)
    })
}

/// Verifies the replay in `bytes` by re-simulating it; any bytes are safe (memory and time
/// are bounded by the limits). Returns `POGO_STATUS_OK` when the verification ran, whatever
/// its outcome: `out->kind` is `POGO_VERDICT_VERIFIED` or the first problem, with the reason.
/// Verifications on several threads run in parallel.
///
/// # Safety
///
/// `bytes` is valid for reading `len` bytes; `out` is valid for writing a `PogoVerdict`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_verifier_verify(
    verifier: PogoVerifier,
    bytes: *const u8,
    len: usize,
    out: *mut PogoVerdict,
) -> PogoStatus {
    call(verifier.id, || {
        let out = ptr::out(out, "out")?;
        let bytes = ptr::bytes(bytes, len, "bytes")?;
        let verifier = handle::with(|r| Ok::<_, Error>(r.verifier(verifier)?.clone()))?;
        out.write(verifier::verify(&verifier, bytes));
        Ok(())
    })
}

/// The name of a verdict kind ("verified", "desync", … as `pogo verify --json` names them;
/// "unknown" for other numbers), a static NUL-terminated string.
#[unsafe(no_mangle)]
pub extern "C" fn pogo_verdict_kind_name(kind: u32) -> *const c_char {
    verifier::kind_name(kind).as_ptr()
}

// ---------------------------------------------------------------------------------------------
// Replays

/// Decodes the replay in `bytes` (`replay/FORMAT.md`) into a replay object: its header, its
/// claimed outcome and every player's input for every tick, to re-simulate it (a ghost) with
/// `pogo_sim_step`. Any bytes are safe: every chunk is bounded and checked before it is
/// decoded, and replays longer than the default verifier's limits (4 hours, 864000
/// player-ticks) are refused, so memory and time stay bounded (the inputs take 3 bytes per
/// player per tick). Bytes that are not a valid replay (empty, truncated, damaged, another
/// format version, a hash interval over 1 s) are `POGO_STATUS_PARSE`, too long a replay
/// `POGO_STATUS_LIMIT`, with the decoder's reason. Decoding checks bytes, not play: verify
/// the replay with `pogo_verifier_verify` before trusting what it claims. The library keeps
/// no pointer to `bytes`; free the object with `pogo_replay_free`.
///
/// # Safety
///
/// `bytes` is valid for reading `len` bytes (NULL is fine when `len` is 0); `out` is valid
/// for writing a `PogoReplay`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_replay_decode(
    bytes: *const u8,
    len: usize,
    out: *mut PogoReplay,
) -> PogoStatus {
    call(0, || {
        let out = ptr::out(out, "out")?;
        let bytes = ptr::bytes(bytes, len, "bytes")?;
        // Outside the registry lock: decoding a long replay takes a while.
        let decoded = replay::decode(bytes)?;
        let id = handle::with(|r| r.insert(Object::Replay(Arc::new(decoded))))?;
        out.write(PogoReplay { id });
        Ok(())
    })
}

/// Frees a replay object.
#[unsafe(no_mangle)]
pub extern "C" fn pogo_replay_free(replay: PogoReplay) -> PogoStatus {
    call(replay.id, || {
        handle::with(|r| r.remove(replay.id, handle::Kind::Replay)).map(drop)
    })
}

/// What the replay's header and trailer say: rules version, tick rate, players, ticks,
/// level and tuning hashes, hash interval, the claimed final hash and finish ticks.
///
/// # Safety
///
/// `out` is valid for writing a `PogoReplayInfo`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_replay_info(
    replay: PogoReplay,
    out: *mut PogoReplayInfo,
) -> PogoStatus {
    call(replay.id, || {
        let out = ptr::out(out, "out")?;
        out.write(handle::with(|r| Ok::<_, Error>(r.replay(replay)?.info()))?);
        Ok(())
    })
}

/// The name of the level the replay was recorded on (a built-in level's, or the name inside
/// a level file), UTF-8 without a NUL, as `pogo_level_name` gives names: copied into `buffer`
/// if it holds `*len` bytes; a NULL `buffer` with capacity 0 only writes `*len`; a smaller
/// buffer gets `POGO_STATUS_BUFFER_TOO_SMALL` and `*len` too.
///
/// # Safety
///
/// `buffer` is NULL or valid for writing `capacity` bytes; `len` is valid for writing a
/// `size_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_replay_level_name(
    replay: PogoReplay,
    buffer: *mut c_char,
    capacity: usize,
    len: *mut usize,
) -> PogoStatus {
    call(replay.id, || {
        let len = ptr::out(len, "len")?;
        let object = handle::with(|r| Ok::<_, Error>(r.replay(replay)?.clone()))?;
        ptr::copy_out(
            object.level_name().as_bytes(),
            buffer.cast::<u8>(),
            capacity,
            len,
        )
    })
}

/// The player name stored in the replay (what the recorder's `player_name` was), as
/// `pogo_replay_level_name` gives names; empty (`*len` 0) if the replay has none.
///
/// # Safety
///
/// `buffer` is NULL or valid for writing `capacity` bytes; `len` is valid for writing a
/// `size_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_replay_player_name(
    replay: PogoReplay,
    buffer: *mut c_char,
    capacity: usize,
    len: *mut usize,
) -> PogoStatus {
    call(replay.id, || {
        let len = ptr::out(len, "len")?;
        let object = handle::with(|r| Ok::<_, Error>(r.replay(replay)?.clone()))?;
        ptr::copy_out(
            object.player_name().as_bytes(),
            buffer.cast::<u8>(),
            capacity,
            len,
        )
    })
}

/// The date stored in the replay's header (what the recorder's `date` was: ISO 8601 text,
/// not interpreted), as `pogo_replay_level_name` gives names; empty (`*len` 0) if the replay
/// has none. With the player name it is what re-recording a run under another name must
/// carry over.
///
/// # Safety
///
/// `buffer` is NULL or valid for writing `capacity` bytes; `len` is valid for writing a
/// `size_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_replay_date(
    replay: PogoReplay,
    buffer: *mut c_char,
    capacity: usize,
    len: *mut usize,
) -> PogoStatus {
    call(replay.id, || {
        let len = ptr::out(len, "len")?;
        let object = handle::with(|r| Ok::<_, Error>(r.replay(replay)?.clone()))?;
        ptr::copy_out(object.date().as_bytes(), buffer.cast::<u8>(), capacity, len)
    })
}

/// Copies player `player`'s inputs for ticks `first_tick`, `first_tick + 1`, … into `out`,
/// which holds `count` inputs: min(`count`, ticks − `first_tick`) of them, that number
/// written to `*written` (0 at the end of the replay). Input `i` is the one tick
/// `first_tick + i` ran with: step a simulation of `players` pogos with each player's input
/// of that tick, in order, from tick 0, to re-simulate the run. A player ≥ players or a
/// `first_tick` past the last tick (> ticks) is `POGO_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
///
/// `out` is NULL with `count` 0, or valid for writing `count` `PogoInput`s; `written` is
/// valid for writing a `uint32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pogo_replay_inputs(
    replay: PogoReplay,
    player: u32,
    first_tick: u32,
    out: *mut PogoInput,
    count: u32,
    written: *mut u32,
) -> PogoStatus {
    call(replay.id, || {
        let written = ptr::out(written, "written")?;
        let object = handle::with(|r| Ok::<_, Error>(r.replay(replay)?.clone()))?;
        let inputs = object.inputs(player, first_tick, count)?;
        ptr::copy_array_out(inputs, out, count as usize, "out")?;
        written.write(inputs.len() as u32);
        Ok(())
    })
}
