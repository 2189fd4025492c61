//! `Vec3`: three `Fx` components in world axes — x east, y up, z south, metres (or m/s, m/s²).
//!
//! Componentwise operators saturate like `Fx`'s. Products that can exceed the scalar range
//! (dot products, squared lengths, lengths) are computed on the raw bits in 128-bit integers,
//! so they are exact for every pair of vectors `Fx` can hold and only saturate the final result.

use core::ops::{Add, AddAssign, Div, Mul, Neg, Sub, SubAssign};

use crate::fx::Fx;
use crate::isqrt::isqrt_u128;
use crate::wide::{div_shifted, mul_i64_wide};

/// A vector of three [`Fx`] in world axes: a position (m), a velocity (m/s), an acceleration
/// (m/s²) or a direction (unit length). Right-handed, x east, y up, z south.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct Vec3 {
    /// East (+) / west (−).
    pub x: Fx,
    /// Up (+) / down (−); gravity points to −y.
    pub y: Fx,
    /// South (+) / north (−).
    pub z: Fx,
}

impl Vec3 {
    /// The zero vector (the origin, or no motion).
    pub const ZERO: Vec3 = Vec3::new(Fx::ZERO, Fx::ZERO, Fx::ZERO);
    /// World up, +y.
    pub const UP: Vec3 = Vec3::new(Fx::ZERO, Fx::ONE, Fx::ZERO);

    /// The vector `(x, y, z)`.
    pub const fn new(x: Fx, y: Fx, z: Fx) -> Vec3 {
        Vec3 { x, y, z }
    }

    /// The horizontal part (x, 0, z).
    pub const fn horizontal(self) -> Vec3 {
        Vec3::new(self.x, Fx::ZERO, self.z)
    }

    /// Dot product, exact for all inputs, rounded toward −∞ to the scalar's resolution and
    /// saturated into its range.
    pub fn dot(self, rhs: Vec3) -> Fx {
        // Each raw product is at most 2¹²⁶ in magnitude; the sum of three can leave i128 only
        // when the result is far outside Fx's range anyway, so a saturating sum is exact
        // wherever the result is representable.
        let p = |a: Fx, b: Fx| mul_i64_wide(a.to_bits(), b.to_bits());
        let sum = p(self.x, rhs.x)
            .saturating_add(p(self.y, rhs.y))
            .saturating_add(p(self.z, rhs.z));
        Fx::from_wide_bits(sum >> Fx::FRAC_BITS)
    }

    /// |v|², saturating.
    pub fn length_squared(self) -> Fx {
        self.dot(self)
    }

    /// |v| rounded down to the scalar's resolution (so `|v| ≤ true length`), saturating.
    pub fn length(self) -> Fx {
        let len_bits = isqrt_u128(self.sum_of_squared_bits());
        Fx::from_wide_bits(len_bits.min(i64::MAX as u128) as i128)
    }

    /// |v| rounded up to the scalar's resolution (so `|v| ≥ true length`), saturating. Used
    /// where a vector is scaled down to a cap and must end at or below it.
    pub fn length_ceil(self) -> Fx {
        Fx::from_wide_bits(self.length_ceil_bits().min(i64::MAX as u128) as i128)
    }

    /// |v| rounded up, in raw bits, not saturated: up to √3·2⁶³ < 2⁶⁴ for the longest vectors.
    fn length_ceil_bits(self) -> u128 {
        let sum = self.sum_of_squared_bits();
        let floor = isqrt_u128(sum);
        if floor * floor == sum {
            floor
        } else {
            floor + 1
        }
    }

    /// Σ bits², which is |v|²·2⁶⁴. Each square is below 2¹²⁶, so three fit in a u128.
    fn sum_of_squared_bits(self) -> u128 {
        // The square of the signed bits is the square of their magnitude (at most 2¹²⁶, for
        // i64::MIN): one signed 64 × 64-bit product.
        let sq = |c: Fx| mul_i64_wide(c.to_bits(), c.to_bits()) as u128;
        // At most 3·2¹²⁶ < 2¹²⁸: the wrapping sum is the sum, with no overflow test (on wasm32
        // a 128-bit test is several instructions).
        sq(self.x).wrapping_add(sq(self.y)).wrapping_add(sq(self.z))
    }

