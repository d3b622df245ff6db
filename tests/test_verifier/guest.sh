# Suite test_verifier, run in the guest by /init: the kernel's own
# tools/testing/selftests/bpf/test_verifier (built by tests/selftests/build.sh),
# privileged and unprivileged variants of every case. Its full output stays
# in /tmp; the console gets, through /dev/kmsg, its case lines, Summary
# lines and the lines that say why a case failed, as a raw block (bjk_raw),
# which the host turns into KTAP (tests/test_verifier/convert.awk: a case
# per test_verifier case, by name). The harness (harness/src/suite.c) counts
# the cases and compares them with those of the boot that ran with checks
# off.
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

# The raw block for the host, whose tests/test_verifier/convert.awk makes
# the KTAP (this suite's and test_verifier_harden's: tool=): every case line
# ("#12/p descr OK", "#12/u descr FAIL...", "#12/p descr SKIP (why)"),
# every Summary line (one per run of test_verifier; runs= says how many
# there must be), and the lines after a case line that does not end in OK
# (why it failed: the verifier log, expected against seen), 200 at most.
awk '
/^#[0-9]+\/[up] / { print; why = $0 !~ / OK( \(NOTE: .*\))?$/; next }
/^Summary: / { print; why = 0; next }
why && shown < 200 { print; shown++ }
' "$out" | bjk_raw "$suite" tool=test_verifier mode="$mode" runs="$runs"
[ "$(grep -c '^Summary: ' "$out")" -eq "$runs" ] || {
	bjk_error "$suite: $(grep -c '^Summary: ' "$out") Summary line(s) from $runs run(s) of test_verifier (exit status $rc); last lines:"
	tail -n 20 "$out" | while IFS= read -r l; do bjk_kmsg "# $l"; done
}
exit "$rc"
