//! Recorders as handle objects: a `pogo_replay::Recorder` writing into memory, bound to the
//! simulation it records. Each `record` takes the inputs the simulation's last tick actually
//! used and its state hash from the simulation itself, and checks that exactly one tick was
//! stepped since the last record: a caller cannot record other inputs than it played, skip a
//! tick or record one twice without being told.

use pogo_core::{Input, PLAYERS_MAX};
use pogo_replay::{Header, Recorder};

use crate::error::Error;
use crate::sim::SimObject;
use crate::types::{POGO_RECORD_TICKS_MAX, PogoSim};

/// Most ticks one recording holds: the verifier's default length limit, since a longer replay
/// would be refused by every default verifier anyway. About 700 KiB of bot play.
pub(crate) const RECORD_TICKS_MAX: u32 = POGO_RECORD_TICKS_MAX;

/// A recorder handle's object.
#[derive(Debug)]
pub struct RecorderObject {
    /// The simulation being recorded.
    pub sim: PogoSim,
    pub state: Recording,
}

/// What a simulation's last step gives its recorder.
pub(crate) struct Stepped {
    /// The simulation's tick now.
    pub tick: u32,
    /// The last step's tick, and its inputs (the first `players`).
    pub last: Option<u32>,
    pub inputs: [Input; PLAYERS_MAX],
    pub players: usize,
    /// The state hash now, if the recorder stores this tick's.
    pub hash: Option<u64>,
}

#[derive(Debug)]
pub enum Recording {
    Recording(Box<Recorder<Vec<u8>>>),
    /// The whole replay, and the ticks it holds.
    Finished(Vec<u8>, u32),
}

impl RecorderObject {
    /// Starts recording `sim` (handle `handle`), which must be at tick 0.
    pub fn new(
        handle: PogoSim,
        sim: &SimObject,
        player_name: Option<String>,
        date: Option<String>,
    ) -> Result<RecorderObject, Error> {
        let tick = sim.sim.state().tick;
        if tick.0 != 0 {
            return Err(Error::state(format_args!(
                "the simulation is at tick {tick}: a recording starts at tick 0"
            )));
        }
        let header = Header::for_simulation(&sim.sim, player_name, date);
        let recorder = Recorder::new(Vec::new(), header)
            .map_err(|e| Error::invalid(format_args!("cannot record: {e}")))?;
        Ok(RecorderObject {
            sim: handle,
            state: Recording::Recording(Box::new(recorder)),
        })
    }

    /// Ticks recorded.
    pub fn ticks(&self) -> u32 {
        match &self.state {
            Recording::Recording(r) => r.ticks(),
            Recording::Finished(_, ticks) => *ticks,
        }
    }

    fn recording(&mut self) -> Result<&mut Recorder<Vec<u8>>, Error> {
        match &mut self.state {
            Recording::Recording(r) => Ok(r),
            Recording::Finished(..) => Err(Error::state("the recorder has finished")),
        }
    }

    /// Whether the next tick's state hash is stored.
    pub(crate) fn needs_hash(&mut self) -> Result<bool, Error> {
        Ok(self.recording()?.needs_hash())
    }

    /// Records the tick `stepped` describes, if it is the next one.
    pub(crate) fn record(&mut self, stepped: Stepped) -> Result<(), Error> {
        let recorder = self.recording()?;
        let recorded = recorder.ticks();
        let inputs = match stepped.last {
            Some(tick) if tick == recorded && stepped.tick == recorded + 1 => {
                &stepped.inputs[..stepped.players]
            }
            last => {
                let last = last.map_or(
                    "no step since its creation or last restore".to_string(),
                    |t| format!("its last step ran tick {t}"),
                );
                return Err(Error::state(format_args!(
                    "tick {recorded} is the next to record, but the simulation is at tick {} \
                     ({last}): record once after every step, from tick 0",
                    stepped.tick
                )));
            }
        };
        if recorded >= RECORD_TICKS_MAX {
            return Err(Error::limit(format_args!(
                "a recording holds at most {RECORD_TICKS_MAX} ticks"
            )));
        }
        recorder
            .record(inputs, || stepped.hash.unwrap_or_default())
            .map_err(|e| Error::state(format_args!("cannot record: {e}")))
    }

    /// Writes the trailer with the outcome the simulation reached (`tick`, `finish`, `hash`:
    /// its tick, finish ticks and state hash); the bytes are kept for [`bytes`](Self::bytes).
    pub(crate) fn finish(
        &mut self,
        tick: u32,
        finish: Vec<Option<u32>>,
        hash: u64,
    ) -> Result<(), Error> {
        let recorded = self.recording()?.ticks();
        if tick != recorded {
            return Err(Error::state(format_args!(
                "{recorded} ticks recorded but the simulation is at tick {tick}: \
                 record every tick before finishing"
            )));
        }
        let Recording::Recording(recorder) =
            std::mem::replace(&mut self.state, Recording::Finished(Vec::new(), recorded))
        else {
            return Err(Error::state("the recorder has finished"));
        };
        // Cannot fail: the writer is memory and the outcome is the simulation's own (one
        // entry per player, finish ticks before its tick). Should it, the recording is lost
        // and the recorder says so from then on.
        let bytes = recorder
            .finish(finish, hash)
            .map_err(|e| Error::state(format_args!("cannot finish the recording: {e}")))?;
        self.state = Recording::Finished(bytes, recorded);
        Ok(())
    }

    /// The finished replay.
    pub fn bytes(&self) -> Result<&[u8], Error> {
        match &self.state {
            Recording::Finished(bytes, _) => Ok(bytes),
            Recording::Recording(_) => Err(Error::state(
                "the recording is not finished: call pogo_recorder_finish first",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recording_is_as_long_as_a_default_verifier_accepts() {
        assert_eq!(RECORD_TICKS_MAX, pogo_replay::Limits::default().ticks_max);
    }
}
