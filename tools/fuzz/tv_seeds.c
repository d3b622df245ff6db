// SPDX-License-Identifier: GPL-2.0
/*
 * tv_seeds: the programs of the kernel's test_verifier as seed files of
 * the fuzzer, DIR/tv-<index>.prog (index: in test_verifier's tests[]):
 *   tv_seeds DIR
 *
 * Built like tests/selftests/tv_cases.c, from the tree's test_verifier.c
 * and the verifier/tests.h tests/selftests/build.sh generates, so that
 * tests[] and struct bpf_test are the kernel's. It runs on the build host
 * and loads nothing.
 *
 * Taken: socket filter (prog_type 0 included), sched_cls and XDP programs
 * whose maps are all in fz_maps[] (test_verifier's fixups, the map's index
 * going into imm where test_verifier puts a map fd). Left out: programs
 * built by a fill_helper, programs needing BTF (kfuncs, func_info, BTF
 * types, the maps with spin locks, timers or kptrs), other maps, programs
 * longer than FZ_MAX_INSNS and the few that fz_prog_load() would refuse.
 */
#define main test_verifier_main
#include "test_verifier.c"
#undef main

#include <sys/stat.h>

#include "fuzz.h"

enum {
	SKIP_PROG_TYPE, SKIP_FILL, SKIP_BTF, SKIP_MAP, SKIP_LONG, SKIP_FIXUP,
	SKIP_UNFIXED, SKIP_REG, NSKIP
};

static const char *const skip_name[NSKIP] = {
	[SKIP_PROG_TYPE] = "prog type",
	[SKIP_FILL] = "fill_helper",
	[SKIP_BTF] = "BTF",
	[SKIP_MAP] = "other maps",
	[SKIP_LONG] = "too long",
	[SKIP_FIXUP] = "fixup not on a map ld_imm64",
	[SKIP_UNFIXED] = "map ld_imm64 without fixup",
	[SKIP_REG] = "register over 10",
};

/* Put map @m in imm of the insns of @fixup (a 0-terminated list). */
static bool tv_fixup(struct fz_prog *p, const int *fixup, int m, bool *fixed)
{
	for (; *fixup; fixup++) {
		if ((uint32_t)*fixup >= p->len || !fz_insn_is_map(&p->insns[*fixup]))
			return false;
		p->insns[*fixup].imm = m;
		fixed[*fixup] = true;
	}
	return true;
}

