#!/bin/bash
# Build what the guest needs for the e2e suite:
#   tests/e2e/build.sh TREE BUILD OUT
# TREE: the patched kernel tree; BUILD: its O= build directory (built, with
# vmlinux); OUT: where to put the results:
#   OUT/bjk_e2e.ko   the test module (kfuncs, module BTF)
#   OUT/bjk-e2e      the static runner, with the BPF object embedded
# Needs no lock: the module build is a few seconds of make M= (see
# BJK_E2E_LOCK below). Intermediate files go to OUT/work. libbpf and bpftool (bootstrap) are
# built from TREE once and reused while their sources do not change.
set -euo pipefail

name=e2e
# shellcheck source=SCRIPTDIR/../../lib/build-common.sh
. "$(dirname "$0")/../../lib/build-common.sh"
need_kernel_built
need_clang
need_static_libs
libbpf_static

# bpftool (bootstrap: enough for vmlinux.h)
bpftool=$work/bpftool/bootstrap/bpftool
key=$(cat "$tree"/tools/bpf/bpftool/*.[ch] | sha256sum | cut -c1-16)
if [ "$(cat "$work/bpftool.key" 2>/dev/null)" != "$key" ] || [ ! -x "$bpftool" ]; then
	echo "e2e: bpftool (bootstrap) from $tree/tools/bpf/bpftool"
	rm -rf "$work/bpftool"
	mkdir -p "$work/bpftool"
	make -s -C "$tree/tools/bpf/bpftool" OUTPUT="$work/bpftool/" -j"$jobs" bootstrap \
		>"$work/bpftool.log" 2>&1 ||
		{ tail -20 "$work/bpftool.log" >&2; die "bpftool build failed ($work/bpftool.log)"; }
	echo "$key" >"$work/bpftool.key"
fi

# vmlinux.h from the build's BTF
"$bpftool" btf dump file "$build/vmlinux" format c >"$work/vmlinux.h.tmp"
mv -f "$work/vmlinux.h.tmp" "$work/vmlinux.h"

# the module (a copy: kbuild writes next to the sources)
rm -rf "$work/module"
cp -r "$here/module" "$work/module"
# BJK_E2E_LOCK: a lock file to hold around this kernel-tree make (for runs
# outside the harness, next to other kernel builds; the harness needs none).
${BJK_E2E_LOCK:+flock "$BJK_E2E_LOCK"} \
	make -s -C "$tree" O="$build" M="$work/module" -j"$jobs" modules >"$work/module.log" 2>&1 ||
	{ tail -20 "$work/module.log" >&2; die "module build failed ($work/module.log)"; }
strip --strip-debug -o "$out/bjk_e2e.ko" "$work/module/bjk_e2e.ko"

# the BPF programs
"$clang" -g -O2 -target bpf -mcpu=v4 -Wall -Werror -I"$work" -I"$work/root/include" \
	-c "$here/progs/e2e.bpf.c" -o "$work/e2e.bpf.o"

# the runner, static, with the BPF object embedded
embed_bpf_object "$work/e2e.bpf.o" "$work/objects.S"
gcc -static -O2 -g -Wall -Wextra -Wno-unused-result -Wno-missing-field-initializers \
	-I"$work/root/include" -I"$tree/tools/include/uapi" -I"$root/lib" \
	-o "$out/bjk-e2e.tmp" "$here/runner.c" "$work/objects.S" \
	"$libbpf_a" -l:libelf.a -l:libz.a
mv -f "$out/bjk-e2e.tmp" "$out/bjk-e2e"
echo "e2e: $out/bjk-e2e, $out/bjk_e2e.ko"
