// The page's one instance of the simulation core: pogo-ffi compiled to wasm32, the very code
// the server verifies with, through its one binding (ffi/js/pogo.mjs, served at
// /web/pogo.mjs). Loaded once, on first use, and cached for every view of the page.
//
// The server serves the module at /web/pogo_ffi.wasm when it was built; when it was not it
// answers 404 `{"error":"wasm_missing","message":"…how to build it…"}`, which becomes a
// `CoreMissing` carrying that message, so a view can say how to build it instead of breaking.
// Where the browser has the wide-arithmetic proposal's instructions (Firefox 155 on; Chromium
// 156 behind a flag), the page loads /web/pogo_ffi_wide.wasm instead: the same core, whose
// 64 × 64 → 128-bit products are one instruction each rather than four (core/src/wide.rs), the
// same bits, a third faster. Not built, or not loadable, the other module serves.
// The core's default tuning and rules version must be the server's (`GET /api/levels` says
// which it runs): a page simulating under other rules would record runs the server refuses,
// so a difference is a `CoreMismatch`, not a silent failure at upload time.

import { getJson } from './api.js';

/** Where the server serves the module, and its build with wide arithmetic. */
const WASM_URL = '/web/pogo_ffi.wasm';
const WASM_WIDE_URL = '/web/pogo_ffi_wide.wasm';

/** The smallest module using `i64.mul_wide_s` (opcode 0xfc 21): `(func (param i64 i64)
 * (result i64 i64) local.get 0 local.get 1 i64.mul_wide_s)`. Valid only where the browser has
 * the wide-arithmetic proposal. */
const WIDE_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // \0asm, version 1
  0x01, 0x08, 0x01, 0x60, 0x02, 0x7e, 0x7e, 0x02, 0x7e, 0x7e, // type: [i64 i64] -> [i64 i64]
  0x03, 0x02, 0x01, 0x00, // one function of that type
  0x0a, 0x0a, 0x01, 0x08, 0x00, 0x20, 0x00, 0x20, 0x01, 0xfc, 0x15, 0x0b, // its code
]);

/** Whether this browser has the wide-arithmetic instructions (`i64.mul_wide_s` and kin). */
export function hasWideArithmetic() {
  try {
    return WebAssembly.validate(WIDE_PROBE);
  } catch {
    return false;
  }
}

/** The module is not built (or not served): `message` is the server's, how to build it. */
export class CoreMissing extends Error {
  constructor(message) {
    super(message);
    this.name = 'CoreMissing';
  }
}

/** The core runs other rules or another tuning than the server. */
export class CoreMismatch extends Error {
  constructor(message) {
    super(message);
    this.name = 'CoreMismatch';
  }
}

/** A u64 (BigInt) as 16 lowercase hex digits, as the server prints hashes. */
export function hex64(value) {
  return BigInt.asUintN(64, BigInt(value)).toString(16).padStart(16, '0');
}

let cached = null;

/**
 * `{ pogo, tuning, build }`: the loaded module (pogo.mjs's `Pogo`), its default tuning (a
 * `Tuning` object, never freed: it lives as long as the page) and which build it is (`'wide'`
 * or `'plain'`). The first call loads; every later call shares that load. `signal` abandons
 * this caller's wait, not the load itself (another view may want it); a failed load is
 * forgotten, so the next call tries again.
 */
export function loadCore(signal) {
  if (!cached) {
    cached = instantiate();
    cached.catch(() => { cached = null; });
  }
  return abortable(cached, signal);
}

async function instantiate() {
  // The module is fetched while the binding is imported.
  const [{ load }, wide] = await Promise.all([
    importBinding(),
    hasWideArithmetic() ? fetch(WASM_WIDE_URL).catch(() => null) : null,
  ]);
  const { pogo, build } = (await loadWide(load, wide)) ?? await loadPlain(load);
  const tuning = pogo.tuning();
  const levels = await getJson('/api/levels');
  if (levels.length > 0) checkCore({ pogo, tuning }, levels[0]);
  return { pogo, tuning, build };
}

/** The module with wide arithmetic from `response`, or `null` where there is none (not asked
 * for, not built, not fetched) or it does not load: the plain one then serves. */
async function loadWide(load, response) {
  if (!response?.ok) return null;
  try {
    return { pogo: await load(response), build: 'wide' };
  } catch {
    return null;
  }
}

async function loadPlain(load) {
  const response = await fetchModule();
  if (!response.ok) {
    const body = await response.json().catch(() => null);
    throw new CoreMissing(body?.message
      ?? `The simulation module is not served (${response.status} ${response.statusText}). Build it with `
        + '`bash scripts/build-wasm.sh` and reload.');
  }
  return { pogo: await load(response), build: 'plain' };
}

async function importBinding() {
  try {
    return await import('../pogo.mjs');
  } catch (e) {
    throw new CoreMissing(`The page's binding of the simulation (/web/pogo.mjs) did not load: ${e.message}`);
  }
}

async function fetchModule() {
  try {
    return await fetch(WASM_URL);
  } catch (e) {
    throw new Error(`cannot fetch the simulation module: ${e.message}`);
  }
}

/**
 * Throws a `CoreMismatch` unless the core simulates what `info` (a level summary or a level
 * geometry: `tuning_hash`, `rules_version`) says the server does.
 */
export function checkCore({ pogo, tuning }, info) {
  const rules = pogo.rulesVersion;
  if (info.rules_version !== undefined && info.rules_version !== rules) {
    throw new CoreMismatch(`This page's simulation runs rules version ${rules}, the server rules version ${info.rules_version}: `
      + 'runs recorded here would be refused. Rebuild the wasm module from the server\'s source and reload.');
  }
  const hash = hex64(tuning.hash);
  if (info.tuning_hash !== undefined && info.tuning_hash !== hash) {
    throw new CoreMismatch(`This page's simulation uses tuning ${hash}, the server tuning ${info.tuning_hash} `
      + '(started with --tuning?): runs recorded here would be refused. The page can only race the default tuning.');
  }
}

/** `promise`, or an AbortError as soon as `signal` aborts. */
function abortable(promise, signal) {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new DOMException('aborted', 'AbortError'));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new DOMException('aborted', 'AbortError'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
