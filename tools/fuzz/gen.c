// SPDX-License-Identifier: GPL-2.0
/*
 * bjk-fuzz's generator and mutator.
 *
 * The generator writes programs from what BPF programs are made of, the
 * way a program's author would: it takes typed pointers (the context, the
 * stack, values of the maps of fz_maps[], ring buffer memory, the packet),
 * reads scalars out of map values so that the verifier does not know them,
 * bounds them with conditional jumps (unsigned, signed, 32- and 64-bit) or
 * masks, computes with them (every ALU operation, 32 and 64 bit), spills
 * and fills, calls helpers, subprograms and bpf_loop() callbacks, tail
 * calls, and then moves a pointer by such a scalar and accesses memory of
 * 1 to 8 bytes at the bounds it just made.
 *
 * It keeps its own estimate of every register (kind, and for a scalar a
 * range that holds for every value the program can see at run time), so
 * that most programs are ones a correct verifier accepts. A few accesses
 * are put just past what its estimate allows: a correct verifier refuses
 * those, a wrong one lets them run, and the run is where the checks see
 * it. The estimate knows nothing of any particular verifier bug.
 */
#include <string.h>
#include "fuzz.h"
#include "gen.h"

#define I(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
					     .off = (o), .imm = (i) })
#define R10 BPF_REG_10
#define STACK_ZEROED 96		/* bytes below fp zeroed in every frame's prologue */

enum kind {
	K_NONE, K_SCALAR, K_CTX, K_STACK, K_MAPVAL, K_MEM, K_PKT, K_PKT_END,
	K_LOOP,		/* a loop's counter: nothing else touches it */
};

struct reg {
	enum kind k;
	int map;		/* K_MAPVAL: fz_maps[] index */
	int size;		/* K_MAPVAL, K_MEM, K_PKT: bytes from off 0 it may reach */
	int64_t off;		/* pointer: fixed offset from its object's start */
	bool bounded;		/* K_SCALAR: lo..hi holds (unsigned) */
	uint64_t lo, hi;
};

struct gen {
	struct fz_prog *p;
	uint64_t *rng;
	struct reg r[11];
	enum kind slot[STACK_ZEROED / 8];	/* what each spill slot holds */
	struct reg slotreg[STACK_ZEROED / 8];
	int out[128], nout;			/* jumps to this frame's "out" */
	int calls[16], ncalls;			/* pseudo calls to patch */
	int callee[16];				/* which subprogram each calls */
	int ref;				/* register holding a ring buffer ref, or -1 */
	bool sub;				/* generating a subprogram */
	bool risky;				/* a program with accesses a correct verifier refuses */
	bool full;
};

static uint64_t rnd(struct gen *g)
{
	return fz_mix(g->rng);
}

/* a number in [0, n) */
static uint32_t rn(struct gen *g, uint32_t n)
{
	return n ? rnd(g) % n : 0;
}

static bool chance(struct gen *g, int percent)
{
	return rn(g, 100) < (uint32_t)percent;
}

static void emit(struct gen *g, struct bpf_insn insn)
{
	if (g->p->len >= FZ_MAX_INSNS - 24) {
		g->full = true;
		return;
	}
	g->p->insns[g->p->len++] = insn;
}

static void emit_ld_map(struct gen *g, int dst, int map)
{
	emit(g, I(BPF_LD | BPF_DW | BPF_IMM, dst, BPF_PSEUDO_MAP_FD, 0, map));
	emit(g, I(0, 0, 0, 0, 0));
}

static void jmp_out(struct gen *g, uint8_t code, int dst, int src, int32_t imm)
{
	if (g->nout < (int)(sizeof(g->out) / sizeof(g->out[0]))) {
		g->out[g->nout++] = g->p->len;
		emit(g, I(code, dst, src, 0, imm));
	}
}

/* every conditional jump (the order: what a branch's draw picks) */
static const uint8_t cond_ops[] = {
	BPF_JEQ, BPF_JNE, BPF_JGT, BPF_JGE, BPF_JLT, BPF_JLE, BPF_JSGT, BPF_JSGE,
	BPF_JSLT, BPF_JSLE, BPF_JSET,
};
#define NCOND_OPS (sizeof(cond_ops) / sizeof(cond_ops[0]))

static const uint64_t interesting[] = {
	0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 48, 63, 64, 127, 128, 255, 256, 4095, 4096,
	0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ull,
	0x7fffffffffffffffull, 0x8000000000000000ull, ~0ull, ~0ull - 1, ~0ull - 7,
	0xffffffff00000000ull, 0x80000001ull,
};

#define NINTERESTING (sizeof(interesting) / sizeof(interesting[0]))

static int32_t some_imm(struct gen *g)
{
	if (chance(g, 60))
		return (int32_t)interesting[rn(g, NINTERESTING)];
	if (chance(g, 50))
		return (int32_t)rn(g, 128) - 64;
	return (int32_t)rnd(g);
}

/* a 64-bit constant: a boundary of some width, a step off one, or any */
static uint64_t some_const64(struct gen *g)
{
	if (chance(g, 70))
		return interesting[rn(g, NINTERESTING)] + (int64_t)rn(g, 5) - 2;
	if (chance(g, 50))
		return (uint64_t)(int64_t)some_imm(g);
	return rnd(g);
}

static void mark_scalar(struct gen *g, int r, bool bounded, uint64_t lo, uint64_t hi)
{
	g->r[r] = (struct reg){ .k = K_SCALAR, .bounded = bounded, .lo = lo, .hi = hi };
}

static void mark_const(struct gen *g, int r, uint64_t v)
{
	mark_scalar(g, r, true, v, v);
}

/*
 * dst = @v: a mov of an immediate where one holds it (64-bit sign-extends,
 * 32-bit zero-extends), otherwise the two-instruction ld_imm64.
 */
static void emit_const(struct gen *g, int dst, uint64_t v)
{
	if ((uint64_t)(int64_t)(int32_t)v == v && chance(g, 80)) {
		emit(g, I(BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, (int32_t)v));
	} else if (v <= 0xffffffff && chance(g, 50)) {
		emit(g, I(BPF_ALU | BPF_MOV | BPF_K, dst, 0, 0, (int32_t)v));
	} else {
		emit(g, I(BPF_LD | BPF_DW | BPF_IMM, dst, 0, 0, (int32_t)v));
		emit(g, I(0, 0, 0, 0, (int32_t)(v >> 32)));
	}
	mark_const(g, dst, v);
}

/* a register of kind @k (any when K_NONE with any_init), or -1 */
static int pick(struct gen *g, enum kind k, int from, int to)
{
	int c[11], n = 0, i;

	for (i = from; i <= to; i++)
		if (g->r[i].k == k)
			c[n++] = i;
	return n ? c[rn(g, n)] : -1;
}

static int pick_ptr(struct gen *g)
{
	int c[11], n = 0, i;

	for (i = 0; i < 10; i++)
		if (g->r[i].k == K_MAPVAL || g->r[i].k == K_MEM || g->r[i].k == K_PKT)
			c[n++] = i;
	return n ? c[rn(g, n)] : -1;
}

/* a scratch register for a result: r0-r5 (a call clobbers them anyway) */
static int scratch(struct gen *g)
{
	int r = pick(g, K_NONE, 0, 5);

	if (r < 0)
		r = rn(g, 6);
	return r;
}

/* The packet's data/data_end in the context of this program type. */
static bool ctx_pkt_offsets(struct gen *g, int *data, int *end)
{
	switch (g->p->type) {
	case BPF_PROG_TYPE_XDP:
		*data = 0;
		*end = 4;
		return true;
	case BPF_PROG_TYPE_SCHED_CLS:
		*data = 76;
		*end = 80;
		return true;
	default:
		return false;
	}
}

