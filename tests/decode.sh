# Suite decode, run in the guest by /init after the e2e suite of the same
# boot: tests/e2e.sh ran the e2e runner under `bjk-decode watch -c`, which
# decoded every KASAN report while its program was loaded and checked it:
# the instruction is a memory access of the report's kind (Read/Write,
# size), and in a C program the source line names that access in its
# comment (tests/e2e/progs/e2e.bpf.c). One KTAP line per report, and one
# that the watcher saw as many reports as the e2e cases expected.
f=/tmp/decode.ktap
if [ ! -f "$f" ]; then
	echo "BJK-ERROR: decode: $f missing (run the e2e suite first in this boot, with /tools/bjk-decode in the image)" >/dev/kmsg
	exit 2
fi
# bjk-decode knows the count only at the end: the plan and the totals come
# from its lines.
awk '
/^(ok|not ok) / { if ($0 ~ / # SKIP/) s++; else if ($1 == "ok") p++; else f++ }
{ l[NR] = $0 }
END {
	print "KTAP version 1"
	print "1.." (p + f + s)
	for (i = 1; i <= NR; i++)
		print l[i]
	printf "# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n", p, f, s
}' "$f"
if grep -q '^not ok' "$f"; then
	echo "# decode: the decoded reports:"
	sed 's/^/# /' /tmp/decode.txt
	exit 1
fi
exit 0
