#!/bin/bash
# The user space every suite's build uses, made once per kernel build into
# $(userland_dir) and handed to each build (harness/suites.sh):
#   bpftool                            bpftool (bootstrap: vmlinux.h, gen
#                                      object, gen skeleton) from the tree
#   root/include, root/lib64/libbpf.a  the libbpf that build made, static,
#                                      from the tree (its uapi matches the
#                                      kernel)
#   vmlinux.h                          the build's BTF as C
# Each is stamped with what it is made from (lib/stamp.sh) and made again
# only when that changed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree=$(tree_dir)
build=$(build_dir)
dir=$(userland_dir)
jobs=$BJK_JOBS
[ -f "$build/vmlinux" ] || die "userland: $build/vmlinux missing (kernel not built?)"
mkdir -p "$dir"
exec 8>"$dir.lock"
flock 8

# make_logged LOG CMD...: CMD's output in LOG; on failure the log's tail.
make_logged() {
	local log=$1
	shift
	"$@" >"$log" 2>&1 || {
		tail -n 30 "$log" >&2
		die "userland: failed: $* (full log: $log)"
	}
}

# bpftool's bootstrap build makes the libbpf it links with (static, with
# its headers installed): that one build is every suite's libbpf too.
t0=$(now)
key=$(stamp_key "$tree"/tools/bpf/bpftool/*.[ch] "$tree"/tools/lib/bpf/*.[ch] \
	"$tree/tools/include/uapi/linux/bpf.h")
if ! stamp_fresh "$dir/bpftool.stamp" "$key" || [ ! -x "$dir/bpftool" ] ||
	[ ! -f "$dir/root/lib64/libbpf.a" ]; then
	stamp_clear "$dir/bpftool.stamp"
	rm -rf "$dir/bpftool.build" "$dir/bpftool" "$dir/root"
	mkdir -p "$dir/bpftool.build" "$dir/root/lib64"
	make_logged "$dir/bpftool.log" make -C "$tree/tools/bpf/bpftool" \
		OUTPUT="$dir/bpftool.build/" -j"$jobs" bootstrap
	lib=$dir/bpftool.build/bootstrap/libbpf
	[ -f "$lib/libbpf.a" ] && [ -f "$lib/include/bpf/libbpf.h" ] ||
		die "userland: no libbpf.a and headers in $lib after bpftool's build"
	cp -r "$lib/include" "$dir/root/include"
	cp "$lib/libbpf.a" "$dir/root/lib64/libbpf.a"
	cp "$dir/bpftool.build/bootstrap/bpftool" "$dir/bpftool.tmp"
	mv -f "$dir/bpftool.tmp" "$dir/bpftool"
	stamp_write "$dir/bpftool.stamp" "$key"
	note "userland: bpftool (bootstrap) and its libbpf built in $(since "$t0") (log: $dir/bpftool.log)"
fi

# The kernel build's own stamp says which build vmlinux is.
key=$(stamp_key "$build/.bjk-built" "$dir/bpftool.stamp")
if ! stamp_fresh "$dir/vmlinux.h.stamp" "$key" || [ ! -f "$dir/vmlinux.h" ]; then
	stamp_clear "$dir/vmlinux.h.stamp"
	"$dir/bpftool" btf dump file "$build/vmlinux" format c >"$dir/vmlinux.h.tmp" ||
		die "userland: bpftool btf dump file $build/vmlinux failed"
	mv -f "$dir/vmlinux.h.tmp" "$dir/vmlinux.h"
	stamp_write "$dir/vmlinux.h.stamp" "$key"
	note "userland: vmlinux.h from $build/vmlinux"
fi
note "userland: $dir (libbpf, bpftool, vmlinux.h)"
