// SPDX-License-Identifier: GPL-2.0
/*
 * bjk-e2e: end-to-end cases of KASAN checks in JIT-compiled BPF programs.
 * This file is its loader: the plan, the reports, the output.
 *
 * Runs as root in the test guest, with the test module bjk_e2e loaded
 * (tests/e2e/module). Every case loads real programs through bpf() and
 * the verifier (cases.c: C programs of progs/e2e.bpf.c through libbpf, or
 * raw instructions where the exact opcode matters), audits what the JIT
 * made of them (audit.c), runs them with BPF_PROG_TEST_RUN (or the
 * matching trigger); the loader reads the new /dev/kmsg records and checks
 * every KASAN report field by field: bug type, bpf_prog_<tag>_<name> of the
 * program that made the access, +0x<off> on the check of that access,
 * Read/Write, size and the exact address (what the module handed out plus
 * the access's offset).
 *
 * The plan: the raw cases' table (cases.c), then the C programs' cases as
 * their BTF decl tags say (progs/bjk-tags.h), in the order of the counter
 * each tag carries, which is the order of the source; the order of the
 * tags in BTF is the compiler's (plan_load()). The KTAP plan is the count
 * of the plan's runs. The whole plan runs twice: with
 * net.core.bpf_jit_harden=0 and =2 (constant blinding). Cases that expect
 * reports are framed by BJK-EXPECT-BEGIN/END lines on /dev/kmsg, for the
 * harness's splat scanner (and bjk-decode watch).
 *
 * Output: KTAP, a plan line first, one line per run, then a summary.
 * With -k, KTAP and diagnostics go to /dev/kmsg (in order with the
 * kernel's messages on the console) instead of stdout. -f runs only the
 * cases whose name (with its h0./h2. prefix) contains FILTER; -l prints
 * their names, one a line, in the order they run, and exits. -d DECODED:
 * the decode suite (decode_check()), the KTAP lines of the reports
 * `bjk-decode -m` decoded, compared with the plan. -l and -d need only
 * the object, not the guest.
 *
 *   bjk-e2e [-k] [-o BPF-OBJECT] [-f FILTER] [-l] [-d DECODED]
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
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "bjk-out.h"
#include "bjk-guest.h"
#include "bjk-kmsg.h"
#include "bjk-prog.h"
#include "bjk-report.h"
#include "e2e.h"

#define LAST_ADDR	"/sys/module/" MODULE_NAME "/parameters/last_addr"
#define HARDEN		"/proc/sys/net/core/bpf_jit_harden"

/* Embedded by build.sh (objects.S) unless -o is given. */
extern const char bjk_bpf_obj[], bjk_bpf_obj_end[];

int harden;
char vlog[65536];

static const char *obj_path;
static const char *filter;
static struct bjk_kmsg kmsg;
static int ncases, npass, nfail;

/* Both passes, the sysctl's values. */
static const int hardens[] = { 0, 2 };

/* ---- output ------------------------------------------------------------ */

/*
 * One line of output, "# NAME: message" for run @t, the message alone
 * without one; with @why, the run's first such message is why it fails.
 */
static void vout(struct tcase *t, bool why, const char *fmt, va_list ap)
{
	char buf[512];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (!t) {
		bjk_out("%s", buf);
		return;
	}
	bjk_out("# %s: %s", t->name, buf);
	if (why && !t->why[0])
		snprintf(t->why, sizeof(t->why), "%s", buf);
}

void note(struct tcase *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vout(t, false, fmt, ap);
	va_end(ap);
}

void fail(struct tcase *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vout(t, true, fmt, ap);
	va_end(ap);
}

void set_harden(int v)
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

/* The BPF object, opened (not loaded); NULL with errno set. */
struct bpf_object *obj_open(const struct bpf_object_open_opts *oo)
{
	if (obj_path)
		return bpf_object__open_file(obj_path, oo);
	return bpf_object__open_mem(bjk_bpf_obj, bjk_bpf_obj_end - bjk_bpf_obj, oo);
}

