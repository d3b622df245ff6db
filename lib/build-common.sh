# shellcheck shell=bash disable=SC2034 # what it sets is for the sourcing script
# Sourced by the scripts that build what a suite needs, all run as
# `build.sh TREE BUILD OUT` (tests/*/build.sh by harness/suites.sh, and
# bench/build.sh): their common start and the steps more than one repeats.
# The script sets `set -euo pipefail` and name= (its messages' prefix)
# first. Afterwards:
#   here  the script's directory          root  the repository
#   tree  TREE, absolute                  build BUILD, absolute
#   out   OUT, absolute, created          work  OUT/work, created: the
#                                               script's own files and caches
#   clang ${CLANG:-clang-19}              jobs  ${BJK_JOBS:-$(nproc)}

: "${name:?set before sourcing lib/build-common.sh}"
[ $# -eq 3 ] || { echo "usage: $0 TREE BUILD OUT" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tree=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
mkdir -p "$3"
out=$(cd "$3" && pwd)
work=$out/work
clang=${CLANG:-clang-19}
jobs=${BJK_JOBS:-$(nproc)}
mkdir -p "$work"

die() {
	echo "error: $name: $*" >&2
	exit 1
}

need_kernel_built() {
	[ -f "$build/vmlinux" ] || die "$build/vmlinux missing (kernel not built?)"
	[ -f "$build/Module.symvers" ] || die "$build/Module.symvers missing (modules not built?)"
}

need_clang() {
	command -v "$clang" >/dev/null || die "$clang not found (apt-get install clang-19)"
}

# The guest's programs are static: it has no libraries of its own.
need_static_libs() {
	[ -f /usr/lib/x86_64-linux-gnu/libelf.a ] || die "libelf.a missing (apt-get install libelf-dev)"
	[ -f /usr/lib/x86_64-linux-gnu/libz.a ] || die "libz.a missing (apt-get install zlib1g-dev)"
}

# libbpf, static, from TREE (it matches the kernel's uapi), installed under
# WORK/root; built again only when its sources change. Sets libbpf_a.
libbpf_static() {
	local key t0=$SECONDS

	key=$(cat "$tree"/tools/lib/bpf/*.[ch] | sha256sum | cut -c1-16)
	if [ "$(cat "$work/libbpf.key" 2>/dev/null)" != "$key" ]; then
		echo "$name: libbpf (static) from $tree/tools/lib/bpf"
		rm -rf "$work/libbpf" "$work/root" "$work/libbpf.key"
		mkdir -p "$work/libbpf"
		make -s -C "$tree/tools/lib/bpf" BUILD_STATIC_ONLY=1 OUTPUT="$work/libbpf/" \
			DESTDIR="$work/root" prefix= -j"$jobs" install >"$work/libbpf.log" 2>&1 ||
			{ tail -20 "$work/libbpf.log" >&2; die "libbpf build failed ($work/libbpf.log)"; }
		echo "$key" >"$work/libbpf.key"
		echo "$name: libbpf built in $((SECONDS - t0))s"
	fi
	libbpf_a=$(find "$work/root" -name libbpf.a | head -1)
	[ -n "$libbpf_a" ] || die "libbpf.a not found under $work/root"
}

# embed_bpf_object OBJ S: an assembler file S that puts OBJ into a runner as
# bjk_bpf_obj[] .. bjk_bpf_obj_end[] (the object it loads unless -o names one).
embed_bpf_object() {
	cat >"$2" <<EOS
	.section .rodata
	.balign 8
	.globl bjk_bpf_obj, bjk_bpf_obj_end
bjk_bpf_obj:
	.incbin "$1"
bjk_bpf_obj_end:
	.section .note.GNU-stack,"",@progbits
EOS
}

# bpf_object SRC OBJ: a BPF program that needs only uapi headers (linux/bpf.h
# from the tree, which matches the kernel; asm/ from the host), for -mcpu=v4.
bpf_object() {
	"$clang" -g -O2 -target bpf -mcpu=v4 -Wall -Werror \
		-I"$tree/tools/include/uapi" -I"$work/root/include" \
		-idirafter /usr/include/x86_64-linux-gnu -c "$1" -o "$2"
}

# guest_program OUT SOURCE... [-lLIB...]: a static program for the guest
# with libbpf (libbpf_static first), the tree's uapi and lib/ headers;
# written to OUT.tmp, renamed to OUT once whole.
guest_program() {
	local dst=$1
	shift
	gcc -static -O2 -g -Wall -Wextra -Werror -Wno-missing-field-initializers -pthread \
		-I"$work/root/include" -I"$tree/tools/include/uapi" -I"$root/lib" \
		-o "$dst.tmp" "$@" "$libbpf_a" -l:libelf.a -l:libz.a
	mv -f "$dst.tmp" "$dst"
}
