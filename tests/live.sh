# Suite live, run in the guest by /init: the museum's live exhibits
# (tests/museum/live.c), bugs of this kernel as it is, nothing re-introduced.
# The mode comes from the command line of the boot (tests/boots):
# bjk.museum=interp (the museum kernel's interpreter boot: the JIT off, the
# referee), else bpf_jit_kasan= (off, outline; inline by default). With
# checks on, the decoder watches (tests/live/post.sh compares its program
# and instruction with the runner's). KTAP through /dev/kmsg.
live=
for f in /live/bjk-live /museum/bjk-live; do
	[ -x "$f" ] && live=$f && break
done
if [ -z "$live" ]; then
	echo "BJK-ERROR: live: bjk-live is not in the image" >/dev/kmsg
	exit 2
fi
mode=inline
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	bpf_jit_kasan=*) mode=${arg#bpf_jit_kasan=} ;;
	esac
done
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	bjk.museum=interp) mode=interp ;;
	esac
done
decode=
for f in /vm/bjk-decode /museum/bjk-decode; do
	[ -x "$f" ] && decode=$f && break
done
if [ "$mode" = inline ] || [ "$mode" = outline ]; then
	if [ -z "$decode" ]; then
		echo "BJK-ERROR: live: bjk-decode is not in the image" >/dev/kmsg
		exit 2
	fi
	BJK_DECODE_ACK=/tmp/live.ack "$decode" watch -a /tmp/live.ack -- \
		"$live" -k -m "$mode" >/tmp/live.decode
	rc=$?
	while IFS= read -r l; do echo "# decode: $l" >/dev/kmsg; done </tmp/live.decode
	exit $rc
fi
"$live" -k -m "$mode"
