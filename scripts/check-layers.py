#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The layers of src/ (docs/ARCHITECTURE.md) as the #include lines show them.

  src/lib     the building blocks: includes only src/lib headers and system
              headers, and every function a lib header declares is defined
              in a src/lib file (it calls into no other layer)
  src/core    the VFS: names no filesystem (no src/fs header; a filesystem
              reaches the core through filesystems.h's registry)
  src/notify  notification: core and lib, no filesystem
  src/fs/X    a filesystem: the core, lib and its own headers, never another
              filesystem's

Every file is one check; prints "N passed, N failed" as the test programs do.
"""
import os
import re
import sys

src = os.path.join(sys.argv[1] if len(sys.argv) > 1 else '.', 'src')
include = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
passed = failed = 0


def resolve(path, name):
    """The file an include names, relative to src/, as the build finds it
    (the including file's directory first, then src/ and src/core/)."""
    for base in (os.path.dirname(path), src, os.path.join(src, 'core')):
        cand = os.path.normpath(os.path.join(base, name))
        if os.path.exists(cand):
            return os.path.relpath(cand, src)
    return None


def layer(rel):
    parts = rel.split(os.sep)
    return parts[0] if parts[0] != 'fs' else os.path.join('fs', parts[1])


for root, _, files in os.walk(src):
    for f in sorted(files):
        if not f.endswith(('.c', '.h')):
            continue
        path = os.path.join(root, f)
        rel = os.path.relpath(path, src)
        me = layer(rel)
        bad = []
        with open(path) as fh:
            text = fh.read()
        for name in include.findall(text):
            target = resolve(path, name)
            if target is None:
                continue  # a public header (include/) or a generated one
            them = layer(target)
            if them == me:
                continue
            if me == 'lib' or (me in ('core', 'notify') and them.startswith('fs')) or \
               (me.startswith('fs') and them.startswith('fs')):
                bad.append('%s (%s)' % (name, them))
        if bad:
            failed += 1
            print('FAIL %s: layer %s includes %s' % (rel, me, ', '.join(bad)))
        else:
            passed += 1
# Functions the lib headers declare (not static inline) must be lib's own.
proto = re.compile(r'^(?!static|typedef|#|\s|/|\*)[A-Za-z_][\w \*]*?\b(\w+)\s*\([^;{]*\)\s*;', re.M)
libdir = os.path.join(src, 'lib')
lib_c = ''
for f in sorted(os.listdir(libdir)):
    if f.endswith('.c'):
        with open(os.path.join(libdir, f)) as fh:
            lib_c += fh.read()
for f in sorted(os.listdir(libdir)):
    if not f.endswith('.h'):
        continue
    with open(os.path.join(libdir, f)) as fh:
        names = proto.findall(fh.read())
    missing = [n for n in names if not re.search(r'^[^\n;]*\b%s\s*\([^;]*\)\s*\{' % n, lib_c, re.M)]
    if missing:
        failed += 1
        print('FAIL lib/%s declares %s, defined outside src/lib' % (f, ', '.join(missing)))
    else:
        passed += 1
print('%d passed, %d failed' % (passed, failed))
sys.exit(1 if failed else 0)
