//! Tuning: every number the rules use, with its default, its allowed range and its unit.
//!
//! Two layers:
//! - [`TuningSpec`] holds what a designer writes — seconds, degrees, m/s — one field per public
//!   key (the names used by tuning files and `--set key=value`). Values are set from decimal
//!   text, parsed exactly into fixed point, and range-checked per key.
//! - [`Tuning`] is a validated spec plus the values the tick needs, derived once when it is
//!   built: durations in whole ticks (`round(seconds · tick_rate)`, at least 1), angles as
//!   cosine/sine thresholds (via `cordic`, on angles validated to 0…90°), the tick length.
//!   Nothing per tick converts a unit or calls a trigonometric function.
//!
//! The key table below is the single source of truth: the spec's fields, defaults, ranges,
//! units, parsing, listing and the content hash all come from it.

use alloc::string::{String, ToString};
use core::fmt;

use crate::fx::{Fx, ParseFxError};
use crate::tick::Ticks;

/// How a key's value is typed: a decimal (`Fx`) or a whole number (`u32`).
trait KeyValue: Copy {
    const INTEGER: bool;
    fn to_fx(self) -> Fx;
    /// Only called with values already checked to be whole and within the key's range.
    fn from_fx(value: Fx) -> Self;
}

impl KeyValue for Fx {
    const INTEGER: bool = false;
    fn to_fx(self) -> Fx {
        self
    }
    fn from_fx(value: Fx) -> Fx {
        value
    }
}

impl KeyValue for u32 {
    const INTEGER: bool = true;
    fn to_fx(self) -> Fx {
        Fx::from_int(self.min(i32::MAX as u32) as i32)
    }
    fn from_fx(value: Fx) -> u32 {
        value.round_to_int().clamp(0, u32::MAX as i64) as u32
    }
}

/// One public tuning key: its name, range, unit and accessors.
#[derive(Clone, Copy)]
pub struct Key {
    /// The public name, as in tuning files and `--set`.
    pub name: &'static str,
    /// Unit of the value as written (`"s"`, `"deg"`, `"m/s"`, `""` for a ratio or count).
    pub unit: &'static str,
    /// Smallest allowed value, in `unit` (inclusive).
    pub min: Fx,
    /// Largest allowed value, in `unit` (inclusive).
    pub max: Fx,
    /// Whether only whole numbers are allowed.
    pub integer: bool,
    /// What the key does, one or two sentences (shown by `pogo tuning`).
    pub doc: &'static str,
    get: fn(&TuningSpec) -> Fx,
    set: fn(&mut TuningSpec, Fx),
}

impl Key {
    /// This key's value in `spec`.
    pub fn get(&self, spec: &TuningSpec) -> Fx {
        (self.get)(spec)
    }

