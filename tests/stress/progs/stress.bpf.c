// SPDX-License-Identifier: GPL-2.0
/*
 * The stress suite's programs (tests/stress/stress.c runs them): checked
 * accesses to maps that other threads change under them, a tail call
 * through a prog array another thread rewrites, and an XDP program on lo
 * that counts the packets a thread sends. Every program counts what it did
 * in `counts`, which the runner compares with what it asked for.
 *
 * The programs the runner runs are tc programs: an XDP test_run with a
 * repeat patches them into the XDP dispatcher and out again
 * (text_poke_bp), and under QEMU TCG a run on the other vCPU then died with
 * "Oops: int3" in bpf_dispatcher_xdp_func, checks off too. st_lo is
 * attached before the threads start and stays.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define STRESS_PORT	9999

struct val {
	__u64 w[8];
};

enum { C_RUNS, C_TAIL_A, C_TAIL_B, C_PACKETS, C_HASH_HITS, C_INNER_HITS, NCOUNTS };

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NCOUNTS);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct val);
} vals SEC(".maps");

/* Keys 0..255 inserted and deleted by a thread: elements freed under RCU. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, struct val);
} churn SEC(".maps");

struct inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct val);
};

/* Its inner map replaced again and again by a thread. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct inner);
} outer SEC(".maps");

/* Entry 0: st_tail_a or st_tail_b, swapped by a thread, never empty. */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} jmp SEC(".maps");

static __always_inline void count(__u32 k)
{
	__u64 *c = bpf_map_lookup_elem(&counts, &k);

	if (c)
		__sync_fetch_and_add(c, 1);
}

/* Neighbouring loads and stores (merged checks) and an atomic on @v. */
static __always_inline __u64 work(struct val *v)
{
	__u64 s = v->w[0] + v->w[1] + v->w[2] + v->w[3];

	v->w[4] = s;
	v->w[5] = s ^ v->w[6];
	__sync_fetch_and_add(&v->w[7], 1);
	return s;
}

SEC("tc")
int st_work(struct __sk_buff *ctx)
{
	__u32 k = 0, hk = bpf_get_prandom_u32() & 255;
	struct val *v = bpf_map_lookup_elem(&vals, &k), *h, *iv;
	void *in;

	if (!v)
		return -1;
	work(v);
	h = bpf_map_lookup_elem(&churn, &hk);
	if (h) {
		work(h);
		count(C_HASH_HITS);
	}
	in = bpf_map_lookup_elem(&outer, &k);
	if (in) {
		iv = bpf_map_lookup_elem(in, &k);
		if (iv) {
			work(iv);
			count(C_INNER_HITS);
		}
	}
	count(C_RUNS);
	/*
	 * An index the verifier cannot know (w[6] stays 0): an indirect tail
	 * call. A constant one is patched into the image on every prog array
	 * update (text_poke_bp), and under QEMU TCG a run on the other vCPU
	 * then died with "Oops: int3" in the patched jump, checks off too.
	 */
	bpf_tail_call(ctx, &jmp, v->w[6] >> 63);
	return -1;			/* the prog array is never empty */
}

SEC("tc")
int st_tail_a(struct __sk_buff *ctx)
{
	count(C_TAIL_A);
	return 0;
}

SEC("tc")
int st_tail_b(struct __sk_buff *ctx)
{
	count(C_TAIL_B);
	return 0;
}

/* On lo (generic XDP): the UDP datagrams to STRESS_PORT. */
SEC("xdp")
int st_lo(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp = (void *)(ip + 1);

	if ((void *)(udp + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) ||
	    ip->ihl != 5 || ip->protocol != IPPROTO_UDP)
		return XDP_PASS;
	if (udp->dest == bpf_htons(STRESS_PORT))
		count(C_PACKETS);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
