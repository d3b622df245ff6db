#!/bin/bash
# make clean-cache: delete the cache (tree, builds, ccache, images, logs).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$CACHE" ] || { note "cache: $CACHE does not exist"; exit 0; }
note "cache: deleting $CACHE ($(du -sh "$CACHE" | cut -f1))"
rm -rf "$CACHE"
