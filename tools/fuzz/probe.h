/* SPDX-License-Identifier: GPL-2.0 */
/* bjk-fuzz's belief probe (probe.c). */
#ifndef BJK_FUZZ_PROBE_H
#define BJK_FUZZ_PROBE_H

#include "fuzz.h"

/*
 * The record program's map (FZ_PROBE): slot K's value at 8 * K, then
 * FZ_PROBE_MARK at FZ_PROBE_DONE_OFF when the run reached the end. A slot
 * still holding FZ_PROBE_MARK was not reached (or held that value: one
 * check lost).
 */
#define FZ_PROBE_SLOTS		40
#define FZ_PROBE_MARK		0x5a17c0de
#define FZ_PROBE_DONE_OFF	(8 * FZ_PROBE_SLOTS)
/* the escalation's map and its value size */
#define FZ_PROBE_ESCALATE_MAP	FZ_ARRAY_64
#define FZ_PROBE_VALUE		64
/* the longest tail the escalation adds */
#define FZ_PROBE_TAIL_MAX	32

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
/* what a slot of the record program holds: rREG after insn INSN of the program */
struct fz_slot {
	uint32_t insn;		/* in the program under test */
	uint32_t store;		/* the store's index in the record program: its log line */
	int reg;
};
/*
 * The record program: @p with, after each instruction of its main function
 * that writes a register or compares one (a conditional jump's
 * fall-through; the last FZ_PROBE_SLOTS of them), a store of the register
 * into a stack slot below what the program uses, each slot marked first;
 * every exit of the main function goes through an epilogue that copies the
 * slots into FZ_PROBE's value. @slot: what each holds. The number of
 * slots, 0 when there is no room (the stack) or no exit.
 */
int fz_embed(const struct fz_prog *p, struct fz_prog *out, struct fz_slot *slot);
/* the escalation for value @v against @b; false when none fits the map value */
bool fz_probe_plan(const struct fz_belief *b, uint64_t v, struct fz_plan *pl);
uint32_t fz_probe_escalate(const struct fz_plan *pl, int reg, struct bpf_insn *t);

#endif /* BJK_FUZZ_PROBE_H */
