// SPDX-License-Identifier: GPL-2.0
/*
 * bjk-museum: real verifier bugs, brought back one at a time by the museum
 * kernel (tests/museum/museum.patch, bit N of bpf_museum= re-creates bug
 * N), each with a program that uses it to reach memory it must not.
 *
 * Every program has the same frame: r9 = the control map's value (its input
 * at 0, what the program read at 8), r8 = the target array map's value,
 * r1 = the input, then the bug's instructions, which leave r1 == 1 at run
 * time where the verifier believes r1 == 0, then
 *	r1 &= 1; r1 <<= 8; r8 += r1; *(u64 *)(r8 + 0) (read or write)
 * an access the verifier believes is at value + 0 and is at value + 256.
 * The target's values are 256 bytes, so:
 *   out: one element: the read at value + 256 is the first byte after the
 *        map's kmalloc object, or in the value's redzone: KASAN sees it.
 *   in:  two elements: the write at value + 256 lands in element 1, inside
 *        the allocation: no KASAN mode can see it; element 1 read back
 *        shows it happened. With map redzones (CONFIG_BPF_MAP_KASAN_REDZONES,
 *        bpf_map_redzone= not 0) element 0 is followed by its redzone: the
 *        write lands there, is reported, and element 1 stays as it was.
 * Two more rows reach where map redzones make KASAN see:
 *   head: r8 -= (r1 & 1) << 3, a write at value - 8, then a read at value -
 *        0x100, both inside struct bpf_array's head redzone (the kernel's
 *        BTF says whether it has one), and a read at value -
 *        sizeof(struct bpf_array): map->ops, where an exploit reads the
 *        kernel's text address, never reported (the redzone ends before).
 *   hash: the out read (value + 256) of a preallocated hash map's element,
 *        whose next element's htab_elem header it reads, or its redzone.
 * Per bug: with the bit off the verifier must refuse the program with the
 * bug's log line; with it on, out and in load and run, and so do two more
 * rows of cases:
 *   misaligned: r1 <<= 0, 1 or 2 instead of 8, so that an access the
 *        verifier believes aligned, the last `size` bytes of the value,
 *        runs 1, 2 or 4 bytes further, across the end of the allocation:
 *        mis_<size>_<k> a single read of 1, 2, 4 or 8 bytes, mmis_<size>_<k>
 *        the same after a read of its neighbour below, which inline mode
 *        merges into one check. One report each where KASAN sees the bytes
 *        (inline, outline, the interpreter), none with checks off.
 *   stack: the bug moves a copy of R10 (r3 = r10; r3 += r1 << 4): a read at
 *        r3 - 8, which the verifier believes is fp - 8, reads the word at
 *        fp + 8, the JIT frame's return address, and writes it back: a
 *        stack-out-of-bounds Read and Write in inline and outline, none with
 *        checks off (the program shows what it read). Not run interpreted:
 *        the interpreter's stack is another frame.
 *
 *   bjk-museum [-k] -m off|inline|outline|interp [BUG...]
 *
 * -m: the boot's mode, which decides how many KASAN reports each case
 * expects (BJK-EXPECT-BEGIN/END, counted by the harness's splat scan):
 * out: 1 with checks on (inline, outline) and with the interpreter (its C is
 * KASAN-instrumented), 0 with checks off; in, head, hash: the same with map
 * redzones on (head: 2, a write and a read), 0 everywhere without. Per out case a
 * line "BJK-MUSEUM <bug> prog <name> insn <N>" names the program and the
 * faulting instruction (of the xlated program) that tests/museum/check.sh
 * compares with the report's decoding and across the boots. With checks
 * on, each out case runs once more interpreted (the JIT off for its load),
 * on the same map: the two reports must name the same address.
 * Output: KTAP (-k: to /dev/kmsg).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "bjk-out.h"
#include "bjk-guest.h"

/* insn macros, as in tools/include/linux/filter.h */
#define BPF_ALU64_REG(OP, DST, SRC)					\
	((struct bpf_insn) { .code = BPF_ALU64 | BPF_OP(OP) | BPF_X,	\
	  .dst_reg = DST, .src_reg = SRC, .off = 0, .imm = 0 })
#define BPF_ALU64_IMM(OP, DST, IMM)					\
	((struct bpf_insn) { .code = BPF_ALU64 | BPF_OP(OP) | BPF_K,	\
	  .dst_reg = DST, .src_reg = 0, .off = 0, .imm = IMM })
#define BPF_ALU32_IMM(OP, DST, IMM)					\
	((struct bpf_insn) { .code = BPF_ALU | BPF_OP(OP) | BPF_K,	\
	  .dst_reg = DST, .src_reg = 0, .off = 0, .imm = IMM })
#define BPF_MOV64_REG(DST, SRC)						\
	((struct bpf_insn) { .code = BPF_ALU64 | BPF_MOV | BPF_X,	\
	  .dst_reg = DST, .src_reg = SRC, .off = 0, .imm = 0 })
#define BPF_MOV32_REG(DST, SRC)						\
	((struct bpf_insn) { .code = BPF_ALU | BPF_MOV | BPF_X,		\
	  .dst_reg = DST, .src_reg = SRC, .off = 0, .imm = 0 })
#define BPF_MOV64_IMM(DST, IMM)						\
	((struct bpf_insn) { .code = BPF_ALU64 | BPF_MOV | BPF_K,	\
	  .dst_reg = DST, .src_reg = 0, .off = 0, .imm = IMM })
