#!/usr/bin/env bash
# bench/reevaluate.sh: issue 27's re-evaluation of TARGETS targets'
# stored SBOMs (COMPONENTS npm components each, generated) against the
# offline advisory data, with the real osv-scanner and trivy, one target
# at a time, as the daemon does after an import.
#
# Usage: . /tmp/scanners.env; bench/reevaluate.sh [TARGETS] [COMPONENTS]
# Needs osv-scanner and trivy on PATH and SVC_OSV_DB / SVC_TRIVY_CACHE
# (.ci/install-scanners.sh writes the environment).
# Bar (issue 27): state the wall time; the daemon's peak RSS <= 300 MB.
# Figures depend on the machine: `uptime` is printed with them.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
command -v osv-scanner >/dev/null && command -v trivy >/dev/null || { echo "osv-scanner and trivy must be on PATH (. /tmp/scanners.env)" >&2; exit 2; }
[ -n "${SVC_OSV_DB:-}" ] && [ -n "${SVC_TRIVY_CACHE:-}" ] || { echo "SVC_OSV_DB and SVC_TRIVY_CACHE must be set" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/scand-reevaluate.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
(cd "$REPO" && go build -o "$WORK/scand" . && go build -o "$WORK/driver" ./bench/reevaluate-driver.go)
echo "== $(uptime)"
"$WORK/driver" -bin "$WORK/scand" -work "$WORK" -targets "${1:-1000}" -components "${2:-100}"
echo "== $(uptime)"
