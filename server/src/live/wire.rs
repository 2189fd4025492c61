//! What goes over a live room's WebSocket: the racers' stream (binary, a few bytes a message,
//! sequence-numbered) and the control messages (JSON text). The whole protocol, with the
//! message tables, is `docs/live.md`; the JSON messages are also schemas in the OpenAPI
//! document (`LiveClientMessage`, `LiveServerMessage`).
//!
//! ## The stream (binary frames, little-endian)
//!
//! A racer's page sends, from GO on, one binary frame per message; each carries the racer's
//! next sequence number (`seq`, from 0, one more each message):
//!
//! | type | name    | after the type byte                                   | bytes |
//! | ---- | ------- | ----------------------------------------------------- | ----- |
//! | 0x01 | input   | seq u32, at_ns u64, steer_x i8, steer_z i8, buttons u8 | 16 |
//! | 0x02 | ran     | seq u32, tick u32                                      | 9  |
//! | 0x03 | split   | seq u32, tick u32, checkpoint u32, hash u64            | 21 |
//!
//! `input`: the driver's event as it filed it (`at_ns` since GO, game time; the page's driver
//! returns the filed time, so the server's driver re-runs the same ticks). `ran`: every tick
//! up to `tick` has run in the page (a heartbeat, a few times a second: it confirms that no
//! input changed meanwhile). `split`: a checkpoint crossed for the first time (`checkpoint`
//! its index in the level, from 0), or the finish (`checkpoint` = [`FINISH`]), with the
//! page's state hash after that tick.
//!
//! The server answers each racer with `ack` (0x90, the highest `seq` it holds, u32: one at
//! each `ran` and `split`, covering the inputs before them), and
//! relays every message to the other members as `relay` (0x81: racer u8, the server's receive
//! time in µs since GO as u64, then the message as the racer sent it). A member who joins (or
//! resumes) mid-race first gets each racer's stream so far as one `backlog` (0x82: racer u8,
//! then each relay frame of theirs preceded by its length, u8).

use axum::body::Bytes;
use bytes::BytesMut;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use pogo_core::{Buttons, Input};

/// `split.checkpoint` for the finish.
pub const FINISH: u32 = u32::MAX;

/// The largest stream message (a `split`), bytes.
pub const STREAM_MESSAGE_BYTES_MAX: usize = 21;

/// Type bytes of the stream.
const INPUT: u8 = 0x01;
const RAN: u8 = 0x02;
const SPLIT: u8 = 0x03;
const RELAY: u8 = 0x81;
const BACKLOG: u8 = 0x82;
const ACK: u8 = 0x90;

/// One message of a racer's stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// The racer's input from `at_ns` (game time since GO, as the page's driver filed it).
    Input { seq: u32, at_ns: u64, input: Input },
    /// Every tick up to `tick` has run in the page.
    Ran { seq: u32, tick: u32 },
    /// A split at `tick`: checkpoint `checkpoint` (its index in the level, from 0; or
    /// [`FINISH`]), the page's state hash after the tick.
    Split {
        seq: u32,
        tick: u32,
        checkpoint: u32,
        hash: u64,
    },
}

/// Why a binary frame is not a stream message (the close reason says it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Malformed {
    Empty,
    UnknownType(u8),
    Length {
        kind: &'static str,
        expected: usize,
        found: usize,
    },
    Buttons(u8),
}

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Malformed::Empty => write!(f, "an empty binary message"),
            Malformed::UnknownType(t) => write!(f, "unknown message type 0x{t:02x}"),
            Malformed::Length {
                kind,
                expected,
                found,
            } => write!(f, "{kind} is {expected} bytes, found {found}"),
            Malformed::Buttons(b) => write!(f, "unknown buttons 0x{b:02x}"),
        }
    }
}

impl Stream {
    /// The message's sequence number.
    pub fn seq(&self) -> u32 {
        match *self {
            Stream::Input { seq, .. } | Stream::Ran { seq, .. } | Stream::Split { seq, .. } => seq,
        }
    }

