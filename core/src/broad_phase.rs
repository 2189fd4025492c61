//! Broad phase: a uniform grid over a level's boxes, so a query touches only the few boxes
//! near the pogo however large the level is.
//!
//! Built once per level, deterministically: cells are cubes of 2ᵏ metres (k ≥ 1), chosen so
//! the grid has at most `CELLS_MAX` cells; each cell lists, in index order, the boxes that
//! overlap it (compressed rows: `cell_start` offsets into `items`). A box that would span more
//! than `LARGE_BOX_CELLS` cells (a huge ground slab, a kill plane under the level) is kept
//! in a separate `large` list, with its bounds, instead of filling thousands of cells; a query
//! reports those of them that overlap its region.

use alloc::vec::Vec;

use crate::fx::Fx;
use crate::shape::Aabb;
use crate::vec3::Vec3;

/// Most cells in a grid: bounds memory at 4 bytes per cell.
const CELLS_MAX: u64 = 1 << 21;
/// Smallest cell: 2¹ m.
const SHIFT_MIN: u32 = Fx::FRAC_BITS + 1;
/// Largest cell: 2¹⁸ m (beyond the coordinate limit: one cell holds everything).
const SHIFT_MAX: u32 = Fx::FRAC_BITS + 18;
/// Boxes spanning more cells than this go to the `large` list.
const LARGE_BOX_CELLS: u64 = 64;

#[derive(Clone, Debug, Default)]
pub(crate) struct Grid {
    /// Raw bits of the grid's minimum corner.
    origin: [i64; 3],
    /// log₂ of the cell size in raw units (2^(shift − 32) m).
    shift: u32,
    dims: [u32; 3],
    /// `items[cell_start[c]..cell_start[c + 1]]` are the boxes overlapping cell `c`.
    cell_start: Vec<u32>,
    items: Vec<u32>,
    /// The large boxes, in index order, with their bounds.
    large: Vec<(u32, Aabb)>,
}

impl Grid {
    /// Builds a grid over `boxes` (indexed in iteration order).
    pub(crate) fn build(boxes: impl Iterator<Item = Aabb> + Clone) -> Grid {
        let Some(bounds) = boxes.clone().reduce(|a, b| a.union(&b)) else {
            return Grid::default();
        };
        let origin = [
            bounds.min.x.to_bits(),
            bounds.min.y.to_bits(),
            bounds.min.z.to_bits(),
        ];
        let extent = [
            (bounds.max.x - bounds.min.x).to_bits(),
            (bounds.max.y - bounds.min.y).to_bits(),
            (bounds.max.z - bounds.min.z).to_bits(),
        ];
        let mut shift = SHIFT_MIN;
        let dims = loop {
            let dims = extent.map(|e| ((e >> shift) + 1) as u32);
            let cells = dims.iter().map(|&d| u64::from(d)).product::<u64>();
            if cells <= CELLS_MAX || shift >= SHIFT_MAX {
                break dims;
            }
            shift += 1;
        };
        let mut grid = Grid {
            origin,
            shift,
            dims,
            ..Grid::default()
        };
        // Boxes too big for the cells make the large list. A grid whose boxes are all large
        // (a level's few big trigger volumes, say) needs no cells at all: its queries give
        // the same boxes in the same order from the large list alone.
        let mut small = Vec::new();
        for (i, b) in boxes.enumerate() {
            let (lo, hi) = grid.cell_range(&b);
            if grid.is_large(lo, hi) {
                grid.large.push((i as u32, b));
            } else {
                small.push((i as u32, lo, hi));
            }
        }
        if small.is_empty() {
            return grid;
        }

        // Count, prefix-sum, fill, no per-cell allocation: after the sums `cell_start[c]` is
        // where cell c's list ends; filling in reverse index order moves it back to where the
        // list starts, and leaves every list in index order.
        let cell_count = dims.iter().map(|&d| d as usize).product::<usize>();
        let mut cell_start = alloc::vec![0u32; cell_count + 1];
        for &(_, lo, hi) in &small {
            grid_for_cells(dims, lo, hi, |c| cell_start[c] += 1);
        }
        let mut total = 0u32;
        for c in cell_start.iter_mut() {
            total += *c;
            *c = total;
        }
        let mut items = alloc::vec![0; total as usize];
        for &(i, lo, hi) in small.iter().rev() {
            grid_for_cells(dims, lo, hi, |c| {
                cell_start[c] -= 1;
                items[cell_start[c] as usize] = i;
            });
        }
        grid.cell_start = cell_start;
        grid.items = items;
        grid
    }

