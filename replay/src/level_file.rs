//! Level files: a JSON description of a [`WorldDesc`].
//!
//! The schema, with units, defaults and limits, is published in `replay/LEVELS.md`. In short:
//!
//! ```json
//! {
//!   "name": "demo",
//!   "spawn": [0, 0, 0],
//!   "solids": [{"min": [-20, -1, -5], "max": [20, 0, 5]}],
//!   "ramps": [{"normal": [0.25, 1, 0], "point": [20, 0, 0],
//!              "bounds": {"min": [20, -3, -5], "max": [32, 0, 5]}}],
//!   "platforms": [{"size": [4, 0.5, 4],
//!                  "path": {"ping_pong": {"from": [34, -3, -2], "to": [40, -3, -2], "period": 6}}}],
//!   "zones": [{"min": [-20, -1, -5], "max": [0, 20, 5], "gravity_scale": 0.5, "wind": [3, 0, 0]}],
//!   "checkpoints": [{"min": [10, 0, -5], "max": [20, 6, 5], "spawn": [15, 0, 0]}],
//!   "finishes": [{"min": [44, -3, -5], "max": [48, 3, 5]}],
//!   "kills": [{"min": [-50, -40, -50], "max": [100, -10, 50]}],
//!   "bot_path": [[10, 0, 0], [30, 0, 0]]
//! }
//! ```
//!
//! ```
//! use pogo_core::{Fx, Vec3};
//! use pogo_replay::level_file::{level_to_json, parse_level_json};
//!
//! let desc = parse_level_json(r#"{"name": "tiny", "spawn": [0, 0.1, 0],
//!     "solids": [{"min": [-5, -1, -5], "max": [5, 0, 5]}]}"#)?;
//! assert_eq!(desc.spawn, Vec3::new(Fx::ZERO, Fx::parse_decimal("0.1").unwrap(), Fx::ZERO));
//! assert_eq!(desc.solids.len(), 1);
//! // Writing and reading back gives the same level, bit for bit.
//! assert_eq!(parse_level_json(&level_to_json(&desc))?, desc);
//! # Ok::<(), pogo_replay::LevelFileError>(())
//! ```
//!
//! # Exactness
//!
//! As for tuning files, numbers are never read through a float: serde_json hands over each
//! value's text ([`RawValue`]) and [`Fx::parse_decimal`] turns it straight into fixed point
//! (rounding once, to the nearest 32.32 value, ties to even).
//!
//! # Strictness
//!
//! A level file may come from anyone (a leaderboard server loads the levels its replays name),
//! so everything doubtful is an error naming the JSON path of the bad value
//! (`solids[3].min[1]`) and, where the file has it, its line and column ([`LevelFileError`]):
//! invalid JSON, an unknown field, a key given twice, a value of the wrong kind, a vector
//! that is not exactly three numbers, a number outside the fixed-point range, a coordinate
//! beyond ±100000 m, a box with `min` > `max`, a list longer than its limit, a missing
//! required field. The whole level is then checked by [`WorldDesc::validate`] (platform
//! speeds, periods, zone strengths, ...), whose error is reported with the JSON path too.
//!
//! Memory and time are bounded whatever the file claims: the input size first
//! ([`LEVEL_FILE_BYTES_MAX`]), then each list is counted against its limit while only the
//! first `limit` elements are kept (so a list that is too long costs no more memory than a
//! legal one), and an object's fields are checked as they are read (an object with a million
//! keys fails at its first unknown or repeated one). serde_json limits nesting to 128 levels.
//!
//! # Writing
//!
//! [`level_to_json`] writes every list (empty ones as `[]`), one element per line, with exact
//! values; optional fields at their defaults (`no_bounce: false`, absent ramp `bounds`) are
//! left out, zones always carry `gravity_scale` and `wind`.
//! `parse_level_json(&level_to_json(&desc)) == Ok(desc)` for every valid `desc`.

use std::borrow::Cow;
use std::fmt;
use std::fmt::Write as _;

use pogo_core::world::{
    Aabb, BOXES_MAX, COORDINATE_MAX, Checkpoint, FEATURES_MAX, Path, Platform, Ramp, SURFACES_MAX,
    Solid, WAYPOINTS_MAX, WorldDesc, WorldError, Zone,
};
use pogo_core::{Fx, ParseFxError, Vec3};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use crate::tuning_file::locate;
pub use crate::tuning_file::{JsonKind, Location};

/// The largest level file accepted, in bytes (64 MiB). A box takes about 50 bytes of JSON, so
/// this holds a level at the [`BOXES_MAX`] limit of a million boxes written compactly; the
/// bound keeps hostile input from costing unbounded memory or time.
pub const LEVEL_FILE_BYTES_MAX: usize = 64 << 20;

/// Why a level file was rejected.
#[derive(Debug)]
#[non_exhaustive]
pub enum LevelFileError {
    /// The input is larger than `limit` bytes ([`LEVEL_FILE_BYTES_MAX`]); nothing was parsed.
    TooLarge {
        /// The bound that was exceeded, in bytes.
        limit: usize,
    },
    /// Not valid JSON. serde_json's error carries the line and column.
    Syntax(serde_json::Error),
    /// A value is wrong: `path` names it the way JSON tools do (`solids[3].min[1]`, empty for
    /// the top level), `at` is where it starts in the file (for a missing field: where the
    /// object missing it starts).
    Field {
        /// The JSON path of the bad value.
        path: String,
        /// What is wrong with it.
        problem: Problem,
        /// Where it is; `None` only if it could not be found again in the text.
        at: Option<Location>,
    },
}

/// What is wrong with a value of a level file (see [`LevelFileError::Field`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// A value of the wrong kind.
    Expected {
        /// What was expected, e.g. "a number".
        expected: &'static str,
        /// What the value is instead.
        found: JsonKind,
    },
    /// A key the schema does not have (the path ends with it).
    UnknownField {
        /// The keys allowed in this object.
        allowed: &'static [&'static str],
    },
    /// A key given a second time (the location is the second value's).
    DuplicateKey {
        /// Where the first value starts.
        first: Location,
    },
    /// A required field is missing.
    Missing,
    /// A vector that is not exactly `[x, y, z]`.
    WrongLength {
        /// How many elements it has.
        found: usize,
    },
    /// A list longer than its limit (the limits of `pogo_core::world`).
    TooMany {
        /// The limit.
        max: usize,
        /// How many elements the list has.
        found: usize,
    },
    /// A JSON number that is not a 32.32 fixed-point number (out of its range).
    Number {
        /// The number as written (shortened if very long).
        text: String,
        /// Why it does not parse.
        error: ParseFxError,
    },
    /// A coordinate beyond ±[`COORDINATE_MAX`] (100000 m).
    BeyondCoordinateLimit {
        /// The value found.
        value: Fx,
    },
    /// A box whose `min` is above its `max` on an axis.
    MinAboveMax {
        /// 0, 1, 2 for x, y, z.
        axis: usize,
        /// `min` on that axis.
        min: Fx,
        /// `max` on that axis.
        max: Fx,
    },
    /// The level as a whole broke a rule of [`WorldDesc::validate`] (a platform too fast, a
    /// period out of range, a zero ramp normal, ...).
    Rule(WorldError),
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Expected { expected, found } => {
                write!(f, "expected {expected}, found {found}")
            }
            Problem::UnknownField { allowed } => {
                write!(f, "unknown field (expected one of: {})", allowed.join(", "))
            }
            Problem::DuplicateKey { first } => write!(f, "given twice (first at {first})"),
            Problem::Missing => f.write_str("missing (required)"),
            Problem::WrongLength { found } => {
                write!(f, "expected [x, y, z] (3 numbers), found {found} elements")
            }
            Problem::TooMany { max, found } => {
                write!(f, "has {found} elements, at most {max} are allowed")
            }
            Problem::Number { text, error } => write!(f, "{text} is {error}"),
            Problem::BeyondCoordinateLimit { value } => {
                write!(
                    f,
                    "{value} is beyond the ±{COORDINATE_MAX} m coordinate limit"
                )
            }
            Problem::MinAboveMax { axis, min, max } => write!(
                f,
                "min > max on {} (min[{axis}] = {min}, max[{axis}] = {max})",
                ["x", "y", "z"][*axis % 3]
            ),
            Problem::Rule(WorldError::Invalid { problem, .. }) => f.write_str(problem),
            Problem::Rule(error) => write!(f, "{error}"),
        }
    }
}