/* u32 fields of the context a program of this type may read */
static int ctx_read_off(struct gen *g)
{
	static const int skb[] = { 0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60, 64, 68 };
	/* not data, data_end, data_meta: those read as packet pointers */
	static const int xdp[] = { 12, 16 };

	if (g->p->type == BPF_PROG_TYPE_XDP)
		return xdp[rn(g, 2)];
	return skb[rn(g, sizeof(skb) / sizeof(skb[0]))];
}

/* ---- scalars ---- */

/* a scalar the verifier cannot know: read from a map value */
static void gen_load_scalar(struct gen *g, int dst)
{
	static const int sizes[] = { BPF_B, BPF_H, BPF_W, BPF_DW };
	static const int bytes[] = { 1, 2, 4, 8 };
	int p = pick(g, K_MAPVAL, 0, 9), s, off;

	if (p < 0) {
		if (g->r[BPF_REG_6].k == K_CTX && !g->sub) {
			emit(g, I(BPF_LDX | BPF_MEM | BPF_W, dst, BPF_REG_6, ctx_read_off(g), 0));
			mark_scalar(g, dst, true, 0, 0xffffffff);
		} else {
			emit_const(g, dst, some_const64(g));
		}
		return;
	}
	s = rn(g, 4);
	while (s && bytes[s] > g->r[p].size - g->r[p].off)
		s--;
	if (bytes[s] > g->r[p].size - g->r[p].off)
		goto konst;
	off = rn(g, g->r[p].size - g->r[p].off - bytes[s] + 1);
	off &= ~(bytes[s] - 1);
	off += g->r[p].off;
	if (off + bytes[s] > g->r[p].size || off < 0)
		goto konst;
	if (s < 3 && chance(g, 20)) {	/* sign-extending load */
		emit(g, I(BPF_LDX | BPF_MEMSX | sizes[s], dst, p, off - g->r[p].off, 0));
		mark_scalar(g, dst, false, 0, 0);
	} else {
		emit(g, I(BPF_LDX | BPF_MEM | sizes[s], dst, p, off - g->r[p].off, 0));
		mark_scalar(g, dst, true, 0, s == 3 ? ~0ull : (1ull << (8 * bytes[s])) - 1);
		if (s == 3)
			g->r[dst].bounded = false;
	}
	return;
konst:
	emit_const(g, dst, some_const64(g));
}

static int get_scalar(struct gen *g)
{
	int r = pick(g, K_SCALAR, 0, 9);

	if (r < 0 || chance(g, 15)) {
		r = scratch(g);
		gen_load_scalar(g, r);
	}
	return r;
}

/*
 * Now and then, store a result into a map value: the differential oracle
 * compares the maps after the run, so a value computed wrong is seen even
 * when the program overwrites the register later.
 */
static void observe(struct gen *g, int r)
{
	int p = pick(g, K_MAPVAL, 6, 9), sz;

	if (p < 0 || !chance(g, 40))
		return;
	sz = g->r[p].size >= 8 ? 8 : g->r[p].size >= 4 ? 4 : 0;
	if (!sz)
		return;
	emit(g, I(BPF_STX | BPF_MEM | (sz == 8 ? BPF_DW : BPF_W), p, r,
		  (int16_t)(rn(g, (g->r[p].size - sz) / sz + 1) * sz), 0));
}

/* dst op= src|imm: every ALU operation, 32 and 64 bit; the estimate kept where simple */
static void gen_alu(struct gen *g)
{
	static const uint8_t ops[] = {
		BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_MOD, BPF_OR, BPF_AND, BPF_LSH,
		BPF_RSH, BPF_ARSH, BPF_NEG, BPF_XOR, BPF_MOV, BPF_END,
	};
	int dst = get_scalar(g), src = -1;
	bool alu64 = chance(g, 55), x = chance(g, 35);
	uint8_t op = ops[rn(g, sizeof(ops) / sizeof(ops[0]))];
	uint8_t cls = alu64 ? BPF_ALU64 : BPF_ALU;
	int32_t imm = some_imm(g);
	int16_t off = 0;
	struct reg d = g->r[dst];

	if (x) {
		src = pick(g, K_SCALAR, 0, 9);
		if (src < 0)
			x = false;
	}
	switch (op) {
	case BPF_LSH: case BPF_RSH: case BPF_ARSH:
		if (!x)
			imm = rn(g, alu64 ? 64 : 32);
		break;
	case BPF_DIV: case BPF_MOD:
		off = chance(g, 25);	/* sdiv, smod */
		if (!x && !imm)
			imm = 1 + rn(g, 16);
		break;
	case BPF_MOV:
		if (x && chance(g, 25)) {	/* movsx */
			static const int16_t sx[] = { 8, 16, 32 };

			off = sx[rn(g, alu64 ? 3 : 2)];
		}
		break;
	case BPF_NEG:
		x = false;
		imm = 0;
		break;
	case BPF_END: {
		static const int32_t w[] = { 16, 32, 64 };

		imm = w[rn(g, 3)];
		x = false;
		/* BPF_ALU: to le/be (BPF_K le, BPF_X be); BPF_ALU64: bswap */
		if (!alu64 && chance(g, 50))
			x = true;
		emit(g, I(cls | BPF_END | (x ? BPF_X : BPF_K), dst, 0, 0, imm));
		mark_scalar(g, dst, imm < 64, 0, imm < 64 ? (1ull << imm) - 1 : 0);
		return;
	}
	}
	emit(g, I(cls | op | (x ? BPF_X : BPF_K), dst, x ? src : 0, off, x ? 0 : imm));

	observe(g, dst);
	/* the estimate: only the forms whose result range is plain */
	if (op == BPF_MOV && !x && !off) {
		mark_const(g, dst, alu64 ? (uint64_t)(int64_t)imm : (uint32_t)imm);
	} else if (op == BPF_MOV && x && !off) {
		g->r[dst] = g->r[src];
		if (!alu64)
			mark_scalar(g, dst, g->r[src].bounded && g->r[src].hi <= 0xffffffff,
				    g->r[src].lo, g->r[src].hi);
	} else if (op == BPF_AND && !x && imm >= 0) {
		mark_scalar(g, dst, true, 0, d.bounded && d.hi < (uint64_t)imm ? d.hi : (uint64_t)imm);
	} else if (op == BPF_RSH && !x && alu64 && imm > 0) {
		mark_scalar(g, dst, true, d.bounded ? d.lo >> imm : 0,
			    d.bounded ? d.hi >> imm : ~0ull >> imm);
	} else if (op == BPF_ADD && !x && d.bounded && imm >= 0 && d.hi + imm >= d.hi &&
		   (alu64 || d.hi + imm <= 0xffffffff)) {
		mark_scalar(g, dst, true, d.lo + imm, d.hi + imm);
	} else if (!alu64) {
		mark_scalar(g, dst, true, 0, 0xffffffff);
	} else {
		mark_scalar(g, dst, false, 0, 0);
	}
}

/*
 * Bound a scalar: "if dst <op> K goto out" (signed or unsigned, 32 or 64
 * bit), or two of them, or a mask; on the way on, dst lies in [lo, hi],
 * what the estimate keeps.
 */
