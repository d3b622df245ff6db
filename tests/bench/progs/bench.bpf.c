// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark's BPF programs (make bench, tests/bench/runner.c). Each looks like
 * a piece of a real program and is run with BPF_PROG_TEST_RUN; the runner
 * knows each one's input and the return value it must give, so a program
 * that took another path than intended fails the run instead of silently
 * measuring something else.
 *
 * Every branch a program takes must be the same on every run: a path that
 * depends on state the program mutates would make "instructions per run"
 * drift with the repeat count.
 *
 * Kernel types are declared here (uapi linux/bpf.h only) so that the build
 * needs no vmlinux.h, hence no bpftool.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define ETH_P_IP	0x0800
#define ETH_P_8021Q	0x8100
#define IPPROTO_TCP	6
#define IPPROTO_UDP	17

struct ethhdr {
	unsigned char h_dest[6];
	unsigned char h_source[6];
	__be16 h_proto;
} __attribute__((packed));

struct vlanhdr {
	__be16 tci;
	__be16 proto;
};

struct iphdr {
	__u8 ihl_version;
	__u8 tos;
	__be16 tot_len;
	__be16 id;
	__be16 frag_off;
	__u8 ttl;
	__u8 protocol;
	__sum16 check;
	__be32 saddr;
	__be32 daddr;
};

struct tcphdr {
	__be16 source;
	__be16 dest;
	__be32 seq;
	__be32 ack_seq;
	__u16 flags;
	__be16 window;
	__sum16 check;
	__be16 urg_ptr;
};

char LICENSE[] SEC("license") = "GPL";

/* ---- parse: XDP packet parser with a flow table ------------------------ */

struct flow_key {
	__be32 saddr, daddr;
	__be16 sport, dport;
	__u8 proto, pad[3];
};

struct flow_stats {
	__u64 packets, bytes;
	__u32 tcp_flags, last_len;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__uint(map_flags, BPF_F_ZERO_SEED);	/* see counters */
	__type(key, struct flow_key);
	__type(value, struct flow_stats);
} flows SEC(".maps");

/*
 * Ethernet, optional 802.1Q tags, IPv4 with options, TCP with its options
 * walked for MSS and window scale: what a load balancer or firewall does
 * before it looks a flow up. Input: runner's TCP SYN with one VLAN tag.
 */
SEC("xdp")
int parse(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct flow_key k = {};
	struct flow_stats *st;
	struct iphdr *ip;
	struct tcphdr *tcp;
	__u8 *opt;
	__u16 proto, mss = 0;
	__u8 wscale = 0;
	int i, ihl, doff;

	if ((void *)(eth + 1) > end)
		return XDP_DROP;
	proto = eth->h_proto;
	data = eth + 1;
#pragma clang loop unroll(disable)
	for (i = 0; i < 2 && proto == bpf_htons(ETH_P_8021Q); i++) {
		struct vlanhdr *v = data;

		if ((void *)(v + 1) > end)
			return XDP_DROP;
		proto = v->proto;
		data = v + 1;
	}
	if (proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	ip = data;
	if ((void *)(ip + 1) > end)
		return XDP_DROP;
	ihl = (ip->ihl_version & 0xf) * 4;
	if (ihl < 20 || data + ihl > end)
		return XDP_DROP;
	if (ip->protocol != IPPROTO_TCP)
		return XDP_PASS;
	tcp = data + ihl;
	if ((void *)(tcp + 1) > end)
		return XDP_DROP;
	doff = (bpf_ntohs(tcp->flags) >> 12) * 4;
	opt = (__u8 *)(tcp + 1);
#pragma clang loop unroll(disable)
	for (i = 0; i < 10; i++) {
		__u8 kind, len;

		if ((void *)(opt + 1) > end || (void *)opt >= (void *)tcp + doff)
			break;
		kind = opt[0];
		if (kind == 0)
			break;
		if (kind == 1) {
			opt++;
			continue;
		}
		if ((void *)(opt + 2) > end)
			break;
		len = opt[1];
		if (len < 2)
			break;
		if (kind == 2 && (void *)(opt + 4) <= end)
			mss = (opt[2] << 8) | opt[3];
		if (kind == 3 && (void *)(opt + 3) <= end)
			wscale = opt[2];
		opt += len & 0x3f;
	}
	k.saddr = ip->saddr;
	k.daddr = ip->daddr;
	k.sport = tcp->source;
	k.dport = tcp->dest;
	k.proto = ip->protocol;
	st = bpf_map_lookup_elem(&flows, &k);
	if (!st)
		return XDP_ABORTED;
	__sync_fetch_and_add(&st->packets, 1);
	__sync_fetch_and_add(&st->bytes, bpf_ntohs(ip->tot_len));
	st->tcp_flags |= bpf_ntohs(tcp->flags) & 0x1ff;
	st->last_len = mss | (wscale << 16);
	return mss == 1460 && wscale == 7 ? XDP_TX : XDP_ABORTED;
}

/* ---- counters: map-heavy counter update --------------------------------- */

struct counter {
	__u64 hits, bytes;
	__u64 min_len, max_len;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	/*
	 * A hash map's seed is random per boot, and with it which keys share
	 * a bucket: lookups then cost a different number of instructions in
	 * each boot (1-2% here). The zero seed makes the boots comparable.
	 */
	__uint(map_flags, BPF_F_ZERO_SEED);
	__type(key, __u32);
	__type(value, struct counter);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, struct counter);
} buckets SEC(".maps");

