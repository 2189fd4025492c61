#!/usr/bin/env bash
# The relay against its floor, build against build (issue 36, item 1): each build's
# pogo-server races one wave of `pogo-loadgen live --bare`, its own bare relay (the floor)
# right after on the same arrivals, in turn, for several rounds; then each build's mean CPU a
# frame, its floor's and its ratio to the floor, each with its standard error, and between
# two builds the difference in standard errors. On a shared VM one run moves by ±10 %, and the
# floor moves with it (PERFORMANCE.md, "The relay and its floor"): only runs in turn, in one
# sitting, compare, and a difference under two standard errors is within the noise.
#
#   scripts/relay-pairs.sh [--rounds K] [--racers N] [--every-tick] [--level NAME]
#                          [--server-cpus LIST] [--loadgen-cpus LIST] [--out FILE] DIR [DIR…]
#   scripts/relay-pairs.sh --summarize FILE DIR [DIR…]
#
# DIR: a folder holding a release `pogo-server` and `pogo-loadgen` (`cargo build --release
# --locked -p pogo-server --bins`, then copy both out for each build). Defaults: 3 rounds,
# 400 keyboard racers sending their changes (`--every-tick`: 100 racers streaming every tick),
# `course`, the server (or the bare relay) on CPU 0 and the load generator on CPU 1. Rounds go
# A B, then B A, and so on, so a drift of the machine's speed falls on both. A wave takes
# about two minutes, server and floor together. Each run's row goes to --out (default: a file
# in /tmp) as it ends; the summary of this sitting's rows goes to standard output.
# --summarize prints the summary of every row of FILE for the folders named, racing nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=3
racers=""
stream=(--changes-only)
level=course
server_cpus=0
loadgen_cpus=1
out=""
summarize=""
dirs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --racers) racers=$2; shift 2 ;;
    --every-tick) stream=(); shift ;;
    --level) level=$2; shift 2 ;;
    --server-cpus) server_cpus=$2; shift 2 ;;
    --loadgen-cpus) loadgen_cpus=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --summarize) summarize=$2; shift 2 ;;
    -*) echo "relay-pairs: unknown argument $1" >&2; exit 2 ;;
    *) dirs+=("$1"); shift ;;
  esac
done
[ ${#dirs[@]} -gt 0 ] || { echo "relay-pairs: name at least one folder of binaries" >&2; exit 2; }

# Each build's mean CPU a frame, its floor's and its ratio to the floor, with their standard
# errors, from the rows on standard input (as `race` writes them); then each build against
# the first.
summary() {
  awk -F'\t' -v order="${dirs[*]}" '
  function mean(sum, k) { return sum / k }
  function se(sum, squares, k) { return (k > 1) ? sqrt((squares - sum * sum / k) / (k - 1) / k) : 0 }
  $3 > 0 && $4 > 0 {
    d = $2; n[d]++; s[d] += $3; q[d] += $3 * $3; fs[d] += $4; fq[d] += $4 * $4
    x = $3 / $4; rs[d] += x; rq[d] += x * x
    if ($6 !~ /^[0-9]+ of [0-9]+$/ || split($6, f, " of ") != 2 || f[1] != f[2]) bad[d]++
  }
  END {
    print "| build | runs | µs a frame | the floor | × the floor | runs not all filed real-time |"
    print "| --- | ---: | --- | --- | --- | ---: |"
    k = split(order, dirs, " ")
    for (i = 1; i <= k; i++) {
      d = dirs[i]; if (!n[d]) { print "| " d " | 0 | - | - | - | - |"; continue }
      m[i] = mean(s[d], n[d]); e[i] = se(s[d], q[d], n[d])
      mr[i] = mean(rs[d], n[d]); er[i] = se(rs[d], rq[d], n[d])
      printf "| %s | %d | %.2f ± %.2f | %.2f ± %.2f | %.2f ± %.2f | %d |\n", d, n[d], m[i], e[i], \
        mean(fs[d], n[d]), se(fs[d], fq[d], n[d]), mr[i], er[i], bad[d]
    }
    for (i = 2; i <= k; i++) {
      if (!n[dirs[1]] || !n[dirs[i]]) continue
      de = sqrt(e[1] * e[1] + e[i] * e[i]); dr = sqrt(er[1] * er[1] + er[i] * er[i])
      zd = (de > 0) ? (m[i] - m[1]) / de : 0
      zr = (dr > 0) ? (mr[i] - mr[1]) / dr : 0
      printf "%s against %s: µs a frame %+.1f %% (%.1f standard errors), × the floor %+.2f (%.1f standard errors)\n", \
        dirs[i], dirs[1], 100 * (m[i] / m[1] - 1), zd, mr[i] - mr[1], zr
    }
  }'
}

# Races every build, round by round, each run's row to --out: the time, the build, the
# server's µs a frame, the floor's, the relay's p50 / p99 / max (ms), the runs filed
# real-time, the load average before the wave.
race() {
  local d b r i load order
  for d in "${dirs[@]}"; do
    for b in pogo-server pogo-loadgen; do
      [ -x "$d/$b" ] || { echo "relay-pairs: no $d/$b" >&2; exit 2; }
    done
  done
  echo "# $(date -u +%FT%TZ) $(nproc) CPUs, $racers racers ${stream[*]:-every tick}, $level" >>"$out"
  for ((r = 0; r < rounds; r++)); do
    order=("${dirs[@]}")
    if ((r % 2 == 1)); then
      order=()
      for ((i = ${#dirs[@]} - 1; i >= 0; i--)); do order+=("${dirs[i]}"); done
    fi
    for d in "${order[@]}"; do
      rm -f "$work"/live.db*
      load=$(cut -d' ' -f1 /proc/loadavg)
      taskset -c "$loadgen_cpus" "$d/pogo-loadgen" live --spawn "$d/pogo-server" \
        --database "sqlite:$work/live.db" --level "$level" --racers "$racers" "${stream[@]}" \
        --bare --server-cpus "$server_cpus" >"$work/wave.txt" 2>&1 || true
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%T)" "$d" "$(col pogo-server 10)" \
        "$(col bare 10)" "$(col pogo-server 7)" "$(col pogo-server 12)" "$load" | tee -a "$out" >&2
    done
  done
}

# Column $2 (cut's numbering: the empty field before the first | is 1) of the row of the
# last wave's table (`pogo-loadgen live`'s) whose relay is $1.
col() { grep -E "^\| $1 " "$work/wave.txt" | head -1 | cut -d'|' -f"$2" | sed 's/^ *//; s/ *$//'; }

if [ -n "$summarize" ]; then
  grep -v '^#' "$summarize" | summary
  exit 0
fi
[ -n "$racers" ] || racers=$([ ${#stream[@]} -gt 0 ] && echo 400 || echo 100)
[ -n "$out" ] || out=$(mktemp /tmp/relay-pairs.XXXXXX)
work=$(mktemp -d /tmp/relay-pairs-db.XXXXXX)
trap 'rm -rf "$work"' EXIT
race
tail -n $((rounds * ${#dirs[@]})) "$out" | summary
echo "rows: $out"
