#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/metacost.sh - instructions per pair of name changes (mkdir+rmdir,
# rename there and back, link+unlink; bench/metacost.c), counted by
# callgrind as bench/callgrind.sh counts: Ir/pair = (Ir(N2) - Ir(N1)) /
# (N2 - N1).  LIB=DIR runs the program against another build's libuvfs.so
# (LD_LIBRARY_PATH), for a before/after in one tree.  The per-thread caches
# of RCU-freed objects fall back to calloc while grace periods lag, which
# under valgrind moves rename's figure by a few hundred between runs.
#
# usage: bench/metacost.sh [-b BUILD] [N1 N2]   (defaults build, 2000 12000)
set -eu
build=build
if [ "${1:-}" = -b ]; then build=$2; shift 2; fi
n1=${1:-2000}
n2=${2:-12000}
mc=$build/bench/metacost
[ -x "$mc" ] || { echo "metacost.sh: no $mc (build first)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/uvfs-metacost.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
ir() {
	LD_LIBRARY_PATH=${LIB:-}${LIB:+:}${LD_LIBRARY_PATH:-} valgrind --tool=callgrind \
		--callgrind-out-file="$tmp/cg" "$mc" "$1" "$2" >/dev/null 2>"$tmp/log" ||
		{ echo "metacost.sh: $1 $2 failed" >&2; tail -3 "$tmp/log" >&2; exit 1; }
	awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg"
}
for k in mkdir rename link; do
	a=$(ir $k $n1)
	b=$(ir $k $n2)
	printf "%-8s %8d\n" $k $(( (b - a) / (n2 - n1) ))
done
