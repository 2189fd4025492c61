//! Floor square roots of integers, for `Fx::sqrt` and the lengths of `Vec3`.
//!
//! The floor square root of `n` is the one integer `r` with `r² ≤ n < (r + 1)²`, so any
//! route to it gives the same bits. These take a cheaper route than the standard library's
//! (about half its time for 64-bit operands on this project's machines): a table gives
//! eight bits, two Newton steps with a 64-bit division give all 32, a final test corrects the
//! last unit; 128-bit operands add one Karatsuba step (Zimmermann, "Karatsuba Square Root",
//! INRIA RR-3805, 1999) with one more 64-bit division. The derivations are beside the code;
//! `tests` compare both with `isqrt` of the standard library over every magnitude, the
//! perfect squares and their neighbours, and every table bucket's ends.

/// `⌊2¹² · √(64.5 + i)⌋` for `i` in `0..192`: the square root of the middle of each bucket
/// `[t, t + 1) · 2⁵⁶` (`t = 64 + i`, a normalised operand's top byte), in units of 2²⁸.
const SEED: [u16; 192] = {
    let mut seed = [0u16; 192];
    let mut i = 0;
    while i < 192 {
        // (64.5 + i) · 2²⁴ = (129 + 2i) · 2²³, whose square root is 2¹² · √(64.5 + i) < 2¹⁶.
        seed[i] = ((129 + 2 * i as u64) << 23).isqrt() as u16;
        i += 1;
    }
    seed
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
    // The seed is √ of the middle of m's bucket of 2⁵⁶ (its top byte t ≥ 64), so its relative
    // error is below 1/(4t) ≤ 2⁻⁸ plus 2⁻¹⁵ for its own rounding; it is at least 2³¹.
    let mut r = u64::from(SEED[((m >> 56) - 64) as usize]) << 16;
    // Newton's step for √m. Its result is never below ⌊√m⌋ from any r ≥ 1 (it is
    // ⌊(r + m/r)/2⌋, and (r + m/r)/2 ≥ √m), and it squares the relative error (halved):
    // 2⁻⁸ → 2⁻¹⁷ → 2⁻³⁵, under 2⁻² of √m < 2³². So after two, r is ⌊√m⌋ or one more. Each
    // sum is below 2³⁴; each divisor at least 2³¹.
    r = (r + m / r) >> 1;
    r = (r + m / r) >> 1;
    // ⌊√m⌋ < 2³², so clamping there keeps r ≥ ⌊√m⌋ and r² in range; then one step down at
    // most.
    r = r.min(u64::from(u32::MAX));
    if r * r > m {
        r -= 1;
    }
    debug_assert!(r * r <= m && m - r * r <= 2 * r, "isqrt({m})");
    r >> (shift / 2)
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
    // is at least δ and exceeds it by at most (δ² + ρ)/(2r₀·2³²) < (2⁶⁴ + 2⁶⁵)/2⁶⁴ = 3.
    let rest = m - (u128::from(r0 * r0) << 64);
    let delta = ((rest >> 33) as u64) / r0;
    // r ≤ 2⁶⁴ − 1: clamping there keeps the estimate at or above it and its square in range;
    // then at most three steps down.
    let mut r = ((u128::from(r0) << 32) + u128::from(delta)).min(u128::from(u64::MAX));
    for _ in 0..3 {
        if r * r > m {
            r -= 1;
        }
    }
    debug_assert!(r * r <= m && m - r * r <= 2 * r, "isqrt({m})");
    r >> shift
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::SplitMix64;
    use alloc::vec::Vec;

    /// Operands of every size: the perfect squares of assorted roots and their neighbours,
    /// every seed bucket's first and last value, powers of two and their neighbours, and a
    /// SplitMix64 stream at every magnitude (seed in the failure message).
    fn operands(seed: u64) -> Vec<u128> {
        let mut out = Vec::new();
        for bits in 0..128 {
            let p = 1u128 << bits;
            out.extend([p - 1, p, p + 1]);
        }
        out.push(u128::MAX);
        for t in 64u128..256 {
            for shift in (0..=120).step_by(8) {
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
        for r in [u128::from(u32::MAX), u128::from(u64::MAX)] {
            out.extend([r * r - 1, r * r, r * r + 1]);
        }
        out
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
