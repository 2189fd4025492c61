//! `contact_geometry`: the pogo's capsule against one box or one ramp, through the real
//! collision code (`pogo_core::sweep`), at small offsets and tick-sized displacements.
//!
//! Each input is handled as the tick handles a sweep: first pushed out of the surface if it
//! overlaps (`depenetrate_*`), then swept by the displacement `d`, then moved by `d·t` of the
//! touch (or by the whole `d` if there is none).
//!
//! Oracles:
//! - no panic; the same sweep twice gives the same bits;
//! - depenetration clears the surface (a second call finds no overlap) along a unit normal;
//! - a touch has `t` in [0, 1], a unit normal (|n|² within 2⁻²⁰ of 1), a contact height on the
//!   body in [0, height], and is reported only where the capsule is within `CONTACT_SLOP` of
//!   the surface (plus [`TOLERANCE`]);
//! - the normal points from the surface to the capsule: for a box it is the direction from
//!   the box's nearest point to the capsule's core (computed here independently, as the
//!   vector between a vertical segment and a box), for a ramp the ramp's own normal;
//! - no tunnelling, for a box: along the whole path actually travelled the capsule never
//!   overlaps the box by more than [`TOLERANCE`] (the exact segment-to-box distance,
//!   minimised over the path by ternary search, which is exact for the convex distance
//!   function), so in particular the end position is not penetrating;
//! - no tunnelling, for a ramp: a capsule in front of the ramp does not end more than
//!   [`TOLERANCE`] behind it if the point where its path crossed the plane lies within the
//!   ramp's bounds.
//!
//! Ranges: the tip starts within ±6 m of the origin or of a corner of the box or the ramp's
//! bounds (the box or ramp lies within ±4 m of the origin), the
//! displacement is within ±4 m per axis: `SPEED_MAX` (200 m/s) for one 60 Hz tick is 3.3 m. An
//! optional common offset of up to ±90 km moves the whole scene toward the level limit.

use arbitrary::Arbitrary;
use pogo_core::sweep::{
    CONTACT_SLOP, CREEP, Capsule, Plane, SKIN, Touch, depenetrate_box, depenetrate_plane,
    sweep_box, sweep_plane,
};
use pogo_core::world::Aabb;
use pogo_core::{Fx, Tuning, Vec3, capsule};

use crate::num::{Coord, near};

/// How far (m) the capsule may end up inside a surface: `CREEP` plus 2⁻²⁶ m of rounding.
///
/// A sweep that moves into a surface it already touches by less than `CREEP` (2⁻²⁴ m, over the
/// whole displacement) is deliberately not a contact (see `sweep::CREEP`: it keeps a pogo
/// riding a platform from stopping on rounding noise), and the distance is convex along the
/// path, so such a move ends at most `CREEP` inside. On top of that come the roundings of
/// `d·t` and of the contact point, a few units of 2⁻³² m each: 2⁻²⁶ m (64 units) covers them
/// with a wide margin and is still far below `SKIN` (2⁻¹⁴ m), the gap a sweep leaves.
pub const TOLERANCE: Fx = Fx::from_bits(CREEP.to_bits() + (1 << (Fx::FRAC_BITS - 26)));

const TIP_RANGE: Fx = Fx::from_int(6);
const SURFACE_RANGE: Fx = Fx::from_int(4);
const SIZE_RANGE: Fx = Fx::from_int(4);
const DISPLACEMENT_RANGE: Fx = Fx::from_int(4);
const ORIGIN_RANGE: Fx = Fx::from_int(90_000);

#[derive(Arbitrary, Clone, Debug)]
pub struct Input {
    /// `None`: the default tuning's capsule (r 0.25 m, h 1.6 m).
    pub capsule: Option<CapsuleIn>,
    pub tip: [Coord; 3],
    pub displacement: [Coord; 3],
    pub surface: Surface,
    /// What `tip` is relative to: edges and corners are where contacts go wrong.
    pub anchor: Anchor,
    /// A common offset of the whole scene.
    pub origin: Option<[Coord; 3]>,
}

/// The point the tip's offset starts from.
#[derive(Arbitrary, Clone, Copy, Debug)]
pub enum Anchor {
    /// The scene's origin.
    Origin,
    /// The box's (or the ramp's bounds') `min` corner; the origin for an unbounded ramp.
    Min,
    /// The box's (or the ramp's bounds') `max` corner; the origin for an unbounded ramp.
    Max,
}

