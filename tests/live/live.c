// SPDX-License-Identifier: GPL-2.0
/*
 * bjk-live: the museum's live exhibits. Each is a reproducer of a BPF
 * memory-safety bug that Debian's 6.12.118 still has (fixed upstream
 * later), run on the kernel as it is: nothing re-introduced, no museum
 * switch. Out-of-bounds exhibits must be reported the same way with the
 * checks inline, outline and by the KASAN-checked interpreter (the referee,
 * on the museum kernel, which has it), and silently read with checks off;
 * counter-exhibits do damage no KASAN mode can see, and show it.
 *
 *   bjk-live [-k] -m off|inline|outline|interp [EXHIBIT...]
 *
 * -m: the boot's mode, which decides how many KASAN reports each case
 * expects (BJK-EXPECT-BEGIN/END, counted by the harness's splat scan). Per
 * reported case a line "BJK-LIVE <exhibit> prog <name> insn <N>" names the
 * program and the faulting instruction (xlated) that tests/live/check.sh
 * compares with the decoder's reading of the report. Output: KTAP (-k: to
 * /dev/kmsg).
 */
#include <errno.h>
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
#include "bjk-out.h"
#include "bjk-guest.h"

#define INSN(CODE, DST, SRC, OFF, IMM)					\
	((struct bpf_insn) { .code = (CODE), .dst_reg = (DST),		\
	  .src_reg = (SRC), .off = (OFF), .imm = (IMM) })
#define LDX(SIZE, DST, SRC, OFF) INSN(BPF_LDX | (SIZE) | BPF_MEM, DST, SRC, OFF, 0)
#define STX(SIZE, DST, SRC, OFF) INSN(BPF_STX | (SIZE) | BPF_MEM, DST, SRC, OFF, 0)
#define ST(SIZE, DST, OFF, IMM)	INSN(BPF_ST | (SIZE) | BPF_MEM, DST, 0, OFF, IMM)
#define MOV(DST, SRC)		INSN(BPF_ALU64 | BPF_MOV | BPF_X, DST, SRC, 0, 0)
#define MOVI(DST, IMM)		INSN(BPF_ALU64 | BPF_MOV | BPF_K, DST, 0, 0, IMM)
#define ADDI(DST, IMM)		INSN(BPF_ALU64 | BPF_ADD | BPF_K, DST, 0, 0, IMM)
#define JEQI(DST, IMM, OFF)	INSN(BPF_JMP | BPF_JEQ | BPF_K, DST, 0, OFF, IMM)
#define CALL(FUNC)		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, FUNC)
#define EXIT()			INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
#define LD_MAP(DST, FD)		INSN(BPF_LD | BPF_DW | BPF_IMM, DST, BPF_PSEUDO_MAP_FD, 0, FD), \
				INSN(0, 0, 0, 0, 0)

#define JIT_ENABLE	"/proc/sys/net/core/bpf_jit_enable"

static const char *mode;
static char log_buf[1 << 16];

#define result(ok, name, ...) bjk_case(ok, "live.", name, __VA_ARGS__)

/* A reported case expects one report unless the checks are off. */
static int reports_expected(void)
{
	return strcmp(mode, "off") ? 1 : 0;
}

/* The verifier log's first line that says why, for a refused program. */
static const char *why(void)
{
	char *end = log_buf + strlen(log_buf);

	while (end > log_buf && end[-1] == '\n')
		*--end = '\0';
	while (end > log_buf && end[-1] != '\n')
		end--;
	return end;
}

/* The xlated index of the first instruction equal in code, regs and offset to @want. */
static int xlated_index(int fd, struct bpf_insn want)
{
	struct bpf_insn x[256];
	int k, n = bjk_xlated(fd, x, 256);

	for (k = 0; k < n; k++)
		if (x[k].code == want.code && x[k].dst_reg == want.dst_reg &&
		    x[k].src_reg == want.src_reg && x[k].off == want.off)
			return k;
	return -1;
}

/* Read an iterator to its end; the programs run in these reads. */
static int read_iter(int link)
{
	char buf[4096];
	int fd = bpf_iter_create(link), n;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

static int iter_btf_id(const char *func)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int id;

	if (!btf)
		return -1;
	id = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
	btf__free(btf);
	return id;
}

/* A map_elem iterator program (tracing, BPF_TRACE_ITER on bpf_map_elem). */
static int load_iter(const char *name, const struct bpf_insn *insns, int n)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o, .log_buf = log_buf, .log_size = sizeof(log_buf),
		    .log_level = 1, .expected_attach_type = BPF_TRACE_ITER);

	o.attach_btf_id = iter_btf_id("bpf_iter_bpf_map_elem");
	log_buf[0] = '\0';
	return bpf_prog_load(BPF_PROG_TYPE_TRACING, name, "GPL", insns, n, &o);
}

