/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma-read: the one-sided read.
 *
 * The target exposes a buffer with remote read privilege; the initiator
 * copies it into its own memory with dat_ep_post_rdma_read. The read
 * completes on the initiator once the data is in place; the target sees no
 * event at all.
 */
#include "example.h"

int main(int argc, char **argv)
{
	static char exposed[32] = "read from the other side";
	static char copy[32];
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_LMR_TRIPLET exp_iov, copy_iov;
	DAT_LMR_HANDLE lmr_exp, lmr_copy;
	DAT_DTO_COMPLETION_EVENT_DATA done;
	DAT_RMR_TRIPLET remote;
	struct side server, client;
	DAT_DTO_COOKIE cookie;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_EVENT e;

	CHECK(dat_ia_open(example_ia_name(argc, argv), 8, &async, &ia));
	CHECK(dat_pz_create(ia, &pz));
	lmr_exp = example_register(ia, pz, exposed, sizeof(exposed),
				   DAT_MEM_PRIV_REMOTE_READ_FLAG, &exp_iov, &remote);
	lmr_copy = example_register(ia, pz, copy, sizeof(copy), 0, &copy_iov, NULL);

	example_side(ia, pz, NULL, &server);
	example_side(ia, pz, NULL, &client);
	example_connect(ia, &server, &client);

	cookie.as_64 = 7;
	CHECK(dat_ep_post_rdma_read(client.ep, 1, &copy_iov, cookie, &remote,
				    DAT_COMPLETION_DEFAULT_FLAG));
	done = example_wait_dto(client.dto_evd);
	printf("read %u bytes: \"%s\"\n", (unsigned)done.transfered_length, copy);
	if (strcmp(copy, exposed) != 0)
		return 1;

	/* The target was not told: its queue is empty. */
	if (DAT_GET_TYPE(dat_evd_dequeue(server.dto_evd, &e)) != DAT_QUEUE_EMPTY)
		return 1;

	example_teardown(&server, &client);
	CHECK(dat_lmr_free(lmr_exp));
	CHECK(dat_lmr_free(lmr_copy));
	CHECK(dat_pz_free(pz));
	CHECK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	printf("rdma-read: ok\n");
	return 0;
}
