//! Decoded replays as handle objects: what a page needs to re-simulate a ghost from replay
//! bytes with the same core — the header (level, tuning, rules, players), the claimed
//! outcome, and every player's input for every tick.
//!
//! Decoding reads the bytes as a stream with `pogo_replay::ReplayReader` (the reader under
//! `Replay::decode`: every chunk's length bounded before it is read, its check verified
//! before it is decoded, the format's rules checked) and the default replay `Limits`. On top
//! of what `Replay::decode` checks, it keeps the verifier's budget of player-ticks (ticks ×
//! players), checked before each chunk is expanded: a replay every default verifier would
//! refuse as over budget is refused here too, so the expanded inputs of one replay take at
//! most `player_ticks_max` × 3 bytes (2.5 MiB) whatever the bytes claim, and decoding takes
//! time linear in the bytes up to that budget. Inputs are kept expanded per tick, one
//! `PogoInput` per player per tick, so copying a range out is a slice copy.
//!
//! Decoding does not simulate: the hashes and finish ticks are the replay's claims until a
//! verifier (or a re-simulation from the inputs) checks them.

use pogo_replay::{Chunk, Header, Limits, ReplayError, ReplayReader};

use crate::error::Error;
use crate::sim::to_c_input;
use crate::types::{PogoInput, PogoReplayInfo, PogoStatus};

/// A replay handle's object.
#[derive(Debug)]
pub struct ReplayObject {
    header: Header,
    ticks: u32,
    /// Per player, the tick it claims to have finished on.
    finish: Vec<Option<u32>>,
    final_hash: u64,
    /// `inputs[player][tick]`.
    inputs: Vec<Vec<PogoInput>>,
}

/// Decodes and checks the replay in `bytes` (`pogo_replay_decode`).
pub fn decode(bytes: &[u8]) -> Result<ReplayObject, Error> {
    if bytes.is_empty() {
        // The reader would say "truncated at byte 0", true but unhelpful for a caller that
        // passed nothing at all (an empty download, say).
        return Err(Error::new(
            PogoStatus::Parse,
            "cannot decode the replay: the input is empty (0 bytes)",
        ));
    }
    let limits = Limits::default();
    let mut reader = ReplayReader::open(bytes, limits).map_err(decode_error)?;
    let players = usize::from(reader.header().players);
    let mut inputs: Vec<Vec<PogoInput>> = vec![Vec::new(); players];
    let mut player_ticks = 0u64;
    let trailer = loop {
        match reader.next_chunk().map_err(decode_error)? {
            Some(Chunk::Inputs(chunk)) => {
                // The budget before the expansion: this chunk's inputs are not stored unless
                // the whole replay so far fits (the verifier's check, in the same order).
                player_ticks += u64::from(chunk.ticks) * players as u64;
                if player_ticks > limits.player_ticks_max {
                    return Err(Error::limit(format_args!(
                        "cannot decode the replay: over the budget of {} player-ticks ({} ticks \
                         of {players} players at most), as every default verifier would refuse it",
                        limits.player_ticks_max,
                        limits.player_ticks_max / players as u64,
                    )));
                }
                for (player, stored) in inputs.iter_mut().enumerate() {
                    stored.extend(chunk.inputs(player).map(to_c_input));
                }
            }
            Some(Chunk::Trailer(trailer)) => break trailer,
            // The reader returns `None` only after the trailer; this is `Replay::decode`'s
            // answer should it ever not.
            None => {
                return Err(decode_error(ReplayError::Truncated {
                    offset: reader.offset(),
                }));
            }
        }
    };
    Ok(ReplayObject {
        header: reader.header().clone(),
        ticks: trailer.ticks,
        finish: trailer.finish,
        final_hash: trailer.final_hash,
        inputs,
    })
}

/// The decoder's error as the boundary's: `POGO_STATUS_LIMIT` for a replay longer than the
/// limit, `POGO_STATUS_PARSE` for bytes that are not a valid replay, with its message.
fn decode_error(e: ReplayError) -> Error {
    let status = match e {
        ReplayError::TooLong { .. } => PogoStatus::Limit,
        _ => PogoStatus::Parse,
    };
    Error::new(status, format_args!("cannot decode the replay: {e}"))
}

impl ReplayObject {
    pub fn info(&self) -> PogoReplayInfo {
        let mut info = PogoReplayInfo {
            level_hash: self.header.level_hash,
            tuning_hash: self.header.tuning_hash,
            claimed_final_hash: self.final_hash,
            rules_version: self.header.rules_version,
            tick_rate: self.header.tick_rate,
            players: u32::from(self.header.players),
            ticks: self.ticks,
            hash_interval: self.header.hash_interval,
            ..PogoReplayInfo::default()
        };
        for (player, finish) in self.finish.iter().enumerate() {
            if let (Some(tick), Some(slot)) = (finish, info.finish_ticks.get_mut(player)) {
                *slot = *tick;
                info.finished_mask |= 1 << player;
            }
        }
        info
    }

    pub fn level_name(&self) -> &str {
        &self.header.level_name
    }

    /// The player name stored in the header, "" if none.
    pub fn player_name(&self) -> &str {
        self.header.player_name.as_deref().unwrap_or("")
    }

    /// The date stored in the header (ISO 8601, not interpreted), "" if none.
    pub fn date(&self) -> &str {
        self.header.date.as_deref().unwrap_or("")
    }

    /// Player `player`'s inputs from tick `first_tick` on, at most `count` of them.
    pub fn inputs(&self, player: u32, first_tick: u32, count: u32) -> Result<&[PogoInput], Error> {
        let stored = self.inputs.get(player as usize).ok_or_else(|| {
            Error::invalid(format_args!(
                "player {player} does not exist (players: {})",
                self.inputs.len()
            ))
        })?;
        if first_tick > self.ticks {
            return Err(Error::invalid(format_args!(
                "first_tick {first_tick} is past the replay's end (ticks: {})",
                self.ticks
            )));
        }
        let first = first_tick as usize;
        let end = first.saturating_add(count as usize).min(stored.len());
        Ok(&stored[first..end])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_short_inputs_say_what_they_are() {
        let empty = decode(&[]).unwrap_err();
        assert_eq!(empty.status, PogoStatus::Parse);
        assert!(empty.message.contains("empty"), "{}", empty.message);
        let short = decode(b"POGO").unwrap_err();
        assert_eq!(short.status, PogoStatus::Parse);
        assert!(
            short.message.contains("truncated at byte 0"),
            "{}",
            short.message
        );
        let garbage = decode(b"not a replay at all").unwrap_err();
        assert!(
            garbage.message.contains("not a pogo replay"),
            "{}",
            garbage.message
        );
    }
}
