#!/bin/bash
# Build the benchmark's guest side:
#   bench/build.sh TREE BUILD OUT
# TREE: the patched kernel tree; BUILD: its O= build directory (unused: the
# programs need only uapi headers, so no vmlinux.h and no bpftool); OUT:
#   OUT/bjk-bench   the static runner (bench/runner.c) with the BPF object
#                   (bench/progs/bench.bpf.c) embedded
# libbpf is built (static) from TREE into OUT/work once and reused while its
# sources do not change. Run by the harness as tests/bench/build.sh.
set -euo pipefail

name=bench
# shellcheck source=SCRIPTDIR/../lib/build-common.sh
. "$(dirname "$0")/../lib/build-common.sh"
[ "$jobs" -gt 2 ] && jobs=2
need_clang
need_static_libs
t0=$SECONDS
libbpf_static

# uapi linux/bpf.h from the tree (it matches the kernel); asm/ from the host.
"$clang" -g -O2 -target bpf -mcpu=v4 -Wall -Werror \
	-I"$tree/tools/include/uapi" -I"$work/root/include" \
	-idirafter /usr/include/x86_64-linux-gnu \
	-c "$here/progs/bench.bpf.c" -o "$work/bench.bpf.o"

embed_bpf_object "$work/bench.bpf.o" "$work/objects.S"
gcc -static -O2 -g -Wall -Wextra -Werror -Wno-missing-field-initializers \
	-I"$work/root/include" -I"$tree/tools/include/uapi" -I"$root/lib" \
	-o "$out/bjk-bench.tmp" "$here/runner.c" "$work/objects.S" \
	"$libbpf_a" -l:libelf.a -l:libz.a -lm
mv -f "$out/bjk-bench.tmp" "$out/bjk-bench"
echo "bench: $out/bjk-bench (in $((SECONDS - t0))s)"
