// The racer's loop after the finish line, in a real browser against the real server: the
// finish panel (play-submit.js) uploads a run the browser recorded, shows queued → verifying
// → verified with the rank and the change to the player's best, keeps the run in
// localStorage until the server has it (a refused token, a 503, a server that cannot be
// reached lose nothing), re-records a run under a newly registered name; and a run's page
// re-verifies the replay with the wasm verifier ("verify in your browser").
//
// The oracles: the CLI's `pogo verify --json` (final hash and finish tick of each fixture),
// the fixtures' manifest (the library's verifier) and the API itself.
//
// Needs the binaries (`cargo build -p pogo-server -p pogo-cli --bins --examples`, release
// unless POGO_PROFILE=debug) and the wasm module (`cargo build -p pogo-ffi --target
// wasm32-unknown-unknown --profile wasm-release`). POGO_WEB_FROM_DISK=1 serves the page's
// files from server/web/ (and the binding and module from ffi/js/ and target/) instead of
// the server binary's embedded copy: for working on the page without rebuilding the server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, SCREENSHOTS, api, clock, makeFixtures, millis, openBrowser, startServer } from './support.mjs';

const PROFILE = process.env.POGO_PROFILE ?? 'release';
const TARGET = process.env.CARGO_TARGET_DIR ?? join(REPO, 'target');
const POGO_BIN = process.env.POGO_CLI_BIN ?? join(TARGET, PROFILE, 'pogo');
const WASM = join(TARGET, 'wasm32-unknown-unknown', 'wasm-release', 'pogo_ffi.wasm');
const FROM_DISK = process.env.POGO_WEB_FROM_DISK === '1';

const BOUNDED = { timeout: 60_000 };
const SEEDED = ['bot.pogo', 'ana.pogo', 'ben.pogo', 'zoe.pogo'];

let fx;
let server;
let client;
let rate;
const tokens = new Map();
const ids = new Map();

const run = (file) => fx.manifest.runs.find((r) => r.file === file);
const bytesOf = (file) => readFileSync(fx.file(file));
const expectedTime = (tick) => clock(millis(tick + 1, rate));
const seconds = (ticks) => {
  const ms = millis(ticks, rate);
  return `${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')} s`;
};

/** `pogo verify --json FILE`: the CLI's final hash and finish tick. */
function cliVerify(file) {
  if (!existsSync(POGO_BIN)) throw new Error(`${POGO_BIN} is missing: cargo build -p pogo-cli`);
  return JSON.parse(execFileSync(POGO_BIN, ['verify', '--json', fx.file(file)], { encoding: 'utf8' }).trim());
}

/** The final hash a replay's header and trailer claim (`pogo inspect`), for a forged run. */
function claimedHash(file) {
  const text = execFileSync(POGO_BIN, ['inspect', fx.file(file)], { encoding: 'utf8' });
  return text.match(/^final hash: ([0-9a-f]{16})$/m)[1];
}

async function tokenFor(player) {
  if (!tokens.has(player)) tokens.set(player, await client.register(player));
  return tokens.get(player);
}

async function bestOf(player) {
  const { status, body } = await client.get(`/api/levels/course/leaderboard?around=${encodeURIComponent(player)}&limit=1`);
  return status === 200 ? body.entries.find((e) => e.player === player) ?? null : null;
}

/**
 * Serves the page's files from the working tree (POGO_WEB_FROM_DISK=1), and lets the page
 * compile WebAssembly (`'wasm-unsafe-eval'`) if the server's policy does not yet.
 */
async function fromDisk(context) {
  if (!FROM_DISK) return;
  await context.route((url) => url.pathname === '/', async (route) => {
    const response = await route.fetch();
    const headers = response.headers();
    const csp = headers['content-security-policy'] ?? '';
    if (!csp.includes('wasm-unsafe-eval')) headers['content-security-policy'] = csp.replace("script-src 'self'", "script-src 'self' 'wasm-unsafe-eval'");
    await route.fulfill({ response, headers });
  });
  await context.route(/\/web\/([^/?]+\/)?[^/?]+(\?.*)?$/, async (route) => {
    const name = new URL(route.request().url()).pathname.slice('/web/'.length);
    const path = name === 'pogo.mjs' ? join(REPO, 'ffi/js/pogo.mjs')
      : name === 'pogo_ffi.wasm' ? WASM : join(REPO, 'server/web', name);
    if (!existsSync(path)) return route.continue();
    const type = name.endsWith('.wasm') ? 'application/wasm' : name.endsWith('.css') ? 'text/css' : 'text/javascript';
    await route.fulfill({ status: 200, contentType: type, body: readFileSync(path) });
  });
}

