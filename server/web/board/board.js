// The leaderboards (`#/` and `#/level/NAME?offset=N&limit=N&around=PLAYER&category=C&season=ID`):
// the Open / Real-time toggle (open: every verified run; real-time: runs played under a run
// ticket whose commitments all came on time), the levels as tabs, and the selected level's
// ranked verified runs — rank, player, time and finish tick, upload date, splits — paginated,
// with a player search that jumps to the page around them, and the choice of runs to race: as
// a replay race (`#/race`) or, in 3D, against them as ghosts (`#/play/LEVEL?ghosts=`). "Play"
// races the level (live, through the server) and "Race friends" makes a room to share; "live
// now" says when races are in progress on the level (`#/live`); finished runs this browser
// has not uploaded yet are offered first. A level with past seasons lists them
// (`seasons.js`); a past season's board opens read-only: no Play, no races.

import { UPLOAD_HREF, boardHref, liveHref, playHref, raceHref, roomHref, runHref, trackHref, tracksHref } from '../routes.js';
import { ApiError, getJson, segment } from '../shared/api.js';
import { el, link, replace } from '../shared/dom.js';
import { checkpointLabel, date } from '../shared/format.js';
import { GHOSTS_MAX } from '../shared/ghosts.js';
import { renderPending } from '../shared/pending-list.js';
import { makeRoom, pollRooms } from '../shared/rooms.js';
import { pastNotice, seasonList } from './seasons.js';

/** Entries per page unless the URL says otherwise (the API allows 1–100). */
export const PAGE_LIMIT_DEFAULT = 20;
const PAGE_LIMIT_MAX = 100;

export async function renderBoard(main, levelName, params, view) {
  const levels = await getJson('/api/levels', { signal: view.signal });
  if (levels.length === 0) {
    replace(main, el('p', {}, 'This server runs no levels.'));
    return;
  }
  const level = levels.find((l) => l.name === levelName) ?? (levelName === null ? levels[0] : await trackLevel(levelName, view.signal));
  const pending = el('div', { class: 'board-pending', hidden: true });
  const tracks = levelName === null ? el('div', { class: 'home-tracks', hidden: true }) : null;
  const section = el('section', { class: 'board' }, levelTabs(levels, level), tracks, pending);
  replace(main, section);
  renderPending(pending, view);
  if (tracks) homeTracks(tracks, view);
  if (!level) {
    section.append(el('p', { class: 'error' }, `No level named “${levelName}” on this server.`));
    return;
  }
  const at = await boardAt(level, params, view);
  section.append(levelHead(level, at), ...[seasonList(at.seasons, at.season?.id ?? null, at.seasonHref)].filter(Boolean),
    categoryToggle(at));
  section.dataset.category = at.category;
  if (at.seasonParam !== null && at.season === null) {
    section.append(el('p', { class: 'error', role: 'alert' }, `${level.name} has no season “${at.seasonParam}”.`),
      link(boardHref(level.name), 'The current season'));
    return;
  }
  if (at.past) section.append(pastNotice(at.season, boardHref(level.name)));
  else liveNow(section.querySelector('.live-now'), level.name, view);
  section.append(searchForm(at, params));
  const board = await readBoard(section, level, at, params, view);
  if (!board) return;
  if (at.past) renderPastBoard(section, level, board, at.href, params);
  else await renderCurrentBoard(section, level, board, at, params, view);
}

/** Tracks to race, beside the built-in levels on the home page: the newest and the most
 * raced this week, a few of each by name (nothing if the server has none, or no such route). */
const HOME_TRACKS = 5;
async function homeTracks(node, view) {
  try {
    const [newest, popular] = await Promise.all(['new', 'popular'].map((sort) =>
      getJson(`/api/tracks?sort=${sort}&limit=${HOME_TRACKS}`, { signal: view.signal, retry: false }).then((b) => b.tracks)));
    if (newest.length === 0) return;
    const row = (label, list, href) => list.length === 0 ? null : el('p', {}, el('strong', {}, label), ' ',
      list.flatMap((t, i) => [i ? ' · ' : '', link(trackHref(t.id), t.name)]), ' · ', link(href, 'more'));
    replace(node, el('span', { class: 'muted' }, 'Tracks players made:'),
      row('New', newest, tracksHref()), row('Most raced this week', popular, tracksHref({ sort: 'popular' })));
    node.hidden = false;
  } catch (e) {
    if (e.name === 'AbortError') return;
  }
}

/** A player's track's board (`t-` and its id): not among the server's levels, so its summary
 * is made from the track and its board (its hashes, rules and tick rate); null if none. */
