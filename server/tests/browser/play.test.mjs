// The play view (`#/play/LEVEL`) in a real browser: Debian's Chromium, headless, WebGL through
// SwiftShader (no GPU), against the real `pogo-server` on loopback. What the page computes is
// compared with an oracle outside it, never with itself: the CLI (`pogo simulate`: state
// hashes, the per-tick trace), the fixtures' verdicts (server/examples/web_fixtures.rs), the
// server's own verification of what the page uploads, and the wasm core run in Node from the
// same module the server serves (to script the demo bot's inputs, and the neutral run a
// steered one must leave).
//
// Run: `cargo build --workspace --bins --examples` and the wasm module
// (`cargo build -p pogo-ffi --target wasm32-unknown-unknown --profile wasm-release`), then
// `npm ci && POGO_PROFILE=debug npm test` here. Screenshots go to POGO_SCREENSHOTS (default
// target/web-screenshots): play-LEVEL.png, play-desktop.png, play-touch.png, play-gamepad.png.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CLI_BIN, REPO, SCREENSHOTS, WASM, api, makeFixtures, openBrowser, requireFile, startServer } from './support.mjs';
import { eventsOf } from './live-support.mjs';

/** Each test stops by itself within this (a hung page fails the test, never CI's clock). */
const BOUNDED = { timeout: 60_000 };
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
/** Uploaded before the browser opens: the board's runs and the ghosts' sources. */
const SEEDED = ['bot.pogo', 'eve.pogo', 'ana.pogo', 'zoe.pogo'];
/** The flat scripted run: tests/golden/flat-script.txt for this many ticks. */
const FLAT_SCRIPT = join(REPO, 'tests/golden/flat-script.txt');
const FLAT_TICKS = 1200;

let fx;
let server;
let client;
let rate;
/** The wasm core in Node (ffi/js/pogo.mjs over the module the server serves). */
let core;
/** The demo bot on course, as the CLI runs it: per-tick inputs, finish tick, final hash. */
let courseBot;
/** The neutral run on course: the tip's [x, z] after each tick (index = tick). */
let courseNeutral;
const uploaded = new Map();

const entry = (file) => fx.manifest.runs.find((r) => r.file === file);

/** `pogo simulate ARGS` → the SIG line's fields. */
function simulate(args) {
  const out = execFileSync(CLI_BIN, ['simulate', ...args], { encoding: 'utf8', timeout: 60_000 });
  const sig = out.split('\n').find((line) => line.startsWith('SIG '));
  return Object.fromEntries(sig.slice(4).split(' ').map((kv) => kv.split('=')));
}

/** Runs `levelName` in the Node core with `input(tick, sim)` until the finish or `ticks`. */
function runInNode(levelName, input, ticks) {
  const { pogo } = core;
  const level = pogo.level(levelName);
  const sim = pogo.simulation({ level, tuning: core.tuning, players: 1 });
  const inputs = [];
  const tips = [];
  const splits = [];
  let finishTick = null;
  try {
    for (let t = 0; t < ticks && finishTick === null; t++) {
      const i = input(t, sim);
      inputs.push(i);
      sim.step([i]);
      const state = sim.player(0);
      tips.push([state.position[0], state.position[2]]);
      if (state.events & core.Event.CHECKPOINT) splits.push({ checkpoint: state.checkpoint, tick: t });
      if (state.finished) finishTick = state.finishTick;
    }
    return { inputs, tips, splits, finishTick, hash: core.hex(sim.stateHash()), ticks: sim.tick };
  } finally {
    sim.free();
    level.free();
  }
}

/** The demo bot after `idle` neutral ticks, as web_fixtures.rs records its runs. */
function botRun(levelName, idle = 0) {
  const bot = core.pogo.bot();
  try {
    return runInNode(levelName, (t, sim) => (t < idle ? { steerX: 0, steerZ: 0, buttons: 0 } : bot.input(sim, 0)), 7200);
  } finally {
    bot.free();
  }
}

/** The demo bot after `idle` neutral ticks, recorded by the Node core under `playerName`. */
function recordBot(levelName, idle, playerName) {
  const { pogo } = core;
  const level = pogo.level(levelName);
  const sim = pogo.simulation({ level, tuning: core.tuning, players: 1 });
  const recorder = pogo.recorder({ sim, playerName });
  const bot = pogo.bot();
  try {
    for (let t = 0; t < 7200 && !sim.player(0).finished; t++) {
      sim.step([t < idle ? { steerX: 0, steerZ: 0, buttons: 0 } : bot.input(sim, 0)]);
      recorder.record();
    }
    recorder.finish();
    return recorder.bytes();
  } finally {
    for (const object of [bot, recorder, sim, level]) object.free();
  }
}

/** tests/golden/flat-script.txt as driver events: `TIME sx sz [buttons]`, TIME a tick or `Ns`. */
function scriptEvents(path) {
  const events = [];
  for (const raw of readFileSync(path, 'utf8').split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) continue;
    const [time, sx, sz, buttons = ''] = line.split(/\s+/);
    let ns;
    if (time.endsWith('s')) {
      const [whole, frac = ''] = time.slice(0, -1).split('.');
      ns = BigInt(whole) * 1_000_000_000n + BigInt((frac + '000000000').slice(0, 9));
    } else {
      ns = (BigInt(time) * 1_000_000_000n) / BigInt(rate);
    }
    const bits = buttons.split(',').filter(Boolean).reduce((b, name) => b | { trick: 1, dive: 2 }[name], 0);
    events.push([ns.toString(), { steerX: Number(sx), steerZ: Number(sz), buttons: bits }]);
  }
  return events;
}

/**
 * Drives the page's manual clock: a frame every `step` ticks (at the first ns tick n has
 * ended, so after it exactly n ticks have run), each preceded by the events due by then (the
 * driver's contract), until `until` ticks have run or the run is over. Returns what the page
 * filed each event at (the driver clamps an out-of-order one) and the state at the end.
 */
