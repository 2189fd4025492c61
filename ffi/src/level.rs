//! Levels: a validated level description, and the worlds built from it (one per tick rate,
//! since platforms' periods are counted in ticks), shared by every simulation in that level.

use std::sync::{Arc, Mutex};

use pogo_core::Tuning;
use pogo_core::world::{World, WorldDesc};
use pogo_replay::{BUILTIN_LEVELS, builtin_level, parse_level_json};

use crate::error::Error;
use crate::types::PogoStatus;

/// Most worlds kept per level (distinct tick rates in use at once); the oldest is dropped
/// beyond (simulations keep theirs).
const WORLDS_PER_LEVEL_MAX: usize = 4;

/// A level handle's object.
#[derive(Debug)]
pub struct Level {
    desc: WorldDesc,
    worlds: Mutex<Vec<Arc<World>>>,
}

impl Level {
    /// The built-in level called `name`.
    pub fn builtin(name: &str) -> Result<Level, Error> {
        let desc = builtin_level(name).ok_or_else(|| {
            let names: Vec<&str> = BUILTIN_LEVELS.iter().map(|(n, _)| *n).collect();
            Error::new(
                PogoStatus::UnknownLevel,
                format_args!(
                    "no built-in level is called {name:?}; the built-in levels are {}",
                    names.join(", ")
                ),
            )
        })?;
        Ok(Level::new(desc))
    }

    /// A level from level JSON (`replay/LEVELS.md`), parsed and validated.
    pub fn from_json(text: &str) -> Result<Level, Error> {
        let desc = parse_level_json(text)
            .map_err(|e| Error::new(PogoStatus::Parse, format_args!("level JSON: {e}")))?;
        Ok(Level::new(desc))
    }

    fn new(desc: WorldDesc) -> Level {
        Level {
            desc,
            worlds: Mutex::new(Vec::new()),
        }
    }

    pub fn desc(&self) -> &WorldDesc {
        &self.desc
    }

    /// The world for `tuning`'s tick rate, built on first use.
    pub fn world(&self, tuning: &Tuning) -> Result<Arc<World>, Error> {
        let rate = tuning.spec().tick_rate;
        let mut worlds = self.worlds.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(world) = worlds.iter().find(|w| w.tick_rate() == rate) {
            return Ok(world.clone());
        }
        let world = World::new(self.desc.clone(), tuning)
            .map_err(|e| Error::invalid(format_args!("level {:?}: {e}", self.desc.name)))?;
        let world = Arc::new(world);
        if worlds.len() == WORLDS_PER_LEVEL_MAX {
            worlds.remove(0);
        }
        worlds.push(world.clone());
        Ok(world)
    }
}
