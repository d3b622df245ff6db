// SPDX-License-Identifier: GPL-2.0
/*
 * bjk-fuzz-selftest: the fuzzer's parts that need no kernel, on the host
 * (tests/host/fuzz.sh). It loads nothing. Cases, one KTAP line each:
 *   gen.shape     N generated programs: every jump, call and callback
 *                 reference lands inside the program on an instruction
 *                 (never the second half of an ld_imm64), every map index
 *                 is one of fz_maps[], the last instruction is an exit
 *   mutate.shape  the same after mutations, insertions and deletions
 *   retarget.keeps  a deletion and an insertion keep a jump, a call and a
 *                 callback reference over them on their targets; a
 *                 duplicated jump and call reach what their originals do
 *   file.roundtrip  fz_prog_save() then fz_prog_load() gives the program back
 *   file.rejects  a file with a bad line is refused with EINVAL
 *   repro.writes  fz_repro_write() writes a C file (DIR/repro.c) that the
 *                 caller compiles
 *   probe.parse   fz_belief_parse() reads the ranges of verifier log lines
 *                 as 6.12 prints them (a constant, chained names, a tnum, two
 *                 paths joined) and refuses a pointer
 *   probe.prefix  cut programs are well formed; a jump into the cut part
 *                 goes to the stub exit, a call keeps its subprogram
 *   probe.embed   record programs of generated ones are well formed, each
 *                 slot's store right after the instruction it records and
 *                 storing its register, every exit of the main function
 *                 going to the epilogue
 *   probe.plan    the escalation's arithmetic, computed for random beliefs:
 *                 the byte read is the map value's last or inside it for
 *                 every value the belief allows, the byte after it for the
 *                 value outside
 *   bjk-fuzz-selftest DIR
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "gen.h"
#include "probe.h"

static int failed, n;

static void result(bool ok, const char *name, const char *fmt, const char *why)
{
	printf("%s %d %s", ok ? "ok" : "not ok", ++n, name);
	if (!ok || fmt)
		printf(" # %s", ok ? fmt : why);
	printf("\n");
	failed += !ok;
}

/* NULL when @p is well formed, else what is wrong */
static const char *shape(const struct fz_prog *p)
{
	static char why[256];
	uint32_t i;

	if (!p->len || p->len > FZ_MAX_INSNS)
		return "length";
	for (i = 0; i < p->len; i++) {
		const struct bpf_insn *in = &p->insns[i];
		uint8_t cls = BPF_CLASS(in->code);
		int tgt = -1;

		if (in->code == (BPF_LD | BPF_DW | BPF_IMM)) {
			if (i + 1 >= p->len)
				return "ld_imm64 at the end";
			if (fz_insn_is_map(in) && (in->imm < 0 || in->imm >= FZ_NMAPS))
				return "map index out of fz_maps[]";
			if (in->src_reg == BPF_PSEUDO_FUNC)
				tgt = (int)i + 1 + in->imm;
			i++;
		} else if ((cls == BPF_JMP || cls == BPF_JMP32) && BPF_OP(in->code) == BPF_CALL) {
			if (in->src_reg == BPF_PSEUDO_CALL)
				tgt = (int)i + 1 + in->imm;
		} else if ((cls == BPF_JMP || cls == BPF_JMP32) && BPF_OP(in->code) != BPF_EXIT) {
			tgt = (int)i + 1 + in->off;
		}
		if (tgt == -1)
			continue;
		if (tgt < 0 || tgt >= (int)p->len ||
		    (tgt > 0 && p->insns[tgt - 1].code == (BPF_LD | BPF_DW | BPF_IMM) &&
		     !(tgt > 1 && p->insns[tgt - 2].code == (BPF_LD | BPF_DW | BPF_IMM)))) {
			snprintf(why, sizeof(why), "insn %u (code %#x) targets %d of %u", i, in->code,
				 tgt, p->len);
			return why;
		}
	}
	if (p->insns[p->len - 1].code != (BPF_JMP | BPF_EXIT) &&
	    BPF_OP(p->insns[p->len - 1].code) != BPF_JA)
		return "does not end in exit";
	return NULL;
}