before(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  fx = makeFixtures();
  server = await startServer();
  client = api(server.base);
  rate = (await client.get('/api/levels')).body[0].tick_rate;
  for (const file of SEEDED) {
    const entry = run(file);
    const { status, body } = await client.upload(await tokenFor(entry.player), bytesOf(file));
    assert.equal(status, 202, `${file}: ${JSON.stringify(body)}`);
    const verdict = await client.verdict(body.id);
    assert.equal(verdict.status, entry.verdict, file);
    ids.set(file, body.id);
  }
});

after(async () => {
  await server?.stop();
});

describe('finish → verified → ranked, and verify in your browser', () => {
  let context;
  let page;
  const errors = [];
  const shot = async (what, target = page) => {
    await target.screenshot({ path: join(SCREENSHOTS, `${what}.png`), fullPage: true });
  };

  const open = async (hash, ready) => {
    await page.goto(`${server.base}/${hash}`);
    await page.waitForFunction((h) => document.getElementById('main').dataset.route === h, hash);
    if (ready) await page.locator(ready).waitFor();
  };
  const setStorage = (values) => page.evaluate((v) => {
    localStorage.clear();
    for (const [key, value] of Object.entries(v)) localStorage.setItem(key, value);
  }, values);
  const pending = () => page.evaluate(() => JSON.parse(localStorage.getItem('pogo.pending') ?? '[]'));
  const submit = () => page.evaluate(() => window.__pogo.submit);

  /** The finish panel of fixture `file` as if the racer had just finished it in this page. */
  const finish = async (file, { playerName } = {}) => {
    const entry = run(file);
    const browserHash = entry.verdict === 'verified' ? cliVerify(file).final_hash : claimedHash(file);
    await page.evaluate(async ({ bytes, ...spec }) => {
      const { renderFinish } = await import('/web/shared/finish-panel.js');
      const holder = document.createElement('div');
      holder.className = 'play-finish';
      document.getElementById('main').replaceChildren(holder);
      const controller = new AbortController();
      window.__testAbort = () => controller.abort();
      renderFinish(holder, { ...spec, bytes: new Uint8Array(bytes), ticket: null }, { signal: controller.signal, cleanup: () => {} });
    }, {
      bytes: [...bytesOf(file)], level: entry.level, browserHash,
      finishTick: entry.finish_tick ?? entry.claimed_finish[0], tickRate: rate, playerName: playerName ?? entry.player,
    });
    return { entry, browserHash, panel: page.locator('section.finish-panel') };
  };
  /** Waits for the latest panel's verdict (or failure). */
  const settled = () => page.waitForFunction(() => ['verified', 'rejected', 'refused', 'error'].includes(window.__pogo.submit?.state), null, { timeout: 30_000 });
  const inState = (state) => page.locator(`section.finish-panel[data-state=${state}]`).waitFor({ timeout: 30_000 });

  before(async () => {
    context = await openBrowser({ width: 1280, height: 800 });
    await fromDisk(context);
    page = await context.newPage();
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(`console: ${m.text()}`);
    });
  });
  after(async () => {
    await context?.close();
    assert.deepEqual(errors, [], 'no script errors, no CSP violations');
  });

  test('"verify in your browser" shows the verdict, finish tick and final hash the server and the CLI have', BOUNDED, async () => {
    for (const file of ['ana.pogo', 'zoe.pogo']) {
      const id = ids.get(file);
      await open(`#/run/${id}`, 'section.run[data-ready]');
      const server = (await client.get(`/api/runs/${id}`)).body;
      const cli = cliVerify(file);
      await page.getByRole('button', { name: 'Verify in your browser' }).click();
      const box = page.locator('section.browser-verify[data-state=done]');
      await box.waitFor();
      assert.equal(await box.getAttribute('data-browser-verdict'), 'verified');
      assert.equal(await box.getAttribute('data-browser-finish'), String(server.finish_tick), file);
      assert.equal(await box.getAttribute('data-browser-finish'), String(cli.finish[0]), file);
      assert.equal(await box.getAttribute('data-browser-hash'), cli.final_hash, file);
      assert.equal(await box.getAttribute('data-browser-hash'), server.final_hash, `${file}: the server's final hash`);
      assert.equal(await box.getAttribute('data-match'), 'true');
      assert.equal(await box.locator('.hash-row .match').count(), 1);
      assert.equal(await box.locator('.mismatch').count(), 0);
      assert.equal(await page.locator('a.race-ghost').getAttribute('href'), `#/play/course?ghosts=${id}`);
    }
    await shot('run-verify-in-browser-desktop');
  });

  test('the board links to the play view: Play, race this ghost, race these ghosts', BOUNDED, async () => {
    await open('#/level/course', 'section.board[data-ready]');
    assert.equal(await page.locator('a.play-link').getAttribute('href'), '#/play/course');
    const [first, second] = await page.locator('table.leaderboard tbody tr').evaluateAll((trs) => trs.slice(0, 2).map((tr) => tr.dataset.run));
    assert.equal(await page.locator(`tr[data-run="${first}"] a.race-ghost`).getAttribute('href'), `#/play/course?ghosts=${first}`);
    const ghosts = page.locator('a.race-ghosts');
    assert.equal(await ghosts.getAttribute('href'), null, 'nothing ticked: not a link yet');
    await page.locator(`tr[data-run="${first}"] input[type=checkbox]`).check();
    await page.locator(`tr[data-run="${second}"] input[type=checkbox]`).check();
    assert.equal(await ghosts.getAttribute('href'), `#/play/course?ghosts=${first},${second}`);
    assert.equal(await ghosts.innerText(), 'Race these ghosts (2)');
    assert.equal(await page.getByRole('button', { name: 'Race selected (2)' }).isEnabled(), true, 'the replay race is still there');
  });

  test('a token the server does not accept: a clear message, the run kept, fixed in place', BOUNDED, async () => {
    await open('#/upload');
    await setStorage({ 'pogo.player': JSON.stringify({ name: 'dee', token: `pogo_${'0'.repeat(64)}` }) });
    const { panel, entry, browserHash } = await finish('dee.pogo');
    const kept = await pending();
    assert.equal(kept.length, 1, 'kept before the first try');
    assert.deepEqual(Buffer.from(kept[0].bytes, 'base64'), bytesOf('dee.pogo'));
    assert.equal(kept[0].browserHash, browserHash);
    await panel.getByRole('button', { name: 'Upload as dee' }).click();
    await inState('error');
    assert.match(await panel.locator('.finish-status').innerText(), /token was not accepted: expired, wrong or revoked/);
    assert.match(await panel.locator('.finish-status').innerText(), /401 bad_token/);
    assert.equal((await pending()).length, 1, 'a refused token loses nothing');
    await shot('finish-bad-token-desktop');
    // Fixed in place: paste the right token.
    await panel.locator('.finish-fix summary').click();
    await panel.locator('.finish-fix .finish-paste input[name=name]').fill('dee');
    await panel.locator('.finish-fix .finish-paste input[name=token]').fill(await tokenFor('dee'));
    await panel.locator('.finish-fix').getByRole('button', { name: 'Use this token' }).click();
    await settled();
    const hook = await submit();
    assert.equal(hook.state, 'verified', hook.message);
    assert.deepEqual(await pending(), [], 'the server has it: no longer kept');
    const status = (await client.get(`/api/runs/${hook.runId}`)).body;
    assert.equal(status.player, 'dee');
    assert.equal(status.finish_tick, entry.finish_tick);
    assert.equal(hook.rank, status.rank);
    assert.equal(await panel.getAttribute('data-rank'), String(status.rank));
    assert.match(hook.message, new RegExp(`Your first time on the board: ${expectedTime(entry.finish_tick).replace('.', '\\.')}, rank ${status.rank}\\.`));
    assert.ok(hook.history.includes('queued') && hook.history.at(-1) === 'verified', hook.history.join(' → '));
    assert.equal(status.final_hash, browserHash);
    assert.equal(hook.serverHash, browserHash);
    assert.equal(await panel.getAttribute('data-hash-match'), 'true');
    assert.equal(await panel.locator('.finish-compare .match').count(), 2, 'final hash and finish tick both match');
    assert.equal(JSON.parse(await page.evaluate(() => localStorage.getItem('pogo.player'))).token, await tokenFor('dee'));
    await shot('finish-verified-desktop');
  });

  test('503 with Retry-After: retried with backoff, then "Retry now" uploads the kept run', BOUNDED, async () => {
    await open('#/upload');
    await setStorage({ 'pogo.player': JSON.stringify({ name: 'cheat', token: await tokenFor('cheat') }), 'pogo.autoUpload': 'true' });
    const posts = [];
    const busy = async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      posts.push(Date.now());
      await route.fulfill({
        status: 503, headers: { 'retry-after': '2' }, contentType: 'application/json',
        body: JSON.stringify({ error: 'busy', message: 'the verification queue is full: try again in 2 s', retry_after_s: 2 }),
      });
    };
    await page.route('**/api/runs', busy);
    const { panel, entry } = await finish('cheat-1.pogo');
    // Uploads by itself (the preference), retries, gives up and offers to retry.
    await inState('retrying');
    assert.match(await panel.locator('.finish-status').innerText(), /busy \(503/);
    await inState('error');
    assert.equal(posts.length, 4, 'four tries');
    const gaps = posts.slice(1).map((t, i) => t - posts[i]);
    assert.ok(gaps.every((g) => g >= 1900), `each wait honours Retry-After (2 s): ${gaps}`);
    assert.ok(gaps[2] >= 3900, `and doubles: ${gaps}`);
    assert.equal((await pending()).length, 1, 'still kept');
    await shot('finish-retry-desktop');
    await page.unroute('**/api/runs', busy);
    await panel.getByRole('button', { name: 'Retry now' }).click();
    await inState('rejected');
    assert.equal(await panel.locator('.finish-status .reason').innerText(), entry.reason, 'the verifier\'s reason');
    assert.deepEqual(await pending(), []);
    const hook = await submit();
    assert.deepEqual(hook.history.filter((s, i, a) => a.indexOf(s) === i).slice(0, 4), ['ready', 'uploading', 'retrying', 'error']);
  });

  test('a server that cannot be reached loses nothing: the board offers the run on the next visit', BOUNDED, async () => {
    await open('#/upload');
    await setStorage({ 'pogo.player': JSON.stringify({ name: 'eve', token: await tokenFor('eve') }), 'pogo.autoUpload': 'true' });
    const down = (route) => (route.request().method() === 'POST' ? route.abort('connectionrefused') : route.continue());
    await page.route('**/api/runs', down);
    const { panel, entry, browserHash } = await finish('eve.pogo');
    await inState('retrying');
    assert.match(await panel.locator('.finish-status').innerText(), /cannot be reached/);
    // The tab is closed while the server is down.
    await page.unroute('**/api/runs', down);
    await open('#/level/course', 'section.board[data-ready]');
    const box = page.locator('.board-pending[data-pending="1"]');
    await box.waitFor();
    assert.match(await box.innerText(), /1 finished run not yet uploaded/);
    assert.match(await box.innerText(), new RegExp(expectedTime(entry.finish_tick).replace('.', '\\.')));
    await shot('board-pending-desktop');
    await box.getByRole('button', { name: 'Upload' }).click();
    const panelAgain = box.locator('section.finish-panel');
    await settled();
    const hook = await submit();
    assert.equal(hook.state, 'verified', hook.message);
    assert.equal(hook.browserHash, browserHash);
    assert.deepEqual(await pending(), []);
    assert.equal(await page.locator('.board-pending').getAttribute('data-pending'), '0');
    assert.equal((await client.get(`/api/runs/${hook.runId}`)).body.player, 'eve');
  });

  test('a refusal no retry can fix is shown and the run is no longer kept', BOUNDED, async () => {
    await open('#/upload');
    await setStorage({ 'pogo.player': JSON.stringify({ name: 'mallory', token: await tokenFor('mallory') }) });
    const file = 'unknown-level.pogo';
    const bytes = [...bytesOf(file)];
    await page.evaluate(async ({ bytes: b, rate: r, level }) => {
      const { renderFinish } = await import('/web/shared/finish-panel.js');
      const holder = document.createElement('div');
      document.getElementById('main').replaceChildren(holder);
      renderFinish(holder, { level, bytes: new Uint8Array(b), browserHash: 'f'.repeat(16), finishTick: 10, tickRate: r, playerName: 'mallory', ticket: null },
        { signal: new AbortController().signal, cleanup: () => {} });
    }, { bytes, rate, level: fx.manifest.unknown_level });
    const panel = page.locator('section.finish-panel');
    assert.equal((await pending()).length, 1);
    await panel.getByRole('button', { name: 'Upload as mallory' }).click();
    await inState('refused');
    const text = await panel.locator('.finish-status').innerText();
    assert.ok(text.includes(fx.manifest.unknown_level), text);
    assert.match(text, /404 unknown_level/);
    assert.deepEqual(await pending(), []);
    assert.equal(await page.evaluate(() => window.__xss), undefined, 'no markup ran');
  });

  test('the kept runs are bounded (20 runs, 2 MiB): the oldest is dropped, with a warning', BOUNDED, async () => {
    await open('#/upload');
    const fake = (i, size) => ({
      key: `course:${String(i).padStart(16, '0')}`, level: 'course', bytes: Buffer.alloc(size, i).toString('base64'),
      browserHash: String(i).padStart(16, '0'), finishTick: 1000 + i, tickRate: rate, playerName: 'dee', savedAt: new Date(Date.UTC(2020, 0, 1, 0, i)).toISOString(),
    });
    const warnings = [];
    const onConsole = (m) => { if (m.type() === 'warning') warnings.push(m.text()); };
    page.on('console', onConsole);
    try {
      // 20 small runs kept: one more drops the oldest.
      await setStorage({ 'pogo.pending': JSON.stringify(Array.from({ length: 20 }, (_, i) => fake(i, 16))) });
      await finish('dee.pogo');
      let kept = await pending();
      assert.equal(kept.length, 20);
      assert.equal(kept[0].key, fake(1, 16).key, 'the oldest went');
      assert.equal(kept.at(-1).browserHash, cliVerify('dee.pogo').final_hash, 'the new one is kept');
      // Four runs of 667 KiB of base64 each (2.6 MiB, as an older page might have left them):
      // with the new one, the oldest must go to fit 2 MiB.
      await setStorage({ 'pogo.pending': JSON.stringify([0, 1, 2, 3].map((i) => fake(i, 500 * 1024))) });
      await finish('dee.pogo');
      kept = await pending();
      assert.deepEqual(kept.map((e) => e.finishTick), [1001, 1002, 1003, run('dee.pogo').finish_tick]);
      assert.ok(JSON.stringify(kept).length <= 2 * 1024 * 1024);
      await page.waitForTimeout(50);
      assert.equal(warnings.filter((w) => w.includes('dropping the oldest run not yet uploaded')).length, 2, warnings.join('\n'));
    } finally {
      page.off('console', onConsole);
    }
  });

  test('without the wasm module, "verify in your browser" says how to build it', BOUNDED, async () => {
    const missing = async (route) => route.fulfill({
      status: 404, contentType: 'application/json',
      body: JSON.stringify({ error: 'wasm_missing', message: 'The simulation module is not built: run cargo build -p pogo-ffi --target wasm32-unknown-unknown --profile wasm-release' }),
    });
    await page.route('**/web/pogo_ffi.wasm', missing);
    try {
      await open(`#/run/${ids.get('ana.pogo')}`, 'section.run[data-ready]');
      await page.reload(); // a fresh page: its core is not loaded yet
      await page.locator('section.run[data-ready]').waitFor();
      await page.getByRole('button', { name: 'Verify in your browser' }).click();
      await page.locator('section.browser-verify[data-state=error]').waitFor();
      assert.match(await page.locator('section.browser-verify .error').innerText(), /cargo build -p pogo-ffi --target wasm32-unknown-unknown/);
      assert.equal(await page.locator('p.verdict').count(), 1, 'the rest of the page is there');
    } finally {
      await page.unroute('**/web/pogo_ffi.wasm', missing);
    }
  });

  test('a server under another tuning: the core refuses to load, saying why', BOUNDED, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pogo-tuning-'));
    writeFileSync(join(dir, 'tuning.json'), JSON.stringify({ gravity: 25 }));
    const other = await startServer(['--tuning', join(dir, 'tuning.json')]);
    try {
      const levels = (await api(other.base).get('/api/levels')).body;
      await page.goto(`${other.base}/#/upload`);
      await page.locator('form.upload-form').waitFor();
      const failure = await page.evaluate(async () => {
        const { loadCore } = await import('/web/shared/wasm.js');
        try {
          await loadCore();
          return null;
        } catch (e) {
          return { name: e.name, message: e.message };
        }
      });
      assert.equal(failure?.name, 'CoreMismatch');
      assert.ok(failure.message.includes(`the server tuning ${levels[0].tuning_hash}`), failure.message);
    } finally {
      await other.stop();
    }
  });

  describe('with pogo.replay (re-recording under a name)', () => {
    let hasReplay = false;
    before(async () => {
      await open('#/upload');
      hasReplay = await page.evaluate(async () => {
        const { loadCore } = await import('/web/shared/wasm.js');
        return typeof (await loadCore()).pogo.replay === 'function';
      });
    });

    test('rerecord() keeps the final hash and puts the new name in the header', BOUNDED, async (t) => {
      if (!hasReplay) return t.skip('pogo.mjs has no replay() yet');
      const cli = cliVerify('ben.pogo');
      const out = await page.evaluate(async (bytes) => {
        const { rerecord } = await import('/web/shared/rerecord.js');
        const { loadCore, hex64 } = await import('/web/shared/wasm.js');
        const { pogo, tuning } = await loadCore();
        const handles = pogo.handleCount();
        const again = rerecord(pogo, tuning, new Uint8Array(bytes), "Zoë d'Arc 2");
        const replay = pogo.replay(again.bytes);
        const header = { name: replay.playerName, level: replay.levelName, ticks: replay.info.ticks };
        replay.free();
        const verifier = pogo.verifier({ tuning });
        const verdict = verifier.verify(again.bytes);
        verifier.free();
        return {
          finalHash: again.finalHash, header, verified: verdict.verified, verifiedHash: hex64(verdict.finalHash),
          finish: verdict.finishTicks[0], leaked: pogo.handleCount() - handles, bytes: [...again.bytes],
        };
      }, [...bytesOf('ben.pogo')]);
      assert.equal(out.finalHash, cli.final_hash, 'the same final hash as the CLI\'s of the original');
      assert.deepEqual(out.header, { name: "Zoë d'Arc 2", level: 'course', ticks: cli.ticks });
      assert.equal(out.verified, true);
      assert.equal(out.verifiedHash, cli.final_hash);
      assert.equal(out.finish, cli.finish[0]);
      assert.equal(out.leaked, 0, 'every object freed');
      // The server takes it under that name and finds the same finish.
      const { status, body } = await client.upload(await tokenFor("Zoë d'Arc 2"), Buffer.from(out.bytes));
      assert.equal(status, 202, JSON.stringify(body));
      const verdict = await client.verdict(body.id);
      assert.equal(verdict.status, 'verified');
      assert.equal(verdict.finish_tick, cli.finish[0]);
      assert.equal(verdict.final_hash, cli.final_hash);
    });

    test('a run raced without a name and registered on the panel keeps its date, and every header field but the name', BOUNDED, async (t) => {
      if (!hasReplay) return t.skip('pogo.mjs has no replay() yet');
      const date = '2026-12-03T21:04:05Z';
      await open('#/upload');
      await setStorage({});
      // The demo bot's run on course, recorded in the page as the play view records one:
      // no name (nobody registered in this browser), the date the run began.
      const { bytes, hash, finishTick } = await page.evaluate(async (when) => {
        const { loadCore, hex64 } = await import('/web/shared/wasm.js');
        const { pogo, tuning } = await loadCore();
        const level = pogo.level('course');
        const sim = pogo.simulation({ level, tuning, players: 1 });
        const recorder = pogo.recorder({ sim, playerName: '', date: when });
        const bot = pogo.bot();
        while (!sim.player(0).finished) {
          sim.step([bot.input(sim, 0)]);
          recorder.record();
        }
        recorder.finish();
        const out = { bytes: [...recorder.bytes()], hash: hex64(sim.stateHash()), finishTick: sim.player(0).finishTick };
        for (const object of [bot, recorder, sim, level]) object.free();
        return out;
      }, date);
      await page.evaluate(async ({ bytes: b, ...spec }) => {
        const { renderFinish } = await import('/web/shared/finish-panel.js');
        const holder = document.createElement('div');
        holder.className = 'play-finish';
        document.getElementById('main').replaceChildren(holder);
        renderFinish(holder, { ...spec, bytes: new Uint8Array(b), ticket: null }, { signal: new AbortController().signal, cleanup: () => {} });
      }, { bytes, level: 'course', browserHash: hash, finishTick, tickRate: rate, playerName: '' });
      const panel = page.locator('section.finish-panel');
      await panel.locator('.finish-register input').fill('Dated Racer');
      await panel.getByRole('button', { name: 'Register and upload' }).click();
      await settled();
      const hook = await submit();
      assert.equal(hook.state, 'verified', hook.message);
      // `pogo inspect` of the racer's file and of the server's copy: only the name differs
      // (and with it the file's size).
      const dir = mkdtempSync(join(tmpdir(), 'pogo-rerecord-'));
      const saved = join(dir, 'saved.pogo');
      const served = join(dir, 'served.pogo');
      writeFileSync(saved, Buffer.from(bytes));
      writeFileSync(served, Buffer.from(await (await fetch(`${server.base}/api/runs/${hook.runId}/replay`)).arrayBuffer()));
      const inspect = (file) => new Map(execFileSync(POGO_BIN, ['inspect', file], { encoding: 'utf8' }).trim().split('\n')
        .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]));
      const [before, after] = [inspect(saved), inspect(served)];
      assert.equal(before.get('date'), date, 'the saved file has the date');
      assert.equal(after.get('date'), date, 'the server\'s copy has it too');
      assert.deepEqual([before.get('player name'), after.get('player name')], ['-', 'Dated Racer']);
      const others = (m) => [...m].filter(([k]) => !['file', 'player name', 'size'].includes(k));
      assert.deepEqual(others(after), others(before), 'every other line of pogo inspect');
      assert.ok(others(before).length >= 12, [...before.keys()].join(', '));
    });

    test('registering in the panel re-records the run under the new name; a new best shows the gain and the rank it was', BOUNDED, async (t) => {
      if (!hasReplay) return t.skip('pogo.mjs has no replay() yet');
      // ben has a run on the board; a faster one (another fixture's inputs) raced here, then
      // uploaded as ben.
      await open('#/upload');
      await setStorage({ 'pogo.player': JSON.stringify({ name: 'ben', token: await tokenFor('ben') }) });
      const was = await bestOf('ben');
      assert.ok(was, 'ben is on the board');
      const courseRuns = fx.manifest.runs.filter((r) => r.level === 'course' && r.verdict === 'verified' && r.file !== 'ben.pogo');
      const faster = courseRuns.filter((r) => r.finish_tick < was.finish_tick).sort((a, b) => a.finish_tick - b.finish_tick)[0];
      assert.ok(faster, 'a fixture faster than ben');
      const { panel, browserHash } = await finish(faster.file, { playerName: '' });
      await panel.getByRole('button', { name: 'Upload as ben' }).click();
      await settled();
      let hook = await submit();
      assert.equal(hook.state, 'verified', hook.message);
      const status = (await client.get(`/api/runs/${hook.runId}`)).body;
      assert.equal(status.player, 'ben');
      assert.equal(status.finish_tick, faster.finish_tick);
      assert.match(hook.message, new RegExp(`New best: ${expectedTime(faster.finish_tick).replace('.', '\\.')} \\(−${seconds(was.finish_tick - faster.finish_tick).replace('.', '\\.')}\\), rank ${status.rank} ${status.rank === was.rank ? '\\(unchanged\\)' : `\\(was ${was.rank}\\)`}\\.`));
      assert.equal(hook.browserHash, browserHash);
      assert.equal(status.final_hash, browserHash);
      assert.equal(await panel.getAttribute('data-hash-match'), 'true');
      await shot('finish-new-best-desktop');

      // A slower one: not the best, and says by how much.
      const best = await bestOf('ben');
      const slower = courseRuns.find((r) => r.finish_tick > best.finish_tick);
      const second = await finish(slower.file, { playerName: slower.player });
      await second.panel.getByRole('button', { name: 'Upload as ben' }).click();
      await settled();
      hook = await submit();
      assert.equal(hook.state, 'verified', hook.message);
      assert.equal(hook.rank, null);
      assert.match(hook.message, new RegExp(`not your best \\(your best is ${best.time.replace('.', '\\.')}, rank ${best.rank}; this run is ${seconds(slower.finish_tick - best.finish_tick).replace('.', '\\.')} slower\\)`));

      // No identity: register in the panel; the run goes up under the new name.
      await setStorage({});
      const third = await finish('ana.pogo', { playerName: '' });
      assert.equal(await third.panel.getByRole('button', { name: /^Upload as/ }).count(), 0);
      await shot('finish-register-desktop');
      await third.panel.locator('.finish-register input').fill('bot');
      await third.panel.getByRole('button', { name: 'Register and upload' }).click();
      await third.panel.locator('.form-message').filter({ hasText: /taken/ }).waitFor();
      await third.panel.locator('.finish-register input').fill('Newcomer');
      await third.panel.getByRole('button', { name: 'Register and upload' }).click();
      await settled();
      hook = await submit();
      assert.equal(hook.state, 'verified', hook.message);
      assert.equal((await client.get(`/api/runs/${hook.runId}`)).body.player, 'Newcomer');
      assert.equal(JSON.parse(await page.evaluate(() => localStorage.getItem('pogo.player'))).name, 'Newcomer');
    });
  });
});

