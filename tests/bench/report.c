// SPDX-License-Identifier: GPL-2.0
/*
 * bjk-bench-report: the benchmark's figures from the consoles of its four
 * boots (off, outline, inline with merging off: "unmerged", inline), on the
 * host.
 *
 *   bjk-bench-report [-q] [-o OUTDIR] [-C PREVIOUS.csv] MODE=CONSOLE...
 *
 * MODE: one of label[] below, the roles of the boots of group "bench" in
 * tests/boots (the harness hands a check its group's consoles so): off,
 * outline, unmerged and inline are needed; interp and museum-off (which
 * needs interp) are the museum kernel's boots.
 *
 * Reads the BJK-BENCH lines tests/bench/runner.c printed and derives, per
 * program and mode: instructions per run, ratio to off, checked accesses
 * per run (measured in the outline boot, where each executed check is one
 * call into the KASAN runtime), checks executed per run (inline modes:
 * breakpoints on the checks themselves; a merged check covers several
 * accesses), added instructions per checked access ((mode - off) /
 * accesses), JIT image bytes and bytes per check ((mode - off bytes) /
 * checks in the image); the suite's geometric mean of the
 * ratio over the realistic programs; and the microbenchmark's added
 * instructions per aligned 8-byte load,
 *   ((micro - micro0) in mode - (micro - micro0) in off) / 64,
 * where micro0 is micro without its loads, so that the fixed costs of a
 * program (the inline prologue, test_run) cancel out.
 *
 * The load cost (BJK-BENCH-LOAD lines): instructions per BPF_PROG_LOAD of
 * each program, verifier and JIT, the benchmark's and the corpus objects',
 * in each mode, its ratio to off and the geometric means. With interp, the
 * runs of a boot with the JIT off (the interpreter, another kernel: the
 * museum's) against the inline boot's: inline / interpreter per program
 * and its geometric mean. The whole system (BJK-BENCH-SYS): instructions
 * per syscall of a getppid() loop with a tracing program on sys_enter, in
 * each mode, and its ratio to off; the same (BJK-BENCH-NET) per UDP
 * datagram sent and received over lo with tc programs on lo's egress and
 * ingress.
 *
 * Prints the table; with -o writes OUTDIR/bench.{csv,json}, load.csv,
 * system.csv, interp.csv (with interp) and the gnuplot input
 * OUTDIR/{bench,load,system,interp}.dat and OUTDIR/bench.gp. With -C compares the
 * instruction counts with an earlier run's CSV (repeatability). -q: the
 * consistency check only (make test's quick form), no table.
 *
 * Exit status 1 when a figure is missing or inconsistent: a program absent
 * from a boot, an instruction count of 0, no executed checks counted, an
 * image whose check count does not fit its mode.
 */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "bjk-console.h"

#define N_MICRO		64	/* loads in bench.bpf.c's micro */

/*
 * The four JIT modes of one kernel; extra, on the museum's kernel (C code
 * with outline KASAN): INTERP, the JIT off, and MOFF, the JIT on with
 * checks off. modes[]: what the boot's lines say; label[]: the tables' and
 * the arguments' (MODE=CONSOLE).
 */
enum { OFF, OUTLINE, UNMERGED, INLINE, NMODES, INTERP = NMODES, MOFF, NALL };
static const char *const modes[NALL] = { "off", "outline", "unmerged", "inline", "interp", "off" };
static const char *const label[NALL] = {
	"off", "outline", "unmerged", "inline", "interp", "museum-off",
};

static const char *const progs[] = {
	"parse", "counters_update", "array_loop", "struct_walk", "ringbuf", "helpers_alu",
	"trace_args", "micro", "micro0",
};
#define NPROGS		(int)(sizeof(progs) / sizeof(progs[0]))
#define NREAL		7	/* the first seven are the suite; micro* are the microbenchmark */
#define MICRO		7
#define MICRO0		8

struct fig {
	int have;
	double insns, insns_min, insns_max, outline_run, slow_run, noise_run, checks_run;
	long repeat, passes, req_repeat, req_passes, bytes, funcs, static_checks;
};

static struct fig fig[NPROGS][NALL];
static int errors, have_interp, have_moff;

/* Whether mode @m's boot was read: the four always, the museum's if given. */
static int shown(int m)
{
	return m < NMODES || (m == INTERP && have_interp) || (m == MOFF && have_moff);
}

/* The loads of one program (BJK-BENCH-LOAD): object "bench" or a corpus's. */
#define MAX_LOADS	512
static struct load {
	char obj[64], prog[64];
	long bpf_insns, nloads[NALL];
	int have[NALL];
	double insns[NALL], insns_max[NALL];
} loads[MAX_LOADS];
static int nloads;

/*
 * The whole-system workloads: instructions per getppid() (BJK-BENCH-SYS)
 * and per UDP datagram over lo (BJK-BENCH-NET), bare and traced.
 */
enum { W_SYS, W_NET, NWL };
static const struct wldesc {
	const char *line, *json, *title, *unit;
} wld[NWL] = {
	{ "BJK-BENCH-SYS mode=", "system",
	  "getppid() in a loop with sys_enter traced (a raw_tp program: a count in a hash map "
	  "value, a hash map update per call)", "syscall" },
	{ "BJK-BENCH-NET mode=", "net",
	  "UDP datagrams sent and received over lo, tc on lo's egress and ingress (per "
	  "packet: a per-CPU count, a flow hash map lookup, its creation on the first, "
	  "atomic adds, a count)", "datagram" },
};
static struct sysfig {
	int have;
	double bare, traced;
} sysf[NWL][NALL];

static void err(const char *fmt, const char *a, const char *b)
{
	printf("error: ");
	printf(fmt, a, b);
	printf("\n");
	errors++;
}

static int prog_idx(const char *name)
{
	int i;

	for (i = 0; i < NPROGS; i++)
		if (!strcmp(progs[i], name))
			return i;
	return -1;
}

