#!/bin/bash
# Kernel .config from the fragment: allnoconfig + fragment (merge_config.sh -n),
# then olddefconfig, then a check that every line of the fragment reached
# .config. Redone only when the fragment or the series changed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree=$(tree_dir)
build=$(build_dir)
key="$(source_version) $(series_hash) $(sha256_file "$FRAGMENT")"
keyfile=$build/.bjk-config
log=$build/config.log
# Symbols the series adds: when the tree does not have them yet (series empty
# or not applied), their lines are skipped with a note instead of failing.
series_symbols=" BPF_JIT_KASAN BPF_JIT_KASAN_KUNIT_TEST "

mkdir -p "$build"
# The same lock as build.sh: one run at a time changes this build directory.
exec 8>"$build.lock"
flock 8
if [ -f "$build/.config" ] && stamp_fresh "$keyfile" "$key"; then
	note "config: $build/.config up to date"
	exit 0
fi
stamp_clear "$keyfile"

if [ "$KCONFIG" = bpf-ci ]; then
	note "config: BPF CI's config files, then $(basename "$FRAGMENT"), onto Kconfig's defaults in $build"
else
	note "config: $(basename "$FRAGMENT") onto allnoconfig in $build"
fi
if ! kconfig "$tree" "$build" >"$log" 2>&1; then
	tail -n 40 "$log" >&2
	die "kernel configuration failed; full log: $log"
fi

# have SYM: SYM's line in .config, set or not, or "absent".
have() {
	grep -E "^(# )?$1[= ]" "$build/.config" || echo 'absent'
}

# Every "CONFIG_X=v" line must be in .config as is; every
# "# CONFIG_X is not set" must not be set.
missing=()
while read -r line; do
	case "$line" in
	CONFIG_*=*)
		sym=${line%%=*}
		grep -qxF -- "$line" "$build/.config" && continue
		;;
	"# CONFIG_"*" is not set")
		sym=${line#\# }
		sym=${sym%% *}
		grep -q "^$sym=" "$build/.config" || continue
		;;
	*) continue ;;
	esac
	name=${sym#CONFIG_}
	if [[ "$series_symbols" == *" $name "* ]] &&
		! grep -rqsE "^[[:space:]]*(menu)?config[[:space:]]+$name\$" --include='Kconfig*' "$tree"; then
		note "config: note: $sym is not defined by this tree (series not applied yet?), not checked"
		continue
	fi
	missing+=("$line (have: $(have "$sym"))")
done <"$FRAGMENT"

if [ "${#missing[@]}" -gt 0 ]; then
	printf 'error: these options of %s did not reach %s:\n' "$FRAGMENT" "$build/.config" >&2
	printf '  %s\n' "${missing[@]}" >&2
	printf 'Check their dependencies (cd %s && make O=%s menuconfig, then search with /); merge_config.sh output: %s\n' "$tree" "$build" "$log" >&2
	exit 1
fi
# BPF CI's own lines that did not reach .config are listed, not failed:
# BPF CI does not check them either (absent from this tree, or their
# dependencies off).
if [ "$KCONFIG" = bpf-ci ]; then
	unmet=$build/config-bpf-ci-unmet.txt
	# shellcheck disable=SC2046 # one word a file
	grep -hE '^CONFIG_[A-Za-z0-9_]+=' $(bpf_ci_configs "$tree") | LC_ALL=C sort -u |
		while read -r line; do
			grep -qxF -- "$line" "$build/.config" ||
				echo "$line (have: $(have "${line%%=*}"))"
		done >"$unmet"
	note "config: $(wc -l <"$unmet") of BPF CI's lines not in .config (Kconfig says why), listed in $unmet"
fi
stamp_write "$keyfile" "$key"
note "config: all $(grep -cE '^(CONFIG_|# CONFIG_.* is not set)' "$FRAGMENT") options of the fragment checked"
