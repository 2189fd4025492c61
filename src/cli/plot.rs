//! `pogo plot FILE… -o out.svg`: a side view of replays' tip trajectories over their level,
//! as an SVG image — x horizontal, y up, in metres.
//!
//! Every replay is verified first (its trajectory is the re-simulation's) and all must be of
//! the same level. Each player of each replay is one line, broken where the run teleports
//! (a respawn), in its own colour and named in the legend by its file (and `P<i>` if the
//! replay has several players). Under the lines, the level as seen from the side: solid
//! boxes filled, ramps as lines within their bounds, moving platforms outlined at their
//! `from` position, checkpoint, finish and kill volumes outlined in their own colours. The
//! legend is a column right of the chart, so it never hides a line.
//!
//! The view spans the trajectories with a margin; only geometry overlapping it, and within
//! [`Z_MARGIN`] of the trajectories' z range (what the side view would hide behind or in
//! front of them is left out), is drawn, clipped to the view. Points closer than half a
//! pixel to the previous one are dropped, so long replays stay small files.
//!
//! Text is plain SVG `<text>` in the viewer's sans-serif font: no font is needed to draw.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use pogo::core::world::{Aabb, WorldDesc};
use pogo::core::{Fx, SPEED_MAX, Vec3};
use pogo::replay::Ghost;

use super::CliError;
use super::replays::{VerifierArgs, load_ghost};

/// Geometry further than this (m) in z from every trajectory is not drawn.
pub(crate) const Z_MARGIN: f64 = 1.0;

/// Arguments of `pogo plot`.
#[derive(Debug, Args)]
pub(crate) struct PlotCommand {
    /// Replay files to draw (all of the same level).
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

/// One trajectory: its legend name and its unbroken pieces.
struct Track {
    name: String,
    pieces: Vec<Vec<(f64, f64)>>,
}

/// Colours: the level's, then the trajectories' (cycled).
const SOLID: RGBColor = RGBColor(150, 150, 150);
const RAMP: RGBColor = RGBColor(70, 70, 70);
const PLATFORM: RGBColor = RGBColor(140, 86, 75);
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
    let verifier = args.verifier.build()?;
    let mut ghosts = Vec::with_capacity(args.files.len());
    for path in &args.files {
        ghosts.push((path, load_ghost(path, &verifier)?));
    }
    let (first_path, first) = &ghosts[0];
    let header = &first.verified().header;
    for (path, ghost) in &ghosts[1..] {
        let h = &ghost.verified().header;
        if (&h.level_name, h.level_hash) != (&header.level_name, header.level_hash) {
            return Err(CliError::bad_input(format!(
                "{} is of level {:?} and {} of level {:?}: a plot shows one level",
                first_path.display(),
                header.level_name,
                path.display(),
                h.level_name
            )));
        }
    }
    let world = verifier
        .world(&header.level_name)
        .ok_or_else(|| CliError::bad_input(format!("unknown level {:?}", header.level_name)))?;
    let desc = world.desc();

    let view = view_of(ghosts.iter().map(|(_, g)| g));
    let (z0, z1) = z_band(ghosts.iter().map(|(_, g)| g));
    let size = (args.width, args.height);
    // Half a pixel in metres, roughly (the plot area is a little smaller than the image).
    let step = (
        (view.x1 - view.x0) / f64::from(size.0) / 2.0,
        (view.y1 - view.y0) / f64::from(size.1) / 2.0,
    );
    let mut tracks = Vec::new();
    for (path, ghost) in &ghosts {
        let players = usize::from(ghost.verified().header.players);
        for player in 0..players {
            let name = if players > 1 {
                format!("{} P{player}", path.display())
            } else {
                path.display().to_string()
            };
            tracks.push(Track {
                name,
                pieces: pieces(ghost, player, step),
            });
        }
    }

