//! What the server verifies against: the tuning, the levels (built-in ones, `--level` files
//! and players' published tracks) and the [`Verifier`] built once from them; and each level's
//! geometry as JSON for a page that draws it.
//!
//! **Levels by name, resolved on demand.** Built-in levels and `--level` files are known at
//! start. A track (`t-` and 16 hex digits, `pogo_replay::track_level_name`) is a row of the
//! database: [`Catalog::resolve`] looks its row up (is it shown?) and builds its world from
//! the level file stored at publish, keeping the last [`TRACK_LEVELS_CACHED`] built in a
//! bounded LRU (a track's geometry never changes under its name: the name is the geometry's
//! hash, so a cached world is never stale; only whether it is shown is, and that is read
//! from the database on every resolve, so a track hidden by one process is gone from every
//! other at once). Whatever looks a level up by name — an upload, a worker's claim, a live
//! room, a ticket, a board, a ghost — resolves it first and holds the [`Level`] it got:
//! [`Catalog::verifier_for`] gives the verifier that knows its world
//! (`Verifier::with_world`), so an eviction from the cache never fails a verification
//! under way.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex, OnceLock};

use hashlink::LruCache;
use pogo_core::world::{Aabb, Path as PlatformPath, World, WorldDesc};
use pogo_core::{Fx, RULES_VERSION, Tuning, Vec3, seconds_to_ticks};
use pogo_replay::track::is_track_level_name;
use pogo_replay::{
    BUILTIN_LEVELS, FORMAT_VERSION, Header, Limits, Verifier, VerifyError, parse_level_json,
};
use serde::Serialize;
use utoipa::ToSchema;

use crate::season::SeasonId;
use crate::store::{Board, Category, Store, StoreError, hash_hex};

/// Track levels whose worlds are kept built (least recently resolved dropped first). A
/// track's world is at most `pogo_replay::track::TRACK_OBJECTS_MAX` (2 000) objects in a
/// 4 km cube, and what it holds is mostly its broad-phase grid, which grows with the space its
/// objects span (at most `2^21` cells): measured (`tests/tracks.rs`, `world_memory`), a
/// 2 000-object course 1 km long is ≈ 0.36 MiB, 2 000 boxes scattered through the whole cube
/// ≈ 7.6 MiB. 32 of the worst stay under 256 MiB; 32 ordinary ones are ≈ 12 MiB. What a
/// verification, a room or a request holds is its own (an `Arc`), so the cache is only the
/// hot set kept between uses; a miss costs a parse and a `World::new` (milliseconds), off
/// the async threads.
pub const TRACK_LEVELS_CACHED: usize = 32;

/// A level the server accepts runs of.
#[derive(Debug)]
pub struct Level {
    pub name: String,
    /// `WorldDesc::content_hash`.
    pub hash: u64,
    /// A built-in level's description, a level file's note, a track's name (at the time its
    /// world was built: the track routes show the current one).
    pub description: String,
    pub builtin: bool,
    /// A track's world, built when it was resolved (`None` for built-in levels and level
    /// files: the verifier builds those).
    world: Option<Arc<World>>,
    /// The geometry JSON, serialised on first request (sprawl's is megabytes) and kept.
    geometry: OnceLock<Arc<[u8]>>,
}

impl Level {
    /// Whether it is a player's track.
    pub fn is_track(&self) -> bool {
        self.world.is_some()
    }
}

/// The tuning, the levels and the verifier.
#[derive(Debug)]
pub struct Catalog {
    verifier: Verifier,
    levels: BTreeMap<String, Arc<Level>>,
    /// Tracks' levels by level name, built on demand ([`Catalog::resolve`]).
    tracks: Mutex<LruCache<String, Arc<Level>>>,
}

