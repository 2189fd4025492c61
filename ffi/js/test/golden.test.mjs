// wasm32 as the fifth architecture of the determinism proof: the golden runs,
// stepped in WebAssembly through pogo.mjs, must give the golden files' hashes bit for bit —
// tests/golden/hashes.txt (read now, never copied here), the final hashes, bounces and
// deaths of tests/golden/chains.txt, and every tests/golden/*.pogo must verify (re-simulating
// it checks every state hash it stores, once a second).

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { Event, hex } from '../pogo.mjs';
import { GOLDEN_RUNS, ROOT, goldenRun, instance, readRepo } from './support.mjs';

test('the golden runs reproduce tests/golden/hashes.txt', async () => {
  const pogo = await instance();
  const golden = readRepo('tests/golden/hashes.txt').trimEnd().split('\n');
  const lines = GOLDEN_RUNS.flatMap((run) => goldenRun(pogo, run).lines);
  lines.forEach((line, i) => assert.equal(line, golden[i], `line ${i + 1}`));
  assert.equal(lines.length, golden.length);
  assert.equal(pogo.handleCount(), 0);
});

// tests/golden_chains.rs's seeded random player: xorshift64* on BigInts.
class RandomPlayer {
  constructor(seed) {
    this.state = BigInt.asUintN(64, seed | 1n);
    this.input = { steerX: 0, steerZ: 0, buttons: 0 };
    this.hold = 0;
  }

  next() {
    let s = this.state;
    s ^= s >> 12n;
    s = BigInt.asUintN(64, s ^ (s << 25n));
    s ^= s >> 27n;
    this.state = s;
    return BigInt.asUintN(64, s * 0x2545f4914f6cdd1dn);
  }

  nextInput() {
    if (this.hold === 0) {
      const r = this.next();
      this.hold = 5 + Number(r % 90n);
      const b = Number((r >> 8n) % 8n);
      const buttons = b === 0 ? 1 : b === 1 || b === 2 ? 2 : 0;
      const i8 = (x) => ((Number(x & 0xffn) + 128) % 256) - 128;
      this.input = { steerX: i8(r >> 16n), steerZ: i8(r >> 24n), buttons };
    } else if (this.hold % 7 === 0) {
      this.input = { ...this.input, buttons: this.input.buttons & ~1 };
    }
    this.hold -= 1;
    return this.input;
  }
}

const CHAIN_TUNINGS = [
  { label: '', json: '{}' },
  { label: 'tick_rate=30', json: '{"tick_rate": 30}' },
  { label: 'tick_rate=64 body_radius=0.6 gravity=30', json: '{"tick_rate": 64, "body_radius": 0.6, "gravity": 30}' },
];

test('the golden chains end where tests/golden/chains.txt says', async () => {
  const pogo = await instance();
  const golden = readRepo('tests/golden/chains.txt').trimEnd().split('\n');
  const field = (line, key) => line.split(' ').find((w) => w.startsWith(key + '=')).slice(key.length + 1);
  let row = 0;
  for (const [l, levelName] of ['flat', 'course', 'sprawl'].entries()) {
    const level = pogo.level(levelName);
    for (const [t, { label, json }] of CHAIN_TUNINGS.entries()) {
      const seed = 0x706f676f0000n + BigInt(l * CHAIN_TUNINGS.length + t);
      const tuning = pogo.tuning(json);
      const sim = pogo.simulation({ level, tuning, players: 6 });
      const bot = pogo.bot();
      const players = [1n, 2n, 3n, 4n, 5n].map((p) => new RandomPlayer(BigInt.asUintN(64, seed * 31n + p)));
      let deaths = 0;
      for (let tick = 0; tick < 2400; tick++) {
        sim.step([bot.input(sim, 0), ...players.map((p) => p.nextInput())]);
        for (let p = 0; p < 6; p++) if (sim.player(p).events & Event.DEATH) deaths++;
      }
      const bounces = Array.from({ length: 6 }, (_, p) => sim.player(p).bounces).join(',');
      const line = golden[row++];
      assert.ok(line.startsWith(`${levelName} [${label}] `), line);
      assert.equal(hex(sim.stateHash()), field(line, 'final'), line);
      assert.equal(bounces, field(line, 'bounces'), line);
      assert.equal(String(deaths), field(line, 'deaths'), line);
      bot.free();
      sim.free();
      tuning.free();
    }
    level.free();
  }
  assert.equal(row, golden.length);
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
