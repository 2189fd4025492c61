//! One racer's run on the server: their stream taken in sequence, every message judged
//! against GO ([`crate::realtime::timing`]), the run re-simulated by the same core and driver
//! the page runs and recorded, tick by tick, as the messages arrive, and each of the page's
//! splits compared with the server's (a desync is named).
//!
//! The page sends its driver's events as the driver filed them (`Driver::push_event`'s
//! answer), then says which ticks it ran; pushing those events into a fresh driver before
//! advancing it through the same ticks gives the same tick inputs
//! (`driver::tests::filed_times_replay_the_same_stream`), so the recording is the bytes
//! `pogo simulate --inputs … --record` writes for those events.
//!
//! Nothing here can be made to do unbounded work: the stream is taken in order, every tick
//! it claims is at most [`FUTURE_MS_MAX`] ahead of the server's clock since GO (so the
//! re-simulation runs no faster than real time, plus that), and at most the longest run.

use std::sync::Arc;

use pogo_core::driver::Driver;
use pogo_core::world::World;
use pogo_core::{Events, Input, Simulation, Ticks, Tuning};
use pogo_replay::{Header, Recorder};

use super::wire::{FINISH, Stream};
use crate::realtime::{GameTime, Timing, seconds, timing_us};

/// How far ahead of the server's clock (since GO) a message's game time may be (ms). An
/// honest page is never ahead: it counts down to a GO no earlier than the server's. Past
/// this the message is refused and the connection closed: nothing a client sends makes the
/// server simulate faster than real time plus this.
pub const FUTURE_MS_MAX: i64 = 1000;

/// Why a message was refused: the connection is closed with this, and nothing changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refused {
    /// A sequence number past the next one: a message was skipped.
    Gap { expected: u32, found: u32 },
    /// Against the stream's order (an input for a tick already said to have run, a tick
    /// going backwards).
    OutOfOrder(String),
    /// A game time further ahead of the server's clock than [`FUTURE_MS_MAX`].
    FromTheFuture { ahead_ms: i64 },
    /// Past the longest run the server re-simulates.
    TooLong { ticks_max: u32 },
    /// The run is over (finished): nothing follows the finish.
    Over,
    /// Too many inputs waiting for their ticks (the page never says it ran them).
    Flood,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Gap { expected, found } => {
                write!(
                    f,
                    "sequence gap: expected message {expected}, found {found}"
                )
            }
            Refused::OutOfOrder(why) => write!(f, "out of order: {why}"),
            Refused::FromTheFuture { ahead_ms } => write!(
                f,
                "from the future: {} ahead of the server's clock since GO",
                seconds(*ahead_ms)
            ),
            Refused::TooLong { ticks_max } => {
                write!(f, "past the longest race ({ticks_max} ticks)")
            }
            Refused::Over => write!(f, "the run is over: nothing follows the finish"),
            Refused::Flood => write!(f, "too many inputs waiting for their ticks"),
        }
    }
}

/// What taking a message did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Taken {
    /// A copy of a message taken before (a resend after a cut): ignored.
    Again,
    /// Taken; the server has now re-simulated through `tick` (none: no tick yet).
    New { tick: Option<u32> },
}

/// The page disagreed with the server at a split.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Desync {
    pub tick: u32,
    /// The server's state hash after the tick (none: the server's run has no such split).
    pub expected: Option<u64>,
    /// The page's.
    pub found: u64,
    /// For a human.
    pub why: String,
}

/// One racer's stream and re-simulation.
///
/// Laid out in the order written (`repr(C)`), what every message reads first: a live server
/// holds thousands of runs, and by a racer's next message its run is out of the CPU's caches,
/// so each cache line a message touches is one more read from memory (PERFORMANCE.md, "A
/// message's state from memory"). The scalars, the simulation's handles, the driver and the
/// recorder's hot part come first, within the first six lines (a unit test pins it); the
/// splits' hashes and what is set once in a run (a desync, a late message's note) come last.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct RacerRun {
    /// The next sequence number expected.
    next_seq: u32,
    rate: u32,
    ticks_max: u32,
    finish_tick: Option<u32>,
    /// The highest tick the page said it ran.
    claimed: Option<u32>,
    /// The last input's filed time (ns since GO).
    last_at_ns: u64,
    slack_ms: i64,
    /// How many of the server's splits the page has reported.
    reported: usize,
    /// The server's splits so far.
    splits: Vec<(Option<u32>, u32)>,
    sim: Simulation,
    driver: Driver,
    recorder: Option<Recorder<Vec<u8>>>,
    /// The state hash after each of `splits`.
    split_hashes: Vec<u64>,
    desync: Option<Desync>,
    /// Set by the first message that was not on time.
    realtime_note: Option<String>,
}

