//! Tuning files: a JSON object mapping public tuning keys to numbers.
//!
//! ```json
//! {"gravity": 24, "impact_transfer": 0.35}
//! ```
//!
//! Keys are the names of [`TuningSpec::KEYS`]; keys a file does not mention keep their
//! defaults (or, with [`apply_tuning_json`], whatever the spec held before).
//!
//! ```
//! use pogo_core::{Fx, TuningSpec};
//! use pogo_replay::tuning_file::{parse_tuning_json, tuning_to_json};
//!
//! let spec = parse_tuning_json(r#"{"gravity": 24, "impact_transfer": 0.35}"#)?;
//! assert_eq!(spec.impact_transfer, Fx::parse_decimal("0.35").unwrap());
//! assert_eq!(spec.stun_speed, TuningSpec::default().stun_speed);
//! // Writing and reading back gives the same spec, bit for bit.
//! assert_eq!(parse_tuning_json(&tuning_to_json(&spec))?, spec);
//! # Ok::<(), pogo_replay::TuningFileError>(())
//! ```
//!
//! # Exactness
//!
//! Numbers are never read through a float. The JSON is parsed with serde_json into
//! [`RawValue`]s, which keep each number's text exactly as written (`0.1`, `1e-1`, `2.50`), and
//! that text goes to [`TuningSpec::set`], which parses it straight into fixed point (rounding
//! once, to the nearest 32.32 value, ties to even) and range-checks it. `0.1` in a file is
//! therefore bit for bit `Fx::parse_decimal("0.1")`, on every machine.
//!
//! # Strictness
//!
//! A tuning file is input from a user, so everything doubtful is an error that names the key
//! and where it is ([`TuningFileError`]): invalid JSON, a top level that is not an object, an
//! unknown key, a key given twice (plain serde_json maps would silently keep the last one), a
//! value that is not a JSON number (`"24"`, `true`, `null`, `[24]`), a fraction for a
//! whole-number key, a value outside the key's range. The input size is bounded
//! ([`TUNING_FILE_BYTES_MAX`]) before any parsing.
//!
//! # Writing
//!
//! [`tuning_to_json`] writes every key with its exact value (fixed point's decimal output is
//! the shortest text that parses back to the same bits), so
//! `parse_tuning_json(&tuning_to_json(&spec)) == Ok(spec)` for every valid spec.

use std::collections::BTreeMap;
use std::fmt;
use std::fmt::Write as _;

use pogo_core::{TuningError, TuningSpec};
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

/// The largest tuning file accepted, in bytes (1 MiB). A complete tuning file with every key
/// is about 1.5 KiB; the bound only keeps hostile input from costing memory or time.
pub const TUNING_FILE_BYTES_MAX: usize = 1 << 20;

/// Where something is in a tuning file: 1-based line, and 1-based column counted in
/// characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, in characters (not bytes) from the start of the line.
    pub column: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {} column {}", self.line, self.column)
    }
}

/// The kind of a JSON value, for error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JsonKind {
    /// `{...}`
    Object,
    /// `[...]`
    Array,
    /// `"..."`
    String,
    /// `true` or `false`
    Bool,
    /// `null`
    Null,
    /// A number.
    Number,
}

impl JsonKind {
    /// The kind of a syntactically valid JSON value, from its first character.
    pub(crate) fn of(raw: &RawValue) -> JsonKind {
        match raw.get().trim_start().as_bytes().first() {
            Some(b'{') => JsonKind::Object,
            Some(b'[') => JsonKind::Array,
            Some(b'"') => JsonKind::String,
            Some(b't' | b'f') => JsonKind::Bool,
            Some(b'n') => JsonKind::Null,
            _ => JsonKind::Number,
        }
    }
}

impl fmt::Display for JsonKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            JsonKind::Object => "an object",
            JsonKind::Array => "an array",
            JsonKind::String => "a string",
            JsonKind::Bool => "a boolean",
            JsonKind::Null => "null",
            JsonKind::Number => "a number",
        })
    }
}

