//! Scripted input files for `pogo simulate --inputs FILE`.
//!
//! Text, one change of input per line, holding until the player's next line:
//!
//! ```text
//! # comment (anywhere on a line)
//! 0      0    0            # from tick 0: stick centred
//! 120    127  0   trick    # from tick 120: full east, trick pressed
//! 2.5s   -64  30  dive,trick
//! player 1                 # player 1's section (player 0's is the default)
//! 1s     0    -127
//! ```
//!
//! `TIME` is a tick number (`120`) or seconds with an `s` suffix (`2.5s`, exact decimal, at
//! most 9 decimals: nanoseconds). Steer values are −127…127 (x east, z south); buttons a
//! comma-separated list of `trick`, `dive`. Times within a player's section must not
//! decrease. Lines become timestamped events for the frame driver: a tick number `k` is the
//! start of tick k, so the change applies from tick k at every render frame rate.

use std::fmt;

use pogo_core::driver::NS_PER_SECOND;
use pogo_core::{Buttons, Input, PLAYERS_MAX, STEER_MAX};

/// Largest input file (bytes).
pub const INPUT_SCRIPT_BYTES_MAX: usize = 16 << 20;
/// Most input lines in one file.
pub const INPUT_LINES_MAX: usize = 1 << 20;

/// When a line applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum At {
    /// From the start of this tick.
    Tick(u32),
    /// From this many nanoseconds after the start of the run.
    Nanos(u64),
}

impl At {
    /// Nanoseconds since the start of the run: a tick's start is `k·10⁹ / rate`, rounded down,
    /// which the frame driver files under tick k exactly (`ns·rate ≤ k·10⁹`).
    pub fn nanos(self, tick_rate: u32) -> u64 {
        match self {
            At::Nanos(ns) => ns,
            At::Tick(k) => {
                (u128::from(k) * u128::from(NS_PER_SECOND) / u128::from(tick_rate.max(1))) as u64
            }
        }
    }
}

/// A parsed input file: each player's lines, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InputScript {
    /// Per player (index 0 first), each line's time and the input from then on, in file
    /// order (times never decrease within a player).
    pub players: Vec<Vec<(At, Input)>>,
}

impl InputScript {
    /// Number of players the script mentions (at least 1).
    pub fn player_count(&self) -> usize {
        self.players.len().max(1)
    }

    /// Every line as a timestamped event `(ns, player, input)`, in time order (ties: player
    /// order, then file order): what a game would have pushed into the frame driver.
    pub fn events(&self, tick_rate: u32) -> Vec<(u64, usize, Input)> {
        let mut events: Vec<(u64, usize, usize, Input)> = self
            .players
            .iter()
            .enumerate()
            .flat_map(|(p, lines)| {
                lines
                    .iter()
                    .enumerate()
                    .map(move |(i, (at, input))| (at.nanos(tick_rate), p, i, *input))
            })
            .collect();
        events.sort_by_key(|&(ns, p, i, _)| (ns, p, i));
        events
            .into_iter()
            .map(|(ns, p, _, input)| (ns, p, input))
            .collect()
    }
}

/// What is wrong with an input file, and on which line (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputScriptError {
    /// The line at fault, 1-based (0: the file as a whole, e.g. too large).
    pub line: usize,
    /// What is wrong, in words.
    pub problem: String,
}

impl fmt::Display for InputScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.problem)
    }
}

impl std::error::Error for InputScriptError {}

