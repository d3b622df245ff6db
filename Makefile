# bpf-jit-kasan: KASAN checks for x86-64 JIT-compiled BPF (Linux 6.12).
# The harness builds Debian's linux-source-6.12 with patches/ applied and
# boots it in QEMU. See README.md.

.PHONY: help test run bench clean-cache

help:
	@echo "make test         build the patched KASAN kernel, boot it in QEMU, run every"
	@echo "                  suite of tests/boots; ends with 'N passed, N failed, N skipped'"
	@echo "make run          build and boot once with the console live (BJK_SUITES=test_bpf,"
	@echo "                  BJK_SHELL=1 for a shell in the guest)"
	@echo "make bench        the benchmark: off/outline/inline boots under QEMU -icount,"
	@echo "                  table, CSV, JSON, PNG in \$$BJK_CACHE/bench/<run>"
	@echo "make clean-cache  delete the cache (\$$BJK_CACHE, default ~/.cache/bpf-jit-kasan)"
	@echo "make help         this text"

test:
	@harness/test.sh

run:
	@harness/run.sh

bench:
	@harness/bench.sh

clean-cache:
	@harness/clean-cache.sh
