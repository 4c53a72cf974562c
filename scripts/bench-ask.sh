#!/usr/bin/env bash
# One-shot `luagent ask` against mcphost (scripts/bench/BENCHMARKS.md, "One-shot `luagent
# ask` against mcphost"; issue 15, benchmark (b)).
#   scripts/bench-ask.sh [luagent binary] [rounds]     (make bench-ask)
#
# The job: one prompt; the model (scripts/bench/fakeopenai, a Chat Completions
# stand-in on 127.0.0.1 that answers at once) first asks for
# server-everything's echo with {"message":"hi"}, then answers "done: hi".
# Each client starts its catalog's stdio servers, runs the turns and exits.
# (Offered 65 tools by five servers, luagent offers its mcp_search_tools
# meta-tool instead, so there the model searches first: three turns.) Jobs, rotated every round so that none always runs first:
#   bare1, bare5      a minimal client (scripts/bench/measure mcp): 1 or 5 copies
#                     of server-everything started at once, initialize and
#                     tools/list each, one echo call, stdin closed, exits waited
#   luagent1, mcphost1, luagent5, mcphost5
#                     the job with 1 server, or 5 copies under other names
#   *-rss             the same, sampling the process tree's RSS every 10 ms
#                     (separate runs: sampling /proc costs CPU on 2 cores)
#   luagent*-trace    the same with luagent --trace, for where its time goes
# Needs a built luagent (make build), server-everything (make peers) and Go.
# mcphost is $MCPHOST, else scripts/build-mcphost.sh's build (the module proxy);
# when there is none, luagent is measured alone and mcphost is reported as
# skipped. Everything listens on 127.0.0.1; temporary files go in one
# folder that is removed at the end, with every process started here.
set -Eeuo pipefail
trap 'echo "bench-ask.sh: line $LINENO failed: $BASH_COMMAND" >&2' ERR
cd "$(dirname "$0")/.."
bin=${1:-bin/luagent}
rounds=${2:-11}
everything=$PWD/scripts/peers/node_modules/.bin/mcp-server-everything
[ -x "$bin" ] || { echo "bench-ask.sh: no luagent at $bin (make build)" >&2; exit 1; }
[ -x "$everything" ] || { echo "bench-ask.sh: no $everything (make peers)" >&2; exit 1; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

mcphost=${MCPHOST:-}
if [ -z "$mcphost" ]; then
	mcphost=$(timeout 25m scripts/build-mcphost.sh) || {
		echo "bench-ask.sh: mcphost could not be built (above); measuring luagent alone" >&2
		mcphost=
	}
fi
if [ -n "$mcphost" ] && ! [ -x "$mcphost" ]; then
	echo "bench-ask.sh: MCPHOST=$mcphost is not executable" >&2
	mcphost=
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/luagent-bench-ask.XXXXXX")
fake=
cleanup() {
	exec 9>&- 2>/dev/null || true # the stand-in exits when its stdin closes
	if [ -n "$fake" ]; then
		kill "$fake" 2>/dev/null || true
		wait "$fake" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "bench-ask.sh: interrupted" >&2; exit 130' INT TERM

go build -o "$work/fakeopenai" ./scripts/bench/fakeopenai
go build -o "$work/measure" ./scripts/bench/measure
measure=$work/measure

# The model stand-in: its URL on a fifo, its stdin held open on fd 9.
mkfifo "$work/model.in" "$work/model.url"
touch "$work/model.log"
"$work/fakeopenai" -lifetime 60m -log "$work/model.log" <"$work/model.in" >"$work/model.url" &
fake=$!
exec 9>"$work/model.in"
read -r -t 20 url <"$work/model.url" || { echo "bench-ask.sh: the model stand-in did not start" >&2; exit 1; }
case $url in http://127.0.0.1:*) ;; *) echo "bench-ask.sh: unexpected model URL $url" >&2; exit 1 ;; esac

# Catalogs: luagent's config.json (under LUAGENT_HOME) and mcphost's file.
# HOME is a temporary folder for both, so no user configuration is read.
mkdir -p "$work/home" "$work/lhome1" "$work/lhome5"
catalogs() { # n -> writes both catalogs with n servers
	local n=$1 i sep=
	{
		printf '{"version":1,"mcpServers":{'
		for i in $(seq "$n"); do
			printf '%s"everything%s":{"command":"%s","args":["stdio"]}' "$sep" "$i" "$everything"
			sep=,
		done
		printf '}}\n'
	} >"$work/lhome$n/config.json"
	sep=
	{
		printf '{"mcpServers":{'
		for i in $(seq "$n"); do
			printf '%s"everything%s":{"type":"local","command":["%s","stdio"]}' "$sep" "$i" "$everything"
			sep=,
		done
		printf '}}\n'
	} >"$work/mcphost$n.json"
}
catalogs 1
catalogs 5
export HOME=$work/home OPENAI_BASE_URL=$url OPENAI_API_KEY=sk-bench-not-a-key
unset LUAGENT_MODEL ANTHROPIC_API_KEY ANTHROPIC_BASE_URL

results=$work/results.tsv # round job fields... (see the awk below)
: >"$results"

# client ROUND JOB N SAMPLE CMD...: one run of the job, checked: exit 0,
# the answer on stdout, exactly two model turns (the call, then the text).
client() {
	local round=$1 job=$2 n=$3 sample=$4
	shift 4
	local before line
	before=$(wc -l <"$work/model.log")
	: >"$work/run.tsv"
	if ! LUAGENT_HOME=$work/lhome$n "$measure" run -sample "$sample" -timeout 90s -o "$work/run.tsv" -- "$@" \
		>"$work/out" 2>"$work/err"; then
		echo "bench-ask.sh: $job failed: $*" >&2
		tail -20 "$work/err" >&2
		exit 1
	fi
	grep -q 'done: hi' "$work/out" || { echo "bench-ask.sh: $job printed no answer" >&2; cat "$work/out" "$work/err" >&2; exit 1; }
	# (unix ns do not fit awk's doubles exactly: they stay strings here)
	line=$(tail -n +"$((before + 1))" "$work/model.log" | awk -F'\t' '
		{ n++; model += $6; if (n == 1) first = $2; last = $3; kinds = kinds " " $4 }
		END { printf "%d\t%.0f\t%s\t%s\t%s", n, model, first, last, kinds }')
	local nreq model first last kinds
	IFS=$'\t' read -r nreq model first last kinds <<<"$line"
	case $nreq:$kinds in
	2:" call:"*echo" text") ;;
	3:" call:mcp_search_tools call:"*echo" text") ;; # luagent's tool search (more than 40 tools)
	*) echo "bench-ask.sh: $job: the model saw $nreq requests ($kinds), not a call then the text" >&2; exit 1 ;;
	esac
	local wall start hwm peak hwmsum procs left code maxrss
	IFS=$'\t' read -r wall start hwm peak hwmsum procs left code maxrss <"$work/run.tsv"
	case $job in *-trace)
		phases "$round" "$job" "$start" "$wall" <"$work/trace.jsonl" >>"$results"
		rm -f "$work/trace.jsonl"
		return ;;
	esac
	# round job wall model to_first_request after_last_answer hwm peak hwmsum procs leftover maxrss
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$job" "$wall" "$model" \
		"$((first - start))" "$((start + wall - last))" "$hwm" "$peak" "$hwmsum" "$procs" "$left" "$maxrss" >>"$results"
}

