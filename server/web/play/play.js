// The play view (`#/play/LEVEL?ghosts=ID,ID`): race a level in 3D against live ghosts on the
// same WebAssembly core the server verifies with. Play races live: in a room of one on the
// server (play/live-race.js), which re-simulates the run as it streams and files it,
// verified and ranked, at the finish; offline (`?live=off`, or when the server's rooms cannot
// be reached) the run is uploaded from the finish panel as before. A live room shared with
// friends is `#/room/ID` (`renderRoom`): its lobby, the race against the other racers (each
// re-simulated here from their stream, play/rivals.js), or watching it, and its result.
//
// Set up once (the page's elements, then the level, the core, the 3D stage and the ghosts),
// then one loop: `animate` asks for the next frame and runs `loop.frame` (play/loop.js:
// countdown, input, advance, render, hud). The race is a state machine (play/race.js); what
// each of its states shows is `screens` below, and nothing else changes the state.
//
// A ranked run cannot be paused. A hidden tab does not stop the clock: on the way out the
// controls let go of every key (at that moment), and when the tab comes back the driver
// catches up every tick that fell due meanwhile, so the run's game time always equals the
// wall-clock time since GO. Restart (R, Start, the button) begins a new run at any moment;
// leaving the page (reload, close, another view) during a run asks first.
//
// A run ticket (play/ticket.js) makes a race real-time: with a token, one is asked for when
// the countdown starts; the start is committed at GO, each checkpoint and the finish the tick
// they happen, and the upload names it. Without a token (or a ticket) the race is open.
//
// A test-play (`renderTestPlay`, for the track editor): the same view on a level that exists
// only in the page (level JSON, loaded into the core with `pogo.levelFromJson`), offline, no
// ghosts, no ticket and no upload; each finished run is handed back to its caller (the
// replay bytes: the author's finish is what publishing a track sends).
//
// For tests: `?clock=manual` replaces the animation loop by `__pogo.play.frame(ns)` and the
// devices by `__pogo.play.input(ns, input)`; `?render=none` skips the 3D view (a browser
// without WebGL still races and records). `window.__pogo.play` (play/hooks.js) reads the
// race back; `data-play-state` on the page's main element is the race's state.

import { HOME_HREF, boardHref, liveHref } from '../routes.js';
import { ApiError, getJson, segment } from '../shared/api.js';
import { el, link, replace } from '../shared/dom.js';
import { renderFinish } from '../shared/finish-panel.js';
import { getIdentity } from '../shared/identity.js';
import { levelGeometry } from '../shared/track-geometry.js';
import { renderPending } from '../shared/pending-list.js';
import { CoreMissing, loadCore } from '../shared/wasm.js';
import { loadGhosts } from './ghosts.js';
import { playHook } from './hooks.js';
import { Hud } from './hud.js';
import { Controls } from './input.js';
import { liveScreens, openNewRoom } from './live-screens.js';
import { FrameLoop } from './loop.js';
import { Race } from './race.js';
import { HIDDEN_TAB_NOTE } from './room-view.js';
import { forgetSeat, loadSeat, saveSeat, soloRoom } from './seat.js';

/** The player's own colour. */
export const PLAYER_COLOUR = '#e8fbff';
/** How long "back in the race" stays on the HUD (ms). */
const BACK_SHOWN_MS = 4000;
/** How long GO stays on screen (ms). */
const GO_SHOWN_MS = 700;
/** What leaving during a run asks. */
const LEAVE_QUESTION = 'Leave the race? The run in progress will be lost.';

/** The view's elements: the stage (canvas, HUD, touch controls, overlay) and the panels
 * (the finish panel, a live room's result). */