    fn check(&self, value: Fx) -> Result<(), TuningError> {
        if self.integer && value.to_bits() & ((1 << Fx::FRAC_BITS) - 1) != 0 {
            return Err(TuningError::NotAnInteger {
                key: self.name,
                found: value,
            });
        }
        if value < self.min || value > self.max {
            return Err(TuningError::OutOfRange {
                key: self.name,
                min: self.min,
                max: self.max,
                found: value,
            });
        }
        Ok(())
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Key")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

macro_rules! tuning_keys {
    ($(
        $(#[doc = $doc:literal])+
        $name:ident: $ty:ty = $default:literal, $min:literal ..= $max:literal, $unit:literal;
    )*) => {
        /// The designer-facing tuning values, one field per public key. See [`TuningSpec::KEYS`]
        /// for each key's range. Build a [`Tuning`] from it to validate it and derive tick
        /// values.
        #[derive(Clone, PartialEq, Eq, Debug)]
        pub struct TuningSpec {
            $( $(#[doc = $doc])+ pub $name: $ty, )*
        }

        impl Default for TuningSpec {
            /// The default tuning: the values `pogo tuning` lists, each key's `default`.
            fn default() -> TuningSpec {
                TuningSpec { $( $name: <$ty as KeyValue>::from_fx(Fx::lit($default)), )* }
            }
        }

        impl TuningSpec {
            /// Every public key, in a fixed order (the order of the content hash).
            pub const KEYS: &'static [Key] = &[ $(
                Key {
                    name: stringify!($name),
                    unit: $unit,
                    min: Fx::lit($min),
                    max: Fx::lit($max),
                    integer: <$ty as KeyValue>::INTEGER,
                    doc: concat!($($doc),+),
                    get: |spec| KeyValue::to_fx(spec.$name),
                    set: |spec, value| spec.$name = KeyValue::from_fx(value),
                },
            )* ];
        }
    };
}

tuning_keys! {
    /// Simulation rate (Hz). Tick k starts at k / tick_rate seconds.
    tick_rate: u32 = "60", "10" ..= "480", "Hz";
    /// Downward acceleration (m/s², positive). 24 gives the default steady bounce a 3.32 m
    /// apex, 0.53 s after the launch.
    gravity: Fx = "24", "0.1" ..= "1000", "m/s²";
    /// Downward speed never exceeds it (m/s).
    terminal_speed: Fx = "30", "1" ..= "200", "m/s";
    /// Height of the upright capsule (m), from its lowest point (the tip) to its top.
    body_height: Fx = "1.6", "0.2" ..= "10", "m";
    /// Radius of the capsule (m).
    body_radius: Fx = "0.25", "0.05" ..= "2", "m";
    /// Time the pogo spends compressed on a surface, moving with it, before it launches (s).
    compression_time: Fx = "0.03", "0.001" ..= "1", "s";
    /// A contact higher than this above the tip is a body hit (m).
    tip_height: Fx = "0.4", "0.01" ..= "10", "m";
    /// A tip contact on a surface whose normal's y is below this is a ricochet.
    bounce_normal_y_min: Fx = "0.35", "0" ..= "1", "";
    /// Share of the approach speed along the normal reflected by a ricochet.
    ricochet_restitution: Fx = "0.5", "0" ..= "1", "";
    /// No bounce until this long after a launch (s), so one contact never counts twice.
    relaunch_cooldown: Fx = "0.12", "0.001" ..= "2", "s";
    /// A lost tip contact stays eligible for a bounce for this many more ticks.
    tip_grace_ticks: u32 = "2", "0" ..= "30", "ticks";
    /// A body hit approaching faster than this along the normal stuns (m/s).
    stun_speed: Fx = "4", "0" ..= "100", "m/s";
    /// How long a stun lasts (s).
    stun_time: Fx = "0.45", "0.001" ..= "10", "s";
    /// Weight of the surface normal in the launch direction.
    normal_weight: Fx = "1", "0" ..= "10", "";
    /// Weight of the pogo's (leaning) up axis in the launch direction.
    lean_weight: Fx = "1.4", "0" ..= "10", "";
    /// Weight of the tangential approach velocity (over the reference speed) in the direction.
    momentum_weight: Fx = "0.6", "0" ..= "10", "";
    /// Tangential speed that counts as one unit of momentum in the launch direction (m/s).
    momentum_reference_speed: Fx = "10", "0.1" ..= "100", "m/s";
    /// The launch direction is rotated back to at most this far from the normal (degrees).
    max_launch_angle: Fx = "75", "0" ..= "90", "deg";
    /// Launch speed before impact and combo terms (m/s).
    base_bounce_speed: Fx = "12", "0" ..= "100", "m/s";
    /// Share of the impact speed (approach along the normal) added to the launch speed.
    impact_transfer: Fx = "0.05", "0" ..= "0.95", "";
    /// Launch speed added per combo step (m/s).
    combo_bonus: Fx = "0.2", "0" ..= "10", "m/s";
    /// Combo steps beyond this add no speed.
    max_combo: u32 = "5", "0" ..= "1000", "";
    /// Lower clamp of the launch speed (m/s).
    min_launch_speed: Fx = "8", "0" ..= "100", "m/s";
    /// Upper clamp of the launch speed (m/s).
    max_launch_speed: Fx = "22", "0" ..= "100", "m/s";
    /// Share of the approach velocity's tangential part kept after the launch.
    tangential_keep: Fx = "0.6", "0" ..= "1", "";
    /// Cap on the launch velocity's length, before the surface velocity is added (m/s).
    max_total_speed: Fx = "26", "0" ..= "200", "m/s";
    /// Cap on the launch velocity's horizontal length, applied after the total cap (m/s).
    max_horizontal_speed: Fx = "10", "0" ..= "200", "m/s";
    /// Lean within this angle of the normal triggers the landing assist (degrees).
    assist_angle: Fx = "12", "0" ..= "90", "deg";
    /// How far the landing assist bends the launch direction toward the normal (0…1).
    assist_strength: Fx = "0.6", "0" ..= "1", "";
    /// A landing whose lean is within this angle of the normal is perfect (degrees).
    perfect_angle: Fx = "6", "0" ..= "90", "deg";
    /// ...but only after a hop of at least this horizontal distance from the last launch (m).
    perfect_min_hop: Fx = "3", "0" ..= "1000", "m";
    /// Full steering acceleration in the air (m/s²).
    air_accel: Fx = "18", "0" ..= "200", "m/s²";
    /// Share of the steering acceleration left at the fade speed and above.
    air_control_min: Fx = "0.35", "0" ..= "1", "";
    /// Horizontal speed at which steering has faded to air_control_min (m/s).
    air_control_fade_speed: Fx = "14", "0.1" ..= "200", "m/s";
    /// Largest lean of the pogo's axis from vertical (degrees).
    max_lean_angle: Fx = "25", "0" ..= "90", "deg";
    /// How fast the lean follows the stick (degrees per second).
    lean_rate: Fx = "120", "0" ..= "3600", "deg/s";
    /// How long a trick takes; landing before it completes stuns (s).
    trick_time: Fx = "0.5", "0.001" ..= "10", "s";
    /// Gravity multiplier while diving (dive button held, falling).
    dive_gravity_scale: Fx = "1.8", "0" ..= "10", "";
    /// Gravity multiplier while falling (vertical speed below zero).
    fall_gravity_scale: Fx = "1", "0" ..= "10", "";
    /// Below this height the pogo respawns (m).
    kill_height: Fx = "-30", "-100000" ..= "100000", "m";
}

impl TuningSpec {
    /// The key called `name`.
    pub fn key(name: &str) -> Result<&'static Key, TuningError> {
        TuningSpec::KEYS
            .iter()
            .find(|k| k.name == name)
            .ok_or_else(|| TuningError::UnknownKey {
                key: name.to_string(),
            })
    }

    /// Sets `name` from decimal text (`"0.35"`, `"24"`, `"1e-1"`), parsed exactly. Rejects
    /// unknown keys, non-numbers, fractions for whole-number keys and out-of-range values; on
    /// error the spec is unchanged.
    pub fn set(&mut self, name: &str, text: &str) -> Result<(), TuningError> {
        let key = TuningSpec::key(name)?;
        let value = Fx::parse_decimal(text).map_err(|reason| TuningError::NotANumber {
            key: key.name,
            text: text.to_string(),
            reason,
        })?;
        key.check(value)?;
        (key.set)(self, value);
        Ok(())
    }

    /// Applies one `key=value` override, as given to `--set`.
    pub fn apply_override(&mut self, assignment: &str) -> Result<(), TuningError> {
        let (name, text) =
            assignment
                .split_once('=')
                .ok_or_else(|| TuningError::NotAnAssignment {
                    text: assignment.to_string(),
                })?;
        self.set(name.trim(), text.trim())
    }

    /// A stable 64-bit content hash: xxh3-64 over a version tag, then for every key in
    /// [`KEYS`](TuningSpec::KEYS) order its name, a zero byte and its value's 64 raw bits
    /// (32.32 fixed point, whole-number keys converted) little-endian. Renaming, adding or
    /// changing any key changes it; nothing platform-dependent enters it.
    pub fn content_hash(&self) -> u64 {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        hasher.update(b"pogo-tuning/1\0");
        for key in TuningSpec::KEYS {
            hasher.update(key.name.as_bytes());
            hasher.update(&[0]);
            hasher.update(&key.get(self).to_bits().to_le_bytes());
        }
        hasher.digest()
    }

    /// Checks every key's range and the relations between keys.
    pub fn validate(&self) -> Result<(), TuningError> {
        for key in TuningSpec::KEYS {
            key.check(key.get(self))?;
        }
        let ordered = |lower: &'static str, a: Fx, upper: &'static str, b: Fx, why| {
            if a <= b {
                Ok(())
            } else {
                Err(TuningError::Inconsistent {
                    key: lower,
                    other: upper,
                    why,
                })
            }
        };
        ordered(
            "min_launch_speed",
            self.min_launch_speed,
            "max_launch_speed",
            self.max_launch_speed,
            "the launch speed clamp needs min ≤ max",
        )?;
        ordered(
            "tip_height",
            self.tip_height,
            "body_height",
            self.body_height,
            "the tip zone is part of the body",
        )?;
        ordered(
            "body_radius",
            self.body_radius,
            "body_height",
            self.body_height / Fx::from_int(2),
            "an upright capsule is at least twice as tall as its radius",
        )?;
        Ok(())
    }
}

/// A validated [`TuningSpec`] and the per-tick values derived from it once.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Tuning {
    spec: TuningSpec,
    derived: Derived,
    hash: u64,
}

/// Values derived from the spec when a [`Tuning`] is built.
#[derive(Clone, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub struct Derived {
    /// One tick (s): 1 / tick_rate, rounded toward zero.
    pub dt: Fx,
    /// dt² / 2 (s²), for the exact constant-acceleration position update.
    pub half_dt_squared: Fx,
    /// `compression_time` in ticks ([`seconds_to_ticks`]): how long a landing compresses
    /// before it launches.
    pub compression_ticks: Ticks,
    /// `relaunch_cooldown` in ticks: after a launch, how long a tip contact cannot bounce.
    pub relaunch_cooldown_ticks: Ticks,
    /// `stun_time` in ticks: how long a stun takes steering and lean away.
    pub stun_ticks: Ticks,
    /// `trick_time` in ticks: how long a trick takes to complete in the air.
    pub trick_ticks: Ticks,
    /// cos of `max_launch_angle`: the launch direction's smallest dot product with up.
    pub launch_cone_cos: Fx,
    /// sin of `max_launch_angle`: the launch direction's largest horizontal length.
    pub launch_cone_sin: Fx,
    /// cos of `assist_angle`: lean·normal at or above it triggers the assist.
    pub assist_cos: Fx,
    /// cos of `perfect_angle`: lean·normal at or above it is a straight landing.
    pub perfect_cos: Fx,
    /// sin of `max_lean_angle`: the largest horizontal length of the pogo's up axis.
    pub lean_max_sin: Fx,
    /// cos of the angle the lean may turn in one tick, `lean_rate · dt` degrees (at most 90°:
    /// a faster rate is taken as 90° per tick).
    pub lean_step_cos: Fx,
    /// sin of the same angle.
    pub lean_step_sin: Fx,
    /// `perfect_min_hop`² (m²), to compare with squared horizontal distances.
    pub perfect_min_hop_squared: Fx,
    /// `air_control_fade_speed`² (m²/s²): where the steering fade ends.
    pub air_control_fade_speed_squared: Fx,
    /// `(1 − air_control_min) / air_control_fade_speed²` (s²/m²): the fade per m²/s² of
    /// squared horizontal speed.
    pub air_control_fade_per_speed_squared: Fx,
}

