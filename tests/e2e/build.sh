#!/bin/bash
# Build what the guest needs for the e2e suite:
#   tests/e2e/build.sh TREE BUILD OUT USERLAND
# TREE: the patched kernel tree; BUILD: its O= build directory (built, with
# vmlinux); USERLAND: libbpf and vmlinux.h of the build (harness/userland.sh);
# OUT: where to put the results:
#   OUT/bjk_e2e.ko   the test module (kfuncs, module BTF)
#   OUT/bjk-e2e      the static runner (loader.c, audit.c, cases.c), with
#                    the BPF object embedded
# Needs no lock: the module build is a few seconds of make M= (see
# BJK_E2E_LOCK below). Intermediate files go to OUT/work.
set -euo pipefail

name=e2e
# shellcheck source=SCRIPTDIR/../../lib/build-common.sh
. "$(dirname "$0")/../../lib/build-common.sh"
need_kernel_built
need_clang
need_static_libs
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
bpf_core_object "$here/progs/e2e.bpf.c" "$work/e2e.bpf.o"

# the runner, static, with the BPF object embedded
embed_bpf_object "$work/e2e.bpf.o" "$work/objects.S"
gcc -static -O2 -g -Wall -Wextra -Wno-unused-result -Wno-missing-field-initializers \
	-I"$uinc" -I"$tree/tools/include/uapi" -I"$root/lib" \
	-o "$out/bjk-e2e.tmp" "$here/loader.c" "$here/audit.c" "$here/cases.c" "$work/objects.S" \
	"$libbpf_a" -l:libelf.a -l:libz.a

# The plan follows the tags' counters, not BTF's order: in order.bpf.c,
# BTF lists the second case's program first (progs/order.bpf.c says why).
bpf_core_object "$here/progs/order.bpf.c" "$work/order.bpf.o"
got=$("$out/bjk-e2e.tmp" -o "$work/order.bpf.o" -l -f h0.order. | tr '\n' ' ')
[ "$got" = "h0.order.first h0.order.second " ] ||
	die "bjk-e2e -l of progs/order.bpf.c: $got; want h0.order.first h0.order.second"
mv -f "$out/bjk-e2e.tmp" "$out/bjk-e2e"
echo "e2e: $out/bjk-e2e, $out/bjk_e2e.ko"
