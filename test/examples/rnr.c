/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rnr: a message arrives before its receive (receiver not ready).
 *
 * A SEND needs a receive posted at the other end: the message lands in
 * the receive's buffer, nowhere else. Here the client sends at once and
 * the server posts its receive only 300 ms later. Nothing is lost and
 * nothing fails: the message waits.
 *
 * On InfiniBand the receiver's adapter would answer "receiver not ready"
 * (an RNR NAK) and the sender's would send again, up to rnr_retry times,
 * after which the send completes with an error. softdapl has no retry
 * count: the receiving endpoint stops reading its connection until a
 * receive is posted, and TCP's flow control holds the sender meanwhile.
 * The trace says so with an `rnr ... wait` line when the message finds
 * no receive and an `rnr ... resume` line when the receive comes.
 *
 * The sender's completion comes only after the receiver has placed the
 * message, so it too waits the 300 ms: a send completes when its data is
 * safe at the other end, not when it leaves.
 */
#include <time.h>

#include "example.h"

/* Milliseconds since an arbitrary start (CLOCK_MONOTONIC). */
static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int main(int argc, char **argv)
{
	static char sendbuf[32] = "are you ready?";
	static char recvbuf[32];
	const struct timespec late = { 0, 300 * 1000 * 1000 };
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_LMR_TRIPLET send_iov, recv_iov;
	DAT_LMR_HANDLE send_lmr, recv_lmr;
	struct side server, client;
	DAT_DTO_COOKIE cookie;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_EVENT e;
	long t0, waited;

	CHECK(dat_ia_open(example_ia_name(argc, argv), 8, &async, &ia));
	CHECK(dat_pz_create(ia, &pz));
	send_lmr = example_register(ia, pz, sendbuf, sizeof(sendbuf), 0,
				    &send_iov, NULL);
	recv_lmr = example_register(ia, pz, recvbuf, sizeof(recvbuf), 0,
				    &recv_iov, NULL);
	example_side(ia, pz, NULL, &server);
	example_side(ia, pz, NULL, &client);
	example_connect(ia, &server, &client);

	/* The send, with no receive posted at the server. */
	t0 = now_ms();
	cookie.as_64 = 1;
	CHECK(dat_ep_post_send(client.ep, 1, &send_iov, cookie,
			       DAT_COMPLETION_DEFAULT_FLAG));

	/* The server is busy elsewhere: nothing completes meanwhile. */
	nanosleep(&late, NULL);
	if (dat_evd_dequeue(client.dto_evd, &e) == DAT_SUCCESS ||
	    dat_evd_dequeue(server.dto_evd, &e) == DAT_SUCCESS) {
		fprintf(stderr, "a completion before the receive was posted\n");
		return 1;
	}
	printf("300 ms later: no completion on either side\n");

	/* Now the receive: the waiting message fills it at once. */
	cookie.as_64 = 2;
	CHECK(dat_ep_post_recv(server.ep, 1, &recv_iov, cookie,
			       DAT_COMPLETION_DEFAULT_FLAG));
	example_wait_dto(server.dto_evd);
	example_wait_dto(client.dto_evd);
	waited = now_ms() - t0;
	printf("received \"%s\"; the send completed after %s300 ms\n",
	       recvbuf, waited >= 300 ? "more than " : "less than ");
	if (strcmp(recvbuf, sendbuf) != 0 || waited < 300)
		return 1;

	example_teardown(&server, &client);
	CHECK(dat_lmr_free(send_lmr));
	CHECK(dat_lmr_free(recv_lmr));
	CHECK(dat_pz_free(pz));
	CHECK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	printf("rnr: ok\n");
	return 0;
}