/*
 * Sixteen counter updates per packet through a hash map and an array map
 * (per-port, per-prefix, per-bucket statistics of a monitoring program).
 * The runner fills "counters" with keys 0..255, so every lookup hits.
 */
SEC("xdp")
int counters_update(struct xdp_md *ctx)
{
	__u32 len = ctx->data_end - ctx->data;
	int i, found = 0;

#pragma clang loop unroll(disable)
	for (i = 0; i < 16; i++) {
		__u32 key = (i * 2654435761u) >> 24;	/* spread over 0..255 */
		__u32 b = key & 63;
		struct counter *c = bpf_map_lookup_elem(&counters, &key);
		struct counter *a = bpf_map_lookup_elem(&buckets, &b);

		if (!c || !a)
			continue;
		found++;
		__sync_fetch_and_add(&c->hits, 1);
		c->bytes += len;
		if (c->min_len == 0 || len < c->min_len)
			c->min_len = len;
		if (len > c->max_len)
			c->max_len = len;
		a->hits++;
		a->bytes += len;
	}
	return found == 16 ? XDP_PASS : XDP_ABORTED;
}

/* ---- array_loop: loop over a map-value array ---------------------------- */

#define SAMPLES 128

struct histo {
	__u64 sample[SAMPLES];
	__u32 bucket[16];
	__u64 sum, min, max;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct histo);
} histos SEC(".maps");

/*
 * Summary statistics over an array of latency samples kept in a map value
 * (sum, min, max, a log2 histogram), as a profiler's aggregation step does.
 */
SEC("xdp")
int array_loop(struct xdp_md *ctx)
{
	__u32 zero = 0;
	struct histo *h = bpf_map_lookup_elem(&histos, &zero);
	__u64 sum = 0, min = ~0ULL, max = 0;
	int i;

	if (!h)
		return XDP_ABORTED;
#pragma clang loop unroll(disable)
	for (i = 0; i < SAMPLES; i++) {
		__u64 v = h->sample[i];
		__u32 b = 63 - __builtin_clzll(v | 1);

		sum += v;
		if (v < min)
			min = v;
		if (v > max)
			max = v;
		h->bucket[b & 15]++;
	}
	h->sum = sum;
	h->min = min;
	h->max = max;
	return XDP_PASS;
}

/* ---- struct_walk: linked structures and atomics -------------------------- */

struct conn {
	__u64 refcnt;
	__u64 rx, tx;
	__u32 state;
	__u32 flags;
	__u32 next;		/* index of the next conn in the chain, 0: end */
	__u32 owner;
};

struct conn_table {
	__u64 gen;
	__u32 head[8];
	struct conn c[32];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct conn_table);
} conns SEC(".maps");

/*
 * Walk the hash chains of a connection table kept in one map value (the
 * runner links the 32 entries into 8 chains of 4), taking and dropping a
 * reference on each entry with atomics, updating counters and flags with
 * fetch-and-op and bumping a generation with cmpxchg.
 */
