/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softbench (tools/softbench*.c) still runs. Benchmarks are not tests: no
 * test asserts a time. This one checks that a quick run of one test goes
 * through both processes, prints its table with the ratio column, and
 * writes its CSV; and that --fi-pingpong adds libfabric's ping-pong, or
 * says why not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "provider-util.h"
#include "test.h"

TEST_IMPL(bench_smoke)
{
	char path[1024], *out = NULL, *csv;
	int status;

	sdt_conf("lo");
	snprintf(path, sizeof(path), "%s/../tools/softbench", test_builddir());
	ASSERT_OK(test_run_cmdl(60, &status, &out, path, "--quick", "--only",
				"send-lat", "-D", SDT_IA_NAME, "--csv",
				test_path("bench.csv"), NULL));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		TEST_FAIL("softbench failed:\n%s", out);
	printf("%s", out);
	ASSERT_STR_CONTAINS(out, "ratio");
	ASSERT_STR_CONTAINS(out, "send-lat         poll       8 B us");
	ASSERT_STR_CONTAINS(out, "send-lat         block");
	free(out);

	csv = test_read_file(test_path("bench.csv"));
	ASSERT_NOT_NULL(csv);
	ASSERT_STR_CONTAINS(csv, ",tcp_median,tcp_min,tcp_max,ratio,");
	ASSERT_STR_CONTAINS(csv, "\nsend-lat,poll,8,us,lower,");
	free(csv);
	return 0;
}

TEST_IMPL(bench_fi_pingpong)
{
	char path[1024], *out = NULL;
	int status;

	sdt_conf("lo");
	snprintf(path, sizeof(path), "%s/../tools/softbench", test_builddir());
	ASSERT_OK(test_run_cmdl(60, &status, &out, path, "--quick", "--only",
				"send-lat", "--mode", "poll", "--sizes", "8",
				"--reps", "1", "-D", SDT_IA_NAME, "--fi-pingpong",
				NULL));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		TEST_FAIL("softbench failed:\n%s", out);
	printf("%s", out);
	if (test_find_program("fi_pingpong")) {
		ASSERT_STR_CONTAINS(out, "fi_pingpong -p tcp -e msg");
		ASSERT_STR_CONTAINS(out, "send-lat         poll           8 us ");
		ASSERT(strstr(strstr(out, "fi_pingpong -p tcp"), " n/a") == NULL);
	} else {
		ASSERT_STR_CONTAINS(out, "apt-get install libfabric-bin");
	}
	free(out);
	return 0;
}
