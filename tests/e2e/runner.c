// SPDX-License-Identifier: GPL-2.0
/*
 * bjk-e2e: end-to-end cases of KASAN checks in JIT-compiled BPF programs.
 *
 * Runs as root in the test guest, with the test module bjk_e2e loaded
 * (tests/e2e/module). Every case loads real programs through bpf() and
 * the verifier (C programs of progs/e2e.bpf.c through libbpf, or raw
 * instructions where the exact opcode matters), audits what the JIT made
 * of them, runs them with BPF_PROG_TEST_RUN (or the matching trigger),
 * reads the new /dev/kmsg records and checks every KASAN report field by
 * field: bug type, bpf_prog_<tag>_<name> of the program that made the
 * access, +0x<off> on the check of that access, Read/Write, size and the
 * exact address (what the module handed out plus the access's offset).
 *
 * Cases that expect reports are framed by BJK-EXPECT-BEGIN/END lines on
 * /dev/kmsg, for the harness's splat scanner. The whole list runs twice:
 * with net.core.bpf_jit_harden=0 and =2 (constant blinding).
 *
 * The cases of C programs are what the programs' BTF decl tags say
 * (progs/bjk-tags.h): the runner reads them from the object and keeps no
 * table of its own. The plan's count is that of the cases themselves: a
 * dry run of the list (dry_run()).
 *
 * Output: KTAP, a plan line first, one line per case, then a summary.
 * With -k, KTAP and diagnostics go to /dev/kmsg (in order with the
 * kernel's messages on the console) instead of stdout. -f runs only the
 * cases whose name (with its h0./h2. prefix) contains FILTER; -l prints
 * their names, one a line, in the order they run, and exits (it needs
 * only the object, not the guest).
 *
 *   bjk-e2e [-k] [-o BPF-OBJECT] [-f FILTER] [-l]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/filter.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "bjk-checks.h"
#include "bjk-out.h"
#include "bjk-guest.h"
#include "bjk-kmsg.h"
#include "bjk-prog.h"
#include "bjk-report.h"

#define MODULE_NAME	"bjk_e2e"
#define LAST_ADDR	"/sys/module/" MODULE_NAME "/parameters/last_addr"
#define HARDEN		"/proc/sys/net/core/bpf_jit_harden"
/* The shadow value bjk_poison() writes reads as this bug type. */
#define POISON_BUG	"global-out-of-bounds"

/* Embedded by build.sh (objects.S) unless -o is given. */
extern const char bjk_bpf_obj[], bjk_bpf_obj_end[];

static const char *obj_path;
static const char *filter;
static struct bjk_kmsg kmsg;
static int harden;

/* ---- a case ------------------------------------------------------------ */

struct expect {
	const char *bug;
	bool write;
	int size;
	long off;		/* from last_addr */
	int prog;		/* which audited program made the access */
	int func;		/* and in which of its functions (jited_ksyms) */
	bool stacks;		/* "Allocated by task" and "Freed by task" */
};

/* Where a program's checks are: per function, call offsets by kind. */
#define MAX_CALLS	256
struct audit {
	int fd;
	char name[BPF_OBJ_NAME_LEN];
	unsigned char tag[BPF_TAG_SIZE];
	int nfuncs;
	uint64_t ksym[BJK_PROG_FUNCS];
	uint32_t flen[BJK_PROG_FUNCS];
	int ncalls;		/* inline: the table's accesses, else the calls */
	int nchecks;		/* the checks' calls in the image */
	bool table;		/* inline: the JIT's table, call[] from it */
	struct {
		int func;
		uint32_t ret_off;	/* where a report names the access */
		bool write;
		int size;
		int insn;		/* in its function, from the table; -1 */
	} call[MAX_CALLS];
};

/* A report as a case saw it, to compare runs of one program. */
struct seen {
	char bug[64];
	bool write;
	int size;
	long off;		/* from last_addr */
	int insn;		/* from the JIT's table; -1: unknown */
};

struct tcase {
	char name[128];
	int num;
	char why[512];
	struct expect exp[8];
	int nexp;
	struct audit aud[3];
	int naud;
	bool armed;
	struct seen seen[8];
	int nseen;
	const struct tcase *twin;	/* its reports must be the same as these */
};

static int ncases, npass, nfail;

static void fail(struct tcase *t, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	bjk_out("# %s: %s", t->name, buf);
	if (!t->why[0])
		snprintf(t->why, sizeof(t->why), "%s", buf);
}

static void note(struct tcase *t, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	bjk_out("# %s: %s", t->name, buf);
}

static void expect(struct tcase *t, int prog, int func, const char *bug, bool write,
		   int size, long off)
{
	struct expect *e = &t->exp[t->nexp++];

	e->prog = prog;
	e->func = func;
	e->bug = bug;
	e->write = write;
	e->size = size;
	e->off = off;
	e->stacks = false;
}

/* ---- /dev/kmsg ------------------------------------------------------- */

static void kmsg_open(void)
{
	if (bjk_kmsg_open(&kmsg)) {
		perror("/dev/kmsg");
		exit(2);
	}
}

static void kmsg_skip(void)
{
	bjk_kmsg_skip(&kmsg);
}

/* The KASAN reports among the records written since kmsg_skip(). */
static int kmsg_reports(struct bjk_report *r, int max)
{
	const char *msg;
	int n = 0;

	while ((msg = bjk_kmsg_next(&kmsg))) {
		if (bjk_report_begins(msg)) {
			if (n == max)	/* no room: its lines find the last one closed */
				continue;
			n++;
		}
		if (n)
			bjk_report_parse(msg, &r[n - 1]);
	}
	return n;
}

/* ---- /proc/kallsyms ------------------------------------------------- */

static void kallsyms_checks(void)
{
	int i;

	if (bjk_checks_load()) {
		perror("/proc/kallsyms");
		exit(2);
	}
	for (i = 0; i < BJK_NCHECKS; i++)
		if (!bjk_checks[i].addr || bjk_checks[i].addr < 0xffff000000000000UL)
			bjk_out("# warning: %s not in /proc/kallsyms (or hidden)",
			    bjk_checks[i].name);
}

static void set_harden(int v);

/*
 * The kallsyms name at exactly @addr, "" if none. /proc/kallsyms lists BPF
 * programs only while bpf_jit_harden is 0 (bpf_jit_kallsyms_enabled()), so
 * it is read with hardening off for a moment; the programs are JITed.
 */
static void ksym_name(unsigned long addr, char *name, size_t len)
{
	char line[512], n[256], type;
	unsigned long a;
	int h = harden;
	FILE *f;

	if (h)
		set_harden(0);
	f = fopen("/proc/kallsyms", "r");

	name[0] = '\0';
	if (!f) {
		if (h)
			set_harden(h);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		if (line[0] != 'f')	/* kernel addresses only */
			continue;
		if (sscanf(line, "%lx %c %255s", &a, &type, n) == 3 && a == addr &&
		    !strncmp(n, "bpf_prog_", 9)) {
			snprintf(name, len, "%s", n);
			break;
		}
	}
	fclose(f);
	if (h)
		set_harden(h);
}

/* ---- the coverage audit ---------------------------------------------- */

/*
 * What a case knows that the xlated dump cannot show: accesses the
 * verifier proved stack-only through a base other than R10, and
 * PROBE_MEM loads, which bpf_prog_get_info_by_fd() dumps as LDX MEM (only
 * PROBE_MEMSX, PROBE_ATOMIC and PROBE_MEM32 keep their mode in the dump).
 * Indexed [write][log2 size].
 */
struct exempt {
	int n[2][4];
	int probes;		/* PROBE_MEM(SX) loads (their guards are counted) */
};

static int size_idx(int size)
{
	return size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;
}

static const char *kind_name(bool write, int idx)
{
	static const char *const names[2][4] = {
		{ "load1", "load2", "load4", "load8" },
		{ "store1", "store2", "store4", "store8" },
	};
	return names[write][idx];
}

/*
 * The x86-64 JIT's guard before a PROBE_MEM(SX) load: mov r10, VSYSCALL_ADDR
 * (49 c7 c2 00 00 60 ff, sign-extended imm32), or its movabs form.
 */
