// SPDX-License-Identifier: GPL-2.0
/*
 * suite: the verdict of one test suite of one boot, from its console log.
 *
 *   suite [-b BASELINE] SUITE BOOT LOG RESULTS
 *   suite -k KUNIT_PARSE_OUTPUT kunit BOOT LOG RESULTS
 *
 * Every guest suite speaks one format: its part of the console, between the
 * markers guest/init prints (BJK-SUITE-BEGIN NAME ... BJK-SUITE-END NAME
 * rc=R secs=S), is KTAP: a plan "1..N", one top-level "ok"/"not ok" line per
 * case ("# SKIP" marks a skipped one), and a kselftest totals line
 * "# Totals: pass:P fail:F xfail:0 xpass:0 skip:S error:0". The counts are
 * the case lines'; the plan and the totals must agree with them, so a case
 * line lost on the way (a full log buffer, a crashed guest) fails the suite.
 * Tools with formats of their own (test_bpf.ko, test_verifier, test_progs)
 * are turned into KTAP by their guest scripts (tests/<suite>.sh).
 *
 * -b BASELINE: the same suite in boot BASELINE of the run (its KTAP as this
 * program wrote it, RUNDIR/ktap/BASELINE.SUITE.ktap; RUNDIR is where RESULTS
 * lies) must have the same cases with the same results: the selftests with
 * checks on against their checks-off boot (tests/boots' baseline column).
 *
 * kunit: the counts of "kunit.py parse" ("Testing complete. Ran N tests:
 * ..."); its KTAP is KUnit's own from the console. KUnit with no test at all
 * ("1..0") is a skip (the series is not applied), not a pass; no KUnit
 * output at all is a failure.
 *
 * A line "# SUITE: text" is the suite's note in the table.
 *
 * Prints the suite's KTAP document (plan first), appends a row to RESULTS;
 * exit 1 when the suite failed.
 */
#include <stdlib.h>
#include <unistd.h>
#include <libgen.h>
#include "common.h"

struct verdict {
	long passed, failed, skipped;
	double secs;
	char note[512];
};

static const char *suite, *boot, *logpath;

static void add_note(struct verdict *v, const char *s)
{
	size_t n = strlen(v->note);

	snprintf(v->note + n, sizeof(v->note) - n, "%s%s", n ? "; " : "", s);
}

/*
 * The document is printed at the end, plan first: it is kept here. A case
 * is its result ('o' ok, 's' skipped, 'f' not ok), its name and the rest of
 * its line (" # directive"); other lines are diagnostics ("# ...").
 */
struct line {
	char res;		/* 0: a diagnostic */
	char *name, *rest;
};

static struct line *lines;
static int nlines, ncases;

static void add_line(char res, const char *name, const char *rest)
{
	struct line *l;

	lines = realloc(lines, (nlines + 1) * sizeof(*lines));
	if (!lines) {
		perror("realloc");
		exit(2);
	}
	l = &lines[nlines++];
	l->res = res;
	l->name = strdup(name);
	l->rest = strdup(rest ? rest : "");
	if (!l->name || !l->rest) {
		perror("strdup");
		exit(2);
	}
	if (res)
		ncases++;
}

/* A case the judge adds itself: its name starts with "judge.". */
static void judge_case(struct verdict *v, int ok, const char *name, const char *detail)
{
	char rest[600];

	snprintf(rest, sizeof(rest), " # %s", detail);
	add_line(ok ? 'o' : 'f', name, rest);
	if (ok) {
		v->passed++;
	} else {
		v->failed++;
		add_note(v, detail);
	}
}

static void print_doc(void)
{
	int i, n = 0;

	printf("KTAP version 1\n# boot %s, suite %s\n1..%d\n", boot, suite, ncases);
	for (i = 0; i < nlines; i++) {
		struct line *l = &lines[i];

		if (l->res)
			printf("%s %d %s%s\n", l->res == 'f' ? "not ok" : "ok", ++n, l->name,
			       l->rest);
		else
			printf("%s\n", l->name);
	}
}

/*
 * One KTAP result line: "ok 12 name # SKIP why". Returns 1 and fills @res,
 * @name (trimmed) and @rest (from " # " on, or "") when it is one.
 */