impl Anchor {
    fn point(self, b: Option<&Aabb>, origin: Vec3) -> Vec3 {
        match (self, b) {
            (Anchor::Min, Some(b)) => b.min,
            (Anchor::Max, Some(b)) => b.max,
            _ => origin,
        }
    }
}

/// A capsule anywhere within the tuning's ranges: radius 0.05…2 m, height 2r…10 m.
#[derive(Arbitrary, Clone, Copy, Debug)]
pub struct CapsuleIn {
    pub radius: u16,
    pub height: u16,
}

#[derive(Arbitrary, Clone, Debug)]
pub enum Surface {
    /// A box from `min` (±4 m) of `size` (0…4 m per axis: thin slabs and flat boxes too).
    Box { min: [Coord; 3], size: [Coord; 3] },
    /// A ramp: the plane `n·x = offset` with `n` the normalised `normal` (up if zero), facing
    /// `n`, existing only within `bounds` (min ±4 m, size 0…4 m) if given.
    Ramp {
        normal: [Coord; 3],
        offset: Coord,
        bounds: Option<([Coord; 3], [Coord; 3])>,
    },
}

fn scene_box(min: [Coord; 3], size: [Coord; 3], origin: Vec3) -> Aabb {
    let min = origin + Coord::vec(min, SURFACE_RANGE);
    let size = Vec3::new(
        size[0].within_positive(SIZE_RANGE),
        size[1].within_positive(SIZE_RANGE),
        size[2].within_positive(SIZE_RANGE),
    );
    Aabb::new(min, min + size)
}

fn build_capsule(c: Option<CapsuleIn>) -> Capsule {
    let Some(c) = c else {
        return capsule(&Tuning::default());
    };
    let fraction = |n: u16| Fx::from_ratio(i64::from(n), 65_535);
    let radius = Fx::lit("0.05") + Fx::lit("1.95") * fraction(c.radius);
    let low = (radius + radius).max(Fx::lit("0.2"));
    let height = low + (Fx::from_int(10) - low) * fraction(c.height);
    Capsule { radius, height }
}

/// Runs the oracles on `input`; panics naming the first that fails. Every input is used.
pub fn check(input: &Input) -> bool {
    let capsule = build_capsule(input.capsule);
    let origin = input
        .origin
        .map_or(Vec3::ZERO, |o| Coord::vec(o, ORIGIN_RANGE));
    let offset = Coord::vec(input.tip, TIP_RANGE);
    let d = Coord::vec(input.displacement, DISPLACEMENT_RANGE);
    match &input.surface {
        Surface::Box { min, size } => {
            let b = scene_box(*min, *size, origin);
            let tip = input.anchor.point(Some(&b), origin) + offset;
            check_box(&capsule, tip, d, &b);
        }
        Surface::Ramp {
            normal,
            offset: plane_offset,
            bounds,
        } => {
            let n = Coord::vec(*normal, Fx::ONE).normalize_or(Vec3::UP);
            let plane = Plane {
                normal: n,
                offset: n.dot(origin) + plane_offset.within(SURFACE_RANGE),
                bounds: bounds.map(|(min, size)| scene_box(min, size, origin)),
            };
            let tip = input.anchor.point(plane.bounds.as_ref(), origin) + offset;
            check_ramp(&capsule, tip, d, &plane);
        }
    }
    true
}

#[track_caller]
fn assert_unit(n: Vec3, what: &str, context: &dyn core::fmt::Debug) {
    assert!(
        near(
            n.length_squared(),
            Fx::ONE,
            Fx::from_bits(1 << (Fx::FRAC_BITS - 20))
        ),
        "{what} {n:?} is not unit length (|n|² = {}): {context:#?}",
        n.length_squared()
    );
}

/// Everything a failure message shows.
#[derive(Debug)]
#[allow(dead_code)] // read through Debug
struct Scene<'a, S: core::fmt::Debug> {
    capsule: &'a Capsule,
    tip: Vec3,
    d: Vec3,
    surface: &'a S,
    start: Vec3,
    touch: Option<Touch>,
}

// ---------------------------------------------------------------------------------------------
// Boxes

