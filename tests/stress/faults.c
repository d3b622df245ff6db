// SPDX-License-Identifier: GPL-2.0
/*
 * bjk-faults: program loads whose allocations fail, one site at a time.
 *
 * For each program of a representative set (map value accesses, a
 * subprogram, a tail call, context accesses the verifier rewrites, kfunc
 * calls, and the first one again under constant blinding), loads it with
 * /proc/thread-self/fail-nth set to 1, 2, 3, ...: the Nth slab or page
 * allocation of the load fails (failslab, fail_page_alloc), until a load
 * reaches no Nth site. Every load that fails must fail cleanly, with what
 * the kernel returns without the series too: ENOMEM; EINVAL where
 * bpf_prog_load()'s own bpf_prog_alloc() fails (6.12 returns -EINVAL
 * there); ENOTSUPP where the JIT could not finish (BPF_JIT_ALWAYS_ON). Every load that succeeds, with a
 * failure injected or not, must have all its checks: the JIT's table
 * (BJK_TAB_PATH) has one entry per memory insn of the xlated program not
 * based on R10, and the program runs with its expected result. Leaks are
 * for the leaks suite (kmemleak) after this one; splats for the harness.
 *
 * Output: KTAP, one line per program; with -k to /dev/kmsg.
 *
 *   bjk-faults [-k] [-v]		-v: the stack of each injected failure
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "bjk-checks.h"
#include "bjk-out.h"

#define MAX_NTH		5000
#define ENOTSUPP	524	/* the kernel's, not in the uapi */
#define TC_ACT_OK	0

#define I(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
					     .off = (o), .imm = (i) })
#define EXIT		I(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
#define MOV_IMM(d, i)	I(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define MOV_REG(d, s)	I(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define ADD_IMM(d, i)	I(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define LDX(sz, d, s, o) I(BPF_LDX | (sz) | BPF_MEM, d, s, o, 0)
#define STX(sz, d, s, o) I(BPF_STX | (sz) | BPF_MEM, d, s, o, 0)
#define ST(sz, d, o, i)	I(BPF_ST | (sz) | BPF_MEM, d, 0, o, i)
#define CALL(f)		I(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define JEQ_IMM(d, i, o) I(BPF_JMP | BPF_JEQ | BPF_K, d, 0, o, i)
#define LD_MAP(d, fd)	I(BPF_LD | BPF_IMM | BPF_DW, d, BPF_PSEUDO_MAP_FD, 0, fd), I(0, 0, 0, 0, 0)

static int ntests, nfail;
static const char *verbose = "0";


static int write_file(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY), n = -1;

	if (fd >= 0) {
		n = write(fd, v, strlen(v));
		close(fd);
	}
	return n < 0 ? -1 : 0;
}

/* What a test program is, and what it must do once loaded. */
struct fprog {
	const char *name;
	struct bpf_insn insns[40];
	int len;
	bool harden;
};

static int fd_vals, fd_jmp;
static int kfunc_lock, kfunc_unlock;

/* The value at 0 read, +1 stored at 8: a checked load and store. */
#define MAP_ACCESS							\
	ST(BPF_W, BPF_REG_10, -4, 0), MOV_REG(BPF_REG_2, BPF_REG_10),	\
	ADD_IMM(BPF_REG_2, -4), LD_MAP(BPF_REG_1, fd_vals),		\
	CALL(BPF_FUNC_map_lookup_elem), JEQ_IMM(BPF_REG_0, 0, 3),	\
	LDX(BPF_DW, BPF_REG_1, BPF_REG_0, 0), ADD_IMM(BPF_REG_1, 1),	\
	STX(BPF_DW, BPF_REG_0, BPF_REG_1, 8)

