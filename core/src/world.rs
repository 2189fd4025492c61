//! The world: static boxes, ramps, moving platforms, zones and trigger volumes.
//!
//! A level is described by a [`WorldDesc`] (plain data: what level files hold, in metres and
//! seconds) and turned into a [`World`] once, for a tuning's tick rate: validated against the
//! limits below, platform periods turned into ticks, the broad phase built. The world never
//! changes while a run is simulated; moving platforms are pure functions of the tick.
//!
//! Axes: x east, y up, z south, metres. All volumes are axis-aligned boxes (`Aabb`), `min`
//! ≤ `max` on every axis.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::broad_phase::Grid;
use crate::fx::Fx;
use crate::hash::Encoder;
pub use crate::shape::{Aabb, Plane};
use crate::sweep::CONTACT_SLOP;
use crate::tick::Ticks;
use crate::tuning::{Tuning, seconds_to_ticks};
use crate::vec3::Vec3;
use crate::wide::mul_u64_wide;

/// Largest |coordinate| of anything in a level (m). Positions stay far inside `Fx`'s range, so
/// differences of two positions never saturate; a pogo beyond it respawns.
pub const COORDINATE_MAX: Fx = Fx::from_int(100_000);
/// Most static boxes in a level.
pub const BOXES_MAX: usize = 1 << 20;
/// Most zones, checkpoints, finish and kill volumes (each).
pub const FEATURES_MAX: usize = 1 << 16;
/// Most ramps and most platforms (each). Every sweep of every tick tests each one's bounds,
/// so this bounds the tick's work as `CELL_BOXES_MAX` does for boxes.
pub const SURFACES_MAX: usize = 64;
/// Most boxes (solids, or trigger volumes) overlapping any one cell of a level's grid. A
/// query of the tick visits a bounded number of cells (its region is the capsule's path over
/// one tick), so this bounds the boxes it reports: a level cannot make one tick expensive by
/// piling boxes in one place. The densest built-in level has 4 (`sprawl`); a floor of
/// half-metre tiles has 16 per 2 m cell.
pub const CELL_BOXES_MAX: u32 = 32;
/// Most boxes (solids, or volumes) too large for the grid's cells (spanning more than 64):
/// every query tests each of them. `course` has 16 such solids.
pub const LARGE_BOXES_MAX: u32 = 64;
/// Longest level name (characters); names appear in one-line CLI and verifier output.
pub const NAME_CHARS_MAX: usize = 64;
/// Most bot waypoints.
pub const WAYPOINTS_MAX: usize = 1 << 12;
/// Largest platform speed (m/s): bounds the pogo's speed when it rides or launches off one.
pub const PLATFORM_SPEED_MAX: Fx = Fx::from_int(50);
/// Largest wind acceleration on any axis (m/s²).
pub const WIND_MAX: Fx = Fx::from_int(100);
/// Largest zone gravity scale (ten times gravity; the smallest is 0): with [`WIND_MAX`], it
/// bounds the acceleration a zone can add, and so the speeds the tick's bounds assume.
pub const ZONE_GRAVITY_SCALE_MAX: Fx = Fx::from_int(10);
/// Longest platform period (s).
pub const PERIOD_MAX: Fx = Fx::from_int(3600);

/// A static solid box.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Solid {
    /// The box (m; x east, y up, z south).
    pub bounds: Aabb,
    /// A tip contact with this surface never bounces (nor ricochets).
    pub no_bounce: bool,
}

/// A ramp whose unit normal's y is at most this is a wall, not ground, to
/// [`World::ground_below`] (about 87° from level).
pub const GROUND_RAMP_NY_MIN: Fx = Fx::lit("0.05");

/// A ramp: a one-sided plane surface, solid on the side opposite its normal, that only exists
/// where the contact point lies inside `bounds`. The pogo collides with it only when moving
/// toward its front face; put a box under a ramp if it must also be solid from below or
/// from the side.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Ramp {
    /// Unit normal of the surface, pointing out of the solid side (normalised on load).
    pub normal: Vec3,
    /// A point on the surface.
    pub point: Vec3,
    /// Where the surface exists; `None` for an unbounded plane.
    pub bounds: Option<Aabb>,
    /// A tip contact with this surface never bounces (nor ricochets).
    pub no_bounce: bool,
}

/// A moving platform: a box whose `min` corner follows `path`, a pure function of the tick.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Platform {
    /// Extent of the box from its `min` corner (m, each > 0).
    pub size: Vec3,
    /// How the `min` corner moves.
    pub path: Path,
    /// A tip contact with this platform never bounces (nor ricochets).
    pub no_bounce: bool,
}

/// How a platform moves.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Path {
    /// Back and forth between `from` and `to` at constant speed: from → to in the first half
    /// of `period` seconds, back in the second half. Starts at `from` at tick 0.
    PingPong {
        /// The `min` corner at tick 0 and at every whole period (m).
        from: Vec3,
        /// The `min` corner at every half period (m).
        to: Vec3,
        /// Seconds for the round trip, in `(0, PERIOD_MAX]`; the speed
        /// `2 · |to − from| / period` is at most [`PLATFORM_SPEED_MAX`].
        period: Fx,
    },
}

/// A volume that changes the forces on a pogo whose body centre is inside it. Overlapping zones
/// combine: gravity scales multiply, winds add.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Zone {
    /// The volume (m).
    pub bounds: Aabb,
    /// Multiplies gravity (1 = unchanged, 0.5 = low gravity).
    pub gravity_scale: Fx,
    /// A constant acceleration (m/s²), e.g. a sideways push.
    pub wind: Vec3,
}

/// A volume that sets the respawn point when the pogo's body centre enters it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Checkpoint {
    /// The volume (m).
    pub bounds: Aabb,
    /// Where the pogo's tip respawns.
    pub spawn: Vec3,
}