static int count_probe_guards(const uint8_t *img, uint32_t len)
{
	static const uint8_t mov[] = { 0x49, 0xc7, 0xc2, 0x00, 0x00, 0x60, 0xff };
	static const uint8_t movabs[] = { 0x49, 0xba, 0x00, 0x00, 0x60, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint32_t i;
	int n = 0;

	for (i = 0; i + sizeof(mov) <= len; i++) {
		if (!memcmp(img + i, mov, sizeof(mov)))
			n++;
		else if (i + sizeof(movabs) <= len && !memcmp(img + i, movabs, sizeof(movabs)))
			n++;
	}
	return n;
}

/*
 * Inline mode: the JIT's own table of function @f (bjk_tab_load()) has one
 * entry per checked access, and a merged check covers several. Its checks
 * must be exactly the calls found in the image from a->call[@first] on,
 * one each; its entries then replace those calls in a->call, with the
 * offset a report on each access names. A function with no table keeps
 * its calls (outline mode: one call per access). -1 on a mismatch.
 */
static int audit_table(struct tcase *t, struct audit *a, int f, int first)
{
	static struct bjk_tab_entry e[MAX_CALLS];
	uint64_t start = 0, skew;
	int n, k, c, checks = 0, calls = a->ncalls - first;

	n = bjk_tab_load(a->ksym[f], e, MAX_CALLS, &start);
	if (n < 0 && errno == ENOENT)
		return 0;
	if (n < 0) {
		fail(t, "audit: %s: %s", BJK_TAB_PATH, strerror(errno));
		return -1;
	}
	if (!n)
		return 0;
	skew = a->ksym[f] - start;	/* 0 but with CFI preambles */
	for (k = 0; k < n; k++) {
		if (k && e[k].ret == e[k - 1].ret) {
			/* a member's insn follows the check, which its leader's starts */
			if (e[k].ip <= e[k].ret) {
				fail(t, "audit: func %d: member insn %u at +0x%x, before its check's call returns (+0x%x)",
				     f, e[k].insn, e[k].ip, e[k].ret);
				return -1;
			}
			continue;
		}
		checks++;
		for (c = first; c < a->ncalls; c++)
			if (a->call[c].ret_off + skew == e[k].ret)
				break;
		if (c == a->ncalls) {
			fail(t, "audit: func %d: the table's check at +0x%x is no call in the image",
			     f, e[k].ret);
			return -1;
		}
	}
	if (checks != calls) {
		fail(t, "audit: func %d: %d calls in the image, %d checks in the table", f, calls,
		     checks);
		return -1;
	}
	a->ncalls = first;
	a->table = true;
	for (k = 0; k < n && a->ncalls < MAX_CALLS; k++) {
		a->call[a->ncalls].func = f;
		a->call[a->ncalls].ret_off = e[k].report - skew;
		a->call[a->ncalls].write = e[k].write;
		a->call[a->ncalls].size = e[k].size;
		a->call[a->ncalls].insn = e[k].insn;
		a->ncalls++;
	}
	return 0;
}

/*
 * Audit one program: every memory instruction of the verifier's final
 * program (xlated) that is not R10-based and not PROBE_* must carry a check
 * in the JITed image, and no R10-based one may.
 *
 * 6.12 exposes no map from BPF instruction to JITed offset
 * (jited_line_info has one address per source line, and only for programs
 * with BTF), so the audit counts, per program and per kind (load/store and
 * size): the memory instructions of xlated that must be checked, and the
 * checks in the image, that is the calls into __asan_{load,store}N
 * (outline) or __bpf_jit_kasan_{load,store}N (inline: every check has
 * exactly one such call on its slow path). Equal counts of every kind is
 * green: a missing check leaves a kind short, a check on an R10-based
 * access (whose kind xlated does not count) makes one over.
 *
 * The image is scanned for call rel32 (e8) at every byte; a call counts
 * when its target is exactly one of the sixteen entry points. A false hit
 * would need four bytes of other code to encode that exact displacement.
 * The return address of each call is kept, so that a report's +0x<off>
 * can be matched to a check of the right kind.
 */
static int audit(struct tcase *t, int fd, const struct exempt *ex)
{
	struct bjk_prog p;
	uint32_t i;
	int want[2][4] = {}, have[2][4] = {}, r10 = 0, probes = 0, ret = -1, f, w, s;
	int ret_tab = 0, size;
	const struct bjk_call *c;
	struct audit *a;
	bool write;
	char buf[256];

	if (t->naud == 3) {
		fail(t, "audit: too many programs");
		return -1;
	}
	a = &t->aud[t->naud];
	memset(a, 0, sizeof(*a));
	a->fd = fd;
	if (bjk_prog_get(fd, &p, BJK_PROG_XLATED)) {
		if (errno == ENOEXEC || errno == E2BIG)
			fail(t, "audit: not JITed (jited_prog_len %u, %u funcs)",
			     p.info.jited_prog_len, p.info.nr_jited_ksyms);
		else if (errno == ENOENT)
			fail(t, "audit: no jited_ksyms (bpf_jit_kallsyms off?)");
		else
			fail(t, "audit: bpf_prog_get_info_by_fd: %s", strerror(errno));
		goto out;
	}
	memcpy(a->name, p.info.name, sizeof(a->name));
	memcpy(a->tag, p.info.tag, sizeof(a->tag));
	a->nfuncs = p.nfuncs;
	memcpy(a->ksym, p.ksym, sizeof(p.ksym[0]) * a->nfuncs);
	memcpy(a->flen, p.flen, sizeof(p.flen[0]) * a->nfuncs);

	/* xlated: what must be checked */
	for (i = 0; i < p.ninsns; i++) {
		if (p.insns[i].code == (BPF_LD | BPF_IMM | BPF_DW)) {
			i++;
			continue;
		}
		switch (bjk_insn_access(&p.insns[i], &write, &size)) {
		case BJK_ACCESS_R10:
			r10++;
			break;
		case BJK_ACCESS_CHECKED:
			want[write][size_idx(size)]++;
			break;
		default:
			break;
		}
	}
	if (ex)
		for (w = 0; w < 2; w++)
			for (s = 0; s < 4; s++)
				want[w][s] -= ex->n[w][s];

	/* the image: the checks, function by function */
	for (c = p.calls, f = 0; f < a->nfuncs; f++) {
		int first = a->ncalls;

		for (; c < p.calls + p.ncalls && c->func == f; c++) {
			if (a->ncalls == MAX_CALLS)
				continue;
			a->call[a->ncalls].func = f;
			a->call[a->ncalls].ret_off = c->ret;
			a->call[a->ncalls].write = c->write;
			a->call[a->ncalls].size = c->size;
			a->call[a->ncalls].insn = -1;
			a->ncalls++;
		}
		if (audit_table(t, a, f, first) < 0)
			ret_tab = -1;
		probes += count_probe_guards(bjk_prog_func_img(&p, f), p.flen[f]);
	}
	for (f = 0; f < a->ncalls; f++)
		have[a->call[f].write][size_idx(a->call[f].size)]++;
	a->nchecks = p.ncalls;
	if (a->ncalls == MAX_CALLS)
		fail(t, "audit: more than %d checked accesses", MAX_CALLS);

	ret = ret_tab;
	buf[0] = '\0';
	for (w = 0; w < 2; w++)
		for (s = 0; s < 4; s++) {
			if (want[w][s] || have[w][s]) {
				size_t l = strlen(buf);

				snprintf(buf + l, sizeof(buf) - l, " %s %d/%d", kind_name(w, s),
					 have[w][s], want[w][s]);
			}
			if (want[w][s] != have[w][s])
				ret = -1;
		}
	note(t, "audit %s: %u insns, %d funcs, checks/needed:%s (%d accesses in %d checks); "
	     "R10-based %d; PROBE guards %d", a->name, p.ninsns, a->nfuncs, buf[0] ? buf : " none",
	     a->ncalls, a->nchecks, r10, probes);
	if (ret)
		fail(t, "audit %s: checks do not match the accesses (checks/needed:%s)", a->name, buf);
	if (ex && ex->probes >= 0 && probes != ex->probes) {
		fail(t, "audit %s: %d PROBE_MEM guards, want %d", a->name, probes, ex->probes);
		ret = -1;
	}
	t->naud++;
out:
	bjk_prog_free(&p);
	return ret;
}

/* ---- running and judging ------------------------------------------- */

static unsigned long last_addr(void)
{
	char buf[64] = "";
	int fd = open(LAST_ADDR, O_RDONLY);

	if (fd < 0)
		return 0;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = '\0';
	close(fd);
	return strtoul(buf, NULL, 0);
}

static void kmsg_mark(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fd = open("/dev/kmsg", O_WRONLY);
	if (fd < 0)
		return;
	(void)!write(fd, buf, n);
	close(fd);
}

/* Right before the run: the expect region, and kmsg from here on. */
static void arm(struct tcase *t)
{
	if (t->nexp)
		kmsg_mark("BJK-EXPECT-BEGIN %s %d", t->name, t->nexp);
	kmsg_skip();
	t->armed = true;
}

/* A dry run (dry_run()) runs no case: it counts them, or lists them (-l). */
static enum dry { DRY_NONE, DRY_COUNT, DRY_LIST } dry;

static bool tcase_begin(struct tcase *t, const char *name)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "h%d.%s", harden, name);
	if (filter && !strstr(t->name, filter))
		return false;
	if (dry) {
		if (dry == DRY_LIST)
			printf("%s\n", t->name);
		ncases++;
		return false;
	}
	return true;
}