static void build(struct fprog *p, int n)
{
	struct fprog set[] = {
		{ "map", { MAP_ACCESS, MOV_IMM(BPF_REG_0, TC_ACT_OK), EXIT }, 12 },
		/* main calls a subprogram (insn 3 on) that does the map access */
		{ "subprog", { MOV_REG(BPF_REG_6, BPF_REG_1),
			       I(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 1),
			       EXIT, MAP_ACCESS, MOV_IMM(BPF_REG_0, TC_ACT_OK), EXIT }, 15 },
		/* a tail call into an empty prog array falls through */
		{ "tail_call", { MOV_REG(BPF_REG_6, BPF_REG_1), MAP_ACCESS,
				 MOV_REG(BPF_REG_1, BPF_REG_6), LD_MAP(BPF_REG_2, fd_jmp),
				 MOV_IMM(BPF_REG_3, 0), CALL(BPF_FUNC_tail_call),
				 MOV_IMM(BPF_REG_0, TC_ACT_OK), EXIT }, 18 },
		/* skb->len, ->mark read and ->mark written: rewritten accesses */
		{ "ctx_rewrite", { LDX(BPF_W, BPF_REG_2, BPF_REG_1,
				       offsetof(struct __sk_buff, len)),
				   LDX(BPF_W, BPF_REG_3, BPF_REG_1,
				       offsetof(struct __sk_buff, mark)),
				   STX(BPF_W, BPF_REG_1, BPF_REG_2,
				       offsetof(struct __sk_buff, mark)),
				   MOV_IMM(BPF_REG_0, TC_ACT_OK), EXIT }, 5 },
		/* kfunc calls around the map access */
		{ "kfunc", { I(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, kfunc_lock),
			     I(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, kfunc_unlock),
			     MAP_ACCESS, MOV_IMM(BPF_REG_0, TC_ACT_OK), EXIT }, 14 },
		{ "map_blinded", { MAP_ACCESS, MOV_IMM(BPF_REG_0, TC_ACT_OK), EXIT }, 12, true },
	};

	*p = set[n];
}
#define NPROGS	6

/* Memory insns of the xlated program not based on R10: what needs a check. */
static int needed_checks(int fd, int *nfuncs, uint64_t *ksyms)
{
	struct bpf_prog_info info = {}, i2 = {};
	uint32_t len = sizeof(info), k;
	struct bpf_insn x[128];
	int n = 0;

	if (bpf_prog_get_info_by_fd(fd, &info, &len))
		return -1;
	if (info.xlated_prog_len > sizeof(x) || info.nr_jited_ksyms > 4)
		return -1;
	i2.xlated_prog_len = info.xlated_prog_len;
	i2.xlated_prog_insns = (uint64_t)(unsigned long)x;
	i2.nr_jited_ksyms = info.nr_jited_ksyms;
	i2.jited_ksyms = (uint64_t)(unsigned long)ksyms;
	len = sizeof(i2);
	if (bpf_prog_get_info_by_fd(fd, &i2, &len))
		return -1;
	*nfuncs = i2.nr_jited_ksyms;
	for (k = 0; k < info.xlated_prog_len / sizeof(x[0]); k++) {
		uint8_t c = x[k].code, cls = BPF_CLASS(c), mode = BPF_MODE(c);
		bool mem = (cls == BPF_LDX && (mode == BPF_MEM || mode == 0x80)) ||
			   (cls == BPF_ST && mode == BPF_MEM) ||
			   (cls == BPF_STX && (mode == BPF_MEM || mode == BPF_ATOMIC));

		if (c == (BPF_LD | BPF_IMM | BPF_DW))
			k++;
		else if (mem && (cls == BPF_LDX ? x[k].src_reg : x[k].dst_reg) != BPF_REG_10)
			n++;
	}
	return n;
}

/* All checks in the JIT's table, and a run with the expected result. */
static const char *loaded_ok(int fd)
{
	static struct bjk_tab_entry e[64];
	static char why[128];
	uint8_t pkt[64] = { [12] = 0x08 };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = sizeof(pkt));
	uint64_t ksyms[4], start;
	int need, nfuncs = 0, have = 0, f, n;

	need = needed_checks(fd, &nfuncs, ksyms);
	if (need < 0)
		return "bpf_prog_get_info_by_fd failed";
	for (f = 0; f < nfuncs; f++) {
		n = bjk_tab_load(ksyms[f], e, 64, &start);
		if (n < 0) {
			snprintf(why, sizeof(why), "%s: %s", BJK_TAB_PATH, strerror(errno));
			return why;
		}
		have += n;
	}
	if (have != need) {
		snprintf(why, sizeof(why), "%d checked accesses in the JIT's table, %d needed",
			 have, need);
		return why;
	}
	if (bpf_prog_test_run_opts(fd, &o) || o.retval != TC_ACT_OK) {
		snprintf(why, sizeof(why), "test_run: %s, result %u", strerror(errno), o.retval);
		return why;
	}
	return NULL;
}

