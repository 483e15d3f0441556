#!/bin/sh
# ensure-debs.sh PKG... - install the Debian packages that are missing, and
# only those, so `make deps` is cheap when everything is already there.
set -eu
missing=""
for pkg in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $pkg"
    fi
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "pecert: missing Debian packages:$missing (run as root, or: sudo apt-get install$missing)" >&2
    exit 2
fi
echo "pecert: installing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086 # word splitting of the package list is intended
apt-get install -y -qq --no-install-recommends $missing
