//! What the server verifies against: the tuning, the levels (built-in ones and `--level`
//! files) and the [`Verifier`] built once from them; and each level's geometry as JSON for a
//! page that draws it.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use pogo_core::world::{Aabb, Path as PlatformPath, World, WorldDesc};
use pogo_core::{Fx, RULES_VERSION, Tuning, Vec3, seconds_to_ticks};
use pogo_replay::{BUILTIN_LEVELS, FORMAT_VERSION, Header, Limits, Verifier, VerifyError};
use serde::Serialize;
use utoipa::ToSchema;

/// A level the server accepts runs of.
#[derive(Debug)]
pub struct Level {
    pub name: String,
    /// `WorldDesc::content_hash`.
    pub hash: u64,
    pub description: String,
    pub builtin: bool,
    /// The geometry JSON, serialised on first request (sprawl's is megabytes) and kept.
    geometry: OnceLock<Arc<[u8]>>,
}

/// The tuning, the levels and the verifier.
#[derive(Debug)]
pub struct Catalog {
    verifier: Verifier,
    levels: BTreeMap<String, Level>,
}

impl Catalog {
    /// Built-in levels plus `files` (each replacing a built-in level of its name).
    pub fn new(tuning: Tuning, files: Vec<WorldDesc>, limits: Limits) -> Catalog {
        let mut levels = BTreeMap::new();
        for (name, description) in BUILTIN_LEVELS {
            if files.iter().any(|d| d.name == *name) {
                continue;
            }
            if let Some(desc) = pogo_replay::builtin_level(name) {
                levels.insert(name.to_string(), Level::new(&desc, description, true));
            }
        }
        for desc in &files {
            levels.insert(
                desc.name.clone(),
                Level::new(desc, "level file given to the server", false),
            );
        }
        let verifier = Verifier::new(tuning, files, limits).and_builtin_levels();
        Catalog { verifier, levels }
    }

    pub fn verifier(&self) -> &Verifier {
        &self.verifier
    }

    pub fn tuning_hash(&self) -> u64 {
        self.verifier.tuning().content_hash()
    }

    pub fn tick_rate(&self) -> u32 {
        self.verifier.tuning().spec().tick_rate
    }

    pub fn levels(&self) -> impl Iterator<Item = &Level> {
        self.levels.values()
    }

    pub fn level(&self, name: &str) -> Option<&Level> {
        self.levels.get(name)
    }

    /// Checks a replay's header against the server's rules, tuning and levels (without
    /// simulating anything).
    pub fn check_header(&self, header: &Header) -> Result<(), VerifyError> {
        if !self.levels.contains_key(&header.level_name) {
            return Err(VerifyError::UnknownLevel {
                name: header.level_name.clone(),
            });
        }
        self.verifier.check_header(header).map(|_| ())
    }

    /// The level's geometry as JSON bytes.
    pub fn geometry_json(&self, name: &str) -> Option<Arc<[u8]>> {
        let level = self.levels.get(name)?;
        if let Some(json) = level.geometry.get() {
            return Some(json.clone());
        }
        let world = self.verifier.world(name)?;
        let geometry = LevelGeometry::new(level, &world, self.tuning_hash(), self.tick_rate());
        let json: Arc<[u8]> = serde_json::to_vec(&geometry).ok()?.into();
        Some(level.geometry.get_or_init(|| json).clone())
    }
}

impl Level {
    fn new(desc: &WorldDesc, description: &str, builtin: bool) -> Level {
        Level {
            name: desc.name.clone(),
            hash: desc.content_hash(),
            description: description.to_string(),
            builtin,
            geometry: OnceLock::new(),
        }
    }
}

/// A hash as the API shows it: 16 lowercase hex digits (as `pogo levels` prints them).
pub fn hash_hex(hash: u64) -> String {
    format!("{hash:016x}")
}

/// A level in `GET /api/levels`.
#[derive(Debug, Serialize, ToSchema)]
pub struct LevelSummary {
    pub name: String,
    /// The level's content hash (16 hex digits), as in a replay's header.
    pub hash: String,
    /// The server's tuning hash (16 hex digits): a replay must carry the same.
    pub tuning_hash: String,
    /// `pogo_core::RULES_VERSION` the server simulates.
    pub rules_version: u32,
    /// The replay format version the server reads.
    pub format_version: u16,
    /// Ticks per second.
    pub tick_rate: u32,
    pub description: String,
    /// Whether it is one of the built-in levels (else a level file given to the server).
    pub builtin: bool,
    /// `GET` this for the geometry.
    pub level_url: String,
    pub leaderboard_url: String,
}

