//! Everything that crosses the boundary: handles, status codes, constants and the `#[repr(C)]`
//! structs. Plain data, no Rust types inside (no `bool`, no Rust enums as inputs, no `usize`
//! in anything hashed or serialised): what C, C#, GDScript's GDExtension glue and JavaScript
//! see. cbindgen turns this file (with `api.rs`) into `include/pogo.h`.
//!
//! Struct layouts are part of the ABI: fields are ordered widest first, so there is no padding
//! on any target, and `pogo_sizeof` reports each size so a binding that mirrors a struct (a C#
//! `StructLayout`, the JavaScript wrapper) can check its copy at load time.

use core::ffi::c_char;

/// Version of this C ABI: bumped on any change a compiled caller could notice (a function's
/// signature or meaning, a struct's layout, a constant's value). Compare it with
/// `POGO_ABI_VERSION` from the header you compiled against.
pub const POGO_ABI_VERSION: u32 = 1;

/// Most players in one simulation (the replay format's limit).
pub const POGO_PLAYERS_MAX: usize = 16;

/// Most objects (handles of every kind) alive at once.
pub const POGO_HANDLES_MAX: u32 = 4096;

/// Highest `PogoDriverDef.ticks_per_frame_max`: 10 minutes at 60 Hz, which bounds the work of
/// one `pogo_driver_advance`.
pub const POGO_TICKS_PER_FRAME_LIMIT: u32 = 36_000;

/// Most ticks one recording holds: the default verifier's limit (4 hours at 60 Hz), since a
/// longer replay would be refused anyway.
pub const POGO_RECORD_TICKS_MAX: u32 = 4 * 3600 * 60;

/// Version of the snapshot bytes (`pogo_sim_snapshot`; layout in `ffi/src/snapshot.rs`).
pub const POGO_SNAPSHOT_VERSION: u16 = 1;

/// Bytes of `PogoVerdict.reason`, including the terminating NUL.
pub const POGO_REASON_BYTES: usize = 256;

/// Every defined button bit of `PogoInput.buttons`; any other bit is rejected.
pub const POGO_BUTTON_TRICK: u8 = 1 << 0;
/// Held while falling: gravity scaled by `dive_gravity_scale`.
pub const POGO_BUTTON_DIVE: u8 = 1 << 1;

/// `PogoPlayerState.state` codes (the codes of the state hash).
pub const POGO_STATE_RESPAWN: u32 = 0;
pub const POGO_STATE_AIRBORNE: u32 = 1;
pub const POGO_STATE_COMPRESSION: u32 = 2;
pub const POGO_STATE_STUNNED: u32 = 3;
pub const POGO_STATE_FINISHED: u32 = 4;

/// `PogoPlayerState.events` bits: what happened to the pogo during the last tick.
pub const POGO_EVENT_BOUNCE: u32 = 1 << 0;
pub const POGO_EVENT_PERFECT: u32 = 1 << 1;
pub const POGO_EVENT_LAUNCH: u32 = 1 << 2;
pub const POGO_EVENT_RICOCHET: u32 = 1 << 3;
pub const POGO_EVENT_BODY_HIT: u32 = 1 << 4;
pub const POGO_EVENT_STUN: u32 = 1 << 5;
pub const POGO_EVENT_TRICK_STARTED: u32 = 1 << 6;
pub const POGO_EVENT_TRICK_LANDED: u32 = 1 << 7;
pub const POGO_EVENT_TRICK_FAILED: u32 = 1 << 8;
pub const POGO_EVENT_CHECKPOINT: u32 = 1 << 9;
pub const POGO_EVENT_FINISH: u32 = 1 << 10;
pub const POGO_EVENT_DEATH: u32 = 1 << 11;
/// The pogo was moved without travelling (respawn): do not interpolate across this tick.
pub const POGO_EVENT_TELEPORT: u32 = 1 << 12;

