//! `track`: what players make. A level, as a player's file text or as an arbitrary
//! hostile geometry, through the publish gate ([`check_track`]); every track it accepts is
//! played by 1–4 pogos (the demo bot, random input, or both) for up to [`TICKS_MAX`] ticks.
//!
//! Two ways to a level, because they find different holes:
//! - **text** ([`Level::Text`]): libFuzzer's bytes are the file (seeded with `course.json`
//!   and small hand-made tracks): the parser's and the gate's refusals, numbers at the edges
//!   of the decimal grammar, lists at their limits;
//! - **structure** ([`Level::Geometry`]): a [`WorldDesc`] drawn piece by piece — boxes
//!   degenerate, zero-thick, huge or tiny, overlapping or piled up cell by cell; ramps with
//!   any normal; platforms with periods and speeds at the limits; zones at the strongest wind
//!   and gravity; checkpoints and the spawn inside solids — written out with `level_to_json`
//!   and checked as text like a player's file.
//!
//! Oracles:
//! - no panic and no overflow anywhere (fuzz builds keep debug assertions: every `Fx`
//!   in-range operation's proof is asserted);
//! - every platform of a track moves at most `PLATFORM_SPEED_MAX` in every tick, as simulated;
//! - a track that passes the gate passes it again as the file the server serves
//!   (`level_to_json` of it), with the same geometry hash;
//! - after every tick, for every pogo: each velocity component within ±`SPEED_MAX` (200 m/s);
//!   each coordinate within ±`POSITION_MAX`, and beyond `COORDINATE_MAX` (100 km) only in
//!   the `Respawn` state (it respawns before it moves again); see ARCHITECTURE.md, "Invariants";
//! - **the cost**: every pogo's tick, metered (`pogo_core::cost`), costs at most the track's
//!   [`Track::tick_cost_bound`], which is at most [`TRACK_TICK_COST_MAX`];
//! - **determinism**: the run is taken again from a snapshot (at a tick of the input's
//!   choosing, after a detour on other inputs), unmetered, and gives the same state hash at
//!   every tick: the meter changes nothing, and a restore continues bit for bit.

use std::sync::Arc;

use arbitrary::Arbitrary;
use pogo_core::bot::Bot;
use pogo_core::cost::tick_cost_bound;
use pogo_core::world::{
    Aabb, COORDINATE_MAX, Checkpoint, PERIOD_MAX, PLATFORM_SPEED_MAX, Path, Platform, Ramp, Solid,
    World, WorldDesc, Zone,
};
use pogo_core::{Fx, Input as TickInput, POSITION_MAX, SPEED_MAX, Simulation, State, Tuning, Vec3};
use pogo_replay::level_to_json;
use pogo_replay::track::{TRACK_EXTENT_M, TRACK_TICK_COST_MAX, Track, check_track};

use crate::InputIn;
use crate::num::{Coord, Scalar, within};
use crate::tuning::{self, Override};

/// Most ticks one input runs.
pub const TICKS_MAX: usize = 400;
/// Most pogos on a track at once.
pub const PLAYERS_MAX: usize = 4;
/// Most elements drawn per list of a structured level (before piles).
const LIST_MAX: usize = 12;
/// Most boxes one pile adds.
const PILE_MAX: usize = 600;
const OVERRIDES_MAX: usize = 2;
/// Structured geometry lies mostly within ±40 m of the origin (so the pogos meet it), with
/// `Far` coordinates anywhere within a track's extent and a little beyond.
const NEAR: Fx = Fx::from_int(40);
const FAR: Fx = Fx::from_int(TRACK_EXTENT_M + 8);

/// One fuzz input: how the track is played, then the level (last, so that in text mode the
/// rest of libFuzzer's bytes are the file).
#[derive(Arbitrary, Clone, Debug)]
pub struct Input {
    pub run: Run,
    pub level: Level,
}

