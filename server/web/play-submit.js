// The finish panel: a run the wasm recorder made → uploaded → queued → verifying → verified
// with its rank and the change to the player's best, or the verifier's reason; the final
// hash the browser computed beside the server's. Registering a name happens here when the
// browser has no token (identity.js keeps it); a token the server does not accept gets a
// message and a way to fix it in place.
//
// Nothing is lost: a finished run is kept in localStorage (`pogo.pending`) from the moment
// the panel shows it until the server has it (200/202), or until the server refuses it for
// good (400, 404 unknown level, 409, 413, 415: no retry can fix those; the reason is shown
// and the replay can still be downloaded). A refused token (401/403) keeps it: the token can
// be fixed. A network failure, 429, 5xx are retried with backoff honouring Retry-After, a
// bounded number of times, then "Retry now" is offered; the run stays kept meanwhile and
// `renderPending` offers it again on the next visit.
//
// The replay's header must carry the uploader's registered name. A run raced without an
// identity (or under another name) is re-recorded before it is sent: the same inputs, tick
// by tick, into a new recorder under the name, checked to end on the same state hash
// (`rerecord`).
//
// A run raced under a run ticket (play-ticket.js) names it in the upload (`?ticket=ID`); the
// ticket's id is kept with the pending run, so an upload days later still names it. The
// verdict says "real-time ✓" or the server's reason; a run without a ticket is open. A ticket
// the server no longer takes (used, expired, another player's after a change of name) is
// dropped and the run uploaded open: the run is never lost over its ticket.
//
// For tests: `window.__pogo.submit` = { state, history, runId, rank, serverHash, browserHash,
// … } of the latest panel; the panel's `data-state`.

import { ApiError, getJson, request, segment, sleep } from './api.js';
import { el, link, replace } from './dom.js';
import { date, millis, tickClock } from './format.js';
import { forget, getIdentity, register, setIdentity } from './identity.js';
import { hex64, loadCore } from './wasm.js';

/** localStorage: the runs not yet on the server (a JSON list, oldest first). */
export const PENDING_KEY = 'pogo.pending';
/** localStorage: "upload automatically" ('true' / 'false'). */
export const AUTO_UPLOAD_KEY = 'pogo.autoUpload';
/** At most this many runs are kept, and at most this many characters of JSON (2 MiB). */
export const PENDING_RUNS_MAX = 20;
export const PENDING_CHARS_MAX = 2 * 1024 * 1024;
/** Tries of one upload on a network failure, 429 or 5xx before "Retry now" is offered. */
export const UPLOAD_TRIES_MAX = 4;
/** The first wait between tries (s), doubled each time, at least what Retry-After says. */
const RETRY_FIRST_S = 1;
/** The longest wait between tries (s). */
const RETRY_WAIT_MAX_S = 30;
/** Status polls: interval, how long before the panel stops waiting, errors in a row allowed. */
const POLL_INTERVAL_MS = 250;
const POLL_DURATION_MAX_MS = 120_000;
const POLL_ERRORS_MAX = 20;

/** The steps a run goes through, as the panel shows them. */
const STEPS = ['uploading', 'queued', 'verifying', 'verified'];
/** Refusals of the ticket an upload names: the run goes up without it (open). */
const TICKET_CODES = new Set(['unknown_ticket', 'not_your_ticket', 'ticket_used', 'ticket_expired', 'ticket_mismatch']);
/** Refusals no retry can fix: the run is dropped (after showing why). */
const FINAL_STATUSES = new Set([400, 409, 413, 415]);

// -- bytes as text ----------------------------------------------------------------------

