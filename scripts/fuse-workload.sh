#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# fuse-workload.sh [-n RUNS] [-b UVFS_FUSE] [-o "OPTS"] [SRC] - time a small
# file-system workload on three file systems, side by side:
#
#   host    a private tmpfs (mount -t tmpfs), the reference;
#   uvfs    a fresh uvfs-fuse mount (default build/tools/uvfs-fuse/uvfs-fuse,
#           options -o default_permissions, or those of -o);
#   bindfs  bindfs over a private tmpfs (Debian package bindfs), an ordinary
#           FUSE pass-through for comparison.
#
# The workload, on a tar archive of SRC (default /usr/include, about 9000
# entries and 130 MB; keep it that size: the machine may be shared) made once
# beforehand: tar -x, find, ls -lR, find | xargs cat, rm -rf.  Each step runs
# RUNS times (default 3) per file system, the file systems taking turns, and
# the table gives the median wall time in seconds and the ratio to host.
# Needs root (mounts), tar, bindfs and fusermount3.  Everything it mounts is
# unmounted at the end, also on Ctrl-C.
set -u

runs=3
fuse=build/tools/uvfs-fuse/uvfs-fuse
fopts="-o default_permissions"
while getopts n:b:o: c; do
	case $c in
	n) runs=$OPTARG ;;
	b) fuse=$OPTARG ;;
	o) fopts=$OPTARG ;;
	*) echo "usage: $0 [-n RUNS] [-b UVFS_FUSE] [-o OPTS] [SRC]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
src=${1:-/usr/include}

die() { echo "fuse-workload: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (it mounts tmpfs and FUSE file systems)"
command -v bindfs >/dev/null || die "no bindfs (apt-get install -y bindfs)"
[ -x "$fuse" ] || die "$fuse is not built"
[ -d "$src" ] || die "$src is not a directory"

work=$(mktemp -d /tmp/fuse-workload.XXXXXX) || exit 1
pid=
cleanup() {
	trap - EXIT INT TERM HUP
	for m in "$work/uvfs" "$work/bindfs"; do
		mountpoint -q "$m" && { fusermount3 -u "$m" 2>/dev/null || umount -l "$m"; }
	done
	[ -n "$pid" ] && wait "$pid" 2>/dev/null
	for m in "$work/host" "$work/bsrc" "$work/src"; do
		mountpoint -q "$m" && umount -l "$m"
	done
	rm -rf "$work"
}
. "$(dirname "$0")/cleanup-trap.sh"
cleanup_on_exit

mkdir "$work/src" "$work/host" "$work/uvfs" "$work/bsrc" "$work/bindfs"
mount -t tmpfs none "$work/src" && mount -t tmpfs none "$work/host" && mount -t tmpfs none "$work/bsrc" ||
	die "mount -t tmpfs failed"
tar -C "$(dirname "$src")" -cf "$work/src/tree.tar" "$(basename "$src")" 2>/dev/null || die "tar -c $src failed"
top=$(basename "$src")
# shellcheck disable=SC2086
"$fuse" -f $fopts "$work/uvfs" </dev/null >"$work/src/uvfs.log" 2>&1 &
pid=$!
bindfs "$work/bsrc" "$work/bindfs" || die "bindfs failed"
i=0
until mountpoint -q "$work/uvfs"; do
	i=$((i + 1))
	[ $i -lt 100 ] && kill -0 "$pid" 2>/dev/null || die "uvfs-fuse did not mount: $(cat "$work/src/uvfs.log")"
	sleep 0.1
done

now() { date +%s.%N; }
# step NAME DIR: run one step in DIR, print its seconds
step() {
	t0=$(now)
	case $1 in
	tar) tar -C "$2" -xf "$work/src/tree.tar" ;;
	find) find "$2/$top" >/dev/null ;;
	ls-lR) ls -lR "$2/$top" >/dev/null ;;
	cat) find "$2/$top" -type f -print0 | xargs -0 cat >/dev/null ;;
	rm) rm -rf "${2:?}/$top" ;;
	esac
	t1=$(now)
	echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }'
}

steps="tar find ls-lR cat rm"
fss="host uvfs bindfs"
r=1
while [ $r -le "$runs" ]; do
	for fs in $fss; do
		for s in $steps; do
			echo "$fs $s $(step "$s" "$work/$fs")" >>"$work/src/times"
		done
	done
	r=$((r + 1))
done

echo "fuse-workload: $src ($(tar -tf "$work/src/tree.tar" | wc -l) entries), $runs runs, median seconds;" \
	"uvfs-fuse $fopts; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| step | host tmpfs | uvfs-fuse | bindfs | uvfs/host | bindfs/host |"
echo "|---|---:|---:|---:|---:|---:|"
for s in $steps; do
	med() { awk -v f="$1" -v s="$s" '$1 == f && $2 == s { print $3 }' "$work/src/times" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
	h=$(med host)
	u=$(med uvfs)
	b=$(med bindfs)
	echo "$s $h $u $b" | awk '{ printf "| %s | %.3f | %.3f | %.3f | %.1fx | %.1fx |\n", $1, $2, $3, $4,
		($2 > 0 ? $3 / $2 : 0), ($2 > 0 ? $4 / $2 : 0) }'
done
