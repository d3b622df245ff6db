# shellcheck shell=bash disable=SC2034
# Shared by every harness script: paths, stage timing, errors.
# Sourced, not executed. The scripts that source it use `set -euo pipefail`.

BJK_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${BJK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bpf-jit-kasan}
SOURCE_PKG=${BJK_SOURCE_PKG:-linux-source-6.12}
FRAGMENT=$(readlink -f "${BJK_CONFIG_FRAGMENT:-$BJK_ROOT/harness/config/bpf-jit-kasan.config}")
PATCHES=$(readlink -f "${BJK_PATCHES:-$BJK_ROOT/patches}")
TOOLS=$CACHE/tools
export BJK_ROOT CACHE
# shellcheck source=SCRIPTDIR/../lib/stamp.sh
. "$BJK_ROOT/lib/stamp.sh"

# The kernel a stage works on. "series": patches/ and FRAGMENT, what every
# suite tests. "museum" (BJK_VARIANT=museum; the boots of tests/boots whose
# kernel column says so): the series plus tests/museum/museum.patch, which
# re-creates historical verifier bugs behind switches, and FRAGMENT with
# tests/museum/museum.config over it; a tree, a build and an image of its
# own, never mixed with the series' ones.
VARIANT=${BJK_VARIANT:-series}
case "$VARIANT" in
series) ;;
museum)
	# FRAGMENT's lines but those museum.config sets, then museum.config;
	# the file is named by its contents (the build directory's key).
	_bjk_frag=$(awk 'NR == FNR { if (match($0, /CONFIG_[A-Za-z0-9_]+/)) over[substr($0, RSTART, RLENGTH)] = 1; next }
		!(match($0, /CONFIG_[A-Za-z0-9_]+/) && substr($0, RSTART, RLENGTH) in over)' \
		"$BJK_ROOT/tests/museum/museum.config" "$FRAGMENT"
		cat "$BJK_ROOT/tests/museum/museum.config")
	FRAGMENT=$CACHE/fragments/museum-$(printf '%s\n' "$_bjk_frag" | sha256sum | cut -c1-12).config
	if [ ! -f "$FRAGMENT" ]; then
		mkdir -p "$CACHE/fragments"
		printf '%s\n' "$_bjk_frag" >"$FRAGMENT.tmp.$$"
		mv -f "$FRAGMENT.tmp.$$" "$FRAGMENT"
	fi
	;;
*)
	printf 'error: BJK_VARIANT=%s: want series or museum\n' "$VARIANT" >&2
	exit 1
	;;
esac
export BJK_VARIANT=$VARIANT

# The tier: empty for make test (tests/boots), "full" for make test-full
# (BJK_TIER=full: the boots of tests/boots-full, and the builds of
# harness/parts whose tier field says full, which make test never needs).
TIER=${BJK_TIER:-}
case "$TIER" in
'' | full) ;;
*)
	printf 'error: BJK_TIER=%s: want full or nothing\n' "$TIER" >&2
	exit 1
	;;
esac
export BJK_TIER=$TIER

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

note() {
	printf '%s\n' "$*"
}

now() {
	date +%s.%N
}

# since T0: seconds elapsed since T0 (from now), e.g. "12.3s".
since() {
	awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'
}

# stage NAME CMD...: announce a stage, run it, say how long it took.
# (The locals have odd names: bash's dynamic scoping shows them to CMD.)
stage() {
	local _stage_name=$1 _stage_t0 _stage_rc=0
	shift
	printf '==> %s\n' "$_stage_name"
	_stage_t0=$(now)
	"$@" || _stage_rc=$?
	if [ "$_stage_rc" -eq 0 ]; then
		printf '%s: done in %s\n' "$_stage_name" "$(since "$_stage_t0")"
	else
		printf '%s: FAILED after %s\n' "$_stage_name" "$(since "$_stage_t0")" >&2
	fi
	return "$_stage_rc"
}

sha256_file() {
	sha256sum "$1" | cut -c1-64
}

# The installed kernel source package version, e.g. 6.12.118-1~deb12u1.
source_version() {
	dpkg-query -W -f='${Version}' "$SOURCE_PKG" 2>/dev/null ||
		die "package $SOURCE_PKG is not installed (run harness/deps.sh)"
}

# The series: patches/*.patch in order, without the cover letter.
# The museum kernel: the series, then tests/museum/museum.patch.
series_files() {
	if [ -d "$PATCHES" ]; then
		find "$PATCHES" -maxdepth 1 -name '*.patch' ! -name '0000-cover-letter.patch' | LC_ALL=C sort
	fi
	if [ "$VARIANT" = museum ]; then
		echo "$BJK_ROOT/tests/museum/museum.patch"
	fi
}