impl LevelSummary {
    pub fn new(level: &Level, catalog: &Catalog) -> LevelSummary {
        LevelSummary {
            name: level.name.clone(),
            hash: hash_hex(level.hash),
            tuning_hash: hash_hex(catalog.tuning_hash()),
            rules_version: RULES_VERSION,
            format_version: FORMAT_VERSION,
            tick_rate: catalog.tick_rate(),
            description: level.description.clone(),
            builtin: level.builtin,
            level_url: format!("/api/levels/{}", level.name),
            leaderboard_url: format!("/api/levels/{}/leaderboard", level.name),
        }
    }
}

/// A point or vector in metres: `[x, y, z]` (x east, y up, z south), rounded to the
/// micrometre.
pub type Xyz = [f64; 3];

/// An axis-aligned box: `min` ≤ `max` on every axis.
#[derive(Clone, Copy, Debug, Serialize, ToSchema)]
pub struct BoxJson {
    #[schema(value_type = Vec<f64>)]
    pub min: Xyz,
    #[schema(value_type = Vec<f64>)]
    pub max: Xyz,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct SolidJson {
    #[schema(value_type = Vec<f64>)]
    pub min: Xyz,
    #[schema(value_type = Vec<f64>)]
    pub max: Xyz,
    /// A tip contact never bounces on it (walls, ledges).
    pub no_bounce: bool,
}

/// A one-sided plane patch, solid on the side opposite `normal`, existing only inside
/// `bounds` (none: an unbounded plane).
#[derive(Debug, Serialize, ToSchema)]
pub struct RampJson {
    /// Unit normal of the front face.
    #[schema(value_type = Vec<f64>)]
    pub normal: Xyz,
    /// A point on the plane.
    #[schema(value_type = Vec<f64>)]
    pub point: Xyz,
    pub bounds: Option<BoxJson>,
    pub no_bounce: bool,
    /// For drawing: the surface at the four (x, z) corners of `bounds`, in the order
    /// (min x, min z), (max x, min z), (max x, max z), (min x, max z), with y on the plane
    /// clamped into the bounds. `null` for an unbounded or vertical ramp.
    #[schema(value_type = Option<Vec<Vec<f64>>>)]
    pub corners: Option<[Xyz; 4]>,
}

/// A box moving back and forth: its `min` corner goes from `from` to `to` in the first half
/// of `period_ticks`, back in the second, starting at `from` on tick 0. After tick `t` (the
/// simulation's tick count), with `p = t mod period_ticks` and `h = period_ticks / 2`:
/// `min = from + (to − from) · p / h` if `p < h`, else `to + (from − to) · (p − h) / h`.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlatformJson {
    #[schema(value_type = Vec<f64>)]
    pub size: Xyz,
    #[schema(value_type = Vec<f64>)]
    pub from: Xyz,
    #[schema(value_type = Vec<f64>)]
    pub to: Xyz,
    /// The period as the level gives it (s).
    pub period_s: f64,
    /// The period the simulation uses (ticks: rounded, at least 2, even).
    pub period_ticks: u32,
    pub no_bounce: bool,
}

