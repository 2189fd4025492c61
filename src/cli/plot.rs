//! `pogo plot FILE… -o out.svg`: a side view of replays' tip trajectories over their level,
//! as an SVG image — x horizontal (east), y up, in metres — with the time along each one.
//!
//! Every replay is verified first (its trajectory is the re-simulation's) and all must be of
//! one level and one tuning. Each player of each replay is one line, broken where the run
//! teleports (a respawn), in its own colour and named in the legend by its file (and `P<i>`
//! if the replay has several players).
//!
//! # Time along the lines
//!
//! - A dot every second of play, at the tip's position after the tick that ends that second,
//!   labelled with the time (`12 s`). Labels that would overlap one already placed are left
//!   out (the dot stays), so fast and slow stretches, and several runs, stay readable.
//! - A diamond at every split — the tick each checkpoint was first reached, and the finish —
//!   labelled with the split time (`CP2 30.183 s`, `finish 57.600 s`), placed before any
//!   second label, so a split's label is never the one left out. The legend lists each
//!   line's split times as well. A split's time is the end of its tick, `(tick + 1) / rate`,
//!   as in `pogo race`.
//!
//! # The level
//!
//! Under the lines, the level as seen from the side: solid boxes filled, ramps as lines within
//! their bounds, moving platforms outlined at their `from` position, gravity and wind zones
//! shaded and labelled with what they do (`gravity ×0.5`, `wind (0, 0, 4) m/s²`),
//! checkpoint, finish and kill volumes outlined in their own colours. The legend is a column
//! right of the chart, so it never hides a line.
//!
//! Only geometry **near the plotted paths** is drawn: a side view shows everything at every
//! depth, so a wall 5 m beside the path would appear to cross lines that never touch it. A
//! box is drawn if some trajectory point within its x extent (widened by
//! [`NEAR_X_MARGIN`]) is within [`NEAR_Z_MARGIN`] of it in z — a slice that follows the
//! paths — and is left out otherwise (not faded: `sprawl` has 100 000 boxes). Everything
//! drawn is clipped to the view, which spans the trajectories with a margin. Points closer
//! than half a pixel to the previous one are dropped, so long replays stay small files.
//!
//! Text is plain SVG `<text>` in the viewer's sans-serif font: no font is needed to draw.
//! File names in the legend are [escaped](mod@super::escape) and then XML-escaped by the SVG
//! backend, so no name can break the file.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use pogo::core::world::{Aabb, WorldDesc, Zone};
use pogo::core::{Fx, SPEED_MAX, Ticks, Vec3};
use pogo::replay::Ghost;

use super::replays::{ReplayFile, VerifierArgs, check_comparable, seconds};
use super::{CliError, escape, input};

/// A box is near a path if a point of the path within its x extent ± this (m) is within
/// [`NEAR_Z_MARGIN`] of it in z. Half a metre is more than a tick's travel at the speed cap,
/// so even a thin box under a fast path has a path point over it.
pub(crate) const NEAR_X_MARGIN: f64 = 0.5;
/// How far (m) in z a box may be from the path points over it and still be drawn: the pogo's
/// body reaches about its radius to either side of the tip.
pub(crate) const NEAR_Z_MARGIN: f64 = 1.0;

/// Arguments of `pogo plot`.
#[derive(Debug, Args)]
pub(crate) struct PlotCommand {
    /// Replay files to draw (all of the same level and tuning).
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
    /// The SVG file to write.
    #[arg(short = 'o', long = "output", value_name = "OUT.svg")]
    output: PathBuf,
    /// Image width in pixels.
    #[arg(long, value_name = "PX", default_value_t = 1400,
          value_parser = clap::value_parser!(u32).range(200..=20000))]
    width: u32,
    /// Image height in pixels.
    #[arg(long, value_name = "PX", default_value_t = 600,
          value_parser = clap::value_parser!(u32).range(150..=20000))]
    height: u32,
    #[command(flatten)]
    verifier: VerifierArgs,
}

/// A rectangle in the side view: `(x0, y0)` to `(x1, y1)`, metres, `x0 ≤ x1`, `y0 ≤ y1`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Rect {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

/// One trajectory: its legend name, its unbroken pieces, its marks and its split times.
struct Track {
    name: String,
    pieces: Vec<Vec<(f64, f64)>>,
    /// A mark every second of play.
    seconds: Vec<Mark>,
    /// A mark at every split (checkpoints in level order, then the finish).
    splits: Vec<Mark>,
}

/// A labelled point on a trajectory (side-view metres).
struct Mark {
    at: (f64, f64),
    label: String,
}

