#!/bin/bash
# The verdicts of one boot from what it left in the run directory:
#   judge-boot.sh NAME SUITES RUNDIR [BASELINE]
# Reads RUNDIR/NAME.log (the console), NAME.log.status and NAME.log.secs;
# judges each suite of SUITES (harness/src/suite.c; "kunit" through the
# tree's kunit.py), against the same suite of boot BASELINE where given, and
# scans the console for splats (harness/src/splat.c). Each suite's KTAP goes
# to RUNDIR/ktap/NAME.SUITE.ktap (its failures and note to stdout); one row per verdict to
# RUNDIR/results.tsv. Run by the judge stage, harness/judge.sh.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=$1 suites=$2 run=$3 baseline=${4:-}
log=$run/$name.log
results=$run/results.tsv
mkdir -p "$run/ktap"
secs=$(cat "$log.secs" 2>/dev/null || echo 0.0)
status=$(cat "$log.status" 2>/dev/null || echo "qemu.sh failed")
case "$status" in
"exit "*) printf '%s\tboot\t1\t0\t0\t%s\tguest %s\n' "$name" "$secs" "$status" >>"$results" ;;
*) printf '%s\tboot\t0\t1\t0\t%s\t%s\n' "$name" "$secs" "$status" >>"$results" ;;
esac

# The suites the baseline boot ran (RUNDIR/boots): only those are compared.
# A baseline the run did not boot (BJK_BOOTS) compares nothing.
bsuites=
if [ -n "$baseline" ]; then
	while IFS= read -r line; do
		boot_fields "$line"
		[ "$b_name" = "$baseline" ] && bsuites=",$b_suites,"
	done <"$run/boots"
	[ -n "$bsuites" ] || note "boot $name: its baseline $baseline did not run: nothing compared"
fi
verdict() { # SUITE [bjk-suite option...]
	local s=$1 opts=()
	shift
	[[ "$bsuites" == *",$s,"* ]] && opts+=(-b "$baseline")
	# The whole KTAP to the file; what failed and the suite's note shown.
	local rc=0
	"$TOOLS/bjk-suite" "${opts[@]}" "$@" "$s" "$name" "$log" "$results" \
		>"$run/ktap/$name.$s.ktap" || rc=$?
	grep -E "^not ok |^# $s: " "$run/ktap/$name.$s.ktap" | head -n 40 || true
	return "$rc"
}
scan() {
	"$TOOLS/bjk-splat" "$name" "$log" "$results" | tee "$run/ktap/$name.splat.ktap"
}
for s in $(echo "$suites" | tr ',' ' '); do
	if [ "$s" = kunit ]; then
		# kunit.py reads the KUnit part only: what came before /init.
		sed '/BJK-INIT-START/q' "$log" >"$run/$name.kunit.console"
		python3 "$(tree_dir)/tools/testing/kunit/kunit.py" parse \
			"$run/$name.kunit.console" >"$run/$name.kunit.txt" 2>&1 || true
		sed 's/^/  kunit.py: /' "$run/$name.kunit.txt"
		stage "suite $name/kunit" verdict kunit -k "$run/$name.kunit.txt" || true
	else
		stage "suite $name/$s" verdict "$s" || true
	fi
done
stage "splat $name" scan || true
note "boot $name: console $log, KTAP $run/ktap/$name.*.ktap"
