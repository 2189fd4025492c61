#!/usr/bin/env bash
# Schema-driven fuzzing of pogo-server's HTTP API: schemathesis (pinned below, from PyPI, in
# a virtualenv under target/) reads the server's own OpenAPI document and sends every route
# generated requests — valid, boundary and malformed parameters and bodies, and stateful
# sequences through the documented links — and fails on any 5xx or dropped connection
# (`not_a_server_error`). Three passes: no token, a player's token, the admin token.
#
#   bash scripts/api-fuzz.sh              # 25 examples per route and pass (about 2 minutes)
#   EXAMPLES=200 SEED=7 bash scripts/api-fuzz.sh
#
# Against a debug pogo-server on a fresh SQLite file with rate limits lifted (so that the
# requests reach the handlers instead of the limiter). Seeded: the seed is printed; the same
# seed sends the same requests. Found the export's panic under gzip (tests/api.rs,
# `the_board_exports_as_csv_and_json`).
set -euo pipefail
cd "$(dirname "$0")/.."

SCHEMATHESIS_VERSION=4.32.5
examples="${EXAMPLES:-25}"
seed="${SEED:-$(( $(date +%s) % 100000 ))}"
profile="${POGO_PROFILE:-debug}"
bin="${CARGO_TARGET_DIR:-target}/$profile/pogo-server"
venv="${CARGO_TARGET_DIR:-target}/schemathesis-$SCHEMATHESIS_VERSION"

if [ ! -x "$venv/bin/schemathesis" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi
if [ ! -x "$bin" ]; then
  echo "api-fuzz: $bin is missing; cargo build -p pogo-server first" >&2
  exit 1
fi

work="$(mktemp -d -t pogo-api-fuzz-XXXXXX)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

port=18557
admin="fuzz-admin-token-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
ADMIN_TOKEN="$admin" "$bin" --database "sqlite:$work/fuzz.db" --listen "127.0.0.1:$port" \
  --workers 1 --token-rate 100000 --token-burst 100000 \
  --address-rate 100000 --address-burst 100000 >"$work/server.log" 2>&1 &
server_pid=$!
base="http://127.0.0.1:$port"
for _ in $(seq 1 100); do
  curl -sf "$base/healthz" >/dev/null 2>&1 && break
  sleep 0.2
done
player_token="$(curl -sf -X POST "$base/api/players" -H 'content-type: application/json' \
  -d '{"name":"fuzzer"}' | python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')"

echo "api-fuzz: schemathesis $SCHEMATHESIS_VERSION, $examples examples per route, seed $seed"
status=0
for pass in anonymous player admin; do
  auth=()
  case "$pass" in
    player) auth=(-H "Authorization: Bearer $player_token") ;;
    admin) auth=(-H "Authorization: Bearer $admin") ;;
  esac
  echo "== $pass"
  if ! "$venv/bin/schemathesis" run "$base/api/openapi.json" "${auth[@]}" \
      --checks not_a_server_error --max-examples "$examples" --seed "$seed" --workers 1 \
      --no-color >"$work/$pass.out" 2>&1; then
    status=1
    cat "$work/$pass.out"
  else
    grep -E "^ *(Test cases|[0-9]+ generated)|passed|in [0-9.]+s" "$work/$pass.out" | tail -3
  fi
done
if grep -q "panicked" "$work/server.log"; then
  echo "api-fuzz: the server panicked:" >&2
  grep -A3 "panicked" "$work/server.log" >&2
  status=1
fi
if ! kill -0 "$server_pid" 2>/dev/null; then
  echo "api-fuzz: the server died" >&2
  status=1
fi
exit "$status"
