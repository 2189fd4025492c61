//! Player names: the one rule for every name a replay carries and a leaderboard shows.
//!
//! A name is printed on terminals, in logs and on web pages, next to lines a verifier prints
//! about the same file, so it must not be able to pass for anything but a name: no line
//! breaks, no terminal escapes, no invisible or direction-changing characters. The rule:
//!
//! - 1 to [`PLAYER_NAME_CHARS_MAX`] characters, and at most
//!   [`PLAYER_NAME_BYTES_MAX`] (64, what a replay's header holds) bytes of UTF-8;
//! - every character is a letter or a digit of any script (Unicode `Alphabetic` or `Numeric`,
//!   Rust's [`char::is_alphanumeric`]), or one of the ASCII marks in [`PLAYER_NAME_MARKS`]
//!   (space `-` `_` `.` `'`);
//! - no space at the start or the end, and never two in a row.
//!
//! So control characters (C0, C1, DEL: line breaks, ANSI escapes), format characters
//! (zero-width joiners, bidirectional overrides), other whitespace, symbols and emoji are all
//! refused. The rule is checked when a replay is recorded **and** when it is read: a replay
//! whose header breaks it is malformed.

use std::fmt;

/// Longest player name (bytes of UTF-8), and so the most a replay's header holds
/// (`format::PLAYER_NAME_BYTES_MAX` is this one).
pub const PLAYER_NAME_BYTES_MAX: usize = 64;

/// Most characters (Unicode scalar values) in a player name.
pub const PLAYER_NAME_CHARS_MAX: usize = 32;

/// The characters besides letters and digits a player name may contain.
pub const PLAYER_NAME_MARKS: &[char] = &[' ', '-', '_', '.', '\''];

/// Why a player name is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameError {
    /// No characters at all.
    Empty,
    /// More than [`PLAYER_NAME_CHARS_MAX`] characters (or more bytes than the format holds).
    TooLong {
        /// [`PLAYER_NAME_CHARS_MAX`].
        max_chars: usize,
        /// [`PLAYER_NAME_BYTES_MAX`].
        max_bytes: usize,
    },
    /// A character outside the set, at this character index (0-based).
    Character {
        /// The character refused.
        found: char,
        /// Its index among the name's characters (not bytes), 0-based.
        index: usize,
    },
    /// A space at the start or the end, or two spaces in a row.
    Spacing,
}

impl fmt::Display for NameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NameError::Empty => f.write_str("player name is empty"),
            NameError::TooLong {
                max_chars,
                max_bytes,
            } => write!(
                f,
                "player name is longer than {max_chars} characters or {max_bytes} bytes"
            ),
            NameError::Character { found, index } => write!(
                f,
                "player name has U+{:04X} at character {index}: only letters, digits, \
                 space and - _ . ' are allowed",
                u32::from(*found)
            ),
            NameError::Spacing => {
                f.write_str("player name starts or ends with a space, or has two spaces in a row")
            }
        }
    }
}

impl std::error::Error for NameError {}

/// Checks a player name against the rule of this module.
pub fn check_player_name(name: &str) -> Result<(), NameError> {
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if let Some((index, found)) = name
        .chars()
        .enumerate()
        .find(|&(_, c)| !(c.is_alphanumeric() || PLAYER_NAME_MARKS.contains(&c)))
    {
        return Err(NameError::Character { found, index });
    }
    let max_bytes = PLAYER_NAME_BYTES_MAX;
    if name.len() > max_bytes || name.chars().count() > PLAYER_NAME_CHARS_MAX {
        return Err(NameError::TooLong {
            max_chars: PLAYER_NAME_CHARS_MAX,
            max_bytes,
        });
    }
    if name.starts_with(' ') || name.ends_with(' ') || name.contains("  ") {
        return Err(NameError::Spacing);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_digits_and_a_few_marks_of_any_script_are_names() {
        for name in [
            "bot",
            "P0",
            "Zoë O'Neill",
            "jean-luc_2.0",
            "Łukasz",
            "山田太郎",
            "Ελένη",
            "١٢٣",
            &"x".repeat(32),
        ] {
            assert_eq!(check_player_name(name), Ok(()), "{name:?}");
        }
    }

    #[test]
    fn anything_that_could_pass_for_output_is_refused() {
        let cases: &[(&str, NameError)] = &[
            ("", NameError::Empty),
            (
                "a\nOK  cheater.pogo  ticks=900 finish=899",
                NameError::Character {
                    found: '\n',
                    index: 1,
                },
            ),
            (
                "\u{1b}[31mred",
                NameError::Character {
                    found: '\u{1b}',
                    index: 0,
                },
            ),
            (
                "abc\u{202e}fed",
                NameError::Character {
                    found: '\u{202e}',
                    index: 3,
                },
            ),
            (
                "zero\u{200b}width",
                NameError::Character {
                    found: '\u{200b}',
                    index: 4,
                },
            ),
            (
                "tab\there",
                NameError::Character {
                    found: '\t',
                    index: 3,
                },
            ),
            (
                "nbsp\u{a0}x",
                NameError::Character {
                    found: '\u{a0}',
                    index: 4,
                },
            ),
            (
                "del\u{7f}",
                NameError::Character {
                    found: '\u{7f}',
                    index: 3,
                },
            ),
            (
                "c1\u{85}",
                NameError::Character {
                    found: '\u{85}',
                    index: 2,
                },
            ),
            (
                "smile😀",
                NameError::Character {
                    found: '😀',
                    index: 5,
                },
            ),
            (
                "<script>",
                NameError::Character {
                    found: '<',
                    index: 0,
                },
            ),
            (" lead", NameError::Spacing),
            ("trail ", NameError::Spacing),
            ("two  spaces", NameError::Spacing),
        ];
        for (name, expected) in cases {
            assert_eq!(check_player_name(name), Err(*expected), "{name:?}");
        }
        let long = NameError::TooLong {
            max_chars: 32,
            max_bytes: 64,
        };
        assert_eq!(check_player_name(&"x".repeat(33)), Err(long));
        // 32 characters, but 96 bytes: over the format's 64-byte field.
        assert_eq!(check_player_name(&"山".repeat(32)), Err(long));
        assert_eq!(check_player_name(&"山".repeat(21)), Ok(()));
    }
}