/// A level as plain data (what a level file holds).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct WorldDesc {
    /// The level's name: 1 to [`NAME_CHARS_MAX`] characters, no control characters. Part of
    /// the content hash.
    pub name: String,
    /// Where the pogo's tip starts (and respawns before any checkpoint).
    pub spawn: Vec3,
    /// Static boxes (at most [`BOXES_MAX`]); [`SurfaceId::Solid`] indexes this list.
    pub solids: Vec<Solid>,
    /// One-sided planes (at most [`SURFACES_MAX`]); [`SurfaceId::Ramp`] indexes this list.
    pub ramps: Vec<Ramp>,
    /// Moving boxes (at most [`SURFACES_MAX`]); [`SurfaceId::Platform`] indexes this list.
    pub platforms: Vec<Platform>,
    /// Gravity and wind volumes (at most [`FEATURES_MAX`]).
    pub zones: Vec<Zone>,
    /// Respawn volumes (at most [`FEATURES_MAX`]); [`crate::Pogo::checkpoint`] indexes this
    /// list.
    pub checkpoints: Vec<Checkpoint>,
    /// Volumes that finish the run when the body centre enters one (at most [`FEATURES_MAX`]).
    pub finishes: Vec<Aabb>,
    /// Volumes that kill the pogo (it respawns) when the body centre enters one (at most
    /// [`FEATURES_MAX`]).
    pub kills: Vec<Aabb>,
    /// Waypoints for the demo bot, in order (the tip's targets); not part of the physics.
    pub bot_path: Vec<Vec3>,
}

impl WorldDesc {
    /// A stable 64-bit content hash: xxh3-64 over a version tag and every field in declaration
    /// order, each coordinate as its 64 raw bits little-endian, lists prefixed by their length.
    /// The name and the bot path are included (a renamed level is a different level).
    pub fn content_hash(&self) -> u64 {
        let mut e = Encoder::new(b"pogo-level/1");
        e.bytes(self.name.as_bytes());
        e.vec3(self.spawn);
        e.len(self.solids.len());
        for s in &self.solids {
            s.bounds.encode(&mut e);
            e.bool(s.no_bounce);
        }
        e.len(self.ramps.len());
        for r in &self.ramps {
            e.vec3(r.normal);
            e.vec3(r.point);
            e.bool(r.bounds.is_some());
            if let Some(b) = &r.bounds {
                b.encode(&mut e);
            }
            e.bool(r.no_bounce);
        }
        e.len(self.platforms.len());
        for p in &self.platforms {
            e.vec3(p.size);
            match p.path {
                Path::PingPong { from, to, period } => {
                    e.u8(0);
                    e.vec3(from);
                    e.vec3(to);
                    e.fx(period);
                }
            }
            e.bool(p.no_bounce);
        }
        e.len(self.zones.len());
        for z in &self.zones {
            z.bounds.encode(&mut e);
            e.fx(z.gravity_scale);
            e.vec3(z.wind);
        }
        e.len(self.checkpoints.len());
        for c in &self.checkpoints {
            c.bounds.encode(&mut e);
            e.vec3(c.spawn);
        }
        for list in [&self.finishes, &self.kills] {
            e.len(list.len());
            for b in list.iter() {
                b.encode(&mut e);
            }
        }
        e.len(self.bot_path.len());
        for p in &self.bot_path {
            e.vec3(*p);
        }
        e.finish()
    }

    /// Checks the limits and the well-formedness of every element; the error names the
    /// element (`solids[3].bounds`) and what is wrong.
    pub fn validate(&self) -> Result<(), WorldError> {
        check_counts(self)?;
        let printable = self.name.chars().all(|c| !c.is_control());
        if self.name.is_empty() || self.name.chars().count() > NAME_CHARS_MAX || !printable {
            return Err(WorldError::Invalid {
                list: "name",
                index: None,
                field: "",
                problem: "must be 1 to 64 printable characters",
            });
        }
        check_point("spawn", None, self.spawn)?;
        for (i, s) in self.solids.iter().enumerate() {
            check_aabb("solids", i, "bounds", &s.bounds)?;
        }
        for (i, r) in self.ramps.iter().enumerate() {
            if r.normal.normalize().is_none() {
                return Err(WorldError::at("ramps", i, "normal", "is the zero vector"));
            }
            check_point("ramps", Some((i, "point")), r.point)?;
            check_point("ramps", Some((i, "normal")), r.normal)?;
            if let Some(b) = &r.bounds {
                check_aabb("ramps", i, "bounds", b)?;
            }
        }
        for (i, p) in self.platforms.iter().enumerate() {
            check_point("platforms", Some((i, "size")), p.size)?;
            if p.size.x <= Fx::ZERO || p.size.y <= Fx::ZERO || p.size.z <= Fx::ZERO {
                return Err(WorldError::at(
                    "platforms",
                    i,
                    "size",
                    "must be positive on every axis",
                ));
            }
            let Path::PingPong { from, to, period } = p.path;
            check_point("platforms", Some((i, "path.from")), from)?;
            check_point("platforms", Some((i, "path.to")), to)?;
            for (field, corner) in [("path.from", from), ("path.to", to)] {
                if check_point("platforms", None, corner + p.size).is_err() {
                    return Err(WorldError::at(
                        "platforms",
                        i,
                        field,
                        "plus size reaches beyond ±100000 m",
                    ));
                }
            }
            if period <= Fx::ZERO || period > PERIOD_MAX {
                return Err(WorldError::at(
                    "platforms",
                    i,
                    "path.period",
                    "must be within (0, 3600] s",
                ));
            }
            // Average speed 2·|to − from| / period must stay below the platform speed limit.
            if (to - from).length() * Fx::from_int(2) > PLATFORM_SPEED_MAX * period {
                return Err(WorldError::at(
                    "platforms",
                    i,
                    "path",
                    "moves faster than 50 m/s",
                ));
            }
        }
        for (i, z) in self.zones.iter().enumerate() {
            check_aabb("zones", i, "bounds", &z.bounds)?;
            if z.gravity_scale < Fx::ZERO || z.gravity_scale > ZONE_GRAVITY_SCALE_MAX {
                return Err(WorldError::at(
                    "zones",
                    i,
                    "gravity_scale",
                    "must be within 0..=10",
                ));
            }
            for c in [z.wind.x, z.wind.y, z.wind.z] {
                if c.abs() > WIND_MAX {
                    return Err(WorldError::at(
                        "zones",
                        i,
                        "wind",
                        "must be within ±100 m/s² per axis",
                    ));
                }
            }
        }
        for (i, c) in self.checkpoints.iter().enumerate() {
            check_aabb("checkpoints", i, "bounds", &c.bounds)?;
            check_point("checkpoints", Some((i, "spawn")), c.spawn)?;
        }
        for (i, b) in self.finishes.iter().enumerate() {
            check_aabb("finishes", i, "bounds", b)?;
        }
        for (i, b) in self.kills.iter().enumerate() {
            check_aabb("kills", i, "bounds", b)?;
        }
        for (i, p) in self.bot_path.iter().enumerate() {
            check_point("bot_path", Some((i, "")), *p)?;
        }
        Ok(())
    }
}