    /// The unit vector along `self`, or `None` for the zero vector.
    ///
    /// Accurate to about one unit in the last place for every non-zero input, however small:
    /// the components are first shifted up (the direction does not change with scale) so the
    /// integer square root works with ~62 significant bits.
    #[inline]
    pub fn normalize(self) -> Option<Vec3> {
        self.normalize_with_length().map(|(unit, _)| unit)
    }

    /// [`normalize`](Vec3::normalize) and [`length`](Vec3::length) together, for one integer
    /// square root instead of two: `Some((self.normalize()?, self.length()))`, bit for bit.
    ///
    /// The length comes from the scaled square root: with `S` the sum of the squared raw
    /// components and `k` the normalising shift, ⌊√(S·4ᵏ)⌋ / 2ᵏ rounded down is ⌊√S⌋ (for any
    /// real x and whole m > 0, ⌊⌊x⌋/m⌋ = ⌊x/m⌋).
    #[inline]
    pub fn normalize_with_length(self) -> Option<(Vec3, Fx)> {
        let bits = [self.x.to_bits(), self.y.to_bits(), self.z.to_bits()];
        let magnitudes = bits.map(i64::unsigned_abs);
        let largest = magnitudes[0].max(magnitudes[1]).max(magnitudes[2]);
        if largest == 0 {
            return None;
        }
        // Shift so the largest magnitude has bit 61 or 62 as its top bit (bit 63 only for
        // i64::MIN, which cannot shift): every shifted magnitude fits a u64, its square a u128,
        // and the sum of three squares (< 3·2¹²⁶) too.
        let shift = largest.leading_zeros().saturating_sub(2);
        let scaled = magnitudes.map(|m| m << shift);
        // Each scaled magnitude is at most 2⁶³, whose bits as an i64 (i64::MIN) square to
        // 2¹²⁶ all the same: the signed 64 × 64-bit square is the magnitude's.
        let sum = scaled
            .iter()
            .map(|&m| mul_i64_wide(m as i64, m as i64) as u128)
            .fold(0, u128::wrapping_add); // at most 3·2¹²⁶ < 2¹²⁸: exact
        let root = isqrt_u128(sum) as u64; // ≥ the largest scaled magnitude > 0, and < 2⁶⁴
        // Components: b·2³²/len, truncated toward zero: the magnitude's quotient with the
        // component's sign. Each scaled magnitude is at most the root (m² ≤ the sum), so the
        // quotient is at most 2³² (one) and its negation exact: no overflow test is needed.
        // m·2³² / root for the three (`div_shifted`: the root is at least 2⁶¹, the largest
        // scaled magnitude's top bit being bit 61 or above).
        let quotients = div_shifted(scaled, root);
        let unit = |b: i64, q: u64| {
            let q = q as i64;
            debug_assert!((0..=1 << Fx::FRAC_BITS).contains(&q));
            Fx::from_bits(if b < 0 { q.wrapping_neg() } else { q })
        };
        let length_bits = (root >> shift).min(i64::MAX as u64);
        Some((
            Vec3::new(
                unit(bits[0], quotients[0]),
                unit(bits[1], quotients[1]),
                unit(bits[2], quotients[2]),
            ),
            Fx::from_wide_bits(length_bits as i128),
        ))
    }

    /// Whether [`length`](Vec3::length) `< max`, exactly, without a square root: the length is
    /// ⌊√S⌋ (S the sum of the squared raw components), and ⌊√S⌋ < m ⟺ S < m² for whole m.
    pub fn length_is_below(self, max: Fx) -> bool {
        if max <= Fx::ZERO {
            return false;
        }
        let m = max.to_bits(); // > 0
        self.sum_of_squared_bits() < mul_i64_wide(m, m) as u128
    }

    /// The unit vector along `self`, or `fallback` for the zero vector.
    pub fn normalize_or(self, fallback: Vec3) -> Vec3 {
        self.normalize().unwrap_or(fallback)
    }

