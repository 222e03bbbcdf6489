#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# workload.sh BUILD [-n RUNS] [-o OUT] [-s STEPS] [-t TARGETS] [-B BUILD0] [-O] [-x]
#            - real programs on real trees, timed on the host's tmpfs, through
#              uvfs-fuse and beside the FUSE peers (docs/BENCHMARKS.md,
#              "The workload bench").  What `make bench` runs last.
#
# Part 1, the workload (STEPS, in this order, each timed on each TARGET):
#   tar     tar -x of a tarball of $WORKLOAD_SRC (default /usr/share/man and
#           /usr/include: about 35,000 entries, 235 MB), made once per run
#           on a private tmpfs
#   find    find of the tree
#   ls      ls -lR of the tree
#   cat     find -type f -print0 | xargs -0 cat
#   rm      rm -rf of the tree
#   build   meson setup (buildtype plain) and ninja -j2 libuvfs.a of this
#           project's sources copied into the target (git ls-files)
#   sqlite  sqlite3: 5000 inserts in 5 transactions, then 200 autocommit
#           inserts (each one a journal created, synced and removed)
# TARGETS: host (a private tmpfs), uvfs (uvfs-fuse -o default_permissions,
# its own in-memory instance), plain (uvfs-fuse with no option: uvfs makes
# every permission decision, the kernel checks none; what a new user
# mounts), bindfs (bindfs over a private tmpfs), hostdir (uvfs-fuse -o
# default_permissions,hostdir= of a private tmpfs).  -B BUILD0: the targets
# hostdir0 and uvfs0 are hostdir and uvfs with BUILD0's uvfs-fuse, to put a
# change beside the binary before it in one run (add them to TARGETS).
#
# Part 2 (-O), the overlay: 10,000 small files in each of two directories
# of a lower layer on a private tmpfs; copy-up by touch (xargs touch of the
# first 10,000) and by append (a shell appending a line to each of the
# second), then, in the same mount, tar -x of /usr/include into the overlay; on
# the kernel's overlayfs, fuse-overlayfs and uvfs-fuse -o
# lowerdir=,upperdir=,workdir=.
#
# Each step runs RUNS times (default 1: the whole run, both parts, is about
# 3-4 minutes on the project's 2-core VM); the targets take turns within a
# run.  The table (median seconds, ratio to host tmpfs, or to the kernel's
# overlayfs for part 2) goes to stdout and OUT/workload.txt, with part 1's
# FUSE servers' CPU seconds (user + system, from /proc/PID/stat; on a shared
# machine they move far less than the times), every figure to
# OUT/workload.json (default OUT: bench-results).  -x: part 2 only.
# Needs root (mounts), tar, bindfs, fuse-overlayfs, sqlite3, meson, ninja.
# Everything it mounts is unmounted at the end, also on Ctrl-C.
set -u

usage="usage: workload.sh BUILD [-n RUNS] [-o OUT] [-s STEPS] [-t TARGETS] [-B BUILD0] [-O] [-x]"
build=${1:?$usage}
shift
runs=1
out=bench-results
steps="tar find ls cat rm build sqlite"
targets="host uvfs plain bindfs hostdir"
overlay=no
part1=yes
build0=
while getopts n:o:s:t:B:Ox c; do
	case $c in
	n) runs=$OPTARG ;;
	o) out=$OPTARG ;;
	s) steps=$OPTARG ;;
	t) targets=$OPTARG ;;
	B) build0=$OPTARG ;;
	O) overlay=yes ;;
	x) overlay=yes; part1=no ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
srcs=${WORKLOAD_SRC:-/usr/share/man /usr/include}
fuse=$build/tools/uvfs-fuse/uvfs-fuse
top=$(cd "$(dirname "$0")/../.." && pwd)

