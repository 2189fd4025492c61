//! Reading replays: a streaming reader that checks every byte as it goes and never holds more
//! than one chunk, and a whole-file decoder for tools.
//!
//! The reader trusts nothing it has not checked: a chunk's length is compared with its kind's
//! limit before a byte of payload is read, the payload's check before it is decoded, the
//! decoded value's rules before it is used. Memory stays bounded by the largest chunk.

use std::io::{self, Read};

use xxhash_rust::xxh3::{Xxh3, xxh3_64};

use crate::format::{
    self, FORMAT_VERSION, HASH_INTERVAL_SECONDS_MAX, HEADER_BYTES_MAX, Header,
    INPUT_CHUNK_BYTES_MAX, InputChunk, KIND_HEADER, KIND_INPUTS, KIND_TRAILER, MAGIC,
    PREAMBLE_BYTES, ReplayError, TRAILER_BYTES_MAX, Trailer,
};

/// Limits on what a reader accepts and what a verification may cost, whatever a file claims.
///
/// A verification's cost is the simulation work, not the file's size: a 167 KB file can claim
/// 16 players for 4 hours. So the bound is a budget of **player-ticks** (ticks × players),
/// checked against what the header (players) and each input chunk (ticks) claim *before*
/// that chunk is simulated; a file over the budget is refused without simulating the chunk
/// that would exceed it. Forged hashes are caught early because a replay must carry a state
/// hash at least every `hash_interval_s_max` seconds of play (the format allows at most
/// [`HASH_INTERVAL_SECONDS_MAX`]): a forgery desyncs within that many seconds, not at the
/// end of the file. A server may add a wall-clock bound per verification.
///
/// The per-tick cost itself is bounded by the world's limits (boxes per grid cell, large
/// boxes, platforms, ramps) and the tick's (sweeps per tick): see `PERFORMANCE.md` for the
/// worst case measured against the budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most ticks in a replay. Default: 4 hours at 60 Hz.
    pub ticks_max: u32,
    /// Most player-ticks (ticks × players) a verification simulates. Default: 4 hours of one
    /// player at 60 Hz (864 000), which is 15 minutes of 16 players.
    pub player_ticks_max: u64,
    /// Longest stretch of play between two stored state hashes, in seconds (1 ≤ it ≤
    /// [`HASH_INTERVAL_SECONDS_MAX`]). Default: 1, what the recorder writes.
    pub hash_interval_s_max: u32,
    /// Most wall-clock time one verification may take (`None`: no limit). Default: none, so
    /// a verdict never depends on the machine; a server sets it as a last line of defence.
    pub duration_max: Option<std::time::Duration>,
}

impl Limits {
    /// The default [`Limits::ticks_max`]: 4 hours at 60 Hz.
    pub const DEFAULT_TICKS_MAX: u32 = 4 * 3600 * 60;
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            ticks_max: Limits::DEFAULT_TICKS_MAX,
            player_ticks_max: u64::from(Limits::DEFAULT_TICKS_MAX),
            hash_interval_s_max: 1,
            duration_max: None,
        }
    }
}

/// One step of a streaming read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Chunk {
    /// The next input chunk, checked against the header and the chunks before it.
    Inputs(InputChunk),
    /// The last chunk; the file check has been verified and nothing follows.
    Trailer(Trailer),
}

/// Reads a replay chunk by chunk from any `Read`.
pub struct ReplayReader<R: Read> {
    input: R,
    limits: Limits,
    header: Header,
    /// Bytes consumed so far.
    offset: u64,
    file: Xxh3,
    next_tick: u32,
    done: bool,
}

