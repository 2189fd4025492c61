// A tiny static server for the web example: serves ffi/ (the page, pogo.mjs), the .wasm
// that cargo built (as /pogo_ffi.wasm) and the built-in level files (/levels/NAME.json, for
// drawing), on 127.0.0.1 only. No dependencies.
//
//   cargo build -p pogo-ffi --target wasm32-unknown-unknown --profile wasm-release
//   node ffi/examples/web/serve.mjs [port]        → http://127.0.0.1:8000/examples/web/
//
// POGO_WASM overrides the module's path. The tests import `serve` and use port 0.

import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const FFI = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const WASM = process.env.POGO_WASM
  ?? join(FFI, '../target/wasm32-unknown-unknown/wasm-release/pogo_ffi.wasm');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
};

/** Starts the server on 127.0.0.1:`port` (0: any free port); resolves to the server. */
export function serve(port = 8000) {
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url, 'http://localhost').pathname);
    let file;
    const levelFile = /^\/levels\/([a-z0-9_-]+)\.json$/.exec(path);
    if (path === '/pogo_ffi.wasm') {
      file = WASM;
    } else if (levelFile) {
      // The level files of the built-in levels that have one (course), for drawing.
      file = join(FFI, '../replay/levels', `${levelFile[1]}.json`);
    } else {
      // Only files under ffi/, never outside it.
      const relative = normalize(path).replace(/^(\.\.[/\\])+/, '');
      file = join(FFI, relative.endsWith('/') ? relative + 'index.html' : relative);
      if (!file.startsWith(FFI + '/')) file = null;
    }
    if (!file || !existsSync(file) || !statSync(file).isFile()) {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end(`not found: ${path}\n`);
      return;
    }
    response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(response);
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!existsSync(WASM)) {
    console.error(`${WASM} is missing: cargo build -p pogo-ffi --target wasm32-unknown-unknown --profile wasm-release`);
    process.exit(2);
  }
  const server = await serve(Number(process.argv[2] ?? 8000));
  console.log(`http://127.0.0.1:${server.address().port}/examples/web/`);
}
