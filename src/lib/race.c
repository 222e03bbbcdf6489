// SPDX-License-Identifier: LGPL-2.1-or-later
/* race.c - the hook behind RACE_POINT (see race.h).  Built into every
 * library so tests link either way; race_point itself exists only with
 * -Drace_delay=true. */
#include "race.h"
#include <urcu/urcu-memb.h>
#include <stddef.h>

static race_hook_fn hook;
static void *hook_arg;

void race_set_hook(race_hook_fn fn, void *arg)
{
	__atomic_store_n(&hook_arg, arg, __ATOMIC_RELAXED);
	__atomic_store_n(&hook, fn, __ATOMIC_RELEASE);
}

bool race_force_grace_period(void)
{
	if (urcu_memb_read_ongoing())
		return false;
	urcu_memb_synchronize_rcu();
	urcu_memb_barrier(); /* the callbacks queued before it have run */
	return true;
}

bool race_points_enabled(void)
{
#ifdef UVFS_RACE_DELAY
	return true;
#else
	return false;
#endif
}

#ifdef UVFS_RACE_DELAY
void race_point(const char *point)
{
	race_hook_fn fn = __atomic_load_n(&hook, __ATOMIC_ACQUIRE);
	if (fn)
		fn(point, __atomic_load_n(&hook_arg, __ATOMIC_RELAXED));
}
#endif
