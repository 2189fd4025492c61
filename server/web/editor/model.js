// The track being edited: a level file's content (`replay/LEVELS.md`) as plain data, the
// operations the editor applies to its objects, and the undo history.
//
// An object is named by a key: `solids:3` (a list and an index: the order the file keeps, the
// order checkpoints are raced in) or `spawn`. Every operation is a pure function of the track
// (a new track; the old one is never changed), so the history keeps whole tracks: a track
// of 2 000 objects is a few hundred KiB of JSON, and 400 steps of a small one are nothing.

import { OBJECT_LISTS } from '../shared/track-geometry.js';

export { OBJECT_LISTS };

/** Undo steps kept (at least the 200 promised). */
export const HISTORY_MAX = 400;

/** What each list holds, for a person (singular). */
export const KIND_NAMES = {
  solids: 'solid', ramps: 'ramp', platforms: 'moving platform', zones: 'zone', checkpoints: 'checkpoint',
  finishes: 'finish', kills: 'kill volume', spawn: 'spawn',
};

/** A new, empty track: a floor and a spawn on it. */
export function emptyTrack(name = 'my track') {
  return {
    name, spawn: [0, 0, 0],
    solids: [{ min: [-8, -1, -8], max: [8, 0, 8] }],
    ramps: [], platforms: [], zones: [], checkpoints: [], finishes: [], kills: [],
  };
}

/** A parsed level file as a track (defaults filled in, unknown fields kept out). */
export function trackFromLevel(level) {
  const vec = (v) => [Number(v[0]), Number(v[1]), Number(v[2])];
  const box = (b) => ({ min: vec(b.min), max: vec(b.max) });
  return {
    name: String(level.name ?? 'imported track'),
    spawn: vec(level.spawn),
    solids: (level.solids ?? []).map((s) => ({ ...box(s), ...(s.no_bounce ? { no_bounce: true } : {}) })),
    ramps: (level.ramps ?? []).map((r) => ({
      normal: vec(r.normal), point: vec(r.point), ...(r.bounds ? { bounds: box(r.bounds) } : {}), ...(r.no_bounce ? { no_bounce: true } : {}),
    })),
    platforms: (level.platforms ?? []).map((p) => ({
      size: vec(p.size),
      path: { ping_pong: { from: vec(p.path.ping_pong.from), to: vec(p.path.ping_pong.to), period: Number(p.path.ping_pong.period) } },
      ...(p.no_bounce ? { no_bounce: true } : {}),
    })),
    zones: (level.zones ?? []).map((z) => ({ ...box(z), gravity_scale: Number(z.gravity_scale ?? 1), wind: vec(z.wind ?? [0, 0, 0]) })),
    checkpoints: (level.checkpoints ?? []).map((c) => ({ ...box(c), spawn: vec(c.spawn) })),
    finishes: (level.finishes ?? []).map(box),
    kills: (level.kills ?? []).map(box),
  };
}

/** The track as level JSON named `name`: the canonical shape (every list, in the file's order;
 * `no_bounce` only when true), one object a line. */
export function levelJson(track, name = track.name) {
  const lines = [`{"name":${JSON.stringify(name)},`, `"spawn":${JSON.stringify(track.spawn)},`];
  OBJECT_LISTS.forEach((list, i) => {
    const items = track[list].map((o) => JSON.stringify(o));
    const comma = i === OBJECT_LISTS.length - 1 ? '' : ',';
    lines.push(items.length ? `"${list}":[\n${items.join(',\n')}\n]${comma}` : `"${list}":[]${comma}`);
  });
  lines.push('}');
  return lines.join('\n');
}

/** The geometry alone (no name), to compare two tracks. */
export function geometryText(track) {
  return levelJson(track, '');
}

/** Every object's key, in the file's order, the spawn first. */
export function allKeys(track) {
  return ['spawn', ...OBJECT_LISTS.flatMap((list) => track[list].map((_, i) => `${list}:${i}`))];
}

/** `solids:3` → ['solids', 3]; `spawn` → ['spawn', null]. */
export function parseKey(key) {
  if (key === 'spawn') return ['spawn', null];
  const [list, index] = key.split(':');
  return [list, Number(index)];
}

/** The object a key names (the spawn: its point), or undefined. */
export function objectAt(track, key) {
  const [list, index] = parseKey(key);
  return list === 'spawn' ? track.spawn : track[list]?.[index];
}

