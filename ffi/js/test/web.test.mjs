// The web example in a real browser: Debian's Chromium, headless, driven by playwright-core.
// Keys are pressed, the page's own values are read back (the tick advances, steering east
// moves the pogo east), the replay it offers is downloaded and handed to the real
// `pogo verify`, whose final hash must be the page's. Needs /usr/bin/chromium (CI installs
// it: apt-get install chromium) and `npm ci` in ffi/js.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { chromium } from 'playwright-core';

import { serve } from '../../examples/web/serve.mjs';
import { WASM, pogoBin } from './support.mjs';

const CHROMIUM = process.env.POGO_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];

test('the web page steps the pogo from the keyboard and its replay verifies', { timeout: 120_000 }, async () => {
  process.env.POGO_WASM = WASM;
  const server = await serve(0);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  const dir = mkdtempSync(join(tmpdir(), 'pogo-web-'));
  try {
    const page = await browser.newPage({ acceptsDownloads: true });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`http://127.0.0.1:${server.address().port}/examples/web/`);
    await page.waitForFunction(() => window.pogoDemo?.ready && window.pogoDemo.tick() > 30);
    assert.deepEqual(errors, []);
    const startX = await page.evaluate(() => window.pogoDemo.player().position[0]);

    // Steer east for a while, trick, dive: the page's own state must follow.
    await page.keyboard.down('ArrowRight');
    await page.waitForTimeout(1500);
    await page.keyboard.press(' ');
    await page.keyboard.down('Shift');
    await page.waitForTimeout(400);
    await page.keyboard.up('Shift');
    await page.keyboard.up('ArrowRight');
    await page.waitForTimeout(300);
    const seen = await page.evaluate(() => ({
      tick: window.pogoDemo.tick(),
      recorded: window.pogoDemo.recordedTicks(),
      x: window.pogoDemo.player().position[0],
      bounces: window.pogoDemo.player().bounces,
      status: document.getElementById('status').textContent,
    }));
    assert.ok(seen.tick > 120, `tick ${seen.tick}`);
    assert.equal(seen.recorded, seen.tick, 'every tick is recorded');
    assert.ok(seen.x > startX + 2, `steering east moved the pogo from x=${startX} to x=${seen.x}`);
    assert.ok(seen.bounces > 0);
    assert.match(seen.status, /state hash [0-9a-f]{16}/);

    // Stop: the page offers the replay; download it and verify it natively.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#stop')]);
    const file = join(dir, 'browser.pogo');
    await download.saveAs(file);
    const run = await page.evaluate(() => window.pogoDemo.lastRun);
    const verify = spawnSync(pogoBin(), ['verify', '--json', file], { encoding: 'utf8' });
    assert.equal(verify.status, 0, verify.stdout + verify.stderr);
    const verdict = JSON.parse(verify.stdout.trim().split('\n')[0]);
    assert.equal(verdict.ok, true);
    assert.equal(verdict.ticks, run.ticks);
    assert.equal(verdict.final_hash, run.hash);
    assert.equal(verdict.player_name, 'browser');
    assert.deepEqual(errors, []);
    console.log(`browser run: ${run.ticks} ticks, ${run.bytes} bytes, hash ${run.hash}; pogo verify: OK`);
  } finally {
    await browser.close();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