/// Colours: the level's, then the trajectories' (cycled).
const SOLID: RGBColor = RGBColor(150, 150, 150);
const RAMP: RGBColor = RGBColor(70, 70, 70);
const PLATFORM: RGBColor = RGBColor(140, 86, 75);
const GRAVITY_ZONE: RGBColor = RGBColor(148, 103, 189);
const WIND_ZONE: RGBColor = RGBColor(23, 190, 207);
const CHECKPOINT: RGBColor = RGBColor(23, 160, 207);
const FINISH: RGBColor = RGBColor(44, 160, 44);
const KILL: RGBColor = RGBColor(214, 39, 40);
const TRACKS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(227, 119, 194),
    RGBColor(188, 189, 34),
    RGBColor(0, 0, 0),
];

/// Runs `pogo plot`.
pub(crate) fn run(args: &PlotCommand, out: &mut dyn Write) -> Result<(), CliError> {
    input::check_output("--output", &args.output)?;
    let verifier = args.verifier.build()?;
    let mut files = Vec::with_capacity(args.files.len());
    for path in &args.files {
        files.push(ReplayFile::read(path, &verifier)?);
    }
    for file in &files[1..] {
        check_comparable(
            "plot",
            (files[0].path, &files[0].header),
            (file.path, &file.header),
        )?;
    }
    let mut ghosts = Vec::with_capacity(files.len());
    for file in &files {
        ghosts.push((file.path, file.ghost(&verifier)?));
    }
    let header = &files[0].header;
    let world = verifier
        .world(&header.level_name)
        .ok_or_else(|| CliError::bad_input(format!("unknown level {:?}", header.level_name)))?;
    let desc = world.desc();

    let view = view_of(ghosts.iter().map(|(_, g)| g));
    let near = Near::new(ghosts.iter().map(|(_, g)| g));
    let size = (args.width, args.height);
    // Half a pixel in metres, roughly (the plot area is a little smaller than the image).
    let step = (
        (view.x1 - view.x0) / f64::from(size.0) / 2.0,
        (view.y1 - view.y0) / f64::from(size.1) / 2.0,
    );
    let checkpoints = desc.checkpoints.len();
    let mut tracks = Vec::new();
    for (path, ghost) in &ghosts {
        let players = usize::from(ghost.verified().header.players);
        for player in 0..players {
            tracks.push(track(path, ghost, player, players, checkpoints, step));
        }
    }

    let mut svg = String::new();
    draw(
        &mut svg,
        size,
        &header.level_name,
        desc,
        view,
        &near,
        &tracks,
    )
    .map_err(|e| CliError::bad_input(format!("drawing the plot: {e}")))?;
    std::fs::write(&args.output, svg).map_err(|e| {
        CliError::bad_input(format!("{}: cannot write: {e}", args.output.display()))
    })?;
    writeln!(
        out,
        "wrote {}: {} {} on {}, x {:.1}…{:.1} m, y {:.1}…{:.1} m",
        super::escape::path(&args.output),
        tracks.len(),
        if tracks.len() == 1 {
            "trajectory"
        } else {
            "trajectories"
        },
        escape(&header.level_name),
        view.x0,
        view.x1,
        view.y0,
        view.y1
    )?;
    Ok(())
}

/// One player's trajectory, its marks and its legend name.
fn track(
    path: &Path,
    ghost: &Ghost,
    player: usize,
    players: usize,
    checkpoints: usize,
    step: (f64, f64),
) -> Track {
    let file = super::escape::path(path);
    let name = if players > 1 {
        format!("{file} P{player}")
    } else {
        file
    };
    let rate = ghost.verified().header.tick_rate.max(1);
    let side = |tick: Ticks| ghost.position(tick, player).map(|p| (m(p.x), m(p.y)));
    // Second k ends with tick k·rate − 1.
    let second_marks = (1..=ghost.ticks() / rate)
        .filter_map(|k| {
            let at = side(Ticks(k * rate - 1))?;
            Some(Mark {
                at,
                label: format!("{k} s"),
            })
        })
        .collect();
    // Each checkpoint's first split, in level order, then the finish.
    let mut splits = Vec::new();
    let targets = (0..checkpoints as u32).map(Some).chain([None]);
    for target in targets {
        let Some(split) = ghost.splits(player).iter().find(|s| s.checkpoint == target) else {
            continue;
        };
        let Some(at) = side(split.tick) else {
            continue;
        };
        let name = pogo::replay::checkpoint_name(target);
        splits.push(Mark {
            at,
            label: format!("{name} {} s", seconds(u64::from(split.tick.0) + 1, rate)),
        });
    }
    Track {
        name,
        pieces: pieces(ghost, player, step),
        seconds: second_marks,
        splits,
    }
}

/// Metres as a float, for drawing only.
fn m(v: Fx) -> f64 {
    v.to_bits() as f64 / 4_294_967_296.0
}

