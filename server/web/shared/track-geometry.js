// A level file (`replay/LEVELS.md`: what a player's track is) as the geometry the 3D view
// draws (the shape of `GET /api/levels/{level}`), made here for a level that exists only in
// the page: a draft in the track editor, test-played offline. Ramps get their drawn corners,
// platforms their period in ticks (rounded, at least 2, then up to even: the core's rule),
// checkpoints their index, and the whole a bounding box.

/** The kinds of object a level holds, in the file's order (each a list). */
export const OBJECT_LISTS = ['solids', 'ramps', 'platforms', 'zones', 'checkpoints', 'finishes', 'kills'];

/** A platform's period (s) as the core counts it at `rate` ticks per second. */
export function periodTicks(periodS, rate) {
  let ticks = Math.max(2, Math.round(periodS * rate));
  if (ticks % 2) ticks += 1;
  return ticks;
}

/** The ramp's surface height at (x, z), clamped into its bounds; null for a vertical one. */
function rampY(ramp, x, z) {
  const [nx, ny, nz] = ramp.normal;
  if (Math.abs(ny) < 1e-9) return null;
  const y = ramp.point[1] - (nx * (x - ramp.point[0]) + nz * (z - ramp.point[2])) / ny;
  return Math.min(ramp.bounds.max[1], Math.max(ramp.bounds.min[1], y));
}

/** The four corners of a bounded ramp's surface ((min x, min z), (max x, min z), (max x,
 * max z), (min x, max z)), or null. */
export function rampCorners(ramp) {
  if (!ramp.bounds) return null;
  const { min, max } = ramp.bounds;
  const xz = [[min[0], min[2]], [max[0], min[2]], [max[0], max[2]], [min[0], max[2]]];
  const corners = xz.map(([x, z]) => [x, rampY(ramp, x, z), z]);
  return corners.some((c) => c[1] === null) ? null : corners;
}

/** A box around everything but kill volumes (as the server's `bounds`). */
function boundsOf(level) {
  const min = [...level.spawn];
  const max = [...level.spawn];
  const add = (p) => p.forEach((v, i) => { min[i] = Math.min(min[i], v); max[i] = Math.max(max[i], v); });
  for (const list of ['solids', 'zones', 'checkpoints', 'finishes']) {
    for (const b of level[list] ?? []) { add(b.min); add(b.max); }
  }
  for (const r of level.ramps ?? []) if (r.bounds) { add(r.bounds.min); add(r.bounds.max); }
  for (const p of level.platforms ?? []) {
    const { from, to } = p.path.ping_pong;
    for (const c of [from, to]) { add(c); add(c.map((v, i) => v + p.size[i])); }
  }
  return { min, max };
}

/** The geometry of `level` (a parsed level file) at `rate` ticks per second. */
export function levelGeometry(level, rate) {
  return {
    name: level.name,
    tick_rate: rate,
    spawn: level.spawn,
    bounds: boundsOf(level),
    solids: (level.solids ?? []).map((s) => ({ min: s.min, max: s.max, no_bounce: !!s.no_bounce })),
    ramps: (level.ramps ?? []).map((r) => ({ ...r, bounds: r.bounds ?? null, no_bounce: !!r.no_bounce, corners: rampCorners(r) })),
    platforms: (level.platforms ?? []).map((p) => {
      const { from, to, period } = p.path.ping_pong;
      return { size: p.size, from, to, period_s: period, period_ticks: periodTicks(period, rate), no_bounce: !!p.no_bounce };
    }),
    zones: (level.zones ?? []).map((z) => ({ min: z.min, max: z.max, gravity_scale: z.gravity_scale ?? 1, wind: z.wind ?? [0, 0, 0] })),
    checkpoints: (level.checkpoints ?? []).map((c, index) => ({ index, min: c.min, max: c.max, spawn: c.spawn })),
    finishes: level.finishes ?? [],
    kills: level.kills ?? [],
  };
}
