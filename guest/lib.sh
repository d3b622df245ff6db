# shellcheck shell=sh
# Sourced by every suite in the guest (each tests/<suite>/guest.sh, as
# /tests/<suite>.sh; this file as /lib/bjk.sh):
# what the suites share. A boot's parameters, bjk.NAME=VALUE words of its
# kernel command line (tests/boots' cmdline=), are read with bjk_param.

# bjk_param NAME [DEFAULT]: the value of bjk.NAME= on the kernel command
# line (the last, if it is there twice), else DEFAULT; the guest's one
# reader of a boot's parameters.
bjk_param() {
	_bjk_v=${2:-}
	for _bjk_w in $(cat /proc/cmdline); do
		case "$_bjk_w" in
		"bjk.$1="*) _bjk_v=${_bjk_w#*=} ;;
		esac
	done
	echo "$_bjk_v"
}

# bjk_kmsg TEXT...: one line to the kernel log (and so the console, in
# order among the kernel's own messages)
bjk_kmsg() {
	echo "$*" >/dev/kmsg
}

# bjk_error MESSAGE: the suite's error, for the judge (harness/src/suite.c)
bjk_error() {
	bjk_kmsg "BJK-ERROR: $*"
}

# bjk_wait TENTHS CMD...: CMD again every 0.1 s until it succeeds, at most
# TENTHS times more (a reader of /dev/kmsg catching up with a marker the
# script wrote there); 0 once it succeeds, 1 if it never did.
bjk_wait() {
	_bjk_n=$1
	shift
	_bjk_i=0
	while ! "$@"; do
		[ "$_bjk_i" -lt "$_bjk_n" ] || return 1
		sleep 0.1
		_bjk_i=$((_bjk_i + 1))
	done
}

# bjk_need SUITE FILE...: exit 2 unless every FILE is in the image
bjk_need() {
	_bjk_suite=$1
	shift
	for _bjk_f in "$@"; do
		if [ ! -e "$_bjk_f" ]; then
			bjk_error "$_bjk_suite: $_bjk_f is not in the image"
			exit 2
		fi
	done
}

# bjk_check_mode: the boot's check mode, off, outline or inline, as the
# kernel reads back its parameter bpf_jit_kasan
bjk_check_mode() {
	cat /sys/module/kernel/parameters/bpf_jit_kasan
}

# bjk_ktap: a suite's KTAP document from its cases on stdin, one a line, in
# order: "ok NAME", "not ok NAME # why", "ok NAME # SKIP why", and
# diagnostics "# ..." (guest/ktap.awk, which the host's converters of raw
# blocks use too).
bjk_ktap() {
	awk -f /lib/bjk-ktap.awk
}

# bjk_raw [-l] SUITE [NAME=VALUE...]: a tool's raw result lines, on stdin,
# to the console for the host to turn into the suite's KTAP
# (harness/convert.sh, docs/harness.md "Raw blocks"), as a block:
#   BJK-RAW-BEGIN SUITE [NAME=VALUE...]
#   BJK-RAW: <a line as the tool printed it>
#   ...
#   BJK-RAW-END SUITE
# The converter is the host's tests/SUITE/convert.awk, or tool=TOOL's
# (tests/TOOL/convert.awk) when the words say so; the other words are its
# variables. The "BJK-RAW: " in front sets the tool's lines apart from the
# kernel's messages that may come between them (the host reads only its
# own, and the splat scan passes over them as it does over KTAP). A line
# longer than a /dev/kmsg record takes keeps its last 900 bytes, after
# "...". -l (live): each line goes out as it comes (the caller's filter
# flushing its own too), for a block that follows a tool as it runs; a
# line at a time costs the guest a switch between two processes, which
# under TCG is about a millisecond, so a block printed after its tool is
# not live.
bjk_raw() {
	_bjk_flush=
	if [ "$1" = -l ]; then
		_bjk_flush='fflush()'
		shift
	fi
	bjk_kmsg "BJK-RAW-BEGIN $*"
	awk "{ if (length(\$0) > 900) \$0 = \"...\" substr(\$0, length(\$0) - 899); print; $_bjk_flush }" |
		while IFS= read -r _bjk_l; do printf 'BJK-RAW: %s\n' "$_bjk_l" >/dev/kmsg; done
	bjk_kmsg "BJK-RAW-END $1"
}

# bjk_decoded NAME DECODER CMD...: CMD under the decoder's watch, which
# decodes each KASAN report while its program is loaded (CMD waits for its
# ack, /tmp/NAME.ack, before it frees the program); the decoded lines go to
# the console as "# decode:" notes. -H: decoded from the program, not from
# the kernel's BPF lines, so that the checks across boots compare the two.
# Returns CMD's status.
bjk_decoded() {
	local name=$1 decode=$2 rc=0 l
	shift 2
	BJK_DECODE_ACK=/tmp/$name.ack "$decode" watch -H -a "/tmp/$name.ack" -- "$@" \
		>"/tmp/$name.decode" || rc=$?
	while IFS= read -r l; do echo "# decode: $l" >/dev/kmsg; done <"/tmp/$name.decode"
	return "$rc"
}