/// The side view: every player's tip over every tick, with a margin.
fn view_of<'a>(ghosts: impl Iterator<Item = &'a Ghost>) -> Rect {
    let mut r = Rect {
        x0: f64::INFINITY,
        y0: f64::INFINITY,
        x1: f64::NEG_INFINITY,
        y1: f64::NEG_INFINITY,
    };
    for ghost in ghosts {
        for (_, positions, _) in ghost.frames() {
            for p in positions {
                let (x, y) = (m(p.x), m(p.y));
                r.x0 = r.x0.min(x);
                r.x1 = r.x1.max(x);
                r.y0 = r.y0.min(y);
                r.y1 = r.y1.max(y);
            }
        }
    }
    if !r.x0.is_finite() {
        r = Rect {
            x0: 0.0,
            y0: 0.0,
            x1: 0.0,
            y1: 0.0,
        };
    }
    // At least 10 m × 5 m; 3 m (or 2 %) either side, 1.5 m below (the ground), 1 m above.
    let pad_x = ((10.0 - (r.x1 - r.x0)) / 2.0).max(0.0);
    let pad_y = ((5.0 - (r.y1 - r.y0)) / 2.0).max(0.0);
    let margin_x = 3.0_f64.max((r.x1 - r.x0) * 0.02);
    Rect {
        x0: r.x0 - pad_x - margin_x,
        x1: r.x1 + pad_x + margin_x,
        y0: r.y0 - pad_y - 1.5,
        y1: r.y1 + pad_y + 1.0,
    }
}

/// A player's trajectory as unbroken pieces: a new piece where the player teleports (a
/// respawn); points that moved less than `step` (half a pixel) on both axes since the last
/// kept one are dropped.
///
/// A ghost flags the ticks on which any player teleported; a player is taken to have
/// teleported on such a tick only if it moved further than motion can carry it in one tick
/// ([`SPEED_MAX`] on some axis), so one player's respawn does not break the others' lines.
fn pieces(ghost: &Ghost, player: usize, step: (f64, f64)) -> Vec<Vec<(f64, f64)>> {
    let rate = ghost.verified().header.tick_rate.max(1);
    let reach = m(SPEED_MAX) / f64::from(rate);
    let mut pieces: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut previous: Option<Vec3> = None;
    let mut skipped = None;
    for (_, positions, teleported) in ghost.frames() {
        let Some(&p) = positions.get(player) else {
            continue;
        };
        let jumped = previous.is_none_or(|q| {
            teleported
                && [(p.x, q.x), (p.y, q.y), (p.z, q.z)]
                    .iter()
                    .any(|&(a, b)| (m(a) - m(b)).abs() > reach)
        });
        previous = Some(p);
        let point = (m(p.x), m(p.y));
        match pieces.last_mut() {
            Some(piece) if !jumped => {
                let last = piece[piece.len() - 1];
                if (point.0 - last.0).abs() < step.0 && (point.1 - last.1).abs() < step.1 {
                    skipped = Some(point);
                } else {
                    piece.push(point);
                    skipped = None;
                }
            }
            _ => {
                if let (Some(piece), Some(end)) = (pieces.last_mut(), skipped.take()) {
                    piece.push(end);
                }
                pieces.push(vec![point]);
            }
        }
    }
    if let (Some(piece), Some(end)) = (pieces.last_mut(), skipped) {
        piece.push(end);
    }
    pieces
}

/// Which geometry is near the plotted paths (see the module docs): every trajectory point as
/// `(x, z)`, sorted by x.
struct Near {
    points: Vec<(f64, f64)>,
    /// The middle of the points' z range: where an unbounded ramp is sliced.
    z_middle: f64,
}

