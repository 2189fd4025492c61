//! The recorder: writes a replay while the run is played, one self-checking chunk at a time,
//! so a crash loses at most the chunk being filled.

use std::io::{self, Write};

use pogo_core::{Fx, Input, PLAYERS_MAX, RULES_VERSION, Simulation};
use xxhash_rust::xxh3::Xxh3;

use crate::format::{
    self, Header, InputChunk, KIND_HEADER, KIND_INPUTS, KIND_TRAILER, Run, Trailer, is_hashed,
};

/// Streams a replay into `out`.
///
/// Laid out in the order written (`repr(C)`), what a tick reads first: a live server records
/// hundreds of runs at once, a few ticks each as their messages come, and by a run's next
/// message its recorder is out of the CPU's caches, so every cache line a tick touches is one
/// more read from memory (PERFORMANCE.md, "A message's state from memory"). A tick reads the
/// first two lines (for one player); the header, the writer and the file's hash state are
/// read once a chunk.
#[repr(C)]
pub struct Recorder<W: Write> {
    ticks: u32,
    /// `header.chunk_ticks`, `header.hash_interval` and `header.players`, kept beside what a
    /// tick reads (the header never changes).
    chunk_ticks: u32,
    hash_interval: u32,
    players: u8,
    /// The chunk being filled, each player's last run aside (in `open`).
    chunk: InputChunk,
    /// Each player's run still growing (`length` 0: none yet in this chunk), pushed to
    /// `chunk.runs` when the input changes or the chunk is written. A tick that holds its
    /// input (most do) touches only this, not a `Vec` behind a `Vec`.
    open: [Run; PLAYERS_MAX],
    header: Header,
    out: W,
    /// Every byte written so far, for the trailer's whole-file check. Boxed: inline, its 576
    /// bytes (64-byte aligned) would come first and push what a tick reads onto more lines.
    file: Box<Xxh3>,
}

impl<W: Write> std::fmt::Debug for Recorder<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("header", &self.header)
            .field("ticks", &self.ticks)
            .finish_non_exhaustive()
    }
}

/// Seconds of play per input chunk: what a crash can lose.
pub const CHUNK_SECONDS: u32 = 5;

impl Header {
    /// The header for recording `sim` from its first tick: its rules, tick rate, level and
    /// tuning, a chunk every `CHUNK_SECONDS` and a state hash every second of play.
    pub fn for_simulation(
        sim: &Simulation,
        player_name: Option<String>,
        date: Option<String>,
    ) -> Header {
        let tick_rate = sim.tuning().spec().tick_rate;
        Header {
            rules_version: RULES_VERSION,
            tick_rate,
            frac_bits: Fx::FRAC_BITS as u8,
            level_name: sim.world().desc().name.clone(),
            level_hash: sim.world().content_hash(),
            tuning_hash: sim.tuning().content_hash(),
            players: sim.state().pogos.len() as u8,
            chunk_ticks: (tick_rate * CHUNK_SECONDS).min(crate::format::CHUNK_TICKS_MAX),
            hash_interval: tick_rate,
            player_name,
            date,
        }
    }
}

impl<W: Write> Recorder<W> {
    /// Writes the preamble and the header.
    pub fn new(out: W, header: Header) -> io::Result<Recorder<W>> {
        header
            .check(0)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
        let players = usize::from(header.players);
        let mut recorder = Recorder {
            ticks: 0,
            chunk_ticks: header.chunk_ticks,
            hash_interval: header.hash_interval,
            players: header.players,
            out,
            file: Box::new(Xxh3::new()),
            chunk: InputChunk {
                first_tick: 0,
                ticks: 0,
                runs: vec![Vec::new(); players],
                hashes: Vec::new(),
            },
            header,
            open: [Run::NONE; PLAYERS_MAX],
        };
        recorder.write(&format::preamble())?;
        let payload = format::encode(&recorder.header);
        recorder.write(&format::frame(KIND_HEADER, &payload))?;
        recorder.out.flush()?;
        Ok(recorder)
    }

    /// The header written at the start of the replay.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Ticks recorded so far.
    pub fn ticks(&self) -> u32 {
        self.ticks
    }

