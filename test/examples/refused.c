/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * refused: two ways a connection does not happen.
 *
 * 1. Nobody listens on the port: the connect fails at the transport, and
 *    the client's connection EVD gets DAT_CONNECTION_EVENT_NON_PEER_REJECTED.
 * 2. The server listens but says no with dat_cr_reject: the client gets
 *    DAT_CONNECTION_EVENT_PEER_REJECTED, with the private data the server
 *    sent along.
 *
 * Either way the endpoint ends up DISCONNECTED, and dat_ep_reset makes it
 * UNCONNECTED again, ready for another attempt.
 */
#include "example.h"

int main(int argc, char **argv)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL, cr_evd;
	struct side server, client;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL port;
	DAT_IA_ATTR attr;
	DAT_EP_STATE state;
	DAT_BOOLEAN idle_in, idle_out;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_EVENT e;
	char why[] = "not today";

	CHECK(dat_ia_open(example_ia_name(argc, argv), 8, &async, &ia));
	CHECK(dat_pz_create(ia, &pz));
	CHECK(dat_ia_query(ia, NULL, DAT_IA_FIELD_IA_ADDRESS_PTR, &attr, 0, NULL));
	example_side(ia, pz, NULL, &server);
	example_side(ia, pz, NULL, &client);

	/* 1. Find a port nobody listens on: make a PSP, note its port, free it. */
	CHECK(dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &cr_evd));
	CHECK(dat_psp_create_any(ia, &port, cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
	CHECK(dat_psp_free(psp));
	CHECK(dat_ep_connect(client.ep, attr.ia_address_ptr, port, EXAMPLE_TIMEOUT,
			     0, NULL, DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	example_wait(client.conn_evd, DAT_CONNECTION_EVENT_NON_PEER_REJECTED);
	printf("no listener: DAT_CONNECTION_EVENT_NON_PEER_REJECTED\n");
	CHECK(dat_ep_get_status(client.ep, &state, &idle_in, &idle_out));
	if (state != DAT_EP_STATE_DISCONNECTED)
		return 1;
	CHECK(dat_ep_reset(client.ep));

	/* 2. A listener that rejects, with a reason in the private data. */
	CHECK(dat_psp_create_any(ia, &port, cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
	CHECK(dat_ep_connect(client.ep, attr.ia_address_ptr, port, EXAMPLE_TIMEOUT,
			     0, NULL, DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	e = example_wait(cr_evd, DAT_CONNECTION_REQUEST_EVENT);
	CHECK(dat_cr_reject(e.event_data.cr_arrival_event_data.cr_handle,
			    (DAT_COUNT)sizeof(why), why));
	e = example_wait(client.conn_evd, DAT_CONNECTION_EVENT_PEER_REJECTED);
	printf("rejected: DAT_CONNECTION_EVENT_PEER_REJECTED (\"%.*s\")\n",
	       (int)e.event_data.connect_event_data.private_data_size,
	       (const char *)e.event_data.connect_event_data.private_data);
	CHECK(dat_ep_reset(client.ep));

	CHECK(dat_psp_free(psp));
	CHECK(dat_evd_free(cr_evd));
	CHECK(dat_ep_free(client.ep));
	CHECK(dat_ep_free(server.ep));
	CHECK(dat_evd_free(client.dto_evd));
	CHECK(dat_evd_free(client.conn_evd));
	CHECK(dat_evd_free(server.dto_evd));
	CHECK(dat_evd_free(server.conn_evd));
	CHECK(dat_pz_free(pz));
	CHECK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	printf("refused: ok\n");
	return 0;
}