function drive(page, { events = [], until, step = 1 }) {
  return page.evaluate(({ events, until, step, rate }) => {
    const play = window.__pogo.play;
    const r = BigInt(rate);
    const filed = [];
    let e = 0;
    for (let n = BigInt(play.tick()) + BigInt(step); ; n += BigInt(step)) {
      if (n > BigInt(until)) n = BigInt(until);
      const now = (n * 1_000_000_000n + r - 1n) / r;
      while (e < events.length && BigInt(events[e][0]) <= now) {
        filed.push(play.input(events[e][0], events[e][1]) === events[e][0]);
        e++;
      }
      play.frame(now);
      if (play.state === 'finished' || n >= BigInt(until)) break;
    }
    return { allFiledOnTime: filed.every(Boolean), pushed: filed.length, tick: play.tick(), state: play.state, hash: play.hash(), player: play.player() };
  }, { events, until, step, rate });
}

before(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  requireFile(CLI_BIN, 'cargo build --workspace --bins');
  requireFile(WASM, 'cargo build -p pogo-ffi --target wasm32-unknown-unknown --profile wasm-release');
  const binding = await import(pathToFileURL(join(REPO, 'ffi/js/pogo.mjs')).href);
  const pogo = await binding.load(readFileSync(WASM));
  core = { pogo, tuning: pogo.tuning(), hex: binding.hex, formatFixed: binding.formatFixed, Event: binding.Event };
  fx = makeFixtures();
  server = await startServer();
  client = api(server.base);
  rate = (await client.get('/api/levels')).body[0].tick_rate;
  for (const file of SEEDED) {
    const e = entry(file);
    const { status, body } = await client.upload(await client.register(e.player), readFileSync(fx.file(file)));
    assert.equal(status, 202, `${file}: ${JSON.stringify(body)}`);
    assert.equal((await client.verdict(body.id)).status, 'verified', file);
    uploaded.set(file, { ...e, id: body.id });
  }
  // A verified run of another level (a ghost the course refuses).
  const flat = await client.upload(await client.register('script'), readFileSync(join(REPO, 'samples/flat-script.pogo')));
  assert.equal((await client.verdict(flat.body.id)).status, 'verified');
  uploaded.set('flat-script.pogo', { id: flat.body.id, level: 'flat' });

  // The oracle: the CLI's bot on course, and the same bot driven through the Node core.
  const cli = simulate(['--level', 'course', '--bot']);
  courseBot = botRun('course');
  assert.equal(courseBot.finishTick, Number(cli.finish), 'the Node core\'s bot finishes where the CLI\'s does');
  assert.equal(courseBot.hash, cli.hash, 'and on the same state');
  assert.equal(courseBot.finishTick, entry('bot.pogo').finish_tick, 'bot.pogo is that run');
  courseNeutral = runInNode('course', () => ({ steerX: 0, steerZ: 0, buttons: 0 }), 3600).tips;
});

after(async () => {
  await server?.stop();
});

/** A page of `context` that collects script errors; `identity`: {name, token} kept before load. */
async function newPage(context, errors, { identity = null } = {}) {
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    // A 4xx answer the page expects (a ghost that is not there) logs "Failed to load resource".
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(`console: ${m.text()}`);
  });
  if (identity) await page.addInitScript((id) => localStorage.setItem('pogo.player', JSON.stringify(id)), identity);
  return page;
}

/** Opens `#/play/…` and waits for the view to be ready to race. */
async function openPlay(page, hash) {
  await page.goto(`${server.base}/${hash}`);
  await page.waitForFunction((h) => {
    const main = document.getElementById('main');
    return main.dataset.route === h && (main.dataset.playState === 'ready' || main.querySelector('.error'));
  }, hash, { timeout: 40_000 });
  const state = await page.locator('main').getAttribute('data-play-state');
  if (state !== 'ready') assert.fail(`the play view did not get ready: ${await page.locator('main').innerText()}`);
}

/** Waits until the page's input is a full stick, then for `ticks` more ticks of the run;
 * returns the tick the full stick was first seen at. */
async function heldFor(page, ticks) {
  await page.waitForFunction(() => {
    const i = window.__pogo.play.lastInput();
    return Math.hypot(i.steerX, i.steerZ) > 120;
  }, null, { timeout: 20_000 });
  const tick0 = await page.evaluate(() => window.__pogo.play.tick());
  await page.waitForFunction((t) => window.__pogo.play.tick() >= t, tick0 + ticks, { timeout: 30_000 });
  return tick0;
}

/**
 * Checks a run steered by a held stick from about tick `tick0`: two seconds after it was let
 * go the run is stopped, and what it recorded holds the quantised full stick on at least
 * `minHeld` ticks; the same inputs in Node put the pogo where the page had it; and the pogo
 * went over 0.5 m from the neutral run along the way. Not at the end: "right" is relative to
 * the chase camera, which swings behind the pogo as it turns, so a held stick circles and the
 * pogo may come back near where the neutral run bounces (0.000 m at the end, twice in CI).
 */