    /// The most boxes any one cell lists, and the number of large boxes: what bounds the work
    /// of a query (see `World::new`'s density limits).
    pub(crate) fn density(&self) -> (u32, u32) {
        let densest = self
            .cell_start
            .windows(2)
            .map(|w| w[1] - w[0])
            .max()
            .unwrap_or(0);
        (densest, self.large.len() as u32)
    }

    /// What bounds the work of a query (`crate::cost`): the cell size, the grid's
    /// dimensions, the most boxes one cell lists, the number of large boxes.
    pub(crate) fn stats(&self) -> crate::cost::GridStats {
        let (densest, large) = self.density();
        crate::cost::GridStats {
            cells: !self.cell_start.is_empty(),
            cell_shift: self.shift,
            dims: self.dims,
            densest,
            large,
        }
    }

    /// The work of [`query_marked`](Grid::query_marked) on `region`, in the cost model's
    /// units (`crate::cost`): one per x-row of cells visited, one per box id those rows
    /// list, one per large box tested.
    #[cfg(feature = "meter")]
    pub(crate) fn query_cost(&self, region: &Aabb) -> u64 {
        let mut cost = self.large.len() as u64;
        if !self.cell_start.is_empty() {
            if let Some((lo, hi)) = self.clamped_range(region) {
                let (dx, dz) = (self.dims[0] as usize, self.dims[2] as usize);
                for y in lo[1] as usize..=hi[1] as usize {
                    for z in lo[2] as usize..=hi[2] as usize {
                        let row = (y * dz + z) * dx;
                        let first = self.cell_start[row + lo[0] as usize];
                        let last = self.cell_start[row + hi[0] as usize + 1];
                        cost += 1 + u64::from(last - first);
                    }
                }
            }
        }
        cost
    }

    /// Calls `f` with every box that may overlap `region`: the boxes of the cells it touches
    /// (a box spanning several of them is reported once per cell), then the large boxes that
    /// overlap (or touch) it.
    pub(crate) fn query(&self, region: &Aabb, mut f: impl FnMut(u32)) {
        self.query_marked(region, |i, _| f(i));
    }

