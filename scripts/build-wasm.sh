#!/usr/bin/env bash
# Builds the simulation core for the leaderboard's web page: pogo-ffi compiled to WebAssembly
# with the small `wasm-release` profile, which pogo-server serves at /web/pogo_ffi.wasm (it
# finds the module at run time, so a running server picks it up without a restart).
#
#   bash scripts/build-wasm.sh
#
# Adds the wasm32-unknown-unknown target with rustup if it is missing, builds, and prints the
# module's path and its size raw and under `gzip -9` (about what the server sends). Honours
# CARGO_TARGET_DIR, as the server does (it looks beside its own executable first).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target=wasm32-unknown-unknown

if ! command -v rustup >/dev/null 2>&1; then
  if ! rustc --print target-libdir --target "$target" >/dev/null 2>&1 \
    || [ ! -d "$(rustc --print target-libdir --target "$target")" ]; then
    echo "build-wasm.sh: no rustup to add the $target target; install it for this toolchain" >&2
    exit 1
  fi
elif ! rustup target list --installed | grep -qx "$target"; then
  echo "build-wasm.sh: adding the $target target (rustup target add $target)" >&2
  rustup target add "$target"
fi

cd "$root"
cargo build --locked -p pogo-ffi --target "$target" --profile wasm-release

module="${CARGO_TARGET_DIR:-$root/target}/$target/wasm-release/pogo_ffi.wasm"
if [ ! -f "$module" ]; then
  echo "build-wasm.sh: the build did not produce $module" >&2
  exit 1
fi
raw="$(wc -c <"$module")"
gz="$(gzip -9c "$module" | wc -c)"
echo "$module"
printf '  %d bytes raw (%d KiB), %d bytes gzip -9 (%d KiB)\n' \
  "$raw" $(((raw + 1023) / 1024)) "$gz" $(((gz + 1023) / 1024))
