#!/usr/bin/env bash
# make test's run: every Go package with -race, then the official
# conformance judges against BIN; ends with a short summary (packages,
# conformance legs, time). Exit status: nonzero when anything failed.
# Usage: scripts/test.sh BIN PACKAGES...   (GO names the go command)
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=$1; shift
start=$(date +%s)
log=$(mktemp)
trap 'rm -f "$log"' EXIT

echo "== go test -race $*"
"${GO:-go}" test -race -count=1 "$@" 2>&1 | tee "$log"
go_status=${PIPESTATUS[0]}

echo "== conformance: the official judges against $BIN"
scripts/conformance.sh "$BIN" 2>&1 | tee -a "$log"
conf_status=${PIPESTATUS[0]}

secs=$(( $(date +%s) - start ))
passed=$(grep -c '^ok  	' "$log")
failed=$(grep -E '^FAIL	[^ ]+' "$log" | awk '{print $2}' | sort -u)
untested=$(grep -c '\[no test files\]' "$log")
echo
if [ "$go_status" -eq 0 ] && [ "$conf_status" -eq 0 ]; then
  echo "== make test passed in $((secs / 60))m$((secs % 60))s"
else
  echo "== make test FAILED after $((secs / 60))m$((secs % 60))s"
fi
echo "  go test -race: $passed packages passed, $(printf '%s' "$failed" | grep -c .) failed ($untested without tests)"
for p in $failed; do echo "    FAIL $p"; done
grep '^conformance: ' "$log" | grep -v 'judging' | sed 's/^conformance: /  conformance /'
[ "$go_status" -eq 0 ] && [ "$conf_status" -eq 0 ]
