# shellcheck shell=bash
# The harness's settings: every environment variable a harness script reads
# from its caller, declared once here with its default and meaning.
# Sourced by harness/lib.sh (and so by every harness script), which then
# reads "$BJK_..." with no default of its own; run, it prints the table of
# docs/harness.md ("Environment variables"), which the host test settings
# (tests/host/settings.sh) holds equal to this file.
#   setting NAME DEFAULT MEANING
# DEFAULT is a shell expression, expanded when NAME is not set at all
# (set and empty stays empty: BJK_IMAGE_MODULES= puts no module in the
# image); an empty DEFAULT leaves NAME empty, which the scripts read as
# "not given". The guest's parameters are not these: they are bjk.NAME=
# words of a boot's kernel command line (tests/boots, guest/lib.sh).

: "${BJK_ROOT:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
_bjk_settings=()
setting() {
	_bjk_settings+=("$1|$2|$3")
	if [ -z "${!1+set}" ]; then
		eval "$1=\"$2\""
	fi
	# shellcheck disable=SC2163 # the variable named by $1
	export "$1"
}

# Where things are and what is built.
setting BJK_CACHE '${XDG_CACHE_HOME:-$HOME/.cache}/bpf-jit-kasan' 'the cache directory: the unpacked tree, the builds, ccache, the runs (make clean-cache empties it)'
setting BJK_SOURCE_PKG 'linux-source-6.12' 'the Debian package with the kernel source'
setting BJK_PATCHES '$BJK_ROOT/patches' 'the series to apply'
setting BJK_CONFIG_FRAGMENT '$BJK_ROOT/harness/config/bpf-jit-kasan.config' 'the config fragment, merged onto allnoconfig'
setting BJK_JOBS '$(nproc)' 'make -j of the kernel and userland builds'
setting CCACHE_MAXSIZE '8G' "ccache's size limit (the cache's ccache/)"
setting BJK_VARIANT 'series' 'the kernel a harness script works on: series, or museum (set by harness/test.sh for the museum'"'"'s boots; BJK_VARIANT=museum harness/prepare.sh makes that kernel alone)'
setting BJK_KCONFIG 'project' "the configuration the config fragment goes onto: project (allnoconfig), or bpf-ci (make test-bpf-ci: BPF CI's config files over Kconfig's defaults, harness/config/bpf-ci.config over the fragment; a build of its own)"
setting BJK_TIER '' 'full (make test-full): the boots of tests/boots-full, the builds of harness/parts whose tier is full, an image of its own (<build>-full.cpio.gz), no host-side tests'
setting BJK_IMAGE_MODULES 'lib/test_bpf.ko' 'modules (relative to the build directory) put into the guest image'

# What a run boots, and how.
setting BJK_BOOTS '' 'the boots of tests/boots (and host tests of tests/host/) to run, e.g. BJK_BOOTS=inline; empty: all'
setting BJK_TIMEOUT '' "seconds one boot may take in all; empty: harness/qemu.sh's 600 (tools/vm: its -t, 300)"
setting BJK_FIRST_OUTPUT_TIMEOUT '' "seconds until the guest's first console output; empty: harness/qemu.sh's 60"
setting BJK_ACCEL '' "QEMU accelerator for every boot, over a boot line's own -accel; empty: harness/qemu.sh's tcg,thread=single (one host thread for both vCPUs: QEMU before 8.1 races translation against another vCPU's text patching, harness/qemu.sh), the stress boot's tcg,thread=multi. KVM hangs on these machines, so it is never the default"
setting BJK_APPEND '' 'extra kernel command line for every boot'
setting BJK_QEMU_EXTRA '' 'extra QEMU arguments for every boot'
setting BJK_KERNEL '' "boot another kernel image; empty: the build's bzImage"
setting BJK_INITRD '' "boot another guest image; empty: the build's image"

# make boot (harness/run.sh) only.
setting BJK_SUITES 'test_bpf' 'make boot: the guest suites to run, comma-separated; empty: none'
setting BJK_SHELL '0' 'make boot: 1, then a shell on the console (no timeouts)'

# make bench (harness/bench.sh) only; docs/benchmark.md.
setting BJK_BENCH_REPEAT '5000' 'make bench: test_run repeat'
setting BJK_BENCH_PASSES '5' 'make bench: timed passes per program'
setting BJK_BENCH_COUNT '20' 'make bench: runs of the counting pass'
setting BJK_BENCH_LOADS '5' 'make bench: loads of each program timed (the smallest kept)'
setting BJK_BENCH_CORPUS 'test_l4lb test_l4lb_noinline test_cls_redirect test_xdp test_xdp_dynptr test_pkt_access connect4_prog test_global_data test_global_func_args test_skb_ctx' 'make bench: the selftest objects (names, without .bpf.o) whose loads are timed; empty: none'
setting BJK_BENCH_INTERP '1' "make bench: 0, no boot of the museum's kernel (the interpreter, the JIT with checks off)"
setting BJK_BENCH_PREPARE '1' 'make bench: 0, skip the prepare stages and boot the kernels and images as they are'

# make series-check (harness/series-check.sh) only; docs/series.md.
setting BJK_SERIES_FROM '1' 'make series-check: check from patch N on'
setting BJK_SERIES_KUNIT_RUN '' 'make series-check: all, run KUnit at every patch that adds to a .kunitconfig (empty: at the last)'

# Set by the harness for its own scripts; a user has no need of them.
setting BJK_VM_PREPARED '0' '1: tools/vm, tools/fuzz/run and tools/fuzz/bugs skip harness/prepare.sh (their caller has just run it; two makings of one kernel'"'"'s builds at once trip over each other)'
setting BJK_CHECK '' 'the group a check across boots is run for (harness/lib.sh post_checks), for a check that serves two (museum, museum-norz)'
setting BJK_PROGS_FULL '0' "1: tests/selftests/build.sh builds the full tier's test_progs (tests/selftests/build-full.sh sets it)"
setting BJK_E2E_LOCK '' "a lock file tests/e2e/build.sh holds around its make in the kernel tree, for callers that share a build directory"

# Run rather than sourced: the table of docs/harness.md.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	echo '| variable | default | meaning |'
	echo '| --- | --- | --- |'
	for _s in "${_bjk_settings[@]}"; do
		IFS='|' read -r _n _d _m <<<"$_s"
		printf '| `%s` | %s | %s |\n' "$_n" "${_d:+\`$_d\`}" "$_m"
	done
fi
