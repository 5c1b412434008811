/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * flush: what happens to work still queued when a connection ends.
 *
 * The server posts four receives; one message arrives and fills the first.
 * Then the client disconnects. The three receives nobody filled do not
 * vanish: each completes exactly once, with DAT_DTO_ERR_FLUSHED, after the
 * one that completed normally and in the order they were posted. A receive
 * posted on the now DISCONNECTED endpoint is flushed at once (RECV-7).
 */
#include "example.h"

int main(int argc, char **argv)
{
	static char msg[16] = "only one", bufs[4][16], late[16];
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_LMR_TRIPLET msg_iov, buf_iov, late_iov;
	DAT_LMR_HANDLE lmr_msg, lmr_bufs, lmr_late;
	struct side server, client;
	DAT_DTO_COOKIE cookie;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_EVENT e;
	int i;

	CHECK(dat_ia_open(example_ia_name(argc, argv), 8, &async, &ia));
	CHECK(dat_pz_create(ia, &pz));
	lmr_msg = example_register(ia, pz, msg, sizeof(msg), 0, &msg_iov, NULL);
	lmr_bufs = example_register(ia, pz, bufs, sizeof(bufs), 0, &buf_iov, NULL);
	lmr_late = example_register(ia, pz, late, sizeof(late), 0, &late_iov, NULL);

	example_side(ia, pz, NULL, &server);
	example_side(ia, pz, NULL, &client);
	for (i = 0; i < 4; i++) {
		DAT_LMR_TRIPLET one = buf_iov;

		one.virtual_address = (DAT_VADDR)(uintptr_t)bufs[i];
		one.segment_length = sizeof(bufs[i]);
		cookie.as_64 = (DAT_UINT64)i;
		CHECK(dat_ep_post_recv(server.ep, 1, &one, cookie,
				       DAT_COMPLETION_DEFAULT_FLAG));
	}
	example_connect(ia, &server, &client);

	cookie.as_64 = 100;
	CHECK(dat_ep_post_send(client.ep, 1, &msg_iov, cookie,
			       DAT_COMPLETION_DEFAULT_FLAG));
	example_wait_dto(client.dto_evd);

	CHECK(dat_ep_disconnect(client.ep, DAT_CLOSE_GRACEFUL_FLAG));
	example_wait(client.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	example_wait(server.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);

	/* Receive 0 got the message; 1, 2 and 3 are flushed, in order. */
	for (i = 0; i < 4; i++) {
		DAT_DTO_COMPLETION_EVENT_DATA *d = &e.event_data.dto_completion_event_data;

		e = example_wait(server.dto_evd, DAT_DTO_COMPLETION_EVENT);
		printf("receive %llu: %s\n", (unsigned long long)d->user_cookie.as_64,
		       d->status == DAT_DTO_SUCCESS ? "message" :
		       d->status == DAT_DTO_ERR_FLUSHED ? "flushed" : "other");
		if (d->user_cookie.as_64 != (DAT_UINT64)i ||
		    d->status != (i == 0 ? DAT_DTO_SUCCESS : DAT_DTO_ERR_FLUSHED))
			return 1;
	}

	/* RECV-7: posting on a disconnected endpoint flushes at once. */
	cookie.as_64 = 200;
	CHECK(dat_ep_post_recv(server.ep, 1, &late_iov, cookie,
			       DAT_COMPLETION_DEFAULT_FLAG));
	e = example_wait(server.dto_evd, DAT_DTO_COMPLETION_EVENT);
	if (e.event_data.dto_completion_event_data.status != DAT_DTO_ERR_FLUSHED)
		return 1;
	printf("receive 200 posted after the disconnect: flushed\n");

	CHECK(dat_ep_free(client.ep));
	CHECK(dat_ep_free(server.ep));
	CHECK(dat_evd_free(client.dto_evd));
	CHECK(dat_evd_free(client.conn_evd));
	CHECK(dat_evd_free(server.dto_evd));
	CHECK(dat_evd_free(server.conn_evd));
	CHECK(dat_lmr_free(lmr_msg));
	CHECK(dat_lmr_free(lmr_bufs));
	CHECK(dat_lmr_free(lmr_late));
	CHECK(dat_pz_free(pz));
	CHECK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	printf("flush: ok\n");
	return 0;
}
