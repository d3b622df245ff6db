#!/bin/bash
# Build the live exhibits for the series' kernel:
#   tests/live/build.sh TREE BUILD OUT USERLAND
# OUT/bjk-live: the reproducers of bugs the kernel still has and their
# runner (tests/museum/live.c, the museum's live part), static. The museum
# kernel's image gets the same program from tests/museum/build.sh, for the
# interpreter's boot.
set -euo pipefail

name=live
# shellcheck source=SCRIPTDIR/../../lib/build-common.sh
. "$(dirname "$0")/../../lib/build-common.sh"
need_static_libs
guest_program "$out/bjk-live" "$root/tests/museum/live.c"
echo "live: $out/bjk-live"
