//! Handles: every object a caller holds lives in one registry, and the caller gets a 32-bit
//! id that names a slot, the object's kind and the slot's generation (Box2D v3's scheme):
//!
//! ```text
//! bit 31 … 16   15 … 12   11 … 0
//!   generation    kind      slot index
//! ```
//!
//! - A freed object's slot moves to the next generation, so the old id is detected as *stale*,
//!   never dereferenced. A slot whose generation would wrap is retired instead of reused: an
//!   id never names two objects, ever (at the cost of one of [`HANDLES_MAX`] slots per 65 535
//!   reuses of a slot; freed slots are reused oldest first, so that takes long).
//! - The kind is in the id, so a tuning passed where a simulation is expected is reported as
//!   such, and ids of different kinds never collide.
//! - Generations start at 1: a zeroed handle (id 0) is never valid.
//!
//! One lock guards the registry and everything in it; calls are short (a tick is a fraction of
//! a microsecond). The slow ones — parsing level JSON, building a world, verifying or
//! decoding a replay — run outside it on shared (`Arc`) data.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use pogo_core::Tuning;
use pogo_core::bot::Bot;
use pogo_core::driver::Driver;
use pogo_replay::Verifier;

use crate::error::Error;
use crate::level::Level;
use crate::recorder::RecorderObject;
use crate::replay::ReplayObject;
use crate::sim::SimObject;
use crate::types::{
    POGO_HANDLES_MAX, PogoBot, PogoDriver, PogoLevel, PogoRecorder, PogoReplay, PogoSim,
    PogoStatus, PogoTuning, PogoVerifier,
};

/// Most objects alive at once, of all kinds together (the slot index has 12 bits).
const HANDLES_MAX: usize = POGO_HANDLES_MAX as usize;
const _: () = assert!(HANDLES_MAX == 1 << INDEX_BITS);

const INDEX_BITS: u32 = 12;
const KIND_BITS: u32 = 4;
const GENERATION_SHIFT: u32 = INDEX_BITS + KIND_BITS;
const GENERATION_MAX: u32 = u16::MAX as u32;
const _: () = assert!(GENERATION_SHIFT + 16 == 32);

/// What a handle refers to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Level = 1,
    Tuning = 2,
    Sim = 3,
    Driver = 4,
    Recorder = 5,
    Verifier = 6,
    Bot = 7,
    Replay = 8,
}

impl Kind {
    const ALL: [Kind; 8] = [
        Kind::Level,
        Kind::Tuning,
        Kind::Sim,
        Kind::Driver,
        Kind::Recorder,
        Kind::Verifier,
        Kind::Bot,
        Kind::Replay,
    ];

    fn from_code(code: u32) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| *k as u32 == code)
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Level => "level",
            Kind::Tuning => "tuning",
            Kind::Sim => "simulation",
            Kind::Driver => "driver",
            Kind::Recorder => "recorder",
            Kind::Verifier => "verifier",
            Kind::Bot => "bot",
            Kind::Replay => "replay",
        }
    }
}

/// A live object.
#[derive(Debug)]
pub enum Object {
    Level(Arc<Level>),
    Tuning(Box<Tuning>),
    Sim(Box<SimObject>),
    Driver(Box<Driver>),
    Recorder(Box<RecorderObject>),
    Verifier(Arc<Verifier>),
    Bot(Box<Bot>),
    Replay(Arc<ReplayObject>),
}

impl Object {
    fn kind(&self) -> Kind {
        match self {
            Object::Level(_) => Kind::Level,
            Object::Tuning(_) => Kind::Tuning,
            Object::Sim(_) => Kind::Sim,
            Object::Driver(_) => Kind::Driver,
            Object::Recorder(_) => Kind::Recorder,
            Object::Verifier(_) => Kind::Verifier,
            Object::Bot(_) => Kind::Bot,
            Object::Replay(_) => Kind::Replay,
        }
    }
}

struct Slot {
    /// The generation of the object in the slot, or of the next one if it is empty.
    generation: u32,
    object: Option<Object>,
    /// The message of the last failed call on this object.
    last_error: String,
}

/// Every live object.
pub struct Registry {
    slots: Vec<Slot>,
    /// Empty slots, oldest first.
    free: VecDeque<u32>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    slots: Vec::new(),
    free: VecDeque::new(),
});

/// Runs `f` with the registry locked. A lock poisoned by a panic (caught at the boundary) is
/// taken over: every operation leaves the registry itself consistent.
pub fn with<R>(f: impl FnOnce(&mut Registry) -> R) -> R {
    let mut guard: MutexGuard<'_, Registry> = REGISTRY
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    f(&mut guard)
}

