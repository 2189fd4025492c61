//! Numbers as the fuzzer gives them.

use arbitrary::Arbitrary;
use pogo_core::{Fx, Vec3};

/// Any scalar, for full-range hostility: raw bits, a small value, or an edge value.
#[derive(Arbitrary, Clone, Copy, Debug)]
pub enum Scalar {
    /// Any 32.32 bits.
    Bits(i64),
    /// `n · 2⁻¹⁶`: within ±32768 on a grid fine enough for every rule threshold.
    Small(i32),
    /// One of `EDGES`, chosen modulo their count.
    Edge(u8),
}

/// Values where saturation and sign changes live.
const EDGES: [Fx; 9] = [
    Fx::ZERO,
    Fx::DELTA,
    Fx::from_bits(-1),
    Fx::ONE,
    Fx::from_int(-1),
    Fx::MAX,
    Fx::MIN,
    Fx::HALF,
    Fx::from_bits(i64::MIN + 1),
];

impl Scalar {
    pub fn fx(self) -> Fx {
        match self {
            Scalar::Bits(bits) => Fx::from_bits(bits),
            Scalar::Small(n) => Fx::from_bits(i64::from(n) << 16),
            Scalar::Edge(i) => EDGES[usize::from(i) % EDGES.len()],
        }
    }

    pub fn vec(v: [Scalar; 3]) -> Vec3 {
        Vec3::new(v[0].fx(), v[1].fx(), v[2].fx())
    }
}

/// A coordinate within a caller-given range: full resolution, or on a 1/256 m grid (so faces,
/// edges and start points line up exactly, as they do in hand-made levels).
#[derive(Arbitrary, Clone, Copy, Debug)]
pub enum Coord {
    /// Any bits, folded into the range.
    Fine(i64),
    /// `n / 256` m, folded into the range.
    Grid(i16),
}

impl Coord {
    /// The value folded into `−range…range` (m); `range` must be positive.
    pub fn within(self, range: Fx) -> Fx {
        let span = i128::from(range.to_bits()) * 2 + 1;
        let bits = match self {
            Coord::Fine(bits) => i128::from(bits),
            Coord::Grid(n) => i128::from(n) << (Fx::FRAC_BITS - 8),
        };
        let folded = (bits + i128::from(range.to_bits())).rem_euclid(span);
        Fx::from_bits((folded - i128::from(range.to_bits())) as i64)
    }

    /// The absolute value folded into `0…range`.
    pub fn within_positive(self, range: Fx) -> Fx {
        self.within(range).abs()
    }

    pub fn vec(v: [Coord; 3], range: Fx) -> Vec3 {
        Vec3::new(v[0].within(range), v[1].within(range), v[2].within(range))
    }
}

/// Equal within `tolerance` (an `Fx` bound on |a − b|).
pub fn near(a: Fx, b: Fx, tolerance: Fx) -> bool {
    (a - b).abs() <= tolerance
}

/// Whether every component lies within ±`bound`.
pub fn within(v: Vec3, bound: Fx) -> bool {
    [v.x, v.y, v.z].iter().all(|c| c.abs() <= bound)
}
