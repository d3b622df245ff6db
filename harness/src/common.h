/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The harness's console readers: reading a console (lib/bjk-console.h,
 * shared with tests/bench/report.c), and the KTAP of their verdicts.
 *
 * Every verdict of a run (a boot, a suite of a boot, a splat scan, a
 * host-side test, a check across boots) is a KTAP file: "KTAP version 1",
 * a plan "1..N", one top-level "ok"/"not ok" line per case ("# SKIP" marks a
 * skipped one), diagnostics "# ...", and as its last line
 *
 *   # bjk-verdict boot=BOOT suite=SUITE secs=S note=TEXT
 *
 * which names the table's row and carries what the cases cannot: the time
 * and the note. A file without it was not finished. The counts are the case
 * lines'; summary.c is the one reader of these files.
 */
#ifndef BJK_COMMON_H
#define BJK_COMMON_H

#include <stdio.h>
#include <strings.h>
#include "bjk-console.h"

#define BJK_VERDICT "# bjk-verdict "

/* The line that ends a verdict's KTAP file (harness/lib.sh: verdict_end). */
static inline void bjk_verdict(FILE *f, const char *boot, const char *suite, double secs,
			       const char *note)
{
	fprintf(f, BJK_VERDICT "boot=%s suite=%s secs=%.1f note=%s\n", boot, suite, secs, note);
}

/*
 * One KTAP result line: "ok 12 name # SKIP why". Returns 1 and fills @res
 * ('o' ok, 's' skipped, 'f' not ok), @name (trimmed) and @rest (from " # "
 * on, or "") when it is one.
 */
static inline int bjk_ktap_result(const char *msg, char *res, char *name, size_t size,
				  const char **rest)
{
	const char *p = msg, *hash;
	size_t n;

	if (!strncmp(p, "ok ", 3)) {
		*res = 'o';
		p += 3;
	} else if (!strncmp(p, "not ok ", 7)) {
		*res = 'f';
		p += 7;
	} else {
		return 0;
	}
	if (*p < '0' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	while (*p == ' ')
		p++;
	if (!strncmp(p, "- ", 2))
		p += 2;
	hash = strstr(p, " # ");
	if (!hash && !strncmp(p, "# ", 2))
		hash = p - 1;
	n = hash ? (size_t)(hash - p) : strlen(p);
	while (n && p[n - 1] == ' ')
		n--;
	snprintf(name, size, "%.*s", (int)n, p);
	*rest = hash ? hash : "";
	if (hash && !strncasecmp(hash, " # SKIP", 7))
		*res = 's';
	return 1;
}

/* Count a case of result @res (as bjk_ktap_result() gives it). */
static inline void bjk_count(char res, long *passed, long *failed, long *skipped)
{
	if (res == 'o')
		(*passed)++;
	else if (res == 's')
		(*skipped)++;
	else
		(*failed)++;
}

#endif
