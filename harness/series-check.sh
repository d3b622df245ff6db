#!/bin/bash
# make series-check: every patch of patches/, applied in order on the base,
# must pass on its own what a maintainer runs before taking it:
#   - scripts/checkpatch.pl --strict on the patch;
#   - the kernel builds with the harness's config (bzImage);
#   - W=1 gives no warning in the .c files the patch touches that the same
#     files did not give before it;
#   - from the patch that adds kernel/bpf/.kunitconfig on, the KUnit suites
#     pass, run the kernel's own way: kunit.py exec boots that build in QEMU
#     (the harness's config has the suites built in) and parses its KTAP;
#     at the last patch also kunit.py run --kunitconfig=kernel/bpf
#     --arch=x86_64, which configures and builds a kernel of its own from the
#     .kunitconfig (BJK_SERIES_KUNIT_RUN=all: at every such patch).
# Works in a git worktree and build directories of its own in the cache
# ($CACHE/series-check), so the trees of make test are never touched; ccache
# keeps a second run to the files that changed. Not part of make test (an
# hour and more cold: docs/series.md). BJK_SERIES_FROM=N checks from patch N
# on, the earlier ones applied unchecked: after a change to the series' end,
# the patches before it are the same as in the last full run.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

base_tree=$(tree_dir)
[ -d "$base_tree/.git" ] || die "no kernel tree at $base_tree (run make test or harness/tree.sh unpack first)"
work=$CACHE/series-check
wt=$work/src
build=$work/build
kbuild=$work/kunit
log=$work/logs
mkdir -p "$work" "$log"
exec 7>"$work.lock"
flock -n 7 || die "another series-check runs (lock $work.lock)"

kbuild_env
jobs=$BJK_JOBS
git=(git -C "$wt" -c user.name=bpf-jit-kasan -c user.email=bpf-jit-kasan@example.org)

if [ ! -d "$wt" ]; then
	note "series-check: worktree of $base_tree at $wt"
	git -C "$base_tree" worktree add -q --detach "$wt" base
fi
"${git[@]}" am --abort >/dev/null 2>&1 || true
"${git[@]}" checkout -q -f --detach base

mkdir -p "$build" "$kbuild"

# The harness's config, as harness/config.sh makes it, made again at each
# patch: the options a patch adds (the KUnit suites', the map redzones')
# must be set as the fragment sets them from that patch on.
configure() {
	if ! kconfig "$wt" "$build" >"$log/config.log" 2>&1; then
		tail -n 20 "$log/config.log" >&2
		die "configuration failed at $1; log: $log/config.log"
	fi
}
configure base

# W=1 warnings of those of these .c files that the current build links into
# vmlinux (all of them before the first build), line numbers dropped: a file
# the config does not build (the core before a JIT selects it) is not
# checked, as no build would compile it.
w1() {
	local f out=$1 built=
	shift
	: >"$out"
	[ -f "$build/vmlinux.a" ] && built=$(ar t "$build/vmlinux.a")
	for f in "$@"; do
		[ -f "$wt/$f" ] || continue
		[ -z "$built" ] || grep -qxF "$build/${f%.c}.o" <<<"$built" || continue
		make -C "$wt" O="$build" -j"$jobs" CC="ccache gcc" W=1 "${f%.c}.o" 2>&1 |
			grep -E 'warning:' | sed -E 's/:[0-9]+:[0-9]+:/:/' >>"$out" || true
	done
	sort -u -o "$out" "$out"
}

# kunit LOG exec|run ARGS...: tools/testing/kunit/kunit.py in the worktree,
# its output in LOG; prints passed/ran, or FAIL (and the output's tail).
kunit() {
	local name=$1 res
	shift
	if (cd "$wt" && timeout 3600 tools/testing/kunit/kunit.py "$@" --arch=x86_64 \
		--timeout 1800) >"$log/$name.kunit" 2>&1; then
		res=$(sed -nE 's/.*Testing complete\. Ran ([0-9]+) tests: passed: ([0-9]+).*/\2\/\1/p' \
			"$log/$name.kunit" | tail -n1)
		echo "${res:-ok}"
	else
		tail -n 20 "$log/$name.kunit" >&2
		echo FAIL
	fi
}

