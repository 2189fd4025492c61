//! Floor square roots of integers, for `Fx::sqrt` and the lengths of `Vec3`.
//!
//! The floor square root of `n` is the one integer `r` with `r² ≤ n < (r + 1)²`, so any
//! route to it gives the same bits. These take a cheaper route than the standard library's:
//! for 64-bit operands, a table of chords gives the root to within 2¹³ and the reciprocal of
//! twice the root to 2⁻¹⁷ of itself, one Newton step multiplying by that reciprocal gives the
//! root to within one, and a final test corrects that unit. No division: a 64-bit division
//! is among the slowest instructions (how slow differs from CPU to CPU), and the tick's roots
//! (about 1.3 a `course` tick, most in the lean) lie on its chain of dependent arithmetic.
//! 128-bit operands add one Karatsuba step (Zimmermann, "Karatsuba Square Root", INRIA
//! RR-3805, 1999) with one 64-bit division. The derivations are beside the code; `tests` compare both with `isqrt` of the
//! standard library over every magnitude, the perfect squares and their neighbours, and every
//! table bucket's ends, and check the table's bounds.

use crate::wide::mul_u64_wide;

/// A normalised operand `m ∈ [2⁶², 2⁶⁴)` is in bucket `(m >> BUCKET_SHIFT) − FIRST_BUCKET`:
/// its top nine bits, less the 128 values below 2⁶², so buckets `[lo, lo + 2⁵⁵)`, 384 of them.
const BUCKET_SHIFT: u32 = 55;
const FIRST_BUCKET: u64 = 1 << (62 - BUCKET_SHIFT);
const BUCKETS: usize = (1 << (64 - BUCKET_SHIFT)) - FIRST_BUCKET as usize;

/// Bucket `[lo, hi)`'s chords of `√m` and of `2⁶² / √m` (all below 2³²): at `m = lo + f·2⁵⁵`
/// (`0 ≤ f < 1`), `root + rise·f` and `inverse − fall·f`.
#[derive(Clone, Copy)]
struct Chord {
    /// `⌊√lo⌋`.
    root: u32,
    /// `⌊√hi⌋ − ⌊√lo⌋`, below 2²⁴.
    rise: u32,
    /// `⌊2⁶² / ⌊√lo⌋⌋`, at most 2³¹.
    inverse: u32,
    /// `inverse` less the same at `hi`, below 2²³.
    fall: u32,
}

const CHORDS: [Chord; BUCKETS] = {
    let mut chords = [Chord {
        root: 0,
        rise: 0,
        inverse: 0,
        fall: 0,
    }; BUCKETS];
    let mut i = 0;
    while i < BUCKETS {
        let lo = (FIRST_BUCKET as u128 + i as u128) << BUCKET_SHIFT;
        let hi = lo + (1 << BUCKET_SHIFT); // up to 2⁶⁴, whose root 2³² is still exact here
        let (root_lo, root_hi) = (lo.isqrt(), hi.isqrt());
        let (inverse_lo, inverse_hi) = ((1 << 62) / root_lo, (1 << 62) / root_hi);
        chords[i] = Chord {
            root: root_lo as u32,
            rise: (root_hi - root_lo) as u32,
            inverse: inverse_lo as u32,
            fall: (inverse_lo - inverse_hi) as u32,
        };
        i += 1;
    }
    chords
};

/// `⌊√n⌋`.
pub(crate) fn isqrt_u64(n: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    // An even shift brings the top bit to 62 or 63: m = n·4ʲ ∈ [2⁶², 2⁶⁴), and
    // ⌊√m⌋ / 2ʲ rounded down is ⌊√n⌋ (for real x and whole d > 0, ⌊⌊x⌋/d⌋ = ⌊x/d⌋).
    let shift = n.leading_zeros() & !1;
    let m = n << shift;
    // r is ⌊√m⌋ − 1, ⌊√m⌋ or ⌊√m⌋ + 1, and below 2³² + 1 (`estimate`): clamping it at
    // 2³² − 1 ≥ ⌊√m⌋ keeps that and r² in range. Then one step down or up: r = f + 1 has
    // r² > m; r = f − 1 has m − r² ≥ f² − (f − 1)² = 2f − 1 > 2r; r = f has neither
    // (m < (f + 1)², so m − f² ≤ 2f).
    let r = estimate(m).min(u64::from(u32::MAX));
    let square = r * r;
    let r = if square > m {
        r - 1
    } else if m - square > 2 * r {
        r + 1
    } else {
        r
    };
    debug_assert!(r * r <= m && m - r * r <= 2 * r, "isqrt({m})");
    r >> (shift / 2)
}

