/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A loaded BPF program as the guest's tools see it: what
 * bpf_prog_get_info_by_fd() gives of its JIT image (the image, each
 * function's address and length, tag, name; on request the xlated
 * instructions and the BTF line and function info), and the calls of the
 * KASAN checks in the image (bjk-checks.h). The e2e runner audits a
 * program's checks from it, bjk-decode decodes reports with it, and the
 * benchmark counts the checks of its programs.
 *
 * Header only: each user is a single C file (static, built for the guest).
 */
#ifndef BJK_PROG_H
#define BJK_PROG_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include "bjk-checks.h"

#define BJK_PROG_FUNCS	64	/* functions of one program, subprograms included */

/* What bjk_prog_fetch() reads besides the image (@parts). */
#define BJK_PROG_XLATED		(1 << 0)	/* the verifier's final instructions */
#define BJK_PROG_LINES		(1 << 1)	/* BTF line info with JITed addresses */
#define BJK_PROG_FUNC_INFO	(1 << 2)	/* BTF func info */

/*
 * A check's call in the image; its return address, from the function's
 * start, is what a report on the check names (+0x<off>).
 */
struct bjk_call {
	int func;		/* in function (jited_ksyms index) */
	uint32_t ret;
	bool write;
	int size;
	bool slow;		/* inline mode's slow path, not the KASAN runtime */
};

struct bjk_prog {
	struct bpf_prog_info info;	/* counts, name, tag, btf_id */
	char tag[2 * BPF_TAG_SIZE + 1];	/* in hex, as bpf_prog_<tag>_<name> has it */
	int nfuncs;
	uint64_t ksym[BJK_PROG_FUNCS];	/* where each function starts */
	uint32_t flen[BJK_PROG_FUNCS];	/* its length, and so its part of img */
	uint8_t *img;			/* info.jited_prog_len bytes */
	struct bjk_call *calls;		/* function by function, by address */
	uint32_t ncalls;
	struct bpf_insn *insns;		/* BJK_PROG_XLATED */
	uint32_t ninsns;
	struct bpf_line_info *lines;	/* BJK_PROG_LINES, if the program has any */
	uint64_t *jlines;		/* the JITed address of each line record */
	uint32_t nlines;
	struct bpf_func_info *finfo;	/* BJK_PROG_FUNC_INFO */
	uint32_t nfinfo;
};

/*
 * The first look at the program of @fd: counts, tag and name, no arrays
 * yet (cheap enough to pick a program among all loaded ones). 0, or -1 with
 * errno: bpf_prog_get_info_by_fd()'s, ENOEXEC when the program is not
 * JITed, E2BIG when it has more than BJK_PROG_FUNCS functions, ENOENT when
 * it has no jited_ksyms (bpf_jit_kallsyms off). *@p is zeroed first, so
 * bjk_prog_free() may always be called on it.
 */
static inline int bjk_prog_info(int fd, struct bjk_prog *p)
{
	uint32_t len = sizeof(p->info), k;

	memset(p, 0, sizeof(*p));
	if (bpf_prog_get_info_by_fd(fd, &p->info, &len))
		return -1;
	for (k = 0; k < BPF_TAG_SIZE; k++)
		sprintf(p->tag + 2 * k, "%02x", p->info.tag[k]);
	if (!p->info.jited_prog_len)
		errno = ENOEXEC;
	else if (p->info.nr_jited_ksyms > BJK_PROG_FUNCS ||
		 p->info.nr_jited_func_lens > BJK_PROG_FUNCS)
		errno = E2BIG;
	else if (!p->info.nr_jited_ksyms ||
		 p->info.nr_jited_func_lens != p->info.nr_jited_ksyms)
		errno = ENOENT;
	else
		p->nfuncs = p->info.nr_jited_ksyms;
	return p->nfuncs ? 0 : -1;
}

/* Zeroes *@p too: freeing it again does nothing. */
static inline void bjk_prog_free(struct bjk_prog *p)
{
	free(p->img);
	free(p->calls);
	free(p->insns);
	free(p->lines);
	free(p->jlines);
	free(p->finfo);
	memset(p, 0, sizeof(*p));
}

/*
 * The checks' calls in the image: call rel32 (e8) at any byte whose
 * target is one of the entry points (bjk_check_call()), function by
 * function. The image is the functions' JITed code one after another, each
 * flen[] long; a length past its end (never seen) is cut to it.
 */
static inline int bjk_prog_scan(struct bjk_prog *p)
{
	uint32_t base = 0, j, cap = 0;
	struct bjk_call *n;
	int f, c;

	for (f = 0; f < p->nfuncs; f++) {
		for (j = 0; j + 5 <= p->flen[f] && base + j + 5 <= p->info.jited_prog_len; j++) {
			c = bjk_check_call(p->img + base + j, p->ksym[f] + j);
			if (c < 0)
				continue;
			if (p->ncalls == cap) {
				cap = cap ? 2 * cap : 16;
				n = realloc(p->calls, cap * sizeof(*n));
				if (!n)
					return -1;
				p->calls = n;
			}
			p->calls[p->ncalls++] = (struct bjk_call){ f, j + 5, bjk_checks[c].write,
								   bjk_checks[c].size,
								   bjk_checks[c].slow };
		}
		base += p->flen[f];
	}
	return 0;
}

/*
 * After bjk_prog_info(): the image, the functions, the parts asked for, and
 * the checks' calls in the image (bjk_checks_load() must have run). Line
 * info is read only when each record has its JITed address: without them
 * it cannot place a report's offset. 0, or -1 with errno and *@p freed.
 */