/// Why a tuning file was rejected. Every variant about one entry names its key and where its
/// value starts.
#[derive(Debug)]
#[non_exhaustive]
pub enum TuningFileError {
    /// The input is larger than `limit` bytes ([`TUNING_FILE_BYTES_MAX`]); nothing was parsed.
    TooLarge {
        /// The bound that was exceeded, in bytes.
        limit: usize,
    },
    /// Not valid JSON. serde_json's error carries the line and column.
    Syntax(serde_json::Error),
    /// Valid JSON, but the top level is not an object.
    NotAnObject {
        /// What the top level is instead.
        found: JsonKind,
    },
    /// The same key appears twice.
    DuplicateKey {
        /// The key (after JSON unescaping).
        key: String,
        /// Where the second occurrence's value starts.
        at: Location,
        /// Where the first occurrence's value starts.
        first: Location,
    },
    /// A value that is not a JSON number.
    NotANumber {
        /// The key whose value it is.
        key: String,
        /// What the value is instead.
        found: JsonKind,
        /// Where the value starts.
        at: Location,
    },
    /// The tuning rejected an entry: an unknown key ([`TuningError::UnknownKey`]), a fraction
    /// for a whole-number key, a value out of the key's range (the message names the range).
    Entry {
        /// Why, naming the key.
        error: TuningError,
        /// Where the entry's value starts.
        at: Location,
    },
    /// Every entry is fine, but the resulting tuning breaks a relation between keys (e.g.
    /// `min_launch_speed` ≤ `max_launch_speed`). Only [`parse_tuning_json`] checks this.
    Inconsistent(TuningError),
}

impl fmt::Display for TuningFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TuningFileError::TooLarge { limit } => {
                write!(f, "larger than the {limit}-byte limit for a tuning file")
            }
            TuningFileError::Syntax(error) => write!(f, "invalid JSON: {error}"),
            TuningFileError::NotAnObject { found } => write!(
                f,
                "a tuning file must be a JSON object mapping tuning keys to numbers, found {found}"
            ),
            TuningFileError::DuplicateKey { key, at, first } => {
                write!(
                    f,
                    "duplicate tuning key `{key}` at {at} (first given at {first})"
                )
            }
            TuningFileError::NotANumber { key, found, at } => {
                write!(f, "`{key}` must be a number, found {found} at {at}")
            }
            TuningFileError::Entry { error, at } => write!(f, "{error} at {at}"),
            TuningFileError::Inconsistent(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for TuningFileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TuningFileError::Syntax(error) => Some(error),
            TuningFileError::Entry { error, .. } | TuningFileError::Inconsistent(error) => {
                Some(error)
            }
            _ => None,
        }
    }
}

