# The converter of suite test_bpf, on the host (harness/convert.sh): the
# raw block tests/test_bpf/guest.sh printed, test_bpf.ko's lines as the
# module wrote them, to the suite's cases, one a line ("ok NAME", "not ok
# NAME # why") and notes ("# PART: Summary: ..."); guest/ktap.awk numbers
# them and adds the plan and the totals. Portable awk (mawk, gawk, busybox).
#
# A case per test, "test_bpf/12 descr" (its part, its index; '#' would start
# a KTAP directive): it passes when it says PASS and, if it ran a program,
# that program was JITed ("jited:1"). A test's line can come in pieces: a
# KASAN report printed while the test runs ends its record, and the rest
# ("jited:1 ", "123 PASS") follows as lines of their own. Each part's
# Summary ("P PASSED, F FAILED", a test that ran without the JIT among P)
# must count what its case lines count: a line that did not come fails a
# case of its own, PART.summary.
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
	for (i = 0; i < 3; i++) {
		if (!(i in sum))
			printf "not ok %s.summary # no Summary line\n", parts[i]
		else if (spass[i] - nojit[i] != pc[i] - pf[i] || sfail[i] + nojit[i] != pf[i])
			printf "not ok %s.summary # \"%s\": %d case lines, %d failed\n", parts[i], sum[i], pc[i], pf[i]
	}
	for (i = 0; i < 3; i++)
		if (i in sum)
			printf "# %s: Summary: %s\n", parts[i], sum[i]
}
