//! A player's input for one tick as the fuzzer makes it: any stick values, any button bits.

use arbitrary::Arbitrary;
use pogo_core::{Buttons, Input};

#[derive(Arbitrary, Clone, Copy, Debug, Default)]
pub struct InputIn {
    pub steer_x: i8,
    pub steer_z: i8,
    pub buttons: u8,
}

impl InputIn {
    /// As it is, undefined button bits included (what a replay may carry).
    pub(crate) fn raw(self) -> Input {
        Input {
            steer_x: self.steer_x,
            steer_z: self.steer_z,
            buttons: Buttons(self.buttons),
        }
    }

    /// With the buttons masked to the defined ones (what a game passes to the tick).
    pub(crate) fn masked(self) -> Input {
        Input {
            buttons: Buttons(self.buttons & Buttons::ALL.0),
            ..self.raw()
        }
    }
}