impl TuningFileError {
    /// The tuning key this error is about, if it is about one.
    pub fn key(&self) -> Option<&str> {
        match self {
            TuningFileError::DuplicateKey { key, .. } | TuningFileError::NotANumber { key, .. } => {
                Some(key)
            }
            TuningFileError::Entry { error, .. } | TuningFileError::Inconsistent(error) => {
                match error {
                    TuningError::UnknownKey { key } => Some(key),
                    TuningError::NotANumber { key, .. }
                    | TuningError::NotAnInteger { key, .. }
                    | TuningError::OutOfRange { key, .. }
                    | TuningError::Inconsistent { key, .. } => Some(key),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// Parses a tuning file: the defaults of [`TuningSpec::default`] with the file's entries
/// applied, then [validated](TuningSpec::validate) as a whole (relations between keys).
pub fn parse_tuning_json(text: &str) -> Result<TuningSpec, TuningFileError> {
    let mut spec = TuningSpec::default();
    apply_tuning_json(&mut spec, text)?;
    spec.validate().map_err(TuningFileError::Inconsistent)?;
    Ok(spec)
}

/// Applies a tuning file's entries on top of `spec`, for layering (defaults ← file ← `--set`
/// overrides). Each entry is checked on its own (known key, a number, whole if the key is,
/// within range); relations between keys are not, since a later layer may still fix them:
/// build a [`Tuning`](pogo_core::Tuning) (or call [`TuningSpec::validate`]) at the end. On
/// error `spec` is unchanged.
pub fn apply_tuning_json(spec: &mut TuningSpec, text: &str) -> Result<(), TuningFileError> {
    if text.len() > TUNING_FILE_BYTES_MAX {
        return Err(TuningFileError::TooLarge {
            limit: TUNING_FILE_BYTES_MAX,
        });
    }
    // First pass: any JSON value, so syntax errors come with serde_json's line and column,
    // and a non-object top level is reported as such rather than as a type error.
    let whole: &RawValue = serde_json::from_str(text).map_err(TuningFileError::Syntax)?;
    let found = JsonKind::of(whole);
    if found != JsonKind::Object {
        return Err(TuningFileError::NotAnObject { found });
    }
    // Second pass: every entry in file order, duplicates included, each value as raw text
    // borrowed from `text`.
    let Entries(entries) = serde_json::from_str(text).map_err(TuningFileError::Syntax)?;

    let mut updated = spec.clone();
    let mut seen: BTreeMap<&str, Location> = BTreeMap::new();
    for (key, value) in &entries {
        let at = locate(text, value.get());
        if let Some(&first) = seen.get(key.as_str()) {
            return Err(TuningFileError::DuplicateKey {
                key: key.clone(),
                at,
                first,
            });
        }
        seen.insert(key, at);
        // Unknown keys first, so `{"gravty": "24"}` says the key is wrong, not the value.
        TuningSpec::key(key).map_err(|error| TuningFileError::Entry { error, at })?;
        let found = JsonKind::of(value);
        if found != JsonKind::Number {
            return Err(TuningFileError::NotANumber {
                key: key.clone(),
                found,
                at,
            });
        }
        updated
            .set(key, value.get())
            .map_err(|error| TuningFileError::Entry { error, at })?;
    }
    *spec = updated;
    Ok(())
}

/// Writes `spec` as a tuning file: a JSON object with every key of [`TuningSpec::KEYS`], in
/// that order, one per line, each with its exact value; ends with a newline.
/// [`parse_tuning_json`] reads it back to an equal spec.
pub fn tuning_to_json(spec: &TuningSpec) -> String {
    let mut out = String::from("{\n");
    let count = TuningSpec::KEYS.len();
    for (i, key) in TuningSpec::KEYS.iter().enumerate() {
        let separator = if i + 1 < count { "," } else { "" };
        // Key names are plain identifiers; quoting through serde_json keeps the output valid
        // JSON whatever they are. Writing to a String cannot fail.
        let name = serde_json::to_string(key.name).unwrap_or_default();
        let _ = writeln!(out, "  {name}: {}{separator}", key.get(spec));
    }
    out.push_str("}\n");
    out
}

/// Every entry of a JSON object in file order, duplicates included, values kept as text.
struct Entries<'a>(Vec<(String, &'a RawValue)>);

impl<'de> Deserialize<'de> for Entries<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(EntriesVisitor)
    }
}

struct EntriesVisitor;

impl<'de> Visitor<'de> for EntriesVisitor {
    type Value = Entries<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object mapping tuning keys to numbers")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = map.next_entry::<String, &'de RawValue>()? {
            entries.push(entry);
        }
        Ok(Entries(entries))
    }
}