/* ---- the plan ---------------------------------------------------------- */

#define MAX_SPECS	256
static struct spec plan[MAX_SPECS];
static int nplan;

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
static int tag_report(struct spec *c, const char *v)
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

/* One tag of case @c, past its "bjk:N:" (@order: N). -1: not understood. */
static int tag_parse(struct spec *c, const char *tag, uint32_t order)
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
		c->order = order;
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
		c->ex.n[write][SIZE_IDX(size)] = n;
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

	for (k = 0; k < nplan; k++) {
		const struct spec *c = &plan[k];

		if (c->raw)
			continue;
		if (!strcmp(c->prog, name) || (c->run && !strcmp(c->run, name)) ||
		    (c->audit2 && !strcmp(c->audit2, name)))
			return true;
		for (m = 0; m < c->nmap; m++)
			if (c->map[m].prog && !strcmp(c->map[m].prog, name))
				return true;
	}
	return false;
}

/* A "bjk:" decl tag of the object: "bjk:N:KEY=VALUE" on FUNC @func. */
struct tag {
	uint32_t order;		/* N, bjk-tags.h's __COUNTER__ */
	uint32_t func;
	const char *text;	/* KEY=VALUE */
};

static int tag_cmp(const void *a, const void *b)
{
	const struct tag *x = a, *y = b;

	return x->order < y->order ? -1 : x->order > y->order;
}

static int spec_cmp(const void *a, const void *b)
{
	const struct spec *x = a, *y = b;

	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * The plan: the raw cases, then every C case. These are the "bjk:" decl
 * tags of the object's BTF, each on the FUNC of a program (component_idx
 * -1). BTF lists a program's tags, and the programs, in an order no
 * compiler promises: clang-19 puts the FUNC of a program declared before
 * an earlier program's definition after that program, tags and all. So
 * each tag carries a counter (bjk-tags.h), as the kernel's selftests' do
 * (bpf_misc.h), and the tags are taken in its order: a case's reports in
 * the order written, the cases in the order of their case tags. A program
 * with no case tag must be another case's companion; any other stops the
 * runner, as does a tag it cannot read: a case quietly lost would only
 * show as a smaller plan.
 */
