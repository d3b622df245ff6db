// SPDX-License-Identifier: GPL-2.0
/*
 * bjk-stress: checked programs under load on both CPUs of the guest.
 *
 * For DURATION seconds (-t, default 30) at once:
 *  - one thread per CPU, pinned, runs st_work (tc) with BPF_PROG_TEST_RUN
 *    (checked loads, stores and atomics on an array value, a hash element
 *    and an inner map's value, then a tail call);
 *  - a thread loads a small checked tc program, runs it once and frees it
 *    (the JIT's check table inserted, looked up, freed after RCU);
 *  - a thread inserts and deletes the hash map's keys (elements freed
 *    under RCU while the runners look them up);
 *  - a thread replaces the inner map of the map-in-map (inner maps freed
 *    under the runners);
 *  - a thread rewrites the prog array entry, st_tail_a or st_tail_b;
 *  - a thread sends UDP datagrams to 127.0.0.1, where st_lo (generic XDP
 *    on lo) counts them.
 * Then it checks the programs' own counters against what was asked: every
 * run counted once, every run tail-called one of the two targets, every
 * datagram seen; every load, run and map operation succeeded. KASAN
 * reports and other splats are the harness's splat scan's to find: none
 * is expected here.
 *
 * Output: KTAP, one line per check, and the figures as "#" lines; with -k
 * to /dev/kmsg.
 *
 *   bjk-stress [-k] [-t SECONDS]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
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
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bjk-out.h"
#include "bjk-guest.h"

#define STRESS_PORT	9999
#define RUN_REPEAT	64
#define TC_ACT_OK_RET	0

enum { C_RUNS, C_TAIL_A, C_TAIL_B, C_PACKETS, C_HASH_HITS, C_INNER_HITS, NCOUNTS };

extern const char bjk_bpf_obj[], bjk_bpf_obj_end[];

static atomic_bool stop;


#define verdict(ok, name, ...) bjk_case(ok, "", name, __VA_ARGS__)

/* What the threads did; errors carry the first errno seen. */
struct tally {
	atomic_ulong done, errors;
	atomic_int first_err;
};

static void tally_err(struct tally *t, int err)
{
	int zero = 0;

	atomic_fetch_add(&t->errors, 1);
	atomic_compare_exchange_strong(&t->first_err, &zero, err);
}

static struct tally runs[2], loads, churn_ops, swaps, tail_sets, sent;
static int fd_work, fd_tail[2], fd_vals, fd_churn, fd_outer, fd_jmp;
static uint8_t pkt[64];

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

static void *runner(void *arg)
{
	int cpu = (int)(long)arg;

	pin(cpu);
	while (!atomic_load(&stop)) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = sizeof(pkt),
			    .repeat = RUN_REPEAT);

		if (bpf_prog_test_run_opts(fd_work, &o))
			tally_err(&runs[cpu], errno);
		else if (o.retval != TC_ACT_OK_RET)
			tally_err(&runs[cpu], EPROTO);
		else
			atomic_fetch_add(&runs[cpu].done, RUN_REPEAT);
	}
	return NULL;
}

/* r0 = *(u64 *)(value + 0) + 1 stored at value + 8: a checked load and store */
static void *loader(void *arg __attribute__((unused)))
{
	while (!atomic_load(&stop)) {
		struct bpf_insn insns[] = {
			{ BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, 0 },
			{ BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0 },
			{ BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4 },
			{ BPF_LD | BPF_IMM | BPF_DW, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, fd_vals },
			{ 0, 0, 0, 0, 0 },
			{ BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem },
			{ BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 3, 0 },
			{ BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_1, BPF_REG_0, 0, 0 },
			{ BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_1, 0, 0, 1 },
			{ BPF_STX | BPF_MEM | BPF_DW, BPF_REG_0, BPF_REG_1, 8, 0 },
			{ BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, TC_ACT_OK_RET },
			{ BPF_JMP | BPF_EXIT, 0, 0, 0, 0 },
		};
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = sizeof(pkt));
		int fd = bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, "st_loaded", "GPL", insns,
				       sizeof(insns) / sizeof(insns[0]), NULL);

		if (fd < 0) {
			tally_err(&loads, errno);
			continue;
		}
		if (bpf_prog_test_run_opts(fd, &o) || o.retval != TC_ACT_OK_RET)
			tally_err(&loads, errno ?: EPROTO);
		else
			atomic_fetch_add(&loads.done, 1);
		close(fd);
	}
	return NULL;
}