async function steeredRun(page, tick0, minHeld, device) {
  await page.waitForFunction((t) => window.__pogo.play.tick() >= t, tick0 + minHeld + 120, { timeout: 30_000 });
  const { tick, player } = await offNeutral(page);
  await page.evaluate(() => window.__pogo.play.stop());
  const replay = core.pogo.replay(Uint8Array.from(await page.evaluate(() => window.__pogo.play.replay())));
  const inputs = replay.inputs(0); // steerX, steerZ, buttons per tick
  replay.free();
  const ticks = inputs.length / 3;
  const held = Array.from({ length: ticks }, (_, t) => t).filter((t) => Math.hypot(inputs[3 * t], inputs[3 * t + 1]) > 120);
  const seen = `${device}: stick on ticks ${held[0]}..${held[held.length - 1]} (${held.length} of ${ticks}; seen at ${tick0})`;
  assert.ok(held.length >= minHeld, seen);
  const replayed = runInNode('course', (t) => ({ steerX: inputs[3 * t], steerZ: inputs[3 * t + 1], buttons: inputs[3 * t + 2] }), tick).tips;
  assert.deepEqual(replayed[tick - 1], [player.position[0], player.position[2]], 'the page is where its inputs take the pogo');
  const farthest = Math.max(...replayed.map(([x, z], t) => Math.hypot(x - courseNeutral[t][0], z - courseNeutral[t][1])));
  assert.ok(farthest > 0.5, `the pogo was at most ${farthest.toFixed(3)} m from the neutral run; ${seen}`);
  console.error(`${seen}; at most ${farthest.toFixed(3)} m off the neutral run in ${tick} ticks`);
}

/** The horizontal distance (m) of the page's player from the neutral run at the same tick. */
async function offNeutral(page) {
  const { tick, player } = await page.evaluate(() => ({ tick: window.__pogo.play.tick(), player: window.__pogo.play.player() }));
  assert.ok(tick > 0 && tick <= courseNeutral.length, `tick ${tick}`);
  const [x, z] = courseNeutral[tick - 1];
  return { tick, player, distance: Math.hypot(player.position[0] - x, player.position[2] - z) };
}

