#!/usr/bin/env bash
# Release builds: a static luagent (CGO_ENABLED=0, -trimpath) for each
# platform below into dist/, the version (`luagent --version`) stamped from
# `git describe --always --dirty`, and dist/SHA256SUMS over them.
# Usage: scripts/release.sh [PLATFORM...]   (make release; default all of
# linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64
go=${GO:-go}
version=$(git describe --always --dirty)
rm -rf dist
mkdir dist
for platform in "$@"; do
	os=${platform%/*} arch=${platform#*/}
	out=dist/luagent-$version-$os-$arch
	[ "$os" = windows ] && out=$out.exe
	echo "release.sh: $out"
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch "$go" build -trimpath \
		-ldflags "-X main.version=$version" -o "$out" ./cmd/luagent
done
(cd dist && sha256sum luagent-* >SHA256SUMS)
echo "release.sh: dist/SHA256SUMS"
cat dist/SHA256SUMS
