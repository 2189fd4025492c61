// What a live room shows around the race (the screens of play/race.js's live states):
//
// - the lobby: the room's link to share, its racers (who is connected, who is ready) and the
//   Ready button; the countdown starts on the server when everyone is ready;
// - the filing panel: a finished racer's run as the server filed it, with no upload step —
//   the rank, real-time ✓ or why not, the server's final hash beside the browser's — or why
//   it was not filed (a desync);
// - the result: every racer's time (or what became of them), real-time or why not, and each
//   filed run's page and replay.
//
// API text (names, reasons) goes in as text, never as HTML (shared/dom.js).

import { boardHref, playHref, raceHref, roomUrl, runHref } from '../routes.js';
import { el, link, replace } from '../shared/dom.js';
import { tickClock } from '../shared/format.js';
import { colourOf } from '../shared/ghosts.js';

/** Said before a live race (Play's overlay, the lobby): a run cannot be paused, and a hidden
 * tab sends nothing, so its inputs reach the server late. */
export const HIDDEN_TAB_NOTE = 'Keep this tab in view while you race: a run cannot be paused, and a hidden tab sends none of your inputs, so a run whose tab was hidden for more than a second or so is not real-time (it still ranks on the open board).';

/** What each racer state says on the result. */
const STATE_TEXT = {
  waiting: 'never started', racing: 'still racing', finished: 'finished', left: 'left the race',
  cut: 'cut off (connection lost)', desynced: 'desync: not filed', timeout: 'out of time',
};
/** The result's order after the finishers (by finish tick). */
const STATE_ORDER = ['racing', 'timeout', 'left', 'cut', 'desynced', 'waiting'];

/** A coloured dot (CSSOM, not a style attribute: the page's CSP forbids inline styles). */
function swatch(colour) {
  const node = el('span', { class: 'swatch' });
  node.style.background = colour;
  return node;
}


/**
 * The lobby of `live` (play/live-race.js) in `container`: the link to share, the racers, the
 * Ready button (`setReady(bool)`).
 */
export function renderLobby(container, live, setReady) {
  const view = live.view;
  const me = live.myView;
  const url = roomUrl(live.roomId);
  const address = el('input', { type: 'text', class: 'room-link', readonly: true, value: url, 'aria-label': 'The room\'s link' });
  const copy = el('button', { type: 'button', class: 'quiet room-copy' }, 'Copy link');
  copy.addEventListener('click', async () => {
    address.select();
    try {
      await navigator.clipboard.writeText(url);
      copy.textContent = 'Copied';
    } catch {
      copy.textContent = 'Select and copy';
    }
  });
  const ready = el('button', { type: 'button', class: `play-button room-ready${me?.ready ? ' is-ready' : ''}` }, me?.ready ? 'Ready ✓' : 'Ready');
  ready.addEventListener('click', () => setReady(!me?.ready));
  const waiting = view.racers.filter((r) => !r.ready || !r.connected).length;
  replace(container, el('div', { class: 'room-lobby', dataset: { racers: view.racers.length, ready: String(Boolean(me?.ready)) } },
    el('h3', {}, 'Race friends on ', el('span', { class: 'level-name' }, view.level)),
    el('p', { class: 'small' }, 'Send this link: up to 8 racers, anyone else watches.'),
    el('div', { class: 'room-share' }, address, copy),
    el('ul', { class: 'room-racers', 'aria-label': 'Racers' }, view.racers.map((r) => el('li', {
      class: [r.connected ? 'connected' : 'gone', r.ready ? 'ready' : null].filter(Boolean).join(' '),
      dataset: { racer: r.racer, ready: String(r.ready), connected: String(r.connected) },
    }, swatch(colourOf(r.racer)),
    el('span', { class: 'rival-name' }, r.name), r.racer === live.me ? el('span', { class: 'muted' }, ' (you)') : null,
    el('span', { class: 'room-ready-mark' }, r.ready ? ' ready ✓' : r.connected ? ' not ready' : ' away')))),
    me ? ready : null,
    el('p', { class: 'muted small room-note' }, waiting
      ? `Waiting for ${waiting} racer${waiting === 1 ? '' : 's'}. The race starts 3 s after everyone is ready, on the server's clock.`
      : 'Everyone is ready…'),
    me && !me.registered ? el('p', { class: 'muted small' }, 'Racing as a guest: your run is raced live but not filed; register on the finish panel to upload it.') : null,
    me ? el('p', { class: 'muted small play-visible-note' }, HIDDEN_TAB_NOTE) : null));
}