say() { echo "workload: $*" >&2; }
die() { say "$*"; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (it mounts tmpfs, FUSE and overlay file systems)"
[ -x "$fuse" ] || die "$fuse is not built"
fuse0=${build0:+$build0/tools/uvfs-fuse/uvfs-fuse}
case " $targets " in
*" hostdir0 "* | *" uvfs0 "*) [ -n "$fuse0" ] && [ -x "$fuse0" ] || die "hostdir0 and uvfs0 need -B BUILD0" ;;
esac
for p in tar sqlite3 meson ninja bindfs fuse-overlayfs fusermount3; do
	command -v $p >/dev/null || die "no $p (scripts/install-deps.sh installs it)"
done

work=$(mktemp -d /tmp/uvfs-workload.XXXXXX) || exit 1
pids=
cleanup() {
	trap - EXIT INT TERM HUP
	# FUSE mounts first (their servers exit on unmount), then the tmpfs
	# and overlay mounts under $work, deepest first
	for m in $(awk -v w="$work/" 'index($5, w) == 1 { print $5 }' /proc/self/mountinfo | sort -r); do
		case $(awk -v m="$m" '$5 == m { print $9 }' /proc/self/mountinfo | tail -1) in
		fuse*) fusermount3 -u "$m" 2>/dev/null || umount -l "$m" ;;
		esac
	done
	for p in $pids; do wait "$p" 2>/dev/null; done
	for m in $(awk -v w="$work/" 'index($5, w) == 1 { print $5 }' /proc/self/mountinfo | sort -r); do
		umount "$m" 2>/dev/null || umount -l "$m"
	done
	rm -rf "$work"
}
. "$top/scripts/cleanup-trap.sh"
cleanup_on_exit

mkdir "$work/src" && mount -t tmpfs none "$work/src" || die "mount -t tmpfs failed"
: >"$work/src/cpus"
mkdir -p "$out"

# fuse_up DIR CMD...: start a FUSE server in the foreground, wait for DIR;
# srv: its pid, whose CPU time each step records
fuse_up() {
	d=$1
	shift
	"$@" </dev/null >"$work/src/$(basename "$d").log" 2>&1 &
	srv=$!
	pids="$pids $srv"
	i=0
	until mountpoint -q "$d"; do
		i=$((i + 1))
		[ $i -lt 100 ] || die "$* did not mount: $(cat "$work/src/$(basename "$d").log")"
		sleep 0.1
	done
}

fuse_down() {
	fusermount3 -u "$1" 2>/dev/null || umount -l "$1"
}

# umount_settled DIR: a FUSE server over DIR exits after its unmount
# returned, holding DIR until then: up to 5 s of retries, then lazily
umount_settled() {
	i=0
	until umount "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 50 ] || { umount -l "$1"; return; }
		sleep 0.1
	done
}

now() { date +%s.%N; }
times=$work/src/times
cpus=$work/src/cpus
srv=
hz=$(getconf CLK_TCK)
# the FUSE server's CPU time (user + system, in clock ticks), or nothing
srv_ticks() { [ -n "$srv" ] && awk '{ print $14 + $15 }' "/proc/$srv/stat" 2>/dev/null; }
# timed PART TARGET STEP CMD...: run CMD, record its seconds, and the FUSE
# server's CPU seconds (far less moved by the machine's load than the time)
timed() {
	part=$1 tg=$2 st=$3
	shift 3
	c0=$(srv_ticks)
	t0=$(now)
	"$@" >/dev/null 2>"$work/src/err" || {
		say "$tg $st failed: $(head -c 300 "$work/src/err")"
		echo "$part $tg $st fail" >>"$times"
		return 1
	}
	t1=$(now)
	c1=$(srv_ticks)
	echo "$part $tg $st $(echo "$t0 $t1" | awk '{ printf "%.3f", $2 - $1 }')" >>"$times"
	[ -z "$c0" ] || [ -z "$c1" ] || echo "$part $tg $st $(echo "$c0 $c1 $hz" | awk '{ printf "%.2f", ($2 - $1) / $3 }')" >>"$cpus"
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)

