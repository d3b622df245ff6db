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

bpf_object "$here/progs/bench.bpf.c" "$work/bench.bpf.o"
embed_bpf_object "$work/bench.bpf.o" "$work/objects.S"
guest_program "$out/bjk-bench" "$here/runner.c" "$work/objects.S" -lm
echo "bench: $out/bjk-bench (in $((SECONDS - t0))s)"
