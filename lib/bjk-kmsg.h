/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading the kernel's messages as they come, from /dev/kmsg: the e2e
 * runner reads the reports of each case's run, bjk-decode's watch the
 * reports of whatever its command runs. Each read() gives one record,
 * "<prefix>;<message>\n" followed by the record's dictionary lines (" KEY=
 * value"); a reader is non-blocking and stops when there is none left.
 *
 * Header only: each user is a single C file (static, built for the guest).
 */
#ifndef BJK_KMSG_H
#define BJK_KMSG_H

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

struct bjk_kmsg {
	int fd;
	char rec[8192];		/* the last record read */
};

/* From here on: the records written after this call. */
static inline void bjk_kmsg_skip(struct bjk_kmsg *k)
{
	lseek(k->fd, 0, SEEK_END);
}

/* 0, or -1 with errno. Only records written from now on are read. */
static inline int bjk_kmsg_open(struct bjk_kmsg *k)
{
	k->fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (k->fd < 0)
		return -1;
	bjk_kmsg_skip(k);
	return 0;
}

/*
 * The message of the next record (in k->rec, cut at its first line end),
 * or NULL when there is none yet. A record the kernel overwrote before it
 * was read makes read() fail with EPIPE once, and the next read gives the
 * oldest one left: a reader that falls behind loses records, not its place.
 */
static inline char *bjk_kmsg_next(struct bjk_kmsg *k)
{
	char *msg, *nl;
	ssize_t len;

	for (;;) {
		len = read(k->fd, k->rec, sizeof(k->rec) - 1);
		if (len < 0 && errno == EPIPE)
			continue;
		if (len <= 0)
			return NULL;
		k->rec[len] = '\0';
		msg = strchr(k->rec, ';');
		if (!msg)
			continue;
		msg++;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = '\0';
		return msg;
	}
}

#endif /* BJK_KMSG_H */
