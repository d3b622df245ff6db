// SPDX-License-Identifier: GPL-2.0
/*
 * bjk-bench: the benchmark's guest side (make bench; a quick form runs in
 * make test). Loads the programs of progs/bench.bpf.c, gives each the input
 * it expects, and per program:
 *
 *  - times it: BPF_PROG_TEST_RUN, PASSES x REPEAT runs in passes of at most
 *    1M instructions, the smallest pass (see timed()). The guest runs under
 *    QEMU -icount shift=0,sleep=off, where the ns that test_run reports
 *    (total / repeat, so including test_run's own loop) are guest
 *    instructions.
 *  - sizes its JIT image: jited_prog_len (all subprograms), and counts the
 *    checks in it: calls to __asan_{load,store}N (outline) or to the inline
 *    checks' slow paths __bpf_jit_kasan_{load,store}N (each inline check
 *    has exactly one), like the e2e suite's audit.
 *  - times its load: libbpf's own BPF_PROG_LOAD of it (verifier and JIT),
 *    LOADS times, the smallest (see load_timed()); the same for every
 *    program of each CORPUS object (-L, repeatable) loaded after the
 *    benchmark's own.
 *  - the whole system: instructions per getppid() in a loop, bare and with
 *    a tracing program on sys_enter (see system_run()); instructions per
 *    UDP datagram sent and received over lo, bare and with tc programs on
 *    lo's egress and ingress (see net_run()).
 *  - counts the checks it executes per run, in a separate pass after the
 *    timed ones: perf execute breakpoints on those sixteen entry points,
 *    the program run COUNT times, minus the hits of an empty program of
 *    the same type run as often (whatever test_run itself or the kernel
 *    around it calls). In an outline boot every executed check
 *    is one call, so this is exact; in an inline boot it counts slow-path
 *    entries. Inline, it then counts the checks themselves: a breakpoint
 *    where each starts, as the JIT's table (BJK_TAB_PATH) lists them; a
 *    merged check covers several accesses.
 *
 * Output, one line per program (to /dev/kmsg with -k), read by
 * tests/bench/report.c on the host:
 *   BJK-BENCH mode=M prog=P repeat=R passes=N insns=MIN insns_min=MIN
 *     insns_median=C insns_max=B bytes=J funcs=F static_checks=S outline_run=X slow_run=Y
 *     noise_run=Z checks_run=K retval=V
 *   BJK-BENCH-LOAD mode=M obj=O prog=P loads=L insns=MIN insns_max=MAX
 *     bpf_insns=N
 *   BJK-BENCH-SYS mode=M calls=C passes=N bare=B insns=T
 *   BJK-BENCH-NET mode=M datagrams=D passes=N bare=B insns=T
 * M is off, outline, inline, unmerged (inline, bpf_jit_kasan_merge=0), or
 * interp (net.core.bpf_jit_enable=0, a kernel with the interpreter: no
 * image and no check to count, only the runs and the loads are timed);
 * O is "bench" or a corpus object's file name without ".bpf.o".
 * And KTAP: one "ok N P" per program that ran with the right result, whose
 * figures are all present and whose image matches the boot's mode, then
 * "ok N system" when sys_enter counted every call of the loop, "ok N net"
 * when net_egress and net_ingress each counted every datagram, and
 * "ok N load_cost" when every program of the benchmark and of each corpus
 * object was loaded LOADS times.
 *
 *   bjk-bench [-k] [-r REPEAT] [-p PASSES] [-c COUNT] [-l LOADS] [-o BPF-OBJECT]
 *             [-L CORPUS-OBJECT]...
 * (-c 0: no counting pass)
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bjk-checks.h"
#include "bjk-out.h"
#include "bjk-guest.h"
#include "bjk-prog.h"


extern const char bjk_bpf_obj[], bjk_bpf_obj_end[];



/* ---- the programs ------------------------------------------------------- */

#define MAX_SITES	512	/* inline checks of one program */

enum ptype { XDP, TC, RAWTP, NPTYPES };

static struct bench {
	const char *name;
	enum ptype type;
	int retval;		/* what a run on the runner's packet must return */
	/* results */
	bool failed;
	char why[256];
	uint32_t bytes, funcs, nchecks, nslow;
	double insns, insns_min, insns_median, insns_max, outline_run, slow_run, noise_run;
	/* inline: where each check starts (the JIT's table), executions per run */
	uint64_t site[MAX_SITES];
	int nsites;
	double checks_run;
	long repeat, passes;
	int got_retval;
} benches[] = {
	{ "parse", XDP, 3 /* XDP_TX */ },
	{ "counters_update", XDP, 2 /* XDP_PASS */ },
	{ "array_loop", XDP, 2 },
	{ "struct_walk", XDP, 2 },
	{ "ringbuf", XDP, 2 },
	{ "helpers_alu", TC, 0 /* TC_ACT_OK */ },
	{ "trace_args", RAWTP, 0 },
	{ "micro", XDP, 2 },
	{ "micro0", XDP, 2 },
};
#define NBENCH (int)(sizeof(benches) / sizeof(benches[0]))

static void bfail(struct bench *b, const char *fmt, ...)
{
	va_list ap;

	if (b->failed)
		return;
	b->failed = true;
	va_start(ap, fmt);
	vsnprintf(b->why, sizeof(b->why), fmt, ap);
	va_end(ap);
}

/*
 * The input: Ethernet, one 802.1Q tag, IPv4 with 4 bytes of options (NOPs),
 * TCP SYN with MSS 1460, NOP, window scale 7, SACK permitted, two NOPs,
 * then payload up to 128 bytes.
 */
static uint8_t pkt[128];
static const int ip_off = 18, tcp_off = 18 + 24;	/* VLAN-tagged; ihl 6 */