/** The filing of `race`'s finished run in `container` (play/race.js: `race.filing`). */
export function renderFiling(container, race, rate, levelName) {
  const run = race.run;
  const filing = race.filing;
  const status = filing?.status ?? null;
  const state = filing?.why ? 'unfiled' : status ? 'filed' : 'filing';
  const root = el('section', { class: 'finish-panel filing-panel', 'aria-label': 'Your run', dataset: { state, browserHash: run.hash } },
    el('div', { class: 'finish-head' },
      el('span', { class: 'finish-label' }, 'Finished'),
      el('span', { class: 'finish-time clock' }, tickClock(run.finishTick, rate)),
      el('span', { class: 'muted small' }, `${levelName} · finish tick ${run.finishTick} · raced live`)));
  if (state === 'filing') root.append(el('p', { class: 'finish-status', role: 'status' }, 'The server re-simulated your run as you raced: filing it…'));
  if (state === 'unfiled') root.append(el('p', { class: 'finish-status', role: 'alert' }, el('strong', { class: 'mismatch' }, 'Not filed: '), filing.why));
  if (state === 'filed') fillFiled(root, run, status, levelName);
  replace(container, root);
}

/** A filed run: rank, real-time, the two hashes, where to go next. */
function fillFiled(root, run, s, levelName) {
  Object.assign(root.dataset, { run: String(s.id), serverHash: s.final_hash ?? '', hashMatch: String(s.final_hash === run.hash) });
  if (s.rank !== null && s.rank !== undefined) root.dataset.rank = String(s.rank);
  const realtime = s.realtime
    ? [el('strong', { class: 'match' }, 'real-time ✓'), s.realtime_rank ? [' · ', el('strong', { class: 'rank' }, `rank ${s.realtime_rank}`), ' on the real-time board'] : null]
    : [el('strong', { class: 'mismatch' }, 'not real-time: '), el('span', { class: 'realtime-note' }, s.realtime_note ?? 'no reason given'), el('span', { class: 'muted' }, ' — ranked on the open board only.')];
  const match = s.final_hash === run.hash ? el('span', { class: 'match' }, ' ✓ match') : el('span', { class: 'mismatch' }, ' ✗ MISMATCH');
  root.append(
    el('p', { class: 'finish-status', role: 'status' }, el('strong', {}, 'Verified and filed'), ` as run ${s.id}: `, el('span', { class: 'clock' }, s.time ?? ''),
      s.rank !== null && s.rank !== undefined ? [', ', el('strong', { class: 'rank' }, `rank ${s.rank}`)] : [', ', el('span', { class: 'unranked' }, unrankedWhy(s, levelName))],
      '. No upload needed.'),
    el('p', { class: 'finish-realtime', dataset: { realtime: String(Boolean(s.realtime)) } }, realtime),
    el('dl', { class: 'finish-compare' }, el('dt', {}, 'final hash'), el('dd', { class: 'pair' },
      el('span', {}, el('span', { class: 'muted' }, 'browser '), el('code', { class: 'browser-hash' }, run.hash)),
      el('span', {}, el('span', { class: 'muted' }, 'server '), el('code', { class: 'server-hash' }, s.final_hash ?? '—')), match)),
    el('p', { class: 'finish-next' }, link(runHref(s.id), 'See the run'), ' · ', link(boardHref(levelName, { around: s.player }), 'See the board'),
      ' · ', link(playHref(levelName, [s.id]), 'Race this run as a ghost')));
}

