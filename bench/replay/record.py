#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""record.py - record a command's path calls with strace and write a replay
file for `uvfs-bench replay` (format: bench/replay/FORMAT.md).

    record.py -o FILE [-C DIR] -- CMD [ARG...]     run CMD under strace
    record.py -o FILE --convert STRACE.txt [--cwd DIR] [--cmd TEXT]

The conversion stats every path the calls touched, so it must run on the
machine, and right after the run, that strace recorded: the manifest it
writes is the tree as the command saw it, and `uvfs-bench replay` builds its
mirror from that manifest alone.

Calls that could write (opens with O_WRONLY, O_RDWR, O_CREAT, O_TRUNC,
O_APPEND or O_TMPFILE; unlink, rename, mkdir, symlink, link, chmod, chown,
utimensat, truncate, mknod) are never replayed: they are counted in the
file's `skip` lines, and so is every call on a path they changed (the
manifest is taken after the run, so such a path's state before it is
unknown), on /proc, /sys, /dev or anything that is not a directory, a
regular file or a symlink, and on an fd the trace did not open (pipes,
stdin).
"""
import os
import re
import stat
import subprocess
import sys
import tempfile

TRACED = ("open,openat,openat2,creat,stat,lstat,newfstatat,fstat,statx,access,"
          "faccessat,faccessat2,readlink,readlinkat,getdents64,close,read,pread64,"
          "lseek,chdir,fchdir,getcwd,execve,execveat,clone,clone3,fork,vfork,dup,"
          "dup2,dup3,fcntl,unlink,unlinkat,rename,renameat,renameat2,mkdir,mkdirat,"
          "rmdir,symlink,symlinkat,link,linkat,chmod,fchmod,fchmodat,chown,fchown,"
          "lchown,fchownat,utimensat,utimes,utime,truncate,ftruncate,mknod,mknodat")
STRACE = ["strace", "-f", "-q", "-X", "verbose", "-s", "4096", "-e", "trace=" + TRACED]

WRITERS = {
    # name: indexes of (dirfd, path) argument pairs it changes; dirfd None: cwd
    "unlink": [(None, 0)], "unlinkat": [(0, 1)], "rmdir": [(None, 0)],
    "rename": [(None, 0), (None, 1)], "renameat": [(0, 1), (2, 3)],
    "renameat2": [(0, 1), (2, 3)], "mkdir": [(None, 0)], "mkdirat": [(0, 1)],
    "symlink": [(None, 1)], "symlinkat": [(1, 2)], "link": [(None, 1)],
    "linkat": [(2, 3)], "chmod": [(None, 0)], "fchmodat": [(0, 1)],
    "chown": [(None, 0)], "lchown": [(None, 0)], "fchownat": [(0, 1)],
    "utimensat": [(0, 1)], "utimes": [(None, 0)], "utime": [(None, 0)],
    "truncate": [(None, 0)], "mknod": [(None, 0)], "mknodat": [(0, 1)],
    "creat": [(None, 0)],
}
FD_WRITERS = {"fchmod", "fchown", "ftruncate"}

O_ACCMODE, O_CREAT, O_TRUNC, O_APPEND = 0o3, 0o100, 0o1000, 0o2000
O_TMPFILE = 0o20000000
O_WRITE = O_CREAT | O_TRUNC | O_APPEND | O_TMPFILE
# the open flags replayed; the rest (O_LARGEFILE, O_NOATIME, ...) change
# nothing a read-only replay can see
O_KEEP = 0o4000 | 0o200000 | 0o400000 | 0o2000000 | 0o10000000 | 0o400
AT_FDCWD = -100
AT_EMPTY_PATH = 0x1000
AT_KEEP = 0x100 | 0x800 | 0x1000   # SYMLINK_NOFOLLOW, NO_AUTOMOUNT, EMPTY_PATH
PSEUDO = ("/proc", "/sys", "/dev", "/run")


def die(msg):
    sys.stderr.write("record.py: %s\n" % msg)
    sys.exit(2)


# ---- strace's output ----
LINE = re.compile(r"^(\d+)\s+(.*)$")


def split_args(s, i):
    """s[i] follows '(': returns ([arg, ...], index after ')')."""
    args, cur, depth, n = [], [], 0, len(s)
    while i < n:
        c = s[i]
        if c == '"':
            j = i + 1
            while j < n and s[j] != '"':
                j += 2 if s[j] == "\\" else 1
            cur.append(s[i:j + 1])
            i = j + 1
            continue
        if s.startswith("/*", i):
            # kept: names (CLONE_FILES) and counts (/* 12 entries */) are in them
            j = s.find("*/", i)
            j = n if j < 0 else j + 2
            cur.append(s[i:j])
            i = j
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                a = "".join(cur).strip()
                if a or args:
                    args.append(a)
                return args, i + 1
            depth -= 1
        elif c == "," and depth == 0:
            args.append("".join(cur).strip())
            cur = []
            i += 1
            continue
        cur.append(c)
        i += 1
    raise ValueError("no closing parenthesis")


def unquote(a):
    """strace's "..." string to bytes; None if A is not a whole string."""
    if len(a) < 2 or a[0] != '"':
        return None
    end = a.rfind('"')
    if end <= 0 or a[end + 1:].strip():   # "..."... : truncated
        return None
    body, out, i = a[1:end], bytearray(), 0
    esc = {"n": 10, "t": 9, "r": 13, "v": 11, "f": 12, "\\": 92, '"': 34, "'": 39, "a": 7, "b": 8}
    while i < len(body):
        c = body[i]
        if c != "\\":
            out += c.encode("utf-8", "surrogateescape")
            i += 1
            continue
        d = body[i + 1]
        if d in esc:
            out.append(esc[d])
            i += 2
        elif d == "x":
            out.append(int(body[i + 2:i + 4], 16))
            i += 4
        else:
            j = i + 1
            while j < len(body) and j < i + 4 and body[j] in "01234567":
                j += 1
            out.append(int(body[i + 1:j], 8) & 255)
            i = j
    return bytes(out)