static void make_packet(void)
{
	static const uint8_t opts[12] = { 2, 4, 0x05, 0xb4, 1, 3, 3, 7, 4, 2, 1, 1 };
	uint8_t *ip = pkt + ip_off, *tcp = pkt + tcp_off;
	int i, tot = sizeof(pkt) - ip_off;

	for (i = 0; i < 6; i++) {
		pkt[i] = 0x02;
		pkt[6 + i] = 0x04 + i;
	}
	pkt[12] = 0x81; pkt[13] = 0x00;		/* 802.1Q */
	pkt[14] = 0x00; pkt[15] = 0x2a;		/* VLAN 42 */
	pkt[16] = 0x08; pkt[17] = 0x00;		/* IPv4 */
	ip[0] = 0x46;				/* version 4, ihl 6 */
	ip[2] = tot >> 8; ip[3] = tot & 0xff;
	ip[8] = 64;				/* ttl */
	ip[9] = 6;				/* TCP */
	ip[12] = 10; ip[13] = 0; ip[14] = 0; ip[15] = 1;
	ip[16] = 10; ip[17] = 0; ip[18] = 0; ip[19] = 2;
	ip[20] = ip[21] = ip[22] = ip[23] = 1;	/* option NOPs */
	tcp[0] = 0xc3; tcp[1] = 0x50;		/* sport 50000 */
	tcp[2] = 0x01; tcp[3] = 0xbb;		/* dport 443 */
	tcp[12] = (32 / 4) << 4;		/* doff 8: 12 bytes of options */
	tcp[13] = 0x02;				/* SYN */
	memcpy(tcp + 20, opts, sizeof(opts));
	for (i = tcp_off + 32; i < (int)sizeof(pkt); i++)
		pkt[i] = i;
}

/* ---- maps ------------------------------------------------------------------ */

static int map_fd(struct bpf_object *o, const char *name)
{
	struct bpf_map *m = bpf_object__find_map_by_name(o, name);

	if (!m) {
		bjk_out("# error: map %s not in the object", name);
		exit(2);
	}
	return bpf_map__fd(m);
}

static void update(int fd, const void *k, const void *v, const char *what)
{
	if (bpf_map_update_elem(fd, k, v, BPF_ANY)) {
		bjk_out("# error: filling map %s: %s", what, strerror(errno));
		exit(2);
	}
}

/* The map contents each program's intended path needs (see bench.bpf.c). */
static void fill_maps(struct bpf_object *o)
{
	struct { uint32_t s, d; uint16_t sp, dp; uint8_t proto, pad[3]; } fk = {};
	uint8_t value[4096] = {};
	uint32_t k, b, j;
	uint64_t *u = (uint64_t *)value;

	memcpy(&fk.s, pkt + ip_off + 12, 4);
	memcpy(&fk.d, pkt + ip_off + 16, 4);
	memcpy(&fk.sp, pkt + tcp_off, 2);
	memcpy(&fk.dp, pkt + tcp_off + 2, 2);
	fk.proto = 6;
	update(map_fd(o, "flows"), &fk, value, "flows");

	for (k = 0; k < 256; k++)
		update(map_fd(o, "counters"), &k, value, "counters");

	/* histos: struct histo { u64 sample[128]; ... } */
	for (k = 0; k < 128; k++)
		u[k] = (k * 37 + 1) * 1000;
	k = 0;
	update(map_fd(o, "histos"), &k, value, "histos");

	/* conns: struct conn_table { u64 gen; u32 head[8]; struct conn c[32]; } */
	memset(value, 0, sizeof(value));
	{
		uint32_t *head = (uint32_t *)(value + 8);
		uint8_t *c = value + 8 + 32;	/* struct conn: 40 bytes */

		for (b = 0; b < 8; b++) {
			head[b] = b * 4 + 1;
			for (j = 0; j < 4; j++) {
				uint32_t idx = b * 4 + 1 + j;
				uint8_t *e = c + 40 * (idx & 31);
				uint32_t next = j < 3 ? idx + 1 : 0;

				memcpy(e + 32, &next, 4);	/* next */
				memcpy(e + 36, &idx, 4);	/* owner */
			}
		}
	}
	k = 0;
	update(map_fd(o, "conns"), &k, value, "conns");
}

/* ---- JIT image: size and static checks ------------------------------------ */

static void kallsyms_checks(void)
{
	int i;

	if (bjk_checks_load()) {
		bjk_out("# error: /proc/kallsyms: %s", strerror(errno));
		exit(2);
	}
	for (i = 0; i < BJK_NCHECKS; i++)
		if (!bjk_checks[i].addr)
			bjk_out("# warning: %s not in /proc/kallsyms", bjk_checks[i].name);
}

/*
 * The inline checks of the function at @addr, from the JIT's table: each
 * starts at the code of its first access's insn, where a breakpoint counts
 * its executions. None in the other modes.
 */
static void table_sites(struct bench *b, uint64_t addr)
{
	static struct bjk_tab_entry e[4 * MAX_SITES];
	uint64_t start = 0;
	int n, k;

	n = bjk_tab_load(addr, e, 4 * MAX_SITES, &start);
	if (n < 0) {
		if (errno != ENOENT)
			bfail(b, "%s: %s", BJK_TAB_PATH, strerror(errno));
		return;
	}
	for (k = 0; k < n; k++) {
		if (k && e[k].ret == e[k - 1].ret)
			continue;
		if (b->nsites == MAX_SITES) {
			bfail(b, "more than %d inline checks", MAX_SITES);
			return;
		}
		b->site[b->nsites++] = start + e[k].ip;
	}
}

