# Suite test_bpf, run in the guest by /init: the kernel's own BPF test
# vectors (lib/test_bpf.c) through the JIT. The module prints a line per test
# ("test_bpf: #12 descr jited:1 123 PASS") and one "Summary:" line for each
# of its three parts (test_bpf, test_tail_calls, test_skb_segment); this
# script reads them from /dev/kmsg while the module loads and prints them
# again, as the module wrote them, in a raw block (bjk_raw): the host's
# tests/test_bpf/convert.awk turns them into KTAP (harness/convert.sh, then
# harness/src/suite.c counts the cases). A case passes when it says PASS
# and, if it ran a program, that program was JITed (jited:1). Each part's
# Summary must count what its case lines count.
mod=/lib/modules/test_bpf.ko
log=/tmp/test_bpf.kmsg
. /lib/bjk.sh
bjk_need test_bpf "$mod"

# /dev/kmsg from the oldest record on (the ring buffer is too small for all
# the module prints, the reader is not), up to the end marker.
echo "BJK-TEST-BPF-START" >/dev/kmsg
cat /dev/kmsg >"$log" &
reader=$!
insmod "$mod"
rc=$?
echo "BJK-TEST-BPF-END" >/dev/kmsg
bjk_wait 300 grep -q 'BJK-TEST-BPF-END' "$log"
kill "$reader" 2>/dev/null
grep -q 'BJK-TEST-BPF-END' "$log" || {
	echo "BJK-ERROR: test_bpf: the module's messages did not all come through /dev/kmsg" >/dev/kmsg
	exit 2
}

# The module's records between the two markers, their text only
# (/dev/kmsg's "level,seq,usec,flags;" off; its continuation lines,
# " KEY=value", left out), those the converter reads: the tests' lines, the
# Summary lines, and the pieces a test's line can come in (a KASAN report
# printed while the test runs ends its record, and the rest, "jited:1 ",
# "123 PASS", follows as records of their own). The host turns them into
# KTAP (tests/test_bpf/convert.awk).
awk '
/BJK-TEST-BPF-START/ { on = 1; next }
/BJK-TEST-BPF-END/ { exit }
!on || /^ / { next }
{ sub(/^[^;]*;/, "") }
/^test_bpf: |^jited:[01] |PASS$|FAIL/
' "$log" | bjk_raw test_bpf
[ "$rc" -eq 0 ] || echo "# test_bpf: insmod exit status $rc" >/dev/kmsg
exit "$rc"
