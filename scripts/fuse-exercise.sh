#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# fuse-exercise.sh [-b UVFS_FUSE] [-u USER] [-k] TARGET COMMAND... - run a
# file-system exerciser (stress-ng, fio, dbench, bonnie++, sysbench fileio)
# in a fresh directory of TARGET, the directory as its working directory and
# in $T, and report its exit status and the server's log:
#
#   host      a private tmpfs (mount -t tmpfs), the reference
#   dp        uvfs-fuse -o default_permissions (uvfs's own tmpfs)
#   plain     uvfs-fuse with no option
#   locks     uvfs-fuse -o default_permissions,locks (uvfs keeps the locks)
#   writeback uvfs-fuse -o default_permissions,writeback
#   single    uvfs-fuse -s -o default_permissions (one thread)
#   clonefd   uvfs-fuse -o clone_fd,max_idle_threads=2 (libfuse's loop)
#   hostdir   uvfs-fuse -o hostdir=D, D a private tmpfs
#   hostdisk  uvfs-fuse -o hostdir=D, D a directory of /var/tmp (a disk
#             file system: ext4 here)
#   overlay   uvfs-fuse -o lowerdir=L,upperdir=U,workdir=W on a private
#             tmpfs, L holding a few files and directories
#
# -u USER runs COMMAND as USER (the mounts then get -o allow_other and the
# directory is USER's); -b names the server (default
# build/tools/uvfs-fuse/uvfs-fuse; build-asan's to catch memory errors); -k
# keeps the work directory.  The exit status is COMMAND's; 99 when the
# server printed anything (a sanitizer report, an error), 98 when it died,
# 97 when the mount could not be made; when the unmount fails (EBUSY) for
# 10 s it names the processes that hold the mount, and when the server has
# not ended 30 s after it, its threads' stacks (gdb).  Needs root.
set -u

fuse=build/tools/uvfs-fuse/uvfs-fuse
user=
keep=
while getopts b:u:k c; do
	case $c in
	b) fuse=$OPTARG ;;
	u) user=$OPTARG ;;
	k) keep=1 ;;
	*) echo "usage: $0 [-b UVFS_FUSE] [-u USER] [-k] TARGET COMMAND..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { echo "usage: $0 [-b UVFS_FUSE] [-u USER] [-k] TARGET COMMAND..." >&2; exit 2; }
target=$1
shift
die() { echo "fuse-exercise: $*" >&2; exit 97; }
[ "$(id -u)" = 0 ] || die "needs root (it mounts tmpfs and FUSE file systems)"
[ -x "$fuse" ] || die "$fuse is not built"
fuse=$(realpath "$fuse")

work=$(mktemp -d /tmp/fuse-exercise.XXXXXX) || exit 97
chmod 755 "$work"
pid=
cleanup() {
	trap - EXIT INT TERM HUP
	grep -q " $work/mnt " /proc/mounts && { fusermount3 -u "$work/mnt" 2>/dev/null || umount -l "$work/mnt"; }
	[ -n "$pid" ] && { kill $pid 2>/dev/null; wait "$pid" 2>/dev/null; }
	[ -h "$work/back" ] || ! mountpoint -q "$work/back" || umount -l "$work/back"
	grep -q " $work/mnt " /proc/mounts && umount -l "$work/mnt"
	[ -n "$keep" ] && { echo "fuse-exercise: kept $work" >&2; return; }
	[ -h "$work/back" ] && rm -rf "$(readlink "$work/back")"
	rm -rf "$work"
}
. "$(dirname "$0")/cleanup-trap.sh"
cleanup_on_exit

mkdir "$work/mnt" "$work/back"
mount -t tmpfs -o mode=755 none "$work/back" || die "mount -t tmpfs failed"
ao=
single=
[ -n "$user" ] && ao=",allow_other"
opts=
case $target in
host)
	umount "$work/back"
	mount -t tmpfs -o mode=1777 none "$work/mnt" || die "mount -t tmpfs failed" ;;
