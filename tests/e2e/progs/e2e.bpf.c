// SPDX-License-Identifier: GPL-2.0
/*
 * BPF programs of the end-to-end suite, in C (clang -target bpf -mcpu=v4).
 * Each is a case of the runner (loader.c, cases.c), which loads it alone,
 * runs it with BPF_PROG_TEST_RUN and checks the KASAN reports it causes.
 * The exact class and size of every access matter only where the runner
 * expects a report; the matrix of opcodes is built from raw instructions
 * instead (cases.c).
 *
 * What the runner expects of a program is in its tags (bjk-tags.h), and
 * only there. The runner runs the cases in the order of this file.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "bjk-tags.h"

/* The bug type of a byte bjk_poison() poisoned (e2e.h: POISON_BUG). */
#define POISONED	"global-out-of-bounds"

/* The test module's kfuncs (tests/e2e/module/bjk_e2e.c). */
extern int bjk_poison(void *p__ign, u32 size) __ksym;
extern int bjk_unpoison(void *p__ign, u32 size) __ksym;
extern u8 *bjk_buf(const int rdwr_buf_size) __ksym;
extern u8 *bjk_zoo_freed(const int rdwr_buf_size) __ksym;
extern u8 *bjk_zoo_short(const int rdwr_buf_size) __ksym;
extern u8 *bjk_zoo_live(const int rdwr_buf_size) __ksym;
extern void bjk_zoo_free(void *p__ign) __ksym;
extern u8 *bjk_zoo_widen(void *val__ign, const int rdwr_buf_size) __ksym;
extern struct bjk_obj *bjk_obj_get(void) __ksym;
extern struct bjk_obj *bjk_obj_bad(u32 which) __ksym;
extern int bjk_trace_trigger(u64 cookie) __ksym;

/* bpf_obj_new() as in the selftests' bpf_experimental.h */
extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;
#define bpf_obj_new(type) ((type *)bpf_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_obj_drop(kptr) bpf_obj_drop_impl(kptr, NULL)

/* The module's object, as CO-RE sees it (module BTF). */
struct bjk_obj {
	u64 u64f;
	u32 u32f;
	u16 u16f;
	u8 u8f;
	s8 s8f;
	s16 s16f;
	s32 s32f;
} __attribute__((preserve_access_index));

#define V(type, p, off) (*(volatile type *)((u8 *)(p) + (off)))

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u8[64]);
} arr SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, u32);
	__type(value, u8[64]);
} hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} rb SEC(".maps");

/* One value of 40 bytes: its end is the end of the map's allocation. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u8[40]);
} wide SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u32);
} jmp SEC(".maps");

/*
 * Map values that do not start 8-byte aligned. An LPM trie value follows
 * the node's key: node + offsetof(struct lpm_trie_node, data) (40) +
 * key_size - 4, so node + 44 for IPv4 keys (key_size 8) and node + 45 for
 * a 9-byte key; the node is kmalloc'ed at its exact size.
 */
struct lpm_key4 {
	u32 prefixlen;
	u32 addr;
};

struct lpm_key5 {
	u32 prefixlen;
	u8 addr[5];
} __attribute__((packed));

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 4);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct lpm_key4);
	__type(value, u8[12]);
} lpm4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 4);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct lpm_key5);
	__type(value, u8[12]);
} lpm5 SEC(".maps");

/*
 * A devmap value is &obj->val, at +52 of struct bpf_dtab_netdev (dev,
 * index_hlist, xdp_prog, rcu, idx before it). The runner puts lo at key 0
 * (kind_devmap's __bjk_map_u32: ifindex 1, no program).
 */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct bpf_devmap_val);
} devmap SEC(".maps");

/* What programs hand back to the runner. */
u64 out[8];

/* Memory kinds: poison, one access, unpoison. */

