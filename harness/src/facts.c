// SPDX-License-Identifier: GPL-2.0
/*
 * facts: the KASAN reports of a console, read with lib/bjk-report.h (the one
 * reader of their grammar), as rows a check compares without parsing a
 * report itself.
 *
 *   facts [-l PREFIX]... LOG
 *
 * One row a line, fields separated by tabs, in the console's order:
 *
 *   begin  REGION WANT           an expect region opens (WANT: its count, * any)
 *   report REGION K BUG FUNC ACCESS ADDR WHERE INSN TEXT SOURCE BELIEF FITS
 *                                the K-th report (from 1) of REGION ("-":
 *                                none open), when its closing rule comes or
 *                                the console ends: bug type, the function
 *                                its title names (bpf_prog_<tag>_<name>,
 *                                ___bpf_prog_run, ...; "-" if none), "Read N"
 *                                or "Write N" ("-" without the line), the
 *                                address as KASAN prints it (hex, no 0x;
 *                                "-"), where the address lies ("8 bytes to
 *                                the right of allocated 48-byte region";
 *                                "-" without it), and what a kernel
 *                                with the series' report lines says of a
 *                                BPF program's access: the insn's index,
 *                                "<function>: <disassembly>", the source
 *                                line, what the verifier believed of the
 *                                access ("-" each without them), and
 *                                whether that belief fits the report's
 *                                access (bjk_belief_fits(): "fits" or
 *                                "unfit"; "-" without the belief line);
 *                                a tab inside a field is a space
 *   end    REGION COUNT          the region closes with COUNT reports
 *   line   MESSAGE               a message starting with one of the
 *                                PREFIXes, printk time dropped: the lines
 *                                of a test's own that a check also reads
 *
 * Exit status 0, or 2 when LOG cannot be read or the arguments are wrong.
 */
#include <stdlib.h>
#include <unistd.h>
#include "common.h"

#define MAX_PREFIXES 16

struct open_report {
	struct bjk_report r;
	char region[BJK_EXPECT_NAME];	/* the region open at its first line */
	long k;
};

/*
 * A text field and its separator: "-" when empty, and a tab inside it (a
 * source line's indentation) printed as a space, so that the fields after
 * it stay where a check looks for them.
 */
static void print_field(const char *s, char sep)
{
	if (!*s)
		s = "-";
	for (; *s; s++)
		putchar(*s == '\t' ? ' ' : *s);
	putchar(sep);
}

static void print_report(const struct open_report *o)
{
	const struct bjk_report *r = &o->r;
	struct bjk_belief b;

	printf("report\t%s\t%ld\t", o->region, o->k);
	print_field(r->bug, '\t');
	print_field(r->func, '\t');
	if (r->access)
		printf("%s %d\t%lx\t", r->write ? "Write" : "Read", r->size, r->addr);
	else
		printf("-\t-\t");
	print_field(r->where, '\t');
	if (r->insn >= 0)
		printf("%ld\t", r->insn);
	else
		printf("-\t");
	print_field(r->insn >= 0 ? r->insn_text : "", '\t');
	print_field(r->source, '\t');
	print_field(r->belief, '\t');
	if (!r->belief[0])
		printf("-\n");
	else
		printf("%s\n", bjk_belief_parse(r->belief, &b) && r->access &&
				      bjk_belief_fits(&b, r->write, r->size) ? "fits" : "unfit");
}

int main(int argc, char **argv)
{
	const char *prefixes[MAX_PREFIXES];
	char line[BJK_LINE_MAX], region[BJK_EXPECT_NAME] = "-", name[BJK_EXPECT_NAME];
	int nprefix = 0, opt, i;
	long count = 0, want;
	struct open_report o = { 0 };
	FILE *f;

	while ((opt = getopt(argc, argv, "l:")) != -1) {
		if (opt != 'l' || nprefix == MAX_PREFIXES) {
			fprintf(stderr, "usage: facts [-l PREFIX]... LOG (at most %d prefixes)\n",
				MAX_PREFIXES);
			return 2;
		}
		prefixes[nprefix++] = optarg;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: facts [-l PREFIX]... LOG\n");
		return 2;
	}
	f = fopen(argv[optind], "r");
	if (!f) {
		fprintf(stderr, "facts: cannot read %s: %m\n", argv[optind]);
		return 2;
	}
	while (fgets(line, sizeof(line), f)) {
		char *msg;

		bjk_chomp(line);
		msg = bjk_msg(line);
		for (i = 0; i < nprefix; i++)
			if (!strncmp(msg, prefixes[i], strlen(prefixes[i]))) {
				printf("line\t%s\n", msg);
				break;
			}
		switch (bjk_report_parse(msg, &o.r)) {
		case BJK_REPORT_BEGIN:
			/* a report cut off by the next one still counts */
			snprintf(o.region, sizeof(o.region), "%s", region);
			o.k = ++count;
			continue;
		case BJK_REPORT_END:
			print_report(&o);
			continue;
		default:
			break;
		}
		if (bjk_expect_begin(msg, name, &want) == 1) {
			snprintf(region, sizeof(region), "%s", name);
			count = 0;
			if (want < 0)
				printf("begin\t%s\t*\n", region);
			else
				printf("begin\t%s\t%ld\n", region, want);
		} else if (bjk_expect_end(msg, name) == 1) {
			printf("end\t%s\t%ld\n", name, !strcmp(name, region) ? count : 0L);
			snprintf(region, sizeof(region), "-");
			count = 0;
		}
	}
	if (o.r.open)
		print_report(&o);
	fclose(f);
	return 0;
}