impl Near {
    fn new<'a>(ghosts: impl Iterator<Item = &'a Ghost>) -> Near {
        let mut points: Vec<(f64, f64)> = ghosts
            .flat_map(|g| g.frames().flat_map(|(_, positions, _)| positions.iter()))
            .map(|p| (m(p.x), m(p.z)))
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (z0, z1) = points
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(p.1), hi.max(p.1))
            });
        let z_middle = if z0.is_finite() { (z0 + z1) / 2.0 } else { 0.0 };
        Near { points, z_middle }
    }

    /// Whether a path point within `b`'s x extent (± [`NEAR_X_MARGIN`]) is within
    /// [`NEAR_Z_MARGIN`] of `b` in z.
    fn is_near(&self, b: &Aabb) -> bool {
        let (x0, x1) = (m(b.min.x) - NEAR_X_MARGIN, m(b.max.x) + NEAR_X_MARGIN);
        let (z0, z1) = (m(b.min.z) - NEAR_Z_MARGIN, m(b.max.z) + NEAR_Z_MARGIN);
        let first = self.points.partition_point(|p| p.0 < x0);
        self.points[first..]
            .iter()
            .take_while(|p| p.0 <= x1)
            .any(|p| (z0..=z1).contains(&p.1))
    }

    /// The middle z of the path points within `b`'s x extent, clamped into `b`: where a
    /// bounded ramp is sliced.
    fn z_over(&self, b: &Aabb) -> f64 {
        let (x0, x1) = (m(b.min.x) - NEAR_X_MARGIN, m(b.max.x) + NEAR_X_MARGIN);
        let first = self.points.partition_point(|p| p.0 < x0);
        let (lo, hi) = self.points[first..]
            .iter()
            .take_while(|p| p.0 <= x1)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(p.1), hi.max(p.1))
            });
        let middle = if lo.is_finite() {
            (lo + hi) / 2.0
        } else {
            self.z_middle
        };
        middle.clamp(m(b.min.z), m(b.max.z))
    }
}

/// A box's side view clipped to `view`, if it is near the paths and overlaps the view.
fn side(b: &Aabb, view: Rect, near: &Near) -> Option<Rect> {
    clip(b, view).filter(|_| near.is_near(b))
}

/// A box's side view clipped to `view`, if it overlaps the view.
fn clip(b: &Aabb, view: Rect) -> Option<Rect> {
    let r = Rect {
        x0: m(b.min.x).max(view.x0),
        y0: m(b.min.y).max(view.y0),
        x1: m(b.max.x).min(view.x1),
        y1: m(b.max.y).min(view.y1),
    };
    (r.x0 < r.x1 && r.y0 < r.y1).then_some(r)
}

/// A box from its `min` corner and size.
fn aabb_at(min: Vec3, size: Vec3) -> Aabb {
    Aabb {
        min,
        max: Vec3::new(min.x + size.x, min.y + size.y, min.z + size.z),
    }
}

/// The smallest box holding both.
fn union(a: &Aabb, b: &Aabb) -> Aabb {
    Aabb {
        min: Vec3::new(
            a.min.x.min(b.min.x),
            a.min.y.min(b.min.y),
            a.min.z.min(b.min.z),
        ),
        max: Vec3::new(
            a.max.x.max(b.max.x),
            a.max.y.max(b.max.y),
            a.max.z.max(b.max.z),
        ),
    }
}

/// What a zone does, for its label: `gravity ×0.5`, `wind (0, 0, 4) m/s²`, or both.
fn zone_label(zone: &Zone) -> String {
    let mut parts = Vec::new();
    if zone.gravity_scale != Fx::ONE {
        parts.push(format!("gravity ×{}", zone.gravity_scale));
    }
    if zone.wind != Vec3::ZERO {
        let w = zone.wind;
        parts.push(format!("wind ({}, {}, {}) m/s²", w.x, w.y, w.z));
    }
    if parts.is_empty() {
        "zone (no effect)".to_string()
    } else {
        parts.join(", ")
    }
}

/// A ramp's surface as seen from the side, sliced at `zc` (the paths' z over it), clipped to
/// its bounds and the view.
fn ramp_line(
    normal: Vec3,
    point: Vec3,
    bounds: Option<&Aabb>,
    view: Rect,
    zc: f64,
) -> Option<((f64, f64), (f64, f64))> {
    let (nx, ny, nz) = (m(normal.x), m(normal.y), m(normal.z));
    let (px, py, pz) = (m(point.x), m(point.y), m(point.z));
    let mut clip = view;
    if let Some(b) = bounds {
        clip = Rect {
            x0: clip.x0.max(m(b.min.x)),
            y0: clip.y0.max(m(b.min.y)),
            x1: clip.x1.min(m(b.max.x)),
            y1: clip.y1.min(m(b.max.y)),
        };
    }
    if clip.x0 >= clip.x1 || clip.y0 >= clip.y1 {
        return None;
    }
    // The plane: nx (x − px) + ny (y − py) + nz (z − pz) = 0, at z = zc.
    let c = nz * (zc - pz);
    let (a, b) = if ny.abs() > 1e-9 {
        let y = |x: f64| py - (nx * (x - px) + c) / ny;
        ((clip.x0, y(clip.x0)), (clip.x1, y(clip.x1)))
    } else if nx.abs() > 1e-9 {
        let x = px - c / nx;
        ((x, clip.y0), (x, clip.y1))
    } else {
        // Facing the viewer: no line to draw.
        return None;
    };
    clip_segment(a, b, clip)
}