#define BPF_MOV32_IMM(DST, IMM)						\
	((struct bpf_insn) { .code = BPF_ALU | BPF_MOV | BPF_K,		\
	  .dst_reg = DST, .src_reg = 0, .off = 0, .imm = IMM })
#define BPF_LDX_MEM(SIZE, DST, SRC, OFF)				\
	((struct bpf_insn) { .code = BPF_LDX | BPF_SIZE(SIZE) | BPF_MEM,\
	  .dst_reg = DST, .src_reg = SRC, .off = OFF, .imm = 0 })
#define BPF_STX_MEM(SIZE, DST, SRC, OFF)				\
	((struct bpf_insn) { .code = BPF_STX | BPF_SIZE(SIZE) | BPF_MEM,\
	  .dst_reg = DST, .src_reg = SRC, .off = OFF, .imm = 0 })
#define BPF_ST_MEM(SIZE, DST, OFF, IMM)					\
	((struct bpf_insn) { .code = BPF_ST | BPF_SIZE(SIZE) | BPF_MEM,	\
	  .dst_reg = DST, .src_reg = 0, .off = OFF, .imm = IMM })
#define BPF_JMP_IMM(OP, DST, IMM, OFF)					\
	((struct bpf_insn) { .code = BPF_JMP | BPF_OP(OP) | BPF_K,	\
	  .dst_reg = DST, .src_reg = 0, .off = OFF, .imm = IMM })
#define BPF_JMP_REG(OP, DST, SRC, OFF)					\
	((struct bpf_insn) { .code = BPF_JMP | BPF_OP(OP) | BPF_X,	\
	  .dst_reg = DST, .src_reg = SRC, .off = OFF, .imm = 0 })
#define BPF_JMP32_IMM(OP, DST, IMM, OFF)				\
	((struct bpf_insn) { .code = BPF_JMP32 | BPF_OP(OP) | BPF_K,	\
	  .dst_reg = DST, .src_reg = 0, .off = OFF, .imm = IMM })
#define BPF_JMP_A(OFF)							\
	((struct bpf_insn) { .code = BPF_JMP | BPF_JA,			\
	  .dst_reg = 0, .src_reg = 0, .off = OFF, .imm = 0 })
#define BPF_CALL_HELPER(FUNC)						\
	((struct bpf_insn) { .code = BPF_JMP | BPF_CALL,		\
	  .dst_reg = 0, .src_reg = 0, .off = 0, .imm = FUNC })
#define BPF_LDX_SIZE(BYTES)	((BYTES) == 1 ? BPF_B : (BYTES) == 2 ? BPF_H : \
				 (BYTES) == 4 ? BPF_W : BPF_DW)
#define BPF_EXIT_INSN()							\
	((struct bpf_insn) { .code = BPF_JMP | BPF_EXIT,		\
	  .dst_reg = 0, .src_reg = 0, .off = 0, .imm = 0 })

#define R0 BPF_REG_0
#define R1 BPF_REG_1
#define R2 BPF_REG_2
#define R3 BPF_REG_3
#define R4 BPF_REG_4
#define R5 BPF_REG_5
#define R8 BPF_REG_8
#define R9 BPF_REG_9
#define R10 BPF_REG_10

#define VALUE_SIZE	256
#define BAD_OFF		256	/* the real offset of the access into the value */
#define MAGIC		0x6d757365756d2121ULL	/* "museum!!" */
#define IN_MARK		0x1122334455667788ULL	/* element 1 of the in map */
#define MUSEUM_PARAM	"/sys/module/kernel/parameters/bpf_museum"
#define REDZONE_PARAM	"/sys/module/kernel/parameters/bpf_map_redzone"
#define HEAD_REDZONE	256	/* struct bpf_array's, when the kernel has one */

static struct bpf_insn prog[128];
static int n_insn, labels[4], n_fixups;
static struct { int insn, label; } fixups[16];
enum { L_OUT, L_1, L_2 };

static void emit(struct bpf_insn insn)
{
	prog[n_insn++] = insn;
}

/* a jump to a label; resolve() fills in the offset */
static void emit_jmp(struct bpf_insn insn, int label)
{
	fixups[n_fixups].insn = n_insn;
	fixups[n_fixups++].label = label;
	emit(insn);
}

static void label(int l)
{
	labels[l] = n_insn;
}

static void resolve(void)
{
	int i;

	for (i = 0; i < n_fixups; i++)
		prog[fixups[i].insn].off = labels[fixups[i].label] - fixups[i].insn - 1;
}

static void emit_ld_imm64(int reg, int src, uint64_t imm)
{
	emit((struct bpf_insn){ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = reg,
				.src_reg = src, .imm = (uint32_t)imm });
	emit((struct bpf_insn){ .imm = (uint32_t)(imm >> 32) });
}

static void emit_ld_map_fd(int reg, int fd)
{
	emit_ld_imm64(reg, BPF_PSEUDO_MAP_FD, (uint32_t)fd);
}

/*
 * The bugs. Each body leaves r1 == 1 at run time where the buggy verifier
 * believes r1 == 0; the fixed one sees r1 may be 1 and refuses the access.
 */
static int ringbuf_fd;
static const char *mode;
static int redzone;		/* bpf_map_redzone=, 0 without map redzones */
static int array_size;		/* sizeof(struct bpf_array), from BTF */
static bool head_rz;		/* it ends in its head redzone (BTF) */