static int attach_map_iter(int prog, int map)
{
	union bpf_iter_link_info li = { .map.map_fd = map };
	LIBBPF_OPTS(bpf_link_create_opts, o, .iter_info = &li, .iter_info_len = sizeof(li));
	int fd = bpf_link_create(prog, 0, BPF_TRACE_ITER, &o);

	return fd < 0 ? -errno : fd;
}

/*
 * itertail, itertailw (upstream 7fa323d77688, "bpf: Assume no bounds for
 * buffers behind a tail call"). A map_elem iterator program may read and
 * write its element's value up to the offsets the verifier recorded in the
 * program (max_rdwr_access), and bpf_iter_attach_map() refuses a map whose
 * values are smaller. A program it tail-calls is never compared with the
 * map: the caller touches nothing, so it attaches to a map of 8-byte
 * values, and its callee accesses value + 56. The values of an array map
 * sit in the map's own allocation, struct bpf_array followed by the
 * values: one element of 8 bytes is a kmalloc object of
 * sizeof(struct bpf_array) + 8 bytes (more with map redzones), and
 * value + 56 lies past its end, in the slab's slack, which KASAN keeps
 * poisoned. itertail reads there; itertailw exchanges a marker with what
 * is there (BPF_XCHG: a write, as KASAN checks atomics, that also hands
 * the old contents to the program), so one hole shows both a Read and a
 * Write report. Nothing lives in that slack, so the write harms nothing
 * when no check stops it.
 */
#define ITERTAIL_OFF	56
#define ITERTAIL_VALUE	8
#define ITERTAIL_MARK	0x6c69766521786368ULL	/* "hcx!evil" */
#define NINSN(a)	(int)(sizeof(a) / sizeof((a)[0]))

struct tail_exhibit {
	const char *name;		/* the exhibit, prefix of its cases */
	const char *callee;		/* the program that does the bad access */
	const char *caller;
	const char *what;		/* "read", "exchanged": for the case's line */
	const struct bpf_insn *bad;	/* r7 = the old contents of r6 + ITERTAIL_OFF, ... */
	int nbad;
	int fault;			/* the index in bad[] of the access itself */
};

