// "N finished runs not yet uploaded" (on the board and above the play view): each run this
// browser keeps (shared/pending.js) with Upload, which opens its finish panel in place and
// uploads it, and Discard (asked twice). Redrawn when the kept runs change elsewhere on the
// page, except while one of its panels is uploading.

import { el, replace } from './dom.js';
import { date, tickClock } from './format.js';
import { mountPanel } from './finish-panel.js';
import { dropPending, fromBase64, pendingRuns } from './pending.js';

/** The list in `container` (hidden while there is nothing to offer); `view` = {signal, cleanup}. */
export function renderPending(container, view) {
  // The runs a finish panel elsewhere on the page shows are offered there, not twice.
  const shownElsewhere = (key) => [...document.querySelectorAll('section.finish-panel')]
    .some((panel) => panel.dataset.key === key && !container.contains(panel));
  const visible = () => pendingRuns().filter((e) => !shownElsewhere(e.key));
  const count = el('strong', { class: 'pending-count' });
  const updateCount = () => {
    const n = visible().length;
    container.dataset.pending = String(n);
    count.textContent = n === 0 ? 'Every finished run is uploaded' : `${n} finished run${n === 1 ? '' : 's'} not yet uploaded`;
  };
  const draw = () => {
    const list = visible();
    if (list.length === 0) {
      replace(container);
      container.hidden = true;
      delete container.dataset.pending;
      return;
    }
    container.hidden = false;
    updateCount();
    const items = list.map((entry) => pendingRow(entry, view, { redraw: draw, settled: updateCount }));
    replace(container, el('div', { class: 'pending-box', role: 'region', 'aria-label': 'Finished runs not yet uploaded' },
      el('p', { class: 'pending-head' }, count, el('span', { class: 'muted' }, ` — kept in this browser until the server has ${list.length === 1 ? 'it' : 'them'}.`)),
      el('ul', { class: 'pending-list' }, items)));
  };
  draw();
  // A run finished or uploaded elsewhere on the page: redrawn, unless a run is being uploaded
  // from this list (its panel stays).
  const onChange = () => {
    if (!container.isConnected || container.querySelector('.pending-panel')) return;
    draw();
  };
  window.addEventListener('pogo-pending', onChange);
  view.cleanup?.(() => window.removeEventListener('pogo-pending', onChange));
}

/** One kept run: what it is, Upload (its panel replaces the row) and Discard. */
function pendingRow(entry, view, { redraw, settled }) {
  const upload = el('button', { type: 'button', class: 'primary' }, 'Upload');
  const discard = el('button', { type: 'button', class: 'quiet' }, 'Discard');
  const row = el('li', { class: 'pending-run', dataset: { key: entry.key } },
    el('span', { class: 'pending-what' },
      el('span', { class: 'clock' }, tickClock(entry.finishTick, entry.tickRate)), ' on ', el('strong', {}, entry.level),
      el('span', { class: 'muted small' }, ` · finished ${date(entry.savedAt)}`)),
    el('span', { class: 'pending-buttons' }, upload, discard));
  upload.addEventListener('click', () => {
    const holder = el('div', { class: 'pending-panel' });
    row.replaceChildren(holder);
    const submission = mountPanel(holder, {
      level: entry.level, bytes: fromBase64(entry.bytes), browserHash: entry.browserHash, finishTick: entry.finishTick,
      tickRate: entry.tickRate, playerName: entry.playerName ?? '',
      ticket: typeof entry.ticket === 'string' ? { id: entry.ticket } : null,
    }, view, { start: true });
    submission.onTransition(() => {
      if (submission.settled) settled();
    });
  });
  discard.addEventListener('click', () => {
    if (discard.dataset.confirm !== 'true') {
      discard.dataset.confirm = 'true';
      discard.textContent = 'Discard for good?';
      return;
    }
    dropPending(entry.key);
    redraw();
  });
  return row;
}
