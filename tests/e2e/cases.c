// SPDX-License-Identifier: GPL-2.0
/*
 * The e2e suite's cases (e2e.h: the parts of bjk-e2e): what loads and runs
 * the programs of a case of the plan. Two kinds, each run by one function
 * from what the plan says: raw cases, programs of raw instructions where
 * the exact opcode matters, a table of them below (case_raw()); and the C
 * programs of progs/e2e.bpf.c, whose BTF decl tags the loader read
 * (case_c()).
 */
#include <errno.h>
#include <fcntl.h>
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
#include "e2e.h"

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

static int mod_btf_fd = -1;
static struct btf *mod_btf;

/* The module's BTF, for the kfunc calls of raw programs: 0, or -1. */
int cases_init(void)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	uint32_t id = 0;

	if (!vmlinux) {
		note(NULL, "# vmlinux BTF: %s", strerror(errno));
		return -1;
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
		note(NULL, "# module BTF of %s not found (module not loaded?)", MODULE_NAME);
		return -1;
	}
	return 0;
}

static int kfunc_id(const char *name)
{
	int id = btf__find_by_name_kind(mod_btf, name, BTF_KIND_FUNC);

	if (id < 0) {
		note(NULL, "# kfunc %s not in the module's BTF", name);
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

/* The last lines of the verifier's log (vlog), as notes of @t. */
static void verifier_tail(struct tcase *t)
{
	char *l = vlog, *nl;
	int k = 0;

	for (nl = vlog; (nl = strchr(nl, '\n')); nl++)
		k++;
	for (; k > 12 && (nl = strchr(l, '\n')); k--)
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

/* Load @p as a sleepable syscall program named @name: its fd, or -1. */
static int load_raw(struct tcase *t, const char *name, struct prog *p, uint32_t flags)
{
	int fds[2] = { -1, mod_btf_fd };
	LIBBPF_OPTS(bpf_prog_load_opts, o, .log_buf = vlog, .log_size = sizeof(vlog),
		    .log_level = 1, .fd_array = fds, .prog_flags = flags | BPF_F_SLEEPABLE);
	int fd;

	vlog[0] = '\0';
	fd = bpf_prog_load(BPF_PROG_TYPE_SYSCALL, name, "GPL", p->i, p->n, &o);
	if (fd < 0) {
		fail(t, "load %s: %s", name, strerror(errno));
		verifier_tail(t);
	}
	return fd;
}

/* ---- the raw cases ------------------------------------------------------ */

enum op { OP_LDX, OP_LDXSX, OP_ST, OP_STX, OP_ATOMIC };
#define IS_STORE(op)	((op) != OP_LDX && (op) != OP_LDXSX)

/* Where the matrix's access goes (lower case: the names are the cases'). */
enum where { W_heap, W_stack_r10, W_stack_ptr };

/*
 * A raw case: @build writes its program, loaded as a syscall program
 * named @prog, audited, run once with ctx { @ctx, 0 }; what it expects is
 * in the row too. The access's fields are what @build reads.
 */
struct raw {
	const char *name;
	void (*build)(struct prog *p, const struct raw *r);	/* NULL: case_cbpf() */
	const char *prog;
	uint32_t flags;		/* BPF_PROG_LOAD's prog_flags */
	uint32_t ctx;
	/* the access */
	enum op op;
	int size;		/* bytes */
	int aop;		/* atomic op (imm) */
	enum where where;
	int off;		/* in the region */
	int poff, plen;		/* the poisoned part of the region */
	/* what it expects */
	int nexp;
	struct expect exp[3];
	bool has_retval;
	int retval;
	struct exempt ex;
};

static int bpf_size(int size)
{
	return size == 1 ? BPF_B : size == 2 ? BPF_H : size == 4 ? BPF_W : BPF_DW;
}

/* ---- the class and size matrix */

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
static uint32_t matrix_result(const struct raw *m)
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
 *	heap:      r6 = bjk_buf(64)        stack: r6 = r10 - 64 (slots zeroed)
 *	r7 = MX_V; *(u64 *)(B + 16) = r7	(B: r6 on the heap, r10 - 64 on the stack)
 *	bjk_poison(r6, 64)
 *	r7 = MX_S; r0 = MX_V; r8 = 0
 *	<the access at B + 16>		(stack_ptr: through r6, proved stack-only)
 *	r8 = <its register result>
 *	bjk_unpoison(r6, 64)
 *	r0 = *(u64 *)(B + 16) ^ r8, folded to 32 bits
 */
static void build_matrix(struct prog *p, const struct raw *m)
{
	enum where w = m->where;
	int sz = bpf_size(m->size), areg = w == W_stack_r10 ? BPF_REG_10 : BPF_REG_6;
	int aoff = w == W_stack_r10 ? -64 + MX_OFF : MX_OFF;
	int breg = w == W_heap ? BPF_REG_6 : BPF_REG_10, boff = w == W_heap ? MX_OFF : -64 + MX_OFF;
	int k;

	if (w == W_heap) {
		heap_prologue(p);
	} else {
		for (k = 1; k <= 8; k++)
			emit(p, ST(BPF_DW, BPF_REG_10, -8 * k, 0));
		emit(p, MOV64_REG(BPF_REG_6, BPF_REG_10));
		emit(p, ALU64_IMM(BPF_ADD, BPF_REG_6, -64));
	}
	emit_ld64(p, BPF_REG_7, MX_V);
	emit(p, STX(BPF_DW, breg, BPF_REG_7, boff));
	poison_call(p, true, BPF_REG_6, 0, 64);
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
	poison_call(p, false, BPF_REG_6, 0, 64);
	emit(p, LDX(BPF_DW, BPF_REG_0, breg, boff));
	emit(p, ALU64_REG(BPF_XOR, BPF_REG_0, BPF_REG_8));
	emit(p, MOV64_REG(BPF_REG_1, BPF_REG_0));
	emit(p, ALU64_IMM(BPF_RSH, BPF_REG_1, 32));
	emit(p, ALU64_REG(BPF_XOR, BPF_REG_0, BPF_REG_1));
	emit(p, EXIT());
}

/*
 * One row per access, in three regions: on the heap, reported; on the
 * stack through R10 and through a register the verifier proved to point
 * to the stack, neither checked (the latter exempt from the audit's count).
 */
#define MX(w, id, o, sz, a) {							\
	.name = "matrix." #w "." #id, .build = build_matrix, .prog = "mx_" #id,	\
	.op = o, .size = sz, .aop = a, .where = W_##w,				\
	.nexp = W_##w == W_heap,						\
	.exp = { { .bug = POISON_BUG, .write = IS_STORE(o), .size = sz, .off = MX_OFF } }, \
	.ex = { .n = { [IS_STORE(o)] = { [SIZE_IDX(sz)] = W_##w == W_stack_ptr } } },	\
},
#define MX_AT(w, id, op)	MX(w, id##4, OP_ATOMIC, 4, op) MX(w, id##8, OP_ATOMIC, 8, op)
#define MATRIX(w)								\
	MX(w, ldx1, OP_LDX, 1, 0) MX(w, ldx2, OP_LDX, 2, 0)			\
	MX(w, ldx4, OP_LDX, 4, 0) MX(w, ldx8, OP_LDX, 8, 0)			\
	MX(w, ldxsx1, OP_LDXSX, 1, 0) MX(w, ldxsx2, OP_LDXSX, 2, 0)		\
	MX(w, ldxsx4, OP_LDXSX, 4, 0)						\
	MX(w, st1, OP_ST, 1, 0) MX(w, st2, OP_ST, 2, 0)				\
	MX(w, st4, OP_ST, 4, 0) MX(w, st8, OP_ST, 8, 0)				\
	MX(w, stx1, OP_STX, 1, 0) MX(w, stx2, OP_STX, 2, 0)			\
	MX(w, stx4, OP_STX, 4, 0) MX(w, stx8, OP_STX, 8, 0)			\
	MX_AT(w, add, BPF_ADD) MX_AT(w, add_fetch, BPF_ADD | BPF_FETCH)		\
	MX_AT(w, and, BPF_AND) MX_AT(w, and_fetch, BPF_AND | BPF_FETCH)		\
	MX_AT(w, or, BPF_OR) MX_AT(w, or_fetch, BPF_OR | BPF_FETCH)		\
	MX_AT(w, xor, BPF_XOR) MX_AT(w, xor_fetch, BPF_XOR | BPF_FETCH)		\
	MX_AT(w, xchg, BPF_XCHG) MX_AT(w, cmpxchg, BPF_CMPXCHG)

/* ---- single accesses */

/*
 * Unaligned and granule-crossing accesses, which the inline check sends
 * to its slow path: the report still has the access's own address.
 * A store of 0x22 or a load of @size at @off of the 64 bytes, @plen bytes
 * from @poff on poisoned.
 */
static void build_unaligned(struct prog *p, const struct raw *r)
{
	heap_prologue(p);
	poison_call(p, true, BPF_REG_6, r->poff, r->plen);
	if (IS_STORE(r->op))
		emit(p, ST(bpf_size(r->size), BPF_REG_6, r->off, 0x22));
	else
		emit(p, LDX(bpf_size(r->size), BPF_REG_7, BPF_REG_6, r->off));
	poison_call(p, false, BPF_REG_6, 0, 64);
	emit(p, MOV64_IMM(BPF_REG_0, 0));
	emit(p, EXIT());
}

#define UNALIGNED(n, o, sz, of, po, pl, rep) {					\
	.name = n, .build = build_unaligned, .prog = "unaligned",		\
	.op = o, .size = sz, .off = of, .poff = po, .plen = pl, .nexp = rep,	\
	.exp = { { .bug = POISON_BUG, .write = IS_STORE(o), .size = sz, .off = (of) - (po) } }, \
},

/*
 * One instruction that sees a stack pointer on one path and the module's
 * buffer on another (the ctx's first word picks the path at run time):
 * any state with a non-stack pointer makes it checked. On the stack path
 * the stack is not poisoned: no report. Returns 3.
 */
static void build_path_merge(struct prog *p, const struct raw *r)
{
	int k;

	(void)r;
	emit(p, LDX(BPF_W, BPF_REG_9, BPF_REG_1, 0));
	for (k = 1; k <= 8; k++)
		emit(p, ST(BPF_DW, BPF_REG_10, -8 * k, 0));
	emit(p, MOV64_REG(BPF_REG_6, BPF_REG_10));
	emit(p, ALU64_IMM(BPF_ADD, BPF_REG_6, -64));
	emit(p, JEQ_IMM(BPF_REG_9, 0, 9));	/* to the access, r6 on the stack */
	heap_prologue(p);
	poison_call(p, true, BPF_REG_6, 0, 64);
	emit(p, STX(BPF_DW, BPF_REG_6, BPF_REG_9, 24));	/* the access */
	emit(p, JEQ_IMM(BPF_REG_9, 0, 4));
	poison_call(p, false, BPF_REG_6, 0, 64);
	emit(p, MOV64_IMM(BPF_REG_0, 0));
	emit(p, MOV64_IMM(BPF_REG_0, 3));
	emit(p, EXIT());
}

/*
 * BPF_F_TEST_RND_HI32: the verifier patches every 32-bit definition whose
 * upper half nobody reads with insns that randomize that half; a load so
 * patched keeps its check, and so does the store after it. Returns 42.
 */
static void build_rnd_hi32(struct prog *p, const struct raw *r)
{
	(void)r;
	heap_prologue(p);
	emit(p, ST(BPF_W, BPF_REG_6, 16, 41));
	poison_call(p, true, BPF_REG_6, 0, 64);
	emit(p, LDX(BPF_W, BPF_REG_7, BPF_REG_6, 16));	/* Read 4 at +16 */
	emit(p, ALU32_IMM(BPF_ADD, BPF_REG_7, 1));
	emit(p, STX(BPF_W, BPF_REG_6, BPF_REG_7, 20));	/* Write 4 at +20 */
	emit(p, LDX(BPF_H, BPF_REG_8, BPF_REG_6, 20));	/* Read 2 at +20 */
	poison_call(p, false, BPF_REG_6, 0, 64);
	emit(p, MOV64_REG(BPF_REG_0, BPF_REG_8));
	emit(p, EXIT());
}

#define POISON_REPORT(w, sz, of) { .bug = POISON_BUG, .write = w, .size = sz, .off = of }

/* The raw cases, in the order they run (before the C programs' cases). */
static const struct raw raw_cases[] = {
	MATRIX(heap)
	MATRIX(stack_r10)
	MATRIX(stack_ptr)
	UNALIGNED("unaligned.load2_odd", OP_LDX, 2, 17, 0, 64, 1)
	UNALIGNED("unaligned.load8_cross", OP_LDX, 8, 12, 0, 64, 1)
	UNALIGNED("unaligned.store4_cross", OP_ST, 4, 30, 0, 64, 1)
	UNALIGNED("partial.load8_into_poison", OP_LDX, 8, 28, 32, 32, 1)
	UNALIGNED("partial.store2_into_poison", OP_ST, 2, 31, 32, 32, 1)
	UNALIGNED("partial.load8_before_poison", OP_LDX, 8, 24, 32, 32, 0)
	{ .name = "path.merge.heap", .build = build_path_merge, .prog = "merge", .ctx = 1,
	  .nexp = 1, .exp = { POISON_REPORT(true, 8, 24) }, .has_retval = true, .retval = 3 },
	{ .name = "path.merge.stack", .build = build_path_merge, .prog = "merge", .ctx = 0,
	  .has_retval = true, .retval = 3 },
	{ .name = "path.rnd_hi32", .build = build_rnd_hi32, .prog = "rnd_hi32",
	  .flags = BPF_F_TEST_RND_HI32, .nexp = 3,
	  .exp = { POISON_REPORT(false, 4, 16), POISON_REPORT(true, 4, 20), POISON_REPORT(false, 2, 20) },
	  .has_retval = true, .retval = 42 },
	{ .name = "cbpf.socket_filter" },
};
static const int nraw = sizeof(raw_cases) / sizeof(raw_cases[0]);

/* The raw cases as the plan keeps them: into @s (room for @max); how many. */
int raw_plan(struct spec *s, int max)
{
	int k;

	for (k = 0; k < nraw && k < max; k++) {
		const struct raw *r = &raw_cases[k];

		memset(&s[k], 0, sizeof(s[k]));
		s[k].name = r->name;
		s[k].raw = r;
		s[k].prog = r->prog;
		s[k].nexp = r->nexp;
		memcpy(s[k].exp, r->exp, sizeof(r->exp));
		s[k].has_retval = r->has_retval || r->build == build_matrix;
		s[k].retval = r->build == build_matrix ? (int)matrix_result(r) : r->retval;
		s[k].ex = r->ex;
	}
	return k;
}

/*
 * A classic socket filter (no verifier: only R10-based accesses are
 * stack-only): keeps datagrams whose first byte is 'A' and whose length is
 * over 3, using the scratch memory M[]. Runs with no report.
 */
static void case_cbpf(struct tcase *t)
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
	int sv[2], got = 0, dropped = 0;
	char buf[16];

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv)) {
		fail(t, "socketpair: %s", strerror(errno));
		return;
	}
	if (setsockopt(sv[1], SOL_SOCKET, SO_ATTACH_FILTER, &fp, sizeof(fp))) {
		fail(t, "SO_ATTACH_FILTER: %s", strerror(errno));
		goto close;
	}
	note(t, "audit: none (a classic filter has no program fd)");
	arm(t);
	if (send(sv[0], "Abcd", 4, 0) != 4 || send(sv[0], "Bbcd", 4, 0) != 4 ||
	    send(sv[0], "Ab", 2, 0) != 2 || send(sv[0], "Axyz", 4, 0) != 4)
		fail(t, "send: %s", strerror(errno));
	while (recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT) > 0) {
		if (buf[0] == 'A')
			got++;
		else
			dropped++;
	}
	if (got != 2 || dropped)
		fail(t, "filter kept %d datagrams (%d wrong), want 2", got + dropped, dropped);
close:
	close(sv[0]);
	close(sv[1]);
}

