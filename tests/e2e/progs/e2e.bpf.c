// SPDX-License-Identifier: GPL-2.0
/*
 * BPF programs of the end-to-end suite, in C (clang -target bpf -mcpu=v4).
 * Each is a case of the runner (runner.c), which loads it alone, runs it
 * with BPF_PROG_TEST_RUN and checks the KASAN reports it causes. The exact
 * class and size of every access matter only where the runner expects a
 * report; the matrix of opcodes is built from raw instructions instead.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

/* The test module's kfuncs (tests/e2e/module/bjk_e2e.c). */
extern int bjk_poison(void *p__ign, u32 size) __ksym;
extern int bjk_unpoison(void *p__ign, u32 size) __ksym;
extern u8 *bjk_buf(const int rdwr_buf_size) __ksym;
extern u8 *bjk_zoo_freed(const int rdwr_buf_size) __ksym;
extern u8 *bjk_zoo_short(const int rdwr_buf_size) __ksym;
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

/* What programs hand back to the runner. */
u64 out[8];

/* Memory kinds: poison, one access, unpoison. */

SEC("syscall")
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

struct node {
	u64 a[8];
};

SEC("syscall")
int kind_obj_new(void *ctx)
{
	struct node *n = bpf_obj_new(struct node);

	if (!n)
		return -1;
	bjk_poison(n, sizeof(*n));
	out[0] = V(u16, n, 18);			/* Read 2 at +18 */
	bjk_unpoison(n, sizeof(*n));
	bpf_obj_drop(n);
	return 0;
}

SEC("syscall")
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
int zoo_freed(void *ctx)
{
	u8 *p = bjk_zoo_freed(64);

	if (!p)
		return -1;
	out[0] = V(u64, p, 16);			/* Read 8 at +16: use-after-free */
	return 0;
}

SEC("syscall")
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
int path_global_stack(void *ctx)
{
	struct blob s = { .a = { 1, 2, 3, 4 } };

	return sub_global(&s);			/* no report; returns 5 */
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
int tail_caller(struct __sk_buff *skb)
{
	bpf_tail_call(skb, &jmp, 0);
	return 1;
}

/* A context access the verifier turns into several loads. */
SEC("tc")
int ctx_rewrite(struct __sk_buff *skb)
{
	/* ifindex: skb->dev, then dev->ifindex; gso_segs: skb->head,
	 * skb->end, then the shared info's gso_segs.
	 */
	return skb->ifindex * 16 + skb->gso_segs;
}

/* Tracing: PROBE_MEM loads, never checked. */

SEC("syscall")
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
int probe_bad_kern(void *ctx)
{
	struct bjk_obj *o = bjk_obj_bad(2);

	if (!o)
		return -1;
	out[0] = o->u64f + 1;
	out[1] = o->s16f + 1;
	return 0;
}

SEC("fentry/bjk_trace_target")
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
int BPF_PROG(trace_null, struct bpf_fentry_test_t *arg)
{
	out[0] = (u64)arg->a + 1;		/* arg is NULL: reads 0 */
	return 0;
}

char _license[] SEC("license") = "GPL";
