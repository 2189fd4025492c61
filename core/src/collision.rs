//! Collision queries of the tick: the earliest touch along a path ([`first_touch`]), the push
//! out of an overlap ([`depenetrate`]), and the lookup of what lies near the first sweep, kept
//! from tick to tick, that spares most ticks every grid query ([`nearby`], [`may_overlap`],
//! [`Neighbourhood`]).
//!
//! The geometry of one capsule against one box or plane is [`crate::sweep`]'s; the grid that
//! finds the candidate boxes is [`crate::broad_phase`]'s. This module asks both for one tick
//! (`step.rs`, stage 3) and keeps the proofs of range of its positions (bounds (P), (D), (G) of
//! `docs/tick.md`).
//!
//! # The lookup, and why it changes no result
//!
//! An airborne tick asks the world about the same place twice: [`depenetrate`] asks what
//! overlaps the capsule where the tick starts, and the first sweep ([`first_touch`]) what the
//! capsule's path over the whole tick may touch. The first sweep's region ([`swept_region`]:
//! the box the capsule sweeps, grown by [`CONTACT_SLOP`]) holds the capsule's own box, so the
//! tick looks that region up once, before depenetrating ([`nearby`]): the solids whose boxes
//! overlap it, and the platforms and ramps whose reach overlaps it ([`Movers`]). The solids
//! come from the pogo's [`Neighbourhood`]: what the grid reported for a region a metre larger
//! on every side, gathered on an earlier tick and kept until the pogo's path leaves it (a
//! tick moves a pogo a few centimetres to a few decimetres, so one gathering serves several
//! ticks, and the tick tests a handful of boxes instead of querying the grid). Then:
//!
//! 1. **The overlap check** ([`may_overlap`]) tests the capsule against those only, and says
//!    "no overlap" only if [`depenetrate`] would push nothing. `depenetrate` pushes only out
//!    of a solid the grid reports near the capsule's box, or a platform or ramp, that the
//!    capsule overlaps. A solid that the capsule overlaps overlaps the capsule's box, which
//!    holds the capsule when it is at least twice as tall as its radius (`Ctx::boxed`; every
//!    valid tuning's is), so it overlaps the region and the neighbourhood's larger region,
//!    whose solids the grid reports all (every solid whose box overlaps a region is in the
//!    cells the region spans, or in the large list), and the neighbourhood keeps them all:
//!    every solid `depenetrate` could push out of is in the list. A platform or ramp whose
//!    reach misses the region misses the capsule's box inside it; the others are tested as
//!    `depenetrate` tests them ([`platform_and_ramp_pushes`], shared). Boxes that miss the
//!    capsule's box are skipped without the distance test when it holds the capsule.
//! 2. **Nothing has moved** when the check says "no overlap" (nearly every tick):
//!    depenetration would have left the pogo where it was, so the first sweep starts where the
//!    lookup was made, with the same displacement (its dt²/2 is the tuning's, `dt · dt / 2`,
//!    which is `duration · duration` halved for the whole tick), and its region is the one
//!    looked up. The lookup then holds the solids the sweep's own grid query would report
//!    (the solids whose boxes overlap the region), perhaps in another order and repeated
//!    another number of times, and the platforms and ramps whose reach overlaps the region,
//!    which are the only ones [`first_touch`] does not skip. The earliest touch depends on
//!    neither the order nor the repeats: ties go to the lowest [`SurfaceId`], and a repeat
//!    is not earlier than itself.
//! 3. **Otherwise the tick runs as written**: when the check finds an overlap, or the
//!    neighbourhood is crowded (its region holds more than [`NEARBY_MAX`] solids, repeats
//!    counted), the lookup is dropped; depenetration queries the grid itself, and every sweep
//!    its own region.
//!
//! So the tick's results are those of the tick without the lookup, bit for bit, whatever a
//! neighbourhood holds: the world does not change during a simulation, so what a
//! neighbourhood lists is a function of its region alone, whichever tick gathered it (it is
//! not part of the state: never hashed, saved or restored, and a restored or edited state
//! finds it as valid as before). The property test `the_lookup_changes_no_tick` checks it:
//! random worlds (solids, crowds of them, large boxes, ramps, moving platforms, zones), pogos
//! started inside and around them, stepped with the lookup and neighbourhoods kept from tick
//! to tick and without the lookup, every pogo equal after every tick.

