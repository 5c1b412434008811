/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fuzzers' inputs as regression tests: every seed of
 * test/fuzz/corpus/<target>/ and every reproducer of a bug the fuzzers
 * found, test/fuzz/regress/<target>/, run once through the same harness
 * (test/fuzz/fuzz-<target>.c), here built with the build's compiler and
 * sanitizers and test/fuzz/replay.c's main ($(O)/test/fuzz/replay-<target>).
 * A harness aborts on anything wrong: a crash, a sanitizer report, a
 * broken invariant (FUZZ_CHECK), a wait that does not end.
 */
#include <stdio.h>
#include <stdlib.h>

#include "test.h"

static int replay(const char *target, int timeout_s)
{
	char bin[1024], corpus[1024], regress[1024];
	char *out = NULL;
	int status;

	snprintf(bin, sizeof(bin), "%s/fuzz/replay-%s", test_builddir(), target);
	snprintf(corpus, sizeof(corpus), "%s/test/fuzz/corpus/%s", TEST_SRCDIR,
		 target);
	snprintf(regress, sizeof(regress), "%s/test/fuzz/regress/%s",
		 TEST_SRCDIR, target);
	ASSERT_OK(test_run_cmdl(timeout_s, &status, &out, bin, corpus, regress,
				NULL));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fprintf(stderr, "%s\n", out);
	ASSERT_EXIT_OK(status);
	ASSERT_STR_CONTAINS(out, "replay: ");
	printf("%s", out);
	free(out);
	return 0;
}

/* registry/conf.c: dat.conf files. */
TEST_IMPL(fuzz_replay_conf)
{
	return replay("conf", 60);
}

/* provider/cm.c: handshakes, both sides. */
TEST_IMPL(fuzz_replay_cm)
{
	return replay("cm", 100);
}

/* provider/rx.c: frame sequences on a connected EP. */
TEST_IMPL(fuzz_replay_rx)
{
	return replay("rx", 100);
}

/* provider/ud.c, udcm.c: datagrams to a UD EP and to a PSP's UDP port. */
TEST_IMPL(fuzz_replay_ud)
{
	return replay("ud", 100);
}

/* provider/shm.c: a requester's hostile segment and frames through it. */
TEST_IMPL(fuzz_replay_ring)
{
	return replay("ring", 100);
}
