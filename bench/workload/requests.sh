#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# requests.sh BUILD [-o OPTS] [-s SRC] [-k]
#            - the FUSE requests each step of the workload bench costs through
#              a fresh uvfs-fuse mount, counted by opcode (docs/BENCHMARKS.md,
#              "uvfs-fuse: where each request of tar -x and rm -rf comes from").
#
# The steps, in this order, on a tarball of SRC (default
# /usr/include/linux: a few hundred files) made on a private tmpfs:
#   tar     tar -x (as root: it keeps the tarball's owners and modes)
#   cat     find -type f -print0 | xargs -0 cat, twice (cat2: from the caches)
#   find    find
#   ls      ls -lR
#   rm      rm -rf
# A `cat` of one file runs first, so that the kernel has seen OPEN answered
# ENOSYS (no-open, with default_permissions) before the tar, as on any mount
# that was used: a fresh mount's first tar also costs a RELEASE per file.
# OPTS: the mount's options (default default_permissions, what `make bench`
# mounts; "" for none).  For each step: the requests, per regular file of
# the tree, and each opcode's count, from `uvfs-fuse -d`.  -k: also where
# each request came from in the kernel (perf's fuse:fuse_request_send
# tracepoint with call chains: the six callers above the queueing), which
# needs perf.
# Needs root, tar, fusermount3.  Everything it mounts is unmounted at the end.
set -u

build=${1:?usage: requests.sh BUILD [-o OPTS] [-s SRC] [-k]}
shift
opts=default_permissions
src=/usr/include/linux
kernel=no
while getopts o:s:k c; do
	case $c in
	o) opts=$OPTARG ;;
	s) src=$OPTARG ;;
	k) kernel=yes ;;
	*) echo "usage: requests.sh BUILD [-o OPTS] [-s SRC] [-k]" >&2; exit 2 ;;
	esac
done
fuse=$build/tools/uvfs-fuse/uvfs-fuse
top=$(cd "$(dirname "$0")/../.." && pwd)

say() { echo "requests: $*" >&2; }
die() { say "$*"; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (it mounts tmpfs and FUSE file systems)"
[ -x "$fuse" ] || die "$fuse is not built"
[ $kernel = no ] || command -v perf >/dev/null || die "-k needs perf"

work=$(mktemp -d /tmp/uvfs-requests.XXXXXX) || exit 1
server=
cleanup() {
	trap - EXIT INT TERM HUP
	mountpoint -q "$work/m" && { fusermount3 -u "$work/m" 2>/dev/null || umount -l "$work/m"; }
	[ -z "$server" ] || wait "$server" 2>/dev/null
	mountpoint -q "$work/src" && umount "$work/src"
	rm -rf "$work"
}
. "$top/scripts/cleanup-trap.sh"
cleanup_on_exit

mkdir "$work/src" "$work/m" && mount -t tmpfs none "$work/src" || die "mount -t tmpfs failed"
tar -C "$(dirname "$src")" -cf "$work/src/tree.tar" "$(basename "$src")" 2>/dev/null || die "tar -c $src failed"
files=$(tar -tvf "$work/src/tree.tar" | grep -c '^-')
entries=$(tar -tf "$work/src/tree.tar" | wc -l)
tree=$(basename "$src")
log=$work/src/d.log
if [ -n "$opts" ]; then
	"$fuse" -d -o "$opts" "$work/m" </dev/null >"$log" 2>&1 &
else
	"$fuse" -d "$work/m" </dev/null >"$log" 2>&1 &
fi
server=$!
i=0
until mountpoint -q "$work/m"; do
	i=$((i + 1))
	[ $i -lt 100 ] || die "uvfs-fuse did not mount: $(cat "$log")"
	sleep 0.1
done
# one regular file opened and read (no-open's first OPEN)
echo x >"$work/m/first" && cat "$work/m/first" >/dev/null && rm -f "$work/m/first"

# settle: until the log stops growing (FORGET, RELEASE come after the call)
settle() {
	n=-1
	while [ "$n" != "$(wc -l <"$log")" ]; do
		n=$(wc -l <"$log")
		sleep 0.3
	done
}

echo "tree: $src ($entries entries, $files regular files); uvfs-fuse -o '${opts}'; $(uname -r)"
echo
echo "| step | requests | per file | by opcode |"
echo "|---|---:|---:|---|"
count() { # count STEP CMD...
	st=$1
	shift
	settle
	n0=$(wc -l <"$log")
	if [ $kernel = yes ]; then
		perf record -q -e fuse:fuse_request_send -g -o "$work/src/$st.perf" -- "$@" >/dev/null 2>&1
	else
		"$@" >/dev/null 2>&1
	fi
	settle
	tail -n +$((n0 + 1)) "$log" | grep -o 'opcode: [A-Z_]*' | sed 's/opcode: //' | sort | uniq -c | sort -rn |
		awk -v st="$st" -v f="$files" '{ n += $1; ops = ops (ops ? ", " : "") $2 " " $1 }
			END { printf "| %s | %d | %.2f | %s |\n", st, n, n / f, ops }'
}
count tar tar -C "$work/m" -xf "$work/src/tree.tar"
count cat sh -c 'find "$1" -type f -print0 | xargs -0 cat' sh "$work/m/$tree"
count cat2 sh -c 'find "$1" -type f -print0 | xargs -0 cat' sh "$work/m/$tree"
count find find "$work/m/$tree"
count ls ls -lR "$work/m/$tree"
count rm rm -rf "$work/m/$tree"

if [ $kernel = yes ]; then
	for st in tar cat cat2 find ls rm; do
		echo
		echo "$st: requests sent by the program's calls, by the kernel functions that sent them"
		echo
		perf script -i "$work/src/$st.perf" 2>/dev/null | awk '
			/fuse_request_send/ {
				op = $0; sub(/.*opcode [0-9]+ \(/, "", op); sub(/\).*/, "", op)
				n = 0; chain = ""
				while ((getline line) > 0 && line != "") {
					split(line, w, " "); s = w[2]; sub(/\+0x.*/, "", s)
					# the queueing frames say nothing of why
					if (s ~ /^(fuse_dev_queue_req|flush_bg_queue|__fuse_simple_request|fuse_simple_request|fuse_simple_background|fuse_request_queue_background)$/)
						continue
					if (++n <= 6) chain = chain " < " s
				}
				print op chain
			}' | sort | uniq -c | sort -rn | sed 's/^/    /'
	done
fi
