#!/usr/bin/env bash
# Cross-architecture determinism check: runs the golden tests on
#   x86_64  release, Rust 1.85 (proves the MSRV and that the lockfile builds with it)
#   x86_64  release, stable rustup toolchain, -C target-cpu=native
#   s390x   64-bit big-endian,    Rust 1.85, under qemu-s390x
#   aarch64 64-bit little-endian, Rust 1.85, under qemu-aarch64
#   i686    32-bit little-endian, Rust 1.85, natively
#   wasm32  WebAssembly (wasm32-unknown-unknown), stable rustup toolchain, under Node: the
#           golden runs through the C ABI of pogo-ffi (ffi/js/test/golden.test.mjs)
# The golden files pin exact bits, so a pass everywhere means every architecture computes the
# same results. (x86_64 debug and release with the stable toolchain run in .ci/run.)
# The `pogo` package is built as the library facade alone (no CLI, no netplay) everywhere:
# see `feature_args_for`.
#
# Usage, from anywhere in the repo:   bash scripts/cross-check.sh
# Runs as root on a Debian 12 x86_64 machine with rustup's cargo. Installs what it needs the
# first time (a few minutes); later runs skip the installs. Exits non-zero if any run fails.
#
# Why this toolchain: Debian's rustc-web 1.85 is a real Rust 1.85 whose standard library Debian
# also builds for s390x, arm64 and i386, and nothing outside Debian's archive and crates.io is
# reachable here, so rustup cannot fetch those targets. cargo from rustup drives it through
# RUSTC=/usr/bin/rustc.
set -euo pipefail

# (package:test target) pairs to run on every architecture, separated by spaces. A listed
# target that does not exist is an error, not a skip: add new golden tests here when they land.
GOLDEN_TESTS="pogo-core:golden_bits pogo:golden_hashes pogo:golden_replays pogo:golden_chains"

# Foreign targets: triple, Debian architecture, cross gcc, runner ("-" = runs natively: the
# x86_64 kernel executes i686 binaries itself). All are linked statically, so qemu needs no
# foreign libc.
CROSS_TARGETS=(
  "s390x-unknown-linux-gnu   s390x  s390x-linux-gnu-gcc   qemu-s390x"
  "aarch64-unknown-linux-gnu arm64  aarch64-linux-gnu-gcc qemu-aarch64"
  "i686-unknown-linux-gnu    i386   i686-linux-gnu-gcc    -"
)

# Debian's rustc-web 1.85 from bookworm. Pinned: bookworm-security carries newer rustc-web
# versions, and the point is to prove Rust 1.85.
DEB_RUST_VERSION="1.85.0+dfsg3-1~deb12u3"
RUSTC_185=/usr/bin/rustc
RUSTLIB=/usr/lib/rustlib

# The wasm32 run: built with the rustup stable toolchain, because Debian's Rust 1.85 ships no
# wasm32 standard library; rustup adds the wasm32-unknown-unknown target from its own channel.
# Its golden test is the Node test of the wasm build (the Rust test harness cannot run there).
WASM_TARGET=wasm32-unknown-unknown
WASM_GOLDEN_TEST=ffi/js/test/golden.test.mjs

# Separate target dirs, so neither the 1.85 nor the native-CPU build invalidates the normal
# `target/` cache (cargo fingerprints include the compiler and RUSTFLAGS).
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CROSS_TARGET_DIR="$REPO_ROOT/target/cross"
NATIVE_TARGET_DIR="$REPO_ROOT/target/native"

