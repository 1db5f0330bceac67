#!/bin/sh
# Validate SARIF files against the official SARIF 2.1.0 schema with ajv.
#
#   testdata/sarif/validate.sh [SCHEMA_DIR] [FILE...]
#
# SCHEMA_DIR holds sarif-2.1.0.draft7.schema.json (the OASIS schema with its
# $schema moved to draft-07 so ajv v8 loads it); default: testdata/schemas
# of this repository. FILE defaults to every *.sarif.json file in
# this directory. ajv-cli picks its parser by file extension, so a file
# not ending in .json is validated through a .json copy.
# Needs: npm i -g ajv-cli ajv-formats
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
schema_dir=${1:-"$root/testdata/schemas"}
[ "$#" -gt 0 ] && shift
schema="$schema_dir/sarif-2.1.0.draft7.schema.json"
if [ ! -f "$schema" ]; then
	echo "validate.sh: no schema at $schema" >&2
	exit 2
fi
if ! command -v ajv >/dev/null 2>&1; then
	echo "validate.sh: ajv not found (npm i -g ajv-cli ajv-formats)" >&2
	exit 2
fi
if [ "$#" -eq 0 ]; then
	set -- "$root"/testdata/sarif/*.sarif.json
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for f in "$@"; do
	if [ ! -f "$f" ]; then
		echo "validate.sh: no such file: $f" >&2
		status=1
		continue
	fi
	data=$f
	case $f in
	*.json) ;;
	*) data="$tmp/$(basename "$f").json"; cp "$f" "$data" ;;
	esac
	# ajv prints "<file> valid" or the errors; its exit code is the verdict.
	ajv validate --spec=draft7 --strict=false -c ajv-formats -s "$schema" -d "$data" || status=1
done
exit $status
