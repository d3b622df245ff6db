// SPDX-License-Identifier: GPL-2.0
/*
 * bjk_e2e: kfuncs for the end-to-end suite of KASAN checks in JITed BPF.
 *
 * Poison and unpoison a region, hand out a buffer, and a "bug zoo" that
 * hands BPF programs memory the way real kernel bugs do: an object that is
 * already freed, an allocation shorter than the size the kfunc declares, a
 * map value widened past its end. Every kfunc that hands out or poisons
 * memory records its address in the read-only parameter last_addr, so that
 * the runner can check the exact address of each report.
 *
 * A test module: it trusts its caller (the suite's runner, as root).
 */
#include <linux/module.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/slab.h>
#include <linux/kasan.h>

/*
 * Declared in mm/kasan/kasan.h, which a module cannot include; defined in
 * mm/kasan/shadow.c and exported there (EXPORT_SYMBOL_GPL) for the KASAN
 * KUnit tests. addr must be granule (8-byte) aligned; size is rounded up.
 */
void kasan_poison(const void *addr, size_t size, u8 value, bool init);

/*
 * The shadow value of poisoned regions: KASAN_GLOBAL_REDZONE, which
 * nothing on the heap or the stack ever has, so that a report of ours
 * reads "global-out-of-bounds" and no other report can be taken for it.
 */
#define BJK_POISON	0xF9
#define BJK_BUF_SIZE	512
/* Generic KASAN's granule (KASAN_GRANULE_SIZE, also in mm/kasan/kasan.h). */
#define BJK_GRANULE	8

static unsigned long last_addr;
module_param(last_addr, ulong, 0444);
MODULE_PARM_DESC(last_addr, "address the last kfunc poisoned or handed out");

static u8 *bjk_buffer;
static void *zoo_short;
static void *zoo_live;

/* An object for PROBE_MEM loads (a BTF object, not plain memory). */
struct bjk_obj {
	u64 u64f;
	u32 u32f;
	u16 u16f;
	u8 u8f;
	s8 s8f;
	s16 s16f;
	s32 s32f;
	u64 pad[4];
};

static struct bjk_obj *bjk_object;

int bjk_trace_target(struct bjk_obj *obj, u64 cookie);

/* Called under fentry of the suite's tracing case, with a poisoned object. */
noinline int bjk_trace_target(struct bjk_obj *obj, u64 cookie)
{
	barrier();
	return (int)cookie;
}
EXPORT_SYMBOL_GPL(bjk_trace_target);

static bool bjk_region_ok(const void *p, u32 size)
{
	return p && size && !((unsigned long)p & (BJK_GRANULE - 1)) &&
	       !(size & (BJK_GRANULE - 1));
}

/* A fresh kzalloc(@size) in *@slot, the previous one freed; in last_addr. */
static void *zoo_renew(void **slot, size_t size)
{
	kfree(*slot);
	*slot = kzalloc(size, GFP_KERNEL);
	if (*slot)
		last_addr = (unsigned long)*slot;
	return *slot;
}

__bpf_kfunc_start_defs();

/* Poison [p, p + size) (8-byte aligned) so that any checked access reports. */
__bpf_kfunc int bjk_poison(void *p__ign, u32 size)
{
	if (!bjk_region_ok(p__ign, size))
		return -EINVAL;
	last_addr = (unsigned long)p__ign;
	kasan_poison(p__ign, size, BJK_POISON, false);
	return 0;
}

/* Make [p, p + size) accessible again (shadow 0, as it was). */
__bpf_kfunc int bjk_unpoison(void *p__ign, u32 size)
{
	if (!bjk_region_ok(p__ign, size))
		return -EINVAL;
	kasan_poison(p__ign, size, 0, false);
	return 0;
}

/* The module's buffer (kmalloc'ed, BJK_BUF_SIZE bytes). */
__bpf_kfunc u8 *bjk_buf(const int rdwr_buf_size)
{
	if (rdwr_buf_size <= 0 || rdwr_buf_size > BJK_BUF_SIZE)
		return NULL;
	last_addr = (unsigned long)bjk_buffer;
	return bjk_buffer;
}

/* Bug zoo: an object that is already freed (slab-use-after-free). */
__bpf_kfunc u8 *bjk_zoo_freed(const int rdwr_buf_size)
{
	u8 *p = kmalloc(64, GFP_KERNEL);

	if (!p)
		return NULL;
	memset(p, 0x5a, 64);
	kfree(p);
	last_addr = (unsigned long)p;
	return p;
}

/*
 * Bug zoo: a live kmalloc(64) object, for a program to free with
 * bjk_zoo_free() while it still holds the pointer. Freed on the next call
 * or at unload if the program did not.
 */
__bpf_kfunc u8 *bjk_zoo_live(const int rdwr_buf_size)
{
	return zoo_renew(&zoo_live, 64);
}