describe('at a phone\'s viewport (390×844)', () => {
  let context;
  let page;
  before(async () => {
    context = await openBrowser({ width: 390, height: 844 });
    await fromDisk(context);
    page = await context.newPage();
  });
  after(async () => {
    await context?.close();
  });

  test('the panels fit a phone (screenshots)', BOUNDED, async () => {
    const noSideways = async (where) => {
      const { scroll, inner } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
      assert.ok(scroll <= inner, `${where}: the page is ${scroll} px wide in a ${inner} px viewport`);
    };
    // The finish panel without an identity: the register form.
    await page.goto(`${server.base}/#/upload`);
    await page.locator('form.upload-form').waitFor();
    await page.evaluate(() => localStorage.clear());
    const dee = run('dee.pogo');
    await page.evaluate(async ({ bytes, ...spec }) => {
      const { renderFinish } = await import('/web/shared/finish-panel.js');
      const holder = document.createElement('div');
      holder.className = 'play-finish';
      document.getElementById('main').replaceChildren(holder);
      renderFinish(holder, { ...spec, bytes: new Uint8Array(bytes), ticket: null }, { signal: new AbortController().signal, cleanup: () => {} });
    }, { bytes: [...bytesOf('dee.pogo')], level: 'course', browserHash: cliVerify('dee.pogo').final_hash, finishTick: dee.finish_tick, tickRate: rate, playerName: '' });
    await page.locator('section.finish-panel').waitFor();
    await noSideways('finish panel');
    await page.screenshot({ path: join(SCREENSHOTS, 'finish-register-phone.png'), fullPage: true });
    // The board with the kept run offered.
    await page.goto(`${server.base}/#/level/course`);
    await page.locator('section.board[data-ready]').waitFor();
    await page.locator('.board-pending[data-pending="1"]').waitFor();
    await noSideways('board');
    await page.screenshot({ path: join(SCREENSHOTS, 'board-pending-phone.png'), fullPage: true });
    // A run page, verified in the browser.
    const id = ids.get('zoe.pogo');
    await page.goto(`${server.base}/#/run/${id}`);
    await page.locator('section.run[data-ready]').waitFor();
    await page.getByRole('button', { name: 'Verify in your browser' }).click();
    await page.locator('section.browser-verify[data-state=done]').waitFor();
    await noSideways('run page');
    await page.screenshot({ path: join(SCREENSHOTS, 'run-verify-in-browser-phone.png'), fullPage: true });
  });
});
