// The ABI through pogo.mjs in WebAssembly: errors are PogoErrors with the status and the
// library's message, stale and wrong-kind handles are caught, snapshots roll back exactly
// and refuse garbage, the frame driver gives one tick stream at any frame rate, and nothing
// leaks (objects and blocks return to zero).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Status, hex } from '../pogo.mjs';
import { expectError, instance } from './support.mjs';

test('bad arguments and handles are errors with a reason', async () => {
  const pogo = await instance();
  const blocks = pogo.blockCount();
  expectError(Status.UNKNOWN_LEVEL, () => pogo.level('nope'), /nope/);
  expectError(Status.PARSE, () => pogo.levelFromJson('{'), /line/);
  expectError(Status.PARSE, () => pogo.tuning('{"gravity": -1}'), /gravity/);
  const level = pogo.level('course'), tuning = pogo.tuning();
  expectError(Status.INVALID_ARGUMENT, () => pogo.simulation({ level, tuning, players: 0 }), /players/);
  expectError(Status.WRONG_HANDLE_KIND, () => pogo.simulation({ level: tuning, tuning, players: 1 }), /tuning handle/);
  const sim = pogo.simulation({ level, tuning, players: 2 });
  expectError(Status.INVALID_ARGUMENT, () => sim.step([{}, { buttons: 0x10 }]), /0x10/);
  assert.match(sim.lastError(), /0x10/);
  expectError(Status.INVALID_ARGUMENT, () => sim.step([{}]));
  expectError(Status.INVALID_ARGUMENT, () => sim.player(2));
  const recorder = pogo.recorder({ sim });
  expectError(Status.INVALID_STATE, () => recorder.record());
  expectError(Status.INVALID_STATE, () => recorder.bytes());
  expectError(Status.INVALID_ARGUMENT, () => pogo.recorder({ sim, playerName: 'a\u0007b' }));
  sim.free();
  expectError(Status.STALE_HANDLE, () => sim.stateHash(), /freed/);
  expectError(Status.STALE_HANDLE, () => recorder.finish(), /simulation/);
  assert.match(pogo.handleError(sim.id), /freed/);
  const verifier = pogo.verifier({ tuning });
  const verdict = verifier.verify(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]));
  assert.equal(verdict.verified, false);
  assert.equal(verdict.kindName, 'bad_magic');
  // No wall clock in wasm32-unknown-unknown: a time limit is refused, not a trap.
  const def = pogo.alloc(40);
  pogo.x.pogo_default_verifier_def(def);
  pogo.view().setUint32(def + 4, tuning.id, true);
  pogo.view().setUint32(def + 28, 1000, true);
  assert.equal(pogo.x.pogo_verifier_create(def, pogo.scratch), Status.INVALID_ARGUMENT);
  assert.match(pogo.lastError(), /no clock/);
  pogo.dealloc(def);
  assert.equal(pogo.x.pogo_dealloc(12345), Status.INVALID_ARGUMENT);
  for (const object of [verifier, recorder, tuning, level]) object.free();
  assert.equal(pogo.handleCount(), 0);
  assert.equal(pogo.blockCount(), blocks);
});

test('snapshots roll back exactly, refuse garbage, and hashes are stable', async () => {
  const pogo = await instance();
  const level = pogo.level('course'), tuning = pogo.tuning();
  const sim = pogo.simulation({ level, tuning });
  const bot = pogo.bot();
  for (let t = 0; t < 900; t++) sim.step([bot.input(sim, 0)]);
  const snapshot = sim.snapshot();
  assert.equal(snapshot.length, 36 + 229 + 8);
  const inputs = [], hashes = [];
  for (let t = 0; t < 240; t++) {
    inputs.push(bot.input(sim, 0));
    sim.step([inputs[t]]);
    hashes.push(sim.stateHash());
  }
  sim.restore(snapshot);
  assert.equal(sim.tick, 900);
  inputs.forEach((input, t) => {
    sim.step([input]);
    assert.equal(hex(sim.stateHash()), hex(hashes[t]), `tick ${900 + t}`);
  });
  const before = sim.stateHash();
  expectError(Status.INVALID_SNAPSHOT, () => sim.restore(new Uint8Array(273).fill(7)), /magic/);
  const damaged = snapshot.slice();
  damaged[77] ^= 4;
  expectError(Status.INVALID_SNAPSHOT, () => sim.restore(damaged), /check/);
  expectError(Status.INVALID_SNAPSHOT, () => sim.restore(snapshot.slice(0, 100)));
  const flat = pogo.level('flat');
  const other = pogo.simulation({ level: flat, tuning });
  expectError(Status.MISMATCH, () => sim.restore(other.snapshot()), /level/);
  assert.equal(sim.stateHash(), before);
  for (const object of [other, flat, bot, sim, tuning, level]) object.free();
  assert.equal(pogo.handleCount(), 0);
});

