/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dirs_renames.c - a directory read with names made, renamed and removed
 * between two getdents64 calls (issue 9, xfstests' generic/736).
 *
 * Linux's tmpfs (6.14 and later: simple_offset over d_children) returns the
 * names newest first; a record's d_off is the offset of the name after it
 * (0x7fffffff after the last), and a name made or renamed in while a read is
 * under way is not returned by it.  Each scenario reads part of a directory
 * one record per call, changes it, reads on, seeks back to a saved d_off and
 * to 0, and records every record as "name@d_off", so order, offsets and the
 * set of names are compared exactly.  Where uvfs numbers differently
 * (RENAME_EXCHANGE: uvfs gives both names new offsets, Linux swaps theirs)
 * only the sets of names are compared.
 */
#include "conf.h"
#include <stdarg.h>


/* Exact records: the behaviour of Linux 6.14 and later. */
#define RD(desc, s) chk_str_since(desc, s, 6, 14)
#define C14(e) C_SINCE(6, 14, e)

/* Rotating result strings, long enough for a recorded check. */
static char *sbuf(void)
{
	static char b[8][600];
	static int i;
	char *s = b[i++ % 8];
	s[0] = 0;
	return s;
}

static void app(char *s, const char *f, ...) __attribute__((format(printf, 2, 3)));
static void app(char *s, const char *f, ...)
{
	size_t l = strlen(s);
	va_list ap;
	va_start(ap, f);
	if (l < 599)
		vsnprintf(s + l, 600 - l, f, ap);
	va_end(ap);
}

/* The last d_off each read returned, and the names the last read returned
 * (not recorded: the scenarios record the strings). */
static int64_t last_off[64];
static int nlast;
static char last_names[64][64];

/*
 * Up to calls getdents64 calls of bufsz bytes (0: until the end): the
 * records as "name@d_off ...", then "|" and the result of the last call when
 * it was not a full buffer (0 at the end, -errno).
 */
static const char *rd(int fd, size_t bufsz, int calls)
{
	char buf[4096];
	char *s = sbuf();
	nlast = 0;
	for (int i = 0; !calls || i < calls; i++) {
		ssize_t r = getdents64(fd, buf, bufsz);
		if (r <= 0) {
			app(s, "|%lld", (long long)r);
			break;
		}
		for (ssize_t off = 0; off < r;) {
			struct dent *d = (void *)(buf + off);
			if (d->d_reclen == 0 || off + d->d_reclen > r) {
				app(s, "bad reclen %u", d->d_reclen);
				return s;
			}
			app(s, "%s@%lld ", d->d_name, (long long)d->d_off);
			if (nlast < 64) {
				last_off[nlast] = d->d_off;
				snprintf(last_names[nlast], 64, "%s", d->d_name);
				nlast++;
			}
			off += d->d_reclen;
		}
	}
	return s;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The names of the last rd(), sorted: a set that does not depend on order. */
static const char *names_set(void)
{
	static char sorted[64][64];
	memcpy(sorted, last_names, sizeof(sorted));
	qsort(sorted, (size_t)nlast, 64, cmp_names);
	char *s = sbuf();
	for (int i = 0; i < nlast; i++)
		app(s, "%s ", sorted[i]);
	return s;
}

static void mkdir_files(const char *dir, int n)
{
	C(MKDIR(dir, 0755));
	for (int i = 0; i < n; i++)
		mkfile(fmt("%s/f%d", dir, i), "");
}

/* One record a call (a 32-byte buffer holds one record of a short name). */
#define ONE 32

/* (1) a name already returned, renamed within the directory */
static void readdir_rename_returned(void)
{
	mkdir_files("/d", 6);
	int fd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	RD("first 4", rd(fd, ONE, 4));
	char done[64], rest[64];
	snprintf(done, sizeof done, "%s", last_names[3]);
	int64_t saved = last_off[1];
	C(RENAME(fmt("/d/%s", done), "/d/g"));
	RD("rest", rd(fd, ONE, 0));
	snprintf(rest, sizeof rest, "%s", nlast ? last_names[0] : "");
	C14(lseek(fd, saved, SEEK_SET) == saved);
	RD("from the d_off of \"..\"", rd(fd, ONE, 0));
	C(lseek(fd, 0, SEEK_SET));
	RD("from 0", rd(fd, 4096, 0));
	/* and a name renamed twice while the read goes on */
	C(lseek(fd, 0, SEEK_SET));
	RD("first 3", rd(fd, ONE, 3));
	C(RENAME(fmt("/d/%s", rest), "/d/h"));
	C(RENAME("/d/h", "/d/h2"));
	RD("rest", rd(fd, 64, 0));
	LS("/d");
	cl(fd);
}

/* (2) names not yet returned, renamed within the directory */
static void readdir_rename_unreturned(void)
{
	mkdir_files("/d", 6);
	int fd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	RD("first 4", rd(fd, ONE, 4));
	C(RENAME("/d/f0", "/d/g0"));
	C(RENAME("/d/f2", "/d/g2"));
	RD("rest", rd(fd, ONE, 0));
	C(getdents64(fd, (char[64]){ 0 }, 64));
	C(lseek(fd, 0, SEEK_SET));
	RD("from 0", rd(fd, ONE, 0));
	cl(fd);
}

static int count_in_last(const char *name)
{
	int n = 0;
	for (int i = 0; i < nlast; i++)
		n += !strcmp(last_names[i], name);
	return n;
}

/* (2b) renamed over another name: one not yet returned, one returned */
static void readdir_rename_over(void)
{
	mkdir_files("/d", 6);
	int fd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	rd(fd, ONE, 4);
	char first[4][64];
	memcpy(first, last_names, sizeof(first));
	CS("first 4", names_set());
	C(RENAME("/d/f1", "/d/f2"));
	C(RENAME("/d/f3", "/d/f5"));
	rd(fd, ONE, 0);
	/* the replaced name not yet returned comes once; the returned one not again */
	C14(count_in_last("f2"));
	C14(count_in_last("f5"));
	C14(count_in_last("f0"));
	int twice = 0;
	for (int i = 0; i < 4; i++)
		twice += count_in_last(first[i]);
	DOC(twice, "Linux 6.14+ gives a name renamed over another that one's offset but moves the entry to the front "
		   "of its d_children walk: a reader below it walks the front again (f4 twice); uvfs keeps the place");
	C(lseek(fd, 0, SEEK_SET));
	rd(fd, ONE, 0);
	C(nlast);
	CS("from 0", names_set());
	LS("/d");
	cl(fd);
}

/* (3) renamed in from another directory, (4) renamed out to it */
static void readdir_rename_in_out(void)
{
	mkdir_files("/d", 6);
	C(MKDIR("/o", 0755));
	C(mkfile("/o/x", ""));
	C(mkfile("/o/y", ""));
	C(MKDIR("/o/sub", 0755));
	int fd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	RD("first 4", rd(fd, ONE, 4));
	int64_t saved = last_off[2];
	C(RENAME("/o/x", "/d/inx"));
	C(RENAME("/o/sub", "/d/insub"));
	C(RENAME("/d/f5", "/o/out5")); /* returned */
	C(RENAME("/d/f1", "/o/out1")); /* not yet */
	RD("rest", rd(fd, ONE, 0));
	C(lseek(fd, saved, SEEK_SET) == saved);
	RD("from a saved d_off", rd(fd, ONE, 0));
	C(lseek(fd, 0, SEEK_SET));
	RD("from 0", rd(fd, 4096, 0));
	/* the other directory's reader, with names leaving and coming back */
	int ofd = F(OPEN("/o", O_RDONLY | O_DIRECTORY));
	RD("/o first 3", rd(ofd, ONE, 3));
	C(RENAME("/o/y", "/d/y"));
	C(RENAME("/d/y", "/o/y"));
	C(RENAME("/d/inx", "/o/x"));
	RD("/o rest", rd(ofd, ONE, 0));
	C(lseek(ofd, 0, SEEK_SET));
	RD("/o from 0", rd(ofd, 4096, 0));
	cl(ofd);
	cl(fd);
}

/* (5) made after the reader started: after ".", after "..", at the end */
static void readdir_create_during(void)
{
	mkdir_files("/d", 3);
	int fd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	RD(".", rd(fd, ONE, 1));
	C(mkfile("/d/n1", ""));
	RD("..", rd(fd, ONE, 1));
	C(mkfile("/d/n2", ""));
	C(MKDIR("/d/n3", 0755));
	RD("rest", rd(fd, ONE, 0));
	C(mkfile("/d/n4", ""));
	RD("at the end", rd(fd, ONE, 0));
	C(SYMLINK("n1", "/d/n5"));
	C(lseek(fd, 0, SEEK_SET));
	RD("from 0", rd(fd, 4096, 0));
	cl(fd);
	/* an empty directory: ".." is the end, and stays it */
	C(MKDIR("/e", 0755));
	fd = F(OPEN("/e", O_RDONLY | O_DIRECTORY));
	RD("empty", rd(fd, 4096, 0));
	C(mkfile("/e/a", ""));
	RD("empty, then made", rd(fd, 4096, 0));
	C(lseek(fd, 0, SEEK_SET));
	RD("from 0", rd(fd, 4096, 0));
	cl(fd);
	/* names removed between calls, and one made again under a removed name */
	mkdir_files("/r", 5);
	fd = F(OPEN("/r", O_RDONLY | O_DIRECTORY));
	RD("first 3", rd(fd, ONE, 3));
	C(UNLINK("/r/f4"));
	C(UNLINK("/r/f2"));
	C(mkfile("/r/f2", ""));
	RD("rest", rd(fd, ONE, 0));
	C(lseek(fd, 0, SEEK_SET));
	RD("from 0", rd(fd, ONE, 0));
	cl(fd);
}

/* (6) RENAME_EXCHANGE: the sets of names, not their order or offsets */
static void readdir_exchange(void)
{
	mkdir_files("/d", 8);
	C(MKDIR("/o", 0755));
	C(mkfile("/o/x", ""));
	int fd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	rd(fd, ONE, 4);
	CS("first 4", names_set());
	/* returned f7 with unreturned f0; unreturned f1 and f2; returned f6
	 * with /o/x; unreturned f3 with /o/x */
	C(RENAME2("/d/f7", "/d/f0", RENAME_EXCHANGE));
	C(RENAME2("/d/f1", "/d/f2", RENAME_EXCHANGE));
	C(RENAME2("/d/f6", "/o/x", RENAME_EXCHANGE));
	C(RENAME2("/d/f3", "/o/x", RENAME_EXCHANGE));
	rd(fd, ONE, 0);
	C14(nlast);
	CS("rest", names_set());
	C(lseek(fd, 0, SEEK_SET));
	rd(fd, ONE, 0);
	C(nlast);
	CS("from 0", names_set());
	/* a full read after exchanges ends, every name once */
	C(RENAME2("/d/f4", "/d/f5", RENAME_EXCHANGE));
	C(lseek(fd, 0, SEEK_SET));
	rd(fd, 4096, 0);
	CS("from 0 in one call", names_set());
	LS("/d");
	LS("/o");
	cl(fd);
}

/* RENAME_WHITEOUT (the whiteout is made after the rename, in another place
 * of the order on Linux) and directories renamed: the sets of names */
static void readdir_whiteout_subdir(void)
{
	mkdir_files("/d", 4);
	C(MKDIR("/d/s0", 0755));
	C(mkfile("/d/s0/inner", ""));
	int fd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	rd(fd, ONE, 3);
	CS("first 3", names_set());
	C(RENAME2("/d/f0", "/d/w", RENAME_WHITEOUT));
	C(RENAME("/d/s0", "/d/s1"));
	rd(fd, ONE, 0);
	C14(nlast);
	CS("rest", names_set());
	C(lseek(fd, 0, SEEK_SET));
	rd(fd, ONE, 0);
	C(nlast);
	CS("from 0", names_set());
	LS("/d");
	LS("/d/s1");
	cl(fd);
}

/* (7) lseek to saved d_offs, to 0, 1, 2 and elsewhere; (8) d_off values */
static void readdir_seek_offsets(void)
{
	mkdir_files("/d", 6);
	int fd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	RD("all, one a call", rd(fd, ONE, 0));
	int64_t offs[16];
	int n = nlast < 16 ? nlast : 16;
	memcpy(offs, last_off, sizeof(offs[0]) * (size_t)n);
	C(lseek(fd, 0, SEEK_CUR));
	C(lseek(fd, -1, SEEK_SET));
	for (int i = 0; i < n; i++) {
		C(lseek(fd, offs[i], SEEK_SET) == offs[i]);
		RD(fmt("from d_off %d", i), rd(fd, 4096, 0));
	}
	static const long long at[] = { 1, 2, 3, 5, 8, 9, 100, 0x7ffffffe, 0x7fffffff, 0x80000000LL };
	for (unsigned i = 0; i < sizeof at / sizeof at[0]; i++) {
		C(lseek(fd, at[i], SEEK_SET));
		RD(fmt("from %lld", at[i]), rd(fd, 4096, 0));
	}
	/* SEEK_CUR moves the position as a number, as on Linux */
	C(lseek(fd, 4, SEEK_SET));
	C(lseek(fd, 1, SEEK_CUR));
	RD("from 4 + 1", rd(fd, 4096, 0));
	/* a saved d_off still resumes after its name is renamed away */
	C(lseek(fd, 0, SEEK_SET));
	RD("first 4", rd(fd, ONE, 4));
	int64_t saved = last_off[2];
	C(RENAME(fmt("/d/%s", last_names[3]), "/d/moved"));
	C(lseek(fd, saved, SEEK_SET) == saved);
	RD("from a saved d_off", rd(fd, ONE, 0));
	/* two records a call */
	C(lseek(fd, 0, SEEK_SET));
	RD("two a call", rd(fd, 48, 0));
	/* the offsets of a directory with a subdirectory made and removed */
	C(MKDIR("/d/sub", 0755));
	C(RMDIR("/d/sub"));
	C(mkfile("/d/last", ""));
	C(lseek(fd, 0, SEEK_SET));
	RD("after mkdir, rmdir, create", rd(fd, 4096, 0));
	cl(fd);
}

/* generic/736 in small: rename every name as the read returns it */
static void readdir_rename_each(void)
{
	mkdir_files("/d", 40);
	int fd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	char buf[128];
	int records = 0, renamed = 0, renamed_seen = 0;
	char *s = sbuf();
	for (int calls = 0; calls < 200; calls++) {
		ssize_t r = getdents64(fd, buf, sizeof buf);
		if (r <= 0) {
			app(s, "|%lld", (long long)r);
			break;
		}
		for (ssize_t off = 0; off < r;) {
			struct dent *d = (void *)(buf + off);
			off += d->d_reclen;
			records++;
			app(s, "%s@%lld ", d->d_name, (long long)d->d_off);
			if (d->d_name[0] == 'r')
				renamed_seen++;
			else if (d->d_name[0] == 'f' && RENAME(fmt("/d/%s", d->d_name), fmt("/d/r%s", d->d_name + 1)) == 0)
				renamed++;
		}
	}
	C(records);
	C(renamed);
	C(renamed_seen);
	RD("records", s);
	C(lseek(fd, 0, SEEK_SET));
	RD("from 0", rd(fd, 4096, 0));
	cl(fd);
}

/* (8) the name the reader returns next is changed between two calls: removed,
 * renamed within, renamed out, hard-linked; and the reader seeks away and
 * back (renamed over: readdir_rename_over, where Linux's order differs).  uvfs keeps that name to resume at it
 * (readdir.c), so each change must send the reader back to its offset. */
static void readdir_next_name_changes(void)
{
	mkdir_files("/d", 10);
	C(MKDIR("/o", 0755));
	C(mkfile("/o/x", ""));
	int fd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	RD("first 3", rd(fd, ONE, 3));
	C(UNLINK("/d/f8"));
	RD("after the next was removed", rd(fd, ONE, 1));
	C(RENAME("/d/f6", "/d/g6"));
	RD("after the next was renamed within", rd(fd, ONE, 1));
	C(RENAME("/d/f4", "/o/f4"));
	RD("after the next was renamed out", rd(fd, ONE, 1));
	C(LINK("/d/f2", "/d/l2"));
	RD("after the next got a second name", rd(fd, ONE, 1));
	int64_t saved = last_off[0];
	C(lseek(fd, saved, SEEK_SET) == saved);
	RD("from a saved d_off", rd(fd, ONE, 2));
	C(lseek(fd, 0, SEEK_SET));
	RD("from 0, one at a time", rd(fd, ONE, 0));
	C(lseek(fd, 0, SEEK_SET));
	RD("first 4 again", rd(fd, ONE, 4));
	LS("/d");
	cl(fd);
}

/* The overlay root's lower-only directory (a plain one elsewhere): read
 * through to the real directory, offsets and all; a name made in it copies
 * it up, and the read goes on in the real lower directory until a rewind,
 * after which the merged names show (Linux's ovl_dir_reset). */
static void readdir_copy_up_rewind(void)
{
	C(MKDIR("/lower-dir", 0755));
	int fd = F(OPEN("/lower-dir", O_RDONLY | O_DIRECTORY));
	RD("before", rd(fd, 4096, 0));
	C(lseek(fd, 0, SEEK_CUR));
	C(mkfile("/lower-dir/new", "n"));
	RD("at the end, after a create", rd(fd, 4096, 0));
	C(lseek(fd, 0, SEEK_SET));
	RD("rewound", rd(fd, 4096, 0));
	C(lseek(fd, 0, SEEK_CUR));
	cl(fd);
}

/* An overlay directory made in the upper layer into which a lower file is
 * renamed (copied up: the directory is impure), larger than one batch of
 * the read-through: real offsets, a record at a time and four records at
 * a time, and the copy's d_ino its origin's, as stat says.  On tmpfs, the
 * same calls on plain files. */
static void readdir_impure_through(void)
{
	mkdir_files("/d", 40);
	if (C(ACCESS("/lower-file", F_OK)) != 0)
		C(mkfile("/lower-file", "x"));
	C(RENAME("/lower-file", "/d/moved"));
	int fd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	RD("one a call", rd(fd, ONE, 0));
	C(lseek(fd, 0, SEEK_CUR));
	C(lseek(fd, 0, SEEK_SET));
	RD("four a call", rd(fd, 4 * ONE, 0));
	C(lseek(fd, 0, SEEK_SET));
	char buf[4096];
	uint64_t dino = 0;
	for (;;) {
		ssize_t r = getdents64(fd, buf, sizeof buf);
		if (r <= 0)
			break;
		for (ssize_t off = 0; off < r;) {
			struct dent *d = (void *)(buf + off);
			if (!strcmp(d->d_name, "moved"))
				dino = d->d_ino;
			off += d->d_reclen;
		}
	}
	struct stat st;
	C(fstatat(AT_FDCWD, "/d/moved", &st, 0));
	C(dino != 0 && dino == st.st_ino);
	cl(fd);
}

const struct scenario dirs_renames_scenarios[] = {
	{ "readdir_rename_returned", readdir_rename_returned },
	{ "readdir_rename_unreturned", readdir_rename_unreturned },
	{ "readdir_rename_over", readdir_rename_over },
	{ "readdir_rename_in_out", readdir_rename_in_out },
	{ "readdir_create_during", readdir_create_during },
	{ "readdir_exchange", readdir_exchange },
	{ "readdir_whiteout_subdir", readdir_whiteout_subdir },
	{ "readdir_seek_offsets", readdir_seek_offsets },
	{ "readdir_rename_each", readdir_rename_each },
	{ "readdir_next_name_changes", readdir_next_name_changes },
	{ "readdir_copy_up_rewind", readdir_copy_up_rewind },
	{ "readdir_impure_through", readdir_impure_through },
	{ NULL, NULL },
};
