#!/usr/bin/env bash
# Times every leaderboard read at 1 000, 100 000 and 1 000 000 runs on a board, through the
# HTTP API of a release pogo-server (PERFORMANCE.md's "Leaderboard reads" table comes from it).
#
# One database per backend holds three boards at once, one player per run (`pogo-loadgen seed`:
# straight into the real schema, no re-simulation): `flat` with 1 000 verified runs, `sprawl`
# with 100 000 and, on PostgreSQL, `course` with 1 000 000 (on SQLite `course` gets 100 000 too,
# the issue's SQLite scale). Which level holds which board does not matter to a read; one table
# holding them all is the realistic case (the small board's rows sit among the big ones'). Then
# one server (one worker, nothing to verify) builds its rank index of every current board and
# `pogo-loadgen reads` times 300 sequential requests of each read on each board, the boards in
# turn request by request, so that the sizes are compared under the same load on a shared
# machine. The server's resident memory is printed before and after the index is built.
#
#   bash scripts/board-reads.sh              SQLite and PostgreSQL
#   BACKENDS=postgres bash scripts/board-reads.sh
#
# PostgreSQL: POGO_TEST_POSTGRES_URL must reach one (`bash scripts/postgres.sh` prints it); the
# script creates and drops a database `pogo_board_reads` on it. Takes about 10 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

backends="${BACKENDS:-sqlite postgres}"
cargo build --release --locked -p pogo-server --bins >&2
bin="${CARGO_TARGET_DIR:-target}/release"
work="$(mktemp -d -t pogo-board-reads-XXXXXX)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

rss_mb() { awk '/VmRSS/ { printf "%.0f MB", $2 / 1024 }' "/proc/$1/status"; }

measure() { # backend database-url level:runs...
  local backend="$1" url="$2"; shift 2
  local spec levels=()
  for spec in "$@"; do
    echo "== $backend: seeding ${spec#*:} runs of ${spec%%:*}" >&2
    "$bin/pogo-loadgen" seed --database "$url" --level "${spec%%:*}" --runs "${spec#*:}" >&2
    levels+=(--level "${spec%%:*}")
  done
  # A board that has grown to a million runs has long been vacuumed: without this the reads
  # would meet PostgreSQL's autovacuum still passing over the fresh rows.
  case "$url" in postgres*) psql "$url" -qc 'VACUUM ANALYZE' >&2 ;; esac
  local port=18093
  "$bin/pogo-server" --database "$url" --listen "127.0.0.1:$port" --workers 1 \
    --address-rate 1000000 --address-burst 1000000 >"$work/server-$backend.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 600); do
    curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    sleep 0.5
  done
  echo "== $backend: server up, $(rss_mb "$server_pid") resident before the index" >&2
  # The index of every current board (3 levels × 2 categories) is built in the background
  # at start.
  for _ in $(seq 1 600); do
    [ "$(grep -c 'rank index built' "$work/server-$backend.log" || true)" -ge 6 ] && break
    sleep 0.5
  done
  grep 'rank index built' "$work/server-$backend.log" | grep -v 'entries=0' >&2 || true
  echo "== $backend: $(rss_mb "$server_pid") resident with the index built" >&2
  echo "### $backend"
  "$bin/pogo-loadgen" reads --server "http://127.0.0.1:$port" "${levels[@]}"
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
}

for backend in $backends; do
  case "$backend" in
    sqlite)
      measure sqlite "sqlite:$work/boards.db" flat:1000 sprawl:100000 course:100000
      ;;
    postgres)
      admin="${POGO_TEST_POSTGRES_URL:?set POGO_TEST_POSTGRES_URL (bash scripts/postgres.sh)}"
      psql "$admin" -qc 'DROP DATABASE IF EXISTS pogo_board_reads WITH (FORCE)' >&2 || true
      psql "$admin" -qc 'CREATE DATABASE pogo_board_reads' >&2
      measure postgres "${admin%/*}/pogo_board_reads" flat:1000 sprawl:100000 course:1000000
      sleep 1
      psql "$admin" -qc 'DROP DATABASE IF EXISTS pogo_board_reads WITH (FORCE)' >&2 || true
      ;;
    *) echo "unknown backend $backend" >&2; exit 2 ;;
  esac
done
