// SPDX-License-Identifier: GPL-2.0
/*
 * bjk-decode: from a KASAN report in a JIT-compiled BPF program to the BPF
 * instruction and the C source line that made the bad access.
 *
 *   bjk-decode [-m] [-H] [-d DUMP] LOG   decode the reports of a console
 *                                   log or dmesg, with the programs of DUMP
 *                                   (or the live ones when there is no -d)
 *   bjk-decode dump FILE            save every loaded program (for later)
 *   bjk-decode watch [-m] [-H] [-d DUMP] [-a ACK] -- CMD [ARG...]
 *                                   run CMD; decode each report in a BPF
 *                                   program while the program is still
 *                                   loaded; exit with CMD's status
 *
 * The series' kernel says it itself: after the access line, "BPF program:",
 * "BPF insn: <index> in <function>: <disassembly>" and "BPF source:
 * <file>:<line>:<col>: <text>", from the JIT's table and the program's line
 * info at the moment of the report. A report with those lines is decoded
 * from them alone, the program loaded or not. What follows is for consoles
 * of kernels without them (and, with -H, for any: the tests compare the
 * two).
 *
 * A report reads "BUG: KASAN: <type> in bpf_prog_<tag>_<name>+0x<off>/0x<len>"
 * then "Read|Write of size N at addr A". 6.12 has no map from BPF
 * instruction to JITed offset except jited_line_info, one address per BTF
 * line record: +0x<off> (the return address of the check's call, inside the
 * JITed code of the faulting instruction) falls in exactly one line's range,
 * and within that line's instructions the memory instruction of the
 * report's kind (Read/Write, size) is the one. Where several are (programs
 * without BTF line info, or a line with two such accesses), the order of the
 * checks decides: the JIT emits them in instruction order, so the report's
 * check, the k-th call into the KASAN runtime of its function, belongs to
 * the k-th memory instruction not based on R10, when the counts agree.
 *
 * Programs are found by symbol, the name bpf_get_prog_name() gives: the
 * main function by tag and name; subprograms have tags of their own, not in
 * bpf_prog_info, so for them the BTF name and the length (/0x<len>) must do.
 * (Reading /proc/kallsyms per program would be exact but is far too slow
 * under TCG, and it hides BPF symbols while bpf_jit_harden is on.)
 *
 * -m: each decoded report as one line (print_line()) instead of a block,
 * for a program to compare with what it expected (the e2e suite's decode
 * check, tests/e2e/loader.c). watch -a ACK: on each BJK-EXPECT-END line,
 * write the region's name to ACK; a runner waits for it before it closes
 * the region's programs (a race otherwise: a case takes a few ms, and the
 * watcher may read its report after the close).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/wait.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "disasm.h"
#include "bjk-checks.h"
#include "bjk-kmsg.h"
#include "bjk-prog.h"
#include "bjk-report.h"

#define MAX_FUNCS	BJK_PROG_FUNCS
#define MAX_SNAPS	256
#define KSYM_LEN	512

/* A program as far as decoding needs it: live, or read back from a dump. */
struct line {
	uint32_t insn;		/* first xlated instruction of the line */
	uint64_t jaddr;		/* its JITed address (jited_line_info) */
	uint32_t num, col;
	char *file, *text;
};

struct snap {
	uint32_t id;
	char name[BPF_OBJ_NAME_LEN];
	char tag[2 * BPF_TAG_SIZE + 1];
	int nfuncs;
	uint64_t ksym[MAX_FUNCS];
	uint32_t flen[MAX_FUNCS];
	char sym[MAX_FUNCS][KSYM_LEN];	/* "bpf_prog_?_<name>": tag unknown */
	int harden;		/* net.core.bpf_jit_harden when it was read */
	int fstart[MAX_FUNCS];	/* first xlated insn of each function; -1: unknown */
	uint32_t ncalls;	/* the checks' calls in the JITed image */
	struct bjk_call *calls;
	uint32_t naccs;		/* inline: the JIT's table, per checked access */
	struct tab_access *accs;
	uint32_t ninsns;
	struct bpf_insn *insns;
	uint32_t nlines;
	struct line *lines;
};

/* An access of an inline check, from the JIT's table (bjk_tab_load()). */
struct tab_access {
	int func;
	uint32_t report;	/* +0x<off> of a report on it */
	uint32_t insn;		/* its insn, from the function's first */
	bool at_insn;		/* report is its insn's start (merged), not a ret */
};

static struct snap *snaps[MAX_SNAPS];
static int nsnaps;

static void *xcalloc(size_t n, size_t s)
{
	void *p = calloc(n ? n : 1, s);

	if (!p) {
		perror("bjk-decode: calloc");
		exit(2);
	}
	return p;
}

/* ---- live programs -------------------------------------------------- */

/* Once: the checks' addresses (kernel text symbols are always listed). */
static void checks_load(void)
{
	static bool done;

	if (!done)
		bjk_checks_load();
	done = true;
}

/*
 * Inline mode: the JIT's table of the function names the insn of every
 * report exactly, merged checks' included (a report on an access of a
 * merged check names the start of that access's own insn, not a return
 * address). Nothing in outline mode or on a kernel without the table.
 */