/* lines as 6.12's print_insn_state() and print_verifier_state() write them */
static const char probe_log[] =
	"0: R1=ctx() R10=fp0\n"
	"3: (bf) r6 = r0                       ; R0_w=-5 R6_w=0xfffffffffffffffb\n"
	"7: (57) r6 &= 7                       ; R6_w=scalar(smin=smin32=0,smax=umax=smax32=umax32=7,var_off=(0x0; 0x7))\n"
	"7: (57) r6 &= 7                       ; R6_w=Pscalar(smin=umin=smin32=umin32=16,smax=umax=smax32=umax32=23,var_off=(0x10; 0x7))\n"
	"9: R1=ctx() R6=scalar(smin=-3,smax=2) R10=fp0\n"
	"12: (bf) r3 = r10                     ; R3_w=fp0 R10=fp0\n";

static const char *probe_parse(void)
{
	static char why[256];
	struct fz_belief b;
	int n;

	n = fz_belief_parse(probe_log, 3, 6, &b);
	if (n != 1 || b.umin != 0xfffffffffffffffbull || b.umax != b.umin || b.smin != -5 ||
	    b.tmask || b.s32min != -5 || b.u32max != 0xfffffffb)
		return "3: R6 is the constant -5";
	n = fz_belief_parse(probe_log, 7, 6, &b);
	snprintf(why, sizeof(why), "7: R6 over two paths: %d states, u [%llu, %llu], s32 [%d, %d], tnum %#llx/%#llx",
		 n, (unsigned long long)b.umin, (unsigned long long)b.umax, b.s32min, b.s32max,
		 (unsigned long long)b.tval, (unsigned long long)b.tmask);
	if (n != 2 || b.umin != 0 || b.umax != 23 || b.smin != 0 || b.smax != 23 ||
	    b.s32min != 0 || b.u32max != 23 || b.tval != 0 || b.tmask != 0x17)
		return why;
	if (fz_belief_broken(&b, 23) || !fz_belief_broken(&b, 24) || !fz_belief_broken(&b, 8))
		return "7: 23 is allowed, 24 and 8 are not (8 breaks the tnum)";
	n = fz_belief_parse(probe_log, 9, 6, &b);
	if (n != 1 || b.smin != -3 || b.smax != 2 || b.umin || b.umax != UINT64_MAX)
		return "9: R6 in [-3, 2], unsigned unknown";
	if (fz_belief_parse(probe_log, 12, 3, &b) != -1)
		return "12: R3 is a pointer, not a belief";
	if (fz_belief_parse(probe_log, 12, 1, &b) != 0 || fz_belief_parse(probe_log, 7, 1, &b) != 0)
		return "a register the line does not print: no state";
	return NULL;
}

static const char *probe_prefix(uint64_t *rng)
{
	static struct fz_prog p, q;
	static char why[512];
	struct bpf_insn tail[FZ_PROBE_TAIL_MAX];
	struct fz_plan pl = { .bits = 64, .above = true, .lo = 5, .hi = 9, .w = 4, .off = 59 };
	uint32_t n = fz_probe_escalate(&pl, 3, tail), at;
	const char *bad;
	int i;

	for (i = 0; i < 2000; i++) {
		fz_generate(&p, rng);
		at = fz_mix(rng) % fz_main_end(&p);
		if (!fz_prefix(&p, at, tail, n, &q))
			continue;
		bad = shape(&q);
		if (bad) {
			snprintf(why, sizeof(why), "program %d cut at %u: %s", i, at, bad);
			return why;
		}
	}
	/*
	 *   0: if r1 == 0 goto 3   1: r0 = 1   2: call f   3: exit   4: f: r0 = 0; exit
	 * cut at 1 with a 2-insn tail: the jump goes to the stub (4), the call
	 * is cut, and so is the subprogram nothing calls now
	 */
	memset(&p, 0, sizeof(p));
	p.insns[0] = (struct bpf_insn){ .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = 1, .off = 2 };
	p.insns[1] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K, .imm = 1 };
	p.insns[2] = (struct bpf_insn){ .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_CALL, .imm = 1 };
	p.insns[3] = p.insns[5] = (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };
	p.insns[4] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K };
	p.len = 6;
	tail[0] = p.insns[4];
	tail[1] = p.insns[3];
	if (!fz_prefix(&p, 1, tail, 2, &q) || q.len != 6 || q.insns[0].off != 3 ||
	    q.insns[4].code != (BPF_ALU64 | BPF_MOV | BPF_K))
		return "cut at 1: want 6 insns, the jump to the stub at 4, no subprogram";
	/* cut at 2 (the call kept): it must name the subprogram, now at 7 */
	if (!fz_prefix(&p, 2, tail, 2, &q) || q.len != 9 || 2 + 1 + q.insns[2].imm != 7)
		return "cut at 2: the call must name the subprogram at 7";
	return NULL;
}

