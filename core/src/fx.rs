//! `Fx`: the one scalar of the simulation.
//!
//! A signed 32.32 fixed-point number (`fixed::types::I32F32`: range ±2 147 483 648, resolution
//! 2⁻³² ≈ 2.3·10⁻¹⁰). It measures lengths (m), speeds (m/s), accelerations (m/s²), times (s) and
//! ratios alike; the unit of each value is stated where it is declared.
//!
//! # Why a newtype and not `I32F32` itself
//!
//! The operators of `fixed` behave differently by build profile: `*`, `/` and `sqrt` panic on
//! overflow with debug assertions and wrap silently without them. A wrapped value is a desync
//! between a debug client and a release server. Every operator of `Fx` therefore **saturates**:
//! the result is the exact result rounded toward zero (for `*` and `/`, as `fixed` does) when it
//! is representable and `Fx::MAX` / `Fx::MIN` when it is not. Division by zero gives `MAX`,
//! `MIN` or zero after the sign of the dividend. No operation on `Fx` panics, in any profile,
//! for any operands, so nothing built from them can diverge between profiles.
//!
//! Saturation is a safety net, not a model: the simulation keeps its state inside documented
//! bounds so that it is never reached in legal play.

use core::fmt;
use core::ops::{Add, AddAssign, Div, Mul, Neg, Sub, SubAssign};

use fixed::types::I32F32;

use crate::isqrt::{isqrt_u64, isqrt_u128};
use crate::wide::{div_u128_u64, mul_i64_wide};

/// A saturating 32.32 fixed-point scalar: every operator saturates, none panics or wraps, in
/// any build profile (a wrapped value would desync a debug client from a release server).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[repr(transparent)]
pub struct Fx(I32F32);

impl Fx {
    /// Number of fractional bits; recorded in replay headers.
    pub const FRAC_BITS: u32 = 32;
    /// Zero.
    pub const ZERO: Fx = Fx(I32F32::ZERO);
    /// One (bits `1 << 32`).
    pub const ONE: Fx = Fx(I32F32::ONE);
    /// One half, exactly.
    pub const HALF: Fx = Fx::lit("0.5");
    /// The largest value, 2³¹ − 2⁻³²: where sums and products saturate upwards.
    pub const MAX: Fx = Fx(I32F32::MAX);
    /// The smallest value, −2³¹: where sums and products saturate downwards.
    pub const MIN: Fx = Fx(I32F32::MIN);
    /// The smallest positive value, 2⁻³².
    pub const DELTA: Fx = Fx(I32F32::DELTA);
    /// π, correctly rounded.
    pub const PI: Fx = Fx(I32F32::PI);

    /// A constant from decimal text, exactly rounded; fails to compile on a bad literal.
    pub const fn lit(text: &str) -> Fx {
        Fx(I32F32::lit(text))
    }

    /// The value whose raw two's-complement bits are `bits`: `bits / 2³²`. The inverse of
    /// [`Fx::to_bits`]; every `i64` is a valid value.
    pub const fn from_bits(bits: i64) -> Fx {
        Fx(I32F32::from_bits(bits))
    }

    /// The raw bits: the value times 2³², exactly. What state hashes, replays, snapshots and
    /// the C ABI carry, and the way to a floating-point number at a renderer's edge (the
    /// crate has none): the bits as a double, divided by 2³², are exact while `|value| < 2²¹`
    /// (about 2 000 km).
    pub const fn to_bits(self) -> i64 {
        self.0.to_bits()
    }

    /// The integer `n`, exactly (every `i32` is representable).
    pub const fn from_int(n: i32) -> Fx {
        Fx::from_bits((n as i64) << Fx::FRAC_BITS)
    }

    /// `num / den`, rounded toward zero, saturating; `den == 0` saturates after `num`'s sign.
    ///
    /// Its 64-bit case is inlined, so that a constant `den` (the stick's 127, twice a tick)
    /// is divided by where it is known: natively a multiply, and on wasm32 an `i64.div_s` by
    /// a constant, which the engine can reduce. The rest (`den == 0`, `|num| ≥ 2³¹`) is out
    /// of line. (On wasm32 the whole function was out of line: a call and a division by a
    /// variable, twice a tick; the plain module's tick was 6–10 % slower.)
    #[inline]
    pub const fn from_ratio(num: i64, den: i64) -> Fx {
        // |num| < 2³¹: the shifted dividend fits an i64, and 64-bit division truncates toward
        // zero like the 128-bit one (the quotient cannot overflow: |den| ≥ 1), much faster.
        if den != 0 && num.unsigned_abs() < 1 << 31 {
            return Fx::from_bits((num << Fx::FRAC_BITS) / den);
        }
        Fx::from_ratio_wide(num, den)
    }

