/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * send-recv: the two-sided transfer.
 *
 * The receiver posts a buffer first (dat_ep_post_recv); the sender's
 * message lands in it (dat_ep_post_send). Both sides learn of it from a DTO
 * completion event: the receiver's says how many bytes arrived.
 *
 * Seed rules shown: RECV-1 (the next message fills the next posted
 * receive), SEND-1 (all segments, in order, as one message), SEND-6 (the
 * completion carries cookie, status and length), COMMON-2 (the cookie comes
 * back unchanged).
 */
#include "example.h"

int main(int argc, char **argv)
{
	static char sendbuf[64] = "hello over softdapl";
	static char recvbuf[64];
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_LMR_TRIPLET send_iov, recv_iov;
	DAT_LMR_HANDLE send_lmr, recv_lmr;
	DAT_DTO_COMPLETION_EVENT_DATA done;
	struct side server, client;
	DAT_DTO_COOKIE cookie;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;

	/* An IA, a protection zone, and memory registered in it. */
	CHECK(dat_ia_open(example_ia_name(argc, argv), 8, &async, &ia));
	CHECK(dat_pz_create(ia, &pz));
	send_lmr = example_register(ia, pz, sendbuf, sizeof(sendbuf), 0,
				    &send_iov, NULL);
	recv_lmr = example_register(ia, pz, recvbuf, sizeof(recvbuf), 0,
				    &recv_iov, NULL);

	example_side(ia, pz, NULL, &server);
	example_side(ia, pz, NULL, &client);

	/* A receive may be posted before the connection exists (RECV-6). */
	cookie.as_64 = 0x1111;
	CHECK(dat_ep_post_recv(server.ep, 1, &recv_iov, cookie,
			       DAT_COMPLETION_DEFAULT_FLAG));

	example_connect(ia, &server, &client);

	/* Send the string and its terminating NUL. */
	send_iov.segment_length = (DAT_SEG_LENGTH)strlen(sendbuf) + 1;
	cookie.as_64 = 0x2222;
	CHECK(dat_ep_post_send(client.ep, 1, &send_iov, cookie,
			       DAT_COMPLETION_DEFAULT_FLAG));

	done = example_wait_dto(client.dto_evd);
	printf("send completed: cookie 0x%llx, %u bytes\n",
	       (unsigned long long)done.user_cookie.as_64,
	       (unsigned)done.transfered_length);

	done = example_wait_dto(server.dto_evd);
	printf("receive completed: cookie 0x%llx, %u bytes: \"%s\"\n",
	       (unsigned long long)done.user_cookie.as_64,
	       (unsigned)done.transfered_length, recvbuf);
	if (strcmp(recvbuf, sendbuf) != 0 || done.user_cookie.as_64 != 0x1111)
		return 1;

	example_teardown(&server, &client);
	CHECK(dat_lmr_free(send_lmr));
	CHECK(dat_lmr_free(recv_lmr));
	CHECK(dat_pz_free(pz));
	CHECK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	printf("send-recv: ok\n");
	return 0;
}