fn id(index: u32, kind: Kind, generation: u32) -> u32 {
    (generation << GENERATION_SHIFT) | ((kind as u32) << INDEX_BITS) | index
}

/// Why an id does not name a live object of the wanted kind.
fn describe(id: u32, wanted: Kind, slots: &[Slot]) -> Error {
    let index = id & ((1 << INDEX_BITS) - 1);
    let kind = Kind::from_code((id >> INDEX_BITS) & ((1 << KIND_BITS) - 1));
    let generation = id >> GENERATION_SHIFT;
    let name = wanted.name();
    if id == 0 {
        return Error::new(
            PogoStatus::InvalidHandle,
            format_args!("null {name} handle (id 0): create the object first"),
        );
    }
    match kind {
        Some(kind) if kind != wanted => Error::new(
            PogoStatus::WrongHandleKind,
            format_args!(
                "handle {id:#010x} is a {} handle, not a {name} handle",
                kind.name()
            ),
        ),
        Some(_) => match slots.get(index as usize) {
            // Issued once: its slot has moved on to a later generation.
            Some(slot) if generation != 0 && generation < slot.generation => Error::new(
                PogoStatus::StaleHandle,
                format_args!("{name} handle {id:#010x} was freed"),
            ),
            _ => Error::new(
                PogoStatus::InvalidHandle,
                format_args!("{name} handle {id:#010x} was never issued by this library"),
            ),
        },
        None => Error::new(
            PogoStatus::InvalidHandle,
            format_args!("{id:#010x} is not a handle (wanted a {name} handle)"),
        ),
    }
}

/// Typed lookups: `registry.sim(handle)` and `registry.sim_mut(handle)`, and so on.
macro_rules! accessors {
    ($($get:ident, $get_mut:ident, $handle:ty, $variant:ident, $target:ty;)*) => {
        impl Registry {$(
            pub fn $get(&self, handle: $handle) -> Result<&$target, Error> {
                match self.get(handle.id, Kind::$variant)? {
                    Object::$variant(object) => Ok(object),
                    _ => Err(Error::new(PogoStatus::Internal, "slot kind changed")),
                }
            }

            #[allow(dead_code)]
            pub fn $get_mut(&mut self, handle: $handle) -> Result<&mut $target, Error> {
                match self.get_mut(handle.id, Kind::$variant)? {
                    Object::$variant(object) => Ok(object),
                    _ => Err(Error::new(PogoStatus::Internal, "slot kind changed")),
                }
            }
        )*}
    };
}

accessors! {
    level, level_mut, PogoLevel, Level, Arc<Level>;
    tuning, tuning_mut, PogoTuning, Tuning, Box<Tuning>;
    sim, sim_mut, PogoSim, Sim, Box<SimObject>;
    driver, driver_mut, PogoDriver, Driver, Box<Driver>;
    recorder, recorder_mut, PogoRecorder, Recorder, Box<RecorderObject>;
    verifier, verifier_mut, PogoVerifier, Verifier, Arc<Verifier>;
    bot, bot_mut, PogoBot, Bot, Box<Bot>;
    replay, replay_mut, PogoReplay, Replay, Arc<ReplayObject>;
}

impl Registry {
    /// Stores `object`; returns its id.
    pub fn insert(&mut self, object: Object) -> Result<u32, Error> {
        let kind = object.kind();
        let index = match self.free.pop_front() {
            Some(index) => index,
            None if self.slots.len() < HANDLES_MAX => {
                self.slots.push(Slot {
                    generation: 1,
                    object: None,
                    last_error: String::new(),
                });
                (self.slots.len() - 1) as u32
            }
            None => {
                return Err(Error::limit(format_args!(
                    "{HANDLES_MAX} objects are alive: free some before creating more"
                )));
            }
        };
        let slot = &mut self.slots[index as usize];
        slot.object = Some(object);
        slot.last_error.clear();
        Ok(id(index, kind, slot.generation))
    }

    /// The slot index of a live object of kind `kind` named by `id`.
    fn index(&self, id: u32, kind: Kind) -> Result<usize, Error> {
        let index = (id & ((1 << INDEX_BITS) - 1)) as usize;
        let live = self.slots.get(index).is_some_and(|slot| {
            slot.object.as_ref().is_some_and(|o| o.kind() == kind)
                && self::id(index as u32, kind, slot.generation) == id
        });
        if live {
            Ok(index)
        } else {
            Err(describe(id, kind, &self.slots))
        }
    }

    pub fn get(&self, id: u32, kind: Kind) -> Result<&Object, Error> {
        let index = self.index(id, kind)?;
        self.slots[index]
            .object
            .as_ref()
            .ok_or_else(|| describe(id, kind, &self.slots))
    }

