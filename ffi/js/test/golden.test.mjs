// wasm32 as the fifth architecture of the determinism proof: the golden runs,
// stepped in WebAssembly through pogo.mjs, must give the golden files' hashes bit for bit —
// tests/golden/hashes.txt (read now, never copied here), the final hashes, bounces and
// deaths of tests/golden/chains.txt, and every tests/golden/*.pogo must verify (re-simulating
// it checks every state hash it stores, once a second).

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { GOLDEN_RUNS, checkChains, goldenChains, goldenRun } from './golden-runs.mjs';
import { ROOT, instance, readRepo } from './support.mjs';

test('the golden runs reproduce tests/golden/hashes.txt', async () => {
  const pogo = await instance();
  const golden = readRepo('tests/golden/hashes.txt').trimEnd().split('\n');
  const lines = GOLDEN_RUNS.flatMap((run) => goldenRun(pogo, run).lines);
  lines.forEach((line, i) => assert.equal(line, golden[i], `line ${i + 1}`));
  assert.equal(lines.length, golden.length);
  assert.equal(pogo.handleCount(), 0);
});

test('the golden chains end where tests/golden/chains.txt says', async () => {
  const pogo = await instance();
  checkChains(assert, goldenChains(pogo), readRepo('tests/golden/chains.txt').trimEnd().split('\n'));
});

test('every golden replay verifies in wasm', async () => {
  const pogo = await instance();
  const tuning = pogo.tuning();
  const verifier = pogo.verifier({ tuning });
  const files = readdirSync(join(ROOT, 'tests/golden')).filter((f) => f.endsWith('.pogo'));
  assert.ok(files.length >= 3, `golden replays: ${files}`);
  for (const file of files) {
    const verdict = verifier.verify(readFileSync(join(ROOT, 'tests/golden', file)));
    assert.ok(verdict.verified, `${file}: ${verdict.kindName}: ${verdict.reason}`);
    assert.ok(verdict.ticks > 0);
  }
  verifier.free();
  tuning.free();
});