function layout(main, levelName, roomId, test = null) {
  const page = {
    canvas: el('canvas', { class: 'play-canvas', 'aria-label': `The level ${levelName} in 3D` }),
    hudLayer: el('div', { class: 'play-hud' }),
    touchLayer: el('div', { class: 'play-touch' }),
    overlay: el('div', { class: 'play-overlay' }),
    finishPanel: el('div', { class: 'play-finish', hidden: true }),
    resultPanel: el('div', { class: 'play-result', hidden: true }),
    pending: el('div', { class: 'play-pending' }),
  };
  page.stageBox = el('div', { class: 'play-stage' }, page.canvas, page.hudLayer, page.touchLayer, page.overlay);
  const head = test ? el('div', { class: 'play-head' },
    el('h2', {}, 'Test-play ', el('span', { class: 'level-name' }, test.title ?? levelName)),
    el('span', { class: 'muted small play-keys' }, 'Steer: arrows or WASD · Trick: Space · Dive: Shift · Restart: R'),
    el('button', { type: 'button', class: 'play-back', onclick: () => test.onExit() }, 'Back to the editor (Esc)'),
    test.note ? el('p', { class: 'play-test-note' }, test.note) : null)
    : null;
  page.section = el('section', { class: 'play', dataset: { level: levelName } },
    head ?? el('div', { class: 'play-head' },
      el('h2', {}, roomId ? 'Live race ' : 'Race ', el('span', { class: 'level-name' }, levelName)),
      el('span', { class: 'muted small play-keys' }, `Steer: arrows or WASD · Trick: Space · Dive: Shift${roomId ? '' : ' · Restart: R'}`),
      link(boardHref(levelName), 'Leaderboard'), roomId ? link(liveHref(), 'Live races') : null),
    page.pending, page.stageBox, page.finishPanel, page.resultPanel);
  replace(main, page.section);
  replace(page.overlay, el('p', {}, 'Loading the level and the simulation…'));
  return page;
}

/** The 3D stage and chase camera, or `{failure}` (a paragraph) when there is no 3D view. */
async function makeStage(canvas, geometry, core) {
  try {
    const [{ Stage }, { ChaseCamera }] = await Promise.all([import('./scene.js'), import('./camera.js')]);
    const stage = new Stage(canvas, geometry, core);
    return { stage, chase: new ChaseCamera(stage.camera, { heading: stage.startHeading }) };
  } catch (e) {
    return { stage: null, chase: null, failure: el('p', { class: 'error', role: 'alert' }, `No 3D view: ${e.message}. The race runs without it.`) };
  }
}

/**
 * What each state of the race shows (`race.screens`); `ctx` holds the page's parts, filled
 * in as the view loads: {main, page, hud, loop, controls, view, levelName, rate, identity,
 * noStage, ghostCount}.
 */
function screens(ctx) {
  const { main, page } = ctx;
  const mirror = (state) => {
    page.section.dataset.state = state;
    main.dataset.playState = state;
  };
  // A shared room's race is run once; a solo race again and again.
  const raceAgain = () => (ctx.roomId ? null : el('div', { class: 'play-again' },
    el('button', { type: 'button', class: 'play-button', onclick: () => ctx.race.start() }, 'Race again'),
    el('span', { class: 'muted small' }, ' or press R')));
  Object.assign(ctx, { mirror, raceAgain });
  return {
    'missing-core': (race, error) => {
      mirror('missing-core');
      replace(page.overlay, el('div', { class: 'play-missing', role: 'alert' },
        el('h3', {}, 'The simulation module is not built'),
        el('p', {}, error.message),
        el('p', { class: 'muted' }, 'The leaderboards, races and uploads work without it; playing needs it.')));
    },
    failed: (race, error) => {
      mirror('failed');
      const why = error instanceof ApiError && error.code === 'unknown_level'
        ? `No level named “${ctx.levelName}” on this server.`
        : `The race cannot start: ${error instanceof ApiError ? `${error.message} (${error.status} ${error.code})` : error.message}`;
      // Only the error: nothing of a view that never loaded stays on screen.
      replace(main, el('p', { class: 'error', role: 'alert' }, why), el('p', {}, link(HOME_HREF, 'The leaderboards')));
    },
    ready: (race) => {
      mirror('ready');
      ctx.loop.resetView();
      const playButton = el('button', { type: 'button', class: 'play-button', onclick: () => race.start() }, 'Play');
      const friends = ctx.test ? null : el('button', { type: 'button', class: 'quiet play-friends' }, 'Race friends');
      friends?.addEventListener('click', () => openNewRoom(ctx.levelName, friends));
      const n = ctx.ghostCount;
      const how = ctx.test ? 'a test-play: recorded here, nothing is sent'
        : !race.liveWanted ? 'the run is recorded and verified by replaying your inputs'
        : ctx.identity ? 'raced live: the server verifies and ranks the run as you cross the line'
          : 'raced live: the server verifies the run as you race';
      replace(page.overlay, el('div', { class: 'play-ready' },
        ctx.noStage,
        el('div', { class: 'play-ready-buttons' }, playButton, friends),
        ctx.test ? null : el('p', {}, ctx.identity ? `Racing as ${ctx.identity.name}` : 'Racing without a name: register on the finish panel to be ranked.'),
        el('p', { class: 'muted small' }, ctx.test ? how : `${n} ghost${n === 1 ? '' : 's'} · ${how}`),
        race.liveWanted ? el('p', { class: 'muted small play-visible-note' }, HIDDEN_TAB_NOTE) : null));
      if (!race.manual) playButton.focus();
    },
    countdown: (race) => {
      mirror('countdown');
      ctx.loop.resetView();
      page.finishPanel.hidden = true;
      replace(page.overlay);
      ctx.hud.setMessage();
      // Whatever is held when the countdown ends applies from tick 0.
      ctx.controls?.update(performance.now());
    },
    racing: (race) => {
      mirror('racing');
      if (race.manual) return;
      ctx.hud.setCountdown('GO');
      setTimeout(() => ctx.hud.setCountdown(null), GO_SHOWN_MS);
    },
    finished: (race, why) => {
      mirror('finished');
      replace(page.overlay, raceAgain());
      const run = race.run;
      if (ctx.test) {
        ctx.test.onFinished?.(run);
        ctx.hud.setMessage(run.finishTick === null ? `${why} Press R to try again.` : 'Finished. Press R to race again, Esc to go back to the editor.');
        return;
      }
      if (run.finishTick === null) {
        ctx.hud.setMessage(ctx.roomId ? why : `${why} Press R to race again.`);
        return;
      }
      // Back from an upload that failed (the run kept): its panel stays, with its retry.
      if (!page.finishPanel.hidden && page.finishPanel.dataset.hash === run.hash) return;
      page.finishPanel.hidden = false;
      page.finishPanel.dataset.hash = run.hash;
      renderFinish(page.finishPanel, {
        level: ctx.levelName, bytes: run.bytes, browserHash: run.hash, finishTick: run.finishTick, tickRate: ctx.rate,
        playerName: ctx.identity?.name ?? '', ticket: run.ticket, openWhy: run.openWhy,
      }, ctx.view, (submission) => race.follow(submission));
    },
    submitting: () => mirror('submitting'),
    verified: () => mirror('verified'),
    refused: () => mirror('refused'),
  };
}