static void *churner(void *arg __attribute__((unused)))
{
	uint64_t val[8] = { 1, 2, 3, 4 };
	uint32_t k = 0;

	while (!atomic_load(&stop)) {
		if (bpf_map_update_elem(fd_churn, &k, val, BPF_ANY))
			tally_err(&churn_ops, errno);
		else
			atomic_fetch_add(&churn_ops.done, 1);
		k = (k + 1) & 255;
		/* the key inserted 128 updates ago goes */
		if (!bpf_map_delete_elem(fd_churn, &(uint32_t){ (k + 128) & 255 }))
			atomic_fetch_add(&churn_ops.done, 1);
	}
	return NULL;
}

static void *swapper(void *arg __attribute__((unused)))
{
	uint32_t k = 0;

	while (!atomic_load(&stop)) {
		int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "st_inner", 4, 64, 1, NULL);

		if (fd < 0) {
			tally_err(&swaps, errno);
			continue;
		}
		if (bpf_map_update_elem(fd_outer, &k, &fd, BPF_ANY))
			tally_err(&swaps, errno);
		else
			atomic_fetch_add(&swaps.done, 1);
		close(fd);
		usleep(2000);
	}
	return NULL;
}

static void *tailer(void *arg __attribute__((unused)))
{
	uint32_t k = 0;
	int i = 0;

	while (!atomic_load(&stop)) {
		i ^= 1;
		if (bpf_map_update_elem(fd_jmp, &k, &fd_tail[i], BPF_ANY))
			tally_err(&tail_sets, errno);
		else
			atomic_fetch_add(&tail_sets.done, 1);
		usleep(1000);
	}
	return NULL;
}

static void *sender(void *arg __attribute__((unused)))
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(STRESS_PORT),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	char msg[32] = "bjk-stress";
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	if (s < 0) {
		tally_err(&sent, errno);
		return NULL;
	}
	while (!atomic_load(&stop)) {
		if (sendto(s, msg, sizeof(msg), 0, (struct sockaddr *)&to, sizeof(to)) < 0)
			tally_err(&sent, errno);
		else
			atomic_fetch_add(&sent.done, 1);
		usleep(1000);
	}
	close(s);
	return NULL;
}

static int prog(struct bpf_object *o, const char *name)
{
	struct bpf_program *p = bpf_object__find_program_by_name(o, name);

	return p ? bpf_program__fd(p) : -1;
}

static int map(struct bpf_object *o, const char *name)
{
	struct bpf_map *m = bpf_object__find_map_by_name(o, name);

	return m ? bpf_map__fd(m) : -1;
}

static void errs(const char *name, struct tally *t)
{
	int e = atomic_load(&t->first_err);

	bjk_out("# %s: %lu done, %lu errors%s%s", name, atomic_load(&t->done),
	    atomic_load(&t->errors), e ? ", first: " : "", e ? strerror(e) : "");
}

