#!/usr/bin/env bash
# Installs pinned npm packages: `npm ci` in each DIR (its package.json and
# package-lock.json), then a stamp, DIR/node_modules/.installed, so that a
# later run skips a folder whose stamp is newer than both files.
# Usage: scripts/install-npm.sh DIR...    (NPM names the npm command)
#   make peers:  scripts/peers scripts/tsclient scripts/sdktypes scripts/acpclient
#   make judges: scripts/conformance/legacy scripts/conformance/modern
set -euo pipefail
cd "$(dirname "$0")/.."
npm=${NPM:-npm}
for dir in "$@"; do
	stamp=$dir/node_modules/.installed
	[ -f "$dir/package-lock.json" ] || { echo "install-npm.sh: no $dir/package-lock.json" >&2; exit 1; }
	if [ "$stamp" -nt "$dir/package-lock.json" ] && [ "$stamp" -nt "$dir/package.json" ]; then
		continue
	fi
	echo "install-npm.sh: npm ci in $dir"
	"$npm" ci --prefix "$dir" --no-audit --no-fund --loglevel=error
	touch "$stamp"
done
