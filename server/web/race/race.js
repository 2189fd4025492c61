// The ghost race view (`#/race?runs=1,2&tick=T&every=N`): two or more verified runs of one
// level, drawn from above and from the side, moved in step by tick, with play/pause, speed,
// a scrubber, keyboard controls and the gaps at checkpoints.
//
// For tests and curious people, `window.__pogo.race` holds what is on screen: the tick, and
// per ghost its world position and its marker's position on each canvas (CSS pixels); its
// `seek(t)` moves the race to tick t. The legend's items carry the positions as `data-x`,
// `data-y`, `data-z` too.

import { raceHref, runHref } from '../routes.js';
import { getJson, segment } from '../shared/api.js';
import { el, link, replace } from '../shared/dom.js';
import { checkpointLabel, gap, tickClock } from '../shared/format.js';
import { GHOSTS_MAX, GHOST_COLOURS, runIds } from '../shared/ghosts.js';
import { prepareLevel, raceBounds } from '../shared/level.js';
import { cameras, drawGhosts, drawLevel, sizeCanvas, toScreen } from './draw.js';
import { checkpointGaps, makeGhost, positionAt, raceTicks, trail } from './ghost.js';
/** Playback speeds (× real time), slowest first. */
export const SPEEDS = [0.25, 0.5, 1, 2, 4];
const SPEED_LABELS = ['¼×', '½×', '1×', '2×', '4×'];

export async function renderRace(main, params, view) {
  const ids = runIds(params.get('runs'));
  const every = Math.max(1, Math.floor(Number(params.get('every')) || 1));
  const section = el('section', { class: 'race', 'aria-busy': 'true' }, el('h2', {}, 'Ghost race'));
  replace(main, section);
  if (ids.length < 1 || ids.length > GHOSTS_MAX) {
    section.append(el('p', { class: 'error' }, `A race needs 1 to ${GHOSTS_MAX} run ids (runs=1,2,…).`));
    return;
  }
  const loading = el('p', { class: 'muted' }, `Loading ${ids.length} ghost${ids.length > 1 ? 's' : ''}…`);
  section.append(loading);
  const jsons = await Promise.all(ids.map((id) => getJson(`/api/runs/${id}/ghost?every=${every}`, { signal: view.signal })));
  const ghosts = jsons.map((json, i) => makeGhost(json, GHOST_COLOURS[i]));
  const levelName = ghosts[0].level;
  const other = ghosts.find((g) => g.level !== levelName);
  if (other) {
    loading.replaceWith(el('p', { class: 'error' }, `Run ${other.id} is on ${other.level}, run ${ghosts[0].id} on ${levelName}: a race is on one level.`));
    return;
  }
  const level = prepareLevel(await getJson(`/api/levels/${segment(levelName)}`, { signal: view.signal }));
  loading.remove();
  startRace(section, ghosts, level, params, view);
}

/**
 * The race of `ghosts` on `level` in `section`: the page, its controls and one animation
 * loop that redraws whenever the state changed. `ctx` holds what they share: {section,
 * ghosts, level, params, rate, lastTick, bounds, rows (the gaps at checkpoints), state
 * (tick, playing, speed, mode, dirty), ui (the elements), sizes (the canvases')}.
 */
function startRace(section, ghosts, level, params, view) {
  const lastTick = raceTicks(ghosts);
  const ctx = {
    section, ghosts, level, params, rate: ghosts[0].rate, lastTick,
    bounds: raceBounds(level, ghosts),
    rows: checkpointGaps(ghosts),
    state: {
      tick: Math.min(Math.max(0, Math.floor(Number(params.get('tick')) || 0)), lastTick),
      playing: false,
      speed: SPEEDS.indexOf(1),
      mode: 'follow',
      dirty: true,
    },
    sizes: null,
  };
  ctx.ui = buildPage(ctx);
  bindControls(ctx, view);
  bindResize(ctx, view);
  animate(ctx, view);
}

// --- the page -------------------------------------------------------------------------

