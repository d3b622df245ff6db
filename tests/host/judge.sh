#!/bin/bash
# Host-side test of the judge itself (harness/src/suite.c, summary.c), run by
# harness/test.sh after the boots; BJK_BOOTS=judge runs only it:
#   tests/host/judge.sh RUNDIR
# No boot: made-up consoles, each with one fault the judge must see (a lost
# case line, totals that disagree, a case that differs from its baseline),
# and one without, which must pass; then a made-up run whose run.ktap
# kunit.py parse must count as the closing line does. KTAP on stdout and in
# RUNDIR/host/judge.judge.ktap, one row in RUNDIR/host/judge.tsv.
set -euo pipefail
. "$(dirname "$0")/../../harness/lib.sh"

run=$1
mkdir -p "$run/host"
host_ktap=$run/host/judge.judge.ktap
: >"$host_ktap"
t0=$(now)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ktap() { # ok|not-ok NAME [DETAIL]
	host_case "$1" "judge.$2" "${3:-}"
}

# console NAME: a console of boot NAME with suite "s": the lines on stdin
# between the markers, as the guest prints them through /dev/kmsg.
console() {
	{
		echo "[    1.000000] BJK-SUITE-BEGIN s"
		sed 's/^/[    1.100000] /'
		echo "[    1.200000] BJK-SUITE-END s rc=0 secs=0.1"
	} >"$work/$1.log"
}

# judge NAME [BASELINE]: bjk-suite on it; sets $rc and $out (its KTAP).
judge() {
	rc=0
	out=$("$TOOLS/bjk-suite" ${2:+-b "$2"} s "$1" "$work/$1.log" "$work/results.tsv") || rc=$?
	mkdir -p "$work/ktap"
	printf '%s\n' "$out" >"$work/ktap/$1.s.ktap"
}

printf 'KTAP version 1\n1..5\n' | tee -a "$host_ktap"

good='KTAP version 1
1..3
ok 1 a
ok 2 b # SKIP not here
not ok 3 c # SKIP expected
# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:2 error:0'
console good <<<"$good"
judge good
if [ "$rc" = 0 ] && grep -qx 'good	s	1	0	2	0.1	' "$work/results.tsv"; then
	ktap ok good "3 cases: 1 passed, 2 skipped"
else
	ktap not-ok good "status $rc, row: $(grep '^good' "$work/results.tsv" || true)"
fi

# A case line lost on the way: the plan and the totals say 3.
grep -v '^ok 1 a' <<<"$good" | console lost
judge lost
if [ "$rc" = 1 ] && grep -q '^not ok .* judge.plan # plan 1..3, 2 case lines' <<<"$out" &&
	grep -q '^not ok .* judge.totals' <<<"$out"; then
	ktap ok lost_line "judge.plan and judge.totals failed"
else
	ktap not-ok lost_line "status $rc; $(grep judge <<<"$out" | head -2 | tr '\n' ' ')"
fi

# Totals that say a case failed where the lines say it passed.
sed 's/pass:1 fail:0/pass:0 fail:1/' <<<"$good" | console totals
judge totals
if [ "$rc" = 1 ] && grep -q '^not ok .* judge.totals # # Totals says pass:0 fail:1' <<<"$out"; then
	ktap ok totals "judge.totals failed"
else
	ktap not-ok totals "status $rc; $(grep judge <<<"$out" | tr '\n' ' ')"
fi

# Against a baseline: the same results pass, one case that differs fails.
console same <<<"$good"
judge same good
sed 's/^ok 1 a$/not ok 1 a/; s/pass:1 fail:0/pass:0 fail:1/' <<<"$good" | console differs
judge differs good
if grep -q '^# same as good: 3 cases' <<<"$(cat "$work/ktap/same.s.ktap")" && [ "$rc" = 1 ] &&
	grep -q "judge.same_as_baseline # differs from good in 1 case(s): 'a' ok in good, failed here" <<<"$out"; then
	ktap ok baseline "same results: same as good; one case failed: judge.same_as_baseline"
else
	ktap not-ok baseline "status $rc; $(grep judge <<<"$out" | tr '\n' ' ')"
fi

# The run's KTAP counts what the closing line counts (kunit.py parse).
printf 'good\tboot\t1\t0\t0\t1.0\tguest exit 0\nbench\tfigures\t0\t0\t1\t0.0\tneeds all four\n' \
	>>"$work/results.tsv"
"$TOOLS/bjk-summary" -k "$work/run.ktap" -j "$work/run.json" "$work/results.tsv" \
	>"$work/summary.txt" || true
closing=$(tail -n 1 "$work/summary.txt")
# (kunit.py's status says whether the run failed: the made-up one did.)
parsed=$({ python3 "$(tree_dir)/tools/testing/kunit/kunit.py" parse "$work/run.ktap" 2>&1 || true; } |
	sed -n 's/.*Testing complete. Ran \([0-9]*\) tests: \(.*\)$/\1: \2/p')
want=$(awk '{ print $1 + $3 + $5 }' <<<"$closing")
json=$(python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(j["passed"], j["failed"], j["skipped"])' "$work/run.json")
if [ "${parsed%%:*}" = "$want" ] && [ "$json" = "$(awk '{ print $1, $3, $5 }' <<<"$closing")" ] &&
	! grep -q 'errors\|crashed' <<<"$parsed"; then
	ktap ok run_ktap "'$closing'; kunit.py parse: $parsed; run.json: $json"
else
	ktap not-ok run_ktap "'$closing'; kunit.py parse: ${parsed:-nothing}; run.json: $json"
fi

secs=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
printf 'judge\tjudge\t%d\t%d\t0\t%s\t%s\n' "$host_pass" "$host_fail" "$secs" \
	"the judge on made-up consoles" >"$run/host/judge.tsv"
[ "$host_fail" -eq 0 ]
