//! The frame driver: turns render frames (wall-clock time) into fixed simulation ticks.
//!
//! A game calls [`Driver::advance_to`] once per render frame with the current time in integer
//! nanoseconds; the driver runs every tick that has become due, in order, handing each one the
//! input of every player, and reports how far the clock is into the next tick (the render
//! interpolation factor `alpha`). It does not know the simulation: the step function is a
//! closure, so the same driver serves the game, the CLI and the tests.
//!
//! ## Time, exactly
//!
//! Time is a `u64` count of nanoseconds since the run started (about 584 years of range), never
//! an accumulated fractional number. Tick `k` (0-based) covers `[k / rate, (k + 1) / rate)`
//! seconds and *runs* once the clock reaches its end, so after a frame at `T` seconds exactly
//! `floor(T · rate)` ticks have run. Tick boundaries are not whole nanoseconds (at 60 Hz tick 1
//! starts at 16 666 666.67 ns), so times are compared as exact rationals in `u128`, never with
//! a rounded tick length:
//!
//! - tick `k` has ended iff `now_ns · rate ≥ (k + 1) · 10⁹`;
//! - an event at `event_ns` is in effect at tick `k`'s start iff `event_ns · rate ≤ k · 10⁹`.
//!
//! ## Input: as of each tick's own start
//!
//! Input events ([`Driver::push_event`]) carry a timestamp and a player index. Each tick uses,
//! for each player, the input of the latest event at or before the tick's *start* time (an event
//! exactly on a tick's start applies to that tick; several events within one tick: only the last
//! counts; a player without any event yet has the neutral [`Input::default`]). Events wait in a
//! queue until the tick they belong to runs, so the per-tick input stream — and therefore the
//! replay — does not depend on when frames happen: 30, 60, 144, 59.94 fps or jittered frames
//! give the same stream. The one contract on the caller: **push every event with a time up to
//! `now` before calling `advance_to(now)`** (the usual loop: poll the OS events, push them, then
//! advance). Events may be pushed early (a replay player may queue a whole script up front).
//!
//! Decisions, all deterministic:
//!
//! - **Out-of-order events** (older than the last event pushed, of any player) are filed at the
//!   last event's time: nothing is lost and the push order is kept. `push_event` returns the time
//!   the event was filed at, so a caller can see the clamp.
//! - **Late events** (their tick already ran, because the caller broke the contract above) take
//!   effect from the next tick to run; history is never rewritten. They are filed at that
//!   tick's start ([`Driver::tick_start_ns`]), so the filed times `push_event` returns, pushed
//!   in order into a fresh driver before their ticks run, give the same tick stream: what a
//!   live race sends the server.
//! - **A full queue** ([`EVENTS_MAX`] events waiting) rejects the event with
//!   [`DriverError::QueueFull`] and changes nothing; the caller still owns the event and may push
//!   it again after the next `advance_to` has drained the queue.
//! - **A bad player index** is [`DriverError::BadPlayer`] and changes nothing.
//! - **Time going backwards** is read as the latest time already seen: the clock never runs
//!   backwards, no new ticks become due and `alpha` stays as it was (a backlog left by the cap
//!   below keeps draining, since those ticks were due already).
//! - **The spiral-of-death guard**: at most [`TICKS_PER_FRAME_MAX`] ticks run per call
//!   (configurable with [`Driver::with_ticks_per_frame_max`]). The excess is *not dropped*: it
//!   stays due and runs on the following frames ([`FrameInfo::ticks_pending`] says how many are
//!   waiting). Dropping ticks or slowing the clock would make the tick stream depend on frame
//!   timing; catching up keeps it exact. While ticks are pending, `alpha` is the largest value
//!   below one: show the newest state.
//! - The tick counter saturates at `u32::MAX` (828 days at 60 Hz): no tick runs after that.
//!
//! No call panics, on any argument.
//!
//! ## Rendering with `alpha` and the teleport flag
//!
//! After a frame, the newest state is the one after tick `total_ticks − 1`; `alpha ∈ [0, 1)` is
//! how far `now` is into tick `total_ticks`, which has not run yet. A renderer keeps the state
//! from before the last tick run (`previous`) and the newest one (`current`), and draws
//! `previous + (current − previous) · alpha`: a picture one tick behind the clock that moves
//! smoothly at any frame rate. Convert `alpha` to the renderer's floating-point type only at that
//! edge (`alpha.to_bits()` over 2³²); the simulation never sees it.
//!
//! Teleports are the simulation's business: a respawn marks the state as teleported for the tick
//! it happened in. When `current` carries that flag, do **not** interpolate — `previous` is on the
//! other side of the jump; draw `current` as is (take `alpha` as one). Only the last tick of a
//! frame matters: if an earlier tick in the same frame teleported, `previous` is already past
//! the jump.
//!
//! ```
//! use pogo_core::driver::Driver;
//! use pogo_core::{Fx, Input, Ticks};
//!
//! let mut driver = Driver::new(60, 1).unwrap();
//! let jump = Input { steer_x: 127, ..Input::default() };
//! driver.push_event(20_000_000, 0, jump).unwrap(); // at 20 ms
//! let mut seen = Vec::new();
//! let frame = driver.advance_to(50_000_000, |tick: Ticks, inputs: &[Input]| {
//!     seen.push((tick.0, inputs[0].steer_x));
//! });
//! // 50 ms is exactly 3 ticks at 60 Hz. Tick 1 starts at 16.67 ms, before the event; tick 2
//! // starts at 33.3 ms, after it.
//! assert_eq!(seen, [(0, 0), (1, 0), (2, 127)]);
//! assert_eq!(frame.total_ticks, Ticks(3));
//! assert_eq!(frame.alpha, Fx::ZERO);
//! ```

