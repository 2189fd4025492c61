//! `replay_roundtrip`: arbitrary *valid* replays written through the real `Recorder`, then
//! read back.
//!
//! The input describes a header (1…4 players, `chunk_ticks` 1…600, `hash_interval` 1…120,
//! optional names within their limits, any level name of at most 64 bytes, any versions and
//! hashes), up to [`TICKS_MAX`] ticks of per-player input (segments of held stick and buttons,
//! played in a loop; raw `i8`/`u8` values, so steer −128 and undefined button bits occur and
//! must come back normalised), the state hashes to hand the recorder, and a trailer (finish
//! ticks below the tick count, any final hash).
//!
//! Oracles:
//! - the recorder accepts the header and asks for a state hash exactly on the hashed ticks
//!   (`(t + 1) % hash_interval == 0`), as `needs_hash` says beforehand;
//! - `Replay::decode` of its bytes succeeds and gives back what went in: the header, every
//!   tick's inputs (`Replay::inputs`, normalised), the hashes in order, the trailer's ticks,
//!   finish and final hash; its chunks are full but for the last, their runs maximal;
//! - `encode()` gives back the recorder's bytes exactly; the streaming reader agrees;
//! - cut anywhere — a few arbitrary cut points per input, half of them on chunk boundaries —
//!   the bytes fail to decode with `Truncated` at the start of the cut chunk (0 inside the
//!   preamble).

use arbitrary::Arbitrary;
use pogo_core::Input as TickInput;

use crate::InputIn;
use pogo_replay::format::{
    CHUNK_OVERHEAD_BYTES, DATE_BYTES_MAX, DATE_CHARS, HASH_INTERVAL_SECONDS_MAX,
    LEVEL_NAME_BYTES_MAX, PLAYER_NAME_BYTES_MAX, PREAMBLE_BYTES,
};
use pogo_replay::names::{PLAYER_NAME_CHARS_MAX, PLAYER_NAME_MARKS};
use pogo_replay::{
    Chunk, Header, Limits, Recorder, Replay, ReplayError, ReplayReader, check_player_name,
};

/// Most ticks of one replay.
pub const TICKS_MAX: u32 = 2000;
/// Most players (of the format's 16: enough to exercise per-player lists).
pub const PLAYERS_MAX: u8 = 4;
/// Most cut points checked per input.
pub const CUTS_MAX: usize = 4;

#[derive(Arbitrary, Clone, Debug)]
pub struct Input {
    pub rules_version: u32,
    /// 0 is read as 1 (the header rejects a zero tick rate).
    pub tick_rate: u32,
    pub frac_bits: u8,
    /// Cut to 64 bytes (at a character boundary).
    pub level_name: String,
    pub level_hash: u64,
    pub tuning_hash: u64,
    /// 1 + n % 4.
    pub players: u8,
    /// 1 + n % 600.
    pub chunk_ticks: u16,
    /// 1 + n % 120.
    pub hash_interval: u8,
    /// Cut to 64 bytes.
    pub player_name: Option<String>,
    /// Cut to 32 bytes.
    pub date: Option<String>,
    /// n % (TICKS_MAX + 1).
    pub ticks: u16,
    /// The input stream, repeated to fill the ticks (neutral if empty).
    pub segments: Vec<Segment>,
    /// The state hashes handed to the recorder, repeated as needed (a counter if empty).
    pub hashes: Vec<u64>,
    /// Per player, the finish tick modulo the tick count.
    pub finish: [Option<u16>; PLAYERS_MAX as usize],
    pub final_hash: u64,
    /// Cut points: an odd value cuts at chunk boundary `n / 2` (modulo their number), an even
    /// one at byte `n / 2` (modulo the length).
    pub cuts: Vec<u32>,
}

/// Inputs held for `1 + hold % 32` ticks.
#[derive(Arbitrary, Clone, Copy, Debug)]
pub struct Segment {
    pub hold: u8,
    pub players: [InputIn; PLAYERS_MAX as usize],
}

