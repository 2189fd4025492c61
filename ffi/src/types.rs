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

/// Most ticks one `pogo_sim_step_many` call runs: 10 minutes at 60 Hz, as
/// `POGO_TICKS_PER_FRAME_LIMIT`, which bounds the time one call holds the library's lock (a
/// longer replay is stepped in several calls).
pub const POGO_STEP_TICKS_MAX: u32 = 36_000;

/// Most ticks one recording holds: the default verifier's limit (4 hours at 60 Hz), since a
/// longer replay would be refused anyway.
pub const POGO_RECORD_TICKS_MAX: u32 = 4 * 3600 * 60;

/// Version of the snapshot bytes (`pogo_sim_snapshot`; layout in `ffi/src/snapshot.rs`).
pub const POGO_SNAPSHOT_VERSION: u16 = 1;

/// Bytes of `PogoVerdict.reason`, including the terminating NUL.
pub const POGO_REASON_BYTES: usize = 256;

/// `PogoInput.buttons` bit: starts a trick in the air (on the press, not while held). The
/// `POGO_BUTTON_*` bits are the only defined ones; any other bit is rejected.
pub const POGO_BUTTON_TRICK: u8 = 1 << 0;
/// `PogoInput.buttons` bit: held while falling, gravity is scaled by `dive_gravity_scale`.
pub const POGO_BUTTON_DIVE: u8 = 1 << 1;

/// `PogoPlayerState.state` code (the codes of the state hash): dead or not yet placed; the
/// next tick teleports the pogo to its respawn point.
pub const POGO_STATE_RESPAWN: u32 = 0;
/// `PogoPlayerState.state` code: in the air, steering.
pub const POGO_STATE_AIRBORNE: u32 = 1;
/// `PogoPlayerState.state` code: on a surface, moving with it, about to launch.
pub const POGO_STATE_COMPRESSION: u32 = 2;
/// `PogoPlayerState.state` code: in the air after a stun, no steering and no lean until it
/// wears off.
pub const POGO_STATE_STUNNED: u32 = 3;
/// `PogoPlayerState.state` code: reached a finish volume; frozen.
pub const POGO_STATE_FINISHED: u32 = 4;

/// `PogoPlayerState.events` bit (what happened to the pogo during the last tick): landed on a
/// bounceable surface, compression starts.
pub const POGO_EVENT_BOUNCE: u32 = 1 << 0;
/// `PogoPlayerState.events` bit: the landing was perfect (combo + 1).
pub const POGO_EVENT_PERFECT: u32 = 1 << 1;
/// `PogoPlayerState.events` bit: launched off a surface at the end of a compression.
pub const POGO_EVENT_LAUNCH: u32 = 1 << 2;
/// `PogoPlayerState.events` bit: glanced off a surface too steep or too fast to bounce on
/// (combo reset).
pub const POGO_EVENT_RICOCHET: u32 = 1 << 3;
/// `PogoPlayerState.events` bit: the body, above the tip zone, hit something.
pub const POGO_EVENT_BODY_HIT: u32 = 1 << 4;
/// `PogoPlayerState.events` bit: stunned by a hard body hit or a failed trick (combo reset).
pub const POGO_EVENT_STUN: u32 = 1 << 5;
/// `PogoPlayerState.events` bit: the trick button was pressed in the air, a trick started.
pub const POGO_EVENT_TRICK_STARTED: u32 = 1 << 6;
/// `PogoPlayerState.events` bit: landed after the trick completed (combo + 1).
pub const POGO_EVENT_TRICK_LANDED: u32 = 1 << 7;
/// `PogoPlayerState.events` bit: landed before the trick completed (stun).
pub const POGO_EVENT_TRICK_FAILED: u32 = 1 << 8;
/// `PogoPlayerState.events` bit: entered a checkpoint other than the last one; the respawn
/// point moved there.
pub const POGO_EVENT_CHECKPOINT: u32 = 1 << 9;
/// `PogoPlayerState.events` bit: entered a finish volume; the run is over.
pub const POGO_EVENT_FINISH: u32 = 1 << 10;
/// `PogoPlayerState.events` bit: entered a kill volume, fell below `kill_height` or left the
/// world; respawns next tick.
pub const POGO_EVENT_DEATH: u32 = 1 << 11;
/// `PogoPlayerState.events` bit: the pogo was moved without travelling (respawn); do not
/// interpolate across this tick.
pub const POGO_EVENT_TELEPORT: u32 = 1 << 12;

