#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# record.sh [NAME...] - records the shipped traces of `uvfs-bench replay`
# (all, or the NAMEs) into bench/traces/NAME.trace.  Run from anywhere, as
# root (the scratch trees are in /tmp/uvfs-record; calls as root see what
# `uvfs-bench replay` replays as root).  Needs strace, gcc, git, ninja and
# Debian's /usr/bin/python3.
#
# Each trace is one command under
#   bench/replay/record.py -o NAME.trace -C DIR -- CMD...
# which runs  strace -f -q -X verbose -s 4096 -e trace=<the path calls>  and
# converts its output (bench/replay/FORMAT.md).  The recipe by hand, for any
# command:
#   bench/replay/record.py -o my.trace -- make -n
#   build/bench/uvfs-bench replay my.trace
#
# A trace is portable: its manifest describes every path the calls reached
# (directories, files with their sizes and modes, symlinks with their
# bodies, the listings getdents read), and the replay builds its mirror from
# that alone.  Re-recording changes the traces with the machine's packages.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
rec="$here/../replay/record.py"
scratch=/tmp/uvfs-record

want() {
	[ $# -eq 0 ] && return 0
	for w in $ARGS; do [ "$w" = "$1" ] && return 0; done
	return 1
}
ARGS="$*"

record() {
	name=$1 dir=$2
	shift 2
	want_name=$name
	if [ -n "$ARGS" ] && ! want "$want_name"; then
		return 0
	fi
	echo "record.sh: $name: (cd $dir && $*)"
	"$rec" -o "$here/$name.trace" -C "$dir" -- "$@"
}

mkdir -p "$scratch"

# a compile: a small C file with a few system headers
mkdir -p "$scratch/cc"
cat >"$scratch/cc/hello.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
	struct stat st;

	if (argc > 1 && stat(argv[1], &st) < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return EXIT_FAILURE;
	}
	printf("%d\n", open("/dev/null", O_RDONLY));
	return 0;
}
C
rm -f "$scratch/cc/hello.o"
record gcc-c "$scratch/cc" gcc -O2 -c hello.c -o hello.o

# git status on a bigger tree: a clone of this repository, its index
# refreshed first, a second after the checkout (files as new as the index
# are "racily clean" and git would read them all again: the steady state of
# a working tree is what is recorded)
if [ -z "$ARGS" ] || want git-status; then
	rm -rf "$scratch/uvfs"
	git clone -q "$repo" "$scratch/uvfs"
	sleep 1
	git -C "$scratch/uvfs" status >/dev/null
	git -C "$scratch/uvfs" status >/dev/null
fi
record git-status "$scratch/uvfs" git status

# a Python import (Debian's python3, not a pyenv one)
record python-import "$scratch" /usr/bin/python3 -c 'import json, email.parser, http.client, decimal, asyncio'

# ninja -n of a real project: this repository's build directory
record ninja-n "$repo" ninja -n -C build

# find and ls -lR of trees
record find "$scratch" find /usr/share/zoneinfo
record ls-lR "$scratch" ls -lR /usr/share/doc/git

ls -l "$here"/*.trace
