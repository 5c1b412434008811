/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma-write: the one-sided write.
 *
 * The target registers a buffer with remote write privilege and tells the
 * initiator its rmr_context, address and length (here directly; a real
 * program sends them in a message). The initiator writes into it with
 * dat_ep_post_rdma_write: no receive is posted, and the target's CPU is
 * not involved, so the target learns of the data only by looking at its
 * memory or by a message sent after the write (a send after a write on the
 * same endpoint arrives after the written data).
 *
 * Seed rules shown: WRITE-1 (all local segments into the remote buffer, in
 * order), WRITE-6 (the remote buffer needs remote write privilege).
 */
#include "example.h"

int main(int argc, char **argv)
{
	static char source[32] = "written without a receive";
	static char target[32];
	static char note[8], note_in[8];
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_LMR_TRIPLET src_iov, tgt_iov, note_iov, note_in_iov;
	DAT_LMR_HANDLE lmr[4];
	DAT_RMR_TRIPLET remote;
	struct side server, client;
	DAT_DTO_COOKIE cookie;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	int i;

	CHECK(dat_ia_open(example_ia_name(argc, argv), 8, &async, &ia));
	CHECK(dat_pz_create(ia, &pz));
	lmr[0] = example_register(ia, pz, source, sizeof(source), 0, &src_iov, NULL);
	/* The target region: remote peers may write into it. */
	lmr[1] = example_register(ia, pz, target, sizeof(target),
				  DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &tgt_iov, &remote);
	lmr[2] = example_register(ia, pz, note, sizeof(note), 0, &note_iov, NULL);
	lmr[3] = example_register(ia, pz, note_in, sizeof(note_in), 0,
				  &note_in_iov, NULL);

	example_side(ia, pz, NULL, &server);
	example_side(ia, pz, NULL, &client);
	cookie.as_64 = 1;
	CHECK(dat_ep_post_recv(server.ep, 1, &note_in_iov, cookie,
			       DAT_COMPLETION_DEFAULT_FLAG));
	example_connect(ia, &server, &client);

	/* The write, then a message that tells the target it is there. */
	cookie.as_64 = 2;
	CHECK(dat_ep_post_rdma_write(client.ep, 1, &src_iov, cookie, &remote,
				     DAT_COMPLETION_DEFAULT_FLAG));
	strcpy(note, "done");
	cookie.as_64 = 3;
	CHECK(dat_ep_post_send(client.ep, 1, &note_iov, cookie,
			       DAT_COMPLETION_DEFAULT_FLAG));

	/* Requests complete in the order they were posted. */
	if (example_wait_dto(client.dto_evd).user_cookie.as_64 != 2 ||
	    example_wait_dto(client.dto_evd).user_cookie.as_64 != 3)
		return 1;
	example_wait_dto(server.dto_evd);	/* the note arrived... */
	printf("target now holds: \"%s\"\n", target);	/* ...after the data */
	if (strcmp(target, source) != 0)
		return 1;

	example_teardown(&server, &client);
	for (i = 0; i < 4; i++)
		CHECK(dat_lmr_free(lmr[i]));
	CHECK(dat_pz_free(pz));
	CHECK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	printf("rdma-write: ok\n");
	return 0;
}
