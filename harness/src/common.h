/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The harness's console-log readers: reading a console (lib/bjk-console.h,
 * shared with bench/report.c) and writing their verdicts' result rows.
 */
#ifndef BJK_COMMON_H
#define BJK_COMMON_H

#include <stdio.h>
#include "bjk-console.h"

/* Append one result row: boot, suite, passed, failed, skipped, seconds, note. */
static inline int bjk_result(const char *path, const char *boot, const char *suite,
			     long passed, long failed, long skipped, double secs,
			     const char *note)
{
	FILE *f = fopen(path, "a");

	if (!f) {
		perror(path);
		return -1;
	}
	fprintf(f, "%s\t%s\t%ld\t%ld\t%ld\t%.1f\t%s\n", boot, suite, passed, failed,
		skipped, secs, note);
	return fclose(f);
}

#endif