dp) opts="default_permissions$ao" ;;
locks) opts="default_permissions,locks$ao" ;;
writeback) opts="default_permissions,writeback$ao" ;;
single) opts="default_permissions$ao" single=-s ;;
clonefd) opts="clone_fd,max_idle_threads=2$ao" ;;
plain) opts="${ao#,}" ;;
hostdir)
	chmod 1777 "$work/back"
	opts="hostdir=$work/back$ao" ;;
hostdisk)
	umount "$work/back"
	rmdir "$work/back"
	disk=$(mktemp -d /var/tmp/fuse-exercise.XXXXXX) || die "mktemp in /var/tmp failed"
	ln -s "$disk" "$work/back"
	chmod 1777 "$disk"
	opts="hostdir=$disk$ao" ;;
overlay)
	mkdir -p "$work/back/l/d/e" "$work/back/u" "$work/back/w"
	echo lower >"$work/back/l/f"
	echo lower >"$work/back/l/d/g"
	chmod 1777 "$work/back/l"
	opts="lowerdir=$work/back/l,upperdir=$work/back/u,workdir=$work/back/w$ao" ;;
*) die "unknown target $target (host dp plain locks writeback single clonefd hostdir hostdisk overlay)" ;;
esac
if [ "$target" != host ]; then
	if [ -n "$opts" ]; then
		"$fuse" -f $single -o "$opts" "$work/mnt" >"$work/log" 2>&1 &
	else
		"$fuse" -f "$work/mnt" >"$work/log" 2>&1 &
	fi
	pid=$!
	i=0
	until mountpoint -q "$work/mnt"; do
		i=$((i + 1))
		[ $i -gt 500 ] && die "no mount within 10 s: $(cat "$work/log")"
		kill -0 $pid 2>/dev/null || die "the server ended: $(cat "$work/log")"
		sleep 0.02
	done
fi
T=$work/mnt/t
mkdir "$T" || die "mkdir in the mount failed"
chmod 1777 "$T"
export T
if [ -n "$user" ]; then
	chown "$user" "$T"
	(cd "$T" && setpriv --reuid="$user" --regid="$(id -g "$user")" --clear-groups \
		env HOME="$T" T="$T" "$@")
else
	(cd "$T" && "$@")
fi
st=$?
if [ -n "$pid" ]; then
	cd /
	if ! kill -0 $pid 2>/dev/null; then
		echo "fuse-exercise: the server died:" >&2
		st=98
	fi
	# a process that held the mount (one of the command's, ending) makes
	# the unmount fail with EBUSY: try for 10 s, then say who holds it
	i=0
	until err=$(fusermount3 -u "$work/mnt" 2>&1); do
		i=$((i + 1))
		if [ $i -ge 50 ]; then
			echo "fuse-exercise: fusermount3 -u: $err; held by:" >&2
			for q in /proc/[0-9]*; do
				ls -l $q/cwd $q/root $q/fd 2>/dev/null | grep -q "$work/mnt" &&
					echo "  ${q#/proc/} $(tr '\0' ' ' <$q/cmdline)" >&2
			done
			break
		fi
		sleep 0.2
	done
	i=0
	while kill -0 $pid 2>/dev/null && [ $i -lt 1500 ]; do
		i=$((i + 1))
		sleep 0.02
	done
	if kill -0 $pid 2>/dev/null; then
		echo "fuse-exercise: the server did not end within 30 s of the unmount:" >&2
		for t in /proc/$pid/task/*; do echo "$t $(cat $t/wchan)"; done >&2
		command -v gdb >/dev/null && gdb -p $pid -batch -ex "thread apply all bt" 2>&1 | grep -E '^(#|Thread)' >&2
		kill -9 $pid
		st=98
	fi
	wait $pid
	sst=$?
	pid=
	[ $sst -ne 0 ] && [ $st -ne 98 ] && { echo "fuse-exercise: the server's exit status: $sst" >&2; st=98; }
	if [ -s "$work/log" ]; then
		echo "fuse-exercise: the server printed:" >&2
		head -c 20000 "$work/log" >&2
		[ $st -ne 98 ] && st=99
	fi
fi
exit $st
