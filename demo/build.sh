#!/bin/bash
# Build make run's demo, for the host:
#   demo/build.sh TREE BUILD OUT USERLAND
#   OUT/host/bjk-demo     the loader (demo.c), dynamic: it runs in the VM
#   OUT/host/demo.bpf.o   through the shared root (tools/vm), as any host
#                         program does
# (OUT/host/ is a directory, so the image leaves it out.)
set -euo pipefail

name=demo
# shellcheck source=SCRIPTDIR/../lib/build-common.sh
. "$(dirname "$0")/../lib/build-common.sh"
need_clang
mkdir -p "$out/host"
bpf_core_object "$here/demo.bpf.c" "$out/host/demo.bpf.o"
gcc -O2 -g -Wall -Wextra -I"$uinc" -I"$tree/tools/include/uapi" \
	-o "$out/host/bjk-demo.tmp" "$here/demo.c" "$libbpf_a" -lelf -lz
mv -f "$out/host/bjk-demo.tmp" "$out/host/bjk-demo"
echo "demo: $out/host/bjk-demo, $out/host/demo.bpf.o"
