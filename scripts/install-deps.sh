#!/bin/sh
# Installs the build and test dependencies on Debian when they are missing.
# Run as root it uses apt-get; otherwise it only reports what is missing.
set -e
# the FUSE tests run real programs in the mount: tar, git, make, sqlite3,
# fio (tests/fuse/test-fuse-fio);
# scripts/fuse-workload.sh compares the mount with bindfs, bench/workload/ with
# bindfs and fuse-overlayfs; CI's manual and
# ABI checks need mandoc and abigail-tools (abidiff)
pkgs="meson ninja-build pkg-config gcc make liburcu-dev libfuse3-dev fuse3 valgrind tar git sqlite3 fio diffutils bindfs fuse-overlayfs mandoc abigail-tools"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
	echo "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq $missing >/dev/null
else
	echo "missing packages:$missing (run as root, or install them)" >&2
	exit 1
fi
