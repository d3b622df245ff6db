#!/bin/bash
# Build the stress suite's guest side:
#   tests/stress/build.sh TREE BUILD OUT
# OUT/bjk-stress: the static runner (stress.c) with the BPF object
# (progs/stress.bpf.c) embedded. The programs need only uapi headers.
set -euo pipefail

name=stress
# shellcheck source=SCRIPTDIR/../../lib/build-common.sh
. "$(dirname "$0")/../../lib/build-common.sh"
need_clang
need_static_libs
t0=$SECONDS
libbpf_static

"$clang" -g -O2 -target bpf -mcpu=v4 -Wall -Werror \
	-I"$tree/tools/include/uapi" -I"$work/root/include" \
	-idirafter /usr/include/x86_64-linux-gnu \
	-c "$here/progs/stress.bpf.c" -o "$work/stress.bpf.o"
embed_bpf_object "$work/stress.bpf.o" "$work/objects.S"
gcc -static -O2 -g -Wall -Wextra -Werror -Wno-missing-field-initializers -pthread \
	-I"$work/root/include" -I"$tree/tools/include/uapi" \
	-o "$out/bjk-stress.tmp" "$here/stress.c" "$work/objects.S" \
	"$libbpf_a" -l:libelf.a -l:libz.a
mv -f "$out/bjk-stress.tmp" "$out/bjk-stress"
echo "stress: $out/bjk-stress (in $((SECONDS - t0))s)"