    let mut svg = String::new();
    draw(
        &mut svg,
        size,
        &header.level_name,
        desc,
        view,
        (z0, z1),
        &tracks,
    )
    .map_err(|e| CliError::bad_input(format!("drawing the plot: {e}")))?;
    std::fs::write(&args.output, svg).map_err(|e| {
        CliError::bad_input(format!("{}: cannot write: {e}", args.output.display()))
    })?;
    writeln!(
        out,
        "wrote {}: {} trajectories on {}, x {:.1}…{:.1} m, y {:.1}…{:.1} m",
        args.output.display(),
        tracks.len(),
        header.level_name,
        view.x0,
        view.x1,
        view.y0,
        view.y1
    )?;
    Ok(())
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

/// The z range of every trajectory, widened by [`Z_MARGIN`].
fn z_band<'a>(ghosts: impl Iterator<Item = &'a Ghost>) -> (f64, f64) {
    let (mut z0, mut z1) = (f64::INFINITY, f64::NEG_INFINITY);
    for ghost in ghosts {
        for (_, positions, _) in ghost.frames() {
            for p in positions {
                z0 = z0.min(m(p.z));
                z1 = z1.max(m(p.z));
            }
        }
    }
    if !z0.is_finite() {
        (z0, z1) = (0.0, 0.0);
    }
    (z0 - Z_MARGIN, z1 + Z_MARGIN)
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

/// A box's side view clipped to `view`, if it is within the z band and overlaps the view.
fn side(b: &Aabb, view: Rect, z: (f64, f64)) -> Option<Rect> {
    if m(b.max.z) < z.0 || m(b.min.z) > z.1 {
        return None;
    }
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

/// A ramp's surface as seen from the side (at the z nearest the trajectories' middle inside
/// its bounds), clipped to its bounds and the view.
fn ramp_line(
    normal: Vec3,
    point: Vec3,
    bounds: Option<&Aabb>,
    view: Rect,
    z: (f64, f64),
) -> Option<((f64, f64), (f64, f64))> {
    let (nx, ny, nz) = (m(normal.x), m(normal.y), m(normal.z));
    let (px, py, pz) = (m(point.x), m(point.y), m(point.z));
    let mut clip = view;
    let mut zc = (z.0 + z.1) / 2.0;
    if let Some(b) = bounds {
        if m(b.max.z) < z.0 || m(b.min.z) > z.1 {
            return None;
        }
        zc = zc.clamp(m(b.min.z), m(b.max.z));
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
    Filled(RGBColor),
    Outline(RGBColor),
    Line(RGBColor),
}

/// Draws the plot into `svg`: the chart on the left, its legend in a column on the right
/// (so it never hides a trajectory).
fn draw(
    svg: &mut String,
    size: (u32, u32),
    level: &str,
    desc: &WorldDesc,
    view: Rect,
    z: (f64, f64),
    tracks: &[Track],
) -> DrawResult {
    let root = SVGBackend::with_string(svg, size).into_drawing_area();
    root.fill(&WHITE)?;
    let longest = tracks
        .iter()
        .map(|t| t.name.chars().count())
        .max()
        .unwrap_or(0);
    let legend_width = (48 + 8 * longest.max(16) as u32).min(size.0 / 3);
    let (chart_area, legend_area) = root.split_horizontally(size.0 - legend_width);
    let mut chart = ChartBuilder::on(&chart_area)
        .caption(format!("{level}: side view"), ("sans-serif", 20))
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

    let mut legend: Vec<(String, Swatch)> = Vec::new();
    let boxes = |list: &mut dyn Iterator<Item = Aabb>| -> Vec<Rect> {
        list.filter_map(|b| side(&b, view, z)).collect()
    };
    let corners = |r: &Rect| [(r.x0, r.y0), (r.x1, r.y1)];

    let solids = boxes(&mut desc.solids.iter().map(|s| s.bounds));
    if !solids.is_empty() {
        chart.draw_series(
            solids
                .iter()
                .map(|r| Rectangle::new(corners(r), SOLID.mix(0.6).filled())),
        )?;
        legend.push(("solid".into(), Swatch::Filled(SOLID)));
    }
    let ramps: Vec<_> = desc
        .ramps
        .iter()
        .filter_map(|r| ramp_line(r.normal, r.point, r.bounds.as_ref(), view, z))
        .collect();
    if !ramps.is_empty() {
        chart.draw_series(
            ramps
                .iter()
                .map(|&(a, b)| PathElement::new(vec![a, b], RAMP.stroke_width(3))),
        )?;
        legend.push(("ramp".into(), Swatch::Line(RAMP)));
    }
    let outlined: [(&str, RGBColor, Vec<Rect>); 4] = [
        (
            "platform (start)",
            PLATFORM,
            boxes(&mut desc.platforms.iter().map(|p| {
                let pogo::core::world::Path::PingPong { from, .. } = p.path;
                aabb_at(from, p.size)
            })),
        ),
        (
            "checkpoint",
            CHECKPOINT,
            boxes(&mut desc.checkpoints.iter().map(|c| c.bounds)),
        ),
        ("finish", FINISH, boxes(&mut desc.finishes.iter().copied())),
        ("kill", KILL, boxes(&mut desc.kills.iter().copied())),
    ];
    for (label, color, rects) in &outlined {
        if rects.is_empty() {
            continue;
        }
        chart.draw_series(
            rects
                .iter()
                .map(|r| Rectangle::new(corners(r), color.stroke_width(2))),
        )?;
        legend.push((label.to_string(), Swatch::Outline(*color)));
    }

    for (i, track) in tracks.iter().enumerate() {
        let color = TRACKS[i % TRACKS.len()];
        chart.draw_series(
            track
                .pieces
                .iter()
                .map(|piece| PathElement::new(piece.clone(), color.stroke_width(2))),
        )?;
        legend.push((track.name.clone(), Swatch::Line(color)));
    }

    let style = TextStyle::from(("sans-serif", 14).into_font())
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    for (i, (label, swatch)) in legend.iter().enumerate() {
        let y = 48 + 22 * i as i32;
        match *swatch {
            Swatch::Filled(c) => legend_area.draw(&Rectangle::new(
                [(8, y - 6), (32, y + 6)],
                c.mix(0.6).filled(),
            ))?,
            Swatch::Outline(c) => legend_area.draw(&Rectangle::new(
                [(8, y - 6), (32, y + 6)],
                c.stroke_width(2),
            ))?,
            Swatch::Line(c) => {
                legend_area.draw(&PathElement::new(vec![(8, y), (32, y)], c.stroke_width(3)))?
            }
        }
        legend_area.draw(&Text::new(label.clone(), (40, y), style.clone()))?;
    }
    root.present()?;
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
        let (a, b) = ramp_line(normal, point, Some(&bounds), view, (-1.0, 1.0)).unwrap();
        assert_eq!(a, (65.0, 3.5));
        assert_eq!(b, (79.0, 0.0));
        // Out of the z band: hidden.
        assert_eq!(
            ramp_line(normal, point, Some(&bounds), view, (6.0, 8.0)),
            None
        );
    }
}
