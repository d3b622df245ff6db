#!/bin/bash
# A check across the boots of a run (harness/judge.sh, the judge stage of
# make test and make judge, runs the check of each group of the run):
# the bug museum's verdict across its boots. Per bug, the report of its out
# case (the read past the allocation) must be the same with the checks
# inline, outline and under the interpreter, the referee: bug type, Read or
# Write, size, and where the address lies ("N bytes to the right of the
# allocated M-byte region"; the addresses differ from boot to boot, so
# each boot with checks on runs the program interpreted too, on the same map,
# and the two reports must name the same address); with checks on the
# decoder must name the reproducer's program and its faulting instruction
# (the runner's BJK-MUSEUM line: the first decoded report of the program,
# the out case's; its misaligned and stack rows are decoded after it). That each boot
# has exactly the reports it expects (1 or 0 per case) is the splat scan's.
# The misaligned rows (mis_*, mmis_*: accesses a bug moved off the
# alignment the verifier believed, across the end of the allocation) must
# have the same first report in inline, outline and the interpreter, and
# none with checks off; the stack rows a stack-out-of-bounds Read of 8 bytes
# first in inline and outline, none with checks off.
# Run by the judge as the group's check: tests/museum/check.sh RUNDIR
# ROLE=CONSOLE..., the roles off, inline, outline, interp.
# One verdict per bug, and one per bug for each of the misaligned and stack
# rows (post_verdict, harness/lib.sh).
set -euo pipefail
. "$(dirname "$0")/../../harness/lib.sh"
# shellcheck source=SCRIPTDIR/../../harness/verdicts.sh
. "$BJK_ROOT/harness/verdicts.sh"