export function toBase64(bytes) {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

export function fromBase64(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

// -- the runs kept in the browser --------------------------------------------------------

const pendingKey = (level, browserHash) => `${level}:${browserHash}`;

function validEntry(e) {
  return e && typeof e.level === 'string' && typeof e.bytes === 'string' && typeof e.browserHash === 'string'
    && Number.isInteger(e.finishTick) && Number.isInteger(e.tickRate) && e.tickRate > 0;
}

function readPending() {
  try {
    const list = JSON.parse(localStorage.getItem(PENDING_KEY) ?? '[]');
    return Array.isArray(list) ? list.filter(validEntry) : [];
  } catch {
    return [];
  }
}

/** Writes `list` within the bounds (oldest dropped, with a warning); false if nothing fits. */
function writePending(list) {
  const kept = [...list];
  const drop = (why) => {
    const old = kept.shift();
    console.warn(`pogo: dropping the oldest run not yet uploaded (${old.level}, finish tick ${old.finishTick}, kept since ${old.savedAt}): ${why}`);
  };
  while (kept.length > PENDING_RUNS_MAX) drop(`more than ${PENDING_RUNS_MAX} runs kept`);
  let text = JSON.stringify(kept);
  while (text.length > PENDING_CHARS_MAX && kept.length > 1) {
    drop(`more than ${PENDING_CHARS_MAX} characters kept`);
    text = JSON.stringify(kept);
  }
  for (;;) {
    try {
      if (kept.length === 0) localStorage.removeItem(PENDING_KEY);
      else localStorage.setItem(PENDING_KEY, text);
      // After the current task: the panel that changed the list is in the document by then.
      setTimeout(() => window.dispatchEvent(new CustomEvent('pogo-pending')), 0);
      return true;
    } catch (e) {
      if (kept.length <= 1) {
        console.warn(`pogo: this browser cannot keep the run (${e.message})`);
        return false;
      }
      drop(`the browser's storage is full (${e.message})`);
      text = JSON.stringify(kept);
    }
  }
}

/**
 * The finished runs this browser keeps because the server does not have them yet, oldest
 * first: `{key, level, bytes (base64), browserHash, finishTick, tickRate, playerName, savedAt}`.
 */
export function pendingRuns() {
  return readPending();
}

/** Keeps (or updates) `run` ({level, bytes: Uint8Array, browserHash, …}); false if it cannot. */
function keepPending(run) {
  const list = readPending();
  const key = pendingKey(run.level, run.browserHash);
  const old = list.find((e) => e.key === key);
  const entry = {
    key, level: run.level, bytes: toBase64(run.bytes), browserHash: run.browserHash, finishTick: run.finishTick,
    tickRate: run.tickRate, playerName: run.playerName ?? '', savedAt: old?.savedAt ?? new Date().toISOString(),
    ticket: typeof run.ticket === 'string' ? run.ticket : null,
  };
  return writePending([...list.filter((e) => e.key !== key), entry]);
}

function dropPending(key) {
  writePending(readPending().filter((e) => e.key !== key));
}

function autoUpload() {
  return localStorage.getItem(AUTO_UPLOAD_KEY) === 'true';
}

// -- re-recording under a name -------------------------------------------------------------

/**
 * The run in replay `bytes` recorded again under `name`: the same level and inputs, tick by
 * tick, into a new recorder whose header carries the name. Checks that the replay verifies
 * and that the new recording ends on its final state hash (and on `expectedHash`, the hash
 * the browser computed while racing, if given). Returns `{bytes, finalHash, ticks, level}`.
 * Every object it makes is freed.
 */
export function rerecord(pogo, tuning, bytes, name, { expectedHash = null, date: when } = {}) {
  const made = [];
  const keep = (object) => {
    made.push(object);
    return object;
  };
  const replay = pogo.replay(bytes);
  try {
    const info = replay.info;
    if (info.players !== 1) throw new Error(`a replay of ${info.players} players: only single-player runs are uploaded`);
    const verifier = keep(pogo.verifier({ tuning }));
    const verdict = verifier.verify(bytes);
    if (!verdict.verified) throw new Error(`the run does not verify here: ${verdict.kindName}: ${verdict.reason}`);
    const before = hex64(verdict.finalHash);
    if (expectedHash !== null && before !== expectedHash) {
      throw new Error(`the replay ends on state ${before}, not on the ${expectedHash} the race ended on`);
    }
    const inputs = replay.inputs(0);
    const level = keep(pogo.level(replay.levelName));
    const sim = keep(pogo.simulation({ level, tuning, players: 1 }));
    const recorder = keep(pogo.recorder({ sim, playerName: name, date: when ?? replay.date ?? '' }));
    const input = { steerX: 0, steerZ: 0, buttons: 0 };
    const tick = [input];
    for (let t = 0; t < info.ticks; t++) {
      input.steerX = inputs[3 * t];
      input.steerZ = inputs[3 * t + 1];
      input.buttons = inputs[3 * t + 2] & 0xff;
      sim.step(tick);
      recorder.record();
    }
    recorder.finish();
    const out = recorder.bytes();
    const after = hex64(sim.stateHash());
    if (after !== before) throw new Error(`re-recording changed the run: it ends on state ${after}, the replay on ${before}`);
    return { bytes: out, finalHash: after, ticks: info.ticks, level: replay.levelName };
  } finally {
    for (const object of made.reverse()) object.free();
    replay.free();
  }
}

// -- the panel ---------------------------------------------------------------------------

/**
 * The finish panel of `run` = {level, bytes: Uint8Array (the recorder's replay), browserHash
 * (16 hex), finishTick, tickRate, playerName (the replay header's, '' without identity),
 * ticket} in `container`; `view` = {signal, cleanup}. The run is kept in the browser at once.
 */
export function renderFinish(container, run, view) {
  const hook = mountPanel(container, run, view, { start: autoUpload() });
  // The panel is below the race; a racer who has just crossed the line should see it (on a
  // phone the stage fills the screen). Not focused: a key still held from the race (Space is
  // the trick) must not press its buttons.
  container.querySelector('section.finish-panel')?.scrollIntoView?.({ block: 'nearest', behavior: 'smooth' });
  return hook;
}

/** "N finished runs not yet uploaded": each with Upload (opens its finish panel) and Discard. */
export function renderPending(container, view) {
  // The runs a finish panel elsewhere on the page shows are offered there, not twice.
  const shownElsewhere = (key) => [...document.querySelectorAll('section.finish-panel')]
    .some((panel) => panel.dataset.key === key && !container.contains(panel));
  const visible = () => readPending().filter((e) => !shownElsewhere(e.key));
  const draw = () => {
    const list = visible();
    if (list.length === 0) {
      replace(container);
      container.hidden = true;
      delete container.dataset.pending;
      return;
    }
    container.hidden = false;
    container.dataset.pending = String(list.length);
    const items = list.map((entry) => {
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
        mountPanel(holder, {
          level: entry.level, bytes: fromBase64(entry.bytes), browserHash: entry.browserHash, finishTick: entry.finishTick,
          tickRate: entry.tickRate, playerName: entry.playerName ?? '',
          ticket: typeof entry.ticket === 'string' ? { id: entry.ticket } : null,
        }, view, { start: true, onSettled: () => updateCount() });
      });
      discard.addEventListener('click', () => {
        if (discard.dataset.confirm !== 'true') {
          discard.dataset.confirm = 'true';
          discard.textContent = 'Discard for good?';
          return;
        }
        dropPending(entry.key);
        draw();
      });
      return row;
    });
    const count = el('strong', { class: 'pending-count' });
    const updateCount = () => {
      const n = visible().length;
      container.dataset.pending = String(n);
      count.textContent = n === 0 ? 'Every finished run is uploaded' : `${n} finished run${n === 1 ? '' : 's'} not yet uploaded`;
    };
    updateCount();
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

function mountPanel(container, run, view, { start = false, onSettled = null } = {}) {
  const signal = view.signal;
  const rate = run.tickRate;
  const entry = {
    level: run.level, bytes: run.bytes, browserHash: run.browserHash, finishTick: run.finishTick,
    tickRate: rate, playerName: run.playerName ?? '', ticket: run.ticket?.id ?? null,
  };
  /** Why the run is open (no ticket, or its ticket dropped), for the verdict line. */
  let openWhy = entry.ticket ? null : (run.openWhy ?? 'an open race: uploaded without a run ticket');
  const key = pendingKey(run.level, run.browserHash);
  const kept = keepPending(entry);
  const hook = {
    state: 'ready', history: ['ready'], runId: null, rank: null, serverHash: null, browserHash: run.browserHash,
    browserFinishTick: run.finishTick, serverFinishTick: null, kept, message: '',
    ticket: entry.ticket, realtime: null, realtimeNote: null, realtimeRank: null,
  };
  window.__pogo = { ...window.__pogo, submit: hook };

  const panel = el('section', { class: 'finish-panel', 'aria-label': 'Your run', dataset: { state: 'ready', key, browserHash: run.browserHash } });
  const who = el('div', { class: 'finish-who' });
  const uploadButton = el('button', { type: 'button', class: 'primary finish-upload' }, 'Upload');
  const autoBox = el('input', { type: 'checkbox', class: 'finish-auto-box', checked: autoUpload() });
  const retryButton = el('button', { type: 'button', class: 'primary finish-retry', hidden: true }, 'Retry now');
  const saveButton = el('button', { type: 'button', class: 'quiet finish-save' }, 'Save the replay file');
  const steps = el('ol', { class: 'steps finish-steps', 'aria-label': 'Progress' });
  const status = el('div', { class: 'finish-status', role: 'status', 'aria-live': 'polite' });
  const fix = el('div', { class: 'finish-fix', hidden: true });
  const compare = el('dl', { class: 'finish-compare' });
  const next = el('p', { class: 'finish-next' });
  const realtimeLine = el('p', { class: 'finish-realtime' });
  const foot = el('span', { class: 'finish-kept' });

  let busy = false;
  /** The server has the run, or refused it for good: nothing more to upload. */
  let settled = false;
  /** The last failure is one a later try may fix. */
  let retryOffered = false;

  const show = (state, ...message) => {
    hook.state = state;
    if (hook.history.at(-1) !== state) hook.history.push(state);
    panel.dataset.state = state;
    replace(status, ...message);
    hook.message = status.textContent;
    const reached = STEPS.indexOf(state === 'rejected' ? 'verified' : state);
    replace(steps, STEPS.map((step, i) => {
      const label = step === 'verified' && state === 'rejected' ? 'rejected' : step;
      let cls = null;
      if (state === 'rejected' && step === 'verified') cls = 'bad';
      else if (i < reached || (i === reached && (state === 'verified'))) cls = 'done';
      else if (i === reached) cls = 'now';
      else if (state === 'retrying' && step === 'uploading') cls = 'now';
      return el('li', { class: cls }, label);
    }));
    syncButtons();
    foot.textContent = hook.kept ? 'Kept in this browser until the server has it.'
      : settled ? (hook.runId ? 'The server has it.' : 'No longer kept in this browser.')
        : 'This browser could not keep the run: upload it now, or save the file.';
  };

  /** Upload while ready (with an identity); "Retry now" after a failure waiting can fix. */
  const syncButtons = () => {
    const identity = getIdentity();
    uploadButton.hidden = !identity || settled || hook.state !== 'ready';
    uploadButton.disabled = busy;
    if (identity) uploadButton.textContent = `Upload as ${identity.name}`;
    retryButton.hidden = !retryOffered || settled || hook.state !== 'error';
  };

  const drawCompare = () => {
    const serverHash = hook.serverHash;
    const serverFinish = hook.serverFinishTick;
    const decided = hook.state === 'verified' || hook.state === 'rejected';
    const mark = (a, b) => (b === null || b === undefined
      ? el('span', { class: 'muted' }, decided ? 'not reported by this server' : hook.runId ? 'waiting for the verdict' : 'after the upload')
      : a === b ? el('span', { class: 'match' }, '✓ match') : el('span', { class: 'mismatch' }, '✗ MISMATCH'));
    if (hook.runId === null) {
      replace(compare,
        el('dt', {}, 'final hash'), el('dd', {}, el('code', { class: 'browser-hash' }, run.browserHash),
          el('span', { class: 'muted' }, ' (this browser’s; the server’s shows after the upload)')));
      return;
    }
    replace(compare,
      el('dt', {}, 'final hash'),
      el('dd', { class: 'pair' },
        el('span', {}, el('span', { class: 'muted' }, 'browser '), el('code', { class: 'browser-hash' }, run.browserHash)),
        el('span', {}, el('span', { class: 'muted' }, 'server '), el('code', { class: 'server-hash' }, serverHash ?? '—')),
        mark(run.browserHash, decided ? serverHash : null)),
      el('dt', {}, 'finish tick'),
      el('dd', { class: 'pair' },
        el('span', {}, el('span', { class: 'muted' }, 'browser '), String(run.finishTick)),
        el('span', {}, el('span', { class: 'muted' }, 'server '), serverFinish === null ? '—' : String(serverFinish)),
        mark(run.finishTick, hook.state === 'verified' ? serverFinish : null)));
    panel.dataset.serverHash = serverHash ?? '';
    if ((hook.state === 'verified' || hook.state === 'rejected') && serverHash) panel.dataset.hashMatch = String(serverHash === run.browserHash);
  };

  /** Real-time ✓, the server's reason it is not, or why the race is open. */
  const drawRealtime = (s = null) => {
    if (s && s.status === 'verified' && s.realtime) {
      realtimeLine.dataset.realtime = 'true';
      replace(realtimeLine, el('strong', { class: 'match' }, 'real-time ✓'),
        s.realtime_rank ? [' · ', el('strong', { class: 'rank' }, `rank ${s.realtime_rank}`), ' on the real-time board'] : ' · on the real-time board');
    } else if (s && s.status === 'verified' && entry.ticket) {
      realtimeLine.dataset.realtime = 'false';
      replace(realtimeLine, el('strong', { class: 'mismatch' }, 'not real-time: '), el('span', { class: 'realtime-note' }, s.realtime_note ?? 'no reason given'),
        el('span', { class: 'muted' }, ' — ranked on the open board only.'));
    } else if (!entry.ticket) {
      realtimeLine.dataset.realtime = 'open';
      replace(realtimeLine, el('strong', {}, 'Open: '), el('span', { class: 'realtime-note' }, openWhy),
        el('span', { class: 'muted' }, '. Ranked on the open board, never on the real-time one.'));
    } else {
      realtimeLine.dataset.realtime = 'pending';
      const problem = run.ticket?.problem;
      replace(realtimeLine, el('span', { class: 'muted' }, 'Raced under a run ticket: real-time is judged when the run is verified.'),
        problem ? el('span', { class: 'realtime-note' }, ` Note: ${problem}.`) : null);
    }
  };

  const drawWho = () => {
    const identity = getIdentity();
    if (identity) {
      const change = el('button', { type: 'button', class: 'linkish' }, 'use another name');
      change.addEventListener('click', () => openFix(null));
      if (settled && hook.runId !== null) replace(who, 'Uploaded as ', el('strong', { class: 'who-name' }, identity.name));
      else replace(who, 'Uploading as ', el('strong', { class: 'who-name' }, identity.name), ' · ', change);
    } else {
      replace(who, el('p', { class: 'finish-anon' }, 'To be ranked, register a name: it goes in the replay and on the board. Your token stays in this browser.'),
        identityForms({ primary: 'Register and upload' }));
    }
    syncButtons();
  };

  /** Register a name, or paste a name and its token; then upload. */
  const identityForms = ({ primary }) => {
    const nameInput = el('input', { type: 'text', name: 'name', autocomplete: 'nickname', maxlength: 32, required: true, placeholder: 'Your name', 'aria-label': 'Name to register', spellcheck: 'false' });
    const message = el('p', { class: 'form-message', role: 'alert' });
    const registerForm = el('form', { class: 'finish-register' }, nameInput, el('button', { type: 'submit', class: 'primary' }, primary));
    registerForm.addEventListener('submit', async (e) => {
      e.preventDefault();
      const button = registerForm.querySelector('button');
      button.disabled = true;
      replace(message);
      try {
        await register(nameInput.value, signal);
        closeFix();
        drawWho();
        upload();
      } catch (err) {
        if (err.name === 'AbortError') return;
        replace(message, err.message);
      } finally {
        button.disabled = false;
      }
    });
    const pasteName = el('input', { type: 'text', name: 'name', autocomplete: 'username', maxlength: 32, placeholder: 'Name', 'aria-label': 'Registered name', spellcheck: 'false' });
    const pasteToken = el('input', { type: 'password', name: 'token', autocomplete: 'off', placeholder: 'pogo_…', 'aria-label': 'Token', spellcheck: 'false' });
    const pasteForm = el('form', { class: 'finish-paste' }, pasteName, pasteToken, el('button', { type: 'submit' }, 'Use this token'));
    pasteForm.addEventListener('submit', (e) => {
      e.preventDefault();
      replace(message);
      try {
        setIdentity({ name: pasteName.value, token: pasteToken.value });
      } catch (err) {
        replace(message, err.message);
        return;
      }
      closeFix();
      drawWho();
      upload();
    });
    return el('div', { class: 'identity-forms' }, registerForm,
      el('details', { class: 'finish-have-token' }, el('summary', {}, 'I already have a token'), pasteForm), message);
  };

  const openFix = (why) => {
    replace(fix, why ? el('p', { class: 'fix-why' }, why) : null, identityForms({ primary: 'Register and upload' }),
      getIdentity() ? el('p', { class: 'small' }, el('button', {
        type: 'button', class: 'linkish', onclick: () => { forget(); closeFix(); drawWho(); },
      }, 'Forget the name and token kept in this browser')) : null);
    fix.hidden = false;
    fix.querySelector('input')?.focus();
  };
  const closeFix = () => {
    fix.hidden = true;
    replace(fix);
  };

  const download = () => {
    const url = URL.createObjectURL(new Blob([entry.bytes], { type: 'application/octet-stream' }));
    const a = el('a', { href: url, download: `${run.level}-tick-${run.finishTick}.pogo` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };

  // -- uploading ---------------------------------------------------------------------------

  async function upload() {
    if (busy || signal.aborted) return;
    const identity = getIdentity();
    if (!identity) {
      show('ready', 'Register a name (or paste a token) to upload.');
      drawWho();
      return;
    }
    busy = true;
    retryOffered = false;
    closeFix();
    try {
      show('uploading', `Uploading as ${identity.name}…`);
      if (entry.playerName !== identity.name) {
        const core = await loadCore(signal);
        const again = rerecord(core.pogo, core.tuning, entry.bytes, identity.name, { expectedHash: run.browserHash });
        entry.bytes = again.bytes;
        entry.playerName = identity.name;
        if (readPending().some((e) => e.key === key)) keepPending(entry);
      }
      const previous = await bestOf(run.level, identity.name, signal);
      // The finish's commitment must reach the server before the upload uses the ticket.
      if (entry.ticket) await run.ticket?.settled?.();
      const answer = await send(identity);
      dropPending(key);
      hook.kept = false;
      settled = true;
      hook.runId = answer.id;
      panel.dataset.run = String(answer.id);
      onSettled?.();
      show('queued', answer.duplicate ? `Already uploaded: run ${answer.id}.` : `Uploaded: run ${answer.id}, waiting for the verifier…`);
      drawCompare();
      await follow(answer.id, previous, identity);
    } catch (err) {
      if (err.name === 'AbortError') return;
      failed(err);
    } finally {
      busy = false;
      drawWho();
    }
  }

  /** POST /api/runs, retrying what waiting can fix (bounded); resolves with the answer body. */
  async function send(identity) {
    for (let attempt = 1; ; attempt++) {
      try {
        const query = entry.ticket ? `?ticket=${encodeURIComponent(entry.ticket)}` : '';
        const { body } = await request(`/api/runs${query}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${identity.token}`, 'content-type': 'application/octet-stream' },
          body: entry.bytes,
          retry: false,
          signal,
        });
        return body;
      } catch (err) {
        if (err instanceof ApiError && entry.ticket && TICKET_CODES.has(err.code)) {
          // The ticket is past use; the run is not: up it goes, open.
          openWhy = `an open race: the server did not take its run ticket (${err.message})`;
          entry.ticket = null;
          hook.ticket = null;
          if (readPending().some((e) => e.key === key)) keepPending(entry);
          drawRealtime();
          attempt--;
          continue;
        }
        if (!(err instanceof ApiError) || !retryable(err) || attempt >= UPLOAD_TRIES_MAX) throw err;
        const said = Number(err.body?.retry_after_s);
        const wait = Math.min(RETRY_WAIT_MAX_S, Math.max(Number.isFinite(said) ? said : 0, RETRY_FIRST_S * 2 ** (attempt - 1)));
        for (let left = wait * 1000; left > 0; left -= 1000) {
          show('retrying', why(err), ` Trying again in ${Math.ceil(left / 1000)} s (try ${attempt + 1} of ${UPLOAD_TRIES_MAX}). Your run is kept in this browser meanwhile.`);
          await sleep(Math.min(1000, left), signal);
        }
        show('uploading', `Uploading as ${identity.name} (try ${attempt + 1} of ${UPLOAD_TRIES_MAX})…`);
      }
    }
  }

  function failed(err) {
    const api = err instanceof ApiError ? err : null;
    if (api && (api.status === 401 || api.status === 403)) {
      const message = api.code === 'name_mismatch' || api.code === 'player_hidden'
        ? `${api.message}.`
        : 'Your token was not accepted: expired, wrong or revoked. Register again or paste a token.';
      show('error', el('strong', {}, 'Not uploaded. '), message, el('span', { class: 'muted' }, ` (${api.status} ${api.code}) Your run is kept in this browser.`));
      openFix(null);
      return;
    }
    if (api && (FINAL_STATUSES.has(api.status) || (api.status === 404 && api.code === 'unknown_level'))) {
      dropPending(key);
      hook.kept = false;
      settled = true;
      onSettled?.();
      show('error', el('strong', {}, 'The server refused this run: '), el('span', { class: 'reason' }, api.message),
        el('span', { class: 'muted' }, ` (${api.status} ${api.code})`),
        '. No retry can change that, so it is no longer kept in this browser; save the replay file to keep it.');
      panel.dataset.dropped = 'true';
      return;
    }
    retryOffered = true;
    show('error', el('strong', {}, 'Not uploaded yet. '), api ? why(api) : String(err.message ?? err),
      ' Your run is kept in this browser: retry now, or later from the leaderboard.');
  }

  /** Polls the run until its verdict; shows the rank and the change to the player's best. */
  async function follow(id, previous, identity) {
    const started = performance.now();
    let errors = 0;
    for (;;) {
      let s;
      try {
        s = await getJson(`/api/runs/${id}`, { signal });
        errors = 0;
      } catch (err) {
        if (err.name === 'AbortError') throw err;
        if (++errors > POLL_ERRORS_MAX) {
          show('error', `Uploaded as run ${id}, but its status cannot be read: ${err.message}. `, link(`#/run/${id}`, 'See the run later'));
          return;
        }
        await sleep(1000, signal);
        continue;
      }
      hook.serverHash = s.final_hash ?? null;
      hook.serverFinishTick = s.finish_tick ?? null;
      if (s.status === 'verified') {
        hook.realtime = Boolean(s.realtime);
        hook.realtimeNote = s.realtime_note ?? null;
        hook.realtimeRank = s.realtime_rank ?? null;
        drawRealtime(s);
        hook.rank = s.rank ?? null;
        if (hook.rank !== null) panel.dataset.rank = String(hook.rank);
        show('verified', ...(await verifiedMessage(s, previous, identity)));
        drawCompare();
        drawNext(s, identity);
        return;
      }
      if (s.status === 'rejected') {
        show('rejected', el('strong', {}, 'Rejected: '), el('span', { class: 'reason' }, s.reason ?? 'no reason given'),
          s.reason_kind ? el('span', { class: 'muted' }, ` (${s.reason_kind})`) : null);
        drawCompare();
        drawNext(s, identity);
        return;
      }
      if (s.status !== hook.state) show(s.status, s.status === 'queued' ? `Run ${id} is waiting for the verifier…` : `The server is re-simulating run ${id}…`);
      if (performance.now() - started > POLL_DURATION_MAX_MS) {
        show(s.status, `Still ${s.status} after ${POLL_DURATION_MAX_MS / 1000} s: the server is busy. `, link(`#/run/${id}`, 'See the run later'));
        return;
      }
      await sleep(POLL_INTERVAL_MS, signal);
    }
  }

  async function verifiedMessage(s, previous, identity) {
    if (s.finish_tick === null || s.finish_tick === undefined) return [el('strong', {}, 'Verified'), ', but the run does not finish, so it is not ranked.'];
    const time = el('span', { class: 'clock' }, s.time);
    if (s.rank !== null && s.rank !== undefined) {
      if (!previous) return [el('strong', {}, 'Verified. '), 'Your first time on the board: ', time, ', ', el('strong', { class: 'rank' }, `rank ${s.rank}`), '.'];
      if (previous.run_id === s.id) return [el('strong', {}, 'Verified. '), 'This run already was your best: ', time, ', ', el('strong', { class: 'rank' }, `rank ${s.rank}`), '.'];
      return [el('strong', {}, 'Verified. '), 'New best: ', time, ` (−${seconds(previous.finish_tick - s.finish_tick, rate)}), `,
        el('strong', { class: 'rank' }, `rank ${s.rank}`), previous.rank === s.rank ? ' (unchanged).' : ` (was ${previous.rank}).`];
    }
    const best = previous ?? (await bestOf(s.level, identity.name, signal));
    if (!best) return [el('strong', {}, 'Verified: '), time, ', not ranked.'];
    const behind = s.finish_tick - best.finish_tick;
    return [el('strong', {}, 'Verified: '), time, ` — not your best (your best is ${best.time}, rank ${best.rank}`,
      behind > 0 ? `; this run is ${seconds(behind, rate)} slower)` : ', uploaded earlier)', '.'];
  }

  function drawNext(s, identity) {
    replace(next, link(`#/run/${s.id}`, 'See the run'), ' · ',
      link(`#/level/${segment(s.level)}?around=${encodeURIComponent(identity.name)}`, 'See the board'),
      s.status === 'verified' ? [' · ', link(`#/play/${segment(s.level)}?ghosts=${s.id}`, 'Race this run as a ghost')] : null);
  }

  uploadButton.addEventListener('click', () => upload());
  retryButton.addEventListener('click', () => upload());
  saveButton.addEventListener('click', download);
  autoBox.addEventListener('change', () => {
    localStorage.setItem(AUTO_UPLOAD_KEY, String(autoBox.checked));
    if (autoBox.checked && hook.state === 'ready' && getIdentity()) upload();
  });
  const onIdentity = () => { if (!busy) drawWho(); };
  window.addEventListener('pogo-identity', onIdentity);
  view.cleanup?.(() => window.removeEventListener('pogo-identity', onIdentity));

  replace(container, panel);
  replace(panel,
    el('div', { class: 'finish-head' },
      el('span', { class: 'finish-label' }, 'Finished'),
      el('span', { class: 'finish-time clock' }, tickClock(run.finishTick, rate)),
      el('span', { class: 'muted small' }, `${run.level} · finish tick ${run.finishTick}`)),
    who,
    el('div', { class: 'finish-actions' }, uploadButton, retryButton,
      el('label', { class: 'finish-auto' }, autoBox, ' upload automatically')),
    steps, status, realtimeLine, fix, compare, next,
    el('p', { class: 'finish-foot small muted' }, foot, saveButton));
  drawWho();
  show('ready', getIdentity() ? 'Upload it to be verified and ranked.' : '');
  drawCompare();
  drawRealtime();
  if (start && getIdentity()) upload();
  return hook;
}

/** A run's retry-worthy failures: the network, 429, 5xx. */
function retryable(err) {
  return err.status === 0 || err.status === 429 || err.status >= 500;
}

/** A failure the panel retries, for a human. */
function why(err) {
  if (err.status === 0) return 'The server cannot be reached.';
  if (err.status === 429) return 'Too many uploads just now (429).';
  if (err.status === 503) return `The server is busy (503: ${err.message}).`;
  return `The server answered ${err.status} (${err.message}).`;
}

/** `ticks` as seconds, `1.250 s`. */
function seconds(ticks, rate) {
  const ms = millis(Math.abs(ticks), rate);
  return `${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')} s`;
}

/** The player's entry on the level's board (`{rank, run_id, finish_tick, time, …}`), or null. */
async function bestOf(level, name, signal) {
  try {
    const board = await getJson(`/api/levels/${segment(level)}/leaderboard?around=${encodeURIComponent(name)}&limit=1`, { signal });
    return board.entries.find((e) => e.player.toLowerCase() === name.toLowerCase()) ?? null;
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    return null; // not ranked yet, unknown, or the board cannot be read: no comparison
  }
}