static const char *probe_embed(uint64_t *rng)
{
	static struct fz_prog p, q;
	static struct fz_slot slot[FZ_PROBE_SLOTS];
	static char why[512];
	uint32_t i, end;
	int k, n, embedded = 0, linked = 0;
	const char *bad;

	for (i = 0; i < 2000; i++) {
		fz_generate(&p, rng);
		n = fz_embed(&p, &q, slot);
		if (!n)
			continue;
		embedded++;
		bad = shape(&q);
		for (k = 0; k < n && !bad; k++) {
			const struct bpf_insn *st = &q.insns[slot[k].store];
			int same = 0, j;
			const struct bpf_insn *a, *o = &p.insns[slot[k].insn];

			/* a compare's registers and their copies: stores one after another */
			for (j = 0; j < k; j++)
				same += slot[j].insn == slot[k].insn;
			linked += same > 0;
			a = &q.insns[slot[k].store - 1 - same];
			/* (a jump's offset changes: the stores between) */
			if (st->code != (BPF_STX | BPF_MEM | BPF_DW) || st->dst_reg != BPF_REG_10 ||
			    st->src_reg != slot[k].reg || a->code != o->code ||
			    a->dst_reg != o->dst_reg || a->src_reg != o->src_reg || a->imm != o->imm)
				bad = "a slot's store is not after its instruction, or stores another register";
		}
		/* no jump lands on a store or the prologue: they belong to one path */
		for (k = 0; k < (int)q.len && !bad; k++) {
			int t = k + 1 + q.insns[k].off, j;
			uint8_t cls = BPF_CLASS(q.insns[k].code), op = BPF_OP(q.insns[k].code);

			if ((cls != BPF_JMP && cls != BPF_JMP32) || op == BPF_CALL || op == BPF_EXIT)
				continue;
			if (t < n)
				bad = "a jump lands in the prologue";
			for (j = 0; j < n && !bad; j++)
				if (t == (int)slot[j].store && k + 1 != t)
					bad = "a jump lands on a slot's store";
		}
		end = fz_main_end(&q);
		for (k = 0; k < (int)end && !bad; k++)
			if (q.insns[k].code == (BPF_JMP | BPF_EXIT) && k + 1 != (int)end &&
			    !(k && fz_insn_is_ld64(&q.insns[k - 1])))
				bad = "an exit of the main function other than the epilogue's";
		if (bad) {
			snprintf(why, sizeof(why), "program %u: %s", i, bad);
			return why;
		}
	}
	if (embedded < 1000 || linked < 1000) {
		snprintf(why, sizeof(why), "only %d of 2000 programs got a record program, %d stores "
			 "of a compare's second register", embedded, linked);
		return why;
	}
	return NULL;
}

/* the run's byte: what fz_probe_escalate()'s arithmetic computes for @v */
static int64_t probe_index(const struct fz_plan *pl, uint64_t v)
{
	uint64_t r;

	if (pl->tnum)
		r = (v ^ pl->lo) & pl->hi;
	else
		r = pl->above ? v - pl->lo : pl->hi - v;
	if (pl->bits == 32)
		r = (uint32_t)r;
	return (int64_t)(r >> pl->shift) + pl->off;
}

