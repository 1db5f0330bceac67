#!/usr/bin/env bash
# Startup benchmark: time from exec of the built binary to GET /ready
# answering 200, over RUNS starts, and the idle RSS of the started daemon.
# Targets (2-core machine): median start <= 150 ms, idle RSS <= 30 MB.
#
#   bench/startup.sh [path/to/scand]      (builds one when no path is given)
#   RUNS=20 PORT=18765 bench/startup.sh
#
# Polling uses bash's /dev/tcp and a FIFO-based sub-millisecond wait, so
# the measuring loop forks nothing and steals no CPU from the daemon.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-20}
PORT=${PORT:-18765}
work=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

bin=${1:-}
if [ -z "$bin" ]; then
  bin="$work/scand"
  go build -o "$bin" .
fi
if { exec 3<>"/dev/tcp/127.0.0.1/$PORT"; } 2>/dev/null; then
  echo "port $PORT is busy; set PORT" >&2
  exit 1
fi

mkfifo "$work/tick"
exec 9<>"$work/tick"
nap() { read -r -t 0.001 -u 9 || true; }

ready() {
  { exec 3<>"/dev/tcp/127.0.0.1/$PORT"; } 2>/dev/null || return 1
  printf 'GET /ready HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
  local status=""
  read -r -t 2 status <&3 || true
  exec 3>&- 3<&-
  [[ $status == *" 200 "* ]]
}

now_us() { local t=${EPOCHREALTIME/./}; echo "$t"; }

measure() { # $1 = label, $2 = fresh|existing
  local label=$1 mode=$2 times=() rss=()
  local db="$work/existing.db"
  for ((i = 0; i < RUNS; i++)); do
    if [ "$mode" = fresh ]; then db="$work/fresh-$i.db"; fi
    local start end
    start=$(now_us)
    SVC_ADDR="127.0.0.1:$PORT" SVC_DB="$db" SVC_LOG_LEVEL=warn "$bin" 2>/dev/null &
    pid=$!
    until ready; do
      kill -0 "$pid" 2>/dev/null || { echo "scand exited during startup" >&2; exit 1; }
      nap
    done
    end=$(now_us)
    times+=($(( (end - start) / 100 )))  # tenths of a millisecond
    if [ "$i" -lt 5 ]; then
      sleep 1
      rss+=("$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")")
    fi
    kill "$pid"
    wait "$pid" || { echo "scand did not exit 0 on SIGTERM" >&2; exit 1; }
    pid=""
  done
  local sorted
  sorted=($(printf '%s\n' "${times[@]}" | sort -n))
  local n=${#sorted[@]}
  local med=${sorted[$(( (n - 1) / 2 ))]} p90=${sorted[$(( (n * 9 + 9) / 10 - 1 ))]} max=${sorted[$(( n - 1 ))]}
  local rss_sorted
  rss_sorted=($(printf '%s\n' "${rss[@]}" | sort -n))
  local rss_med=${rss_sorted[$(( (${#rss_sorted[@]} - 1) / 2 ))]}
  printf '%-22s runs=%d  start median=%d.%d ms  p90=%d.%d ms  max=%d.%d ms  idle RSS median=%d.%d MB\n' \
    "$label" "$n" $((med / 10)) $((med % 10)) $((p90 / 10)) $((p90 % 10)) $((max / 10)) $((max % 10)) \
    $((rss_med / 1024)) $(( (rss_med % 1024) * 10 / 1024 ))
}

# Create the schema once so "existing" measures a plain restart.
SVC_ADDR="127.0.0.1:$PORT" SVC_DB="$work/existing.db" SVC_LOG_LEVEL=warn "$bin" 2>/dev/null &
pid=$!
until ready; do nap; done
kill "$pid"; wait "$pid" || true; pid=""

echo "scand startup: $("$bin" version), $(nproc) CPUs"
measure "existing database" existing
measure "fresh database" fresh
