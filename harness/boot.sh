#!/bin/bash
# One boot, nothing judged:
#   boot.sh NAME SUITES RUNDIR [QEMU.SH-OPTION...] -- [KERNEL-PARAM...]
# Boots (harness/qemu.sh, which takes the options) with the guest suites of
# SUITES (comma-separated; "kunit" is the built-in KUnit run, read from the
# console) into RUNDIR/NAME.log (.status: how it ended, .secs: how long).
# The verdicts come from those files alone (harness/judge-boot.sh, run by
# the judge stage, harness/judge.sh), so a stored run can be judged again.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 3 ] || die "usage: boot.sh NAME SUITES RUNDIR [QEMU.SH-OPTION...] -- [KERNEL-PARAM...]"
name=$1 suites=$2 run=$3
shift 3
opts=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	opts+=("$1")
	shift
done
[ $# -gt 0 ] && shift
log=$run/$name.log
mkdir -p "$run"

guest=$(echo "$suites" | tr ',' '\n' | grep -vx kunit | paste -sd, || true)
t0=$(now)
stage "boot $name" "$BJK_ROOT/harness/qemu.sh" "${opts[@]}" "$name" "$log" "$guest" "$@" || true
secs=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
echo "$secs" >"$log.secs"
note "boot $name: $(cat "$log.status" 2>/dev/null || echo "qemu.sh failed") after ${secs}s"
