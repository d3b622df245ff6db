# Suite e2e, run in the guest by /init: the end-to-end cases of KASAN checks
# in JITed BPF (tests/e2e/). Loads the test module, runs the runner, which
# prints KTAP through /dev/kmsg (one line per case) and frames every case
# that expects KASAN reports with BJK-EXPECT-BEGIN/END for the splat scan.
. /lib/bjk.sh
dir=/e2e
bjk_need e2e "$dir/bjk_e2e.ko" "$dir/bjk-e2e"
echo 1 >/proc/sys/net/core/bpf_jit_kallsyms
insmod "$dir/bjk_e2e.ko" || exit 2
if [ -x /tools/bjk-decode ]; then
	# For the decode suite (tests/decode/guest.sh): every report decoded while
	# its program is loaded, one line each, on the guest's side alone (-H:
	# as for a kernel without the report's BPF lines, which the runner
	# checks itself). The runner's status passes through.
	BJK_DECODE_ACK=/tmp/decode.ack /tools/bjk-decode watch -m -H \
		-a /tmp/decode.ack -- "$dir/bjk-e2e" -k >/tmp/decode.txt
else
	"$dir/bjk-e2e" -k
fi
rc=$?
rmmod bjk_e2e
exit $rc
