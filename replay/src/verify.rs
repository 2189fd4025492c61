//! The verifier: re-simulates a replay from its inputs and reports, as data, the first thing
//! that is wrong with it.
//!
//! Built for a leaderboard server verifying files uploaded by strangers. Every file is
//! hostile: it is read as a stream, one bounded chunk at a time (memory does not grow with
//! its length), the tick count is capped by [`Limits`] whatever the header claims, and no
//! byte sequence can make it panic. The checks, in order:
//!
//! 1. the bytes: magic, format version, chunk framing, checksums, canonical payloads
//!    ([`ReplayError`]);
//! 2. what it claims to be: rules version, tick rate, fixed-point format, level (by name, then
//!    content hash) and tuning (content hash) — it must match what the server runs;
//! 3. what it claims happened: every stored state hash against the re-simulation (the first
//!    mismatch is a desync at that tick), then the trailer's tick count, final hash and finish
//!    ticks.

use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use pogo_core::world::{World, WorldDesc};
use pogo_core::{Fx, Input, RULES_VERSION, Simulation, Ticks, Tuning};

use crate::format::{Header, ReplayError, is_hashed};
use crate::reader::{Chunk, Limits, ReplayReader};

/// What a replay is checked against: the tuning the server runs, the levels it knows, limits.
/// Shareable between threads; worlds are built once per level and reused.
///
/// A clone is cheap and shares the levels and the worlds built so far. A server whose levels
/// are too many to know up front (player-made tracks, loaded from a database on demand)
/// hands a verifier the world of one more level for one verification:
/// [`Verifier::with_world`].
#[derive(Clone, Debug)]
pub struct Verifier {
    /// Shared by every simulation the verifier runs (and by a live server's racers).
    tuning: Arc<Tuning>,
    limits: Limits,
    /// Levels given explicitly (level files), by name.
    levels: Arc<BTreeMap<String, WorldDesc>>,
    /// Whether built-in levels are accepted too (looked up, and generated, only when a
    /// replay names one: `sprawl` alone is megabytes).
    builtins: bool,
    worlds: Arc<Mutex<BTreeMap<String, Arc<World>>>>,
    /// One more level, by its world's name, ahead of the others ([`Verifier::with_world`]).
    extra: Option<Arc<World>>,
}

impl Verifier {
    /// A verifier for `tuning`, accepting only the given levels (by name).
    pub fn new(
        tuning: Tuning,
        levels: impl IntoIterator<Item = WorldDesc>,
        limits: Limits,
    ) -> Verifier {
        let levels = levels.into_iter().map(|d| (d.name.clone(), d)).collect();
        Verifier {
            tuning: Arc::new(tuning),
            limits,
            levels: Arc::new(levels),
            builtins: false,
            worlds: Arc::new(Mutex::new(BTreeMap::new())),
            extra: None,
        }
    }

    /// This verifier, also accepting `world`'s level (by `world.desc().name`, ahead of every
    /// other level of that name), and sharing everything else with `self`. The world must
    /// have been built with this verifier's [`tuning`](Verifier::tuning) (a world of another
    /// tuning simulates other rules: its replays would desync). For a level the verifier
    /// cannot know up front: a player-made track a server loads when a replay names it.
    pub fn with_world(&self, world: Arc<World>) -> Verifier {
        Verifier {
            extra: Some(world),
            ..self.clone()
        }
    }

    /// A verifier for `tuning` accepting every built-in level.
    pub fn with_builtin_levels(tuning: Tuning, limits: Limits) -> Verifier {
        Verifier::new(tuning, [], limits).and_builtin_levels()
    }

    /// Also accept the built-in levels (a given level of the same name takes precedence).
    pub fn and_builtin_levels(self) -> Verifier {
        Verifier {
            builtins: true,
            ..self
        }
    }

    /// The one tuning replays must have been recorded with, as the `Arc` every simulation the
    /// verifier runs shares: one given to [`Simulation::new`] (a clone of the `Arc`) shares it
    /// too, as a server re-simulating hundreds of live runs does, keeping its lines in the CPU's
    /// caches where a copy a run would come from memory with each message.
    pub fn tuning(&self) -> &Arc<Tuning> {
        &self.tuning
    }

