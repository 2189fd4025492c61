// pogo.checkTrack: the server's gate for a player-made track, run in WebAssembly. An accepted
// track is named by its geometry (renaming it keeps the name, moving a box changes it); each
// refusal names its field; nothing leaks.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { instance } from './support.mjs';

const track = (name, finishX = 3) => JSON.stringify({
  name, spawn: [0, 1, 0],
  solids: [{ min: [-5, -1, -5], max: [5, 0, 5] }],
  checkpoints: [{ min: [1, 0, -1], max: [2, 2, 1], spawn: [1.5, 0, 0] }],
  finishes: [{ min: [finishX, 0, -1], max: [finishX + 1, 2, 1] }],
});

test('an accepted track is named by its geometry', async () => {
  const pogo = await instance();
  const blocks = pogo.blockCount();
  const a = pogo.checkTrack(track('mine'));
  assert.equal(a.ok, true, JSON.stringify(a));
  assert.match(a.levelName, /^t-[0-9a-f]{16}$/);
  assert.equal(a.levelName, `t-${a.geometryHash}`);
  assert.equal(a.objects, 3);
  assert.equal(a.extentM, 5);
  // The worst tick it allows, against the publish limit: a moving platform costs every tick.
  assert.equal(a.tickCostMax, 6000);
  assert.ok(a.tickCost > 0 && a.tickCost <= a.tickCostMax, JSON.stringify(a));
  const moving = JSON.parse(track('mine'));
  moving.platforms = [{ size: [2, 0.5, 1], path: { ping_pong: { from: [-1, 0, 2], to: [0, 0, 3], period: 4 } } }];
  assert.ok(pogo.checkTrack(JSON.stringify(moving)).tickCost > a.tickCost);
  assert.equal(pogo.checkTrack(track('renamed')).levelName, a.levelName);
  assert.notEqual(pogo.checkTrack(track('mine', 3.5)).levelName, a.levelName);
  // The level it names loads, and the level renamed to it hashes as a level like any other.
  const renamed = JSON.parse(track('mine'));
  renamed.name = a.levelName;
  const level = pogo.levelFromJson(JSON.stringify(renamed));
  assert.equal(level.name, a.levelName);
  level.free();
  assert.equal(pogo.handleCount(), 0);
  assert.equal(pogo.blockCount(), blocks);
});

test('each refusal names its field and says why', async () => {
  const pogo = await instance();
  const refused = (text) => {
    const r = pogo.checkTrack(text);
    assert.equal(r.ok, false, JSON.stringify(r));
    return r;
  };
  const base = JSON.parse(track('mine'));
  assert.equal(refused(JSON.stringify({ ...base, finishes: [] })).field, 'finishes');
  const far = structuredClone(base);
  far.solids.push({ min: [4999, 0, 0], max: [5000, 1, 1] });
  const r = refused(JSON.stringify(far));
  assert.equal(r.field, 'solids[1]');
  assert.match(r.why, /2000|2 000|2 km/);
  const many = structuredClone(base);
  many.solids = Array.from({ length: 2001 }, (_, i) => ({ min: [i % 40, -1, Math.floor(i / 40)], max: [i % 40 + 1, 0, Math.floor(i / 40) + 1] }));
  assert.match(refused(JSON.stringify(many)).why, /objects/);
  assert.match(refused('x'.repeat(300 << 10)).why, /bytes/);
  const notJson = refused('not json at all');
  assert.equal(notJson.field, '');
  assert.ok(notJson.why.length > 0);
  assert.equal(refused('{"name": 3}').field, 'name');
  assert.equal(pogo.handleCount(), 0);
});