def num(a):
    """An integer argument: 0x80000, -100, 0 /*...*/|0x800 /*...*/."""
    a = re.sub(r"/\*.*?\*/", "", a).strip()
    v = 0
    for part in a.split("|"):
        v |= int(part.strip(), 0)
    return v


def field(a, name):
    m = re.search(r"\b%s=(0[0-7]*|\d+)" % name, a)
    return None if not m else int(m.group(1), 8 if m.group(1).startswith("0") else 10)


def parse(lines):
    """Yields (lineno, pid, name, args, ret, errname) of every finished call,
    and (lineno, pid, '+exit', ...) for an exit."""
    pending = {}
    for no, raw in enumerate(lines, 1):
        m = LINE.match(raw.rstrip("\n"))
        if not m:
            continue
        pid, text = int(m.group(1)), m.group(2)
        if text.startswith("+++"):
            yield no, pid, "+exit", [], 0, None
            continue
        if text.startswith("---"):
            continue
        if text.endswith("<unfinished ...>"):
            pending[pid] = (text[:-len("<unfinished ...>")].rstrip(), no)
            if re.match(r"(clone3?|vfork|fork)\(", text):
                yield no, pid, "+forking", [], 0, None
            continue
        r = re.match(r"<\.\.\. (\w+) resumed>\s?(.*)$", text)
        if r:
            if pid not in pending:
                continue
            head, no = pending.pop(pid)
            text = head + r.group(2) if head.endswith(("(", " ")) else head + " " + r.group(2)
        c = re.match(r"(\w+)\(", text)
        if not c:
            continue
        try:
            args, i = split_args(text, c.end())
        except (ValueError, IndexError):
            continue
        rest = text[i:].strip()
        rm = re.match(r"=\s+(-?\d+|0x[0-9a-f]+|\?)\s*(\w+)?", rest)
        if not rm or rm.group(1) == "?":
            continue
        ret = int(rm.group(1), 0)
        err = rm.group(2) if ret == -1 and rm.group(2) and rm.group(2).startswith("E") else None
        yield no, pid, c.group(1), args, ret, err


