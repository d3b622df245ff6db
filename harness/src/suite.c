// SPDX-License-Identifier: GPL-2.0
/*
 * suite: the verdict of one test suite of one boot, from its console log.
 *
 *   suite test_bpf BOOT LOG RESULTS
 *   suite kunit    BOOT LOG RESULTS KUNIT_PARSE_OUTPUT
 *   suite NAME     BOOT LOG RESULTS     (any other guest suite: KTAP lines)
 *
 * A guest suite's output lies between the markers guest/init prints:
 *   BJK-SUITE-BEGIN NAME  ...  BJK-SUITE-END NAME rc=R secs=S
 * test_bpf: lib/test_bpf.c prints three "Summary:" lines (test_bpf,
 * test_tail_calls, test_skb_segment); each needs 0 FAILED, and every eBPF
 * test JITed ([N/N JIT'ed]); a test that ran without the JIT counts as failed.
 * kunit: the counts of "kunit.py parse" ("Testing complete. Ran N tests: ...");
 * KUnit with no test at all ("1..0") is a skip (the series is not applied),
 * not a pass; no KUnit output at all is a failure.
 * test_verifier, test_verifier_harden (the same with bpf_jit_harden=2),
 * test_progs (the BPF selftests, tests/selftests/): the counts come from the
 * tool's own closing line, which the guest script prints as
 * "<suite>: Summary: ..."; its KTAP lines (failed and skipped cases, by name)
 * are shown, not counted. test_verifier must skip nothing (its harden run may:
 * see selftest_verdict()); none may fail.
 * With checks on, the Summary must equal that of the same suite in the boot's
 * "-off" twin of the same run (NAME-inline: NAME-off; its row in RESULTS),
 * when that boot ran.
 * Other suites: top-level "ok"/"not ok" KTAP lines, "# SKIP" counts skipped.
 * Prints KTAP, appends a row to RESULTS; exit 1 when the suite failed.
 */
#include <stdlib.h>
#include "common.h"

struct verdict {
	long passed, failed, skipped;
	double secs;
	char note[512];
};

static const char *suite, *boot, *logpath;
static int ntests, errored;

static void ktap(int ok, const char *name, const char *fmt, const char *detail)
{
	printf("%s %d %s", ok ? "ok" : "not ok", ++ntests, name);
	if (detail && *detail)
		printf(fmt, detail);
	printf("\n");
}

static void add_note(struct verdict *v, const char *s)
{
	size_t n = strlen(v->note);

	snprintf(v->note + n, sizeof(v->note) - n, "%s%s", n ? "; " : "", s);
}

/* test_bpf: the three Summary lines. */
struct part {
	const char *name;
	int seen;
	long pass, fail, jit, run;
};

static struct part parts[] = {
	{ .name = "test_bpf" }, { .name = "test_tail_calls" }, { .name = "test_skb_segment" },
};

static void test_bpf_line(const char *msg)
{
	const char *p = strstr(msg, "test_bpf: "), *sum;
	struct part *pt = NULL;
	size_t i;

	if (!p || !(sum = strstr(p, "Summary: ")))
		return;
	p += strlen("test_bpf: ");
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		size_t n = strlen(parts[i].name);

		if (p == sum ? i == 0 : (!strncmp(p, parts[i].name, n) && p[n] == ':'))
			pt = &parts[i];
	}
	if (!pt)
		return;
	pt->jit = pt->run = -1;
	if (sscanf(sum, "Summary: %ld PASSED, %ld FAILED, [%ld/%ld JIT'ed]",
		   &pt->pass, &pt->fail, &pt->jit, &pt->run) >= 2)
		pt->seen = 1;
}

static void test_bpf_verdict(struct verdict *v)
{
	char detail[256], buf[300];
	size_t i;

	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		struct part *pt = &parts[i];
		long nojit = 0;

		if (!pt->seen) {
			ktap(0, pt->name, " # %s", "no Summary line");
			snprintf(buf, sizeof(buf), "%s printed no Summary", pt->name);
			add_note(v, buf);
			v->failed++;
			continue;
		}
		if (pt->run >= 0) {
			nojit = pt->run - pt->jit;
			snprintf(detail, sizeof(detail), "%ld PASSED, %ld FAILED, %ld/%ld JIT'ed",
				 pt->pass, pt->fail, pt->jit, pt->run);
		} else {
			snprintf(detail, sizeof(detail), "%ld PASSED, %ld FAILED", pt->pass, pt->fail);
		}
		ktap(!pt->fail && !nojit, pt->name, " # %s", detail);
		if (nojit) {
			snprintf(buf, sizeof(buf), "%s: %ld eBPF test(s) not JITed", pt->name, nojit);
			add_note(v, buf);
		}
		v->passed += pt->pass - nojit;
		v->failed += pt->fail + nojit;
	}
}

