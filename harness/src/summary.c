// SPDX-License-Identifier: GPL-2.0
/*
 * summary: the table of a test run and its closing line; the run as one
 * KTAP document and as JSON.
 *
 *   summary [-k KTAP] [-j JSON] RESULTS
 *
 * RESULTS has one tab-separated row per suite and boot (see common.h):
 * boot, suite, passed, failed, skipped, seconds, note. Prints
 *   boot | suite | passed | failed | skipped | time | note
 * then "N passed, N failed, N skipped". Exit status 1 when anything failed
 * or nothing ran at all.
 *
 * -k KTAP: the run > boot > suite > case, for `kunit.py parse`. A boot is
 * each first column of RESULTS, in order; a suite each row, its cases the
 * KTAP document the judge kept for it (RUNDIR/ktap/BOOT.SUITE.ktap or
 * RUNDIR/host/BOOT.SUITE.ktap, RUNDIR where RESULTS lies); a row without
 * one (a boot's own row, a check across boots) is one case per count.
 * -j JSON: the same rows, by boot, with the totals and the closing line.
 */
#include <stdlib.h>
#include <libgen.h>
#include <unistd.h>
#include "common.h"

struct row {
	char boot[128], suite[128], note[BJK_LINE_MAX];
	long p, f, s;
	double secs;
};

static struct row *rows;
static int nrows;
static char dir[4096];

/* Whether row @i is the first of its boot: a boot is listed where it first appears. */
static int first_of_boot(int i)
{
	int j;

	for (j = 0; j < i; j++)
		if (!strcmp(rows[j].boot, rows[i].boot))
			return 0;
	return 1;
}

/* A suite: its cases two levels in, then its own result line one level in. */
static void ktap_suite(FILE *o, const struct row *r, int num)
{
	const char *where[] = { "ktap", "host" };
	char path[4400], line[BJK_LINE_MAX];
	FILE *f = NULL;
	size_t i;

	for (i = 0; i < 2 && !f; i++) {
		snprintf(path, sizeof(path), "%s/%s/%s.%s.ktap", dir, where[i], r->boot, r->suite);
		f = fopen(path, "r");
	}
	if (f) {
		int named = 0;

		while (fgets(line, sizeof(line), f)) {
			bjk_chomp(line);
			fprintf(o, "        %s\n", line);
			if (!named && strstr(line, "KTAP version ")) {
				fprintf(o, "        # Subtest: %s\n", r->suite);
				named = 1;
			}
		}
		fclose(f);
	} else {
		long k, n = 0, total = r->p + r->f + r->s;

		fprintf(o, "        KTAP version 1\n        # Subtest: %s\n        1..%ld\n",
			r->suite, total);
		for (k = 0; k < total; k++) {
			char name[300];

			/* Not the suite's own name: kunit.py would take it for the suite's result. */
			if (total == 1)
				snprintf(name, sizeof(name), "%s.%s", r->boot, r->suite);
			else
				snprintf(name, sizeof(name), "%s.%s.%ld", r->boot, r->suite, k + 1);
			fprintf(o, "        %s %ld %s%s\n", k < r->p + r->s ? "ok" : "not ok", ++n,
				name, k >= r->p && k < r->p + r->s ? " # SKIP" : "");
		}
		if (r->note[0])
			fprintf(o, "        # %s\n", r->note);
	}
	fprintf(o, "    %s %d %s%s\n", r->f ? "not ok" : "ok", num, r->suite,
		!r->p && !r->f && r->s ? " # SKIP" : "");
}

static void write_ktap(const char *path)
{
	FILE *o = fopen(path, "w");
	int i, j, nboots = 0, b = 0;

	if (!o) {
		perror(path);
		exit(2);
	}
	for (i = 0; i < nrows; i++)
		nboots += first_of_boot(i);
	fprintf(o, "KTAP version 1\n# bpf-jit-kasan: one run of make test\n1..%d\n", nboots);
	for (i = 0; i < nrows; i++) {
		int n = 0, failed = 0;

		if (!first_of_boot(i))
			continue;
		for (j = i; j < nrows; j++)
			n += !strcmp(rows[j].boot, rows[i].boot);
		fprintf(o, "    KTAP version 1\n    # Subtest: %s\n    1..%d\n", rows[i].boot, n);
		n = 0;
		for (j = i; j < nrows; j++) {
			if (strcmp(rows[j].boot, rows[i].boot))
				continue;
			ktap_suite(o, &rows[j], ++n);
			failed |= rows[j].f != 0;
		}
		fprintf(o, "%s %d %s\n", failed ? "not ok" : "ok", ++b, rows[i].boot);
	}
	if (fclose(o)) {
		perror(path);
		exit(2);
	}
}

static void json_str(FILE *o, const char *s)
{
	fputc('"', o);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(o, "\\%c", c);
		else if (c < 0x20)
			fprintf(o, "\\u%04x", c);
		else
			fputc(c, o);
	}
	fputc('"', o);
}