/* jited_prog_len and the calls to check entry points, over all subprograms. */
static void image(struct bench *b, int fd)
{
	struct bjk_prog p;
	uint32_t k;
	int f;

	if (bjk_prog_get(fd, &p, 0)) {
		if (errno == ENOEXEC || errno == E2BIG || errno == ENOENT)
			bfail(b, "not JITed or no jited_ksyms (jited_prog_len %u, %u ksyms)",
			      p.info.jited_prog_len, p.info.nr_jited_ksyms);
		else
			bfail(b, "bpf_prog_get_info_by_fd: %s", strerror(errno));
		return;
	}
	b->bytes = p.info.jited_prog_len;
	b->funcs = p.nfuncs;
	for (f = 0; f < p.nfuncs; f++)
		table_sites(b, p.ksym[f]);
	for (k = 0; k < p.ncalls; k++) {
		if (p.calls[k].slow)
			b->nslow++;
		else
			b->nchecks++;
	}
	bjk_prog_free(&p);
}

/* ---- runs ----------------------------------------------------------------- */

static struct ring_buffer *rb;
static long rb_events;

static int rb_event(void *ctx, void *data, size_t size)
{
	(void)ctx; (void)data; (void)size;
	rb_events++;
	return 0;
}

/* Empty the ring buffer, so that the ringbuf program never finds it full. */
static void drain(void)
{
	if (rb && ring_buffer__consume(rb) < 0)
		bjk_out("# warning: ring_buffer__consume failed");
}

/* A raw_tp program's six arguments (bench.bpf.c's trace_args reads them). */
static uint64_t trace_ctx[6] = { 1, 2, 3, 4, 5, 6 };

/*
 * BPF_PROG_TEST_RUN of a raw_tp program has neither repeat nor duration:
 * @repeat runs, timed with CLOCK_MONOTONIC (guest instructions under
 * -icount like test_run's own figure; it includes the syscalls, which the
 * program's own loop of TRACE_LOOPS makes small).
 */
static int run_raw_tp(int fd, int repeat, uint32_t *duration, uint32_t *retval)
{
	LIBBPF_OPTS(bpf_test_run_opts, o,
		.ctx_in = trace_ctx, .ctx_size_in = sizeof(trace_ctx));
	struct timespec a, b;
	int i;

	drain();
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < repeat; i++)
		if (bpf_prog_test_run_opts(fd, &o))
			return -errno;
	clock_gettime(CLOCK_MONOTONIC, &b);
	drain();
	*duration = ((b.tv_sec - a.tv_sec) * 1000000000LL + b.tv_nsec - a.tv_nsec) / repeat;
	*retval = o.retval;
	return 0;
}

static int run(int fd, enum ptype type, int repeat, uint32_t *duration, uint32_t *retval)
{
	uint8_t dout[256];
	LIBBPF_OPTS(bpf_test_run_opts, o,
		.data_in = pkt, .data_size_in = sizeof(pkt),
		.data_out = dout, .data_size_out = sizeof(dout),
		.repeat = repeat);
	int err;

	if (type == RAWTP)
		return run_raw_tp(fd, repeat, duration, retval);
	drain();
	err = bpf_prog_test_run_opts(fd, &o);
	drain();
	if (err)
		return -errno;
	*duration = o.duration;
	*retval = o.retval;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Interrupts that land in a pass add their instructions to it: a timer tick
 * (HZ=250: every 4M guest instructions) costs about 15k, 3 per run of a
 * 5000 x 800 pass. So a pass is kept under PASS_BUDGET instructions (the
 * repeat lowered to fit), there are passes * repeat / that many of them
 * (at most MAX_PASSES), and the figure is the smallest pass: one without an
 * interrupt, as interrupts only ever add. A pass of at most a quarter of a
 * tick period misses the tick three times in four, so 30 passes leave no
 * doubt; more would only cost time: every XDP test_run with a repeat swaps
 * the program into the XDP dispatcher and out again (two RCU grace periods).
 */
#define PASS_BUDGET	1000000
#define MAX_PASSES	30

static void timed(struct bench *b, int fd, int repeat, int passes)
{
	static double d[64];
	uint32_t dur, ret;
	long r = repeat, n;
	int p, err;

	/* Untimed runs first: caches, lazy allocations; and an estimate. */
	if ((err = run(fd, b->type, 10, &dur, &ret))) {
		bfail(b, "BPF_PROG_TEST_RUN: %s", strerror(-err));
		return;
	}
	if (dur && (long)dur * r > PASS_BUDGET)
		r = PASS_BUDGET / dur > 0 ? PASS_BUDGET / dur : 1;
	n = (long)passes * repeat / r;
	if (n > MAX_PASSES)
		n = MAX_PASSES;
	if (n < passes)
		n = passes;
	b->repeat = r;
	b->passes = n;
	for (p = 0; p < n; p++) {
		if ((err = run(fd, b->type, r, &dur, &ret))) {
			bfail(b, "BPF_PROG_TEST_RUN (repeat %ld): %s", r, strerror(-err));
			return;
		}
		b->got_retval = ret;
		if ((int)ret != b->retval) {
			bfail(b, "returned %u, want %d (the program took another path)", ret,
			      b->retval);
			return;
		}
		if (!dur) {
			bfail(b, "test_run reported a duration of 0");
			return;
		}
		d[p] = dur;
	}
	qsort(d, n, sizeof(d[0]), cmp_double);
	b->insns = d[0];
	b->insns_min = d[0];
	b->insns_median = d[n / 2];
	b->insns_max = d[n - 1];
}

/* ---- counting executed checks with hardware breakpoints ---------------- */

/*
 * kprobe events refuse __asan_{load,store}N ("Could not probe notrace
 * function": mm/kasan is built without ftrace and the kernel has no
 * KPROBE_EVENTS_ON_NOTRACE), so the count uses perf's execute breakpoints
 * on those entry points instead: each counts exactly how often its address
 * is executed while this task runs (pid 0), test_run's loop included. The
 * CPU has four debug registers, hence groups of at most four.
 */
static int bp_open(unsigned long addr)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_BREAKPOINT,
		.size = sizeof(a),
		.bp_type = HW_BREAKPOINT_X,
		.bp_addr = addr,
		.bp_len = sizeof(long),
		.exclude_user = 1,
		.exclude_hv = 1,
	};

	return syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);
}

