//! 64 × 64 → 128-bit multiplies and 128-by-64-bit divisions, without 128-bit arithmetic on
//! wasm32.
//!
//! Every `Fx` product, dot product and squared length is the exact 128-bit product of two
//! 64-bit integers. On a 64-bit CPU the compiler does each in one or two instructions.
//! WebAssembly 2.0 has no such instruction, so on `wasm32` the compiler multiplies
//! 128 × 128 bits through compiler-builtins' `__multi3`: a call, the result through linear
//! memory, four multiplies and the carries of a full 128-bit product. Divisions of a 128-bit dividend
//! (`Fx` division of a value of 0.5 or more, `Vec3::normalize`) call `__udivti3` /
//! `__divti3`, which handle any 128-bit divisor. On `wasm32` these are therefore done here
//! from 32-bit limbs with 64-bit operations and no call: [`mul_i64_limbs`],
//! [`mul_u64_limbs`] (four `i64.mul`), [`div_u128_u64_limbs`] (two `i64.div_u`). Elsewhere
//! the compiler's own 128-bit arithmetic is kept ([`mul_i64_wide`], [`mul_u64_wide`] and
//! [`div_u128_u64`] choose).
//!
//! The wide-arithmetic proposal (phase 4 since 2026-08) adds `i64.mul_wide_s` and
//! `i64.mul_wide_u`: Firefox has them from 155 (ESR 153 behind the preference
//! `javascript.options.wasm_wide_arithmetic`), Chromium 156 behind `--js-flags=--wasm-wide-arithmetic`.
//! `scripts/build-wasm.sh` builds a second module with them (`-C
//! target-feature=+wide-arithmetic --cfg pogo_wide_arithmetic`, the `wasm-wide` profile), in
//! which the products are the compiler's 128-bit multiplies, each one instruction; the page
//! loads it where the browser validates it. Its divisions are still the limb form's.
//!
//! The two routes are the same functions: the limb forms return exactly the 128-bit product
//! and the exact quotient, every bit, for every operand their contract admits (no rounding,
//! no saturation here), so which route a target takes changes no result. Both exist on every
//! target: `tests` check the limb forms against `i128`/`u128` arithmetic natively too (edge
//! operands and seeded random ones, the seed in every message), and the `wide-limbs` feature
//! selects them on every target, so that the whole test suite, golden hashes included, can
//! run natively with wasm32's arithmetic (`cargo test -p pogo-core --features wide-limbs`,
//! `cargo test -p pogo --features pogo-core/wide-limbs`).
//!
//! The signed product takes a shorter route when it can: an operand whose high limb is only
//! its low limb's sign extension (it fits an `i32`: a 32.32 value in [−0.5, 0.5)) needs no
//! partial products of its own, so a product of two such is one `i64.mul` and of one such
//! two. They are common: of the 398 000 signed products of the demo bot's `sprawl` run
//! through the CLI (10 501 ticks, the world's building included), 51 % were of two such
//! operands, 32 % of one. The same exact 128 bits on each route; the tests check each route
//! and its boundaries (±2³¹). In Chromium 156 it took the one-pogo tick from 0.229 to 0.211
//! µs (2026-12-05; PERFORMANCE.md, "Where the wasm tick goes").
//!
//! The limb forms' intermediate values are bounded (each bound stated beside it) and computed
//! with wrapping operations, which the bounds make exact: no overflow test is left in a build
//! with overflow checks (the `release` profile has them), where on wasm32 a checked 64-bit
//! multiply is itself a 128-bit multiply, a call to `__multi3`.

/// The routes, chosen once per build (each function below has both; the compiler drops the
/// other). Products from limbs: on wasm32 without the wide-arithmetic instructions, and
/// wherever `wide-limbs` asks.
const LIMB_PRODUCTS: bool = cfg!(any(
    all(target_arch = "wasm32", not(pogo_wide_arithmetic)),
    feature = "wide-limbs"
));
/// Divisions from limbs: on wasm32 (the proposal has no division), and wherever `wide-limbs`
/// asks.
const LIMB_DIVISIONS: bool = cfg!(any(target_arch = "wasm32", feature = "wide-limbs"));
/// `normalize`'s quotients from one reciprocal: in the wide-arithmetic build only.
const RECIPROCAL_QUOTIENTS: bool = cfg!(all(target_arch = "wasm32", pogo_wide_arithmetic));