static void write_json(const char *path, long tp, long tf, long ts, const char *closing)
{
	FILE *o = fopen(path, "w");
	int i, j, first = 1;

	if (!o) {
		perror(path);
		exit(2);
	}
	fprintf(o, "{\n  \"passed\": %ld, \"failed\": %ld, \"skipped\": %ld,\n  \"closing\": ",
		tp, tf, ts);
	json_str(o, closing);
	fprintf(o, ",\n  \"boots\": [");
	for (i = 0; i < nrows; i++) {
		long p = 0, f = 0, s = 0;
		int k = 0;

		if (!first_of_boot(i))
			continue;
		for (j = i; j < nrows; j++) {
			if (strcmp(rows[j].boot, rows[i].boot))
				continue;
			p += rows[j].p;
			f += rows[j].f;
			s += rows[j].s;
		}
		fprintf(o, "%s\n    {\"name\": ", first ? "" : ",");
		first = 0;
		json_str(o, rows[i].boot);
		fprintf(o, ", \"passed\": %ld, \"failed\": %ld, \"skipped\": %ld, \"suites\": [",
			p, f, s);
		for (j = i; j < nrows; j++) {
			const struct row *r = &rows[j];

			if (strcmp(r->boot, rows[i].boot))
				continue;
			fprintf(o, "%s\n      {\"name\": ", k++ ? "," : "");
			json_str(o, r->suite);
			fprintf(o, ", \"passed\": %ld, \"failed\": %ld, \"skipped\": %ld, "
				"\"seconds\": %.1f, \"note\": ", r->p, r->f, r->s, r->secs);
			json_str(o, r->note);
			fputc('}', o);
		}
		fprintf(o, "\n    ]}");
	}
	fprintf(o, "\n  ]\n}\n");
	if (fclose(o)) {
		perror(path);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	const char *ktap = NULL, *json = NULL;
	char line[BJK_LINE_MAX], closing[128], *copy;
	long tp = 0, tf = 0, ts = 0;
	double tt = 0;
	int opt, i;
	FILE *f;

	while ((opt = getopt(argc, argv, "k:j:")) != -1) {
		if (opt == 'k')
			ktap = optarg;
		else if (opt == 'j')
			json = optarg;
		else
			optind = argc + 1;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: %s [-k KTAP] [-j JSON] RESULTS\n", argv[0]);
		return 2;
	}
	f = fopen(argv[optind], "r");
	if (!f) {
		perror(argv[optind]);
		return 2;
	}
	copy = strdup(argv[optind]);
	snprintf(dir, sizeof(dir), "%s", dirname(copy));
	free(copy);
	while (fgets(line, sizeof(line), f)) {
		struct row *r;

		rows = realloc(rows, (nrows + 1) * sizeof(*rows));
		if (!rows) {
			perror("realloc");
			return 2;
		}
		r = &rows[nrows++];
		memset(r, 0, sizeof(*r));
		bjk_chomp(line);
		if (sscanf(line, "%127[^\t]\t%127[^\t]\t%ld\t%ld\t%ld\t%lf\t%4095[^\n]", r->boot,
			   r->suite, &r->p, &r->f, &r->s, &r->secs, r->note) < 6) {
			fprintf(stderr, "summary: bad row in %s: %s\n", argv[optind], line);
			memset(r, 0, sizeof(*r));
			r->f = 1;
			snprintf(r->boot, sizeof(r->boot), "?");
			snprintf(r->suite, sizeof(r->suite), "?");
			snprintf(r->note, sizeof(r->note), "a bad row in the results");
		}
	}
	fclose(f);
	printf("%-21s %-12s %7s %7s %8s %8s  %s\n", "boot", "suite", "passed", "failed",
	       "skipped", "time", "note");
	printf("%-21s %-12s %7s %7s %8s %8s  %s\n", "---------------------", "------------",
	       "-------", "-------", "--------", "--------", "----");
	for (i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];

		printf("%-21s %-12s %7ld %7ld %8ld %7.1fs  %s\n", r->boot, r->suite, r->p, r->f,
		       r->s, r->secs, r->note);
		tp += r->p;
		tf += r->f;
		ts += r->s;
		if (!strcmp(r->suite, "boot"))
			tt += r->secs; /* the suites' times are part of their boot's */
	}
	printf("%-21s %-12s %7ld %7ld %8ld %7.1fs\n", "total", "", tp, tf, ts, tt);
	if (!nrows) {
		fprintf(stderr, "summary: no results in %s\n", argv[optind]);
		tf++;
	}
	snprintf(closing, sizeof(closing), "%ld passed, %ld failed, %ld skipped", tp, tf, ts);
	if (ktap)
		write_ktap(ktap);
	if (json)
		write_json(json, tp, tf, ts, closing);
	printf("%s\n", closing);
	return tf ? 1 : 0;
}
