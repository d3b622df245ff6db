#!/bin/bash
# Host-side test of the converters of raw blocks (harness/convert.sh and
# each suite's tests/<tool>/convert.awk, docs/harness.md "Raw blocks"), run
# by harness/test.sh; BJK_BOOTS=convert runs only it. No boot:
#   tests/host/convert.sh RUNDIR
# Golden cases, a folder each, tests/host/golden/convert/SUITE-CASE/:
# `console`, a raw block as a guest prints it on the console (printk times,
# serial line ends, a kernel message between its lines where the case
# needs one), and `expected`, the KTAP `harness/convert.sh SUITE console`
# must print, byte for byte (what the guest script printed itself before
# raw blocks). A new case is a new folder. Then: that a changed expected
# output fails its case (on a copy); that a console without a raw block is
# left to be judged as it is (status 3, nothing printed); that the judge
# reads the converted console (-s) as it reads a suite's KTAP (bjk-suite:
# the same cases as expected, their names trimmed as it trims them); that a converter that cannot run fails the
# suite with a note, not the judge; and that the converters give the same
# output under the other awks of the host (busybox's, the guest's; gawk),
# as the host's own awk (mawk on Debian) does. Its verdict, KTAP, on stdout
# and in RUNDIR/host/convert.ktap, one case a folder, convert.CASE.
set -euo pipefail
. "$(dirname "$0")/../../harness/lib.sh"
# shellcheck source=SCRIPTDIR/../../harness/verdicts.sh
. "$BJK_ROOT/harness/verdicts.sh"