static bool bp_failed;

/* Executions of the check entry points per run of @fd over @count runs. */
static int count_pass(int fd, enum ptype type, int count, double *outline, double *slow)
{
	uint64_t total[2] = {};
	int first, i, n, fds[4];
	uint32_t dur, ret;

	for (first = 0; first < BJK_NCHECKS; first += 4) {
		for (n = 0, i = first; i < first + 4 && i < BJK_NCHECKS; i++, n++) {
			const struct bjk_check *k = &bjk_checks[i];

			fds[n] = k->addr ? bp_open(k->addr) : -1;
			if (fds[n] < 0 && k->addr && !k->slow && !bp_failed) {
				bjk_out("# error: breakpoint on %s: %s", k->name, strerror(errno));
				bp_failed = true;
			}
		}
		if (bp_failed) {
			for (i = 0; i < n; i++)
				if (fds[i] >= 0)
					close(fds[i]);
			return -1;
		}
		if (run(fd, type, count, &dur, &ret))
			return -1;
		for (i = 0; i < n; i++) {
			uint64_t v = 0;

			if (fds[i] < 0)
				continue;
			if (read(fds[i], &v, sizeof(v)) != sizeof(v))
				return -1;
			total[bjk_checks[first + i].slow] += v;
			close(fds[i]);
		}
	}
	*outline = (double)total[0] / count;
	*slow = (double)total[1] / count;
	return 0;
}

/* Executions per run of the inline checks of @b (breakpoints on them). */
static int count_sites(struct bench *b, int fd, int count)
{
	uint64_t total = 0, v;
	int first, i, n, fds[4];
	uint32_t dur, ret;

	for (first = 0; first < b->nsites; first += 4) {
		for (n = 0, i = first; i < first + 4 && i < b->nsites; i++, n++) {
			fds[n] = bp_open(b->site[i]);
			if (fds[n] < 0) {
				bfail(b, "breakpoint on a check at %#llx: %s",
				      (unsigned long long)b->site[i], strerror(errno));
				while (n--)
					close(fds[n]);
				return -1;
			}
		}
		if (run(fd, b->type, count, &dur, &ret))
			return -1;
		for (i = 0; i < n; i++) {
			v = 0;
			if (read(fds[i], &v, sizeof(v)) != sizeof(v))
				return -1;
			total += v;
			close(fds[i]);
		}
	}
	b->checks_run = (double)total / count;
	return 0;
}

/* ---- load cost ------------------------------------------------------------ */

/*
 * What loading a program costs the kernel, the verifier and the JIT: the
 * runner is linked with -Wl,--wrap=syscall, so libbpf's bpf() calls come
 * through __wrap_syscall(). While load_obj is set (around the
 * bpf_object__load() of an object being timed), each BPF_PROG_LOAD of one
 * of its programs, with the attributes libbpf built (relocated insns, BTF,
 * func and line info), is made load_n times in a row, each timed with
 * CLOCK_MONOTONIC (guest instructions under -icount, the syscall's entry
 * and exit included); libbpf gets the first copy's fd, the others are
 * closed at once. The figure is the smallest: interrupts, and the deferred
 * frees of the copies closed before, only add. libbpf's feature probes
 * (unnamed programs) and failed loads pass through untimed.
 */
#define MAX_LOAD_RECS	512

static struct load_rec {
	const char *obj;
	char prog[BPF_OBJ_NAME_LEN];
	uint32_t insn_cnt;
	int loads;
	double min, max;
} load_recs[MAX_LOAD_RECS];
static int nload_recs;
static struct bpf_object *load_obj;
static const char *load_label;
static int load_n = 5;

long __real_syscall(long nr, ...);
long __wrap_syscall(long nr, ...);

