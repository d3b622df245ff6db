// SPDX-License-Identifier: GPL-2.0
/*
 * bjk-fuzz: a finding as a C program anyone can build and run without the
 * fuzzer: raw bpf() calls, <linux/bpf.h> and libc only, every map and
 * every map value written out, so it does what the fuzzer did without
 * fz_maps[] or the seed's PRNG.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "fuzz.h"

static const char *fz_map_type_name(uint32_t type)
{
	switch (type) {
	case BPF_MAP_TYPE_ARRAY:	return "BPF_MAP_TYPE_ARRAY";
	case BPF_MAP_TYPE_HASH:		return "BPF_MAP_TYPE_HASH";
	case BPF_MAP_TYPE_LRU_HASH:	return "BPF_MAP_TYPE_LRU_HASH";
	case BPF_MAP_TYPE_PERCPU_ARRAY:	return "BPF_MAP_TYPE_PERCPU_ARRAY";
	case BPF_MAP_TYPE_LPM_TRIE:	return "BPF_MAP_TYPE_LPM_TRIE";
	case BPF_MAP_TYPE_RINGBUF:	return "BPF_MAP_TYPE_RINGBUF";
	case BPF_MAP_TYPE_PROG_ARRAY:	return "BPF_MAP_TYPE_PROG_ARRAY";
	}
	return NULL;
}

static const char *fz_prog_type_name(uint32_t type)
{
	switch (type) {
	case BPF_PROG_TYPE_SOCKET_FILTER:	return "BPF_PROG_TYPE_SOCKET_FILTER";
	case BPF_PROG_TYPE_SCHED_CLS:		return "BPF_PROG_TYPE_SCHED_CLS";
	case BPF_PROG_TYPE_XDP:			return "BPF_PROG_TYPE_XDP";
	}
	return NULL;
}

/*
 * Text inside the top comment, each line after " * " (the first one too
 * when @prev is '\n'). What could end the comment, open a nested one
 * (-Wcomment), or upset the compiler (control and non-ASCII bytes,
 * -Wbidi-chars) is made harmless.
 */
static void fz_comment_text(FILE *f, const char *s, int prev)
{
	for (; *s; prev = *s++) {
		int c = (unsigned char)*s;

		if (prev == '\n')
			fputs(c == '\n' ? " *" : " * ", f);
		if (c == '/' && prev == '*')
			fputs("\\/", f);
		else if (c == '*' && prev == '/')
			fputs(" *", f);
		else if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f))
			fputc(c, f);
		else
			fputc('.', f);
	}
	if (prev != '\n')
		fputc('\n', f);
}

/* KASAN reports in @console: what tools/vm -k expects. */
static int fz_kasan_reports(const char *console)
{
	const char *s = console;
	int n = 0;

	while (s && (s = strstr(s, "BUG: KASAN:"))) {
		n++;
		s++;
	}
	return n;
}

static void fz_bytes(FILE *f, const uint8_t *b, uint32_t n, const char *indent)
{
	uint32_t i;

	/* an empty initialiser is not C17 */
	if (!n)
		fprintf(f, "%s0\n", indent);
	for (i = 0; i < n; i++)
		fprintf(f, "%s0x%02x,%s", i % 12 ? "" : indent, b[i],
			i % 12 == 11 || i + 1 == n ? "\n" : " ");
}

static void fz_imm(FILE *f, int32_t imm)
{
	/* -2147483648 is the negation of a long, say it as an int */
	if (imm == INT_MIN)
		fputs("(-2147483647 - 1)", f);
	else
		fprintf(f, "%d", imm);
}

