/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clock.h - the stress tests' clock: seconds since an arbitrary start, and
 * a sleep of milliseconds (the waits that let another thread get blocked). */
#ifndef UVFS_TESTS_CLOCK_H
#define UVFS_TESTS_CLOCK_H
#include <time.h>

static inline double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}
#endif
