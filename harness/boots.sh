# shellcheck shell=bash disable=SC2034
# The boot loop: a run's boots, each with the user's settings and its own
# QEMU options; the museum kernel's making beside them.
# Sourced after harness/lib.sh.
# shellcheck source=SCRIPTDIR/tables.sh
. "$BJK_ROOT/harness/tables.sh"

# boot_each RUNDIR [QEMU.SH-OPTION...]: boots every line of RUNDIR/boots
# (harness/boot.sh), each with the user's settings (qemu_user_opts), the
# options given and its own QEMU words. boot_image[KERNEL], when set, is the
# guest image of that kernel's boots. museum_status other than ok: the
# museum's kernel was not made; its boots get an empty console and a status
# saying so.
declare -A boot_image=()
museum_status=ok
host_tsc_khz=
# museum_pid: the museum kernel's making when it runs beside the boots
# (harness/test.sh, its output in museum_log); museum_wait waits for it
# before the first boot of that kernel and shows its stages then.
museum_pid=
museum_log=
museum_wait() {
	local t0
	[ -n "$museum_pid" ] || return 0
	t0=$(now)
	note "museum kernel: waiting for it to be made"
	wait "$museum_pid" || museum_status=failed
	museum_pid=
	cat "$museum_log"
	note "museum kernel: waited $(since "$t0")"
}
# A run that stops before museum_wait (an error, Ctrl-C: a background job
# ignores SIGINT) ends that making too, processes and all; its stages
# record nothing unfinished (harness/build.sh stamps after a good build).
museum_stop() {
	[ -n "$museum_pid" ] || return 0
	kill_tree "$museum_pid"
	museum_pid=
}
kill_tree() {
	local c
	kill -STOP "$1" 2>/dev/null || return 0
	for c in $(pgrep -P "$1"); do
		kill_tree "$c"
	done
	kill -TERM "$1" 2>/dev/null || true
	kill -CONT "$1" 2>/dev/null || true
}
boot_each() {
	local run=$1 line opts lines i
	shift
	# Read whole first: a boot's processes then never share the loop's
	# stdin (a run once booted a phantom "boot" made of the tail of a line).
	mapfile -t lines <"$run/boots"
	qemu_user_opts
	for line in "${lines[@]}"; do
		boot_fields "$line"
		[ "$b_kernel" != museum ] || museum_wait
		if [ "$b_kernel" = museum ] && [ "$museum_status" != ok ]; then
			: >"$run/$b_name.log"
			echo "the museum kernel was not made (see above)" >"$run/$b_name.log.status"
			continue
		fi
		# "tsc_early_khz=host" (tests/boots-full): the host's TSC frequency,
		# measured once a run (harness/src/tsckhz.c says why).
		for i in "${!b_params[@]}"; do
			[ "${b_params[i]}" = tsc_early_khz=host ] || continue
			if [ -z "$host_tsc_khz" ]; then
				host_tsc_khz=$("$TOOLS/bjk-tsckhz") ||
					die "boot $b_name: cannot measure the host's TSC for tsc_early_khz=host ($TOOLS/bjk-tsckhz)"
			fi
			b_params[i]=tsc_early_khz=$host_tsc_khz
		done
		opts=("${qemu_opts[@]}" "$@")
		if [ -n "${boot_image[${b_kernel:-series}]:-}" ]; then
			opts+=(-i "${boot_image[${b_kernel:-series}]}")
		fi
		# "-accel X" among a boot's QEMU options replaces qemu.sh's
		# default accelerator, not the user's BJK_ACCEL.
		for ((i = 0; i < ${#b_qemu[@]}; i++)); do
			if [ "${b_qemu[i]}" = -accel ] && [ $((i + 1)) -lt ${#b_qemu[@]} ]; then
				i=$((i + 1))
				[ -n "$BJK_ACCEL" ] || opts+=(-a "${b_qemu[i]}")
				continue
			fi
			opts+=(-q "${b_qemu[i]}")
		done
		BJK_VARIANT=${b_kernel:-series} "$BJK_ROOT/harness/boot.sh" "$b_name" "$b_suites" "$run" \
			"${opts[@]}" -- "${b_params[@]}" "${qemu_params[@]}" </dev/null
	done
}

# What the user sets for every boot (docs/harness.md) as harness/qemu.sh
# options in qemu_opts, and kernel parameters in qemu_params.
qemu_user_opts() {
	local w
	qemu_opts=()
	[ -n "$BJK_KERNEL" ] && qemu_opts+=(-k "$BJK_KERNEL")
	[ -n "$BJK_INITRD" ] && qemu_opts+=(-i "$BJK_INITRD")
	[ -n "$BJK_TIMEOUT" ] && qemu_opts+=(-t "$BJK_TIMEOUT")
	[ -n "$BJK_FIRST_OUTPUT_TIMEOUT" ] && qemu_opts+=(-f "$BJK_FIRST_OUTPUT_TIMEOUT")
	[ -n "$BJK_ACCEL" ] && qemu_opts+=(-a "$BJK_ACCEL")
	for w in $BJK_QEMU_EXTRA; do
		qemu_opts+=(-q "$w")
	done
	read -r -a qemu_params <<<"$BJK_APPEND"
}