static void one(int n)
{
	struct fprog p;
	char nth[16], left[16];
	int k, fd, err, clean_enomem = 0, clean_enotsupp = 0, clean_einval = 0;
	int tolerated = 0;
	int fd_nth = open("/proc/thread-self/fail-nth", O_RDWR);
	const char *bad = NULL, *why;
	static char badbuf[200];

	build(&p, n);
	if (fd_nth < 0) {
		ntests++, nfail++;
		out("not ok %d faults.%s # /proc/thread-self/fail-nth: %s (CONFIG_FAULT_INJECTION?)",
		    ntests, p.name, strerror(errno));
		return;
	}
	if (p.harden)
		write_file("/proc/sys/net/core/bpf_jit_harden", "2");
	for (k = 1; k <= MAX_NTH && !bad; k++) {
		snprintf(nth, sizeof(nth), "%d", k);
		if (pwrite(fd_nth, nth, strlen(nth), 0) < 0) {
			bad = "cannot write fail-nth";
			break;
		}
		fd = bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, "bjk_faults", "GPL", p.insns, p.len,
				   NULL);
		err = errno;
		memset(left, 0, sizeof(left));
		if (pread(fd_nth, left, sizeof(left) - 1, 0) < 0)
			left[0] = '?';
		pwrite(fd_nth, "0", 1, 0);
		if (fd < 0) {
			if (err == ENOMEM)
				clean_enomem++;
			else if (err == ENOTSUPP)
				clean_enotsupp++;
			else if (err == EINVAL)
				clean_einval++;
			else {
				snprintf(badbuf, sizeof(badbuf), "site %d failed: load returned %s (%d)",
					 k, strerror(err), err);
				bad = badbuf;
			}
			continue;
		}
		why = loaded_ok(fd);
		close(fd);
		if (why) {
			snprintf(badbuf, sizeof(badbuf), "site %d: loaded, but %s", k, why);
			bad = badbuf;
		}
		if (atoi(left) != 0)
			break;		/* no Nth site in this load: all were tried */
		tolerated++;
	}
	if (p.harden)
		write_file("/proc/sys/net/core/bpf_jit_harden", "0");
	close(fd_nth);
	if (!bad && k > MAX_NTH)
		bad = "still failing after " "5000 sites";
	ntests++;
	if (bad)
		nfail++;
	out("%s %d faults.%s # %d allocation sites failed in turn: %d loads ENOMEM, %d EINVAL, "
	    "%d ENOTSUPP, %d loaded anyway (all checked), then loaded and ran%s%s",
	    bad ? "not ok" : "ok", ntests, p.name, k - 1, clean_enomem, clean_einval,
	    clean_enotsupp, tolerated, bad ? "; " : "", bad ? bad : "");
}

int main(int argc, char **argv)
{
	struct btf *vmlinux;
	int opt, n;

	while ((opt = getopt(argc, argv, "kv")) != -1) {
		if (opt == 'k')
			bjk_out_to_kmsg();
		else if (opt == 'v')
			verbose = "2";	/* each injected failure's stack on the console */
		else {
			fprintf(stderr, "usage: %s [-k] [-v]\n", argv[0]);
			return 2;
		}
	}
	out("KTAP version 1");
	out("1..%d", NPROGS);
	/* GFP_KERNEL allocations fail too, quietly; only fail-nth decides which */
	if (write_file("/sys/kernel/debug/failslab/ignore-gfp-wait", "N") ||
	    write_file("/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait", "N") ||
	    write_file("/sys/kernel/debug/failslab/verbose", verbose) ||
	    write_file("/sys/kernel/debug/fail_page_alloc/verbose", verbose)) {
		out("# error: /sys/kernel/debug/{failslab,fail_page_alloc}: %s "
		    "(CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAULT_INJECTION_DEBUG_FS?)",
		    strerror(errno));
		return 1;
	}
	fd_vals = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bjk_vals", 4, 64, 1, NULL);
	fd_jmp = bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "bjk_jmp", 4, 4, 1, NULL);
	vmlinux = btf__load_vmlinux_btf();
	if (fd_vals < 0 || fd_jmp < 0 || !vmlinux) {
		out("# error: maps or vmlinux BTF: %s", strerror(errno));
		return 1;
	}
	kfunc_lock = btf__find_by_name_kind(vmlinux, "bpf_rcu_read_lock", BTF_KIND_FUNC);
	kfunc_unlock = btf__find_by_name_kind(vmlinux, "bpf_rcu_read_unlock", BTF_KIND_FUNC);
	/* libbpf probes features on its first load: not under fail-nth */
	{
		struct fprog p;
		int fd;

		build(&p, 0);
		fd = bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, "bjk_faults", "GPL", p.insns, p.len,
				   NULL);
		if (fd < 0) {
			out("# error: the first program does not load: %s", strerror(errno));
			return 1;
		}
		close(fd);
	}
	for (n = 0; n < NPROGS; n++)
		one(n);
	out("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0", ntests - nfail, nfail);
	return nfail ? 1 : 0;
}
