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
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

/*
 * The JIT's own record of its inline checks, one entry per checked access,
 * from /sys/kernel/debug/bpf_jit_kasan/checks:
 *   image <start> <size> <entries>
 *   <ret> <report> <insn> <kind> <off> <ip>	per access
 * Accesses with the same ret share one check (merged when more than one);
 * the check starts at the ip of its first access. Outline mode and programs
 * without checks have no block.
 */
#define BJK_TAB_PATH	"/sys/kernel/debug/bpf_jit_kasan/checks"

struct bjk_tab_entry {
	uint32_t ret;		/* return address of the check's slow-path call */
	uint32_t report;	/* what a report on this access names: +0x<report> */
	uint32_t insn;		/* the BPF insn, counted from its function's first */
	uint32_t ip;		/* where that insn's code, its check first, starts */
	bool write;		/* a store or an atomic */
	int size;
	int off;
};

/*
 * The entries of the image that holds @addr (a function's jited_ksyms
 * address), into @e (room for @max); *@start: the image's start. Their
 * number, 0 when that image has no inline checks, -1 with errno when the
 * file cannot be read (ENOENT: a kernel without it) or is malformed
 * (EBADMSG), or ENOSPC when they do not fit.
 */
static inline int bjk_tab_load(uint64_t addr, struct bjk_tab_entry *e, int max,
			       uint64_t *start)
{
	char line[256], kind[16];
	unsigned long long s;
	unsigned int size, nr, i, ret, rep, insn, ip;
	int off, n = 0, err = 0, found = 0;
	FILE *f = fopen(BJK_TAB_PATH, "r");

	if (!f)
		return -1;
	while (!found && !err && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "image %llx %u %u", &s, &size, &nr) != 3) {
			err = EBADMSG;
			break;
		}
		found = addr >= s && addr < s + size;
		for (i = 0; i < nr && fgets(line, sizeof(line), f); i++) {
			if (!found)
				continue;
			if (sscanf(line, "%x %x %u %15s %d %x", &ret, &rep, &insn, kind, &off,
				   &ip) != 6 ||
			    (strncmp(kind, "load", 4) && strncmp(kind, "store", 5))) {
				err = EBADMSG;
				break;
			}
			if (n == max) {
				err = ENOSPC;
				break;
			}
			e[n].ret = ret;
			e[n].report = rep;
			e[n].insn = insn;
			e[n].ip = ip;
			e[n].write = kind[0] == 's';
			e[n].size = atoi(kind + (e[n].write ? 5 : 4));
			e[n].off = off;
			n++;
		}
		if (found)
			*start = s;
	}
	fclose(f);
	if (err) {
		errno = err;
		return -1;
	}
	return n;
}

#endif /* BJK_CHECKS_H */
