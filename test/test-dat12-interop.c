/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A DAT 1.2 process and a DAT 2.0 process talk: the DAT 1.2 program
 * test/dat12/peer.c (built here as the seed pages say, cc ... -ldat)
 * connects to this test, which speaks DAT 2.0; each side sends a message
 * and RDMA-writes into the other's memory (dat12/wire.h says the
 * exchange). Once with our registry under libdat.so.1, once with OFED's.
 */
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dat2/udat.h>

#include "dat12/wire.h"
#include "provider-conn.h"
#include "provider-util.h"
#include "test.h"

#ifndef TEST_SRCDIR
#error TEST_SRCDIR must name the source tree
#endif

/* The system's libdat2.so.2 (OFED's registry), when installed. */
#define OFED_LIBDAT2	"/usr/lib/x86_64-linux-gnu/libdat2.so.2"

static const char *libdir(void)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "%s/../lib", test_builddir());
	return buf;
}

/*
 * Builds test/dat12/peer.c into ./peer, as a DAT 1.2 program is built;
 * in a sanitized build, with the build's sanitizer (TEST_SAN_CFLAGS), so
 * that libdat.so.1 runs under it too.
 */
static void build_peer(void)
{
	char cmd[2048], *out = NULL;
	int status;

	snprintf(cmd, sizeof(cmd),
		 "${CC:-cc} -Wall -Wextra -Werror %s -I%s/include -I%s/test/dat12 "
		 "%s/test/dat12/peer.c -L%s -ldat -o peer",
		 TEST_SAN_CFLAGS, TEST_SRCDIR, TEST_SRCDIR, TEST_SRCDIR, libdir());
	ASSERT_OK(test_run_cmdl(60, &status, &out, "sh", "-c", cmd, NULL));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		TEST_FAIL("the DAT 1.2 peer does not build:\n%s", out);
	free(out);
}

/* Waits for the next DTO completion on @evd; it must have succeeded. */
static DAT_DTO_COMPLETION_EVENT_DATA dto(DAT_EVD_HANDLE evd, uint64_t cookie)
{
	DAT_EVENT ev = sdt_wait(evd, 10000);

	ASSERT_EQ(ev.event_number, DAT_DTO_COMPLETION_EVENT);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.status, DAT_DTO_SUCCESS);
	ASSERT_UINT64_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64,
			 cookie);
	return ev.event_data.dto_completion_event_data;
}

