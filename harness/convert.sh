#!/bin/bash
# A guest suite's raw block turned into the suite's KTAP, on the host:
#   harness/convert.sh SUITE CONSOLE      the KTAP, on stdout
#   harness/convert.sh -s SUITE CONSOLE   CONSOLE with the block's lines
#                                         replaced by that KTAP, on stdout:
#                                         what harness/judge-boot.sh judges
# A raw block (guest/lib.sh's bjk_raw) is a tool's own result lines, each
# after "BJK-RAW: ", between
#   BJK-RAW-BEGIN SUITE [tool=TOOL] [NAME=VALUE...]
#   BJK-RAW-END SUITE
# (or, if the guest stopped before the end, up to BJK-SUITE-END SUITE or
# the console's end). A console line is read as harness/src/common.h reads
# it: its line end (\r too) off, a printk time "[   12.345678] " before the
# text. The lines between the markers without "BJK-RAW:" are the kernel's,
# not the tool's: the converter does not see them, and -s keeps them.
# The converter is tests/TOOL/convert.awk (TOOL: SUITE unless tool= names
# another suite's), run by the host's awk (portable awk: Debian's is mawk)
# on the block's lines with -v NAME=VALUE for each further word and
# -v suite=SUITE. It prints the suite's cases ("ok NAME", "not ok NAME #
# why", "ok NAME # SKIP why") and diagnostics ("# ..."), in order;
# guest/ktap.awk numbers them and adds the plan and the totals, as
# bjk_ktap does for the suites that print KTAP themselves.
# Exit status: 0; 3 when CONSOLE has no raw block of SUITE (a console from
# before raw blocks, judged as it is; nothing printed); 1 when the
# conversion failed, which with -s is a BJK-ERROR line in the block's place
# instead (the suite fails with it as its note), status 0; 2 for a usage
# error.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

usage() {
	echo "usage: harness/convert.sh [-s] SUITE CONSOLE" >&2
	exit 2
}
splice=0
if [ "${1:-}" = -s ]; then
	splice=1
	shift
fi
[ $# -eq 2 ] || usage
suite=$1 console=$2
[ -r "$console" ] || {
	echo "convert.sh: cannot read $console" >&2
	exit 2
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One reader of the block, for both: extract (its words, its raw lines) and
# splice (the console, the block's markers and raw lines replaced by the
# file ktap).
# shellcheck disable=SC2016 # awk's $, not the shell's
block='
function marker(msg, m,    i, c) {
	i = index(msg, m)
	if (!i)
		return 0
	c = substr(msg, i + length(m), 1)
	return c == "" || c == " " ? i : 0
}
{
	msg = $0
	sub(/[\r\n]+$/, "", msg)
	if (substr(msg, 1, 1) == "[" && (i = index(msg, "]"))) {
		msg = substr(msg, i + 1)
		if (substr(msg, 1, 1) == " ")
			msg = substr(msg, 2)
	}
}
state == 0 && (i = marker(msg, "BJK-RAW-BEGIN " suite)) {
	state = 1
	if (mode == "extract")
		print substr(msg, i + length("BJK-RAW-BEGIN " suite)) > words
	else
		while ((getline k < ktap) > 0)
			print k
	next
}
state == 1 && marker(msg, "BJK-RAW-END " suite) {
	state = 2
	if (mode == "extract")
		exit
	next
}
state == 1 && marker(msg, "BJK-SUITE-END " suite) {
	state = 2
}
state == 1 && (i = index(msg, "BJK-RAW:")) {
	# (its space kept even where a trailing one was lost: an empty line)
	msg = substr(msg, i + 8)
	if (substr(msg, 1, 1) == " ")
		msg = substr(msg, 2)
	if (mode == "extract")
		print msg > raw
	next
}
mode == "splice" { print }
END { exit state ? 0 : 3 }'

: >"$work/raw"
: >"$work/words"
rc=0
awk -v mode=extract -v suite="$suite" -v raw="$work/raw" -v words="$work/words" \
	"$block" "$console" || rc=$?
[ "$rc" = 3 ] && exit 3
[ "$rc" = 0 ] || {
	echo "convert.sh: reading $console failed (awk status $rc)" >&2
	exit 2
}

# The converter and its variables, from the words of BJK-RAW-BEGIN.
error=
tool=$suite
vars=()
read -ra words <"$work/words" || true
for w in "${words[@]}"; do
	case "$w" in
	tool=*) tool=${w#tool=} ;;
	*=*)
		if [[ "${w%%=*}" =~ ^[a-z_][a-z0-9_]*$ ]]; then
			vars+=(-v "$w")
		else
			error="a word of BJK-RAW-BEGIN is not NAME=VALUE: '$w'"
		fi
		;;
	*) error="a word of BJK-RAW-BEGIN is not NAME=VALUE: '$w'" ;;
	esac
done
conv=$root/tests/$tool/convert.awk
if [ -n "$error" ]; then
	:
elif ! [[ "$tool" =~ ^[A-Za-z0-9_-]+$ ]] || [ ! -f "$conv" ]; then
	error="no converter for tool '$tool' (tests/$tool/convert.awk)"
elif ! awk "${vars[@]}" -v suite="$suite" -f "$conv" "$work/raw" >"$work/cases" 2>"$work/err"; then
	error="tests/$tool/convert.awk failed: $(head -n 1 "$work/err")"
elif ! awk -f "$root/guest/ktap.awk" "$work/cases" >"$work/ktap" 2>"$work/err"; then
	error="guest/ktap.awk failed: $(head -n 1 "$work/err")"
fi
if [ -n "$error" ]; then
	echo "convert.sh: $suite: $error" >&2
	[ "$splice" = 1 ] || exit 1
	echo "BJK-ERROR: $suite: its raw block not converted: $error" >"$work/ktap"
fi

if [ "$splice" = 0 ]; then
	cat "$work/ktap"
else
	awk -v mode=splice -v suite="$suite" -v ktap="$work/ktap" "$block" "$console"
fi
