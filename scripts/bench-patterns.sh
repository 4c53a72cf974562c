#!/bin/sh
# Lua string patterns: luagent against reference Lua 5.1 (scripts/bench/BENCHMARKS.md,
# "Lua string patterns"). Runs scripts/bench/patterns.lua under each, rounds
# interleaved, and prints the median seconds per case and the ratio.
#   scripts/bench-patterns.sh [luagent binary] [rounds]   (make bench-patterns)
# Needs lua5.1 (scripts/install-deb.sh lua5.1) and a built luagent
# (make build).
set -eu
cd "$(dirname "$0")/.."
bin=${1:-bin/luagent}
rounds=${2:-7}
command -v lua5.1 >/dev/null || { echo "lua5.1 is not installed (apt-get install lua5.1)" >&2; exit 1; }
[ -x "$bin" ] || { echo "no luagent at $bin (make build)" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
i=0
while [ $i -lt "$rounds" ]; do
	lua5.1 scripts/bench/patterns.lua | sed 's/^/lua5.1\t/' >>"$out"
	"$bin" run scripts/bench/patterns.lua | sed 's/^/luagent\t/' >>"$out"
	i=$((i + 1))
done
awk -F'\t' '
	{ t[$1 "\t" $2] = t[$1 "\t" $2] " " $3; if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } }
	function median(list,   a, k, m, i, j, x) {
		m = split(list, a, " ")
		for (i = 2; i <= m; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > x + 0; j--) a[j + 1] = a[j]; a[j + 1] = x }
		return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
	}
	END {
		print "| case | luagent ms | lua5.1 ms | luagent ÷ lua5.1 |"
		print "|---|---:|---:|---:|"
		for (k = 1; k <= n; k++) {
			c = order[k]; g = median(t["luagent\t" c]); l = median(t["lua5.1\t" c])
			printf "| %s | %.3f | %.3f | %s |\n", c, g * 1000, l * 1000, (l > 0 ? sprintf("%.3g", g / l) : "-")
		}
	}' "$out"