/// `PogoVerdict.kind` codes: `POGO_VERDICT_VERIFIED`, or the kind of the first problem
/// found (the same kinds as `pogo verify --json`; `pogo_verdict_kind_name` gives the name).
pub const POGO_VERDICT_VERIFIED: u32 = 0;
pub const POGO_VERDICT_BAD_MAGIC: u32 = 1;
pub const POGO_VERDICT_UNSUPPORTED_FORMAT: u32 = 2;
pub const POGO_VERDICT_TRUNCATED: u32 = 3;
pub const POGO_VERDICT_CHECKSUM: u32 = 4;
pub const POGO_VERDICT_TOO_LONG: u32 = 5;
pub const POGO_VERDICT_SPARSE_HASHES: u32 = 6;
pub const POGO_VERDICT_IO: u32 = 7;
pub const POGO_VERDICT_MALFORMED: u32 = 8;
pub const POGO_VERDICT_RULES_VERSION: u32 = 9;
pub const POGO_VERDICT_FORMAT_MISMATCH: u32 = 10;
pub const POGO_VERDICT_TUNING_MISMATCH: u32 = 11;
pub const POGO_VERDICT_UNKNOWN_LEVEL: u32 = 12;
pub const POGO_VERDICT_LEVEL_MISMATCH: u32 = 13;
pub const POGO_VERDICT_DESYNC: u32 = 14;
pub const POGO_VERDICT_OUTCOME_MISMATCH: u32 = 15;
pub const POGO_VERDICT_OVER_BUDGET: u32 = 16;
pub const POGO_VERDICT_OUT_OF_TIME: u32 = 17;
/// A kind this ABI version has no code for (a newer `pogo-replay`); the reason says what.
pub const POGO_VERDICT_OTHER: u32 = 255;

/// `pogo_sizeof` selectors.
pub const POGO_STRUCT_INPUT: u32 = 1;
pub const POGO_STRUCT_PLAYER_STATE: u32 = 2;
pub const POGO_STRUCT_FRAME_INFO: u32 = 3;
pub const POGO_STRUCT_VERDICT: u32 = 4;
pub const POGO_STRUCT_SIM_DEF: u32 = 5;
pub const POGO_STRUCT_DRIVER_DEF: u32 = 6;
pub const POGO_STRUCT_RECORDER_DEF: u32 = 7;
pub const POGO_STRUCT_VERIFIER_DEF: u32 = 8;
pub const POGO_STRUCT_REPLAY_INFO: u32 = 9;

/// What every call returns. `POGO_STATUS_OK` is 0; anything else is an error, described by
/// `pogo_last_error` (this thread's last failed call) and, when the call's first handle was
/// valid, by `pogo_handle_error` on that handle.
#[repr(i32)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PogoStatus {
    Ok = 0,
    /// A required pointer was NULL (or NULL with a non-zero length).
    NullPointer = 1,
    /// A handle that this library never issued (zero, garbage, or from a future slot).
    InvalidHandle = 2,
    /// A handle whose object was freed.
    StaleHandle = 3,
    /// A handle of another kind (a tuning where a simulation is expected, say).
    WrongHandleKind = 4,
    /// An argument outside its documented range (players, buttons, UTF-8 text, a definition
    /// struct not initialised with its `pogo_default_…_def()` function).
    InvalidArgument = 5,
    /// The output buffer is too small; the length argument says how many bytes are needed.
    BufferTooSmall = 6,
    /// Level or tuning JSON that does not parse or validate; replay bytes that do not decode.
    Parse = 7,
    /// No built-in level has that name.
    UnknownLevel = 8,
    /// Objects that do not belong together: a tuning's tick rate and a driver's, a recorder
    /// and another simulation, a snapshot of another level, tuning or player count.
    Mismatch = 9,
    /// Snapshot bytes that are not a valid snapshot (length, checksum or any field).
    InvalidSnapshot = 10,
    /// A call out of order: recording a tick that was not just stepped, using a finished
    /// recorder, asking for the bytes of an unfinished one.
    InvalidState = 11,
    /// A limit was reached: handles, the driver's event queue, a recording's length, a
    /// replay's length.
    Limit = 12,
    /// A bug in pogo-ffi (a caught panic). Free the handles involved.
    Internal = 13,
}