/* After the run: read the reports, close the region, judge, print. */
static void tcase_end(struct tcase *t)
{
	struct bjk_report r[16];
	unsigned long base = 0;
	int n = 0, i;

	if (t->armed) {
		n = kmsg_reports(r, 16);
		base = last_addr();
		if (t->nexp) {
			/* the newline ends the record now: a reader sees it at once */
			kmsg_mark("BJK-EXPECT-END %s\n", t->name);
			bjk_decode_sync(t->name);
		}
	}
	if (t->armed && n != t->nexp)
		fail(t, "%d KASAN report(s), want %d", n, t->nexp);
	for (i = 0; t->armed && i < n && i < t->nexp; i++) {
		struct expect *e = &t->exp[i];
		struct bjk_report *g = &r[i];
		struct audit *a = e->prog < t->naud ? &t->aud[e->prog] : NULL;
		unsigned long want_addr = base + e->off;
		char sym[256] = "", tag[2 * BPF_TAG_SIZE + 1];
		int k;

		note(t, "report %d: %s in %s+0x%lx: %s of size %d at addr %lx", i + 1, g->bug,
		     g->sym, g->off, g->write ? "Write" : "Read", g->size, g->addr);
		if (strcmp(g->bug, e->bug))
			fail(t, "report %d: bug type %s, want %s", i + 1, g->bug, e->bug);
		if (g->write != e->write)
			fail(t, "report %d: %s, want %s", i + 1, g->write ? "Write" : "Read",
			     e->write ? "Write" : "Read");
		if (g->size != e->size)
			fail(t, "report %d: size %d, want %d", i + 1, g->size, e->size);
		if (g->addr != want_addr)
			fail(t, "report %d: addr %lx, want %lx (module's %lx %+ld)", i + 1, g->addr,
			     want_addr, base, e->off);
		if (e->stacks && !(g->alloc && g->freed))
			fail(t, "report %d: no allocation and free stacks", i + 1);
		if (!g->complete)
			fail(t, "report %d: no closing ===== line", i + 1);
		if (!a) {
			fail(t, "report %d: program %d not audited", i + 1, e->prog);
			continue;
		}
		/* bpf_prog_<tag>_<name>: the tag and name of bpf_prog_info, and the
		 * kallsyms symbol of the function (subprograms have their own).
		 */
		for (k = 0; k < BPF_TAG_SIZE; k++)
			sprintf(tag + 2 * k, "%02x", a->tag[k]);
		if (e->func == 0)	/* (the suite's names fit in info.name) */
			snprintf(sym, sizeof(sym), "bpf_prog_%s_%s", tag, a->name);
		else if (e->func < a->nfuncs)
			ksym_name(a->ksym[e->func], sym, sizeof(sym));
		if (!sym[0] || strcmp(g->sym, sym)) {
			fail(t, "report %d: in %s, want %s", i + 1, g->sym, sym[0] ? sym : "?");
			continue;
		}
		/* +0x<off>: where a check of this very access kind reports */
		for (k = 0; k < a->ncalls; k++)
			if (a->call[k].func == e->func && a->call[k].ret_off == g->off &&
			    a->call[k].write == e->write && a->call[k].size == e->size)
				break;
		if (k == a->ncalls)
			fail(t, "report %d: +0x%lx is not where a %s check of the program reports", i + 1,
			     g->off, kind_name(e->write, size_idx(e->size)));
		if (t->nseen < 8) {
			struct seen *v = &t->seen[t->nseen++];

			snprintf(v->bug, sizeof(v->bug), "%s", g->bug);
			v->write = g->write;
			v->size = g->size;
			v->off = (long)(g->addr - base);
			v->insn = k < a->ncalls ? a->call[k].insn : -1;
		}
	}
	/* The same reports, in the same order, as the twin run's */
	if (t->twin && t->armed) {
		const struct tcase *o = t->twin;

		if (t->nseen != o->nseen)
			fail(t, "%d report(s), the run with merging off had %d", t->nseen, o->nseen);
		for (i = 0; i < t->nseen && i < o->nseen; i++) {
			const struct seen *a = &t->seen[i], *b = &o->seen[i];

			/* (outline checks have no table: no insn to compare) */
			if (strcmp(a->bug, b->bug) || a->write != b->write || a->size != b->size ||
			    a->off != b->off || a->insn != b->insn ||
			    (a->insn < 0 && t->naud && t->aud[0].table))
				fail(t, "report %d: %s %s %d at %+ld insn %d; merging off: %s %s %d at "
				     "%+ld insn %d", i + 1, a->bug, a->write ? "Write" : "Read", a->size,
				     a->off, a->insn, b->bug, b->write ? "Write" : "Read", b->size,
				     b->off, b->insn);
		}
	}
	t->num = ++ncases;
	if (t->why[0]) {
		nfail++;
		bjk_out("not ok %d %s # %s", t->num, t->name, t->why);
	} else {
		npass++;
		bjk_out("ok %d %s", t->num, t->name);
	}
}

static int test_run(struct tcase *t, int fd, void *ctx, uint32_t ctx_len, void *data,
		    uint32_t data_len, uint32_t *retval)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = ctx, .ctx_size_in = ctx_len,
		    .data_in = data, .data_size_in = data_len);
	int err = bpf_prog_test_run_opts(fd, &o);

	if (err) {
		fail(t, "BPF_PROG_TEST_RUN: %s", strerror(errno));
		return -1;
	}
	*retval = o.retval;
	return 0;
}

/* A packet for tc programs: Ethernet + IPv4 header, zeros elsewhere. */
static uint8_t pkt[64] = {
	[12] = 0x08, [13] = 0x00, [14] = 0x45, [16] = 0x00, [17] = 50, [22] = 64,
	[23] = 17,
};

/* ---- raw programs ---------------------------------------------------- */

static char vlog[65536];
static int mod_btf_fd = -1;
static struct btf *mod_btf;

static void module_btf(void)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	uint32_t id = 0;

	if (!vmlinux) {
		bjk_out("# vmlinux BTF: %s", strerror(errno));
		exit(2);
	}
	while (!bpf_btf_get_next_id(id, &id)) {
		char name[64] = "";
		struct bpf_btf_info info = { .name = (uint64_t)(unsigned long)name,
					     .name_len = sizeof(name) };
		uint32_t len = sizeof(info);
		int fd = bpf_btf_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (!bpf_btf_get_info_by_fd(fd, &info, &len) && !strcmp(name, MODULE_NAME)) {
			mod_btf_fd = fd;
			mod_btf = btf__load_from_kernel_by_id_split(id, vmlinux);
			break;
		}
		close(fd);
	}
	if (mod_btf_fd < 0 || !mod_btf) {
		bjk_out("# module BTF of %s not found (module not loaded?)", MODULE_NAME);
		exit(2);
	}
}

static int kfunc_id(const char *name)
{
	int id = btf__find_by_name_kind(mod_btf, name, BTF_KIND_FUNC);

	if (id < 0) {
		bjk_out("# kfunc %s not in the module's BTF", name);
		exit(2);
	}
	return id;
}

#define INSN(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
						 .off = (o), .imm = (i) })