/// `s` cut to at most `max` bytes, at a character boundary.
fn cut(s: &str, max: usize) -> String {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

/// `s` made into a player name: only the characters the name rule allows, single spaces,
/// none at the ends, cut to its limits; `None` if nothing is left.
fn as_player_name(s: &str) -> Option<String> {
    let kept: String = s
        .chars()
        .filter(|&c| c.is_alphanumeric() || PLAYER_NAME_MARKS.contains(&c))
        .take(PLAYER_NAME_CHARS_MAX)
        .collect();
    let name = cut(&kept, PLAYER_NAME_BYTES_MAX);
    let words: Vec<&str> = name.split(' ').filter(|w| !w.is_empty()).collect();
    let name = words.join(" ");
    (!name.is_empty()).then_some(name)
}

impl Input {
    /// The header, made valid: the fields are cut or mapped into their ranges and character
    /// sets. [`Input::raw_header`] is the same without the mapping of the strings.
    pub fn header(&self) -> Header {
        let level_name: String = self
            .level_name
            .chars()
            .filter(|c| !c.is_control())
            .collect();
        let level_name = cut(&level_name, LEVEL_NAME_BYTES_MAX);
        let tick_rate = self.tick_rate.max(1);
        Header {
            level_name: if level_name.is_empty() {
                "level".to_string()
            } else {
                level_name
            },
            hash_interval: (1 + u32::from(self.hash_interval) % 120)
                .min(tick_rate.saturating_mul(HASH_INTERVAL_SECONDS_MAX)),
            player_name: self.player_name.as_deref().and_then(as_player_name),
            date: self.date.as_deref().map(|d| {
                let d: String = d.chars().filter(|&c| DATE_CHARS.contains(c)).collect();
                cut(&d, DATE_BYTES_MAX)
            }),
            ..self.raw_header()
        }
    }

    /// The header with the strings as given (cut to their byte limits only).
    pub fn raw_header(&self) -> Header {
        let tick_rate = self.tick_rate.max(1);
        Header {
            rules_version: self.rules_version,
            tick_rate,
            frac_bits: self.frac_bits,
            level_name: cut(&self.level_name, LEVEL_NAME_BYTES_MAX),
            level_hash: self.level_hash,
            tuning_hash: self.tuning_hash,
            players: 1 + self.players % PLAYERS_MAX,
            chunk_ticks: 1 + u32::from(self.chunk_ticks) % 600,
            hash_interval: 1 + u32::from(self.hash_interval) % 120,
            player_name: self
                .player_name
                .as_deref()
                .map(|n| cut(n, PLAYER_NAME_BYTES_MAX)),
            date: self.date.as_deref().map(|d| cut(d, DATE_BYTES_MAX)),
        }
    }

    pub fn ticks(&self) -> u32 {
        u32::from(self.ticks) % (TICKS_MAX + 1)
    }

    /// Every tick's raw inputs, `players` per tick, tick after tick.
    pub fn inputs(&self, players: usize) -> Vec<TickInput> {
        let len = self.ticks() as usize * players;
        let mut all = Vec::with_capacity(len);
        if self.segments.is_empty() {
            all.resize(len, TickInput::default());
            return all;
        }
        'fill: loop {
            for segment in &self.segments {
                for _ in 0..=segment.hold % 32 {
                    if all.len() == len {
                        break 'fill;
                    }
                    all.extend(segment.players[..players].iter().map(|i| i.raw()));
                }
            }
        }
        all
    }

    /// The `k`-th state hash handed to the recorder.
    fn hash(&self, k: usize) -> u64 {
        if self.hashes.is_empty() {
            k as u64
        } else {
            self.hashes[k % self.hashes.len()]
        }
    }
}

/// The recorder takes a header (before any bytes go out) exactly when its strings follow
/// FORMAT.md's rules and its hash interval is at most 10 seconds of play.
fn check_header_rules(raw: &Header) {
    let name_ok = raw
        .player_name
        .as_deref()
        .is_none_or(|n| check_player_name(n).is_ok());
    let date_ok = raw
        .date
        .as_deref()
        .is_none_or(|d| d.chars().all(|c| DATE_CHARS.contains(c)));
    let level_ok = !raw.level_name.is_empty() && !raw.level_name.chars().any(char::is_control);
    let interval_ok = u64::from(raw.hash_interval)
        <= u64::from(raw.tick_rate) * u64::from(HASH_INTERVAL_SECONDS_MAX);
    let valid = name_ok && date_ok && level_ok && interval_ok;
    let mut out = Vec::new();
    let accepted = Recorder::new(&mut out, raw.clone()).is_ok();
    assert_eq!(
        accepted, valid,
        "recorder: header {raw:?} accepted={accepted}, by the rules valid={valid}"
    );
    assert!(
        accepted || out.is_empty(),
        "recorder: wrote bytes for a refused header"
    );
}

/// Records `input` through the real `Recorder`: the bytes and the hashes it asked for.
pub fn record(input: &Input) -> (Vec<u8>, Vec<u64>) {
    let header = input.header();
    let players = usize::from(header.players);
    let interval = header.hash_interval;
    let mut recorder = Recorder::new(Vec::new(), header)
        .unwrap_or_else(|e| panic!("recorder: rejects a valid header: {e}"));
    let mut hashes = Vec::new();
    for (t, inputs) in input.inputs(players).chunks_exact(players).enumerate() {
        let hashed = (t as u64 + 1) % u64::from(interval) == 0;
        assert_eq!(
            recorder.needs_hash(),
            hashed,
            "recorder: needs_hash wrong before tick {t}"
        );
        let mut asked = false;
        recorder
            .record(inputs, || {
                asked = true;
                input.hash(hashes.len())
            })
            .expect("writing to a Vec");
        assert_eq!(
            asked, hashed,
            "recorder: asked for a hash wrongly at tick {t}"
        );
        if asked {
            hashes.push(input.hash(hashes.len()));
        }
        assert_eq!(recorder.ticks(), t as u32 + 1, "recorder: ticks");
    }
    let ticks = input.ticks();
    let finish = (0..players)
        .map(|p| {
            input.finish[p]
                .filter(|_| ticks > 0)
                .map(|f| u32::from(f) % ticks)
        })
        .collect();
    let bytes = recorder
        .finish(finish, input.final_hash)
        .expect("writing to a Vec");
    (bytes, hashes)
}

