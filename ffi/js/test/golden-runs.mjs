// The golden runs of tests/golden_hashes.rs and tests/golden_chains.rs written against
// pogo.mjs, for the wasm build's golden tests: in Node (golden.test.mjs) and in a browser
// (wide.test.mjs, the module with wide arithmetic). Imports nothing but pogo.mjs, so a page can
// import it as it is.

import { Event, formatFixed, hex } from '../pogo.mjs';

/** Player 1 of course-multi: a fixed steering and button pattern. */
function multiPattern(tick) {
  const steer = [[90, 0], [0, -60], [-40, 40], [127, 127]][Math.floor(tick / 45) % 4];
  const m = tick % 97;
  const buttons = m <= 2 ? 1 : m >= 50 && m <= 70 ? 2 : 0;
  return { steerX: steer[0], steerZ: steer[1], buttons };
}

export const GOLDEN_RUNS = [
  { name: 'flat-idle', level: 'flat', players: 1, ticks: 1200 },
  { name: 'course-bot', level: 'course', players: 1, ticks: 4800, bot: true },
  { name: 'course-multi', level: 'course', players: 3, ticks: 1800, bot: true, multi: true },
];

/** Runs a golden run: the lines of tests/golden/hashes.txt it must produce, and the
 * end-of-run values. `record` also records it and returns the replay bytes. */
export function goldenRun(pogo, run, { record = false } = {}) {
  const level = pogo.level(run.level), tuning = pogo.tuning();
  const sim = pogo.simulation({ level, tuning, players: run.players });
  const bot = pogo.bot();
  const recorder = record ? pogo.recorder({ sim }) : null;
  const lines = [];
  for (let tick = 0; tick < run.ticks; tick++) {
    const inputs = Array.from({ length: run.players }, () => ({ steerX: 0, steerZ: 0, buttons: 0 }));
    if (run.bot) inputs[0] = bot.input(sim, 0);
    if (run.multi) inputs[1] = multiPattern(tick);
    sim.step(inputs);
    recorder?.record();
    if ((tick + 1) % 60 === 0) lines.push(`${run.name} t=${tick + 1} ${hex(sim.stateHash())}`);
    let all = true;
    for (let p = 0; p < run.players; p++) all &&= sim.player(p).finished;
    if (all) break;
  }
  const hash = hex(sim.stateHash()), ticks = sim.tick;
  const sigs = [];
  for (let p = 0; p < run.players; p++) {
    const s = sim.player(p);
    const fields = `ticks=${ticks} bounces=${s.bounces} apex=${formatFixed(s.apexRaw, 4)} `
      + `finish=${s.finished ? s.finishTick : 'none'} hash=${hash}`;
    lines.push(`${run.name} end P${p} ${fields}`);
    sigs.push(`SIG ${fields}`);
  }
  let bytes = null;
  if (recorder) {
    recorder.finish();
    bytes = recorder.bytes();
    recorder.free();
  }
  bot.free();
  sim.free();
  tuning.free();
  level.free();
  return { lines, sigs, bytes };
}

// tests/golden_chains.rs's seeded random player: xorshift64* on BigInts.
export class RandomPlayer {
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

export const CHAIN_TUNINGS = [
  { label: '', json: '{}' },
  { label: 'tick_rate=30', json: '{"tick_rate": 30}' },
  { label: 'tick_rate=64 body_radius=0.6 gravity=30', json: '{"tick_rate": 64, "body_radius": 0.6, "gravity": 30}' },
];

/** The golden chains (tests/golden/chains.txt's order: each level, then each tuning): 6
 * players, the bot and five seeded random ones, 2 400 ticks; each chain's level, tuning label,
 * final state hash, bounces and deaths. */
export function goldenChains(pogo) {
  const rows = [];
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
      rows.push({ levelName, label, final: hex(sim.stateHash()), bounces, deaths: String(deaths) });
      bot.free();
      sim.free();
      tuning.free();
    }
    level.free();
  }
  return rows;
}

/** Checks the rows of `goldenChains` against the lines of tests/golden/chains.txt; `assert`
 * is node:assert's. */
export function checkChains(assert, rows, golden) {
  const field = (line, key) => line.split(' ').find((w) => w.startsWith(key + '=')).slice(key.length + 1);
  assert.equal(rows.length, golden.length);
  rows.forEach((row, i) => {
    const line = golden[i];
    assert.ok(line.startsWith(`${row.levelName} [${row.label}] `), line);
    assert.equal(row.final, field(line, 'final'), line);
    assert.equal(row.bounces, field(line, 'bounces'), line);
    assert.equal(row.deaths, field(line, 'deaths'), line);
  });
}
