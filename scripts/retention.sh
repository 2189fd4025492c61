#!/usr/bin/env bash
# Measures what pogo-server stores per run: a fresh database, N verified uploads of the demo
# bot on `course` by `pogo-loadgen` (one player each, so a player row per run: the upper bound
# on players), then the database's size on disk minus the empty schema's, divided by N. On
# SQLite the file (after the server's clean shutdown checkpointed the WAL); on PostgreSQL
# `pg_total_relation_size` of each table (rows, indexes, TOAST) and `pg_database_size`, when
# POGO_TEST_POSTGRES_URL reaches one (`export POGO_TEST_POSTGRES_URL="$(bash scripts/postgres.sh)"`).
#
#   bash scripts/retention.sh [N]        default N = 2000
#   POGO_PROFILE=dev bash scripts/retention.sh     unoptimised binaries: the same bytes, slower
#
# Needs sqlite3 and psql (for PostgreSQL). Prints a summary per backend; the README's figure
# comes from it.
set -euo pipefail
cd "$(dirname "$0")/.."

uploads="${1:-2000}"
if ! [[ "$uploads" =~ ^[0-9]+$ ]] || [ "$uploads" -lt 100 ]; then
  echo "usage: scripts/retention.sh [N >= 100]" >&2
  exit 2
fi
profile="${POGO_PROFILE:-release}"
cargo build --profile "$profile" -p pogo-server --bins >&2
bin="${CARGO_TARGET_DIR:-target}/$([ "$profile" = dev ] && echo debug || echo "$profile")"
work="$(mktemp -d -t pogo-retention-XXXXXX)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start DATABASE: a server on a free loopback port, rate limits off; sets $port, $server_pid.
start() {
  port="$(free_port)"
  "$bin/pogo-server" --database "$1" --listen "127.0.0.1:$port" --workers 2 \
    --token-rate 100000 --token-burst 100000 --address-rate 1000000 --address-burst 1000000 \
    --queue-max 100000 >"$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 100); do
    curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && return 0
    sleep 0.1
  done
  echo "the server did not start:" >&2
  cat "$work/server.log" >&2
  exit 1
}

# stop: SIGINT, the server's clean shutdown (SQLite checkpoints its WAL into the file).
stop() {
  kill -INT "$server_pid"
  wait "$server_pid" || true
  server_pid=""
}

load() {
  "$bin/pogo-loadgen" --server "http://127.0.0.1:$port" --uploads "$uploads" \
    --concurrency 8 --readers 1 --baseline-s 1 --max-s 1800 --tag "r$1" >"$work/loadgen-$1.log"
}

# report BACKEND BYTES_EMPTY BYTES_FULL VERIFIED REPLAY_BYTES_AVG
report() {
  python3 - "$@" <<'EOF'
import sys
backend, empty, full, verified, replay = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
per_run = (full - empty) / verified
print(f"{backend}: {verified} verified runs, {full - empty} bytes over the empty schema: "
      f"{per_run:.0f} bytes per run (replay file {replay:.0f} bytes); "
      f"1 M runs ≈ {per_run * 1e6 / 1e9:.2f} GB")
EOF
}

echo "== SQLite" >&2
db="$work/pogo.db"
start "$db"; stop
empty=$(stat -c %s "$db")
start "$db"; load sqlite; stop
full=$(stat -c %s "$db")
verified=$(sqlite3 "$db" "SELECT COUNT(*) FROM runs WHERE status = 'verified'")
replay=$(sqlite3 "$db" "SELECT AVG(size) FROM replays")
sqlite3 "$db" "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC" 2>/dev/null \
  | sed 's/^/  sqlite table or index|bytes: /' || true
report sqlite "$empty" "$full" "$verified" "$replay"

if [ -n "${POGO_TEST_POSTGRES_URL:-}" ] && psql "$POGO_TEST_POSTGRES_URL" -qc 'SELECT 1' >/dev/null 2>&1; then
  echo "== PostgreSQL" >&2
  name="pogo_retention_$$"
  psql "$POGO_TEST_POSTGRES_URL" -qc "CREATE DATABASE $name" >/dev/null
  url="${POGO_TEST_POSTGRES_URL%/*}/$name"
  sizes() {
    psql "$url" -tAc "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)
                      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                      WHERE n.nspname = 'public' AND c.relkind = 'r'"
  }
  start "$url"; stop
  psql "$url" -qc 'VACUUM ANALYZE' >/dev/null
  empty=$(sizes)
  start "$url"; load postgres; stop
  psql "$url" -qc 'VACUUM ANALYZE' >/dev/null
  full=$(sizes)
  verified=$(psql "$url" -tAc "SELECT COUNT(*) FROM runs WHERE status = 'verified'")
  replay=$(psql "$url" -tAc "SELECT AVG(size) FROM replays")
  psql "$url" -tAc "SELECT relname, pg_total_relation_size(oid) FROM pg_class
                    WHERE relname IN ('runs', 'replays', 'players', '_sqlx_migrations')
                    ORDER BY 2 DESC" | sed 's/^/  postgres table|bytes (rows, indexes, TOAST): /'
  echo "  pg_database_size: $(psql "$url" -tAc "SELECT pg_database_size(current_database())")"
  report postgres "$empty" "$full" "$verified" "$replay"
  psql "$POGO_TEST_POSTGRES_URL" -qc "DROP DATABASE $name WITH (FORCE)" >/dev/null
else
  echo "== PostgreSQL skipped: POGO_TEST_POSTGRES_URL is not set or not reachable" >&2
fi
