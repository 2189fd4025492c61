//! The cost of a tick: what makes one expensive on a hostile level, counted in units a test
//! can measure, and a bound on it computed from the world and the tuning alone.
//!
//! # What a tick costs
//!
//! A pogo's tick does a fixed amount of arithmetic (controls, forces, a launch, a
//! classification) plus work that depends on the level, all of it in the world's queries
//! (`step.rs`, stages 3 and 4; `collision.rs`):
//!
//! | query | when | its work |
//! | --- | --- | --- |
//! | zones at the body's centre | every airborne tick | the zones' union test, then the volume lookup below |
//! | the first sweep's lookup (`nearby`) | every airborne tick | when the swept region leaves the pogo's neighbourhood, a solid-grid query over the region grown by `MARGIN_M` on every side (the gathering); a test of each solid the neighbourhood lists (at most `NEARBY_MAX`); a reach test per platform and ramp |
//! | the overlap check (`may_overlap`) | every airborne tick | each solid the lookup kept (at most `NEARBY_MAX`), each platform and ramp |
//! | depenetration | when the check finds (or cannot rule out) an overlap | up to `PUSHES_MAX` solid-grid queries over the capsule's box, each platform and ramp each time |
//! | sweeps (`first_touch`) | every airborne tick | up to `SWEEPS_MAX`, each a solid-grid query over its swept region (the first may use the lookup's solids instead, at most `NEARBY_MAX`), each platform (two path evaluations if near) and ramp |
//! | volumes at the body's centre | every tick | when the centre leaves the pogo's neighbourhood, a volume-grid query over the centre grown by `MARGIN_M`, cut to its cell (the gathering); then a test of each volume kept (at most `VOLUMES_KEPT`), or where more lie near, one cell of the volume grid and its large volumes |
//!
//! **The unit** is one step of that work: one x-row of grid cells visited, one box id a row
//! lists (each is tested against the query), one large box tested, one platform or ramp
//! considered, one platform path evaluation. With the `meter` feature (tests and fuzzing only)
//! the tick counts them as it goes (`Simulation::step_metered`);
//! without it, nothing is counted and nothing changes: the meter only ever adds to a counter.
//! The fixed arithmetic is not counted: it is the same on every level.
//!
//! # The bound
//!
//! What bounds a grid query is the grid's density (`CELL_BOXES_MAX` boxes per cell and
//! `LARGE_BOXES_MAX` large boxes, checked by `World::new`) and how many cells the query's
//! region spans: a region `e` long on an axis spans at most `⌊e / cell⌋ + 2` cells there (and
//! never more than the grid has). The regions are the capsule's box (depenetration), the
//! box it sweeps over a tick, and that box grown by the neighbourhood's margin (the
//! gathering), so [`tick_cost_bound`] bounds how far a pogo can move in one sweep, from the
//! tick's own bounds (`docs/tick.md`, "Bounds"):
//!
//! - its velocity enters the tick within ±`SPEED_MAX` per axis (length < 2·`SPEED_MAX`);
//! - within the tick it gains at most `A·dt` per axis, where `A` is the level's strongest wind
//!   (the winds of the most zones one point can lie in — a point query reports at most one
//!   cell's volumes and the large ones — added up, strongest first) plus `air_accel`; gravity
//!   only pulls down and the fall limit keeps the downward speed within `terminal_speed`;
//! - each touch of a moving platform (at most `SWEEPS_MAX`) may add twice the platform's speed;
//!
//! so one sweep moves at most `D = (2·SPEED_MAX + terminal_speed)·dt + 3·A·dt² +
//! 2·SWEEPS_MAX·m` per axis, `m` the fastest platform's move in one tick. The bound is then the
//! sum of the table's rows with every count at its most ([`tick_cost_bound`] spells it out).
//! It is loose on purpose (every sweep at the longest path, every depenetration taken): what
//! it guarantees is that no input makes one pogo's tick cost more, whatever the level does.
//! The fuzz target `track` (`checks/src/track.rs`) checks the measured cost of every tick of
//! every track it makes against it.

use crate::collision::{NEARBY_MAX, PUSHES_MAX};
use crate::fx::Fx;
use crate::neighbourhood::MARGIN_M;
use crate::step::{SPEED_MAX, SWEEPS_MAX};
use crate::sweep::CONTACT_SLOP;
use crate::tuning::{Tuning, seconds_to_ticks};
use crate::vec3::Vec3;
use crate::world::{Path, World};
use alloc::vec::Vec;

