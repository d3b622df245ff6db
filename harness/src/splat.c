// SPDX-License-Identifier: GPL-2.0
/*
 * splat: find kernel splats in a console log and fail on unexpected ones.
 *
 *   splat BOOT LOG
 *   splat -n LOG
 *
 * A splat is a line with one of the patterns below. A KASAN report
 * ("BUG: KASAN: ..." up to its closing "=====" line) counts once; so does
 * any other splat up to its "---[ end" line (or 100 lines when it has none).
 * A KASAN report is expected only between lines a test printed:
 *   BJK-EXPECT-BEGIN <case> <count>   ...   BJK-EXPECT-END <case>
 * and the region must hold exactly <count> of them ("*": any number, for
 * a test that checks each report itself). Any other splat, in a
 * region or not, is unexpected. Prints KTAP (one test: BOOT no unexpected
 * splats), each unexpected splat with its first 15 lines, a summary line,
 * and the verdict's bjk-verdict line (common.h). Exit status 1 on any
 * unexpected splat or count mismatch.
 *
 * -n: count only, for tools/vm (LOG: its kernel messages, one a line):
 * prints "<KASAN reports> <other splats>", counted as above; no expect
 * regions, no verdict.
 */
#include <stdlib.h>
#include "common.h"

#define SHOW_LINES 15
#define OTHER_MAX_LINES 100

static const char *const patterns[] = {
	"BUG:", "WARNING:", "Oops", "KASAN", "UBSAN", "soft lockup", "hard LOCKUP",
	"self-detected stall", "detected stalls", "RCU stall", "Kernel panic",
	"general protection fault", "Unable to handle",
	/* lockdep's and the hung task detector's reports without a BUG: or
	 * WARNING: line (the others of lockdep, PROVE_RCU and
	 * DEBUG_ATOMIC_SLEEP have one) */
	"INFO: trying to register non-static key", "blocked for more than",
};

enum block { NONE, KASAN_REPORT, OTHER };

static int is_splat(const char *msg)
{
	const char *p = msg;
	size_t i;

	/* Our markers, KTAP lines (test names) and the command line echo. */
	while (*p == ' ' || *p == '\t')
		p++;
	if (strstr(p, "BJK-") || !strncmp(p, "ok ", 3) || !strncmp(p, "not ok ", 7) ||
	    !strncmp(p, "# ", 2) || !strncmp(p, "KTAP version", 12) ||
	    strstr(p, "Kernel command line:") || strstr(p, "Command line:"))
		return 0;
	for (i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++)
		if (strstr(msg, patterns[i]))
			return 1;
	return 0;
}

struct scan {
	const char *log;
	int count_only;
	long kasan, other;	/* every splat, expected or not */
	long expected, regions, unexpected;
	/* The open expect region. */
	int in_region;
	char region[256];
	long region_want, region_seen, region_line;
	/* The current splat. */
	enum block block;
	long block_lines;
	int showing, shown;
};

static void problem(struct scan *s, long lineno, const char *what)
{
	s->unexpected++;
	printf("# splat: %s at line %ld of %s\n", what, lineno, s->log);
}

static void start(struct scan *s, long lineno, enum block b)
{
	s->block = b;
	s->block_lines = 0;
	s->showing = 0;
	if (b == KASAN_REPORT)
		s->kasan++;
	else
		s->other++;
	if (s->count_only)
		return;
	if (b == KASAN_REPORT && s->in_region) {
		s->expected++;
		s->region_seen++;
		return;
	}
	problem(s, lineno, b == KASAN_REPORT ? "unexpected KASAN report" :
		s->in_region ? "non-KASAN splat inside an expect region" : "unexpected splat");
	s->showing = 1;
	s->shown = 0;
}

static void marker(struct scan *s, long lineno, const char *msg)
{
	char name[BJK_EXPECT_NAME] = "", buf[1024];
	long want;
	int begin = bjk_expect_begin(msg, name, &want);
	int end = begin ? 0 : bjk_expect_end(msg, name);

	if (begin < 0) {
		problem(s, lineno, "malformed BJK-EXPECT-BEGIN");
	} else if (begin) {
		if (s->in_region) {
			snprintf(buf, sizeof(buf), "expect region %s opened inside %s", name, s->region);
			problem(s, lineno, buf);
		}
		s->in_region = 1;
		snprintf(s->region, sizeof(s->region), "%s", name);
		s->region_want = want;
		s->region_seen = 0;
		s->region_line = lineno;
		s->regions++;
	} else if (end < 0 || (end && (!s->in_region || strcmp(name, s->region)))) {
		snprintf(buf, sizeof(buf), "BJK-EXPECT-END %s without its BEGIN", name);
		problem(s, lineno, buf);
	} else if (end) {
		if (s->region_want >= 0 && s->region_seen != s->region_want) {
			snprintf(buf, sizeof(buf),
				 "expect region %s (line %ld) wanted %ld KASAN report(s), saw %ld",
				 s->region, s->region_line, s->region_want, s->region_seen);
			problem(s, lineno, buf);
		}
		s->in_region = 0;
	}
}

int main(int argc, char **argv)
{
	struct scan s = { 0 };
	char line[BJK_LINE_MAX], note[256], buf[1024];
	long lineno = 0;
	FILE *f;

	s.count_only = argc == 3 && !strcmp(argv[1], "-n");
	if (argc != 3) {
		fprintf(stderr, "usage: %s BOOT LOG | -n LOG\n", argv[0]);
		return 2;
	}
	s.log = argv[2];
	f = fopen(s.log, "r");
	if (!f) {
		perror(s.log);
		return 2;
	}
	if (!s.count_only)
		printf("KTAP version 1\n1..1\n");
	while (fgets(line, sizeof(line), f)) {
		char *msg;

		lineno++;
		bjk_chomp(line);
		msg = bjk_msg(line);
		if (strstr(msg, "BJK-EXPECT-")) {
			if (!s.count_only)
				marker(&s, lineno, msg);
			continue;
		}
		if (is_splat(msg)) {
			if (bjk_report_begins(msg))
				start(&s, lineno, KASAN_REPORT);
			else if (s.block == NONE || strstr(msg, "Kernel panic"))
				start(&s, lineno, OTHER);
			/* else: a further line of the current splat */
		}
		if (s.block == NONE)
			continue;
		if (s.showing && s.shown < SHOW_LINES) {
			printf("#   %s\n", line);
			s.shown++;
		}
		s.block_lines++;
		if ((s.block == KASAN_REPORT && s.block_lines > 1 && bjk_report_rule(msg)) ||
		    (s.block == OTHER && (strstr(msg, "---[ end") || s.block_lines >= OTHER_MAX_LINES)))
			s.block = NONE;
	}
	fclose(f);
	if (s.count_only) {
		printf("%ld %ld\n", s.kasan, s.other);
		return 0;
	}
	if (s.in_region) {
		snprintf(buf, sizeof(buf), "expect region %s (line %ld) never ended",
			 s.region, s.region_line);
		problem(&s, lineno, buf);
	}
	snprintf(note, sizeof(note), "%ld expected (in %ld regions), %ld unexpected",
		 s.expected, s.regions, s.unexpected);
	printf("# splats: %s\n", note);
	printf("%s 1 - %s no unexpected splats\n", s.unexpected ? "not ok" : "ok", argv[1]);
	bjk_verdict(stdout, argv[1], "splat", 0, note);
	return s.unexpected ? 1 : 0;
}
