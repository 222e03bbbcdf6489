#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The API entry protocol (src/core/api.h), checked for every public call.

Every function that src/uvfs.map exports or include/uvfs.h declares must be
defined in src/ as a UVFS_API function whose body
  1. starts with API_ENTER_PROC(p), p being its struct uvfs_proc * argument,
     or, for a call without a proc, API_ENTER(); only a guard that returns at
     once for a NULL argument ("if (!x) return ...;") may come before it;
  2. leaves only through API_RETURN(x) (API_RETURN_VOID() in a void call):
     no bare "return" after the entry, and a void body ends with one;
  3. and every UVFS_API function in src/ is exported by src/uvfs.map.
One check per function: a line "FAIL name: rule" for each broken one, then
"N passed, N failed" (tests/run.sh counts it as a test program).

usage: check-api-entry.py [SOURCE_ROOT]
"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")


def strip_comments(s):
    s = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), s, flags=re.S)
    s = re.sub(r"//[^\n]*", "", s)
    # string and character literals: their braces and words are not code
    s = re.sub(r'"(\\.|[^"\\\n])*"', '""', s)
    s = re.sub(r"'(\\.|[^'\\\n])*'", "''", s)
    return s


def map_symbols():
    text = strip_comments(open(os.path.join(root, "src", "uvfs.map")).read())
    names = set()
    for block in re.findall(r"global:(.*?)(?:local:|\})", text, flags=re.S):
        names.update(re.findall(r"\b(uvfs_\w+)\s*;", block))
    return names


def header_functions():
    text = strip_comments(open(os.path.join(root, "include", "uvfs.h")).read())
    text = re.sub(r"^\s*#.*$", "", text, flags=re.M)
    names = set()
    # a declaration at file scope: "type uvfs_name(" ... ");"
    for m in re.finditer(r"(?:^|[;}])\s*[A-Za-z_][\w\s\*]*?\b(uvfs_\w+)\s*\([^;{]*\)\s*;", text, flags=re.S):
        names.add(m.group(1))
    return names


def definitions():
    defs = {}
    for d, _, files in os.walk(os.path.join(root, "src")):
        for f in sorted(files):
            if not f.endswith(".c"):
                continue
            path = os.path.join(d, f)
            text = strip_comments(open(path).read())
            for m in re.finditer(r"^UVFS_API\b([^;{]*?)\b(uvfs_\w+)\s*\(([^)]*)\)\s*\{", text, flags=re.M | re.S):
                i, depth = m.end(), 1
                while depth and i < len(text):
                    depth += {"{": 1, "}": -1}.get(text[i], 0)
                    i += 1
                rel = os.path.relpath(path, root)
                line = text.count("\n", 0, m.start()) + 1
                defs[m.group(2)] = (m.group(1), m.group(3), text[m.end():i - 1], "%s:%d" % (rel, line))
    return defs


GUARD = re.compile(r"\s*if\s*\(\s*!\s*\w+\s*\)\s*return\b[^;]*;")


def check(name, ret, params, body):
    proc = re.search(r"struct\s+uvfs_proc\s*\*\s*(\w+)", params)
    s = body
    while True:
        m = GUARD.match(s)
        if not m:
            break
        s = s[m.end():]
    want = r"API_ENTER_PROC\s*\(\s*%s\s*\)\s*;" % proc.group(1) if proc else r"API_ENTER\s*\(\s*\)\s*;"
    m = re.match(r"\s*" + want, s)
    if not m:
        if proc:
            return "rule 1: the body must start with API_ENTER_PROC(%s); (only a NULL guard may come first)" % proc.group(1)
        return "rule 1: the body must start with API_ENTER(); (only a NULL guard may come first)"
    rest = s[m.end():]
    if re.search(r"\breturn\b", rest):
        return "rule 2: a bare return after the entry; leave through API_RETURN(x) or API_RETURN_VOID()"
    # a value-returning call cannot fall off its end (-Wreturn-type);
    # a void one would skip the exit
    is_void = re.fullmatch(r"\s*(static\s+)?(inline\s+)?void\s*", ret) is not None
    if is_void and not re.search(r"API_RETURN_VOID\s*\(\s*\)\s*;\s*$", rest):
        return "rule 2: the body must end with API_RETURN_VOID();"
    if is_void and re.search(r"\bAPI_RETURN\s*\(", rest):
        return "rule 2: a void call leaves through API_RETURN_VOID()"
    return None


def main():
    exported = map_symbols() | header_functions()
    defs = definitions()
    passed = failed = 0
    for name in sorted(exported | set(defs)):
        if name not in defs:
            err = "rule 1: declared in include/uvfs.h or exported in src/uvfs.map, but no UVFS_API definition in src/"
            where = "include/uvfs.h"
        else:
            ret, params, body, where = defs[name]
            err = check(name, ret, params, body)
            if not err and name not in map_symbols():
                err = "rule 3: a UVFS_API function that src/uvfs.map does not export"
        if err:
            print("FAIL %s (%s): %s" % (name, where, err))
            failed += 1
        else:
            passed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


sys.exit(main())
