// Speed of the wasm core and of the play view, measured (a benchmark, not a test: `npm test`
// does not run it). Run by hand, here, after the builds the browser tests need:
//
//   cargo build --workspace --bins --examples
//   bash scripts/build-wasm.sh
//   POGO_PROFILE=debug node bench.mjs [--level sprawl] [--view-level course,sprawl]
//                                     [--viewport 1280x800,640x400] [--no-native] [--wide]
//
// (POGO_PROFILE picks the pogo-server and CLI builds, as for the tests; the wasm module is
// the wasm-release build, or with --wide, for (a), the build with wide arithmetic,
// pogo_ffi_wide.wasm, in a Chromium started with `--js-flags=--wasm-wide-arithmetic`. About
// 1.5 minutes, plus criterion's own build the first time.)
//
// What it prints (PERFORMANCE.md, "The wasm core and the play view", has the figures):
//   (a) the wasm core's ticks per millisecond in headless Chromium on `sprawl` (page of the
//       real pogo-server importing /web/pogo.mjs and /web/pogo_ffi.wasm as the play view does):
//       1 pogo; one 9-pogo simulation; 1 + 8 one-pogo simulations stepped side by side; and
//       the play view's own per-tick work (the player through the frame driver and recorder,
//       its state read back, 8 ghosts stepped from their inputs; and again with the ghosts
//       stepped as play/ghosts.js does — Simulation.stepMany, one tick a call, where pogo.mjs
//       has it, else a step and a state read); a ghost's set-up (its splits pass over the
//       whole run, per tick); one pogo's whole run in one stepMany call. Inputs: the demo bot's run
//       recorded once before timing (until the finish), ghosts the bot after 15·k idle ticks.
//       Each batch is one pass over the whole run (10 501 ticks on sprawl; five passes for one
//       pogo: Chromium's clock steps by 0.1 ms); the median of 11 batches, after one untimed
//       batch, is printed;
//   (b) the native tick in the same sitting: `cargo bench --bench tick -- tick/fixed/sprawl`
//       (criterion; the same bot run), its median;
//   (c) the simulation's share of a 60 Hz frame: the play view's per-tick work (1 + 8);
//   (d) frame times of the 3D view with 8 ghosts (WebGL through SwiftShader: software
//       rendering on the CPU) after ~10 s of real-clock play: `__pogo.play.frameTimes()` (the
//       frame's own work: advance, draw, render calls) and the intervals between animation
//       frames, median and p99, at each viewport (SwiftShader's cost grows with the pixels:
//       the smaller one shows how much of the frame is the drawing). The 8 ghosts are runs
//       recorded here with the wasm core in Node (the bot after 30·k idle ticks), registered
//       as 8 players and uploaded through the API; the view fetches them with `?ghosts=`.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO, WASM, api, openBrowser, requireFile, startServer } from './support.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const LEVEL = option('--level', 'sprawl');
const VIEW_LEVELS = option('--view-level', 'course,sprawl').split(',').filter(Boolean);
const NATIVE = !args.includes('--no-native');
/** (a) with the module built with wide arithmetic (core/src/wide.rs), in a Chromium that has it. */
const WIDE = args.includes('--wide');
const MODULE_FILE = WIDE ? 'pogo_ffi_wide.wasm' : 'pogo_ffi.wasm';
const MODULE = join(dirname(WASM), MODULE_FILE);
/** Timed passes over the whole run (each a batch: Chromium's clock has a 0.1 ms step without
 * cross-origin isolation, so a batch must take milliseconds; 600 ticks of one pogo do not). */
const BATCHES = 11;
const VIEW_SECONDS = 10;
const VIEWPORTS = option('--viewport', '1280x800,640x400').split(',').filter(Boolean)
  .map((v) => { const [width, height] = v.split('x').map(Number); return { width, height }; });

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};
const f = (x, d = 2) => x.toFixed(d);

