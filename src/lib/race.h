/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Race points: named places right after a reference is dropped and before
 * the object may be read again, where a test build (meson -Drace_delay=true,
 * never the release library) stops so that a race test can make the other
 * side of the race happen there, every run, instead of one run in forty.
 *
 * In every other build RACE_POINT() is nothing at all.
 *
 * With the option, RACE_POINT(name) calls the hook a test installed with
 * race_set_hook (tests link the static library and see this header); with no
 * hook it does nothing.  The hook gets the point's name and may block, run
 * the racing operation on another thread and wait for it, or force a grace
 * period with race_force_grace_period(), which does it only where that is
 * legal (outside a read-side section) and says whether it did.
 */
#ifndef UVFS_LIB_RACE_H
#define UVFS_LIB_RACE_H
#include <stdbool.h>

typedef void (*race_hook_fn)(const char *point, void *arg);

#ifdef UVFS_RACE_DELAY
void race_point(const char *point);
#define RACE_POINT(point) race_point(point)
#else
#define RACE_POINT(point) do { } while (0)
#endif

/* Installs (or, with NULL, removes) the hook; defined only in race builds. */
void race_set_hook(race_hook_fn fn, void *arg);
/* Waits for a grace period and runs the pending callbacks, unless the
 * caller is inside a read-side section (returns false then). */
bool race_force_grace_period(void);
/* true in a library built with -Drace_delay=true */
bool race_points_enabled(void);

#endif
