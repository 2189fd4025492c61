// The inspector: the selected object's every value, in metres as the level file has them,
// each a number field (a change is one undo step); a checkpoint's place in the racing order;
// for several objects, how many and what can be done to them all.

import { el, replace } from '../shared/dom.js';
import { KIND_NAMES, objectAt, parseKey, withObject } from './model.js';

const XYZ = ['x', 'y', 'z'];
const vec = (label, path) => ({ label, path, vector: true });

/** The fields of each kind: a label and the path of the value in the object. */
const FIELDS = {
  solids: [vec('min', ['min']), vec('max', ['max']), { label: 'no bounce', path: ['no_bounce'], flag: true }],
  ramps: [vec('normal', ['normal']), vec('point', ['point']), vec('bounds min', ['bounds', 'min']), vec('bounds max', ['bounds', 'max']),
    { label: 'no bounce', path: ['no_bounce'], flag: true }],
  platforms: [vec('size', ['size']), vec('from', ['path', 'ping_pong', 'from']), vec('to', ['path', 'ping_pong', 'to']),
    { label: 'period (s)', path: ['path', 'ping_pong', 'period'] }, { label: 'no bounce', path: ['no_bounce'], flag: true }],
  zones: [vec('min', ['min']), vec('max', ['max']), { label: 'gravity ×', path: ['gravity_scale'] }, vec('wind (m/s²)', ['wind'])],
  checkpoints: [vec('min', ['min']), vec('max', ['max']), vec('respawn', ['spawn'])],
  finishes: [vec('min', ['min']), vec('max', ['max'])],
  kills: [vec('min', ['min']), vec('max', ['max'])],
  spawn: [vec('tip at', [])],
};

const getPath = (o, path) => path.reduce((v, k) => v?.[k], o);

/** `o` with the value at `path` set to `value` (copies along the way; a false flag removed). */
function setPath(o, path, value) {
  if (!path.length) return value;
  const [head, ...rest] = path;
  const copy = Array.isArray(o) ? [...o] : { ...o };
  if (rest.length === 0 && value === false) delete copy[head];
  else copy[head] = setPath(o?.[head] ?? {}, rest, value);
  return copy;
}

/** A number as the field shows it: up to 4 decimals, no trailing zeros. */
const show = (v) => String(Math.round(v * 1e4) / 1e4);

/** One number field bound to `path` (+ `axis`) of the object at `key`. */
function numberField(editor, key, path, axis, name) {
  const value = getPath(objectAt(editor.track, key), axis === null ? path : [...path, axis]);
  const input = el('input', { type: 'number', step: 'any', value: show(value ?? 0), 'aria-label': name, dataset: { field: name } });
  input.addEventListener('change', () => {
    const v = Number(input.value);
    if (input.value.trim() === '' || !Number.isFinite(v)) {
      input.value = show(value ?? 0);
      return;
    }
    const o = objectAt(editor.track, key);
    const next = setPath(o, axis === null ? path : [...path, axis], v);
    editor.commit(withObject(editor.track, key, next), editor.selection, `set ${name}`);
  });
  return input;
}

function fieldRow(editor, key, field) {
  if (field.flag) {
    const box = el('input', { type: 'checkbox', 'aria-label': field.label, dataset: { field: field.label } });
    box.checked = !!getPath(objectAt(editor.track, key), field.path);
    box.addEventListener('change', () => {
      const next = setPath(objectAt(editor.track, key), field.path, box.checked);
      editor.commit(withObject(editor.track, key, next), editor.selection, field.label);
    });
    return el('label', { class: 'inspector-row inspector-flag' }, box, ` ${field.label}`);
  }
  const inputs = field.vector
    ? XYZ.map((a, i) => numberField(editor, key, field.path, i, `${field.label} ${a}`))
    : [numberField(editor, key, field.path, null, field.label)];
  return el('div', { class: 'inspector-row' }, el('span', { class: 'inspector-label' }, field.label), el('span', { class: 'inspector-values' }, inputs));
}

/** Fills `box` for the editor's selection. */
export function renderInspector(box, editor) {
  const keys = [...editor.selection].filter((k) => objectAt(editor.track, k) !== undefined);
  if (keys.length === 0) {
    replace(box, el('h3', {}, 'Inspector'), el('p', { class: 'muted small' }, 'Select an object (click, Shift-click, or drag a box on empty ground) to edit its values.'));
    return;
  }
  if (keys.length > 1) {
    replace(box, el('h3', {}, 'Inspector'), el('p', {}, `${keys.length} objects selected`),
      el('p', { class: 'muted small' }, 'Drag to move them, arrows to nudge, M to mirror, Ctrl+D to duplicate, Delete to remove.'));
    return;
  }
  const key = keys[0];
  const [list, index] = parseKey(key);
  const kind = KIND_NAMES[list];
  const title = list === 'spawn' ? 'Spawn' : `${kind[0].toUpperCase()}${kind.slice(1)} ${list === 'checkpoints' ? `${index + 1} (raced ${ordinal(index + 1)})` : index + 1}`;
  const rows = FIELDS[list].filter((f) => list !== 'ramps' || !f.path.includes('bounds') || objectAt(editor.track, key).bounds)
    .map((f) => fieldRow(editor, key, f));
  const order = list === 'checkpoints' ? el('div', { class: 'inspector-order' },
    el('button', { type: 'button', onclick: () => editor.reorder(index, -1), disabled: index === 0 }, 'Raced earlier'),
    el('button', { type: 'button', onclick: () => editor.reorder(index, 1), disabled: index === editor.track.checkpoints.length - 1 }, 'Raced later'))
    : null;
  replace(box, el('h3', {}, 'Inspector'), el('p', { class: 'inspector-title', dataset: { key } }, title), ...rows, order,
    el('p', { class: 'muted small' }, 'Metres; x east, y up, z south. Volumes are tested against the pogo\'s body centre, 0.8 m above its tip.'));
}

function ordinal(n) {
  const s = n % 100 >= 11 && n % 100 <= 13 ? 'th' : ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th';
  return `${n}${s}`;
}
