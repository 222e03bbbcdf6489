#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/replay/callgrind.sh [-b BUILD] [TRACE...] - instructions per replayed
# call of each trace (default bench/traces/*.trace) on uvfs and
# uvfs-baseline, counted by callgrind: free of the machine's load, unlike
# the replay's ns/call.  Each figure is (Ir(N2) - Ir(N1)) / ((N2 - N1) *
# calls) of `uvfs-bench replay --iterations N`, so the mirror, the warm-up
# replay and the program's start cancel out.  N1, N2: environment (default 2
# and 7).  The host is not counted: valgrind does not see the kernel.
set -eu

build=build
if [ "${1:-}" = -b ]; then
	build=$2
	shift 2
fi
here=$(cd "$(dirname "$0")" && pwd)
bench=$build/bench/uvfs-bench
n1=${N1:-2}
n2=${N2:-7}
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed" >&2; exit 1; }
[ -x "$bench" ] || { echo "callgrind.sh: no $bench (build first)" >&2; exit 1; }
[ $# -gt 0 ] || set -- "$here"/../traces/*.trace
tmp=$(mktemp -d /tmp/uvfs-replay-callgrind.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# ir TRACE TARGET N: "IR CALLS" of one run
ir() {
	f="$tmp/cg"
	valgrind --tool=callgrind --callgrind-out-file="$f" "$bench" replay \
		--lib "$build/libuvfs.so" --baseline-lib "$build/libuvfs-baseline.so" \
		--targets "$2" --iterations "$3" "$1" >"$tmp/log" 2>&1 ||
		{ echo "callgrind.sh: $1 $2 $3 failed:" >&2; tail -5 "$tmp/log" >&2; exit 1; }
	echo "$(awk '/^(summary|totals):/ { print $2; exit }' "$f")" \
		"$(awk '$3 == "iterations" { print $6; exit }' "$tmp/log")"
}

echo "# instructions per replayed call (callgrind Ir), (Ir(N2)-Ir(N1))/((N2-N1)*calls), N1=$n1 N2=$n2"
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -srm); $(valgrind --version)"
printf "%-14s %7s %14s %14s %10s\n" trace calls uvfs uvfs-baseline base/uvfs
for t in "$@"; do
	name=$(basename "$t" .trace)
	set -- $(ir "$t" uvfs "$n1") $(ir "$t" uvfs "$n2") \
		$(ir "$t" uvfs-baseline "$n1") $(ir "$t" uvfs-baseline "$n2")
	awk -v n="$name" -v a1="$1" -v c="$2" -v a2="$3" -v b1="$5" -v b2="$7" -v d="$((n2 - n1))" \
		'BEGIN { u = (a2 - a1) / (d * c); b = (b2 - b1) / (d * c);
			 printf "%-14s %7d %14.0f %14.0f %9.2fx\n", n, c, u, b, b / u }'
done