use alloc::collections::VecDeque;
use core::fmt;

use crate::fx::Fx;
use crate::input::Input;
pub use crate::sim::PLAYERS_MAX;
use crate::tick::Ticks;

/// Nanoseconds in a second.
pub const NS_PER_SECOND: u64 = 1_000_000_000;

/// Most events that may wait in a driver's queue (about 100 KiB at most). A game pushes a few
/// events per frame; they leave the queue when their tick runs.
pub const EVENTS_MAX: usize = 4096;

/// Default cap on the ticks one [`Driver::advance_to`] call runs: 4 s at 60 Hz.
pub const TICKS_PER_FRAME_MAX: u32 = 240;

/// Shortest frame interval of [`jittered_frame_times`]: 1 ms.
pub const JITTER_MIN_NS: u64 = 1_000_000;

/// Longest frame interval of [`jittered_frame_times`]: 50 ms.
pub const JITTER_MAX_NS: u64 = 50_000_000;

/// What a driver refused, and why. A refused call changed nothing.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum DriverError {
    /// A tick rate of zero Hz.
    ZeroTickRate,
    /// A player count outside `1..=PLAYERS_MAX`.
    PlayerCount {
        /// The player count asked for.
        players: usize,
    },
    /// An event for a player index `>= players`.
    BadPlayer {
        /// The event's player index (0-based).
        player: usize,
        /// The driver's player count.
        players: usize,
    },
    /// [`EVENTS_MAX`] events are already waiting for their ticks.
    QueueFull,
}

impl fmt::Display for DriverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DriverError::ZeroTickRate => write!(f, "tick rate must be at least 1 Hz"),
            DriverError::PlayerCount { players } => {
                write!(f, "player count {players} is outside 1..={PLAYERS_MAX}")
            }
            DriverError::BadPlayer { player, players } => {
                write!(f, "player index {player} out of range (players: {players})")
            }
            DriverError::QueueFull => {
                write!(f, "input event queue is full ({EVENTS_MAX} events waiting)")
            }
        }
    }
}

impl core::error::Error for DriverError {}

/// What one [`Driver::advance_to`] call did.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct FrameInfo {
    /// Ticks run by this call (at most the per-frame cap).
    pub ticks_run_this_frame: u32,
    /// Ticks run since the start: the newest state is the one after tick `total_ticks − 1`.
    pub total_ticks: Ticks,
    /// Ticks already due but held back by the per-frame cap; they run on the next calls.
    pub ticks_pending: u32,
    /// How far `now` is into tick `total_ticks` (not run yet), in `[0, 1)`, exact:
    /// `(now_ns · rate − total_ticks · 10⁹) / 10⁹`, rounded toward zero. While ticks are
    /// pending, the largest value below one.
    pub alpha: Fx,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Event {
    at_ns: u64,
    player: usize,
    input: Input,
}

/// Runs fixed ticks for render frames. See the [module docs](self).
#[derive(Clone, Debug)]
pub struct Driver {
    tick_rate: u32,
    ticks_per_frame_max: u32,
    /// Latest time seen by `advance_to`.
    now_ns: u64,
    /// Ticks run so far; the next tick to run is `ticks_run`.
    ticks_run: u32,
    /// Each player's input as of the start of the last tick run (of the next one, once the
    /// queue's due events are applied): the first `players`. Inline, not behind a pointer: a
    /// server advances hundreds of drivers a few ticks each, and by a driver's next call its
    /// lines are out of the CPU's caches, where one more pointer is one more read from memory.
    inputs: [Input; PLAYERS_MAX],
    players: u8,
    /// Events not yet applied, in non-decreasing time order.
    queue: VecDeque<Event>,
    /// Time of the latest event pushed (out-of-order events are filed here).
    last_event_ns: u64,
}

impl Driver {
    /// A driver for `players` players at `tick_rate` Hz, at time 0 with no tick run and every
    /// player's input neutral. Any rate of at least 1 Hz works (tunings allow 10…480).
    pub fn new(tick_rate: u32, players: usize) -> Result<Driver, DriverError> {
        if tick_rate == 0 {
            return Err(DriverError::ZeroTickRate);
        }
        if players == 0 || players > PLAYERS_MAX {
            return Err(DriverError::PlayerCount { players });
        }
        Ok(Driver {
            tick_rate,
            ticks_per_frame_max: TICKS_PER_FRAME_MAX,
            now_ns: 0,
            ticks_run: 0,
            inputs: [Input::default(); PLAYERS_MAX],
            players: u8::try_from(players).map_err(|_| DriverError::PlayerCount { players })?,
            queue: VecDeque::new(),
            last_event_ns: 0,
        })
    }

    /// The same driver with another cap on ticks per [`advance_to`](Driver::advance_to) call
    /// (at least 1; 0 is read as 1).
    #[must_use]
    pub fn with_ticks_per_frame_max(mut self, max: u32) -> Driver {
        self.ticks_per_frame_max = max.max(1);
        self
    }

    /// Ticks per second (Hz), as given to [`Driver::new`].
    pub fn tick_rate(&self) -> u32 {
        self.tick_rate
    }

    /// Number of players: the length of the input slice each tick is handed.
    pub fn players(&self) -> usize {
        usize::from(self.players)
    }

    /// The cap on ticks one [`advance_to`](Driver::advance_to) call runs (the
    /// spiral-of-death guard; [`TICKS_PER_FRAME_MAX`] unless changed).
    pub fn ticks_per_frame_max(&self) -> u32 {
        self.ticks_per_frame_max
    }

