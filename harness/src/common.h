/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the harness's console-log readers; a console line's
 * message (bjk_msg()) and the KASAN reports in it are read as the guest's
 * programs read them (lib/bjk-report.h).
 */
#ifndef BJK_COMMON_H
#define BJK_COMMON_H

#include <stdio.h>
#include <string.h>
/* by its path: bench/report.c is built with -I harness/src alone */
#include "../../lib/bjk-report.h"

#define BJK_LINE_MAX 4096

/* Drop the line end (\n, and the \r a serial console adds). */
static inline void bjk_chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

/* The printk time of a console line in seconds, or -1 without one. */
static inline double bjk_time(const char *s)
{
	double t;

	if (s[0] == '[' && sscanf(s + 1, "%lf]", &t) == 1)
		return t;
	return -1;
}

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