/// The vector from the box's point nearest to the capsule's core to the core's point nearest
/// to the box, in raw 32.32 bits (exact: coordinates are far inside the range). The core is
/// the vertical segment from `tip + r` up by `height − 2r`; zero if they intersect.
fn core_to_box(capsule: &Capsule, tip: Vec3, b: &Aabb) -> [i128; 3] {
    let axis = |lo_p: Fx, hi_p: Fx, lo: Fx, hi: Fx| -> i128 {
        if hi_p < lo {
            i128::from(hi_p.to_bits()) - i128::from(lo.to_bits())
        } else if lo_p > hi {
            i128::from(lo_p.to_bits()) - i128::from(hi.to_bits())
        } else {
            0
        }
    };
    let a = capsule.base(tip);
    let top = a.y + capsule.core_length();
    [
        axis(a.x, a.x, b.min.x, b.max.x),
        axis(a.y, top, b.min.y, b.max.y),
        axis(a.z, a.z, b.min.z, b.max.z),
    ]
}

/// Squared distance between the core and the box, in units of 2⁻⁶⁴ m².
fn distance_squared(v: [i128; 3]) -> u128 {
    v.iter().map(|c| c.unsigned_abs() * c.unsigned_abs()).sum()
}

fn squared_bits(x: Fx) -> u128 {
    let b = x.to_bits().unsigned_abs() as u128;
    b * b
}