fn check_counts(desc: &WorldDesc) -> Result<(), WorldError> {
    let counts = [
        ("solids", desc.solids.len(), BOXES_MAX),
        ("ramps", desc.ramps.len(), SURFACES_MAX),
        ("platforms", desc.platforms.len(), SURFACES_MAX),
        ("zones", desc.zones.len(), FEATURES_MAX),
        ("checkpoints", desc.checkpoints.len(), FEATURES_MAX),
        ("finishes", desc.finishes.len(), FEATURES_MAX),
        ("kills", desc.kills.len(), FEATURES_MAX),
        ("bot_path", desc.bot_path.len(), WAYPOINTS_MAX),
    ];
    for (list, found, max) in counts {
        if found > max {
            return Err(WorldError::TooMany { list, max, found });
        }
    }
    Ok(())
}

/// The density limits of one grid (see [`CELL_BOXES_MAX`], [`LARGE_BOXES_MAX`]).
fn check_density(list: &'static str, grid: &Grid) -> Result<(), WorldError> {
    let (densest, large) = grid.density();
    if densest > CELL_BOXES_MAX {
        return Err(WorldError::TooDense {
            list,
            what: "boxes overlap one grid cell",
            max: CELL_BOXES_MAX,
            found: densest,
        });
    }
    if large > LARGE_BOXES_MAX {
        return Err(WorldError::TooDense {
            list,
            what: "boxes are too large for the grid's cells",
            max: LARGE_BOXES_MAX,
            found: large,
        });
    }
    Ok(())
}

fn check_point(
    list: &'static str,
    at: Option<(usize, &'static str)>,
    p: Vec3,
) -> Result<(), WorldError> {
    for c in [p.x, p.y, p.z] {
        if c.abs() > COORDINATE_MAX {
            let (index, field) = at.map_or((None, ""), |(i, f)| (Some(i), f));
            return Err(WorldError::Invalid {
                list,
                index,
                field,
                problem: "is beyond ±100000 m",
            });
        }
    }
    Ok(())
}

fn check_aabb(
    list: &'static str,
    i: usize,
    field: &'static str,
    b: &Aabb,
) -> Result<(), WorldError> {
    check_point(list, Some((i, field)), b.min)?;
    check_point(list, Some((i, field)), b.max)?;
    if b.min.x > b.max.x || b.min.y > b.max.y || b.min.z > b.max.z {
        return Err(WorldError::at(list, i, field, "has min > max on some axis"));
    }
    Ok(())
}

/// Why a level was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WorldError {
    /// A list holds more elements than its limit.
    TooMany {
        /// The list's name as in a level file ("solids", "bot_path", …).
        list: &'static str,
        /// Its limit.
        max: usize,
        /// Its length.
        found: usize,
    },
    /// An element is malformed: `list[index].field problem`.
    Invalid {
        /// The list (or top-level field, "name", "spawn") at fault, as in a level file.
        list: &'static str,
        /// The element's index in the list; `None` for a top-level field.
        index: Option<usize>,
        /// The element's field at fault ("bounds", "path.period", …); empty for the element
        /// itself.
        field: &'static str,
        /// What is wrong, as a predicate ("has min > max on some axis").
        problem: &'static str,
    },
    /// Too many boxes of `list` ("solids" or "volumes") in one place: `found` overlap one
    /// grid cell (at most [`CELL_BOXES_MAX`]), or are too large for the cells (at most
    /// [`LARGE_BOXES_MAX`]).
    TooDense {
        /// "solids" or "volumes".
        list: &'static str,
        /// Which limit, as the rest of a sentence after the count ("boxes overlap one grid
        /// cell").
        what: &'static str,
        /// The limit.
        max: u32,
        /// The count found.
        found: u32,
    },
}

impl WorldError {
    fn at(
        list: &'static str,
        index: usize,
        field: &'static str,
        problem: &'static str,
    ) -> WorldError {
        WorldError::Invalid {
            list,
            index: Some(index),
            field,
            problem,
        }
    }
}

impl fmt::Display for WorldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorldError::TooMany { list, max, found } => {
                write!(
                    f,
                    "`{list}` has {found} elements, at most {max} are allowed"
                )
            }
            WorldError::TooDense {
                list,
                what,
                max,
                found,
            } => {
                write!(
                    f,
                    "`{list}`: {found} {what}, at most {max} are allowed (a bound on the work of a tick)"
                )
            }
            WorldError::Invalid {
                list,
                index,
                field,
                problem,
            } => {
                f.write_str(list)?;
                if let Some(i) = index {
                    write!(f, "[{i}]")?;
                }
                if !field.is_empty() {
                    write!(f, ".{field}")?;
                }
                write!(f, " {problem}")
            }
        }
    }
}

impl core::error::Error for WorldError {}

/// Identifies a collidable surface: the index into its list.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum SurfaceId {
    /// An index into [`WorldDesc::solids`].
    Solid(u32),
    /// An index into [`WorldDesc::platforms`].
    Platform(u32),
    /// An index into [`WorldDesc::ramps`].
    Ramp(u32),
}

/// A validated level, ready to simulate at one tick rate.
#[derive(Clone, Debug)]
pub struct World {
    desc: WorldDesc,
    hash: u64,
    tick_rate: u32,
    /// Unit ramp normals and their plane offsets `n·point`.
    ramps: Vec<(Vec3, Fx)>,
    /// Ramp bounds grown by `CONTACT_SLOP` (see `World::ramp_reach`).
    ramp_reaches: Vec<Option<Aabb>>,
    /// Platform paths, prepared (see `PlatformPath`).
    platform_paths: Vec<PlatformPath>,
    /// Each platform's reach (see `World::platform_reach`), side by side for a tick's scan.
    platform_reaches: Vec<Aabb>,
    solids_grid: Grid,
    volumes_grid: Grid,
    /// Every volume, in the order zones, checkpoints, finishes, kills (grid item ids).
    volumes: Vec<(VolumeKind, Aabb)>,
    /// The smallest box holding every zone (`None` without zones): a point outside it is in
    /// no zone, which `for_each_zone_at` answers without asking the grid.
    zones_bounds: Option<Aabb>,
}

/// A platform's path prepared for evaluating it several times a tick: its two legs (start
/// and `end − start`, computed once) and its period with reciprocals of it and of its half,
/// which replace the two divisions of a position by multiplications with exact corrections,
/// so every result is the division's, bit for bit.
#[derive(Clone, Copy, Debug)]
struct PlatformPath {
    /// `(from, to − from)` and `(to, from − to)`.
    out: (Vec3, Vec3),
    back: (Vec3, Vec3),
    period: Period,
}

