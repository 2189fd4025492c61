//! Continuous collision of the pogo's capsule against boxes and ramps.
//!
//! # The shape
//!
//! The pogo is an upright capsule of radius `r` and height `h`, located by its tip `p` (its
//! lowest point). Its core is the vertical segment from `a = p + (0, r, 0)` up to
//! `a + (0, L, 0)`, `L = h − 2r`; the capsule is every point within `r` of the core.
//!
//! # Boxes: a point against a rounded box
//!
//! The capsule touches a box `B` exactly when its core comes within `r` of `B`, i.e. when `a`
//! comes within `r` of `B′`, the box `B` stretched downward by `L` (the Minkowski sum with
//! the reversed core). So sweeping the capsule is sweeping the point `a` against the rounded
//! box "within r of B′", whose edges and corners are rounded: a contact there gets the true
//! capsule-to-box direction as its normal, so edges give tilted normals.
//!
//! The time of impact along `a(t) = a₀ + t·d`, t ∈ [0, 1], is the first root of
//! `f(t) = dist(a(t), B′) − r − SKIN`. Along a line the distance to a convex set is convex in
//! `t`, so Newton's method started left of the root (at the entry into `B′` grown by `r`,
//! found with a slab test, which also catches any thin slab at any speed) never overshoots
//! and converges in a few steps; `f′(t) = n·d` with `n` the outward unit normal at the closest
//! point, and `n·d ≥ 0` means the point is moving away: no hit. The iteration count is
//! bounded; if it runs out, the hit is reported where it stands, which is still outside the
//! box, so tunnelling is impossible either way.
//!
//! The capsule stops `SKIN` short of the surface; a distance of up to `CONTACT_SLOP` counts
//! as touching, so a resting pogo keeps reporting its contact.
//!
//! # Ramps
//!
//! A ramp is a one-sided plane `n·x = o`: the capsule's signed distance is linear in `t`
//! (`n·a + min(0, L·n_y) − o − r`), so its root is one division. The contact point must lie
//! in the ramp's bounds; a capsule behind the plane ignores it.

use crate::fx::Fx;
use crate::shape::Aabb;
pub use crate::shape::Plane;
use crate::vec3::Vec3;

/// Distance (m) the capsule stops short of a surface: 2⁻¹⁴ m ≈ 61 µm.
pub const SKIN: Fx = Fx::from_bits(1 << (Fx::FRAC_BITS - 14));
/// A capsule within this distance (m) of a surface is touching it.
pub const CONTACT_SLOP: Fx = Fx::from_bits(1 << (Fx::FRAC_BITS - 12));
/// A displacement into a surface this small (m, 2⁻²⁴ ≈ 60 nm) counts as not moving in. Moving
/// with a platform, the pogo's displacement (velocity × time) and the platform's (exact, from
/// its path) differ by rounding; without this a pogo riding a platform would see an endless
/// series of zero-time touches and stop. It is far below `SKIN`, so it cannot penetrate.
pub const CREEP: Fx = Fx::from_bits(1 << (Fx::FRAC_BITS - 24));
/// Newton steps per box; quadratic convergence needs three or four, grazing contacts more.
const NEWTON_STEPS_MAX: u32 = 12;

/// The pogo's collision shape.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Capsule {
    /// Radius (m).
    pub radius: Fx,
    /// Total height from tip to top (m), at least `2·radius`.
    pub height: Fx,
}

impl Capsule {
    /// Length of the core segment (m).
    pub fn core_length(&self) -> Fx {
        (self.height - self.radius - self.radius).max(Fx::ZERO)
    }

    /// The bottom sphere's centre for a tip at `tip`.
    pub fn base(&self, tip: Vec3) -> Vec3 {
        tip + Vec3::new(Fx::ZERO, self.radius, Fx::ZERO)
    }

    /// The capsule's bounding box for a tip at `tip`.
    pub fn bounds(&self, tip: Vec3) -> Aabb {
        let r = self.radius;
        Aabb::new(
            Vec3::new(tip.x - r, tip.y, tip.z - r),
            Vec3::new(tip.x + r, tip.y + self.height, tip.z + r),
        )
    }

