#!/usr/bin/env bash
# Memory of POST /api/v1/scans/import: a 1M-finding import (about 190 MiB,
# under the 256 MiB cap) and a body of "{" and 300 MiB of spaces (over the
# cap: a 413 as soon as the cap is crossed). Starts a daemon on a scratch
# database and prints the status, time and the daemon's peak RSS of each.
#
#   bench/import-memory.sh [path/to/scand]
#   FINDINGS=500000 SPACES=300 PORT=18767 bench/import-memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."
FINDINGS=${FINDINGS:-1000000}
SPACES=${SPACES:-300}
PORT=${PORT:-18767}
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
SVC_ADDR="127.0.0.1:$PORT" SVC_DB="$work/import.db" SVC_LOG_LEVEL=warn SVC_API_KEY=bench-import-key \
  SVC_RATE_LIMIT_ENABLED=false "$bin" 2>"$work/daemon.log" &
pid=$!
curl -fs --retry 50 --retry-delay 0 --retry-connrefused --max-time 5 "$base/ready" >/dev/null 2>&1 ||
  { cat "$work/daemon.log" >&2; echo "scand did not become ready" >&2; exit 1; }
go build -o "$work/import-memory" bench/import-memory.go
echo "scand import memory: $("$bin" version), $(nproc) CPUs"
echo "-- $FINDINGS findings"
"$work/import-memory" -url "$base" -key bench-import-key -pid "$pid" -findings "$FINDINGS"
echo "-- '{' and $SPACES MiB of spaces"
"$work/import-memory" -url "$base" -key bench-import-key -pid "$pid" -spaces "$SPACES"
