/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srq: one pool of receive buffers for several connections.
 *
 * Two server endpoints share a shared receive queue (SRQ). The server posts
 * its buffers once, to the SRQ (dat_srq_post_recv); whichever connection
 * receives a message takes the next buffer (SRQ-1). Each completion names
 * the endpoint that took the buffer, on that endpoint's receive EVD.
 * Messages of one connection arrive in the order they were sent; between
 * connections there is no order (SRQ-4).
 */
#include "example.h"

#define NBUF 4

int main(int argc, char **argv)
{
	static char out[2][16] = { "from client 0", "from client 1" };
	static char in[NBUF][16];
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL, recv_evd;
	DAT_LMR_TRIPLET out_iov[2], in_iov;
	DAT_LMR_HANDLE lmr_out[2], lmr_in;
	struct side server[2], client[2];
	DAT_SRQ_ATTR srq_attr;
	DAT_SRQ_HANDLE srq;
	DAT_DTO_COOKIE cookie;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	int i, seen[2] = { 0, 0 };

	CHECK(dat_ia_open(example_ia_name(argc, argv), 8, &async, &ia));
	CHECK(dat_pz_create(ia, &pz));
	for (i = 0; i < 2; i++)
		lmr_out[i] = example_register(ia, pz, out[i], sizeof(out[i]), 0,
					      &out_iov[i], NULL);
	lmr_in = example_register(ia, pz, in, sizeof(in), 0, &in_iov, NULL);

	/* The SRQ and its buffers, posted before any connection exists. */
	srq_attr.max_recv_dtos = NBUF;
	srq_attr.max_recv_iov = 1;
	srq_attr.low_watermark = DAT_SRQ_LW_DEFAULT;
	CHECK(dat_srq_create(ia, pz, &srq_attr, &srq));
	for (i = 0; i < NBUF; i++) {
		DAT_LMR_TRIPLET one = in_iov;

		one.virtual_address = (DAT_VADDR)(uintptr_t)in[i];
		one.segment_length = sizeof(in[i]);
		cookie.as_64 = (DAT_UINT64)i;
		CHECK(dat_srq_post_recv(srq, 1, &one, cookie));
	}

	/* Both server endpoints take their receive buffers from the SRQ. */
	CHECK(dat_evd_create(ia, 16, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &recv_evd));
	for (i = 0; i < 2; i++) {
		server[i].dto_evd = recv_evd;
		CHECK(dat_evd_create(ia, 8, DAT_HANDLE_NULL,
				     DAT_EVD_CONNECTION_FLAG, &server[i].conn_evd));
		CHECK(dat_ep_create_with_srq(ia, pz, recv_evd, recv_evd,
					     server[i].conn_evd, srq, NULL,
					     &server[i].ep));
		example_side(ia, pz, NULL, &client[i]);
		example_connect(ia, &server[i], &client[i]);
	}

	for (i = 0; i < 2; i++) {
		cookie.as_64 = 100 + (DAT_UINT64)i;
		CHECK(dat_ep_post_send(client[i].ep, 1, &out_iov[i], cookie,
				       DAT_COMPLETION_DEFAULT_FLAG));
		example_wait_dto(client[i].dto_evd);
	}
	for (i = 0; i < 2; i++) {
		DAT_DTO_COMPLETION_EVENT_DATA d = example_wait_dto(recv_evd);
		int who = d.ep_handle == server[0].ep ? 0 : 1;
		const char *buf = in[d.user_cookie.as_64];

		printf("buffer %llu taken by server endpoint %d: \"%s\"\n",
		       (unsigned long long)d.user_cookie.as_64, who, buf);
		if (strcmp(buf, out[who]) != 0)
			return 1;
		seen[who]++;
	}
	if (seen[0] != 1 || seen[1] != 1)
		return 1;

	/*
	 * Disconnecting: buffers an endpoint took but did not fill would be
	 * flushed to it (SRQ-7); the two left in the SRQ stay there and are
	 * freed with the SRQ.
	 */
	for (i = 0; i < 2; i++) {
		CHECK(dat_ep_disconnect(client[i].ep, DAT_CLOSE_GRACEFUL_FLAG));
		example_wait(client[i].conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
		example_wait(server[i].conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
		CHECK(dat_ep_free(client[i].ep));
		CHECK(dat_ep_free(server[i].ep));
		CHECK(dat_evd_free(client[i].dto_evd));
		CHECK(dat_evd_free(client[i].conn_evd));
		CHECK(dat_evd_free(server[i].conn_evd));
		CHECK(dat_lmr_free(lmr_out[i]));
	}
	CHECK(dat_srq_free(srq));
	CHECK(dat_evd_free(recv_evd));
	CHECK(dat_lmr_free(lmr_in));
	CHECK(dat_pz_free(pz));
	CHECK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	printf("srq: ok\n");
	return 0;
}
