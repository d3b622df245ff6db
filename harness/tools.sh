#!/bin/bash
# Compile the harness's C tools (harness/src/*.c, one program each) into
# $CACHE/tools, keyed by the sources' hash; nothing lands in the repository.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

src=$BJK_ROOT/harness/src
key=$(cat "$src"/*.c "$src"/*.h | sha256sum | cut -c1-64)
if [ "$(cat "$TOOLS/.key" 2>/dev/null)" = "$key" ]; then
	note "tools: up to date in $TOOLS"
	exit 0
fi
mkdir -p "$TOOLS"
rm -f "$TOOLS/.key"
built=()
for c in "$src"/*.c; do
	prog=$TOOLS/bjk-$(basename "$c" .c)
	gcc -O2 -g -Wall -Wextra -Werror -o "$prog.tmp" "$c"
	mv -f "$prog.tmp" "$prog"
	built+=("$(basename "$prog")")
done
echo "$key" >"$TOOLS/.key"
note "tools: built ${built[*]} in $TOOLS"
