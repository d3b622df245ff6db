#!/bin/bash
# Build the guest side of the bug museum (the museum kernel's image only):
#   tests/museum/build.sh TREE BUILD OUT USERLAND
# OUT/bjk-museum: the reproducers and their runner (museum.c); OUT/bjk-decode:
# the decoder (tools/bjk-decode.c), which names each report's program and
# instruction while the program is loaded. Both static.
set -euo pipefail

name=museum
# shellcheck source=SCRIPTDIR/../../lib/build-common.sh
. "$(dirname "$0")/../../lib/build-common.sh"
need_static_libs
t0=$SECONDS
guest_program "$out/bjk-museum" "$here/museum.c"
guest_program "$out/bjk-live" "$here/live.c"	# the live exhibits, for the interpreter (tests/live.sh)
gcc -static -O2 -g -Wall -Wextra -Wno-missing-field-initializers -I"$uinc" \
	-D__EXPORTED_HEADERS__ -I"$tree/kernel/bpf" -I"$tree/tools/include" \
	-I"$tree/tools/include/uapi" -I"$root/lib" -o "$out/bjk-decode.tmp" \
	"$root/tools/bjk-decode.c" "$tree/kernel/bpf/disasm.c" "$libbpf_a" -l:libelf.a -l:libz.a
mv -f "$out/bjk-decode.tmp" "$out/bjk-decode"
echo "museum: $out/bjk-museum, $out/bjk-decode (in $((SECONDS - t0))s)"
