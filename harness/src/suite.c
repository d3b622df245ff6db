// SPDX-License-Identifier: GPL-2.0
/*
 * suite: the verdict of one test suite of one boot, from its console log.
 *
 *   suite [-b BASELINE_KTAP] SUITE BOOT LOG
 *   suite -k KUNIT_JSON [-x KUNIT_STATUS] kunit BOOT LOG
 *
 * Every guest suite speaks one format: its part of the console, between the
 * markers guest/init prints (BJK-SUITE-BEGIN NAME ... BJK-SUITE-END NAME
 * rc=R secs=S), is KTAP: a plan "1..N", one top-level "ok"/"not ok" line per
 * case ("# SKIP" marks a skipped one), and a kselftest totals line
 * "# Totals: pass:P fail:F xfail:0 xpass:0 skip:S error:0". The counts are
 * the case lines'; the plan and the totals must agree with them, so a case
 * line lost on the way (a full log buffer, a crashed guest) fails the suite.
 * Tools with formats of their own (test_bpf.ko, test_verifier, test_progs)
 * are turned into KTAP on the host, not in the guest: their guest scripts
 * (tests/<suite>/guest.sh) print the tool's own result lines as a raw
 * block (BJK-RAW-BEGIN SUITE ... BJK-RAW-END SUITE, guest/lib.sh's
 * bjk_raw), and harness/judge-boot.sh hands this program the console with
 * that block replaced by its KTAP (harness/convert.sh, the suite's
 * converter tests/<tool>/convert.awk). A console without a raw block (one
 * from before them) is read as it is: its guest script printed the KTAP.
 *
 * -b BASELINE_KTAP: the same suite's verdict in the baseline boot of the run
 * (as this program wrote it) must have the same cases with the same
 * results: the selftests with checks on against their checks-off boot
 * (tests/boots' baseline=).
 *
 * kunit: the cases are those of "kunit.py parse --json" (KUNIT_JSON), one
 * per KUnit test, named suite.test; a kunit.py exit status KUNIT_STATUS
 * other than 0 with no failed case fails a case of its own (kunit.py saw
 * an error no test carries). KUnit with no test at all ("1..0" on the
 * console) is a skip (the series is not applied), not a pass; no KUnit
 * output at all is a failure.
 *
 * A line "# SUITE: text" is the suite's note in the table.
 *
 * Prints the suite's verdict, a KTAP document (plan first) that ends with
 * its bjk-verdict line (common.h); exit 1 when the suite failed.
 */
#include <stdlib.h>
#include <unistd.h>
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

/* A case of the suite, counted. */
static void add_case(struct verdict *v, char res, const char *name, const char *rest)
{
	add_line(res, name, rest);
	bjk_count(res, &v->passed, &v->failed, &v->skipped);
}

