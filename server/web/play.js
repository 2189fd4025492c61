// The play view (`#/play/LEVEL?ghosts=ID,ID`): race a level in 3D against live ghosts on the
// same WebAssembly core the server verifies with, then upload the run from the finish panel.
//
// One frame, in order (Fix Your Timestep, with the core's frame driver as the accumulator):
//   1. input: the controls stamp every change with its own time; each becomes a driver event
//      in integer nanoseconds since the run started (play-input.js);
//   2. advance: the driver runs every tick that became due, one call per tick so the view
//      sees each tick's events (a checkpoint, a perfect landing), and records each one; every
//      ghost's simulation steps the same tick with its replay's input (lockstep);
//   3. render: previous + (current − previous) · alpha, except across a teleport.
// The view never decides when a tick runs, and floats appear only in step 3.
//
// A ranked run cannot be paused. A hidden tab does not stop the clock: on the way out the
// controls let go of every key (at that moment), and when the tab comes back the driver
// catches up every tick that fell due meanwhile, so the run's game time always equals the
// wall-clock time since GO. Restart (R, Start, the button) begins a new run at any moment.
//
// A run ticket (play-ticket.js) makes a race real-time: with a token, one is asked for when
// the countdown starts; the start is committed at GO, each checkpoint and the finish the tick
// they happen, and the upload names it. Without a token (or a ticket) the race is open.
//
// For tests: `?clock=manual` replaces the animation loop by `__pogo.play.frame(ns)` and the
// devices by `__pogo.play.input(ns, input)`; `?render=none` skips the 3D view (a browser
// without WebGL still races and records). `window.__pogo.play` reads the race back.

import { getJson, segment } from './api.js';
import { el, link, replace } from './dom.js';
import { Event, hex } from './pogo.mjs';
import { CoreMissing, loadCore } from './wasm.js';
import { getIdentity } from './identity.js';
import { Controls } from './play-input.js';
import { Hud } from './play-hud.js';
import { renderFinish, renderPending } from './play-submit.js';
import { RunTicket } from './play-ticket.js';
import { PALETTE } from './race.js';

/** Most ghosts in one race. */
export const GHOSTS_MAX = 8;
/** Ghost colours: the race view's palette, extended to GHOSTS_MAX. */
export const GHOST_COLOURS = [...PALETTE, '#f15bb5', '#9ef01a'].slice(0, GHOSTS_MAX);
/** The player's own colour. */
export const PLAYER_COLOUR = '#e8fbff';
/** The countdown before GO (s). */
const COUNTDOWN_S = 3;
/** Longest run (s): past it the run ends unfinished (a forgotten tab is not a race). */
const RUN_SECONDS_MAX = 600;
/** Frame times kept for the HUD's and the tests' statistics. */
const FRAME_TIMES_KEPT = 600;
/** The largest ghost replay the page fetches (bytes): an hour of play is far smaller. */
const GHOST_BYTES_MAX = 4 << 20;

const NS_PER_S = 1_000_000_000n;

/** The play view's link. */
export function playHref(level, ghostIds = []) {
  const query = ghostIds.length ? `?ghosts=${ghostIds.join(',')}` : '';
  return `#/play/${segment(level)}${query}`;
}

/** `ghosts=1,2,3` → distinct positive ids, in order, at most GHOSTS_MAX. */
function parseIds(text) {
  const ids = [];
  for (const part of (text ?? '').split(',')) {
    const id = Number(part);
    if (Number.isInteger(id) && id > 0 && !ids.includes(id)) ids.push(id);
  }
  return ids.slice(0, GHOSTS_MAX);
}