static void gen_bound(struct gen *g, int dst, uint64_t want_hi)
{
	bool j32 = chance(g, 30);
	uint8_t cls = j32 ? BPF_JMP32 : BPF_JMP;
	uint64_t lo = 0, hi = want_hi;

	/* a bound no immediate holds: against registers, from below too */
	if (want_hi > 0x7fffffff) {
		bool sgn = chance(g, 30);
		int b = scratch(g), c;

		if (b == dst)
			b = (dst + 1) % 6;
		c = (b + 1) % 6 == dst ? (b + 2) % 6 : (b + 1) % 6;
		emit_const(g, b, want_hi);
		jmp_out(g, BPF_JMP | (sgn ? BPF_JSGT : BPF_JGT) | BPF_X, dst, b, 0);
		if (chance(g, 60)) {
			lo = chance(g, 50) ? rn(g, 16) : rnd(g) % want_hi;
			emit_const(g, c, lo);
			jmp_out(g, BPF_JMP | BPF_JLT | BPF_X, dst, c, 0);
		}
		/* signed, a negative value passes: no unsigned range */
		mark_scalar(g, dst, !sgn, lo, hi);
		return;
	}
	switch (rn(g, 6)) {
	case 0:		/* mask: only when the bound is 2^n - 1 */
		if (!(want_hi & (want_hi + 1))) {
			emit(g, I(BPF_ALU64 | BPF_AND | BPF_K, dst, 0, 0, (int32_t)want_hi));
			break;
		}
		/* fall through */
	case 1:		/* unsigned upper bound */
		jmp_out(g, cls | BPF_JGT | BPF_K, dst, 0, (int32_t)want_hi);
		if (j32)	/* 32-bit compare: the upper half is still unknown */
			jmp_out(g, BPF_JMP | BPF_JGT | BPF_K, dst, 0, (int32_t)want_hi);
		break;
	case 2:		/* unsigned, the other way round */
		jmp_out(g, cls | BPF_JGE | BPF_K, dst, 0, (int32_t)want_hi + 1);
		if (j32)
			jmp_out(g, BPF_JMP | BPF_JGE | BPF_K, dst, 0, (int32_t)want_hi + 1);
		break;
	case 3:		/* signed pair */
		jmp_out(g, cls | BPF_JSLT | BPF_K, dst, 0, 0);
		jmp_out(g, cls | BPF_JSGT | BPF_K, dst, 0, (int32_t)want_hi);
		if (j32)
			jmp_out(g, BPF_JMP | BPF_JGT | BPF_K, dst, 0, (int32_t)want_hi);
		break;
	case 4: {	/* against a register holding the bound */
		int b = scratch(g);

		if (b == dst)
			b = (dst + 1) % 6;
		emit(g, I(BPF_ALU64 | BPF_MOV | BPF_K, b, 0, 0, (int32_t)want_hi));
		mark_const(g, b, want_hi);
		jmp_out(g, cls | BPF_JGT | BPF_X, dst, b, 0);
		if (j32)
			jmp_out(g, BPF_JMP | BPF_JGT | BPF_X, dst, b, 0);
		break;
	}
	default: {	/* a lower bound too, and an unsigned one */
		uint64_t l = want_hi ? rn(g, want_hi) : 0;

		jmp_out(g, cls | BPF_JLT | BPF_K, dst, 0, (int32_t)l);
		jmp_out(g, BPF_JMP | BPF_JGT | BPF_K, dst, 0, (int32_t)want_hi);
		lo = j32 ? 0 : l;
		break;
	}
	}
	mark_scalar(g, dst, true, lo, hi);
}

/* some arithmetic on a bounded scalar whose result the estimate follows */
static void gen_bounded_arith(struct gen *g, int r)
{
	struct reg *s = &g->r[r];
	int n = rn(g, 3);

	while (n-- > 0 && s->bounded) {
		switch (rn(g, 5)) {
		case 0:
			if (s->hi < 0x10000) {
				uint32_t k = rn(g, 4);

				emit(g, I(BPF_ALU64 | BPF_LSH | BPF_K, r, 0, 0, k));
				s->lo <<= k;
				s->hi <<= k;
			}
			break;
		case 1: {
			uint32_t k = 1 + rn(g, 3);

			emit(g, I((chance(g, 50) ? BPF_ALU64 : BPF_ALU) | BPF_RSH | BPF_K, r, 0, 0, k));
			s->lo >>= k;
			s->hi >>= k;
			break;
		}
		case 2:		/* 32-bit move: zero-extends, keeps a value < 2^32 */
			if (s->hi <= 0xffffffff)
				emit(g, I(BPF_ALU | BPF_MOV | BPF_X, r, r, 0, 0));
			break;
		case 3: {
			uint32_t k = rn(g, 8);

			if (s->hi < 0x10000) {
				emit(g, I((chance(g, 50) ? BPF_ALU64 : BPF_ALU) | BPF_ADD | BPF_K, r, 0, 0, k));
				s->lo += k;
				s->hi += k;
			}
			break;
		}
		default:
			if (s->lo >= 1 && s->hi < 0x10000) {
				emit(g, I(BPF_ALU64 | BPF_SUB | BPF_K, r, 0, 0, 1));
				s->lo--;
				s->hi--;
			}
		}
	}
}

/* small constants: the ones comparisons and masks in real programs use */
static const int32_t small_k[] = {
	0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 48, 63, 64, 255, 0xffff, -1, 0x7fffffff,
	(int32_t)0x80000000,
};

static int32_t some_small(struct gen *g)
{
	return small_k[rn(g, sizeof(small_k) / sizeof(small_k[0]))];
}

/*
 * dst = a constant, then a few operations with constants on it, 32 and 64
 * bit: what constant folding leaves in compiled code, and what the
 * verifier must track exactly.
 */
static void gen_const_chain(struct gen *g, int dst)
{
	int n = 1 + rn(g, 3);

	emit(g, I((chance(g, 50) ? BPF_ALU : BPF_ALU64) | BPF_MOV | BPF_K, dst, 0, 0,
		  chance(g, 50) ? some_small(g) : some_imm(g)));
	while (n--) {
		static const uint8_t ops[] = { BPF_ADD, BPF_SUB, BPF_AND, BPF_OR, BPF_XOR,
			BPF_LSH, BPF_RSH, BPF_ARSH, BPF_MUL };
		uint8_t op = ops[rn(g, sizeof(ops) / sizeof(ops[0]))];
		bool alu64 = chance(g, 50);
		int32_t k = some_small(g);

		if (op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH)
			k = alu64 ? (chance(g, 50) ? 32 : rn(g, 64)) : rn(g, 32);
		emit(g, I((alu64 ? BPF_ALU64 : BPF_ALU) | op | BPF_K, dst, 0, 0, k));
	}
	mark_scalar(g, dst, false, 0, 0);
}

/*
 * What a scalar goes through between where it is read and where it is
 * used: comparisons of either width that leave the way on, 32-bit moves
 * of itself, operations with small constants, a comparison with another
 * scalar. No estimate is kept: the caller trusts the verifier's.
 */
