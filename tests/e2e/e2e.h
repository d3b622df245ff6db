/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parts of bjk-e2e: the loader (loader.c: the plan, read from the
 * programs' tags and the raw cases' table; a case's reports, judged; KTAP;
 * the decode check), the coverage audit (audit.c), and the cases, which
 * load and run programs (cases.c). Only loader.c writes output: the lib/
 * headers keep their state per C file (bjk-out.h's /dev/kmsg descriptor,
 * bjk-checks.h's addresses), so each is used in one file only.
 */
#ifndef E2E_H
#define E2E_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>

#define MODULE_NAME	"bjk_e2e"
/* The shadow value bjk_poison() writes reads as this bug type. */
#define POISON_BUG	"global-out-of-bounds"

/* One KASAN report a case expects (progs/bjk-tags.h, __bjk_report). */
struct expect {
	const char *bug;
	bool write;
	int size;
	long off;		/* from last_addr */
	int prog;		/* which audited program made the access */
	int func;		/* and in which of its functions (jited_ksyms) */
	bool stacks;		/* "Allocated by task" and "Freed by task" */
};

/*
 * What a case knows that the xlated dump cannot show: accesses the
 * verifier proved stack-only through a base other than R10, and
 * PROBE_MEM loads, which bpf_prog_get_info_by_fd() dumps as LDX MEM (only
 * PROBE_MEMSX, PROBE_ATOMIC and PROBE_MEM32 keep their mode in the dump).
 * Indexed [write][log2 size].
 */
struct exempt {
	int n[2][4];
	int probes;		/* PROBE_MEM(SX) loads (their guards are counted) */
};

#define SIZE_IDX(size)	((size) == 1 ? 0 : (size) == 2 ? 1 : (size) == 4 ? 2 : 3)

/* Where a program's checks are: per function, call offsets by kind. */
#define MAX_CALLS	256
#define AUDIT_FUNCS	64	/* bjk-prog.h's BJK_PROG_FUNCS (audit.c checks) */
struct audit {
	int fd;
	char name[BPF_OBJ_NAME_LEN];
	unsigned char tag[BPF_TAG_SIZE];
	int nfuncs;
	uint64_t ksym[AUDIT_FUNCS];
	uint32_t flen[AUDIT_FUNCS];
	int ncalls;		/* with a table its accesses, else the calls */
	int nchecks;		/* the checks' calls in the image */
	bool table;		/* the JIT's table, call[] from it */
	bool inlined;		/* its checks are inline (call the slow path) */
	bool lines;		/* the program has BTF line info */
	struct {
		int func;
		uint32_t ret_off;	/* where a report names the access */
		bool write;
		int size;
		int insn;		/* in its function, from the table; -1 */
	} call[MAX_CALLS];
};

/* A report as a run saw it, to compare runs of one program. */
struct seen {
	char bug[64];
	bool write;
	int size;
	long off;		/* from last_addr */
	int insn;		/* from the JIT's table; -1: unknown */
};

/* One run of a case: its KTAP line. */
struct tcase {
	char name[128];
	int num;
	char why[512];
	const struct expect *exp;
	int nexp;
	struct audit aud[3];
	int naud;
	bool armed;
	struct seen seen[8];
	int nseen;
	const struct tcase *twin;	/* its reports must be the same as these */
};

/* A map entry a C case sets before its run (__bjk_map_u32, __bjk_map_prog). */
struct cmap {
	char *map;
	uint32_t key;
	uint32_t val;		/* the value's first u32 (map_u32) */
	char *prog;		/* or: the fd of this program (map_prog) */
};

struct raw;

/*
 * A case of the plan: a raw case (a row of cases.c's table) or a C
 * program's (its tags). The same fields say what either expects.
 */
struct spec {
	const char *name;	/* without the h0./h2. of the pass */
	const struct raw *raw;	/* NULL: a C program's case */
	const char *prog;	/* the program: C, the tagged one; raw, its load name */
	/* C cases only (progs/bjk-tags.h documents each) */
	uint32_t order;		/* the counter of its case tag: the plan's order */
	uint32_t func;		/* BTF id of the program's FUNC */
	bool merge;		/* run with merging off, then on */
	bool merges;		/* merging on: fewer checks than accesses */
	bool attach;		/* attach the program before the run */
	const char *run;	/* the program run instead of prog, or NULL */
	const char *audit2;	/* a second program audited, or NULL */
	struct cmap map[2];
	int nmap;
	bool has_out[8];
	uint64_t outv[8];
	/* every case */
	bool has_retval;	/* no: the result is not checked */
	int retval;
	struct exempt ex;	/* probes 0 unless a tag says otherwise */
	int nexp;
	struct expect exp[8];
};

/* loader.c */
extern int harden;
extern char vlog[65536];
/* A "#" line of run @t (without one: the line alone); fail(): it fails. */
void fail(struct tcase *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void note(struct tcase *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void set_harden(int v);
struct bpf_object_open_opts;
struct bpf_object *obj_open(const struct bpf_object_open_opts *oo);
bool case_begin(struct tcase *t, const struct spec *s, int run);
void arm(struct tcase *t);
void case_end(struct tcase *t);

/* audit.c */
int checks_load(void);
int audit(struct tcase *t, int fd, const struct exempt *ex);
const char *kind_name(bool write, int size);
void ksym_name(unsigned long addr, char *name, size_t len);

/* cases.c */
int raw_plan(struct spec *s, int max);
int cases_init(void);
void case_run(const struct spec *s);

#endif /* E2E_H */