// Handles: small value structs holding an id that packs a slot index, the handle's kind and
// the slot's generation (see handle.rs), so a stale, forged or wrong-kind handle is detected,
// never dereferenced. A zeroed handle is never valid. One struct per kind, so C catches a
// handle of one kind passed for another at compile time. (Written out, not by a macro:
// cbindgen does not expand macros.)

/// A level: a built-in one or one parsed from level JSON.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct PogoLevel {
    pub id: u32,
}

/// A validated tuning (the default, or parsed from tuning JSON).
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct PogoTuning {
    pub id: u32,
}

/// A simulation of 1…16 pogos in one level with one tuning.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct PogoSim {
    pub id: u32,
}

/// A frame driver: render frames in nanoseconds and timestamped input events → ticks.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct PogoDriver {
    pub id: u32,
}

/// A replay recorder bound to one simulation.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct PogoRecorder {
    pub id: u32,
}

/// A replay verifier: a tuning, the levels it accepts, limits.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct PogoVerifier {
    pub id: u32,
}

/// The demo bot, which hops along a level's bot path.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct PogoBot {
    pub id: u32,
}

/// A decoded replay: its header, claimed outcome and every player's per-tick inputs.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct PogoReplay {
    pub id: u32,
}

/// One player's input for one tick.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct PogoInput {
    /// Stick toward east (+) / west (−), −127…127 (−128 acts as −127).
    pub steer_x: i8,
    /// Stick toward south (+) / north (−), −127…127 (−128 acts as −127).
    pub steer_z: i8,
    /// `POGO_BUTTON_*` bits; other bits are rejected.
    pub buttons: u8,
}

/// One pogo's state after the last tick: exact fixed-point values (`*_raw`: 32.32 raw bits,
/// i.e. metres × 2³², what the state hash covers) and the same values as `double` for
/// rendering (the raw value / 2³²; never feed them back into anything deterministic).
/// Positions are the tip, the body's lowest point, in metres (x east, y up, z south);
/// velocities in m/s.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Debug, Default)]
pub struct PogoPlayerState {
    pub position_raw: [i64; 3],
    pub velocity_raw: [i64; 3],
    /// The horizontal part (x, z) of the pogo's unit up axis: the sine of its tilt.
    pub lean_raw: [i64; 2],
    /// Highest tip height reached since the start of the run (`INT64_MIN` before the first
    /// tick).
    pub apex_raw: i64,
    pub position: [f64; 3],
    pub velocity: [f64; 3],
    pub lean: [f64; 2],
    pub apex: f64,
    /// A `POGO_STATE_*` code.
    pub state: u32,
    pub combo: u32,
    /// Landings that bounced since the start of the run.
    pub bounces: u32,
    /// `POGO_EVENT_*` bits of the last tick.
    pub events: u32,
    /// 1 if the pogo has finished (then `finish_tick` is the tick it finished on), else 0.
    pub finished: u32,
    pub finish_tick: u32,
    /// 1 if the pogo has entered a checkpoint (then `checkpoint` is its index), else 0.
    pub has_checkpoint: u32,
    pub checkpoint: u32,
    pub stun_ticks_left: u32,
    /// 1 while a trick is on (then `trick_ticks_left` ticks remain until it completes).
    pub trick_active: u32,
    pub trick_ticks_left: u32,
    pub reserved: u32,
}

/// What one `pogo_driver_advance` call did.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Debug, Default)]
pub struct PogoFrameInfo {
    /// How far the clock is into the next tick, in [0, 1): 32.32 raw bits (exact).
    pub alpha_raw: i64,
    /// The same as a double, for interpolating: draw previous + (current − previous) · alpha,
    /// or current alone if its events have `POGO_EVENT_TELEPORT`.
    pub alpha: f64,
    /// Ticks run by this call.
    pub ticks_run: u32,
    /// Ticks run since the start.
    pub total_ticks: u32,
    /// Ticks already due but held back by the per-frame cap; they run on the next calls.
    pub ticks_pending: u32,
    pub reserved: u32,
}

