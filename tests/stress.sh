# Suite stress, run in the guest by /init: checked programs on both CPUs
# while other threads load and free programs and change the maps and the
# prog array under them, and a generic XDP program on lo counts datagrams
# (tests/stress/stress.c). KTAP through /dev/kmsg. bjk.stress=SECONDS on the
# kernel command line sets the duration.
b=/stress/bjk-stress
if [ ! -x "$b" ]; then
	echo "BJK-ERROR: stress: $b is not in the image" >/dev/kmsg
	exit 2
fi
t=30
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	bjk.stress=*) t=${arg#bjk.stress=} ;;
	esac
done
"$b" -k -t "$t"
