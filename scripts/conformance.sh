#!/usr/bin/env bash
# The official MCP conformance judges against luagent's fixture
# (examples/conformance/server.lua), served over Streamable HTTP by one
# luagent process for every leg:
#   0.1.16          server --suite all
#   0.2.0-alpha.12  server --requirements 2025-11-25
#   0.2.0-alpha.12  server --requirements 2026-07-28 (the tasks extension's
#                   scenarios included)
#   0.2.0-alpha.12  server, the skills extension's three scenarios
#                   (sep-2640-skills-*), each passing only when every check
#                   says SUCCESS
# and the Lua conformance client (examples/conformance/client.lua) against
# each judge's mock servers, one scenario at a time (sse-retry is timing-
# sensitive): 0.1.16 every client scenario, 0.2.0-alpha.12 the client
# scenarios each revision requires (and its unscored non-auth ones), and on
# 2026-07-28 the skills extension's four client scenarios (sep-2640-client-*,
# in no requirements file), which pass only when their check says SUCCESS.
# Scenarios known not to pass are in scripts/conformance/expected-failures.yml (a reason each);
# any other failure, or a listed scenario that passes, fails the run.
# The judges, their expected-failures.yml and their README are in
# scripts/conformance.
# Usage: scripts/conformance.sh [BIN]   (from anywhere; BIN default bin/luagent)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-bin/luagent}
LOG=$(mktemp -d)
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true; rm -rf "$LOG"' EXIT

"$BIN" serve examples/conformance/server.lua --http 127.0.0.1:0/mcp 2>"$LOG/server.err" &
SERVER=$!
URL=
for _ in $(seq 1 100); do
  URL=$(sed -n 's/^luagent: serving .* at \(http:[^ ]*\).*/\1/p' "$LOG/server.err")
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
  if PATH="$PWD/scripts/conformance/$judge/node_modules/.bin:$PATH" \
      conformance server --url "$URL" "$@" \
      --expected-failures scripts/conformance/expected-failures.yml >"$LOG/$name.txt" 2>&1; then
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

# Client legs. A scenario's result counts as the judge says with the
# expected-failures file (a listed scenario that passes fails the leg).
CLIENT="$PWD/$BIN run $PWD/examples/conformance/client.lua"
case $BIN in /*) CLIENT="$BIN run $PWD/examples/conformance/client.lua" ;; esac
client_leg() { # client_leg NAME JUDGE SPEC SCENARIOS...
  local name=$1 judge=$2 spec=$3; shift 3
  local passed=0 expected=0 failed=()
  # One baseline for both judges; lines marked judge-0.1.16-passes are
  # failures on 0.2 only.
  local baseline=scripts/conformance/expected-failures.yml
  if [ "$judge" = legacy ]; then
    baseline=$LOG/expected-failures-0.1.16.yml
    grep -v 'judge-0.1.16-passes' scripts/conformance/expected-failures.yml >"$baseline"
  fi
  for s in "$@"; do
    local args=(--scenario "$s")
    # (--force: the unscored extensions run only when forced one by one.)
    [ -n "$spec" ] && args+=(--spec-version "$spec" --force)
    if PATH="$PWD/scripts/conformance/$judge/node_modules/.bin:$PATH" \
        conformance client --command "$CLIENT" "${args[@]}" \
        --expected-failures "$baseline" >"$LOG/client.txt" 2>&1 &&
        succeeded "$s" "$LOG/client.txt"; then
      if grep -q "^  - $s\( \|$\)" <(sed -n '/^client:/,/^[a-z]/p' "$baseline"); then
        expected=$((expected + 1))
      else
        passed=$((passed + 1))
      fi
    else
      failed+=("$s")
      { echo "--- client $name: $s"; sed -n '/^Stderr:/,/^Checks:/p; /^Test Results:/,$p' "$LOG/client.txt"; checks "$LOG/client.txt"; } >>"$LOG/client-failures.txt"
    fi
  done
  if [ ${#failed[@]} -eq 0 ]; then
    echo "conformance: client $name: $passed scenarios passed ($expected expected failures)"
  else
    status=1
    echo "conformance: client $name FAILED: ${failed[*]}"
  fi
}
# The judge counts a scenario whose checks are all SKIPPED as passed: a
# client that never calls skills/list "passes" the skills scenarios. Ours
# pass only when every sep-2640 check line says SUCCESS.
checks() { # checks OUTPUT: the sep-2640 check lines, colours stripped
  sed 's/\x1b\[[0-9;]*m//g' "$1" | grep -E '^[^ ]+ \[sep-2640-[a-z-]+ *\] ' || true
}
succeeded() { # succeeded SCENARIO OUTPUT
  case $1 in sep-2640-*) ;; *) return 0 ;; esac
  local lines
  lines=$(checks "$2")
  [ -n "$lines" ] && ! grep -qv '\] SUCCESS ' <<<"$lines"
}
# The skills extension's three server scenarios (in no requirements file,
# so run one by one, forced, on 2026-07-28 where every check applies): each
# counts only when every check line says SUCCESS.
server_skills="sep-2640-skills-enumeration sep-2640-skills-manifest sep-2640-skills-directory"
skills_passed=0 skills_failed=()
for s in $server_skills; do
  if PATH="$PWD/scripts/conformance/modern/node_modules/.bin:$PATH" \
      conformance server --url "$URL" --scenario "$s" --spec-version 2026-07-28 --force >"$LOG/skills.txt" 2>&1 &&
      succeeded "$s" "$LOG/skills.txt"; then
    skills_passed=$((skills_passed + 1))
  else
    skills_failed+=("$s")
    { echo "--- server skills: $s"; checks "$LOG/skills.txt" | grep -v '\] SUCCESS '; sed -n '/^Test Results:/,$p' "$LOG/skills.txt"; } >>"$LOG/server-failures.txt"
  fi
done
if [ ${#skills_failed[@]} -eq 0 ]; then
  echo "conformance: 0.2.0-alpha.12 skills extension (server): $skills_passed scenarios passed"
else
  status=1
  echo "conformance: 0.2.0-alpha.12 skills extension (server) FAILED: ${skills_failed[*]}"
  cat "$LOG/server-failures.txt"
fi

skills="sep-2640-client-no-prefetch sep-2640-client-verify-digest sep-2640-client-verify-size sep-2640-client-verify-frontmatter"
# Scenario lists from the judges themselves: 0.1.16 lists its client
# scenarios; 0.2's requirements files name what each revision requires.
legacy_client=$(PATH="$PWD/scripts/conformance/legacy/node_modules/.bin:$PATH" conformance list --client | sed -n 's/^  - \([^ ]*\).*/\1/p')
required() { # required REVISION: the scored client scenarios, then the unscored ones (extensions too)
  local f=scripts/conformance/modern/node_modules/@modelcontextprotocol/conformance/requirements/$1.yaml
  sed -n '/^client:/,/^$/s/^  - //p' "$f"
  awk '/^  - scenario:/{s=$3} /^    leg: client/{c=1} /^    reason:/{if (c) print s; c=0}' "$f"
}
client_leg "0.1.16" legacy "" $legacy_client
client_leg "0.2.0-alpha.12 2025-11-25" modern 2025-11-25 $(required 2025-11-25)
client_leg "0.2.0-alpha.12 2026-07-28" modern 2026-07-28 $(required 2026-07-28) $skills
[ -f "$LOG/client-failures.txt" ] && cat "$LOG/client-failures.txt"

if ! kill -0 $SERVER 2>/dev/null; then
  echo "conformance: the server died during the run:"; cat "$LOG/server.err"; status=1
fi
exit $status
