#!/bin/sh
# Compares the built libuvfs.so with the ABI of every release recorded in
# abi/ (abidw's XML of that release's library, restricted to the types of
# include/uvfs.h).  A symbol added under a new version node of src/uvfs.map
# is fine; a removed symbol, a changed function or type, or a soname other
# than the record's fails.  Prints "N passed, N failed".
#   usage: scripts/check-abi.sh [BUILD]
# Recording a release (abi/README): abidw of that commit's build.
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/.."
p=0; f=0
[ -f "$BUILD/build.ninja" ] || meson setup "$BUILD" >/dev/null || exit 1
ninja -C "$BUILD" libuvfs.so >/dev/null 2>&1 || ninja -C "$BUILD" >/dev/null || exit 1
lib=$BUILD/libuvfs.so
# abi/libuvfs.suppr (abidiff's suppression format) names changes reviewed
# as compatible that abidiff still reports, such as a reserved word of a
# structure given a meaning
suppr=
[ -f abi/libuvfs.suppr ] && suppr="--suppressions abi/libuvfs.suppr"
for rec in abi/libuvfs-*.abi; do
	out=$(abidiff --no-added-syms $suppr --headers-dir2 include --drop-private-types "$rec" "$lib" 2>&1)
	rc=$?
	# abidiff's status is a bit mask: 1 error, 2 usage, 4 a change, 8 an
	# incompatible change; with --no-added-syms any change left is one
	# that breaks a program built against the record
	if [ "$rc" = 0 ]; then
		p=$((p + 1)); echo "ok   $lib against $rec"
	else
		f=$((f + 1)); echo "FAIL $lib against $rec (abidiff status $rc):"; echo "$out"
	fi
done
want=$(sed -n "s/.*soname='\([^']*\)'.*/\1/p" "$(ls abi/libuvfs-*.abi | tail -n 1)" | head -n 1)
if readelf -d "$lib" | grep -q "Library soname: \[$want\]"; then
	p=$((p + 1)); echo "ok   soname $want"
else
	f=$((f + 1)); echo "FAIL soname is not $want (an incompatible ABI needs a new record)"
fi
echo "$p passed, $f failed"
[ "$f" = 0 ]
