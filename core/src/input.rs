//! Per-tick player input: the stick and the buttons, as recorded in replays.

use crate::fx::Fx;
use crate::vec3::Vec3;

/// Largest stick deflection on an axis; −128 is read as −127 so the range is symmetric.
pub const STEER_MAX: i8 = 127;

/// Buttons held during a tick, as a bit set.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct Buttons(pub u8);

impl Buttons {
    /// No button held.
    pub const NONE: Buttons = Buttons(0);
    /// Starts a trick in the air.
    pub const TRICK: Buttons = Buttons(1 << 0);
    /// Held while falling: gravity scaled by `dive_gravity_scale`.
    pub const DIVE: Buttons = Buttons(1 << 1);
    /// Every defined button; other bits are rejected by decoders.
    pub const ALL: Buttons = Buttons(Buttons::TRICK.0 | Buttons::DIVE.0);

    /// Whether every button of `other` is held (true for [`Buttons::NONE`]).
    pub const fn contains(self, other: Buttons) -> bool {
        self.0 & other.0 == other.0
    }

    /// The buttons held in either set.
    pub const fn union(self, other: Buttons) -> Buttons {
        Buttons(self.0 | other.0)
    }
}

/// One player's input for one tick.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct Input {
    /// Stick toward east (+) / west (−), −127…127.
    pub steer_x: i8,
    /// Stick toward south (+) / north (−), −127…127.
    pub steer_z: i8,
    /// Buttons held during the tick (bits outside [`Buttons::ALL`] are cleared by
    /// [`Input::normalized`] and refused by replay decoders).
    pub buttons: Buttons,
}

impl Input {
    /// The canonical form of this input: steer −128 read as −127, undefined button bits
    /// cleared. The tick and the recorder work on it, so inputs that act the same are the same
    /// (in the state hash and in replays).
    pub fn normalized(self) -> Input {
        let axis = |s: i8| if s < -STEER_MAX { -STEER_MAX } else { s };
        Input {
            steer_x: axis(self.steer_x),
            steer_z: axis(self.steer_z),
            buttons: Buttons(self.buttons.0 & Buttons::ALL.0),
        }
    }

    /// The stick as a horizontal vector of length at most 1 (a full diagonal is scaled back
    /// onto the unit circle).
    ///
    /// By definition `(axis(x), 0, axis(z)).clamp_length(1)` with `axis(s) = s / 127` (each
    /// rounded toward zero), computed without a square root or a wide division:
    ///
    /// - `x² + z² ≤ 127²`: the clamp returns the vector unchanged. Its squared raw length is
    ///   at most `(x² + z²)·2⁶⁴/127² ≤ 2⁶⁴`, one squared, since each raw component is at most
    ///   `|s|·2³²/127`.
    /// - otherwise (`x² + z² ≥ 127² + 1`) the clamp scales it, and the result comes from a
    ///   private table, `STICK_CLAMPED`: the clamp's own results for those inputs, computed
    ///   when compiling. The clamp is symmetric in the signs of the components and in
    ///   swapping them (it scales each by the same `1/len`, truncating toward zero), so the
    ///   table holds one octant, `0 ≤ b ≤ a ≤ 127`.
    ///
    /// `input::tests::stick_is_the_clamped_ratio_for_every_input` checks all 65 536 inputs.
    #[inline]
    pub fn stick(&self) -> Vec3 {
        let (x, z) = (
            i64::from(self.steer_x.max(-STEER_MAX)),
            i64::from(self.steer_z.max(-STEER_MAX)),
        );
        let max = i64::from(STEER_MAX);
        if x * x + z * z <= max * max {
            return Vec3::new(Fx::from_ratio(x, max), Fx::ZERO, Fx::from_ratio(z, max));
        }
        let (a, b) = (x.unsigned_abs(), z.unsigned_abs());
        let swapped = b > a;
        let (a, b) = if swapped { (b, a) } else { (a, b) };
        let [along_a, along_b] = STICK_CLAMPED.get(a as usize, b as usize);
        let (mut cx, mut cz) = if swapped {
            (along_b, along_a)
        } else {
            (along_a, along_b)
        };
        if x < 0 {
            cx = -cx;
        }
        if z < 0 {
            cz = -cz;
        }
        Vec3::new(Fx::from_bits(cx), Fx::ZERO, Fx::from_bits(cz))
    }
}

/// How many stick positions with `0 ≤ b ≤ a ≤ 127` lie outside the unit circle
/// (`a² + b² > 127²`).
const STICK_CLAMPED_COUNT: usize = {
    let mut count = 0;
    let mut a = 0;
    while a <= STEER_MAX as usize {
        let mut b = 0;
        while b <= a {
            if outside_circle(a as i64, b as i64) {
                count += 1;
            }
            b += 1;
        }
        a += 1;
    }
    count
};

const fn outside_circle(a: i64, b: i64) -> bool {
    let max = STEER_MAX as i64;
    a * a + b * b > max * max
}

/// The clamped stick for one octant: row `a` holds `b` from `first_b[a]` to `a`, at
/// `values[start[a] + b − first_b[a]]`, each the raw bits of the clamp's (a, b) components.
struct StickTable {
    first_b: [u8; 128],
    start: [u16; 128],
    values: [[i64; 2]; STICK_CLAMPED_COUNT],
}

