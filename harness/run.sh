#!/bin/bash
# make run: build what is needed and boot the test kernel once, console live.
#   BJK_SUITES=test_bpf   guest suites to run (comma-separated; "" for none)
#   BJK_SHELL=1           then a shell on the console (no timeouts)
#   BJK_APPEND="..."      extra kernel command line
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$BJK_ROOT/harness/prepare.sh"
run=$CACHE/logs/$(date +%Y%m%d-%H%M%S)-$$-run
mkdir -p "$run"
: >"$run/results.tsv"
BJK_LIVE=1 "$BJK_ROOT/harness/boot.sh" run "${BJK_SUITES-test_bpf}" "$run"
echo "==> summary"
"$TOOLS/bjk-summary" "$run/results.tsv"