    /// The box swept by the capsule moving from `tip` by `d`, grown by `CONTACT_SLOP`.
    pub fn swept_bounds(&self, tip: Vec3, d: Vec3) -> Aabb {
        let slop = Vec3::new(CONTACT_SLOP, CONTACT_SLOP, CONTACT_SLOP);
        let b = self.bounds(tip).union(&self.bounds(tip + d));
        Aabb::new(b.min - slop, b.max + slop)
    }
}

/// Where and how a sweep first touches a surface.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Touch {
    /// Fraction of the displacement travelled before the touch, in [0, 1].
    pub t: Fx,
    /// Unit normal at the contact, pointing from the surface toward the capsule.
    pub normal: Vec3,
    /// Height of the contact point above the tip (m, 0…h).
    pub height_on_body: Fx,
}

/// The configuration-space box for the point `a`: `b` stretched down by the core length.
fn stretched(capsule: &Capsule, b: &Aabb) -> Aabb {
    let mut s = *b;
    s.min.y -= capsule.core_length();
    s
}

/// Signed distance from `a` to box `s` and the outward unit normal at the closest point.
/// Inside, the distance is minus the depth to the nearest face and the normal that face's.
fn box_distance(a: Vec3, s: &Aabb) -> (Fx, Vec3) {
    let delta = a - s.closest_point(a);
    if let Some((n, length)) = delta.normalize_with_length() {
        return (length, n);
    }
    let faces = [
        (a.x - s.min.x, Vec3::new(-Fx::ONE, Fx::ZERO, Fx::ZERO)),
        (s.max.x - a.x, Vec3::new(Fx::ONE, Fx::ZERO, Fx::ZERO)),
        (a.y - s.min.y, Vec3::new(Fx::ZERO, -Fx::ONE, Fx::ZERO)),
        (s.max.y - a.y, Vec3::UP),
        (a.z - s.min.z, Vec3::new(Fx::ZERO, Fx::ZERO, -Fx::ONE)),
        (s.max.z - a.z, Vec3::new(Fx::ZERO, Fx::ZERO, Fx::ONE)),
    ];
    // The first of equally shallow faces wins: a fixed order, so the result is deterministic.
    let (depth, n) = faces
        .into_iter()
        .fold(faces[3], |best, f| if f.0 < best.0 { f } else { best });
    (-depth, n)
}

/// Height above the tip of the capsule's contact point with box `b`, for a base at `a` and
/// the contact normal `normal`.
///
/// The core point nearest the box is `a + (0, s, 0)` with `s = clamp(b.max.y − a.y, 0, L)`:
/// the bottom of the core for a box below, the top for a box above, and for a box beside the
/// core the *highest* point of their overlap — so a flat face touching both tip and body is
/// a body contact. The contact point lies `r` from it against the normal: `s + r·(1 − n_y)`.
fn contact_height(capsule: &Capsule, a: Vec3, b: &Aabb, normal: Vec3) -> Fx {
    let s = (b.max.y - a.y).clamp(Fx::ZERO, capsule.core_length());
    let r = capsule.radius;
    (s + r - normal.y * r).clamp(Fx::ZERO, capsule.height)
}

