#!/bin/sh
# Bulk verdict on 10,000 findings (issue 26): one SetVerdicts over a
# 10,000-finding scan among three, while four readers page findings and a
# writer sets single verdicts. Reports bulk-ms (the bar is 2,000 ms) and
# busy-errors (must be 0). Figures depend on the machine's load.
set -eu
cd "$(dirname "$0")/.."
go test ./store/ -run '^$' -bench 'BulkVerdict10k' -benchtime "${BENCH_RUNS:-3}x" -count 1