    /// Ticks run so far.
    pub fn total_ticks(&self) -> Ticks {
        Ticks(self.ticks_run)
    }

    /// Latest time seen by [`advance_to`](Driver::advance_to) (ns).
    pub fn now_ns(&self) -> u64 {
        self.now_ns
    }

    /// The latest time (ns) whose events are in effect at tick `tick`'s start:
    /// `floor(tick · 10⁹ / rate)`. An event filed at it applies from tick `tick` on, and not to
    /// tick `tick − 1`.
    pub fn tick_start_ns(&self, tick: u32) -> u64 {
        let ns = u128::from(tick) * u128::from(NS_PER_SECOND) / u128::from(self.tick_rate);
        u64::try_from(ns).unwrap_or(u64::MAX)
    }

    /// The first time (ns) at which tick `tick` has ended, so that `advance_to` it runs every
    /// tick up to and including `tick`: `ceil((tick + 1) · 10⁹ / rate)`. The one place a
    /// caller learns when a tick is due; a view or a server never computes the schedule.
    pub fn tick_end_ns(&self, tick: u32) -> u64 {
        let rate = u128::from(self.tick_rate);
        let ns = ((u128::from(tick) + 1) * u128::from(NS_PER_SECOND)).div_ceil(rate);
        u64::try_from(ns).unwrap_or(u64::MAX)
    }

    /// How many ticks have ended by `now_ns`: ticks `k` with `now · rate ≥ (k + 1) · 10⁹`,
    /// `floor(now · rate / 10⁹)` of them (saturating at `u32::MAX`).
    pub fn ticks_due(&self, now_ns: u64) -> u32 {
        let scaled = u128::from(now_ns) * u128::from(self.tick_rate);
        u32::try_from(scaled / u128::from(NS_PER_SECOND)).unwrap_or(u32::MAX)
    }

    /// When the next tick to run ([`total_ticks`](Driver::total_ticks)) ends (ns):
    /// [`tick_end_ns`](Driver::tick_end_ns) of it.
    pub fn next_tick_end_ns(&self) -> u64 {
        self.tick_end_ns(self.ticks_run)
    }

    /// Events waiting for their ticks.
    pub fn queued_events(&self) -> usize {
        self.queue.len()
    }

    /// Each player's input as used by the last tick run (neutral before any tick).
    pub fn inputs(&self) -> &[Input] {
        &self.inputs[..self.players()]
    }

    /// Queues `input` as `player`'s input from `at_ns` on. Returns the time the event was filed
    /// at: `at_ns`, or the last event's time if `at_ns` is older (out of order), or the next
    /// tick's start if its own tick already ran (late). A full queue ([`EVENTS_MAX`]) or a bad
    /// player index is an error and changes nothing.
    pub fn push_event(
        &mut self,
        at_ns: u64,
        player: usize,
        input: Input,
    ) -> Result<u64, DriverError> {
        if player >= self.players() {
            return Err(DriverError::BadPlayer {
                player,
                players: self.players(),
            });
        }
        if self.queue.len() >= EVENTS_MAX {
            return Err(DriverError::QueueFull);
        }
        let at_ns = at_ns
            .max(self.last_event_ns)
            .max(self.tick_start_ns(self.ticks_run));
        self.last_event_ns = at_ns;
        self.queue.push_back(Event {
            at_ns,
            player,
            input,
        });
        Ok(at_ns)
    }

    /// Advances the clock to `now_ns` and runs every due tick in order (at most the per-frame
    /// cap), calling `run_tick(tick, inputs)` with one input per player, as of the tick's start.
    /// A `now_ns` earlier than the latest seen is read as the latest seen.
    pub fn advance_to<F: FnMut(Ticks, &[Input])>(
        &mut self,
        now_ns: u64,
        mut run_tick: F,
    ) -> FrameInfo {
        self.now_ns = self.now_ns.max(now_ns);
        let rate = u128::from(self.tick_rate);
        let scaled_now = u128::from(self.now_ns) * rate;
        let due = self.ticks_due(self.now_ns);
        let mut ran = 0u32;
        while self.ticks_run < due && ran < self.ticks_per_frame_max {
            let tick = self.ticks_run;
            let start = u128::from(tick) * u128::from(NS_PER_SECOND);
            while let Some(event) = self.queue.front().copied() {
                if u128::from(event.at_ns) * rate > start {
                    break;
                }
                self.queue.pop_front();
                if let Some(slot) = self.inputs.get_mut(event.player) {
                    *slot = event.input;
                }
            }
            run_tick(Ticks(tick), self.inputs());
            self.ticks_run += 1;
            ran += 1;
        }
        let into_next = scaled_now - u128::from(self.ticks_run) * u128::from(NS_PER_SECOND);
        let alpha = if into_next < u128::from(NS_PER_SECOND) {
            // < 10⁹, so the cast is exact; the ratio rounds toward zero, staying below one.
            Fx::from_ratio(into_next as i64, NS_PER_SECOND as i64)
        } else {
            Fx::ONE - Fx::DELTA
        };
        FrameInfo {
            ticks_run_this_frame: ran,
            total_ticks: Ticks(self.ticks_run),
            ticks_pending: due - self.ticks_run,
            alpha,
        }
    }
}

/// Frame timestamps (ns) of a steady render rate of `fps_num / fps_den` frames per second
/// (59.94 fps is `5994 / 100`): frame `i` at `floor(i · 10⁹ · fps_den / fps_num)`, from frame 0
/// at 0 up to the last one at or before `duration_ns`. Integer math only; a zero numerator or
/// denominator gives no frames.
pub fn frame_times(fps_num: u64, fps_den: u64, duration_ns: u64) -> FrameTimes {
    FrameTimes {
        fps_num,
        fps_den,
        duration_ns,
        next: 0,
        done: fps_num == 0 || fps_den == 0,
    }
}