#define JIT_ENABLE	"/proc/sys/net/core/bpf_jit_enable"

/* A boot with checks on: each out case runs JITed and interpreted. */
static bool jit_mode(void)
{
	return !strcmp(mode, "inline") || !strcmp(mode, "outline");
}

/* CVE-2017-16995: a 32-bit mov of an immediate tracked sign-extended */
static void signext(void)
{
	emit(BPF_MOV32_IMM(R1, -1));		/* verifier: -1, real: 0xffffffff */
	emit(BPF_ALU64_IMM(BPF_ADD, R1, 1));	/* verifier: 0,  real: 1 << 32 */
	emit(BPF_ALU64_IMM(BPF_RSH, R1, 32));	/* verifier: 0,  real: 1 */
}

/* CVE-2017-16996: the 64-bit bounds of an ALU32 result not truncated */
static void alu32trunc(void)
{
	emit(BPF_MOV32_IMM(R1, -1));		/* r1 = 0xffffffff (both agree) */
	emit(BPF_ALU32_IMM(BPF_ADD, R1, 1));	/* verifier: 1 << 32, real: 0 */
	emit(BPF_ALU64_IMM(BPF_RSH, R1, 32));	/* verifier: 1, real: 0 */
	emit(BPF_ALU64_IMM(BPF_XOR, R1, 1));	/* verifier: 0, real: 1 */
}

/* CVE-2020-8835: after a JMP32 the low halves of umin/umax taken as a range */
static void jmp32bound(void)
{
	emit_jmp(BPF_JMP_IMM(BPF_JLT, R1, 1, 0), L_OUT);	/* r1 >= 1 */
	emit_ld_imm64(R2, 0, 0x100000001ULL);
	emit_jmp(BPF_JMP_REG(BPF_JGT, R1, R2, 0), L_OUT);	/* r1 <= 0x100000001 */
	emit_jmp(BPF_JMP32_IMM(BPF_JEQ, R1, 5, 0), L_OUT);	/* any jmp32 */
	emit(BPF_MOV32_REG(R1, R1));		/* verifier: 1, real (input 2): 2 */
	emit(BPF_ALU64_IMM(BPF_SUB, R1, 1));	/* verifier: 0, real: 1 */
}

/* CVE-2020-27194: scalar32_min_max_or() took its bounds from the 64-bit ones */
static void or32bound(void)
{
	emit_jmp(BPF_JMP_IMM(BPF_JLT, R1, 1, 0), L_OUT);	/* r1 >= 1 */
	emit_ld_imm64(R2, 0, 0x600000001ULL);
	emit_jmp(BPF_JMP_REG(BPF_JGT, R1, R2, 0), L_OUT);	/* r1 <= 0x600000001 */
	emit_jmp(BPF_JMP32_IMM(BPF_JSLT, R1, 0, 0), L_OUT);	/* (s32)r1 >= 0 */
	emit(BPF_ALU64_IMM(BPF_OR, R1, 0));	/* verifier: s32 [1, 1] */
	emit(BPF_MOV32_REG(R1, R1));		/* verifier: 1, real (input 2): 2 */
	emit(BPF_ALU64_IMM(BPF_SUB, R1, 1));	/* verifier: 0, real: 1 */
}

/* CVE-2021-31440: u32_min_value taken from umin alone */
static void u32min(void)
{
	emit_jmp(BPF_JMP_IMM(BPF_JLT, R1, 1, 0), L_OUT);	/* verifier: u32 >= 1 */
	emit_jmp(BPF_JMP32_IMM(BPF_JGT, R1, 1, 0), L_OUT);	/* verifier: u32 == 1 */
	emit(BPF_MOV32_REG(R1, R1));		/* verifier: 1, real (input 1 << 32): 0 */
	emit(BPF_ALU64_IMM(BPF_XOR, R1, 1));	/* verifier: 0, real: 1 */
}

/* CVE-2022-23222: arithmetic on a *_OR_NULL pointer, its offset reset at the check */
static void ornull(void)
{
	/* 0x2000 > the 4096-byte ring: bpf_ringbuf_reserve() returns NULL */
	emit_ld_map_fd(R1, ringbuf_fd);
	emit(BPF_MOV64_IMM(R2, 0x2000));
	emit(BPF_MOV64_IMM(R3, 0));
	emit(BPF_CALL_HELPER(BPF_FUNC_ringbuf_reserve));
	emit(BPF_MOV64_REG(R1, R0));
	emit(BPF_ALU64_IMM(BPF_ADD, R1, 1));	/* ringbuf_mem_or_null + 1 */
	emit_jmp(BPF_JMP_IMM(BPF_JEQ, R0, 0, 0), L_1);
	emit(BPF_MOV64_REG(R1, R0));		/* not NULL: give it back */
	emit(BPF_MOV64_IMM(R2, 0));
	emit(BPF_CALL_HELPER(BPF_FUNC_ringbuf_discard));
	emit_jmp(BPF_JMP_A(0), L_OUT);
	label(L_1);				/* NULL: verifier r1 = 0, real 1 */
}

/*
 * CVE-2023-2163: "if rX <= rY" did not make rY precise, so a state where r2
 * was a known 0x7fffffff pruned the path where it is 0 (BPF_F_TEST_STATE_FREQ
 * makes the verifier save a state at every jump, so pruning does not depend
 * on its heuristics).
 */
