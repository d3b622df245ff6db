#!/bin/bash
# The guest image: a gzip'ed cpio (newc) with busybox-static, guest/init as
# /init, the guest side of the suites (each tests/<suite>/guest.sh as
# /tests/<suite>.sh), the test modules (/lib/modules/) and what its builds
# made (/<name>/). Made with the tree's own usr/gen_init_cpio from a
# spec (so /dev/console needs no root), into a temp file, then renamed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# shellcheck source=SCRIPTDIR/tables.sh
. "$BJK_ROOT/harness/tables.sh"

build=$(build_dir)
out=$(image_path)
gen=$build/usr/gen_init_cpio
busybox=/bin/busybox
# Modules the suites load, relative to the build directory.
modules=$BJK_IMAGE_MODULES
# The full tier's test_progs runs "ip netns", "tc" and "ethtool" through
# system(): busybox's ip has no netns, and busybox has no tc or ethtool.
# The host's iproute2 and ethtool go in (harness/deps.sh installs them for
# the tier), at /sbin where busybox --install (guest/init) leaves what is
# there alone, with the shared libraries ldd names at their own paths; and
# /bin/sh, which system() runs, is the host's dash: busybox's sh runs its
# own applet for a command of that name before it looks in PATH.
# "GUEST-PATH:HOST-PATH" each.
host_bins=()
[ "$TIER" = full ] && host_bins=(/sbin/ip:/usr/sbin/ip /sbin/tc:/usr/sbin/tc
	/sbin/ethtool:/usr/sbin/ethtool /bin/sh:/bin/dash)

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
	echo "file /lib/bjk-ktap.awk $BJK_ROOT/guest/ktap.awk 0644 0 0"
	while read -r s t _; do
		echo "file /tests/$s.sh $t 0644 0 0"
	done < <(suite_scripts)
	declare -A libs=()
	for gb in "${host_bins[@]}"; do
		b=${gb#*:}
		[ -x "$b" ] || die "$b missing (harness/deps.sh installs it for BJK_TIER=full)"
		echo "file ${gb%%:*} $(readlink -f "$b") 0755 0 0"
		while read -r l; do
			libs[$l]=1
		done < <(ldd "$b" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
	done
	if [ "${#host_bins[@]}" -gt 0 ]; then
		# ip netns keeps its namespaces in /var/run/netns, and test_progs
		# opens them there.
		echo "dir /var 0755 0 0"
		echo "slink /var/run /run 0777 0 0"
		for d in $(dirname "${!libs[@]}" | sort -u); do
			echo "dir $d 0755 0 0"
		done
	fi
	for l in "${!libs[@]}"; do
		echo "file $l $(readlink -f "$l") 0755 0 0"
	done
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
