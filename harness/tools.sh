#!/bin/bash
# Compile the host's C tools into $CACHE/tools, keyed by the sources' hash;
# nothing lands in the repository. One program each: the harness's console
# readers (harness/src/*.c -> bjk-splat, bjk-suite, bjk-summary, bjk-facts) and the
# benchmark's report (tests/bench/report.c -> bjk-bench-report, for make bench and
# tests/bench/check.sh). Run by prepare.sh, judge.sh and bench.sh; when
# nothing changed it rebuilds nothing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

src=$BJK_ROOT/harness/src
report=$BJK_ROOT/tests/bench/report.c
# lib/: reading a console and the KASAN report grammar the guest's programs
# use too (bjk-console.h, bjk-report.h)
key=$(stamp_key "$src"/*.c "$src"/*.h "$report" "$BJK_ROOT"/lib/*.h)
if stamp_fresh "$TOOLS/.key" "$key"; then
	note "tools: up to date in $TOOLS"
	exit 0
fi
mkdir -p "$TOOLS"
stamp_clear "$TOOLS/.key"
built=()
# build_tool C-FILE PROGRAM
build_tool() {
	local prog=$TOOLS/$2
	gcc -O2 -g -Wall -Wextra -Werror -I"$BJK_ROOT/lib" -o "$prog.tmp.$$" "$1" -lm
	mv -f "$prog.tmp.$$" "$prog"
	built+=("$2")
}
for c in "$src"/*.c; do
	build_tool "$c" "bjk-$(basename "$c" .c)"
done
build_tool "$report" bjk-bench-report
stamp_write "$TOOLS/.key" "$key"
note "tools: built ${built[*]} in $TOOLS"