# ---- the converter ----
def q(b):
    """bytes to the replay file's string: "..." with \\xHH for anything but
    printable ASCII other than '"' and '\\'."""
    return '"' + "".join(chr(c) if 0x21 <= c <= 0x7e and c not in (0x22, 0x5c) else "\\x%02x" % c
                         for c in b) + '"'


def norm(p):
    """Lexical normalisation (for the written-paths set only)."""
    return os.path.normpath(p) if p.startswith(b"/") else p


class Table:
    def __init__(self):
        self.fds = {}      # fd -> [slot, cloexec]
        self.users = 1


class Conv:
    def __init__(self, cwd):
        self.out = []
        self.skips = {}
        self.manifest = {}      # path -> entry line
        self.slots = {}         # slot -> [path, refcount, kind]
        self.nslots = 0
        self.tables = {}
        self.cwds = {}
        self.first_cwd = cwd
        self.replay_cwd = cwd
        self.forking = None
        self.written = set()    # paths changed by a skipped call
        self.written_dirs = set()  # their parents: listings changed
        self.getdents = {}      # slot -> [call, entries]
        self.implied = 0

    def skip(self, why, n=1):
        self.skips[why] = self.skips.get(why, 0) + n

    # the process a line belongs to: a new pid is the child of the pid
    # whose fork/clone is in progress
    def proc(self, pid):
        if pid not in self.tables:
            parent = self.forking
            if parent is not None and parent in self.tables:
                self.inherit(parent, pid, False)
            else:
                self.tables[pid] = Table()
                self.cwds[pid] = self.first_cwd
        return self.tables[pid]

    def inherit(self, parent, child, share):
        if child in self.tables and self.tables[child].fds:
            return
        pt = self.tables[parent]
        if share:
            pt.users += 1
            self.tables[child] = pt
        else:
            t = Table()
            for fd, (s, ce) in pt.fds.items():
                t.fds[fd] = [s, ce]
                self.slots[s][1] += 1
            self.tables[child] = t
        self.cwds[child] = self.cwds.get(parent, self.first_cwd)

    def decref(self, s, no):
        self.slots[s][1] -= 1
        if self.slots[s][1] == 0:
            return True
        return False

    def drop_table(self, pid, no, only_cloexec):
        t = self.tables.get(pid)
        if not t:
            return
        if not only_cloexec:
            t.users -= 1
            del self.tables[pid]
            if t.users > 0:
                return
        for fd in list(t.fds):
            s, ce = t.fds[fd]
            if only_cloexec and not ce:
                continue
            del t.fds[fd]
            if self.decref(s, no) and self.slots[s][2] != "pseudo":
                self.emit(no, "close %d = 0" % s)
                self.implied += 1

    def emit(self, no, text):
        self.out.append("%d %s" % (no, text))

    def dirpath(self, pid, dirfd):
        """('-' or slot, the directory's path) for a dirfd argument; None if
        the fd is not one the trace opened."""
        if dirfd == AT_FDCWD:
            return "-", self.cwds[pid]
        e = self.tables[pid].fds.get(dirfd)
        if not e:
            return None
        return str(e[0]), self.slots[e[0]][0]

    def abspath(self, base, path):
        return path if path.startswith(b"/") else base + b"/" + path

    # walks PATH on the real tree as the kernel would, adding every
    # directory, file and symlink it passes to the manifest; 'pseudo' if
    # it reaches /proc, /sys, /dev, /run or a special file
    def touch(self, path, depth=0):
        if depth > 40:
            return "ok"
        parts = path.split(b"/")
        cur = b""
        for i, comp in enumerate(parts):
            if comp in (b"", b"."):
                continue
            if comp == b"..":
                cur = cur.rsplit(b"/", 1)[0]
                continue
            nxt = cur + b"/" + comp
            if nxt.decode("utf-8", "surrogateescape") in PSEUDO:
                return "pseudo"
            try:
                st = os.lstat(nxt)
            except OSError:
                return "ok"
            if not self.add(nxt, st):
                return "pseudo"
            if stat.S_ISLNK(st.st_mode):
                body = os.readlink(nxt)
                target = body if body.startswith(b"/") else cur + b"/" + body
                rest = b"/".join(parts[i + 1:])
                return self.touch(target + b"/" + rest if rest else target, depth + 1)
            if not stat.S_ISDIR(st.st_mode):
                return "ok"
            cur = nxt
        return "ok"

    def add(self, p, st):
        if p in self.manifest:
            return self.manifest[p] is not None
        m = stat.S_IMODE(st.st_mode)
        if stat.S_ISDIR(st.st_mode):
            e = "d %o %s" % (m, q(p))
        elif stat.S_ISREG(st.st_mode):
            e = "f %o %d %s" % (m, st.st_size, q(p))
        elif stat.S_ISLNK(st.st_mode):
            e = "l %s %s" % (q(p), q(os.readlink(p)))
        else:
            e = None
        self.manifest[p] = e
        return e is not None

    def add_listing(self, d):
        d = os.path.realpath(d)
        for name in os.listdir(d):
            p = d + b"/" + name
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if not self.add(p, st):
                # a socket or device in a listed directory: an empty file
                # keeps the listing's count
                self.manifest[p] = "f %o 0 %s" % (stat.S_IMODE(st.st_mode), q(p))

    def tainted(self, p):
        p = norm(p)
        while True:
            if p in self.written:
                return True
            if p in (b"/", b"") or b"/" not in p:
                return False
            p = p.rsplit(b"/", 1)[0] or b"/"

    def path_ok(self, pid, dirfd, path):
        """The (dir token, absolute path) of a path call to replay, or None
        (counted) if it must not be."""
        if path is None:
            raise ValueError("not a string")
        if path.startswith(b"/"):
            tok, full = "-", path       # the kernel ignores the dirfd
        else:
            d = self.dirpath(pid, dirfd)
            if d is None:
                self.skip("fd-not-opened-by-trace")
                return None
            tok, base = d
            if tok != "-" and self.slots[int(tok)][2] == "pseudo":
                self.skip("pseudo-or-special-file")
                return None
            full = base + b"/" + path if path else base
        if self.tainted(full):
            self.skip("path-changed-by-skipped-call")
            return None
        if self.touch(full) == "pseudo":
            self.skip("pseudo-or-special-file")
            return None
        return tok, full

    def cd_for(self, pid, no):
        if self.cwds[pid] != self.replay_cwd:
            self.emit(no, "chdir %s = 0" % q(self.cwds[pid]))
            self.replay_cwd = self.cwds[pid]
            self.implied += 1

    # first pass: every path a skipped call changes
    def mark_written(self, calls):
        cwds, slotpath, tabs = {}, {}, {}
        for no, pid, name, args, ret, err in calls:
            cwd = cwds.setdefault(pid, self.first_cwd)
            try:
                if name in ("chdir",) and ret == 0:
                    cwds[pid] = os.path.realpath(self.abspath(cwd, unquote(args[0])))
                pairs = WRITERS.get(name, [])
                if name in ("open", "openat", "creat"):
                    fi = 1 if name == "open" else 2
                    if name == "creat" or num(args[fi]) & (O_ACCMODE | O_WRITE):
                        pairs = [(None if name != "openat" else 0, 0 if name != "openat" else 1)]
                for dfi, pi in pairs:
                    p = unquote(args[pi])
                    if p is None:
                        continue
                    if not p.startswith(b"/"):
                        if dfi is not None and num(args[dfi]) != AT_FDCWD:
                            base = None
                        else:
                            base = cwd
                        if base is None:
                            continue
                        p = base + b"/" + p
                    p = norm(p)
                    self.written.add(p)
                    self.written_dirs.add(p.rsplit(b"/", 1)[0] or b"/")
            except (IndexError, ValueError):
                continue

    def convert(self, calls):
        self.mark_written(calls)
        self.add(b"/", os.lstat(b"/"))
        self.touch(self.first_cwd)
        for no, pid, name, args, ret, err in calls:
            if name == "+forking":
                self.proc(pid)
                self.forking = pid
                continue
            t = self.proc(pid)
            res = ("-" + err) if ret == -1 and err else str(ret)
            try:
                self.call(no, pid, t, name, args, ret, res)
            except (IndexError, ValueError, TypeError):
                self.skip("unparsed-" + name)

    def newslot(self, pid, fd, path, cloexec, kind):
        s = self.nslots
        self.nslots += 1
        self.slots[s] = [path, 1, kind]
        old = self.tables[pid].fds.get(fd)
        if old:
            self.decref(old[0], 0)
        self.tables[pid].fds[fd] = [s, cloexec]
        return s

    def slot_of(self, pid, fd):
        e = self.tables[pid].fds.get(fd)
        if not e:
            self.skip("fd-not-opened-by-trace")
            return None
        if self.slots[e[0]][2] == "pseudo":
            self.skip("pseudo-or-special-file")
            return None
        return e[0]

    def call(self, no, pid, t, name, args, ret, res):
        if name == "+exit":
            self.drop_table(pid, no, False)
            return
        if name in ("clone", "clone3", "fork", "vfork"):
            if ret > 0:
                share = "CLONE_FILES" in (args[0] if args else "")
                if ret in self.tables and not share:
                    pass     # the child came first and inherited already
                else:
                    if ret in self.tables:
                        del self.tables[ret]
                    self.inherit(pid, ret, share)
            if self.forking == pid:
                self.forking = None
            return
        if name in WRITERS or name in FD_WRITERS:
            self.skip("writes-" + name)
            return
        if name in ("open", "openat", "openat2"):
            if name == "openat2":
                self.skip("openat2")
                return
            dirfd = AT_FDCWD if name == "open" else num(args[0])
            path = unquote(args[0 if name == "open" else 1])
            flags = num(args[1 if name == "open" else 2])
            if flags & (O_ACCMODE | O_WRITE):
                self.skip("writes-open-for-writing")
                return
            ok = self.path_ok(pid, dirfd, path)
            if ok is None:
                if ret >= 0:   # calls on it are skipped too
                    self.newslot(pid, ret, b"", False, "pseudo")
                return
            self.cd_for(pid, no)
            s = "-"
            if ret >= 0:
                s = self.newslot(pid, ret, ok[1], bool(flags & 0o2000000), "file")
            self.emit(no, "open %s %s %s 0x%x = %s" % (s, ok[0], q(path), flags & O_KEEP,
                                                         "0" if ret >= 0 else res))
            return
        if name in ("stat", "lstat", "newfstatat", "statx", "fstat"):
            if name == "fstat" or (name == "newfstatat" and unquote(args[1]) == b""
                                   and num(args[3]) & AT_EMPTY_PATH and num(args[0]) >= 0):
                s = self.slot_of(pid, num(args[0]))
                if s is None:
                    return
                buf = args[1] if name == "fstat" else args[2]
                extra = "" if ret else " %o %d" % (field(buf, "st_mode"), field(buf, "st_size"))
                self.emit(no, "fstat %d = %s%s" % (s, res, extra))
                return
            if name == "statx":
                dirfd, path, flags, mask, buf = num(args[0]), unquote(args[1]), num(args[2]), \
                    num(args[3]), args[4]
                mode, size = field(buf, "stx_mode"), field(buf, "stx_size")
            elif name == "newfstatat":
                dirfd, path, flags, buf = num(args[0]), unquote(args[1]), num(args[3]), args[2]
                mode, size = field(buf, "st_mode"), field(buf, "st_size")
            else:
                dirfd, path, buf = AT_FDCWD, unquote(args[0]), args[1]
                flags = 0x100 if name == "lstat" else 0
                mode, size = field(buf, "st_mode"), field(buf, "st_size")
            ok = self.path_ok(pid, dirfd, path)
            if ok is None:
                return
            self.cd_for(pid, no)
            extra = "" if ret else " %o %d" % (mode, size)
            if name == "statx":
                self.emit(no, "statx %s %s 0x%x 0x%x = %s%s" % (ok[0], q(path), flags & AT_KEEP,
                                                               mask, res, extra))
            else:
                self.emit(no, "stat %s %s 0x%x = %s%s" % (ok[0], q(path), flags & AT_KEEP, res,
                                                         extra))
            return
        if name in ("access", "faccessat", "faccessat2"):
            if name == "access":
                dirfd, path, mode, flags = AT_FDCWD, unquote(args[0]), num(args[1]), 0
            else:
                dirfd, path, mode = num(args[0]), unquote(args[1]), num(args[2])
                flags = num(args[3]) if name == "faccessat2" else 0
            ok = self.path_ok(pid, dirfd, path)
            if ok is None:
                return
            self.cd_for(pid, no)
            self.emit(no, "access %s %s %d 0x%x = %s" % (ok[0], q(path), mode, flags, res))
            return
        if name in ("readlink", "readlinkat"):
            o = 0 if name == "readlink" else 1
            dirfd = AT_FDCWD if o == 0 else num(args[0])
            path, size = unquote(args[o]), num(args[o + 2])
            ok = self.path_ok(pid, dirfd, path)
            if ok is None:
                return
            self.cd_for(pid, no)
            body = " " + q(unquote(args[o + 1])[:ret]) if ret >= 0 else ""
            self.emit(no, "readlink %s %s %d = %s%s" % (ok[0], q(path), size, res, body))
            return
        if name == "getdents64":
            s = self.slot_of(pid, num(args[0]))
            if s is None:
                return
            m = re.search(r"/\* (\d+) entries \*/", args[1])
            n = int(m.group(1)) if m else 0
            path = self.slots[s][0]
            if norm(path) in self.written_dirs or self.tainted(path):
                self.skip("path-changed-by-skipped-call")
                return
            if s in self.getdents and ret >= 0:
                self.getdents[s][1] += n     # folded into the first call
                self.skip("getdents64-folded-into-first")
                return
            if ret >= 0:
                self.add_listing(path)
                self.emit(no, None)
                self.getdents[s] = [len(self.out) - 1, n]
            else:
                self.emit(no, "getdents %d = %s" % (s, res))
            return
        if name == "close":
            fd = num(args[0])
            e = t.fds.get(fd)
            if not e:
                return      # stdin, a pipe: nothing to replay
            del t.fds[fd]
            if self.decref(e[0], no) and self.slots[e[0]][2] != "pseudo":
                self.emit(no, "close %d = %s" % (e[0], res))
            return
        if name in ("dup", "dup2", "dup3") or (name == "fcntl" and "F_DUPFD" in args[1]):
            e = t.fds.get(num(args[0]))
            if ret < 0 or (e and ret == num(args[0])):
                return
            old = t.fds.pop(ret, None)   # dup2 onto an open fd closes it
            if old and self.decref(old[0], no) and self.slots[old[0]][2] != "pseudo":
                self.emit(no, "close %d = 0" % old[0])
                self.implied += 1
            if e:
                t.fds[ret] = [e[0], "O_CLOEXEC" in (args[-1] if name == "dup3" else "") or
                              "F_DUPFD_CLOEXEC" in args[1]]
                self.slots[e[0]][1] += 1
            return
        if name == "fcntl":
            e = t.fds.get(num(args[0]))
            if e and "F_SETFD" in args[1] and ret == 0:
                e[1] = bool(num(args[2]) & 1)
            return
        if name in ("read", "pread64"):
            s = self.slot_of(pid, num(args[0]))
            if s is None:
                return
            if name == "read":
                self.emit(no, "read %d %d = %s" % (s, num(args[2]), res))
            else:
                self.emit(no, "pread %d %d %d = %s" % (s, num(args[2]), num(args[3]), res))
            return
        if name == "lseek":
            s = self.slot_of(pid, num(args[0]))
            if s is None:
                return
            self.emit(no, "lseek %d %d %d = %s" % (s, num(args[1]), num(args[2]), res))
            return
        if name == "chdir":
            path = unquote(args[0])
            ok = self.path_ok(pid, AT_FDCWD, path)
            if ok is None:
                return
            self.cd_for(pid, no)
            self.emit(no, "chdir %s = %s" % (q(path), res))
            if ret == 0:
                self.cwds[pid] = self.replay_cwd = os.path.realpath(ok[1])
            return
        if name == "fchdir":
            s = self.slot_of(pid, num(args[0]))
            if s is None:
                return
            self.emit(no, "fchdir %d = %s" % (s, res))
            if ret == 0:
                self.cwds[pid] = self.replay_cwd = os.path.realpath(self.slots[s][0])
            return
        if name == "getcwd":
            self.cd_for(pid, no)
            body = " " + q(unquote(args[0])) if ret >= 0 else ""
            self.emit(no, "getcwd %d = %s%s" % (num(args[1]), res, body))
            return
        if name in ("execve", "execveat"):
            if name == "execve":
                self.emit(no, "exec %s" % q(unquote(args[0]) or b"?"))
            if ret == 0:
                self.drop_table(pid, no, True)
            return
        self.skip("other-" + name)

    def write(self, f, cmd):
        for s, (call, n) in self.getdents.items():
            self.out[call] = self.out[call].replace("None", "getdents %d = %d" % (s, n))
        calls = [c for c in self.out]
        f.write("uvfs-replay 1\n")
        f.write("# recorded by bench/replay/record.py: %s\n" % cmd)
        f.write("# %d calls (%d of them closes and chdirs implied by exit, exec and the\n"
                "# processes' cwds), %d manifest entries\n"
                % (len(calls), self.implied, sum(1 for e in self.manifest.values() if e)))
        f.write("cwd %s\n" % q(self.first_cwd))
        for why in sorted(self.skips):
            f.write("skip %s %d\n" % (why, self.skips[why]))
        for p in sorted(self.manifest):
            if self.manifest[p]:
                f.write(self.manifest[p] + "\n")
        f.write("calls %d\n" % len(calls))
        for c in calls:
            f.write(c + "\n")
        f.write("end\n")