/** Loads what a race needs; null when it cannot be had (the race has failed, said why). */
async function load(ctx, params) {
  const { race, view, levelName } = ctx;
  let geometry;
  let core;
  try {
    geometry = ctx.test ? null : await getJson(`/api/levels/${segment(levelName)}`, { signal: view.signal });
    core = await loadCore(view.signal);
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    if (e instanceof CoreMissing) race.coreMissing(e);
    else race.fail(e);
    return null;
  }
  const { pogo, tuning } = core;
  if (ctx.test) return loadTest(ctx, pogo, tuning);
  let level;
  try {
    level = await coreLevel(pogo, levelName, view.signal);
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    race.fail(e);
    return null;
  }
  view.cleanup(() => level.free());
  const ghosts = await loadGhosts({ pogo, tuning, level, levelName, params, identity: ctx.identity, view });
  view.cleanup(() => ghosts.forEach((g) => g.free()));
  return { geometry, pogo, tuning, level, ghosts };
}

/** A player's track (`t-` and its id): the core reads the level file the server serves, byte
 * for byte (the geometry its id names). */
const TRACK_LEVEL = /^t-([0-9a-f]{16})$/;

/** The core's level `levelName`: a built-in one by name, a track from its level file. */
async function coreLevel(pogo, levelName, signal) {
  const track = TRACK_LEVEL.exec(levelName);
  if (!track) return pogo.level(levelName);
  const response = await fetch(`/api/tracks/${track[1]}/level.json`, { signal });
  if (!response.ok) throw new Error(`the track's level file cannot be read (HTTP ${response.status})`);
  return pogo.levelFromJson(await response.text());
}

/** A test-play's level: from its JSON, drawn from its own geometry, raced with no ghost. */
function loadTest(ctx, pogo, tuning) {
  let level;
  try {
    level = pogo.levelFromJson(ctx.test.levelText);
  } catch (e) {
    ctx.race.fail(e);
    return null;
  }
  ctx.view.cleanup(() => level.free());
  const geometry = levelGeometry(JSON.parse(ctx.test.levelText), tuning.tickRate);
  return { geometry, pogo, tuning, level, ghosts: [] };
}

export async function renderPlay(main, levelName, params, view) {
  await openPlay(main, { levelName, params, view, roomId: null, phase: null });
}

