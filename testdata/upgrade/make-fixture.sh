#!/usr/bin/env bash
# testdata/upgrade/make-fixture.sh BIN OUT: builds the database of a
# previous release for TestUpgradeFromPreviousRelease (store) and
# TestBinaryUpgradesPreviousRelease (main). BIN is that release's scand
# binary; OUT the database file to write.
#
# How scand-0.11.0-805e91b.db was made (the release before issue 29):
#   git worktree add --detach /tmp/prev 805e91b
#   (cd /tmp/prev && go build -o /tmp/scand-prev .)
#   testdata/upgrade/make-fixture.sh /tmp/scand-prev testdata/upgrade/scand-0.11.0-805e91b.db
#
# It drives the old daemon through its API only: an admin and a read key,
# two completed secrets scans of a 30-secret tree (bench/scale-tree.go),
# three verdicts and two comments, a webhook with a delivery that cannot
# be delivered (port 9) and a schedule; then a clean stop, which
# checkpoints the WAL into the one file.
set -euo pipefail
BIN=$1
OUT=$2
REPO=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/scand-fixture.XXXXXX")
PID=
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$WORK"' EXIT
(cd "$REPO" && go run ./bench/scale-tree.go -n 30 "$WORK/tree")
PORT=${PORT:-18929}
BASE=http://127.0.0.1:$PORT/api/v1
SVC_DB="$WORK/scand.db" SVC_ADDR="127.0.0.1:$PORT" SVC_WEBHOOK_ALLOW_PRIVATE=1 "$BIN" 2>"$WORK/log" &
PID=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/ready" >/dev/null && break; sleep 0.2; done
ADMIN=$(curl -sf -X POST "$BASE/keys" -H 'Content-Type: application/json' -d '{"name":"fixture-admin","scopes":["admin"]}' | jq -r .key)
H=(-H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json')
curl -sf "${H[@]}" -X POST "$BASE/keys" -d '{"name":"fixture-reader","scopes":["read"]}' >/dev/null
curl -sf "${H[@]}" -X POST "$BASE/webhooks" -d '{"name":"fixture-hook","url":"http://127.0.0.1:9/hook","event_filter":["scan.complete"]}' >/dev/null
curl -sf "${H[@]}" -X POST "$BASE/schedules" -d '{"name":"fixture-nightly","target_path":"'"$WORK/tree"'","scan_types":["code"],"cron":"0 3 * * *"}' >/dev/null || true
for round in 1 2; do
	ID=$(curl -sf "${H[@]}" -X POST "$BASE/scans" -d '{"target_path":"'"$WORK/tree"'","scan_types":["code"]}' | jq -r .id)
	for _ in $(seq 300); do
		st=$(curl -sf "${H[@]}" "$BASE/scans/$ID" | jq -r .status)
		[ "$st" = completed ] && break
		sleep 0.2
	done
	[ "$st" = completed ] || { echo "scan $ID: $st" >&2; exit 1; }
done
FPS=$(curl -sf "${H[@]}" "$BASE/scans/$ID/findings?limit=3" | jq -r '.[].fingerprint' | head -3)
i=0
for fp in $FPS; do
	status=(false_positive accepted_risk wont_fix)
	curl -sf "${H[@]}" -X PATCH "$BASE/findings/$fp/state" -d '{"status":"'"${status[$i]}"'","note":"fixture verdict '"$i"'"}' >/dev/null
	[ $i -lt 2 ] && curl -sf "${H[@]}" -X POST "$BASE/findings/$fp/comments" -d '{"text":"fixture comment '"$i"'"}' >/dev/null
	i=$((i + 1))
done
kill -TERM "$PID"
wait "$PID" || true
PID=
[ ! -s "$WORK/scand.db-wal" ] || { echo "WAL not checkpointed at stop" >&2; exit 1; }
cp "$WORK/scand.db" "$OUT"
echo "wrote $OUT ($(stat -c %s "$OUT") bytes)"