    pub fn get_mut(&mut self, id: u32, kind: Kind) -> Result<&mut Object, Error> {
        let index = self.index(id, kind)?;
        match self.slots[index].object.as_mut() {
            Some(object) => Ok(object),
            None => Err(Error::new(PogoStatus::Internal, "empty slot after lookup")),
        }
    }

    /// Frees the object named by `id`.
    pub fn remove(&mut self, id: u32, kind: Kind) -> Result<Object, Error> {
        let index = self.index(id, kind)?;
        let slot = &mut self.slots[index];
        let object = slot.object.take();
        slot.last_error.clear();
        if slot.generation < GENERATION_MAX {
            slot.generation += 1;
            self.free.push_back(index as u32);
        } // else: retired, never reused.
        object.ok_or_else(|| Error::new(PogoStatus::Internal, "empty slot after lookup"))
    }

    /// Live objects.
    pub fn live(&self) -> usize {
        self.slots.iter().filter(|s| s.object.is_some()).count()
    }

    /// Remembers `message` as the last error of the object named by `id`, if it is live (of
    /// whatever kind).
    pub fn set_error(&mut self, id: u32, message: &str) {
        let index = (id & ((1 << INDEX_BITS) - 1)) as usize;
        if let Some(slot) = self.slots.get_mut(index) {
            let live = slot
                .object
                .as_ref()
                .is_some_and(|o| self::id(index as u32, o.kind(), slot.generation) == id);
            if live {
                slot.last_error.clear();
                slot.last_error.push_str(message);
            }
        }
    }

    /// The last error of the live object named by `id`, or why `id` names none.
    pub fn error_of(&self, id: u32) -> String {
        let kind = Kind::from_code((id >> INDEX_BITS) & ((1 << KIND_BITS) - 1));
        match kind {
            Some(kind) => match self.index(id, kind) {
                Ok(index) => self.slots[index].last_error.clone(),
                Err(e) => e.message,
            },
            None if id == 0 => "null handle (id 0)".to_string(),
            None => format!("{id:#010x} is not a handle"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry() -> Registry {
        Registry {
            slots: Vec::new(),
            free: VecDeque::new(),
        }
    }

    fn bot() -> Object {
        Object::Bot(Box::new(Bot::new()))
    }

    /// An id never names two objects: a slot reused until its generation would wrap is
    /// retired, and every id it gave out stays stale.
    #[test]
    fn ids_never_repeat_and_freed_ones_stay_stale() {
        let mut r = registry();
        let mut seen = std::collections::BTreeSet::new();
        let mut last = 0;
        for _ in 0..GENERATION_MAX + 10 {
            let id = r.insert(bot()).unwrap();
            assert!(seen.insert(id), "id {id:#x} issued twice");
            r.remove(id, Kind::Bot).unwrap();
            last = id;
        }
        // One slot went through every generation and was retired; the rest came from a
        // second slot.
        assert_eq!(r.slots.len(), 2);
        for id in [seen.first().copied().unwrap(), last] {
            let e = r.get(id, Kind::Bot).unwrap_err();
            assert_eq!(e.status, PogoStatus::StaleHandle, "{}", e.message);
        }
    }

    #[test]
    fn lookups_say_what_is_wrong() {
        let mut r = registry();
        let id = r.insert(bot()).unwrap();
        assert!(r.get(id, Kind::Bot).is_ok());
        let wrong = r.get(id, Kind::Sim).unwrap_err();
        assert_eq!(wrong.status, PogoStatus::WrongHandleKind);
        assert!(wrong.message.contains("bot handle"), "{}", wrong.message);
        assert_eq!(
            r.get(0, Kind::Bot).unwrap_err().status,
            PogoStatus::InvalidHandle
        );
        // The next generation of the slot has not been issued yet.
        let future = id + (1 << GENERATION_SHIFT);
        assert_eq!(
            r.get(future, Kind::Bot).unwrap_err().status,
            PogoStatus::InvalidHandle
        );
        // No kind 0 or 8…15.
        assert_eq!(
            r.get(id & !(0xf << INDEX_BITS), Kind::Bot)
                .unwrap_err()
                .status,
            PogoStatus::InvalidHandle
        );
        r.remove(id, Kind::Bot).unwrap();
        assert_eq!(
            r.remove(id, Kind::Bot).unwrap_err().status,
            PogoStatus::StaleHandle
        );
        assert_eq!(r.live(), 0);
    }

    #[test]
    fn the_registry_is_bounded() {
        let mut r = registry();
        for _ in 0..HANDLES_MAX {
            r.insert(bot()).unwrap();
        }
        assert_eq!(r.insert(bot()).unwrap_err().status, PogoStatus::Limit);
    }
}
