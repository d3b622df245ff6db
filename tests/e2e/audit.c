// SPDX-License-Identifier: GPL-2.0
/*
 * The e2e suite's coverage audit: every memory instruction of a loaded
 * program that may touch non-stack memory has a check in its JITed image,
 * and no other has (e2e.h: the parts of bjk-e2e).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "bjk-prog.h"
#include "e2e.h"

_Static_assert(AUDIT_FUNCS == BJK_PROG_FUNCS, "struct audit holds every function");

/* The checks' entry points from /proc/kallsyms (kept in this file's copy). */
int checks_load(void)
{
	int i;

	if (bjk_checks_load())
		return -1;
	for (i = 0; i < BJK_NCHECKS; i++)
		if (!bjk_checks[i].addr || bjk_checks[i].addr < 0xffff000000000000UL)
			note(NULL, "# warning: %s not in /proc/kallsyms (or hidden)", bjk_checks[i].name);
	return 0;
}


/* One pass over /proc/kallsyms for the BPF symbol at exactly @addr. */
static bool ksym_scan(unsigned long addr, char *name, size_t len)
{
	char line[512], n[256], type;
	unsigned long a;
	bool found = false;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (line[0] != 'f')	/* kernel addresses only */
			continue;
		if (sscanf(line, "%lx %c %255s", &a, &type, n) == 3 && a == addr &&
		    !strncmp(n, "bpf_prog_", 9)) {
			snprintf(name, len, "%s", n);
			found = true;
		}
	}
	fclose(f);
	return found;
}

/*
 * The kallsyms name at exactly @addr, "" if none. /proc/kallsyms lists BPF
 * programs only while bpf_jit_harden is 0 (bpf_jit_kallsyms_enabled()), so
 * it is read with hardening off for a moment; the programs are JITed.
 * The BPF part of /proc/kallsyms is walked by position, one read() at a
 * time: a program freed before ours while the file is read (an earlier
 * case's, freed after an RCU grace period) shifts ours to a position
 * already read, and one pass misses it. Ours is alive (the caller holds
 * it), so a few passes find it.
 */
void ksym_name(unsigned long addr, char *name, size_t len)
{
	int h = harden, i;

	if (h)
		set_harden(0);
	name[0] = '\0';
	for (i = 0; i < 5 && !ksym_scan(addr, name, len); i++)
		usleep(20000);
	if (h)
		set_harden(h);
}

const char *kind_name(bool write, int size)
{
	static const char *const names[2][4] = {
		{ "load1", "load2", "load4", "load8" },
		{ "store1", "store2", "store4", "store8" },
	};
	return names[write][SIZE_IDX(size)];
}


/*
 * The x86-64 JIT's guard before a PROBE_MEM(SX) load: mov r10, VSYSCALL_ADDR
 * (49 c7 c2 00 00 60 ff, sign-extended imm32), or its movabs form.
 */
