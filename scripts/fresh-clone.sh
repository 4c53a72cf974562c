#!/usr/bin/env bash
# Checks the README's two commands on a fresh clone: clones this
# repository's HEAD (committed work only) into a temporary folder, runs
# `make demo` and `make test` there one after the other, prints each one's
# exit status and wall time, and removes the folder. The npm peers and
# judges are installed afresh in the clone (a few minutes); the Go module
# and build caches are the machine's.
# Usage: scripts/fresh-clone.sh [COMMAND...]   (make fresh-check; default
# the two commands, each COMMAND one shell word list run in the clone)
# Exit status: nonzero when any command failed.
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- "make demo" "make test"
head=$(git rev-parse HEAD) || exit 1
dir=$(mktemp -d "${TMPDIR:-/tmp}/luagent-fresh.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
trap 'echo "fresh-clone.sh: interrupted" >&2; exit 130' INT TERM
git clone --quiet --no-checkout "$PWD" "$dir/luagent" &&
	git -C "$dir/luagent" checkout --quiet --detach "$head" || {
	echo "fresh-clone.sh: cannot clone $PWD at $head" >&2
	exit 1
}
echo "fresh-clone.sh: $(git log -1 --format='%h %s' "$head" | cut -c1-72) in $dir/luagent"
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
	echo "fresh-clone.sh: (uncommitted changes here are not in the clone)"

status=0 summary=()
for cmd in "$@"; do
	echo "== $cmd"
	start=$(date +%s%N)
	(cd "$dir/luagent" && bash -c "$cmd")
	rc=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	[ $rc -eq 0 ] || status=1
	summary+=("$(printf '  %-12s rc %d  %d.%03ds' "$cmd" "$rc" $((ms / 1000)) $((ms % 1000)))")
done
echo
echo "== fresh clone of $(git rev-parse --short "$head"):"
printf '%s\n' "${summary[@]}"
exit $status
