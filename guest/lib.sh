# shellcheck shell=sh
# Sourced by every suite in the guest (the suites of harness/parts, as
# /tests/<suite>.sh; this file as /lib/bjk.sh):
# what the suites share. The kernel command line is read once, by /init,
# which exports bjk.NAME=VALUE as BJK_NAME (upper case, '.' and '-' as
# '_') and bpf_jit_kasan=VALUE as BJK_JIT_KASAN; suites read those.

# bjk_error MESSAGE: the suite's error, for the judge (harness/src/suite.c)
bjk_error() {
	echo "BJK-ERROR: $*" >/dev/kmsg
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

# bjk_check_mode: the boot's check mode, off, outline or inline (the
# kernel's default)
bjk_check_mode() {
	echo "${BJK_JIT_KASAN:-inline}"
}