int main(int argc, char **argv)
{
	void *(*fn[])(void *) = { runner, runner, loader, churner, swapper, tailer, sender };
	unsigned long secs = 30, total;
	uint64_t c[NCOUNTS] = {};
	pthread_t th[7];
	struct bpf_object *o;
	int opt, i, lo, fd_lo;
	uint32_t k;

	while ((opt = getopt(argc, argv, "kt:")) != -1) {
		switch (opt) {
		case 'k': bjk_out_to_kmsg(); break;
		case 't': secs = strtoul(optarg, NULL, 10); break;
		default:
			fprintf(stderr, "usage: %s [-k] [-t SECONDS]\n", argv[0]);
			return 2;
		}
	}
	bjk_out("KTAP version 1");
	bjk_out("1..6");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		bjk_out("# warning: %ld CPU(s) online; the runners share one",
		    sysconf(_SC_NPROCESSORS_ONLN));
	o = bpf_object__open_mem(bjk_bpf_obj, bjk_bpf_obj_end - bjk_bpf_obj, NULL);
	if (!o || bpf_object__load(o)) {
		bjk_out("# error: loading the BPF object failed (libbpf's messages above)");
		return 1;
	}
	fd_work = prog(o, "st_work");
	fd_tail[0] = prog(o, "st_tail_a");
	fd_tail[1] = prog(o, "st_tail_b");
	fd_lo = prog(o, "st_lo");
	fd_vals = map(o, "vals");
	fd_churn = map(o, "churn");
	fd_outer = map(o, "outer");
	fd_jmp = map(o, "jmp");
	k = 0;
	/* the tail call and the inner map are there from the first run on */
	if (bpf_map_update_elem(fd_jmp, &k, &fd_tail[0], BPF_ANY)) {
		bjk_out("# error: prog array: %s", strerror(errno));
		return 1;
	}
	lo = if_nametoindex("lo");
	if (bjk_lo_up() || !lo || bpf_xdp_attach(lo, fd_lo, XDP_FLAGS_SKB_MODE, NULL)) {
		bjk_out("# error: generic XDP on lo: %s", strerror(errno));
		return 1;
	}

	bjk_out("# %lu s, %ld CPUs", secs, sysconf(_SC_NPROCESSORS_ONLN));
	for (i = 0; i < 7; i++)
		pthread_create(&th[i], NULL, fn[i], (void *)(long)i);
	sleep(secs);
	atomic_store(&stop, true);
	for (i = 0; i < 7; i++)
		pthread_join(th[i], NULL);
	usleep(500000);			/* the last datagrams through lo's backlog */
	bpf_xdp_detach(lo, XDP_FLAGS_SKB_MODE, NULL);
	for (k = 0; k < NCOUNTS; k++)
		bpf_map_lookup_elem(map(o, "counts"), &k, &c[k]);

	total = atomic_load(&runs[0].done) + atomic_load(&runs[1].done);
	errs("runs on CPU 0", &runs[0]);
	errs("runs on CPU 1", &runs[1]);
	errs("loads (each run once, then freed)", &loads);
	errs("hash updates and deletes", &churn_ops);
	errs("inner map replacements", &swaps);
	errs("prog array updates", &tail_sets);
	errs("datagrams sent", &sent);
	bjk_out("# counted: runs %llu, tail calls %llu + %llu, packets %llu, hash hits %llu, "
	    "inner map hits %llu", (unsigned long long)c[C_RUNS],
	    (unsigned long long)c[C_TAIL_A], (unsigned long long)c[C_TAIL_B],
	    (unsigned long long)c[C_PACKETS], (unsigned long long)c[C_HASH_HITS],
	    (unsigned long long)c[C_INNER_HITS]);

	verdict(atomic_load(&runs[0].done) && atomic_load(&runs[1].done) &&
		!atomic_load(&runs[0].errors) && !atomic_load(&runs[1].errors) &&
		c[C_RUNS] == total, "stress.runs_counted",
		"%lu runs on two CPUs (%lu on CPU 0, %lu on CPU 1), %llu counted", total,
		(unsigned long)atomic_load(&runs[0].done), (unsigned long)atomic_load(&runs[1].done),
		(unsigned long long)c[C_RUNS]);
	verdict(c[C_TAIL_A] + c[C_TAIL_B] == total && c[C_TAIL_A] && c[C_TAIL_B] &&
		!atomic_load(&tail_sets.errors), "stress.tail_calls_counted",
		"%llu + %llu tail calls for %lu runs, %lu prog array updates",
		(unsigned long long)c[C_TAIL_A], (unsigned long long)c[C_TAIL_B], total,
		atomic_load(&tail_sets.done));
	verdict(atomic_load(&sent.done) && c[C_PACKETS] == atomic_load(&sent.done) &&
		!atomic_load(&sent.errors), "stress.packets_counted",
		"%llu of %lu datagrams seen on lo", (unsigned long long)c[C_PACKETS],
		atomic_load(&sent.done));
	verdict(atomic_load(&loads.done) && !atomic_load(&loads.errors), "stress.load_run_free",
		"%lu programs loaded, run and freed", atomic_load(&loads.done));
	verdict(atomic_load(&churn_ops.done) && !atomic_load(&churn_ops.errors) &&
		c[C_HASH_HITS], "stress.hash_churn", "%lu updates and deletes, %llu hits",
		atomic_load(&churn_ops.done), (unsigned long long)c[C_HASH_HITS]);
	verdict(atomic_load(&swaps.done) && !atomic_load(&swaps.errors) && c[C_INNER_HITS],
		"stress.inner_map_swaps", "%lu inner maps replaced, %llu hits",
		atomic_load(&swaps.done), (unsigned long long)c[C_INNER_HITS]);
	bpf_object__close(o);
	return bjk_totals();
}
