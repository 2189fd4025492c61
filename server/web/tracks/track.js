// A published track's page (`#/tracks/ID`): its top-down picture (drawn from its level
// file), name, author and description, the author time and the medals that follow from it,
// its board's top entries with the medal each earned, and what to do next: Play, Race friends
// (a live room on it), Remix (the editor on a copy), the whole board, the level file.

import { boardHref, editorHref, playHref, roomHref, runHref, trackHref, tracksHref } from '../routes.js';
import { ApiError, getJson, request, segment } from '../shared/api.js';
import { el, link, replace } from '../shared/dom.js';
import { date } from '../shared/format.js';
import { getIdentity } from '../shared/identity.js';
import { makeRoom } from '../shared/rooms.js';
import { drawTrackPicture, medalOf } from '../shared/track-picture.js';

/** The picture's size (px). */
const PICTURE = { width: 720, height: 420 };
/** Board entries shown on the page. */
const TOP = 10;
const MEDALS = [['author', 'Author'], ['gold', 'Gold'], ['silver', 'Silver'], ['bronze', 'Bronze']];

export async function renderTrack(main, id, params, view) {
  let track;
  try {
    track = await getJson(`/api/tracks/${segment(id)}`, { signal: view.signal });
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    const why = e instanceof ApiError && (e.status === 404 || e.status === 400) ? 'No such track: it may have been hidden.' : `The track cannot be read: ${e.message}`;
    replace(main, el('p', { class: 'error', role: 'alert' }, why), el('p', {}, link(tracksHref(), 'All tracks')));
    return;
  }
  const [level, board] = await Promise.all([
    getJson(track.level_json_url, { signal: view.signal }),
    getJson(`${track.leaderboard_url}${track.leaderboard_url.includes('?') ? '&' : '?'}limit=${TOP}`, { signal: view.signal }).catch(() => null),
  ]);
  const canvas = el('canvas', { class: 'track-picture', width: PICTURE.width, height: PICTURE.height, 'aria-label': `${track.name}, seen from above` });
  drawTrackPicture(canvas, level);
  replace(main, el('section', { class: 'track', dataset: { track: track.id, level: track.level } },
    el('h2', {}, track.name),
    el('p', { class: 'track-byline' }, 'by ', link(tracksHref({ author: track.author }), track.author),
      ' · published ', date(track.created_at),
      track.remix_of ? [' · a remix of ', link(trackHref(track.remix_of), 'another track')] : null,
      track.remixes > 0 ? [' · ', `${track.remixes} ${track.remixes === 1 ? 'remix' : 'remixes'}`] : null),
    track.description ? el('p', { class: 'track-description' }, track.description) : null,
    el('div', { class: 'track-main' }, canvas, el('div', { class: 'track-side' }, medalTable(track), actions(track), authorEdit(track, () => renderTrack(main, id, params, view)))),
    boardTable(track, board)));
}

/** For the track's author (this browser's racer): its name and description, changed in
 * place (`PATCH /api/tracks/ID`). The geometry, and so the board, stay. Null for anyone else. */
function authorEdit(track, reload) {
  const identity = getIdentity();
  if (!identity || identity.name !== track.author) return null;
  const name = el('input', { type: 'text', value: track.name, maxlength: '64', required: true, 'aria-label': 'Name' });
  const description = el('textarea', { rows: '3', maxlength: '500', 'aria-label': 'Description' });
  description.value = track.description;
  const result = el('p', { class: 'track-edit-result', role: 'status' });
  const save = el('button', { type: 'submit', class: 'primary' }, 'Save');
  const form = el('form', { class: 'track-edit-form' },
    el('label', {}, 'Name', name), el('label', {}, 'Description', description), save, result);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    save.disabled = true;
    result.textContent = 'Saving…';
    try {
      await request(`/api/tracks/${segment(track.id)}`, {
        method: 'PATCH',
        retry: false,
        headers: { authorization: `Bearer ${identity.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: name.value.trim(), description: description.value }),
      });
      await reload();
    } catch (e) {
      save.disabled = false;
      result.textContent = `Not saved: ${e.message}${e instanceof ApiError ? ` (${e.status} ${e.code})` : ''}`;
    }
  });
  return el('details', { class: 'track-edit' },
    el('summary', {}, 'Rename (your track)'),
    el('p', { class: 'muted small' }, 'The name and description are yours to change; the board stays, as the geometry does.'),
    form);
}

function medalTable(track) {
  if (!track.listed) {
    return el('p', { class: 'track-unlisted', role: 'status' },
      'Unlisted: the author\'s run no longer finishes under the rules this server runs. ',
      'It has no author time or medals until ', el('strong', {}, track.author), ' finishes it again; anyone can still race it.');
  }
  return el('table', { class: 'track-medals', 'aria-label': 'Medals' },
    el('tbody', {}, MEDALS.map(([key, label]) => el('tr', { dataset: { medal: key } },
      el('th', {}, el('span', { class: `medal medal-${key}`, 'aria-hidden': 'true' }), label),
      el('td', {}, track.medals[key].time)))),
    el('caption', {}, 'The author time is the author\'s own finish; gold, silver and bronze follow from it.'));
}

function actions(track) {
  const friends = el('button', { type: 'button' }, 'Race friends');
  friends.addEventListener('click', async () => {
    friends.disabled = true;
    try {
      location.hash = roomHref(await makeRoom(track.level));
    } catch (err) {
      friends.disabled = false;
      friends.textContent = `No room: ${err.message}`;
    }
  });
  return el('div', { class: 'track-actions' },
    el('a', { href: playHref(track.level), class: 'primary button' }, 'Play'),
    friends,
    el('a', { href: editorHref(track.id), class: 'button' }, 'Remix'),
    el('p', { class: 'muted' }, link(boardHref(track.level), 'The whole board'), ' · ',
      el('a', { href: track.level_json_url, download: `${track.level}.json` }, 'Level file')));
}

function boardTable(track, board) {
  if (!board) return el('p', { class: 'muted' }, 'The board cannot be read right now.');
  const rows = board.entries.map((e) => {
    const medal = track.medals ? medalOf(e.finish_tick, track.medals) : null;
    return el('tr', { dataset: { medal: medal ?? '' } },
      el('td', {}, String(e.rank)),
      el('td', { class: 'player' }, e.player, e.run_id === track.author_run_id ? el('span', { class: 'muted' }, ' (author)') : null),
      el('td', {}, link(runHref(e.run_id), e.time)),
      el('td', {}, medal ? [el('span', { class: `medal medal-${medal}`, 'aria-hidden': 'true' }), MEDALS.find(([k]) => k === medal)[1]] : '—'));
  });
  return el('section', { class: 'track-board' },
    el('h3', {}, 'Board ', el('span', { class: 'muted' }, `· ${board.total} ${board.total === 1 ? 'player' : 'players'}`)),
    el('table', { class: 'track-table' },
      el('thead', {}, el('tr', {}, ['#', 'player', 'time', 'medal'].map((h) => el('th', {}, h)))),
      el('tbody', {}, rows)));
}
