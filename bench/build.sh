#!/bin/bash
# Build the benchmark's guest side:
#   bench/build.sh TREE BUILD OUT
# TREE: the patched kernel tree; BUILD: its O= build directory (unused: the
# programs need only uapi headers, so no vmlinux.h and no bpftool); OUT:
#   OUT/bjk-bench   the static runner (bench/runner.c) with the BPF object
#                   (bench/progs/bench.bpf.c) embedded
# libbpf is built (static) from TREE into OUT/work once and reused while its
# sources do not change. Run by the harness as tests/bench/build.sh.
set -euo pipefail

[ $# -eq 3 ] || { echo "usage: $0 TREE BUILD OUT" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
tree=$(cd "$1" && pwd)
mkdir -p "$3"
out=$(cd "$3" && pwd)
work=$out/work
clang=${CLANG:-clang-19}
jobs=${BJK_JOBS:-$(nproc)}
[ "$jobs" -gt 2 ] && jobs=2
mkdir -p "$work"

die() {
	echo "error: bench: $*" >&2
	exit 1
}

command -v "$clang" >/dev/null || die "$clang not found (apt-get install clang-19)"
[ -f /usr/lib/x86_64-linux-gnu/libelf.a ] || die "libelf.a missing (apt-get install libelf-dev)"
[ -f /usr/lib/x86_64-linux-gnu/libz.a ] || die "libz.a missing (apt-get install zlib1g-dev)"

t0=$SECONDS
key=$(cat "$tree"/tools/lib/bpf/*.[ch] | sha256sum | cut -c1-16)
if [ "$(cat "$work/libbpf.key" 2>/dev/null)" != "$key" ]; then
	echo "bench: libbpf (static) from $tree/tools/lib/bpf"
	rm -rf "$work/libbpf" "$work/root" "$work/libbpf.key"
	mkdir -p "$work/libbpf"
	make -s -C "$tree/tools/lib/bpf" BUILD_STATIC_ONLY=1 OUTPUT="$work/libbpf/" \
		DESTDIR="$work/root" prefix= -j"$jobs" install >"$work/libbpf.log" 2>&1 ||
		{ tail -20 "$work/libbpf.log" >&2; die "libbpf build failed ($work/libbpf.log)"; }
	echo "$key" >"$work/libbpf.key"
	echo "bench: libbpf built in $((SECONDS - t0))s"
fi
libbpf_a=$(find "$work/root" -name libbpf.a | head -1)
[ -n "$libbpf_a" ] || die "libbpf.a not found under $work/root"

# uapi linux/bpf.h from the tree (it matches the kernel); asm/ from the host.
"$clang" -g -O2 -target bpf -mcpu=v4 -Wall -Werror \
	-I"$tree/tools/include/uapi" -I"$work/root/include" \
	-idirafter /usr/include/x86_64-linux-gnu \
	-c "$here/progs/bench.bpf.c" -o "$work/bench.bpf.o"

cat >"$work/objects.S" <<EOS
	.section .rodata
	.balign 8
	.globl bjk_bpf_obj, bjk_bpf_obj_end
bjk_bpf_obj:
	.incbin "$work/bench.bpf.o"
bjk_bpf_obj_end:
	.section .note.GNU-stack,"",@progbits
EOS
gcc -static -O2 -g -Wall -Wextra -Werror -Wno-missing-field-initializers \
	-I"$work/root/include" -I"$tree/tools/include/uapi" \
	-o "$out/bjk-bench.tmp" "$here/runner.c" "$work/objects.S" \
	"$libbpf_a" -l:libelf.a -l:libz.a -lm
mv -f "$out/bjk-bench.tmp" "$out/bjk-bench"
echo "bench: $out/bjk-bench (in $((SECONDS - t0))s)"
