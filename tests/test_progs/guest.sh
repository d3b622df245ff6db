# Suite test_progs, run in the guest by /init: the subset of the kernel's own
# tools/testing/selftests/bpf/test_progs that tests/selftests/build.sh builds
# (tests/selftests/test_progs.list). Its full output (-v: every test's log)
# stays in /tmp; the console gets, through /dev/kmsg, KTAP: one line per
# test, one per failed or skipped subtest, the log lines just before each
# failure or skip (why), test_progs' "Summary:" line and the totals. The
# harness (harness/src/suite.c) counts the cases and compares them with
# those of the boot that ran with checks off.
. /lib/bjk.sh
# bjk.progs_dir= (tests/boots-full): the full tier's build, /selftests-full.
dir=$(bjk_param progs_dir /selftests)
out=/tmp/test_progs.out
limit=540

for f in "$dir/test_progs" "$dir/bpf_testmod.ko"; do
	if [ ! -f "$f" ]; then
		bjk_error "test_progs: $f is not in the image"
		exit 2
	fi
done
# Some tests run programs unprivileged too (as test_verifier does).
echo 0 >/proc/sys/kernel/unprivileged_bpf_disabled
# Some (tc_opts_*) ping 127.0.0.1 in the boot's own network namespace, where
# /init leaves the loopback device down.
ip link set lo up || {
	bjk_error "test_progs: cannot bring the loopback device up (ip link set lo up)"
	exit 2
}

# test_progs loads bpf_testmod.ko and opens *.bpf.o from its working directory.
cd "$dir" || exit 2
deny=$(cat test_progs.deny 2>/dev/null)
[ -n "$deny" ] && bjk_kmsg "test_progs: not run (the build's list): $deny"
# The full tier's build says which test files it could not build, and why.
if [ -f test_progs.unbuilt ]; then
	while IFS= read -r l; do bjk_kmsg "test_progs: not built: $l"; done <test_progs.unbuilt
fi
# bjk.progs= on the kernel command line (tests/boots) splits the tests over
# boots: "verifier" runs only the verifier_* tests, "other" all but them,
# "n:RANGE" the tests numbered RANGE (test_progs -n, e.g. 1-120: their
# numbers in this build's test_progs -l order; tests/boots-full); without
# it, all of them run.
part=$(bjk_param progs)
allow=
num=
case "$part" in
n:*)
	num=${part#n:}
	bjk_kmsg "test_progs: bjk.progs=$part: the tests numbered $num (tests/boots-full)"
	;;
verifier)
	allow='verifier_*'
	bjk_kmsg "test_progs: bjk.progs=verifier: only the verifier_* tests (tests/boots)"
	;;
other)
	deny="${deny:+$deny,}verifier_*"
	bjk_kmsg "test_progs: bjk.progs=other: all but the verifier_* tests (tests/boots)"
	;;
'') ;;
*)
	bjk_error "test_progs: bjk.progs=$part on the kernel command line: want verifier, other or n:RANGE"
	exit 2
	;;
esac
# Each top-level result goes to the console as it comes, so that a slow or
# hung test shows where it stands.
# Its stderr apart: the commands tests run (system(), e.g. "ip netns",
# bpftool) inherit it, and their messages written between two of
# test_progs' buffered writes cut its result lines in two ("#94
# fexit_stress:BusyBox v1.35.0 ... multi-call binary." in one boot of the
# full tier, its twin's line whole). test_progs' own log goes to stdout.
err=/tmp/test_progs.err
( timeout "$limit" ./test_progs -v ${num:+-n "$num"} ${allow:+-a "$allow"} ${deny:+-d "$deny"} 2>"$err"; echo "BJK-RC $?" ) | tee "$out" |
	awk '/^#[0-9]+ / { print; fflush() }' | while IFS= read -r l; do bjk_kmsg "# test_progs, as it runs: $l"; done
rc=$(sed -n 's/^BJK-RC //p' "$out")
sed -i '/^BJK-RC /d' "$out"
[ "$rc" -eq 143 ] && bjk_error "test_progs: timed out after ${limit}s"

