// SPDX-License-Identifier: GPL-2.0
/*
 * text_poke: live text patching of BPF code while the other CPU runs it,
 * the two patterns the stress suite leaves out (docs/testing.md, "Two
 * exclusions and the text-patching crash"). Plain bpf() calls, raw
 * instructions: no libbpf, no clang; run it in the patched kernel with
 * checks off, then on:
 *   tools/vm -- ./text_poke tail SECS     (BJK_APPEND=bpf_jit_kasan=off)
 *   tools/vm -- ./text_poke xdp SECS
 * tail: a socket filter with a constant-index tail call (the JIT emits a
 *   direct jump, and every prog array update rewrites it with
 *   text_poke_bp()) run with BPF_PROG_TEST_RUN on both CPUs while a third
 *   thread sets and clears the array's entry.
 * xdp: two XDP programs run with BPF_PROG_TEST_RUN and a repeat on the two
 *   CPUs: each run puts its program into the XDP dispatcher, whose
 *   trampoline text_poke_bp() rewrites while the other CPU calls it.
 * tp: kernel text, not BPF code: one CPU makes syscalls in a loop while the
 *   other attaches a raw tracepoint program to sys_exit and detaches it,
 *   again and again; each attach and detach patches syscall_exit_work()'s
 *   static key and static call with text_poke_bp(). make test's progs-inline
 *   died this way once ("Oops: int3" at syscall_exit_work+0xa8).
 *   tools/vm -- ./text_poke tp SECS
 * Prints the runs and updates done, exits 0; a kernel that dies with
 * "Oops: int3" ends the boot instead. Under QEMU before 8.1, tp and the
 * tracing tests die that way with multi-threaded TCG only (harness/qemu.sh
 * says why; BJK_ACCEL=tcg gets it, make test's boots do not).
 * A one-off reproducer, built by hand (make test builds it nowhere; its
 * findings are in docs/testing.md and docs/results.md). Build it on the
 * host, in the directory tools/vm will run it in (the guest sees the host's
 * files; the host's linux/bpf.h will do: nothing here is newer than 5.x):
 *   gcc -O2 -Wall -Wextra -pthread -o text_poke "$BJK_ROOT"/tests/repro/text_poke.c
 * (BJK_ROOT: this repository.) Run it only through tools/vm: it loads BPF
 * programs and makes the kernel patch its text.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/bpf.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define INSN(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })
#define MOV64_IMM(d, i)	INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define EXIT()		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
#define CALL(f)		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define LD_MAP_FD(d, fd) INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd), INSN(0, 0, 0, 0, 0)

static long sys_bpf(int cmd, union bpf_attr *a)
{
	return syscall(__NR_bpf, cmd, a, sizeof(*a));
}

static int load(int type, const struct bpf_insn *insns, int n)
{
	static char log[65536];
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	a.insns = (unsigned long)insns;
	a.insn_cnt = n;
	a.license = (unsigned long)"GPL";
	a.log_buf = (unsigned long)log;
	a.log_size = sizeof(log);
	a.log_level = 1;
	fd = sys_bpf(BPF_PROG_LOAD, &a);
	if (fd < 0) {
		fprintf(stderr, "text_poke: load: %s\n%s\n", strerror(errno), log);
		exit(2);
	}
	return fd;
}

static atomic_int stop;
static atomic_ulong runs, updates, errs;
static int prog[2], jmp_map, tgt[2];

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

static void *runner(void *arg)
{
	long cpu = (long)arg;
	unsigned char pkt[64] = { 0 };
	union bpf_attr a;

	pin(cpu);
	while (!atomic_load(&stop)) {
		memset(&a, 0, sizeof(a));
		/* tail: both CPUs run the one program; xdp: one each */
		a.test.prog_fd = prog[cpu & 1];
		a.test.data_in = (unsigned long)pkt;
		a.test.data_size_in = sizeof(pkt);
		a.test.repeat = 64;
		if (sys_bpf(BPF_PROG_TEST_RUN, &a))
			atomic_fetch_add(&errs, 1);
		else
			atomic_fetch_add(&runs, 64);
	}
	return NULL;
}

