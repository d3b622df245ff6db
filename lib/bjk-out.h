/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The output of the guest's test programs (KTAP, "#" notes, BJK-* lines):
 * after bjk_out_to_kmsg(), one /dev/kmsg record per call, so that it sits
 * in order among the kernel's own messages on the console (where the
 * harness reads it); otherwise, or if the record cannot be written, a line
 * on stdout.
 *
 * Header only: each user is a single C file (static, built for the guest).
 */
#ifndef BJK_OUT_H
#define BJK_OUT_H

#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int bjk_out_fd = -1;

static inline void bjk_out_to_kmsg(void)
{
	bjk_out_fd = open("/dev/kmsg", O_WRONLY);
}

static void bjk_out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void bjk_out(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n >= (int)sizeof(buf) - 1)
		n = sizeof(buf) - 2;
	/*
	 * One record per call, ended by a newline: without it the kernel keeps
	 * the record open for a continuation, and a reader of /dev/kmsg (the
	 * decoder's watch) sees it only when the next record comes.
	 */
	buf[n] = '\n';
	if (bjk_out_fd >= 0 && write(bjk_out_fd, buf, n + 1) == n + 1)
		return;
	buf[n] = '\0';
	printf("%s\n", buf);
	fflush(stdout);
}

/*
 * A suite's KTAP cases, numbered and counted as they are printed:
 * "ok N PREFIXNAME # note" or "not ok ..."; bjk_totals() ends the suite.
 */
static int bjk_ntests, bjk_nfail;

static inline void bjk_case(bool ok, const char *prefix, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static inline void bjk_case(bool ok, const char *prefix, const char *name, const char *fmt, ...)
{
	char note[700];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(note, sizeof(note), fmt, ap);
	va_end(ap);
	bjk_ntests++;
	bjk_nfail += !ok;
	bjk_out("%s %d %s%s # %s", ok ? "ok" : "not ok", bjk_ntests, prefix, name, note);
}

/* The kselftest totals line; the suite's exit status. */
static inline int bjk_totals(void)
{
	bjk_out("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0",
		bjk_ntests - bjk_nfail, bjk_nfail);
	return bjk_nfail ? 1 : 0;
}

#ifdef __LIBBPF_LIBBPF_H
/*
 * libbpf's messages as "# libbpf:" notes among the program's own
 * (libbpf_set_print(bjk_libbpf_print)); its debug chatter is dropped.
 */
static inline int bjk_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char buf[512];
	size_t n;

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	bjk_out("# libbpf: %s", buf);
	return 0;
}
#endif

#endif /* BJK_OUT_H */