/// How far a platform's [reach](World::platform_reach) extends beyond its path (m): 2⁻¹⁰, about
/// a millimetre, some 10⁶ times the rounding of any position computed along the path.
const REACH_MARGIN: Fx = Fx::from_bits(1 << (Fx::FRAC_BITS - 10));

#[derive(Clone, Copy, Debug)]
struct Period {
    /// Even, ≥ 2.
    ticks: u32,
    half: u32,
    /// ⌊2⁶⁴ / ticks⌋ (≤ 2⁶³).
    ticks_reciprocal: u64,
    /// ⌊2⁶⁴ / half⌋, or 2⁶⁴ − 1 for a half of one.
    half_reciprocal: u64,
}

impl Period {
    fn new(ticks: u32) -> Period {
        let ticks = ticks.max(2);
        let half = ticks / 2;
        let reciprocal = |d: u32| ((1u128 << 64) / u128::from(d)).min(u128::from(u64::MAX)) as u64;
        Period {
            ticks,
            half,
            ticks_reciprocal: reciprocal(ticks),
            half_reciprocal: reciprocal(half),
        }
    }

    /// `tick % ticks`. With r = ⌊2⁶⁴/ticks⌋ > 2⁶⁴/ticks − 1, the quotient estimate
    /// ⌊tick·r/2⁶⁴⌋ is at most ⌊tick/ticks⌋ and more than tick/ticks − 1 (as tick < 2⁶⁴), so
    /// the remainder it leaves is below 2·ticks: one subtraction corrects it.
    fn phase(&self, tick: u32) -> u32 {
        let q = (mul_u64_wide(u64::from(tick), self.ticks_reciprocal) >> 64) as u64;
        let ticks = u64::from(self.ticks);
        // q·ticks ≤ tick < 2³²: multiplied without the overflow test (on wasm32 a checked
        // 64-bit multiply is a 128-bit one, a call to `__multi3`).
        let mut rem = u64::from(tick) - q.wrapping_mul(ticks);
        if rem >= ticks {
            rem -= ticks;
        }
        rem as u32
    }

    /// `Fx::from_ratio(step, half)` for `step < half`, bit for bit, without a division.
    ///
    /// That is q = ⌊step·2³²/half⌋. With r ≥ 2⁶⁴/half − 1, the estimate ⌊step·r/2³²⌋ lies
    /// between ⌊q_exact − step/2³²⌋ ≥ q − 1 (as step < 2³¹) and q, so one exact correction
    /// step gives q.
    fn fraction(&self, step: u32) -> Fx {
        let scaled = u64::from(step) << Fx::FRAC_BITS;
        let estimate = mul_u64_wide(u64::from(step), self.half_reciprocal) >> Fx::FRAC_BITS;
        let mut q = estimate as u64; // < 2³²
        // (q + 1)·half ≤ 2³²·2³¹: no overflow, so no overflow test (see `phase`).
        if (q + 1).wrapping_mul(u64::from(self.half)) <= scaled {
            q += 1;
        }
        Fx::from_bits(q as i64)
    }
}

/// A platform during one tick ([`World::platform_during`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PlatformMove {
    /// Its box at the start of the tick.
    pub start: Aabb,
    /// How far it moves during the tick (m).
    pub moved: Vec3,
}

/// What a trigger volume does.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum VolumeKind {
    /// Zone `i` of [`WorldDesc::zones`]: gravity scale and wind.
    Zone(u32),
    /// Checkpoint `i` of [`WorldDesc::checkpoints`]: moves the respawn point.
    Checkpoint(u32),
    /// A finish volume: ends the run.
    Finish,
    /// A kill volume: the pogo dies and respawns.
    Kill,
}

impl World {
    /// Validates `desc` and prepares it for `tuning`'s tick rate.
    pub fn new(desc: WorldDesc, tuning: &Tuning) -> Result<World, WorldError> {
        desc.validate()?;
        let rate = tuning.spec().tick_rate;
        let ramps = desc
            .ramps
            .iter()
            .map(|r| {
                let n = r.normal.normalize_or(Vec3::UP);
                (n, n.dot(r.point))
            })
            .collect();
        let slop = Vec3::new(CONTACT_SLOP, CONTACT_SLOP, CONTACT_SLOP);
        let ramp_reaches = desc
            .ramps
            .iter()
            .map(|r| r.bounds.map(|b| Aabb::new(b.min - slop, b.max + slop)))
            .collect();
        let platform_paths = desc
            .platforms
            .iter()
            .map(|p| {
                let Path::PingPong { from, to, period } = p.path;
                // An even number of ticks, so the turnaround falls on a tick.
                let ticks = seconds_to_ticks(period, rate).0.max(2);
                PlatformPath {
                    out: (from, to - from),
                    back: (to, from - to),
                    period: Period::new(ticks + ticks % 2),
                }
            })
            .collect();
        let platform_reaches = desc
            .platforms
            .iter()
            .map(|p| {
                let Path::PingPong { from, to, .. } = p.path;
                let margin = Vec3::new(REACH_MARGIN, REACH_MARGIN, REACH_MARGIN);
                let ends = Aabb::new(from, from + p.size).union(&Aabb::new(to, to + p.size));
                Aabb::new(ends.min - margin, ends.max + margin)
            })
            .collect();
        let solids_grid = Grid::build(desc.solids.iter().map(|s| s.bounds));
        let mut volumes = Vec::new();
        volumes.extend(
            desc.zones
                .iter()
                .enumerate()
                .map(|(i, z)| (VolumeKind::Zone(i as u32), z.bounds)),
        );
        volumes.extend(
            desc.checkpoints
                .iter()
                .enumerate()
                .map(|(i, c)| (VolumeKind::Checkpoint(i as u32), c.bounds)),
        );
        volumes.extend(desc.finishes.iter().map(|b| (VolumeKind::Finish, *b)));
        volumes.extend(desc.kills.iter().map(|b| (VolumeKind::Kill, *b)));
        let volumes_grid = Grid::build(volumes.iter().map(|(_, b)| *b));
        let zones_bounds = desc
            .zones
            .iter()
            .map(|z| z.bounds)
            .reduce(|a, b| a.union(&b));
        for (list, grid) in [("solids", &solids_grid), ("volumes", &volumes_grid)] {
            check_density(list, grid)?;
        }
        let hash = desc.content_hash();
        Ok(World {
            desc,
            hash,
            tick_rate: rate,
            ramps,
            ramp_reaches,
            platform_paths,
            platform_reaches,
            solids_grid,
            volumes_grid,
            volumes,
            zones_bounds,
        })
    }

    /// The level as described (what [`World::new`] validated).
    pub fn desc(&self) -> &WorldDesc {
        &self.desc
    }

