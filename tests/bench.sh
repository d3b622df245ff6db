# Suite bench, run in the guest by /init: the benchmark's runner
# (bench/runner.c) over every benchmark program in this boot's check mode.
# It prints KTAP (one line per program, one for the loads) and the
# BJK-BENCH figure lines through /dev/kmsg. On the kernel command line:
#   bjk.bench=REPEAT,PASSES,COUNT[,LOADS]  the test_run repeat, the timed
#     passes, the runs of the counting pass, the timed loads of each
#     program; the default is the quick form of make test
#   bjk.bench_corpus=NAME,...  more objects whose loads are timed,
#     /selftests/NAME.bpf.o (the selftests suite's, in the series' image)
#   bjk.bench_jit=0  the JIT off (net.core.bpf_jit_enable=0): the
#     interpreter runs the programs (a kernel without BPF_JIT_ALWAYS_ON)
b=/bench/bjk-bench
if [ ! -x "$b" ]; then
	echo "BJK-ERROR: bench: $b is not in the image" >/dev/kmsg
	exit 2
fi
r=200 p=2 c=5 l=1
corpus=
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	bjk.bench=*)
		v=$(echo "${arg#bjk.bench=}" | tr , ' ')
		# shellcheck disable=SC2086 # three or four numbers
		set -- $v
		r=$1 p=$2 c=$3 l=${4:-$l}
		;;
	bjk.bench_corpus=*)
		for n in $(echo "${arg#bjk.bench_corpus=}" | tr , ' '); do
			corpus="$corpus -L /selftests/$n.bpf.o"
		done
		;;
	bjk.bench_jit=0)
		if ! echo 0 >/proc/sys/net/core/bpf_jit_enable; then
			echo "BJK-ERROR: bench: cannot turn the JIT off (a kernel with BPF_JIT_ALWAYS_ON?)" >/dev/kmsg
			exit 2
		fi
		;;
	esac
done
# JIT images need kallsyms entries for jited_ksyms (the static check count).
echo 1 >/proc/sys/net/core/bpf_jit_kallsyms
# shellcheck disable=SC2086 # -L PATH pairs
"$b" -k -r "$r" -p "$p" -c "$c" -l "$l" $corpus