/// 2³² − 1: the low limb's mask.
const LOW: u64 = 0xffff_ffff;

/// `a · b`, exactly (`|a·b| ≤ 2¹²⁶`): on `wasm32` by [`mul_i64_limbs`] (by the compiler's
/// `i64.mul_wide_s` in the wide-arithmetic build), elsewhere by the compiler's 128-bit multiply
/// of the sign-extended operands. The same value either way.
#[inline(always)]
pub(crate) const fn mul_i64_wide(a: i64, b: i64) -> i128 {
    if LIMB_PRODUCTS {
        mul_i64_limbs(a, b)
    } else {
        a as i128 * b as i128
    }
}

/// `a · b`, exactly (below 2¹²⁸): on `wasm32` by [`mul_u64_limbs`] (by the compiler's
/// `i64.mul_wide_u` in the wide-arithmetic build), elsewhere by the compiler's 128-bit
/// multiply. The same value either way.
#[inline(always)]
pub(crate) const fn mul_u64_wide(a: u64, b: u64) -> u128 {
    if LIMB_PRODUCTS {
        mul_u64_limbs(a, b)
    } else {
        a as u128 * b as u128
    }
}

/// `a · b` from 32-bit limbs, with four 64-bit multiplies (Hacker's Delight, 2nd ed., §8-2,
/// `mulhs`, with 32-bit halves): `a = a₁·2³² + a₀`, `b = b₁·2³² + b₀`, the high limbs signed
/// (`a₁, b₁ ∈ [−2³¹, 2³¹)`), the low ones unsigned (`a₀, b₀ ∈ [0, 2³²)`) — or with one
/// multiply when both operands fit an `i32`, two when one does. Exactly
/// `a as i128 * b as i128`, on every target.
#[inline(always)]
pub(crate) const fn mul_i64_limbs(a: i64, b: i64) -> i128 {
    let (a_small, b_small) = (a == a as i32 as i64, b == b as i32 as i64);
    if a_small && b_small {
        // Both within [−2³¹, 2³¹) (high limbs the low limbs' sign extension): |a·b| ≤ 2⁶²,
        // one exact i64 multiply.
        return a.wrapping_mul(b) as i128;
    }
    if a_small || b_small {
        // One operand `s` within [−2³¹, 2³¹), the other `l = l₁·2³² + l₀`: two multiplies,
        // l₀·s ∈ (−2⁶³, 2⁶³) and l₁·s ∈ [−2⁶², 2⁶²], both exact in an i64.
        let (s, l) = if b_small { (b, a) } else { (a, b) };
        let (l0, l1) = ((l as u64 & LOW) as i64, l >> 32);
        let low = l0.wrapping_mul(s);
        let high = l1.wrapping_mul(s);
        // l₁·s·2³² + l₀·s: the high product's top 32 bits are the result's high word's
        // start; add the rest with its carry.
        return ((high as i128) << 32).wrapping_add(low as i128);
    }
    let (a0, a1) = ((a as u64 & LOW) as i64, a >> 32);
    let (b0, b1) = ((b as u64 & LOW) as i64, b >> 32);
    // a₀·b₀ ≤ (2³² − 1)² < 2⁶⁴: as a u64, exact.
    let low = (a0 as u64).wrapping_mul(b0 as u64);
    // a₁·b₀ ∈ [−2³¹(2³² − 1), (2³¹ − 1)(2³² − 1)], plus ⌊low / 2³²⌋ ≤ 2³² − 2: within
    // (−2⁶³, 2⁶³ − 2³¹].
    let t = a1.wrapping_mul(b0).wrapping_add((low >> 32) as i64);
    // a₀·b₁ ∈ [−2³¹(2³² − 1), (2³¹ − 1)(2³² − 1)], plus t's low limb (< 2³²): within ±2⁶³.
    let w = a0.wrapping_mul(b1).wrapping_add(t & LOW as i64);
    // a₁·b₁ ≤ 2⁶², and the two carries are within [−2³¹, 2³¹) each: the high 64 bits of
    // the product, |·| ≤ 2⁶² + 2³².
    let high = a1
        .wrapping_mul(b1)
        .wrapping_add(t >> 32)
        .wrapping_add(w >> 32);
    // The low 64 bits: w's low limb above low's.
    let low = (w as u64) << 32 | (low & LOW);
    (high as i128) << 64 | low as i128
}

