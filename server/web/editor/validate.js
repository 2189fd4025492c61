// Validation as you edit: the server's own gate for a track (`pogo.checkTrack`, the
// WebAssembly build of pogo_replay::track::check_track: the very rules publishing applies)
// and the editor's friendlier checks of what the gate allows but a racer would trip on. Each
// problem names the object it is about (from the gate's field path: `solids[3]` → that
// solid), so the list can select it and the top view outline it. And the meter: the track
// against its limits.

import { el, replace } from '../shared/dom.js';
import { KIND_NAMES, extentOf, levelJson, objectCount } from './model.js';

/** A track's limits (replay/src/track.rs). */
export const LIMITS = { objects: 2000, extentM: 2000, platforms: 64, checkpoints: 64, bytes: 256 << 10 };

/** `solids[3].min[1]` → `solids:3`; `spawn…` → `spawn`; anything else → null. */
export function keyOfField(field) {
  const m = /^(solids|ramps|platforms|zones|checkpoints|finishes|kills)\[(\d+)\]/.exec(field ?? '');
  if (m) return `${m[1]}:${m[2]}`;
  return (field ?? '').startsWith('spawn') ? 'spawn' : null;
}

/** Whether point `p` is strictly inside box `b`. */
const inside = (p, b) => p.every((v, i) => v > b.min[i] && v < b.max[i]);

/** The editor's own checks: [{key, message}]. */
export function friendlyProblems(track) {
  const out = [];
  const body = (tip) => [tip[0], tip[1] + 0.8, tip[2]];
  const lift = (tip) => [tip[0], tip[1] + 0.05, tip[2]];
  track.solids.forEach((s, i) => {
    if (inside(lift(track.spawn), s) || inside(body(track.spawn), s)) {
      out.push({ key: 'spawn', message: `The spawn is inside solid ${i + 1}: the pogo would start stuck in it.` });
    }
  });
  track.checkpoints.forEach((c, i) => {
    if (track.solids.some((s) => inside(lift(c.spawn), s))) {
      out.push({ key: `checkpoints:${i}`, message: `Checkpoint ${i + 1} respawns the pogo inside a solid.` });
    }
  });
  track.platforms.forEach((p, i) => {
    if (!(p.path.ping_pong.period > 0)) out.push({ key: `platforms:${i}`, message: `Platform ${i + 1} has a period of ${p.path.ping_pong.period} s: it must be more than 0.` });
  });
  const last = track.checkpoints.length - 1;
  if (last >= 0 && track.finishes.length) {
    // Along the route: the last checkpoint is raced last, so a finish should lie beyond it.
    const dist = (b) => Math.hypot((b.min[0] + b.max[0]) / 2 - track.spawn[0], (b.min[2] + b.max[2]) / 2 - track.spawn[2]);
    const cp = dist(track.checkpoints[last]);
    if (track.finishes.every((f) => dist(f) < cp)) {
      out.push({ key: `checkpoints:${last}`, message: `Checkpoint ${last + 1} has no finish after it: every finish is nearer the spawn than it.` });
    }
  }
  return out;
}

/**
 * Checks `track` (the gate first, then the editor's checks): {gate, problems: [{key, field,
 * message, source}]}. `gate` is checkTrack's answer ({ok, levelName, …} or {ok: false, field,
 * why}), or null without the core.
 */
export function checkTrackNow(pogo, track) {
  const problems = [];
  let gate = null;
  if (pogo) {
    gate = pogo.checkTrack(levelJson(track));
    if (!gate.ok) {
      const key = keyOfField(gate.field);
      const what = key && key !== 'spawn' ? `${KIND_NAMES[key.split(':')[0]]} ${Number(key.split(':')[1]) + 1}: ` : '';
      problems.push({ key, field: gate.field, message: `${what}${gate.why}`, source: 'gate' });
    }
  }
  for (const p of friendlyProblems(track)) problems.push({ ...p, field: null, source: 'editor' });
  return { gate, problems };
}

/** Fills `box` with the problems (each a button selecting its object); `gateRan`: whether
 * the server's checks could run (not without the simulation module). */
export function renderProblems(box, problems, onPick, gateRan = true) {
  const noGate = gateRan ? null : el('p', { class: 'muted small' }, 'The server\'s checks cannot run here: the simulation module is not built.');
  if (!problems.length) {
    replace(box, el('h3', {}, 'Problems'), noGate ?? el('p', { class: 'editor-ok' }, 'None: the track passes the server\'s checks.'));
    return;
  }
  const items = problems.map((p) => el('li', { class: `editor-problem editor-problem-${p.source}`, dataset: { key: p.key ?? '', field: p.field ?? '' } },
    p.key ? el('button', { type: 'button', class: 'link-button', onclick: () => onPick(p.key) }, p.message) : p.message));
  replace(box, el('h3', {}, `Problems (${problems.length})`), el('ul', { class: 'editor-problems', role: 'alert' }, items), noGate);
}

/** What the worst-tick row of the meter shows for the gate's answer: [used, limit, text of
 * used] — the gate's bound when it accepted the track, "over" when it refused it for its cost,
 * unknown ("–") when it refused it for something else first or could not run. */
function worstTick(gate) {
  if (!gate) return [0, 1, '–'];
  if (gate.ok) return [gate.tickCost, gate.tickCostMax, String(gate.tickCost)];
  return gate.field === 'cost' ? [gate.tickCostMax + 1, gate.tickCostMax, 'over'] : [0, gate.tickCostMax, '–'];
}

/** Fills `box` with the meter: each limit, how much of it the track uses. `gate`: checkTrack's
 * answer for it (the worst tick is the gate's), or null without the core. */
export function renderMeter(box, track, gate) {
  const [tickUsed, tickLimit, tickText] = worstTick(gate);
  const rows = [
    ['Objects', objectCount(track), LIMITS.objects, ''],
    ['Extent', extentOf(track), LIMITS.extentM, ' m'],
    ['Platforms', track.platforms.length, LIMITS.platforms, ''],
    ['Checkpoints', track.checkpoints.length, LIMITS.checkpoints, ''],
    ['Worst tick', tickUsed, tickLimit, '', tickText,
      'The most work one pogo\'s tick can do on this track, in the simulation\'s cost units: dense solids, ramps, moving platforms and strong winds add to it.'],
  ].map(([label, used, limit, unit, usedText, title]) => {
    const share = Math.min(1, used / limit);
    const bar = el('span', { class: `meter-bar${used > limit ? ' over' : share > 0.8 ? ' near' : ''}` });
    bar.style.width = `${Math.max(share * 100, used ? 1 : 0)}%`;
    return el('div', { class: 'meter-row', dataset: { meter: label.toLowerCase().replace(' ', '-') }, title: title ?? null },
      el('span', { class: 'meter-label' }, label), el('span', { class: 'meter-track' }, bar),
      el('span', { class: 'meter-value' }, `${usedText ?? used}${unit} / ${limit}${unit}`));
  });
  replace(box, el('h3', {}, 'Limits'), rows);
}