static double mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* Whether @name (the kernel's, at most 15 bytes) is a program of load_obj. */
static bool load_is_prog(const char *name)
{
	struct bpf_program *p;

	if (!name[0])
		return false;
	bpf_object__for_each_program(p, load_obj)
		if (!strncmp(bpf_program__name(p), name, BPF_OBJ_NAME_LEN - 1))
			return true;
	return false;
}

static long load_timed(union bpf_attr *attr, unsigned long size)
{
	struct load_rec *r = NULL;
	long fd, first = -1;
	double t;
	int i;

	for (i = 0; i < load_n; i++) {
		t = mono_ns();
		fd = __real_syscall(__NR_bpf, BPF_PROG_LOAD, attr, size);
		t = mono_ns() - t;
		if (fd < 0) {
			if (i == 0)
				return fd;	/* errno is the kernel's, for libbpf */
			bjk_out("# error: load %d of %s: %s", i + 1, attr->prog_name,
				strerror(errno));
			break;
		}
		if (i == 0) {
			first = fd;
			if (nload_recs == MAX_LOAD_RECS) {
				bjk_out("# error: more than %d programs to time", MAX_LOAD_RECS);
				return first;
			}
			r = &load_recs[nload_recs++];
			r->obj = load_label;
			memcpy(r->prog, attr->prog_name, sizeof(r->prog));
			r->prog[sizeof(r->prog) - 1] = '\0';
			r->insn_cnt = attr->insn_cnt;
			r->min = r->max = t;
		} else if (r) {
			close(fd);
			r->min = fmin(r->min, t);
			r->max = fmax(r->max, t);
		}
		r->loads = i + 1;
	}
	return first;
}

long __wrap_syscall(long nr, ...)
{
	long a[6];
	va_list ap;
	int i;

	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == __NR_bpf && a[0] == BPF_PROG_LOAD && load_obj &&
	    load_is_prog(((union bpf_attr *)a[1])->prog_name))
		return load_timed((union bpf_attr *)a[1], a[2]);
	return __real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* bpf_object__load(@o) with every program's load timed, as @label. */
static int load_object(struct bpf_object *o, const char *label)
{
	int err;

	load_obj = o;
	load_label = label;
	err = bpf_object__load(o);
	load_obj = NULL;
	return err;
}

/* The records of @label's programs; how many, -1 if one has too few loads. */
static int load_report(const char *mode, const char *label)
{
	int i, n = 0;

	for (i = 0; i < nload_recs; i++) {
		struct load_rec *r = &load_recs[i];

		if (strcmp(r->obj, label))
			continue;
		if (r->loads != load_n || r->min <= 0) {
			bjk_out("# error: %s %s: %d of %d loads timed", label, r->prog, r->loads,
				load_n);
			return -1;
		}
		bjk_out("BJK-BENCH-LOAD mode=%s obj=%s prog=%s loads=%d insns=%.0f "
			"insns_max=%.0f bpf_insns=%u", mode, label, r->prog, r->loads, r->min,
			r->max, r->insn_cnt);
		n++;
	}
	return n;
}

/*
 * The corpus: each object of @paths opened from its file and loaded with
 * its programs timed, then closed. The KTAP case: whether the benchmark's
 * programs and every corpus object's were all timed.
 */
static bool load_corpus(const char *mode, char **paths, int npaths)
{
	bool ok = load_report(mode, "bench") >= 0;
	int i, j;

	for (i = 0; ok && i < NBENCH; i++) {
		for (j = 0; j < nload_recs; j++)
			if (!strcmp(load_recs[j].obj, "bench") &&
			    !strcmp(load_recs[j].prog, benches[i].name))
				break;
		if (j == nload_recs) {
			bjk_out("# error: the load of %s was not timed", benches[i].name);
			ok = false;
		}
	}
	for (i = 0; i < npaths; i++) {
		const char *base = strrchr(paths[i], '/') ? strrchr(paths[i], '/') + 1 : paths[i];
		char *label = strndup(base, strcspn(base, "."));
		struct bpf_object *c = bpf_object__open_file(paths[i], NULL);
		int n;

		if (!c || load_object(c, label)) {
			bjk_out("# error: corpus object %s did not load", paths[i]);
			ok = false;
		} else if ((n = load_report(mode, label)) < 1) {
			bjk_out("# error: corpus object %s: no program's load timed", paths[i]);
			ok = false;
		}
		bpf_object__close(c);
	}
	return ok;
}

/* ---- the whole system: a syscall loop, sys_enter traced ------------------ */

/*
 * getppid() SYS_CALLS times a pass, timed with CLOCK_MONOTONIC, the
 * smallest of SYS_PASSES passes per syscall (a pass is well under a timer
 * tick's 4M instructions, and interrupts only add): first with nothing
 * attached, the bare syscall, then with bench.bpf.c's sys_enter attached to
 * the raw tracepoint, which must have counted every call.
 */
#define SYS_CALLS	256
#define SYS_PASSES	30

/*
 * A whole-system workload: its KTAP case, figure line (BJK-BENCH-TAG), unit
 * and loop; its figures per call or datagram, bare and traced.
 */
struct workload {
	const char *name, *tag, *unit, *what, *prog;
	int per_pass, passes;
	double bare, traced;
	bool failed;
	char why[160];
};

static struct workload sys_fig = { "system", "SYS", "calls", "getppid()", "sys_enter",
				   SYS_CALLS, SYS_PASSES };

static double sys_pass_min(void)
{
	double best = INFINITY, t;
	int p, i;

	for (p = 0; p < SYS_PASSES; p++) {
		t = mono_ns();
		for (i = 0; i < SYS_CALLS; i++)
			getppid();
		best = fmin(best, (mono_ns() - t) / SYS_CALLS);
	}
	return best;
}

static void wl_fail(struct workload *w, const char *fmt, ...)
{
	va_list ap;

	if (w->failed)
		return;
	w->failed = true;
	va_start(ap, fmt);
	vsnprintf(w->why, sizeof(w->why), fmt, ap);
	va_end(ap);
}

static void system_run(struct bpf_object *o)
{
	struct bpf_program *p = bpf_object__find_program_by_name(o, "sys_enter");
	uint32_t zero = 0, pid = getpid(), key = __NR_getppid & 511;
	struct { uint64_t calls, last_id; uint32_t pid, cpu; } st = {}, last = {};
	const uint64_t want = SYS_CALLS * SYS_PASSES;
	struct bpf_link *l;

	if (!p) {
		wl_fail(&sys_fig, "program sys_enter not in the object");
		return;
	}
	update(map_fd(o, "sys_pid"), &zero, &pid, "sys_pid");
	update(map_fd(o, "sys_calls"), &key, &st, "sys_calls");
	sys_fig.bare = sys_pass_min();
	l = bpf_program__attach(p);
	if (!l) {
		wl_fail(&sys_fig, "attaching sys_enter: %s", strerror(errno));
		return;
	}
	sys_fig.traced = sys_pass_min();
	bpf_link__destroy(l);
	if (bpf_map_lookup_elem(map_fd(o, "sys_calls"), &key, &st) ||
	    bpf_map_lookup_elem(map_fd(o, "sys_last"), &pid, &last))
		wl_fail(&sys_fig, "sys_enter's maps: %s", strerror(errno));
	else if (st.calls != want || last.calls != want || last.last_id != __NR_getppid)
		wl_fail(&sys_fig, "sys_enter counted %llu and %llu calls (last %llu), want %llu of getppid",
			 (unsigned long long)st.calls, (unsigned long long)last.calls,
			 (unsigned long long)last.last_id, (unsigned long long)want);
	else if (!(sys_fig.bare > 0 && sys_fig.traced > sys_fig.bare))
		wl_fail(&sys_fig, "instructions per syscall: %.0f bare, %.0f traced", sys_fig.bare,
			 sys_fig.traced);
}

/* ---- the whole system: UDP datagrams over lo, tc on both hooks ----------- */

/*
 * NET_DGRAMS datagrams of NET_LEN bytes a pass, each sent on one UDP
 * socket and received on another (bound to 127.0.0.1:NET_PORT) before the
 * next is sent, timed with CLOCK_MONOTONIC, the smallest of NET_PASSES
 * passes (a pass stays under a timer tick's 4M instructions): first with
 * nothing attached, then with bench.bpf.c's net_egress and net_ingress on
 * lo's clsact egress and ingress hooks, which must each have counted every
 * datagram. On lo, sending a datagram runs its whole way to the receiving
 * socket (the backlog's softirq on the way out of the send), so the loop
 * times the send path, tc egress, lo, tc ingress, UDP receive and recv().
 */
#define NET_PORT	9998	/* bench.bpf.c's */
#define NET_DGRAMS	32
#define NET_PASSES	30
#define NET_LEN		64

static struct workload net_fig = { "net", "NET", "datagrams", "a UDP datagram over lo", "tc",
				   NET_DGRAMS, NET_PASSES };

struct net_flow_key {	/* bench.bpf.c's struct flow_key */
	uint32_t saddr, daddr;
	uint16_t sport, dport;
	uint8_t proto, pad[3];
};

struct net_flow {
	uint64_t packets[2], bytes[2];
	uint32_t last_len[2], last_ifindex[2];
};

/* The smallest pass's instructions per datagram, or -1 (net_fig failed). */
static double net_pass_min(int tx, int rx)
{
	char out[NET_LEN] = "bjk-bench", in[NET_LEN * 2];
	double best = INFINITY, t;
	ssize_t n;
	int p, i;

	for (p = 0; p < NET_PASSES; p++) {
		t = mono_ns();
		for (i = 0; i < NET_DGRAMS; i++) {
			if (send(tx, out, NET_LEN, 0) != NET_LEN) {
				wl_fail(&net_fig, "send: %s", strerror(errno));
				return -1;
			}
			n = recv(rx, in, sizeof(in), 0);	/* SO_RCVTIMEO: 2 s */
			if (n != NET_LEN) {
				wl_fail(&net_fig, "recv: %zd bytes, want %d (%s)", n, NET_LEN,
					n < 0 ? strerror(errno) : "short");
				return -1;
			}
		}
		best = fmin(best, (mono_ns() - t) / NET_DGRAMS);
	}
	return best;
}

/* The two sockets over lo: 0, or -1 (net_fig failed). */
static int net_sockets(int *tx, int *rx, struct net_flow_key *k)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(NET_PORT),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timeval tmo = { .tv_sec = 2 };
	socklen_t len = sizeof(a);

	*rx = socket(AF_INET, SOCK_DGRAM, 0);
	*tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (*rx < 0 || *tx < 0 || bind(*rx, (struct sockaddr *)&a, sizeof(a)) ||
	    setsockopt(*rx, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo)) ||
	    connect(*tx, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(*tx, (struct sockaddr *)&a, &len)) {
		wl_fail(&net_fig, "the sockets on lo: %s", strerror(errno));
		return -1;
	}
	k->saddr = k->daddr = htonl(INADDR_LOOPBACK);
	k->sport = a.sin_port;
	k->dport = htons(NET_PORT);
	k->proto = IPPROTO_UDP;
	return 0;
}

