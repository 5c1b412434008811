/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ABI of our headers against Debian's libdapl-dev: every struct, field,
 * constant, function and typedef compared by test/abi/abi-check.sh (see its
 * README), and the checker's own proof that it catches each kind of change.
 */
#include <stdio.h>
#include <stdlib.h>

#include "test.h"

static int run_abi_check(const char *option)
{
	char script[1024], *out = NULL;
	int status;

	snprintf(script, sizeof(script), "%s/test/abi/abi-check.sh", TEST_SRCDIR);
	ASSERT_OK(test_run_cmdl(120, &status, &out, "bash", script, option, NULL));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
		free(out);
		TEST_SKIP("libdapl-dev is not installed: apt-get install -y libdapl-dev");
	}
	printf("%s", out);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		TEST_FAIL("abi-check.sh %s failed", option);
	free(out);
	return 0;
}

TEST_IMPL(abi_headers_match_ofed)
{
	return run_abi_check("--cc=gcc");
}

TEST_IMPL(abi_checker_catches_changes)
{
	return run_abi_check("--self-test");
}
