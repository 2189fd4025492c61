//! The built-in levels, compiled into the binary (no file needed to run them).
//!
//! - **`flat`** — a 400 m × 400 m ground slab, 1 m thick, its top at y = 0; the pogo starts at
//!   the origin. For tuning and steady-bounce checks.
//! - **`course`** — `replay/levels/course.json` (a level file, see `replay/LEVELS.md`), a
//!   course of about a minute along +x, every feature once or more. Sections, west to east:
//!   start pad (x −10…20, top 0); three steps up to 3.5 m (x 20…44); a 5 m gap onto
//!   checkpoint 1's pad; a downhill ramp (slope 1 : 4) back to ground level; a 30 m stretch of
//!   sideways wind (4 m/s² toward +z) between two no-bounce walls; checkpoint 2; a 24 m pit
//!   crossed on two moving platforms (an 8 m one sliding 4 m along x at 1.33 m/s, whose
//!   middle 4 m are always over the same spot, and one rising and sinking 2.5 m at 1 m/s);
//!   checkpoint 3; a low-gravity stretch (gravity × 0.5) with two 6 m gaps and a 2 m step;
//!   checkpoint 4; a low no-bounce barrier to hop over; a kicker step and a second, gentler
//!   downhill ramp; two stairs up, a 4 m gap and the finish pad, closed by a no-bounce end
//!   wall. A kill volume lies under everything (the pillars' bottoms are at y = −4).
//!   `bot_path` lists a landing target per hop, ≤ 7.5 m apart (9.5 m in low gravity), one
//!   just before each gap. A first draft: distances are within a default hop (≤ 6 m gaps,
//!   ≤ 2 m steps up, platforms ≤ 3 m/s); with the default tuning, the demo bot
//!   (`pogo_core::bot`) as of this draft reaches the finish in about 3400 ticks (57 s).
//! - **`sprawl`** — generated: 320 × 320 pillars over 3.2 km × 3.2 km on one ground slab
//!   (102 401 boxes), for the broad phase and for level-size independence of the tick cost.
//!   Every pillar stands inside its 10 m cell leaving a 3 m street along every grid line, so
//!   the streets are always clear ground; pillar footprints 4…7 m (gaps between neighbours
//!   3…6 m) and heights 0.5…6 m come from SplitMix64 of the pillar's index, in quarter metres
//!   (exact in fixed point). The pogo starts at a street crossing at the origin; the bot runs
//!   1 km east along the street z = 0 through three checkpoints to a finish.
//!
//! ```
//! use pogo_core::Tuning;
//! use pogo_core::world::World;
//! use pogo_replay::levels::{BUILTIN_LEVELS, builtin_level};
//!
//! for (name, _description) in BUILTIN_LEVELS {
//!     let desc = builtin_level(name).unwrap();
//!     World::new(desc, &Tuning::default()).unwrap();
//! }
//! ```

use pogo_core::Fx;
use pogo_core::Vec3;
use pogo_core::world::{Aabb, Checkpoint, Solid, WorldDesc};

use crate::level_file::parse_level_json;

/// Every built-in level: its name (for `--level`) and a one-line description.
pub const BUILTIN_LEVELS: &[(&str, &str)] = &[
    (
        "flat",
        "400 m square ground slab, top at y = 0; spawn at the origin",
    ),
    (
        "course",
        "one-minute course along +x: steps, gaps, ramps, moving platforms, wind, low gravity",
    ),
    (
        "sprawl",
        "320 x 320 pillars on 3.2 km x 3.2 km (102401 boxes): broad-phase stress test",
    ),
];

/// The text of the `course` level file, `replay/levels/course.json`.
pub const COURSE_JSON: &str = include_str!("../levels/course.json");

/// The built-in level called `name`, or `None` if there is none (names are case-sensitive;
/// see [`BUILTIN_LEVELS`]).
pub fn builtin_level(name: &str) -> Option<WorldDesc> {
    match name {
        "flat" => Some(flat()),
        "course" => Some(course()),
        "sprawl" => Some(sprawl()),
        _ => None,
    }
}

