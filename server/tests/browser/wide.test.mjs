// The page's two builds of the simulation core (core/src/wide.rs): where the browser has the
// wide-arithmetic proposal's instructions the page loads /web/pogo_ffi_wide.wasm, elsewhere
// /web/pogo_ffi.wasm, and either way its runs end on the CLI's state hashes (the oracle
// outside the page). Debian's Chromium 156 has the instructions behind
// `--js-flags=--wasm-wide-arithmetic`, Firefox ESR 153 behind the preference
// `javascript.options.wasm_wide_arithmetic` (on by default from Firefox 155). Also: a server
// whose wide build is missing gives every browser the other one.
//
// Run: `cargo build --workspace --bins --examples` and `bash scripts/build-wasm.sh` (both
// modules), then `npm ci && POGO_PROFILE=debug node --test wide.test.mjs` here.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CLI_BIN, WASM, openBrowser, requireFile, startServer } from './support.mjs';

/** Each test stops by itself within this. */
const BOUNDED = { timeout: 60_000 };
const WIDE = join(dirname(WASM), 'pogo_ffi_wide.wasm');
const FIREFOX = process.env.FIREFOX ?? '/usr/bin/firefox-esr';
const LEVELS = ['course', 'sprawl'];

/** The CLI's final state hash of the demo bot's run on `level` (to its finish). */
function cliHash(level) {
  const out = execFileSync(CLI_BIN, ['simulate', '--level', level, '--bot', '--ticks', '20000'], { encoding: 'utf8' });
  return out.match(/hash=([0-9a-f]{16})/)[1];
}

/** In the page: which build the page's loader chose, and the demo bot's run on each level
 * stepped a tick a call and in one `stepMany` call, each with its final state hash. */
async function pageRuns(page, levels) {
  return page.evaluate(async (levels) => {
    const { loadCore, hasWideArithmetic } = await import('/web/shared/wasm.js');
    const { hex } = await import('/web/pogo.mjs');
    const { pogo, tuning, build } = await loadCore();
    const runs = {};
    for (const name of levels) {
      const level = pogo.level(name);
      const sim = pogo.simulation({ level, tuning, players: 1 });
      const bot = pogo.bot();
      const inputs = [];
      while (inputs.length < 20_000 && !sim.player(0).finished) {
        const input = bot.input(sim, 0);
        sim.step([input]);
        inputs.push(input);
      }
      const stepped = hex(sim.stateHash());
      bot.free();
      sim.free();
      const many = pogo.simulation({ level, tuning, players: 1 });
      const block = pogo.inputs(new Int8Array(inputs.flatMap((i) => [i.steerX, i.steerZ, i.buttons])));
      const ran = many.stepMany(block, { ticks: inputs.length });
      runs[name] = { ticks: inputs.length, stepped, ran, many: hex(many.stateHash()) };
      block.free();
      many.free();
    }
    return { wide: hasWideArithmetic(), build, runs };
  }, levels);
}

/** Opens the page of the server at `base` and checks that it loaded `build` and that its
 * runs end on `expected`'s hashes. */
async function checkPage(page, base, build, expected) {
  await page.goto(`${base}/`);
  const got = await pageRuns(page, Object.keys(expected));
  assert.equal(got.wide, build === 'wide');
  checkRuns(got, expected, build);
}

function checkRuns(got, expected, build) {
  assert.equal(got.build, build, JSON.stringify(got));
  for (const [level, hash] of Object.entries(expected)) {
    const run = got.runs[level];
    assert.equal(run.stepped, hash, `${level}, a tick a call, ${build}`);
    assert.equal(run.ran, run.ticks, `${level}: stepMany ran every tick`);
    assert.equal(run.many, hash, `${level}, one stepMany call, ${build}`);
  }
}

let expected;
before(() => {
  requireFile(WASM, 'bash scripts/build-wasm.sh');
  requireFile(WIDE, 'bash scripts/build-wasm.sh');
  expected = Object.fromEntries(LEVELS.map((level) => [level, cliHash(level)]));
});

describe('Chromium', () => {
  let server;
  let bare;
  before(async () => {
    server = await startServer();
    // A server with only the plain module (a copy in a directory of its own).
    const dir = mkdtempSync(join(tmpdir(), 'pogo-wasm-plain-only-'));
    copyFileSync(WASM, join(dir, 'pogo_ffi.wasm'));
    bare = await startServer(['--wasm', join(dir, 'pogo_ffi.wasm')]);
  });
  after(async () => {
    await server?.stop();
    await bare?.stop();
  });

  for (const [what, args, build] of [
    ['with wide arithmetic (--js-flags=--wasm-wide-arithmetic)', ['--js-flags=--wasm-wide-arithmetic'], 'wide'],
    // Off by name, so the test stays true when Chromium turns the instructions on by default.
    ['without it (--js-flags=--no-wasm-wide-arithmetic)', ['--js-flags=--no-wasm-wide-arithmetic'], 'plain'],
  ]) {
    test(`${what}: the page loads the ${build} build and ends on the CLI's hashes`, BOUNDED, async () => {
      const browser = await openBrowser({ width: 800, height: 600 }, { args });
      try {
        const page = await browser.newPage();
        await checkPage(page, server.base, build, expected);
        // The server has the wide build either way: the browser chose.
        const served = await page.evaluate(async () => (await fetch('/web/pogo_ffi_wide.wasm')).status);
        assert.equal(served, 200);
      } finally {
        await browser.close();
      }
    });
  }

  test('a server without the wide build gives the plain one to a browser that has it', BOUNDED, async () => {
    const browser = await openBrowser({ width: 800, height: 600 }, { args: ['--js-flags=--wasm-wide-arithmetic'] });
    try {
      const page = await browser.newPage();
      await page.goto(`${bare.base}/`);
      const status = await page.evaluate(async () => (await fetch('/web/pogo_ffi_wide.wasm')).status);
      assert.equal(status, 404);
      const got = await pageRuns(page, ['course']);
      assert.equal(got.wide, true, 'the browser has wide arithmetic');
      checkRuns(got, { course: expected.course }, 'plain');
    } finally {
      await browser.close();
    }
  });
});

describe('Firefox ESR (SpiderMonkey) over WebDriver BiDi', () => {
  let server;
  let why = null;
  before(async () => {
    if (!existsSync(FIREFOX)) why = `${FIREFOX} is not installed (apt-get install -y firefox-esr)`;
    else server = await startServer();
  });
  after(async () => { await server?.stop(); });

  for (const [what, prefs, build] of [
    ['with wide arithmetic (javascript.options.wasm_wide_arithmetic)', { 'javascript.options.wasm_wide_arithmetic': true }, 'wide'],
    ['without it', { 'javascript.options.wasm_wide_arithmetic': false }, 'plain'],
  ]) {
    test(`${what}: the page loads the ${build} build and ends on the CLI's hashes`, BOUNDED, async (t) => {
      if (why) {
        t.skip(why);
        return;
      }
      const { default: puppeteer } = await import('puppeteer-core');
      const browser = await puppeteer.launch({
        browser: 'firefox', executablePath: FIREFOX, headless: true, protocol: 'webDriverBiDi', timeout: 30_000,
        extraPrefsFirefox: prefs,
      });
      try {
        await checkPage(await browser.newPage(), server.base, build, expected);
      } finally {
        await browser.close();
      }
    });
  }
});
