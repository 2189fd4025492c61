// Real-time runs in a real browser (Debian's Chromium, headless) against the real
// `pogo-server` on loopback, on the path that still uses run tickets: a race run offline
// (`?live=off`, as when the server's live rooms cannot be reached; live races are
// live.test.mjs's). The play view asks for a run ticket, counts down to its GO, commits the
// start at GO and each checkpoint and the finish as they happen (retrying each until the
// server acknowledges it), and uploads naming the ticket. The test drives the page's game
// clock (`?clock=manual`) from the wall clock, so the race runs at real speed — or, in one
// section, slower than real time and then catches up — and the verdict comes from the
// server, whose oracle for the run is its own re-simulation.
//
// The inputs are the demo bot's on course (the Node core, from the module the server serves),
// so the splits are bot.pogo's (the fixtures' manifest). A race takes the bot's 55 s of
// game time: two of them, about two minutes.
//
// Screenshots (POGO_SCREENSHOTS, default target/web-screenshots): realtime-finish.png,
// realtime-slowed.png, realtime-open.png (no token), realtime-board.png (the toggle).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO, SCREENSHOTS, WASM, api, makeFixtures, openBrowser, requireFile, startServer } from './support.mjs';
import { botRun, eventsOf } from './live-support.mjs';

/** A real-speed race of the course (55 s) and its verdict fit in this. */
const RACE = { timeout: 150_000 };
const DESKTOP = { width: 1280, height: 800 };
/** The slowed section: game time runs at a third of the wall clock for this long (ms of
 * wall clock), ending this long before checkpoint 0's game time, so the race is 3 s behind
 * at checkpoint 0 (past the server's default slack of 1.5 s); then it catches up at 4×. */
const SLOW_WALL_MS = 4500;
const SLOW_ENDS_BEFORE_MS = 1000;
const CATCH_UP_WALL_MS = 1000;

let fx;
let server;
let client;
let rate;
let core;
/** The demo bot's per-tick inputs on course, and its finish tick. */
let bot;
/** bot.pogo's splits (the oracle for what the page commits). */
let splits;
/** The runs the races uploaded: {swift, sloth} → run id. */
const runs = {};

before(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  requireFile(WASM, 'bash scripts/build-wasm.sh');
  const binding = await import(pathToFileURL(join(REPO, 'ffi/js/pogo.mjs')).href);
  const pogo = await binding.load(readFileSync(WASM));
  core = { pogo, tuning: pogo.tuning(), hex: binding.hex, Event: binding.Event };
  fx = makeFixtures();
  splits = fx.manifest.runs.find((r) => r.file === 'bot.pogo').splits;
  server = await startServer();
  client = api(server.base);
  rate = (await client.get('/api/levels')).body[0].tick_rate;
  bot = botRun(core, 'course');
  assert.equal(bot.finishTick, splits.at(-1).tick, 'the Node core\'s bot is bot.pogo');
});

after(async () => {
  await server?.stop();
});

/**
 * In the page: start (the ticket is minted first), then frames every ~10 ms whose game time
 * follows the wall clock by `phases` — [[wall ms, game rate], …], then real speed — with the
 * events due pushed before each frame, until the finish. Returns the lag (ms) at the end.
 */
function raceInPage(page, phases) {
  return page.evaluate(async ({ events, phases }) => {
    const play = window.__pogo.play;
    await play.start();
    const t0 = performance.now();
    const gameAt = (wall) => {
      let game = 0;
      let left = wall;
      for (const [span, speed] of phases) {
        const part = Math.min(left, span);
        game += part * speed;
        left -= part;
        if (left <= 0) return game;
      }
      return game + left;
    };
    let e = 0;
    let wall = 0;
    let game = 0;
    while (play.state !== 'finished') {
      wall = performance.now() - t0;
      game = gameAt(wall);
      const ns = BigInt(Math.floor(game * 1e6));
      while (e < events.length && BigInt(events[e][0]) <= ns) {
        play.input(events[e][0], events[e][1]);
        e++;
      }
      play.frame(ns);
      await new Promise((r) => setTimeout(r, 10));
    }
    // The finish's commitment is on its way (the panel waits for it before uploading).
    for (let i = 0; i < 500 && play.ticket()?.sent.some((c) => c.ok === null); i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    return { lagMs: wall - game, ticket: play.ticket(), goLateMs: t0 - play.ticket().goAtMs };
  }, { events: eventsOf(bot.inputs, rate), phases });
}

/** Clicks Upload on the finish panel and waits for the verdict; `window.__pogo.submit`. */
async function uploadAndWait(page) {
  await page.locator('.play-finish .finish-panel').waitFor();
  await page.locator('.finish-upload').click();
  await page.waitForFunction(() => ['verified', 'rejected', 'error'].includes(window.__pogo.submit?.state), null, { timeout: 60_000 });
  return page.evaluate(() => window.__pogo.submit);
}

async function newPage(context, errors, identity) {
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(`console: ${m.text()}`);
  });
  // The context's storage is shared by its pages: each page sets (or clears) the identity.
  await page.addInitScript((id) => {
    try {
      if (id) localStorage.setItem('pogo.player', JSON.stringify(id));
      else localStorage.removeItem('pogo.player');
    } catch { /* about:blank has no storage */ }
  }, identity);
  await page.goto(`${server.base}/#/play/course?clock=manual&live=off&render=none`);
  await page.waitForFunction(() => document.getElementById('main').dataset.playState === 'ready', null, { timeout: 40_000 });
  return page;
}

