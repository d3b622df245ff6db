// SPDX-License-Identifier: GPL-2.0
/*
 * kmsg-copy: the guest side of tools/vm's kernel messages. Copies every
 * record of /dev/kmsg, from the oldest one the buffer still holds, to FILE
 * until a record holds STOP, then writes "LOST <n>" to FILE.lost: the
 * records the kernel overwrote before they were read (found by the gaps in
 * their sequence numbers).
 *
 *   kmsg-copy FILE STOP
 *
 * `cat /dev/kmsg` stops at the first overwritten record (read() fails with
 * EPIPE): a command with a few dozen KASAN reports wraps the default 128 KiB
 * buffer faster than a reader that is not scheduled, and every record after
 * the gap was lost. Here EPIPE only counts: the next read() gives the oldest
 * record left, and the copy goes on. tools/vm boots with a log buffer large
 * enough that nothing is lost in practice, and fails when something was.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char rec[8192];
	unsigned long long seq, next = 0, lost = 0;
	char lostpath[4096];
	int fd, started = 0;
	ssize_t len;
	FILE *out, *f;

	if (argc != 3) {
		fprintf(stderr, "usage: kmsg-copy FILE STOP\n");
		return 2;
	}
	fd = open("/dev/kmsg", O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "kmsg-copy: /dev/kmsg: %s\n", strerror(errno));
		return 2;
	}
	out = fopen(argv[1], "w");
	if (!out) {
		fprintf(stderr, "kmsg-copy: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	for (;;) {
		len = read(fd, rec, sizeof(rec) - 1);
		if (len < 0 && errno == EPIPE)
			continue;	/* counted below, by the sequence gap */
		if (len < 0 && errno == EINTR)
			continue;
		if (len <= 0) {
			fprintf(stderr, "kmsg-copy: read /dev/kmsg: %s\n",
				len < 0 ? strerror(errno) : "end of file");
			break;
		}
		rec[len] = '\0';
		/* "prio,seq,time,flags;message\n" and dictionary lines */
		if (sscanf(rec, "%*u,%llu,", &seq) == 1) {
			if (started && seq > next)
				lost += seq - next;
			next = seq + 1;
			started = 1;
		}
		fputs(rec, out);
		if (strstr(rec, argv[2]))
			break;
	}
	if (fclose(out)) {
		fprintf(stderr, "kmsg-copy: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	snprintf(lostpath, sizeof(lostpath), "%s.lost", argv[1]);
	f = fopen(lostpath, "w");
	if (!f || fprintf(f, "LOST %llu\n", lost) < 0 || fclose(f)) {
		fprintf(stderr, "kmsg-copy: %s: %s\n", lostpath, strerror(errno));
		return 2;
	}
	return 0;
}