export async function renderPlay(main, levelName, params, view) {
  const manual = params.get('clock') === 'manual';
  const render3d = params.get('render') !== 'none';
  const canvas = el('canvas', { class: 'play-canvas', 'aria-label': `The level ${levelName} in 3D` });
  const hudLayer = el('div', { class: 'play-hud' });
  const touchLayer = el('div', { class: 'play-touch' });
  const overlay = el('div', { class: 'play-overlay' });
  const finishPanel = el('div', { class: 'play-finish', hidden: true });
  const stageBox = el('div', { class: 'play-stage' }, canvas, hudLayer, touchLayer, overlay);
  const pending = el('div', { class: 'play-pending' });
  const section = el('section', { class: 'play', dataset: { level: levelName } },
    el('div', { class: 'play-head' },
      el('h2', {}, 'Race ', el('span', { class: 'level-name' }, levelName)),
      el('span', { class: 'muted small play-keys' }, 'Steer: arrows or WASD · Trick: Space · Dive: Shift · Restart: R'),
      link(`#/level/${segment(levelName)}`, 'Leaderboard')),
    pending, stageBox, finishPanel);
  replace(main, section);
  const setState = (state) => {
    section.dataset.state = state;
    main.dataset.playState = state;
  };
  setState('loading');
  replace(overlay, el('p', {}, 'Loading the level and the simulation…'));

  // -- loading: geometry, the core, the 3D stage ----------------------------------------
  const geometry = await getJson(`/api/levels/${segment(levelName)}`, { signal: view.signal });
  let core;
  try {
    core = await loadCore(view.signal);
  } catch (e) {
    if (!(e instanceof CoreMissing)) throw e;
    setState('missing-core');
    replace(overlay, el('div', { class: 'play-missing', role: 'alert' },
      el('h3', {}, 'The simulation module is not built'),
      el('p', {}, e.message),
      el('p', { class: 'muted' }, 'The leaderboards, races and uploads work without it; playing needs it.')));
    return;
  }
  const { pogo, tuning } = core;
  const rate = geometry.tick_rate;
  let stage = null;
  let chase = null;
  let noStage = null;
  if (render3d) {
    try {
      const [{ Stage }, { ChaseCamera }] = await Promise.all([import('./play-scene.js'), import('./play-camera.js')]);
      stage = new Stage(canvas, geometry);
      chase = new ChaseCamera(stage.camera, { heading: stage.startHeading });
    } catch (e) {
      noStage = el('p', { class: 'error', role: 'alert' }, `No 3D view: ${e.message}. The race runs without it.`);
      replace(overlay, noStage);
      stage = null;
    }
  }
  view.cleanup(() => stage?.dispose());
  const hud = new Hud(hudLayer, rate);
  const level = pogo.level(levelName);
  view.cleanup(() => level.free());
  const identity = getIdentity();
  renderPending(pending, view);

  // -- ghosts ---------------------------------------------------------------------------
  const ghosts = await loadGhosts({ pogo, tuning, level, levelName, params, identity, view });
  view.cleanup(() => ghosts.forEach((g) => g.free()));
  hud.setLegend(ghosts.map((g) => ({ key: g.key, name: g.label, colour: g.colour, status: g.refused })));
  const live = ghosts.filter((g) => !g.refused);
  for (const ghost of live) ghost.rig = stage?.addPogo({ colour: ghost.colour, label: ghost.label, ghost: true }) ?? null;
  const playerRig = stage?.addPogo({ colour: PLAYER_COLOUR, label: identity?.name ?? 'you', ghost: false }) ?? null;

  // -- the run --------------------------------------------------------------------------
  let run = null;
  let raceState = 'ready';
  const frameTimes = [];
  let lastFrameMs = null;

  const controls = manual ? null : new Controls({
    touchLayer,
    onChange: (input, atMs) => {
      if (!run || run.over) return;
      run.lastInput = input;
      run.driver.pushEvent(run.nsAt(atMs), 0, input);
    },
    onAction: (name) => {
      if (name === 'restart') begin();
    },
  });
  view.cleanup(() => controls?.dispose());

  /** A fresh run: simulation, driver and recorder; ghosts back to tick 0. */
  function newRun() {
    if (run) freeRun(run);
    const sim = pogo.simulation({ level, tuning, players: 1 });
    const driver = pogo.driver({ tickRate: rate, players: 1 });
    // The header's date: when the run began, to the second (none under the test clock, so
    // that runs at different frame rates give byte-identical replays).
    const date = manual ? '' : new Date().toISOString().slice(0, 19) + 'Z';
    const recorder = pogo.recorder({ sim, playerName: identity?.name ?? '', date });
    for (const ghost of live) ghost.reset();
    hud.resetSplits();
    stage?.setNextCheckpoint?.(geometry.checkpoints.length ? 0 : null);
    run = {
      sim, driver, recorder, t0Ms: null, lastNs: 0n, over: false, splits: [], finishTick: null,
      frameEvents: 0, lastInput: { steerX: 0, steerZ: 0, buttons: 0 }, bytes: null, hash: null,
      // The run ticket (null: an open race, `openWhy` says why) and whether GO has passed.
      ticket: null, openWhy: null, went: false,
      nsAt(ms) {
        if (this.t0Ms === null) return 0n;
        const ns = BigInt(Math.max(0, Math.round((ms - this.t0Ms) * 1e6)));
        return ns;
      },
    };
    const spawn = sim.player(0);
    playerRig?.update?.(rigView(spawn, spawn.position, 0));
    chase?.reset(spawn.position, stage?.startHeading);
    return run;
  }

  function freeRun(r) {
    for (const object of [r.recorder, r.driver, r.sim]) object.free();
  }
  view.cleanup(() => run && freeRun(run));

  /** Asks for run `r`'s ticket (with a token); resolves once it is there or refused. Null
   * without a token (the race is open at once). */
  function askTicket(r) {
    if (!identity) {
      r.openWhy = 'an open race: no name in this browser, so no run ticket';
      return null;
    }
    return RunTicket.mint(levelName, identity, view.signal).then(({ ticket, error }) => {
      if (error) r.openWhy = `an open race: no run ticket (${error})`;
      else if (r.went) r.openWhy = 'an open race: the run ticket arrived after GO';
      else r.ticket = ticket;
    }, () => {});
  }

  /** GO: the start is committed (the state before the first tick). */
  function go(r) {
    r.went = true;
    if (r.ticket) r.ticket.start(hex(r.sim.stateHash()));
    else if (!r.openWhy) r.openWhy = 'an open race: the run ticket did not arrive before GO';
  }

  /** Press Play: a countdown on the wall clock, then GO at a frame's time. With the manual
   * clock GO is at once, once the ticket is there (the promise resolves then). */
  function begin() {
    const r = newRun();
    finishPanel.hidden = true;
    replace(overlay);
    hud.setMessage();
    const asked = askTicket(r);
    if (manual) {
      const racing = () => {
        if (run !== r) return;
        r.t0Ms = 0;
        raceState = 'racing';
        setState('racing');
        go(r);
      };
      if (!asked) return racing();
      return asked.then(racing);
    }
    raceState = 'countdown';
    setState('countdown');
    run.countdownFrom = performance.now();
    // Whatever is held when the countdown ends applies from tick 0.
    controls.update(performance.now());
  }

  /** Runs every tick due by `nowNs`, one driver call per tick, ghosts in lockstep. */
  function advance(nowNs) {
    const r = run;
    const rateN = BigInt(rate);
    for (;;) {
      if (r.over) return null;
      const k = BigInt(r.sim.tick);
      const tickEnd = ((k + 1n) * NS_PER_S + rateN - 1n) / rateN; // the first ns tick k has ended
      if (tickEnd > nowNs) break;
      r.driver.advance(r.sim, r.recorder, tickEnd);
      afterTick(r);
    }
    return r.driver.advance(r.sim, r.recorder, nowNs);
  }

  function afterTick(r) {
    const tick = r.sim.tick - 1;
    for (const ghost of live) ghost.step(tick);
    const state = r.sim.player(0);
    r.frameEvents |= state.events;
    if (state.events & Event.CHECKPOINT && state.checkpoint !== null) {
      split(r, state.checkpoint, tick);
      const next = state.checkpoint + 1 < geometry.checkpoints.length ? state.checkpoint + 1 : null;
      stage?.setNextCheckpoint?.(next);
    }
    if (state.events & Event.FINISH) {
      r.finishTick = state.finishTick;
      split(r, null, state.finishTick);
      finish(r);
    } else if (r.sim.tick >= RUN_SECONDS_MAX * rate) {
      finish(r);
    }
  }

  function split(r, checkpoint, tick) {
    r.ticket?.split(checkpoint, tick, hex(r.sim.stateHash()));
    r.splits.push({ checkpoint, tick });
    const rows = live.map((g) => ({ key: g.key, name: g.label, colour: g.colour, tick: g.splitTick(checkpoint) }));
    hud.showSplit(checkpoint, tick, rows, performance.now());
  }

  function finish(r, unfinished = `Time is up (${RUN_SECONDS_MAX / 60} minutes): the run did not finish.`) {
    r.over = true;
    r.recorder.finish();
    r.bytes = r.recorder.bytes();
    r.hash = hex(r.sim.stateHash());
    raceState = 'finished';
    setState('finished');
    replace(overlay, el('div', { class: 'play-again' },
      el('button', { type: 'button', class: 'play-button', onclick: () => begin() }, 'Race again'),
      el('span', { class: 'muted small' }, ' or press R')));
    if (r.finishTick === null) {
      hud.setMessage(`${unfinished} Press R to race again.`);
      return;
    }
    finishPanel.hidden = false;
    renderFinish(finishPanel, {
      level: levelName, bytes: r.bytes, browserHash: r.hash, finishTick: r.finishTick, tickRate: rate,
      playerName: identity?.name ?? '', ticket: r.ticket, openWhy: r.openWhy,
    }, view);
  }

  /** One frame at `frameMs` (performance clock) or, with the manual clock, at run time `nowNs`. */
  function frame(frameMs, nowNs) {
    const started = performance.now();
    let tickFloat = -1;
    if (raceState === 'countdown') {
      const left = COUNTDOWN_S - (frameMs - run.countdownFrom) / 1000;
      if (left > 0) {
        hud.setCountdown(Math.ceil(left));
      } else {
        run.t0Ms = run.countdownFrom + COUNTDOWN_S * 1000;
        raceState = 'racing';
        setState('racing');
        go(run);
        hud.setCountdown('GO');
        setTimeout(() => hud.setCountdown(null), 700);
      }
    }
    let alpha = 0;
    if (run && raceState === 'racing') {
      controls?.poll(frameMs, chase?.heading);
      const now = nowNs ?? run.nsAt(frameMs);
      const t = now > run.lastNs ? now : run.lastNs;
      run.lastNs = t;
      const info = advance(t);
      alpha = info ? info.alpha : 0;
    } else {
      controls?.poll(frameMs, chase?.heading);
    }
    if (run) tickFloat = draw(alpha, frameMs);
    if (lastFrameMs !== null) {
      frameTimes.push(performance.now() - started);
      if (frameTimes.length > FRAME_TIMES_KEPT) frameTimes.shift();
    }
    lastFrameMs = frameMs;
    return tickFloat;
  }

  /** The view state of the rig: interpolated tip, lean, state, this frame's events. */
  function rigView(state, position, events) {
    return {
      position, lean: state.lean, stateName: state.stateName, events, stunTicksLeft: state.stunTicksLeft,
      compressionT: state.stateName === 'compression' ? 1 : null, velocity: state.velocity,
    };
  }

  const lerp3 = (a, b, t) => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];

  function draw(alpha, frameMs) {
    const r = run;
    const cur = r.sim.player(0);
    const prev = r.sim.previousPlayer(0);
    const teleported = (cur.events & Event.TELEPORT) !== 0 || cur.stateName === 'respawn';
    const position = teleported || r.sim.tick === 0 ? cur.position : lerp3(prev.position, cur.position, alpha);
    const dt = lastFrameMs === null ? 1 / 60 : Math.min(0.1, Math.max(0, (frameMs - lastFrameMs) / 1000));
    const events = r.frameEvents;
    r.frameEvents = 0;
    const tickFloat = r.sim.tick === 0 ? 0 : r.sim.tick - 2 + (teleported ? 1 : alpha);
    if (stage) {
      stage.setTick(Math.max(0, tickFloat));
      playerRig?.update(rigView(cur, position, events), dt);
      if (teleported) chase.reset(position);
      else chase.update(position, cur.velocity, dt);
      for (const ghost of live) ghost.draw(alpha, dt);
      stage.render(chase.camera);
    }
    const speed = Math.hypot(cur.velocity[0], cur.velocity[1], cur.velocity[2]);
    hud.update({ tick: r.t0Ms === null ? -1 : r.sim.tick - 1, speed, combo: cur.combo, nowMs: frameMs });
    return tickFloat;
  }

  // -- the loop ---------------------------------------------------------------------------
  const resize = () => stage?.resize(stageBox.clientWidth, stageBox.clientHeight);
  window.addEventListener('resize', resize);
  view.cleanup(() => window.removeEventListener('resize', resize));
  resize();
  if (!manual) {
    const loop = (ms) => {
      if (view.signal.aborted) return;
      requestAnimationFrame(loop);
      frame(ms);
    };
    requestAnimationFrame(loop);
  }

  const playButton = el('button', { type: 'button', class: 'play-button', onclick: () => begin() }, 'Play');
  replace(overlay, el('div', { class: 'play-ready' },
    noStage,
    playButton,
    el('p', {}, identity ? `Racing as ${identity.name}` : 'Racing without a name: register on the finish panel to be ranked.'),
    el('p', { class: 'muted small' }, `${live.length} ghost${live.length === 1 ? '' : 's'} · the run is recorded and verified by replaying your inputs`)));
  newRun();
  raceState = 'ready';
  setState('ready');
  if (!manual) {
    frame(performance.now());
    playButton.focus();
  }

  window.__pogo = {
    ...window.__pogo,
    play: {
      get state() { return raceState; },
      start: () => begin(),
      /** Manual clock: one frame at run time `ns` (number or BigInt). */
      frame: (ns) => frame(performance.now(), BigInt(ns)),
      /** Manual clock: the player's input changes at run time `ns`. */
      input: (ns, input) => run.driver.pushEvent(BigInt(ns), 0, input).toString(),
      /** Ends the run now, as the time limit does (recorded, unfinished, no upload panel);
       * the ticks it ran. For tests whose script stops short of the finish. */
      stop: () => {
        if (run && !run.over) finish(run, 'The run was stopped before the finish.');
        return run?.sim.tick ?? null;
      },
      tick: () => run?.sim.tick ?? null,
      /** The run's clock: GO on the performance clock (ms, null before GO), now, ticks run. */
      clock: () => ({ t0Ms: run?.t0Ms ?? null, nowMs: performance.now(), ticks: run?.sim.tick ?? null, rate }),
      player: () => jsonSafe(run?.sim.player(0)),
      hash: () => (run ? hex(run.sim.stateHash()) : null),
      replay: () => (run?.bytes ? Array.from(run.bytes) : null),
      result: () => (run?.over ? { ticks: run.sim.tick, finishTick: run.finishTick, hash: run.hash, bytes: run.bytes.length } : null),
      splits: () => run?.splits ?? [],
      /** The run's ticket: {id, problem, sent: [{kind, tick, ok}]}, or null (`openWhy`). */
      ticket: () => run?.ticket?.summary() ?? null,
      openWhy: () => run?.openWhy ?? null,
      ghosts: () => ghosts.map((g) => g.describe()),
      devices: () => [...(controls?.used ?? [])],
      lastInput: () => run?.lastInput ?? null,
      frameTimes: () => [...frameTimes],
      rulesVersion: pogo.rulesVersion,
    },
  };
}