async function trackLevel(levelName, signal) {
  const id = /^t-([0-9a-f]{16})$/.exec(levelName ?? '')?.[1];
  if (!id) return null;
  try {
    const [track, board] = await Promise.all([
      getJson(`/api/tracks/${id}`, { signal }),
      getJson(`/api/levels/${levelName}/leaderboard?limit=1`, { signal }),
    ]);
    return {
      name: levelName, hash: board.level_hash, tuning_hash: board.tuning_hash, rules_version: board.rules_version,
      tick_rate: board.tick_rate, description: `${track.name}, a track by ${track.author}`, track: track.id,
    };
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    return null;
  }
}

/** The levels as tabs, the shown one marked. */
function levelTabs(levels, level) {
  const tabs = el('nav', { class: 'levels', 'aria-label': 'Levels' },
    levels.map((l) => link(boardHref(l.name), l.name)));
  tabs.querySelectorAll('a').forEach((a, i) => {
    if (level && levels[i].name === level.name) a.setAttribute('aria-current', 'page');
  });
  return tabs;
}

/**
 * Which board of `level` the address asks for: {category, around, seasons, season (null: no
 * such season), seasonParam, past, href(query) (a link on this board, keeping the season and
 * the category; the current season and the open board are the defaults, not written),
 * seasonHref(season)}.
 */
async function boardAt(level, params, view) {
  const category = params.get('category') === 'realtime' ? 'realtime' : 'open';
  // The season shown: `?season=ID`, else the current one. Links within the board keep it.
  const seasons = await getJson(`/api/levels/${segment(level.name)}/seasons`, { signal: view.signal });
  const seasonParam = params.get('season') || null;
  const season = seasonParam === null ? seasons.seasons[0] : seasons.seasons.find((s) => s.id === seasonParam) ?? null;
  const past = season !== null && !season.current;
  const href = (query = {}) => {
    const c = query.category ?? category;
    return boardHref(level.name, { ...query, season: past ? season.id : null, category: c === 'realtime' ? 'realtime' : undefined });
  };
  const seasonHref = (s) => boardHref(level.name, { season: s.current ? null : s.id });
  return { category, around: params.get('around'), seasons, season, seasonParam, past, href, seasonHref };
}

/** The level's name, Play (not on a past season), description and keys. */
function levelHead(level, { past, season }) {
  return el('header', { class: 'level-head' },
    el('div', { class: 'level-title' },
      el('h2', {}, level.name),
      past ? el('span', { class: 'season-badge' }, 'past season')
        : [el('a', { href: playHref(level.name), class: 'play-link', 'aria-label': `Play ${level.name}` }, '▶ Play'),
          friendsButton(level.name), el('a', { class: 'live-now', href: liveHref(level.name), hidden: true })]),
    el('p', { class: 'muted' }, level.description),
    el('p', { class: 'muted small' }, past
      ? `level ${season.level_hash} · tuning ${season.tuning_hash} · rules ${season.rules_version}`
      : `level ${level.hash} · tuning ${level.tuning_hash} · rules ${level.rules_version} · ${level.tick_rate} Hz`));
}

/** "Race friends": a room on the level, opened to share. */
function friendsButton(levelName) {
  const button = el('button', { type: 'button', class: 'quiet race-friends' }, 'Race friends');
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      location.hash = roomHref(await makeRoom(levelName));
    } catch (e) {
      button.disabled = false;
      button.textContent = `No room: ${e.message}`;
    }
  });
  return button;
}

/** "● live now: N races", kept up to date while the board is open; hidden when none. */
function liveNow(badge, levelName, view) {
  pollRooms(levelName, view.signal, (rooms) => {
    const racing = rooms.filter((r) => r.phase !== 'lobby').length;
    badge.hidden = rooms.length === 0;
    badge.dataset.rooms = String(rooms.length);
    badge.textContent = `● live now: ${rooms.length} race${rooms.length === 1 ? '' : 's'}${racing < rooms.length ? ` (${rooms.length - racing} in the lobby)` : ''} — watch`;
  });
}

/** Open / Real-time. */
function categoryToggle({ category, href }) {
  const toggle = el('nav', { class: 'category-toggle', 'aria-label': 'Board', dataset: { category } },
    link(href({ category: 'open' }), 'Open'),
    link(href({ category: 'realtime' }), 'Real-time'),
    el('span', { class: 'muted small category-what' }, category === 'realtime'
      ? 'runs raced in real time: live through the server, or under a run ticket, every message on time'
      : 'every verified run: the page\'s, the CLI\'s, files made offline, tool-assisted'));
  toggle.querySelectorAll('a')[category === 'realtime' ? 1 : 0].setAttribute('aria-current', 'page');
  return toggle;
}

