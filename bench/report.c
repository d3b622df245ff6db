// SPDX-License-Identifier: GPL-2.0
/*
 * bjk-bench-report: the benchmark's figures from the consoles of its four
 * boots (off, outline, inline with merging off: "unmerged", inline), on the
 * host.
 *
 *   bjk-bench-report [-q] [-o OUTDIR] [-C PREVIOUS.csv] OFF.log OUTLINE.log
 *                    UNMERGED.log INLINE.log
 *
 * Reads the BJK-BENCH lines bench/runner.c printed and derives, per
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
 * Prints the table; with -o writes OUTDIR/bench.{csv,json} and the
 * gnuplot input OUTDIR/bench.dat and OUTDIR/bench.gp. With -C compares the
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

enum { OFF, OUTLINE, UNMERGED, INLINE, NMODES };
static const char *const modes[NMODES] = { "off", "outline", "unmerged", "inline" };

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

static struct fig fig[NPROGS][NMODES];
static int errors;

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

static double ratio(int p, int m)
{
	return fig[p][m].insns / fig[p][OFF].insns;
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

static double geomean(int m)
{
	double s = 0;
	int p;

	for (p = 0; p < NREAL; p++)
		s += log(ratio(p, m));
	return exp(s / NREAL);
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
}

static double spread(void);

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
	fprintf(j, "  \"repeat\": %ld, \"passes\": %ld, \"max_spread_percent\": %.4f\n}\n",
		fig[0][OFF].req_repeat, fig[0][OFF].req_passes, spread());
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
	const char *dir = NULL, *prev = NULL;
	int opt, quiet = 0, m, rc = 0;

	while ((opt = getopt(argc, argv, "qo:C:")) != -1) {
		switch (opt) {
		case 'q': quiet = 1; break;
		case 'o': dir = optarg; break;
		case 'C': prev = optarg; break;
		default:
			goto usage;
		}
	}
	if (argc - optind != NMODES)
		goto usage;
	for (m = 0; m < NMODES; m++)
		read_log(argv[optind + m], m);
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
	fprintf(stderr, "usage: %s [-q] [-o OUTDIR] [-C PREVIOUS.csv] OFF.log OUTLINE.log "
		"UNMERGED.log INLINE.log\n", argv[0]);
	return 2;
}
