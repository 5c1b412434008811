/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * access-error: an RDMA write the target did not allow.
 *
 * A target exposes memory with the privileges it chooses. Here it grants
 * remote read only (DAT_MEM_PRIV_REMOTE_READ_FLAG), and the initiator
 * tries to write into it anyway. The initiator's post succeeds: its own
 * side cannot know what the target granted. The target's side checks the
 * rmr_context, the range and the privilege of every RDMA before it
 * touches memory, refuses this one, and writes nothing.
 *
 * There is no partial failure on a reliable connection: the initiator's
 * write completes with DAT_DTO_ERR_REMOTE_ACCESS, the connection breaks,
 * both endpoints go to DISCONNECTED and each side's connection EVD gets
 * DAT_CONNECTION_EVENT_BROKEN. Work still queued is flushed: the
 * receive the target had posted completes with DAT_DTO_ERR_FLUSHED.
 * To go on, both sides must connect again (here they just give up).
 *
 * Seed rule shown: WRITE-6 (the remote buffer needs remote write
 * privilege).
 */
#include "example.h"

/* Waits for a DTO completion with status @status; returns it. */
static DAT_DTO_COMPLETION_EVENT_DATA wait_status(DAT_EVD_HANDLE evd,
					       DAT_DTO_COMPLETION_STATUS status)
{
	DAT_EVENT e = example_wait(evd, DAT_DTO_COMPLETION_EVENT);
	DAT_DTO_COMPLETION_EVENT_DATA d = e.event_data.dto_completion_event_data;

	if (d.status != status) {
		fprintf(stderr, "expected %s, got %s\n",
			dat_dto_status_name(status),
			dat_dto_status_name(d.status));
		exit(1);
	}
	return d;
}

/* The state of endpoint @ep, by dat_ep_query. */
static DAT_EP_STATE ep_state(DAT_EP_HANDLE ep)
{
	DAT_EP_PARAM p;

	CHECK(dat_ep_query(ep, DAT_EP_FIELD_EP_STATE, &p));
	return p.ep_state;
}

int main(int argc, char **argv)
{
	static char source[32] = "not welcome here";
	static char target[32] = "read-only data";
	static char inbox[16];
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_LMR_TRIPLET src_iov, tgt_iov, in_iov;
	DAT_DTO_COMPLETION_EVENT_DATA d;
	DAT_LMR_HANDLE lmr[3];
	DAT_RMR_TRIPLET remote;
	struct side server, client;
	DAT_DTO_COOKIE cookie;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	int i;

	CHECK(dat_ia_open(example_ia_name(argc, argv), 8, &async, &ia));
	CHECK(dat_pz_create(ia, &pz));
	lmr[0] = example_register(ia, pz, source, sizeof(source), 0, &src_iov, NULL);
	/* The target grants remote read, not write. */
	lmr[1] = example_register(ia, pz, target, sizeof(target),
				  DAT_MEM_PRIV_REMOTE_READ_FLAG, &tgt_iov, &remote);
	lmr[2] = example_register(ia, pz, inbox, sizeof(inbox), 0, &in_iov, NULL);
	example_side(ia, pz, NULL, &server);
	example_side(ia, pz, NULL, &client);
	cookie.as_64 = 1;
	CHECK(dat_ep_post_recv(server.ep, 1, &in_iov, cookie,
			       DAT_COMPLETION_DEFAULT_FLAG));
	example_connect(ia, &server, &client);

	/* The post itself succeeds: the check is the target's. */
	cookie.as_64 = 2;
	CHECK(dat_ep_post_rdma_write(client.ep, 1, &src_iov, cookie, &remote,
				     DAT_COMPLETION_DEFAULT_FLAG));

	d = wait_status(client.dto_evd, DAT_DTO_ERR_REMOTE_ACCESS);
	printf("initiator: write cookie %llu completed with %s\n",
	       (unsigned long long)d.user_cookie.as_64,
	       dat_dto_status_name(d.status));
	example_wait(client.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	example_wait(server.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	printf("both sides: DAT_CONNECTION_EVENT_BROKEN\n");
	d = wait_status(server.dto_evd, DAT_DTO_ERR_FLUSHED);
	printf("target: receive cookie %llu completed with %s\n",
	       (unsigned long long)d.user_cookie.as_64,
	       dat_dto_status_name(d.status));
	printf("target still holds: \"%s\"\n", target);
	if (strcmp(target, "read-only data") != 0 ||
	    ep_state(client.ep) != DAT_EP_STATE_DISCONNECTED ||
	    ep_state(server.ep) != DAT_EP_STATE_DISCONNECTED)
		return 1;
	printf("both endpoints: DISCONNECTED\n");

	CHECK(dat_ep_free(client.ep));
	CHECK(dat_ep_free(server.ep));
	CHECK(dat_evd_free(client.dto_evd));
	CHECK(dat_evd_free(client.conn_evd));
	CHECK(dat_evd_free(server.dto_evd));
	CHECK(dat_evd_free(server.conn_evd));
	for (i = 0; i < 3; i++)
		CHECK(dat_lmr_free(lmr[i]));
	CHECK(dat_pz_free(pz));
	CHECK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	printf("access-error: ok\n");
	return 0;
}
