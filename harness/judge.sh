#!/bin/bash
# The judge stage: the verdicts of a run from what its boots left, no boot.
#   judge.sh RUNDIR     (make judge RUN=RUNDIR; make test and make bench end
#                       with it)
# For each boot of RUNDIR/boots (the lines of tests/boots the run booted)
# with a console RUNDIR/<name>.log: harness/judge-boot.sh, its verdicts in
# RUNDIR/ktap/. Then the host-side tests' verdicts as they wrote them
# (RUNDIR/host/), the checks across boots (tests/GROUP/check.sh, each
# handed its group's consoles, RUNDIR/post/), and from those KTAP files
# alone (harness/src/summary.c, their one reader) RUNDIR/summary.txt (the
# table and the closing line), RUNDIR/run.ktap (one KTAP document: run >
# boot > suite > case; `kunit.py parse` reads it) and RUNDIR/run.json (the
# same results). RUNDIR/ktap/ and RUNDIR/post/ are written anew.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# shellcheck source=SCRIPTDIR/verdicts.sh
. "$BJK_ROOT/harness/verdicts.sh"

run=${1:-}
[ -n "$run" ] || die "usage: make judge RUN=<run directory> (\$BJK_CACHE/logs/<run>, printed by make test as 'run: ...')"
[ -d "$run" ] || die "judge: $run is not a directory (a run of make test: $CACHE/logs/<run>)"
[ -f "$run/boots" ] || die "judge: $run has no 'boots' file: not a run of make test or make bench"
run=$(cd "$run" && pwd)	# kunit.py reads its files from the kernel tree's directory
# The judge's own programs as the sources are now (built when they changed).
"$BJK_ROOT/harness/tools.sh" >/dev/null || die "judge: building the harness's tools failed (harness/tools.sh)"
t0=$(now)
# results.tsv: what an older harness kept the rows in; nothing reads it now.
rm -rf "$run/ktap" "$run/post" "$run/results.tsv"
mkdir -p "$run/ktap"

n=0
verdicts=()
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
		mapfile -t -O "${#verdicts[@]}" verdicts < <(boot_verdicts "$run" "$b_name" "$b_suites")
		n=$((n + 1))
	done
done
# A host-side test of an older harness kept its row's time and note in
# host/<name>.tsv: they become its KTAP's verdict line, once.
for f in "$run"/host/*.tsv; do
	[ -f "$f" ] || continue
	IFS=$'\t' read -r hb hs _ _ _ hsecs hnote <"$f"
	k=$run/host/$hb.$hs.ktap
	if [ -f "$k" ] && ! grep -q '^# bjk-verdict ' "$k"; then
		verdict_end "$hb" "$hs" "$hsecs" "$hnote" >>"$k"
	fi
done
for f in "$run"/host/*.ktap; do
	[ -f "$f" ] && verdicts+=("$f")
done
[ "${#verdicts[@]}" -gt 0 ] || die "judge: no console of any boot in $run"
post_checks "$run"
for f in "$run"/post/*.ktap; do
	[ -f "$f" ] && verdicts+=("$f")
done

echo "==> summary"
rc=0
"$TOOLS/bjk-summary" -k "$run/run.ktap" -j "$run/run.json" "${verdicts[@]}" \
	>"$run/summary.txt" || rc=$?
note "judge: $n boot(s) of $run judged in $(since "$t0"); KTAP $run/run.ktap, JSON $run/run.json"
cat "$run/summary.txt"
exit "$rc"
