/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bjk-fuzz: what its parts share. A program is kept as a struct fz_prog:
 * its type, its instructions as loaded except that an ld_imm64 of a map
 * (src_reg BPF_PSEUDO_MAP_FD or BPF_PSEUDO_MAP_VALUE) carries the index of
 * the map in fz_maps[] instead of a file descriptor, the packet its test
 * run gets and the seed its maps are filled from. Every map a program may
 * name is in the fixed table fz_maps[], so a program on disk means the same
 * thing in every VM, run and reproducer.
 */
#ifndef BJK_FUZZ_H
#define BJK_FUZZ_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/bpf.h>

#define FZ_MAX_INSNS	512
#define FZ_MAX_DATA	256

struct fz_prog {
	uint32_t type;			/* BPF_PROG_TYPE_SOCKET_FILTER, _SCHED_CLS, _XDP */
	uint32_t len;			/* instructions */
	uint32_t data_len;		/* the test run's packet */
	uint64_t seed;			/* the maps' contents (fz_map_value()) */
	uint8_t data[FZ_MAX_DATA];
	struct bpf_insn insns[FZ_MAX_INSNS];
};

struct fz_map {
	const char *name;
	uint32_t type, key_size, value_size, max_entries, flags;
};

/*
 * The maps every program may use. Value sizes and alignments differ on
 * purpose: an access at a value's end lands in a different place in each
 * (the next element, a redzone, the end of a kmalloc object, an LPM node).
 * The names match test_verifier's fixups where one does (fixup_map_hash_8b
 * is hash_8b), so its programs can be seeds.
 */
enum {
	FZ_ARRAY_8, FZ_ARRAY_48, FZ_ARRAY_SMALL, FZ_ARRAY_13, FZ_ARRAY_64,
	FZ_HASH_8B, FZ_HASH_16B, FZ_HASH_48B, FZ_LRU_24, FZ_PERCPU_32,
	FZ_LPM_12, FZ_RINGBUF, FZ_PROG_ARRAY, FZ_PROBE, FZ_NMAPS
};

static const struct fz_map fz_maps[FZ_NMAPS] = {
	[FZ_ARRAY_8] = { "array_8", BPF_MAP_TYPE_ARRAY, 4, 8, 1, 0 },
	[FZ_ARRAY_48] = { "array_48b", BPF_MAP_TYPE_ARRAY, 4, 48, 1, 0 },
	[FZ_ARRAY_SMALL] = { "array_small", BPF_MAP_TYPE_ARRAY, 4, 1, 1, 0 },
	[FZ_ARRAY_13] = { "array_13", BPF_MAP_TYPE_ARRAY, 4, 13, 2, 0 },
	[FZ_ARRAY_64] = { "array_64", BPF_MAP_TYPE_ARRAY, 4, 64, 4, 0 },
	[FZ_HASH_8B] = { "hash_8b", BPF_MAP_TYPE_HASH, 8, 8, 16, 0 },
	[FZ_HASH_16B] = { "hash_16b", BPF_MAP_TYPE_HASH, 8, 16, 16, 0 },
	[FZ_HASH_48B] = { "hash_48b", BPF_MAP_TYPE_HASH, 8, 48, 16, 0 },
	[FZ_LRU_24] = { "lru_24", BPF_MAP_TYPE_LRU_HASH, 4, 24, 8, 0 },
	[FZ_PERCPU_32] = { "percpu_32", BPF_MAP_TYPE_PERCPU_ARRAY, 4, 32, 2, 0 },
	/* key: u32 prefix length, then 4 bytes of address */
	[FZ_LPM_12] = { "lpm_12", BPF_MAP_TYPE_LPM_TRIE, 8, 12, 8, BPF_F_NO_PREALLOC },
	[FZ_RINGBUF] = { "ringbuf", BPF_MAP_TYPE_RINGBUF, 0, 0, 4096, 0 },
	[FZ_PROG_ARRAY] = { "prog_array", BPF_MAP_TYPE_PROG_ARRAY, 4, 4, 4, 0 },
	/* the belief probe's record (probe.h): 40 slots, then a marker */
	[FZ_PROBE] = { "probe", BPF_MAP_TYPE_ARRAY, 4, 328, 1, 0 },
};

/* Does the map hold values the fuzzer fills and compares after a run? */
static inline bool fz_map_has_values(int m)
{
	return fz_maps[m].type != BPF_MAP_TYPE_RINGBUF &&
	       fz_maps[m].type != BPF_MAP_TYPE_PROG_ARRAY;
}

/* The key of element @i (key_size bytes at @key). */
static inline void fz_map_key(int m, uint32_t i, void *key)
{
	uint8_t *k = key;
	uint64_t v = i;

	switch (fz_maps[m].type) {
	case BPF_MAP_TYPE_LPM_TRIE: {
		uint32_t plen = 32, addr = 0x0a000000u | i;

		__builtin_memcpy(k, &plen, 4);
		__builtin_memcpy(k + 4, &addr, 4);
		return;
	}
	default:
		if (fz_maps[m].key_size == 8)
			__builtin_memcpy(k, &v, 8);
		else
			__builtin_memcpy(k, &i, 4);
	}
}

/* splitmix64: the one PRNG of the fuzzer, the maps' contents included */
static inline uint64_t fz_mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * The contents of element @i of map @m for seed @seed: 8-byte words, each
 * a value that bounds checks and ALU operations treat specially (0, 1, -1,
 * the 32-bit edges, 2^32, small numbers, powers of two) or a random one, so
 * that scalars a program reads from a map are unknown to the verifier and
 * sit often at an edge at run time.
 */
