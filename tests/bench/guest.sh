# Suite bench, run in the guest by /init: the benchmark's runner
# (tests/bench/runner.c) over every benchmark program in this boot's check mode.
# It prints KTAP (one line per program, one for the loads) and the
# BJK-BENCH figure lines through /dev/kmsg. On the kernel command line:
#   bjk.bench=REPEAT,PASSES,COUNT[,LOADS]  the test_run repeat, the timed
#     passes, the runs of the counting pass, the timed loads of each
#     program; the default is the quick form of make test
#   bjk.bench_corpus=NAME,...  more objects whose loads are timed,
#     /selftests/NAME.bpf.o (the selftests suite's, in the series' image)
#   bjk.bench_jit=0  the JIT off (net.core.bpf_jit_enable=0): the
#     interpreter runs the programs (a kernel without BPF_JIT_ALWAYS_ON)
. /lib/bjk.sh
b=/bench/bjk-bench
bjk_need bench "$b"
r=200 p=2 c=5 l=1
bench=$(bjk_param bench)
if [ -n "$bench" ]; then
	# shellcheck disable=SC2046 # three or four numbers
	set -- $(echo "$bench" | tr , ' ')
	r=$1 p=$2 c=$3 l=${4:-$l}
fi
corpus=
for n in $(bjk_param bench_corpus | tr , ' '); do
	corpus="$corpus -L /selftests/$n.bpf.o"
done
if [ "$(bjk_param bench_jit)" = 0 ] && ! echo 0 >/proc/sys/net/core/bpf_jit_enable; then
	bjk_error "bench: cannot turn the JIT off (a kernel with BPF_JIT_ALWAYS_ON?)"
	exit 2
fi
# JIT images need kallsyms entries for jited_ksyms (the static check count).
echo 1 >/proc/sys/net/core/bpf_jit_kallsyms
# shellcheck disable=SC2086 # -L PATH pairs
"$b" -k -r "$r" -p "$p" -c "$c" -l "$l" $corpus
