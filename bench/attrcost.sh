#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/attrcost.sh - instructions per attribute change (chmod, chown,
# utimensat, ftruncate of a tmpfs file; bench/attrcost.c), counted by
# callgrind as bench/callgrind.sh counts: Ir/call = (Ir(N2) - Ir(N1)) /
# (N2 - N1), so setup and teardown cancel out.
#
# usage: bench/attrcost.sh [-b BUILD] [N1 N2]   (defaults build, 2000 12000)
set -eu
build=build
if [ "${1:-}" = -b ]; then build=$2; shift 2; fi
n1=${1:-2000}
n2=${2:-12000}
ac=$build/bench/attrcost
[ -x "$ac" ] || { echo "attrcost.sh: no $ac (build first)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/uvfs-attrcost.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
for k in chmod chown utimens truncate; do
	for n in $n1 $n2; do
		valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$n" "$ac" $k $n >/dev/null 2>"$tmp/log" ||
			{ echo "attrcost.sh: $k $n failed" >&2; tail -3 "$tmp/log" >&2; exit 1; }
	done
	a=$(awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg.$n1")
	b=$(awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg.$n2")
	printf "%-9s %8d Ir/call\n" $k $(( (b - a) / (n2 - n1) ))
done