    /// [`Fx::from_ratio`] past its 64-bit case: `den == 0`, or `|num| ≥ 2³¹`.
    const fn from_ratio_wide(num: i64, den: i64) -> Fx {
        if den == 0 {
            return Fx::from_wide_bits(div_wide((num as i128) << Fx::FRAC_BITS, 0));
        }
        // The quotient of the magnitudes, |num|·2³² / |den| rounded down, with the sign of
        // the ratio: the ratio rounded toward zero. |num|·2³² is (|num| >> 32)·2⁶⁴ +
        // (|num| << 32 mod 2⁶⁴); when its high word is |den| or more, the quotient is 2⁶⁴ or
        // more, beyond the range either way. (`div_u128_u64`: the 128-by-64-bit division
        // without a call to compiler-builtins on wasm32; the same value on every target.)
        let negative = (num < 0) != (den < 0);
        let (n, d) = (num.unsigned_abs(), den.unsigned_abs());
        let high = n >> Fx::FRAC_BITS;
        if high >= d {
            return if negative { Fx::MIN } else { Fx::MAX };
        }
        let q = div_u128_u64(high, n << Fx::FRAC_BITS, d);
        match (negative, q <= i64::MAX as u64) {
            (false, true) => Fx::from_bits(q as i64),
            (false, false) => Fx::MAX,
            // −q for q ≤ 2⁶³ (−2⁶³ is i64::MIN itself), saturated below.
            (true, _) if q <= 1 << 63 => Fx::from_bits((q as i64).wrapping_neg()),
            (true, _) => Fx::MIN,
        }
    }

    /// Raw bits held in a wider integer, saturated into range.
    pub(crate) const fn from_wide_bits(bits: i128) -> Fx {
        if bits > i64::MAX as i128 {
            Fx::MAX
        } else if bits < i64::MIN as i128 {
            Fx::MIN
        } else {
            Fx::from_bits(bits as i64)
        }
    }

    /// Parses decimal text (`"-0.35"`, `"24"`, `"1.5e-1"`) straight to fixed point, rounding
    /// to the nearest representable value (ties to even). Never goes through a float.
    ///
    /// The syntax is exactly a JSON number's (RFC 8259 §6), the numbers of tuning and level
    /// files: an optional `-`, an integer part without leading zeros, an optional fraction
    /// with at least one digit, an optional exponent (`e`/`E`, optional sign, digits). So
    /// `1e2` and `-0.5` parse; `.5`, `5.`, `+24`, `01`, `1_000` and whitespace do not.
    pub fn parse_decimal(text: &str) -> Result<Fx, ParseFxError> {
        // `fixed` also accepts a leading `+`, `_` separators, `5.` and leading zeros; the
        // files' numbers cannot be written so, nor then can any other decimal text.
        if !is_json_number(text) {
            return Err(ParseFxError::NotDecimal);
        }
        match I32F32::from_str(text) {
            Ok(value) => Ok(Fx(value)),
            // `fixed` keeps its error kinds private; text that parses once saturation is
            // allowed was a well-formed number out of range.
            Err(_) if I32F32::saturating_from_str(text).is_ok() => Err(ParseFxError::OutOfRange),
            Err(_) => Err(ParseFxError::NotDecimal),
        }
    }

    /// The absolute value; `|MIN|` saturates to `MAX`.
    pub const fn abs(self) -> Fx {
        Fx(self.0.saturating_abs())
    }

    /// Whether the value is below zero.
    pub const fn is_negative(self) -> bool {
        self.0.is_negative()
    }

    /// Whether the value is above zero (zero is neither positive nor negative).
    pub const fn is_positive(self) -> bool {
        self.0.is_positive()
    }

    /// The smaller of the two.
    pub fn min(self, other: Fx) -> Fx {
        Ord::min(self, other)
    }

    /// The larger of the two.
    pub fn max(self, other: Fx) -> Fx {
        Ord::max(self, other)
    }

    /// Clamps into `lo..=hi`; `lo > hi` gives `lo` (never panics, unlike `Ord::clamp`).
    pub fn clamp(self, lo: Fx, hi: Fx) -> Fx {
        self.min(hi).max(lo)
    }

