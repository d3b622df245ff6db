# shellcheck shell=bash disable=SC2034 # what it sets is for the sourcing script
# Sourced by the scripts that build what a suite needs, all run as
# `build.sh TREE BUILD OUT USERLAND` (the builds of harness/suites.sh, by
# harness/suites.sh): their common start and the steps more than one
# repeats. USERLAND: what harness/userland.sh made for the kernel build.
# The script sets `set -euo pipefail` and name= (its messages' prefix)
# first. Afterwards:
#   here  the script's directory          root  the repository
#   tree  TREE, absolute                  build BUILD, absolute
#   userland USERLAND, absolute
#   out   OUT, absolute, created          work  OUT/work, created: the
#                                               script's own files and caches
#   clang ${CLANG:-clang-19}              jobs  ${BJK_JOBS:-$(nproc)}

: "${name:?set before sourcing lib/build-common.sh}"
[ $# -eq 4 ] || { echo "usage: $0 TREE BUILD OUT USERLAND" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tree=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
mkdir -p "$3"
out=$(cd "$3" && pwd)
userland=$(cd "$4" && pwd)
work=$out/work
# shellcheck source=SCRIPTDIR/stamp.sh
. "$root/lib/stamp.sh"
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

# What harness/userland.sh made once for the kernel build (USERLAND):
# libbpf_a (static libbpf), uinc (its headers' include directory), bpftool,
# vmlinux_h (the build's BTF as C).
libbpf_a=$userland/root/lib64/libbpf.a
uinc=$userland/root/include
bpftool=$userland/bpftool
vmlinux_h=$userland/vmlinux.h
for f in "$libbpf_a" "$uinc/bpf/libbpf.h" "$bpftool" "$vmlinux_h"; do
	[ -e "$f" ] || die "$f missing: run harness/userland.sh first (make test does)"
done

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

# bpf_cc SRC OBJ [CLANG ARGS...]: a BPF object for -mcpu=v4, compiled from
# the repository's root with SRC named from there: its BTF line info, and so
# the kernel's reports and the decoder, name ./<path>, not this machine's
# checkout, and keep each line's text.
bpf_cc() {
	local src=$1 obj=$2
	shift 2
	(cd "$root" && "$clang" -g -O2 -target bpf -mcpu=v4 -Wall -Werror \
		-fdebug-compilation-dir=. "$@" -c "${src#"$root"/}" -o "$obj")
}

# bpf_object SRC OBJ: a BPF program that needs only uapi headers (linux/bpf.h
# from the tree, which matches the kernel; asm/ from the host).
bpf_object() {
	bpf_cc "$1" "$2" -I"$tree/tools/include/uapi" -I"$uinc" \
		-idirafter /usr/include/x86_64-linux-gnu
}

# bpf_core_object SRC OBJ [CLANG ARGS...]: a CO-RE BPF program, with the
# build's BTF as C (USERLAND's vmlinux.h) and libbpf's bpf_helpers.h.
bpf_core_object() {
	local src=$1 obj=$2
	shift 2
	bpf_cc "$src" "$obj" -I"$userland" -I"$uinc" "$@"
}

# guest_program OUT SOURCE... [-lLIB...]: a static program for the guest
# with libbpf, the tree's uapi and lib/ headers;
# written to OUT.tmp, renamed to OUT once whole.
guest_program() {
	local dst=$1
	shift
	gcc -static -O2 -g -Wall -Wextra -Werror -Wno-missing-field-initializers -pthread \
		-I"$uinc" -I"$tree/tools/include/uapi" -I"$root/lib" \
		-o "$dst.tmp" "$@" "$libbpf_a" -l:libelf.a -l:libz.a
	mv -f "$dst.tmp" "$dst"
}
