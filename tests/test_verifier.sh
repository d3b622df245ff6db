# Suite test_verifier, run in the guest by /init: the kernel's own
# tools/testing/selftests/bpf/test_verifier (built by tests/selftests/build.sh),
# privileged and unprivileged variants of every case. Its full output stays
# in /tmp; the console gets, through /dev/kmsg, one KTAP line per failed or
# skipped case (by name) and its closing "Summary:" line, from which the
# harness (harness/src/suite.c) takes the counts and compares them with the
# boot that ran with checks off.
dir=/selftests
out=/tmp/test_verifier.out
# test_verifier's own run takes about 30 s under TCG; the boot's timeout is
# the harness's, this one only keeps a hung case from eating all of it.
limit=420

kmsg() {
	echo "$*" >/dev/kmsg
}

for f in "$dir/test_verifier" "$dir/bpf_testmod.ko"; do
	if [ ! -f "$f" ]; then
		kmsg "BJK-ERROR: test_verifier: $f is not in the image"
		exit 2
	fi
done
# 2 (the default) may be lowered to 0; the unprivileged variants need 0.
echo 0 >/proc/sys/kernel/unprivileged_bpf_disabled || {
	kmsg "BJK-ERROR: test_verifier: cannot set kernel.unprivileged_bpf_disabled=0"
	exit 2
}
kmsg "test_verifier: net.core.bpf_jit_harden=$(cat /proc/sys/net/core/bpf_jit_harden)"

# test_verifier loads bpf_testmod.ko from its working directory.
cd "$dir" || exit 2
timeout "$limit" ./test_verifier >"$out" 2>&1
rc=$?
[ "$rc" -eq 143 ] && kmsg "BJK-ERROR: test_verifier: timed out after ${limit}s"

# "#12/p descr OK", "#12/u descr FAIL...", "#12/p descr SKIP (reason)"
awk '
/^#[0-9]+\/[up] / {
	if ((i = index($0, " FAIL")) > 0) {
		printf "not ok %d test_verifier %s\n", ++n, substr($0, 1, i - 1)
		fail = 1
		next
	}
	if ((i = index($0, " SKIP")) > 0) {
		printf "ok %d test_verifier %s # SKIP%s\n", ++n, substr($0, 1, i - 1), substr($0, i + 5)
		next
	}
	fail = 0
	next
}
# The lines after a FAIL say why (verifier log, expected vs. got).
fail && shown < 200 { printf "# %s\n", $0; shown++ }
/^Summary: / { printf "test_verifier: %s\n", $0; fail = 0 }
' "$out" | while IFS= read -r l; do kmsg "$l"; done
grep -q '^Summary: ' "$out" || {
	kmsg "BJK-ERROR: test_verifier: no Summary line (exit status $rc); last lines:"
	tail -n 20 "$out" | while IFS= read -r l; do kmsg "# $l"; done
}
exit "$rc"
