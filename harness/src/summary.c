// SPDX-License-Identifier: GPL-2.0
/*
 * summary: the one reader of a run's verdicts. From their KTAP files alone
 * (common.h: a plan, the case lines, the bjk-verdict line), in the order
 * given: the table of the run and its closing line; the run as one KTAP
 * document and as JSON.
 *
 *   summary [-k KTAP] [-j JSON] VERDICT...
 *
 * Each VERDICT file is a row: boot, suite, time and note from its
 * bjk-verdict line; passed, failed, skipped from its top-level case lines
 * (a "# SKIP" directive skips, "not ok" fails, "ok" passes). A file that
 * cannot be read, has no bjk-verdict line (its writer did not finish) or
 * whose plan disagrees with its case lines fails once more, with a case
 * judge.verdict in the run's KTAP. Prints
 *   boot | suite | passed | failed | skipped | time | note
 * then "N passed, N failed, N skipped". Exit status 1 when anything failed
 * or nothing ran at all.
 *
 * -k KTAP: run > boot > suite > case, for `kunit.py parse`. A boot is each
 * boot of the rows, in order; a suite each row, its cases its file's.
 * -j JSON: the same rows, by boot, with the totals and the closing line.
 */
#include <stdlib.h>
#include <libgen.h>
#include <unistd.h>
#include "common.h"

struct row {
	char boot[128], suite[128], note[BJK_LINE_MAX], why[512];
	long p, f, s, ncases;
	double secs;
	const char *path;
};

static struct row *rows;
static int nrows;

/* Whether row @i is the first of its boot: a boot is listed where it first appears. */
static int first_of_boot(int i)
{
	int j;

	for (j = 0; j < i; j++)
		if (!strcmp(rows[j].boot, rows[i].boot))
			return 0;
	return 1;
}

/* Whether @line is the top level of its document: a case of the row itself. */
static int top_level(const char *line)
{
	return line[0] != ' ' && line[0] != '\t';
}

/* Row @r from its verdict file @path. */
static void read_verdict(struct row *r, const char *path)
{
	char line[BJK_LINE_MAX], name[BJK_LINE_MAX], res, *copy;
	const char *rest, *tag = BJK_VERDICT "boot=";
	long plan = -1;
	int seen = 0;
	FILE *f = fopen(path, "r");

	memset(r, 0, sizeof(*r));
	r->path = path;
	/* Named by its file until its verdict line names it. */
	copy = strdup(path);
	snprintf(r->boot, sizeof(r->boot), "%s", copy ? basename(copy) : path);
	free(copy);
	snprintf(r->suite, sizeof(r->suite), "?");
	if (!f) {
		snprintf(r->why, sizeof(r->why), "cannot read %.400s", path);
		goto out;
	}
	while (fgets(line, sizeof(line), f)) {
		bjk_chomp(line);
		if (!top_level(line))
			continue;
		if (bjk_ktap_result(line, &res, name, sizeof(name), &rest)) {
			r->ncases++;
			bjk_count(res, &r->p, &r->f, &r->s);
		} else if (plan < 0 && sscanf(line, "1..%ld", &plan) == 1) {
			continue;
		} else if (!strncmp(line, tag, strlen(tag))) {
			r->note[0] = '\0';
			if (sscanf(line + strlen(tag), "%127s suite=%127s secs=%lf note=%4095[^\n]",
				   r->boot, r->suite, &r->secs, r->note) >= 3)
				seen = 1;
		}
	}
	fclose(f);
	if (!seen)
		snprintf(r->why, sizeof(r->why),
			 "no bjk-verdict line in %.400s: its writer did not finish", path);
	else if (plan < 0)
		snprintf(r->why, sizeof(r->why), "no plan (1..N)");
	else if (plan != r->ncases)
		snprintf(r->why, sizeof(r->why), "plan 1..%ld, %ld case lines", plan, r->ncases);
out:
	if (r->why[0]) {
		size_t n = strlen(r->note);

		r->f++;
		snprintf(r->note + n, sizeof(r->note) - n, "%s%s", n ? "; " : "", r->why);
	}
}

/*
 * A suite: its file's lines two levels in, under its own header and plan,
 * then its own result line one level in.
 */
static void ktap_suite(FILE *o, const struct row *r, int num)
{
	char line[BJK_LINE_MAX];
	long n = r->ncases + !!r->why[0], plan;
	int header = 0, planned = 0;
	FILE *f = fopen(r->path, "r");

	fprintf(o, "        KTAP version 1\n        # Subtest: %s\n        1..%ld\n", r->suite, n);
	while (f && fgets(line, sizeof(line), f)) {
		bjk_chomp(line);
		/* Its own header and plan are the ones above. */
		if (!header && !strncmp(line, "KTAP version ", 13)) {
			header = 1;
			continue;
		}
		if (!planned && top_level(line) && sscanf(line, "1..%ld", &plan) == 1) {
			planned = 1;
			continue;
		}
		fprintf(o, "        %s\n", line);
	}
	if (f)
		fclose(f);
	if (r->why[0])
		fprintf(o, "        not ok %ld judge.verdict # %s\n", n, r->why);
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
	char closing[128];
	long tp = 0, tf = 0, ts = 0;
	double tt = 0;
	int opt, i;

	while ((opt = getopt(argc, argv, "k:j:")) != -1) {
		if (opt == 'k') {
			ktap = optarg;
		} else if (opt == 'j') {
			json = optarg;
		} else {
			fprintf(stderr, "usage: %s [-k KTAP] [-j JSON] VERDICT...\n", argv[0]);
			return 2;
		}
	}
	nrows = argc - optind;
	rows = calloc(nrows + 1, sizeof(*rows));
	if (!rows) {
		perror("calloc");
		return 2;
	}
	for (i = 0; i < nrows; i++)
		read_verdict(&rows[i], argv[optind + i]);
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
		fprintf(stderr, "summary: no verdicts\n");
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
