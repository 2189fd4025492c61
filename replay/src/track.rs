//! Player-made tracks: what a level file must be to be published, and the name its geometry
//! gives it.
//!
//! A track is a level file (`LEVELS.md`) made by a player, so it is hostile input twice over:
//! as bytes (bounded before anything is parsed) and as a world (bounded so that every tick on
//! it stays within the core's worst case). [`check_track`] is the one gate: the size first,
//! then the level file's parser and the core's own validation (`World::new`: the format's
//! limits, the broad phase's density bounds), then the tighter limits of a track, each
//! refusal naming the field at fault the way JSON tools do (`solids[3]`).
//!
//! **A track's worst tick is bounded.** [`Track::tick_cost_bound`] is the core's
//! [`tick_cost_bound`] of the track under the server's
//! tuning: the most work one pogo's tick can do on it, in the core's cost units (one grid row
//! visited, one box tested, one platform or ramp considered; `pogo_core::cost` derives it). A
//! track whose bound is over [`TRACK_TICK_COST_MAX`] is refused (`field` "cost", or the
//! densest list). The fuzz target `track` measures every tick it runs on the tracks it
//! makes and checks it against the same bound.
//!
//! **A track's identity is its geometry.** [`geometry_hash`] is the level's content hash with
//! the name and the demo bot's path left out: renaming a track keeps its id (and its board),
//! any change to what a pogo can touch makes a new one. Its level name, the one its replays
//! carry and its boards are keyed by, is [`track_level_name`] of that hash (`t-` and 16 hex
//! digits), so a published track is a level like any other everywhere a level is named.

use pogo_core::Fx;
use pogo_core::Tuning;
use pogo_core::Vec3;
use pogo_core::cost::{platform_speed, tick_cost_bound};
use pogo_core::world::{Aabb, PLATFORM_SPEED_MAX, Path, World, WorldDesc};

use crate::level_file::{LevelFileError, parse_level_json};

/// The largest track file, in bytes: about 4 000 boxes written out in full, far more than
/// [`TRACK_OBJECTS_MAX`] needs, far less than a level file may be.
pub const TRACK_JSON_BYTES_MAX: usize = 256 << 10;

/// The most objects a track holds: solids, ramps, platforms, zones, checkpoints, finishes and
/// kill volumes together.
pub const TRACK_OBJECTS_MAX: usize = 2_000;

/// The most moving platforms a track holds (each is evaluated every tick wherever it is).
pub const TRACK_PLATFORMS_MAX: usize = 64;

/// The most checkpoints a track holds.
pub const TRACK_CHECKPOINTS_MAX: usize = 64;

/// Every coordinate of a track lies within this distance of the origin on each axis (m):
/// a 4 km cube, far inside the core's ±100 km.
pub const TRACK_EXTENT_M: i32 = 2_000;

/// The most work one pogo's tick may cost on a track, in the core's cost units
/// (`pogo_core::cost`), under the tuning the track is checked with.
///
/// Below the bound of the documented worst case, `worst/dense` in `benches/worst.rs` (every
/// density limit of `World::new` at once: 8 525 under the default tuning), so no track's
/// worst tick can be worse by the model than the worst level measured; and over four times
/// `course`'s (1 401), so a hand-made track has room. A floor of half-metre tiles passes, and
/// so does a floor as dense as `World::new` allows; solids piled as densely two or more cells
/// deep do not (`tests`). PERFORMANCE.md, "A track's worst tick", has the figures.
pub const TRACK_TICK_COST_MAX: u64 = 6_000;

/// A track that passed every check.
#[derive(Clone, Debug)]
pub struct Track {
    /// The level, renamed [`track_level_name`] of its geometry.
    pub desc: WorldDesc,
    /// [`geometry_hash`] of the level.
    pub geometry_hash: u64,
    /// The objects it holds (at most [`TRACK_OBJECTS_MAX`]).
    pub objects: usize,
    /// The largest distance of any of its coordinates from the origin on one axis (m, whole
    /// metres rounded up).
    pub extent_m: i32,
    /// The most work one pogo's tick can do on it under the tuning it was checked with, in
    /// the core's cost units (at most [`TRACK_TICK_COST_MAX`]; see the module docs).
    pub tick_cost_bound: u64,
}

/// Why a track is refused: the field at fault (`solids[3]`, `finishes`; empty for the file
/// as a whole) and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrackRefusal {
    /// The JSON path of the value at fault; empty for the file as a whole.
    pub field: String,
    /// What is wrong, for a person.
    pub why: String,
}

impl std::fmt::Display for TrackRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.field.is_empty() {
            f.write_str(&self.why)
        } else {
            write!(f, "{}: {}", self.field, self.why)
        }
    }
}

impl std::error::Error for TrackRefusal {}

