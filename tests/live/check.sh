#!/bin/bash
# A check across the boots of a run (harness/judge.sh, the judge stage of
# make test and make judge, runs the check of each group of the run):
# the live exhibits' verdict across the boots of group "live", handed by
# the judge as tests/live/check.sh RUNDIR MODE=CONSOLE...: each boot's role
# is its mode, off, inline, outline or interp (the museum kernel's
# interpreter, the referee).
# Per reported case (a region the runner announced with a BJK-LIVE line):
# - checks off: no report (the splat scan holds the count; here it is
#   shown);
# - the interpreter reports it, in ___bpf_prog_run;
# - inline and outline report exactly what the interpreter reports: bug
#   type, Read or Write, size, and where the address lies ("N bytes to the
#   right of the allocated M-byte region"; addresses differ from boot to
#   boot), in bpf_prog_<tag>_<program>, and the decoder names the
#   program and the faulting instruction the runner named.
# Without a boot of every mode the cross-boot row is skipped (make quick
# runs only the inline one); a boot that ran fails on its own facts.
# One verdict per case (post_verdict, harness/lib.sh).
set -euo pipefail
. "$(dirname "$0")/../../harness/lib.sh"
# shellcheck source=SCRIPTDIR/../../harness/verdicts.sh
. "$BJK_ROOT/harness/verdicts.sh"

run=$1
shift
declare -A log_of=()	# role in the group "live" (tests/boots), its mode -> console
for a in "$@"; do
	log_of[${a%%=*}]=${a#*=}
done

# Per boot and region: "mode region prog insn report where decoded kinsn"
# (tab-separated): the program and insn of the runner's BJK-LIVE line, the
# region's first report (type|Read/Write size|place), the function it
# names, the decoder's program:insn for that program, the insn the
# report's own "BPF insn:" line names ("-": none; "old": no report of the
# console has one, a kernel from before them) and its "BPF belief:" line
# with whether it fits the report's access (bjk-facts: "fits", "unfit";
# "-": none). The reports as
# the one reader of their grammar gives them (bjk-facts,
# harness/src/facts.c).
facts=$run/live-facts.tsv
for mode in "${!log_of[@]}"; do
	"$TOOLS/bjk-facts" -l 'BJK-LIVE ' -l '# decode:   ' "${log_of[$mode]}" | awk -F'\t' -v mode="$mode" '
	$1 == "line" && $2 ~ /^BJK-LIVE / { split($2, f, " "); prog[f[2]] = f[4]; insn[f[2]] = f[6]; next }
	$1 == "begin" && $2 ~ /^live\./ { split($2, g, "."); if (g[2] in prog) reg[g[2]] = $2; next }
	$1 == "report" && $9 != "-" { lines = 1 }
	$1 == "report" && $2 ~ /^live\./ {
		split($2, g, "."); ex = g[2]
		if (ex in prog && !(ex in type)) { type[ex] = $4; where[ex] = $5; acc[ex] = $6; loc[ex] = $8 == "-" ? "" : $8; kinsn[ex] = $9; bel[ex] = $12; fits[ex] = $13 }
		next }
	$1 == "line" && $2 ~ /^# decode:   program  / { split($2, f, " "); dprog = f[4]; next }
	$1 == "line" && $2 ~ /^# decode:   insn     [0-9]+:/ && dprog != "" { split($2, f, " "); n = f[4]; sub(/:$/, "", n); dec[dprog] = dprog ":" n; dprog = "" }
	END {
		for (k in prog)
			printf "%s\t%s\t%s\t%s\t%s|%s|%s\t%s\t%s\t%s\t%s\t%s\n", mode, reg[k] == "" ? "live." k : reg[k], prog[k], insn[k],
				type[k] == "" ? "none" : type[k], acc[k], loc[k], where[k] == "" ? "-" : where[k],
				dec[prog[k]] == "" ? "-" : dec[prog[k]], !lines ? "old" : kinsn[k] == "" ? "-" : kinsn[k],
				bel[k] == "" ? "-" : bel[k], fits[k] == "" ? "-" : fits[k]
	}'
done >"$facts"

row() {	# row NAME ok|not-ok|skip NOTE
	post_verdict "$run" live "$1" "$2" "$(echo "$3" | cut -c1-300)"
	echo "  live $1: $3"
}

for region in $(cut -f2 "$facts" | sort -u); do
	get() { awk -F'\t' -v m="$1" -v r="$region" -v c="$2" '$1 == m && $2 == r { print $c }' "$facts"; }
	name=${region#live.}
	why=()
	missing=()
	for m in off inline outline interp; do
		[ -n "$(get $m 2)" ] || missing+=("$m")
	done
	ref=$(get interp 5)
	if [ -n "$(get off 2)" ] && [ "$(get off 5)" != "none||" ]; then
		why+=("checks off: $(get off 5)")
	fi
	if [ -n "$ref" ]; then
		[ "$ref" != "none||" ] || why+=("the interpreter did not report")
		[ "$(get interp 6)" = ___bpf_prog_run ] || why+=("interpreter's report in $(get interp 6)")
	fi
	for m in inline outline; do
		[ -n "$(get $m 2)" ] || continue
		prog=$(get $m 3)
		[ "$(get $m 5)" != "none||" ] || why+=("$m: no report")
		[ -z "$ref" ] || [ "$(get $m 5)" = "$ref" ] || why+=("$m: $(get $m 5), interpreter: $ref")
		[[ "$(get $m 6)" =~ ^bpf_prog_[0-9a-f]{16}_${prog}$ ]] || why+=("$m: report in $(get $m 6), not program $prog")
		[ "$(get $m 7)" = "$prog:$(get $m 4)" ] ||
			why+=("$m: decoded to $(get $m 7), the program's access is $prog:$(get $m 4)")
		[ "$(get $m 8)" = old ] || [ "$(get $m 8)" = "$(get $m 4)" ] ||
			why+=("$m: the report's BPF insn line names $(get $m 8), the program's access is $(get $m 4)")
		[ "$(get $m 8)" = old ] || [ "$(get $m 10)" = fits ] ||
			why+=("$m: the report's BPF belief '$(get $m 9)' does not fit the access $(get $m 5)")
	done
	seen=$(get inline 5)
	seen=${seen:-$(get outline 5)}
	seen=${seen:-$ref}
	if [ ${#why[@]} -gt 0 ]; then
		row "$name" not-ok "FAILED: $(IFS=';'; echo "${why[*]}")"
	elif [ ${#missing[@]} -gt 0 ]; then
		row "$name" skip "SKIP: no live boot of mode ${missing[*]} in this run; the boots that ran agree: $seen"
	else
		row "$name" ok "the same report inline, outline and interpreted: $seen; none with checks off; decoded to $(get inline 7)"
	fi
done