static void scan_table(struct snap *s, int f)
{
	static struct bjk_tab_entry e[4096];
	uint64_t start = 0;
	int n, k;

	n = bjk_tab_load(s->ksym[f], e, 4096, &start);
	for (k = 0; k < n; k++) {
		s->accs = realloc(s->accs, (s->naccs + 1) * sizeof(*s->accs));
		s->accs[s->naccs++] = (struct tab_access){ f, e[k].report - (s->ksym[f] - start),
							    e[k].insn, e[k].report != e[k].ret };
	}
}

static int read_harden(void)
{
	FILE *f = fopen("/proc/sys/net/core/bpf_jit_harden", "r");
	int h = 0;

	if (f) {
		if (fscanf(f, "%d", &h) != 1)
			h = 0;
		fclose(f);
	}
	return h;
}

/*
 * Snapshot program @id. With @want (a report's symbol), only a program that
 * may have that function: a single-function one must have its tag.
 * Function names are rebuilt as the kernel's bpf_get_prog_name() makes
 * them (reading /proc/kallsyms per program is far too slow under TCG).
 */
static struct snap *snap_live(uint32_t id, const char *want)
{
	struct btf *btf = NULL;
	struct bjk_prog p;
	struct snap *s;
	uint32_t k;
	int fd = bpf_prog_get_fd_by_id(id), f, err;

	if (fd < 0)
		return NULL;
	err = bjk_prog_info(fd, &p);
	/* cheap first: the main function's tag, or subprograms to look at */
	if (!err && want && p.nfuncs == 1 && strncmp(want + 9, p.tag, 2 * BPF_TAG_SIZE))
		err = -1;
	if (!err) {
		checks_load();
		err = bjk_prog_fetch(fd, &p, BJK_PROG_XLATED | BJK_PROG_LINES | BJK_PROG_FUNC_INFO);
	}
	close(fd);
	if (err)
		return NULL;
	s = xcalloc(1, sizeof(*s));
	s->id = id;
	s->harden = read_harden();
	s->nfuncs = p.nfuncs;
	memcpy(s->ksym, p.ksym, sizeof(p.ksym));
	memcpy(s->flen, p.flen, sizeof(p.flen));
	memcpy(s->name, p.info.name, sizeof(s->name));
	memcpy(s->tag, p.tag, sizeof(s->tag));
	/* the snapshot keeps these */
	s->ninsns = p.ninsns;
	s->insns = p.insns;
	s->ncalls = p.ncalls;
	s->calls = p.calls;
	p.insns = NULL;
	p.calls = NULL;
	if (p.info.btf_id)
		btf = btf__load_from_kernel_by_id(p.info.btf_id);
	for (f = 0; f < s->nfuncs; f++) {
		const char *fn = s->name;

		if (btf && (uint32_t)f < p.nfinfo) {
			const struct btf_type *t = btf__type_by_id(btf, p.finfo[f].type_id);

			if (t)
				fn = btf__name_by_offset(btf, t->name_off);
		}
		snprintf(s->sym[f], KSYM_LEN, "bpf_prog_%s_%s", f ? "?" : s->tag, fn);
		s->fstart[f] = (uint32_t)f < p.nfinfo ? (int)p.finfo[f].insn_off :
			       s->nfuncs == 1 ? 0 : -1;
		scan_table(s, f);
	}
	if (btf && p.nlines) {
		s->nlines = p.nlines;
		s->lines = xcalloc(s->nlines, sizeof(*s->lines));
		for (k = 0; k < s->nlines; k++) {
			const struct bpf_line_info *li = &p.lines[k];
			const char *file = btf__name_by_offset(btf, li->file_name_off);
			const char *text = btf__name_by_offset(btf, li->line_off);

			s->lines[k].insn = li->insn_off;
			s->lines[k].jaddr = p.jlines[k];
			s->lines[k].num = BPF_LINE_INFO_LINE_NUM(li->line_col);
			s->lines[k].col = BPF_LINE_INFO_LINE_COL(li->line_col);
			s->lines[k].file = strdup(file ? file : "?");
			s->lines[k].text = strdup(text ? text : "");
		}
	}
	btf__free(btf);
	bjk_prog_free(&p);
	return s;
}

static void snap_free(struct snap *s)
{
	uint32_t k;

	if (!s)
		return;
	for (k = 0; k < s->nlines; k++) {
		free(s->lines[k].file);
		free(s->lines[k].text);
	}
	free(s->lines);
	free(s->insns);
	free(s->calls);
	free(s);
}

/* Keep a snapshot, replacing an older one of the same program. */
static void snap_keep(struct snap *s)
{
	int k;

	for (k = 0; k < nsnaps; k++)
		if (snaps[k]->id == s->id) {
			snap_free(snaps[k]);
			snaps[k] = s;
			return;
		}
	if (nsnaps == MAX_SNAPS) {	/* the oldest goes */
		snap_free(snaps[0]);
		memmove(snaps, snaps + 1, sizeof(snaps[0]) * (MAX_SNAPS - 1));
		nsnaps--;
	}
	snaps[nsnaps++] = s;
}

