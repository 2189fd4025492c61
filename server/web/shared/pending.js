// The finished runs this browser keeps because the server does not have them yet, in
// localStorage (`pogo.pending`, a JSON list, oldest first), bounded in count and size: a run
// is kept from the moment its finish panel shows it until the server has it or refuses it
// for good (shared/submission.js decides which). Each entry: `{key, level, bytes (base64),
// browserHash, finishTick, tickRate, playerName, savedAt, ticket}`; `key` is
// `level:browserHash`, so a run is kept once however often its panel opens.
//
// A change is announced with a `pogo-pending` window event (after the current task), which
// the pending list (shared/pending-list.js) redraws on.

/** localStorage: the runs not yet on the server (a JSON list, oldest first). */
export const PENDING_KEY = 'pogo.pending';
/** localStorage: "upload automatically" ('true' / 'false'). */
export const AUTO_UPLOAD_KEY = 'pogo.autoUpload';
/** At most this many runs are kept, and at most this many characters of JSON (2 MiB). */
export const PENDING_RUNS_MAX = 20;
export const PENDING_CHARS_MAX = 2 * 1024 * 1024;

/** Bytes as base64: how a kept run's replay is stored. */
export function toBase64(bytes) {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/** Base64 back to bytes. */
export function fromBase64(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A kept run's key. */
export const pendingKey = (level, browserHash) => `${level}:${browserHash}`;

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
export function keepPending(run) {
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

/** Forgets the run kept under `key`. */
export function dropPending(key) {
  writePending(readPending().filter((e) => e.key !== key));
}

/** Whether finished runs upload without a click (the panel's checkbox). */
export function autoUpload() {
  return localStorage.getItem(AUTO_UPLOAD_KEY) === 'true';
}

/** Whether a run is kept under `key`. */
export function isPending(key) {
  return readPending().some((e) => e.key === key);
}

/** Remembers the "upload automatically" choice. */
export function setAutoUpload(on) {
  localStorage.setItem(AUTO_UPLOAD_KEY, String(on));
}
