/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Debian's dapltest under ThreadSanitizer (make SAN=tsan check). The
 * conformance matrix (test-conformance.c) runs Debian's programs in
 * every mode in the plain build, and a subset under ASan.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "debian.h"
#include "provider-util.h"
#include "test.h"

#if defined(__SANITIZE_THREAD__)
#define TSAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TSAN_BUILD 1
#endif
#endif

/*
 * Runs a client to completion; it must exit 0, print @want and make no
 * sanitizer report about our libraries.
 */
static char *client(int timeout, const char *const argv[], const char *want)
{
	char *out = NULL;
	int status;

	ASSERT_OK(test_run_cmd(timeout, &status, &out, argv));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    (want && strstr(out, want) == NULL))
		TEST_FAIL("%s failed: %s", argv[0], out);
	deb_no_reports(argv[0], out);
	return out;
}

/*
 * ThreadSanitizer over our registry and provider in Debian's dapltest
 * (make SAN=tsan check): the server (-T S), transactions on 4 threads of
 * 4 endpoints each (-T T -t 4 -w 4: sends, RDMA writes and reads, then a
 * validated mix), then -T Q. dapltest is not instrumented: it runs with
 * libtsan preloaded, which sees our libraries' accesses and every lock,
 * but not dapltest's own loads and stores.
 *
 * A report about our code fails the test (client, no_reports); dapltest's
 * own do not. It has one: its server waits for its worker threads by
 * polling a counter they decrement under a lock it never takes
 * (DT_Transaction_Test_Server: "while (Thread_counter > 1)
 * DT_Mdep_Sleep(100)"), then destroys that lock, which TSan reports as a
 * race between the destroy and the workers' last lock. A suppression
 * file cannot single such reports out: TSan matches a suppression against
 * every frame of every stack of a report, the creation stacks of its
 * threads included, and every consumer thread here is dapltest's, so a
 * pattern naming dapltest would hide every report.
 */
TEST_IMPL(provider_dapltest_tsan)
{
	static const char *const mixes[][40] = {
		{ "-i", "100", "-t", "4", "-w", "4",
		  "client", "SR", "256", "server", "RW", "4096", "server", "SR", "256",
		  "client", "RR", "4096", "server", "SR", "256", NULL },
		{ "-V", "-i", "100", "-t", "4", "-w", "4",
		  "client", "RW", "4096", "1", "server", "RW", "2048", "4",
		  "client", "RR", "1024", "2", "server", "RR", "2048", "2",
		  "client", "SR", "1024", "3", "-f", "server", "SR", "256", "3", "-f",
		  NULL },
	};
	char port[16];
	const char *srv[] = { "dapltest", "-T", "S", "-D", SDT_IA_NAME, "-n", port, NULL };
	const char *quit[] = { "dapltest", "-T", "Q", "-D", SDT_IA_NAME, "-n", port,
		"-s", "127.0.0.1", NULL };
	test_helper_t *h;
	size_t m;
	char *out;
	int status;

#ifndef TSAN_BUILD
	TEST_SKIP("runs in the TSan build only (make SAN=tsan check)");
#endif
	if (test_find_program("dapltest") == NULL)
		TEST_SKIP("dapltest missing: apt-get install -y dapl2-utils");
	deb_registry(true);
	snprintf(port, sizeof(port), "%u", deb_free_ports());
	h = test_spawn_cmd(srv);
	ASSERT_OK(test_helper_wait_output(h, "Service Point Ready", 60));
	for (m = 0; m < sizeof(mixes) / sizeof(mixes[0]); m++) {
		const char *argv[64] = { "dapltest", "-T", "T", "-D", SDT_IA_NAME,
					 "-n", port, "-s", "127.0.0.1" };
		size_t n = 9, i;

		for (i = 0; mixes[m][i] != NULL; i++)
			argv[n++] = mixes[m][i];
		argv[n] = NULL;
		out = client(180, argv, "End of Work");
		deb_show(out, "Total");
		free(out);
	}
	free(client(60, quit, "End of Work"));
	ASSERT_OK(test_helper_wait(h, 60, &status));
	ASSERT_EXIT_OK(status);
	deb_no_reports("dapltest server", test_helper_output(h));
	test_helper_free(h);
	return 0;
}