/// `a · b` from 32-bit limbs, with four 64-bit multiplies: `a = a₁·2³² + a₀`,
/// `b = b₁·2³² + b₀`, all four limbs in `[0, 2³²)`. Exactly `a as u128 * b as u128`, on
/// every target.
#[inline(always)]
pub(crate) const fn mul_u64_limbs(a: u64, b: u64) -> u128 {
    let (a0, a1) = (a & LOW, a >> 32);
    let (b0, b1) = (b & LOW, b >> 32);
    // Each partial product is at most (2³² − 1)² < 2⁶⁴.
    let (p00, p01) = (a0.wrapping_mul(b0), a0.wrapping_mul(b1));
    let (p10, p11) = (a1.wrapping_mul(b0), a1.wrapping_mul(b1));
    // The terms of weight 2³²: three values below 2³², their sum below 2³⁴.
    let middle = (p00 >> 32).wrapping_add(p01 & LOW).wrapping_add(p10 & LOW);
    // The product is below 2¹²⁸, so its high 64 bits fit: this sum is exactly them.
    let high = p11
        .wrapping_add(p01 >> 32)
        .wrapping_add(p10 >> 32)
        .wrapping_add(middle >> 32);
    let low = middle << 32 | (p00 & LOW);
    (high as u128) << 64 | low as u128
}

/// `⌊(high·2⁶⁴ + low) / d⌋` for `high < d`, which makes the quotient fit a `u64` (and `d`
/// non-zero): on `wasm32` by [`div_u128_u64_limbs`], elsewhere by the compiler's 128-bit
/// division. The same value either way.
#[inline(always)]
pub(crate) const fn div_u128_u64(high: u64, low: u64, d: u64) -> u64 {
    if LIMB_DIVISIONS {
        div_u128_u64_limbs(high, low, d)
    } else {
        ((((high as u128) << 64) | low as u128) / d as u128) as u64
    }
}

/// `⌊(high·2⁶⁴ + low) / d⌋` for `high < d`, by long division in base 2³² with two 64-bit
/// divisions (Hacker's Delight, 2nd ed., §9-4, `divlu`; Knuth's algorithm D with two
/// quotient digits): `d` is shifted until its top bit is set, and each 32-bit digit of the
/// quotient is estimated from the top two digits of the remainder and `d`'s top digit, then
/// corrected, at most twice. Exactly `(((high as u128) << 64) | low as u128) / d as u128`
/// whenever `high < d`, on every target. Callers ensure that; for `high ≥ d` (no `u64`
/// quotient) the result is unspecified (and `d = 0` divides by zero).
///
/// On wasm32 a 128-bit division is a call to compiler-builtins' `__udivti3` / `__divti3`,
/// which handle any 128-bit divisor; this needs only `i64.div_u`.
#[inline(always)]
pub(crate) const fn div_u128_u64_limbs(high: u64, low: u64, d: u64) -> u64 {
    const BASE: u64 = 1 << 32;
    debug_assert!(high < d, "the quotient does not fit 64 bits");
    // Normalise: the divisor's top bit set, the dividend shifted with it (by s < 64; the
    // bits shifted out of `high` are zero, as high < d).
    let s = d.leading_zeros() % 64;
    let v = d << s;
    let (v1, v0) = (v >> 32, v & LOW); // v1 ≥ 2³¹
    let u32_ = if s == 0 {
        high
    } else {
        high << s | low >> (64 - s)
    };
    let u10 = low << s;
    let (u1, u0) = (u10 >> 32, u10 & LOW);
    // First digit: q̂ = ⌊u32_ / v1⌋ is at most 2 above the digit (v normalised); lower it
    // while it is a whole base or too big for the top three dividend digits. The products
    // are taken only for q̂ < 2³² and r̂ < 2³², so each is below 2⁶⁴.
    //
    // The multiplies are bounded (q̂·v1 ≤ the dividend; q̂·v0 with both below 2³²) and taken
    // without the overflow test: on wasm32 a checked 64-bit multiply is a 128-bit one, a call
    // to `__multi3`.
    let mut q1 = u32_ / v1;
    let mut rhat = u32_ - q1.wrapping_mul(v1); // u32_ mod v1 < v1 < 2³²
    while q1 >= BASE || q1.wrapping_mul(v0) > (rhat << 32 | u1) {
        q1 -= 1;
        rhat += v1; // < 2³³
        if rhat >= BASE {
            break;
        }
    }
    // The remainder's top two digits: below v, so exact modulo 2⁶⁴.
    let u21 = (u32_ << 32 | u1).wrapping_sub(q1.wrapping_mul(v));
    // Second digit, the same way.
    let mut q0 = u21 / v1;
    let mut rhat = u21 - q0.wrapping_mul(v1);
    while q0 >= BASE || q0.wrapping_mul(v0) > (rhat << 32 | u0) {
        q0 -= 1;
        rhat += v1;
        if rhat >= BASE {
            break;
        }
    }
    q1 << 32 | q0
}