/// How the track is played: fixed-size, so the text after it is the file as it is.
#[derive(Arbitrary, Clone, Copy, Debug)]
pub struct Run {
    /// 1 + `players % 4` pogos.
    pub players: u8,
    /// Per player: driven by the demo bot (bit set) or by `segments`.
    pub bots: u8,
    /// Length in ticks, modulo `TICKS_MAX + 1`.
    pub ticks: u16,
    /// The tick of the snapshot, modulo the run's length + 1.
    pub snapshot_at: u16,
    /// Ticks run on other inputs between snapshot and restore, modulo 32.
    pub detour: u8,
    pub tuning: [Option<Override>; OVERRIDES_MAX],
    /// Inputs held for `1 + hold % 32` ticks each, played in a loop.
    pub segments: [Segment; 6],
}

#[derive(Arbitrary, Clone, Copy, Debug)]
pub struct Segment {
    pub hold: u8,
    pub players: [InputIn; PLAYERS_MAX],
}

#[derive(Arbitrary, Clone, Debug)]
pub enum Level {
    /// A player's file, as text.
    Text(String),
    /// A hostile geometry, written out as a file.
    Geometry(Box<GeometryIn>),
}

/// A coordinate: near the action, or anywhere a track (and a little beyond) reaches, or
/// any bits at all.
#[derive(Arbitrary, Clone, Copy, Debug)]
pub enum Place {
    Near(Coord),
    Far(Coord),
    Any(Scalar),
}

impl Place {
    fn fx(self) -> Fx {
        match self {
            Place::Near(c) => c.within(NEAR),
            Place::Far(c) => c.within(FAR),
            Place::Any(s) => s.fx(),
        }
    }

    fn vec(v: [Place; 3]) -> Vec3 {
        Vec3::new(v[0].fx(), v[1].fx(), v[2].fx())
    }
}

/// A size: none at all (zero-thick), tiny (a few raw units), ordinary, huge or any bits.
#[derive(Arbitrary, Clone, Copy, Debug)]
pub enum Size {
    Zero,
    Tiny(u8),
    Metres(Coord),
    Huge(Coord),
    Any(Scalar),
}

impl Size {
    fn fx(self) -> Fx {
        match self {
            Size::Zero => Fx::ZERO,
            Size::Tiny(n) => Fx::from_bits(i64::from(n)),
            Size::Metres(c) => c.within_positive(Fx::from_int(16)),
            Size::Huge(c) => c.within_positive(Fx::from_int(2 * TRACK_EXTENT_M)),
            Size::Any(s) => s.fx(),
        }
    }
}

#[derive(Arbitrary, Clone, Copy, Debug)]
pub struct BoxIn {
    pub min: [Place; 3],
    pub size: [Size; 3],
}

impl BoxIn {
    fn aabb(self) -> Aabb {
        let min = Place::vec(self.min);
        let size = Vec3::new(self.size[0].fx(), self.size[1].fx(), self.size[2].fx());
        Aabb::new(min, min + size)
    }
}

#[derive(Arbitrary, Clone, Copy, Debug)]
pub struct RampIn {
    /// Any normal: zero, tiny, huge, odd directions.
    pub normal: [Scalar; 3],
    pub point: [Place; 3],
    pub bounds: Option<BoxIn>,
    pub no_bounce: bool,
}

#[derive(Arbitrary, Clone, Copy, Debug)]
pub struct PlatformIn {
    pub from: [Place; 3],
    pub size: [Size; 3],
    pub travel: [Coord; 3],
    pub period: PeriodIn,
    /// Moves at exactly the speed limit (the travel scaled to it), or as drawn.
    pub at_speed_limit: bool,
    pub no_bounce: bool,
}

#[derive(Arbitrary, Clone, Copy, Debug)]
pub enum PeriodIn {
    /// One raw unit: the shortest period.
    Shortest,
    /// `PERIOD_MAX`.
    Longest,
    /// `n / 1000` s.
    Millis(u16),
    Any(Scalar),
}

