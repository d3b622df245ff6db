#!/bin/bash
# Everything before the first boot: packages, tools, tree, patches, config,
# kernel build, userland (libbpf, bpftool, vmlinux.h: once per kernel build),
# what the suites need (harness/suites.sh), guest image. Each stage is timed;
# the first failure stops.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

h=$BJK_ROOT/harness
stage packages "$h/deps.sh"
stage tools "$h/tools.sh"
stage tree "$h/tree.sh" unpack
stage patches "$h/tree.sh" series
stage config "$h/config.sh"
stage build "$h/build.sh"
stage userland "$h/userland.sh"
stage suites "$h/suites.sh"
stage image "$h/image.sh"