static double field(const char *msg, const char *key, int *ok)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(msg, pat);
	if (!p) {
		*ok = 0;
		return 0;
	}
	return strtod(p + strlen(pat), NULL);
}

static int find_load(const char *obj, const char *prog)
{
	int i;

	for (i = 0; i < nloads; i++)
		if (!strcmp(loads[i].obj, obj) && !strcmp(loads[i].prog, prog))
			return i;
	if (nloads == MAX_LOADS)
		return -1;
	snprintf(loads[nloads].obj, sizeof(loads[0].obj), "%s", obj);
	snprintf(loads[nloads].prog, sizeof(loads[0].prog), "%s", prog);
	return nloads++;
}

/* One BJK-BENCH-LOAD line @p of @path, the boot of @mode: 1 when taken. */
static int read_load(const char *path, const char *p, int mode)
{
	char m[32], obj[64], prog[64];
	struct load *l;
	int i, ok = 1;

	if (sscanf(p, "BJK-BENCH-LOAD mode=%31s obj=%63s prog=%63s", m, obj, prog) != 3 ||
	    strcmp(m, modes[mode])) {
		err("%s: a BJK-BENCH-LOAD line not of mode %s", path, modes[mode]);
		return 0;
	}
	i = find_load(obj, prog);
	if (i < 0) {
		err("%s: more than %s loaded programs", path, "MAX_LOADS");
		return 0;
	}
	l = &loads[i];
	l->insns[mode] = field(p, "insns", &ok);
	l->insns_max[mode] = field(p, "insns_max", &ok);
	l->nloads[mode] = field(p, "loads", &ok);
	l->bpf_insns = field(p, "bpf_insns", &ok);
	if (!ok) {
		err("%s: a BJK-BENCH-LOAD line of %s lacks a field", path, prog);
		return 0;
	}
	l->have[mode] = 1;
	return 1;
}

static void read_log(const char *path, int mode)
{
	char line[BJK_LINE_MAX], m[32], name[64];
	FILE *f = fopen(path, "r");
	int n = 0;

	if (!f) {
		err("cannot read %s%s", path, "");
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char *msg, *p;
		struct fig *g;
		int i, ok = 1;

		bjk_chomp(line);
		msg = bjk_msg(line);
		p = strstr(msg, "BJK-BENCH-LOAD mode=");
		if (p) {
			n += read_load(path, p, mode);
			continue;
		}
		for (i = 0; i < NWL && !strstr(msg, wld[i].line); i++)
			;
		if (i < NWL) {
			struct sysfig *w = &sysf[i][mode];

			p = strstr(msg, wld[i].line);
			w->bare = field(p, "bare", &ok);
			w->traced = field(p, "insns", &ok);
			w->have = ok && sscanf(p + strlen(wld[i].line), "%31s", m) == 1 &&
				  !strcmp(m, modes[mode]);
			if (!w->have)
				err("%s: a whole-system line not of mode %s or lacking a field", path,
				    modes[mode]);
			continue;
		}
		p = strstr(msg, "BJK-BENCH mode=");
		if (!p || sscanf(p, "BJK-BENCH mode=%31s prog=%63s", m, name) != 2)
			continue;
		if (strcmp(m, modes[mode])) {
			err("%s is not a boot of mode %s", path, modes[mode]);
			break;
		}
		i = prog_idx(name);
		if (i < 0)
			continue;
		g = &fig[i][mode];
		g->insns = field(p, "insns", &ok);
		g->insns_min = field(p, "insns_min", &ok);
		g->insns_max = field(p, "insns_max", &ok);
		g->outline_run = field(p, "outline_run", &ok);
		g->slow_run = field(p, "slow_run", &ok);
		g->noise_run = field(p, "noise_run", &ok);
		g->checks_run = field(p, "checks_run", &ok);
		g->repeat = field(p, "repeat", &ok);
		g->passes = field(p, "passes", &ok);
		g->req_repeat = field(p, "req_repeat", &ok);
		g->req_passes = field(p, "req_passes", &ok);
		g->bytes = field(p, "bytes", &ok);
		g->funcs = field(p, "funcs", &ok);
		g->static_checks = field(p, "static_checks", &ok);
		if (!ok) {
			err("%s: a BJK-BENCH line of %s lacks a field", path, name);
			continue;
		}
		g->have = 1;
		n++;
	}
	fclose(f);
	if (!n)
		err("%s: no BJK-BENCH lines (did the %s boot's bench suite run?)", path,
		    modes[mode]);
}

/* Checked accesses per run: what the outline boot counted. */
static double checks_run(int p)
{
	return fig[p][OUTLINE].outline_run;
}

/* Checks executed per run in mode @m: one per access but inline merged. */
static double executed_run(int p, int m)
{
	return fig[p][m].checks_run;
}

static double ratio_to(int p, int m, int base);

static double ratio(int p, int m)
{
	return ratio_to(p, m, OFF);
}

static double added_per_check(int p, int m)
{
	double c = checks_run(p);

	return c > 0 ? (fig[p][m].insns - fig[p][OFF].insns) / c : NAN;
}

static double bytes_per_check(int p, int m)
{
	long s = fig[p][m].static_checks;

	return s > 0 ? (double)(fig[p][m].bytes - fig[p][OFF].bytes) / s : NAN;
}

/* Instructions per run of mode @m over those of mode @base, program @p. */
static double ratio_to(int p, int m, int base)
{
	return fig[p][m].insns / fig[p][base].insns;
}

/* The suite's geometric mean of ratio_to(@m, @base). */
static double geomean_to(int m, int base)
{
	double s = 0;
	int p;

	for (p = 0; p < NREAL; p++)
		s += log(ratio_to(p, m, base));
	return exp(s / NREAL);
}

static double geomean(int m)
{
	return geomean_to(m, OFF);
}

/* ---- load cost and the interpreter -------------------------------------- */

