#!/usr/bin/env bash
# Times every public route of pogo-server on boards of 1 000, 100 000 and 1 000 000 runs, on
# SQLite and PostgreSQL (PERFORMANCE.md's "Leaderboard reads at scale" comes from it).
#
# Per backend, three databases, each holding one board of `course` (one player per run),
# seeded by `pogo-loadgen seed` straight into the real schema (migrations, triggers, indexes;
# no re-simulation) and, as a board the server grew itself, without planner statistics: the
# server gathers SQLite's at start (`store::statistics`), PostgreSQL's autovacuum its own.
# ANALYZE=1 gathers them once seeded (and vacuums PostgreSQL's), as an operator would. Three release servers, one per database, are started one after the other: each
# builds its rank index of every current board at start, and the script reports how long the
# build took, the server's anonymous resident memory (RssAnon: the heap, not SQLite's
# memory-mapped file) when it began answering, at its peak while building, and once built, and
# how long reads of the board took while it was building (answered from SQL).
# Then:
#   - `pogo-loadgen reads` times every public route on the three servers in turn, request by
#     request (so every size meets the same machine load): p50 / p99 per size and the
#     largest ÷ the smallest (p50);
#   - `pogo-loadgen concurrent` sends the page's board reads from 16 clients at once to the
#     1 M server, then to the 1 k one, with the CPU used by the server, PostgreSQL and the
#     load generator.
#
#   bash scripts/board-reads.sh                 # both backends: ~15 minutes on 2 cores (7 seeding)
#   BACKENDS=postgres bash scripts/board-reads.sh
#   KEEP=/var/tmp/pogo-boards bash scripts/board-reads.sh   # keep the seeded databases, reuse them
#   ANALYZE=1 bash scripts/board-reads.sh        # statistics gathered once seeded
#
# PostgreSQL: POGO_TEST_POSTGRES_URL must reach one (`bash scripts/postgres.sh` prints it); the
# script creates databases `pogo_board_reads_<size>` on it (dropped at the end unless KEEP).
set -euo pipefail
cd "$(dirname "$0")/.."

