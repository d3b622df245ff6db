# Suite faults, run in the guest by /init: program loads with their first,
# second, ... allocation failing in turn (tests/stress/faults.c, fail-nth);
# clean errors, and every program that loads fully checked. KTAP through
# /dev/kmsg. A leaks suite after it in the same boot finds what the failed
# loads left behind.
. /lib/bjk.sh
b=/stress/bjk-faults
bjk_need faults "$b"
"$b" -k
