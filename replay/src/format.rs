//! The replay file format: constants, the three records, chunk framing and its errors.
//! `replay/FORMAT.md` is the byte-level specification; this file implements it.
//!
//! ```text
//! file     := preamble header-chunk input-chunk* trailer-chunk
//! preamble := "POGOREPL" (8 bytes) · format version (u16 LE)
//! chunk    := kind (u8) · length (u32 LE) · payload (length bytes) · check (u64 LE)
//!             check = xxh3-64 of kind · length · payload
//! ```
//!
//! Payloads are postcard 1.x encodings of [`Header`], [`InputChunk`] and [`Trailer`], and
//! must be canonical: a decoder re-encodes every payload and rejects one whose bytes differ,
//! so a replay has exactly one encoding and decode → encode gives back the same bytes.

use std::fmt;
use std::io;

use pogo_core::{Buttons, Input, PLAYERS_MAX, STEER_MAX};
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64;

/// The first 8 bytes of every replay.
pub const MAGIC: [u8; 8] = *b"POGOREPL";
/// The format version this code reads and writes. Version 2 (rules version 2) caps the hash
/// interval at [`HASH_INTERVAL_SECONDS_MAX`] and restricts the header's strings (player
/// name, level name, date) to printable sets; version 1 files are refused.
pub const FORMAT_VERSION: u16 = 2;
/// Bytes of the preamble: magic and format version.
pub const PREAMBLE_BYTES: usize = 10;
/// Bytes of a chunk's framing: kind, length, check.
pub const CHUNK_OVERHEAD_BYTES: usize = 1 + 4 + 8;

/// Chunk kind of the [`Header`], the first chunk.
pub const KIND_HEADER: u8 = 1;
/// Chunk kind of an [`InputChunk`].
pub const KIND_INPUTS: u8 = 2;
/// Chunk kind of the [`Trailer`], the last chunk.
pub const KIND_TRAILER: u8 = 3;

/// Largest header payload (bytes): three strings of at most 64 bytes and a few integers fit
/// many times over.
pub const HEADER_BYTES_MAX: u32 = 1024;
/// Largest trailer payload (bytes): 16 players' finish ticks and two hashes fit many times
/// over.
pub const TRAILER_BYTES_MAX: u32 = 1024;
/// Largest input chunk payload (bytes): every player changing input every tick of the
/// longest chunk fits with room to spare (16 × 600 × 8 B ≈ 77 KiB).
pub const INPUT_CHUNK_BYTES_MAX: u32 = 256 * 1024;
/// Most ticks in one input chunk.
pub const CHUNK_TICKS_MAX: u32 = 600;
/// Worst-case bytes one tick adds to a **legal** replay of `players` players: the format lets
/// a file put every tick in its own input chunk (`chunk_ticks` = 1) with a state hash after
/// every tick (`hash_interval` = 1), so a tick can cost the chunk framing
/// ([`CHUNK_OVERHEAD_BYTES`]), the chunk's `first_tick` (a varint: 5 bytes at most for a
/// u32) and `ticks` (1 byte: the value 1), the player-list count (1 byte), per player its run
/// count and one run (`length` and `steer_x`, `steer_z`, `buttons`: 1 byte each), the hash
/// count (1 byte) and the hash (a u64 varint: 10 bytes at most). The recorder writes about 50
/// bytes per *second* of one player; this is 36 per tick, so a real file is far below it.
pub const fn tick_bytes_max(players: u8) -> u64 {
    CHUNK_OVERHEAD_BYTES as u64 + 5 + 1 + 1 + players as u64 * (1 + 4) + 1 + 10
}