SEC("xdp")
int struct_walk(struct xdp_md *ctx)
{
	__u32 zero = 0, bad = 0;
	struct conn_table *t = bpf_map_lookup_elem(&conns, &zero);
	int b, j;

	if (!t)
		return XDP_ABORTED;
	/*
	 * Fixed trip counts (8 chains of 4): a walk that stopped at a zero
	 * link would give the verifier a path per chain length and per
	 * chain, more than its budget. A table that is not 8 x 4 shows in
	 * "bad": every chain must end in 0.
	 */
#pragma clang loop unroll(disable)
	for (b = 0; b < 8; b++) {
		__u32 idx = t->head[b];

#pragma clang loop unroll(disable)
		for (j = 0; j < 4; j++) {
			struct conn *c = &t->c[idx & 31];

			__sync_fetch_and_add(&c->refcnt, 1);
			__sync_fetch_and_add(&c->rx, 64);
			__sync_fetch_and_or(&c->flags, 1u << b);
			__sync_fetch_and_xor(&c->state, 1);
			__sync_fetch_and_add(&c->tx, c->owner);
			__sync_fetch_and_sub(&c->refcnt, 1);
			idx = c->next;
		}
		bad |= idx;
	}
	{
		__u64 g = t->gen;

		__sync_val_compare_and_swap(&t->gen, g, g + 1);
	}
	return bad == 0 ? XDP_PASS : XDP_ABORTED;
}

/* ---- ringbuf: ring buffer producer --------------------------------------- */

struct event {
	__u64 ts;
	__u32 ifindex, rxq;
	__u32 len, hash;
	__u8 head[32];
	__u64 seq;
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} events SEC(".maps");

__u64 seq;

/*
 * A packet sampler: one event per packet into a ring buffer, with the
 * first 32 bytes of the packet copied in. The runner drains the ring
 * between passes so a reservation never fails.
 */
SEC("xdp")
int ringbuf(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct event *e;
	__u32 h = 2166136261u;
	int i;

	if (data + 32 > end)
		return XDP_DROP;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e)
		return XDP_ABORTED;
	e->ts = 0;
	e->ifindex = ctx->ingress_ifindex;
	e->rxq = ctx->rx_queue_index;
	e->len = end - data;
#pragma clang loop unroll(disable)
	for (i = 0; i < 32; i += 4) {
		__u32 w = *(__u32 *)(data + i);

		*(__u32 *)&e->head[i] = w;
		h = (h ^ w) * 16777619u;
	}
	e->hash = h;
	e->seq = __sync_fetch_and_add(&seq, 1);
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
	return XDP_PASS;
}

/* ---- helpers_alu: helpers and ALU on an skb (tc) ------------------------- */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[8]);
} scratch SEC(".maps");

/*
 * A tc classifier: copies the headers out with bpf_skb_load_bytes, hashes
 * them (multiply-xorshift, like jhash's mixing), checksums them with
 * bpf_csum_diff, reads skb fields, keeps per-CPU state, and picks a class.
 */
SEC("tc")
int helpers_alu(struct __sk_buff *skb)
{
	__u32 buf[16], zero = 0;
	__u64 *s = bpf_map_lookup_elem(&scratch, &zero);
	__u64 h = 0x9e3779b97f4a7c15ULL;
	__s64 csum;
	int i;

	if (!s)
		return -1;
	if (bpf_skb_load_bytes(skb, 0, buf, sizeof(buf)))
		return -2;
#pragma clang loop unroll(disable)
	for (i = 0; i < 16; i++) {
		h ^= buf[i];
		h *= 0xff51afd7ed558ccdULL;
		h ^= h >> 33;
		h = (h << 13) | (h >> 51);
	}
	csum = bpf_csum_diff(0, 0, buf, sizeof(buf), 0);
	s[0] += h;
	s[1] += csum;
	s[2] = skb->len + skb->protocol + skb->mark + skb->priority;
	s[3] = bpf_get_smp_processor_id();
	/*
	 * test_run reuses one skb: without the invalidation only the first run
	 * of a pass would dissect the flow, and the figure would depend on
	 * the repeat count.
	 */
	bpf_set_hash_invalid(skb);
	s[4] ^= bpf_get_hash_recalc(skb);
	s[5] = skb->ifindex + skb->queue_mapping;
	skb->mark = (__u32)(h % 13);
	skb->tc_classid = 0x10000 | (__u32)(h & 0xff);
	return csum >= 0 ? 0 : 1;	/* TC_ACT_OK */
}

