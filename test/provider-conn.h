/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers for the EP, DTO and SRQ tests (test-provider-ep.c defines
 * them): one side of a connection with its objects and a registered
 * buffer, connecting two sides over loopback, an EP's state, a port
 * nobody listens on, and waiting for events. Every helper fails the test
 * on an unexpected result.
 */
#ifndef TEST_PROVIDER_CONN_H
#define TEST_PROVIDER_CONN_H

#include <stddef.h>
#include <dat2/udat.h>

#define ERR(type, sub) ((DAT_RETURN)(DAT_CLASS_ERROR | (type) | (sub)))

/* One side: an EP with its EVDs, a PZ, a registered buffer. */
struct sdt_node {
	DAT_IA_HANDLE	ia;
	DAT_PZ_HANDLE	pz;
	DAT_EVD_HANDLE	req_evd, recv_evd, conn_evd, cr_evd;
	DAT_EP_HANDLE	ep;
	DAT_PSP_HANDLE	psp;
	DAT_CONN_QUAL	port;
	char		*buf;
	size_t		len;
	DAT_LMR_HANDLE	lmr;
	DAT_LMR_CONTEXT	lctx;
	DAT_RMR_CONTEXT	rctx;
};

/* Creates the objects of @n on @ia; @attr NULL for deep queues (128). */
void sdt_node_init(struct sdt_node *n, DAT_IA_HANDLE ia, const DAT_EP_ATTR *attr,
		   size_t buflen);
/* Frees what sdt_node_init made (and a PSP). */
void sdt_node_fini(struct sdt_node *n);

/* @srv listens (psp_create_any), @cli connects, both see ESTABLISHED. */
void sdt_connect(struct sdt_node *cli, struct sdt_node *srv);

/* Graceful disconnect from @a; both see DISCONNECTED. */
void sdt_disconnect(struct sdt_node *a, struct sdt_node *b);

/* The IA's address (ia_query), with @port. */
void sdt_ia_addr(DAT_IA_HANDLE ia, struct sockaddr_storage *ss);

/*
 * dat_ep_connect of @ep (on @ia) to the service point at @port of @ia's
 * own address, with @timeout, no private data and the default flags.
 */
void sdt_connect_to(DAT_IA_HANDLE ia, DAT_EP_HANDLE ep, DAT_CONN_QUAL port,
		    DAT_TIMEOUT timeout);

/* The state of @ep (dat_ep_get_status). */
DAT_EP_STATE sdt_ep_state(DAT_EP_HANDLE ep);

/* A loopback TCP port nobody listens on: bound, then closed. */
uint16_t sdt_dead_port(void);

/* Waits up to @ms for one event of @evd; fails the test on timeout. */
DAT_EVENT sdt_wait(DAT_EVD_HANDLE evd, int ms);
/* True if an event is queued (dequeued into @ev). */
int sdt_poll(DAT_EVD_HANDLE evd, DAT_EVENT *ev);
/* Waits for a connection event and checks its number. */
void sdt_expect_conn(DAT_EVD_HANDLE evd, DAT_EVENT_NUMBER num);
/* Waits for a DTO completion and checks it. */
DAT_DTO_COMPLETION_EVENT_DATA sdt_expect_dto(DAT_EVD_HANDLE evd,
					     DAT_DTO_COMPLETION_STATUS status,
					     DAT_DTOS op, uint64_t cookie);
/* Asserts that @evd stays empty for @ms. */
void sdt_expect_none(DAT_EVD_HANDLE evd, int ms);
/*
 * Waits for a DAT_CONNECTION_REQUEST_EVENT on @evd; returns its CR (and
 * the event's data in *@out unless @out is NULL).
 */
DAT_CR_HANDLE sdt_expect_cr(DAT_EVD_HANDLE evd, DAT_CR_ARRIVAL_EVENT_DATA *out);
/*
 * Waits for a watermark event (the provider's SD_EVENT_WATERMARK,
 * DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR) about @h with @reason on the
 * async EVD @evd.
 */
void sdt_expect_watermark(DAT_EVD_HANDLE evd, DAT_HANDLE h, DAT_COUNT reason);

/* A triplet of @n's buffer. */
DAT_LMR_TRIPLET sdt_iov(const struct sdt_node *n, size_t off, size_t len);
/* The RMR triplet of @n's buffer at @off. */
DAT_RMR_TRIPLET sdt_rmr(const struct sdt_node *n, size_t off, size_t len);

/* Posts with a one-segment iov of @n's buffer; return the DAT_RETURN. */
DAT_RETURN sdt_send(struct sdt_node *n, size_t off, size_t len, uint64_t cookie,
		    DAT_COMPLETION_FLAGS flags);
DAT_RETURN sdt_recv(struct sdt_node *n, size_t off, size_t len, uint64_t cookie);

#endif