static void prune(void)
{
	emit(BPF_MOV64_IMM(R2, 0x7fffffff));
	emit_jmp(BPF_JMP_REG(BPF_JLE, R1, R2, 0), L_1);	/* input 1: taken */
	emit(BPF_LDX_MEM(BPF_DW, R1, R9, 0));		/* r1 unknown */
	emit(BPF_MOV64_IMM(R2, 0));
	label(L_1);
	emit_jmp(BPF_JMP_REG(BPF_JLE, R1, R2, 0), L_2);
	emit(BPF_MOV64_IMM(R1, 0));
	label(L_2);
}

static const struct bug {
	const char *name, *cve, *fix;
	int bit;
	uint64_t input;
	uint32_t flags;
	const char *reject;	/* the verifier's last log line with the bit off */
	void (*body)(void);
} bugs[] = {
	{ "signext", "CVE-2017-16995", "95a762e2c8c9", 0, 0, 0,
	  "R8 min value is outside of the allowed memory range", signext },
	{ "alu32trunc", "CVE-2017-16996", "0c17d1d2c619", 1, 0, 0,
	  "R8 min value is outside of the allowed memory range", alu32trunc },
	{ "jmp32bound", "CVE-2020-8835", "f2d67fec0b43", 2, 2, 0,
	  "R8 max value is outside of the allowed memory range", jmp32bound },
	{ "or32bound", "CVE-2020-27194", "5b9fbeb75b6a", 3, 2, 0,
	  "R8 max value is outside of the allowed memory range", or32bound },
	{ "u32min", "CVE-2021-31440", "10bf4e83167c", 4, 0x100000000ULL, 0,
	  "R8 max value is outside of the allowed memory range", u32min },
	{ "ornull", "CVE-2022-23222", "c25b2ae13603", 5, 0, 0,
	  "R1 pointer arithmetic on ringbuf_mem_or_null prohibited, null-check it first", ornull },
	{ "prune", "CVE-2023-2163", "71b547f56124", 6, 1, BPF_F_TEST_STATE_FREQ,
	  "R8 max value is outside of the allowed memory range", prune },
};
#define NBUGS	(int)(sizeof(bugs) / sizeof(bugs[0]))

static char log_buf[1 << 20];

static void museum_bit(int bit)
{
	char v[16];

	snprintf(v, sizeof(v), "%#x", bit < 0 ? 0 : 1u << bit);
	if (bjk_write_file(MUSEUM_PARAM, v)) {
		bjk_out("# error: %s: %s (not the museum kernel?)", MUSEUM_PARAM, strerror(errno));
		exit(1);
	}
}

/* The verifier log's last line but the statistics after it. */
static const char *last_log_line(void)
{
	char *end = log_buf + strlen(log_buf), *p;

	for (;;) {
		while (end > log_buf && end[-1] == '\n')
			*--end = '\0';
		p = strrchr(log_buf, '\n');
		p = p ? p + 1 : log_buf;
		if (p == log_buf || (strncmp(p, "processed ", 10) &&
				     strncmp(p, "verification time", 17)))
			return p;
		*p = '\0';
		end = p;
	}
}

/* What the program does once the bug has made r1 == 1. */
enum tail {
	T_OUT,		/* read at r8 + 0, the verifier believes value + 0 */
	T_IN,		/* write there */
	T_MIS,		/* read the value's last `size` bytes, moved by 1 << k */
	T_MMIS,		/* the same after a read of the `size` bytes below */
	T_STACK,	/* read and write back fp - 8 through a moved copy of R10 */
	T_HEAD,		/* write at value - 8, read at value - 0x100 and at map->ops */
};

struct access {
	enum tail tail;
	int size, k;	/* T_MIS, T_MMIS: bytes, and the shift of r1 */
};

