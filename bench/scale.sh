#!/usr/bin/env bash
# bench/scale.sh: scand at 10k, 100k and 1M findings (issue 13).
#
# Builds the binary, writes for each size N a tree in which the built-in
# secrets scanner finds exactly N secrets (bench/scale-tree.go; 2 % of them
# suppressed inline), then runs bench/scale-driver.go against a fresh
# daemon per size: ingest through POST /scans, findings pages by cursor
# with and without filters, the NDJSON export, compare, SARIF, HTML,
# coverage, dashboard stats/trends, DELETE + vacuum, each with the
# daemon's peak RSS (VmHWM), plus 32 readers and a comment writer during
# an ingest. The last size also times the dashboard over SMALL small scans.
#
# Usage: bench/scale.sh [SIZES] [SMALL]     e.g. bench/scale.sh "10000 100000 1000000" 10000
# Bars (issue 13, at 1M): ingest <= 30 s and <= 300 MB RSS; every page <=
# 20 ms; compare <= 10 s; SARIF/HTML <= 1.5 x the NDJSON export; stats and
# trends <= 50 ms (also with 10k scans); 0 errors and writer p99 <= 500 ms
# under concurrency; DELETE <= 10 s and the file back within 10 %.
# Figures depend on the machine: print `uptime` with them.
set -euo pipefail

SIZES=${1:-"10000 100000 1000000"}
SMALL=${2:-10000}
REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/scand-scale.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

(cd "$REPO" && go build -o "$WORK/scand" . && go build -o "$WORK/driver" ./bench/scale-driver.go)
echo "== $(uptime)"
last=${SIZES##* }
for n in $SIZES; do
	(cd "$REPO" && go run ./bench/scale-tree.go -n "$n" "$WORK/tree-$n")
	echo "== N=$n: $(find "$WORK/tree-$n" -type f | wc -l) files, $(du -sh "$WORK/tree-$n" | cut -f1)"
	small=0
	[ "$n" = "$last" ] && small=$SMALL
	mkdir -p "$WORK/run-$n"
	"$WORK/driver" -bin "$WORK/scand" -tree "$WORK/tree-$n" -n "$n" -small "$small" -work "$WORK/run-$n"
	rm -rf "$WORK/tree-$n" "$WORK/run-$n"
	echo "== $(uptime)"
done