    /// Its bytes, as a page sends them.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(STREAM_MESSAGE_BYTES_MAX);
        match *self {
            Stream::Input { seq, at_ns, input } => {
                out.push(INPUT);
                out.extend_from_slice(&seq.to_le_bytes());
                out.extend_from_slice(&at_ns.to_le_bytes());
                out.push(input.steer_x as u8);
                out.push(input.steer_z as u8);
                out.push(input.buttons.0);
            }
            Stream::Ran { seq, tick } => {
                out.push(RAN);
                out.extend_from_slice(&seq.to_le_bytes());
                out.extend_from_slice(&tick.to_le_bytes());
            }
            Stream::Split {
                seq,
                tick,
                checkpoint,
                hash,
            } => {
                out.push(SPLIT);
                out.extend_from_slice(&seq.to_le_bytes());
                out.extend_from_slice(&tick.to_le_bytes());
                out.extend_from_slice(&checkpoint.to_le_bytes());
                out.extend_from_slice(&hash.to_le_bytes());
            }
        }
        out
    }

    /// A stream message from a binary frame; every byte checked.
    pub fn decode(bytes: &[u8]) -> Result<Stream, Malformed> {
        let (&kind, body) = bytes.split_first().ok_or(Malformed::Empty)?;
        let want = |name: &'static str, len: usize| {
            if body.len() == len {
                Ok(())
            } else {
                Err(Malformed::Length {
                    kind: name,
                    expected: len + 1,
                    found: bytes.len(),
                })
            }
        };
        let u32_at =
            |i: usize| u32::from_le_bytes([body[i], body[i + 1], body[i + 2], body[i + 3]]);
        let u64_at = |i: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&body[i..i + 8]);
            u64::from_le_bytes(b)
        };
        match kind {
            INPUT => {
                want("an input", 15)?;
                if body[14] & !Buttons::ALL.0 != 0 {
                    return Err(Malformed::Buttons(body[14]));
                }
                let buttons = Buttons(body[14]);
                Ok(Stream::Input {
                    seq: u32_at(0),
                    at_ns: u64_at(4),
                    input: Input {
                        steer_x: body[12] as i8,
                        steer_z: body[13] as i8,
                        buttons,
                    },
                })
            }
            RAN => {
                want("a ran", 8)?;
                Ok(Stream::Ran {
                    seq: u32_at(0),
                    tick: u32_at(4),
                })
            }
            SPLIT => {
                want("a split", 20)?;
                Ok(Stream::Split {
                    seq: u32_at(0),
                    tick: u32_at(4),
                    checkpoint: u32_at(8),
                    hash: u64_at(12),
                })
            }
            other => Err(Malformed::UnknownType(other)),
        }
    }
}

/// A relay frame's most bytes: its header (10) and the longest stream message.
const RELAY_BYTES_MAX: usize = 10 + STREAM_MESSAGE_BYTES_MAX;
const _: () = assert!(
    RELAY_BYTES_MAX <= u8::MAX as usize,
    "a relay frame's length is a u8"
);

/// Where the binary frames a room sends (its relays and acks) are cut from: one block of
/// memory that many frames share, each a [`Bytes`] of its own part of it. A frame is written
/// once by each member's writer and then dropped, so by the time a block is used up its frames
/// are usually all gone and the next frame starts it over in place: no allocation a message
/// (a block is made anew only while a slow member still holds a frame of the last one).
///
/// The first block is made with the first frame: a room that never races holds none.
#[derive(Debug, Default)]
pub struct Frames {
    block: BytesMut,
}

impl Frames {
    /// A block: 2 KiB holds 66 relays of the longest message, about one second of a room of
    /// four racers streaming their changes.
    pub const BLOCK_BYTES: usize = 2048;

    /// The frame of `parts`, one after the other (at most a block's bytes in all).
    fn frame(&mut self, parts: &[&[u8]]) -> Bytes {
        let len: usize = parts.iter().map(|part| part.len()).sum();
        if self.block.capacity() < len {
            // Starts the block over where no frame of it is left, or takes a new one.
            self.block.reserve(Self::BLOCK_BYTES.max(len));
        }
        for part in parts {
            self.block.extend_from_slice(part);
        }
        self.block.split().freeze()
    }

    /// A relayed message: racer `racer`'s `message` (its bytes as sent: at most
    /// [`STREAM_MESSAGE_BYTES_MAX`], as every stream message decoded is; a longer one would
    /// be cut), received by the server `received_us` µs after GO.
    pub fn relay(&mut self, racer: u8, received_us: u64, message: &[u8]) -> Bytes {
        let message = &message[..message.len().min(STREAM_MESSAGE_BYTES_MAX)];
        self.frame(&[&[RELAY, racer], &received_us.to_le_bytes(), message])
    }

