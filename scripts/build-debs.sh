#!/bin/sh
# Builds the Debian packages (debian/: libuvfs0, libuvfs-dev, uvfs-fuse)
# with dpkg-buildpackage -us -uc -b from a copy of the tree (the source's
# parent directory gets nothing), runs lintian on them, and with --install
# installs them on this machine, mounts a directory with the packaged
# uvfs-fuse, uses and unmounts it, and removes the packages again.
# Prints "N passed, N failed".  Needs debhelper, devscripts, lintian (and
# root for --install).
#   usage: scripts/build-debs.sh [--install] [OUTDIR]   (default build-debs)
set -u
install=no
[ "${1:-}" = --install ] && { install=yes; shift; }
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-build-debs}")
p=0; f=0
ok() { p=$((p + 1)); echo "ok   $1"; }
bad() { f=$((f + 1)); echo "FAIL $1"; }

# the packaging tools, as scripts/install-deps.sh installs the build's
need="debhelper devscripts lintian dpkg-dev"
missing=""
for pkg in $need; do
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || missing="$missing $pkg"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" = 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null || exit 1
	else
		echo "FAIL missing packages:$missing"; echo "0 passed, 1 failed"; exit 1
	fi
fi

work=$(mktemp -d)
mnt=
cleanup() {
	[ -n "$mnt" ] && { fusermount3 -u "$mnt" 2>/dev/null; rmdir "$mnt" 2>/dev/null; }
	rm -rf "$work"
}
trap cleanup EXIT
version=$(dpkg-parsechangelog -l debian/changelog -S Version)
src=$work/uvfs-$version
mkdir -p "$src" "$out"
# the files git knows and the new ones it would add, without build trees
git ls-files -co --exclude-standard | tar -cf - -T - | tar -xf - -C "$src"
if (cd "$src" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1; then
	ok "dpkg-buildpackage -us -uc -b"
else
	tail -n 40 "$work/build.log"; bad "dpkg-buildpackage -us -uc -b"
	echo "$p passed, $f failed"; exit 1
fi
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
cp "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$out"/
arch=$(dpkg --print-architecture)
for pkg in libuvfs0 libuvfs-dev uvfs-fuse; do
	deb="$out/${pkg}_${version}_$arch.deb"
	[ -f "$deb" ] && ok "built $(basename "$deb")" || bad "no $pkg package"
done
# lintian: no errors (warnings are printed for the record)
if command -v lintian >/dev/null; then
	lintian --fail-on error "$out"/*.changes >"$work/lintian.log" 2>&1 && ok "lintian: no errors" ||
		bad "lintian found errors"
	cat "$work/lintian.log"
else
	bad "lintian is not installed"
fi

if [ "$install" = yes ]; then
	debs="$out/libuvfs0_${version}_$arch.deb $out/libuvfs-dev_${version}_$arch.deb $out/uvfs-fuse_${version}_$arch.deb"
	if dpkg -i $debs >"$work/dpkg.log" 2>&1; then
		ok "dpkg -i the three packages"
	else
		cat "$work/dpkg.log"; bad "dpkg -i the three packages"
	fi
	check() { name=$1; shift; if "$@" >/dev/null 2>&1; then ok "$name"; else bad "$name"; fi; }
	check "libuvfs.so.0 is in the linker cache" sh -c "ldconfig -p | grep -q 'libuvfs.so.0 '"
	check "pkg-config finds the installed uvfs" pkg-config --exists uvfs uvfs-fuse
	check "man finds uvfs_openat(3)" sh -c "man -w uvfs_openat | grep -q /usr/share/man/man3/"
	mnt=$(mktemp -d)
	if /usr/bin/uvfs-fuse "$mnt"; then
		ok "the packaged uvfs-fuse mounts $mnt"
		check "the mount is a uvfs-fuse mount" sh -c "grep -q ' $mnt fuse' /proc/mounts"
		check "a file written in the mount reads back" sh -c "echo hello > '$mnt/f' && [ \"\$(cat '$mnt/f')\" = hello ]"
		check "fusermount3 -u unmounts it" fusermount3 -u "$mnt"
		check "the mount is gone" sh -c "! grep -q ' $mnt ' /proc/mounts"
	else
		bad "the packaged uvfs-fuse mounts $mnt"
	fi
	rmdir "$mnt"; mnt=
	check "dpkg -r removes the packages" dpkg -r uvfs-fuse libuvfs-dev libuvfs0
	check "nothing is left installed" sh -c "! dpkg-query -W -f='\${Status}\n' libuvfs0 libuvfs-dev uvfs-fuse 2>/dev/null | grep -q 'ok installed'"
fi
echo "$p passed, $f failed"
[ "$f" = 0 ]