/// Parses an input file.
pub fn parse_input_script(text: &str) -> Result<InputScript, InputScriptError> {
    if text.len() > INPUT_SCRIPT_BYTES_MAX {
        return Err(InputScriptError {
            line: 0,
            problem: format!("larger than {INPUT_SCRIPT_BYTES_MAX} bytes"),
        });
    }
    let mut script = InputScript {
        players: vec![Vec::new()],
    };
    let mut player = 0usize;
    let mut lines = 0usize;
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let fail = |problem: String| InputScriptError { line, problem };
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let fields: Vec<&str> = content.split_whitespace().collect();
        if fields[0] == "player" {
            let [_, n] = fields[..] else {
                return Err(fail("expected `player N`".into()));
            };
            player = n
                .parse::<usize>()
                .ok()
                .filter(|&n| n < PLAYERS_MAX)
                .ok_or_else(|| {
                    fail(format!("player must be 0…{}, found {n:?}", PLAYERS_MAX - 1))
                })?;
            if script.players.len() <= player {
                script.players.resize(player + 1, Vec::new());
            }
            continue;
        }
        lines += 1;
        if lines > INPUT_LINES_MAX {
            return Err(fail(format!("more than {INPUT_LINES_MAX} input lines")));
        }
        if !(3..=4).contains(&fields.len()) {
            return Err(fail(format!(
                "expected `TIME steer_x steer_z [buttons]`, found {content:?}"
            )));
        }
        let at = parse_time(fields[0]).map_err(fail)?;
        let steer_x = parse_steer(fields[1]).map_err(fail)?;
        let steer_z = parse_steer(fields[2]).map_err(fail)?;
        let buttons = fields
            .get(3)
            .map_or(Ok(Buttons::NONE), |b| parse_buttons(b))
            .map_err(fail)?;
        let section = &mut script.players[player];
        if let Some((previous, _)) = section.last() {
            // Compare as instants at any rate: ticks and seconds cannot be ordered without the
            // rate, so a section must not mix them backwards at 60 Hz, the default rate.
            if at.nanos(60) < previous.nanos(60) {
                return Err(fail(format!(
                    "time {} is before the previous line's",
                    fields[0]
                )));
            }
        }
        section.push((
            at,
            Input {
                steer_x,
                steer_z,
                buttons,
            },
        ));
    }
    Ok(script)
}

fn parse_time(text: &str) -> Result<At, String> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some(seconds) = text.strip_suffix('s') {
        return match parse_seconds_ns(seconds) {
            Ok(ns) => Ok(At::Nanos(ns)),
            Err(TimeError::TooLarge) => Err(format!(
                "time {text} is too large: at most {}.{:09}s",
                u64::MAX / NS_PER_SECOND,
                u64::MAX % NS_PER_SECOND
            )),
            Err(TimeError::Malformed) => Err(format!(
                "{text:?} is not a time: seconds are a decimal with at most 9 places, e.g. 2.5s"
            )),
        };
    }
    match text.parse::<u32>() {
        Ok(tick) => Ok(At::Tick(tick)),
        Err(_) if digits(text) => Err(format!("tick {text} is too large: at most {}", u32::MAX)),
        Err(_) => Err(format!(
            "{text:?} is not a tick number or seconds like 2.5s"
        )),
    }
}

/// Why seconds are not a time.
enum TimeError {
    /// Not digits with an optional fraction of 1 to 9 digits (or negative).
    Malformed,
    /// Well formed, but beyond `u64` nanoseconds.
    TooLarge,
}

/// Exact decimal seconds to nanoseconds: malformed if not digits with an optional fraction
/// of at most 9 digits (so negative and finer than a nanosecond are malformed), too large
/// beyond `u64` nanoseconds.
fn parse_seconds_ns(text: &str) -> Result<u64, TimeError> {
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || (text.contains('.') && !digits(frac)) || frac.len() > 9 {
        return Err(TimeError::Malformed);
    }
    let frac_ns: u64 = if frac.is_empty() {
        0
    } else {
        format!("{frac:0<9}")
            .parse()
            .map_err(|_| TimeError::Malformed)?
    };
    whole
        .parse::<u64>()
        .ok()
        .and_then(|w| w.checked_mul(NS_PER_SECOND))
        .and_then(|ns| ns.checked_add(frac_ns))
        .ok_or(TimeError::TooLarge)
}

fn parse_steer(text: &str) -> Result<i8, String> {
    let max = i32::from(STEER_MAX);
    text.parse::<i32>()
        .ok()
        .filter(|v| (-max..=max).contains(v))
        .map(|v| v as i8)
        .ok_or_else(|| format!("steer must be −{max}…{max}, found {text:?}"))
}