static void plan_load(void)
{
	struct bpf_object *o = obj_open(NULL);
	struct tag *tags = NULL;
	struct bpf_program *p;
	const struct btf *btf;
	uint32_t id, n;
	int ntags = 0, nraw_specs, k, j;

	nplan = raw_plan(plan, MAX_SPECS);
	nraw_specs = nplan;
	if (!o)
		plan_die("open BPF object: %s", strerror(errno));
	btf = bpf_object__btf(o);
	if (!btf)
		plan_die("no BTF");
	n = btf__type_cnt(btf);
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id), *f;
		const char *tag = btf__name_by_offset(btf, t->name_off), *fname;
		int len = 0;
		uint32_t order;

		if (!btf_is_decl_tag(t) || strncmp(tag, "bjk:", 4))
			continue;
		f = btf__type_by_id(btf, t->type);
		if (btf_decl_tag(t)->component_idx != -1 || !f || !btf_is_func(f))
			plan_die("\"%s\" is not on a function", tag);
		fname = btf__name_by_offset(btf, f->name_off);
		if (!bpf_object__find_program_by_name(o, fname))
			plan_die("\"%s\" is on %s, which is no program", tag, fname);
		if (sscanf(tag, "bjk:%u:%n", &order, &len) != 1 || !len)
			plan_die("%s: \"%s\" has no counter (bjk-tags.h's __bjk_tag)", fname, tag);
		tags = realloc(tags, (ntags + 1) * sizeof(*tags));
		if (!tags)
			plan_die("out of memory");
		tags[ntags++] = (struct tag){ order, t->type, tag + len };
	}
	qsort(tags, ntags, sizeof(*tags), tag_cmp);
	for (k = 0; k < ntags; k++) {
		const struct btf_type *f = btf__type_by_id(btf, tags[k].func);
		const char *fname = btf__name_by_offset(btf, f->name_off);
		struct spec *c = NULL;

		/* one compilation unit, one counter: no two tags share a value */
		if (k && tags[k].order == tags[k - 1].order)
			plan_die("two tags numbered %u (the object is of more than one file?)",
				 tags[k].order);
		for (j = nraw_specs; j < nplan; j++)
			if (plan[j].func == tags[k].func)
				c = &plan[j];
		if (!c) {
			if (nplan == MAX_SPECS)
				plan_die("more than %d cases", MAX_SPECS);
			c = &plan[nplan++];
			c->func = tags[k].func;
			c->prog = strdup(fname);
		}
		if (tag_parse(c, tags[k].text, tags[k].order))
			plan_die("%s: cannot read \"%s\"", fname, tags[k].text);
	}
	free(tags);
	for (k = nraw_specs; k < nplan; k++) {
		const struct spec *c = &plan[k];
		const char *comp[4] = { c->run, c->audit2, c->map[0].prog, c->map[1].prog };

		if (!c->name)
			plan_die("%s has tags but no __bjk_case", c->prog);
		for (j = 0; j < k; j++)
			if (!strcmp(plan[j].name, c->name))
				plan_die("two cases named %s", c->name);
		for (j = 0; j < 4; j++)
			if (comp[j] && !bpf_object__find_program_by_name(o, comp[j]))
				plan_die("%s: no program %s", c->name, comp[j]);
	}
	/* the C cases in the order of their case tags (a stable order: all differ) */
	qsort(plan + nraw_specs, nplan - nraw_specs, sizeof(plan[0]), spec_cmp);
	bpf_object__for_each_program(p, o)
		if (!plan_loads(bpf_program__name(p)))
			plan_die("program %s is no case (no __bjk_case) and no case's companion",
				 bpf_program__name(p));
	bpf_object__close(o);
}

/* Runs of a case: two for a merge case (merging off, then on), else one. */
static int spec_runs(const struct spec *s)
{
	return s->merge ? 2 : 1;
}

/* The KTAP name of run @run of @s in this pass. */
static void run_name(const struct spec *s, int run, char *buf, size_t len)
{
	snprintf(buf, len, "h%d.%s%s", harden, s->name,
		 !s->merge ? "" : run ? ".merged" : ".unmerged");
}

/* ---- a case's run: its reports ---------------------------------------- */

static void kmsg_open(void)
{
	if (bjk_kmsg_open(&kmsg)) {
		perror("/dev/kmsg");
		exit(2);
	}
}

/* The KASAN reports among the records written since arm(). */
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

/* Start run @run of @s, with its expectations; false: filtered out. */
bool case_begin(struct tcase *t, const struct spec *s, int run)
{
	memset(t, 0, sizeof(*t));
	run_name(s, run, t->name, sizeof(t->name));
	if (filter && !strstr(t->name, filter))
		return false;
	t->exp = s->exp;
	t->nexp = s->nexp;
	return true;
}

/* Right before the run: the expect region, and kmsg from here on. */
void arm(struct tcase *t)
{
	if (t->nexp)
		kmsg_mark("BJK-EXPECT-BEGIN %s %d", t->name, t->nexp);
	bjk_kmsg_skip(&kmsg);
	t->armed = true;
}

/* Report @n's "BPF belief:" line, of the access @e the case expects. */
static void report_belief(struct tcase *t, int n, const struct bjk_report *g,
			  const struct expect *e)
{
	const char *base = strstr(g->insn_text, " *)(r");
	struct bjk_belief b;
	int reg;

	if (!bjk_belief_parse(g->belief, &b)) {
		fail(t, "report %d: BPF belief '%s', not a belief of an access", n, g->belief);
		return;
	}
	if (!bjk_belief_fits(&b, e->write, e->size))
		fail(t, "report %d: BPF belief '%s' is not of a %s inside its object", n,
		     g->belief, kind_name(e->write, e->size));
	if (!base || sscanf(base, " *)(r%d", &reg) != 1 || reg != b.reg)
		fail(t, "report %d: BPF belief through r%d, the insn '%s' accesses through another",
		     n, b.reg, g->insn_text);
}

