#!/bin/sh
# The race tests with their race points on: builds BUILD (default
# build-race) with -Drace_delay=true and AddressSanitizer+UBSan if needed,
# then runs the programs whose races are made to happen at RACE_POINT()s
# (src/lib/race.h): each fails on every run where a lifetime or an fd-table
# bug is back, and ASan names the freed memory.  Prints tests/run.sh's
# "N passed, N failed" line last.
set -u
BUILD=${1:-build-race}
cd "$(dirname "$0")/.."
if [ ! -f "$BUILD/build.ninja" ]; then
	meson setup "$BUILD" -Drace_delay=true -Db_sanitize=address,undefined -Db_lundef=false || exit 1
fi
programs="stress/lifetimes unit/unit-fdrace"
# only the programs this stage runs are built
# shellcheck disable=SC2086
ninja -C "$BUILD" $(for t in $programs; do echo "tests/$t"; done) || exit 1
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
	exec sh tests/run.sh "$BUILD" $programs