/** (a) in the page: the wasm core's ticks per ms on `level`. */
async function wasmTicks(page, level) {
  return page.evaluate(async ({ level, BATCHES, MODULE_FILE }) => {
    const { load, hex, Event } = await import('/web/pogo.mjs');
    const pogo = await load(fetch(`/web/${MODULE_FILE}`));
    const lv = pogo.level(level);
    const tuning = pogo.tuning();
    const rate = tuning.tickRate;
    const GHOSTS = 8;
    const MAX = 20_000;

    // The bot's run, recorded before timing: `idle` neutral ticks, then the bot to the finish.
    const record = (idle) => {
      const sim = pogo.simulation({ level: lv, tuning, players: 1 });
      const bot = pogo.bot();
      const inputs = [];
      while (inputs.length < MAX) {
        const input = inputs.length < idle ? { steerX: 0, steerZ: 0, buttons: 0 } : bot.input(sim, 0);
        sim.step([input]);
        inputs.push(input);
        if (sim.player(0).finished) break;
      }
      const out = { inputs, hash: hex(sim.stateHash()), ticks: sim.tick };
      bot.free();
      sim.free();
      return out;
    };
    const run = record(0);
    const ghosts = Array.from({ length: GHOSTS }, (_, k) => record(15 * (k + 1)));
    const input = (g, k) => g.inputs[Math.min(k, g.inputs.length - 1)]; // a finished ghost idles
    const neutral = { steerX: 0, steerZ: 0, buttons: 0 };

    /** Times `stepTick(k)` for k over the whole run, `runs` times a batch (`reset()`, untimed,
     * before each run): one batch untimed (the JIT's warm-up), then BATCHES. Returns the
     * batches' ms per tick. */
    const timeBatches = (reset, stepTick, runs = 1) => {
      const batches = [];
      for (let batch = 0; batch <= BATCHES; batch++) {
        let ms = 0;
        for (let r = 0; r < runs; r++) {
          reset();
          const t0 = performance.now();
          for (let k = 0; k < run.inputs.length; k++) stepTick(k);
          ms += performance.now() - t0;
        }
        if (batch > 0) batches.push(ms / (runs * run.inputs.length));
      }
      return { medianMsPerTick: median(batches), minMsPerTick: Math.min(...batches), maxMsPerTick: Math.max(...batches), batches: batches.length, ticksPerBatch: runs * run.inputs.length };
    };
    const median = (xs) => {
      const s = [...xs].sort((a, b) => a - b);
      return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    };
    const out = { level, rate, runTicks: run.ticks, runHash: run.hash, ghostTicks: ghosts.map((g) => g.ticks) };

    // 1 pogo.
    let sim = null;
    const one = [null];
    out.one = timeBatches(() => { sim?.free(); sim = pogo.simulation({ level: lv, tuning, players: 1 }); }, (k) => {
      one[0] = run.inputs[k];
      sim.step(one);
    }, 5); // a run of one pogo takes ~3.5 ms: five a batch, for the clock's 0.1 ms step
    sim.free();
    sim = null;

    // One simulation of 9 pogos: the bot's run and the 8 ghosts' inputs.
    const nine = new Array(GHOSTS + 1);
    out.nine = timeBatches(() => { sim?.free(); sim = pogo.simulation({ level: lv, tuning, players: GHOSTS + 1 }); }, (k) => {
      nine[0] = run.inputs[k];
      for (let g = 0; g < GHOSTS; g++) nine[g + 1] = input(ghosts[g], k);
      sim.step(nine);
    });
    sim.free();
    sim = null;

    // 1 + 8 one-pogo simulations, stepped side by side.
    let sims = [];
    const single = [null];
    out.onePlusEight = timeBatches(() => {
      sims.forEach((s) => s.free());
      sims = Array.from({ length: GHOSTS + 1 }, () => pogo.simulation({ level: lv, tuning, players: 1 }));
    }, (k) => {
      single[0] = run.inputs[k];
      sims[0].step(single);
      for (let g = 0; g < GHOSTS; g++) {
        single[0] = input(ghosts[g], k);
        sims[g + 1].step(single);
      }
    });

    // The play view's work per tick (play.js advance/afterTick, Ghost.stepOnce): the player's
    // tick through the frame driver and the recorder (an event pushed when the input
    // changes), its state read back, each ghost stepped with its replay's input, from a
    // typed array as the ghosts' inputs are kept.
    const ghostRows = ghosts.map((g) => {
      const row = new Int16Array(3 * MAX);
      g.inputs.forEach((i, k) => { row[3 * k] = i.steerX; row[3 * k + 1] = i.steerZ; row[3 * k + 2] = i.buttons; });
      return row;
    });
    let driver = null;
    let recorder = null;
    let last = null;
    const ghostInput = [{ ...neutral }];
    // The play view's fresh start (the player's simulation with its driver and recorder, and
    // one simulation a ghost) and its player's tick, as `play/` runs them: the same in both
    // rows below, which differ only in how the ghosts are stepped.
    const freshPlayView = () => {
      for (const o of [recorder, driver]) o?.free();
      sims.forEach((s) => s.free());
      sims = Array.from({ length: GHOSTS + 1 }, () => pogo.simulation({ level: lv, tuning, players: 1 }));
      driver = pogo.driver({ tickRate: rate, players: 1 });
      recorder = pogo.recorder({ sim: sims[0], playerName: 'bench', date: '' });
      last = null;
    };
    const playerTick = (k) => {
      const i = run.inputs[k];
      const tickStart = (BigInt(k) * 1_000_000_000n) / BigInt(rate);
      if (!last || i.steerX !== last.steerX || i.steerZ !== last.steerZ || i.buttons !== last.buttons) {
        driver.pushEvent(tickStart, 0, i);
        last = i;
      }
      const tickEnd = (BigInt(k + 1) * 1_000_000_000n + BigInt(rate) - 1n) / BigInt(rate);
      driver.advance(sims[0], recorder, tickEnd);
      sims[0].player(0);
    };
    out.playView = timeBatches(freshPlayView, (k) => {
      playerTick(k);
      for (let g = 0; g < GHOSTS; g++) {
        const row = ghostRows[g];
        const t = Math.min(k, ghosts[g].ticks - 1);
        ghostInput[0].steerX = row[3 * t];
        ghostInput[0].steerZ = row[3 * t + 1];
        ghostInput[0].buttons = row[3 * t + 2] & 0xff;
        sims[g + 1].step(ghostInput);
      }
    });
    out.playViewHash = hex(sims[0].stateHash());

    // The same, with the ghosts stepped as `play/ghosts.js` steps them: with stepMany (one
    // tick a call from the ghost's inputs kept in the module's memory, its events from the
    // call), or, with a pogo.mjs before stepMany, `step` and the ghost's state read back for
    // its events, as ghosts.js did then.
    const batched = typeof sims[0].stepMany === 'function';
    out.batched = batched;
    const blocks = batched ? ghostRows.map((row, g) => pogo.inputs(new Int8Array(row.subarray(0, 3 * ghosts[g].ticks)))) : [];
    out.playViewGhosts = timeBatches(freshPlayView, (k) => {
      playerTick(k);
      let events = 0;
      for (let g = 0; g < GHOSTS; g++) {
        if (k >= ghosts[g].ticks) continue; // a ghost stops at its replay's end, as in the page
        if (batched) {
          sims[g + 1].stepMany(blocks[g], { first: k, ticks: 1 });
          events |= sims[g + 1].events[0];
        } else {
          const row = ghostRows[g];
          ghostInput[0].steerX = row[3 * k];
          ghostInput[0].steerZ = row[3 * k + 1];
          ghostInput[0].buttons = row[3 * k + 2] & 0xff;
          sims[g + 1].step(ghostInput);
          events |= sims[g + 1].player(0).events;
        }
      }
      out.sink = events;
    });

    // A ghost's set-up in `play/ghosts.js`: one pass over its whole run for its splits (the
    // tick of each checkpoint) — with stepMany, calls that stop at each checkpoint; before
    // it, a step and a state read a tick. Per tick of the run.
    const runRow = ghostRows[0].subarray(0, 3 * ghosts[0].ticks);
    const runBlock = batched ? pogo.inputs(new Int8Array(runRow)) : null;
    let setupSplits = 0;
    const setup = [];
    for (let batch = 0; batch <= BATCHES; batch++) {
      let ms = 0;
      for (let r = 0; r < 5; r++) {
        const ghost = pogo.simulation({ level: lv, tuning, players: 1 });
        const splits = new Map();
        const t0 = performance.now();
        if (batched) {
          for (let at = 0; at < ghosts[0].ticks;) {
            at += ghost.stepMany(runBlock, { first: at, stopEvents: Event.CHECKPOINT });
            if (!(ghost.events[0] & Event.CHECKPOINT)) continue;
            const state = ghost.player(0);
            if (state.checkpoint !== null && !splits.has(state.checkpoint)) splits.set(state.checkpoint, at - 1);
          }
        } else {
          for (let t = 0; t < ghosts[0].ticks; t++) {
            ghostInput[0].steerX = runRow[3 * t];
            ghostInput[0].steerZ = runRow[3 * t + 1];
            ghostInput[0].buttons = runRow[3 * t + 2] & 0xff;
            ghost.step(ghostInput);
            const state = ghost.player(0);
            if (state.events & Event.CHECKPOINT && state.checkpoint !== null && !splits.has(state.checkpoint)) splits.set(state.checkpoint, t);
          }
        }
        ms += performance.now() - t0;
        setupSplits = splits.size;
        ghost.free();
      }
      if (batch > 0) setup.push(ms / (5 * ghosts[0].ticks));
    }
    out.ghostSetup = { medianMsPerTick: median(setup), minMsPerTick: Math.min(...setup), maxMsPerTick: Math.max(...setup), splits: setupSplits };

    // 1 pogo, the whole run in one stepMany call from an Inputs block (five runs a batch).
    if (batched) {
      const block = pogo.inputs(new Int8Array(run.inputs.flatMap((i) => [i.steerX, i.steerZ, i.buttons])));
      const many = [];
      let manyHash = null;
      for (let batch = 0; batch <= BATCHES; batch++) {
        let ms = 0;
        for (let r = 0; r < 5; r++) {
          const one = pogo.simulation({ level: lv, tuning, players: 1 });
          const t0 = performance.now();
          one.stepMany(block);
          ms += performance.now() - t0;
          manyHash = hex(one.stateHash());
          one.free();
        }
        if (batch > 0) many.push(ms / (5 * run.inputs.length));
      }
      block.free();
      out.oneMany = { medianMsPerTick: median(many), minMsPerTick: Math.min(...many), maxMsPerTick: Math.max(...many), hash: manyHash };
    }
    for (const b of [...blocks, runBlock]) b?.free();
    for (const o of [recorder, driver]) o?.free();
    sims.forEach((s) => s.free());
    lv.free();
    tuning.free();
    out.userAgent = navigator.userAgent;
    out.timerResolutionMs = (() => {
      let a = performance.now();
      let b;
      let min = Infinity;
      for (let n = 0; n < 20; n++) {
        while ((b = performance.now()) === a);
        min = Math.min(min, b - a);
        a = b;
      }
      return min;
    })();
    return out;
  }, { level, BATCHES, MODULE_FILE });
}