/** The legend, the two views, the controls, the callout and the gap table. */
function buildPage({ section, ghosts, level, rows, lastTick, state }) {
  section.querySelector('h2').textContent = `Ghost race on ${level.name}`;
  const legend = el('ol', { class: 'legend' }, ghosts.map((g) => el('li', { dataset: { run: g.id } },
    el('span', { class: 'swatch', 'aria-hidden': 'true' }),
    link(runHref(g.id), g.player),
    ' ',
    el('span', { class: 'muted' }, g.finish ? `${g.finish.time} (tick ${g.finish.tick})` : 'no finish'),
    ' ',
    el('span', { class: 'where' }))));
  legend.querySelectorAll('.swatch').forEach((s, i) => { s.style.background = ghosts[i].colour; });
  const canvases = { top: el('canvas', { id: 'view-top' }), side: el('canvas', { id: 'view-side' }) };
  const views = el('div', { class: 'views' },
    el('figure', {}, el('figcaption', {}, 'From above (x–z)'), canvases.top),
    el('figure', {}, el('figcaption', {}, 'From the side (x–y)'), canvases.side));
  const play = el('button', { type: 'button', class: 'play', 'aria-label': 'Play' }, '▶');
  const scrubber = el('input', { type: 'range', id: 'scrubber', min: 0, max: lastTick, step: 1, value: state.tick, 'aria-label': 'Tick' });
  const clock = el('output', { class: 'clock', for: 'scrubber' });
  const speed = el('select', { id: 'speed', 'aria-label': 'Speed' },
    SPEEDS.map((s, i) => el('option', { value: i, selected: i === state.speed }, SPEED_LABELS[i])));
  const fit = el('button', { type: 'button', class: 'fit' }, 'Whole level');
  const controls = el('div', { class: 'controls' }, play, scrubber, clock, speed, fit);
  const keys = el('p', { class: 'keys muted' },
    'Keys: Space play/pause · ← → one tick (Shift: one second) · Home/End · − + speed · F whole level/follow');
  const callout = el('p', { class: 'callout', 'aria-live': 'polite' });
  const gapTable = el('table', { class: 'gaps' },
    el('caption', {}, 'Gaps at checkpoints'),
    el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'split'), ghosts.map((g) => el('th', { scope: 'col', class: 'ghost-name' }, g.player)))),
    el('tbody', {}, rows.map((row) => el('tr', { dataset: { split: row.key } },
      el('th', { scope: 'row' }, checkpointLabel(row.checkpoint)),
      ghosts.map(() => el('td'))))));
  gapTable.querySelectorAll('.ghost-name').forEach((th, i) => { th.style.color = ghosts[i].colour; });
  section.append(legend, views, controls, keys, callout, el('div', { class: 'table-wrap' }, gapTable));
  section.removeAttribute('aria-busy');
  section.dataset.ready = 'true';
  return { legend, canvases, views, play, scrubber, clock, speed, fit, callout, gapTable };
}

// --- input ----------------------------------------------------------------------------

function seek(ctx, tick) {
  ctx.state.tick = Math.min(Math.max(0, tick), ctx.lastTick);
  ctx.state.dirty = true;
}

function setPlaying(ctx, on) {
  const { state, ui } = ctx;
  if (on && state.tick >= ctx.lastTick) state.tick = 0;
  state.playing = on;
  ui.play.textContent = on ? '❚❚' : '▶';
  ui.play.setAttribute('aria-label', on ? 'Pause' : 'Play');
  if (!on) {
    state.tick = Math.round(state.tick);
    remember(ctx);
  }
  state.dirty = true;
}

function setSpeed(ctx, i) {
  ctx.state.speed = Math.min(Math.max(0, i), SPEEDS.length - 1);
  ctx.ui.speed.value = String(ctx.state.speed);
  ctx.state.dirty = true;
}

function toggleFit(ctx) {
  ctx.state.mode = ctx.state.mode === 'follow' ? 'level' : 'follow';
  ctx.ui.fit.textContent = ctx.state.mode === 'follow' ? 'Whole level' : 'Follow';
  ctx.state.dirty = true;
}

