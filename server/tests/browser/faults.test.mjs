// A live race against a server that dies (issue 33), in a real browser through the real
// `pogo-server` on loopback: the room's process is killed (`kill -9`) mid-race and started
// again at the same address on the same database. The page is not told anything: its socket
// drops, it tries again by itself, takes its seat back with its key, sends what the server
// had not acknowledged, and finishes; the run is filed whole (the server's final hash is the
// page's, and the CLI's of the whole stream) and real-time, the outage being within the
// slack. Before the room journal, the restarted server had no such room (the page was cut
// off for good and its run lost).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SCREENSHOTS, api, openBrowser, startServer } from './support.mjs';
import { botRun, dateOf, eventsOf, livePage, nodeCore, raceLive, scriptOf, simulateScript } from './live-support.mjs';

const DESKTOP = { width: 1280, height: 800 };
const SLACK = ['--ticket-slack-ms', '4000'];
/** The tick the server is killed at (5 s in), and how long it stays down (ms). */
const KILL_TICK = 300;
const DOWN_MS = 500;

let server;
let client;
let context;
const errors = [];
let core;
let rate;

before(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  core = await nodeCore();
  server = await startServer(SLACK);
  client = api(server.base);
  rate = (await client.get('/api/levels')).body[0].tick_rate;
  context = await openBrowser(DESKTOP);
});

after(async () => {
  await context?.close();
  await server?.stop();
  // The page's own socket errors while the server is down are the drill, not a fault.
  const unexpected = errors.filter((e) => !/WebSocket|ERR_CONNECTION_REFUSED|Failed to fetch|NetworkError/i.test(String(e)));
  assert.deepEqual(unexpected, [], 'no script errors, no CSP violations');
});

describe('a server that dies mid-race', () => {
  test('kill -9 of the room\'s server mid-race, started again: the page takes its seat back by itself and its run is filed whole and real-time', { timeout: 150_000 }, async () => {
    const identity = { name: 'kim', token: await client.register('kim') };
    const page = await livePage(context, errors, identity, 'kim');
    const bot = botRun(core, 'course', 0);
    const events = eventsOf(bot.inputs, rate);
    await page.goto(`${server.base}/#/play/course?clock=manual&render=none&leader=no`);
    await page.waitForFunction(() => document.getElementById('main').dataset.playState === 'ready', null, { timeout: 40_000 });
    await page.locator('.play-button').click();
    const before = await raceLive(page, events, { untilTick: KILL_TICK });
    assert.equal(before.state, 'racing');
    const roomId = await page.evaluate(() => window.__pogo.play.live().roomId);
    const down = performance.now();
    await server.kill();
    await new Promise((r) => setTimeout(r, DOWN_MS));
    server = await startServer(SLACK, { database: server.database, listen: server.address });
    const up = performance.now() - down;
    // The page races on through the outage (a run cannot be paused) and comes back by itself.
    const end = await raceLive(page, events);
    assert.notEqual(end.state, 'racing', JSON.stringify(end));
    await page.locator('.play-finish .filing-panel[data-state="filed"]').waitFor({ timeout: 30_000 });
    const run = await page.evaluate(() => ({ live: window.__pogo.play.live(), sent: window.__pogo.play.sent(), room: window.__pogo.play.room(), hash: window.__pogo.play.hash(), filing: window.__pogo.play.filing() }));
    assert.deepEqual([run.live.roomId, run.live.role, run.live.me], [roomId, 'racer', 0], 'the same room, the same seat');
    assert.ok(run.live.link.resumes >= 1, `the link resumed: ${JSON.stringify(run.live.link)}`);
    assert.equal(run.filing.status.status, 'verified');
    assert.equal(run.filing.status.final_hash, run.hash, 'the server\'s final hash is the page\'s');
    assert.equal(run.filing.status.realtime, true, `an outage within the slack stays real-time: ${run.filing.status.realtime_note}`);
    const cli = simulateScript('course', scriptOf(run.sent), 'kim', dateOf(run.room.go_ms));
    assert.equal(cli.hash, run.hash, 'the CLI\'s final hash of the whole stream is the page\'s');
    assert.equal(Number(cli.finish), bot.finishTick);
    console.log(`# killed at tick ${KILL_TICK}, serving again after ${(up / 1000).toFixed(2)} s; the page resumed ${run.live.link.resumes}× and its run was filed verified and real-time`);
    await page.locator('section.play').screenshot({ path: join(SCREENSHOTS, 'faults-after-kill-filed.png') });
    await page.close();
  });
});
