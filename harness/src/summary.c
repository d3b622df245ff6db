// SPDX-License-Identifier: GPL-2.0
/*
 * summary: the table of a test run and its closing line.
 *
 *   summary RESULTS
 *
 * RESULTS has one tab-separated row per suite and boot (see common.h):
 * boot, suite, passed, failed, skipped, seconds, note. Prints
 *   boot | suite | passed | failed | skipped | time | note
 * then "N passed, N failed, N skipped". Exit status 1 when anything failed
 * or nothing ran at all.
 */
#include <stdlib.h>
#include "common.h"

int main(int argc, char **argv)
{
	char line[BJK_LINE_MAX];
	long tp = 0, tf = 0, ts = 0, rows = 0;
	double tt = 0;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: %s RESULTS\n", argv[0]);
		return 2;
	}
	f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	printf("%-21s %-12s %7s %7s %8s %8s  %s\n", "boot", "suite", "passed", "failed",
	       "skipped", "time", "note");
	printf("%-21s %-12s %7s %7s %8s %8s  %s\n", "---------------------", "------------",
	       "-------", "-------", "--------", "--------", "----");
	while (fgets(line, sizeof(line), f)) {
		char boot[128], suite[128], note[BJK_LINE_MAX] = "";
		long p, fl, s;
		double secs;

		bjk_chomp(line);
		if (sscanf(line, "%127[^\t]\t%127[^\t]\t%ld\t%ld\t%ld\t%lf\t%4095[^\n]", boot, suite,
			   &p, &fl, &s, &secs, note) < 6) {
			fprintf(stderr, "summary: bad row in %s: %s\n", argv[1], line);
			fl = 1;
			p = s = 0;
			secs = 0;
			snprintf(boot, sizeof(boot), "?");
			snprintf(suite, sizeof(suite), "?");
		}
		printf("%-21s %-12s %7ld %7ld %8ld %7.1fs  %s\n", boot, suite, p, fl, s, secs,
		       note);
		tp += p;
		tf += fl;
		ts += s;
		if (!strcmp(suite, "boot"))
			tt += secs; /* the suites' times are part of their boot's */
		rows++;
	}
	fclose(f);
	printf("%-21s %-12s %7ld %7ld %8ld %7.1fs\n", "total", "", tp, tf, ts, tt);
	if (!rows) {
		fprintf(stderr, "summary: no results in %s\n", argv[1]);
		tf++;
	}
	printf("%ld passed, %ld failed, %ld skipped\n", tp, tf, ts);
	return tf ? 1 : 0;
}