static double load_ratio(int i, int m)
{
	return loads[i].insns[m] / loads[i].insns[OFF];
}

/* Whether load @i is one of the benchmark's suite programs (the first NREAL). */
static int load_is_suite(int i)
{
	int p = prog_idx(loads[i].prog);

	return !strcmp(loads[i].obj, "bench") && p >= 0 && p < NREAL;
}

/* The loads a geometric mean is over: the suite's, the corpus's, or @obj's. */
enum lsel { L_SUITE, L_CORPUS, L_OBJ };

static int load_in(int i, enum lsel sel, const char *obj)
{
	switch (sel) {
	case L_SUITE: return load_is_suite(i);
	case L_CORPUS: return strcmp(loads[i].obj, "bench") != 0;
	default: return !strcmp(loads[i].obj, obj);
	}
}

/* The geometric mean of the load ratio of mode @m over @sel; *@n programs. */
static double load_geomean(int m, enum lsel sel, const char *obj, int *n)
{
	double s = 0;
	int i;

	*n = 0;
	for (i = 0; i < nloads; i++)
		if (load_in(i, sel, obj)) {
			s += log(load_ratio(i, m));
			++*n;
		}
	return *n ? exp(s / *n) : NAN;
}

/* The load of program @p of the benchmark, or -1. */
static int bench_load(int p)
{
	int i;

	for (i = 0; i < nloads; i++)
		if (!strcmp(loads[i].obj, "bench") && !strcmp(loads[i].prog, progs[p]))
			return i;
	return -1;
}

/* Instructions per run over the interpreter's (another kernel). */
static double interp_ratio(int p, int m)
{
	return ratio_to(p, m, INTERP);
}

static double interp_geomean(int m)
{
	return geomean_to(m, INTERP);
}

static void check_loads(void)
{
	int i, m, p;

	for (p = 0; p < NPROGS; p++)
		if (bench_load(p) < 0)
			err("no load cost of %s%s", progs[p], "");
	for (i = 0; i < nloads; i++)
		for (m = 0; m < NMODES; m++) {
			char what[160];

			snprintf(what, sizeof(what), "%.63s %.63s", loads[i].obj, loads[i].prog);
			if (!loads[i].have[m])
				err("no load cost of %s in the %s boot", what, modes[m]);
			else if (loads[i].insns[m] <= 0 || !isfinite(load_ratio(i, m)))
				err("load cost of %s in the %s boot: not a count", what, modes[m]);
		}
}

/* Workload @w traced: its ratio to off's. */
static double sys_ratio(int w, int m)
{
	return sysf[w][m].traced / sysf[w][OFF].traced;
}

static void check_system(void)
{
	int w, m;

	for (w = 0; w < NWL; w++)
		for (m = 0; m < NALL; m++)
			if (shown(m) && (!sysf[w][m].have || sysf[w][m].bare <= 0 ||
					 sysf[w][m].traced <= sysf[w][m].bare))
				err("no %s figures (or traced <= bare) in the %s boot",
				    wld[w].json, label[m]);
}

static void check_interp(void)
{
	int p;

	for (p = 0; p < NPROGS; p++) {
		if (!fig[p][INTERP].have || fig[p][INTERP].insns <= 0)
			err("no figures for %s in the interpreter's boot%s", progs[p], "");
		if (have_moff && (!fig[p][MOFF].have || fig[p][MOFF].insns <= 0))
			err("no figures for %s in the museum's checks-off boot%s", progs[p], "");
	}
}

/* Added instructions per aligned 8-byte load, from micro and micro0. */
static double micro_per_access(int m)
{
	double dm = fig[MICRO][m].insns - fig[MICRO0][m].insns;
	double d0 = fig[MICRO][OFF].insns - fig[MICRO0][OFF].insns;

	return (dm - d0) / N_MICRO;
}

static void check(void)
{
	int p, m;

	for (p = 0; p < NPROGS; p++)
		for (m = 0; m < NMODES; m++)
			if (!fig[p][m].have)
				err("no figures for %s in the %s boot", progs[p], modes[m]);
	if (errors)
		return;
	for (p = 0; p < NPROGS; p++) {
		for (m = 0; m < NMODES; m++) {
			if (fig[p][m].insns <= 0)
				err("%s (%s): no instruction count", progs[p], modes[m]);
			if (fig[p][m].bytes <= 0)
				err("%s (%s): no image size", progs[p], modes[m]);
		}
		if (p == MICRO0)
			continue;
		if (checks_run(p) < 1)
			err("%s: no executed checks counted in the outline boot%s", progs[p], "");
		if (fig[p][OUTLINE].static_checks < 1 || fig[p][INLINE].static_checks < 1)
			err("%s: no checks in the outline or inline image%s", progs[p], "");
		if (fig[p][OFF].static_checks)
			err("%s: checks in the off image%s", progs[p], "");
		if (fig[p][OUTLINE].static_checks != fig[p][UNMERGED].static_checks)
			err("%s: outline and unmerged inline images have different check counts%s",
			    progs[p], "");
		if (fig[p][INLINE].static_checks > fig[p][UNMERGED].static_checks)
			err("%s: more checks merged than unmerged%s", progs[p], "");
		if (fabs(executed_run(p, OUTLINE) - checks_run(p)) > 0.05 ||
		    fabs(executed_run(p, UNMERGED) - checks_run(p)) > 0.05)
			err("%s: unmerged inline checks executed per run differ from the "
			    "accesses%s", progs[p], "");
		if (executed_run(p, INLINE) > executed_run(p, UNMERGED) + 0.05)
			err("%s: more merged checks executed than unmerged%s", progs[p], "");
		for (m = UNMERGED; m < NMODES; m++)
			if (fig[p][m].slow_run > 0.05)
				err("%s (%s): the slow path ran, where nothing is poisoned",
				    progs[p], modes[m]);
		for (m = OUTLINE; m < NMODES; m++)
			if (!isfinite(ratio(p, m)) || !isfinite(added_per_check(p, m)) ||
			    !isfinite(bytes_per_check(p, m)))
				err("%s (%s): a derived figure is not finite", progs[p], modes[m]);
	}
	/* micro0 has micro's checks but its 64 loads (the inlined lookup's). */
	if (!errors && fabs(checks_run(MICRO) - checks_run(MICRO0) - N_MICRO) > 0.5) {
		char buf[64];

		snprintf(buf, sizeof(buf), "%.2f", checks_run(MICRO) - checks_run(MICRO0));
		err("micro: %s more executed checks per run than micro0, want %s", buf, "64");
	}
	for (m = OUTLINE; m < NMODES; m++)
		if (!errors && !isfinite(micro_per_access(m)))
			err("micro: per-access figure of %s not finite%s", modes[m], "");
	check_loads();
	check_system();
	if (have_interp)
		check_interp();
}