describe('the play view at 1280×800', () => {
  let context;
  const errors = [];

  before(async () => {
    context = await openBrowser(DESKTOP, { webgl: true });
  });
  after(async () => {
    await context?.close();
    assert.deepEqual(errors, [], 'no script errors, no CSP violations');
  });

  test('the race takes only the events its state accepts (play/race.js\'s table)', BOUNDED, async () => {
    const page = await newPage(context, errors);
    await page.goto(`${server.base}/`);
    const seen = await page.evaluate(async () => {
      const { EVENTS, Race } = await import('/web/play/race.js');
      const states = Object.keys(EVENTS);
      const targets = Object.values(EVENTS).flatMap((events) => Object.values(events));
      const entered = [];
      const screens = Object.fromEntries(states.map((s) => [s, () => entered.push(s)]));
      const race = new Race({ screens, manual: true });
      // Loading accepts none of these: each is refused, the state stays.
      race.go(0);
      race.finish();
      await race.start();
      const whileLoading = race.state;
      race.fail(new Error('no level'));
      race.coreMissing(new Error('no core')); // failed accepts nothing
      return { states, targets, whileLoading, entered, state: race.state, inProgress: race.inProgress };
    });
    assert.ok(seen.targets.every((t) => seen.states.includes(t)), `every event leads to a state: ${seen.targets}`);
    assert.deepEqual(['ready', 'joining', 'lobby', 'countdown', 'racing', 'finished', 'filing', 'submitting', 'verified', 'refused', 'watching', 'over']
      .filter((s) => !seen.targets.includes(s)), [], 'every state is reachable');
    assert.equal(seen.whileLoading, 'loading');
    assert.deepEqual(seen.entered, ['failed']);
    assert.equal(seen.state, 'failed');
    assert.equal(seen.inProgress, false);
    await page.close();
  });

  test('WebGL is there (SwiftShader), so the 3D view is tested for real', BOUNDED, async () => {
    const page = await newPage(context, errors);
    await page.goto(`${server.base}/`);
    assert.equal(await page.evaluate(() => !!document.createElement('canvas').getContext('webgl2')), true);
    await page.close();
  });

  for (const level of ['flat', 'course', 'sprawl']) {
    test(`${level}: the view loads, gets ready and draws the level`, BOUNDED, async () => {
      const page = await newPage(context, errors);
      await openPlay(page, `#/play/${level}?clock=manual&live=off&leader=no`);
      assert.equal(await page.locator('.play-overlay .error').count(), 0, 'no "No 3D view" message');
      assert.equal(await page.locator('section.play .level-name').innerText(), level);
      // One frame at the start, read back in the same task (before the buffer is presented).
      const picture = await page.evaluate(() => {
        window.__pogo.play.frame(0);
        const canvas = document.querySelector('canvas.play-canvas');
        const copy = document.createElement('canvas');
        [copy.width, copy.height] = [canvas.width, canvas.height];
        const g = copy.getContext('2d');
        g.drawImage(canvas, 0, 0);
        const data = g.getImageData(0, 0, copy.width, copy.height).data;
        const counts = new Map();
        for (let i = 0; i < data.length; i += 4) {
          const key = (data[i] >> 3) << 10 | (data[i + 1] >> 3) << 5 | data[i + 2] >> 3;
          counts.set(key, (counts.get(key) ?? 0) + 1);
        }
        const top = Math.max(...counts.values());
        return { width: canvas.width, height: canvas.height, client: [canvas.clientWidth, canvas.clientHeight], colours: counts.size, topShare: top / (data.length / 4) };
      });
      assert.ok(picture.width >= 300 && picture.height >= 200, `canvas ${picture.width}×${picture.height}`);
      assert.ok(picture.colours >= 16, `${picture.colours} colours drawn: the canvas is blank`);
      assert.ok(picture.topShare < 0.9, `one colour covers ${(picture.topShare * 100).toFixed(1)} % of the canvas`);
      assert.equal(await page.evaluate(() => window.__pogo.play.tick()), 0);
      // A second of racing (hands off; the overlay gone), for the screenshot.
      await page.evaluate(() => window.__pogo.play.start());
      assert.equal((await drive(page, { until: rate, step: 6 })).tick, rate);
      await page.screenshot({ path: join(SCREENSHOTS, `play-${level}.png`) });
      await page.close();
    });
  }

  test('flat: a scripted run gives the CLI\'s state; the clock runs out at 10 minutes (flat has no finish), and the run verifies on the server', BOUNDED, async () => {
    const name = 'flat racer';
    const token = await client.register(name);
    const page = await newPage(context, errors, { identity: { name, token } });
    await openPlay(page, '#/play/flat?clock=manual&live=off&render=none&leader=no');
    await page.evaluate(() => window.__pogo.play.start());
    assert.equal(await page.evaluate(() => window.__pogo.play.state), 'racing');
    const events = scriptEvents(FLAT_SCRIPT);
    const run = await drive(page, { events, until: FLAT_TICKS });
    assert.ok(run.allFiledOnTime && run.pushed === events.length, 'every event filed at its own time');
    assert.equal(run.tick, FLAT_TICKS);
    assert.equal(run.hash, simulate(['--level', 'flat', '--inputs', FLAT_SCRIPT, '--ticks', String(FLAT_TICKS)]).hash,
      `the page's state after ${FLAT_TICKS} ticks is the CLI's`);
    // flat has no finish volume: a run there ends when the clock runs out (600 s), unranked.
    const end = await drive(page, { until: 600 * rate, step: 600 * rate });
    assert.equal(end.state, 'finished');
    const result = await page.evaluate(() => window.__pogo.play.result());
    assert.equal(result.ticks, 600 * rate);
    assert.equal(result.finishTick, null);
    assert.equal(result.hash, simulate(['--level', 'flat', '--inputs', FLAT_SCRIPT, '--ticks', String(600 * rate)]).hash);
    assert.match(await page.locator('.hud-message').innerText(), /Time is up/);
    assert.equal(await page.locator('.play-finish').isHidden(), true, 'no finish panel for a run that did not finish');
    const bytes = Uint8Array.from(await page.evaluate(() => window.__pogo.play.replay()));
    const { status, body } = await client.upload(token, bytes);
    assert.equal(status, 202, JSON.stringify(body));
    const verdict = await client.verdict(body.id);
    assert.equal(verdict.status, 'verified', JSON.stringify(verdict));
    assert.equal(verdict.finish_tick, null);
    assert.equal(verdict.final_hash, result.hash, 'the server ends on the browser\'s state');
    assert.equal(verdict.player, name);
    await page.close();
  });

  test('course: the demo bot\'s inputs finish, upload from the finish panel, verify and rank; splits even with the leader\'s ghost', BOUNDED, async () => {
    const name = 'racer';
    const token = await client.register(name);
    const page = await newPage(context, errors, { identity: { name, token } });
    await openPlay(page, '#/play/course?clock=manual&live=off&render=none');
    const leader = uploaded.get('bot.pogo');
    const ghosts = await page.evaluate(() => window.__pogo.play.ghosts());
    assert.deepEqual(ghosts.map((g) => [g.runId, g.refused ?? null, g.finishTick]), [[leader.id, null, leader.finish_tick]], 'the leader\'s ghost');
    await page.evaluate(() => window.__pogo.play.start());
    const events = eventsOf(courseBot.inputs, rate);
    const run = await drive(page, { events, until: 7200 });
    assert.ok(run.allFiledOnTime && run.pushed === events.length);
    assert.equal(run.state, 'finished');
    const result = await page.evaluate(() => window.__pogo.play.result());
    assert.deepEqual([result.finishTick, result.ticks, result.hash], [courseBot.finishTick, courseBot.finishTick + 1, courseBot.hash]);
    // Every split is the bot's, and even with the leader's ghost (the same inputs).
    const splits = await page.evaluate(() => window.__pogo.play.splits());
    assert.deepEqual(splits.map((s) => [s.checkpoint, s.tick]), leader.splits.map((s) => [s.checkpoint, s.tick]));
    const table = await page.locator('.hud-splits li .delta').evaluateAll((spans) => spans.map((s) => [s.className, s.textContent.trim()]));
    assert.deepEqual(table, leader.splits.map(() => ['delta even', '±0.000']));

    // The finish panel: upload, then queued → verifying → verified with the rank.
    const panel = page.locator('.play-finish .finish-panel');
    await panel.waitFor();
    assert.equal(await panel.getAttribute('data-browser-hash'), result.hash);
    await page.locator('.finish-upload').click();
    await page.waitForFunction(() => ['verified', 'rejected', 'error'].includes(window.__pogo.submit?.state), null, { timeout: 30_000 });
    const submit = await page.evaluate(() => window.__pogo.submit);
    assert.equal(submit.state, 'verified', submit.message);
    const status = (await client.get(`/api/runs/${submit.runId}`)).body;
    assert.equal(status.player, name);
    assert.equal(status.finish_tick, courseBot.finishTick);
    assert.equal(status.final_hash, result.hash, 'the server\'s final hash is the browser\'s');
    assert.equal(submit.serverHash, result.hash);
    // Ranked after every seeded run as fast or faster (a tie goes to the earlier upload).
    const rank = 1 + [...uploaded.values()].filter((u) => u.level === 'course' && u.finish_tick <= result.finishTick).length;
    assert.equal(status.rank, rank);
    assert.equal(submit.rank, rank);
    assert.equal(await panel.getAttribute('data-hash-match'), 'true');
    assert.equal(await page.evaluate(() => window.__pogo.play.state), 'verified', 'the race followed its upload');
    // What next: the run, the board around the racer, the run as a ghost (links, nothing else).
    const next = page.locator('.finish-next');
    assert.deepEqual(await next.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href'))),
      [`#/run/${submit.runId}`, `#/level/course?around=${name}`, `#/play/course?ghosts=${submit.runId}`]);
    assert.equal(await next.innerText(), 'See the run · See the board · Race this run as a ghost');
    await page.close();
  });

  test('a ghost at tick T is where the CLI\'s trace has it at tick T', BOUNDED, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pogo-play-trace-'));
    const csv = join(dir, 'course-bot.csv');
    simulate(['--level', 'course', '--bot', '--trace', csv]);
    const rows = readFileSync(csv, 'utf8').trim().split('\n').slice(1).map((line) => line.split(','));
    const bot = uploaded.get('bot.pogo');
    const page = await newPage(context, errors);
    await openPlay(page, `#/play/course?clock=manual&live=off&render=none&leader=no&ghosts=${bot.id}`);
    await page.evaluate(() => window.__pogo.play.start());
    for (const T of [0, 600, 1234, bot.finish_tick]) {
      // The trace's row T is the state after tick T ran (ticks count from 0), i.e. after T + 1
      // ticks; the ghost steps tick T when the player's tick T runs, so drive the player to
      // T + 1 ticks and the ghost's `tick` (ticks run) is T + 1 too.
      await drive(page, { until: T + 1 });
      const [ghost] = await page.evaluate(() => window.__pogo.play.ghosts());
      const row = rows[T];
      assert.equal(Number(row[0]), T);
      assert.equal(ghost.tick, T + 1);
      assert.equal(ghost.stateName, row[1], `state at tick ${T}`);
      assert.deepEqual(ghost.positionRaw.map((raw) => core.formatFixed(BigInt(raw), 6)), row.slice(2, 5), `tip at tick ${T}, exactly as the CLI prints it`);
      ghost.position.forEach((p, i) => assert.ok(Math.abs(p - Number(row[2 + i])) <= 1e-6, `axis ${i} at tick ${T}: ${p} vs ${row[2 + i]}`));
    }
    await page.close();
  });

  test('bad ghosts (404, corrupt bytes, another level, another rules version) are refused with why; the race goes on', BOUNDED, async () => {
    const bot = uploaded.get('bot.pogo');
    const flat = uploaded.get('flat-script.pogo');
    const [corruptId, rulesId, missingId] = [900001, 900002, 999999];
    const good = readFileSync(fx.file('bot.pogo'));
    const corrupt = Buffer.from(good);
    corrupt[Math.floor(corrupt.length / 2)] ^= 0x5a;
    const otherRules = readFileSync(fx.file('other-rules.pogo'));
    // What the wasm verifier says of the corrupt bytes (Node, the same module).
    const verifier = core.pogo.verifier({ tuning: core.tuning });
    const corruptVerdict = verifier.verify(corrupt);
    verifier.free();
    assert.equal(corruptVerdict.verified, false);
    const rules = entry('other-rules.pogo');
    assert.equal(rules.kind, 'rules_version');

    const page = await newPage(context, errors);
    // Hostile bytes as the browser would see them from a server: served for ids no run has.
    await page.route(`**/api/runs/${corruptId}/replay`, (route) => route.fulfill({ status: 200, contentType: 'application/octet-stream', body: corrupt }));
    await page.route(`**/api/runs/${rulesId}/replay`, (route) => route.fulfill({ status: 200, contentType: 'application/octet-stream', body: otherRules }));
    const ids = [missingId, bot.id, corruptId, flat.id, rulesId];
    await openPlay(page, `#/play/course?clock=manual&live=off&render=none&leader=no&ghosts=${ids.join(',')}`);
    const legend = await page.locator('.hud-legend li').evaluateAll((lis) => lis.map((li) => ({
      key: li.dataset.ghost, refused: li.classList.contains('refused'), why: li.querySelector('.why')?.textContent ?? null,
    })));
    assert.deepEqual(legend, [
      { key: `run-${missingId}`, refused: true, why: ' — no such run' },
      { key: `run-${bot.id}`, refused: false, why: null },
      { key: `run-${corruptId}`, refused: true, why: ` — ${corruptVerdict.kindName}: ${corruptVerdict.reason}` },
      { key: `run-${flat.id}`, refused: true, why: ' — a run of flat, not of course' },
      { key: `run-${rulesId}`, refused: true, why: ` — ${rules.kind}: ${rules.reason}` },
    ]);
    assert.match(await page.locator('.play-overlay').innerText(), /1 ghost\b/);
    // The race goes on with the good ghost, to the finish.
    await page.evaluate(() => window.__pogo.play.start());
    const run = await drive(page, { events: eventsOf(courseBot.inputs, rate), until: 7200 });
    assert.equal(run.state, 'finished');
    const result = await page.evaluate(() => window.__pogo.play.result());
    assert.equal(result.finishTick, courseBot.finishTick);
    const ghosts = await page.evaluate(() => window.__pogo.play.ghosts());
    const live = ghosts.filter((g) => !g.refused);
    assert.deepEqual(live.map((g) => [g.runId, g.tick, g.stateName]), [[bot.id, bot.finish_tick + 1, 'finished']]);
    await page.close();
  });

  test('the gamepad steers a run; its axes are quantised as the core\'s Input', BOUNDED, async () => {
    const page = await newPage(context, errors);
    // One standard gamepad whose axes and buttons the test sets.
    await page.addInitScript(() => {
      window.__pad = { axes: [0, 0, 0, 0], buttons: Array.from({ length: 17 }, () => ({ pressed: false, touched: false, value: 0 })) };
      const pad = () => ({
        id: 'test pad (STANDARD GAMEPAD)', index: 0, connected: true, mapping: 'standard',
        timestamp: performance.now(), axes: [...window.__pad.axes], buttons: window.__pad.buttons.map((b) => ({ ...b })),
      });
      Object.defineProperty(Navigator.prototype, 'getGamepads', { configurable: true, value: () => [pad(), null, null, null] });
    });
    await openPlay(page, '#/play/course?leader=no');
    const units = await page.evaluate(async () => {
      const { quantiseAxis, deadZone } = await import('/web/play/input.js');
      return {
        q: [1, -1, 0.5, -0.999, 0, NaN, Infinity, 2, -2, 1 / 127, 0.0078].map(quantiseAxis),
        d: [0, 0.1, 0.15, -0.15, 0.575, -0.575, 1, -1, 1.5, NaN].map(deadZone),
      };
    });
    assert.deepEqual(units.q, [127, -127, 63, -126, 0, 0, 0, 127, -127, 1, 0]);
    assert.deepEqual(units.d.map((v) => Math.round(v * 1e12) / 1e12 + 0), [0, 0, 0, 0, 0.5, -0.5, 1, -1, 1, 0]);

    await page.locator('.play-button').click();
    await page.waitForFunction(() => window.__pogo.play.state === 'racing', null, { timeout: 10_000 });
    await page.evaluate(() => { window.__pad.axes[0] = 1; });
    // A pad is polled once per frame, and SwiftShader frames here can stall for a second: hold
    // the stick for 60 ticks of game time from the first frame that saw it, not for a
    // wall-clock second (which a stalled renderer may have seen as one frame).
    const tick0 = await heldFor(page, 60);
    const steered = await page.evaluate(() => ({ devices: window.__pogo.play.devices(), input: window.__pogo.play.lastInput() }));
    await page.screenshot({ path: join(SCREENSHOTS, 'play-gamepad.png') });
    await page.evaluate(() => { window.__pad.axes[0] = 0; });
    await page.waitForFunction(() => window.__pogo.play.lastInput().steerX === 0 && window.__pogo.play.lastInput().steerZ === 0);
    assert.ok(steered.devices.includes('gamepad'), JSON.stringify(steered.devices));
    // Full right, turned by the camera's heading: each axis is rounded toward zero, so its
    // length is within √2 of 127 (89, 89 at 45°).
    assert.ok(Math.hypot(steered.input.steerX, steered.input.steerZ) > 127 - Math.SQRT2, `full stick: ${JSON.stringify(steered.input)}`);
    await steeredRun(page, tick0, 60, 'gamepad');
    await page.close();
  });

  test('a ranked run cannot be paused: a hidden tab lets go of the keys, and the driver catches up every tick on return', BOUNDED, async () => {
    const page = await newPage(context, errors);
    await openPlay(page, '#/play/flat?leader=no&render=none');
    await page.locator('.play-button').click();
    await page.waitForFunction(() => window.__pogo.play.state === 'racing', null, { timeout: 10_000 });
    await page.keyboard.down('ArrowRight');
    await page.waitForFunction(() => window.__pogo.play.lastInput().steerX !== 0 || window.__pogo.play.lastInput().steerZ !== 0);
    // The tab goes into the background: the page hears `visibilitychange` (hidden), then is
    // frozen (no animation frames, no timers) for two seconds of wall time.
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    const released = await page.evaluate(() => window.__pogo.play.lastInput());
    const cdp = await page.context().newCDPSession(page);
    const before = await page.evaluate(() => window.__pogo.play.clock());
    await cdp.send('Page.setWebLifecycleState', { state: 'frozen' });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await cdp.send('Page.setWebLifecycleState', { state: 'active' });
    await page.evaluate(() => {
      delete document.visibilityState;
      document.dispatchEvent(new Event('visibilitychange'));
    });
    // Two frames after the return, the run's ticks equal the wall-clock time since GO.
    const after = await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(window.__pogo.play.clock())))));
    await page.keyboard.up('ArrowRight');
    assert.deepEqual(released, { steerX: 0, steerZ: 0, buttons: 0 }, 'a hidden tab lets go of the held key at once');
    const due = Math.floor(((after.nowMs - after.t0Ms) * after.rate) / 1000);
    assert.ok(after.ticks - before.ticks >= 2 * after.rate - 2, `the frozen 2 s ran: ${before.ticks} → ${after.ticks} ticks`);
    // At most one frame behind the clock (a frame at 60 Hz is about one tick; allow two).
    assert.ok(due - after.ticks >= 0 && due - after.ticks <= 2, `${after.ticks} ticks run, ${due} due since GO`);
    assert.equal(await page.evaluate(() => window.__pogo.play.state), 'racing', 'the run goes on, not voided, not paused');
    await page.close();
  });

  test('mid-race on course with four ghosts: the split deltas to each (and a screenshot)', BOUNDED, async () => {
    const files = ['bot.pogo', 'eve.pogo', 'ana.pogo', 'zoe.pogo'];
    const ghosts = files.map((f) => uploaded.get(f).id);
    const page = await newPage(context, errors);
    // No runs kept from earlier tests in this profile (their list would sit above the view).
    await page.addInitScript(() => localStorage.removeItem('pogo.pending'));
    await openPlay(page, `#/play/course?clock=manual&live=off&leader=no&ghosts=${ghosts.join(',')}`);
    await page.evaluate(() => window.__pogo.play.start());
    // The bot after 25 idle ticks: between the ghosts that idled 10 and 40.
    // SwiftShader draws a 1280×800 frame in about 0.15 s: a frame every half second of the
    // race, then every other tick for the last second (the chase camera settles).
    const mine = botRun('course', 25);
    const events = eventsOf(mine.inputs, rate);
    await drive(page, { events, until: 1440, step: 30 });
    const run = await drive(page, { events: events.filter(([ns]) => BigInt(ns) * BigInt(rate) > 1440n * 1_000_000_000n), until: 1500, step: 2 });
    assert.equal(run.tick, 1500);
    const live = await page.evaluate(() => window.__pogo.play.ghosts());
    assert.deepEqual(live.map((g) => g.tick), [1500, 1500, 1500, 1500]);
    // The splits so far are the Node core's, and the HUD's last one shows, per ghost, the
    // difference to that ghost's split at the same checkpoint (the fixtures' verdicts).
    const splits = await page.evaluate(() => window.__pogo.play.splits());
    const expected = mine.splits.filter((s) => s.tick < 1500);
    assert.ok(expected.length >= 2, 'two checkpoints by tick 1500');
    assert.deepEqual(splits, expected);
    const last = expected.at(-1);
    const deltas = await page.locator('.hud-split .delta').evaluateAll((spans) => spans.map((s) => [s.dataset.ghost, Number(s.dataset.ticks), s.classList[1]]));
    assert.equal(await page.locator('.hud-split').getAttribute('data-checkpoint'), String(last.checkpoint));
    assert.deepEqual(deltas, files.map((f) => {
      const u = uploaded.get(f);
      const d = last.tick - u.splits.find((s) => s.checkpoint === last.checkpoint).tick;
      return [`run-${u.id}`, d, d < 0 ? 'ahead' : d > 0 ? 'behind' : 'even'];
    }));
    await page.screenshot({ path: join(SCREENSHOTS, 'play-desktop.png') });
    await page.close();
  });
});