/// Liang–Barsky: the part of segment `a`–`b` inside `r`.
fn clip_segment(a: (f64, f64), b: (f64, f64), r: Rect) -> Option<((f64, f64), (f64, f64))> {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let (mut t0, mut t1) = (0.0_f64, 1.0_f64);
    for (p, q) in [
        (-dx, a.0 - r.x0),
        (dx, r.x1 - a.0),
        (-dy, a.1 - r.y0),
        (dy, r.y1 - a.1),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
        }
    }
    (t0 <= t1).then_some((
        (a.0 + t0 * dx, a.1 + t0 * dy),
        (a.0 + t1 * dx, a.1 + t1 * dy),
    ))
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// How a legend entry is drawn.
#[derive(Clone, Copy)]
enum Swatch {
    Filled(RGBColor, f64),
    Outline(RGBColor),
    Line(RGBColor),
    /// A second dot and a split diamond, in black: what the marks mean.
    Marks,
    /// Text only, indented under the entry above (a line's split times).
    Note,
}

/// Label font size (px) and the width of one character, roughly, for placing labels.
const LABEL_PX: u32 = 11;
const LABEL_CHAR_PX: i32 = 6;

/// Where labels are already, in pixels, so later ones do not overlap them.
#[derive(Default)]
struct Placed(Vec<(i32, i32, i32, i32)>);

impl Placed {
    /// Places a label of `chars` characters next to the point `(x, y)` (pixels) at the first
    /// of a few offsets where it overlaps nothing placed and stays inside `area`; with
    /// `always`, at the first offset anyway. Returns its left-middle anchor.
    fn place(
        &mut self,
        (x, y): (i32, i32),
        chars: usize,
        area: &(std::ops::Range<i32>, std::ops::Range<i32>),
        always: bool,
    ) -> Option<(i32, i32)> {
        let w = chars as i32 * LABEL_CHAR_PX;
        let h = LABEL_PX as i32 + 2;
        let offsets = [(5, -9), (5, 9), (-5 - w, -9), (-5 - w, 9)];
        let boxes = offsets.map(|(dx, dy)| (x + dx, y + dy - h / 2, x + dx + w, y + dy + h / 2));
        let fits = |b: &(i32, i32, i32, i32)| {
            area.0.contains(&b.0)
                && area.0.contains(&b.2)
                && area.1.contains(&b.1)
                && area.1.contains(&b.3)
                && !self
                    .0
                    .iter()
                    .any(|p| b.0 < p.2 && p.0 < b.2 && b.1 < p.3 && p.1 < b.3)
        };
        let chosen = boxes.iter().position(fits).or(always.then_some(0))?;
        self.0.push(boxes[chosen]);
        Some((boxes[chosen].0, (boxes[chosen].1 + boxes[chosen].3) / 2))
    }
}