# phases ROUND JOB START_UNIX_NS WALL_NS < luagent's --trace JSONL: where a
# run's time went, in ns: launch (exec to the first server's spawn),
# servers (the first spawn until the last tools_refreshed: the servers' own
# start and the MCP handshakes), prep (to the first model request), loop
# (the agent's turns less the model's answers and the MCP tool calls),
# model, tools (the tool calls, the servers' part included), exit (the
# answer until the last server has exited), teardown (to the process
# exit). The trace's times are UTC; a run across midnight is not parsed.
phases() {
	local t0=$(($3 % 86400000000000)) t9=$((($3 + $4) % 86400000000000))
	awk -v round="$1" -v job="$2" -v t0="$t0" -v t9="$t9" '
		function ns(s,   hms, sec, frac) { # "2026-12-02T02:20:44.234537857Z" -> ns of the day
			sub(/^.*T/, "", s); sub(/Z$/, "", s); split(s, hms, ":")
			sec = hms[3]; frac = ""
			if (index(sec, ".")) { frac = substr(sec, index(sec, ".") + 1); sec = substr(sec, 1, index(sec, ".") - 1) }
			frac = substr(frac "000000000", 1, 9)
			return ((hms[1] * 60 + hms[2]) * 60 + sec) * 1e9 + frac
		}
		function field(k,   m) { if (match($0, "\"" k "\":(\"[^\"]*\"|[0-9]+)")) { m = substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3); gsub(/"/, "", m); return m } return "" }
		{ kind = field("kind"); t = ns(field("time")) }
		kind == "process_started" && !spawned { spawned = t }
		kind == "tools_refreshed" && !asked { ready = t }
		kind == "model_request" && !asked { asked = t }
		kind == "model_response" { model += field("duration_ns") }
		kind == "tool_call_end" { tools += field("duration_ns") }
		kind == "agent_end" { ended = t }
		kind == "process_stopped" { stopped = t }
		END {
			if (!spawned || !ready || !asked || !ended || !stopped) { print "bench-ask.sh: an incomplete trace" > "/dev/stderr"; exit 1 }
			printf "%s\t%s\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\n", round, job, spawned - t0, ready - spawned, asked - ready,
				ended - asked - model - tools, model, tools, stopped - ended, t9 - stopped
		}'
}

# server ROUND JOB N: the minimal client's session with N copies.
server() {
	local round=$1 job=$2 n=$3 s c e tools
	: >"$work/run.tsv"
	"$measure" mcp -n "$n" -call echo -args '{"message":"hi"}' -timeout 90s -o "$work/run.tsv" -- "$everything" stdio
	IFS=$'\t' read -r s c e tools <"$work/run.tsv"
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$job" "$s" "$c" "$e" "$tools" >>"$results"
}

run_job() { # ROUND JOB
	local r=$1 job=$2 n sample=0
	case $job in *-rss) sample=10ms ;; esac
	case $job in *5*) n=5 ;; *) n=1 ;; esac
	case $job in
	bare*) server "$r" "$job" "$n" ;;
	luagent*-trace) client "$r" "$job" "$n" 0 "$bin" --trace "$work/trace.jsonl" ask --model openai:gpt-x --yes "echo hi" ;;
	luagent*) client "$r" "$job" "$n" "$sample" "$bin" ask --model openai:gpt-x --yes "echo hi" ;;
	mcphost*) client "$r" "$job" "$n" "$sample" "$mcphost" --config "$work/mcphost$n.json" \
		-m openai:gpt-x --provider-url "$url" --provider-api-key "$OPENAI_API_KEY" --quiet -p "echo hi" ;;
	esac
}

