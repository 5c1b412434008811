/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoints and connection management over loopback, through the
 * registry like any consumer: connect, accept, reject, no listener,
 * timeout, disconnect (graceful, abrupt, by free), reset, the state
 * checks of each call, RSPs. Also the helpers of provider-conn.h.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "provider-conn.h"
#include "provider-util.h"
#include "test.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                             */

/*
 * The tests' EP when they ask for none: queues deeper than the provider's
 * defaults (OFED's 16), for the tests that post bursts.
 */
static const DAT_EP_ATTR deep_attr = {
	.service_type = DAT_SERVICE_TYPE_RC,
	.qos = DAT_QOS_BEST_EFFORT,
	.recv_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG,
	.request_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG,
	.max_recv_dtos = 128,
	.max_request_dtos = 128,
	.max_recv_iov = 8,
	.max_request_iov = 8,
	.srq_soft_hw = DAT_HW_DEFAULT,
};

void sdt_node_init(struct sdt_node *n, DAT_IA_HANDLE ia, const DAT_EP_ATTR *attr,
		   size_t buflen)
{
	DAT_REGION_DESCRIPTION rd;
	DAT_VLEN rlen;
	DAT_VADDR raddr;

	if (attr == NULL)
		attr = &deep_attr;

	memset(n, 0, sizeof(*n));
	n->ia = ia;
	ASSERT_OK(dat_pz_create(ia, &n->pz));
	ASSERT_OK(dat_evd_create(ia, 256, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &n->req_evd));
	ASSERT_OK(dat_evd_create(ia, 256, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &n->recv_evd));
	ASSERT_OK(dat_evd_create(ia, 16, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG, &n->conn_evd));
	ASSERT_OK(dat_evd_create(ia, 16, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &n->cr_evd));
	ASSERT_OK(dat_ep_create(ia, n->pz, n->recv_evd, n->req_evd, n->conn_evd,
				attr, &n->ep));
	n->len = buflen;
	n->buf = calloc(1, buflen);
	ASSERT_NOT_NULL(n->buf);
	rd.for_va = n->buf;
	ASSERT_OK(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd, buflen, n->pz,
				 DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &n->lmr,
				 &n->lctx, &n->rctx, &rlen, &raddr));
}

void sdt_node_fini(struct sdt_node *n)
{
	if (n->psp)
		ASSERT_OK(dat_psp_free(n->psp));
	if (n->ep)
		ASSERT_OK(dat_ep_free(n->ep));
	ASSERT_OK(dat_lmr_free(n->lmr));
	ASSERT_OK(dat_evd_free(n->req_evd));
	ASSERT_OK(dat_evd_free(n->recv_evd));
	ASSERT_OK(dat_evd_free(n->conn_evd));
	ASSERT_OK(dat_evd_free(n->cr_evd));
	ASSERT_OK(dat_pz_free(n->pz));
	free(n->buf);
	memset(n, 0, sizeof(*n));
}

void sdt_ia_addr(DAT_IA_HANDLE ia, struct sockaddr_storage *ss)
{
	DAT_IA_ATTR attr;
	DAT_EVD_HANDLE async;

	ASSERT_OK(dat_ia_query(ia, &async, DAT_IA_FIELD_IA_ADDRESS_PTR, &attr,
			       0, NULL));
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, attr.ia_address_ptr, attr.ia_address_ptr->sa_family == AF_INET6 ?
	       sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
}

void sdt_connect_to(DAT_IA_HANDLE ia, DAT_EP_HANDLE ep, DAT_CONN_QUAL port,
		    DAT_TIMEOUT timeout)
{
	struct sockaddr_storage ss;

	sdt_ia_addr(ia, &ss);
	ASSERT_OK(dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&ss, port, timeout,
				 0, NULL, DAT_QOS_BEST_EFFORT,
				 DAT_CONNECT_DEFAULT_FLAG));
}

DAT_EP_STATE sdt_ep_state(DAT_EP_HANDLE ep)
{
	DAT_EP_STATE s;

	ASSERT_OK(dat_ep_get_status(ep, &s, NULL, NULL));
	return s;
}

