/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IB extension's counters on the reliable-connection paths
 * (provider/counters.c): the IA counters of the objects (PZ, LMR, RMR,
 * PSP, RSP, CSP, SRQ), of connection requests and of asynchronous
 * errors, and the connection manager counters of the RC handshake, read
 * with exact values on both sides of loopback connections between two
 * IAs of this process; and that a query with reset zeroes what it reads.

 */
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <dat2/udat.h>
#include <dat2/dat_ib_extensions.h>

#include "provider-conn.h"
#include "provider-ud.h"
#include "provider-util.h"
#include "test.h"

/* ------------------------------------------------------------------ */
/* Expected values                                                     */

enum how {
	EXACT,		/* must read exactly this */
	ANY,		/* not checked: another file's, and not deterministic */
};

struct want {
	int		i;	/* DCNT_xx_*; -1 ends a table */
	const char	*name;
	uint64_t	v;
	enum how	how;
};

#define W(i, v)	{ i, #i, v, EXACT }
#define A(i)	{ i, #i, 0, ANY }
#define END	{ -1, NULL, 0, EXACT }

/*
 * Checks all @n counters of @h (an IA, EP or EVD) against @w: each one
 * listed has its value, every other one reads 0. @c receives what was
 * read; @reset clears the counters as they are read.
 */
static void check_counters(DAT_HANDLE h, int n, const struct want *w,
			   const char *what, int reset, DAT_UINT64 *c)
{
	int i, k;

	ASSERT_LE(n, DCNT_IA_ALL_COUNTERS);
	ASSERT_OK(dat_ib_query_counters(h, n, c, reset));
	for (i = 0; i < n; i++) {
		const struct want *x = NULL;

		for (k = 0; w[k].i >= 0; k++)
			if (w[k].i == i)
				x = &w[k];
		if (x != NULL && x->how == ANY)
			continue;
		if (c[i] != (x != NULL ? x->v : 0))
			TEST_FAIL("%s: counter %d (%s) reads %llu, expected %llu",
				  what, i, x != NULL ? x->name : "unlisted",
				  (unsigned long long)c[i],
				  (unsigned long long)(x != NULL ? x->v : 0));
	}
}

static void check_ia(DAT_IA_HANDLE ia, const struct want *w, const char *what)
{
	DAT_UINT64 c[DCNT_IA_ALL_COUNTERS];

	check_counters(ia, DCNT_IA_ALL_COUNTERS, w, what, 0, c);
}

/*
 * A query with reset returns what @w says and leaves every counter of
 * @h at 0 (nothing runs meanwhile that counts).
 */
static void check_reset(DAT_HANDLE h, int n, const struct want *w,
			const char *what)
{
	static const struct want zero[] = { END };
	DAT_UINT64 c[DCNT_IA_ALL_COUNTERS];
	int i;

	check_counters(h, n, w, what, 1, c);
	ASSERT_OK(dat_ib_query_counters(h, n, c, 0));
	for (i = 0; i < n; i++)
		if (c[i] != 0)
			TEST_FAIL("%s: counter %d reads %llu after the reset",
				  what, i, (unsigned long long)c[i]);
	check_counters(h, n, zero, what, 0, c);
}

/* Clears every counter of IA @ia, whatever they read. */
static void zero_ia(DAT_IA_HANDLE ia)
{
	DAT_UINT64 c[DCNT_IA_ALL_COUNTERS];

	ASSERT_OK(dat_ib_query_counters(ia, DCNT_IA_ALL_COUNTERS, c, 1));
}

/* Waits up to 10 s (scaled) for counter @which of @h to read @v. */
static void wait_counter(DAT_HANDLE h, int which, uint64_t v)
{
	int i, n = (int)(10000 * test_timeout_scale());

	for (i = 0; sdt_counter(h, which) != v; i++) {
		if (i >= n)
			TEST_FAIL("counter %d reads %llu, not %llu", which,
				  (unsigned long long)sdt_counter(h, which),
				  (unsigned long long)v);
		test_sleep_ms(1);
	}
}

/* ------------------------------------------------------------------ */
/* Helpers                                                             */

/* A second IA of the same name: the other side of a connection. */
static DAT_IA_HANDLE open_second_ia(DAT_EVD_HANDLE *async)
{
	char name[] = SDT_IA_NAME;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;

	*async = DAT_HANDLE_NULL;
	ASSERT_OK(dat_ia_open(name, 16, async, &ia));
	return ia;
}

