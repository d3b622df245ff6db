#!/bin/bash
# The guest image: a gzip'ed cpio (newc) with busybox-static, guest/init as
# /init, the guest side of the suites (harness/parts' suites as
# /tests/<suite>.sh), the test modules (/lib/modules/) and what its builds
# made (/<name>/). Made with the tree's own usr/gen_init_cpio from a
# spec (so /dev/console needs no root), into a temp file, then renamed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

build=$(build_dir)
out=$(image_path)
gen=$build/usr/gen_init_cpio
busybox=/bin/busybox
# Modules the suites load, relative to the build directory.
modules=${BJK_IMAGE_MODULES-lib/test_bpf.ko}

[ -x "$gen" ] || die "$gen missing (kernel not built?)"
! readelf -l "$busybox" | grep -q INTERP || die "$busybox is not static (install busybox-static)"

mkdir -p "$CACHE/image"
work=$(mktemp -d "$CACHE/image/.work.XXXXXX")
trap 'rm -rf "$work"' EXIT

{
	for d in /bin /sbin /usr /usr/bin /usr/sbin /dev /proc /sys /tmp /run /tests /lib /lib/modules; do
		echo "dir $d 0755 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "file /bin/busybox $busybox 0755 0 0"
	echo "file /init $BJK_ROOT/guest/init 0755 0 0"
	echo "file /lib/bjk.sh $BJK_ROOT/guest/lib.sh 0644 0 0"
	while read -r s t _; do
		echo "file /tests/$s.sh $t 0644 0 0"
	done < <(part_lines suite)
	for m in $modules; do
		[ -f "$build/$m" ] || die "module $m not found in $build (is it =m in the fragment?)"
		strip --strip-debug -o "$work/$(basename "$m")" "$build/$m"
		echo "file /lib/modules/$(basename "$m") $work/$(basename "$m") 0644 0 0"
	done
	while read -r s _; do
		echo "dir /$s 0755 0 0"
		for f in "$(suite_out "$s")"/*; do
			[ -f "$f" ] || continue
			mode=0644
			[ -x "$f" ] && mode=0755
			echo "file /$s/$(basename "$f") $f $mode 0 0"
		done
	done < <(suite_builds)
} >"$work/spec"

"$gen" "$work/spec" | gzip -n -1 >"$work/image.cpio.gz"
mv -f "$work/image.cpio.gz" "$out"
note "image: $out ($(du -k "$out" | cut -f1) KiB; modules: ${modules:-none})"