/// Iterator of [`frame_times`].
#[derive(Clone, Debug)]
pub struct FrameTimes {
    fps_num: u64,
    fps_den: u64,
    duration_ns: u64,
    next: u64,
    done: bool,
}

impl Iterator for FrameTimes {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        if self.done {
            return None;
        }
        let at = u128::from(self.next)
            .checked_mul(u128::from(NS_PER_SECOND) * u128::from(self.fps_den))
            .map(|scaled| scaled / u128::from(self.fps_num))
            .filter(|&at| at <= u128::from(self.duration_ns));
        match (at, self.next.checked_add(1)) {
            (Some(at), Some(next)) => {
                self.next = next;
                Some(at as u64) // ≤ duration_ns, so exact
            }
            (Some(at), None) => {
                self.done = true;
                Some(at as u64)
            }
            (None, _) => {
                self.done = true;
                None
            }
        }
    }
}

/// Frame timestamps (ns) of an irregular render rate, for tests and the CLI: from 0, each
/// interval drawn between [`JITTER_MIN_NS`] and [`JITTER_MAX_NS`] (inclusive) by SplitMix64
/// seeded with `seed`, up to the last frame at or before `duration_ns`. The same seed gives the
/// same sequence on every machine.
pub fn jittered_frame_times(seed: u64, duration_ns: u64) -> JitteredFrameTimes {
    JitteredFrameTimes {
        rng: SplitMix64(seed),
        duration_ns,
        next: Some(0),
    }
}

/// Iterator of [`jittered_frame_times`].
#[derive(Clone, Debug)]
pub struct JitteredFrameTimes {
    rng: SplitMix64,
    duration_ns: u64,
    next: Option<u64>,
}

impl Iterator for JitteredFrameTimes {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        let at = self.next.filter(|&at| at <= self.duration_ns)?;
        let span = JITTER_MAX_NS - JITTER_MIN_NS + 1;
        let interval = JITTER_MIN_NS + self.rng.next_u64() % span;
        self.next = at.checked_add(interval);
        Some(at)
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny, well-mixed, fully specified generator.
#[derive(Clone, Debug)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Buttons;
    use alloc::format;
    use alloc::string::String;
    use alloc::vec;
    use alloc::vec::Vec;

    const MS: u64 = 1_000_000;
    const TEN_SECONDS: u64 = 10 * NS_PER_SECOND;

    fn input(steer_x: i8, steer_z: i8, buttons: Buttons) -> Input {
        Input {
            steer_x,
            steer_z,
            buttons,
        }
    }

    /// A fixed script of 50 events for 2 players over 10 s, in non-decreasing time order.
    /// At 60 Hz tick k starts at k · 16 666 666.67 ns: whole nanoseconds only when 3 divides k.
    fn script() -> Vec<(u64, usize, Input)> {
        let mut events = vec![
            // At 0: applies to tick 0.
            (0, 0, input(10, 0, Buttons::NONE)),
            // Just before tick 1's start (16 666 666.67 ns): applies to tick 1.
            (16_666_666, 1, input(-20, 5, Buttons::DIVE)),
            // Just after it: tick 2.
            (16_666_667, 0, input(30, 0, Buttons::NONE)),
            // Three events within tick 2 (33.33 ms to 50 ms) for player 1: only the last
            // counts, from tick 3.
            (34 * MS, 1, input(1, 1, Buttons::NONE)),
            (40 * MS, 1, input(2, 2, Buttons::TRICK)),
            (49_999_999, 1, input(3, 3, Buttons::NONE)),
            // Exactly on tick 3's start (50 ms): applies to tick 3 and overrides the above.
            (50 * MS, 0, input(4, 4, Buttons::DIVE)),
            // Two events at the same time: the later pushed wins.
            (100 * MS, 1, input(5, 5, Buttons::NONE)),
            (100 * MS, 1, input(6, 6, Buttons::ALL)),
            // Between ticks 7 and 8 (116.67 ms and 133.33 ms).
            (123_456_789, 0, input(-127, 127, Buttons::NONE)),
            // Exactly on tick 60's start (1 s).
            (NS_PER_SECOND, 1, input(127, -127, Buttons::TRICK)),
            // Tick boundaries at 1 s + 1/60 s ± 1 ns.
            (1_016_666_666, 0, input(7, 0, Buttons::NONE)),
            (1_016_666_667, 1, input(8, 0, Buttons::NONE)),
        ];
        // The rest: deterministic pseudo-random times and inputs over the remaining 9 s, every
        // third one on a whole-nanosecond tick boundary.
        let mut rng = SplitMix64(0x5EED);
        let mut at = 1_100 * MS;
        while events.len() < 50 {
            at += 1 + rng.next_u64() % (450 * MS);
            let event_at = if events.len() % 3 == 0 {
                // Round up to the next start of a tick divisible by 3 (every 50 ms).
                at.div_ceil(50 * MS) * (50 * MS)
            } else {
                at
            };
            at = event_at;
            let bits = rng.next_u64();
            let player = (bits & 1) as usize;
            let steer_x = (bits >> 8) as i8;
            let steer_z = (bits >> 16) as i8;
            let buttons = Buttons((bits >> 24) as u8 & Buttons::ALL.0);
            events.push((event_at, player, input(steer_x, steer_z, buttons)));
        }
        assert!(at < TEN_SECONDS, "the script fits in 10 s");
        assert!(events.windows(2).all(|w| w[0].0 <= w[1].0));
        events
    }

    type Stream = Vec<(u32, Vec<Input>)>;

