#!/bin/bash
# The full tier's test_progs (make test-full): tests/selftests/build.sh with
# every test of prog_tests/, all of progs/ and tests/selftests/test_progs-full.list
# (what does not run, and why). Same arguments: TREE BUILD OUT USERLAND.
set -euo pipefail
BJK_PROGS_FULL=1 exec bash "$(dirname "$0")/build.sh" "$@"