describe('what a racer hit (issue 29 item 6)', () => {
  let context;
  const errors = [];

  before(async () => {
    context = await openBrowser(DESKTOP);
  });
  after(async () => {
    await context?.close();
    assert.deepEqual(errors, [], 'no script errors, no CSP violations');
  });

  test('#/play/nosuchlevel shows only the error, not "Loading…" beside it', BOUNDED, async () => {
    const page = await newPage(context, errors);
    await page.goto(`${server.base}/#/play/nosuchlevel`);
    await page.locator('main .error').waitFor();
    const text = await page.locator('main').innerText();
    assert.doesNotMatch(text, /Loading/, text);
    assert.equal(await page.locator('main .error').count(), 1, text);
    assert.equal(await page.locator('main .error').innerText(), 'No level named “nosuchlevel” on this server.');
    assert.equal(await page.locator('main').getAttribute('data-play-state'), 'failed');
    assert.equal(await page.locator('main canvas, main .play-overlay').count(), 0, 'nothing of the race view stays');
    assert.equal(await page.locator('main a[href="#/"]').count(), 1, 'the way back');
    await page.screenshot({ path: join(SCREENSHOTS, 'play-no-such-level.png') });
    await page.close();
  });

  test('a run in progress asks before the page is left: a link (cancel: the race goes on), a reload; not before or after a run', BOUNDED, async () => {
    const page = await newPage(context, errors);
    const dialogs = [];
    let answer = 'dismiss';
    page.on('dialog', async (dialog) => {
      dialogs.push(dialog.type());
      await (answer === 'accept' ? dialog.accept() : dialog.dismiss());
    });
    const hash = '#/play/flat?leader=no&render=none';
    await openPlay(page, hash);
    // Ready, nothing to lose: a link leaves at once.
    await page.locator('.play-head a').click();
    await page.waitForFunction(() => document.getElementById('main').dataset.route === '#/level/flat');
    assert.deepEqual(dialogs, [], 'no question before a run');
    await page.goBack();
    await page.waitForFunction(() => document.getElementById('main').dataset.playState === 'ready');
    await page.locator('.play-button').click();
    await page.waitForFunction(() => window.__pogo.play.state === 'racing', null, { timeout: 10_000 });
    // The leaderboard link during the run: asked, cancelled, the race goes on where it was.
    await page.locator('.play-head a').click();
    await page.waitForFunction(() => window.__pogo.play.tick() > 30);
    assert.deepEqual(dialogs, ['confirm']);
    assert.equal(await page.evaluate(() => location.hash), hash, 'the address is the race\'s again');
    assert.equal(await page.evaluate(() => window.__pogo.play.state), 'racing');
    const ticks = await page.evaluate(() => window.__pogo.play.tick());
    await page.waitForFunction((t) => window.__pogo.play.tick() > t + 30, ticks);
    // A reload during the run: the browser's own question; stayed.
    const asked = page.waitForEvent('dialog');
    await page.evaluate(() => setTimeout(() => location.reload(), 0));
    await asked;
    await page.waitForTimeout(300);
    assert.deepEqual(dialogs, ['confirm', 'beforeunload']);
    assert.equal(await page.evaluate(() => window.__pogo.play.state), 'racing', 'the run survives a cancelled reload');
    // Leaving for good: accepted, the board opens.
    answer = 'accept';
    await page.locator('.play-head a').click();
    await page.waitForFunction(() => document.getElementById('main').dataset.route === '#/level/flat');
    assert.equal(dialogs.length, 3);
    // After a run: nothing to lose (a finished run is kept until uploaded), nothing asked.
    await page.goBack();
    await page.waitForFunction(() => document.getElementById('main').dataset.playState === 'ready');
    await page.locator('.play-button').click();
    await page.waitForFunction(() => window.__pogo.play.state === 'racing', null, { timeout: 10_000 });
    await page.evaluate(() => window.__pogo.play.stop());
    assert.equal(await page.evaluate(() => window.__pogo.play.state), 'finished');
    await page.locator('.play-head a').click();
    await page.waitForFunction(() => document.getElementById('main').dataset.route === '#/level/flat');
    assert.equal(dialogs.length, 3, 'no question after the run');
    await page.close();
  });

  test('the board lets a racer tick 8 runs (the ninth is refused) and the play view races all 8', BOUNDED, async () => {
    // Nine more runs on course, so the board has more than 8 to tick.
    for (let i = 0; i < 9; i++) {
      const name = `ghost ${i + 1}`;
      const { status, body } = await client.upload(await client.register(name), recordBot('course', 50 + 3 * i, name));
      assert.equal(status, 202, JSON.stringify(body));
      assert.equal((await client.verdict(body.id)).status, 'verified');
    }
    const page = await newPage(context, errors);
    await page.goto(`${server.base}/#/level/course?limit=20`);
    await page.locator('section.board[data-ready]').waitFor();
    const boxes = page.locator('table.leaderboard tbody input[type=checkbox]');
    assert.ok(await boxes.count() >= 9, `${await boxes.count()} runs on the board`);
    for (let i = 0; i < 9; i++) await boxes.nth(i).click();
    const ticked = await boxes.evaluateAll((all) => all.map((b) => b.checked));
    assert.deepEqual(ticked.slice(0, 9), [true, true, true, true, true, true, true, true, false], 'eight ticked, the ninth refused');
    assert.equal(await page.locator('.race-full').innerText(), '8 runs at most in one race', 'and the board says why');
    const ids = await page.locator('table.leaderboard tbody tr').evaluateAll((trs) => trs.slice(0, 8).map((tr) => Number(tr.dataset.run)));
    const link = page.locator('a.race-ghosts');
    assert.equal(await link.innerText(), 'Race these ghosts (8)');
    assert.equal(await link.getAttribute('href'), `#/play/course?ghosts=${ids.join(',')}`);
    await page.screenshot({ path: join(SCREENSHOTS, 'board-eight-ghosts.png'), fullPage: true });
    await link.click();
    await page.waitForFunction(() => document.getElementById('main').dataset.playState === 'ready', null, { timeout: 40_000 });
    const ghosts = await page.evaluate(() => window.__pogo.play.ghosts());
    assert.deepEqual(ghosts.map((g) => [g.runId, g.refused ?? null]), ids.map((id) => [id, null]), 'every ticked run is a ghost');
    // The replay race takes as many.
    await page.goto(`${server.base}/#/race?runs=${ids.join(',')}`);
    await page.locator('section.race[data-ready]').waitFor();
    assert.equal(await page.locator('ol.legend li').count(), 8);
    await page.close();
  });

  test('a registered racer with no run on the level opens Play without a 404 or a warning', BOUNDED, async () => {
    const name = 'newcomer';
    const token = await client.register(name);
    const page = await newPage(context, errors, { identity: { name, token } });
    const noise = [];
    page.on('console', (m) => { if (m.type() === 'warning' || m.type() === 'error') noise.push(`${m.type()}: ${m.text()}`); });
    page.on('response', (r) => { if (r.status() >= 400) noise.push(`${r.status()} ${r.url()}`); });
    await openPlay(page, '#/play/course?clock=manual&live=off&render=none');
    const ghosts = await page.evaluate(() => window.__pogo.play.ghosts());
    assert.deepEqual(ghosts.map((g) => g.label), [`${entry('bot.pogo').player} (leader)`], 'the leader, and no "your best"');
    assert.deepEqual(noise, []);
    await page.close();
  });
});

