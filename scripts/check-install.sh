#!/bin/sh
# Installs a build into a staging DESTDIR and builds examples/first.c (and
# the other examples, and a program using uvfs_fuse.h) against the staged
# files only: pkg-config reads the staged .pc files and
# PKG_CONFIG_SYSROOT_DIR points their -I/-L at the stage, so nothing comes
# from the source tree.  first.c once with libuvfs.so, once with libuvfs.a.
# Prints "N passed, N failed".
#   usage: scripts/check-install.sh [BUILD]
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/.."
src=$(pwd)
p=0; f=0
ok() { p=$((p + 1)); echo "ok   $1"; }
bad() { f=$((f + 1)); echo "FAIL $1"; }
check() { name=$1; shift; if "$@" >/dev/null 2>&1; then ok "$name"; else bad "$name"; fi; }

[ -f "$BUILD/build.ninja" ] || meson setup "$BUILD" >/dev/null || exit 1
ninja -C "$BUILD" >/dev/null || { echo "FAIL build"; echo "0 passed, 1 failed"; exit 1; }

stage=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$stage" "$work"' EXIT
if ! meson install -C "$BUILD" --destdir "$stage" --no-rebuild --quiet >"$work/install.log" 2>&1; then
	cat "$work/install.log"; echo "FAIL meson install"; echo "0 passed, 1 failed"; exit 1
fi
prefix=$(meson introspect "$BUILD" --buildoptions | python3 -c \
	'import json,sys; o={x["name"]:x["value"] for x in json.load(sys.stdin)}; print(o["prefix"]); print(o["libdir"]); print(o["bindir"]); print(o["mandir"])')
libdir=$(echo "$prefix" | sed -n 2p); bindir=$(echo "$prefix" | sed -n 3p)
mandir=$(echo "$prefix" | sed -n 4p); prefix=$(echo "$prefix" | sed -n 1p)
case $libdir in /*) ;; *) libdir=$prefix/$libdir ;; esac
case $bindir in /*) ;; *) bindir=$prefix/$bindir ;; esac
case $mandir in /*) ;; *) mandir=$prefix/$mandir ;; esac
L=$stage$libdir

check "libuvfs.so's soname is libuvfs.so.0" \
	sh -c "readelf -d '$L/libuvfs.so' | grep -q 'Library soname: \[libuvfs.so.0\]'"
check "libuvfs.so.0 is the soname's link" test -e "$L/libuvfs.so.0"
for file in "$L/libuvfs.a" "$L/libuvfs-fuse.a" "$stage$prefix/include/uvfs.h" \
	    "$stage$prefix/include/uvfs_fs.h" \
	    "$stage$prefix/include/uvfs_fuse.h" "$L/pkgconfig/uvfs.pc" "$L/pkgconfig/uvfs-fuse.pc" \
	    "$stage$mandir/man3/uvfs_openat.3" "$stage$mandir/man7/uvfs.7" \
	    "$stage$mandir/man1/uvfs-fuse.1" "$stage$bindir/uvfs-fuse"; do
	check "installed ${file#$stage}" test -s "$file"
done
# every page of docs/man is installed in its section
for page in docs/man/*.[1-8]; do
	[ -e "$page" ] || continue
	n=$(basename "$page")
	[ -e "$stage$mandir/man${n##*.}/$n" ] || bad "man page $n not installed"
done
check "installed uvfs-fuse runs" "$stage$bindir/uvfs-fuse" --version

export PKG_CONFIG_LIBDIR="$L/pkgconfig:$(pkg-config --variable pc_path pkg-config)"
export PKG_CONFIG_SYSROOT_DIR="$stage"
unset PKG_CONFIG_PATH
cflags=$(pkg-config --cflags uvfs) || bad "pkg-config --cflags uvfs"
case " $cflags " in *"$src"*) bad "uvfs.pc points into the source tree: $cflags" ;; esac
check "uvfs.pc's -I is the stage's" sh -c "echo '$cflags' | grep -q -- '-I$stage/'"

cp examples/first.c examples/fixture.c examples/eventloop.c examples/customfs.c examples/sandbox.c "$work/"
cd "$work"
# the shared library: the binary must find the staged libuvfs.so.0
if cc -Wall -o first-shared first.c $(pkg-config --cflags --libs uvfs) 2>cc.log; then
	ok "first.c builds against the staged libuvfs.so"
	check "first-shared needs libuvfs.so.0" sh -c "readelf -d first-shared | grep -q 'NEEDED.*libuvfs.so.0'"
	check "first-shared runs with the staged library" env LD_LIBRARY_PATH="$L" ./first-shared
	check "first-shared loads the staged library" sh -c "LD_LIBRARY_PATH='$L' ldd ./first-shared | grep -q '=> $L/libuvfs.so.0'"
else
	cat cc.log; bad "first.c builds against the staged libuvfs.so"
fi
# the static library: no libuvfs.so needed at run time
static_libs=$(pkg-config --static --libs uvfs | sed 's/ -luvfs / /; s/^-luvfs //')
if cc -Wall -o first-static first.c $(pkg-config --cflags uvfs) \
	-Wl,-Bstatic -luvfs -Wl,-Bdynamic $static_libs -L"$L" 2>cc.log; then
	ok "first.c builds against the staged libuvfs.a"
	check "first-static needs no libuvfs.so" sh -c "! readelf -d first-static | grep -q 'NEEDED.*libuvfs'"
	check "first-static runs" ./first-static
else
	cat cc.log; bad "first.c builds against the staged libuvfs.a"
fi
# the other examples, against the staged libuvfs.so
# customfs.c's <uvfs_fs.h> must be the staged one, found by uvfs.pc's Cflags
staged_fs_h() {
	cc -M customfs.c $cflags >deps 2>&1 && grep -qF "$stage$prefix/include/uvfs_fs.h" deps &&
		! grep -qF "$src/" deps
}
check "customfs.c includes the staged uvfs_fs.h" staged_fs_h
for ex in fixture eventloop customfs sandbox; do
	if cc -Wall -o "$ex" "$ex.c" $(pkg-config --cflags --libs uvfs) -pthread 2>cc.log; then
		check "examples/$ex.c builds and runs against the staged SDK" env LD_LIBRARY_PATH="$L" "./$ex"
	else
		cat cc.log; bad "examples/$ex.c builds against the staged SDK"
	fi
done
# the FUSE embedding library, through its own .pc
cat > embed.c <<'EOT'
#include <uvfs.h>
#include <uvfs_fuse.h>

int main(void)
{
	struct uvfs *fs = uvfs_create(NULL);
	int err = 0;
	/* a mount point that does not exist: refused before any mount */
	struct uvfs_fuse *uf = uvfs_fuse_new(fs, "/nonexistent/uvfs-check-install", 0, NULL, &err);
	uvfs_destroy(fs);
	return uf == NULL && err == -ENOENT ? 0 : 1;
}
EOT
if cc -Wall -include errno.h -o embed embed.c $(pkg-config --cflags --libs uvfs-fuse) 2>cc.log; then
	ok "a uvfs_fuse.h program builds against the staged libuvfs-fuse.a"
	check "it runs (uvfs_fuse_new refuses a missing mount point)" env LD_LIBRARY_PATH="$L" ./embed
else
	cat cc.log; bad "a uvfs_fuse.h program builds against the staged libuvfs-fuse.a"
fi
echo "$p passed, $f failed"
[ "$f" = 0 ]
