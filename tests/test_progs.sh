# Suite test_progs, run in the guest by /init: the subset of the kernel's own
# tools/testing/selftests/bpf/test_progs that tests/selftests/build.sh builds
# (tests/selftests/test_progs.list). Its full output (-v: every test's log)
# stays in /tmp; the console gets, through /dev/kmsg, one KTAP line per test,
# one per failed or skipped subtest, the log lines just before each skip
# (why it skipped) and test_progs' closing "Summary:" line, from which the
# harness (harness/src/suite.c) takes the counts and compares them with the
# boot that ran with checks off.
dir=/selftests
out=/tmp/test_progs.out
limit=540

kmsg() {
	echo "$*" >/dev/kmsg
}

for f in "$dir/test_progs" "$dir/bpf_testmod.ko"; do
	if [ ! -f "$f" ]; then
		kmsg "BJK-ERROR: test_progs: $f is not in the image"
		exit 2
	fi
done
# Some tests run programs unprivileged too (as test_verifier does).
echo 0 >/proc/sys/kernel/unprivileged_bpf_disabled
# Some (tc_opts_*) ping 127.0.0.1 in the boot's own network namespace, where
# /init leaves the loopback device down.
ip link set lo up || {
	kmsg "BJK-ERROR: test_progs: cannot bring the loopback device up (ip link set lo up)"
	exit 2
}

# test_progs loads bpf_testmod.ko and opens *.bpf.o from its working directory.
cd "$dir" || exit 2
deny=$(cat test_progs.deny 2>/dev/null)
[ -n "$deny" ] && kmsg "test_progs: not run (tests/selftests/test_progs.list): $deny"
# bjk.progs= on the kernel command line (tests/boots) splits the tests over
# two boots: "verifier" runs only the verifier_* tests, "other" all but them;
# without it, all of them run.
part=$(sed -n 's/.*bjk\.progs=\([^ ]*\).*/\1/p' /proc/cmdline)
allow=
case "$part" in
verifier)
	allow='verifier_*'
	kmsg "test_progs: bjk.progs=verifier: only the verifier_* tests (tests/boots)"
	;;
other)
	deny="${deny:+$deny,}verifier_*"
	kmsg "test_progs: bjk.progs=other: all but the verifier_* tests (tests/boots)"
	;;
'') ;;
*)
	kmsg "BJK-ERROR: test_progs: bjk.progs=$part on the kernel command line: want verifier or other"
	exit 2
	;;
esac
# Each top-level result goes to the console as it comes, so that a slow or
# hung test shows where it stands.
( timeout "$limit" ./test_progs -v ${allow:+-a "$allow"} ${deny:+-d "$deny"} 2>&1; echo "BJK-RC $?" ) | tee "$out" |
	awk '/^#[0-9]+ / { print; fflush() }' | while IFS= read -r l; do kmsg "# test_progs: $l"; done
rc=$(sed -n 's/^BJK-RC //p' "$out")
sed -i '/^BJK-RC /d' "$out"
[ "$rc" -eq 143 ] && kmsg "BJK-ERROR: test_progs: timed out after ${limit}s"

# "#12      name:OK", "#12/3    name/sub:SKIP", "#12      name:OK (SKIP: 1/9)",
# "#12      name:FAIL"; in -v mode each test's log comes before its line.
awk '
/^#[0-9]+(\/[0-9]+)? +.*:(OK|SKIP|FAIL)( \(SKIP: [0-9]+\/[0-9]+\))?$/ {
	match($0, /:(OK|SKIP|FAIL)( \(SKIP: [0-9]+\/[0-9]+\))?$/)
	res = substr($0, RSTART + 1)
	name = substr($0, 1, RSTART - 1)
	gsub(/  +/, " ", name)
	top = name !~ /^#[0-9]+\//
	if (res == "FAIL") {
		printf "not ok %d test_progs %s\n", ++n, name
		for (j = (nl > 30 ? nl - 30 : 0); j < nl; j++)
			printf "#   %s\n", buf[j]
	} else if (res == "SKIP") {
		printf "ok %d test_progs %s # SKIP\n", ++n, name
		for (j = (nl > 3 ? nl - 3 : 0); j < nl; j++)
			printf "#   %s\n", buf[j]
	} else if (top)
		printf "ok %d test_progs %s%s\n", ++n, name, res == "OK" ? "" : " # " res
	nl = 0
	next
}
/^Summary: / { printf "test_progs: %s\n", $0; next }
{ buf[nl++] = $0 }
' "$out" | while IFS= read -r l; do kmsg "$l"; done
grep -q '^Summary: ' "$out" || {
	kmsg "BJK-ERROR: test_progs: no Summary line (exit status $rc); last lines:"
	tail -n 20 "$out" | while IFS= read -r l; do kmsg "# $l"; done
}
exit "$rc"
