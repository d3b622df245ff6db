# A suite's KTAP document from its cases on stdin, one a line, in order:
# "ok NAME", "not ok NAME # why", "ok NAME # SKIP why", and diagnostics
# "# ...". Prints "KTAP version 1", the plan, the lines numbered, then the
# kselftest totals, all counted here from the lines, so a suite's own
# parser only says what it saw and the counts the judge checks
# (harness/src/suite.c) are made in one place. One file for both sides: in
# the guest image as /lib/bjk-ktap.awk (guest/lib.sh's bjk_ktap), on the
# host for the converters of raw blocks (harness/convert.sh). Portable awk
# (busybox, mawk, gawk).
/^(ok|not ok) / {
	r = $0
	ok = sub(/^ok /, "", r)
	if (!ok)
		sub(/^not ok /, "", r)
	h = index(r, " # ")
	if (h && toupper(substr(r, h + 3, 4)) == "SKIP")
		s++
	else if (ok)
		p++
	else
		f++
	l[++nl] = (ok ? "ok " : "not ok ") (++n) " " r
	next
}
{ l[++nl] = $0 }
END {
	print "KTAP version 1"
	print "1.." n + 0
	for (i = 1; i <= nl; i++)
		print l[i]
	printf "# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n", p, f, s
}
