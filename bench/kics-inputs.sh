#!/usr/bin/env bash
# bench/kics-inputs.sh: what handing KICS only its files saves (issue 23).
#
# Builds a tree shaped like a JavaScript application: mostly JS and
# TypeScript sources, JSON translation catalogues and package manifests,
# an installed node_modules, plus a few IaC files (the wrapper fixture's
# Terraform, Kubernetes manifest and Dockerfile). Then runs
# `scand scan --type iac --scanners kics` with each binary given and prints
# the wall time and the findings, which must be the same for both: the
# time saved must not cost a finding.
#
# Usage: bench/kics-inputs.sh BINARY [BINARY...]   (kics on PATH or
# SVC_KICS_PATH/SVC_KICS_QUERIES set, as for the integration tests)
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: $0 BINARY [BINARY...]" >&2; exit 2; }
REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/scand-kics-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
TREE=$WORK/app

mkdir -p "$TREE"
cp -r "$REPO/testdata/wrappers/tree/infra" "$REPO/testdata/wrappers/tree/Dockerfile" "$TREE/"
for i in $(seq 1 40); do
	d=$TREE/src/module$i
	mkdir -p "$d" "$TREE/frontend/src/app/c$i"
	for j in $(seq 1 25); do
		printf 'export function f%d(x) {\n  return x * %d + "%s";\n}\n' "$j" "$j" "$(head -c 300 /dev/zero | tr '\0' a)" > "$d/f$j.js"
		printf 'export const c%d: number = %d;\n' "$j" "$j" > "$TREE/frontend/src/app/c$i/c$j.ts"
	done
	printf '{"name":"module%d","version":"1.0.%d","dependencies":{"lodash":"^4.17.21"}}\n' "$i" "$i" > "$d/package.json"
done
mkdir -p "$TREE/frontend/src/assets/i18n" "$TREE/data/static"
for i in $(seq 1 60); do
	{ printf '{'; for j in $(seq 1 400); do printf '"KEY_%d":"Translated text number %d for locale %d",' "$j" "$j" "$i"; done; printf '"END":"x"}\n'; } > "$TREE/frontend/src/assets/i18n/l$i.json"
done
for i in $(seq 1 30); do
	printf 'challenge%d:\n  name: "Challenge %d"\n  difficulty: %d\n  hint: "look closer"\n' "$i" "$i" "$((i % 6))" > "$TREE/data/static/c$i.yml"
done
printf '{"name":"app","version":"1.0.0"}\n' > "$TREE/package.json"
printf '{"compilerOptions":{"strict":true}}\n' > "$TREE/tsconfig.json"
# An installed dependency tree, as in a checkout where npm install ran.
for i in $(seq 1 150); do
	d=$TREE/node_modules/pkg$i
	mkdir -p "$d/lib"
	printf '{"name":"pkg%d","version":"1.0.0"}\n' "$i" > "$d/package.json"
	for j in $(seq 1 10); do printf 'module.exports = %d;\n' "$j" > "$d/lib/m$j.js"; done
	printf 'key: value%d\n' "$i" > "$d/.travis.yml"
done
printf 'tree: %d files, %d of them under node_modules\n' "$(find "$TREE" -type f | wc -l)" "$(find "$TREE/node_modules" -type f | wc -l)"

for bin in "$@"; do
	start=$(date +%s.%N)
	"$bin" scan "$TREE" --type iac --scanners kics --format json -o "$WORK/out.json" -quiet || true
	end=$(date +%s.%N)
	n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["findings"]), sorted({f["file_path"] for f in d["findings"]}))' "$WORK/out.json")
	printf '%s: %.1f s, findings: %s\n' "$bin" "$(echo "$end - $start" | bc)" "$n"
done
