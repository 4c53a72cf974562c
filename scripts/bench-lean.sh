#!/usr/bin/env bash
# Issue 32's agent job: a model answering after 1 s, an MCP server that takes
# 3 s to start. One-shot `luagent ask` against mcphost, interleaved.
#   scripts/bench-lean.sh [luagent binary] [rounds]     (make bench-lean)
#
# The model is scripts/bench/fakeopenai -delay 1s (a Chat Completions
# stand-in on 127.0.0.1). The server is server-everything behind
# `sh -c 'sleep 3; exec ...'` (its start, as npx/uvx/docker servers take).
# Jobs, rotated every round:
#   luagent-notool, mcphost-notool   a prompt the model answers with text at
#                                    once (one model request): the turn needs
#                                    no server; ideal ≈ the model's 1 s
#   luagent-tool, mcphost-tool       the model calls the slow server's echo,
#                                    then answers (two model requests); ideal
#                                    ≈ max(3 s start, 1 s first answer) + 1 s
# luagent runs with its tool cache warm (one run before the rounds), as on
# every run after a server's first; a cold luagent-notool (cache removed
# before each run) shows the first run, which waits as before.
# mcphost is $MCPHOST, else scripts/build-mcphost.sh's build if it is there
# (this script does not build it); without it luagent is measured alone.
set -Eeuo pipefail
trap 'echo "bench-lean.sh: line $LINENO failed: $BASH_COMMAND" >&2' ERR
cd "$(dirname "$0")/.."
bin=${1:-bin/luagent}
rounds=${2:-5}
everything=$PWD/scripts/peers/node_modules/.bin/mcp-server-everything
[ -x "$bin" ] || { echo "bench-lean.sh: no luagent at $bin (make build)" >&2; exit 1; }
[ -x "$everything" ] || { echo "bench-lean.sh: no $everything (make peers)" >&2; exit 1; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
mcphost=${MCPHOST:-${MCPHOST_DIR:-/tmp/mcphost}/bin/mcphost}
[ -x "$mcphost" ] || mcphost=

work=$(mktemp -d "${TMPDIR:-/tmp}/luagent-bench-lean.XXXXXX")
fake=
cleanup() {
	exec 9>&- 2>/dev/null || true
	if [ -n "$fake" ]; then
		kill "$fake" 2>/dev/null || true
		wait "$fake" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "bench-lean.sh: interrupted" >&2; exit 130' INT TERM

go build -o "$work/fakeopenai" ./scripts/bench/fakeopenai
go build -o "$work/measure" ./scripts/bench/measure
mkfifo "$work/model.in" "$work/model.url"
touch "$work/model.log"
"$work/fakeopenai" -delay 1s -lifetime 60m -log "$work/model.log" <"$work/model.in" >"$work/model.url" &
fake=$!
exec 9>"$work/model.in"
read -r -t 20 url <"$work/model.url" || { echo "bench-lean.sh: the model stand-in did not start" >&2; exit 1; }

mkdir -p "$work/home" "$work/lhome"
slow="sleep 3; exec $everything stdio"
printf '{"version":1,"mcpServers":{"slow":{"command":"sh","args":["-c","%s"]}}}\n' "$slow" >"$work/lhome/config.json"
printf '{"mcpServers":{"slow":{"type":"local","command":["sh","-c","%s"]}}}\n' "$slow" >"$work/mcphost.json"
export HOME=$work/home OPENAI_BASE_URL=$url OPENAI_API_KEY=sk-bench-not-a-key LUAGENT_HOME=$work/lhome
unset LUAGENT_MODEL ANTHROPIC_API_KEY ANTHROPIC_BASE_URL

results=$work/results.tsv
: >"$results"
now() { date +%s%N; }

run_job() { # ROUND JOB
	local r=$1 job=$2 prompt=notool want=1 start end
	if [ "$job" = bare ]; then # the slow server's own start, as a minimal client sees it
		: >"$work/run.tsv"
		"$work/measure" mcp -n 1 -call echo -args '{"message":"hi"}' -timeout 90s -o "$work/run.tsv" -- sh -c "$slow"
		local s c e tools
		IFS=$'\t' read -r s c e tools <"$work/run.tsv"
		printf '%s\t%s\t%s\n' "$r" bare "$((s / 1000000))" >>"$results"
		return
	fi
	case $job in *-tool) prompt="echo hi" want=2 ;; esac
	case $job in *-cold) rm -rf "$LUAGENT_HOME/cache" ;; esac
	local before
	before=$(wc -l <"$work/model.log")
	start=$(now)
	case $job in
	luagent*) "$bin" ask --model openai:gpt-x --yes "$prompt" >"$work/out" 2>"$work/err" ;;
	mcphost*) "$mcphost" --config "$work/mcphost.json" -m openai:gpt-x --provider-url "$url" \
		--provider-api-key "$OPENAI_API_KEY" --quiet -p "$prompt" >"$work/out" 2>"$work/err" ;;
	esac || { echo "bench-lean.sh: $job failed" >&2; tail -20 "$work/err" >&2; exit 1; }
	end=$(now)
	grep -q 'done: hi' "$work/out" || { echo "bench-lean.sh: $job printed no answer" >&2; cat "$work/out" "$work/err" >&2; exit 1; }
	local n
	n=$(($(wc -l <"$work/model.log") - before))
	[ "$n" = "$want" ] || { echo "bench-lean.sh: $job: $n model requests, want $want" >&2; exit 1; }
	printf '%s\t%s\t%s\n' "$r" "$job" "$(((end - start) / 1000000))" >>"$results"
}