    /// Square root rounded down; negative input gives zero.
    pub fn sqrt(self) -> Fx {
        if self.0 <= I32F32::ZERO {
            return Fx::ZERO;
        }
        // bits·2³² = value·2⁶⁴, whose integer square root is value·2³², the result's bits.
        // Below one (the lean's up axis, say) that fits a u64, whose square root is cheaper.
        let bits = self.to_bits() as u64;
        if bits < 1 << Fx::FRAC_BITS {
            return Fx::from_bits(isqrt_u64(bits << Fx::FRAC_BITS) as i64);
        }
        // One, whose root is itself: an upright lean's up axis, asked for every tick the stick
        // rests, and the one value of a u128 root that is cheaper to name.
        if bits == 1 << Fx::FRAC_BITS {
            return Fx::ONE;
        }
        let wide = u128::from(bits) << Fx::FRAC_BITS;
        Fx::from_bits(isqrt_u128(wide) as i64)
    }

    /// `self · n` for an integer `n`, saturating.
    pub fn mul_int(self, n: i64) -> Fx {
        Fx::from_wide_bits(mul_i64_wide(self.to_bits(), n))
    }

    /// Rounds to the nearest integer, ties away from zero, saturating to the `i64` range of
    /// the integer part (which always fits).
    pub const fn round_to_int(self) -> i64 {
        let bits = self.to_bits() as i128;
        let half = 1i128 << (Fx::FRAC_BITS - 1);
        let rounded = if bits >= 0 { bits + half } else { bits - half };
        // Truncating division rounds toward zero, completing "ties away from zero".
        (rounded / (1i128 << Fx::FRAC_BITS)) as i64
    }

    /// Writes the value with exactly `places` decimals, rounded half to even, without floats.
    pub fn write_decimal(self, f: &mut impl fmt::Write, places: usize) -> fmt::Result {
        write!(f, "{:.*}", places, self.0)
    }

    /// The value as an `I32F32`, for interoperating with the `fixed` ecosystem (e.g. `cordic`).
    pub const fn to_fixed(self) -> I32F32 {
        self.0
    }

    /// The same value from an `I32F32` (the inverse of [`Fx::to_fixed`]; exact).
    pub const fn from_fixed(value: I32F32) -> Fx {
        Fx(value)
    }
}

/// # Arithmetic in range
///
/// The tick's state is bounded by construction (see `docs/tick.md`, "Bounds"), so on its hot path
/// most sums and products cannot leave the scalar's range, and their saturation tests are
/// dead weight. These operations skip them: each is the saturating operator's exact result
/// whenever that result is representable — which the caller proves, in a comment at each
/// use — and debug builds assert that it is, so the tests, the golden runs and the fuzz
/// targets check every proof. (Were a proof wrong, a release build would wrap where a debug
/// build panics: that is why each use states its bound.)
impl Fx {
    /// `self + rhs`, for a sum known to be in range: one machine addition.
    #[inline]
    pub(crate) fn add_in_range(self, rhs: Fx) -> Fx {
        debug_assert!(
            self.to_bits().checked_add(rhs.to_bits()).is_some(),
            "{self} + {rhs} out of range"
        );
        Fx::from_bits(self.to_bits().wrapping_add(rhs.to_bits()))
    }

    /// `self − rhs`, for a difference known to be in range: one machine subtraction.
    #[inline]
    pub(crate) fn sub_in_range(self, rhs: Fx) -> Fx {
        debug_assert!(
            self.to_bits().checked_sub(rhs.to_bits()).is_some(),
            "{self} - {rhs} out of range"
        );
        Fx::from_bits(self.to_bits().wrapping_sub(rhs.to_bits()))
    }

    /// `self · rhs`, for a product known to be in range: the widening multiply and the shift
    /// of [`Mul`], without the range tests.
    #[inline]
    pub(crate) fn mul_in_range(self, rhs: Fx) -> Fx {
        let product = mul_i64_wide(self.to_bits(), rhs.to_bits()) >> Fx::FRAC_BITS;
        debug_assert!(
            i64::try_from(product).is_ok(),
            "{self} * {rhs} out of range"
        );
        Fx::from_bits(product as i64)
    }

    /// `self / 2`, rounded toward zero like [`Div`]: `trunc(bits·2³² / 2·2³²)` is
    /// `trunc(bits / 2)`. Never out of range.
    #[inline]
    pub(crate) fn half(self) -> Fx {
        Fx::from_bits(self.to_bits() / 2)
    }
}

