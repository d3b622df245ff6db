/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small pieces the guest's test programs share (after bjk-out.h):
 * writing a /proc or /sys knob, waiting for the decoder's watch, bringing lo
 * up, and (for those that include libbpf's bpf.h first) a program's xlated
 * insns.
 *
 * Header only: each user is a single C file (static, built for the guest).
 */
#ifndef BJK_GUEST_H
#define BJK_GUEST_H

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include "bjk-out.h"

/* Write V to the knob at PATH: 0, or -1 (errno set). */
static inline int bjk_write_file(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY), n = -1;

	if (fd >= 0) {
		n = write(fd, v, strlen(v));
		close(fd);
	}
	return n < 0 ? -1 : 0;
}

/*
 * Under `bjk-decode watch -a FILE` (BJK_DECODE_ACK=FILE): keep a region's
 * programs loaded until the watcher has read its reports, that is until it
 * writes the region's name to FILE on reading its BJK-EXPECT-END line. At
 * most 5 s, then go on (the decode check fails the region).
 */
static inline void bjk_decode_sync(const char *region)
{
	const char *ack = getenv("BJK_DECODE_ACK");
	char buf[160];
	ssize_t n;
	int i, fd;

	if (!ack)
		return;
	for (i = 0; i < 5000; i++) {
		fd = open(ack, O_RDONLY);
		if (fd >= 0) {
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			if (n > 0) {
				buf[n] = '\0';
				buf[strcspn(buf, "\n")] = '\0';
				if (!strcmp(buf, region))
					return;
			}
		}
		usleep(1000);
	}
	bjk_out("# %s: bjk-decode did not acknowledge within 5 s", region);
}

/*
 * The options of the museum's runners (`-k` KTAP to /dev/kmsg, `-m MODE`,
 * the boot's mode: off, inline, outline or interp); optind is then at the
 * first name. MODE, or NULL on anything else.
 */
static inline const char *bjk_museum_args(int argc, char **argv)
{
	const char *mode = NULL;
	int opt;

	while ((opt = getopt(argc, argv, "km:")) != -1) {
		if (opt == 'k')
			bjk_out_to_kmsg();
		else if (opt == 'm')
			mode = optarg;
		else
			return NULL;
	}
	if (mode && (!strcmp(mode, "off") || !strcmp(mode, "inline") ||
		     !strcmp(mode, "outline") || !strcmp(mode, "interp")))
		return mode;
	return NULL;
}

/* Bring the loopback device up (the guest's /init leaves it down): 0 or -1. */
static inline int bjk_lo_up(void)
{
	struct ifreq ifr = {};
	int s = socket(AF_INET, SOCK_DGRAM, 0), err = -1;

	if (s < 0)
		return -1;
	strcpy(ifr.ifr_name, "lo");
	if (!ioctl(s, SIOCGIFFLAGS, &ifr)) {
		ifr.ifr_flags |= IFF_UP;
		err = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	close(s);
	return err;
}

#ifdef __LIBBPF_BPF_H
/*
 * The verifier's final program of @fd (what the decoder's instruction
 * numbers count) into @x, at most @max insns: how many, or -1.
 */
static inline int bjk_xlated(int fd, struct bpf_insn *x, uint32_t max)
{
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info), n;

	if (bpf_prog_get_info_by_fd(fd, &info, &len) ||
	    info.xlated_prog_len > max * sizeof(x[0]))
		return -1;
	n = info.xlated_prog_len / sizeof(x[0]);
	memset(&info, 0, sizeof(info));
	info.xlated_prog_len = n * sizeof(x[0]);
	info.xlated_prog_insns = (uint64_t)(unsigned long)x;
	len = sizeof(info);
	if (bpf_prog_get_info_by_fd(fd, &info, &len))
		return -1;
	return n;
}
#endif

#endif /* BJK_GUEST_H */