/** (b) criterion's tick/fixed/LEVEL: the median ns per tick. */
function nativeTick(level) {
  const started = Date.now();
  const out = execFileSync('cargo', ['bench', '--locked', '--bench', 'tick', '--', `tick/fixed/${level}`,
    '--warm-up-time', '1', '--measurement-time', '3'], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 16 << 20 });
  const line = out.split('\n').findIndex((l) => l.startsWith(`tick/fixed/${level}`));
  const text = out.split('\n').slice(line, line + 3).join(' ').replace(/\s*change:.*$/, '').replace(/Found \d+ outliers.*$/, '');
  const m = text.match(/time:\s+\[([\d.]+) (\w+) ([\d.]+) (\w+) ([\d.]+) (\w+)\]/);
  if (!m) throw new Error(`no criterion figure in:\n${out}`);
  const scale = { ps: 1e-3, ns: 1, 'µs': 1e3, us: 1e3, ms: 1e6 };
  return { nsPerTick: Number(m[3]) * scale[m[4]], line: text.replace(/\s+/g, ' ').trim(), seconds: (Date.now() - started) / 1000 };
}

/** 8 runs on `level` recorded with the wasm core in Node: the bot after 30·k idle ticks. */
async function recordGhosts(level) {
  const { load } = await import(pathToFileURL(join(REPO, 'ffi/js/pogo.mjs')).href);
  const pogo = await load(readFileSync(WASM));
  const lv = pogo.level(level);
  const tuning = pogo.tuning();
  const runs = [];
  for (let k = 0; k < 8; k++) {
    const name = `${level} ghost ${String.fromCharCode(97 + k)}`;
    const sim = pogo.simulation({ level: lv, tuning, players: 1 });
    const bot = pogo.bot();
    const recorder = pogo.recorder({ sim, playerName: name, date: '' });
    while (sim.tick < 20_000) {
      const input = sim.tick < 30 * k ? { steerX: 0, steerZ: 0, buttons: 0 } : bot.input(sim, 0);
      sim.step([input]);
      recorder.record();
      if (sim.player(0).finished) break;
    }
    recorder.finish();
    runs.push({ name, bytes: recorder.bytes(), ticks: sim.tick });
    for (const o of [recorder, bot, sim]) o.free();
  }
  lv.free();
  tuning.free();
  return runs;
}