/// Whether `text` is a JSON number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
fn is_json_number(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = usize::from(bytes.first() == Some(&b'-'));
    // The number of ASCII digits from `i` on.
    let digits = |i: usize| bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
    match digits(i) {
        0 => return false,
        n if n > 1 && bytes[i] == b'0' => return false,
        n => i += n,
    }
    if bytes.get(i) == Some(&b'.') {
        match digits(i + 1) {
            0 => return false,
            n => i += 1 + n,
        }
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(bytes.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        match digits(i) {
            0 => return false,
            n => i += n,
        }
    }
    i == bytes.len()
}

/// `num / den` in integers, rounded toward zero, saturating to the `i128` range; a zero
/// divisor saturates after the dividend's sign.
const fn div_wide(num: i128, den: i128) -> i128 {
    if den == 0 {
        return if num > 0 {
            i128::MAX
        } else if num < 0 {
            i128::MIN
        } else {
            0
        };
    }
    match num.checked_div(den) {
        Some(q) => q,
        None => i128::MAX, // i128::MIN / -1
    }
}

/// Why decimal text is not an `Fx`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseFxError {
    /// Not a plain decimal number (digits, optional `-`, `.` and exponent).
    NotDecimal,
    /// A number, but outside ±2³¹.
    OutOfRange,
}

impl fmt::Display for ParseFxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ParseFxError::NotDecimal => "not a decimal number",
            ParseFxError::OutOfRange => "a number outside the fixed-point range ±2147483648",
        })
    }
}

impl core::error::Error for ParseFxError {}

impl Add for Fx {
    type Output = Fx;
    fn add(self, rhs: Fx) -> Fx {
        Fx(self.0.saturating_add(rhs.0))
    }
}

impl Sub for Fx {
    type Output = Fx;
    fn sub(self, rhs: Fx) -> Fx {
        Fx(self.0.saturating_sub(rhs.0))
    }
}

impl Mul for Fx {
    type Output = Fx;
    /// `I32F32::saturating_mul`, bit for bit, in one widening multiply: the exact 128-bit
    /// product shifted right by 32 (rounding toward −∞, as `fixed` does), saturated. `fixed`
    /// computes the same with a 128 × 128-bit overflowing multiply; its overflow is exactly
    /// "the shifted product leaves the i64 range", and its saturation direction (by the
    /// operands' signs) is the product's sign, which is what `from_wide_bits` follows. (The
    /// product is `wide::mul_i64_wide`'s: the same 128 bits on every target, from 32-bit
    /// limbs on wasm32.)
    #[allow(clippy::suspicious_arithmetic_impl)] // the shift scales the wide product
    fn mul(self, rhs: Fx) -> Fx {
        let product = mul_i64_wide(self.to_bits(), rhs.to_bits());
        Fx::from_wide_bits(product >> Fx::FRAC_BITS)
    }
}

impl Div for Fx {
    type Output = Fx;
    #[allow(clippy::suspicious_arithmetic_impl)] // the shift widens the dividend
    fn div(self, rhs: Fx) -> Fx {
        Fx::from_ratio(self.to_bits(), rhs.to_bits())
    }
}

impl Neg for Fx {
    type Output = Fx;
    fn neg(self) -> Fx {
        Fx(self.0.saturating_neg())
    }
}

impl AddAssign for Fx {
    fn add_assign(&mut self, rhs: Fx) {
        *self = *self + rhs;
    }
}

impl SubAssign for Fx {
    fn sub_assign(&mut self, rhs: Fx) {
        *self = *self - rhs;
    }
}