impl Tuning {
    /// Validates `spec` and derives the per-tick values.
    pub fn new(spec: TuningSpec) -> Result<Tuning, TuningError> {
        spec.validate()?;
        let rate = spec.tick_rate;
        let dt = Fx::from_ratio(1, i64::from(rate));
        // At least 0.01 (the key's range starts at 0.1 m/s).
        let fade_squared = spec.air_control_fade_speed * spec.air_control_fade_speed;
        let derived = Derived {
            dt,
            half_dt_squared: dt * dt / Fx::from_int(2),
            compression_ticks: seconds_to_ticks(spec.compression_time, rate),
            relaunch_cooldown_ticks: seconds_to_ticks(spec.relaunch_cooldown, rate),
            stun_ticks: seconds_to_ticks(spec.stun_time, rate),
            trick_ticks: seconds_to_ticks(spec.trick_time, rate),
            launch_cone_cos: sin_cos_degrees(spec.max_launch_angle).1,
            launch_cone_sin: sin_cos_degrees(spec.max_launch_angle).0,
            assist_cos: sin_cos_degrees(spec.assist_angle).1,
            perfect_cos: sin_cos_degrees(spec.perfect_angle).1,
            lean_max_sin: sin_cos_degrees(spec.max_lean_angle).0,
            lean_step_cos: sin_cos_degrees(lean_step_degrees(spec.lean_rate, rate)).1,
            lean_step_sin: sin_cos_degrees(lean_step_degrees(spec.lean_rate, rate)).0,
            perfect_min_hop_squared: spec.perfect_min_hop * spec.perfect_min_hop,
            air_control_fade_speed_squared: fade_squared,
            air_control_fade_per_speed_squared: ratio_rounded_up(
                Fx::ONE - spec.air_control_min,
                fade_squared,
            ),
        };
        let hash = spec.content_hash();
        Ok(Tuning {
            spec,
            derived,
            hash,
        })
    }