    /// [`query`](Grid::query), with each box marked `true` if the grid has already found that
    /// it overlaps (or touches) `region` — the large boxes, whose bounds it keeps — so that a
    /// caller filtering by overlap tests only the others.
    pub(crate) fn query_marked(&self, region: &Aabb, mut f: impl FnMut(u32, bool)) {
        if !self.cell_start.is_empty() {
            if let Some((lo, hi)) = self.clamped_range(region) {
                // The cells of one x-row are consecutive, and so are their lists in `items`:
                // one slice per row gives the same boxes in the same order as cell by cell.
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

    /// Calls `f` once with every box that may contain `point` (one cell's boxes, then the
    /// large boxes, each list in index order), marked as [`query_marked`](Grid::query_marked)
    /// marks them: a large box is reported only if it contains the point (overlapping the
    /// box `[point, point]` is containing it: `min ≤ point ≤ max` on every axis). For the
    /// tests: the simulation passes the point's region to `query_marked` itself
    /// ([`World::for_each_volume_at`](crate::world::World::for_each_volume_at) says why).
    #[cfg(test)]
    pub(crate) fn query_point(&self, point: Vec3, f: impl FnMut(u32, bool)) {
        self.query_marked(&Aabb::new(point, point), f);
    }

    /// [`query_point`](Grid::query_point) restricted to the boxes numbered below `limit`: the
    /// same calls, in the same order, less those of the other boxes. Each list is in index
    /// order, so its scan stops at the first box numbered `limit` or more.
    pub(crate) fn query_point_below(&self, point: Vec3, limit: u32, mut f: impl FnMut(u32, bool)) {
        if limit == 0 {
            return;
        }
        let region = Aabb::new(point, point);
        if !self.cell_start.is_empty() {
            if let Some((lo, _)) = self.clamped_range(&region) {
                // A point's range is one cell (its corners are the same point).
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

    /// `region` (which holds `point`) cut to the cell holding `point`, so that every point
    /// of the result gets the same cell from a point query; `region` itself for a grid
    /// without cells, and `None` when the grid has cells but `point` lies in none.
    pub(crate) fn cut_to_cell(&self, point: Vec3, region: &Aabb) -> Option<Aabb> {
        if self.cell_start.is_empty() {
            return Some(*region);
        }
        let (cell, _) = self.clamped_range(&Aabb::new(point, point))?;
        // The cell's raw bounds, [origin + c·2ˢ, origin + (c + 1)·2ˢ − 1] on each axis
        // (within the grid's bounds, far inside i64).
        let bounds = |a: usize| {
            let lo = self.origin[a] + (i64::from(cell[a]) << self.shift);
            (lo, lo + (1 << self.shift) - 1)
        };
        let cut = |a: usize, min: Fx, max: Fx| {
            let (lo, hi) = bounds(a);
            (
                Fx::from_bits(min.to_bits().max(lo)),
                Fx::from_bits(max.to_bits().min(hi)),
            )
        };
        let (x0, x1) = cut(0, region.min.x, region.max.x);
        let (y0, y1) = cut(1, region.min.y, region.max.y);
        let (z0, z1) = cut(2, region.min.z, region.max.z);
        Some(Aabb::new(Vec3::new(x0, y0, z0), Vec3::new(x1, y1, z1)))
    }

    fn cell_of(&self, p: Vec3) -> [i64; 3] {
        // Positions lie within ±100 km (2⁴⁹ raw units): the difference cannot overflow.
        let axis = |bits: i64, a: usize| bits.saturating_sub(self.origin[a]) >> self.shift;
        [
            axis(p.x.to_bits(), 0),
            axis(p.y.to_bits(), 1),
            axis(p.z.to_bits(), 2),
        ]
    }

    fn cell_range(&self, b: &Aabb) -> ([u32; 3], [u32; 3]) {
        let clamp =
            |c: [i64; 3]| [0, 1, 2].map(|a| c[a].clamp(0, i64::from(self.dims[a]) - 1) as u32);
        (clamp(self.cell_of(b.min)), clamp(self.cell_of(b.max)))
    }

    /// The cells `region` touches, or `None` if it misses the grid entirely.
    ///
    /// What clamping `cell_of` of both corners into the grid gives, as `cell_range` does:
    /// past the miss test, the low corner's cell is at most the last one and the high
    /// corner's at least the first, so each needs clamping on one side only.
    fn clamped_range(&self, region: &Aabb) -> Option<([u32; 3], [u32; 3])> {
        let min = [region.min.x, region.min.y, region.min.z];
        let max = [region.max.x, region.max.y, region.max.z];
        let (mut lo_cell, mut hi_cell) = ([0; 3], [0; 3]);
        for a in 0..3 {
            // As `cell_of`: the saturating difference keeps any region's cells well defined.
            let lo = min[a].to_bits().saturating_sub(self.origin[a]) >> self.shift;
            let hi = max[a].to_bits().saturating_sub(self.origin[a]) >> self.shift;
            let last = i64::from(self.dims[a]) - 1;
            if hi < 0 || lo > last {
                return None;
            }
            lo_cell[a] = lo.max(0) as u32;
            hi_cell[a] = hi.min(last) as u32;
        }
        Some((lo_cell, hi_cell))
    }

    fn is_large(&self, lo: [u32; 3], hi: [u32; 3]) -> bool {
        let span = (0..3)
            .map(|a| u64::from(hi[a] - lo[a] + 1))
            .product::<u64>();
        span > LARGE_BOX_CELLS
    }
}

/// Calls `f` with the linear index of every cell in `lo..=hi` (x fastest, then z, then y).
fn grid_for_cells(dims: [u32; 3], lo: [u32; 3], hi: [u32; 3], mut f: impl FnMut(usize)) {
    for y in lo[1]..=hi[1] {
        for z in lo[2]..=hi[2] {
            let row = (y as usize * dims[2] as usize + z as usize) * dims[0] as usize;
            for x in lo[0]..=hi[0] {
                f(row + x as usize);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube(x: i32, y: i32, z: i32, size: i32) -> Aabb {
        let min = Vec3::new(Fx::from_int(x), Fx::from_int(y), Fx::from_int(z));
        let s = Fx::from_int(size);
        Aabb::new(min, min + Vec3::new(s, s, s))
    }

    fn found(grid: &Grid, region: &Aabb) -> Vec<u32> {
        let mut v = Vec::new();
        grid.query(region, |i| v.push(i));
        v.sort_unstable();
        v.dedup();
        v
    }

    #[test]
    fn query_finds_every_overlapping_box_and_skips_far_ones() {
        // A row of 1 m cubes every 10 m, and one huge slab under them all.
        let mut boxes: Vec<Aabb> = (0..200).map(|i| cube(i * 10, 0, 0, 1)).collect();
        boxes.push(Aabb::new(
            cube(-5, -10, -5, 1).min,
            cube(2005, -9, 5, 1).max,
        ));
        let grid = Grid::build(boxes.iter().copied());
        assert_eq!(grid.large, [(200, boxes[200])]);
        for probe in [
            cube(0, 0, 0, 1),
            cube(995, 0, 0, 10),
            cube(1990, 0, 0, 3),
            cube(-50, 0, 0, 1),
        ] {
            let expected: Vec<u32> = (0..boxes.len() as u32)
                .filter(|&i| boxes[i as usize].overlaps(&probe))
                .collect();
            let got = found(&grid, &probe);
            for i in &expected {
                assert!(got.contains(i), "probe {probe:?} missed box {i}");
            }
            assert!(
                got.len() <= expected.len() + 4,
                "probe {probe:?} reported {got:?}"
            );
        }
    }

    #[test]
    fn point_query_reports_each_box_once_in_index_order() {
        let boxes = [
            cube(0, 0, 0, 4),
            cube(2, 0, 0, 4),
            cube(100, 0, 0, 4),
            cube(3, 3, 3, 1),
        ];
        let grid = Grid::build(boxes.iter().copied());
        let p = Vec3::new(Fx::from_int(3), Fx::from_int(3), Fx::from_int(3));
        let mut seen = Vec::new();
        grid.query_point(p, |i, tested| {
            assert!(
                !tested || boxes[i as usize].contains(p),
                "marked but outside"
            );
            if boxes[i as usize].contains(p) {
                seen.push(i)
            }
        });
        assert_eq!(seen, [0, 1, 3]);
    }

    #[test]
    fn point_query_below_a_limit_is_the_point_query_filtered() {
        let mut rng = crate::test_util::SplitMix64(0x6c69_6d69);
        for case in 0..40 {
            let count = 1 + rng.next() % 30;
            let boxes: Vec<Aabb> = (0..count)
                .map(|_| {
                    let mut c = |n: u64| (rng.next() % n) as i32;
                    // Small boxes (in cells) and, one in four, large ones.
                    let size = if c(4) == 0 { 40 + c(200) } else { 1 + c(6) };
                    cube(c(60) - 30, c(20) - 10, c(60) - 30, size)
                })
                .collect();
            let grid = Grid::build(boxes.iter().copied());
            for _ in 0..50 {
                let mut c = |n: u64| Fx::from_ratio((rng.next() % n) as i64 - n as i64 / 2, 4);
                let p = Vec3::new(c(320), c(120), c(320));
                let mut all = Vec::new();
                grid.query_point(p, |i, tested| all.push((i, tested)));
                for limit in 0..=count as u32 {
                    let mut below = Vec::new();
                    grid.query_point_below(p, limit, |i, tested| below.push((i, tested)));
                    let expected: Vec<_> =
                        all.iter().copied().filter(|&(i, _)| i < limit).collect();
                    assert_eq!(below, expected, "case {case}, point {p:?}, limit {limit}");
                }
            }
        }
    }

    #[test]
    fn cell_count_is_bounded_for_huge_levels() {
        let boxes = [
            cube(-100_000, -100, -100_000, 1),
            cube(99_000, 100, 99_000, 1),
        ];
        let grid = Grid::build(boxes.iter().copied());
        let cells: u64 = grid.dims.iter().map(|&d| u64::from(d)).product();
        assert!(cells <= CELLS_MAX, "{cells}");
        assert_eq!(found(&grid, &boxes[1]), [1]);
    }

    /// The order a query reports boxes in decides ties in the tick (and which of two
    /// overlapping checkpoints counts), so it is part of the rules: it must be, for every
    /// region, each touched cell's boxes in index order (cells x fastest, then z, then y), then
    /// the overlapping large boxes in index order — whatever the grid stores.
    #[test]
    fn query_order_is_cell_by_cell_in_index_order_then_large() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |n: i64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as i64
        };
        for case in 0..50 {
            let boxes: Vec<Aabb> = (0..1 + next(40))
                .map(|_| {
                    let min = Vec3::new(
                        Fx::from_ratio(next(4000) - 2000, 100),
                        Fx::from_ratio(next(400) - 200, 100),
                        Fx::from_ratio(next(4000) - 2000, 100),
                    );
                    let size = Vec3::new(
                        Fx::from_ratio(next(1500), 100),
                        Fx::from_ratio(next(300), 100),
                        Fx::from_ratio(next(1500), 100),
                    );
                    Aabb::new(min, min + size)
                })
                .collect();
            let grid = Grid::build(boxes.iter().copied());
            for _ in 0..40 {
                let min = Vec3::new(
                    Fx::from_ratio(next(5000) - 2500, 100),
                    Fx::from_ratio(next(600) - 300, 100),
                    Fx::from_ratio(next(5000) - 2500, 100),
                );
                let size = Vec3::new(
                    Fx::from_ratio(next(600), 100),
                    Fx::from_ratio(next(600), 100),
                    Fx::from_ratio(next(600), 100),
                );
                let region = Aabb::new(min, min + size);
                // The range against its definition: both corners' cells clamped into the
                // grid, `None` if the region misses it on some axis.
                let (lo, hi) = (grid.cell_of(region.min), grid.cell_of(region.max));
                let misses = (0..3).any(|a| hi[a] < 0 || lo[a] > i64::from(grid.dims[a]) - 1);
                let defined = (!misses).then(|| grid.cell_range(&region));
                assert_eq!(grid.clamped_range(&region), defined, "case {case}");
                let mut expected = Vec::new();
                if let Some((lo, hi)) = grid.clamped_range(&region) {
                    grid_for_cells(grid.dims, lo, hi, |cell| {
                        for (i, b) in boxes.iter().enumerate() {
                            let (blo, bhi) = grid.cell_range(b);
                            if !grid.is_large(blo, bhi) {
                                grid_for_cells(grid.dims, blo, bhi, |c| {
                                    if c == cell {
                                        expected.push(i as u32);
                                    }
                                });
                            }
                        }
                    });
                }
                for (i, b) in boxes.iter().enumerate() {
                    let (blo, bhi) = grid.cell_range(b);
                    if grid.is_large(blo, bhi) && b.overlaps(&region) {
                        expected.push(i as u32);
                    }
                }
                let mut got = Vec::new();
                grid.query(&region, |i| got.push(i));
                assert_eq!(got, expected, "case {case}, region {region:?}");
                // The marks: exactly the large boxes are marked, and only if they overlap.
                let mut marked = Vec::new();
                grid.query_marked(&region, |i, tested| marked.push((i, tested)));
                for (k, &(i, tested)) in marked.iter().enumerate() {
                    let (blo, bhi) = grid.cell_range(&boxes[i as usize]);
                    assert_eq!(tested, grid.is_large(blo, bhi), "case {case}, box {i}");
                    assert_eq!(i, expected[k]);
                    assert!(!tested || boxes[i as usize].overlaps(&region));
                }
            }
        }
    }

    #[test]
    fn a_grid_of_only_large_boxes_has_no_cells() {
        let boxes = [cube(-500, -10, -500, 1000), cube(0, 0, 0, 300)];
        let grid = Grid::build(boxes.iter().copied());
        assert!(grid.cell_start.is_empty() && grid.items.is_empty());
        assert_eq!(found(&grid, &cube(10, 10, 10, 1)), [0, 1]);
        assert_eq!(found(&grid, &cube(700, 700, 700, 1)), [] as [u32; 0]);
    }

    #[test]
    fn empty_grid_finds_nothing() {
        let grid = Grid::build(core::iter::empty());
        assert!(found(&grid, &cube(0, 0, 0, 1)).is_empty());
    }
}
