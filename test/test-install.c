/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * make install into a DESTDIR: a consumer builds from the installed tree
 * with nothing but `pkg-config --cflags --libs dat2`, and make uninstall
 * leaves no file behind.
 */
#include <stdio.h>
#include <stdlib.h>

#include "test.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#endif

TEST_IMPL(install_destdir_pkg_config)
{
	char cmd[4096], *out = NULL;
	int status;

#ifdef SANITIZED
	TEST_SKIP("installs the normal build only");
#endif
	if (test_find_program("pkg-config") == NULL)
		TEST_SKIP("pkg-config missing: apt-get install -y pkg-config");
	test_write_file("consumer.c",
		"#include <dat2/udat.h>\n"
		"#include <stdio.h>\n"
		"int main(void)\n"
		"{\n"
		"    const char *major = 0, *minor = 0;\n"
		"    dat_strerror(DAT_INVALID_HANDLE | DAT_INVALID_HANDLE_IA, &major, &minor);\n"
		"    printf(\"%s %s\\n\", major, minor);\n"
		"    return 0;\n"
		"}\n");
	snprintf(cmd, sizeof(cmd),
		 "set -e; d=%s/dest; make -s -C %s O=%s/.. PREFIX=/usr/local DESTDIR=$d install;"
		 " test -f $d/usr/local/include/dat2/udat.h;"
		 " test -L $d/usr/local/lib/libdat2.so.2; test -x $d/usr/local/bin/datinfo;"
		 " export PKG_CONFIG_PATH=$d/usr/local/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$d;"
		 " ${CC:-cc} consumer.c $(pkg-config --cflags --libs dat2) -o consumer;"
		 " LD_LIBRARY_PATH=$d/usr/local/lib ./consumer;"
		 " make -s -C %s O=%s/.. PREFIX=/usr/local DESTDIR=$d uninstall;"
		 " echo left: $(find $d -type f | wc -l)",
		 test_tmpdir(), TEST_SRCDIR, test_builddir(), TEST_SRCDIR,
		 test_builddir());
	ASSERT_OK(test_run_cmdl(120, &status, &out, "sh", "-c", cmd, NULL));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		TEST_FAIL("install, build or uninstall failed:\n%s", out);
	ASSERT_STR_CONTAINS(out, "DAT_INVALID_HANDLE DAT_INVALID_HANDLE_IA");
	ASSERT_STR_CONTAINS(out, "left: 0");
	free(out);
	return 0;
}

/* The README's API table is the one tools/api-coverage makes from the code. */
TEST_IMPL(readme_api_table_current)
{
	char cmd[1024], *out = NULL;
	int status;

	snprintf(cmd, sizeof(cmd), "%s/tools/api-coverage --check", TEST_SRCDIR);
	ASSERT_OK(test_run_cmdl(60, &status, &out, "sh", "-c", cmd, NULL));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		TEST_FAIL("README's API table is stale (tools/api-coverage --update):\n%s",
			  out);
	printf("%s", out);
	free(out);
	return 0;
}