    /// The validated values, one per [`Key`], as written (seconds, degrees, m/s…).
    pub fn spec(&self) -> &TuningSpec {
        &self.spec
    }

    /// The per-tick values derived from the spec at this tuning's tick rate.
    pub fn derived(&self) -> &Derived {
        &self.derived
    }

    /// The spec's [content hash](TuningSpec::content_hash).
    pub fn content_hash(&self) -> u64 {
        self.hash
    }
}

impl Default for Tuning {
    fn default() -> Tuning {
        Tuning::new(TuningSpec::default()).expect("the default tuning is valid (tested)")
    }
}

/// `round(seconds · tick_rate)` ticks, halves rounded up, at least 1.
///
/// `seconds` came from decimal text, rounded to the nearest 2⁻³² s; multiplied by the rate,
/// that error can put a decimal half such as 0.025 s · 60 = 1.5 a hair below 1.5. Adding one
/// unit in the last place per tick of rate before rounding (more than the error, far less than
/// anything a designer writes) makes decimal halves round up, as written.
pub fn seconds_to_ticks(seconds: Fx, tick_rate: u32) -> Ticks {
    let rate = i64::from(tick_rate);
    let ticks = (seconds.mul_int(rate) + Fx::DELTA.mul_int(rate)).round_to_int();
    Ticks(ticks.clamp(1, i64::from(u32::MAX)) as u32)
}