static double spread(void);

static void load_row(FILE *o, int i)
{
	char name[96];
	int m;

	if (strcmp(loads[i].obj, "bench"))
		snprintf(name, sizeof(name), "%s:%s", loads[i].obj, loads[i].prog);
	else
		snprintf(name, sizeof(name), "%s", loads[i].prog);
	fprintf(o, "%-34s %5ld %10.0f", name, loads[i].bpf_insns, loads[i].insns[OFF]);
	for (m = OUTLINE; m < NMODES; m++)
		fprintf(o, " %10.0f %6.3f", loads[i].insns[m], load_ratio(i, m));
	fprintf(o, "\n");
}

static void load_mean(FILE *o, const char *what, enum lsel sel, const char *obj)
{
	double g[NMODES];
	int n, m;

	for (m = OUTLINE; m < NMODES; m++)
		g[m] = load_geomean(m, sel, obj, &n);
	if (n)
		fprintf(o, "  %-28s %3d programs: inline %.3fx, unmerged %.3fx, outline %.3fx\n",
			what, n, g[INLINE], g[UNMERGED], g[OUTLINE]);
}

/* The load cost: per program, per corpus object, and the means. */
static void load_table(FILE *o)
{
	int i, j, n;
	double g;

	fprintf(o, "\nload cost: guest instructions per BPF_PROG_LOAD (verifier and JIT), the "
		"smallest of %ld loads\n", loads[0].nloads[OFF]);
	fprintf(o, "%-34s %5s %10s %10s %6s %10s %6s %10s %6s\n", "program", "BPF", "off",
		"outline", "x", "unmerged", "x", "inline", "x");
	for (i = 0; i < nloads; i++)
		if (!strcmp(loads[i].obj, "bench") && prog_idx(loads[i].prog) >= 0)
			load_row(o, i);
	for (i = 0; i < nloads; i++)
		if (strcmp(loads[i].obj, "bench"))
			load_row(o, i);
	fprintf(o, "(BPF: the program's BPF instructions as loaded; x: ratio to off; corpus "
		"programs as object:program)\ngeometric mean of the load cost's ratio to off:\n");
	load_mean(o, "benchmark suite", L_SUITE, NULL);
	for (i = 0; i < nloads; i++) {
		for (j = 0; j < i && strcmp(loads[j].obj, loads[i].obj); j++)
			;
		if (j == i && strcmp(loads[i].obj, "bench"))
			load_mean(o, loads[i].obj, L_OBJ, loads[i].obj);
	}
	load_mean(o, "corpus (all objects)", L_CORPUS, NULL);
	g = load_geomean(INLINE, L_CORPUS, NULL, &n);
	if (n)
		fprintf(o, "goal, inline <= 1.10x off over the corpus: %.3fx, %s\n", g,
			g <= 1.10 ? "met" : "missed");
}

/* The whole system: each traced workload in each mode. */
static void system_table(FILE *o)
{
	int w, m;

	for (w = 0; w < NWL; w++) {
		const struct sysfig *f = sysf[w];

		fprintf(o, "\nwhole system: %s\n", wld[w].title);
		fprintf(o, "%-10s %9s %9s %9s %8s %8s %8s\n", "mode", "bare", "traced", "program",
			"x bare", "x traced", "x prog");
		for (m = 0; m < NALL; m++)
			if (shown(m))
				fprintf(o, "%-10s %9.0f %9.0f %9.0f %8.3f %8.3f %8.3f\n", label[m],
					f[m].bare, f[m].traced, f[m].traced - f[m].bare,
					f[m].traced / f[m].bare, sys_ratio(w, m),
					(f[m].traced - f[m].bare) / (f[OFF].traced - f[OFF].bare));
		fprintf(o, "(instructions per %s, the smallest pass; bare: nothing attached; "
			"program: traced - bare; x bare: traced / bare;\n x traced, x prog: ratio "
			"to off's; interp: the museum's kernel, JIT off, its own bare %s;\n "
			"museum-off: the museum's kernel, JIT on, checks off)\n", wld[w].unit,
			wld[w].unit);
	}
	fprintf(o, "goal, inline <= 1.03x off for the datagrams over lo: %.3fx, %s (outline "
		"%.3fx, unmerged %.3fx)\n", sys_ratio(W_NET, INLINE),
		sys_ratio(W_NET, INLINE) <= 1.03 ? "met" : "missed", sys_ratio(W_NET, OUTLINE),
		sys_ratio(W_NET, UNMERGED));
}

