# shellcheck shell=bash disable=SC2034
# Verdicts: their KTAP files, a host-side test's cases, the checks across
# the boots of a run.
# Sourced after harness/lib.sh.
# shellcheck source=SCRIPTDIR/tables.sh
. "$BJK_ROOT/harness/tables.sh"

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