static void tail_exhibit(const struct tail_exhibit *ex)
{
	int ctl = bpf_map_create(BPF_MAP_TYPE_ARRAY, "l_ctl", 4, 8, 1, NULL);
	int target = bpf_map_create(BPF_MAP_TYPE_ARRAY, "l_target", 4, ITERTAIL_VALUE, 1, NULL);
	int progs = bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "l_progs", 4, 4, 1, NULL);
	/* the callee: r6 = ctx->value; bad[] leaves in r7 what was there; ctl[0] = r7 */
	const struct bpf_insn head[] = {
		LDX(BPF_DW, BPF_REG_6, BPF_REG_1, 24),	/* ctx->value (NULL at the end) */
		JEQI(BPF_REG_6, 0, ex->nbad + 8),	/* over bad[] and tail[] to its r0 = 0 */
	};
	const struct bpf_insn tail[] = {
		ST(BPF_W, BPF_REG_10, -4, 0),
		MOV(BPF_REG_2, BPF_REG_10),
		ADDI(BPF_REG_2, -4),
		LD_MAP(BPF_REG_1, ctl),
		CALL(BPF_FUNC_map_lookup_elem),
		JEQI(BPF_REG_0, 0, 1),
		STX(BPF_DW, BPF_REG_0, BPF_REG_7, 0),	/* what was there, for the runner */
		MOVI(BPF_REG_0, 0),
		EXIT(),
	};
	struct bpf_insn callee[32];
	/* the caller, attached: touches nothing, tail-calls progs[0] */
	const struct bpf_insn caller[] = {
		LD_MAP(BPF_REG_2, progs),
		MOVI(BPF_REG_3, 0),
		CALL(BPF_FUNC_tail_call),
		MOVI(BPF_REG_0, 0),
		EXIT(),
	};
	int cfd = -1, tfd = -1, link, insn, rc, n = 0, expect = reports_expected();
	char refused[64], oob[64];
	uint64_t got = 0;
	uint32_t zero = 0;

	snprintf(refused, sizeof(refused), "%s.direct_refused", ex->name);
	snprintf(oob, sizeof(oob), "%s.oob", ex->name);
	if (NINSN(head) + ex->nbad + NINSN(tail) > NINSN(callee)) {
		result(false, refused, "the callee does not fit in %d instructions", NINSN(callee));
		result(false, oob, "the callee does not fit");
		goto out;
	}
	memcpy(callee + n, head, sizeof(head));
	n += NINSN(head);
	memcpy(callee + n, ex->bad, ex->nbad * sizeof(*ex->bad));
	n += ex->nbad;
	memcpy(callee + n, tail, sizeof(tail));
	n += NINSN(tail);
	if (ctl < 0 || target < 0 || progs < 0) {
		result(false, refused, "maps: %s", strerror(errno));
		result(false, oob, "maps: %s", strerror(errno));
		goto out;
	}
	cfd = load_iter(ex->callee, callee, n);
	if (cfd < 0) {
		result(false, refused, "the callee did not load: \"%s\"", why());
		result(false, oob, "the callee did not load");
		goto out;
	}
	/* attached itself, the callee is refused: the check that exists */
	link = attach_map_iter(cfd, target);
	if (link >= 0)
		close(link);
	result(link == -EACCES, refused,
	       "the program that %s value + %d attached to a map of %d-byte values: %s "
	       "(want EACCES)", ex->what, ITERTAIL_OFF, ITERTAIL_VALUE,
	       link >= 0 ? "attached" : strerror(-link));

	tfd = load_iter(ex->caller, caller, NINSN(caller));
	if (tfd < 0 || bpf_map_update_elem(progs, &zero, &cfd, 0)) {
		result(false, oob, "the caller did not load or enter the prog array: %s \"%s\"",
		       strerror(errno), why());
		goto out;
	}
	link = attach_map_iter(tfd, target);
	if (link < 0) {
		result(false, oob, "the caller did not attach: %s (fixed kernel?)", strerror(-link));
		goto out;
	}
	insn = xlated_index(cfd, ex->bad[ex->fault]);
	bjk_out("BJK-LIVE %s prog %s insn %d", ex->name, ex->callee, insn);
	bjk_out("BJK-EXPECT-BEGIN live.%s %d", oob, expect);
	rc = read_iter(link);
	bjk_out("BJK-EXPECT-END live.%s", oob);
	if (expect) {
		char region[80];

		snprintf(region, sizeof(region), "live.%s", oob);
		bjk_decode_sync(region);
	}
	bpf_map_lookup_elem(ctl, &zero, &got);
	close(link);
	result(rc == 0 && insn >= 0, oob,
	       "the caller attached to a map of one %d-byte value, its callee %s %#llx at "
	       "value + %d (insn %d), past the map's allocation; %d report(s) expected (%s)%s%s",
	       ITERTAIL_VALUE, ex->what, (unsigned long long)got, ITERTAIL_OFF, insn, expect,
	       mode, rc ? ", read: " : "", rc ? strerror(-rc) : "");
out:
	if (tfd >= 0)
		close(tfd);
	if (cfd >= 0)
		close(cfd);
	close(progs);
	close(target);
	close(ctl);
}

static void itertail(void)
{
	static const struct bpf_insn bad[] = {
		LDX(BPF_DW, BPF_REG_7, BPF_REG_6, ITERTAIL_OFF),	/* the read past the map */
	};
	const struct tail_exhibit ex = {
		.name = "itertail", .callee = "itertail_read", .caller = "itertail_tail",
		.what = "read", .bad = bad, .nbad = NINSN(bad), .fault = 0,
	};

	tail_exhibit(&ex);
}

static void itertailw(void)
{
	static const struct bpf_insn bad[] = {
		INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_7, 0, 0, (uint32_t)ITERTAIL_MARK),
		INSN(0, 0, 0, 0, (uint32_t)(ITERTAIL_MARK >> 32)),
		/* r7 = xchg(value + 56, r7): the write past the map */
		INSN(BPF_STX | BPF_DW | BPF_ATOMIC, BPF_REG_6, BPF_REG_7, ITERTAIL_OFF, BPF_XCHG),
	};
	const struct tail_exhibit ex = {
		.name = "itertailw", .callee = "itertailw_xchg", .caller = "itertailw_tail",
		.what = "exchanged the marker for", .bad = bad, .nbad = NINSN(bad), .fault = 2,
	};

	tail_exhibit(&ex);
}