/* net_egress and net_ingress on lo's clsact hooks: 0, or -1 (net_fig failed). */
static int net_attach(struct bpf_object *o, int lo)
{
	static const char *const name[2] = { "net_egress", "net_ingress" };
	static const enum bpf_tc_attach_point at[2] = { BPF_TC_EGRESS, BPF_TC_INGRESS };
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = lo,
		    .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);
	int i, err = bpf_tc_hook_create(&hook);

	if (err) {
		wl_fail(&net_fig, "clsact on lo: %s", strerror(-err));
		return -1;
	}
	for (i = 0; i < 2; i++) {
		struct bpf_program *p = bpf_object__find_program_by_name(o, name[i]);
		LIBBPF_OPTS(bpf_tc_opts, opts, .prog_fd = p ? bpf_program__fd(p) : -1);

		hook.attach_point = at[i];
		err = p ? bpf_tc_attach(&hook, &opts) : -ENOENT;
		if (err) {
			wl_fail(&net_fig, "attaching %s to lo: %s", name[i], strerror(-err));
			return -1;
		}
	}
	return 0;
}

static void net_run(struct bpf_object *o)
{
	const uint64_t want = NET_DGRAMS * NET_PASSES;
	int lo = if_nametoindex("lo"), tx = -1, rx = -1, d;
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = lo,
		    .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);
	struct net_flow_key k = {};
	struct net_flow f = {};
	uint64_t count[2] = {};

	if (!lo || bjk_lo_up()) {
		wl_fail(&net_fig, "bringing lo up: %s", strerror(errno));
		return;
	}
	if (net_sockets(&tx, &rx, &k) || (net_fig.bare = net_pass_min(tx, rx)) < 0)
		goto out;
	if (!net_attach(o, lo))
		net_fig.traced = net_pass_min(tx, rx);
	bpf_tc_hook_destroy(&hook);	/* the qdisc and both filters */
	if (net_fig.failed)
		goto out;
	for (d = 0; d < 2; d++) {
		uint32_t key = d;

		if (bpf_map_lookup_elem(map_fd(o, "net_count"), &key, &count[d]))
			wl_fail(&net_fig, "net_count: %s", strerror(errno));
	}
	if (bpf_map_lookup_elem(map_fd(o, "net_flows"), &k, &f))
		wl_fail(&net_fig, "the datagrams' flow not in net_flows: %s", strerror(errno));
	else if (count[0] != want || count[1] != want || f.packets[0] != want ||
		 f.packets[1] != want)
		wl_fail(&net_fig, "egress and ingress counted %llu and %llu datagrams (flow: "
			"%llu, %llu), want %llu", (unsigned long long)count[0],
			(unsigned long long)count[1], (unsigned long long)f.packets[0],
			(unsigned long long)f.packets[1], (unsigned long long)want);
	else if (!(net_fig.bare > 0 && net_fig.traced > net_fig.bare))
		wl_fail(&net_fig, "instructions per datagram: %.0f bare, %.0f traced",
			net_fig.bare, net_fig.traced);