static void *syscaller(void *arg)
{
	(void)arg;
	pin(1);
	while (!atomic_load(&stop)) {
		syscall(__NR_getppid);
		atomic_fetch_add(&runs, 1);
	}
	return NULL;
}

static void *attacher(void *arg)
{
	union bpf_attr a;
	int fd;

	(void)arg;
	pin(0);
	while (!atomic_load(&stop)) {
		memset(&a, 0, sizeof(a));
		a.raw_tracepoint.name = (unsigned long)"sys_exit";
		a.raw_tracepoint.prog_fd = prog[0];
		fd = sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &a);
		if (fd < 0) {
			atomic_fetch_add(&errs, 1);
			continue;
		}
		close(fd);
		atomic_fetch_add(&updates, 1);
	}
	return NULL;
}

static void *updater(void *arg)
{
	unsigned int k = 0, i = 0;
	union bpf_attr a;

	(void)arg;
	while (!atomic_load(&stop)) {
		memset(&a, 0, sizeof(a));
		a.map_fd = jmp_map;
		a.key = (unsigned long)&k;
		if (i % 3 == 2) {
			/* an empty slot: the jump becomes a fall-through */
			sys_bpf(BPF_MAP_DELETE_ELEM, &a);
		} else {
			a.value = (unsigned long)&tgt[i % 3];
			if (sys_bpf(BPF_MAP_UPDATE_ELEM, &a))
				atomic_fetch_add(&errs, 1);
		}
		atomic_fetch_add(&updates, 1);
		i++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int secs = argc > 2 ? atoi(argv[2]) : 20;
	int tail = argc > 1 && !strcmp(argv[1], "tail");
	int tp = argc > 1 && !strcmp(argv[1], "tp");
	pthread_t th[3];
	int n = 2, i;

	if (argc < 2 || (!tail && !tp && strcmp(argv[1], "xdp"))) {
		fprintf(stderr, "usage: text_poke tail|xdp|tp [SECS]\n");
		return 2;
	}
	if (tp) {
		struct bpf_insn r[] = { MOV64_IMM(0, 0), EXIT() };

		prog[0] = load(BPF_PROG_TYPE_RAW_TRACEPOINT, r, 2);
		pthread_create(&th[0], NULL, syscaller, NULL);
		pthread_create(&th[1], NULL, attacher, NULL);
	} else if (tail) {
		union bpf_attr a;

		memset(&a, 0, sizeof(a));
		a.map_type = BPF_MAP_TYPE_PROG_ARRAY;
		a.key_size = 4;
		a.value_size = 4;
		a.max_entries = 1;
		jmp_map = sys_bpf(BPF_MAP_CREATE, &a);
		if (jmp_map < 0) {
			perror("text_poke: prog array");
			return 2;
		}
		for (i = 0; i < 2; i++) {
			struct bpf_insn t[] = { MOV64_IMM(0, 1 + i), EXIT() };

			tgt[i] = load(BPF_PROG_TYPE_SOCKET_FILTER, t, 2);
		}
		/* r2 = map, r3 = 0 (a constant: a direct tail call), r1 = ctx */
		struct bpf_insn m[] = {
			LD_MAP_FD(2, jmp_map), MOV64_IMM(3, 0), CALL(BPF_FUNC_tail_call),
			MOV64_IMM(0, 0), EXIT(),
		};
		prog[0] = prog[1] = load(BPF_PROG_TYPE_SOCKET_FILTER, m, 6);
		n = 3;
	} else {
		for (i = 0; i < 2; i++) {
			struct bpf_insn x[] = { MOV64_IMM(0, XDP_PASS), MOV64_IMM(1, i), EXIT() };

			prog[i] = load(BPF_PROG_TYPE_XDP, x, 3);
		}
	}
	for (i = 0; i < 2 && !tp; i++)
		pthread_create(&th[i], NULL, runner, (void *)(long)i);
	if (n == 3)
		pthread_create(&th[2], NULL, updater, NULL);
	sleep(secs);
	atomic_store(&stop, 1);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	printf("text_poke %s: %lu runs, %lu %s, %lu errors in %d s\n",
	       argv[1], atomic_load(&runs), atomic_load(&updates),
	       tp ? "attaches and detaches" : "prog array updates", atomic_load(&errs), secs);
	return atomic_load(&errs) ? 1 : 0;
}