/** The paused tick goes into the URL, so a moment of a race can be linked. */
function remember(ctx) {
  const query = new URLSearchParams(ctx.params);
  query.set('tick', String(Math.round(ctx.state.tick)));
  history.replaceState(null, '', raceHref(ctx.ghosts.map((g) => g.id), Object.fromEntries([...query].filter(([k]) => k !== 'runs'))));
}

/** The buttons, the scrubber, the speed and the keys. */
function bindControls(ctx, view) {
  const { ui, state } = ctx;
  ui.play.addEventListener('click', () => setPlaying(ctx, !state.playing));
  ui.scrubber.addEventListener('input', () => {
    seek(ctx, Number(ui.scrubber.value));
    remember(ctx);
  });
  ui.speed.addEventListener('change', () => setSpeed(ctx, Number(ui.speed.value)));
  ui.fit.addEventListener('click', () => toggleFit(ctx));
  const onKey = (e) => keyDown(ctx, e);
  document.addEventListener('keydown', onKey);
  view.cleanup(() => document.removeEventListener('keydown', onKey));
}

/** A key of the race's (Space, arrows, Home/End, − +, F), unless the racer is typing. */
function keyDown(ctx, e) {
  const { state } = ctx;
  const target = e.target;
  const typing = target instanceof HTMLElement && (target.isContentEditable || target.tagName === 'SELECT' || target.tagName === 'TEXTAREA' || (target.tagName === 'INPUT' && target.type !== 'range'));
  if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
  const step = e.shiftKey ? ctx.rate : 1;
  const move = (to) => { setPlaying(ctx, false); seek(ctx, to); remember(ctx); };
  const actions = {
    ' ': () => setPlaying(ctx, !state.playing),
    ArrowRight: () => move(Math.round(state.tick) + step),
    ArrowLeft: () => move(Math.round(state.tick) - step),
    Home: () => { seek(ctx, 0); remember(ctx); },
    End: () => move(ctx.lastTick),
    '-': () => setSpeed(ctx, state.speed - 1),
    '+': () => setSpeed(ctx, state.speed + 1),
    '=': () => setSpeed(ctx, state.speed + 1),
    f: () => toggleFit(ctx),
    F: () => toggleFit(ctx),
  };
  const action = actions[e.key];
  if (!action) return;
  if (e.key === ' ' && target.tagName === 'BUTTON') return; // the button's own click
  e.preventDefault();
  action();
}

// --- drawing --------------------------------------------------------------------------

/** The canvases follow the views' width. */
function bindResize(ctx, view) {
  const { ui } = ctx;
  const resize = () => {
    const width = Math.max(200, Math.floor(ui.views.clientWidth));
    ctx.sizes = {
      top: sizeCanvas(ui.canvases.top, width, Math.round(clamp(width * 0.2, 130, 220))),
      side: sizeCanvas(ui.canvases.side, width, Math.round(clamp(width * 0.26, 150, 260))),
    };
    ctx.state.dirty = true;
  };
  const observer = new ResizeObserver(resize);
  observer.observe(ui.views);
  view.cleanup(() => observer.disconnect());
  resize();
}

/** The race at its tick: both views, the clock, the legend, the gaps, the test hook. */
function draw(ctx) {
  const { ghosts, ui, state, rate, lastTick, section } = ctx;
  const tick = state.tick;
  const at = ghosts.map((g) => positionAt(g, tick));
  const cams = cameras(state.mode, ctx.bounds, at, ctx.sizes);
  const shown = ghosts.map((ghost, i) => ({ ghost, at: at[i], segments: trail(ghost, tick) }));
  for (const name of ['top', 'side']) {
    const size = ctx.sizes[name];
    const g2d = ui.canvases[name].getContext('2d');
    g2d.setTransform(size.ratio, 0, 0, size.ratio, 0, 0);
    drawLevel(g2d, name, cams[name], size, ctx.level, tick);
    drawGhosts(g2d, name, cams[name], shown);
  }
  ui.scrubber.value = String(Math.floor(tick));
  ui.clock.textContent = `${tickClock(tick, rate)} · tick ${Math.floor(tick)} / ${lastTick}`;
  section.dataset.tick = String(tick);
  ui.legend.querySelectorAll('li').forEach((li, i) => {
    const p = at[i];
    Object.assign(li.dataset, { x: p.x, y: p.y, z: p.z });
    const done = ghosts[i].finish && ghosts[i].finish.tick <= tick;
    li.querySelector('.where').textContent = done ? '· finished' : p.ended ? '· stopped' : '';
  });
  drawGaps(ctx, tick);
  window.__pogo = { ...window.__pogo, race: raceHook(ctx, at, cams, shown) };
}