    /// The acknowledgement of every message up to `seq`.
    pub fn ack(&mut self, seq: u32) -> Bytes {
        self.frame(&[&[ACK], &seq.to_le_bytes()])
    }
}

/// A relayed message back: `(racer, received_us, message)`.
pub fn parse_relay(bytes: &[u8]) -> Option<(u8, u64, Stream)> {
    if bytes.len() < 10 || bytes[0] != RELAY {
        return None;
    }
    let mut us = [0u8; 8];
    us.copy_from_slice(&bytes[2..10]);
    let message = Stream::decode(&bytes[10..]).ok()?;
    Some((bytes[1], u64::from_le_bytes(us), message))
}

/// Racer `racer`'s relay frames so far, as the one message a member who catches up is sent:
/// `BACKLOG`, the racer, then each frame behind its length (u8). Kept by the room as it
/// grows, a frame at a time: one buffer a racer, about 31 bytes a message (a `Vec` of frames
/// each in an allocation of its own took three times that, and a store to its own cold line
/// a message).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Backlog {
    bytes: Vec<u8>,
    frames: usize,
}

impl Backlog {
    pub fn new(racer: u8) -> Backlog {
        Backlog {
            bytes: vec![BACKLOG, racer],
            frames: 0,
        }
    }

    /// Appends relay frame `frame` (at most 10 + `STREAM_MESSAGE_BYTES_MAX` = 31 bytes; a
    /// longer one would be cut at 255).
    pub fn push(&mut self, frame: &[u8]) {
        let len = u8::try_from(frame.len()).unwrap_or(u8::MAX);
        self.bytes.push(len);
        self.bytes.extend_from_slice(&frame[..usize::from(len)]);
        self.frames += 1;
    }

    /// Frames so far.
    pub fn frames(&self) -> usize {
        self.frames
    }

    /// The message's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// A backlog back: its racer and its relay frames (none if malformed).
pub fn parse_backlog(bytes: &[u8]) -> Option<(u8, Vec<&[u8]>)> {
    let [BACKLOG, racer, rest @ ..] = bytes else {
        return None;
    };
    let mut frames = Vec::new();
    let mut rest = rest;
    while let Some((&len, tail)) = rest.split_first() {
        let len = usize::from(len);
        if tail.len() < len {
            return None;
        }
        frames.push(&tail[..len]);
        rest = &tail[len..];
    }
    Some((*racer, frames))
}

/// An acknowledgement back: its `seq`.
pub fn parse_ack(bytes: &[u8]) -> Option<u32> {
    match bytes {
        [ACK, a, b, c, d] => Some(u32::from_le_bytes([*a, *b, *c, *d])),
        _ => None,
    }
}

// -- control messages (JSON text frames) ---------------------------------------------------

/// What a member of a room may send as text (JSON, `type` names the message).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum LiveClientMessage {
    /// The first message: join as a racer (with the player's token; without one, as a guest
    /// whose run is relayed but never filed) or as a spectator. `resume`: the key of a racer
    /// this page was (from its `welcome`), to take its place again after a cut.
    Hello {
        role: Role,
        #[serde(default)]
        token: Option<String>,
        #[serde(default)]
        resume: Option<String>,
    },
    /// A racer is ready (or not) for the countdown.
    Ready { ready: bool },
    /// A clock sample: the server answers `pong` with its clock.
    Ping { id: u32 },
    /// Leave the room (a racer racing: their run so far is kept, unranked).
    Leave {},
    /// The racer's page is going away (closed or reloading): if they do not take their seat
    /// back within [`AWAY_GRACE`](super::limits::AWAY_GRACE) of their socket closing, they
    /// have left, as with `leave`, rather than being cut off after the resume grace. A page
    /// cannot tell a reload from a close; this lets a reload keep the seat and a close show
    /// as a leave within seconds.
    Away {},
}

/// Racer or spectator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Racer,
    Spectator,
}