/*
 * The lines the kernel adds to report @n of program @a (its BPF insn, line
 * and program): the insn the JIT's table has for the check that reported
 * (@insn, in function @e->func; -1: no table), blinded exactly when
 * bpf_jit_harden=2, a memory access of the report's size and direction by
 * its disassembly, and a source line from the program's line info, which
 * every program built from C has: the line of the access, whose comment in
 * progs/e2e.bpf.c names it ("Read 8 at +16"); "not known" for a blinded
 * program with subprograms, whose line info blinding moves. And what the
 * verifier believed: the access (direction, size, base register of the
 * disassembly) through a pointer it proved inside its object, if it knew the
 * object's size: no case here has a verifier bug, the memory is wrong.
 */
static void report_lines(struct tcase *t, int n, const struct bjk_report *g,
			 const struct audit *a, const struct expect *e, int insn)
{
	bool write;
	int size;

	if (strncmp(g->prog, a->name, sizeof(a->name)))
		fail(t, "report %d: BPF program line names '%s', want '%s'", n, g->prog, a->name);
	if (g->insn < 0) {
		fail(t, "report %d: no BPF insn line", n);
		return;
	}
	/* the table's index is the function's own; function 0 starts at 0 */
	if (insn >= 0 && e->func == 0 && g->insn != insn)
		fail(t, "report %d: BPF insn %ld, the JIT's table says %d", n, g->insn, insn);
	if (bjk_disasm_access(g->insn_text, &write, &size) == BJK_ACCESS_NONE)
		fail(t, "report %d: BPF insn line '%s' has no disassembly of an access", n,
		     g->insn_text);
	else if (write != e->write || size != e->size)
		fail(t, "report %d: BPF insn '%s' is no %s", n, g->insn_text,
		     kind_name(e->write, e->size));
	if (g->insn_blinded != (harden == 2))
		fail(t, "report %d: BPF insn line %s '(blinded)' with bpf_jit_harden=%d", n,
		     g->insn_blinded ? "has" : "lacks", harden);
	if (!a->lines) {
		if (strncmp(g->source, "none", 4))
			fail(t, "report %d: BPF source '%s', the program has no line info", n,
			     g->source);
	} else if (g->insn_blinded && a->nfuncs > 1) {
		if (strncmp(g->source, "not known", 9))
			fail(t, "report %d: BPF source '%s' of a blinded program with subprograms, want 'not known'",
			     n, g->source);
	} else {
		char want[32];

		snprintf(want, sizeof(want), "%s %d", e->write ? "Write" : "Read", e->size);
		if (!strstr(g->source, ".bpf.c:") || !strstr(g->source, want))
			fail(t, "report %d: BPF source '%s', not a line of the program naming \"%s\"",
			     n, g->source, want);
	}
	report_belief(t, n, g, e);
}

/* After the run: read the reports, close the region, judge, print. */
void case_end(struct tcase *t)
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
		const struct expect *e = &t->exp[i];
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
			     g->off, kind_name(e->write, e->size));
		report_lines(t, i + 1, g, a, e, k < a->ncalls ? a->call[k].insn : -1);
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

/* ---- the decode suite -------------------------------------------------- */

/* The case whose run, in either pass, is named @name; NULL if none. */
static const struct spec *spec_of_run(const char *name)
{
	char buf[160];
	int h, k, m;

	for (h = 0; h < 2; h++) {
		harden = hardens[h];
		for (k = 0; k < nplan; k++)
			for (m = 0; m < spec_runs(&plan[k]); m++) {
				run_name(&plan[k], m, buf, sizeof(buf));
				if (!strcmp(buf, name)) {
					harden = 0;
					return &plan[k];
				}
			}
	}
	harden = 0;
	return NULL;
}

