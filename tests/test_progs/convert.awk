# The converter of suite test_progs, on the host (harness/convert.sh): the
# raw block tests/test_progs/guest.sh printed (test_progs -v's result
# lines, the log lines before a failure or a skip, its Summary line) to the
# suite's cases, one a line ("ok NAME", "not ok NAME", "ok NAME # SKIP"),
# diagnostics and the note "# test_progs: Summary: ..."; guest/ktap.awk
# numbers them and adds the plan and the totals. Portable awk (mawk, gawk,
# busybox).
#
# "#12      name:OK", "#12/3    name/sub:SKIP", "#12      name:OK (SKIP:
# 1/9)", "#12      name:FAIL"; each test's log comes before its line. A
# case per test, and one per failed or skipped subtest, named "name" or
# "name/sub" ('#' would start a KTAP directive), but a test whose subtests
# were all skipped is those skips only; the log lines before a failure (30)
# or a skip (3) say why. Then the Summary as the note. The Summary ("T/S
# PASSED, K SKIPPED, F FAILED": T tests did not fail, K subtests and tests
# skipped) must count what the lines count: a line that did not come (a
# crash in the middle) fails a case of its own, test_progs.summary.
#
# A test that prints a log line without its newline (btf_tag:
# "...:SKIP: btf_decl_tag attribute not supported") glues the result line
# that follows onto it: the log part goes to the log, the rest is the
# result line.
!/^#/ && match($0, /#[0-9]+(\/[0-9]+)? +[^ ].*:(OK|SKIP|FAIL)( \(SKIP: [0-9]+\/[0-9]+\))?$/) {
	buf[nb++] = substr($0, 1, RSTART - 1)
	$0 = substr($0, RSTART)
}
/^#[0-9]+(\/[0-9]+)? +.*:(OK|SKIP|FAIL)( \(SKIP: [0-9]+\/[0-9]+\))?$/ {
	match($0, /:(OK|SKIP|FAIL)( \(SKIP: [0-9]+\/[0-9]+\))?$/)
	res = substr($0, RSTART + 1)
	name = substr($0, 1, RSTART - 1)
	top = name !~ /^#[0-9]+\//
	sub(/^#[0-9]+(\/[0-9]+)? +/, "", name)
	gsub(/#/, "", name)
	# A test that forks (send_signal) flushes a copy of the parent's
	# buffered output: the same line twice. A case counts once.
	if (name in seen) {
		nb = 0
		next
	}
	seen[name] = 1
	if (res == "FAIL") {
		print "not ok " name
		for (j = (nb > 30 ? nb - 30 : 0); j < nb; j++)
			print "#   " buf[j]
		f++
		if (top)
			topfail++
	} else if (res == "SKIP" && top && subskip[name]) {
		# All its subtests skipped: they are the cases, as test_progs
		# counts them.
		print "# " name ": skipped, all its subtests above"
		topok++
	} else if (res == "SKIP") {
		print "ok " name " # SKIP"
		for (j = (nb > 3 ? nb - 3 : 0); j < nb; j++)
			print "#   " buf[j]
		s++
		if (top)
			topok++
		else
			subskip[substr(name, 1, index(name, "/") - 1)]++
	} else if (top) {
		print "ok " name (res == "OK" ? "" : " # " res)
		p++
		topok++
	}
	nb = 0
	next
}
/^Summary: / { summary = $0; next }
{ buf[nb++] = $0 }
END {
	if (split(summary, w, /[ \/,]+/) < 7 || w[2] != topok || w[5] != s || (w[7] > 0) != (f > 0))
		printf "not ok test_progs.summary # \"%s\": %d tests did not fail, %d skipped, %d failed by the case lines\n", summary, topok, s, f
	printf "# test_progs: %s\n", summary
}
