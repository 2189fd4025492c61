// The editor's bars: the draft bar (its name, the drafts kept in this browser, new, delete,
// export and import as a file or a code, the keys) and the tool bar (the tools, the grid, undo
// and redo, the 3D preview, test-play).

import { el, replace } from '../shared/dom.js';
import { loadDrafts } from './drafts.js';
import { GRID_STEPS } from './session.js';
import { TOOLS } from './tools.js';

/** The draft bar; `actions` = {rename(name), open(id), create(), remove(), exportFile(),
 * importFile(file), copyCode(), pasteCode(), help()}. Returns {node, update(session)}. */
export function draftBar(actions) {
  const name = el('input', { type: 'text', class: 'editor-name', maxlength: '64', 'aria-label': 'Track name', dataset: { field: 'track-name' } });
  name.addEventListener('change', () => actions.rename(name.value.trim() || 'my track'));
  const list = el('select', { class: 'editor-drafts', 'aria-label': 'Drafts in this browser' });
  list.addEventListener('change', () => actions.open(list.value));
  const picker = el('input', { type: 'file', accept: '.json,application/json', class: 'visually-hidden', 'aria-label': 'Import a level JSON file' });
  picker.addEventListener('change', () => {
    if (picker.files[0]) actions.importFile(picker.files[0]);
    picker.value = '';
  });
  const button = (label, onclick, extra = {}) => el('button', { type: 'button', onclick, ...extra }, label);
  const node = el('div', { class: 'editor-bar editor-draft-bar' },
    name, list,
    button('New', actions.create, { dataset: { action: 'new' } }),
    button('Delete draft', actions.remove, { class: 'quiet', dataset: { action: 'delete' } }),
    el('span', { class: 'editor-bar-gap' }),
    button('Export file', actions.exportFile, { dataset: { action: 'export-file' } }),
    button('Import file', () => picker.click(), { dataset: { action: 'import-file' } }), picker,
    button('Copy code', actions.copyCode, { dataset: { action: 'copy-code' } }),
    button('Paste code', actions.pasteCode, { dataset: { action: 'paste-code' } }),
    button('? Keys', actions.help, { title: 'The keys (?)', dataset: { action: 'help' } }));
  const update = (session) => {
    if (document.activeElement !== name) name.value = session.history.current.name;
    const { drafts } = loadDrafts();
    replace(list, drafts.map((d) => {
      const option = el('option', { value: d.id }, `${d.name} · ${d.updated.slice(0, 16).replace('T', ' ')}`);
      option.selected = d.id === session.draft.id;
      return option;
    }));
  };
  return { node, update };
}

/** The tool bar; `actions` = {tool(id), grid(step), snap(on), undo(), redo(), toggle3d(),
 * testPlay(fromCheckpoint)}. Returns {node, update(session, showing3d)}. */
export function toolBar(actions) {
  const tools = TOOLS.map((t) => el('button', {
    type: 'button', class: 'editor-tool', title: `${t.label} (${t.key})`, dataset: { tool: t.id }, onclick: () => actions.tool(t.id),
  }, el('span', { class: 'editor-tool-key' }, t.key), ` ${t.label}`));
  const grid = el('select', { 'aria-label': 'Grid step', dataset: { field: 'grid' } }, GRID_STEPS.map((s) => el('option', { value: String(s) }, `${s} m`)));
  grid.addEventListener('change', () => actions.grid(Number(grid.value)));
  const snap = el('input', { type: 'checkbox', 'aria-label': 'Snap to the grid' });
  snap.addEventListener('change', () => actions.snap(snap.checked));
  const undo = el('button', { type: 'button', onclick: actions.undo, title: 'Undo (Ctrl+Z)' }, 'Undo');
  const redo = el('button', { type: 'button', onclick: actions.redo, title: 'Redo (Ctrl+Shift+Z)' }, 'Redo');
  const view3d = el('button', { type: 'button', onclick: actions.toggle3d, title: 'Top view / 3D preview (Tab)', dataset: { action: 'toggle-3d' } }, '3D');
  const play = el('button', { type: 'button', class: 'editor-play', onclick: () => actions.testPlay(false), title: 'Test-play from the spawn (P)', dataset: { action: 'test-play' } }, '▶ Test-play');
  const node = el('div', { class: 'editor-bar editor-tool-bar' },
    el('span', { class: 'editor-tools', role: 'group', 'aria-label': 'Tools' }, tools),
    el('span', { class: 'editor-bar-gap' }),
    el('label', { class: 'small' }, 'Grid ', grid), el('label', { class: 'small' }, snap, ' snap'),
    undo, redo, view3d, play);
  const update = (session, showing3d) => {
    for (const b of tools) b.setAttribute('aria-pressed', String(b.dataset.tool === session.tool));
    grid.value = String(session.grid);
    snap.checked = session.snap;
    undo.disabled = !session.history.canUndo;
    redo.disabled = !session.history.canRedo;
    view3d.setAttribute('aria-pressed', String(showing3d));
  };
  return { node, update };
}