    /// Runs `events` through a driver, pushing each event just before the first frame at or
    /// after its time (as a game's event loop does), and records the tick input stream.
    fn drive(
        rate: u32,
        events: &[(u64, usize, Input)],
        frames: impl IntoIterator<Item = u64>,
        end_ns: u64,
    ) -> Stream {
        let mut driver = Driver::new(rate, 2).unwrap();
        let mut stream = Stream::new();
        let mut pending = events.iter().peekable();
        let mut last = 0;
        for now in frames.into_iter().chain(core::iter::once(end_ns)) {
            assert!(now >= last, "frames go forward");
            last = now;
            while let Some(&&(at, player, input)) = pending.peek() {
                if at > now {
                    break;
                }
                assert_eq!(driver.push_event(at, player, input), Ok(at));
                pending.next();
            }
            driver.advance_to(now, |tick, inputs| stream.push((tick.0, inputs.to_vec())));
        }
        // Drain a backlog left by the per-frame cap.
        while driver
            .advance_to(end_ns, |tick, inputs| {
                stream.push((tick.0, inputs.to_vec()))
            })
            .ticks_run_this_frame
            > 0
        {}
        stream
    }

    /// The rule, computed directly: tick k uses each player's latest event with
    /// `event_ns · rate ≤ k · 10⁹`.
    fn reference(rate: u32, events: &[(u64, usize, Input)], ticks: u32) -> Stream {
        (0..ticks)
            .map(|k| {
                let inputs = (0..2)
                    .map(|p| {
                        events
                            .iter()
                            .rev()
                            .find(|&&(at, player, _)| {
                                player == p
                                    && u128::from(at) * u128::from(rate)
                                        <= u128::from(k) * u128::from(NS_PER_SECOND)
                            })
                            .map_or(Input::default(), |&(_, _, input)| input)
                    })
                    .collect();
                (k, inputs)
            })
            .collect()
    }

    #[test]
    fn tick_input_stream_does_not_depend_on_the_frame_rate() {
        let events = script();
        for rate in [60, 50, 144] {
            let expected = reference(rate, &events, rate * 10);
            let mut runs: Vec<(String, Stream)> = Vec::new();
            for fps in [30, 60, 144, 240] {
                let frames = frame_times(fps, 1, TEN_SECONDS);
                runs.push((
                    format!("{fps} fps"),
                    drive(rate, &events, frames, TEN_SECONDS),
                ));
            }
            let ntsc = frame_times(5994, 100, TEN_SECONDS);
            runs.push(("59.94 fps".into(), drive(rate, &events, ntsc, TEN_SECONDS)));
            for seed in [1, 2, 3, 0xDEAD_BEEF, u64::MAX] {
                let frames = jittered_frame_times(seed, TEN_SECONDS);
                runs.push((
                    format!("jitter {seed}"),
                    drive(rate, &events, frames, TEN_SECONDS),
                ));
            }
            // One long stall: the cap leaves a backlog that later frames drain.
            runs.push((
                "stall".into(),
                drive(rate, &events, [0, 9_999 * MS], TEN_SECONDS),
            ));
            // Every event pushed up front, as a replay player may do.
            let mut driver = Driver::new(rate, 2).unwrap();
            for &(at, player, input) in &events {
                driver.push_event(at, player, input).unwrap();
            }
            let mut stream = Stream::new();
            for now in frame_times(77, 1, TEN_SECONDS).chain([TEN_SECONDS]) {
                driver.advance_to(now, |tick, inputs| stream.push((tick.0, inputs.to_vec())));
            }
            runs.push(("events up front".into(), stream));

            // The script's edge cases are visible in the stream at 60 Hz.
            if rate == 60 {
                let x = |k: usize, p: usize| expected[k].1[p].steer_x;
                assert_eq!((x(0, 0), x(0, 1)), (10, 0));
                assert_eq!((x(1, 0), x(1, 1)), (10, -20));
                assert_eq!((x(2, 0), x(3, 0)), (30, 4));
                assert_eq!((x(2, 1), x(3, 1)), (-20, 3));
                assert_eq!((x(5, 1), x(6, 1)), (3, 6));
                assert_eq!((x(7, 0), x(8, 0)), (4, -127));
                assert_eq!((x(59, 1), x(60, 1)), (6, 127));
                assert_eq!((x(61, 0), x(61, 1), x(62, 1)), (7, 127, 8));
            }
            for (name, stream) in &runs {
                assert_eq!(
                    stream.len(),
                    expected.len(),
                    "{rate} Hz, {name}: tick count"
                );
                assert!(
                    stream == &expected,
                    "{rate} Hz, {name}: tick input stream differs"
                );
            }
        }
    }

    #[test]
    fn after_t_seconds_exactly_floor_t_times_rate_ticks_have_run() {
        // (rate, T in ns, floor(T · rate)), worked out by hand.
        let cases: [(u32, u64, u32); 15] = [
            (60, 0, 0),
            (60, 16_666_666, 0),
            (60, 16_666_667, 1),
            (60, NS_PER_SECOND, 60),
            (60, 1_999_999_999, 119),
            (60, 2_000_000_000, 120),
            (60, 3_333_333_333, 199),
            (60, 9_999_999_999, 599),
            (50, 1_999_999_999, 99),
            (50, 20 * MS, 1),
            (50, 19_999_999, 0),
            (50, 7_500_000_000, 375),
            (144, 1_999_999_999, 287),
            (144, 2_000_000_000, 288),
            (144, 6_944_445, 1), // 1/144 s = 6 944 444.44 ns
        ];
        for (rate, t, expected) in cases {
            let mut frame_sets: Vec<Vec<u64>> = vec![
                frame_times(60, 1, t).collect(),
                frame_times(5994, 100, t).collect(),
                jittered_frame_times(t, t).collect(),
                Vec::new(),
            ];
            for frames in &mut frame_sets {
                frames.push(t);
                // A single frame needs more ticks than the default cap allows.
                let cap = if frames.len() == 1 {
                    u32::MAX
                } else {
                    TICKS_PER_FRAME_MAX
                };
                let mut driver = Driver::new(rate, 1).unwrap().with_ticks_per_frame_max(cap);
                let mut count = 0u32;
                let mut last = None;
                for &now in frames.iter() {
                    last = Some(driver.advance_to(now, |tick, _| {
                        assert_eq!(tick.0, count, "ticks run in order");
                        count += 1;
                    }));
                }
                let info = last.unwrap();
                assert_eq!(count, expected, "{rate} Hz after {t} ns");
                assert_eq!(info.total_ticks, Ticks(expected));
                assert_eq!(info.ticks_pending, 0);
            }
        }
    }