static DAT_DTO_COOKIE ck(uint64_t v)
{
	DAT_DTO_COOKIE c;

	c.as_64 = v;
	return c;
}

/* Waits for an asynchronous event @num on @evd. */
static void expect_async(DAT_EVD_HANDLE evd, DAT_EVENT_NUMBER num)
{
	DAT_EVENT ev = sdt_wait(evd, 10000);

	if (ev.event_number != num)
		TEST_FAIL("async event 0x%x, expected 0x%x",
			  (unsigned)ev.event_number, (unsigned)num);
}

/* ------------------------------------------------------------------ */
/* Objects                                                             */

TEST_IMPL(provider_counters2_objects)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL, cr_evd;
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, &async);
	DAT_COMM comm = { AF_INET, SOCK_STREAM, 0 };
	DAT_SRQ_ATTR sa = { 8, 1, 0 };
	struct sockaddr_storage ss;
	DAT_REGION_DESCRIPTION rd;
	DAT_PZ_HANDLE pz, pz2;
	DAT_LMR_HANDLE lmr, bad;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_RMR_HANDLE rmr, rmr_ep;
	DAT_SRQ_HANDLE srq;
	DAT_PSP_HANDLE psp, psp2;
	DAT_RSP_HANDLE rsp;
	DAT_CSP_HANDLE csp;
	DAT_EP_HANDLE ep;
	DAT_CONN_QUAL port;
	DAT_VLEN rlen;
	DAT_VADDR raddr;
	DAT_UINT64 v;
	char *buf = calloc(1, 4096);
	int i;

	ASSERT_NOT_NULL(buf);
	zero_ia(ia);	/* whatever ia_open may have counted */

	/* Creation, and calls that fail count nothing. */
	ASSERT_OK(dat_pz_create(ia, &pz));
	ASSERT_OK(dat_pz_create(ia, &pz2));
	rd.for_va = buf;
	ASSERT_OK(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd, 4096, pz,
				 DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &lmr,
				 &lctx, &rctx, &rlen, &raddr));
	ASSERT_DAT_EQ(DAT_GET_TYPE(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd,
						  0, pz, DAT_MEM_PRIV_ALL_FLAG,
						  DAT_VA_TYPE_VA, &bad, &lctx,
						  &rctx, &rlen, &raddr)),
		      DAT_LENGTH_ERROR);
	ASSERT_OK(dat_rmr_create(pz, &rmr));
	ASSERT_OK(dat_rmr_create_for_ep(pz, &rmr_ep));
	ASSERT_OK(dat_srq_create(ia, pz2, &sa, &srq));
	ASSERT_OK(dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &cr_evd));
	ASSERT_DAT_EQ(DAT_GET_TYPE(dat_pz_free(pz)), DAT_INVALID_STATE);
	ASSERT_DAT_EQ(DAT_GET_TYPE(dat_lmr_free(DAT_HANDLE_NULL)),
		      DAT_INVALID_HANDLE);

	/* A PSP on a port the kernel chose, then one named, on that port. */
	ASSERT_OK(dat_psp_create_any(ia, &port, cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
	ASSERT_DAT_EQ(dat_psp_create(ia, port, cr_evd, DAT_PSP_CONSUMER_FLAG, &psp2),
		      ERR(DAT_CONN_QUAL_IN_USE, 0));
	ASSERT_OK(dat_psp_free(psp));
	for (i = 0; dat_psp_create(ia, port, cr_evd, DAT_PSP_CONSUMER_FLAG,
				   &psp) != DAT_SUCCESS; i++) {
		ASSERT_LT(i, 1000);
		test_sleep_ms(1);
	}
	ASSERT_OK(dat_psp_free(psp));
	{
		/*
		 * DCNT_IA_CM_LISTEN: the UDP side udcm.c opens on each PSP
		 * counts it; the second may find its UDP port still held
		 * by the first (closed by the engine, later).
		 */
		static const struct want w[] = {
			W(DCNT_IA_PZ_CREATE, 2), W(DCNT_IA_LMR_CREATE, 1),
			W(DCNT_IA_RMR_CREATE, 2), W(DCNT_IA_SRQ_CREATE, 1),
			W(DCNT_IA_PSP_CREATE_ANY, 1), W(DCNT_IA_PSP_CREATE, 1),
			W(DCNT_IA_PSP_FREE, 2), A(DCNT_IA_CM_LISTEN),
			W(DCNT_IA_EVD_CREATE, 1),	/* evd.c */
			END
		};

		check_ia(ia, w, "created");
		/* One counter at a time, reset alone. */
		ASSERT_OK(dat_ib_query_counters(ia, DCNT_IA_PZ_CREATE, &v, 1));
		ASSERT_EQ(v, 2);
		ASSERT_EQ(sdt_counter(ia, DCNT_IA_PZ_CREATE), 0);
		ASSERT_EQ(sdt_counter(ia, DCNT_IA_RMR_CREATE), 2);
		ASSERT_OK(dat_ib_query_counters(ia, DCNT_IA_PZ_CREATE, &v, 0));
		ASSERT_EQ(v, 0);
	}
	zero_ia(ia);

	/*
	 * An RSP and a CSP listen on TCP only: their listens are counted
	 * with them. The RSP takes a port a PSP got from the kernel.
	 */
	ASSERT_OK(dat_ep_create(ia, pz, DAT_HANDLE_NULL, DAT_HANDLE_NULL,
				DAT_HANDLE_NULL, NULL, &ep));
	ASSERT_OK(dat_psp_create_any(ia, &port, cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
	ASSERT_OK(dat_psp_free(psp));
	zero_ia(ia);
	for (i = 0; dat_rsp_create(ia, port, ep, cr_evd, &rsp) != DAT_SUCCESS; i++) {
		ASSERT_LT(i, 1000);
		test_sleep_ms(1);
	}
	sdt_ia_addr(ia, &ss);
	ASSERT_EQ(ss.ss_family, AF_INET);	/* "lo" */
	((struct sockaddr_in *)&ss)->sin_port = 0;
	ASSERT_OK(dat_csp_create(ia, &comm, (DAT_IA_ADDRESS_PTR)&ss, cr_evd, &csp));
	ASSERT_OK(dat_rsp_free(rsp));
	ASSERT_OK(dat_csp_free(csp));
	{
		static const struct want w[] = {
			W(DCNT_IA_RSP_CREATE, 1), W(DCNT_IA_RSP_FREE, 1),
			W(DCNT_IA_CM_LISTEN, 2),
			END
		};

		check_reset(ia, DCNT_IA_ALL_COUNTERS, w, "rsp and csp");
	}

	/* Freeing. */
	ASSERT_OK(dat_ep_free(ep));
	ASSERT_OK(dat_rmr_free(rmr));
	ASSERT_OK(dat_rmr_free(rmr_ep));
	ASSERT_OK(dat_srq_free(srq));
	ASSERT_OK(dat_lmr_free(lmr));
	ASSERT_OK(dat_pz_free(pz));
	ASSERT_OK(dat_pz_free(pz2));
	ASSERT_OK(dat_evd_free(cr_evd));
	{
		static const struct want w[] = {
			W(DCNT_IA_PZ_FREE, 2), W(DCNT_IA_LMR_FREE, 1),
			W(DCNT_IA_RMR_FREE, 2), W(DCNT_IA_SRQ_FREE, 1),
			W(DCNT_IA_EP_FREE, 1),		/* ep.c */
			W(DCNT_IA_EVD_FREE, 1),		/* evd.c */
			END
		};

		check_reset(ia, DCNT_IA_ALL_COUNTERS, w, "freed");
	}
	free(buf);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/*
 * Every event the IA raises on its async EVD counts in
 * DCNT_IA_ASYNC_ERROR, whichever object raised it: an SRQ's low
 * watermark arrives as DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR (qp.h,
 * SD_EVENT_WATERMARK) and counts as one, in no other counter.
 */
TEST_IMPL(provider_counters2_async_watermark)
{
	static const struct want w[] = {
		W(DCNT_IA_ASYNC_ERROR, 1),
		END
	};
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, &async);
	DAT_SRQ_ATTR sa = { 8, 1, 0 };
	DAT_SRQ_HANDLE srq;
	DAT_PZ_HANDLE pz;

	ASSERT_OK(dat_pz_create(ia, &pz));
	ASSERT_OK(dat_srq_create(ia, pz, &sa, &srq));
	zero_ia(ia);
	/* Nothing posted: below the watermark at once. */
	ASSERT_OK(dat_srq_set_lw(srq, 1));
	sdt_expect_watermark(async, srq, DAT_SRQ_LOW_WATERMARK_EVENT);
	check_reset(ia, DCNT_IA_ALL_COUNTERS, w, "low watermark");
	ASSERT_OK(dat_srq_free(srq));
	ASSERT_OK(dat_pz_free(pz));
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* A connection                                                        */

/*
 * Client and server, one IA each: connect (REQ, REP, RTU), a SEND, an
 * RDMA write and an RDMA read, a graceful disconnect from the client
 * (DREQ from the client, the server's DISCONNECT as DREP).
 */
TEST_IMPL(provider_counters2_connect)
{
	DAT_IA_HANDLE cia = sdt_open_ia(NULL, NULL);
	DAT_EVD_HANDLE sasync;
	DAT_IA_HANDLE sia = open_second_ia(&sasync);
	DAT_UINT64 c[DCNT_IA_ALL_COUNTERS];
	struct sdt_node cl, sv;
	DAT_LMR_TRIPLET t;
	DAT_RMR_TRIPLET r;
	DAT_EVENT ev;

	sdt_node_init(&cl, cia, NULL, 4096);
	sdt_node_init(&sv, sia, NULL, 4096);
	sdt_connect(&cl, &sv);

	ASSERT_OK(sdt_recv(&sv, 0, 256, 1));
	ASSERT_OK(sdt_recv(&sv, 256, 256, 2));
	ASSERT_OK(sdt_send(&cl, 0, 64, 3, DAT_COMPLETION_DEFAULT_FLAG));
	sdt_expect_dto(cl.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 3);
	sdt_expect_dto(sv.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 1);
	t = sdt_iov(&cl, 512, 128);
	r = sdt_rmr(&sv, 1024, 128);
	ASSERT_OK(dat_ep_post_rdma_write(cl.ep, 1, &t, ck(4), &r,
					 DAT_COMPLETION_DEFAULT_FLAG));
	sdt_expect_dto(cl.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_WRITE, 4);
	t = sdt_iov(&cl, 1024, 32);
	r = sdt_rmr(&sv, 2048, 32);
	ASSERT_OK(dat_ep_post_rdma_read(cl.ep, 1, &t, ck(5), &r,
					DAT_COMPLETION_DEFAULT_FLAG));
	sdt_expect_dto(cl.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_READ, 5);
	sdt_disconnect(&cl, &sv);
	sdt_expect_dto(sv.recv_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_RECEIVE, 2);
	ASSERT_DAT_EQ(DAT_GET_TYPE(dat_evd_dequeue(cl.recv_evd, &ev)),
		      DAT_QUEUE_EMPTY);

	{
		static const struct want cw[] = {
			W(DCNT_IA_PZ_CREATE, 1), W(DCNT_IA_LMR_CREATE, 1),
			W(DCNT_IA_CM_REQ_TX, 1), W(DCNT_IA_CM_REP_RX, 1),
			W(DCNT_IA_CM_RTU_TX, 1), W(DCNT_IA_CM_ACTIVE_EST, 1),
			W(DCNT_IA_CM_DREQ_TX, 1),	/* tx.c: graceful */
			W(DCNT_IA_CM_DREP_RX, 1),	/* rx.c */
			W(DCNT_IA_EVD_CREATE, 4),	/* evd.c */
			W(DCNT_IA_EP_CREATE, 1),	/* ep.c */
			END
		};
		static const struct want sw[] = {
			W(DCNT_IA_PZ_CREATE, 1), W(DCNT_IA_LMR_CREATE, 1),
			W(DCNT_IA_PSP_CREATE_ANY, 1),
			W(DCNT_IA_CM_LISTEN, 1),	/* udcm.c: the PSP's UDP side */
			W(DCNT_IA_CM_REQ_RX, 1), W(DCNT_IA_SP_CR, 1),
			W(DCNT_IA_SP_CR_ACCEPTED, 1), W(DCNT_IA_CM_REP_TX, 1),
			W(DCNT_IA_CM_RTU_RX, 1), W(DCNT_IA_CM_PASSIVE_EST, 1),
			W(DCNT_IA_CM_DREP_TX, 1),	/* cm.c: the answer */
			W(DCNT_IA_CM_DREQ_RX, 1),	/* rx.c */
			W(DCNT_IA_EVD_CREATE, 4),	/* evd.c */
			W(DCNT_IA_EP_CREATE, 1),	/* ep.c */
			END
		};
		/* ep.c, post.c, rx.c, evd.c. */
		static const struct want cep[] = {
			W(DCNT_EP_CONNECT, 1), W(DCNT_EP_DISCONNECT, 1),
			W(DCNT_EP_POST_SEND, 1), W(DCNT_EP_POST_SEND_DATA, 64),
			W(DCNT_EP_POST_WRITE, 1), W(DCNT_EP_POST_WRITE_DATA, 128),
			W(DCNT_EP_POST_READ, 1), W(DCNT_EP_POST_READ_DATA, 32),
			END
		};
		static const struct want sep[] = {
			W(DCNT_EP_POST_RECV, 2), W(DCNT_EP_POST_RECV_DATA, 512),
			W(DCNT_EP_RECV, 1), W(DCNT_EP_RECV_DATA, 64),
			END
		};
		/* ESTABLISHED and DISCONNECTED, each waited for once. */
		static const struct want conn_evd[] = {
			W(DCNT_EVD_CONN_CALLBACK, 2), W(DCNT_EVD_WAIT, 2),
			A(DCNT_EVD_WAIT_BLOCKED), A(DCNT_EVD_WAIT_NOTIFY),
			END
		};
		/* SEND, RDMA write, RDMA read, each waited for once. */
		static const struct want creq_evd[] = {
			W(DCNT_EVD_DTO_CALLBACK, 3), W(DCNT_EVD_WAIT, 3),
			A(DCNT_EVD_WAIT_BLOCKED), A(DCNT_EVD_WAIT_NOTIFY),
			END
		};
		/* A receive and a flushed one. */
		static const struct want srecv_evd[] = {
			W(DCNT_EVD_DTO_CALLBACK, 2), W(DCNT_EVD_WAIT, 2),
			A(DCNT_EVD_WAIT_BLOCKED), A(DCNT_EVD_WAIT_NOTIFY),
			END
		};
		/* One dequeue, on an empty queue. */
		static const struct want crecv_evd[] = {
			W(DCNT_EVD_DEQUEUE, 1), W(DCNT_EVD_DEQUEUE_NOT_FOUND, 1),
			END
		};

		check_ia(cia, cw, "client IA");
		check_ia(sia, sw, "server IA");
		check_counters(cl.ep, DCNT_EP_ALL_COUNTERS, cep,
			       "client EP", 0, c);
		check_counters(sv.ep, DCNT_EP_ALL_COUNTERS, sep,
			       "server EP", 0, c);
		check_counters(cl.conn_evd, DCNT_EVD_ALL_COUNTERS,
			       conn_evd, "client conn EVD", 0, c);
		check_counters(sv.conn_evd, DCNT_EVD_ALL_COUNTERS,
			       conn_evd, "server conn EVD", 0, c);
		check_counters(cl.req_evd, DCNT_EVD_ALL_COUNTERS,
			       creq_evd, "client request EVD", 0, c);
		check_counters(sv.recv_evd, DCNT_EVD_ALL_COUNTERS,
			       srecv_evd, "server receive EVD", 0, c);
		check_counters(cl.recv_evd, DCNT_EVD_ALL_COUNTERS,
			       crecv_evd, "client receive EVD", 0, c);

		/* Reset zeroes them, on both sides, for every kind of object. */
		check_reset(cia, DCNT_IA_ALL_COUNTERS, cw, "client IA");
		check_reset(sia, DCNT_IA_ALL_COUNTERS, sw, "server IA");
		check_reset(cl.ep, DCNT_EP_ALL_COUNTERS, cep, "client EP");
		check_reset(sv.ep, DCNT_EP_ALL_COUNTERS, sep, "server EP");
		check_reset(cl.req_evd, DCNT_EVD_ALL_COUNTERS, creq_evd,
			    "client request EVD");
	}

	sdt_node_fini(&cl);
	sdt_node_fini(&sv);
	{
		static const struct want cw[] = {
			W(DCNT_IA_PZ_FREE, 1), W(DCNT_IA_LMR_FREE, 1),
			W(DCNT_IA_EVD_FREE, 4), W(DCNT_IA_EP_FREE, 1),
			END
		};
		static const struct want sw[] = {
			W(DCNT_IA_PZ_FREE, 1), W(DCNT_IA_LMR_FREE, 1),
			W(DCNT_IA_PSP_FREE, 1),
			W(DCNT_IA_EVD_FREE, 4), W(DCNT_IA_EP_FREE, 1),
			END
		};

		check_ia(cia, cw, "client IA, freed");
		check_ia(sia, sw, "server IA, freed");
	}
	ASSERT_OK(dat_ia_close(sia, DAT_CLOSE_GRACEFUL_FLAG));
	ASSERT_OK(dat_ia_close(cia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Requests that do not become connections                             */

/*
 * A request whose connect timeout runs out while its CR waits (the
 * client's TIMED_OUT, the server seeing the requester leave), then one
 * the server's consumer rejects.
 */
TEST_IMPL(provider_counters2_timeout_reject)
{
	DAT_IA_HANDLE cia = sdt_open_ia(NULL, NULL);
	DAT_EVD_HANDLE sasync;
	DAT_IA_HANDLE sia = open_second_ia(&sasync);
	static char no[] = "no";
	struct sdt_node cl, sv;
	DAT_CR_HANDLE cr;

	sdt_node_init(&cl, cia, NULL, 4096);
	sdt_node_init(&sv, sia, NULL, 4096);
	ASSERT_OK(dat_psp_create_any(sia, &sv.port, sv.cr_evd,
				     DAT_PSP_CONSUMER_FLAG, &sv.psp));
	zero_ia(cia);
	zero_ia(sia);

	/* The CR is left waiting: the client gives up, the server sees it. */
	sdt_connect_to(cia, cl.ep, sv.port,
		       (DAT_TIMEOUT)(300000 * test_timeout_scale()));
	cr = sdt_expect_cr(sv.cr_evd, NULL);
	sdt_expect_conn(cl.conn_evd, DAT_CONNECTION_EVENT_TIMED_OUT);
	wait_counter(sia, DCNT_IA_CM_ERR_RESET, 1);
	ASSERT_OK(dat_cr_reject(cr, 0, NULL));	/* nobody left to tell */

	/*
	 * Rejected. The server's engine handles the two rejects in order,
	 * and the client hears of this one only once it is sent: by then
	 * the first one, which sent nothing, is done.
	 */
	ASSERT_OK(dat_ep_reset(cl.ep));
	sdt_connect_to(cia, cl.ep, sv.port, DAT_TIMEOUT_INFINITE);
	cr = sdt_expect_cr(sv.cr_evd, NULL);
	ASSERT_OK(dat_cr_reject(cr, sizeof(no), no));
	sdt_expect_conn(cl.conn_evd, DAT_CONNECTION_EVENT_PEER_REJECTED);

	{
		static const struct want cw[] = {
			W(DCNT_IA_CM_REQ_TX, 2), W(DCNT_IA_CM_ERR_TIMEOUT, 1),
			W(DCNT_IA_CM_USER_REJ_RX, 1),
			END
		};
		static const struct want sw[] = {
			W(DCNT_IA_CM_REQ_RX, 2), W(DCNT_IA_SP_CR, 2),
			W(DCNT_IA_CM_ERR_RESET, 1), W(DCNT_IA_SP_CR_REJECTED, 2),
			W(DCNT_IA_CM_USER_REJ_TX, 1),
			END
		};
		static const struct want cep[] = {
			W(DCNT_EP_CONNECT, 2),
			END
		};
		DAT_UINT64 c[DCNT_IA_ALL_COUNTERS];

		check_ia(cia, cw, "client IA");
		check_ia(sia, sw, "server IA");
		check_counters(cl.ep, DCNT_EP_ALL_COUNTERS, cep,
			       "client EP", 0, c);
		check_reset(cia, DCNT_IA_ALL_COUNTERS, cw, "client IA");
		check_reset(sia, DCNT_IA_ALL_COUNTERS, sw, "server IA");
	}

	sdt_node_fini(&cl);
	sdt_node_fini(&sv);
	ASSERT_OK(dat_ia_close(sia, DAT_CLOSE_GRACEFUL_FLAG));
	ASSERT_OK(dat_ia_close(cia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/*
 * Refusals and asynchronous errors: nothing listening (three times, on
 * an EP whose connection EVD holds one event: the third overflows it, an
 * asynchronous error of a CQ in IB terms); a service point whose CR EVD
 * is full (the provider's REJECT); an EP of an SRQ leaving its
 * connection after an abrupt disconnect (an asynchronous error of a QP;
 * the client's DREQ, the server's DREP).
 */
TEST_IMPL(provider_counters2_errors)
{
	DAT_EVD_HANDLE casync = DAT_HANDLE_NULL, sasync, conn1, cr1;
	DAT_IA_HANDLE cia = sdt_open_ia(NULL, &casync);
	DAT_IA_HANDLE sia = open_second_ia(&sasync);
	DAT_SRQ_ATTR sa = { 8, 1, 0 };
	struct sdt_node cl, cl2, sv;
	DAT_EP_HANDLE ep;
	DAT_PSP_HANDLE psp;
	DAT_SRQ_HANDLE srq;
	DAT_CONN_QUAL port;
	DAT_CR_HANDLE cr;
	uint16_t dead = sdt_dead_port();

	sdt_node_init(&cl, cia, NULL, 4096);
	sdt_node_init(&cl2, cia, NULL, 4096);
	sdt_node_init(&sv, sia, NULL, 4096);
	ASSERT_OK(dat_evd_create(cia, 1, DAT_HANDLE_NULL,
				 DAT_EVD_CONNECTION_FLAG, &conn1));
	ASSERT_OK(dat_ep_create(cia, cl.pz, DAT_HANDLE_NULL, DAT_HANDLE_NULL,
				conn1, NULL, &ep));
	ASSERT_OK(dat_evd_create(sia, 1, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &cr1));
	zero_ia(cia);
	zero_ia(sia);

	/*
	 * Nothing listens. The first refusal is taken off conn1, the
	 * second fills it, the third overflows it. A refusal is counted
	 * under the EP's lock, before the EP leaves its pending state, so
	 * dat_ep_reset, which takes that lock, succeeds once it reads so.
	 */
	sdt_connect_to(cia, ep, dead, DAT_TIMEOUT_INFINITE);
	sdt_expect_conn(conn1, DAT_CONNECTION_EVENT_NON_PEER_REJECTED);
	ASSERT_OK(dat_ep_reset(ep));
	sdt_connect_to(cia, ep, dead, DAT_TIMEOUT_INFINITE);
	wait_counter(cia, DCNT_IA_CM_ERR_REFUSED, 2);
	ASSERT_OK(dat_ep_reset(ep));
	sdt_connect_to(cia, ep, dead, DAT_TIMEOUT_INFINITE);
	expect_async(casync, DAT_ASYNC_ERROR_EVD_OVERFLOW);
	{
		static const struct want cw[] = {
			W(DCNT_IA_CM_ERR_REFUSED, 3),
			W(DCNT_IA_ASYNC_ERROR, 1), W(DCNT_IA_ASYNC_CQ_ERROR, 1),
			END
		};
		static const struct want cep[] = {
			W(DCNT_EP_CONNECT, 3),
			END
		};
		DAT_UINT64 c[DCNT_IA_ALL_COUNTERS];

		check_reset(cia, DCNT_IA_ALL_COUNTERS, cw, "refused");
		check_counters(ep, DCNT_EP_ALL_COUNTERS, cep,
			       "refused EP", 0, c);
	}
	ASSERT_OK(dat_ep_free(ep));
	ASSERT_OK(dat_evd_free(conn1));
	zero_ia(cia);	/* the frees, counted or not (ep.c, evd.c) */

	/*
	 * A full CR EVD: the second request is refused by the provider.
	 * The first is counted before its event is posted, and the second
	 * starts only once it is (both sides share one engine, which may
	 * run two connects in any order).
	 */
	ASSERT_OK(dat_psp_create_any(sia, &port, cr1, DAT_PSP_CONSUMER_FLAG, &psp));
	sdt_connect_to(cia, cl.ep, port, DAT_TIMEOUT_INFINITE);
	wait_counter(sia, DCNT_IA_SP_CR, 1);
	sdt_connect_to(cia, cl2.ep, port, DAT_TIMEOUT_INFINITE);
	sdt_expect_conn(cl2.conn_evd, DAT_CONNECTION_EVENT_NON_PEER_REJECTED);
	cr = sdt_expect_cr(cr1, NULL);
	ASSERT_OK(dat_cr_reject(cr, 0, NULL));
	sdt_expect_conn(cl.conn_evd, DAT_CONNECTION_EVENT_PEER_REJECTED);
	ASSERT_OK(dat_psp_free(psp));
	{
		static const struct want cw[] = {
			W(DCNT_IA_CM_REQ_TX, 2), W(DCNT_IA_CM_ERR_REJ_RX, 1),
			W(DCNT_IA_CM_USER_REJ_RX, 1),
			END
		};
		static const struct want sw[] = {
			W(DCNT_IA_PSP_CREATE_ANY, 1), W(DCNT_IA_PSP_FREE, 1),
			W(DCNT_IA_CM_LISTEN, 1),	/* udcm.c */
			W(DCNT_IA_CM_REQ_RX, 2), W(DCNT_IA_SP_CR, 1),
			W(DCNT_IA_CM_ERR_REJ_TX, 1),
			W(DCNT_IA_SP_CR_REJECTED, 1), W(DCNT_IA_CM_USER_REJ_TX, 1),
			END
		};

		check_reset(cia, DCNT_IA_ALL_COUNTERS, cw, "backlog: client IA");
		check_reset(sia, DCNT_IA_ALL_COUNTERS, sw, "backlog: server IA");
	}

	/* The server's EP takes its receives from an SRQ. */
	ASSERT_OK(dat_ep_free(sv.ep));
	ASSERT_OK(dat_srq_create(sia, sv.pz, &sa, &srq));
	ASSERT_OK(dat_ep_create_with_srq(sia, sv.pz, sv.recv_evd, sv.req_evd,
					 sv.conn_evd, srq, NULL, &sv.ep));
	ASSERT_OK(dat_ep_reset(cl.ep));
	zero_ia(cia);
	zero_ia(sia);
	sdt_connect(&cl, &sv);
	ASSERT_OK(dat_ep_disconnect(cl.ep, DAT_CLOSE_ABRUPT_FLAG));
	sdt_expect_conn(cl.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	sdt_expect_conn(sv.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	expect_async(sasync, DAT_ASYNC_ERROR_EP_BROKEN);
	{
		/* The client's socket is given up: the DREP is not read. */
		static const struct want cw[] = {
			W(DCNT_IA_CM_REQ_TX, 1), W(DCNT_IA_CM_REP_RX, 1),
			W(DCNT_IA_CM_RTU_TX, 1), W(DCNT_IA_CM_ACTIVE_EST, 1),
			W(DCNT_IA_CM_DREQ_TX, 1),	/* cm.c: abrupt */
			END
		};
		static const struct want sw[] = {
			W(DCNT_IA_PSP_CREATE_ANY, 1), W(DCNT_IA_CM_LISTEN, 1),
			W(DCNT_IA_CM_REQ_RX, 1), W(DCNT_IA_SP_CR, 1),
			W(DCNT_IA_SP_CR_ACCEPTED, 1), W(DCNT_IA_CM_REP_TX, 1),
			W(DCNT_IA_CM_RTU_RX, 1), W(DCNT_IA_CM_PASSIVE_EST, 1),
			W(DCNT_IA_CM_DREQ_RX, 1),	/* rx.c */
			W(DCNT_IA_CM_DREP_TX, 1),
			W(DCNT_IA_ASYNC_ERROR, 1), W(DCNT_IA_ASYNC_QP_ERROR, 1),
			END
		};

		check_reset(cia, DCNT_IA_ALL_COUNTERS, cw, "srq: client IA");
		check_reset(sia, DCNT_IA_ALL_COUNTERS, sw, "srq: server IA");
	}

	ASSERT_OK(dat_ep_free(sv.ep));
	sv.ep = DAT_HANDLE_NULL;
	ASSERT_OK(dat_srq_free(srq));
	sdt_node_fini(&sv);
	sdt_node_fini(&cl);
	sdt_node_fini(&cl2);
	ASSERT_OK(dat_evd_free(cr1));
	ASSERT_OK(dat_ia_close(sia, DAT_CLOSE_GRACEFUL_FLAG));
	ASSERT_OK(dat_ia_close(cia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}
