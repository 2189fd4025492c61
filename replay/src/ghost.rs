//! Ghosts: a verified replay as something to race against — every tick's positions (to draw a
//! ghost beside the player), split times at checkpoints, and seeking to any tick.
//!
//! A ghost is built by verifying the replay (a ghost is only as good as its proof), recording
//! positions and splits as the re-simulation goes and a snapshot every `SNAPSHOT_INTERVAL`
//! ticks, so seeking re-simulates at most that many ticks.

use pogo_core::{Events, Input, Simulation, Snapshot, Ticks, Vec3};

use crate::reader::{Replay, ReplayReader};
pub use crate::splits::Split;
use crate::splits::SplitRecorder;
use crate::verify::{Verified, Verifier, VerifyError};

/// Ticks between the snapshots kept for seeking (5 s at 60 Hz).
pub const SNAPSHOT_INTERVAL: u32 = 300;

/// A verified replay, ready to be drawn, raced and scrubbed.
#[derive(Debug)]
pub struct Ghost {
    verified: Verified,
    replay: Replay,
    /// `positions[tick]` holds every player's tip after that tick.
    positions: Vec<Vec<Vec3>>,
    /// Whether each tick teleported a player (renderers must not interpolate into it).
    teleports: Vec<bool>,
    splits: Vec<Vec<Split>>,
    /// The state before ticks 0, SNAPSHOT_INTERVAL, 2·SNAPSHOT_INTERVAL, …
    snapshots: Vec<Snapshot>,
    sim: Simulation,
}

impl Ghost {
    /// Verifies `bytes` and keeps what a ghost needs.
    pub fn load(bytes: &[u8], verifier: &Verifier) -> Result<Ghost, VerifyError> {
        let replay = Replay::decode(bytes, verifier.limits())?;
        let players = usize::from(replay.header.players);
        let world = verifier.check_header(&replay.header)?;
        let start = Simulation::new(world, verifier.tuning().clone(), players).map_err(|_| {
            VerifyError::UnknownLevel {
                name: replay.header.level_name.clone(),
            }
        })?;
        let mut positions = Vec::with_capacity(replay.ticks() as usize);
        let mut teleports = Vec::with_capacity(replay.ticks() as usize);
        let mut splits = SplitRecorder::new(players);
        let mut snapshots = vec![start.snapshot()];
        let verified = verifier.verify_with(bytes, |sim| {
            let state = sim.state();
            positions.push(state.pogos.iter().map(|p| p.position).collect());
            teleports.push(
                state
                    .pogos
                    .iter()
                    .any(|p| p.events.contains(Events::TELEPORT)),
            );
            splits.observe(sim);
            if state.tick.0 % SNAPSHOT_INTERVAL == 0 {
                snapshots.push(sim.snapshot());
            }
        })?;
        Ok(Ghost {
            verified,
            replay,
            positions,
            teleports,
            splits: splits.into_players(),
            snapshots,
            sim: start,
        })
    }

    /// The verifier's verdict on the run the ghost replays (ticks, finish, final hash).
    pub fn verified(&self) -> &Verified {
        &self.verified
    }

    /// The decoded replay: header, per-tick inputs, trailer.
    pub fn replay(&self) -> &Replay {
        &self.replay
    }

    /// Ticks in the run.
    pub fn ticks(&self) -> u32 {
        self.positions.len() as u32
    }

    /// Every player's tip position after each tick, with whether the tick teleported anyone.
    pub fn frames(&self) -> impl Iterator<Item = (Ticks, &[Vec3], bool)> + '_ {
        self.positions
            .iter()
            .zip(&self.teleports)
            .enumerate()
            .map(|(t, (p, &jump))| (Ticks(t as u32), &p[..], jump))
    }

    /// A player's tip position after `tick`, if the run lasted that long.
    pub fn position(&self, tick: Ticks, player: usize) -> Option<Vec3> {
        self.positions.get(tick.0 as usize)?.get(player).copied()
    }

    /// A player's splits, in the order reached; the finish, if reached, is last.
    pub fn splits(&self, player: usize) -> &[Split] {
        self.splits.get(player).map_or(&[], |s| &s[..])
    }

    /// The simulation as it stands after `ticks` ticks (0 = before the first): restored from
    /// the nearest earlier snapshot and re-simulated from the recorded inputs.
    pub fn seek(&self, ticks: u32) -> Simulation {
        let ticks = ticks.min(self.ticks());
        let snapshot = &self.snapshots[(ticks / SNAPSHOT_INTERVAL) as usize];
        let mut sim = self.sim.clone();
        sim.restore(snapshot);
        let inputs = self.inputs_from(snapshot.tick().0, ticks);
        for tick_inputs in inputs {
            sim.step(&tick_inputs);
        }
        sim
    }

    /// The recorded inputs of ticks `from..to`.
    fn inputs_from(&self, from: u32, to: u32) -> Vec<Vec<Input>> {
        let players = usize::from(self.replay.header.players);
        let mut out = Vec::new();
        for chunk in &self.replay.chunks {
            let end = chunk.first_tick + chunk.ticks;
            if end <= from || chunk.first_tick >= to {
                continue;
            }
            let per_player: Vec<Vec<Input>> =
                (0..players).map(|p| chunk.inputs(p).collect()).collect();
            for t in chunk.first_tick.max(from)..end.min(to) {
                let i = (t - chunk.first_tick) as usize;
                out.push(per_player.iter().map(|inputs| inputs[i]).collect());
            }
        }
        out
    }
}

/// Reads just the header of a replay, for listing files without verifying them.
pub fn read_header(
    bytes: &[u8],
    verifier: &Verifier,
) -> Result<crate::format::Header, crate::format::ReplayError> {
    ReplayReader::open(bytes, verifier.limits()).map(|r| r.header().clone())
}