impl fmt::Display for LevelFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LevelFileError::TooLarge { limit } => {
                write!(f, "larger than the {limit}-byte limit for a level file")
            }
            LevelFileError::Syntax(error) => write!(f, "invalid JSON: {error}"),
            LevelFileError::Field { path, problem, at } => {
                let path = if path.is_empty() { "level" } else { path };
                write!(f, "{path}: {problem}")?;
                if let Some(at) = at {
                    write!(f, " at {at}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for LevelFileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LevelFileError::Syntax(error) => Some(error),
            LevelFileError::Field {
                problem: Problem::Number { error, .. },
                ..
            } => Some(error),
            LevelFileError::Field {
                problem: Problem::Rule(error),
                ..
            } => Some(error),
            _ => None,
        }
    }
}

impl LevelFileError {
    /// The JSON path of the bad value, if the error is about one (`""` is the top level).
    pub fn path(&self) -> Option<&str> {
        match self {
            LevelFileError::Field { path, .. } => Some(path),
            _ => None,
        }
    }

    /// What is wrong, if the error is about one value.
    pub fn problem(&self) -> Option<&Problem> {
        match self {
            LevelFileError::Field { problem, .. } => Some(problem),
            _ => None,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The schema.

pub(crate) const TOP_FIELDS: &[&str] = &[
    "name",
    "spawn",
    "solids",
    "ramps",
    "platforms",
    "zones",
    "checkpoints",
    "finishes",
    "kills",
    "bot_path",
];
const SOLID_FIELDS: &[&str] = &["min", "max", "no_bounce"];
const RAMP_FIELDS: &[&str] = &["normal", "point", "bounds", "no_bounce"];
const BOX_FIELDS: &[&str] = &["min", "max"];
const PLATFORM_FIELDS: &[&str] = &["size", "path", "no_bounce"];
const PATH_FIELDS: &[&str] = &["ping_pong"];
const PING_PONG_FIELDS: &[&str] = &["from", "to", "period"];
const ZONE_FIELDS: &[&str] = &["min", "max", "gravity_scale", "wind"];
const CHECKPOINT_FIELDS: &[&str] = &["min", "max", "spawn"];
/// The most fields any object of the schema has.
const FIELDS_MAX: usize = 10;

/// Parses and validates a level file.
pub fn parse_level_json(text: &str) -> Result<WorldDesc, LevelFileError> {
    if text.len() > LEVEL_FILE_BYTES_MAX {
        return Err(LevelFileError::TooLarge {
            limit: LEVEL_FILE_BYTES_MAX,
        });
    }
    // First pass: any JSON value, so syntax errors anywhere come with serde_json's line and
    // column before anything else is looked at.
    let whole: &RawValue = serde_json::from_str(text).map_err(LevelFileError::Syntax)?;
    let doc = Doc { text };
    let root = At::ROOT;
    let top = doc.object(whole, &root, TOP_FIELDS)?;

    let name = doc.string(top.required(&doc, &root, "name")?, &root.field("name"))?;
    let spawn = doc.vec3(top.required(&doc, &root, "spawn")?, &root.field("spawn"))?;
    let solids = doc.list(&top, &root, "solids", BOXES_MAX, |raw, at| {
        let obj = doc.object(raw, at, SOLID_FIELDS)?;
        Ok(Solid {
            bounds: doc.aabb(&obj, at)?,
            no_bounce: doc.no_bounce(&obj, at)?,
        })
    })?;
    let ramps = doc.list(&top, &root, "ramps", SURFACES_MAX, |raw, at| {
        let obj = doc.object(raw, at, RAMP_FIELDS)?;
        let bounds = match obj.get("bounds") {
            None => None,
            Some(raw) => {
                let at = at.field("bounds");
                Some(doc.aabb(&doc.object(raw, &at, BOX_FIELDS)?, &at)?)
            }
        };
        Ok(Ramp {
            normal: doc.vec3(obj.required(&doc, at, "normal")?, &at.field("normal"))?,
            point: doc.vec3(obj.required(&doc, at, "point")?, &at.field("point"))?,
            bounds,
            no_bounce: doc.no_bounce(&obj, at)?,
        })
    })?;
    let platforms = doc.list(&top, &root, "platforms", SURFACES_MAX, |raw, at| {
        let obj = doc.object(raw, at, PLATFORM_FIELDS)?;
        let size = doc.vec3(obj.required(&doc, at, "size")?, &at.field("size"))?;
        let path_at = at.field("path");
        let path = doc.object(obj.required(&doc, at, "path")?, &path_at, PATH_FIELDS)?;
        let pp_at = path_at.field("ping_pong");
        let pp = doc.object(
            path.required(&doc, &path_at, "ping_pong")?,
            &pp_at,
            PING_PONG_FIELDS,
        )?;
        let path = Path::PingPong {
            from: doc.vec3(pp.required(&doc, &pp_at, "from")?, &pp_at.field("from"))?,
            to: doc.vec3(pp.required(&doc, &pp_at, "to")?, &pp_at.field("to"))?,
            period: doc.number(pp.required(&doc, &pp_at, "period")?, &pp_at.field("period"))?,
        };
        Ok(Platform {
            size,
            path,
            no_bounce: doc.no_bounce(&obj, at)?,
        })
    })?;
    let zones = doc.list(&top, &root, "zones", FEATURES_MAX, |raw, at| {
        let obj = doc.object(raw, at, ZONE_FIELDS)?;
        let bounds = doc.aabb(&obj, at)?;
        let gravity_scale = match obj.get("gravity_scale") {
            Some(raw) => doc.number(raw, &at.field("gravity_scale"))?,
            None => Fx::ONE,
        };
        let wind = match obj.get("wind") {
            Some(raw) => doc.vec3(raw, &at.field("wind"))?,
            None => Vec3::ZERO,
        };
        Ok(Zone {
            bounds,
            gravity_scale,
            wind,
        })
    })?;
    let checkpoints = doc.list(&top, &root, "checkpoints", FEATURES_MAX, |raw, at| {
        let obj = doc.object(raw, at, CHECKPOINT_FIELDS)?;
        Ok(Checkpoint {
            bounds: doc.aabb(&obj, at)?,
            spawn: doc.vec3(obj.required(&doc, at, "spawn")?, &at.field("spawn"))?,
        })
    })?;
    let volume = |raw, at: &At<'_>| doc.aabb(&doc.object(raw, at, BOX_FIELDS)?, at);
    let finishes = doc.list(&top, &root, "finishes", FEATURES_MAX, volume)?;
    let kills = doc.list(&top, &root, "kills", FEATURES_MAX, volume)?;
    let bot_path = doc.list(&top, &root, "bot_path", WAYPOINTS_MAX, |raw, at| {
        doc.vec3(raw, at)
    })?;

    let desc = WorldDesc {
        name,
        spawn,
        solids,
        ramps,
        platforms,
        zones,
        checkpoints,
        finishes,
        kills,
        bot_path,
    };
    desc.validate()
        .map_err(|error| doc.rule_error(whole, error))?;
    Ok(desc)
}

/// Writes `desc` as a level file (ends with a newline); [`parse_level_json`] reads it back to
/// an equal `WorldDesc`.
pub fn level_to_json(desc: &WorldDesc) -> String {
    let mut out = String::with_capacity(256 + desc.solids.len() * 64);
    out.push_str("{\n");
    // Quoting through serde_json keeps any name valid JSON; it cannot fail on a `str`.
    let name = serde_json::to_string(&desc.name).unwrap_or_default();
    let _ = writeln!(out, "  \"name\": {name},");
    let _ = writeln!(out, "  \"spawn\": {},", V(desc.spawn));
    write_list(&mut out, "solids", &desc.solids, false, |o, s| {
        write_box(o, &s.bounds);
        write_no_bounce(o, s.no_bounce);
    });
    write_list(&mut out, "ramps", &desc.ramps, false, |o, r| {
        let _ = write!(
            o,
            "{{\"normal\": {}, \"point\": {}",
            V(r.normal),
            V(r.point)
        );
        if let Some(b) = &r.bounds {
            let _ = write!(
                o,
                ", \"bounds\": {{\"min\": {}, \"max\": {}}}",
                V(b.min),
                V(b.max)
            );
        }
        write_no_bounce(o, r.no_bounce);
    });
    write_list(&mut out, "platforms", &desc.platforms, false, |o, p| {
        let Path::PingPong { from, to, period } = p.path;
        let _ = write!(
            o,
            "{{\"size\": {}, \"path\": {{\"ping_pong\": {{\"from\": {}, \"to\": {}, \"period\": {period}}}}}",
            V(p.size),
            V(from),
            V(to)
        );
        write_no_bounce(o, p.no_bounce);
    });
    write_list(&mut out, "zones", &desc.zones, false, |o, z| {
        write_box(o, &z.bounds);
        let _ = write!(
            o,
            ", \"gravity_scale\": {}, \"wind\": {}}}",
            z.gravity_scale,
            V(z.wind)
        );
    });
    write_list(&mut out, "checkpoints", &desc.checkpoints, false, |o, c| {
        write_box(o, &c.bounds);
        let _ = write!(o, ", \"spawn\": {}}}", V(c.spawn));
    });
    let volume = |o: &mut String, b: &Aabb| {
        write_box(o, b);
        o.push('}');
    };
    write_list(&mut out, "finishes", &desc.finishes, false, volume);
    write_list(&mut out, "kills", &desc.kills, false, volume);
    write_list(&mut out, "bot_path", &desc.bot_path, true, |o, p| {
        let _ = write!(o, "{}", V(*p));
    });
    out.push_str("}\n");
    out
}

/// A vector as `[x, y, z]` with exact values.
struct V(Vec3);

impl fmt::Display for V {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {}, {}]", self.0.x, self.0.y, self.0.z)
    }
}

/// Opens an element object with its `min` and `max` (the caller closes it).
fn write_box(out: &mut String, b: &Aabb) {
    let _ = write!(out, "{{\"min\": {}, \"max\": {}", V(b.min), V(b.max));
}

/// Closes an element object, with `"no_bounce": true` if set.
fn write_no_bounce(out: &mut String, no_bounce: bool) {
    out.push_str(if no_bounce {
        ", \"no_bounce\": true}"
    } else {
        "}"
    });
}

fn write_list<T>(
    out: &mut String,
    name: &str,
    items: &[T],
    last: bool,
    mut element: impl FnMut(&mut String, &T),
) {
    let separator = if last { "" } else { "," };
    if items.is_empty() {
        let _ = writeln!(out, "  \"{name}\": []{separator}");
        return;
    }
    let _ = writeln!(out, "  \"{name}\": [");
    for (i, item) in items.iter().enumerate() {
        out.push_str("    ");
        element(out, item);
        out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
    }
    let _ = writeln!(out, "  ]{separator}");
}

// ---------------------------------------------------------------------------------------------
// JSON paths, built lazily: a chain of segments on the stack, rendered only for an error.

#[derive(Clone, Copy, Debug)]
enum Seg<'a> {
    Field(&'a str),
    Index(usize),
}

/// Where a value is in the document: its parent and the last segment (none for the root).
#[derive(Clone, Copy)]
struct At<'p> {
    parent: Option<&'p At<'p>>,
    seg: Option<Seg<'p>>,
}

