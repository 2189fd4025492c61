// The frame-rate test, in real browsers: one timestamped input script
// (framerate-script.txt) played through the play view's manual clock with the page's frames at
// 30, 60 and 144 Hz and at seeded random intervals must give byte-identical replays, whose
// final state hash is `pogo simulate --inputs` of the same script, and whose bytes are the
// CLI's own recording of it (`--record`). Chromium (V8) first — without the 3D view at every
// rate, then with WebGL (SwiftShader) at 60 Hz; then Debian's Firefox ESR (SpiderMonkey),
// driven over WebDriver BiDi by puppeteer-core, must give the very same bytes.
//
// How the page is driven (the frame driver's contract): before each frame at run time `now`
// every event of the script up to `now` is pushed with `__pogo.play.input(ns, input)`, then
// `__pogo.play.frame(now)`; one pass pushes the whole script up front instead, which the driver
// allows. The frames end exactly at the script's end (20 s: 1200 ticks at 60 Hz), where
// `__pogo.play.stop()` ends the run and the recorder finishes it (no finish tick: the script
// stops short of the finish). The oracle is outside the page: the CLI reads the script file
// itself (its own parser and driver), so the test's reading of the file is checked too.
//
// Random frame intervals are 1 to 50 ms (whole ns) from a seed printed as a diagnostic;
// POGO_TEST_SEED=N reruns one. Firefox: FIREFOX (default /usr/bin/firefox-esr); if it is not
// there or cannot be driven, its test is skipped with the reason (never a silent pass).
//
// Run: `cargo build --workspace --bins --examples` and the wasm module
// (`cargo build -p pogo-ffi --target wasm32-unknown-unknown --profile wasm-release`), then
// `npm ci && POGO_PROFILE=debug node --test framerate.test.mjs` here (also part of `npm test`).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLI_BIN, WASM, openBrowser, requireFile, startServer } from './support.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const SCRIPT = join(HERE, 'framerate-script.txt');
/** Where the script ends: the last frame is exactly here (s). */
const END_S = 20n;
const NS_PER_S = 1_000_000_000n;
const END_NS = END_S * NS_PER_S;
const FIREFOX = process.env.FIREFOX ?? '/usr/bin/firefox-esr';
const DESKTOP = { width: 1280, height: 800 };
/** The 3D pass's viewport: SwiftShader draws every one of its 1200 frames on the CPU. */
const SMALL = { width: 320, height: 240 };
/** Each test stops by itself within this (a hung page fails the test, never CI's clock). */
const BOUNDED = { timeout: 60_000 };

const seed = process.env.POGO_TEST_SEED !== undefined
  ? Number(process.env.POGO_TEST_SEED) >>> 0
  : (Math.random() * 2 ** 32) >>> 0;
/** The second random schedule's seed. */
const seed2 = (seed ^ 0x5eed) >>> 0;

let server;
let rate;
/** Per level: the CLI's SIG fields and recorded bytes (hex) for the script, 1200 ticks. */
const oracle = new Map();
/** The replay bytes (hex) every pass of every browser got, per level. */
const seen = new Map();

/**
 * The script as driver events `[ns, input]` (ns a decimal string): `TIME sx sz [buttons]`,
 * TIME seconds to the ns (`2.5s`) or a tick number k at `floor(k·10⁹/rate)`, as
 * replay/src/input_script.rs's `At::nanos`.
 */
function scriptEvents(text) {
  const events = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) continue;
    const [time, sx, sz, buttons = ''] = line.split(/\s+/);
    if (time === 'player') throw new Error('one player only');
    let ns;
    if (time.endsWith('s')) {
      const [whole, frac = ''] = time.slice(0, -1).split('.');
      ns = BigInt(whole) * NS_PER_S + BigInt((frac + '000000000').slice(0, 9));
    } else {
      ns = (BigInt(time) * NS_PER_S) / BigInt(rate);
    }
    const bits = buttons.split(',').filter(Boolean).reduce((b, name) => b | { trick: 1, dive: 2 }[name], 0);
    events.push([ns.toString(), { steerX: Number(sx), steerZ: Number(sz), buttons: bits }]);
  }
  return events;
}