impl<R: Read> ReplayReader<R> {
    /// Reads and checks the preamble and the header.
    pub fn open(mut input: R, limits: Limits) -> Result<ReplayReader<R>, ReplayError> {
        // The first byte on its own, so that no bytes at all is `Empty`, not truncation.
        let mut preamble = [0u8; PREAMBLE_BYTES];
        let first = loop {
            match input.read(&mut preamble[..1]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(ReplayError::Io { kind: e.kind() }),
            }
        };
        if first == 0 {
            return Err(ReplayError::Empty);
        }
        // The rest of the preamble; a file that ends inside it is a replay cut short only if
        // what it has is the start of one (a short text file is not a pogo replay).
        let mut got = first;
        while got < PREAMBLE_BYTES {
            match input.read(&mut preamble[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(ReplayError::Io { kind: e.kind() }),
            }
        }
        let magic: [u8; 8] = preamble[..8].try_into().unwrap_or_default();
        let start = got.min(MAGIC.len());
        if magic[..start] != MAGIC[..start] {
            // A file under 8 bytes: the bytes it has, then zeros.
            return Err(ReplayError::BadMagic { found: magic });
        }
        if got < PREAMBLE_BYTES {
            return Err(ReplayError::Truncated { offset: 0 });
        }
        let version = u16::from_le_bytes([preamble[8], preamble[9]]);
        if version != FORMAT_VERSION {
            return Err(ReplayError::UnsupportedFormat {
                found: version,
                supported: FORMAT_VERSION,
            });
        }
        let mut file = Xxh3::new();
        file.update(&preamble);
        let mut offset = PREAMBLE_BYTES as u64;
        let (kind, payload) = read_chunk(&mut input, &mut offset, &mut file)?;
        let at = PREAMBLE_BYTES as u64;
        if kind != KIND_HEADER {
            return Err(ReplayError::UnexpectedChunk {
                offset: at,
                found: kind,
                expected: "the header",
            });
        }
        let header: Header = format::decode(&payload, at)?;
        header.check(at)?;
        let max_interval = u64::from(
            limits
                .hash_interval_s_max
                .clamp(1, HASH_INTERVAL_SECONDS_MAX),
        ) * u64::from(header.tick_rate);
        if u64::from(header.hash_interval) > max_interval {
            return Err(ReplayError::SparseHashes {
                hash_interval: header.hash_interval,
                max: u32::try_from(max_interval).unwrap_or(u32::MAX),
            });
        }
        Ok(ReplayReader {
            input,
            limits,
            header,
            offset,
            file,
            next_tick: 0,
            done: false,
        })
    }

    /// The replay's header, read and checked when the reader was opened.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Bytes consumed so far: the end of the last whole chunk read.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Ticks delivered so far.
    pub fn ticks_read(&self) -> u32 {
        self.next_tick
    }

    /// The next chunk, `Ok(None)` after the trailer.
    pub fn next_chunk(&mut self) -> Result<Option<Chunk>, ReplayError> {
        if self.done {
            return Ok(None);
        }
        let at = self.offset;
        let file_check = self.file.digest();
        let (kind, payload) = read_chunk(&mut self.input, &mut self.offset, &mut self.file)?;
        match kind {
            KIND_INPUTS => {
                let chunk: InputChunk = format::decode(&payload, at)?;
                chunk.check(&self.header, self.next_tick, at)?;
                let end = u64::from(chunk.first_tick) + u64::from(chunk.ticks);
                if end > u64::from(self.limits.ticks_max) {
                    return Err(ReplayError::TooLong {
                        ticks_max: self.limits.ticks_max,
                    });
                }
                self.next_tick = end as u32;
                Ok(Some(Chunk::Inputs(chunk)))
            }
            KIND_TRAILER => {
                let trailer: Trailer = format::decode(&payload, at)?;
                if trailer.file_check != file_check {
                    return Err(ReplayError::FileChecksum {
                        expected: trailer.file_check,
                        found: file_check,
                    });
                }
                if trailer.ticks != self.next_tick {
                    return Err(ReplayError::Malformed {
                        offset: at,
                        what: "trailer tick count differs from the input chunks'",
                    });
                }
                if trailer.finish.len() != usize::from(self.header.players) {
                    return Err(ReplayError::Malformed {
                        offset: at,
                        what: "trailer has outcomes for a different number of players",
                    });
                }
                if trailer.finish.iter().flatten().any(|&t| t >= trailer.ticks) {
                    return Err(ReplayError::Malformed {
                        offset: at,
                        what: "finish tick beyond the recorded ticks",
                    });
                }
                let mut probe = [0u8; 1];
                // `Interrupted` is retried, as `read_exact` does for every other read: it is
                // not the end of the data (a signal during a read from a pipe or socket).
                let probed = loop {
                    match self.input.read(&mut probe) {
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        other => break other,
                    }
                };
                match probed {
                    Ok(0) => {}
                    Ok(_) => {
                        return Err(ReplayError::TrailingBytes {
                            offset: self.offset,
                        });
                    }
                    Err(e) => return Err(ReplayError::Io { kind: e.kind() }),
                }
                self.done = true;
                Ok(Some(Chunk::Trailer(trailer)))
            }
            other => Err(ReplayError::UnexpectedChunk {
                offset: at,
                found: other,
                expected: "inputs or the trailer",
            }),
        }
    }
}

impl<R: Read> std::fmt::Debug for ReplayReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplayReader")
            .field("header", &self.header)
            .field("offset", &self.offset)
            .finish_non_exhaustive()
    }
}