/// What bounds the work of one grid's queries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridStats {
    /// Whether the grid has cells at all (a grid of large boxes only, or of none, has not).
    pub cells: bool,
    /// log₂ of the cell size in raw units: a cell is 2^(`cell_shift` − 32) m on a side.
    pub cell_shift: u32,
    /// Cells along x, y and z.
    pub dims: [u32; 3],
    /// The most boxes any one cell lists (at most `CELL_BOXES_MAX`).
    pub densest: u32,
    /// The boxes too large for the cells, which every query tests (at most `LARGE_BOXES_MAX`).
    pub large: u32,
}

impl GridStats {
    /// The most work (in units) of one query whose region is at most `extent` long on each
    /// axis (m): one unit per x-row of cells, one per box id in those rows, one per large box.
    pub fn query_cost_max(&self, extent: Vec3) -> u64 {
        let mut cost = u64::from(self.large);
        if self.cells {
            let span = |e: Fx, axis: usize| {
                let cells = (e.to_bits().max(0) as u64 >> self.cell_shift) + 2;
                cells.min(u64::from(self.dims[axis]))
            };
            let (x, y, z) = (span(extent.x, 0), span(extent.y, 1), span(extent.z, 2));
            cost += y * z * (1 + x * u64::from(self.densest));
        }
        cost
    }

    /// The most work (in units) of one query whose region lies inside one cell: one x-row,
    /// the densest cell's boxes, the large boxes.
    pub fn cell_query_cost_max(&self) -> u64 {
        u64::from(self.large)
            + if self.cells {
                1 + u64::from(self.densest)
            } else {
                0
            }
    }
}

/// The density of a world's two grids ([`World::broad_phase_stats`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BroadPhaseStats {
    /// The grid of the solids.
    pub solids: GridStats,
    /// The grid of the trigger volumes (zones, checkpoints, finishes, kills).
    pub volumes: GridStats,
}

/// A bound on one pogo's tick in a world, with what it was computed from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TickCostBound {
    /// The most work of one pogo's tick, in the units of the module docs.
    pub units: u64,
    /// The longest move of one sweep on any axis (m), `D` of the module docs.
    pub sweep_m: Fx,
    /// The strongest acceleration on any axis besides gravity (m/s²), `A` of the module docs.
    pub acceleration: Fx,
    /// The fastest platform's move in one tick (m).
    pub platform_step_m: Fx,
    /// The most work of one solid-grid query over a sweep's region.
    pub sweep_query: u64,
    /// The most work of one gathering of a neighbourhood: a solid-grid query over a sweep's
    /// region grown by the neighbourhood's margin.
    pub gather_query: u64,
}