    /// `self` scaled down so that its length is at most `max` (`max ≥ 0`); shorter vectors are
    /// returned unchanged. The result's length never exceeds `max`, even after rounding.
    #[inline]
    pub fn clamp_length(self, max: Fx) -> Vec3 {
        // Most vectors are within the cap, which ⌈√S⌉ ≤ m ⟺ S ≤ m² (S the sum of the squared
        // raw components, m ≥ 0 whole) decides without a square root: the same test as in
        // `clamp_length_slow`. Inline, so the common case costs no call (the lean asks twice a
        // tick); the rest is out of line.
        if self.length_is_at_most(max) {
            return self;
        }
        self.clamp_length_slow(max)
    }

    /// Whether [`clamp_length`](Vec3::clamp_length) returns `self` by its square-free test:
    /// `S ≤ m²`, S the sum of the squared raw components and m = `max`'s bits (`max ≥ 0`).
    #[inline]
    pub(crate) fn length_is_at_most(self, max: Fx) -> bool {
        let m = max.to_bits();
        max >= Fx::ZERO && self.sum_of_squared_bits() <= mul_i64_wide(m, m) as u128
    }

    /// [`clamp_length`](Vec3::clamp_length) past its square-free test.
    #[inline(never)]
    pub(crate) fn clamp_length_slow(self, max: Fx) -> Vec3 {
        // The length unsaturated: a vector longer than `Fx::MAX` (components near the range's
        // ends) must be scaled by its true length, or it ends up to √3 times too long.
        let len = self.length_ceil_bits() as i128;
        if len <= max.to_bits() as i128 {
            return self;
        }
        // Components c·max/len with len rounded up and each product truncated toward zero:
        // every component shrinks at least as much as exact arithmetic would shrink it.
        let scale = |c: Fx| {
            let num = mul_i64_wide(c.to_bits(), max.to_bits());
            Fx::from_wide_bits(num / len)
        };
        Vec3::new(scale(self.x), scale(self.y), scale(self.z))
    }

    /// The cross product `self × rhs` (right-handed: x × y = z), each component saturating.
    pub fn cross(self, rhs: Vec3) -> Vec3 {
        Vec3::new(
            self.y * rhs.z - self.z * rhs.y,
            self.z * rhs.x - self.x * rhs.z,
            self.x * rhs.y - self.y * rhs.x,
        )
    }

    /// `self + (target − self)·t`.
    pub fn lerp(self, target: Vec3, t: Fx) -> Vec3 {
        self + (target - self) * t
    }

    /// `self` rotated back onto the cone of half-angle θ around `axis` if it lies outside it.
    ///
    /// `self` and `axis` are unit vectors, `cos`/`sin` are cos θ and sin θ (0 ≤ θ ≤ 90°).
    /// No trigonometry per call: with `a` the axis and `t̂` the unit tangential part of `self`
    /// (re-orthogonalised against `a` once more, so rounding in the first projection does not
    /// tilt it), the result is `a·cos θ + t̂·sin θ`, which is unit length and exactly θ from
    /// `a` up to rounding. If `self` points straight against the axis its tangential part
    /// vanishes (or is only rounding noise); then a fixed tangent perpendicular to the axis is
    /// used, so the result is still deterministic.
    pub fn clamp_to_cone(self, axis: Vec3, cos: Fx, sin: Fx) -> Vec3 {
        if self.dot(axis) >= cos {
            return self;
        }
        let tangent = self
            .reject_from(axis)
            .normalize()
            .unwrap_or_else(|| any_perpendicular(axis));
        // Re-orthogonalise. A true tangent keeps almost all its length here (|t|² ≥ ½ is
        // generous). If `self` was (nearly) opposite the axis, its rejection was rounding
        // noise, normalised into a "tangent" that may lie along the axis itself; then there
        // is no meaningful side to keep, and the fixed perpendicular is used.
        let orthogonal = tangent.reject_from(axis);
        let tangent = if orthogonal.length_squared() >= Fx::HALF {
            orthogonal.normalize_or(tangent)
        } else {
            any_perpendicular(axis)
        };
        axis * cos + tangent * sin
    }

