#!/bin/bash
# Build the guest side of the suites under load and faults:
#   tests/stress/build.sh TREE BUILD OUT USERLAND
# OUT/bjk-stress: the stress suite's runner (stress.c) with the BPF object
# (progs/stress.bpf.c) embedded; OUT/bjk-faults: the fault-injection suite's
# (faults.c, raw programs). Both static; uapi headers only.
set -euo pipefail

name=stress
# shellcheck source=SCRIPTDIR/../../lib/build-common.sh
. "$(dirname "$0")/../../lib/build-common.sh"
need_clang
need_static_libs
t0=$SECONDS

bpf_object "$here/progs/stress.bpf.c" "$work/stress.bpf.o"
embed_bpf_object "$work/stress.bpf.o" "$work/objects.S"
guest_program "$out/bjk-stress" "$here/stress.c" "$work/objects.S"
guest_program "$out/bjk-faults" "$here/faults.c"
echo "stress: $out/bjk-stress, $out/bjk-faults (in $((SECONDS - t0))s)"
