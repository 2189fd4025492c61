// What the live states of the race show (play/race.js calls `screens[state]` on entering a
// state, `screens.room` whenever the room changes, `screens.desync` and `screens.link` when
// the room names a desync or the connection drops and comes back). The offline states'
// screens are play/play.js's; these are merged over them.
//
// `ctx`: the play view's parts {main, page, hud, loop, race, rate, levelName, view, mirror}.

import { roomHref } from '../routes.js';
import { el, replace } from '../shared/dom.js';
import { makeRoom } from '../shared/rooms.js';
import { renderFiling, renderLobby, renderResult } from './room-view.js';

/** The states in which the room's link closing is news to the racer (or spectator). */
const LINKED_STATES = new Set(['joining', 'lobby', 'countdown', 'racing', 'watching']);
/** How long "back online" stays on the HUD (ms). */
const RESUMED_SHOWN_MS = 2500;

/** Makes a room on `levelName` and opens it (its lobby): "Race friends", "New room". */
export async function openNewRoom(levelName, button = null) {
  if (button) button.disabled = true;
  try {
    location.hash = roomHref(await makeRoom(levelName));
  } catch (e) {
    if (button) {
      button.disabled = false;
      button.textContent = `No room: ${e.message}`;
    }
  }
}

export function liveScreens(ctx) {
  const { page, mirror } = ctx;
  const result = (race) => {
    const live = race.live;
    if (!live?.view) return;
    page.resultPanel.hidden = false;
    renderResult(page.resultPanel, live.view, { me: live.me, rate: ctx.rate, newRoom: () => openNewRoom(live.view.level) });
  };
  const filing = (race) => {
    page.finishPanel.hidden = false;
    delete page.finishPanel.dataset.hash;
    renderFiling(page.finishPanel, race, ctx.rate, ctx.levelName);
  };
  return {
    joining: () => {
      mirror('joining');
      page.finishPanel.hidden = true;
      replace(page.overlay, el('p', { class: 'play-joining' }, 'Joining a live race on the server…'));
    },
    lobby: (race) => {
      mirror('lobby');
      renderLobby(page.overlay, race.live, (ready) => race.setReady(ready));
    },
    filing: (race) => {
      mirror('filing');
      replace(page.overlay, ctx.raceAgain?.() ?? null);
      filing(race);
    },
    watching: (race) => {
      mirror('watching');
      ctx.loop.resetView();
      replace(page.overlay);
      ctx.hud.setMessage(el('span', { class: 'watching' }, 'Watching live'), ` · ${race.live.view.racers.length} racers · a moment behind the race`);
    },
    // A live run's filing, once the server's status is read: the panel says what was filed
    // (offline runs' verdicts are the upload panel's).
    verified: (race) => {
      mirror('verified');
      if (race.filing) filing(race);
    },
    refused: (race) => {
      mirror('refused');
      if (race.filing) filing(race);
    },
    over: (race) => {
      mirror('over');
      replace(page.overlay);
      ctx.hud.setMessage();
      result(race);
    },
    room: (race) => {
      if (race.state === 'lobby') renderLobby(page.overlay, race.live, (ready) => race.setReady(ready));
      if (race.state === 'over') result(race);
      if (race.filing) filing(race);
    },
    desync: (race, message) => {
      const who = message.racer === race.live.me ? 'Your page' : `${race.live.view?.racers.find((r) => r.racer === message.racer)?.name ?? `Racer ${message.racer + 1}`}'s page`;
      ctx.hud.setMessage(el('strong', { class: 'mismatch' }, 'Desync: '),
        `${who} disagrees with the server at tick ${message.tick} (server ${message.expected}, page ${message.found}): that run is not filed.`);
      ctx.page.section.dataset.desync = String(message.racer);
    },
    link: (race, type, detail) => {
      if (type === 'cut') ctx.hud.setMessage(el('strong', {}, 'Connection lost: '), 'reconnecting… your run goes on and nothing is lost.');
      if (type === 'resumed') {
        ctx.hud.setMessage('Back online: the server has everything.');
        setTimeout(() => { if (race.live?.link.socket) ctx.hud.setMessage(); }, RESUMED_SHOWN_MS);
      }
      // A room that closes once this page's part in it is over (a solo run filed, a result
      // shown) is no news; during a race it is.
      if (type === 'closed' && LINKED_STATES.has(race.state)) ctx.hud.setMessage(el('strong', {}, 'Disconnected: '), detail.reason || `the room closed (${detail.code})`);
    },
  };
}
