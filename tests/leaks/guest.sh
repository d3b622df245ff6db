# Suite leaks, run in the guest by /init after the boot's other suites, in
# a boot with kmemleak=on: a kmemleak scan, then every unreferenced object it
# lists. It fails on one allocated by BPF code (a backtrace with a bpf
# function: the series' per-program record and check table, the verifier,
# the JIT, maps) and lists the others. KTAP through /dev/kmsg.
k=/sys/kernel/debug/kmemleak
if ! [ -w "$k" ] || ! echo scan >"$k" 2>/dev/null; then
	echo "BJK-ERROR: leaks: no kmemleak at $k (CONFIG_DEBUG_KMEMLEAK, kmemleak=on)" >/dev/kmsg
	exit 2
fi
# Kernel stacks are not scanned: a stale pointer left on the stack of a
# task that made a suite's syscalls would hide a leaked object. Objects
# younger than 5 s are never reported, and an RCU callback may still hold
# what a suite freed last: wait, then scan twice.
echo stack=off >"$k"
sleep 6
echo scan >"$k"
sleep 1
echo scan >"$k"
cat "$k" >/tmp/kmemleak.txt
awk -v kmsg=/dev/kmsg '
function flush() {
	if (obj == "") return
	n++
	if (bpf) { nb++; if (nb <= 5) for (i = 1; i <= nl; i++) print "# " l[i] > kmsg }
	else if (n - nb <= 2) for (i = 1; i <= nl; i++) print "# (not BPF) " l[i] > kmsg
	obj = ""; bpf = 0; nl = 0
}
/^unreferenced object/ { flush(); obj = $3; bt = 0 }
obj != "" { l[++nl] = $0 }
# frames: "    [<address>] func+off/len", or without the address
obj != "" && bt {
	fn = $1 ~ /^\[</ ? $2 : $1
	if (fn ~ /bpf/) bpf = 1
}
obj != "" && /^  backtrace/ { bt = 1 }
END {
	flush()
	print "KTAP version 1" > kmsg
	print "1..1" > kmsg
	if (nb) print "not ok 1 leaks.unreferenced # " nb " of " (n + 0) " unreferenced object(s) allocated by BPF code" > kmsg
	else print "ok 1 leaks.unreferenced # 0 of " (n + 0) " unreferenced object(s) allocated by BPF code" > kmsg
	print "# Totals: pass:" (nb ? 0 : 1) " fail:" (nb ? 1 : 0) " xfail:0 xpass:0 skip:0 error:0" > kmsg
	exit nb ? 1 : 0
}' /tmp/kmemleak.txt