/// Exact decimal rendering (as many digits as the value needs; `{:.N}` rounds to N places).
impl fmt::Display for Fx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl fmt::Debug for Fx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::SplitMix64;

    #[test]
    fn operators_saturate_instead_of_wrapping() {
        assert_eq!(Fx::MAX + Fx::ONE, Fx::MAX);
        assert_eq!(Fx::MIN - Fx::ONE, Fx::MIN);
        assert_eq!(Fx::from_int(100_000) * Fx::from_int(100_000), Fx::MAX);
        assert_eq!(Fx::from_int(-100_000) * Fx::from_int(100_000), Fx::MIN);
        assert_eq!(-Fx::MIN, Fx::MAX);
        assert_eq!(Fx::from_int(1 << 20) / Fx::DELTA, Fx::MAX);
    }

    #[test]
    fn division_by_zero_follows_the_dividend_sign() {
        assert_eq!(Fx::ONE / Fx::ZERO, Fx::MAX);
        assert_eq!(-Fx::ONE / Fx::ZERO, Fx::MIN);
        assert_eq!(Fx::ZERO / Fx::ZERO, Fx::ZERO);
        assert_eq!(Fx::from_ratio(7, 0), Fx::MAX);
        assert_eq!(Fx::from_ratio(i64::MIN, -1), Fx::MAX);
    }

    #[test]
    fn in_range_arithmetic_is_exact_or_truncated() {
        assert_eq!(Fx::lit("1.5") * Fx::lit("2.25"), Fx::lit("3.375"));
        assert_eq!(Fx::from_int(1) / Fx::from_int(4), Fx::lit("0.25"));
        // 1/3 truncates toward zero in both signs.
        assert_eq!(Fx::ONE / Fx::from_int(3), Fx::from_bits(0x5555_5555));
        assert_eq!(-Fx::ONE / Fx::from_int(3), Fx::from_bits(-0x5555_5555));
        assert_eq!(Fx::from_ratio(1, 60), Fx::ONE / Fx::from_int(60));
    }

    #[test]
    fn fast_division_is_the_wide_division() {
        let wide = |num: i64, den: i64| {
            Fx::from_wide_bits(div_wide((num as i128) << Fx::FRAC_BITS, den as i128))
        };
        let edges = [
            0,
            1,
            -1,
            2,
            3,
            7,
            127,
            -127,
            (1 << 31) - 1,
            -(1 << 31) + 1,
            1 << 31,
            -(1 << 31),
            (1 << 31) + 1,
            1 << 40,
            i64::MAX,
            i64::MIN,
            i64::MIN + 1,
        ];
        let mut rng = SplitMix64(0x6469_7673u64);
        let mut values = alloc::vec::Vec::from(edges);
        for _ in 0..4000 {
            let z = rng.next();
            values.push((z as i64) >> (z % 64));
        }
        for &num in &values {
            for &den in values.iter().step_by(7).chain(&edges) {
                assert_eq!(Fx::from_ratio(num, den), wide(num, den), "{num} / {den}");
                assert_eq!(
                    Fx::from_bits(num) / Fx::from_bits(den),
                    wide(num, den),
                    "{num} / {den}"
                );
            }
        }
    }

    #[test]
    fn multiplication_is_fixed_saturating_mul() {
        let mut values = alloc::vec![
            0i64,
            1,
            -1,
            2,
            -2,
            1 << 31,
            -(1 << 31),
            1 << 32,
            -(1 << 32),
            (1 << 32) + 1,
            1 << 47,
            -(1 << 47),
            (1 << 47) - 1,
            1 << 48,
            3 << 46,
            i64::MAX,
            i64::MIN,
            i64::MAX - 1,
            i64::MIN + 1,
        ];
        let mut rng = SplitMix64(0x6d75_6c74u64);
        for _ in 0..3000 {
            let z = rng.next();
            values.push((z as i64) >> (z % 64));
        }
        for (k, &a) in values.iter().enumerate() {
            for &b in values.iter().skip(k % 5).step_by(5) {
                let expected = I32F32::from_bits(a).saturating_mul(I32F32::from_bits(b));
                assert_eq!(
                    (Fx::from_bits(a) * Fx::from_bits(b)).to_bits(),
                    expected.to_bits(),
                    "{a} * {b}"
                );
            }
        }
    }

    /// The in-range operations are the saturating operators wherever those do not saturate.
    #[test]
    fn in_range_operations_are_the_operators_in_range() {
        let mut values = alloc::vec![
            0i64,
            1,
            -1,
            1 << 31,
            -(1 << 31),
            1 << 32,
            3 << 40,
            -(5 << 45)
        ];
        let mut rng = SplitMix64(0x7261_6e67u64);
        for _ in 0..3000 {
            let z = rng.next();
            values.push((z as i64) >> (2 + z % 62));
        }
        for (k, &a) in values.iter().enumerate() {
            for &b in values.iter().skip(k % 7).step_by(7) {
                let (x, y) = (Fx::from_bits(a), Fx::from_bits(b));
                if a.checked_add(b).is_some() {
                    assert_eq!(x.add_in_range(y), x + y, "{a} + {b}");
                }
                if a.checked_sub(b).is_some() {
                    assert_eq!(x.sub_in_range(y), x - y, "{a} - {b}");
                }
                let wide = (a as i128 * b as i128) >> 32;
                if i64::try_from(wide).is_ok() {
                    assert_eq!(x.mul_in_range(y), x * y, "{a} * {b}");
                }
            }
            let x = Fx::from_bits(a);
            assert_eq!(x.half(), x / Fx::from_int(2), "{a} / 2");
        }
        assert_eq!(Fx::MIN.half(), Fx::MIN / Fx::from_int(2));
        assert_eq!(Fx::from_bits(-3).half(), Fx::from_bits(-1));
    }

    #[test]
    fn sqrt_is_floor_and_total() {
        assert_eq!(Fx::from_int(9).sqrt(), Fx::from_int(3));
        assert_eq!(Fx::from_int(2).sqrt().to_bits(), 6_074_000_999); // floor(√2·2³²) = floor(6074000999.95)
        assert_eq!(Fx::from_int(-4).sqrt(), Fx::ZERO);
        assert_eq!(Fx::MAX.sqrt().to_bits(), 199_032_864_766_430); // floor(√(2⁶³−1)·2¹⁶)
        for bits in [
            1i64,
            2,
            3,
            1 << 20,
            (1 << 32) - 1,
            1 << 32,
            (1 << 32) + 1,
            3_900_000_000,
            12_345_678_901,
            i64::MAX,
        ] {
            let r = Fx::from_bits(bits).sqrt().to_bits() as u128;
            let wide = (bits as u128) << 32;
            assert!(r * r <= wide && (r + 1) * (r + 1) > wide, "bits {bits}");
        }
        // Every magnitude, both sides of the 64-bit path's limit (SplitMix64, seed printed).
        let seed = 0x7371_7274u64;
        let mut rng = SplitMix64(seed);
        for _ in 0..20_000 {
            let z = rng.next();
            let bits = ((z >> 1) >> (z % 63)) as i64;
            let wide = (bits as u128) << 32;
            let r = Fx::from_bits(bits).sqrt().to_bits() as u128;
            assert_eq!(r, wide.isqrt(), "bits {bits} (seed {seed:#x})");
        }
    }

    #[test]
    fn parse_decimal_is_exact_and_strict() {
        assert_eq!(Fx::parse_decimal("0.35"), Ok(Fx::lit("0.35")));
        assert_eq!(Fx::parse_decimal("-30"), Ok(Fx::from_int(-30)));
        assert_eq!(Fx::parse_decimal("1.25e-1"), Ok(Fx::lit("0.125")));
        // 0.1 is not a binary fraction: nearest 32.32 value, not a binary float's rounding.
        assert_eq!(Fx::parse_decimal("0.1").unwrap().to_bits(), 429_496_730);
        assert_eq!(Fx::parse_decimal("3e9"), Err(ParseFxError::OutOfRange));
        // Exactly JSON's number grammar, as tuning and level files write numbers.
        for (good, value) in [
            ("0", "0"),
            ("-0", "0"),
            ("1e2", "100"),
            ("1E2", "100"),
            ("1e+2", "100"),
            ("25e-1", "2.5"),
            ("-0.5", "-0.5"),
            ("10.25", "10.25"),
        ] {
            assert_eq!(Fx::parse_decimal(good), Ok(Fx::lit(value)), "{good:?}");
        }
        for bad in [
            "", "-", "+1", ".5", "-.5", "5.", "1.e2", "01", "-01.5", "00", "1e", "1e+", "1.5e",
            "1_0", "abc", "1.2.3", "NaN", "inf", " 1", "1 ", "0x10", "1f", "\u{663}",
        ] {
            assert_eq!(
                Fx::parse_decimal(bad),
                Err(ParseFxError::NotDecimal),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn rounding_to_int_is_half_away_from_zero() {
        assert_eq!(Fx::lit("7.2").round_to_int(), 7);
        assert_eq!(Fx::lit("1.8").round_to_int(), 2);
        assert_eq!(Fx::lit("2.5").round_to_int(), 3);
        assert_eq!(Fx::lit("-2.5").round_to_int(), -3);
        assert_eq!(Fx::lit("-2.4").round_to_int(), -2);
        assert_eq!(Fx::MAX.round_to_int(), 1 << 31);
    }

    #[test]
    fn decimal_output_has_exact_places() {
        let mut s = alloc::string::String::new();
        Fx::lit("3.32412").write_decimal(&mut s, 4).unwrap();
        assert_eq!(s, "3.3241");
        s.clear();
        Fx::from_int(-2).write_decimal(&mut s, 6).unwrap();
        assert_eq!(s, "-2.000000");
    }
}
