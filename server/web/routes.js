// The page's addresses, in one place: every link a view shows is built here, and the router
// (app.js) reads the address here, so no view imports another view to link to it.
//
//   #/                                  the first level's leaderboard
//   #/level/NAME?offset&limit&around&category&season   a level's leaderboard
//   #/race?runs=1,2&tick&every          a replay race of verified runs (2D)
//   #/run/ID                            a run's page
//   #/play/LEVEL?ghosts=1,2             race the level in 3D against ghosts (live, a room of one)
//   #/room/ID                           a live room: its lobby, the race, its result
//   #/live?level=NAME                   the races in progress
//   #/upload                            the upload form
//   #/editor                            the track editor (its drafts)
//   #/editor/ID                         the editor on a remix of published track ID
//   #/tracks/ID                         a published track's page

import { segment } from './shared/api.js';

/** The first level's board. */
export const HOME_HREF = '#/';
/** The upload form. */
export const UPLOAD_HREF = '#/upload';

/** The races in progress (of one level, or of all). */
export function liveHref(level = null) {
  return level === null ? '#/live' : `#/live?level=${segment(level)}`;
}

/** A live room's page (the link racers share). */
export function roomHref(id) {
  return `#/room/${segment(id)}`;
}

/** A room's page as a full address, to send to a friend. */
export function roomUrl(id) {
  return `${location.origin}${location.pathname}${roomHref(id)}`;
}

/** A level's board; `query` keys with an empty value (undefined, null, '') are left out. */
export function boardHref(level, query = {}) {
  const q = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined && v !== null && v !== ''));
  const text = q.toString();
  return `#/level/${segment(level)}${text ? `?${text}` : ''}`;
}

/** The play view of `level` against the runs `ghostIds` (in order). */
export function playHref(level, ghostIds = []) {
  const query = ghostIds.length ? `?ghosts=${ghostIds.join(',')}` : '';
  return `#/play/${segment(level)}${query}`;
}

/** The replay race of `runIds`, with more of its query (`tick`, `every`). */
export function raceHref(runIds, extra = {}) {
  const query = new URLSearchParams({ runs: runIds.join(','), ...extra });
  return `#/race?${query.toString().replaceAll('%2C', ',')}`;
}

/** The track editor; with `remixOf`, on a remix of that published track. */
export function editorHref(remixOf = null) {
  return remixOf === null ? '#/editor' : `#/editor/${segment(remixOf)}`;
}

/** The tracks players made: `query` = {sort, author, q} (each optional). */
export function tracksHref(query = {}) {
  const search = new URLSearchParams(Object.entries(query).filter(([, v]) => v != null && v !== ''));
  const text = search.toString();
  return text ? `#/tracks?${text}` : '#/tracks';
}

/** A published track's page. */
export function trackHref(id) {
  return `#/tracks/${segment(id)}`;
}

/** A run's page. */
export function runHref(id) {
  return `#/run/${id}`;
}

/**
 * The address `hash` (`location.hash`) as `{name, args, params}`: the view's name (`board`,
 * `play`, `room`, `live`, `race`, `run`, `upload`, `editor`, `tracks`, `track`, or `none` for no page), its decoded path
 * arguments and its query. `section` is the header's section the page belongs to (`level`,
 * `live`, `room`, `upload`, `editor` or `tracks`).
 */
export function parseRoute(hash) {
  const url = new URL(hash.slice(1) || '/', 'http://page.invalid');
  const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  const params = url.searchParams;
  const section = parts[0] === 'room' ? 'live' : parts[0] ?? 'level';
  const route = (name, ...args) => ({ name, args, params, section });
  if (parts.length === 0) return route('board', null);
  if (parts[0] === 'level' && parts.length === 2) return route('board', parts[1]);
  if (parts[0] === 'play' && parts.length === 2) return route('play', parts[1]);
  if (parts[0] === 'race') return route('race');
  if (parts[0] === 'run' && parts.length === 2) return route('run', Number(parts[1]));
  if (parts[0] === 'upload') return route('upload');
  if (parts[0] === 'editor' && parts.length <= 2) return route('editor', parts[1] ?? null);
  if (parts[0] === 'tracks' && parts.length === 1) return route('tracks');
  if (parts[0] === 'tracks' && parts.length === 2) return route('track', parts[1]);
  if (parts[0] === 'room' && parts.length === 2) return route('room', parts[1]);
  if (parts[0] === 'live' && parts.length === 1) return route('live');
  return route('none');
}