    /// The part of `self` perpendicular to the unit vector `axis`.
    pub fn reject_from(self, axis: Vec3) -> Vec3 {
        self - axis * self.dot(axis)
    }

    // Arithmetic in range (see `Fx::add_in_range`): the operators without their saturation
    // tests, for operands the caller proves keep every component in range.

    /// `self + rhs`, every component's sum in range.
    #[inline]
    pub(crate) fn add_in_range(self, rhs: Vec3) -> Vec3 {
        Vec3::new(
            self.x.add_in_range(rhs.x),
            self.y.add_in_range(rhs.y),
            self.z.add_in_range(rhs.z),
        )
    }

    /// `self − rhs`, every component's difference in range.
    #[inline]
    pub(crate) fn sub_in_range(self, rhs: Vec3) -> Vec3 {
        Vec3::new(
            self.x.sub_in_range(rhs.x),
            self.y.sub_in_range(rhs.y),
            self.z.sub_in_range(rhs.z),
        )
    }

    /// `self · s`, every component's product in range.
    #[inline]
    pub(crate) fn scale_in_range(self, s: Fx) -> Vec3 {
        Vec3::new(
            self.x.mul_in_range(s),
            self.y.mul_in_range(s),
            self.z.mul_in_range(s),
        )
    }

    /// [`dot`](Vec3::dot) for vectors whose components are below 2⁶² raw units (2³⁰ m)
    /// and whose dot product is in range: the three exact 128-bit products (each below
    /// 2¹²⁴) then sum without the saturation [`dot`](Vec3::dot) needs at the extremes.
    #[inline]
    pub(crate) fn dot_in_range(self, rhs: Vec3) -> Fx {
        let p = |a: Fx, b: Fx| {
            debug_assert!(a.to_bits().unsigned_abs() < 1 << 62, "{a} beyond 2^30");
            debug_assert!(b.to_bits().unsigned_abs() < 1 << 62, "{b} beyond 2^30");
            mul_i64_wide(a.to_bits(), b.to_bits())
        };
        // Each product below 2¹²⁴ in magnitude, so the wrapping sum is the sum.
        let sum = p(self.x, rhs.x)
            .wrapping_add(p(self.y, rhs.y))
            .wrapping_add(p(self.z, rhs.z));
        let bits = sum >> Fx::FRAC_BITS;
        debug_assert!(i64::try_from(bits).is_ok(), "{self:?}·{rhs:?} out of range");
        Fx::from_bits(bits as i64)
    }
}

/// The arithmetic a rule is carried out in: [`Saturating`] (the operators: any operands, as
/// the public functions take them) or [`InRange`] (the in-range operations, for operands the
/// caller has bounded: the tick, see `docs/tick.md`, "Bounds"). A rule written once over
/// `A: Arith` gives the same bits in both wherever no operation would saturate, which is what
/// each in-range call proves.
pub(crate) trait Arith {
    fn add(a: Fx, b: Fx) -> Fx;
    fn sub(a: Fx, b: Fx) -> Fx;
    fn mul(a: Fx, b: Fx) -> Fx;
    fn dot(a: Vec3, b: Vec3) -> Fx;

    fn scale(v: Vec3, s: Fx) -> Vec3 {
        Vec3::new(Self::mul(v.x, s), Self::mul(v.y, s), Self::mul(v.z, s))
    }
}

/// The saturating operators.
#[derive(Debug)]
pub(crate) enum Saturating {}

/// The in-range operations (debug-asserted).
#[derive(Debug)]
pub(crate) enum InRange {}

impl Arith for Saturating {
    fn add(a: Fx, b: Fx) -> Fx {
        a + b
    }
    fn sub(a: Fx, b: Fx) -> Fx {
        a - b
    }
    fn mul(a: Fx, b: Fx) -> Fx {
        a * b
    }
    fn dot(a: Vec3, b: Vec3) -> Fx {
        a.dot(b)
    }
}

