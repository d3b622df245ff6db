#!/bin/bash
# make test-bpf-ci: the series in the kernel BPF CI builds (BJK_KCONFIG=bpf-ci,
# harness/lib.sh: the tree's selftests/bpf config files over Kconfig's
# defaults, then the project's fragment, then harness/config/bpf-ci.config:
# lockdep, PREEMPT, 5-level paging, KASLR), booted as every run boots
# (QEMU's -cpu max has LA57): first make test's boots and host tests, then
# make test-full's (all of test_progs, checks off and inline). Each part is
# judged as its own tier is and ends with its own closing line; the last
# line is their sum. BJK_BOOTS picks boots of either part, as it does for
# make test and make test-full (a part none of whose boots it names is
# skipped).
set -euo pipefail
export BJK_KCONFIG=bpf-ci
. "$(dirname "$0")/lib.sh"
# shellcheck source=SCRIPTDIR/tables.sh
. "$BJK_ROOT/harness/tables.sh"

# wanted TIER: whether BJK_BOOTS is empty or names a boot of TIER's table
# (or, for make test's, one of its host tests, tests/host/NAME.sh).
wanted() {
	local t
	[ -n "$BJK_BOOTS" ] || return 0
	[ -n "$(TIER=$1 boot_lines)" ] && return 0
	[ -z "$1" ] || return 1
	for t in $BJK_BOOTS; do
		[ -f "$BJK_ROOT/tests/host/$t.sh" ] && return 0
	done
	return 1
}

# The kernel runs lockdep on every lock and probes ACPI's devices: each
# boot gets 2100 s (unless BJK_TIMEOUT says), test_progs 1980 s of it (the
# slowest range, make test-full's 201-300 inline, took 1351 s, measured
# beside other boots).
export BJK_TIMEOUT=${BJK_TIMEOUT:-2100}
export BJK_APPEND="${BJK_APPEND:+$BJK_APPEND }bjk.progs_limit=$((BJK_TIMEOUT - 120))"

t0=$(now)
passed=0 failed=0 skipped=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for tier in '' full; do
	label=${tier:-test}
	if ! wanted "$tier"; then
		note "bpf-ci: no boot of make $label's table in BJK_BOOTS; skipped"
		continue
	fi
	note "bpf-ci: make $label's boots on BPF CI's kernel"
	rc=0
	BJK_TIER=$tier "$BJK_ROOT/harness/test.sh" 2>&1 | tee "$out" || rc=$?
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1 || true)
	if [ -z "$line" ]; then
		printf 'error: bpf-ci: make %s ended without its closing line (status %s)\n' "$label" "$rc" >&2
		failed=$((failed + 1))
		continue
	fi
	read -r p _ f _ s _ < <(echo "$line" | tr -d ',')
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + ${s:-0}))
	[ "$rc" -eq 0 ] || [ "$f" -gt 0 ] || failed=$((failed + 1))
done
note "bpf-ci: both parts in $(since "$t0")"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