uint16_t sdt_dead_port(void)
{
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	ASSERT_GE(fd, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_OK(bind(fd, (struct sockaddr *)&sin, sizeof(sin)));
	ASSERT_OK(getsockname(fd, (struct sockaddr *)&sin, &sl));
	close(fd);
	return ntohs(sin.sin_port);
}

DAT_EVENT sdt_wait(DAT_EVD_HANDLE evd, int ms)
{
	DAT_EVENT ev;
	DAT_COUNT nmore;
	DAT_RETURN r;

	memset(&ev, 0, sizeof(ev));
	r = dat_evd_wait(evd, (DAT_TIMEOUT)(ms * 1000 * test_timeout_scale()), 1,
			 &ev, &nmore);
	if (r != DAT_SUCCESS)
		TEST_FAIL("dat_evd_wait: 0x%08x", (unsigned)r);
	return ev;
}

int sdt_poll(DAT_EVD_HANDLE evd, DAT_EVENT *ev)
{
	return dat_evd_dequeue(evd, ev) == DAT_SUCCESS;
}

void sdt_expect_conn(DAT_EVD_HANDLE evd, DAT_EVENT_NUMBER num)
{
	DAT_EVENT ev = sdt_wait(evd, 10000);

	if (ev.event_number != num)
		TEST_FAIL("connection event 0x%x, expected 0x%x",
			  (unsigned)ev.event_number, (unsigned)num);
}

DAT_DTO_COMPLETION_EVENT_DATA sdt_expect_dto(DAT_EVD_HANDLE evd,
					     DAT_DTO_COMPLETION_STATUS status,
					     DAT_DTOS op, uint64_t cookie)
{
	DAT_EVENT ev = sdt_wait(evd, 10000);
	DAT_DTO_COMPLETION_EVENT_DATA *d = &ev.event_data.dto_completion_event_data;

	ASSERT_EQ(ev.event_number, DAT_DTO_COMPLETION_EVENT);
	if (d->status != status || d->operation != op ||
	    d->user_cookie.as_64 != cookie)
		TEST_FAIL("DTO status %d op %d cookie %llu, expected %d %d %llu",
			  d->status, d->operation,
			  (unsigned long long)d->user_cookie.as_64, status, op,
			  (unsigned long long)cookie);
	return *d;
}

void sdt_expect_none(DAT_EVD_HANDLE evd, int ms)
{
	DAT_EVENT ev;

	test_sleep_ms((unsigned)ms);
	if (sdt_poll(evd, &ev))
		TEST_FAIL("unexpected event 0x%x", (unsigned)ev.event_number);
}

DAT_CR_HANDLE sdt_expect_cr(DAT_EVD_HANDLE evd, DAT_CR_ARRIVAL_EVENT_DATA *out)
{
	DAT_EVENT ev = sdt_wait(evd, 10000);

	ASSERT_EQ(ev.event_number, DAT_CONNECTION_REQUEST_EVENT);
	if (out)
		*out = ev.event_data.cr_arrival_event_data;
	return ev.event_data.cr_arrival_event_data.cr_handle;
}

void sdt_expect_watermark(DAT_EVD_HANDLE evd, DAT_HANDLE h, DAT_COUNT reason)
{
	DAT_EVENT ev = sdt_wait(evd, 10000);

	ASSERT_EQ(ev.event_number, DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR);
	ASSERT_PTR_EQ(ev.event_data.asynch_error_event_data.dat_handle, h);
	ASSERT_EQ(ev.event_data.asynch_error_event_data.reason, reason);
}

DAT_LMR_TRIPLET sdt_iov(const struct sdt_node *n, size_t off, size_t len)
{
	DAT_LMR_TRIPLET t;

	t.virtual_address = (DAT_VADDR)(uintptr_t)(n->buf + off);
	t.segment_length = (DAT_SEG_LENGTH)len;
	t.lmr_context = n->lctx;
	return t;
}

DAT_RMR_TRIPLET sdt_rmr(const struct sdt_node *n, size_t off, size_t len)
{
	DAT_RMR_TRIPLET t;

	t.virtual_address = (DAT_VADDR)(uintptr_t)(n->buf + off);
	t.segment_length = (DAT_SEG_LENGTH)len;
	t.rmr_context = n->rctx;
	return t;
}

DAT_RETURN sdt_send(struct sdt_node *n, size_t off, size_t len, uint64_t cookie,
		    DAT_COMPLETION_FLAGS flags)
{
	DAT_LMR_TRIPLET t = sdt_iov(n, off, len);
	DAT_DTO_COOKIE c;

	c.as_64 = cookie;
	return dat_ep_post_send(n->ep, 1, &t, c, flags);
}

DAT_RETURN sdt_recv(struct sdt_node *n, size_t off, size_t len, uint64_t cookie)
{
	DAT_LMR_TRIPLET t = sdt_iov(n, off, len);
	DAT_DTO_COOKIE c;

	c.as_64 = cookie;
	return dat_ep_post_recv(n->ep, 1, &t, c, DAT_COMPLETION_DEFAULT_FLAG);
}

/* Server side of sdt_connect: the CR arrives, is checked and accepted. */
static void accept_one(struct sdt_node *srv, const char *pdata_in,
		       char *pdata_out)
{
	DAT_EVENT ev = sdt_wait(srv->cr_evd, 10000);
	DAT_CR_ARRIVAL_EVENT_DATA *cr = &ev.event_data.cr_arrival_event_data;
	DAT_CR_PARAM p;

	ASSERT_EQ(ev.event_number, DAT_CONNECTION_REQUEST_EVENT);
	ASSERT_PTR_EQ(cr->sp_handle.psp_handle, srv->psp);
	ASSERT_UINT64_EQ(cr->conn_qual, srv->port);
	ASSERT_OK(dat_cr_query(cr->cr_handle, DAT_CR_FIELD_ALL, &p));
	ASSERT_EQ(p.private_data_size, pdata_in ? (DAT_COUNT)strlen(pdata_in) + 1 : 0);
	if (pdata_in)
		ASSERT_STR_EQ((char *)p.private_data, pdata_in);
	ASSERT_NULL(p.local_ep_handle);
	ASSERT_OK(dat_cr_accept(cr->cr_handle, srv->ep,
				pdata_out ? (DAT_COUNT)strlen(pdata_out) + 1 : 0,
				pdata_out));
}

void sdt_connect(struct sdt_node *cli, struct sdt_node *srv)
{
	struct sockaddr_storage ss;
	static char req[] = "hello from the client";
	static char welcome[] = "welcome";
	DAT_EVENT ev;

	if (srv->psp == NULL)
		ASSERT_OK(dat_psp_create_any(srv->ia, &srv->port, srv->cr_evd,
					     DAT_PSP_CONSUMER_FLAG, &srv->psp));
	sdt_ia_addr(cli->ia, &ss);
	ASSERT_OK(dat_ep_connect(cli->ep, (DAT_IA_ADDRESS_PTR)&ss, srv->port,
				 DAT_TIMEOUT_INFINITE, sizeof(req), req,
				 DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	accept_one(srv, req, welcome);
	ev = sdt_wait(cli->conn_evd, 10000);
	ASSERT_EQ(ev.event_number, DAT_CONNECTION_EVENT_ESTABLISHED);
	ASSERT_PTR_EQ(ev.event_data.connect_event_data.ep_handle, cli->ep);
	ASSERT_EQ(ev.event_data.connect_event_data.private_data_size, 8);
	ASSERT_STR_EQ((char *)ev.event_data.connect_event_data.private_data,
		      "welcome");
	sdt_expect_conn(srv->conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
}

void sdt_disconnect(struct sdt_node *a, struct sdt_node *b)
{
	ASSERT_OK(dat_ep_disconnect(a->ep, DAT_CLOSE_GRACEFUL_FLAG));
	sdt_expect_conn(a->conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	sdt_expect_conn(b->conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
}

/* ------------------------------------------------------------------ */
/* Tests                                                               */

TEST_IMPL(provider_ep_create_query_free)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	struct sdt_node n;
	DAT_EP_PARAM p;
	DAT_EP_ATTR a;
	DAT_EP_HANDLE ep;

	sdt_node_init(&n, ia, NULL, 4096);
	ASSERT_OK(dat_ep_query(n.ep, DAT_EP_FIELD_ALL, &p));
	ASSERT_EQ(p.ep_state, DAT_EP_STATE_UNCONNECTED);
	ASSERT_PTR_EQ(p.pz_handle, n.pz);
	ASSERT_PTR_EQ(p.recv_evd_handle, n.recv_evd);
	ASSERT_PTR_EQ(p.request_evd_handle, n.req_evd);
	ASSERT_PTR_EQ(p.connect_evd_handle, n.conn_evd);
	ASSERT_PTR_EQ(p.ia_handle, ia);
	ASSERT_NULL(p.srq_handle);
	ASSERT_EQ(p.ep_attr.service_type, DAT_SERVICE_TYPE_RC);
	ASSERT_GT(p.ep_attr.max_request_dtos, 0);

	/* Bad arguments. */
	ASSERT_DAT_EQ(dat_ep_create(ia, n.pz, n.conn_evd, n.req_evd, n.conn_evd,
				    NULL, &ep),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_RECV));
	ASSERT_DAT_EQ(dat_ep_create(ia, n.pz, n.recv_evd, n.req_evd, n.recv_evd,
				    NULL, &ep),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CONN));
	ASSERT_DAT_EQ(dat_ep_create(ia, n.recv_evd, n.recv_evd, n.req_evd,
				    n.conn_evd, NULL, &ep),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));
	a = p.ep_attr;
	a.max_request_iov = 1000;
	ASSERT_DAT_EQ(dat_ep_create(ia, n.pz, n.recv_evd, n.req_evd, n.conn_evd,
				    &a, &ep),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
	/* An EVD in use cannot be freed. */
	ASSERT_NE(dat_evd_free(n.conn_evd), DAT_SUCCESS);

	/* Modify before connecting. */
	a = p.ep_attr;
	a.max_recv_dtos = 4;
	memset(&p, 0, sizeof(p));
	p.ep_attr = a;
	ASSERT_OK(dat_ep_modify(n.ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, &p));
	ASSERT_OK(dat_ep_query(n.ep, DAT_EP_FIELD_ALL, &p));
	ASSERT_EQ(p.ep_attr.max_recv_dtos, 4);
	ASSERT_DAT_EQ(dat_ep_modify(n.ep, DAT_EP_FIELD_EP_STATE, &p),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));

	sdt_node_fini(&n);
	ASSERT_DAT_EQ(dat_ep_free(n.ep), ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

TEST_IMPL(provider_ep_connect_disconnect)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	struct sdt_node c, s;
	DAT_EP_PARAM p;
	int round;

	sdt_node_init(&c, ia, NULL, 4096);
	sdt_node_init(&s, ia, NULL, 4096);
	for (round = 0; round < 3; round++) {
		sdt_connect(&c, &s);
		ASSERT_EQ(sdt_ep_state(c.ep), DAT_EP_STATE_CONNECTED);
		ASSERT_EQ(sdt_ep_state(s.ep), DAT_EP_STATE_CONNECTED);
		ASSERT_OK(dat_ep_query(s.ep, DAT_EP_FIELD_ALL, &p));
		ASSERT_UINT64_EQ(p.local_port_qual, s.port);
		ASSERT_EQ(p.remote_ia_address_ptr->sa_family, AF_INET);
		/* Invalid in CONNECTED: connect, reset, modify. */
		ASSERT_DAT_EQ(dat_ep_reset(c.ep),
			      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_CONNECTED));
		ASSERT_DAT_EQ(dat_ep_modify(c.ep, 0, &p),
			      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_CONNECTED));
		/* Graceful from either side; both end DISCONNECTED. */
		if (round % 2 == 0)
			sdt_disconnect(&c, &s);
		else
			sdt_disconnect(&s, &c);
		ASSERT_EQ(sdt_ep_state(c.ep), DAT_EP_STATE_DISCONNECTED);
		ASSERT_EQ(sdt_ep_state(s.ep), DAT_EP_STATE_DISCONNECTED);
		/* A no-op when already disconnected. */
		ASSERT_OK(dat_ep_disconnect(c.ep, DAT_CLOSE_ABRUPT_FLAG));
		ASSERT_OK(dat_ep_reset(c.ep));
		ASSERT_OK(dat_ep_reset(s.ep));
		ASSERT_EQ(sdt_ep_state(c.ep), DAT_EP_STATE_UNCONNECTED);
	}
	sdt_node_fini(&c);
	sdt_node_fini(&s);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

TEST_IMPL(provider_ep_two_ias)
{
	DAT_IA_HANDLE ia1 = sdt_open_ia(NULL, NULL);
	DAT_IA_HANDLE ia2;
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	char name[] = SDT_IA_NAME;
	struct sdt_node c, s;

	ASSERT_OK(dat_ia_open(name, 16, &async, &ia2));
	sdt_node_init(&c, ia1, NULL, 4096);
	sdt_node_init(&s, ia2, NULL, 4096);
	sdt_connect(&c, &s);
	/* Abrupt: both see DISCONNECTED. */
	ASSERT_OK(dat_ep_disconnect(c.ep, DAT_CLOSE_ABRUPT_FLAG));
	ASSERT_EQ(sdt_ep_state(c.ep), DAT_EP_STATE_DISCONNECTED);
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	sdt_expect_conn(s.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	sdt_node_fini(&c);
	sdt_node_fini(&s);
	ASSERT_OK(dat_ia_close(ia2, DAT_CLOSE_GRACEFUL_FLAG));
	ASSERT_OK(dat_ia_close(ia1, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

TEST_IMPL(provider_ep_reject)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	struct sockaddr_storage ss;
	struct sdt_node c, s;
	DAT_EVENT ev;
	DAT_CR_HANDLE cr;
	char nope[] = "nope";

	sdt_node_init(&c, ia, NULL, 4096);
	sdt_node_init(&s, ia, NULL, 4096);
	ASSERT_OK(dat_psp_create_any(ia, &s.port, s.cr_evd, DAT_PSP_CONSUMER_FLAG,
				     &s.psp));
	sdt_ia_addr(ia, &ss);
	ASSERT_OK(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&ss, s.port,
				 DAT_TIMEOUT_INFINITE, 0, NULL,
				 DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	ASSERT_EQ(sdt_ep_state(c.ep) == DAT_EP_STATE_ACTIVE_CONNECTION_PENDING ||
		  sdt_ep_state(c.ep) == DAT_EP_STATE_DISCONNECTED, 1);
	ASSERT_DAT_EQ(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&ss, s.port,
				     DAT_TIMEOUT_INFINITE, 0, NULL,
				     DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_ACTCONNPENDING));
	ev = sdt_wait(s.cr_evd, 10000);
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	ASSERT_DAT_EQ(dat_cr_reject(cr, -1, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_OK(dat_cr_reject(cr, 4, nope));
	ev = sdt_wait(c.conn_evd, 10000);
	ASSERT_EQ(ev.event_number, DAT_CONNECTION_EVENT_PEER_REJECTED);
	ASSERT_EQ(ev.event_data.connect_event_data.private_data_size, 4);
	ASSERT_MEM_EQ(ev.event_data.connect_event_data.private_data, "nope", 4);
	ASSERT_EQ(sdt_ep_state(c.ep), DAT_EP_STATE_DISCONNECTED);
	ASSERT_EQ(sdt_ep_state(s.ep), DAT_EP_STATE_UNCONNECTED);
	/* After a reset the EP connects again. */
	ASSERT_OK(dat_ep_reset(c.ep));
	sdt_connect(&c, &s);
	sdt_disconnect(&c, &s);
	sdt_node_fini(&c);
	sdt_node_fini(&s);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

TEST_IMPL(provider_ep_no_listener)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	uint16_t port = sdt_dead_port();
	struct sockaddr_storage ss;
	struct sdt_node c;

	sdt_node_init(&c, ia, NULL, 4096);
	sdt_connect_to(ia, c.ep, port, DAT_TIMEOUT_INFINITE);
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_NON_PEER_REJECTED);
	ASSERT_EQ(sdt_ep_state(c.ep), DAT_EP_STATE_DISCONNECTED);
	/* Arguments. */
	ASSERT_OK(dat_ep_reset(c.ep));
	sdt_ia_addr(ia, &ss);
	ASSERT_DAT_EQ(dat_ep_connect(c.ep, NULL, 1, DAT_TIMEOUT_INFINITE, 0, NULL,
				     DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&ss, 65536,
				     DAT_TIMEOUT_INFINITE, 0, NULL,
				     DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&ss, 1,
				     DAT_TIMEOUT_INFINITE, 2000, c.buf,
				     DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	sdt_node_fini(&c);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

TEST_IMPL(provider_ep_connect_timeout)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	struct sockaddr_storage ss;
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);
	struct sdt_node c;
	int fd;

	/* A TCP listener that never answers the HELLO. */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_OK(bind(fd, (struct sockaddr *)&sin, sizeof(sin)));
	ASSERT_OK(listen(fd, 4));
	ASSERT_OK(getsockname(fd, (struct sockaddr *)&sin, &sl));

	sdt_node_init(&c, ia, NULL, 4096);
	sdt_ia_addr(ia, &ss);
	ASSERT_OK(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&ss, ntohs(sin.sin_port),
				 200 * 1000, 0, NULL, DAT_QOS_BEST_EFFORT,
				 DAT_CONNECT_DEFAULT_FLAG));
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_TIMED_OUT);
	ASSERT_EQ(sdt_ep_state(c.ep), DAT_EP_STATE_DISCONNECTED);
	ASSERT_DAT_EQ(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&ss, 1, 0, 0, NULL,
				     DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	close(fd);
	sdt_node_fini(&c);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

TEST_IMPL(provider_ep_states)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	struct sdt_node c;
	DAT_BOOLEAN ri, qi;
	DAT_EP_STATE st;

	sdt_node_init(&c, ia, NULL, 4096);
	/* SEND-4: only CONNECTED and DISCONNECTED. */
	ASSERT_DAT_EQ(sdt_send(&c, 0, 16, 1, 0),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONNECTED));
	/* RECV-6: receives in any state. */
	ASSERT_OK(sdt_recv(&c, 0, 16, 2));
	ASSERT_OK(dat_ep_get_status(c.ep, &st, &ri, &qi));
	ASSERT_EQ(st, DAT_EP_STATE_UNCONNECTED);
	ASSERT_EQ(ri, DAT_FALSE);
	ASSERT_EQ(qi, DAT_TRUE);
	ASSERT_DAT_EQ(dat_ep_disconnect(c.ep, DAT_CLOSE_GRACEFUL_FLAG),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONNECTED));
	ASSERT_DAT_EQ(dat_ep_disconnect(c.ep, 7),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_OK(dat_ep_reset(c.ep));	/* UNCONNECTED: no-op */
	ASSERT_DAT_EQ(dat_ep_get_status(c.buf, &st, NULL, NULL),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	/* Freeing an EP with a receive posted: no completion. */
	sdt_node_fini(&c);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

TEST_IMPL(provider_ep_free_connected)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	struct sdt_node c, s;

	sdt_node_init(&c, ia, NULL, 4096);
	sdt_node_init(&s, ia, NULL, 4096);
	sdt_connect(&c, &s);
	ASSERT_OK(sdt_recv(&s, 0, 64, 7));
	/* The consumer frees its connected EP: the peer sees DISCONNECTED. */
	ASSERT_OK(dat_ep_free(c.ep));
	c.ep = DAT_HANDLE_NULL;
	sdt_expect_conn(s.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	sdt_expect_dto(s.recv_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_RECEIVE, 7);
	sdt_expect_none(c.conn_evd, 50);
	sdt_node_fini(&c);
	sdt_node_fini(&s);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

TEST_IMPL(provider_ep_rsp)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	struct sockaddr_storage ss;
	struct sdt_node c, s;
	DAT_RSP_HANDLE rsp;
	DAT_RSP_PARAM rp;
	DAT_CR_PARAM p;
	DAT_EVENT ev;
	DAT_CR_HANDLE cr;
	DAT_CONN_QUAL port;
	int i;

	sdt_node_init(&c, ia, NULL, 4096);
	sdt_node_init(&s, ia, NULL, 4096);
	/* Find a free port with a PSP, then reuse it for the RSP. */
	ASSERT_OK(dat_psp_create_any(ia, &port, s.cr_evd, DAT_PSP_CONSUMER_FLAG, &s.psp));
	ASSERT_DAT_EQ(dat_psp_create(ia, port, s.cr_evd, DAT_PSP_CONSUMER_FLAG, &rsp),
		      ERR(DAT_CONN_QUAL_IN_USE, 0));
	ASSERT_OK(dat_psp_free(s.psp));
	s.psp = DAT_HANDLE_NULL;
	for (i = 0; dat_rsp_create(ia, port, s.ep, s.cr_evd, &rsp) != DAT_SUCCESS; i++)
		ASSERT_LT(i, 100);
	ASSERT_EQ(sdt_ep_state(s.ep), DAT_EP_STATE_RESERVED);
	ASSERT_DAT_EQ(dat_ep_free(s.ep),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_RESERVED));
	ASSERT_OK(dat_rsp_query(rsp, DAT_RSP_FIELD_ALL, &rp));
	ASSERT_PTR_EQ(rp.ep_handle, s.ep);
	ASSERT_UINT64_EQ(rp.conn_qual, port);

	sdt_ia_addr(ia, &ss);
	ASSERT_OK(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&ss, port,
				 DAT_TIMEOUT_INFINITE, 0, NULL,
				 DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	ev = sdt_wait(s.cr_evd, 10000);
	ASSERT_EQ(ev.event_number, DAT_CONNECTION_REQUEST_EVENT);
	ASSERT_PTR_EQ(ev.event_data.cr_arrival_event_data.sp_handle.rsp_handle, rsp);
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	ASSERT_OK(dat_cr_query(cr, DAT_CR_FIELD_ALL, &p));
	ASSERT_PTR_EQ(p.local_ep_handle, s.ep);
	ASSERT_EQ(sdt_ep_state(s.ep), DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING);
	ASSERT_OK(dat_cr_accept(cr, DAT_HANDLE_NULL, 0, NULL));
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	sdt_expect_conn(s.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	ASSERT_OK(dat_rsp_free(rsp));
	sdt_disconnect(&s, &c);
	sdt_node_fini(&c);
	sdt_node_fini(&s);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ia_close (abrupt) with everything still open and connected. */
TEST_IMPL(provider_ep_ia_close_abrupt)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	struct sdt_node c, s;

	sdt_node_init(&c, ia, NULL, 4096);
	sdt_node_init(&s, ia, NULL, 4096);
	sdt_connect(&c, &s);
	ASSERT_OK(sdt_recv(&s, 0, 64, 1));
	ASSERT_OK(sdt_send(&c, 0, 64, 2, 0));
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	free(c.buf);
	free(s.buf);
	return 0;
}

/* Many connections at once, from several threads. */
struct conn_thread {
	DAT_IA_HANDLE ia;
	int n;
};

static void *conn_thread_main(void *arg)
{
	struct conn_thread *t = arg;
	int i;

	for (i = 0; i < t->n; i++) {
		struct sdt_node c, s;

		sdt_node_init(&c, t->ia, NULL, 256);
		sdt_node_init(&s, t->ia, NULL, 256);
		sdt_connect(&c, &s);
		ASSERT_OK(sdt_recv(&s, 0, 16, 1));
		memcpy(c.buf, "ping", 5);
		ASSERT_OK(sdt_send(&c, 0, 5, 2, 0));
		sdt_expect_dto(s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 1);
		sdt_expect_dto(c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 2);
		ASSERT_STR_EQ(s.buf, "ping");
		sdt_disconnect(&c, &s);
		sdt_node_fini(&c);
		sdt_node_fini(&s);
	}
	return NULL;
}

TEST_IMPL(provider_ep_many_threads)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	struct conn_thread t[4];
	pthread_t th[4];
	int i;

	for (i = 0; i < 4; i++) {
		t[i].ia = ia;
		t[i].n = 20;
		ASSERT_OK(pthread_create(&th[i], NULL, conn_thread_main, &t[i]));
	}
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}
