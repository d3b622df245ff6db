# Suite test_bpf, run in the guest by /init: the kernel's own BPF test
# vectors (lib/test_bpf.c) through the JIT. The host reads its three
# "Summary:" lines from the console (harness/src/suite.c): the suite passes
# when each has 0 FAILED and every eBPF test was JITed (N/N).
mod=/lib/modules/test_bpf.ko
if [ ! -f "$mod" ]; then
	echo "BJK-ERROR: test_bpf: $mod is not in the image" >/dev/kmsg
	exit 2
fi
insmod "$mod"