/// What the server sends as text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LiveServerMessage {
    /// The answer to `hello`: who you are in the room, the room, the clock.
    Welcome {
        /// Your racer number (0…7), or none for a spectator.
        racer: Option<u8>,
        /// Give it in `hello.resume` to take your place again after a cut.
        key: Option<String>,
        /// The highest stream `seq` the server holds from you (after a resume: send from the
        /// next one), or none.
        acked: Option<u32>,
        /// The server's clock now (Unix ms).
        server_ms: i64,
        room: RoomView,
    },
    /// The room changed: the whole of it.
    Room { room: RoomView },
    /// A clock sample: `id` as sent, and the server's clock when it answered (Unix ms, with
    /// µs in `server_us`).
    Pong {
        id: u32,
        server_ms: i64,
        server_us: i64,
    },
    /// A racer's page disagrees with the server's re-simulation at a split.
    Desync {
        racer: u8,
        tick: u32,
        /// The server's state hash after the tick (16 hex digits), or `-` when the server's
        /// run has no split there (the page reported one the server did not reach then).
        expected: String,
        /// The page's (16 hex digits; all zeros when the page ran past a split of the
        /// server's without reporting it).
        found: String,
    },
}

/// A room, as every member sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RoomView {
    pub id: String,
    pub level: String,
    pub tick_rate: u32,
    pub phase: Phase,
    /// GO on the server's clock (Unix ms), once the countdown has begun.
    pub go_ms: Option<i64>,
    /// When the race ends at the latest (Unix ms): GO plus the longest race.
    pub ends_ms: Option<i64>,
    /// How late after GO plus its game time a message may arrive (ms).
    pub slack_ms: i64,
    pub racers: Vec<RacerView>,
    pub spectators: usize,
    /// Why the room ended before its race did, when it could not go on (its server stopped
    /// and no process could take the race up): for a human.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Where a room is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Racers join and ready up.
    Lobby,
    /// GO is set; everyone counts down to it.
    Countdown,
    /// After GO.
    Racing,
    /// Everyone finished, left or was cut off, or the time limit passed.
    Over,
}

/// One racer, as every member sees them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RacerView {
    pub racer: u8,
    /// The player's name, or `guest N`.
    pub name: String,
    /// Racing under a token (the run is filed and ranked).
    pub registered: bool,
    pub ready: bool,
    pub connected: bool,
    pub state: RacerState,
    /// How many ticks the server has re-simulated for them: the last one is `tick − 1` (the
    /// first tick is 0); 0 before any.
    pub tick: u32,
    /// Their splits so far, in the order reached (the finish last).
    pub splits: Vec<SplitView>,
    pub finish_tick: Option<u32>,
    /// Whether every message so far came on time.
    pub realtime: bool,
    /// Why not, for a human.
    pub realtime_note: Option<String>,
    /// The run filed for them (once finished, left or cut off).
    pub run_id: Option<i64>,
}

/// A checkpoint reached for the first time, or the finish.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SplitView {
    /// The checkpoint's index in the level, from 0 (shown as `CP1` for index 0); null for
    /// the finish.
    pub checkpoint: Option<u32>,
    /// The tick it was reached on (the first tick is 0).
    pub tick: u32,
}

