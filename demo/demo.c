// SPDX-License-Identifier: GPL-2.0
/*
 * bjk-demo [-n N] [OBJ]: load demo.bpf.o (next to this binary, or OBJ) and
 * run its program demo_uaf once (N times: one KASAN report each, what
 * tools/vm's own test counts) with BPF_PROG_TEST_RUN. An ordinary dynamic host
 * program: `make run` runs it in the test VM with `tools/vm`, as anyone
 * would run their own. Needs the bjk_e2e module (its kfunc) loaded.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

int main(int argc, char **argv)
{
	char path[PATH_MAX], self[PATH_MAX];
	struct bpf_object *obj;
	struct bpf_program *prog;
	LIBBPF_OPTS(bpf_test_run_opts, run);
	int err, opt;
	long i, runs = 1;
	char *end;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n')
			goto usage;
		runs = strtol(optarg, &end, 10);
		if (*end || runs < 1)
			goto usage;
	}
	if (optind < argc - 1)
		goto usage;
	if (optind < argc) {
		snprintf(path, sizeof(path), "%s", argv[optind]);
	} else {
		snprintf(self, sizeof(self), "%s", argv[0]);
		snprintf(path, sizeof(path), "%s/demo.bpf.o", dirname(self));
	}
	obj = bpf_object__open_file(path, NULL);
	if (!obj) {
		fprintf(stderr, "bjk-demo: open %s: %s\n", path, strerror(errno));
		return 2;
	}
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "bjk-demo: load %s: %s (is the bjk_e2e module loaded?)\n", path,
			strerror(-err));
		return 2;
	}
	prog = bpf_object__find_program_by_name(obj, "demo_uaf");
	if (runs == 1)
		printf("bjk-demo: loaded demo_uaf from %s; running it once\n", path);
	else
		printf("bjk-demo: loaded demo_uaf from %s; running it %ld times\n", path, runs);
	printf("bjk-demo: it reads a field of an object the kernel has just freed\n");
	fflush(stdout);
	for (i = 0; i < runs; i++) {
		err = bpf_prog_test_run_opts(bpf_program__fd(prog), &run);
		if (err) {
			fprintf(stderr, "bjk-demo: BPF_PROG_TEST_RUN: %s\n", strerror(errno));
			return 2;
		}
	}
	printf("bjk-demo: demo_uaf returned %d\n", (int)run.retval);
	bpf_object__close(obj);
	return 0;
usage:
	fprintf(stderr, "usage: bjk-demo [-n RUNS] [DEMO.BPF.O]\n");
	return 2;
}
