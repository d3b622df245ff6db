#!/bin/bash
# Build the fuzzer (tools/fuzz/, docs/fuzz.md):
#   tools/fuzz/build.sh TREE BUILD OUT USERLAND
#   OUT/bjk-fuzz   the fuzzer, static: in the museum kernel's image as
#                  /fuzz/bjk-fuzz, and run from the host's path by
#                  tools/fuzz/run (the guest's root is the host's there)
#   OUT/tv-N.prog  seeds: the raw-instruction programs of the tree's own
#                  test_verifier that use only the fuzzer's maps (tv_seeds.c)
set -euo pipefail

name=fuzz
# shellcheck source=SCRIPTDIR/../../lib/build-common.sh
. "$(dirname "$0")/../../lib/build-common.sh"
need_static_libs
t0=$SECONDS
guest_program "$out/bjk-fuzz" "$here/fuzz.c" "$here/gen.c" "$here/progfile.c" "$here/repro.c"
echo "fuzz: $out/bjk-fuzz (in $((SECONDS - t0))s)"