static void gen_derivation(struct gen *g, int s)
{
	static const uint8_t jops[] = { BPF_JGT, BPF_JGE, BPF_JLT, BPF_JLE, BPF_JSGT,
		BPF_JSGE, BPF_JSLT, BPF_JSLE, BPF_JNE, BPF_JEQ, BPF_JSET };
	int n = rn(g, 6), o;

	while (n-- > 0) {
		switch (rn(g, 5)) {
		case 0:
		case 1:
			jmp_out(g, (chance(g, 50) ? BPF_JMP32 : BPF_JMP) |
				jops[rn(g, sizeof(jops) / sizeof(jops[0]))] | BPF_K, s, 0, some_small(g));
			break;
		case 2:
			emit(g, I(BPF_ALU | BPF_MOV | BPF_X, s, s, 0, 0));
			break;
		case 3: {
			static const uint8_t ops[] = { BPF_ADD, BPF_SUB, BPF_AND, BPF_OR,
				BPF_XOR, BPF_LSH, BPF_RSH, BPF_ARSH, BPF_MUL, BPF_NEG };
			uint8_t op = ops[rn(g, sizeof(ops) / sizeof(ops[0]))];
			bool alu64 = chance(g, 50);
			int32_t k = some_small(g);

			if (op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH)
				k = rn(g, alu64 ? 64 : 32);
			if (op == BPF_NEG)
				k = 0;
			emit(g, I((alu64 ? BPF_ALU64 : BPF_ALU) | op | BPF_K, s, 0, 0, k));
			break;
		}
		default:
			o = pick(g, K_SCALAR, 0, 9);
			if (o >= 0 && o != s)
				jmp_out(g, (chance(g, 50) ? BPF_JMP32 : BPF_JMP) |
					jops[rn(g, sizeof(jops) / sizeof(jops[0]))] | BPF_X, s, o, 0);
		}
	}
}

/* ---- memory ---- */

static const uint8_t size_code[] = { BPF_B, BPF_H, BPF_W, BPF_DW };

static void gen_access_at(struct gen *g, int base, int16_t off, int sz, bool atomic_ok)
{
	uint8_t sc = size_code[__builtin_ctz(sz)];
	int v;

	switch (rn(g, atomic_ok && sz >= 4 ? 5 : 4)) {
	case 0:
	case 1: {
		int dst = scratch(g);

		if (sz < 8 && chance(g, 20)) {
			emit(g, I(BPF_LDX | BPF_MEMSX | sc, dst, base, off, 0));
			mark_scalar(g, dst, false, 0, 0);
		} else {
			emit(g, I(BPF_LDX | BPF_MEM | sc, dst, base, off, 0));
			mark_scalar(g, dst, sz < 8, 0, sz < 8 ? (1ull << (8 * sz)) - 1 : 0);
		}
		break;
	}
	case 2:
		emit(g, I(BPF_ST | BPF_MEM | sc, base, 0, off, some_imm(g)));
		break;
	case 3:
		v = pick(g, K_SCALAR, 0, 9);
		if (v < 0)
			emit(g, I(BPF_ST | BPF_MEM | sc, base, 0, off, some_imm(g)));
		else
			emit(g, I(BPF_STX | BPF_MEM | sc, base, v, off, 0));
		break;
	default: {
		static const int32_t aops[] = {
			BPF_ADD, BPF_AND, BPF_OR, BPF_XOR, BPF_ADD | BPF_FETCH, BPF_AND | BPF_FETCH,
			BPF_OR | BPF_FETCH, BPF_XOR | BPF_FETCH, BPF_XCHG, BPF_CMPXCHG,
		};
		int32_t a = aops[rn(g, sizeof(aops) / sizeof(aops[0]))];

		if (a == BPF_CMPXCHG && base == 0)	/* it compares with r0, its base here */
			a = BPF_XCHG;

		v = pick(g, K_SCALAR, 1, 9);
		if (v < 0 || v == base) {
			v = base == BPF_REG_1 ? BPF_REG_2 : BPF_REG_1;
			emit(g, I(BPF_ALU64 | BPF_MOV | BPF_K, v, 0, 0, some_imm(g)));
			mark_scalar(g, v, false, 0, 0);
		}
		if (a == BPF_CMPXCHG) {
			if (g->r[0].k != K_SCALAR) {
				emit(g, I(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, some_imm(g)));
			}
			mark_scalar(g, 0, false, 0, 0);
		}
		emit(g, I(BPF_STX | BPF_ATOMIC | sc, base, v, off, a));
		if (a & BPF_FETCH && a != BPF_CMPXCHG)
			mark_scalar(g, v, false, 0, 0);
		if (a == BPF_CMPXCHG)
			mark_scalar(g, 0, false, 0, 0);
	}
	}
}

/* a pointer's bytes an access may reach from its current fixed offset */
static int room(struct gen *g, int p)
{
	return g->r[p].size - (int)g->r[p].off;
}

/*
 * The heart of it: move a copy of pointer @p by a bounded scalar and
 * access it at the edge of what the bound allows; sometimes just past it.
 */
static void gen_ptr_access(struct gen *g)
{
	int p = pick_ptr(g), s, t, sz, space, off, data, end;
	uint64_t hi;
	bool past, trust;

	if (p < 0 || room(g, p) <= 0)
		return;
	sz = 1 << rn(g, 4);
	while (sz > room(g, p))
		sz >>= 1;
	space = room(g, p) - sz;	/* the largest offset of an access */
	past = g->risky && chance(g, 15);

	if (chance(g, 25)) {	/* a fixed offset only */
		off = rn(g, space + 1);
		if (chance(g, 60))
			off &= ~(sz - 1);
		if (past)
			off = space + 1 + rn(g, 8);
		if (g->r[p].k == K_PKT)
			off = off > space ? space : off;
		/* atomics: aligned, and never on the packet (the verifier's rule) */
		gen_access_at(g, p, off, sz, !(off & (sz - 1)) && g->r[p].k != K_PKT);
		return;
	}
	s = get_scalar(g);
	trust = g->risky && chance(g, 40);
	if (trust) {
		/*
		 * Trust the verifier: no bound of the estimate's. A few
		 * comparisons of either width, a few operations with small
		 * constants, then the access as if the scalar were small: a
		 * correct verifier takes it only where it proved the access
		 * safe, from constants and the program's own checks.
		 */
		if (chance(g, 30))
			gen_const_chain(g, s);
		gen_derivation(g, s);
		g->r[s].bounded = true;
		g->r[s].lo = g->r[s].hi = 0;
	} else if (!g->r[s].bounded || g->r[s].hi > (uint64_t)space || chance(g, 30)) {
		hi = rn(g, space + 1);
		if (chance(g, 40))	/* a bound that leaves room for the size */
			hi &= ~(uint64_t)(sz - 1);
		gen_bound(g, s, hi);
		if (chance(g, 40))
			gen_bounded_arith(g, s);
	}
	if (!g->r[s].bounded || g->r[s].hi > (uint64_t)space + (past ? 16 : 0))
		return;
	t = scratch(g);
	while (t == s || t == p)
		t = (t + 1) % 6;
	emit(g, I(BPF_ALU64 | BPF_MOV | BPF_X, t, p, 0, 0));
	emit(g, I(BPF_ALU64 | BPF_ADD | BPF_X, t, s, 0, 0));
	g->r[t] = g->r[p];
	hi = g->r[s].hi;
	off = space - (int)hi;
	if (off > 0)
		off = rn(g, off + 1);
	if (past)
		off += 1 + rn(g, sz);
	if (g->r[p].k == K_PKT) {
		/* the packet's own check: is [t + off, t + off + sz) below data_end? */
		int e = 0, q;

		if (!ctx_pkt_offsets(g, &data, &end) || g->r[BPF_REG_6].k != K_CTX)
			return;
		while (e == t || e == s || e == p)
			e++;
		q = e + 1;
		while (q == t || q == s || q == p)
			q++;
		emit(g, I(BPF_LDX | BPF_MEM | BPF_W, e, BPF_REG_6, end, 0));
		emit(g, I(BPF_ALU64 | BPF_MOV | BPF_X, q, t, 0, 0));
		emit(g, I(BPF_ALU64 | BPF_ADD | BPF_K, q, 0, 0, off + sz));
		jmp_out(g, BPF_JMP | BPF_JGT | BPF_X, q, e, 0);
		g->r[e].k = K_PKT_END;
		g->r[q].k = K_NONE;
	}
	gen_access_at(g, t, off, sz, false);
	g->r[t].k = K_NONE;
	if (trust && g->r[s].k == K_SCALAR)	/* the estimate never knew it */
		g->r[s].bounded = false;
}