log() { printf '\n==> %s\n' "$*"; }
die() { printf 'cross-check: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------------------------------------
# Installation (idempotent)
# ---------------------------------------------------------------------------------------------

# True when /usr/bin/rustc is Debian's 1.85 and every cross gcc and qemu is on PATH.
host_tools_present() {
  "$RUSTC_185" --version 2>/dev/null | grep -q ' 1\.85\.' || return 1
  local spec triple deb_arch gcc runner
  for spec in "${CROSS_TARGETS[@]}"; do
    read -r triple deb_arch gcc runner <<<"$spec"
    command -v "$gcc" >/dev/null || return 1
    if [ "$runner" != - ]; then command -v "$runner" >/dev/null || return 1; fi
  done
}

# The foreign standard library is in place for this exact rustc version. A marker file records
# the version, because a std from another rustc version makes every build fail with E0514.
foreign_std_present() {
  local triple=$1
  [ "$(cat "$RUSTLIB/$triple/.pogo-deb-version" 2>/dev/null)" = "$DEB_RUST_VERSION" ] \
    && compgen -G "$RUSTLIB/$triple/lib/libstd-*.rlib" >/dev/null
}

apt_updated=0
apt_update_once() {
  if [ "$apt_updated" = 0 ]; then
    log "apt-get update"
    # A mirror mid-sync can fail one index; the pinned packages below still resolve, and
    # apt-get install reports clearly if they do not.
    apt-get update -qq || echo "cross-check: apt-get update reported errors; continuing" >&2
    apt_updated=1
  fi
}

install_toolchains() {
  export DEBIAN_FRONTEND=noninteractive
  local spec triple deb_arch gcc runner missing_std=()
  for spec in "${CROSS_TARGETS[@]}"; do
    read -r triple deb_arch gcc runner <<<"$spec"
    foreign_std_present "$triple" || missing_std+=("$spec")
  done

  if host_tools_present && [ ${#missing_std[@]} = 0 ]; then
    log "toolchains already installed ($("$RUSTC_185" --version))"
    return
  fi

  # apt-get download only finds foreign-architecture packages once dpkg knows the architecture
  # (and apt-get update has fetched its package list), so add them before the one update. No
  # package of those architectures gets installed, and they are removed again at the end, so
  # later `apt-get update`s elsewhere don't fetch (and can't fail on) three more indexes.
  local added_archs=()
  for spec in "${missing_std[@]}"; do
    read -r triple deb_arch gcc runner <<<"$spec"
    if ! dpkg --print-foreign-architectures | grep -qx "$deb_arch"; then
      log "dpkg --add-architecture $deb_arch (temporarily, to download its standard library)"
      dpkg --add-architecture "$deb_arch"
      added_archs+=("$deb_arch")
    fi
  done

  if ! host_tools_present; then
    apt_update_once
    log "installing rustc-web $DEB_RUST_VERSION, cross gcc, qemu-user"
    apt-get install -y -qq --allow-downgrades \
      "rustc-web=$DEB_RUST_VERSION" "libstd-rust-web-1.85=$DEB_RUST_VERSION" \
      "libstd-rust-web-dev=$DEB_RUST_VERSION" \
      gcc-s390x-linux-gnu gcc-aarch64-linux-gnu gcc-i686-linux-gnu qemu-user \
      libc6-dev-s390x-cross libc6-dev-arm64-cross libc6-dev-i386-cross >/dev/null
    host_tools_present || die "toolchain install finished but rustc 1.85 / cross gcc / qemu missing"
  fi

  for spec in "${missing_std[@]}"; do
    read -r triple deb_arch gcc runner <<<"$spec"
    install_foreign_std "$triple" "$deb_arch"
  done
  for deb_arch in "${added_archs[@]}"; do
    dpkg --remove-architecture "$deb_arch"
  done
}

# Unpacks Debian's standard library for one foreign architecture straight into
# /usr/lib/rustlib/<triple>. Not installed through dpkg: that runs into version skew between
# the architectures' multiarch packages.
install_foreign_std() {
  local triple=$1 deb_arch=$2 tmp
  apt_update_once
  log "unpacking the Rust 1.85 standard library for $triple ($deb_arch)"
  tmp=$(mktemp -d)
  # apt downloads as the unprivileged _apt user; without this it warns and falls back to root.
  chown _apt "$tmp" 2>/dev/null || true
  (cd "$tmp" && apt-get download -qq \
    "libstd-rust-web-dev:$deb_arch=$DEB_RUST_VERSION" \
    "libstd-rust-web-1.85:$deb_arch=$DEB_RUST_VERSION") \
    || die "apt-get download of libstd-rust-web-dev:$deb_arch=$DEB_RUST_VERSION failed"
  local deb
  for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$tmp/root"; done
  [ -d "$tmp/root$RUSTLIB/$triple/lib" ] || die "no $RUSTLIB/$triple/lib in the $deb_arch packages"
  rm -rf "${RUSTLIB:?}/$triple"
  mkdir -p "$RUSTLIB"
  cp -r "$tmp/root$RUSTLIB/$triple" "$RUSTLIB/"
  echo "$DEB_RUST_VERSION" >"$RUSTLIB/$triple/.pogo-deb-version"
  rm -rf "$tmp"
}

# ---------------------------------------------------------------------------------------------
# Checks before building
# ---------------------------------------------------------------------------------------------

# Every (package, test target) in GOLDEN_TESTS must exist; a typo or a not-yet-written test
# would otherwise only show up as a build error per architecture, or not at all.
check_golden_targets() {
  local metadata pair pkg name
  metadata=$(cargo metadata --no-deps --format-version 1 --locked)
  for pair in $GOLDEN_TESTS; do
    pkg=${pair%%:*} name=${pair#*:}
    if [ -z "$pkg" ] || [ -z "$name" ] || [ "$pkg" = "$pair" ]; then
      die "GOLDEN_TESTS entry '$pair' is not of the form package:test_target"
    fi
    python3 -c '
import json, sys
pkg, name = sys.argv[1], sys.argv[2]
meta = json.load(sys.stdin)
sys.exit(0 if any(p["name"] == pkg and any(t["name"] == name and "test" in t["kind"]
                                           for t in p["targets"])
                  for p in meta["packages"]) else 1)
' "$pkg" "$name" <<<"$metadata" \
      || die "GOLDEN_TESTS lists $pkg:$name, but package '$pkg' has no test target '$name'"
  done
}

# ---------------------------------------------------------------------------------------------
# Runs
# ---------------------------------------------------------------------------------------------

SUMMARY=()   # "target|toolchain|result" rows
FAILED=0
# Test-harness arguments for the current variant (none so far: see `feature_args_for`).
HARNESS=()

# cargo test arguments selecting every golden test target, for one package.
test_args_for() {
  local want=$1 pair args=()
  for pair in $GOLDEN_TESTS; do
    [ "${pair%%:*}" = "$want" ] && args+=(--test "${pair#*:}")
  done
  printf '%s\n' "${args[@]}"
}

# cargo feature arguments for building PKG's golden tests, one per line: the `pogo` package
# as the library facade alone (`--no-default-features`: no CLI, no netplay). The golden tests
# check the library's bits; the CLI's recordings of the same golden bytes are checked by
# `.ci/run`'s debug and release passes on x86_64, so the cross builds skip compiling clap,
# rayon, plotters and GGRS four more times (and GGRS needs Rust 1.87; these builds prove 1.85).
# Nothing for other packages.
feature_args_for() {
  [ "$1" = pogo ] || return 0
  echo --no-default-features
}

golden_packages() {
  local pair
  for pair in $GOLDEN_TESTS; do echo "${pair%%:*}"; done | awk '!seen[$0]++'
}

# run_variant LABEL TOOLCHAIN_LABEL -- ENV=VALUE... -- CARGO_TEST_ARGS...
# Runs cargo test once per package in GOLDEN_TESTS with the given environment; a failure is
# recorded in the summary without stopping the other architectures.
run_variant() {
  local label=$1 toolchain=$2; shift 3
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  local pkg pkgs tests features result=pass
  mapfile -t pkgs < <(golden_packages)
  for pkg in "${pkgs[@]}"; do
    mapfile -t tests < <(test_args_for "$pkg")
    mapfile -t features < <(feature_args_for "$pkg")
    log "$label ($toolchain): ${envs[*]} cargo test --locked $* -p $pkg ${features[*]} ${tests[*]}"
    # </dev/null: nothing under test (nor qemu) may wait on the terminal.
    if ! env "${envs[@]}" cargo test --locked "$@" -p "$pkg" "${features[@]}" "${tests[@]}" -- "${HARNESS[@]}" </dev/null; then
      result=FAIL
    fi
  done
  [ "$result" = pass ] || FAILED=1
  SUMMARY+=("$label|$toolchain|$result")
}

# Host build with Debian's Rust 1.85: the MSRV, and the same compiler as the cross builds.
run_host_msrv() {
  run_variant "x86_64-unknown-linux-gnu (release)" "rustc 1.85 (Debian)" \
    -- RUSTC="$RUSTC_185" CARGO_TARGET_DIR="$CROSS_TARGET_DIR" -- --release
}

# Host build with the normal stable toolchain tuned for this CPU: the determinism contract
# asks that -C target-cpu=native (other instruction selection, e.g. BMI2/AVX) gives the same bits.
run_host_native() {
  local stable
  stable=$(rustc --version | awk '{print "rustc " $2 " (stable)"}')
  run_variant "x86_64-unknown-linux-gnu (release, target-cpu=native)" "$stable" \
    -- RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR="$NATIVE_TARGET_DIR" -- --release
}

# Cross builds: linker, static linking (so qemu needs no foreign libc) and runner come from
# CARGO_TARGET_<TRIPLE>_* variables rather than a committed .cargo/config.toml, which would
# change everybody's normal builds.
run_cross() {
  local triple=$1 gcc=$2 runner=$3 var
  var=CARGO_TARGET_$(tr 'a-z-' 'A-Z_' <<<"$triple")
  local envs=(
    RUSTC="$RUSTC_185"
    CARGO_TARGET_DIR="$CROSS_TARGET_DIR"
    "${var}_LINKER=$gcc"
    "${var}_RUSTFLAGS=-C target-feature=+crt-static"
  )
  local how=native
  if [ "$runner" != - ]; then
    envs+=("${var}_RUNNER=$runner")
    how=$runner
  fi
  run_variant "$triple (release, $how)" "rustc 1.85 (Debian)" \
    -- "${envs[@]}" -- --release --target "$triple"
}

# wasm32: build pogo-ffi for WebAssembly and run the golden runs in it under Node (the
# hashes of tests/golden/hashes.txt, the chains' final states, the golden replays).
run_wasm() {
  local result=pass stable node
  stable=$(rustc --version | awk '{print "rustc " $2 " (stable)"}')
  node=$(node --version 2>/dev/null || echo "no node")
  log "$WASM_TARGET (wasm-release, node $node): cargo build -p pogo-ffi, node --test $WASM_GOLDEN_TEST"
  if ! rustup target list --installed 2>/dev/null | grep -qx "$WASM_TARGET"; then
    rustup target add "$WASM_TARGET" || result=FAIL
  fi
  if [ "$result" = pass ]; then
    cargo build --locked -p pogo-ffi --target "$WASM_TARGET" --profile wasm-release </dev/null \
      && node --test "$WASM_GOLDEN_TEST" </dev/null \
      || result=FAIL
  fi
  [ "$result" = pass ] || FAILED=1
  SUMMARY+=("$WASM_TARGET (wasm-release, node $node)|$stable|$result")
}

print_summary() {
  local row target toolchain result
  printf '\n==> summary (golden tests: %s; wasm32: %s)\n' "$GOLDEN_TESTS" "$WASM_GOLDEN_TEST"
  printf '%-56s %-26s %s\n' TARGET TOOLCHAIN RESULT
  for row in "${SUMMARY[@]}"; do
    IFS='|' read -r target toolchain result <<<"$row"
    printf '%-56s %-26s %s\n' "$target" "$toolchain" "$result"
  done
}

main() {
  cd "$REPO_ROOT"
  command -v cargo >/dev/null || die "cargo not found (this machine image ships rustup stable)"
  [ "$(id -u)" = 0 ] || die "must run as root (it installs Debian packages)"
  # Settings from the caller's environment would override or leak into the per-target ones, and
  # POGO_BLESS would make the golden tests rewrite their files instead of comparing.
  unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS CARGO_BUILD_TARGET CARGO_BUILD_RUSTFLAGS \
    RUSTC_WRAPPER CARGO_TARGET_DIR CARGO_BUILD_TARGET_DIR POGO_BLESS

  install_toolchains
  check_golden_targets

  run_host_msrv
  run_host_native
  local spec triple deb_arch gcc runner
  for spec in "${CROSS_TARGETS[@]}"; do
    read -r triple deb_arch gcc runner <<<"$spec"
    run_cross "$triple" "$gcc" "$runner"
  done
  run_wasm

  print_summary
  if [ "$FAILED" != 0 ]; then
    echo "cross-check: FAILED (see the log above for the failing run)" >&2
    exit 1
  fi
  echo "cross-check: all golden tests pass on every target"
}

main "$@"