static int parse_result(const char *msg, char *res, char *name, size_t size, const char **rest)
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

/* ---- a guest suite's part of the console ---- */

static long plan = -1;
static long totals[3] = { -1, -1, -1 };	/* pass, fail, skip */
static int errored;

static void guest_line(struct verdict *v, const char *msg)
{
	char name[BJK_LINE_MAX], res;
	const char *rest;
	long a, b, c, d, e, f;

	if (parse_result(msg, &res, name, sizeof(name), &rest)) {
		add_line(res, name, rest);
		if (res == 'o')
			v->passed++;
		else if (res == 's')
			v->skipped++;
		else
			v->failed++;
	} else if (sscanf(msg, "1..%ld", &a) == 1 && plan < 0) {
		plan = a;
	} else if (sscanf(msg, "# Totals: pass:%ld fail:%ld xfail:%ld xpass:%ld skip:%ld error:%ld",
			  &a, &b, &c, &d, &e, &f) == 6) {
		totals[0] = a + c;
		totals[1] = b + d + f;
		totals[2] = e;
	} else if (!strncmp(msg, "# ", 2)) {
		size_t n = strlen(suite);

		add_line(0, msg, NULL);
		/* "# SUITE: text" is the suite's word on itself: the table's note. */
		if (!strncmp(msg + 2, suite, n) && !strncmp(msg + 2 + n, ": ", 2))
			add_note(v, msg + 4 + n);
	}
}

/*
 * Read the suite's section of the console log. Returns the guest script's
 * exit status, -1 when the suite did not finish, -2 when it did not start.
 */
static int guest_suite(struct verdict *v)
{
	char line[BJK_LINE_MAX], begin[300], end[300], buf[600];
	int in = 0, found = 0, done = 0, rc = -1;
	FILE *f = fopen(logpath, "r");

	if (!f) {
		perror(logpath);
		exit(2);
	}
	snprintf(begin, sizeof(begin), "BJK-SUITE-BEGIN %s", suite);
	snprintf(end, sizeof(end), "BJK-SUITE-END %s ", suite);
	while (fgets(line, sizeof(line), f)) {
		char *msg, *m;

		bjk_chomp(line);
		msg = bjk_msg(line);
		if (!in) {
			m = strstr(msg, begin);
			if (m && (m[strlen(begin)] == '\0' || m[strlen(begin)] == ' '))
				in = found = 1;
			continue;
		}
		if ((m = strstr(msg, end))) {
			sscanf(m + strlen(end), "rc=%d secs=%lf", &rc, &v->secs);
			done = 1;
			break;
		}
		if ((m = strstr(msg, "BJK-ERROR: "))) {
			snprintf(buf, sizeof(buf), "# %s", m);
			add_line(0, buf, NULL);
			add_note(v, m + strlen("BJK-ERROR: "));
			errored = 1;
			continue;
		}
		guest_line(v, msg);
	}
	fclose(f);
	if (!found) {
		add_note(v, "did not run (no BJK-SUITE-BEGIN on the console)");
		return -2;
	}
	if (!done) {
		add_note(v, "did not finish (no BJK-SUITE-END: guest crashed or hung?)");
		return -1;
	}
	if (rc != 0) {
		snprintf(buf, sizeof(buf), "guest script exit status %d", rc);
		add_note(v, buf);
	}
	return rc;
}

/* The plan and the totals must count what the lines count. */
static void check_counts(struct verdict *v)
{
	long n = v->passed + v->failed + v->skipped;
	char buf[300];

	if (plan < 0) {
		judge_case(v, 0, "judge.plan", "no plan line (1..N)");
	} else if (plan != n) {
		snprintf(buf, sizeof(buf), "plan 1..%ld, %ld case lines", plan, n);
		judge_case(v, 0, "judge.plan", buf);
	}
	if (totals[0] < 0) {
		judge_case(v, 0, "judge.totals", "no '# Totals:' line");
	} else if (totals[0] != v->passed || totals[1] != v->failed || totals[2] != v->skipped) {
		snprintf(buf, sizeof(buf),
			 "# Totals says pass:%ld fail:%ld skip:%ld, the case lines %ld, %ld, %ld",
			 totals[0], totals[1], totals[2], v->passed, v->failed, v->skipped);
		judge_case(v, 0, "judge.totals", buf);
	}
}