//! Every function here is `#[inline]`: written in `step.rs`, they were all inlined into the
//! tick; in a module of their own (another codegen unit) without the hint, LLVM called them,
//! which cost 12 % more instructions per tick (callgrind, `course`: 1 843 against 1 646).

use crate::ctx::Ctx;
use crate::fx::Fx;
use crate::neighbourhood::{self, Neighbourhood};
use crate::pogo::Pogo;
use crate::sweep::{self, CONTACT_SLOP, Touch};
use crate::vec3::Vec3;
use crate::world::{Aabb, PlatformMove, SURFACES_MAX, SurfaceId, World};

/// Most solids (with repeats) a [`Neighbourhood`] keeps; around a place where the grid reports
/// more, the tick runs without the lookup (see [`nearby`]), as it always may.
pub(crate) const NEARBY_MAX: usize = 48;
/// Most pushes out of an overlap in one tick (bound (P) of `step.rs` counts them).
pub(crate) const PUSHES_MAX: usize = 4;

// ---------------------------------------------------------------------------------------------
// The lookup

/// What the first sweep may touch, looked up once a tick (see [`nearby`]).
#[derive(Clone, Copy)]
pub(crate) struct Nearby<'a> {
    /// The solids whose boxes overlap the region: those `for_each_solid_overlapping(region)`
    /// reports, as often and in the order the pogo's neighbourhood lists them.
    solids: &'a [u32],
    /// The platforms and ramps whose reach overlaps the region.
    movers: Movers,
}

/// What the first sweep's region `region` holds, from the pogo's [`Neighbourhood`] `hood`
/// (gathered again first unless its region holds `region`): the solids whose boxes overlap
/// `region` (those the grid reports for it, each as often as the neighbourhood lists it),
/// kept in `ids`, and the platforms and ramps whose reach overlaps it. `None` in a crowded
/// place (more than [`NEARBY_MAX`] solids listed): the tick then runs without the lookup
/// (see the module docs).
#[inline]
pub(crate) fn nearby<'a>(
    ctx: &Ctx,
    region: &Aabb,
    ids: &'a mut [u32; NEARBY_MAX],
    hood: &mut Neighbourhood,
) -> Option<Nearby<'a>> {
    #[cfg(test)]
    if !ctx.lookup {
        return None;
    }
    let kept = &mut hood.solids;
    if !kept.holds(region) {
        let grown = neighbourhood::grown(region);
        #[cfg(feature = "meter")]
        ctx.charge(ctx.world.solids_query_cost(&grown));
        kept.start(grown);
        ctx.world
            .for_each_solid_overlapping(&grown, |i| kept.push(i));
    }
    let listed = kept.listed()?;
    // A test of each listed box, and the reach test of every platform and ramp
    // (`Movers::near`).
    ctx.charge(
        listed.len() as u64 + u64::from(ctx.world.platform_count() + ctx.world.ramp_count()),
    );
    let mut len = 0;
    for &i in listed {
        if ctx.world.solid(i).bounds.overlaps(region) {
            ids[len] = i;
            len += 1;
        }
    }
    Some(Nearby {
        solids: &ids[..len],
        movers: Movers::near(ctx.world, region),
    })
}

/// Whether [`depenetrate`] might move a pogo with its tip at `tip`, given `nearby`, what a
/// region holding the capsule's box holds: `false` means it certainly would not (point 1 of
/// the module docs).
#[inline]
pub(crate) fn may_overlap(ctx: &Ctx, tip: Vec3, nearby: &Nearby) -> bool {
    let region = capsule_box(ctx, tip);
    let mut overlap = nearby.solids.iter().any(|&i| {
        ctx.charge(1);
        let bounds = &ctx.world.solid(i).bounds;
        (!ctx.boxed || bounds.overlaps(&region))
            && sweep::depenetrate_box(&ctx.capsule, tip, bounds).is_some()
    });
    if !overlap {
        platform_and_ramp_pushes(ctx, tip, &region, nearby.movers, |push| {
            overlap |= push.is_some()
        });
    }
    overlap
}

// ---------------------------------------------------------------------------------------------
// The queries

