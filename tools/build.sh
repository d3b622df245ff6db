#!/bin/bash
# Build the decoder for the guest and the host:
#   tools/build.sh TREE BUILD OUT USERLAND
#   OUT/bjk-decode   the decoder (bjk-decode.c), static: in every kernel's
#                    guest image as /tools/bjk-decode, and run on the host
#                    by tools/vm
set -euo pipefail

name=tools
# shellcheck source=SCRIPTDIR/../lib/build-common.sh
. "$(dirname "$0")/../lib/build-common.sh"
need_static_libs
# The kernel's own BPF disassembler (kernel/bpf/disasm.c, what bpftool
# prints with) gives the instruction's text.
gcc -static -O2 -g -Wall -Wextra -Wno-missing-field-initializers -I"$uinc" \
	-D__EXPORTED_HEADERS__ -I"$tree/kernel/bpf" -I"$tree/tools/include" \
	-I"$tree/tools/include/uapi" -I"$root/lib" -o "$out/bjk-decode.tmp" \
	"$here/bjk-decode.c" "$tree/kernel/bpf/disasm.c" "$libbpf_a" -l:libelf.a -l:libz.a
mv -f "$out/bjk-decode.tmp" "$out/bjk-decode"
echo "tools: $out/bjk-decode"
