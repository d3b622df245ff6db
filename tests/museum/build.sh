#!/bin/bash
# Build the guest side of the bug museum (the museum kernel's image only):
#   tests/museum/build.sh TREE BUILD OUT USERLAND
# OUT/bjk-museum: the reproducers and their runner (museum.c), static. The
# decoder, which names each report's program and instruction while the
# program is loaded, is tools/build.sh's, in this kernel's image too.
set -euo pipefail

name=museum
# shellcheck source=SCRIPTDIR/../../lib/build-common.sh
. "$(dirname "$0")/../../lib/build-common.sh"
need_static_libs
t0=$SECONDS
guest_program "$out/bjk-museum" "$here/museum.c"
echo "museum: $out/bjk-museum (in $((SECONDS - t0))s)"