/// Draws the plot into `svg`: the chart on the left, its legend in a column on the right
/// (so it never hides a trajectory).
fn draw(
    svg: &mut String,
    size: (u32, u32),
    level: &str,
    desc: &WorldDesc,
    view: Rect,
    near: &Near,
    tracks: &[Track],
) -> DrawResult {
    let root = SVGBackend::with_string(svg, size).into_drawing_area();
    root.fill(&WHITE)?;
    let legend = legend_entries(desc, view, near, tracks);
    let longest = legend
        .iter()
        .map(|(label, _)| label.chars().count())
        .max()
        .unwrap_or(0);
    let legend_width = (48 + 7 * longest.max(16) as u32).min(size.0 / 3);
    let (chart_area, legend_area) = root.split_horizontally(size.0 - legend_width);
    let mut chart = ChartBuilder::on(&chart_area)
        .caption(
            format!(
                "{}: side view (x east, y up; geometry within {NEAR_Z_MARGIN} m in z of the \
                 paths)",
                escape(level)
            ),
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(view.x0..view.x1, view.y0..view.y1)?;
    chart
        .configure_mesh()
        .x_desc("x (m)")
        .y_desc("y (m)")
        .light_line_style(WHITE)
        .bold_line_style(RGBColor(225, 225, 225))
        .draw()?;

    let boxes = |list: &mut dyn Iterator<Item = Aabb>| -> Vec<Rect> {
        list.filter_map(|b| side(&b, view, near)).collect()
    };
    let corners = |r: &Rect| [(r.x0, r.y0), (r.x1, r.y1)];

    // Zones first, under everything, shaded and labelled with what they do.
    let zone_style = TextStyle::from(("sans-serif", LABEL_PX).into_font())
        .color(&RGBColor(60, 60, 60))
        .pos(Pos::new(HPos::Left, VPos::Top));
    for zone in &desc.zones {
        let Some(r) = side(&zone.bounds, view, near) else {
            continue;
        };
        let color = zone_color(zone);
        chart.draw_series([Rectangle::new(corners(&r), color.mix(0.12).filled())])?;
        chart.draw_series([Rectangle::new(corners(&r), color.mix(0.5).stroke_width(1))])?;
        let (px, py) = chart.backend_coord(&(r.x0, r.y1));
        root.draw(&Text::new(
            zone_label(zone),
            (px + 4, py + 4),
            zone_style.clone(),
        ))?;
    }

    let solids = boxes(&mut desc.solids.iter().map(|s| s.bounds));
    chart.draw_series(
        solids
            .iter()
            .map(|r| Rectangle::new(corners(r), SOLID.mix(0.6).filled())),
    )?;
    let ramps: Vec<_> = desc
        .ramps
        .iter()
        .filter(|r| r.bounds.as_ref().is_none_or(|b| near.is_near(b)))
        .filter_map(|r| {
            let z = r.bounds.as_ref().map_or(near.z_middle, |b| near.z_over(b));
            ramp_line(r.normal, r.point, r.bounds.as_ref(), view, z)
        })
        .collect();
    chart.draw_series(
        ramps
            .iter()
            .map(|&(a, b)| PathElement::new(vec![a, b], RAMP.stroke_width(3))),
    )?;
    for (_, color, rects) in outlined(desc, view, near) {
        chart.draw_series(
            rects
                .iter()
                .map(|r| Rectangle::new(corners(r), color.stroke_width(2))),
        )?;
    }

    for (i, track) in tracks.iter().enumerate() {
        let color = TRACKS[i % TRACKS.len()];
        chart.draw_series(
            track
                .pieces
                .iter()
                .map(|piece| PathElement::new(piece.clone(), color.stroke_width(2))),
        )?;
    }
    draw_marks(&root, &mut chart, tracks)?;
    draw_legend(&legend_area, &legend)?;
    root.present()?;
    Ok(())
}

type Chart<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// Every track's marks: dots every second, diamonds at splits, and their labels (splits'
/// first, then seconds' where they fit).
fn draw_marks(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    chart: &mut Chart<'_, '_>,
    tracks: &[Track],
) -> DrawResult {
    let area = chart.plotting_area().get_pixel_range();
    let mut placed = Placed::default();
    for (i, track) in tracks.iter().enumerate() {
        let color = TRACKS[i % TRACKS.len()];
        chart.draw_series(
            track
                .seconds
                .iter()
                .map(|mark| Circle::new(mark.at, 2, color.filled())),
        )?;
        chart.draw_series(track.splits.iter().map(|mark| {
            EmptyElement::at(mark.at)
                + Polygon::new(vec![(0, -6), (6, 0), (0, 6), (-6, 0)], color.filled())
                + PathElement::new(vec![(0, -6), (6, 0), (0, 6), (-6, 0), (0, -6)], BLACK)
        }))?;
    }
    for (i, track) in tracks.iter().enumerate() {
        let style = label_style(&TRACKS[i % TRACKS.len()], true);
        for mark in &track.splits {
            let at = chart.backend_coord(&mark.at);
            if let Some(anchor) = placed.place(at, mark.label.chars().count(), &area, true) {
                // On a light backing, so lines under a split's label do not hide it.
                let (x, y) = anchor;
                let w = mark.label.chars().count() as i32 * LABEL_CHAR_PX;
                let half = LABEL_PX as i32 / 2 + 1;
                root.draw(&Rectangle::new(
                    [(x - 1, y - half), (x + w, y + half)],
                    WHITE.mix(0.75).filled(),
                ))?;
                root.draw(&Text::new(mark.label.clone(), anchor, style.clone()))?;
            }
        }
    }
    for (i, track) in tracks.iter().enumerate() {
        let style = label_style(&TRACKS[i % TRACKS.len()], false);
        for mark in &track.seconds {
            let at = chart.backend_coord(&mark.at);
            if let Some(anchor) = placed.place(at, mark.label.chars().count(), &area, false) {
                root.draw(&Text::new(mark.label.clone(), anchor, style.clone()))?;
            }
        }
    }
    Ok(())
}

/// The style of a mark's label: the track's colour, bold for splits.
fn label_style(color: &RGBColor, bold: bool) -> TextStyle<'_> {
    let font = ("sans-serif", LABEL_PX).into_font();
    let font = if bold {
        font.style(FontStyle::Bold)
    } else {
        font
    };
    TextStyle::from(font)
        .color(color)
        .pos(Pos::new(HPos::Left, VPos::Center))
}

/// The zone's colour: wind if it has wind, else gravity.
fn zone_color(zone: &Zone) -> RGBColor {
    if zone.wind != Vec3::ZERO {
        WIND_ZONE
    } else {
        GRAVITY_ZONE
    }
}

