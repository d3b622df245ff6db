#!/bin/bash
# Host-side test of the series as files (no boot), run by harness/test.sh:
#   tests/host/series.sh RUNDIR
# What the README and docs/series.md say of the series must be what
# patches/ holds: the README's patch count, docs/series.md's table of
# numbers and subjects, the cover letter's [PATCH 00/N] and shortlog; and
# every patch is checkpatch.pl --strict clean (the tree's own script). Its
# verdict, KTAP, on stdout and in RUNDIR/host/series.ktap.
set -euo pipefail
. "$(dirname "$0")/../../harness/lib.sh"
# shellcheck source=SCRIPTDIR/../../harness/verdicts.sh
. "$BJK_ROOT/harness/verdicts.sh"

host_begin "$1" series 4

# patches/ alone, whatever kernel the run is for (not the museum's patch,
# not the fixes BPF CI's configuration carries)
mapfile -t patches < <(series_patches)
n=${#patches[@]}
cover=$PATCHES/0000-cover-letter.patch

# The subject of a patch file, without its [PATCH k/N] prefix, folded
# continuation lines joined (git format-patch folds long subjects).
subject() {
	awk '/^Subject: /{s = $0; while ((getline l) > 0 && l ~ /^ /) s = s l; print s; exit}' "$1" |
		sed -E 's/^Subject: \[PATCH[^]]*\] //'
}

# The cover letter's shortlog: one subject a line, wrapped ones joined.
shortlog() {
	awk -v head="bpf-jit-kasan ($n):" '$0 == head { on = 1; next }
		on && /^$/ { exit }
		on && /^    / { sub(/^ +/, ""); s = s " " $0; next }
		on && /^  / { if (s != "") print s; s = substr($0, 3) }
		END { if (s != "") print s }' "$1"
}

mapfile -t subjects < <(for p in "${patches[@]}"; do subject "$p"; done)

words=(zero one two three four five six seven eight nine ten eleven twelve
	thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty)
word=${words[$n]:-$n}
readme=$(sed -n '/^## The series$/,/^## /p' "$BJK_ROOT/README.md")
if grep -qiE "^(${word}|${n}) patches" <<<"$readme"; then
	host_case ok series.readme_count "README: ${word^} patches, as in patches/"
else
	host_case not-ok series.readme_count \
		"patches/ has $n patches; README's series section says: $(grep -m1 -iE 'patches against' <<<"$readme" || echo nothing)"
fi

# docs/series.md: | NNNN | subject | ... |, one row per patch, in order.
want=$(for i in "${!patches[@]}"; do
	printf '%s | %s\n' "$(basename "${patches[i]}" | cut -c1-4)" "${subjects[i]}"
done)
have=$(sed -nE 's/^\| ([0-9]{4}) \| ([^|]+) \|.*/\1 | \2/p' "$BJK_ROOT/docs/series.md" | sed 's/ *$//')
if [ "$want" = "$have" ]; then
	host_case ok series.table "docs/series.md lists the $n patches by number and subject"
else
	host_case not-ok series.table \
		"docs/series.md's table differs from patches/: $(diff <(echo "$want") <(echo "$have") | grep '^[<>]' | head -n 3 | tr '\n' ';')"
fi

if [ -f "$cover" ] && grep -q "^Subject: \[PATCH 00/$(printf '%02d' "$n")\] " "$cover" &&
	[ "$(printf '%s\n' "${subjects[@]}")" = "$(shortlog "$cover")" ]; then
	host_case ok series.cover "cover letter: [PATCH 00/$(printf '%02d' "$n")] and the $n subjects"
else
	host_case not-ok series.cover "the cover letter's count or shortlog differs from patches/ ($n patches)"
fi

checkpatch=$(tree_dir)/scripts/checkpatch.pl
if [ -x "$checkpatch" ]; then
	bad=()
	for p in "${patches[@]}"; do
		"$checkpatch" --strict --no-tree -q "$p" >/dev/null 2>&1 || bad+=("$(basename "$p")")
	done
	if [ "${#bad[@]}" -eq 0 ]; then
		host_case ok series.checkpatch "checkpatch.pl --strict: $n patches clean"
	else
		host_case not-ok series.checkpatch "checkpatch.pl --strict complains of: ${bad[*]}"
	fi
else
	host_case not-ok series.checkpatch "no $checkpatch (the kernel tree is unpacked by make test's tree stage)"
fi

host_end series "$t0" "the series' files and what the docs say of them"
[ "$host_fail" -eq 0 ]
