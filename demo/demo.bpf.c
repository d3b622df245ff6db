// SPDX-License-Identifier: GPL-2.0
/*
 * The program `make run` shows: it asks the bug zoo of the e2e test module
 * (tests/e2e/module/bjk_e2e.c) for an object that has just been freed and
 * reads it. The verifier cannot know the memory is gone; the JIT's KASAN
 * check catches the read and the kernel prints a slab-use-after-free report
 * naming this program. Built with clang -target bpf -g (BTF line info, so the
 * report can be decoded to the line below).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

/* bjk_e2e's kfunc: kmalloc(size), kfree() it, return the pointer. */
extern u8 *bjk_zoo_freed(const int rdwr_buf_size) __ksym;

struct session {
	u64 id;
	u64 owner;
	u64 expires;
};

u64 seen_owner;

SEC("syscall")
int demo_uaf(void *ctx)
{
	struct session *s = (struct session *)bjk_zoo_freed(64);

	if (!s)
		return -1;
	seen_owner = s->owner;		/* the bad access: Read 8 of a freed object */
	return 0;
}

char _license[] SEC("license") = "GPL";
