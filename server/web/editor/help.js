// The keys of the editor, listed once: the help overlay (`?`) shows them, and docs/web.md
// lists the same.

import { el } from '../shared/dom.js';

/** [keys, what they do], by group. */
export const KEYS = [
  ['Tools', [
    ['V', 'select and move (click, Shift-click to add, drag on empty ground for a box); drag a handle to resize, a selected platform\'s dashed far end to move its path\'s end'],
    ['1 … 7', 'place a solid, ramp, moving platform, zone, checkpoint, finish, kill volume: drag out its box, or click for a 4 m one'],
    ['0', 'put the spawn where you click'],
    ['Esc', 'back to the select tool; again: select nothing'],
  ]],
  ['Edit', [
    ['Delete / Backspace', 'delete the selection'],
    ['Arrows', 'nudge the selection by one grid step (Shift: five)'],
    ['Page Up / Page Down', 'raise / lower the selection by one grid step'],
    ['Ctrl+Z', 'undo'],
    ['Ctrl+Shift+Z / Ctrl+Y', 'redo'],
    ['Ctrl+C / Ctrl+V', 'copy / paste (one grid step south-east of the copy)'],
    ['Ctrl+D', 'duplicate'],
    ['M', 'mirror the selection east–west'],
    ['Ctrl+A', 'select everything'],
  ]],
  ['View', [
    ['Wheel', 'zoom'],
    ['Right drag / Space+drag', 'pan (the middle button too)'],
    ['F', 'frame the whole track'],
    ['[ / ]', 'smaller / larger grid step'],
    ['G', 'snapping to the grid on / off'],
    ['Tab', 'top view / 3D preview'],
  ]],
  ['Play', [
    ['P', 'test-play from the spawn (Esc comes back here)'],
    ['Shift+P', 'test-play from the selected checkpoint (such a run cannot publish)'],
    ['?', 'this help'],
  ]],
];

/** The help overlay; `close` hides it. */
export function helpOverlay(close) {
  const groups = KEYS.map(([title, rows]) => el('section', { class: 'editor-help-group' },
    el('h4', {}, title),
    el('dl', {}, rows.map(([keys, what]) => [el('dt', {}, el('kbd', {}, keys)), el('dd', {}, what)]))));
  return el('div', { class: 'editor-help', role: 'dialog', 'aria-label': 'Editor keys', hidden: true },
    el('div', { class: 'editor-help-box' },
      el('div', { class: 'editor-help-head' }, el('h3', {}, 'Keys'), el('button', { type: 'button', onclick: close }, 'Close (Esc)')),
      el('div', { class: 'editor-help-groups' }, groups),
      el('p', { class: 'muted small' }, 'Your drafts stay in this browser. Export a file or copy a code to take a track elsewhere.')));
}
