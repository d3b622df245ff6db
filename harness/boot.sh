#!/bin/bash
# One boot and its verdicts:
#   boot.sh NAME SUITES RUNDIR [KERNEL-CMDLINE-EXTRAS...]
# Boots (harness/qemu.sh) with the guest suites of SUITES (comma-separated;
# "kunit" is the built-in KUnit run, read from the console) into
# RUNDIR/NAME.log (.status: how it ended, .secs: how long), then judges it
# (harness/judge-boot.sh: each suite, the splat scan), which reads only
# those files: make judge RUN=RUNDIR judges them again without booting.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=$1 suites=$2 run=$3
shift 3
log=$run/$name.log
mkdir -p "$run"

guest=$(echo "$suites" | tr ',' '\n' | grep -vx kunit | paste -sd, || true)
t0=$(now)
stage "boot $name" "$BJK_ROOT/harness/qemu.sh" "$name" "$log" "$guest" "$@" || true
secs=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
echo "$secs" >"$log.secs"
"$BJK_ROOT/harness/judge-boot.sh" "$name" "$suites" "$run"