    /// The bounds on what one verification reads and simulates.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The prepared world for a level name, built on first use.
    pub fn world(&self, name: &str) -> Option<Arc<World>> {
        if let Some(world) = self.extra.as_ref().filter(|w| w.desc().name == name) {
            return Some(world.clone());
        }
        let mut worlds = self
            .worlds
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(world) = worlds.get(name) {
            return Some(world.clone());
        }
        let desc = match self.levels.get(name) {
            Some(desc) => desc.clone(),
            None if self.builtins => crate::levels::builtin_level(name)?,
            None => return None,
        };
        let world = Arc::new(World::new(desc, &self.tuning).ok()?);
        worlds.insert(name.to_string(), world.clone());
        Some(world)
    }

    /// Checks the header against the verifier's rules, tuning and levels; returns the world.
    pub fn check_header(&self, header: &Header) -> Result<Arc<World>, VerifyError> {
        if header.rules_version != RULES_VERSION {
            return Err(VerifyError::RulesVersion {
                expected: RULES_VERSION,
                found: header.rules_version,
            });
        }
        let tick_rate = self.tuning.spec().tick_rate;
        if header.tick_rate != tick_rate {
            return Err(VerifyError::TickRate {
                expected: tick_rate,
                found: header.tick_rate,
            });
        }
        if u32::from(header.frac_bits) != Fx::FRAC_BITS {
            return Err(VerifyError::FracBits {
                expected: Fx::FRAC_BITS as u8,
                found: header.frac_bits,
            });
        }
        if header.tuning_hash != self.tuning.content_hash() {
            return Err(VerifyError::TuningMismatch {
                expected: self.tuning.content_hash(),
                found: header.tuning_hash,
            });
        }
        let world = self
            .world(&header.level_name)
            .ok_or_else(|| VerifyError::UnknownLevel {
                name: header.level_name.clone(),
            })?;
        if header.level_hash != world.content_hash() {
            return Err(VerifyError::LevelMismatch {
                name: header.level_name.clone(),
                expected: world.content_hash(),
                found: header.level_hash,
            });
        }
        Ok(world)
    }

    /// Verifies one replay read from `input`, calling `on_tick` after every simulated tick
    /// (ghost tools use it to take positions and snapshots; pass `|_| {}` otherwise).
    pub fn verify_with<R: Read>(
        &self,
        input: R,
        mut on_tick: impl FnMut(&Simulation),
    ) -> Result<Verified, VerifyError> {
        let mut reader = ReplayReader::open(input, self.limits)?;
        let header = reader.header().clone();
        let world = self.check_header(&header)?;
        let players = usize::from(header.players);
        let mut sim = Simulation::new(world, self.tuning.clone(), players).map_err(|_| {
            VerifyError::Replay(ReplayError::Malformed {
                offset: 0,
                what: "player count",
            })
        })?;
        let mut inputs = vec![Input::default(); players];
        let started = self.limits.duration_max.map(|d| (Instant::now(), d));
        let mut player_ticks = 0u64;
        loop {
            match reader.next_chunk()? {
                Some(Chunk::Inputs(chunk)) => {
                    // The work this chunk claims, checked before any of it is done.
                    player_ticks += u64::from(chunk.ticks) * players as u64;
                    if player_ticks > self.limits.player_ticks_max {
                        return Err(VerifyError::OverBudget {
                            player_ticks_max: self.limits.player_ticks_max,
                            players: header.players,
                        });
                    }
                    if let Some((started, max)) = started {
                        if started.elapsed() > max {
                            return Err(VerifyError::OutOfTime {
                                max_ms: max.as_millis().try_into().unwrap_or(u64::MAX),
                            });
                        }
                    }
                    let mut runs: Vec<_> = (0..players).map(|p| chunk.inputs(p)).collect();
                    let mut hashes = chunk.hashes.iter();
                    for tick in chunk.first_tick..chunk.first_tick + chunk.ticks {
                        for (input, player_runs) in inputs.iter_mut().zip(runs.iter_mut()) {
                            *input = player_runs.next().unwrap_or_default();
                        }
                        sim.step(&inputs);
                        on_tick(&sim);
                        if is_hashed(tick, header.hash_interval) {
                            let expected = hashes.next().copied().unwrap_or_default();
                            let found = sim.state_hash();
                            if expected != found {
                                return Err(VerifyError::Desync {
                                    tick: Ticks(tick),
                                    expected,
                                    found,
                                });
                            }
                        }
                    }
                }
                Some(Chunk::Trailer(trailer)) => {
                    let found = sim.state_hash();
                    if trailer.final_hash != found {
                        let tick = Ticks(trailer.ticks.saturating_sub(1));
                        return Err(VerifyError::Desync {
                            tick,
                            expected: trailer.final_hash,
                            found,
                        });
                    }
                    let actual = sim.state().finish_ticks();
                    for (player, (&claimed, &actual)) in
                        trailer.finish.iter().zip(&actual).enumerate()
                    {
                        if claimed != actual {
                            return Err(VerifyError::OutcomeMismatch {
                                player,
                                claimed,
                                actual,
                            });
                        }
                    }
                    return Ok(Verified {
                        header,
                        ticks: trailer.ticks,
                        finish: actual,
                        final_hash: found,
                    });
                }
                None => return Err(VerifyError::Replay(ReplayError::Truncated { offset: 0 })),
            }
        }
    }

