// Live races in real browsers (Debian's Chromium, headless) through the real `pogo-server` on
// loopback, every message delayed 80 ± 40 ms on the server's side of the socket (its
// test-only `--live-test-latency-ms 80 --live-test-jitter-ms 40`).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SCREENSHOTS, api, openBrowser, startServer } from './support.mjs';
import { botRun, dateOf, eventsOf, livePage, nodeCore, raceLive, scriptOf, simulateScript, ticksOf } from './live-support.mjs';

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const LATENCY = ['--live-test-latency-ms', '80', '--live-test-jitter-ms', '40'];
/** Bob's input delivered late (the bot 30 ticks late on course, its 148th change, 22.4 s in:
 * a steer toward −z that, filed 1 to 4 ticks later, still finishes on the same tick, on
 * another state). */
const LATE_EVENT = 148;
/** The real-time test's slack (ms): the rule is the server's, but this shared 2-core machine
 * stalls a page now and then by up to 1.7 s (seen), past the default 1.5 s; the slowed page
 * falls further behind than this within its first second. */
const JUDGE_SLACK_MS = '3000';

let server;
let client;
/** The tests' browser (no WebGL) and the script errors its pages report. */
let context;
const errors = [];
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

/** In a page of the server: a racer on a bare WebSocket in room `roomId` — hello as a guest,
 * ready, and half a second after GO a split of checkpoint 0 on tick 5 with hash 0x1234. */
