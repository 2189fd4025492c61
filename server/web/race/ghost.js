// A ghost race as data, no drawing: where each ghost is at a tick, its recent trail, and the
// gaps at checkpoints. Positions come only from the server's trajectory JSON
// (`GET /api/runs/{id}/ghost`): the tip's position after each listed tick, with `teleport`
// set on the first point after a respawn.
//
// Between two listed points the position is interpolated linearly, except across a
// teleport: there the ghost stays at the last point before it until the teleport's point
// (a respawn is a jump, not a flight across the level).

/** Ticks of trail behind each ghost (0.75 s at 60 Hz). */
export const TRAIL_TICKS = 45;

/** A ghost from the trajectory JSON. */
export function makeGhost(json, colour) {
  const points = json.points;
  if (!Array.isArray(points) || points.length === 0) {
    throw new Error(`run ${json.id} has an empty trajectory`);
  }
  return {
    id: json.id,
    player: json.player,
    level: json.level,
    rate: json.tick_rate,
    ticks: json.ticks,
    every: json.every,
    finish: json.finish, // {tick, time} or null
    splits: json.splits,
    points,
    lastTick: points[points.length - 1].tick,
    colour,
  };
}

/** Index of the last point with `tick <= t` (0 if `t` is before the first point). */
function pointIndex(points, t) {
  let lo = 0;
  let hi = points.length - 1;
  if (t >= points[hi].tick) return hi;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (points[mid].tick <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Where `ghost` is after (fractional) tick `t`: `{x, y, z, ended, held}`. `ended`: past the
 * run's last tick (the ghost stays where it stopped); `held`: waiting at the point before a
 * teleport instead of being interpolated across it.
 */
export function positionAt(ghost, t) {
  const { points } = ghost;
  const i = pointIndex(points, t);
  const p = points[i];
  if (t >= ghost.lastTick) return { x: p.x, y: p.y, z: p.z, ended: t > ghost.lastTick, held: false };
  if (t <= p.tick) return { x: p.x, y: p.y, z: p.z, ended: false, held: false };
  const q = points[i + 1];
  if (q.teleport) return { x: p.x, y: p.y, z: p.z, ended: false, held: true };
  const f = (t - p.tick) / (q.tick - p.tick);
  return {
    x: p.x + (q.x - p.x) * f,
    y: p.y + (q.y - p.y) * f,
    z: p.z + (q.z - p.z) * f,
    ended: false,
    held: false,
  };
}

/**
 * The trail behind `ghost` at tick `t`: polylines (arrays of `{x, y, z}`) covering the last
 * `span` ticks, ending at the current position, broken at every teleport.
 */
export function trail(ghost, t, span = TRAIL_TICKS) {
  const { points } = ghost;
  const from = Math.max(0, Math.min(t, ghost.lastTick) - span);
  const segments = [[positionAt(ghost, from)]];
  const end = Math.min(t, ghost.lastTick);
  for (let i = pointIndex(points, from) + 1; i < points.length && points[i].tick <= end; i++) {
    const p = points[i];
    if (p.teleport) segments.push([]);
    segments[segments.length - 1].push(p);
  }
  const here = positionAt(ghost, end);
  if (!here.held) segments[segments.length - 1].push(here);
  return segments.filter((s) => s.length >= 2);
}

/** A split's key: the checkpoint index, or `finish`. */
const splitKey = (split) => (split.checkpoint === null ? 'finish' : `cp${split.checkpoint}`);

/**
 * The gaps at checkpoints: one row per checkpoint any ghost reached (in checkpoint order,
 * the finish last), with each ghost's tick there (or `null`), the first ghost there
 * (`leader`, an index into `ghosts`; the earlier in `ghosts` on a tie) and each ghost's gap
 * behind it in ticks.
 */
export function checkpointGaps(ghosts) {
  const rows = new Map();
  ghosts.forEach((ghost, g) => {
    for (const split of ghost.splits) {
      const key = splitKey(split);
      if (!rows.has(key)) rows.set(key, { key, checkpoint: split.checkpoint, ticks: ghosts.map(() => null) });
      const row = rows.get(key);
      if (row.ticks[g] === null) row.ticks[g] = split.tick;
    }
  });
  const order = (row) => (row.checkpoint === null ? Infinity : row.checkpoint);
  return [...rows.values()]
    .sort((a, b) => order(a) - order(b))
    .map((row) => {
      let leader = -1;
      row.ticks.forEach((tick, g) => {
        if (tick !== null && (leader < 0 || tick < row.ticks[leader])) leader = g;
      });
      const lead = row.ticks[leader];
      return { ...row, leader, gaps: row.ticks.map((tick) => (tick === null ? null : tick - lead)) };
    });
}

/** The last tick any ghost has: the race's length. */
export function raceTicks(ghosts) {
  return Math.max(...ghosts.map((g) => g.lastTick));
}
