#!/usr/bin/env bash
# bench/backup.sh: issue 29's figures at N findings (default 1M) and T
# targets (default 1000): GET /metrics latency, `scand backup` beside the
# running daemon (time, peak RSS), POST /admin/backup (time, the daemon's
# peak RSS) and `scand restore`. The database is built as bench/scale.sh
# builds it: a tree in which the secrets scanner finds N secrets
# (bench/scale-tree.go), scanned through POST /scans.
#
# Usage: bench/backup.sh [N] [T]
# Bars (issue 29): a scrape at 1M findings and 1,000 targets <= 50 ms;
# backup of a 1M-finding database: peak RSS <= 300 MB.
# Figures depend on the machine: print `uptime` with them.
set -euo pipefail
N=${1:-1000000}
T=${2:-1000}
REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/scand-backup.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
(cd "$REPO" && go build -o "$WORK/scand" . && go build -o "$WORK/driver" ./bench/backup-driver.go)
echo "== $(uptime)"
(cd "$REPO" && go run ./bench/scale-tree.go -n "$N" "$WORK/tree")
echo "== N=$N: $(find "$WORK/tree" -type f | wc -l) files, $(du -sh "$WORK/tree" | cut -f1)"
mkdir -p "$WORK/run"
"$WORK/driver" -bin "$WORK/scand" -tree "$WORK/tree" -n "$N" -targets "$T" -work "$WORK/run"
echo "== $(uptime)"