/** "Find a player": the page around them. */
function searchForm({ around, href }, params) {
  const search = el('input', { type: 'search', name: 'player', placeholder: 'Find a player', 'aria-label': 'Player name', value: around ?? '' });
  const form = el('form', { class: 'search', role: 'search' }, search, el('button', { type: 'submit' }, 'Find'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const name = search.value.trim();
    location.hash = href(name ? { around: name, limit: params.get('limit') } : { limit: params.get('limit') });
  });
  return form;
}

/** The page of the board asked for, or null after saying why there is none to show. */
async function readBoard(section, level, { category, around, past, season, href }, params, view) {
  const limit = clampInt(params.get('limit'), 1, PAGE_LIMIT_MAX, PAGE_LIMIT_DEFAULT);
  const query = new URLSearchParams({ limit: String(limit), category });
  if (around) query.set('around', around);
  else query.set('offset', String(clampInt(params.get('offset'), 0, Number.MAX_SAFE_INTEGER, 0)));
  if (past) query.set('season', season.id);
  let board;
  try {
    board = await getJson(`/api/levels/${segment(level.name)}/leaderboard?${query}`, { signal: view.signal });
  } catch (e) {
    if (e instanceof ApiError && around && e.code === 'unknown_player') {
      section.append(el('p', { class: 'error', role: 'alert' }, e.message), link(href(), 'Back to the top'));
      return null;
    }
    throw e;
  }
  if (around && board.entries.length === 0) {
    // A player absent from this board: the server's ordinary answer, no entries.
    section.append(el('p', { class: 'empty', role: 'status' }, `${board.around ?? around} has no run on this board yet.`),
      link(href(), 'Back to the top'));
    return null;
  }
  if (board.entries.length === 0) {
    const none = category === 'realtime' ? 'No real-time runs yet: race this level here with a name to be the first.' : 'No verified runs yet. Upload one!';
    section.append(el('p', { class: 'empty' }, board.total === 0 ? none : 'No entries on this page.'));
    if (board.total > 0) section.append(link(href(), 'Back to the top'));
    return null;
  }
  return board;
}

/** The current season's board: the ranking, and runs to tick for a race (up to GHOSTS_MAX). */
async function renderCurrentBoard(section, level, board, { category, href }, params, view) {
  // "Race the leader": the top entry, from this page or asked for.
  const leader = board.offset === 0 ? board.entries[0]
    : (await getJson(`/api/levels/${segment(level.name)}/leaderboard?limit=1&category=${category}`, { signal: view.signal })).entries[0];

  const selected = new Set();
  const raceButton = el('button', { type: 'button', class: 'race-selected', disabled: true }, 'Race selected');
  const updateRace = () => {
    raceButton.disabled = selected.size < 2;
    raceButton.textContent = `Race selected (${selected.size})`;
  };
  raceButton.addEventListener('click', () => { location.hash = raceHref([...selected]); });
  // The ticked runs as ghosts in the play view (a link: it can be opened in a new tab).
  const ghostsLink = el('a', { class: 'race-ghosts', 'aria-disabled': 'true' }, 'Race these ghosts');
  const updateGhosts = () => {
    const ids = [...selected].slice(0, GHOSTS_MAX);
    if (ids.length === 0) {
      ghostsLink.removeAttribute('href');
      ghostsLink.setAttribute('aria-disabled', 'true');
    } else {
      ghostsLink.setAttribute('href', playHref(level.name, ids));
      ghostsLink.removeAttribute('aria-disabled');
    }
    ghostsLink.textContent = `Race these ghosts (${ids.length})`;
    full.hidden = selected.size < GHOSTS_MAX;
  };
  // Said when the selection is full (a ninth box does not tick).
  const full = el('span', { class: 'muted small race-full', role: 'status', hidden: true }, `${GHOSTS_MAX} runs at most in one race`);
  updateRace();
  updateGhosts();

  const rows = board.entries.map((entry) => {
    const box = el('input', { type: 'checkbox', 'aria-label': `Select ${entry.player}'s run for a race` });
    box.addEventListener('change', () => {
      if (box.checked && selected.size >= GHOSTS_MAX) box.checked = false;
      if (box.checked) selected.add(entry.run_id);
      else selected.delete(entry.run_id);
      updateRace();
      updateGhosts();
    });
    const versus = entry.run_id === leader.run_id ? el('span', { class: 'muted' }, 'leader')
      : link(raceHref([entry.run_id, leader.run_id]), 'race the leader');
    const isAround = board.around !== null && entry.player.toLowerCase() === board.around.toLowerCase();
    return el('tr', { class: isAround ? 'around' : null, dataset: { run: entry.run_id, rank: entry.rank, player: entry.player, finishTick: entry.finish_tick } },
      el('td', { class: 'select' }, box),
      el('td', { class: 'rank' }, String(entry.rank)),
      el('td', { class: 'player' }, link(runHref(entry.run_id), entry.player)),
      el('td', { class: 'time' }, el('span', { class: 'clock' }, entry.time), ' ', el('span', { class: 'ticks muted' }, `tick ${entry.finish_tick}`)),
      el('td', { class: 'uploaded' }, el('time', { datetime: entry.uploaded_at }, date(entry.uploaded_at))),
      el('td', { class: 'splits' }, el('ol', { class: 'split-list' }, entry.splits.map((s) =>
        el('li', { dataset: { tick: s.tick } }, el('span', { class: 'muted' }, `${checkpointLabel(s.checkpoint)} `), s.time)))),
      el('td', { class: 'versus' }, versus, ' · ', el('a', { href: playHref(level.name, [entry.run_id]), class: 'race-ghost' }, 'race this ghost')));
  });
  const table = el('table', { class: 'leaderboard' },
    el('caption', { class: 'visually-hidden' }, `Leaderboard of ${level.name}`),
    el('thead', {}, el('tr', {},
      el('th', { scope: 'col', class: 'select' }, el('span', { class: 'visually-hidden' }, 'race')),
      ['#', 'Player', 'Time', 'Uploaded', 'Splits', ''].map((h, i) =>
        el('th', { scope: 'col', class: ['rank', 'player', 'time', 'uploaded', 'splits', 'versus'][i] }, h)))),
    el('tbody', {}, rows));

  section.append(el('div', { class: 'actions' }, raceButton, ghostsLink, full, leader ? link(UPLOAD_HREF, 'Upload a run') : null),
    el('div', { class: 'table-wrap' }, table), pager(board, href, params));
  section.dataset.ready = 'true';
}

