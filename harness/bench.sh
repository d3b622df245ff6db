#!/bin/bash
# make bench: the benchmark of KASAN checks in JITed BPF (bench/).
# Prepares like make test (nothing rebuilds when the kernel is up to date),
# then boots the same kernel four times under QEMU -icount shift=0,sleep=off
# (bpf_jit_kasan=off, outline, inline with merging off, inline), runs
# bench/runner.c in each (the runs, the images, the checks executed, the
# loads of the benchmark's programs and of a corpus of selftest objects),
# then the bug museum's kernel twice more, with the JIT off (the
# interpreter) and on with checks off (what its outline-KASAN C costs),
# and makes the table, CSV, JSON and PNG with bench/report.c and gnuplot in
# a new run directory $BJK_CACHE/bench/<run-id>. The previous run's CSV, if
# any, is compared for repeatability.
#   BJK_BENCH_REPEAT (5000), BJK_BENCH_PASSES (5), BJK_BENCH_COUNT (20),
#   BJK_BENCH_LOADS (5): test_run repeat, timed passes per program, runs of
#   the counting pass, timed loads per program (the smallest counts).
#   BJK_BENCH_CORPUS: the selftest objects (names, without .bpf.o) whose
#   loads are timed too; "" for none.
#   BJK_BENCH_INTERP=0: no interpreter boot (it needs the museum's kernel,
#   which make test builds; prepared here unless BJK_BENCH_PREPARE=0).
#   BJK_BENCH_PREPARE=0: skip the prepare stages and boot the kernels and
#   guest images the cache has (after a make test, or while another build
#   holds the machine); the images must contain the bench runner.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

repeat=${BJK_BENCH_REPEAT:-5000}
passes=${BJK_BENCH_PASSES:-5}
count=${BJK_BENCH_COUNT:-20}
loads=${BJK_BENCH_LOADS:-5}
corpus=${BJK_BENCH_CORPUS-test_l4lb test_l4lb_noinline test_cls_redirect test_xdp test_xdp_dynptr test_pkt_access connect4_prog test_global_data test_global_func_args test_skb_ctx}
interp=${BJK_BENCH_INTERP:-1}
t0=$(now)

if [ "${BJK_BENCH_PREPARE:-1}" = 0 ]; then
	note "bench: BJK_BENCH_PREPARE=0: using $(build_dir) and $(image_path) as they are"
else
	"$BJK_ROOT/harness/prepare.sh" || die "the harness stopped before booting (see above)"
	if [ "$interp" = 1 ]; then
		BJK_VARIANT=museum stage "museum kernel" "$BJK_ROOT/harness/prepare.sh" ||
			die "the museum's kernel, for the interpreter's boot, was not made (BJK_BENCH_INTERP=0 skips it)"
	fi
fi
command -v gnuplot >/dev/null || die "gnuplot not found (apt-get install gnuplot-nox)"

mkdir -p "$CACHE/bench"
prev=$(find "$CACHE/bench" -mindepth 2 -maxdepth 2 -name bench.csv 2>/dev/null | sort | tail -n1)
run=$CACHE/bench/$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$run"
note "bench: run directory $run (source $(source_version), series $(series_hash | cut -c1-12))"

# A private copy of the guest image: the shared one is rewritten by every
# make test that runs meanwhile, possibly from a tree without bench/.
# has_runner IMAGE: whether IMAGE has the runner.
has_runner() {
	zcat "$1" | cpio -t --quiet 2>/dev/null | grep -qx 'bench/bjk-bench' ||
		die "the guest image $1 has no bench/bjk-bench (was tests/bench/build.sh run?)"
}
cp "$(image_path)" "$run/image.cpio.gz"
has_runner "$run/image.cpio.gz"
# museum FUNCTION: a lib.sh function's answer for the museum's kernel (lib.sh
# sets the variant's paths when sourced).
museum() {
	BJK_VARIANT=museum bash -c '. "$1/harness/lib.sh" && "$2"' museum "$BJK_ROOT" "$1"
}
if [ "$interp" = 1 ]; then
	museum_build=$(museum build_dir)
	museum_kernel=$museum_build/arch/x86/boot/bzImage
	[ -f "$museum_kernel" ] ||
		die "no museum kernel ($museum_kernel) for the interpreter's boot: run make test once, or BJK_BENCH_INTERP=0"
	cp "$(museum image_path)" "$run/museum.cpio.gz"
	has_runner "$run/museum.cpio.gz"
	grep -q "series=$(museum series_hash) " "$museum_build/.bjk-built" 2>/dev/null ||
		note "bench: warning: the museum's kernel in $museum_build was not built from this tree's series"
