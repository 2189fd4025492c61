//! Per-tick player input: the stick and the buttons, as recorded in replays.

use crate::fx::Fx;
use crate::vec3::Vec3;

/// Largest stick deflection on an axis; −128 is read as −127 so the range is symmetric.
pub const STEER_MAX: i8 = 127;

/// Buttons held during a tick, as a bit set.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct Buttons(pub u8);

impl Buttons {
    pub const NONE: Buttons = Buttons(0);
    /// Starts a trick in the air.
    pub const TRICK: Buttons = Buttons(1 << 0);
    /// Held while falling: gravity scaled by `dive_gravity_scale`.
    pub const DIVE: Buttons = Buttons(1 << 1);
    /// Every defined button; other bits are rejected by decoders.
    pub const ALL: Buttons = Buttons(Buttons::TRICK.0 | Buttons::DIVE.0);

    pub const fn contains(self, other: Buttons) -> bool {
        self.0 & other.0 == other.0
    }

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
    pub fn stick(&self) -> Vec3 {
        let axis = |s: i8| Fx::from_ratio(i64::from(s.max(-STEER_MAX)), i64::from(STEER_MAX));
        Vec3::new(axis(self.steer_x), Fx::ZERO, axis(self.steer_z)).clamp_length(Fx::ONE)
    }
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