impl Arith for InRange {
    fn add(a: Fx, b: Fx) -> Fx {
        a.add_in_range(b)
    }
    fn sub(a: Fx, b: Fx) -> Fx {
        a.sub_in_range(b)
    }
    fn mul(a: Fx, b: Fx) -> Fx {
        a.mul_in_range(b)
    }
    fn dot(a: Vec3, b: Vec3) -> Fx {
        a.dot_in_range(b)
    }
    /// The default's products, as `Vec3::scale_in_range` writes them: the form the tick's
    /// displacement had before it came from `motion`, which keeps the tick's instructions
    /// (callgrind: 6 more per `course` tick with the default).
    fn scale(v: Vec3, s: Fx) -> Vec3 {
        v.scale_in_range(s)
    }
}

/// A unit vector perpendicular to the unit vector `axis`: its cross product with the world
/// axis it is least aligned with, normalised.
fn any_perpendicular(axis: Vec3) -> Vec3 {
    let helper = if axis.x.abs() <= axis.y.abs() && axis.x.abs() <= axis.z.abs() {
        Vec3::new(Fx::ONE, Fx::ZERO, Fx::ZERO)
    } else if axis.y.abs() <= axis.z.abs() {
        Vec3::UP
    } else {
        Vec3::new(Fx::ZERO, Fx::ZERO, Fx::ONE)
    };
    axis.cross(helper)
        .normalize_or(Vec3::new(Fx::ONE, Fx::ZERO, Fx::ZERO))
}

impl Add for Vec3 {
    type Output = Vec3;
    fn add(self, rhs: Vec3) -> Vec3 {
        Vec3::new(self.x + rhs.x, self.y + rhs.y, self.z + rhs.z)
    }
}

impl Sub for Vec3 {
    type Output = Vec3;
    fn sub(self, rhs: Vec3) -> Vec3 {
        Vec3::new(self.x - rhs.x, self.y - rhs.y, self.z - rhs.z)
    }
}

impl Mul<Fx> for Vec3 {
    type Output = Vec3;
    fn mul(self, s: Fx) -> Vec3 {
        Vec3::new(self.x * s, self.y * s, self.z * s)
    }
}

impl Div<Fx> for Vec3 {
    type Output = Vec3;
    fn div(self, s: Fx) -> Vec3 {
        Vec3::new(self.x / s, self.y / s, self.z / s)
    }
}

impl Neg for Vec3 {
    type Output = Vec3;
    fn neg(self) -> Vec3 {
        Vec3::new(-self.x, -self.y, -self.z)
    }
}

impl AddAssign for Vec3 {
    fn add_assign(&mut self, rhs: Vec3) {
        *self = *self + rhs;
    }
}