/// `flat`: one ground slab 400 m × 1 m × 400 m, top at y = 0, spawn at the origin.
pub fn flat() -> WorldDesc {
    let m = Fx::from_int;
    WorldDesc {
        name: "flat".into(),
        spawn: Vec3::ZERO,
        solids: vec![Solid {
            bounds: Aabb::new(
                Vec3::new(m(-200), m(-1), m(-200)),
                Vec3::new(m(200), m(0), m(200)),
            ),
            no_bounce: false,
        }],
        // A 20 m square loop from the spawn.
        bot_path: [(20, 0), (20, 20), (0, 20), (0, 0)]
            .into_iter()
            .map(|(x, z)| Vec3::new(m(x), m(0), m(z)))
            .collect(),
        ..WorldDesc::default()
    }
}

/// `course`, parsed from [`COURSE_JSON`].
///
/// # Panics
///
/// Never for the shipped file: the unit tests parse it (and any edit that breaks it fails
/// them).
pub fn course() -> WorldDesc {
    match parse_level_json(COURSE_JSON) {
        Ok(desc) => desc,
        Err(error) => panic!("built-in level replay/levels/course.json is invalid: {error}"),
    }
}

/// Pillars per side of `sprawl`'s grid.
const SPRAWL_GRID: i64 = 320;
/// `sprawl`'s grid cell (m).
const SPRAWL_CELL: i64 = 10;
/// `sprawl`'s seed for the pillar hash (any constant; changing it changes the level).
const SPRAWL_SEED: u64 = 0x706f_676f_7370_726c; // "pogosprl"

/// `sprawl`: a 320 × 320 grid of pillars over 3.2 km square, generated deterministically.
pub fn sprawl() -> WorldDesc {
    let m = |metres: i64| Fx::from_ratio(metres, 1);
    // Quarter metres are exact in 32.32 fixed point.
    let q = |quarters: i64| Fx::from_ratio(quarters, 4);
    let half = SPRAWL_GRID * SPRAWL_CELL / 2;
    let mut solids = Vec::with_capacity((SPRAWL_GRID * SPRAWL_GRID + 1) as usize);
    solids.push(Solid {
        bounds: Aabb::new(
            Vec3::new(m(-half), m(-1), m(-half)),
            Vec3::new(m(half), m(0), m(half)),
        ),
        no_bounce: false,
    });
    let cell_q = SPRAWL_CELL * 4;
    for row in 0..SPRAWL_GRID {
        for col in 0..SPRAWL_GRID {
            let h = splitmix64(SPRAWL_SEED ^ (row * SPRAWL_GRID + col) as u64);
            let field = |shift: u32, modulus: u64| ((h >> shift) % modulus) as i64;
            // Footprint 4…7 m on each axis; the pillar stays within [1.5, 8.5] m of its cell,
            // leaving a 3 m street along every grid line.
            let size_x = 16 + field(0, 13);
            let size_z = 16 + field(8, 13);
            let offset_x = 6 + field(16, (29 - size_x) as u64);
            let offset_z = 6 + field(24, (29 - size_z) as u64);
            let height = 2 + field(32, 23); // 0.5…6 m
            let x0 = (col - SPRAWL_GRID / 2) * cell_q + offset_x;
            let z0 = (row - SPRAWL_GRID / 2) * cell_q + offset_z;
            solids.push(Solid {
                bounds: Aabb::new(
                    Vec3::new(q(x0), Fx::ZERO, q(z0)),
                    Vec3::new(q(x0 + size_x), q(height), q(z0 + size_z)),
                ),
                no_bounce: false,
            });
        }
    }
    // The street z = 0 (between pillar rows, |z| < 1.5 m clear) eastward for 1 km.
    let street = |x0: i64, x1: i64, top: i64| {
        Aabb::new(
            Vec3::new(m(x0), Fx::ZERO, q(-6)),
            Vec3::new(m(x1), m(top), q(6)),
        )
    };
    let checkpoints = [250, 500, 750]
        .into_iter()
        .map(|x| Checkpoint {
            bounds: street(x - 10, x + 10, 10),
            spawn: Vec3::new(m(x), Fx::ZERO, Fx::ZERO),
        })
        .collect();
    WorldDesc {
        name: "sprawl".into(),
        spawn: Vec3::ZERO,
        solids,
        checkpoints,
        finishes: vec![street(990, 1010, 10)],
        bot_path: (1..=50)
            .map(|k| Vec3::new(m(20 * k), Fx::ZERO, Fx::ZERO))
            .collect(),
        ..WorldDesc::default()
    }
}

