// SPDX-License-Identifier: GPL-2.0
/*
 * bjk-fuzz: a coverage-guided, differential fuzzer of the BPF verifier and
 * JIT, run in a guest of the museum's kernel (KCOV on what a load runs).
 *
 *   bjk-fuzz [-s SEED] [-t SECS] [-n PROGS] [-b BITS] [-m off|outline|inline|interp]
 *            [-o OUTDIR] [-i DIR]... [-u | -U PREFIX] [-p SECS] [-q] [-D] [-v] [-K]
 *            [-G PERCENT] [-P PERCENT] [-c FILE]
 *   bjk-fuzz -R PROGFILE > repro.c
 *
 * The loop: generate a program (gen.c) or mutate one of the corpus; fill
 * the maps it names from its seed; load it under KCOV; if the verifier
 * accepted it, run it once (BPF_PROG_TEST_RUN) on its packet; read the
 * kernel's messages; unless -D or -m interp, load it again with the JIT
 * off and run the interpreter on the same maps and packet. Findings:
 *   kasan       a KASAN report in a JITed program (what the series adds);
 *               with -m interp, in the interpreter
 *   splat       any other kernel warning, BUG, Oops, lockdep or RCU report
 *   diff-retval the JIT and the interpreter returned different values
 *   diff-maps   ... or left different map contents
 *   missed      with checks on, the interpreted twin's KASAN saw a bad
 *               access that the JITed program's checks did not report
 * The interpreted twin's own KASAN reports are no other finding outside -m
 * interp: the columns of docs/fuzz.md keep what each kernel alone offers.
 * A program that reached KCOV PCs not seen before goes into the corpus.
 * Each new finding (kind, bug type, access) is minimized, and written with
 * a C reproducer, the console excerpt and the verifier log.
 *
 * The belief probe (probe.c), on -P PERCENT of the accepted programs
 * (default 50): after each instruction that writes a register, the value
 * it held at run time against what the verifier's log says it could hold;
 * a value outside becomes a program whose access leaves a map value by
 * one byte if, and only if, the verifier is wrong. Its findings are the kinds
 * above (a KASAN report, a splat), the finding's info saying where the
 * probe looked ("origin").
 *
 * -b sets the museum's bugs (bpf_museum); -m must be the boot's check mode
 * (bpf_jit_kasan is a boot parameter), or interp: every load with the JIT
 * off. -s the seed; -t, -n the budget in seconds and programs; -o where it
 * writes (docs/fuzz.md); -i corpora to replay first; -u stops at the first
 * finding, -U PREFIX at the first whose key starts with PREFIX; -p the
 * progress interval; -q quiet; -D no interpreted twin; -v samples of why
 * programs are refused, of noisy differences, and where the time goes;
 * -K no KCOV; -G the share of generated programs (the rest mutated; 100:
 * the same programs on every machine); -c FILE keeps the program being
 * loaded there, OUTDIR/current getting it only before it runs. -R writes
 * a program file's C reproducer to stdout and does nothing else. Exit
 * status: 0 when the budget was spent or -u, -U found one; 1 on an error,
 * with its reason.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/kcov.h>
#include "fuzz.h"
#include "gen.h"
#include "probe.h"
#include "bjk-kmsg.h"
#include "bjk-report.h"

#define COVER_WORDS	(256 * 1024)
#define PCSET_BITS	21
#define CORPUS_MAX	4096
#define CONSOLE_MAX	16384

static struct {
	uint64_t seed, max_progs;
	double secs, progress;
	unsigned int bits;
	bool bits_set, stop_first, quiet, no_diff, interp, why, no_kcov;
	int gen_percent, probe_percent;
	const char *mode, *out, *current, *stop_prefix;
	const char *in[16];
	int nin;
} opt = { .secs = 60, .progress = 5, .mode = NULL, .out = "/tmp/fuzz", .gen_percent = 40,
	.probe_percent = 50 };

static struct {
	uint64_t progs, accepted, runs, diffs, noisy, findings, gen, mut;
	uint64_t gen_accepted, mut_accepted;	/* of the loop's programs, by origin */
	double t_fill, t_load, t_cov, t_run, t_twin;	/* -v: where the time goes */
	uint64_t pcs;
	/* the belief probe: probes made, the record refused or its end not
	 * reached; values checked, outside the belief; escalations run, reported */
	uint64_t probes, probe_refused, probe_unreached, checked, broken, planned;
	uint64_t esc_refused, esc_runs, esc_reports;
	double t_probe;
} st;

static int map_fd[FZ_NMAPS];
static int prog_array[3][2];	/* per program type, [0] JIT, [1] interpreter */
static int ncpus = 1;
static uint64_t *cover;
static int kcov_fd = -1;
static uint64_t *pcset;
#define PCBITS_SPAN	(64ull << 20)
static uint64_t *pcbits, text_base;
static struct fz_prog *corpus;
static int ncorpus;
static struct bjk_kmsg kmsg;
/* -c: OUTDIR/current is written before each run only (run_fd), FILE before each load */
static int run_fd = -1;
static const char *run_path;
static double t_start;
static FILE *logf;
static char seen_keys[256][160];
static int nseen;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void say(const char *fmt, ...)
{
	va_list ap;
	char buf[1024];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!opt.quiet)
		printf("bjk-fuzz: %s\n", buf);
	fflush(stdout);
	if (logf) {
		fprintf(logf, "bjk-fuzz: %s\n", buf);
		fflush(logf);
	}
}

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "error: bjk-fuzz: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