impl RacerRun {
    /// A run of `world` under `tuning` for player `name` (the replay header's; none for a
    /// guest), dated `date` (the header's), judged with `slack_ms`, at most `ticks_max` ticks.
    pub fn new(
        world: Arc<World>,
        tuning: impl Into<Arc<Tuning>>,
        name: Option<String>,
        date: String,
        slack_ms: i64,
        ticks_max: u32,
    ) -> Result<RacerRun, String> {
        let tuning = tuning.into();
        let rate = tuning.spec().tick_rate;
        let sim = Simulation::new(world, tuning, 1).map_err(|e| e.to_string())?;
        let driver = Driver::new(rate, 1)
            .map_err(|e| e.to_string())?
            .with_ticks_per_frame_max(u32::MAX);
        let header = Header::for_simulation(&sim, name, Some(date));
        let recorder = Recorder::new(Vec::new(), header).map_err(|e| e.to_string())?;
        Ok(RacerRun {
            rate,
            slack_ms,
            ticks_max,
            sim,
            driver,
            recorder: Some(recorder),
            next_seq: 0,
            last_at_ns: 0,
            claimed: None,
            splits: Vec::new(),
            split_hashes: Vec::new(),
            reported: 0,
            finish_tick: None,
            realtime_note: None,
            desync: None,
        })
    }

    /// The highest sequence number taken, if any.
    pub fn acked(&self) -> Option<u32> {
        self.next_seq.checked_sub(1)
    }

    /// Ticks re-simulated so far.
    pub fn ticks(&self) -> u32 {
        self.sim.state().tick.0
    }

    pub fn splits(&self) -> &[(Option<u32>, u32)] {
        &self.splits
    }

    pub fn finish_tick(&self) -> Option<u32> {
        self.finish_tick
    }

    /// Why the run is not real-time, if it is not (so far).
    pub fn realtime_note(&self) -> Option<&str> {
        self.realtime_note.as_deref()
    }

    pub fn desync(&self) -> Option<&Desync> {
        self.desync.as_ref()
    }

    /// Marks the run not real-time, unless something already did (the first reason stands).
    pub fn not_real_time(&mut self, why: String) {
        self.realtime_note.get_or_insert(why);
    }

    /// Checks `message`, received `since_go_us` µs after GO (the server's clock), against the
    /// stream: `Err` refuses it and changes nothing. Takes it and re-simulates what it allows.
    pub fn take(&mut self, message: &Stream, since_go_us: i64) -> Result<Taken, Refused> {
        let seq = message.seq();
        if seq < self.next_seq {
            return Ok(Taken::Again);
        }
        if seq > self.next_seq {
            return Err(Refused::Gap {
                expected: self.next_seq,
                found: seq,
            });
        }
        if self.finished() {
            return Err(Refused::Over);
        }
        let game = self.check(message, since_go_us)?;
        // Taken from here on: judged, then applied.
        self.next_seq += 1;
        match timing_us(0, self.slack_ms, game, since_go_us) {
            Timing::OnTime => {}
            Timing::Early { by_ms } => self.not_real_time(format!(
                "message {seq} arrived {} before its game time since GO: sooner than the game can run",
                seconds(by_ms)
            )),
            Timing::Late { after_ms } => self.not_real_time(format!(
                "message {seq} arrived {} after its game time since GO (at most {} allowed)",
                seconds(after_ms),
                seconds(self.slack_ms)
            )),
        }
        match *message {
            Stream::Input { at_ns, input, .. } => {
                self.last_at_ns = at_ns;
                // Checked in `check`: the queue has room and the player index is 0.
                let _ = self.driver.push_event(at_ns, 0, input);
            }
            Stream::Ran { tick, .. } => {
                self.run_through(tick);
                self.check_reported();
            }
            Stream::Split {
                tick,
                checkpoint,
                hash,
                ..
            } => {
                self.run_through(tick);
                self.compare_split(tick, checkpoint, hash);
            }
        }
        Ok(Taken::New {
            tick: self.ticks().checked_sub(1),
        })
    }

