/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The provider's layers (provider/softdapl.h, LAYERS-BEGIN): no call
 * goes up a layer or into an entry-point file, no cycle of files lies
 * outside the connection core, no file includes a header from a layer
 * above; and the checker (test/layers/check-layers.sh) catches each kind
 * of break. Both read
 * this build's provider objects (nm), so the sanitizer builds check
 * their own.
 */
#include <stdio.h>
#include <stdlib.h>

#include "test.h"

static int run_layers(const char *mode)
{
	char script[1024], objdir[1024], *out = NULL;
	int status;

	snprintf(script, sizeof(script), "%s/test/layers/check-layers.sh",
		 TEST_SRCDIR);
	snprintf(objdir, sizeof(objdir), "%s/../provider", test_builddir());
	ASSERT_OK(test_run_cmdl(120, &status, &out, "bash", script,
				TEST_SRCDIR, objdir, mode, NULL));
	printf("%s", out);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		TEST_FAIL("check-layers.sh %s failed:\n%s", mode, out);
	free(out);
	return 0;
}

TEST_IMPL(layers_no_upcalls)
{
	return run_layers("check");
}

TEST_IMPL(layers_checker_catches_upcall)
{
	return run_layers("--self-test");
}
