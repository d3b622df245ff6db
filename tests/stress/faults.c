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
 * Then the balance: every program of the set loaded, run and freed a few
 * hundred times, with rejected loads and loads with one allocation failing
 * between them; once their memory is back (RCU, deferred frees, KASAN's
 * quarantine drained by shrinking the caches), the kmalloc caches must hold
 * about as many objects as before (within one per 4 loads) and vmalloc about
 * as many areas. kmemleak (the leaks suite) misses what stays referenced (a
 * list that only grows); a count does not.
 *
 * Output: KTAP, one line per program and one for the balance; with -k to
 * /dev/kmsg.
 *
 *   bjk-faults [-k] [-v]		-v: the stack of each injected failure
 */
#include <dirent.h>
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
#include "bjk-guest.h"
#include "bjk-prog.h"

#define MAX_NTH		5000
#define BALANCE_ROUNDS	300
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
static int needed_checks(const struct bjk_prog *p)
{
	uint32_t k;
	int n = 0, size;
	bool write;

	for (k = 0; k < p->ninsns; k++)
		if (p->insns[k].code == (BPF_LD | BPF_IMM | BPF_DW))
			k++;
		else if (bjk_insn_access(&p->insns[k], &write, &size) == BJK_ACCESS_CHECKED)
			n++;
	return n;
}

/* All checks in the JIT's table, and a run with the expected result. */
static const char *loaded_ok(int fd)
{
	static struct bjk_tab_entry e[64];
	static char why[128];
	uint8_t pkt[64] = { [12] = 0x08 };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = sizeof(pkt));
	struct bjk_prog p;
	uint64_t start;
	int need, have = 0, f, n;

	if (bjk_prog_get(fd, &p, BJK_PROG_XLATED))
		return "bpf_prog_get_info_by_fd failed";
	need = needed_checks(&p);
	for (f = 0; f < p.nfuncs; f++) {
		n = bjk_tab_load(p.ksym[f], e, 64, &start);
		if (n < 0) {
			snprintf(why, sizeof(why), "%s: %s", BJK_TAB_PATH, strerror(errno));
			bjk_prog_free(&p);
			return why;
		}
		have += n;
	}
	bjk_prog_free(&p);
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
		bjk_out("not ok %d faults.%s # /proc/thread-self/fail-nth: %s "
		    "(CONFIG_FAULT_INJECTION?)", ntests, p.name, strerror(errno));
		return;
	}
	if (p.harden)
		bjk_write_file("/proc/sys/net/core/bpf_jit_harden", "2");
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
		bjk_write_file("/proc/sys/net/core/bpf_jit_harden", "0");
	close(fd_nth);
	if (!bad && k > MAX_NTH)
		bad = "still failing after " "5000 sites";
	ntests++;
	if (bad)
		nfail++;
	bjk_out("%s %d faults.%s # %d allocation sites failed in turn: %d loads ENOMEM, %d EINVAL, "
	    "%d ENOTSUPP, %d loaded anyway (all checked), then loaded and ran%s%s",
	    bad ? "not ok" : "ok", ntests, p.name, k - 1, clean_enomem, clean_einval,
	    clean_enotsupp, tolerated, bad ? "; " : "", bad ? bad : "");
}

/* The kmalloc caches' objects in use, per cache, and vmalloc's areas. */
struct counts {
	char name[64][32];
	long objs[64];
	int ncaches;
	long vmalloc_areas;
};

/*
 * Count once what the loads freed has been returned: RCU callbacks and
 * kfree_rcu() batches (the latter flushed by dropping slab caches, which
 * runs their shrinker), the deferred program frees (a workqueue), KASAN's
 * quarantine (shrinking a cache drains its objects from it and takes the
 * per-CPU slabs back, so that /proc/slabinfo counts only objects in use).
 * vmalloc areas freed but not yet purged (lazily, in batches) are listed by
 * /proc/vmallocinfo as "unpurged": not counted.
 */
static int settle_and_count(struct counts *c)
{
	char line[512], name[128], path[300];
	struct dirent *d;
	long active;
	FILE *f;
	DIR *dir;
	int i;

	for (i = 0; i < 3; i++) {
		bjk_write_file("/proc/sys/vm/drop_caches", "2");
		sleep(1);
	}
	dir = opendir("/sys/kernel/slab");
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (!strstr(d->d_name, "kmalloc"))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", d->d_name);
		if (bjk_write_file(path, "1"))
			return closedir(dir), -1;
	}
	closedir(dir);
	c->ncaches = 0;
	f = fopen("/proc/slabinfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %ld", name, &active) == 2 && strstr(name, "kmalloc") &&
		    c->ncaches < 64) {
			snprintf(c->name[c->ncaches], sizeof(c->name[0]), "%.31s", name);
			c->objs[c->ncaches++] = active;
		}
	fclose(f);
	c->vmalloc_areas = 0;
	f = fopen("/proc/vmallocinfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strstr(line, "unpurged"))
			c->vmalloc_areas++;
	fclose(f);
	return 0;
}

static long kmalloc_objs(const struct counts *c)
{
	long n = 0;
	int i;

	for (i = 0; i < c->ncaches; i++)
		n += c->objs[i];
	return n;
}

