# Suite test_verifier_harden, run in the guest by /init: test_verifier with
# net.core.bpf_jit_harden=2 (constant blinding), every case but four whose
# blinding is too slow under TCG (see tests/test_verifier.sh, which does the
# work). Its Summary is compared with the test_verifier_harden row of the
# boot's "-off" twin.
exec sh /tests/test_verifier.sh harden
