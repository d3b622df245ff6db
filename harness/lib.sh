# shellcheck shell=bash disable=SC2034
# Shared by every harness script: settings, paths, the kernel it works on,
# stage timing, errors. Sourced, not executed; the scripts that source it
# use `set -euo pipefail` and source besides what they use of:
#   harness/tables.sh    the suites' folders, harness/parts, the boot tables
#   harness/boots.sh     the boot loop: the boots of a run, QEMU's options
#   harness/verdicts.sh  KTAP verdicts, host tests' cases, checks across boots

BJK_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=SCRIPTDIR/settings.sh
. "$BJK_ROOT/harness/settings.sh"
CACHE=$BJK_CACHE
SOURCE_PKG=$BJK_SOURCE_PKG
FRAGMENT=$(readlink -f "$BJK_CONFIG_FRAGMENT")
PATCHES=$(readlink -f "$BJK_PATCHES")
TOOLS=$CACHE/tools
export BJK_ROOT CACHE
# shellcheck source=SCRIPTDIR/../lib/stamp.sh
. "$BJK_ROOT/lib/stamp.sh"

# fragment_over NAME OVER: FRAGMENT's lines but those OVER sets, then OVER;
# prints the file it makes in the cache, named NAME-<hash of its contents>
# (the build directory's key).
fragment_over() {
	local frag file
	frag=$(awk 'NR == FNR { if (match($0, /CONFIG_[A-Za-z0-9_]+/)) over[substr($0, RSTART, RLENGTH)] = 1; next }
		!(match($0, /CONFIG_[A-Za-z0-9_]+/) && substr($0, RSTART, RLENGTH) in over)' "$2" "$FRAGMENT"
		cat "$2")
	file=$CACHE/fragments/$1-$(printf '%s\n' "$frag" | sha256sum | cut -c1-12).config
	if [ ! -f "$file" ]; then
		mkdir -p "$CACHE/fragments"
		printf '%s\n' "$frag" >"$file.tmp.$$"
		mv -f "$file.tmp.$$" "$file"
	fi
	echo "$file"
}

# The kernel a stage works on. "series": patches/ and FRAGMENT, what every
# suite tests. "museum" (BJK_VARIANT=museum; the boots of tests/boots whose
# rows say kernel=museum): the series plus tests/museum/museum.patch, which
# re-creates historical verifier bugs behind switches, and FRAGMENT with
# tests/museum/museum.config over it; a tree, a build and an image of its
# own, never mixed with the series' ones.
VARIANT=$BJK_VARIANT
case "$VARIANT" in
series) ;;
museum) FRAGMENT=$(fragment_over museum "$BJK_ROOT/tests/museum/museum.config") ;;
*)
	printf 'error: BJK_VARIANT=%s: want series or museum\n' "$VARIANT" >&2
	exit 1
	;;
esac
export BJK_VARIANT=$VARIANT

# The configuration FRAGMENT goes onto. "project": allnoconfig, the small
# kernel of every other run. "bpf-ci" (make test-bpf-ci): BPF CI's, the
# tree's tools/testing/selftests/bpf/config, config.vm and config.x86_64
# over Kconfig's defaults (kconfig below), with FRAGMENT and then
# harness/config/bpf-ci.config (lockdep, PREEMPT, 5-level paging, KASLR)
# over them; for either variant, a build of its own.
KCONFIG=$BJK_KCONFIG
case "$KCONFIG" in
project) ;;
bpf-ci) FRAGMENT=$(fragment_over bpf-ci "$BJK_ROOT/harness/config/bpf-ci.config") ;;
*)
	printf 'error: BJK_KCONFIG=%s: want project or bpf-ci\n' "$KCONFIG" >&2
	exit 1
	;;
esac
export BJK_KCONFIG=$KCONFIG

# The tier: empty for make test (tests/boots), "full" for make test-full
# (BJK_TIER=full: the boots of tests/boots-full, and the builds of
# harness/parts whose tier field says full, which make test never needs).
TIER=$BJK_TIER
case "$TIER" in
'' | full) ;;
*)
	printf 'error: BJK_TIER=%s: want full or nothing\n' "$TIER" >&2
	exit 1
	;;
esac
export BJK_TIER=$TIER

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

note() {
	printf '%s\n' "$*"
}

now() {
	date +%s.%N
}

# since T0: seconds elapsed since T0 (from now), e.g. "12.3s".
since() {
	awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'
}