/*
 * One line of `bjk-decode -m`, split (tools/bjk-decode.c, print_line()):
 *   decoded REGION BUG read|write SIZE PROG FUNC INSN KIND SOURCE # TEXT
 */
struct decoded {
	char region[160], bug[64], rw[8], prog[BPF_OBJ_NAME_LEN], kind[16], source[256];
	int size, func, insn;
	const char *text;	/* the source line, or why not decoded */
};

/*
 * A decoded report against the expectation of its case: the report the
 * case expects (bug, kind), in the expected program and function, decoded
 * to one instruction of that kind; in a C program to a source line whose
 * comment names the access ("Read 8 at +16": progs/e2e.bpf.c). Raw
 * programs have no line info. "SKIP ..." in @why: under constant
 * blinding the decoder cannot tell (docs/decoder.md).
 */
static bool decoded_ok(const struct decoded *d, const struct spec *s, int k, char *why,
		       size_t n)
{
	const struct expect *e;
	const char *prog;
	char want[32];

	if (k >= s->nexp) {
		snprintf(why, n, "report %d, the case expects %d", k + 1, s->nexp);
		return false;
	}
	e = &s->exp[k];
	prog = e->prog ? s->audit2 : s->prog;
	snprintf(want, sizeof(want), "%s%d", e->write ? "write" : "read", e->size);
	if (!strcmp(d->source, "blinded")) {
		snprintf(why, n, "SKIP %s", d->text);
		return true;
	}
	if (strcmp(d->bug, e->bug) || strcmp(d->rw, e->write ? "write" : "read") ||
	    d->size != e->size) {
		snprintf(why, n, "report %s %s %d, want %s %s %d", d->bug, d->rw, d->size, e->bug,
			 e->write ? "write" : "read", e->size);
		return false;
	}
	if (strncmp(d->prog, prog, BPF_OBJ_NAME_LEN - 1) || d->func != e->func) {
		snprintf(why, n, "in %s function %d, want %.15s function %d", d->prog, d->func, prog,
			 e->func);
		return false;
	}
	if (d->insn < 0) {
		snprintf(why, n, "not decoded: %s", d->text);
		return false;
	}
	if (strcmp(d->kind, want)) {
		snprintf(why, n, "insn %d is a %s, want a %s", d->insn, d->kind, want);
		return false;
	}
	if (s->raw) {
		if (strcmp(d->source, "-")) {
			snprintf(why, n, "insn %d, a source line (%s) for a raw program", d->insn,
				 d->source);
			return false;
		}
		snprintf(why, n, "insn %d, no line info (raw program)", d->insn);
		return true;
	}
	snprintf(want, sizeof(want), "%s %d", e->write ? "Write" : "Read", e->size);
	if (!strcmp(d->source, "-") || !strstr(d->text, want)) {
		snprintf(why, n, "line %s does not name the access \"%s\": %s", d->source, want,
			 d->text);
		return false;
	}
	snprintf(why, n, "insn %d, line %s", d->insn, d->source);
	return true;
}

/*
 * The decode suite: every line of `bjk-decode -m` in @path (the watch of
 * this boot's e2e run) against the plan, one KTAP line each, named after
 * the case's run and the report's place in it; then one line for the
 * count: every report the plan expects decoded, no more. The KTAP plan and
 * totals are tests/decode/guest.sh's.
 */