/// The largest **legal** replay of at most `ticks` ticks and `players` players (bytes): the
/// preamble, the largest header and trailer chunks, and [`tick_bytes_max`] a tick. The one
/// bound every size limit on replays derives from (the server's upload body, the command
/// line's whole-file read, the page's, through the server's `GET /api/limits`).
pub const fn replay_bytes_max(ticks: u64, players: u8) -> u64 {
    let frame = CHUNK_OVERHEAD_BYTES as u64;
    let fixed =
        PREAMBLE_BYTES as u64 + frame + HEADER_BYTES_MAX as u64 + frame + TRAILER_BYTES_MAX as u64;
    fixed.saturating_add(ticks.saturating_mul(tick_bytes_max(players)))
}

/// Longest level name in a header (bytes of UTF-8): a level name of
/// [`NAME_CHARS_MAX`](pogo_core::world::NAME_CHARS_MAX) ASCII characters fits.
pub const LEVEL_NAME_BYTES_MAX: usize = 64;
/// Longest player name in a header (bytes of UTF-8): the names rule's, [`crate::names`].
pub use crate::names::PLAYER_NAME_BYTES_MAX;
/// Longest date in a header (bytes): an ISO 8601 date and time with fractions of a second
/// and an offset fits (`2024-05-01T12:34:56.789+02:00` is 29).
pub const DATE_BYTES_MAX: usize = 32;
/// Longest stretch of play between two stored state hashes the format allows (seconds): a
/// replay's `hash_interval` is at most this many times its tick rate. A verifier may ask for
/// less ([`crate::Limits::hash_interval_s_max`]).
pub const HASH_INTERVAL_SECONDS_MAX: u32 = 10;
/// The characters a header's `date` may hold: ISO 8601 needs no others.
pub const DATE_CHARS: &str = "0123456789-:.+TZ ";

/// What the replay is of, and how to reproduce it. The first chunk.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// `pogo_core::RULES_VERSION` of the simulation that recorded it.
    pub rules_version: u32,
    /// Ticks per second.
    pub tick_rate: u32,
    /// Fractional bits of the fixed-point scalar (32).
    pub frac_bits: u8,
    /// The level's name (a built-in level, or the name inside a level file).
    pub level_name: String,
    /// `WorldDesc::content_hash` of the level.
    pub level_hash: u64,
    /// `TuningSpec::content_hash` of the tuning.
    pub tuning_hash: u64,
    /// Number of players, 1…16.
    pub players: u8,
    /// Ticks per input chunk; every chunk but the last holds exactly this many.
    pub chunk_ticks: u32,
    /// A state hash is stored after every tick `t` with `(t + 1) % hash_interval == 0`.
    pub hash_interval: u32,
    /// Optional metadata, not interpreted: who played (at most [`PLAYER_NAME_BYTES_MAX`]
    /// bytes, checked by [`crate::check_player_name`]).
    pub player_name: Option<String>,
    /// Optional metadata, not interpreted: when the run was played, ISO 8601 text (at most
    /// [`DATE_BYTES_MAX`] bytes of [`DATE_CHARS`]).
    pub date: Option<String>,
}

/// A run of ticks with the same input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Run {
    /// Ticks the input holds, ≥ 1.
    pub length: u32,
    /// The stick toward east (+) / west (−): [`Input::steer_x`], −127…127 (−128 is refused).
    pub steer_x: i8,
    /// The stick toward south (+) / north (−): [`Input::steer_z`], −127…127.
    pub steer_z: i8,
    /// The buttons held, the bits of [`Buttons`] (undefined bits are refused).
    pub buttons: u8,
}

impl Run {
    /// No run: length 0 (a run in a replay is at least one tick long), the neutral input.
    pub const NONE: Run = Run {
        length: 0,
        steer_x: 0,
        steer_z: 0,
        buttons: 0,
    };

    /// The input the run holds for each of its ticks.
    pub fn input(&self) -> Input {
        Input {
            steer_x: self.steer_x,
            steer_z: self.steer_z,
            buttons: Buttons(self.buttons),
        }
    }
}