jobs=(bare1 luagent1 bare5 luagent5 luagent1-rss luagent5-rss luagent1-trace luagent5-trace)
[ -n "$mcphost" ] && jobs=(bare1 luagent1 mcphost1 bare5 luagent5 mcphost5 luagent1-rss mcphost1-rss luagent5-rss mcphost5-rss
	luagent1-trace luagent5-trace)
run_job 0 bare1 # warm the page cache (node, the binaries); not counted
run_job 0 luagent1
[ -n "$mcphost" ] && run_job 0 mcphost1
: >"$results"
for r in $(seq "$rounds"); do
	k=${#jobs[@]}
	for i in $(seq 0 $((k - 1))); do
		run_job "$r" "${jobs[$(((i + r) % k))]}"
	done
	printf '.' >&2
done
echo >&2

echo "luagent: $bin ($("$bin" --version 2>/dev/null | head -1))"
if [ -n "$mcphost" ]; then
	echo "mcphost: $mcphost ($("$mcphost" --version 2>/dev/null | head -1))"
else
	echo "mcphost: skipped (not built; MCPHOST=path or scripts/build-mcphost.sh)"
fi
echo "server:  $everything ($(sed -n 's/.*"version": "\(.*\)".*/\1/p' scripts/peers/node_modules/@modelcontextprotocol/server-everything/package.json | head -1)), node $(node --version)"
echo "machine: $(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "rounds:  $rounds (median [min–max])"
echo

awk -F'\t' -v has_mcphost="${mcphost:+1}" '
	# Values are kept in ms (times) and MiB (memory) as decimal strings:
	# ns sums do not print exactly as integers in mawk.
	function add(key, v) { vals[key] = vals[key] " " sprintf("%.4f", v) }
	function sorted(list, a,   m, i, j, x) {
		m = split(list, a, " ")
		for (i = 2; i <= m; i++) { x = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
		return m
	}
	function med(key,   a, m) { m = sorted(vals[key], a); return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
	function cell(key, fmt,   a, m) {
		m = sorted(vals[key], a)
		if (m == 0) return "-"
		if (a[1] == a[m]) return sprintf(fmt, a[1])
		return sprintf(fmt " [" fmt "–" fmt "]", med(key), a[1], a[m])
	}
	$2 ~ /^bare[0-9]$/ { s[$1, $2] = $3 / 1e6; c[$1, $2] = $4 / 1e6; e[$1, $2] = $5 / 1e6
		add($2 ".start", $3 / 1e6); add($2 ".call", $4 / 1e6); add($2 ".exit", $5 / 1e6); add($2 ".session", ($3 + $4 + $5) / 1e6); next }
	$2 ~ /-trace$/ { j = substr($2, 1, length($2) - 6)
		add(j ".launch", $3 / 1e6); add(j ".servers", $4 / 1e6); add(j ".prep", $5 / 1e6); add(j ".loop", $6 / 1e6)
		add(j ".tmodel", $7 / 1e6); add(j ".ttools", $8 / 1e6); add(j ".texit", $9 / 1e6); add(j ".teardown", $10 / 1e6)
		add(j ".inrun", ($3 + $5 + $6 + $10) / 1e6); next }
	$2 ~ /-rss$/ { j = substr($2, 1, length($2) - 4)
		add(j ".hwm", $7 / 1024); add(j ".peak", $8 / 1024); add(j ".hwmsum", $9 / 1024); add(j ".procs", $10); add(j ".maxrss", $12 / 1024); add(j ".left", $11); next }
	{ wall[$1, $2] = $3 / 1e6; model[$1, $2] = $4 / 1e6; rows[++nr] = $1 "\t" $2
		add($2 ".wall", $3 / 1e6); add($2 ".model", $4 / 1e6); add($2 ".first", $5 / 1e6); add($2 ".after", $6 / 1e6); add($2 ".left", $11) }
	END {
		for (i = 1; i <= nr; i++) {
			split(rows[i], f, "\t"); r = f[1]; j = f[2]; n = substr(j, length(j)); b = "bare" n
			if (!((r, b) in s)) continue
			add(j ".own", wall[r, j] - s[r, b] - model[r, j])
			add(j ".net", wall[r, j] - s[r, b] - c[r, b] - e[r, b] - model[r, j])
		}
		for (r = 1; r <= 999; r++) {
			if (!((r, "bare1") in s) || !((r, "bare5") in s)) continue
			add("bare.growth", s[r, "bare5"] - s[r, "bare1"])
			g = s[r, "bare5"] - s[r, "bare1"]
			if ((r, "luagent1") in wall && (r, "luagent5") in wall) {
				add("luagent.growth", wall[r, "luagent5"] - wall[r, "luagent1"]); add("luagent.excess", wall[r, "luagent5"] - wall[r, "luagent1"] - g) }
			if ((r, "mcphost1") in wall && (r, "mcphost5") in wall) {
				add("mcphost.growth", wall[r, "mcphost5"] - wall[r, "mcphost1"]); add("mcphost.excess", wall[r, "mcphost5"] - wall[r, "mcphost1"] - g) }
		}
		ncol = has_mcphost ? 2 : 1
		split("luagent mcphost", tool, " ")
		printf "| |"
		for (n = 1; n <= 5; n += 4) for (t = 1; t <= ncol; t++) printf " %s, %d server%s |", tool[t], n, (n > 1 ? "s" : "")
		printf "\n|---|"
		for (k = 1; k <= 2 * ncol; k++) printf "---:|"
		printf "\n"
		nk = split("wall ms|model answers, ms (stand-in, summed)|server start alone, ms (minimal client)|**own ms: wall − start − model**|start → first model request, ms|last answer → exit, ms|server session alone, ms (start, echo, close, exit)|own beyond that session, ms|process peak RSS, MiB (its VmHWM)|process tree peak RSS, MiB (sum of VmRSS)|tree, sum of each VmHWM, MiB|wait4 maxrss, MiB (/usr/bin/time -v)|processes in the tree|left running at exit", label, "|")
		split("wall model start own first after session net hwm peak hwmsum maxrss procs left", key, " ")
		for (k = 1; k <= nk; k++) {
			printf "| %s |", label[k]
			for (n = 1; n <= 5; n += 4) for (t = 1; t <= ncol; t++) {
				j = tool[t] n; kk = key[k]
				if (kk == "start" || kk == "session") v = cell("bare" n "." kk, "%.0f")
				else if (kk == "hwm" || kk == "peak" || kk == "hwmsum" || kk == "maxrss") v = cell(j "." kk, "%.1f")
				else if (kk == "procs" || kk == "left") v = cell(j "." kk, "%d")
				else if (kk == "model") v = cell(j "." kk, "%.2f")
				else v = cell(j "." kk, "%.0f")
				printf " %s |", v
			}
			printf "\n"
		}
		printf "\nluagent --trace, the same job in other runs (ms):\n\n| phase | 1 server | 5 servers |\n|---|---:|---:|\n"
		nk = split("launch: exec → first server spawned|servers: first spawn → last tools/list answered|prep: → first model request|loop: the turns less model and tool calls|model answers (as luagent saw them)|MCP tool calls (the server’s part included)|exit: answer → last server exited|teardown: → process exit|**luagent alone: launch + prep + loop + teardown**", label, "|")
		split("launch servers prep loop tmodel ttools texit teardown inrun", key, " ")
		for (k = 1; k <= nk; k++) printf "| %s | %s | %s |\n", label[k], cell("luagent1." key[k], "%.1f"), cell("luagent5." key[k], "%.1f")
		printf "\nfive servers against one, wall growth per round, ms: the minimal client (the servers own parallel start) %s; luagent %s (excess over the minimal client %s)",
			cell("bare.growth", "%.0f"), cell("luagent.growth", "%.0f"), cell("luagent.excess", "%.0f")
		if (has_mcphost) printf "; mcphost %s (excess %s)", cell("mcphost.growth", "%.0f"), cell("mcphost.excess", "%.0f")
		printf "\nthe minimal client alone, ms: 1 server start %s, echo %s, exit %s; 5 servers start %s, exit %s\n",
			cell("bare1.start", "%.0f"), cell("bare1.call", "%.1f"), cell("bare1.exit", "%.0f"), cell("bare5.start", "%.0f"), cell("bare5.exit", "%.0f")
	}' "$results"
if [ -n "${ASK_BENCH_RAW:-}" ]; then
	cp "$results" "$ASK_BENCH_RAW"
fi
