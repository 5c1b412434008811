/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every example needs and no example is about: checking return codes,
 * waiting for one event, and the connection of two endpoints.
 *
 * Each example runs both sides of a connection in one process, over the
 * loopback interface: a "server" endpoint that waits for a connection on a
 * public service point (PSP) and a "client" endpoint that connects to it.
 * Two processes, or two hosts, would run the same calls; only the address
 * the client connects to would come from elsewhere.
 *
 * The IA name is the first argument, or $SOFTDAPL_IA, or "softdapl-lo" (see
 * dat.conf.example).
 */
#ifndef EXAMPLE_H
#define EXAMPLE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dat2/udat.h>

#include "dat-names.h"	/* tools/: names of events and DTO statuses */

/* Every DAT call returns a DAT_RETURN; an example stops at the first error. */
#define CHECK(call) example_check((call), #call, __FILE__, __LINE__)

static inline void example_check(DAT_RETURN r, const char *what,
				 const char *file, int line)
{
	const char *major = "?", *minor = "";

	if (r == DAT_SUCCESS)
		return;
	dat_strerror(r, &major, &minor);
	fprintf(stderr, "%s:%d: %s: %s %s\n", file, line, what, major, minor);
	exit(1);
}

/* Microseconds to wait for an event before calling the run a failure. */
#define EXAMPLE_TIMEOUT (10 * 1000 * 1000)

/*
 * Waits for the next event on @evd and checks that it is @expected;
 * returns it. dat_evd_wait blocks without spinning until the threshold
 * (here 1 event) is reached or the timeout expires.
 */
static inline DAT_EVENT example_wait(DAT_EVD_HANDLE evd,
				     DAT_EVENT_NUMBER expected)
{
	DAT_EVENT event;
	DAT_COUNT more;

	CHECK(dat_evd_wait(evd, EXAMPLE_TIMEOUT, 1, &event, &more));
	if (event.event_number != expected) {
		fprintf(stderr, "expected %s, got %s\n",
			dat_event_name(expected),
			dat_event_name(event.event_number));
		exit(1);
	}
	return event;
}

/* Waits for a DTO completion and checks that it succeeded. */
static inline DAT_DTO_COMPLETION_EVENT_DATA example_wait_dto(DAT_EVD_HANDLE evd)
{
	DAT_EVENT e = example_wait(evd, DAT_DTO_COMPLETION_EVENT);

	if (e.event_data.dto_completion_event_data.status != DAT_DTO_SUCCESS) {
		fprintf(stderr, "DTO completed with %s\n",
			dat_dto_status_name(e.event_data.dto_completion_event_data.status));
		exit(1);
	}
	return e.event_data.dto_completion_event_data;
}

/* The IA name: argv[1], $SOFTDAPL_IA or softdapl-lo. */
static inline char *example_ia_name(int argc, char **argv)
{
	static char name[DAT_NAME_MAX_LENGTH];
	const char *env = getenv("SOFTDAPL_IA");

	snprintf(name, sizeof(name), "%s",
		 argc > 1 ? argv[1] : env != NULL ? env : "softdapl-lo");
	return name;
}

/* One side of a connection: its endpoint and the event queues it uses. */
struct side {
	DAT_EP_HANDLE	ep;
	DAT_EVD_HANDLE	dto_evd;	/* send, receive and RDMA completions */
	DAT_EVD_HANDLE	conn_evd;	/* connection events */
};

/*
 * Creates the event queues and the endpoint of one side in PZ @pz.
 * @attr may be NULL for the provider's defaults.
 */
static inline void example_side(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
				const DAT_EP_ATTR *attr, struct side *s)
{
	CHECK(dat_evd_create(ia, 32, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG,
			     &s->dto_evd));
	CHECK(dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG,
			     &s->conn_evd));
	CHECK(dat_ep_create(ia, pz, s->dto_evd, s->dto_evd, s->conn_evd, attr,
			    &s->ep));
}

/*
 * Connects @client to @server: the server listens on a PSP whose port the
 * provider chooses (a connection qualifier is a TCP port), the client
 * connects to the IA's own address, the server accepts the request, and
 * both see DAT_CONNECTION_EVENT_ESTABLISHED.
 */
static inline void example_connect(DAT_IA_HANDLE ia, struct side *server,
				   struct side *client)
{
	DAT_EVD_HANDLE cr_evd;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL port;
	DAT_IA_ATTR attr;
	DAT_EVENT e;

	CHECK(dat_ia_query(ia, NULL, DAT_IA_FIELD_IA_ADDRESS_PTR, &attr, 0, NULL));
	CHECK(dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &cr_evd));
	CHECK(dat_psp_create_any(ia, &port, cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));

	CHECK(dat_ep_connect(client->ep, attr.ia_address_ptr, port,
			     EXAMPLE_TIMEOUT, 0, NULL, DAT_QOS_BEST_EFFORT,
			     DAT_CONNECT_DEFAULT_FLAG));

	e = example_wait(cr_evd, DAT_CONNECTION_REQUEST_EVENT);
	CHECK(dat_cr_accept(e.event_data.cr_arrival_event_data.cr_handle,
			    server->ep, 0, NULL));

	example_wait(server->conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	example_wait(client->conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);

	/* The PSP can go: the connection no longer needs it. */
	CHECK(dat_psp_free(psp));
	CHECK(dat_evd_free(cr_evd));
}

/* Disconnects both sides gracefully and frees what example_side made. */
static inline void example_teardown(struct side *server, struct side *client)
{
	CHECK(dat_ep_disconnect(client->ep, DAT_CLOSE_GRACEFUL_FLAG));
	example_wait(client->conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	example_wait(server->conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	CHECK(dat_ep_free(client->ep));
	CHECK(dat_ep_free(server->ep));
	CHECK(dat_evd_free(client->dto_evd));
	CHECK(dat_evd_free(client->conn_evd));
	CHECK(dat_evd_free(server->dto_evd));
	CHECK(dat_evd_free(server->conn_evd));
}

/*
 * Registers @len bytes at @buf in @pz for local read and write and for
 * remote access @remote (0 for none); returns the triplet a post names it
 * by and, in @rmr, what a peer needs to reach it.
 */
static inline DAT_LMR_HANDLE example_register(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
					      void *buf, DAT_VLEN len,
					      DAT_MEM_PRIV_FLAGS remote,
					      DAT_LMR_TRIPLET *iov,
					      DAT_RMR_TRIPLET *rmr)
{
	DAT_REGION_DESCRIPTION region;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_VLEN reg_len;
	DAT_VADDR reg_addr;

	region.for_va = buf;
	CHECK(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, region, len, pz,
			     DAT_MEM_PRIV_LOCAL_READ_FLAG |
			     DAT_MEM_PRIV_LOCAL_WRITE_FLAG | remote,
			     DAT_VA_TYPE_VA, &lmr, &lctx, &rctx, &reg_len,
			     &reg_addr));
	iov->lmr_context = lctx;
	iov->virtual_address = (DAT_VADDR)(uintptr_t)buf;
	iov->segment_length = (DAT_SEG_LENGTH)len;
	if (rmr != NULL) {
		rmr->rmr_context = rctx;
		rmr->virtual_address = (DAT_VADDR)(uintptr_t)buf;
		rmr->segment_length = (DAT_SEG_LENGTH)len;
	}
	return lmr;
}

#endif