/* Instructions per run against the interpreter's (the -i boot). */
static void interp_table(FILE *o)
{
	int p;

	fprintf(o, "\ninterpreter (JIT off, the museum's kernel, its C built with outline "
		"KASAN): instructions per run\n");
	fprintf(o, "%-16s %9s %9s %9s %8s %8s", "program", "interp", "off", "inline", "off/int",
		"inl/int");
	if (have_moff)
		fprintf(o, " %9s %8s %8s", "mus-off", "mus/int", "mus/off");
	fprintf(o, "\n");
	for (p = 0; p < NPROGS; p++) {
		fprintf(o, "%-16s %9.0f %9.0f %9.0f %8.3f %8.3f", progs[p], fig[p][INTERP].insns,
			fig[p][OFF].insns, fig[p][INLINE].insns, interp_ratio(p, OFF),
			interp_ratio(p, INLINE));
		if (have_moff)
			fprintf(o, " %9.0f %8.3f %8.3f", fig[p][MOFF].insns, interp_ratio(p, MOFF),
				fig[p][MOFF].insns / fig[p][OFF].insns);
		fprintf(o, "\n");
	}
	fprintf(o, "(int: the interpreter; off, inline: the series' kernel (C with inline KASAN)%s)\n",
		have_moff ? "; mus-off: the museum's kernel with the JIT on, checks off" : "");
	fprintf(o, "suite geometric mean against the interpreter (%d programs): inline %.3fx, "
		"off %.3fx (the interpreter %.2f times inline's instructions)\n", NREAL,
		interp_geomean(INLINE), interp_geomean(OFF), 1 / interp_geomean(INLINE));
	if (have_moff)
		fprintf(o, "  on the museum's kernel alone: JIT (checks off) %.3fx the interpreter; "
			"the same JITed programs there %.3fx the series' off (outline KASAN in the C "
			"around them)\n", interp_geomean(MOFF), interp_geomean(MOFF) / interp_geomean(OFF));
}

static void table(FILE *o)
{
	int p, m;

	fprintf(o, "%-16s %8s %8s %6s %8s %6s %8s %6s %7s %7s %7s %6s %6s %6s\n", "program",
		"off", "outline", "x", "unmerged", "x", "inline", "x", "access", "checks",
		"checks", "+/acc", "+/acc", "+/acc");
	fprintf(o, "%-16s %8s %8s %6s %8s %6s %8s %6s %7s %7s %7s %6s %6s %6s\n", "", "insns",
		"insns", "", "insns", "", "insns", "", "/run", "unm/run", "inl/run", "outl",
		"unm", "inl");
	for (p = 0; p < NPROGS; p++) {
		fprintf(o, "%-16s %8.0f", progs[p], fig[p][OFF].insns);
		for (m = OUTLINE; m < NMODES; m++)
			fprintf(o, " %8.0f %6.3f", fig[p][m].insns, ratio(p, m));
		fprintf(o, " %7.1f %7.1f %7.1f", checks_run(p), executed_run(p, UNMERGED),
			executed_run(p, INLINE));
		for (m = OUTLINE; m < NMODES; m++)
			fprintf(o, " %6.2f", added_per_check(p, m));
		fprintf(o, "\n");
	}
	fprintf(o, "\n%-16s %6s %6s %6s %6s %7s %7s %7s %7s %7s\n", "program", "B off", "B out",
		"B unm", "B inl", "chk", "chk", "B/chk", "B/chk", "B/chk");
	fprintf(o, "%-16s %6s %6s %6s %6s %7s %7s %7s %7s %7s\n", "", "", "", "", "", "unm img",
		"inl img", "outl", "unm", "inl");
	for (p = 0; p < NPROGS; p++) {
		fprintf(o, "%-16s", progs[p]);
		for (m = 0; m < NMODES; m++)
			fprintf(o, " %6ld", fig[p][m].bytes);
		fprintf(o, " %7ld %7ld", fig[p][UNMERGED].static_checks,
			fig[p][INLINE].static_checks);
		for (m = OUTLINE; m < NMODES; m++)
			fprintf(o, " %7.1f", bytes_per_check(p, m));
		fprintf(o, "\n");
	}
	fprintf(o, "(x: ratio to off; unmerged: inline, bpf_jit_kasan_merge=0; access/run: checked "
		"accesses per run, counted in the outline boot;\n checks/run: checks executed per "
		"run (breakpoints on each inline check); +/acc: (mode - off) instructions / "
		"access/run;\n B: JIT image bytes, all subprograms; chk img: checks in the image; "
		"B/chk: (mode - off) bytes / chk img)\n");
	fprintf(o, "\nsuite geometric mean of the ratio to off (%d programs): "
		"inline %.3fx, unmerged %.3fx, outline %.3fx\n", NREAL, geomean(INLINE),
		geomean(UNMERGED), geomean(OUTLINE));
	fprintf(o, "microbenchmark, added instructions per aligned 8-byte load "
		"(%d loads, micro - micro0): inline %.2f, unmerged %.2f, outline %.2f\n", N_MICRO,
		micro_per_access(INLINE), micro_per_access(UNMERGED), micro_per_access(OUTLINE));
	fprintf(o, "  the same without micro0, (micro - off) / %d: inline %.2f, unmerged %.2f, "
		"outline %.2f\n", N_MICRO,
		(fig[MICRO][INLINE].insns - fig[MICRO][OFF].insns) / N_MICRO,
		(fig[MICRO][UNMERGED].insns - fig[MICRO][OFF].insns) / N_MICRO,
		(fig[MICRO][OUTLINE].insns - fig[MICRO][OFF].insns) / N_MICRO);
	fprintf(o, "  check of ns = instructions: in off mode a load and its xor are 2 x86 "
		"instructions; measured (micro - micro0) / %d = %.3f\n", N_MICRO,
		(fig[MICRO][OFF].insns - fig[MICRO0][OFF].insns) / N_MICRO);
	fprintf(o, "inline slow-path entries per run, unmerged/merged (0 = every check took the "
		"fast path):");
	for (p = 0; p < NPROGS; p++)
		fprintf(o, " %s %.0f/%.0f", progs[p], fig[p][UNMERGED].slow_run,
			fig[p][INLINE].slow_run);
	fprintf(o, "\nruns: repeat x passes = %ld x %ld requested per program and mode, in passes "
		"of at most 1M instructions;\ninstructions per run: the smallest pass (interrupts "
		"only add); largest spread between passes: %.3f%%\n", fig[0][OFF].req_repeat,
		fig[0][OFF].req_passes, spread());
	load_table(o);
	system_table(o);
	if (have_interp)
		interp_table(o);
}

