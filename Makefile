# bpf-jit-kasan: KASAN checks for x86-64 JIT-compiled BPF (Linux 6.12).
# The harness builds Debian's linux-source-6.12 with patches/ applied and
# boots it in QEMU. See README.md.

.PHONY: help test test-full test-bpf-ci quick judge run boot vm bench fuzz series-check clean-cache

help:
	@echo "make test         build the patched KASAN kernel, boot it in QEMU, run every"
	@echo "                  suite of tests/boots; ends with 'N passed, N failed, N skipped'"
	@echo "make test-full    every test of the kernel's test_progs, checks off and inline,"
	@echo "                  case by case (tests/boots-full; not in make test: long)"
	@echo "make test-bpf-ci  make test's boots and make test-full's on the kernel BPF CI"
	@echo "                  builds (its selftests config, lockdep, PREEMPT, 5-level"
	@echo "                  paging, KASLR); a kernel of its own (not in make test: long)"
	@echo "make quick        a few minutes' subset of make test for the edit-test loop:"
	@echo "                  KUnit and test_bpf inline, the e2e suite inline, tools/vm,"
	@echo "                  the judge on made-up consoles"
	@echo "make judge RUN=d  judge a stored run of make test again from its consoles,"
	@echo "                  no boot (RUN: the run directory make test printed)"
	@echo "make run          the demo: boot the patched kernel, run a BPF program with a"
	@echo "                  use-after-free, show the KASAN report and its decoded form"
	@echo "make vm CMD='...' run a host command in the patched kernel (tools/vm -- CMD)"
	@echo "make boot         boot once with the console live (BJK_SUITES=test_bpf,"
	@echo "                  BJK_SHELL=1 for a shell in the guest)"
	@echo "make bench        the benchmark: the boots of group bench (tests/boots) with"
	@echo "                  its own numbers; table, CSV, JSON, PNG in \$$BJK_CACHE/bench/<run>"
	@echo "make fuzz ARGS=.. a campaign of the verifier fuzzer in the museum's kernel,"
	@echo "                  e.g. ARGS='-j 2 -t 10' (tools/fuzz/run -h; docs/fuzz.md)"
	@echo "make series-check every patch of patches/ in order: checkpatch --strict,"
	@echo "                  the build, no new W=1 warning, KUnit (kunit.py) from the"
	@echo "                  patch that adds the suites on (not in make test: long;"
	@echo "                  BJK_SERIES_FROM=N checks from patch N on)"
	@echo "make clean-cache  delete the cache (\$$BJK_CACHE, default ~/.cache/bpf-jit-kasan)"
	@echo "make help         this text"

test:
	@harness/test.sh

# The full tier: all of test_progs in the boots of tests/boots-full, each
# with checks inline compared with its checks-off twin. Not what CI runs.
test-full:
	@BJK_TIER=full harness/test.sh

# make test and make test-full on the kernel BPF CI builds, its own
# kernels (harness/config/bpf-ci.config). Not what CI runs.
test-bpf-ci:
	@harness/test-bpf-ci.sh

# The boots that cover most of the series in the least time; make test (what
# CI runs) has them all.
quick:
	@BJK_BOOTS="inline e2e-inline vm judge" harness/test.sh

judge:
	@harness/judge.sh "$(RUN)"

run:
	@demo/run.sh

boot:
	@harness/run.sh

# make vm CMD='./prog arg': word-split like a shell command line.
vm:
ifeq ($(strip $(CMD)),)
	@echo "usage: make vm CMD='command [args]'" >&2; exit 2
else
	@tools/vm -- $(CMD)
endif

bench:
	@harness/bench.sh

# make fuzz ARGS='-j 2 -t 10': tools/fuzz/run's options, word-split.
fuzz:
	@tools/fuzz/run $(ARGS)

series-check:
	@harness/series-check.sh

clean-cache:
	@harness/clean-cache.sh
