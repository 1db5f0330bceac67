#!/usr/bin/env bash
# Validates every SBOM golden file in this directory against the official
# CycloneDX 1.5 and SPDX 2.3 JSON schemas, then checks that the validator
# really rejects a broken document (so a misconfigured ajv cannot pass
# everything). Exits non-zero on any failure.
#
# Needs ajv-cli and ajv-formats from npm:  npm i -g ajv-cli ajv-formats
# Schemas: testdata/schemas of this repository.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
schemas=$(cd "$here/../schemas" && pwd)
if ! command -v ajv >/dev/null 2>&1; then
  echo "validate.sh: ajv not found; install it with: npm i -g ajv-cli ajv-formats" >&2
  exit 1
fi
for s in cyclonedx/bom-1.5.schema.json cyclonedx/spdx.schema.json cyclonedx/jsf-0.82.schema.json spdx-2.3.schema.json; do
  if [ ! -f "$schemas/$s" ]; then
    echo "validate.sh: schema $schemas/$s not found (it ships in testdata/schemas)" >&2
    exit 1
  fi
done

cdx=(ajv validate --spec=draft7 --strict=false -c ajv-formats
  -s "$schemas/cyclonedx/bom-1.5.schema.json"
  -r "$schemas/cyclonedx/spdx.schema.json"
  -r "$schemas/cyclonedx/jsf-0.82.schema.json")
spdx=(ajv validate --spec=draft7 --strict=false -c ajv-formats
  -s "$schemas/spdx-2.3.schema.json")

fail=0
# check KIND FILE WANT: WANT is "valid" or "invalid"
check() {
  local kind=$1 file=$2 want=$3 out rc=0
  if [ "$kind" = cyclonedx ]; then
    out=$("${cdx[@]}" -d "$file" 2>&1) || rc=$?
  else
    out=$("${spdx[@]}" -d "$file" 2>&1) || rc=$?
  fi
  # ajv-formats has no iri-reference/idn-email; ajv says so once per use.
  out=$(printf '%s\n' "$out" | grep -v '^unknown format' || true)
  if { [ "$want" = valid ] && [ $rc -eq 0 ]; } || { [ "$want" = invalid ] && [ $rc -ne 0 ]; }; then
    echo "ok   $kind $(basename "$file") ($want)"
  else
    echo "FAIL $kind $(basename "$file"): expected $want" >&2
    printf '%s\n' "$out" >&2
    fail=1
  fi
}

shopt -s nullglob
n=0
for f in "$here"/cyclonedx*.golden.json; do check cyclonedx "$f" valid; n=$((n + 1)); done
for f in "$here"/spdx*.golden.json; do check spdx "$f" valid; n=$((n + 1)); done
if [ $n -eq 0 ]; then
  echo "validate.sh: no golden files in $here" >&2
  exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed 's/"scope": "optional"/"scope": "dev-only"/' "$here/cyclonedx.golden.json" >"$tmp/cyclonedx-broken.json"
check cyclonedx "$tmp/cyclonedx-broken.json" invalid
sed 's/"filesAnalyzed": false/"filesAnalyzed": "no"/' "$here/spdx.golden.json" >"$tmp/spdx-broken.json"
check spdx "$tmp/spdx-broken.json" invalid

exit $fail