#
# Part 1
#
if [ $part1 = yes ]; then
	say "making the tarballs on a private tmpfs"
	# shellcheck disable=SC2086
	tar -cf "$work/src/tree.tar" $srcs 2>/dev/null || die "tar -c $srcs failed"
	entries=$(tar -tf "$work/src/tree.tar" | wc -l)
	tbytes=$(stat -c %s "$work/src/tree.tar")
	(cd "$top" && git ls-files -z | tar --null -T - -cf "$work/src/project.tar") ||
		die "tar of the project's sources failed"
	tree=$(tar -tf "$work/src/tree.tar" | head -1 | cut -d/ -f1)

	for tg in $targets; do
		mkdir -p "$work/$tg"
	done

	step() { # step TARGET DIR STEP
		case $3 in
		tar) timed 1 "$1" tar tar -C "$2" -xf "$work/src/tree.tar" ;;
		find) timed 1 "$1" find find "$2/$tree" ;;
		ls) timed 1 "$1" ls ls -lR "$2/$tree" ;;
		cat) timed 1 "$1" cat sh -c 'find "$1" -type f -print0 | xargs -0 cat' sh "$2/$tree" ;;
		rm) timed 1 "$1" rm rm -rf "$2/$tree" ;;
		build)
			mkdir "$2/proj" && tar -C "$2/proj" -xf "$work/src/project.tar" &&
				timed 1 "$1" build sh -c 'cd "$1" && meson setup b -Dbuildtype=plain &&
					ninja -j2 -C b libuvfs.a' sh "$2/proj"
			rm -rf "$2/proj" ;;
		sqlite)
			timed 1 "$1" sqlite sh -c 'cd "$1" && {
				echo "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, v BLOB);"
				i=0
				while [ $i -lt 5 ]; do
					echo "BEGIN;"
					j=0
					while [ $j -lt 1000 ]; do
						echo "INSERT INTO t (name, v) VALUES (\"n$i-$j\", randomblob(100));"
						j=$((j + 1))
					done
					echo "COMMIT;"
					i=$((i + 1))
				done
				j=0
				while [ $j -lt 200 ]; do
					echo "INSERT INTO t (name, v) VALUES (\"a$j\", randomblob(100));"
					j=$((j + 1))
				done
				echo "SELECT count(*) FROM t;"
			} | sqlite3 w.db' sh "$2"
			rm -f "$2/w.db" ;;
		esac
	}

	r=1
	while [ $r -le "$runs" ]; do
		for tg in $targets; do
			d=$work/$tg
			case $tg in
			host) srv= && mount -t tmpfs none "$d" ;;
			uvfs) fuse_up "$d" "$fuse" -f -o default_permissions "$d" ;;
			plain) fuse_up "$d" "$fuse" -f "$d" ;;
			bindfs) mkdir -p "$work/bsrc" && mount -t tmpfs none "$work/bsrc" &&
				fuse_up "$d" bindfs -f "$work/bsrc" "$d" ;;
			hostdir) mkdir -p "$work/hsrc" && mount -t tmpfs none "$work/hsrc" &&
				fuse_up "$d" "$fuse" -f -o "default_permissions,hostdir=$work/hsrc" "$d" ;;
			uvfs0) fuse_up "$d" "$fuse0" -f -o default_permissions "$d" ;;
			hostdir0) mkdir -p "$work/hsrc" && mount -t tmpfs none "$work/hsrc" &&
				fuse_up "$d" "$fuse0" -f -o "default_permissions,hostdir=$work/hsrc" "$d" ;;
			*) die "unknown target $tg" ;;
			esac
			say "run $r: $tg"
			for s in $steps; do
				step "$tg" "$d" "$s"
			done
			case $tg in
			host) umount "$d" ;;
			*) fuse_down "$d" ;;
			esac
			for m in bsrc hsrc; do
				mountpoint -q "$work/$m" && umount_settled "$work/$m"
			done
		done
		r=$((r + 1))
	done