/// The outlined volumes near the paths: platforms (at their start), checkpoints, finishes,
/// kill volumes, each with its legend label and colour.
fn outlined(desc: &WorldDesc, view: Rect, near: &Near) -> [(&'static str, RGBColor, Vec<Rect>); 4] {
    let boxes = |list: &mut dyn Iterator<Item = Aabb>| -> Vec<Rect> {
        list.filter_map(|b| side(&b, view, near)).collect()
    };
    [
        (
            "platform (start)",
            PLATFORM,
            desc.platforms
                .iter()
                .filter_map(|p| {
                    let pogo::core::world::Path::PingPong { from, to, .. } = p.path;
                    // Drawn at its start, if any of its travel is near the paths.
                    let start = aabb_at(from, p.size);
                    let travel = union(&start, &aabb_at(to, p.size));
                    near.is_near(&travel).then(|| clip(&start, view)).flatten()
                })
                .collect(),
        ),
        (
            "checkpoint",
            CHECKPOINT,
            boxes(&mut desc.checkpoints.iter().map(|c| c.bounds)),
        ),
        ("finish", FINISH, boxes(&mut desc.finishes.iter().copied())),
        ("kill", KILL, boxes(&mut desc.kills.iter().copied())),
    ]
}

/// The legend: what is drawn of the level, what the marks mean, then each line with its split
/// times (wrapped, three to a line).
fn legend_entries(
    desc: &WorldDesc,
    view: Rect,
    near: &Near,
    tracks: &[Track],
) -> Vec<(String, Swatch)> {
    let boxes = |list: &mut dyn Iterator<Item = Aabb>| -> Vec<Rect> {
        list.filter_map(|b| side(&b, view, near)).collect()
    };
    let mut legend: Vec<(String, Swatch)> = Vec::new();
    if !boxes(&mut desc.solids.iter().map(|s| s.bounds)).is_empty() {
        legend.push(("solid".into(), Swatch::Filled(SOLID, 0.6)));
    }
    if !desc.ramps.is_empty() {
        legend.push(("ramp".into(), Swatch::Line(RAMP)));
    }
    let zones: Vec<&Zone> = desc
        .zones
        .iter()
        .filter(|z| side(&z.bounds, view, near).is_some())
        .collect();
    if zones
        .iter()
        .any(|z| z.gravity_scale != Fx::ONE && z.wind == Vec3::ZERO)
    {
        legend.push(("gravity zone".into(), Swatch::Filled(GRAVITY_ZONE, 0.25)));
    }
    if zones.iter().any(|z| z.wind != Vec3::ZERO) {
        legend.push(("wind zone".into(), Swatch::Filled(WIND_ZONE, 0.25)));
    }
    for (label, color, rects) in outlined(desc, view, near) {
        if !rects.is_empty() {
            legend.push((label.to_string(), Swatch::Outline(color)));
        }
    }
    legend.push(("dot: every second; diamond: split".into(), Swatch::Marks));
    for (i, track) in tracks.iter().enumerate() {
        legend.push((track.name.clone(), Swatch::Line(TRACKS[i % TRACKS.len()])));
        if track.splits.is_empty() {
            legend.push(("no splits".into(), Swatch::Note));
        }
        for row in track.splits.chunks(3) {
            let text: Vec<&str> = row.iter().map(|s| s.label.as_str()).collect();
            legend.push((text.join(", "), Swatch::Note));
        }
    }
    legend
}

/// Draws the legend entries down the legend column.
fn draw_legend(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    legend: &[(String, Swatch)],
) -> DrawResult {
    let style = TextStyle::from(("sans-serif", 14).into_font())
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    let note = TextStyle::from(("sans-serif", 12).into_font())
        .color(&RGBColor(60, 60, 60))
        .pos(Pos::new(HPos::Left, VPos::Center));
    let mut y = 48;
    for (i, (label, swatch)) in legend.iter().enumerate() {
        let mut text_style = &style;
        match *swatch {
            Swatch::Filled(c, alpha) => area.draw(&Rectangle::new(
                [(8, y - 6), (32, y + 6)],
                c.mix(alpha).filled(),
            ))?,
            Swatch::Outline(c) => area.draw(&Rectangle::new(
                [(8, y - 6), (32, y + 6)],
                c.stroke_width(2),
            ))?,
            Swatch::Line(c) => {
                area.draw(&PathElement::new(vec![(8, y), (32, y)], c.stroke_width(3)))?
            }
            Swatch::Marks => {
                area.draw(&Circle::new((12, y), 2, BLACK.filled()))?;
                area.draw(&Polygon::new(
                    vec![(26, y - 6), (32, y), (26, y + 6), (20, y)],
                    BLACK.filled(),
                ))?;
            }
            Swatch::Note => text_style = &note,
        }
        area.draw(&Text::new(label.clone(), (40, y), text_style.clone()))?;
        // A line's split times sit close under it.
        y += match legend.get(i + 1) {
            Some((_, Swatch::Note)) => 16,
            _ => 22,
        };
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_clipped_to_the_rectangle() {
        let r = Rect {
            x0: 0.0,
            y0: 0.0,
            x1: 10.0,
            y1: 10.0,
        };
        assert_eq!(
            clip_segment((-5.0, 5.0), (15.0, 5.0), r),
            Some(((0.0, 5.0), (10.0, 5.0)))
        );
        assert_eq!(clip_segment((-5.0, -5.0), (-1.0, 20.0), r), None);
        assert_eq!(
            clip_segment((0.0, 0.0), (20.0, 20.0), r),
            Some(((0.0, 0.0), (10.0, 10.0)))
        );
    }

    fn aabb(min: (i32, i32, i32), max: (i32, i32, i32)) -> Aabb {
        let v = |(x, y, z): (i32, i32, i32)| {
            Vec3::new(Fx::from_int(x), Fx::from_int(y), Fx::from_int(z))
        };
        Aabb {
            min: v(min),
            max: v(max),
        }
    }

    #[test]
    fn only_geometry_near_the_paths_is_drawn() {
        // A path along z = 0 from x = 0 to 50, then at z = 4 from 50 to 100.
        let points: Vec<(f64, f64)> = (0..1000)
            .map(|i| {
                let x = f64::from(i) / 10.0;
                (x, if x < 50.0 { 0.0 } else { 4.0 })
            })
            .collect();
        let near = Near {
            points,
            z_middle: 2.0,
        };
        // The ground under it, and a wall it runs beside within 1 m: near.
        assert!(near.is_near(&aabb((-10, -1, -10), (110, 0, 10))));
        assert!(near.is_near(&aabb((60, 0, 5), (70, 3, 6))));
        // The same wall where the path is 5 m away, and a box past its end: not near.
        assert!(!near.is_near(&aabb((10, 0, 5), (20, 3, 6))));
        assert!(!near.is_near(&aabb((120, 0, -1), (130, 3, 1))));
        // A box narrower than the point spacing, right under the path: near.
        let thin = Aabb {
            min: Vec3::new(Fx::lit("30.01"), Fx::ZERO, Fx::from_int(-1)),
            max: Vec3::new(Fx::lit("30.02"), Fx::ONE, Fx::ONE),
        };
        assert!(near.is_near(&thin));
        // A ramp is sliced where the path crosses it.
        assert_eq!(near.z_over(&aabb((60, 0, -10), (70, 3, 10))), 4.0);
        assert_eq!(near.z_over(&aabb((200, 0, -10), (210, 3, 10))), 2.0);
    }

    #[test]
    fn labels_do_not_overlap_unless_they_must() {
        let area = (0..1000, 0..1000);
        let mut placed = Placed::default();
        let first = placed.place((100, 100), 4, &area, false).unwrap();
        // The same spot again: another side.
        let second = placed.place((100, 100), 4, &area, false).unwrap();
        assert_ne!(first, second);
        for _ in 0..2 {
            placed.place((100, 100), 4, &area, false).unwrap();
        }
        // Every side taken: left out, unless it must be shown.
        assert_eq!(placed.place((100, 100), 4, &area, false), None);
        assert!(placed.place((100, 100), 4, &area, true).is_some());
        // At the right edge of the plot area: on the left; where no side fits: left out.
        let (x, _) = placed.place((990, 500), 10, &area, false).unwrap();
        assert!(x < 990, "{x}");
        assert_eq!(placed.place((10, 10), 10, &(0..20, 0..20), false), None);
    }

    #[test]
    fn a_ramp_is_drawn_within_its_bounds() {
        let fx = |v: i64, d: i64| Fx::from_ratio(v, d);
        // Slope 1 : 4 down toward +x from (65, 3.5), bounds x 65…79, y −0.5…4.
        let normal = Vec3::new(fx(1, 4), fx(1, 1), fx(0, 1));
        let point = Vec3::new(fx(65, 1), fx(7, 2), fx(0, 1));
        let bounds = Aabb {
            min: Vec3::new(fx(65, 1), fx(-1, 2), fx(-5, 1)),
            max: Vec3::new(fx(79, 1), fx(4, 1), fx(5, 1)),
        };
        let view = Rect {
            x0: -10.0,
            y0: -2.0,
            x1: 300.0,
            y1: 10.0,
        };
        let (a, b) = ramp_line(normal, point, Some(&bounds), view, 0.0).unwrap();
        assert_eq!(a, (65.0, 3.5));
        assert_eq!(b, (79.0, 0.0));
    }
}