test('a renderer asks the core where platforms are and what ground is under a point', async () => {
  const pogo = await instance();
  const tuning = pogo.tuning();
  const course = pogo.level('course');
  const sim = pogo.simulation({ level: course, tuning });
  // course's first platform: min corner from (144, −0.5, −2) to (148, −0.5, −2) and back
  // every 6 s (360 ticks at 60 Hz): there at tick 0, at the far end at 180, halfway at 90.
  assert.deepEqual(sim.platformPosition(0, 0), [144, -0.5, -2]);
  assert.deepEqual(sim.platformPosition(0, 180), [148, -0.5, -2]);
  assert.ok(Math.abs(sim.platformPosition(0, 90)[0] - 146) < 1e-6, String(sim.platformPosition(0, 90)));
  assert.deepEqual(sim.platformPosition(0, 360), sim.platformPosition(0, 0));
  expectError(Status.INVALID_ARGUMENT, () => sim.platformPosition(2, 0), /platform 2 of a level with 2/);
  // The platform's top (y 0) is the ground over it at tick 0, within reach of a tip on it.
  assert.equal(sim.groundBelow(145, 3, 0, 0), 0);
  assert.equal(sim.groundBelow(145, -0.05, 0, 0), 0);
  const flat = pogo.level('flat');
  const plain = pogo.simulation({ level: flat, tuning });
  // flat: a 400 m slab with its top at y = 0; nothing beside it, nothing over it from below.
  assert.equal(plain.groundBelow(10, 5, -20, 0), 0);
  assert.equal(plain.groundBelow(10, -1, -20, 0), null);
  assert.equal(plain.groundBelow(1000, 5, 0, 0), null);
  for (const object of [plain, flat, sim, course, tuning]) object.free();
  assert.equal(pogo.handleCount(), 0);
});

test('the frame driver gives one tick stream at 30, 144 and jittered frame rates', async () => {
  const pogo = await instance();
  const level = pogo.level('course'), tuning = pogo.tuning();
  const script = [[0n, 0, 0, 0], [250_000_000n, 127, 0, 0], [1_000_000_001n, 30, 90, 2], [2_500_000_000n, -127, 10, 1]];
  const run = (nextFrame) => {
    const sim = pogo.simulation({ level, tuning });
    const driver = pogo.driver({ tickRate: 60, ticksPerFrameMax: 1000 });
    const events = script.slice();
    let now = 0n, frame = 0;
    while (now < 5_000_000_000n) {
      now = nextFrame(frame++, now);
      if (now > 5_000_000_000n) now = 5_000_000_000n;
      while (events.length && events[0][0] <= now) {
        const [at, steerX, steerZ, buttons] = events.shift();
        driver.pushEvent(at, 0, { steerX, steerZ, buttons });
      }
      const info = driver.advance(sim, null, now);
      assert.ok(info.alpha >= 0 && info.alpha < 1);
    }
    const result = [sim.tick, hex(sim.stateHash())];
    driver.free();
    sim.free();
    return result;
  };
  let seed = 99;
  const runs = [
    run((f) => (BigInt(f + 1) * 1_000_000_000n) / 30n),
    run((f) => (BigInt(f + 1) * 1_000_000_000n) / 144n),
    run((f, now) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return now + BigInt(1_000_000 + (seed % 49_000_000));
    }),
  ];
  assert.equal(runs[0][0], 300);
  assert.deepEqual(runs[1], runs[0]);
  assert.deepEqual(runs[2], runs[0]);
  tuning.free();
  level.free();
  assert.equal(pogo.handleCount(), 0);
});
