#!/bin/bash
# A check across the boots of a run (harness/judge.sh, the judge stage of
# make test, make judge and make bench, runs it as its group's check:
# tests/bench/check.sh RUNDIR MODE=CONSOLE..., the consoles of the boots of group
# "bench" that ran, by role):
# the benchmark's boots checked for every figure there and consistent
# (tests/bench/report.c -q: merged checks no more
# than unmerged ones, no slow path taken, every load timed in every mode,
# both whole-system workloads, getppid() and datagrams over lo, with their
# programs costing something in every boot),
# with the interpreter's boot when it ran: one verdict, bench.figures
# (post_verdict, harness/lib.sh). Not a speed test: the figures are not
# judged.
set -euo pipefail
. "$(dirname "$0")/../../harness/lib.sh"
# shellcheck source=SCRIPTDIR/../../harness/verdicts.sh
. "$BJK_ROOT/harness/verdicts.sh"

run=$1
shift
what="all programs x 4 modes, loads, getppid(), datagrams"
[[ " $* " == *" interp="* ]] && what="$what, interpreter"
# tests/bench/report.c, built by harness/tools.sh (harness/judge.sh runs it first)
report=$TOOLS/bjk-bench-report
rc=0
"$report" -q "$@" >"$run/bench-figures.txt" 2>&1 || rc=$?
sed 's/^/  /' "$run/bench-figures.txt"
if [ "$rc" -eq 0 ]; then
	post_verdict "$run" bench figures ok "$what"
elif [ "$rc" -eq 2 ]; then	# a mode's boot did not run (BJK_BOOTS)
	post_verdict "$run" bench figures skip \
		"$(grep -m1 'no console' "$run/bench-figures.txt" | cut -c1-100)"
else
	post_verdict "$run" bench figures not-ok \
		"$(grep -m1 '^error' "$run/bench-figures.txt" | cut -c1-100)"
fi