impl PeriodIn {
    fn fx(self) -> Fx {
        match self {
            PeriodIn::Shortest => Fx::DELTA,
            PeriodIn::Longest => PERIOD_MAX,
            PeriodIn::Millis(n) => Fx::from_ratio(i64::from(n), 1000),
            PeriodIn::Any(s) => s.fx(),
        }
    }
}

#[derive(Arbitrary, Clone, Copy, Debug)]
pub struct ZoneIn {
    pub bounds: BoxIn,
    /// Moved so that its centre is the spawn point (where the pogos are).
    pub at_spawn: bool,
    /// 0…10 in steps of 10/255, or any bits.
    pub gravity_scale: Result<u8, Scalar>,
    /// ±100 m/s² per axis (`Ok`), or any bits.
    pub wind: Result<[Coord; 3], [Scalar; 3]>,
}

/// Boxes piled up: `count` copies of `base`, each moved by `step` from the last, wrapping
/// into a new row every `row` copies (a floor of tiles, a tower, a stack in one place).
#[derive(Arbitrary, Clone, Copy, Debug)]
pub struct PileIn {
    pub base: BoxIn,
    pub count: u16,
    pub step: [Coord; 3],
    pub row: u8,
    pub row_step: [Coord; 3],
    /// Moved so that the first box's centre is the spawn point (the pogos start in the pile).
    pub at_spawn: bool,
}

/// Where a spawn point goes.
#[derive(Arbitrary, Clone, Copy, Debug)]
pub enum SpawnIn {
    At([Place; 3]),
    /// Inside solid `i` (modulo their count), at its centre.
    InSolid(u8),
    /// On top of solid `i`.
    OnSolid(u8),
}

#[derive(Arbitrary, Clone, Debug)]
pub struct GeometryIn {
    pub spawn: SpawnIn,
    pub ground: bool,
    pub solids: Vec<(BoxIn, bool)>,
    pub piles: Vec<PileIn>,
    pub ramps: Vec<RampIn>,
    pub platforms: Vec<PlatformIn>,
    pub zones: Vec<ZoneIn>,
    pub checkpoints: Vec<(BoxIn, SpawnIn)>,
    pub finishes: Vec<BoxIn>,
    pub kills: Vec<BoxIn>,
    /// The bot's waypoints: the checkpoints' spawns and the finishes' centres, in order.
    pub bot_route: bool,
}

impl GeometryIn {
    fn desc(&self) -> WorldDesc {
        let mut solids: Vec<Solid> = self
            .solids
            .iter()
            .take(LIST_MAX)
            .map(|&(b, no_bounce)| Solid {
                bounds: b.aabb(),
                no_bounce,
            })
            .collect();
        if self.ground {
            let h = Fx::from_int(60);
            solids.push(Solid {
                bounds: Aabb::new(
                    Vec3::new(-h, Fx::from_int(-1), -h),
                    Vec3::new(h, Fx::ZERO, h),
                ),
                no_bounce: false,
            });
        }
        // The spawn from the solids drawn one by one; then the piles, maybe around it.
        let start = spawn(self.spawn, &solids);
        for pile in self.piles.iter().take(3) {
            pile.extend(&mut solids, start);
        }
        let spawn_at = |s: SpawnIn| spawn(s, &solids);
        let ramps = self
            .ramps
            .iter()
            .take(LIST_MAX)
            .map(|r| Ramp {
                normal: Scalar::vec(r.normal),
                point: Place::vec(r.point),
                bounds: r.bounds.map(BoxIn::aabb),
                no_bounce: r.no_bounce,
            })
            .collect();
        let platforms = self.platforms.iter().take(LIST_MAX).map(platform).collect();
        let zones = self
            .zones
            .iter()
            .take(LIST_MAX)
            .map(|z| zone(z, start))
            .collect();
        let checkpoints: Vec<Checkpoint> = self
            .checkpoints
            .iter()
            .take(LIST_MAX)
            .map(|&(b, s)| Checkpoint {
                bounds: b.aabb(),
                spawn: spawn_at(s),
            })
            .collect();
        let finishes: Vec<Aabb> = self
            .finishes
            .iter()
            .take(LIST_MAX)
            .map(|b| b.aabb())
            .collect();
        let bot_path = if self.bot_route {
            checkpoints
                .iter()
                .map(|c| c.spawn)
                .chain(finishes.iter().map(centre))
                .collect()
        } else {
            Vec::new()
        };
        WorldDesc {
            name: "fuzz".into(),
            spawn: start,
            solids,
            ramps,
            platforms,
            zones,
            checkpoints,
            finishes,
            kills: self.kills.iter().take(LIST_MAX).map(|b| b.aabb()).collect(),
            bot_path,
        }
    }
}

