// Replays recorded in WebAssembly are replays the server accepts: the demo bot's course run,
// stepped by hand and through the frame driver, recorded in wasm, written to disk and handed
// to the real `pogo verify`; and the run's SIG line is what `pogo simulate --level course
// --bot` prints natively.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { GOLDEN_RUNS, goldenRun, instance, pogoBin } from './support.mjs';

test('the course bot run recorded in wasm verifies with pogo verify and matches the CLI', async () => {
  const pogo = await instance();
  const { sigs, bytes } = goldenRun(pogo, GOLDEN_RUNS[1], { record: true });
  const cli = execFileSync(pogoBin(), ['simulate', '--level', 'course', '--bot'], { encoding: 'utf8' });
  assert.equal(sigs[0], cli.trim());

  const dir = mkdtempSync(join(tmpdir(), 'pogo-wasm-'));
  try {
    const file = join(dir, 'course-bot-wasm.pogo');
    writeFileSync(file, bytes);
    const verify = spawnSync(pogoBin(), ['verify', file], { encoding: 'utf8' });
    assert.equal(verify.status, 0, verify.stdout + verify.stderr);
    assert.match(verify.stdout, /OK/);
    // The wasm verifier agrees, and a damaged copy is refused with a reason.
    const tuning = pogo.tuning();
    const verifier = pogo.verifier({ tuning });
    const verdict = verifier.verify(bytes);
    assert.ok(verdict.verified, verdict.reason);
    const damaged = bytes.slice();
    damaged[Math.floor(damaged.length / 2)] ^= 1;
    const refused = verifier.verify(damaged);
    assert.equal(refused.verified, false);
    assert.notEqual(refused.reason, '');
    verifier.free();
    tuning.free();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(pogo.handleCount(), 0);
});

test('a run recorded through the wasm frame driver at jittered frame times verifies', async () => {
  const pogo = await instance();
  const level = pogo.level('course'), tuning = pogo.tuning();
  const sim = pogo.simulation({ level, tuning });
  const driver = pogo.driver({ tickRate: tuning.tickRate });
  const recorder = pogo.recorder({ sim, playerName: 'wasm driver' });
  const events = [[0n, 0, 0, 0], [400_000_000n, 120, 0, 0], [1_500_000_001n, 90, 40, 2], [3_000_000_000n, -60, -60, 1]];
  let now = 0n, seed = 7;
  while (now < 6_000_000_000n) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    now += BigInt(1_000_000 + (seed % 40_000_000));
    while (events.length && events[0][0] <= now) {
      const [at, steerX, steerZ, buttons] = events.shift();
      assert.equal(driver.pushEvent(at, 0, { steerX, steerZ, buttons }), at);
    }
    const frame = driver.advance(sim, recorder, now);
    assert.ok(frame.alpha >= 0 && frame.alpha < 1);
    assert.equal(frame.totalTicks, sim.tick);
  }
  recorder.finish();
  const dir = mkdtempSync(join(tmpdir(), 'pogo-wasm-'));
  try {
    const file = join(dir, 'driver-wasm.pogo');
    writeFileSync(file, recorder.bytes());
    const verify = spawnSync(pogoBin(), ['verify', file], { encoding: 'utf8' });
    assert.equal(verify.status, 0, verify.stdout + verify.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const object of [recorder, driver, sim, tuning, level]) object.free();
  assert.equal(pogo.handleCount(), 0);
});
