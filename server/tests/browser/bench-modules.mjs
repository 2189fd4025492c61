// Two or more builds of the wasm core, timed side by side in one Chromium page (a benchmark,
// not a test: `npm test` does not run it). For a change to the core's wasm speed: the
// browser's clock and load move by 10 % from one run of bench.mjs to the next, and here each
// round times every module in turn, in the same page, in alternating order.
//
//   node bench-modules.mjs [--level sprawl] [--rounds 11] BEFORE.wasm AFTER.wasm [MORE.wasm…]
//
// A module is any build of pogo-ffi for wasm32 (`scripts/build-wasm.sh`'s pogo_ffi.wasm, or
// pogo_ffi_wide.wasm: Chromium is started with `--js-flags=--wasm-wide-arithmetic`, so both
// kinds run). Each is loaded through ffi/js/pogo.mjs, the demo bot's first 10 000 ticks on the
// level are recorded with it (its state hash after them is printed: the modules must agree),
// and then every round times, per module, the median of 7 of: eight simulations each stepped
// through the whole run in one `stepMany` call ("one call"), and four stepped a
// `Simulation.step` a tick ("a call a tick"), per tick. Printed: each module's median over the
// rounds, its fastest round, and every round's "one call". PERFORMANCE.md, "Where the wasm
// tick goes", has the figures. About half a minute for two modules and 11 rounds.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, REPO, requireFile } from './support.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const [, value] = args.splice(i, 2);
  return value;
};
const level = option('--level', 'sprawl');
const rounds = Number(option('--rounds', '11'));
const files = args;
if (files.length < 2 || !Number.isInteger(rounds) || rounds < 1) {
  console.error('usage: node bench-modules.mjs [--level sprawl] [--rounds 11] BEFORE.wasm AFTER.wasm [MORE.wasm…]');
  process.exit(2);
}
requireFile(CHROMIUM, 'apt-get install -y chromium');
const pogoSource = readFileSync(join(REPO, 'ffi', 'js', 'pogo.mjs'), 'utf8');
const modules = files.map((f) => ({ name: f, base64: readFileSync(f).toString('base64') }));

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--js-flags=--wasm-wide-arithmetic'] });
try {
  const page = await browser.newPage();
  const version = browser.version();
  const results = await page.evaluate(async ({ pogoSource, modules, level, rounds }) => {
    const { load } = await import(URL.createObjectURL(new Blob([pogoSource], { type: 'text/javascript' })));
    const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
    const runs = [];
    for (const { name, base64 } of modules) {
      const pogo = await load(Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)));
      const world = pogo.level(level);
      const tuning = pogo.tuning('{}');
      const recording = pogo.simulation({ level: world, tuning, players: 1 });
      const bot = pogo.bot();
      const inputs = [];
      for (let t = 0; t < 10000; t++) {
        const input = bot.input(recording, 0);
        inputs.push(input);
        recording.step([input]);
      }
      const hash = recording.stateHash().toString(16).padStart(16, '0');
      recording.free();
      const bytes = new Int8Array(inputs.length * 3);
      inputs.forEach((i, t) => bytes.set([i.steerX, i.steerZ, i.buttons], 3 * t));
      const block = pogo.inputs(bytes);
      // Per tick, in ns: `count` fresh simulations, each through the whole run.
      const timed = (count, body) => () => {
        const sims = Array.from({ length: count }, () => pogo.simulation({ level: world, tuning, players: 1 }));
        const start = performance.now();
        for (const sim of sims) body(sim);
        const elapsed = performance.now() - start;
        sims.forEach((sim) => sim.free());
        return (elapsed * 1e6) / inputs.length / count;
      };
      const oneCall = timed(8, (sim) => sim.stepMany(block));
      const perTick = timed(4, (sim) => { for (const input of inputs) sim.step([input]); });
      for (let k = 0; k < 10; k++) { oneCall(); perTick(); }
      runs.push({ name, hash, oneCall, perTick, oneCallRounds: [], perTickRounds: [] });
    }
    for (let r = 0; r < rounds; r++) {
      for (const run of r % 2 ? [...runs].reverse() : runs) {
        const a = [];
        const b = [];
        for (let k = 0; k < 7; k++) { a.push(run.oneCall()); b.push(run.perTick()); }
        run.oneCallRounds.push(median(a));
        run.perTickRounds.push(median(b));
      }
    }
    return runs.map((run) => ({
      name: run.name, hash: run.hash,
      oneCall: median(run.oneCallRounds), fastest: Math.min(...run.oneCallRounds),
      perTick: median(run.perTickRounds), rounds: run.oneCallRounds,
    }));
  }, { pogoSource, modules, level, rounds });
  console.log(`Chromium ${version}, ${level}, ${rounds} rounds (ns a tick)`);
  for (const r of results) {
    console.log(`${r.name}: state hash after 10 000 ticks ${r.hash}; one call ${r.oneCall.toFixed(1)} `
      + `(fastest round ${r.fastest.toFixed(1)}), a call a tick ${r.perTick.toFixed(1)}; one call by round: `
      + r.rounds.map((x) => x.toFixed(0)).join(' '));
  }
  if (new Set(results.map((r) => r.hash)).size !== 1) {
    console.error('the modules disagree on the state hash: they are not the same rules');
    process.exitCode = 1;
  }
} finally {
  await browser.close();
}
