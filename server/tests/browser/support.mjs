// What the browser test shares: the binaries it runs (built by cargo beforehand), the real
// `pogo-server` started on loopback with SQLite in a temp dir, the API as the test uses it
// directly (to set up and to compare with the page), and Debian's Chromium.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Cargo's profile whose binaries the test runs: `release` unless POGO_PROFILE says. */
const PROFILE = process.env.POGO_PROFILE ?? 'release';
const TARGET = process.env.CARGO_TARGET_DIR ?? join(REPO, 'target');
export const SERVER_BIN = process.env.POGO_SERVER_BIN ?? join(TARGET, PROFILE, 'pogo-server');
export const FIXTURES_BIN = process.env.POGO_WEB_FIXTURES_BIN ?? join(TARGET, PROFILE, 'examples', 'web_fixtures');
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOTS = process.env.POGO_SCREENSHOTS ?? join(TARGET, 'web-screenshots');
/** The CLI (`pogo simulate` is the play view's oracle) and the wasm core the server serves. */
export const CLI_BIN = process.env.POGO_CLI_BIN ?? join(TARGET, PROFILE, 'pogo');
export const WASM = process.env.POGO_WASM ?? join(TARGET, 'wasm32-unknown-unknown', 'wasm-release', 'pogo_ffi.wasm');

/** How long the server may take to start, and a run to get its verdict (ms). */
const START_WAIT_MS = 30_000;
const VERDICT_WAIT_MS = 60_000;

export function requireFile(path, hint) {
  if (!existsSync(path)) throw new Error(`${path} is missing: ${hint}`);
  return path;
}

/** Records the fixtures into a temp dir; returns `{dir, manifest}`. */
export function makeFixtures() {
  requireFile(FIXTURES_BIN, `cargo build --${PROFILE === 'release' ? 'release ' : ''}-p pogo-server --example web_fixtures`);
  const dir = mkdtempSync(join(tmpdir(), 'pogo-web-fixtures-'));
  execFileSync(FIXTURES_BIN, [dir], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 60_000 });
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  return { dir, manifest, file: (name) => join(dir, name) };
}

/**
 * Starts `pogo-server` on 127.0.0.1, port 0 (the server logs the address it got), SQLite
 * in a fresh temp dir (or the file `database`, to open one again), with `args` added; on
 * `listen` (`127.0.0.1:PORT`) instead, to start again at the same address.
 * Returns `{base, stop, kill, log, database}`.
 */
