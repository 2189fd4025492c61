// Drawing a level and its ghosts on a canvas, from above (x–z: x east to the right, z south
// down the screen) or from the side (x–y: x to the right, y up). Metres in, CSS pixels out;
// the canvas is scaled by devicePixelRatio so lines stay sharp.
//
// A camera is `{s, x0, v0}`: screen x = (x − x0)·s, screen y = (v − v0)·s, where v is z
// from above and −y from the side. Both views share `s` and `x0`, so a ghost is at the same
// screen x in both.

import { checkpointLabel } from '../shared/format.js';
import { platformAt } from '../shared/level.js';

/** The views: which world axis is drawn downwards, and how. */
export const VIEWS = {
  top: { v: (p) => p[2], vLo: (b) => b.min[2], vHi: (b) => b.max[2] },
  side: { v: (p) => -p[1], vLo: (b) => -b.max[1], vHi: (b) => -b.min[1] },
};

/** Narrowest stretch of level a following camera shows (m). */
export const FOLLOW_WINDOW_MIN_M = 36;
/** Room kept around the ghosts by a following camera (m, each side). */
export const FOLLOW_MARGIN_M = 8;

const COLOURS = {
  background: '#101820',
  solid: [70, 86, 102],
  noBounce: '#6b4b4b',
  ramp: 'rgba(150, 170, 190, 0.85)',
  platform: '#d98e32',
  platformPath: 'rgba(217, 142, 50, 0.25)',
  checkpoint: 'rgba(80, 220, 140, 0.9)',
  checkpointFill: 'rgba(80, 220, 140, 0.12)',
  finish: 'rgba(255, 215, 64, 0.95)',
  finishFill: 'rgba(255, 215, 64, 0.18)',
  kill: 'rgba(200, 40, 40, 0.18)',
  zone: 'rgba(90, 140, 255, 0.12)',
  label: 'rgba(230, 236, 240, 0.85)',
};

/** Sizes a canvas to `width`×`height` CSS pixels at the device's pixel ratio. */
export function sizeCanvas(canvas, width, height) {
  const ratio = window.devicePixelRatio || 1;
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  return { width, height, ratio };
}

/**
 * Cameras for both views. `fit` 'level': each view shows `bounds` whole; 'follow': a window
 * around the ghosts' positions `at` (`[{x, y, z}]`), at least `FOLLOW_WINDOW_MIN_M` wide
 * (times `zoom`), as large a scale as fits both views.
 */
export function cameras(mode, bounds, at, sizes, zoom = 1) {
  const pad = (lo, hi, n) => [lo - n, hi + n];
  if (mode === 'level') {
    const result = {};
    for (const [name, view] of Object.entries(VIEWS)) {
      const { width, height } = sizes[name];
      const [xLo, xHi] = pad(bounds.min[0], bounds.max[0], 2);
      const [vLo, vHi] = pad(view.vLo(bounds), view.vHi(bounds), 2);
      const s = Math.min(width / (xHi - xLo), height / (vHi - vLo));
      result[name] = {
        s,
        x0: (xLo + xHi) / 2 - width / 2 / s,
        v0: (vLo + vHi) / 2 - height / 2 / s,
      };
    }
    return result;
  }
  const xs = at.map((p) => p.x);
  const [xLo, xHi] = [Math.min(...xs), Math.max(...xs)];
  const spread = (values) => Math.max(...values) - Math.min(...values);
  const width = Math.min(sizes.top.width, sizes.side.width);
  let s = width / (Math.max(xHi - xLo + 2 * FOLLOW_MARGIN_M, FOLLOW_WINDOW_MIN_M) * zoom);
  s = Math.min(
    s,
    sizes.top.height / (spread(at.map((p) => p.z)) + 2 * FOLLOW_MARGIN_M),
    sizes.side.height / (spread(at.map((p) => p.y)) + 2 * FOLLOW_MARGIN_M),
  );
  const x0 = (xLo + xHi) / 2 - sizes.top.width / 2 / s;
  const centre = (name, values, lo, hi) => {
    const height = sizes[name].height / s;
    // Centre on the level's extent when it fits, else on the ghosts.
    const mid = hi - lo <= height ? (lo + hi) / 2 : (Math.min(...values) + Math.max(...values)) / 2;
    return mid - height / 2;
  };
  return {
    top: { s, x0, v0: centre('top', at.map((p) => p.z), bounds.min[2], bounds.max[2]) },
    side: { s, x0, v0: centre('side', at.map((p) => -p.y), -bounds.max[1], -bounds.min[1]) },
  };
}

/** A world point `{x, y, z}` on a view's screen (CSS pixels). */
export function toScreen(viewName, camera, p) {
  const v = viewName === 'top' ? p.z : -p.y;
  return { x: (p.x - camera.x0) * camera.s, y: (v - camera.v0) * camera.s };
}