static long sys_bpf(int cmd, union bpf_attr *a)
{
	return syscall(__NR_bpf, cmd, a, sizeof(*a));
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

static void jit_enable(bool on)
{
	if (write_file("/proc/sys/net/core/bpf_jit_enable", on ? "1" : "0"))
		die("cannot write /proc/sys/net/core/bpf_jit_enable: %s (a kernel with the interpreter built in, CONFIG_BPF_JIT_ALWAYS_ON off: the museum's)",
		    strerror(errno));
}

/* FNV-1a over @n bytes, on from @h: the hashes of map contents and programs */
static uint64_t fnv(uint64_t h, const void *b, size_t n)
{
	const uint8_t *c = b;

	while (n--)
		h = (h ^ *c++) * 0x100000001b3ull;
	return h;
}
#define FNV_BASIS 0xcbf29ce484222325ull

/* ---- maps ---- */

static int map_create(const struct fz_map *m)
{
	union bpf_attr a = { 0 };

	a.map_type = m->type;
	a.key_size = m->key_size;
	a.value_size = m->value_size;
	a.max_entries = m->max_entries;
	a.map_flags = m->flags;
	return sys_bpf(BPF_MAP_CREATE, &a);
}

static int map_update(int fd, const void *key, const void *val)
{
	union bpf_attr a = { 0 };

	a.map_fd = fd;
	a.key = (uint64_t)(unsigned long)key;
	a.value = (uint64_t)(unsigned long)val;
	return sys_bpf(BPF_MAP_UPDATE_ELEM, &a);
}

static int map_lookup(int fd, const void *key, void *val)
{
	union bpf_attr a = { 0 };

	a.map_fd = fd;
	a.key = (uint64_t)(unsigned long)key;
	a.value = (uint64_t)(unsigned long)val;
	return sys_bpf(BPF_MAP_LOOKUP_ELEM, &a);
}

static void map_delete(int fd, const void *key)
{
	union bpf_attr a = { 0 };

	a.map_fd = fd;
	a.key = (uint64_t)(unsigned long)key;
	sys_bpf(BPF_MAP_DELETE_ELEM, &a);
}

static bool names_map(const struct fz_prog *p, int m)
{
	uint32_t i;

	for (i = 0; i + 1 < p->len; i++)
		if (fz_insn_is_map(&p->insns[i]) && p->insns[i].imm == m)
			return true;
	return false;
}

/* a per-CPU map's value in its buffer: one a CPU, each 8-byte aligned */
static size_t percpu_stride(int m)
{
	return (fz_maps[m].value_size + 7) & ~7ul;
}

/* the value buffer of one element: per-cpu maps take one per CPU */
static size_t value_bytes(int m)
{
	if (fz_maps[m].type == BPF_MAP_TYPE_PERCPU_ARRAY)
		return percpu_stride(m) * ncpus;
	return fz_maps[m].value_size;
}

/* Can a run of @p add keys to a hash map? Only through these helpers. */
static bool adds_keys(const struct fz_prog *p)
{
	uint32_t i;

	for (i = 0; i < p->len; i++)
		if (p->insns[i].code == (BPF_JMP | BPF_CALL) && p->insns[i].src_reg == 0 &&
		    (p->insns[i].imm == BPF_FUNC_map_update_elem ||
		     p->insns[i].imm == BPF_FUNC_map_delete_elem))
			return true;
	return false;
}

/*
 * The keys of map @m a run of @p may leave something under: its elements,
 * and in a hash map the keys up to 64 that the generator's and mutator's
 * updates use, when @p updates or deletes.
 */
static uint32_t keys_touched(const struct fz_prog *p, int m)
{
	if ((fz_maps[m].type == BPF_MAP_TYPE_HASH || fz_maps[m].type == BPF_MAP_TYPE_LRU_HASH) &&
	    adds_keys(p))
		return 64;
	return fz_maps[m].max_entries;
}

/* every value map @p names, as its seed says; keys a run added gone */
static void maps_fill(const struct fz_prog *p)
{
	static uint8_t val[64 * 64];
	uint8_t key[8];
	int m, c;
	uint32_t i;

	for (m = 0; m < FZ_NMAPS; m++) {
		if (!fz_map_has_values(m) || !names_map(p, m))
			continue;
		/*
		 * A full LRU map evicts to make room, how much depends on the
		 * number of CPUs: emptied first, the refill evicts nothing, and
		 * a program finds every key in every guest.
		 */
		if (fz_maps[m].type == BPF_MAP_TYPE_LRU_HASH) {
			for (i = 0; i < keys_touched(p, m); i++) {
				fz_map_key(m, i, key);
				map_delete(map_fd[m], key);
			}
		}
		for (i = 0; i < fz_maps[m].max_entries; i++) {
			fz_map_key(m, i, key);
			if (fz_maps[m].type == BPF_MAP_TYPE_PERCPU_ARRAY) {
				for (c = 0; c < ncpus; c++)
					fz_map_value(p->seed, m, i, val + c * percpu_stride(m));
			} else {
				fz_map_value(p->seed, m, i, val);
			}
			map_update(map_fd[m], key, val);
		}
		/* (an LRU map's were all deleted above) */
		for (i = fz_maps[m].max_entries;
		     fz_maps[m].type != BPF_MAP_TYPE_LRU_HASH && i < keys_touched(p, m); i++) {
			fz_map_key(m, i, key);
			map_delete(map_fd[m], key);
		}
	}
}

/* a hash of the contents of the value maps @p names, for the differential oracle */
static uint64_t maps_hash(const struct fz_prog *p)
{
	static uint8_t val[64 * 64];
	uint64_t h = FNV_BASIS;
	uint8_t key[8];
	int m;
	uint32_t i;

	for (m = 0; m < FZ_NMAPS; m++) {
		/*
		 * Not compared: an LRU map, whose refill may evict what it
		 * just added, and a per-CPU one, whose run wrote the copy of
		 * whichever CPU it ran on.
		 */
		if (!fz_map_has_values(m) || !names_map(p, m) ||
		    fz_maps[m].type == BPF_MAP_TYPE_LRU_HASH ||
		    fz_maps[m].type == BPF_MAP_TYPE_PERCPU_ARRAY)
			continue;
		for (i = 0; i < keys_touched(p, m); i++) {
			uint8_t found;

			fz_map_key(m, i, key);
			memset(val, 0, value_bytes(m));
			found = map_lookup(map_fd[m], key, val) == 0;
			h = fnv(h, &found, 1);
			if (found)
				h = fnv(h, val, value_bytes(m));
		}
	}
	return h;
}

/* ---- programs ---- */

static int type_index(uint32_t type)
{
	return type == BPF_PROG_TYPE_XDP ? 1 : type == BPF_PROG_TYPE_SOCKET_FILTER ? 2 : 0;
}

static bool type_ok(uint32_t type)
{
	return type == BPF_PROG_TYPE_XDP || type == BPF_PROG_TYPE_SOCKET_FILTER ||
	       type == BPF_PROG_TYPE_SCHED_CLS;
}

/*
 * Load @p (map indexes made file descriptors; the prog array of its type
 * and flavour; with subprograms, BTF and func_info); @log/@log_size: the
 * verifier's log at @level. The fd, or -1 with errno.
 */
static int prog_load(const struct fz_prog *p, bool interp, char *log, size_t log_size, int level)
{
	static struct bpf_insn insns[FZ_MAX_INSNS];
	static struct bpf_func_info fi[FZ_BTF_MAX_FUNCS];
	static uint8_t btf[FZ_BTF_SIZE];
	union bpf_attr a = { 0 };
	int fd, btf_fd = -1, n;
	uint32_t i, nfi;

	memcpy(insns, p->insns, p->len * sizeof(insns[0]));
	for (i = 0; i + 1 < p->len; i++) {
		if (!fz_insn_is_map(&insns[i]))
			continue;
		if (insns[i].imm < 0 || insns[i].imm >= FZ_NMAPS) {
			errno = EINVAL;
			return -1;
		}
		if (insns[i].imm == FZ_PROG_ARRAY)
			insns[i].imm = prog_array[type_index(p->type)][interp];
		else
			insns[i].imm = map_fd[insns[i].imm];
		i++;
	}
	/* built and loaded each time: the blob is small, and nothing to keep */
	n = fz_btf_build(p, btf, sizeof(btf), fi, &nfi);
	if (n < 0)
		return -1;
	if (n > 0) {
		union bpf_attr b = { 0 };

		b.btf = (uint64_t)(unsigned long)btf;
		b.btf_size = n;
		btf_fd = sys_bpf(BPF_BTF_LOAD, &b);
		if (btf_fd < 0)
			return -1;
		a.prog_btf_fd = btf_fd;
		a.func_info = (uint64_t)(unsigned long)fi;
		a.func_info_cnt = nfi;
		a.func_info_rec_size = sizeof(fi[0]);
	}
	a.prog_type = p->type;
	a.insns = (uint64_t)(unsigned long)insns;
	a.insn_cnt = p->len;
	a.license = (uint64_t)(unsigned long)"GPL";
	strcpy(a.prog_name, "fz");
	if (log) {
		log[0] = 0;
		a.log_buf = (uint64_t)(unsigned long)log;
		a.log_size = log_size;
		a.log_level = level;
	}
	if (interp)
		jit_enable(false);
	fd = sys_bpf(BPF_PROG_LOAD, &a);
	if (interp || btf_fd >= 0) {
		int e = errno;

		if (interp)
			jit_enable(true);
		/* the program holds its own reference to the BTF */
		if (btf_fd >= 0)
			close(btf_fd);
		errno = e;
	}
	return fd;
}

static int prog_run(int fd, const struct fz_prog *p, uint32_t *retval)
{
	union bpf_attr a = { 0 };
	static uint8_t out[FZ_MAX_DATA + 512];
	int r;

	a.test.prog_fd = fd;
	a.test.data_in = (uint64_t)(unsigned long)p->data;
	a.test.data_size_in = p->data_len;
	a.test.data_out = (uint64_t)(unsigned long)out;
	a.test.data_size_out = sizeof(out);
	a.test.repeat = 1;
	r = sys_bpf(BPF_PROG_TEST_RUN, &a);
	*retval = a.test.retval;
	return r;
}

/* ---- coverage ---- */

static void kcov_open(void)
{
	kcov_fd = open("/sys/kernel/debug/kcov", O_RDWR);
	if (kcov_fd < 0)
		die("/sys/kernel/debug/kcov: %s: this kernel has no KCOV; the fuzz kernel is the museum's (BJK_VARIANT=museum, tests/museum/museum.config)",
		    strerror(errno));
	if (ioctl(kcov_fd, KCOV_INIT_TRACE, COVER_WORDS))
		die("KCOV_INIT_TRACE: %s", strerror(errno));
	cover = mmap(NULL, COVER_WORDS * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED,
		     kcov_fd, 0);
	if (cover == MAP_FAILED)
		die("mmap of kcov: %s", strerror(errno));
	pcset = calloc(1ul << PCSET_BITS, sizeof(uint64_t));
	pcbits = calloc(PCBITS_SPAN / 64, sizeof(uint64_t));
	if (!pcset || !pcbits)
		die("out of memory");
}

static void kcov_start(void)
{
	if (ioctl(kcov_fd, KCOV_ENABLE, KCOV_TRACE_PC))
		die("KCOV_ENABLE: %s", strerror(errno));
	__atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
}

/* stop; the number of PCs never seen before, now added */
static int kcov_stop(void)
{
	uint64_t n = __atomic_load_n(&cover[0], __ATOMIC_RELAXED), i;
	int fresh = 0;

	if (ioctl(kcov_fd, KCOV_DISABLE, 0))
		die("KCOV_DISABLE: %s", strerror(errno));
	if (n > COVER_WORDS - 1)
		n = COVER_WORDS - 1;
	for (i = 1; i <= n; i++) {
		uint64_t pc = cover[i], h, d = pc - text_base, bit;

		/*
		 * A bit per byte of the text the first PC lies in (64 MiB,
		 * KCOV's PCs are call sites in a few files of it): a test and
		 * a set per entry, where a hash set costs a multiply and a
		 * probe; tens of thousands of entries per load, in a guest
		 * whose every instruction is emulated.
		 */
		if (!text_base)
			text_base = pc & ~(uint64_t)(PCBITS_SPAN - 1);
		d = pc - text_base;
		if (d < PCBITS_SPAN) {
			bit = 1ull << (d & 63);
			if (pcbits[d >> 6] & bit)
				continue;
			pcbits[d >> 6] |= bit;
			fresh++;
			st.pcs++;
			continue;
		}
		h = (pc * 0x9e3779b97f4a7c15ull) >> (64 - PCSET_BITS);
		while (pcset[h] && pcset[h] != pc)
			h = (h + 1) & ((1ul << PCSET_BITS) - 1);
		if (!pcset[h]) {
			pcset[h] = pc;
			fresh++;
			st.pcs++;
		}
	}
	return fresh;
}

/*
 * OUTDIR/current, rewritten in place before each load: one write, no
 * rename or fsync (on the VM's shared directory each is a round trip to
 * the host, and the host reads the file only after the guest died). A
 * reader may see the old program's tail after the new one's end: the file
 * is read up to its "end" line.
 */
static void current_write(int fd, const struct fz_prog *p, const char *path)
{
	static char buf[FZ_MAX_INSNS * 48 + FZ_MAX_DATA * 2 + 256];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	long len;

	if (!f)
		die("fmemopen: %s", strerror(errno));
	fz_prog_print(f, p);
	fputs("end\n", f);
	len = ftell(f);
	fclose(f);
	if (len <= 0 || pwrite(fd, buf, len, 0) != len || ftruncate(fd, len))
		die("writing %s: %s (disk full?)", path, strerror(errno));
}

/* ---- oracles ---- */

struct verdict {
	char key[160];		/* empty: nothing found */
	char title[1024];
	int reports;		/* KASAN reports of the run (not the twin's) */
	int twin_reports;	/* the interpreted twin's, in ___bpf_prog_run */
	char twin_title[256];	/* the first of those */
	char twin_key[96];
	int load_err;		/* the load's errno (0: the verifier took it) */
	int run_err;		/* BPF_PROG_TEST_RUN's errno */
	uint32_t retval;	/* the JITed run's R0 */
};

/* a splat's first line: what the kernel prints when something is wrong */
static bool splat_line(const char *m)
{
	static const char *const pfx[] = {
		"WARNING:", "BUG:", "Oops", "general protection", "Kernel panic", "INFO: ",
		"UBSAN:", "kernel BUG", "Unable to handle", "RCU", "watchdog: BUG",
	};
	size_t i;

	if (!strncmp(m, "RCU", 3))
		return strstr(m, "stall") != NULL;
	for (i = 0; i < sizeof(pfx) / sizeof(pfx[0]); i++)
		if (!strncmp(m, pfx[i], strlen(pfx[i])))
			return true;
	return false;
}

static char console[CONSOLE_MAX];
static size_t console_len;

/*
 * The kernel's messages since the last call: into console[] (the finding's
 * excerpt), and into @v the first report or splat when @count. @twin: the
 * interpreted twin's run, whose KASAN reports are not findings (its C is
 * checked by the compiler's KASAN: a finding of -m interp's column).
 */
static void read_kmsg(struct verdict *v, bool count, bool twin)
{
	struct bjk_report r = { 0 };
	char *m;

	while ((m = bjk_kmsg_next(&kmsg))) {
		size_t l = strlen(m);
		enum bjk_report_line t = bjk_report_parse(m, &r);

		if (console_len + l + 2 < sizeof(console)) {
			memcpy(console + console_len, m, l);
			console_len += l;
			console[console_len++] = '\n';
			console[console_len] = 0;
		}
		if (!count)
			continue;
		if (t == BJK_REPORT_ACCESS && twin && !strncmp(r.sym, "___bpf_prog_run", 15)) {
			if (!v->twin_reports++) {
				snprintf(v->twin_title, sizeof(v->twin_title),
					 "%s of size %d (%s), seen by the interpreter's KASAN only",
					 r.write ? "Write" : "Read", r.size, r.bug);
				snprintf(v->twin_key, sizeof(v->twin_key), "%.63s-%c%d", r.bug,
					 r.write ? 'W' : 'R', r.size);
			}
		} else if (t == BJK_REPORT_ACCESS && !twin) {
			bool jit = bjk_report_in_bpf(&r);
			/* the program's own access: JITed, or the interpreter's with -m interp */
			bool prog = jit || (opt.interp && !strncmp(r.sym, "___bpf_prog_run", 15));

			v->reports++;
			if (!v->key[0] && prog)
				snprintf(v->key, sizeof(v->key), "kasan-%s-%c%d", r.bug,
					 r.write ? 'W' : 'R', r.size);
			else if (!v->key[0])	/* in the kernel's C code: the verifier, a helper */
				snprintf(v->key, sizeof(v->key), "kasan-%s-%c%d-in-%.40s", r.bug,
					 r.write ? 'W' : 'R', r.size, r.sym[0] ? r.sym : "unknown");
			if (!v->title[0]) {
				snprintf(v->title, sizeof(v->title), "BUG: KASAN: %s in %s, %s of size %d",
					 r.bug, r.sym[0] ? r.sym : "?", r.write ? "Write" : "Read", r.size);
			}
		} else if (t == BJK_REPORT_NONE && splat_line(m) && !v->key[0]) {
			char k[64], *c;

			snprintf(k, sizeof(k), "%s", m);
			for (c = k; *c; c++)
				if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')))
					*c = '-';
			snprintf(v->key, sizeof(v->key), "splat-%.40s", k);
			snprintf(v->title, sizeof(v->title), "%s", m);
		}
	}
}

/*
 * -v: why the verifier refuses programs, a sample of them: the last line of
 * the log, digits dropped, counted; the commonest printed at the end. For
 * whoever tunes the generator's accept ratio.
 */
static struct {
	char msg[120];
	int n;
} why[64];

static void why_refused(const struct fz_prog *p)
{
	static char log[8192];
	char *l, *e, m[120], *o;
	int fd, i;

	fd = prog_load(p, opt.interp, log, sizeof(log), 1);
	if (fd >= 0) {
		close(fd);
		return;
	}
	e = log + strlen(log);
	while (e > log && e[-1] == '\n')
		*--e = 0;
	l = strrchr(log, '\n');
	l = l ? l + 1 : log;
	if (!strncmp(l, "processed ", 10) && l > log) {	/* the line before the totals */
		*--l = 0;
		l = strrchr(log, '\n');
		l = l ? l + 1 : log;
	}
	for (o = m; *l && o < m + sizeof(m) - 1; l++)
		if (!(*l >= '0' && *l <= '9'))
			*o++ = *l;
	*o = 0;
	for (i = 0; i < 64 && why[i].n; i++)
		if (!strcmp(why[i].msg, m))
			break;
	if (i == 64)
		return;
	if (!why[i].n)
		strcpy(why[i].msg, m);
	/* the first two of each reason kept, for whoever reads them */
	if (why[i].n++ < 2) {
		char path[4096];
		FILE *f;

		snprintf(path, sizeof(path), "%s/refused", opt.out);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/refused/%02d-%d.prog", opt.out, i, why[i].n);
		fz_prog_save(path, p);
		snprintf(path, sizeof(path), "%s/refused/%02d-%d.log", opt.out, i, why[i].n);
		f = fopen(path, "w");
		if (f) {
			fputs(log, f);
			fclose(f);
		}
	}
}

static void why_print(void)
{
	int i, j, best;

	for (j = 0; j < 12; j++) {
		best = -1;
		for (i = 0; i < 64 && why[i].n; i++)
			if (why[i].n > 0 && (best < 0 || why[i].n > why[best].n))
				best = i;
		if (best < 0)
			break;
		say("refused (sample): %5d %s", why[best].n, why[best].msg);
		why[best].n = -why[best].n;
	}
}

/*
 * Where the flow goes after insn @i of @p, for the passes below: *next
 * (the instruction after it, past an ld_imm64's second half; -1 after an
 * exit or a jump that always goes) and *jump (a branch's target, -1 for
 * none). A call falls through; its callee is a start of its own.
 */
static void flow_succ(const struct fz_prog *p, uint32_t i, int *next, int *jump)
{
	const struct bpf_insn *x = &p->insns[i];
	uint8_t cls = BPF_CLASS(x->code), op = BPF_OP(x->code);

	*next = i + (fz_insn_is_ld64(x) ? 2 : 1);
	*jump = -1;
	if (cls != BPF_JMP && cls != BPF_JMP32)
		return;
	if (op == BPF_EXIT) {
		*next = -1;
	} else if (op != BPF_CALL) {
		*jump = i + 1 + fz_insn_jump_off(x);
		if (op == BPF_JA)
			*next = -1;
	}
}

/* the subprogram or callback insn @i of @p names, -1 for none or outside @p */
static int subprog_at(const struct fz_prog *p, uint32_t i)
{
	int t = (int)i + 1 + p->insns[i].imm;

	return fz_insn_names_subprog(&p->insns[i]) && t >= 0 && t < (int)p->len ? t : -1;
}

/*
 * Does a pointer's value reach what the two runs are compared on? A
 * pointer is a number that differs between them: the JIT's stack and the
 * interpreter's, a hash or LRU map's element, which each refill moves, a
 * ring buffer record. A forward pass over the program's flow, to a fixed
 * point: a register holds a pointer when it is r10, the context, a map,
 * a callback, a pointer a helper returned (a lookup, a reservation), or
 * one of those moved or moved by arithmetic, or filled from the stack
 * after a pointer was spilled there. The value leaks when a pointer is
 * stored anywhere but the stack, passed to a subprogram, or in r0 at an
 * exit. Helpers read through the pointers they are given, they do not
 * keep them.
 */
static bool pointer_leaks(const struct fz_prog *p)
{
	static uint16_t in[FZ_MAX_INSNS];
	uint32_t i, n = p->len;
	bool changed = true, spilled = false;

	memset(in, 0, n * sizeof(in[0]));
	in[0] = 1u << BPF_REG_10 | 1u << BPF_REG_1;
	for (i = 0; i + 1 < n; i++) {	/* subprograms and callbacks start with r10 too */
		int t = subprog_at(p, i);

		if (t >= 0)
			in[t] |= 1u << BPF_REG_10 |
				 (p->insns[i].src_reg == BPF_PSEUDO_FUNC ? 1u << 2 : 0);
	}
	while (changed) {
		changed = false;
		for (i = 0; i < n; i++) {
			const struct bpf_insn *x = &p->insns[i];
			uint8_t cls = BPF_CLASS(x->code), op = BPF_OP(x->code);
			uint16_t st = in[i] | 1u << BPF_REG_10, src = 0;
			int next, jump;

			flow_succ(p, i, &next, &jump);
			if (x->src_reg <= 10)
				src = st >> x->src_reg & 1;
			switch (cls) {
			case BPF_ALU:
			case BPF_ALU64:
				if (op == BPF_MOV)
					st &= ~(1u << x->dst_reg);
				if (BPF_SRC(x->code) == BPF_X && src)
					st |= 1u << x->dst_reg;
				break;
			case BPF_LDX:
				st &= ~(1u << x->dst_reg);
				if (x->src_reg == BPF_REG_10 && spilled)
					st |= 1u << x->dst_reg;
				break;
			case BPF_LD:
				st &= ~(1u << x->dst_reg);
				if (fz_insn_is_ld64(x) && x->src_reg)	/* a map, a value, a function */
					st |= 1u << x->dst_reg;
				break;
			case BPF_STX:
				if (src && x->dst_reg != BPF_REG_10)
					return true;
				if (src && !spilled) {
					spilled = true;
					changed = true;
				}
				break;
			case BPF_JMP:
			case BPF_JMP32:
				if (op == BPF_EXIT && (st & 1)) {
					return true;
				} else if (op == BPF_CALL) {
					if (x->src_reg == BPF_PSEUDO_CALL && (st & 0x3e))
						return true;
					st &= ~0x3fu;		/* r0-r5: the call's */
					if (x->src_reg == 0 && (x->imm == BPF_FUNC_map_lookup_elem ||
								x->imm == BPF_FUNC_ringbuf_reserve))
						st |= 1;
				}
				break;
			}
			if (next >= 0 && next < (int)n && (in[next] | st) != in[next]) {
				in[next] |= st;
				changed = true;
			}
			if (jump >= 0 && jump < (int)n && (in[jump] | st) != in[jump]) {
				in[jump] |= st;
				changed = true;
			}
		}
	}
	return false;
}

/*
 * May @p read stack bytes it never wrote? Privileged programs may, and get
 * what the kernel left there, which differs between the JIT's stack and
 * the interpreter's. A forward pass to a fixed point over which bytes of
 * the frame (512, a bit each) every path has written, through r10 at fixed
 * offsets; where paths join, what all of them wrote. A read through r10
 * of a byte not written, or through another pointer into the frame (an
 * offset not known here) unless the 96 bytes below fp that the generator
 * zeroes are written, or a helper given a frame pointer before those are:
 * true. Each subprogram's frame starts unwritten.
 */
#define FRAME_WORDS 8
#define FOFF_UNKNOWN 1
static bool written(const uint64_t *w, int from, int to)
{
	int b;

	for (b = from; b < to; b++)
		if (b < 0 || b >= 512 || !(w[b / 64] >> (b % 64) & 1))
			return false;
	return true;
}

static bool stack_uninit_read(const struct fz_prog *p)
{
	static uint64_t init[FZ_MAX_INSNS][FRAME_WORDS];
	static uint16_t taint[FZ_MAX_INSNS];
	/* r0-r5's offset from fp where known (a frame pointer moved by
	 * constants), FOFF_UNKNOWN elsewhere: what a helper is given */
	static int16_t foff[FZ_MAX_INSNS][6];
	static bool seen[FZ_MAX_INSNS];
	uint32_t i, n = p->len;
	bool changed = true;
	int k;

	memset(seen, 0, n * sizeof(seen[0]));
	memset(taint, 0, n * sizeof(taint[0]));
	for (i = 0; i < n; i++)
		for (k = 0; k < 6; k++)
			foff[i][k] = FOFF_UNKNOWN;
	seen[0] = true;
	memset(init[0], 0, sizeof(init[0]));
	for (i = 0; i + 1 < n; i++) {
		int t = subprog_at(p, i);

		if (t >= 0) {
			seen[t] = true;
			memset(init[t], 0, sizeof(init[t]));
		}
	}
	while (changed) {
		changed = false;
		for (i = 0; i < n; i++) {
			const struct bpf_insn *x = &p->insns[i];
			uint8_t cls = BPF_CLASS(x->code), op = BPF_OP(x->code);
			uint64_t w[FRAME_WORDS];
			uint16_t tr = taint[i] | 1u << BPF_REG_10;
			int16_t fo[6];
			int succ[2], sz = 0, b;

			if (!seen[i])
				continue;
			flow_succ(p, i, &succ[0], &succ[1]);
			memcpy(w, init[i], sizeof(w));
			memcpy(fo, foff[i], sizeof(fo));
			/* the offsets this instruction makes */
			if (x->dst_reg < 6 && (cls == BPF_ALU64 || cls == BPF_ALU || cls == BPF_LDX ||
					       cls == BPF_LD)) {
				int16_t o = FOFF_UNKNOWN;

				if (x->code == (BPF_ALU64 | BPF_MOV | BPF_X) && x->src_reg == BPF_REG_10)
					o = 0;
				else if (x->code == (BPF_ALU64 | BPF_MOV | BPF_X) && x->src_reg < 6)
					o = fo[x->src_reg];
				else if (x->code == (BPF_ALU64 | BPF_ADD | BPF_K) &&
					 fo[x->dst_reg] != FOFF_UNKNOWN && x->imm >= -512 && x->imm <= 0 &&
					 fo[x->dst_reg] + x->imm >= -512)
					o = fo[x->dst_reg] + x->imm;
				fo[x->dst_reg] = o;
			}
			if (cls == BPF_LDX || cls == BPF_STX || cls == BPF_ST)
				sz = (int[]){ 4, 2, 1, 8 }[BPF_SIZE(x->code) >> 3];	/* W H B DW */
			switch (cls) {
			case BPF_ALU:
			case BPF_ALU64:
				if (op == BPF_MOV)
					tr &= ~(1u << x->dst_reg);
				if (BPF_SRC(x->code) == BPF_X && x->src_reg <= 10 && (tr >> x->src_reg & 1))
					tr |= 1u << x->dst_reg;
				break;
			case BPF_LD:
				tr &= ~(1u << x->dst_reg);
				break;
			case BPF_LDX:
			case BPF_STX:
			case BPF_ST: {
				int base = cls == BPF_LDX ? x->src_reg : x->dst_reg;
				bool reads = cls == BPF_LDX || (cls == BPF_STX && BPF_MODE(x->code) == BPF_ATOMIC);

				if (base == BPF_REG_10) {
					int lo = 512 + x->off;

					for (b = lo; b < lo + sz; b++) {
						if (b < 0 || b >= 512)
							return true;	/* the verifier refuses it anyway */
						if (reads && !(w[b / 64] >> (b % 64) & 1))
							return true;
						w[b / 64] |= 1ull << (b % 64);
					}
				} else if (base <= 10 && (tr >> base & 1) && reads &&
					   !written(w, 512 - 96, 512)) {
					return true;
				}
				if (cls == BPF_LDX)
					tr &= ~(1u << x->dst_reg);
				break;
			}
			case BPF_JMP:
			case BPF_JMP32:
				if (op == BPF_CALL) {
					/*
					 * A frame pointer to a helper: the 8 bytes at a
					 * known offset (a key), the 96 below fp at an
					 * unknown one (a value, which the generator keeps
					 * there) must be written.
					 */
					for (k = 1; k <= 5; k++) {
						if (!(tr >> k & 1))
							continue;
						if (fo[k] != FOFF_UNKNOWN ? !written(w, 512 + fo[k], 512 + fo[k] + 8)
									  : !written(w, 512 - 96, 512))
							return true;
					}
					tr &= ~0x3fu;
					for (k = 0; k < 6; k++)
						fo[k] = FOFF_UNKNOWN;
				}
				break;
			}
			for (k = 0; k < 2; k++) {
				int t = succ[k], j;
				bool diff = false;

				if (t < 0 || t >= (int)n)
					continue;
				if (!seen[t]) {
					seen[t] = true;
					memcpy(init[t], w, sizeof(w));
					memcpy(foff[t], fo, sizeof(fo));
					taint[t] = tr;
					changed = true;
					continue;
				}
				for (j = 0; j < 6; j++) {
					if (foff[t][j] != fo[j] && foff[t][j] != FOFF_UNKNOWN) {
						foff[t][j] = FOFF_UNKNOWN;
						diff = true;
					}
				}
				for (j = 0; j < FRAME_WORDS; j++) {
					if ((init[t][j] & w[j]) != init[t][j]) {
						init[t][j] &= w[j];
						diff = true;
					}
				}
				if ((taint[t] | tr) != taint[t]) {
					taint[t] |= tr;
					diff = true;
				}
				changed |= diff;
			}
		}
	}
	return false;
}

/*
 * Can the interpreter's run be compared with the JIT's? Not when the
 * program calls a helper whose result differs from call to call (time,
 * random numbers, the CPU), nor when a pointer's value leaks into what is
 * compared, nor when it may read stack it never wrote.
 */
static bool comparable(const struct fz_prog *p)
{
	static const int32_t same[] = {
		BPF_FUNC_map_lookup_elem, BPF_FUNC_map_update_elem, BPF_FUNC_map_delete_elem,
		BPF_FUNC_tail_call, BPF_FUNC_loop,
		/* not ringbuf_reserve: a record holds what an earlier one left */
		BPF_FUNC_ringbuf_discard, BPF_FUNC_ringbuf_submit, BPF_FUNC_skb_load_bytes,
		BPF_FUNC_map_push_elem, BPF_FUNC_map_pop_elem, BPF_FUNC_map_peek_elem,
	};
	uint32_t i;
	size_t k;

	for (i = 0; i < p->len; i++) {
		const struct bpf_insn *in = &p->insns[i];

		if (in->code == (BPF_JMP | BPF_CALL) && in->src_reg == 0) {
			for (k = 0; k < sizeof(same) / sizeof(same[0]); k++)
				if (in->imm == same[k])
					break;
			if (k == sizeof(same) / sizeof(same[0]))
				return false;
		}
	}
	return !pointer_leaks(p) && !stack_uninit_read(p);
}

/* one load and run of @p, for the differential oracle's confirmation */
static bool run_once(const struct fz_prog *p, bool interp, uint32_t *ret, uint64_t *h)
{
	int fd;

	maps_fill(p);
	fd = prog_load(p, interp, NULL, 0, 0);
	if (fd < 0)
		return false;
	*ret = 0;
	prog_run(fd, p, ret);
	close(fd);
	*h = maps_hash(p);
	return true;
}

/*
 * Run @p through every oracle: the JITed load and run, the interpreter's
 * twin. @kcov: its load under coverage (the number of new PCs in *fresh).
 * 1 when the verifier accepted it.
 */
static int execute(const struct fz_prog *p, struct verdict *v, bool kcov, int *fresh)
{
	uint32_t ret_jit = 0, ret_int = 0;
	uint64_t h_jit = 0, h_int = 0;
	double t0, t1;
	int fd;

	memset(v, 0, sizeof(*v));
	console_len = 0;
	read_kmsg(v, false, false);	/* what came before is not this program's */
	console_len = 0;
	if (fresh)
		*fresh = 0;
	t0 = now();
	maps_fill(p);
	t1 = now();
	st.t_fill += t1 - t0;
	if (kcov && !opt.no_kcov)
		kcov_start();
	fd = prog_load(p, opt.interp, NULL, 0, 0);
	t0 = now();
	st.t_load += t0 - t1;
	if (kcov && !opt.no_kcov)
		*fresh = kcov_stop();
	t1 = now();
	st.t_cov += t1 - t0;
	st.progs++;
	if (fd < 0) {
		v->load_err = errno;
		read_kmsg(v, true, false);
		if (opt.why && kcov && st.progs % 16 == 0)
			why_refused(p);
		return 0;
	}
	st.accepted++;
	if (run_fd >= 0)
		current_write(run_fd, p, run_path);
	if (prog_run(fd, p, &ret_jit) == 0)
		st.runs++;
	else
		v->run_err = errno;
	v->retval = ret_jit;
	close(fd);
	read_kmsg(v, true, false);
	t0 = now();
	st.t_run += t0 - t1;
	if (v->key[0] || opt.interp || opt.no_diff || !comparable(p))
		return 1;
	h_jit = maps_hash(p);
	if (!run_once(p, true, &ret_int, &h_int))
		return 1;	/* the interpreter refuses what the JIT took: hardening, sizes */
	read_kmsg(v, true, true);
	st.t_twin += now() - t0;
	st.diffs++;
	/*
	 * The checks' own oracle: the interpreter's compiled KASAN saw an
	 * access of the program go wrong, the JITed program's checks did not.
	 * (With checks off, that is what the column measures, not a finding.)
	 */
	if (!v->key[0] && v->twin_reports && !v->reports && strcmp(opt.mode, "off")) {
		snprintf(v->key, sizeof(v->key), "missed-%s", v->twin_key);
		snprintf(v->title, sizeof(v->title), "checks %s missed: %s", opt.mode, v->twin_title);
		return 1;
	}
	if (!v->key[0] && (ret_jit != ret_int || h_jit != h_int)) {
		uint32_t r1, r2;
		uint64_t g1, g2;

		/* each side again: a difference that is not the same twice is noise */
		if (!run_once(p, false, &r1, &g1) || !run_once(p, true, &r2, &g2) ||
		    r1 != ret_jit || g1 != h_jit || r2 != ret_int || g2 != h_int) {
			/* the first few kept with -v, for whoever hunts the noise */
			if (opt.why && st.noisy < 8) {
				char path[4096];

				snprintf(path, sizeof(path), "%s/noisy", opt.out);
				mkdir(path, 0755);
				snprintf(path, sizeof(path), "%s/noisy/%llu-%x-%x-%x-%x.prog", opt.out,
					 (unsigned long long)st.noisy, ret_jit, r1, ret_int, r2);
				fz_prog_save(path, p);
			}
			st.noisy++;
			return 1;
		}
	}
	if (!v->key[0] && ret_jit != ret_int) {
		strcpy(v->key, "diff-retval");
		snprintf(v->title, sizeof(v->title), "JIT returned %#x, the interpreter %#x",
			 ret_jit, ret_int);
	} else if (!v->key[0] && h_jit != h_int) {
		strcpy(v->key, "diff-maps");
		snprintf(v->title, sizeof(v->title), "the JIT and the interpreter left different map contents (retval %#x)",
			 ret_jit);
	}
	return 1;
}

/* ---- the belief probe (probe.c) ---- */

static char probe_log[1 << 21];
static char probe_note[512];	/* a finding's origin, for its info file */
/*
 * The escalation's tail, which minimizing must keep: without its shift or
 * its bound the read goes wherever the wrong value points, gigabytes off,
 * and takes the guest down instead of being reported.
 */
static uint32_t keep_from, keep_to;

/* -v: a few of the probe's programs, their values and logs, for whoever checks the parse */
static void probe_sample(const char *what, const struct fz_slot *slot, int nslot,
			 const uint8_t *val, const struct fz_prog *p)
{
	char name[4096];
	FILE *f;
	int k;

	snprintf(name, sizeof(name), "%s/probes", opt.out);
	mkdir(name, 0755);
	snprintf(name, sizeof(name), "%s/probes/%s-%llu.txt", opt.out, what,
		 (unsigned long long)st.probes);
	f = fopen(name, "w");
	if (!f)
		return;
	fprintf(f, "%s\n", what);
	for (k = 0; val && k < nslot; k++)
		fprintf(f, "slot %d: r%d after insn %u (store %u) = %#llx\n", k, slot[k].reg,
			slot[k].insn, slot[k].store, (unsigned long long)*(uint64_t *)(val + 8 * k));
	fz_prog_print(f, p);
	fputs(probe_log, f);
	fclose(f);
}

/*
 * The belief probe of @p, a program the verifier took and that ran with no
 * finding: the record program (fz_embed()) loaded with the verifier's log
 * and run on @p's maps and packet; for slots whose value is one the log
 * says its register could not hold there, the escalation (@p cut after
 * that instruction), up to three. True when either gave a finding: @v says which,
 * @found is the program. The probe's loads are not the loop's: counted on
 * their own.
 */
static bool probe(const struct fz_prog *p, struct verdict *v, struct fz_prog *found,
		  int cur_fd, const char *path)
{
	static struct fz_slot slot[FZ_PROBE_SLOTS];
	static struct fz_prog esc;
	struct bpf_insn tail[FZ_PROBE_TAIL_MAX];
	uint64_t progs = st.progs, accepted = st.accepted, runs = st.runs, diffs = st.diffs;
	double t[] = { st.t_fill, st.t_load, st.t_cov, st.t_run, st.t_twin };
	uint8_t key[4] = { 0 }, val[8 * (FZ_PROBE_SLOTS + 1)];
	uint32_t n, ret;
	struct fz_belief b;
	struct fz_plan pl;
	double t0 = now();
	uint64_t got = 0;
	bool hit = false;
	int fd, k, nslot, tries;

	/* (probe_note and keep_*: empty here, cleared after each finding) */
	nslot = fz_embed(p, found, slot);
	if (!nslot)
		return false;
	st.probes++;
	memset(v, 0, sizeof(*v));
	read_kmsg(v, false, false);
	console_len = 0;
	maps_fill(found);
	fd = prog_load(found, opt.interp, probe_log, sizeof(probe_log), 2);
	if (fd < 0) {
		st.probe_refused++;
		if (opt.why && st.probe_refused <= 4)
			probe_sample("refused", NULL, 0, NULL, found);
		read_kmsg(v, true, false);	/* a splat of the verifier's is a finding */
		hit = v->key[0] != 0;
		goto out;
	}
	current_write(cur_fd, found, path);
	prog_run(fd, found, &ret);
	close(fd);
	read_kmsg(v, true, false);
	if (v->key[0]) {	/* the record's own run: the same accesses as @p's, so rare */
		hit = true;
		goto out;
	}
	if (map_lookup(map_fd[FZ_PROBE], key, val) ||
	    memcmp(val + FZ_PROBE_DONE_OFF, &(uint64_t){ FZ_PROBE_MARK }, 8)) {
		st.probe_unreached++;	/* a tail call, which never comes back */
		goto out;
	}
	if (opt.why && st.probes - st.probe_refused - st.probe_unreached <= 4)
		probe_sample("record", slot, nslot, val, found);
	/*
	 * Up to three escalations: a value outside the printed states may be
	 * one the verifier let through loosely (an imprecise register, a
	 * pruned path), which its escalation is refused for; a later one may
	 * be the bug.
	 */
	for (k = 0, tries = 0; k < nslot && tries < 3 && !hit; k++) {
		memcpy(&got, val + 8 * k, sizeof(got));
		if (got == FZ_PROBE_MARK)
			continue;
		st.checked++;
		if (fz_belief_parse(probe_log, slot[k].store, slot[k].reg, &b) <= 0 ||
		    !fz_belief_broken(&b, got))
			continue;
		st.broken++;
		if (opt.why && st.broken <= 8)
			probe_sample("broken", slot, nslot, val, found);
		if (!fz_probe_plan(&b, got, &pl))
			continue;
		n = fz_probe_escalate(&pl, slot[k].reg, tail);
		if (!fz_prefix(p, slot[k].insn, tail, n, &esc))
			continue;
		st.planned++;
		tries++;
		keep_from = slot[k].insn + 1;
		keep_to = slot[k].insn + 1 + n;
		snprintf(probe_note, sizeof(probe_note),
			 "belief probe after insn %u: r%d was %#llx, the verifier allowed %s [%#llx, %#llx]%s",
			 slot[k].insn, slot[k].reg, (unsigned long long)got, pl.what,
			 (unsigned long long)pl.lo, (unsigned long long)pl.hi,
			 pl.tnum ? " (the tnum's value and ~mask)" : "");
		current_write(cur_fd, &esc, path);
		if (execute(&esc, v, false, NULL)) {
			st.esc_runs++;
			st.esc_reports += v->reports > 0;
		} else {
			st.esc_refused++;
			if (opt.why && st.esc_refused <= 4) {
				fd = prog_load(&esc, opt.interp, probe_log, sizeof(probe_log), 2);
				if (fd >= 0)
					close(fd);
				probe_sample("escalation-refused", slot, nslot, val, &esc);
				/* (the record's log is gone: no more escalations of it) */
				break;
			}
		}
		hit = v->key[0] != 0;
		if (hit)
			*found = esc;
	}
out:
	st.progs = progs;
	st.accepted = accepted;
	st.runs = runs;
	st.diffs = diffs;
	st.t_fill = t[0];
	st.t_load = t[1];
	st.t_cov = t[2];
	st.t_run = t[3];
	st.t_twin = t[4];
	st.t_probe += now() - t0;
	if (!hit) {
		probe_note[0] = 0;
		keep_from = keep_to = 0;
	}
	return hit;
}

/* ---- findings ---- */

static void mkdir_p(const char *path)
{
	char buf[4096], *s;

	snprintf(buf, sizeof(buf), "%s", path);
	for (s = buf + 1; *s; s++) {
		if (*s == '/') {
			*s = 0;
			mkdir(buf, 0755);
			*s = '/';
		}
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		die("mkdir %s: %s", buf, strerror(errno));
}

static bool ld64_second(const struct fz_prog *p, uint32_t i)
{
	return i && fz_insn_is_ld64(&p->insns[i - 1]);
}

/*
 * The same finding again, every time of a few: a program whose finding
 * comes and goes (it reads what the kernel left on the stack, or where a
 * neighbour object lies) would make a reproducer that does not reproduce.
 * @v: the last run's verdict.
 */
static bool reproduces(const struct fz_prog *p, const char *key, struct verdict *v)
{
	int k;

	for (k = 0; k < 2; k++) {
		execute(p, v, false, NULL);
		if (strcmp(v->key, key))
			return false;
	}
	return true;
}

/*
 * Does deleting @n instructions at @i drop a store to the stack? Such a
 * deletion is not tried: the finding may stay (the slot held a fitting
 * value the kernel left there, which privileged programs may read) and
 * then depends on the kernel's stack.
 */
static bool drops_stack_store(const struct fz_prog *p, uint32_t i, uint32_t n)
{
	for (; n; i++, n--)
		if (fz_insn_is_stack_store(&p->insns[i]))
			return true;
	return false;
}

/* delta debugging over instructions: drop runs of them while the finding stays */
static void minimize(struct fz_prog *p, const char *key, double budget)
{
	static struct fz_prog t;
	struct verdict v;
	double t0 = now();
	uint32_t chunk, i;

	for (chunk = p->len / 2; chunk >= 1; chunk /= 2) {
		for (i = 0; i < p->len && now() - t0 < budget; ) {
			uint32_t n = chunk;

			if (ld64_second(p, i)) {
				i++;
				continue;
			}
			if (i + n > p->len)
				n = p->len - i;
			if (i + n < p->len && ld64_second(p, i + n))
				n++;
			if ((i < keep_to && i + n > keep_from) || drops_stack_store(p, i, n)) {
				i += n;
				continue;
			}
			t = *p;
			fz_delete(&t, i, n);
			if (t.len && reproduces(&t, key, &v)) {
				*p = t;
				if (i < keep_from) {
					keep_from -= n;
					keep_to -= n;
				}
			} else {
				i += n;
			}
		}
	}
	/* the packet: shorter where it changes nothing */
	t = *p;
	t.data_len = 64;
	if (p->data_len > 64 && reproduces(&t, key, &v))
		*p = t;
}

static void write_text(const char *dir, const char *name, const char *s)
{
	char path[8192];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(s ? s : "", f) < 0 || fclose(f))
		die("writing %s: %s", path, strerror(errno));
}

static void finding(struct fz_prog *orig, struct verdict *v)
{
	static char vlog[1 << 22], excerpt[CONSOLE_MAX];
	static struct fz_prog p;
	char dir[4096], tmp[4096], path[8192], info[4096], again_note[512];
	double t_found = now() - t_start;
	uint64_t progs = st.progs;
	struct verdict again;
	bool reproduced;
	FILE *f;
	int i, fd;

	for (i = 0; i < nseen; i++)
		if (!strcmp(seen_keys[i], v->key))
			return;
	if (nseen < 256)
		snprintf(seen_keys[nseen++], sizeof(seen_keys[0]), "%s", v->key);
	st.findings++;
	say("finding %s: %s (after %llu programs, %.1f s)", v->key, v->title,
	    (unsigned long long)progs, t_found);
	snprintf(dir, sizeof(dir), "%s/findings/%s", opt.out, v->key);
	if (!access(dir, F_OK))
		return;		/* an earlier run of this campaign has it */
	p = *orig;
	minimize(&p, v->key, 60);
	reproduced = reproduces(&p, v->key, &again);
	memcpy(excerpt, console, console_len + 1);
	fd = prog_load(&p, opt.interp, vlog, sizeof(vlog), 2);
	if (fd >= 0)
		close(fd);
	snprintf(tmp, sizeof(tmp), "%s/findings/.tmp-%s", opt.out, v->key);
	mkdir_p(tmp);
	snprintf(path, sizeof(path), "%s/prog", tmp);
	if (fz_prog_save(path, &p))
		die("writing %s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), "%s/prog.orig", tmp);
	if (fz_prog_save(path, orig))
		die("writing %s: %s", path, strerror(errno));
	write_text(tmp, "console.txt", excerpt);
	write_text(tmp, "verifier.log", vlog);
	/* not again: what the last run did instead, for whoever looks into it */
	if (reproduced)
		snprintf(again_note, sizeof(again_note), "yes");
	else if (again.load_err)
		snprintf(again_note, sizeof(again_note), "no (run again: the load failed: %s)",
			 strerror(again.load_err));
	else
		snprintf(again_note, sizeof(again_note), "no (run again: %s %s, R0 %#x, %d reports%s%s)",
			 again.run_err ? "BPF_PROG_TEST_RUN failed:" : "ran",
			 again.run_err ? strerror(again.run_err) : "to its exit", again.retval,
			 again.reports, again.key[0] ? ", found " : "", again.key);
	snprintf(info, sizeof(info),
		 "key %s\ntitle %s\nreports %d\nmode %s\nbits %#x\nprograms %llu\nseconds %.1f\n"
		 "insns %u (minimized from %u)\ncpus %d\nreproduces %s\n%s%s%s",
		 v->key, v->title, again.reports, opt.interp ? "interp" : opt.mode, opt.bits,
		 (unsigned long long)progs, t_found, p.len, orig->len, ncpus, again_note,
		 probe_note[0] ? "origin " : "", probe_note, probe_note[0] ? "\n" : "");
	write_text(tmp, "info", info);
	snprintf(path, sizeof(path), "%s/repro.c", tmp);
	f = fopen(path, "w");
	if (!f || fz_repro_write(f, &p, v->title, excerpt, vlog) || fclose(f))
		die("writing %s: %s", path, strerror(errno));
	if (rename(tmp, dir))
		die("rename %s: %s", tmp, strerror(errno));
}

/* ---- corpus ---- */

static void corpus_add(const struct fz_prog *p, bool save)
{
	char path[4096];
	uint64_t h = fnv(FNV_BASIS, p->insns, p->len * sizeof(p->insns[0]));

	/* a full corpus: the program takes a slot its hash picks */
	if (ncorpus < CORPUS_MAX)
		corpus[ncorpus++] = *p;
	else
		corpus[h % CORPUS_MAX] = *p;
	if (!save)
		return;
	snprintf(path, sizeof(path), "%s/corpus/%016llx.prog", opt.out, (unsigned long long)h);
	if (fz_prog_save(path, p))
		die("writing %s: %s (disk full?)", path, strerror(errno));
}

static void corpus_load_dir(const char *dir)
{
	static struct fz_prog p;
	struct dirent *e;
	char path[4096];
	int n = 0, bad = 0, fresh;
	struct verdict v;
	DIR *d = opendir(dir);

	if (!d)
		die("-i %s: %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (l < 6 || strcmp(e->d_name + l - 5, ".prog"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (fz_prog_load(path, &p) || !type_ok(p.type)) {
			bad++;
			continue;
		}
		/* replayed: its coverage counts, and what it finds is a finding */
		execute(&p, &v, true, &fresh);
		if (v.key[0])
			finding(&p, &v);
		if (fresh)
			corpus_add(&p, false);
		n++;
	}
	closedir(d);
	say("corpus %s: %d programs replayed (%d unreadable), %llu PCs", dir, n, bad,
	    (unsigned long long)st.pcs);
}

/* ---- setup ---- */

static void setup_maps(void)
{
	static const uint32_t types[3] = {
		BPF_PROG_TYPE_SCHED_CLS, BPF_PROG_TYPE_XDP, BPF_PROG_TYPE_SOCKET_FILTER,
	};
	int m, t, f;
	FILE *pf = fopen("/sys/devices/system/cpu/possible", "r");
	int a, b;
	cpu_set_t cpu0;

	if (pf && fscanf(pf, "%d-%d", &a, &b) == 2)
		ncpus = b + 1;
	if (pf)
		fclose(pf);
	/*
	 * Every load and run on CPU 0: what a run leaves in per-CPU and LRU
	 * maps is then the same from run to run and from guest to guest.
	 */
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0))
		say("warning: cannot run on CPU 0 alone: %s", strerror(errno));
	for (m = 0; m < FZ_NMAPS; m++) {
		if (m == FZ_PROG_ARRAY)
			continue;
		map_fd[m] = map_create(&fz_maps[m]);
		if (map_fd[m] < 0)
			die("creating map %s: %s", fz_maps[m].name, strerror(errno));
	}
	/*
	 * A prog array takes programs of one type, all JITed or none: one per
	 * type and flavour, each with two targets (0: returns 0; 1: reads the
	 * context's first word).
	 */
	for (t = 0; t < 3; t++) {
		for (f = 0; f < 2; f++) {
			static struct fz_prog tp;
			uint32_t k, fd;

			/* no interpreter needed: none asked for (a kernel may have none) */
			if (f == 1 && opt.no_diff && !opt.interp)
				break;

			prog_array[t][f] = map_create(&fz_maps[FZ_PROG_ARRAY]);
			if (prog_array[t][f] < 0)
				die("creating a prog array: %s", strerror(errno));
			for (k = 0; k < 2; k++) {
				memset(&tp, 0, sizeof(tp));
				tp.type = types[t];
				tp.insns[0] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K };
				if (k)
					tp.insns[0] = (struct bpf_insn){ .code = BPF_LDX | BPF_MEM | BPF_W,
									 .src_reg = 1 };
				tp.insns[1] = (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };
				tp.len = 2;
				fd = prog_load(&tp, f, NULL, 0, 0);
				if ((int)fd < 0 || map_update(prog_array[t][f], &k, &fd))
					die("a tail call target: %s", strerror(errno));
			}
		}
	}
	map_fd[FZ_PROG_ARRAY] = prog_array[0][0];
}