/*
 * Variable-offset stack access: r = r10 + (bounded scalar << log2(size)),
 * at a negative offset. The verifier checks stack accesses for alignment
 * always, so the scalar is scaled to the access size.
 */
static void gen_stack_access(struct gen *g)
{
	int s = get_scalar(g), t, sz = 1 << rn(g, 4), k = rn(g, 6), off;

	gen_bound(g, s, k);
	if (sz > 1)
		emit(g, I(BPF_ALU64 | BPF_LSH | BPF_K, s, 0, 0, __builtin_ctz(sz)));
	mark_scalar(g, s, true, 0, (uint64_t)k * sz);
	t = scratch(g);
	if (t == s)
		t = (s + 1) % 6;
	emit(g, I(BPF_ALU64 | BPF_MOV | BPF_X, t, R10, 0, 0));
	emit(g, I(BPF_ALU64 | BPF_ADD | BPF_X, t, s, 0, 0));
	off = -k * sz - sz - sz * (int)rn(g, (STACK_ZEROED - k * sz) / sz);
	if (-off > STACK_ZEROED)
		off = -STACK_ZEROED;
	gen_access_at(g, t, off, sz, true);
	g->r[t].k = K_NONE;
	/* the stack's contents changed: what the slots held is not known any more */
	memset(g->slot, 0, sizeof(g->slot));
}

static void gen_spill_fill(struct gen *g)
{
	int slot = rn(g, STACK_ZEROED / 8), r;

	if (g->slot[slot] != K_NONE && chance(g, 60)) {
		r = scratch(g);
		if (g->slot[slot] == K_SCALAR && chance(g, 30)) {	/* a partial fill */
			emit(g, I(BPF_LDX | BPF_MEM | BPF_W, r, R10, -8 * (slot + 1), 0));
			mark_scalar(g, r, true, 0, 0xffffffff);
		} else {
			emit(g, I(BPF_LDX | BPF_MEM | BPF_DW, r, R10, -8 * (slot + 1), 0));
			g->r[r] = g->slotreg[slot];
		}
		return;
	}
	r = rn(g, 10);
	if (g->r[r].k == K_NONE || g->r[r].k == K_PKT_END || g->r[r].k == K_LOOP || r == g->ref)
		return;
	emit(g, I(BPF_STX | BPF_MEM | BPF_DW, R10, r, -8 * (slot + 1), 0));
	g->slot[slot] = g->r[r].k;
	g->slotreg[slot] = g->r[r];
}

/* r0-r5 after a call: r0 its result, r1-r5 gone */
static void clobber(struct gen *g)
{
	int i;

	for (i = 0; i <= 5; i++)
		g->r[i].k = K_NONE;
}

/*
 * Now and then, move a helper's result that may be NULL before checking
 * it: a correct verifier refuses arithmetic on a maybe-NULL pointer.
 */
static void maybe_null_arith(struct gen *g)
{
	int d = 0, s;

	if (!g->risky || !chance(g, 15))
		return;
	/* a copy first (the check of r0 decides both), one of the two moved */
	if (chance(g, 50)) {
		int c = 1 + rn(g, 5);

		emit(g, I(BPF_ALU64 | BPF_MOV | BPF_X, c, 0, 0, 0));
		if (chance(g, 50))
			d = c;
	}
	if (chance(g, 50)) {
		emit(g, I(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, (int32_t)interesting[rn(g, 16)]));
	} else {
		s = pick(g, K_SCALAR, 6, 9);
		if (s >= 0)
			emit(g, I(BPF_ALU64 | BPF_ADD | BPF_X, d, s, 0, 0));
	}
}

/* key of element @i of @map on the stack at fp - 8 * (slot + 1), in @dst */
static void key_on_stack(struct gen *g, int map, int dst)
{
	uint8_t key[8] = { 0 };
	uint32_t i = chance(g, 90) ? rn(g, fz_maps[map].max_entries) : rn(g, 64);
	int32_t w0, w1;
	int slot = STACK_ZEROED / 8 - 1;

	fz_map_key(map, i, key);
	memcpy(&w0, key, 4);
	memcpy(&w1, key + 4, 4);
	emit(g, I(BPF_ST | BPF_MEM | BPF_W, R10, 0, -8 * (slot + 1), w0));
	emit(g, I(BPF_ST | BPF_MEM | BPF_W, R10, 0, -8 * (slot + 1) + 4, w1));
	emit(g, I(BPF_ALU64 | BPF_MOV | BPF_X, dst, R10, 0, 0));
	emit(g, I(BPF_ALU64 | BPF_ADD | BPF_K, dst, 0, 0, -8 * (slot + 1)));
	g->slot[slot] = K_NONE;
}

static const int value_maps[] = {
	FZ_ARRAY_8, FZ_ARRAY_48, FZ_ARRAY_SMALL, FZ_ARRAY_13, FZ_ARRAY_64, FZ_HASH_8B,
	FZ_HASH_16B, FZ_HASH_48B, FZ_LRU_24, FZ_PERCPU_32, FZ_LPM_12,
};

/* rd = a map value or NULL; the null check jumps to out */
static void gen_lookup(struct gen *g, int rd, bool check)
{
	int map = value_maps[rn(g, sizeof(value_maps) / sizeof(value_maps[0]))];

	emit_ld_map(g, BPF_REG_1, map);
	key_on_stack(g, map, BPF_REG_2);
	emit(g, I(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem));
	clobber(g);
	maybe_null_arith(g);
	if (check || chance(g, 95))
		jmp_out(g, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 0);
	if (rd != 0)
		emit(g, I(BPF_ALU64 | BPF_MOV | BPF_X, rd, 0, 0, 0));
	g->r[rd] = (struct reg){ .k = K_MAPVAL, .map = map, .size = fz_maps[map].value_size };
	g->r[0] = g->r[rd];
}

static void gen_update(struct gen *g)
{
	int map = value_maps[rn(g, 9)];	/* not percpu, not LPM */
	int slot = STACK_ZEROED / 8 - 1 - 8;	/* value at fp-80.. fp-16 area */

	if (fz_maps[map].value_size > 64)
		return;
	emit_ld_map(g, BPF_REG_1, map);
	key_on_stack(g, map, BPF_REG_2);
	emit(g, I(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_3, R10, 0, 0));
	emit(g, I(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_3, 0, 0, -8 * (slot + 8)));
	emit(g, I(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_4, 0, 0, 0));
	emit(g, I(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_update_elem));
	clobber(g);
	mark_scalar(g, 0, false, 0, 0);
}

/* ---- programs ---- */

static void gen_steps(struct gen *g, int n);

/* a subprogram or callback: its body comes after the main program */
struct subreq {
	int at;		/* the call or ld_imm64 to patch */
	bool callback;	/* bpf_loop()'s: (u32 index, void *ctx) -> 0 or 1 */
	enum kind arg2;
	int arg2_map, arg2_size;
};

static struct subreq subs[8];
static int nsubs;