/* The bug's program with its frame and the access @a. */
static int load(const struct bug *b, int ctl, int target, const struct access *a)
{
	char name[BPF_OBJ_NAME_LEN];
	LIBBPF_OPTS(bpf_prog_load_opts, o, .log_buf = log_buf, .log_size = sizeof(log_buf),
		    .log_level = 1, .prog_flags = b->flags);

	n_insn = n_fixups = 0;
	/* r9 = &ctl[0], r8 = &target[0], r1 = the input */
	emit(BPF_ST_MEM(BPF_W, R10, -4, 0));
	emit(BPF_MOV64_REG(R2, R10));
	emit(BPF_ALU64_IMM(BPF_ADD, R2, -4));
	emit_ld_map_fd(R1, ctl);
	emit(BPF_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	emit_jmp(BPF_JMP_IMM(BPF_JEQ, R0, 0, 0), L_OUT);
	emit(BPF_MOV64_REG(R9, R0));
	emit(BPF_MOV64_REG(R2, R10));
	emit(BPF_ALU64_IMM(BPF_ADD, R2, -4));
	emit_ld_map_fd(R1, target);
	emit(BPF_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	emit_jmp(BPF_JMP_IMM(BPF_JEQ, R0, 0, 0), L_OUT);
	emit(BPF_MOV64_REG(R8, R0));
	emit(BPF_LDX_MEM(BPF_DW, R1, R9, 0));
	if (a->tail == T_STACK)
		emit(BPF_ST_MEM(BPF_DW, R10, -8, 0));	/* the slot it reads */
	b->body();
	emit(BPF_ALU64_IMM(BPF_AND, R1, 1));
	switch (a->tail) {
	case T_OUT:
	case T_IN:
		/* r8 += (r1 & 1) << 8: the verifier believes + 0 */
		emit(BPF_ALU64_IMM(BPF_LSH, R1, 8));
		emit(BPF_ALU64_REG(BPF_ADD, R8, R1));
		if (a->tail == T_IN) {
			emit_ld_imm64(R2, 0, MAGIC);
			emit(BPF_STX_MEM(BPF_DW, R8, R2, 0));
		} else {
			emit(BPF_LDX_MEM(BPF_DW, R2, R8, 0));
			emit(BPF_STX_MEM(BPF_DW, R9, R2, 8));
		}
		break;
	case T_MIS:
	case T_MMIS:
		/* r8 += (r1 & 1) << k: the verifier believes + 0, aligned */
		if (a->k)
			emit(BPF_ALU64_IMM(BPF_LSH, R1, a->k));
		emit(BPF_ALU64_REG(BPF_ADD, R8, R1));
		emit(BPF_MOV64_IMM(R3, 0));
		if (a->tail == T_MMIS)
			emit(BPF_LDX_MEM(BPF_LDX_SIZE(a->size), R3, R8,
					 VALUE_SIZE - 2 * a->size));
		emit(BPF_LDX_MEM(BPF_LDX_SIZE(a->size), R2, R8, VALUE_SIZE - a->size));
		emit(BPF_ALU64_REG(BPF_ADD, R2, R3));
		emit(BPF_STX_MEM(BPF_DW, R9, R2, 8));
		break;
	case T_HEAD:
		/*
		 * r3 = r8 - ((r1 & 1) << 3), r4 = r8 - ((r1 & 1) << 8), r8 -=
		 * (r1 & 1) * sizeof(struct bpf_array): the verifier believes
		 * all three are value + 0.
		 */
		emit(BPF_MOV64_REG(R4, R1));
		emit(BPF_MOV64_REG(R5, R1));
		emit(BPF_ALU64_IMM(BPF_LSH, R1, 3));
		emit(BPF_MOV64_REG(R3, R8));
		emit(BPF_ALU64_REG(BPF_SUB, R3, R1));
		emit_ld_imm64(R2, 0, MAGIC);
		emit(BPF_STX_MEM(BPF_DW, R3, R2, 0));
		emit(BPF_ALU64_IMM(BPF_LSH, R4, 8));
		emit(BPF_MOV64_REG(R3, R8));
		emit(BPF_ALU64_REG(BPF_SUB, R3, R4));
		emit(BPF_LDX_MEM(BPF_DW, R2, R3, 0));
		emit(BPF_STX_MEM(BPF_DW, R9, R2, 0));
		emit(BPF_ALU64_IMM(BPF_MUL, R5, array_size));
		emit(BPF_ALU64_REG(BPF_SUB, R8, R5));
		emit(BPF_LDX_MEM(BPF_DW, R2, R8, 0));
		emit(BPF_STX_MEM(BPF_DW, R9, R2, 8));
		break;
	case T_STACK:
		/* r3 = r10 + ((r1 & 1) << 4): the verifier believes r10 */
		emit(BPF_ALU64_IMM(BPF_LSH, R1, 4));
		emit(BPF_MOV64_REG(R3, R10));
		emit(BPF_ALU64_REG(BPF_ADD, R3, R1));
		emit(BPF_LDX_MEM(BPF_DW, R2, R3, -8));
		emit(BPF_STX_MEM(BPF_DW, R3, R2, -8));
		emit(BPF_STX_MEM(BPF_DW, R9, R2, 8));
		break;
	}
	label(L_OUT);
	emit(BPF_MOV64_IMM(R0, 0));
	emit(BPF_EXIT_INSN());
	resolve();
	log_buf[0] = '\0';
	snprintf(name, sizeof(name), "m_%s", b->name);
	return bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, name, "GPL", prog, n_insn, &o);
}

/* The index of the access through r8 in the xlated program (what the decoder names). */
static int faulting_insn(int fd)
{
	struct bpf_insn x[256];
	int k, n = bjk_xlated(fd, x, 256);

	for (k = 0; k < n; k++)
		if ((x[k].code == (BPF_LDX | BPF_DW | BPF_MEM) && x[k].src_reg == R8) ||
		    (x[k].code == (BPF_STX | BPF_DW | BPF_MEM) && x[k].dst_reg == R8))
			return k;
	return -1;
}

static int run(int fd)
{
	uint8_t pkt[64] = {};
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = sizeof(pkt),
		    .repeat = 1);

	return bpf_prog_test_run_opts(fd, &o);
}

#define result(ok, name, ...) bjk_case(ok, "museum.", name, __VA_ARGS__)

static const struct access out_access = { .tail = T_OUT }, in_access = { .tail = T_IN };

/*
 * The misaligned cases: size, and k, r1 << k the real offset past where the
 * verifier believes the access is; each straddles the end of the 512-byte
 * allocation (1-byte: lies past it).
 */
static const struct { int size, k; } mis[] = {
	{ 1, 0 }, { 2, 0 }, { 4, 0 }, { 4, 1 }, { 8, 0 }, { 8, 1 }, { 8, 2 },
};
#define NMIS	(int)(sizeof(mis) / sizeof(mis[0]))

