#!/bin/bash
# The kernel tree.
#   tree.sh unpack: Debian's linux-source tarball unpacked into the cache as a
#                   git checkout (commit "linux-source-6.12 <version>", tag base)
#   tree.sh series: the series from patches/ applied by `git am` on branch
#                   "series", when it changed since it was last applied
set -euo pipefail
. "$(dirname "$0")/lib.sh"

version=$(source_version)
tree=$(tree_dir)
tarball=/usr/src/${SOURCE_PKG}.tar.xz
git=(git -C "$tree" -c user.name=bpf-jit-kasan -c user.email=bpf-jit-kasan@example.org
	-c advice.detachedHead=false)
# Where the applied series is recorded: one "<patch sha256> <commit>" line per patch.
applied_list=$tree/.git/bjk-applied
applied_hash=$tree/.git/bjk-series

unpack() {
	local tmp=$tree.tmp
	[ -f "$tarball" ] || die "$tarball not found (is $SOURCE_PKG installed?)"
	note "tree: unpacking $tarball (version $version) into $tree"
	rm -rf "$tmp"
	mkdir -p "$tmp"
	tar -xf "$tarball" -C "$tmp" --strip-components=1
	# Debian's .gitignore ignores everything at the top level, hence -f.
	git -C "$tmp" init -q -b series
	note "tree: git add (about a minute for 86k files)"
	git -C "$tmp" add -f -A .
	git -C "$tmp" -c user.name=bpf-jit-kasan -c user.email=bpf-jit-kasan@example.org \
		commit -q -m "$SOURCE_PKG $version"
	git -C "$tmp" tag base
	: >"$tmp/.git/bjk-applied"
	series_hash_of_empty >"$tmp/.git/bjk-series"
	mv -T "$tmp" "$tree"
}

series_hash_of_empty() {
	printf '' | sha256sum | cut -c1-64
}

# Patch failed: abort, go back to base, name the patch and the file(s).
am_failed() {
	local patch=$1 out=$2 files
	"${git[@]}" am --abort >/dev/null 2>&1 || true
	"${git[@]}" checkout -q -f -B series base
	: >"$applied_list"
	series_hash_of_empty >"$applied_hash"
	files=$(sed -n -e 's/^error: patch failed: \(.*\):[0-9]*$/\1/p' \
		-e 's/^error: \(.*\): does not exist in index$/\1/p' \
		-e 's/^error: \(.*\): already exists in index$/\1/p' \
		-e 's/^error: \(.*\): patch does not apply$/\1/p' "$out" | sort -u | paste -sd' ')
	# git am's own errors; not its advice on --continue/--skip: we aborted.
	grep -E '^(error|fatal|Patch failed)' "$out" | sed 's/^/  git am: /' >&2 || true
	die "patch $(basename "$patch") does not apply to $SOURCE_PKG $version (file: ${files:-unknown, see above}); tree reset to base"
}

# The commit the recorded series ends at (base when the series is empty).
recorded_head() {
	local last
	last=$(tail -n1 "$applied_list" | cut -d' ' -f2)
	"${git[@]}" rev-parse "${last:-base}"
}

apply_series() {
	local want patches=() shas=() keep=0 i line commit out start
	want=$(series_hash)
	mapfile -t patches < <(series_files)
	if [ "$want" = "$(cat "$applied_hash")" ] &&
		[ "$("${git[@]}" rev-parse HEAD)" = "$(recorded_head)" ] &&
		"${git[@]}" diff --quiet HEAD; then
		note "tree: series of ${#patches[@]} patch(es) already applied"
		return 0
	fi
	for i in "${!patches[@]}"; do
		shas[i]=$(sha256_file "${patches[i]}")
	done
	# Keep the commits of the longest unchanged prefix of the series, so that
	# files touched only by unchanged patches keep their mtimes.
	start=base
	if "${git[@]}" diff --quiet HEAD; then
		while read -r line commit; do
			[ "$keep" -lt "${#patches[@]}" ] && [ "$line" = "${shas[keep]}" ] || break
			"${git[@]}" cat-file -e "$commit" 2>/dev/null || break
			start=$commit
			keep=$((keep + 1))
		done <"$applied_list"
	fi
	note "tree: applying series (${#patches[@]} patch(es), $keep unchanged kept)"
	"${git[@]}" am --abort >/dev/null 2>&1 || true
	"${git[@]}" checkout -q -f -B series "$start"
	head -n "$keep" "$applied_list" >"$applied_list.new" 2>/dev/null || true
	mv "$applied_list.new" "$applied_list"
	echo invalid >"$applied_hash"
	out=$(mktemp)
	for ((i = keep; i < ${#patches[@]}; i++)); do
		if ! "${git[@]}" am -q "${patches[i]}" >"$out" 2>&1; then
			am_failed "${patches[i]}" "$out"
		fi
		printf '%s %s\n' "${shas[i]}" "$("${git[@]}" rev-parse HEAD)" >>"$applied_list"
		note "  applied $(basename "${patches[i]}")"
	done
	rm -f "$out"
	echo "$want" >"$applied_hash"
}

mkdir -p "$CACHE/src"
exec 9>"$tree.lock"
flock 9
case "${1:-}" in
unpack)
	if [ ! -d "$tree" ]; then
		unpack
	else
		note "tree: $tree (cached)"
	fi
	;;
series)
	[ -d "$tree" ] || die "no tree at $tree (run tree.sh unpack first)"
	apply_series
	;;
*) die "usage: tree.sh unpack|series" ;;
esac
