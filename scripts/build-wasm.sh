#!/usr/bin/env bash
# Builds the simulation core for the leaderboard's web page: pogo-ffi compiled to WebAssembly
# with the small `wasm-release` profile, which pogo-server serves at /web/pogo_ffi.wasm (it
# finds the module at run time, so a running server picks it up without a restart); and the
# same with the wide-arithmetic proposal's 64 × 64 → 128-bit multiplies (`wasm-wide`,
# core/src/wide.rs), put beside it as pogo_ffi_wide.wasm, which the server serves at
# /web/pogo_ffi_wide.wasm and the page loads where the browser has those instructions.
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
# A target feature and a cfg are not a profile's to set: RUSTFLAGS, which with `--target`
# reaches only the wasm32 code (not build scripts), in the profile's own directory. Rust
# warns that the target feature is not stable; the module is checked like the other one (the
# golden runs in Chromium and Firefox, ffi/js/test/wide.test.mjs).
RUSTFLAGS="-C target-feature=+wide-arithmetic --cfg pogo_wide_arithmetic" \
  cargo build --locked -p pogo-ffi --target "$target" --profile wasm-wide

out="${CARGO_TARGET_DIR:-$root/target}/$target"
module="$out/wasm-release/pogo_ffi.wasm"
wide="$out/wasm-release/pogo_ffi_wide.wasm"
for built in "$module" "$out/wasm-wide/pogo_ffi.wasm"; do
  if [ ! -f "$built" ]; then
    echo "build-wasm.sh: the build did not produce $built" >&2
    exit 1
  fi
done
cp "$out/wasm-wide/pogo_ffi.wasm" "$wide.tmp" && mv "$wide.tmp" "$wide"
for m in "$module" "$wide"; do
  raw="$(wc -c <"$m")"
  gz="$(gzip -9c "$m" | wc -c)"
  echo "$m"
  printf '  %d bytes raw (%d KiB), %d bytes gzip -9 (%d KiB)\n' \
    "$raw" $(((raw + 1023) / 1024)) "$gz" $(((gz + 1023) / 1024))
done