    /// The level's [content hash](WorldDesc::content_hash).
    pub fn content_hash(&self) -> u64 {
        self.hash
    }

    /// The tick rate (Hz) the world was prepared for.
    pub fn tick_rate(&self) -> u32 {
        self.tick_rate
    }

    /// Where the pogo's tip starts, and respawns before any checkpoint (m).
    pub fn spawn(&self) -> Vec3 {
        self.desc.spawn
    }

    /// Solid `i`. Panics unless `i` is below the number of solids (`desc().solids.len()`),
    /// like slice indexing.
    pub fn solid(&self, i: u32) -> &Solid {
        &self.desc.solids[i as usize]
    }

    /// Calls `f` with the index of every solid whose box may overlap `region` (and possibly
    /// a few more, some more than once).
    pub fn for_each_solid_near(&self, region: &Aabb, f: impl FnMut(u32)) {
        self.solids_grid.query(region, f);
    }

    /// Calls `f` with the index of every solid whose box overlaps (or touches) `region`: those
    /// of [`for_each_solid_near`](World::for_each_solid_near), in its order and with its
    /// repeats, that do. Each box is tested once (the grid has tested its large boxes).
    pub fn for_each_solid_overlapping(&self, region: &Aabb, mut f: impl FnMut(u32)) {
        self.solids_grid.query_marked(region, |i, tested| {
            if tested || self.solid(i).bounds.overlaps(region) {
                f(i);
            }
        });
    }

    /// Number of ramps.
    pub fn ramp_count(&self) -> u32 {
        self.ramps.len() as u32
    }

    /// Ramp `i` as the level describes it.
    pub fn ramp(&self, i: u32) -> &Ramp {
        &self.desc.ramps[i as usize]
    }

    /// Ramp `i` as the sweep sees it, prepared once: its unit normal, its plane offset `n·x`
    /// on the surface, its bounds.
    pub fn ramp_plane(&self, i: u32) -> Plane {
        let (normal, offset) = self.ramps[i as usize];
        let ramp = &self.desc.ramps[i as usize];
        Plane {
            normal,
            offset,
            bounds: ramp.bounds,
        }
    }

    /// Ramp `i`'s bounds grown by [`CONTACT_SLOP`], as every in-bounds test of a sweep or a
    /// depenetration grows them (`None` for an unbounded ramp): a capsule within a region
    /// this box misses cannot touch the ramp
    /// ([`Plane::may_touch`](crate::sweep::Plane::may_touch) is `reach.overlaps(region)`).
    pub fn ramp_reach(&self, i: u32) -> Option<&Aabb> {
        self.ramp_reaches[i as usize].as_ref()
    }

    /// Every ramp's [reach](World::ramp_reach), in ramp order.
    pub fn ramp_reaches(&self) -> &[Option<Aabb>] {
        &self.ramp_reaches
    }

    /// Number of moving platforms.
    pub fn platform_count(&self) -> u32 {
        self.desc.platforms.len() as u32
    }

    /// Platform `i` as described. Panics unless `i < platform_count()`.
    pub fn platform(&self, i: u32) -> &Platform {
        &self.desc.platforms[i as usize]
    }

    /// A box holding every box platform `i` occupies at any moment, grown by about a
    /// millimetre: whatever does not overlap it cannot touch the platform at any tick.
    ///
    /// Its position is `from + (to − from)·f` (or back) with 0 ≤ f < 1; the product, rounded
    /// toward −∞ to whole raw units, stays between 0 and the leg, so every position lies
    /// between `from` and `to` on each axis and the union of the boxes at the two ends holds
    /// them all. The margin covers the
    /// rounding of positions interpolated within a tick (a few 2⁻³² m).
    pub fn platform_reach(&self, i: u32) -> &Aabb {
        &self.platform_reaches[i as usize]
    }

    /// Every platform's [reach](World::platform_reach), in platform order.
    pub fn platform_reaches(&self) -> &[Aabb] {
        &self.platform_reaches
    }

    /// Platform `i`'s box at the start of `tick`.
    pub fn platform_bounds(&self, i: u32, tick: Ticks) -> Aabb {
        let p = &self.desc.platforms[i as usize];
        let min = self.platform_position(i, tick);
        Aabb::new(min, min + p.size)
    }

    /// Where platform `i`'s `min` corner is at the start of `tick`.
    pub fn platform_position(&self, i: u32, tick: Ticks) -> Vec3 {
        let path = &self.platform_paths[i as usize];
        let period = &path.period;
        let phase = period.phase(tick.0);
        // From `from` to `to` in the first half of the period, back in the second.
        let ((start, leg), step) = if phase < period.half {
            (path.out, phase)
        } else {
            (path.back, phase - period.half)
        };
        start + leg * period.fraction(step)
    }

    /// How far platform `i` moves during `tick` (m): exact, so a riding pogo stays on it.
    pub fn platform_displacement(&self, i: u32, tick: Ticks) -> Vec3 {
        self.platform_during(i, tick).moved
    }

    /// Platform `i` during `tick`: its box at the start of the tick and how far it moves
    /// (exactly [`platform_bounds`](World::platform_bounds) and
    /// [`platform_displacement`](World::platform_displacement), with two path evaluations).
    pub fn platform_during(&self, i: u32, tick: Ticks) -> PlatformMove {
        let size = self.desc.platforms[i as usize].size;
        let start = self.platform_position(i, tick);
        let moved = self.platform_position(i, tick.next()) - start;
        PlatformMove {
            start: Aabb::new(start, start + size),
            moved,
        }
    }

    /// The highest surface under `point` at the start of `tick`, no higher than `point.y` +
    /// `reach` (m): the top of a solid or of a moving platform over (`point.x`, `point.z`),
    /// or a ramp's surface there (a ramp steeper than [`GROUND_RAMP_NY_MIN`] aside, its height
    /// kept within its bounds); `None` if there is none. For a renderer's shadows (the web
    /// page's asks it through the C ABI): the simulation never calls it. Solids come from the
    /// broad phase's column at the point, so it costs what is near, not the level.
    pub fn ground_below(&self, point: Vec3, reach: Fx, tick: Ticks) -> Option<Fx> {
        let limit = point.y + reach;
        let mut best: Option<Fx> = None;
        let mut consider = |top: Fx| {
            if top <= limit && best.is_none_or(|b| top > b) {
                best = Some(top);
            }
        };
        let over = |b: &Aabb| {
            point.x >= b.min.x && point.x <= b.max.x && point.z >= b.min.z && point.z <= b.max.z
        };
        let column = Aabb::new(
            Vec3::new(point.x, Fx::MIN, point.z),
            Vec3::new(point.x, limit, point.z),
        );
        self.for_each_solid_near(&column, |i| {
            let bounds = &self.solid(i).bounds;
            if over(bounds) {
                consider(bounds.max.y);
            }
        });
        for i in 0..self.platform_count() {
            let bounds = self.platform_bounds(i, tick);
            if over(&bounds) {
                consider(bounds.max.y);
            }
        }
        for i in 0..self.ramp_count() {
            let plane = self.ramp_plane(i);
            let Some(bounds) = plane.bounds.filter(|b| over(b)) else {
                continue;
            };
            let n = plane.normal;
            if n.y.abs() <= GROUND_RAMP_NY_MIN {
                continue;
            }
            // n · (x, y, z) = offset, solved for y.
            let y = (plane.offset - n.x * point.x - n.z * point.z) / n.y;
            consider(y.clamp(bounds.min.y, bounds.max.y));
        }
        best
    }

