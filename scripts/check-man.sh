#!/bin/sh
# The manual's checks (docs/man/README): every page passes mandoc's lint at
# warning level and has the sections a page must have; every function
# declared in the public headers is named by a page's .Nm and every .Nm of a
# section-3 page is declared; README.md's first program is examples/first.c.
# Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
headers="include/uvfs.h include/uvfs_fs.h tools/uvfs-fuse/uvfs_fuse.h"
p=0; f=0
ok() { p=$((p + 1)); }
bad() { f=$((f + 1)); echo "FAIL $*"; }
command -v mandoc >/dev/null || { echo "FAIL mandoc is not installed (apt-get install mandoc)"; echo "0 passed, 1 failed"; exit 1; }

pages=$(ls docs/man/*.[1-8] 2>/dev/null)
[ -n "$pages" ] || bad "no pages in docs/man"
for page in $pages; do
	n=$(basename "$page")
	if out=$(mandoc -Tlint -W warning "$page" 2>&1) && [ -z "$out" ]; then ok; else bad "$n: mandoc -Tlint: $out"; fi
	want=$(echo "${n%.*}" | tr 'a-z' 'A-Z')
	grep -qx "\.Dt $want ${n##*.}" "$page" && ok || bad "$n: no .Dt $want ${n##*.}"
	case $n in
	*.3)	secs="NAME|LIBRARY|SYNOPSIS|DESCRIPTION|RETURN VALUES|ERRORS|SEE ALSO" ;;
	*)	secs="NAME|SYNOPSIS|DESCRIPTION|SEE ALSO" ;;
	esac
	old_ifs=$IFS; IFS='|'
	for s in $secs; do
		grep -qx "\.Sh $s" "$page" && ok || bad "$n: no section $s"
	done
	IFS=$old_ifs
	case $n in
	*.3)	grep -qE '^\.In uvfs(_fuse|_fs)?\.h$' "$page" && ok || bad "$n: SYNOPSIS has no .In uvfs.h"
		errs=$(sed -n '/^\.Sh ERRORS$/,/^\.Sh /p' "$page")
		echo "$errs" | grep -q -E -e '^\.It (Bq )?Er E' -e 'never fails' && ok ||
			bad "$n: ERRORS lists no .It Bq Er E... or .It Er E... (nor says the calls never fail)" ;;
	esac
done

# The functions the headers declare: a line that starts with a return type
# (no indent, not a comment, a #define or a typedef) and names uvfs_NAME(.
declared=$(grep -hE '^[a-z][a-z_ ]*[ *]uvfs_[a-z0-9_]+\(' $headers | grep -v '^typedef' |
	sed -E 's/^[^(]*[ *](uvfs_[a-z0-9_]+)\(.*/\1/' | sort -u)
named=$(cat docs/man/*.3 2>/dev/null | sed -nE 's/^\.Nm (uvfs_[a-z0-9_]+).*/\1/p' | sort -u)
for fn in $declared; do
	echo "$named" | grep -qx "$fn" && ok || bad "$fn is declared but no page names it in .Nm"
done
for fn in $named; do
	echo "$declared" | grep -qx "$fn" && ok || bad "a page names $fn, which no header declares"
done
[ "$(echo "$declared" | wc -w)" -gt 50 ] && ok || bad "found only $(echo "$declared" | wc -w) declarations: the header rule is broken"

# README.md shows examples/first.c whole (the first C block after its heading)
readme=$(sed -n '/^## A first program/,/^## /p' README.md | sed -n '/^```c$/,/^```$/p' | sed '1d;$d')
if [ "$readme" = "$(cat examples/first.c)" ]; then ok; else bad "README.md's first program differs from examples/first.c"; fi

echo "$p passed, $f failed"
[ "$f" = 0 ]
