// The racer's heads-up display, over the 3D view: the race clock (m:ss.mmm), speed, combo,
// the countdown, the last checkpoint's split with its delta to each ghost and rival (ahead in
// green, behind in red, as ghost-racing games show it), the ghosts' legend, and in a live
// race the standings: each rival, whether they are connected, what they are doing and the
// gap at the latest checkpoint both reached. DOM text only.

import { el, replace } from '../shared/dom.js';
import { checkpointLabel, clock, millis, tickClock } from '../shared/format.js';

/** How long a split stays large in the middle of the screen (ms of wall time). */
const SPLIT_SHOW_MS = 2500;

/** A tick difference as a signed time: `−0.250` (ahead) or `+1.033` (behind), seconds. */
export function delta(ticks, rate) {
  const ms = millis(Math.abs(ticks), rate);
  const sign = ticks < 0 ? '−' : ticks > 0 ? '+' : '±';
  return `${sign}${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}`;
}

/** A coloured square (CSSOM, not a style attribute: the page's CSP forbids inline styles). */
function swatch(colour) {
  const node = el('span', { class: 'swatch' });
  node.style.background = colour;
  return node;
}

/** What a racer's state says in the standings (racing says nothing; waiting, before GO,
 * says whether they are ready, as the lobby's list does). */
const RACER_STATES = {
  finished: 'finished', left: 'left', cut: 'cut off', desynced: 'desync', timeout: 'out of time',
};

/** A standings row's state: what they are doing, or that they are away. */
function stateText(r) {
  if (r.state === 'waiting') return el('span', { class: `rival-state ${r.ready ? 'ready' : 'waiting'}` }, r.ready ? ' ready ✓' : ' not ready');
  if (RACER_STATES[r.state]) return el('span', { class: `rival-state ${r.state}` }, ` ${RACER_STATES[r.state]}`);
  return r.connected ? null : el('span', { class: 'rival-state gone' }, ' reconnecting…');
}

/** A split's label in a standings row: none for the finish after "finished" (it would say
 * "finished finish"). */
const splitLabel = (r, label) => (label === checkpointLabel(null) && r.state === 'finished' ? '' : `${label} `);

/** A standings row's gap: "CP2 +0.250", or "+4.683" after "finished". */
function gapText(r, rate) {
  const label = splitLabel(r, r.gap.label);
  return el('span', { class: `delta ${r.gap.ticks < 0 ? 'ahead' : r.gap.ticks > 0 ? 'behind' : 'even'}`, dataset: { ticks: r.gap.ticks } },
    ` ${label}${delta(r.gap.ticks, rate)}`);
}

export class Hud {
  constructor(layer, tickRate) {
    this.rate = tickRate;
    this.time = el('div', { class: 'hud-time', 'aria-label': 'Race time' }, '0:00.000');
    this.speed = el('div', { class: 'hud-speed' }, '0.0 m/s');
    this.combo = el('div', { class: 'hud-combo' });
    this.countdown = el('div', { class: 'hud-countdown', role: 'status', 'aria-live': 'assertive' });
    this.split = el('div', { class: 'hud-split', role: 'status', 'aria-live': 'polite' });
    this.splitTable = el('ol', { class: 'hud-splits', 'aria-label': 'Splits' });
    this.legend = el('ul', { class: 'hud-legend', 'aria-label': 'Ghosts' });
    this.rivalsTitle = el('div', { class: 'hud-rivals-title' });
    this.rivals = el('ul', { class: 'hud-rivals', 'aria-label': 'Rivals' });
    this.message = el('div', { class: 'hud-message', role: 'status' });
    this.splitShownAt = -Infinity;
    layer.append(
      el('div', { class: 'hud-top' }, this.time, el('div', { class: 'hud-right' }, this.speed, this.combo)),
      this.countdown, this.split, this.message,
      el('div', { class: 'hud-side' }, this.rivalsTitle, this.rivals, this.legend, this.splitTable));
  }

