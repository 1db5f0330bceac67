#!/usr/bin/env bash
# bench/image.sh: scanning a ~100 MB container image archive with scand
# against `trivy image --input` on the same archive, for the same scan
# types: scand's code + dependency (its secrets scanner, deleted-layer
# secrets, the dependency scanners, Trivy's vulnerability scan and the
# SBOM capture) against Trivy's secret + vuln scanners.
#
# The image is real and built without a registry: a Debian bookworm root
# made by mmdebstrap (variant essential, man pages, locales and gconv
# modules excluded: ~100 MB), plus an application layer (a package-lock.json
# and an AWS key) and a layer whose whiteout deletes the key, wrapped as a
# `docker save` archive by bench/image-build.go. It is cached per day under
# ${SCAND_TOOLS:-~/.cache/scand-tools}/bench.
#
# scand runs as the daemon (built from this checkout, dev mode, loopback):
# the time is from POST /api/v1/scans to the scan's completion, the memory
# the daemon's peak RSS (VmHWM) after the scans. Trivy and scand run RUNS
# times each (default 3); medians are printed.
#
# Needs mmdebstrap, trivy on PATH and SVC_TRIVY_CACHE (its offline
# database, as for scand's trivy scanner); the other wrapped scanners are
# used when installed, as in production.
# SVC_WORK_DIR is honoured (where scand unpacks; try a tmpfs).
#
# Usage: bench/image.sh            Targets: scand wall time <= 1.5 x
# Trivy's, scand peak RSS <= 200 MB.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
PORT=${PORT:-18766}
work=$(mktemp -d "${TMPDIR:-/tmp}/scand-image-bench.XXXXXX")
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
die() { echo "bench/image.sh: $*" >&2; exit 1; }
command -v mmdebstrap >/dev/null || die "mmdebstrap is not installed (apt-get install mmdebstrap)"
command -v trivy >/dev/null || die "trivy is not on PATH"
[ -n "${SVC_TRIVY_CACHE:-}" ] || die "SVC_TRIVY_CACHE is not set (Trivy's offline database folder)"

cache="${SCAND_TOOLS:-$HOME/.cache/scand-tools}/bench"
mkdir -p "$cache"
rootfs="$cache/debian-essential-$(date -u +%Y%m%d).tar"
if [ ! -s "$rootfs" ]; then
  echo "== building the Debian root with mmdebstrap (once a day)"
  mmdebstrap --variant=essential --quiet \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-exclude=/usr/lib/x86_64-linux-gnu/gconv/*' bookworm "$rootfs.partial.tar"
  mv "$rootfs.partial.tar" "$rootfs"
fi
image="$work/image.tar"
go run ./bench/image-build.go "$rootfs" testdata/wrappers/tree/webapp/package-lock.json "$image"
echo "== image: $(du -m "$image" | cut -f1) MB docker archive, $(tar tf "$rootfs" | wc -l) entries in the root"

median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
now_ms() { local t=${EPOCHREALTIME/./}; echo $(( t / 1000 )); }

echo "== trivy image --input (secret, vuln), $RUNS runs"
trivy_ms=()
for ((i = 0; i < RUNS; i++)); do
  start=$(now_ms)
  trivy image --input "$image" --scanners vuln,secret --format json --quiet --cache-dir "$SVC_TRIVY_CACHE" \
    --cache-backend memory --skip-db-update --skip-java-db-update --offline-scan --skip-version-check \
    --disable-telemetry >"$work/trivy.json"
  trivy_ms+=($(( $(now_ms) - start )))
done
/usr/bin/time -f "%M" -o "$work/trivy.rss" trivy image --input "$image" --scanners vuln,secret --format json --quiet \
  --cache-dir "$SVC_TRIVY_CACHE" --cache-backend memory --skip-db-update --skip-java-db-update --offline-scan \
  --skip-version-check --disable-telemetry >/dev/null 2>&1 || true

echo "== scand (code + dependency), $RUNS scans"
go build -o "$work/scand" .
SVC_ADDR="127.0.0.1:$PORT" SVC_DB="$work/scand.db" SVC_LOG_LEVEL=warn SVC_RATE_LIMIT_ENABLED=false "$work/scand" 2>"$work/scand.log" &
pid=$!
for ((i = 0; i < 200; i++)); do
  curl -fsS "http://127.0.0.1:$PORT/ready" >/dev/null 2>&1 && break
  sleep 0.05
done
scand_ms=()
for ((i = 0; i < RUNS; i++)); do
  start=$(now_ms)
  id=$(curl -fsS -X POST "http://127.0.0.1:$PORT/api/v1/scans" -H 'Content-Type: application/json' \
    -d "{\"target_image\":{\"path\":\"$image\"},\"scan_types\":[\"code\",\"dependency\"]}" | sed 's/.*"id":"\([^"]*\)".*/\1/')
  while :; do
    status=$(curl -fsS "http://127.0.0.1:$PORT/api/v1/scans/$id" | sed 's/.*"status":"\([a-z]*\)".*/\1/')
    case $status in completed) break ;; failed | cancelled) die "scan $id $status: $(curl -fsS "http://127.0.0.1:$PORT/api/v1/scans/$id")" ;; esac
    sleep 0.02
  done
  scand_ms+=($(( $(now_ms) - start )))
done
rss_kb=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
summary=$(curl -fsS "http://127.0.0.1:$PORT/api/v1/scans/$id/summary")
kill "$pid"; wait "$pid" || true; pid=""

t=$(median "${trivy_ms[@]}")
s=$(median "${scand_ms[@]}")
echo "trivy:  median ${t} ms (runs: ${trivy_ms[*]}), peak RSS $(( $(cat "$work/trivy.rss" 2>/dev/null || echo 0) / 1024 )) MB"
echo "scand:  median ${s} ms (runs: ${scand_ms[*]}), daemon peak RSS $(( rss_kb / 1024 )) MB"
echo "scand/trivy wall time: $(awk -v s="$s" -v t="$t" 'BEGIN { printf "%.2f", s / t }') (target <= 1.5); peak RSS target <= 200 MB"
echo "last scan: $summary"
