#!/usr/bin/env bash
# Authenticated throughput: GET /api/v1/keys/me with an issued (DB) key,
# which costs a key lookup, a hash check and a last_used_at write per
# request. Starts the daemon on a scratch database, issues the key, then
# loads it with bench/keys_load.go (and wrk, when installed).
#
#   bench/keys_load.sh [path/to/scand]
#   CONNS=16 DURATION=10s PORT=18766 bench/keys_load.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CONNS=${CONNS:-16}
DURATION=${DURATION:-10s}
PORT=${PORT:-18766}
work=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

bin=${1:-}
if [ -z "$bin" ]; then
  bin="$work/scand"
  go build -o "$bin" .
fi
base="http://127.0.0.1:$PORT"
SVC_ADDR="127.0.0.1:$PORT" SVC_DB="$work/load.db" SVC_LOG_LEVEL=warn "$bin" 2>"$work/daemon.log" &
pid=$!
curl -fs --retry 50 --retry-delay 0 --retry-connrefused --max-time 5 "$base/ready" >/dev/null 2>&1 ||
  { cat "$work/daemon.log" >&2; echo "scand did not become ready" >&2; exit 1; }

key_of() { sed -n 's/.*"key":"\([^"]*\)".*/\1/p'; }
# Dev mode: the first (admin) key needs no credential; it ends dev mode.
admin=$(curl -fsS -X POST "$base/api/v1/keys" -H 'Content-Type: application/json' \
  -d '{"name":"bench-admin","scopes":["admin"]}' | key_of)
key=$(curl -fsS -X POST "$base/api/v1/keys" -H "X-API-Key: $admin" -H 'Content-Type: application/json' \
  -d '{"name":"bench-read","scopes":["read"]}' | key_of)
[ -n "$key" ] || { echo "could not issue a key" >&2; exit 1; }
curl -fsS "$base/api/v1/keys/me" -H "X-API-Key: $key" >/dev/null

echo "scand keys/me load: $("$bin" version), $(nproc) CPUs, $CONNS connections, $DURATION"
go run bench/keys_load.go -url "$base/api/v1/keys/me" -key "$key" -c "$CONNS" -d "$DURATION"
if command -v wrk >/dev/null; then
  wrk -t2 -c"$CONNS" -d"$DURATION" --latency -H "X-API-Key: $key" "$base/api/v1/keys/me" |
    grep -E 'Requests/sec|99%|90%|50%|Non-2xx|Socket errors'
fi
echo "RSS after load: $(awk '/^VmRSS:/ { print $2 / 1024 " MB" }' "/proc/$pid/status")"