static const char *probe_plan(uint64_t *rng)
{
	static char why[512];
	struct fz_belief b;
	struct fz_plan pl;
	int i, k, planned = 0;

	for (i = 0; i < 100000; i++) {
		uint64_t lo = fz_mix(rng) >> (fz_mix(rng) % 64), w = fz_mix(rng) >> (fz_mix(rng) % 64);
		uint64_t v = fz_mix(rng) >> (fz_mix(rng) % 64), in;
		int kind = fz_mix(rng) % 5;

		memset(&b, 0, sizeof(b));
		b.umax = UINT64_MAX, b.smin = INT64_MIN, b.smax = INT64_MAX;
		b.u32max = UINT32_MAX, b.s32min = INT32_MIN, b.s32max = INT32_MAX;
		b.tmask = UINT64_MAX;
		if (lo + w < lo)
			w = ~lo;
		switch (kind) {
		case 0: b.umin = lo, b.umax = lo + w; break;
		case 1: b.smin = (int64_t)lo, b.smax = (int64_t)(lo + (w >> 1));
			if (b.smax < b.smin)
				b.smax = INT64_MAX;
			break;
		case 2: b.u32min = lo, b.u32max = (uint32_t)lo + (uint32_t)w;
			if (b.u32max < b.u32min)
				b.u32max = UINT32_MAX;
			break;
		case 3: b.s32min = (int32_t)lo;
			b.s32max = (int32_t)((uint32_t)lo + (uint32_t)(w >> 33));
			if (b.s32max < b.s32min)
				b.s32max = INT32_MAX;
			break;
		default: b.tmask = w, b.tval = lo & ~w; break;
		}
		if (!fz_probe_plan(&b, v, &pl))
			continue;
		planned++;
		snprintf(why, sizeof(why), "belief %d: lo %#llx w %#llx, value %#llx (%s, shift %d, off %d)",
			 kind, (unsigned long long)lo, (unsigned long long)w, (unsigned long long)v,
			 pl.what, pl.shift, pl.off);
		if (probe_index(&pl, v) != FZ_PROBE_VALUE)
			return why;
		/* every value the belief allows: the ends and some between */
		for (k = 0; k < 16; k++) {
			in = k == 0 ? pl.lo : k == 1 ? pl.hi : pl.lo + fz_mix(rng) % (pl.w + 1);
			if (pl.tnum)
				in = b.tval | (fz_mix(rng) & b.tmask);
			if (pl.bits == 32)
				in = (fz_mix(rng) << 32) | (uint32_t)in;
			if (fz_belief_broken(&b, in) &&
			    strcmp(fz_belief_broken(&b, in), pl.what))
				continue;	/* breaks another belief: not in @b */
			if (!fz_belief_broken(&b, in) &&
			    (probe_index(&pl, in) < 0 || probe_index(&pl, in) >= FZ_PROBE_VALUE))
				return why;
		}
	}
	if (planned < 1000) {
		snprintf(why, sizeof(why), "only %d of 100000 beliefs got an escalation", planned);
		return why;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static struct fz_prog p, q, r;
	static char path[4096], why[512];
	const char *bad = NULL;
	uint64_t rng = 42;
	long i, k;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: bjk-fuzz-selftest DIR\n");
		return 2;
	}
	printf("KTAP version 1\n1..10\n");

	for (i = 0; i < 20000 && !bad; i++) {
		fz_generate(&p, &rng);
		bad = shape(&p);
	}
	snprintf(why, sizeof(why), "program %ld: %s", i - 1, bad ? bad : "");
	result(!bad, "fuzz.gen.shape", "20000 programs", why);

	bad = NULL;
	for (i = 0; i < 20000 && !bad; i++) {
		fz_generate(&p, &rng);
		q = p;
		for (k = 0; k < 8 && !bad; k++) {
			fz_mutate(&q, &p, &rng);
			bad = shape(&q);
		}
	}
	snprintf(why, sizeof(why), "program %ld: %s", i - 1, bad ? bad : "");
	result(!bad, "fuzz.mutate.shape", "20000 programs, 8 mutations each", why);

	/*
	 * A jump, a bpf-to-bpf call and a callback reference over the same
	 * instructions:
	 *   0: r2 = cb ll (PSEUDO_FUNC)   2: call f (PSEUDO_CALL)
	 *   3: if r0 == 0 goto 7          4-6: r0 = 4, 5, 6     7: exit
	 *   8: f: r0 = 0; exit            10: cb: r0 = 0; exit
	 * then 4 and 5 deleted: each reference one step shorter per deleted
	 * instruction it spans (cb 9 -> 7, f 5 -> 3, the jump 3 -> 1); then
	 * one inserted at 4: one longer each; then the jump and the call
	 * duplicated (fz_duplicate()). Last a JMP32 gotol, whose distance is
	 * its imm, over 2 deleted and 1 inserted: 3 -> 1 -> 2, off untouched.
	 */
	memset(&p, 0, sizeof(p));
	p.type = BPF_PROG_TYPE_SOCKET_FILTER;
	p.insns[0] = (struct bpf_insn){ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = 2,
					 .src_reg = BPF_PSEUDO_FUNC, .imm = 9 };
	p.insns[2] = (struct bpf_insn){ .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_CALL,
					 .imm = 5 };
	p.insns[3] = (struct bpf_insn){ .code = BPF_JMP | BPF_JEQ | BPF_K, .off = 3 };
	for (k = 4; k <= 6; k++)
		p.insns[k] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K, .imm = k };
	for (k = 7; k <= 11; k += 2)
		p.insns[k] = (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };
	p.insns[8] = p.insns[10] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K };
	p.len = 12;
	fz_delete(&p, 4, 2);
	k = p.len == 10 && p.insns[0].imm == 7 && p.insns[2].imm == 3 && p.insns[3].off == 1 &&
	    p.insns[4].imm == 6;
	snprintf(why, sizeof(why), "after deleting 2: len %u, cb %d, f %d, jump %d (want 10, 7, 3, 1)",
		 p.len, p.insns[0].imm, p.insns[2].imm, p.insns[3].off);
	if (k) {
		k = fz_insert(&p, 4, 1) && p.len == 11 && p.insns[0].imm == 8 && p.insns[2].imm == 4 &&
		    p.insns[3].off == 2;
		snprintf(why, sizeof(why), "after inserting 1: len %u, cb %d, f %d, jump %d (want 11, 8, 4, 2)",
			 p.len, p.insns[0].imm, p.insns[2].imm, p.insns[3].off);
	}
	/* the jump, then the call duplicated: each copy reaches its original's target */
	if (k) {
		k = fz_duplicate(&p, 3) && fz_duplicate(&p, 2) && p.len == 13 && p.insns[0].imm == 10 &&
		    p.insns[2].imm == 6 && p.insns[3].imm == 5 && p.insns[4].off == 3 &&
		    p.insns[5].off == 2;
		snprintf(why, sizeof(why), "after duplicating the jump and the call: len %u, cb %d, "
			 "f %d and %d, jump %d and %d (want 13, 10, 6 and 5, 3 and 2)", p.len,
			 p.insns[0].imm, p.insns[2].imm, p.insns[3].imm, p.insns[4].off, p.insns[5].off);
	}
	/* a JMP32 gotol, whose distance is its imm, over what is deleted and inserted */
	if (k) {
		memset(&p, 0, sizeof(p));
		p.insns[0] = (struct bpf_insn){ .code = BPF_JMP32 | BPF_JA, .imm = 3 };
		for (k = 1; k <= 4; k++)
			p.insns[k] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K, .imm = k };
		p.insns[5] = (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };
		p.len = 6;
		fz_delete(&p, 1, 2);
		k = p.len == 4 && p.insns[0].imm == 1 && p.insns[0].off == 0;
		if (k)
			k = fz_insert(&p, 1, 1) && p.len == 5 && p.insns[0].imm == 2 && p.insns[0].off == 0;
		snprintf(why, sizeof(why), "gotol after deleting 2 and inserting 1: len %u, imm %d, "
			 "off %d (want 5, 2, 0)", p.len, p.insns[0].imm, p.insns[0].off);
	}
	result(k, "fuzz.retarget.keeps", NULL, why);

	fz_generate(&p, &rng);
	snprintf(path, sizeof(path), "%s/roundtrip.prog", argv[1]);
	k = fz_prog_save(path, &p) == 0 && fz_prog_load(path, &q) == 0;
	result(k && q.len == p.len && q.type == p.type && q.seed == p.seed &&
	       q.data_len == p.data_len && !memcmp(q.data, p.data, p.data_len) &&
	       !memcmp(q.insns, p.insns, p.len * sizeof(p.insns[0])), "fuzz.file.roundtrip", NULL,
	       "the program read back is not the one written");

	f = fopen(path, "a");
	if (f) {
		fputs("insn 0x07 11 0 0 0\n", f);	/* r11: no such register */
		fclose(f);
	}
	errno = 0;
	k = fz_prog_load(path, &r);
	result(k == -1 && errno == EINVAL, "fuzz.file.rejects", NULL,
	       "a program with register 11 was read without EINVAL");

	snprintf(path, sizeof(path), "%s/repro.c", argv[1]);
	f = fopen(path, "w");
	k = f && fz_repro_write(f, &p, "selftest", "BUG: KASAN: none\n", "") == 0;
	if (f && fclose(f))
		k = 0;
	result(k, "fuzz.repro.writes", NULL, "fz_repro_write() failed");

	bad = probe_parse();
	result(!bad, "fuzz.probe.parse", NULL, bad);
	bad = probe_prefix(&rng);
	result(!bad, "fuzz.probe.prefix", "2000 programs", bad);
	bad = probe_embed(&rng);
	result(!bad, "fuzz.probe.embed", "2000 programs", bad);
	bad = probe_plan(&rng);
	result(!bad, "fuzz.probe.plan", "100000 beliefs", bad);
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0\n", n - failed, failed);
	return failed ? 1 : 0;
}