/// Pushes the pogo out of anything it overlaps (after riding a platform into a wall, say),
/// one surface at a time, the deepest first, at most [`PUSHES_MAX`] times; each push removes
/// the velocity's part into the surface.
#[inline]
pub(crate) fn depenetrate(ctx: &Ctx, pogo: &mut Pogo) {
    for _ in 0..PUSHES_MAX {
        let region = ctx.capsule.bounds(pogo.position);
        let mut push: Option<(Fx, Vec3)> = None;
        let mut deepest = |candidate: Option<(Fx, Vec3)>| {
            if let Some((depth, n)) = candidate {
                if push.is_none_or(|(d, _)| depth > d) {
                    push = Some((depth, n));
                }
            }
        };
        #[cfg(feature = "meter")]
        ctx.charge(ctx.world.solids_query_cost(&region));
        ctx.world.for_each_solid_near(&region, |i| {
            deepest(sweep::depenetrate_box(
                &ctx.capsule,
                pogo.position,
                &ctx.world.solid(i).bounds,
            ));
        });
        let movers = Movers::every(ctx.world);
        platform_and_ramp_pushes(ctx, pogo.position, &region, movers, &mut deepest);
        let Some((depth, n)) = push else { return };
        pogo.position += n * depth;
        let into = pogo.velocity.dot(n);
        if into < Fx::ZERO {
            pogo.velocity -= n * into;
        }
    }
}

/// The earliest touch of the capsule moving from `tip` by `d` during the part of the tick that
/// starts `elapsed` into it and lasts `span` of it (fractions). Ties go to the lowest
/// [`SurfaceId`], so the result never depends on the order candidates are found in.
/// `swept` is `swept_region(ctx, tip, d)`; `nearby`, if given, what the region holds (point 2
/// of the module docs): a solid whose box misses the path's box cannot be touched, nor a
/// platform or ramp whose reach misses it.
#[inline]
pub(crate) fn first_touch(
    ctx: &Ctx,
    tip: Vec3,
    d: Vec3,
    swept: &Aabb,
    elapsed: Fx,
    span: Fx,
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
        consider(
            sweep::sweep_box(&ctx.capsule, tip, d, &ctx.world.solid(i).bounds),
            SurfaceId::Solid(i),
        );
    };
    let movers = match nearby {
        Some(nearby) => {
            ctx.charge(nearby.solids.len() as u64);
            nearby.solids.iter().for_each(|&i| solid(i));
            nearby.movers
        }
        None => {
            #[cfg(feature = "meter")]
            ctx.charge(ctx.world.solids_query_cost(swept));
            ctx.world.for_each_solid_overlapping(swept, solid);
            Movers::every(ctx.world)
        }
    };
    for i in bits(movers.platforms) {
        ctx.charge(1);
        // A platform whose reach the capsule's path misses cannot be touched (the relative
        // sweep below happens inside the reach: see `World::platform_reach`).
        if !ctx.world.platform_reach(i).overlaps(swept) {
            continue;
        }
        ctx.charge(2); // two path evaluations
        // In the platform's frame: it stands still where it is `elapsed` into the tick, and
        // the pogo moves by its own displacement minus the platform's over the span.
        let PlatformMove { start, moved } = ctx.world.platform_during(i, ctx.tick);
        // (G), (D): a platform's box and its move, one displacement and a fraction of one.
        let bounds = start.translated(moved.scale_in_range(elapsed));
        let relative = d.sub_in_range(moved.scale_in_range(span));
        if bounds.overlaps(&swept_region(ctx, tip, relative)) {
            consider(
                sweep::sweep_box(&ctx.capsule, tip, relative, &bounds),
                SurfaceId::Platform(i),
            );
        }
    }
    for i in bits(movers.ramps) {
        ctx.charge(1);
        if ramp_may_touch(ctx.world, i, swept) {
            consider(
                sweep::sweep_plane(&ctx.capsule, tip, d, &ctx.world.ramp_plane(i)),
                SurfaceId::Ramp(i),
            );
        }
    }
    best
}

// ---------------------------------------------------------------------------------------------
// What the queries share