    /// Records one tick: every player's input, and — only on hashed ticks, when
    /// [`needs_hash`](Recorder::needs_hash) is true — the state hash after it, computed by
    /// `state_hash`. Writes the chunk out when it is full.
    pub fn record(&mut self, inputs: &[Input], state_hash: impl FnOnce() -> u64) -> io::Result<()> {
        let players = usize::from(self.players);
        for (player, open) in self.open.iter_mut().take(players).enumerate() {
            let input = inputs.get(player).copied().unwrap_or_default().normalized();
            if open.length > 0 && open.input() == input {
                open.length += 1;
                continue;
            }
            if open.length > 0 {
                self.chunk.runs[player].push(*open);
            }
            *open = Run {
                length: 1,
                steer_x: input.steer_x,
                steer_z: input.steer_z,
                buttons: input.buttons.0,
            };
        }
        if self.needs_hash() {
            self.chunk.hashes.push(state_hash());
        }
        self.chunk.ticks += 1;
        self.ticks += 1;
        if self.chunk.ticks == self.chunk_ticks {
            self.flush_chunk()?;
        }
        Ok(())
    }

    /// Whether the tick about to be recorded is one whose state hash is stored.
    pub fn needs_hash(&self) -> bool {
        is_hashed(self.ticks, self.hash_interval)
    }

    /// Writes the last (partial) chunk and the trailer with the claimed outcome; returns the
    /// writer.
    ///
    /// Refuses (`InvalidInput`, nothing written) an outcome no reader would accept: not one
    /// entry per player, or a finish tick at or past the ticks recorded.
    pub fn finish(mut self, finish: Vec<Option<u32>>, final_hash: u64) -> io::Result<W> {
        let players = usize::from(self.header.players);
        if finish.len() != players || finish.iter().flatten().any(|&t| t >= self.ticks) {
            let message = format!(
                "outcome {finish:?} does not fit {players} players and {} ticks",
                self.ticks
            );
            return Err(io::Error::new(io::ErrorKind::InvalidInput, message));
        }
        self.flush_chunk()?;
        let trailer = Trailer {
            ticks: self.ticks,
            finish,
            final_hash,
            file_check: self.file.digest(),
        };
        let payload = format::encode(&trailer);
        self.write(&format::frame(KIND_TRAILER, &payload))?;
        self.out.flush()?;
        Ok(self.out)
    }

    /// [`finish`](Recorder::finish) with the outcome `sim` reached: every player's finish tick
    /// and the state hash after the last tick.
    pub fn finish_simulation(self, sim: &Simulation) -> io::Result<W> {
        self.finish(sim.state().finish_ticks(), sim.state_hash())
    }

    fn flush_chunk(&mut self) -> io::Result<()> {
        if self.chunk.ticks == 0 {
            return Ok(());
        }
        for (runs, open) in self.chunk.runs.iter_mut().zip(&mut self.open) {
            if open.length > 0 {
                runs.push(std::mem::replace(open, Run::NONE));
            }
        }
        let players = self.chunk.runs.len();
        let next = InputChunk {
            first_tick: self.ticks,
            ticks: 0,
            runs: vec![Vec::new(); players],
            hashes: Vec::new(),
        };
        let full = std::mem::replace(&mut self.chunk, next);
        let payload = format::encode(&full);
        self.write(&format::frame(KIND_INPUTS, &payload))?;
        self.out.flush()
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.file.update(bytes);
        self.out.write_all(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a tick reads of a one-player recorder (its counts, the chunk, the open run) lies
    /// in its first two cache lines, ahead of the header, the writer and the hash state.
    #[test]
    fn a_tick_reads_the_first_two_lines() {
        let end = std::mem::offset_of!(Recorder<Vec<u8>>, open) + std::mem::size_of::<Run>();
        assert!(end <= 128, "a tick reads {end} bytes in");
        for cold in [
            std::mem::offset_of!(Recorder<Vec<u8>>, header),
            std::mem::offset_of!(Recorder<Vec<u8>>, out),
            std::mem::offset_of!(Recorder<Vec<u8>>, file),
        ] {
            assert!(
                cold >= end,
                "a field read once a chunk at {cold}, before {end}"
            );
        }
        assert!(std::mem::size_of::<Recorder<Vec<u8>>>() <= 384);
    }
}