impl PileIn {
    fn extend(&self, solids: &mut Vec<Solid>, spawn: Vec3) {
        let mut first = self.base.aabb();
        if self.at_spawn {
            first = first.translated(spawn - centre(&first));
        }
        let step = Coord::vec(self.step, Fx::from_int(4));
        let row_step = Coord::vec(self.row_step, Fx::from_int(4));
        let row = usize::from(self.row).max(1);
        for k in 0..usize::from(self.count) % (PILE_MAX + 1) {
            let (i, j) = (k % row, k / row);
            let at = step * Fx::from_int(i as i32) + row_step * Fx::from_int(j as i32);
            solids.push(Solid {
                bounds: first.translated(at),
                no_bounce: false,
            });
        }
    }
}

fn centre(b: &Aabb) -> Vec3 {
    Vec3::new(
        b.min.x + (b.max.x - b.min.x) / Fx::from_int(2),
        b.min.y + (b.max.y - b.min.y) / Fx::from_int(2),
        b.min.z + (b.max.z - b.min.z) / Fx::from_int(2),
    )
}

fn spawn(s: SpawnIn, solids: &[Solid]) -> Vec3 {
    let solid = |i: u8| solids.get(usize::from(i) % solids.len().max(1));
    match s {
        SpawnIn::At(p) => Place::vec(p),
        SpawnIn::InSolid(i) => solid(i).map_or(Vec3::ZERO, |s| centre(&s.bounds)),
        SpawnIn::OnSolid(i) => solid(i).map_or(Vec3::ZERO, |s| {
            let c = centre(&s.bounds);
            Vec3::new(c.x, s.bounds.max.y, c.z)
        }),
    }
}

fn platform(p: &PlatformIn) -> Platform {
    let from = Place::vec(p.from);
    let period = p.period.fx();
    let travel = Coord::vec(p.travel, NEAR);
    let travel = if p.at_speed_limit {
        // 2·|travel| = PLATFORM_SPEED_MAX · period: as fast as `World::new` allows (or a
        // hair over, by rounding, which it refuses).
        match travel.normalize() {
            Some(unit) => unit * (PLATFORM_SPEED_MAX * period / Fx::from_int(2)),
            None => travel,
        }
    } else {
        travel
    };
    Platform {
        size: Vec3::new(p.size[0].fx(), p.size[1].fx(), p.size[2].fx()),
        path: Path::PingPong {
            from,
            to: from + travel,
            period,
        },
        no_bounce: p.no_bounce,
    }
}

fn zone(z: &ZoneIn, spawn: Vec3) -> Zone {
    let mut bounds = z.bounds.aabb();
    if z.at_spawn {
        bounds = bounds.translated(spawn - centre(&bounds));
    }
    Zone {
        bounds,
        gravity_scale: match z.gravity_scale {
            Ok(n) => Fx::from_ratio(i64::from(n) * 10, 255),
            Err(s) => s.fx(),
        },
        wind: match z.wind {
            Ok(w) => Coord::vec(w, Fx::from_int(100)),
            Err(s) => Scalar::vec(s),
        },
    }
}

