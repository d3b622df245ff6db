#!/bin/bash
# One boot and its verdicts:
#   boot.sh NAME SUITES RUNDIR [KERNEL-CMDLINE-EXTRAS...]
# Boots (harness/qemu.sh) with the guest suites of SUITES (comma-separated;
# "kunit" is the built-in KUnit run, read from the console), then judges each
# suite and scans the console for splats. KTAP goes to stdout and to
# RUNDIR/NAME.ktap; one row per verdict to RUNDIR/results.tsv.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=$1 suites=$2 run=$3
shift 3
log=$run/$name.log
ktap=$run/$name.ktap
results=$run/results.tsv
mkdir -p "$run"
: >"$ktap"

guest=$(echo "$suites" | tr ',' '\n' | grep -vx kunit | paste -sd, || true)
t0=$(now)
stage "boot $name" "$BJK_ROOT/harness/qemu.sh" "$name" "$log" "$guest" "$@" || true
secs=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
status=$(cat "$log.status" 2>/dev/null || echo "qemu.sh failed")
case "$status" in
"exit "*) printf '%s\tboot\t1\t0\t0\t%s\tguest %s\n' "$name" "$secs" "$status" >>"$results" ;;
*) printf '%s\tboot\t0\t1\t0\t%s\t%s\n' "$name" "$secs" "$status" >>"$results" ;;
esac

verdict() {
	"$TOOLS/bjk-suite" "$@" | tee -a "$ktap"
}

scan() {
	"$TOOLS/bjk-splat" "$name" "$log" "$results" | tee -a "$ktap"
}

for s in $(echo "$suites" | tr ',' ' '); do
	if [ "$s" = kunit ]; then
		# kunit.py reads the KUnit part only: what came before /init.
		sed '/BJK-INIT-START/q' "$log" >"$run/$name.kunit.console"
		python3 "$(tree_dir)/tools/testing/kunit/kunit.py" parse \
			"$run/$name.kunit.console" >"$run/$name.kunit.txt" 2>&1 || true
		sed 's/^/  kunit.py: /' "$run/$name.kunit.txt"
		stage "suite $name/kunit" verdict kunit "$name" "$log" "$results" "$run/$name.kunit.txt" || true
	else
		stage "suite $name/$s" verdict "$s" "$name" "$log" "$results" || true
	fi
done
stage "splat $name" scan || true
note "boot $name: console $log, KTAP $ktap"