/* Free what bjk_zoo_live() handed out; the program's pointer dangles. */
__bpf_kfunc void bjk_zoo_free(void *p__ign)
{
	if (p__ign == zoo_live) {
		kfree(zoo_live);
		zoo_live = NULL;
	}
}

/*
 * Bug zoo: an allocation of 20 bytes handed out as rdwr_buf_size bytes
 * (slab-out-of-bounds past byte 20). Freed on the next call or at unload.
 */
__bpf_kfunc u8 *bjk_zoo_short(const int rdwr_buf_size)
{
	return zoo_renew(&zoo_short, 20);
}

/*
 * Bug zoo: a map value handed back as rdwr_buf_size bytes, as if the
 * verifier had mis-tracked its bound: accesses past its end land in the
 * map's own allocation's redzone (out-of-bounds on the map).
 */
__bpf_kfunc u8 *bjk_zoo_widen(void *val__ign, const int rdwr_buf_size)
{
	last_addr = (unsigned long)val__ign;
	return val__ign;
}

/* A BTF object: loads from it are PROBE_MEM (not checked). */
__bpf_kfunc struct bjk_obj *bjk_obj_get(void)
{
	last_addr = (unsigned long)bjk_object;
	return bjk_object;
}

/*
 * An invalid object address: 1 = a user address (the JIT's guard returns
 * 0), 2 = an unmapped kernel address (the load faults, the exception table
 * fixes it up and returns 0): a page into the guard hole at the start of
 * the kernel's half, which moves with the paging levels the kernel runs
 * with (PGDIR_SHIFT is a variable with 5-level paging built in).
 */
__bpf_kfunc struct bjk_obj *bjk_obj_bad(u32 which)
{
	if (which == 1)
		return (struct bjk_obj *)0x1000UL;
	return (struct bjk_obj *)(GUARD_HOLE_BASE_ADDR + PAGE_SIZE);
}

/* Call bjk_trace_target() with the object poisoned (for an fentry program). */
__bpf_kfunc int bjk_trace_trigger(u64 cookie)
{
	int ret;

	last_addr = (unsigned long)bjk_object;
	kasan_poison(bjk_object, sizeof(*bjk_object), BJK_POISON, false);
	ret = bjk_trace_target(bjk_object, cookie);
	kasan_poison(bjk_object, sizeof(*bjk_object), 0, false);
	return ret;
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(bjk_kfunc_ids)
BTF_ID_FLAGS(func, bjk_poison)
BTF_ID_FLAGS(func, bjk_unpoison)
BTF_ID_FLAGS(func, bjk_buf, KF_RET_NULL)
BTF_ID_FLAGS(func, bjk_zoo_freed, KF_RET_NULL)
BTF_ID_FLAGS(func, bjk_zoo_short, KF_RET_NULL)
BTF_ID_FLAGS(func, bjk_zoo_live, KF_RET_NULL)
BTF_ID_FLAGS(func, bjk_zoo_free)
BTF_ID_FLAGS(func, bjk_zoo_widen, KF_RET_NULL)
BTF_ID_FLAGS(func, bjk_obj_get, KF_RET_NULL)
BTF_ID_FLAGS(func, bjk_obj_bad, KF_RET_NULL)
BTF_ID_FLAGS(func, bjk_trace_trigger)
BTF_KFUNCS_END(bjk_kfunc_ids)

static const struct btf_kfunc_id_set bjk_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &bjk_kfunc_ids,
};

static int __init bjk_init(void)
{
	int ret;

	bjk_buffer = kzalloc(BJK_BUF_SIZE, GFP_KERNEL);
	bjk_object = kzalloc(sizeof(*bjk_object), GFP_KERNEL);
	if (!bjk_buffer || !bjk_object) {
		ret = -ENOMEM;
		goto err;
	}
	/* Known values: the PROBE_MEM cases read them back through BPF. */
	bjk_object->u64f = 0x1122334455667788ULL;
	bjk_object->u32f = 0x99aabbcc;
	bjk_object->u16f = 0xddee;
	bjk_object->u8f = 0xf1;
	bjk_object->s8f = -2;
	bjk_object->s16f = -3;
	bjk_object->s32f = -4;
	ret = register_btf_kfunc_id_set(BPF_PROG_TYPE_SYSCALL, &bjk_kfunc_set);
	ret = ret ?: register_btf_kfunc_id_set(BPF_PROG_TYPE_SCHED_CLS, &bjk_kfunc_set);
	ret = ret ?: register_btf_kfunc_id_set(BPF_PROG_TYPE_TRACING, &bjk_kfunc_set);
	if (ret)
		goto err;
	return 0;
err:
	kfree(bjk_buffer);
	kfree(bjk_object);
	return ret;
}

static void __exit bjk_exit(void)
{
	kfree(zoo_short);
	kfree(zoo_live);
	kfree(bjk_buffer);
	kfree(bjk_object);
}

module_init(bjk_init);
module_exit(bjk_exit);
MODULE_DESCRIPTION("kfuncs for the end-to-end tests of KASAN checks in JITed BPF");
MODULE_LICENSE("GPL");
