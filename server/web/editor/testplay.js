// Test-play: the draft raced in the play view (given by app.js: this view may not import
// another), on the same WebAssembly core, offline, on the draft's geometry named as the
// track it would be (`t-` and its geometry hash). From the spawn, a finish is the author's
// finish publishing sends; from a checkpoint (Shift+P), the run starts at that checkpoint's
// respawn point on a test copy and cannot publish. Esc or the button comes back to the editor
// exactly as it was: the editor's page is hidden, not closed, meanwhile.

import { el } from '../shared/dom.js';
import { refusalText } from './codes.js';
import { levelJson, parseKey } from './model.js';

/**
 * Starts a test-play of `ctx.session`'s track (`fromCheckpoint`: from the selected
 * checkpoint). `ctx` = {session, body (the editor's page, hidden meanwhile), section, params,
 * testPlay (play view's renderTestPlay), onBack()}. A message for the status instead when
 * it cannot start.
 */
export function startTestPlay(ctx, fromCheckpoint) {
  const { session } = ctx;
  if (!session.pogo) return 'Test-play needs the simulation module, which this server does not have.';
  if (!session.gate?.ok) return 'Fix the problems first: a track the server would refuse cannot be test-played.';
  let track = session.history.current;
  let title = track.name;
  let note = null;
  if (fromCheckpoint) {
    const key = [...session.selection].find((k) => k.startsWith('checkpoints:'));
    if (!key || session.selection.size !== 1) return 'Select one checkpoint to test-play from it (Shift+P).';
    const index = parseKey(key)[1];
    track = { ...track, spawn: [...track.checkpoints[index].spawn] };
    title = `${title}, from checkpoint ${index + 1}`;
    note = `A test from checkpoint ${index + 1}: this run cannot publish the track (publishing needs a finish from the spawn).`;
  }
  const gate = fromCheckpoint ? session.pogo.checkTrack(levelJson(track)) : session.gate;
  if (!gate.ok) return `This test copy is refused: ${refusalText(gate)}`;
  const levelText = levelJson(track, gate.levelName);
  const box = el('div', { class: 'editor-testplay', dataset: { from: fromCheckpoint ? 'checkpoint' : 'spawn' } });
  const controller = new AbortController();
  const cleanups = [];
  const subView = { signal: controller.signal, cleanup: (f) => cleanups.push(f), guard: () => {} };
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    controller.abort();
    window.removeEventListener('keydown', onKey, true);
    for (const f of cleanups) f();
    box.remove();
    ctx.body.hidden = false;
    ctx.onBack();
  };
  const onKey = (e) => {
    if (e.key !== 'Escape') return;
    e.preventDefault();
    e.stopPropagation();
    close();
  };
  const onFinished = (run) => {
    if (fromCheckpoint || run.finishTick === null || !run.bytes) return;
    session.authorRun = { bytes: run.bytes.slice(), finishTick: run.finishTick, levelName: gate.levelName, levelText };
  };
  ctx.body.hidden = true;
  ctx.section.append(box);
  window.addEventListener('keydown', onKey, true);
  ctx.testPlay(box, { levelText, levelName: gate.levelName, title, note, onFinished, onExit: close }, ctx.params, subView)
    .catch((e) => {
      if (!controller.signal.aborted) box.append(el('p', { class: 'error', role: 'alert' }, `The test-play failed: ${e.message}`));
    });
  return { close };
}