/// `⌊m · 2³² / d⌋` for each `m` of `ms`, for `2⁶¹ ≤ d < 2⁶⁴` and every `m ≤ d` (each quotient
/// at most 2³²): a unit vector's components from its scaled magnitudes and their root
/// (`Vec3::normalize_with_length`). In the wide-arithmetic build by [`div_shifted_reciprocal`]
/// (one division for the three), elsewhere by three [`div_u128_u64`]. The same values either
/// way.
#[inline(always)]
pub(crate) fn div_shifted(ms: [u64; 3], d: u64) -> [u64; 3] {
    if RECIPROCAL_QUOTIENTS {
        div_shifted_reciprocal(ms, d)
    } else {
        ms.map(|m| div_u128_u64(m >> 32, m << 32, d))
    }
}

/// [`div_shifted`] from one reciprocal: `r = ⌊2⁹⁶ / d⌋` (one 128-by-64-bit division; `2³² < r ≤
/// 2³⁵`), then for each `m` the estimate `q̂ = ⌊m·r / 2⁶⁴⌋` and one test. With `x = m·2³²/d`:
/// `m·r ≤ m·2⁹⁶/d`, so `q̂ ≤ ⌊x⌋`; and `r > 2⁹⁶/d − 1`, so `m·r/2⁶⁴ > x − m/2⁶⁴ > x − 1`, and
/// `q̂ ≥ ⌊x⌋ − 1`: `q̂` is `⌊x⌋` unless `(q̂ + 1)·d ≤ m·2³²` (both below 2⁹⁷), and then `q̂ + 1`
/// is. Three divisions are
/// seven `i64.div_u` on wasm32 (a root's and two each from limbs); this takes three, and the
/// products, with wide arithmetic, one instruction each. (Natively the three divisions cost
/// the same as this: PERFORMANCE.md, "pogo and rapier".) Exactly [`div_shifted`]'s quotients,
/// on every target; `tests` compare them.
#[inline(always)]
pub(crate) fn div_shifted_reciprocal(ms: [u64; 3], d: u64) -> [u64; 3] {
    debug_assert!(d >> 61 != 0);
    let r = div_u128_u64(1 << 32, 0, d); // 2³² < d: the quotient fits
    ms.map(|m| {
        debug_assert!(m <= d);
        let q = (mul_u64_wide(m, r) >> 64) as u64;
        if mul_u64_wide(q + 1, d) <= (m as u128) << 32 {
            q + 1
        } else {
            q
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::SplitMix64;
    use alloc::vec::Vec;

    /// Edge operands: 0, ±1, ±2ᵏ and their neighbours, the limbs' boundaries, the extremes.
    fn edges() -> Vec<u64> {
        let mut out = alloc::vec![0, 1, 2, 3, u64::MAX, u64::MAX - 1, LOW, LOW + 1, LOW - 1];
        for k in 0..64 {
            let p = 1u64 << k;
            out.extend([p, p - 1, p + 1, p.wrapping_neg(), !p]);
        }
        // The signed extremes and their neighbours, as bits.
        for x in [i64::MIN, i64::MIN + 1, i64::MAX, i64::MAX - 1, -1, -2] {
            out.push(x as u64);
        }
        // A limb all ones beside a limb of zero or a single bit.
        out.extend([
            0xffff_ffff_0000_0000,
            0x0000_0001_ffff_ffff,
            0x8000_0000_ffff_ffff,
            0x7fff_ffff_8000_0000,
            0x8000_0000_8000_0000,
        ]);
        out
    }

    /// Seeded random operands of every magnitude (SplitMix64; the seed is in each message).
    fn random(seed: u64, n: usize) -> Vec<u64> {
        let mut rng = SplitMix64(seed);
        (0..n)
            .map(|_| {
                let z = rng.next();
                // Every width: shifted right by 0–63 (arithmetically, as an i64: small
                // negatives too), or as it is.
                match z % 3 {
                    0 => z,
                    1 => ((z as i64) >> (rng.next() % 64)) as u64,
                    _ => z >> (rng.next() % 64),
                }
            })
            .collect()
    }

    fn check_pair(a: u64, b: u64, seed: u64) {
        let (sa, sb) = (a as i64, b as i64);
        assert_eq!(
            mul_i64_limbs(sa, sb),
            sa as i128 * sb as i128,
            "{sa} * {sb} (seed {seed:#x})"
        );
        assert_eq!(
            mul_u64_limbs(a, b),
            a as u128 * b as u128,
            "{a} * {b} (seed {seed:#x})"
        );
        assert_eq!(mul_i64_wide(sa, sb), sa as i128 * sb as i128);
        assert_eq!(mul_u64_wide(a, b), a as u128 * b as u128);
    }

    /// `div_u128_u64_limbs` against the `u128` division, where its precondition holds;
    /// `high` is reduced below `d` when it is not.
    fn check_division(high: u64, low: u64, d: u64, seed: u64) {
        if d == 0 {
            return;
        }
        let high = high % d;
        let n = (high as u128) << 64 | low as u128;
        let expected = (n / d as u128) as u64;
        assert_eq!(
            div_u128_u64_limbs(high, low, d),
            expected,
            "{n} / {d} (seed {seed:#x})"
        );
        assert_eq!(div_u128_u64(high, low, d), expected);
    }

    #[test]
    fn limb_division_is_the_wide_division_at_the_edges() {
        let edges = edges();
        for &d in &edges {
            for &low in &edges {
                // The largest high allowed, the smallest, and one in between.
                for high in [0, d.wrapping_sub(1), d / 2, d >> 32, 1] {
                    check_division(high, low, d, 0);
                }
            }
        }
    }

    #[test]
    fn limb_division_is_the_wide_division_at_random() {
        let seed = 0x6469_7675u64;
        let mut rng = SplitMix64(seed);
        let edges = edges();
        for _ in 0..300_000 {
            let (a, b, c) = (rng.next(), rng.next(), rng.next());
            // Divisors of every width; dividends from just below d·2⁶⁴ down.
            let d = c >> (a % 64);
            let high = match b % 4 {
                0 => d.wrapping_sub(1),
                1 => d >> (c % 64),
                2 => a,
                _ => 0,
            };
            check_division(high, b, d, seed);
            // The correction steps: quotients near whole bases and divisors near 2ᵏ.
            let d = edges[(a % edges.len() as u64) as usize];
            check_division(b, c, d, seed);
            check_division(d.wrapping_sub(1), c, d, seed);
        }
    }

    #[test]
    fn limb_products_are_the_wide_products_at_the_edges() {
        let edges = edges();
        for &a in &edges {
            for &b in &edges {
                check_pair(a, b, 0);
            }
        }
    }

    /// Which of `mul_i64_limbs`' routes a pair takes: both operands within `i32` (one
    /// multiply), one of them (two), neither (four).
    fn route(a: i64, b: i64) -> usize {
        let small = |x: i64| x == x as i32 as i64;
        usize::from(small(a)) + usize::from(small(b))
    }

    /// Each route of the signed product, by itself, at its boundaries (±2³¹ and their
    /// neighbours, where an operand stops fitting an `i32`) and at random within each route:
    /// every pair is the `i128` product, and each route is taken many times.
    #[test]
    fn limb_products_are_the_wide_products_on_every_route() {
        let seed = 0x726f_7574u64;
        let mut rng = SplitMix64(seed);
        let boundary = [
            0i64,
            1,
            -1,
            i32::MAX as i64,
            i32::MAX as i64 + 1,
            i32::MIN as i64,
            i32::MIN as i64 - 1,
            i32::MAX as i64 - 1,
            i32::MIN as i64 + 1,
            (u32::MAX as i64),
            -(u32::MAX as i64),
            i64::MAX,
            i64::MIN,
            i64::MIN + 1,
            1 << 32,
            -(1 << 32),
        ];
        let mut taken = [0usize; 3];
        let mut check = |a: i64, b: i64| {
            taken[route(a, b)] += 1;
            check_pair(a as u64, b as u64, seed);
        };
        for &a in &boundary {
            for &b in &boundary {
                check(a, b);
            }
        }
        for _ in 0..200_000 {
            let (x, y) = (rng.next(), rng.next());
            // Within i32 (either sign), or of any width above it.
            let small = |z: u64| (z as i64) >> (32 + z % 32);
            let large = |z: u64| {
                let v = (z as i64) >> (z % 31);
                if v == v as i32 as i64 {
                    v ^ i64::MIN
                } else {
                    v
                }
            };
            check(small(x), small(y));
            check(small(x), large(y));
            check(large(x), small(y));
            check(large(x), large(y));
        }
        assert!(
            taken.iter().all(|&n| n > 100_000),
            "routes taken: {taken:?}"
        );
    }

    /// The reciprocal's quotients against the division's, at the ends of their range (`d` at
    /// 2⁶¹ and near 2⁶⁴, `m` at 0, 1, `d` and its neighbours, powers of two) and at random
    /// (the seed in each message).
    #[test]
    fn quotients_from_one_reciprocal_are_the_divisions() {
        let check = |ms: [u64; 3], d: u64, seed: u64| {
            let expected = ms.map(|m| ((m as u128) << 32) / d as u128);
            let got = div_shifted_reciprocal(ms, d).map(u128::from);
            assert_eq!(got, expected, "{ms:?} / {d} (seed {seed:#x})");
            assert_eq!(div_shifted(ms, d).map(u128::from), expected);
        };
        let mut ds = alloc::vec![1 << 61, (1 << 61) + 1, (1 << 62) - 1, 1 << 62, 1 << 63];
        ds.extend([u64::MAX, u64::MAX - 1, (1 << 63) + 1, 0xb504_f333_f9de_6484]);
        for &d in &ds {
            let mut ms = alloc::vec![0, 1, 2, d, d - 1, d - 2, d / 2, d / 3, LOW, LOW + 1];
            ms.extend((0..64).map(|k| 1u64 << k).filter(|&p| p <= d));
            for (i, &m) in ms.iter().enumerate() {
                check([m, ms[(i + 1) % ms.len()], ms[(i + 7) % ms.len()]], d, 0);
            }
        }
        let seed = 0x0072_6563_6970_u64;
        let mut rng = SplitMix64(seed);
        for _ in 0..300_000 {
            let d = rng.next() | 1 << (61 + rng.next() % 3);
            let m = |r: u64| match r % 4 {
                0 => d - (r >> 8) % 1024, // near d, where q is near 2³²
                1 => (r >> (r % 64)).min(d),
                _ => r % (d + 1),
            };
            check([m(rng.next()), m(rng.next()), m(rng.next())], d, seed);
        }
    }

    #[test]
    fn limb_products_are_the_wide_products_at_random() {
        let seed = 0x7769_6465u64;
        let edges = edges();
        let values = random(seed, 4000);
        for (k, &a) in values.iter().enumerate() {
            for &b in values.iter().skip(k % 3).step_by(3).chain(&edges) {
                check_pair(a, b, seed);
            }
        }
        // Pairs drawn together, many more of them.
        let mut rng = SplitMix64(seed ^ 0x5eed);
        for _ in 0..200_000 {
            let (a, b) = (rng.next(), rng.next());
            let (sa, sb) = ((a as i64) >> (b % 64), (b as i64) >> (a % 64));
            check_pair(a, b, seed ^ 0x5eed);
            check_pair(sa as u64, sb as u64, seed ^ 0x5eed);
        }
    }
}
