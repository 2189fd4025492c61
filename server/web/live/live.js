// The races in progress (`#/live?level=NAME`): every live room in its lobby, counting down or
// racing (`GET /api/rooms`), solo runs included, newest first, with its racers — who is
// connected, who finished — and a link to watch it (or to join it while it is in its
// lobby). The list is read again every few seconds while the view is open. "Race friends"
// makes a room to share.

import { boardHref, liveHref, playHref, roomHref } from '../routes.js';
import { getJson } from '../shared/api.js';
import { el, link, replace } from '../shared/dom.js';
import { GHOST_COLOURS } from '../shared/ghosts.js';
import { makeRoom, pollRooms } from '../shared/rooms.js';

/** What a room's phase says. */
const PHASES = { lobby: 'in the lobby', countdown: 'counting down', racing: 'racing', over: 'over' };
/** What a racer's state says (racing says nothing). */
const STATES = { waiting: 'waiting', finished: 'finished', left: 'left', cut: 'cut off', desynced: 'desync', timeout: 'out of time' };

function swatch(colour) {
  const node = el('span', { class: 'swatch' });
  node.style.background = colour;
  return node;
}

export async function renderLive(main, params, view) {
  const levelName = params.get('level') || null;
  const levels = await getJson('/api/levels', { signal: view.signal });
  const list = el('div', { class: 'live-rooms', 'aria-live': 'polite' }, el('p', { class: 'muted' }, 'Looking for races…'));
  const section = el('section', { class: 'live', dataset: { level: levelName ?? '' } },
    el('h2', {}, 'Live now', levelName ? [' on ', el('span', { class: 'level-name' }, levelName)] : null),
    el('p', { class: 'muted' }, 'Races in progress on this server: watch one as it happens, or join one still in its lobby.'),
    el('nav', { class: 'levels', 'aria-label': 'Levels' }, link(liveHref(), 'all levels'), levels.map((l) => link(liveHref(l.name), l.name))),
    friendsForm(levels, levelName),
    list);
  section.querySelectorAll('nav.levels a').forEach((a, i) => {
    if ((i === 0 && !levelName) || (i > 0 && levels[i - 1].name === levelName)) a.setAttribute('aria-current', 'page');
  });
  replace(main, section);
  await new Promise((resolve) => {
    pollRooms(levelName, view.signal, (rooms) => {
      showRooms(list, rooms, levelName);
      section.dataset.rooms = String(rooms.length);
      resolve();
    });
    view.signal.addEventListener('abort', resolve, { once: true });
    // The view is rendered even if the first read fails (it is tried again).
    setTimeout(resolve, 5000);
  });
}

/** "Race friends on [level]": a room to share. */
function friendsForm(levels, levelName) {
  const select = el('select', { 'aria-label': 'Level' }, levels.map((l) => el('option', { value: l.name, selected: l.name === levelName }, l.name)));
  const button = el('button', { type: 'submit', class: 'primary' }, 'Race friends');
  const form = el('form', { class: 'live-friends' }, el('span', {}, 'Start a race on '), select, ' ', button);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    button.disabled = true;
    try {
      location.hash = roomHref(await makeRoom(select.value));
    } catch (err) {
      button.disabled = false;
      button.textContent = `No room: ${err.message}`;
    }
  });
  return form;
}

function showRooms(list, rooms, levelName) {
  if (rooms.length === 0) {
    replace(list, el('p', { class: 'muted live-empty' }, 'No races right now. ',
      levelName ? link(playHref(levelName), `Play ${levelName}`) : null, levelName ? ' — it shows here while you race.' : 'Play a level: it shows here while you race.'));
    return;
  }
  replace(list, el('ul', { class: 'live-list' }, rooms.map(roomItem)));
}

/** One room: level, phase, racers, spectators; watch or join. */
function roomItem(room) {
  const since = room.go_ms && room.phase === 'racing' ? ` · ${Math.max(0, Math.floor((Date.now() - room.go_ms) / 1000))} s in` : '';
  const solo = room.racers.length === 1 ? ' · solo' : '';
  return el('li', { class: 'live-room', dataset: { room: room.id, phase: room.phase, level: room.level } },
    el('div', { class: 'live-room-head' },
      link(boardHref(room.level), el('span', { class: 'level-name' }, room.level)),
      el('span', { class: `live-phase ${room.phase}` }, ` ${PHASES[room.phase] ?? room.phase}`),
      el('span', { class: 'muted small' }, `${solo}${since} · ${room.spectators} watching`)),
    el('ul', { class: 'room-racers' }, room.racers.map((r) => el('li', { class: r.connected ? 'connected' : 'gone' },
      swatch(GHOST_COLOURS[r.racer % GHOST_COLOURS.length]), r.name,
      STATES[r.state] ? el('span', { class: 'muted' }, ` ${STATES[r.state]}`) : !r.connected ? el('span', { class: 'muted' }, ' offline') : null))),
    el('a', { href: roomHref(room.id), class: 'primary live-watch' }, room.phase === 'lobby' ? 'Join' : 'Watch'));
}
