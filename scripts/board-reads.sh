#!/usr/bin/env bash
# Times every leaderboard read at 1 000, 100 000 and 1 000 000 runs on a board, through the
# HTTP API of a release pogo-server (PERFORMANCE.md's "Leaderboard reads" table comes from it).
#
# For each size, a fresh database gets that many verified runs of `course`, one player per run
# (`pogo-loadgen seed`: straight into the real schema, no re-simulation); then one server (one
# worker, nothing to verify) starts on it, builds its rank index of every current board, and
# `pogo-loadgen reads` times 300 sequential requests of each read. The server's resident
# memory is printed before and after the index is built.
#
#   bash scripts/board-reads.sh              SQLite (1 k, 100 k) and PostgreSQL (1 k, 100 k, 1 M)
#   BACKENDS=sqlite bash scripts/board-reads.sh
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

measure() { # backend database-url runs
  local backend="$1" url="$2" runs="$3"
  echo "== $backend: seeding $runs runs of course" >&2
  "$bin/pogo-loadgen" seed --database "$url" --level course --runs "$runs" >&2
  local port=18093
  "$bin/pogo-server" --database "$url" --listen "127.0.0.1:$port" --workers 1 --address-rate 1000000 --address-burst 1000000 \
    >"$work/server-$backend.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 600); do
    curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    sleep 0.5
  done
  echo "== $backend: server up, $(rss_mb "$server_pid") resident before the index" >&2
  # The index of every current board is built in the background at start: wait for
  # course's open board to be logged.
  for _ in $(seq 1 600); do
    grep -q 'rank index built.*level=course.*category="\?open' "$work/server-$backend.log" && break
    sleep 0.5
  done
  grep 'rank index built' "$work/server-$backend.log" | grep -v 'entries=0' >&2 || true
  echo "== $backend: $(rss_mb "$server_pid") resident with the index built" >&2
  echo "### $backend, $runs runs"
  "$bin/pogo-loadgen" reads --server "http://127.0.0.1:$port" --level course
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
}

for backend in $backends; do
  case "$backend" in
    sqlite)
      for runs in 1000 100000; do
        rm -f "$work"/boards.db*
        measure sqlite "sqlite:$work/boards.db" "$runs"
      done
      ;;
    postgres)
      admin="${POGO_TEST_POSTGRES_URL:?set POGO_TEST_POSTGRES_URL (bash scripts/postgres.sh)}"
      for runs in 1000 100000 1000000; do
        psql "$admin" -qc 'DROP DATABASE IF EXISTS pogo_board_reads WITH (FORCE)' \
          -c 'CREATE DATABASE pogo_board_reads' >&2
        measure postgres "${admin%/*}/pogo_board_reads" "$runs"
      done
      psql "$admin" -qc 'DROP DATABASE IF EXISTS pogo_board_reads WITH (FORCE)' >&2
      ;;
    *) echo "unknown backend $backend" >&2; exit 2 ;;
  esac
done
