#!/bin/bash
# Install the Debian packages the harness needs; only the missing ones.
# Not root: print the one apt-get line to run and fail.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pkgs=(
	"$SOURCE_PKG"			# the kernel tree we patch
	build-essential bc bison flex libelf-dev libssl-dev	# kernel build
	dwarves				# pahole, for BTF
	ccache				# warm rebuilds
	clang-19 llvm-19 lld-19		# BPF C programs of later suites
	libcap-dev zlib1g-dev pkg-config	# tools/ (libbpf, bpftool, selftests)
	qemu-system-x86			# boots the test kernel
	seabios				# tools/vm: an MP table with PCI interrupts (9p)
	busybox-static cpio		# the guest initramfs
	python3				# tools/testing/kunit/kunit.py parse
	git rsync
	gnuplot-nox			# make bench's chart
)
# make test-full's guest runs the host's ip, tc and ethtool (harness/image.sh).
[ "$TIER" = full ] && pkgs+=(iproute2 ethtool)

missing=()
for p in "${pkgs[@]}"; do
	if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]; then
		missing+=("$p")
	fi
done

if [ "${#missing[@]}" -eq 0 ]; then
	note "packages: all ${#pkgs[@]} installed"
	exit 0
fi

note "packages: missing: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	printf 'error: not root, cannot install packages. Run:\n' >&2
	printf '  sudo apt-get update && sudo apt-get install -y %s\n' "${missing[*]}" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -q || die "apt-get update failed"
for p in "${missing[@]}"; do
	cand=$(apt-cache policy "$p" 2>/dev/null | awk '/Candidate:/ { print $2 }')
	if [ -z "$cand" ] || [ "$cand" = "(none)" ]; then
		die "package $p not found in the configured apt sources (apt-cache policy $p shows no candidate)"
	fi
done
apt-get install -y -q --no-install-recommends "${missing[@]}" ||
	die "apt-get install failed for: ${missing[*]}"