/* Does symbol @sym name function @f of @s? */
static bool sym_match(const struct snap *s, int f, const char *sym, unsigned long len)
{
	const char *want = s->sym[f], *q;

	if (len && len != s->flen[f])
		return false;
	if (!strcmp(want, sym))
		return true;
	/* "bpf_prog_?_<name>": any tag */
	if (strncmp(want, "bpf_prog_?_", 11) || strncmp(sym, "bpf_prog_", 9))
		return false;
	q = strchr(sym + 9, '_');
	return q && !strcmp(q + 1, want + 11);
}

static bool snap_has(const struct snap *s, const char *sym, unsigned long len)
{
	int f;

	for (f = 0; f < s->nfuncs; f++)
		if (sym_match(s, f, sym, len))
			return true;
	return false;
}

/* Snapshot the live program that has function @sym; NULL if none. */
static struct snap *snap_find_live(const char *sym, unsigned long len)
{
	uint32_t id = 0;

	while (!bpf_prog_get_next_id(id, &id)) {
		struct snap *s = snap_live(id, sym);

		if (s && snap_has(s, sym, len)) {
			snap_keep(s);
			return s;
		}
		snap_free(s);
	}
	return NULL;
}

/* ---- dumps ----------------------------------------------------------- */

static void dump_write(FILE *o, const struct snap *s)
{
	uint32_t k;
	int f;

	fprintf(o, "prog %u %s %s %d\n", s->id, s->tag, s->name[0] ? s->name : "-", s->harden);
	for (f = 0; f < s->nfuncs; f++)
		fprintf(o, "func %d %llx %u %s %d\n", f, (unsigned long long)s->ksym[f], s->flen[f],
			s->sym[f], s->fstart[f]);
	for (k = 0; k < s->ncalls; k++)
		fprintf(o, "call %d %u %d %d\n", s->calls[k].func, s->calls[k].ret,
			s->calls[k].write, s->calls[k].size);
	for (k = 0; k < s->naccs; k++)
		fprintf(o, "acc %d %u %u %d\n", s->accs[k].func, s->accs[k].report, s->accs[k].insn,
			s->accs[k].at_insn);
	for (k = 0; k < s->ninsns; k++) {
		const struct bpf_insn *i = &s->insns[k];

		fprintf(o, "insn %u %u %u %u %d %d\n", k, i->code, i->dst_reg, i->src_reg, i->off,
			i->imm);
	}
	for (k = 0; k < s->nlines; k++) {
		const struct line *l = &s->lines[k];

		fprintf(o, "line %u %llx %u %u\t%s\t%s\n", l->insn, (unsigned long long)l->jaddr,
			l->num, l->col, l->file, l->text);
	}
	fprintf(o, "end\n");
}

static int dump_all(const char *path)
{
	FILE *o = fopen(path, "w");
	uint32_t id = 0;
	int n = 0;

	if (!o) {
		fprintf(stderr, "bjk-decode: %s: %s\n", path, strerror(errno));
		return 2;
	}
	fprintf(o, "bjk-decode dump 1\n");
	while (!bpf_prog_get_next_id(id, &id)) {
		struct snap *s = snap_live(id, NULL);

		if (s) {
			dump_write(o, s);
			n++;
		}
		snap_free(s);
	}
	if (fclose(o)) {
		fprintf(stderr, "bjk-decode: %s: %s\n", path, strerror(errno));
		return 2;
	}
	fprintf(stderr, "bjk-decode: %d program(s) saved to %s\n", n, path);
	return 0;
}

static int dump_read(const char *path)
{
	FILE *in = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	struct snap *s = NULL;
	uint32_t cap_i = 0, cap_l = 0;

	if (!in) {
		fprintf(stderr, "bjk-decode: dump %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (getline(&line, &cap, in) < 0 || strncmp(line, "bjk-decode dump 1", 17)) {
		fprintf(stderr, "bjk-decode: %s is not a dump of bjk-decode (want 'bjk-decode dump 1' first)\n",
			path);
		fclose(in);
		return -1;
	}
	while (getline(&line, &cap, in) > 0) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		if (!strncmp(line, "prog ", 5)) {
			s = xcalloc(1, sizeof(*s));
			cap_i = cap_l = 0;
			sscanf(line, "prog %u %16s %15s %d", &s->id, s->tag, s->name, &s->harden);
			if (!strcmp(s->name, "-"))
				s->name[0] = '\0';
		} else if (s && !strncmp(line, "func ", 5) && s->nfuncs < MAX_FUNCS) {
			int f = s->nfuncs++;
			unsigned long long a;

			s->fstart[f] = -1;
			sscanf(line, "func %*d %llx %u %511s %d", &a, &s->flen[f], s->sym[f],
			       &s->fstart[f]);
			s->ksym[f] = a;
		} else if (s && !strncmp(line, "call ", 5)) {
			struct bjk_call c = {};
			int w = 0;

			sscanf(line, "call %d %u %d %d", &c.func, &c.ret, &w, &c.size);
			c.write = w;
			s->calls = realloc(s->calls, (s->ncalls + 1) * sizeof(*s->calls));
			s->calls[s->ncalls++] = c;
		} else if (s && !strncmp(line, "acc ", 4)) {
			struct tab_access a = {};
			int at = 0;

			sscanf(line, "acc %d %u %u %d", &a.func, &a.report, &a.insn, &at);
			a.at_insn = at;
			s->accs = realloc(s->accs, (s->naccs + 1) * sizeof(*s->accs));
			s->accs[s->naccs++] = a;
		} else if (s && !strncmp(line, "insn ", 5)) {
			unsigned int code, dst, src;
			int off, imm;
			struct bpf_insn *i;

			if (s->ninsns == cap_i) {
				cap_i = cap_i ? 2 * cap_i : 64;
				s->insns = realloc(s->insns, cap_i * sizeof(*s->insns));
			}
			i = &s->insns[s->ninsns++];
			sscanf(line, "insn %*u %u %u %u %d %d", &code, &dst, &src, &off, &imm);
			i->code = code;
			i->dst_reg = dst;
			i->src_reg = src;
			i->off = off;
			i->imm = imm;
		} else if (s && !strncmp(line, "line ", 5)) {
			char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
			unsigned long long a;
			struct line *l;

			if (!t2)
				continue;
			*t1 = *t2 = '\0';
			if (s->nlines == cap_l) {
				cap_l = cap_l ? 2 * cap_l : 16;
				s->lines = realloc(s->lines, cap_l * sizeof(*s->lines));
			}
			l = &s->lines[s->nlines++];
			sscanf(line, "line %u %llx %u %u", &l->insn, &a, &l->num, &l->col);
			l->jaddr = a;
			l->file = strdup(t1 + 1);
			l->text = strdup(t2 + 1);
		} else if (s && !strcmp(line, "end")) {
			snap_keep(s);
			s = NULL;
		}
	}
	free(line);
	fclose(in);
	return 0;
}

