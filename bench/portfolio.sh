#!/usr/bin/env bash
# bench/portfolio.sh: the portfolio routes of issue 25 at 1,000 targets x
# 10 scans x 100 findings (1M findings) and 200 components in each
# target's latest SBOM (200k), on a database written at the schema before
# migration 0016, so the daemon's start also times the migration.
#
# Usage: bench/portfolio.sh [TARGETS] [SCANS] [FINDINGS] [COMPONENTS]
# Bars (issue 25): targets first and deep pages <= 20 ms; findings across
# targets with a filter and sort <= 50 ms per page; components with purl
# and a version range <= 50 ms; vulnerabilities/{id} <= 50 ms; dashboard
# <= 50 ms; daemon RSS <= 300 MB; migration of the 1M-finding database
# <= 60 s. Figures depend on the machine: `uptime` is printed with them.
# PORTFOLIO_DB_CACHE=/path/file.db keeps the written database there and
# reuses it on later runs (each run still migrates a copy of it).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/scand-portfolio.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
(cd "$REPO" && go build -o "$WORK/scand" . && go build -o "$WORK/driver" ./bench/portfolio-driver.go)
echo "== $(uptime)"
"$WORK/driver" -bin "$WORK/scand" -repo "$REPO" -work "$WORK" -targets "${1:-1000}" -scans "${2:-10}" -findings "${3:-100}" -components "${4:-200}" -cache "${PORTFOLIO_DB_CACHE:-}"
echo "== $(uptime)"
