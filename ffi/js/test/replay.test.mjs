// Ghosts from replay bytes in WebAssembly: pogo.replay(bytes) decodes the golden replays to
// their header and per-tick inputs, and a Simulation stepped with those inputs ends on the
// wasm verifier's final hash and finish ticks — what a page races against is exactly the
// verified run. Bad bytes throw PogoErrors that say what is wrong, and nothing leaks.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Button, Replay, Status, hex } from '../pogo.mjs';
import { expectError, golden, goldenRun, GOLDEN_RUNS, instance } from './support.mjs';

/** Steps a fresh simulation of the replay's level with its inputs: the final hash and each
 * player's finish tick (or null). */
function resimulate(pogo, replay) {
  const info = replay.info;
  const level = pogo.level(replay.levelName), tuning = pogo.tuning();
  assert.equal(info.levelHash, level.hash);
  assert.equal(info.tuningHash, tuning.hash);
  const inputs = Array.from({ length: info.players }, (_, p) => replay.inputs(p));
  const sim = pogo.simulation({ level, tuning, players: info.players });
  for (let t = 0; t < info.ticks; t++) sim.step(inputs.map((row) => Replay.inputAt(row, t)));
  const result = {
    hash: sim.stateHash(),
    finishTicks: Array.from({ length: info.players }, (_, p) => {
      const s = sim.player(p);
      return s.finished ? s.finishTick : null;
    }),
  };
  sim.free();
  tuning.free();
  level.free();
  return result;
}

test('golden replays decode and re-simulate to the verified run', async () => {
  const pogo = await instance();
  const handles = pogo.handleCount(), blocks = pogo.blockCount();
  const tuning = pogo.tuning();
  const verifier = pogo.verifier({ tuning });
  for (const [file, players] of [['course-bot.pogo', 1], ['course-multi.pogo', 3]]) {
    const bytes = golden(file);
    const verdict = verifier.verify(bytes);
    assert.ok(verdict.verified, `${file}: ${verdict.reason}`);
    const replay = pogo.replay(bytes);
    const info = replay.info;
    assert.equal(info.players, players, file);
    assert.equal(info.ticks, verdict.ticks, file);
    assert.equal(info.rulesVersion, pogo.rulesVersion, file);
    assert.equal(info.tickRate, 60, file);
    assert.equal(info.hashInterval, 60, file);
    assert.equal(hex(info.levelHash), hex(verdict.levelHash), file);
    assert.equal(hex(info.tuningHash), hex(verdict.tuningHash), file);
    assert.equal(hex(info.claimedFinalHash), hex(verdict.finalHash), file);
    assert.deepEqual(info.finishTicks, verdict.finishTicks, file);
    assert.equal(replay.levelName, 'course');
    assert.equal(typeof replay.playerName, 'string');

    const row = replay.inputs(0);
    assert.ok(row instanceof Int8Array);
    assert.equal(row.length, 3 * info.ticks);
    for (let t = 0; t < info.ticks; t++) {
      const input = Replay.inputAt(row, t);
      assert.ok(input.steerX >= -127 && input.steerX <= 127, `tick ${t}`);
      assert.equal(input.buttons & ~(Button.TRICK | Button.DIVE), 0, `tick ${t}`);
    }

    const { hash, finishTicks } = resimulate(pogo, replay);
    assert.equal(hex(hash), hex(verdict.finalHash), `${file}: final hash`);
    assert.deepEqual(finishTicks, verdict.finishTicks, `${file}: finish ticks`);
    replay.free();
    expectError(Status.STALE_HANDLE, () => replay.info, /freed/);
  }
  verifier.free();
  tuning.free();
  assert.equal(pogo.handleCount(), handles);
  assert.equal(pogo.blockCount(), blocks);
});