jobs=(bare luagent-notool luagent-tool luagent-notool-cold)
[ -n "$mcphost" ] && jobs+=(mcphost-notool mcphost-tool)
run_job 0 luagent-notool # warms the cache (and the page cache)
: >"$results"
for r in $(seq "$rounds"); do
	k=${#jobs[@]}
	for i in $(seq 0 $((k - 1))); do
		j=${jobs[$(((i + r) % k))]}
		run_job "$r" "$j"
		[ "$j" = luagent-notool-cold ] && run_job "$r" luagent-warmup && sed -i '$d' "$results" # re-warm the cache
	done
	printf '.' >&2
done
echo >&2

echo "luagent: $bin ($("$bin" --version 2>/dev/null | head -1))"
if [ -n "$mcphost" ]; then echo "mcphost: $mcphost ($("$mcphost" --version 2>/dev/null | head -1))"; else echo "mcphost: skipped (not built: scripts/build-mcphost.sh, or MCPHOST=path)"; fi
echo "model:   fakeopenai -delay 1s; server: sh -c 'sleep 3; exec mcp-server-everything stdio'"
echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); rounds: $rounds (median [min–max], ms)"
echo
awk -F'\t' '
	function add(k, v) { vals[k] = vals[k] " " v }
	function cell(k,   a, m, i, j, x) {
		m = split(vals[k], a, " ")
		if (m == 0) return "-"
		for (i = 2; i <= m; i++) { x = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
		return sprintf("%d [%d–%d]", m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2, a[1], a[m])
	}
	{ add($2, $3); v[$1, $2] = $3; rounds[$1] = 1 }
	END {
		# Per round, against the ideal of that round: the model alone (1000)
		# for a turn without tools; max(the server start alone, 1000) + 1000
		# for a turn that calls it.
		for (r in rounds) {
			if (!((r, "bare") in v)) continue
			b = v[r, "bare"]; ideal = (b > 1000 ? b : 1000) + 1000
			add("ideal-tool", ideal)
			if ((r, "luagent-tool") in v) add("luagent-tool-over", v[r, "luagent-tool"] - ideal)
			if ((r, "mcphost-tool") in v) add("mcphost-tool-over", v[r, "mcphost-tool"] - ideal)
			if ((r, "luagent-notool") in v) add("luagent-notool-over", v[r, "luagent-notool"] - 1000)
			if ((r, "luagent-notool-cold") in v) add("luagent-notool-cold-over", v[r, "luagent-notool-cold"] - 1000)
			if ((r, "mcphost-notool") in v) add("mcphost-notool-over", v[r, "mcphost-notool"] - 1000)
		}
		printf "the slow server alone (sleep 3 + server-everything to initialize, a minimal client): %s ms\n\n", cell("bare")
		print "| turn | ideal | luagent (cache warm) | luagent (first run, no cache) | mcphost |"
		print "|---|---:|---:|---:|---:|"
		printf "| no tool call (1 model request), wall | 1000 | %s | %s | %s |\n", cell("luagent-notool"), cell("luagent-notool-cold"), cell("mcphost-notool")
		printf "| … over the ideal | 0 | %s | %s | %s |\n", cell("luagent-notool-over"), cell("luagent-notool-cold-over"), cell("mcphost-notool-over")
		printf "| calls the slow server (2 model requests), wall | %s | %s | - | %s |\n", cell("ideal-tool"), cell("luagent-tool"), cell("mcphost-tool")
		printf "| … over the ideal, max(server start, 1000) + 1000 | 0 | %s | - | %s |\n", cell("luagent-tool-over"), cell("mcphost-tool-over")
	}' "$results"