    #[test]
    fn alpha_is_exact() {
        let mut driver = Driver::new(60, 1).unwrap();
        let info = driver.advance_to(25 * MS, |_, _| {});
        assert_eq!(info.total_ticks, Ticks(1));
        assert_eq!(info.ticks_run_this_frame, 1);
        assert_eq!(info.alpha, Fx::from_ratio(1, 2));
        assert_eq!(info.alpha, Fx::HALF);

        // 16 666 667 ns · 60 = 1 000 000 020: 20 ns · 60 past tick 1's start.
        let mut driver = Driver::new(60, 1).unwrap();
        let info = driver.advance_to(16_666_667, |_, _| {});
        assert_eq!(info.total_ticks, Ticks(1));
        assert_eq!(info.alpha, Fx::from_ratio(20, 1_000_000_000));
        // 16 666 666 ns: not yet a tick, alpha just below one.
        let mut driver = Driver::new(60, 1).unwrap();
        let info = driver.advance_to(16_666_666, |_, _| {});
        assert_eq!(info.total_ticks, Ticks(0));
        assert_eq!(info.alpha, Fx::from_ratio(999_999_960, 1_000_000_000));
        assert!(info.alpha < Fx::ONE);

        let mut driver = Driver::new(50, 1).unwrap();
        assert_eq!(driver.advance_to(0, |_, _| {}).alpha, Fx::ZERO);
        let info = driver.advance_to(70 * MS, |_, _| {});
        assert_eq!((info.total_ticks, info.alpha), (Ticks(3), Fx::HALF));
        let info = driver.advance_to(75 * MS, |_, _| {});
        assert_eq!(
            (info.total_ticks, info.alpha),
            (Ticks(3), Fx::from_ratio(3, 4))
        );
        let info = driver.advance_to(80 * MS, |_, _| {});
        assert_eq!((info.total_ticks, info.alpha), (Ticks(4), Fx::ZERO));

        // Always in [0, 1) over a jittered run.
        let mut driver = Driver::new(144, 1).unwrap();
        for now in jittered_frame_times(9, TEN_SECONDS) {
            let alpha = driver.advance_to(now, |_, _| {}).alpha;
            assert!(alpha >= Fx::ZERO && alpha < Fx::ONE, "{alpha:?} at {now}");
        }
    }

    #[test]
    fn no_events_means_neutral_input() {
        let mut driver = Driver::new(60, 3).unwrap();
        let mut ticks = 0;
        driver.advance_to(NS_PER_SECOND, |_, inputs| {
            assert_eq!(inputs, [Input::default(); 3]);
            ticks += 1;
        });
        assert_eq!(ticks, 60);
        assert_eq!(driver.inputs(), [Input::default(); 3]);
    }

    #[test]
    fn time_going_backwards_is_ignored() {
        let mut driver = Driver::new(60, 1).unwrap();
        let info = driver.advance_to(110 * MS, |_, _| {});
        assert_eq!(info.total_ticks, Ticks(6));
        let alpha = info.alpha;
        assert_eq!(
            alpha,
            Fx::from_ratio(6_600_000_000 - 6_000_000_000, 1_000_000_000)
        );
        for back in [50 * MS, 0, 109 * MS, 110 * MS] {
            let mut ran = 0;
            let info = driver.advance_to(back, |_, _| ran += 1);
            assert_eq!(ran, 0, "back to {back}");
            assert_eq!(
                info,
                FrameInfo {
                    ticks_run_this_frame: 0,
                    total_ticks: Ticks(6),
                    ticks_pending: 0,
                    alpha,
                }
            );
            assert_eq!(driver.now_ns(), 110 * MS);
        }
        // And forward again from where the clock was.
        assert_eq!(driver.advance_to(117 * MS, |_, _| {}).total_ticks, Ticks(7));
    }

    #[test]
    fn out_of_order_events_are_filed_at_the_last_event_time() {
        let a = input(1, 0, Buttons::NONE);
        let b = input(2, 0, Buttons::NONE);
        let c = input(3, 0, Buttons::DIVE);
        let mut driver = Driver::new(60, 2).unwrap();
        assert_eq!(driver.push_event(100 * MS, 0, a), Ok(100 * MS));
        // Older than the last event: filed at 100 ms, kept after `a`.
        assert_eq!(driver.push_event(50 * MS, 1, b), Ok(100 * MS));
        assert_eq!(driver.push_event(10 * MS, 0, c), Ok(100 * MS));
        let mut stream = Stream::new();
        driver.advance_to(NS_PER_SECOND / 8, |tick, inputs| {
            stream.push((tick.0, inputs.to_vec()));
        });
        // 100 ms is tick 6's start exactly.
        assert_eq!(stream.len(), 7);
        assert_eq!(stream[5].1, [Input::default(), Input::default()]);
        assert_eq!(stream[6].1, [c, b]);
    }