impl<'p> At<'p> {
    const ROOT: At<'static> = At {
        parent: None,
        seg: None,
    };

    fn field(&'p self, name: &'p str) -> At<'p> {
        At {
            parent: Some(self),
            seg: Some(Seg::Field(name)),
        }
    }

    fn index(&'p self, i: usize) -> At<'p> {
        At {
            parent: Some(self),
            seg: Some(Seg::Index(i)),
        }
    }

    fn render(&self) -> String {
        let mut segs = Vec::new();
        let mut current = Some(self);
        while let Some(at) = current {
            segs.extend(at.seg);
            current = at.parent;
        }
        segs.reverse();
        render_path(&segs)
    }
}

/// `solids[3].min[1]`; the empty string for the top level.
fn render_path(segs: &[Seg<'_>]) -> String {
    let mut out = String::new();
    for seg in segs {
        match seg {
            Seg::Field(name) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(name);
            }
            Seg::Index(i) => {
                let _ = write!(out, "[{i}]");
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Reading values.

/// The document being parsed: every raw value handed out borrows from `text`, so its location
/// can be found from its address.
struct Doc<'t> {
    text: &'t str,
}

/// An object's values by field, in schema order.
struct Obj<'t> {
    raw: &'t RawValue,
    fields: &'static [&'static str],
    values: [Option<&'t RawValue>; FIELDS_MAX],
}

impl<'t> Obj<'t> {
    fn get(&self, name: &str) -> Option<&'t RawValue> {
        let i = self.fields.iter().position(|f| *f == name)?;
        self.values[i]
    }

    fn required(
        &self,
        doc: &Doc<'t>,
        at: &At<'_>,
        name: &'static str,
    ) -> Result<&'t RawValue, LevelFileError> {
        self.get(name)
            .ok_or_else(|| doc.fail(&at.field(name), Problem::Missing, self.raw))
    }
}

impl<'t> Doc<'t> {
    fn location(&self, raw: &RawValue) -> Location {
        locate(self.text, raw.get())
    }

    fn fail(&self, at: &At<'_>, problem: Problem, raw: &RawValue) -> LevelFileError {
        LevelFileError::Field {
            path: at.render(),
            problem,
            at: Some(self.location(raw)),
        }
    }