/// Up to `chunk_ticks` consecutive ticks of every player's input, and the state hashes that
/// fall in them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputChunk {
    /// The first tick covered: the previous chunk's first tick plus its ticks (0 for the first).
    pub first_tick: u32,
    /// Ticks covered, 1…`chunk_ticks`.
    pub ticks: u32,
    /// Per player, runs whose lengths add up to `ticks`.
    pub runs: Vec<Vec<Run>>,
    /// The state hash after each hashed tick in the chunk, in order.
    pub hashes: Vec<u64>,
}

/// The claimed outcome and the whole-file check. The last chunk.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trailer {
    /// Ticks recorded (the sum of the input chunks' ticks).
    pub ticks: u32,
    /// Per player, the tick it finished on, if it did.
    pub finish: Vec<Option<u32>>,
    /// The state hash after the last tick.
    pub final_hash: u64,
    /// xxh3-64 of every byte of the file before the trailer chunk.
    pub file_check: u64,
}

/// Why bytes are not a (well-formed) replay. Offsets are bytes from the start of the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayError {
    /// Reading failed for a reason other than the end of the data.
    Io {
        /// The I/O error's kind (the error itself is not `Clone`).
        kind: io::ErrorKind,
    },
    /// The file does not start with `POGOREPL`.
    BadMagic {
        /// The first 8 bytes (a shorter file's bytes, then zeros).
        found: [u8; 8],
    },
    /// A format version this build does not read.
    UnsupportedFormat {
        /// The file's format version.
        found: u16,
        /// [`FORMAT_VERSION`].
        supported: u16,
    },
    /// No bytes at all (an empty file): not a replay, and said so rather than "truncated at
    /// byte 0". Its `VerifyError::kind` is `truncated`, as before it had a name of its own.
    Empty,
    /// The data ends inside the preamble or a chunk, or before the trailer.
    Truncated {
        /// Where the cut preamble or chunk starts (bytes), or the end of the data when a
        /// chunk was expected.
        offset: u64,
    },
    /// A chunk of an unexpected kind (e.g. inputs before the header).
    UnexpectedChunk {
        /// Where the chunk starts (bytes).
        offset: u64,
        /// Its kind byte.
        found: u8,
        /// What was expected there, in words ("the header").
        expected: &'static str,
    },
    /// A chunk claims more payload bytes than its kind allows.
    ChunkTooLarge {
        /// Where the chunk starts (bytes).
        offset: u64,
        /// Its kind byte.
        kind: u8,
        /// The payload length it claims (bytes).
        length: u32,
        /// The largest payload of its kind (bytes).
        max: u32,
    },
    /// A chunk's check does not match its bytes.
    ChunkChecksum {
        /// Where the chunk starts (bytes).
        offset: u64,
        /// The check stored in the chunk.
        expected: u64,
        /// The check computed from its kind, length and payload.
        found: u64,
    },
    /// The trailer's whole-file check does not match.
    FileChecksum {
        /// The check stored in the trailer.
        expected: u64,
        /// The check computed from the bytes before the trailer.
        found: u64,
    },
    /// A payload does not decode, is not canonical, or breaks a rule of the format.
    Malformed {
        /// Where the chunk starts (bytes).
        offset: u64,
        /// The rule broken, in words.
        what: &'static str,
    },
    /// Bytes after the trailer.
    TrailingBytes {
        /// Where the extra bytes start.
        offset: u64,
    },
    /// More ticks than the reader allows.
    TooLong {
        /// The reader's limit ([`crate::Limits::ticks_max`]).
        ticks_max: u32,
    },
    /// The header's hash interval is longer than the reader allows (ticks).
    SparseHashes {
        /// The header's hash interval (ticks).
        hash_interval: u32,
        /// The longest the reader accepts at the header's tick rate (ticks).
        max: u32,
    },
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Io { kind } => write!(f, "read error: {kind}"),
            ReplayError::BadMagic { found } => {
                write!(
                    f,
                    "not a pogo replay (starts with {:?}, expected \"POGOREPL\")",
                    // A file under 8 bytes is padded with zeros: not shown.
                    String::from_utf8_lossy(found).trim_end_matches('\0')
                )
            }
            ReplayError::UnsupportedFormat { found, supported } => {
                write!(
                    f,
                    "replay format version {found} is not supported (this build reads {supported})"
                )
            }
            ReplayError::Empty => f.write_str("empty: no bytes, not a pogo replay"),
            ReplayError::Truncated { offset } => write!(f, "truncated at byte {offset}"),
            ReplayError::UnexpectedChunk {
                offset,
                found,
                expected,
            } => {
                write!(
                    f,
                    "chunk of kind {found} at byte {offset}, expected {expected}"
                )
            }
            ReplayError::ChunkTooLarge {
                offset,
                kind,
                length,
                max,
            } => {
                write!(
                    f,
                    "chunk of kind {kind} at byte {offset} claims {length} bytes, at most {max} are allowed"
                )
            }
            ReplayError::ChunkChecksum {
                offset,
                expected,
                found,
            } => {
                write!(
                    f,
                    "checksum mismatch in the chunk at byte {offset}: stored {expected:016x}, computed {found:016x}"
                )
            }
            ReplayError::FileChecksum { expected, found } => {
                write!(
                    f,
                    "file checksum mismatch: stored {expected:016x}, computed {found:016x}"
                )
            }
            ReplayError::Malformed { offset, what } => {
                write!(f, "malformed chunk at byte {offset}: {what}")
            }
            ReplayError::TrailingBytes { offset } => {
                write!(f, "unexpected bytes after the trailer at byte {offset}")
            }
            ReplayError::TooLong { ticks_max } => {
                write!(f, "longer than the limit of {ticks_max} ticks")
            }
            ReplayError::SparseHashes { hash_interval, max } => {
                write!(
                    f,
                    "a state hash every {hash_interval} ticks; this verifier needs one at least every {max}"
                )
            }
        }
    }
}