    /// The message's game time, if it fits the stream; else why not.
    fn check(&self, message: &Stream, since_go_us: i64) -> Result<GameTime, Refused> {
        let (game, game_ns) = match *message {
            Stream::Input { at_ns, .. } => {
                if at_ns < self.last_at_ns {
                    return Err(Refused::OutOfOrder(format!(
                        "an input at {at_ns} ns after one at {} ns",
                        self.last_at_ns
                    )));
                }
                if let Some(claimed) = self.claimed {
                    if at_ns <= self.driver.tick_start_ns(claimed) {
                        return Err(Refused::OutOfOrder(format!(
                            "an input at {at_ns} ns for tick {claimed} or earlier, which already ran"
                        )));
                    }
                }
                if self.driver.queued_events() >= pogo_core::driver::EVENTS_MAX {
                    return Err(Refused::Flood);
                }
                (GameTime::ns(at_ns), u128::from(at_ns))
            }
            Stream::Ran { tick, .. } | Stream::Split { tick, .. } => {
                if self.claimed.is_some_and(|c| tick < c) {
                    return Err(Refused::OutOfOrder(format!(
                        "tick {tick} after tick {}",
                        self.claimed.unwrap_or(0)
                    )));
                }
                if tick >= self.ticks_max {
                    return Err(Refused::TooLong {
                        ticks_max: self.ticks_max,
                    });
                }
                let start = u128::from(self.driver.tick_start_ns(tick));
                (GameTime::tick(tick, self.rate), start)
            }
        };
        let since_go_ns = i128::from(since_go_us) * 1000;
        let ahead_ns = i128::try_from(game_ns).unwrap_or(i128::MAX) - since_go_ns;
        if ahead_ns > i128::from(FUTURE_MS_MAX) * 1_000_000 {
            let ahead_ms = i64::try_from(ahead_ns / 1_000_000).unwrap_or(i64::MAX);
            return Err(Refused::FromTheFuture { ahead_ms });
        }
        Ok(game)
    }

    /// Runs (and records) every tick up to `tick`, the page having said it ran them; ticks
    /// after the finish are not run.
    fn run_through(&mut self, tick: u32) {
        self.claimed = Some(self.claimed.map_or(tick, |c| c.max(tick)));
        let end = self.driver.tick_end_ns(tick);
        let RacerRun {
            sim,
            driver,
            recorder,
            splits,
            split_hashes,
            finish_tick,
            ..
        } = self;
        driver.advance_to(end, |_: Ticks, inputs: &[Input]| {
            if finish_tick.is_some() {
                return;
            }
            sim.step(inputs);
            if let Some(r) = recorder.as_mut() {
                // A Vec never fails to take bytes.
                let _ = r.record(inputs, || sim.state_hash());
            }
            observe(sim, splits, split_hashes, finish_tick);
        });
    }

    /// The page's split `(tick, checkpoint)` with its hash, against the server's next
    /// unreported split.
    fn compare_split(&mut self, tick: u32, checkpoint: u32, found: u64) {
        if self.desync.is_some() {
            return;
        }
        let page = (checkpoint != FINISH).then_some(checkpoint);
        let name = crate::realtime::split_name;
        let server = self.splits.get(self.reported).copied();
        match server {
            Some((c, t)) if (c, t) == (page, tick) => {
                let expected = self.split_hashes[self.reported];
                self.reported += 1;
                if expected != found {
                    self.desync = Some(Desync {
                        tick,
                        expected: Some(expected),
                        found,
                        why: format!(
                            "at {} (tick {tick}) the page's state hash is {found:016x}, the server's {expected:016x}",
                            name(page)
                        ),
                    });
                }
            }
            other => {
                let server_said = other.map_or("no split".to_string(), |(c, t)| {
                    format!("{} at tick {t}", name(c))
                });
                self.desync = Some(Desync {
                    tick,
                    expected: None,
                    found,
                    why: format!(
                        "the page reached {} at tick {tick}; the server's next split is {server_said}",
                        name(page)
                    ),
                });
            }
        }
    }

    /// After a `ran`: every split of the server's at or before the claimed tick must have been
    /// reported by then (a page sends a tick's splits before the `ran` that covers it).
    fn check_reported(&mut self) {
        if self.desync.is_none() {
            if let (Some(claimed), Some(&(c, t))) = (self.claimed, self.splits.get(self.reported)) {
                if t <= claimed {
                    let hash = self.split_hashes[self.reported];
                    let name = crate::realtime::split_name(c);
                    self.desync = Some(Desync {
                        tick: t,
                        expected: Some(hash),
                        found: 0,
                        why: format!(
                            "the server's run reached {name} at tick {t}; the page ran to tick {claimed} without saying so"
                        ),
                    });
                }
            }
        }
    }

