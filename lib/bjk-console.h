/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a console log on the host, a line at a time: the harness's
 * console readers (harness/src/) and the benchmark's report (tests/bench/report.c).
 * A line's message (bjk_msg()) and the KASAN reports in it are read as the
 * guest's programs read them (bjk-report.h).
 *
 * Header only: each user is a single C file, built with -I lib.
 */
#ifndef BJK_CONSOLE_H
#define BJK_CONSOLE_H

#include <stdio.h>
#include <string.h>
#include "bjk-report.h"

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

#endif