static int talk(int ours)
{
	static char buf[8192];
	struct peer_msg *in = (struct peer_msg *)(void *)buf;
	struct peer_msg *out = (struct peer_msg *)(void *)(buf + 256);
	char *region = buf + 4096, port[16], ofed_dir[1024];
	const char *argv[] = { "./peer", SDT_IA_NAME, "127.0.0.1", port, NULL };
	DAT_EVD_HANDLE dto_evd, conn, cr_evd;
	DAT_REGION_DESCRIPTION rd;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_VLEN rlen;
	DAT_VADDR raddr;
	DAT_EP_HANDLE ep;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL qual;
	DAT_LMR_TRIPLET t;
	DAT_RMR_TRIPLET r;
	DAT_DTO_COOKIE c;
	test_helper_t *h;
	int status;

	if (!ours && access(OFED_LIBDAT2, R_OK) != 0)
		TEST_SKIP("OFED's registry missing: apt-get install -y libdapl2");
	build_peer();
	/*
	 * The peer loads libdat.so.1 from the build tree and, as its
	 * dependency, the libdat2.so.2 the loader finds first: ours from the
	 * same directory, or OFED's from a directory holding libdat.so.1 alone.
	 */
	if (ours) {
		test_setenv("LD_LIBRARY_PATH", libdir());
	} else {
		char link[1100], target[1100];

		snprintf(ofed_dir, sizeof(ofed_dir), "%s/ofed", getenv("TEST_TMPDIR"));
		ASSERT_OK(mkdir(ofed_dir, 0755));
		snprintf(link, sizeof(link), "%s/libdat.so.1", ofed_dir);
		snprintf(target, sizeof(target), "%s/libdat.so.1", libdir());
		ASSERT_OK(symlink(target, link));
		test_setenv("LD_LIBRARY_PATH", ofed_dir);
	}
	ia = sdt_open_ia(NULL, NULL);
	ASSERT_OK(dat_pz_create(ia, &pz));
	ASSERT_OK(dat_evd_create(ia, 16, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &dto_evd));
	ASSERT_OK(dat_evd_create(ia, 4, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG, &conn));
	ASSERT_OK(dat_evd_create(ia, 4, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &cr_evd));
	rd.for_va = buf;
	ASSERT_OK(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd, sizeof(buf), pz,
				 DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &lmr, &lctx,
				 &rctx, &rlen, &raddr));
	ASSERT_OK(dat_ep_create(ia, pz, dto_evd, dto_evd, conn, NULL, &ep));
	ASSERT_OK(dat_psp_create_any(ia, &qual, cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
	snprintf(port, sizeof(port), "%llu", (unsigned long long)qual);

	h = test_spawn_cmd(argv);
	ASSERT_OK(dat_cr_accept(sdt_expect_cr(cr_evd, NULL), ep, 0, NULL));
	sdt_expect_conn(conn, DAT_CONNECTION_EVENT_ESTABLISHED);
	t.lmr_context = lctx;
	t.virtual_address = (DAT_VADDR)(uintptr_t)in;
	t.segment_length = sizeof(*in);
	c.as_64 = 10;
	ASSERT_OK(dat_ep_post_recv(ep, 1, &t, c, DAT_COMPLETION_DEFAULT_FLAG));

	/* 1: the DAT 1.2 side's hello. */
	ASSERT_EQ(dto(dto_evd, 10).transfered_length, sizeof(*in));
	ASSERT_STR_EQ(in->text, PEER_HELLO12);
	printf("DAT 2.0 side received \"%s\"\n", in->text);

	/* 2: write into its buffer, then hello with ours. */
	snprintf(out->text, sizeof(out->text), "%s", PEER_WRITTEN2);
	t.virtual_address = (DAT_VADDR)(uintptr_t)out->text;
	t.segment_length = sizeof(PEER_WRITTEN2);
	r.rmr_context = in->rmr_context;
	r.virtual_address = in->addr;
	r.segment_length = sizeof(PEER_WRITTEN2);
	c.as_64 = 11;
	ASSERT_OK(dat_ep_post_rdma_write(ep, 1, &t, c, &r, DAT_COMPLETION_DEFAULT_FLAG));
	dto(dto_evd, 11);
	t.virtual_address = (DAT_VADDR)(uintptr_t)in;
	t.segment_length = sizeof(*in);
	c.as_64 = 12;
	ASSERT_OK(dat_ep_post_recv(ep, 1, &t, c, DAT_COMPLETION_DEFAULT_FLAG));
	memset(out, 0, sizeof(*out));
	snprintf(out->text, sizeof(out->text), "%s", PEER_HELLO2);
	out->rmr_context = rctx;
	out->addr = (uint64_t)(uintptr_t)region;
	out->len = 1024;
	t.virtual_address = (DAT_VADDR)(uintptr_t)out;
	t.segment_length = sizeof(*out);
	c.as_64 = 13;
	ASSERT_OK(dat_ep_post_send(ep, 1, &t, c, DAT_COMPLETION_DEFAULT_FLAG));
	dto(dto_evd, 13);

	/* 3: its write into our buffer came before its done. */
	dto(dto_evd, 12);
	ASSERT_STR_EQ(in->text, PEER_DONE);
	ASSERT_STR_EQ(region, PEER_WRITTEN12);
	printf("the DAT 1.2 side wrote \"%s\" into our buffer\n", region);

	ASSERT_OK(dat_ep_disconnect(ep, DAT_CLOSE_GRACEFUL_FLAG));
	sdt_expect_conn(conn, DAT_CONNECTION_EVENT_DISCONNECTED);
	ASSERT_OK(test_helper_wait(h, 30, &status));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    strstr(test_helper_output(h), "PASS") == NULL)
		TEST_FAIL("the DAT 1.2 peer failed:\n%s", test_helper_output(h));
	printf("DAT 1.2 side: %s", test_helper_output(h));
	test_helper_free(h);
	ASSERT_OK(dat_psp_free(psp));
	ASSERT_OK(dat_ep_free(ep));
	ASSERT_OK(dat_lmr_free(lmr));
	ASSERT_OK(dat_evd_free(cr_evd));
	ASSERT_OK(dat_evd_free(conn));
	ASSERT_OK(dat_evd_free(dto_evd));
	ASSERT_OK(dat_pz_free(pz));
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

TEST_IMPL(dat12_talks_to_dat2_ours)
{
	return talk(1);
}

TEST_IMPL(dat12_talks_to_dat2_ofed)
{
	return talk(0);
}