out:
	if (tx >= 0)
		close(tx);
	if (rx >= 0)
		close(rx);
}

/* A workload's figure line and its KTAP case @n; 1 when it failed. */
static int wl_out(const struct workload *w, int n, const char *mode)
{
	if (w->failed) {
		bjk_out("not ok %d %s # %s", n, w->name, w->why);
		return 1;
	}
	bjk_out("BJK-BENCH-%s mode=%s %s=%d passes=%d bare=%.0f insns=%.0f", w->tag, mode,
		w->unit, w->per_pass, w->passes, w->bare, w->traced);
	bjk_out("ok %d %s # %s: %.0f insns bare, %.0f with %s", n, w->name, w->what, w->bare,
		w->traced, w->prog);
	return 0;
}

/* ---- main ----------------------------------------------------------------- */

/*
 * off, outline, inline, or "unmerged": inline with bpf_jit_kasan_merge=0;
 * "interp" when the JIT is off (net.core.bpf_jit_enable=0).
 */
static const char *boot_mode(void)
{
	static char mode[32] = "inline";	/* the kernel's default */
	FILE *f = fopen("/proc/sys/net/core/bpf_jit_enable", "r");

	if (f) {
		int c = fgetc(f);

		fclose(f);
		if (c == '0')
			return "interp";
	}
	/* the mode as the kernel reads back its parameter */
	f = fopen("/sys/module/kernel/parameters/bpf_jit_kasan", "r");
	if (f) {
		if (fscanf(f, "%31s", mode) != 1)
			snprintf(mode, sizeof(mode), "inline");
		fclose(f);
	}
	f = fopen("/sys/module/kernel/parameters/bpf_jit_kasan_merge", "r");
	if (f) {
		if (!strcmp(mode, "inline") && fgetc(f) == 'N')
			strcpy(mode, "unmerged");
		fclose(f);
	}
	return mode;
}