static void gen_call_sub(struct gen *g)
{
	int s;

	if (nsubs >= 8 || g->sub)
		return;
	s = get_scalar(g);
	if (s != BPF_REG_1)
		emit(g, I(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, s, 0, 0));
	subs[nsubs] = (struct subreq){ .at = g->p->len, .arg2 = K_NONE };
	if (chance(g, 60)) {	/* a map value as its second argument */
		int p = pick(g, K_MAPVAL, 6, 9);

		if (p >= 0 && g->r[p].off == 0) {
			emit(g, I(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, p, 0, 0));
			subs[nsubs] = (struct subreq){ .at = g->p->len, .arg2 = K_MAPVAL,
				.arg2_map = g->r[p].map, .arg2_size = g->r[p].size };
		}
	}
	emit(g, I(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 0));
	nsubs++;
	clobber(g);
	mark_scalar(g, 0, false, 0, 0);
}

static void gen_loop_call(struct gen *g)
{
	if (nsubs >= 8 || g->sub)
		return;
	emit(g, I(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1 + rn(g, 8)));
	subs[nsubs] = (struct subreq){ .at = g->p->len, .callback = true };
	emit(g, I(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_2, BPF_PSEUDO_FUNC, 0, 0));
	emit(g, I(0, 0, 0, 0, 0));
	emit(g, I(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_3, 0, 0, 0));
	emit(g, I(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_4, 0, 0, 0));
	emit(g, I(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_loop));
	nsubs++;
	clobber(g);
	mark_scalar(g, 0, true, 0, 8);
}

static void gen_tail_call(struct gen *g)
{
	if (g->sub || g->r[BPF_REG_6].k != K_CTX || g->ref >= 0)
		return;
	emit(g, I(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_6, 0, 0));
	emit_ld_map(g, BPF_REG_2, FZ_PROG_ARRAY);
	emit(g, I(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_3, 0, 0, rn(g, 5)));
	emit(g, I(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_tail_call));
	clobber(g);
}

/* a bounded loop: a counter and a back edge around a few steps */
static void gen_loop(struct gen *g)
{
	int c = BPF_REG_9, top, n = 1 + rn(g, 6);

	if (g->r[c].k != K_NONE || g->sub)
		return;
	emit(g, I(BPF_ALU64 | BPF_MOV | BPF_K, c, 0, 0, 0));
	g->r[c].k = K_LOOP;
	top = g->p->len;
	gen_steps(g, 1 + rn(g, 3));
	emit(g, I(BPF_ALU64 | BPF_ADD | BPF_K, c, 0, 0, 1));
	emit(g, I((chance(g, 50) ? BPF_JMP32 : BPF_JMP) | BPF_JLT | BPF_K, c, 0,
		  top - (int)g->p->len - 1, n));
	g->r[c].k = K_NONE;
	/* what the body made of the registers is a loop's worth of unknown */
	for (int i = 0; i <= 5; i++)
		if (g->r[i].k == K_SCALAR)
			g->r[i].bounded = false;
}

/* a branch over a few steps: a join that the verifier may prune at */
static void gen_diamond(struct gen *g)
{
	int a = get_scalar(g), b = pick(g, K_SCALAR, 0, 9), at, i;
	uint8_t op = cond_ops[rn(g, NCOND_OPS)];
	struct reg save[11];
	bool x = b >= 0 && chance(g, 50);

	at = g->p->len;
	emit(g, I((chance(g, 40) ? BPF_JMP32 : BPF_JMP) | op | (x ? BPF_X : BPF_K), a,
		  x ? b : 0, 0, x ? 0 : some_imm(g)));
	memcpy(save, g->r, sizeof(save));
	gen_steps(g, 1 + rn(g, 4));
	if (g->full)
		return;
	g->p->insns[at].off = g->p->len - at - 1;
	/* after the join: what either path left */
	for (i = 0; i < 11; i++) {
		if (save[i].k != g->r[i].k || (save[i].k != K_SCALAR &&
		    memcmp(&save[i], &g->r[i], sizeof(save[i])))) {
			g->r[i].k = K_NONE;
		} else if (save[i].k == K_SCALAR) {
			bool bd = save[i].bounded && g->r[i].bounded;
			uint64_t lo = save[i].lo < g->r[i].lo ? save[i].lo : g->r[i].lo;
			uint64_t hi = save[i].hi > g->r[i].hi ? save[i].hi : g->r[i].hi;

			mark_scalar(g, i, bd, lo, hi);
		}
	}
	memset(g->slot, 0, sizeof(g->slot));
}

static void gen_ctx_access(struct gen *g)
{
	int r = scratch(g);

	if (g->r[BPF_REG_6].k != K_CTX)
		return;
	if (g->p->type != BPF_PROG_TYPE_XDP && chance(g, 30)) {	/* cb[] is writable */
		int v = pick(g, K_SCALAR, 0, 9), off = 48 + 4 * rn(g, 5);

		if (v >= 0)
			emit(g, I(BPF_STX | BPF_MEM | BPF_W, BPF_REG_6, v, off, 0));
		return;
	}
	emit(g, I(BPF_LDX | BPF_MEM | BPF_W, r, BPF_REG_6, ctx_read_off(g), 0));
	mark_scalar(g, r, true, 0, 0xffffffff);
}

static void gen_steps(struct gen *g, int n)
{
	while (n-- > 0 && !g->full) {
		uint32_t w = rn(g, 100);

		if (w < 22)
			gen_alu(g);
		else if (w < 50)
			gen_ptr_access(g);
		else if (w < 56)
			gen_bound(g, get_scalar(g), chance(g, 25) ? some_const64(g) :
				  interesting[rn(g, 20)]);
		else if (w < 63)
			gen_spill_fill(g);
		else if (w < 70)
			gen_diamond(g);
		else if (w < 74)
			gen_stack_access(g);
		else if (w < 78)
			gen_ctx_access(g);
		else if (w < 82 && !g->sub)
			gen_lookup(g, 0, false);
		else if (w < 84 && !g->sub)
			gen_update(g);
		else if (w < 87)
			gen_call_sub(g);
		else if (w < 89)
			gen_loop_call(g);
		else if (w < 91)
			gen_tail_call(g);
		else if (w < 94)
			gen_loop(g);
		else
			gen_load_scalar(g, scratch(g));
	}
}

static void zero_stack(struct gen *g)
{
	int o;

	for (o = 8; o <= STACK_ZEROED; o += 8)
		emit(g, I(BPF_ST | BPF_MEM | BPF_DW, R10, 0, -o, 0));
	memset(g->slot, 0, sizeof(g->slot));
}