#define MOV64_IMM(d, i)		INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define MOV64_REG(d, s)		INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define ALU64_IMM(op, d, i)	INSN(BPF_ALU64 | (op) | BPF_K, d, 0, 0, i)
#define ALU64_REG(op, d, s)	INSN(BPF_ALU64 | (op) | BPF_X, d, s, 0, 0)
#define ALU32_IMM(op, d, i)	INSN(BPF_ALU | (op) | BPF_K, d, 0, 0, i)
#define LDX(sz, d, s, o)	INSN(BPF_LDX | (sz) | BPF_MEM, d, s, o, 0)
#define LDXSX(sz, d, s, o)	INSN(BPF_LDX | (sz) | 0x80, d, s, o, 0)
#define STX(sz, d, s, o)	INSN(BPF_STX | (sz) | BPF_MEM, d, s, o, 0)
#define ST(sz, d, o, i)		INSN(BPF_ST | (sz) | BPF_MEM, d, 0, o, i)
#define ATOMIC(sz, op, d, s, o)	INSN(BPF_STX | (sz) | BPF_ATOMIC, d, s, o, op)
#define JEQ_IMM(d, i, o)	INSN(BPF_JMP | BPF_JEQ | BPF_K, d, 0, o, i)
#define JNE_IMM(d, i, o)	INSN(BPF_JMP | BPF_JNE | BPF_K, d, 0, o, i)
#define JA(o)			INSN(BPF_JMP | BPF_JA, 0, 0, o, 0)
#define KCALL(id)		INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 1, id)
#define EXIT()			INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

struct prog {
	struct bpf_insn i[128];
	int n;
};

static void emit(struct prog *p, struct bpf_insn insn)
{
	p->i[p->n++] = insn;
}

static void emit_ld64(struct prog *p, int reg, uint64_t v)
{
	emit(p, INSN(BPF_LD | BPF_IMM | BPF_DW, reg, 0, 0, (int32_t)(uint32_t)v));
	emit(p, INSN(0, 0, 0, 0, (int32_t)(uint32_t)(v >> 32)));
}

static int load_raw(struct tcase *t, enum bpf_prog_type type, const char *name,
		    struct prog *p, uint32_t flags)
{
	int fds[2] = { -1, mod_btf_fd };
	LIBBPF_OPTS(bpf_prog_load_opts, o, .log_buf = vlog, .log_size = sizeof(vlog),
		    .log_level = 1, .fd_array = fds, .prog_flags = flags);
	int fd;

	if (type == BPF_PROG_TYPE_SYSCALL)
		o.prog_flags |= BPF_F_SLEEPABLE;
	vlog[0] = '\0';
	fd = bpf_prog_load(type, name, "GPL", p->i, p->n, &o);
	if (fd < 0) {
		char *l = vlog, *nl;
		int k = 0;

		fail(t, "load %s: %s", name, strerror(errno));
		/* the last lines of the verifier log */
		for (nl = vlog; (nl = strchr(nl, '\n')); nl++)
			k++;
		for (nl = vlog; k > 12 && (nl = strchr(l, '\n')); k--)
			l = nl + 1;
		while (*l) {
			nl = strchr(l, '\n');
			if (nl)
				*nl = '\0';
			note(t, "  verifier: %s", l);
			if (!nl)
				break;
			l = nl + 1;
		}
	}
	return fd;
}

/* ---- the class and size matrix --------------------------------------- */

enum op { OP_LDX, OP_LDXSX, OP_ST, OP_STX, OP_ATOMIC };

struct mcase {
	const char *name;
	enum op op;
	int size;		/* bytes */
	int aop;		/* atomic op (imm) */
};

#define AT(n, op) { n "4", OP_ATOMIC, 4, op }, { n "8", OP_ATOMIC, 8, op }
static const struct mcase matrix[] = {
	{ "ldx1", OP_LDX, 1 }, { "ldx2", OP_LDX, 2 }, { "ldx4", OP_LDX, 4 }, { "ldx8", OP_LDX, 8 },
	{ "ldxsx1", OP_LDXSX, 1 }, { "ldxsx2", OP_LDXSX, 2 }, { "ldxsx4", OP_LDXSX, 4 },
	{ "st1", OP_ST, 1 }, { "st2", OP_ST, 2 }, { "st4", OP_ST, 4 }, { "st8", OP_ST, 8 },
	{ "stx1", OP_STX, 1 }, { "stx2", OP_STX, 2 }, { "stx4", OP_STX, 4 }, { "stx8", OP_STX, 8 },
	AT("add", BPF_ADD), AT("add_fetch", BPF_ADD | BPF_FETCH),
	AT("and", BPF_AND), AT("and_fetch", BPF_AND | BPF_FETCH),
	AT("or", BPF_OR), AT("or_fetch", BPF_OR | BPF_FETCH),
	AT("xor", BPF_XOR), AT("xor_fetch", BPF_XOR | BPF_FETCH),
	AT("xchg", BPF_XCHG), AT("cmpxchg", BPF_CMPXCHG),
};
#define NMATRIX (int)(sizeof(matrix) / sizeof(matrix[0]))

static int bpf_size(int size)
{
	return size == 1 ? BPF_B : size == 2 ? BPF_H : size == 4 ? BPF_W : BPF_DW;
}

#define MX_V	0x8182838485868788ULL	/* the slot's value before the access */
#define MX_S	0x00000000f00f0ff1ULL	/* the source register */
#define MX_IMM	0x11			/* ST's immediate */
#define MX_OFF	16			/* the access's offset in the region */

static uint64_t mask(int size)
{
	return size == 8 ? ~0ULL : (1ULL << (8 * size)) - 1;
}

/*
 * What the program returns: (slot after the run) ^ (register result of the
 * access), folded to 32 bits. Proves that the check changed no register.
 */
static uint32_t matrix_result(const struct mcase *m)
{
	uint64_t mem = MX_V, reg = 0, old, lo, src = MX_S, mk = mask(m->size), v;

	switch (m->op) {
	case OP_LDX:
		reg = MX_V & mk;
		break;
	case OP_LDXSX:
		reg = (uint64_t)(((int64_t)(MX_V << (64 - 8 * m->size))) >> (64 - 8 * m->size));
		break;
	case OP_ST:
		mem = (MX_V & ~mk) | ((uint64_t)MX_IMM & mk);
		break;
	case OP_STX:
		mem = (MX_V & ~mk) | (MX_S & mk);
		break;
	case OP_ATOMIC:
		old = lo = MX_V & mk;
		switch (m->aop & ~BPF_FETCH) {
		case BPF_ADD: v = lo + src; break;
		case BPF_AND: v = lo & src; break;
		case BPF_OR: v = lo | src; break;
		case BPF_XOR: v = lo ^ src; break;
		case BPF_XCHG & ~BPF_FETCH: v = src; break;
		default: /* cmpxchg: r0 holds MX_V, so it always matches */
			v = src; break;
		}
		mem = (MX_V & ~mk) | (v & mk);
		if (m->aop & BPF_FETCH)
			reg = old;
		break;
	}
	v = mem ^ reg;
	return (uint32_t)(v ^ (v >> 32));
}

enum where { HEAP, STACK_R10, STACK_PTR };
static const char *const where_name[] = { "heap", "stack_r10", "stack_ptr" };

/*
 *	heap:      r6 = bjk_buf(64)        stack: r6 = r10 - 64 (slots zeroed)
 *	r7 = MX_V; *(u64 *)(B + 16) = r7	(B: r6 on the heap, r10 - 64 on the stack)
 *	bjk_poison(r6, 64)
 *	r7 = MX_S; r0 = MX_V; r8 = 0
 *	<the access at B + 16>		(stack_ptr: through r6, proved stack-only)
 *	r8 = <its register result>
 *	bjk_unpoison(r6, 64)
 *	r0 = *(u64 *)(B + 16) ^ r8, folded to 32 bits
 */
