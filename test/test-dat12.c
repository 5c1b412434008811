/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The seed synopsis programs (test/seed12/): one DAT 1.2 program per seed
 * manual page, built exactly as the page's SYNOPSIS says (#include
 * <dat/udat.h>, cc file.c -ldat: no <dat2/...>, no -ldat2) and run
 * against softdapl over loopback. Each checks every rule of its page
 * (SEED-RULES.md) that a program can observe, through the DAT 1.2 API of
 * libdat.so.1, and ends with a line "PASS" and exit status 0.
 *
 * Each test compiles its program from the source tree into its own
 * directory (nothing is written into the tree), writes a dat.conf with
 * the IA "sdtest" (sdt_conf), and runs it with that IA's name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "provider-util.h"
#include "test.h"

#ifndef TEST_SRCDIR
#error TEST_SRCDIR must name the source tree
#endif

/* As test-interop.c: is this build instrumented by a sanitizer? */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif

/* The libraries of the build tree: libdat.so.1, libdat2.so.2, libdaplsoft.so.2. */
static const char *libdir(void)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "%s/../lib", test_builddir());
	return buf;
}

/*
 * Builds test/seed12/@prog.c (with seed12.c) into the test's directory
 * as the seed pages' SYNOPSIS says, then runs it on the IA "sdtest".
 */
static int run_seed_program(const char *prog)
{
	char cmd[4096], *out = NULL;
	int status, r;

	snprintf(cmd, sizeof(cmd),
		 "${CC:-cc} -Wall -Wextra -Werror -I%s/include "
		 "%s/test/seed12/%s.c %s/test/seed12/seed12.c "
		 "-L%s -ldat -Wl,-rpath,%s -o %s",
		 TEST_SRCDIR, TEST_SRCDIR, prog, TEST_SRCDIR, libdir(), libdir(),
		 prog);
	printf("%s\n", cmd);
	ASSERT_OK(test_run_cmdl(120, &status, &out, "sh", "-c", cmd, NULL));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		TEST_FAIL("%s does not build as its synopsis says:\n%s", prog, out);
	free(out);
	out = NULL;

#ifdef SANITIZED
	/*
	 * The program is built as a consumer builds it, without the
	 * sanitizer, and the sanitized libdat.so.1 cannot be loaded into
	 * it; nor could the sanitizer's allocator live with the malloc the
	 * program defines to count allocations (COMMON-4).
	 */
	TEST_SKIP("sanitized build: the seed program is built, not run "
		  "(an uninstrumented program cannot load the sanitized libdat.so.1)");
#endif

	sdt_conf(NULL);
	/*
	 * -Wl,-rpath gives the program a RUNPATH, which the dynamic linker
	 * uses for the program's own libraries only: libdat.so.1's DAT 2.0
	 * registry (its DT_NEEDED libdat2.so.2) would be looked up in the
	 * system's directories, and be OFED's where Debian's libdat2 is
	 * installed. The tree's registry is the one under test.
	 */
	test_setenv("LD_LIBRARY_PATH", libdir());
	r = test_run_cmdl(60, &status, &out, test_path(prog), SDT_IA_NAME, NULL);
	test_setenv("LD_LIBRARY_PATH", NULL);
	if (r == -ETIMEDOUT)
		TEST_FAIL("%s ran past its timeout:\n%s", prog, out ? out : "");
	ASSERT_OK(r);
	printf("%s", out);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char buf[64];

		TEST_FAIL("%s: %s", prog, test_status_str(status, buf, sizeof(buf)));
	}
	ASSERT_STR_CONTAINS(out, "\nPASS\n");
	free(out);
	return 0;
}

/* dat_ep_post_send(3DAT): SEND-1..6, COMMON-1..9 */
TEST_IMPL(dat12_seed_post_send)
{
	return run_seed_program("post-send");
}

/* dat_ep_post_recv(3DAT): RECV-1..7, COMMON-1..9 */
TEST_IMPL(dat12_seed_post_recv)
{
	return run_seed_program("post-recv");
}

/* dat_ep_post_rdma_write(3DAT): WRITE-1..6, COMMON-1..9 */
TEST_IMPL(dat12_seed_post_rdma_write)
{
	return run_seed_program("post-rdma-write");
}

/* dat_srq_post_recv(3DAT): SRQ-1..9, COMMON-1..9 */
TEST_IMPL(dat12_seed_srq_post_recv)
{
	return run_seed_program("srq-post-recv");
}
