#!/bin/bash
# make boot: build what is needed and boot the test kernel once, console
# live, then judge that boot.
#   BJK_SUITES=test_bpf   guest suites to run (comma-separated; "" for none)
#   BJK_SHELL=1           then a shell on the console (no timeouts)
#   BJK_APPEND="..."      extra kernel command line
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$BJK_ROOT/harness/prepare.sh"
run=$CACHE/logs/$(date +%Y%m%d-%H%M%S)-$$-run
mkdir -p "$run"
qemu_user_opts
mode=-l
[ "${BJK_SHELL:-0}" = 1 ] && mode=-s
"$BJK_ROOT/harness/boot.sh" run "${BJK_SUITES-test_bpf}" "$run" "${qemu_opts[@]}" "$mode" -- \
	"${qemu_params[@]}"
"$BJK_ROOT/harness/judge-boot.sh" run "${BJK_SUITES-test_bpf}" "$run"
echo "==> summary"
mapfile -t verdicts < <(boot_verdicts "$run" run "${BJK_SUITES-test_bpf}")
"$TOOLS/bjk-summary" "${verdicts[@]}"
