/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fence: a send that must wait for an RDMA read before it.
 *
 * Requests of one endpoint start in the order they were posted, but an
 * RDMA read takes a round trip: its data comes back later, and a send
 * posted after it may leave before the read's data has landed. When the
 * send carries what the read fetches, that is a bug: the peer would get
 * the buffer's old contents.
 *
 * DAT_COMPLETION_BARRIER_FENCE_FLAG on the send says "not before every
 * RDMA read posted before me has completed". Here the client reads the
 * server's 32-byte "price" into a local buffer, and in the same breath
 * posts a send of that buffer, fenced: the server receives the price it
 * had, never the zeros the buffer held before. The read completes first,
 * then the send.
 *
 * Between two processes of one host, softdapl's default transport lets
 * the initiator copy the target's memory itself, inside
 * dat_ep_post_rdma_read: the read is done before the send is even posted,
 * and the fence finds nothing to wait for. With SOFTDAPL_TRANSPORT=copy
 * (as `make pictures` runs this example) the read goes as frames, and the
 * send leaves only after the READ_RESP has come back.
 *
 * Seed rule shown: SEND-2 (a BARRIER_FENCE send waits for the EP's
 * earlier RDMA reads).
 */
#include "example.h"

int main(int argc, char **argv)
{
	static char price[32] = "price: 42 euros";	/* at the server */
	static char local[32];	/* the client's: read into, then sent */
	static char inbox[32];	/* the server's receive */
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_LMR_TRIPLET price_iov, local_iov, inbox_iov;
	DAT_DTO_COMPLETION_EVENT_DATA d1, d2;
	DAT_LMR_HANDLE lmr[3];
	DAT_RMR_TRIPLET remote;
	struct side server, client;
	DAT_DTO_COOKIE cookie;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	int i;

	CHECK(dat_ia_open(example_ia_name(argc, argv), 8, &async, &ia));
	CHECK(dat_pz_create(ia, &pz));
	lmr[0] = example_register(ia, pz, price, sizeof(price),
				  DAT_MEM_PRIV_REMOTE_READ_FLAG, &price_iov,
				  &remote);
	lmr[1] = example_register(ia, pz, local, sizeof(local), 0, &local_iov,
				  NULL);
	lmr[2] = example_register(ia, pz, inbox, sizeof(inbox), 0, &inbox_iov,
				  NULL);
	example_side(ia, pz, NULL, &server);
	example_side(ia, pz, NULL, &client);
	cookie.as_64 = 1;
	CHECK(dat_ep_post_recv(server.ep, 1, &inbox_iov, cookie,
			       DAT_COMPLETION_DEFAULT_FLAG));
	example_connect(ia, &server, &client);

	/* The read, and at once the send of what it reads, fenced. */
	cookie.as_64 = 2;
	CHECK(dat_ep_post_rdma_read(client.ep, 1, &local_iov, cookie, &remote,
				    DAT_COMPLETION_DEFAULT_FLAG));
	cookie.as_64 = 3;
	CHECK(dat_ep_post_send(client.ep, 1, &local_iov, cookie,
			       DAT_COMPLETION_BARRIER_FENCE_FLAG));

	example_wait_dto(server.dto_evd);
	printf("server received: \"%s\"\n", inbox);
	d1 = example_wait_dto(client.dto_evd);
	d2 = example_wait_dto(client.dto_evd);
	printf("client completions: cookie %llu (read), then %llu (send)\n",
	       (unsigned long long)d1.user_cookie.as_64,
	       (unsigned long long)d2.user_cookie.as_64);
	if (strcmp(inbox, price) != 0 || d1.user_cookie.as_64 != 2 ||
	    d2.user_cookie.as_64 != 3)
		return 1;

	example_teardown(&server, &client);
	for (i = 0; i < 3; i++)
		CHECK(dat_lmr_free(lmr[i]));
	CHECK(dat_pz_free(pz));
	CHECK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	printf("fence: ok\n");
	return 0;
}