static int decode_check(const char *path)
{
	FILE *in = fopen(path, "r");
	const struct spec *last = NULL;
	char line[2048], lastregion[160] = "", why[768];
	int n = 0, bad = 0, nseen = 0, k = 0, want = 0, h, j;

	if (!in) {
		printf("# decode: %s: %s\n", path, strerror(errno));
		return 2;
	}
	while (fgets(line, sizeof(line), in)) {
		struct decoded d = {};
		const struct spec *s;
		char *hash = strstr(line, " # ");
		bool ok;

		if (strncmp(line, "decoded ", 8))
			continue;
		line[strcspn(line, "\n")] = '\0';
		d.text = hash ? hash + 3 : "";
		if (sscanf(line, "decoded %159s %63s %7s %d %15s %d %d %15s %255s", d.region, d.bug,
			   d.rw, &d.size, d.prog, &d.func, &d.insn, d.kind, d.source) != 9) {
			n++;
			printf("not ok %d decode.line.%d # cannot read: %s\n", n, n, line);
			bad++;
			continue;
		}
		nseen++;
		k = strcmp(d.region, lastregion) ? 0 : k + 1;
		snprintf(lastregion, sizeof(lastregion), "%s", d.region);
		s = last && k ? last : spec_of_run(d.region);
		last = s;
		if (!s) {
			snprintf(why, sizeof(why), "no case %s in the plan", d.region);
			ok = false;
		} else {
			ok = decoded_ok(&d, s, k, why, sizeof(why));
		}
		bad += !ok;
		printf("%s %d decode.%s.%d # %s\n", ok ? "ok" : "not ok", ++n, d.region, k + 1, why);
	}
	fclose(in);
	for (h = 0; h < 2; h++)
		for (j = 0; j < nplan; j++)
			want += spec_runs(&plan[j]) * plan[j].nexp;
	/* a report the watcher missed would otherwise go unchecked */
	printf("%s %d decode.reports_seen # %d report(s) decoded, %d expected by the plan\n",
	       nseen == want ? "ok" : "not ok", n + 1, nseen, want);
	printf("# decode: %d report(s), %d decoded to their instruction and line\n", nseen,
	       nseen - bad);
	return bad || nseen != want;
}

/* ---- main ---------------------------------------------------------------- */

/* Every run of the plan that -f leaves, in order, in this pass: counted, listed. */
static int plan_runs(bool list)
{
	char name[160];
	int k, m, n = 0;

	for (k = 0; k < nplan; k++)
		for (m = 0; m < spec_runs(&plan[k]); m++) {
			run_name(&plan[k], m, name, sizeof(name));
			if (filter && !strstr(name, filter))
				continue;
			if (list)
				printf("%s\n", name);
			n++;
		}
	return n;
}

int main(int argc, char **argv)
{
	const char *decoded = NULL;
	bool list = false;
	int opt, total = 0, h, k;

	while ((opt = getopt(argc, argv, "ko:f:ld:")) != -1) {
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
		case 'd':
			decoded = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-k] [-o BPF-OBJECT] [-f FILTER] [-l] [-d DECODED]\n",
				argv[0]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	libbpf_set_print(bjk_libbpf_print);
	plan_load();
	for (h = 0; h < 2; h++) {
		harden = hardens[h];
		total += plan_runs(list);
	}
	harden = 0;
	if (list)		/* needs no guest: the object alone */
		return 0;
	if (decoded)
		return decode_check(decoded);
	kmsg_open();
	if (checks_load()) {
		perror("/proc/kallsyms");
		return 2;
	}
	if (cases_init())
		return 2;
	bjk_out("KTAP version 1");
	bjk_out("1..%d", total);
	for (h = 0; h < 2; h++) {
		set_harden(hardens[h]);
		bjk_out("# bpf_jit_harden=%d", harden);
		for (k = 0; k < nplan; k++)
			case_run(&plan[k]);
	}
	set_harden(0);
	if (ncases != total)
		bjk_out("# e2e: %d cases ran, the plan said %d", ncases, total);
	bjk_out("# e2e: %d cases, %d passed, %d failed", ncases, npass, nfail);
	bjk_out("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0", npass, nfail);
	return nfail || ncases != total ? 1 : 0;
}