    #[test]
    fn late_events_apply_from_the_next_tick() {
        let late = input(-5, 0, Buttons::TRICK);
        let mut driver = Driver::new(60, 1).unwrap();
        driver.advance_to(100 * MS, |_, _| {});
        // Filed at tick 6's start (100 ms): the time a fresh driver needs to give the same.
        assert_eq!(driver.push_event(20 * MS, 0, late), Ok(100 * MS));
        let mut stream = Stream::new();
        driver.advance_to(150 * MS, |tick, inputs| {
            stream.push((tick.0, inputs.to_vec()));
        });
        assert_eq!(stream, [(6, vec![late]), (7, vec![late]), (8, vec![late])]);
    }

    #[test]
    fn tick_boundaries_are_exact_rationals() {
        let driver = Driver::new(60, 1).unwrap();
        // Tick 1 starts at 16 666 666.67 ns: in effect at its start means ≤ 16 666 666 ns.
        assert_eq!(driver.tick_start_ns(1), 16_666_666);
        assert_eq!(driver.tick_end_ns(0), 16_666_667);
        assert_eq!(driver.tick_end_ns(2), 50 * MS);
        assert_eq!(driver.next_tick_end_ns(), 16_666_667);
        assert_eq!(
            driver.tick_start_ns(u32::MAX),
            u64::from(u32::MAX) * NS_PER_SECOND / 60
        );
        let mut at = Driver::new(60, 1).unwrap();
        let mut ran = Vec::new();
        at.advance_to(at.tick_end_ns(2) - 1, |tick, _| ran.push(tick.0));
        assert_eq!(ran, [0, 1], "one ns before tick 2 ends, it has not run");
        at.advance_to(at.tick_end_ns(2), |tick, _| ran.push(tick.0));
        assert_eq!(ran, [0, 1, 2]);
        assert_eq!(at.next_tick_end_ns(), at.tick_end_ns(3));
    }

    proptest::proptest! {
        /// The filed times `push_event` returns, late and out-of-order events included, pushed
        /// into a fresh driver before their ticks run, give the same tick stream: what a live
        /// race sends the server, and what the server re-simulates.
        #[test]
        fn filed_times_replay_the_same_stream(
            steps in proptest::collection::vec((0u64..400, 0u64..200, -127i8..=127), 1..40),
        ) {
            let mut live = Driver::new(60, 1).unwrap();
            let mut live_stream = Stream::new();
            let mut filed = Vec::new();
            let mut now = 0;
            for (advance_ms, event_back_ms, steer) in steps {
                now += advance_ms * MS;
                let at = now.saturating_sub(event_back_ms * MS);
                let event = input(steer, 0, Buttons::NONE);
                filed.push((live.push_event(at, 0, event).unwrap(), event));
                live.advance_to(now, |tick, inputs| live_stream.push((tick.0, inputs.to_vec())));
            }
            let mut fresh = Driver::new(60, 1).unwrap().with_ticks_per_frame_max(u32::MAX);
            for &(at, event) in &filed {
                fresh.push_event(at, 0, event).unwrap();
            }
            let mut fresh_stream = Stream::new();
            fresh.advance_to(now, |tick, inputs| fresh_stream.push((tick.0, inputs.to_vec())));
            proptest::prop_assert_eq!(live_stream, fresh_stream);
        }
    }

    #[test]
    fn a_full_queue_rejects_and_keeps_everything_else() {
        let mut driver = Driver::new(60, 1).unwrap();
        for i in 0..EVENTS_MAX {
            let steer = (i % 100) as i8;
            assert!(
                driver
                    .push_event(i as u64 * MS, 0, input(steer, 0, Buttons::NONE))
                    .is_ok()
            );
        }
        assert_eq!(driver.queued_events(), EVENTS_MAX);
        let extra = input(-1, -1, Buttons::ALL);
        assert_eq!(
            driver.push_event(u64::MAX, 0, extra),
            Err(DriverError::QueueFull)
        );
        assert_eq!(driver.queued_events(), EVENTS_MAX);
        // The rejected event did not move the out-of-order clamp.
        assert_eq!(driver.push_event(0, 0, extra), Err(DriverError::QueueFull));
        // Running ticks drains the queue: ticks 0..=5 consume events up to 83.3 ms (84 of them).
        let info = driver.advance_to(100 * MS, |tick, inputs| {
            let expected_ms = u64::from(tick.0) * 1000 / 60;
            assert_eq!(inputs[0].steer_x, (expected_ms % 100) as i8);
        });
        assert_eq!(info.total_ticks, Ticks(6));
        assert_eq!(driver.queued_events(), EVENTS_MAX - 84);
        let last = (EVENTS_MAX as u64 - 1) * MS;
        assert_eq!(driver.push_event(0, 0, extra), Ok(last));
    }

