//! What each pogo keeps of the world around it from tick to tick: the solids near its path
//! and the trigger volumes near its body's centre, so that most ticks test a few boxes
//! instead of asking the grids.
//!
//! A pogo's tick moves it a few centimetres to a few decimetres, and asked the grids about
//! nearly the same place every tick (on `course`, whose large boxes every query tests, a
//! quarter of the tick's instructions). A [`Neighbourhood`] lists what the grid reports for
//! a region a metre larger on every side ([`MARGIN_M`]) than the place looked up, and serves
//! the lookups whose place lies inside that region; the first that does not gathers again.
//!
//! **Why it changes no result.** A world does not change during a simulation, so what a
//! neighbourhood lists is a function of its region alone, whichever tick gathered it. It is
//! not state: never hashed, saved or restored, and a restored or edited state finds it as
//! valid as before. What each lookup gets from it is what the grid would give, by the
//! arguments beside each use: [`crate::collision`]'s lookup of the solids (the same solids,
//! in an order and with repeats that change nothing), and [`for_each_volume_at`] here (the
//! same volumes in the same order, so that overlapping zones combine the same way). Where
//! more lie near than a neighbourhood keeps, it says so (it is crowded), and the lookup asks
//! the grid as before. Property tests: `collision::tests::the_lookup_changes_no_tick` and
//! `a_neighbourhood_keeps_what_the_grid_reports`, and `tests` here.

use crate::collision::NEARBY_MAX;
use crate::ctx::Ctx;
use crate::fx::Fx;
use crate::shape::Aabb;
use crate::vec3::Vec3;
use crate::world::VolumeKind;

/// Most trigger volumes a neighbourhood keeps; where more lie near, the volume lookups ask
/// the grid.
pub(crate) const VOLUMES_KEPT: usize = 16;
/// How far (m) a neighbourhood reaches beyond the place it was gathered for, on every side.
pub(crate) const MARGIN_M: Fx = Fx::ONE;

/// What one pogo keeps between ticks (one per pogo, in the
/// [`Simulation`](crate::Simulation) beside its state).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Neighbourhood {
    /// The solids whose boxes overlap the region, as the solid grid reports them (at most
    /// [`NEARBY_MAX`]: `collision::nearby`).
    pub(crate) solids: Kept<NEARBY_MAX>,
    /// The volumes whose boxes overlap the region, as the volume grid reports them.
    volumes: Kept<VOLUMES_KEPT>,
}

impl Neighbourhood {
    /// Holds nothing yet: each first lookup gathers.
    pub(crate) const EMPTY: Neighbourhood = Neighbourhood {
        solids: Kept::EMPTY,
        volumes: Kept::EMPTY,
    };
}

/// Up to `N` ids of what a grid reported for `region`, or that it reported more (crowded).
///
/// In declaration order (`repr(C)`): the region, the count and the first ids share the first
/// cache lines, which are all a tick reads where a few boxes are near.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub(crate) struct Kept<const N: usize> {
    region: Aabb,
    /// How many of `ids` are kept; [`Self::CROWDED`] when the grid reported more, and
    /// [`Self::UNSET`] when nothing has been gathered.
    len: u32,
    ids: [u32; N],
}

impl<const N: usize> Kept<N> {
    const CROWDED: u32 = u32::MAX - 1;
    const UNSET: u32 = u32::MAX;

    const EMPTY: Kept<N> = Kept {
        region: Aabb {
            min: Vec3::ZERO,
            max: Vec3::ZERO,
        },
        len: Self::UNSET,
        ids: [0; N],
    };

    /// Whether `region` lies inside the gathered region.
    #[inline]
    pub(crate) fn holds(&self, region: &Aabb) -> bool {
        self.len != Self::UNSET && self.region.holds(region)
    }

    /// Whether `point` lies inside the gathered region (as [`holds`](Kept::holds) of the box
    /// `[point, point]`, without building it: a box built from a point just computed would
    /// be stored and reloaded, and the CPU cannot always forward such stores).
    #[inline]
    pub(crate) fn holds_point(&self, point: Vec3) -> bool {
        self.len != Self::UNSET && self.region.contains(point)
    }

    /// The gathered region.
    #[cfg(test)]
    pub(crate) fn region(&self) -> &Aabb {
        &self.region
    }

    /// Starts a gathering for `region`: [`push`](Kept::push) each id the grid reports.
    pub(crate) fn start(&mut self, region: Aabb) {
        self.region = region;
        self.len = 0;
    }