/// The outcome of verifying one replay.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PogoVerdict {
    /// Verified: the state hash after the last tick.
    pub final_hash: u64,
    /// Verified: the replay's level and tuning content hashes.
    pub level_hash: u64,
    pub tuning_hash: u64,
    /// Rejected with `POGO_VERDICT_DESYNC`, `_TUNING_MISMATCH` or `_LEVEL_MISMATCH`: the
    /// recorded and the re-simulated (or the server's) hash; with `_RULES_VERSION` or
    /// `_FORMAT_MISMATCH`: the numbers. Otherwise 0.
    pub expected: u64,
    pub found: u64,
    /// `POGO_VERDICT_VERIFIED` (0) or the kind of the first problem.
    pub kind: u32,
    /// Verified: ticks, players, rules version of the replay.
    pub ticks: u32,
    pub players: u32,
    pub rules_version: u32,
    /// `POGO_VERDICT_DESYNC`: the tick whose state differs.
    pub desync_tick: u32,
    /// `POGO_VERDICT_OUTCOME_MISMATCH`: the player whose claimed finish differs.
    pub player: u32,
    /// Verified: bit i set if player i finished, at `finish_ticks[i]`.
    pub finished_mask: u32,
    /// Bytes of `reason` before its NUL.
    pub reason_len: u32,
    pub finish_ticks: [u32; POGO_PLAYERS_MAX],
    /// Rejected: what is wrong, for a human, NUL-terminated UTF-8 (cut at a character
    /// boundary if longer); control characters escaped. Verified: "verified".
    pub reason: [c_char; POGO_REASON_BYTES],
}

impl Default for PogoVerdict {
    fn default() -> PogoVerdict {
        PogoVerdict {
            final_hash: 0,
            level_hash: 0,
            tuning_hash: 0,
            expected: 0,
            found: 0,
            kind: 0,
            ticks: 0,
            players: 0,
            rules_version: 0,
            desync_tick: 0,
            player: 0,
            finished_mask: 0,
            reason_len: 0,
            finish_ticks: [0; POGO_PLAYERS_MAX],
            reason: [0; POGO_REASON_BYTES],
        }
    }
}

/// What a decoded replay's header and trailer say. Everything here is the replay's *claim*:
/// decoding checks the bytes (framing, checksums, the format's rules), not the simulation;
/// only a verifier (or a re-simulation from the inputs) checks the hashes and finish ticks.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct PogoReplayInfo {
    /// The content hashes of the level and the tuning it was recorded with (compare them
    /// with `pogo_level_hash` and `pogo_tuning_hash` before re-simulating).
    pub level_hash: u64,
    pub tuning_hash: u64,
    /// The state hash after the last tick, as the trailer claims it.
    pub claimed_final_hash: u64,
    /// `pogo_rules_version()` of the simulation that recorded it.
    pub rules_version: u32,
    /// Ticks per second.
    pub tick_rate: u32,
    /// 1…`POGO_PLAYERS_MAX`.
    pub players: u32,
    /// Ticks recorded: every player has one input per tick.
    pub ticks: u32,
    /// A state hash is stored after every tick `t` with `(t + 1) % hash_interval == 0`.
    pub hash_interval: u32,
    /// Bit i set if player i finished (as claimed), at `finish_ticks[i]`; other entries 0.
    pub finished_mask: u32,
    pub finish_ticks: [u32; POGO_PLAYERS_MAX],
}

/// Marks a definition struct filled in by its `pogo_default_…_def()` function: a struct
/// declared without it (zeroed, or stack garbage) is rejected instead of read. The value
/// differs per struct, so one kind of definition cannot pass for another.
pub(crate) const SIM_DEF_COOKIE: u32 = 0x504f_4701;
pub(crate) const DRIVER_DEF_COOKIE: u32 = 0x504f_4702;
pub(crate) const RECORDER_DEF_COOKIE: u32 = 0x504f_4703;
pub(crate) const VERIFIER_DEF_COOKIE: u32 = 0x504f_4704;

