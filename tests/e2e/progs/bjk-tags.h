/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the e2e runner expects of a C program, written once, on the
 * program: BTF decl tags, which its loader (loader.c) reads from the
 * object's BTF (a BTF_KIND_DECL_TAG with component_idx -1 on the program's
 * BTF_KIND_FUNC), as the kernel's selftests do with __msg and __retval
 * (tools/testing/selftests/bpf/progs/bpf_misc.h, test_loader.c). The case
 * list, and so the KTAP plan, follows from them: nothing to keep in step.
 *
 *	SEC("syscall")
 *	__bjk_case("zoo.short_write")
 *	__bjk_report("slab-out-of-bounds", write, 1, 20)
 *	__bjk_retval(0)
 *	int zoo_short(void *ctx)
 *
 * Each tag is one string "bjk:N:KEY=VALUE"; the runner stops on a key or a
 * value it cannot read, on a tag on anything but a program, and on a
 * program that is no case and no other case's companion (__bjk_audit,
 * __bjk_run, __bjk_map_prog): a forgotten tag must not drop a case
 * quietly.
 *
 * The comments on the accesses ("Read 8 at +16") stay as well: they are
 * what the decode suite checks a decoded report's source line against
 * (tests/decode/guest.sh, bjk-e2e -d), not what a case's run reads.
 */
#ifndef BJK_TAGS_H
#define BJK_TAGS_H

/*
 * "bjk:N:" + s, N from __COUNTER__: the order in which the tags are
 * written. BTF's order of FUNCs and of their tags is the compiler's; the
 * loader sorts by N (a case's reports in order, the cases in the order of
 * their case tags). It also keeps two equal tags apart, which the compiler
 * would fold into one (the kernel's selftests' bpf_misc.h numbers __msg
 * tags for that).
 */
#define __bjk_str(x)	#x
#define __bjk_xstr(x)	__bjk_str(x)
#define __bjk_tag(s)	__attribute__((btf_decl_tag("bjk:" __bjk_xstr(__COUNTER__) ":" s)))

/*
 * The case NAME: the program is loaded (with its companions), audited,
 * run once with BPF_PROG_TEST_RUN (a tc program on a packet), and its
 * KASAN reports, result and out[] checked.
 */
#define __bjk_case(name)	__bjk_tag("case=" name)

/*
 * Two cases, NAME.unmerged and NAME.merged: the program JITed with
 * bpf_jit_kasan_merge off, then on; the second's reports must be the
 * first's (bug, Read/Write, size, address, and the instruction from the
 * JIT's table).
 */
#define __bjk_merge_case(name)	__bjk_tag("merge_case=" name)

/* With merging on, fewer checks than accesses (inline mode). */
#define __bjk_merges		__bjk_tag("merges")

/*
 * One KASAN report, in the order they come: the bug type as KASAN prints
 * it, read or write, the size, and the address as an offset from what the
 * module handed out last (its last_addr). Then, space-separated: func=N
 * (the report is in the Nth function of the program, a subprogram, in
 * jited_ksyms order), prog=N (in the Nth audited program: 0 this one, 1
 * its __bjk_audit companion), stacks (the report has "Allocated by task"
 * and "Freed by task").
 */
#define __bjk_report(bug, rw, size, off, ...) \
	__bjk_tag("report=" bug " " #rw " " #size " " #off " " #__VA_ARGS__)

/* The run must return V (as an int); without it the result is not checked. */
#define __bjk_retval(v)		__bjk_tag("retval=" #v)

/* After the run, out[I] must be V (a u64; -2 is 0xfffffffffffffffe). */
#define __bjk_out(i, v)		__bjk_tag("out=" #i " " #v)

/*
 * N memory instructions of this kind (read or write, size) in the xlated
 * program that must not be checked and that the dump cannot tell apart:
 * PROBE_MEM loads, which bpf_prog_get_info_by_fd() shows as LDX MEM, and
 * stack accesses through a register other than R10 (a frame check, no
 * KASAN check).
 */
#define __bjk_unchecked(rw, size, n)	__bjk_tag("unchecked=" #rw " " #size " " #n)

/* N PROBE_MEM(SX) guards in the JITed image (0 without the tag). */
#define __bjk_probes(n)		__bjk_tag("probes=" #n)

/* Load program PROG too, and audit it after this one (prog=1 in a report). */
#define __bjk_audit(prog)	__bjk_tag("audit=" #prog)

/* Load program PROG too, and run it instead of this one (which it triggers). */
#define __bjk_run(prog)		__bjk_tag("run=" #prog)

/* Attach this program (fentry) before it is audited and run. */
#define __bjk_attach		__bjk_tag("attach")

/* Before the audit: MAP[KEY] = a value whose first u32 is V, the rest 0. */
#define __bjk_map_u32(map, key, v)	__bjk_tag("map_u32=" #map " " #key " " #v)

/* Before the audit: MAP[KEY] = the fd of program PROG (loaded too). */
#define __bjk_map_prog(map, key, prog)	__bjk_tag("map_prog=" #map " " #key " " #prog)

#endif /* BJK_TAGS_H */
