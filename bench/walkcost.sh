#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/walkcost.sh - instructions per path walk by the number of
# components: fstatat of an absolute and a relative path, a failed open and
# an O_CREAT open (+ close) of an existing file, (after-ren) the
# absolute fstatat after each rename of an unrelated file and (after-rdir)
# after each rename of a directory another cached path went through (their
# calls' inclusive count),
# at 1, 2, 4, 8 and 16 components (bench/walkcost.c), counted by callgrind
# as bench/callgrind.sh counts: Ir/call = (Ir(N2) - Ir(N1)) / (N2 - N1), so
# the tree's setup and teardown cancel out.
#
# usage: bench/walkcost.sh [-b BUILD] [N1 N2]   (defaults build, 2000 12000)
set -eu
build=build
if [ "${1:-}" = -b ]; then build=$2; shift 2; fi
n1=${1:-2000}
n2=${2:-12000}
wc=$build/bench/walkcost
[ -x "$wc" ] || { echo "walkcost.sh: no $wc (build first)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/uvfs-walkcost.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
ir() {
	valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$wc" "$1" "$2" "$3" >/dev/null 2>"$tmp/log" ||
		{ echo "walkcost.sh: $1 $2 $3 failed" >&2; tail -3 "$tmp/log" >&2; exit 1; }
	awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg"
}
# the calls of uvfs_fstatat alone, inclusive: between them a rename's
# grace periods run on liburcu's thread, which a whole-program count would
# mix in, differently from run to run
ir_stat() {
	valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$wc" "$1" "$2" "$3" >/dev/null 2>"$tmp/log" ||
		{ echo "walkcost.sh: $1 $2 $3 failed" >&2; tail -3 "$tmp/log" >&2; exit 1; }
	# the cost of main's calls to it (the "=>" line): the function's own
	# summary line leaves out what got inlined from headers
	callgrind_annotate --inclusive=yes "$tmp/cg" |
		awk '/=> .*stat\.c:uvfs_fstatat \(/ { gsub(",", "", $1); print $1; exit }'
}
printf "%-8s" components
for k in abs rel enoent creat after-ren after-rdir; do printf " %9s" $k; done
echo
for d in 1 2 4 8 16; do
	printf "%-8s" $d
	for k in abs rel enoent creat; do
		a=$(ir $k $d $n1)
		b=$(ir $k $d $n2)
		printf " %9d" $(( (b - a) / (n2 - n1) ))
	done
	for k in renabs rendir; do
		a=$(ir_stat $k $d $n1)
		b=$(ir_stat $k $d $n2)
		printf " %9d" $(( (b - a) / (n2 - n1) ))
	done
	echo
done