/* ---- reports --------------------------------------------------------- */

/* ---- decoding -------------------------------------------------------- */

/* A memory access of kind (write, size) that KASAN checks could report. */
static bool insn_matches(const struct bpf_insn *i, bool write, int size)
{
	bool w;
	int sz;

	return bjk_insn_access(i, &w, &sz) == BJK_ACCESS_CHECKED && w == write && sz == size;
}

static char insn_text[256];

static void print_cb(void *priv, const char *fmt, ...)
{
	size_t n = strlen(insn_text);
	va_list ap;

	(void)priv;
	va_start(ap, fmt);
	vsnprintf(insn_text + n, sizeof(insn_text) - n, fmt, ap);
	va_end(ap);
}

/* bpftool's text of one xlated instruction (the kernel's own disassembler). */
static const char *insn_str(const struct bpf_insn *i)
{
	const struct bpf_insn_cbs cbs = { .cb_print = print_cb };
	size_t n;

	insn_text[0] = '\0';
	print_bpf_insn(&cbs, i, true);
	n = strlen(insn_text);
	while (n && insn_text[n - 1] == '\n')
		insn_text[--n] = '\0';
	return insn_text;
}

struct decoded {
	const struct snap *s;
	int func;
	int insn;		/* -1: not unique */
	int ncand;
	const struct line *line;	/* NULL: no line info */
	const char *why;	/* why it could not be decoded */
	bool blinded;		/* see decode() */
	bool by_order;		/* told apart by the order of the checks */
	bool by_table;		/* found in the JIT's table */
	bool kernel;		/* from the kernel's own lines (BPF insn: ...) */
};

/*
 * Each function's first line record must be at the function's first
 * instruction. With bpf_jit_harden, 6.12 blinds each subprogram's copy as
 * it JITs it and shifts the line records shared with the program, while the
 * xlated dump stays unblinded: then they are not.
 */
static bool lines_out_of_step(const struct snap *s)
{
	uint32_t k;
	int f;

	for (f = 0; f < s->nfuncs; f++) {
		uint64_t a = s->ksym[f], e = a + s->flen[f];

		if (s->fstart[f] < 0)
			continue;
		for (k = 0; k < s->nlines; k++)
			if (s->lines[k].jaddr >= a && s->lines[k].jaddr < e)
				break;
		if (k < s->nlines && s->lines[k].insn != (uint32_t)s->fstart[f])
			return true;
	}
	return false;
}

/* Why a report of a blinded program with subprograms is not decoded. */
static const char blinded_why[] =
	"line info out of step with the xlated instructions (constant blinding, bpf_jit_harden, of a program with subprograms); decode with bpf_jit_harden=0";

/* -H: decode on the host even when the kernel printed the lines */
static bool host_only;

/* Whether the kernel's own lines decode report @r (below). */
static bool by_kernel(const struct bjk_report *r)
{
	return r->insn >= 0 && !host_only;
}

static struct decoded decode(const struct bjk_report *r)
{
	const struct tab_access *tab = NULL;
	struct decoded d = { .insn = -1, .func = -1 };
	uint64_t addr, fend;
	uint32_t from = 0, to, k;
	int i, f;