/// How to create a simulation. Get one from `pogo_default_sim_def()`, then set the fields.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PogoSimDef {
    /// Set by `pogo_default_sim_def()`; do not touch.
    pub internal_value: u32,
    pub level: PogoLevel,
    pub tuning: PogoTuning,
    /// 1…`POGO_PLAYERS_MAX`; default 1.
    pub players: u32,
}

/// How to create a frame driver. Get one from `pogo_default_driver_def()`.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PogoDriverDef {
    /// Set by `pogo_default_driver_def()`; do not touch.
    pub internal_value: u32,
    /// Ticks per second; must be the simulation's tuning's (default 60).
    pub tick_rate: u32,
    /// 1…`POGO_PLAYERS_MAX`; must be the simulation's (default 1).
    pub players: u32,
    /// The most ticks one `pogo_driver_advance` runs (the spiral-of-death guard; the rest
    /// stay due and run on later frames), 1…36000; default 240 (4 s at 60 Hz).
    pub ticks_per_frame_max: u32,
}

/// How to create a recorder. Get one from `pogo_default_recorder_def()`.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PogoRecorderDef {
    /// Set by `pogo_default_recorder_def()`; do not touch.
    pub internal_value: u32,
    /// The simulation to record, at tick 0.
    pub sim: PogoSim,
    /// Optional UTF-8 player name stored in the replay (letters, digits, space and - _ . ',
    /// at most 32 characters); NULL or length 0 for none.
    pub player_name: *const c_char,
    pub player_name_len: usize,
    /// Optional date stored in the replay (digits and - : . + T Z space, at most 32 bytes);
    /// NULL or length 0 for none, so a run always records the same bytes.
    pub date: *const c_char,
    pub date_len: usize,
}

/// How to create a verifier. Get one from `pogo_default_verifier_def()`.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PogoVerifierDef {
    /// Set by `pogo_default_verifier_def()`; do not touch.
    pub internal_value: u32,
    /// The tuning replays must have been recorded with.
    pub tuning: PogoTuning,
    /// Levels accepted besides the built-in ones (by name): an array of `level_count`
    /// handles, or NULL with 0.
    pub levels: *const PogoLevel,
    pub level_count: usize,
    /// 1 (default): the built-in levels are accepted too; 0: only `levels`.
    pub builtin_levels: u32,
    /// Most ticks in a replay; default 4 hours at 60 Hz.
    pub max_ticks: u32,
    /// Longest stretch of play between two stored state hashes (s), 1…10; default 1.
    pub max_hash_interval_s: u32,
    /// Wall-clock limit per verification in ms, 0 (default) for none. Not available in the
    /// WebAssembly build (which has no clock): there it must be 0.
    pub max_duration_ms: u32,
    /// Most player-ticks (ticks × players) one verification simulates; default 864000.
    pub max_player_ticks: u64,
}

// Layouts without padding, the same on every target but for the pointer-sized fields of the
// recorder and verifier definitions (checked against `pogo_sizeof` by bindings).
const _: () = assert!(size_of::<PogoInput>() == 3);
const _: () = assert!(size_of::<PogoPlayerState>() == 192);
const _: () = assert!(size_of::<PogoFrameInfo>() == 32);
const _: () = assert!(size_of::<PogoVerdict>() == 72 + 4 * POGO_PLAYERS_MAX + POGO_REASON_BYTES);
const _: () = assert!(size_of::<PogoReplayInfo>() == 48 + 4 * POGO_PLAYERS_MAX);
const _: () = assert!(size_of::<PogoSimDef>() == 16);
const _: () = assert!(size_of::<PogoDriverDef>() == 16);
const _: () = assert!(POGO_PLAYERS_MAX == pogo_core::PLAYERS_MAX);
const _: () = assert!(POGO_BUTTON_TRICK == pogo_core::Buttons::TRICK.0);
const _: () = assert!(POGO_BUTTON_DIVE == pogo_core::Buttons::DIVE.0);
