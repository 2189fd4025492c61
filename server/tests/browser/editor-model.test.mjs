// The track editor's model without a browser (Node, on the page's own modules): the edits are
// pure and exact (a move and its opposite, a mirror twice, a resize, delete and paste), the
// level JSON the editor writes is one the server's gate (pogo.checkTrack, the wasm build)
// accepts and reads back to the same track, the undo history keeps at least 200 steps, codes
// round-trip and refuse what is not one, and the editor's own checks name their objects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';

import {
  History, HISTORY_MAX, addObjects, copyObjects, deleteObjects, emptyTrack, extentOf, levelJson, mirrorObjects,
  moveObjects, objectCount, resizeObject, trackFromLevel,
} from '../../web/editor/model.js';
import { decodeCode, encodeCode, parseImport } from '../../web/editor/codes.js';
import { friendlyProblems, keyOfField } from '../../web/editor/validate.js';
import { newObject } from '../../web/editor/tools.js';
import { WASM } from './support.mjs';
import { load } from '../../../ffi/js/pogo.mjs';

/** A small track: the floor, a runway, a ramp, a platform, a checkpoint and a finish. */
function sample() {
  let t = emptyTrack('sample');
  const rect = (x0, z0, x1, z1) => ({ x0, z0, x1, z1 });
  for (const [list, r] of [['solids', rect(8, -4, 24, 4)], ['ramps', rect(10, 6, 14, 10)], ['platforms', rect(-4, 10, 0, 14)],
    ['checkpoints', rect(10, -3, 12, 3)], ['finishes', rect(18, -3, 20, 3)], ['zones', rect(0, -2, 4, 2)], ['kills', rect(-10, -10, 30, 10)]]) {
    t = addObjects(t, [{ list, value: newObject(list, r, 0) }]).track;
  }
  return t;
}

const pogo = existsSync(WASM) ? await load(readFileSync(WASM)) : null;

test('the editor writes level JSON the server\'s gate accepts, and reads it back the same', { skip: !pogo && `no wasm module at ${WASM}` }, () => {
  const t = sample();
  const gate = pogo.checkTrack(levelJson(t));
  assert.equal(gate.ok, true, JSON.stringify(gate));
  assert.equal(gate.objects, objectCount(t));
  assert.equal(gate.extentM, extentOf(t));
  assert.deepEqual(trackFromLevel(JSON.parse(levelJson(t))), t);
  // Named by the geometry: the name changes nothing, a move changes the name.
  assert.equal(pogo.checkTrack(levelJson(t, 'other')).levelName, gate.levelName);
  assert.notEqual(pogo.checkTrack(levelJson(moveObjects(t, ['solids:1'], [0, 0.5, 0]))).levelName, gate.levelName);
  // A mirrored track is a track too.
  assert.equal(pogo.checkTrack(levelJson(mirrorObjects(t, ['ramps:0', 'platforms:0', 'checkpoints:0']))).ok, true);
});

test('edits are exact: a move and back, a mirror twice, a resize, delete and paste', () => {
  const t = sample();
  const keys = ['solids:1', 'ramps:0', 'platforms:0', 'checkpoints:0', 'spawn'];
  assert.deepEqual(moveObjects(moveObjects(t, keys, [3, 1, -2]), keys, [-3, -1, 2]), t);
  assert.deepEqual(mirrorObjects(mirrorObjects(t, keys), keys), t);
  const m = mirrorObjects(t, ['ramps:0']);
  assert.deepEqual(m.ramps[0].bounds, t.ramps[0].bounds, 'one object mirrors about its own middle');
  assert.equal(m.ramps[0].normal[0], -t.ramps[0].normal[0]);
  const r = resizeObject(t, 'checkpoints:0', { x0: 9, z0: -1, x1: 10, z1: 1 });
  assert.deepEqual(r.checkpoints[0], { min: [9, 0, -1], max: [10, 4, 1], spawn: [10, 0, 0] }, 'its respawn point kept inside');
  const p = resizeObject(t, 'platforms:0', { x0: -5, z0: 10, x1: 0, z1: 12 });
  assert.deepEqual(p.platforms[0].size, [5, 0.5, 2]);
  assert.deepEqual(p.platforms[0].path.ping_pong.to, [3, -0.5, 10], 'the path moves with its start');
  const d = deleteObjects(t, ['solids:0', 'checkpoints:0', 'spawn']);
  assert.equal(d.solids.length, 1);
  assert.equal(d.checkpoints.length, 0);
  assert.deepEqual(d.spawn, t.spawn, 'the spawn is never deleted');
  const copies = copyObjects(t, ['ramps:0', 'spawn']);
  assert.equal(copies.length, 1, 'the spawn is not copied');
  const { track: pasted, keys: added } = addObjects(t, copies);
  assert.deepEqual(added, ['ramps:1']);
  assert.deepEqual(pasted.ramps[1], t.ramps[0]);
});

