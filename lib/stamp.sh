# shellcheck shell=bash
# Stamps: a product in the cache is reused while what made it is the same.
# A stamp file beside the product holds the key of its inputs; it is
# removed before the product is rebuilt and written only once the product
# is whole, so a build cut short is never taken for a good one. Sourced by
# harness/lib.sh and lib/build-common.sh: every stage stamps this way.

# stamp_key FILE...: a key from the files' contents.
stamp_key() {
	cat "$@" | sha256sum | cut -c1-16
}

# stamp_fresh STAMP KEY: true when STAMP records KEY.
stamp_fresh() {
	[ "$(cat "$1" 2>/dev/null)" = "$2" ]
}

# stamp_clear STAMP: before rebuilding what STAMP stands for.
stamp_clear() {
	rm -f "$1"
}

# stamp_write STAMP KEY: after the product is whole.
stamp_write() {
	printf '%s\n' "$2" >"$1.tmp.$$"
	mv -f "$1.tmp.$$" "$1"
}
