#!/bin/bash
# Build what guest suites need besides the kernel: for each build for the
# kernel (suite_builds: the shared ones of harness/parts, then the suites'
# own, tests/NAME/build.sh), run it as `build.sh TREE BUILD OUT USERLAND`
# with OUT in the cache (suite_out) and USERLAND the libbpf, bpftool and vmlinux.h of the build (userland.sh);
# image.sh puts the regular files of OUT into the guest image as /<suite>/.
# Each script keeps its own caches (e.g. OUT/work).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# shellcheck source=SCRIPTDIR/tables.sh
. "$BJK_ROOT/harness/tables.sh"

tree=$(tree_dir)
build=$(build_dir)
userland=$(userland_dir)
# One run at a time builds a kernel's suites (modules against its build
# directory, shared work directories): a second waits, then finds them
# built.
exec 8>"$build.suites.lock"
flock 8
while read -r s b; do
	out=$(suite_out "$s")
	mkdir -p "$out"
	note "suites: $s: ${b#"$BJK_ROOT"/} (log: $out.log)"
	if ! bash "$b" "$tree" "$build" "$out" "$userland" >"$out.log" 2>&1; then
		tail -n 40 "$out.log" >&2
		die "building suite $s failed; full log: $out.log"
	fi
done < <(suite_builds)