/* ---- the baseline ---- */

/*
 * The cases of the baseline boot's KTAP for this suite, less the judge's,
 * against ours: the same names with the same results. Adds a failing case
 * when they differ (naming the first differences), a diagnostic when not.
 */
static void compare_baseline(struct verdict *v, const char *results, const char *base)
{
	char path[4096], line[BJK_LINE_MAX], name[BJK_LINE_MAX], buf[1024], res, *dir, *copy;
	const char *rest;
	int i, nbase = 0, diffs = 0, nmine = 0;
	size_t len = 0;
	FILE *f;

	copy = strdup(results);
	dir = dirname(copy);
	snprintf(path, sizeof(path), "%s/ktap/%s.%s.ktap", dir, base, suite);
	free(copy);
	f = fopen(path, "r");
	if (!f) {
		snprintf(buf, sizeof(buf), "no %s KTAP of baseline boot %s in this run (%.900s)",
			 suite, base, path);
		judge_case(v, 0, "judge.same_as_baseline", buf);
		return;
	}
	buf[0] = '\0';
	/* Each baseline case must be ours with the same result... */
	while (fgets(line, sizeof(line), f)) {
		bjk_chomp(line);
		if (!parse_result(line, &res, name, sizeof(name), &rest) ||
		    !strncmp(name, "judge.", 6))
			continue;
		nbase++;
		for (i = 0; i < nlines; i++)
			if (lines[i].res && !strcmp(lines[i].name, name))
				break;
		if (i < nlines && lines[i].res == res)
			continue;
		if (diffs++ < 3) {
			len = strlen(buf);
			snprintf(buf + len, sizeof(buf) - len, "%s'%.80s' %s in %s, %s here", len ? "; " : "",
				 name, res == 'o' ? "ok" : res == 's' ? "skipped" : "failed", base,
				 i == nlines ? "absent" :
				 lines[i].res == 'o' ? "ok" : lines[i].res == 's' ? "skipped" : "failed");
		}
	}
	fclose(f);
	/* ...and no case of ours missing there. */
	for (i = 0; i < nlines; i++)
		if (lines[i].res && strncmp(lines[i].name, "judge.", 6))
			nmine++;
	if (nmine != nbase && !diffs) {
		diffs++;
		snprintf(buf, sizeof(buf), "%d cases here, %d in %s", nmine, nbase, base);
	}
	if (diffs) {
		char detail[1200];

		snprintf(detail, sizeof(detail), "differs from %s in %d case(s): %s", base, diffs, buf);
		judge_case(v, 0, "judge.same_as_baseline", detail);
	} else {
		snprintf(buf, sizeof(buf), "# same as %s: %d cases, the same results", base, nbase);
		add_line(0, buf, NULL);
		add_note(v, buf + 2);
	}
}

/* ---- KUnit ---- */

/* KUnit's KTAP from the console: the lines from "KTAP version" to /init. */
static void kunit_doc(void)
{
	char line[BJK_LINE_MAX];
	int in = 0;
	FILE *f = fopen(logpath, "r");

	while (f && fgets(line, sizeof(line), f)) {
		char *msg = line, *p;

		bjk_chomp(line);
		if (strstr(line, "BJK-INIT-START"))
			break;
		/* After the printk time and the one blank that follows it. */
		if (line[0] == '[' && (p = strstr(line, "] ")))
			msg = p + 2;
		if (!in && strncmp(msg, "KTAP version ", 13))
			continue;
		in = 1;
		for (p = msg; *p == ' '; p++)
			;
		if (!strncmp(p, "KTAP version ", 13) || !strncmp(p, "1..", 3) ||
		    !strncmp(p, "ok ", 3) || !strncmp(p, "not ok ", 7) || !strncmp(p, "# ", 2))
			printf("%s\n", msg);
	}
	if (f)
		fclose(f);
}

