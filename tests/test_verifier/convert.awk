# The converter of suites test_verifier and test_verifier_harden (whose
# raw block names this one, tool=test_verifier), on the host
# (harness/convert.sh): the raw block tests/test_verifier/guest.sh printed,
# test_verifier's lines as it wrote them, to the suite's cases, one a line
# ("ok NAME", "not ok NAME # why", "ok NAME # SKIP why"), diagnostics and
# the note "# SUITE: Summary: ..."; guest/ktap.awk numbers them and adds
# the plan and the totals. Portable awk (mawk, gawk, busybox).
#   -v suite=SUITE   the suite, for its summary case and note
#   -v mode=MODE     the guest script's mode: "harden" (a skip is a skip)
#                    or "all" (a skip is a failure)
#   -v runs=N        how many times the guest ran test_verifier: as many
#                    Summary lines must have come
#
# A case per line "#12/p descr OK" (or "... 3 cases OK"), "#12/u descr
# FAIL...", "#12/p descr SKIP (reason)", named "12/p descr" ('#' would
# start a KTAP directive). A skip is a failure but with bpf_jit_harden=2,
# where a blinded program too long to JIT is skipped (its checks-off boot
# must skip the same: the harness compares). The lines after a failure say
# why (verifier log, expected against seen): diagnostics, 200 at most. The
# Summary lines (one per run of test_verifier) must add up to the case
# lines' counts: a case line that did not come (a crash in the middle)
# fails a case of its own, SUITE.summary.
/^#[0-9]+\/[up] / {
	line = $0
	res = "not ok"
	rest = ""
	if (match(line, / SKIP( \(.*\))?$/) && mode == "harden") {
		res = "ok"
		rest = " # SKIP" substr(line, RSTART + 5)
		s++
	} else if (RSTART) {
		# Here the kernel has all a case needs: a skip is a failure.
		rest = " # a skip:" substr(line, RSTART + 5) " (test_verifier must skip nothing)"
		f++
	} else if (match(line, /( [0-9]+ cases)? OK( \(NOTE: .*\))?$/)) {
		res = "ok"
		p++
	} else {
		# " FAIL..." on this line or, after a run error, on the next
		match(line, / FAIL.*$/)
		f++
	}
	if (RSTART)
		line = substr(line, 1, RSTART - 1)
	name = substr(line, 2)
	gsub(/#/, "", name)
	sub(/ +$/, "", name)
	print res " " name rest
	fail = res != "ok"
	next
}
fail && shown < 200 { print "# " $0; shown++ }
/^Summary: / {
	fail = 0
	sums++
	sp += $2; ss += $4; sf += $6
}
END {
	if (sums != runs || sp != p || ss + sf != s + f)
		printf "not ok %s.summary # %d Summary line(s) of %d run(s): %d PASSED, %d SKIPPED, %d FAILED; %d, %d, %d case lines\n", suite, sums, runs, sp, ss, sf, p, s, f
	printf "# %s: Summary: %d PASSED, %d SKIPPED, %d FAILED\n", suite, sp, ss, sf
}