/// Where `part` (a subslice of `text`) starts in `text`. `part` always borrows from `text`
/// here (serde_json hands out borrowed raw values); should it not, the start of the file is
/// reported rather than panicking.
pub(crate) fn locate(text: &str, part: &str) -> Location {
    let offset = (part.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
    let before = text.get(..offset).unwrap_or("");
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    Location {
        line: before.matches('\n').count() + 1,
        column: before[line_start..].chars().count() + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pogo_core::{Fx, Tuning};

    fn parse_err(text: &str) -> TuningFileError {
        match parse_tuning_json(text) {
            Ok(spec) => panic!("{text:?} parsed to {spec:?}"),
            Err(error) => error,
        }
    }

    #[test]
    fn empty_object_is_the_defaults() {
        assert_eq!(parse_tuning_json("{}").unwrap(), TuningSpec::default());
        assert_eq!(
            parse_tuning_json(" \n{ }\n").unwrap(),
            TuningSpec::default()
        );
    }

    #[test]
    fn given_keys_change_and_the_rest_keep_defaults() {
        let spec = parse_tuning_json(
            r#"{"gravity": 24.5, "impact_transfer": 0.35, "tip_grace_ticks": 3,
                "kill_height": -50, "tick_rate": 1.2e2}"#,
        )
        .unwrap();
        let expected = TuningSpec {
            gravity: Fx::lit("24.5"),
            impact_transfer: Fx::lit("0.35"),
            tip_grace_ticks: 3,
            kill_height: Fx::from_int(-50),
            tick_rate: 120,
            ..TuningSpec::default()
        };
        assert_eq!(spec, expected);
        Tuning::new(spec).unwrap();
    }

    #[test]
    fn numbers_are_parsed_exactly_not_through_floats() {
        let spec = parse_tuning_json(r#"{"impact_transfer": 0.1}"#).unwrap();
        assert_eq!(spec.impact_transfer, Fx::parse_decimal("0.1").unwrap());
        assert_eq!(spec.impact_transfer.to_bits(), 429_496_730); // round(0.1 · 2³²)

        // Distinct f64 values, but the same nearest 32.32 value: round(0.3 · 2³²).
        let a = parse_tuning_json(r#"{"impact_transfer": 0.3}"#).unwrap();
        let b = parse_tuning_json(r#"{"impact_transfer": 0.30000000000000004}"#).unwrap();
        assert_eq!(a.impact_transfer.to_bits(), 1_288_490_189);
        assert_eq!(b.impact_transfer.to_bits(), 1_288_490_189);

        // 2⁻³³ is exactly half a step: a tie, rounded to even (0). A hair above it rounds up
        // to one step. Through an f64 the hair is lost (it is far below an f64 ulp there), so
        // a float route would give the tie's 0 for both.
        let tie = "0.000000000116415321826934814453125";
        let above = "0.000000000116415321826934814453125000001";
        let tie_spec = parse_tuning_json(&format!(r#"{{"impact_transfer": {tie}}}"#)).unwrap();
        let above_spec = parse_tuning_json(&format!(r#"{{"impact_transfer": {above}}}"#)).unwrap();
        assert_eq!(tie_spec.impact_transfer.to_bits(), 0);
        assert_eq!(above_spec.impact_transfer.to_bits(), 1);
        // Same at 12 + 2⁻³³ (exact in f64, so a float would tie and round to even, 12).
        let g = parse_tuning_json(r#"{"gravity": 12.000000000116415321826934814453125000001}"#)
            .unwrap();
        assert_eq!(g.gravity.to_bits(), (12 << 32) + 1);
        // Three halves of a step: a tie between 1 and 2, to even.
        let three_halves =
            parse_tuning_json(r#"{"impact_transfer": 0.000000000349245965480804443359375}"#)
                .unwrap();
        assert_eq!(three_halves.impact_transfer.to_bits(), 2);
    }

    #[test]
    fn json_number_spellings_are_accepted() {
        for (text, bits) in [
            ("0.35", Fx::lit("0.35")),
            ("3.5e-1", Fx::lit("0.35")),
            ("3.5E-1", Fx::lit("0.35")),
            ("0.035e+1", Fx::lit("0.35")),
            ("0", Fx::ZERO),
            ("-0", Fx::ZERO),
            ("0.350000", Fx::lit("0.35")),
        ] {
            let spec = parse_tuning_json(&format!(r#"{{"impact_transfer": {text}}}"#)).unwrap();
            assert_eq!(spec.impact_transfer, bits, "{text}");
        }
        // A whole number spelled with a fraction or exponent is still whole.
        let spec = parse_tuning_json(r#"{"max_combo": 7.0, "tip_grace_ticks": 1e1}"#).unwrap();
        assert_eq!((spec.max_combo, spec.tip_grace_ticks), (7, 10));
    }

    #[test]
    fn escaped_key_names_are_unescaped() {
        let spec = parse_tuning_json(r#"{"gr\u0061vity": 30}"#).unwrap();
        assert_eq!(spec.gravity, Fx::from_int(30));
        // ...and count as the same key for duplicates.
        let error = parse_err(r#"{"gravity": 30, "gr\u0061vity": 31}"#);
        assert!(matches!(&error, TuningFileError::DuplicateKey { key, .. } if key == "gravity"));
    }

    #[test]
    fn unknown_key_is_rejected_naming_it() {
        let error = parse_err("{\n  \"gravty\": 24\n}");
        assert!(
            matches!(
                &error,
                TuningFileError::Entry {
                    error: TuningError::UnknownKey { key },
                    at: Location { line: 2, column: 13 },
                } if key == "gravty"
            ),
            "{error:?}"
        );
        assert_eq!(error.key(), Some("gravty"));
        let message = error.to_string();
        assert!(message.contains("unknown tuning key `gravty`"), "{message}");
        assert!(message.contains("line 2 column 13"), "{message}");
    }

    #[test]
    fn unknown_key_wins_over_a_bad_value() {
        let error = parse_err(r#"{"gravty": "24"}"#);
        assert!(matches!(
            error,
            TuningFileError::Entry {
                error: TuningError::UnknownKey { .. },
                ..
            }
        ));
    }

    #[test]
    fn duplicate_key_is_rejected_naming_it() {
        let error = parse_err("{\"gravity\": 20,\n \"gravity\": 30}");
        assert!(
            matches!(
                &error,
                TuningFileError::DuplicateKey {
                    key,
                    at: Location { line: 2, column: 13 },
                    first: Location { line: 1, column: 13 },
                } if key == "gravity"
            ),
            "{error:?}"
        );
        let message = error.to_string();
        assert!(
            message.contains("duplicate tuning key `gravity`"),
            "{message}"
        );
        // Even when both values are identical.
        let error = parse_err(r#"{"gravity": 20, "gravity": 20}"#);
        assert!(matches!(error, TuningFileError::DuplicateKey { .. }));
    }

    #[test]
    fn non_number_values_are_rejected_naming_the_key() {
        for (value, kind) in [
            (r#""24""#, JsonKind::String),
            ("true", JsonKind::Bool),
            ("false", JsonKind::Bool),
            ("null", JsonKind::Null),
            ("[24]", JsonKind::Array),
            (r#"{"value": 24}"#, JsonKind::Object),
        ] {
            let error = parse_err(&format!(r#"{{"gravity": {value}}}"#));
            assert!(
                matches!(
                    &error,
                    TuningFileError::NotANumber { key, found, at: Location { line: 1, column: 13 } }
                        if key == "gravity" && *found == kind
                ),
                "{value}: {error:?}"
            );
            let message = error.to_string();
            assert!(message.contains("`gravity` must be a number"), "{message}");
            assert!(message.contains(&kind.to_string()), "{message}");
        }
    }

    #[test]
    fn out_of_range_is_rejected_naming_key_and_range() {
        let error = parse_err(r#"{"impact_transfer": 1.5}"#);
        assert!(
            matches!(
                &error,
                TuningFileError::Entry {
                    error: TuningError::OutOfRange {
                        key: "impact_transfer",
                        ..
                    },
                    ..
                }
            ),
            "{error:?}"
        );
        let message = error.to_string();
        assert!(message.contains("`impact_transfer`"), "{message}");
        assert!(message.contains("0..=0.95"), "{message}");
        assert!(message.contains("1.5"), "{message}");

        // Beyond the fixed-point range altogether.
        let error = parse_err(r#"{"gravity": 1e300}"#);
        assert!(matches!(
            error,
            TuningFileError::Entry {
                error: TuningError::NotANumber { key: "gravity", .. },
                ..
            }
        ));
        let error = parse_err(r#"{"gravity": -0.5}"#);
        assert!(matches!(
            error,
            TuningFileError::Entry {
                error: TuningError::OutOfRange { key: "gravity", .. },
                ..
            }
        ));
    }

    #[test]
    fn fraction_for_a_whole_number_key_is_rejected() {
        let error = parse_err(r#"{"tip_grace_ticks": 2.5}"#);
        assert!(matches!(
            &error,
            TuningFileError::Entry {
                error: TuningError::NotAnInteger {
                    key: "tip_grace_ticks",
                    ..
                },
                ..
            }
        ));
        assert!(error.to_string().contains("`tip_grace_ticks`"));
    }

    #[test]
    fn inconsistent_keys_are_rejected_by_parse_but_not_by_apply() {
        let text = r#"{"min_launch_speed": 30}"#;
        let error = parse_err(text);
        assert!(matches!(
            &error,
            TuningFileError::Inconsistent(TuningError::Inconsistent {
                key: "min_launch_speed",
                other: "max_launch_speed",
                ..
            })
        ));
        assert!(error.to_string().contains("`min_launch_speed`"));
        // Layering: a later layer may still fix the relation.
        let mut spec = TuningSpec::default();
        apply_tuning_json(&mut spec, text).unwrap();
        spec.apply_override("max_launch_speed=40").unwrap();
        Tuning::new(spec).unwrap();
    }

    #[test]
    fn apply_leaves_the_spec_unchanged_on_error() {
        let mut spec = TuningSpec {
            gravity: Fx::from_int(10),
            ..TuningSpec::default()
        };
        let before = spec.clone();
        let error = apply_tuning_json(&mut spec, r#"{"stun_speed": 5, "gravity": 20, "nope": 1}"#);
        assert!(error.is_err());
        assert_eq!(spec, before);
        apply_tuning_json(&mut spec, r#"{"stun_speed": 5}"#).unwrap();
        assert_eq!(spec.gravity, Fx::from_int(10)); // kept: not the default
        assert_eq!(spec.stun_speed, Fx::from_int(5));
    }

    #[test]
    fn non_object_top_level_is_rejected() {
        for (text, kind) in [
            ("[]", JsonKind::Array),
            (r#"[{"gravity": 24}]"#, JsonKind::Array),
            ("24", JsonKind::Number),
            (r#""gravity""#, JsonKind::String),
            ("null", JsonKind::Null),
            ("\n true ", JsonKind::Bool),
        ] {
            let error = parse_err(text);
            assert!(
                matches!(&error, TuningFileError::NotAnObject { found } if *found == kind),
                "{text}: {error:?}"
            );
            assert!(error.to_string().contains("JSON object"));
        }
    }

    #[test]
    fn invalid_json_is_rejected_with_line_and_column() {
        for (text, line, column) in [
            ("{\"gravity\": 24,\n}", 2, 1),
            ("{\"gravity\": 24", 1, 14),
            ("{\"gravity\" 24}", 1, 12),
            ("{gravity: 24}", 1, 2),
            ("{\"gravity\": NaN}", 1, 13),
            ("{\"gravity\": .5}", 1, 13),
            ("{\"gravity\": +1}", 1, 13),
            ("{} {}", 1, 4),
            ("", 1, 0),
        ] {
            let error = parse_err(text);
            let TuningFileError::Syntax(json) = &error else {
                panic!("{text:?}: {error:?}");
            };
            assert_eq!(
                (json.line(), json.column()),
                (line, column),
                "{text:?}: {json}"
            );
            let message = error.to_string();
            assert!(message.starts_with("invalid JSON"), "{message}");
            assert!(
                message.contains(&format!("line {line} column {column}")),
                "{message}"
            );
        }
    }

    #[test]
    fn input_size_is_bounded_before_parsing() {
        let mut text = String::from("{}");
        text.push_str(&" ".repeat(TUNING_FILE_BYTES_MAX));
        let error = parse_err(&text);
        assert!(matches!(
            error,
            TuningFileError::TooLarge {
                limit: TUNING_FILE_BYTES_MAX
            }
        ));
        assert!(error.to_string().contains("1048576"));
        // Right at the limit is still parsed.
        text.truncate(TUNING_FILE_BYTES_MAX);
        assert_eq!(parse_tuning_json(&text).unwrap(), TuningSpec::default());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let depth = 100_000;
        let text = format!(
            r#"{{"gravity": {}{}}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        );
        assert!(parse_tuning_json(&text).is_err());
        let text = "[".repeat(depth) + &"]".repeat(depth);
        assert!(parse_tuning_json(&text).is_err());
    }

    #[test]
    fn written_defaults_read_back_identically() {
        let spec = TuningSpec::default();
        let text = tuning_to_json(&spec);
        assert_eq!(parse_tuning_json(&text).unwrap(), spec);
        for key in TuningSpec::KEYS {
            assert!(
                text.contains(&format!("\"{}\": ", key.name)),
                "{}",
                key.name
            );
        }
        assert!(text.starts_with("{\n") && text.ends_with("}\n"));
        assert!(text.contains("\"gravity\": 24,\n"));
        assert!(text.contains("\"kill_height\": -30\n"));
    }

    #[test]
    fn written_changed_values_read_back_identically() {
        let mut spec = TuningSpec::default();
        for assignment in [
            "gravity=31.25",
            "impact_transfer=0.1",
            "compression_time=0.0333333333333",
            "kill_height=-12.0000000002",
            "max_combo=9",
            "tick_rate=144",
            "lean_rate=99.999",
            "base_bounce_speed=0.000000000116415321826934814453125000001",
        ] {
            spec.apply_override(assignment).unwrap();
        }
        spec.validate().unwrap();
        let text = tuning_to_json(&spec);
        let back = parse_tuning_json(&text).unwrap();
        assert_eq!(back, spec);
        assert_eq!(back.content_hash(), spec.content_hash());
        for key in TuningSpec::KEYS {
            assert_eq!(
                key.get(&back).to_bits(),
                key.get(&spec).to_bits(),
                "{}",
                key.name
            );
        }
    }
}
