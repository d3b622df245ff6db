// SPDX-License-Identifier: GPL-2.0
/*
 * tv_cases: the case list of test_verifier, one "INDEX<TAB>DESCRIPTION"
 * line per entry of its tests[] array, in the binary's order.
 *
 * Built by tests/selftests/build.sh from the same test_verifier.c and the
 * same generated verifier/tests.h as test_verifier itself, so the indices
 * are the ones "test_verifier FROM TO" takes. It only prints the array: no
 * BPF program is loaded, so it runs on the build host. The guest script
 * (tests/test_verifier/guest.sh, harden mode) takes the indices of the cases it
 * leaves out from this list and checks each name test_verifier prints
 * against it.
 */
#define main test_verifier_main
#include "test_verifier.c"
#undef main

int main(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tests); i++)
		printf("%u\t%s\n", i, tests[i].descr);
	return fflush(stdout) ? 1 : 0;
}
