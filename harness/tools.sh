#!/bin/bash
# Compile the harness's C tools (harness/src/*.c, one program each) into
# $CACHE/tools, keyed by the sources' hash; nothing lands in the repository.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

src=$BJK_ROOT/harness/src
# lib/: reading a console, the KASAN report grammar (bjk-console.h)
key=$(stamp_key "$src"/*.c "$src"/*.h "$BJK_ROOT"/lib/*.h)
if stamp_fresh "$TOOLS/.key" "$key"; then
	note "tools: up to date in $TOOLS"
	exit 0
fi
mkdir -p "$TOOLS"
stamp_clear "$TOOLS/.key"
built=()
for c in "$src"/*.c; do
	prog=$TOOLS/bjk-$(basename "$c" .c)
	gcc -O2 -g -Wall -Wextra -Werror -I"$BJK_ROOT/lib" -o "$prog.tmp" "$c"
	mv -f "$prog.tmp" "$prog"
	built+=("$(basename "$prog")")
done
stamp_write "$TOOLS/.key" "$key"
note "tools: built ${built[*]} in $TOOLS"
