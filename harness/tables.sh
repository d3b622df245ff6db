# shellcheck shell=bash disable=SC2034
# The tables: the suites' folders and harness/parts (what each kernel's image
# holds), the boot tables (tests/boots, read by harness/boots.awk), a run's
# boots and groups.
# Sourced after harness/lib.sh.
[ -n "${_bjk_tables:-}" ] && return 0
_bjk_tables=1

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
		if [ -n "$BJK_BOOTS" ] && [[ " $BJK_BOOTS " != *" $name "* ]]; then
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