/* A raw case: build, load, audit, run once, check the result and reports. */
static void case_raw(const struct spec *s)
{
	const struct raw *r = s->raw;
	uint32_t ret, ctx[2] = { r->ctx, 0 };
	struct prog p = { .n = 0 };
	struct tcase t;
	int fd;

	if (!case_begin(&t, s, 0))
		return;
	if (!r->build) {
		case_cbpf(&t);
		case_end(&t);
		return;
	}
	r->build(&p, r);
	fd = load_raw(&t, r->prog, &p, r->flags);
	if (fd >= 0) {
		audit(&t, fd, &s->ex);
		arm(&t);
		if (!test_run(&t, fd, ctx, sizeof(ctx), NULL, 0, &ret) && s->has_retval &&
		    ret != (uint32_t)s->retval)
			fail(&t, "result %#x, want %#x", ret, (uint32_t)s->retval);
	}
	case_end(&t);
	if (fd >= 0)
		close(fd);
}

/* ---- C programs (progs/e2e.bpf.c) ---------------------------------------- */

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
		fail(t, "load %s: %s", progs[0], strerror(-err));
		verifier_tail(t);
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
static int case_c_setup(struct tcase *t, const struct spec *c, struct bpf_object *o,
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
static void case_c(const struct spec *c)
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
		char old;
		uint64_t vals[8];
		uint32_t ret;
		bool tc;

		if (!case_begin(t, c, m))
			continue;
		if (m && ts[0].num)	/* the unmerged run ran (not filtered out) */
			t->twin = &ts[0];
		if (c->merge && merge_knob(t, m ? '1' : '0', &old)) {
			case_end(t);
			continue;
		}
		o = obj_load(t, progs);
		if (c->merge)
			merge_knob(t, old, NULL);
		if (!o) {
			case_end(t);
			continue;
		}
		if (case_c_setup(t, c, o, &link))
			goto end;
		audit(t, prog_fd(o, c->prog), &c->ex);
		if (c->audit2)
			audit(t, prog_fd(o, c->audit2), &noex);
		if (m && c->merges && t->naud && t->aud[0].inlined &&
		    t->aud[0].nchecks >= t->aud[0].ncalls)
			fail(t, "merging on, but %d checks for %d accesses", t->aud[0].nchecks,
			     t->aud[0].ncalls);
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
		case_end(t);
		bpf_link__destroy(link);
		bpf_object__close(o);
	}
	memset(ts, 0, sizeof(ts));
}

/* Run case @s of the plan (in the current pass). */
void case_run(const struct spec *s)
{
	if (s->raw)
		case_raw(s);
	else
		case_c(s);
}