def main(argv):
    out = cwd = convert = cmdtext = None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            i += 1
            break
        if a in ("-o", "-C", "--convert", "--cwd", "--cmd") and i + 1 < len(argv):
            v = argv[i + 1]
            if a == "-o":
                out = v
            elif a in ("-C", "--cwd"):
                cwd = v
            elif a == "--convert":
                convert = v
            else:
                cmdtext = v
            i += 2
            continue
        if a in ("-h", "--help"):
            sys.stdout.write(__doc__)
            return 0
        break
    cmd = argv[i:]
    if not out or (not cmd and not convert):
        die("usage: record.py -o FILE [-C DIR] -- CMD...  |  -o FILE --convert STRACE.txt "
            "[--cwd DIR]")
    cwd = os.path.realpath(cwd or os.getcwd()).encode("utf-8", "surrogateescape")
    if convert:
        src = convert
    else:
        fd, src = tempfile.mkstemp(prefix="uvfs-record.", suffix=".strace")
        os.close(fd)
        r = subprocess.run(STRACE + ["-o", src, "--"] + cmd, cwd=cwd,
                           stdout=subprocess.DEVNULL)
        if r.returncode:
            sys.stderr.write("record.py: %s exited with status %d (recorded anyway)\n"
                             % (" ".join(cmd), r.returncode))
        cmdtext = " ".join(cmd)
    with open(src, encoding="utf-8", errors="surrogateescape") as f:
        calls = list(parse(f))
    conv = Conv(cwd)
    conv.convert(calls)
    with open(out, "w", encoding="utf-8", errors="surrogateescape") as f:
        conv.write(f, cmdtext or "(converted from %s)" % convert)
    if not convert:
        os.unlink(src)
    sys.stderr.write("record.py: %s: %d calls, %d skipped (%s)\n" % (
        out, len(conv.out), sum(conv.skips.values()),
        ", ".join("%s %d" % kv for kv in sorted(conv.skips.items()))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
