/* SPDX-License-Identifier: GPL-2.0 */
/* bjk-fuzz's belief probe (probe.c). */
#ifndef BJK_FUZZ_PROBE_H
#define BJK_FUZZ_PROBE_H

#include "fuzz.h"

/* the record program's map: rK at 8 * K, FZ_PROBE_MAGIC at FZ_PROBE_MAGIC_OFF */
#define FZ_PROBE_RECORD_MAP	FZ_PROBE
#define FZ_PROBE_MAGIC		0x5a17c0de
#define FZ_PROBE_MAGIC_OFF	80
/* the escalation's map and its value size */
#define FZ_PROBE_ESCALATE_MAP	FZ_ARRAY_64
#define FZ_PROBE_VALUE		64
/* the longest tail either program adds */
#define FZ_PROBE_TAIL_MAX	48

/* the values the verifier allowed in a register: each range, and the tnum */
struct fz_belief {
	uint64_t umin, umax;
	int64_t smin, smax;
	uint32_t u32min, u32max;
	int32_t s32min, s32max;
	uint64_t tval, tmask;
};

/* how the escalation moves rX (fz_probe_plan()) */
struct fz_plan {
	const char *what;	/* the belief the value breaks: u64, s64, u32, s32, tnum */
	int bits;		/* the arithmetic's width */
	bool above, tnum;
	uint64_t lo, hi;	/* the range, or the tnum's value and ~mask */
	uint64_t w, d;		/* r9's largest value for the verifier; its value at run time */
	int shift;
	int16_t off;		/* the read's offset */
};

/* where @p's main function ends: its first subprogram's start, or its length */
uint32_t fz_main_end(const struct fz_prog *p);
/*
 * @out: @p's main function up to insn @at, then @tail (@n insns, ending in
 * an exit), then its subprograms; jumps of the kept part into what was cut
 * go to an exit with r0 = 0. False when @at is not in the main function or
 * there is no room.
 */
bool fz_prefix(const struct fz_prog *p, uint32_t at, const struct bpf_insn *tail, uint32_t n,
	       struct fz_prog *out);
/*
 * What a verifier log at level 2 says register @reg may hold at insn
 * @insn, the union over every state printed there (the line of insn @insn
 * itself, after its "; ", or a state printed at its index). The number of
 * states; 0 when none; -1 when on some path @reg is not a scalar.
 */
int fz_belief_parse(const char *log, uint32_t insn, int reg, struct fz_belief *b);
/* NULL when @v is one of the values @b allows, else the first belief it breaks */
const char *fz_belief_broken(const struct fz_belief *b, uint64_t v);
/*
 * The registers every path of @p's main function has written when insn
 * @at is done (bit K: rK; r10 always), as the verifier sees them: r1 and
 * r10 at the start, a destination once written, r1-r5 gone after a call.
 */
uint16_t fz_init_regs(const struct fz_prog *p, uint32_t at);
/* the record program's tail: stores the registers of @regs (r0-r9) */
uint32_t fz_probe_record(uint16_t regs, struct bpf_insn *t);
/* the escalation for value @v against @b; false when none fits the map value */
bool fz_probe_plan(const struct fz_belief *b, uint64_t v, struct fz_plan *pl);
uint32_t fz_probe_escalate(const struct fz_plan *pl, int reg, struct bpf_insn *t);

#endif /* BJK_FUZZ_PROBE_H */
