//! Salvage: turn a recording that stopped mid-write (a crash, a full disk) into a valid
//! replay of everything up to its last whole chunk.
//!
//! The header and the whole input chunks are kept; the rest is dropped. The kept inputs are
//! re-simulated (their stored state hashes must agree, so salvage cannot launder a tampered
//! file), and a trailer is written with the outcome the re-simulation reaches.

use std::fmt;

use pogo_core::{Input, Simulation, Ticks};

use crate::format::{InputChunk, ReplayError, Trailer, is_hashed};
use crate::reader::{Chunk, Replay, ReplayReader};
use crate::verify::{Verifier, VerifyError};

/// What salvage kept and why it stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Salvaged {
    /// The valid replay of everything kept, with a trailer of the re-simulated outcome.
    pub replay: Replay,
    /// Bytes of the input that were dropped.
    pub dropped_bytes: u64,
    /// Why reading stopped (`None` if the input was a complete replay).
    pub stopped: Option<ReplayError>,
}

/// Why nothing could be salvaged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SalvageError {
    /// The preamble or header is damaged: there is nothing to re-simulate.
    Header(ReplayError),
    /// The header does not match the verifier (level, tuning, rules).
    Mismatch(VerifyError),
    /// The kept inputs do not reproduce their own stored hashes.
    Desync(VerifyError),
}

impl fmt::Display for SalvageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SalvageError::Header(e) => write!(f, "nothing to salvage: {e}"),
            SalvageError::Mismatch(e) | SalvageError::Desync(e) => write!(f, "cannot salvage: {e}"),
        }
    }
}

impl std::error::Error for SalvageError {}

/// Salvages `bytes` against the verifier's levels and tuning.
pub fn salvage(bytes: &[u8], verifier: &Verifier) -> Result<Salvaged, SalvageError> {
    let mut reader = ReplayReader::open(bytes, verifier.limits()).map_err(SalvageError::Header)?;
    let header = reader.header().clone();
    let world = verifier
        .check_header(&header)
        .map_err(SalvageError::Mismatch)?;
    let mut chunks: Vec<InputChunk> = Vec::new();
    // The preamble and the header are kept even when no input chunk follows.
    let mut kept_bytes = reader.offset();
    let stopped = loop {
        match reader.next_chunk() {
            Ok(Some(Chunk::Inputs(chunk))) => {
                chunks.push(chunk);
                kept_bytes = reader.offset();
            }
            Ok(Some(Chunk::Trailer(_))) => {
                kept_bytes = bytes.len() as u64;
                break None;
            }
            Ok(None) => break None,
            Err(e) => break Some(e),
        }
    };
    let players = usize::from(header.players);
    let mut sim = Simulation::new(world, verifier.tuning().clone(), players).map_err(|_| {
        SalvageError::Header(ReplayError::Malformed {
            offset: 0,
            what: "player count",
        })
    })?;
    let mut inputs = vec![Input::default(); players];
    for chunk in &chunks {
        let mut runs: Vec<_> = (0..players).map(|p| chunk.inputs(p)).collect();
        let mut hashes = chunk.hashes.iter();
        for tick in chunk.first_tick..chunk.first_tick + chunk.ticks {
            for (input, player_runs) in inputs.iter_mut().zip(runs.iter_mut()) {
                *input = player_runs.next().unwrap_or_default();
            }
            sim.step(&inputs);
            if is_hashed(tick, header.hash_interval) {
                let expected = hashes.next().copied().unwrap_or_default();
                let found = sim.state_hash();
                if expected != found {
                    return Err(SalvageError::Desync(VerifyError::Desync {
                        tick: Ticks(tick),
                        expected,
                        found,
                    }));
                }
            }
        }
    }
    let trailer = Trailer {
        ticks: sim.state().tick.0,
        finish: sim.state().finish_ticks(),
        final_hash: sim.state_hash(),
        file_check: 0, // recomputed by `Replay::encode`
    };
    let replay = Replay {
        header,
        chunks,
        trailer,
    };
    Ok(Salvaged {
        replay,
        dropped_bytes: bytes.len() as u64 - kept_bytes,
        stopped,
    })
}