/* The selftests: the Summary line, and the reference boot's. */
static char summary[256];

static int test_verifier_suite(void)
{
	return !strcmp(suite, "test_verifier") || !strcmp(suite, "test_verifier_harden");
}

static int selftest_suite(void)
{
	return test_verifier_suite() || !strcmp(suite, "test_progs");
}

static void selftest_line(const char *msg)
{
	char prefix[300];
	size_t n;

	n = snprintf(prefix, sizeof(prefix), "%s: Summary: ", suite);
	if (!strncmp(msg, prefix, n))
		snprintf(summary, sizeof(summary), "%s", msg + strlen(suite) + 2);
}

/*
 * The note of RESULTS' row for this suite from this boot's "-off" twin: the
 * boot named like this one up to its last '-', then "-off" (peers-inline and
 * peers-outline: peers-off; progs-verifier-inline: progs-verifier-off). The
 * selftest verdict below puts the Summary in the note.
 */
static int off_boot_name(const char *b)
{
	size_t n = strlen(b);

	return n >= 4 && !strcmp(b + n - 4, "-off");
}

static int off_twin(const char *b, char *twin, size_t size)
{
	const char *dash = strrchr(b, '-');

	if (!dash || (size_t)(dash - b) + sizeof("-off") > size)
		return 0;
	snprintf(twin, size, "%.*s-off", (int)(dash - b), b);
	return 1;
}

static int off_summary(const char *results, const char *twin, char *off_note)
{
	char line[BJK_LINE_MAX], b[128], s[128], note[BJK_LINE_MAX];
	FILE *f = fopen(results, "r");
	int found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		note[0] = '\0';
		if (sscanf(line, "%127[^\t]\t%127[^\t]\t%*d\t%*d\t%*d\t%*f\t%4095[^\n]",
			   b, s, note) < 2 || strcmp(s, suite) || strcmp(b, twin))
			continue;
		/* The last such row that has a Summary (a rerun may have hung). */
		if (!strstr(note, "Summary: "))
			continue;
		strcpy(off_note, note);
		found = 1;
	}
	fclose(f);
	return found;
}

static void selftest_verdict(struct verdict *v, const char *results)
{
	long tests = 0, subtests = -1;
	char off_boot[128], off_note[BJK_LINE_MAX], buf[600], *off;
	int ok;

	if (!summary[0]) {
		add_note(v, "no Summary line");
		ktap(0, suite, " # %s", "no Summary line");
		v->failed++;
		return;
	}
	/* test_verifier: "P PASSED, S SKIPPED, F FAILED"; test_progs: "T/P PASSED, ..." */
	if (sscanf(summary, "Summary: %ld/%ld PASSED, %ld SKIPPED, %ld FAILED",
		   &tests, &subtests, &v->skipped, &v->failed) != 4 &&
	    sscanf(summary, "Summary: %ld PASSED, %ld SKIPPED, %ld FAILED",
		   &tests, &v->skipped, &v->failed) != 3) {
		snprintf(buf, sizeof(buf), "unreadable %s", summary);
		add_note(v, buf);
		ktap(0, suite, " # %s", buf);
		v->failed++;
		return;
	}
	v->passed = tests;
	/* The note starts with the Summary: the "-off" boot's is compared below. */
	add_note(v, summary);
	ok = !v->failed;
	/*
	 * Under bpf_jit_harden=2 a case whose blinded program cannot be JITed
	 * (too long for the jump offsets) is skipped ("unsupported feature",
	 * BPF_JIT_ALWAYS_ON): allowed there, as long as the off boot skips the same.
	 */
	if (!strcmp(suite, "test_verifier") && v->skipped) {
		add_note(v, "test_verifier skipped cases (the kernel lacks what they need)");
		v->failed += v->skipped;
		ok = 0;
	}
	ktap(ok, suite, " # %s", summary);
	if (off_boot_name(boot))
		return;
	if (!off_twin(boot, off_boot, sizeof(off_boot))) {
		add_note(v, "no -off twin: the boot's name has no '-'");
		return;
	}
	if (!off_summary(results, off_boot, off_note)) {
		snprintf(buf, sizeof(buf), "no %s Summary from boot %s in this run to compare with",
			 suite, off_boot);
		add_note(v, buf);
		return;
	}
	/* The off boot's Summary, wherever it stands in its note. */
	off = strstr(off_note, "Summary: ");
	if (!off || strncmp(off, summary, strlen(summary)) ||
	    (off[strlen(summary)] && off[strlen(summary)] != ';')) {
		snprintf(buf, sizeof(buf), "differs from %s: %.200s", off_boot, off_note);
		add_note(v, buf);
		ktap(0, "same-as-off", " # %s", buf);
		v->failed++;
	} else {
		snprintf(buf, sizeof(buf), "same as %s", off_boot);
		ktap(1, "same-as-off", " # %s", buf);
		add_note(v, buf);
	}
}