/// Whether [`Catalog::resolve`] answers a hidden track's level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hidden {
    /// Only shown levels: what a route that serves a level or its board asks.
    Refused,
    /// Hidden tracks too: verifying and filing runs already accepted (a queued upload, a
    /// live race under way, reverify), so that hiding a track and showing it again loses
    /// nothing.
    Included,
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
                levels.insert(
                    name.to_string(),
                    Arc::new(Level::new(&desc, description, true)),
                );
            }
        }
        for desc in &files {
            levels.insert(
                desc.name.clone(),
                Arc::new(Level::new(desc, "level file given to the server", false)),
            );
        }
        let verifier = Verifier::new(tuning, files, limits).and_builtin_levels();
        let cached = NonZeroUsize::new(TRACK_LEVELS_CACHED).unwrap_or(NonZeroUsize::MIN);
        Catalog {
            verifier,
            levels,
            tracks: Mutex::new(LruCache::new(cached.get())),
        }
    }

    /// The verifier of the built-in levels and level files (a track's: [`Self::verifier_for`]).
    pub fn verifier(&self) -> &Verifier {
        &self.verifier
    }

    /// The verifier that knows `level`'s world (a clone sharing the built-in levels' worlds).
    pub fn verifier_for(&self, level: &Level) -> Verifier {
        match &level.world {
            Some(world) => self.verifier.with_world(world.clone()),
            None => self.verifier.clone(),
        }
    }

    /// `level`'s world (built on first use for a built-in level).
    pub fn world(&self, level: &Level) -> Option<Arc<World>> {
        match &level.world {
            Some(world) => Some(world.clone()),
            None => self.verifier.world(&level.name),
        }
    }

    pub fn tuning_hash(&self) -> u64 {
        self.verifier.tuning().content_hash()
    }

    pub fn tick_rate(&self) -> u32 {
        self.verifier.tuning().spec().tick_rate
    }

    /// The built-in levels and level files (tracks are listed by `GET /api/tracks`).
    pub fn levels(&self) -> impl Iterator<Item = &Arc<Level>> {
        self.levels.values()
    }

    /// A built-in level or level file by name (not a track: [`Self::resolve`]).
    pub fn level(&self, name: &str) -> Option<Arc<Level>> {
        self.levels.get(name).cloned()
    }

    /// The level of that name: a built-in level or level file, or a published track (shown,
    /// unless `hidden` says otherwise), its world built or taken from the cache. `None`: the
    /// server runs no such level.
    pub async fn resolve(
        &self,
        store: &Store,
        name: &str,
        hidden: Hidden,
    ) -> Result<Option<Arc<Level>>, StoreError> {
        if let Some(level) = self.levels.get(name) {
            return Ok(Some(level.clone()));
        }
        if !is_track_level_name(name) {
            return Ok(None);
        }
        let Some(row) = store.tracks().level(name).await? else {
            return Ok(None);
        };
        if !row.visible && hidden == Hidden::Refused {
            return Ok(None);
        }
        if let Some(level) = self.cached(name) {
            return Ok(Some(level));
        }
        let Some(text) = store.tracks().level_json_by_level(name).await? else {
            return Ok(None);
        };
        let tuning = self.verifier.tuning().clone();
        let name_owned = name.to_string();
        let built = tokio::task::spawn_blocking(move || track_level(&name_owned, &text, &tuning))
            .await
            .map_err(|e| StoreError::Corrupt(format!("building track {name}: {e}")))?;
        let level = Arc::new(built.map_err(|what| {
            tracing::error!(level = %name, what = %what, "a stored track does not build");
            StoreError::Corrupt(format!("the stored track {name} does not build: {what}"))
        })?);
        if hash_hex(level.hash) != row.level_hash {
            tracing::error!(level = %name, "a stored track's level hash differs from its row's");
            return Err(StoreError::Corrupt(format!(
                "the stored track {name} is not the level its row names (damaged at rest?)"
            )));
        }
        self.tracks
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .insert(name.to_string(), level.clone());
        Ok(Some(level))
    }

    /// A track's level from the cache, if built lately.
    fn cached(&self, name: &str) -> Option<Arc<Level>> {
        self.tracks
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .get(name)
            .cloned()
    }

    /// Tracks' levels built and kept now (at most [`TRACK_LEVELS_CACHED`]).
    pub fn tracks_cached(&self) -> usize {
        self.tracks
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .len()
    }

    /// Checks a replay's header against the server's rules, tuning and `level` (without
    /// simulating anything).
    pub fn check_header(&self, level: &Level, header: &Header) -> Result<(), VerifyError> {
        if header.level_name != level.name {
            return Err(VerifyError::UnknownLevel {
                name: header.level_name.clone(),
            });
        }
        self.verifier_for(level).check_header(header).map(|_| ())
    }

    /// The season `level` is in on this server: its content under this server's tuning and
    /// rules.
    pub fn season(&self, level: &Level) -> SeasonId {
        SeasonId {
            rules_version: RULES_VERSION,
            level_hash: level.hash,
            tuning_hash: self.tuning_hash(),
        }
    }

    /// `level`'s current board in `category`: its [season](Catalog::season)'s board
    /// ([`SeasonId::board`], the one way a board is built).
    pub fn board(&self, level: &Level, category: Category) -> Board {
        self.season(level).board(&level.name, category)
    }

    /// The current board in `category` of the level named `name`, if the server runs the
    /// level (resolved as [`Catalog::resolve`] does; a hidden track's: none).
    pub async fn current_board(
        &self,
        store: &Store,
        name: &str,
        category: Category,
    ) -> Result<Option<Board>, StoreError> {
        let level = self.resolve(store, name, Hidden::Refused).await?;
        Ok(level.map(|level| self.board(&level, category)))
    }

    /// The level's geometry as JSON bytes.
    pub fn geometry_json(&self, level: &Level) -> Option<Arc<[u8]>> {
        if let Some(json) = level.geometry.get() {
            return Some(json.clone());
        }
        let world = self.world(level)?;
        let geometry = LevelGeometry::new(level, &world, self.tuning_hash(), self.tick_rate());
        let json: Arc<[u8]> = serde_json::to_vec(&geometry).ok()?.into();
        Some(level.geometry.get_or_init(|| json).clone())
    }
}

/// A track's level from its stored level file (checked at publish; here parsed and built
/// again, and its name checked).
fn track_level(name: &str, text: &str, tuning: &Tuning) -> Result<Level, String> {
    let desc = parse_level_json(text).map_err(|e| e.to_string())?;
    if desc.name != name {
        return Err(format!("its level file is named {:?}", desc.name));
    }
    let world = World::new(desc, tuning).map_err(|e| e.to_string())?;
    Ok(Level {
        name: name.to_string(),
        hash: world.content_hash(),
        description: "a player's track".into(),
        builtin: false,
        world: Some(Arc::new(world)),
        geometry: OnceLock::new(),
    })
}

impl Level {
    fn new(desc: &WorldDesc, description: &str, builtin: bool) -> Level {
        Level {
            name: desc.name.clone(),
            hash: desc.content_hash(),
            description: description.to_string(),
            builtin,
            world: None,
            geometry: OnceLock::new(),
        }
    }
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
        let course_level = catalog.level("course").unwrap();
        let json: serde_json::Value =
            serde_json::from_slice(&catalog.geometry_json(&course_level).unwrap()).unwrap();
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
        let text =
            String::from_utf8(catalog.geometry_json(&course_level).unwrap().to_vec()).unwrap();
        assert!(!text.contains("99999999"), "float noise in the geometry");
        assert!(catalog.level("nope").is_none());
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