/// The smallest squared core-to-box distance along `start + d·τ`, τ ∈ [0, t_end]: ternary
/// search on the raw bits of τ (the distance is convex in τ, its square too), then the best
/// of the last few candidates and both ends.
fn closest_approach(capsule: &Capsule, start: Vec3, d: Vec3, t_end: Fx, b: &Aabb) -> (u128, Fx) {
    let at = |bits: i64| {
        let tau = Fx::from_bits(bits);
        (
            distance_squared(core_to_box(capsule, start + d * tau, b)),
            tau,
        )
    };
    let (mut lo, mut hi) = (0i64, t_end.to_bits());
    for _ in 0..200 {
        if hi - lo <= 8 {
            break;
        }
        let third = (hi - lo) / 3;
        let (m1, m2) = (lo + third, hi - third);
        if at(m1).0 < at(m2).0 {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    (lo..=hi)
        .chain([0, t_end.to_bits()])
        .map(at)
        .min_by_key(|&(dist, _)| dist)
        .unwrap_or((u128::MAX, Fx::ZERO))
}

fn check_box(capsule: &Capsule, tip: Vec3, d: Vec3, b: &Aabb) {
    let r = capsule.radius;
    let start = match depenetrate_box(capsule, tip, b) {
        Some((depth, n)) => {
            assert_unit(n, "depenetration normal", &(capsule, tip, b));
            assert!(depth > Fx::ZERO, "depenetration by {depth}");
            let out = tip + n * depth;
            assert!(
                depenetrate_box(capsule, out, b).is_none(),
                "pushed out of {b:?} by {depth} along {n:?}, the capsule at {out:?} still overlaps it"
            );
            out
        }
        None => tip,
    };
    let touch = sweep_box(capsule, start, d, b);
    let scene = Scene {
        capsule,
        tip,
        d,
        surface: b,
        start,
        touch,
    };
    assert_eq!(
        touch,
        sweep_box(capsule, start, d, b),
        "two sweeps, two answers: {scene:#?}"
    );
    let t_end = touch.map_or(Fx::ONE, |t| t.t);
    let end = start + d * t_end;
    if let Some(touch) = touch {
        assert!(
            touch.t >= Fx::ZERO && touch.t <= Fx::ONE,
            "t outside [0, 1]: {scene:#?}"
        );
        assert_unit(touch.normal, "contact normal", &scene);
        assert!(
            touch.height_on_body >= Fx::ZERO && touch.height_on_body <= capsule.height,
            "contact height outside the body: {scene:#?}"
        );
        let sep = core_to_box(capsule, end, b);
        let reach = r + CONTACT_SLOP + TOLERANCE;
        assert!(
            distance_squared(sep) <= squared_bits(reach),
            "a touch reported {} m from the box, farther than CONTACT_SLOP: {scene:#?}",
            Vec3::new(
                Fx::from_bits(sep[0] as i64),
                Fx::from_bits(sep[1] as i64),
                Fx::from_bits(sep[2] as i64)
            )
            .length()
                - r
        );
        // Well outside the box the direction is well defined: compare it with the normal.
        if distance_squared(sep) >= squared_bits(r / Fx::from_int(2)) {
            let to_core = Vec3::new(
                Fx::from_bits(sep[0] as i64),
                Fx::from_bits(sep[1] as i64),
                Fx::from_bits(sep[2] as i64),
            )
            .normalize_or(Vec3::ZERO);
            assert!(
                touch.normal.dot(to_core) >= Fx::ONE - Fx::lit("0.000001"),
                "the normal {:?} does not point from the box to the capsule ({to_core:?}): {scene:#?}",
                touch.normal
            );
        }
    }
    let floor = r - TOLERANCE;
    let (closest, tau) = closest_approach(capsule, start, d, t_end, b);
    assert!(
        closest >= squared_bits(floor),
        "tunnelling: at τ = {tau} of the path travelled (to {t_end}) the capsule overlaps the box by more than {TOLERANCE} m: {scene:#?}"
    );
    if let Some((depth, _)) = depenetrate_box(capsule, end, b) {
        assert!(
            depth - SKIN <= TOLERANCE,
            "the end position {end:?} is {} m inside the box: {scene:#?}",
            depth - SKIN
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Ramps

/// Signed distance (m) from the capsule to the plane: ≥ 0 in front, < 0 overlapping/behind.
fn plane_distance(capsule: &Capsule, tip: Vec3, plane: &Plane) -> Fx {
    let n = plane.normal;
    let a = capsule.base(tip);
    n.dot(a) + (capsule.core_length() * n.y).min(Fx::ZERO) - plane.offset - capsule.radius
}

/// The capsule's point nearest the plane (the sweep's contact point).
fn support(capsule: &Capsule, tip: Vec3, plane: &Plane) -> Vec3 {
    let lift = if plane.normal.y < Fx::ZERO {
        capsule.core_length()
    } else {
        Fx::ZERO
    };
    capsule.base(tip) + Vec3::new(Fx::ZERO, lift, Fx::ZERO) - plane.normal * capsule.radius
}

fn check_ramp(capsule: &Capsule, tip: Vec3, d: Vec3, plane: &Plane) {
    let start = match depenetrate_plane(capsule, tip, plane) {
        Some((depth, n)) => {
            assert_eq!(n, plane.normal, "depenetration not along the ramp's normal");
            let out = tip + n * depth;
            assert!(
                depenetrate_plane(capsule, out, plane).is_none(),
                "pushed out of {plane:?} by {depth}, the capsule at {out:?} still overlaps it"
            );
            out
        }
        None => tip,
    };
    let touch = sweep_plane(capsule, start, d, plane);
    let scene = Scene {
        capsule,
        tip,
        d,
        surface: plane,
        start,
        touch,
    };
    assert_eq!(
        touch,
        sweep_plane(capsule, start, d, plane),
        "two sweeps, two answers: {scene:#?}"
    );
    let t_end = touch.map_or(Fx::ONE, |t| t.t);
    let end = start + d * t_end;
    let s_start = plane_distance(capsule, start, plane);
    let s_end = plane_distance(capsule, end, plane);
    if let Some(touch) = touch {
        assert!(
            touch.t >= Fx::ZERO && touch.t <= Fx::ONE,
            "t outside [0, 1]: {scene:#?}"
        );
        assert_eq!(
            touch.normal, plane.normal,
            "a ramp contact not along the ramp's normal: {scene:#?}"
        );
        assert!(
            touch.height_on_body >= Fx::ZERO && touch.height_on_body <= capsule.height,
            "contact height outside the body: {scene:#?}"
        );
        assert!(
            s_end <= CONTACT_SLOP + TOLERANCE,
            "a touch reported {s_end} m in front of the ramp, farther than CONTACT_SLOP: {scene:#?}"
        );
    }
    if s_start >= Fx::ZERO && s_end < -TOLERANCE {
        // The path crossed the plane: where?
        let crossing = t_end * (s_start / (s_start - s_end));
        let point = support(capsule, start + d * crossing, plane);
        let in_bounds = plane.bounds.is_none_or(|b| b.contains(point));
        assert!(
            !in_bounds,
            "tunnelling: the capsule went {} m behind the ramp, crossing it at {point:?} within its bounds: {scene:#?}",
            -s_end
        );
    }
}
