# Suite test_verifier_harden, run in the guest by /init: test_verifier with
# net.core.bpf_jit_harden=2 (constant blinding), every case but four whose
# blinding is too slow under TCG (see tests/test_verifier/guest.sh, which does the
# work). Its cases and their results must be those of the same suite in the
# boot's baseline (tests/boots' baseline=, harness/src/suite.c).
exec sh /tests/test_verifier.sh harden