async function bareRacer(roomId) {
  const ws = new WebSocket(`ws://${location.host}/api/rooms/${roomId}/socket`);
  await new Promise((resolve) => { ws.onopen = resolve; });
  ws.onmessage = (event) => {
    const message = typeof event.data === 'string' ? JSON.parse(event.data) : null;
    if (message?.type === 'room' && message.room.go_ms && !window.__splitSent) {
      window.__splitSent = true;
      const bytes = new Uint8Array(21);
      const v = new DataView(bytes.buffer);
      v.setUint8(0, 0x03);
      v.setUint32(1, 0, true);
      v.setUint32(5, 5, true);
      v.setUint32(9, 0, true);
      v.setBigUint64(13, 0x1234n, true);
      setTimeout(() => ws.send(bytes), Math.max(0, message.room.go_ms + 500 - Date.now()));
    }
  };
  ws.send(JSON.stringify({ type: 'hello', role: 'racer' }));
  ws.send(JSON.stringify({ type: 'ready', ready: true }));
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
  // The countdown as a racer sees it (the real clock: the page counts down on its own).
  await pages[1].waitForFunction(() => window.__pogo.play.state === 'countdown', null, { timeout: 30_000 });
  await pages[1].screenshot({ path: join(SCREENSHOTS, 'live-countdown.png') });
  await Promise.all(pages.map((page) => page.waitForFunction(() => window.__pogo.play.state === 'racing', null, { timeout: 30_000 })));
  await new Promise((r) => setTimeout(r, raceMs));
  const desynced = await pages[0].evaluate(() => window.__pogo.play.live().desyncs);
  assert.deepEqual(desynced.map((d) => [d.racer, d.tick, d.expected, d.found]), [[3, 5, '-', '0000000000001234']]);
  const named = await pages[0].locator('.hud-message').innerText();
  assert.match(named, /^Desync: guest 1's page disagrees with the server at tick 5 \(server -, page 0000000000001234\): that run is not filed\.$/);
  assert.equal(await pages[0].locator('.hud-rivals li[data-racer="racer-3"]').getAttribute('data-state'), 'desynced');
  await pages[0].screenshot({ path: join(SCREENSHOTS, 'live-desync.png') });
  const seen = await Promise.all(pages.map((page) => page.evaluate(() => ({ ...window.__pogo.play.clock(), frames: window.__pogo.play.frameTimes() }))));
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  // Each leaves (the run so far is kept, unranked): the room's view says how each was judged.
  for (const page of pages) await page.goto('about:blank');
  let room;
  for (let i = 0; i < 100; i++) {
    room = (await api(judge.base).get(`/api/rooms/${roomId}`)).body;
    if (room.racers.slice(0, 3).every((r) => r.state === 'left')) break;
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

/**
 * A guest (no name in the browser) plays course from the play view: Play races live, in a
 * room of one (relayed, never filed); at the finish the panel offers to register and upload,
 * as offline; registered there, the run is uploaded and verified on the browser's hash.
 */
async function raceAsGuest() {
  // A browser of its own: the other tests' pages keep their names in their shared storage.
  const own = await openBrowser(DESKTOP);
  const page = await livePage(own, errors, null, 'guest');
  await page.goto(`${server.base}/#/play/course?clock=manual&render=none&leader=no`);
  await page.waitForFunction(() => document.getElementById('main').dataset.playState === 'ready', null, { timeout: 40_000 });
  await page.locator('.play-button').click();
  await raceLive(page, eventsOf(botRun(core, 'course', 60).inputs, rate));
  const live = await page.evaluate(() => ({ state: window.__pogo.play.state, live: window.__pogo.play.live(), openWhy: window.__pogo.play.openWhy() }));
  assert.equal(live.state, 'finished');
  assert.equal(live.live.role, 'racer');
  assert.equal((await client.get(`/api/rooms/${live.live.roomId}`)).body.racers[0].name, 'guest 1', 'raced live, as a guest');
  assert.match(live.openWhy, /raced live as a guest/);
  await page.locator('.finish-register input[name=name]').fill('late riser');
  await page.locator('.finish-register button').click();
  await page.waitForFunction(() => window.__pogo.submit?.state === 'verified', null, { timeout: 60_000 });
  assert.equal(await page.locator('.play-finish .finish-panel').getAttribute('data-hash-match'), 'true');
  await own.close();
}

describe('live races', () => {
  before(async () => {
    context = await openBrowser(DESKTOP);
  });
  after(async () => {
    await context?.close();
    assert.deepEqual(errors, [], 'no script errors, no CSP violations');
  });

  test('the wire\'s bytes are docs/live.md\'s, a malformed frame decodes to nothing, the clock is never early, a correction is smoothed', { timeout: 30_000 }, async () => {
    const page = await livePage(context, errors, null);
    await page.goto(`${server.base}/`);
    const seen = await page.evaluate(async () => {
      const wire = await import('/web/play/wire.js');
      const { ServerClock } = await import('/web/play/clock.js');
      const { Smoothing } = await import('/web/play/smoothing.js');
      const hexOf = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
      const input = wire.encodeInput(7, 1_234_567_890_123n, { steerX: -127, steerZ: 64, buttons: 3 });
      const ran = wire.encodeRan(8, 3600);
      const split = wire.encodeSplit(9, 812, null, 0x0123456789abcdefn);
      const relay = (racer, us, message) => {
        const out = new Uint8Array(10 + message.length);
        out[0] = 0x81;
        out[1] = racer;
        new DataView(out.buffer).setBigUint64(2, BigInt(us), true);
        out.set(message, 10);
        return out;
      };
      const frames = [relay(3, 42, ran), relay(3, 43, input)];
      const backlog = new Uint8Array([0x82, 3, frames[0].length, ...frames[0], frames[1].length, ...frames[1]]);
      const badButtons = input.slice();
      badButtons[15] = 0x80;
      // The clock: the server 5 s ahead of the page; one-way trips of 10 to 90 ms.
      const clock = new ServerClock();
      const trips = [[40, 50], [10, 90], [70, 20], [25, 25]];
      let local = 1_000_000;
      for (const [out, back] of trips) {
        const sent = local;
        const serverMs = sent + out + 5000;
        local = sent + out + back;
        clock.sample(BigInt(serverMs * 1000), sent, local);
      }
      const smoothing = new Smoothing();
      const smoothed = smoothing.correct([10, 2, 0], [10.5, 2, 0.2], false);
      const drawnAt0 = smoothing.apply([10.5, 2, 0.2], 0);
      const drawnAfter = smoothing.apply([10.5, 2, 0.2], 0.25);
      const respawn = new Smoothing();
      respawn.correct([10, 2, 0], [0, 0, 0], true);
      return {
        input: hexOf(input), ran: hexOf(ran), split: hexOf(split),
        decoded: [wire.decodeStream(input), wire.decodeStream(ran), wire.decodeStream(split)].map((m) => JSON.stringify(m, (_, v) => (typeof v === 'bigint' ? v.toString() : v))),
        ack: wire.decodeServer(new Uint8Array([0x90, 5, 0, 0, 0])),
        relay: JSON.stringify(wire.decodeServer(frames[0]), (_, v) => (typeof v === 'bigint' ? v.toString() : v)),
        backlog: wire.decodeServer(backlog)?.messages.map((m) => m.message.kind),
        malformed: [wire.decodeStream(ran.slice(0, 5)), wire.decodeStream(badButtons), wire.decodeStream(new Uint8Array([0x42])),
          wire.decodeServer(backlog.slice(0, backlog.length - 1)), wire.decodeServer(new Uint8Array([0x90, 1, 2]))],
        offsetMs: clock.offsetMs, roundTripMs: clock.bestRoundTripMs,
        smoothed, drawnAt0, drawnAfter, respawnOffset: respawn.offset,
      };
    });
    // docs/live.md's table: type, seq u32, at_ns u64, steer_x i8, steer_z i8, buttons u8, all
    // little-endian; ran: seq, tick; split: seq, tick, checkpoint (0xffffffff the finish), hash.
    assert.equal(seen.input, '01' + '07000000' + 'cb04fb711f010000' + '81' + '40' + '03');
    assert.equal(seen.ran, '02' + '08000000' + '100e0000');
    assert.equal(seen.split, '03' + '09000000' + '2c030000' + 'ffffffff' + 'efcdab8967452301');
    assert.deepEqual(seen.decoded, [
      '{"kind":"input","seq":7,"atNs":"1234567890123","input":{"steerX":-127,"steerZ":64,"buttons":3}}',
      '{"kind":"ran","seq":8,"tick":3600}',
      '{"kind":"split","seq":9,"tick":812,"checkpoint":null,"hash":"81985529216486895"}']);
    assert.deepEqual(seen.ack, { kind: 'ack', seq: 5 });
    assert.equal(seen.relay, '{"kind":"relay","racer":3,"receivedUs":"42","message":{"kind":"ran","seq":8,"tick":3600}}');
    assert.deepEqual(seen.backlog, ['ran', 'input']);
    assert.deepEqual(seen.malformed, [null, null, null, null, null]);
    // The best sample's bound (the 20 ms return trip): 4980 ms, never more than the true 5000.
    assert.equal(seen.offsetMs, 4980);
    assert.equal(seen.roundTripMs, 90);
    // A correction is drawn where the pogo was, then fades: 95 % of it gone in 0.25 s.
    assert.equal(seen.smoothed, true);
    assert.deepEqual(seen.drawnAt0.map((v) => Math.round(v * 1e6) / 1e6), [10, 2, 0]);
    assert.ok(Math.abs(seen.drawnAfter[0] - 10.5) < 0.5 * 0.06 && Math.abs(seen.drawnAfter[0] - 10.5) > 0, `${seen.drawnAfter}`);
    assert.deepEqual(seen.respawnOffset, [0, 0, 0], 'a respawn is drawn as the jump it is');
    await page.close();
  });

  test('two racers race through a shared room under 80 ± 40 ms, one cut off mid-race comes back; a spectator who joins at tick T shows the racers\' states at T; meanwhile a guest races Play live in a room of one', { timeout: 150_000 }, async () => {
    const guest = raceAsGuest();
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
    // Ana is cut off at tick 600; one of Bob's inputs reaches his page a frame late (filed at
    // the next tick's start: his stream must say so).
    const raced = pages.map((page, i) => raceLive(page, eventsOf(bots[i].inputs, rate), i === 0 ? { cut: { tick: 600 } } : { late: LATE_EVENT }));
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
    const sentSoFar = await pages[1].evaluate(() => window.__pogo.play.sent());
    // The oracles at T: Ana's the bot's inputs; Bob's those his page filed (one of them late).
    const oracles = [bots[0].inputs, ticksOf(sentSoFar, rate, T)];
    for (const [i] of bots.entries()) {
      const rival = Array.isArray(atT) && atT.find((r) => r.racer === i);
      if (!rival) console.log(JSON.stringify(await pages[0].evaluate(() => window.__pogo.play.live().link)), errors);
      assert.ok(rival, JSON.stringify(atT).slice(0, 1500));
      const oracle = stateAt(oracles[i], T);
      assert.equal(rival.confirmed.hash, oracle.hash, `racer ${i} at tick ${T}`);
      assert.deepEqual(rival.confirmed.positionRaw, oracle.positionRaw);
    }
    const [, bob] = await Promise.all(raced);
    assert.ok(BigInt(bob.lateFiled) > BigInt(bob.lateAt), `Bob's late input was filed after its time: ${JSON.stringify(bob)}`);
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
    // The finish panel says what the server filed: the run, its rank, real-time or why not,
    // the server's final hash beside the browser's; no upload step.
    const panel = pages[0].locator('.play-finish .filing-panel');
    assert.equal(await panel.getAttribute('data-state'), 'filed');
    assert.equal(await panel.getAttribute('data-run'), String(racers[0].filing.status.id));
    assert.equal(await panel.getAttribute('data-hash-match'), 'true');
    assert.equal(await pages[0].locator('.play-finish .finish-upload').count(), 0);
    await pages[0].locator('section.play').screenshot({ path: join(SCREENSHOTS, 'live-filed.png') });
    const seen = await watched;
    for (const [i, racer] of racers.entries()) assert.equal(seen.rivals.find((r) => r.racer === i).confirmed.hash, racer.hash);
    for (const page of [...pages, spectator]) await page.close();
    await guest;
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
    const rows = pages[0].locator('.room-result tbody tr');
    assert.equal(await rows.count(), RACERS);
    // In finishing order, each with their time, real-time or why not, their run and replay.
    const order = [...room.racers].sort((a, b) => a.finish_tick - b.finish_tick);
    assert.deepEqual(await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.dataset.racer))), order.map((r) => r.racer));
    for (const r of order) {
      const row = pages[0].locator(`.room-result tr[data-racer="${r.racer}"]`);
      assert.equal(await row.locator(`a[href="#/run/${r.run_id}"]`).count(), 1);
      assert.equal(await row.locator(`a[href="/api/runs/${r.run_id}/replay"]`).count(), 1);
      // The links are links, not a list flattened into text (' · ,http://…' once).
      const cell = (await row.locator('td').last().innerText()).trim();
      assert.equal(cell, `run ${r.run_id} · replay · board`);
      assert.equal(await row.locator('td').last().locator('a').count(), 3);
    }
    await pages[0].locator('.room-result').screenshot({ path: join(SCREENSHOTS, 'live-result.png') });
    for (const page of pages) await page.close();
  });

  test('four racers on screen: the lobby, the race with named rivals (desktop and phone), a spectator\'s view, #/live and the board\'s "live now" (screenshots)', { timeout: 150_000 }, async () => {
    const gl = await openBrowser(DESKTOP, { webgl: true });
    const phone = await openBrowser(PHONE, { webgl: true, hasTouch: true, isMobile: true });
    try {
      const names = ['zoe', 'max', 'ivy', 'ken'];
      const identities = [];
      for (const name of names) identities.push({ name, token: await client.register(name) });
      const pages = [await livePage(gl, errors, identities[0], 'zoe'), await livePage(phone, errors, identities[1], 'max'),
        await livePage(context, errors, identities[2], 'ivy'), await livePage(context, errors, identities[3], 'ken')];
      // Zoe makes the room from the board ("Race friends"); the others open its link.
      await pages[0].goto(`${server.base}/#/level/course`);
      await pages[0].locator('button.race-friends').click();
      await pages[0].waitForFunction(() => document.getElementById('main').dataset.playState === 'lobby', null, { timeout: 40_000 });
      const roomId = await pages[0].evaluate(() => window.__pogo.play.live().roomId);
      await pages[0].goto('about:blank');
      for (const [i, page] of pages.entries()) {
        await page.goto(`${server.base}/#/room/${roomId}?clock=manual${i >= 2 ? '&render=none' : ''}`);
        await page.waitForFunction(() => document.getElementById('main').dataset.playState === 'lobby', null, { timeout: 40_000 });
      }
      await pages[0].waitForFunction(() => document.querySelectorAll('.room-racers li').length === 4);
      for (const page of pages.slice(1)) await page.evaluate(() => window.__pogo.play.ready(true));
      await pages[0].waitForFunction(() => document.querySelectorAll('.room-racers li.ready').length === 3);
      for (const page of pages.slice(0, 2)) await page.evaluate(() => window.__pogo.play.frame(0));
      await pages[0].screenshot({ path: join(SCREENSHOTS, 'live-lobby.png') });
      await pages[1].screenshot({ path: join(SCREENSHOTS, 'live-lobby-phone.png') });
      // While they wait: #/live lists the room (in its lobby: Join).
      const lister = await livePage(context, errors, null, 'lister');
      await lister.goto(`${server.base}/#/live`);
      await lister.locator(`li.live-room[data-room="${roomId}"] .live-watch`, { hasText: 'Join' }).waitFor();
      await pages[0].locator('.room-ready').click();
      // Seven seconds of the race, each racer the bot a little earlier than the one before (Zoe
      // last: the others ahead of her, in view); they race on a little further than Zoe, so
      // that her screen shows them where they were, not a prediction.
      const UNTIL = 420;
      await Promise.all(pages.map((page, i) => raceLive(page, eventsOf(botRun(core, 'course', 30 * (pages.length - 1 - i)).inputs, rate), { untilTick: i === 0 ? UNTIL : UNTIL + 240, stepMs: 16 })));
      await pages[0].screenshot({ path: join(SCREENSHOTS, 'live-race.png') });
      await pages[1].screenshot({ path: join(SCREENSHOTS, 'live-race-phone.png') });
      // Every rival named and drawn, the standings list them connected.
      const hud = await pages[0].evaluate(() => [...document.querySelectorAll('.hud-rivals li')].map((li) => [li.querySelector('.rival-name').textContent, li.dataset.connected]));
      assert.deepEqual(hud, [['max', 'true'], ['ivy', 'true'], ['ken', 'true']]);
      // #/live now says racing (Watch), and the board says "live now".
      await lister.goto('about:blank');
      await lister.goto(`${server.base}/#/live`);
      await lister.locator(`li.live-room[data-room="${roomId}"][data-phase="racing"] .live-watch`, { hasText: 'Watch' }).waitFor();
      await lister.screenshot({ path: join(SCREENSHOTS, 'live-list.png') });
      await lister.goto(`${server.base}/#/level/course`);
      await lister.locator('.live-now:not([hidden])').waitFor();
      assert.match(await lister.locator('.live-now').innerText(), /live now: \d+ race/);
      await lister.screenshot({ path: join(SCREENSHOTS, 'live-board.png') });
      // A spectator (3D), following the leader a moment behind the race.
      const watcher = await livePage(gl, errors, null, 'watcher');
      await watcher.goto(`${server.base}/#/room/${roomId}?clock=manual`);
      await watcher.waitForFunction(() => document.getElementById('main').dataset.playState === 'watching', null, { timeout: 40_000 });
      await watcher.evaluate(async (t) => {
        for (let i = 0; i < 20; i++) {
          window.__pogo.play.frame(BigInt(Math.floor((t * 1e9) / 60)));
          await new Promise((r) => setTimeout(r, 30));
        }
      }, UNTIL - 30);
      assert.equal(await watcher.locator('.hud-rivals li').count(), 4);
      // A click on a racer's name follows them.
      await watcher.locator('.hud-rivals li[data-racer="racer-1"]').click();
      await watcher.evaluate((t) => window.__pogo.play.frame(BigInt(Math.floor((t * 1e9) / 60))), UNTIL - 30);
      await watcher.locator('.hud-rivals li.followed[data-racer="racer-1"]').waitFor();
      await watcher.screenshot({ path: join(SCREENSHOTS, 'live-spectator.png') });
      for (const page of [...pages, lister, watcher]) await page.close();
    } finally {
      await gl.close();
      await phone.close();
    }
  });

  test('the server cannot be reached: the room cannot be made, or its socket will not open: the race runs offline, with a run ticket', { timeout: 60_000 }, async () => {
    const identity = { name: 'offline', token: await client.register('offline') };
    for (const how of ['no room', 'no socket']) {
      const page = await livePage(context, errors, identity, how);
      if (how === 'no room') await page.route('**/api/levels/*/rooms', (route) => route.abort('connectionrefused'));
      else await page.routeWebSocket(/\/socket$/, (ws) => ws.close({ code: 1011, reason: 'gone' }));
      await page.goto(`${server.base}/#/play/course?clock=manual&render=none&leader=no`);
      await page.waitForFunction(() => document.getElementById('main').dataset.playState === 'ready', null, { timeout: 40_000 });
      await page.evaluate(() => window.__pogo.play.start());
      const seen = await page.evaluate(() => ({ state: window.__pogo.play.state, live: window.__pogo.play.live(), ticket: window.__pogo.play.ticket() }));
      assert.equal(seen.state, 'racing', how);
      assert.equal(seen.live, null, `${how}: not live`);
      assert.ok(seen.ticket?.id, `${how}: the run ticket path`);
      await page.close();
    }
  });

  test('real time is judged by the server: a page whose clock runs at half speed is late, an honest page is on time; and a page under 4× CPU throttling, as it was; a desync is named in every page', { timeout: 120_000 }, async () => {
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
      // A fourth racer whose page is not ours: a bare socket that claims a checkpoint on tick 5
      // the server's re-simulation never reached (a desync, named to everyone).
      const cheat = await livePage(context, errors, null, 'cheat');
      await cheat.goto(`${judge.base}/`);
      await cheat.evaluate(bareRacer, made.id);
      pages.push(cheat);
      await judgeRealTime(gl, pages.slice(0, 3), who, made.id, RACE_MS);
    } finally {
      await gl.close();
      for (const page of pages) await page.close();
    }
  });
});
