# Suite museum, run in the guest by /init on the museum kernel (tests/boots:
# the boots whose kernel is "museum"): every bug of tests/museum/museum.c,
# with its bit off (the verifier must refuse) and on (out: a read past the
# allocation; in: a write inside it). bjk.museum= on the kernel command line
# names the boot's mode: off, inline, outline (the checks), interp (the JIT
# off: the interpreter runs the programs). With checks on, the decoder
# watches (tests/museum/check.sh compares its instruction with the runner's).
# KTAP through /dev/kmsg.
. /lib/bjk.sh
dir=/museum
decode=/tools/bjk-decode
bjk_need museum "$dir/bjk-museum" "$decode"
mode=$(bjk_param museum)
case "$mode" in
off | inline | outline) ;;
interp)
	if ! echo 0 >/proc/sys/net/core/bpf_jit_enable; then
		echo "BJK-ERROR: museum: cannot turn the JIT off (net.core.bpf_jit_enable; a kernel with BPF_JIT_ALWAYS_ON?)" >/dev/kmsg
		exit 2
	fi
	;;
*)
	echo "BJK-ERROR: museum: bjk.museum=$mode on the kernel command line: want off, inline, outline or interp (tests/boots)" >/dev/kmsg
	exit 2
	;;
esac
if [ "$mode" = inline ] || [ "$mode" = outline ]; then
	echo 1 >/proc/sys/net/core/bpf_jit_kallsyms
	bjk_decoded museum "$decode" "$dir/bjk-museum" -k -m "$mode"
	exit $?
fi
"$dir/bjk-museum" -k -m "$mode"