# stage NAME CMD...: announce a stage, run it, say how long it took.
# (The locals have odd names: bash's dynamic scoping shows them to CMD.)
stage() {
	local _stage_name=$1 _stage_t0 _stage_rc=0
	shift
	printf '==> %s\n' "$_stage_name"
	_stage_t0=$(now)
	"$@" || _stage_rc=$?
	if [ "$_stage_rc" -eq 0 ]; then
		printf '%s: done in %s\n' "$_stage_name" "$(since "$_stage_t0")"
	else
		printf '%s: FAILED after %s\n' "$_stage_name" "$(since "$_stage_t0")" >&2
	fi
	return "$_stage_rc"
}

sha256_file() {
	sha256sum "$1" | cut -c1-64
}

# The installed kernel source package version, e.g. 6.12.118-1~deb12u1.
source_version() {
	dpkg-query -W -f='${Version}' "$SOURCE_PKG" 2>/dev/null ||
		die "package $SOURCE_PKG is not installed (run harness/deps.sh)"
}

# The series: patches/*.patch in order, without the cover letter.
# The museum kernel: the series, then tests/museum/museum.patch. BPF CI's
# configuration (KCONFIG=bpf-ci) then harness/config/bpf-ci-*.patch: fixes
# of 6.12.118, not of the series, for what that configuration's debug
# options make fail (each patch says why; make test's kernels never meet
# them). They share the tree: going from one configuration to the other
# re-applies only those commits, and rebuilds only the files they touch.
series_files() {
	series_patches
	if [ "$VARIANT" = museum ]; then
		echo "$BJK_ROOT/tests/museum/museum.patch"
	fi
	if [ "$KCONFIG" = bpf-ci ]; then
		find "$BJK_ROOT/harness/config" -maxdepth 1 -name 'bpf-ci-*.patch' | LC_ALL=C sort
	fi
}

# series_patches: patches/ alone, in order, without the cover letter.
series_patches() {
	if [ -d "$PATCHES" ]; then
		find "$PATCHES" -maxdepth 1 -name '*.patch' ! -name '0000-cover-letter.patch' | LC_ALL=C sort
	fi
}

# sha256 over the contents of the series, in order. Empty series: sha of "".
series_hash() {
	local f
	series_files | while read -r f; do cat "$f"; done | sha256sum | cut -c1-64
}

# Paths keyed by what produced them.
tree_dir() {
	if [ "$VARIANT" = museum ]; then
		echo "$CACHE/src/$(source_version)-museum"
	else
		echo "$CACHE/src/$(source_version)"
	fi
}

# The environment of every kernel build: ccache in the cache, and the
# timestamp, user and host fixed so that the compiler sees the same input
# every time (ccache hits).
kbuild_env() {
	export CCACHE_DIR=$CACHE/ccache CCACHE_MAXSIZE
	export CCACHE_NOHASHDIR=1 CCACHE_BASEDIR=$CACHE
	export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
	export KBUILD_BUILD_USER=bpf-jit-kasan KBUILD_BUILD_HOST=bpf-jit-kasan
}

# kconfig TREE BUILD: FRAGMENT onto allnoconfig, then olddefconfig, in
# BUILD; for KCONFIG=bpf-ci, BPF CI's files (bpf_ci_configs) and FRAGMENT
# onto Kconfig's defaults (merge_config.sh's alldefconfig: what olddefconfig
# makes of their concatenation, as BPF CI's vmtest does).
kconfig() {
	local base=(-n)

	# shellcheck disable=SC2207 # one word a file
	[ "$KCONFIG" = bpf-ci ] && base=($(bpf_ci_configs "$1"))
	(cd "$1" && scripts/kconfig/merge_config.sh -O "$2" "${base[@]}" "$FRAGMENT" &&
		make O="$2" olddefconfig)
}

# bpf_ci_configs TREE: BPF CI's config files of the tree, in its order.
bpf_ci_configs() {
	local d=$1/tools/testing/selftests/bpf
	echo "$d/config $d/config.vm $d/config.x86_64"
}

build_dir() {
	echo "$CACHE/build/$(source_version)-$(sha256_file "$FRAGMENT" | cut -c1-12)"
}

# libbpf, bpftool and vmlinux.h of a build (harness/userland.sh).
userland_dir() {
	echo "$CACHE/userland/$(basename "$(build_dir)")"
}

# The guest initramfs of a build (rebuilt each run, a second or two); a
# tier's own (it has that tier's builds too) beside make test's.
image_path() {
	echo "$CACHE/image/$(basename "$(build_dir)")${TIER:+-$TIER}.cpio.gz"
}
# Where a build puts what the guest needs (as /NAME/).
suite_out() {
	echo "$CACHE/suites/$(basename "$(build_dir)")/$1"
}