/* ---- micro: N aligned 8-byte loads from a map value ---------------------- */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[64]);
} words SEC(".maps");

/*
 * Straight-line loads, no loop: each one LDX DW from the map value, xor'ed
 * into the result (volatile keeps clang from merging or dropping them). The
 * same program without the loads (micro0) gives the fixed part, so the
 * per-access figure is exact: ((micro - micro0) in mode - same in off) / N.
 */
#define L1(i)	r ^= v[i];
#define L8(i)	L1(i) L1(i + 1) L1(i + 2) L1(i + 3) L1(i + 4) L1(i + 5) L1(i + 6) L1(i + 7)
#define L64	L8(0) L8(8) L8(16) L8(24) L8(32) L8(40) L8(48) L8(56)

SEC("xdp")
int micro(struct xdp_md *ctx)
{
	__u32 zero = 0;
	volatile __u64 *v = bpf_map_lookup_elem(&words, &zero);
	__u64 r = 0;

	if (!v)
		return XDP_ABORTED;
	L64
	return r == 0 ? XDP_PASS : XDP_DROP;
}

SEC("xdp")
int micro0(struct xdp_md *ctx)
{
	__u32 zero = 0;
	volatile __u64 *v = bpf_map_lookup_elem(&words, &zero);
	__u64 r = 0;

	if (!v)
		return XDP_ABORTED;
	return r == 0 ? XDP_PASS : XDP_DROP;
}

/* ---- trace_args: a tracing program --------------------------------------- */

/*
 * The fields read of the current task, relocated by libbpf against the
 * kernel's BTF (CO-RE), so no vmlinux.h is needed.
 */
struct task_struct {
	int pid;
	int tgid;
	int prio;
	unsigned int flags;
} __attribute__((preserve_access_index));

#define TRACE_LOOPS	256

__u64 trace_sum;

/*
 * What a tracing program reads: every argument of its raw_tp context (six
 * u64 on the caller's stack, or test_run's copy), and fields of a trusted
 * kernel pointer (the current task): plain loads, which the JIT checks, not
 * the PROBE_MEM loads of untrusted pointers. BPF_PROG_TEST_RUN of raw_tp
 * has no repeat, so one run loops TRACE_LOOPS times. Input: six arguments.
 */
SEC("raw_tp")
int trace_args(__u64 *ctx)
{
	volatile __u64 *a = ctx;
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 s = 0;
	int i;

#pragma clang loop unroll(disable)
	for (i = 0; i < TRACE_LOOPS; i++) {
		s += a[0] ^ a[1] ^ a[2] ^ a[3] ^ a[4] ^ a[5];
		s += *(volatile int *)&t->pid + *(volatile int *)&t->tgid;
		s += *(volatile int *)&t->prio + *(volatile unsigned int *)&t->flags;
	}
	trace_sum = s;
	return 0;
}

/* ---- sys_enter: the whole system, a syscall loop traced ----------------- */

struct sys_stat {
	__u64 calls, last_id;
	__u32 pid, cpu;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 512);
	__uint(map_flags, BPF_F_ZERO_SEED);	/* see counters */
	__type(key, __u32);
	__type(value, struct sys_stat);
} sys_calls SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__uint(map_flags, BPF_F_ZERO_SEED);
	__type(key, __u32);
	__type(value, struct sys_stat);
} sys_last SEC(".maps");

/* The process whose calls count: the runner's (it writes element 0). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} sys_pid SEC(".maps");

/*
 * A syscall monitor, attached to the raw tracepoint sys_enter (arguments:
 * regs, syscall number) while the runner calls getppid() in a loop: for
 * each call of the runner's process, a count in the hash map value of the
 * syscall's number (the runner creates the element) and the process's last
 * call written into another hash map (bpf_map_update_elem: a map update
 * on every call). Not run by test_run: the runner times the loop.
 */
