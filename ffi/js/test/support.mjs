// Shared by the Node tests: where the repository, the .wasm and the `pogo` binary are, the
// golden files, how a PogoError is expected, and the golden runs of tests/golden_hashes.rs
// written against pogo.mjs.
//
//   POGO_WASM  the module (default: target/wasm32-unknown-unknown/wasm-release/pogo_ffi.wasm)
//   POGO_BIN   the pogo binary (default: the newer of target/release/pogo and target/debug/pogo)

import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { PogoError, load, formatFixed, hex } from '../pogo.mjs';

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

/** Player 1 of course-multi: a fixed steering and button pattern. */
function multiPattern(tick) {
  const steer = [[90, 0], [0, -60], [-40, 40], [127, 127]][Math.floor(tick / 45) % 4];
  const m = tick % 97;
  const buttons = m <= 2 ? 1 : m >= 50 && m <= 70 ? 2 : 0;
  return { steerX: steer[0], steerZ: steer[1], buttons };
}

export const GOLDEN_RUNS = [
  { name: 'flat-idle', level: 'flat', players: 1, ticks: 1200 },
  { name: 'course-bot', level: 'course', players: 1, ticks: 4800, bot: true },
  { name: 'course-multi', level: 'course', players: 3, ticks: 1800, bot: true, multi: true },
];

/** Runs a golden run: the lines of tests/golden/hashes.txt it must produce, and the
 * end-of-run values. `record` also records it and returns the replay bytes. */
export function goldenRun(pogo, run, { record = false } = {}) {
  const level = pogo.level(run.level), tuning = pogo.tuning();
  const sim = pogo.simulation({ level, tuning, players: run.players });
  const bot = pogo.bot();
  const recorder = record ? pogo.recorder({ sim }) : null;
  const lines = [];
  for (let tick = 0; tick < run.ticks; tick++) {
    const inputs = Array.from({ length: run.players }, () => ({ steerX: 0, steerZ: 0, buttons: 0 }));
    if (run.bot) inputs[0] = bot.input(sim, 0);
    if (run.multi) inputs[1] = multiPattern(tick);
    sim.step(inputs);
    recorder?.record();
    if ((tick + 1) % 60 === 0) lines.push(`${run.name} t=${tick + 1} ${hex(sim.stateHash())}`);
    let all = true;
    for (let p = 0; p < run.players; p++) all &&= sim.player(p).finished;
    if (all) break;
  }
  const hash = hex(sim.stateHash()), ticks = sim.tick;
  const sigs = [];
  for (let p = 0; p < run.players; p++) {
    const s = sim.player(p);
    const fields = `ticks=${ticks} bounces=${s.bounces} apex=${formatFixed(s.apexRaw, 4)} `
      + `finish=${s.finished ? s.finishTick : 'none'} hash=${hash}`;
    lines.push(`${run.name} end P${p} ${fields}`);
    sigs.push(`SIG ${fields}`);
  }
  let bytes = null;
  if (recorder) {
    recorder.finish();
    bytes = recorder.bytes();
    recorder.free();
  }
  bot.free();
  sim.free();
  tuning.free();
  level.free();
  return { lines, sigs, bytes };
}