    /// Verifies one replay read from `input`.
    pub fn verify<R: Read>(&self, input: R) -> Result<Verified, VerifyError> {
        self.verify_with(input, |_| {})
    }
}

/// A replay that verified: what it proves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    /// The replay's header, checked against the verifier's rules, tuning and level.
    pub header: Header,
    /// Ticks re-simulated: the run's length (seconds = ticks / `header.tick_rate`).
    pub ticks: u32,
    /// Per player, the finish tick (0-based), if any: the re-simulation's, equal to the claim.
    pub finish: Vec<Option<u32>>,
    /// The re-simulation's state hash after the last tick (equal to the recorded one).
    pub final_hash: u64,
}

/// The first problem found with a replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VerifyError {
    /// The bytes are not a well-formed replay.
    Replay(ReplayError),
    /// The replay was recorded under other simulation rules.
    RulesVersion {
        /// [`pogo_core::RULES_VERSION`] of this build.
        expected: u32,
        /// The header's rules version.
        found: u32,
    },
    /// The replay was recorded at another tick rate than the verifier's tuning.
    TickRate {
        /// The tuning's tick rate (Hz).
        expected: u32,
        /// The header's tick rate (Hz).
        found: u32,
    },
    /// The replay was recorded with another fixed-point format.
    FracBits {
        /// [`pogo_core::Fx::FRAC_BITS`] (32).
        expected: u8,
        /// The header's fractional bits.
        found: u8,
    },
    /// The replay was recorded with another tuning.
    TuningMismatch {
        /// The verifier's [`Tuning::content_hash`].
        expected: u64,
        /// The header's tuning hash.
        found: u64,
    },
    /// The level is not one this verifier knows.
    UnknownLevel {
        /// The header's level name.
        name: String,
    },
    /// A level of that name, but not the same level.
    LevelMismatch {
        /// The header's level name.
        name: String,
        /// The content hash of the verifier's level of that name.
        expected: u64,
        /// The header's level hash.
        found: u64,
    },
    /// The re-simulation's state after `tick` differs from the recorded one.
    Desync {
        /// The tick (0-based) after which the states differ.
        tick: Ticks,
        /// The state hash the replay recorded.
        expected: u64,
        /// The re-simulation's state hash.
        found: u64,
    },
    /// A player's claimed finish differs from the re-simulation's.
    OutcomeMismatch {
        /// The player's index (0-based).
        player: usize,
        /// The trailer's finish tick for the player.
        claimed: Option<u32>,
        /// The re-simulation's finish tick.
        actual: Option<u32>,
    },
    /// Simulating the replay would take more player-ticks than [`Limits::player_ticks_max`]
    /// (refused before the chunk that would exceed it is simulated).
    OverBudget {
        /// [`Limits::player_ticks_max`].
        player_ticks_max: u64,
        /// The header's player count.
        players: u8,
    },
    /// The verification took longer than [`Limits::duration_max`].
    OutOfTime {
        /// [`Limits::duration_max`] in milliseconds.
        max_ms: u64,
    },
}

