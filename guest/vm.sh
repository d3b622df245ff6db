# Guest side of tools/vm (the suite "vm" of harness/parts, run by /init;
# not a test suite of `make test`). Three 9p shares, from tools/vm's QEMU
# command line:
#   hostroot  the host's /, read-only       -> /host (the command's root)
#   hostwork  the host's work directory, rw -> /host<workdir>
#   bjkvm     tools/vm's control directory  -> /bjkvm: in: cmd.sh, workdir,
#             modules (and the modules' copies, modules.d/); out: rc (the
#             command's exit status), dump (the BPF programs of the
#             reports, for bjk-decode -d), kmsg (every kernel message:
#             tools/vm counts reports and splats there, not on the
#             console, where the command's own output is too) and
#             kmsg.lost (how many records the kernel overwrote unread)
# The command runs chrooted into /host under bjk-decode watch, which prints
# every KASAN report in a BPF program decoded while the program is loaded.
# shellcheck source=SCRIPTDIR/lib.sh
. /lib/bjk.sh
opts=trans=virtio,version=9p2000.L,msize=262144
fail() {
	bjk_error "vm: $*"
	exit 2
}
mkdir -p /bjkvm /host
mount -t 9p -o "$opts" bjkvm /bjkvm || fail "cannot mount the control share bjkvm (9p)"
mount -t 9p -o "$opts,ro" hostroot /host || fail "cannot mount the host's root (9p)"
# The guest's own kernel filesystems and a private, writable /tmp and /run,
# mounted before the work directory, which may lie under /tmp on the host.
for d in proc sys dev sys/fs/bpf sys/kernel/debug sys/kernel/tracing; do
	[ -d "/$d" ] && [ -d "/host/$d" ] && mount --bind "/$d" "/host/$d"
done
mount -t tmpfs tmpfs /host/tmp || fail "cannot mount a tmpfs on /tmp"
mount -t tmpfs tmpfs /host/run 2>/dev/null
work=$(cat /bjkvm/workdir)
if [ -n "$work" ]; then
	mkdir -p "/host$work" 2>/dev/null
	mount -t 9p -o "$opts" hostwork "/host$work" || fail "cannot mount the work directory $work"
fi
cp /bjkvm/cmd.sh /host/tmp/.bjk-vm-cmd.sh
# "copy host-path" per line: tools/vm copied each module into the share.
while read -r m host; do
	insmod "/bjkvm/modules.d/$m" || fail "insmod $host failed"
done </bjkvm/modules
# /dev/kmsg from the oldest record on, the boot's too, up to the marker
# below; a record overwritten before it was read is counted, not an end
# (guest/kmsg-copy.c).
/guest/kmsg-copy /bjkvm/kmsg BJK-VM-RC: &
reader=$!
echo "BJK-VM-START" >/dev/kmsg
/tools/bjk-decode watch -d /bjkvm/dump -- chroot /host /bin/sh /tmp/.bjk-vm-cmd.sh
rc=$?
echo "BJK-VM-RC: $rc" >/dev/kmsg
# the reader ends once it has copied that marker
# shellcheck disable=SC2317 # called by bjk_wait
reader_done() {
	! kill -0 "$reader" 2>/dev/null
}
bjk_wait 300 reader_done
kill "$reader" 2>/dev/null
echo "$rc" >/bjkvm/rc
sync
exit 0