impl Input {
    /// The level's file text: the fuzzer's, or the structured level written out.
    pub fn text(&self) -> String {
        match &self.level {
            Level::Text(text) => text.clone(),
            Level::Geometry(g) => level_to_json(&g.desc()),
        }
    }
}

/// Runs the oracles on `input`; panics naming the first that fails. Returns `false` when the
/// gate refuses the track or the tuning is invalid (skipped, not a failure).
pub fn check(input: &Input) -> bool {
    run(input).is_ok()
}

/// What one input came to: a track played, or why not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The tuning overrides make no valid tuning.
    InvalidTuning,
    /// The gate refused the level: the refusal's field.
    Refused(String),
}

/// A track played: its bound and the most any pogo's tick cost on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    pub bound: u64,
    pub cost_max: u64,
    pub ticks: usize,
    pub players: usize,
}

/// [`check`], saying what became of the input (for the corpus statistics of
/// `checks/tests/track_seeds.rs`).
pub fn run(input: &Input) -> Result<Played, Outcome> {
    let overrides: Vec<Override> = input.run.tuning.iter().flatten().copied().collect();
    let Some(tuning) = tuning::build(&overrides, OVERRIDES_MAX) else {
        return Err(Outcome::InvalidTuning);
    };
    let track =
        check_track(&input.text(), &tuning).map_err(|refusal| Outcome::Refused(refusal.field))?;
    check_served(&track, &tuning);
    Ok(play(&input.run, &track, &tuning))
}

/// The file the server serves (the track renamed by its geometry) passes the gate again, as
/// the same track.
fn check_served(track: &Track, tuning: &Tuning) {
    let served = check_track(&level_to_json(&track.desc), tuning)
        .unwrap_or_else(|e| panic!("the served file of an accepted track is refused: {e}"));
    assert_eq!(
        served.geometry_hash, track.geometry_hash,
        "the served file has another geometry hash"
    );
    assert_eq!(served.desc, track.desc, "the served file is another level");
    assert_eq!(served.tick_cost_bound, track.tick_cost_bound);
}

/// Plays `run` on `track`: the metered run with every tick's invariants, then the same run
/// again from a snapshot, unmetered, hash for hash.
fn play(run: &Run, track: &Track, tuning: &Tuning) -> Played {
    let world = Arc::new(World::new(track.desc.clone(), tuning).expect("the gate built it"));
    let bound = track.tick_cost_bound;
    assert!(
        bound <= TRACK_TICK_COST_MAX,
        "an accepted track's bound {bound} is over TRACK_TICK_COST_MAX"
    );
    assert_eq!(bound, tick_cost_bound(&world, tuning).units);
    let players = 1 + usize::from(run.players) % PLAYERS_MAX;
    let ticks = usize::from(run.ticks) % (TICKS_MAX + 1);
    let mut sim = Simulation::new(world.clone(), tuning.clone(), players)
        .expect("a tuning's own world and 1–4 players");
    let mut driver = Driver::new(run, players);
    let mut inputs = Vec::with_capacity(ticks);
    let mut hashes = vec![sim.state_hash()];
    let mut costs = vec![0u64; players];
    let mut cost_max = 0;
    for tick in 0..ticks {
        let input = driver.inputs(tick, &sim);
        sim.step_metered(&input, &mut costs);
        for (i, &cost) in costs.iter().enumerate() {
            cost_max = cost_max.max(cost);
            assert!(
                cost <= bound,
                "tick {tick}, pogo {i}: the tick cost {cost} units, over the track's bound \
                 {bound}: {:#?}",
                sim.state().pogos[i]
            );
        }
        check_bounds(&sim, tick);
        check_platforms(&world, tick);
        hashes.push(sim.state_hash());
        inputs.push(input);
    }

    // Again from tick k, after a detour, without the meter.
    let k = usize::from(run.snapshot_at) % (ticks + 1);
    let mut again = Simulation::new(world, tuning.clone(), players).expect("as before");
    for input in &inputs[..k] {
        again.step(input);
    }
    assert_eq!(again.state_hash(), hashes[k], "unmetered, tick {k} differs");
    let snapshot = again.snapshot();
    for t in 0..usize::from(run.detour % 32) {
        let other: Vec<TickInput> = inputs
            .get(k + t)
            .or(inputs.last())
            .map(|i| i.iter().map(|p| mirrored(*p)).collect())
            .unwrap_or_default();
        again.step(&other);
    }
    again.restore(&snapshot);
    for (tick, input) in inputs.iter().enumerate().skip(k) {
        again.step(input);
        assert_eq!(
            again.state_hash(),
            hashes[tick + 1],
            "after a restore at tick {k}, unmetered: tick {tick} differs"
        );
    }
    Played {
        bound,
        cost_max,
        ticks,
        players,
    }
}