/** The object's footprint from above: {x0, z0, x1, z1} (m). */
export function footprint(track, key) {
  const [list] = parseKey(key);
  const o = objectAt(track, key);
  if (list === 'spawn') return { x0: o[0] - 0.25, z0: o[2] - 0.25, x1: o[0] + 0.25, z1: o[2] + 0.25 };
  if (list === 'platforms') {
    const from = o.path.ping_pong.from;
    return { x0: from[0], z0: from[2], x1: from[0] + o.size[0], z1: from[2] + o.size[2] };
  }
  const b = list === 'ramps' ? o.bounds ?? { min: o.point, max: o.point } : o;
  return { x0: b.min[0], z0: b.min[2], x1: b.max[0], z1: b.max[2] };
}

const add = (v, d) => v.map((c, i) => c + d[i]);

/** The object moved by `d` ([dx, dy, dz], m). */
function moved(list, o, d) {
  if (list === 'spawn') return add(o, d);
  if (list === 'platforms') {
    const pp = o.path.ping_pong;
    return { ...o, path: { ping_pong: { ...pp, from: add(pp.from, d), to: add(pp.to, d) } } };
  }
  if (list === 'ramps') {
    return { ...o, point: add(o.point, d), ...(o.bounds ? { bounds: { min: add(o.bounds.min, d), max: add(o.bounds.max, d) } } : {}) };
  }
  const out = { ...o, min: add(o.min, d), max: add(o.max, d) };
  if (list === 'checkpoints') out.spawn = add(o.spawn, d);
  return out;
}

/** The track with the object at `key` replaced by `value`. */
export function withObject(track, key, value) {
  const [list, index] = parseKey(key);
  if (list === 'spawn') return { ...track, spawn: value };
  const items = [...track[list]];
  items[index] = value;
  return { ...track, [list]: items };
}

/** The track with the objects `keys` moved by `d`. */
export function moveObjects(track, keys, d) {
  let out = track;
  for (const key of keys) out = withObject(out, key, moved(parseKey(key)[0], objectAt(out, key), d));
  return out;
}

/** The object at `key` with its footprint set to `rect` ({x0, z0, x1, z1}, x0 ≤ x1, z0 ≤ z1). */
export function resizeObject(track, key, rect) {
  const [list] = parseKey(key);
  const o = objectAt(track, key);
  if (list === 'spawn') return track;
  if (list === 'platforms') {
    const pp = o.path.ping_pong;
    const d = [rect.x0 - pp.from[0], 0, rect.z0 - pp.from[2]];
    const size = [Math.max(rect.x1 - rect.x0, 0.1), o.size[1], Math.max(rect.z1 - rect.z0, 0.1)];
    return withObject(track, key, { ...o, size, path: { ping_pong: { ...pp, from: add(pp.from, d), to: add(pp.to, d) } } });
  }
  const setXZ = (b) => ({ min: [rect.x0, b.min[1], rect.z0], max: [rect.x1, b.max[1], rect.z1] });
  if (list === 'ramps') return withObject(track, key, { ...o, bounds: setXZ(o.bounds ?? { min: o.point, max: o.point }) });
  const out = { ...o, ...setXZ(o) };
  if (list === 'checkpoints') {
    const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
    out.spawn = [clamp(o.spawn[0], rect.x0, rect.x1), o.spawn[1], clamp(o.spawn[2], rect.z0, rect.z1)];
  }
  return withObject(track, key, out);
}

/** The far end of platform `key`'s path from above: its footprint at `to`. */
export function pathEnd(track, key) {
  const p = objectAt(track, key);
  const to = p.path.ping_pong.to;
  return { x0: to[0], z0: to[2], x1: to[0] + p.size[0], z1: to[2] + p.size[2] };
}

/** Platform `key` with its path's far end moved by `d`. */
export function movePathEnd(track, key, d) {
  const p = objectAt(track, key);
  const pp = p.path.ping_pong;
  return withObject(track, key, { ...p, path: { ping_pong: { ...pp, to: add(pp.to, d) } } });
}

/** The track without the objects `keys` (the spawn stays: a track has one). */
export function deleteObjects(track, keys) {
  const out = { ...track };
  for (const list of OBJECT_LISTS) {
    const gone = new Set(keys.filter((k) => k.startsWith(`${list}:`)).map((k) => parseKey(k)[1]));
    if (gone.size) out[list] = track[list].filter((_, i) => !gone.has(i));
  }
  return out;
}