/*
 * One load and run of @a, the case @name, in its expect region
 * ("museum.<name>") of @nr reports; false if @target is not a map.
 */
static bool run_case(const struct bug *b, int ctl, int target, const struct access *a,
		     const char *name, int nr, uint64_t *read)
{
	uint64_t ctl_val[2] = { b->input, 0 };
	char region[80];
	int fd;
	bool ok;

	snprintf(region, sizeof(region), "museum.%s", name);
	if (target < 0 || bpf_map_update_elem(ctl, &(uint32_t){ 0 }, ctl_val, 0))
		return false;
	fd = load(b, ctl, target, a);
	if (fd < 0)
		return false;
	bjk_out("BJK-EXPECT-BEGIN %s %d", region, nr);
	ok = run(fd) == 0;
	bjk_out("BJK-EXPECT-END %s", region);
	close(fd);
	bpf_map_lookup_elem(ctl, &(uint32_t){ 0 }, ctl_val);
	*read = ctl_val[1];
	return ok;
}

static void mis_case(const struct bug *b, int ctl, int target, enum tail t,
		     const typeof(mis[0]) *m)
{
	struct access a = { .tail = t, .size = m->size, .k = m->k };
	int shift = m->k, nr = strcmp(mode, "off") ? 1 : 0;
	char name[64];
	uint64_t read = 0;
	bool ok;

	snprintf(name, sizeof(name), "%s.%s_%d_%d", b->name, t == T_MIS ? "mis" : "mmis",
		 m->size, 1 << shift);
	ok = run_case(b, ctl, target, &a, name, nr, &read);
	result(ok, name, "%s: %s%d-byte read the verifier believes at value + %d, aligned; "
	       "at + %d, across the end of the allocation; %d report(s) expected (%s)%s",
	       b->cve, t == T_MMIS ? "after its neighbour below, a " : "a ", m->size,
	       VALUE_SIZE - m->size, VALUE_SIZE - m->size + (1 << shift), nr, mode,
	       ok ? "" : ": did not load or run");
}

static void stack_case(const struct bug *b, int ctl, int target)
{
	static const struct access a = { .tail = T_STACK };
	int nr = strcmp(mode, "off") ? 2 : 0;
	char name[64];
	uint64_t read = 0;
	bool ok;

	snprintf(name, sizeof(name), "%s.stack", b->name);
	ok = run_case(b, ctl, target, &a, name, nr, &read);
	result(ok, name, "%s: a copy of R10 moved by the bug: read %#llx at fp + 8 (the "
	       "verifier believes fp - 8), the JIT frame's return address, and wrote it "
	       "back; %d report(s) expected (%s)%s", b->cve, (unsigned long long)read, nr,
	       mode, ok ? "" : ": did not load or run");
}

/*
 * head: a write at value - 8 and a read at value - 0x100, in the head
 * redzone of struct bpf_array when the kernel has one, reported when map
 * redzones are on; then a read of map->ops, never reported.
 */
static void head_case(const struct bug *b, int ctl, int target)
{
	static const struct access a = { .tail = T_HEAD };
	int nr = redzone && strcmp(mode, "off") ? 2 : 0;
	char name[64];
	uint64_t read = 0;
	bool ok;

	snprintf(name, sizeof(name), "%s.head", b->name);
	ok = run_case(b, ctl, target, &a, name, nr, &read);
	result(ok, name, "%s: a write at value - 8 and a read at value - %#x (%s), then a "
	       "read of map->ops at value - %d: %#llx; %d report(s) expected (%s)%s", b->cve,
	       HEAD_REDZONE, head_rz ? "the head redzone" : "the header",
	       array_size, (unsigned long long)read, nr, mode,
	       ok ? "" : ": did not load or run");
}

/*
 * hash: the out read, value + 256, of a preallocated hash map's element:
 * the next element's htab_elem header, or the element's redzone. Made and
 * filled on CPU 0, so that the element handed out is not the last of the
 * preallocated area, whose read would leave the allocation:
 * pcpu_freelist_populate() gives CPU 0 the first elements, each CPU's list
 * hands out its highest address first, and the map takes one per CPU for
 * itself (alloc_extra_elems()) before the update takes the next.
 */
static void hash_case(const struct bug *b, int ctl)
{
	int nr = redzone && strcmp(mode, "off") ? 1 : 0, target;
	uint64_t read = 0, value[VALUE_SIZE / 8] = { 0 };
	char name[64];
	cpu_set_t cpu0;
	bool ok;

	snprintf(name, sizeof(name), "%s.hash", b->name);
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	target = sched_setaffinity(0, sizeof(cpu0), &cpu0) ? -1 :
		 bpf_map_create(BPF_MAP_TYPE_HASH, "m_hash", 4, VALUE_SIZE, 4, NULL);
	ok = target >= 0 && !bpf_map_update_elem(target, &(uint32_t){ 0 }, value, 0) &&
	     run_case(b, ctl, target, &out_access, name, nr, &read);
	result(ok, name, "%s: a read at value + %d of a hash map's element: %#llx; %d "
	       "report(s) expected (%s)%s", b->cve, BAD_OFF, (unsigned long long)read, nr,
	       mode, ok ? "" : ": did not load or run");
	if (target >= 0)
		close(target);
}