static void build_matrix(struct prog *p, const struct mcase *m, enum where w)
{
	int sz = bpf_size(m->size), areg = w == STACK_PTR ? BPF_REG_6 : w == HEAP ? BPF_REG_6 :
		 BPF_REG_10;
	int aoff = w == STACK_R10 ? -64 + MX_OFF : MX_OFF;
	int breg = w == HEAP ? BPF_REG_6 : BPF_REG_10, boff = w == HEAP ? MX_OFF : -64 + MX_OFF;
	int k;

	p->n = 0;
	if (w == HEAP) {
		emit(p, MOV64_IMM(BPF_REG_1, 64));
		emit(p, KCALL(kfunc_id("bjk_buf")));
		emit(p, JNE_IMM(BPF_REG_0, 0, 2));
		emit(p, MOV64_IMM(BPF_REG_0, -1));
		emit(p, EXIT());
		emit(p, MOV64_REG(BPF_REG_6, BPF_REG_0));
	} else {
		for (k = 1; k <= 8; k++)
			emit(p, ST(BPF_DW, BPF_REG_10, -8 * k, 0));
		emit(p, MOV64_REG(BPF_REG_6, BPF_REG_10));
		emit(p, ALU64_IMM(BPF_ADD, BPF_REG_6, -64));
	}
	emit_ld64(p, BPF_REG_7, MX_V);
	emit(p, STX(BPF_DW, breg, BPF_REG_7, boff));
	emit(p, MOV64_REG(BPF_REG_1, BPF_REG_6));
	emit(p, MOV64_IMM(BPF_REG_2, 64));
	emit(p, KCALL(kfunc_id("bjk_poison")));
	emit_ld64(p, BPF_REG_7, MX_S);
	emit_ld64(p, BPF_REG_0, MX_V);
	emit(p, MOV64_IMM(BPF_REG_8, 0));
	switch (m->op) {
	case OP_LDX:
		emit(p, LDX(sz, BPF_REG_8, areg, aoff));
		break;
	case OP_LDXSX:
		emit(p, LDXSX(sz, BPF_REG_8, areg, aoff));
		break;
	case OP_ST:
		emit(p, ST(sz, areg, aoff, MX_IMM));
		break;
	case OP_STX:
		emit(p, STX(sz, areg, BPF_REG_7, aoff));
		break;
	case OP_ATOMIC:
		emit(p, ATOMIC(sz, m->aop, areg, BPF_REG_7, aoff));
		if (m->aop == BPF_CMPXCHG)
			emit(p, MOV64_REG(BPF_REG_8, BPF_REG_0));
		else if (m->aop & BPF_FETCH)
			emit(p, MOV64_REG(BPF_REG_8, BPF_REG_7));
		break;
	}
	emit(p, MOV64_REG(BPF_REG_1, BPF_REG_6));
	emit(p, MOV64_IMM(BPF_REG_2, 64));
	emit(p, KCALL(kfunc_id("bjk_unpoison")));
	emit(p, LDX(BPF_DW, BPF_REG_0, breg, boff));
	emit(p, ALU64_REG(BPF_XOR, BPF_REG_0, BPF_REG_8));
	emit(p, MOV64_REG(BPF_REG_1, BPF_REG_0));
	emit(p, ALU64_IMM(BPF_RSH, BPF_REG_1, 32));
	emit(p, ALU64_REG(BPF_XOR, BPF_REG_0, BPF_REG_1));
	emit(p, EXIT());
}

static void case_matrix(const struct mcase *m, enum where w)
{
	struct tcase t;
	struct prog p;
	struct exempt ex = { .probes = 0 };
	char name[64];
	uint32_t ret;
	int fd;

	snprintf(name, sizeof(name), "matrix.%s.%s", where_name[w], m->name);
	if (!tcase_begin(&t, name))
		return;
	build_matrix(&p, m, w);
	snprintf(name, sizeof(name), "mx_%s", m->name);
	fd = load_raw(&t, BPF_PROG_TYPE_SYSCALL, name, &p, 0);
	if (fd < 0)
		goto out;
	/* proved stack-only through r6: must not be checked */
	if (w == STACK_PTR)
		ex.n[m->op != OP_LDX && m->op != OP_LDXSX][size_idx(m->size)] = 1;
	audit(&t, fd, &ex);
	if (w == HEAP)
		expect(&t, 0, 0, POISON_BUG, m->op != OP_LDX && m->op != OP_LDXSX, m->size,
		       MX_OFF);
	arm(&t);
	if (!test_run(&t, fd, NULL, 0, NULL, 0, &ret) && ret != matrix_result(m))
		fail(&t, "result %#x, want %#x", ret, matrix_result(m));
	tcase_end(&t);
	close(fd);
	return;
out:
	tcase_end(&t);
}

/* ---- more raw cases ---------------------------------------------------- */

/* Heap region prologue: r6 = bjk_buf(64), else return -1. */
static void heap_prologue(struct prog *p)
{
	emit(p, MOV64_IMM(BPF_REG_1, 64));
	emit(p, KCALL(kfunc_id("bjk_buf")));
	emit(p, JNE_IMM(BPF_REG_0, 0, 2));
	emit(p, MOV64_IMM(BPF_REG_0, -1));
	emit(p, EXIT());
	emit(p, MOV64_REG(BPF_REG_6, BPF_REG_0));
}

static void poison_call(struct prog *p, bool poison, int reg, int off, int len)
{
	emit(p, MOV64_REG(BPF_REG_1, reg));
	if (off)
		emit(p, ALU64_IMM(BPF_ADD, BPF_REG_1, off));
	emit(p, MOV64_IMM(BPF_REG_2, len));
	emit(p, KCALL(kfunc_id(poison ? "bjk_poison" : "bjk_unpoison")));
}

/*
 * Unaligned and granule-crossing accesses, which the inline check sends
 * to its slow path: the report still has the access's own address.
 *   off/size: the access; poff/plen: the poisoned part of the 64 bytes.
 */
static void case_unaligned(const char *name, bool write, int size, int off, int poff, int plen,
			   int nrep)
{
	struct tcase t;
	struct prog p = { .n = 0 };
	uint32_t ret;
	int fd;

	if (!tcase_begin(&t, name))
		return;
	heap_prologue(&p);
	poison_call(&p, true, BPF_REG_6, poff, plen);
	if (write)
		emit(&p, ST(bpf_size(size), BPF_REG_6, off, 0x22));
	else
		emit(&p, LDX(bpf_size(size), BPF_REG_7, BPF_REG_6, off));
	poison_call(&p, false, BPF_REG_6, 0, 64);
	emit(&p, MOV64_IMM(BPF_REG_0, 0));
	emit(&p, EXIT());
	fd = load_raw(&t, BPF_PROG_TYPE_SYSCALL, "unaligned", &p, 0);
	if (fd < 0)
		goto out;
	audit(&t, fd, NULL);
	if (nrep)
		expect(&t, 0, 0, POISON_BUG, write, size, off - poff);
	arm(&t);
	test_run(&t, fd, NULL, 0, NULL, 0, &ret);
	tcase_end(&t);
	close(fd);
	return;
out:
	tcase_end(&t);
}

/*
 * One instruction that sees a stack pointer on one path and the module's
 * buffer on another (the ctx's first word picks the path at run time):
 * any state with a non-stack pointer makes it checked. On the stack path
 * the stack is not poisoned: no report.
 */
static void case_merge(bool heap)
{
	struct tcase t;
	struct prog p = { .n = 0 };
	uint32_t ret, ctx[2] = { heap, 0 };
	int fd, k;

	if (!tcase_begin(&t, heap ? "path.merge.heap" : "path.merge.stack"))
		return;
	emit(&p, LDX(BPF_W, BPF_REG_9, BPF_REG_1, 0));
	for (k = 1; k <= 8; k++)
		emit(&p, ST(BPF_DW, BPF_REG_10, -8 * k, 0));
	emit(&p, MOV64_REG(BPF_REG_6, BPF_REG_10));
	emit(&p, ALU64_IMM(BPF_ADD, BPF_REG_6, -64));
	emit(&p, JEQ_IMM(BPF_REG_9, 0, 9));	/* to the access, r6 on the stack */
	emit(&p, MOV64_IMM(BPF_REG_1, 64));
	emit(&p, KCALL(kfunc_id("bjk_buf")));
	emit(&p, JNE_IMM(BPF_REG_0, 0, 2));
	emit(&p, MOV64_IMM(BPF_REG_0, -1));
	emit(&p, EXIT());
	emit(&p, MOV64_REG(BPF_REG_6, BPF_REG_0));
	emit(&p, MOV64_REG(BPF_REG_1, BPF_REG_6));
	emit(&p, MOV64_IMM(BPF_REG_2, 64));
	emit(&p, KCALL(kfunc_id("bjk_poison")));
	emit(&p, STX(BPF_DW, BPF_REG_6, BPF_REG_9, 24));	/* the access */
	emit(&p, JEQ_IMM(BPF_REG_9, 0, 4));
	emit(&p, MOV64_REG(BPF_REG_1, BPF_REG_6));
	emit(&p, MOV64_IMM(BPF_REG_2, 64));
	emit(&p, KCALL(kfunc_id("bjk_unpoison")));
	emit(&p, MOV64_IMM(BPF_REG_0, 0));
	emit(&p, MOV64_IMM(BPF_REG_0, 3));
	emit(&p, EXIT());
	fd = load_raw(&t, BPF_PROG_TYPE_SYSCALL, "merge", &p, 0);
	if (fd < 0)
		goto out;
	audit(&t, fd, NULL);
	if (heap)
		expect(&t, 0, 0, POISON_BUG, true, 8, 24);
	arm(&t);
	if (!test_run(&t, fd, ctx, sizeof(ctx), NULL, 0, &ret) && ret != 3)
		fail(&t, "result %u, want 3", ret);
	tcase_end(&t);
	close(fd);
	return;
out:
	tcase_end(&t);
}

