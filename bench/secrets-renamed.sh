#!/usr/bin/env bash
# bench/secrets-renamed.sh: a labeled part scored with its file names
# stripped of what they say about the format (every "." in a file's path
# under files/ becomes "_": tp/0001/key.env -> tp/0001/key_env), for scand
# and gitleaks through bench/secrets-corpus.sh. An outside set need not
# name its examples' files after their format; this shows what a scanner
# loses when the name says nothing (docs/secrets.md, round 31).
#
# Usage: bench/secrets-renamed.sh testdata/secrets/families/PART
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
PART=$(cd "${1:?usage: $0 PART_DIR}" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/scand-secrets-renamed.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

rename() { printf '%s' "$1" | tr . _; }
mkdir -p "$WORK/files"
(cd "$PART/files" && find . -type f -printf '%P\n') | while IFS= read -r rel; do
	new=$(rename "$rel")
	mkdir -p "$WORK/files/$(dirname "$new")"
	cp "$PART/files/$rel" "$WORK/files/$new"
done
awk -F'\t' 'BEGIN { OFS = "\t" } /^#/ || NF == 0 { print; next } { gsub(/\./, "_", $1); print }' \
	"$PART/LABELS.tsv" >"$WORK/LABELS.tsv"
"$REPO/bench/secrets-corpus.sh" "$WORK"
