#!/usr/bin/env bash
# Racers per core (issue 36, item 2): pogo-server pinned to 1, 2, 4, 8… cores and
# `pogo-loadgen live` to the machine's other cores, one wave of N racers a server core for
# each count, the same wave also raced through the bare relay (`--bare`) for the floor.
# A wave holds when the relay's p99 is ≤ 10 ms and every run is filed verified and
# real-time (`pogo-loadgen live` says so). Its send lag and the load generator's own CPU are
# printed beside it: a high lag, or CPU near the cores it was given, says the load generator,
# not the server, was the limit (it sent late, so its racers stopped being real-time). It
# costs about what the server does a racer (0.18 against 0.20 cores for 400 keyboard racers
# on the 2 vCPU VM, 2026-12-06; two thirds of it the kernel's TCP), so on 16 cores the
# eight it gets near their limit when the server's eight are full: read its column.
#
#   scripts/racers-per-core.sh [--bin DIR] [--cores "1 2 4 8"] [--per-core N]
#                              [--changes-only] [--level NAME] [--out DIR]
#
# --bin: where pogo-server and pogo-loadgen are (default target/release; build them with
#   `cargo build --release --locked -p pogo-server --bins`). --per-core: racers a server core
#   (default 2000 with --changes-only, keyboard racers; else 600, stick racers streaming every
#   tick). Each wave races the bot's run of `course` (55 s) twice, the server's and the
#   floor's: about two and a half minutes a core count.
set -euo pipefail
cd "$(dirname "$0")/.."

bin=target/release
cores="1 2 4 8"
per_core=""
changes=()
level=course
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --cores) cores=$2; shift 2 ;;
    --per-core) per_core=$2; shift 2 ;;
    --changes-only) changes=(--changes-only); shift ;;
    --level) level=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "racers-per-core: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] || out=$(mktemp -d /tmp/pogo-per-core.XXXXXX)
mkdir -p "$out"
[ -n "$per_core" ] || per_core=$([ ${#changes[@]} -gt 0 ] && echo 2000 || echo 600)
for b in pogo-server pogo-loadgen; do
  [ -x "$bin/$b" ] || { echo "racers-per-core: no $bin/$b (build it, or say --bin)" >&2; exit 2; }
done
total=$(nproc)
# Every racer is a socket at each end.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

# Column $2 of the first row of `pogo-loadgen live`'s table whose relay is $1, in $log (cut
# counts the empty field before the first |).
row() { grep -E "^\| $1 " "$log" | head -1 | cut -d'|' -f"$2" | sed 's/^ *//; s/ *$//'; }

echo "| server cores | racers | relay p50 / p99 / max (ms) | server CPU (cores) | µs a frame | floor µs a frame | × the floor | filed real-time | send lag p99 (ms) | load generator: CPU used / cores given |"
echo "| ---: | ---: | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |"
for c in $cores; do
  if [ "$c" -ge "$total" ]; then
    echo "racers-per-core: $c server cores leave none of this machine's $total for the load generator" >&2
    continue
  fi
  racers=$((per_core * c))
  server_cpus="0-$((c - 1))"
  loadgen_cpus="$c-$((total - 1))"
  log="$out/cores-$c.txt"
  rm -f "$out/live-$c.db"*
  taskset -c "$loadgen_cpus" "$bin/pogo-loadgen" live \
    --spawn "$bin/pogo-server" --database "sqlite:$out/live-$c.db" --level "$level" \
    --racers "$racers" "${changes[@]}" --bare --server-cpus "$server_cpus" >"$log" 2>&1 || true
  server_us=$(row pogo-server 10); floor_us=$(row bare 10)
  ratio=$(awk -v a="$server_us" -v b="$floor_us" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "-" }')
  echo "| $c | $racers | $(row pogo-server 7) | $(row pogo-server 8) | ${server_us:--} | ${floor_us:--} | $ratio | $(row pogo-server 12) | $(row pogo-server 11) | $(row pogo-server 13) / $((total - c)) |"
done
echo "logs: $out"
