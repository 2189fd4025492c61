// Many ticks a call (Simulation.stepMany over pogo_sim_step_many) in WebAssembly: the golden
// replays stepped tick by tick and in batches — the whole run in one call, from an Inputs
// block or a copied typed array, seeded random batches, batches stopped at checkpoints,
// recorded — pass through the very same states and end on the verified hash; bad inputs
// and counts throw a PogoError and run nothing; nothing leaks.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Event, Replay, STEP_TICKS_MAX, Status, hex } from '../pogo.mjs';
import { expectError, golden, instance } from './support.mjs';

test('a batch of ticks is the same ticks one by one, on every golden replay', async () => {
  const pogo = await instance();
  const handles = pogo.handleCount(), blocks = pogo.blockCount();
  const level = pogo.level('course'), tuning = pogo.tuning();
  const verifier = pogo.verifier({ tuning });
  for (const [file, players] of [['course-bot.pogo', 1], ['course-multi.pogo', 3]]) {
    const bytes = golden(file);
    const verdict = verifier.verify(bytes);
    assert.ok(verdict.verified, file);
    const replay = pogo.replay(bytes);
    const { ticks } = replay.info;
    const rows = Array.from({ length: players }, (_, p) => replay.inputs(p));
    replay.free();
    const all = Replay.interleave(rows);
    assert.equal(all.length, 3 * players * ticks);
    const make = () => pogo.simulation({ level, tuning, players });

    // Tick by tick: the hash after every tick, the events of every tick.
    const one = make();
    const hashes = [one.stateHash()];
    const events = [];
    for (let t = 0; t < ticks; t++) {
      one.step(rows.map((row) => Replay.inputAt(row, t)));
      hashes.push(one.stateHash());
      events.push(Array.from({ length: players }, (_, p) => one.player(p).events));
    }
    assert.equal(hex(hashes[ticks]), hex(verdict.finalHash), file);
    const end = (sim) => ({
      snapshot: Array.from(sim.snapshot()),
      now: Array.from({ length: players }, (_, p) => sim.player(p)),
      before: Array.from({ length: players }, (_, p) => sim.previousPlayer(p)),
    });
    const want = end(one);
    const or = (from, to, p) => events.slice(from, to).reduce((acc, e) => acc | e[p], 0);

    // The whole run in one call, from a resident block and from the typed array.
    const block = pogo.inputs(all);
    for (const inputs of [block, all]) {
      const sim = make();
      assert.equal(sim.stepMany(inputs), ticks, file);
      assert.deepEqual(end(sim), want, `${file}: one batch`);
      for (let p = 0; p < players; p++) assert.equal(sim.events[p], or(0, ticks, p), `${file}: events of ${p}`);
      sim.free();
    }

    // Seeded random batches of 0…96 ticks: the hash at each batch's end.
    const random = make();
    let seed = 36 + players;
    for (let at = 0; at < ticks;) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const n = Math.min(seed % 97, ticks - at);
      assert.equal(random.stepMany(block, { first: at, ticks: n }), n);
      at += n;
      assert.equal(hex(random.stateHash()), hex(hashes[at]), `${file}: after tick ${at}`);
    }
    assert.deepEqual(end(random), want, `${file}: random batches`);
    random.free();

    // Stopped at every checkpoint: each call ends on the first tick with one.
    const stopped = make();
    let stops = 0;
    for (let at = 0; at < ticks;) {
      const ran = stopped.stepMany(block, { first: at, stopEvents: Event.CHECKPOINT });
      const hit = events.findIndex((e, t) => t >= at && e.some((x) => x & Event.CHECKPOINT));
      assert.equal(at + ran, hit < 0 ? ticks : hit + 1, `${file}: from ${at}`);
      for (let p = 0; p < players; p++) assert.equal(stopped.events[p], or(at, at + ran, p));
      at += ran;
      assert.equal(hex(stopped.stateHash()), hex(hashes[at]));
      stops += 1;
    }
    assert.ok(stops > 1, `${file}: ${stops} stops`);
    stopped.free();

    // Recorded in batches: the very bytes of a tick-by-tick recording.
    const recordWith = (stepAll) => {
      const sim = make();
      const recorder = pogo.recorder({ sim, playerName: 'batch' });
      stepAll(sim, recorder);
      recorder.finish();
      const out = recorder.bytes();
      recorder.free();
      sim.free();
      return out;
    };
    const byTick = recordWith((sim, recorder) => {
      for (let t = 0; t < ticks; t++) { sim.step(rows.map((row) => Replay.inputAt(row, t))); recorder.record(); }
    });
    const batched = recordWith((sim, recorder) => {
      assert.equal(sim.stepMany(all, { ticks: 100, recorder }), 100);
      assert.equal(sim.stepMany(block, { first: 100, recorder }), ticks - 100);
    });
    assert.deepEqual(batched, byTick, `${file}: recordings`);
    block.free();
    one.free();
  }
  verifier.free();
  tuning.free();
  level.free();
  assert.equal(pogo.handleCount(), handles, 'objects left alive');
  assert.equal(pogo.blockCount(), blocks, 'blocks left allocated');
});

