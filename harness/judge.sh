#!/bin/bash
# The judge stage: the verdicts of a run from what its boots left, no boot.
#   judge.sh RUNDIR     (make judge RUN=RUNDIR; make test and make bench end
#                       with it)
# For each boot of RUNDIR/boots (the lines of tests/boots the run booted)
# with a console RUNDIR/<name>.log: harness/judge-boot.sh. Then the rows of
# the host-side tests as they wrote them (RUNDIR/host/), the checks across
# boots (the checks of harness/parts, each handed its group's consoles),
# and from all rows RUNDIR/summary.txt (the table
# and the closing line), RUNDIR/run.ktap (one KTAP document: run > boot >
# suite > case; `kunit.py parse` reads it; each suite's part is
# RUNDIR/ktap/<boot>.<suite>.ktap or RUNDIR/host/...) and RUNDIR/run.json
# (the same results). RUNDIR/results.tsv and RUNDIR/ktap/ are written anew.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

run=${1:-}
[ -n "$run" ] || die "usage: make judge RUN=<run directory> (\$BJK_CACHE/logs/<run>, printed by make test as 'run: ...')"
[ -d "$run" ] || die "judge: $run is not a directory (a run of make test: $CACHE/logs/<run>)"
[ -f "$run/boots" ] || die "judge: $run has no 'boots' file: not a run of make test or make bench"
# The judge's own programs as the sources are now (built when they changed).
"$BJK_ROOT/harness/tools.sh" >/dev/null || die "judge: building the harness's tools failed (harness/tools.sh)"
t0=$(now)
: >"$run/results.tsv"
rm -rf "$run/ktap"
mkdir -p "$run/ktap"

n=0
mapfile -t boots <"$run/boots"
# The boots without a baseline first: the others read their
# verdicts (harness/src/suite.c).
for pass in baseline other; do
	for line in "${boots[@]}"; do
		boot_fields "$line"
		[ -f "$run/$b_name.log" ] || continue
		[ -z "$b_baseline" ] && [ "$pass" = other ] && continue
		[ -n "$b_baseline" ] && [ "$pass" = baseline ] && continue
		stage "judge $b_name" "$BJK_ROOT/harness/judge-boot.sh" "$b_name" "$b_suites" \
			"$run" "$b_baseline" || true
		n=$((n + 1))
	done
done
for f in "$run"/host/*.tsv; do
	if [ -f "$f" ]; then
		cat "$f" >>"$run/results.tsv"
	fi
done
[ "$n" -gt 0 ] || [ -s "$run/results.tsv" ] || die "judge: no console of any boot in $run"
post_checks "$run"

echo "==> summary"
rc=0
"$TOOLS/bjk-summary" -k "$run/run.ktap" -j "$run/run.json" "$run/results.tsv" \
	>"$run/summary.txt" || rc=$?
note "judge: $n boot(s) of $run judged in $(since "$t0"); KTAP $run/run.ktap, JSON $run/run.json"
cat "$run/summary.txt"
exit "$rc"
