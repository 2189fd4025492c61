// A track's top-down picture, drawn from its level file alone: the same geometry always
// gives the same picture (no randomness, no time, nothing but the level's numbers and the
// canvas's size). Looking down the y axis: x east to the right, z south downwards.
// Solids are shaded by height (higher is lighter), drawn lowest first; ramps in blue-grey,
// moving platforms at both ends of their path, zones faint violet, checkpoints cyan and
// numbered in race order, finishes green, the spawn white. Kill volumes are left out (they
// are usually a floor far below everything, and would only shrink the picture).

const SOLID_LO = 70;
const SOLID_HI = 165;
const COLOURS = {
  background: '#0d131c',
  ramp: 'rgba(120, 150, 190, 0.85)',
  platform: 'rgba(230, 150, 60, 0.9)',
  path: 'rgba(230, 150, 60, 0.7)',
  zone: 'rgba(150, 110, 230, 0.18)',
  checkpoint: '#40c4f0',
  finish: 'rgba(70, 200, 120, 0.85)',
  spawn: '#ffffff',
};
/** Space kept around the track (fraction of the canvas's shorter side). */
const MARGIN = 0.06;

/** Every box of the level that is drawn, as [minX, minZ, maxX, maxZ]. */
function boxes(level) {
  const box = (b) => [b.min[0], b.min[2], b.max[0], b.max[2]];
  const out = [];
  for (const s of level.solids ?? []) out.push(box(s));
  for (const r of level.ramps ?? []) if (r.bounds) out.push(box(r.bounds));
  for (const p of level.platforms ?? []) {
    const { from, to } = p.path.ping_pong;
    for (const end of [from, to]) out.push([end[0] - p.size[0], end[2] - p.size[2], end[0] + p.size[0], end[2] + p.size[2]]);
  }
  for (const c of level.checkpoints ?? []) out.push(box(c));
  for (const f of level.finishes ?? []) out.push(box(f));
  const [x, , z] = level.spawn;
  out.push([x, z, x, z]);
  return out;
}

/** The world → canvas mapping that fits the level into `width` × `height`. */
function fit(level, width, height) {
  let [x0, z0, x1, z1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [a, b, c, d] of boxes(level)) {
    x0 = Math.min(x0, a); z0 = Math.min(z0, b); x1 = Math.max(x1, c); z1 = Math.max(z1, d);
  }
  const margin = MARGIN * Math.min(width, height);
  const scale = Math.min((width - 2 * margin) / Math.max(x1 - x0, 1), (height - 2 * margin) / Math.max(z1 - z0, 1));
  const ox = (width - (x1 - x0) * scale) / 2 - x0 * scale;
  const oz = (height - (z1 - z0) * scale) / 2 - z0 * scale;
  return { scale, px: (x) => ox + x * scale, pz: (z) => oz + z * scale };
}

/** Draws `level` (a parsed level file) on `canvas`. */
export function drawTrackPicture(canvas, level) {
  const g = canvas.getContext('2d');
  const { width, height } = canvas;
  g.fillStyle = COLOURS.background;
  g.fillRect(0, 0, width, height);
  const { scale, px, pz } = fit(level, width, height);
  const rect = (min, max) => [px(min[0]), pz(min[2]), Math.max(1, (max[0] - min[0]) * scale), Math.max(1, (max[2] - min[2]) * scale)];
  g.fillStyle = COLOURS.zone;
  for (const z of level.zones ?? []) g.fillRect(...rect(z.min, z.max));
  const solids = [...(level.solids ?? [])].sort((a, b) => a.max[1] - b.max[1] || a.min[0] - b.min[0] || a.min[2] - b.min[2]);
  const [yLo, yHi] = solids.reduce(([lo, hi], s) => [Math.min(lo, s.max[1]), Math.max(hi, s.max[1])], [Infinity, -Infinity]);
  for (const s of solids) {
    const f = yHi > yLo ? (s.max[1] - yLo) / (yHi - yLo) : 0.5;
    const grey = Math.round(SOLID_LO + (SOLID_HI - SOLID_LO) * f);
    g.fillStyle = `rgb(${grey - 6}, ${grey}, ${grey + 14})`;
    g.fillRect(...rect(s.min, s.max));
  }
  g.fillStyle = COLOURS.ramp;
  for (const r of level.ramps ?? []) if (r.bounds) g.fillRect(...rect(r.bounds.min, r.bounds.max));
  for (const p of level.platforms ?? []) {
    const { from, to } = p.path.ping_pong;
    g.strokeStyle = COLOURS.path;
    g.setLineDash([4, 3]);
    g.beginPath();
    g.moveTo(px(from[0]), pz(from[2]));
    g.lineTo(px(to[0]), pz(to[2]));
    g.stroke();
    g.setLineDash([]);
    g.fillStyle = COLOURS.platform;
    for (const end of [from, to]) g.fillRect(...rect([end[0] - p.size[0], 0, end[2] - p.size[2]], [end[0] + p.size[0], 0, end[2] + p.size[2]]));
  }
  g.fillStyle = COLOURS.finish;
  for (const f of level.finishes ?? []) g.fillRect(...rect(f.min, f.max));
  g.strokeStyle = COLOURS.checkpoint;
  g.fillStyle = COLOURS.checkpoint;
  g.lineWidth = Math.max(1, Math.min(3, width / 200));
  g.font = `bold ${Math.max(9, Math.round(width / 40))}px system-ui, sans-serif`;
  g.textAlign = 'center';
  g.textBaseline = 'middle';
  (level.checkpoints ?? []).forEach((c, i) => {
    const [x, z, w, h] = rect(c.min, c.max);
    g.strokeRect(x, z, w, h);
    if (width >= 240) g.fillText(String(i + 1), x + w / 2, z + h / 2);
  });
  g.fillStyle = COLOURS.spawn;
  g.beginPath();
  g.arc(px(level.spawn[0]), pz(level.spawn[2]), Math.max(2.5, width / 120), 0, 2 * Math.PI);
  g.fill();
}

/** The medal a finish of `finishTick` earns against `medals` (the API's `Medals`, each
 * `{ticks, …}` with `ticks = finish_tick + 1`): 'author', 'gold', 'silver', 'bronze' or null. */
export function medalOf(finishTick, medals) {
  const ticks = finishTick + 1;
  for (const name of ['author', 'gold', 'silver', 'bronze']) {
    if (ticks <= medals[name].ticks) return name;
  }
  return null;
}