fn refuse(field: impl Into<String>, why: impl Into<String>) -> TrackRefusal {
    TrackRefusal {
        field: field.into(),
        why: why.into(),
    }
}

/// Checks a track's level file `text` against `tuning`: the bytes, the format, the core's
/// validation, then a track's limits. The track, renamed by its geometry; or the first
/// problem found.
pub fn check_track(text: &str, tuning: &Tuning) -> Result<Track, TrackRefusal> {
    if text.len() > TRACK_JSON_BYTES_MAX {
        return Err(refuse(
            "",
            format!(
                "the file is {} bytes; a track is at most {TRACK_JSON_BYTES_MAX}",
                text.len()
            ),
        ));
    }
    let desc = parse_level_json(text).map_err(|e| match e {
        LevelFileError::Field { ref path, .. } => refuse(path.clone(), e.to_string()),
        other => refuse("", other.to_string()),
    })?;
    check_desc(desc, tuning)
}

/// [`check_track`] of a level already parsed.
pub fn check_desc(mut desc: WorldDesc, tuning: &Tuning) -> Result<Track, TrackRefusal> {
    let objects = desc.solids.len()
        + desc.ramps.len()
        + desc.platforms.len()
        + desc.zones.len()
        + desc.checkpoints.len()
        + desc.finishes.len()
        + desc.kills.len();
    if objects > TRACK_OBJECTS_MAX {
        return Err(refuse(
            "",
            format!("{objects} objects; a track holds at most {TRACK_OBJECTS_MAX}"),
        ));
    }
    if desc.platforms.len() > TRACK_PLATFORMS_MAX {
        return Err(refuse(
            "platforms",
            format!(
                "{} moving platforms; a track holds at most {TRACK_PLATFORMS_MAX}",
                desc.platforms.len()
            ),
        ));
    }
    if desc.checkpoints.len() > TRACK_CHECKPOINTS_MAX {
        return Err(refuse(
            "checkpoints",
            format!(
                "{} checkpoints; a track holds at most {TRACK_CHECKPOINTS_MAX}",
                desc.checkpoints.len()
            ),
        ));
    }
    if desc.finishes.is_empty() {
        return Err(refuse(
            "finishes",
            "a track needs a finish: it is published by its author finishing it",
        ));
    }
    let extent_m = extent(&desc)?;
    let geometry_hash = geometry_hash(&desc);
    desc.name = track_level_name(geometry_hash);
    let world =
        World::new(desc.clone(), tuning).map_err(|e| refuse(world_field(&e), e.to_string()))?;
    for i in 0..world.platform_count() {
        let speed = platform_speed(&world, i);
        if speed > PLATFORM_SPEED_MAX {
            return Err(refuse(
                format!("platforms[{i}].path.ping_pong"),
                format!(
                    "moves at {speed} m/s once its period is rounded to whole ticks at {} Hz; \
                     a track's platforms move at most {PLATFORM_SPEED_MAX} m/s",
                    world.tick_rate()
                ),
            ));
        }
    }
    let bound = tick_cost_bound(&world, tuning);
    if bound.units > TRACK_TICK_COST_MAX {
        let stats = world.broad_phase_stats();
        return Err(refuse(
            "cost",
            format!(
                "a tick on this track may cost up to {} units, a track's at most \
                 {TRACK_TICK_COST_MAX}: {} solids share one grid cell, {} are too large for \
                 the grid, {} ramps, {} moving platforms (the fastest {} m a tick), winds and \
                 steering up to {} m/s²",
                bound.units,
                stats.solids.densest,
                stats.solids.large,
                world.ramp_count(),
                world.platform_count(),
                bound.platform_step_m,
                bound.acceleration,
            ),
        ));
    }
    Ok(Track {
        desc,
        geometry_hash,
        objects,
        extent_m,
        tick_cost_bound: bound.units,
    })
}

/// The level's content hash with its name and the demo bot's path left out: what a pogo can
/// touch, and nothing else.
pub fn geometry_hash(desc: &WorldDesc) -> u64 {
    let geometry = WorldDesc {
        name: String::new(),
        bot_path: Vec::new(),
        ..desc.clone()
    };
    geometry.content_hash()
}

/// The level name of the track whose geometry hashes to `hash`: `t-` and 16 lowercase hex
/// digits.
pub fn track_level_name(hash: u64) -> String {
    format!("t-{hash:016x}")
}