impl std::error::Error for ReplayError {}

/// The chunk framing of `payload`.
pub(crate) fn frame(kind: u8, payload: &[u8]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(payload.len() + CHUNK_OVERHEAD_BYTES);
    bytes.push(kind);
    bytes.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    bytes.extend_from_slice(payload);
    let check = xxh3_64(&bytes);
    bytes.extend_from_slice(&check.to_le_bytes());
    bytes
}

pub(crate) fn preamble() -> [u8; PREAMBLE_BYTES] {
    let mut p = [0; PREAMBLE_BYTES];
    p[..8].copy_from_slice(&MAGIC);
    p[8..].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    p
}

pub(crate) fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    // Serialising these plain structs into a Vec cannot fail.
    postcard::to_allocvec(value).unwrap_or_default()
}

/// Decodes a payload, insisting on the canonical encoding (the whole payload, re-encoded to
/// the same bytes).
pub(crate) fn decode<'a, T: Serialize + Deserialize<'a>>(
    payload: &'a [u8],
    offset: u64,
) -> Result<T, ReplayError> {
    let value: T = postcard::from_bytes(payload).map_err(|_| ReplayError::Malformed {
        offset,
        what: "payload does not decode",
    })?;
    if encode(&value) != payload {
        return Err(ReplayError::Malformed {
            offset,
            what: "payload is not canonically encoded",
        });
    }
    Ok(value)
}

