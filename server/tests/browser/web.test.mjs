// The web page in a real browser (Debian's Chromium, headless, through playwright-core)
// against the real `pogo-server` on loopback with SQLite, at a phone's viewport and at a
// desktop's. Everything expected comes from the library's verifier at test time (the
// fixtures' manifest, see `server/examples/web_fixtures.rs`) or from the API directly —
// values are read back from the page and compared, never "it rendered".
//
// Run: `cargo build --release -p pogo-server --bin pogo-server --example web_fixtures`, then
// `npm ci && npm test` here. POGO_PROFILE=debug uses the debug binaries; screenshots go to
// POGO_SCREENSHOTS (default target/web-screenshots).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SCREENSHOTS, api, clock, makeFixtures, millis, openBrowser, routeRendered, startServer } from './support.mjs';

const VIEWPORTS = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1280, height: 800 },
];
/** Each test stops by itself within this (a hung page fails the test, never CI's clock). */
const BOUNDED = { timeout: 60_000 };
/** Uploaded before the browser opens (the board's sample runs), in this order. */
const SEEDED = ['ben.pogo', 'bot.pogo', 'zoe.pogo', 'ana.pogo', 'mallory.pogo'];
/** Per viewport: a forged replay and an honest one, uploaded through the page. */
const UPLOADED = { phone: ['cheat-1.pogo', 'dee.pogo'], desktop: ['cheat-2.pogo', 'eve.pogo'] };

let fx;
let server;
let client;
let rate;
const tokens = new Map();
/** Every run uploaded, in upload order: `{file, id, ...manifest entry}`. */
const uploaded = [];

const run = (file) => fx.manifest.runs.find((r) => r.file === file);
const idOf = (file) => uploaded.find((u) => u.file === file).id;
const expectedTime = (tick) => clock(millis(tick + 1, rate));
const gapText = (ticks) => {
  const ms = millis(ticks, rate);
  return ms < 60000 ? `+${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')} s` : `+${clock(ms)}`;
};

/** The board of `level` as the verifier's verdicts rank the uploads: best per player, ties by upload. */
function expectedBoard(level) {
  const best = new Map();
  for (const u of uploaded) {
    if (u.level !== level || u.verdict !== 'verified' || u.finish_tick === null) continue;
    const key = u.player.toLowerCase();
    if (!best.has(key) || u.finish_tick < best.get(key).finish_tick) best.set(key, u);
  }
  return [...best.values()].sort((a, b) => a.finish_tick - b.finish_tick || a.id - b.id);
}

async function tokenFor(player) {
  if (!tokens.has(player)) tokens.set(player, await client.register(player));
  return tokens.get(player);
}

before(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  fx = makeFixtures();
  server = await startServer(['--level', fx.file(fx.manifest.hostile_level.file)]);
  client = api(server.base);
  rate = (await client.get('/api/levels')).body[0].tick_rate;
  for (const file of SEEDED) {
    const entry = run(file);
    const { status, body } = await client.upload(await tokenFor(entry.player), readFileSync(fx.file(file)));
    assert.equal(status, 202, `${file}: ${JSON.stringify(body)}`);
    const verdict = await client.verdict(body.id);
    assert.equal(verdict.status, entry.verdict, file);
    uploaded.push({ ...entry, id: body.id });
  }
});

after(async () => {
  await server?.stop();
});