# sha256 over the contents of the series, in order. Empty series: sha of "".
series_hash() {
	local f
	series_files | while read -r f; do cat "$f"; done | sha256sum | cut -c1-64
}

# Paths keyed by what produced them.
tree_dir() {
	if [ "$VARIANT" = museum ]; then
		echo "$CACHE/src/$(source_version)-museum"
	else
		echo "$CACHE/src/$(source_version)"
	fi
}

# The environment of every kernel build: ccache in the cache, and the
# timestamp, user and host fixed so that the compiler sees the same input
# every time (ccache hits).
kbuild_env() {
	export CCACHE_DIR=$CACHE/ccache CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
	export CCACHE_NOHASHDIR=1 CCACHE_BASEDIR=$CACHE
	export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
	export KBUILD_BUILD_USER=bpf-jit-kasan KBUILD_BUILD_HOST=bpf-jit-kasan
}

# kconfig TREE BUILD: FRAGMENT onto allnoconfig, then olddefconfig, in BUILD.
kconfig() {
	(cd "$1" && scripts/kconfig/merge_config.sh -n -O "$2" "$FRAGMENT" &&
		make O="$2" olddefconfig)
}

build_dir() {
	echo "$CACHE/build/$(source_version)-$(sha256_file "$FRAGMENT" | cut -c1-12)"
}

# libbpf, bpftool and vmlinux.h of a build (harness/userland.sh).
userland_dir() {
	echo "$CACHE/userland/$(basename "$(build_dir)")"
}

# The guest initramfs of a build (rebuilt each run, a second or two); a
# tier's own (it has that tier's builds too) beside make test's.
image_path() {
	echo "$CACHE/image/$(basename "$(build_dir)")${TIER:+-$TIER}.cpio.gz"
}

# A suite is a folder: tests/NAME/ with a guest script, guest.sh, is suite
# NAME (in the guest image as /tests/NAME.sh, run by /init when a boot's
# suites name it); its build.sh, if any, is run for each kernel whose boots
# run NAME (suite_kernels); its check.sh, if any, is the check across the
# boots of group NAME and of groups NAME-VARIANT (group_check). harness/parts
# holds only what is no suite's own: builds several suites share, and
# tools/vm's guest agent.