/** For tests and curious people: what is on screen (`window.__pogo.race`). */
function raceHook(ctx, at, cams, shown) {
  const { state } = ctx;
  return {
    tick: state.tick,
    lastTick: ctx.lastTick,
    playing: state.playing,
    speed: SPEEDS[state.speed],
    mode: state.mode,
    rate: ctx.rate,
    // Moves the race to any tick, fractional ones too (as playback does between frames).
    seek: (t) => {
      if (state.playing) setPlaying(ctx, false);
      seek(ctx, t);
    },
    ghosts: ctx.ghosts.map((g, i) => ({
      run: g.id,
      player: g.player,
      colour: g.colour,
      x: at[i].x,
      y: at[i].y,
      z: at[i].z,
      held: at[i].held,
      ended: at[i].ended,
      trailSegments: shown[i].segments.length,
      screen: { top: toScreen('top', cams.top, at[i]), side: toScreen('side', cams.side, at[i]) },
    })),
  };
}

/** The gap table at `tick` (reached splits, the live gap to the leader) and the callout. */
function drawGaps(ctx, tick) {
  const { ghosts, rows, rate, ui } = ctx;
  let latest = null;
  ui.gapTable.querySelectorAll('tbody tr').forEach((tr, r) => {
    const row = rows[r];
    const leaderTick = row.ticks[row.leader];
    const leaderThere = leaderTick <= tick;
    tr.querySelectorAll('td').forEach((td, g) => {
      const at = row.ticks[g];
      const reached = at !== null && at <= tick;
      td.dataset.reached = String(reached);
      if (reached) {
        td.dataset.gapTicks = String(row.gaps[g]);
        replace(td, tickClock(at, rate), ' ', el('span', { class: 'gap' }, g === row.leader ? 'first' : gap(row.gaps[g], rate)));
      } else {
        delete td.dataset.gapTicks;
        td.textContent = leaderThere ? `… ${gap(Math.floor(tick) - leaderTick, rate)}` : '';
        td.classList.toggle('live', leaderThere);
      }
    });
    if (leaderThere) latest = row;
  });
  if (!latest) {
    ui.callout.textContent = 'No checkpoint reached yet.';
    return;
  }
  const lead = ghosts[latest.leader].player;
  const behind = ghosts
    .map((g, i) => ({ g, i }))
    .filter(({ i }) => i !== latest.leader)
    .map(({ g, i }) => {
      const at = latest.ticks[i];
      return at !== null && at <= tick ? `${g.player} ${gap(latest.gaps[i], rate)}` : `${g.player} not there yet`;
    });
  ui.callout.textContent = `${checkpointLabel(latest.checkpoint)}: ${lead} first${behind.length ? `; ${behind.join(', ')}` : ''}`;
}

/** One loop: playback moves the tick by the frame's time × speed; a change redraws. */
function animate(ctx, view) {
  const { state } = ctx;
  let last = null;
  const frame = (now) => {
    if (view.signal.aborted) return;
    if (state.playing) {
      if (last !== null) {
        state.tick = Math.min(ctx.lastTick, state.tick + ((now - last) / 1000) * ctx.rate * SPEEDS[state.speed]);
        if (state.tick >= ctx.lastTick) setPlaying(ctx, false);
      }
      last = now;
      state.dirty = true;
    } else {
      last = null;
    }
    if (state.dirty) {
      state.dirty = false;
      draw(ctx);
    }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}

const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
