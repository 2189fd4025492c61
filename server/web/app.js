// The page's entry point: a hash router over the views. Every view reads only the server's
// JSON API; every URL is linkable:
//
//   #/                       the first level's leaderboard
//   #/level/NAME?offset&limit&around   a level's leaderboard
//   #/race?runs=1,2&tick&every          a ghost race
//   #/run/ID                 a run's page
//   #/play/LEVEL?ghosts=1,2  race the level in 3D against ghosts
//   #/upload                 the upload form

import { ApiError } from './api.js';
import { el, replace } from './dom.js';
import { renderBoard } from './board.js';
import { renderPlay } from './play.js';
import { renderRace } from './race.js';
import { renderRun } from './run.js';
import { renderUpload } from './upload.js';

const main = document.getElementById('main');

/** The open view: aborting its signal stops its requests, polls and animation. */
let current = null;

function openView() {
  if (current) {
    current.controller.abort();
    for (const f of current.cleanups) f();
  }
  const controller = new AbortController();
  current = { controller, cleanups: [] };
  const view = current;
  return { signal: controller.signal, cleanup: (f) => view.cleanups.push(f) };
}

async function route() {
  const view = openView();
  const url = new URL(location.hash.slice(1) || '/', 'http://page.invalid');
  const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  const params = url.searchParams;
  document.querySelectorAll('header nav a').forEach((a) => {
    a.toggleAttribute('aria-current', a.dataset.route === (parts[0] ?? 'level'));
  });
  main.dataset.view = parts[0] ?? 'level';
  // Which route the content is of, and whether it has finished rendering (tests wait on it).
  main.dataset.route = location.hash;
  delete main.dataset.rendered;
  try {
    if (parts.length === 0) await renderBoard(main, null, params, view);
    else if (parts[0] === 'level' && parts.length === 2) await renderBoard(main, parts[1], params, view);
    else if (parts[0] === 'play' && parts.length === 2) await renderPlay(main, parts[1], params, view);
    else if (parts[0] === 'race') await renderRace(main, params, view);
    else if (parts[0] === 'run' && parts.length === 2) await renderRun(main, Number(parts[1]), view);
    else if (parts[0] === 'upload') renderUpload(main, params, view);
    else replace(main, el('p', { class: 'error' }, 'No such page. '), el('a', { href: '#/' }, 'The leaderboards'));
    if (!view.signal.aborted) main.dataset.rendered = 'true';
  } catch (e) {
    if (e.name === 'AbortError' || view.signal.aborted) return;
    const message = e instanceof ApiError ? `${e.message} (${e.status} ${e.code})` : String(e);
    main.append(el('p', { class: 'error', role: 'alert' }, message));
    console.error(e);
  }
}

window.__pogo = { route: () => location.hash };
window.addEventListener('hashchange', route);
route();