	for (i = nsnaps - 1; i >= 0 && d.func < 0; i--)
		for (f = 0; f < snaps[i]->nfuncs; f++)
			if (sym_match(snaps[i], f, r->sym, r->len)) {
				d.s = snaps[i];
				d.func = f;
				break;
			}
	/*
	 * The kernel said which instruction and line, from the JIT's table and
	 * the program's line info at the moment of the report: that is the
	 * answer, with or without the program (the snapshot, when there is
	 * one, only gives the function's index). What follows is for consoles
	 * of kernels without those lines.
	 */
	if (by_kernel(r)) {
		d.kernel = true;
		d.insn = (int)r->insn;
		d.ncand = 1;
		d.blinded = r->insn_blinded;
		return d;
	}
	if (!d.s) {
		d.why = "program not found (not loaded any more, and not in the dump)";
		return d;
	}
	addr = d.s->ksym[d.func] + r->off;
	fend = d.s->ksym[d.func] + d.s->flen[d.func];
	/*
	 * The JIT's table, when it has the report's access: its insn, exactly,
	 * unless constant blinding numbered the JITed copy's insns otherwise
	 * than the xlated dump's (bpf_jit_harden). Blinding inserts insns but
	 * keeps the memory accesses in order, so then the access's rank among
	 * the function's table entries serves as the k-th check below.
	 */
	for (k = 0; k < d.s->naccs; k++) {
		const struct tab_access *a = &d.s->accs[k];
		int fs = d.func ? d.s->fstart[d.func] : 0;
		uint32_t j;

		if (a->func != d.func || a->report != r->off)
			continue;
		tab = a;
		if (d.s->harden || fs < 0 || fs + a->insn >= d.s->ninsns ||
		    !insn_matches(&d.s->insns[fs + a->insn], r->write, r->size))
			break;
		d.insn = fs + a->insn;
		d.ncand = 1;
		d.by_table = true;
		for (j = 0; j < d.s->nlines; j++)
			if (d.s->lines[j].jaddr >= d.s->ksym[d.func] &&
			    d.s->lines[j].jaddr < fend && d.s->lines[j].insn <= (uint32_t)d.insn)
				d.line = &d.s->lines[j];
		if (lines_out_of_step(d.s)) {
			d.blinded = true;
			d.line = NULL;
			d.why = blinded_why;
		}
		return d;
	}
	/* the function's instructions: from its first line record, or all */
	to = d.s->ninsns;
	for (k = 0; k < d.s->nlines; k++) {
		const struct line *l = &d.s->lines[k];

		if (l->jaddr < d.s->ksym[d.func] || l->jaddr >= fend)
			continue;
		/* +0x<off> is a return address: strictly after the line's start;
		 * or, for an access of a merged check, its own insn's start
		 */
		if (l->jaddr < addr + (tab && tab->at_insn)) {
			d.line = l;
			from = l->insn;
			to = k + 1 < d.s->nlines ? d.s->lines[k + 1].insn : d.s->ninsns;
		}
	}
	if (!d.line && d.s->nlines)
		d.why = "no line record of the function before +0x<off>";
	if (!d.s->nlines && d.s->nfuncs > 1)
		d.why = "no line info, and several functions: cannot tell their instructions apart";
	for (k = from; k < to && k < d.s->ninsns; k++) {
		const struct bpf_insn *x = &d.s->insns[k];

		if (insn_matches(x, r->write, r->size)) {
			d.ncand++;
			d.insn = d.ncand == 1 ? (int)k : -1;
		}
		if (x->code == (BPF_LD | BPF_IMM | BPF_DW))
			k++;
	}
	/*
	 * Several candidates (raw programs, or a line with two accesses of one
	 * kind): the JIT emits the checks in instruction order, so the report's
	 * check is the k-th of its function, and when the function has exactly
	 * one check per memory instruction not based on R10, the k-th of those.
	 */
	if (d.ncand != 1 && d.s->fstart[d.func] >= 0) {
		uint32_t fs = d.s->fstart[d.func], fe = d.s->ninsns;
		int kth = -1, nc = 0, nm = 0, hit = -1, size;
		bool write;

		for (f = 0; f < d.s->nfuncs; f++)
			if (d.s->fstart[f] > (int)fs && (uint32_t)d.s->fstart[f] < fe)
				fe = d.s->fstart[f];
		/* the report's check among the calls, or its access's rank in the table */
		if (tab)
			kth = 0;
		for (k = 0; k < d.s->ncalls && !tab; k++) {
			if (d.s->calls[k].func != d.func)
				continue;
			if (d.s->calls[k].ret == r->off)
				kth = nc;
			nc++;
		}
		for (k = 0; k < d.s->naccs && tab; k++) {
			if (d.s->accs[k].func != d.func)
				continue;
			kth += d.s->accs[k].insn < tab->insn;
			nc++;
		}
		for (k = fs; k < fe && k < d.s->ninsns; k++) {
			const struct bpf_insn *x = &d.s->insns[k];

			if (bjk_insn_access(x, &write, &size) == BJK_ACCESS_CHECKED) {
				if (nm == kth)
					hit = k;
				nm++;
			}
			if (x->code == (BPF_LD | BPF_IMM | BPF_DW))
				k++;
		}
		if (kth >= 0 && nm == nc && hit >= 0 &&
		    insn_matches(&d.s->insns[hit], r->write, r->size) &&
		    (!d.line || ((uint32_t)hit >= from && (uint32_t)hit < to))) {
			d.insn = hit;
			d.ncand = 1;
			d.by_order = true;
			if (d.why && !d.line)
				d.why = NULL;
		}
	}
	if (!d.ncand && !d.why)
		d.why = "no memory instruction of that kind in the range";
	/*
	 * Constant blinding rewrites each subprogram's copy as it is JITed and
	 * moves the shared line records' instruction offsets with it, while the
	 * xlated dump stays unblinded: neither the line nor the instruction can
	 * be trusted.
	 */
	if (lines_out_of_step(d.s)) {
		d.blinded = true;
		d.why = blinded_why;
	}
	return d;
}

