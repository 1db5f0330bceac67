#!/usr/bin/env bash
# bench/secrets.sh: speed and accuracy of scand's built-in secrets scanner
# against gitleaks on the same tree.
#
# It copies $(go env GOROOT)/src to a temporary directory, plants N (default
# 150, at least 100) synthetic secrets of ~30 kinds at recorded file:line
# positions (bench/secrets-plant.go), then runs
#   - scand's secrets scanner through bench/secrets-driver.go (built first,
#     so compile time is not measured; history scan off: not a git repo),
#   - gitleaks `dir` with its default rules and a JSON report,
# and prints wall and CPU time, recall on the planted set and the findings
# off the planted lines for both (bench/secrets-score.go).
#
# gitleaks is only a point of comparison, never a dependency of scand. It is
# taken from $GITLEAKS, else PATH, else installed with `go install` of a
# pinned version into ${XDG_CACHE_HOME:-~/.cache}/scand-bench/bin.
#
# Usage: bench/secrets.sh [N] [SEED]        (run from anywhere)
# Targets (from the issue): scand wall time <= 1/10 of gitleaks', recall
# >= 0.95, no more off-plant findings than gitleaks.
set -euo pipefail

N=${1:-150}
SEED=${2:-1}
if [ "$N" -lt 100 ]; then
	echo "N must be at least 100" >&2
	exit 2
fi
REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/scand-secrets-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

find_gitleaks() {
	if [ -n "${GITLEAKS:-}" ]; then
		echo "$GITLEAKS"
		return
	fi
	if command -v gitleaks >/dev/null 2>&1; then
		command -v gitleaks
		return
	fi
	local bin="${XDG_CACHE_HOME:-$HOME/.cache}/scand-bench/bin"
	if [ -x "$bin/gitleaks" ]; then
		echo "$bin/gitleaks"
		return
	fi
	mkdir -p "$bin"
	for v in v8.28.0 v8.27.2 v8.26.0 v8.24.3 v8.21.2; do
		echo "installing gitleaks $v for the comparison..." >&2
		if GOBIN="$bin" GOFLAGS=-mod=mod go install "github.com/zricethezav/gitleaks/v8@$v" >&2; then
			echo "$bin/gitleaks"
			return
		fi
	done
	echo ""
}

# timed LABEL OUTFILE CMD...: runs CMD with stdout to OUTFILE and records
# "wall user sys" seconds in $WORK/LABEL.time.
timed() {
	local label=$1 out=$2
	shift 2
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f "%e %U %S" -o "$WORK/$label.time" "$@" >"$out"
	else
		local TIMEFORMAT="%R %U %S"
		{ time "$@" >"$out"; } 2>"$WORK/$label.time"
	fi
}

echo "== tree: $(go env GOROOT)/src, $N planted secrets, seed $SEED"
cp -r "$(go env GOROOT)/src" "$WORK/tree"
chmod -R u+w "$WORK/tree"
(cd "$REPO" && go run ./bench/secrets-plant.go -n "$N" -seed "$SEED" "$WORK/tree") >"$WORK/planted.jsonl"
echo "   $(find "$WORK/tree" -type f | wc -l) files, $(du -sh "$WORK/tree" | cut -f1)"

(cd "$REPO" && go build -o "$WORK/scand-secrets" ./bench/secrets-driver.go)
GL=$(find_gitleaks)

# Warm the page cache once so that neither tool pays for the first read.
find "$WORK/tree" -type f -print0 | xargs -0 cat >/dev/null

timed scand "$WORK/scand.jsonl" "$WORK/scand-secrets" "$WORK/tree"
if [ -n "$GL" ]; then
	timed gitleaks /dev/null "$GL" dir "$WORK/tree" --report-format json --report-path "$WORK/gitleaks.json" \
		--no-banner --exit-code 0 --log-level error
fi

echo
echo "== time (seconds)"
printf "%-9s %8s %8s %8s\n" tool wall user sys
printf "%-9s %8s %8s %8s\n" scand $(cat "$WORK/scand.time")
if [ -n "$GL" ]; then
	printf "%-9s %8s %8s %8s\n" gitleaks $(cat "$WORK/gitleaks.time")
	glv=$(go version -m "$GL" 2>/dev/null | awk '$1=="mod"{print $3}')
	echo "   gitleaks ${glv:-unknown version} ($GL)"
	awk -v a="$(cut -d' ' -f1 "$WORK/scand.time")" -v b="$(cut -d' ' -f1 "$WORK/gitleaks.time")" \
		'BEGIN { if (b > 0) printf "   scand wall / gitleaks wall = %.4f (target <= 0.1)\n", a / b }'
else
	echo "   gitleaks not available: comparison skipped"
fi

echo
echo "== accuracy"
args=(-planted "$WORK/planted.jsonl" -scand "$WORK/scand.jsonl" -tree "$WORK/tree")
if [ -n "$GL" ]; then
	args+=(-gitleaks "$WORK/gitleaks.json")
fi
(cd "$REPO" && go run ./bench/secrets-score.go "${args[@]}")
