/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * COMMON-4: posting and completing DTOs allocates nothing. A helper runs
 * with libcountalloc.so preloaded, warms a connection up, then makes
 * 100,000 posts (sends, receives, RDMA writes and reads) and takes their
 * completions, and reports how many allocations the process made meanwhile.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "provider-conn.h"
#include "provider-util.h"
#include "test.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#endif

#define POSTS 100000

static DAT_DTO_COOKIE ck(uint64_t v)
{
	DAT_DTO_COOKIE c;

	c.as_64 = v;
	return c;
}

/* One round: 4 posts (recv, send, write, read) and their 4 completions. */
static void round_trip(struct sdt_node *cli, struct sdt_node *srv, uint64_t i)
{
	DAT_LMR_TRIPLET l = sdt_iov(cli, 0, 64);
	DAT_RMR_TRIPLET r = sdt_rmr(srv, 4096, 64);

	ASSERT_OK(sdt_recv(srv, 0, 64, i));
	ASSERT_OK(sdt_send(cli, 0, 64, i, DAT_COMPLETION_DEFAULT_FLAG));
	ASSERT_OK(dat_ep_post_rdma_write(cli->ep, 1, &l, ck(i), &r,
					 DAT_COMPLETION_DEFAULT_FLAG));
	l = sdt_iov(cli, 128, 64);
	ASSERT_OK(dat_ep_post_rdma_read(cli->ep, 1, &l, ck(i), &r,
					DAT_COMPLETION_DEFAULT_FLAG));
	sdt_expect_dto(srv->recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, i);
	sdt_expect_dto(cli->req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, i);
	sdt_expect_dto(cli->req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_WRITE, i);
	sdt_expect_dto(cli->req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_READ, i);
}

HELPER_IMPL(alloc_probe)
{
	unsigned long (*total)(void);
	struct sdt_node cli, srv;
	unsigned long before, after;
	DAT_IA_HANDLE ia;
	uint64_t i;

	*(void **)&total = dlsym(RTLD_DEFAULT, "countalloc_total");
	if (total == NULL) {
		fprintf(stderr, "libcountalloc.so is not preloaded\n");
		return 2;
	}
	ia = sdt_open_ia(NULL, NULL);
	sdt_node_init(&cli, ia, NULL, 8192);
	sdt_node_init(&srv, ia, NULL, 8192);
	sdt_connect(&cli, &srv);
	for (i = 0; i < 100; i++)	/* warm-up */
		round_trip(&cli, &srv, i);

	before = total();
	for (i = 0; i < POSTS / 4; i++)
		round_trip(&cli, &srv, i);
	after = total();
	/* The count works: setting the connection up did allocate. */
	printf("allocations while setting up: %lu\n", before);
	printf("allocations during %d posts and completions: %lu\n", POSTS,
	       after - before);
	if (before == 0)
		return 3;

	sdt_disconnect(&cli, &srv);
	sdt_node_fini(&cli);
	sdt_node_fini(&srv);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return after == before ? 0 : 1;
}

TEST_IMPL(provider_data_path_allocates_nothing)
{
	char lib[1024], *out = NULL;
	int status;

#ifdef SANITIZED
	TEST_SKIP("the sanitizers own malloc: nothing to preload");
#endif
	snprintf(lib, sizeof(lib), "%s/libcountalloc.so", test_builddir());
	sdt_conf(NULL);
	test_setenv("LD_PRELOAD", lib);
	ASSERT_OK(test_run_cmdl(300, &status, &out, test_self_exe(), "--helper",
				"alloc_probe", NULL));
	test_setenv("LD_PRELOAD", NULL);
	printf("%s", out);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		TEST_FAIL("the data path allocated:\n%s", out);
	ASSERT_STR_CONTAINS(out, "allocations during 100000 posts and completions: 0");
	free(out);
	return 0;
}