/// A whole replay in memory, for tools (inspect, diff, ghosts, salvage).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    /// What the replay is of: rules, level, tuning, players, names.
    pub header: Header,
    /// Every input chunk, in tick order.
    pub chunks: Vec<InputChunk>,
    /// The claimed outcome and the whole-file check (already verified).
    pub trailer: Trailer,
}

impl Replay {
    /// Decodes and checks a whole replay.
    pub fn decode(bytes: &[u8], limits: Limits) -> Result<Replay, ReplayError> {
        let mut reader = ReplayReader::open(bytes, limits)?;
        let mut chunks = Vec::new();
        loop {
            match reader.next_chunk()? {
                Some(Chunk::Inputs(chunk)) => chunks.push(chunk),
                Some(Chunk::Trailer(trailer)) => {
                    return Ok(Replay {
                        header: reader.header,
                        chunks,
                        trailer,
                    });
                }
                None => {
                    return Err(ReplayError::Truncated {
                        offset: reader.offset,
                    });
                }
            }
        }
    }

    /// The replay's bytes: the inverse of [`decode`](Replay::decode), byte for byte. The
    /// trailer's file check is recomputed.
    pub fn encode(&self) -> Vec<u8> {
        let mut bytes = format::preamble().to_vec();
        bytes.extend(format::frame(KIND_HEADER, &format::encode(&self.header)));
        for chunk in &self.chunks {
            bytes.extend(format::frame(KIND_INPUTS, &format::encode(chunk)));
        }
        let trailer = Trailer {
            file_check: xxh3_64(&bytes),
            ..self.trailer.clone()
        };
        bytes.extend(format::frame(KIND_TRAILER, &format::encode(&trailer)));
        bytes
    }

    /// Ticks recorded.
    pub fn ticks(&self) -> u32 {
        self.trailer.ticks
    }

    /// Every player's input for every tick, in order: `inputs[tick][player]`.
    pub fn inputs(&self) -> Vec<Vec<pogo_core::Input>> {
        let players = usize::from(self.header.players);
        let mut all = Vec::with_capacity(self.ticks() as usize);
        for chunk in &self.chunks {
            let per_player: Vec<Vec<pogo_core::Input>> =
                (0..players).map(|p| chunk.inputs(p).collect()).collect();
            for t in 0..chunk.ticks as usize {
                all.push(per_player.iter().map(|inputs| inputs[t]).collect());
            }
        }
        all
    }
}

/// Reads one chunk: its framing, length limit, payload and check. Adds its bytes to `file`.
fn read_chunk<R: Read>(
    input: &mut R,
    offset: &mut u64,
    file: &mut Xxh3,
) -> Result<(u8, Vec<u8>), ReplayError> {
    let at = *offset;
    let mut head = [0u8; 5];
    read_exact(input, &mut head, at)?;
    let kind = head[0];
    let length = u32::from_le_bytes([head[1], head[2], head[3], head[4]]);
    let max = match kind {
        KIND_HEADER => HEADER_BYTES_MAX,
        KIND_INPUTS => INPUT_CHUNK_BYTES_MAX,
        KIND_TRAILER => TRAILER_BYTES_MAX,
        other => {
            return Err(ReplayError::UnexpectedChunk {
                offset: at,
                found: other,
                expected: "a known chunk kind",
            });
        }
    };
    if length > max {
        return Err(ReplayError::ChunkTooLarge {
            offset: at,
            kind,
            length,
            max,
        });
    }
    // The length is bounded above, so this allocation is too.
    let mut payload = vec![0u8; length as usize];
    read_exact(input, &mut payload, at)?;
    let mut check = [0u8; 8];
    read_exact(input, &mut check, at)?;
    let stored = u64::from_le_bytes(check);
    let mut framed = Xxh3::new();
    framed.update(&head);
    framed.update(&payload);
    let computed = framed.digest();
    if stored != computed {
        return Err(ReplayError::ChunkChecksum {
            offset: at,
            expected: stored,
            found: computed,
        });
    }
    file.update(&head);
    file.update(&payload);
    file.update(&check);
    *offset = at + (head.len() + payload.len() + check.len()) as u64;
    Ok((kind, payload))
}

/// `read_exact` that reports the end of the data as truncation at the chunk's offset.
fn read_exact<R: Read>(input: &mut R, buf: &mut [u8], offset: u64) -> Result<(), ReplayError> {
    input.read_exact(buf).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => ReplayError::Truncated { offset },
        kind => ReplayError::Io { kind },
    })
}