/* The largest (max - min) / median over the passes of any program and mode. */
static double spread(void)
{
	double w = 0;
	int p, m;

	for (p = 0; p < NPROGS; p++)
		for (m = 0; m < NMODES; m++)
			if (fig[p][m].insns > 0)
				w = fmax(w, (fig[p][m].insns_max - fig[p][m].insns_min) /
					    fig[p][m].insns * 100);
	return w;
}

static FILE *create(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	return f;
}

static void num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.4f", v);
	else
		fprintf(f, "null");
}

/* load.csv, load.dat and the JSON's "load" (the caller's @j, open). */
static void load_files(const char *dir, FILE *j)
{
	FILE *c = create(dir, "load.csv"), *d = create(dir, "load.dat");
	static const struct { const char *name; enum lsel sel; } means[] = {
		{ "suite", L_SUITE }, { "corpus", L_CORPUS },
	};
	int i, m, k, n;

	fprintf(c, "object,program,bpf_insns,mode,loads,insns_min,insns_max,ratio_to_off\n");
	fprintf(j, "  \"load\": {\n    \"programs\": [\n");
	for (i = 0; i < nloads; i++) {
		fprintf(j, "      {\"object\": \"%s\", \"program\": \"%s\", \"bpf_insns\": %ld",
			loads[i].obj, loads[i].prog, loads[i].bpf_insns);
		for (m = 0; m < NMODES; m++) {
			fprintf(c, "%s,%s,%ld,%s,%ld,%.0f,%.0f,%.4f\n", loads[i].obj, loads[i].prog,
				loads[i].bpf_insns, modes[m], loads[i].nloads[m], loads[i].insns[m],
				loads[i].insns_max[m], load_ratio(i, m));
			fprintf(j, ", \"%s\": {\"insns\": %.0f, \"ratio_to_off\": %.4f}", modes[m],
				loads[i].insns[m], load_ratio(i, m));
		}
		fprintf(j, "}%s\n", i + 1 < nloads ? "," : "");
		if (load_is_suite(i))
			fprintf(d, "%s %.4f %.4f %.4f\n", loads[i].prog, load_ratio(i, OUTLINE),
				load_ratio(i, UNMERGED), load_ratio(i, INLINE));
	}
	fprintf(j, "    ]");
	for (k = 0; k < 2; k++) {
		double g[NMODES];

		for (m = OUTLINE; m < NMODES; m++)
			g[m] = load_geomean(m, means[k].sel, NULL, &n);
		if (!n)
			continue;
		fprintf(j, ",\n    \"geomean_%s\": {\"programs\": %d, \"outline\": %.4f, "
			"\"unmerged\": %.4f, \"inline\": %.4f}", means[k].name, n, g[OUTLINE],
			g[UNMERGED], g[INLINE]);
		fprintf(d, "geomean(%s) %.4f %.4f %.4f\n", means[k].name, g[OUTLINE], g[UNMERGED],
			g[INLINE]);
	}
	fprintf(j, "\n  },\n");
	fclose(c);
	fclose(d);
}

/* The JSON's "system" (getppid()) and "net" (datagrams over lo). */
static void system_files(FILE *j)
{
	int w, m;

	for (w = 0; w < NWL; w++) {
		fprintf(j, "  \"%s\": {", wld[w].json);
		for (m = 0; m < NALL; m++)
			if (shown(m))
				fprintf(j, "%s\n    \"%s\": {\"bare_insns\": %.0f, \"traced_insns\": "
					"%.0f, \"traced_ratio_to_off\": %.4f}", m ? "," : "", label[m],
					sysf[w][m].bare, sysf[w][m].traced, sys_ratio(w, m));
		fprintf(j, "\n  }%s\n", have_interp || w + 1 < NWL ? "," : "");
	}
}

/*
 * system.csv and system.dat: each whole-system workload, bare and traced,
 * per mode, and for the chart its traced cost over off's.
 */
static void system_csv(const char *dir)
{
	FILE *c = create(dir, "system.csv"), *d = create(dir, "system.dat");
	int w, m;

	fprintf(c, "workload,mode,bare_insns,traced_insns,traced_ratio_to_off\n");
	for (w = 0; w < NWL; w++) {
		for (m = 0; m < NALL; m++)
			if (shown(m))
				fprintf(c, "%s,%s,%.0f,%.0f,%.4f\n", wld[w].json, label[m],
					sysf[w][m].bare, sysf[w][m].traced, sys_ratio(w, m));
		fprintf(d, "%s %.4f %.4f %.4f\n", wld[w].json, sys_ratio(w, OUTLINE),
			sys_ratio(w, UNMERGED), sys_ratio(w, INLINE));
	}
	fclose(c);
	fclose(d);
}

/* interp.csv, interp.dat and the JSON's "interp", with -i. */
static void interp_files(const char *dir, FILE *j)
{
	FILE *c, *d;
	int p;

	if (!have_interp)
		return;
	c = create(dir, "interp.csv");
	d = create(dir, "interp.dat");
	fprintf(c, "program,interp_insns,off_insns,inline_insns,off_over_interp,"
		"inline_over_interp\n");
	fprintf(j, "  \"interp\": {\n    \"programs\": [\n");
	for (p = 0; p < NPROGS; p++) {
		fprintf(c, "%s,%.0f,%.0f,%.0f,%.4f,%.4f\n", progs[p], fig[p][INTERP].insns,
			fig[p][OFF].insns, fig[p][INLINE].insns, interp_ratio(p, OFF),
			interp_ratio(p, INLINE));
		fprintf(j, "      {\"program\": \"%s\", \"interp_insns\": %.0f, "
			"\"off_over_interp\": %.4f, \"inline_over_interp\": %.4f}%s\n", progs[p],
			fig[p][INTERP].insns, interp_ratio(p, OFF), interp_ratio(p, INLINE),
			p + 1 < NPROGS ? "," : "");
		if (p < NREAL)
			fprintf(d, "%s %.4f %.4f\n", progs[p], 1 / interp_ratio(p, OFF),
				1 / interp_ratio(p, INLINE));
	}
	fprintf(d, "geomean(%d) %.4f %.4f\n", NREAL, 1 / interp_geomean(OFF),
		1 / interp_geomean(INLINE));
	fprintf(j, "    ],\n    \"geomean\": {\"off_over_interp\": %.4f, "
		"\"inline_over_interp\": %.4f}\n  }\n", interp_geomean(OFF), interp_geomean(INLINE));
	fclose(c);
	fclose(d);
}

