// SPDX-License-Identifier: GPL-2.0
/*
 * bjk-fuzz's belief probe: what the verifier believed of a register,
 * checked against the value the register held when the program ran, and,
 * where the two disagree, a program that turns the wrong belief into a
 * memory access for the checks to judge.
 *
 * A checked JIT reports a verifier bug only when the wrong belief ends up
 * addressing memory. Most programs compute a value the verifier gets wrong
 * and then never use it as an offset (or use it where the error does not
 * leave the object), so a search that waits for the access misses the bug
 * behind it. In the spirit of BVF's state embedding (OSDI '24), the probe
 * asks of each instruction I of the main function that writes (or
 * compares) a register rX: which values did the verifier allow in rX after
 * I (its log at level 2, every path that reached I), and which did rX hold
 * at run time? It does so with two programs made from the one under test:
 *
 *   record:    after each such insn, a store of its register into a
 *              stack slot; every exit through an epilogue that copies
 *              the slots into a map
 *   escalate:  the main function cut after insn I; r9 = rX moved into
 *              [0, W] by the belief; r0 = a 64-byte map value; read 1
 *              byte at r0 + 63 - W + r9
 *
 * The escalation is built from the record's run: its arithmetic puts the
 * byte just past the map value exactly when rX holds the recorded value,
 * and inside the value for every value the verifier allowed. The
 * verifier judges the escalation afresh: where the record's "belief" was
 * only an imprecise state that pruning let through (not a bug: the value
 * was never used), the escalation, which uses it as an offset, is refused
 * or proved in bounds; where the verifier is wrong, it takes a program
 * whose read leaves the map value, and the JIT's checks (or the
 * interpreter's KASAN) must report it. So the probe adds no finding of
 * its own: the KASAN report is the finding, and a run of the escalation
 * without one would be the checks' miss (the differential oracle's
 * "missed" kind).
 *
 * The probe knows nothing of any particular verifier bug: it reads the
 * ranges the log prints for every scalar (u64, s64, u32, s32, tnum).
 */
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "gen.h"
#include "probe.h"

#define I(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
					     .off = (o), .imm = (i) })

/* the first subprogram's start: where the main function ends */
uint32_t fz_main_end(const struct fz_prog *p)
{
	uint32_t i, end = p->len;

	for (i = 0; i < p->len; i++) {
		int64_t t = (int64_t)i + 1 + p->insns[i].imm;

		if (fz_insn_names_subprog(&p->insns[i]) && t > 0 && t < end)
			end = t;
	}
	return end;
}

/* the subprogram starts of @p after its main function, ascending; their number */
static uint32_t subprog_starts(const struct fz_prog *p, uint32_t end, uint32_t *start)
{
	uint32_t i, j, n = 0;

	for (i = 0; i < p->len; i++) {
		int64_t t = (int64_t)i + 1 + p->insns[i].imm;

		if (!fz_insn_names_subprog(&p->insns[i]) || t < end || t >= p->len)
			continue;
		for (j = 0; j < n && start[j] != t; j++)
			;
		if (j == n)
			start[n++] = t;
	}
	for (i = 1; i < n; i++)	/* insertion sort: a handful */
		for (j = i; j > 0 && start[j - 1] > start[j]; j--) {
			uint32_t x = start[j];

			start[j] = start[j - 1];
			start[j - 1] = x;
		}
	return n;
}

bool fz_prefix(const struct fz_prog *p, uint32_t at, const struct bpf_insn *tail, uint32_t n,
	       struct fz_prog *out)
{
	static int32_t to[FZ_MAX_INSNS];	/* old index -> new, -1 dropped */
	static uint32_t start[FZ_MAX_INSNS];
	static bool used[FZ_MAX_INSNS];
	uint32_t end = fz_main_end(p), nsub, i, j, stub, len;
	bool need_stub = false, changed = true;