/** Frames at `hz`: `floor(k·10⁹/hz)` for k = 1, 2, … up to the end, which is always a frame. */
function steadyFrames(hz) {
  const frames = [];
  for (let k = 1n; ; k++) {
    const ns = (k * NS_PER_S) / BigInt(hz);
    if (ns >= END_NS) break;
    frames.push(ns.toString());
  }
  frames.push(END_NS.toString());
  return frames;
}

/** Frames at random intervals of 1 to 50 ms (whole ns) from `seed` (mulberry32), then the end. */
function randomFrames(seedValue) {
  let a = seedValue >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const frames = [];
  let ns = 0n;
  for (;;) {
    ns += BigInt(1_000_000 + Math.floor(next() * 49_000_001));
    if (ns >= END_NS) break;
    frames.push(ns.toString());
  }
  frames.push(END_NS.toString());
  return frames;
}

/**
 * In the page: a new run, the script's events pushed before the frame whose time reaches them
 * (or all up front), every frame, then stop(). Serialised into the page by either driver.
 * `drainEvery`: with the 3D view, every so many frames wait for two animation frames, so
 * that the GPU process (SwiftShader, on the CPU) draws what was queued as the test goes,
 * instead of piling up every frame's drawing for the browser's exit to wait on; the last
 * frame's picture is read back in its own task (before the buffer is presented) and its
 * colours counted.
 */
async function playInPage({ events, frames, upFront, drainEvery = 0 }) {
  const play = window.__pogo.play;
  play.start();
  let e = 0;
  let clamped = 0;
  const push = (limit) => {
    while (e < events.length && (limit === null || BigInt(events[e][0]) <= limit)) {
      if (play.input(events[e][0], events[e][1]) !== events[e][0]) clamped++;
      e++;
    }
  };
  if (upFront) push(null);
  let framesRun = 0;
  let colours = null;
  for (const [i, f] of frames.entries()) {
    const now = BigInt(f);
    push(now);
    play.frame(now);
    framesRun++;
    if (drainEvery && i === frames.length - 1) colours = coloursDrawn();
    if (play.state === 'finished') break;
    if (drainEvery && framesRun % drainEvery === 0) await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  }
  const pushed = e;
  const ticks = play.stop();
  const result = play.result();
  const bytes = play.replay();
  return {
    ticks, result, pushed, clamped, framesRun, state: play.state, colours,
    hex: bytes ? bytes.map((b) => b.toString(16).padStart(2, '0')).join('') : null,
  };

  function coloursDrawn() {
    const canvas = document.querySelector('canvas.play-canvas');
    const copy = document.createElement('canvas');
    [copy.width, copy.height] = [canvas.width, canvas.height];
    const g = copy.getContext('2d');
    g.drawImage(canvas, 0, 0);
    const data = g.getImageData(0, 0, copy.width, copy.height).data;
    const seen = new Set();
    for (let i = 0; i < data.length; i += 4) seen.add((data[i] >> 3) << 10 | (data[i + 1] >> 3) << 5 | data[i + 2] >> 3);
    return seen.size;
  }
}

/** `pogo simulate` on the script: its SIG fields and the bytes it records (hex). */
function simulate(level, ticks) {
  const dir = mkdtempSync(join(tmpdir(), 'pogo-framerate-'));
  const file = join(dir, `${level}.pogo`);
  const out = execFileSync(CLI_BIN, ['simulate', '--level', level, '--inputs', SCRIPT, '--ticks', String(ticks), '--record', file],
    { encoding: 'utf8', timeout: 60_000 });
  const sig = out.split('\n').find((line) => line.startsWith('SIG '));
  return {
    ...Object.fromEntries(sig.slice(4).split(' ').map((kv) => kv.split('='))),
    hex: readFileSync(file).toString('hex'),
  };
}