    /// Keeps `i`, or marks the neighbourhood crowded past `N`.
    #[inline]
    pub(crate) fn push(&mut self, i: u32) {
        match self.ids.get_mut(self.len as usize) {
            Some(slot) => {
                *slot = i;
                self.len += 1;
            }
            None => self.len = Self::CROWDED,
        }
    }

    /// Forgets everything: the next lookup gathers.
    fn unset(&mut self) {
        self.len = Self::UNSET;
    }

    /// The kept ids, in the order pushed; `None` when crowded (or unset).
    #[inline]
    pub(crate) fn listed(&self) -> Option<&[u32]> {
        self.ids.get(..self.len as usize)
    }
}

/// `region` grown by [`MARGIN_M`] on every side (saturating: at the edge of the scalar's
/// range it grows less, and still holds `region`).
pub(crate) fn grown(region: &Aabb) -> Aabb {
    let margin = Vec3::new(MARGIN_M, MARGIN_M, MARGIN_M);
    Aabb::new(region.min - margin, region.max + margin)
}

/// Calls `f` with every trigger volume containing `point` (the body's centre), in
/// [`World::for_each_volume_at`](crate::world::World::for_each_volume_at)'s order, from the
/// pogo's neighbourhood (gathered again first unless its region holds `point`); only the
/// zones (the first volumes) if `zones_only`.
///
/// **The same volumes in the same order.** A point query visits the point's cell (its list,
/// in volume order, each volume tested) and then the large volumes (in volume order, each
/// tested). A gathering's region is cut to the point's cell (`World::volumes_near`), so
/// every point inside it has that cell, and it keeps that cell's volumes that overlap the
/// region, then the large ones that do, each part in volume order: a volume containing a
/// point of the region overlaps the region, so filtering the list by "contains the point"
/// gives the point query's volumes in its order, and filtering it by "is a zone" (a number
/// below the zones') the zone query's. Where the grid has cells but the point lies in none,
/// nothing is kept, and the grid is asked.
#[inline]
pub(crate) fn for_each_volume_at(
    ctx: &Ctx,
    hood: &mut Neighbourhood,
    point: Vec3,
    zones_only: bool,
    mut f: impl FnMut(VolumeKind),
) {
    let world = ctx.world;
    #[cfg(test)]
    if !ctx.lookup {
        // The grid's own queries, for the tests to compare with.
        return ask_the_grid(ctx, point, zones_only, f);
    }
    if zones_only {
        // A zone holding the point would put it inside the zones' union (a test instead of
        // a lookup on the many ticks a pogo spends away from every zone).
        ctx.charge(1);
        if !world.zones_may_hold(point) {
            return;
        }
    }
    let kept = &mut hood.volumes;
    if !kept.holds_point(point) {
        match world.volumes_near(point) {
            Some(region) => {
                #[cfg(feature = "meter")]
                ctx.charge(world.volumes_region_cost(&region));
                kept.start(region);
                world.for_each_volume_overlapping(&region, |i| kept.push(i));
            }
            None => kept.unset(),
        }
    }
    let zones = world.desc().zones.len() as u32;
    let Some(ids) = kept.listed() else {
        // Crowded, or outside the grid's cells.
        #[cfg(feature = "meter")]
        ctx.charge(world.volumes_query_cost(point));
        return ask_the_grid(ctx, point, zones_only, f);
    };
    ctx.charge(ids.len() as u64);
    for &i in ids {
        if zones_only && i >= zones {
            continue;
        }
        let (kind, bounds) = world.volume(i);
        if bounds.contains(point) {
            f(*kind);
        }
    }
}

