// The page's entry point: a hash router over the views (routes.js reads the address and
// builds every link). Every view reads only the server's JSON API; every URL is linkable.
//
// A view is rendered by `render(main, …args, params, view)`; `view` = {signal, cleanup,
// guard}: aborting `signal` stops its requests, polls and animation when another view opens,
// `cleanup(f)` runs `f` then, and `guard(f)` names what leaving would lose: `f()` returns a
// question for the racer (or null when nothing would be lost), asked before the page is
// reloaded or closed (`beforeunload`) and before another view opens (a `confirm`; cancelling
// keeps the address and the view as they were).

import { renderBoard } from './board/board.js';
import { renderLive } from './live/live.js';
import { renderEditor } from './editor/editor.js';
import { renderPlay, renderRoom, renderTestPlay } from './play/play.js';
import { renderRace } from './race/race.js';
import { renderRun } from './run/run.js';
import { renderTrack } from './tracks/track.js';
import { renderTracks } from './tracks/tracks.js';
import { renderUpload } from './upload/upload.js';
import { HOME_HREF, parseRoute } from './routes.js';
import { ApiError } from './shared/api.js';
import { el, replace } from './shared/dom.js';

const main = document.getElementById('main');

/** Each view's render function, by the route's name. */
const VIEWS = {
  board: renderBoard,
  play: renderPlay,
  room: renderRoom,
  live: renderLive,
  race: renderRace,
  run: renderRun,
  upload: renderUpload,
  tracks: renderTracks,
  track: renderTrack,
  // The editor test-plays a draft in the play view, which it may not import: given here.
  editor: (main, remixOf, params, view) => renderEditor(main, remixOf, params, view, { testPlay: renderTestPlay }),
};

/** The open view: its address, abort controller, cleanups and guard. */
let current = null;

function openView() {
  if (current) {
    current.controller.abort();
    for (const f of current.cleanups) f();
  }
  const controller = new AbortController();
  const view = { hash: location.hash, controller, cleanups: [], guard: null };
  current = view;
  return {
    signal: controller.signal,
    cleanup: (f) => view.cleanups.push(f),
    guard: (f) => { view.guard = f; },
  };
}

/** What leaving the open view now would lose (a question), or null. */
function leaveQuestion() {
  return current?.guard?.() ?? null;
}

async function route() {
  const view = openView();
  const { name, args, params, section } = parseRoute(location.hash);
  document.querySelectorAll('header nav a').forEach((a) => {
    a.toggleAttribute('aria-current', a.dataset.route === section);
  });
  main.dataset.view = section;
  // Which route the content is of, and whether it has finished rendering (tests wait on it).
  main.dataset.route = location.hash;
  delete main.dataset.rendered;
  try {
    const render = VIEWS[name];
    if (render) await render(main, ...args, params, view);
    else replace(main, el('p', { class: 'error' }, 'No such page. '), el('a', { href: HOME_HREF }, 'The leaderboards'));
    if (!view.signal.aborted) main.dataset.rendered = 'true';
  } catch (e) {
    if (e.name === 'AbortError' || view.signal.aborted) return;
    const message = e instanceof ApiError ? `${e.message} (${e.status} ${e.code})` : String(e);
    main.append(el('p', { class: 'error', role: 'alert' }, message));
    console.error(e);
  }
}

/** A new address: the open view may ask first; cancelled, the old address comes back (it
 * replaces the new one in the history, which fires no `hashchange`). */
function onHashChange() {
  if (current && location.hash === current.hash) return;
  const question = leaveQuestion();
  if (question && !window.confirm(question)) {
    history.replaceState(null, '', current.hash || `${location.pathname}${location.search}`);
    return;
  }
  route();
}

/** Reload or close: the browser asks its own question when the view has one. */
function onBeforeUnload(event) {
  if (!leaveQuestion()) return;
  event.preventDefault();
  event.returnValue = '';
}

window.__pogo = { route: () => location.hash };
window.addEventListener('hashchange', onHashChange);
window.addEventListener('beforeunload', onBeforeUnload);
route();