/* A case the judge adds itself: its name starts with "judge.". */
static void judge_case(struct verdict *v, int ok, const char *name, const char *detail)
{
	char rest[600];

	snprintf(rest, sizeof(rest), " # %s", detail);
	add_case(v, ok ? 'o' : 'f', name, rest);
	if (!ok)
		add_note(v, detail);
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

/* ---- a guest suite's part of the console ---- */

static long plan = -1;
static long totals[3] = { -1, -1, -1 };	/* pass, fail, skip */
static int errored;

static void guest_line(struct verdict *v, const char *msg)
{
	char name[BJK_LINE_MAX], res;
	const char *rest;
	long a, b, c, d, e, f;

	if (bjk_ktap_result(msg, &res, name, sizeof(name), &rest)) {
		add_case(v, res, name, rest);
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
static void compare_baseline(struct verdict *v, const char *path)
{
	char line[BJK_LINE_MAX], name[BJK_LINE_MAX], buf[1024], base[128], res;
	const char *rest;
	int i, nbase = 0, diffs = 0, nmine = 0;
	size_t len = 0;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		snprintf(buf, sizeof(buf), "no %s verdict of the baseline boot in this run (%.900s)",
			 suite, path);
		judge_case(v, 0, "judge.same_as_baseline", buf);
		return;
	}
	/* The baseline's name, for the messages: its verdict line says it. */
	snprintf(base, sizeof(base), "%s", path);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, BJK_VERDICT "boot=", strlen(BJK_VERDICT "boot=")))
			sscanf(line + strlen(BJK_VERDICT "boot="), "%127s", base);
	rewind(f);
	buf[0] = '\0';
	/* Each baseline case must be ours with the same result... */
	while (fgets(line, sizeof(line), f)) {
		bjk_chomp(line);
		if (!bjk_ktap_result(line, &res, name, sizeof(name), &rest) ||
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

/*
 * kunit.py parse --json: a group is {"name": ..., "sub_groups": [group...],
 * "test_cases": [{"name": ..., "status": "PASS"|"SKIP"|"FAIL"|"ERROR"}...],
 * and fields of no interest here}; the outermost one is the run's. A small
 * reader of JSON: what it does not know it skips, a syntax error ends it.
 */
static const char *jp;
static int jbad;

static void j_ws(void)
{
	while (*jp == ' ' || *jp == '\t' || *jp == '\n' || *jp == '\r')
		jp++;
}

static int j_lit(char c)
{
	j_ws();
	if (*jp != c)
		return 0;
	jp++;
	return 1;
}

/* A string into @out (escapes other than \" and \\ kept as written). */
static void j_str(char *out, size_t size)
{
	size_t n = 0;

	if (!j_lit('"')) {
		jbad = 1;
		return;
	}
	while (*jp && *jp != '"') {
		char c = *jp++;

		if (c == '\\' && (*jp == '"' || *jp == '\\'))
			c = *jp++;
		if (out && n + 1 < size)
			out[n++] = c;
	}
	if (out)
		out[n] = '\0';
	if (!j_lit('"'))
		jbad = 1;
}

static void j_skip(void)
{
	j_ws();
	if (*jp == '"') {
		j_str(NULL, 0);
	} else if (*jp == '{' || *jp == '[') {
		char close = *jp == '{' ? '}' : ']';

		jp++;
		if (j_lit(close))
			return;
		do {
			if (close == '}') {
				j_str(NULL, 0);
				if (!j_lit(':'))
					jbad = 1;
			}
			j_skip();
		} while (!jbad && j_lit(','));
		if (!j_lit(close))
			jbad = 1;
	} else {
		while (*jp && !strchr(",]} \t\r\n", *jp))
			jp++;
	}
}

enum { KUNIT_CASE, KUNIT_GROUP, KUNIT_RUN };

static void kunit_object(struct verdict *v, const char *prefix, int kind);

/* An array of objects of @kind. */
static void kunit_array(struct verdict *v, const char *prefix, int kind)
{
	if (!j_lit('[')) {
		jbad = 1;
		return;
	}
	if (j_lit(']'))
		return;
	do
		kunit_object(v, prefix, kind);
	while (!jbad && j_lit(','));
	if (!j_lit(']'))
		jbad = 1;
}

/*
 * A group (its groups and test cases, named after it) or a test case (a
 * case of the suite). The outermost group is the run ("KUnit Test Group"):
 * its name is no suite's.
 */
static void kunit_object(struct verdict *v, const char *prefix, int kind)
{
	char key[64], name[512] = "", status[16] = "", sub[BJK_LINE_MAX];

	if (!j_lit('{')) {
		jbad = 1;
		return;
	}
	do {
		j_str(key, sizeof(key));
		if (!j_lit(':'))
			jbad = 1;
		snprintf(sub, sizeof(sub), "%s%s%s", prefix, kind == KUNIT_RUN ? "" : name,
			 kind == KUNIT_RUN || !name[0] ? "" : ".");
		if (!strcmp(key, "name"))
			j_str(name, sizeof(name));
		else if (!strcmp(key, "status"))
			j_str(status, sizeof(status));
		else if (!strcmp(key, "sub_groups"))
			kunit_array(v, sub, KUNIT_GROUP);
		else if (!strcmp(key, "test_cases"))
			kunit_array(v, sub, KUNIT_CASE);
		else
			j_skip();
	} while (!jbad && j_lit(','));
	if (!j_lit('}'))
		jbad = 1;
	if (kind == KUNIT_CASE && !jbad) {
		char res = !strcmp(status, "PASS") ? 'o' : !strcmp(status, "SKIP") ? 's' : 'f';

		/* kunit.py names a test it expected but never saw "". */
		snprintf(sub, sizeof(sub), "%s%s", prefix, name[0] ? name : "(missing)");
		add_case(v, res, sub, res == 's' ? " # SKIP" :
			 !strcmp(status, "ERROR") ? " # crashed" : "");
	}
}

/* Read the whole of @path, NUL-terminated; NULL when it cannot be read. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t n = 0, got;

	if (!f)
		return NULL;
	do {
		char *nb = realloc(buf, n + 65536);

		if (!nb) {
			perror("realloc");
			exit(2);
		}
		buf = nb;
		got = fread(buf + n, 1, 65535, f);
		n += got;
	} while (got);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void kunit(struct verdict *v, const char *json, int status)
{
	char line[BJK_LINE_MAX], buf[600];
	double t0 = -1, t1 = -1;
	char *text = slurp(json);
	FILE *f;

	if (text) {
		jp = text;
		kunit_object(v, "", KUNIT_RUN);
		free(text);
	}
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
	if (!text || jbad) {
		snprintf(buf, sizeof(buf), "kunit.py parse --json left no JSON to read (%.500s)", json);
		judge_case(v, 0, "judge.kunit_json", buf);
	} else if (!ncases && t0 < 0) {
		judge_case(v, 0, "kunit", "no KUnit output on the console (KUnit did not run)");
	} else if (!ncases) {
		/* KUnit ran with no suite: "KTAP version 1" and "1..0". */
		add_case(v, 's', "kunit", " # SKIP no KUnit test ran");
		add_note(v, "no KUnit test ran (series not applied, or CONFIG_BPF_JIT_KASAN_KUNIT_TEST off)");
	} else if (status && !v->failed) {
		snprintf(buf, sizeof(buf), "kunit.py parse: exit status %d, yet no test failed", status);
		judge_case(v, 0, "judge.kunit_status", buf);
	}
}

int main(int argc, char **argv)
{
	const char *baseline = NULL, *json = NULL;
	struct verdict v = { 0 };
	int opt, rc = 0, status = 0;

	while ((opt = getopt(argc, argv, "b:k:x:")) != -1) {
		if (opt == 'b')
			baseline = optarg;
		else if (opt == 'k')
			json = optarg;
		else if (opt == 'x')
			status = atoi(optarg);
		else
			goto usage;
	}
	if (argc - optind != 3 || (!strcmp(argv[optind], "kunit") != !!json))
		goto usage;
	suite = argv[optind];
	boot = argv[optind + 1];
	logpath = argv[optind + 2];
	if (json) {
		kunit(&v, json, status);
	} else {
		rc = guest_suite(&v);
		/* A suite that did not run or finish has no counts to check. */
		if (rc >= 0 && !errored)
			check_counts(&v);
		if (baseline && rc >= 0 && !errored)
			compare_baseline(&v, baseline);
		/* A suite that did not run or finish, or failed without saying which test. */
		if ((rc || errored) && !v.failed) {
			char rest[600];

			/* The reason is the note already. */
			snprintf(rest, sizeof(rest), " # %s", v.note[0] ? v.note : "guest script failed");
			add_case(&v, 'f', "judge.finished", rest);
		}
	}
	print_doc();
	bjk_verdict(stdout, boot, suite, v.secs, v.note);
	return v.failed ? 1 : 0;
usage:
	fprintf(stderr, "usage: %s [-b BASELINE_KTAP] SUITE BOOT LOG\n"
		"       %s -k KUNIT_JSON [-x KUNIT_STATUS] kunit BOOT LOG\n", argv[0], argv[0]);
	return 2;
}