/*
 * The kernel's "BPF source: <file>:<line>:<col>: <text>" into its parts;
 * false for "none, ..." (no line info).
 */
static bool kernel_source(const struct bjk_report *r, char *file, size_t n, unsigned int *line,
			  unsigned int *col, const char **text)
{
	const char *p = r->source, *q;
	int end;

	for (q = strchr(p, ':'); q; q = strchr(q + 1, ':')) {
		end = 0;
		if (sscanf(q, ":%u:%u:%n", line, col, &end) == 2 && end && (size_t)(q - p) < n) {
			snprintf(file, n, "%.*s", (int)(q - p), p);
			*text = q + end;	/* its indentation: unescape() */
			return true;
		}
	}
	return false;
}

/*
 * @src as the kernel printed it, less its indentation: /dev/kmsg writes a
 * tab, a backslash and other unprintable bytes of a message as "\xNN" (a
 * console does not).
 */
static const char *unescape(const char *src)
{
	static char buf[512];
	size_t n = 0;
	unsigned int c;

	while (*src && n + 1 < sizeof(buf)) {
		if (src[0] == '\\' && src[1] == 'x' && sscanf(src + 2, "%2x", &c) == 1 &&
		    src[2] && src[3]) {
			buf[n++] = (char)c;
			src += 4;
		} else {
			buf[n++] = *src++;
		}
	}
	buf[n] = '\0';
	return buf + strspn(buf, " \t");	/* the line's indentation too */
}

static void print_kernel(FILE *o, const struct bjk_report *r, const struct decoded *d)
{
	unsigned int line, col;
	const char *text;
	char file[256];

	fprintf(o, "  program  %s", r->prog[0] ? r->prog : "(not named)");
	if (d->s)
		fprintf(o, " (id %u), function %d of %d", d->s->id, d->func, d->s->nfuncs);
	fputc('\n', o);
	if (kernel_source(r, file, sizeof(file), &line, &col, &text))
		fprintf(o, "  source   %s:%u:%u\n           %u | %s\n", file, line, col, line,
			unescape(text));
	else
		fprintf(o, "  source   %s\n", r->source[0] ? r->source : "(no BPF source line)");
	fprintf(o, "  insn     %d%s in %s\n", d->insn, d->blinded ? " (blinded)" : "", r->insn_text);
	/* what the verifier proved, beside the address KASAN says was hit */
	if (r->belief[0])
		fprintf(o, "  belief   %s\n", r->belief);
	fprintf(o, "  note     as the kernel printed it (its BPF program/insn/source lines)%s\n",
		d->blinded ? "; the index is the blinded copy's (bpf_jit_harden), not the xlated dump's" : "");
}

static const char *host_note(const struct bjk_report *r)
{
	return r->insn >= 0 ? "decoded on the host (-H), the kernel's own lines aside" :
	       "the kernel printed no BPF insn line (a kernel without the series' report lines): decoded on the host, from the program's instructions and line info";
}

static void print_decoded(FILE *o, int n, const struct bjk_report *r, const struct decoded *d)
{
	uint32_t k, from, to;
	const char *fn;

	fprintf(o, "bjk-decode: report %d: %s, %s of size %d at addr %lx\n", n, r->bug,
		r->write ? "Write" : "Read", r->size, r->addr);
	fprintf(o, "  symbol   %s+0x%lx/0x%lx\n", r->sym, r->off, r->len);
	if (d->kernel) {
		print_kernel(o, r, d);
		return;
	}
	if (!d->s) {
		fprintf(o, "  not decoded: %s\n", d->why);
		fprintf(o, "  note     %s\n", host_note(r));
		return;
	}
	fn = strchr(d->s->sym[d->func] + 9, '_');	/* past "bpf_prog_<tag>" */
	fprintf(o, "  program  %s (id %u, tag %s), function %d of %d: %s\n",
		d->s->name[0] ? d->s->name : "(no name)", d->s->id, d->s->tag, d->func, d->s->nfuncs,
		fn ? fn + 1 : "?");
	if (d->line)
		fprintf(o, "  source   %s:%u:%u\n", d->line->file, d->line->num, d->line->col);
	else
		fprintf(o, "  source   none: the program has no BTF line info (raw instructions?)\n");
	if (d->line) {
		const char *t = d->line->text;

		while (*t == ' ' || *t == '\t')
			t++;
		fprintf(o, "           %u | %s\n", d->line->num, t);
	}
	if (d->insn >= 0)
		fprintf(o, "  insn     %d: %s%s\n", d->insn, insn_str(&d->s->insns[d->insn]),
			d->by_order ? "  (the k-th check of the function: the k-th access)" : "");
	else if (d->ncand > 1)
		fprintf(o, "  insn     %d candidates of that kind (marked '=>')\n", d->ncand);
	if (d->why)
		fprintf(o, "  note     %s\n", d->why);
	fprintf(o, "  note     %s\n", host_note(r));
	/* the line's instructions, the faulting one marked */
	if (d->line) {
		from = d->line->insn;
		to = (uint32_t)(d->line - d->s->lines) + 1 < d->s->nlines ? d->line[1].insn :
									      d->s->ninsns;
		for (k = from; k < to && k < d->s->ninsns && k < from + 24; k++) {
			const struct bpf_insn *x = &d->s->insns[k];
			bool mark = (int)k == d->insn ||
				    (d->insn < 0 && insn_matches(x, r->write, r->size));

			fprintf(o, "    %s %4u: %s\n", mark ? "=>" : "  ", k, insn_str(x));
			if (x->code == (BPF_LD | BPF_IMM | BPF_DW))
				k++;
		}
	}
}