/** Opens the play view (either driver's page) and waits for it to be ready to race. */
async function openPlay(page, level, query) {
  const hash = `#/play/${level}?clock=manual&live=off&leader=no${query}`;
  await page.goto(`${server.base}/${hash}`);
  const started = Date.now();
  for (;;) {
    const state = await page.evaluate(() => {
      const main = document.getElementById('main');
      if (main?.dataset.playState === 'ready' && window.__pogo?.play) return 'ready';
      const error = main?.querySelector('.error, .play-missing');
      return error ? `error: ${error.textContent}` : null;
    });
    if (state === 'ready') return;
    if (state) assert.fail(`the play view of ${level} did not get ready: ${state}`);
    if (Date.now() - started > 40_000) assert.fail(`the play view of ${level} was not ready in 40 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Plays the script on `level` in `page` with each frame schedule; checks each pass against
 * the oracle and returns the passes' results.
 */
async function playPasses(page, level, passes, label) {
  const events = scriptEvents(readFileSync(SCRIPT, 'utf8'));
  const want = oracle.get(level);
  const results = [];
  for (const pass of passes) {
    const started = Date.now();
    const got = await page.evaluate(playInPage, { events, frames: pass.frames, upFront: pass.upFront ?? false, drainEvery: pass.drainEvery ?? 0 });
    const ms = Date.now() - started;
    const what = `${label}, ${level}, ${pass.name}`;
    console.log(`# ${what}: ${got.framesRun} frames, ${got.ticks} ticks, ${ms} ms, hash ${got.result?.hash}${got.colours === null ? '' : `, ${got.colours} colours in the last frame`}`);
    if (pass.drainEvery) assert.ok(got.colours >= 16, `${what}: the 3D view drew (${got.colours} colours in its last frame)`);
    assert.equal(got.clamped, 0, `${what}: every event filed at its own time`);
    assert.equal(got.pushed, events.length, `${what}: every event pushed`);
    assert.equal(got.state, 'finished', `${what}: the run ended`);
    assert.equal(got.ticks, Number(want.ticks), `${what}: the CLI's number of ticks`);
    assert.equal(got.result.ticks, got.ticks);
    assert.equal(got.result.finishTick ?? 'none', want.finish === 'none' ? 'none' : Number(want.finish), `${what}: finish tick`);
    assert.equal(got.result.hash, want.hash, `${what}: the final hash is pogo simulate's`);
    assert.equal(got.hex, want.hex, `${what}: the replay is byte for byte the CLI's recording`);
    if (!seen.has(level)) seen.set(level, new Map());
    seen.get(level).set(what, got.hex);
    results.push(got);
  }
  return results;
}

const steady = (hz, extra = {}) => ({ name: `${hz} Hz`, frames: steadyFrames(hz), ...extra });
const jittered = (s, extra = {}) => ({ name: `random 1–50 ms (seed ${s})`, frames: randomFrames(s), ...extra });

before(async () => {
  requireFile(CLI_BIN, 'cargo build --workspace --bins');
  requireFile(WASM, 'cargo build -p pogo-ffi --target wasm32-unknown-unknown --profile wasm-release');
  console.log(`# random frame intervals: seed ${seed} (rerun with POGO_TEST_SEED=${seed})`);
  server = await startServer();
  rate = (await (await fetch(`${server.base}/api/levels`)).json())[0].tick_rate;
  // The whole script, and no tick past its end: the number of ticks 20 s hold.
  const ticks = Number((END_NS * BigInt(rate)) / NS_PER_S);
  for (const level of ['flat', 'course']) oracle.set(level, simulate(level, ticks));
  assert.equal(oracle.get('flat').finish, 'none', 'the script stops short of the finish');
});

after(async () => {
  await server?.stop();
});

describe('Chromium (V8)', () => {
  let context;
  const errors = [];
  const watch = (page) => {
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
    return page;
  };

  after(async () => {
    await context?.close();
    assert.deepEqual(errors, [], 'no script errors');
  });

  test('flat without the 3D view: 30, 60, 144 Hz and random frames give the CLI\'s bytes', BOUNDED, async (t) => {
    context = await openBrowser(DESKTOP);
    const page = watch(await context.newPage());
    await openPlay(page, 'flat', '&render=none');
    t.diagnostic(`random frame intervals: seed ${seed}`);
    await playPasses(page, 'flat', [
      steady(30), steady(60), steady(144), jittered(seed),
      { ...jittered(seed2), name: `random 1–50 ms (seed ${seed2}), the script pushed up front`, upFront: true },
    ], 'Chromium');
    await page.close();
  });

  test('course without the 3D view: 144 Hz and random frames give the CLI\'s bytes', BOUNDED, async () => {
    const page = watch(await context.newPage());
    await openPlay(page, 'course', '&render=none');
    await playPasses(page, 'course', [steady(144), jittered(seed)], 'Chromium');
    await page.close();
    await context.close();
    context = null;
  });

  test('flat with the 3D view (WebGL through SwiftShader) at 60 Hz gives the same bytes', BOUNDED, async () => {
    context = await openBrowser(SMALL, { webgl: true });
    const page = watch(await context.newPage());
    await openPlay(page, 'flat', '');
    const gl = await page.evaluate(() => !!document.querySelector('canvas.play-canvas') && !!document.createElement('canvas').getContext('webgl2'));
    assert.equal(gl, true, 'WebGL is there, so the 3D view draws every frame');
    assert.equal(await page.locator('.play-overlay .error').count(), 0, 'no "No 3D view" message');
    await playPasses(page, 'flat', [steady(60, { drainEvery: 60 })], 'Chromium 3D');
    await page.close();
  });
});

describe('Firefox ESR (SpiderMonkey) over WebDriver BiDi', () => {
  let browser = null;
  let why = null;
  const errors = [];

  before(async () => {
    if (!existsSync(FIREFOX)) {
      why = `${FIREFOX} is not installed (apt-get install -y firefox-esr)`;
      return;
    }
    try {
      const { default: puppeteer } = await import('puppeteer-core');
      browser = await puppeteer.launch({
        browser: 'firefox', executablePath: FIREFOX, headless: true, protocol: 'webDriverBiDi', timeout: 30_000,
      });
    } catch (e) {
      why = `Firefox ESR (${FIREFOX}) could not be driven over WebDriver BiDi: ${e.message.split('\n')[0]}`;
    }
  });

  after(async () => {
    await browser?.close();
    assert.deepEqual(errors, [], 'no script errors');
  });

  test('flat without the 3D view: 60 Hz and random frames give Chromium\'s bytes', BOUNDED, async (t) => {
    if (why) {
      t.skip(why);
      return;
    }
    const page = await browser.newPage();
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    await openPlay(page, 'flat', '&render=none');
    t.diagnostic(await page.evaluate(() => navigator.userAgent));
    const chromium = seen.get('flat');
    assert.ok(chromium?.size > 0, 'Chromium played the script first');
    await playPasses(page, 'flat', [steady(60), jittered(seed), steady(144)], 'Firefox');
    // The 3D view too where this Firefox has WebGL (headless Firefox ESR on a machine without
    // a display or GPU has none: "Exhausted GL driver options").
    const webgl = await page.evaluate(() => {
      const canvas = document.createElement('canvas');
      let why = '';
      canvas.addEventListener('webglcontextcreationerror', (e) => { why = e.statusMessage; });
      return canvas.getContext('webgl2') ? null : why.replace(/\s+/g, ' ').trim() || 'no WebGL';
    });
    await page.close();
    if (webgl === null) {
      const page3d = await browser.newPage();
      page3d.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
      await page3d.setViewport(SMALL);
      await openPlay(page3d, 'flat', '');
      await playPasses(page3d, 'flat', [steady(60, { drainEvery: 60 })], 'Firefox 3D');
      await page3d.close();
    } else {
      t.diagnostic(`the 3D view not played in Firefox: it has no WebGL here (${webgl}); ?render=none`);
    }
    // The CLI's bytes, so Chromium's: the same replay on both engines.
    const firefox = [...seen.get('flat')].filter(([what]) => what.startsWith('Firefox'));
    for (const [what, hex] of firefox) for (const [other, want] of chromium) if (!other.startsWith('Firefox')) assert.equal(hex, want, `${what} = ${other}`);
  });
});
