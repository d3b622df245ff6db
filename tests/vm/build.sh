#!/bin/bash
# Build what `tools/vm` and `make run` need:
#   tests/vm/build.sh TREE BUILD OUT USERLAND
#   OUT/bjk-decode        the decoder (tools/bjk-decode.c), static: in the
#                         guest as /vm/bjk-decode, and run on the host too
#   OUT/kmsg-copy         the guest agent's copy of /dev/kmsg (guest/), static
#   OUT/host/bjk-demo     make run's demo loader (demo/demo.c), dynamic, for
#   OUT/host/demo.bpf.o   the host: it runs in the VM through the shared root
# (OUT/host/ is a directory, so image.sh leaves it out of the guest image.)
set -euo pipefail

name=vm
# shellcheck source=SCRIPTDIR/../../lib/build-common.sh
. "$(dirname "$0")/../../lib/build-common.sh"
mkdir -p "$out/host"
inc=(-I"$uinc" -D__EXPORTED_HEADERS__ -I"$tree/kernel/bpf" -I"$tree/tools/include"
	-I"$tree/tools/include/uapi" -I"$root/lib")

# The decoder: the kernel's own BPF disassembler (kernel/bpf/disasm.c, what
# bpftool prints with) gives the instruction's text.
gcc -static -O2 -g -Wall -Wextra -Wno-missing-field-initializers "${inc[@]}" \
	-o "$out/bjk-decode.tmp" "$root/tools/bjk-decode.c" "$tree/kernel/bpf/disasm.c" \
	"$libbpf_a" -l:libelf.a -l:libz.a
mv -f "$out/bjk-decode.tmp" "$out/bjk-decode"

gcc -static -O2 -Wall -Wextra -o "$out/kmsg-copy.tmp" "$root/guest/kmsg-copy.c"
mv -f "$out/kmsg-copy.tmp" "$out/kmsg-copy"

# The demo
"$clang" -g -O2 -target bpf -mcpu=v4 -Wall -Werror -I"$userland" -I"$uinc" \
	-c "$root/demo/demo.bpf.c" -o "$out/host/demo.bpf.o"
gcc -O2 -g -Wall -Wextra -I"$uinc" -I"$tree/tools/include/uapi" \
	-o "$out/host/bjk-demo.tmp" "$root/demo/demo.c" "$libbpf_a" -lelf -lz
mv -f "$out/host/bjk-demo.tmp" "$out/host/bjk-demo"
echo "vm: $out/bjk-decode, $out/kmsg-copy, $out/host/bjk-demo, $out/host/demo.bpf.o"
