# Suite fuzz, run in the guest by /init on the museum's kernel (the fuzz
# kernel: KCOV, the bug switches): the fuzzer (tools/fuzz/) with fixed
# seeds, twice.
#   fuzz.finds  a museum bug switched on: it must find it, a KASAN report
#               in a JITed program, reproducible, minimized, with its C
#               reproducer, within a number of programs (with a fixed
#               seed the programs are the same on every machine; a time
#               limit too, in case the machine is very slow)
#   fuzz.quiet  every bug off: the test_verifier seeds replayed, then
#               fuzzing; it must find nothing (no report, no splat, no
#               difference between the JIT and the interpreter)
# bjk.fuzz=BIT,SEED,PROGS_FIND,SECS_QUIET on the kernel command line
# (tests/boots). The fuzzer checks every report it reads itself, so its
# expect regions take any number ("*"); the quiet run's takes none. KTAP
# through /dev/kmsg.
. /lib/bjk.sh
f=/fuzz/bjk-fuzz
bjk_need fuzz "$f"
IFS=, read -r bit seed progs_find secs_quiet <<EOF
${BJK_FUZZ:-}
EOF
case "$bit,$seed,$progs_find,$secs_quiet" in
*[!0-9,]* | *,, | ,* | *,)
	bjk_error "fuzz: bjk.fuzz=${BJK_FUZZ:-} on the kernel command line: want BIT,SEED,PROGS_FIND,SECS_QUIET (tests/boots)"
	exit 2
	;;
esac
mode=$(bjk_check_mode)
kmsg() {
	echo "$*" >/dev/kmsg
}
# notes: a file's lines as KTAP diagnostics
notes() {
	while IFS= read -r l; do echo "# $l"; done <"$1"
}

{
	out=/tmp/fuzz-finds
	kmsg "BJK-EXPECT-BEGIN fuzz.finds *"
	rc=0
	"$f" -q -u -m "$mode" -b "$((1 << bit))" -s "$seed" -n "$progs_find" -t 240 -p 10 -o "$out" >/dev/null 2>"$out.err" || rc=$?
	kmsg "BJK-EXPECT-END fuzz.finds"
	# the first finding: what -u stopped at
	d=$(ls -d "$out"/findings/kasan-* 2>/dev/null | head -n 1)
	if [ "$rc" -ne 0 ]; then
		echo "not ok fuzz.finds # bjk-fuzz exit status $rc: $(tail -n 1 "$out.err")"
	elif [ -z "$d" ]; then
		echo "not ok fuzz.finds # museum bit $bit, seed $seed: no KASAN finding in $progs_find programs ($(ls "$out/findings" | tr '\n' ' '))"
	elif ! grep -qx 'reproduces yes' "$d/info" || ! grep -q '^title BUG: KASAN: .* in bpf_prog_[0-9a-f]*_fz' "$d/info" ||
		! grep -q 'bpf_prog_test_run\|BPF_PROG_TEST_RUN' "$d/repro.c" || [ ! -s "$d/prog" ]; then
		echo "not ok fuzz.finds # $(basename "$d"): not whole (reproduces, title, prog, repro.c)"
		notes "$d/info"
	else
		echo "ok fuzz.finds # museum bit $bit: $(basename "$d") after $(sed -n 's/^programs //p' "$d/info") programs, $(sed -n 's/^seconds //p' "$d/info") s"
		notes "$d/info"
		notes "$d/prog"
	fi
	tail -n 2 "$out/log" | sed 's/^/# /'

	out=/tmp/fuzz-quiet
	kmsg "BJK-EXPECT-BEGIN fuzz.quiet 0"
	rc=0
	"$f" -q -m "$mode" -b 0 -s "$((seed + 1))" -t "$secs_quiet" -p 10 -i /fuzz -o "$out" >/dev/null 2>"$out.err" || rc=$?
	kmsg "BJK-EXPECT-END fuzz.quiet"
	n=$(ls "$out/findings" 2>/dev/null | wc -l)
	if [ "$rc" -ne 0 ]; then
		echo "not ok fuzz.quiet # bjk-fuzz exit status $rc: $(tail -n 1 "$out.err")"
	elif [ "$n" -ne 0 ]; then
		echo "not ok fuzz.quiet # every bug off, $n finding(s):"
		for d in "$out"/findings/*; do notes "$d/info"; done
	else
		echo "ok fuzz.quiet # every bug off, seed $((seed + 1)), ${secs_quiet}s: nothing found"
	fi
	grep -h 'corpus /fuzz\|done:' "$out/log" | sed 's/^/# /'
} | bjk_ktap | while IFS= read -r l; do kmsg "$l"; done