SEC("syscall")
__bjk_case("kind.array")
__bjk_report(POISONED, write, 8, 8)
__bjk_retval(0)
int kind_array(void *ctx)
{
	u32 k = 0;
	u8 *v = bpf_map_lookup_elem(&arr, &k);

	if (!v)
		return -1;
	bjk_poison(v, 64);
	V(u64, v, 8) = out[0] + 7;		/* Write 8 at +8 */
	bjk_unpoison(v, 64);
	return 0;
}

SEC("syscall")
__bjk_case("kind.hash")
__bjk_report(POISONED, read, 4, 12)
__bjk_retval(0)
int kind_hash(void *ctx)
{
	u8 init[64] = {};
	u32 k = 1;
	u8 *v;

	bpf_map_update_elem(&hash, &k, init, BPF_ANY);
	v = bpf_map_lookup_elem(&hash, &k);
	if (!v)
		return -1;
	bjk_poison(v, 64);
	out[0] = V(u32, v, 12);			/* Read 4 at +12 */
	bjk_unpoison(v, 64);
	return 0;
}

SEC("syscall")
__bjk_case("kind.ringbuf")
__bjk_report(POISONED, write, 4, 4)
__bjk_retval(0)
int kind_ringbuf(void *ctx)
{
	u8 *s = bpf_ringbuf_reserve(&rb, 64, 0);

	if (!s)
		return -1;
	bjk_poison(s, 64);
	V(u32, s, 4) = 0x55;			/* Write 4 at +4 */
	bjk_unpoison(s, 64);
	bpf_ringbuf_discard(s, 0);
	return 0;
}

/* not "node": vmlinux.h has a struct node when the kernel has NUMA */
struct e2e_obj {
	u64 a[8];
};

SEC("syscall")
__bjk_case("kind.obj_new")
__bjk_report(POISONED, read, 2, 18)
__bjk_retval(0)
int kind_obj_new(void *ctx)
{
	struct e2e_obj *n = bpf_obj_new(struct e2e_obj);

	if (!n)
		return -1;
	bjk_poison(n, sizeof(*n));
	out[0] = V(u16, n, 18);			/* Read 2 at +18 */
	bjk_unpoison(n, sizeof(*n));
	bpf_obj_drop(n);
	return 0;
}

SEC("syscall")
__bjk_case("kind.kfunc_buf")
__bjk_report(POISONED, read, 1, 100)
__bjk_retval(0)
int kind_kfunc_buf(void *ctx)
{
	u8 *b = bjk_buf(128);

	if (!b)
		return -1;
	bjk_poison(b, 128);
	out[0] = V(u8, b, 100);			/* Read 1 at +100 */
	bjk_unpoison(b, 128);
	return 0;
}

/* Bug zoo. */

SEC("syscall")
__bjk_case("zoo.freed")
__bjk_report("slab-use-after-free", read, 8, 16, stacks)
__bjk_retval(0)
int zoo_freed(void *ctx)
{
	u8 *p = bjk_zoo_freed(64);

	if (!p)
		return -1;
	out[0] = V(u64, p, 16);			/* Read 8 at +16: use-after-free */
	return 0;
}

SEC("syscall")
__bjk_case("zoo.short_write")
__bjk_report("slab-out-of-bounds", write, 1, 20)
__bjk_retval(0)
int zoo_short(void *ctx)
{
	u8 *p = bjk_zoo_short(64);

	if (!p)
		return -1;
	V(u8, p, 19) = 1;			/* in bounds: no report */
	V(u8, p, 20) = 1;			/* Write 1 at +20: out-of-bounds */
	return 0;
}

SEC("syscall")
__bjk_case("zoo.short_read")
__bjk_report("slab-out-of-bounds", read, 8, 24)
__bjk_retval(0)
int zoo_short_read(void *ctx)
{
	u8 *p = bjk_zoo_short(64);

	if (!p)
		return -1;
	out[0] = V(u32, p, 16);			/* in bounds */
	out[1] = V(u64, p, 24);			/* Read 8 at +24: out-of-bounds */
	return 0;
}