run=$1
shift
check=${BJK_CHECK:-museum}	# the group: museum, or museum-norz (map redzones off)
declare -A log_of=()	# role in the group "museum" (tests/boots) -> console
for a in "$@"; do
	log_of[${a%%=*}]=${a#*=}
done
roles=(off inline outline interp)
for b in "${roles[@]}"; do
	if [ -z "${log_of[$b]:-}" ]; then
		post_verdict "$run" "$check" compare skip "needs a boot of each role: ${roles[*]}"
		exit 0
	fi
done

# verdict NAME OK-NOTE OK-LINE [WHY...]: the verdict of row NAME: ok, with
# OK-NOTE (and OK-LINE on the judge's output), without a WHY; else not ok,
# with the WHYs.
verdict() {
	local name=$1 note=$2 line=$3
	shift 3
	if [ $# -eq 0 ]; then
		post_verdict "$run" "$check" "$name" ok "$note"
		echo "  $check $line"
	else
		post_verdict "$run" "$check" "$name" not-ok "$(IFS=';'; echo "$*" | cut -c1-300)"
		echo "  $check $name: FAILED: $*"
	fi
}

# Per boot and bug: "boot bug report|...|... insn prog:insn addr iaddr
# kinsn" (tab-separated): the out case's first report inside its region,
# the runner's faulting insn, the decoder's program and insn, the report's
# address, that of the same program interpreted on the same map (its
# out_interp region, in the boots with checks on), and the insn the
# report's own "BPF insn:" line names ("-": none; "old": the kernel prints
# no such line in any report, a console from before the series had them),
# and its "BPF belief:" line with whether it fits the report's access
# (bjk-facts: "fits", "unfit"; "-": none).
# The reports as the one reader of their grammar gives them (bjk-facts,
# harness/src/facts.c).
facts=$run/$check-facts.tsv
for b in "${roles[@]}"; do
	"$TOOLS/bjk-facts" -l 'BJK-MUSEUM ' -l '# decode:   ' "${log_of[$b]}" | awk -F'\t' -v boot="$b" '
	$1 == "line" && $2 ~ /^BJK-MUSEUM / { split($2, f, " "); bugs[f[2]] = 1; insn[f[2]] = f[6]; next }
	$1 == "report" && $9 != "-" { lines = 1 }
	$1 == "report" && $3 == 1 && $2 ~ /^museum\.[a-z0-9_]+\.out$/ {
		split($2, g, "."); k = g[2]; type[k] = $4; acc[k] = $6; addr[k] = $7; loc[k] = $8 == "-" ? "" : $8; kinsn[k] = $9; bel[k] = $12; fits[k] = $13; next }
	$1 == "report" && $3 == 1 && $2 ~ /^museum\.[a-z0-9_]+\.out_interp$/ { split($2, g, "."); iaddr[g[2]] = $7; next }
	$1 == "line" && $2 ~ /^# decode:   program  m_/ { split($2, f, " "); dprog = f[4]; dbug = substr(dprog, 3); next }
	$1 == "line" && $2 ~ /^# decode:   insn     [0-9]+:/ && dbug != "" { split($2, f, " "); n = f[4]; sub(/:$/, "", n); if (!(dbug in dec)) dec[dbug] = dprog ":" n; dbug = "" }
	END {
		for (k in bugs)
			printf "%s\t%s\t%s|%s|%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", boot, k, type[k] == "" ? "none" : type[k], acc[k], loc[k], insn[k], dec[k] == "" ? "-" : dec[k], addr[k] == "" ? "-" : addr[k], iaddr[k] == "" ? "-" : iaddr[k], !lines ? "old" : kinsn[k] == "" ? "-" : kinsn[k], bel[k] == "" ? "-" : bel[k], fits[k] == "" ? "-" : fits[k]
	}'
done >"$facts"

for bug in $(cut -f2 "$facts" | sort -u); do
	get() { awk -F'\t' -v b="$1" -v k="$bug" -v c="$2" '$1 == b && $2 == k { print $c }' "$facts"; }
	ref=$(get interp 3)
	insn=$(get inline 4)
	why=()
	[ "$(get off 3)" = "none||" ] || why+=("checks off: $(get off 3)")
	[ "$ref" != "none||" ] || why+=("the interpreter did not report")
	for b in inline outline; do
		[ "$(get $b 3)" = "$ref" ] || why+=("$b: $(get $b 3), interpreter: $ref")
		[ "$(get $b 5)" = "m_$bug:$(get $b 4)" ] ||
			why+=("$b: decoded to $(get $b 5), the program's access is m_$bug:$(get $b 4)")
		[ "$(get $b 6)" != - ] && [ "$(get $b 6)" = "$(get $b 7)" ] ||
			why+=("$b: address $(get $b 6) JITed, $(get $b 7) interpreted on the same map")
		# the kernel's own "BPF insn:" line (a console from before it: old)
		[ "$(get $b 8)" = old ] || [ "$(get $b 8)" = "$(get $b 4)" ] ||
			why+=("$b: the report's BPF insn line names $(get $b 8), the program's access is $(get $b 4)")
		# what the verifier believed: the planted bug makes it prove the
		# access inside its object, which KASAN says it was not
		[ "$(get $b 8)" = old ] || [ "$(get $b 10)" = fits ] ||
			why+=("$b: the report's BPF belief '$(get $b 9)' does not fit the access $(get $b 3)")
	done
	named=", and named by the report"
	[ "$(get inline 8)" != old ] || named=""
	verdict "$bug" \
		"$ref (inline, outline, interp; the same address JITed and interpreted); insn $insn$named" \
		"$bug: same report in inline, outline, interp: $ref; the same address JITed and interpreted; decoded to insn $insn$named" \
		"${why[@]}"
done

# The misaligned, stack and map redzone rows: per boot and case, the
# reports in its region and the first one's type|access|place ("boot bug
# case n facts").
rows=$run/$check-rows.tsv
for b in "${roles[@]}"; do
	"$TOOLS/bjk-facts" "${log_of[$b]}" | awk -F'\t' -v boot="$b" '
	$2 !~ /^museum\.[a-z0-9_]+\.(m+is_[0-9_]+|stack|in|head|hash)$/ { next }
	{ split($2, g, "."); key = g[2] "\t" g[3] }
	$1 == "begin" { n[key] = 0; f[key] = "none||" }
	$1 == "report" && ++n[key] == 1 { f[key] = $4 "|" $6 "|" ($8 == "-" ? "" : $8) }
	END {
		for (k in n)
			printf "%s\t%s\t%d\t%s\n", boot, k, n[k], f[k]
	}'
done >"$rows"

for bug in $(cut -f2 "$rows" | sort -u); do
	row() { awk -F'\t' -v b="$1" -v k="$bug" -v c="$2" '$1 == b && $2 == k && $3 == c { print $4 "\t" $5 }' "$rows"; }
	mis=() stack=()
	cases=$(awk -F'\t' -v k="$bug" '$2 == k && $3 ~ /^m+is_/ { print $3 }' "$rows" | sort -u)
	nc=0
	for c in $cases; do
		nc=$((nc + 1))
		ref=$(row interp "$c")
		[ "$(row off "$c")" = "$(printf '0\tnone||')" ] || mis+=("$c off: $(row off "$c")")
		[ "${ref%%$'\t'*}" = 1 ] || mis+=("$c interp: ${ref:-no region}")
		for b in inline outline; do
			[ "$(row $b "$c")" = "$ref" ] || mis+=("$c $b: $(row $b "$c"), interp: $ref")
		done
	done
	[ "$nc" -gt 0 ] || mis+=("no misaligned case ran")
	verdict "$bug.misaligned" "$nc cases: inline = outline = interp, none with checks off" \
		"$bug misaligned: $nc cases, the same report in inline, outline, interp" "${mis[@]}"
	# stack: reports name the task (pid) in their place: type and access only
	want=$(printf '2\tstack-out-of-bounds|Read 8|')
	[ "$(row off stack)" = "$(printf '0\tnone||')" ] || stack+=("off: $(row off stack)")
	for b in inline outline; do
		r=$(row $b stack)
		case "$r" in "$want"*) ;; *) stack+=("$b: ${r:-no region}, want ${want//$'\t'/ } ...") ;; esac
	done
	verdict "$bug.stack" "stack-out-of-bounds Read and Write 8 at fp + 8 in inline and outline, none off" \
		"$bug stack: reported in inline and outline, not with checks off" "${stack[@]}"
	# in, head, hash: what map redzones let KASAN see (reports with them
	# on, none without: the splat scan's count), the same in every mode
	rz=() seen=()
	for c in in head hash; do
		ref=$(row interp "$c")
		[ -n "$ref" ] || { rz+=("$c: no region in interp"); continue; }
		[ "$(row off "$c")" = "$(printf '0\tnone||')" ] || rz+=("$c off: $(row off "$c")")
		for b in inline outline; do
			[ "$(row $b "$c")" = "$ref" ] || rz+=("$c $b: $(row $b "$c"), interp: $ref")
		done
		seen+=("$c ${ref%%$'\t'*}")
	done
	verdict "$bug.redzones" "reports (in, head, hash): ${seen[*]}; inline = outline = interp, none off" \
		"$bug in/head/hash: ${seen[*]} report(s), the same in inline, outline, interp" "${rz[@]}"
done