impl Header {
    /// Checks the header's own rules (lengths, counts, ranges).
    pub(crate) fn check(&self, offset: u64) -> Result<(), ReplayError> {
        let bad = |what| Err(ReplayError::Malformed { offset, what });
        if self.level_name.len() > LEVEL_NAME_BYTES_MAX {
            return bad("level name longer than 64 bytes");
        }
        if self.level_name.is_empty() || self.level_name.chars().any(char::is_control) {
            return bad("level name is empty or has control characters");
        }
        if let Some(name) = &self.player_name {
            if name.len() > PLAYER_NAME_BYTES_MAX {
                return bad("player name longer than 64 bytes");
            }
            if crate::names::check_player_name(name).is_err() {
                return bad("player name breaks the name rule (letters, digits, space - _ . ')");
            }
        }
        if let Some(date) = &self.date {
            if date.len() > DATE_BYTES_MAX {
                return bad("date longer than 32 bytes");
            }
            if !date.chars().all(|c| DATE_CHARS.contains(c)) {
                return bad("date has characters outside 0-9 - : . + T Z and space");
            }
        }
        if self.players == 0 || usize::from(self.players) > PLAYERS_MAX {
            return bad("player count outside 1…16");
        }
        if self.chunk_ticks == 0 || self.chunk_ticks > CHUNK_TICKS_MAX {
            return bad("chunk_ticks outside 1…600");
        }
        if self.tick_rate == 0 {
            return bad("tick_rate is zero");
        }
        if self.hash_interval == 0 {
            return bad("hash_interval is zero");
        }
        if u64::from(self.hash_interval)
            > u64::from(HASH_INTERVAL_SECONDS_MAX) * u64::from(self.tick_rate)
        {
            return bad("hash_interval longer than 10 seconds of play");
        }
        Ok(())
    }
}

impl InputChunk {
    /// Checks the chunk against the header and the tick it must start at.
    pub(crate) fn check(
        &self,
        header: &Header,
        expected_first: u32,
        offset: u64,
    ) -> Result<(), ReplayError> {
        let bad = |what| Err(ReplayError::Malformed { offset, what });
        if self.first_tick != expected_first {
            return bad("input chunk does not start where the previous one ended");
        }
        // Every chunk but the last holds exactly `chunk_ticks`: one may only start where a
        // full chunk ended (otherwise the same inputs would have several encodings).
        if expected_first % header.chunk_ticks.max(1) != 0 {
            return bad("input chunk after one shorter than chunk_ticks");
        }
        if self.ticks == 0 || self.ticks > header.chunk_ticks {
            return bad("input chunk tick count outside 1…chunk_ticks");
        }
        if self.runs.len() != usize::from(header.players) {
            return bad("input chunk has runs for a different number of players");
        }
        for runs in &self.runs {
            let mut total = 0u32;
            for run in runs {
                if run.length == 0 {
                    return bad("run of length zero");
                }
                if run.steer_x < -STEER_MAX || run.steer_z < -STEER_MAX {
                    return bad("steer value −128");
                }
                if run.buttons & !Buttons::ALL.0 != 0 {
                    return bad("undefined button bits");
                }
                total = total.saturating_add(run.length);
            }
            if total != self.ticks {
                return bad("runs do not add up to the chunk's ticks");
            }
        }
        if self.hashes.len() != hashed_ticks(self.first_tick, self.ticks, header.hash_interval) {
            return bad("wrong number of state hashes for the chunk's ticks");
        }
        Ok(())
    }

    /// The input of `player` for every tick of the chunk, in order.
    pub fn inputs(&self, player: usize) -> impl Iterator<Item = Input> + '_ {
        self.runs[player]
            .iter()
            .flat_map(|run| std::iter::repeat_n(run.input(), run.length as usize))
    }
}

/// How many ticks `t` in `first..first + ticks` are hashed (`(t + 1) % interval == 0`).
pub(crate) fn hashed_ticks(first: u32, ticks: u32, interval: u32) -> usize {
    let end = u64::from(first) + u64::from(ticks);
    let interval = u64::from(interval.max(1));
    (end / interval - u64::from(first) / interval) as usize
}

/// Whether the state after tick `t` is hashed.
pub(crate) fn is_hashed(t: u32, interval: u32) -> bool {
    (u64::from(t) + 1) % u64::from(interval.max(1)) == 0
}
