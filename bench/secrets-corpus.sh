#!/usr/bin/env bash
# bench/secrets-corpus.sh: scand's secrets scanner and gitleaks on a
# labeled corpus (default testdata/secrets/corpus; testdata/secrets/heldout
# is the held-out one): recall over its labeled true positives and findings
# on any other line (false positives), per tool. TestSecretsLabeledCorpus
# and TestSecretsHeldoutCorpus hold scand to the bars; this script adds the
# gitleaks column. gitleaks is found as in bench/secrets.sh ($GITLEAKS,
# PATH, or a pinned `go install` into the bench cache).
#
# Usage: bench/secrets-corpus.sh [CORPUS_DIR]
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=$(cd "${1:-$REPO/testdata/secrets/corpus}" && pwd)
if [ ! -f "$CORPUS/LABELS.tsv" ] || [ ! -d "$CORPUS/files" ]; then
	echo "$CORPUS: not a labeled corpus (needs LABELS.tsv and files/)" >&2
	exit 2
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/scand-secrets-corpus.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

GL=${GITLEAKS:-$(command -v gitleaks || true)}
if [ -z "$GL" ] && [ -x "${XDG_CACHE_HOME:-$HOME/.cache}/scand-bench/bin/gitleaks" ]; then
	GL="${XDG_CACHE_HOME:-$HOME/.cache}/scand-bench/bin/gitleaks"
fi

(cd "$REPO" && go run ./bench/secrets-driver.go "$CORPUS/files") >"$WORK/scand.jsonl"
args=(-labels "$CORPUS/LABELS.tsv" -scand "$WORK/scand.jsonl" -tree "$CORPUS/files")
if [ -n "$GL" ]; then
	"$GL" dir "$CORPUS/files" --report-format json --report-path "$WORK/gitleaks.json" \
		--no-banner --exit-code 0 --log-level error
	args+=(-gitleaks "$WORK/gitleaks.json")
	echo "gitleaks: $(go version -m "$GL" 2>/dev/null | awk '$1=="mod"{print $3}') ($GL)"
else
	echo "gitleaks not available (set GITLEAKS or run bench/secrets.sh once): scand only"
fi
(cd "$REPO" && go run ./bench/secrets-score.go "${args[@]}")