impl StickTable {
    /// The clamped stick for `0 ≤ b ≤ a ≤ 127`, `a² + b² > 127²`.
    fn get(&self, a: usize, b: usize) -> [i64; 2] {
        self.values[usize::from(self.start[a]) + b - usize::from(self.first_b[a])]
    }
}

/// [`Input::stick`]'s values outside the unit circle, computed when compiling by
/// [`clamped_stick`].
static STICK_CLAMPED: StickTable = {
    let mut table = StickTable {
        first_b: [0; 128],
        start: [0; 128],
        values: [[0; 2]; STICK_CLAMPED_COUNT],
    };
    let mut next = 0;
    let mut a = 0;
    while a < 128 {
        let mut b = 0;
        while b <= a && !outside_circle(a as i64, b as i64) {
            b += 1;
        }
        table.first_b[a] = b as u8;
        table.start[a] = next as u16;
        while b <= a {
            table.values[next] = clamped_stick(a as i64, b as i64);
            next += 1;
            b += 1;
        }
        a += 1;
    }
    table
};

/// `Vec3::new(x, 0, z).clamp_length(Fx::ONE)` for `x = a/127`, `z = b/127` (`a, b ≥ 0`), in
/// raw bits, as a `const fn`: [`Fx::from_ratio`] (one 64-bit division rounding toward zero)
/// and `Vec3::clamp_length` (the squared test, the length rounded up, each component
/// `c·max/len` rounded toward zero), step for step.
const fn clamped_stick(a: i64, b: i64) -> [i64; 2] {
    let max = STEER_MAX as i64;
    let (x, z) = ((a << Fx::FRAC_BITS) / max, (b << Fx::FRAC_BITS) / max);
    let sum = (x as u128) * (x as u128) + (z as u128) * (z as u128);
    let one = Fx::ONE.to_bits() as u128;
    if sum <= one * one {
        return [x, z];
    }
    let floor = sum.isqrt();
    let len = if floor * floor == sum {
        floor
    } else {
        floor + 1
    };
    if len <= one {
        return [x, z];
    }
    let (one, len) = (one as i128, len as i128);
    [
        ((x as i128 * one) / len) as i64,
        ((z as i128 * one) / len) as i64,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stick_is_within_the_unit_circle() {
        let full = Input {
            steer_x: 127,
            steer_z: 0,
            buttons: Buttons::NONE,
        };
        assert_eq!(full.stick(), Vec3::new(Fx::ONE, Fx::ZERO, Fx::ZERO));
        let low = Input {
            steer_x: -128,
            ..full
        };
        assert_eq!(low.stick(), Vec3::new(-Fx::ONE, Fx::ZERO, Fx::ZERO));
        let diagonal = Input {
            steer_x: 127,
            steer_z: -127,
            buttons: Buttons::DIVE,
        }
        .stick();
        assert!(diagonal.length() <= Fx::ONE);
        assert!(diagonal.length() > Fx::lit("0.999999"));
        assert!(diagonal.x > Fx::ZERO && diagonal.z < Fx::ZERO);
        let half = Input {
            steer_x: 0,
            steer_z: 127 / 2,
            buttons: Buttons::NONE,
        }
        .stick();
        assert_eq!(half.z, Fx::from_ratio(63, 127));
    }

    /// The fast stick against its definition, for every input (−128 included).
    #[test]
    fn stick_is_the_clamped_ratio_for_every_input() {
        let axis = |s: i8| Fx::from_ratio(i64::from(s.max(-STEER_MAX)), i64::from(STEER_MAX));
        let mut clamped = 0;
        for x in i8::MIN..=i8::MAX {
            for z in i8::MIN..=i8::MAX {
                let input = Input {
                    steer_x: x,
                    steer_z: z,
                    buttons: Buttons::NONE,
                };
                let raw = Vec3::new(axis(x), Fx::ZERO, axis(z));
                let expected = raw.clamp_length(Fx::ONE);
                clamped += usize::from(expected != raw);
                assert_eq!(input.stick(), expected, "stick ({x}, {z})");
                // What lets the lean skip its own clamp (`Lean::follow_unit_stick`).
                assert_eq!(expected.clamp_length(Fx::ONE), expected, "({x}, {z}) again");
            }
        }
        // The table's inputs, every sign and order, with −128 counted as −127: all clamped.
        assert!(clamped > 4 * STICK_CLAMPED_COUNT, "{clamped}");
    }

    #[test]
    fn normalized_input_is_canonical() {
        let raw = Input {
            steer_x: -128,
            steer_z: 5,
            buttons: Buttons(0xff),
        };
        let n = raw.normalized();
        assert_eq!(
            n,
            Input {
                steer_x: -127,
                steer_z: 5,
                buttons: Buttons::ALL
            }
        );
        assert_eq!(n.stick(), raw.stick());
        assert_eq!(n.normalized(), n);
    }

    #[test]
    fn buttons_are_a_bit_set() {
        let both = Buttons::TRICK.union(Buttons::DIVE);
        assert!(both.contains(Buttons::TRICK) && both.contains(Buttons::DIVE));
        assert!(!Buttons::TRICK.contains(Buttons::DIVE));
        assert_eq!(both, Buttons::ALL);
    }
}
