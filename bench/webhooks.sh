#!/bin/sh
# Webhook delivery throughput: 50 subscriptions, 10,000 deliveries (200
# events x 50) to a loopback receiver, on 2 cores. Reports deliveries/s,
# CPU per delivery and order violations (must be 0) for two cases:
#   live     events published through the bus sink while workers run
#   backlog  10,000 rows already committed, drained after Start (restart)
# Usage: bench/webhooks.sh [count]   (default 3 runs of each)
set -eu
cd "$(dirname "$0")/.."
count="${1:-3}"
exec go test -run '^$' -bench 'BenchmarkWebhookDelivery' -benchtime 1x -count "$count" -cpu 2 ./hook/