static void setup_mode(void)
{
	char cur[32] = "", buf[32];
	FILE *f = fopen("/sys/module/kernel/parameters/bpf_jit_kasan", "r");

	if (!f || !fgets(cur, sizeof(cur), f))
		die("/sys/module/kernel/parameters/bpf_jit_kasan: not readable: a kernel without the series?");
	fclose(f);
	cur[strcspn(cur, "\n")] = 0;
	if (!opt.mode)
		opt.mode = strdup(cur);
	else if (!strcmp(opt.mode, "interp"))
		opt.interp = true;
	else if (strcmp(opt.mode, "off") && strcmp(opt.mode, "outline") && strcmp(opt.mode, "inline"))
		die("-m %s: want off, outline, inline or interp", opt.mode);
	else if (strcmp(opt.mode, cur))
		die("-m %s, but this kernel was booted with bpf_jit_kasan=%s (a boot parameter: boot with bpf_jit_kasan=%s)",
		    opt.mode, cur, opt.mode);
	if (opt.bits_set) {
		snprintf(buf, sizeof(buf), "%u", opt.bits);
		if (write_file("/sys/module/kernel/parameters/bpf_museum", buf))
			die("-b %#x: cannot write /sys/module/kernel/parameters/bpf_museum: %s (not the museum's kernel?)",
			    opt.bits, strerror(errno));
	}
	write_file("/proc/sys/net/core/bpf_jit_kallsyms", "1");
	if (opt.interp)
		jit_enable(false);
	else if (!opt.no_diff)
		jit_enable(true);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: bjk-fuzz [-s SEED] [-t SECS] [-n PROGS] [-b BITS] [-m off|outline|inline|interp]\n"
		"                [-o OUTDIR] [-i DIR]... [-u | -U PREFIX] [-p SECS] [-q] [-D] [-v] [-K]\n"
		"                [-G PERCENT] [-P PERCENT] [-c FILE]\n"
		"       bjk-fuzz -R PROGFILE > repro.c\n");
	exit(2);
}