/// The most work one pogo's tick can do in `world` with `tuning` (the module docs derive
/// it). Cheap: a pass over the platforms and zones, no simulation.
pub fn tick_cost_bound(world: &World, tuning: &Tuning) -> TickCostBound {
    let stats = world.broad_phase_stats();
    let spec = tuning.spec();
    let dt = tuning.derived().dt;
    let platforms = u64::from(world.platform_count());
    let ramps = u64::from(world.ramp_count());

    let platform_step_m = platform_step_max(world, spec.tick_rate);
    let zones_at_a_point = (stats.volumes.densest + stats.volumes.large) as usize;
    let acceleration = wind_max(world, zones_at_a_point) + spec.air_accel;
    // D = (2·SPEED_MAX + terminal)·dt + 3·A·dt² + 2·SWEEPS_MAX·m, plus a millimetre for the
    // rounding of the products (every operator saturates, so a huge A gives a huge D).
    let sweep_m = (SPEED_MAX * Fx::from_int(2) + spec.terminal_speed) * dt
        + acceleration * dt * dt * Fx::from_int(3)
        + platform_step_m * Fx::from_int(2 * SWEEPS_MAX as i32)
        + Fx::lit("0.001");
    let slop = CONTACT_SLOP * Fx::from_int(2);
    let width = spec.body_radius * Fx::from_int(2);
    let capsule = Vec3::new(width + slop, spec.body_height + slop, width + slop);
    let swept = Vec3::new(
        capsule.x + sweep_m,
        capsule.y + sweep_m,
        capsule.z + sweep_m,
    );
    let sweep_query = stats.solids.query_cost_max(swept);
    let grown = MARGIN_M * Fx::from_int(2);
    let gather_query =
        stats
            .solids
            .query_cost_max(Vec3::new(swept.x + grown, swept.y + grown, swept.z + grown));
    let capsule_query = stats.solids.query_cost_max(capsule);
    let point_query = stats.volumes.query_cost_max(Vec3::ZERO);
    // A gathering of the volumes near a point: a region inside one cell of the volume grid.
    let volume_gather = stats.volumes.cell_query_cost_max();
    let pushes = PUSHES_MAX as u64;
    let sweeps = SWEEPS_MAX as u64;

    // The lookup keeps at most what a gathering lists: at most NEARBY_MAX, and at most one
    // solid per unit of the gathering's query.
    let kept = (NEARBY_MAX as u64).min(gather_query);

    // Each volume lookup: a gathering, then the kept volumes tested (at most as many as the
    // gathering listed) or, where they are too many, the point query.
    let volume_lookup = volume_gather + point_query.max(volume_gather);
    let units = (1 + volume_lookup) // zones at the body's centre
        + volume_lookup // volumes at the body's centre
        + gather_query + kept + platforms + ramps // the lookup
        + kept + 2 * platforms + ramps // the overlap check
        + pushes * (capsule_query + 2 * platforms + ramps) // depenetration
        + sweep_query.max(kept) + (sweeps - 1) * sweep_query // the sweeps (the first may
        + sweeps * (3 * platforms + ramps); //                  use the lookup's solids)
    TickCostBound {
        units,
        sweep_m,
        acceleration,
        platform_step_m,
        sweep_query,
        gather_query,
    }
}

/// The longest move of any platform in one tick (m): its leg over the ticks of half its
/// period, plus a hair for the rounding of its positions.
fn platform_step_max(world: &World, tick_rate: u32) -> Fx {
    let mut most = Fx::ZERO;
    for i in 0..world.platform_count() {
        let Path::PingPong { from, to, .. } = world.platform(i).path;
        let half = platform_half_period_ticks(world, i, tick_rate);
        let step = (to - from).length_ceil() / Fx::from_int(half as i32);
        most = most.max(step + Fx::from_bits(1 << 8));
    }
    most
}

/// The ticks of half of platform `i`'s period at `tick_rate`, as `World::new` rounds them:
/// the period in whole ticks (at least 2, made even), halved.
fn platform_half_period_ticks(world: &World, i: u32, tick_rate: u32) -> u32 {
    let Path::PingPong { period, .. } = world.platform(i).path;
    let ticks = seconds_to_ticks(period, tick_rate).0.max(2);
    (ticks + ticks % 2) / 2
}

/// Platform `i`'s speed as simulated (m/s): its leg over half its period in whole ticks.
///
/// `World::new` bounds `2·|to − from| / period` by `PLATFORM_SPEED_MAX` with the period as
/// written; the simulation moves the platform over the period rounded to an even number of
/// ticks, which can be shorter: a 0.041 s period is 2 ticks at 60 Hz (0.033 s), and the
/// platform moves 23 % faster than written. Up to 25 % (a period just under 2.5 ticks).
pub fn platform_speed(world: &World, i: u32) -> Fx {
    let Path::PingPong { from, to, .. } = world.platform(i).path;
    let half = platform_half_period_ticks(world, i, world.tick_rate());
    (to - from).length() * Fx::from_int(world.tick_rate() as i32) / Fx::from_int(half as i32)
}

/// The strongest wind on any axis that `count` zones together can blow (m/s²): on each axis,
/// the `count` largest |components| added up.
fn wind_max(world: &World, count: usize) -> Fx {
    let zones = &world.desc().zones;
    let mut most = Fx::ZERO;
    for axis in 0..3 {
        let mut winds: Vec<Fx> = zones
            .iter()
            .map(|z| [z.wind.x, z.wind.y, z.wind.z][axis].abs())
            .collect();
        winds.sort_unstable_by(|a, b| b.cmp(a));
        let sum = winds.iter().take(count).fold(Fx::ZERO, |s, &w| s + w);
        most = most.max(sum);
    }
    most
}