    /// Whether the page has reported the finish (the run is complete).
    pub fn finished(&self) -> bool {
        self.finish_tick.is_some() && self.reported == self.splits.len()
    }

    /// The replay so far (or whole): the recorder finished on the state re-simulated. `None`
    /// if it was taken already.
    pub fn replay(&mut self) -> Option<Vec<u8>> {
        let recorder = self.recorder.take()?;
        recorder.finish_simulation(&self.sim).ok()
    }
}

/// Notes the tick just run's splits: a checkpoint's first crossing, the finish.
fn observe(
    sim: &Simulation,
    splits: &mut Vec<(Option<u32>, u32)>,
    hashes: &mut Vec<u64>,
    finish_tick: &mut Option<u32>,
) {
    let state = sim.state();
    let tick = state.tick.0 - 1;
    let pogo = &state.pogos[0];
    if pogo.events.contains(Events::CHECKPOINT) {
        if let Some(i) = pogo.checkpoint {
            if !splits.iter().any(|s| s.0 == Some(i)) {
                splits.push((Some(i), tick));
                hashes.push(sim.state_hash());
            }
        }
    }
    if pogo.events.contains(Events::FINISH) {
        splits.push((None, tick));
        hashes.push(sim.state_hash());
        *finish_tick = Some(tick);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pogo_core::Buttons;
    use pogo_core::world::{Aabb, Checkpoint, Solid, WorldDesc};
    use pogo_core::{Fx, Vec3};

    /// A dash east: a checkpoint 5 m out, the finish at 12 m (about 2 s holding east).
    fn dash() -> Arc<World> {
        let m = Fx::from_int;
        let gate = |x: i32| {
            Aabb::new(
                Vec3::new(m(x), m(-1), m(-20)),
                Vec3::new(m(x + 2), m(30), m(20)),
            )
        };
        let desc = WorldDesc {
            name: "dash".into(),
            spawn: Vec3::ZERO,
            solids: vec![Solid {
                bounds: Aabb::new(
                    Vec3::new(m(-20), m(-1), m(-20)),
                    Vec3::new(m(60), m(0), m(20)),
                ),
                no_bounce: false,
            }],
            checkpoints: vec![Checkpoint {
                bounds: gate(5),
                spawn: Vec3::new(m(6), m(0), m(0)),
            }],
            finishes: vec![gate(12)],
            ..WorldDesc::default()
        };
        Arc::new(World::new(desc, &Tuning::default()).unwrap())
    }

    fn run() -> RacerRun {
        RacerRun::new(
            dash(),
            Tuning::default(),
            Some("ana".into()),
            "2026-12-03T12:00:00Z".into(),
            500,
            3600,
        )
        .unwrap()
    }

    const MS: u64 = 1_000_000;
    const EAST: Input = Input {
        steer_x: 127,
        steer_z: 0,
        buttons: Buttons::NONE,
    };

    /// The page's side, written independently of the driver: events `(ns, input)`; tick k
    /// uses the latest event with `ns · 60 ≤ k · 10⁹`. Steps a plain simulation tick by tick
    /// to the finish, and records it: the oracle for the room's recording. Returns the
    /// bytes, the splits `(checkpoint, tick, hash after)` and the ticks run.
    fn reference(events: &[(u64, Input)]) -> (Vec<u8>, Vec<(u32, u32, u64)>, u32) {
        let mut sim = Simulation::new(dash(), Tuning::default(), 1).unwrap();
        let header = Header::for_simulation(
            &sim,
            Some("ana".into()),
            Some("2026-12-03T12:00:00Z".into()),
        );
        let mut recorder = Recorder::new(Vec::new(), header).unwrap();
        let mut splits = Vec::new();
        for k in 0..3600u64 {
            let input = events
                .iter()
                .rev()
                .find(|(ns, _)| u128::from(*ns) * 60 <= u128::from(k) * 1_000_000_000)
                .map_or(Input::default(), |e| e.1);
            sim.step(&[input]);
            recorder.record(&[input], || sim.state_hash()).unwrap();
            let pogo = &sim.state().pogos[0];
            if pogo.events.contains(Events::CHECKPOINT)
                && !splits.iter().any(|s: &(u32, u32, u64)| s.0 == 0)
            {
                splits.push((0, k as u32, sim.state_hash()));
            }
            if pogo.events.contains(Events::FINISH) {
                splits.push((FINISH, k as u32, sim.state_hash()));
                break;
            }
        }
        let ticks = sim.state().tick.0;
        (recorder.finish_simulation(&sim).unwrap(), splits, ticks)
    }

    /// The page's stream for `events`: each input as filed, a `ran` every 6 ticks, each
    /// split the tick it happens, in the order a page sends them; with each message's game
    /// time (µs since GO), to time its arrival.
    fn stream(events: &[(u64, Input)]) -> Vec<(Stream, i64)> {
        let (_, splits, ticks) = reference(events);
        let mut out: Vec<(Stream, i64)> = Vec::new();
        let mut seq = 0;
        let mut next =
            |out: &mut Vec<(Stream, i64)>, make: &dyn Fn(u32) -> Stream, game_us: i64| {
                out.push((make(seq), game_us));
                seq += 1;
            };
        let mut e = 0;
        for k in 0..ticks {
            let tick_start_ns = u64::from(k) * 1_000_000_000 / 60;
            while e < events.len() && events[e].0 <= tick_start_ns {
                let (at_ns, input) = events[e];
                next(
                    &mut out,
                    &|seq| Stream::Input { seq, at_ns, input },
                    (at_ns / 1000) as i64,
                );
                e += 1;
            }
            let end_us = (i64::from(k) + 1) * 1_000_000 / 60;
            for &(checkpoint, tick, hash) in splits.iter().filter(|s| s.1 == k) {
                next(
                    &mut out,
                    &|seq| Stream::Split {
                        seq,
                        tick,
                        checkpoint,
                        hash,
                    },
                    end_us,
                );
            }
            if k % 6 == 5 && splits.last().is_none_or(|s| s.1 != k || s.0 != FINISH) {
                next(&mut out, &|seq| Stream::Ran { seq, tick: k }, end_us);
            }
        }
        out
    }

    /// Takes every message of `stream` arriving `delay_us` after its game time.
    fn play(run: &mut RacerRun, stream: &[(Stream, i64)], delay_us: i64) {
        for (message, game_us) in stream {
            assert!(
                matches!(run.take(message, game_us + delay_us), Ok(Taken::New { .. })),
                "{message:?}"
            );
        }
    }

    fn events() -> Vec<(u64, Input)> {
        vec![
            (0, EAST),
            (
                400 * MS,
                Input {
                    steer_x: 90,
                    ..EAST
                },
            ),
            (
                700 * MS + 5,
                Input {
                    buttons: Buttons::DIVE,
                    ..EAST
                },
            ),
            (900 * MS, EAST),
        ]
    }

    /// What every message reads (the run's scalars, the simulation's handles, the driver and
    /// the recorder's first two lines) lies in the run's first six cache lines, aligned to
    /// one, with what is set once a run after it.
    #[test]
    fn a_message_reads_the_first_six_lines() {
        use std::mem::{align_of, offset_of};
        assert_eq!(align_of::<RacerRun>(), 64);
        let recorder = offset_of!(RacerRun, recorder);
        assert!(
            recorder + 128 <= 6 * 64,
            "the recorder starts at {recorder}"
        );
        for hot in [
            offset_of!(RacerRun, next_seq),
            offset_of!(RacerRun, splits),
            offset_of!(RacerRun, sim),
            offset_of!(RacerRun, driver),
        ] {
            assert!(hot < recorder, "a field every message reads at {hot}");
        }
        for cold in [
            offset_of!(RacerRun, split_hashes),
            offset_of!(RacerRun, desync),
            offset_of!(RacerRun, realtime_note),
        ] {
            assert!(cold > recorder, "a field set once a run at {cold}");
        }
    }

    #[test]
    fn the_recording_is_the_reference_and_on_time_is_real_time() {
        let (expected, _, _) = reference(&events());
        let mut run = run();
        play(&mut run, &stream(&events()), 20_000);
        assert!(run.finished());
        assert_eq!(run.desync(), None);
        assert_eq!(run.realtime_note(), None);
        assert_eq!(run.replay().unwrap(), expected);
    }

    #[test]
    fn late_or_early_messages_are_noted_and_change_no_bytes() {
        let (expected, _, _) = reference(&events());
        let messages = stream(&events());
        // Slowed by 1.5×: the slack (500 ms) is passed about a second in.
        let mut slowed = run();
        for (message, game_us) in &messages {
            slowed.take(message, game_us * 3 / 2).unwrap();
        }
        let note = slowed.realtime_note().unwrap().to_string();
        assert!(
            note.contains("after its game time since GO (at most 0.5 s allowed)"),
            "{note}"
        );
        assert_eq!(slowed.replay().unwrap(), expected);
        // Everything at once, 0.9 s before the finish's game time: sooner than the game can
        // run (and within how far ahead a message may be at all).
        let last_us = messages.iter().map(|m| m.1).max().unwrap();
        let mut burst = run();
        for (message, _) in &messages {
            burst.take(message, last_us - 900_000).unwrap();
        }
        let note = burst.realtime_note().unwrap().to_string();
        assert!(
            note.starts_with("message 0 arrived"),
            "the first message is late: {note}"
        );
        assert_eq!(burst.replay().unwrap(), expected);
        // Played ahead: each message 200 ms before its game time.
        let mut ahead = run();
        for (message, game_us) in &messages {
            ahead.take(message, game_us - 200_000).unwrap();
        }
        let note = ahead.realtime_note().unwrap();
        assert!(
            note.ends_with("before its game time since GO: sooner than the game can run"),
            "{note}"
        );
        assert_eq!(ahead.replay().unwrap(), expected);
    }

    #[test]
    fn a_resend_is_ignored_a_gap_or_disorder_is_refused_and_changes_nothing() {
        let messages = stream(&events());
        let mut run = run();
        play(&mut run, &messages[..5], 0);
        let ticks = run.ticks();
        // Copies of messages taken (a resume resends from the last ack): ignored.
        for (message, game_us) in &messages[..5] {
            assert_eq!(run.take(message, *game_us), Ok(Taken::Again));
        }
        // A skipped message.
        let (skipped, at) = &messages[6];
        assert_eq!(
            run.take(skipped, *at),
            Err(Refused::Gap {
                expected: 5,
                found: 6
            })
        );
        // An input for a tick already run; a tick going backwards.
        let seq = 5;
        let back = Stream::Input {
            seq,
            at_ns: 0,
            input: EAST,
        };
        assert!(matches!(
            run.take(&back, 900_000),
            Err(Refused::OutOfOrder(_))
        ));
        let claimed = run.claimed.unwrap();
        let backwards = Stream::Ran {
            seq,
            tick: claimed - 1,
        };
        assert!(matches!(
            run.take(&backwards, 900_000),
            Err(Refused::OutOfOrder(_))
        ));
        // From the future: a tick 2 s ahead of the clock.
        let future = Stream::Ran { seq, tick: 300 };
        assert!(matches!(
            run.take(&future, 1_000_000),
            Err(Refused::FromTheFuture { .. })
        ));
        // Past the longest race.
        let long = Stream::Ran { seq, tick: 3600 };
        assert_eq!(
            run.take(&long, 100_000_000),
            Err(Refused::TooLong { ticks_max: 3600 })
        );
        // Nothing changed: the rest of the stream plays on to the same recording.
        assert_eq!((run.ticks(), run.acked()), (ticks, Some(4)));
        play(&mut run, &messages[5..], 0);
        assert_eq!(run.replay().unwrap(), reference(&events()).0);
        // Nothing follows the finish.
        let after = Stream::Ran {
            seq: messages.len() as u32,
            tick: 3000,
        };
        assert_eq!(run.take(&after, 60_000_000), Err(Refused::Over));
    }

    #[test]
    fn a_page_that_disagrees_at_a_split_is_desynced() {
        let mut messages = stream(&events());
        let split = messages
            .iter()
            .position(|(m, _)| matches!(m, Stream::Split { .. }))
            .unwrap();
        if let Stream::Split { hash, .. } = &mut messages[split].0 {
            *hash ^= 1;
        }
        let mut run = run();
        play(&mut run, &messages, 0);
        let desync = run.desync().unwrap();
        assert!(
            desync.why.contains("the page's state hash is"),
            "{}",
            desync.why
        );
        // A page that never reports its checkpoint, then runs past it.
        let mut silent: Vec<Stream> = stream(&events())
            .into_iter()
            .map(|m| m.0)
            .filter(|m| !matches!(m, Stream::Split { checkpoint: 0, .. }))
            .collect();
        for (i, m) in silent.iter_mut().enumerate() {
            match m {
                Stream::Input { seq, .. } | Stream::Ran { seq, .. } | Stream::Split { seq, .. } => {
                    *seq = i as u32
                }
            }
        }
        let mut run = self::run();
        for m in &silent {
            let _ = run.take(m, 60_000_000);
        }
        assert!(
            run.desync().unwrap().why.contains("without saying so"),
            "{:?}",
            run.desync()
        );
    }
}