/// `PogoVerdict.kind` codes: `POGO_VERDICT_VERIFIED`, or the kind of the first problem
/// found (the same kinds as `pogo verify --json`; `pogo_verdict_kind_name` gives the name).
/// This one: the replay verified: every stored state hash and the claimed outcome reproduced.
pub const POGO_VERDICT_VERIFIED: u32 = 0;
/// `PogoVerdict.kind` code: the bytes do not start with "POGOREPL".
pub const POGO_VERDICT_BAD_MAGIC: u32 = 1;
/// `PogoVerdict.kind` code: a replay format version this build does not read (the reason
/// says which).
pub const POGO_VERDICT_UNSUPPORTED_FORMAT: u32 = 2;
/// `PogoVerdict.kind` code: the bytes end inside a chunk or before the trailer (or there are none).
pub const POGO_VERDICT_TRUNCATED: u32 = 3;
/// `PogoVerdict.kind` code: a chunk's check or the whole-file check does not match the bytes.
pub const POGO_VERDICT_CHECKSUM: u32 = 4;
/// `PogoVerdict.kind` code: more ticks than the verifier's `ticks_max`.
pub const POGO_VERDICT_TOO_LONG: u32 = 5;
/// `PogoVerdict.kind` code: state hashes stored further apart than the verifier's
/// `hash_interval_s_max`.
pub const POGO_VERDICT_SPARSE_HASHES: u32 = 6;
/// `PogoVerdict.kind` code: reading the bytes failed.
pub const POGO_VERDICT_IO: u32 = 7;
/// `PogoVerdict.kind` code: a chunk that does not decode, is not canonical or breaks a rule of the
/// format.
pub const POGO_VERDICT_MALFORMED: u32 = 8;
/// `PogoVerdict.kind` code: recorded under other simulation rules (`expected`: this build's rules
/// version, `found`: the replay's).
pub const POGO_VERDICT_RULES_VERSION: u32 = 9;
/// `PogoVerdict.kind` code: recorded at another tick rate or with another fixed-point format
/// (`expected`, `found`: the numbers).
pub const POGO_VERDICT_FORMAT_MISMATCH: u32 = 10;
/// `PogoVerdict.kind` code: recorded with another tuning (`expected`: the verifier's tuning hash,
/// `found`: the replay's).
pub const POGO_VERDICT_TUNING_MISMATCH: u32 = 11;
/// `PogoVerdict.kind` code: a level the verifier does not accept.
pub const POGO_VERDICT_UNKNOWN_LEVEL: u32 = 12;
/// `PogoVerdict.kind` code: a level of that name but other content (`expected`: the verifier's
/// level hash, `found`: the replay's).
pub const POGO_VERDICT_LEVEL_MISMATCH: u32 = 13;
/// `PogoVerdict.kind` code: the re-simulation's state differs from the recorded one after
/// `desync_tick` (`expected`: the recorded hash, `found`: the re-simulated one).
pub const POGO_VERDICT_DESYNC: u32 = 14;
/// `PogoVerdict.kind` code: `player`'s claimed finish differs from the re-simulation's.
pub const POGO_VERDICT_OUTCOME_MISMATCH: u32 = 15;
/// `PogoVerdict.kind` code: re-simulating would take more player-ticks than the verifier's
/// `player_ticks_max`.
pub const POGO_VERDICT_OVER_BUDGET: u32 = 16;
/// `PogoVerdict.kind` code: the verification took longer than the verifier's `duration_ms_max`.
pub const POGO_VERDICT_OUT_OF_TIME: u32 = 17;
/// A kind this ABI version has no code for (a newer `pogo-replay`); the reason says what.
pub const POGO_VERDICT_OTHER: u32 = 255;

/// `pogo_sizeof` selector: the size of `PogoInput`.
pub const POGO_STRUCT_INPUT: u32 = 1;
/// `pogo_sizeof` selector: the size of `PogoPlayerState`.
pub const POGO_STRUCT_PLAYER_STATE: u32 = 2;
/// `pogo_sizeof` selector: the size of `PogoFrameInfo`.
pub const POGO_STRUCT_FRAME_INFO: u32 = 3;
/// `pogo_sizeof` selector: the size of `PogoVerdict`.
pub const POGO_STRUCT_VERDICT: u32 = 4;
/// `pogo_sizeof` selector: the size of `PogoSimDef`.
pub const POGO_STRUCT_SIM_DEF: u32 = 5;
/// `pogo_sizeof` selector: the size of `PogoDriverDef`.
pub const POGO_STRUCT_DRIVER_DEF: u32 = 6;
/// `pogo_sizeof` selector: the size of `PogoRecorderDef`.
pub const POGO_STRUCT_RECORDER_DEF: u32 = 7;
/// `pogo_sizeof` selector: the size of `PogoVerifierDef`.
pub const POGO_STRUCT_VERIFIER_DEF: u32 = 8;
/// `pogo_sizeof` selector: the size of `PogoReplayInfo`.
pub const POGO_STRUCT_REPLAY_INFO: u32 = 9;
/// `pogo_sizeof` selector: the size of `PogoTrackCheck`.
pub const POGO_STRUCT_TRACK_CHECK: u32 = 10;