/// The entry fraction of the segment `a + t·d` through box `e` (slab test), clipped to
/// [0, 1]; `None` if it misses.
///
/// Per axis the segment crosses the faces at `(face − p) / dir`; the entry is the largest
/// nearer crossing (and 0), the exit the smallest farther one (and 1), and it misses if the
/// entry passes the exit. Only crossings strictly between 0 and 1 (or just at 1) can change
/// either, so each is first placed against 0 and 1 from its numerator and divisor alone
/// (see [`Crossing`]) and divided only then: the result is the one dividing every crossing
/// gives (`tests::slab_is_the_slab_test_with_every_division`).
fn slab(a: Vec3, d: Vec3, e: &Aabb) -> Option<Fx> {
    let mut enter = Fx::ZERO;
    let mut exit = Fx::ONE;
    for (p, dir, lo, hi) in [
        (a.x, d.x, e.min.x, e.max.x),
        (a.y, d.y, e.min.y, e.max.y),
        (a.z, d.z, e.min.z, e.max.z),
    ] {
        if dir == Fx::ZERO {
            if p < lo || p > hi {
                return None;
            }
            continue;
        }
        // Division and saturating subtraction are monotone (non-decreasing in the numerator
        // for a positive divisor, non-increasing for a negative one), so the nearer crossing
        // is the lower face's when moving up and the higher face's when moving down.
        let (lo, hi) = (lo.min(hi), lo.max(hi));
        let (near_face, far_face) = if dir > Fx::ZERO { (lo, hi) } else { (hi, lo) };
        let near = Crossing::new(near_face - p, dir);
        let far = Crossing::new(far_face - p, dir);
        // enter = max(enter, near), with enter ≥ 0: unchanged by a crossing at or before 0;
        // past exit (≤ 1) if the crossing is beyond 1.
        if !near.at_most_zero() {
            if near.beyond_one() {
                return None;
            }
            enter = enter.max(near.fraction());
        }
        // exit = min(exit, far), with exit ≤ 1: unchanged by a crossing at or beyond 1;
        // before enter (≥ 0) if the crossing is before 0.
        if far.before_zero() {
            return None;
        }
        if !far.at_least_one() {
            exit = exit.min(far.fraction());
        }
        if enter > exit {
            return None;
        }
    }
    Some(enter)
}

/// One crossing of the slab test: the fraction `offset / dir` (`Fx` division: the exact
/// quotient of the raw bits, `offset·2³² / dir`, rounded toward zero and saturated), placed
/// against 0 and 1 without dividing.
///
/// With `n`, `m` the numerator and divisor signed so that `m > 0` (the quotient is the same),
/// and x = n·2³²/m the exact quotient in raw units, the rounded quotient q is
///
/// - at most 0 ⟺ x < 1 ⟺ n·2³² < m; below 0 ⟺ x ≤ −1 ⟺ n·2³² ≤ −m;
/// - at least 2³² (one) ⟺ n ≥ m; above 2³² ⟺ x ≥ 2³² + 1 ⟺ n·2³² ≥ (2³² + 1)·m.
///
/// Saturation agrees with each (it happens only for |x| ≥ 2⁶³). Every product is below 2⁹⁷
/// in magnitude: i128.
struct Crossing {
    offset: Fx,
    dir: Fx,
    /// `n·2³²` and `m` above.
    scaled: i128,
    divisor: i128,
}

impl Crossing {
    fn new(offset: Fx, dir: Fx) -> Crossing {
        let (n, m) = (i128::from(offset.to_bits()), i128::from(dir.to_bits()));
        let (n, m) = if m > 0 { (n, m) } else { (-n, -m) };
        Crossing {
            offset,
            dir,
            scaled: n << Fx::FRAC_BITS,
            divisor: m,
        }
    }

    fn at_most_zero(&self) -> bool {
        self.scaled < self.divisor
    }

    fn before_zero(&self) -> bool {
        self.scaled <= -self.divisor
    }

    fn at_least_one(&self) -> bool {
        self.scaled >= self.divisor << Fx::FRAC_BITS
    }

    fn beyond_one(&self) -> bool {
        self.scaled >= (self.divisor << Fx::FRAC_BITS) + self.divisor
    }

    fn fraction(&self) -> Fx {
        self.offset / self.dir
    }
}

