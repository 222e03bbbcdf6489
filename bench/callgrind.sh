#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/callgrind.sh - instructions per operation for each testcase and
# target, counted by valgrind's callgrind: the repeatable figure for a change
# to a hot path (ops/s on a shared 2-core machine move by +-10%; Ir does not).
#
# For each testcase and target, uvfs-bench runs one worker for a fixed number
# of iterations (--iterations) under callgrind, twice: N1 and N2 iterations.
# Setup, library loading and teardown cost the same in both runs, so
#     Ir/op = (Ir(N2) - Ir(N1)) / (N2 - N1)
# is the cost of one loop iteration: the testcase's calls plus a few
# instructions of loop (the stop check and the counter).  Ir counts every
# thread of the process (a call_rcu thread's deferred frees included).
#
# The host target's figure is user space only: valgrind cannot see into the
# kernel, so for the host it counts glibc's syscall wrappers and the loop,
# not the system call itself.  It is printed for completeness, not as a
# comparison with uvfs.
#
# usage: bench/callgrind.sh [-b BUILD] [-o OUT] [-T tc,tc] [--targets t,t] [N1 N2]
#   defaults: BUILD=build, OUT=bench-results, all testcases, all three
#   targets, N1=5000 N2=55000.  Writes OUT/callgrind.txt and OUT/callgrind.json.
set -eu

build=build
out=bench-results
tests=
targets="uvfs,uvfs-baseline,host"
while [ $# -gt 0 ]; do
	case "$1" in
	-b) build=$2; shift 2 ;;
	-o) out=$2; shift 2 ;;
	-T) tests=$2; shift 2 ;;
	--targets) targets=$2; shift 2 ;;
	-h|--help) sed -n '3,25p' "$0"; exit 0 ;;
	-*) echo "callgrind.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
n1=${1:-5000}
n2=${2:-55000}
bench=${BENCH:-$build/bench/uvfs-bench}
lib=${LIB:-$build/libuvfs.so}
blib=${BASELINE_LIB:-$build/libuvfs-baseline.so}

command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed" >&2; exit 1; }
[ -x "$bench" ] || { echo "callgrind.sh: no $bench (build first)" >&2; exit 1; }
[ -n "$tests" ] || tests=$("$bench" --list | awk '{print $1}' | paste -sd, -)
mkdir -p "$out"
tmp=$(mktemp -d /tmp/uvfs-callgrind.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# ir TESTCASE TARGET N: "IR ITERATIONS" of one run (a job such as messaging
# rounds N to whole loops and reports its own count), or a word saying why
# there is none
ir() {
	f="$tmp/cg.$1.$2.$3"
	if valgrind --tool=callgrind --callgrind-out-file="$f" \
		"$bench" --lib "$lib" --baseline-lib "$blib" -T "$1" --targets "$2" \
		--iterations "$3" >"$tmp/log" 2>&1; then
		echo "$(awk '/^(summary|totals):/ { print $2; exit }' "$f")" \
			"$(awk '$3 == "iterations" { print $4; exit }' "$tmp/log")"
	else
		rc=$?
		if [ $rc = 4 ]; then echo "n/a"; else
			echo "callgrind.sh: $1 $2 $3 failed (exit $rc):" >&2
			grep -v '^==' "$tmp/log" | tail -5 >&2
			echo "FAIL"
		fi
	fi
}

{
	echo "# instructions per operation (callgrind Ir), (Ir(N2)-Ir(N1))/(N2-N1), N1=$n1 N2=$n2"
	echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -srm); $(valgrind --version)"
	echo "# host: user-space instructions only (valgrind does not see the kernel)"
	printf "%-12s %-4s" testcase seed
	for t in $(echo "$targets" | tr , ' '); do printf " %14s" "$t"; done
	printf " %12s\n" "base/uvfs"
} >"$tmp/table"
echo "[" >"$tmp/json"
first=1
for tc in $(echo "$tests" | tr , ' '); do
	seed=$("$bench" --list | awk -v t="$tc" '$1 == t { print $3 }')
	printf "%-12s %-4s" "$tc" "$seed" >>"$tmp/table"
	u=; b=
	for t in $(echo "$targets" | tr , ' '); do
		echo "callgrind: $tc $t ..." >&2
		r1=$(ir "$tc" "$t" "$n1")
		r2=$(ir "$tc" "$t" "$n2")
		a=${r1% *}; i1=${r1#* }
		z=${r2% *}; i2=${r2#* }
		case "$a$z$i1$i2" in
		*[!0-9]*|"") per=$(case "$r1$r2" in *n/a*) echo n/a ;; *) echo FAIL ;; esac)
			i1=$n1; i2=$n2 ;;
		*) per=$(awk -v a="$a" -v z="$z" -v n1="$i1" -v n2="$i2" \
			'BEGIN { printf "%.1f", (z - a) / (n2 - n1) }') ;;
		esac
		printf " %14s" "$per" >>"$tmp/table"
		[ "$t" = uvfs ] && u=$per
		[ "$t" = uvfs-baseline ] && b=$per
		[ $first = 1 ] || echo "," >>"$tmp/json"
		first=0
		case "$per" in
		*[0-9]) jper=$per ;;
		*) jper=null ;;
		esac
		case "$seed" in -|"") jseed=null ;; *) jseed="\"$seed\"" ;; esac
		printf '  {"testcase": "%s", "seed": %s, "target": "%s", "n1": %s, "n2": %s, "ir_n1": "%s", "ir_n2": "%s", "ir_per_op": %s}' \
			"$tc" "$jseed" "$t" "$i1" "$i2" "$a" "$z" "$jper" >>"$tmp/json"
	done
	case "$u$b" in
	*[!0-9.]*|"") printf " %12s\n" - >>"$tmp/table" ;;
	*) [ -n "$u" ] && [ -n "$b" ] || { printf " %12s\n" - >>"$tmp/table"; continue; }
	   awk -v u="$u" -v b="$b" 'BEGIN { if (u > 0) printf " %11.3fx\n", b / u; else print " -" }' >>"$tmp/table" ;;
	esac
done
printf "\n]\n" >>"$tmp/json"
cp "$tmp/table" "$out/callgrind.txt"
cp "$tmp/json" "$out/callgrind.json"
cat "$out/callgrind.txt"
echo
echo "written: $out/callgrind.txt $out/callgrind.json"
