#!/usr/bin/env bash
# The official MCP conformance judges against luagent's fixture
# (examples/conformance/server.lua), served over Streamable HTTP by one
# luagent process for every leg:
#   0.1.16          server --suite all
#   0.2.0-alpha.12  server --requirements 2025-11-25
#   0.2.0-alpha.12  server --requirements 2026-07-28
# Scenarios known not to pass are in expected-failures.yml (a reason each);
# any other failure, or a listed scenario that passes, fails the run.
# Usage: test/conformance/run.sh [BIN]   (from anywhere; BIN default bin/luagent)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${1:-bin/luagent}
LOG=$(mktemp -d)
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true; rm -rf "$LOG"' EXIT

"$BIN" serve examples/conformance/server.lua --http 127.0.0.1:0/mcp 2>"$LOG/server.err" &
SERVER=$!
URL=
for _ in $(seq 1 100); do
  URL=$(sed -n 's/^luagent: serving .* at \(http:[^ ]*\)$/\1/p' "$LOG/server.err")
  [ -n "$URL" ] && break
  kill -0 $SERVER 2>/dev/null || break
  sleep 0.1
done
if [ -z "$URL" ]; then
  echo "conformance: the fixture server did not start:" >&2
  cat "$LOG/server.err" >&2
  exit 1
fi
echo "conformance: judging $URL"

status=0
leg() { # leg NAME JUDGE ARGS...
  local name=$1 judge=$2; shift 2
  if PATH="$PWD/test/conformance/$judge/node_modules/.bin:$PATH" \
      conformance server --url "$URL" "$@" \
      --expected-failures test/conformance/expected-failures.yml >"$LOG/$name.txt" 2>&1; then
    echo "conformance: $name: $(grep -c '^✓' "$LOG/$name.txt") scenarios passed ($(grep -c '^✗' "$LOG/$name.txt") expected failures)"
  else
    status=1
    echo "conformance: $name FAILED:"
    sed -n '/=== SUMMARY ===/,$p' "$LOG/$name.txt"
  fi
}
leg "0.1.16 --suite all" legacy --suite all
leg "0.2.0-alpha.12 --requirements 2025-11-25" modern --requirements 2025-11-25
leg "0.2.0-alpha.12 --requirements 2026-07-28" modern --requirements 2026-07-28
if ! kill -0 $SERVER 2>/dev/null; then
  echo "conformance: the server died during the run:"; cat "$LOG/server.err"; status=1
fi
exit $status
