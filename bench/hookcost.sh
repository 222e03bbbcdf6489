#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/hookcost.sh - instructions per call with and without change
# listeners (bench/hookcost.c), counted by callgrind as bench/callgrind.sh
# counts: Ir/call = (Ir(N2) - Ir(N1)) / (N2 - N1), so setup and teardown
# cancel out.  Modes the binary lacks (HC=... built against a library from
# before the listeners) are left out.
#
# The FUSE frontend itself cannot run under callgrind (the mount's first
# request is never answered there), so with root and /dev/fuse the last
# lines time 2,000,000 pwrites with the frontend mounted against none, best
# of three wall-clock runs: ns per call.
#
# usage: bench/hookcost.sh [-b BUILD] [N1 N2]   (defaults build, 2000 12000)
set -eu
build=build
if [ "${1:-}" = -b ]; then build=$2; shift 2; fi
n1=${1:-2000}
n2=${2:-12000}
hc=${HC:-$build/bench/hookcost}
[ -x "$hc" ] || { echo "hookcost.sh: no $hc (build first)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/uvfs-hookcost.XXXXXX)
mkdir "$tmp/mnt"
trap 'umount -l "$tmp/mnt" 2>/dev/null; rm -rf "$tmp"' EXIT
modes=
for m in none hook listener; do
	"$hc" pwrite $m 1 >/dev/null 2>&1 && modes="$modes $m"
done
printf "%-7s" op
for m in $modes; do printf " %9s" $m; done
echo
for op in pwrite write1 read1 stat1; do
	printf "%-7s" $op
	for m in $modes; do
		for n in $n1 $n2; do
			valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$n" "$hc" $op $m $n \
				>/dev/null 2>"$tmp/log" ||
				{ echo "hookcost.sh: $op $m $n failed" >&2; tail -3 "$tmp/log" >&2; exit 1; }
		done
		a=$(awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg.$n1")
		b=$(awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg.$n2")
		printf " %9d" $(( (b - a) / (n2 - n1) ))
	done
	echo
done
if [ "$(id -u)" = 0 ] && [ -c /dev/fuse ] && "$hc" pwrite fuse 1 "$tmp/mnt" >/dev/null 2>&1; then
	for m in none fuse; do
		best=
		for i in 1 2 3; do
			t0=$(date +%s%N)
			"$hc" pwrite $m 2000000 "$tmp/mnt" >/dev/null
			t=$(( ($(date +%s%N) - t0) / 2000000 ))
			[ -z "$best" ] || [ $t -lt $best ] && best=$t
		done
		printf "pwrite wall-clock, %-4s %4d ns/call\n" $m $best
	done
fi
