#!/bin/bash
# The benchmark's guest side lives in bench/ (make bench); this is its
# entry for the harness's suites stage, which runs tests/*/build.sh.
set -euo pipefail
exec bash "$(dirname "$0")/../../bench/build.sh" "$@"
