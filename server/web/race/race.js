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

function startRace(section, ghosts, level, params, view) {
  const rate = ghosts[0].rate;
  const lastTick = raceTicks(ghosts);
  const bounds = raceBounds(level, ghosts);
  const rows = checkpointGaps(ghosts);
  const state = {
    tick: Math.min(Math.max(0, Math.floor(Number(params.get('tick')) || 0)), lastTick),
    playing: false,
    speed: SPEEDS.indexOf(1),
    mode: 'follow',
    dirty: true,
  };

  // --- the page -------------------------------------------------------------------------
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

  // --- input ----------------------------------------------------------------------------
  const seek = (tick) => {
    state.tick = Math.min(Math.max(0, tick), lastTick);
    state.dirty = true;
  };
  const setPlaying = (on) => {
    if (on && state.tick >= lastTick) state.tick = 0;
    state.playing = on;
    play.textContent = on ? '❚❚' : '▶';
    play.setAttribute('aria-label', on ? 'Pause' : 'Play');
    if (!on) {
      state.tick = Math.round(state.tick);
      remember();
    }
    state.dirty = true;
  };
  const setSpeed = (i) => {
    state.speed = Math.min(Math.max(0, i), SPEEDS.length - 1);
    speed.value = String(state.speed);
    state.dirty = true;
  };
  const toggleFit = () => {
    state.mode = state.mode === 'follow' ? 'level' : 'follow';
    fit.textContent = state.mode === 'follow' ? 'Whole level' : 'Follow';
    state.dirty = true;
  };
  // The paused tick goes into the URL, so a moment of a race can be linked.
  const remember = () => {
    const query = new URLSearchParams(params);
    query.set('tick', String(Math.round(state.tick)));
    history.replaceState(null, '', raceHref(ghosts.map((g) => g.id), Object.fromEntries([...query].filter(([k]) => k !== 'runs'))));
  };
  play.addEventListener('click', () => setPlaying(!state.playing));
  scrubber.addEventListener('input', () => {
    seek(Number(scrubber.value));
    remember();
  });
  speed.addEventListener('change', () => setSpeed(Number(speed.value)));
  fit.addEventListener('click', toggleFit);
  const onKey = (e) => {
    const target = e.target;
    const typing = target instanceof HTMLElement && (target.isContentEditable || target.tagName === 'SELECT' || target.tagName === 'TEXTAREA' || (target.tagName === 'INPUT' && target.type !== 'range'));
    if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
    const step = e.shiftKey ? rate : 1;
    const actions = {
      ' ': () => setPlaying(!state.playing),
      ArrowRight: () => { setPlaying(false); seek(Math.round(state.tick) + step); remember(); },
      ArrowLeft: () => { setPlaying(false); seek(Math.round(state.tick) - step); remember(); },
      Home: () => { seek(0); remember(); },
      End: () => { setPlaying(false); seek(lastTick); remember(); },
      '-': () => setSpeed(state.speed - 1),
      '+': () => setSpeed(state.speed + 1),
      '=': () => setSpeed(state.speed + 1),
      f: toggleFit,
      F: toggleFit,
    };
    const action = actions[e.key];
    if (!action) return;
    if (e.key === ' ' && target.tagName === 'BUTTON') return; // the button's own click
    e.preventDefault();
    action();
  };
  document.addEventListener('keydown', onKey);
  view.cleanup(() => document.removeEventListener('keydown', onKey));

  // --- drawing --------------------------------------------------------------------------
  let sizes = null;
  const resize = () => {
    const width = Math.max(200, Math.floor(views.clientWidth));
    sizes = {
      top: sizeCanvas(canvases.top, width, Math.round(clamp(width * 0.2, 130, 220))),
      side: sizeCanvas(canvases.side, width, Math.round(clamp(width * 0.26, 150, 260))),
    };
    state.dirty = true;
  };
  const observer = new ResizeObserver(resize);
  observer.observe(views);
  view.cleanup(() => observer.disconnect());
  resize();

  const draw = () => {
    const tick = state.tick;
    const at = ghosts.map((g) => positionAt(g, tick));
    const cams = cameras(state.mode, bounds, at, sizes);
    const shown = ghosts.map((ghost, i) => ({ ghost, at: at[i], segments: trail(ghost, tick) }));
    for (const name of ['top', 'side']) {
      const ctx = canvases[name].getContext('2d');
      ctx.setTransform(sizes[name].ratio, 0, 0, sizes[name].ratio, 0, 0);
      drawLevel(ctx, name, cams[name], sizes[name], level, tick);
      drawGhosts(ctx, name, cams[name], shown);
    }
    scrubber.value = String(Math.floor(tick));
    clock.textContent = `${tickClock(tick, rate)} · tick ${Math.floor(tick)} / ${lastTick}`;
    section.dataset.tick = String(tick);
    legend.querySelectorAll('li').forEach((li, i) => {
      const p = at[i];
      Object.assign(li.dataset, { x: p.x, y: p.y, z: p.z });
      const done = ghosts[i].finish && ghosts[i].finish.tick <= tick;
      li.querySelector('.where').textContent = done ? '· finished' : p.ended ? '· stopped' : '';
    });
    drawGaps(tick);
    window.__pogo = {
      ...window.__pogo,
      race: {
        tick,
        lastTick,
        playing: state.playing,
        speed: SPEEDS[state.speed],
        mode: state.mode,
        rate,
        // Moves the race to any tick, fractional ones too (as playback does between frames).
        seek: (t) => {
          if (state.playing) setPlaying(false);
          seek(t);
        },
        ghosts: ghosts.map((g, i) => ({
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
      },
    };
  };

  const drawGaps = (tick) => {
    let latest = null;
    gapTable.querySelectorAll('tbody tr').forEach((tr, r) => {
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
      callout.textContent = 'No checkpoint reached yet.';
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
    callout.textContent = `${checkpointLabel(latest.checkpoint)}: ${lead} first${behind.length ? `; ${behind.join(', ')}` : ''}`;
  };

  let last = null;
  const frame = (now) => {
    if (view.signal.aborted) return;
    if (state.playing) {
      if (last !== null) {
        state.tick = Math.min(lastTick, state.tick + ((now - last) / 1000) * rate * SPEEDS[state.speed]);
        if (state.tick >= lastTick) setPlaying(false);
      }
      last = now;
      state.dirty = true;
    } else {
      last = null;
    }
    if (state.dirty) {
      state.dirty = false;
      draw();
    }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}

const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