/** BigInts as strings (tests read states through JSON). */
function jsonSafe(value) {
  if (value === undefined || value === null) return null;
  return JSON.parse(JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? v.toString() : v)));
}

// -- ghosts -------------------------------------------------------------------------------

/**
 * The race's ghosts: the runs picked (`?ghosts=`), then the leader's and the player's own
 * best, at most GHOSTS_MAX. Each is fetched, checked by the wasm verifier (a ghost the
 * verifier refuses, of another level, or missing is listed as refused, with why) and set up
 * to re-simulate from its own inputs in lockstep with the player.
 */
async function loadGhosts({ pogo, tuning, level, levelName, params, identity, view }) {
  const wanted = parseIds(params.get('ghosts')).map((id) => ({ id, why: 'picked' }));
  if (params.get('leader') !== 'no') {
    try {
      const board = await getJson(`/api/levels/${segment(levelName)}/leaderboard?limit=1`, { signal: view.signal });
      if (board.entries[0]) wanted.push({ id: board.entries[0].run_id, why: 'leader', player: board.entries[0].player });
      if (identity) {
        const mine = await getJson(`/api/levels/${segment(levelName)}/leaderboard?around=${segment(identity.name)}&limit=1`, { signal: view.signal });
        const entry = mine.entries.find((e) => e.player.toLowerCase() === identity.name.toLowerCase());
        if (entry) wanted.push({ id: entry.run_id, why: 'your best', player: entry.player });
      }
    } catch (e) {
      if (e.name === 'AbortError') throw e;
      console.warn('no leader or personal-best ghost:', e);
    }
  }
  const picked = [];
  for (const w of wanted) {
    if (picked.length >= GHOSTS_MAX) break;
    const same = picked.find((p) => p.id === w.id);
    if (same) {
      if (w.why !== 'picked') same.why = w.why;
      continue;
    }
    picked.push({ ...w });
  }
  const verifier = pogo.verifier({ tuning });
  try {
    const loaded = [];
    for (const [i, w] of picked.entries()) {
      loaded.push(await loadGhost({ pogo, tuning, level, levelName, verifier, want: w, colour: GHOST_COLOURS[i], view }));
    }
    return loaded;
  } finally {
    verifier.free();
  }
}