static void progress(FILE *stats)
{
	double t = now() - t_start;

	say("%.0fs progs %llu (%.0f/s) accepted %llu (%.0f%%) runs %llu diffs %llu (noisy %llu) pcs %llu corpus %d findings %llu probes %llu broken %llu",
	    t, (unsigned long long)st.progs, st.progs / (t > 0 ? t : 1),
	    (unsigned long long)st.accepted, st.progs ? 100.0 * st.accepted / st.progs : 0,
	    (unsigned long long)st.runs, (unsigned long long)st.diffs,
	    (unsigned long long)st.noisy, (unsigned long long)st.pcs,
	    ncorpus, (unsigned long long)st.findings, (unsigned long long)st.probes,
	    (unsigned long long)st.broken);
	fprintf(stats, "%.1f\t%llu\t%llu\t%llu\t%llu\t%d\t%llu\n", t, (unsigned long long)st.progs,
		(unsigned long long)st.accepted, (unsigned long long)st.runs,
		(unsigned long long)st.pcs, ncorpus, (unsigned long long)st.findings);
	if (fflush(stats))
		die("writing stats.tsv: %s (disk full?)", strerror(errno));
}

int main(int argc, char **argv)
{
	static struct fz_prog p, e;
	char path[4096];
	double next;
	uint64_t rng, probe_rng;
	uint64_t replayed;
	FILE *stats;
	int c, i, cur_fd;
	char *end;

	while ((c = getopt(argc, argv, "s:t:n:b:m:o:i:uU:p:qDvKG:P:c:R:")) != -1) {
		switch (c) {
		case 'R':
			/*
			 * A program file's C reproducer, on the host as in the
			 * guest: how a program minimized by hand (findings that
			 * hang or WARN_ONCE, which the loop cannot minimize in
			 * one boot) becomes something to run with tools/vm.
			 */
			if (fz_prog_load(optarg, &p))
				die("-R %s: %s", optarg, errno == EINVAL ?
				    "not a bjk-fuzz program file" : strerror(errno));
			if (fz_repro_write(stdout, &p, optarg, "-", "-") || fflush(stdout))
				die("-R %s: writing the reproducer: %s", optarg, strerror(errno));
			return 0;
		case 's':
			opt.seed = strtoull(optarg, &end, 0);
			if (*end)
				die("-s %s: not a number", optarg);
			break;
		case 't':
			opt.secs = strtod(optarg, &end);
			if (*end || opt.secs <= 0)
				die("-t %s: want seconds, > 0", optarg);
			break;
		case 'n':
			opt.max_progs = strtoull(optarg, &end, 0);
			if (*end)
				die("-n %s: not a number", optarg);
			break;
		case 'b':
			opt.bits = strtoul(optarg, &end, 0);
			if (*end || opt.bits > 255)
				die("-b %s: want the museum's bits, 0 to 0xff", optarg);
			opt.bits_set = true;
			break;
		case 'm':
			opt.mode = optarg;
			break;
		case 'o':
			opt.out = optarg;
			break;
		case 'i':
			if (opt.nin == 16)
				die("-i: at most 16 directories");
			opt.in[opt.nin++] = optarg;
			break;
		case 'u':
			opt.stop_first = true;
			break;
		case 'U':
			opt.stop_first = true;
			opt.stop_prefix = optarg;
			break;
		case 'p':
			opt.progress = strtod(optarg, &end);
			if (*end || opt.progress <= 0)
				die("-p %s: want seconds, > 0", optarg);
			break;
		case 'q':
			opt.quiet = true;
			break;
		case 'D':
			opt.no_diff = true;
			break;
		case 'v':
			opt.why = true;
			break;
		case 'K':
			opt.no_kcov = true;
			break;
		case 'c':
			opt.current = optarg;
			break;
		case 'P':
			opt.probe_percent = strtol(optarg, &end, 0);
			if (*end || opt.probe_percent < 0 || opt.probe_percent > 100)
				die("-P %s: want the share of accepted programs probed, 0 to 100 (percent)", optarg);
			break;
		case 'G':
			opt.gen_percent = strtol(optarg, &end, 0);
			if (*end || opt.gen_percent < 0 || opt.gen_percent > 100)
				die("-G %s: want the share of generated programs, 0 to 100 (percent)", optarg);
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	setup_mode();
	if (!opt.no_kcov)
		kcov_open();
	if (bjk_kmsg_open(&kmsg))
		die("/dev/kmsg: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/corpus", opt.out);
	mkdir_p(path);
	snprintf(path, sizeof(path), "%s/findings", opt.out);
	mkdir_p(path);
	snprintf(path, sizeof(path), "%s/log", opt.out);
	logf = fopen(path, "a");
	snprintf(path, sizeof(path), "%s/stats.tsv", opt.out);
	stats = fopen(path, "w");
	if (!logf || !stats)
		die("%s: %s", path, strerror(errno));
	fprintf(stats, "secs\tprogs\taccepted\truns\tpcs\tcorpus\tfindings\n");
	corpus = calloc(CORPUS_MAX, sizeof(*corpus));
	if (!corpus)
		die("out of memory");
	setup_maps();
	rng = opt.seed ^ 0x6a09e667f3bcc908ull;
	/* a stream of its own: -P does not change which programs are made */
	probe_rng = opt.seed ^ 0xbb67ae8584caa73bull;
	say("seed %llu, mode %s, museum bits %#x, %d CPU(s), %s, budget %.0f s%s",
	    (unsigned long long)opt.seed, opt.interp ? "interp" : opt.mode, opt.bits, ncpus,
	    opt.interp || opt.no_diff ? "no differential" : "differential on",
	    opt.secs, opt.max_progs ? " or the program count" : "");
	t_start = now();
	for (i = 0; i < opt.nin; i++)
		corpus_load_dir(opt.in[i]);
	replayed = st.progs;	/* -n counts the loop's programs, after the replays */
	next = now() + opt.progress;
	snprintf(path, sizeof(path), "%s/current", opt.out);
	if (opt.current) {
		run_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (run_fd < 0)
			die("%s: %s", path, strerror(errno));
		run_path = strdup(path);
		snprintf(path, sizeof(path), "%s", opt.current);
	}
	cur_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (cur_fd < 0)
		die("%s: %s", path, strerror(errno));
	for (;;) {
		struct verdict v;
		struct fz_prog *found;
		bool generated, ok;
		int fresh;

		if (now() - t_start >= opt.secs ||
		    (opt.max_progs && st.progs - replayed >= opt.max_progs))
			break;
		generated = !ncorpus || (int)(fz_mix(&rng) % 100) < opt.gen_percent;
		if (generated) {
			fz_generate(&p, &rng);
			st.gen++;
		} else {
			/* newer entries more often: they are where coverage grew last */
			uint32_t a = fz_mix(&rng) % ncorpus, b = fz_mix(&rng) % ncorpus;

			p = corpus[a > b ? a : b];
			fz_mutate(&p, &corpus[fz_mix(&rng) % ncorpus], &rng);
			st.mut++;
		}
		/* the culprit, should this program take the guest down */
		current_write(cur_fd, &p, path);
		ok = execute(&p, &v, true, &fresh);
		if (ok) {
			if (generated)
				st.gen_accepted++;
			else
				st.mut_accepted++;
		}
		if (fresh)
			corpus_add(&p, true);
		found = &p;
		if (ok && !v.key[0] && (int)(fz_mix(&probe_rng) % 100) < opt.probe_percent &&
		    probe(&p, &v, &e, cur_fd, path))
			found = &e;
		if (v.key[0]) {
			finding(found, &v);
			probe_note[0] = 0;
			keep_from = keep_to = 0;
			if (opt.stop_first && (!opt.stop_prefix ||
					       !strncmp(v.key, opt.stop_prefix, strlen(opt.stop_prefix))))
				break;
		}
		if (now() >= next) {
			progress(stats);
			next = now() + opt.progress;
		}
	}
	progress(stats);
	say("done: %llu programs (%llu generated, %llu accepted; %llu mutated, %llu accepted), %llu accepted, %llu runs, %llu PCs, %llu findings",
	    (unsigned long long)st.progs, (unsigned long long)st.gen,
	    (unsigned long long)st.gen_accepted, (unsigned long long)st.mut,
	    (unsigned long long)st.mut_accepted,
	    (unsigned long long)st.accepted, (unsigned long long)st.runs,
	    (unsigned long long)st.pcs, (unsigned long long)st.findings);
	say("probes: %llu (record refused %llu, its end not reached %llu), values checked %llu, outside the belief %llu, escalations %llu (refused %llu), run %llu, reported %llu",
	    (unsigned long long)st.probes, (unsigned long long)st.probe_refused,
	    (unsigned long long)st.probe_unreached, (unsigned long long)st.checked,
	    (unsigned long long)st.broken, (unsigned long long)st.planned,
	    (unsigned long long)st.esc_refused,
	    (unsigned long long)st.esc_runs, (unsigned long long)st.esc_reports);
	if (opt.why) {
		why_print();
		say("time: map fill %.1f s, loads %.1f s, coverage %.1f s, runs %.1f s, twins %.1f s, probes %.1f s, the rest %.1f s",
		    st.t_fill, st.t_load, st.t_cov, st.t_run, st.t_twin, st.t_probe,
		    now() - t_start - st.t_fill - st.t_load - st.t_cov - st.t_run - st.t_twin -
		    st.t_probe);
	}
	fclose(stats);
	return 0;
}