/*
 * BPF_F_TEST_RND_HI32: the verifier patches every 32-bit definition whose
 * upper half nobody reads with insns that randomize that half; a load so
 * patched keeps its check, and so does the store after it.
 */
static void case_rnd_hi32(void)
{
	struct tcase t;
	struct prog p = { .n = 0 };
	uint32_t ret;
	int fd;

	if (!tcase_begin(&t, "path.rnd_hi32"))
		return;
	heap_prologue(&p);
	emit(&p, ST(BPF_W, BPF_REG_6, 16, 41));
	poison_call(&p, true, BPF_REG_6, 0, 64);
	emit(&p, LDX(BPF_W, BPF_REG_7, BPF_REG_6, 16));	/* Read 4 at +16 */
	emit(&p, ALU32_IMM(BPF_ADD, BPF_REG_7, 1));
	emit(&p, STX(BPF_W, BPF_REG_6, BPF_REG_7, 20));	/* Write 4 at +20 */
	emit(&p, LDX(BPF_H, BPF_REG_8, BPF_REG_6, 20));	/* Read 2 at +20 */
	poison_call(&p, false, BPF_REG_6, 0, 64);
	emit(&p, MOV64_REG(BPF_REG_0, BPF_REG_8));
	emit(&p, EXIT());
	fd = load_raw(&t, BPF_PROG_TYPE_SYSCALL, "rnd_hi32", &p, BPF_F_TEST_RND_HI32);
	if (fd < 0)
		goto out;
	audit(&t, fd, NULL);
	expect(&t, 0, 0, POISON_BUG, false, 4, 16);
	expect(&t, 0, 0, POISON_BUG, true, 4, 20);
	expect(&t, 0, 0, POISON_BUG, false, 2, 20);
	arm(&t);
	if (!test_run(&t, fd, NULL, 0, NULL, 0, &ret) && ret != 42)
		fail(&t, "result %u, want 42", ret);
	tcase_end(&t);
	close(fd);
	return;
out:
	tcase_end(&t);
}

/* ---- classic BPF ------------------------------------------------------- */

/*
 * A classic socket filter (no verifier: only R10-based accesses are
 * stack-only): keeps datagrams whose first byte is 'A' and whose length is
 * over 3, using the scratch memory M[]. Runs with no report.
 */
static void case_cbpf(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),		/* A = skb->len */
		BPF_STMT(BPF_ST, 0),				/* M[0] = A */
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0),		/* A = pkt[0] */
		BPF_STMT(BPF_ST, 1),				/* M[1] = A */
		BPF_STMT(BPF_LD | BPF_W | BPF_MEM, 0),		/* A = M[0] */
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 3, 0, 4),	/* len > 3? */
		BPF_STMT(BPF_LD | BPF_W | BPF_MEM, 1),		/* A = M[1] */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 'A', 1, 0),
		BPF_STMT(BPF_RET | BPF_K, 0),
		BPF_STMT(BPF_RET | BPF_K, 0xffff),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog fp = { .len = sizeof(code) / sizeof(code[0]), .filter = code };
	struct tcase t;
	int sv[2], got = 0, dropped = 0;
	char buf[16];

	if (!tcase_begin(&t, "cbpf.socket_filter"))
		return;
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv)) {
		fail(&t, "socketpair: %s", strerror(errno));
		goto out;
	}
	if (setsockopt(sv[1], SOL_SOCKET, SO_ATTACH_FILTER, &fp, sizeof(fp))) {
		fail(&t, "SO_ATTACH_FILTER: %s", strerror(errno));
		goto close;
	}
	note(&t, "audit: none (a classic filter has no program fd)");
	arm(&t);
	if (send(sv[0], "Abcd", 4, 0) != 4 || send(sv[0], "Bbcd", 4, 0) != 4 ||
	    send(sv[0], "Ab", 2, 0) != 2 || send(sv[0], "Axyz", 4, 0) != 4)
		fail(&t, "send: %s", strerror(errno));
	while (recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT) > 0) {
		if (buf[0] == 'A')
			got++;
		else
			dropped++;
	}
	if (got != 2 || dropped)
		fail(&t, "filter kept %d datagrams (%d wrong), want 2", got + dropped, dropped);
close:
	close(sv[0]);
	close(sv[1]);
out:
	tcase_end(&t);
}

/* ---- C programs (progs/e2e.bpf.c) ---------------------------------------- */

/* The BPF object, opened (not loaded); NULL with errno set. */
static struct bpf_object *obj_open(const struct bpf_object_open_opts *oo)
{
	if (obj_path)
		return bpf_object__open_file(obj_path, oo);
	return bpf_object__open_mem(bjk_bpf_obj, bjk_bpf_obj_end - bjk_bpf_obj, oo);
}

/* Open the object with only the named programs loaded. */
static struct bpf_object *obj_load(struct tcase *t, const char *const *progs)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .kernel_log_buf = vlog,
		    .kernel_log_size = sizeof(vlog), .kernel_log_level = 1);
	struct bpf_object *o;
	struct bpf_program *p;
	int k, err;

	vlog[0] = '\0';
	o = obj_open(&oo);
	if (!o) {
		fail(t, "open BPF object: %s", strerror(errno));
		return NULL;
	}
	bpf_object__for_each_program(p, o) {
		bool want = false;

		for (k = 0; progs[k]; k++)
			if (!strcmp(bpf_program__name(p), progs[k]))
				want = true;
		bpf_program__set_autoload(p, want);
	}
	err = bpf_object__load(o);
	if (err) {
		char *l = vlog, *nl;
		int lines = 0;

		fail(t, "load %s: %s", progs[0], strerror(-err));
		for (nl = vlog; (nl = strchr(nl, '\n')); nl++)
			lines++;
		for (; lines > 12 && (nl = strchr(l, '\n')); lines--)
			l = nl + 1;
		while (*l) {
			nl = strchr(l, '\n');
			if (nl)
				*nl = '\0';
			note(t, "  verifier: %s", l);
			if (!nl)
				break;
			l = nl + 1;
		}
		bpf_object__close(o);
		return NULL;
	}
	return o;
}

static int prog_fd(struct bpf_object *o, const char *name)
{
	return bpf_program__fd(bpf_object__find_program_by_name(o, name));
}

/* out[] of the object (its .bss) */
static int read_out(struct tcase *t, struct bpf_object *o, uint64_t *vals)
{
	struct bpf_map *m;
	uint32_t k = 0;
	char buf[256];

	bpf_object__for_each_map(m, o)
		if (strstr(bpf_map__name(m), ".bss"))
			break;
	if (!m || bpf_map_lookup_elem(bpf_map__fd(m), &k, buf)) {
		fail(t, "read .bss: %s", strerror(errno));
		return -1;
	}
	memcpy(vals, buf, 8 * sizeof(uint64_t));
	return 0;
}

/*
 * A case of a C program, as the BTF decl tags on the program say
 * (progs/bjk-tags.h, which documents each). The runner has no table of
 * them: plan_load() builds the list from the object before anything runs.
 */
struct cmap {
	char *map;
	uint32_t key;
	uint32_t val;		/* the value's first u32 (map_u32) */
	char *prog;		/* or: the fd of this program (map_prog) */
};

struct ccase {
	uint32_t func;		/* BTF id of the program's FUNC */
	char *name;		/* the case (__bjk_case, __bjk_merge_case) */
	char *prog;		/* the tagged program */
	bool merge;		/* run with merging off, then on */
	bool merges;		/* merging on: fewer checks than accesses */
	bool attach;		/* attach the program before the run */
	char *run;		/* the program run instead of prog, or NULL */
	char *audit2;		/* a second program audited, or NULL */
	struct cmap map[2];
	int nmap;
	bool has_retval;	/* no tag: the result is not checked */
	int retval;
	struct exempt ex;	/* probes 0 unless a tag says otherwise */
	int nexp;
	struct expect exp[8];
	bool has_out[8];
	uint64_t outv[8];
};