/** (d) the 3D view with 8 ghosts, real clock, ~VIEW_SECONDS s of racing. */
async function viewFrames(context, base, level, ids) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${base}/#/play/${level}?leader=no&live=off&ghosts=${ids.join(',')}`);
  await page.waitForFunction(() => document.getElementById('main')?.dataset.playState === 'ready', null, { timeout: 120_000 });
  const ghosts = await page.evaluate(() => window.__pogo.play.ghosts());
  const refused = ghosts.filter((g) => g.refused);
  if (ghosts.length !== 8 || refused.length) throw new Error(`ghosts: ${JSON.stringify(ghosts)}`);
  const gl = await page.evaluate(() => {
    const gl = document.createElement('canvas').getContext('webgl2');
    const info = gl?.getExtension('WEBGL_debug_renderer_info');
    return info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl ? gl.getParameter(gl.RENDERER) : null;
  });
  // The intervals between animation frames, beside the page's own frame times.
  await page.evaluate(() => {
    window.__benchFrames = [];
    const tick = (ms) => { window.__benchFrames.push(ms); requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  });
  await page.evaluate(() => window.__pogo.play.start());
  await page.waitForFunction(() => window.__pogo.play.state === 'racing', null, { timeout: 10_000 });
  const before = await page.evaluate(() => { window.__benchFrames.length = 0; return window.__pogo.play.frameTimes().length; });
  // Steer a little: forward, then forward-right.
  await page.keyboard.down('KeyW');
  await page.waitForTimeout((VIEW_SECONDS * 1000) / 2);
  await page.keyboard.down('KeyD');
  await page.waitForTimeout((VIEW_SECONDS * 1000) / 2);
  const got = await page.evaluate((before) => ({
    // The page keeps its last 600 frames: the countdown's are left out when fewer were drawn.
    frameTimes: (({ length }, all) => (length < 600 ? all.slice(before) : all))(window.__pogo.play.frameTimes(), window.__pogo.play.frameTimes()), stamps: window.__benchFrames, tick: window.__pogo.play.tick(),
    ghostTicks: window.__pogo.play.ghosts().map((g) => g.tick), size: [innerWidth, innerHeight],
    canvas: [document.querySelector('canvas.play-canvas').width, document.querySelector('canvas.play-canvas').height],
  }), before);
  await page.keyboard.up('KeyD');
  await page.keyboard.up('KeyW');
  await page.close();
  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  const intervals = got.stamps.slice(1).map((t, i) => t - got.stamps[i]);
  return { level, renderer: gl, ...got, intervals, stamps: undefined };
}

