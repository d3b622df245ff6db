#!/bin/bash
# Build the guest side of the suites under load and faults:
#   tests/stress/build.sh TREE BUILD OUT
# OUT/bjk-stress: the stress suite's runner (stress.c) with the BPF object
# (progs/stress.bpf.c) embedded; OUT/bjk-faults: the fault-injection suite's
# (faults.c, raw programs). Both static; uapi headers only.
set -euo pipefail

name=stress
# shellcheck source=SCRIPTDIR/../../lib/build-common.sh
. "$(dirname "$0")/../../lib/build-common.sh"
need_clang
need_static_libs
t0=$SECONDS
libbpf_static

"$clang" -g -O2 -target bpf -mcpu=v4 -Wall -Werror \
	-I"$tree/tools/include/uapi" -I"$work/root/include" \
	-idirafter /usr/include/x86_64-linux-gnu \
	-c "$here/progs/stress.bpf.c" -o "$work/stress.bpf.o"
embed_bpf_object "$work/stress.bpf.o" "$work/objects.S"
gcc -static -O2 -g -Wall -Wextra -Werror -Wno-missing-field-initializers -pthread \
	-I"$work/root/include" -I"$tree/tools/include/uapi" \
	-o "$out/bjk-stress.tmp" "$here/stress.c" "$work/objects.S" \
	"$libbpf_a" -l:libelf.a -l:libz.a
mv -f "$out/bjk-stress.tmp" "$out/bjk-stress"
gcc -static -O2 -g -Wall -Wextra -Werror -Wno-missing-field-initializers \
	-I"$work/root/include" -I"$tree/tools/include/uapi" -I"$root/lib" \
	-o "$out/bjk-faults.tmp" "$here/faults.c" "$libbpf_a" -l:libelf.a -l:libz.a
mv -f "$out/bjk-faults.tmp" "$out/bjk-faults"
echo "stress: $out/bjk-stress, $out/bjk-faults (in $((SECONDS - t0))s)"
