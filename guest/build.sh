#!/bin/bash
# Build the guest side of tools/vm besides its script (guest/vm.sh):
#   guest/build.sh TREE BUILD OUT USERLAND
#   OUT/kmsg-copy   the guest's copy of its kernel log (kmsg-copy.c),
#                   static: in the guest as /guest/kmsg-copy
set -euo pipefail

name=guest
# shellcheck source=SCRIPTDIR/../lib/build-common.sh
. "$(dirname "$0")/../lib/build-common.sh"
gcc -static -O2 -Wall -Wextra -o "$out/kmsg-copy.tmp" "$here/kmsg-copy.c"
mv -f "$out/kmsg-copy.tmp" "$out/kmsg-copy"
echo "guest: $out/kmsg-copy"
