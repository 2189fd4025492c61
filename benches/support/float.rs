//! The f64 measuring stick: the per-tick work of `pogo-core` redone in `f64`, to know what
//! fixed point costs.
//!
//! It is not a second simulation and nothing depends on it: it exists so that the benchmarks
//! can time the *same* work in floats. So it follows core line by line — the stages of
//! `core/src/step.rs` and its collision queries (`collision.rs`), what each pogo keeps of the
//! world between ticks (`neighbourhood.rs`: a `Hood` in the [`FSim`]), the swept capsule
//! with the same slab test and Newton iteration (`sweep.rs`), the same uniform grid broad
//! phase built by the same rules (`broad_phase.rs`), the same contact classification
//! (`contact.rs`), launch (`launch.rs`), lean, gravity and steering — on the same level
//! geometry (converted from the prepared `World`, so ramp normals and platform periods are the
//! ones core uses), with the same tuning (converted from `Tuning`, derived values included)
//! and driven by the same recorded inputs. Where core needs 128-bit products, saturation or
//! exact integer square roots, this uses plain `f64` operations: that difference is what the
//! comparison measures.
//!
//! Rounding differs, so the f64 run drifts away from the fixed-point one; how far it follows
//! it is measured by `tracking()` and reported in PERFORMANCE.md, and `tests/measuring_stick.rs`
//! fails when it strays: other bounces, compression ticks or finish tick on a built-in level,
//! the tip more than 1 mm off at any tick, or an edited state clamped otherwise than by core.
//! A change to a rule or a clamp of the tick is mirrored here in the same commit, and so is a
//! change to how the tick finds its work (a lookup core skips and this still made would time
//! other work).

use std::ops::{Add, AddAssign, Div, Mul, Neg, Sub, SubAssign};

use pogo::core as fixed;
use pogo::core::world::{Path, SurfaceId, World};
use pogo::core::{Buttons, Events, Fx, Input, STEER_MAX, State, Tuning, Vec3, seconds_to_ticks};

/// An `Fx` as an `f64` (exact: 32 fractional bits and at most 31 integer bits fit in 53).
pub fn f(x: Fx) -> f64 {
    x.to_bits() as f64 / 4_294_967_296.0
}

/// Distance (m) the capsule stops short of a surface (core: `sweep::SKIN`).
const SKIN: f64 = 1.0 / 16_384.0;
/// Touching distance (m) (core: `sweep::CONTACT_SLOP`).
const CONTACT_SLOP: f64 = 1.0 / 4_096.0;
/// Negligible displacement into a surface (m) (core: `sweep::CREEP`).
const CREEP: f64 = 1.0 / 16_777_216.0;
const NEWTON_STEPS_MAX: u32 = 12;
const SWEEPS_MAX: usize = 4;
/// Most solids the first sweep's grid query keeps (core: `collision::NEARBY_MAX`).
const NEARBY_MAX: usize = 48;
/// Core's `SPEED_MAX` (m/s) and `POSITION_MAX` (m), the entry bounds (E) of `step.rs`.
const SPEED_MAX: f64 = fixed::SPEED_MAX.to_bits() as f64 / 4_294_967_296.0;
const POSITION_MAX: f64 = fixed::POSITION_MAX.to_bits() as f64 / 4_294_967_296.0;
const COORDINATE_MAX: f64 = 100_000.0;