/*
 * -m: one line per report, fields separated by one space, "-" for none:
 *   decoded REGION BUG read|write SIZE PROG FUNC INSN KIND SOURCE # TEXT
 * REGION: the BJK-EXPECT-BEGIN region the report came in; BUG, read|write,
 * SIZE: the report's; PROG, FUNC: the program's name and the function's
 * index (jited_ksyms order); INSN, KIND: the decoded instruction (-1 when
 * not decoded) and its access ("read8", "write4"); SOURCE: file:line, or
 * "blinded" (not decoded: constant blinding); TEXT: the source line, or
 * why not decoded.
 */
static void print_line(FILE *o, const char *region, const struct bjk_report *r,
		       const struct decoded *d)
{
	char kind[16] = "-", source[300] = "-", text[512] = "";
	const char *t = d->why ? d->why : d->insn < 0 ? "instruction not unique" : "";
	bool write;
	int size;
	size_t k;

	if (d->kernel) {
		unsigned int line, col;

		if (bjk_disasm_access(r->insn_text, &write, &size) == BJK_ACCESS_CHECKED)
			snprintf(kind, sizeof(kind), "%s%d", write ? "write" : "read", size);
		if (kernel_source(r, source, sizeof(source), &line, &col, &t))
			snprintf(source + strlen(source), sizeof(source) - strlen(source), ":%u", line);
		else
			t = "";
		snprintf(text, sizeof(text), "%s", unescape(t));
		goto out;
	}
	if (d->insn >= 0 &&
	    bjk_insn_access(&d->s->insns[d->insn], &write, &size) == BJK_ACCESS_CHECKED)
		snprintf(kind, sizeof(kind), "%s%d", write ? "write" : "read", size);
	if (d->blinded)
		snprintf(source, sizeof(source), "blinded");
	else if (d->line)
		snprintf(source, sizeof(source), "%s:%u", d->line->file, d->line->num);
	if (d->line && !d->blinded)
		for (t = d->line->text; *t == ' ' || *t == '\t'; t++)
			;
	snprintf(text, sizeof(text), "%s", t);
out:
	for (k = 0; text[k]; k++)	/* one line, one space between fields */
		if (text[k] == '\t' || text[k] == '\n')
			text[k] = ' ';
	fprintf(o, "decoded %s %s %s %d %s %d %d %s %s # %s\n", region[0] ? region : "-", r->bug,
		r->write ? "write" : "read", r->size,
		d->kernel && r->prog[0] ? r->prog : d->s && d->s->name[0] ? d->s->name : "-",
		d->func, d->insn, kind, source, text);
}

/* -m: one line per report; else a block. */
static bool one_line;

static void print_report(FILE *o, int n, const char *region, const struct bjk_report *r,
			 const struct decoded *d)
{
	if (one_line)
		print_line(o, region, r, d);
	else
		print_decoded(o, n, r, d);
}

/* ---- decode a log ---------------------------------------------------- */

static int decode_log(const char *path, bool live)
{
	FILE *in = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char line[8192], region[BJK_EXPECT_NAME] = "";
	struct bjk_report r = {};
	int n = 0, bad = 0;
	long c;

	if (!in) {
		fprintf(stderr, "bjk-decode: %s: %s\n", path, strerror(errno));
		return 2;
	}
	for (;;) {
		struct decoded d;
		bool eof = !fgets(line, sizeof(line), in);

		/* a report is decoded whole: the kernel's lines come after its access line */
		if (!eof) {
			line[strcspn(line, "\r\n")] = '\0';
			bjk_expect_begin(bjk_msg(line), region, &c);
			if (bjk_report_parse(bjk_msg(line), &r) != BJK_REPORT_END)
				continue;
		} else if (!r.open) {
			break;	/* else a console cut inside a report: what it has */
		}
		if (r.access && bjk_report_in_bpf(&r)) {
			if (live && !by_kernel(&r))
				snap_find_live(r.sym, r.len);
			d = decode(&r);
			print_report(stdout, ++n, region, &r, &d);
			bad += !d.s && !d.kernel;
		}
		if (eof)
			break;
	}
	if (in != stdin)
		fclose(in);
	printf("bjk-decode: %d KASAN report(s) in BPF programs%s\n", n,
	       bad ? ", some not decoded" : "");
	return 0;
}

/* ---- watch ----------------------------------------------------------- */