    /// Calls `f` with every trigger volume containing `point`, in a fixed order (the grid's:
    /// a point query visits one cell, whose volumes are in level order, then the large
    /// volumes in level order), so overlapping zones always combine the same way.
    pub fn for_each_volume_at(&self, point: Vec3, mut f: impl FnMut(VolumeKind)) {
        // The grid's point query, with the closure reading the point back from the region.
        // Captured by reference, `point` would be spilled as three 8-byte stores and copied
        // into the region by 16-byte loads, which the CPU cannot forward from those stores:
        // a stall of a dozen cycles or so, 6 % of a `course` tick in a cycle profile.
        let region = Aabb::new(point, point);
        self.volumes_grid.query_marked(&region, |i, tested| {
            let (kind, bounds) = &self.volumes[i as usize];
            if tested || bounds.contains(region.min) {
                f(*kind);
            }
        });
    }

    /// Calls `f` with the index of every zone containing `point`: the
    /// [`VolumeKind::Zone`]s of [`for_each_volume_at`](World::for_each_volume_at), in its
    /// order, without testing the other volumes (the zones are the first volumes, and every
    /// list the grid keeps is in volume order).
    pub fn for_each_zone_at(&self, point: Vec3, mut f: impl FnMut(u32)) {
        // A zone holding the point would put it inside the zones' union (a few tests instead
        // of a grid query on the many ticks a pogo spends away from every zone).
        if !self.zones_bounds.is_some_and(|b| b.contains(point)) {
            return;
        }
        let zones = self.desc.zones.len() as u32;
        self.volumes_grid
            .query_point_below(point, zones, |i, tested| {
                let (kind, bounds) = &self.volumes[i as usize];
                if let VolumeKind::Zone(zone) = kind {
                    if tested || bounds.contains(point) {
                        f(*zone);
                    }
                }
            });
    }

    /// Whether a zone may hold `point`: whether the zones' union does.
    pub(crate) fn zones_may_hold(&self, point: Vec3) -> bool {
        self.zones_bounds.is_some_and(|b| b.contains(point))
    }

    /// Trigger volume `i` (the grid's numbering: the zones, then the checkpoints, the
    /// finishes and the kill volumes): its kind and box.
    pub(crate) fn volume(&self, i: u32) -> &(VolumeKind, Aabb) {
        &self.volumes[i as usize]
    }

    /// The region of a neighbourhood's volumes around `point`: the point grown by
    /// [`MARGIN_M`](crate::neighbourhood::MARGIN_M), cut to the volume grid's cell holding the
    /// point, so that every point of it is in that cell (or the grown point alone, for a grid
    /// without cells); `None` for a point in no cell of a grid that has cells.
    pub(crate) fn volumes_near(&self, point: Vec3) -> Option<Aabb> {
        let region = crate::neighbourhood::grown(&Aabb::new(point, point));
        self.volumes_grid.cut_to_cell(point, &region)
    }

    /// Calls `f` with the number of every trigger volume whose box overlaps `region`, in the
    /// grid's order (for a region inside one cell: that cell's, then the large ones, each in
    /// volume order).
    pub(crate) fn for_each_volume_overlapping(&self, region: &Aabb, mut f: impl FnMut(u32)) {
        self.volumes_grid.query_marked(region, |i, tested| {
            if tested || self.volumes[i as usize].1.overlaps(region) {
                f(i);
            }
        });
    }

    /// The work of [`for_each_volume_overlapping`](World::for_each_volume_overlapping) on
    /// `region`, in the cost model's units.
    #[cfg(feature = "meter")]
    pub(crate) fn volumes_region_cost(&self, region: &Aabb) -> u64 {
        self.volumes_grid.query_cost(region)
    }

    /// What bounds the work of the world's queries: its two grids' densities and cell sizes
    /// (see [`crate::cost`]).
    pub fn broad_phase_stats(&self) -> crate::cost::BroadPhaseStats {
        crate::cost::BroadPhaseStats {
            solids: self.solids_grid.stats(),
            volumes: self.volumes_grid.stats(),
        }
    }

    /// The work of [`for_each_solid_near`](World::for_each_solid_near) on `region` (and of
    /// [`for_each_solid_overlapping`](World::for_each_solid_overlapping)), in the cost model's
    /// units.
    #[cfg(feature = "meter")]
    pub(crate) fn solids_query_cost(&self, region: &Aabb) -> u64 {
        self.solids_grid.query_cost(region)
    }

    /// The work of [`for_each_volume_at`](World::for_each_volume_at) on `point`, in the
    /// cost model's units.
    #[cfg(feature = "meter")]
    pub(crate) fn volumes_query_cost(&self, point: Vec3) -> u64 {
        self.volumes_grid.query_cost(&Aabb::new(point, point))
    }

    /// Zone `i`. Panics unless `i` is below the number of zones (`desc().zones.len()`).
    pub fn zone(&self, i: u32) -> &Zone {
        &self.desc.zones[i as usize]
    }