/** Why a verified run `s` has no rank (parts of a sentence): it did not finish, it is of a
 * past season, or it is not the player's best on the board (the server ranks each player's
 * best run only). */
export function unrankedWhy(s, levelName) {
  if (s.finish_tick === null || s.finish_tick === undefined) return 'not ranked: the run did not finish';
  if (s.current_season === false) return 'not ranked: the run is of a past season';
  return ['not ranked: ', link(boardHref(levelName, { around: s.player }), 'your best run'), ' on this board is faster (each player is ranked by their best)'];
}

/** The racers of `view` in the result's order: finishers by time, then the rest. */
function ranked(view) {
  const order = (r) => (r.state === 'finished' && r.finish_tick !== null ? [0, r.finish_tick] : [1 + STATE_ORDER.indexOf(r.state), r.racer]);
  return [...view.racers].sort((a, b) => {
    const [x, y] = [order(a), order(b)];
    return x[0] - y[0] || x[1] - y[1];
  });
}

/** The race's result in `container`: `view` the room's; `me` this page's racer (or null);
 * `newRoom()` makes another room on the level. */
export function renderResult(container, view, { me, rate, newRoom }) {
  // Places by finish tick: a tie shares its place.
  let place = 0;
  let seen = 0;
  let lastTick = null;
  const rows = ranked(view).map((r) => {
    const finished = r.state === 'finished' && r.finish_tick !== null;
    if (finished) {
      seen += 1;
      if (r.finish_tick !== lastTick) place = seen;
      lastTick = r.finish_tick;
    }
    const realtime = !finished ? el('span', { class: 'muted' }, '—')
      : r.realtime ? el('span', { class: 'match' }, 'real-time ✓') : el('span', { class: 'realtime-note' }, `not real-time: ${r.realtime_note ?? 'no reason given'}`);
    return el('tr', { dataset: { racer: r.racer, state: r.state, run: r.run_id ?? '' }, class: r.racer === me ? 'me' : null },
      el('td', { class: 'num' }, finished ? String(place) : ''),
      el('td', {}, swatch(colourOf(r.racer)), r.name, r.racer === me ? el('span', { class: 'muted' }, ' (you)') : null),
      el('td', { class: 'clock' }, finished ? tickClock(r.finish_tick, rate) : STATE_TEXT[r.state] ?? r.state),
      el('td', {}, realtime),
      el('td', {}, r.run_id ? [link(runHref(r.run_id), `run ${r.run_id}`), ' · ',
        el('a', { href: `/api/runs/${r.run_id}/replay`, download: `${view.level}-run-${r.run_id}.pogo` }, 'replay'),
        ...(finished ? [' · ', link(boardHref(view.level, { around: r.name }), 'board')] : [])]
        : el('span', { class: 'muted' }, r.registered ? (finished ? 'filing…' : 'not filed') : 'a guest: not filed')));
  });
  const runIds = view.racers.map((r) => r.run_id).filter(Boolean);
  const again = el('button', { type: 'button', class: 'primary room-again' }, 'New room');
  again.addEventListener('click', newRoom);
  replace(container, el('section', { class: 'room-result', 'aria-label': 'The race\'s result', dataset: { phase: view.phase } },
    el('h3', {}, view.phase === 'over' ? 'Race over' : 'Race in progress', ' · ', el('span', { class: 'level-name' }, view.level)),
    // Why a race ended early (its server went away and it could not be taken up).
    view.note ? el('p', { class: 'room-note' }, view.note) : null,
    el('table', { class: 'leaderboard room-table' },
      el('thead', {}, el('tr', {}, ['#', 'racer', 'time', 'real-time', 'run'].map((h) => el('th', {}, h)))),
      el('tbody', {}, rows)),
    el('p', { class: 'room-next' }, again, ' ',
      runIds.length > 1 ? [link(raceHref(runIds), 'Replay the race'), ' · '] : null,
      link(playHref(view.level), 'Play solo'), ' · ', link(boardHref(view.level), 'Leaderboard'))));
}