/// Every platform of a track moves at most `PLATFORM_SPEED_MAX` during the tick, as
/// simulated (the gate's check of the period rounded to whole ticks).
fn check_platforms(world: &World, tick: usize) {
    let rate = Fx::from_int(world.tick_rate() as i32);
    // The step's length in m/s, with a micrometre a tick for the rounding of positions.
    let limit = PLATFORM_SPEED_MAX + Fx::lit("0.000001") * rate;
    for i in 0..world.platform_count() {
        let moved = world.platform_displacement(i, pogo_core::Ticks(tick as u32));
        let speed = moved.length() * rate;
        assert!(
            speed <= limit,
            "tick {tick}: platforms[{i}] moves at {speed} m/s on an accepted track: {:?}",
            world.platform(i)
        );
    }
}

/// ARCHITECTURE.md's invariants of the state a tick leaves.
fn check_bounds(sim: &Simulation, tick: usize) {
    for (i, p) in sim.state().pogos.iter().enumerate() {
        assert!(
            within(p.velocity, SPEED_MAX),
            "tick {tick}, pogo {i}: velocity beyond ±SPEED_MAX: {p:#?}"
        );
        assert!(
            within(p.position, POSITION_MAX),
            "tick {tick}, pogo {i}: position beyond ±POSITION_MAX: {p:#?}"
        );
        if !within(p.position, COORDINATE_MAX) {
            assert_eq!(
                p.state,
                State::Respawn,
                "tick {tick}, pogo {i}: beyond ±COORDINATE_MAX but not respawning: {p:#?}"
            );
        }
    }
}

/// Other inputs for the detour: the stick mirrored, the buttons toggled.
fn mirrored(i: TickInput) -> TickInput {
    TickInput {
        steer_x: i.steer_x.saturating_neg(),
        steer_z: i.steer_z.saturating_neg(),
        buttons: pogo_core::Buttons(i.buttons.0 ^ pogo_core::Buttons::ALL.0),
    }
}

/// Each player's input: the demo bot's, or the segments'.
struct Driver {
    bots: Vec<Option<Bot>>,
    segments: Vec<(usize, Segment)>,
    length: usize,
}

impl Driver {
    fn new(run: &Run, players: usize) -> Driver {
        let mut start = 0;
        let segments = run
            .segments
            .iter()
            .map(|s| {
                let at = start;
                start += 1 + usize::from(s.hold % 32);
                (at, *s)
            })
            .collect();
        Driver {
            bots: (0..players)
                .map(|i| (run.bots >> i & 1 == 1).then(Bot::new))
                .collect(),
            segments,
            length: start,
        }
    }

    fn inputs(&mut self, tick: usize, sim: &Simulation) -> Vec<TickInput> {
        let t = tick % self.length;
        let segment = self
            .segments
            .iter()
            .rev()
            .find(|(at, _)| *at <= t)
            .map(|(_, s)| *s)
            .expect("the first segment starts at 0");
        self.bots
            .iter_mut()
            .enumerate()
            .map(|(i, bot)| match bot {
                Some(bot) => bot.input(sim.world(), sim.tuning(), &sim.state().pogos[i]),
                None => segment.players[i].masked(),
            })
            .collect()
    }
}
