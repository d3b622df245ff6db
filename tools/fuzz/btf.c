// SPDX-License-Identifier: GPL-2.0
/*
 * bjk-fuzz: the BTF a program with subprograms is loaded with. The verifier
 * refuses a callback reference (ld_imm64 BPF_PSEUDO_FUNC, for bpf_loop and
 * the like) without func_info ("missing btf func_info", check_ld_imm()),
 * and func_info needs BTF: one FUNC for each subprogram, in the order of
 * their first instructions.
 *
 * The shape, the smallest the 6.12 verifier takes for every subprogram:
 *   [1] INT "int" (4 bytes, signed)
 *   [2] FUNC_PROTO int (void)
 *   [3 + k] FUNC "fz" (k == 0, the main program) or "fz_f<k>", static, of [2]
 * Why it is enough:
 * - check_btf_func_early(): insn_off 0 first, increasing; each type_id a
 *   FUNC of a FUNC_PROTO. check_btf_func(): one record per subprogram, at
 *   its start; a return type that is a small int, or a subprogram with
 *   LD_ABS or a tail call is refused (without BTF check_abnormal_return()
 *   refuses those anyway: "int" makes them allowed).
 * - Static linkage: the subprograms are verified from their call sites
 *   with the caller's R1-R5 (set_callee_state(), the bpf_loop callback's
 *   own set_loop_callback_state()), never on their own as global ones are
 *   (do_check_subprogs()). btf_check_subprog_call() only marks a static
 *   function "unreliable" when its BTF does not match, which matters for
 *   freplace/fentry only; with no arguments btf_check_func_arg_match() has
 *   nothing to compare, so it never does (and logs nothing), whatever the
 *   registers hold. check_ld_imm() wants the callback's linkage static.
 * - The main program: do_check_common() marks it unreliable as it does not
 *   take one ctx argument; nothing else reads that.
 * - The names: kallsyms calls each JITed function bpf_prog_<tag>_<FUNC
 *   name> (bpf_get_prog_name()), so "fz..." keeps the name the fuzzer's
 *   reports and tests/fuzz/guest.sh expect (prog_name "fz" is ignored then).
 */
#include <errno.h>
#include <string.h>
#include <linux/btf.h>
#include "fuzz.h"

#define BTF_INFO(kind, vlen)	((uint32_t)(kind) << 24 | (vlen))
#define TYPE_INT	1
#define TYPE_PROTO	2
#define TYPE_FUNC0	3

static void put(uint8_t *b, size_t *off, const void *v, size_t n)
{
	memcpy(b + *off, v, n);
	*off += n;
}

int fz_btf_build(const struct fz_prog *p, void *buf, size_t size, struct bpf_func_info *fi,
		 uint32_t *nfi)
{
	static const char head[] = "\0int\0fz";	/* offsets 0, 1, 5 */
	bool start[FZ_MAX_INSNS] = { true };
	char strs[sizeof(head) + FZ_BTF_MAX_FUNCS * sizeof("fz_f999")];
	struct btf_header h = { 0 };
	struct btf_type t;
	uint32_t i, n = 0, slen = sizeof(head), tlen;
	uint32_t name[FZ_BTF_MAX_FUNCS];
	bool any = false;
	uint8_t *b = buf;
	size_t off = 0;

	*nfi = 0;
	if (p->len > FZ_MAX_INSNS) {
		errno = EINVAL;
		return -1;
	}
	/*
	 * Every instruction, second halves of ld_imm64 included, as the
	 * kernel scans them. A target outside the program is left out: the
	 * verifier refuses it itself, with its own message.
	 */
	for (i = 0; i < p->len; i++) {
		int64_t tgt = (int64_t)i + 1 + p->insns[i].imm;

		if (!fz_insn_names_subprog(&p->insns[i]))
			continue;
		any = true;
		if (tgt >= 0 && tgt < p->len)
			start[tgt] = true;
	}
	if (!any)
		return 0;

	memcpy(strs, head, sizeof(head));
	for (i = 0; i < p->len; i++) {
		if (!start[i])
			continue;
		/* the kernel's BPF_MAX_SUBPROGS: it would refuse more */
		if (n == FZ_BTF_MAX_FUNCS) {
			errno = E2BIG;
			return -1;
		}
		fi[n].insn_off = i;
		fi[n].type_id = TYPE_FUNC0 + n;
		if (n) {
			name[n] = slen;
			slen += snprintf(strs + slen, sizeof(strs) - slen, "fz_f%u", n) + 1;
		} else {
			name[n] = 5;
		}
		n++;
	}

	tlen = 2 * sizeof(t) + sizeof(uint32_t) + n * sizeof(t);
	if (size < sizeof(h) + tlen + slen) {
		errno = ENOSPC;
		return -1;
	}
	h.magic = BTF_MAGIC;
	h.version = BTF_VERSION;
	h.hdr_len = sizeof(h);
	h.type_off = 0;
	h.type_len = tlen;
	h.str_off = tlen;
	h.str_len = slen;
	put(b, &off, &h, sizeof(h));

	t = (struct btf_type){ .name_off = 1, .info = BTF_INFO(BTF_KIND_INT, 0), .size = 4 };
	put(b, &off, &t, sizeof(t));
	i = BTF_INT_SIGNED << 24 | 32;		/* encoding, offset 0, 32 bits */
	put(b, &off, &i, sizeof(i));

	t = (struct btf_type){ .info = BTF_INFO(BTF_KIND_FUNC_PROTO, 0), .type = TYPE_INT };
	put(b, &off, &t, sizeof(t));

	for (i = 0; i < n; i++) {
		t = (struct btf_type){ .name_off = name[i],
				       .info = BTF_INFO(BTF_KIND_FUNC, BTF_FUNC_STATIC),
				       .type = TYPE_PROTO };
		put(b, &off, &t, sizeof(t));
	}
	put(b, &off, strs, slen);
	*nfi = n;
	return off;
}
