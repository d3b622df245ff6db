#!/bin/bash
# Boot the test kernel in QEMU once and pass the guest's verdict back.
#   qemu.sh [OPTIONS] NAME LOG SUITES [KERNEL-PARAM...]
# SUITES is a comma-separated list for the guest's /init (bjk.suite=);
# KERNEL-PARAMs go on the kernel command line after the harness's own.
#   -k FILE   the kernel (default: the build's bzImage)
#   -i FILE   the guest image (default: the build's, harness/image.sh)
#   -t SECS   time limit of the whole boot (default 600)
#   -f SECS   time limit for the console's first output (default 60)
#   -a ACCEL  QEMU accelerator (default tcg,thread=single: KVM hangs on
#             these machines; why one thread: below)
#   -q WORD   one more word of the QEMU command; may be repeated
#   -l        show the console live on the terminal as well
#   -s        interactive: the console on the terminal, a shell in the
#             guest after the suites, no time limits
# The console goes to LOG; LOG.status gets one word: exit <rc> | panic |
# no-output | timeout | no-exit. Exit status: the guest's BJK-EXIT, or 1 with
# the tail of the console when the guest never printed, panicked, hung or
# stopped without a verdict. The QEMU command is printed first.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

# Both vCPUs in one host thread by default. QEMU before 8.1 (Debian 12 has
# 7.2) reads guest code for a translation before it locks the code's page:
# a vCPU translating kernel text while the other vCPU's text_poke_bp()
# finishes with it can link a block made from the int3 phase after the
# final write invalidated the page's blocks, and runs that int3 once the
# kernel no longer expects it: "Oops: int3" in tracing tests, checks off
# too. Fixed upstream by "accel/tcg: Always lock pages before translation"
# (deba78709ae8); docs/results.md has the boots that showed it.
kernel='' initrd='' total=600 first=60 accel=tcg,thread=single shell=0 live=0
extra=()
while getopts "k:i:t:f:a:q:lsh" opt; do
	case "$opt" in
	k) kernel=$OPTARG ;;
	i) initrd=$OPTARG ;;
	t) total=$OPTARG ;;
	f) first=$OPTARG ;;
	a) accel=$OPTARG ;;
	q) extra+=("$OPTARG") ;;
	l) live=1 ;;
	s) shell=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 3 ] || usage
name=$1 log=$2 suites=$3
shift 3
[ -n "$kernel" ] || kernel=$(build_dir)/arch/x86/boot/bzImage
[ -n "$initrd" ] || initrd=$(image_path)
append="console=ttyS0 panic=-1 kasan_multi_shot printk.devkmsg=on bjk.suite=$suites $*"
[ "$shell" = 1 ] && append="$append bjk.shell=1"

[ -f "$kernel" ] || die "kernel $kernel not found"
[ -f "$initrd" ] || die "guest image $initrd not found"

qemu=(qemu-system-x86_64 -accel "$accel" -cpu max -m 2G -smp 2
	-nographic -no-reboot -bios /usr/share/qemu/qboot.rom
	-kernel "$kernel" -initrd "$initrd" -append "$append"
	"${extra[@]}")

mkdir -p "$(dirname "$log")"
status() {
	echo "$*" >"$log.status"
}

tail_console() {
	printf -- '--- last 30 lines of the console (%s) ---\n' "$log" >&2
	tail -n 30 "$log" | sed 's/\r$//' >&2
	if [ -s "$log.qemu" ]; then
		printf -- '--- qemu stderr ---\n' >&2
		tail -n 10 "$log.qemu" >&2
	fi
	printf -- '---\n' >&2
}

note "boot $name: $accel, cmdline: $append"
note "boot $name: console log: $log"
# The whole command, to rerun a boot by hand.
note "boot $name: $(printf '%q ' "${qemu[@]}")"

if [ "$shell" = 1 ]; then
	# Interactive: the console is the terminal, no timeouts.
	"${qemu[@]}" 2>"$log.qemu" | tee "$log"
else
	: >"$log"
	# --foreground: QEMU stays in our process group, so Ctrl-C reaches it.
	timeout --foreground -k 10 "$total" "${qemu[@]}" </dev/null >"$log" 2>"$log.qemu" &
	pid=$!
	trap 'kill "$pid" 2>/dev/null || true' EXIT
	if [ "$live" = 1 ]; then
		tail -n +1 -f --pid="$pid" "$log" &
	fi
	# Time to first output: the console must say something within $first s.
	t0=$SECONDS
	while [ ! -s "$log" ] && kill -0 "$pid" 2>/dev/null; do
		if [ $((SECONDS - t0)) -ge "$first" ]; then
			kill "$pid" 2>/dev/null || true
			wait "$pid" || true
			status no-output
			tail_console
			die "boot $name: no console output within ${first}s (-f; BJK_FIRST_OUTPUT_TIMEOUT); wrong kernel, or the guest hangs before the serial console (try -a tcg, BJK_ACCEL=tcg)"
		fi
		sleep 0.2
	done
	rc=0
	wait "$pid" || rc=$?
	wait
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		status timeout
		tail_console
		die "boot $name: overall timeout of ${total}s hit (-t; BJK_TIMEOUT); the guest hung"
	fi
	if [ "$rc" -ne 0 ]; then
		status "qemu-error $rc"
		tail_console
		die "boot $name: qemu exited with status $rc"
	fi
fi

if grep -q 'Kernel panic - not syncing' "$log"; then
	status panic
	tail_console
	die "boot $name: the guest kernel panicked ($(grep -m1 -o 'Kernel panic - not syncing.*' "$log" | tr -d '\r'))"
fi
verdict=$(sed -n 's/\r$//; s/.*BJK-EXIT: \([0-9][0-9]*\)$/\1/p' "$log" | tail -n1)
if [ -z "$verdict" ]; then
	status no-exit
	tail_console
	die "boot $name: the guest stopped without printing its verdict (BJK-EXIT)"
fi
status "exit $verdict"
note "boot $name: guest exit status $verdict"
exit "$verdict"