# "#12      name:OK", "#12/3    name/sub:SKIP", "#12      name:OK (SKIP: 1/9)",
# "#12      name:FAIL"; in -v mode each test's log comes before its line.
# KTAP, plan first: a case per test, and one per failed or skipped subtest,
# named "name" or "name/sub" ('#' would start a KTAP directive), but a test
# whose subtests were all skipped is those skips only; the log lines before
# a failure or a skip say why. Then the Summary and the totals.
# The Summary ("T/S PASSED, K SKIPPED, F FAILED": T tests did not fail, K
# subtests and tests skipped) must count what the lines count: a line that
# did not come (a crash in the middle) fails a case of its own.
awk '
# A test that prints a log line without its newline (btf_tag:
# "...:SKIP: btf_decl_tag attribute not supported") glues the result line
# that follows onto it: the log part goes to the log, the rest is the
# result line.
!/^#/ && match($0, /#[0-9]+(\/[0-9]+)? +[^ ].*:(OK|SKIP|FAIL)( \(SKIP: [0-9]+\/[0-9]+\))?$/) {
	buf[nb++] = substr($0, 1, RSTART - 1)
	$0 = substr($0, RSTART)
}
/^#[0-9]+(\/[0-9]+)? +.*:(OK|SKIP|FAIL)( \(SKIP: [0-9]+\/[0-9]+\))?$/ {
	match($0, /:(OK|SKIP|FAIL)( \(SKIP: [0-9]+\/[0-9]+\))?$/)
	res = substr($0, RSTART + 1)
	name = substr($0, 1, RSTART - 1)
	top = name !~ /^#[0-9]+\//
	sub(/^#[0-9]+(\/[0-9]+)? +/, "", name)
	gsub(/#/, "", name)
	# A test that forks (send_signal) flushes a copy of the parent'"'"'s
	# buffered output: the same line twice. A case counts once.
	if (name in seen) {
		nb = 0
		next
	}
	seen[name] = 1
	if (res == "FAIL") {
		print "not ok " name
		for (j = (nb > 30 ? nb - 30 : 0); j < nb; j++)
			print "#   " buf[j]
		f++
		if (top)
			topfail++
	} else if (res == "SKIP" && top && subskip[name]) {
		# All its subtests skipped: they are the cases, as test_progs
		# counts them.
		print "# " name ": skipped, all its subtests above"
		topok++
	} else if (res == "SKIP") {
		print "ok " name " # SKIP"
		for (j = (nb > 3 ? nb - 3 : 0); j < nb; j++)
			print "#   " buf[j]
		s++
		if (top)
			topok++
		else
			subskip[substr(name, 1, index(name, "/") - 1)]++
	} else if (top) {
		print "ok " name (res == "OK" ? "" : " # " res)
		p++
		topok++
	}
	nb = 0
	next
}
/^Summary: / { summary = $0; next }
{ buf[nb++] = $0 }
END {
	if (split(summary, w, /[ \/,]+/) < 7 || w[2] != topok || w[5] != s || (w[7] > 0) != (f > 0))
		printf "not ok test_progs.summary # \"%s\": %d tests did not fail, %d skipped, %d failed by the case lines\n", summary, topok, s, f
	printf "# test_progs: %s\n", summary
}
' "$out" | bjk_ktap | while IFS= read -r l; do bjk_kmsg "$l"; done
# (log_err() of the network tests writes its reasons there too.)
if [ -s "$err" ]; then
	bjk_kmsg "# stderr of test_progs and the commands it ran, last lines:"
	tail -n 50 "$err" | while IFS= read -r l; do bjk_kmsg "# stderr: $l"; done
fi
grep -q '^Summary: ' "$out" || {
	bjk_error "test_progs: no Summary line (exit status $rc); last lines:"
	tail -n 20 "$out" | while IFS= read -r l; do bjk_kmsg "# $l"; done
}
exit "$rc"