/// The grid's own point query: every volume containing `point`, or the zones only.
fn ask_the_grid(ctx: &Ctx, point: Vec3, zones_only: bool, mut f: impl FnMut(VolumeKind)) {
    if zones_only {
        ctx.world
            .for_each_zone_at(point, |i| f(VolumeKind::Zone(i)));
    } else {
        ctx.world.for_each_volume_at(point, f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::SplitMix64;
    use crate::tick::Ticks;
    use crate::tuning::Tuning;
    use crate::world::{Checkpoint, World, WorldDesc, Zone};
    use alloc::vec::Vec;

    /// A length in `lo…hi` m, in thousandths.
    fn length(rng: &mut SplitMix64, lo: i64, hi: i64) -> Fx {
        let thousandths = (hi - lo) as u64 * 1000 + 1;
        Fx::from_ratio(lo * 1000 + (rng.next() % thousandths) as i64, 1000)
    }

    fn point(rng: &mut SplitMix64, centre: Vec3, half: i64) -> Vec3 {
        Vec3::new(
            centre.x + length(rng, -half, half),
            centre.y + length(rng, -half, half),
            centre.z + length(rng, -half, half),
        )
    }

    /// Up to 60 volumes of every kind around the origin: boxes from 5 cm to 6 m (most in the
    /// volume grid's cells, overlapping and coinciding), and now and then huge ones (its
    /// large list); a third of the worlds with only a few, large (a grid without cells).
    fn random_world(rng: &mut SplitMix64, tuning: &Tuning) -> Option<World> {
        let only_large = rng.next() % 3 == 0;
        let volume = |rng: &mut SplitMix64| {
            let min = point(rng, Vec3::ZERO, 12);
            let size = if only_large || rng.next() % 8 == 0 {
                300
            } else {
                6
            };
            let s = |rng: &mut SplitMix64| length(rng, 0, size).max(Fx::lit("0.05"));
            Aabb::new(min, min + Vec3::new(s(rng), s(rng), s(rng)))
        };
        let count = |rng: &mut SplitMix64| (rng.next() % if only_large { 3 } else { 16 }) as usize;
        let zones = (0..count(rng))
            .map(|_| Zone {
                bounds: volume(rng),
                gravity_scale: length(rng, 0, 2),
                wind: Vec3::ZERO,
            })
            .collect();
        let checkpoints = (0..count(rng))
            .map(|_| Checkpoint {
                bounds: volume(rng),
                spawn: Vec3::ZERO,
            })
            .collect();
        let desc = WorldDesc {
            name: "volumes".into(),
            spawn: Vec3::new(Fx::ZERO, Fx::from_int(50), Fx::ZERO),
            zones,
            checkpoints,
            finishes: (0..count(rng)).map(|_| volume(rng)).collect(),
            kills: (0..count(rng)).map(|_| volume(rng)).collect(),
            ..WorldDesc::default()
        };
        World::new(desc, tuning).ok()
    }

    /// Every volume lookup served by a neighbourhood gives the grid's point query's volumes
    /// in its order (and the zone query's zones, in its order): random worlds of volumes
    /// with and without grid cells, a point walking through them by steps of up to 40 cm
    /// and jumps of up to 4 m, asked for all volumes or zones only. Seeded.
    #[test]
    fn volumes_near_are_the_grids_in_its_order() {
        let seed = 0x766f_6c75_6d65_u64;
        let mut rng = SplitMix64(seed);
        let tuning = Tuning::default();
        let (mut kept, mut gathered, mut asked, mut found) = (0, 0, 0, 0);
        let mut worlds = 0;
        while worlds < 300 {
            let Some(world) = random_world(&mut rng, &tuning) else {
                continue;
            };
            worlds += 1;
            let ctx = Ctx::new(&world, &tuning, Ticks(0));
            let mut hood = Neighbourhood::EMPTY;
            let mut at = point(&mut rng, Vec3::ZERO, 12);
            for step in 0..40 {
                at = if rng.next() % 10 == 0 {
                    point(&mut rng, at, 4)
                } else {
                    let mut d = || length(&mut rng, -1, 1) * Fx::lit("0.4");
                    at + Vec3::new(d(), d(), d())
                };
                let zones_only = rng.next() % 2 == 0;
                let held = hood.volumes.holds_point(at);
                let mut got = Vec::new();
                for_each_volume_at(&ctx, &mut hood, at, zones_only, |k| got.push(k));
                let mut want = Vec::new();
                if zones_only {
                    world.for_each_zone_at(at, |i| want.push(VolumeKind::Zone(i)));
                } else {
                    world.for_each_volume_at(at, |k| want.push(k));
                }
                assert_eq!(
                    got, want,
                    "seed {seed:#x}, world {worlds}, step {step}, at {at:?}"
                );
                found += got.len();
                match hood.volumes.listed() {
                    _ if zones_only && !world.zones_may_hold(at) => {}
                    Some(_) if held => kept += 1,
                    Some(_) => gathered += 1,
                    None => asked += 1,
                }
            }
        }
        // Each case is met often, not by luck.
        for (name, count) in [
            ("kept", kept),
            ("gathered", gathered),
            ("asked", asked),
            ("found", found),
        ] {
            assert!(count >= 100, "seed {seed:#x}: {name} {count} times only");
        }
    }
}
