# SPDX-License-Identifier: LGPL-2.1-or-later
#
# cleanup-trap.sh - sourced (not run) by the scripts that mount file systems
# under a work directory of their own (scripts/fuse-workload.sh,
# bench/workload/workload.sh).  cleanup_on_exit makes the caller's cleanup()
# run however the script ends: at its end, on an error's exit, on Ctrl-C, a
# kill or a hang-up.  A signal exits with the status a shell killed by it
# shows (128 + its number), so that callers still see why it stopped; the
# EXIT trap then unmounts, as it would have after a normal end.
cleanup_on_exit() {
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP
}
