#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ for SECONDS each (default 60), one after the other, on
# nightly, and prints per target the executions per second and the corpus size from libFuzzer's
# final statistics. Installs cargo-fuzz (and the nightly toolchain) if missing.
#
#   scripts/fuzz.sh [SECONDS]          e.g. `scripts/fuzz.sh 600` for the 10-minute runs
#   FUZZ_CMIN=1 scripts/fuzz.sh 60     ... then minimise each corpus with `cargo fuzz cmin`
#   FUZZ_TARGETS="tick" scripts/fuzz.sh 600   only the named targets
#
# New inputs land in fuzz/corpus/<target>/ (commit them after `FUZZ_CMIN=1`), crashes in
# fuzz/artifacts/<target>/, full logs in fuzz/artifacts/logs/<target>.log. A crash goes, with
# its fix, to fuzz/regressions/<target>/<what-went-wrong> and gets a #[test] in
# checks/tests/regressions.rs. Exit status 1 if any target found a crash.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -lt 1 ]; then
  echo "usage: scripts/fuzz.sh [SECONDS]" >&2
  exit 2
fi

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "fuzz: installing the nightly toolchain (cargo-fuzz needs it)" >&2
  rustup toolchain install nightly --profile minimal
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz: installing cargo-fuzz" >&2
  cargo install cargo-fuzz --locked
fi

# FUZZ_TARGETS="a b" runs only those (e.g. to split the targets between two processes).
targets=${FUZZ_TARGETS:-$(cargo +nightly fuzz list)}
mkdir -p artifacts/logs
cargo +nightly fuzz build

# The last value of a `stat::NAME: VALUE` line of libFuzzer's -print_final_stats output.
stat() { sed -n "s/^stat::$1: *//p" "$2" | tail -n 1; }

# Per-target libFuzzer options. The replay targets read untrusted files whose memory must stay
# bounded by the format's limits (256 KiB per chunk) whatever they claim: a resident set over
# 256 MB or a single allocation over 64 MB is a crash.
target_options() {
  case "$1" in
    replay_decode | replay_roundtrip) echo "-rss_limit_mb=256 -malloc_limit_mb=64" ;;
    # A track's file may be long (course.json is 3 KB, a track up to 256 KiB): let inputs
    # grow past libFuzzer's default 4 KB.
    track) echo "-rss_limit_mb=4096 -max_len=16384" ;;
    *) echo "-rss_limit_mb=4096" ;;
  esac
}

# Per-target AddressSanitizer options. ASan keeps freed memory in a quarantine (256 MB by
# default) that counts toward the resident set: under a 256 MB limit it has to be smaller.
target_asan_options() {
  case "$1" in
    replay_decode | replay_roundtrip) echo "quarantine_size_mb=16" ;;
  esac
}

failed=()
summary=()
for target in $targets; do
  mkdir -p "corpus/$target"
  log="artifacts/logs/$target.log"
  echo "==> $target: ${seconds}s (log: fuzz/$log)" >&2
  status=0
  asan_options="${ASAN_OPTIONS:-}"
  extra=$(target_asan_options "$target")
  if [ -n "$extra" ]; then
    asan_options="${asan_options:+$asan_options:}$extra"
  fi
  # shellcheck disable=SC2046 # the options are words
  ASAN_OPTIONS="$asan_options" cargo +nightly fuzz run "$target" -- \
    -max_total_time="$seconds" -print_final_stats=1 -timeout=20 $(target_options "$target") \
    >"$log" 2>&1 || status=$?
  if [ "$status" -ne 0 ]; then
    failed+=("$target")
    grep -m 1 -A 6 "panicked at" "$log" >&2 || tail -n 20 "$log" >&2
  fi
  if [ "${FUZZ_CMIN:-0}" = 1 ]; then
    cargo +nightly fuzz cmin "$target" >>"$log" 2>&1
  fi
  units=$(stat number_of_executed_units "$log")
  rate=$(stat average_exec_per_sec "$log")
  files=$(find "corpus/$target" -type f ! -name '.*' | wc -l)
  bytes=$(find "corpus/$target" -type f ! -name '.*' -printf '%s\n' | awk '{s += $1} END {print s + 0}')
  result=$([ "$status" -eq 0 ] && echo ok || echo "CRASH (see fuzz/artifacts/$target/)")
  summary+=("$(printf '%-20s %10s exec/s %12s execs   corpus %5s files %8s bytes   %s' \
    "$target" "${rate:-?}" "${units:-?}" "$files" "$bytes" "$result")")
done

echo
echo "fuzz summary (${seconds}s per target):"
printf '  %s\n' "${summary[@]}"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz: crashes in: ${failed[*]}" >&2
  exit 1
fi