SEC("raw_tp/sys_enter")
int sys_enter(__u64 *ctx)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32, zero = 0, key;
	struct sys_stat *s, n = {};
	__u32 *want = bpf_map_lookup_elem(&sys_pid, &zero);

	if (!want || *want != pid)
		return 0;
	key = ctx[1] & 511;
	s = bpf_map_lookup_elem(&sys_calls, &key);
	if (!s)
		return 0;
	__sync_fetch_and_add(&s->calls, 1);
	s->last_id = ctx[1];
	n.calls = s->calls;
	n.last_id = ctx[1];
	n.pid = pid;
	n.cpu = bpf_get_smp_processor_id();
	bpf_map_update_elem(&sys_last, &pid, &n, BPF_ANY);
	return 0;
}

/* ---- net_egress, net_ingress: the whole system, datagrams over lo ------- */

#define NET_PORT	9998	/* the runner's receiving socket (runner.c) */

struct udphdr {
	__be16 source;
	__be16 dest;
	__be16 len;
	__sum16 check;
};

struct net_flow {
	__u64 packets[2], bytes[2];
	__u32 last_len[2];
	__u32 last_ifindex[2];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__uint(map_flags, BPF_F_ZERO_SEED);	/* see counters */
	__type(key, struct flow_key);	/* parse's */
	__type(value, struct net_flow);
} net_flows SEC(".maps");

/* Datagrams to NET_PORT per direction (0 egress, 1 ingress): the runner's check. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} net_count SEC(".maps");

/* Every packet the programs see, per CPU and direction. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} net_seen SEC(".maps");

/*
 * A flow monitor on lo's tc hooks while the runner sends UDP datagrams to
 * itself over lo: every packet counted per CPU; for a datagram to
 * NET_PORT, its flow (5-tuple) looked up in a hash map and created on the
 * first (bpf_map_update_elem, BPF_NOEXIST), its packets and bytes added,
 * and a count per direction the runner checks. Not run by test_run: the
 * runner times the send and receive loop.
 */
static __always_inline int net_count_one(struct __sk_buff *skb, __u32 dir)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp = (void *)(ip + 1);
	struct flow_key k = {};
	struct net_flow *f, nf = {};
	__u64 *seen, *cnt;

	seen = bpf_map_lookup_elem(&net_seen, &dir);
	if (seen)
		*seen += 1;
	if ((void *)(udp + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) ||
	    (ip->ihl_version & 0xf) != 5 || ip->protocol != IPPROTO_UDP ||
	    udp->dest != bpf_htons(NET_PORT))
		return 0;
	k = (struct flow_key){ .saddr = ip->saddr, .daddr = ip->daddr, .sport = udp->source,
			       .dport = udp->dest, .proto = IPPROTO_UDP };
	f = bpf_map_lookup_elem(&net_flows, &k);
	if (!f) {
		bpf_map_update_elem(&net_flows, &k, &nf, BPF_NOEXIST);
		f = bpf_map_lookup_elem(&net_flows, &k);
		if (!f)
			return 0;
	}
	__sync_fetch_and_add(&f->packets[dir & 1], 1);
	__sync_fetch_and_add(&f->bytes[dir & 1], skb->len);
	f->last_len[dir & 1] = bpf_ntohs(udp->len);
	f->last_ifindex[dir & 1] = skb->ifindex;
	cnt = bpf_map_lookup_elem(&net_count, &dir);
	if (cnt)
		__sync_fetch_and_add(cnt, 1);
	return 0;
}

SEC("tc")
int net_egress(struct __sk_buff *skb)
{
	net_count_one(skb, 0);
	return 0;	/* TC_ACT_OK */
}

SEC("tc")
int net_ingress(struct __sk_buff *skb)
{
	net_count_one(skb, 1);
	return 0;
}

/* ---- baselines for the check count: the same program types, no work ---- */

SEC("xdp")
int xdp_empty(struct xdp_md *ctx)
{
	return XDP_PASS;
}

SEC("tc")
int tc_empty(struct __sk_buff *skb)
{
	return 0;
}

SEC("raw_tp")
int raw_tp_empty(__u64 *ctx)
{
	return 0;
}
