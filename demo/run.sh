#!/bin/bash
# make run: build what is missing, boot the patched kernel in QEMU, run the
# demo (demo/demo.c loads demo/demo.bpf.c, whose program reads an object the
# kernel has just freed) as any host program is run there (tools/vm), show
# the KASAN report and its decoded form, power off, say what it showed.
set -euo pipefail
. "$(dirname "$0")/../harness/lib.sh"

t0=$(now)
note "==> make run: the demo of bpf-jit-kasan"
"$BJK_ROOT/harness/prepare.sh" || die "make run: preparing the kernel and the guest failed (see above)"
e2e=$(suite_out e2e) demo=$(suite_out demo)/host
rc=0
# The demo's directory is the work directory: the guest mounts that one
# over its private /tmp, so a cache under /tmp works too.
BJK_VM_PREPARED=1 "$BJK_ROOT/tools/vm" -k 1 -m "$e2e/bjk_e2e.ko" -w "$demo" -- "$demo/bjk-demo" || rc=$?
echo
if [ "$rc" -ne 0 ]; then
	echo "make run: the demo did not go as expected (status $rc): see the messages above" >&2
	exit "$rc"
fi
line=$(grep -n 'the bad access' "$BJK_ROOT/demo/demo.bpf.c" | cut -d: -f1)
cat <<EOT
make run: what it showed ($(since "$t0") in all):
  - the patched kernel booted in QEMU (KASAN checks in JITed BPF, inline mode);
  - bjk-demo, an ordinary host program, loaded demo/demo.bpf.c through the
    verifier and ran it: demo_uaf read 8 bytes of an object the kernel had
    just freed (the e2e test module's bug zoo, bjk_zoo_freed());
  - the JIT's check caught the read: "BUG: KASAN: slab-use-after-free in
    bpf_prog_<tag>_demo_uaf", with where the object was allocated and freed,
    and the kernel named the program, the BPF instruction and the C source
    line (the report's "BPF" lines: demo/demo.bpf.c:$line, from its BTF),
    and what the verifier had proved of the access ("BPF belief": the
    pointer's type, its object's size, the offset; the verifier was right,
    the memory went wrong);
  - bjk-decode, under which tools/vm runs the command, read the same from
    those lines (for consoles of kernels without them it decodes a snapshot
    of the loaded program instead).
Your own program: tools/vm -- ./your-loader (see README.md, "Run your own program").
EOT
