# The reader of the boot tables (tests/boots, tests/boots-TIER; their
# header says the grammar): each boot as one line of the run's boots file,
#   name | groups | suites | kernel command line | kernel | baseline | QEMU options
# the format every later stage reads (boot_fields in harness/lib.sh), also
# in runs stored before the tables had named fields.
#   awk -f harness/boots.awk TABLE
# A mistake in the table (an unknown field, a row without suites, a use= or
# mode without its line) stops it with the file, the line and what is wrong.

function trim(s) {
	gsub(/^[ \t]+|[ \t]+$/, "", s)
	return s
}

function bad(what) {
	printf "%s:%d: %s\n", FILENAME, FNR, what > "/dev/stderr"
	failed = 1
	exit 1
}

function join(a, b) {
	return a == "" ? b : b == "" ? a : a " " b
}

# %i: the range's number (from 1), %r: the range, %m: the mode.
function subst(s, i, r, m) {
	gsub(/%i/, i, s)
	gsub(/%r/, r, s)
	gsub(/%m/, m, s)
	return s
}

BEGIN {
	FS = "|"
	nf = split("suites groups cmdline kernel baseline qemu use modes ranges", names, " ")
	for (k = 1; k <= nf; k++)
		known[names[k]] = 1
}

/^[ \t]*(#|$)/ { next }

{
	head = trim($1)
	split("", f)
	for (c = 2; c <= NF; c++) {
		x = trim($c)
		if (x == "")
			continue
		p = index(x, "=")
		if (p == 0)
			bad("\"" x "\": want FIELD=VALUE")
		k = trim(substr(x, 1, p - 1))
		if (!(k in known))
			bad("unknown field \"" k "\" (known: suites groups cmdline kernel baseline qemu use modes ranges)")
		f[k] = trim(substr(x, p + 1))
	}
	if (head ~ /^defaults[ \t]/) {
		d = trim(substr(head, 9))
		dset[d] = 1
		for (k in f)
			dflt[d, k] = f[k]
		next
	}
	if (head ~ /^mode[ \t]/) {
		m = trim(substr(head, 5))
		mset[m] = 1
		mcmd[m] = f["cmdline"]
		next
	}
	if (head == "" || head ~ /[ \t]/)
		bad("\"" head "\": a boot's name is one word")

	u = f["use"]
	if (u != "" && !(u in dset))
		bad("use=" u ": no \"defaults " u "\" line above")
	for (k in known) {
		g[k] = (u != "" && (u, k) in dflt) ? dflt[u, k] : ""
		if (k in f)
			g[k] = (k == "cmdline" || k == "qemu") ? join(g[k], f[k]) : f[k]
	}
	if (g["suites"] == "")
		bad("boot " head ": no suites=")
	if (g["kernel"] == "series")
		g["kernel"] = ""
	if (g["kernel"] != "" && g["kernel"] != "museum")
		bad("kernel=" g["kernel"] ": want series or museum")

	nr = 1
	split("", rs)
	rs[1] = ""
	if (g["ranges"] != "")
		nr = split(g["ranges"], rs, ",")
	nm = 1
	split("", ms)
	ms[1] = ""
	if (g["modes"] != "")
		nm = split(g["modes"], ms, ",")
	for (ri = 1; ri <= nr; ri++) {
		for (mi = 1; mi <= nm; mi++) {
			m = ms[mi]
			if (m != "" && !(m in mset))
				bad("mode " m ": no \"mode " m "\" line above")
			name = subst(head, ri, rs[ri], m) (m != "" ? "-" m : "")
			params = join(m != "" ? mcmd[m] : "", subst(g["cmdline"], ri, rs[ri], m))
			# KUnit runs at boot only where a boot judges it.
			if (("," g["suites"] ",") !~ /,kunit,/)
				params = join(params, "kunit.enable=0")
			base = subst(g["baseline"], ri, rs[ri], m)
			if (base == name)
				base = ""
			print name " | " subst(g["groups"], ri, rs[ri], m) " | " g["suites"] " | " \
				params " | " g["kernel"] " | " base " | " g["qemu"]
		}
	}
}
