//! What one tick's stages share besides the pogo: the world, the tuning, the capsule it
//! implies and the tick, made once per tick by `step` and handed to every stage. Kept apart
//! from the pipeline (`step.rs`) so that no stage imports the orchestrator (as Box2D keeps
//! `b2StepContext` in `solver.h`).

use crate::fx::Fx;
use crate::sweep::Capsule;
use crate::tick::Ticks;
use crate::tuning::Tuning;
use crate::world::World;

/// The pogo's collision shape from the tuning.
pub fn capsule(tuning: &Tuning) -> Capsule {
    Capsule {
        radius: tuning.spec().body_radius,
        height: tuning.spec().body_height,
    }
}

/// What one tick needs besides the pogo.
pub(crate) struct Ctx<'a> {
    pub(crate) world: &'a World,
    pub(crate) tuning: &'a Tuning,
    pub(crate) capsule: Capsule,
    /// Half the capsule's height (m): its centre above the tip.
    pub(crate) half_height: Fx,
    /// Whether the capsule's box holds the capsule (it is at least twice as tall as its
    /// radius, as every valid tuning's is): see `collision::may_overlap`.
    pub(crate) boxed: bool,
    pub(crate) tick: Ticks,
    /// Whether the tick may look up the first sweep's surroundings once
    /// (`collision::nearby`); tests turn it off to compare.
    #[cfg(test)]
    pub(crate) lookup: bool,
    /// The work of the pogo being stepped, in the cost model's units (`crate::cost`); only
    /// in builds with the `meter` feature (tests and fuzzing).
    #[cfg(feature = "meter")]
    pub(crate) meter: core::cell::Cell<u64>,
}

impl Ctx<'_> {
    pub(crate) fn new<'a>(world: &'a World, tuning: &'a Tuning, tick: Ticks) -> Ctx<'a> {
        let capsule = capsule(tuning);
        Ctx {
            world,
            tuning,
            capsule,
            half_height: capsule.height.half(),
            boxed: capsule.radius + capsule.radius <= capsule.height,
            tick,
            #[cfg(test)]
            lookup: true,
            #[cfg(feature = "meter")]
            meter: core::cell::Cell::new(0),
        }
    }

    /// Counts `units` of work on the meter (`crate::cost`); nothing without the `meter`
    /// feature, where the argument is a constant the compiler drops.
    #[inline(always)]
    pub(crate) fn charge(&self, units: u64) {
        #[cfg(feature = "meter")]
        self.meter.set(self.meter.get().saturating_add(units));
        #[cfg(not(feature = "meter"))]
        let _ = units;
    }
}
