#!/bin/bash
# make boot: build what is needed and boot the test kernel once, console
# live, then judge that boot.
# Its settings (BJK_SUITES, BJK_SHELL, BJK_APPEND): harness/settings.sh.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# shellcheck source=SCRIPTDIR/boots.sh
. "$BJK_ROOT/harness/boots.sh"
# shellcheck source=SCRIPTDIR/verdicts.sh
. "$BJK_ROOT/harness/verdicts.sh"

"$BJK_ROOT/harness/prepare.sh"
run=$CACHE/logs/$(date +%Y%m%d-%H%M%S)-$$-run
mkdir -p "$run"
qemu_user_opts
mode=-l
[ "$BJK_SHELL" = 1 ] && mode=-s
"$BJK_ROOT/harness/boot.sh" run "$BJK_SUITES" "$run" "${qemu_opts[@]}" "$mode" -- \
	"${qemu_params[@]}"
"$BJK_ROOT/harness/judge-boot.sh" run "$BJK_SUITES" "$run"
echo "==> summary"
mapfile -t verdicts < <(boot_verdicts "$run" run "$BJK_SUITES")
"$TOOLS/bjk-summary" "${verdicts[@]}"
