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
 *                 callback reference over them on their targets
 *   file.roundtrip  fz_prog_save() then fz_prog_load() gives the program back
 *   file.rejects  a file with a bad line is refused with EINVAL
 *   repro.writes  fz_repro_write() writes a C file (DIR/repro.c) that the
 *                 caller compiles
 *   bjk-fuzz-selftest DIR
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "gen.h"

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
	printf("KTAP version 1\n1..6\n");

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
	 * one inserted at 4: one longer each.
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
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0\n", n - failed, failed);
	return failed ? 1 : 0;
}