test('a bad batch throws and runs nothing', async () => {
  const pogo = await instance();
  const handles = pogo.handleCount(), blocks = pogo.blockCount();
  const level = pogo.level('course'), tuning = pogo.tuning();
  const sim = pogo.simulation({ level, tuning, players: 2 });
  const inputs = new Int8Array(3 * 2 * 10).fill(20);
  for (let i = 2; i < inputs.length; i += 3) inputs[i] = 0;
  assert.equal(sim.stepMany(inputs, { ticks: 2 }), 2);
  const hash = sim.stateHash();
  const unchanged = () => { assert.equal(sim.tick, 2); assert.equal(sim.stateHash(), hash); };

  const bad = inputs.slice();
  bad[3 * (2 * 7 + 1) + 2] = 0x04; // player 1 at tick 7
  expectError(Status.INVALID_ARGUMENT, () => sim.stepMany(bad), /player 1 at tick 7/);
  const block = pogo.inputs(bad);
  expectError(Status.INVALID_ARGUMENT, () => sim.stepMany(block), /undefined/);
  unchanged();
  assert.equal(sim.stepMany(block, { ticks: 7 }), 7, 'the ticks before the bad one are fine');
  assert.equal(sim.tick, 9);
  block.free();
  assert.throws(() => sim.stepMany(block), TypeError, 'a freed block');

  // Counts: not whole ticks, past the end, negative, fractional.
  expectError(Status.INVALID_ARGUMENT, () => sim.stepMany(inputs.subarray(0, 5)), /whole ticks/);
  expectError(Status.INVALID_ARGUMENT, () => sim.stepMany(inputs, { ticks: 11 }));
  expectError(Status.INVALID_ARGUMENT, () => sim.stepMany(inputs, { first: 11 }));
  expectError(Status.INVALID_ARGUMENT, () => sim.stepMany(inputs, { first: -1 }));
  expectError(Status.INVALID_ARGUMENT, () => sim.stepMany(inputs, { ticks: 1.5 }));
  assert.equal(sim.stepMany(inputs, { first: 10 }), 0, 'nothing left: nothing runs');
  assert.equal(sim.tick, 9);

  // The module's own refusals: too many ticks (raw export), a recorder of another simulation.
  const status = pogo.x.pogo_sim_step_many(sim.id, 0, pogo.scratch, STEP_TICKS_MAX + 1, 0, pogo.scratch, 0);
  assert.equal(status, Status.INVALID_ARGUMENT);
  assert.match(pogo.lastError(), /36000/);
  const other = pogo.simulation({ level, tuning, players: 2 });
  const recorder = pogo.recorder({ sim: other });
  expectError(Status.MISMATCH, () => sim.stepMany(inputs, { ticks: 1, recorder }));
  assert.equal(sim.tick, 9);
  const good = pogo.inputs(inputs);
  for (const o of [recorder, other, sim, tuning, level]) o.free();
  expectError(Status.STALE_HANDLE, () => sim.stepMany(good, { ticks: 1 }));
  good.free();
  assert.equal(pogo.handleCount(), handles, 'objects left alive');
  assert.equal(pogo.blockCount(), blocks, 'blocks left allocated');
});