    fn expect(
        &self,
        raw: &RawValue,
        at: &At<'_>,
        kind: JsonKind,
        expected: &'static str,
    ) -> Result<(), LevelFileError> {
        let found = JsonKind::of(raw);
        if found == kind {
            Ok(())
        } else {
            Err(self.fail(at, Problem::Expected { expected, found }, raw))
        }
    }

    /// Reads an object whose keys must be among `fields`, each at most once.
    fn object(
        &self,
        raw: &'t RawValue,
        at: &At<'_>,
        fields: &'static [&'static str],
    ) -> Result<Obj<'t>, LevelFileError> {
        self.expect(raw, at, JsonKind::Object, "an object")?;
        let mut visitor = ObjVisitor {
            fields,
            values: [None; FIELDS_MAX],
            problem: None,
        };
        let mut de = serde_json::Deserializer::from_str(raw.get());
        let result = (&mut de).deserialize_map(&mut visitor);
        if let Some(problem) = visitor.problem {
            return Err(match problem {
                ObjProblem::Unknown { key, value } => {
                    let path = format!(
                        "{}{}{key}",
                        at.render(),
                        if at.seg.is_some() { "." } else { "" }
                    );
                    LevelFileError::Field {
                        path,
                        problem: Problem::UnknownField { allowed: fields },
                        at: Some(self.location(value)),
                    }
                }
                ObjProblem::Duplicate { key, first, second } => self.fail(
                    &at.field(key),
                    Problem::DuplicateKey {
                        first: self.location(first),
                    },
                    second,
                ),
            });
        }
        result.map_err(LevelFileError::Syntax)?;
        Ok(Obj {
            raw,
            fields,
            values: visitor.values,
        })
    }

    /// Reads an array of at most `max` elements (counting, not keeping, any beyond).
    fn array(&self, raw: &'t RawValue, max: usize) -> Result<Bounded<'t>, LevelFileError> {
        let mut de = serde_json::Deserializer::from_str(raw.get());
        (&mut de)
            .deserialize_seq(BoundedVisitor { max })
            .map_err(LevelFileError::Syntax)
    }

    /// Reads the optional list field `name` of `obj` (absent: empty), each element with
    /// `element`, after checking its length against `max`.
    fn list<T>(
        &self,
        obj: &Obj<'t>,
        at: &At<'_>,
        name: &'static str,
        max: usize,
        mut element: impl FnMut(&'t RawValue, &At<'_>) -> Result<T, LevelFileError>,
    ) -> Result<Vec<T>, LevelFileError> {
        let Some(raw) = obj.get(name) else {
            return Ok(Vec::new());
        };
        let at = at.field(name);
        self.expect(raw, &at, JsonKind::Array, "an array")?;
        let list = self.array(raw, max)?;
        if list.total > max {
            let problem = Problem::TooMany {
                max,
                found: list.total,
            };
            return Err(self.fail(&at, problem, raw));
        }
        let mut out = Vec::with_capacity(list.items.len());
        for (i, raw) in list.items.into_iter().enumerate() {
            out.push(element(raw, &at.index(i))?);
        }
        Ok(out)
    }

    fn string(&self, raw: &'t RawValue, at: &At<'_>) -> Result<String, LevelFileError> {
        self.expect(raw, at, JsonKind::String, "a string")?;
        serde_json::from_str(raw.get()).map_err(LevelFileError::Syntax)
    }

    fn number(&self, raw: &'t RawValue, at: &At<'_>) -> Result<Fx, LevelFileError> {
        self.expect(raw, at, JsonKind::Number, "a number")?;
        let text = raw.get().trim();
        Fx::parse_decimal(text).map_err(|error| {
            let text = shorten(text);
            self.fail(at, Problem::Number { text, error }, raw)
        })
    }

    /// `[x, y, z]`, each within the coordinate limit.
    fn vec3(&self, raw: &'t RawValue, at: &At<'_>) -> Result<Vec3, LevelFileError> {
        self.expect(raw, at, JsonKind::Array, "an array [x, y, z]")?;
        let list = self.array(raw, 3)?;
        if list.total != 3 {
            return Err(self.fail(at, Problem::WrongLength { found: list.total }, raw));
        }
        let mut c = [Fx::ZERO; 3];
        for (i, raw) in list.items.into_iter().enumerate() {
            let at = at.index(i);
            let value = self.number(raw, &at)?;
            if value.abs() > COORDINATE_MAX {
                return Err(self.fail(&at, Problem::BeyondCoordinateLimit { value }, raw));
            }
            c[i] = value;
        }
        Ok(Vec3::new(c[0], c[1], c[2]))
    }

    /// The `min` and `max` fields of `obj`, `min` ≤ `max` on every axis.
    fn aabb(&self, obj: &Obj<'t>, at: &At<'_>) -> Result<Aabb, LevelFileError> {
        let min = self.vec3(obj.required(self, at, "min")?, &at.field("min"))?;
        let max = self.vec3(obj.required(self, at, "max")?, &at.field("max"))?;
        let pairs = [(min.x, max.x), (min.y, max.y), (min.z, max.z)];
        for (axis, (lo, hi)) in pairs.into_iter().enumerate() {
            if lo > hi {
                let problem = Problem::MinAboveMax {
                    axis,
                    min: lo,
                    max: hi,
                };
                return Err(self.fail(at, problem, obj.raw));
            }
        }
        Ok(Aabb::new(min, max))
    }

    /// The optional `no_bounce` field of `obj` (default false).
    fn no_bounce(&self, obj: &Obj<'t>, at: &At<'_>) -> Result<bool, LevelFileError> {
        let Some(raw) = obj.get("no_bounce") else {
            return Ok(false);
        };
        self.expect(raw, &at.field("no_bounce"), JsonKind::Bool, "true or false")?;
        Ok(raw.get().trim() == "true")
    }

    /// A [`WorldDesc::validate`] error, with the JSON path of what it names and its location.
    fn rule_error(&self, whole: &'t RawValue, error: WorldError) -> LevelFileError {
        let (segs, problem) = match error {
            WorldError::TooMany { list, max, found } => {
                (vec![Seg::Field(list)], Problem::TooMany { max, found })
            }
            WorldError::Invalid {
                list, index, field, ..
            } => (json_path(list, index, field), Problem::Rule(error)),
            // Only `World::new` checks density; named here for completeness.
            WorldError::TooDense { list, .. } => (vec![Seg::Field(list)], Problem::Rule(error)),
        };
        // The deepest value of the path that the file holds.
        let mut raw = whole;
        for seg in &segs {
            match self.child(raw, *seg) {
                Some(child) => raw = child,
                None => break,
            }
        }
        LevelFileError::Field {
            path: render_path(&segs),
            problem,
            at: Some(self.location(raw)),
        }
    }

    /// The value at `seg` under `raw`, if there is one (only used on the error path).
    fn child(&self, raw: &'t RawValue, seg: Seg<'_>) -> Option<&'t RawValue> {
        match seg {
            Seg::Field(name) => {
                if JsonKind::of(raw) != JsonKind::Object {
                    return None;
                }
                let mut de = serde_json::Deserializer::from_str(raw.get());
                (&mut de).deserialize_map(FindVisitor { name }).ok()?
            }
            Seg::Index(i) => {
                if JsonKind::of(raw) != JsonKind::Array {
                    return None;
                }
                self.array(raw, i.saturating_add(1))
                    .ok()?
                    .items
                    .get(i)
                    .copied()
            }
        }
    }
}