    #[test]
    fn bad_arguments_are_errors_not_panics() {
        assert_eq!(Driver::new(0, 1).unwrap_err(), DriverError::ZeroTickRate);
        assert_eq!(
            Driver::new(60, 0).unwrap_err(),
            DriverError::PlayerCount { players: 0 }
        );
        assert_eq!(
            Driver::new(60, PLAYERS_MAX + 1).unwrap_err(),
            DriverError::PlayerCount {
                players: PLAYERS_MAX + 1
            }
        );
        assert!(Driver::new(1, PLAYERS_MAX).is_ok());
        assert!(Driver::new(u32::MAX, 1).is_ok());

        let mut driver = Driver::new(60, 2).unwrap();
        for player in [2, 3, usize::MAX] {
            assert_eq!(
                driver.push_event(5 * MS, player, input(9, 9, Buttons::ALL)),
                Err(DriverError::BadPlayer { player, players: 2 })
            );
        }
        assert_eq!(driver.queued_events(), 0);
        // The rejected event did not move the out-of-order clamp.
        assert_eq!(driver.push_event(MS, 1, Input::default()), Ok(MS));
        assert!(!format!("{}", DriverError::QueueFull).is_empty());

        // Extreme clocks and rates: bounded work, no overflow.
        let mut driver = Driver::new(u32::MAX, 1).unwrap();
        let info = driver.advance_to(u64::MAX, |_, _| {});
        assert_eq!(info.ticks_run_this_frame, TICKS_PER_FRAME_MAX);
        assert_eq!(info.ticks_pending, u32::MAX - TICKS_PER_FRAME_MAX);
        assert_eq!(info.alpha, Fx::ONE - Fx::DELTA);
        let mut driver = Driver::new(60, 1)
            .unwrap()
            .with_ticks_per_frame_max(u32::MAX);
        driver.push_event(u64::MAX, 0, Input::default()).unwrap();
        let mut driver = Driver::new(1, 1).unwrap().with_ticks_per_frame_max(0);
        assert_eq!(driver.ticks_per_frame_max(), 1);
        assert_eq!(
            driver.advance_to(u64::MAX, |_, _| {}).ticks_run_this_frame,
            1
        );
    }

    #[test]
    fn the_ticks_per_frame_cap_defers_the_excess() {
        let mut driver = Driver::new(60, 1).unwrap();
        assert_eq!(driver.ticks_per_frame_max(), TICKS_PER_FRAME_MAX);
        let mut ran = Vec::new();
        let mut frame =
            |driver: &mut Driver, now| driver.advance_to(now, |tick, _| ran.push(tick.0));
        // 10 s at once: 600 ticks due.
        let info = frame(&mut driver, TEN_SECONDS);
        assert_eq!(info.ticks_run_this_frame, 240);
        assert_eq!(info.total_ticks, Ticks(240));
        assert_eq!(info.ticks_pending, 360);
        assert_eq!(info.alpha, Fx::ONE - Fx::DELTA);
        // The same time again still runs the backlog (those ticks were due already).
        let info = frame(&mut driver, TEN_SECONDS);
        assert_eq!((info.ticks_run_this_frame, info.ticks_pending), (240, 120));
        let info = frame(&mut driver, TEN_SECONDS + 25 * MS);
        assert_eq!(info.ticks_run_this_frame, 121);
        assert_eq!(info.total_ticks, Ticks(601));
        assert_eq!(info.ticks_pending, 0);
        assert_eq!(info.alpha, Fx::HALF);
        assert_eq!(ran, (0..601).collect::<Vec<u32>>());

        // A custom cap.
        let mut driver = Driver::new(60, 1).unwrap().with_ticks_per_frame_max(2);
        let info = driver.advance_to(100 * MS, |_, _| {});
        assert_eq!((info.ticks_run_this_frame, info.ticks_pending), (2, 4));
    }

    #[test]
    fn frame_times_use_exact_integer_math() {
        let ntsc: Vec<u64> = frame_times(5994, 100, TEN_SECONDS).collect();
        // 10 s · 59.94 = 599.4: frames 0..=599.
        assert_eq!(ntsc.len(), 600);
        assert_eq!(&ntsc[..3], [0, 16_683_350, 33_366_700]);
        // Frame 599 at floor(599 · 10¹¹ / 5994) = 9 993 326 659.
        assert_eq!(ntsc[599], 9_993_326_659);
        let thirty: Vec<u64> = frame_times(30, 1, NS_PER_SECOND).collect();
        assert_eq!(thirty.len(), 31);
        assert_eq!(&thirty[..3], [0, 33_333_333, 66_666_666]);
        assert_eq!(thirty[30], NS_PER_SECOND);
        assert_eq!(frame_times(0, 1, NS_PER_SECOND).count(), 0);
        assert_eq!(frame_times(60, 0, NS_PER_SECOND).count(), 0);
        assert_eq!(frame_times(60, 1, 0).collect::<Vec<_>>(), [0]);
        // Bounded and exact at the top of the range.
        let mut huge = frame_times(1, u64::MAX, u64::MAX);
        assert_eq!(huge.next(), Some(0));
        assert_eq!(huge.next(), None);
        assert_eq!(huge.next(), None);
    }

    #[test]
    fn jittered_frame_times_are_seeded_and_bounded() {
        let a: Vec<u64> = jittered_frame_times(42, TEN_SECONDS).collect();
        let b: Vec<u64> = jittered_frame_times(42, TEN_SECONDS).collect();
        let c: Vec<u64> = jittered_frame_times(43, TEN_SECONDS).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a[0], 0);
        assert!(*a.last().unwrap() <= TEN_SECONDS);
        let intervals: Vec<u64> = a.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(
            intervals
                .iter()
                .all(|&d| (JITTER_MIN_NS..=JITTER_MAX_NS).contains(&d))
        );
        // Actually jittered: short and long intervals both occur.
        assert!(intervals.iter().any(|&d| d < 10 * MS));
        assert!(intervals.iter().any(|&d| d > 40 * MS));
        // Near the end of the clock: no overflow, just the end.
        assert_eq!(
            jittered_frame_times(1, u64::MAX).nth(3).map(|t| t > 0),
            Some(true)
        );
        // SplitMix64's published first output for seed 0.
        assert_eq!(SplitMix64(0).next_u64(), 0xE220_A839_7B1D_CDAF);
    }
}