/* Why test @t is no seed (SKIP_*), or -1 with @p its seed. */
static int tv_seed(const struct bpf_test *t, struct fz_prog *p)
{
	/* test_verifier's fixups that need something fz_maps[] has not */
	const int *other[] = {
		t->fixup_map_sockmap, t->fixup_map_sockhash, t->fixup_map_xskmap,
		t->fixup_map_stacktrace, t->fixup_map_in_map, t->fixup_cgroup_storage,
		t->fixup_percpu_cgroup_storage, t->fixup_map_array_ro,
		t->fixup_map_array_wo, t->fixup_sk_storage_map,
		t->fixup_map_event_output, t->fixup_map_reuseport_array,
	};
	const struct {
		const int *fixup;
		int map;
	} fz[] = {
		{ t->fixup_map_hash_8b, FZ_HASH_8B },
		{ t->fixup_map_hash_16b, FZ_HASH_16B },
		{ t->fixup_map_hash_48b, FZ_HASH_48B },
		{ t->fixup_map_array_48b, FZ_ARRAY_48 },
		{ t->fixup_map_array_small, FZ_ARRAY_SMALL },
		{ t->fixup_map_ringbuf, FZ_RINGBUF },
		{ t->fixup_prog1, FZ_PROG_ARRAY },
		{ t->fixup_prog2, FZ_PROG_ARRAY },
	};
	bool fixed[FZ_MAX_INSNS] = { false };
	uint32_t i, prog_type = t->prog_type;
	bool data = false;
	int len;

	if (!prog_type)
		prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	if (prog_type != BPF_PROG_TYPE_SOCKET_FILTER &&
	    prog_type != BPF_PROG_TYPE_SCHED_CLS && prog_type != BPF_PROG_TYPE_XDP)
		return SKIP_PROG_TYPE;
	if (t->fill_helper || t->fill_insns)
		return SKIP_FILL;
	if (t->fixup_kfunc_btf_id[0].kfunc || t->kfunc || t->func_info_cnt ||
	    t->btf_types[0] || t->fixup_map_spin_lock[0] || t->fixup_map_timer[0] ||
	    t->fixup_map_kptr[0])
		return SKIP_BTF;
	for (i = 0; i < ARRAY_SIZE(other); i++)
		if (other[i][0])
			return SKIP_MAP;
	len = probe_filter_length(t->insns);
	if (len > FZ_MAX_INSNS)
		return SKIP_LONG;

	memset(p, 0, sizeof(*p));
	p->type = prog_type;
	p->len = len;
	memcpy(p->insns, t->insns, len * sizeof(p->insns[0]));
	for (i = 0; i < ARRAY_SIZE(fz); i++)
		if (!tv_fixup(p, fz[i].fixup, fz[i].map, fixed))
			return SKIP_FIXUP;
	for (i = 0; i < p->len; i++) {
		const struct bpf_insn *in = &p->insns[i];

		/* an fd test_verifier leaves as is: no map of fz_maps[] */
		if (fz_insn_is_map(in) && !fixed[i])
			return SKIP_UNFIXED;
		/* kfunc calls and kernel symbols name BTF ids */
		if ((in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_KFUNC_CALL) ||
		    (in->code == (BPF_LD | BPF_DW | BPF_IMM) && in->src_reg == BPF_PSEUDO_BTF_ID))
			return SKIP_BTF;
		/* map fds by index need fd_array, which nothing here passes */
		if (in->code == (BPF_LD | BPF_DW | BPF_IMM) &&
		    (in->src_reg == BPF_PSEUDO_MAP_IDX || in->src_reg == BPF_PSEUDO_MAP_IDX_VALUE))
			return SKIP_MAP;
		/* the tests of invalid registers: fz_prog_load() takes 0..10 */
		if (in->dst_reg > 10 || in->src_reg > 10)
			return SKIP_REG;
	}

	/* test_verifier runs them on TEST_DATA_LEN bytes of .data */
	for (i = 0; i < TEST_DATA_LEN; i++)
		data |= t->data[i] != 0;
	if (data) {
		p->data_len = TEST_DATA_LEN < FZ_MAX_DATA ? TEST_DATA_LEN : FZ_MAX_DATA;
		memcpy(p->data, t->data, p->data_len);
	} else {
		/* an IPv4 Ethernet frame of zeros */
		p->data_len = 64;
		p->data[12] = 0x08;
		p->data[13] = 0x00;
	}
	return -1;
}

int main(int argc, char **argv)
{
	static struct fz_prog p;
	unsigned int skipped[NSKIP] = { 0 }, i, n = 0, k = 0;
	char path[PATH_MAX];
	int why;

	if (argc != 2) {
		fprintf(stderr, "usage: tv_seeds DIR\n");
		return 2;
	}
	if (mkdir(argv[1], 0755) && errno != EEXIST) {
		fprintf(stderr, "tv_seeds: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		why = tv_seed(&tests[i], &p);
		if (why >= 0) {
			skipped[why]++;
			k++;
			continue;
		}
		p.seed = i;
		snprintf(path, sizeof(path), "%s/tv-%u.prog", argv[1], i);
		if (fz_prog_save(path, &p)) {
			fprintf(stderr, "tv_seeds: %s: %s\n", path, strerror(errno));
			return 1;
		}
		n++;
	}
	fprintf(stderr, "tv_seeds: %u of %zu programs written (%u skipped", n,
		ARRAY_SIZE(tests), k);
	for (i = 0, why = 0; i < NSKIP; i++) {
		if (!skipped[i])
			continue;
		fprintf(stderr, "%s%s %u", why++ ? ", " : ": ", skip_name[i], skipped[i]);
	}
	fprintf(stderr, ")\n");
	return 0;
}