/// The JSON path of what a [`WorldError::Invalid`] names: `WorldDesc`'s field names mapped to
/// the file's (a box's `bounds` are its `min`/`max`; a platform's `path.from` is
/// `path.ping_pong.from`).
fn json_path(list: &'static str, index: Option<usize>, field: &'static str) -> Vec<Seg<'static>> {
    let mut segs = vec![Seg::Field(list)];
    segs.extend(index.map(Seg::Index));
    if field.is_empty() || (field == "bounds" && list != "ramps") {
        return segs;
    }
    let mut parts = field.split('.');
    if list == "platforms" && field.starts_with("path") {
        segs.push(Seg::Field("path"));
        segs.push(Seg::Field("ping_pong"));
        parts.next();
    }
    segs.extend(parts.map(Seg::Field));
    segs
}

/// At most 40 characters of a number's text, for an error message.
fn shorten(text: &str) -> String {
    const KEEP: usize = 40;
    match text.char_indices().nth(KEEP) {
        Some((cut, _)) => format!("{}… ({} characters)", &text[..cut], text.chars().count()),
        None => text.to_string(),
    }
}

// ---------------------------------------------------------------------------------------------
// serde visitors over raw text.

/// An array's first `max` elements as raw text, and how many it has in all.
struct Bounded<'t> {
    items: Vec<&'t RawValue>,
    total: usize,
}

struct BoundedVisitor {
    max: usize,
}

impl<'de> Visitor<'de> for BoundedVisitor {
    type Value = Bounded<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while items.len() < self.max {
            match seq.next_element::<&'de RawValue>()? {
                Some(item) => items.push(item),
                None => {
                    let total = items.len();
                    return Ok(Bounded { items, total });
                }
            }
        }
        let mut total = items.len();
        while seq.next_element::<IgnoredAny>()?.is_some() {
            total = total.saturating_add(1);
        }
        Ok(Bounded { items, total })
    }
}

/// What stopped an object's reading.
enum ObjProblem<'t> {
    Unknown {
        key: String,
        value: &'t RawValue,
    },
    Duplicate {
        key: &'static str,
        first: &'t RawValue,
        second: &'t RawValue,
    },
}

/// Reads an object's entries into their schema slots, stopping at the first unknown or
/// repeated key (recorded in `problem`; serde sees a bare error).
struct ObjVisitor<'t> {
    fields: &'static [&'static str],
    values: [Option<&'t RawValue>; FIELDS_MAX],
    problem: Option<ObjProblem<'t>>,
}

impl<'de> Visitor<'de> for &mut ObjVisitor<'de> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key_seed(KeySeed)? {
            let value = map.next_value::<&'de RawValue>()?;
            let Some(slot) = self.fields.iter().position(|f| *f == key) else {
                self.problem = Some(ObjProblem::Unknown {
                    key: key.into_owned(),
                    value,
                });
                return Err(de::Error::custom("unknown field"));
            };
            if let Some(first) = self.values[slot] {
                self.problem = Some(ObjProblem::Duplicate {
                    key: self.fields[slot],
                    first,
                    second: value,
                });
                return Err(de::Error::custom("duplicate key"));
            }
            self.values[slot] = Some(value);
        }
        Ok(())
    }
}

/// Finds the first value of key `name` in an object (for locating an error).
struct FindVisitor<'n> {
    name: &'n str,
}