fn parse_buttons(text: &str) -> Result<Buttons, String> {
    text.split(',')
        .try_fold(Buttons::NONE, |held, name| match name {
            "trick" => Ok(held.union(Buttons::TRICK)),
            "dive" => Ok(held.union(Buttons::DIVE)),
            other => Err(format!("unknown button {other:?}: buttons are trick, dive")),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_times_too_large_say_so() {
        let error = |text: &str| parse_input_script(text).unwrap_err().to_string();
        assert_eq!(
            error("0 0 0\n4294967296 0 0\n"),
            "line 2: tick 4294967296 is too large: at most 4294967295"
        );
        assert_eq!(
            error("18446744073.709551616s 0 0"),
            "line 1: time 18446744073.709551616s is too large: at most 18446744073.709551615s"
        );
        // The largest time that fits is no error; a bad steer after it is the steer's.
        assert!(parse_input_script("18446744073.709551615s 0 0").is_ok());
        assert!(error("4294967295 300 0").contains("steer"));
        for other in [
            "1.5 0 0",
            "-1 0 0",
            "1e3 0 0",
            "12x 0 0",
            "1.0000000001s 0 0",
        ] {
            assert!(!error(other).contains("too large"), "{other}");
        }
    }

    #[test]
    fn parses_ticks_seconds_buttons_and_players() {
        let script = parse_input_script(
            "# a run\n0 0 0\n120 127 0 trick # go\n2.5s -64 30 dive,trick\n\nplayer 1\n1s 0 -127\n",
        )
        .unwrap();
        assert_eq!(script.player_count(), 2);
        let p0 = &script.players[0];
        assert_eq!(
            p0[1],
            (
                At::Tick(120),
                Input {
                    steer_x: 127,
                    steer_z: 0,
                    buttons: Buttons::TRICK
                }
            )
        );
        assert_eq!(p0[2].0, At::Nanos(2_500_000_000));
        assert_eq!(p0[2].1.buttons, Buttons::ALL);
        assert_eq!(
            script.players[1],
            vec![(
                At::Nanos(NS_PER_SECOND),
                Input {
                    steer_x: 0,
                    steer_z: -127,
                    buttons: Buttons::NONE
                }
            )]
        );
    }

    #[test]
    fn events_are_in_time_order_and_ticks_map_to_their_start() {
        let script = parse_input_script("0 1 0\n60 2 0\nplayer 1\n0.5s 3 0\n").unwrap();
        let events = script.events(60);
        let times: Vec<(u64, usize)> = events.iter().map(|&(ns, p, _)| (ns, p)).collect();
        assert_eq!(times, [(0, 0), (500_000_000, 1), (1_000_000_000, 0)]);
        // Tick 1 at 60 Hz starts at 16 666 666.67 ns: rounded down, still filed under tick 1.
        assert_eq!(At::Tick(1).nanos(60), 16_666_666);
        assert!(u128::from(At::Tick(1).nanos(60)) * 60 <= 1_000_000_000);
        assert!(u128::from(At::Tick(1).nanos(60)) * 60 > 0);
    }

    #[test]
    fn rejects_bad_lines_with_their_number() {
        for (text, line, needle) in [
            ("0 0 0\n1 128 0\n", 2, "steer"),
            ("0 0\n", 1, "TIME"),
            ("0 0 0 jump\n", 1, "unknown button"),
            ("1.5 0 0\n", 1, "tick number"),
            ("0.0000000001s 0 0\n", 1, "9 places"),
            ("-1s 0 0\n", 1, "not a time"),
            ("10 0 0\n5 0 0\n", 2, "before"),
            ("player 99\n", 1, "player must be"),
            ("player\n", 1, "player N"),
        ] {
            let err = parse_input_script(text).unwrap_err();
            assert_eq!(err.line, line, "{text:?}: {err}");
            assert!(err.problem.contains(needle), "{text:?}: {err}");
        }
    }
}
