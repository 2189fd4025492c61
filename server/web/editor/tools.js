// What the mouse does on the top view: the select tool (click, Shift-click, a box drawn on
// empty ground; drag a selection to move it, a handle to resize it) and the placing tools
// (drag out a box of that kind, or click for one of the default size; a selected platform's
// dashed far end drags its path's end; the spawn tool puts
// the spawn where you click). The right or middle button, or Space held, pans; the wheel
// zooms. Every position snaps to the grid while snapping is on.

import { footprint, moveObjects, movePathEnd, pathEnd, resizeObject } from './model.js';

/** The tools, in the order of their keys (1 … 7, then 0 for the spawn). */
export const TOOLS = [
  { id: 'select', key: 'V', label: 'Select' },
  { id: 'solids', key: '1', label: 'Solid' },
  { id: 'ramps', key: '2', label: 'Ramp' },
  { id: 'platforms', key: '3', label: 'Platform' },
  { id: 'zones', key: '4', label: 'Zone' },
  { id: 'checkpoints', key: '5', label: 'Checkpoint' },
  { id: 'finishes', key: '6', label: 'Finish' },
  { id: 'kills', key: '7', label: 'Kill' },
  { id: 'spawn', key: '0', label: 'Spawn' },
];

/** A click without a drag places a box this wide (m). */
const DEFAULT_SIZE_M = 4;
/** A drag shorter than this (px) is a click. */
const CLICK_PX = 4;

/** A new object of `list` over footprint `rect`, standing on height `top` (m). */
export function newObject(list, rect, top) {
  const { x0, z0, x1, z1 } = rect;
  const volume = (lo, hi) => ({ min: [x0, lo, z0], max: [x1, hi, z1] });
  switch (list) {
    case 'solids': return volume(top - 1, top);
    case 'ramps': {
      // Rising 2 m toward +x over its length, on a box's floor.
      const len = Math.max(x1 - x0, 0.5);
      return { normal: [-2 / len, 1, 0], point: [x0, top, (z0 + z1) / 2], bounds: volume(top, top + 2) };
    }
    case 'platforms': {
      const size = [Math.max(x1 - x0, 0.5), 0.5, Math.max(z1 - z0, 0.5)];
      return { size, path: { ping_pong: { from: [x0, top - 0.5, z0], to: [x0 + 8, top - 0.5, z0], period: 4 } } };
    }
    case 'zones': return { ...volume(top, top + 6), gravity_scale: 0.5, wind: [0, 0, 0] };
    case 'checkpoints': return { ...volume(top, top + 4), spawn: [(x0 + x1) / 2, top, (z0 + z1) / 2] };
    case 'finishes': return volume(top, top + 4);
    case 'kills': return volume(top - 20, top - 5);
    default: return null;
  }
}

/** Whether world point `w` ([x, z]) is in `rect`. */
const within = (rect, w) => w[0] >= rect.x0 && w[0] <= rect.x1 && w[1] >= rect.z0 && w[1] <= rect.z1;

/** A rectangle from two corners. */
function rectOf(a, b) {
  return { x0: Math.min(a[0], b[0]), z0: Math.min(a[1], b[1]), x1: Math.max(a[0], b[0]), z1: Math.max(a[1], b[1]) };
}

/** Wires the mouse of `canvas` to the session `current()` returns (session.js): its view,
 * tool, selection, edits. */
export function attachMouse(current, canvas) {
  let drag = null;
  const at = (e) => {
    const r = canvas.getBoundingClientRect();
    return [e.clientX - r.left, e.clientY - r.top];
  };
  const world = (p, snap = true) => {
    const editor = current();
    const w = editor.view.toWorld(p[0], p[1]);
    return snap ? w.map((v) => editor.snapValue(v)) : w;
  };
  canvas.addEventListener('contextmenu', (e) => e.preventDefault());
  canvas.addEventListener('wheel', (e) => {
    const editor = current();
    e.preventDefault();
    const [px, py] = at(e);
    editor.view.zoomAt(px, py, Math.exp(-e.deltaY * 0.0015));
    editor.redraw();
  }, { passive: false });
  canvas.addEventListener('pointerdown', (e) => {
    const editor = current();
    canvas.focus();
    canvas.setPointerCapture(e.pointerId);
    const p = at(e);
    if (e.button === 1 || e.button === 2 || editor.spaceHeld) drag = { kind: 'pan', last: p };
    else if (e.button === 0) drag = startDrag(editor, p, e.shiftKey, world);
  });
  canvas.addEventListener('pointermove', (e) => {
    const editor = current();
    const p = at(e);
    editor.showCursor(editor.view.toWorld(p[0], p[1]));
    if (!drag) return;
    if (Math.hypot(p[0] - drag.start?.[0], p[1] - drag.start?.[1]) > CLICK_PX) drag.moved = true;
    moveDrag(editor, drag, p, world);
  });
  const end = (e) => {
    if (!drag) return;
    const d = drag;
    drag = null;
    endDrag(current(), d, at(e), world);
  };
  canvas.addEventListener('pointerup', end);
  canvas.addEventListener('pointercancel', () => {
    const editor = current();
    drag = null;
    editor.preview = null;
    editor.marquee = null;
    editor.redraw();
  });
}

