#!/bin/sh
# The threaded tests under ThreadSanitizer: builds BUILD (default build-tsan)
# with -Db_sanitize=thread if needed, then runs the stress programs and the
# threaded unit tests through tests/run.sh, which prints the
# "N passed, N failed" line.  Any TSan report fails its program: TSan exits
# with exitcode 66 after the first one (halt_on_error).  tests/tsan.supp
# suppresses liburcu's grace-period machinery only (see its comments).
#
# detect_deadlocks=0: the directory lock order is by position in the tree
# (ancestor first, see docs/ARCHITECTURE.md), and rename changes positions,
# so two directories are taken in either order at different times; TSan's
# detector keeps one order per pair of locks for the whole run and reports
# that as an inversion.  A real deadlock hangs the stress test instead.
# stress/lifetimes was kept out of this stage for two sessions: its link/umount
# loop made TSan report a walker reading a link body's neighbour chunk, just
# allocated or freed by the other thread.  That was lib/hash.h's word-at-a-time
# load reading past the body's NUL, which sanitized builds no longer do
# (unit/unit-pathbounds reproduces it on every run).
set -u
BUILD=${1:-build-tsan}
cd "$(dirname "$0")/.."
if [ ! -f "$BUILD/build.ninja" ]; then
	meson setup "$BUILD" -Db_sanitize=thread -Db_lundef=false || exit 1
fi
programs="\
	stress/stress stress/stress-pipes stress/stress-epoll stress/stress-times stress/readdir-renames stress/stress-overlay \
	unit/unit-fdshare unit/unit-fdrace unit/unit-bitmap unit/unit-mount unit/unit-changehook unit/unit-refcount \
	unit/unit-counter unit/unit-seqcount unit/unit-inotify unit/unit-xattr unit/unit-cred unit/unit-splice \
	unit/unit-locks unit/unit-pathbounds stress/lifetimes unit/unit-testfs unit/unit-hostfs stress/stress-pathcache \
	unit/unit-pathcache unit/unit-hostfs-watch stress/stress-hostwatch unit/unit-hostfs-listing unit/unit-hostfs-pages unit/unit-rcu-cache unit/unit-rwsem \
	stress/stress-onename"
# only these programs (and the library they link) are built: the stage runs
# nothing else, and building the whole tree cost CI minutes
# shellcheck disable=SC2086
ninja -C "$BUILD" $(for t in $programs; do echo "tests/$t"; done) || exit 1
# suppress_equal_addresses=0: TSan compares each report's address with every
# earlier one (a linear scan); the call_rcu thread's frees at uvfs_destroy
# make thousands of suppressed reports, and the scans made that phase take
# minutes (stress's watchdog fired).  Equal stacks are still reported once.
#
# Reports go to files (tests/run.sh shows only a program's last lines) and
# are printed whole at the end.
logs=$PWD/$BUILD/tsan-reports
rm -rf "$logs" && mkdir -p "$logs" || exit 1
TSAN_OPTIONS="suppressions=$PWD/tests/tsan.supp halt_on_error=1 exitcode=66 detect_deadlocks=0 suppress_equal_addresses=0 history_size=4 log_path=$logs/report${TSAN_EXTRA:+ $TSAN_EXTRA}"
export TSAN_OPTIONS
sh tests/run.sh "$BUILD" $programs >"$logs/run.log" 2>&1
status=$?
for f in "$logs"/report.*; do
	[ -f "$f" ] && echo "== ThreadSanitizer report $f" && cat "$f"
done
# the summary last: .ci/run reads the last "N passed, N failed" line
cat "$logs/run.log"
exit $status
