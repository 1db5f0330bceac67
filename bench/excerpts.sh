#!/bin/sh
# Code excerpts at scale (issue 26): database growth per finding from the
# excerpts (every window distinct, and a rescan of an unchanged tree) and
# the finding page's queries at SCAND_BENCH_FINDINGS findings (default
# 1,000,000). Takes minutes; figures depend on the machine's load.
set -eu
cd "$(dirname "$0")/.."
go test ./store/ -run '^$' -bench 'FindingWithExcerpt1M' -benchtime 1x -count 1 -timeout 60m