/// Sweeps the capsule with its tip at `tip` by `d` against box `b`.
///
/// Returns the first touch within the displacement, or `None`. A capsule already touching
/// (within `CONTACT_SLOP`) and moving in touches at `t = 0`; one already overlapping the box and
/// moving further in reports `t = 0` with the normal of the shallowest way out (see
/// [`depenetrate_box`], which the tick runs first).
pub fn sweep_box(capsule: &Capsule, tip: Vec3, d: Vec3, b: &Aabb) -> Option<Touch> {
    let s = stretched(capsule, b);
    let r = capsule.radius;
    let a0 = capsule.base(tip);
    let grown = Aabb::new(
        s.min - Vec3::new(r + CONTACT_SLOP, r + CONTACT_SLOP, r + CONTACT_SLOP),
        s.max + Vec3::new(r + CONTACT_SLOP, r + CONTACT_SLOP, r + CONTACT_SLOP),
    );
    let mut t = slab(a0, d, &grown)?;
    for _ in 0..NEWTON_STEPS_MAX {
        let a = a0 + d * t;
        let (dist, n) = box_distance(a, &s);
        let gap = dist - r - SKIN;
        let rate = n.dot(d);
        if gap <= CONTACT_SLOP - SKIN {
            // Touching (or, from the start, overlapping): a contact only if moving in.
            if rate >= -CREEP {
                return None;
            }
            return Some(Touch {
                t,
                normal: n,
                height_on_body: contact_height(capsule, a, b, n),
            });
        }
        if rate >= Fx::ZERO {
            return None; // moving away, or past the closest approach without touching
        }
        let next = t + gap / (-rate);
        if next > Fx::ONE {
            return None;
        }
        t = next;
    }
    // Out of steps on a grazing approach: report the touch where the iteration stands, still
    // outside the box, so the capsule stops short of it.
    let a = a0 + d * t;
    let (_, n) = box_distance(a, &s);
    Some(Touch {
        t,
        normal: n,
        height_on_body: contact_height(capsule, a, b, n),
    })
}

/// How far, and along which unit normal, to move the capsule out of box `b` so that it clears
/// it by `SKIN`; `None` if it does not overlap.
pub fn depenetrate_box(capsule: &Capsule, tip: Vec3, b: &Aabb) -> Option<(Fx, Vec3)> {
    let a = capsule.base(tip);
    let s = stretched(capsule, b);
    // Most boxes a tick looks at are not overlapped: decide that from the squared distance,
    // exactly (outside the box the distance is `delta.length()`, and the overlap below is
    // positive only if it is under the radius), before paying for a square root.
    let delta = a - s.closest_point(a);
    if delta != Vec3::ZERO && !delta.length_is_below(capsule.radius) {
        return None;
    }
    let (dist, n) = box_distance(a, &s);
    let overlap = capsule.radius - dist;
    (overlap > Fx::ZERO).then_some((overlap + SKIN, n))
}

// `Plane`'s geometry against the capsule; the type itself is `shape::Plane`.
impl Plane {
    /// Signed distance (m) from the capsule with base `a` to the plane, minus nothing: ≥ 0 in
    /// front, < 0 overlapping or behind.
    fn distance(&self, capsule: &Capsule, a: Vec3) -> Fx {
        let n = self.normal;
        let reach = (capsule.core_length() * n.y).min(Fx::ZERO);
        n.dot(a) + reach - self.offset - capsule.radius
    }

    /// The capsule's point nearest the plane, for a base at `a`.
    fn support(&self, capsule: &Capsule, a: Vec3) -> Vec3 {
        let lift = if self.normal.y < Fx::ZERO {
            capsule.core_length()
        } else {
            Fx::ZERO
        };
        a + Vec3::new(Fx::ZERO, lift, Fx::ZERO) - self.normal * capsule.radius
    }

    /// Whether the plane can touch a capsule within `region` at all: false only when it has
    /// bounds and they (grown by `CONTACT_SLOP`, as every in-bounds test grows them) miss the
    /// region. Every point a sweep or depenetration accepts lies on the capsule, inside the
    /// region it occupies, so skipping the plane then changes nothing.
    pub fn may_touch(&self, region: &Aabb) -> bool {
        let slop = Vec3::new(CONTACT_SLOP, CONTACT_SLOP, CONTACT_SLOP);
        self.bounds
            .is_none_or(|b| Aabb::new(b.min - slop, b.max + slop).overlaps(region))
    }

    fn in_bounds(&self, p: Vec3) -> bool {
        let slop = Vec3::new(CONTACT_SLOP, CONTACT_SLOP, CONTACT_SLOP);
        self.bounds
            .is_none_or(|b| Aabb::new(b.min - slop, b.max + slop).contains(p))
    }
}