export async function startServer(args = [], { database = null, listen = '127.0.0.1:0' } = {}) {
  requireFile(SERVER_BIN, `cargo build --${PROFILE === 'release' ? 'release ' : ''}-p pogo-server`);
  const file = database ?? join(mkdtempSync(join(tmpdir(), 'pogo-web-server-')), 'pogo.db');
  const child = spawn(SERVER_BIN, [
    '--listen', listen,
    '--database', `sqlite:${file}`,
    '--log-format', 'json',
    '--workers', '2',
    // One browser and one test client on loopback make many requests a second.
    '--address-rate', '10000', '--address-burst', '10000',
    '--token-rate', '1000', '--token-burst', '1000',
    // The most raced tracks recounted each second (a test looks for a race just run).
    '--tracks-popular-every-s', '1',
    ...args,
  ], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, RUST_LOG: 'info' } });
  // The server never outlives the test, however it ends (a timeout's SIGTERM included).
  const killNow = () => { if (child.exitCode === null) child.kill('SIGKILL'); };
  process.on('exit', killNow);
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => { killNow(); process.exit(130); });
  const log = [];
  const lines = createInterface({ input: child.stderr });
  const address = await new Promise((resolveAddress, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start in ${START_WAIT_MS} ms:\n${log.join('\n')}`)), START_WAIT_MS);
    child.on('exit', (code) => reject(new Error(`the server exited (${code}):\n${log.join('\n')}`)));
    lines.on('line', (line) => {
      log.push(line);
      try {
        const event = JSON.parse(line);
        if (event.fields?.message === 'serving' && event.fields.address) {
          clearTimeout(timer);
          resolveAddress(event.fields.address);
        }
      } catch { /* not JSON: keep it in the log */ }
    });
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.on('exit', r));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  /** kill -9: no stop, no flushing, nothing. */
  const kill = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.on('exit', r));
    child.kill('SIGKILL');
    await exited;
  };
  return { base: `http://${address}`, address, stop, kill, log, database: file };
}

/** The API, straight (no browser). */
export function api(base) {
  const json = async (path, options = {}) => {
    const response = await fetch(base + path, options);
    const body = await response.json().catch(() => null);
    return { status: response.status, body };
  };
  return {
    get: (path) => json(path),
    register: async (name) => {
      const { status, body } = await json('/api/players', {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }),
      });
      if (status !== 201) throw new Error(`registering ${name}: ${status} ${JSON.stringify(body)}`);
      return body.token;
    },
    upload: (token, bytes) => json('/api/runs', {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' }, body: bytes,
    }),
    verdict: async (id) => {
      const started = Date.now();
      for (;;) {
        const { status, body } = await json(`/api/runs/${id}`);
        if (status !== 200) throw new Error(`run ${id}: ${status} ${JSON.stringify(body)}`);
        if (body.status === 'verified' || body.status === 'rejected') return body;
        if (Date.now() - started > VERDICT_WAIT_MS) throw new Error(`no verdict for run ${id}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

/**
 * A fresh headless Chromium profile at a viewport. `webgl`: WebGL through SwiftShader (the
 * CPU renderer Debian's Chromium ships; no GPU needed) instead of no GPU at all; `args`: more
 * Chromium switches (`--js-flags=--wasm-wide-arithmetic`); `options`: more of playwright's
 * context options (`hasTouch`, `isMobile`, …).
 */
export async function openBrowser(viewport, { webgl = false, args = [], ...options } = {}) {
  requireFile(CHROMIUM, 'apt-get install -y chromium');
  const profile = mkdtempSync(join(tmpdir(), 'pogo-web-chromium-'));
  const gpu = webgl ? ['--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist'] : ['--disable-gpu'];
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    deviceScaleFactor: 1,
    ...options,
    args: ['--headless', '--no-sandbox', ...gpu, '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run', ...args],
    timeout: 60_000,
  });
  context.setDefaultTimeout(20_000);
  if (process.env.POGO_WEB_FROM_DISK) await serveWebFromDisk(context);
  return context;
}

/**
 * For working on the page without rebuilding the server (it embeds server/web/ when built):
 * with POGO_WEB_FROM_DISK=1 the browser gets the page's files as they are on disk now, with
 * the server's own headers (its CSP included). Never set in CI: there the server's embedded
 * files are what is tested.
 */
async function serveWebFromDisk(context) {
  const web = join(REPO, 'server/web');
  // Not the document itself: Chromium takes a document a route answered for a public one,
  // whose sockets to loopback its local-network checks then block.
  await context.route((url) => url.pathname.startsWith('/web/') && !url.pathname.endsWith('.wasm'), async (route) => {
    const { pathname } = new URL(route.request().url());
    const file = pathname === '/web/pogo.mjs' ? join(REPO, 'ffi/js/pogo.mjs') : join(web, pathname.slice('/web/'.length));
    const response = await route.fetch();
    if (!existsSync(file)) return route.fulfill({ response });
    // A file the server does not embed yet: served with the page's content type.
    if (!response.ok()) return route.fulfill({ status: 200, contentType: file.endsWith('.css') ? 'text/css' : 'text/javascript', body: readFileSync(file) });
    const headers = { ...response.headers() };
    delete headers.etag;
    delete headers['content-encoding'];
    delete headers['content-length'];
    await route.fulfill({ response, headers, body: readFileSync(file) });
  });
}

/** The server's time arithmetic (`times.rs`), for expected strings. */
export const millis = (ticks, rate) => Math.floor((ticks * 2000 + rate) / (2 * rate));
export function clock(ms) {
  const rest = ms % 60000;
  return `${Math.floor(ms / 60000)}:${String(Math.floor(rest / 1000)).padStart(2, '0')}.${String(rest % 1000).padStart(3, '0')}`;
}

/** Waits until the page's router has rendered `hash` (`#/…`, `main`'s `data-route` and
 * `data-rendered`). Going to another hash of the same page does not reload it, so a selector
 * the previous view still matches proves nothing, and two hash changes in quick succession
 * may render only once (the router skips a change back to the hash it shows). */
export async function routeRendered(page, hash) {
  await page.waitForFunction((h) => {
    const main = document.getElementById('main');
    return main?.dataset.route === h && main.dataset.rendered === 'true';
  }, hash);
}