/// `num / den` (both ≥ 0, `den` > 0) rounded up to the scalar's resolution, so that
/// `den · result ≥ num` holds after the product's own rounding (toward zero).
fn ratio_rounded_up(num: Fx, den: Fx) -> Fx {
    let num = i128::from(num.to_bits()) << Fx::FRAC_BITS;
    let den = i128::from(den.to_bits()).max(1);
    let bits = (num + den - 1) / den;
    Fx::from_bits(i64::try_from(bits).unwrap_or(i64::MAX))
}

/// The lean's turn per tick (degrees): `lean_rate / tick_rate`, at most 90°.
fn lean_step_degrees(lean_rate: Fx, tick_rate: u32) -> Fx {
    // tick_rate is validated to 10…480, so the conversion is exact.
    let rate = Fx::from_int(i32::try_from(tick_rate).unwrap_or(i32::MAX));
    (lean_rate / rate).min(Fx::from_int(90))
}

fn degrees_to_radians(degrees: Fx) -> Fx {
    degrees * Fx::PI / Fx::from_int(180)
}

/// (sin, cos) of an angle in degrees. Only for angles validated to 0…90°: `cordic` is exact
/// enough there (about 2⁻³⁰) and loops or misbehaves far outside its range.
fn sin_cos_degrees(degrees: Fx) -> (Fx, Fx) {
    debug_assert!(degrees >= Fx::ZERO && degrees <= Fx::from_int(90));
    let degrees = degrees.clamp(Fx::ZERO, Fx::from_int(90));
    let (sin, cos) = cordic::sin_cos(degrees_to_radians(degrees).to_fixed());
    // cordic can land a hair outside [0, 1] at the ends of the range.
    (
        Fx::from_fixed(sin).clamp(Fx::ZERO, Fx::ONE),
        Fx::from_fixed(cos).clamp(Fx::ZERO, Fx::ONE),
    )
}

