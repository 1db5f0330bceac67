#!/usr/bin/env bash
# bench/secrets-renamed.sh: a labeled part scored with its file names
# stripped of what they say about the format (every "." in a file's path
# under files/ becomes "_": tp/0001/key.env -> tp/0001/key_env), or with
# each example written into a Markdown document's code block of no
# language (tp/0001/key.env.md, five lines of prose and fence first), for
# scand and gitleaks through bench/secrets-corpus.sh. An outside set need
# not name its examples' files after their format; this shows what a
# scanner loses when the name says nothing (docs/secrets.md, rounds 31
# and 32).
#
# Usage: bench/secrets-renamed.sh testdata/secrets/families/PART [noext|markdown]
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
PART=$(cd "${1:?usage: $0 PART_DIR}" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/scand-secrets-renamed.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

MODE=${2:-noext}
case "$MODE" in
noext) rename() { printf '%s' "$1" | tr . _; } ;;
markdown) rename() { printf '%s.md' "$1"; } ;;
*)
	echo "mode: noext or markdown, not $MODE" >&2
	exit 2
	;;
esac
mkdir -p "$WORK/files"
(cd "$PART/files" && find . -type f -printf '%P\n') | while IFS= read -r rel; do
	new=$(rename "$rel")
	mkdir -p "$WORK/files/$(dirname "$new")"
	if [ "$MODE" = markdown ]; then
		{
			printf '# Example\n\nSet it like this:\n\n```\n'
			cat "$PART/files/$rel"
			[ -z "$(tail -c 1 "$PART/files/$rel")" ] || echo
			printf '```\n'
		} >"$WORK/files/$new"
	else
		cp "$PART/files/$rel" "$WORK/files/$new"
	fi
done
awk -F'\t' -v mode="$MODE" 'BEGIN { OFS = "\t" } /^#/ || NF == 0 { print; next }
	mode == "noext" { gsub(/\./, "_", $1); print; next }
	{ $1 = $1 ".md"; if ($2 > 0) $2 += 5; print }' "$PART/LABELS.tsv" >"$WORK/LABELS.tsv"
"$REPO/bench/secrets-corpus.sh" "$WORK"
