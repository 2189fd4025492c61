// Shared by the Node tests: where the repository, the .wasm and the `pogo` binary are, the
// golden files, how a PogoError is expected, and (from golden-runs.mjs) the golden runs of
// tests/golden_hashes.rs written against pogo.mjs.
//
//   POGO_WASM  the module (default: target/wasm32-unknown-unknown/wasm-release/pogo_ffi.wasm)
//   POGO_BIN   the pogo binary (default: the newer of target/release/pogo and target/debug/pogo)

import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { PogoError, load } from '../pogo.mjs';

export { GOLDEN_RUNS, goldenRun } from './golden-runs.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

export const WASM = process.env.POGO_WASM
  ?? join(ROOT, 'target/wasm32-unknown-unknown/wasm-release/pogo_ffi.wasm');

/** POGO_BIN, else the newer of target/release/pogo and target/debug/pogo. */
export function pogoBin() {
  if (process.env.POGO_BIN) return process.env.POGO_BIN;
  const found = ['release', 'debug']
    .map((profile) => join(ROOT, 'target', profile, 'pogo'))
    .filter((bin) => existsSync(bin))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (found.length === 0) {
    throw new Error('no pogo binary: build it (cargo build -p pogo --bin pogo) or set POGO_BIN');
  }
  return found[0];
}

let module;

/** A fresh instance of the module (compiled once). */
export async function instance() {
  module ??= await WebAssembly.compile(readFileSync(WASM));
  return load(module);
}

export function readRepo(path) {
  return readFileSync(join(ROOT, path), 'utf8');
}

/** The bytes of tests/golden/`file`. */
export function golden(file) {
  return new Uint8Array(readFileSync(join(ROOT, 'tests/golden', file)));
}

/** Asserts that `body` throws a PogoError of `status`, its message matching `pattern` (if
 * given). */
export function expectError(status, body, pattern) {
  assert.throws(body, (e) => {
    assert.ok(e instanceof PogoError, String(e));
    assert.equal(e.status, status, e.message);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