/// Why a tuning was rejected. Every variant names the key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TuningError {
    /// No tuning key has this name.
    UnknownKey {
        /// The name given.
        key: String,
    },
    /// The text is not a decimal, or is one outside the fixed-point range (`reason` says which).
    NotANumber {
        /// The key being set.
        key: &'static str,
        /// The value's text as given.
        text: String,
        /// Why it did not parse.
        reason: ParseFxError,
    },
    /// A whole-number key ([`Key::integer`]) was given a fraction.
    NotAnInteger {
        /// The key being set.
        key: &'static str,
        /// The value given.
        found: Fx,
    },
    /// A value outside the key's range ([`Key::min`]..=[`Key::max`]).
    OutOfRange {
        /// The key being set.
        key: &'static str,
        /// The smallest value allowed, in the key's unit.
        min: Fx,
        /// The largest value allowed, in the key's unit.
        max: Fx,
        /// The value given, in the key's unit.
        found: Fx,
    },
    /// Two keys that bound each other disagree: `key` exceeds what `other` allows.
    Inconsistent {
        /// The key that must be the smaller (`min_launch_speed`, `tip_height`, `body_radius`).
        key: &'static str,
        /// The key that bounds it (`max_launch_speed`, `body_height`, `body_height` halved).
        other: &'static str,
        /// Why the order matters, in words.
        why: &'static str,
    },
    /// An override ([`TuningSpec::apply_override`]) without `=`.
    NotAnAssignment {
        /// The text given.
        text: String,
    },
}

impl fmt::Display for TuningError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TuningError::UnknownKey { key } => write!(f, "unknown tuning key `{key}`"),
            TuningError::NotANumber { key, text, reason } => {
                write!(f, "`{key}`: {text:?} is {reason}")
            }
            TuningError::NotAnInteger { key, found } => {
                write!(f, "`{key}` must be a whole number, found {found}")
            }
            TuningError::OutOfRange {
                key,
                min,
                max,
                found,
            } => {
                write!(f, "`{key}` must be within {min}..={max}, found {found}")
            }
            TuningError::Inconsistent { key, other, why } => {
                write!(f, "`{key}` must not exceed `{other}`: {why}")
            }
            TuningError::NotAnAssignment { text } => {
                write!(f, "expected key=value, found {text:?}")
            }
        }
    }
}

