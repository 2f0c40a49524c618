#!/bin/sh
# Usage: tools/ensure_deps.sh PKG...
# Makes sure the given Debian packages are installed. Silent when they all are. As root, installs
# the missing ones with apt-get; otherwise prints the command to run and exits 1.
set -eu

missing=
for pkg in "$@"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
    [ "$status" = installed ] || missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "ensure_deps: missing Debian packages:$missing" >&2
    echo "ensure_deps: install them with:" >&2
    echo "sudo apt-get install -y --no-install-recommends$missing" >&2
    exit 1
fi

echo "ensure_deps: installing$missing" >&2
apt-get update
# shellcheck disable=SC2086  # $missing is a list of package names
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
