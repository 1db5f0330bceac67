#!/usr/bin/env bash
# bench/cli.sh: the command line's two speed bars (issue 14).
#
#   1. `scand scan --scanners secrets $(go env GOROOT)/src` against
#      `gitleaks dir` on the same tree, in the same run: target scand wall
#      <= 0.10 x gitleaks wall. scand's time is the whole command: process
#      start, the temporary store, the scan, dedup, the ingest and the text
#      report.
#   2. `scand scan` of an empty directory (default types code,dependency):
#      target <= 100 ms. Run it with the wrapped tools installed
#      (`. /work/scanners.env` or .ci/install-scanners.sh's PATH) to show
#      that tools with nothing to read are never started.
#
# gitleaks is only a point of comparison, never a dependency of scand; it
# is found as in bench/secrets.sh ($GITLEAKS, PATH, or `go install` of a
# pinned version into ${XDG_CACHE_HOME:-~/.cache}/scand-bench/bin).
#
# Usage: bench/cli.sh [RUNS]     (default 5; medians are reported)
set -euo pipefail

RUNS=${1:-5}
REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/scand-cli-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
TREE=$(go env GOROOT)/src

find_gitleaks() {
	if [ -n "${GITLEAKS:-}" ]; then echo "$GITLEAKS"; return; fi
	if command -v gitleaks >/dev/null 2>&1; then command -v gitleaks; return; fi
	local bin="${XDG_CACHE_HOME:-$HOME/.cache}/scand-bench/bin"
	if [ -x "$bin/gitleaks" ]; then echo "$bin/gitleaks"; return; fi
	mkdir -p "$bin"
	for v in v8.28.0 v8.27.2 v8.26.0; do
		echo "installing gitleaks $v for the comparison..." >&2
		if GOBIN="$bin" GOFLAGS=-mod=mod go install "github.com/zricethezav/gitleaks/v8@$v" >&2; then
			echo "$bin/gitleaks"; return
		fi
	done
	echo ""
}

# wall CMD...: prints the wall time of one run in seconds (stdout and
# stderr of CMD discarded; its exit status is ignored: scand exits 0 here,
# gitleaks 1 when it finds something).
wall() {
	local s e
	s=$(date +%s%N)
	"$@" >/dev/null 2>&1 || true
	e=$(date +%s%N)
	awk -v d=$((e - s)) 'BEGIN { printf "%.4f\n", d / 1e9 }'
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

(cd "$REPO" && go build -o "$WORK/scand" .)
GL=$(find_gitleaks)
echo "== scand $("$WORK/scand" version)"
echo "   tools on PATH: $(for t in bandit gosec eslint osv-scanner govulncheck trivy kics nmap; do command -v $t >/dev/null 2>&1 && printf '%s ' $t; done)"

echo
echo "== 1. secrets on $TREE ($(find "$TREE" -type f | wc -l) files), $RUNS runs each, medians"
find "$TREE" -type f -print0 | xargs -0 cat >/dev/null # warm the page cache for both
for i in $(seq "$RUNS"); do wall "$WORK/scand" scan --scanners secrets -quiet "$TREE"; done | median >"$WORK/scand.wall"
echo "   scand scan --scanners secrets:  $(cat "$WORK/scand.wall") s"
if [ -n "$GL" ]; then
	for i in $(seq "$RUNS"); do
		wall "$GL" dir "$TREE" --report-format json --report-path "$WORK/gl.json" --no-banner --exit-code 0 --log-level error
	done | median >"$WORK/gl.wall"
	echo "   gitleaks dir:                   $(cat "$WORK/gl.wall") s ($(go version -m "$GL" 2>/dev/null | awk '$1=="mod"{print $3}'))"
	awk -v a="$(cat "$WORK/scand.wall")" -v b="$(cat "$WORK/gl.wall")" \
		'BEGIN { if (b > 0) printf "   scand / gitleaks = %.4f (target <= 0.10)\n", a / b }'
else
	echo "   gitleaks not available: comparison skipped"
fi

echo
echo "== 2. scand scan of an empty directory, $((RUNS * 4)) runs"
mkdir "$WORK/empty"
for i in $(seq $((RUNS * 4))); do wall "$WORK/scand" scan -quiet "$WORK/empty"; done >"$WORK/empty.wall"
printf "   median %.0f ms, max %.0f ms (target <= 100 ms)\n" \
	"$(median <"$WORK/empty.wall" | awk '{ print $1 * 1000 }')" "$(sort -n "$WORK/empty.wall" | tail -1 | awk '{ print $1 * 1000 }')"