/* kunit.py parse output: "Testing complete. Ran N tests: passed: a, ..." */
static void kunit(struct verdict *v, const char *parsed)
{
	char line[BJK_LINE_MAX];
	double t0 = -1, t1 = -1;
	long total = -1;
	int no_ktap = 0;
	FILE *f = fopen(parsed, "r");

	if (!f) {
		perror(parsed);
		exit(2);
	}
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "Testing complete. Ran "), *q;
		long n;

		if (strstr(line, "Could not find any KTAP output"))
			no_ktap = 1;
		if (!p)
			continue;
		total = strtol(p + strlen("Testing complete. Ran "), &q, 10);
		q = strstr(q, ": ");
		while (q && *q) {
			char key[32];

			if (sscanf(q, "%*[:, ]%31[a-z]: %ld", key, &n) != 2)
				break;
			if (!strcmp(key, "passed"))
				v->passed = n;
			else if (!strcmp(key, "skipped"))
				v->skipped = n;
			else if (total > 0)
				v->failed += n; /* failed, crashed, errors */
			q = strstr(q + 2, ", ");
		}
	}
	fclose(f);
	/* Time: from the first KTAP header to the start of /init. */
	f = fopen(logpath, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (t0 < 0 && strstr(line, "KTAP version 1"))
			t0 = bjk_time(line);
		if (strstr(line, "BJK-INIT-START")) {
			t1 = bjk_time(line);
			break;
		}
	}
	if (f)
		fclose(f);
	if (t0 >= 0 && t1 >= t0)
		v->secs = t1 - t0;
	if (no_ktap) {
		add_note(v, "no KUnit output on the console (KUnit did not run)");
		v->failed++;
		printf("KTAP version 1\n1..1\nnot ok 1 kunit # no KUnit output\n");
	} else if (total == 0) {
		/* KUnit ran with no suite: "KTAP version 1" and "1..0". */
		v->skipped = 1;
		add_note(v, "no KUnit test ran (series not applied, or CONFIG_BPF_JIT_KASAN_KUNIT_TEST off)");
		printf("KTAP version 1\n1..1\nok 1 kunit # SKIP no KUnit test ran\n");
	} else if (total < 0) {
		add_note(v, "kunit.py parse printed no summary");
		v->failed++;
		printf("KTAP version 1\n1..1\nnot ok 1 kunit # kunit.py parse printed no summary\n");
	} else {
		kunit_doc();
	}
}

int main(int argc, char **argv)
{
	const char *baseline = NULL, *parsed = NULL;
	struct verdict v = { 0 };
	int opt, rc = 0;

	while ((opt = getopt(argc, argv, "b:k:")) != -1) {
		if (opt == 'b')
			baseline = optarg;
		else if (opt == 'k')
			parsed = optarg;
		else
			goto usage;
	}
	if (argc - optind != 4 || (!strcmp(argv[optind], "kunit") != !!parsed))
		goto usage;
	suite = argv[optind];
	boot = argv[optind + 1];
	logpath = argv[optind + 2];
	if (parsed) {
		kunit(&v, parsed);
	} else {
		rc = guest_suite(&v);
		/* A suite that did not run or finish has no counts to check. */
		if (rc >= 0 && !errored)
			check_counts(&v);
		if (baseline && rc >= 0 && !errored)
			compare_baseline(&v, argv[optind + 3], baseline);
		/* A suite that did not run or finish, or failed without saying which test. */
		if ((rc || errored) && !v.failed) {
			char rest[600];

			/* The reason is the note already. */
			snprintf(rest, sizeof(rest), " # %s", v.note[0] ? v.note : "guest script failed");
			add_line('f', "judge.finished", rest);
			v.failed++;
		}
		print_doc();
	}
	if (v.note[0])
		printf("# %s: %s\n", suite, v.note);
	if (bjk_result(argv[optind + 3], boot, suite, v.passed, v.failed, v.skipped, v.secs,
		       v.note))
		return 2;
	return v.failed ? 1 : 0;
usage:
	fprintf(stderr, "usage: %s [-b BASELINE] SUITE BOOT LOG RESULTS\n"
		"       %s -k KUNIT_PARSE_OUTPUT kunit BOOT LOG RESULTS\n", argv[0], argv[0]);
	return 2;
}
