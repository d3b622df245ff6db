#!/bin/bash
# make judge RUN=RUNDIR: judge a stored run of make test again, from the
# consoles its boots left there, without booting: each boot of tests/boots
# that has RUNDIR/<name>.log (harness/judge-boot.sh), the rows of the
# host-side tests as they were (they boot themselves), the checks across
# boots (tests/*/post.sh), then the summary and the closing line, as make
# test ends. RUNDIR/results.tsv is written anew; the run's first one is
# kept as results.first.tsv. BJK_BOOTS limits the boots as for make test.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

run=${1:-}
[ -n "$run" ] || die "usage: make judge RUN=<run directory> (\$BJK_CACHE/logs/<run>, printed by make test as 'run: ...')"
[ -d "$run" ] || die "judge: $run is not a directory (a run of make test: $CACHE/logs/<run>)"
[ -f "$run/results.tsv" ] || die "judge: $run has no results.tsv: not a run of make test"
[ -x "$TOOLS/bjk-suite" ] && [ -x "$TOOLS/bjk-splat" ] ||
	die "judge: the harness's tools are not built in $TOOLS (run make test once)"
t0=$(now)
[ -f "$run/results.first.tsv" ] || cp "$run/results.tsv" "$run/results.first.tsv"
: >"$run/results.tsv"

n=0
mapfile -t boots < <(boot_lines)
for line in "${boots[@]}"; do
	IFS='|' read -r name suites _ <<<"$line"
	name=${name//[[:space:]]/}
	suites=${suites//[[:space:]]/}
	[ -f "$run/$name.log" ] || continue
	"$BJK_ROOT/harness/judge-boot.sh" "$name" "$suites" "$run" >/dev/null
	n=$((n + 1))
done
[ "$n" -gt 0 ] || die "judge: no console of any boot of tests/boots in $run"

# Host-side tests boot by themselves: their rows stay as the run left them.
for t in "$BJK_ROOT"/tests/host/*.sh; do
	[ -f "$t" ] || continue
	awk -F'\t' -v b="$(basename "$t" .sh)" '$1 == b' "$run/results.first.tsv" >>"$run/results.tsv"
done
post_checks "$run"

echo "==> summary"
rc=0
"$TOOLS/bjk-summary" "$run/results.tsv" >"$run/summary.txt" || rc=$?
note "judge: $n boot(s) of $run judged in $(since "$t0")"
cat "$run/summary.txt"
exit "$rc"
