//! SplitMix64 (Steele, Lea, Flood 2014): the seeded generator behind random players and the
//! faulty network. Tiny and fully specified, so a seed means the same stream everywhere.

/// A SplitMix64 stream.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (`0` when `n` is 0), by Lemire's multiply-shift: the bias is below
    /// n / 2⁶⁴, nothing at the sizes used here.
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// True with probability `ppm` / 1 000 000.
    pub fn chance_ppm(&mut self, ppm: u32) -> bool {
        self.below(1_000_000) < u64::from(ppm)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_matches_its_published_stream() {
        // The reference implementation's first output for seed 0.
        assert_eq!(SplitMix64::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
        let mut rng = SplitMix64::new(1);
        assert!((0..1000).all(|_| rng.below(7) < 7));
        assert_eq!(rng.below(0), 0);
        let hits = (0..100_000).filter(|_| rng.chance_ppm(200_000)).count();
        assert!((19_000..21_000).contains(&hits), "{hits}");
        assert!(!(0..1000).any(|_| rng.chance_ppm(0)));
        assert!((0..1000).all(|_| rng.chance_ppm(1_000_000)));
    }
}