/// Where a racer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RacerState {
    Waiting,
    Racing,
    Finished,
    /// Left the room during the race (their run so far is kept, unranked).
    Left,
    /// Cut off for good: not back within the resume grace (their run so far is kept, unranked).
    Cut,
    /// Their page disagreed with the server's re-simulation: not filed.
    Desynced,
    /// The time limit passed before the finish (kept, unranked).
    Timeout,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn messages_round_trip_and_have_their_sizes() {
        let input = Input {
            steer_x: -127,
            steer_z: 64,
            buttons: Buttons::ALL,
        };
        for (message, len) in [
            (
                Stream::Input {
                    seq: 7,
                    at_ns: 1_234_567_890_123,
                    input,
                },
                16,
            ),
            (Stream::Ran { seq: 8, tick: 3600 }, 9),
            (
                Stream::Split {
                    seq: 9,
                    tick: 812,
                    checkpoint: FINISH,
                    hash: 0x0123_4567_89ab_cdef,
                },
                21,
            ),
        ] {
            let bytes = message.encode();
            assert_eq!(bytes.len(), len);
            assert_eq!(Stream::decode(&bytes), Ok(message));
            let relayed = Frames::default().relay(3, 42, &bytes);
            assert_eq!(parse_relay(&relayed), Some((3, 42, message)));
        }
        let mut cut = Frames::default();
        assert_eq!(parse_ack(&cut.ack(77)), Some(77));
        // docs/live.md's layout: 0x90, then seq as u32 little-endian.
        assert_eq!(&cut.ack(0x0403_0201)[..], [0x90, 1, 2, 3, 4]);
        let frames = [
            cut.relay(1, 5, &[RAN, 0, 0, 0, 0, 1, 0, 0, 0]),
            cut.relay(1, 9, &[RAN, 1, 0, 0, 0, 2, 0, 0, 0]),
        ];
        let mut backlog = Backlog::new(1);
        for frame in &frames {
            backlog.push(frame);
        }
        assert_eq!(backlog.frames(), 2);
        let (racer, back) = parse_backlog(backlog.as_bytes()).unwrap();
        assert_eq!(
            (racer, back),
            (1, frames.iter().map(|f| &f[..]).collect::<Vec<_>>())
        );
    }

    /// Frames cut from shared blocks keep their own bytes whatever is cut after them (a frame
    /// still held keeps its block from being written over), and a block whose frames are all
    /// gone is used again in place, not allocated anew.
    #[test]
    fn frames_keep_their_bytes_and_a_block_is_used_again_once_its_frames_are_gone() {
        let message = |k: u32| {
            Stream::Ran {
                seq: k,
                tick: k * 7,
            }
            .encode()
        };
        let mut cut = Frames::default();
        assert_eq!(cut.block.capacity(), 0, "no block before the first frame");
        // Many blocks' worth, all held: every frame still reads back as cut.
        let held: Vec<(u32, Bytes)> = (0..500)
            .map(|k| {
                (
                    k,
                    cut.relay((k % 4) as u8, u64::from(k) * 1000, &message(k)),
                )
            })
            .collect();
        let acks: Vec<Bytes> = (0..100).map(|k| cut.ack(k)).collect();
        for (k, frame) in &held {
            let expected = (
                ((k % 4) as u8),
                u64::from(*k) * 1000,
                Stream::decode(&message(*k)).unwrap(),
            );
            assert_eq!(parse_relay(frame), Some(expected), "frame {k}");
        }
        for (k, ack) in acks.iter().enumerate() {
            assert_eq!(parse_ack(ack), Some(k as u32));
        }
        drop((held, acks));
        // Frames dropped as they are written, as a member's writer does: 5 000 of them (over
        // 90 KiB) all in one block, started over again and again.
        let (mut lowest, mut highest) = (usize::MAX, 0);
        for k in 0..5_000u32 {
            let frame = cut.relay(1, u64::from(k), &message(k));
            lowest = lowest.min(frame.as_ptr() as usize);
            highest = highest.max(frame.as_ptr() as usize + frame.len());
            let header = parse_relay(&frame).map(|(racer, us, _)| (racer, us));
            assert_eq!(header, Some((1, u64::from(k))));
        }
        assert!(
            highest - lowest <= Frames::BLOCK_BYTES,
            "{} bytes",
            highest - lowest
        );
    }

    #[test]
    fn malformed_frames_say_what_is_wrong() {
        assert_eq!(Stream::decode(&[]), Err(Malformed::Empty));
        assert_eq!(Stream::decode(&[0x42]), Err(Malformed::UnknownType(0x42)));
        assert_eq!(
            Stream::decode(&[RAN, 0, 0, 0]).unwrap_err().to_string(),
            "a ran is 9 bytes, found 4"
        );
        let mut bad = Stream::Input {
            seq: 0,
            at_ns: 0,
            input: Input::default(),
        }
        .encode();
        bad[15] = 0x80;
        assert_eq!(Stream::decode(&bad), Err(Malformed::Buttons(0x80)));
    }

    #[test]
    fn control_messages_are_tagged_json() {
        let hello: LiveClientMessage =
            serde_json::from_str(r#"{"type":"hello","role":"racer","token":"pogo_x"}"#).unwrap();
        assert_eq!(
            hello,
            LiveClientMessage::Hello {
                role: Role::Racer,
                token: Some("pogo_x".into()),
                resume: None
            }
        );
        assert!(serde_json::from_str::<LiveClientMessage>(r#"{"type":"ready"}"#).is_err());
        assert!(
            serde_json::from_str::<LiveClientMessage>(r#"{"type":"leave","extra":1}"#).is_err()
        );
    }

    proptest! {
        /// No byte sequence panics the decoder; what decodes encodes back to the same bytes.
        #[test]
        fn any_bytes_decode_or_are_refused(bytes in proptest::collection::vec(any::<u8>(), 0..32)) {
            if let Ok(message) = Stream::decode(&bytes) {
                prop_assert_eq!(message.encode(), bytes);
            }
        }
    }
}