#define MAX_CCASES	64
static struct ccase cplan[MAX_CCASES];
static int ncplan;

/* A fault of the object's tags: the suite cannot run as written. */
static void plan_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void plan_die(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	bjk_out("# e2e: BPF object's tags: %s", buf);
	exit(2);
}

static bool rw_word(const char *w, bool *write)
{
	*write = !strcmp(w, "write");
	return *write || !strcmp(w, "read");
}

static bool size_ok(int size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

/* The value of "@key=..." in @tag, or NULL. */
static const char *tag_val(const char *tag, const char *key)
{
	size_t n = strlen(key);

	return !strncmp(tag, key, n) && tag[n] == '=' ? tag + n + 1 : NULL;
}

/* "BUG read|write SIZE OFF [func=N] [prog=N] [stacks]" */
static int tag_report(struct ccase *c, const char *v)
{
	char bug[64], rw[8], opts[128] = "", *w, *save;
	struct expect *e;
	int size;
	long off;

	if (c->nexp == (int)(sizeof(c->exp) / sizeof(c->exp[0])) ||
	    sscanf(v, "%63s %7s %d %ld %127[^\n]", bug, rw, &size, &off, opts) < 4)
		return -1;
	e = &c->exp[c->nexp++];
	memset(e, 0, sizeof(*e));
	if (!rw_word(rw, &e->write) || !size_ok(size))
		return -1;
	e->bug = strdup(bug);
	e->size = size;
	e->off = off;
	for (w = strtok_r(opts, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (sscanf(w, "func=%d", &e->func) == 1 && e->func >= 0)
			continue;
		if (sscanf(w, "prog=%d", &e->prog) == 1 && e->prog >= 0 && e->prog <= 1)
			continue;
		if (!strcmp(w, "stacks")) {
			e->stacks = true;
			continue;
		}
		return -1;
	}
	return 0;
}

/* One "bjk:" tag (without the prefix) of case @c. -1: not understood. */
static int tag_parse(struct ccase *c, const char *tag)
{
	char a[64], b[64], rw[8];
	const char *v;
	int i, n, size;
	char *end;

	if ((v = tag_val(tag, "case")) || (v = tag_val(tag, "merge_case"))) {
		if (c->name || !*v)
			return -1;
		c->name = strdup(v);
		c->merge = tag[0] == 'm';
	} else if (!strcmp(tag, "merges")) {
		c->merges = true;
	} else if (!strcmp(tag, "attach")) {
		c->attach = true;
	} else if ((v = tag_val(tag, "report"))) {
		return tag_report(c, v);
	} else if ((v = tag_val(tag, "retval"))) {
		c->retval = strtol(v, &end, 0);
		c->has_retval = true;
		return *v && !*end ? 0 : -1;
	} else if ((v = tag_val(tag, "out"))) {
		if (sscanf(v, "%d %n", &i, &n) != 1 || i < 0 || i >= 8 || !v[n])
			return -1;
		c->outv[i] = strtoull(v + n, &end, 0);
		c->has_out[i] = true;
		return *end ? -1 : 0;
	} else if ((v = tag_val(tag, "unchecked"))) {
		bool write;

		if (sscanf(v, "%7s %d %d", rw, &size, &n) != 3 || !rw_word(rw, &write) ||
		    !size_ok(size) || n < 0)
			return -1;
		c->ex.n[write][size_idx(size)] = n;
	} else if ((v = tag_val(tag, "probes"))) {
		c->ex.probes = strtol(v, &end, 0);
		return *v && !*end ? 0 : -1;
	} else if ((v = tag_val(tag, "audit"))) {
		if (c->audit2)
			return -1;
		c->audit2 = strdup(v);
	} else if ((v = tag_val(tag, "run"))) {
		if (c->run)
			return -1;
		c->run = strdup(v);
	} else if ((v = tag_val(tag, "map_u32")) || (v = tag_val(tag, "map_prog"))) {
		struct cmap *m = &c->map[c->nmap];
		uint32_t key;

		if (c->nmap == (int)(sizeof(c->map) / sizeof(c->map[0])) ||
		    sscanf(v, "%63s %u %63s", a, &key, b) != 3)
			return -1;
		m->map = strdup(a);
		m->key = key;
		if (tag_val(tag, "map_prog")) {
			m->prog = strdup(b);
		} else {
			m->val = strtoul(b, &end, 0);
			if (*end)
				return -1;
		}
		c->nmap++;
	} else {
		return -1;
	}
	return 0;
}

/* Does a case load program @name (as its own, or as a companion)? */
static bool plan_loads(const char *name)
{
	int k, m;

	for (k = 0; k < ncplan; k++) {
		const struct ccase *c = &cplan[k];

		if (!strcmp(c->prog, name) || (c->run && !strcmp(c->run, name)) ||
		    (c->audit2 && !strcmp(c->audit2, name)))
			return true;
		for (m = 0; m < c->nmap; m++)
			if (c->map[m].prog && !strcmp(c->map[m].prog, name))
				return true;
	}
	return false;
}

/*
 * The C cases: every "bjk:" decl tag of the object's BTF, each on the FUNC
 * of a program (component_idx -1). The cases come in the order of their
 * FUNCs in the BTF, which is the order of the programs in e2e.bpf.c. A
 * program with no case tag must be another case's companion; any other
 * stops the runner, as does a tag it cannot read: a case quietly lost
 * would only show as a smaller plan.
 */
static void plan_load(void)
{
	struct bpf_object *o = obj_open(NULL);
	struct bpf_program *p;
	const struct btf *btf;
	uint32_t id, n;
	int k, j;

	if (!o)
		plan_die("open BPF object: %s", strerror(errno));
	btf = bpf_object__btf(o);
	if (!btf)
		plan_die("no BTF");
	n = btf__type_cnt(btf);
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id), *f;
		const char *tag = btf__name_by_offset(btf, t->name_off), *fname;
		struct ccase *c = NULL;

		if (!btf_is_decl_tag(t) || strncmp(tag, "bjk:", 4))
			continue;
		f = btf__type_by_id(btf, t->type);
		if (btf_decl_tag(t)->component_idx != -1 || !f || !btf_is_func(f))
			plan_die("\"%s\" is not on a function", tag);
		fname = btf__name_by_offset(btf, f->name_off);
		if (!bpf_object__find_program_by_name(o, fname))
			plan_die("\"%s\" is on %s, which is no program", tag, fname);
		for (k = 0; k < ncplan; k++)
			if (cplan[k].func == t->type)
				c = &cplan[k];
		if (!c) {
			if (ncplan == MAX_CCASES)
				plan_die("more than %d tagged programs", MAX_CCASES);
			c = &cplan[ncplan++];
			c->func = t->type;
			c->prog = strdup(fname);
		}
		if (tag_parse(c, tag + 4))
			plan_die("%s: cannot read \"%s\"", fname, tag);
	}
	for (k = 0; k < ncplan; k++) {
		const struct ccase *c = &cplan[k];
		const char *comp[4] = { c->run, c->audit2, c->map[0].prog, c->map[1].prog };

		if (!c->name)
			plan_die("%s has tags but no __bjk_case", c->prog);
		for (j = 0; j < k; j++)
			if (!strcmp(cplan[j].name, c->name))
				plan_die("two cases named %s", c->name);
		for (j = 0; j < 4; j++)
			if (comp[j] && !bpf_object__find_program_by_name(o, comp[j]))
				plan_die("%s: no program %s", c->name, comp[j]);
	}
	bpf_object__for_each_program(p, o)
		if (!plan_loads(bpf_program__name(p)))
			plan_die("program %s is no case (no __bjk_case) and no case's companion",
				 bpf_program__name(p));
	bpf_object__close(o);
}

/*
 * The runs of a C case: plain ones run once; the others set something
 * up first (a map entry, an attachment, a second program). run_all()
 * runs each group where its cases ran when they had tables and functions
 * of their own, so the KTAP numbering stayed.
 */
enum cgroup { C_PLAIN, C_MERGE, C_SETUP };

static enum cgroup cgroup_of(const struct ccase *c)
{
	if (c->merge)
		return C_MERGE;
	if (c->attach || c->run || c->audit2 || c->nmap)
		return C_SETUP;
	return C_PLAIN;
}

/*
 * Merged checks: a merge case's program runs twice, JITed with merging
 * off, then on (bpf_jit_kasan_merge, read at load), as two cases; the
 * second's reports must be the first's: bug, direction, size, address and,
 * from the JIT's table, the instruction.
 */
