# Suite bench, run in the guest by /init: the benchmark's runner
# (bench/runner.c) over every benchmark program in this boot's check mode.
# It prints KTAP (one line per program) and the BJK-BENCH figure lines
# through /dev/kmsg. bjk.bench=REPEAT,PASSES,COUNT on the kernel command
# line sets the test_run repeat, the timed passes and the runs of the
# counting pass; the default is the quick form of make test.
b=/bench/bjk-bench
if [ ! -x "$b" ]; then
	echo "BJK-ERROR: bench: $b is not in the image" >/dev/kmsg
	exit 2
fi
r=200 p=2 c=5
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	bjk.bench=*)
		v=$(echo "${arg#bjk.bench=}" | tr , ' ')
		# shellcheck disable=SC2086 # three numbers
		set -- $v
		r=$1 p=$2 c=$3
		;;
	esac
done
# JIT images need kallsyms entries for jited_ksyms (the static check count).
echo 1 >/proc/sys/net/core/bpf_jit_kallsyms
"$b" -k -r "$r" -p "$p" -c "$c"