static int count_probe_guards(const uint8_t *img, uint32_t len)
{
	static const uint8_t mov[] = { 0x49, 0xc7, 0xc2, 0x00, 0x00, 0x60, 0xff };
	static const uint8_t movabs[] = { 0x49, 0xba, 0x00, 0x00, 0x60, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint32_t i;
	int n = 0;

	for (i = 0; i + sizeof(mov) <= len; i++) {
		if (!memcmp(img + i, mov, sizeof(mov)))
			n++;
		else if (i + sizeof(movabs) <= len && !memcmp(img + i, movabs, sizeof(movabs)))
			n++;
	}
	return n;
}

/*
 * The JIT's own table of function @f (bjk_tab_load()) has one entry per
 * checked access, and an inline merged check covers several. Its checks
 * must be exactly the calls found in the image from a->call[@first] on,
 * one each; its entries then replace those calls in a->call, with the
 * offset a report on each access names. A function with no table keeps
 * its calls (a kernel whose outline checks have none). -1 on a mismatch.
 */
static int audit_table(struct tcase *t, struct audit *a, int f, int first)
{
	static struct bjk_tab_entry e[MAX_CALLS];
	uint64_t start = 0, skew;
	int n, k, c, checks = 0, calls = a->ncalls - first;

	n = bjk_tab_load(a->ksym[f], e, MAX_CALLS, &start);
	if (n < 0 && errno == ENOENT)
		return 0;
	if (n < 0) {
		fail(t, "audit: %s: %s", BJK_TAB_PATH, strerror(errno));
		return -1;
	}
	if (!n)
		return 0;
	skew = a->ksym[f] - start;	/* 0 but with CFI preambles */
	for (k = 0; k < n; k++) {
		if (k && e[k].ret == e[k - 1].ret) {
			/* a member's insn follows the check, which its leader's starts */
			if (e[k].ip <= e[k].ret) {
				fail(t, "audit: func %d: member insn %u at +0x%x, before its check's call returns (+0x%x)",
				     f, e[k].insn, e[k].ip, e[k].ret);
				return -1;
			}
			continue;
		}
		checks++;
		for (c = first; c < a->ncalls; c++)
			if (a->call[c].ret_off + skew == e[k].ret)
				break;
		if (c == a->ncalls) {
			fail(t, "audit: func %d: the table's check at +0x%x is no call in the image",
			     f, e[k].ret);
			return -1;
		}
	}
	if (checks != calls) {
		fail(t, "audit: func %d: %d calls in the image, %d checks in the table", f, calls,
		     checks);
		return -1;
	}
	a->ncalls = first;
	a->table = true;
	for (k = 0; k < n && a->ncalls < MAX_CALLS; k++) {
		a->call[a->ncalls].func = f;
		a->call[a->ncalls].ret_off = e[k].report - skew;
		a->call[a->ncalls].write = e[k].write;
		a->call[a->ncalls].size = e[k].size;
		a->call[a->ncalls].insn = e[k].insn;
		a->ncalls++;
	}
	return 0;
}

/*
 * Audit one program: every memory instruction of the verifier's final
 * program (xlated) that is not R10-based and not PROBE_* must carry a check
 * in the JITed image, and no R10-based one may.
 *
 * 6.12 exposes no map from BPF instruction to JITed offset
 * (jited_line_info has one address per source line, and only for programs
 * with BTF), so the audit counts, per program and per kind (load/store and
 * size): the memory instructions of xlated that must be checked, and the
 * checks in the image, that is the calls into __asan_{load,store}N
 * (outline) or __bpf_jit_kasan_{load,store}N (inline: every check has
 * exactly one such call on its slow path). Equal counts of every kind is
 * green: a missing check leaves a kind short, a check on an R10-based
 * access (whose kind xlated does not count) makes one over.
 *
 * The image is scanned for call rel32 (e8) at every byte; a call counts
 * when its target is exactly one of the sixteen entry points. A false hit
 * would need four bytes of other code to encode that exact displacement.
 * The return address of each call is kept, so that a report's +0x<off>
 * can be matched to a check of the right kind.
 */
int audit(struct tcase *t, int fd, const struct exempt *ex)
{
	struct bjk_prog p;
	uint32_t i;
	int want[2][4] = {}, have[2][4] = {}, r10 = 0, probes = 0, ret = -1, f, w, s;
	int ret_tab = 0, size;
	const struct bjk_call *c;
	struct audit *a;
	bool write;
	char buf[256];

	if (t->naud == 3) {
		fail(t, "audit: too many programs");
		return -1;
	}
	a = &t->aud[t->naud];
	memset(a, 0, sizeof(*a));
	a->fd = fd;
	if (bjk_prog_get(fd, &p, BJK_PROG_XLATED)) {
		if (errno == ENOEXEC || errno == E2BIG)
			fail(t, "audit: not JITed (jited_prog_len %u, %u funcs)",
			     p.info.jited_prog_len, p.info.nr_jited_ksyms);
		else if (errno == ENOENT)
			fail(t, "audit: no jited_ksyms (bpf_jit_kallsyms off?)");
		else
			fail(t, "audit: bpf_prog_get_info_by_fd: %s", strerror(errno));
		goto out;
	}
	a->lines = p.info.nr_line_info > 0;
	memcpy(a->name, p.info.name, sizeof(a->name));
	memcpy(a->tag, p.info.tag, sizeof(a->tag));
	a->nfuncs = p.nfuncs;
	memcpy(a->ksym, p.ksym, sizeof(p.ksym[0]) * a->nfuncs);
	memcpy(a->flen, p.flen, sizeof(p.flen[0]) * a->nfuncs);

	/* xlated: what must be checked */
	for (i = 0; i < p.ninsns; i++) {
		if (p.insns[i].code == (BPF_LD | BPF_IMM | BPF_DW)) {
			i++;
			continue;
		}
		switch (bjk_insn_access(&p.insns[i], &write, &size)) {
		case BJK_ACCESS_R10:
			r10++;
			break;
		case BJK_ACCESS_CHECKED:
			want[write][SIZE_IDX(size)]++;
			break;
		default:
			break;
		}
	}
	if (ex)
		for (w = 0; w < 2; w++)
			for (s = 0; s < 4; s++)
				want[w][s] -= ex->n[w][s];

	/* the image: the checks, function by function */
	for (c = p.calls, f = 0; f < a->nfuncs; f++) {
		int first = a->ncalls;

		for (; c < p.calls + p.ncalls && c->func == f; c++) {
			if (a->ncalls == MAX_CALLS)
				continue;
			a->call[a->ncalls].func = f;
			a->call[a->ncalls].ret_off = c->ret;
			a->call[a->ncalls].write = c->write;
			a->call[a->ncalls].size = c->size;
			a->call[a->ncalls].insn = -1;
			a->ncalls++;
			a->inlined |= c->slow;
		}
		if (audit_table(t, a, f, first) < 0)
			ret_tab = -1;
		probes += count_probe_guards(bjk_prog_func_img(&p, f), p.flen[f]);
	}
	for (f = 0; f < a->ncalls; f++)
		have[a->call[f].write][SIZE_IDX(a->call[f].size)]++;
	a->nchecks = p.ncalls;
	if (a->ncalls == MAX_CALLS)
		fail(t, "audit: more than %d checked accesses", MAX_CALLS);

	ret = ret_tab;
	buf[0] = '\0';
	for (w = 0; w < 2; w++)
		for (s = 0; s < 4; s++) {
			if (want[w][s] || have[w][s]) {
				size_t l = strlen(buf);

				snprintf(buf + l, sizeof(buf) - l, " %s %d/%d", kind_name(w, 1 << s),
					 have[w][s], want[w][s]);
			}
			if (want[w][s] != have[w][s])
				ret = -1;
		}
	note(t, "audit %s: %u insns, %d funcs, checks/needed:%s (%d accesses in %d checks); "
	     "R10-based %d; PROBE guards %d", a->name, p.ninsns, a->nfuncs, buf[0] ? buf : " none",
	     a->ncalls, a->nchecks, r10, probes);
	if (ret)
		fail(t, "audit %s: checks do not match the accesses (checks/needed:%s)", a->name, buf);
	if (ex && ex->probes >= 0 && probes != ex->probes) {
		fail(t, "audit %s: %d PROBE_MEM guards, want %d", a->name, probes, ex->probes);
		ret = -1;
	}
	t->naud++;
out:
	bjk_prog_free(&p);
	return ret;
}

