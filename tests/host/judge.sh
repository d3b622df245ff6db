#!/bin/bash
# Host-side test of the judge itself (its tools, harness/src/*.c: bjk-suite,
# bjk-splat, bjk-summary, bjk-facts; and tools/bjk-decode), run by
# harness/test.sh after the boots; BJK_BOOTS=judge runs only it:
#   tests/host/judge.sh RUNDIR
# No boot: golden cases, a folder each, tests/host/golden/TOOL/CASE/.
# Its own verdict, KTAP, on stdout and in RUNDIR/host/judge.ktap, one case
# a folder, judge.TOOL.CASE.
#
# suite/, splat/, summary/ (bjk-suite, bjk-splat, bjk-summary): in each
# folder its inputs, `expected` (what the tool prints on stdout, byte for
# byte), `status` (its exit status) and `args` if any (its further
# arguments, one a line, before the fixed ones). The tool runs in the
# folder, on names relative to it:
#   bjk-suite ARGS s CASE console    (suite "s" of boot CASE)
#   bjk-splat ARGS CASE console
#   bjk-summary ARGS                 (ARGS: the verdict files, in order)
# so the paths it prints are the folder's names and every time it prints
# comes from its inputs (BJK-SUITE-END's secs=, the verdict lines'): the
# output is compared as printed, nothing is normalised. A case passes when
# its output and status are those expected; else its note has the status
# and the first lines of the diff. The cases: a console whose suite passes
# (suite.good), a case line lost (suite.lost_line: the plan and the totals
# say one more), totals that disagree with the lines (suite.totals), the
# same results as a baseline's (suite.baseline_same) and one case
# differing from it (suite.baseline_differs); a console without a splat
# (splat.clean), a KASAN report in its expect region (splat.expected_report),
# a region that wanted two and saw one (splat.count_mismatch), a KASAN
# report and a WARNING outside any region (splat.unexpected), lockdep's
# report of an uninitialized lock, which has no BUG: or WARNING: line
# (splat.lockdep); the summary,
# the one reader of verdicts, on a run that passes (summary.good), with a
# verdict file more with a not ok case (summary.one_reader: its row, one
# failure more, status 1) and with one its writer did not finish
# (summary.unfinished: no bjk-verdict line, fails).
# golden_can_fail: that the comparison can fail, on a copy of one case of
# each tool with its expected output changed, then with its status changed.
# run_ktap, not a golden case (it needs the tree's kunit.py): the run KTAP
# bjk-summary -k writes for the golden verdicts (the suite and splat cases'
# expected, summary/good's boot and bench verdicts) must be counted by
# kunit.py parse as the closing line counts, and its -j JSON the same.
# Last, facts/ and decode/, folders of their own layout: bjk-facts on each
# console must print its expected rows; bjk-decode on each console, no
# program at hand, must print what is expected (a console with the
# kernel's BPF lines decoded from them alone, one without them sent to the
# host's decoding, which says why it cannot).
set -euo pipefail
. "$(dirname "$0")/../../harness/lib.sh"
# shellcheck source=SCRIPTDIR/../../harness/verdicts.sh
. "$BJK_ROOT/harness/verdicts.sh"

run=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ktap() { # ok|not-ok NAME [DETAIL]
	host_case "$1" "judge.$2" "${3:-}"
}

golden=$BJK_ROOT/tests/host/golden
# golden_cases TOOL: its case folders, in name order.
golden_cases() {
	find "$golden/$1" -mindepth 1 -maxdepth 1 -type d | LC_ALL=C sort
}

# golden_case TOOL DIR: TOOL's case DIR run and compared; sets g_res
# (ok|not-ok) and g_note. The one comparison of every such case, and of
# golden_can_fail's changed copies.
golden_case() {
	local tool=$1 dir=$2 name rc=0 want args=() out
	name=$(basename "$dir")
	out=$(mktemp -p "$work" "$tool.$name.XXXXXX")
	[ -f "$dir/args" ] && mapfile -t args <"$dir/args"
	(
		cd "$dir"
		case "$tool" in
		suite) exec "$TOOLS/bjk-suite" "${args[@]}" s "$name" console ;;
		splat) exec "$TOOLS/bjk-splat" "${args[@]}" "$name" console ;;
		summary) exec "$TOOLS/bjk-summary" "${args[@]}" ;;
		esac
	) >"$out" 2>"$out.err" || rc=$?
	want=$(cat "$dir/status" 2>/dev/null || echo "(no status file)")
	if [ "$rc" = "$want" ] && cmp -s "$dir/expected" "$out"; then
		g_res=ok g_note="status $rc, the $(wc -l <"$dir/expected") lines expected"
	else
		g_res=not-ok
		g_note="status $rc, expected $want"
		cmp -s "$dir/expected" "$out" ||
			g_note+="; diff expected output: $({ diff "$dir/expected" "$out" 2>&1 || true; } | head -n 5 | tr '\n\t' '  ')"
		[ -s "$out.err" ] && g_note+="; stderr: $(head -n 1 "$out.err")"
	fi
	return 0
}

