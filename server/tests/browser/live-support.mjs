// What the browser tests that race the demo bot share (the live races' above all; the play
// view's and the real-time runs' take its runs and events too): the demo bot's runs on course
// as driver events (the Node core, from the module the server serves), the page driven at
// real speed through `window.__pogo.play` with the manual clock, the page's stream read back
// as an input script, and `pogo simulate` of that script (the CLI is the oracle the page and
// the server are both compared with).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CLI_BIN, REPO, WASM, requireFile } from './support.mjs';

/** The wasm core in Node: {pogo, tuning, hex, Event, formatFixed}. */
export async function nodeCore() {
  requireFile(WASM, 'bash scripts/build-wasm.sh');
  const binding = await import(pathToFileURL(join(REPO, 'ffi/js/pogo.mjs')).href);
  const pogo = await binding.load(readFileSync(WASM));
  return { pogo, tuning: pogo.tuning(), hex: binding.hex, Event: binding.Event, formatFixed: binding.formatFixed };
}

/**
 * The demo bot on `levelName` after `idleTicks` ticks of neutral input (a late start: each
 * racer of a race a different run; `opening(t)`, if given, is the input of each of those
 * ticks instead), to the finish: per-tick inputs and the finish tick.
 */
export function botRun(core, levelName, idleTicks = 0, ticksMax = 7200, opening = null) {
  const { pogo, tuning } = core;
  const level = pogo.level(levelName);
  const sim = pogo.simulation({ level, tuning, players: 1 });
  const bot = pogo.bot();
  const inputs = [];
  let finishTick = null;
  try {
    for (let t = 0; t < ticksMax && finishTick === null; t++) {
      const input = t < idleTicks ? opening?.(t) ?? { steerX: 0, steerZ: 0, buttons: 0 } : bot.input(sim, 0);
      inputs.push(input);
      sim.step([input]);
      if (sim.player(0).finished) finishTick = sim.player(0).finishTick;
    }
  } finally {
    bot.free();
    sim.free();
    level.free();
  }
  return { inputs, finishTick };
}

/** Per-tick inputs as driver events (ns as strings), one per change, at tick k's start. */
export function eventsOf(inputs, rate) {
  const events = [];
  let last = { steerX: 0, steerZ: 0, buttons: 0 };
  inputs.forEach((input, k) => {
    if (input.steerX === last.steerX && input.steerZ === last.steerZ && input.buttons === last.buttons) return;
    events.push([((BigInt(k) * 1_000_000_000n) / BigInt(rate)).toString(), input]);
    last = input;
  });
  return events;
}

/**
 * In the page (manual clock, already racing or counting down): frames every ~`stepMs` ms of
 * wall time at the game time since the page's GO (`performance.now() − t0`), each after the
 * events due by then, until the run is over or `untilTick` ticks have run. `cut`: {tick}
 * drops the room's socket at that tick (the link resumes by itself). `late`: the index of
 * an event pushed late (after its tick ran, as an input that reaches a page after the next
 * frame). Resolves with {tick, state, hash, lagMs, lateFiled, lateAt}.
 */
export function raceLive(page, events, { untilTick = Infinity, cut = null, stepMs = 10, late = null } = {}) {
  return page.evaluate(async ({ events, untilTick, cut, stepMs, late }) => {
    const play = window.__pogo.play;
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
    for (let i = 0; play.state !== 'racing'; i++) {
      if (i > 3000) throw new Error(`never raced: ${play.state}`);
      await sleep(5);
    }
    const t0 = play.clock().t0Ms;
    let e = 0;
    let cutDone = false;
    let lagMs = 0;
    let lateFiled = null;
    while (play.state === 'racing' && play.tick() < untilTick) {
      const wall = performance.now() - t0;
      const ns = BigInt(Math.floor(wall * 1e6));
      // Event `late` waits until its tick and the next have run, then is pushed after the
      // frame: the driver files it at the next tick's start (what the page must send).
      const due = (i) => BigInt(events[i][0]) + (i === late ? 40_000_000n : 0n) <= ns;
      while (e < events.length && e !== late && due(e)) {
        play.input(events[e][0], events[e][1]);
        e++;
      }
      play.frame(ns);
      if (e === late && due(e)) {
        lateFiled = play.input(events[e][0], events[e][1]);
        e++;
      }
      lagMs = performance.now() - t0 - wall;
      if (cut && !cutDone && play.tick() >= cut.tick) {
        cutDone = true;
        play.cut();
      }
      await sleep(stepMs);
    }
    return { tick: play.tick(), state: play.state, hash: play.hash(), lagMs, lateFiled, lateAt: late === null ? null : events[late][0] };
  }, { events, untilTick, cut, stepMs, late });
}