/** A past season's board: the ranking only (its runs cannot be raced or played here). */
function renderPastBoard(section, level, board, href, params) {
  const rows = board.entries.map((entry) => {
    const isAround = board.around !== null && entry.player.toLowerCase() === board.around.toLowerCase();
    return el('tr', { class: isAround ? 'around' : null, dataset: { run: entry.run_id, rank: entry.rank, player: entry.player, finishTick: entry.finish_tick } },
      el('td', { class: 'rank' }, String(entry.rank)),
      el('td', { class: 'player' }, link(runHref(entry.run_id), entry.player)),
      el('td', { class: 'time' }, el('span', { class: 'clock' }, entry.time), ' ', el('span', { class: 'ticks muted' }, `tick ${entry.finish_tick}`)),
      el('td', { class: 'uploaded' }, el('time', { datetime: entry.uploaded_at }, date(entry.uploaded_at))),
      el('td', { class: 'splits' }, el('ol', { class: 'split-list' }, entry.splits.map((s) =>
        el('li', { dataset: { tick: s.tick } }, el('span', { class: 'muted' }, `${checkpointLabel(s.checkpoint)} `), s.time)))));
  });
  const table = el('table', { class: 'leaderboard past' },
    el('caption', { class: 'visually-hidden' }, `Leaderboard of ${level.name}, season ${board.season} (past)`),
    el('thead', {}, el('tr', {},
      ['#', 'Player', 'Time', 'Uploaded', 'Splits'].map((h, i) =>
        el('th', { scope: 'col', class: ['rank', 'player', 'time', 'uploaded', 'splits'][i] }, h)))),
    el('tbody', {}, rows));
  section.append(el('div', { class: 'table-wrap' }, table), pager(board, href, params));
  section.dataset.ready = 'true';
}

/** Previous / range / next (and "Top" after a player search). */
function pager(board, href, params) {
  const first = board.offset + 1;
  const lastShown = board.offset + board.entries.length;
  const limit = params.get('limit');
  const prev = board.offset > 0 ? link(href({ offset: Math.max(0, board.offset - board.limit), limit }), '← Previous') : null;
  const next = lastShown < board.total ? link(href({ offset: lastShown, limit }), 'Next →') : null;
  return el('nav', { class: 'pager', 'aria-label': 'Pages' },
    prev, el('span', { class: 'range' }, `${first}–${lastShown} of ${board.total}`), next,
    board.around !== null ? link(href({ limit }), 'Top') : null);
}

function clampInt(text, lo, hi, fallback) {
  const n = Number(text);
  return text !== null && Number.isInteger(n) ? Math.min(hi, Math.max(lo, n)) : fallback;
}
