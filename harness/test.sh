#!/bin/bash
# make test: prepare (packages ... image), then every boot of tests/boots,
# then the summary table and "N passed, N failed, N skipped".
#   BJK_BOOTS="inline outline": only these boots (default: all).
#   BJK_TIER=full (make test-full): the boots of tests/boots-full instead,
#   no host-side tests.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# shellcheck source=SCRIPTDIR/boots.sh
. "$BJK_ROOT/harness/boots.sh"

t0=$(now)
if ! "$BJK_ROOT/harness/prepare.sh"; then
	printf 'error: the harness stopped before booting (see above)\n' >&2
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi

run=$CACHE/logs/$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$run"
note "run: $run (source $(source_version), series $(series_hash | cut -c1-12), $(series_files | wc -l) patch(es))"

# The run keeps the lines it boots: the boots and the judge read them, not
# tests/boots as it may be by then.
boot_lines >"$run/boots"
# The museum's kernel (the boots whose rows say kernel=museum), made
# only when such a boot is to run; if it cannot be, its boots fail. It is
# made while the series' boots run (tests/boots has the museum's last): a
# boot keeps one host core busy (harness/qemu.sh), and a cold build of
# this kernel is about 18 minutes of the two cores. nice: the boots first.
while IFS= read -r line; do
	boot_fields "$line"
	if [ "$b_kernel" = museum ]; then
		museum_log=$run/museum-kernel.log
		note "museum kernel: made beside the boots (log $museum_log)"
		BJK_VARIANT=museum stage "museum kernel" nice -n 19 "$BJK_ROOT/harness/prepare.sh" \
			</dev/null >"$museum_log" 2>&1 &
		# shellcheck disable=SC2034 # museum_wait's (harness/lib.sh)
		museum_pid=$!
		trap museum_stop EXIT
		trap 'museum_stop; exit 130' INT TERM
		break
	fi
done <"$run/boots"
boot_each "$run"
museum_wait

# Host-side tests, tests/host/<name>.sh RUNDIR: they boot the VM themselves
# (e.g. tools/vm), judge their own cases and write their verdict,
# RUNDIR/host/<name>.ktap; <name> counts as a boot for BJK_BOOTS.
for t in "$BJK_ROOT"/tests/host/*.sh; do
	[ -f "$t" ] || continue
	[ -z "$TIER" ] || break
	name=$(basename "$t" .sh)
	if [ -n "$BJK_BOOTS" ] && [[ " $BJK_BOOTS " != *" $name "* ]]; then
		continue
	fi
	stage "host $name" bash "$t" "$run" || true
done

# The verdicts, the table and the closing line: the same stage as make judge.
# The closing line is the run's last: the logs are named before it.
note "logs: $run (boots and host tests: $(since "$t0"))"
rc=0
"$BJK_ROOT/harness/judge.sh" "$run" || rc=$?
exit "$rc"