/* the frame's end: "out" (r0 = 0) and the common exit; patch the jumps */
static void gen_epilogue(struct gen *g, bool callback)
{
	int r = pick(g, K_SCALAR, 0, 9), end_jmp, out = 0, i;

	if (r >= 0 && !callback) {
		int i;

		/*
		 * The result: every scalar the program holds folded in, upper
		 * halves too, so that a value computed wrong anywhere shows in
		 * the 32 bits the differential oracle compares.
		 */
		emit(g, I(BPF_ALU64 | BPF_MOV | BPF_X, 0, r, 0, 0));
		for (i = 1; i <= 9; i++)
			if (i != r && g->r[i].k == K_SCALAR)
				emit(g, I(BPF_ALU64 | BPF_XOR | BPF_X, 0, i, 0, 0));
		emit(g, I(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, 0, 0, 0));
		emit(g, I(BPF_ALU64 | BPF_RSH | BPF_K, BPF_REG_1, 0, 0, 32));
		emit(g, I(BPF_ALU64 | BPF_XOR | BPF_X, 0, BPF_REG_1, 0, 0));
	} else {
		emit(g, I(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, callback ? rn(g, 2) : rn(g, 4)));
	}
	/* "out", where the checks that fail go: none, no block (unreachable code is refused) */
	if (g->nout) {
		end_jmp = g->p->len;
		emit(g, I(BPF_JMP | BPF_JA, 0, 0, 0, 0));
		out = g->p->len;
		emit(g, I(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, callback ? 1 : 2));
		g->p->insns[end_jmp].off = g->p->len - end_jmp - 1;
	}
	if (g->ref >= 0) {
		emit(g, I(BPF_STX | BPF_MEM | BPF_DW, R10, 0, -STACK_ZEROED - 8, 0));
		emit(g, I(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, g->ref, 0, 0));
		emit(g, I(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, 0));
		emit(g, I(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ringbuf_discard));
		emit(g, I(BPF_LDX | BPF_MEM | BPF_DW, 0, R10, -STACK_ZEROED - 8, 0));
	}
	emit(g, I(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
	for (i = 0; i < g->nout; i++)
		g->p->insns[g->out[i]].off = out - g->out[i] - 1;
	g->nout = 0;
}

static void gen_subprog(struct gen *g, struct subreq *s)
{
	int start = g->p->len, i;

	memset(g->r, 0, sizeof(g->r));
	g->sub = true;
	g->ref = -1;
	g->nout = 0;
	zero_stack(g);
	if (s->callback) {
		mark_scalar(g, BPF_REG_1, true, 0, 0xffffffff);
	} else {
		mark_scalar(g, BPF_REG_1, false, 0, 0);
		if (s->arg2 == K_MAPVAL)
			g->r[BPF_REG_2] = (struct reg){ .k = K_MAPVAL, .map = s->arg2_map,
							.size = s->arg2_size };
	}
	/* callee-saved copies, so that calls inside keep them */
	for (i = 1; i <= 2; i++) {
		if (g->r[i].k != K_NONE) {
			emit(g, I(BPF_ALU64 | BPF_MOV | BPF_X, 5 + i, i, 0, 0));
			g->r[5 + i] = g->r[i];
		}
	}
	gen_steps(g, 2 + rn(g, 8));
	gen_epilogue(g, s->callback);
	/* the caller's call or ld_imm64 points here */
	g->p->insns[s->at].imm = start - s->at - 1;
}

/* The main program's prologue: the context, the pointers it works on. */
static void gen_prologue(struct gen *g)
{
	int data, end, n, i, r;

	emit(g, I(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_6, BPF_REG_1, 0, 0));
	g->r[BPF_REG_6] = (struct reg){ .k = K_CTX };
	zero_stack(g);
	n = 1 + rn(g, 3);
	for (i = 0; i < n && i < 3; i++) {
		r = 7 + i;
		switch (rn(g, 10)) {
		case 0:
		case 1:
			if (ctx_pkt_offsets(g, &data, &end)) {
				int need = 1 + rn(g, 64);

				emit(g, I(BPF_LDX | BPF_MEM | BPF_W, r, BPF_REG_6, data, 0));
				emit(g, I(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_3, BPF_REG_6, end, 0));
				emit(g, I(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, r, 0, 0));
				emit(g, I(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, need));
				jmp_out(g, BPF_JMP | BPF_JGT | BPF_X, BPF_REG_2, BPF_REG_3, 0);
				g->r[r] = (struct reg){ .k = K_PKT, .size = need };
				break;
			}
			/* fall through */
		case 2:
			if (g->ref < 0 && i == n - 1) {	/* ring buffer memory, released at exit */
				/* now and then more than the ring holds: NULL at run time */
				int sz = chance(g, 90) ? 8 * (1 + (int)rn(g, 8)) :
					 (int)fz_maps[FZ_RINGBUF].max_entries + 8 * ((int)rn(g, 3) - 1);

				emit_ld_map(g, BPF_REG_1, FZ_RINGBUF);
				emit(g, I(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, sz));
				emit(g, I(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_3, 0, 0, 0));
				emit(g, I(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ringbuf_reserve));
				maybe_null_arith(g);
				/* NULL: nothing to release; straight out */
				emit(g, I(BPF_JMP | BPF_JNE | BPF_K, 0, 0, 2, 0));
				emit(g, I(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 3));
				emit(g, I(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
				emit(g, I(BPF_ALU64 | BPF_MOV | BPF_X, r, 0, 0, 0));
				clobber(g);
				g->r[r] = (struct reg){ .k = K_MEM, .size = sz };
				g->ref = r;
				break;
			}
			/* fall through */
		default:
			gen_lookup(g, r, true);
			clobber(g);
		}
	}
	for (i = 0; i < 1 + (int)rn(g, 3); i++)
		gen_load_scalar(g, rn(g, 6));
}

static void gen_packet(struct gen *g)
{
	uint32_t i;

	g->p->data_len = 64 + rn(g, 64);
	for (i = 0; i < g->p->data_len; i++)
		g->p->data[i] = chance(g, 50) ? 0 : (uint8_t)rnd(g);
	g->p->data[12] = 0x08;
	g->p->data[13] = 0;
}

void fz_generate(struct fz_prog *p, uint64_t *rng)
{
	static const uint32_t types[] = {
		BPF_PROG_TYPE_SCHED_CLS, BPF_PROG_TYPE_XDP, BPF_PROG_TYPE_SOCKET_FILTER,
	};
	struct gen g = { .p = p, .rng = rng, .ref = -1 };
	int i, n;

	memset(p, 0, sizeof(*p));
	p->type = types[rn(&g, 3)];
	p->seed = rnd(&g);
	/*
	 * Most programs are ones a correct verifier takes: what the checks
	 * watch run. The rest put some accesses past what the program's own
	 * checks allow, or trust the verifier to know a scalar: a correct
	 * verifier refuses most of those, a wrong one runs them.
	 */
	g.risky = chance(&g, 35);
	nsubs = 0;
	gen_packet(&g);
	gen_prologue(&g);
	gen_steps(&g, 3 + rn(&g, 14));
	gen_epilogue(&g, false);
	n = nsubs;
	for (i = 0; i < n && !g.full; i++)
		gen_subprog(&g, &subs[i]);
	if (g.full) {	/* too long to finish well: a trivial program instead */
		p->len = 0;
		g.full = false;
		emit(&g, I(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0));
		emit(&g, I(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
	}
}

/* ---- mutation ---- */

/*
 * Does @in name another instruction by its distance, index + 1 + rel_of():
 * a jump (the JMP32 gotol's in imm), a bpf-to-bpf call or a callback's
 * ld_imm64 (a subprogram's start, in imm)?
 */
static bool names_insn(const struct bpf_insn *in)
{
	return fz_insn_names_subprog(in) || fz_insn_is_jump(in);
}

static int32_t rel_of(const struct bpf_insn *in)
{
	return fz_insn_names_subprog(in) ? in->imm : fz_insn_jump_off(in);
}

static void set_rel(struct bpf_insn *in, int32_t rel)
{
	if (fz_insn_names_subprog(in))
		in->imm = rel;
	else
		fz_insn_set_jump_off(in, rel);
}

/*
 * Insert @n instructions at @at (before it); their slots are left to the
 * caller. A jump from before @at to it lands on them; a jump back to @at
 * from after it, and the calls of a subprogram that starts at @at, keep
 * their instruction.
 */
bool fz_insert(struct fz_prog *p, uint32_t at, uint32_t n)
{
	uint32_t i;

	if (p->len + n > FZ_MAX_INSNS || at > p->len)
		return false;
	memmove(&p->insns[at + n], &p->insns[at], (p->len - at) * sizeof(p->insns[0]));
	p->len += n;
	for (i = 0; i < p->len; i++) {
		struct bpf_insn *in = &p->insns[i];
		int src, tgt, moved;

		if ((i >= at && i < at + n) || !names_insn(in))
			continue;
		src = i < at ? (int)i : (int)i - (int)n;	/* index before */
		tgt = src + 1 + rel_of(in);
		moved = tgt > (int)at ||
			(tgt == (int)at && (fz_insn_names_subprog(in) || src >= (int)at));
		if (src < (int)at && moved)
			set_rel(in, rel_of(in) + (int32_t)n);
		else if (src >= (int)at && !moved)
			set_rel(in, rel_of(in) - (int32_t)n);
	}
	return true;
}

/* delete @n instructions at @at; jumps into them land after */
void fz_delete(struct fz_prog *p, uint32_t at, uint32_t n)
{
	uint32_t i;

	if (at + n > p->len)
		return;
	for (i = 0; i < p->len; i++) {
		struct bpf_insn *in = &p->insns[i];
		int tgt, nt, ni;

		if ((i >= at && i < at + n) || !names_insn(in))
			continue;
		tgt = (int)i + 1 + rel_of(in);
		nt = tgt >= (int)(at + n) ? tgt - (int)n : tgt > (int)at ? (int)at : tgt;
		ni = i >= at + n ? (int)i - (int)n : (int)i;
		set_rel(in, nt - ni - 1);
	}
	memmove(&p->insns[at], &p->insns[at + n], (p->len - at - n) * sizeof(p->insns[0]));
	p->len -= n;
}

bool fz_duplicate(struct fz_prog *p, uint32_t at)
{
	struct bpf_insn *c;

	if (!fz_insert(p, at, 1))
		return false;
	c = &p->insns[at];
	*c = p->insns[at + 1];
	/* the copy, one before, reaches the same target */
	if (names_insn(c))
		set_rel(c, rel_of(c) + 1);
	return true;
}

static uint32_t pick_insn(struct fz_prog *p, uint64_t *rng)
{
	uint32_t i = fz_mix(rng) % p->len;

	/* not the second half of an ld_imm64 */
	if (i && fz_insn_is_ld64(&p->insns[i - 1]))
		i--;
	return i;
}

void fz_mutate(struct fz_prog *p, const struct fz_prog *other, uint64_t *rng)
{
	int rounds = 1 + fz_mix(rng) % 3;
	struct gen g = { .p = p, .rng = rng, .ref = -1 };

	while (rounds--) {
		uint32_t i;
		struct bpf_insn *in;

		if (!p->len)
			return;
		i = pick_insn(p, rng);
		in = &p->insns[i];
		switch (fz_mix(rng) % 10) {
		case 0:		/* immediate */
			if (!fz_insn_is_ld64(in) && BPF_OP(in->code) != BPF_CALL)
				in->imm = some_imm(&g);
			break;
		case 1:		/* offset of a memory access */
			if (BPF_CLASS(in->code) == BPF_LDX || BPF_CLASS(in->code) == BPF_STX ||
			    BPF_CLASS(in->code) == BPF_ST)
				in->off += (int)(fz_mix(rng) % 17) - 8;
			break;
		case 2:		/* a register */
			if (!fz_insn_is_ld64(in)) {
				if (fz_mix(rng) & 1)
					in->dst_reg = fz_mix(rng) % 10;
				else if (BPF_SRC(in->code) == BPF_X)
					in->src_reg = fz_mix(rng) % 11;
			}
			break;
		case 3:		/* the operation, within its class */
			if (BPF_CLASS(in->code) == BPF_ALU || BPF_CLASS(in->code) == BPF_ALU64) {
				static const uint8_t ops[] = { BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV,
					BPF_MOD, BPF_OR, BPF_AND, BPF_LSH, BPF_RSH, BPF_ARSH, BPF_XOR, BPF_MOV };

				in->code = BPF_CLASS(in->code) | BPF_SRC(in->code) | ops[fz_mix(rng) % 12];
				/* off: sdiv/smod's 1, movsx's width; reserved for the rest */
				if (BPF_OP(in->code) != BPF_DIV && BPF_OP(in->code) != BPF_MOD)
					in->off = 0;
			} else if ((BPF_CLASS(in->code) == BPF_JMP || BPF_CLASS(in->code) == BPF_JMP32) &&
				   BPF_OP(in->code) != BPF_CALL && BPF_OP(in->code) != BPF_EXIT &&
				   BPF_OP(in->code) != BPF_JA) {
				in->code = BPF_CLASS(in->code) | BPF_SRC(in->code) |
					   cond_ops[fz_mix(rng) % NCOND_OPS];
			} else if (BPF_CLASS(in->code) == BPF_LDX || BPF_CLASS(in->code) == BPF_STX ||
				   BPF_CLASS(in->code) == BPF_ST) {
				in->code = (in->code & ~0x18) | size_code[fz_mix(rng) % 4];
			}
			break;
		case 4:		/* 32 <-> 64 bit */
			if (BPF_CLASS(in->code) == BPF_ALU)
				in->code = (in->code & ~7) | BPF_ALU64;
			else if (BPF_CLASS(in->code) == BPF_ALU64)
				in->code = (in->code & ~7) | BPF_ALU;
			else if (BPF_CLASS(in->code) == BPF_JMP && BPF_OP(in->code) != BPF_CALL &&
				 BPF_OP(in->code) != BPF_EXIT && BPF_OP(in->code) != BPF_JA)
				in->code = (in->code & ~7) | BPF_JMP32;
			else if (BPF_CLASS(in->code) == BPF_JMP32)
				in->code = (in->code & ~7) | BPF_JMP;
			break;
		case 5:		/* delete; not the last instruction, where jumps to it would fall off */
			if (p->len > 4 && i + (fz_insn_is_ld64(in) ? 2 : 1) < p->len)
				fz_delete(p, i, fz_insn_is_ld64(in) ? 2 : 1);
			break;
		case 6:		/* duplicate */
			if (!fz_insn_is_ld64(in) && BPF_OP(in->code) != BPF_EXIT)
				fz_duplicate(p, i);
			break;
		case 7:		/* insert a generated ALU or bound */
			if (fz_insert(p, i, 1)) {
				static const uint8_t ops[] = { BPF_ADD, BPF_SUB, BPF_AND, BPF_OR,
					BPF_LSH, BPF_RSH, BPF_ARSH, BPF_MOV, BPF_XOR, BPF_NEG };
				uint8_t cls = fz_mix(rng) & 1 ? BPF_ALU64 : BPF_ALU;

				p->insns[i] = I(cls | ops[fz_mix(rng) % 10] | BPF_K, fz_mix(rng) % 6, 0, 0,
						some_imm(&g));
			}
			break;
		case 8:		/* splice: a run of the other program's instructions */
			if (other && other->len > 2) {
				uint32_t a = fz_mix(rng) % other->len, n = 1 + fz_mix(rng) % 8, k;

				if (a + n > other->len)
					n = other->len - a;
				for (k = 0; k < n; k++) {
					const struct bpf_insn *o = &other->insns[a + k];
					uint8_t c = BPF_CLASS(o->code);

					if (fz_insn_is_ld64(o) || c == BPF_JMP || c == BPF_JMP32)
						break;
				}
				n = k;
				if (n && fz_insert(p, i, n))
					memcpy(&p->insns[i], &other->insns[a], n * sizeof(p->insns[0]));
			}
			break;
		default:	/* the maps' contents or the packet */
			if (fz_mix(rng) & 1)
				p->seed = fz_mix(rng);
			else if (p->data_len)
				p->data[fz_mix(rng) % p->data_len] = fz_mix(rng);
		}
	}
}