/** `#/room/ID`: a live room, in its lobby (join it), racing (watch it) or over (its result). */
export async function renderRoom(main, roomId, params, view) {
  let room;
  try {
    room = await getJson(`/api/rooms/${segment(roomId)}`, { signal: view.signal });
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    const why = e instanceof ApiError && e.status === 404 ? 'No such room: it may have ended a while ago.'
      : e instanceof ApiError && e.status === 400 ? 'That is not a room\'s link.' : `The room cannot be read: ${e.message}`;
    replace(main, el('p', { class: 'error', role: 'alert' }, why), el('p', {}, link(liveHref(), 'The races in progress')));
    return;
  }
  // A shared room races no ghosts: the rivals are the race.
  const roomParams = new URLSearchParams(params);
  roomParams.set('leader', 'no');
  roomParams.delete('ghosts');
  await openPlay(main, { levelName: room.level, params: roomParams, view, roomId, phase: room.phase });
}

/**
 * A test-play of a level that exists only in the page (the track editor's): `test` =
 * {levelText (level JSON named `levelName`), levelName, title, note (what the run is for),
 * onFinished(run) (each run that ended: `run.bytes`, `run.finishTick`), onExit() (the racer
 * asked to go back)}. Offline, in `main`, until `view` closes.
 */
export async function renderTestPlay(main, test, params, view) {
  await openPlay(main, { levelName: test.levelName, params, view, roomId: null, phase: null, test });
}

/** The play view of `levelName`: solo (`roomId` null) or a live room's (in `phase`), or a
 * test-play (`test`). */
async function openPlay(main, { levelName, params, view, roomId, phase, test = null }) {
  const manual = params.get('clock') === 'manual';
  const page = layout(main, levelName, roomId, test);
  const ctx = { main, page, view, levelName, roomId, test, identity: test ? null : getIdentity() };
  const screensOf = { ...screens(ctx), ...liveScreens(ctx) };
  const liveWanted = !test && params.get('live') !== 'off';
  const race = new Race({ screens: screensOf, manual, live: liveWanted, mode: roomId ? 'room' : 'solo' });
  ctx.race = race;
  view.guard(() => (race.inProgress ? LEAVE_QUESTION : null));
  view.cleanup(() => race.dispose());
  const loaded = await load(ctx, params);
  if (!loaded) return;
  const { geometry, pogo, tuning, level, ghosts } = loaded;
  ctx.rate = geometry.tick_rate;
  const { stage, live, playerRig } = await setUpStage(ctx, params, loaded);
  ctx.controls = manual ? null : new Controls({
    touchLayer: page.touchLayer,
    onChange: (input, atMs) => {
      if (race.state === 'countdown' || race.state === 'racing') race.input(race.run.nsAt(atMs), input);
    },
    onAction: (name) => {
      if (name === 'restart') race.start();
    },
  });
  view.cleanup(() => ctx.controls?.dispose());
  ctx.loop = new FrameLoop({ race, controls: ctx.controls, stage, chase: ctx.chase, playerRig, hud: ctx.hud, ghosts: live, geometry });
  view.cleanup(() => ctx.loop.liveLayer.dispose());
  // A test-play's replay carries the author's name (publishing sends it), with no ticket.
  const playerName = test ? getIdentity()?.name ?? '' : undefined;
  const setup = { pogo, tuning, level, levelName, rate: ctx.rate, identity: ctx.identity, playerName, ghosts: live, signal: view.signal };
  window.__pogo = { ...window.__pogo, play: playHook({ race, loop: ctx.loop, ghosts, controls: ctx.controls, pogo, rate: ctx.rate }) };
  if (test) {
    race.loaded(setup);
  } else {
    keepSeatOnHide(ctx, view);
    if (!(await enter(ctx, setup, phase))) return;
  }
  animate(ctx, stage, view, manual);
}

/** What a racer's state says when the seat cannot be taken back after a reload. */
const SEAT_LOST = {
  left: 'you left the race (the page was away too long)', cut: 'the connection was lost for too long',
  timeout: 'the race ran out of time', desynced: 'a desync', finished: 'it finished', gone: 'the room is gone',
};

/**
 * Into the race: a seat this tab kept takes it back (a reload mid-race, play/seat.js); else a
 * room's lobby, race or result (`#/room/ID`), or Play's first run. False when the view failed.
 */
