// The module built with wide arithmetic (pogo_ffi_wide.wasm: `bash scripts/build-wasm.sh`,
// core/src/wide.rs) as the determinism proof's wasm32 row asks of the other: the golden runs
// give tests/golden/hashes.txt bit for bit, the golden chains end where tests/golden/chains.txt
// says, and every golden replay verifies. Node 20 has no wide arithmetic, so these run in
// Debian's Chromium, headless, with `--js-flags=--wasm-wide-arithmetic` (Chromium 156 has the
// instructions behind that switch), the same golden-runs.mjs the Node test runs, imported by
// the page. And the module is the wide one: Node, without the instructions, refuses it.
// Needs /usr/bin/chromium and `npm ci` in ffi/js, as web.test.mjs does.

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';

import { chromium } from 'playwright-core';

import { checkChains } from './golden-runs.mjs';
import { ROOT, WASM, readRepo } from './support.mjs';

const CHROMIUM = process.env.POGO_CHROMIUM ?? '/usr/bin/chromium';
const WIDE = process.env.POGO_WASM_WIDE ?? join(dirname(WASM), 'pogo_ffi_wide.wasm');
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--js-flags=--wasm-wide-arithmetic'];
/** The page's origin: every request is answered from disk by the route below. */
const ORIGIN = 'http://pogo.test';
const FILES = {
  '/index.html': ['text/html', () => '<!doctype html><title>pogo wide</title>'],
  '/pogo.mjs': ['text/javascript', () => readFileSync(join(ROOT, 'ffi/js/pogo.mjs'))],
  '/test/golden-runs.mjs': ['text/javascript', () => readFileSync(join(ROOT, 'ffi/js/test/golden-runs.mjs'))],
  '/pogo_ffi_wide.wasm': ['application/wasm', () => readFileSync(WIDE)],
};

test('the wide module reproduces the golden runs, chains and replays in Chromium', { timeout: 120_000 }, async () => {
  assert.ok(existsSync(WIDE), `${WIDE} is not built: bash scripts/build-wasm.sh`);
  assert.equal(WebAssembly.validate(readFileSync(WIDE)), false,
    'Node 20 has no wide arithmetic, so it must refuse the wide module');
  const replays = readdirSync(join(ROOT, 'tests/golden')).filter((f) => f.endsWith('.pogo'));
  assert.ok(replays.length >= 3, `golden replays: ${replays}`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.route(`${ORIGIN}/**`, (route) => {
      const path = new URL(route.request().url()).pathname;
      const file = FILES[path];
      if (!file) return route.fulfill({ status: 404, body: 'not found' });
      return route.fulfill({ status: 200, contentType: file[0], body: file[1]() });
    });
    await page.goto(`${ORIGIN}/index.html`);
    const got = await page.evaluate(async (replays) => {
      const { load } = await import('/pogo.mjs');
      const { GOLDEN_RUNS, goldenChains, goldenRun } = await import('/test/golden-runs.mjs');
      const pogo = await load(fetch('/pogo_ffi_wide.wasm'));
      const lines = GOLDEN_RUNS.flatMap((run) => goldenRun(pogo, run).lines);
      const handles = pogo.handleCount();
      const chains = goldenChains(pogo);
      const tuning = pogo.tuning();
      const verifier = pogo.verifier({ tuning });
      const verdicts = replays.map(({ file, bytes }) => {
        const v = verifier.verify(new Uint8Array(bytes));
        return { file, verified: v.verified, ticks: v.ticks, why: `${v.kindName}: ${v.reason}` };
      });
      verifier.free();
      tuning.free();
      return { lines, handles, chains, verdicts };
    }, replays.map((file) => ({ file, bytes: [...readFileSync(join(ROOT, 'tests/golden', file))] })));
    assert.deepEqual(errors, []);
    const golden = readRepo('tests/golden/hashes.txt').trimEnd().split('\n');
    got.lines.forEach((line, i) => assert.equal(line, golden[i], `line ${i + 1}`));
    assert.equal(got.lines.length, golden.length);
    assert.equal(got.handles, 0);
    checkChains(assert, got.chains, readRepo('tests/golden/chains.txt').trimEnd().split('\n'));
    for (const v of got.verdicts) {
      assert.ok(v.verified, `${v.file}: ${v.why}`);
      assert.ok(v.ticks > 0, v.file);
    }
  } finally {
    await browser.close();
  }
});