/// A volume where gravity is scaled and wind added (to a pogo whose body centre is inside).
#[derive(Debug, Serialize, ToSchema)]
pub struct ZoneJson {
    #[schema(value_type = Vec<f64>)]
    pub min: Xyz,
    #[schema(value_type = Vec<f64>)]
    pub max: Xyz,
    pub gravity_scale: f64,
    /// m/s².
    #[schema(value_type = Vec<f64>)]
    pub wind: Xyz,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CheckpointJson {
    /// The checkpoint's index (the `checkpoint` of a split).
    pub index: u32,
    #[schema(value_type = Vec<f64>)]
    pub min: Xyz,
    #[schema(value_type = Vec<f64>)]
    pub max: Xyz,
    /// Where the tip respawns after it.
    #[schema(value_type = Vec<f64>)]
    pub spawn: Xyz,
}

/// Everything a page needs to draw a level from above (x–z) and from the side (x–y).
/// Metres; x east, y up, z south. Volumes (zones, checkpoints, finishes, kills) are tested
/// against the pogo's body centre, 0.8 m above its tip.
#[derive(Debug, Serialize, ToSchema)]
pub struct LevelGeometry {
    pub name: String,
    pub hash: String,
    pub tuning_hash: String,
    pub rules_version: u32,
    pub tick_rate: u32,
    /// Where the tip starts.
    #[schema(value_type = Vec<f64>)]
    pub spawn: Xyz,
    /// A box around every solid, ramp bound, platform's travel and volume except kill
    /// volumes (which often reach far below): a page's initial view.
    pub bounds: BoxJson,
    pub solids: Vec<SolidJson>,
    pub ramps: Vec<RampJson>,
    pub platforms: Vec<PlatformJson>,
    pub zones: Vec<ZoneJson>,
    pub checkpoints: Vec<CheckpointJson>,
    pub finishes: Vec<BoxJson>,
    pub kills: Vec<BoxJson>,
}

/// A fixed-point value in metres as a float (the display edge), rounded to 1 µm so the JSON
/// says `0.1`, not `0.09999999986`.
pub fn metres(v: Fx) -> f64 {
    let exact = v.to_bits() as f64 / 4_294_967_296.0;
    (exact * 1e6).round() / 1e6
}

pub fn xyz(v: Vec3) -> Xyz {
    [metres(v.x), metres(v.y), metres(v.z)]
}

fn box_json(b: &Aabb) -> BoxJson {
    BoxJson {
        min: xyz(b.min),
        max: xyz(b.max),
    }
}

/// The period in ticks the world uses for a platform period in seconds (as `World::new`
/// computes it: rounded, at least 2, up to even).
pub fn platform_period_ticks(period: Fx, tick_rate: u32) -> u32 {
    let ticks = seconds_to_ticks(period, tick_rate).0.max(2);
    ticks + ticks % 2
}

impl LevelGeometry {
    fn new(level: &Level, world: &World, tuning_hash: u64, tick_rate: u32) -> LevelGeometry {
        let desc = world.desc();
        let mut bounds: Option<Aabb> = None;
        let mut grow = |b: Aabb| bounds = Some(bounds.map_or(b, |a| a.union(&b)));
        desc.solids.iter().for_each(|s| grow(s.bounds));
        desc.ramps
            .iter()
            .filter_map(|r| r.bounds)
            .for_each(&mut grow);
        for p in &desc.platforms {
            let PlatformPath::PingPong { from, to, .. } = p.path;
            grow(Aabb::new(from, from + p.size).union(&Aabb::new(to, to + p.size)));
        }
        desc.zones.iter().for_each(|z| grow(z.bounds));
        desc.checkpoints.iter().for_each(|c| grow(c.bounds));
        desc.finishes.iter().copied().for_each(&mut grow);
        grow(Aabb::new(desc.spawn, desc.spawn));
        let bounds = bounds.unwrap_or_default();
        LevelGeometry {
            name: level.name.clone(),
            hash: hash_hex(level.hash),
            tuning_hash: hash_hex(tuning_hash),
            rules_version: RULES_VERSION,
            tick_rate,
            spawn: xyz(desc.spawn),
            bounds: box_json(&bounds),
            solids: desc
                .solids
                .iter()
                .map(|s| SolidJson {
                    min: xyz(s.bounds.min),
                    max: xyz(s.bounds.max),
                    no_bounce: s.no_bounce,
                })
                .collect(),
            ramps: desc
                .ramps
                .iter()
                .map(|r| {
                    let normal = r.normal.normalize_or(r.normal);
                    RampJson {
                        normal: xyz(normal),
                        point: xyz(r.point),
                        bounds: r.bounds.as_ref().map(box_json),
                        no_bounce: r.no_bounce,
                        corners: r
                            .bounds
                            .and_then(|b| ramp_corners(xyz(normal), xyz(r.point), &b)),
                    }
                })
                .collect(),
            platforms: desc
                .platforms
                .iter()
                .map(|p| {
                    let PlatformPath::PingPong { from, to, period } = p.path;
                    PlatformJson {
                        size: xyz(p.size),
                        from: xyz(from),
                        to: xyz(to),
                        period_s: metres(period),
                        period_ticks: platform_period_ticks(period, tick_rate),
                        no_bounce: p.no_bounce,
                    }
                })
                .collect(),
            zones: desc
                .zones
                .iter()
                .map(|z| ZoneJson {
                    min: xyz(z.bounds.min),
                    max: xyz(z.bounds.max),
                    gravity_scale: metres(z.gravity_scale),
                    wind: xyz(z.wind),
                })
                .collect(),
            checkpoints: desc
                .checkpoints
                .iter()
                .enumerate()
                .map(|(i, c)| CheckpointJson {
                    index: i as u32,
                    min: xyz(c.bounds.min),
                    max: xyz(c.bounds.max),
                    spawn: xyz(c.spawn),
                })
                .collect(),
            finishes: desc.finishes.iter().map(box_json).collect(),
            kills: desc.kills.iter().map(box_json).collect(),
        }
    }
}

/// The ramp's plane at the (x, z) corners of its bounds (see [`RampJson::corners`]).
fn ramp_corners(n: Xyz, p: Xyz, b: &Aabb) -> Option<[Xyz; 4]> {
    if n[1].abs() < 1e-9 {
        return None;
    }
    let (lo, hi) = (xyz(b.min), xyz(b.max));
    let at = |x: f64, z: f64| {
        let y = p[1] - (n[0] * (x - p[0]) + n[2] * (z - p[2])) / n[1];
        [x, ((y.clamp(lo[1], hi[1])) * 1e6).round() / 1e6, z]
    };
    Some([
        at(lo[0], lo[2]),
        at(hi[0], lo[2]),
        at(hi[0], hi[2]),
        at(lo[0], hi[2]),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use pogo_core::Ticks;

    #[test]
    fn platform_periods_are_the_worlds() {
        let tuning = Tuning::default();
        let course = pogo_replay::builtin_level("course").unwrap();
        let world = World::new(course, &tuning).unwrap();
        assert!(world.platform_count() >= 2);
        for i in 0..world.platform_count() {
            let PlatformPath::PingPong { from, to, period } = world.platform(i).path;
            let ticks = platform_period_ticks(period, tuning.spec().tick_rate);
            assert_eq!(world.platform_position(i, Ticks(0)), from);
            assert_eq!(
                world.platform_position(i, Ticks(ticks / 2)),
                to,
                "platform {i}"
            );
            assert_eq!(
                world.platform_position(i, Ticks(ticks)),
                from,
                "platform {i}"
            );
            assert_ne!(
                world.platform_position(i, Ticks(ticks - 1)),
                from,
                "platform {i}"
            );
        }
    }

    #[test]
    fn course_geometry_has_what_a_page_draws() {
        let catalog = Catalog::new(Tuning::default(), vec![], Limits::default());
        let json: serde_json::Value =
            serde_json::from_slice(&catalog.geometry_json("course").unwrap()).unwrap();
        let course = pogo_replay::builtin_level("course").unwrap();
        assert_eq!(json["name"], "course");
        assert_eq!(json["hash"], hash_hex(course.content_hash()));
        assert_eq!(
            json["solids"].as_array().unwrap().len(),
            course.solids.len()
        );
        assert_eq!(
            json["checkpoints"].as_array().unwrap().len(),
            course.checkpoints.len()
        );
        assert_eq!(json["checkpoints"][1]["index"], 1);
        let ramp = &json["ramps"][0];
        let corners = ramp["corners"].as_array().unwrap();
        assert_eq!(corners.len(), 4);
        // A downhill ramp: the corners differ in height, within the bounds.
        let ys: Vec<f64> = corners.iter().map(|c| c[1].as_f64().unwrap()).collect();
        assert!(ys.iter().any(|&y| y != ys[0]), "{ys:?}");
        let (lo, hi) = (
            ramp["bounds"]["min"][1].as_f64().unwrap(),
            ramp["bounds"]["max"][1].as_f64().unwrap(),
        );
        assert!(ys.iter().all(|&y| (lo..=hi).contains(&y)), "{ys:?}");
        // Exact decimals, not float noise.
        let text = String::from_utf8(catalog.geometry_json("course").unwrap().to_vec()).unwrap();
        assert!(!text.contains("99999999"), "float noise in the geometry");
        assert!(catalog.geometry_json("nope").is_none());
    }

    #[test]
    fn a_level_file_replaces_the_builtin_of_its_name() {
        let mut flat = pogo_replay::builtin_level("flat").unwrap();
        flat.spawn = Vec3::new(Fx::ONE, Fx::ZERO, Fx::ZERO);
        let catalog = Catalog::new(Tuning::default(), vec![flat.clone()], Limits::default());
        let level = catalog.level("flat").unwrap();
        assert!(!level.builtin);
        assert_eq!(level.hash, flat.content_hash());
        assert!(catalog.level("course").unwrap().builtin);
    }
}
