# Suite decode, run in the guest by /init after the e2e suite of the same
# boot: tests/e2e.sh ran the e2e runner under `bjk-decode watch -m`, which
# decoded every KASAN report while its program was loaded, one line each.
# The runner compares these with its plan (bjk-e2e -d, tests/e2e/loader.c):
# the report the case expects, in the expected program and function,
# decoded to an instruction of that access, in a C program to a source line
# whose comment names it (tests/e2e/progs/e2e.bpf.c). One KTAP line per
# report, and one that every report the plan expects was decoded.
d=/tmp/decode.txt
. /lib/bjk.sh
f=/tmp/decode.ktap
if [ ! -f "$d" ]; then
	echo "BJK-ERROR: decode: $d missing (run the e2e suite first in this boot, with /tools/bjk-decode in the image)" >/dev/kmsg
	exit 2
fi
/e2e/bjk-e2e -d "$d" >"$f"
rc=$?
if [ "$rc" -gt 1 ]; then
	echo "BJK-ERROR: decode: bjk-e2e -d $d: exit $rc: $(tail -1 "$f")" >/dev/kmsg
	exit 2
fi
# bjk-e2e -d knows the count only at the end: the plan and the totals come
# from its lines (bjk_ktap numbers them again).
sed -E 's/^(ok|not ok) [0-9]+ /\1 /' "$f" | bjk_ktap
if grep -q '^not ok' "$f"; then
	echo "# decode: the decoded reports:"
	sed 's/^/# /' "$d"
	exit 1
fi
exit 0