impl<'de> Visitor<'de> for FindVisitor<'_> {
    type Value = Option<&'de RawValue>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key_seed(KeySeed)? {
            if found.is_none() && key == self.name {
                found = Some(map.next_value::<&'de RawValue>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// A key, borrowed from the text unless it has escapes.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(KeySeed)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pogo_core::Tuning;
    use pogo_core::world::World;

    fn fx(text: &str) -> Fx {
        Fx::parse_decimal(text).unwrap()
    }

    fn v(x: &str, y: &str, z: &str) -> Vec3 {
        Vec3::new(fx(x), fx(y), fx(z))
    }

    fn parse_err(text: &str) -> LevelFileError {
        match parse_level_json(text) {
            Ok(desc) => panic!("{text:?} parsed to {desc:?}"),
            Err(error) => error,
        }
    }

    /// The error's path, problem and message, checking the message starts with the path.
    fn field_err(text: &str) -> (String, Problem, String) {
        let error = parse_err(text);
        let message = error.to_string();
        let LevelFileError::Field { path, problem, at } = error else {
            panic!("{text:?}: {error:?}");
        };
        assert!(at.is_some(), "{message}");
        assert!(
            message.starts_with(&format!("{path}: ")) || path.is_empty(),
            "{message}"
        );
        (path, problem, message)
    }

    /// A level with `extra` (more top-level entries, each ending with a comma) added.
    fn level(extra: &str) -> String {
        format!(r#"{{{extra} "name": "t", "spawn": [0, 0, 0]}}"#)
    }

    const FULL: &str = r#"{
      "name": "full",
      "spawn": [0, 2, 0],
      "solids": [
        {"min": [-20, -1, -5], "max": [20, 0, 5]},
        {"min": [5, 0, -5], "max": [5.5, 3, 5], "no_bounce": true},
        {"min": [6, 0, -5], "max": [7, 1, 5], "no_bounce": false}
      ],
      "ramps": [
        {"normal": [0.25, 1, 0], "point": [20, 0, 0], "bounds": {"min": [20, -3, -5], "max": [32, 0, 5]}},
        {"normal": [0, 1, 0], "point": [0, -10, 0], "no_bounce": true}
      ],
      "platforms": [
        {"size": [4, 0.5, 4], "path": {"ping_pong": {"from": [34, -3, -2], "to": [40, -3, -2], "period": 6}}, "no_bounce": false}
      ],
      "zones": [
        {"min": [-20, -1, -5], "max": [0, 20, 5], "gravity_scale": 0.5, "wind": [3, 0, 0]},
        {"min": [0, -1, -5], "max": [10, 20, 5]}
      ],
      "checkpoints": [{"min": [10, 0, -5], "max": [20, 6, 5], "spawn": [15, 0, 0]}],
      "finishes": [{"min": [44, -3, -5], "max": [48, 3, 5]}],
      "kills": [{"min": [-50, -40, -50], "max": [100, -10, 50]}],
      "bot_path": [[10, 0, 0], [30, 0, 0]]
    }"#;

    #[test]
    fn name_and_spawn_alone_give_empty_lists() {
        let desc = parse_level_json(r#"{"name": "empty", "spawn": [1, 2.5, -3]}"#).unwrap();
        let expected = WorldDesc {
            name: "empty".into(),
            spawn: v("1", "2.5", "-3"),
            ..WorldDesc::default()
        };
        assert_eq!(desc, expected);
        // Explicitly empty lists are the same.
        let text = r#"{"name": "empty", "spawn": [1, 2.5, -3], "solids": [], "ramps": [],
            "platforms": [], "zones": [], "checkpoints": [], "finishes": [], "kills": [],
            "bot_path": []}"#;
        assert_eq!(parse_level_json(text).unwrap(), expected);
    }

    #[test]
    fn every_field_is_read_with_its_defaults() {
        let desc = parse_level_json(FULL).unwrap();
        assert_eq!(desc.name, "full");
        assert_eq!(desc.spawn, v("0", "2", "0"));
        assert_eq!(desc.solids.len(), 3);
        assert_eq!(
            desc.solids[0],
            Solid {
                bounds: Aabb::new(v("-20", "-1", "-5"), v("20", "0", "5")),
                no_bounce: false
            }
        );
        assert!(desc.solids[1].no_bounce);
        assert!(!desc.solids[2].no_bounce);
        assert_eq!(
            desc.ramps[0],
            Ramp {
                normal: v("0.25", "1", "0"), // kept as written; World normalises
                point: v("20", "0", "0"),
                bounds: Some(Aabb::new(v("20", "-3", "-5"), v("32", "0", "5"))),
                no_bounce: false,
            }
        );
        assert_eq!(desc.ramps[1].bounds, None);
        assert!(desc.ramps[1].no_bounce);
        assert_eq!(
            desc.platforms[0],
            Platform {
                size: v("4", "0.5", "4"),
                path: Path::PingPong {
                    from: v("34", "-3", "-2"),
                    to: v("40", "-3", "-2"),
                    period: fx("6"),
                },
                no_bounce: false,
            }
        );
        assert_eq!(desc.zones[0].gravity_scale, Fx::HALF);
        assert_eq!(desc.zones[0].wind, v("3", "0", "0"));
        assert_eq!(desc.zones[1].gravity_scale, Fx::ONE);
        assert_eq!(desc.zones[1].wind, Vec3::ZERO);
        assert_eq!(desc.checkpoints[0].spawn, v("15", "0", "0"));
        assert_eq!(
            desc.finishes,
            vec![Aabb::new(v("44", "-3", "-5"), v("48", "3", "5"))]
        );
        assert_eq!(desc.kills.len(), 1);
        assert_eq!(desc.bot_path, vec![v("10", "0", "0"), v("30", "0", "0")]);
        World::new(desc, &Tuning::default()).unwrap();
    }

    #[test]
    fn numbers_are_parsed_exactly_not_through_floats() {
        let spawn = |text: &str| {
            parse_level_json(&format!(r#"{{"name": "n", "spawn": {text}}}"#))
                .unwrap()
                .spawn
        };
        assert_eq!(spawn("[0.1, 1e-1, 0.10]"), v("0.1", "0.1", "0.1"));
        assert_eq!(spawn("[0.1, 0, 0]").x.to_bits(), 429_496_730); // round(0.1 · 2³²)
        // Half a step is a tie, rounded to even (0); a hair above rounds up. A float route
        // would lose the hair and give 0 for both.
        let s = spawn(
            "[0.000000000116415321826934814453125, 0.000000000116415321826934814453125000001, -0]",
        );
        assert_eq!((s.x.to_bits(), s.y.to_bits(), s.z.to_bits()), (0, 1, 0));
        // 12 + 2⁻³³ + a hair, exact in no float.
        assert_eq!(
            spawn("[12.000000000116415321826934814453125000001, 3.5E+1, -2.5e0]"),
            Vec3::new(Fx::from_bits((12 << 32) + 1), fx("35"), fx("-2.5"))
        );
        // Whitespace inside vectors is fine.
        assert_eq!(spawn("[ 1 ,\n 2 ,\t3 ]"), v("1", "2", "3"));
        // Periods and scales too.
        let desc = parse_level_json(&level(
            r#""zones": [{"min": [0,0,0], "max": [1,1,1], "gravity_scale": 0.3}],"#,
        ))
        .unwrap();
        assert_eq!(desc.zones[0].gravity_scale.to_bits(), 1_288_490_189);
    }

    #[test]
    fn written_levels_read_back_identically() {
        let full = parse_level_json(FULL).unwrap();
        let odd = WorldDesc {
            name: "quote \" backslash \\ tab-free unicode ✓".into(),
            spawn: Vec3::new(Fx::from_bits(1), Fx::from_bits(-3), fx("-99999.999999")),
            solids: vec![Solid {
                bounds: Aabb::new(
                    v("-100000", "-0.1", "0"),
                    Vec3::new(COORDINATE_MAX, fx("0.1"), Fx::from_bits(12_345_678_901)),
                ),
                no_bounce: true,
            }],
            ramps: vec![Ramp {
                normal: Vec3::new(Fx::from_bits(7), Fx::ONE, Fx::from_bits(-7)),
                point: v("1", "2", "3"),
                bounds: None,
                no_bounce: false,
            }],
            platforms: vec![Platform {
                size: Vec3::new(Fx::DELTA, Fx::ONE, Fx::DELTA),
                path: Path::PingPong {
                    from: v("0", "0", "0"),
                    to: v("0", "0", "0"),
                    period: PERIOD_MAX_FOR_TESTS,
                },
                no_bounce: true,
            }],
            zones: vec![Zone {
                bounds: Aabb::new(Vec3::ZERO, Vec3::ZERO),
                gravity_scale: Fx::ZERO,
                wind: v("-100", "100", "0.000000001"),
            }],
            ..full.clone()
        };
        // The built-in levels too: `levels.rs`, `builtin_levels_read_back_identically`.
        for desc in [full, odd] {
            desc.validate().unwrap();
            let text = level_to_json(&desc);
            assert!(text.starts_with("{\n") && text.ends_with("}\n"));
            let back = parse_level_json(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert_eq!(back.content_hash(), desc.content_hash());
            assert_eq!(back, desc);
        }
    }

    const PERIOD_MAX_FOR_TESTS: Fx = pogo_core::world::PERIOD_MAX;

    #[test]
    fn unknown_field_is_rejected_with_its_path() {
        let (path, problem, message) = field_err(&level(r#""solid": [],"#));
        assert_eq!(path, "solid");
        assert_eq!(
            problem,
            Problem::UnknownField {
                allowed: TOP_FIELDS
            }
        );
        assert!(message.contains("unknown field"), "{message}");
        assert!(message.contains("solids"), "{message}");

        let text = level(
            r#""solids": [{"min": [0,0,0], "max": [1,1,1]},
                          {"min": [0,0,0], "max": [1,1,1], "nobounce": true}],"#,
        );
        let (path, problem, message) = field_err(&text);
        assert_eq!(path, "solids[1].nobounce");
        assert_eq!(
            problem,
            Problem::UnknownField {
                allowed: SOLID_FIELDS
            }
        );
        assert!(message.contains("min, max, no_bounce"), "{message}");
        assert!(message.contains("line 2 column 72"), "{message}");

        let text = level(r#""platforms": [{"size": [1,1,1], "path": {"circle": {"period": 3}}}],"#);
        assert_eq!(field_err(&text).0, "platforms[0].path.circle");
        let text = level(
            r#""ramps": [{"normal": [0,1,0], "point": [0,0,0], "bounds": {"min": [0,0,0], "max": [1,1,1], "mid": 1}}],"#,
        );
        assert_eq!(field_err(&text).0, "ramps[0].bounds.mid");
    }

    #[test]
    fn duplicate_key_is_rejected_with_both_locations() {
        let text = "{\"name\": \"a\",\n \"spawn\": [0, 0, 0],\n \"name\": \"b\"}";
        let (path, problem, message) = field_err(text);
        assert_eq!(path, "name");
        assert_eq!(
            problem,
            Problem::DuplicateKey {
                first: Location {
                    line: 1,
                    column: 10
                }
            }
        );
        assert!(
            message.contains("given twice (first at line 1 column 10) at line 3 column 10"),
            "{message}"
        );
        // Nested, with identical values, and through an escape.
        let text = level(r#""kills": [{"min": [0,0,0], "max": [1,1,1], "m\u0061x": [1,1,1]}],"#);
        let (path, problem, _) = field_err(&text);
        assert_eq!(path, "kills[0].max");
        assert!(matches!(problem, Problem::DuplicateKey { .. }));
    }

    #[test]
    fn escaped_keys_are_unescaped() {
        let desc = parse_level_json(r#"{"n\u0061me": "x", "spawn": [0, 0, 0]}"#).unwrap();
        assert_eq!(desc.name, "x");
    }

    #[test]
    fn wrong_kinds_are_rejected_with_their_path() {
        for (extra, path, expected, found) in [
            (
                r#""solids": [{"min": [0,0,0], "max": [1,1,1]}, {"min": [0,0,0], "max": [1,1,1]},
                   {"min": [0,0,0], "max": [1,1,1]}, {"min": [0,"1",0], "max": [1,1,1]}],"#,
                "solids[3].min[1]",
                "a number",
                JsonKind::String,
            ),
            (r#""solids": {},"#, "solids", "an array", JsonKind::Object),
            (
                r#""solids": [[0,0,0]],"#,
                "solids[0]",
                "an object",
                JsonKind::Array,
            ),
            (
                r#""bot_path": [[0,0,0], {"x": 1}],"#,
                "bot_path[1]",
                "an array [x, y, z]",
                JsonKind::Object,
            ),
            (
                r#""bot_path": [[0,0,null]],"#,
                "bot_path[0][2]",
                "a number",
                JsonKind::Null,
            ),
            (
                r#""solids": [{"min": [0,0,0], "max": [1,1,1], "no_bounce": 1}],"#,
                "solids[0].no_bounce",
                "true or false",
                JsonKind::Number,
            ),
            (
                r#""platforms": [{"size": [1,1,1], "path": {"ping_pong": {"from": [0,0,0], "to": [0,0,0], "period": "4"}}}],"#,
                "platforms[0].path.ping_pong.period",
                "a number",
                JsonKind::String,
            ),
            (
                r#""zones": [{"min": [0,0,0], "max": [1,1,1], "gravity_scale": true}],"#,
                "zones[0].gravity_scale",
                "a number",
                JsonKind::Bool,
            ),
            (
                r#""ramps": [{"normal": [0,1,0], "point": [0,0,0], "bounds": null}],"#,
                "ramps[0].bounds",
                "an object",
                JsonKind::Null,
            ),
        ] {
            let (p, problem, message) = field_err(&level(extra));
            assert_eq!(p, path, "{message}");
            assert_eq!(problem, Problem::Expected { expected, found }, "{message}");
            assert!(
                message.contains(&format!("expected {expected}, found {found}")),
                "{message}"
            );
        }
        let (path, _, message) = field_err(r#"{"name": 7, "spawn": [0,0,0]}"#);
        assert_eq!(path, "name");
        assert!(
            message.contains("expected a string, found a number"),
            "{message}"
        );
        // The top level.
        let (path, problem, message) = field_err("[1, 2]");
        assert_eq!(path, "");
        assert_eq!(
            problem,
            Problem::Expected {
                expected: "an object",
                found: JsonKind::Array
            }
        );
        assert!(
            message.starts_with("level: expected an object"),
            "{message}"
        );
    }

    #[test]
    fn missing_required_fields_are_rejected() {
        for (text, path) in [
            (r#"{"spawn": [0,0,0]}"#.to_string(), "name"),
            (r#"{"name": "x"}"#.to_string(), "spawn"),
            (level(r#""solids": [{"min": [0,0,0]}],"#), "solids[0].max"),
            (
                level(r#""ramps": [{"point": [0,0,0]}],"#),
                "ramps[0].normal",
            ),
            (
                level(r#""checkpoints": [{"min": [0,0,0], "max": [1,1,1]}],"#),
                "checkpoints[0].spawn",
            ),
            (
                level(r#""platforms": [{"size": [1,1,1], "path": {}}],"#),
                "platforms[0].path.ping_pong",
            ),
            (
                level(
                    r#""platforms": [{"size": [1,1,1], "path": {"ping_pong": {"from": [0,0,0], "to": [0,0,0]}}}],"#,
                ),
                "platforms[0].path.ping_pong.period",
            ),
        ] {
            let (p, problem, message) = field_err(&text);
            assert_eq!(
                (p.as_str(), &problem),
                (path, &Problem::Missing),
                "{message}"
            );
            assert!(message.contains("missing"), "{message}");
        }
    }

    #[test]
    fn vectors_must_have_three_elements() {
        for (vector, found) in [
            ("[]", 0),
            ("[1, 2]", 2),
            ("[1, 2, 3, 4]", 4),
            ("[[1], 2, 3]", 3),
        ] {
            let text = format!(r#"{{"name": "x", "spawn": {vector}}}"#);
            let error = parse_err(&text);
            let message = error.to_string();
            assert_eq!(
                error.path(),
                Some(if found == 3 { "spawn[0]" } else { "spawn" }),
                "{message}"
            );
            if found != 3 {
                assert_eq!(error.problem(), Some(&Problem::WrongLength { found }));
                assert!(
                    message.contains(&format!("expected [x, y, z] (3 numbers), found {found}")),
                    "{message}"
                );
            }
        }
    }

    #[test]
    fn min_above_max_is_rejected_naming_the_box_and_axis() {
        let text = level(
            r#""finishes": [{"min": [0,0,0], "max": [1,1,1]}, {"min": [0, 2, 0], "max": [1, 1.5, 1]}],"#,
        );
        let (path, problem, message) = field_err(&text);
        assert_eq!(path, "finishes[1]");
        assert_eq!(
            problem,
            Problem::MinAboveMax {
                axis: 1,
                min: fx("2"),
                max: fx("1.5")
            }
        );
        assert!(
            message.starts_with("finishes[1]: min > max on y (min[1] = 2, max[1] = 1.5)"),
            "{message}"
        );
        let text = level(
            r#""ramps": [{"normal": [0,1,0], "point": [0,0,0], "bounds": {"min": [5,0,0], "max": [1,1,1]}}],"#,
        );
        let (path, problem, _) = field_err(&text);
        assert_eq!(path, "ramps[0].bounds");
        assert!(matches!(problem, Problem::MinAboveMax { axis: 0, .. }));
        // Equal is fine (a flat volume).
        parse_level_json(&level(r#""kills": [{"min": [0,0,0], "max": [0,0,0]}],"#)).unwrap();
    }

    #[test]
    fn numbers_out_of_range_are_rejected() {
        let (path, problem, message) = field_err(r#"{"name": "x", "spawn": [0, 1e300, 0]}"#);
        assert_eq!(path, "spawn[1]");
        assert_eq!(
            problem,
            Problem::Number {
                text: "1e300".into(),
                error: ParseFxError::OutOfRange
            }
        );
        assert!(
            message.contains("1e300 is a number outside the fixed-point range"),
            "{message}"
        );
        let (path, problem, message) = field_err(r#"{"name": "x", "spawn": [0, 0, -100000.0001]}"#);
        assert_eq!(path, "spawn[2]");
        assert!(matches!(problem, Problem::BeyondCoordinateLimit { .. }));
        assert!(
            message.contains("beyond the ±100000 m coordinate limit"),
            "{message}"
        );
        parse_level_json(r#"{"name": "x", "spawn": [100000, -100000, 0]}"#).unwrap();
        // A very long number is shortened in the message.
        let long = format!("1{}", "0".repeat(5000));
        let (_, _, message) = field_err(&format!(r#"{{"name": "x", "spawn": [0, {long}, 0]}}"#));
        assert!(message.len() < 200, "{message}");
        assert!(message.contains("(5001 characters)"), "{message}");
    }

    #[test]
    fn world_rules_are_reported_with_the_json_path() {
        let platform = |from: &str, to: &str, period: &str| {
            level(&format!(
                r#""platforms": [{{"size": [1,1,1], "path": {{"ping_pong": {{"from": {from}, "to": {to}, "period": {period}}}}}}}],"#
            ))
        };
        for (text, path, needle) in [
            (
                platform("[0,0,0]", "[1,0,0]", "0"),
                "platforms[0].path.ping_pong.period",
                "must be within (0, 3600] s",
            ),
            (
                platform("[0,0,0]", "[1,0,0]", "3600.5"),
                "platforms[0].path.ping_pong.period",
                "(0, 3600]",
            ),
            (
                platform("[0,0,0]", "[100,0,0]", "2"),
                "platforms[0].path.ping_pong",
                "faster than 50 m/s",
            ),
            (
                platform("[99999.5,0,0]", "[0,0,0]", "10000"),
                "platforms[0].path.ping_pong.from",
                "100000",
            ),
            (
                level(
                    r#""platforms": [{"size": [1,0,1], "path": {"ping_pong": {"from": [0,0,0], "to": [0,0,0], "period": 1}}}],"#,
                ),
                "platforms[0].size",
                "positive",
            ),
            (
                level(r#""ramps": [{"normal": [0,0,0], "point": [0,0,0]}],"#),
                "ramps[0].normal",
                "zero vector",
            ),
            (
                level(r#""zones": [{"min": [0,0,0], "max": [1,1,1], "gravity_scale": 10.5}],"#),
                "zones[0].gravity_scale",
                "0..=10",
            ),
            (
                level(r#""zones": [{"min": [0,0,0], "max": [1,1,1], "gravity_scale": -1}],"#),
                "zones[0].gravity_scale",
                "0..=10",
            ),
            (
                level(r#""zones": [{"min": [0,0,0], "max": [1,1,1], "wind": [0, -101, 0]}],"#),
                "zones[0].wind",
                "±100 m/s²",
            ),
        ] {
            let (p, problem, message) = field_err(&text);
            assert_eq!(p, path, "{message}");
            assert!(matches!(problem, Problem::Rule(_)), "{message}");
            assert!(message.contains(needle), "{message}");
        }
        // The location points at the named value.
        let text = "{\"name\": \"x\", \"spawn\": [0, 0, 0], \"platforms\": [\n  {\"size\": [1,1,1], \"path\": {\"ping_pong\": {\"from\": [0,0,0], \"to\": [0,0,0], \"period\": 0}}}]}";
        let error = parse_err(text);
        assert!(
            error.to_string().ends_with("at line 2 column 86"),
            "{error}"
        );
        assert!(std::error::Error::source(&error).is_some());
    }

    #[test]
    fn too_many_elements_are_rejected_before_allocating_them() {
        // One waypoint over the limit.
        let waypoints = vec!["[0,0,0]"; WAYPOINTS_MAX + 1].join(",");
        let (path, problem, message) = field_err(&level(&format!(r#""bot_path": [{waypoints}],"#)));
        assert_eq!(path, "bot_path");
        assert_eq!(
            problem,
            Problem::TooMany {
                max: WAYPOINTS_MAX,
                found: WAYPOINTS_MAX + 1
            }
        );
        assert!(message.contains("4097 elements, at most 4096"), "{message}");
        // The count comes first: the elements beyond need not even be boxes.
        let solids = vec!["0"; BOXES_MAX + 1].join(",");
        let (path, problem, _) = field_err(&level(&format!(r#""solids": [{solids}],"#)));
        assert_eq!(path, "solids");
        assert_eq!(
            problem,
            Problem::TooMany {
                max: BOXES_MAX,
                found: BOXES_MAX + 1
            }
        );
        let kills = vec!["{}"; FEATURES_MAX + 1].join(",");
        assert_eq!(
            field_err(&level(&format!(r#""kills": [{kills}],"#))).0,
            "kills"
        );
        // At the limit it is about the elements.
        let kills = vec!["{}"; FEATURES_MAX].join(",");
        assert_eq!(
            field_err(&level(&format!(r#""kills": [{kills}],"#))).0,
            "kills[0].min"
        );
    }

    #[test]
    fn input_size_is_bounded_before_parsing() {
        let mut text = level("");
        text.push_str(&" ".repeat(LEVEL_FILE_BYTES_MAX - text.len() + 1));
        let error = parse_err(&text);
        assert!(matches!(
            error,
            LevelFileError::TooLarge {
                limit: LEVEL_FILE_BYTES_MAX
            }
        ));
        assert!(error.to_string().contains("67108864-byte limit"), "{error}");
        // Right at the limit is still parsed.
        text.pop();
        assert_eq!(text.len(), LEVEL_FILE_BYTES_MAX);
        parse_level_json(&text).unwrap();
    }

    #[test]
    fn invalid_json_is_rejected_with_line_and_column() {
        for (text, line, column) in [
            ("{\"name\": \"x\",\n}", 2, 1),
            ("{\"name\": \"x\", \"spawn\": [0, 0, 0]", 1, 32),
            ("{\"name\": \"x\", \"spawn\": [0, .5, 0]}", 1, 28),
            ("{\"name\": \"x\", \"spawn\": [0, NaN, 0]}", 1, 28),
            ("{} {}", 1, 4),
            ("", 1, 0),
        ] {
            let error = parse_err(text);
            let LevelFileError::Syntax(json) = &error else {
                panic!("{text:?}: {error:?}");
            };
            assert_eq!(
                (json.line(), json.column()),
                (line, column),
                "{text:?}: {json}"
            );
            assert!(error.to_string().starts_with("invalid JSON"), "{error}");
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let depth = 100_000;
        let nested = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert!(parse_level_json(&level(&format!(r#""bot_path": {nested},"#))).is_err());
        assert!(parse_level_json(&nested).is_err());
    }

    #[test]
    fn json_paths_map_world_fields_to_the_file() {
        let render = |list, index, field| render_path(&json_path(list, index, field));
        assert_eq!(render("spawn", None, ""), "spawn");
        assert_eq!(render("solids", Some(3), "bounds"), "solids[3]");
        assert_eq!(render("ramps", Some(1), "bounds"), "ramps[1].bounds");
        assert_eq!(
            render("platforms", Some(0), "path.period"),
            "platforms[0].path.ping_pong.period"
        );
        assert_eq!(
            render("platforms", Some(0), "path"),
            "platforms[0].path.ping_pong"
        );
        assert_eq!(render("platforms", Some(2), "size"), "platforms[2].size");
        assert_eq!(render("bot_path", Some(9), ""), "bot_path[9]");
        assert_eq!(
            render("checkpoints", Some(1), "spawn"),
            "checkpoints[1].spawn"
        );
    }
}
