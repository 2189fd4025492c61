// Live races in real browsers (Debian's Chromium, headless) through the real `pogo-server` on
// loopback, every message delayed 80 ± 40 ms on the server's side of the socket (its
// test-only `--live-test-latency-ms 80 --live-test-jitter-ms 40`).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { SCREENSHOTS, api, openBrowser, startServer } from './support.mjs';
import { botRun, dateOf, eventsOf, livePage, nodeCore, raceLive, scriptOf, simulateScript } from './live-support.mjs';

const DESKTOP = { width: 1280, height: 800 };
const LATENCY = ['--live-test-latency-ms', '80', '--live-test-jitter-ms', '40'];
/** The real-time test's slack (ms): the rule is the server's, but this shared 2-core machine
 * stalls a page now and then by up to 1.7 s (seen), past the default 1.5 s; the slowed page
 * falls further behind than this within its first second. */
const JUDGE_SLACK_MS = '3000';

let server;
let client;
/** The real-time test's server: the same latency, JUDGE_SLACK_MS of slack. */
let judge;
let core;
let rate;

before(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  core = await nodeCore();
  server = await startServer(LATENCY);
  judge = await startServer([...LATENCY, '--ticket-slack-ms', JUDGE_SLACK_MS]);
  client = api(server.base);
  rate = (await client.get('/api/levels')).body[0].tick_rate;
});

after(async () => {
  await server?.stop();
  await judge?.stop();
});

/** What a racer's page holds at the end: state, filing, room, hash, replay, stream, live. */
function readRacer(page) {
  return page.evaluate(() => {
    const play = window.__pogo.play;
    return { state: play.state, filing: play.filing(), room: play.room(), hash: play.hash(), replay: play.replay(), sent: play.sent(), live: play.live() };
  });
}

/**
 * A finished racer's run three ways: the page's final hash and replay, the server's filed run
 * (its final hash, its replay bytes) and `pogo simulate` of the page's stream under the
 * racer's name and GO's date — all equal.
 */
async function checkRun(racer, name) {
  const status = racer.filing.status;
  assert.equal(status.final_hash, racer.hash, 'the server\'s final hash is the page\'s');
  const cli = simulateScript('course', scriptOf(racer.sent), name, dateOf(racer.room.go_ms));
  assert.equal(cli.hash, racer.hash, 'the CLI\'s final hash is the page\'s');
  assert.equal(Number(cli.finish), status.finish_tick);
  const replay = Buffer.from(await (await fetch(`${server.base}/api/runs/${status.id}/replay`)).arrayBuffer());
  assert.ok(replay.equals(cli.bytes), 'the server\'s replay is the CLI\'s, byte for byte');
  assert.ok(Buffer.from(racer.replay).equals(cli.bytes), 'the page\'s recording is the CLI\'s, byte for byte');
}

/** The Node core's state after `ticks` ticks of `inputs` on course: hash and raw position. */
function stateAt(inputs, ticks) {
  const { pogo, tuning, hex } = core;
  const level = pogo.level('course');
  const sim = pogo.simulation({ level, tuning, players: 1 });
  try {
    for (let t = 0; t < ticks; t++) sim.step([inputs[t] ?? { steerX: 0, steerZ: 0, buttons: 0 }]);
    return { hash: hex(sim.stateHash()), positionRaw: sim.player(0).positionRaw.map(String) };
  } finally {
    sim.free();
    level.free();
  }
}

/** A page (manual clock) driven until the room is over and it shows every rival finished: a
 * racer's at its own clock since GO, a spectator's at its display time (the server's clock
 * since GO, a few hundred ms behind). Its live race then. */
function watchToTheEnd(page) {
  return page.evaluate(async () => {
    const play = window.__pogo.play;
    const t0 = play.clock().t0Ms;
    const now = () => (play.live().role === 'spectator' ? play.displayNs() : BigInt(Math.floor((performance.now() - t0) * 1e6)));
    for (let i = 0; i < 12_000 && play.state !== 'over'; i++) {
      play.frame(now());
      await new Promise((r) => setTimeout(r, 10));
    }
    // Until every rival the page shows has reached the end of their run (their finish).
    const done = () => play.live().rivals.every((r) => r.finishTick !== null && r.confirmed.tick === r.finishTick + 1);
    for (let i = 0; i < 500 && !done(); i++) {
      play.frame(now());
      await new Promise((r) => setTimeout(r, 10));
    }
    return play.live();
  });
}

