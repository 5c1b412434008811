/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Both transports pass the same suite. Connections on one host use shared
 * memory by default (provider/shm.c), so the rest of make check runs over
 * it; this test runs the tests of connections again with
 * SOFTDAPL_TRANSPORT=tcp: the provider's tests, the examples, the
 * interoperation and DAT 1.2 tests, and Debian's conformance matrix with
 * Open MPI. One nested run of this binary, one after another (the
 * conformance tools use fixed ports); its failures are reported here.
 *
 * The sanitizer builds skip it: they run the suite over shared memory,
 * the new code, and the plain build covers TCP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

TEST_IMPL(transport_tcp_suite)
{
	const char *argv[] = { test_self_exe(), "provider_*", "example_*",
			       "interop_*", "dat12_*", "conformance_*", NULL };
	char *out = NULL, *line, *save = NULL;
	int status, failed = 0, why = 0;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	TEST_SKIP("sanitizer build: the plain build runs the suite over TCP");
#endif
	test_setenv("SOFTDAPL_TRANSPORT", "tcp");
	ASSERT_OK(test_run_cmd(3000, &status, &out, argv));
	for (line = strtok_r(out, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "not ok", 6) == 0) {
			printf("over tcp: %s\n", line);
			failed++;
			why = 60;	/* its diagnostics follow, "#" lines */
		} else if (why > 0 && line[0] == '#') {
			printf("over tcp: %s\n", line);
			why--;
		} else if (strstr(line, " passed, ") != NULL) {
			printf("over tcp: %s\n", line);
			why = 0;
		} else {
			why = 0;
		}
	}
	free(out);
	ASSERT_EQ(failed, 0);
	ASSERT_EXIT_CODE(status, 0);
	return 0;
}