/*
 * itertimer (counter-exhibit; upstream 8d0358f6e8b3, iterator programs
 * over bpf_timer fields). The verifier checks a map_elem iterator's value
 * (PTR_TO_BUF) against its size only, not against the map's special
 * fields: the program may read and write the struct bpf_timer in the
 * value, which holds the kernel's pointer to the timer's struct
 * bpf_hrtimer. Every byte of it is inside the map's live allocation, so no
 * KASAN mode can see it. The exhibit shows the damage: a socket filter
 * arms the timer (bpf_timer_init), then an iterator program swaps the
 * field with ctl[1]: the first pass reads the kernel's pointer (a heap
 * address, leaked to the program) and writes a marker over it, the second
 * reads the marker back and puts the pointer back, so that freeing the map
 * cancels the real timer and not the marker. No report in any mode.
 */
#define TIMER_MARK	0x6c6976652174696dULL	/* "mit!evil" */

/*
 * The lowest address of the running kernel's half of the address space:
 * 0xff00000000000000 with 5-level paging, 0xffff800000000000 with 4-level.
 * The kernel clears the CPU flag la57 when it does not use 5-level paging
 * (early_identify_cpu()), so /proc/cpuinfo says which it runs with.
 */
static uint64_t kernel_half(void)
{
	char line[4096];
	bool la57 = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return 0xffff800000000000ULL;	/* the larger bound: no false pass */
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5)) {
			la57 = strstr(line, " la57") != NULL;
			break;
		}
	fclose(f);
	return la57 ? 0xff00000000000000ULL : 0xffff800000000000ULL;
}

static void itertimer(void)
{
	struct btf *btf = btf__new_empty();
	int u32_id, u64_id, timer_id, val_id, btf_fd = -1, map = -1, ctl = -1;
	int init = -1, swap = -1, link = -1, rc1 = -1, rc2 = -1;
	uint64_t ctl_val[2] = { 0, TIMER_MARK }, kptr = 0, seen = 0, half = kernel_half();
	const void *raw;
	uint32_t raw_size, zero = 0;
	bool ok;

	/* the value: struct { u64 data; struct bpf_timer t; }, BTF made here */
	u32_id = btf__add_int(btf, "u32", 4, 0);
	u64_id = btf__add_int(btf, "u64", 8, 0);
	timer_id = btf__add_struct(btf, "bpf_timer", 16);
	btf__add_field(btf, "a", u64_id, 0, 0);
	btf__add_field(btf, "b", u64_id, 64, 0);
	val_id = btf__add_struct(btf, "live_timer_val", 24);
	btf__add_field(btf, "data", u64_id, 0, 0);
	btf__add_field(btf, "t", timer_id, 64, 0);
	raw = btf__raw_data(btf, &raw_size);
	btf_fd = raw ? bpf_btf_load(raw, raw_size, NULL) : -1;
	if (btf_fd >= 0) {
		LIBBPF_OPTS(bpf_map_create_opts, mo, .btf_fd = btf_fd,
			    .btf_key_type_id = u32_id, .btf_value_type_id = val_id);

		map = bpf_map_create(BPF_MAP_TYPE_ARRAY, "l_timers", 4, 24, 1, &mo);
	}
	ctl = bpf_map_create(BPF_MAP_TYPE_ARRAY, "l_ctl", 4, 16, 1, NULL);
	if (map < 0 || ctl < 0 || bpf_map_update_elem(ctl, &zero, ctl_val, 0)) {
		result(false, "itertimer.damage", "BTF or maps: %s", strerror(errno));
		goto out;
	}
	{
		/* bpf_timer_init(&map[0].t, map, CLOCK_MONOTONIC), run once */
		const struct bpf_insn prog[] = {
			ST(BPF_W, BPF_REG_10, -4, 0),
			MOV(BPF_REG_2, BPF_REG_10),
			ADDI(BPF_REG_2, -4),
			LD_MAP(BPF_REG_1, map),
			CALL(BPF_FUNC_map_lookup_elem),
			JEQI(BPF_REG_0, 0, 6),
			MOV(BPF_REG_1, BPF_REG_0),
			ADDI(BPF_REG_1, 8),
			LD_MAP(BPF_REG_2, map),
			MOVI(BPF_REG_3, 1),
			CALL(BPF_FUNC_timer_init),
			MOVI(BPF_REG_0, 0),
			EXIT(),
		};
		uint8_t pkt[64] = {};
		LIBBPF_OPTS(bpf_prog_load_opts, o, .log_buf = log_buf, .log_size = sizeof(log_buf),
			    .log_level = 1);
		LIBBPF_OPTS(bpf_test_run_opts, t, .data_in = pkt, .data_size_in = sizeof(pkt),
			    .repeat = 1);

		log_buf[0] = '\0';
		init = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "itertimer_init", "GPL", prog,
				     sizeof(prog) / sizeof(prog[0]), &o);
		if (init < 0 || bpf_prog_test_run_opts(init, &t) || t.retval) {
			result(false, "itertimer.damage", "bpf_timer_init: %s \"%s\"",
			       strerror(errno), why());
			goto out;
		}
	}
	{
		/* swap value->t's first word with ctl[1], the old one to ctl[0] */
		const struct bpf_insn prog[] = {
			LDX(BPF_DW, BPF_REG_6, BPF_REG_1, 24),	/* ctx->value */
			JEQI(BPF_REG_6, 0, 11),
			ST(BPF_W, BPF_REG_10, -4, 0),
			MOV(BPF_REG_2, BPF_REG_10),
			ADDI(BPF_REG_2, -4),
			LD_MAP(BPF_REG_1, ctl),
			CALL(BPF_FUNC_map_lookup_elem),
			JEQI(BPF_REG_0, 0, 4),
			LDX(BPF_DW, BPF_REG_8, BPF_REG_6, 8),	/* the kernel's pointer */
			LDX(BPF_DW, BPF_REG_9, BPF_REG_0, 8),
			STX(BPF_DW, BPF_REG_6, BPF_REG_9, 8),	/* the write over it */
			STX(BPF_DW, BPF_REG_0, BPF_REG_8, 0),
			MOVI(BPF_REG_0, 0),
			EXIT(),
		};

		swap = load_iter("itertimer_swap", prog, sizeof(prog) / sizeof(prog[0]));
		link = swap < 0 ? -1 : attach_map_iter(swap, map);
		if (link < 0) {
			result(false, "itertimer.damage", "the iterator did not load or attach: %s \"%s\"",
			       strerror(errno), why());
			goto out;
		}
	}
	bjk_out("BJK-EXPECT-BEGIN live.itertimer.damage 0");
	rc1 = read_iter(link);
	bpf_map_lookup_elem(ctl, &zero, ctl_val);
	kptr = ctl_val[0];
	ctl_val[1] = kptr;
	bpf_map_update_elem(ctl, &zero, ctl_val, 0);
	rc2 = read_iter(link);
	bpf_map_lookup_elem(ctl, &zero, ctl_val);
	seen = ctl_val[0];
	bjk_out("BJK-EXPECT-END live.itertimer.damage");
	ok = !rc1 && !rc2 && kptr >= half && seen == TIMER_MARK;
	result(ok, "itertimer.damage", "the iterator read the timer's kernel pointer %#llx (kernel "
	       "half from %#llx) out of the map value, wrote %#llx over it and read back %#llx, "
	       "then put the pointer back; inside the live allocation: 0 reports expected in "
	       "every mode (%s)", (unsigned long long)kptr, (unsigned long long)half, TIMER_MARK,
	       (unsigned long long)seen, mode);