run=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
golden=$BJK_ROOT/tests/host/golden/convert
conv=$BJK_ROOT/harness/convert.sh
mapfile -t cases < <(find "$golden" -mindepth 1 -maxdepth 1 -type d | LC_ALL=C sort)
host_begin "$run" convert $((${#cases[@]} + 5))

# golden DIR: its case run and compared; sets g_res (ok|not-ok) and g_note.
golden() {
	local dir=$1 name suite rc=0 out
	name=$(basename "$dir")
	suite=${name%%-*}
	out=$(mktemp -p "$work")
	"$conv" "$suite" "$dir/console" >"$out" 2>"$out.err" || rc=$?
	if [ "$rc" = 0 ] && cmp -s "$dir/expected" "$out"; then
		g_res=ok g_note="$(grep -c '^\(not \)\{0,1\}ok ' "$dir/expected") cases, the $(wc -l <"$dir/expected") lines expected"
	else
		g_res=not-ok
		g_note="status $rc; diff expected output: $({ diff "$dir/expected" "$out" 2>&1 || true; } | head -n 5 | tr '\n\t' '  ')"
		[ -s "$out.err" ] && g_note+="; stderr: $(head -n 1 "$out.err")"
	fi
	return 0
}

for dir in "${cases[@]}"; do
	golden "$dir"
	host_case "$g_res" "convert.$(basename "$dir")" "$g_note"
done

# The comparison can fail: the first case, copied, with the last line of its
# expected output changed.
if [ ${#cases[@]} -eq 0 ]; then
	host_case not-ok convert.can_fail "no golden case in $golden"
else
	copy=$work/can_fail/$(basename "${cases[0]}")
	mkdir -p "$copy"
	cp "${cases[0]}"/* "$copy/"
	sed -i '$ s/$/ (changed)/' "$copy/expected"
	golden "$copy"
	if [ "$g_res" = not-ok ]; then
		host_case ok convert.can_fail "$(basename "$copy") with its expected output changed: a mismatch"
	else
		host_case not-ok convert.can_fail "$(basename "$copy") with its expected output changed passed"
	fi
fi

# A console from before raw blocks (the guest printed the KTAP): status 3,
# nothing printed; judge-boot.sh then judges it as it is.
first=${cases[0]:-/dev/null}
sed '/BJK-RAW/d' "$first/console" >"$work/old.console"
rc=0
"$conv" -s test_bpf "$work/old.console" >"$work/old.out" 2>&1 || rc=$?
if [ "$rc" = 3 ] && [ ! -s "$work/old.out" ]; then
	host_case ok convert.no_block "status 3, nothing printed"
else
	host_case not-ok convert.no_block "status $rc, $(wc -l <"$work/old.out") lines printed: $(head -n 1 "$work/old.out")"
fi

# What the judge reads: with -s, the console with the block replaced; the
# suite's verdict (bjk-suite) has the cases of the KTAP expected, in order.
bad=()
for dir in "${cases[@]}"; do
	name=$(basename "$dir")
	suite=${name%%-*}
	rc=0
	"$conv" -s "$suite" "$dir/console" >"$work/$name.console" 2>/dev/null || rc=$?
	"$TOOLS/bjk-suite" "$suite" "$name" "$work/$name.console" >"$work/$name.ktap" 2>&1 || true
	if [ "$rc" != 0 ] ||
		! diff -q <(sed -nE '/^(ok|not ok) [0-9]+ /{s/^(ok|not ok) [0-9]+ /\1 /; s/ +( # |$)/\1/; p}' "$dir/expected") \
			<(sed -nE 's/^(ok|not ok) [0-9]+ /\1 /p' "$work/$name.ktap" | grep -v ' judge\.') >/dev/null; then
		bad+=("$name (status $rc)")
	fi
done
if [ ${#bad[@]} -eq 0 ]; then
	host_case ok convert.judged "bjk-suite on each console converted with -s: the cases expected"
else
	host_case not-ok convert.judged "bjk-suite's cases differ from those expected: ${bad[*]}"
fi

# A raw block whose converter cannot run: the suite fails, with the reason
# as its note, and the judge goes on.
sed 's/BJK-RAW-BEGIN test_bpf.*/BJK-RAW-BEGIN test_bpf tool=no_such_tool/' \
	"$golden/test_bpf-pass/console" >"$work/bad.console"
rc=0
"$conv" -s test_bpf "$work/bad.console" >"$work/bad.out" 2>/dev/null || rc=$?
src=0
"$TOOLS/bjk-suite" test_bpf bad "$work/bad.out" >"$work/bad.ktap" 2>&1 || src=$?
if [ "$rc" = 0 ] && [ "$src" = 1 ] && grep -q 'note=.*no converter for tool .no_such_tool' "$work/bad.ktap"; then
	host_case ok convert.no_converter "the suite fails: $(sed -n 's/.* note=//p' "$work/bad.ktap")"
else
	host_case not-ok convert.no_converter "convert.sh -s status $rc, bjk-suite status $src: $(tail -n 1 "$work/bad.ktap")"
fi

# Portable awk: the other awks of the host (busybox's, the guest's, and
# gawk, where they are) give each case its expected output too.
awks=() bad=()
command -v busybox >/dev/null && busybox awk 'BEGIN {}' 2>/dev/null && awks+=(busybox)
command -v gawk >/dev/null && awks+=(gawk)
for a in "${awks[@]}"; do
	mkdir -p "$work/$a"
	if [ "$a" = busybox ]; then
		ln -sf "$(command -v busybox)" "$work/$a/awk"
	else
		ln -sf "$(command -v "$a")" "$work/$a/awk"
	fi
	for dir in "${cases[@]}"; do
		name=$(basename "$dir")
		PATH=$work/$a:$PATH "$conv" "${name%%-*}" "$dir/console" >"$work/$a.$name" 2>&1 || true
		cmp -s "$dir/expected" "$work/$a.$name" || bad+=("$name with $a")
	done
done
if [ ${#awks[@]} -eq 0 ]; then
	host_case ok convert.portable "no other awk on this host than $(readlink -f "$(command -v awk)")"
elif [ ${#bad[@]} -eq 0 ]; then
	host_case ok convert.portable "every case as expected with ${awks[*]} too"
else
	host_case not-ok convert.portable "${bad[*]}"
fi

host_end convert "$t0" "the converters of raw blocks on golden consoles"
[ "$host_fail" -eq 0 ]