/* Load, run and free each program; a rejected load; a load failing at site k. */
static int churn(int rounds, int fd_nth, int *loads, int *failed)
{
	/* an 8-byte load at 64 of a 64-byte value: the verifier says no */
	struct bpf_insn bad[] = { ST(BPF_W, BPF_REG_10, -4, 0), MOV_REG(BPF_REG_2, BPF_REG_10),
				  ADD_IMM(BPF_REG_2, -4), LD_MAP(BPF_REG_1, fd_vals),
				  CALL(BPF_FUNC_map_lookup_elem), JEQ_IMM(BPF_REG_0, 0, 1),
				  LDX(BPF_DW, BPF_REG_1, BPF_REG_0, 64),
				  MOV_IMM(BPF_REG_0, TC_ACT_OK), EXIT };
	struct fprog p;
	char nth[16];
	int r, n, fd;

	for (r = 0; r < rounds; r++) {
		for (n = 0; n < NPROGS; n++) {
			build(&p, n);
			if (p.harden)
				bjk_write_file("/proc/sys/net/core/bpf_jit_harden", "2");
			fd = bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, "bjk_balance", "GPL", p.insns,
					   p.len, NULL);
			if (p.harden)
				bjk_write_file("/proc/sys/net/core/bpf_jit_harden", "0");
			if (fd < 0)
				return -1;
			(*loads)++;
			if (loaded_ok(fd))
				return close(fd), -1;
			close(fd);
		}
		fd = bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, "bjk_balance", "GPL", bad,
				   sizeof(bad) / sizeof(bad[0]), NULL);
		if (fd >= 0)
			return close(fd), -1;
		(*failed)++;
		/* the subprogram's load, its (r % 40 + 1)th allocation failing */
		build(&p, 1);
		snprintf(nth, sizeof(nth), "%d", r % 40 + 1);
		if (pwrite(fd_nth, nth, strlen(nth), 0) < 0)
			return -1;
		fd = bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, "bjk_balance", "GPL", p.insns, p.len,
				   NULL);
		pwrite(fd_nth, "0", 1, 0);
		if (fd >= 0) {
			(*loads)++;
			close(fd);
		} else {
			(*failed)++;
		}
	}
	return 0;
}

static void balance(void)
{
	int fd_nth = open("/proc/thread-self/fail-nth", O_RDWR);
	static struct counts c0, c1;
	int loads = 0, failed = 0, total, i;
	const char *bad = NULL;
	long k0, k1;
	bool same;

	ntests++;
	/* first a few rounds, so that caches and lazily made state exist */
	if (fd_nth < 0 || churn(20, fd_nth, &loads, &failed))
		bad = "the warm-up's loads failed";
	else if (settle_and_count(&c0))
		bad = "cannot read /proc/slabinfo, /proc/vmallocinfo or shrink /sys/kernel/slab";
	loads = failed = 0;
	if (!bad && churn(BALANCE_ROUNDS, fd_nth, &loads, &failed))
		bad = "a load did not do what it should";
	if (!bad && settle_and_count(&c1))
		bad = "cannot read the counts again";
	if (fd_nth >= 0)
		close(fd_nth);
	if (bad) {
		nfail++;
		bjk_out("not ok %d faults.balance # %s", ntests, bad);
		return;
	}
	k0 = kmalloc_objs(&c0);
	k1 = kmalloc_objs(&c1);
	/*
	 * Not exactly equal: between two counts a quiet guest still allocates
	 * and frees a few hundred kmalloc objects of its own (measured: -134 and
	 * +134 over the same 1800 loads), and threads' stacks come and go in
	 * vmalloc. A leak of one object per load is thousands; the bound is one
	 * object per 4 loads, one vmalloc area per 64.
	 */
	total = loads + failed;
	same = labs(k1 - k0) <= total / 4 && labs(c1.vmalloc_areas - c0.vmalloc_areas) <= total / 64;
	if (!same)
		nfail++;
	bjk_out("%s %d faults.balance # %d programs loaded and freed, %d loads failed: "
	    "kmalloc objects %ld before, %ld after (%+ld, at most %d), vmalloc areas "
	    "%ld before, %ld after (%+ld, at most %d)", same ? "ok" : "not ok", ntests, loads,
	    failed, k0, k1, k1 - k0,
	    total / 4, c0.vmalloc_areas, c1.vmalloc_areas, c1.vmalloc_areas - c0.vmalloc_areas,
	    total / 64);
	for (i = 0; i < c1.ncaches && i < c0.ncaches; i++)
		if (c1.objs[i] != c0.objs[i] && !strcmp(c1.name[i], c0.name[i]))
			bjk_out("# %s: %ld before, %ld after", c1.name[i], c0.objs[i], c1.objs[i]);
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
	bjk_out("KTAP version 1");
	bjk_out("1..%d", NPROGS + 1);
	/* GFP_KERNEL allocations fail too, quietly; only fail-nth decides which */
	if (bjk_write_file("/sys/kernel/debug/failslab/ignore-gfp-wait", "N") ||
	    bjk_write_file("/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait", "N") ||
	    bjk_write_file("/sys/kernel/debug/failslab/verbose", verbose) ||
	    bjk_write_file("/sys/kernel/debug/fail_page_alloc/verbose", verbose)) {
		bjk_out("# error: /sys/kernel/debug/{failslab,fail_page_alloc}: %s "
		    "(CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAULT_INJECTION_DEBUG_FS?)",
		    strerror(errno));
		return 1;
	}
	fd_vals = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bjk_vals", 4, 64, 1, NULL);
	fd_jmp = bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "bjk_jmp", 4, 4, 1, NULL);
	vmlinux = btf__load_vmlinux_btf();
	if (fd_vals < 0 || fd_jmp < 0 || !vmlinux) {
		bjk_out("# error: maps or vmlinux BTF: %s", strerror(errno));
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
			bjk_out("# error: the first program does not load: %s", strerror(errno));
			return 1;
		}
		close(fd);
	}
	for (n = 0; n < NPROGS; n++)
		one(n);
	balance();
	bjk_out("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0", ntests - nfail, nfail);
	return nfail ? 1 : 0;
}
