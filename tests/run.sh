#!/bin/sh
# Runs every test program of a build directory and sums their counts.  Each
# program prints, as its last line, "N passed, N failed" (", N skipped" may
# follow) and exits non-zero when anything failed.
#   usage: tests/run.sh [BUILD [PROGRAM...]]
# PROGRAMs (names as in test-list.txt, e.g. stress/stress) replace the list.
# A program still running after TEST_TIMEOUT seconds (default 900) is a
# hang: it is killed and fails, so a deadlock cannot hold the whole run.
BUILD=${1:-build}
[ $# -gt 0 ] && shift
list=${*:-$(cat "$BUILD/tests/test-list.txt")}
total_p=0; total_f=0; total_s=0; status=0
for t in $list; do
	out=$(mktemp)
	echo "== $t"
	start=$(date +%s)
	timeout -k 10 "${TEST_TIMEOUT:-900}" "$BUILD/tests/$t" >"$out" 2>&1
	rc=$?
	[ "$rc" = 124 ] && echo "FAIL $t: still running after ${TEST_TIMEOUT:-900} s, killed (a hang)" >>"$out"
	# every FAIL line, wherever the program printed it (a failure early in a
	# long output must still be named in CI's log), and the last SKIPs
	grep -E '^FAIL' "$out" | head -n 30
	tail -n 40 "$out" | grep -E '^SKIP' | head -n 30
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
	if [ -z "$line" ]; then
		echo "   $t printed no summary (exit $rc)"; tail -n 20 "$out"
		total_f=$((total_f + 1)); status=1
	else
		echo "   $line ($(($(date +%s) - start)) s)"
		p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
		f=$(echo "$line" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
		s=$(echo "$line" | sed -nE 's/.*, ([0-9]+) skipped.*/\1/p')
		total_p=$((total_p + p)); total_f=$((total_f + f)); total_s=$((total_s + ${s:-0}))
		if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
			echo "   $t exited $rc"; tail -n 20 "$out"; total_f=$((total_f + 1))
		fi
		[ "$rc" != 0 ] && status=1
	fi
	rm -f "$out"
done
if [ "$total_s" -gt 0 ]; then
	echo "$total_p passed, $total_f failed, $total_s skipped"
else
	echo "$total_p passed, $total_f failed"
fi
exit $status