/** An init script: the page's clock (`performance.now()`, animation frames' times) runs at half
 * the speed of the wall clock from the moment the page loads: a game slowed down. */
function halfSpeedClock() {
  const realNow = performance.now.bind(performance);
  const start = realNow();
  const slow = (t) => start + (t - start) / 2;
  performance.now = () => slow(realNow());
  const raf = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = (callback) => raf((t) => callback(slow(t)));
}

/**
 * The real-time test's race: `pages` (honest, throttled, slowed, in a room's lobby) get ready;
 * the throttled one runs under 4× CPU throttling (CDP) for `raceMs` of racing; then each
 * leaves, and the room's view says how the server judged each. Prints the figures.
 */
async function judgeRealTime(gl, pages, who, roomId, raceMs) {
  const cdp = await gl.newCDPSession(pages[1]);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  for (const page of pages) await page.evaluate(() => window.__pogo.play.ready(true));
  await Promise.all(pages.map((page) => page.waitForFunction(() => window.__pogo.play.state === 'racing', null, { timeout: 30_000 })));
  await new Promise((r) => setTimeout(r, raceMs));
  const seen = await Promise.all(pages.map((page) => page.evaluate(() => ({ ...window.__pogo.play.clock(), frames: window.__pogo.play.frameTimes() }))));
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  // Each leaves (the run so far is kept, unranked): the room's view says how each was judged.
  for (const page of pages) await page.goto('about:blank');
  let room;
  for (let i = 0; i < 100; i++) {
    room = (await api(judge.base).get(`/api/rooms/${roomId}`)).body;
    if (room.racers.every((r) => r.state === 'left')) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const judged = Object.fromEntries(who.map((name, i) => [name, room.racers[i]]));
  const figures = who.map((name, i) => {
    const sorted = [...seen[i].frames].sort((a, b) => a - b);
    const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]?.toFixed(2);
    return `${name}: ${seen[i].ticks} ticks run, the server re-simulated ${judged[name].tick}; a frame's work median ${at(0.5)} ms, p99 ${at(0.99)} ms; `
      + `real-time ${judged[name].realtime}${judged[name].realtime_note ? ` (${judged[name].realtime_note})` : ''}`;
  });
  console.log(figures.join('\n'));
  assert.equal(judged.honest.realtime, true, judged.honest.realtime_note);
  assert.equal(judged.slowed.realtime, false);
  assert.match(judged.slowed.realtime_note, /arrived [\d.]+ s after its game time since GO \(at most 3 s allowed\)/);
}

