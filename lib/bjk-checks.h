/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel functions that a KASAN check in a JIT-compiled BPF program
 * calls, and their addresses from /proc/kallsyms. Outline mode calls the
 * KASAN runtime's __asan_{load,store}N for every access; inline mode calls
 * __bpf_jit_kasan_{load,store}N on its slow path only, from exactly one
 * call per check. A program's checks are thus the calls (e8 rel32) in its
 * image whose target is one of these: the e2e runner's audit, bjk-decode
 * and the benchmark all find them that way, so they share this one table.
 *
 * Header only: each user is a single C file (static, built for the guest).
 */
#ifndef BJK_CHECKS_H
#define BJK_CHECKS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct bjk_check {
	const char *name;
	bool write;		/* a store (or atomic) check, else a load */
	int size;		/* bytes */
	bool slow;		/* inline mode's slow path, not the KASAN runtime */
	unsigned long addr;	/* 0 until bjk_checks_load() finds it */
};

/* The benchmark's counting pass takes them four at a time, in this order. */
static struct bjk_check bjk_checks[] = {
	{ "__asan_load1", 0, 1 }, { "__asan_load2", 0, 2 },
	{ "__asan_load4", 0, 4 }, { "__asan_load8", 0, 8 },
	{ "__asan_store1", 1, 1 }, { "__asan_store2", 1, 2 },
	{ "__asan_store4", 1, 4 }, { "__asan_store8", 1, 8 },
	{ "__bpf_jit_kasan_load1", 0, 1, 1 }, { "__bpf_jit_kasan_load2", 0, 2, 1 },
	{ "__bpf_jit_kasan_load4", 0, 4, 1 }, { "__bpf_jit_kasan_load8", 0, 8, 1 },
	{ "__bpf_jit_kasan_store1", 1, 1, 1 }, { "__bpf_jit_kasan_store2", 1, 2, 1 },
	{ "__bpf_jit_kasan_store4", 1, 4, 1 }, { "__bpf_jit_kasan_store8", 1, 8, 1 },
};
#define BJK_NCHECKS (int)(sizeof(bjk_checks) / sizeof(bjk_checks[0]))

/*
 * Sets the addresses that /proc/kallsyms lists (kernel text symbols always
 * are; under kptr_restrict they read 0, as if missing). 0, or -1 with errno
 * when the file cannot be opened.
 */
static inline int bjk_checks_load(void)
{
	char line[512], name[256], type;
	unsigned long a;
	FILE *f = fopen("/proc/kallsyms", "r");
	int c;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* most lines are other symbols: skip sscanf(), slow under TCG */
		if (!strstr(line, "_load") && !strstr(line, "_store"))
			continue;
		if (sscanf(line, "%lx %c %255s", &a, &type, name) != 3)
			continue;
		for (c = 0; c < BJK_NCHECKS; c++)
			if (!bjk_checks[c].addr && !strcmp(name, bjk_checks[c].name))
				bjk_checks[c].addr = a;
	}
	fclose(f);
	return 0;
}

/*
 * The entry point that the instruction at @p, address @ip, calls if it is a
 * call rel32 (e8): its index, or -1. Any byte is taken as a possible start:
 * a false hit needs four bytes of other code that encode that exact
 * displacement (the e2e audit would see the extra check).
 */
static inline int bjk_check_call(const uint8_t *p, uint64_t ip)
{
	int32_t rel;
	int c;

	if (p[0] != 0xe8)
		return -1;
	memcpy(&rel, p + 1, 4);
	for (c = 0; c < BJK_NCHECKS; c++)
		if (bjk_checks[c].addr && ip + 5 + (int64_t)rel == bjk_checks[c].addr)
			return c;
	return -1;
}

#endif /* BJK_CHECKS_H */
