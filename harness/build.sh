#!/bin/bash
# Build bzImage and modules with ccache. A stamp records what the last good
# build was made from; when it matches and the tree is clean, make is skipped.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree=$(tree_dir)
build=$(build_dir)
stamp=$build/.bjk-built
log=$build/build.log
key="version=$(source_version) series=$(series_hash) fragment=$(sha256_file "$FRAGMENT") head=$(git -C "$tree" rev-parse HEAD)"

# One build per build directory at a time.
exec 8>"$build.lock"
flock 8

if stamp_fresh "$stamp" "$key" && git -C "$tree" diff --quiet HEAD &&
	[ -f "$build/arch/x86/boot/bzImage" ] && [ -f "$build/lib/test_bpf.ko" ]; then
	note "kernel: up to date (nothing rebuilt)"
	exit 0
fi
stamp_clear "$stamp"

kbuild_env
jobs=$BJK_JOBS

ccache -z >/dev/null 2>&1 || true
note "kernel: make -j$jobs bzImage modules in $build (log: $log)"
if ! make -C "$tree" O="$build" -j"$jobs" CC="ccache gcc" bzImage modules >"$log" 2>&1; then
	tail -n 40 "$log" >&2
	die "kernel build failed; full log: $log"
fi
ccache -s 2>/dev/null | grep -E '^ *(Hits|Misses):' | sed 's/^ */  ccache: /' || true
stamp_write "$stamp" "$key"
note "kernel: $build/arch/x86/boot/bzImage"