describe('live races', () => {
  let context;
  const errors = [];
  before(async () => {
    context = await openBrowser(DESKTOP);
  });
  after(async () => {
    await context?.close();
    assert.deepEqual(errors, [], 'no script errors, no CSP violations');
  });

  test('Play races live in a room of one: filed at the finish, verified, the page\'s, the server\'s and the CLI\'s hashes and replays equal', { timeout: 120_000 }, async () => {
    const name = 'solo';
    const token = await client.register(name);
    const page = await livePage(context, errors, { name, token });
    await page.goto(`${server.base}/#/play/course?clock=manual&render=none&leader=no`);
    await page.waitForFunction(() => document.getElementById('main').dataset.playState === 'ready', null, { timeout: 40_000 });
    const bot = botRun(core, 'course');
    await page.evaluate(() => { window.__pogo.play.start(); });
    await raceLive(page, eventsOf(bot.inputs, rate));
    await page.waitForFunction(() => ['verified', 'refused', 'finished'].includes(window.__pogo.play.state), null, { timeout: 30_000 });
    const live = await readRacer(page);
    assert.equal(live.state, 'verified', JSON.stringify(live.filing));
    await checkRun(live, name);
    await page.close();
  });

  test('two racers race through a shared room under 80 ± 40 ms, one cut off mid-race comes back; a spectator who joins at tick T shows the racers\' states at T', { timeout: 150_000 }, async () => {
    const names = ['ana', 'bob'];
    const identities = [];
    for (const name of names) identities.push({ name, token: await client.register(name) });
    const pages = [];
    for (const [i, identity] of identities.entries()) pages.push(await livePage(context, errors, identity, names[i]));
    // Ana makes the room from the play view ("Race friends"), Bob opens its link.
    await pages[0].goto(`${server.base}/#/play/course?render=none&leader=no`);
    await pages[0].locator('.play-friends').click();
    await pages[0].waitForFunction(() => document.getElementById('main').dataset.playState === 'lobby', null, { timeout: 40_000 });
    const roomId = await pages[0].evaluate(() => window.__pogo.play.live().roomId);
    for (const page of pages) {
      await page.goto('about:blank');
      await page.goto(`${server.base}/#/room/${roomId}?clock=manual&render=none`);
      await page.waitForFunction(() => document.getElementById('main').dataset.playState === 'lobby', null, { timeout: 40_000 });
    }
    await pages[0].waitForFunction(() => document.querySelectorAll('.room-racers li').length === 2);
    assert.equal(await pages[0].locator('.room-link').inputValue(), `${server.base}/#/room/${roomId}`);
    await pages[0].locator('.room-ready').click();
    await pages[1].evaluate(() => window.__pogo.play.ready(true));
    const bots = [botRun(core, 'course'), botRun(core, 'course', 30)];
    const T = 1500;
    const raced = pages.map((page, i) => raceLive(page, eventsOf(bots[i].inputs, rate), { cut: i === 0 ? { tick: 600 } : null }));
    // The spectator joins once both racers are past tick T.
    await Promise.all(pages.map((page) => page.waitForFunction((t) => window.__pogo.play.tick() > t + 60, T, { timeout: 60_000 })));
    const spectator = await livePage(context, errors, null, 'spectator');
    await spectator.goto(`${server.base}/#/room/${roomId}?clock=manual&render=none`);
    await spectator.waitForFunction(() => document.getElementById('main').dataset.playState === 'watching', null, { timeout: 40_000 });
    const atT = await spectator.evaluate(async (t) => {
      const play = window.__pogo.play;
      for (let i = 0; i < 200; i++) {
        const live = play.live();
        play.frame(BigInt(Math.ceil((t * 1e9) / 60)));
        const rivals = play.live().rivals;
        if (rivals.length === 2 && rivals.every((r) => r.confirmed.tick === t && r.shown.tick === t && !r.shown.predicted)) return rivals;
        await new Promise((r) => setTimeout(r, 20));
      }
      return play.live();
    }, T);
    for (const [i, bot] of bots.entries()) {
      const rival = Array.isArray(atT) && atT.find((r) => r.racer === i);
      if (!rival) console.log(JSON.stringify(await pages[0].evaluate(() => window.__pogo.play.live().link)), errors);
      assert.ok(rival, JSON.stringify(atT).slice(0, 1500));
      const oracle = stateAt(bot.inputs, T);
      assert.equal(rival.confirmed.hash, oracle.hash, `racer ${i} at tick ${T}`);
      assert.deepEqual(rival.confirmed.positionRaw, oracle.positionRaw);
    }
    await Promise.all(raced);
    // The spectator watches on, a few hundred ms behind, and each racer sees the other finish.
    const watched = watchToTheEnd(spectator);
    await Promise.all(pages.map(watchToTheEnd));
    for (const page of pages) await page.waitForFunction(() => window.__pogo.play.filing()?.status || window.__pogo.play.filing()?.why, null, { timeout: 30_000 });
    const racers = await Promise.all(pages.map(readRacer));
    for (const [i, racer] of racers.entries()) {
      assert.equal(racer.filing?.status?.status, 'verified', `${names[i]}: ${JSON.stringify(racer.filing)}`);
      await checkRun(racer, names[i]);
      // The other racer, re-simulated in this page from their stream, ended where they did.
      const other = racer.live.rivals.find((r) => r.racer === 1 - i);
      assert.equal(other.confirmed.hash, racers[1 - i].hash, `${names[i]}'s page sees ${names[1 - i]} finish on their state`);
    }
    assert.ok(racers[0].live.link.cuts >= 1 && racers[0].live.link.resumes >= 1, JSON.stringify(racers[0].live.link));
    const seen = await watched;
    for (const [i, racer] of racers.entries()) assert.equal(seen.rivals.find((r) => r.racer === i).confirmed.hash, racer.hash);
    for (const page of [...pages, spectator]) await page.close();
  });

  test('eight racers race through one room under 80 ± 40 ms, one cut off mid-race comes back: every page\'s final hash is the server\'s and the CLI\'s, and every page saw every rival finish where they did', { timeout: 180_000 }, async () => {
    const RACERS = 8;
    const identities = [];
    for (let i = 0; i < RACERS; i++) identities.push({ name: `racer ${i + 1}`, token: await client.register(`racer ${i + 1}`) });
    const made = await fetch(`${server.base}/api/levels/course/rooms`, { method: 'POST' }).then((r) => r.json());
    const pages = [];
    for (const [i, identity] of identities.entries()) {
      const page = await livePage(context, errors, identity, identity.name);
      await page.goto(`${server.base}/#/room/${made.id}?clock=manual&render=none`);
      await page.waitForFunction(() => document.getElementById('main').dataset.playState === 'lobby', null, { timeout: 40_000 });
      pages.push(page);
      assert.equal(await page.evaluate(() => window.__pogo.play.live().me), i);
    }
    for (const page of pages) await page.evaluate(() => window.__pogo.play.ready(true));
    // Each racer a different run: the bot, starting 0, 12, … 84 ticks late.
    const bots = identities.map((_, i) => botRun(core, 'course', 12 * i));
    await Promise.all(pages.map((page, i) => raceLive(page, eventsOf(bots[i].inputs, rate), { cut: i === 3 ? { tick: 900 } : null, stepMs: 16 })));
    await Promise.all(pages.map(watchToTheEnd));
    for (const page of pages) await page.waitForFunction(() => window.__pogo.play.filing()?.status || window.__pogo.play.filing()?.why, null, { timeout: 30_000 });
    const racers = await Promise.all(pages.map(readRacer));
    for (const [i, racer] of racers.entries()) {
      assert.equal(racer.filing?.status?.status, 'verified', `${identities[i].name}: ${JSON.stringify(racer.filing)}`);
      await checkRun(racer, identities[i].name);
      for (const rival of racer.live.rivals) {
        assert.equal(rival.confirmed.hash, racers[rival.racer].hash, `${identities[i].name}'s page sees ${rival.name} finish on their state`);
      }
      assert.equal(racer.live.rivals.length, RACERS - 1);
    }
    assert.ok(racers[3].live.link.cuts >= 1 && racers[3].live.link.resumes >= 1, JSON.stringify(racers[3].live.link));
    // The room's result lists all eight, each with their run.
    const room = (await client.get(`/api/rooms/${made.id}`)).body;
    assert.equal(room.phase, 'over');
    assert.deepEqual(room.racers.map((r) => [r.state, r.run_id !== null]), racers.map(() => ['finished', true]));
    assert.equal(await pages[0].locator('.room-result tbody tr').count(), RACERS);
    for (const page of pages) await page.close();
  });

  test('real time is judged by the server: a page whose clock runs at half speed is late, an honest page is on time; and a page under 4× CPU throttling, as it was', { timeout: 120_000 }, async () => {
    const RACE_MS = 10_000;
    const who = ['honest', 'throttled', 'slowed'];
    const identities = [];
    for (const name of who) identities.push({ name, token: await api(judge.base).register(name) });
    const made = await fetch(`${judge.base}/api/levels/course/rooms`, { method: 'POST' }).then((r) => r.json());
    // Real pages: the real clock (animation frames), no inputs (the pogo bounces on the spot):
    // what is judged is the timing alone. The throttled page draws the 3D view too (WebGL on
    // SwiftShader: the CPU), the heaviest a page's frame gets here.
    const gl = await openBrowser(DESKTOP, { webgl: true });
    const pages = [];
    try {
      for (const [i, identity] of identities.entries()) {
        const page = await livePage(who[i] === 'throttled' ? gl : context, errors, identity, identity.name);
        if (who[i] === 'slowed') await page.addInitScript(halfSpeedClock);
        await page.goto(`${judge.base}/#/room/${made.id}${who[i] === 'throttled' ? '' : '?render=none'}`);
        await page.waitForFunction(() => document.getElementById('main').dataset.playState === 'lobby', null, { timeout: 40_000 });
        pages.push(page);
      }
      await judgeRealTime(gl, pages, who, made.id, RACE_MS);
    } finally {
      await gl.close();
      for (const page of pages) await page.close();
    }
  });
});