/// Calls `f` with the push out of each platform and ramp of `movers` that may overlap a
/// capsule with its tip at `tip` inside `region` (its box): platforms, then ramps, each in
/// index order. A platform whose box misses `region` is skipped, as `may_overlap` skips such
/// solids: its push would be `None`.
#[inline]
fn platform_and_ramp_pushes(
    ctx: &Ctx,
    tip: Vec3,
    region: &Aabb,
    movers: Movers,
    mut f: impl FnMut(Option<(Fx, Vec3)>),
) {
    for i in bits(movers.platforms) {
        ctx.charge(1);
        if ctx.world.platform_reach(i).overlaps(region) {
            ctx.charge(1); // a path evaluation
            let bounds = ctx.world.platform_bounds(i, ctx.tick);
            if !ctx.boxed || bounds.overlaps(region) {
                f(sweep::depenetrate_box(&ctx.capsule, tip, &bounds));
            }
        }
    }
    for i in bits(movers.ramps) {
        ctx.charge(1);
        if ramp_may_touch(ctx.world, i, region) {
            f(sweep::depenetrate_plane(
                &ctx.capsule,
                tip,
                &ctx.world.ramp_plane(i),
            ));
        }
    }
}

/// A set of platforms and a set of ramps, as bit masks: bit `i` of `platforms` is platform
/// `i` (a level has at most `SURFACES_MAX` = 64 of each).
#[derive(Clone, Copy)]
struct Movers {
    platforms: u64,
    ramps: u64,
}

const _: () = assert!(SURFACES_MAX <= 64);

impl Movers {
    /// Every platform and ramp of the world.
    #[inline]
    fn every(world: &World) -> Movers {
        Movers {
            platforms: low_bits(world.platform_count()),
            ramps: low_bits(world.ramp_count()),
        }
    }

    /// The platforms and ramps whose reach overlaps `region`: the only ones a capsule within
    /// it can touch or overlap.
    #[inline]
    fn near(world: &World, region: &Aabb) -> Movers {
        let mut near = Movers {
            platforms: 0,
            ramps: 0,
        };
        for (i, reach) in world.platform_reaches().iter().enumerate() {
            if reach.overlaps(region) {
                near.platforms |= 1 << i;
            }
        }
        for (i, reach) in world.ramp_reaches().iter().enumerate() {
            if ramp_reach_overlaps(reach.as_ref(), region) {
                near.ramps |= 1 << i;
            }
        }
        near
    }
}

/// The mask of bits `0..n` (`n` ≤ 64).
#[inline]
fn low_bits(n: u32) -> u64 {
    u64::MAX.checked_shr(64 - n).unwrap_or(0)
}

/// The indices of the set bits of `mask`, lowest first.
#[inline]
fn bits(mut mask: u64) -> impl Iterator<Item = u32> {
    core::iter::from_fn(move || {
        let i = mask.trailing_zeros();
        mask &= mask.wrapping_sub(1);
        (i < 64).then_some(i)
    })
}

/// [`Plane::may_touch`](sweep::Plane::may_touch) of ramp `i`, from the world's precomputed
/// reach (the same box).
#[inline]
fn ramp_may_touch(world: &World, i: u32, region: &Aabb) -> bool {
    ramp_reach_overlaps(world.ramp_reach(i), region)
}

/// Whether a ramp's reach (`World::ramp_reach`; `None` for an unbounded ramp, which may touch
/// anything) overlaps `region`.
#[inline]
fn ramp_reach_overlaps(reach: Option<&Aabb>, region: &Aabb) -> bool {
    reach.is_none_or(|reach| reach.overlaps(region))
}

/// The capsule's box for a tip at `tip` within (P): `Capsule::bounds`, whose sums of a
/// position and a capsule dimension are in range (G).
#[inline]
fn capsule_box(ctx: &Ctx, tip: Vec3) -> Aabb {
    let r = ctx.capsule.radius;
    Aabb::new(
        Vec3::new(tip.x.sub_in_range(r), tip.y, tip.z.sub_in_range(r)),
        Vec3::new(
            tip.x.add_in_range(r),
            tip.y.add_in_range(ctx.capsule.height),
            tip.z.add_in_range(r),
        ),
    )
}

