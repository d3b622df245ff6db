# Suite decode, run in the guest by /init after the e2e suite of the same
# boot: tests/e2e.sh ran the e2e runner under `bjk-decode watch -c`, which
# decoded every KASAN report while its program was loaded and checked it:
# the instruction is a memory access of the report's kind (Read/Write,
# size), and in a C program the source line names that access in its
# comment (tests/e2e/progs/e2e.bpf.c). One KTAP line per report, and one
# that the watcher saw as many reports as the e2e cases expected.
. /lib/bjk.sh
f=/tmp/decode.ktap
if [ ! -f "$f" ]; then
	echo "BJK-ERROR: decode: $f missing (run the e2e suite first in this boot, with /vm/bjk-decode in the image)" >/dev/kmsg
	exit 2
fi
# bjk-decode knows the count only at the end: the plan and the totals come
# from its lines (bjk_ktap numbers them again).
sed -E 's/^(ok|not ok) [0-9]+ /\1 /' "$f" | bjk_ktap
if grep -q '^not ok' "$f"; then
	echo "# decode: the decoded reports:"
	sed 's/^/# /' /tmp/decode.txt
	exit 1
fi
exit 0
