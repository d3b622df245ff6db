#!/bin/bash
# Host-side test of the fuzzer's parts that need no kernel (tools/fuzz/
# selftest.c: generated and mutated programs well formed, deletions keeping
# jumps on target, the program file read back as written and a bad one
# refused, the C reproducer written), run by harness/test.sh after the
# boots; BJK_BOOTS=fuzz-host runs only it. Then the reproducer it wrote must
# compile cleanly, and so must the one `bjk-fuzz -R` writes for each
# program kept in tools/fuzz/findings/ (each a file the loop reads). No
# boot: the fuzzer's runs are the boot "fuzz".
#   tests/host/fuzz-host.sh RUNDIR
set -euo pipefail
. "$(dirname "$0")/../../harness/lib.sh"
# shellcheck source=SCRIPTDIR/../../harness/verdicts.sh
. "$BJK_ROOT/harness/verdicts.sh"

run=$1
mkdir -p "$run/host"
host_ktap=$run/host/fuzz-host.ktap
: >"$host_ktap"
t0=$(now)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=$BJK_ROOT/tools/fuzz
uapi=$(tree_dir)/tools/include/uapi
[ -d "$uapi" ] || die "$uapi missing: the tree is not unpacked (make test does it first)"

findings=("$src"/findings/*.prog)
printf 'KTAP version 1\n1..%d\n' $((12 + ${#findings[@]})) | tee -a "$host_ktap"
if ! gcc -O2 -Wall -Wextra -Werror -Wno-missing-field-initializers -I"$uapi" \
	-o "$work/selftest" "$src/selftest.c" "$src/gen.c" "$src/progfile.c" "$src/repro.c" "$src/btf.c" "$src/probe.c" \
	>"$work/cc.log" 2>&1; then
	host_case not-ok fuzz-host.build "$(tail -n 3 "$work/cc.log" | tr '\n' ' ')"
else
	"$work/selftest" "$work" >"$work/out" 2>&1 || true
	while read -r word rest; do
		case "$word $rest" in
		"ok "*) read -r _ name detail <<<"$rest"; host_case ok "$name" "${detail#\# }" ;;
		"not ok "*) read -r _ _ name detail <<<"$rest"; host_case not-ok "$name" "${detail#\# }" ;;
		esac
	done <"$work/out"
	grep -q '^# Totals: pass:10 fail:0' "$work/out" ||
		host_case not-ok fuzz-host.totals "$(tail -n 1 "$work/out")"
	if gcc -static -O2 -Wall -Wextra -Werror -I"$uapi" -o "$work/repro" "$work/repro.c" \
		>"$work/repro.log" 2>&1; then
		host_case ok fuzz.repro.compiles "gcc -static -O2 -Wall -Wextra -Werror"
	else
		host_case not-ok fuzz.repro.compiles "$(head -n 3 "$work/repro.log" | tr '\n' ' ')"
	fi
fi
# bjk-fuzz itself, built for the host only to write reproducers (-R).
if ! gcc -O2 -Wall -Wextra -Werror -Wno-missing-field-initializers -I"$uapi" -I"$BJK_ROOT/lib" \
	-o "$work/bjk-fuzz" "$src/fuzz.c" "$src/gen.c" "$src/progfile.c" "$src/repro.c" "$src/btf.c" "$src/probe.c" \
	>"$work/cc-fuzz.log" 2>&1; then
	host_case not-ok fuzz.host-build "$(tail -n 3 "$work/cc-fuzz.log" | tr '\n' ' ')"
else
	host_case ok fuzz.host-build "bjk-fuzz -R on the host"
fi
for f in "${findings[@]}"; do
	name=fuzz.findings.$(basename "$f" .prog)
	if [ ! -x "$work/bjk-fuzz" ]; then
		host_case not-ok "$name" "no bjk-fuzz to write its reproducer (fuzz.host-build)"
	elif ! "$work/bjk-fuzz" -R "$f" >"$work/finding.c" 2>"$work/finding.log"; then
		host_case not-ok "$name" "bjk-fuzz -R: $(tail -n 1 "$work/finding.log")"
	elif ! gcc -static -O2 -Wall -Wextra -Werror -I"$uapi" -o "$work/finding" "$work/finding.c" \
		>"$work/finding.log" 2>&1; then
		host_case not-ok "$name" "its reproducer: $(head -n 3 "$work/finding.log" | tr '\n' ' ')"
	else
		host_case ok "$name" "$(grep -c '^insn ' "$f") insns, its reproducer compiles"
	fi
done
host_end fuzz-host "$t0" "the fuzzer's parts on the host"
[ "$host_fail" -eq 0 ]
