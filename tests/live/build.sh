#!/bin/bash
# Build the live exhibits, for every kernel whose boots run them (the
# series', and the museum's for its interpreter's boot):
#   tests/live/build.sh TREE BUILD OUT USERLAND
# OUT/bjk-live: the reproducers of bugs the kernel still has and their
# runner (live.c, the museum's live part), static.
set -euo pipefail

name=live
# shellcheck source=SCRIPTDIR/../../lib/build-common.sh
. "$(dirname "$0")/../../lib/build-common.sh"
need_static_libs
guest_program "$out/bjk-live" "$here/live.c"
echo "live: $out/bjk-live"
