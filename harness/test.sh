#!/bin/bash
# make test: prepare (packages ... image), then every boot of tests/boots,
# then the summary table and "N passed, N failed, N skipped".
#   BJK_BOOTS="inline outline": only these boots (default: all).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

t0=$(now)
if ! "$BJK_ROOT/harness/prepare.sh"; then
	printf 'error: the harness stopped before booting (see above)\n' >&2
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi

run=$CACHE/logs/$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$run"
: >"$run/results.tsv"
note "run: $run (source $(source_version), series $(series_hash | cut -c1-12), $(series_files | wc -l) patch(es))"

# The boot table is read whole first: the boots' own processes then never
# share the loop's stdin (a run once booted a phantom "boot" made of the
# tail of a line, the file offset moved under the loop's read).
mapfile -t boots < <(boot_lines)
# The museum's kernel (the boots whose kernel column says "museum"), made
# only when such a boot is to run; if it cannot be, its boots fail.
museum=ok
for line in "${boots[@]}"; do
	IFS='|' read -r _ _ _ kernel <<<"$line"
	if [ "${kernel//[[:space:]]/}" = museum ]; then
		BJK_VARIANT=museum stage "museum kernel" "$BJK_ROOT/harness/prepare.sh" || museum=failed
		break
	fi
done
for line in "${boots[@]}"; do
	IFS='|' read -r name suites extra kernel <<<"$line"
	name=${name//[[:space:]]/}
	suites=${suites//[[:space:]]/}
	kernel=${kernel//[[:space:]]/}
	if [ "$kernel" = museum ] && [ "$museum" != ok ]; then
		printf '%s\tboot\t0\t1\t0\t0.0\tthe museum kernel was not made (see above)\n' \
			"$name" >>"$run/results.tsv"
		continue
	fi
	# shellcheck disable=SC2086 # extra is a list of kernel parameters
	BJK_VARIANT=${kernel:-series} "$BJK_ROOT/harness/boot.sh" "$name" "$suites" "$run" $extra </dev/null
done

# Host-side tests, tests/host/<name>.sh RUNDIR: they boot the VM themselves
# (e.g. tools/vm) and add their own rows; <name> counts as a boot for BJK_BOOTS.
for t in "$BJK_ROOT"/tests/host/*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	if [ -n "${BJK_BOOTS:-}" ] && [[ " $BJK_BOOTS " != *" $name "* ]]; then
		continue
	fi
	stage "host $name" bash "$t" "$run" || true
done

post_checks "$run"

echo "==> summary"
rc=0
"$TOOLS/bjk-summary" "$run/results.tsv" >"$run/summary.txt" || rc=$?
note "logs: $run (total $(since "$t0"))"
cat "$run/summary.txt"
exit "$rc"
