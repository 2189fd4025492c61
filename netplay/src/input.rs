//! The input GGRS sends over the wire: one player's [`Input`] for one frame as plain bytes.

use pogo_core::{Buttons, Input};
use serde::{Deserialize, Serialize};

/// One player's input for one frame, as four plain bytes:
///
/// ```text
/// byte 0  steer_x   (i8, two's complement)
/// byte 1  steer_z   (i8, two's complement)
/// byte 2  buttons   (pogo_core::Buttons bits)
/// byte 3  session flags: bit 0 = DONE, "I have confirmed every tick of the session"
/// ```
///
/// The all-zero value (GGRS's `Default`, what it uses for a disconnected player) is neutral
/// input. The bytes come from the other peer, so they are hostile: [`NetInput::input`] reads
/// any four bytes as a valid, [normalized](Input::normalized) input, and undefined flag bits
/// are ignored. GGRS serialises it with bincode (a fixed 4-byte tuple) and delta-compresses
/// consecutive frames, so a held stick costs almost nothing on the wire.
#[derive(Clone, Copy, PartialEq, Eq, Default, Debug, Serialize, Deserialize)]
pub struct NetInput(pub [u8; 4]);

impl NetInput {
    /// The session flag saying the sending peer has confirmed every tick it is to record
    /// (see [`crate::session`]: how the two peers stop together).
    pub const DONE: u8 = 1 << 0;

    /// `input` (normalized) with the given session flags.
    pub fn new(input: Input, flags: u8) -> NetInput {
        let input = input.normalized();
        NetInput([
            input.steer_x.to_le_bytes()[0],
            input.steer_z.to_le_bytes()[0],
            input.buttons.0,
            flags & NetInput::DONE,
        ])
    }

    /// The player's input, normalized (steer −128 read as −127, undefined buttons cleared).
    pub fn input(self) -> Input {
        let [x, z, buttons, _] = self.0;
        Input {
            steer_x: i8::from_le_bytes([x]),
            steer_z: i8::from_le_bytes([z]),
            buttons: Buttons(buttons),
        }
        .normalized()
    }

    /// Whether the sender had confirmed every tick of the session when it sent this frame.
    pub fn done(self) -> bool {
        self.0[3] & NetInput::DONE != 0
    }
}

impl From<Input> for NetInput {
    fn from(input: Input) -> NetInput {
        NetInput::new(input, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_input_round_trips_and_any_bytes_read_as_a_valid_input() {
        for x in i8::MIN..=i8::MAX {
            for buttons in [0u8, 1, 2, 3, 0xff] {
                let input = Input {
                    steer_x: x,
                    steer_z: x.wrapping_neg(),
                    buttons: Buttons(buttons),
                };
                let net = NetInput::new(input, 0);
                assert_eq!(net.input(), input.normalized(), "{input:?}");
                assert!(!net.done());
            }
        }
        let hostile = NetInput([0x80, 0x7f, 0xff, 0xff]);
        assert_eq!(
            hostile.input(),
            Input {
                steer_x: -127,
                steer_z: 127,
                buttons: Buttons::ALL
            }
        );
        assert!(hostile.done());
        assert_eq!(NetInput::default().input(), Input::default());
        assert!(NetInput::new(Input::default(), NetInput::DONE).done());
        assert_eq!(NetInput::new(Input::default(), 0xfe), NetInput::default());
    }
}
