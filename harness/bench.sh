#!/bin/bash
# make bench: the benchmark of KASAN checks in JITed BPF (tests/bench/).
# Prepares like make test (nothing rebuilds when the kernel is up to date),
# then boots the group "bench" of tests/boots, the quick form's boots, with
# make bench's own numbers (bjk.bench=, bjk.bench_corpus=), through the
# same boot and judge stages as make test (harness/boot.sh,
# harness/judge.sh), into a new run directory $BJK_CACHE/bench/<run-id>;
# then makes the table, CSV, JSON and PNG there with tests/bench/report.c and
# gnuplot. The previous run's CSV, if any, is compared for repeatability.
# Its settings, BJK_BENCH_* (repeat, passes, counting runs, loads, the
# selftest objects whose loads are timed, the museum kernel's boots, the
# prepare stages): harness/settings.sh.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# shellcheck source=SCRIPTDIR/boots.sh
. "$BJK_ROOT/harness/boots.sh"

repeat=$BJK_BENCH_REPEAT
passes=$BJK_BENCH_PASSES
count=$BJK_BENCH_COUNT
loads=$BJK_BENCH_LOADS
corpus=$BJK_BENCH_CORPUS
interp=$BJK_BENCH_INTERP
t0=$(now)

if [ "$BJK_BENCH_PREPARE" = 0 ]; then
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

# The group's lines with make bench's numbers in place of the quick form's
# (the last bjk.bench= on the command line would win too; replaced, the
# console's command line says what ran). On the museum's kernel: no
# counting pass (its C code's checks are calls, as outline checks are), one
# load each (not reported), no selftest objects in its image.
read -r -a names <<<"$corpus"
BJK_BOOTS='' boot_lines | while IFS= read -r line; do
	boot_fields "$line"
	[[ ",$b_groups," == *,bench:* ]] || continue
	if [ "$b_kernel" = museum ] && [ "$interp" != 1 ]; then
		continue
	fi
	params=()
	for w in "${b_params[@]}"; do
		case "$w" in bjk.bench=* | bjk.bench_corpus=*) ;; *) params+=("$w") ;; esac
	done
	if [ "$b_kernel" = museum ]; then
		params+=("bjk.bench=$repeat,$passes,0,1")
	else
		params+=("bjk.bench=$repeat,$passes,$count,$loads")
		if [ ${#names[@]} -gt 0 ]; then
			params+=("bjk.bench_corpus=$(IFS=,; echo "${names[*]}")")
		fi
	fi
	IFS='|' read -r -a f <<<"$line"
	f[3]=" ${params[*]} "
	(IFS='|'; echo "${f[*]}")
done >"$run/boots"
[ -s "$run/boots" ] || die "bench: no boot of group bench in tests/boots"

# of_kernel KERNEL FUNCTION: a lib.sh function's answer for that kernel
# (lib.sh sets the kernel's paths when sourced).
of_kernel() {
	BJK_VARIANT=$1 bash -c '. "$1/harness/lib.sh" && "$2"' of_kernel "$BJK_ROOT" "$2"
}
# Private copies of the guest images: the shared ones are rewritten by every
# make test that runs meanwhile, possibly from a tree without bench/.
# private_image KERNEL: copies that kernel's image into the run directory.
private_image() {
	local img=$run/$1.cpio.gz
	cp "$(of_kernel "$1" image_path)" "$img"
	zcat "$img" | cpio -t --quiet 2>/dev/null | grep -qx 'bench/bjk-bench' ||
		die "the guest image of the $1 kernel has no bench/bjk-bench (was tests/bench/build.sh run?)"
	boot_image[$1]=$img
}
private_image series
if [ "$interp" = 1 ]; then
	private_image museum
	museum_build=$(of_kernel museum build_dir)
	[ -f "$museum_build/arch/x86/boot/bzImage" ] ||
		die "no museum kernel in $museum_build for the interpreter's boot: run make test once, or BJK_BENCH_INTERP=0"
	grep -q "series=$(of_kernel museum series_hash) " "$museum_build/.bjk-built" 2>/dev/null ||
		note "bench: warning: the museum's kernel in $museum_build was not built from this tree's series"
fi

boot_each "$run"
rm -f "$run"/*.cpio.gz	# MBs; the consoles say what ran

# The verdicts, the table and the closing line (harness/tools.sh builds the
# report there, from this tree's source).
rc=0
"$BJK_ROOT/harness/judge.sh" "$run" || rc=1

echo "==> bench report"
args=(-o "$run")
[ -n "$prev" ] && args+=(-C "$prev")
mapfile -t logs < <(group_logs "$run" bench)
"$TOOLS/bjk-bench-report" "${args[@]}" "${logs[@]}" || rc=1
if [ -f "$run/bench.gp" ]; then
	gnuplot "$run/bench.gp" || rc=1
fi
note "bench: table $run/table.txt, $run/{bench,load,system,interp}.csv, $run/bench.json, $run/{bench,load,system,interp}.png"
note "bench: consoles $run/*.log (total $(since "$t0"))"
[ "$rc" -eq 0 ] || die "bench: something failed (see above)"