/** Adds `items` ([{list, value}]) at the ends of their lists: the new track and their keys. */
export function addObjects(track, items) {
  const out = { ...track };
  const keys = [];
  for (const { list, value } of items) {
    if (list === 'spawn') continue;
    out[list] = [...out[list], value];
    keys.push(`${list}:${out[list].length - 1}`);
  }
  return { track: out, keys };
}

/** The objects `keys` as copies ([{list, value}]). */
export function copyObjects(track, keys) {
  return keys.filter((k) => k !== 'spawn').map((k) => ({ list: parseKey(k)[0], value: structuredClone(objectAt(track, k)) }));
}

/** `x` mirrored about `c`. */
const flip = (x, c) => 2 * c - x;

/** The object mirrored east–west about x = `c`. */
function mirrored(list, o, c) {
  const box = (b) => ({ min: [flip(b.max[0], c), b.min[1], b.min[2]], max: [flip(b.min[0], c), b.max[1], b.max[2]] });
  const point = (p) => [flip(p[0], c), p[1], p[2]];
  if (list === 'spawn') return point(o);
  if (list === 'platforms') {
    const pp = o.path.ping_pong;
    const corner = (p) => [flip(p[0] + o.size[0], c), p[1], p[2]];
    return { ...o, path: { ping_pong: { ...pp, from: corner(pp.from), to: corner(pp.to) } } };
  }
  if (list === 'ramps') {
    return { ...o, normal: [-o.normal[0], o.normal[1], o.normal[2]], point: point(o.point), ...(o.bounds ? { bounds: box(o.bounds) } : {}) };
  }
  const out = { ...o, ...box(o) };
  if (list === 'checkpoints') out.spawn = point(o.spawn);
  return out;
}

/** The objects `keys` mirrored east–west about the middle of their footprints. */
export function mirrorObjects(track, keys) {
  if (!keys.length) return track;
  const rects = keys.map((k) => footprint(track, k));
  const c = (Math.min(...rects.map((r) => r.x0)) + Math.max(...rects.map((r) => r.x1))) / 2;
  let out = track;
  for (const key of keys) out = withObject(out, key, mirrored(parseKey(key)[0], objectAt(out, key), c));
  return out;
}

/** Moves checkpoint `index` by `step` (−1 earlier, +1 later) in the racing order; the new index. */
export function reorderCheckpoint(track, index, step) {
  const to = index + step;
  if (to < 0 || to >= track.checkpoints.length) return { track, index };
  const items = [...track.checkpoints];
  [items[index], items[to]] = [items[to], items[index]];
  return { track: { ...track, checkpoints: items }, index: to };
}

/** Objects in the track (what a track's limit counts: the spawn is not one). */
export function objectCount(track) {
  return OBJECT_LISTS.reduce((n, list) => n + track[list].length, 0);
}

/** The largest distance of any coordinate from the origin on one axis (m, rounded up). */
export function extentOf(track) {
  let m = 0;
  const see = (v) => v.forEach((c) => { m = Math.max(m, Math.abs(c)); });
  see(track.spawn);
  for (const list of ['solids', 'zones', 'checkpoints', 'finishes', 'kills']) {
    for (const b of track[list]) { see(b.min); see(b.max); if (b.spawn) see(b.spawn); }
  }
  for (const r of track.ramps) { see(r.point); if (r.bounds) { see(r.bounds.min); see(r.bounds.max); } }
  for (const p of track.platforms) {
    for (const c of [p.path.ping_pong.from, p.path.ping_pong.to]) { see(c); see(add(c, p.size)); }
  }
  return Math.ceil(m);
}

/**
 * The undo history: a list of tracks and where the editor is in it. `push` after each edit
 * (a redo branch is dropped), `undo`/`redo` move; at most HISTORY_MAX steps back are kept.
 */
export class History {
  constructor(track) {
    this.states = [track];
    this.at = 0;
  }

  get current() { return this.states[this.at]; }
  get canUndo() { return this.at > 0; }
  get canRedo() { return this.at < this.states.length - 1; }
  /** Undo steps available. */
  get depth() { return this.at; }

  push(track) {
    this.states.length = this.at + 1;
    this.states.push(track);
    if (this.states.length > HISTORY_MAX + 1) this.states.shift();
    this.at = this.states.length - 1;
  }

  undo() {
    if (this.canUndo) this.at -= 1;
    return this.current;
  }

  redo() {
    if (this.canRedo) this.at += 1;
    return this.current;
  }
}