/// Sweeps the capsule with its tip at `tip` by `d` against a one-sided plane.
pub fn sweep_plane(capsule: &Capsule, tip: Vec3, d: Vec3, plane: &Plane) -> Option<Touch> {
    let rate = plane.normal.dot(d);
    if rate >= -CREEP {
        return None; // moving away (or along)
    }
    let a0 = capsule.base(tip);
    let s0 = plane.distance(capsule, a0);
    if s0 < -CONTACT_SLOP - capsule.radius {
        return None; // behind the surface: one-sided
    }
    let t = if s0 <= CONTACT_SLOP {
        Fx::ZERO
    } else {
        (s0 - SKIN) / (-rate)
    };
    if t > Fx::ONE {
        return None;
    }
    let a = a0 + d * t;
    let point = plane.support(capsule, a);
    // The bounds are checked where the path meets the plane as well as where it stops,
    // `SKIN` short of it: on a grazing approach the two lie `|d|·SKIN/|n·d|` apart, and a
    // capsule stopping just beside a ramp's edge would otherwise cross the plane inside it,
    // unseen (found by the contact_geometry fuzz target).
    let crossing = if s0 > Fx::ZERO {
        (s0 / (-rate)).min(Fx::ONE)
    } else {
        Fx::ZERO
    };
    let crossing_point = plane.support(capsule, a0 + d * crossing);
    if !plane.in_bounds(point) && !plane.in_bounds(crossing_point) {
        return None;
    }
    let height = (point.y - tip.y - d.y * t).clamp(Fx::ZERO, capsule.height);
    Some(Touch {
        t,
        normal: plane.normal,
        height_on_body: height,
    })
}

