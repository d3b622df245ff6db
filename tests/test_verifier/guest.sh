# Suite test_verifier, run in the guest by /init: the kernel's own
# tools/testing/selftests/bpf/test_verifier (built by tests/selftests/build.sh),
# privileged and unprivileged variants of every case. Its full output stays
# in /tmp; the console gets, through /dev/kmsg, KTAP: one line per case (by
# name), its "Summary:" line and the totals. The harness
# (harness/src/suite.c) counts the cases and compares them with those of the
# boot that ran with checks off.
#
#   sh test_verifier.sh          suite test_verifier: every case, as booted
#   sh test_verifier.sh harden   suite test_verifier_harden (tests/
#       test_verifier_harden.sh): net.core.bpf_jit_harden=2 (constant
#       blinding, for root too) for this run only, every case but those of
#       $excluded, by index ranges ("test_verifier FROM TO"). The indices come
#       from test_verifier.cases (the binary's case list, written at build
#       time by tests/selftests/tv_cases.c); every case name test_verifier
#       prints is checked against that list. The Summary is the sum of the
#       ranges' Summary lines.
dir=/selftests
mode=${1:-all}
suite=test_verifier
[ "$mode" = harden ] && suite=test_verifier_harden
out=/tmp/$suite.out
cases=$dir/test_verifier.cases
# test_verifier's own run takes about 30 s under TCG; the boot's timeout is
# the harness's, this one only keeps a hung case from eating all of it.
limit=420
# Not run with bpf_jit_harden=2, "NAME|why". Blinding calls
# bpf_patch_insn_single() once per constant, each an O(n) copy of the
# program: O(n^2), the same on upstream's kernel (the cost is not the
# checks'). Measured in one boot (checks on, TCG): the others take under
# 15 s each.
excluded="scale: scale test 1|1M instructions (bpf_fill_scale): blinding is O(n^2), does not finish under TCG
scale: scale test 2|1M instructions (bpf_fill_scale): blinding is O(n^2), does not finish under TCG
ld_dw: xor semi-random 64 bit imms, test 5|1M instructions, 333k 64-bit constants: blinding does not finish within 240 s under TCG
ld_abs: jump around ld_abs|55 s of blinding under TCG, then skipped anyway (not JITed: ENOTSUPP)"

. /lib/bjk.sh

for f in "$dir/test_verifier" "$dir/bpf_testmod.ko"; do
	if [ ! -f "$f" ]; then
		bjk_error "$suite: $f is not in the image"
		exit 2
	fi
done
# 2 (the default) may be lowered to 0; the unprivileged variants need 0.
echo 0 >/proc/sys/kernel/unprivileged_bpf_disabled || {
	bjk_error "$suite: cannot set kernel.unprivileged_bpf_disabled=0"
	exit 2
}

# The index ranges to run, "FROM TO" per line.
ranges=/tmp/$suite.ranges
skipidx=/tmp/$suite.excluded
harden=/proc/sys/net/core/bpf_jit_harden
old_harden=$(cat "$harden")
if [ "$mode" = harden ]; then
	[ -f "$cases" ] || { bjk_error "$suite: $cases is not in the image (tests/selftests/build.sh writes it)"; exit 2; }
	total=$(wc -l <"$cases")
	: >"$skipidx"
	echo "$excluded" | while IFS='|' read -r name why; do
		idx=$(awk -F '\t' -v n="$name" '$2 == n { print $1 }' "$cases")
		if [ "$(echo "$idx" | wc -w)" -ne 1 ]; then
			bjk_error "$suite: case \"$name\" found ${idx:+at indices $idx}${idx:-nowhere} in $cases;" \
				"it must be there once (a renamed case? update \$excluded in tests/test_verifier/guest.sh)"
			exit 2
		fi
		echo "$idx" >>"$skipidx"
		bjk_kmsg "$suite: not run: #$idx $name ($why)"
	done || exit 2
	sort -n "$skipidx" | awk -v total="$total" '
		BEGIN { from = 0 }
		{ if ($1 > from) print from, $1 - 1; from = $1 + 1 }
		END { if (from < total) print from, total - 1 }' >"$ranges"
	echo 2 >"$harden" && [ "$(cat "$harden")" = 2 ] || {
		bjk_error "$suite: cannot set net.core.bpf_jit_harden=2"
		exit 2
	}
else
	: >"$skipidx"
	echo "all" >"$ranges"
fi
bjk_kmsg "$suite: net.core.bpf_jit_harden=$(cat "$harden")"

