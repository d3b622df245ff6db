// SPDX-License-Identifier: GPL-2.0
/*
 * bjk-fuzz: programs on disk (the format is in fuzz.h). Save is atomic
 * (PATH.tmp, then rename): a reader finds the file whole or not at all.
 * No fsync: what the fuzzer protects against is the guest dying, not the
 * host, and a guest's write to the host's directory (9p) is on the host
 * when write() returns; each fsync there would be one more round trip per
 * program. Load takes only what save writes (blank lines and "#"
 * comments aside) and fails with EINVAL on anything else.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

#define FZ_MAGIC	"bjk-fuzz program 1"

static bool fz_type_ok(uint32_t type)
{
	return type == BPF_PROG_TYPE_SOCKET_FILTER ||
	       type == BPF_PROG_TYPE_SCHED_CLS || type == BPF_PROG_TYPE_XDP;
}

void fz_prog_print(FILE *f, const struct fz_prog *p)
{
	uint32_t i;

	fprintf(f, FZ_MAGIC "\ntype %u\nseed 0x%llx\ndata", p->type,
		(unsigned long long)p->seed);
	if (p->data_len)
		fputc(' ', f);
	for (i = 0; i < p->data_len && i < FZ_MAX_DATA; i++)
		fprintf(f, "%02x", p->data[i]);
	fputc('\n', f);
	for (i = 0; i < p->len && i < FZ_MAX_INSNS; i++) {
		const struct bpf_insn *in = &p->insns[i];

		fprintf(f, "insn 0x%02x %u %u %d %d\n", in->code, in->dst_reg,
			in->src_reg, in->off, in->imm);
	}
}

int fz_prog_save(const char *path, const struct fz_prog *p)
{
	char tmp[PATH_MAX];
	FILE *f;
	int err;

	if (p->len == 0 || p->len > FZ_MAX_INSNS || p->data_len > FZ_MAX_DATA) {
		errno = EINVAL;
		return -1;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	f = fopen(tmp, "we");
	if (!f)
		return -1;
	errno = 0;
	fz_prog_print(f, p);
	if (fflush(f) || ferror(f)) {
		err = errno ? errno : EIO;
		fclose(f);
		goto fail;
	}
	if (fclose(f)) {
		err = errno;
		goto fail;
	}
	if (rename(tmp, path)) {
		err = errno;
		goto fail;
	}
	return 0;
fail:
	unlink(tmp);
	errno = err;
	return -1;
}

/* The next whitespace-separated word of *@s, or NULL at the end. */
static char *fz_word(char **s)
{
	char *w = *s + strspn(*s, " \t\r\n");
	char *e;

	if (!*w)
		return NULL;
	e = w + strcspn(w, " \t\r\n");
	if (*e)
		*e++ = '\0';
	*s = e;
	return w;
}

/* A number of the next word in [@min, @max] (strtoll's @base), or false. */
static bool fz_num(char **s, int base, long long min, long long max, long long *v)
{
	char *w = fz_word(s), *end;

	if (!w)
		return false;
	errno = 0;
	*v = strtoll(w, &end, base);
	return !errno && end != w && !*end && *v >= min && *v <= max;
}

static int fz_hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The data line's bytes: hex digit pairs, spaces allowed between bytes. */
static bool fz_parse_data(char *s, struct fz_prog *p)
{
	char *w;

	while ((w = fz_word(&s))) {
		for (; *w; w += 2) {
			int hi = fz_hex(w[0]), lo = hi < 0 ? -1 : fz_hex(w[1]);

			if (lo < 0 || p->data_len >= FZ_MAX_DATA)
				return false;
			p->data[p->data_len++] = hi << 4 | lo;
		}
	}
	return true;
}

static bool fz_parse_insn(char *s, struct fz_prog *p)
{
	struct bpf_insn *in;
	long long code, dst, src, off, imm;

	if (p->len >= FZ_MAX_INSNS ||
	    !fz_num(&s, 16, 0, 0xff, &code) || !fz_num(&s, 10, 0, 10, &dst) ||
	    !fz_num(&s, 10, 0, 10, &src) ||
	    !fz_num(&s, 10, SHRT_MIN, SHRT_MAX, &off) ||
	    !fz_num(&s, 10, INT_MIN, INT_MAX, &imm) || fz_word(&s))
		return false;
	in = &p->insns[p->len++];
	in->code = code;
	in->dst_reg = dst;
	in->src_reg = src;
	in->off = off;
	in->imm = imm;
	/* a map's imm indexes fz_maps[]: out of range it names nothing */
	return !fz_insn_is_map(in) || (in->imm >= 0 && in->imm < FZ_NMAPS);
}

/* One line (without "\n") in the order magic, type, seed, data, insn... */
static bool fz_parse_line(char *line, int *state, struct fz_prog *p)
{
	char *s = line, *w;
	long long v;

	if (*state == 0) {
		(*state)++;
		return !strcmp(line, FZ_MAGIC);
	}
	w = fz_word(&s);
	if (!w || *w == '#')
		return true;
	switch (*state) {
	case 1:
		(*state)++;
		if (strcmp(w, "type") || !fz_num(&s, 10, 0, UINT32_MAX, &v) || fz_word(&s))
			return false;
		p->type = v;
		return fz_type_ok(p->type);
	case 2: {
		char *end;

		(*state)++;
		if (strcmp(w, "seed"))
			return false;
		w = fz_word(&s);
		/* strtoull takes a sign: a seed has none */
		if (!w || *w == '-' || *w == '+' || fz_word(&s))
			return false;
		errno = 0;
		p->seed = strtoull(w, &end, 16);
		return !errno && end != w && !*end;
	}
	case 3:
		(*state)++;
		return !strcmp(w, "data") && fz_parse_data(s, p);
	default:
		return !strcmp(w, "insn") && fz_parse_insn(s, p);
	}
}

int fz_prog_load(const char *path, struct fz_prog *p)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int state = 0, err = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -1;
	memset(p, 0, sizeof(*p));
	while ((n = getline(&line, &cap, f)) >= 0) {
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		/* "end": what follows is not the program's (bjk-fuzz's current) */
		if (!strcmp(line, "end"))
			break;
		if (strlen(line) != (size_t)n ||
		    !fz_parse_line(line, &state, p)) {
			err = EINVAL;
			break;
		}
	}
	if (!err && ferror(f))
		err = EIO;
	/* the header whole, and at least one instruction */
	if (!err && (state < 4 || p->len == 0))
		err = EINVAL;
	free(line);
	fclose(f);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}