fi

#
# Part 2: the overlay
#
if [ $overlay = yes ]; then
	otargets="ovl fuse-overlayfs uvfs-overlay"
	mkdir "$work/o" && mount -t tmpfs none "$work/o" || die "mount -t tmpfs failed"
	tar -C / -cf "$work/src/inc.tar" usr/include 2>/dev/null || die "tar -c /usr/include failed"
	ientries=$(tar -tf "$work/src/inc.tar" | wc -l)
	mkdir "$work/o/lower"
	# 2 x 10,000 files of 64 bytes in 2 x 100 directories, by one shell
	(cd "$work/o/lower" && for a in touch append; do
		i=0
		while [ $i -lt 100 ]; do
			mkdir -p "$a/d$i"
			j=0
			while [ $j -lt 100 ]; do
				printf '%064d' $j >"$a/d$i/f$j"
				j=$((j + 1))
			done
			i=$((i + 1))
		done
	done) || die "making the lower layer failed"
	# omount TARGET MERGED LAYERS, oumount TARGET MERGED
	omount() {
		case $1 in
		ovl) srv= && { mount -t overlay overlay -o "$3" "$2" || die "mount -t overlay failed"; } ;;
		fuse-overlayfs) fuse_up "$2" fuse-overlayfs -f -o "$3" "$2" ;;
		uvfs-overlay) fuse_up "$2" "$fuse" -f -o "default_permissions,$3" "$2" ;;
		esac
	}
	oumount() {
		case $1 in
		ovl) umount "$2" ;;
		*) fuse_down "$2" ;;
		esac
	}
	# the copy-ups and the untar in one mount (uvfs-fuse's nodes' files
	# are bounded: tools/uvfs-fuse/node_files.c)
	ostep() { # ostep TARGET MERGED LAYERS
		omount "$1" "$2" "$3"
		timed 2 "$1" touch sh -c 'find "$1/touch" -type f -print0 | xargs -0 touch' sh "$2"
		timed 2 "$1" append sh -c 'for f in "$1"/append/d*/f*; do echo x >>"$f"; done' sh "$2"
		timed 2 "$1" untar tar -C "$2" -xf "$work/src/inc.tar"
		oumount "$1" "$2"
	}
	r=1
	while [ $r -le "$runs" ]; do
		for tg in $otargets; do
			m=$work/o/m-$tg u=$work/o/u-$tg w=$work/o/w-$tg
			rm -rf "$u" "$w"
			mkdir -p "$m" "$u" "$w"
			say "run $r: overlay $tg"
			ostep "$tg" "$m" "lowerdir=$work/o/lower,upperdir=$u,workdir=$w"
			# the copies are in the upper layer
			n=$(find "$u/touch" "$u/append" -type f | wc -l)
			[ "$n" -eq 20000 ] || say "overlay $tg: $n files copied up, not 20000"
			rm -rf "$u" "$w"
		done
		r=$((r + 1))
	done
fi