    /// Checkpoint `i`. Panics unless `i` is below the number of checkpoints
    /// (`desc().checkpoints.len()`); a pogo's [`checkpoint`](crate::Pogo::checkpoint) always is.
    pub fn checkpoint(&self, i: u32) -> &Checkpoint {
        &self.desc.checkpoints[i as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{fx, v};
    use alloc::string::ToString;

    fn desc() -> WorldDesc {
        WorldDesc {
            name: "t".into(),
            ..WorldDesc::default()
        }
    }

    fn platform(from: Vec3, to: Vec3, period: &str) -> Platform {
        Platform {
            size: v("2", "1", "2"),
            path: Path::PingPong {
                from,
                to,
                period: fx(period),
            },
            no_bounce: false,
        }
    }

    fn cube_at(x: i32, size: &str) -> Solid {
        let min = Vec3::new(Fx::from_int(x), Fx::ZERO, Fx::ZERO);
        Solid {
            bounds: Aabb::new(min, min + v(size, size, size)),
            no_bounce: false,
        }
    }

    /// The per-tick work is bounded by the level's density, so a level that piles boxes in
    /// one place is refused, however few or many it has elsewhere.
    #[test]
    fn a_level_too_dense_for_a_bounded_tick_is_refused() {
        let tuning = Tuning::default();
        let with = |solids: Vec<Solid>| World::new(WorldDesc { solids, ..desc() }, &tuning);
        // 100 000 boxes at the spawn, the hostile level that cost 6.7 ms a tick.
        let piled = with(alloc::vec![cube_at(0, "1"); 100_000]);
        assert_eq!(
            piled.err(),
            Some(WorldError::TooDense {
                list: "solids",
                what: "boxes overlap one grid cell",
                max: CELL_BOXES_MAX,
                found: 100_000,
            })
        );
        // The limit itself is fine, one more is not; boxes spread out are fine at any count.
        let at_limit = CELL_BOXES_MAX as usize;
        assert!(with(alloc::vec![cube_at(0, "1"); at_limit]).is_ok());
        assert!(with(alloc::vec![cube_at(0, "1"); at_limit + 1]).is_err());
        let spread: Vec<Solid> = (0..4000).map(|i| cube_at(4 * i, "1")).collect();
        assert!(with(spread).is_ok());
        // Large boxes: tested by every query, so bounded too.
        let large = |n: usize| alloc::vec![cube_at(0, "100"); n];
        let mut solids = large(LARGE_BOXES_MAX as usize);
        solids.push(cube_at(-4000, "1")); // spreads the grid so the big cubes are large
        assert!(with(solids.clone()).is_ok());
        solids.push(cube_at(0, "100"));
        assert!(matches!(
            with(solids),
            Err(WorldError::TooDense { list: "solids", what, .. }) if what.contains("large")
        ));
        // Volumes are bounded the same way (the tick looks them up twice).
        let finishes = alloc::vec![Aabb::new(Vec3::ZERO, v("1", "1", "1")); 33];
        let dense = World::new(WorldDesc { finishes, ..desc() }, &tuning);
        assert!(matches!(
            dense,
            Err(WorldError::TooDense {
                list: "volumes",
                ..
            })
        ));
        // Ramps and platforms are tested one by one each sweep: at most SURFACES_MAX each.
        let ramp = Ramp {
            normal: Vec3::UP,
            point: Vec3::ZERO,
            bounds: None,
            no_bounce: false,
        };
        let ramps = WorldDesc {
            ramps: alloc::vec![ramp; SURFACES_MAX + 1],
            ..desc()
        };
        assert_eq!(
            ramps.validate(),
            Err(WorldError::TooMany {
                list: "ramps",
                max: 64,
                found: 65
            })
        );
    }

    #[test]
    fn validation_names_the_bad_element() {
        let bad_box = WorldDesc {
            solids: alloc::vec![Solid {
                bounds: Aabb::new(v("1", "0", "0"), v("0", "1", "1")),
                no_bounce: false
            }],
            ..desc()
        };
        assert_eq!(
            bad_box.validate().unwrap_err().to_string(),
            "solids[0].bounds has min > max on some axis"
        );
        let far = WorldDesc {
            spawn: v("0", "100001", "0"),
            ..desc()
        };
        assert_eq!(
            far.validate().unwrap_err().to_string(),
            "spawn is beyond ±100000 m"
        );
        let fast = WorldDesc {
            platforms: alloc::vec![platform(Vec3::ZERO, v("30", "0", "0"), "1")],
            ..desc()
        };
        assert_eq!(
            fast.validate().unwrap_err().to_string(),
            "platforms[0].path moves faster than 50 m/s"
        );
        for name in ["", "line\nbreak", &"x".repeat(65)] {
            let named = WorldDesc {
                name: name.into(),
                ..desc()
            };
            assert!(
                matches!(
                    named.validate(),
                    Err(WorldError::Invalid { list: "name", .. })
                ),
                "{name:?}"
            );
        }
        desc().validate().unwrap();
    }

    #[test]
    fn period_phase_is_the_remainder() {
        let mut periods: Vec<u32> = (2..=400).collect();
        periods.extend([1023, 1024, 1025, 65_536, 1_728_000, u32::MAX - 1, u32::MAX]);
        let mut ticks: Vec<u32> = (0..1000).collect();
        ticks.extend([
            u32::MAX,
            u32::MAX - 1,
            1 << 31,
            (1 << 31) - 1,
            1_727_999,
            1_728_000,
        ]);
        for &ticks_per_period in &periods {
            let period = Period::new(ticks_per_period);
            for &tick in ticks
                .iter()
                .chain(&[ticks_per_period, ticks_per_period - 1])
            {
                assert_eq!(
                    period.phase(tick),
                    tick % period.ticks,
                    "{tick} % {ticks_per_period}"
                );
            }
        }
    }

    #[test]
    fn period_fraction_is_the_exact_ratio() {
        let mut halves: Vec<u32> = (1..=300).collect();
        halves.extend([1023, 1024, 1025, 65_535, 65_536, 864_000, (1 << 31) - 1]);
        for half in halves {
            let period = Period::new(half * 2);
            let mut steps: Vec<u32> = (0..half.min(400)).collect();
            steps.extend([half / 3, half / 2, half.saturating_sub(2), half - 1]);
            for step in steps {
                assert_eq!(
                    period.fraction(step),
                    Fx::from_ratio(i64::from(step), i64::from(half)),
                    "{step}/{half}"
                );
            }
        }
    }

    #[test]
    fn platform_path_ping_pongs_on_whole_ticks() {
        let tuning = Tuning::default();
        let world = World::new(
            WorldDesc {
                platforms: alloc::vec![platform(Vec3::ZERO, v("6", "0", "0"), "4")],
                ..desc()
            },
            &tuning,
        )
        .unwrap();
        // 4 s = 240 ticks: out in 120, back in 120; 6 m / 120 ticks = 0.05 m per tick.
        assert_eq!(world.platform_position(0, Ticks(0)), Vec3::ZERO);
        assert_eq!(world.platform_position(0, Ticks(60)).x, fx("3"));
        assert_eq!(world.platform_position(0, Ticks(120)).x, fx("6"));
        assert_eq!(world.platform_position(0, Ticks(180)).x, fx("3"));
        assert_eq!(world.platform_position(0, Ticks(240)), Vec3::ZERO);
        assert_eq!(
            world.platform_displacement(0, Ticks(10)).x,
            Fx::from_ratio(1, 20)
        );
        assert_eq!(
            world.platform_displacement(0, Ticks(130)).x,
            -Fx::from_ratio(1, 20)
        );
        assert_eq!(world.platform_bounds(0, Ticks(120)).max, v("8", "1", "2"));
    }

    /// `platform_reach` is what lets the tick skip a platform without computing where it is:
    /// every box a platform occupies, at a tick or between two, must lie inside it.
    #[test]
    fn a_platform_never_leaves_its_reach() {
        let tuning = Tuning::default();
        let paths = [
            (v("0", "0", "0"), v("6", "0", "0"), "4"),
            (v("5", "2", "-3"), v("-7.3", "-1.1", "9.7"), "2.7"),
            (v("0.1", "0.1", "0.1"), v("0.1", "0.1", "0.1"), "1"),
            (
                v("-1000", "3", "0"),
                v("999.9999", "-3", "0.0000001"),
                "97.3",
            ),
            (v("1", "1", "1"), v("1", "1", "1.0000000005"), "0.01"),
        ];
        let world = World::new(
            WorldDesc {
                platforms: paths.iter().map(|&(a, b, p)| platform(a, b, p)).collect(),
                ..desc()
            },
            &tuning,
        )
        .unwrap();
        let fractions = [
            Fx::ZERO,
            Fx::from_ratio(1, 3),
            Fx::from_ratio(999, 1000),
            Fx::ONE,
        ];
        for i in 0..world.platform_count() {
            let reach = *world.platform_reach(i);
            for tick in 0..4000 {
                let during = world.platform_during(i, Ticks(tick));
                for &f in &fractions {
                    let b = during.start.translated(during.moved * f);
                    assert!(
                        reach.holds(&b),
                        "platform {i} tick {tick}: {b:?} vs {reach:?}"
                    );
                }
            }
            // Tight: a millimetre of margin, no more.
            let (a, b, _) = paths[i as usize];
            let ends =
                Aabb::new(a, a + v("2", "1", "2")).union(&Aabb::new(b, b + v("2", "1", "2")));
            assert!(
                reach.min.x >= ends.min.x - fx("0.001") && reach.max.y <= ends.max.y + fx("0.001")
            );
        }
    }

    /// `ramp_reach` is what the tick culls ramps by: it must decide exactly what
    /// `Plane::may_touch` decides, for every region.
    #[test]
    fn a_ramp_reach_is_plane_may_touch() {
        use crate::sweep::CONTACT_SLOP;
        let tuning = Tuning::default();
        let bounded = Ramp {
            normal: v("0", "4", "-1"),
            point: v("10", "0", "0"),
            bounds: Some(Aabb::new(v("8", "-1", "-2"), v("12", "1", "6"))),
            no_bounce: false,
        };
        let world = World::new(
            WorldDesc {
                ramps: alloc::vec![
                    bounded,
                    Ramp {
                        bounds: None,
                        ..bounded
                    }
                ],
                ..desc()
            },
            &tuning,
        )
        .unwrap();
        let slop = CONTACT_SLOP;
        for i in 0..world.ramp_count() {
            let plane = world.ramp_plane(i);
            assert_eq!(plane.bounds, world.ramp(i).bounds);
            // Regions just missing, just touching and overlapping each face of the bounds.
            for x in [
                fx("12") + slop,
                fx("12") + slop + Fx::DELTA,
                fx("7"),
                fx("-3"),
            ] {
                for y in [fx("1") + slop, fx("1") + slop + Fx::DELTA, fx("0")] {
                    let min = Vec3::new(x, y, fx("6"));
                    let region = Aabb::new(min, min + v("1", "1", "1"));
                    let reach = world.ramp_reach(i).is_none_or(|r| r.overlaps(&region));
                    assert_eq!(reach, plane.may_touch(&region), "ramp {i} {region:?}");
                }
            }
        }
    }

    /// `for_each_zone_at` is the zones of `for_each_volume_at`, in its order, wherever the
    /// point is: inside the zones' union or outside it (where it asks nothing), on a zone's
    /// boundary, in several zones at once. Seeded; the seed is printed on failure.
    #[test]
    fn zones_at_a_point_are_the_zone_volumes_there() {
        let seed = 0x7a6f_6e65_u64;
        let mut rng = crate::test_util::SplitMix64(seed);
        let tuning = Tuning::default();
        for case in 0..40 {
            let mut int = |n: u64| (rng.next() % n) as i64;
            let mut cube = |size: i64| {
                let min = Vec3::new(
                    Fx::from_ratio(int(80) - 40, 1),
                    Fx::from_ratio(int(20) - 10, 1),
                    Fx::from_ratio(int(80) - 40, 1),
                );
                let s = Fx::from_ratio(size, 1);
                Aabb::new(min, min + Vec3::new(s, s, s))
            };
            // Small zones (in the grid's cells) and big ones (its large list), checkpoints
            // among them, so the grid holds volumes of both kinds.
            let zones = (0..case % 6)
                .map(|k| Zone {
                    bounds: cube(if k % 2 == 0 { 3 } else { 30 }),
                    gravity_scale: Fx::ONE,
                    wind: Vec3::ZERO,
                })
                .collect::<Vec<_>>();
            let checkpoints = (0..3)
                .map(|_| Checkpoint {
                    bounds: cube(10),
                    spawn: Vec3::ZERO,
                })
                .collect();
            let world = World::new(
                WorldDesc {
                    zones,
                    checkpoints,
                    ..desc()
                },
                &tuning,
            )
            .unwrap();
            let corners = world
                .desc()
                .zones
                .iter()
                .flat_map(|z| [z.bounds.min, z.bounds.max]);
            let mut points: Vec<Vec3> = corners.collect();
            for _ in 0..200 {
                let mut c = |n: i64| Fx::from_ratio(int(n as u64) - n / 2, 2);
                points.push(Vec3::new(c(200), c(60), c(200)));
            }
            for p in points {
                let mut expected = Vec::new();
                world.for_each_volume_at(p, |kind| {
                    if let VolumeKind::Zone(i) = kind {
                        expected.push(i);
                    }
                });
                let mut got = Vec::new();
                world.for_each_zone_at(p, |i| got.push(i));
                assert_eq!(got, expected, "seed {seed:#x}, case {case}, point {p:?}");
            }
        }
    }
}