int fz_repro_write(FILE *f, const struct fz_prog *p, const char *title,
		   const char *console, const char *vlog)
{
	static struct bpf_func_info fi[FZ_BTF_MAX_FUNCS];
	static uint8_t btf[FZ_BTF_SIZE];
	int slot[FZ_NMAPS], used[FZ_NMAPS], nused = 0, nfix = 0, kasan, m, nbtf;
	uint32_t i, j, len = p->len, nfi;

	if (len == 0 || len > FZ_MAX_INSNS || p->data_len > FZ_MAX_DATA ||
	    !fz_prog_type_name(p->type)) {
		errno = EINVAL;
		return -1;
	}
	/* The maps the program names, in the order of fz_maps[]. */
	for (m = 0; m < FZ_NMAPS; m++)
		slot[m] = -1;
	for (i = 0; i < len; i++) {
		if (!fz_insn_is_map(&p->insns[i]))
			continue;
		if (p->insns[i].imm < 0 || p->insns[i].imm >= FZ_NMAPS) {
			errno = EINVAL;
			return -1;
		}
		slot[p->insns[i].imm] = 0;
		nfix++;
	}
	for (m = 0; m < FZ_NMAPS; m++) {
		if (slot[m] < 0)
			continue;
		if (!fz_map_type_name(fz_maps[m].type)) {
			errno = EINVAL;
			return -1;
		}
		slot[m] = nused;
		used[nused++] = m;
	}
	kasan = fz_kasan_reports(console);
	/*
	 * Subprograms: the BTF the fuzzer loaded it with. More than the
	 * kernel takes: none, the kernel refuses the program all the same.
	 */
	nbtf = fz_btf_build(p, btf, sizeof(btf), fi, &nfi);
	if (nbtf < 0)
		nbtf = 0;

	fputs("/*\n * bjk-fuzz reproducer: ", f);
	fz_comment_text(f, title && *title ? title : "(no title)", 0);
	fputs(" *\n"
	      " * A BPF program found by the verifier fuzzer of bpf-jit-kasan (tools/fuzz),\n"
	      " * on its own: it creates the maps the program names, fills them as the\n"
	      " * fuzzer did, loads the program (its verifier log on failure) and runs it\n"
	      " * once with BPF_PROG_TEST_RUN. Raw bpf() calls, no libbpf.\n"
	      " *\n * Console:\n", f);
	if (console && *console)
		fz_comment_text(f, console, '\n');
	else
		fputs(" * (none)\n", f);
	fputs(" *\n * Verifier log:\n", f);
	if (vlog && *vlog)
		fz_comment_text(f, vlog, '\n');
	else
		fputs(" * (none)\n", f);
	fprintf(f, " *\n"
		" * Build, and run in the patched kernel (from bpf-jit-kasan's top directory):\n"
		" *   gcc -static -O2 -o repro repro.c\n"
		" *   tools/vm -k %d -- ./repro\n"
		" * (-k: the number of KASAN reports expected, those of the console above)\n"
		" */\n", kasan);

	fputs("#include <errno.h>\n"
	      "#include <stdint.h>\n"
	      "#include <stdio.h>\n"
	      "#include <stdlib.h>\n"
	      "#include <string.h>\n"
	      "#include <unistd.h>\n"
	      "#include <sys/syscall.h>\n"
	      "#include <linux/bpf.h>\n"
	      "\n"
	      "struct map_def {\n"
	      "\tconst char *name;\n"
	      "\tuint32_t type, key_size, value_size, max_entries, flags;\n"
	      "\tconst uint8_t *keys, *values;\t/* max_entries of each; NULL: left empty */\n"
	      "};\n\n", f);

	/* Keys and values, element by element, as fz_map_key()/fz_map_value(). */
	for (j = 0; j < (uint32_t)nused; j++) {
		const struct fz_map *d = &fz_maps[used[j]];
		uint8_t buf[256];

		if (!fz_map_has_values(used[j]) || d->key_size > sizeof(buf) ||
		    d->value_size > sizeof(buf))
			continue;
		fprintf(f, "static const uint8_t %s_keys[%u * %u] = {\n", d->name,
			d->max_entries, d->key_size);
		for (i = 0; i < d->max_entries; i++) {
			memset(buf, 0, sizeof(buf));
			fz_map_key(used[j], i, buf);
			fz_bytes(f, buf, d->key_size, "\t");
		}
		fprintf(f, "};\n\nstatic const uint8_t %s_values[%u * %u] = {\n",
			d->name, d->max_entries, d->value_size);
		for (i = 0; i < d->max_entries; i++) {
			memset(buf, 0, sizeof(buf));
			fz_map_value(p->seed, used[j], i, buf);
			fprintf(f, "\t/* %u */\n", i);
			fz_bytes(f, buf, d->value_size, "\t");
		}
		fputs("};\n\n", f);
	}

	fprintf(f, "#define NMAPS %d\n", nused);
	fprintf(f, "static const struct map_def maps[NMAPS ? NMAPS : 1] = {\n");
	for (j = 0; j < (uint32_t)nused; j++) {
		const struct fz_map *d = &fz_maps[used[j]];

		fprintf(f, "\t{ \"%s\", %s, %u, %u, %u, %#x, ", d->name,
			fz_map_type_name(d->type), d->key_size, d->value_size,
			d->max_entries, d->flags);
		if (fz_map_has_values(used[j]))
			fprintf(f, "%s_keys, %s_values },\n", d->name, d->name);
		else
			fputs("NULL, NULL },\n", f);
	}
	if (!nused)
		fputs("\t{ 0 },\n", f);
	fputs("};\n\n", f);

	/* The instructions as the fuzzer had them: map imms are patched. */
	fputs("static struct bpf_insn insns[] = {\n", f);
	for (i = 0; i < len; i++) {
		const struct bpf_insn *in = &p->insns[i];

		fprintf(f, "\t{ .code = 0x%02x, .dst_reg = %u, .src_reg = %u, .off = %d, .imm = ",
			in->code, in->dst_reg, in->src_reg, in->off);
		fz_imm(f, in->imm);
		fprintf(f, " },\t/* %u", i);
		if (fz_insn_is_map(in))
			fprintf(f, ": map %s", fz_maps[in->imm].name);
		fputs(" */\n", f);
	}
	fputs("};\n\n", f);

	fprintf(f, "/* { insn, map }: the ld_imm64 insns that get the map's fd in imm */\n"
		"#define NFIX %d\n"
		"static const int fixups[NFIX ? NFIX : 1][2] = {\n", nfix);
	for (i = 0; i < len; i++)
		if (fz_insn_is_map(&p->insns[i]))
			fprintf(f, "\t{ %u, %d },\n", i, slot[p->insns[i].imm]);
	if (!nfix)
		fputs("\t{ 0 },\n", f);
	fputs("};\n\n", f);

	fprintf(f, "#define DATA_LEN %u\n"
		"static uint8_t data[DATA_LEN ? DATA_LEN : 1] = {\n", p->data_len);
	fz_bytes(f, p->data, p->data_len, "\t");
	fputs("};\n\n", f);

	if (nbtf) {
		fprintf(f, "/*\n"
			" * BTF: a static FUNC \"int (void)\" for each subprogram, and func_info\n"
			" * { insn_off, type_id } naming them: the verifier refuses a callback\n"
			" * (BPF_PSEUDO_FUNC) in a program without func_info.\n"
			" */\n"
			"static const uint8_t btf[%d] = {\n", nbtf);
		fz_bytes(f, btf, nbtf, "\t");
		fprintf(f, "};\n\nstatic const struct bpf_func_info func_info[%u] = {\n", nfi);
		for (i = 0; i < nfi; i++)
			fprintf(f, "\t{ %u, %u },\n", fi[i].insn_off, fi[i].type_id);
		fputs("};\n\nstatic int btf_fd;\n\n", f);
	}

	fprintf(f,
		"static char log_buf[1 << 20];\n"
		"\n"
		"static int sys_bpf(int cmd, union bpf_attr *attr)\n"
		"{\n"
		"\treturn syscall(__NR_bpf, cmd, attr, sizeof(*attr));\n"
		"}\n"
		"\n"
		"/* The kernel's num_possible_cpus(): the CPUs in the possible mask. */\n"
		"static unsigned int possible_cpus(void)\n"
		"{\n"
		"\tFILE *f = fopen(\"/sys/devices/system/cpu/possible\", \"r\");\n"
		"\tunsigned int a, b, n = 0;\n"
		"\tint c;\n"
		"\n"
		"\tif (!f) {\n"
		"\t\tperror(\"/sys/devices/system/cpu/possible\");\n"
		"\t\texit(1);\n"
		"\t}\n"
		"\twhile (fscanf(f, \"%%u\", &a) == 1) {\n"
		"\t\tb = a;\n"
		"\t\tc = fgetc(f);\n"
		"\t\tif (c == '-') {\n"
		"\t\t\tif (fscanf(f, \"%%u\", &b) != 1)\n"
		"\t\t\t\tbreak;\n"
		"\t\t\tc = fgetc(f);\n"
		"\t\t}\n"
		"\t\tn += b - a + 1;\n"
		"\t\tif (c != ',')\n"
		"\t\t\tbreak;\n"
		"\t}\n"
		"\tfclose(f);\n"
		"\tif (!n) {\n"
		"\t\tfprintf(stderr, \"cannot parse /sys/devices/system/cpu/possible\\n\");\n"
		"\t\texit(1);\n"
		"\t}\n"
		"\treturn n;\n"
		"}\n"
		"\n"
		"static int map_create(const struct map_def *d)\n"
		"{\n"
		"\tunion bpf_attr attr;\n"
		"\tint fd;\n"
		"\n"
		"\tmemset(&attr, 0, sizeof(attr));\n"
		"\tattr.map_type = d->type;\n"
		"\tattr.key_size = d->key_size;\n"
		"\tattr.value_size = d->value_size;\n"
		"\tattr.max_entries = d->max_entries;\n"
		"\tattr.map_flags = d->flags;\n"
		"\tstrncpy(attr.map_name, d->name, sizeof(attr.map_name) - 1);\n"
		"\tfd = sys_bpf(BPF_MAP_CREATE, &attr);\n"
		"\tif (fd < 0) {\n"
		"\t\tfprintf(stderr, \"map %%s: create: %%s\\n\", d->name, strerror(errno));\n"
		"\t\texit(1);\n"
		"\t}\n"
		"\treturn fd;\n"
		"}\n"
		"\n"
		"/* Element i: its key, and its value (on every CPU for a per-cpu map). */\n"
		"static void map_fill(int fd, const struct map_def *d)\n"
		"{\n"
		"\tunsigned int ncpus = 1, stride = d->value_size, cpu, i;\n"
		"\tunion bpf_attr attr;\n"
		"\tuint8_t *val;\n"
		"\n"
		"\tif (d->type == BPF_MAP_TYPE_PERCPU_ARRAY) {\n"
		"\t\tncpus = possible_cpus();\n"
		"\t\tstride = (d->value_size + 7) & ~7u;\n"
		"\t}\n"
		"\tval = calloc(ncpus, stride);\n"
		"\tif (!val) {\n"
		"\t\tperror(\"calloc\");\n"
		"\t\texit(1);\n"
		"\t}\n"
		"\tfor (i = 0; i < d->max_entries; i++) {\n"
		"\t\tfor (cpu = 0; cpu < ncpus; cpu++)\n"
		"\t\t\tmemcpy(val + cpu * stride, d->values + i * d->value_size, d->value_size);\n"
		"\t\tmemset(&attr, 0, sizeof(attr));\n"
		"\t\tattr.map_fd = fd;\n"
		"\t\tattr.key = (uintptr_t)(d->keys + i * d->key_size);\n"
		"\t\tattr.value = (uintptr_t)val;\n"
		"\t\tattr.flags = BPF_ANY;\n"
		"\t\tif (sys_bpf(BPF_MAP_UPDATE_ELEM, &attr)) {\n"
		"\t\t\tfprintf(stderr, \"map %%s: update %%u: %%s\\n\", d->name, i, strerror(errno));\n"
		"\t\t\texit(1);\n"
		"\t\t}\n"
		"\t}\n"
		"\tfree(val);\n"
		"}\n"
		"\n");
	if (nbtf)
		fputs("static int btf_load(void)\n"
		      "{\n"
		      "\tunion bpf_attr attr;\n"
		      "\tint fd;\n"
		      "\n"
		      "\tmemset(&attr, 0, sizeof(attr));\n"
		      "\tattr.btf = (uintptr_t)btf;\n"
		      "\tattr.btf_size = sizeof(btf);\n"
		      "\tattr.btf_log_buf = (uintptr_t)log_buf;\n"
		      "\tattr.btf_log_size = sizeof(log_buf);\n"
		      "\tattr.btf_log_level = 1;\n"
		      "\tfd = sys_bpf(BPF_BTF_LOAD, &attr);\n"
		      "\tif (fd < 0) {\n"
		      "\t\tfprintf(stderr, \"btf load: %s\\n\", strerror(errno));\n"
		      "\t\tfputs(log_buf, stderr);\n"
		      "\t\texit(1);\n"
		      "\t}\n"
		      "\tlog_buf[0] = 0;\n"
		      "\treturn fd;\n"
		      "}\n"
		      "\n", f);
	fprintf(f,
		"static int prog_load(uint32_t log_level)\n"
		"{\n"
		"\tunion bpf_attr attr;\n"
		"\n"
		"\tmemset(&attr, 0, sizeof(attr));\n"
		"\tattr.prog_type = %s;\n"
		"\tattr.insns = (uintptr_t)insns;\n"
		"\tattr.insn_cnt = sizeof(insns) / sizeof(insns[0]);\n"
		"\tattr.license = (uintptr_t)\"GPL\";\n"
		"\tattr.log_level = log_level;\n"
		"\tif (log_level) {\n"
		"\t\tattr.log_buf = (uintptr_t)log_buf;\n"
		"\t\tattr.log_size = sizeof(log_buf);\n"
		"\t}\n"
		"\tstrncpy(attr.prog_name, \"fz_repro\", sizeof(attr.prog_name) - 1);\n",
		fz_prog_type_name(p->type));
	if (nbtf)
		fputs("\tattr.prog_btf_fd = btf_fd;\n"
		      "\tattr.func_info = (uintptr_t)func_info;\n"
		      "\tattr.func_info_cnt = sizeof(func_info) / sizeof(func_info[0]);\n"
		      "\tattr.func_info_rec_size = sizeof(func_info[0]);\n", f);
	fprintf(f,
		"\treturn sys_bpf(BPF_PROG_LOAD, &attr);\n"
		"}\n"
		"\n"
		"int main(void)\n"
		"{\n"
		"\tint fds[NMAPS ? NMAPS : 1], i, prog;\n"
		"\tunion bpf_attr attr;\n"
		"\n"
		"\tfor (i = 0; i < NMAPS; i++) {\n"
		"\t\tfds[i] = map_create(&maps[i]);\n"
		"\t\tif (maps[i].values)\n"
		"\t\t\tmap_fill(fds[i], &maps[i]);\n"
		"\t}\n"
		"\tfor (i = 0; i < NFIX; i++)\n"
		"\t\tinsns[fixups[i][0]].imm = fds[fixups[i][1]];\n"
		"\n");
	if (nbtf)
		fputs("\tbtf_fd = btf_load();\n", f);
	fprintf(f,
		"\tprog = prog_load(1);\n"
		"\t/* a log longer than the buffer fails the load: load it without */\n"
		"\tif (prog < 0 && errno == ENOSPC) {\n"
		"\t\tfprintf(stderr, \"load: verifier log over %%zu bytes, loading without it\\n\",\n"
		"\t\t\tsizeof(log_buf));\n"
		"\t\tprog = prog_load(0);\n"
		"\t}\n"
		"\tif (prog < 0) {\n"
		"\t\tfprintf(stderr, \"load: %%s\\n\", strerror(errno));\n"
		"\t\tfputs(log_buf, stderr);\n"
		"\t\treturn 1;\n"
		"\t}\n"
		"\n"
		"\tmemset(&attr, 0, sizeof(attr));\n"
		"\tattr.test.prog_fd = prog;\n"
		"\tattr.test.data_in = (uintptr_t)data;\n"
		"\tattr.test.data_size_in = DATA_LEN;\n"
		"\tattr.test.repeat = 1;\n"
		"\tif (sys_bpf(BPF_PROG_TEST_RUN, &attr)) {\n"
		"\t\tfprintf(stderr, \"test run: %%s\\n\", strerror(errno));\n"
		"\t\treturn 1;\n"
		"\t}\n"
		"\tprintf(\"retval %%u\\n\", attr.test.retval);\n"
		"\treturn 0;\n"
		"}\n");

	return ferror(f) ? -1 : 0;
}