#define MERGE_KNOB	"/sys/module/kernel/parameters/bpf_jit_kasan_merge"

/* Write @v to the merge knob; its old value in *@old. -1: no knob. */
static int merge_knob(struct tcase *t, char v, char *old)
{
	char c = 0;
	int fd = open(MERGE_KNOB, O_RDWR);

	if (fd < 0 || read(fd, &c, 1) != 1 || pwrite(fd, &v, 1, 0) != 1) {
		fail(t, "%s: %s (a kernel without merged checks?)", MERGE_KNOB, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	if (old)
		*old = c == 'Y' ? '1' : '0';
	return 0;
}

/* Before the audit: the case's map entries and attachment. */
static int case_c_setup(struct tcase *t, const struct ccase *c, struct bpf_object *o,
			struct bpf_link **link)
{
	int k;

	for (k = 0; k < c->nmap; k++) {
		const struct cmap *m = &c->map[k];
		struct bpf_map *map = bpf_object__find_map_by_name(o, m->map);
		uint32_t val[64] = { m->prog ? (uint32_t)prog_fd(o, m->prog) : m->val };

		if (!map || bpf_map__value_size(map) > sizeof(val) ||
		    bpf_map_update_elem(bpf_map__fd(map), &m->key, val, BPF_ANY)) {
			fail(t, "%s update: %s", m->map, map ? strerror(errno) : "no such map");
			return -1;
		}
	}
	if (c->attach) {
		*link = bpf_program__attach(bpf_object__find_program_by_name(o, c->prog));
		if (!*link) {
			fail(t, "attach %s: %s", c->prog, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/*
 * A C case: load its program (and companions), set up, audit, run once
 * with BPF_PROG_TEST_RUN (tc programs on pkt), check the result, out[] and
 * the reports, as its tags say. A merge case does it twice (above).
 */
static void case_c(const struct ccase *c)
{
	static const struct exempt noex = { .probes = 0 };
	static struct tcase ts[2];
	const char *progs[] = { c->prog, c->audit2, c->run, c->map[0].prog, c->map[1].prog,
				NULL };
	int runs = c->merge ? 2 : 1, m, k, j;

	/* obj_load() stops at the first NULL: close the gaps */
	for (k = j = 0; k < 5; k++)
		if (progs[k])
			progs[j++] = progs[k];
	progs[j] = NULL;
	for (m = 0; m < runs; m++) {
		struct tcase *t = &ts[m];
		struct bpf_link *link = NULL;
		struct bpf_program *run;
		struct bpf_object *o;
		char name[128], old;
		uint64_t vals[8];
		uint32_t ret;
		bool tc;

		snprintf(name, sizeof(name), "%s%s", c->name,
			 !c->merge ? "" : m ? ".merged" : ".unmerged");
		if (!tcase_begin(t, name))
			continue;
		if (m && ts[0].num)	/* the unmerged run ran (not filtered out) */
			t->twin = &ts[0];
		if (c->merge && merge_knob(t, m ? '1' : '0', &old)) {
			tcase_end(t);
			continue;
		}
		o = obj_load(t, progs);
		if (c->merge)
			merge_knob(t, old, NULL);
		if (!o) {
			tcase_end(t);
			continue;
		}
		if (case_c_setup(t, c, o, &link))
			goto end;
		audit(t, prog_fd(o, c->prog), &c->ex);
		if (c->audit2)
			audit(t, prog_fd(o, c->audit2), &noex);
		if (m && c->merges && t->naud && t->aud[0].table &&
		    t->aud[0].nchecks >= t->aud[0].ncalls)
			fail(t, "merging on, but %d checks for %d accesses", t->aud[0].nchecks,
			     t->aud[0].ncalls);
		for (k = 0; k < c->nexp; k++)
			t->exp[t->nexp++] = c->exp[k];
		arm(t);
		run = bpf_object__find_program_by_name(o, c->run ? c->run : c->prog);
		tc = bpf_program__type(run) == BPF_PROG_TYPE_SCHED_CLS;
		if (!test_run(t, bpf_program__fd(run), NULL, 0, tc ? pkt : NULL, tc ? sizeof(pkt) : 0,
			      &ret) && c->has_retval && (int)ret != c->retval)
			fail(t, "result %d, want %d", (int)ret, c->retval);
		for (k = 0; k < 8 && !c->has_out[k]; k++)
			;
		if (k < 8 && !read_out(t, o, vals))
			for (; k < 8; k++)
				if (c->has_out[k] && vals[k] != c->outv[k])
					fail(t, "out[%d] = %#llx, want %#llx", k,
					     (unsigned long long)vals[k],
					     (unsigned long long)c->outv[k]);
end:
		tcase_end(t);
		bpf_link__destroy(link);
		bpf_object__close(o);
	}
	memset(ts, 0, sizeof(ts));
}

static void case_c_group(enum cgroup g)
{
	int k;

	for (k = 0; k < ncplan; k++)
		if (cgroup_of(&cplan[k]) == g)
			case_c(&cplan[k]);
}

/* ---- main ---------------------------------------------------------------- */

static void set_harden(int v)
{
	char c = '0' + v;
	int fd = open(HARDEN, O_WRONLY);

	if (fd < 0 || write(fd, &c, 1) != 1) {
		bjk_out("# cannot write %s: %s", HARDEN, strerror(errno));
		exit(2);
	}
	close(fd);
	harden = v;
}

/*
 * Every case, in this order, which is the KTAP numbering: the raw cases,
 * and the C programs' cases by group, each group in e2e.bpf.c's order.
 */
static void run_all(void)
{
	int k, w;

	for (w = HEAP; w <= STACK_PTR; w++)
		for (k = 0; k < NMATRIX; k++)
			case_matrix(&matrix[k], w);
	case_unaligned("unaligned.load2_odd", false, 2, 17, 0, 64, 1);
	case_unaligned("unaligned.load8_cross", false, 8, 12, 0, 64, 1);
	case_unaligned("unaligned.store4_cross", true, 4, 30, 0, 64, 1);
	case_unaligned("partial.load8_into_poison", false, 8, 28, 32, 32, 1);
	case_unaligned("partial.store2_into_poison", true, 2, 31, 32, 32, 1);
	case_unaligned("partial.load8_before_poison", false, 8, 24, 32, 32, 0);
	case_c_group(C_PLAIN);
	case_merge(true);
	case_merge(false);
	case_c_group(C_MERGE);
	case_rnd_hi32();
	case_c_group(C_SETUP);
	case_cbpf();
}

/* Both passes, the sysctl's values. */
static const int hardens[] = { 0, 2 };

/*
 * The plan without running anything: run_all() with tcase_begin() only
 * counting (and with -l printing) the cases, so the count cannot drift
 * from what runs.
 */
static int dry_run(enum dry d)
{
	int h, n;

	dry = d;
	ncases = 0;
	for (h = 0; h < 2; h++) {
		harden = hardens[h];
		run_all();
	}
	dry = DRY_NONE;
	harden = 0;
	n = ncases;
	ncases = 0;
	return n;
}

int main(int argc, char **argv)
{
	bool list = false;
	int opt, total, h;

	while ((opt = getopt(argc, argv, "ko:f:l")) != -1) {
		switch (opt) {
		case 'k':
			bjk_out_to_kmsg();
			break;
		case 'o':
			obj_path = optarg;
			break;
		case 'f':
			filter = optarg;
			break;
		case 'l':
			list = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-k] [-o BPF-OBJECT] [-f FILTER] [-l]\n", argv[0]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	libbpf_set_print(bjk_libbpf_print);
	plan_load();
	if (list) {		/* needs no guest: the object alone */
		dry_run(DRY_LIST);
		return 0;
	}
	kmsg_open();
	kallsyms_checks();
	module_btf();
	total = dry_run(DRY_COUNT);
	bjk_out("KTAP version 1");
	bjk_out("1..%d", total);
	for (h = 0; h < 2; h++) {
		set_harden(hardens[h]);
		bjk_out("# bpf_jit_harden=%d", harden);
		run_all();
	}
	set_harden(0);
	if (ncases != total)
		bjk_out("# e2e: %d cases ran, the plan said %d", ncases, total);
	bjk_out("# e2e: %d cases, %d passed, %d failed", ncases, npass, nfail);
	bjk_out("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0", npass, nfail);
	return nfail || ncases != total ? 1 : 0;
}