golden_tools=(suite splat summary)
mapfile -t facts_cases < <(golden_cases facts)
mapfile -t decode_cases < <(golden_cases decode)
n=0
for tool in "${golden_tools[@]}"; do
	n=$((n + $(golden_cases "$tool" | wc -l)))
done
host_begin "$run" judge $((n + 2 + ${#facts_cases[@]} + ${#decode_cases[@]}))

for tool in "${golden_tools[@]}"; do
	while IFS= read -r dir; do
		golden_case "$tool" "$dir"
		ktap "$g_res" "$tool.$(basename "$dir")" "$g_note"
	done < <(golden_cases "$tool")
done

# The comparison can fail: the first case of each tool, copied, with the
# last line of its expected output changed, then with its status changed,
# must each be a mismatch.
fails=() missed=()
for tool in "${golden_tools[@]}"; do
	dir=$(golden_cases "$tool" | head -n 1)
	if [ -z "$dir" ]; then
		missed+=("no $tool case")
		continue
	fi
	name=$(basename "$dir")
	for change in expected status; do
		copy=$work/can_fail/$tool.$change/$name
		mkdir -p "$(dirname "$copy")"
		cp -r "$dir" "$copy"
		if [ "$change" = expected ]; then
			sed -i '$ s/$/ (changed)/' "$copy/expected"
		else
			if [ "$(cat "$copy/status" 2>/dev/null || true)" = 0 ]; then
				echo 1 >"$copy/status"
			else
				echo 0 >"$copy/status"
			fi
		fi
		golden_case "$tool" "$copy"
		if [ "$g_res" = not-ok ]; then
			fails+=("$tool.$name/$change")
		else
			missed+=("$tool.$name with its $change changed passed")
		fi
	done
done
if [ ${#missed[@]} -eq 0 ]; then
	ktap ok golden_can_fail "mismatches in the copies of ${fails[*]} (changed expected, changed status)"
else
	ktap not-ok golden_can_fail "$(IFS=';'; echo "${missed[*]}")"
fi

# The run's KTAP counts what the closing line counts (kunit.py parse), on
# the golden cases' verdicts: a run that failed.
verdicts=("$golden/summary/good/good.boot.ktap")
for tool in suite splat; do
	while IFS= read -r dir; do
		verdicts+=("$dir/expected")
	done < <(golden_cases "$tool")
done
verdicts+=("$golden/summary/good/bench.ktap")
"$TOOLS/bjk-summary" -k "$work/run.ktap" -j "$work/run.json" "${verdicts[@]}" \
	>"$work/summary.txt" || true
closing=$(tail -n 1 "$work/summary.txt")
# (kunit.py's status says whether the run failed: this one did.)
parsed=$({ python3 "$(tree_dir)/tools/testing/kunit/kunit.py" parse "$work/run.ktap" 2>&1 || true; } |
	sed -n 's/.*Testing complete. Ran \([0-9]*\) tests: \(.*\)$/\1: \2/p')
want=$(awk '{ print $1 + $3 + $5 }' <<<"$closing")
json=$(python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(j["passed"], j["failed"], j["skipped"])' "$work/run.json" 2>&1 || true)
if [ "${parsed%%:*}" = "$want" ] && [ "$json" = "$(awk '{ print $1, $3, $5 }' <<<"$closing")" ] &&
	! grep -q 'errors\|crashed' <<<"$parsed"; then
	ktap ok run_ktap "'$closing'; kunit.py parse: $parsed; run.json: $json"
else
	ktap not-ok run_ktap "'$closing'; kunit.py parse: ${parsed:-nothing}; run.json: $json"
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
		ktap not-ok "facts.$name" "status $rc; $({ diff "$dir/expected" "$work/facts.$name" 2>&1 || true; } | head -4 | tr '\n\t' '  ')"
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
		ktap not-ok "decode.$name" "status $rc; $({ diff "$dir/expected" "$work/decode.$name" 2>&1 || true; } | head -4 | tr '\n\t' '  ')"
	fi
done

host_end judge "$t0" "the judge's tools on their golden cases"
[ "$host_fail" -eq 0 ]