SEC("syscall")
__bjk_case("zoo.map_widened")
__bjk_report("slab-out-of-bounds", read, 8, 40)
__bjk_retval(0)
int zoo_widen(void *ctx)
{
	u32 k = 0;
	u8 *v = bpf_map_lookup_elem(&wide, &k), *w;

	if (!v)
		return -1;
	w = bjk_zoo_widen(v, 4096);
	if (!w)
		return -1;
	out[0] = V(u64, w, 32);			/* last 8 bytes of the value */
	out[1] = V(u64, w, 40);			/* Read 8 at +40: past the map */
	return 0;
}

/* Verifier paths: subprograms. */

static __noinline int sub_static(u8 *p)
{
	return V(u32, p, 8);			/* Read 4 at +8, in sub_static */
}

SEC("syscall")
__bjk_case("path.static_subprog")
__bjk_report(POISONED, read, 4, 8, func=1)
int path_static_sub(void *ctx)
{
	u8 *b = bjk_buf(64);
	int r;

	if (!b)
		return -1;
	bjk_poison(b, 64);
	r = sub_static(b);
	bjk_unpoison(b, 64);
	return r;
}

struct blob {
	u64 a[4];
};

__noinline int sub_global(struct blob *p)
{
	if (!p)
		return 0;
	p->a[1] += 3;				/* Read 8 then Write 8 at +8 */
	return p->a[1];
}

SEC("syscall")
__bjk_case("path.global_subprog_heap")
__bjk_report(POISONED, read, 8, 8, func=1)
__bjk_report(POISONED, write, 8, 8, func=1)
int path_global_heap(void *ctx)
{
	u8 *b = bjk_buf(64);
	int r;

	if (!b)
		return -1;
	bjk_poison(b, 64);
	r = sub_global((struct blob *)b);
	bjk_unpoison(b, 64);
	return r;
}

SEC("syscall")
__bjk_case("path.global_subprog_stack")
__bjk_retval(5)
int path_global_stack(void *ctx)
{
	struct blob s = { .a = { 1, 2, 3, 4 } };

	return sub_global(&s);			/* no report; returns 5 */
}

/*
 * A context access the verifier turns into several loads; the test run's
 * skb is on lo (ifindex 1) and not GSO (gso_segs 0): 16.
 */
SEC("tc")
__bjk_case("path.ctx_rewrite")
__bjk_retval(16)
int ctx_rewrite(struct __sk_buff *skb)
{
	/* ifindex: skb->dev, then dev->ifindex; gso_segs: skb->head,
	 * skb->end, then the shared info's gso_segs.
	 */
	return skb->ifindex * 16 + skb->gso_segs;
}

/*
 * tc's gen_prologue (bpf_unclone_prologue(): a byte load of skb->cloned,
 * bpf_skb_pull_data() if set) is patched in before insn 0 of a program
 * with direct packet writes. Here insn 0 is a stack store, which the
 * verifier proves stack-only: the prologue's load must still be checked
 * (the audit counts it), though insn 0 is not.
 */
SEC("tc")
__bjk_case("path.prologue_before_stack_insn")
__bjk_retval(0)
__attribute__((naked)) int prologue_r10(void)
{
	asm volatile(
	"*(u32 *)(r10 - 4) = 0;"
	"r2 = *(u32 *)(r1 + %[data]);"
	"r3 = *(u32 *)(r1 + %[data_end]);"
	"r4 = r2;"
	"r4 += 1;"
	"if r4 > r3 goto 1f;"
	"*(u8 *)(r2 + 0) = 0x42;"
	"1: r0 = 0;"
	"exit;"
	:
	: [data]"i"(__builtin_offsetof(struct __sk_buff, data)),
	  [data_end]"i"(__builtin_offsetof(struct __sk_buff, data_end))
	: "memory");
}