impl SubAssign for Vec3 {
    fn sub_assign(&mut self, rhs: Vec3) {
        *self = *self - rhs;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{SplitMix64, v};
    use alloc::vec::Vec;

    /// |error| of a length against 1, in units of 2⁻³².
    fn unit_error_ulps(u: Vec3) -> i64 {
        (u.length_squared() - Fx::ONE).to_bits().abs()
    }

    #[test]
    fn dot_and_length_do_not_overflow_at_the_extremes() {
        let big = Vec3::new(Fx::MAX, Fx::MAX, Fx::MAX);
        assert_eq!(big.dot(big), Fx::MAX);
        assert_eq!(big.dot(-big), Fx::MIN);
        assert_eq!(big.length(), Fx::MAX);
        // 100 km components: the square (3·10¹⁰) is out of range, the length is not.
        let far = v("100000", "100000", "100000");
        assert_eq!(far.length_squared(), Fx::MAX);
        assert_eq!(far.length().round_to_int(), 173_205); // 10⁵·√3
        assert_eq!(v("3", "4", "12").length(), Fx::from_int(13));
        assert_eq!(v("3", "-4", "0").dot(v("2", "1", "7")), Fx::from_int(2));
    }

    #[test]
    fn normalize_is_unit_for_tiny_and_huge_vectors() {
        for w in [
            Vec3::new(Fx::DELTA, Fx::ZERO, Fx::ZERO),
            Vec3::new(Fx::DELTA, Fx::DELTA, -Fx::DELTA),
            v("0.000001", "-0.000003", "0.0000002"),
            v("3", "4", "0"),
            Vec3::new(Fx::MAX, Fx::MIN, Fx::MAX),
            v("-123456.789", "0.5", "77"),
        ] {
            let u = w.normalize().unwrap();
            assert!(unit_error_ulps(u) <= 4, "{w:?} -> {u:?}");
            // Same direction: the cross product is (nearly) zero.
            assert!(u.dot(w.normalize().unwrap()) > Fx::lit("0.9999999"));
        }
        // Components truncate toward zero: 0.6·2³² = 2576980377.6 → …377.
        let u = v("3", "4", "0").normalize().unwrap();
        assert_eq!(
            [u.x.to_bits(), u.y.to_bits(), u.z.to_bits()],
            [2_576_980_377, 3_435_973_836, 0]
        );
        assert_eq!(Vec3::ZERO.normalize(), None);
    }

    /// Vectors from tiny to extreme, for the bit-for-bit checks of the fast paths.
    fn assorted() -> Vec<Vec3> {
        let mut out = alloc::vec![
            Vec3::new(Fx::DELTA, Fx::ZERO, Fx::ZERO),
            Vec3::new(Fx::DELTA, Fx::DELTA, -Fx::DELTA),
            Vec3::new(Fx::MAX, Fx::MIN, Fx::MAX),
            Vec3::new(Fx::MIN, Fx::MIN, Fx::MIN),
            Vec3::new(Fx::MAX, Fx::ZERO, Fx::ZERO),
            v("3", "4", "12"),
            v("-123456.789", "0.5", "77"),
            v("100000", "100000", "100000"),
        ];
        // A SplitMix64 stream over every magnitude.
        let mut rng = SplitMix64(0x7665_6333);
        let mut next = || rng.next();
        for _ in 0..3000 {
            let mut c = || {
                let r = next();
                Fx::from_bits((r as i64) >> (r % 64))
            };
            out.push(Vec3::new(c(), c(), c()));
        }
        out
    }

    #[test]
    fn in_range_operations_are_the_operators_in_range() {
        let vectors: Vec<Vec3> = assorted()
            .into_iter()
            .map(|w| Vec3::new(w.x.half().half(), w.y.half().half(), w.z.half().half()))
            .collect();
        for (k, &a) in vectors.iter().enumerate() {
            for &b in vectors.iter().skip(k % 11).step_by(11) {
                let fits = |x: i128| i64::try_from(x).is_ok();
                let comps = |w: Vec3| {
                    [
                        w.x.to_bits() as i128,
                        w.y.to_bits() as i128,
                        w.z.to_bits() as i128,
                    ]
                };
                let (ca, cb) = (comps(a), comps(b));
                if (0..3).all(|i| fits(ca[i] + cb[i])) {
                    assert_eq!(a.add_in_range(b), a + b, "{a:?} + {b:?}");
                }
                if (0..3).all(|i| fits(ca[i] - cb[i])) {
                    assert_eq!(a.sub_in_range(b), a - b, "{a:?} - {b:?}");
                }
                if (0..3).all(|i| fits((ca[i] * cb[0]) >> 32)) {
                    assert_eq!(a.scale_in_range(b.x), a * b.x, "{a:?} * {}", b.x);
                }
                let dot = (0..3).map(|i| ca[i] * cb[i]).sum::<i128>() >> 32;
                if fits(dot) {
                    assert_eq!(a.dot_in_range(b), a.dot(b), "{a:?} . {b:?}");
                }
            }
        }
    }

    #[test]
    fn normalize_with_length_is_normalize_and_length() {
        for w in assorted() {
            let expected = w.normalize().map(|u| (u, w.length()));
            assert_eq!(w.normalize_with_length(), expected, "{w:?}");
        }
        assert_eq!(Vec3::ZERO.normalize_with_length(), None);
    }

    #[test]
    fn length_is_below_agrees_with_length() {
        for w in assorted() {
            let len = w.length();
            for max in [
                len,
                len + Fx::DELTA,
                len - Fx::DELTA,
                Fx::ZERO,
                -Fx::ONE,
                Fx::MAX,
                Fx::lit("0.25"),
            ] {
                assert_eq!(w.length_is_below(max), len < max, "{w:?} {max}");
            }
        }
    }

    /// `clamp_length` without its square-root-free shortcut.
    fn clamp_length_reference(w: Vec3, max: Fx) -> Vec3 {
        let len = w.length_ceil_bits() as i128;
        if len <= max.to_bits() as i128 {
            return w;
        }
        let scale = |c: Fx| {
            let num = c.to_bits() as i128 * max.to_bits() as i128;
            Fx::from_wide_bits(num / len)
        };
        Vec3::new(scale(w.x), scale(w.y), scale(w.z))
    }

    #[test]
    fn clamp_length_shortcut_changes_nothing() {
        for w in assorted() {
            let len = w.length_ceil();
            for max in [
                len,
                len + Fx::DELTA,
                len - Fx::DELTA,
                Fx::ZERO,
                -Fx::ONE,
                Fx::MAX,
                Fx::ONE,
                Fx::lit("0.4226183"),
            ] {
                assert_eq!(
                    w.clamp_length(max),
                    clamp_length_reference(w, max),
                    "{w:?} {max}"
                );
            }
        }
    }

    #[test]
    fn clamp_length_never_exceeds_the_cap() {
        let cap = Fx::from_int(26);
        for w in [
            v("30", "10", "-5"),
            v("26", "0.0000001", "0"),
            v("-1000", "999", "1"),
            // Longer than Fx::MAX, so |v| saturates: found by the contact_evaluator fuzz
            // target (fuzz/regressions/contact_evaluator/clamp_length_of_saturated_vector).
            Vec3::new(Fx::MAX, Fx::MIN, Fx::MAX),
            Vec3::new(Fx::MAX, Fx::ZERO, Fx::MAX),
        ] {
            let c = w.clamp_length(cap);
            assert!(
                c.length() <= cap && c.length_ceil() <= cap,
                "{w:?} -> {c:?}"
            );
            assert!(cap - c.length() < Fx::lit("0.000001"));
        }
        let short = v("1", "2", "3");
        assert_eq!(short.clamp_length(cap), short);
    }

    #[test]
    fn clamp_to_cone_lands_on_the_cone() {
        // θ = 60°: cos 0.5, sin √3/2.
        let (cos, sin) = (Fx::HALF, Fx::from_int(3).sqrt() / Fx::from_int(2));
        let up = Vec3::UP;
        let flat = v("1", "0", "0");
        let out = flat.clamp_to_cone(up, cos, sin);
        assert!((out.dot(up) - cos).abs() < Fx::lit("0.000001"));
        assert!(
            out.x > Fx::ZERO && out.z == Fx::ZERO,
            "keeps the side it leaned to: {out:?}"
        );
        assert!(unit_error_ulps(out) < 16);
        // Inside the cone: unchanged.
        let inside = v("0.3", "1", "0").normalize().unwrap();
        assert_eq!(inside.clamp_to_cone(up, cos, sin), inside);
        // Straight against the axis: a fixed perpendicular is chosen.
        let down = (-up).clamp_to_cone(up, cos, sin);
        assert!((down.dot(up) - cos).abs() < Fx::lit("0.000001"));
        assert_eq!(down, (-up).clamp_to_cone(up, cos, sin));
        // Against a tilted axis the rejection of an opposite vector is not exactly zero but
        // rounding noise, which may point along the axis itself: found by the
        // contact_evaluator fuzz target (fuzz/regressions/contact_evaluator/
        // cone_clamp_of_opposite_direction), where the launch came out 0.707 long, opposite
        // the normal.
        for axis in [v("1", "1", "1"), v("-1", "-1", "-1"), v("0.3", "-2", "0.7")] {
            let axis = axis.normalize().unwrap();
            let out = (-axis).clamp_to_cone(axis, cos, sin);
            assert!(unit_error_ulps(out) < 16, "{axis:?} -> {out:?}");
            assert!((out.dot(axis) - cos).abs() < Fx::lit("0.000001"), "{out:?}");
        }
    }
}