static void write_files(const char *dir)
{
	FILE *c = create(dir, "bench.csv"), *j = create(dir, "bench.json");
	FILE *d = create(dir, "bench.dat"), *g = create(dir, "bench.gp");
	int p, m;

	fprintf(c, "program,mode,insns_per_run,insns_min,insns_max,ratio_to_off,"
		"accesses_per_run,checks_executed_per_run,added_insns_per_access,image_bytes,"
		"image_checks,bytes_per_check,slow_path_per_run\n");
	fprintf(j, "{\n  \"programs\": [\n");
	for (p = 0; p < NPROGS; p++) {
		fprintf(j, "    {\"program\": \"%s\", \"accesses_per_run\": ", progs[p]);
		num(j, checks_run(p));
		fprintf(j, ", \"modes\": {");
		for (m = 0; m < NMODES; m++) {
			const struct fig *x = &fig[p][m];
			double add = m ? added_per_check(p, m) : 0, bpc = m ? bytes_per_check(p, m) : 0;

			fprintf(c, "%s,%s,%.0f,%.0f,%.0f,%.4f,%.3f,%.3f,", progs[p], modes[m],
				x->insns, x->insns_min, x->insns_max, ratio(p, m), checks_run(p),
				x->checks_run);
			if (isfinite(add))
				fprintf(c, "%.4f", add);
			fprintf(c, ",%ld,%ld,", x->bytes, x->static_checks);
			if (isfinite(bpc))
				fprintf(c, "%.4f", bpc);
			fprintf(c, ",%.3f\n", x->slow_run);
			fprintf(j, "%s\n      \"%s\": {\"insns_per_run\": %.0f, \"insns_min\": %.0f, "
				"\"insns_max\": %.0f, \"ratio_to_off\": ", m ? "," : "", modes[m],
				x->insns, x->insns_min, x->insns_max);
			num(j, ratio(p, m));
			fprintf(j, ", \"checks_executed_per_run\": %.3f, \"added_insns_per_access\": ",
				x->checks_run);
			num(j, add);
			fprintf(j, ", \"image_bytes\": %ld, \"image_checks\": %ld, "
				"\"bytes_per_check\": ", x->bytes, x->static_checks);
			num(j, bpc);
			fprintf(j, ", \"slow_path_per_run\": %.3f}", x->slow_run);
		}
		fprintf(j, "}}%s\n", p + 1 < NPROGS ? "," : "");
		if (p < NREAL || p == MICRO)
			fprintf(d, "%s %.4f %.4f %.4f\n", progs[p], ratio(p, OUTLINE),
				ratio(p, UNMERGED), ratio(p, INLINE));
	}
	fprintf(j, "  ],\n  \"geomean_ratio\": {\"outline\": %.4f, \"unmerged\": %.4f, "
		"\"inline\": %.4f},\n", geomean(OUTLINE), geomean(UNMERGED), geomean(INLINE));
	fprintf(j, "  \"micro_added_insns_per_access\": {\"outline\": %.4f, \"unmerged\": %.4f, "
		"\"inline\": %.4f},\n", micro_per_access(OUTLINE), micro_per_access(UNMERGED),
		micro_per_access(INLINE));
	fprintf(j, "  \"repeat\": %ld, \"passes\": %ld, \"max_spread_percent\": %.4f,\n",
		fig[0][OFF].req_repeat, fig[0][OFF].req_passes, spread());
	load_files(dir, j);
	system_files(j);
	system_csv(dir);
	interp_files(dir, j);
	fprintf(j, "}\n");
	fprintf(d, "geomean(%d) %.4f %.4f %.4f\n", NREAL, geomean(OUTLINE), geomean(UNMERGED),
		geomean(INLINE));
	fprintf(g, "set terminal pngcairo size 1000,500 noenhanced\n"
		"set output '%s/bench.png'\n"
		"set title 'KASAN checks in JITed BPF: guest instructions per run, ratio to off "
		"(QEMU -icount)'\n"
		"set style data histogram\nset style histogram clustered gap 1\n"
		"set style fill solid 0.8 border -1\nset boxwidth 0.9\n"
		"set yrange [0:*]\nset grid ytics\nset ylabel 'instructions / off'\n"
		"set xtics rotate by -20\nset key top left\n"
		"plot '%s/bench.dat' using 2:xtic(1) title 'outline', '' using 3 title 'inline, "
		"unmerged', '' using 4 title 'inline', 1 with lines lc rgb 'black' dt 2 notitle\n", dir, dir);
	fprintf(g, "set output '%s/load.png'\n"
		"set title 'KASAN checks in JITed BPF: guest instructions per program load (verifier "
		"and JIT), ratio to off'\nset yrange [0.9:*]\nset ylabel 'load instructions / off'\n"
		"plot '%s/load.dat' using 2:xtic(1) title 'outline', '' using 3 title 'inline, "
		"unmerged', '' using 4 title 'inline', 1 with lines lc rgb 'black' dt 2 notitle\n", dir, dir);
	fprintf(g, "set output '%s/system.png'\n"
		"set title 'The whole system: instructions per getppid() and per datagram, "
		"traced, ratio to off'\nset yrange [0.9:*]\nset ylabel 'instructions / off'\n"
		"plot '%s/system.dat' using 2:xtic(1) title 'outline', '' using 3 title 'inline, "
		"unmerged', '' using 4 title 'inline', 1 with lines lc rgb 'black' dt 2 notitle\n",
		dir, dir);
	if (have_interp)
		fprintf(g, "set output '%s/interp.png'\n"
			"set title 'The interpreter (JIT off, museum kernel, outline KASAN C): its "
			"instructions per run over the JIT'\nset logscale y\nset yrange [1:*]\n"
			"set ylabel 'interpreter / JIT (log)'\n"
			"plot '%s/interp.dat' using 2:xtic(1) title 'over the JIT, checks off', '' using 3 "
			"title 'over the JIT, inline checks'\n", dir, dir);
	fclose(c);
	fclose(j);
	fclose(d);
	fclose(g);
}