describe('real-time runs', () => {
  let context;
  const errors = [];
  before(async () => {
    context = await openBrowser(DESKTOP);
  });
  after(async () => {
    await context?.close();
    assert.deepEqual(errors, [], 'no script errors, no CSP violations');
  });

  test('a run played at real speed, uploaded later from the board (the kept run names its ticket), is real-time: on the real-time board, "real-time ✓" on the panel', RACE, async () => {
    const name = 'swift';
    const token = await client.register(name);
    const page = await newPage(context, errors, { name, token });
    // The network loses things: the first try of every commitment never reaches the server,
    // and the second try of the start and of the finish reaches it but its answer is lost.
    // The page retries each until acknowledged; the server answers a copy 200 `repeated`.
    const tries = new Map();
    await page.route('**/api/tickets/*/commits', async (route) => {
      const { kind, tick } = JSON.parse(route.request().postData());
      const n = (tries.get(`${kind} ${tick}`) ?? 0) + 1;
      tries.set(`${kind} ${tick}`, n);
      if (n === 1) return route.abort('connectionreset');
      if (n === 2 && kind !== 'checkpoint') {
        await route.fetch();
        return route.abort('connectionreset');
      }
      return route.continue();
    });
    const raced = await raceInPage(page, []);
    assert.ok(raced.lagMs < 100, `the race kept up with the wall clock (${raced.lagMs} ms behind)`);
    // The countdown ended at the ticket's GO (its answer's arrival plus go_in_ms), not before.
    assert.ok(raced.goLateMs >= 0 && raced.goLateMs < 100, `GO ${raced.goLateMs} ms after the ticket's`);
    // Committed: the start, every checkpoint split and the finish, all taken, each after the
    // tries the network cost it (the start and the finish as copies the server already held).
    assert.deepEqual(raced.ticket.sent.map((c) => [c.kind, c.tick, c.ok, c.tries, c.repeated]),
      [['start', 0, true, 3, true], ...splits.map((s) => (s.checkpoint === null ? ['finish', s.tick, true, 3, true] : ['checkpoint', s.tick, true, 2, false]))]);
    // Not uploaded now: the run waits in the browser with its ticket's id (a server outage,
    // say), and the upload from the board's "not yet uploaded" list later still names it.
    await page.locator('.play-finish .finish-panel').waitFor();
    const kept = await page.evaluate(() => JSON.parse(localStorage.getItem('pogo.pending')));
    assert.deepEqual(kept.map((e) => e.ticket), [raced.ticket.id]);
    await page.goto('about:blank');
    await page.goto(`${server.base}/#/level/course`);
    await page.locator('.board-pending li.pending-run button', { hasText: 'Upload' }).click();
    await page.waitForFunction(() => ['verified', 'rejected', 'error'].includes(window.__pogo.submit?.state), null, { timeout: 60_000 });
    const submit = await page.evaluate(() => window.__pogo.submit);
    assert.equal(submit.state, 'verified', submit.message);
    assert.equal(submit.ticket, raced.ticket.id);
    assert.equal(submit.realtime, true, `not real-time: ${submit.realtimeNote}`);
    assert.equal(submit.realtimeRank, 1);
    const line = page.locator('.finish-realtime');
    assert.equal(await line.getAttribute('data-realtime'), 'true');
    assert.match(await line.innerText(), /real-time ✓/);
    const status = (await client.get(`/api/runs/${submit.runId}`)).body;
    assert.equal(status.realtime, true);
    const board = (await client.get('/api/levels/course/leaderboard?category=realtime')).body;
    assert.deepEqual(board.entries.map((e) => e.run_id), [submit.runId]);
    runs.swift = submit.runId;
    await page.locator('.pending-panel').screenshot({ path: join(SCREENSHOTS, 'realtime-finish.png') });
    await page.close();
  });

  test('a run slowed in one section (3 s behind at CP1, then caught up) is verified but not real-time, with the reason', RACE, async () => {
    const name = 'sloth';
    const token = await client.register(name);
    const page = await newPage(context, errors, { name, token });
    const checkpointMs = (splits[0].tick * 1000) / rate;
    const slowFrom = checkpointMs - SLOW_ENDS_BEFORE_MS - SLOW_WALL_MS / 3;
    assert.ok(slowFrom > 0, `checkpoint 0 is ${checkpointMs} ms in`);
    const raced = await raceInPage(page, [[slowFrom, 1], [SLOW_WALL_MS, 1 / 3], [SLOW_ENDS_BEFORE_MS + 500, 1], [CATCH_UP_WALL_MS, 4]]);
    assert.ok(Math.abs(raced.lagMs) < 100, `caught up (${raced.lagMs} ms)`);
    assert.ok(raced.ticket.sent.every((c) => c.ok), 'every commitment was taken (only its time is wrong)');
    const submit = await uploadAndWait(page);
    assert.equal(submit.state, 'verified', submit.message);
    assert.equal(submit.realtime, false);
    assert.match(submit.realtimeNote, /^CP1 was committed 3\.\d+ s after its game time since GO \(at most 1\.5 s allowed\)$/);
    const line = page.locator('.finish-realtime');
    assert.equal(await line.getAttribute('data-realtime'), 'false');
    assert.equal(await line.locator('.realtime-note').innerText(), submit.realtimeNote);
    // On the open board, not on the real-time one.
    const open = (await client.get('/api/levels/course/leaderboard?category=open')).body;
    assert.ok(open.entries.some((e) => e.run_id === submit.runId));
    const realtime = (await client.get('/api/levels/course/leaderboard?category=realtime')).body;
    assert.ok(!realtime.entries.some((e) => e.run_id === submit.runId));
    runs.sloth = submit.runId;
    await page.locator('.play-finish').screenshot({ path: join(SCREENSHOTS, 'realtime-slowed.png') });
    await page.close();
  });

  test('without a token the race is open, and the finish panel says so', RACE, async () => {
    const page = await newPage(context, errors, null);
    const finished = await page.evaluate(async ({ events, until }) => {
      const play = window.__pogo.play;
      await play.start();
      let e = 0;
      for (let n = 1n; n <= BigInt(until); n++) {
        const now = (n * 1_000_000_000n + 59n) / 60n;
        while (e < events.length && BigInt(events[e][0]) <= now) { play.input(events[e][0], events[e][1]); e++; }
        play.frame(now);
        if (play.state === 'finished') break;
      }
      return { state: play.state, ticket: play.ticket(), openWhy: play.openWhy() };
    }, { events: eventsOf(bot.inputs, rate), until: 7200 });
    assert.equal(finished.state, 'finished');
    assert.equal(finished.ticket, null);
    assert.match(finished.openWhy, /no name in this browser/);
    const line = page.locator('.finish-realtime');
    await line.waitFor();
    assert.equal(await line.getAttribute('data-realtime'), 'open');
    assert.match(await line.innerText(), /Open: an open race: no name in this browser/);
    await page.locator('.play-finish').screenshot({ path: join(SCREENSHOTS, 'realtime-open.png') });
    await page.close();
  });

  test('the board\'s Open / Real-time toggle shows each category', { timeout: 60_000 }, async () => {
    const page = await context.newPage();
    await page.goto(`${server.base}/#/level/course?category=realtime`);
    await page.waitForFunction(() => document.querySelector('section.board')?.dataset.category === 'realtime' && document.querySelector('table.leaderboard'));
    const realtimeRows = await page.locator('table.leaderboard tbody tr').evaluateAll((rows) => rows.map((r) => r.dataset.player));
    assert.deepEqual(realtimeRows, ['swift']);
    assert.equal(await page.locator('nav.category-toggle a[aria-current]').innerText(), 'Real-time');
    await page.screenshot({ path: join(SCREENSHOTS, 'realtime-board.png') });
    await page.locator('nav.category-toggle a', { hasText: 'Open' }).click();
    await page.waitForFunction(() => document.querySelector('section.board')?.dataset.category === 'open' && document.querySelector('table.leaderboard'));
    const openRows = await page.locator('table.leaderboard tbody tr').evaluateAll((rows) => rows.map((r) => r.dataset.player));
    assert.deepEqual([...openRows].sort(), ['sloth', 'swift']);
    await page.screenshot({ path: join(SCREENSHOTS, 'realtime-board-open.png') });
    // A run's page says real-time, or why not.
    for (const [who, mark] of [['swift', 'true'], ['sloth', 'false']]) {
      await page.goto('about:blank');
      await page.goto(`${server.base}/#/run/${runs[who]}`);
      const span = page.locator('.verdict .realtime');
      await span.waitFor();
      assert.equal(await span.getAttribute('data-realtime'), mark);
      await page.screenshot({ path: join(SCREENSHOTS, `realtime-run-${who}.png`) });
    }
    await page.close();
  });
});