test('a run recorded in wasm comes back with its name and inputs, across input batches', async () => {
  const pogo = await instance();
  const handles = pogo.handleCount(), blocks = pogo.blockCount();
  // The bot's course run (3294 ticks) and one longer than a batch of 4096: idle on flat.
  const { bytes } = goldenRun(pogo, GOLDEN_RUNS[1], { record: true });
  const level = pogo.level('flat'), tuning = pogo.tuning();
  const sim = pogo.simulation({ level, tuning });
  const recorder = pogo.recorder({ sim, playerName: 'Ghost Tester', date: '2026-01-02T03:04:05Z' });
  const played = [];
  for (let t = 0; t < 5000; t++) {
    const input = { steerX: (t * 37) % 255 - 127, steerZ: (t % 7) - 3, buttons: (t >> 4) % 4 };
    played.push(input);
    sim.step([input]);
    recorder.record();
  }
  recorder.finish();
  const long = recorder.bytes();
  const finalHash = sim.stateHash();

  const bot = pogo.replay(bytes);
  assert.equal(bot.playerName, '');
  assert.equal(bot.date, '');
  assert.equal(bot.info.ticks, 3294);
  bot.free();

  const replay = pogo.replay(long);
  assert.equal(replay.playerName, 'Ghost Tester');
  assert.equal(replay.date, '2026-01-02T03:04:05Z');
  assert.equal(replay.levelName, 'flat');
  assert.equal(replay.info.ticks, 5000);
  assert.deepEqual(replay.info.finishTicks, [null]);
  assert.equal(hex(replay.info.claimedFinalHash), hex(finalHash));
  const row = replay.inputs(0);
  played.forEach((input, t) => assert.deepEqual(Replay.inputAt(row, t), input, `tick ${t}`));
  assert.equal(hex(resimulate(pogo, replay).hash), hex(finalHash));
  expectError(Status.INVALID_ARGUMENT, () => replay.inputs(1), /player 1/);
  replay.free();
  for (const object of [recorder, sim, tuning, level]) object.free();
  assert.equal(pogo.handleCount(), handles);
  assert.equal(pogo.blockCount(), blocks);
});

test('bad bytes throw a PogoError that says what is wrong, and leave nothing behind', async () => {
  const pogo = await instance();
  const handles = pogo.handleCount(), blocks = pogo.blockCount();
  const bytes = golden('course-multi.pogo');
  expectError(Status.PARSE, () => pogo.replay(new Uint8Array(0)), /empty/);
  expectError(Status.PARSE, () => pogo.replay(new TextEncoder().encode('<html>not found</html>')), /not a pogo replay/);
  expectError(Status.PARSE, () => pogo.replay(bytes.subarray(0, bytes.length - 1)), /truncated at byte/);
  const damaged = bytes.slice();
  damaged[Math.floor(damaged.length / 2)] ^= 1;
  expectError(Status.PARSE, () => pogo.replay(damaged), /checksum/);
  const version = bytes.slice();
  version[8] = 9;
  expectError(Status.PARSE, () => pogo.replay(version), /format version 9/);
  for (let cut = 1; cut < bytes.length; cut += 37) {
    expectError(Status.PARSE, () => pogo.replay(bytes.subarray(0, cut)), /truncated/);
  }
  assert.equal(pogo.handleCount(), handles);
  assert.equal(pogo.blockCount(), blocks);

  const replay = pogo.replay(bytes);
  expectError(Status.INVALID_ARGUMENT, () => replay.inputs(3), /player 3/);
  assert.match(replay.lastError(), /player 3/);
  replay.free();
  // A replay of no ticks: no inputs, and a bad player is still refused.
  const level = pogo.level('flat'), tuning = pogo.tuning();
  const sim = pogo.simulation({ level, tuning });
  const recorder = pogo.recorder({ sim });
  recorder.finish();
  const empty = pogo.replay(recorder.bytes());
  assert.equal(empty.info.ticks, 0);
  assert.equal(empty.inputs(0).length, 0);
  expectError(Status.INVALID_ARGUMENT, () => empty.inputs(1), /player 1/);
  for (const object of [empty, recorder, sim, tuning, level]) object.free();
  assert.equal(pogo.handleCount(), handles);
  assert.equal(pogo.blockCount(), blocks);
});
