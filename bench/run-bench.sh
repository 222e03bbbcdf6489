#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# run-bench.sh BUILD [uvfs-bench options...] - what `make bench` runs.
#
# Runs uvfs-bench on BUILD's libraries.  Where it can (root, a usable
# /dev/fuse, fusermount3, BUILD/tools/uvfs-fuse/uvfs-fuse built), it first
# mounts a fresh uvfs-fuse on a temporary directory and adds the target
# uvfs-fuse (the host's system calls into that mount) with --fuse-dir; the
# mount is always taken down afterwards, also on failure or Ctrl-C.
# Otherwise it runs the bench without that target and says why.
#
# To keep `make bench` near its usual time, uvfs-fuse runs only in threads
# mode with 1 worker (--fuse-mode threads --fuse-workers 1, about 35 s more
# with the default testcases): the cost of the FUSE round trip, not its
# scaling.  Options given after them (make bench BENCH_ARGS="--fuse-mode both
# --fuse-workers all") override that.  BENCH_FUSE=no skips the mount.
#
# Then the replays of recorded programs (uvfs-bench replay, about 15 s):
# every bench/traces/*.trace on uvfs, uvfs-baseline and the host; their table
# follows the testcases' on stdout and in bench-results/table.txt, with
# replay.json and replay.svg beside results.json.  BENCH_REPLAY=no skips
# them; REPLAY_ARGS are passed to them (e.g. "--time 1").
#
# Last, as root with FUSE, the workload bench (bench/workload/workload.sh -O,
# about 4 minutes): tar -x, find, ls -lR, cat, rm -rf, a build and SQLite on
# the host's tmpfs, uvfs-fuse, bindfs and uvfs-fuse -o hostdir, then copy-up
# and untar on overlays; bench-results/workload.txt and workload.json, its
# table appended to table.txt.  BENCH_WORKLOAD=no skips it.
set -u

build=${1:?usage: run-bench.sh BUILD [uvfs-bench options...]}
shift
bench=$build/bench/uvfs-bench
fuse=$build/tools/uvfs-fuse/uvfs-fuse
mnt=
pid=

say() { echo "run-bench: $*" >&2; }

mounted() {
	# the mount point exactly, as /proc/self/mountinfo's 5th field
	[ -n "$mnt" ] && awk -v m="$mnt" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo
}

cleanup() {
	trap - EXIT INT TERM HUP
	if mounted; then
		i=0
		# busy for a moment if a measurement child is still exiting
		until fusermount3 -u "$mnt" 2>/dev/null; do
			i=$((i + 1))
			if [ $i -ge 20 ]; then
				say "fusermount3 -u $mnt failed; detaching it lazily"
				fusermount3 -u -z "$mnt"
				break
			fi
			sleep 0.25
		done
	fi
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null   # only if it is still there (it exits on unmount)
		wait "$pid" 2>/dev/null
	fi
	[ -n "$mnt" ] && rmdir "$mnt" 2>/dev/null
	mnt=
	pid=
}

why=
if [ "${BENCH_FUSE:-auto}" = no ]; then
	why="BENCH_FUSE=no"
elif [ "$(id -u)" != 0 ]; then
	why="not running as root"
elif [ ! -c /dev/fuse ] || ! (exec 3<>/dev/fuse) 2>/dev/null; then
	why="/dev/fuse is missing or cannot be opened"
elif ! command -v fusermount3 >/dev/null 2>&1; then
	why="no fusermount3 (package fuse3)"
elif [ ! -x "$fuse" ]; then
	why="$fuse is not built (needs libfuse3-dev)"
fi

status=0
if [ -z "$why" ]; then
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP
	mnt=$(mktemp -d /tmp/uvfs-bench-fuse.XXXXXX) || exit 1
	"$fuse" -f -o default_permissions "$mnt" </dev/null &
	pid=$!
	i=0
	until mounted; do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid"
			why="uvfs-fuse exited with status $? before mounting"
			pid=
			break
		fi
		i=$((i + 1))
		if [ $i -ge 100 ]; then
			why="uvfs-fuse did not mount $mnt within 10 s"
			break
		fi
		sleep 0.1
	done
fi

if [ -z "$why" ]; then
	say "target uvfs-fuse: $fuse -f -o default_permissions $mnt (threads, 1 worker)"
	"$bench" --lib "$build/libuvfs.so" --baseline-lib "$build/libuvfs-baseline.so" \
		--out bench-results --fuse-dir "$mnt" --fuse-mode threads --fuse-workers 1 "$@"
	status=$?
else
	cleanup
	say "no target uvfs-fuse: $why"
	"$bench" --lib "$build/libuvfs.so" --baseline-lib "$build/libuvfs-baseline.so" \
		--out bench-results "$@"
	status=$?
fi
cleanup

if [ "${BENCH_REPLAY:-yes}" != no ] && [ $status -ne 130 ]; then
	traces=$(dirname "$0")/traces
	rm -f bench-results/replay.txt
	# shellcheck disable=SC2086
	"$bench" replay --lib "$build/libuvfs.so" --baseline-lib "$build/libuvfs-baseline.so" \
		--out bench-results ${REPLAY_ARGS:-} "$traces"/*.trace
	rstatus=$?
	[ -f bench-results/replay.txt ] && [ -f bench-results/table.txt ] &&
		cat bench-results/replay.txt >>bench-results/table.txt
	[ $status -eq 0 ] && status=$rstatus
fi
if [ "${BENCH_WORKLOAD:-yes}" != no ] && [ $status -ne 130 ]; then
	if [ "$(id -u)" = 0 ] && [ -c /dev/fuse ] && [ -x "$fuse" ]; then
		sh "$(dirname "$0")/workload/workload.sh" "$build" -O -o bench-results
		wstatus=$?
		[ -f bench-results/workload.txt ] && [ -f bench-results/table.txt ] &&
			cat bench-results/workload.txt >>bench-results/table.txt
		[ $status -eq 0 ] && status=$wstatus
	else
		say "no workload bench: needs root, /dev/fuse and $fuse"
	fi
fi
exit $status
