# Suite test_progs, run in the guest by /init: the subset of the kernel's own
# tools/testing/selftests/bpf/test_progs that tests/selftests/build.sh builds
# (tests/selftests/test_progs.list). Its full output (-v: every test's log)
# stays in /tmp; the console gets, through /dev/kmsg, its result lines,
# the log lines just before each failure or skip (why) and its "Summary:"
# line, as a raw block (bjk_raw), which the host turns into KTAP
# (tests/test_progs/convert.awk: one case per test, one per failed or
# skipped subtest). The harness (harness/src/suite.c) counts the cases and
# compares them with those of the boot that ran with checks off.
. /lib/bjk.sh
# bjk.progs_dir= (tests/boots-full): the full tier's build, /selftests-full.
dir=$(bjk_param progs_dir /selftests)
out=/tmp/test_progs.out
# bjk.progs_limit=: seconds test_progs may run, under the boot's own
# limit (harness/qemu.sh's 600 s; make test-bpf-ci's slower kernel gets more).
limit=$(bjk_param progs_limit 540)

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
	# "N-": from N to the last test of this build (BPF CI's kernel builds
	# test files the project's cannot, and numbers its tests further)
	case "$num" in
	*-) num=$num$(./test_progs -l | wc -l) ;;
	esac
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
# Its stderr apart: the commands tests run (system(), e.g. "ip netns",
# bpftool) inherit it, and their messages written between two of
# test_progs' buffered writes cut its result lines in two ("#94
# fexit_stress:BusyBox v1.35.0 ... multi-call binary." in one boot of the
# full tier, its twin's line whole). test_progs' own log goes to stdout.
#
# The raw block, for the host, whose tests/test_progs/convert.awk makes the
# KTAP; each line as it comes, so that a slow or hung test shows where it
# stands. test_progs -v prints each test's log, then its result line:
# "#12      name:OK", "#12/3    name/sub:SKIP", "#12      name:OK (SKIP:
# 1/9)", "#12      name:FAIL". Of them the block has every test's result
# line, each subtest's but those that passed, before a FAIL the last 30 log
# lines since the result line before it, before a SKIP the last 3 (why),
# and the Summary line. A test that prints a log line without its newline
# (btf_tag: "...:SKIP: btf_decl_tag attribute not supported") glues the
# result line that follows onto it: such a line is a result line, and goes
# as it is (the host takes it apart). -J (--json-summary) would add nothing:
# with -v, 6.12's test_progs writes its counts there, the Summary's, and no
# test.
err=/tmp/test_progs.err
( timeout "$limit" ./test_progs -v ${num:+-n "$num"} ${allow:+-a "$allow"} ${deny:+-d "$deny"} 2>"$err"; echo "BJK-RC $?" ) | tee "$out" |
	awk '
	function out(n,    j) {
		for (j = (nb > n ? nb - n : 0); j < nb; j++)
			print buf[j]
		print
		fflush()
	}
	/^BJK-RC / { next }
	/^Summary: / { out(0); next }
	{
		r = ""
		if ($0 ~ /^#[0-9]+(\/[0-9]+)? +.*:(OK|SKIP|FAIL)( \(SKIP: [0-9]+\/[0-9]+\))?$/)
			r = $0
		else if ($0 !~ /^#/ && match($0, /#[0-9]+(\/[0-9]+)? +[^ ].*:(OK|SKIP|FAIL)( \(SKIP: [0-9]+\/[0-9]+\))?$/))
			r = substr($0, RSTART)
		if (r == "") {
			buf[nb++] = $0
			next
		}
		if (r ~ /:FAIL$/)
			out(30)
		else if (r ~ /:SKIP$/)
			out(3)
		else if (r !~ /^#[0-9]+\//)
			out(0)
		nb = 0
	}' | bjk_raw -l test_progs
rc=$(sed -n 's/^BJK-RC //p' "$out")
sed -i '/^BJK-RC /d' "$out"
[ "$rc" -eq 143 ] && bjk_error "test_progs: timed out after ${limit}s"

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
