#!/bin/bash
# The verdicts of one boot from what it left in the run directory:
#   judge-boot.sh NAME SUITES RUNDIR [BASELINE]
# Reads RUNDIR/NAME.log (the console), NAME.log.status and NAME.log.secs;
# judges each suite of SUITES (harness/src/suite.c, after harness/convert.sh
# for a suite whose guest printed a raw block; "kunit" through the tree's
# kunit.py), against the same suite of boot BASELINE where given, and
# scans the console for splats (harness/src/splat.c). Each verdict is a KTAP
# file, RUNDIR/ktap/NAME.{boot,SUITE,splat}.ktap (boot_verdicts in
# harness/lib.sh); its failures and note go to stdout. Run by the judge
# stage, harness/judge.sh.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# shellcheck source=SCRIPTDIR/verdicts.sh
. "$BJK_ROOT/harness/verdicts.sh"

name=$1 suites=$2 run=$3 baseline=${4:-}
log=$run/$name.log
mkdir -p "$run/ktap"
secs=$(cat "$log.secs" 2>/dev/null || echo 0.0)
status=$(cat "$log.status" 2>/dev/null || echo "qemu.sh failed")
case "$status" in
"exit "*) verdict_one "$run/ktap/$name.boot.ktap" "$name" boot ok "$secs" "guest $status" ;;
*) verdict_one "$run/ktap/$name.boot.ktap" "$name" boot not-ok "$secs" "$status" ;;
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
	local s=$1 opts=() con=$log conv crc=0
	shift
	[[ "$bsuites" == *",$s,"* ]] && opts+=(-b "$run/ktap/$baseline.$s.ktap")
	# A suite whose guest printed its tool's raw lines (a raw block,
	# guest/lib.sh's bjk_raw) is judged on the console with that block
	# turned into its KTAP by its converter (harness/convert.sh, with
	# tests/<tool>/convert.awk): as the converter is now, so make judge
	# judges a stored console again with a converter fixed since. A console
	# without one (the suites that print KTAP themselves, every console
	# from before raw blocks) is judged as it is.
	conv=$(mktemp)
	"$BJK_ROOT/harness/convert.sh" -s "$s" "$log" >"$conv" || crc=$?
	case "$crc" in
	0) con=$conv ;;
	3) ;;
	*) note "boot $name: harness/convert.sh $s failed (status $crc): judged without its raw block converted" ;;
	esac
	# The whole KTAP to the file; what failed and the verdict line shown.
	local rc=0
	"$TOOLS/bjk-suite" "${opts[@]}" "$@" "$s" "$name" "$con" \
		>"$run/ktap/$name.$s.ktap" || rc=$?
	rm -f "$conv"
	grep -E "^not ok |^# bjk-verdict " "$run/ktap/$name.$s.ktap" | head -n 40 || true
	return "$rc"
}
scan() {
	"$TOOLS/bjk-splat" "$name" "$log" | tee "$run/ktap/$name.splat.ktap"
}
for s in ${suites//,/ }; do
	if [ "$s" = kunit ]; then
		# kunit.py reads the KUnit part only: what came before /init. Its
		# verdict is its JSON; its text is for the reader of this log.
		sed '/BJK-INIT-START/q' "$log" >"$run/$name.kunit.console"
		krc=0
		python3 "$(tree_dir)/tools/testing/kunit/kunit.py" parse \
			--json="$run/$name.kunit.json" "$run/$name.kunit.console" \
			>"$run/$name.kunit.txt" 2>&1 || krc=$?
		sed 's/^/  kunit.py: /' "$run/$name.kunit.txt"
		stage "suite $name/kunit" verdict kunit -k "$run/$name.kunit.json" -x "$krc" || true
	else
		stage "suite $name/$s" verdict "$s" || true
	fi
done
stage "splat $name" scan || true
note "boot $name: console $log, KTAP $run/ktap/$name.*.ktap"