# part_lines KIND: the lines of harness/parts of KIND (suite, build) for
# this TIER (a line's tier field empty, or TIER), one "NAME FILE KERNELS"
# each: FILE absolute, KERNELS comma-separated (series when the field is
# empty).
part_lines() {
	local kind name file kernels tier
	while IFS='|' read -r kind name file kernels tier; do
		[ "${kind//[[:space:]]/}" = "$1" ] || continue
		kernels=${kernels//[[:space:]]/}
		tier=${tier//[[:space:]]/}
		[ -z "$tier" ] || [ "$tier" = "$TIER" ] || continue
		printf '%s %s %s\n' "${name//[[:space:]]/}" "$BJK_ROOT/${file//[[:space:]]/}" "${kernels:-series}"
	done <"$BJK_ROOT/harness/parts"
}

# suite_dirs: the suites' folders, "NAME DIR" each, in name order.
suite_dirs() {
	local f
	for f in "$BJK_ROOT"/tests/*/guest.sh; do
		[ -f "$f" ] || continue
		f=${f%/guest.sh}
		echo "${f##*/} $f"
	done
}

# suite_scripts: every guest script of the image, "NAME FILE" each.
suite_scripts() {
	local name dir file
	while read -r name dir; do
		echo "$name $dir/guest.sh"
	done < <(suite_dirs)
	while read -r name file _; do
		echo "$name $file"
	done < <(part_lines suite)
}

# suite_kernels NAME: the kernels ("series", "museum"; comma-separated)
# of the boots that run suite NAME in make test's table and in this TIER's,
# whichever boots BJK_BOOTS picks: an image has all its suites' builds.
suite_kernels() {
	local line t k=,
	for t in "$BJK_ROOT/tests/boots" ${TIER:+"$BJK_ROOT/tests/boots-$TIER"}; do
		while IFS= read -r line; do
			boot_fields "$line"
			[[ ",$b_suites," == *",$1,"* ]] || continue
			[[ "$k" == *",${b_kernel:-series},"* ]] || k="$k${b_kernel:-series},"
		done < <(table_rows "$t")
	done
	k=${k#,}
	echo "${k%,}"
}

# The builds for the kernel of this VARIANT, "NAME FILE" each: harness/parts'
# shared ones first (the suites' may use them), then the suites' own.
suite_builds() {
	local name file kernels dir
	while read -r name file kernels; do
		if [[ ",$kernels," == *",$VARIANT,"* ]]; then
			echo "$name $file"
		fi
	done < <(part_lines build)
	while read -r name dir; do
		[ -f "$dir/build.sh" ] || continue
		kernels=$(suite_kernels "$name")
		if [[ ",$kernels," == *",$VARIANT,"* ]]; then
			echo "$name $dir/build.sh"
		fi
	done < <(suite_dirs)
}

# Where a build puts what the guest needs (as /NAME/).
suite_out() {
	echo "$CACHE/suites/$(basename "$(build_dir)")/$1"
}

# group_check GROUP: the check across the boots of GROUP,
# tests/GROUP/check.sh, or for GROUP-VARIANT (the same boots in another
# setting, e.g. museum-norz) tests/GROUP/check.sh; nothing and false if
# there is none.
group_check() {
	local f
	for f in "$BJK_ROOT/tests/$1/check.sh" "$BJK_ROOT/tests/${1%%-*}/check.sh"; do
		if [ -f "$f" ]; then
			echo "$f"
			return 0
		fi
	done
	return 1
}

# table_rows TABLE: the boots of a table (tests/boots, tests/boots-TIER),
# one line each as the run keeps them (harness/boots.awk, the tables' one
# reader; boot_fields splits a line).
table_rows() {
	awk -f "$BJK_ROOT/harness/boots.awk" "$1"
}

# The boots of tests/boots (tests/boots-TIER for a tier), only those named
# in BJK_BOOTS when it is set.
boot_lines() {
	local rows line name
	rows=$(table_rows "$BJK_ROOT/tests/boots${TIER:+-$TIER}") || return 1
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		IFS='|' read -r name _ <<<"$line"
		name=${name//[[:space:]]/}
		if [ -n "${BJK_BOOTS:-}" ] && [[ " $BJK_BOOTS " != *" $name "* ]]; then
			continue
		fi
		printf '%s\n' "$line"
	done <<<"$rows"
}

# boot_fields LINE: the fields of a boot's line (table_rows) into b_name, b_groups
# (GROUP:ROLE,...), b_suites, b_params (kernel command line), b_kernel,
# b_baseline, b_qemu (QEMU options); the word lists as words, the others
# without blanks.
boot_fields() {
	IFS='|' read -r b_name b_groups b_suites b_params b_kernel b_baseline b_qemu <<<"$1"
	b_name=${b_name//[[:space:]]/}
	b_groups=${b_groups//[[:space:]]/}
	b_suites=${b_suites//[[:space:]]/}
	b_kernel=${b_kernel//[[:space:]]/}
	b_baseline=${b_baseline//[[:space:]]/}
	read -r -a b_params <<<"$b_params"
	read -r -a b_qemu <<<"$b_qemu"
}

# group_logs RUNDIR GROUP: "ROLE=CONSOLE" for each boot of RUNDIR/boots in
# GROUP that left a console, what a check across boots is handed.
group_logs() {
	local line g
	while IFS= read -r line; do
		boot_fields "$line"
		[ -f "$1/$b_name.log" ] || continue
		for g in ${b_groups//,/ }; do
			if [ "${g%%:*}" = "$2" ]; then
				echo "${g#*:}=$1/$b_name.log"
			fi
		done
	done <"$1/boots"
}

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
				[ -n "${BJK_ACCEL:-}" ] || opts+=(-a "${b_qemu[i]}")
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
	[ -n "${BJK_KERNEL:-}" ] && qemu_opts+=(-k "$BJK_KERNEL")
	[ -n "${BJK_INITRD:-}" ] && qemu_opts+=(-i "$BJK_INITRD")
	[ -n "${BJK_TIMEOUT:-}" ] && qemu_opts+=(-t "$BJK_TIMEOUT")
	[ -n "${BJK_FIRST_OUTPUT_TIMEOUT:-}" ] && qemu_opts+=(-f "$BJK_FIRST_OUTPUT_TIMEOUT")
	[ -n "${BJK_ACCEL:-}" ] && qemu_opts+=(-a "$BJK_ACCEL")
	for w in ${BJK_QEMU_EXTRA:-}; do
		qemu_opts+=(-q "$w")
	done
	read -r -a qemu_params <<<"${BJK_APPEND:-}"
}

# Verdicts: every verdict of a run is a KTAP file that ends with its
# bjk-verdict line (harness/src/common.h); the judge's summary
# (harness/src/summary.c) is their one reader.
# verdict_end BOOT SUITE SECS NOTE: that line.
verdict_end() {
	printf '# bjk-verdict boot=%s suite=%s secs=%s note=%s\n' "$1" "$2" "$3" "${4//$'\n'/ }"
}

# verdict_one FILE BOOT SUITE ok|not-ok|skip SECS NOTE: a verdict of one
# case, BOOT.SUITE, in FILE (a boot's own verdict, a check across boots).
verdict_one() {
	local file=$1 boot=$2 suite=$3 res=$4 secs=$5 note=$6 line
	case "$res" in
	ok) line="ok 1 $boot.$suite" ;;
	skip) line="ok 1 $boot.$suite # SKIP" ;;
	*) line="not ok 1 $boot.$suite" ;;
	esac
	{
		printf 'KTAP version 1\n1..1\n%s\n' "$line"
		verdict_end "$boot" "$suite" "$secs" "$note"
	} >"$file.tmp.$$"
	mv -f "$file.tmp.$$" "$file"
}

# boot_verdicts RUNDIR NAME SUITES: the verdict files harness/judge-boot.sh
# writes for boot NAME, in the table's order: the boot, each suite, the
# splat scan.
boot_verdicts() {
	local s
	echo "$1/ktap/$2.boot.ktap"
	for s in ${3//,/ }; do
		echo "$1/ktap/$2.$s.ktap"
	done
	echo "$1/ktap/$2.splat.ktap"
}

# A host-side test's cases (tests/host/*.sh): host_case ok|not-ok NAME
# [DETAIL] numbers the case, counts it in host_pass or host_fail, and
# writes its KTAP line to stdout and to the file $host_ktap; host_end NAME
# T0 NOTE ends that file with the test's bjk-verdict line (its time since T0).
host_pass=0 host_fail=0 host_n=0
# host_begin RUNDIR NAME PLAN: start RUNDIR/host/NAME.ktap with PLAN cases;
# sets host_ktap and t0, the start time host_end takes.
host_begin() {
	mkdir -p "$1/host"
	host_ktap=$1/host/$2.ktap
	: >"$host_ktap"
	t0=$(now)
	printf 'KTAP version 1\n1..%s\n' "$3" | tee -a "$host_ktap"
}
host_case() {
	local word=ok
	host_n=$((host_n + 1))
	if [ "$1" = ok ]; then
		host_pass=$((host_pass + 1))
	else
		host_fail=$((host_fail + 1))
		word="not ok"
	fi
	echo "$word $host_n $2${3:+ # $3}" | tee -a "$host_ktap"
}
host_end() {
	local secs
	secs=$(since "$2")
	verdict_end "$1" "$1" "${secs%s}" "$3" | tee -a "$host_ktap"
}

# Checks across the boots of RUNDIR: for each group of RUNDIR/boots with a
# check (group_check) and a console, FILE RUNDIR ROLE=CONSOLE...; it writes
# its verdicts with post_verdict.
post_checks() {
	local g file logs
	for g in $(run_groups "$1"); do
		file=$(group_check "$g") || continue
		mapfile -t logs < <(group_logs "$1" "$g")
		[ ${#logs[@]} -gt 0 ] || continue	# none of its boots ran (BJK_BOOTS)
		# BJK_CHECK: the group, for a check that serves two groups
		BJK_CHECK=$g stage "post $g" bash "$file" "$1" "${logs[@]}" || true
	done
}

# run_groups RUNDIR: the groups of RUNDIR/boots, one each, in name order.
run_groups() {
	local line g
	while IFS= read -r line; do
		boot_fields "$line"
		for g in ${b_groups//,/ }; do
			echo "${g%%:*}"
		done
	done <"$1/boots" | LC_ALL=C sort -u
}

# post_verdict RUNDIR CHECK NAME ok|not-ok|skip NOTE: one verdict of the
# check across boots CHECK, RUNDIR/post/CHECK.<n>.ktap, numbered in the
# order written: the table's.
post_verdict() {
	local n
	mkdir -p "$1/post"
	n=$(find "$1/post" -maxdepth 1 -name "$2.*.ktap" | wc -l)
	verdict_one "$1/post/$2.$(printf '%03d' "$n").ktap" "$2" "$3" "$4" 0.0 "$5"
}