#
# The table and the JSON
#
load1=$(cut -d' ' -f1-3 /proc/loadavg)
medf() { # medf FILE PART TARGET STEP
	awk -v p="$2" -v t="$3" -v s="$4" '$1 == p && $2 == t && $3 == s && $4 != "fail" { print $4 }' "$1" |
		sort -n | awk '{ v[NR] = $1 } END { if (!NR) print "-"; else if (NR % 2) print v[(NR + 1) / 2];
			else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
med() { medf "$times" "$@"; } # med PART TARGET STEP
ratio() { echo "$1 $2" | awk '{ if ($1 == "-" || $2 == "-" || $2 <= 0) print "-"; else printf "%.2fx\n", $1 / $2 }'; }
{
	echo "workload bench: $(date -u +%Y-%m-%dT%H:%MZ), $runs run(s), median seconds;" \
		"load average $load0 at the start, $load1 at the end"
	if [ $part1 = yes ]; then
		echo "tree: $srcs ($entries entries, $((tbytes / 1048576)) MB tarball);" \
			"uvfs and hostdir: uvfs-fuse -o default_permissions; plain: uvfs-fuse with no option${build0:+; uvfs0 and hostdir0: $build0's uvfs-fuse}"
		echo
		printf '| step |'
		for tg in $targets; do printf ' %s |' "$tg"; done
		for tg in $targets; do [ "$tg" = host ] || printf ' %s/host |' "$tg"; done
		echo
		printf '|---|'
		for tg in $targets; do printf -- '---:|'; done
		for tg in $targets; do [ "$tg" = host ] || printf -- '---:|'; done
		echo
		for s in $steps; do
			printf '| %s |' "$s"
			for tg in $targets; do printf ' %s |' "$(med 1 "$tg" "$s")"; done
			h=$(med 1 host "$s")
			for tg in $targets; do [ "$tg" = host ] || printf ' %s |' "$(ratio "$(med 1 "$tg" "$s")" "$h")"; done
			echo
		done
		if [ -s "$cpus" ]; then
			echo
			echo "the FUSE server's CPU seconds (user + system), median:"
			echo
			printf '| step |'
			for tg in $targets; do [ "$tg" = host ] || printf ' %s |' "$tg"; done
			echo
			printf '|---|'
			for tg in $targets; do [ "$tg" = host ] || printf -- '---:|'; done
			echo
			for s in $steps; do
				printf '| %s |' "$s"
				for tg in $targets; do [ "$tg" = host ] || printf ' %s |' "$(medf "$cpus" 1 "$tg" "$s")"; done
				echo
			done
		fi
	fi
	if [ $overlay = yes ]; then
		echo
		echo "overlay: lower on a private tmpfs, 2 x 10,000 files of 64 bytes; untar of /usr/include" \
			"($ientries entries); ratio to the kernel's overlayfs"
		echo
		echo "| step | ovl (kernel) | fuse-overlayfs | uvfs-fuse overlay | fuse-overlayfs/ovl | uvfs/ovl |"
		echo "|---|---:|---:|---:|---:|---:|"
		for s in touch append untar; do
			k=$(med 2 ovl "$s")
			f=$(med 2 fuse-overlayfs "$s")
			u=$(med 2 uvfs-overlay "$s")
			echo "| $s | $k | $f | $u | $(ratio "$f" "$k") | $(ratio "$u" "$k") |"
		done
	fi
} | tee "$out/workload.txt"

awk -v l0="$load0" -v l1="$load1" -v runs="$runs" -v srcs="$srcs" -v n="${entries:-0}" '
	FILENAME == ARGV[1] { k = $1 "\t" $2 "\t" $3; c[k] = (cc[k]++ ? c[k] ", " : "") $4; next }
	{ k = $1 "\t" $2 "\t" $3; if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
	  v[k] = (cnt[k]++ ? v[k] ", " : "") ($4 == "fail" ? "null" : $4) }
	END {
		printf "{\n  \"bench\": \"workload\",\n  \"runs\": %d,\n  \"load_start\": \"%s\",\n  \"load_end\": \"%s\",\n", runs, l0, l1
		printf "  \"tree\": { \"sources\": \"%s\", \"entries\": %d },\n  \"results\": [\n", srcs, n
		for (i = 1; i <= nk; i++) {
			split(order[i], f, "\t")
			printf "    { \"part\": \"%s\", \"target\": \"%s\", \"step\": \"%s\", \"seconds\": [%s]%s }%s\n",
				f[1] == 1 ? "workload" : "overlay", f[2], f[3], v[order[i]],
				order[i] in c ? ", \"server_cpu_seconds\": [" c[order[i]] "]" : "", i < nk ? "," : ""
		}
		printf "  ]\n}\n"
	}' "$cpus" "$times" >"$out/workload.json"
say "wrote $out/workload.txt and $out/workload.json"