/// `⌊√m⌋` or one unit either side, for `m ∈ [2⁶², 2⁶⁴)`, without a division.
///
/// With `m = lo + f·2⁵⁵` in its bucket, `s = root + ⌊rise·f⌋` is the chord of `√` through the
/// bucket's ends rounded down, so (√ being concave) `s ≤ √m`, and `√m − s` is at most the
/// chord's gap, `2¹¹⁰ / (32 lo^{3/2}) ≤ 2¹²`, plus 2 for the roundings: `d = √m − s < 2¹³`.
/// Newton's step from s, `s + (m − s²) / (2s)`, is `√m + d² / (2s)`; with the reciprocal
/// of `√m` in its place, `s + (m − s²) / (2√m) = √m − d² / (2√m)`, within 2⁻⁸ below √m. The
/// reciprocal comes from the chord of `2⁶²/√m`, convex, so above it by at most
/// `3·2¹¹⁰ / (32 lo²) = 3·2⁻¹⁹` of it (and the roundings of its ends, 2⁻³⁰): that adds at
/// most `(m − s²)/(2√m) · 2⁻¹⁷ < 2¹³ · 2⁻¹⁷` to the step. The product's truncation takes up to
/// one away. So the estimate is within (√m − 1.01, √m + 0.07): ⌊√m⌋ − 1, ⌊√m⌋ or ⌊√m⌋ + 1.
/// `tests` check the chord bounds at every bucket's ends and through its middle.
///
/// Ranges: `rise·f < 2²⁴·2³²`; `s < 2³²`, so `s² < 2⁶⁴` and `m − s² = 2sd + d² < 2⁴⁷`;
/// times the reciprocal (≤ 2³¹), below 2⁷⁸.
#[inline]
fn estimate(m: u64) -> u64 {
    let (s, reciprocal) = chords_at(m);
    // (m − s²) · 2⁶²/√m / 2⁶³ = (m − s²) / (2√m).
    // s < 2³²: its square cannot overflow, and is taken without the overflow test (on
    // wasm32, a checked 64-bit multiply is a 128-bit one, a call to `__multi3`).
    debug_assert!(s >> 32 == 0);
    s + (mul_u64_wide(m - s.wrapping_mul(s), reciprocal) >> 63) as u64
}

/// The two chords of `m`'s bucket at `m` (`m ∈ [2⁶², 2⁶⁴)`): `(s, reciprocal)`, `s` the root's
/// chord rounded down and `reciprocal` that of `2⁶²/√m` (see [`estimate`]).
#[inline]
fn chords_at(m: u64) -> (u64, u64) {
    debug_assert!(m >> 62 != 0);
    let chord = CHORDS[((m >> BUCKET_SHIFT) - FIRST_BUCKET) as usize];
    let f = (m >> (BUCKET_SHIFT - 32)) & u64::from(u32::MAX); // m's place in its bucket, 2⁻³²
    let s = u64::from(chord.root) + ((u64::from(chord.rise) * f) >> 32);
    let reciprocal = u64::from(chord.inverse) - ((u64::from(chord.fall) * f) >> 32);
    (s, reciprocal)
}