/// What every call returns. `POGO_STATUS_OK` is 0; anything else is an error, described by
/// `pogo_last_error` (this thread's last failed call) and, when the call's first handle was
/// valid, by `pogo_handle_error` on that handle.
#[repr(i32)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PogoStatus {
    /// The call succeeded.
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
    /// The handle's id: slot index, kind and generation packed in 32 bits. Only this
    /// library makes one; 0 (a zeroed handle) is never valid.
    pub id: u32,
}

/// A validated tuning (the default, or parsed from tuning JSON).
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct PogoTuning {
    /// The handle's id: slot index, kind and generation packed in 32 bits. Only this
    /// library makes one; 0 (a zeroed handle) is never valid.
    pub id: u32,
}

/// A simulation of 1…16 pogos in one level with one tuning.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct PogoSim {
    /// The handle's id: slot index, kind and generation packed in 32 bits. Only this
    /// library makes one; 0 (a zeroed handle) is never valid.
    pub id: u32,
}

/// A frame driver: render frames in nanoseconds and timestamped input events → ticks.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct PogoDriver {
    /// The handle's id: slot index, kind and generation packed in 32 bits. Only this
    /// library makes one; 0 (a zeroed handle) is never valid.
    pub id: u32,
}

/// A replay recorder bound to one simulation.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct PogoRecorder {
    /// The handle's id: slot index, kind and generation packed in 32 bits. Only this
    /// library makes one; 0 (a zeroed handle) is never valid.
    pub id: u32,
}

/// A replay verifier: a tuning, the levels it accepts, limits.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct PogoVerifier {
    /// The handle's id: slot index, kind and generation packed in 32 bits. Only this
    /// library makes one; 0 (a zeroed handle) is never valid.
    pub id: u32,
}

/// The demo bot, which hops along a level's bot path.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct PogoBot {
    /// The handle's id: slot index, kind and generation packed in 32 bits. Only this
    /// library makes one; 0 (a zeroed handle) is never valid.
    pub id: u32,
}

/// A decoded replay: its header, claimed outcome and every player's per-tick inputs.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct PogoReplay {
    /// The handle's id: slot index, kind and generation packed in 32 bits. Only this
    /// library makes one; 0 (a zeroed handle) is never valid.
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
    /// The tip's position (x, y, z), metres × 2³².
    pub position_raw: [i64; 3],
    /// The velocity (x, y, z), m/s × 2³².
    pub velocity_raw: [i64; 3],
    /// The horizontal part (x, z) of the pogo's unit up axis: the sine of its tilt.
    pub lean_raw: [i64; 2],
    /// Highest tip height reached since the start of the run (`INT64_MIN` before the first
    /// tick).
    pub apex_raw: i64,
    /// `position_raw` / 2³² (m), for rendering only.
    pub position: [f64; 3],
    /// `velocity_raw` / 2³² (m/s), for rendering only.
    pub velocity: [f64; 3],
    /// `lean_raw` / 2³², for rendering only.
    pub lean: [f64; 2],
    /// `apex_raw` / 2³² (m), for display only.
    pub apex: f64,
    /// A `POGO_STATE_*` code.
    pub state: u32,
    /// Perfect landings and landed tricks in a row (each adds `combo_bonus` to the launch
    /// speed, up to `max_combo`); reset by a ricochet, a stun or a respawn.
    pub combo: u32,
    /// Landings that bounced since the start of the run.
    pub bounces: u32,
    /// `POGO_EVENT_*` bits of the last tick.
    pub events: u32,
    /// 1 if the pogo has finished (then `finish_tick` is the tick it finished on), else 0.
    pub finished: u32,
    /// The tick (0-based) the pogo finished on, if `finished`; else 0.
    pub finish_tick: u32,
    /// 1 if the pogo has entered a checkpoint (then `checkpoint` is its index), else 0.
    pub has_checkpoint: u32,
    /// The index of the last checkpoint entered (in the level's `checkpoints`), if
    /// `has_checkpoint`; else 0.
    pub checkpoint: u32,
    /// Ticks of stun left; steering and lean are off while it is non-zero.
    pub stun_ticks_left: u32,
    /// 1 while a trick is on (then `trick_ticks_left` ticks remain until it completes).
    pub trick_active: u32,
    /// Ticks until the trick completes, if `trick_active` (0: complete, awaiting the
    /// landing); else 0.
    pub trick_ticks_left: u32,
    /// Always 0 (padding made explicit, for future use).
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
    /// Always 0 (padding made explicit, for future use).
    pub reserved: u32,
}