/* Worst relative difference of any instruction count against an earlier CSV. */
static int compare(const char *path)
{
	char line[1024], prog[64], mode[32];
	double insns, worst = 0;
	const char *wp = "", *wm = "";
	FILE *f = fopen(path, "r");
	int n = 0, p, m;

	if (!f) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *q;

		for (q = line; *q; q++)
			if (*q == ',')
				*q = ' ';
		if (sscanf(line, "%63s %31s %lf", prog, mode, &insns) != 3)
			continue;
		p = prog_idx(prog);
		for (m = 0; m < NMODES && strcmp(modes[m], mode); m++)
			;
		if (p < 0 || m == NMODES || !fig[p][m].have)
			continue;
		n++;
		if (fabs(fig[p][m].insns - insns) / insns * 100 >= worst) {
			worst = fabs(fig[p][m].insns - insns) / insns * 100;
			wp = progs[p];
			wm = modes[m];
		}
	}
	fclose(f);
	printf("repeatability against %s: %d instruction counts compared, worst difference "
	       "%.3f%% (%s, %s)%s\n", path, n, worst, wp, wm,
	       worst <= 2 ? "" : ": more than 2% (a changed kernel or program, or a problem)");
	return worst <= 2 && n == NPROGS * NMODES ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *dir = NULL, *prev = NULL, *log[NALL] = { 0 };
	int opt, quiet = 0, m, rc = 0, n;

	while ((opt = getopt(argc, argv, "qo:C:")) != -1) {
		switch (opt) {
		case 'q': quiet = 1; break;
		case 'o': dir = optarg; break;
		case 'C': prev = optarg; break;
		default:
			goto usage;
		}
	}
	for (; optind < argc; optind++) {
		const char *eq = strchr(argv[optind], '=');

		for (m = 0; eq && m < NALL; m++)
			if (strlen(label[m]) == (size_t)(eq - argv[optind]) &&
			    !strncmp(argv[optind], label[m], eq - argv[optind]))
				break;
		if (!eq || m == NALL || log[m]) {
			fprintf(stderr, "bjk-bench-report: %s: want MODE=CONSOLE, each MODE once\n",
				argv[optind]);
			goto usage;
		}
		log[m] = eq + 1;
	}
	/* Status 2 when a boot is missing: its check then skips, not fails. */
	for (m = 0; m < NALL; m++)
		if (!log[m] && (m < NMODES || (m == INTERP && log[MOFF]))) {
			fprintf(stderr, "bjk-bench-report: no console of mode %s\n", label[m]);
			return 2;
		}
	have_interp = !!log[INTERP];
	have_moff = !!log[MOFF];
	for (m = 0; m < NALL; m++)
		if (log[m])
			read_log(log[m], m);
	check();
	if (errors) {
		printf("error: %d problem(s) with the benchmark's figures (above)\n", errors);
		return 1;
	}
	if (!quiet)
		table(stdout);
	else
		printf("figures complete: %d programs x %d modes; geomean ratio inline %.3f, "
		       "unmerged %.3f, outline %.3f; micro per access inline %.2f, unmerged %.2f, "
		       "outline %.2f\n", NPROGS, NMODES, geomean(INLINE), geomean(UNMERGED),
		       geomean(OUTLINE), micro_per_access(INLINE), micro_per_access(UNMERGED),
		       micro_per_access(OUTLINE));
	if (quiet)
		printf("load cost complete: %d programs x %d modes; geomean ratio of the suite's "
		       "loads inline %.3f, unmerged %.3f, outline %.3f\n", nloads, NMODES,
		       load_geomean(INLINE, L_SUITE, NULL, &n),
		       load_geomean(UNMERGED, L_SUITE, NULL, &n),
		       load_geomean(OUTLINE, L_SUITE, NULL, &n));
	for (n = 0; quiet && n < NWL; n++)
		printf("whole system, %s: traced per %s inline %.3f, unmerged %.3f, outline %.3f "
		       "of off's\n", wld[n].json, wld[n].unit, sys_ratio(n, INLINE),
		       sys_ratio(n, UNMERGED), sys_ratio(n, OUTLINE));
	if (quiet && have_interp)
		printf("interpreter complete: %d programs; geomean ratio of inline to the "
		       "interpreter %.3f\n", NPROGS, interp_geomean(INLINE));
	if (dir) {
		FILE *t = create(dir, "table.txt");

		table(t);
		fclose(t);
		write_files(dir);
	}
	/* Informational: the previous run may be of another kernel or program. */
	if (prev)
		compare(prev);
	return rc;
usage:
	fprintf(stderr, "usage: %s [-q] [-o OUTDIR] [-C PREVIOUS.csv] off=CONSOLE outline=CONSOLE "
		"unmerged=CONSOLE inline=CONSOLE [interp=CONSOLE [museum-off=CONSOLE]]\n", argv[0]);
	return 2;
}