/** Draws the level as it is after `tick` (platforms move) into `ctx`. */
export function drawLevel(ctx, viewName, camera, size, level, tick) {
  const view = VIEWS[viewName];
  const { s, x0, v0 } = camera;
  const visible = { xLo: x0, xHi: x0 + size.width / s, vLo: v0, vHi: v0 + size.height / s };
  const rect = (min, max, fill, stroke) => {
    const vLo = viewName === 'top' ? min[2] : -max[1];
    const vHi = viewName === 'top' ? max[2] : -min[1];
    if (max[0] < visible.xLo || min[0] > visible.xHi || vHi < visible.vLo || vLo > visible.vHi) return;
    const x = (min[0] - x0) * s;
    const y = (vLo - v0) * s;
    const w = Math.max((max[0] - min[0]) * s, 1);
    const h = Math.max((vHi - vLo) * s, 1);
    if (fill) {
      ctx.fillStyle = fill;
      ctx.fillRect(x, y, w, h);
    }
    if (stroke) {
      ctx.strokeStyle = stroke;
      ctx.strokeRect(x + 0.5, y + 0.5, w - 1, h - 1);
    }
  };
  ctx.fillStyle = COLOURS.background;
  ctx.fillRect(0, 0, size.width, size.height);
  ctx.lineWidth = 1;
  // Kill volumes usually lie under the whole level: from above, only those reaching up into
  // the level's bounds are drawn (the rest would tint everything).
  for (const kill of level.kills) {
    if (viewName === 'side' || kill.max[1] > level.bounds.min[1]) rect(kill.min, kill.max, COLOURS.kill);
  }
  for (const zone of level.zones) rect(zone.min, zone.max, COLOURS.zone);
  // From above, higher solids are lighter and drawn last; from the side, nearer (larger z).
  for (const solid of level.solidsByView[viewName]) {
    rect(solid.min, solid.max, solid.no_bounce ? COLOURS.noBounce : solid.shade[viewName]);
  }
  for (const ramp of level.ramps) {
    if (!ramp.corners) continue;
    ctx.fillStyle = COLOURS.ramp;
    ctx.beginPath();
    // From above the four corners; from the side the surface's edge at min z, down to the
    // bounds' floor (the corners at min z and max z coincide there).
    const [c0, c1] = ramp.corners;
    const floor = ramp.bounds.min[1];
    const corners = viewName === 'top' ? ramp.corners : [c0, c1, [c1[0], floor, c1[2]], [c0[0], floor, c0[2]]];
    corners.forEach((c, i) => {
      const x = (c[0] - x0) * s;
      const y = (view.v(c) - v0) * s;
      if (i === 0) ctx.moveTo(x, y);
      else ctx.lineTo(x, y);
    });
    ctx.closePath();
    ctx.fill();
  }
  for (const platform of level.platforms) {
    const lo = platform.from.map((c, i) => Math.min(c, platform.to[i]));
    const hi = platform.from.map((c, i) => Math.max(c, platform.to[i]) + platform.size[i]);
    rect(lo, hi, COLOURS.platformPath);
    const min = platformAt(platform, tick);
    rect(min, min.map((c, i) => c + platform.size[i]), COLOURS.platform);
  }
  ctx.font = '11px system-ui, sans-serif';
  for (const cp of level.checkpoints) {
    rect(cp.min, cp.max, COLOURS.checkpointFill, COLOURS.checkpoint);
    label(ctx, checkpointLabel(cp.index), (cp.min[0] - x0) * s + 3, (view.vLo(cp) - v0) * s + 12);
  }
  for (const finish of level.finishes) {
    rect(finish.min, finish.max, COLOURS.finishFill, COLOURS.finish);
    label(ctx, 'finish', (finish.min[0] - x0) * s + 3, (view.vLo(finish) - v0) * s + 12);
  }
}

function label(ctx, text, x, y) {
  ctx.fillStyle = COLOURS.label;
  ctx.fillText(text, x, y);
}

/** Marker radius (CSS px). */
export const MARKER_RADIUS = 6;

/** Draws each ghost's trail, then each marker and name on top. */
export function drawGhosts(ctx, viewName, camera, ghosts) {
  ctx.lineJoin = 'round';
  ctx.lineCap = 'round';
  for (const { ghost, segments } of ghosts) {
    ctx.strokeStyle = ghost.colour;
    ctx.globalAlpha = 0.55;
    ctx.lineWidth = 3;
    for (const segment of segments) {
      ctx.beginPath();
      segment.forEach((p, i) => {
        const q = toScreen(viewName, camera, p);
        if (i === 0) ctx.moveTo(q.x, q.y);
        else ctx.lineTo(q.x, q.y);
      });
      ctx.stroke();
    }
  }
  ctx.globalAlpha = 1;
  ctx.font = '600 12px system-ui, sans-serif';
  for (const { ghost, at } of ghosts) {
    const q = toScreen(viewName, camera, at);
    ctx.beginPath();
    ctx.arc(q.x, q.y, MARKER_RADIUS, 0, 2 * Math.PI);
    ctx.fillStyle = ghost.colour;
    ctx.fill();
    ctx.lineWidth = 2;
    ctx.strokeStyle = '#ffffff';
    ctx.stroke();
    // The name is canvas text: drawn, never parsed.
    ctx.fillStyle = ghost.colour;
    ctx.fillText(ghost.player, q.x + MARKER_RADIUS + 3, q.y - MARKER_RADIUS);
  }
}