# test_verifier loads bpf_testmod.ko from its working directory.
cd "$dir" || exit 2
: >"$out"
rc=0
runs=0
while read -r from to; do
	if [ "$from" = all ]; then
		set --
	else
		# test_verifier runs every case when FROM or TO is out of range.
		[ "$from" -le "$to" ] 2>/dev/null && [ "$to" -lt "$total" ] || {
			bjk_error "$suite: bad index range '$from' '$to' of $total cases (a bug in tests/test_verifier/guest.sh)"
			echo "$old_harden" >"$harden"
			exit 2
		}
		set -- "$from" "$to"
		bjk_kmsg "$suite: ./test_verifier $*"
	fi
	timeout "$limit" ./test_verifier "$@" </dev/null >>"$out" 2>&1
	r=$?
	[ "$r" -eq 143 ] && bjk_error "$suite: ./test_verifier $* timed out after ${limit}s"
	[ "$r" -eq 0 ] || rc=$r
	runs=$((runs + 1))
done <"$ranges"
echo "$old_harden" >"$harden"

# Each case name printed must be the list's name of its index, and no
# excluded index may have run.
if [ "$mode" = harden ]; then
	awk -F '\t' -v skip="$skipidx" -v suite="$suite" '
	BEGIN { while ((getline l < skip) > 0) excl[l] = 1 }
	FILENAME != ARGV[2] { name[$1] = $2; next }
	/^#[0-9]+\/[up] / {
		i = substr($0, 2, index($0, "/") - 2)
		if (i in excl) { printf "excluded case #%s ran: %s\n", i, $0; bad++ }
		else if (!(i in name)) { printf "case #%s is not in the list: %s\n", i, $0; bad++ }
		else if (index($0, substr($0, 1, index($0, " ")) name[i] " ") != 1) {
			printf "case #%s is \"%s\" in the list but test_verifier printed: %s\n", i, name[i], $0
			bad++
		}
		seen[i] = 1
	}
	END {
		for (i in name)
			if (!(i in excl) && !(i in seen)) { printf "case #%s (%s) did not run\n", i, name[i]; bad++ }
		exit bad > 0
	}' "$cases" "$out" >/tmp/$suite.check || {
		bjk_error "$suite: test_verifier's cases are not those of $cases (a stale list?):"
		head -n 20 /tmp/$suite.check | while IFS= read -r l; do bjk_kmsg "# $l"; done
		rc=2
	}
fi

# KTAP, one case per line "#12/p descr OK" (or "... 3 cases OK"), "#12/u
# descr FAIL...", "#12/p descr SKIP (reason)", named "12/p descr" ('#'
# would start a KTAP directive), plan first, then the totals. A skip is a
# failure but with bpf_jit_harden=2, where a blinded program too long to
# JIT is skipped (its checks-off boot must skip the same: the harness
# compares). The Summary lines (one per run of test_verifier) must add up
# to the same counts: a case line that did not come (a crash in the middle)
# fails a case of its own.
awk -v suite="$suite" -v runs="$runs" -v mode="$mode" '
/^#[0-9]+\/[up] / {
	line = $0
	res = "not ok"
	rest = ""
	if (match(line, / SKIP( \(.*\))?$/) && mode == "harden") {
		res = "ok"
		rest = " # SKIP" substr(line, RSTART + 5)
		s++
	} else if (RSTART) {
		# Here the kernel has all a case needs: a skip is a failure.
		rest = " # a skip:" substr(line, RSTART + 5) " (test_verifier must skip nothing)"
		f++
	} else if (match(line, /( [0-9]+ cases)? OK( \(NOTE: .*\))?$/)) {
		res = "ok"
		p++
	} else {
		# " FAIL..." on this line or, after a run error, on the next
		match(line, / FAIL.*$/)
		f++
	}
	if (RSTART)
		line = substr(line, 1, RSTART - 1)
	name = substr(line, 2)
	gsub(/#/, "", name)
	sub(/ +$/, "", name)
	print res " " name rest
	fail = res != "ok"
	next
}
# The lines after a FAIL say why (verifier log, expected vs. got).
fail && shown < 200 { print "# " $0; shown++ }
/^Summary: / {
	fail = 0
	sums++
	sp += $2; ss += $4; sf += $6
}
END {
	if (sums != runs || sp != p || ss + sf != s + f)
		printf "not ok %s.summary # %d Summary line(s) of %d run(s): %d PASSED, %d SKIPPED, %d FAILED; %d, %d, %d case lines\n", suite, sums, runs, sp, ss, sf, p, s, f
	printf "# %s: Summary: %d PASSED, %d SKIPPED, %d FAILED\n", suite, sp, ss, sf
}
' "$out" | bjk_ktap | while IFS= read -r l; do bjk_kmsg "$l"; done
[ "$(grep -c '^Summary: ' "$out")" -eq "$runs" ] || {
	bjk_error "$suite: $(grep -c '^Summary: ' "$out") Summary line(s) from $runs run(s) of test_verifier (exit status $rc); last lines:"
	tail -n 20 "$out" | while IFS= read -r l; do bjk_kmsg "# $l"; done
}
exit "$rc"
