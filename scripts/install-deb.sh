#!/usr/bin/env bash
# Installs Debian packages whose command of the same name is missing (on
# PATH or in /usr/sbin), with sudo when not root; present ones cost nothing.
# Usage: scripts/install-deb.sh PKG...   (make nginx: nginx; make
# bench-patterns: lua5.1)
set -euo pipefail
missing=()
for pkg in "$@"; do
	command -v "$pkg" >/dev/null || [ -x "/usr/sbin/$pkg" ] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
echo "install-deb.sh: installing ${missing[*]} (Debian's packages)"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