/// The box swept by the capsule moving from `tip` (within (P)) by `d` (within (D)), grown
/// by `CONTACT_SLOP`: `Capsule::swept_bounds`, in range (the end `tip + d` is within (P),
/// and a capsule dimension and a slop more are in range too).
#[inline]
pub(crate) fn swept_region(ctx: &Ctx, tip: Vec3, d: Vec3) -> Aabb {
    let b = capsule_box(ctx, tip).union(&capsule_box(ctx, tip.add_in_range(d)));
    let slop = Vec3::new(CONTACT_SLOP, CONTACT_SLOP, CONTACT_SLOP);
    Aabb::new(b.min.sub_in_range(slop), b.max.add_in_range(slop))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{Buttons, Input};
    use crate::pogo::State;
    use crate::step::{step, step_without_lookup};
    use crate::test_util::SplitMix64;
    use crate::tick::Ticks;
    use crate::tuning::{Tuning, TuningSpec};
    use crate::world::{Path, Platform, Ramp, Solid, WorldDesc, Zone};
    use alloc::vec::Vec;

    #[test]
    fn bits_are_the_set_bits_lowest_first() {
        assert_eq!(bits(0).count(), 0);
        assert_eq!(bits(1).collect::<Vec<_>>(), [0]);
        assert_eq!(bits(1 << 63).collect::<Vec<_>>(), [63]);
        assert_eq!(
            bits(u64::MAX).collect::<Vec<_>>(),
            (0..64).collect::<Vec<_>>()
        );
        let seed = 0x6d6f_7665_7273;
        let mut rng = SplitMix64(seed);
        for _ in 0..1000 {
            let mask = rng.next() & rng.next();
            let expected: Vec<u32> = (0..64).filter(|&i| mask >> i & 1 == 1).collect();
            assert_eq!(
                bits(mask).collect::<Vec<_>>(),
                expected,
                "seed {seed:#x}, mask {mask:#x}"
            );
        }
    }

    #[test]
    fn low_bits_are_every_surface() {
        for n in 0..=64 {
            assert_eq!(
                bits(low_bits(n)).collect::<Vec<_>>(),
                (0..n).collect::<Vec<_>>()
            );
        }
    }

    /// The seeded stream of the random worlds, and the values drawn from it.
    struct Rng(SplitMix64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0.next() % n
        }

        fn chance(&mut self, percent: u64) -> bool {
            self.below(100) < percent
        }

        /// A length in `lo…hi` m, in thousandths (most are not binary fractions, so the
        /// arithmetic rounds as it does in play).
        fn length(&mut self, lo: i64, hi: i64) -> Fx {
            let thousandths = (hi - lo) as u64 * 1000 + 1;
            Fx::from_ratio(lo * 1000 + self.below(thousandths) as i64, 1000)
        }

        fn point(&mut self, centre: Vec3, half: i64) -> Vec3 {
            let mut c = |c: Fx| c + self.length(-half, half);
            Vec3::new(c(centre.x), c(centre.y), c(centre.z))
        }

        fn cube(&mut self, centre: Vec3, half: i64, size: (i64, i64)) -> Aabb {
            let min = self.point(centre, half);
            let mut s = || self.length(size.0, size.1).max(Fx::lit("0.01"));
            Aabb::new(min, min + Vec3::new(s(), s(), s()))
        }
    }

    /// A random level: a ground slab or not, solids scattered around `centre`, large boxes
    /// (the grid's large list), often a crowd of solids at the centre (see `crowd`), bounded
    /// and unbounded ramps, moving platforms and zones.
    fn random_level(rng: &mut Rng, centre: Vec3) -> (WorldDesc, Vec3) {
        let mut solids = Vec::new();
        if rng.chance(60) {
            let ground = Aabb::new(
                Vec3::new(Fx::from_int(-40), Fx::from_int(-1), Fx::from_int(-40)),
                Vec3::new(Fx::from_int(40), Fx::ZERO, Fx::from_int(40)),
            );
            solids.push(ground);
        }
        for _ in 0..rng.below(16) {
            solids.push(rng.cube(centre, 8, (0, 5)));
        }
        for _ in 0..rng.below(3) {
            solids.push(rng.cube(centre, 20, (20, 60)));
        }
        let crowd = crowd(rng, centre, &mut solids);
        let solids = solids
            .into_iter()
            .map(|bounds| Solid {
                bounds,
                no_bounce: rng.chance(10),
            })
            .collect();
        let ramps = (0..rng.below(4))
            .map(|_| Ramp {
                normal: Vec3::new(rng.length(-2, 2), rng.length(0, 2), rng.length(-2, 2)),
                point: rng.point(centre, 6),
                bounds: rng.chance(70).then(|| rng.cube(centre, 8, (1, 10))),
                no_bounce: rng.chance(10),
            })
            .collect();
        let platforms = (0..rng.below(4))
            .map(|_| {
                let from = rng.point(centre, 6);
                Platform {
                    size: Vec3::new(rng.length(1, 4), rng.length(0, 1), rng.length(1, 4))
                        + Vec3::new(Fx::ZERO, Fx::lit("0.1"), Fx::ZERO),
                    path: Path::PingPong {
                        from,
                        to: rng.point(from, 5),
                        period: rng.length(1, 6),
                    },
                    no_bounce: rng.chance(10),
                }
            })
            .collect();
        let zones = (0..rng.below(2))
            .map(|_| Zone {
                bounds: rng.cube(centre, 6, (2, 12)),
                gravity_scale: rng.length(0, 3),
                wind: Vec3::new(
                    rng.length(-20, 20),
                    rng.length(-20, 20),
                    rng.length(-20, 20),
                ),
            })
            .collect();
        let level = WorldDesc {
            name: "random".into(),
            spawn: rng.point(centre, 4),
            solids,
            ramps,
            platforms,
            zones,
            ..WorldDesc::default()
        };
        (level, crowd)
    }

    /// Adds, two times in three, a crowd near `centre` and returns where it is: more solids
    /// than `NEARBY_MAX` around a capsule there, whereas the grid lists at most
    /// `CELL_BOXES_MAX` = 32 in a cell. Either a stack (24 to 29 boxes holding the centre, each
    /// reaching 1 to 3 m from it: a capsule there meets each once in every cell it spans), or
    /// 64 small boxes in the 8 cells around the corner of the grid's cells nearest the centre,
    /// 8 in each, each within 5 cm of the corner: a capsule there meets 64 different solids.
    /// The grid's cells are 2 m cubes from the lowest corner of the level's solids
    /// (`broad_phase.rs`) when the level spans less than 250 m, as these do.
    fn crowd(rng: &mut Rng, centre: Vec3, solids: &mut Vec<Aabb>) -> Vec3 {
        let stack = |rng: &mut Rng, solids: &mut Vec<Aabb>| {
            for _ in 0..24 + rng.below(6) {
                let mut reach = || rng.length(1, 3);
                let below = Vec3::new(reach(), reach(), reach());
                let above = Vec3::new(reach(), reach(), reach());
                solids.push(Aabb::new(centre - below, centre + above));
            }
            centre
        };
        if rng.chance(33) {
            return centre;
        }
        let level = solids.iter().copied().reduce(|a, b| a.union(&b));
        let Some(level) = level.filter(|_| rng.chance(50)) else {
            return stack(rng, solids);
        };
        // The cell corner at or below the centre, at least one cell above the origin (so
        // that the crowd leaves the origin where it is).
        let corner = |c: Fx, origin: Fx| {
            let cells = ((c - origin).to_bits() >> (Fx::FRAC_BITS + 1)).max(1);
            origin + Fx::from_bits(cells << (Fx::FRAC_BITS + 1))
        };
        let at = Vec3::new(
            corner(centre.x, level.min.x),
            corner(centre.y, level.min.y),
            corner(centre.z, level.min.z),
        );
        for octant in 0..8 {
            for _ in 0..8 {
                // From within 5 cm of the corner, 5 to 50 cm into the octant.
                let mut span = |c: Fx, up: bool| {
                    let near = rng.length(0, 1).max(Fx::lit("0.001")) * Fx::lit("0.05");
                    let far = near + rng.length(0, 1).max(Fx::lit("0.1")) * Fx::lit("0.5");
                    if up {
                        (c + near, c + far)
                    } else {
                        (c - far, c - near)
                    }
                };
                let (x, y, z) = (
                    span(at.x, octant & 1 == 1),
                    span(at.y, octant & 2 == 2),
                    span(at.z, octant & 4 == 4),
                );
                solids.push(Aabb::new(
                    Vec3::new(x.0, y.0, z.0),
                    Vec3::new(x.1, y.1, z.1),
                ));
            }
        }
        at
    }

    /// Pogos in the air or stunned, inside, against and around the level's boxes at speeds up
    /// to 40 m/s on each axis: a quarter with the crowd's point in or near their capsule's
    /// box, a quarter dropped onto it from up to a metre above, falling at 30 to 40 m/s.
    fn random_pogos(rng: &mut Rng, centre: Vec3, crowd: Vec3, spawn: Vec3) -> Vec<Pogo> {
        (0..1 + rng.below(8))
            .map(|_| {
                let mut v = || rng.length(-40, 40);
                let mut velocity = Vec3::new(v(), v(), v());
                let mut off = |scale: &str| rng.length(-1, 1) * Fx::lit(scale);
                let (dx, dy, dz) = (off("0.5"), off("0.8"), off("0.5"));
                let position = match rng.below(4) {
                    0 => crowd + Vec3::new(dx, dy - Fx::lit("0.4"), dz),
                    1 => {
                        velocity.y = rng.length(-40, -30);
                        crowd + Vec3::new(dx, dy.abs() + Fx::lit("0.2"), dz)
                    }
                    _ => rng.point(centre, 8),
                };
                let stunned = rng.chance(20);
                Pogo {
                    state: if stunned {
                        State::Stunned
                    } else {
                        State::Airborne
                    },
                    position,
                    velocity,
                    stun_ticks_left: if stunned { 1 + rng.below(40) as u32 } else { 0 },
                    ..Pogo::new(spawn)
                }
            })
            .collect()
    }

    fn random_input(rng: &mut Rng) -> Input {
        let mut buttons = Buttons::NONE;
        for (button, percent) in [(Buttons::DIVE, 20), (Buttons::TRICK, 10)] {
            if rng.chance(percent) {
                buttons = buttons.union(button);
            }
        }
        Input {
            steer_x: rng.0.next() as i8,
            steer_z: rng.0.next() as i8,
            buttons,
        }
    }

    /// The first sweep's lookup changes no tick (the argument of the module docs): random
    /// worlds and pogos stepped with and without it give the same pogos after every tick.
    /// Seeded: a failure prints its seed, case and tick. The worlds put pogos in every
    /// case the lookup has (counted at the start of each tick, and checked at the end): clear
    /// of everything, overlapping something (depenetration moves them), and in a crowd of
    /// more than `NEARBY_MAX` solids.
    /// A neighbourhood keeps what the grid reports: every lookup of a region (gathered anew
    /// when the region leaves the neighbourhood, from it otherwise) keeps exactly the solids
    /// the grid reports overlapping that region (as a set: the order and the repeats may
    /// differ), or drops the lookup when the neighbourhood is crowded, which it is only when
    /// its region holds more than `NEARBY_MAX`. Random levels of `random_level`, regions
    /// around their crowds and centres, each lookup followed by some inside the neighbourhood
    /// and some leaving it.
    #[test]
    fn a_neighbourhood_keeps_what_the_grid_reports() {
        let seed = 0x6e65_6967_6862_u64;
        let mut rng = Rng(SplitMix64(seed));
        let tuning = Tuning::default();
        let (mut kept, mut gathered, mut crowded) = (0, 0, 0);
        let mut cases = 0;
        while cases < 300 {
            let centre = rng.point(Vec3::ZERO, 20);
            let (level, crowd) = random_level(&mut rng, centre);
            let Ok(world) = World::new(level, &tuning) else {
                continue;
            };
            cases += 1;
            let ctx = Ctx::new(&world, &tuning, Ticks(0));
            let mut hood = Neighbourhood::EMPTY;
            let mut at = if rng.chance(50) { crowd } else { centre };
            for _ in 0..20 {
                // A step of up to 40 cm, now and then a jump of up to 3 m.
                let step = if rng.chance(10) { 3 } else { 0 };
                at = if step > 0 {
                    rng.point(at, step)
                } else {
                    let d = Vec3::new(
                        rng.length(-1, 1) * Fx::lit("0.4"),
                        rng.length(-1, 1) * Fx::lit("0.4"),
                        rng.length(-1, 1) * Fx::lit("0.4"),
                    );
                    at + d
                };
                let region = rng.cube(at, 0, (0, 2));
                let covered = hood.solids.holds(&region);
                let mut ids = [0; NEARBY_MAX];
                let found = nearby(&ctx, &region, &mut ids, &mut hood);
                let mut want = Vec::new();
                world.for_each_solid_overlapping(&region, |i| want.push(i));
                want.sort_unstable();
                want.dedup();
                let mut listed = 0;
                world.for_each_solid_overlapping(hood.solids.region(), |_| listed += 1);
                assert!(
                    hood.solids.holds(&region),
                    "seed {seed:#x}, case {cases}: the neighbourhood does not hold the region"
                );
                match found {
                    Some(found) => {
                        let mut got = found.solids.to_vec();
                        got.sort_unstable();
                        got.dedup();
                        assert_eq!(got, want, "seed {seed:#x}, case {cases}: {region:?}");
                        assert!(listed <= NEARBY_MAX, "seed {seed:#x}, case {cases}");
                    }
                    None => {
                        assert!(
                            listed > NEARBY_MAX,
                            "seed {seed:#x}, case {cases}: crowded?"
                        );
                        crowded += 1;
                    }
                }
                if covered {
                    kept += 1;
                } else {
                    gathered += 1;
                }
            }
        }
        // Each case is met often, not by luck.
        for (name, count) in [("kept", kept), ("gathered", gathered), ("crowded", crowded)] {
            assert!(
                count >= 100,
                "seed {seed:#x}: {name} in {count} lookups only"
            );
        }
    }

    #[test]
    fn the_lookup_changes_no_tick() {
        let seed = 0x6c6f_6f6b_7570_u64;
        let mut rng = Rng(SplitMix64(seed));
        let tunings = [
            TuningSpec::default(),
            TuningSpec {
                tick_rate: 30,
                body_radius: Fx::lit("0.5"),
                body_height: Fx::lit("1.2"),
                ..TuningSpec::default()
            },
            TuningSpec {
                tick_rate: 144,
                body_radius: Fx::lit("0.1"),
                body_height: Fx::lit("2.5"),
                ..TuningSpec::default()
            },
        ];
        let (mut clear, mut overlapping, mut crowded) = (0, 0, 0);
        let mut cases = 0;
        while cases < 300 {
            let tuning = Tuning::new(tunings[rng.below(3) as usize].clone()).unwrap();
            let centre = rng.point(Vec3::ZERO, 20);
            let (level, crowd) = random_level(&mut rng, centre);
            let Ok(world) = World::new(level, &tuning) else {
                continue; // too dense a crowd for the grid's cells: draw another
            };
            cases += 1;
            let mut with = random_pogos(&mut rng, centre, crowd, world.spawn());
            let mut without = with.clone();
            // Kept from tick to tick, as a simulation keeps them.
            let mut hoods = alloc::vec![Neighbourhood::EMPTY; with.len()];
            let start = rng.below(10_000) as u32;
            for tick in start..start + 30 {
                let tick = Ticks(tick);
                for pogo in &with {
                    if matches!(pogo.state, State::Airborne | State::Stunned) {
                        let ctx = Ctx::new(&world, &tuning, tick);
                        let mut ids = [0; NEARBY_MAX];
                        let region = swept_region(&ctx, pogo.position, Vec3::ZERO);
                        let mut pushed = *pogo;
                        depenetrate(&ctx, &mut pushed);
                        let mut fresh = Neighbourhood::EMPTY; // gathered for `region`
                        if nearby(&ctx, &region, &mut ids, &mut fresh).is_none() {
                            crowded += 1;
                        } else if pushed.position != pogo.position {
                            overlapping += 1;
                        } else {
                            clear += 1;
                        }
                    }
                }
                let inputs: Vec<Input> = with.iter().map(|_| random_input(&mut rng)).collect();
                step(&world, &tuning, tick, &mut with, &mut hoods, &inputs);
                step_without_lookup(&world, &tuning, tick, &mut without, &inputs);
                for (player, (a, b)) in with.iter().zip(&without).enumerate() {
                    assert_eq!(
                        a, b,
                        "seed {seed:#x}, case {cases}, tick {}, player {player}: with the \
                         lookup (left) and without (right)",
                        tick.0
                    );
                }
            }
        }
        // Each case of the lookup is met often, not by luck.
        for (name, count) in [
            ("clear", clear),
            ("overlapping", overlapping),
            ("crowded", crowded),
        ] {
            assert!(
                count >= 100,
                "seed {seed:#x}: {name} in {count} pogo-ticks only"
            );
        }
    }
}