fi

# The host tools (harness/tools.sh builds them when their source changed):
# bjk-suite and bjk-splat now, bjk-bench-report (bench/report.c) after the
# boots, built again then, as $TOOLS is shared with any other tree's
# harness that ran meanwhile.
tools() {
	"$BJK_ROOT/harness/tools.sh" >/dev/null || die "bench: building the host tools failed (harness/tools.sh)"
}
tools
rc=0
qemu_user_opts
modes=(off outline unmerged inline)
[ "$interp" = 1 ] && modes+=(interp museum-off)
read -r -a names <<<"$corpus"
corpus_arg=()
[ ${#names[@]} -gt 0 ] && corpus_arg=("bjk.bench_corpus=$(IFS=,; echo "${names[*]}")")
for mode in "${modes[@]}"; do
	img=(-i "$run/image.cpio.gz")
	kargs=("bpf_jit_kasan=$mode" "${corpus_arg[@]}")
	numbers=$repeat,$passes,$count,$loads
	case $mode in
	unmerged) kargs=(bpf_jit_kasan=inline bpf_jit_kasan_merge=0 "${corpus_arg[@]}") ;;
	# The museum's kernel and image, no selftest objects there: no corpus;
	# its C checks are calls, like the JIT's outline checks: no counting
	# pass; its loads are not reported (one each).
	interp | museum-off)
		img=(-k "$museum_kernel" -i "$run/museum.cpio.gz")
		kargs=(bjk.bench_jit=0)
		[ "$mode" = museum-off ] && kargs=(bpf_jit_kasan=off)
		numbers=$repeat,$passes,0,1
		;;
	esac
	stage "bench boot $mode" "$BJK_ROOT/harness/qemu.sh" "${qemu_opts[@]}" \
		"${img[@]}" -q -icount -q shift=0,sleep=off \
		"bench-$mode" "$run/$mode.log" bench "${kargs[@]}" kunit.enable=0 \
		"bjk.bench=$numbers" "${qemu_params[@]}" || rc=1
	"$TOOLS/bjk-suite" bench "bench-$mode" "$run/$mode.log" >"$run/$mode.ktap" || rc=1
	"$TOOLS/bjk-splat" "bench-$mode" "$run/$mode.log" >"$run/$mode.splat.ktap" || rc=1
	grep -hE '^not ok|^# ' "$run/$mode.ktap" "$run/$mode.splat.ktap" || true
done

rm -f "$run/image.cpio.gz" "$run/museum.cpio.gz"	# MBs; the consoles say what ran

tools
report=$TOOLS/bjk-bench-report
echo "==> bench report"
args=(-o "$run")
[ -n "$prev" ] && args+=(-C "$prev")
[ "$interp" = 1 ] && args+=(-i "$run/interp.log" -m "$run/museum-off.log")
"$report" "${args[@]}" "$run/off.log" "$run/outline.log" "$run/unmerged.log" \
	"$run/inline.log" || rc=1
if [ -f "$run/bench.gp" ]; then
	gnuplot "$run/bench.gp" || rc=1
fi
note "bench: table $run/table.txt, $run/{bench,load,system,interp}.csv, $run/bench.json, $run/{bench,load,system,interp}.png"
note "bench: consoles $run/{$(IFS=,; echo "${modes[*]}")}.log (total $(since "$t0"))"
[ "$rc" -eq 0 ] || die "bench: something failed (see above)"