for (const viewport of VIEWPORTS) {
  describe(`at ${viewport.width}×${viewport.height} (${viewport.name})`, () => {
    let context;
    let page;
    const errors = [];
    const shot = (what) => page.screenshot({ path: join(SCREENSHOTS, `${what}-${viewport.name}.png`), fullPage: true });
    const noSideways = async (where) => {
      const { scroll, inner } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
      assert.ok(scroll <= inner, `${where}: the page is ${scroll} px wide in a ${inner} px viewport`);
    };
    // Going to another hash of the same page does not reload it: wait until the router has
    // rendered this route, not just for a selector the previous view may still match.
    const rendered = async (hash, ready) => {
      await routeRendered(page, hash);
      await page.locator(ready).waitFor();
    };
    const open = async (hash, ready) => {
      await page.goto(`${server.base}/${hash}`);
      await rendered(hash, ready);
    };

    before(async () => {
      context = await openBrowser({ width: viewport.width, height: viewport.height });
      page = await context.newPage();
      page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
      page.on('console', (m) => {
        // A 4xx answer the page expects (a refused upload) logs "Failed to load resource".
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(`console: ${m.text()}`);
      });
    });
    after(async () => {
      await context?.close();
      assert.deepEqual(errors, [], 'no script errors, no CSP violations');
    });

    test('the leaderboard lists the verified runs in rank order', BOUNDED, async () => {
      await open('#/level/course', 'section.board[data-ready]');
      const expected = expectedBoard('course');
      const apiBoard = (await client.get('/api/levels/course/leaderboard')).body;
      assert.deepEqual(apiBoard.entries.map((e) => e.run_id), expected.map((e) => e.id), 'the API ranks as the verifier says');
      const rows = await page.locator('table.leaderboard tbody tr').evaluateAll((trs) => trs.map((tr) => ({
        rank: tr.querySelector('.rank').innerText,
        player: tr.querySelector('.player').innerText,
        time: tr.querySelector('.time .clock').innerText,
        ticks: tr.querySelector('.time .ticks').innerText,
        uploaded: tr.querySelector('.uploaded').innerText,
        splits: [...tr.querySelectorAll('.split-list li')].map((li) => li.innerText.replace(/\s+/g, ' ')),
        href: tr.querySelector('.player a').getAttribute('href'),
      })));
      assert.deepEqual(rows.map((r) => r.player), expected.map((e) => e.player));
      rows.forEach((row, i) => {
        const e = expected[i];
        assert.equal(row.rank, String(i + 1));
        assert.equal(row.time, expectedTime(e.finish_tick), e.player);
        assert.equal(row.ticks, `tick ${e.finish_tick}`);
        assert.match(row.uploaded, /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
        assert.equal(row.href, `#/run/${e.id}`);
        assert.deepEqual(row.splits, e.splits.map((s) => `${s.checkpoint === null ? 'finish' : `CP${s.checkpoint + 1}`} ${expectedTime(s.tick)}`));
      });
      // No stray text between the head and the toggle: a level with one season has no season
      // list, and nothing stands in for it (a `null` once did, appended as text).
      const stray = await page.locator('section.board').evaluate((s) =>
        [...s.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim() !== '').map((n) => n.textContent));
      assert.deepEqual(stray, [], 'text nodes directly in the board section');
      await noSideways('leaderboard');
      await shot('leaderboard');
    });

    test('pages and the player search ("around") show the right slice', BOUNDED, async () => {
      const expected = expectedBoard('course');
      await open('#/level/course?limit=2', 'section.board[data-ready]');
      const players = () => page.locator('table.leaderboard tbody tr').evaluateAll((trs) => trs.map((tr) => tr.dataset.player));
      assert.deepEqual(await players(), expected.slice(0, 2).map((e) => e.player));
      assert.equal(await page.locator('.pager .range').innerText(), `1–2 of ${expected.length}`);
      await page.getByRole('link', { name: 'Next →' }).click();
      await page.locator('section.board[data-ready] .pager .range').filter({ hasText: '3–' }).waitFor();
      assert.deepEqual(await players(), expected.slice(2, 4).map((e) => e.player));
      // Search, in another case than registered: the page around that player, highlighted.
      const target = expected[expected.length - 1];
      await page.getByRole('searchbox').fill(target.player.toUpperCase());
      await page.getByRole('button', { name: 'Find' }).click();
      await page.locator('tr.around').waitFor();
      assert.equal(await page.locator('tr.around').getAttribute('data-player'), target.player);
      const around = (await client.get(`/api/levels/course/leaderboard?limit=2&around=${encodeURIComponent(target.player)}`)).body;
      assert.deepEqual(await players(), around.entries.map((e) => e.player));
      await page.getByRole('searchbox').fill('nobody-here');
      await page.getByRole('button', { name: 'Find' }).click();
      await page.locator('section.board p.error').waitFor();
      assert.match(await page.locator('section.board p.error').innerText(), /nobody-here/);
    });

    test('a race of two runs scrubbed to a tick shows each ghost where the trajectory JSON says', BOUNDED, async () => {
      // Choose the leader and Zoë (who falls, respawns and finishes later) on the board.
      await open('#/level/course', 'section.board[data-ready]');
      const leader = expectedBoard('course')[0];
      const zoe = uploaded.find((u) => u.file === 'zoe.pogo');
      for (const id of [leader.id, zoe.id]) await page.locator(`tr[data-run="${id}"] input[type=checkbox]`).check();
      await page.getByRole('button', { name: 'Race selected (2)' }).click();
      await page.locator('section.race[data-ready]').waitFor();
      assert.match(page.url(), new RegExp(`#/race\\?runs=${leader.id},${zoe.id}`));
      const ghosts = await Promise.all([leader.id, zoe.id].map(async (id) => (await client.get(`/api/runs/${id}/ghost`)).body));
      const pointAt = (g, tick) => g.points.find((p) => p.tick === tick);

      const state = () => page.evaluate(() => window.__pogo.race);
      const scrub = async (tick) => {
        await page.locator('#scrubber').evaluate((input, t) => {
          input.value = String(t);
          input.dispatchEvent(new Event('input', { bubbles: true }));
        }, tick);
        await page.waitForFunction((t) => window.__pogo.race.tick === t, tick);
      };
      const expectAt = async (tick) => {
        const race = await state();
        assert.equal(race.tick, tick);
        race.ghosts.forEach((g, i) => {
          const p = pointAt(ghosts[i], tick);
          assert.equal(g.run, ghosts[i].id);
          assert.deepEqual({ x: g.x, y: g.y, z: g.z }, { x: p.x, y: p.y, z: p.z }, `run ${g.run} at tick ${tick}`);
        });
        const legend = await page.locator('ol.legend li').evaluateAll((lis) => lis.map((li) => [li.dataset.run, +li.dataset.x, +li.dataset.y, +li.dataset.z]));
        assert.deepEqual(legend, race.ghosts.map((g) => [String(g.run), g.x, g.y, g.z]));
        return race;
      };

      // Mid-way: the leader's half time.
      const mid = Math.floor(leader.finish_tick / 2);
      await scrub(mid);
      const race = await expectAt(mid);
      assert.equal(await page.locator('output.clock').innerText(), `${expectedTime(mid)} · tick ${mid} / ${Math.max(...ghosts.map((g) => g.ticks - 1))}`);
      // Each marker is drawn where the page says it is: sample the canvas under it.
      for (const view of ['top', 'side']) {
        for (const [i, g] of race.ghosts.entries()) {
          const others = race.ghosts.filter((_, j) => j !== i);
          const { x, y } = g.screen[view];
          if (others.some((o) => Math.hypot(o.screen[view].x - x, o.screen[view].y - y) < 16)) continue;
          const rgb = await page.locator(`#view-${view}`).evaluate((canvas, [px, py]) => {
            const ratio = canvas.width / canvas.clientWidth;
            return [...canvas.getContext('2d').getImageData(Math.round(px * ratio), Math.round(py * ratio), 1, 1).data.slice(0, 3)];
          }, [x, y]);
          const hex = `#${rgb.map((c) => c.toString(16).padStart(2, '0')).join('')}`;
          assert.equal(hex, g.colour, `${view} view: the pixel under run ${g.run}'s marker at (${x.toFixed(1)}, ${y.toFixed(1)})`);
        }
      }
      await shot('race');

      // Keyboard: one tick, one second, the ends.
      await page.locator('body').press('ArrowRight');
      await page.locator('body').press('ArrowRight');
      await page.waitForFunction((t) => window.__pogo.race.tick === t, mid + 2);
      await expectAt(mid + 2);
      await page.locator('body').press('Shift+ArrowLeft');
      await page.waitForFunction((t) => window.__pogo.race.tick === t, mid + 2 - rate);
      await expectAt(mid + 2 - rate);
      await page.locator('body').press('Home');
      await page.waitForFunction(() => window.__pogo.race.tick === 0);
      await expectAt(0);

      // Gaps: before the first checkpoint none is shown; at the end every one, as the splits say.
      const cells = () => page.locator('table.gaps tbody tr').evaluateAll((trs) => trs.map((tr) => ({
        split: tr.dataset.split,
        cells: [...tr.querySelectorAll('td')].map((td) => ({ reached: td.dataset.reached === 'true', text: td.innerText.replace(/\s+/g, ' ') })),
      })));
      assert.ok((await cells()).every((row) => row.cells.every((c) => !c.reached)));
      assert.equal(await page.locator('p.callout').innerText(), 'No checkpoint reached yet.');
      await page.locator('body').press('End');
      await page.waitForFunction(() => window.__pogo.race.tick === window.__pogo.race.lastTick);
      const runs = [leader, zoe];
      const keys = [...new Set(runs.flatMap((r) => r.splits.map((s) => (s.checkpoint === null ? 'finish' : `cp${s.checkpoint}`))))];
      const rows = await cells();
      assert.deepEqual(rows.map((r) => r.split).sort(), keys.sort());
      for (const row of rows) {
        const ticks = runs.map((r) => r.splits.find((s) => (s.checkpoint === null ? 'finish' : `cp${s.checkpoint}`) === row.split)?.tick ?? null);
        const first = Math.min(...ticks.filter((t) => t !== null));
        row.cells.forEach((cell, i) => {
          if (ticks[i] === null) return assert.equal(cell.reached, false);
          const gap = ticks[i] === first && ticks.indexOf(first) === i ? 'first' : gapText(ticks[i] - first);
          assert.equal(cell.text, `${expectedTime(ticks[i])} ${gap}`, `${row.split}, ${runs[i].player}`);
        });
      }
      assert.equal(await page.locator('p.callout').innerText(), `finish: ${leader.player} first; ${zoe.player} ${gapText(zoe.finish_tick - leader.finish_tick)}`);

      // Play, pause, speed.
      await page.locator('body').press('Home');
      await page.getByRole('button', { name: 'Play' }).click();
      await page.waitForFunction(() => window.__pogo.race.tick > 30 && window.__pogo.race.playing);
      await page.locator('body').press(' ');
      await page.waitForFunction(() => !window.__pogo.race.playing);
      const paused = (await state()).tick;
      assert.ok(Number.isInteger(paused), `paused on a whole tick, not ${paused}`);
      await page.waitForTimeout(200);
      assert.equal((await state()).tick, paused, 'paused means paused');
      await expectAt(paused);
      for (const [key, speed] of [['+', 2], ['+', 4], ['+', 4], ['-', 2], ['-', 1], ['-', 0.5], ['-', 0.25], ['-', 0.25]]) {
        await page.locator('body').press(key);
        await page.waitForFunction((s) => window.__pogo.race.speed === s, speed);
      }
      assert.equal(await page.locator('#speed option:checked').innerText(), '¼×');
      await noSideways('race');
    });

    test('between trajectory points the ghost is interpolated, but never across a teleport', BOUNDED, async () => {
      const zoe = uploaded.find((u) => u.file === 'zoe.pogo');
      const every = 30;
      await open(`#/race?runs=${zoe.id}&every=${every}`, 'section.race[data-ready]');
      const ghost = (await client.get(`/api/runs/${zoe.id}/ghost?every=${every}`)).body;
      assert.equal(ghost.every, every);
      const k = ghost.points.findIndex((p, i) => i > 0 && p.teleport);
      assert.ok(k > 1, 'Zoë respawns once in the run');
      assert.equal(ghost.points[k].tick, zoe.teleports[1], 'the JSON marks the verifier\'s teleport');
      const [before, jump] = [ghost.points[k - 1], ghost.points[k]];
      const seek = async (t) => {
        await page.evaluate((tick) => window.__pogo.race.seek(tick), t);
        await page.waitForFunction((tick) => window.__pogo.race.tick === tick, t);
        return (await page.evaluate(() => window.__pogo.race)).ghosts[0];
      };
      // An ordinary gap between points: linear.
      const [a, b] = [ghost.points[1], ghost.points[2]];
      assert.equal(b.tick - a.tick, every);
      const t = a.tick + every / 3;
      const g = await seek(t);
      for (const axis of ['x', 'y', 'z']) {
        assert.ok(Math.abs(g[axis] - (a[axis] + ((b[axis] - a[axis]) * (t - a.tick)) / every)) < 1e-9, `${axis} at tick ${t}`);
      }
      // Across the respawn: held at the point before it, then at the spawn.
      const held = await seek((before.tick + jump.tick) / 2);
      assert.deepEqual([held.x, held.y, held.z, held.held], [before.x, before.y, before.z, true]);
      const after = await seek(jump.tick);
      assert.deepEqual([after.x, after.y, after.z], [jump.x, jump.y, jump.z]);
      // The trail just after it is two pieces, not a line across the level.
      assert.equal((await seek(jump.tick + 10)).trailSegments, 2);
      assert.equal((await seek(jump.tick + 100)).trailSegments, 1);
    });

    test('a forged upload is rejected with the verifier\'s reason; an honest one is ranked', BOUNDED, async () => {
      const [forgedFile, honestFile] = UPLOADED[viewport.name];
      const upload = async (file) => {
        const entry = run(file);
        await open('#/upload', 'form.upload-form');
        await page.locator('#token').fill(await tokenFor(entry.player));
        await page.locator('#file').setInputFiles(fx.file(file));
        await page.getByRole('button', { name: 'Upload' }).click();
        await page.locator('#upload-status[data-state=verified], #upload-status[data-state=rejected], #upload-status[data-state=error]').waitFor();
        const status = page.locator('#upload-status');
        const id = Number(await status.getAttribute('data-run'));
        if (id) uploaded.push({ ...entry, id });
        return { entry, id, status, state: await status.getAttribute('data-state'), history: await page.evaluate(() => window.__pogo.upload.history) };
      };

      const forged = await upload(forgedFile);
      assert.equal(forged.state, 'rejected');
      assert.equal(await forged.status.locator('.reason').innerText(), forged.entry.reason, 'the verifier\'s own message');
      assert.equal((await client.get(`/api/runs/${forged.id}`)).body.reason, forged.entry.reason);
      assert.deepEqual(forged.history.slice(0, 2), ['uploading', 'uploaded']);
      assert.equal(forged.history.at(-1), 'rejected');
      await shot('upload-rejected');

      const honest = await upload(honestFile);
      assert.equal(honest.state, 'verified', await honest.status.innerText());
      const rank = expectedBoard('course').findIndex((e) => e.id === honest.id) + 1;
      assert.ok(rank > 0);
      assert.equal((await client.get(`/api/runs/${honest.id}`)).body.rank, rank);
      assert.equal(await honest.status.getAttribute('data-rank'), String(rank));
      assert.match(await honest.status.innerText(), new RegExp(`${expectedTime(honest.entry.finish_tick).replace('.', '\\.')} \\(finish tick ${honest.entry.finish_tick}\\), rank ${rank} on course`));
      // And the board now has it at that rank.
      await open('#/level/course', 'section.board[data-ready]');
      assert.equal(await page.locator(`tr[data-run="${honest.id}"]`).getAttribute('data-rank'), String(rank));
      await noSideways('upload');
    });

    test('a run\'s page shows its verdict, splits, header and a download of its bytes', BOUNDED, async () => {
      const zoe = uploaded.find((u) => u.file === 'zoe.pogo');
      await open(`#/run/${zoe.id}`, 'section.run[data-ready]');
      const rank = expectedBoard('course').findIndex((e) => e.id === zoe.id) + 1;
      assert.equal(await page.locator('p.verdict').innerText(), `Verified · ${expectedTime(zoe.finish_tick)} (finish tick ${zoe.finish_tick}) · rank ${rank}`);
      const splits = await page.locator('table.splits-table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.innerText)));
      assert.deepEqual(splits, zoe.splits.map((s) => [s.checkpoint === null ? 'finish' : `CP${s.checkpoint + 1}`, String(s.tick), expectedTime(s.tick)]));
      const facts = Object.fromEntries(await page.locator('dl.inspect dt').evaluateAll((dts) => dts.map((dt) => [dt.innerText, dt.nextElementSibling.innerText])));
      assert.equal(facts['player name'], zoe.player);
      assert.equal(facts.ticks, String(zoe.ticks));
      assert.equal(facts['finish (claimed)'], `P0 tick ${zoe.claimed_finish[0]} (${expectedTime(zoe.claimed_finish[0])})`);
      assert.equal(facts.size, `${zoe.bytes} bytes`);
      assert.match(facts.level, /^course \(hash [0-9a-f]{16}\)$/);
      const href = await page.locator('a.download').getAttribute('href');
      assert.equal(href, `/api/runs/${zoe.id}/replay`);
      const bytes = Buffer.from(await (await fetch(server.base + href)).arrayBuffer());
      assert.ok(bytes.equals(readFileSync(fx.file('zoe.pogo'))), 'the download is the uploaded file');
      const leader = expectedBoard('course')[0];
      assert.equal(await page.getByRole('link', { name: /^Race the leader/ }).getAttribute('href'), `#/race?runs=${zoe.id},${leader.id}`);
      await noSideways('run');

      // A forged run's page: rejected with the reason, beside the finish it claimed.
      const forged = uploaded.find((u) => u.file === UPLOADED[viewport.name][0]);
      await open(`#/run/${forged.id}`, 'section.run[data-ready]');
      assert.equal(await page.locator('p.verdict .reason').innerText(), forged.reason);
      const claimed = await page.locator('dl.inspect dt', { hasText: 'finish (claimed)' }).evaluate((dt) => dt.nextElementSibling.innerText);
      assert.equal(claimed, `P0 tick ${forged.claimed_finish[0]} (${expectedTime(forged.claimed_finish[0])})`);
      assert.equal(await page.locator('a.download').count(), 0, 'no download of an unverified run');
    });

    test('names and messages from the API are shown as text, never run as markup', BOUNDED, async () => {
      const hostile = fx.manifest.hostile_level.name;
      await open('#/', 'section.board[data-ready]');
      // `#/` shows the first level by name, which is this one ('<' sorts before letters): wait
      // for the route the link opens, not for a board the previous view already shows.
      const tab = page.getByRole('link', { name: hostile, exact: true });
      const href = await tab.getAttribute('href');
      await tab.click();
      await rendered(href, 'section.board[data-ready]');
      assert.equal(await page.locator('section.board h2').innerText(), hostile);
      assert.deepEqual(await page.locator('table.leaderboard tbody tr').evaluateAll((trs) => trs.map((tr) => tr.dataset.player)), ['mallory']);
      // A replay of a level the server does not run: refused, the name quoted as text.
      await open('#/upload', 'form.upload-form');
      await page.locator('#token').fill(await tokenFor('mallory'));
      await page.locator('#file').setInputFiles(fx.file('unknown-level.pogo'));
      await page.getByRole('button', { name: 'Upload' }).click();
      await page.locator('#upload-status[data-state=error]').waitFor();
      const text = await page.locator('#upload-status').innerText();
      assert.ok(text.includes(fx.manifest.unknown_level), text);
      assert.match(text, /404 unknown_level/);
      assert.equal(await page.evaluate(() => window.__xss), undefined, 'no markup ran');
      assert.equal(await page.locator('main img').count(), 0);
    });
  });
}

// Seasons: a board recorded under the default tuning, then the same database opened with
// another tuning. The course board the runs are on becomes a past season; the page lists it
// beside the (empty) current one and opens it read-only.
describe('seasons', () => {
  /** Uploaded to the first server (default tuning), in this order. */
  const SEASON_RUNS = ['ben.pogo', 'bot.pogo', 'ana.pogo'];
  let first;
  let second;
  let client2;

  before(async () => {
    first = await startServer([]);
    const client1 = api(first.base);
    for (const file of SEASON_RUNS) {
      const entry = run(file);
      const { status, body } = await client1.upload(await client1.register(entry.player), readFileSync(fx.file(file)));
      assert.equal(status, 202, `${file}: ${JSON.stringify(body)}`);
      assert.equal((await client1.verdict(body.id)).status, 'verified', file);
    }
    await first.stop();
    const tuning = join(mkdtempSync(join(tmpdir(), 'pogo-web-tuning-')), 'tuning.json');
    writeFileSync(tuning, '{"dive_gravity_scale": 3}');
    second = await startServer(['--tuning', tuning], { database: first.database });
    client2 = api(second.base);
  });

  after(async () => {
    await second?.stop();
  });

  for (const viewport of VIEWPORTS) {
    test(`the board lists the past seasons and opens one read-only (${viewport.name})`, BOUNDED, async () => {
      const context = await openBrowser({ width: viewport.width, height: viewport.height });
      const errors = [];
      try {
        const page = await context.newPage();
        page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
        page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
        const rendered = (hash) => routeRendered(page, hash);
        const seasons = (await client2.get('/api/levels/course/seasons')).body;
        assert.equal(seasons.seasons.length, 2, JSON.stringify(seasons));
        const [current, past] = seasons.seasons;
        assert.deepEqual([current.current, past.current, past.runs, past.players], [true, false, 3, 3]);

        await page.goto(`${second.base}/#/level/course`);
        await rendered('#/level/course');
        const items = await page.locator('nav.seasons li').evaluateAll((lis) => lis.map((li) => ({
          season: li.dataset.season,
          name: li.querySelector('.season-name').innerText,
          keys: li.querySelector('.season-keys').innerText,
          facts: li.querySelector('.season-facts').innerText,
          shown: li.querySelector('a').hasAttribute('aria-current'),
          href: li.querySelector('a').getAttribute('href'),
        })));
        assert.deepEqual(items.map((i) => i.season), [current.id, past.id], 'current first, then the past one');
        assert.deepEqual(items.map((i) => i.shown), [true, false]);
        assert.equal(items[0].name, 'Current season');
        assert.equal(items[1].name, 'Past season');
        assert.equal(items[1].keys, `rules ${past.rules_version} · level ${past.level_hash.slice(0, 8)} · tuning ${past.tuning_hash.slice(0, 8)}`);
        assert.match(items[0].facts, /^0 runs · 0 players$/);
        assert.match(items[1].facts, /^3 runs · 3 players · from \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
        assert.equal(items[1].href, `#/level/course?season=${past.id}`);
        assert.equal(await page.locator('a.play-link').count(), 1, 'the current season can be played');
        assert.equal(await page.locator('p.empty').innerText(), 'No verified runs yet. Upload one!');
        await page.screenshot({ path: join(SCREENSHOTS, `seasons-current-${viewport.name}.png`), fullPage: true });

        await page.locator(`nav.seasons li[data-season="${past.id}"] a`).click();
        await rendered(items[1].href);
        await page.locator('section.board[data-ready]').waitFor();
        assert.equal(await page.locator('.past-season .past-label').innerText(), `season ${past.id} (past)`);
        assert.equal(await page.locator('.season-badge').innerText(), 'PAST SEASON');
        assert.equal(await page.locator('a.play-link').count(), 0, 'no Play on a past season');
        assert.equal(await page.locator('table.leaderboard input[type=checkbox]').count(), 0, 'no race selection');
        assert.equal(await page.locator('a[href^="#/play/"], a[href^="#/race"], button.race-selected').count(), 0, 'no races');
        const board = (await client2.get(`/api/levels/course/leaderboard?season=${past.id}`)).body;
        assert.equal(board.current, false);
        const rows = await page.locator('table.leaderboard tbody tr').evaluateAll((trs) => trs.map((tr) => ({
          player: tr.dataset.player,
          rank: tr.querySelector('.rank').innerText,
          ticks: tr.querySelector('.time .ticks').innerText,
        })));
        assert.deepEqual(rows, board.entries.map((e) => ({ player: e.player, rank: String(e.rank), ticks: `tick ${e.finish_tick}` })));
        assert.equal(rows.length, 3);
        assert.ok(await page.locator(`nav.seasons li[data-season="${past.id}"] a[aria-current]`).count() === 1);
        const { scroll, inner } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
        assert.ok(scroll <= inner, `the page is ${scroll} px wide in a ${inner} px viewport`);
        await page.screenshot({ path: join(SCREENSHOTS, `seasons-past-${viewport.name}.png`), fullPage: true });
        // A past season's run: its page says so, and offers no race and no in-browser check
        // (it re-simulates only under its own tuning).
        const first = board.entries[0];
        await page.locator(`table.leaderboard tbody tr[data-run="${first.run_id}"] .player a`).click();
        await rendered(`#/run/${first.run_id}`);
        await page.locator('section.run[data-ready]').waitFor();
        assert.match(await page.locator('p.verdict').innerText(), new RegExp(`season ${past.id} \\(past\\)$`));
        assert.equal(await page.locator('a.race-ghost').count(), 0);
        assert.equal(await page.locator('section.browser-verify').count(), 0);
        assert.equal((await client2.get(`/api/runs/${first.run_id}/ghost`)).body.error, 'past_season');
        await page.screenshot({ path: join(SCREENSHOTS, `seasons-past-run-${viewport.name}.png`), fullPage: true });
        // An unknown season: said, with the way back.
        const unknown = '#/level/course?season=r2-0000000000000000-0000000000000000';
        await page.goto(`${second.base}/${unknown}`);
        await rendered(unknown);
        assert.match(await page.locator('section.board p.error').innerText(), /has no season/);
      } finally {
        await context.close();
      }
      assert.deepEqual(errors, [], 'no script errors');
    });
  }
});
