/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DAT 1.2 headers (include/dat) against the facts of illumos's DAT 1.2
 * headers built for x86-64 Linux (test/abi12/reference.facts): every
 * struct, field, constant, function and typedef compared by
 * test/abi12/abi12-check.sh (see its README), then the checker's own proof
 * that it catches each kind of change.
 */
#include <stdio.h>
#include <stdlib.h>

#include "test.h"

static int run_abi12_check(const char *option)
{
	char script[1024], *out = NULL;
	int status;

	snprintf(script, sizeof(script), "%s/test/abi12/abi12-check.sh", TEST_SRCDIR);
	ASSERT_OK(test_run_cmdl(100, &status, &out, "bash", script, option, NULL));
	printf("%s", out);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		TEST_FAIL("abi12-check.sh %s failed", option);
	free(out);
	return 0;
}

TEST_IMPL(abi12_headers_match_illumos)
{
	int r;

	r = run_abi12_check("--cc=gcc");
	if (r != 0)
		return r;
	return run_abi12_check("--self-test");
}