pub fn check(input: &Input) -> bool {
    let header = input.header();
    let players = usize::from(header.players);
    let ticks = input.ticks();
    let (bytes, hashes) = record(input);

    check_header_rules(&input.raw_header());
    let limits = Limits {
        hash_interval_s_max: HASH_INTERVAL_SECONDS_MAX,
        ..Limits::default()
    };
    let replay = Replay::decode(&bytes, limits)
        .unwrap_or_else(|e| panic!("decode: the recorder's bytes do not decode: {e}"));
    assert_eq!(replay.header, header, "decode: header");
    let expected = input.inputs(players);
    let decoded = replay.inputs();
    assert_eq!(decoded.len(), ticks as usize, "decode: inputs() length");
    for (t, (got, raw)) in decoded
        .iter()
        .zip(expected.chunks_exact(players))
        .enumerate()
    {
        assert!(
            got.len() == players && got.iter().zip(raw).all(|(g, r)| *g == r.normalized()),
            "decode: inputs of tick {t}: {got:?}, recorded {raw:?}"
        );
    }
    let stored: Vec<u64> = replay
        .chunks
        .iter()
        .flat_map(|c| c.hashes.iter().copied())
        .collect();
    assert_eq!(stored, hashes, "decode: hashes");
    assert_eq!(replay.trailer.ticks, ticks, "decode: trailer ticks");
    let finish: Vec<Option<u32>> = (0..players)
        .map(|p| {
            input.finish[p]
                .filter(|_| ticks > 0)
                .map(|f| u32::from(f) % ticks)
        })
        .collect();
    assert_eq!(replay.trailer.finish, finish, "decode: trailer finish");
    assert_eq!(
        replay.trailer.final_hash, input.final_hash,
        "decode: final hash"
    );
    let chunks = replay.chunks.len() as u32;
    assert_eq!(
        chunks,
        ticks.div_ceil(header.chunk_ticks),
        "recorder: chunk count"
    );
    for (i, chunk) in replay.chunks.iter().enumerate() {
        if i + 1 < replay.chunks.len() {
            assert_eq!(
                chunk.ticks, header.chunk_ticks,
                "recorder: chunk {i} not full"
            );
        }
        for runs in &chunk.runs {
            assert!(
                runs.windows(2).all(|w| w[0].input() != w[1].input()),
                "recorder: chunk {i} has two runs of the same input in a row"
            );
        }
    }
    assert!(
        replay.encode() == bytes,
        "encode: differs from the recorder's bytes"
    );

    // The streaming reader agrees, and gives the chunk boundaries.
    let mut reader = ReplayReader::open(&bytes[..], limits).expect("open: the header reads");
    let mut boundaries = vec![0, PREAMBLE_BYTES as u64, reader.offset()];
    let mut streamed = Vec::new();
    loop {
        match reader.next_chunk() {
            Ok(Some(Chunk::Inputs(chunk))) => {
                streamed.push(chunk);
                boundaries.push(reader.offset());
            }
            Ok(Some(Chunk::Trailer(trailer))) => {
                assert_eq!(trailer, replay.trailer, "stream: trailer");
                assert_eq!(reader.offset(), bytes.len() as u64, "stream: end offset");
                break;
            }
            other => panic!("stream: {other:?} before the trailer"),
        }
    }
    assert_eq!(streamed, replay.chunks, "stream: chunks");
    // The last boundary is the trailer's start; the chunk sizes are framing plus payload.
    assert!(
        boundaries.windows(2).all(|w| w[0] < w[1])
            && boundaries[boundaries.len() - 1] < bytes.len() as u64 - CHUNK_OVERHEAD_BYTES as u64,
        "stream: offsets"
    );

    for &c in input.cuts.iter().take(CUTS_MAX) {
        let at = if c % 2 == 1 {
            boundaries[(c / 2) as usize % boundaries.len()]
        } else {
            u64::from(c / 2) % bytes.len() as u64
        };
        let expected = boundaries
            .iter()
            .copied()
            .filter(|&b| b <= at)
            .max()
            .unwrap_or(0);
        // No bytes at all is `Empty` (said so, not "truncated at byte 0"); any other cut is
        // truncated at the last whole chunk before it.
        let error = if at == 0 {
            ReplayError::Empty
        } else {
            ReplayError::Truncated { offset: expected }
        };
        assert_eq!(
            Replay::decode(&bytes[..at as usize], limits),
            Err(error),
            "truncation: cut at byte {at} of {}",
            bytes.len()
        );
    }
    true
}
