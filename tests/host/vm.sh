#!/bin/bash
# Host-side test of tools/vm (run by harness/test.sh as "boot" vm, after the
# boots of tests/boots; BJK_BOOTS=vm runs only it):
#   tests/host/vm.sh RUNDIR
# Each case is one `tools/vm` run (one boot, about 15 s under TCG). Its
# verdict, KTAP, on stdout and in RUNDIR/host/vm.ktap (the judge,
# harness/judge.sh, takes it as it is), logs in RUNDIR/vm.<case>.out.
set -euo pipefail
. "$(dirname "$0")/../../harness/lib.sh"
# shellcheck source=SCRIPTDIR/../../harness/verdicts.sh
. "$BJK_ROOT/harness/verdicts.sh"

run=$1
vm=$BJK_ROOT/tools/vm
e2e=$(suite_out e2e)
demo=$(suite_out demo)/host/bjk-demo
line=$(grep -n 'the bad access' "$BJK_ROOT/demo/demo.bpf.c" | cut -d: -f1)
t0=$(now)
mkdir -p "$run/host"
host_ktap=$run/host/vm.ktap
: >"$host_ktap"
export BJK_VM_PREPARED=1	# harness/test.sh has prepared everything

ktap() { # ok|not-ok NAME [DETAIL]
	host_case "$1" "vm.$2" "${3:-}"
}

# vmrun NAME ARGS...: run tools/vm, output to RUNDIR/vm.NAME.out; sets $rc.
vmrun() {
	local name=$1
	shift
	rc=0
	"$vm" -t 120 "$@" >"$run/vm.$name.out" 2>&1 </dev/null || rc=$?
	note "vm: $name: status $rc ($run/vm.$name.out)"
}

printf 'KTAP version 1\n1..6\n' | tee -a "$host_ktap"

# The command's status comes back: 3 stays 3.
vmrun exit_status -- sh -c 'echo "in the guest: $(uname -r)"; exit 3'
if [ "$rc" = 3 ] && grep -q 'in the guest: ' "$run/vm.exit_status.out"; then
	ktap ok exit_status "sh -c 'exit 3' gave 3"
else
	ktap not-ok exit_status "sh -c 'exit 3' gave $rc, want 3"
fi

# A dynamic host binary that loads a BPF program: its KASAN report is
# decoded to demo.bpf.c's line, and fails the run (no -k 1).
vmrun demo -m "$e2e/bjk_e2e.ko" -w "$(dirname "$demo")" -- "$demo"
out=$run/vm.demo.out
# The report as the one reader of its grammar gives it (bjk-facts): its
# bug type, the program its title names and the access.
report=$("$TOOLS/bjk-facts" "$out" | awk -F'\t' '$1 == "report" { print $4, $5, $6; exit }')
if [ "$rc" = 1 ] && [[ "$report" =~ ^slab-use-after-free\ bpf_prog_[0-9a-f]{16}_demo_uaf\ Read\ 8$ ]] &&
	grep -q "source   .*demo/demo.bpf.c:$line:" "$out" &&
	grep -q 'insn     [0-9]* in demo_uaf: (79) r[0-9] = \*(u64 \*)(r[0-9] +8)' "$out" &&
	grep -q 'error: vm: 1 KASAN report(s) in the guest, expected 0' "$out"; then
	ktap ok demo_decoded "report decoded to demo.bpf.c:$line; status 1"
else
	ktap not-ok demo_decoded "status $rc, report '$report' (want 1, a slab-use-after-free Read 8 in demo_uaf decoded to demo.bpf.c:$line); see $out"
fi

# The same console read after the guest powered off, the program freed
# long before and no snapshot of it: the report itself still names the
# instruction and the line (what a CI console or a bug tracker keeps).
log=$(sed -n 's/^vm: console \([^ ]*\).*/\1/p' "$out" | head -n 1)
printf 'bjk-decode dump 1\n' >"$run/vm.empty.dump"
after=$run/vm.demo_after.out
if [ -f "$log" ] && "$(suite_out tools)/bjk-decode" -d "$run/vm.empty.dump" "$log" >"$after" 2>&1 &&
	grep -q "source   .*demo/demo.bpf.c:$line:" "$after" &&
	grep -q 'insn     [0-9]* in demo_uaf: (79)' "$after" &&
	grep -q 'note     as the kernel printed it' "$after"; then
	ktap ok demo_after_free "the console alone, the program gone: demo.bpf.c:$line"
else
	ktap not-ok demo_after_free "console '$log' without the program: not decoded to demo.bpf.c:$line; see $after"
fi

# Hundreds of reports in one command: far more than the guest's default
# 128 KiB log buffer holds. Every one must be counted (the guest copies
# /dev/kmsg as it goes, past any overwritten record, into a buffer sized for
# it), so -k 500 gives 0; a lost one would fail the run.
vmrun many_reports -k 500 -m "$e2e/bjk_e2e.ko" -w "$(dirname "$demo")" -- "$demo" -n 500
out=$run/vm.many_reports.out
if [ "$rc" = 0 ] && grep -q '500 KASAN report(s) (expected 500); 0 other splat(s)' "$out"; then
	ktap ok many_reports "500 reports in one command, all counted: status 0"
else
	ktap not-ok many_reports "status $rc, want 0 with 500 of 500 reports counted; see $out"
fi

# What the command itself prints is not the kernel's: a splat's words in it
# count for nothing.
vmrun own_output -- sh -c 'echo "BUG: KASAN: not a report"; echo "WARNING: not a splat"'
if [ "$rc" = 0 ] && grep -q '0 KASAN report(s) (expected 0); 0 other splat(s)' "$run/vm.own_output.out"; then
	ktap ok own_output "splat words printed by the command: status 0"
else
	ktap not-ok own_output "status $rc, want 0 (the command's output is not the kernel's); see $run/vm.own_output.out"
fi

# A command the guest cannot find: 127 and a message that says so.
vmrun not_found -- bjk-no-such-command
if [ "$rc" = 127 ] && grep -q 'command not found in the guest: bjk-no-such-command' "$run/vm.not_found.out"; then
	ktap ok not_found "127 and a message"
else
	ktap not-ok not_found "status $rc, want 127 with 'command not found in the guest'"
fi

host_end vm "$t0" "tools/vm, 5 boots"
[ "$host_fail" -eq 0 ]
