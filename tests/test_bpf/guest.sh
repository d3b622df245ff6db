# Suite test_bpf, run in the guest by /init: the kernel's own BPF test
# vectors (lib/test_bpf.c) through the JIT. The module prints a line per test
# ("test_bpf: #12 descr jited:1 123 PASS") and one "Summary:" line for each
# of its three parts (test_bpf, test_tail_calls, test_skb_segment); this
# script reads them from /dev/kmsg while the module loads and writes them
# back as KTAP (bjk_ktap: plan first, then the totals; harness/src/suite.c
# counts the cases). A case passes when it says PASS and, if it ran a program, that
# program was JITed (jited:1). Each part's Summary must count what its case
# lines count: a line that did not come fails a case of its own.
mod=/lib/modules/test_bpf.ko
log=/tmp/test_bpf.kmsg
. /lib/bjk.sh
bjk_need test_bpf "$mod"

# /dev/kmsg from the oldest record on (the ring buffer is too small for all
# the module prints, the reader is not), up to the end marker.
echo "BJK-TEST-BPF-START" >/dev/kmsg
cat /dev/kmsg >"$log" &
reader=$!
insmod "$mod"
rc=$?
echo "BJK-TEST-BPF-END" >/dev/kmsg
bjk_wait 300 grep -q 'BJK-TEST-BPF-END' "$log"
kill "$reader" 2>/dev/null
grep -q 'BJK-TEST-BPF-END' "$log" || {
	echo "BJK-ERROR: test_bpf: the module's messages did not all come through /dev/kmsg" >/dev/kmsg
	exit 2
}

# A test's line can come in pieces: a KASAN report printed while the test
# runs ends its record, and the rest ("123 PASS") follows as a record of
# its own.
awk '
function finish(text,    idx, descr, res, why) {
	idx = text
	sub(/^test_bpf: #/, "", idx)
	sub(/ .*/, "", idx)
	descr = text
	sub(/^test_bpf: #[0-9]+ /, "", descr)
	sub(/ jited:[01] .*$/, "", descr)
	sub(/ (UNEXPECTED_)?(PASS|FAIL).*$/, "", descr)
	gsub(/#/, "", descr)
	why = ""
	if (text ~ /UNEXPECTED_|FAIL/) {
		res = "not ok"
		match(text, /(UNEXPECTED_|FAIL).*$/)
		why = substr(text, RSTART)
	} else if (text !~ /PASS$/) {
		res = "not ok"
		why = "no result on the console"
	} else if (text ~ / jited:0 /) {
		res = "not ok"
		why = "not JITed"
		nojit[part]++
	} else {
		res = "ok"
	}
	print res " " parts[part] "/" idx " " descr (why != "" ? " # " why : "")
	if (res != "ok")
		pf[part]++
	pc[part]++
	pending = ""
}
BEGIN { part = 0; parts[0] = "test_bpf"; parts[1] = "test_tail_calls"; parts[2] = "test_skb_segment" }
/BJK-TEST-BPF-START/ { on = 1; next }
!on || /^ / { next }
{ sub(/^[^;]*;/, "") }
/^test_bpf: #[0-9]+ / {
	if (pending != "")
		finish(pending)
	pending = $0
	if ($0 ~ /(PASS|FAIL.*)$/)
		finish(pending)
	next
}
/^test_bpf: ([a-z_]+: )?Summary: / {
	if (pending != "")
		finish(pending)
	s = $0
	sub(/^.*Summary: /, "", s)
	split(s, w, /[^0-9]+/)
	sum[part] = s
	spass[part] = w[1]
	sfail[part] = w[2]
	part++
	next
}
pending != "" && /^(jited:[01] )?.*(PASS|FAIL.*)$/ { finish(pending " " $0); next }
pending != "" && /^jited:[01] / { pending = pending " " $0 }
END {
	if (pending != "")
		finish(pending)
	# "P PASSED, F FAILED": a test that ran without the JIT is among P.
	for (i = 0; i < 3; i++) {
		if (!(i in sum))
			printf "not ok %s.summary # no Summary line\n", parts[i]
		else if (spass[i] - nojit[i] != pc[i] - pf[i] || sfail[i] + nojit[i] != pf[i])
			printf "not ok %s.summary # \"%s\": %d case lines, %d failed\n", parts[i], sum[i], pc[i], pf[i]
	}
	for (i = 0; i < 3; i++)
		if (i in sum)
			printf "# %s: Summary: %s\n", parts[i], sum[i]
}' "$log" | bjk_ktap | while IFS= read -r l; do echo "$l" >/dev/kmsg; done
[ "$rc" -eq 0 ] || echo "# test_bpf: insmod exit status $rc" >/dev/kmsg
exit "$rc"
