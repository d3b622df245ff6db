#!/bin/bash
# Host-side test of the harness's settings (harness/settings.sh), run by
# harness/test.sh; BJK_BOOTS=settings runs only it:
#   tests/host/settings.sh RUNDIR
# The table of docs/harness.md between its settings markers must be what
# harness/settings.sh prints, and every BJK_ variable a host-side script
# reads (harness/, tools/, lib/, tests/host/, the suites' builds and checks)
# must be declared there: a setting is written once, where the reader of
# the docs finds it. Its verdict, KTAP, on stdout and in
# RUNDIR/host/settings.ktap.
set -euo pipefail
. "$(dirname "$0")/../../harness/lib.sh"
# shellcheck source=SCRIPTDIR/../../harness/verdicts.sh
. "$BJK_ROOT/harness/verdicts.sh"

run=$1
host_begin "$run" settings 2
doc=$BJK_ROOT/docs/harness.md
want=$(bash "$BJK_ROOT/harness/settings.sh")
have=$(sed -n '/^<!-- settings: /,/^<!-- end of settings -->/p' "$doc" | sed '1d;$d')
if [ -z "$have" ]; then
	host_case not-ok settings.doc "docs/harness.md has no table between <!-- settings: ... --> and <!-- end of settings -->"
elif [ "$have" = "$want" ]; then
	host_case ok settings.doc
else
	host_case not-ok settings.doc "docs/harness.md's table differs from harness/settings.sh's: $(diff <(echo "$want") <(echo "$have") | head -n 4 | tr '\n' ' ')(print it with: bash harness/settings.sh)"
fi

# The variables read: BJK_ names after a "$" or "${" in host-side files. BJK_ROOT
# is the tree itself, found by lib.sh, not a setting.
declared=$(sed -n 's/^setting \(BJK_[A-Z0-9_]*\) .*/\1/p' "$BJK_ROOT/harness/settings.sh" | sort -u)
cd "$BJK_ROOT"
read_vars=$({
	find harness lib tools tests/host -type f \( -name '*.sh' -o -name vm -o -name run -o -name bugs \) -print0 |
		xargs -0 grep -ohE '\$\{?BJK_[A-Z0-9_]+' || true
	for f in tests/*/build.sh tests/*/check.sh; do
		grep -ohE '\$\{?BJK_[A-Z0-9_]+' "$f" || true
	done
} | sed 's/^\${\{0,1\}//' | sort -u | grep -vx BJK_ROOT || true)
undeclared=$(comm -23 <(echo "$read_vars") <(echo "$declared") | tr '\n' ' ')
if [ -z "$read_vars" ]; then
	host_case not-ok settings.declared "no BJK_ variable found in the host-side scripts: the search is wrong"
elif [ -z "${undeclared// /}" ]; then
	host_case ok settings.declared "$(echo "$read_vars" | wc -l) variables read, all declared"
else
	host_case not-ok settings.declared "read but not declared in harness/settings.sh: $undeclared"
fi
host_end settings "$t0" "$host_pass passed, $host_fail failed"
[ "$host_fail" = 0 ]