/// Whether `name` is a track's level name (as [`track_level_name`] writes them).
pub fn is_track_level_name(name: &str) -> bool {
    name.len() == 18
        && name.starts_with("t-")
        && name[2..]
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The field a core validation error names (`solids[3]`, `finishes`).
fn world_field(e: &pogo_core::world::WorldError) -> String {
    use pogo_core::world::WorldError;
    match e {
        WorldError::TooMany { list, .. } | WorldError::TooDense { list, .. } => list.to_string(),
        WorldError::Invalid {
            list, index, field, ..
        } => {
            let mut path = list.to_string();
            if let Some(i) = index {
                path.push_str(&format!("[{i}]"));
            }
            if !field.is_empty() {
                path.push('.');
                path.push_str(field);
            }
            path
        }
    }
}

/// The largest |coordinate| of the track in whole metres, or the first object outside
/// [`TRACK_EXTENT_M`].
fn extent(desc: &WorldDesc) -> Result<i32, TrackRefusal> {
    let limit = Fx::from_int(TRACK_EXTENT_M);
    let mut most = Fx::ZERO;
    let mut point = |field: String, p: Vec3| -> Result<(), TrackRefusal> {
        for c in [p.x, p.y, p.z] {
            let a = c.abs();
            if a > limit {
                return Err(refuse(
                    field,
                    format!(
                        "lies outside the {TRACK_EXTENT_M} m a track may reach from the origin"
                    ),
                ));
            }
            most = most.max(a);
        }
        Ok(())
    };
    let boxed = |point: &mut dyn FnMut(String, Vec3) -> Result<(), TrackRefusal>,
                 field: String,
                 b: &Aabb| {
        point(field.clone(), b.min)?;
        point(field, b.max)
    };
    point("spawn".into(), desc.spawn)?;
    for (i, s) in desc.solids.iter().enumerate() {
        boxed(&mut point, format!("solids[{i}]"), &s.bounds)?;
    }
    for (i, r) in desc.ramps.iter().enumerate() {
        point(format!("ramps[{i}]"), r.point)?;
        if let Some(b) = &r.bounds {
            boxed(&mut point, format!("ramps[{i}]"), b)?;
        }
    }
    for (i, p) in desc.platforms.iter().enumerate() {
        let Path::PingPong { from, to, .. } = p.path;
        for end in [from, to] {
            point(format!("platforms[{i}]"), end + p.size)?;
            point(format!("platforms[{i}]"), end - p.size)?;
        }
    }
    for (i, z) in desc.zones.iter().enumerate() {
        boxed(&mut point, format!("zones[{i}]"), &z.bounds)?;
    }
    for (i, c) in desc.checkpoints.iter().enumerate() {
        boxed(&mut point, format!("checkpoints[{i}]"), &c.bounds)?;
        point(format!("checkpoints[{i}].spawn"), c.spawn)?;
    }
    for (i, f) in desc.finishes.iter().enumerate() {
        boxed(&mut point, format!("finishes[{i}]"), f)?;
    }
    for (i, k) in desc.kills.iter().enumerate() {
        boxed(&mut point, format!("kills[{i}]"), k)?;
    }
    // Whole metres, rounded up (`most` is within the limit, so it fits).
    let near = i32::try_from(most.round_to_int()).unwrap_or(TRACK_EXTENT_M);
    Ok(if Fx::from_int(near) < most {
        near + 1
    } else {
        near
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level_file::level_to_json;

    fn small() -> WorldDesc {
        crate::levels::builtin_level("course").expect("the built-in course")
    }

    #[test]
    fn a_track_is_named_by_its_geometry_and_a_rename_keeps_it() {
        let tuning = Tuning::default();
        let desc = small();
        let track = check_track(&level_to_json(&desc), &tuning).unwrap();
        assert_eq!(track.desc.name, track_level_name(track.geometry_hash));
        assert!(is_track_level_name(&track.desc.name));
        let renamed = WorldDesc {
            name: "another name".into(),
            ..desc.clone()
        };
        assert_eq!(
            geometry_hash(&renamed),
            track.geometry_hash,
            "a rename keeps the id"
        );
        let mut moved = desc.clone();
        moved.spawn.x += Fx::from_int(1);
        assert_ne!(
            geometry_hash(&moved),
            track.geometry_hash,
            "a geometry change makes a new one"
        );
        // The level served under its track name is the same geometry.
        let served = check_track(&level_to_json(&track.desc), &tuning).unwrap();
        assert_eq!(served.geometry_hash, track.geometry_hash);
        assert_eq!(served.desc, track.desc);
    }

    /// The bounds the docs quote (here and in PERFORMANCE.md), so a change of the model
    /// shows here: `course` is a track well within the limit; `flat` and `sprawl` are no
    /// tracks (no finish; 3.2 km and 102 405 objects) but their worlds' bounds are small.
    #[test]
    fn the_built_in_levels_bounds() {
        let tuning = Tuning::default();
        let bound = |name: &str| {
            let desc = crate::levels::builtin_level(name).unwrap();
            tick_cost_bound(&World::new(desc, &tuning).unwrap(), &tuning).units
        };
        assert_eq!(bound("flat"), 12);
        assert_eq!(bound("course"), 1_401);
        assert_eq!(bound("sprawl"), 714);
        let course = check_track(crate::levels::COURSE_JSON, &tuning).unwrap();
        assert_eq!(course.tick_cost_bound, 1_401);
        let sprawl = crate::levels::builtin_level("sprawl").unwrap();
        assert!(
            check_desc(sprawl, &tuning)
                .unwrap_err()
                .why
                .contains("objects")
        );
        assert!(check_desc(crate::levels::flat(), &tuning).is_err());
    }

    /// `n` × `n` × `layers` cells of 2 m, each holding `per_cell` coincident boxes, from the
    /// origin up, under `course`'s spawn area (moved there), with `course`'s finish.
    fn piled(n: i32, layers: i32, per_cell: usize) -> WorldDesc {
        let mut desc = small();
        let hair = Fx::from_bits(1 << 20);
        desc.solids.clear();
        for x in 0..n {
            for y in 0..layers {
                for z in 0..n {
                    let min = Vec3::new(
                        Fx::from_int(2 * x),
                        Fx::from_int(2 * y - 2 * layers),
                        Fx::from_int(2 * z),
                    );
                    let max = min
                        + Vec3::new(
                            Fx::from_int(2) - hair,
                            Fx::from_int(2) - hair,
                            Fx::from_int(2) - hair,
                        );
                    for _ in 0..per_cell {
                        desc.solids.push(pogo_core::world::Solid {
                            bounds: Aabb::new(min, max),
                            no_bounce: false,
                        });
                    }
                }
            }
        }
        desc
    }

    /// What the limit lets through and what it refuses: a floor of half-metre tiles (16 per
    /// 2 m cell) passes, and so does a floor as dense as `World::new` allows
    /// (`CELL_BOXES_MAX` per cell); two such layers, or a block of cells piled four deep,
    /// do not, and the refusal says why.
    #[test]
    fn the_cost_limit_refuses_piles_not_floors() {
        use pogo_core::world::CELL_BOXES_MAX;
        let tuning = Tuning::default();
        let cells = CELL_BOXES_MAX as usize;
        let tiles = check_desc(piled(7, 1, 16), &tuning).unwrap();
        assert_eq!(tiles.tick_cost_bound, 2_661);
        let densest_floor = check_desc(piled(7, 1, cells), &tuning).unwrap();
        assert_eq!(densest_floor.tick_cost_bound, 5_093);
        // 9 285 and 8 739 units.
        for refused in [piled(5, 2, cells), piled(4, 4, 24)] {
            let e = check_desc(refused, &tuning).unwrap_err();
            assert_eq!(e.field, "cost", "{e}");
            assert!(e.why.contains("units"), "{e}");
        }
    }

    #[test]
    fn each_refusal_names_its_field() {
        let tuning = Tuning::default();
        let refused = |desc: WorldDesc| check_track(&level_to_json(&desc), &tuning).unwrap_err();
        let mut no_finish = small();
        no_finish.finishes.clear();
        assert_eq!(refused(no_finish).field, "finishes");
        let mut far = small();
        far.solids[0].bounds.max.x = Fx::from_int(TRACK_EXTENT_M + 1);
        assert_eq!(refused(far).field, "solids[0]");
        let mut crowded = small();
        let solid = crowded.solids[0];
        crowded.solids = vec![solid; TRACK_OBJECTS_MAX + 1];
        assert!(refused(crowded).why.contains("objects"));
        let big = format!("{{\"name\":\"x\",{}}}", " ".repeat(TRACK_JSON_BYTES_MAX));
        assert!(
            check_track(&big, &tuning)
                .unwrap_err()
                .why
                .contains("bytes")
        );
        // 2 · 1.02 m / 0.041 s = 49.8 m/s as written, but 0.041 s is 2 ticks at 60 Hz: the
        // platform would move 1.02 m a tick, 61.2 m/s.
        let mut fast = small();
        let Path::PingPong { from, .. } = fast.platforms[1].path;
        fast.platforms[1].path = Path::PingPong {
            from,
            to: from + Vec3::new(Fx::lit("1.02"), Fx::ZERO, Fx::ZERO),
            period: Fx::lit("0.041"),
        };
        let e = refused(fast.clone());
        assert_eq!(e.field, "platforms[1].path.ping_pong", "{e}");
        assert!(e.why.contains("at 61.2"), "{e}");
        World::new(fast, &tuning).expect("a level, but not a track");
        let err = check_track("{\"name\": 3}", &tuning).unwrap_err();
        assert_eq!(err.field, "name", "{err}");
        assert!(!is_track_level_name("course"));
        assert!(!is_track_level_name("t-00000000000000zz"));
    }
}