static inline int bjk_prog_fetch(int fd, struct bjk_prog *p, unsigned int parts)
{
	const struct bpf_prog_info *i = &p->info;
	struct bpf_prog_info q = {};
	uint32_t len = sizeof(q);
	int err;

	p->img = calloc(1, i->jited_prog_len);
	q.jited_prog_len = i->jited_prog_len;
	q.jited_prog_insns = (uintptr_t)p->img;
	q.nr_jited_ksyms = p->nfuncs;
	q.jited_ksyms = (uintptr_t)p->ksym;
	q.nr_jited_func_lens = p->nfuncs;
	q.jited_func_lens = (uintptr_t)p->flen;
	if ((parts & BJK_PROG_XLATED) && i->xlated_prog_len) {
		p->ninsns = i->xlated_prog_len / sizeof(*p->insns);
		p->insns = calloc(p->ninsns, sizeof(*p->insns));
		q.xlated_prog_len = i->xlated_prog_len;
		q.xlated_prog_insns = (uintptr_t)p->insns;
	}
	if ((parts & BJK_PROG_LINES) && i->nr_line_info &&
	    i->nr_jited_line_info == i->nr_line_info) {
		p->nlines = i->nr_line_info;
		p->lines = calloc(p->nlines, sizeof(*p->lines));
		p->jlines = calloc(p->nlines, sizeof(*p->jlines));
		q.nr_line_info = p->nlines;
		q.line_info_rec_size = sizeof(*p->lines);
		q.line_info = (uintptr_t)p->lines;
		q.nr_jited_line_info = p->nlines;
		q.jited_line_info_rec_size = sizeof(*p->jlines);
		q.jited_line_info = (uintptr_t)p->jlines;
	}
	if ((parts & BJK_PROG_FUNC_INFO) && i->nr_func_info) {
		p->nfinfo = i->nr_func_info;
		p->finfo = calloc(p->nfinfo, sizeof(*p->finfo));
		q.nr_func_info = p->nfinfo;
		q.func_info_rec_size = sizeof(*p->finfo);
		q.func_info = (uintptr_t)p->finfo;
	}
	if (!p->img || (p->ninsns && !p->insns) || (p->nlines && (!p->lines || !p->jlines)) ||
	    (p->nfinfo && !p->finfo)) {
		err = ENOMEM;
		goto fail;
	}
	if (bpf_prog_get_info_by_fd(fd, &q, &len) || bjk_prog_scan(p)) {
		err = errno;
		goto fail;
	}
	return 0;
fail:
	bjk_prog_free(p);
	errno = err;
	return -1;
}

/* bjk_prog_info() and bjk_prog_fetch() in one. */
static inline int bjk_prog_get(int fd, struct bjk_prog *p, unsigned int parts)
{
	return bjk_prog_info(fd, p) || bjk_prog_fetch(fd, p, parts) ? -1 : 0;
}

/* Where function @f's code is in the image. */
static inline const uint8_t *bjk_prog_func_img(const struct bjk_prog *p, int f)
{
	uint32_t off = 0;
	int k;

	for (k = 0; k < f; k++)
		off += p->flen[k];
	return p->img + off;
}

/*
 * The memory access of an xlated instruction, whether the JIT checks it.
 * A load (LDX MEM or MEMSX), store (ST or STX MEM) or atomic through R10
 * is stack-only and never checked; through any other base it is, except
 * what the dump cannot show: accesses the verifier proved stack-only, and
 * PROBE_MEM loads, dumped as LDX MEM (a caller that knows them counts them
 * apart). Its kind goes to *@write and *@size.
 */
enum bjk_access { BJK_ACCESS_NONE, BJK_ACCESS_R10, BJK_ACCESS_CHECKED };

static inline int bjk_insn_size(const struct bpf_insn *i)
{
	switch (BPF_SIZE(i->code)) {
	case BPF_B: return 1;
	case BPF_H: return 2;
	case BPF_W: return 4;
	default: return 8;
	}
}

static inline enum bjk_access bjk_insn_access(const struct bpf_insn *i, bool *write, int *size)
{
	uint8_t cls = BPF_CLASS(i->code), mode = BPF_MODE(i->code);
	bool load = cls == BPF_LDX && (mode == BPF_MEM || mode == BPF_MEMSX);
	bool store = (cls == BPF_ST && mode == BPF_MEM) ||
		     (cls == BPF_STX && (mode == BPF_MEM || mode == BPF_ATOMIC));

	if (!load && !store)
		return BJK_ACCESS_NONE;
	*write = store;
	*size = bjk_insn_size(i);
	return (load ? i->src_reg : i->dst_reg) == BPF_REG_10 ? BJK_ACCESS_R10 :
								 BJK_ACCESS_CHECKED;
}

/*
 * The access of an insn as the kernel's disassembler prints it in a
 * report's "BPF insn: <index> in <function>: (79) r1 = ..." line (@text
 * from "<function>: " on): its opcode gives the kind, its registers are not
 * read (the kernel names only insns it checks). BJK_ACCESS_NONE when @text
 * has no opcode or it is no access.
 */
static inline enum bjk_access bjk_disasm_access(const char *text, bool *write, int *size)
{
	const char *p = strstr(text, ": (");
	struct bpf_insn i = { .dst_reg = BPF_REG_1, .src_reg = BPF_REG_1 };
	unsigned int code;

	if (!p || sscanf(p, ": (%x)", &code) != 1)
		return BJK_ACCESS_NONE;
	i.code = code;
	return bjk_insn_access(&i, write, size);
}

#endif /* BJK_PROG_H */