mapfile -t patches < <(series_files)
[ "${#patches[@]}" -gt 0 ] || die "no patches in $PATCHES"
from=$BJK_SERIES_FROM
[[ $from =~ ^[0-9]+$ ]] && [ "$from" -ge 1 ] && [ "$from" -le "${#patches[@]}" ] ||
	die "BJK_SERIES_FROM=$from: want a patch number, 1 to ${#patches[@]}"
for ((i = 0; i < from - 1; i++)); do
	if ! "${git[@]}" am -q "${patches[i]}" >"$log/unchecked.am" 2>&1; then
		"${git[@]}" am --abort >/dev/null 2>&1 || true
		cat "$log/unchecked.am" >&2
		die "$(basename "${patches[i]}") does not apply (log: $log/unchecked.am)"
	fi
done
if [ "$from" -gt 1 ]; then
	configure "patch $((from - 1))"
	note "series-check: patches 1 to $((from - 1)) applied unchecked"
fi
patches=("${patches[@]:from-1}")
failed=0
t_all=$(now)
printf '%-4s %-9s %-6s %-6s %-20s %s\n' patch checkpatch build W=1 KUnit time
for p in "${patches[@]}"; do
	t0=$(now)
	name=$(basename "$p")
	n=${name%%-*}
	cp_res=ok build_res=ok w1_res=ok ku_res=-
	if ! "$wt/scripts/checkpatch.pl" --strict --no-tree -q "$p" >"$log/$n.checkpatch" 2>&1; then
		cp_res=FAIL
	fi
	mapfile -t cfiles < <(sed -n 's|^+++ b/\(.*\.c\)$|\1|p' "$p")
	w1 "$log/$n.w1.before" "${cfiles[@]}"
	if ! "${git[@]}" am -q "$p" >"$log/$n.am" 2>&1; then
		"${git[@]}" am --abort >/dev/null 2>&1 || true
		cat "$log/$n.am" >&2
		die "$name does not apply (log: $log/$n.am)"
	fi
	configure "$name"
	if ! make -C "$wt" O="$build" -j"$jobs" CC="ccache gcc" bzImage >"$log/$n.build" 2>&1; then
		build_res=FAIL
		tail -n 20 "$log/$n.build" >&2
	fi
	w1 "$log/$n.w1.after" "${cfiles[@]}"
	new_w1=$(comm -13 "$log/$n.w1.before" "$log/$n.w1.after")
	if [ -n "$new_w1" ]; then
		w1_res=FAIL
		sed "s/^/  $name: new W=1 /" <<<"$new_w1" >&2
	fi
	if [ -f "$wt/kernel/bpf/.kunitconfig" ] && [ "$build_res" = ok ]; then
		ku_res=$(kunit "$n" exec --build_dir="$build")
		if [ "$p" = "${patches[-1]}" ] || [ "$BJK_SERIES_KUNIT_RUN" = all ]; then
			ku_res="$ku_res run:$(kunit "$n.run" run --kunitconfig=kernel/bpf \
				--build_dir="$kbuild" --jobs="$jobs" --make_options CC="ccache gcc")"
		fi
	fi
	case "$cp_res $build_res $w1_res $ku_res" in *FAIL*) failed=$((failed + 1)) ;; esac
	printf '%-4s %-9s %-6s %-6s %-20s %s\n' "$n" "$cp_res" "$build_res" "$w1_res" "$ku_res" "$(since "$t0")"
done
note "series-check: ${#patches[@]} patches in $(since "$t_all"); logs in $log"
[ "$failed" -eq 0 ] || die "$failed patch(es) failed (logs in $log)"