/// SplitMix64's output function of `x` (Steele, Lea, Flood 2014): a well-mixed 64-bit hash,
/// integer-only and identical on every platform.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level_file::level_to_json;
    use pogo_core::Tuning;
    use pogo_core::world::World;

    #[test]
    fn every_builtin_level_validates_and_builds() {
        for (name, description) in BUILTIN_LEVELS {
            assert!(!description.is_empty());
            let desc = builtin_level(name).unwrap_or_else(|| panic!("{name} missing"));
            assert_eq!(desc.name, *name);
            desc.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
            let world =
                World::new(desc, &Tuning::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(world.desc().name, *name);
            assert!(!world.desc().bot_path.is_empty(), "{name} has no bot path");
        }
        assert_eq!(builtin_level("nope"), None);
        assert_eq!(builtin_level("Flat"), None);
    }

    #[test]
    fn flat_content_hash_is_pinned() {
        // A silent change to `flat` (or to the content hash) fails here: update deliberately.
        assert_eq!(
            format!("{:016x}", flat().content_hash()),
            "8d77da143a8a5812"
        );
    }

    #[test]
    fn course_uses_every_feature() {
        let c = course();
        assert!(c.ramps.len() >= 2);
        assert!(c.platforms.len() >= 2);
        assert!(c.checkpoints.len() >= 3);
        assert!(!c.finishes.is_empty());
        assert!(!c.kills.is_empty());
        assert!(c.solids.iter().any(|s| s.no_bounce));
        let one = Fx::ONE;
        assert!(c.zones.iter().any(|z| z.wind != Vec3::ZERO));
        assert!(c.zones.iter().any(|z| z.gravity_scale < one));
        // Level files round-trip, so the shipped file could be rewritten by the writer.
        assert_eq!(parse_level_json(&level_to_json(&c)).unwrap(), c);
    }

    #[test]
    fn sprawl_is_large_deterministic_and_keeps_its_streets_clear() {
        let a = sprawl();
        let b = sprawl();
        assert!(a.solids.len() >= 100_000, "{}", a.solids.len());
        assert_eq!(a.solids.len(), 320 * 320 + 1);
        assert_eq!(a.content_hash(), b.content_hash());
        assert_eq!(a, b);
        let street = Fx::lit("1.5");
        let cell = Fx::from_int(10);
        for s in &a.solids[1..] {
            let b = s.bounds;
            // Within [1.5, 8.5] m of its cell on x and z; 0.5…6 m tall, 4…7 m wide.
            for (lo, hi) in [(b.min.x, b.max.x), (b.min.z, b.max.z)] {
                let cell_bits = cell.to_bits();
                let cell_min = Fx::from_bits(lo.to_bits().div_euclid(cell_bits) * cell_bits);
                assert!(
                    lo - cell_min >= street && hi - cell_min <= cell - street,
                    "{b:?}"
                );
                assert!(
                    hi - lo >= Fx::from_int(4) && hi - lo <= Fx::from_int(7),
                    "{b:?}"
                );
            }
            assert!(b.min.y == Fx::ZERO && b.max.y >= Fx::HALF && b.max.y <= Fx::from_int(6));
        }
        // Varied: many distinct heights and footprints.
        let mut heights: Vec<Fx> = a.solids.iter().map(|s| s.bounds.max.y).collect();
        heights.sort();
        heights.dedup();
        assert!(heights.len() > 20);
    }

    #[test]
    fn builtin_levels_read_back_identically() {
        for desc in [flat(), course(), sprawl()] {
            desc.validate().unwrap();
            let text = level_to_json(&desc);
            assert!(text.starts_with("{\n") && text.ends_with("}\n"));
            let back = parse_level_json(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert_eq!(back.content_hash(), desc.content_hash());
            assert_eq!(back, desc);
        }
    }

    #[test]
    fn writer_leaves_out_defaults_and_writes_every_list() {
        let text = level_to_json(&flat());
        for field in crate::level_file::TOP_FIELDS {
            assert!(text.contains(&format!("\"{field}\": ")), "{field}\n{text}");
        }
        assert!(text.contains("\"ramps\": [],\n"));
        assert!(text.contains("{\"min\": [-200, -1, -200], \"max\": [200, 0, 200]}\n"));
        assert!(!text.contains("no_bounce"));
        assert!(text.contains("  \"bot_path\": [\n    [20, 0, 0],\n"));
    }
}