  /** Per frame: the tick the clock shows, the speed (m/s), the combo. */
  update({ tick, speed, combo, nowMs }) {
    this.time.textContent = tick < 0 ? '0:00.000' : tickClock(tick, this.rate);
    this.speed.textContent = `${speed.toFixed(1)} m/s`;
    this.combo.textContent = combo > 1 ? `combo ×${combo}` : '';
    this.split.classList.toggle('shown', nowMs - this.splitShownAt < SPLIT_SHOW_MS);
  }

  /** `n` (3, 2, 1), 'GO', or null to hide. */
  setCountdown(value) {
    this.countdown.textContent = value === null ? '' : String(value);
    this.countdown.classList.toggle('shown', value !== null);
  }

  setMessage(...text) {
    replace(this.message, ...text);
    this.message.classList.toggle('shown', text.length > 0);
  }

  /**
   * The ghosts' legend: `[{name, colour, status}]` where status is '' or a refusal message
   * (a refused ghost is listed, struck out, with why; the race goes on without it).
   */
  setLegend(ghosts) {
    replace(this.legend, ghosts.map((g) => el('li', { class: g.status ? 'refused' : null, dataset: { ghost: g.key } },
      swatch(g.colour), g.name,
      g.status ? el('span', { class: 'why' }, ` — ${g.status}`) : null)));
  }

  /**
   * A live race's standings under `title`: `[{key, name, colour, connected, ready, state, gap:
   * {label, ticks} | null (a racer's gap to them at the latest checkpoint both reached; ticks
   * < 0: the racer is ahead), last: {label, time} | null (their latest split), followed}]`;
   * `pick(key)`: a row was clicked (a spectator follows that racer), or null.
   */
  setRivals(rows, title = 'Rivals', pick = null) {
    this.rivalsTitle.textContent = rows.length ? title : '';
    replace(this.rivals, rows.map((r) => el('li', {
      class: [r.connected ? 'connected' : 'gone', r.followed ? 'followed' : null, pick ? 'pickable' : null].filter(Boolean).join(' '),
      dataset: { racer: r.key, connected: String(r.connected), state: r.state },
      title: pick ? `Follow ${r.name}` : null,
      onclick: pick ? () => pick(r.key) : null,
    },
    swatch(r.colour), el('span', { class: 'rival-name' }, r.name), stateText(r),
    r.gap ? gapText(r, this.rate) : null,
    !r.gap && r.last ? el('span', { class: 'rival-last muted' }, ` ${splitLabel(r, r.last.label)}${r.last.time}`) : null)));
  }

  /**
   * The player reached checkpoint `checkpoint` (null: the finish) on `tick`; `ghosts` are
   * `[{name, colour, tick}]` with each ghost's tick at the same checkpoint (null: never).
   */
  showSplit(checkpoint, tick, ghosts, nowMs) {
    const rows = ghosts.filter((g) => g.tick !== null && g.tick !== undefined).map((g) => {
      const d = tick - g.tick;
      return el('span', { class: `delta ${d < 0 ? 'ahead' : d > 0 ? 'behind' : 'even'}`, dataset: { ghost: g.key, ticks: d } },
        swatch(g.colour), `${delta(d, this.rate)} ${g.name}`);
    });
    replace(this.split, el('div', { class: 'split-label' }, checkpointLabel(checkpoint), ' ',
      el('strong', {}, clock(millis(tick + 1, this.rate)))), el('div', { class: 'split-deltas' }, rows));
    this.split.dataset.checkpoint = checkpoint === null ? 'finish' : String(checkpoint);
    this.splitShownAt = nowMs;
    const best = ghosts.filter((g) => g.tick !== null && g.tick !== undefined).reduce((a, g) => (a === null || g.tick < a.tick ? g : a), null);
    this.splitTable.append(el('li', {}, `${checkpointLabel(checkpoint)} ${clock(millis(tick + 1, this.rate))}`,
      best ? el('span', { class: `delta ${tick < best.tick ? 'ahead' : tick > best.tick ? 'behind' : 'even'}` }, ` ${delta(tick - best.tick, this.rate)}`) : null));
  }

  resetSplits() {
    replace(this.splitTable);
    replace(this.split);
    this.splitShownAt = -Infinity;
  }
}