/*
 * A program can be gone before the watcher reads its report (the command
 * closes it right after the run): every new program is held open for a few
 * seconds, so that it is still there to be read. Program ids only grow, so
 * asking for the ids after the last one seen is cheap.
 */
#define HOLD_MAX	128
#define HOLD_SECS	3
static struct {
	int fd;
	time_t since;
} held[HOLD_MAX];
static int nheld;
static uint32_t last_id;

static void hold_new(void)
{
	time_t now = time(NULL);
	uint32_t id = last_id;
	int k, j = 0;

	for (k = 0; k < nheld; k++) {
		if (now - held[k].since > HOLD_SECS)
			close(held[k].fd);
		else
			held[j++] = held[k];
	}
	nheld = j;
	while (!bpf_prog_get_next_id(id, &id)) {
		int fd = bpf_prog_get_fd_by_id(id);

		last_id = id;
		if (fd < 0)
			continue;
		if (nheld == HOLD_MAX) {
			close(held[0].fd);
			memmove(held, held + 1, sizeof(held[0]) * (HOLD_MAX - 1));
			nheld--;
		}
		held[nheld].fd = fd;
		held[nheld++].since = now;
	}
}

static volatile sig_atomic_t child_done;

static void on_chld(int sig)
{
	(void)sig;
	child_done = 1;
}

/* A runner waits for this (bjk_decode_sync() of lib/bjk-guest.h). */
static void write_ack(const char *path, const char *name)
{
	char tmp[512];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "%s\n", name);
	if (!fclose(f))
		rename(tmp, path);
}

static int watch(const char *dump, const char *ack, char **argv)
{
	static struct bjk_kmsg km;
	int status = 0, n = 0;
	char region[BJK_EXPECT_NAME] = "", name[BJK_EXPECT_NAME];
	struct bjk_report r = {};
	bool drained = false;
	pid_t pid;

	if (bjk_kmsg_open(&km)) {
		fprintf(stderr, "bjk-decode: /dev/kmsg: %s\n", strerror(errno));
		return 2;
	}
	checks_load();
	signal(SIGCHLD, on_chld);
	pid = fork();
	if (pid < 0) {
		perror("bjk-decode: fork");
		return 2;
	}
	if (!pid) {
		close(km.fd);
		execvp(argv[0], argv);
		fprintf(stderr, "bjk-decode: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	/*
	 * The watcher must get the CPU as soon as a program appears or a report
	 * starts, before the command can close the program: real-time priority
	 * (the command, forked before this, keeps its own). Best effort.
	 */
	{
		struct sched_param sp = { .sched_priority = 10 };

		sched_setscheduler(0, SCHED_FIFO, &sp);
	}
	for (;;) {
		struct pollfd p = { .fd = km.fd, .events = POLLIN };
		enum bjk_report_line kind;
		const char *msg;

		if (child_done && !drained) {
			/* read what the kernel wrote up to the child's end, then stop */
			drained = true;
		} else if (drained) {
			break;
		} else if (poll(&p, 1, 10) <= 0) {
			hold_new();
			continue;
		}
		hold_new();
		while ((msg = bjk_kmsg_next(&km))) {
			struct decoded d;
			long c = 0;

			if (ack && bjk_expect_end(msg, name) > 0)
				write_ack(ack, name);
			bjk_expect_begin(msg, region, &c);
			kind = bjk_report_parse(msg, &r);
			/* now, while the report is printed, the program is alive */
			if (kind == BJK_REPORT_BEGIN && bjk_report_in_bpf(&r))
				snap_find_live(r.sym, r.len);
			/* decoded whole: the kernel's lines come after the access line */
			if (kind != BJK_REPORT_END || !r.access || !bjk_report_in_bpf(&r))
				continue;
			d = decode(&r);
			print_report(stdout, ++n, region, &r, &d);
			fflush(stdout);
		}
	}
	waitpid(pid, &status, 0);
	if (dump) {
		FILE *o = fopen(dump, "w");
		int k;

		if (o) {
			fprintf(o, "bjk-decode dump 1\n");
			for (k = 0; k < nsnaps; k++)
				dump_write(o, snaps[k]);
			fclose(o);
		}
	}
	printf("bjk-decode: %d KASAN report(s) in BPF programs while the command ran\n", n);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: bjk-decode [-m] [-H] [-d DUMP] LOG|-\n"
		"       bjk-decode dump FILE\n"
		"       bjk-decode watch [-m] [-H] [-d DUMP] [-a ACK] -- CMD [ARG...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *dump = NULL, *ack = NULL;
	bool w = false;
	int opt;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "dump")) {
		if (argc != 3)
			usage();
		return dump_all(argv[2]);
	}
	if (argc > 1 && !strcmp(argv[1], "watch")) {
		w = true;
		argv++;
		argc--;
	}
	while ((opt = getopt(argc, argv, "mHd:a:")) != -1) {
		switch (opt) {
		case 'H': host_only = true; break;
		case 'a': ack = optarg; break;
		case 'd': dump = optarg; break;
		case 'm': one_line = true; break;
		default: usage();
		}
	}
	if (optind >= argc)
		usage();
	if (w)
		return watch(dump, ack, argv + optind);
	if (dump && dump_read(dump))
		return 2;
	return decode_log(argv[optind], !dump);
}