async function loadGhost({ pogo, tuning, level, levelName, verifier, want, colour, view }) {
  const key = `run-${want.id}`;
  const base = { key, runId: want.id, colour, label: `${want.player ?? `run ${want.id}`}${want.why === 'picked' ? '' : ` (${want.why})`}` };
  const refuse = (why) => new Ghost({ ...base, refused: why });
  let bytes;
  try {
    const response = await fetch(`/api/runs/${want.id}/replay`, { signal: view.signal });
    if (!response.ok) {
      const body = await response.json().catch(() => null);
      return refuse(response.status === 404 ? 'no such run' : `the server said ${response.status} ${body?.message ?? ''}`.trim());
    }
    const length = Number(response.headers.get('content-length'));
    if (length > GHOST_BYTES_MAX) return refuse(`its replay is ${length} bytes, more than a ghost may be`);
    bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.length > GHOST_BYTES_MAX) return refuse('its replay is too large');
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    return refuse(`cannot fetch it: ${e.message}`);
  }
  const verdict = verifier.verify(bytes);
  if (!verdict.verified) return refuse(`${verdict.kindName}: ${verdict.reason}`);
  let replay;
  try {
    replay = pogo.replay(bytes);
  } catch (e) {
    return refuse(`unreadable: ${e.message}`);
  }
  try {
    if (replay.levelName !== levelName) return refuse(`a run of ${replay.levelName}, not of ${levelName}`);
    const info = replay.info;
    const player = 0;
    const name = replay.playerName || want.player || `run ${want.id}`;
    return new Ghost({
      ...base, label: `${name}${want.why === 'picked' ? '' : ` (${want.why})`}`,
      pogo, tuning, level, players: info.players, ticks: info.ticks, player,
      inputs: Array.from({ length: info.players }, (_, p) => replay.inputs(p)),
      finishTick: verdict.finishTicks[player], finalHash: hex(verdict.finalHash),
    });
  } finally {
    replay.free();
  }
}

