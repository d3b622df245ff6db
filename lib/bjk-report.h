/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The grammar of a KASAN report and of the harness's expect regions, as
 * the kernel prints them: on the console (a line after its "[   12.345678] "
 * printk time) or in a /dev/kmsg record (bjk-kmsg.h). The e2e runner checks
 * the reports of its cases field by field, bjk-decode decodes the ones in
 * BPF programs, the harness's splat scanner (harness/src/splat.c) counts
 * them per region and its facts (harness/src/facts.c) gives their fields to
 * the checks across boots (tests/museum/check.sh, tests/live/check.sh); all
 * read a report with these functions, so that they
 * agree on where one starts and ends. A report, one message a line:
 *
 *   ==================================================================
 *   BUG: KASAN: <bug type> in bpf_prog_<tag>_<name>+0x<off>/0x<len>
 *   Read|Write of size <N> at addr <address> by task <comm>/<pid>
 *   ... the stack; "Allocated by task" and "Freed by task" and theirs
 *   The buggy address belongs to ..., the shadow memory around it
 *   ==================================================================
 *
 * Header only: each user is a single C file.
 */
#ifndef BJK_REPORT_H
#define BJK_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The message of a console or dmesg line: after a "[   12.345678] " printk
 * time and the one blank printk puts after it; a message's own indentation
 * (KTAP's nested tests) stays. Anything else, a /dev/kmsg message
 * included, is its own message.
 */
static inline char *bjk_msg(char *s)
{
	char *end;

	if (s[0] != '[')
		return s;
	end = strchr(s, ']');
	if (!end)
		return s;
	end++;
	if (*end == ' ')
		end++;
	return end;
}

/* Where the report's first line is in @msg, or NULL when it is none. */
static inline const char *bjk_report_begins(const char *msg)
{
	return strstr(msg, "BUG: KASAN:");
}

/*
 * The rule before and after a report: it ends the report whose first line
 * came before it.
 */
static inline bool bjk_report_rule(const char *msg)
{
	return !strncmp(msg, "==========", 10);
}

struct bjk_report {
	char bug[64];		/* slab-use-after-free, global-out-of-bounds, ... */
	char sym[512];		/* bpf_prog_<tag>_<name>; "" when not sym+0x<off>/0x<len> */
	char func[128];		/* the word after " in ": sym, or a title's other name */
	unsigned long off, len;
	bool access;		/* its "Read|Write of size" line seen: */
	bool write;
	int size;
	unsigned long addr;
	bool alloc, freed;	/* "Allocated by task", "Freed by task": the stacks */
	/*
	 * Where the address lies, KASAN's two lines "The buggy address is
	 * located <where>" and "<object>[ <range>]" joined by a blank, the
	 * object's address range dropped: "8 bytes to the right of allocated
	 * 48-byte region"; "" without them.
	 */
	char where[256];
	bool where_next;	/* the next line is the second of them */
	/*
	 * What the kernel says of a BPF program's access, when it says it
	 * (the series' report lines, after the access line):
	 *   BPF program: <name>, id <id>, tag <tag>, type <type>[, attached to <f>]
	 *   BPF insn: <index>[ (blinded)] in <function>: <disassembly>
	 *   BPF source: <file>:<line>:<col>: <text> | none, ...
	 *   BPF belief: <read|write> of <size> through r<N> = <type>... | none, ...
	 */
	char prog[64];		/* "" without the line */
	long insn;		/* -1 without the line */
	bool insn_blinded;	/* "(blinded)" after the index: the JITed copy's */
	char insn_text[160];	/* "<function>: <disassembly>" */
	char source[256];	/* what follows "BPF source: " */
	char belief[256];	/* what follows "BPF belief: " */
	bool open;		/* between its first line and its closing rule */
	bool complete;		/* its closing rule seen */
};

enum bjk_report_line {
	BJK_REPORT_NONE,	/* no line of a report */
	BJK_REPORT_BEGIN,	/* its first line: *r is a new report */
	BJK_REPORT_ACCESS,	/* its "Read|Write of size N at addr A" line */
	BJK_REPORT_LINE,	/* another line of it (stacks, memory state) */
	BJK_REPORT_END,		/* its closing rule: *r is complete */
};

/* Is the report's program a JIT-compiled BPF program? */
static inline bool bjk_report_in_bpf(const struct bjk_report *r)
{
	return !strncmp(r->sym, "bpf_prog_", 9);
}

/*
 * Read message @msg into the report *@r: a report's first line starts it
 * anew, and the lines up to its closing rule fill it in. KASAN prints a
 * report under its report_lock: no line of another report comes between.
 */
static inline enum bjk_report_line bjk_report_parse(const char *msg, struct bjk_report *r)
{
	const char *p = bjk_report_begins(msg);

	if (p) {
		memset(r, 0, sizeof(*r));
		r->open = true;
		r->insn = -1;
		if (sscanf(p, "BUG: KASAN:%63s in %511[^+]+0x%lx/0x%lx", r->bug, r->sym, &r->off,
			   &r->len) < 3)
			r->sym[0] = '\0';
		if (sscanf(p, "BUG: KASAN:%*s in %127[^+ ]", r->func) != 1)
			r->func[0] = '\0';
		return BJK_REPORT_BEGIN;
	}
	if (!r->open)
		return BJK_REPORT_NONE;
	if (bjk_report_rule(msg)) {
		r->open = false;
		r->complete = true;
		return BJK_REPORT_END;
	}
	if (!r->access && (!strncmp(msg, "Read of size ", 13) ||
			   !strncmp(msg, "Write of size ", 14))) {
		r->access = true;
		r->write = msg[0] == 'W';
		sscanf(strstr(msg, " of size "), " of size %d at addr %lx", &r->size, &r->addr);
		return BJK_REPORT_ACCESS;
	}
	if (r->where_next) {
		size_t n = strlen(r->where), k;
		const char *p = msg + strspn(msg, " ");

		r->where_next = false;
		k = strcspn(p, "[");
		while (k && p[k - 1] == ' ')
			k--;
		snprintf(r->where + n, sizeof(r->where) - n, " %.*s", (int)k, p);
		return BJK_REPORT_LINE;
	}
	if (!r->prog[0] && !strncmp(msg, "BPF program: ", 13)) {
		snprintf(r->prog, sizeof(r->prog), "%.*s", (int)strcspn(msg + 13, ","), msg + 13);
		return BJK_REPORT_LINE;
	}
	if (r->insn < 0 && !strncmp(msg, "BPF insn: ", 10)) {
		const char *in = strstr(msg, " in ");
		char *end;

		r->insn = strtol(msg + 10, &end, 10);
		if (end == msg + 10 || !in) {
			r->insn = -1;
		} else {
			r->insn_blinded = !strncmp(end, " (blinded)", 10);
			snprintf(r->insn_text, sizeof(r->insn_text), "%s", in + 4);
		}
		return BJK_REPORT_LINE;
	}
	if (!r->source[0] && !strncmp(msg, "BPF source: ", 12)) {
		snprintf(r->source, sizeof(r->source), "%s", msg + 12);
		return BJK_REPORT_LINE;
	}
	if (!r->belief[0] && !strncmp(msg, "BPF belief: ", 12)) {
		snprintf(r->belief, sizeof(r->belief), "%s", msg + 12);
		return BJK_REPORT_LINE;
	}
	if (!r->where[0] && !strncmp(msg, "The buggy address is located ", 29)) {
		snprintf(r->where, sizeof(r->where), "%s", msg + 29);
		r->where_next = true;
		return BJK_REPORT_LINE;
	}
	if (strstr(msg, "Allocated by task"))
		r->alloc = true;
	else if (strstr(msg, "Freed by task"))
		r->freed = true;
	return BJK_REPORT_LINE;
}

/*
 * What the verifier believed of a report's access, from its "BPF belief:"
 * line: "read of 8 through r2 = map_value of map 5 (48 bytes) at [0, 40]",
 * the offsets of the access's first byte in the object that every state
 * the verifier explored proved.
 */
struct bjk_belief {
	bool write;
	int size;		/* the access's bytes */
	int reg;		/* its base register */
	char type[32];		/* as the verifier log names it: map_value, fp, ... */
	long id;		/* the map ("of map N") or the frame; -1: none */
	long obj;		/* the object's size ("(N bytes)"); -1: not known */
	long min, max;
};

/* Parse @s, what follows "BPF belief: ", into *@b: false if it has none. */
static inline bool bjk_belief_parse(const char *s, struct bjk_belief *b)
{
	char rw[8];
	const char *p;
	int n = 0;

	memset(b, 0, sizeof(*b));
	b->id = b->obj = -1;
	if (sscanf(s, "%7s of %d through r%d = %31[^ ]%n", rw, &b->size, &b->reg, b->type,
		   &n) != 4 || !n)
		return false;
	if (strcmp(rw, "read") && strcmp(rw, "write"))
		return false;
	b->write = rw[0] == 'w';
	s += n;
	if (sscanf(s, " of map %ld", &b->id) != 1)
		sscanf(s, " of frame %ld", &b->id);
	p = strstr(s, " (");
	if (p)
		sscanf(p, " (%ld bytes", &b->obj);
	p = strstr(s, " at [");
	return p && sscanf(p, " at [%ld, %ld]", &b->min, &b->max) == 2;
}

/*
 * Whether belief *@b is of an access of @size bytes that writes if @write
 * does, with offsets in order that, where it knows the object's size, keep
 * the access inside it: what a verifier, right or wrong, proves of an
 * access it accepts and KASAN then catches.
 */
static inline bool bjk_belief_fits(const struct bjk_belief *b, bool write, int size)
{
	return b->write == write && b->size == size && b->min <= b->max &&
	       (b->obj < 0 || (b->min >= 0 && b->max + b->size <= b->obj));
}

/*
 * Expect regions: a test that makes KASAN reports prints
 *   BJK-EXPECT-BEGIN <case> <count>	before them
 *   BJK-EXPECT-END <case>		after them
 * and the splat scan fails unless the region holds exactly <count>. A
 * <count> of "*" (*count -1) takes any number: for a test that cannot know
 * it beforehand and checks every report itself (the fuzzer's). Each
 * parser takes the line from anywhere in @msg (the console may put other
 * output before it) into @name (BJK_EXPECT_NAME bytes): 1 when @msg has
 * such a line, -1 when it has one that is malformed, 0 when it has none.
 */
#define BJK_EXPECT_NAME	256

static inline int bjk_expect_begin(const char *msg, char *name, long *count)
{
	const char *m = strstr(msg, "BJK-EXPECT-BEGIN ");

	char any[2];

	if (!m)
		return 0;
	if (sscanf(m, "BJK-EXPECT-BEGIN %255s %1[*]", name, any) == 2) {
		*count = -1;
		return 1;
	}
	return sscanf(m, "BJK-EXPECT-BEGIN %255s %ld", name, count) == 2 ? 1 : -1;
}

static inline int bjk_expect_end(const char *msg, char *name)
{
	const char *m = strstr(msg, "BJK-EXPECT-END ");

	if (!m)
		return 0;
	return sscanf(m, "BJK-EXPECT-END %255s", name) == 1 ? 1 : -1;
}

#endif /* BJK_REPORT_H */
