# Suite faults, run in the guest by /init: program loads with their first,
# second, ... allocation failing in turn (tests/stress/faults.c, fail-nth);
# clean errors, and every program that loads fully checked. KTAP through
# /dev/kmsg. A leaks suite after it in the same boot finds what the failed
# loads left behind.
b=/stress/bjk-faults
if [ ! -x "$b" ]; then
	echo "BJK-ERROR: faults: $b is not in the image" >/dev/kmsg
	exit 2
fi
"$b" -k
