#!/usr/bin/env bash
# ns per tick of the same workload natively (the C ABI, release staticlib) and in
# WebAssembly under Node, in one sitting; and the size of the .wasm (and after wasm-opt, if
# it is installed). Usage: bash ffi/bench/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --locked --release -p pogo-ffi
cargo build --locked -p pogo-ffi --target wasm32-unknown-unknown --profile wasm-release
wasm=target/wasm32-unknown-unknown/wasm-release/pogo_ffi.wasm
out=target/release/ffi-bench
mkdir -p "$out"
cc -std=c11 -O2 -I ffi/include ffi/bench/tick.c target/release/libpogo_ffi.a \
  -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o "$out/tick"
"$out/tick"
node ffi/bench/tick.mjs "$wasm"
echo "wasm module: $(stat -c %s "$wasm") bytes ($wasm)"
if command -v wasm-opt >/dev/null; then
  # Debian bookworm's binaryen 108 must be told the features rustc's wasm32 target enables
  # (its own defaults are older); --all-features would also emit types Node 20 cannot load.
  wasm-opt --enable-sign-ext --enable-bulk-memory --enable-mutable-globals \
    --enable-nontrapping-float-to-int --enable-multivalue --enable-reference-types \
    -Oz "$wasm" -o "$out/pogo_ffi.opt.wasm"
  echo "after wasm-opt -Oz: $(stat -c %s "$out/pogo_ffi.opt.wasm") bytes"
  node ffi/bench/tick.mjs "$out/pogo_ffi.opt.wasm" | sed 's/^wasm/wasm-opt -Oz/'
fi
