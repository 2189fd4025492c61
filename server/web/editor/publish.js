// Publishing a track (`POST /api/tracks`): the level JSON named by its geometry, a display
// name and description, the author's finished replay on exactly this geometry from the spawn
// (test-play records it), and the track it remixes. The server checks everything again;
// what it refuses is shown next to the object its `field` names. A server without the route
// says so; nothing is ever shown as published that the server did not answer 200 or 201 to.

import { trackHref } from '../routes.js';
import { ApiError, request } from '../shared/api.js';
import { el, replace } from '../shared/dom.js';
import { getIdentity } from '../shared/identity.js';

/** Bytes as base64. */
function base64(bytes) {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/** Fills `box` with the publish panel of `editor` (editor.js). */
export function renderPublish(box, editor) {
  const identity = getIdentity();
  const run = editor.authorRun;
  const gate = editor.gate;
  const finished = run && gate?.ok && run.levelName === gate.levelName;
  const state = !gate?.ok ? 'Fix the problems first.'
    : !identity ? 'Publishing needs a name: register one on a finish panel (race any level) first.'
      : !finished ? 'Finish it to publish: test-play it from the spawn (P) and cross the finish. Any change to the geometry after your finish needs a new one.'
        : `Your finish from the spawn: ${(run.finishTick / editor.rate).toFixed(2)} s. Ready to publish.`;
  const name = el('input', { type: 'text', value: editor.draft.displayName ?? editor.history.current.name, maxlength: '64', 'aria-label': 'Display name', dataset: { field: 'publish-name' } });
  name.addEventListener('change', () => { editor.draft.displayName = name.value; editor.saveNow(); });
  const description = el('textarea', { rows: '2', maxlength: '500', 'aria-label': 'Description', placeholder: 'What is this track like?' });
  description.value = editor.draft.description ?? '';
  description.addEventListener('change', () => { editor.draft.description = description.value; editor.saveNow(); });
  const result = el('div', { class: 'publish-result', role: 'status' }, resultText(editor.publishResult));
  if (editor.publishResult?.fresh) {
    editor.publishResult.fresh = false;
    requestAnimationFrame(() => result.scrollIntoView({ block: 'nearest' }));
  }
  const button = el('button', { type: 'button', class: 'publish-button', disabled: !(finished && identity) }, 'Publish');
  button.addEventListener('click', () => publish(editor, { name: name.value.trim() || editor.history.current.name, description: description.value, identity, run, button, result }));
  replace(box, el('h3', {}, 'Publish'),
    el('p', { class: `publish-state${finished ? ' ready' : ''}`, dataset: { ready: finished ? 'yes' : 'no' } }, state),
    el('label', { class: 'publish-field' }, 'Name ', name), el('label', { class: 'publish-field' }, 'Description ', description),
    editor.draft.remixOf ? el('p', { class: 'muted small' }, `A remix of track ${editor.draft.remixOf}.`) : null,
    button, result);
}

/** What the last publish got: {kind: 'done' | 'error', text, href?}, as a paragraph. */
function resultText(last) {
  if (!last) return null;
  if (last.kind === 'done') return el('p', { class: 'publish-done' }, last.text, el('a', { href: last.href }, last.linkText));
  return el('p', { class: 'error', role: 'alert' }, last.text);
}

async function publish(editor, { name, description, identity, run, button, result }) {
  button.disabled = true;
  replace(result, el('span', { class: 'muted' }, 'Publishing…'));
  const said = (last, field = null) => {
    editor.publishResult = { ...last, fresh: true };
    if (field) editor.flagServerField(field, last.text);
    else editor.onChange('publish');
  };
  const body = {
    level: run.levelText, name, description, replay: base64(run.bytes), remix_of: editor.draft.remixOf ?? null,
  };
  try {
    const { status, body: answer } = await request('/api/tracks', {
      method: 'POST', retry: false,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${identity.token}` },
      body: JSON.stringify(body),
    });
    const track = answer?.track;
    if (!track?.id) throw new ApiError(status, 'bad_answer', 'the server answered without a track');
    said({ kind: 'done', text: status === 201 ? 'Published: ' : 'Published before, with this very geometry: ', href: trackHref(track.id), linkText: `track ${track.id}` });
  } catch (e) {
    // The server's own "no such route" (404 no_route, 405): it does not publish tracks.
    if (e instanceof ApiError && (e.status === 405 || (e.status === 404 && (e.code === 'no_route' || e.code.startsWith('http_'))))) {
      said({ kind: 'error', text: 'Publishing is not available on this server.' });
      return;
    }
    const field = e instanceof ApiError && typeof e.body?.field === 'string' ? e.body.field : null;
    said({ kind: 'error', text: e instanceof ApiError ? `Refused: ${e.message} (${e.status} ${e.code})` : `Not published: ${e.message}` }, field);
  }
}