/*
 * The values the verifier proves 8-byte aligned (its granule proof) are:
 * each program fails if its value does not start on a granule (bjk_poison
 * takes granules only), and an 8-byte load at value + 0 stays in the first
 * granule, clear of the poisoned second: no report in any mode. Were the
 * value unaligned, the load would run into the poison, and an inline check
 * relying on the proof would miss what outline reports.
 */
#define ALIGNED_VALUE(name, maptype)					\
struct {								\
	__uint(type, maptype);						\
	__uint(max_entries, 1);						\
	__type(key, u32);						\
	__type(value, u8[16]);						\
} am_##name SEC(".maps");						\
									\
SEC("syscall")								\
__bjk_case("align." #name "_value")					\
__bjk_retval(0)								\
int align_##name(void *ctx)						\
{									\
	u8 init[16] = {};						\
	u32 k = 0;							\
	u8 *v;								\
									\
	bpf_map_update_elem(&am_##name, &k, init, BPF_ANY);		\
	v = bpf_map_lookup_elem(&am_##name, &k);			\
	if (!v)								\
		return -1;						\
	if (bjk_poison(v + 8, 8))					\
		return -3;						\
	out[0] = V(u64, v, 0);						\
	bjk_unpoison(v + 8, 8);						\
	return 0;							\
}

ALIGNED_VALUE(array, BPF_MAP_TYPE_ARRAY)
ALIGNED_VALUE(percpu_array, BPF_MAP_TYPE_PERCPU_ARRAY)
ALIGNED_VALUE(hash, BPF_MAP_TYPE_HASH)
ALIGNED_VALUE(percpu_hash, BPF_MAP_TYPE_PERCPU_HASH)
ALIGNED_VALUE(lru_hash, BPF_MAP_TYPE_LRU_HASH)
ALIGNED_VALUE(lru_percpu_hash, BPF_MAP_TYPE_LRU_PERCPU_HASH)

SEC("syscall")
__bjk_case("align.ringbuf_record")
__bjk_retval(0)
int align_ringbuf(void *ctx)
{
	u8 *r = bpf_ringbuf_reserve(&rb, 16, 0);

	if (!r)
		return -1;
	if (bjk_poison(r + 8, 8)) {
		bpf_ringbuf_discard(r, 0);
		return -3;
	}
	out[0] = V(u64, r, 0);
	bjk_unpoison(r + 8, 8);
	bpf_ringbuf_discard(r, 0);
	return 0;
}

/*
 * An 8-byte load at value + 0 of a value that is not 8-byte aligned, in
 * bounds, whose second granule is poisoned: the load runs into it. A check
 * that took the value for 8-byte aligned (one granule) would miss it. tc
 * programs: sleepable (syscall) ones may not use these map types.
 */
/* @lead: bytes of the value before its second granule (8 - value % 8) */
#define LPM_VALUE(name, map, key, lead)					\
SEC("tc")								\
int name(struct __sk_buff *skb)						\
{									\
	u8 init[12] = {};						\
	u8 *v;								\
									\
	if (bpf_map_update_elem(&map, &key, init, BPF_ANY))		\
		return -2;						\
	v = bpf_map_lookup_elem(&map, &key);				\
	if (!v)								\
		return -1;						\
	bjk_poison(v + (lead), 8);	/* node + 48: the next granule */ \
	out[0] = V(u64, v, 0);		/* Read 8 at value + 0 */	\
	bjk_unpoison(v + (lead), 8);					\
	return 0;							\
}

static struct lpm_key4 lpm_k4 = { .prefixlen = 32, .addr = 0x0100007f };
static struct lpm_key5 lpm_k5 = { .prefixlen = 40, .addr = { 1, 2, 3, 4, 5 } };

__bjk_case("align.lpm_ipv4_value")
__bjk_report(POISONED, read, 8, -4)
__bjk_retval(0)
LPM_VALUE(kind_lpm4, lpm4, lpm_k4, 4)	/* Read 8 at value + 0, node + 44 */

__bjk_case("align.lpm_odd_key_value")
__bjk_report(POISONED, read, 8, -3)
__bjk_retval(0)
LPM_VALUE(kind_lpm5, lpm5, lpm_k5, 3)	/* Read 8 at value + 0, node + 45 */

SEC("tc")
__bjk_case("align.devmap_value")
__bjk_map_u32(devmap, 0, 1)
__bjk_report(POISONED, read, 8, -4)
__bjk_retval(0)
int kind_devmap(struct __sk_buff *skb)
{
	u32 k = 0;
	u8 *v = bpf_map_lookup_elem(&devmap, &k);

	if (!v)
		return -1;
	bjk_poison(v + 4, 8);			/* obj + 56: the next granule */
	out[0] = V(u64, v, 0);			/* Read 8 at value + 0 */
	bjk_unpoison(v + 4, 8);
	return 0;
}

/* Tail call: the report names the callee. */

SEC("tc")
int tail_callee(struct __sk_buff *skb)
{
	u8 *b = bjk_buf(64);

	if (!b)
		return 1;
	bjk_poison(b, 64);
	V(u16, b, 6) = 9;			/* Write 2 at +6, in tail_callee */
	bjk_unpoison(b, 64);
	return 7;
}

SEC("tc")
__bjk_case("path.tail_call")
__bjk_audit(tail_callee)
__bjk_map_prog(jmp, 0, tail_callee)
__bjk_report(POISONED, write, 2, 6, prog=1)
__bjk_retval(7)
int tail_caller(struct __sk_buff *skb)
{
	bpf_tail_call(skb, &jmp, 0);
	return 1;
}

/*
 * Tracing: PROBE_MEM loads, never checked. The xlated dump shows the u64,
 * u32, u16 and u8 loads as LDX MEM (__bjk_unchecked), the signed ones as
 * PROBE_MEMSX; each has a guard in the image (__bjk_probes).
 */

SEC("syscall")
__bjk_case("probe.poisoned_btf_obj")
__bjk_unchecked(read, 1, 1) __bjk_unchecked(read, 2, 1)
__bjk_unchecked(read, 4, 1) __bjk_unchecked(read, 8, 1)
__bjk_probes(7)
__bjk_retval(0)
__bjk_out(0, 0x1122334455667788) __bjk_out(1, 0x99aabbcc) __bjk_out(2, 0xddee)
__bjk_out(3, 0xf1) __bjk_out(4, -2) __bjk_out(5, -3) __bjk_out(6, -4)
int probe_poisoned(void *ctx)
{
	struct bjk_obj *o = bjk_obj_get();

	if (!o)
		return -1;
	bjk_poison(o, 56);
	out[0] = o->u64f;
	out[1] = o->u32f;
	out[2] = o->u16f;
	out[3] = o->u8f;
	out[4] = o->s8f;
	out[5] = o->s16f;
	out[6] = o->s32f;
	bjk_unpoison(o, 56);
	return 0;
}

SEC("syscall")
__bjk_case("probe.bad_user_addr")
__bjk_unchecked(read, 4, 1) __bjk_unchecked(read, 8, 1)
__bjk_probes(2)
__bjk_retval(0)
__bjk_out(0, 1) __bjk_out(1, 1)
int probe_bad_user(void *ctx)
{
	struct bjk_obj *o = bjk_obj_bad(1);

	if (!o)
		return -1;
	out[0] = o->u64f + 1;
	out[1] = o->s32f + 1;
	return 0;
}

SEC("syscall")
__bjk_case("probe.bad_kernel_addr")
__bjk_unchecked(read, 8, 1)
__bjk_probes(2)
__bjk_retval(0)
__bjk_out(0, 1) __bjk_out(1, 1)
int probe_bad_kern(void *ctx)
{
	struct bjk_obj *o = bjk_obj_bad(2);

	if (!o)
		return -1;
	out[0] = o->u64f + 1;
	out[1] = o->s16f + 1;
	return 0;
}

/*
 * fentry programs read through BTF pointers with PROBE_MEM loads.
 * trace_poisoned runs on bjk_trace_target(), which the module calls, from
 * trace_trigger's kfunc, with its object poisoned; trace_null on
 * bpf_fentry_test7(NULL) (BPF_PROG_TEST_RUN of an fentry program calls
 * bpf_fentry_test1..8).
 */
SEC("fentry/bjk_trace_target")
__bjk_case("probe.fentry_poisoned_arg")
__bjk_attach
__bjk_run(trace_trigger)
__bjk_unchecked(read, 1, 1) __bjk_unchecked(read, 2, 1)
__bjk_unchecked(read, 4, 1) __bjk_unchecked(read, 8, 1)
__bjk_probes(7)
__bjk_retval(0x42)
__bjk_out(0, 0x1122334455667788) __bjk_out(1, 0x99aabbcc) __bjk_out(2, 0xddee)
__bjk_out(3, 0xf1) __bjk_out(4, -2) __bjk_out(5, -3) __bjk_out(6, -4)
__bjk_out(7, 0x42)
int BPF_PROG(trace_poisoned, struct bjk_obj *obj, u64 cookie)
{
	out[0] = obj->u64f;
	out[1] = obj->u32f;
	out[2] = obj->u16f;
	out[3] = obj->u8f;
	out[4] = obj->s8f;
	out[5] = obj->s16f;
	out[6] = obj->s32f;
	out[7] = cookie;
	return 0;
}

SEC("syscall")
int trace_trigger(void *ctx)
{
	return bjk_trace_trigger(0x42);
}

SEC("fentry/bpf_fentry_test7")
__bjk_case("probe.fentry_null_arg")
__bjk_attach
__bjk_unchecked(read, 8, 1)
__bjk_probes(1)
__bjk_out(0, 1)
int BPF_PROG(trace_null, struct bpf_fentry_test_t *arg)
{
	out[0] = (u64)arg->a + 1;		/* arg is NULL: reads 0 */
	return 0;
}

char _license[] SEC("license") = "GPL";

/* ---- merged checks: each runs with merging off and on (cases.c) ------- */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u8[64]);
} mc SEC(".maps");

/*
 * Loads and stores at neighbouring offsets of one map value, a straight
 * run through one register: one merged check, whose granules include the
 * poisoned one. Only the access on it is reported.
 */
SEC("syscall")
__bjk_merge_case("merge.run_one_poisoned")
__bjk_merges
__bjk_report(POISONED, read, 8, 0)
__bjk_retval(0)
int merge_run(void *ctx)
{
	u32 k = 0;
	u8 *v = bpf_map_lookup_elem(&mc, &k);
	u64 s = 0;

	if (!v)
		return -1;
	if (bjk_poison(v + 24, 8))
		return -3;
	V(u64, v, 0) = 1;
	s += V(u64, v, 8);
	V(u32, v, 16) = 2;
	s += V(u16, v, 20);
	V(u8, v, 23) = 3;
	s += V(u64, v, 24);			/* Read 8 at +24: the poisoned granule */
	V(u64, v, 32) = s;
	s += V(u32, v, 44);
	bjk_unpoison(v + 24, 8);
	out[0] = s;
	return 0;
}

/* A kfunc frees the object between two accesses through one pointer. */
SEC("syscall")
__bjk_merge_case("merge.free_between")
__bjk_report("slab-use-after-free", read, 8, 8, stacks)
__bjk_retval(0)
int merge_free(void *ctx)
{
	u8 *p = bjk_zoo_live(64);
	u64 s;

	if (!p)
		return -1;
	s = V(u64, p, 0);
	bjk_zoo_free(p);
	s += V(u64, p, 8);			/* Read 8 at +8: use-after-free */
	out[0] = s;
	return 0;
}

/* The base register moves on between two accesses, onto poison. */
SEC("syscall")
__bjk_merge_case("merge.base_redefined")
__bjk_report(POISONED, read, 8, 0)
__bjk_retval(0)
int merge_redef(void *ctx)
{
	u8 *p = bjk_buf(64);
	u64 s;

	if (!p)
		return -1;
	if (bjk_poison(p + 32, 8))
		return -3;
	s = V(u64, p, 0);
	asm volatile("%0 += 32" : "+r"(p));
	s += V(u64, p, 0);			/* Read 8 at +32: p moved there */
	bjk_unpoison(p, 8);
	out[0] = s;
	return 0;
}

/*
 * Two paths join before an access: one accessed the value through the same
 * register, the other (out[1] is 0: taken) did not.
 */
SEC("syscall")
__bjk_merge_case("merge.branch_join")
__bjk_report(POISONED, read, 8, 0)
__bjk_retval(0)
int merge_join(void *ctx)
{
	u32 k = 0;
	u8 *v = bpf_map_lookup_elem(&mc, &k);
	u64 s = 0;

	if (!v)
		return -1;
	if (bjk_poison(v + 8, 8))
		return -3;
	if (out[1])
		s = V(u64, v, 0);
	s += V(u64, v, 8);			/* Read 8 at +8: after the join */
	bjk_unpoison(v + 8, 8);
	out[0] = s;
	return 0;
}

/*
 * Accesses through stack pointers other than R10, all legal: the checks of
 * BPF_ACCESS_STACKPTR accesses (the program's own frame inline, the frames
 * of BPF callers in the slow path) must not report them. A pointer into
 * the caller's frame, passed to a subprogram and to a callback through the
 * helper that calls it, and an index into the program's own stack array.
 * Their accesses get no KASAN check (__bjk_unchecked: the dump cannot tell
 * them from checked ones), a frame check instead.
 */
struct stk {
	u64 a, b;
	u32 c;
	u8 d[12];
};

static __noinline int stk_fill(struct stk *s, u64 v)
{
	s->a = v;				/* through R1, the caller's frame */
	s->b = s->a * 3;
	s->c = (u32)s->b + 1;
	s->d[v & 7] = 5;
	return s->c;
}

SEC("syscall")
__bjk_case("stack.callee_ptr")
__bjk_unchecked(write, 1, 1) __bjk_unchecked(write, 4, 1) __bjk_unchecked(write, 8, 2)
__bjk_retval(22)
int stack_callee_ptr(void *ctx)
{
	struct stk s = {};

	stk_fill(&s, 4);
	return s.c + s.d[4] + s.a + s.b - 12;	/* 13 + 5 + 4 + 12 - 12 */
}

struct stk_cb {
	u64 sum;
	u32 calls;
};

static long stk_elem(struct bpf_map *map, u32 *key, u8 *val, struct stk_cb *cb)
{
	cb->sum += 2;				/* through R4: the caller's frame */
	cb->calls++;
	return 0;
}

SEC("syscall")
__bjk_case("stack.callback_ptr")
__bjk_unchecked(read, 8, 1) __bjk_unchecked(read, 4, 1)
__bjk_unchecked(write, 8, 1) __bjk_unchecked(write, 4, 1)
__bjk_retval(3)
int stack_callback_ptr(void *ctx)
{
	struct stk_cb cb = {};

	bpf_for_each_map_elem(&arr, stk_elem, &cb, 0);
	return cb.sum + cb.calls;		/* one element: 2 + 1 */
}

SEC("syscall")
__bjk_case("stack.own_index")
__bjk_unchecked(write, 8, 1) __bjk_unchecked(read, 8, 1)
__bjk_retval(28)
int stack_own_index(void *ctx)
{
	u64 v[8] = {}, s = 0;
	u32 i, n = bpf_get_prandom_u32() & 7;

#pragma clang loop unroll(disable)
	for (i = 0; i < 7; i++)
		v[(i + n) & 7] = i + 1;		/* through a moved copy of R10 */
#pragma clang loop unroll(disable)
	for (i = 0; i < 8; i++)
		s += v[(i + n) & 7];
	return s;				/* 1 + 2 + ... + 7 */
}