/** The per-tick inputs of a page's stream for `ticks` ticks: tick k takes the latest input
 * filed at or before its start (`at_ns · rate ≤ k · 10⁹`, the driver's rule written out
 * again, without a driver). */
export function ticksOf(sent, rate, ticks) {
  const filed = sent.filter((bytes) => bytes[0] === 0x01).map((bytes) => {
    const b = Buffer.from(bytes);
    return { at: b.readBigUInt64LE(5), input: { steerX: b.readInt8(13), steerZ: b.readInt8(14), buttons: b.readUInt8(15) } };
  });
  const out = [];
  let e = -1;
  for (let k = 0; k < ticks; k++) {
    while (e + 1 < filed.length && filed[e + 1].at * BigInt(rate) <= BigInt(k) * 1_000_000_000n) e++;
    out.push(e < 0 ? { steerX: 0, steerZ: 0, buttons: 0 } : filed[e].input);
  }
  return out;
}

/** The input messages of a page's stream (play.sent(): each message's bytes), as the input
 * script `pogo simulate --inputs` reads: `<at_ns as seconds, 9 decimals>s steer_x steer_z
 * [buttons]` (docs/live.md, "At the finish"). */
export function scriptOf(sent) {
  const lines = [];
  for (const bytes of sent) {
    if (bytes[0] !== 0x01) continue;
    const b = Buffer.from(bytes);
    const at = b.readBigUInt64LE(5);
    const x = b.readInt8(13);
    const z = b.readInt8(14);
    const buttons = b.readUInt8(15);
    const names = [buttons & 1 ? 'trick' : null, buttons & 2 ? 'dive' : null].filter(Boolean).join(',');
    const seconds = `${at / 1_000_000_000n}.${String(at % 1_000_000_000n).padStart(9, '0')}s`;
    lines.push(`${seconds} ${x} ${z}${names ? ` ${names}` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

/** `pogo simulate` of `script` on `levelName`, recorded under `name` and `date`:
 * {hash, finish, bytes} (the SIG line's hash and finish, the replay's bytes). */
export function simulateScript(levelName, script, name, date) {
  requireFile(CLI_BIN, 'cargo build --workspace --bins');
  const dir = mkdtempSync(join(tmpdir(), 'pogo-live-cli-'));
  writeFileSync(join(dir, 'inputs.txt'), script);
  const out = execFileSync(CLI_BIN, ['simulate', '--level', levelName, '--inputs', join(dir, 'inputs.txt'), '--record', join(dir, 'run.pogo'),
    '--player-name', name, '--date', date], { encoding: 'utf8', timeout: 60_000 });
  const sig = Object.fromEntries(out.split('\n').find((l) => l.startsWith('SIG ')).slice(4).split(' ').map((kv) => kv.split('=')));
  return { hash: sig.hash, finish: sig.finish, bytes: readFileSync(join(dir, 'run.pogo')) };
}

/** GO (Unix ms) as the replay header's date: to the second, UTC. */
export const dateOf = (goMs) => `${new Date(goMs).toISOString().slice(0, 19)}Z`;

/** A page of `context` that collects script errors into `errors`; `identity` kept before load. */
export async function livePage(context, errors, identity, label = '') {
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(`${label} page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(`${label} console: ${m.text()}`);
  });
  await page.addInitScript((id) => {
    try {
      if (id) localStorage.setItem('pogo.player', JSON.stringify(id));
      else localStorage.removeItem('pogo.player');
    } catch { /* about:blank has no storage */ }
  }, identity);
  return page;
}