/// How far to move the capsule out of a plane it overlaps from the front (by less than its
/// radius), and along which normal; `None` otherwise.
pub fn depenetrate_plane(capsule: &Capsule, tip: Vec3, plane: &Plane) -> Option<(Fx, Vec3)> {
    let a = capsule.base(tip);
    let s = plane.distance(capsule, a);
    let overlapping =
        s < Fx::ZERO && s > -capsule.radius && plane.in_bounds(plane.support(capsule, a));
    overlapping.then_some((SKIN - s, plane.normal))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{SplitMix64, fx, v};

    fn capsule() -> Capsule {
        Capsule {
            radius: fx("0.25"),
            height: fx("1.6"),
        }
    }

    /// The slab test as first written: every crossing divided, then clipped.
    fn slab_reference(a: Vec3, d: Vec3, e: &Aabb) -> Option<Fx> {
        let mut enter = Fx::ZERO;
        let mut exit = Fx::ONE;
        for (p, dir, lo, hi) in [
            (a.x, d.x, e.min.x, e.max.x),
            (a.y, d.y, e.min.y, e.max.y),
            (a.z, d.z, e.min.z, e.max.z),
        ] {
            if dir == Fx::ZERO {
                if p < lo || p > hi {
                    return None;
                }
                continue;
            }
            let (t1, t2) = ((lo - p) / dir, (hi - p) / dir);
            let (near, far) = if t1 <= t2 { (t1, t2) } else { (t2, t1) };
            enter = enter.max(near);
            exit = exit.min(far);
            if enter > exit {
                return None;
            }
        }
        Some(enter)
    }

    /// The randomized comparisons' stream (SplitMix64) and the values drawn from it.
    struct Rng(SplitMix64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0.next()
        }

        /// An edge value, any bits, or a value of tick-like size (2⁻⁸…2⁸ m).
        fn scalar(&mut self) -> Fx {
            const EDGES: [Fx; 9] = [
                Fx::ZERO,
                Fx::DELTA,
                Fx::from_bits(-1),
                Fx::ONE,
                Fx::from_int(-1),
                Fx::MAX,
                Fx::MIN,
                Fx::HALF,
                Fx::from_int(3),
            ];
            match self.next() % 4 {
                0 => EDGES[(self.next() % EDGES.len() as u64) as usize],
                1 => Fx::from_bits((self.next() as i64) >> (self.next() % 64)),
                _ => Fx::from_bits((self.next() as i64) >> (24 + self.next() % 16)),
            }
        }

        /// A face for a segment from `p` along `d`: at random, at `p`, or where the segment
        /// crosses it at exactly 0 or 1 or a unit away.
        fn face(&mut self, p: Fx, d: Fx) -> Fx {
            match self.next() % 5 {
                0 => {
                    let at = Fx::from_bits((self.next() % 3) as i64 * (1 << 32));
                    p + d * at + Fx::from_bits((self.next() % 3) as i64 - 1)
                }
                1 => p,
                _ => p + self.scalar(),
            }
        }
    }

    #[test]
    fn slab_is_the_slab_test_with_every_division() {
        let seed = 0x736c_6162u64;
        let mut rng = Rng(SplitMix64(seed));
        let mut inside = 0;
        for case in 0..200_000 {
            let p = Vec3::new(rng.scalar(), rng.scalar(), rng.scalar());
            let d = Vec3::new(rng.scalar(), rng.scalar(), rng.scalar());
            let mut corner =
                || Vec3::new(rng.face(p.x, d.x), rng.face(p.y, d.y), rng.face(p.z, d.z));
            let (lo, hi) = (corner(), corner());
            let ordered = Aabb::new(
                Vec3::new(lo.x.min(hi.x), lo.y.min(hi.y), lo.z.min(hi.z)),
                Vec3::new(lo.x.max(hi.x), lo.y.max(hi.y), lo.z.max(hi.z)),
            );
            // Boxes with min > max on some axis too: `sweep_box` accepts any box.
            for b in [ordered, Aabb::new(lo, hi)] {
                let expected = slab_reference(p, d, &b);
                inside += usize::from(expected.is_some_and(|t| t > Fx::ZERO && t < Fx::ONE));
                assert_eq!(
                    slab(p, d, &b),
                    expected,
                    "case {case} (seed {seed:#x}): {p:?} {d:?} {b:?}"
                );
            }
        }
        assert!(inside > 1000, "too few entries strictly inside: {inside}");
    }

    /// A 5 cm slab, 4 m wide, its top at y = 0.
    fn slab_box() -> Aabb {
        Aabb::new(v("-2", "-0.05", "-2"), v("2", "0", "2"))
    }

    #[test]
    fn dropping_onto_a_slab_stops_a_skin_above_it() {
        let hit = sweep_box(&capsule(), v("0", "1", "0"), v("0", "-2", "0"), &slab_box()).unwrap();
        assert_eq!(hit.normal, Vec3::UP);
        assert_eq!(hit.height_on_body, Fx::ZERO);
        let tip_y = fx("1") - fx("2") * hit.t;
        assert!(
            tip_y >= SKIN - fx("0.000001") && tip_y <= CONTACT_SLOP,
            "{tip_y}"
        );
    }

    #[test]
    fn fast_drop_through_a_thin_slab_is_caught() {
        // 100 m in one step, far more than the slab's 5 cm.
        let hit = sweep_box(
            &capsule(),
            v("0", "50", "0"),
            v("0", "-100", "0"),
            &slab_box(),
        )
        .unwrap();
        assert_eq!(hit.normal, Vec3::UP);
        assert!((fx("50") - fx("100") * hit.t) >= Fx::ZERO);
    }

    #[test]
    fn edge_contact_has_the_tilted_capsule_to_edge_normal() {
        // Falling past the slab's east edge, the bottom sphere's centre 0.25·cos 45° east of it.
        let offset = fx("0.1767767"); // r / √2
        let tip = v("2", "1", "0") + Vec3::new(offset, Fx::ZERO, Fx::ZERO);
        let hit = sweep_box(&capsule(), tip, v("0", "-2", "0"), &slab_box()).unwrap();
        let diag = fx("0.70710678");
        assert!(
            (hit.normal.x - diag).abs() < fx("0.001"),
            "{:?}",
            hit.normal
        );
        assert!(
            (hit.normal.y - diag).abs() < fx("0.001"),
            "{:?}",
            hit.normal
        );
        // Contact on the bottom sphere, r·(1 − cos 45°) ≈ 0.073 m above the tip.
        assert!(
            (hit.height_on_body - fx("0.0732")).abs() < fx("0.001"),
            "{}",
            hit.height_on_body
        );
    }

    #[test]
    fn side_hit_on_a_tall_wall_is_a_body_contact() {
        let wall = Aabb::new(v("1", "-1", "-2"), v("2", "5", "2"));
        let hit = sweep_box(&capsule(), v("0", "0", "0"), v("2", "0", "0"), &wall).unwrap();
        assert_eq!(hit.normal, Vec3::new(-Fx::ONE, Fx::ZERO, Fx::ZERO));
        assert!(hit.height_on_body > fx("0.4"), "{}", hit.height_on_body);
    }

    #[test]
    fn moving_away_or_missing_is_no_hit() {
        let c = capsule();
        assert!(sweep_box(&c, v("0", "0.001", "0"), v("0", "2", "0"), &slab_box()).is_none());
        assert!(sweep_box(&c, v("5", "1", "0"), v("0", "-2", "0"), &slab_box()).is_none());
        assert!(sweep_box(&c, v("0", "3", "0"), v("0", "-1", "0"), &slab_box()).is_none());
    }

    #[test]
    fn resting_contact_is_reported_at_t_zero_only_when_moving_in() {
        let c = capsule();
        let resting = Vec3::new(Fx::ZERO, SKIN, Fx::ZERO);
        let hit = sweep_box(&c, resting, v("0", "-0.01", "0"), &slab_box()).unwrap();
        assert_eq!(hit.t, Fx::ZERO);
        assert!(
            sweep_box(&c, resting, v("0.3", "0", "0"), &slab_box()).is_none(),
            "sliding along"
        );
    }

    #[test]
    fn overlap_is_pushed_out_along_the_shallowest_face() {
        let (depth, n) = depenetrate_box(&capsule(), v("0", "-0.01", "0"), &slab_box()).unwrap();
        assert_eq!(n, Vec3::UP);
        assert_eq!(depth, fx("0.01") + SKIN);
        assert!(depenetrate_box(&capsule(), v("0", "0.01", "0"), &slab_box()).is_none());
    }

    #[test]
    fn grazing_approach_from_beside_a_ramp_is_caught_where_it_crosses() {
        // Flat ramp from x = 0 on; the capsule skims down toward it from x = −2. It comes
        // within SKIN of the plane at x ≈ −0.0011, beside the bounds, but crosses the plane at
        // x = 0, inside them: that is a touch, not a pass 5 cm under the surface.
        let plane = Plane {
            normal: Vec3::UP,
            offset: Fx::ZERO,
            bounds: Some(Aabb::new(v("0", "-1", "-1"), v("4", "1", "1"))),
        };
        let hit = sweep_plane(
            &capsule(),
            v("-2", "0.1", "0"),
            v("3", "-0.15", "0"),
            &plane,
        );
        let hit = hit.expect("the path crosses the ramp within its bounds");
        assert_eq!(hit.normal, Vec3::UP);
        assert!(fx("0.1") - fx("0.15") * hit.t >= SKIN - fx("0.000001"));
    }

    #[test]
    fn ramp_is_hit_from_the_front_only_and_within_bounds() {
        let n = v("-1", "1", "0").normalize().unwrap(); // rises toward east
        let plane = Plane {
            normal: n,
            offset: Fx::ZERO,
            bounds: Some(Aabb::new(v("0", "-1", "-2"), v("4", "4", "2"))),
        };
        let c = capsule();
        let hit = sweep_plane(&c, v("2", "4", "0"), v("0", "-4", "0"), &plane).unwrap();
        assert_eq!(hit.normal, n);
        let tip_y = fx("4") - fx("4") * hit.t;
        // The sphere touches where its centre is r above the plane along n: tip at
        // x + r(√2 − 1) ≈ 2.1036.
        assert!((tip_y - fx("2.1036")).abs() < fx("0.001"), "{tip_y}");
        assert!(
            sweep_plane(&c, v("2", "1", "0"), v("0", "-3", "0"), &plane).is_none(),
            "behind"
        );
        assert!(
            sweep_plane(&c, v("8", "12", "0"), v("0", "-4", "0"), &plane).is_none(),
            "out of bounds"
        );
    }
}