/** One ghost: its own simulation, stepped with its replay's inputs, one tick at a time. */
class Ghost {
  constructor(options) {
    Object.assign(this, options);
    if (this.refused) return;
    this.sim = this.pogo.simulation({ level: this.level, tuning: this.tuning, players: this.players });
    this.tickInputs = Array.from({ length: this.players }, () => ({ steerX: 0, steerZ: 0, buttons: 0 }));
    // Its splits, from one pass over the whole run now (a split the player reaches first
    // still shows the gap to where the ghost will be).
    this.splits = new Map();
    while (this.sim.tick < this.ticks) {
      const tick = this.sim.tick;
      this.stepOnce(tick);
      const state = this.sim.player(this.player);
      if (state.events & Event.CHECKPOINT && state.checkpoint !== null && !this.splits.has(state.checkpoint)) {
        this.splits.set(state.checkpoint, tick);
      }
    }
    this.reset();
  }

  stepOnce(tick) {
    for (let p = 0; p < this.players; p++) {
      const row = this.inputs[p];
      const input = this.tickInputs[p];
      input.steerX = row[3 * tick];
      input.steerZ = row[3 * tick + 1];
      input.buttons = row[3 * tick + 2] & 0xff;
    }
    this.sim.step(this.tickInputs);
  }