/** A left press at canvas point `p`: what the drag that follows will do. */
function startDrag(editor, p, shift, world) {
  const track = editor.track;
  const base = { start: p, moved: false, from: world(p) };
  if (editor.tool === 'spawn') return { ...base, kind: 'spawn' };
  if (editor.tool !== 'select') return { ...base, kind: 'create', list: editor.tool };
  const single = editor.selection.size === 1 ? [...editor.selection][0] : null;
  const handle = editor.view.handleAt(track, single, p[0], p[1]);
  if (handle) return { ...base, kind: 'resize', key: single, handle, rect: footprint(track, single) };
  if (single?.startsWith('platforms:') && within(pathEnd(track, single), editor.view.toWorld(p[0], p[1]))) {
    return { ...base, kind: 'path', key: single, origin: track };
  }
  const key = editor.view.hit(track, p[0], p[1]);
  if (!key) return { ...base, kind: 'marquee', shift, before: new Set(editor.selection) };
  if (shift) {
    const next = new Set(editor.selection);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    editor.select(next);
    return { ...base, kind: 'none' };
  }
  if (!editor.selection.has(key)) editor.select(new Set([key]));
  return { ...base, kind: 'move', keys: [...editor.selection], origin: track };
}

function moveDrag(editor, drag, p, world) {
  const w = world(p);
  if (drag.kind === 'pan') {
    editor.view.panBy(p[0] - drag.last[0], p[1] - drag.last[1]);
    drag.last = p;
  } else if (drag.kind === 'create' && drag.moved) {
    editor.preview = { list: drag.list, rect: rectOf(drag.from, w) };
  } else if (drag.kind === 'marquee' && drag.moved) {
    editor.marquee = rectOf(world(drag.start, false), world(p, false));
  } else if (drag.kind === 'move' && drag.moved) {
    const d = [w[0] - drag.from[0], 0, w[1] - drag.from[1]];
    editor.showTrack(moveObjects(drag.origin, drag.keys, d));
  } else if (drag.kind === 'path' && drag.moved) {
    editor.showTrack(movePathEnd(drag.origin, drag.key, [w[0] - drag.from[0], 0, w[1] - drag.from[1]]));
  } else if (drag.kind === 'resize' && drag.moved) {
    editor.showTrack(resizeObject(editor.history.current, drag.key, resized(drag.rect, drag.handle, w, editor.grid)));
  }
  editor.redraw();
}

/** `rect` with the sides of `handle` dragged to world point `w` (never thinner than `min`). */
function resized(rect, handle, w, min) {
  const r = { ...rect };
  if (handle.sx < 0) r.x0 = Math.min(w[0], r.x1 - min);
  if (handle.sx > 0) r.x1 = Math.max(w[0], r.x0 + min);
  if (handle.sz < 0) r.z0 = Math.min(w[1], r.z1 - min);
  if (handle.sz > 0) r.z1 = Math.max(w[1], r.z0 + min);
  return r;
}

function endDrag(editor, drag, p, world) {
  const w = world(p);
  if (drag.kind === 'create') {
    editor.preview = null;
    const half = DEFAULT_SIZE_M / 2;
    const rect = drag.moved ? rectOf(drag.from, w)
      : { x0: drag.from[0] - half, z0: drag.from[1] - half, x1: drag.from[0] + half, z1: drag.from[1] + half };
    if (rect.x1 - rect.x0 < 0.1 || rect.z1 - rect.z0 < 0.1) return editor.redraw();
    editor.place(drag.list, rect);
  } else if (drag.kind === 'spawn') {
    editor.placeSpawn(w);
  } else if (drag.kind === 'marquee') {
    editor.marquee = null;
    const box = rectOf(world(drag.start, false), world(p, false));
    const inside = drag.moved ? editor.keysInside(box) : [];
    editor.select(new Set([...(drag.shift ? drag.before : []), ...inside]));
  } else if (drag.kind === 'move' || drag.kind === 'resize' || drag.kind === 'path') {
    if (drag.moved && editor.shown) editor.commit(editor.shown, editor.selection, drag.kind === 'path' ? 'moved the path\'s end' : drag.kind);
    else editor.showTrack(null);
  }
  editor.redraw();
}
