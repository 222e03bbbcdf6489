/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * first.c is README.md's program and stays exactly that, so the test suite's
 * summary line cannot be printed by it: this wrapper runs it (compiled with
 * -Dmain=first_main) and counts its exit status as one check.
 */
#include <stdio.h>

int first_main(void);

int main(void)
{
	int ok = first_main() == 0;

	if (!ok)
		printf("FAIL first: the README's program failed\n");
	printf("%d passed, %d failed\n", ok, !ok);
	return !ok;
}