describe('the play view on a 390×844 touch phone', () => {
  let context;
  const errors = [];

  before(async () => {
    context = await openBrowser(PHONE, { webgl: true, hasTouch: true, isMobile: true });
  });
  after(async () => {
    await context?.close();
    assert.deepEqual(errors, [], 'no script errors, no CSP violations');
  });

  test('the touch stick steers a run (DevTools touch events)', BOUNDED, async () => {
    const page = await newPage(context, errors);
    await openPlay(page, '#/play/course?leader=no');
    await page.locator('.play-button').tap();
    await page.waitForFunction(() => window.__pogo.play.state === 'racing', null, { timeout: 10_000 });
    const pad = await page.locator('.touch-pad').boundingBox();
    assert.ok(pad && pad.width > 100 && pad.height > 100, `the stick's area: ${JSON.stringify(pad)}`);
    assert.ok(pad.x + pad.width <= PHONE.width / 2 + 1, 'the stick is on the left half');
    // Both buttons within reach without scrolling: inside the viewport, on the right.
    for (const name of ['trick', 'dive']) {
      const box = await page.locator(`.touch-${name}`).boundingBox();
      assert.ok(box && box.y >= 0 && box.y + box.height <= PHONE.height && box.x + box.width <= PHONE.width && box.x >= PHONE.width / 3,
        `the ${name} button: ${JSON.stringify(box)}`);
    }
    const cdp = await context.newCDPSession(page);
    const touch = (type, x, y) => cdp.send('Input.dispatchTouchEvent', {
      type, touchPoints: type === 'touchEnd' ? [] : [{ x: Math.round(x), y: Math.round(y), id: 1, radiusX: 4, radiusY: 4, force: 1 }],
    });
    const [x0, y0] = [pad.x + pad.width / 2, pad.y + pad.height / 2];
    await touch('touchStart', x0, y0);
    for (let dx = 10; dx <= 80; dx += 10) await touch('touchMove', x0 + dx, y0);
    // Held for 90 ticks of game time from the first frame that saw the full stick (the
    // renderer, busy with SwiftShader, may handle touches late).
    let wiggle = 0;
    const tick0 = await heldFor(page, 0);
    while ((await page.evaluate(() => window.__pogo.play.tick())) < tick0 + 90) {
      await page.waitForTimeout(100);
      await touch('touchMove', x0 + 80, y0 + (wiggle++ % 2));
    }
    const steered = await page.evaluate(() => ({ devices: window.__pogo.play.devices(), input: window.__pogo.play.lastInput() }));
    await page.screenshot({ path: join(SCREENSHOTS, 'play-touch.png') });
    await touch('touchEnd');
    await page.waitForFunction(() => window.__pogo.play.lastInput().steerX === 0 && window.__pogo.play.lastInput().steerZ === 0);
    assert.ok(steered.devices.includes('touch'), JSON.stringify(steered.devices));
    assert.ok(Math.hypot(steered.input.steerX, steered.input.steerZ) > 127 - Math.SQRT2, `a drag past the stick's radius steers fully: ${JSON.stringify(steered.input)}`);
    const sideways = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
    assert.ok(sideways.scroll <= sideways.inner, `the page is ${sideways.scroll} px wide in a ${sideways.inner} px viewport`);
    await steeredRun(page, tick0, 90, 'touch');
    await page.close();
  });
});