async function main() {
  requireFile(MODULE, 'bash scripts/build-wasm.sh');
  const cpu = (readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/) ?? [])[1];
  console.log(`machine: ${cpus().length} cores (nproc ${execFileSync('nproc', { encoding: 'utf8' }).trim()}), ${cpu}; ${new Date().toISOString()}`);
  console.log(`load average: ${loadavg().map((x) => x.toFixed(2)).join(' ')} (1, 5, 15 min)`);
  console.log(`commit: ${execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim()}`);
  const raw = readFileSync(MODULE);
  const gz = execFileSync('gzip', ['-9', '-c', MODULE], { maxBuffer: 64 << 20 });
  console.log(`wasm module ${MODULE_FILE}: ${raw.length} bytes raw, ${gz.length} bytes gzip -9 (${f(gz.length / 1024, 1)} KiB)`);

  const server = await startServer();
  const client = api(server.base);
  const served = await fetch(`${server.base}/web/${MODULE_FILE}`, { headers: { 'accept-encoding': 'gzip' } });
  await served.arrayBuffer();
  console.log(`as pogo-server serves it: ${served.headers.get('content-length')} bytes, Content-Encoding ${served.headers.get('content-encoding')}`);
  let context;
  try {
    // (a) the wasm core in headless Chromium (no GPU needed for this part).
    context = await openBrowser({ width: 1280, height: 800 }, { args: WIDE ? ['--js-flags=--wasm-wide-arithmetic'] : [] });
    const page = await context.newPage();
    await page.goto(`${server.base}/`);
    const a = await wasmTicks(page, LEVEL);
    await context.close();
    context = null;
    const cli = execFileSync(join(REPO, 'target', process.env.POGO_PROFILE ?? 'release', 'pogo'),
      ['simulate', '--level', LEVEL, '--bot', '--ticks', '20000'], { encoding: 'utf8' }).trim();
    console.log(`\n(a) wasm (${MODULE_FILE}) in ${a.userAgent.match(/Chrome\/[\d.]+/)?.[0] ?? a.userAgent}, ${LEVEL}: the bot's run ${a.runTicks} ticks, hash ${a.runHash} (CLI: ${cli}); timer step ${a.timerResolutionMs} ms`);
    console.log(`    ghosts' runs: ${a.ghostTicks.join(', ')} ticks; ${BATCHES} batches after one untimed, each the whole run (${a.nine.ticksPerBatch} ticks; 1 pogo: the run five times)`);
    const row = (label, r, pogos) => console.log(`    ${label.padEnd(48)} ${f(1 / r.medianMsPerTick, 1).padStart(7)} ticks/ms (median batch ${f(r.medianMsPerTick * 1000, 3)} µs/tick, range ${f(r.minMsPerTick * 1000, 3)}–${f(r.maxMsPerTick * 1000, 3)})${pogos > 1 ? `; ${f(r.medianMsPerTick * 1000 / pogos, 3)} µs per pogo` : ''}`);
    row('1 pogo', a.one, 1);
    row('one simulation of 9 pogos', a.nine, 9);
    row('1 + 8 one-pogo simulations', a.onePlusEight, 9);
    row('the play view\'s tick (1 + 8, driver)', a.playView, 9);
    row(`  ghosts as ghosts.js steps them (${a.batched ? 'stepMany' : 'step + state'})`, a.playViewGhosts, 9);
    row(`a ghost's splits pass (${a.batched ? 'stepMany' : 'step + state'})`, a.ghostSetup, 1);
    if (a.oneMany) {
      row('1 pogo, the run in one stepMany call', a.oneMany, 1);
      if (a.oneMany.hash !== a.runHash) throw new Error(`stepMany ended on ${a.oneMany.hash}, the run on ${a.runHash}`);
    } else {
      console.log('    1 pogo, the run in one stepMany call:  (this pogo.mjs has no stepMany)');
    }

    // (b) the native tick, same sitting.
    let native = null;
    if (NATIVE) {
      native = nativeTick(LEVEL);
      console.log(`\n(b) native (criterion, release): ${native.line}`);
      console.log(`    ${f(1e6 / native.nsPerTick, 1)} ticks/ms; wasm (1 pogo) takes ${f((a.one.medianMsPerTick * 1e6) / native.nsPerTick, 2)}x the native time`);
    }

    // (c) the simulation's share of a 60 Hz frame.
    const share = a.playView.medianMsPerTick;
    console.log(`\n(c) simulation per 60 Hz frame (1 player tick + 8 ghost ticks, as the play view runs them): ${f(share, 4)} ms (median batch; the slowest batch ${f(a.playView.maxMsPerTick, 4)} ms) of 16.7 ms: ${share < 1 ? 'under' : 'OVER'} 1 ms`);

    // (d) the 3D view with 8 ghosts.
    for (const level of VIEW_LEVELS) {
      const runs = await recordGhosts(level);
      const ids = [];
      for (const run of runs) {
        const token = await client.register(run.name);
        const { status, body } = await client.upload(token, run.bytes);
        if (status !== 202) throw new Error(`upload ${run.name}: ${status} ${JSON.stringify(body)}`);
        const verdict = await client.verdict(body.id);
        if (verdict.status !== 'verified') throw new Error(`${run.name}: ${JSON.stringify(verdict)}`);
        ids.push(body.id);
      }
      for (const viewport of VIEWPORTS) {
        context = await openBrowser(viewport, { webgl: true });
        const d = await viewFrames(context, server.base, level, ids);
        await context.close();
        context = null;
        console.log(`\n(d) load ${loadavg()[0].toFixed(2)}; the 3D view of ${level}, 8 ghosts (runs ${runs.map((r) => r.ticks).join(', ')} ticks), ${d.size.join('×')} viewport, canvas ${d.canvas.join('×')}, ${d.renderer}:`);
        console.log(`    after ${VIEW_SECONDS} s of racing (tick ${d.tick}; ghosts at ${[...new Set(d.ghostTicks)].join(', ')}):`);
        console.log(`    frame work (frameTimes, last ${d.frameTimes.length}): median ${f(median(d.frameTimes))} ms, p99 ${f(quantile(d.frameTimes, 0.99))} ms, max ${f(Math.max(...d.frameTimes))} ms`);
        console.log(`    interval between animation frames (${d.intervals.length}): median ${f(median(d.intervals))} ms, p99 ${f(quantile(d.intervals, 0.99))} ms → ${f(1000 / median(d.intervals), 1)} fps`);
      }
    }
  } finally {
    await context?.close();
    await server.stop();
  }
}

await main();