out:
	if (link >= 0)
		close(link);
	if (swap >= 0)
		close(swap);
	if (init >= 0)
		close(init);
	if (map >= 0)
		close(map);
	if (ctl >= 0)
		close(ctl);
	if (btf_fd >= 0)
		close(btf_fd);
	btf__free(btf);
}

static const struct exhibit {
	const char *name;
	int cases;
	void (*run)(void);
} exhibits[] = {
	{ "itertail", 2, itertail },
	{ "itertailw", 2, itertailw },
	{ "itertimer", 1, itertimer },
};
#define NEXHIBITS	(int)(sizeof(exhibits) / sizeof(exhibits[0]))

static bool wanted(int argc, char **argv, const char *name)
{
	int k;

	if (optind == argc)
		return true;
	for (k = optind; k < argc; k++)
		if (!strcmp(argv[k], name))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	int i, n = 0;

	mode = bjk_museum_args(argc, argv);
	if (!mode) {
		fprintf(stderr, "usage: %s [-k] -m off|inline|outline|interp [EXHIBIT...]\n", argv[0]);
		return 2;
	}
	for (i = 0; i < NEXHIBITS; i++)
		if (wanted(argc, argv, exhibits[i].name))
			n += exhibits[i].cases;
	bjk_out("KTAP version 1");
	bjk_out("1..%d", n);
	/* the interpreter is the referee only if it runs the programs */
	if (!strcmp(mode, "interp") && bjk_write_file(JIT_ENABLE, "0")) {
		bjk_out("# error: %s: %s (a kernel with BPF_JIT_ALWAYS_ON?)", JIT_ENABLE,
		    strerror(errno));
		return 1;
	}
	for (i = 0; i < NEXHIBITS; i++)
		if (wanted(argc, argv, exhibits[i].name))
			exhibits[i].run();
	return bjk_totals();
}
