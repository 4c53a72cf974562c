#!/usr/bin/env bash
# Builds mcphost (github.com/mark3labs/mcphost), the peer of scripts/bench-ask.sh,
# from the Go module proxy into a scratch folder outside the repository, and
# prints the binary's path. Nothing is built when it is already there.
#   scripts/build-mcphost.sh [dir]      (default $MCPHOST_DIR, else /tmp/mcphost)
#
# Not `go install github.com/mark3labs/mcphost@v0.32.0`: that looks up the
# module's deprecation in its version list, which the proxy refuses (403),
# while it serves the exact version. So the module is downloaded and built
# in a copy of its own folder, with its own go.mod and go.sum, and with the
# toolchain its go.mod names (go1.24.5, fetched from the proxy as
# golang.org/toolchain): under Go 1.26 its dependency bytedance/sonic
# v1.14.1 does not compile (internal/rt: undefined: GoMapIterator).
set -euo pipefail
version=v0.32.0
toolchain=go1.24.5
dir=${1:-${MCPHOST_DIR:-/tmp/mcphost}}
bin=$dir/bin/mcphost
stamp=$dir/bin/.version
if [ -x "$bin" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then
	echo "$bin"
	exit 0
fi
mkdir -p "$dir/bin"
# Outside any module, so no go.mod or go.sum of ours is touched.
src=$(cd "$dir" && GOTOOLCHAIN=local go mod download -json "github.com/mark3labs/mcphost@$version" |
	sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$src" ] && [ -d "$src" ] || { echo "build-mcphost.sh: cannot download github.com/mark3labs/mcphost@$version" >&2; exit 1; }
rm -rf "$dir/src"
cp -R "$src" "$dir/src"
chmod -R u+w "$dir/src"
echo "build-mcphost.sh: building mcphost $version with $toolchain in $dir (a few minutes the first time)" >&2
(cd "$dir/src" && GOTOOLCHAIN=$toolchain GOFLAGS=-buildvcs=false timeout 20m \
	go build -ldflags "-X main.version=$version" -o "$bin" .)
echo "$version" >"$stamp"
echo "$bin"
