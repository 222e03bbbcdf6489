/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* harness.h - the parts of uvfs-bench that testcases do not see. */
#ifndef UVFS_BENCH_HARNESS_H
#define UVFS_BENCH_HARNESS_H

#include <limits.h>
#include <signal.h>
#include "bench.h"

#define MAX_WORKERS 256
#define MAX_SAMPLES 256
#define MAX_TARGETS 4    /* uvfs, uvfs-baseline, host, uvfs-fuse */

/* ---- targets (target.c) ---- */
enum target_kind { TARGET_UVFS, TARGET_HOST };

/* The uvfs entry points the harness itself calls (the testcases' calls are
 * in bench_ops). */
struct uvfs_api {
	struct uvfs *(*create)(const struct uvfs_options *opts);
	void (*destroy)(struct uvfs *fs);
	struct uvfs_proc *(*proc_create)(struct uvfs *fs, uid_t uid, gid_t gid);
	void (*proc_destroy)(struct uvfs_proc *p);
	int (*proc_set_nofile)(struct uvfs_proc *p, unsigned long limit);
};

struct target {
	const char *name;        /* uvfs, uvfs-baseline, host, uvfs-fuse */
	enum target_kind kind;
	const char *lib;         /* path of the shared library (uvfs targets) */
	const char *dirbase;     /* host kind: where the directories are made
				    (host: --hostdir; uvfs-fuse: --fuse-dir, a
				    uvfs-fuse mount; NULL: not given) */
	void *dl;
	struct uvfs_api api;
	struct bench_ops ops;
	int loaded;              /* dlopen and every required symbol succeeded */
	char why[512];           /* why not loaded */
};

/* One target during one measurement, in the measurement's child process. */
struct env {
	struct target *t;
	int processes;           /* one proc (uvfs) or one host process per worker */
	/* uvfs */
	struct uvfs *fs;
	struct uvfs_proc *proc;  /* threads mode: the proc every worker shares */
	int dirfd;               /* threads mode (uvfs) and host: the directory */
	/* host */
	const char *hostdir;     /* created and removed by the parent */
};

int target_load(struct target *t);
unsigned target_has(const struct target *t);           /* BENCH_NEED_* available */
int env_open(struct env *e, struct target *t, int processes, const char *hostdir,
	     char *err, size_t errlen);
/* Fill c->ops, c->p and c->dirfd for worker c->nr; 0 or -errno. */
int env_worker_attach(struct env *e, struct ctx *c, char *err, size_t errlen);
void env_worker_detach(struct env *e, struct ctx *c);
void env_close(struct env *e);

/* ---- results (results.c, report.c) ---- */
enum status { ST_OK, ST_NA, ST_FAIL, ST_CRASH, ST_HANG, ST_SKIP };

struct result {
	const struct testcase *tc;
	const char *target;
	const char *mode;        /* threads, processes */
	int workers;
	enum status status;
	char msg[512];
	int nsamples;
	double samples[MAX_SAMPLES];      /* the table's rate (--rate) */
	double samples_alt[MAX_SAMPLES];  /* loop testcases: the other rate */
	double median, min, max, mean, stddev;
	unsigned long long ops_per_run;  /* jobs: operations in one run */
};

struct run_info {
	unsigned long long seed;
	char date[64];
	char host[256];
	char kernel[256];
	char cpu[128];
	int ncpus;
	double warmup, interval;
	int nsamples;
	const char *lib, *baseline_lib, *hostbase;
	const char *fuse_dir;    /* the uvfs-fuse target's directory, or NULL */
	int affinity;
	int rate_run;
	double load_start[1], load_end[1];  /* 1-minute load average */
	char targets[128], modes[64], workers[128];
};

void report_table(FILE *f, const struct run_info *ri, struct result *r, int n);
int report_json(const char *path, const struct run_info *ri, struct result *r, int n);
int report_svg(const char *dir, const struct run_info *ri, struct result *r, int n,
	       char files[][PATH_MAX], int maxfiles);
const char *status_name(enum status s);
void stats(struct result *r);
void results_header(struct run_info *ri, struct target **sel, int nsel);
int results_write(struct run_info *ri, struct result *res, int nres);

/* ---- options (options.c) ---- */
struct options {
	const char *lib, *baseline_lib, *out, *json, *hostbase;
	const char *fuse_dir;    /* target uvfs-fuse: a uvfs-fuse mount, or NULL */
	int fuse_modes;          /* the modes uvfs-fuse runs in (0: -m's) */
	int fuse_workers[MAX_WORKERS], nfuse_workers;  /* its worker counts (0: -t's) */
	double warmup, duration, interval;
	unsigned long long seed;
	int seed_given;
	int workers[MAX_WORKERS], nworkers;
	int modes;               /* 1 threads, 2 processes */
	char *tests;             /* comma list or NULL */
	char *targets;
	unsigned long long iterations;  /* fixed-iteration mode */
	int affinity;
	int groups[MAX_WORKERS], ngroups;
	int rate_run;            /* --rate run: ops/s over the time not taken by other work */
	int list;
};
extern struct options opt;

/* -1 to go on, else the exit status (after --help or a bad option) */
int options_parse(int argc, char **argv);
/* whether the comma list LIST (NULL: everything) holds NAME */
int in_list(const char *list, const char *name);

/* ---- testcases (testcases.c) ---- */
const struct testcase **testcases_all(int *n);
void testcases_list(const struct testcase **tcs, int ntc);
int testcases_select(const struct testcase **tcs, int *ntc, const char *list);

/* main.c: dlopen of a second library with initial-exec TLS can need a
 * larger static TLS surplus: re-executes with the tunable that gives it */
void reexec_for_tls(char **argv);

/* ---- the run loop (run.c) ---- */
extern int cpus[1024], ncpus;
extern volatile sig_atomic_t interrupted;
double now(void);
int run_init(void);
int run_fixed(const struct testcase *tc, struct target *t, int threads);
int run_all(const struct testcase **tcs, int ntc, struct target **sel, int nsel,
	    struct run_info *ri, struct result **resp);

#endif
