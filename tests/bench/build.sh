#!/bin/bash
# Build the benchmark's guest side:
#   tests/bench/build.sh TREE BUILD OUT USERLAND
# TREE: the patched kernel tree; BUILD: its O= build directory (unused: the
# programs need only uapi headers); USERLAND: libbpf (harness/userland.sh);
# OUT:
#   OUT/bjk-bench   the static runner (tests/bench/runner.c) with the BPF object
#                   (tests/bench/progs/bench.bpf.c) embedded
# Run by the harness's suites stage for both kernels (both run bench boots).
set -euo pipefail

name=bench
# shellcheck source=SCRIPTDIR/../../lib/build-common.sh
. "$(dirname "$0")/../../lib/build-common.sh"
[ "$jobs" -gt 2 ] && jobs=2
need_clang
need_static_libs
t0=$SECONDS

bpf_object "$here/progs/bench.bpf.c" "$work/bench.bpf.o"
embed_bpf_object "$work/bench.bpf.o" "$work/objects.S"
guest_program "$out/bjk-bench" "$here/runner.c" "$work/objects.S" -lm \
	-Wl,--wrap=syscall
echo "bench: $out/bjk-bench (in $((SECONDS - t0))s)"
