#!/bin/bash
# make bench: the benchmark of KASAN checks in JITed BPF (bench/).
# Prepares like make test (nothing rebuilds when the kernel is up to date),
# then boots the same kernel four times under QEMU -icount shift=0,sleep=off
# (bpf_jit_kasan=off, outline, inline with merging off, inline), runs
# bench/runner.c in each and makes
# the table, CSV, JSON and PNG with bench/report.c and gnuplot in a new run
# directory $BJK_CACHE/bench/<run-id>. The previous run's CSV, if any, is
# compared for repeatability.
#   BJK_BENCH_REPEAT (5000), BJK_BENCH_PASSES (5), BJK_BENCH_COUNT (20):
#   test_run repeat, timed passes per program, runs of the counting pass.
#   BJK_BENCH_PREPARE=0: skip the prepare stages and boot the kernel and
#   guest image the cache has (after a make test, or while another build
#   holds the machine); the image must contain the bench runner.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

repeat=${BJK_BENCH_REPEAT:-5000}
passes=${BJK_BENCH_PASSES:-5}
count=${BJK_BENCH_COUNT:-20}
t0=$(now)

if [ "${BJK_BENCH_PREPARE:-1}" = 0 ]; then
	note "bench: BJK_BENCH_PREPARE=0: using $(build_dir) and $(image_path) as they are"
else
	"$BJK_ROOT/harness/prepare.sh" || die "the harness stopped before booting (see above)"
fi
command -v gnuplot >/dev/null || die "gnuplot not found (apt-get install gnuplot-nox)"

mkdir -p "$CACHE/bench"
prev=$(find "$CACHE/bench" -mindepth 2 -maxdepth 2 -name bench.csv 2>/dev/null | sort | tail -n1)
run=$CACHE/bench/$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$run"
: >"$run/results.tsv"
note "bench: run directory $run (source $(source_version), series $(series_hash | cut -c1-12))"

# A private copy of the guest image: the shared one is rewritten by every
# make test that runs meanwhile, possibly from a tree without bench/.
cp "$(image_path)" "$run/image.cpio.gz"
zcat "$run/image.cpio.gz" | cpio -t --quiet 2>/dev/null | grep -qx 'bench/bjk-bench' ||
	die "the guest image has no bench/bjk-bench (was tests/bench/build.sh run?)"

# bjk-bench-report (bench/report.c): built by harness/tools.sh when its
# source changed (prepare.sh has run it, unless BJK_BENCH_PREPARE=0).
"$BJK_ROOT/harness/tools.sh" >/dev/null || die "bench: building the host tools failed (harness/tools.sh)"
report=$TOOLS/bjk-bench-report

rc=0
qemu_user_opts
for mode in off outline unmerged inline; do
	case $mode in
	unmerged) kargs=(bpf_jit_kasan=inline bpf_jit_kasan_merge=0) ;;
	*) kargs=("bpf_jit_kasan=$mode") ;;
	esac
	stage "bench boot $mode" "$BJK_ROOT/harness/qemu.sh" "${qemu_opts[@]}" \
		-i "$run/image.cpio.gz" -q -icount -q shift=0,sleep=off \
		"bench-$mode" "$run/$mode.log" bench "${kargs[@]}" kunit.enable=0 \
		"bjk.bench=$repeat,$passes,$count" "${qemu_params[@]}" || rc=1
	"$TOOLS/bjk-suite" bench "bench-$mode" "$run/$mode.log" "$run/results.tsv" >"$run/$mode.ktap" || rc=1
	"$TOOLS/bjk-splat" "bench-$mode" "$run/$mode.log" "$run/results.tsv" >>"$run/$mode.ktap" || rc=1
	grep -E '^not ok|^# ' "$run/$mode.ktap" || true
done

rm -f "$run/image.cpio.gz"	# 4 MB; the consoles say what ran

echo "==> bench report"
args=(-o "$run")
[ -n "$prev" ] && args+=(-C "$prev")
"$report" "${args[@]}" "$run/off.log" "$run/outline.log" "$run/unmerged.log" \
	"$run/inline.log" || rc=1
if [ -f "$run/bench.gp" ]; then
	gnuplot "$run/bench.gp" || rc=1
fi
note "bench: table $run/table.txt, $run/bench.csv, $run/bench.json, $run/bench.png"
note "bench: consoles $run/{off,outline,unmerged,inline}.log (total $(since "$t0"))"
[ "$rc" -eq 0 ] || die "bench: something failed (see above)"