static void one(const struct bug *b)
{
	uint64_t ctl_val[2] = { b->input, 0 }, elem[VALUE_SIZE / 8] = { IN_MARK };
	char name[64], region[80];
	int ctl, target, fd, insn, expect, i;
	uint32_t one = 1;
	bool ok;

	/* bit off: the fixed verifier refuses the program */
	ctl = bpf_map_create(BPF_MAP_TYPE_ARRAY, "m_ctl", 4, 16, 1, NULL);
	target = bpf_map_create(BPF_MAP_TYPE_ARRAY, "m_target", 4, VALUE_SIZE, 1, NULL);
	if (ctl < 0 || target < 0 || bpf_map_update_elem(ctl, &(uint32_t){ 0 }, ctl_val, 0)) {
		snprintf(name, sizeof(name), "%s.maps", b->name);
		result(false, name, "maps: %s", strerror(errno));
		return;
	}
	museum_bit(-1);
	fd = load(b, ctl, target, &out_access);
	snprintf(name, sizeof(name), "%s.fixed_rejects", b->name);
	if (fd >= 0) {
		close(fd);
		result(false, name, "%s: bpf_museum=0 loaded the program", b->cve);
	} else {
		const char *l = last_log_line();

		result(strstr(l, b->reject) != NULL, name, "%s: bpf_museum=0: \"%s\"%s%s", b->cve, l,
		       strstr(l, b->reject) ? "" : ", want ", strstr(l, b->reject) ? "" : b->reject);
	}

	/* bit on, out: the read past the allocation */
	museum_bit(b->bit);
	snprintf(name, sizeof(name), "%s.out", b->name);
	snprintf(region, sizeof(region), "museum.%s", name);
	expect = strcmp(mode, "off") ? 1 : 0;
	fd = load(b, ctl, target, &out_access);
	if (fd < 0) {
		result(false, name, "bpf_museum=%#x: the program did not load: \"%s\"",
		       1u << b->bit, last_log_line());
	} else {
		insn = faulting_insn(fd);
		bjk_out("BJK-MUSEUM %s prog m_%s insn %d", b->name, b->name, insn);
		bjk_out("BJK-EXPECT-BEGIN %s %d", region, expect);
		ok = run(fd) == 0;
		bpf_map_lookup_elem(ctl, &(uint32_t){ 0 }, ctl_val);
		bjk_out("BJK-EXPECT-END %s", region);
		if (expect)
			bjk_decode_sync(region);
		close(fd);
		result(ok && insn >= 0, name, "%s: bpf_museum=%#x: loaded, ran: read %#llx at value + %d, "
		       "the first byte after the value, %s (insn %d); %d report(s) expected (%s)",
		       b->cve, 1u << b->bit, (unsigned long long)ctl_val[1], BAD_OFF,
		       redzone ? "in its redzone" : "past the map's allocation", insn, expect, mode);
	}

	/*
	 * With checks on: the same program again, interpreted, on the same
	 * map: its report must name the same address (check.sh compares).
	 */
	if (jit_mode()) {
		snprintf(name, sizeof(name), "%s.out_interp", b->name);
		snprintf(region, sizeof(region), "museum.%s", name);
		if (bjk_write_file(JIT_ENABLE, "0")) {
			result(false, name, "%s: %s", JIT_ENABLE, strerror(errno));
		} else {
			fd = load(b, ctl, target, &out_access);
			bjk_write_file(JIT_ENABLE, "1");
			if (fd < 0) {
				result(false, name, "the program did not load: \"%s\"", last_log_line());
			} else {
				bjk_out("BJK-EXPECT-BEGIN %s 1", region);
				ok = run(fd) == 0;
				bjk_out("BJK-EXPECT-END %s", region);
				close(fd);
				result(ok, name, "%s: the same program interpreted, on the same map: "
				       "1 report expected", b->cve);
			}
		}
	}
	close(target);

	/* bit on, in: the write into element 1, inside the allocation */
	snprintf(name, sizeof(name), "%s.in", b->name);
	snprintf(region, sizeof(region), "museum.%s", name);
	target = bpf_map_create(BPF_MAP_TYPE_ARRAY, "m_target", 4, VALUE_SIZE, 2, NULL);
	if (target < 0 || bpf_map_update_elem(target, &one, elem, 0)) {
		result(false, name, "map: %s", strerror(errno));
	} else if ((fd = load(b, ctl, target, &in_access)) < 0) {
		result(false, name, "bpf_museum=%#x: the program did not load: \"%s\"",
		       1u << b->bit, last_log_line());
	} else {
		expect = redzone && strcmp(mode, "off") ? 1 : 0;
		bjk_out("BJK-EXPECT-BEGIN %s %d", region, expect);
		ok = run(fd) == 0;
		bjk_out("BJK-EXPECT-END %s", region);
		close(fd);
		memset(elem, 0, sizeof(elem));
		bpf_map_lookup_elem(target, &one, elem);
		if (redzone)
			result(ok && elem[0] == IN_MARK, name, "%s: bpf_museum=%#x: loaded, ran: "
			       "element 1 holds %#llx (%s): the write at value + %d landed in "
			       "element 0's %d-byte redzone; %d report(s) expected (%s)", b->cve,
			       1u << b->bit, (unsigned long long)elem[0],
			       elem[0] == IN_MARK ? "untouched" : "overwritten", BAD_OFF, redzone,
			       expect, mode);
		else
			result(ok && elem[0] == MAGIC, name, "%s: bpf_museum=%#x: loaded, ran: "
			       "element 1 holds %#llx (%s): the write at value + %d stayed inside "
			       "the map's allocation, where no KASAN mode sees it without map "
			       "redzones", b->cve, 1u << b->bit, (unsigned long long)elem[0],
			       elem[0] == MAGIC ? "written" : "not written", BAD_OFF);
	}
	close(target);

	target = bpf_map_create(BPF_MAP_TYPE_ARRAY, "m_target", 4, VALUE_SIZE, 1, NULL);
	head_case(b, ctl, target);
	close(target);
	hash_case(b, ctl);

	target = bpf_map_create(BPF_MAP_TYPE_ARRAY, "m_target", 4, VALUE_SIZE, 1, NULL);
	for (i = 0; i < NMIS; i++) {
		mis_case(b, ctl, target, T_MIS, &mis[i]);
		mis_case(b, ctl, target, T_MMIS, &mis[i]);
	}
	if (strcmp(mode, "interp"))
		stack_case(b, ctl, target);
	museum_bit(-1);
	close(target);
	close(ctl);
}

