#!/bin/bash
# A check across the boots of a run (harness/judge.sh, the judge stage of
# make test and make judge, runs every tests/*/post.sh RUNDIR):
# the benchmark's quick form checks across its four boots (bench-off,
# bench-outline, bench-unmerged, bench-inline of tests/boots) that every
# figure is there and consistent (bench/report.c -q: merged checks no more
# than unmerged ones, no slow path taken, every load timed in every mode,
# both whole-system workloads, getppid() and datagrams over lo, with their
# programs costing something in every boot),
# with the interpreter's boot (bench-interp) when it ran: one verdict,
# bench.figures (post_verdict, harness/lib.sh). Not a speed test: the
# figures are not judged.
set -euo pipefail
. "$(dirname "$0")/../../harness/lib.sh"

run=$1
logs=("$run/bench-off.log" "$run/bench-outline.log" "$run/bench-unmerged.log"
	"$run/bench-inline.log")
have=0
for l in "${logs[@]}"; do
	[ -f "$l" ] && have=$((have + 1))
done
[ "$have" -eq 0 ] && exit 0	# none of the bench boots ran (BJK_BOOTS)
if [ "$have" -ne ${#logs[@]} ]; then
	post_verdict "$run" bench figures skip "needs all four bench-* boots"
	exit 0
fi
what="all programs x 4 modes, loads, getppid(), datagrams"
interp=()
if [ -f "$run/bench-interp.log" ]; then
	interp=(-i "$run/bench-interp.log")
	what="$what, interpreter"
fi
# bench/report.c, built by harness/tools.sh (harness/judge.sh runs it first)
report=$TOOLS/bjk-bench-report
if "$report" -q "${interp[@]}" "${logs[@]}" >"$run/bench-figures.txt" 2>&1; then
	sed 's/^/  /' "$run/bench-figures.txt"
	post_verdict "$run" bench figures ok "$what"
else
	sed 's/^/  /' "$run/bench-figures.txt"
	post_verdict "$run" bench figures not-ok "$(grep -m1 '^error' "$run/bench-figures.txt" | cut -c1-100)"
fi
