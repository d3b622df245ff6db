# Suite stress, run in the guest by /init: checked programs on both CPUs
# while other threads load and free programs and change the maps and the
# prog array under them, and a generic XDP program on lo counts datagrams
# (tests/stress/stress.c). KTAP through /dev/kmsg. bjk.stress=SECONDS on the
# kernel command line sets the duration.
. /lib/bjk.sh
b=/stress/bjk-stress
bjk_need stress "$b"
"$b" -k -t "$(bjk_param stress 30)"
