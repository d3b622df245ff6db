# Suite fuzz, run in the guest by /init on the museum's kernel (the fuzz
# kernel: KCOV, the bug switches): the fuzzer (tools/fuzz/) with fixed
# seeds, twice.
#   fuzz.finds.bitN  museum bug N switched on alone: it must find it,
#               reproducible, minimized, with its C reproducer, within a
#               number of programs (generated only, with a fixed seed: the
#               same programs on every machine; a time limit too, in case
#               the machine is very slow): a KASAN report in a JITed
#               program for a verifier bug, found through the belief probe
#               (its info names where the probe looked), a difference from
#               the interpreter for the planted JIT miscompile (bit 7)
#   fuzz.quiet  every bug off: the test_verifier seeds replayed, then
#               fuzzing, a number of programs; it must find nothing (no
#               report, no splat, no difference between the JIT and the
#               interpreter)
# bjk.fuzz=BITS,SEED,PROGS_FIND,PROGS_QUIET on the kernel command line
# (tests/boots; BITS: bit numbers joined by "+", each found alone). The fuzzer checks every report it reads itself, so its
# expect regions take any number ("*"); the quiet run's takes none. KTAP
# through /dev/kmsg.
. /lib/bjk.sh
f=/fuzz/bjk-fuzz
bjk_need fuzz "$f"
param=$(bjk_param fuzz)
IFS=, read -r bits seed progs_find progs_quiet <<EOF
$param
EOF
case "$bits,$seed,$progs_find,$progs_quiet" in
*[!0-9,+]* | *,, | ,* | *, | *++* | +* | *+,*)
	bjk_error "fuzz: bjk.fuzz=$param on the kernel command line: want BITS,SEED,PROGS_FIND,PROGS_QUIET, BITS like 7+0 (tests/boots)"
	exit 2
	;;
esac
mode=$(bjk_check_mode)
# notes: a file's lines as KTAP diagnostics
notes() {
	while IFS= read -r l; do echo "# $l"; done <"$1"
}

# find_bug BIT: the run that must find museum bug BIT, as case fuzz.finds.bitBIT
find_bug() {
	local bit=$1 out=/tmp/fuzz-finds-$1 kind key rc=0 d case=fuzz.finds.bit$1
	# the bug's kind of finding: the planted miscompile (bit 7) a
	# difference from the interpreter, the verifier's bugs a KASAN report
	# in the JITed program; the finding's key says which (tools/fuzz/fuzz.c:
	# kasan-BUG-{R,W}SIZE for a report in the program, -in-FUNC added for
	# one in the kernel's C code; diff-retval, diff-maps), as the fuzzer
	# read the report with lib/bjk-report.h
	kind=kasan- probe=50
	key='^kasan-[a-z-]*-[RW][0-9]*$'
	if [ "$bit" = 7 ]; then
		# -P 0: the probe sees the miscompiled shift's results outside
		# the verifier's beliefs and turns them into KASAN reports first
		# (each minimized, a minute apiece); this case is the
		# differential oracle's
		kind=diff- probe=0
		key='^diff-\(retval\|maps\)$'
	fi
	bjk_kmsg "BJK-EXPECT-BEGIN $case *"
	# -G 100: generated programs only, the same ones on every machine
	# (a mutated one depends on the coverage the corpus reached)
	"$f" -q -U "$kind" -G 100 -P "$probe" -m "$mode" -b "$((1 << bit))" -s "$seed" -n "$progs_find" -t 400 -p 10 \
		-o "$out" >/dev/null 2>"$out.err" || rc=$?
	bjk_kmsg "BJK-EXPECT-END $case"
	d=$(ls -d "$out/findings/$kind"* 2>/dev/null | head -n 1)
	if [ "$rc" -ne 0 ]; then
		echo "not ok $case # bjk-fuzz exit status $rc: $(tail -n 1 "$out.err")"
	elif [ -z "$d" ]; then
		echo "not ok $case # museum bit $bit, seed $seed: no $kind finding in $progs_find programs ($(ls "$out/findings" | tr '\n' ' '))"
	elif ! basename "$d" | grep -q "$key" || ! grep -qx 'reproduces yes' "$d/info" ||
		! grep -q 'BPF_PROG_TEST_RUN' "$d/repro.c" || [ ! -s "$d/prog" ]; then
		echo "not ok $case # $(basename "$d"): not the bug's kind, or not whole (reproduces, prog, repro.c)"
		notes "$d/info"
		notes "$d/prog"
	elif [ "$kind" = kasan- ] && ! grep -q '^origin belief probe after insn [0-9]*: r[0-9] was ' "$d/info"; then
		echo "not ok $case # $(basename "$d"): not found by the belief probe (no origin line)"
		notes "$d/info"
	else
		echo "ok $case # museum bit $bit: $(basename "$d") after $(sed -n 's/^programs //p' "$d/info") programs, $(sed -n 's/^seconds //p' "$d/info") s"
		notes "$d/info"
		notes "$d/prog"
	fi
	grep -h 'done:\|probes:' "$out/log" | sed 's/^/# /'
}

{
	for bit in $(echo "$bits" | tr + ' '); do
		find_bug "$bit"
	done

	out=/tmp/fuzz-quiet
	bjk_kmsg "BJK-EXPECT-BEGIN fuzz.quiet 0"
	rc=0
	"$f" -q -G 100 -m "$mode" -b 0 -s "$((seed + 1))" -n "$progs_quiet" -t 240 -p 10 -i /fuzz -o "$out" >/dev/null 2>"$out.err" || rc=$?
	bjk_kmsg "BJK-EXPECT-END fuzz.quiet"
	n=$(ls "$out/findings" 2>/dev/null | wc -l)
	if [ "$rc" -ne 0 ]; then
		echo "not ok fuzz.quiet # bjk-fuzz exit status $rc: $(tail -n 1 "$out.err")"
	elif [ "$n" -ne 0 ]; then
		echo "not ok fuzz.quiet # every bug off, $n finding(s):"
		for d in "$out"/findings/*; do notes "$d/info"; done
	else
		echo "ok fuzz.quiet # every bug off, seed $((seed + 1)), $progs_quiet programs: nothing found"
	fi
	grep -h 'corpus /fuzz\|done:\|probes:' "$out/log" | sed 's/^/# /'
} | bjk_ktap | while IFS= read -r l; do bjk_kmsg "$l"; done