	if (at >= end || (at + 1 < p->len && fz_insn_is_ld64(&p->insns[at])))
		return false;
	/*
	 * The subprograms the kept part still calls, and those they call: the
	 * verifier refuses a program with one that nothing calls.
	 */
	nsub = subprog_starts(p, end, start);
	memset(used, 0, nsub * sizeof(used[0]));
	while (changed) {
		changed = false;
		for (i = 0; i < p->len; i++) {
			int64_t t = (int64_t)i + 1 + p->insns[i].imm;
			uint32_t from;

			if (!fz_insn_names_subprog(&p->insns[i]))
				continue;
			/* the subprogram (or main part) the reference is in */
			if (i <= at) {
				from = UINT32_MAX;
			} else if (i < end) {
				continue;	/* in the cut part */
			} else {
				for (from = nsub - 1; start[from] > i; from--)
					;
				if (!used[from])
					continue;
			}
			for (j = 0; j < nsub; j++)
				if (start[j] == t && !used[j])
					used[j] = changed = true;
		}
	}
	for (i = 0; i <= at; i++) {
		int64_t t = (int64_t)i + 1 + fz_insn_jump_off(&p->insns[i]);

		if (fz_insn_is_jump(&p->insns[i]) && t > at)
			need_stub = true;
	}
	stub = at + 1 + n;
	len = stub + (need_stub ? 2 : 0);
	for (i = 0; i < p->len; i++)
		to[i] = i <= at ? (int32_t)i : -1;
	for (j = 0; j < nsub; j++) {
		uint32_t e = j + 1 < nsub ? start[j + 1] : p->len;

		if (!used[j])
			continue;
		if (len + (e - start[j]) > FZ_MAX_INSNS)
			return false;
		for (i = start[j]; i < e; i++)
			to[i] = len++;
	}
	*out = *p;
	memcpy(&out->insns[at + 1], tail, n * sizeof(*tail));
	if (need_stub) {
		out->insns[stub] = I(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
		out->insns[stub + 1] = I(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	}
	for (i = end; i < p->len; i++)
		if (to[i] >= 0)
			out->insns[to[i]] = p->insns[i];
	out->len = len;
	/* references by old index: a subprogram's, or a jump out of the kept part */
	for (i = 0; i < p->len; i++) {
		struct bpf_insn *in;
		int64_t t;

		if (to[i] < 0)
			continue;
		in = &out->insns[to[i]];
		if (fz_insn_names_subprog(in)) {
			t = (int64_t)i + 1 + in->imm;
			if (t >= 0 && t < p->len && to[t] >= 0)
				in->imm = to[t] - to[i] - 1;
		} else if (fz_insn_is_jump(in) && i <= at) {
			t = (int64_t)i + 1 + fz_insn_jump_off(in);
			if (t > at)
				fz_insn_set_jump_off(in, (int32_t)(stub - i - 1));
		}
	}
	return true;
}

/* ---- what the log says ---- */

static void belief_any(struct fz_belief *b)
{
	memset(b, 0, sizeof(*b));
	b->umax = UINT64_MAX;
	b->smin = INT64_MIN;
	b->smax = INT64_MAX;
	b->u32max = UINT32_MAX;
	b->s32min = INT32_MIN;
	b->s32max = INT32_MAX;
	b->tmask = UINT64_MAX;
}

static void belief_const(struct fz_belief *b, uint64_t v)
{
	b->umin = b->umax = v;
	b->smin = b->smax = (int64_t)v;
	b->u32min = b->u32max = (uint32_t)v;
	b->s32min = b->s32max = (int32_t)v;
	b->tval = v;
	b->tmask = 0;
}

static uint64_t num(const char *s, const char **end)
{
	char *e;
	uint64_t v = *s == '-' ? (uint64_t)strtoll(s, &e, 0) : strtoull(s, &e, 0);

	*end = e;
	return v;
}

/*
 * One register's state as print_reg_state() prints it, at @s (after
 * "Rn...="): a constant, [P]scalar(...) or anything else (a pointer).
 */
static bool parse_state(const char *s, struct fz_belief *b)
{
	const char *e;

	if (*s == 'P')
		s++;
	belief_any(b);
	if (*s == '-' || (*s >= '0' && *s <= '9')) {
		belief_const(b, num(s, &e));
		return true;
	}
	if (strncmp(s, "scalar(", 7))
		return false;
	s += 7;
	while (*s && *s != ')') {
		/* NAME=NAME=...=VALUE, items split by ',' */
		const char *names = s, *val = s;
		uint64_t v, val2 = 0;

		while (*s && *s != ',' && *s != ')') {
			if (*s == '=')
				val = s + 1;
			if (*s == '(') {	/* var_off=(VALUE; MASK) */
				v = num(s + 1, &e);
				if (*e != ';')
					return false;
				val2 = num(e + 1, &e);
				if (*e != ')')
					return false;
				b->tval = v;
				b->tmask = val2;
				s = e;
			}
			s++;
		}
		if (val != names && strncmp(names, "var_off", 7) && strncmp(names, "id=", 3)) {
			const char *n;

			v = num(val, &e);
			for (n = names; n < val; n = strchr(n, '=') + 1) {
				if (!strncmp(n, "smin32=", 7))
					b->s32min = (int32_t)v;
				else if (!strncmp(n, "smax32=", 7))
					b->s32max = (int32_t)v;
				else if (!strncmp(n, "umin32=", 7))
					b->u32min = (uint32_t)v;
				else if (!strncmp(n, "umax32=", 7))
					b->u32max = (uint32_t)v;
				else if (!strncmp(n, "smin=", 5))
					b->smin = (int64_t)v;
				else if (!strncmp(n, "smax=", 5))
					b->smax = (int64_t)v;
				else if (!strncmp(n, "umin=", 5))
					b->umin = v;
				else if (!strncmp(n, "umax=", 5))
					b->umax = v;
			}
		}
		if (*s == ',')
			s++;
	}
	return *s == ')';
}

static void belief_union(struct fz_belief *a, const struct fz_belief *b)
{
	uint64_t mask = a->tmask | b->tmask | (a->tval ^ b->tval);

	a->umin = b->umin < a->umin ? b->umin : a->umin;
	a->umax = b->umax > a->umax ? b->umax : a->umax;
	a->smin = b->smin < a->smin ? b->smin : a->smin;
	a->smax = b->smax > a->smax ? b->smax : a->smax;
	a->u32min = b->u32min < a->u32min ? b->u32min : a->u32min;
	a->u32max = b->u32max > a->u32max ? b->u32max : a->u32max;
	a->s32min = b->s32min < a->s32min ? b->s32min : a->s32min;
	a->s32max = b->s32max > a->s32max ? b->s32max : a->s32max;
	a->tmask = mask;
	a->tval &= ~mask;
}

int fz_belief_parse(const char *log, uint32_t insn, int reg, struct fz_belief *b)
{
	char want[16], tok[8];
	const char *l, *s;
	int paths = 0;

	snprintf(want, sizeof(want), "%u:", insn);
	snprintf(tok, sizeof(tok), " R%d", reg);
	for (l = log; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *nl = strchr(l, '\n');
		struct fz_belief one;

		if (strncmp(l, want, strlen(want)))
			continue;
		/* the state the line prints: after "; " (the insn's) or at once */
		s = l + strlen(want);
		if (*s == ' ' && s[1] == '(') {
			s = strstr(s, "; ");
			if (!s || (nl && s > nl))
				continue;
		}
		for (;;) {
			s = strstr(s, tok);
			if (!s || (nl && s > nl))
				break;
			s += strlen(tok);
			if (*s == '=' || *s == '_')
				break;
		}
		if (!s || (nl && s > nl))
			continue;
		s = strchr(s, '=');
		if (!s || !parse_state(s + 1, &one))
			return -1;	/* not a scalar on every path */
		if (paths++)
			belief_union(b, &one);
		else
			*b = one;
	}
	return paths;
}

const char *fz_belief_broken(const struct fz_belief *b, uint64_t v)
{
	if (v < b->umin || v > b->umax)
		return "u64";
	if ((int64_t)v < b->smin || (int64_t)v > b->smax)
		return "s64";
	if ((uint32_t)v < b->u32min || (uint32_t)v > b->u32max)
		return "u32";
	if ((int32_t)v < b->s32min || (int32_t)v > b->s32max)
		return "s32";
	if ((v & ~b->tmask) != b->tval)
		return "tnum";
	return NULL;
}

/* ---- the two programs' tails ---- */

#define LD64(d, m, v) \
	I(BPF_LD | BPF_DW | BPF_IMM, d, m, 0, (int32_t)(uint32_t)(v)), \
	I(0, 0, 0, 0, (int32_t)(uint32_t)((uint64_t)(v) >> 32))

/* r0 = the element of @map at key @key (stored at r10 + @at), or NULL */
static uint32_t lookup(struct bpf_insn *t, int map, int32_t key, int16_t at)
{
	struct bpf_insn s[] = {
		I(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, at, key),
		LD64(BPF_REG_1, BPF_PSEUDO_MAP_FD, map),
		I(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0),
		I(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, at),
		I(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
	};

	memcpy(t, s, sizeof(s));
	return sizeof(s) / sizeof(s[0]);
}

/* Does @x leave a register worth recording: one it wrote, or one it compared? */
static int recorded_reg(const struct bpf_insn *x)
{
	uint8_t cls = BPF_CLASS(x->code), op = BPF_OP(x->code);

	if (cls == BPF_ALU || cls == BPF_ALU64 || cls == BPF_LDX)
		return x->dst_reg < BPF_REG_10 ? x->dst_reg : -1;
	/* a conditional jump's fall-through: the bounds it made */
	if ((cls == BPF_JMP || cls == BPF_JMP32) && op != BPF_JA && op != BPF_CALL &&
	    op != BPF_EXIT && op != BPF_JCOND)
		return x->dst_reg < BPF_REG_10 ? x->dst_reg : -1;
	return -1;
}

/* the deepest stack offset @p's main function names through r10 or a constant it adds */
static int stack_used(const struct fz_prog *p, uint32_t end)
{
	int deepest = 96, o;	/* the generator's prologue zeroes 96 bytes */
	uint32_t i;

	for (i = 0; i < end; i++) {
		const struct bpf_insn *x = &p->insns[i];

		o = 0;
		if ((BPF_CLASS(x->code) == BPF_LDX && x->src_reg == BPF_REG_10) ||
		    fz_insn_is_stack_store(x))
			o = -x->off;
		else if (x->code == (BPF_ALU64 | BPF_ADD | BPF_K) && x->imm < 0 && x->imm >= -512)
			o = -x->imm;	/* maybe a stack pointer moved down */
		if (o > deepest)
			deepest = o;
	}
	return (deepest + 7) & ~7;
}

/*
 * Room for @n instructions at @at that no jump lands on: fz_insert() puts
 * new instructions where a jump to @at lands (the mutator's insertion),
 * the record's stores and prologue belong to the path through @at - 1
 * only. (@keep: a jump left landing on them, the instruction before.)
 */
static bool insert_unseen(struct fz_prog *p, uint32_t at, uint32_t n, int64_t keep)
{
	uint32_t i;

	if (!fz_insert(p, at, n))
		return false;
	for (i = 0; i < p->len; i++) {
		struct bpf_insn *x = &p->insns[i];

		if ((i >= at && i < at + n) || i == keep || !fz_insn_is_jump(x) ||
		    (int64_t)i + 1 + fz_insn_jump_off(x) != at)
			continue;
		fz_insn_set_jump_off(x, fz_insn_jump_off(x) + n);
	}
	return true;
}

#define FZ_LINKED_MAX	4	/* registers recorded after one conditional jump */

/*
 * The registers worth recording after @p's instruction @i, into @regs:
 * the one it wrote; after a conditional jump, the ones it compared and
 * their copies (rA = rB, then maybe rA += K) made since the last place
 * paths meet, whose bounds the verifier narrows with the compared one's.
 * Every register named is initialized there: written, or read by the copy.
 */
static int recorded_regs(const struct fz_prog *p, const bool *target, uint32_t i, int *regs)
{
	const struct bpf_insn *x = &p->insns[i];
	int grp[11], fresh = 11, n = 0, r, c, a;
	uint32_t j, start = i;

	r = recorded_reg(x);
	if (r < 0)
		return 0;
	regs[n++] = r;
	if (!fz_insn_is_jump(x))
		return n;
	if (BPF_SRC(x->code) == BPF_X && x->src_reg < BPF_REG_10 && x->src_reg != r &&
	    n < FZ_LINKED_MAX)
		regs[n++] = x->src_reg;
	/* back to where paths meet: a jump target, or after a jump, call or exit */
	while (start > 0 && !target[start] && BPF_CLASS(p->insns[start - 1].code) != BPF_JMP &&
	       BPF_CLASS(p->insns[start - 1].code) != BPF_JMP32)
		start--;
	for (r = 0; r < 11; r++)
		grp[r] = r;
	for (j = start; j < i; j++) {
		const struct bpf_insn *y = &p->insns[j];
		uint8_t cls = BPF_CLASS(y->code);

		if (fz_insn_is_ld64(y)) {
			grp[y->dst_reg % 11] = fresh++;
			j++;
		} else if (y->code == (BPF_ALU64 | BPF_MOV | BPF_X) && !y->off) {
			grp[y->dst_reg % 11] = grp[y->src_reg % 11];
		} else if (y->code == (BPF_ALU64 | BPF_ADD | BPF_K) ||
			   y->code == (BPF_ALU64 | BPF_SUB | BPF_K)) {
			continue;	/* a constant apart: still linked */
		} else if (cls == BPF_ALU || cls == BPF_ALU64 || cls == BPF_LDX) {
			grp[y->dst_reg % 11] = fresh++;
		} else if (cls == BPF_STX && BPF_MODE(y->code) == BPF_ATOMIC) {
			grp[y->src_reg % 11] = fresh++;
			grp[BPF_REG_0] = fresh++;
		}
	}
	for (c = 0, a = n; c < a; c++)
		for (r = 0; r < BPF_REG_10 && n < FZ_LINKED_MAX; r++) {
			bool seen = false;

			for (j = 0; j < (uint32_t)n; j++)
				seen |= regs[j] == r;
			if (!seen && grp[r] == grp[regs[c]])
				regs[n++] = r;
		}
	return n;
}

int fz_embed(const struct fz_prog *p, struct fz_prog *out, struct fz_slot *slot)
{
	uint32_t end = fz_main_end(p), i, j, n = 0, epi, exits = 0;
	int base = stack_used(p, end), room, k, m, r, regs[FZ_LINKED_MAX];
	bool calls = end < p->len;
	static bool target[FZ_MAX_INSNS + 1];
	struct bpf_insn t[FZ_PROBE_SLOTS * 2 + 16];

	/* a main frame near 512 bytes leaves a subprogram's frame no room */
	room = ((calls ? 384 : 512) - base - 16) / 8;
	if (room > FZ_PROBE_SLOTS)
		room = FZ_PROBE_SLOTS;
	if (room <= 0)
		return 0;
	memset(target, 0, sizeof(target));
	for (i = 0; i < p->len; i++) {
		int64_t to = (int64_t)i + 1 + fz_insn_jump_off(&p->insns[i]);

		if (fz_insn_is_jump(&p->insns[i]) && to >= 0 && to <= (int64_t)p->len)
			target[to] = true;
	}
	*out = *p;
	/* the stores, last first: an insertion moves only what comes after it */
	for (i = 0; i < end; i++)
		if (!(i && fz_insn_is_ld64(&p->insns[i - 1])))
			n += recorded_regs(p, target, i, regs);
	if (n > (uint32_t)room)
		n = room;
	k = n;
	for (i = end; i-- > 0 && k > 0; ) {
		if (i && fz_insn_is_ld64(&p->insns[i - 1]))
			continue;
		m = recorded_regs(p, target, i, regs);
		if (m > k)	/* the oldest left out: keep the first registers */
			m = k;
		if (!m)
			continue;
		if (!insert_unseen(out, i + 1, m, i))
			return 0;
		for (r = m; r-- > 0; ) {
			k--;
			out->insns[i + 1 + r] = I(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_10, regs[r], -(base + 8 * (k + 1)), 0);
			slot[k].insn = i;
			slot[k].reg = regs[r];
		}
	}
	/* the slots' indexes in @out: after the prologue, each store one later than the last */
	for (k = 0; k < (int)n; k++)
		slot[k].store = slot[k].insn + 1 + k + n;
	/* the prologue: each slot marked, so a store never reached is told apart */
	if (!insert_unseen(out, 0, n, -1))
		return 0;
	for (k = 0; k < (int)n; k++)
		out->insns[k] = I(BPF_ST | BPF_MEM | BPF_DW, BPF_REG_10, 0, -(base + 8 * (k + 1)),
				  FZ_PROBE_MARK);
	/* the epilogue, where the main function ended: every exit of it goes there */
	epi = fz_main_end(out);
	k = 0;
	t[k++] = I(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_10, BPF_REG_0, -(base + 8 * (int)n + 16), 0);
	k += lookup(t + k, FZ_PROBE, 0, -(base + 8 * (int)n + 8));
	t[k++] = I(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 2 * n + 1, 0);
	for (j = 0; j < n; j++) {
		t[k++] = I(BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_1, BPF_REG_10, -(base + 8 * (int)(j + 1)), 0);
		t[k++] = I(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_0, BPF_REG_1, 8 * j, 0);
	}
	t[k++] = I(BPF_ST | BPF_MEM | BPF_DW, BPF_REG_0, 0, FZ_PROBE_DONE_OFF, FZ_PROBE_MARK);
	t[k++] = I(BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_0, BPF_REG_10, -(base + 8 * (int)n + 16), 0);
	t[k++] = I(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	if (!fz_insert(out, epi, k))
		return 0;
	memcpy(&out->insns[epi], t, k * sizeof(t[0]));
	for (i = 0; i < epi; i++) {
		if (out->insns[i].code != (BPF_JMP | BPF_EXIT) || (i && fz_insn_is_ld64(&out->insns[i - 1])))
			continue;
		out->insns[i] = I(BPF_JMP | BPF_JA, 0, 0, (int16_t)(epi - i - 1), 0);
		exits++;
	}
	return exits ? (int)n : 0;
}

/*
 * How rX becomes r9 in [0, w] for the verifier and d > w at run time:
 * above the belief r9 = rX - lo, below it r9 = hi - rX (u64 and s64 in
 * 64-bit arithmetic, u32 and s32 in 32-bit), outside the tnum r9 = (rX ^
 * value) & ~mask (w = 0). Then r9 >>= s, s the highest bit where d and w
 * differ, so that the verifier's r9 is at most w >> s and the run's is
 * one more: the read at c = 63 - (w >> s) is the map value's last byte
 * for the verifier and the byte after it for the run.
 */
bool fz_probe_plan(const struct fz_belief *b, uint64_t v, struct fz_plan *pl)
{
	const char *what = fz_belief_broken(b, v);
	uint64_t lo, hi;
	int s;

	if (!what)
		return false;
	memset(pl, 0, sizeof(*pl));
	pl->what = what;
	pl->bits = 64;
	if (!strcmp(what, "u64") || !strcmp(what, "s64")) {
		bool u = what[0] == 'u';

		lo = u ? b->umin : (uint64_t)b->smin;
		hi = u ? b->umax : (uint64_t)b->smax;
		pl->above = u ? v > b->umax : (int64_t)v > b->smax;
	} else if (!strcmp(what, "u32") || !strcmp(what, "s32")) {
		bool u = what[0] == 'u';

		pl->bits = 32;
		lo = u ? b->u32min : (uint32_t)b->s32min;
		hi = u ? b->u32max : (uint32_t)b->s32max;
		pl->above = u ? (uint32_t)v > b->u32max : (int32_t)v > b->s32max;
		v = (uint32_t)v;
	} else {
		pl->tnum = true;
		pl->lo = b->tval;
		pl->hi = ~b->tmask;
		pl->w = 0;
		pl->d = (v ^ b->tval) & ~b->tmask;
		goto shift;
	}
	pl->lo = lo;
	pl->hi = hi;
	pl->w = hi - lo;
	pl->d = pl->above ? v - lo : hi - v;
	if (pl->bits == 32) {
		pl->w = (uint32_t)pl->w;
		pl->d = (uint32_t)pl->d;
	}
shift:
	for (s = pl->bits - 1; s >= 0; s--)
		if ((pl->d >> s) > (pl->w >> s))
			break;
	if (s < 0 || (pl->w >> s) > FZ_PROBE_VALUE - 1)
		return false;	/* the error is too small beside the range */
	pl->shift = s;
	pl->off = FZ_PROBE_VALUE - 1 - (pl->w >> s);
	return true;
}

uint32_t fz_probe_escalate(const struct fz_plan *pl, int reg, struct bpf_insn *t)
{
	uint8_t alu = pl->bits == 32 ? BPF_ALU : BPF_ALU64;
	uint32_t n = 0;

	/* r8 first: reg may be r7 or r9, which the arithmetic takes */
	t[n++] = I(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_8, reg, 0, 0);
	if (pl->tnum) {
		struct bpf_insn s[] = {
			I(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_9, BPF_REG_8, 0, 0),
			LD64(BPF_REG_7, 0, pl->lo),
			I(BPF_ALU64 | BPF_XOR | BPF_X, BPF_REG_9, BPF_REG_7, 0, 0),
			LD64(BPF_REG_7, 0, pl->hi),
			I(BPF_ALU64 | BPF_AND | BPF_X, BPF_REG_9, BPF_REG_7, 0, 0),
		};

		memcpy(t + n, s, sizeof(s));
		n += sizeof(s) / sizeof(s[0]);
	} else if (pl->above) {
		struct bpf_insn s[] = {
			I(alu | BPF_MOV | BPF_X, BPF_REG_9, BPF_REG_8, 0, 0),
			LD64(BPF_REG_7, 0, pl->lo),
			I(alu | BPF_SUB | BPF_X, BPF_REG_9, BPF_REG_7, 0, 0),
		};

		memcpy(t + n, s, sizeof(s));
		n += sizeof(s) / sizeof(s[0]);
	} else {
		struct bpf_insn s[] = {
			LD64(BPF_REG_9, 0, pl->hi),
			I(alu | BPF_SUB | BPF_X, BPF_REG_9, BPF_REG_8, 0, 0),
		};

		memcpy(t + n, s, sizeof(s));
		n += sizeof(s) / sizeof(s[0]);
	}
	if (pl->shift)
		t[n++] = I(BPF_ALU64 | BPF_RSH | BPF_K, BPF_REG_9, 0, 0, pl->shift);
	/* the last element: past its value is past the array's allocation */
	n += lookup(t + n, FZ_PROBE_ESCALATE_MAP, fz_maps[FZ_PROBE_ESCALATE_MAP].max_entries - 1, -88);
	t[n++] = I(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 2, 0);
	t[n++] = I(BPF_ALU64 | BPF_ADD | BPF_X, BPF_REG_0, BPF_REG_9, 0, 0);
	t[n++] = I(BPF_LDX | BPF_MEM | BPF_B, BPF_REG_1, BPF_REG_0, pl->off, 0);
	t[n++] = I(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
	t[n++] = I(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return n;
}