/* bpf_map_redzone=, 0 for a kernel without map redzones */
static int map_redzone(void)
{
	FILE *f = fopen(REDZONE_PARAM, "r");
	int v = 0;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* The memlock fdinfo gives a map of @type with @n values of @size bytes */
static long memlock(uint32_t type, uint32_t size, uint32_t n, uint32_t flags)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = flags);
	int fd = bpf_map_create(type, "m_mem", 4, size, n, &o);
	char path[64], line[128];
	long v = -1;
	FILE *f;

	if (fd < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %ld", &v) == 1)
			break;
	if (f)
		fclose(f);
	close(fd);
	return v;
}

/*
 * What map redzones cost (docs/museum.md's table): the memory the kernel
 * accounts to maps of a few shapes, to compare across the boots.
 */
static void memory_lines(void)
{
	static const struct { const char *name; uint32_t type, size, n, flags; } m[] = {
		{ "array 1 x 8", BPF_MAP_TYPE_ARRAY, 8, 1, 0 },
		{ "array 1024 x 8", BPF_MAP_TYPE_ARRAY, 8, 1024, 0 },
		{ "array 1024 x 64", BPF_MAP_TYPE_ARRAY, 64, 1024, 0 },
		{ "array 1024 x 64 mmapable", BPF_MAP_TYPE_ARRAY, 64, 1024, BPF_F_MMAPABLE },
		{ "hash 1024 x 64", BPF_MAP_TYPE_HASH, 64, 1024, 0 },
		{ "lru_hash 1024 x 64", BPF_MAP_TYPE_LRU_HASH, 64, 1024, 0 },
		{ "percpu_array 1024 x 64", BPF_MAP_TYPE_PERCPU_ARRAY, 64, 1024, 0 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		bjk_out("# memory: %s: memlock %ld", m[i].name,
			memlock(m[i].type, m[i].size, m[i].n, m[i].flags));
}

/*
 * The head row's read of map->ops needs the header's size, and whether its
 * last HEAD_REDZONE bytes are the head redzone (a member head_redzone that
 * ends where the values begin): both from BTF, since the header's size
 * depends on the config (lockdep makes struct bpf_map larger).
 */
static int bpf_array_size(bool *rz)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_member *m;
	const struct btf_type *t;
	int id, sz, i;

	*rz = false;
	if (!btf)
		return -1;
	id = btf__find_by_name_kind(btf, "bpf_array", BTF_KIND_STRUCT);
	if (id < 0)
		return -1;
	sz = (int)btf__resolve_size(btf, id);
	t = btf__type_by_id(btf, id);
	for (i = 0, m = btf_members(t); i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), "head_redzone"))
			*rz = btf_member_bit_offset(t, i) / 8 + HEAD_REDZONE == (unsigned int)sz;
	return sz;
}

int main(int argc, char **argv)
{
	int i, k, n = 0, sz;

	mode = bjk_museum_args(argc, argv);
	if (!mode) {
		fprintf(stderr, "usage: %s [-k] -m off|inline|outline|interp [BUG...]\n", argv[0]);
		return 2;
	}
	for (i = 0; i < NBUGS; i++)
		for (k = optind; k < argc; k++)
			n += !strcmp(argv[k], bugs[i].name);
	if (optind == argc)
		n = NBUGS;
	bjk_out("KTAP version 1");
	bjk_out("1..%d", ((jit_mode() ? 6 : 5) + 2 * NMIS + !!strcmp(mode, "interp")) * n);
	sz = bpf_array_size(&head_rz);
	if (sz < 0) {
		bjk_out("# error: no struct bpf_array in this kernel's BTF");
		return 1;
	}
	array_size = sz;
	redzone = map_redzone();
	bjk_out("# map redzones: bpf_map_redzone=%d, struct bpf_array %d bytes, head redzone %s",
		redzone, sz, head_rz ? "yes" : "no");
	memory_lines();
	ringbuf_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "m_ring", 0, 0, 4096, NULL);
	if (ringbuf_fd < 0) {
		bjk_out("# error: ring buffer map: %s", strerror(errno));
		return 1;
	}
	for (i = 0; i < NBUGS; i++) {
		bool want = optind == argc;

		for (k = optind; k < argc; k++)
			want |= !strcmp(argv[k], bugs[i].name);
		if (want)
			one(&bugs[i]);
	}
	return bjk_totals();
}
