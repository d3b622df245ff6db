#!/bin/bash
# Host-side test of the judge itself (harness/src/suite.c, summary.c), run by
# harness/test.sh after the boots; BJK_BOOTS=judge runs only it:
#   tests/host/judge.sh RUNDIR
# No boot: made-up consoles, each with one fault the judge must see (a lost
# case line, totals that disagree, a case that differs from its baseline),
# and one without, which must pass; then a made-up run whose run.ktap
# kunit.py parse must count as the closing line does; then the summary as
# the one reader of verdicts: a verdict file with a failed case, or one its
# writer did not finish, must change the table and the exit status. Its
# own verdict, KTAP, on stdout and in RUNDIR/host/judge.ktap. Last, the
# golden cases of tests/host/golden/facts/: bjk-facts on each console must
# print its expected rows; and of tests/host/golden/decode/: bjk-decode on
# each console, no program at hand, must print what is expected (a
# console with the kernel's BPF lines decoded from them alone, one without
# them sent to the host's decoding, which says why it cannot).
set -euo pipefail
. "$(dirname "$0")/../../harness/lib.sh"

run=$1
mkdir -p "$run/host"
host_ktap=$run/host/judge.ktap
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

# judge NAME [BASELINE]: bjk-suite on it; sets $rc and $out (its verdict,
# also in $work/ktap/NAME.s.ktap).
judge() {
	rc=0
	out=$("$TOOLS/bjk-suite" ${2:+-b "$work/ktap/$2.s.ktap"} s "$1" "$work/$1.log") || rc=$?
	mkdir -p "$work/ktap"
	printf '%s\n' "$out" >"$work/ktap/$1.s.ktap"
}

# summary FILE...: the one reader on verdict files; sets $rc and $table
# (its output, the closing line last).
summary() {
	rc=0
	table=$("$TOOLS/bjk-summary" "$@") || rc=$?
}

# The golden cases of the console readers: a folder each, its console,
# the prefixes of the lines the check also wants (one a line) and the
# rows expected.
golden=$BJK_ROOT/tests/host/golden
mapfile -t facts_cases < <(find "$golden/facts" -mindepth 1 -maxdepth 1 -type d | sort)
mapfile -t decode_cases < <(find "$golden/decode" -mindepth 1 -maxdepth 1 -type d | sort)
printf 'KTAP version 1\n1..%d\n' $((7 + ${#facts_cases[@]} + ${#decode_cases[@]})) |
	tee -a "$host_ktap"

good='KTAP version 1
1..3
ok 1 a
ok 2 b # SKIP not here
not ok 3 c # SKIP expected
# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:2 error:0'
console good <<<"$good"
judge good
summary "$work/ktap/good.s.ktap"
row=$(grep '^good ' <<<"$table" || true)
if [ "$rc" = 0 ] && grep -Eq '^good +s +1 +0 +2 +0\.1s *$' <<<"$row"; then
	ktap ok good "3 cases: 1 passed, 2 skipped"
else
	ktap not-ok good "status $rc, row: $row"
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
verdict_one "$work/good.boot.ktap" good boot ok 1.0 "guest exit 0"
verdict_one "$work/bench.ktap" bench figures skip 0.0 "needs all four"
"$TOOLS/bjk-summary" -k "$work/run.ktap" -j "$work/run.json" "$work/good.boot.ktap" \
	"$work"/ktap/*.ktap "$work/bench.ktap" >"$work/summary.txt" || true
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

# The one reader: the table and the exit status are the verdict files'. A
# run that passes...
passing=("$work/good.boot.ktap" "$work/ktap/good.s.ktap" "$work/bench.ktap")
summary "${passing[@]}"
before=$(tail -n 1 <<<"$table") before_rc=$rc
# ...and a verdict file more, with a failed case: a row more, one failed more.
printf 'KTAP version 1\n1..2\nok 1 x\nnot ok 2 y\n' >"$work/more.ktap"
verdict_end more t 0.5 "one case failed" >>"$work/more.ktap"
summary "${passing[@]}" "$work/more.ktap"
if [ "$before_rc" = 0 ] && [ "$before" = "2 passed, 0 failed, 3 skipped" ] && [ "$rc" = 1 ] &&
	grep -Eq '^more +t +1 +1 +0 +0\.5s  one case failed$' <<<"$table" &&
	[ "$(tail -n 1 <<<"$table")" = "3 passed, 1 failed, 3 skipped" ]; then
	ktap ok one_reader "'$before' (status 0); with a not ok case in a file more: '$(tail -n 1 <<<"$table")' (status 1)"
else
	ktap not-ok one_reader "'$before' (status $before_rc), then status $rc: $(tr '\n' ' ' <<<"$table")"
fi

# A verdict whose writer did not finish (no bjk-verdict line, two of its
# three cases): the cases it has are counted, and it fails.
printf 'KTAP version 1\n1..3\nok 1 x\nok 2 y\n' >"$work/cut.ktap"
summary "${passing[@]}" "$work/cut.ktap"
if [ "$rc" = 1 ] && grep -Eq '^cut.ktap +\? +2 +1 +0 .*no bjk-verdict line' <<<"$table"; then
	ktap ok unfinished "a verdict file without its bjk-verdict line fails: status 1"
else
	ktap not-ok unfinished "status $rc: $(grep '^cut' <<<"$table" || echo 'no row')"
fi

# bjk-facts, the one reader of KASAN reports for the checks across boots
# (tests/museum/check.sh, tests/live/check.sh), row for row.
for dir in "${facts_cases[@]}"; do
	name=$(basename "$dir")
	args=()
	while IFS= read -r p; do
		args+=(-l "$p")
	done <"$dir/prefixes"
	rc=0
	"$TOOLS/bjk-facts" "${args[@]}" "$dir/console" >"$work/facts.$name" 2>&1 || rc=$?
	if [ "$rc" = 0 ] && diff -q "$dir/expected" "$work/facts.$name" >/dev/null; then
		ktap ok "facts.$name" "$(wc -l <"$dir/expected") rows as expected"
	else
		ktap not-ok "facts.$name" "status $rc; $(diff "$dir/expected" "$work/facts.$name" | head -4 | tr '\n\t' '  ')"
	fi
done

# bjk-decode on consoles alone (an empty dump: no program loaded), in both
# of its formats, the block and -m's one line a report.
printf 'bjk-decode dump 1\n' >"$work/empty.dump"
decode=$(suite_out tools)/bjk-decode
for dir in "${decode_cases[@]}"; do
	name=$(basename "$dir")
	rc=0
	if [ ! -x "$decode" ]; then
		ktap not-ok "decode.$name" "$decode missing (tools/build.sh: make test builds it before the boots)"
		continue
	fi
	{ "$decode" -d "$work/empty.dump" "$dir/console" &&
		"$decode" -m -d "$work/empty.dump" "$dir/console"; } >"$work/decode.$name" 2>&1 || rc=$?
	if [ "$rc" = 0 ] && diff -q "$dir/expected" "$work/decode.$name" >/dev/null; then
		ktap ok "decode.$name" "$(grep -c '^bjk-decode: report' "$dir/expected") report(s) as expected"
	else
		ktap not-ok "decode.$name" "status $rc; $(diff "$dir/expected" "$work/decode.$name" | head -4 | tr '\n\t' '  ')"
	fi
done

host_end judge "$t0" "the judge on made-up consoles and golden cases"
[ "$host_fail" -eq 0 ]
