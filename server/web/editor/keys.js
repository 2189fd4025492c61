// The editor's keyboard shortcuts (help.js lists them): on the window while the editor is
// open and not test-playing, never while typing in a field.

import { TOOLS } from './tools.js';
import { GRID_STEPS } from './session.js';
import { allKeys } from './model.js';

/** Whether the key went to a text field (which keeps its keys). */
function typing(event) {
  const t = event.target;
  return t instanceof HTMLElement && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable);
}

/** The key's action with Ctrl (or ⌘) held, or null. */
function ctrlAction(session, e) {
  const k = e.key.toLowerCase();
  if (k === 'z' && e.shiftKey) return () => session.redo();
  if (k === 'z') return () => session.undo();
  if (k === 'y') return () => session.redo();
  if (k === 'c') return () => session.copy();
  if (k === 'v') return () => session.paste();
  if (k === 'd') return () => session.duplicate();
  if (k === 'a') return () => session.select(allKeys(session.track));
  return null;
}

/** The key's action without Ctrl, or null. `ui` = {toggleHelp, helpOpen, toggle3d,
 * testPlay(fromCheckpoint), frameAll}. */
function plainAction(session, e, ui) {
  const step = session.grid * (e.shiftKey ? 5 : 1);
  const tool = TOOLS.find((t) => t.key === e.key.toUpperCase() && !e.shiftKey);
  if (tool) return () => { session.tool = tool.id; session.onChange('tool'); };
  switch (e.key) {
    case '?': return () => ui.toggleHelp();
    case 'Escape':
      if (ui.helpOpen()) return () => ui.toggleHelp();
      return () => {
        if (session.tool !== 'select') { session.tool = 'select'; session.onChange('tool'); } else session.select([]);
      };
    case 'Delete': case 'Backspace': return () => session.deleteSelection();
    case 'ArrowLeft': return () => session.nudge([-step, 0, 0]);
    case 'ArrowRight': return () => session.nudge([step, 0, 0]);
    case 'ArrowUp': return () => session.nudge([0, 0, -step]);
    case 'ArrowDown': return () => session.nudge([0, 0, step]);
    case 'PageUp': return () => session.nudge([0, session.grid, 0]);
    case 'PageDown': return () => session.nudge([0, -session.grid, 0]);
    case 'm': case 'M': return () => session.mirror();
    case 'f': case 'F': return () => ui.frameAll();
    case 'g': case 'G': return () => { session.snap = !session.snap; session.onChange('tool'); };
    case '[': case ']': return () => {
      const at = GRID_STEPS.indexOf(session.grid);
      session.grid = GRID_STEPS[Math.min(GRID_STEPS.length - 1, Math.max(0, at + (e.key === ']' ? 1 : -1)))];
      session.onChange('tool');
    };
    case 'Tab': return () => ui.toggle3d();
    case 'p': case 'P': return () => ui.testPlay(e.shiftKey);
    case ' ': return () => { session.spaceHeld = true; };
    default: return null;
  }
}

/** Listens on the window for the session `current()` returns; `active()` says whether the editor has the keys (not during a
 * test-play). Returns the function that stops listening. */
export function attachKeys(current, ui, active) {
  const down = (e) => {
    if (!active() || typing(e) || e.altKey) return;
    const session = current();
    const action = e.ctrlKey || e.metaKey ? ctrlAction(session, e) : plainAction(session, e, ui);
    if (!action) return;
    e.preventDefault();
    action();
  };
  const up = (e) => {
    if (e.key === ' ') current().spaceHeld = false;
  };
  window.addEventListener('keydown', down);
  window.addEventListener('keyup', up);
  return () => {
    window.removeEventListener('keydown', down);
    window.removeEventListener('keyup', up);
  };
}