test('the undo history keeps at least 200 steps', () => {
  assert.ok(HISTORY_MAX >= 200);
  let t = sample();
  const h = new History(t);
  for (let i = 0; i < 250; i++) {
    t = moveObjects(t, ['solids:1'], [1, 0, 0]);
    h.push(t);
  }
  for (let i = 0; i < 250; i++) h.undo();
  assert.deepEqual(h.current, sample());
  h.redo();
  assert.equal(h.current.solids[1].min[0], 9);
  h.push(emptyTrack());
  assert.equal(h.canRedo, false, 'an edit drops the redo branch');
});

test('codes round-trip, and what is not one is refused with a reason', async () => {
  const text = levelJson(sample());
  const code = await encodeCode(text);
  assert.match(code, /^pogo1:[A-Za-z0-9_-]+$/);
  assert.ok(code.length < text.length, `${code.length} characters for ${text.length} bytes`);
  assert.equal(await decodeCode(code), text);
  assert.equal(await decodeCode(`  ${code}\n`), text, 'spaces around a pasted code are fine');
  await assert.rejects(decodeCode('hello'), /starts with “pogo1:”/);
  await assert.rejects(decodeCode('pogo2:abc'), /another version/);
  await assert.rejects(decodeCode('pogo1:a b'), /characters a track code never has/);
  await assert.rejects(decodeCode('pogo1:AAAA'), /does not unpack/);
  // A bomb: a small code that unpacks past a track's size.
  const bomb = await encodeCode(' '.repeat(2 << 20));
  await assert.rejects(decodeCode(bomb), /unpacks to more than 262144 bytes/);
  const accept = () => ({ ok: true });
  assert.throws(() => parseImport('[1, 2]', accept), /not a level/);
  assert.throws(() => parseImport('nope', accept), /not JSON/);
  assert.deepEqual(parseImport(text, accept).name, 'sample');
  assert.throws(() => parseImport(text, () => ({ ok: false, field: 'solids[1]', why: 'too far' })), /solids\[1\]: too far/);
  assert.equal(parseImport(text, () => ({ ok: false, field: 'finishes', why: 'needs a finish' })).name, 'sample', 'a missing finish is let in');
});

test('the editor\'s own checks, and the gate\'s fields, name their objects', () => {
  assert.equal(keyOfField('solids[3].min[1]'), 'solids:3');
  assert.equal(keyOfField('platforms[0].path.ping_pong.period'), 'platforms:0');
  assert.equal(keyOfField('spawn'), 'spawn');
  assert.equal(keyOfField('finishes'), null);
  assert.equal(keyOfField(''), null);
  const t = sample();
  assert.deepEqual(friendlyProblems(t), []);
  const buried = { ...t, spawn: [0, -0.5, 0] };
  assert.deepEqual(friendlyProblems(buried).map((p) => p.key), ['spawn']);
  const behind = moveObjects(t, ['finishes:0'], [-24, 0, 0]);
  assert.deepEqual(friendlyProblems(behind).map((p) => p.key), ['checkpoints:0']);
  const still = structuredClone(t);
  still.platforms[0].path.ping_pong.period = 0;
  assert.deepEqual(friendlyProblems(still).map((p) => p.key), ['platforms:0']);
});