backends="${BACKENDS:-sqlite postgres}"
sizes="${SIZES:-1k:1000 100k:100000 1M:1000000}"
requests="${REQUESTS:-300}"
clients="${CLIENTS:-16}"
analyze="${ANALYZE:-}"
seconds="${SECONDS_TIMED:-20}"
cargo build --release --locked -p pogo-server --bins >&2
bin="${CARGO_TARGET_DIR:-target}/release"
work="$(mktemp -d -t pogo-board-reads-XXXXXX)"
keep="${KEEP:-}"
if [ -n "$keep" ]; then mkdir -p "$keep"; fi
pids=()
samplers=()
cleanup() {
  local pid
  for pid in "${samplers[@]}" "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

rss_anon_mb() { awk '/RssAnon/ { printf "%.0f\n", $2 / 1024 }' "/proc/$1/status" 2>/dev/null || echo 0; }

# Samples a process's RssAnon (MB) every 50 ms into a file until killed.
sample_rss() {
  local pid="$1" out="$2"
  while kill -0 "$pid" 2>/dev/null; do rss_anon_mb "$pid" >>"$out"; sleep 0.05; done
}

# start_server backend label url port: starts a server, waits for its index; sets $pid.
start_server() {
  local backend="$1" label="$2" url="$3" port="$4"
  local log="$work/server-$backend-$label.log"
  "$bin/pogo-server" --database "$url" --listen "127.0.0.1:$port" --workers 1 \
    --address-rate 1000000 --address-burst 1000000 --token-rate 1000000 --token-burst 1000000 \
    >"$log" 2>&1 &
  pid=$!
  pids+=("$pid")
  sample_rss "$pid" "$work/rss-$backend-$label" &
  samplers+=("$!")
  # Up to 5 minutes: a database seeded by an older binary is migrated first.
  for _ in $(seq 1 6000); do
    curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    sleep 0.05
  done
  local start_mb boards
  start_mb="$(rss_anon_mb "$pid")"
  # Every level's open and real-time boards are built at start.
  boards=$(( 2 * $(curl -sf "http://127.0.0.1:$port/api/levels" | grep -o '"name"' | wc -l) ))
  # Meanwhile, reads of the board being built: answered from SQL, they must not wait for it.
  local during="$work/during-$backend-$label" read
  for _ in $(seq 1 2400); do
    [ "$(grep -c 'rank index built' "$log" || true)" -ge "$boards" ] && break
    if ! grep -q 'rank index built level=course category="open"' "$log"; then
      for read in "top-20|leaderboard?limit=20" "around-a-player|leaderboard?limit=20&around=seed-7" \
        "seasons|seasons"; do
        curl -s -o /dev/null -w "${read%%|*} %{time_total}\n" \
          "http://127.0.0.1:$port/api/levels/course/${read#*|}" >>"$during" || true
      done
    fi
    sleep 0.1
  done
  local built_mb peak_mb
  built_mb="$(rss_anon_mb "$pid")"
  peak_mb="$(sort -n "$work/rss-$backend-$label" | tail -1)"
  echo "== $backend $label: RssAnon ${start_mb} MB answering, ${peak_mb} MB at peak, ${built_mb} MB built" >&2
  if [ -s "$during" ]; then
    # Per read (around a player counts the player's rank: store/board_sql.rs).
    local what
    for what in top-20 around-a-player seasons; do
      awk -v w="$what" '$1 == w { print $2 }' "$during" | sort -n |
        awk -v w="$what" '{ t[NR] = $1 * 1000 } END { if (NR) printf "   while the index built, %s: %d reads, median %.1f ms, max %.1f ms\n", w, NR, t[int((NR + 1) / 2)], t[NR] }' >&2
    done
  fi
  grep 'rank index built' "$log" | grep 'level=course' | sed 's/^.*rank index built/   rank index built/' >&2 || true
}

measure() { # backend url-of-size-label (a function of the label)...
  local backend="$1"; shift
  local spec label runs url port=18100 boards=() servers=()
  for spec in $sizes; do
    label="${spec%%:*}"; runs="${spec#*:}"
    url="$(db_url "$backend" "$label")"
    if [ -n "$keep" ] && [ -e "$keep/$backend-$label.seeded" ]; then
      echo "== $backend $label: reusing the seeded database" >&2
    else
      db_create "$backend" "$label"
      echo "== $backend $label: seeding $runs runs of course" >&2
      local seeded=$SECONDS
      if [ -n "$analyze" ]; then
        "$bin/pogo-loadgen" seed --database "$url" --level course --runs "$runs" --analyze >&2
        case "$url" in postgres*) PGOPTIONS='-c client_min_messages=error' psql "$url" -qc 'VACUUM ANALYZE' >&2 ;; esac
      else
        "$bin/pogo-loadgen" seed --database "$url" --level course --runs "$runs" >&2
      fi
      echo "== $backend $label: seeded in $((SECONDS - seeded)) s" >&2
      if [ -n "$keep" ]; then touch "$keep/$backend-$label.seeded"; fi
    fi
    port=$((port + 1))
    start_server "$backend" "$label" "$url" "$port"
    boards+=(--board "$label=http://127.0.0.1:$port")
    servers+=("$port:$pid")
  done
  echo "### $backend: every route"
  "$bin/pogo-loadgen" reads "${boards[@]}" --requests "$requests"
  local first="${servers[0]}" last="${servers[${#servers[@]}-1]}" server postgres=()
  case "$backend" in postgres) postgres=(--postgres) ;; esac
  for server in "$last" "$first"; do
    echo "### $backend: $clients clients at once, server on port ${server%%:*}"
    "$bin/pogo-loadgen" concurrent --server "http://127.0.0.1:${server%%:*}" \
      --clients "$clients" --seconds "$seconds" --pid "${server#*:}" "${postgres[@]}"
  done
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  pids=()
}

db_url() { # backend label
  case "$1" in
    sqlite) echo "sqlite:${keep:-$work}/boards-$2.db" ;;
    postgres) echo "${POGO_TEST_POSTGRES_URL%/*}/pogo_board_reads_${2,,}" ;;
  esac
}

db_create() { # backend label
  case "$1" in
    sqlite) rm -f "${keep:-$work}/boards-$2.db"* ;;
    postgres)
      psql "$POGO_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS pogo_board_reads_${2,,} WITH (FORCE)" >&2
      psql "$POGO_TEST_POSTGRES_URL" -qc "CREATE DATABASE pogo_board_reads_${2,,}" >&2
      ;;
  esac
}

for backend in $backends; do
  case "$backend" in
    sqlite) measure sqlite ;;
    postgres)
      : "${POGO_TEST_POSTGRES_URL:?set POGO_TEST_POSTGRES_URL (bash scripts/postgres.sh)}"
      measure postgres
      if [ -z "$keep" ]; then
        for spec in $sizes; do
          label="${spec%%:*}"
          psql "$POGO_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS pogo_board_reads_${label,,} WITH (FORCE)" >&2 || true
        done
      fi
      ;;
    *) echo "unknown backend $backend" >&2; exit 2 ;;
  esac
done