static inline void fz_map_value(uint64_t seed, int m, uint32_t i, void *val)
{
	static const uint64_t edge[] = {
		0, 1, 2, 7, 8, 0xff, 0x100, 0x7fffffff, 0x80000000, 0xffffffff,
		0x100000000ull, 0x7fffffffffffffffull, 0x8000000000000000ull,
		~0ull, ~0ull - 1, 0xffffffff00000000ull, 0x80000001ull, 48, 64,
	};
	uint64_t s = seed ^ ((uint64_t)m << 40) ^ ((uint64_t)i << 20);
	uint8_t *v = val;
	uint32_t n = fz_maps[m].value_size, o;

	for (o = 0; o < n; o += 8) {
		uint64_t r = fz_mix(&s), w;
		uint32_t k = n - o < 8 ? n - o : 8;

		switch (r & 3) {
		case 0:
			w = edge[(r >> 8) % (sizeof(edge) / sizeof(edge[0]))];
			break;
		case 1:
			w = (r >> 8) & 0x3f;
			break;
		case 2:
			w = 1ull << ((r >> 8) & 63);
			break;
		default:
			w = fz_mix(&s);
		}
		__builtin_memcpy(v + o, &w, k);
	}
}

/* Is @insn the first half of an ld_imm64 (two instruction slots)? */
static inline bool fz_insn_is_ld64(const struct bpf_insn *insn)
{
	return insn->code == (BPF_LD | BPF_DW | BPF_IMM);
}

/* Is @insn the first half of an ld_imm64 that names a map? */
static inline bool fz_insn_is_map(const struct bpf_insn *insn)
{
	return fz_insn_is_ld64(insn) &&
	       (insn->src_reg == BPF_PSEUDO_MAP_FD || insn->src_reg == BPF_PSEUDO_MAP_VALUE);
}

/* A store, plain or atomic, through the frame pointer: *(r10 + off) = ... */
static inline bool fz_insn_is_stack_store(const struct bpf_insn *insn)
{
	uint8_t cls = BPF_CLASS(insn->code);

	return (cls == BPF_ST || cls == BPF_STX) && insn->dst_reg == BPF_REG_10;
}

/* A jump: a JMP or JMP32 instruction but call and exit. */
static inline bool fz_insn_is_jump(const struct bpf_insn *insn)
{
	uint8_t cls = BPF_CLASS(insn->code), op = BPF_OP(insn->code);

	return (cls == BPF_JMP || cls == BPF_JMP32) && op != BPF_CALL && op != BPF_EXIT;
}

/*
 * A jump's offset, read and written: in imm for the JMP32 form of ja
 * (gotol), else in off.
 * (For any jump but call and exit.)
 */
static inline int32_t fz_insn_jump_off(const struct bpf_insn *insn)
{
	return BPF_CLASS(insn->code) == BPF_JMP32 && BPF_OP(insn->code) == BPF_JA ?
	       insn->imm : insn->off;
}

static inline void fz_insn_set_jump_off(struct bpf_insn *insn, int32_t off)
{
	if (BPF_CLASS(insn->code) == BPF_JMP32 && BPF_OP(insn->code) == BPF_JA)
		insn->imm = off;
	else
		insn->off = off;
}

/*
 * Does @insn name a subprogram's start, at its index + 1 + imm: a
 * bpf-to-bpf call or a callback's ld_imm64 (add_subprog_and_kfunc())?
 */
static inline bool fz_insn_names_subprog(const struct bpf_insn *insn)
{
	return (insn->code == (BPF_JMP | BPF_CALL) && insn->src_reg == BPF_PSEUDO_CALL) ||
	       (fz_insn_is_ld64(insn) && insn->src_reg == BPF_PSEUDO_FUNC);
}

/*
 * A program on disk: text, so that a finding can be read and diffed.
 *   bjk-fuzz program 1
 *   type <n>
 *   seed <hex>
 *   data <hex bytes>
 *   insn <code> <dst> <src> <off> <imm>    (one a line; hex code, decimal rest)
 *   end                                    (optional: the rest is ignored)
 * fz_prog_save() writes PATH.tmp and renames it to PATH: a file is whole or
 * absent. Both return 0, or -1 with errno (EINVAL: not a program file).
 */
int fz_prog_save(const char *path, const struct fz_prog *p);
int fz_prog_load(const char *path, struct fz_prog *p);
void fz_prog_print(FILE *f, const struct fz_prog *p);

/*
 * A self-contained C reproducer (raw bpf() calls, no libbpf) for @p:
 * creates the maps it names, fills them as the fuzzer did, loads it (its
 * verifier log on failure), runs it once on its packet and exits 0 when it
 * loaded and ran. @title, @console and @vlog go into its comment. (repro.c)
 */
int fz_repro_write(FILE *f, const struct fz_prog *p, const char *title,
		   const char *console, const char *vlog);

/*
 * The BTF @p is loaded with when it has subprograms (a BPF_PSEUDO_CALL or
 * BPF_PSEUDO_FUNC): the verifier refuses a callback without func_info.
 * Writes the raw BTF (header, types, strings) to @buf, and to @fi (room for
 * FZ_BTF_MAX_FUNCS) a record per subprogram by insn_off, @nfi of them.
 * Returns the BTF's length, 0 when @p needs none, or -1 with errno (E2BIG:
 * more subprograms than the kernel takes; ENOSPC: @size too small). (btf.c)
 */
#define FZ_BTF_MAX_FUNCS	256	/* the kernel's BPF_MAX_SUBPROGS */
#define FZ_BTF_SIZE		(64 + 24 * FZ_BTF_MAX_FUNCS)
int fz_btf_build(const struct fz_prog *p, void *buf, size_t size, struct bpf_func_info *fi,
		 uint32_t *nfi);

#endif /* BJK_FUZZ_H */