/// The outcome of verifying one replay.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PogoVerdict {
    /// Verified: the state hash after the last tick.
    pub final_hash: u64,
    /// Verified: the replay's level content hash.
    pub level_hash: u64,
    /// Verified: the replay's tuning content hash.
    pub tuning_hash: u64,
    /// Rejected with `POGO_VERDICT_DESYNC`: the recorded hash; `_TUNING_MISMATCH` or
    /// `_LEVEL_MISMATCH`: the verifier's hash; `_RULES_VERSION` or `_FORMAT_MISMATCH`: the
    /// verifier's number. Otherwise 0.
    pub expected: u64,
    /// The other side of `expected`: with `POGO_VERDICT_DESYNC` the re-simulated hash; with
    /// the four other kinds above, the replay header's hash or number. Otherwise 0.
    pub found: u64,
    /// `POGO_VERDICT_VERIFIED` (0) or the kind of the first problem.
    pub kind: u32,
    /// Verified: ticks re-simulated (the run's length).
    pub ticks: u32,
    /// Verified: the replay's player count.
    pub players: u32,
    /// Verified: the replay's rules version.
    pub rules_version: u32,
    /// `POGO_VERDICT_DESYNC`: the tick whose state differs.
    pub desync_tick: u32,
    /// `POGO_VERDICT_OUTCOME_MISMATCH`: the player whose claimed finish differs.
    pub player: u32,
    /// Verified: bit i set if player i finished, at `finish_ticks[i]`.
    pub finished_mask: u32,
    /// Bytes of `reason` before its NUL.
    pub reason_len: u32,
    /// Verified: player i's finish tick (0-based) if bit i of `finished_mask` is set; other
    /// entries 0.
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
    /// with `pogo_level_hash` and `pogo_tuning_hash` before re-simulating). This one the
    /// level's.
    pub level_hash: u64,
    /// The content hash of the tuning it was recorded with.
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
    /// Player i's claimed finish tick (0-based) if bit i of `finished_mask` is set; else 0.
    pub finish_ticks: [u32; POGO_PLAYERS_MAX],
}

/// What `pogo_track_check` found: a track accepted (`accepted` 1: its geometry hash, objects,
/// extent and worst tick; the text is its level name, `t-` and 16 hex digits) or refused (`accepted` 0:
/// the text is the field at fault, its first `field_len` bytes — empty for the file as a
/// whole, else a JSON path such as `solids[3]` — followed by the reason, for a person).
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct PogoTrackCheck {
    /// The level's geometry hash (its content hash without the name and the bot path): the
    /// track's id. 0 when refused.
    pub geometry_hash: u64,
    /// 1 if the track passed every check, 0 if refused.
    pub accepted: u32,
    /// Objects it holds (solids, ramps, platforms, zones, checkpoints, finishes, kill
    /// volumes). 0 when refused.
    pub objects: u32,
    /// The largest distance of any coordinate from the origin on one axis (whole metres,
    /// rounded up). 0 when refused.
    pub extent_m: i32,
    /// When refused: the length in bytes of the field at the start of the text. 0 otherwise.
    pub field_len: u32,
    /// The worst tick the track allows: the most work one pogo's tick can do on it, in the
    /// core's cost units (`pogo_core::cost`). 0 when refused.
    pub tick_cost: u32,
    /// The most `tick_cost` a track may have (the publish limit), accepted or refused.
    pub tick_cost_max: u32,
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
    /// The level to simulate (required).
    pub level: PogoLevel,
    /// The tuning to simulate with (required).
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
    /// Bytes at `player_name` (no NUL needed).
    pub player_name_len: usize,
    /// Optional date stored in the replay (digits and - : . + T Z space, at most 32 bytes);
    /// NULL or length 0 for none, so a run always records the same bytes.
    pub date: *const c_char,
    /// Bytes at `date` (no NUL needed).
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
    /// Handles at `levels`.
    pub level_count: usize,
    /// 1 (default): the built-in levels are accepted too; 0: only `levels`.
    pub builtin_levels: u32,
    /// Most ticks in a replay; default 4 hours at 60 Hz.
    pub ticks_max: u32,
    /// Longest stretch of play between two stored state hashes (s), 1…10; default 1.
    pub hash_interval_s_max: u32,
    /// Wall-clock limit per verification in ms, 0 (default) for none. Not available in the
    /// WebAssembly build (which has no clock): there it must be 0.
    pub duration_ms_max: u32,
    /// Most player-ticks (ticks × players) one verification simulates; default 864000.
    pub player_ticks_max: u64,
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
