// The page's code as the house style asks for it, checked on the source (no browser, no
// server): every module of server/web/ (not vendor/) parsed with acorn, then
//   - views never import views: a module in a view's folder (board/, editor/, live/, play/, race/,
//     run/, tracks/, upload/) imports only from its own folder, shared/, routes.js and the core's binding;
//     shared/ and routes.js import no view (only app.js, the router, imports views);
//   - no function is longer than FUNCTION_LINES_MAX lines (declarations, expressions, arrows
//     and methods, counted from the line of their start to the line of their end).
// Each rule is first shown to catch a module written to break it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'acorn';

const WEB = resolve(dirname(fileURLToPath(import.meta.url)), '../../web');
/** The views, each a folder of its own. */
const VIEWS = ['board', 'editor', 'live', 'play', 'race', 'run', 'tracks', 'upload'];
/** The longest function (lines) the page may have: longer ones read better split. */
const FUNCTION_LINES_MAX = 120;

/** Every module of the page (paths relative to server/web/, `/`-separated), vendor/ aside. */
function modules() {
  const out = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'vendor') walk(path);
      } else if (entry.name.endsWith('.js')) {
        out.push(relative(WEB, path).split('\\').join('/'));
      }
    }
  };
  walk(WEB);
  return out.sort();
}

/** Every node of `ast`, depth first. */
function* nodes(node) {
  if (!node || typeof node.type !== 'string') return;
  yield node;
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) for (const child of value) yield* nodes(child);
    else if (value && typeof value === 'object' && typeof value.type === 'string') yield* nodes(value);
  }
}

/** The specifiers `code` imports: static imports, re-exports and `import('…')` of a literal. */
function importsOf(ast) {
  const out = [];
  for (const node of nodes(ast)) {
    const source = node.type === 'ImportDeclaration' || node.type === 'ExportNamedDeclaration' || node.type === 'ExportAllDeclaration'
      ? node.source : node.type === 'ImportExpression' ? node.source : null;
    if (source?.type === 'Literal') out.push(source.value);
  }
  return out;
}

/** The folder a module of the page is in ('' for the top level). */
const folderOf = (path) => (path.includes('/') ? path.split('/')[0] : '');

/** What is wrong with module `path` (relative to server/web/) whose source is `code`. */
export function problems(path, code) {
  const found = [];
  const ast = parse(code, { ecmaVersion: 'latest', sourceType: 'module', locations: true });
  const from = folderOf(path);
  for (const specifier of importsOf(ast)) {
    if (!specifier.startsWith('.')) {
      found.push(`${path} imports ${specifier}: the page has no packages, only its own files`);
      continue;
    }
    const target = relative(WEB, resolve(WEB, dirname(path), specifier)).split('\\').join('/');
    const to = folderOf(target);
    if (VIEWS.includes(to) && to !== from && path !== 'app.js') {
      found.push(`${path} imports ${target}: a view's modules are its own (links come from routes.js)`);
    }
  }
  for (const node of nodes(ast)) {
    if (!/^(FunctionDeclaration|FunctionExpression|ArrowFunctionExpression)$/.test(node.type)) continue;
    const lines = node.loc.end.line - node.loc.start.line + 1;
    if (lines > FUNCTION_LINES_MAX) {
      const name = node.id?.name ?? 'a function';
      found.push(`${path}:${node.loc.start.line}: ${name} is ${lines} lines (at most ${FUNCTION_LINES_MAX})`);
    }
  }
  return found;
}

test('the checks catch a view importing another view, and a function too long', () => {
  assert.deepEqual(problems('board/board.js', "import { renderPlay } from '../play/play.js';\nimport { el } from '../shared/dom.js';\n"),
    ['board/board.js imports play/play.js: a view\'s modules are its own (links come from routes.js)']);
  assert.deepEqual(problems('shared/x.js', "const m = await import('../race/race.js');\n"),
    ['shared/x.js imports race/race.js: a view\'s modules are its own (links come from routes.js)']);
  assert.deepEqual(problems('play/x.js', "export { Race } from '../run/run.js';\nimport './race.js';\nimport '../pogo.mjs';\n"),
    ['play/x.js imports run/run.js: a view\'s modules are its own (links come from routes.js)']);
  assert.deepEqual(problems('app.js', "import { renderRun } from './run/run.js';\n"), [], 'the router imports the views');
  const body = (n) => Array.from({ length: n }, (_, i) => `  const a${i} = ${i};`).join('\n');
  assert.deepEqual(problems('run/y.js', `function short() {\n${body(118)}\n}\n`), [], '120 lines pass');
  assert.deepEqual(problems('run/y.js', `export class A {\n  long() {\n${body(119)}\n  }\n}\n`),
    ['run/y.js:2: a function is 121 lines (at most 120)']);
  assert.deepEqual(problems('run/y.js', `const f = () => {\n${body(130)}\n};\n`), ['run/y.js:1: a function is 132 lines (at most 120)']);
});

test('no view imports another view, and no function in server/web is over 120 lines', () => {
  const all = modules();
  for (const view of VIEWS) assert.ok(all.some((m) => m.startsWith(`${view}/`)), `the ${view} view's folder`);
  assert.ok(all.includes('routes.js') && all.includes('app.js'));
  const found = all.flatMap((path) => problems(path, readFileSync(join(WEB, path), 'utf8')));
  assert.deepEqual(found, []);
});
