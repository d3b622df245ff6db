// SPDX-License-Identifier: GPL-2.0
/*
 * Not run: tests/e2e/build.sh lists its plan (bjk-e2e -l) to check that the
 * cases come in the order of the tags' counters. Program first is declared,
 * tags and all, before program second is defined, and defined after it:
 * clang-19 puts first's FUNC, with all its tags, after second's in BTF.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bjk-tags.h"

__bjk_case("order.first")
__bjk_report("global-out-of-bounds", read, 8, 0)
int first(void *ctx);

SEC("syscall")
__bjk_case("order.second")
int second(void *ctx)
{
	return 0;
}

SEC("syscall")
__bjk_report("global-out-of-bounds", write, 8, 0)
int first(void *ctx)
{
	return 0;
}

char _license[] SEC("license") = "GPL";