async function enter(ctx, setup, phase) {
  const { race, roomId, levelName, view } = ctx;
  const seatRoom = roomId ? (phase === 'countdown' || phase === 'racing' ? roomId : null) : soloRoom(levelName);
  const seat = seatRoom ? loadSeat(seatRoom) : null;
  const ended = seat ? await race.rejoin(setup, seat) : undefined;
  if (view.signal.aborted) return false;
  if (ended === null) {
    ctx.hud.setMessage(el('strong', {}, 'Back in the race: '), 'the server kept your seat; your run goes on where the clock is.');
    setTimeout(() => ctx.hud.setMessage(), BACK_SHOWN_MS);
    return true;
  }
  if (seat) forgetSeat(seat.roomId, levelName);
  if (roomId) {
    try {
      await race.enterRoom(setup, roomId, phase);
    } catch (e) {
      if (view.signal.aborted) return false;
      race.fail(new Error(`cannot join the room: ${e.message}`));
      return false;
    }
  } else {
    race.loaded(setup);
  }
  if (seat) ctx.hud.setMessage(el('strong', {}, 'Your run ended while the page was away: '), SEAT_LOST[ended] ?? ended, '. What the server had of it is kept, unranked.');
  return true;
}

/** The race states in which a reload takes the seat back (the run is the server's still). */
const SEAT_STATES = new Set(['countdown', 'racing', 'filing']);

/** When the tab is hidden or the page goes away (a reload, a close): a racer in a race keeps
 * their seat in this tab, anyone else's is forgotten; going away, the room is told (`away`). */
function keepSeatOnHide(ctx, view) {
  const { race, levelName, roomId } = ctx;
  const keep = (leaving) => {
    const live = race.live;
    if (!live || live.role !== 'racer') return;
    if (SEAT_STATES.has(race.state)) saveSeat(live, levelName, roomId ? 'room' : 'solo');
    else forgetSeat(live.roomId, levelName);
    if (leaving && race.inProgress) live.away();
  };
  const onPageHide = () => keep(true);
  const onVisibility = () => { if (document.hidden) keep(false); };
  window.addEventListener('pagehide', onPageHide);
  document.addEventListener('visibilitychange', onVisibility);
  view.cleanup(() => {
    window.removeEventListener('pagehide', onPageHide);
    document.removeEventListener('visibilitychange', onVisibility);
  });
}

/** The 3D stage (unless `?render=none`), the HUD, the ghosts' and the player's rigs. */
async function setUpStage(ctx, params, { geometry, ghosts, pogo, tuning, level }) {
  const { page, view } = ctx;
  // The stage's own simulation of the level, never stepped: it asks the core where platforms
  // are and what ground is under a pogo.
  const core = params.get('render') === 'none' ? null : pogo.simulation({ level, tuning });
  const { stage, chase, failure } = core ? await makeStage(page.canvas, geometry, core) : {};
  view.cleanup(() => {
    stage?.dispose();
    core?.free();
  });
  if (failure) replace(page.overlay, failure);
  ctx.noStage = failure ?? null;
  ctx.chase = chase;
  ctx.hud = new Hud(page.hudLayer, ctx.rate);
  ctx.hud.setLegend(ghosts.map((g) => ({ key: g.key, name: g.label, colour: g.colour, status: g.refused })));
  const live = ghosts.filter((g) => !g.refused);
  ctx.ghostCount = live.length;
  for (const ghost of live) ghost.rig = stage?.addPogo({ colour: ghost.colour, label: ghost.label, ghost: true }) ?? null;
  const playerRig = stage?.addPogo({ colour: PLAYER_COLOUR, label: ctx.identity?.name ?? 'you', ghost: false }) ?? null;
  if (!ctx.test) renderPending(page.pending, view);
  return { stage, live, playerRig };
}

/** The one loop: a frame per animation frame until the view closes (none with the manual
 * clock: the test calls `frame`); the stage follows the page's size. */
function animate(ctx, stage, view, manual) {
  const resize = () => stage?.resize(ctx.page.stageBox.clientWidth, ctx.page.stageBox.clientHeight);
  window.addEventListener('resize', resize);
  view.cleanup(() => window.removeEventListener('resize', resize));
  resize();
  if (manual) return;
  const loop = (ms) => {
    if (view.signal.aborted) return;
    requestAnimationFrame(loop);
    ctx.loop.frame(ms);
  };
  requestAnimationFrame(loop);
  ctx.loop.frame(performance.now());
}
