//! `Ticks`: simulation time, counted in whole ticks.

use core::fmt;

/// A count of ticks (a duration), or a tick number since the start of a run (an instant).
/// Tick `k` starts at `k / tick_rate` seconds.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Debug)]
#[repr(transparent)]
pub struct Ticks(pub u32);

impl Ticks {
    /// No ticks; the first tick of a run.
    pub const ZERO: Ticks = Ticks(0);
    /// The largest count (828 days at 60 Hz): "never" where a duration since an event that
    /// has not happened is asked for.
    pub const MAX: Ticks = Ticks(u32::MAX);

    /// The next tick, saturating at `Ticks::MAX` (a run never gets there: replays are capped
    /// far below).
    pub const fn next(self) -> Ticks {
        Ticks(self.0.saturating_add(1))
    }

    /// `self − earlier`, or zero if `earlier` is later.
    pub const fn since(self, earlier: Ticks) -> Ticks {
        Ticks(self.0.saturating_sub(earlier.0))
    }
}

impl fmt::Display for Ticks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}
