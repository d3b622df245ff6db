// SPDX-License-Identifier: GPL-2.0
/*
 * bjk-tsckhz: the host's TSC frequency in kHz, for tsc_early_khz= on a
 * TCG guest's command line (tests/boots-full: "tsc_early_khz=host").
 *
 * Under TCG the guest's RDTSC reads the host's TSC, so the guest's TSC runs
 * at the host's rate; but the guest calibrates it against the emulated PIT,
 * and on a loaded host that sometimes fails ("tsc: Unable to calibrate
 * against PIT", "Marking TSC unstable due to could not calculate TSC khz"):
 * the guest then keeps time in jiffies, and tests that time anything
 * shorter than a tick read 0. tsc_early_khz= skips that calibration.
 *
 * Measured here against CLOCK_MONOTONIC_RAW over 200 ms, the best of three
 * (the shortest wall interval: the one least disturbed by preemption).
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

static uint64_t ns_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(void)
{
	const struct timespec pause = { 0, 200 * 1000 * 1000 };
	uint64_t best_ns = 0, best_khz = 0;

	for (int i = 0; i < 3; i++) {
		uint64_t n0 = ns_now(), t0 = __rdtsc();
		uint64_t n1, t1;

		nanosleep(&pause, NULL);
		t1 = __rdtsc();
		n1 = ns_now();
		if (n1 <= n0 || t1 <= t0)
			continue;
		/* The reads of the two clocks lie within the interval. */
		if (!best_ns || n1 - n0 < best_ns) {
			best_ns = n1 - n0;
			best_khz = (t1 - t0) * 1000000ull / (n1 - n0);
		}
	}
	/* Below 100 MHz or above 10 GHz is not a TSC of an x86-64 host. */
	if (best_khz < 100000 || best_khz > 10000000) {
		fprintf(stderr, "bjk-tsckhz: measured %llu kHz, not a plausible TSC frequency\n",
			(unsigned long long)best_khz);
		return 1;
	}
	printf("%llu\n", (unsigned long long)best_khz);
	return 0;
}