impl core::error::Error for TuningError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::fx;

    /// Every default, spelled out once more: a changed default fails here.
    #[test]
    fn defaults_are_the_spec_table() {
        let s = TuningSpec::default();
        let expected: &[(&str, &str)] = &[
            ("tick_rate", "60"),
            ("gravity", "24"),
            ("terminal_speed", "30"),
            ("compression_time", "0.03"),
            ("tip_height", "0.4"),
            ("bounce_normal_y_min", "0.35"),
            ("ricochet_restitution", "0.5"),
            ("relaunch_cooldown", "0.12"),
            ("tip_grace_ticks", "2"),
            ("stun_speed", "4"),
            ("stun_time", "0.45"),
            ("normal_weight", "1.0"),
            ("lean_weight", "1.4"),
            ("momentum_weight", "0.6"),
            ("momentum_reference_speed", "10"),
            ("max_launch_angle", "75"),
            ("base_bounce_speed", "12"),
            ("impact_transfer", "0.05"),
            ("combo_bonus", "0.2"),
            ("max_combo", "5"),
            ("min_launch_speed", "8"),
            ("max_launch_speed", "22"),
            ("tangential_keep", "0.6"),
            ("max_total_speed", "26"),
            ("max_horizontal_speed", "10"),
            ("assist_angle", "12"),
            ("assist_strength", "0.6"),
            ("perfect_angle", "6"),
            ("perfect_min_hop", "3"),
            ("air_accel", "18"),
            ("air_control_min", "0.35"),
            ("air_control_fade_speed", "14"),
            ("max_lean_angle", "25"),
            ("lean_rate", "120"),
            ("trick_time", "0.5"),
            ("dive_gravity_scale", "1.8"),
            ("fall_gravity_scale", "1.0"),
            ("kill_height", "-30"),
        ];
        for (name, value) in expected {
            let key = TuningSpec::key(name).unwrap();
            assert_eq!(key.get(&s), fx(value), "{name}");
        }
        // Keys beyond the table are the capsule's dimensions, which the table leaves open.
        let extra: alloc::vec::Vec<_> = TuningSpec::KEYS
            .iter()
            .map(|k| k.name)
            .filter(|n| !expected.iter().any(|(e, _)| e == n))
            .collect();
        assert_eq!(extra, ["body_height", "body_radius"]);
        assert_eq!(s.body_height, fx("1.6"));
        assert_eq!(s.body_radius, fx("0.25"));
    }

    #[test]
    fn defaults_are_valid_and_within_every_range() {
        TuningSpec::default().validate().unwrap();
        for key in TuningSpec::KEYS {
            assert!(key.min <= key.max, "{}", key.name);
        }
    }

    #[test]
    fn durations_become_rounded_ticks_at_least_one() {
        let t = Tuning::default();
        let d = t.derived();
        assert_eq!(d.compression_ticks, Ticks(2)); // 0.03·60 = 1.8
        assert_eq!(d.relaunch_cooldown_ticks, Ticks(7)); // 7.2
        assert_eq!(d.stun_ticks, Ticks(27)); // 27
        assert_eq!(d.trick_ticks, Ticks(30));
        assert_eq!(seconds_to_ticks(fx("0.001"), 60), Ticks(1), "never zero");
        assert_eq!(seconds_to_ticks(fx("0.025"), 60), Ticks(2), "1.5 rounds up");
        assert_eq!(seconds_to_ticks(fx("0.12"), 120), Ticks(14)); // 14.4
        assert_eq!(seconds_to_ticks(fx("10"), 480), Ticks(4800));
        let mut spec = TuningSpec::default();
        spec.set("tick_rate", "120").unwrap();
        let t = Tuning::new(spec).unwrap();
        assert_eq!(t.derived().compression_ticks, Ticks(4)); // 3.6
        assert_eq!(t.derived().dt, Fx::from_ratio(1, 120));
    }

    #[test]
    fn angles_become_cosine_and_sine_thresholds() {
        let d = Tuning::default().derived().clone();
        let close = |a: Fx, b: &str| (a - fx(b)).abs() < fx("0.000000005");
        assert!(
            close(d.launch_cone_cos, "0.2588190451"),
            "cos 75° = {}",
            d.launch_cone_cos
        );
        assert!(
            close(d.launch_cone_sin, "0.9659258263"),
            "sin 75° = {}",
            d.launch_cone_sin
        );
        assert!(
            close(d.assist_cos, "0.9781476007"),
            "cos 12° = {}",
            d.assist_cos
        );
        assert!(
            close(d.perfect_cos, "0.9945218954"),
            "cos 6° = {}",
            d.perfect_cos
        );
        assert!(
            close(d.lean_max_sin, "0.4226182617"),
            "sin 25° = {}",
            d.lean_max_sin
        );
        assert!(
            close(d.lean_step_cos, "0.9993908270") && close(d.lean_step_sin, "0.0348994967"),
            "cos, sin 2° = {}, {}",
            d.lean_step_cos,
            d.lean_step_sin
        );
        assert_eq!(d.perfect_min_hop_squared, fx("9"));
        let spec = TuningSpec {
            max_launch_angle: Fx::ZERO,
            assist_angle: Fx::from_int(90),
            ..TuningSpec::default()
        };
        let d = Tuning::new(spec).unwrap().derived().clone();
        assert_eq!((d.launch_cone_cos, d.launch_cone_sin), (Fx::ONE, Fx::ZERO));
        assert!(d.assist_cos < fx("0.000000005"));
    }

    #[test]
    fn set_parses_exactly_and_rejects_with_the_key_and_range() {
        let mut s = TuningSpec::default();
        s.set("impact_transfer", "0.35").unwrap();
        assert_eq!(s.impact_transfer, Fx::lit("0.35"));
        s.apply_override(" gravity = 9.81 ").unwrap();
        assert_eq!(s.gravity, Fx::lit("9.81"));
        let before = s.clone();

        let err = s.set("gravty", "9").unwrap_err();
        assert_eq!(
            err,
            TuningError::UnknownKey {
                key: "gravty".into()
            }
        );
        assert!(err.to_string().contains("gravty"));

        let err = s.set("impact_transfer", "1.5").unwrap_err();
        assert_eq!(
            err,
            TuningError::OutOfRange {
                key: "impact_transfer",
                min: Fx::ZERO,
                max: fx("0.95"),
                found: fx("1.5")
            }
        );
        assert_eq!(
            err.to_string(),
            "`impact_transfer` must be within 0..=0.95, found 1.5"
        );

        let err = s.set("max_launch_angle", "90.0001").unwrap_err();
        assert!(matches!(
            err,
            TuningError::OutOfRange {
                key: "max_launch_angle",
                ..
            }
        ));
        assert!(matches!(
            s.set("assist_angle", "-1"),
            Err(TuningError::OutOfRange { .. })
        ));
        assert!(matches!(
            s.set("max_combo", "2.5"),
            Err(TuningError::NotAnInteger { .. })
        ));
        assert!(matches!(
            s.set("gravity", "fast"),
            Err(TuningError::NotANumber { .. })
        ));
        assert!(matches!(
            s.set("gravity", "1e99"),
            Err(TuningError::NotANumber { .. })
        ));
        assert!(matches!(
            s.apply_override("gravity"),
            Err(TuningError::NotAnAssignment { .. })
        ));
        assert_eq!(s, before, "failed sets change nothing");
    }

    #[test]
    fn relations_between_keys_are_checked() {
        let mut s = TuningSpec::default();
        s.set("min_launch_speed", "23").unwrap();
        let err = Tuning::new(s).unwrap_err();
        assert!(matches!(
            err,
            TuningError::Inconsistent {
                key: "min_launch_speed",
                ..
            }
        ));
        let mut s = TuningSpec::default();
        s.set("tip_height", "2").unwrap();
        assert!(matches!(
            Tuning::new(s),
            Err(TuningError::Inconsistent {
                key: "tip_height",
                ..
            })
        ));
        // A field set directly (bypassing `set`) out of range is caught when building.
        let s = TuningSpec {
            bounce_normal_y_min: fx("1.5"),
            ..TuningSpec::default()
        };
        assert!(matches!(
            Tuning::new(s),
            Err(TuningError::OutOfRange { .. })
        ));
    }

    #[test]
    fn content_hash_is_pinned_and_sensitive_to_every_key() {
        let default = TuningSpec::default();
        // Pinned: any change to a default, a key name or the encoding changes this value.
        assert_eq!(
            default.content_hash(),
            0xae14_a963_4f82_a9fa,
            "default tuning hash changed"
        );
        assert_eq!(Tuning::default().content_hash(), default.content_hash());
        for key in TuningSpec::KEYS {
            let mut changed = default.clone();
            let bumped = if key.get(&default) < key.max {
                key.max
            } else {
                key.min
            };
            (key.set)(&mut changed, bumped);
            assert_ne!(
                changed.content_hash(),
                default.content_hash(),
                "{}",
                key.name
            );
        }
    }
}