/// `⌊√n⌋`.
pub(crate) fn isqrt_u128(n: u128) -> u128 {
    if n >> 64 == 0 {
        return u128::from(isqrt_u64(n as u64));
    }
    // As in `isqrt_u64`: m = n·4ʲ ∈ [2¹²⁶, 2¹²⁸), and ⌊√m⌋ / 2ʲ rounded down is ⌊√n⌋.
    let shift = n.leading_zeros() / 2;
    let m = n << (2 * shift);
    // r₀ = ⌊√(m / 2⁶⁴)⌋ ∈ [2³¹, 2³²) is the root's top half: with r = ⌊√m⌋ = r₀·2³² + δ,
    // 0 ≤ δ < 2³² (r₀·2³² ≤ √m, and m < (⌊m/2⁶⁴⌋ + 1)·2⁶⁴ ≤ (r₀ + 1)²·2⁶⁴).
    let r0 = isqrt_u64((m >> 64) as u64);
    // The rest T = m − r₀²·2⁶⁴ = 2r₀·δ·2³² + δ² + ρ (ρ = m − r² ∈ [0, 2r]) is below
    // (2r₀ + 1)·2⁶⁴ < 2⁹⁷, so T / 2³³ fits a u64, and δ' = ⌊T / (2r₀·2³²)⌋ = ⌊⌊T/2³³⌋ / r₀⌋
    // is at least δ and exceeds it by less than 2: δ² + ρ ≤ (2³² − 1)² + 2(r₀·2³² + δ) <
    // 2⁶⁴ + 2r₀·2³², and (2⁶⁴ + 2r₀·2³²)/(2r₀·2³²) = 2³¹/r₀ + 1 ≤ 2. So δ' is δ or δ + 1.
    // r₀ < 2³²: its square is exact without the overflow test (see `estimate`).
    let rest = m - (u128::from(r0.wrapping_mul(r0)) << 64);
    let delta = ((rest >> 33) as u64) / r0;
    // r ≤ 2⁶⁴ − 1: clamping there keeps the estimate ⌊√m⌋ or ⌊√m⌋ + 1 and its square in
    // range (a 64 × 64-bit product); one step down if the square is over m.
    let r = ((u128::from(r0) << 32) + u128::from(delta)).min(u128::from(u64::MAX)) as u64;
    let r = u128::from(r) - u128::from(mul_u64_wide(r, r) > m);
    debug_assert!(r * r <= m && m - r * r <= 2 * r, "isqrt({m})");
    r >> shift
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::SplitMix64;
    use alloc::vec::Vec;

    /// Operands of every size: the perfect squares of assorted roots and their neighbours,
    /// every table bucket's first and last value, powers of two and their neighbours, and a
    /// SplitMix64 stream at every magnitude (seed in the failure message).
    fn operands(seed: u64) -> Vec<u128> {
        let mut out = Vec::new();
        for bits in 0..128 {
            let p = 1u128 << bits;
            out.extend([p - 1, p, p + 1]);
        }
        out.push(u128::MAX);
        for t in 128u128..512 {
            for shift in (0..=119).step_by(2) {
                let first = t << shift;
                out.extend([first, ((t + 1) << shift).wrapping_sub(1)]);
            }
        }
        let mut rng = SplitMix64(seed);
        let mut next = || rng.next();
        for _ in 0..20_000 {
            let wide = (u128::from(next()) << 64 | u128::from(next())) >> (next() % 128);
            out.push(wide);
            // Roots near 2⁶⁴ − 1 and 2³² − 1 too: their squares' neighbours.
            let root = wide >> 64 | u128::from(next() >> (next() % 64));
            if let Some(square) = root.checked_mul(root) {
                out.extend([square.saturating_sub(1), square, square.saturating_add(1)]);
            }
        }
        out.extend((0..5000u128).flat_map(|r| [r * r, r * r + 2 * r]));
        // The perfect squares nearest each bucket's ends, where the reciprocal's chord is
        // tight and the estimate can fall a unit short.
        for t in 128u128..=512 {
            let end = (t << BUCKET_SHIFT).isqrt();
            for r in end.saturating_sub(256)..end + 256 {
                out.extend([r * r - 1, r * r, r * r + 1]);
            }
        }
        for r in [u128::from(u32::MAX), u128::from(u64::MAX)] {
            out.extend([r * r - 1, r * r, r * r + 1]);
        }
        // The 128-bit root's estimate is furthest above the root where its top half r₀ is
        // smallest (2³¹) and the rest largest: roots 2⁶³ + δ for δ up to 2³², squared and
        // with the largest remainder (r² + 2r).
        for delta in (0..=1u128 << 32)
            .step_by(1 << 20)
            .chain((1 << 32) - 4096..(1 << 32) + 4)
        {
            let r = (1u128 << 63) + delta;
            out.extend([r * r - 1, r * r, r * r + 2 * r]);
        }
        out
    }

    /// Each bucket's chords, at its ends and at 4 095 points between, and at a SplitMix64
    /// stream of points (seed printed): the root's chord `s` at or below ⌊√m⌋ and within
    /// 2¹³ of it, the reciprocal's within 2⁻¹⁷ of `2⁶²/⌊√m⌋`, and the estimate within one.
    #[test]
    fn the_chords_are_within_their_bounds() {
        let seed = 0x6368_6f72u64;
        let mut rng = SplitMix64(seed);
        for i in 0..BUCKETS {
            let lo = (FIRST_BUCKET + i as u64) << BUCKET_SHIFT;
            let width = 1u64 << BUCKET_SHIFT;
            let between = (0..=4096).map(|j| lo + ((width / 4096) * j - u64::from(j == 4096)));
            let random = (0..64).map(|_| lo + rng.next() % width);
            for m in between.chain(random) {
                let (s, reciprocal) = chords_at(m);
                let floor = m.isqrt();
                assert!(
                    s <= floor && floor - s < 1 << 13,
                    "bucket {i}, m {m}: s {s}"
                );
                let exact = (1u128 << 62) / u128::from(floor);
                let off = u128::from(reciprocal).abs_diff(exact);
                assert!(
                    off <= exact >> 17,
                    "bucket {i}, m {m}: {reciprocal} vs {exact}"
                );
                let r = estimate(m);
                assert!(
                    r.abs_diff(floor) <= 1,
                    "bucket {i}, m {m} (seed {seed:#x}): {r}"
                );
            }
        }
    }

    #[test]
    fn the_64_bit_root_is_the_floor_root() {
        let seed = 0x6973_7174u64;
        for n in operands(seed) {
            let n = n as u64;
            assert_eq!(isqrt_u64(n), n.isqrt(), "isqrt({n}), seed {seed:#x}");
        }
    }

    #[test]
    fn the_128_bit_root_is_the_floor_root() {
        let seed = 0x7771_7274u64;
        for n in operands(seed) {
            assert_eq!(isqrt_u128(n), n.isqrt(), "isqrt({n}), seed {seed:#x}");
        }
    }
}