// ---------------------------------------------------------------------------------------------
// Vectors and boxes

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct V3 {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

impl V3 {
    pub const ZERO: V3 = V3::new(0.0, 0.0, 0.0);
    pub const UP: V3 = V3::new(0.0, 1.0, 0.0);

    pub const fn new(x: f64, y: f64, z: f64) -> V3 {
        V3 { x, y, z }
    }

    pub fn from_fixed(v: Vec3) -> V3 {
        V3::new(f(v.x), f(v.y), f(v.z))
    }

    fn horizontal(self) -> V3 {
        V3::new(self.x, 0.0, self.z)
    }

    fn dot(self, o: V3) -> f64 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    fn length_squared(self) -> f64 {
        self.dot(self)
    }

    pub fn length(self) -> f64 {
        self.length_squared().sqrt()
    }

    fn normalize(self) -> Option<V3> {
        let len = self.length();
        (len > 0.0).then(|| self / len)
    }

    fn normalize_or(self, fallback: V3) -> V3 {
        self.normalize().unwrap_or(fallback)
    }

    fn clamp_length(self, max: f64) -> V3 {
        // As core: decided on the squared length first, the square root only when clamping.
        if max >= 0.0 && self.length_squared() <= max * max {
            return self;
        }
        self * (max / self.length())
    }

    fn cross(self, o: V3) -> V3 {
        V3::new(
            self.y * o.z - self.z * o.y,
            self.z * o.x - self.x * o.z,
            self.x * o.y - self.y * o.x,
        )
    }

    fn lerp(self, target: V3, t: f64) -> V3 {
        self + (target - self) * t
    }

    fn reject_from(self, axis: V3) -> V3 {
        self - axis * self.dot(axis)
    }

    fn clamp_to_cone(self, axis: V3, cos: f64, sin: f64) -> V3 {
        if self.dot(axis) >= cos {
            return self;
        }
        let tangent = self
            .reject_from(axis)
            .normalize()
            .unwrap_or_else(|| any_perpendicular(axis));
        let orthogonal = tangent.reject_from(axis);
        let tangent = if orthogonal.length_squared() >= 0.5 {
            orthogonal.normalize_or(tangent)
        } else {
            any_perpendicular(axis)
        };
        axis * cos + tangent * sin
    }
}

fn any_perpendicular(axis: V3) -> V3 {
    let helper = if axis.x.abs() <= axis.y.abs() && axis.x.abs() <= axis.z.abs() {
        V3::new(1.0, 0.0, 0.0)
    } else if axis.y.abs() <= axis.z.abs() {
        V3::UP
    } else {
        V3::new(0.0, 0.0, 1.0)
    };
    axis.cross(helper).normalize_or(V3::new(1.0, 0.0, 0.0))
}

impl Add for V3 {
    type Output = V3;
    fn add(self, o: V3) -> V3 {
        V3::new(self.x + o.x, self.y + o.y, self.z + o.z)
    }
}

impl Sub for V3 {
    type Output = V3;
    fn sub(self, o: V3) -> V3 {
        V3::new(self.x - o.x, self.y - o.y, self.z - o.z)
    }
}

impl Mul<f64> for V3 {
    type Output = V3;
    fn mul(self, s: f64) -> V3 {
        V3::new(self.x * s, self.y * s, self.z * s)
    }
}

impl Div<f64> for V3 {
    type Output = V3;
    fn div(self, s: f64) -> V3 {
        V3::new(self.x / s, self.y / s, self.z / s)
    }
}

impl Neg for V3 {
    type Output = V3;
    fn neg(self) -> V3 {
        V3::new(-self.x, -self.y, -self.z)
    }
}

impl AddAssign for V3 {
    fn add_assign(&mut self, o: V3) {
        *self = *self + o;
    }
}

impl SubAssign for V3 {
    fn sub_assign(&mut self, o: V3) {
        *self = *self - o;
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Bx {
    min: V3,
    max: V3,
}

impl Bx {
    const fn new(min: V3, max: V3) -> Bx {
        Bx { min, max }
    }

    fn from_fixed(b: &pogo::core::world::Aabb) -> Bx {
        Bx::new(V3::from_fixed(b.min), V3::from_fixed(b.max))
    }

    fn contains(&self, p: V3) -> bool {
        p.x >= self.min.x
            && p.x <= self.max.x
            && p.y >= self.min.y
            && p.y <= self.max.y
            && p.z >= self.min.z
            && p.z <= self.max.z
    }

    /// Whether `o` lies inside this box (core: `Aabb::holds`).
    fn holds(&self, o: &Bx) -> bool {
        self.min.x <= o.min.x
            && o.max.x <= self.max.x
            && self.min.y <= o.min.y
            && o.max.y <= self.max.y
            && self.min.z <= o.min.z
            && o.max.z <= self.max.z
    }

    fn overlaps(&self, o: &Bx) -> bool {
        self.min.x <= o.max.x
            && o.min.x <= self.max.x
            && self.min.y <= o.max.y
            && o.min.y <= self.max.y
            && self.min.z <= o.max.z
            && o.min.z <= self.max.z
    }

    fn translated(&self, offset: V3) -> Bx {
        Bx::new(self.min + offset, self.max + offset)
    }

    fn union(&self, o: &Bx) -> Bx {
        Bx::new(
            V3::new(
                self.min.x.min(o.min.x),
                self.min.y.min(o.min.y),
                self.min.z.min(o.min.z),
            ),
            V3::new(
                self.max.x.max(o.max.x),
                self.max.y.max(o.max.y),
                self.max.z.max(o.max.z),
            ),
        )
    }

    fn closest_point(&self, p: V3) -> V3 {
        V3::new(
            clamp(p.x, self.min.x, self.max.x),
            clamp(p.y, self.min.y, self.max.y),
            clamp(p.z, self.min.z, self.max.z),
        )
    }
}

/// Core's `Fx::clamp`: `min(hi).max(lo)` (never panics on `lo > hi`).
fn clamp(x: f64, lo: f64, hi: f64) -> f64 {
    x.min(hi).max(lo)
}

/// ⌊x⌋ as an integer, without a libm call (x is far inside the i64 range).
fn floor_i64(x: f64) -> i64 {
    let t = x as i64;
    if (t as f64) > x { t - 1 } else { t }
}

// ---------------------------------------------------------------------------------------------
// Broad phase: core's uniform grid, in f64 coordinates

const CELLS_MAX: u64 = 1 << 21;
const LARGE_BOX_CELLS: u64 = 64;

#[derive(Clone, Debug, Default)]
struct Grid {
    origin: [f64; 3],
    /// 1 / cell size (a power of two, so multiplying by it is exact).
    inv_cell: f64,
    dims: [u32; 3],
    cell_start: Vec<u32>,
    items: Vec<u32>,
    large: Vec<(u32, Bx)>,
}

impl Grid {
    fn build(boxes: &[Bx]) -> Grid {
        let Some(bounds) = boxes.iter().copied().reduce(|a, b| a.union(&b)) else {
            return Grid::default();
        };
        let origin = [bounds.min.x, bounds.min.y, bounds.min.z];
        let extent = [
            bounds.max.x - bounds.min.x,
            bounds.max.y - bounds.min.y,
            bounds.max.z - bounds.min.z,
        ];
        // Cells of 2^k m, k from 1 to 18, the smallest with at most CELLS_MAX cells (core's
        // rule, on the same extents).
        let mut k = 1;
        let (inv_cell, dims) = loop {
            let cell = f64::from(1u32 << k);
            let dims = extent.map(|e| floor_i64(e / cell) as u32 + 1);
            let cells = dims.iter().map(|&d| u64::from(d)).product::<u64>();
            if cells <= CELLS_MAX || k >= 18 {
                break (1.0 / cell, dims);
            }
            k += 1;
        };
        let mut grid = Grid {
            origin,
            inv_cell,
            dims,
            ..Grid::default()
        };
        // As core: a grid whose boxes are all large has no cells.
        let all_large = boxes.iter().all(|b| {
            let (lo, hi) = grid.cell_range(b);
            grid.is_large(lo, hi)
        });
        if all_large {
            grid.large = boxes
                .iter()
                .enumerate()
                .map(|(i, b)| (i as u32, *b))
                .collect();
            return grid;
        }
        let cell_count = dims.iter().map(|&d| d as usize).product::<usize>();
        let mut counts = vec![0u32; cell_count + 1];
        for b in boxes {
            let (lo, hi) = grid.cell_range(b);
            if grid.is_large(lo, hi) {
                continue;
            }
            for_cells(dims, lo, hi, |c| counts[c] += 1);
        }
        let mut start = 0u32;
        for c in counts.iter_mut() {
            let n = *c;
            *c = start;
            start += n;
        }
        let mut fill = counts.clone();
        grid.items = vec![0; start as usize];
        for (i, b) in boxes.iter().enumerate() {
            let (lo, hi) = grid.cell_range(b);
            if grid.is_large(lo, hi) {
                grid.large.push((i as u32, *b));
                continue;
            }
            let items = &mut grid.items;
            for_cells(dims, lo, hi, |c| {
                items[fill[c] as usize] = i as u32;
                fill[c] += 1;
            });
        }
        grid.cell_start = counts;
        grid
    }

    fn query(&self, region: &Bx, mut f: impl FnMut(u32)) {
        self.query_marked(region, |i, _| f(i));
    }

    /// As core: each box marked `true` if the grid has tested it (the large boxes).
    fn query_marked(&self, region: &Bx, mut f: impl FnMut(u32, bool)) {
        if !self.cell_start.is_empty() {
            if let Some((lo, hi)) = self.clamped_range(region) {
                let (dx, dz) = (self.dims[0] as usize, self.dims[2] as usize);
                for y in lo[1] as usize..=hi[1] as usize {
                    for z in lo[2] as usize..=hi[2] as usize {
                        let row = (y * dz + z) * dx;
                        let first = self.cell_start[row + lo[0] as usize] as usize;
                        let last = self.cell_start[row + hi[0] as usize + 1] as usize;
                        self.items[first..last].iter().for_each(|&i| f(i, false));
                    }
                }
            }
        }
        for (i, bounds) in &self.large {
            if bounds.overlaps(region) {
                f(*i, true);
            }
        }
    }

    /// Core's `Grid::query_point_below`: a point query over the boxes numbered below `limit`,
    /// each list's scan stopping at the first box numbered `limit` or more.
    fn query_point_below(&self, point: V3, limit: u32, mut f: impl FnMut(u32, bool)) {
        if limit == 0 {
            return;
        }
        let region = Bx::new(point, point);
        if !self.cell_start.is_empty() {
            if let Some((lo, _)) = self.clamped_range(&region) {
                let (dx, dz) = (self.dims[0] as usize, self.dims[2] as usize);
                let cell = (lo[1] as usize * dz + lo[2] as usize) * dx + lo[0] as usize;
                let (first, last) = (self.cell_start[cell], self.cell_start[cell + 1]);
                let items = &self.items[first as usize..last as usize];
                for &i in items.iter().take_while(|&&i| i < limit) {
                    f(i, false);
                }
            }
        }
        for (i, bounds) in self.large.iter().take_while(|(i, _)| *i < limit) {
            if bounds.overlaps(&region) {
                f(*i, true);
            }
        }
    }

    fn cell_of(&self, p: V3) -> [i64; 3] {
        let axis = |c: f64, a: usize| floor_i64((c - self.origin[a]) * self.inv_cell);
        [axis(p.x, 0), axis(p.y, 1), axis(p.z, 2)]
    }

    fn cell_range(&self, b: &Bx) -> ([u32; 3], [u32; 3]) {
        let clamp =
            |c: [i64; 3]| [0, 1, 2].map(|a| c[a].clamp(0, i64::from(self.dims[a]) - 1) as u32);
        (clamp(self.cell_of(b.min)), clamp(self.cell_of(b.max)))
    }

    fn clamped_range(&self, region: &Bx) -> Option<([u32; 3], [u32; 3])> {
        let (lo, hi) = (self.cell_of(region.min), self.cell_of(region.max));
        let (mut lo_cell, mut hi_cell) = ([0; 3], [0; 3]);
        for a in 0..3 {
            let last = i64::from(self.dims[a]) - 1;
            if hi[a] < 0 || lo[a] > last {
                return None;
            }
            lo_cell[a] = lo[a].clamp(0, last) as u32;
            hi_cell[a] = hi[a].clamp(0, last) as u32;
        }
        Some((lo_cell, hi_cell))
    }

    /// Core's `Grid::cut_to_cell`: `region` cut to the cell holding `point` (each cell
    /// `[origin + c·size, origin + (c + 1)·size)`, its upper side here a nanometre short of
    /// the next cell's), or unchanged for a grid without cells; `None` for a point in no cell.
    fn cut_to_cell(&self, point: V3, region: &Bx) -> Option<Bx> {
        if self.cell_start.is_empty() {
            return Some(*region);
        }
        let (cell, _) = self.clamped_range(&Bx::new(point, point))?;
        let size = 1.0 / self.inv_cell;
        let cut = |a: usize, min: f64, max: f64| {
            let lo = self.origin[a] + f64::from(cell[a]) * size;
            (min.max(lo), max.min(lo + size - 1e-9))
        };
        let (x0, x1) = cut(0, region.min.x, region.max.x);
        let (y0, y1) = cut(1, region.min.y, region.max.y);
        let (z0, z1) = cut(2, region.min.z, region.max.z);
        Some(Bx::new(V3::new(x0, y0, z0), V3::new(x1, y1, z1)))
    }

    fn is_large(&self, lo: [u32; 3], hi: [u32; 3]) -> bool {
        let span = (0..3)
            .map(|a| u64::from(hi[a] - lo[a] + 1))
            .product::<u64>();
        span > LARGE_BOX_CELLS
    }
}

fn for_cells(dims: [u32; 3], lo: [u32; 3], hi: [u32; 3], mut f: impl FnMut(usize)) {
    for y in lo[1]..=hi[1] {
        for z in lo[2]..=hi[2] {
            let row = (y as usize * dims[2] as usize + z as usize) * dims[0] as usize;
            for x in lo[0]..=hi[0] {
                f(row + x as usize);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Neighbourhoods: core's `neighbourhood.rs`

/// Most volumes a neighbourhood keeps (core: `neighbourhood::VOLUMES_KEPT`).
const VOLUMES_KEPT: usize = 16;
/// How far (m) a neighbourhood reaches beyond the place it was gathered for (core:
/// `neighbourhood::MARGIN_M`).
const MARGIN_M: f64 = 1.0;

/// Core's `Neighbourhood`: what the pogo keeps of the world around it from tick to tick.
#[derive(Clone, Copy, Debug)]
struct Hood {
    solids: Kept<NEARBY_MAX>,
    volumes: Kept<VOLUMES_KEPT>,
}

impl Hood {
    const EMPTY: Hood = Hood {
        solids: Kept::EMPTY,
        volumes: Kept::EMPTY,
    };
}

/// Core's `Kept`: up to `N` ids of what a grid reported for `region`, or that it reported
/// more (crowded).
#[derive(Clone, Copy, Debug)]
#[repr(C)]
struct Kept<const N: usize> {
    region: Bx,
    len: u32,
    ids: [u32; N],
}

impl<const N: usize> Kept<N> {
    const CROWDED: u32 = u32::MAX - 1;
    const UNSET: u32 = u32::MAX;
    const EMPTY: Kept<N> = Kept {
        region: Bx::new(V3::ZERO, V3::ZERO),
        len: Self::UNSET,
        ids: [0; N],
    };

    fn holds(&self, region: &Bx) -> bool {
        self.len != Self::UNSET && self.region.holds(region)
    }

    fn holds_point(&self, point: V3) -> bool {
        self.len != Self::UNSET && self.region.contains(point)
    }

    fn start(&mut self, region: Bx) {
        self.region = region;
        self.len = 0;
    }

    fn push(&mut self, i: u32) {
        match self.ids.get_mut(self.len as usize) {
            Some(slot) => {
                *slot = i;
                self.len += 1;
            }
            None => self.len = Self::CROWDED,
        }
    }

    fn unset(&mut self) {
        self.len = Self::UNSET;
    }

    fn listed(&self) -> Option<&[u32]> {
        self.ids.get(..self.len as usize)
    }
}

/// Core's `neighbourhood::grown`.
fn grown(region: &Bx) -> Bx {
    let margin = V3::new(MARGIN_M, MARGIN_M, MARGIN_M);
    Bx::new(region.min - margin, region.max + margin)
}

/// Core's `neighbourhood::for_each_volume_at`: the volumes containing `point` (the zones
/// only if `zones_only`), from the neighbourhood where it holds the point.
fn for_each_volume_near(
    world: &FWorld,
    hood: &mut Hood,
    point: V3,
    zones_only: bool,
    mut f: impl FnMut(Kind),
) {
    if zones_only && !world.zones_bounds.is_some_and(|b| b.contains(point)) {
        return;
    }
    let kept = &mut hood.volumes;
    if !kept.holds_point(point) {
        let region = grown(&Bx::new(point, point));
        match world.volumes_grid.cut_to_cell(point, &region) {
            Some(region) => {
                kept.start(region);
                world.for_each_volume_overlapping(&region, |i| kept.push(i));
            }
            None => kept.unset(),
        }
    }
    let zones = world.zones.len() as u32;
    let Some(ids) = kept.listed() else {
        if zones_only {
            world.for_each_zone_at(point, |i| f(Kind::Zone(i)));
        } else {
            world.for_each_volume_at(point, f);
        }
        return;
    };
    for &i in ids {
        if zones_only && i >= zones {
            continue;
        }
        let (kind, bounds) = &world.volumes[i as usize];
        if bounds.contains(point) {
            f(*kind);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// World and tuning

#[derive(Clone, Copy, Debug)]
enum Kind {
    Zone(u32),
    Checkpoint(u32),
    Finish,
    Kill,
}

struct Platform {
    size: V3,
    from: V3,
    to: V3,
    period_ticks: u32,
    /// ⌊2⁶⁴ / period_ticks⌋, for the phase without a division (as core).
    period_reciprocal: u128,
    /// 1 / (period_ticks / 2).
    inv_half: f64,
    /// Every box the platform occupies, grown by 2⁻¹⁰ m (core: `World::platform_reach`).
    reach: Bx,
    no_bounce: bool,
}

struct Ramp {
    normal: V3,
    offset: f64,
    bounds: Option<Bx>,
    /// The bounds grown by `CONTACT_SLOP` (core: `World::ramp_reach`).
    reach: Option<Bx>,
    no_bounce: bool,
}

struct Zone {
    gravity_scale: f64,
    wind: V3,
}

/// Core's `world::PlatformMove`: a platform during one tick.
#[derive(Clone, Copy, Debug)]
struct PlatformMove {
    start: Bx,
    moved: V3,
}

pub struct FWorld {
    spawn: V3,
    solids: Vec<Bx>,
    solid_no_bounce: Vec<bool>,
    solids_grid: Grid,
    ramps: Vec<Ramp>,
    platforms: Vec<Platform>,
    zones: Vec<Zone>,
    checkpoint_spawns: Vec<V3>,
    volumes: Vec<(Kind, Bx)>,
    volumes_grid: Grid,
    /// The zones' union (core: `World`'s `zones_bounds`).
    zones_bounds: Option<Bx>,
}

impl FWorld {
    /// The same level as `world` (prepared for the tick rate `rate`).
    pub fn new(world: &World, rate: u32) -> FWorld {
        let desc = world.desc();
        let solids: Vec<Bx> = desc
            .solids
            .iter()
            .map(|s| Bx::from_fixed(&s.bounds))
            .collect();
        let solids_grid = Grid::build(&solids);
        let ramps = (0..world.ramp_count())
            .map(|i| {
                let ramp = world.ramp(i);
                let plane = world.ramp_plane(i);
                Ramp {
                    normal: V3::from_fixed(plane.normal),
                    offset: f(plane.offset),
                    bounds: ramp.bounds.as_ref().map(Bx::from_fixed),
                    reach: world.ramp_reach(i).map(Bx::from_fixed),
                    no_bounce: ramp.no_bounce,
                }
            })
            .collect();
        let platforms = desc
            .platforms
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let Path::PingPong { from, to, period } = p.path;
                let ticks = seconds_to_ticks(period, rate).0.max(2);
                let period_ticks = ticks + ticks % 2;
                let reach = Bx::from_fixed(world.platform_reach(i as u32));
                Platform {
                    size: V3::from_fixed(p.size),
                    from: V3::from_fixed(from),
                    to: V3::from_fixed(to),
                    period_ticks,
                    period_reciprocal: (1u128 << 64) / u128::from(period_ticks),
                    inv_half: 1.0 / f64::from(period_ticks / 2),
                    reach,
                    no_bounce: p.no_bounce,
                }
            })
            .collect();
        let mut volumes = Vec::new();
        volumes.extend(
            desc.zones
                .iter()
                .enumerate()
                .map(|(i, z)| (Kind::Zone(i as u32), Bx::from_fixed(&z.bounds))),
        );
        volumes.extend(
            desc.checkpoints
                .iter()
                .enumerate()
                .map(|(i, c)| (Kind::Checkpoint(i as u32), Bx::from_fixed(&c.bounds))),
        );
        volumes.extend(
            desc.finishes
                .iter()
                .map(|b| (Kind::Finish, Bx::from_fixed(b))),
        );
        volumes.extend(desc.kills.iter().map(|b| (Kind::Kill, Bx::from_fixed(b))));
        let volume_boxes: Vec<Bx> = volumes.iter().map(|(_, b)| *b).collect();
        FWorld {
            spawn: V3::from_fixed(desc.spawn),
            solid_no_bounce: desc.solids.iter().map(|s| s.no_bounce).collect(),
            solids,
            solids_grid,
            ramps,
            platforms,
            zones: desc
                .zones
                .iter()
                .map(|z| Zone {
                    gravity_scale: f(z.gravity_scale),
                    wind: V3::from_fixed(z.wind),
                })
                .collect(),
            checkpoint_spawns: desc
                .checkpoints
                .iter()
                .map(|c| V3::from_fixed(c.spawn))
                .collect(),
            volumes_grid: Grid::build(&volume_boxes),
            zones_bounds: volumes
                .iter()
                .filter(|(kind, _)| matches!(kind, Kind::Zone(_)))
                .map(|(_, b)| *b)
                .reduce(|a, b| a.union(&b)),
            volumes,
        }
    }

    fn platform_position(&self, i: u32, tick: u32) -> V3 {
        let p = &self.platforms[i as usize];
        let half = p.period_ticks / 2;
        let q = (u128::from(tick) * p.period_reciprocal) >> 64;
        let mut phase = u128::from(tick) - q * u128::from(p.period_ticks);
        if phase >= u128::from(p.period_ticks) {
            phase -= u128::from(p.period_ticks);
        }
        let phase = phase as u32;
        let (start, end, step) = if phase < half {
            (p.from, p.to, phase)
        } else {
            (p.to, p.from, phase - half)
        };
        start + (end - start) * (f64::from(step) * p.inv_half)
    }

    fn platform_displacement(&self, i: u32, tick: u32) -> V3 {
        self.platform_during(i, tick).moved
    }

    /// Core's `World::platform_bounds`: the platform's box at the start of `tick`.
    fn platform_bounds(&self, i: u32, tick: u32) -> Bx {
        let start = self.platform_position(i, tick);
        Bx::new(start, start + self.platforms[i as usize].size)
    }

    /// Platform `i`'s box at the start of `tick` and how far it moves during it (core:
    /// `World::platform_during`, two path evaluations).
    fn platform_during(&self, i: u32, tick: u32) -> PlatformMove {
        let start = self.platform_position(i, tick);
        let moved = self.platform_position(i, tick.saturating_add(1)) - start;
        PlatformMove {
            start: Bx::new(start, start + self.platforms[i as usize].size),
            moved,
        }
    }

    /// Each solid overlapping `region` (core: `World::for_each_solid_overlapping`).
    fn for_each_solid_overlapping(&self, region: &Bx, mut f: impl FnMut(u32)) {
        self.solids_grid.query_marked(region, |i, tested| {
            if tested || self.solids[i as usize].overlaps(region) {
                f(i);
            }
        });
    }

    /// Core's `World::for_each_zone_at`: nothing outside the zones' union; the zones are the
    /// first volumes.
    fn for_each_zone_at(&self, point: V3, mut f: impl FnMut(u32)) {
        if !self.zones_bounds.is_some_and(|b| b.contains(point)) {
            return;
        }
        let zones = self.zones.len() as u32;
        self.volumes_grid
            .query_point_below(point, zones, |i, tested| {
                let (kind, bounds) = &self.volumes[i as usize];
                if let Kind::Zone(zone) = kind {
                    if tested || bounds.contains(point) {
                        f(*zone);
                    }
                }
            });
    }

    /// Core's `World::for_each_volume_overlapping`.
    fn for_each_volume_overlapping(&self, region: &Bx, mut f: impl FnMut(u32)) {
        self.volumes_grid.query_marked(region, |i, tested| {
            if tested || self.volumes[i as usize].1.overlaps(region) {
                f(i);
            }
        });
    }

    fn for_each_volume_at(&self, point: V3, mut f: impl FnMut(Kind)) {
        let region = Bx::new(point, point);
        self.volumes_grid.query_marked(&region, |i, tested| {
            let (kind, bounds) = &self.volumes[i as usize];
            if tested || bounds.contains(point) {
                f(*kind);
            }
        });
    }
}

/// The tuning in f64: every key and derived value the tick reads.
pub struct FTuning {
    tick_rate: f64,
    gravity: f64,
    terminal_speed: f64,
    tip_height: f64,
    bounce_normal_y_min: f64,
    ricochet_restitution: f64,
    tip_grace_ticks: u32,
    stun_speed: f64,
    normal_weight: f64,
    lean_weight: f64,
    momentum_weight: f64,
    momentum_reference_speed: f64,
    base_bounce_speed: f64,
    impact_transfer: f64,
    combo_bonus: f64,
    max_combo: u32,
    min_launch_speed: f64,
    max_launch_speed: f64,
    tangential_keep: f64,
    max_total_speed: f64,
    max_horizontal_speed: f64,
    assist_strength: f64,
    air_accel: f64,
    air_control_min: f64,
    air_control_fade_speed: f64,
    dive_gravity_scale: f64,
    fall_gravity_scale: f64,
    kill_height: f64,
    dt: f64,
    half_dt_squared: f64,
    compression_ticks: u32,
    relaunch_cooldown_ticks: u32,
    stun_ticks: u32,
    trick_ticks: u32,
    launch_cone_cos: f64,
    launch_cone_sin: f64,
    assist_cos: f64,
    perfect_cos: f64,
    lean_max_sin: f64,
    lean_step_cos: f64,
    lean_step_sin: f64,
    perfect_min_hop_squared: f64,
    air_control_fade_speed_squared: f64,
    air_control_fade_per_speed_squared: f64,
    capsule: Capsule,
}

impl FTuning {
    pub fn new(t: &Tuning) -> FTuning {
        let s = t.spec();
        let d = t.derived();
        FTuning {
            tick_rate: f64::from(s.tick_rate),
            gravity: f(s.gravity),
            terminal_speed: f(s.terminal_speed),
            tip_height: f(s.tip_height),
            bounce_normal_y_min: f(s.bounce_normal_y_min),
            ricochet_restitution: f(s.ricochet_restitution),
            tip_grace_ticks: s.tip_grace_ticks,
            stun_speed: f(s.stun_speed),
            normal_weight: f(s.normal_weight),
            lean_weight: f(s.lean_weight),
            momentum_weight: f(s.momentum_weight),
            momentum_reference_speed: f(s.momentum_reference_speed),
            base_bounce_speed: f(s.base_bounce_speed),
            impact_transfer: f(s.impact_transfer),
            combo_bonus: f(s.combo_bonus),
            max_combo: s.max_combo,
            min_launch_speed: f(s.min_launch_speed),
            max_launch_speed: f(s.max_launch_speed),
            tangential_keep: f(s.tangential_keep),
            max_total_speed: f(s.max_total_speed),
            max_horizontal_speed: f(s.max_horizontal_speed),
            assist_strength: f(s.assist_strength),
            air_accel: f(s.air_accel),
            air_control_min: f(s.air_control_min),
            air_control_fade_speed: f(s.air_control_fade_speed),
            dive_gravity_scale: f(s.dive_gravity_scale),
            fall_gravity_scale: f(s.fall_gravity_scale),
            kill_height: f(s.kill_height),
            dt: 1.0 / f64::from(s.tick_rate),
            half_dt_squared: 0.5 / f64::from(s.tick_rate * s.tick_rate),
            compression_ticks: d.compression_ticks.0,
            relaunch_cooldown_ticks: d.relaunch_cooldown_ticks.0,
            stun_ticks: d.stun_ticks.0,
            trick_ticks: d.trick_ticks.0,
            launch_cone_cos: f(d.launch_cone_cos),
            launch_cone_sin: f(d.launch_cone_sin),
            assist_cos: f(d.assist_cos),
            perfect_cos: f(d.perfect_cos),
            lean_max_sin: f(d.lean_max_sin),
            lean_step_cos: f(d.lean_step_cos),
            lean_step_sin: f(d.lean_step_sin),
            perfect_min_hop_squared: f(d.perfect_min_hop_squared),
            air_control_fade_speed_squared: f(d.air_control_fade_speed_squared),
            air_control_fade_per_speed_squared: f(d.air_control_fade_per_speed_squared),
            capsule: Capsule {
                radius: f(s.body_radius),
                height: f(s.body_height),
            },
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Sweeps (core: sweep.rs)

#[derive(Clone, Copy, Debug)]
struct Capsule {
    radius: f64,
    height: f64,
}

impl Capsule {
    fn core_length(&self) -> f64 {
        (self.height - self.radius - self.radius).max(0.0)
    }

    fn base(&self, tip: V3) -> V3 {
        tip + V3::new(0.0, self.radius, 0.0)
    }

    fn bounds(&self, tip: V3) -> Bx {
        let r = self.radius;
        Bx::new(
            V3::new(tip.x - r, tip.y, tip.z - r),
            V3::new(tip.x + r, tip.y + self.height, tip.z + r),
        )
    }

    fn swept_bounds(&self, tip: V3, d: V3) -> Bx {
        let slop = V3::new(CONTACT_SLOP, CONTACT_SLOP, CONTACT_SLOP);
        let b = self.bounds(tip).union(&self.bounds(tip + d));
        Bx::new(b.min - slop, b.max + slop)
    }
}

#[derive(Clone, Copy, Debug)]
struct Touch {
    t: f64,
    normal: V3,
    height_on_body: f64,
}

fn stretched(capsule: &Capsule, b: &Bx) -> Bx {
    let mut s = *b;
    s.min.y -= capsule.core_length();
    s
}

fn box_distance(a: V3, s: &Bx) -> (f64, V3) {
    let delta = a - s.closest_point(a);
    let len = delta.length();
    if len > 0.0 {
        return (len, delta / len);
    }
    let faces = [
        (a.x - s.min.x, V3::new(-1.0, 0.0, 0.0)),
        (s.max.x - a.x, V3::new(1.0, 0.0, 0.0)),
        (a.y - s.min.y, V3::new(0.0, -1.0, 0.0)),
        (s.max.y - a.y, V3::UP),
        (a.z - s.min.z, V3::new(0.0, 0.0, -1.0)),
        (s.max.z - a.z, V3::new(0.0, 0.0, 1.0)),
    ];
    let (depth, n) = faces
        .into_iter()
        .fold(faces[3], |best, f| if f.0 < best.0 { f } else { best });
    (-depth, n)
}

fn contact_height(capsule: &Capsule, a: V3, b: &Bx, normal: V3) -> f64 {
    let s = clamp(b.max.y - a.y, 0.0, capsule.core_length());
    let r = capsule.radius;
    clamp(s + r - normal.y * r, 0.0, capsule.height)
}

/// As core: each crossing placed against 0 and 1 before it is divided, only those strictly
/// inside (or at 1) divided.
fn slab(a: V3, d: V3, e: &Bx) -> Option<f64> {
    let mut enter = 0.0f64;
    let mut exit = 1.0f64;
    for (p, dir, lo, hi) in [
        (a.x, d.x, e.min.x, e.max.x),
        (a.y, d.y, e.min.y, e.max.y),
        (a.z, d.z, e.min.z, e.max.z),
    ] {
        if dir == 0.0 {
            if p < lo || p > hi {
                return None;
            }
            continue;
        }
        let (lo, hi) = (lo.min(hi), lo.max(hi));
        let (near_face, far_face, m) = if dir > 0.0 {
            (lo, hi, dir)
        } else {
            (hi, lo, -dir)
        };
        let sign = dir.signum();
        let (near, far) = ((near_face - p) * sign, (far_face - p) * sign);
        if near > 0.0 {
            if near > m {
                return None;
            }
            enter = enter.max(near / m);
        }
        if far < 0.0 {
            return None;
        }
        if far < m {
            exit = exit.min(far / m);
        }
        if enter > exit {
            return None;
        }
    }
    Some(enter)
}

fn sweep_box(capsule: &Capsule, tip: V3, d: V3, b: &Bx) -> Option<Touch> {
    let s = stretched(capsule, b);
    let r = capsule.radius;
    let a0 = capsule.base(tip);
    let g = r + CONTACT_SLOP;
    let grown = Bx::new(s.min - V3::new(g, g, g), s.max + V3::new(g, g, g));
    let mut t = slab(a0, d, &grown)?;
    for _ in 0..NEWTON_STEPS_MAX {
        let a = a0 + d * t;
        let (dist, n) = box_distance(a, &s);
        let gap = dist - r - SKIN;
        let rate = n.dot(d);
        if gap <= CONTACT_SLOP - SKIN {
            if rate >= -CREEP {
                return None;
            }
            return Some(Touch {
                t,
                normal: n,
                height_on_body: contact_height(capsule, a, b, n),
            });
        }
        if rate >= 0.0 {
            return None;
        }
        let next = t + gap / (-rate);
        if next > 1.0 {
            return None;
        }
        t = next;
    }
    let a = a0 + d * t;
    let (_, n) = box_distance(a, &s);
    Some(Touch {
        t,
        normal: n,
        height_on_body: contact_height(capsule, a, b, n),
    })
}

fn depenetrate_box(capsule: &Capsule, tip: V3, b: &Bx) -> Option<(f64, V3)> {
    let a = capsule.base(tip);
    let s = stretched(capsule, b);
    // As core: most boxes are rejected on the squared distance, before the square root.
    let delta = a - s.closest_point(a);
    let r = capsule.radius;
    if delta != V3::ZERO && !(r > 0.0 && delta.length_squared() < r * r) {
        return None;
    }
    let (dist, n) = box_distance(a, &s);
    let overlap = capsule.radius - dist;
    (overlap > 0.0).then_some((overlap + SKIN, n))
}

struct Plane {
    normal: V3,
    offset: f64,
    bounds: Option<Bx>,
}

impl Plane {
    fn distance(&self, capsule: &Capsule, a: V3) -> f64 {
        let n = self.normal;
        let reach = (capsule.core_length() * n.y).min(0.0);
        n.dot(a) + reach - self.offset - capsule.radius
    }

    fn support(&self, capsule: &Capsule, a: V3) -> V3 {
        let lift = if self.normal.y < 0.0 {
            capsule.core_length()
        } else {
            0.0
        };
        a + V3::new(0.0, lift, 0.0) - self.normal * capsule.radius
    }

    fn in_bounds(&self, p: V3) -> bool {
        let slop = V3::new(CONTACT_SLOP, CONTACT_SLOP, CONTACT_SLOP);
        self.bounds
            .is_none_or(|b| Bx::new(b.min - slop, b.max + slop).contains(p))
    }
}

fn sweep_plane(capsule: &Capsule, tip: V3, d: V3, plane: &Plane) -> Option<Touch> {
    let rate = plane.normal.dot(d);
    if rate >= -CREEP {
        return None;
    }
    let a0 = capsule.base(tip);
    let s0 = plane.distance(capsule, a0);
    if s0 < -CONTACT_SLOP - capsule.radius {
        return None;
    }
    let t = if s0 <= CONTACT_SLOP {
        0.0
    } else {
        (s0 - SKIN) / (-rate)
    };
    if t > 1.0 {
        return None;
    }
    let a = a0 + d * t;
    let point = plane.support(capsule, a);
    let crossing = if s0 > 0.0 {
        (s0 / (-rate)).min(1.0)
    } else {
        0.0
    };
    let crossing_point = plane.support(capsule, a0 + d * crossing);
    if !plane.in_bounds(point) && !plane.in_bounds(crossing_point) {
        return None;
    }
    let height = clamp(point.y - tip.y - d.y * t, 0.0, capsule.height);
    Some(Touch {
        t,
        normal: plane.normal,
        height_on_body: height,
    })
}

fn depenetrate_plane(capsule: &Capsule, tip: V3, plane: &Plane) -> Option<(f64, V3)> {
    let a = capsule.base(tip);
    let s = plane.distance(capsule, a);
    let overlapping = s < 0.0 && s > -capsule.radius && plane.in_bounds(plane.support(capsule, a));
    overlapping.then_some((SKIN - s, plane.normal))
}

// ---------------------------------------------------------------------------------------------
// Rules (core: contact.rs, launch.rs, lean.rs, air.rs, input.rs)

#[derive(Clone, Copy, PartialEq, Debug)]
enum Verdict {
    Bounce,
    Ricochet,
    BodyHit { stun: bool },
    Ignore(Ignored),
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Ignored {
    Stale,
    NoBounceSurface,
    Separating,
    Cooldown,
}

struct Contact {
    height_on_body: f64,
    no_bounce: bool,
    normal_speed: f64,
    normal_y: f64,
    since_launch: u32,
    age: u32,
}

fn classify(c: &Contact, t: &FTuning) -> Verdict {
    if c.age > t.tip_grace_ticks {
        return Verdict::Ignore(Ignored::Stale);
    }
    if c.height_on_body > t.tip_height {
        if c.age > 0 {
            return Verdict::Ignore(Ignored::Stale);
        }
        return Verdict::BodyHit {
            stun: -c.normal_speed > t.stun_speed,
        };
    }
    if c.no_bounce {
        return Verdict::Ignore(Ignored::NoBounceSurface);
    }
    if c.normal_speed > 0.0 {
        return Verdict::Ignore(Ignored::Separating);
    }
    if c.since_launch < t.relaunch_cooldown_ticks {
        return Verdict::Ignore(Ignored::Cooldown);
    }
    if c.normal_y < t.bounce_normal_y_min {
        return Verdict::Ricochet;
    }
    Verdict::Bounce
}

fn ricochet(velocity: V3, normal: V3, surface_velocity: V3, t: &FTuning) -> V3 {
    let along = (velocity - surface_velocity).dot(normal);
    if along >= 0.0 {
        return velocity;
    }
    velocity - normal * (along * (1.0 + t.ricochet_restitution))
}

fn is_perfect_landing(
    lean_up: V3,
    normal: V3,
    last_launch: Option<V3>,
    landing_point: V3,
    t: &FTuning,
) -> bool {
    let Some(launch_point) = last_launch else {
        return false;
    };
    let straight = lean_up.dot(normal) >= t.perfect_cos;
    let hop_squared = (landing_point - launch_point).horizontal().length_squared();
    straight && hop_squared >= t.perfect_min_hop_squared
}

/// `launch::compute`'s velocity.
pub fn launch(
    normal: V3,
    lean_up: V3,
    velocity: V3,
    surface_velocity: V3,
    combo: u32,
    t: &FTuning,
) -> V3 {
    let n = normal;
    let relative = velocity - surface_velocity;
    let impact = (-relative.dot(n)).max(0.0);
    let tangential = relative.reject_from(n);
    let momentum_scale = t.momentum_weight / t.momentum_reference_speed;
    let weighted = n * t.normal_weight + lean_up * t.lean_weight + tangential * momentum_scale;
    let direction = weighted
        .normalize_or(n)
        .clamp_to_cone(n, t.launch_cone_cos, t.launch_cone_sin);
    let direction = if lean_up.dot(n) >= t.assist_cos {
        direction.lerp(n, t.assist_strength).normalize_or(n)
    } else {
        direction
    };
    let combo_steps = combo.min(t.max_combo);
    let speed = clamp(
        t.base_bounce_speed + impact * t.impact_transfer + t.combo_bonus * f64::from(combo_steps),
        t.min_launch_speed,
        t.max_launch_speed,
    );
    let uncapped = direction * speed + tangential * t.tangential_keep;
    let total = uncapped.clamp_length(t.max_total_speed);
    let horizontal = total.horizontal().clamp_length(t.max_horizontal_speed);
    V3::new(horizontal.x, total.y, horizontal.z) + surface_velocity
}

fn stick(input: Input) -> V3 {
    let max = f64::from(STEER_MAX);
    let axis = |s: i8| f64::from(s.max(-STEER_MAX)) / max;
    V3::new(axis(input.steer_x), 0.0, axis(input.steer_z)).clamp_length(1.0)
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Lean {
    x: f64,
    z: f64,
}

impl Lean {
    fn up(self) -> V3 {
        let y = (1.0 - (self.x * self.x + self.z * self.z)).max(0.0).sqrt();
        V3::new(self.x, y, self.z)
    }

    fn from_horizontal(h: V3) -> Lean {
        Lean { x: h.x, z: h.z }
    }

    /// Core's `Lean::follow_unit_stick`: the stick is `stick()`'s, within the unit circle.
    fn follow(self, stick: V3, t: &FTuning) -> Lean {
        let target = Lean::from_horizontal(stick * t.lean_max_sin);
        let current =
            Lean::from_horizontal(V3::new(self.x, 0.0, self.z).clamp_length(t.lean_max_sin));
        if current == target {
            return target;
        }
        let (u, w) = (current.up(), target.up());
        let cos = u.dot(w);
        if cos >= t.lean_step_cos {
            return target;
        }
        let Some(toward) = (w - u * cos).normalize() else {
            return target;
        };
        let turned = u * t.lean_step_cos + toward * t.lean_step_sin;
        Lean::from_horizontal(turned.horizontal().clamp_length(t.lean_max_sin))
    }
}

fn gravity(vertical_speed: f64, diving: bool, zone_scale: f64, t: &FTuning) -> f64 {
    let scale = match (vertical_speed < 0.0, diving) {
        (false, _) => 1.0,
        (true, true) => t.dive_gravity_scale,
        (true, false) => t.fall_gravity_scale,
    };
    -(t.gravity * scale * zone_scale)
}

fn steering(stick: V3, velocity: V3, t: &FTuning) -> V3 {
    let stick = stick.horizontal();
    if stick == V3::ZERO {
        return V3::ZERO;
    }
    let faded = velocity
        .horizontal()
        .length_squared()
        .min(t.air_control_fade_speed_squared)
        * t.air_control_fade_per_speed_squared;
    let control = (1.0 - faded).max(t.air_control_min);
    stick * (t.air_accel * control)
}

fn limit_fall_speed(v: V3, t: &FTuning) -> V3 {
    V3::new(v.x, v.y.max(-t.terminal_speed), v.z)
}

fn limit_fall_acceleration(a: V3, v: V3, duration: f64, t: &FTuning) -> V3 {
    let floor = -t.terminal_speed;
    if duration <= 0.0 || v.y + a.y * duration >= floor {
        return a;
    }
    V3::new(a.x, ((floor - v.y) / duration).max(a.y), a.z)
}

// ---------------------------------------------------------------------------------------------
// The pogo and the tick (core: pogo.rs, step.rs)

#[derive(Clone, Copy, Debug, PartialEq)]
struct Compression {
    ticks_left: u32,
    normal: V3,
    surface: SurfaceId,
    approach: V3,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct TipMemory {
    normal: V3,
    surface: SurfaceId,
    age: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FPogo {
    pub state: State,
    pub position: V3,
    pub velocity: V3,
    lean: Lean,
    combo: u32,
    pub bounces: u32,
    apex: f64,
    last_launch: Option<(u32, V3, SurfaceId)>,
    stun_ticks_left: u32,
    trick_ticks_left: Option<u32>,
    buttons_held: Buttons,
    compression: Option<Compression>,
    tip_memory: Option<TipMemory>,
    checkpoint: Option<u32>,
    pub finish_tick: Option<u32>,
    events: Events,
}

impl FPogo {
    /// Core's pogo in f64. Every field is named on both sides (no `..`): a field added to
    /// core's `Pogo` (or to this one) is a compile error here until the mirror has it.
    pub fn from_fixed(p: &fixed::Pogo) -> FPogo {
        let fixed::Pogo {
            state,
            position,
            velocity,
            lean: fixed::Lean { x, z },
            combo,
            bounces,
            apex,
            last_launch,
            stun_ticks_left,
            trick_ticks_left,
            buttons_held,
            compression,
            tip_memory,
            checkpoint,
            finish_tick,
            events,
        } = *p;
        let to_launch = |l: fixed::Launch| {
            let fixed::Launch {
                tick,
                point,
                surface,
            } = l;
            (tick.0, V3::from_fixed(point), surface)
        };
        let to_compression = |c: fixed::Compression| {
            let fixed::Compression {
                ticks_left,
                normal,
                surface,
                approach,
            } = c;
            Compression {
                ticks_left,
                normal: V3::from_fixed(normal),
                surface,
                approach: V3::from_fixed(approach),
            }
        };
        let to_tip_memory = |m: fixed::TipMemory| {
            let fixed::TipMemory {
                normal,
                surface,
                age,
            } = m;
            TipMemory {
                normal: V3::from_fixed(normal),
                surface,
                age,
            }
        };
        FPogo {
            state,
            position: V3::from_fixed(position),
            velocity: V3::from_fixed(velocity),
            lean: Lean { x: f(x), z: f(z) },
            combo,
            bounces,
            apex: f(apex),
            last_launch: last_launch.map(to_launch),
            stun_ticks_left,
            trick_ticks_left,
            buttons_held,
            compression: compression.map(to_compression),
            tip_memory: tip_memory.map(to_tip_memory),
            checkpoint,
            finish_tick: finish_tick.map(|t| t.0),
            events,
        }
    }

    fn new(spawn: V3) -> FPogo {
        FPogo {
            state: State::Respawn,
            position: spawn,
            velocity: V3::ZERO,
            lean: Lean::default(),
            combo: 0,
            bounces: 0,
            apex: f64::MIN,
            last_launch: None,
            stun_ticks_left: 0,
            trick_ticks_left: None,
            buttons_held: Buttons::NONE,
            compression: None,
            tip_memory: None,
            checkpoint: None,
            finish_tick: None,
            events: Events::NONE,
        }
    }
}

/// One pogo in the f64 world, stepped like `Simulation` with one player.
pub struct FSim<'a> {
    world: &'a FWorld,
    tuning: &'a FTuning,
    pub tick: u32,
    pub pogo: FPogo,
    /// Kept from tick to tick, as a `Simulation` keeps its pogos' (not state).
    hood: Hood,
}

/// The tick number and the pogo: what a snapshot holds.
pub type FSnapshot = (u32, FPogo);

impl<'a> FSim<'a> {
    pub fn new(world: &'a FWorld, tuning: &'a FTuning) -> FSim<'a> {
        FSim {
            world,
            tuning,
            tick: 0,
            pogo: FPogo::new(world.spawn),
            hood: Hood::EMPTY,
        }
    }

    pub fn snapshot(&self) -> FSnapshot {
        (self.tick, self.pogo.clone())
    }

    pub fn restore(&mut self, snapshot: &FSnapshot) {
        self.tick = snapshot.0;
        self.pogo.clone_from(&snapshot.1);
    }

    pub fn step(&mut self, input: Input) {
        let ctx = Ctx {
            world: self.world,
            tuning: self.tuning,
            capsule: self.tuning.capsule,
            tick: self.tick,
        };
        step_pogo(&ctx, &mut self.pogo, &mut self.hood, input);
        self.tick = self.tick.saturating_add(1);
    }
}

struct Ctx<'a> {
    world: &'a FWorld,
    tuning: &'a FTuning,
    capsule: Capsule,
    tick: u32,
}

fn step_pogo(ctx: &Ctx, pogo: &mut FPogo, hood: &mut Hood, input: Input) {
    pogo.events = Events::NONE;
    match pogo.state {
        State::Finished => {
            pogo.buttons_held = input.buttons;
            return;
        }
        State::Respawn => respawn(ctx, pogo),
        State::Airborne | State::Compression | State::Stunned => {}
    }
    // Bound (E): a no-op for every state a tick leaves; a state edited beyond it is brought
    // back, as core brings it back.
    let p = pogo.position;
    let c = |x: f64| clamp(x, -POSITION_MAX, POSITION_MAX);
    pogo.position = V3::new(c(p.x), c(p.y), c(p.z));
    pogo.velocity = clamp_speed(pogo.velocity);
    let stick = stick(input);
    controls(ctx, pogo, input, stick);
    if pogo.state == State::Compression {
        ride(ctx, pogo);
    } else {
        fly(ctx, pogo, hood, input, stick);
    }
    volumes(ctx, pogo, hood);
    pogo.buttons_held = input.buttons;
    pogo.apex = pogo.apex.max(pogo.position.y);
}

fn respawn(ctx: &Ctx, pogo: &mut FPogo) {
    let spawn = pogo
        .checkpoint
        .map_or(ctx.world.spawn, |i| ctx.world.checkpoint_spawns[i as usize]);
    *pogo = FPogo {
        state: State::Airborne,
        position: spawn,
        apex: pogo.apex,
        bounces: pogo.bounces,
        checkpoint: pogo.checkpoint,
        buttons_held: pogo.buttons_held,
        ..FPogo::new(spawn)
    };
    pogo.events.insert(Events::TELEPORT);
}

fn controls(ctx: &Ctx, pogo: &mut FPogo, input: Input, stick: V3) {
    if pogo.stun_ticks_left > 0 {
        pogo.stun_ticks_left -= 1;
        if pogo.stun_ticks_left == 0 && pogo.state == State::Stunned {
            pogo.state = State::Airborne;
        }
    }
    let stick = if pogo.stun_ticks_left > 0 {
        V3::ZERO
    } else {
        stick
    };
    pogo.lean = pogo.lean.follow(stick, ctx.tuning);
    match pogo.trick_ticks_left {
        Some(left) => pogo.trick_ticks_left = Some(left.saturating_sub(1)),
        None => {
            let pressed = input.buttons.contains(Buttons::TRICK)
                && !pogo.buttons_held.contains(Buttons::TRICK);
            if pressed && pogo.state == State::Airborne {
                pogo.trick_ticks_left = Some(ctx.tuning.trick_ticks);
                pogo.events.insert(Events::TRICK_STARTED);
            }
        }
    }
}

fn ride(ctx: &Ctx, pogo: &mut FPogo) {
    let Some(mut c) = pogo.compression else {
        pogo.state = State::Airborne;
        return;
    };
    let displacement = surface_displacement(ctx, c.surface);
    pogo.position += displacement;
    pogo.velocity = displacement * ctx.tuning.tick_rate;
    c.ticks_left = c.ticks_left.saturating_sub(1);
    if c.ticks_left > 0 {
        pogo.compression = Some(c);
        return;
    }
    let v = launch(
        c.normal,
        pogo.lean.up(),
        c.approach + pogo.velocity,
        pogo.velocity,
        pogo.combo,
        ctx.tuning,
    );
    pogo.velocity = clamp_speed(v);
    pogo.last_launch = Some((ctx.tick, pogo.position, c.surface));
    pogo.compression = None;
    pogo.state = if pogo.stun_ticks_left > 0 {
        State::Stunned
    } else {
        State::Airborne
    };
    pogo.events.insert(Events::LAUNCH);
}

fn fly(ctx: &Ctx, pogo: &mut FPogo, hood: &mut Hood, input: Input, stick: V3) {
    let acceleration = forces(ctx, pogo, hood, input, stick);
    age_tip_memory(ctx, pogo);
    pogo.velocity = limit_fall_speed(pogo.velocity, ctx.tuning);
    let landed = move_and_collide(ctx, pogo, hood, acceleration);
    if !landed {
        bounce_on_remembered_contact(ctx, pogo);
    }
    let v = pogo.velocity;
    pogo.velocity = clamp_speed(V3::new(v.x, v.y.max(-ctx.tuning.terminal_speed), v.z));
}

fn forces(ctx: &Ctx, pogo: &FPogo, hood: &mut Hood, input: Input, stick: V3) -> V3 {
    let mut gravity_scale = 1.0;
    let mut wind = V3::ZERO;
    let centre = body_centre(ctx, pogo.position);
    for_each_volume_near(ctx.world, hood, centre, true, |kind| {
        if let Kind::Zone(i) = kind {
            let zone = &ctx.world.zones[i as usize];
            gravity_scale *= zone.gravity_scale;
            wind += zone.wind;
        }
    });
    let diving = input.buttons.contains(Buttons::DIVE);
    let g = gravity(pogo.velocity.y, diving, gravity_scale, ctx.tuning);
    let steer = if pogo.state == State::Airborne {
        steering(stick, pogo.velocity, ctx.tuning)
    } else {
        V3::ZERO
    };
    V3::new(0.0, g, 0.0) + wind + steer
}

fn move_and_collide(ctx: &Ctx, pogo: &mut FPogo, hood: &mut Hood, acceleration: V3) -> bool {
    // As core: one grid lookup for depenetration's check and the first sweep.
    let dt = ctx.tuning.dt;
    let limit = |a, v, duration| limit_fall_acceleration(a, v, duration, ctx.tuning);
    let first = displacement(
        pogo.velocity,
        limit(acceleration, pogo.velocity, dt),
        dt,
        ctx.tuning.half_dt_squared,
    );
    let first_region = ctx.capsule.swept_bounds(pogo.position, first);
    let mut ids = [0; NEARBY_MAX];
    let mut nearby = nearby(ctx, &first_region, &mut ids, hood);
    if nearby.is_none_or(|nearby| may_overlap(ctx, pogo.position, &nearby)) {
        depenetrate(ctx, pogo);
        nearby = None;
    }
    let mut remaining = 1.0;
    let mut constraints = [V3::ZERO; SWEEPS_MAX];
    let mut constraint_count = 0;
    for _ in 0..SWEEPS_MAX {
        pogo.velocity = slide_along(pogo.velocity, &constraints[..constraint_count]);
        let duration = dt * remaining;
        let acceleration = limit(
            slide_along(acceleration, &constraints[..constraint_count]),
            pogo.velocity,
            duration,
        );
        let (d, swept) = match nearby {
            Some(_) => (first, first_region),
            None => {
                let d = displacement(
                    pogo.velocity,
                    acceleration,
                    duration,
                    duration * duration / 2.0,
                );
                (d, ctx.capsule.swept_bounds(pogo.position, d))
            }
        };
        let Some((touch, surface)) = first_touch(
            ctx,
            pogo.position,
            d,
            &swept,
            1.0 - remaining,
            remaining,
            nearby.take(),
        ) else {
            pogo.position += d;
            pogo.velocity = limit_fall_speed(pogo.velocity + acceleration * duration, ctx.tuning);
            return false;
        };
        pogo.position += d * touch.t;
        pogo.velocity = limit_fall_speed(
            pogo.velocity + acceleration * (duration * touch.t),
            ctx.tuning,
        );
        remaining *= 1.0 - touch.t;
        match answer_touch(ctx, pogo, &touch, surface, remaining) {
            Answer::Landed => return true,
            Answer::Deflected => {}
            Answer::Blocked => {
                constraints[constraint_count] = touch.normal;
                constraint_count += 1;
            }
        }
    }
    false
}

fn displacement(velocity: V3, acceleration: V3, duration: f64, half_duration_squared: f64) -> V3 {
    velocity * duration + acceleration * half_duration_squared
}

/// Core's `Nearby`: the first sweep's solids, and the platforms and ramps whose reach
/// overlaps its region.
#[derive(Clone, Copy)]
struct Nearby<'a> {
    solids: &'a [u32],
    movers: Movers,
}

/// Core's `Movers`: platforms and ramps as bit masks.
#[derive(Clone, Copy)]
struct Movers {
    platforms: u64,
    ramps: u64,
}

impl Movers {
    fn every(world: &FWorld) -> Movers {
        let all = |n: usize| u64::MAX.checked_shr(64 - n as u32).unwrap_or(0);
        Movers {
            platforms: all(world.platforms.len()),
            ramps: all(world.ramps.len()),
        }
    }

    fn near(world: &FWorld, region: &Bx) -> Movers {
        let mut near = Movers {
            platforms: 0,
            ramps: 0,
        };
        for (i, platform) in world.platforms.iter().enumerate() {
            if platform.reach.overlaps(region) {
                near.platforms |= 1 << i;
            }
        }
        for i in 0..world.ramps.len() {
            if ramp_may_touch(world, i, region) {
                near.ramps |= 1 << i;
            }
        }
        near
    }
}

/// Core's `bits`: the set bits of `mask`, lowest first.
fn bits(mut mask: u64) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        let i = mask.trailing_zeros();
        mask &= mask.wrapping_sub(1);
        (i < 64).then_some(i)
    })
}

/// Core's `collision::nearby`: from the neighbourhood, gathered again unless its region
/// holds `region`; `None` when crowded.
fn nearby<'a>(
    ctx: &Ctx,
    region: &Bx,
    ids: &'a mut [u32; NEARBY_MAX],
    hood: &mut Hood,
) -> Option<Nearby<'a>> {
    let kept = &mut hood.solids;
    if !kept.holds(region) {
        let grown = grown(region);
        kept.start(grown);
        ctx.world
            .for_each_solid_overlapping(&grown, |i| kept.push(i));
    }
    let listed = kept.listed()?;
    let mut len = 0;
    for &i in listed {
        if ctx.world.solids[i as usize].overlaps(region) {
            ids[len] = i;
            len += 1;
        }
    }
    Some(Nearby {
        solids: &ids[..len],
        movers: Movers::near(ctx.world, region),
    })
}

fn may_overlap(ctx: &Ctx, tip: V3, nearby: &Nearby) -> bool {
    let region = ctx.capsule.bounds(tip);
    let mut overlap = nearby.solids.iter().any(|&i| {
        let bounds = &ctx.world.solids[i as usize];
        bounds.overlaps(&region) && depenetrate_box(&ctx.capsule, tip, bounds).is_some()
    });
    if !overlap {
        platform_and_ramp_pushes(ctx, tip, &region, nearby.movers, |push| {
            overlap |= push.is_some()
        });
    }
    overlap
}

fn platform_and_ramp_pushes(
    ctx: &Ctx,
    tip: V3,
    region: &Bx,
    movers: Movers,
    mut f: impl FnMut(Option<(f64, V3)>),
) {
    for i in bits(movers.platforms) {
        if ctx.world.platforms[i as usize].reach.overlaps(region) {
            let bounds = ctx.world.platform_bounds(i, ctx.tick);
            if bounds.overlaps(region) {
                f(depenetrate_box(&ctx.capsule, tip, &bounds));
            }
        }
    }
    for i in bits(movers.ramps) {
        let i = i as usize;
        if ramp_may_touch(ctx.world, i, region) {
            f(depenetrate_plane(&ctx.capsule, tip, &plane(ctx.world, i)));
        }
    }
}

/// Core's `ramp_may_touch`: the precomputed reach.
fn ramp_may_touch(world: &FWorld, i: usize, region: &Bx) -> bool {
    world.ramps[i]
        .reach
        .is_none_or(|reach| reach.overlaps(region))
}

fn slide_along(mut v: V3, normals: &[V3]) -> V3 {
    for &n in normals {
        let into = v.dot(n);
        if into < 0.0 {
            v -= n * into;
        }
    }
    v
}

fn depenetrate(ctx: &Ctx, pogo: &mut FPogo) {
    for _ in 0..SWEEPS_MAX {
        let region = ctx.capsule.bounds(pogo.position);
        let mut push: Option<(f64, V3)> = None;
        let mut deepest = |candidate: Option<(f64, V3)>| {
            if let Some((depth, n)) = candidate {
                if push.is_none_or(|(d, _)| depth > d) {
                    push = Some((depth, n));
                }
            }
        };
        ctx.world.solids_grid.query(&region, |i| {
            deepest(depenetrate_box(
                &ctx.capsule,
                pogo.position,
                &ctx.world.solids[i as usize],
            ));
        });
        let movers = Movers::every(ctx.world);
        platform_and_ramp_pushes(ctx, pogo.position, &region, movers, &mut deepest);
        let Some((depth, n)) = push else { return };
        pogo.position += n * depth;
        let into = pogo.velocity.dot(n);
        if into < 0.0 {
            pogo.velocity -= n * into;
        }
    }
}

fn first_touch(
    ctx: &Ctx,
    tip: V3,
    d: V3,
    swept: &Bx,
    elapsed: f64,
    span: f64,
    nearby: Option<Nearby>,
) -> Option<(Touch, SurfaceId)> {
    let mut best: Option<(Touch, SurfaceId)> = None;
    let mut consider = |touch: Option<Touch>, id: SurfaceId| {
        if let Some(touch) = touch {
            let better = best.is_none_or(|(b, bid)| (touch.t, id) < (b.t, bid));
            if better {
                best = Some((touch, id));
            }
        }
    };
    let mut solid = |i: u32| {
        let bounds = &ctx.world.solids[i as usize];
        consider(sweep_box(&ctx.capsule, tip, d, bounds), SurfaceId::Solid(i));
    };
    let movers = match nearby {
        Some(nearby) => {
            nearby.solids.iter().for_each(|&i| solid(i));
            nearby.movers
        }
        None => {
            ctx.world.for_each_solid_overlapping(swept, solid);
            Movers::every(ctx.world)
        }
    };
    for i in bits(movers.platforms) {
        if !ctx.world.platforms[i as usize].reach.overlaps(swept) {
            continue;
        }
        let during = ctx.world.platform_during(i, ctx.tick);
        let bounds = during.start.translated(during.moved * elapsed);
        let relative = d - during.moved * span;
        if bounds.overlaps(&ctx.capsule.swept_bounds(tip, relative)) {
            consider(
                sweep_box(&ctx.capsule, tip, relative, &bounds),
                SurfaceId::Platform(i),
            );
        }
    }
    for i in bits(movers.ramps) {
        let i = i as usize;
        if ramp_may_touch(ctx.world, i, swept) {
            consider(
                sweep_plane(&ctx.capsule, tip, d, &plane(ctx.world, i)),
                SurfaceId::Ramp(i as u32),
            );
        }
    }
    best
}

fn plane(world: &FWorld, i: usize) -> Plane {
    let r = &world.ramps[i];
    Plane {
        normal: r.normal,
        offset: r.offset,
        bounds: r.bounds,
    }
}

enum Answer {
    Landed,
    Deflected,
    Blocked,
}

fn answer_touch(
    ctx: &Ctx,
    pogo: &mut FPogo,
    touch: &Touch,
    surface: SurfaceId,
    remaining: f64,
) -> Answer {
    let surface_velocity = surface_velocity(ctx, surface);
    let contact = Contact {
        height_on_body: touch.height_on_body,
        no_bounce: no_bounce(ctx.world, surface),
        normal_speed: (pogo.velocity - surface_velocity).dot(touch.normal),
        normal_y: touch.normal.y,
        since_launch: since_launch(ctx, pogo),
        age: 0,
    };
    match classify(&contact, ctx.tuning) {
        Verdict::Bounce => {
            land(ctx, pogo, touch.normal, surface, remaining);
            Answer::Landed
        }
        Verdict::Ricochet => {
            pogo.velocity = ricochet(pogo.velocity, touch.normal, surface_velocity, ctx.tuning);
            pogo.combo = 0;
            pogo.events.insert(Events::RICOCHET);
            Answer::Deflected
        }
        Verdict::BodyHit { stun } => {
            pogo.events.insert(Events::BODY_HIT);
            if stun {
                stun_pogo(ctx, pogo);
            }
            block(pogo, touch.normal, surface_velocity);
            Answer::Blocked
        }
        Verdict::Ignore(reason) => {
            if matches!(reason, Ignored::Cooldown | Ignored::Separating) {
                pogo.tip_memory = Some(TipMemory {
                    normal: touch.normal,
                    surface,
                    age: 0,
                });
            }
            block(pogo, touch.normal, surface_velocity);
            Answer::Blocked
        }
    }
}

fn block(pogo: &mut FPogo, normal: V3, surface_velocity: V3) {
    let into = (pogo.velocity - surface_velocity).dot(normal);
    if into < 0.0 {
        pogo.velocity -= normal * into;
    }
}

fn land(ctx: &Ctx, pogo: &mut FPogo, normal: V3, surface: SurfaceId, remaining: f64) {
    pogo.events.insert(Events::BOUNCE);
    pogo.bounces = pogo.bounces.saturating_add(1);
    let launch_point = pogo
        .last_launch
        .map(|launch| launch_point_carried(ctx, launch, 1.0 - remaining));
    if pogo.stun_ticks_left == 0
        && is_perfect_landing(
            pogo.lean.up(),
            normal,
            launch_point,
            pogo.position,
            ctx.tuning,
        )
    {
        pogo.combo = pogo.combo.saturating_add(1);
        pogo.events.insert(Events::PERFECT);
    }
    match pogo.trick_ticks_left.take() {
        Some(0) => {
            pogo.combo = pogo.combo.saturating_add(1);
            pogo.events.insert(Events::TRICK_LANDED);
        }
        Some(_) => {
            pogo.events.insert(Events::TRICK_FAILED);
            stun_pogo(ctx, pogo);
        }
        None => {}
    }
    let surface_velocity = surface_velocity(ctx, surface);
    pogo.compression = Some(Compression {
        ticks_left: ctx.tuning.compression_ticks,
        normal,
        surface,
        approach: pogo.velocity - surface_velocity,
    });
    pogo.state = State::Compression;
    pogo.tip_memory = None;
    pogo.velocity = surface_velocity;
    pogo.position += surface_displacement(ctx, surface) * remaining;
}

fn launch_point_carried(
    ctx: &Ctx,
    (tick, point, surface): (u32, V3, SurfaceId),
    elapsed: f64,
) -> V3 {
    match surface {
        SurfaceId::Platform(i) => {
            let now = ctx.world.platform_during(i, ctx.tick);
            let then = ctx.world.platform_position(i, tick + 1);
            point + (now.start.min + now.moved * elapsed - then)
        }
        SurfaceId::Solid(_) | SurfaceId::Ramp(_) => point,
    }
}

fn stun_pogo(ctx: &Ctx, pogo: &mut FPogo) {
    pogo.stun_ticks_left = ctx.tuning.stun_ticks;
    pogo.combo = 0;
    pogo.trick_ticks_left = None;
    if pogo.state == State::Airborne {
        pogo.state = State::Stunned;
    }
    pogo.events.insert(Events::STUN);
}

fn age_tip_memory(ctx: &Ctx, pogo: &mut FPogo) {
    if let Some(m) = &mut pogo.tip_memory {
        m.age = m.age.saturating_add(1);
        if m.age > ctx.tuning.tip_grace_ticks {
            pogo.tip_memory = None;
        }
    }
}

fn bounce_on_remembered_contact(ctx: &Ctx, pogo: &mut FPogo) {
    let Some(m) = pogo.tip_memory else { return };
    if m.age == 0 {
        return;
    }
    let contact = Contact {
        height_on_body: 0.0,
        no_bounce: no_bounce(ctx.world, m.surface),
        normal_speed: (pogo.velocity - surface_velocity(ctx, m.surface)).dot(m.normal),
        normal_y: m.normal.y,
        since_launch: since_launch(ctx, pogo),
        age: m.age,
    };
    if classify(&contact, ctx.tuning) == Verdict::Bounce {
        land(ctx, pogo, m.normal, m.surface, 0.0);
    }
}

fn volumes(ctx: &Ctx, pogo: &mut FPogo, hood: &mut Hood) {
    let mut finished = false;
    let mut killed = false;
    let mut checkpoint = pogo.checkpoint;
    let centre = body_centre(ctx, pogo.position);
    for_each_volume_near(ctx.world, hood, centre, false, |kind| match kind {
        Kind::Checkpoint(i) => checkpoint = Some(i),
        Kind::Finish => finished = true,
        Kind::Kill => killed = true,
        Kind::Zone(_) => {}
    });
    if checkpoint != pogo.checkpoint {
        pogo.checkpoint = checkpoint;
        pogo.events.insert(Events::CHECKPOINT);
    }
    let p = pogo.position;
    let outside = [p.x, p.y, p.z].iter().any(|c| c.abs() > COORDINATE_MAX);
    killed |= p.y < ctx.tuning.kill_height || outside;
    if finished {
        pogo.state = State::Finished;
        pogo.finish_tick = Some(ctx.tick);
        pogo.velocity = V3::ZERO;
        pogo.compression = None;
        pogo.events.insert(Events::FINISH);
    } else if killed {
        pogo.state = State::Respawn;
        pogo.velocity = V3::ZERO;
        pogo.compression = None;
        pogo.events.insert(Events::DEATH);
    }
}

fn body_centre(ctx: &Ctx, tip: V3) -> V3 {
    tip + V3::new(0.0, ctx.capsule.height / 2.0, 0.0)
}

fn since_launch(ctx: &Ctx, pogo: &FPogo) -> u32 {
    pogo.last_launch
        .map_or(u32::MAX, |(tick, _, _)| ctx.tick.saturating_sub(tick))
}

fn surface_displacement(ctx: &Ctx, surface: SurfaceId) -> V3 {
    match surface {
        SurfaceId::Platform(i) => ctx.world.platform_displacement(i, ctx.tick),
        SurfaceId::Solid(_) | SurfaceId::Ramp(_) => V3::ZERO,
    }
}

fn surface_velocity(ctx: &Ctx, surface: SurfaceId) -> V3 {
    surface_displacement(ctx, surface) * ctx.tuning.tick_rate
}

fn no_bounce(world: &FWorld, surface: SurfaceId) -> bool {
    match surface {
        SurfaceId::Solid(i) => world.solid_no_bounce[i as usize],
        SurfaceId::Platform(i) => world.platforms[i as usize].no_bounce,
        SurfaceId::Ramp(i) => world.ramps[i as usize].no_bounce,
    }
}

fn clamp_speed(v: V3) -> V3 {
    let c = |x: f64| clamp(x, -SPEED_MAX, SPEED_MAX);
    V3::new(c(v.x), c(v.y), c(v.z))
}