  /** Back to the start (a new run of the player's). */
  reset() {
    this.frameEvents = 0;
    this.sim.free();
    this.sim = this.pogo.simulation({ level: this.level, tuning: this.tuning, players: this.players });
  }

  /** The player's tick `tick` ran: the ghost runs it too, while its replay lasts. */
  step(tick) {
    if (this.refused || tick !== this.sim.tick || tick >= this.ticks) return;
    this.stepOnce(tick);
    this.frameEvents |= this.sim.player(this.player).events;
  }

  /** The ghost's tick at checkpoint `checkpoint` (null: the finish), or null if never. */
  splitTick(checkpoint) {
    if (this.refused) return null;
    if (checkpoint === null) return this.finishTick ?? null;
    return this.splits.get(checkpoint) ?? null;
  }

  draw(alpha, dt) {
    if (!this.rig) return;
    const cur = this.sim.player(this.player);
    const prev = this.sim.previousPlayer(this.player);
    const teleported = (cur.events & Event.TELEPORT) !== 0 || this.sim.tick === 0;
    const t = this.sim.tick >= this.ticks ? 1 : alpha;
    const position = teleported ? cur.position
      : [0, 1, 2].map((i) => prev.position[i] + (cur.position[i] - prev.position[i]) * t);
    // Every event of the ticks since the last frame (a perfect landing two ticks ago too).
    const events = this.frameEvents | cur.events;
    this.frameEvents = 0;
    this.rig.update({
      position, lean: cur.lean, stateName: cur.stateName, events, stunTicksLeft: cur.stunTicksLeft,
      compressionT: cur.stateName === 'compression' ? 1 : null, velocity: cur.velocity,
    }, dt);
  }

  describe() {
    if (this.refused) return { key: this.key, runId: this.runId, refused: this.refused };
    const state = this.sim.player(this.player);
    return {
      key: this.key, runId: this.runId, label: this.label, colour: this.colour, tick: this.sim.tick,
      positionRaw: state.positionRaw.map(String), position: state.position, stateName: state.stateName,
      finishTick: this.finishTick, splits: Object.fromEntries(this.splits),
    };
  }

  free() {
    if (!this.refused) this.sim.free();
  }
}