int main(int argc, char **argv)
{
	int repeat = 1000, passes = 3, count = 20, opt, i, nfail = 0, ncorpus = 0;
	int fd_empty[NPTYPES] = { -1, -1, -1 };
	double noise[NPTYPES][2] = {};
	const char *obj_path = NULL, *mode;
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "bench");
	char *corpus[64];
	struct bpf_object *o;
	bool counting, want_count, interp, loads_ok;

	while ((opt = getopt(argc, argv, "kr:p:c:l:o:L:")) != -1) {
		switch (opt) {
		case 'k': bjk_out_to_kmsg(); break;
		case 'r': repeat = atoi(optarg); break;
		case 'p': passes = atoi(optarg); break;
		case 'c': count = atoi(optarg); break;
		case 'l': load_n = atoi(optarg); break;
		case 'o': obj_path = optarg; break;
		case 'L':
			if (ncorpus == (int)(sizeof(corpus) / sizeof(corpus[0]))) {
				fprintf(stderr, "bjk-bench: too many -L\n");
				return 2;
			}
			corpus[ncorpus++] = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-k] [-r REPEAT] [-p PASSES] [-c COUNT] [-l LOADS] "
				"[-o OBJ] [-L CORPUS-OBJ]...\n", argv[0]);
			return 2;
		}
	}
	if (repeat < 1 || passes < 1 || passes > 64 || count < 0 || load_n < 1) {
		fprintf(stderr, "bjk-bench: bad -r/-p/-c/-l\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	libbpf_set_print(bjk_libbpf_print);
	mode = boot_mode();
	interp = !strcmp(mode, "interp");
	make_packet();
	kallsyms_checks();

	bjk_out("KTAP version 1");
	bjk_out("1..%d", NBENCH + 3);
	if (obj_path)
		o = bpf_object__open_file(obj_path, &oo);
	else
		o = bpf_object__open_mem(bjk_bpf_obj, bjk_bpf_obj_end - bjk_bpf_obj, &oo);
	if (!o || load_object(o, "bench")) {
		bjk_out("# error: loading the BPF object failed (see libbpf's messages above)");
		for (i = 0; i < NBENCH; i++)
			bjk_out("not ok %d %s # the object did not load", i + 1, benches[i].name);
		bjk_out("not ok %d system # the object did not load", NBENCH + 1);
		bjk_out("not ok %d net # the object did not load", NBENCH + 2);
		bjk_out("not ok %d load_cost # the object did not load", NBENCH + 3);
		return 1;
	}
	fill_maps(o);
	rb = ring_buffer__new(map_fd(o, "events"), rb_event, NULL, NULL);
	if (!rb)
		bjk_out("# warning: ring_buffer__new failed; the ring buffer is not drained");
	fd_empty[XDP] = bpf_program__fd(bpf_object__find_program_by_name(o, "xdp_empty"));
	fd_empty[TC] = bpf_program__fd(bpf_object__find_program_by_name(o, "tc_empty"));
	fd_empty[RAWTP] = bpf_program__fd(bpf_object__find_program_by_name(o, "raw_tp_empty"));
	bjk_out("# mode %s, repeat %d, passes %d, count %d, loads %d, corpus objects %d", mode,
		repeat, passes, count, load_n, ncorpus);

	/* Timed passes first, with no breakpoint armed anywhere. */
	for (i = 0; i < NBENCH; i++) {
		struct bench *b = &benches[i];
		struct bpf_program *p = bpf_object__find_program_by_name(o, b->name);

		if (!p) {
			bfail(b, "program not in the object");
			continue;
		}
		if (!interp)	/* the interpreter has no image */
			image(b, bpf_program__fd(p));
		timed(b, bpf_program__fd(p), repeat, passes);
	}

	/*
	 * Then the counting pass: the empty programs give test_run's own share.
	 * Not under the interpreter: no JITed check to count, and the entry
	 * points' breakpoints would count the C code's own; nor with -c 0 (a
	 * kernel whose C has outline KASAN: the same).
	 */
	want_count = !interp && count > 0;
	counting = want_count;
	for (i = 0; counting && i < NPTYPES; i++)
		if (count_pass(fd_empty[i], i, count, &noise[i][0], &noise[i][1]))
			counting = false;
	for (i = 0; i < NBENCH; i++) {
		struct bench *b = &benches[i];
		struct bpf_program *p = bpf_object__find_program_by_name(o, b->name);
		double ho, hs;

		if (!p || b->failed || !want_count)
			continue;
		if (!counting) {
			bfail(b, "executed checks not counted (no breakpoints)");
			continue;
		}
		if (count_pass(bpf_program__fd(p), b->type, count, &ho, &hs)) {
			bfail(b, "counting pass failed");
			continue;
		}
		b->outline_run = ho - noise[b->type][0];
		b->slow_run = hs - noise[b->type][1];
		b->noise_run = noise[b->type][0] + noise[b->type][1];
		/* outline: one check per access; off: none */
		b->checks_run = b->outline_run;
		if (b->nsites && count_sites(b, bpf_program__fd(p), count))
			bfail(b, "counting the inline checks failed");
	}

	for (i = 0; i < NBENCH; i++) {
		struct bench *b = &benches[i];

		/* The image must be what the boot's mode makes. */
		if (!b->failed && !interp) {
			bool off = !strcmp(mode, "off"), outl = !strcmp(mode, "outline");
			bool none = !strcmp(b->name, "micro0");

			if (off && (b->nchecks || b->nslow))
				bfail(b, "mode off but %u checks in the image", b->nchecks + b->nslow);
			else if (outl && (b->nslow || (!b->nchecks && !none)))
				bfail(b, "outline image: %u runtime calls, %u slow paths",
				      b->nchecks, b->nslow);
			else if (!off && !outl && (b->nchecks || (!b->nslow && !none)))
				bfail(b, "inline image: %u runtime calls, %u slow paths",
				      b->nchecks, b->nslow);
			else if (!off && !outl && (uint32_t)b->nsites != b->nslow)
				bfail(b, "inline image: %u slow path calls, %d checks in the JIT's "
				      "table", b->nslow, b->nsites);
			else if (fabs(b->checks_run - round(b->checks_run)) > 0.05)
				bfail(b, "checks executed per run not whole: %.3f", b->checks_run);
			else if (outl && !none && b->outline_run < 1)
				bfail(b, "outline boot but no executed check counted (%.2f per run)",
				      b->outline_run);
			else if (fabs(b->outline_run - round(b->outline_run)) > 0.05 ||
				 fabs(b->slow_run - round(b->slow_run)) > 0.05)
				bfail(b, "executed checks per run not whole: %.3f + %.3f (noise?)",
				      b->outline_run, b->slow_run);
		}
		if (!b->failed)
			bjk_out("BJK-BENCH mode=%s prog=%s repeat=%ld passes=%ld insns=%.0f "
			    "insns_min=%.0f insns_median=%.0f insns_max=%.0f bytes=%u funcs=%u "
			    "static_checks=%u outline_run=%.3f slow_run=%.3f noise_run=%.3f "
			    "checks_run=%.3f retval=%d req_repeat=%d req_passes=%d",
			    mode, b->name, b->repeat, b->passes, b->insns, b->insns_min,
			    b->insns_median, b->insns_max,
			    b->bytes, b->funcs, b->nchecks + b->nslow, b->outline_run, b->slow_run,
			    b->noise_run, b->checks_run, b->got_retval, repeat, passes);
		if (b->failed) {
			nfail++;
			bjk_out("not ok %d %s # %s", i + 1, b->name, b->why);
		} else {
			bjk_out("ok %d %s # %.0f insns/run, %u bytes, %u checks in the image",
			    i + 1, b->name, b->insns, b->bytes, b->nchecks + b->nslow);
		}
	}
	/* The whole system; last, the loads (the programs above are loaded). */
	system_run(o);
	nfail += wl_out(&sys_fig, NBENCH + 1, mode);
	net_run(o);
	nfail += wl_out(&net_fig, NBENCH + 2, mode);
	loads_ok = load_corpus(mode, corpus, ncorpus);
	if (!loads_ok)
		nfail++;
	bjk_out("%s %d load_cost # %d loads each, %d programs of the benchmark and %d corpus "
		"object(s)", loads_ok ? "ok" : "not ok", NBENCH + 3, load_n, NBENCH, ncorpus);
	bjk_out("# ring buffer events drained: %ld", rb_events);
	bjk_out("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0", NBENCH + 3 - nfail,
		nfail);
	ring_buffer__free(rb);
	bpf_object__close(o);
	return nfail ? 1 : 0;
}
