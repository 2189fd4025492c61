#!/usr/bin/env bash
# Starts PostgreSQL 15 on loopback for pogo-server's tests and prints the URL they read
# (POGO_TEST_POSTGRES_URL): role `pogo` (password `pogo`, may create databases — each test
# makes its own and drops it) and database `pogo` on 127.0.0.1:5432.
#
#   export POGO_TEST_POSTGRES_URL="$(bash scripts/postgres.sh)"
#
# Runs as root on Debian 12 (PostgreSQL 15 is bookworm's `postgresql`); installs it if
# missing, creates and starts the `15/main` cluster if needed, creates the role and the
# database if missing. Idempotent: a second run changes nothing and prints the same URL.
# Everything but the URL goes to stderr.
set -euo pipefail
exec 3>&1 1>&2

PG_VERSION=15
ROLE=pogo
PASSWORD=pogo
DATABASE=pogo
PORT=5432

if [ ! -x "/usr/lib/postgresql/$PG_VERSION/bin/postgres" ]; then
  echo "postgres.sh: installing postgresql-$PG_VERSION"
  apt-get update -qq || true
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "postgresql-$PG_VERSION" >/dev/null
fi
# The server outlives this script: it must not inherit fd 3 (the caller's `$(...)` would wait
# for it forever) nor the caller's stdout/stderr (a CI log pipe would never close). Its own
# messages go to a file, printed when the start fails; it logs to /var/log/postgresql.
detached() {
  local out rc=0
  out="$(mktemp)"
  "$@" </dev/null >"$out" 2>&1 3>&- || rc=$?
  if [ "$rc" -ne 0 ]; then cat "$out"; fi
  rm -f "$out"
  return "$rc"
}
if ! pg_lsclusters -h | awk '{print $1" "$2}' | grep -qx "$PG_VERSION main"; then
  detached pg_createcluster "$PG_VERSION" main --port "$PORT"
fi
if ! pg_lsclusters -h | awk -v v="$PG_VERSION" '$1 == v && $2 == "main" {print $4}' | grep -qx online; then
  detached pg_ctlcluster "$PG_VERSION" main start
fi
port="$(pg_lsclusters -h | awk -v v="$PG_VERSION" '$1 == v && $2 == "main" {print $3}')"

psql_admin() { su postgres -c "psql -p $port -v ON_ERROR_STOP=1 -qtAc \"$1\""; }
# Wait for the server to accept connections (a fresh start takes a moment).
for _ in $(seq 1 50); do
  psql_admin "SELECT 1" >/dev/null 2>&1 && break
  sleep 0.2
done
if [ "$(psql_admin "SELECT 1 FROM pg_roles WHERE rolname = '$ROLE'")" != 1 ]; then
  psql_admin "CREATE ROLE $ROLE LOGIN CREATEDB PASSWORD '$PASSWORD'"
fi
if [ "$(psql_admin "SELECT 1 FROM pg_database WHERE datname = '$DATABASE'")" != 1 ]; then
  psql_admin "CREATE DATABASE $DATABASE OWNER $ROLE"
fi

echo "postgres.sh: PostgreSQL $PG_VERSION on 127.0.0.1:$port, role $ROLE, database $DATABASE"
echo "postgres://$ROLE:$PASSWORD@127.0.0.1:$port/$DATABASE" >&3