/* Other guest suites: top-level KTAP result lines. */
static void ktap_line(struct verdict *v, const char *msg)
{
	int ok = !strncmp(msg, "ok ", 3);

	if (!ok && strncmp(msg, "not ok ", 7))
		return;
	if (selftest_suite()) {
		/* A case by name; the counts are the Summary's. */
		printf("# %s\n", msg);
		return;
	}
	printf("%s\n", msg);
	ntests++;
	if (strstr(msg, "# SKIP"))
		v->skipped++;
	else if (ok)
		v->passed++;
	else
		v->failed++;
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
			printf("# %s\n", m);
			add_note(v, m + strlen("BJK-ERROR: "));
			errored = 1;
		}
		if (!strcmp(suite, "test_bpf"))
			test_bpf_line(msg);
		else if (selftest_suite())
			selftest_line(msg), ktap_line(v, msg);
		else
			ktap_line(v, msg);
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
		ktap(0, "kunit", " # %s", "no KUnit output");
	} else if (total == 0) {
		/* KUnit ran with no suite: "KTAP version 1" and "1..0". */
		v->skipped = 1;
		add_note(v, "no KUnit test ran (series not applied, or CONFIG_BPF_JIT_KASAN_KUNIT_TEST off)");
		ktap(1, "kunit", " # SKIP %s", "no KUnit test ran");
	} else if (total < 0) {
		add_note(v, "kunit.py parse printed no summary");
		v->failed++;
		ktap(0, "kunit", "%s", "");
	} else {
		char detail[128];

		snprintf(detail, sizeof(detail), "%ld passed, %ld failed, %ld skipped",
			 v->passed, v->failed, v->skipped);
		ktap(!v->failed, "kunit", " # %s", detail);
	}
}

int main(int argc, char **argv)
{
	struct verdict v = { 0 };
	int rc = 0;

	if (argc < 5 || (!strcmp(argv[1], "kunit") && argc != 6)) {
		fprintf(stderr, "usage: %s SUITE BOOT LOG RESULTS [KUNIT_PARSE_OUTPUT]\n", argv[0]);
		return 2;
	}
	suite = argv[1];
	boot = argv[2];
	logpath = argv[3];
	printf("KTAP version 1\n# boot %s, suite %s\n", boot, suite);
	if (!strcmp(suite, "kunit")) {
		kunit(&v, argv[5]);
	} else {
		rc = guest_suite(&v);
		if (!strcmp(suite, "test_bpf") && rc != -2 && !errored)
			test_bpf_verdict(&v);
		if (selftest_suite() && rc != -2 && !errored)
			selftest_verdict(&v, argv[4]);
		/* A suite that did not run or finish, or failed without saying which test. */
		if (rc && !v.failed) {
			v.failed = 1;
			ktap(0, suite, " # %s", v.note);
		}
	}
	printf("1..%d\n", ntests);
	if (v.note[0])
		printf("# %s: %s\n", suite, v.note);
	if (bjk_result(argv[4], boot, suite, v.passed, v.failed, v.skipped, v.secs, v.note))
		return 2;
	return v.failed ? 1 : 0;
}