impl VerifyError {
    /// A short stable name for the kind of problem (for JSON output and metrics).
    pub fn kind(&self) -> &'static str {
        match self {
            VerifyError::Replay(ReplayError::BadMagic { .. }) => "bad_magic",
            VerifyError::Replay(ReplayError::UnsupportedFormat { .. }) => "unsupported_format",
            VerifyError::Replay(ReplayError::Empty | ReplayError::Truncated { .. }) => "truncated",
            VerifyError::Replay(
                ReplayError::ChunkChecksum { .. } | ReplayError::FileChecksum { .. },
            ) => "checksum",
            VerifyError::Replay(ReplayError::TooLong { .. }) => "too_long",
            VerifyError::Replay(ReplayError::SparseHashes { .. }) => "sparse_hashes",
            VerifyError::Replay(ReplayError::Io { .. }) => "io",
            VerifyError::Replay(_) => "malformed",
            VerifyError::RulesVersion { .. } => "rules_version",
            VerifyError::TickRate { .. } | VerifyError::FracBits { .. } => "format_mismatch",
            VerifyError::TuningMismatch { .. } => "tuning_mismatch",
            VerifyError::UnknownLevel { .. } => "unknown_level",
            VerifyError::LevelMismatch { .. } => "level_mismatch",
            VerifyError::Desync { .. } => "desync",
            VerifyError::OutcomeMismatch { .. } => "outcome_mismatch",
            VerifyError::OverBudget { .. } => "over_budget",
            VerifyError::OutOfTime { .. } => "out_of_time",
        }
    }
}

impl From<ReplayError> for VerifyError {
    fn from(e: ReplayError) -> VerifyError {
        VerifyError::Replay(e)
    }
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifyError::Replay(e) => e.fmt(f),
            VerifyError::RulesVersion { expected, found } => {
                write!(
                    f,
                    "rules version {found} is not supported (this build simulates version {expected})"
                )
            }
            VerifyError::TickRate { expected, found } => {
                write!(f, "recorded at {found} Hz, the verifier runs {expected} Hz")
            }
            VerifyError::FracBits { expected, found } => {
                write!(
                    f,
                    "recorded with {found} fractional bits, the verifier uses {expected}"
                )
            }
            VerifyError::TuningMismatch { expected, found } => {
                write!(
                    f,
                    "tuning mismatch: the replay's tuning hash is {found:016x}, the verifier's {expected:016x}"
                )
            }
            VerifyError::UnknownLevel { name } => write!(f, "unknown level {name:?}"),
            VerifyError::LevelMismatch {
                name,
                expected,
                found,
            } => {
                write!(
                    f,
                    "level mismatch: the replay's {name:?} has hash {found:016x}, the verifier's {expected:016x}"
                )
            }
            VerifyError::Desync {
                tick,
                expected,
                found,
            } => {
                write!(
                    f,
                    "desync at tick {tick}: recorded state hash {expected:016x}, re-simulated {found:016x}"
                )
            }
            VerifyError::OutcomeMismatch {
                player,
                claimed,
                actual,
            } => {
                let show = |t: &Option<u32>| t.map_or("none".to_string(), |t| t.to_string());
                write!(
                    f,
                    "claimed outcome differs: player {player} claims finish={}, re-simulated finish={}",
                    show(claimed),
                    show(actual)
                )
            }
            VerifyError::OverBudget {
                player_ticks_max,
                players,
            } => {
                write!(
                    f,
                    "over the verification budget of {player_ticks_max} player-ticks \
                     ({players} players: at most {} ticks)",
                    player_ticks_max / u64::from((*players).max(1))
                )
            }
            VerifyError::OutOfTime { max_ms } => {
                write!(f, "verification took longer than the limit of {max_ms} ms")
            }
        }
    }
}

impl std::error::Error for VerifyError {}
