/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data path, issue 4, over loopback: the BARRIER_FENCE flag (SEND-2)
 * proven with a read that cannot have finished, completion order with
 * mixed requests, WRITE-5, RDMA at the exact edges of a region, the RDMA
 * read depth, and the IB extension's requests the data path carries:
 * RDMA write with immediate data and the atomics (through
 * dat_ib_post_*, i.e. dat_extension_op; skipped where the provider
 * reports the extension not implemented).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dat2/dat_ib_extensions.h>

#include "provider-conn.h"
#include "provider-util.h"
#include "test.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#endif

#define BUF (8 << 20)

struct pair {
	DAT_IA_HANDLE	ia;
	struct sdt_node	c, s;
};

static void pair_up_len(struct pair *p, const DAT_EP_ATTR *ca,
			const DAT_EP_ATTR *sa, size_t len)
{
	p->ia = sdt_open_ia(NULL, NULL);
	sdt_node_init(&p->c, p->ia, ca, len);
	sdt_node_init(&p->s, p->ia, sa, len);
	sdt_connect(&p->c, &p->s);
}

static void pair_up(struct pair *p)
{
	pair_up_len(p, NULL, NULL, BUF);
}

static void pair_down(struct pair *p)
{
	sdt_node_fini(&p->c);
	sdt_node_fini(&p->s);
	ASSERT_OK(dat_ia_close(p->ia, DAT_CLOSE_GRACEFUL_FLAG));
}

static DAT_DTO_COOKIE ck(uint64_t v)
{
	DAT_DTO_COOKIE c;

	c.as_64 = v;
	return c;
}

static void fill(char *p, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (char)(seed + i * 13 + (i >> 9));
}

/* EP attributes with the given request depth and read depths. */
static DAT_EP_ATTR attr(DAT_COUNT requests, DAT_COUNT rd_in, DAT_COUNT rd_out)
{
	DAT_EP_ATTR a;

	memset(&a, 0, sizeof(a));
	a.service_type = DAT_SERVICE_TYPE_RC;
	a.max_recv_dtos = 16;
	a.max_request_dtos = requests;
	a.max_recv_iov = a.max_request_iov = 4;
	a.max_rdma_read_in = rd_in;
	a.max_rdma_read_out = rd_out;
	return a;
}

/* A refused request: its error, then BROKEN on both sides. */
static void expect_broken(struct pair *p, DAT_DTOS op, uint64_t cookie)
{
	sdt_expect_dto(p->c.req_evd, DAT_DTO_ERR_REMOTE_ACCESS, op, cookie);
	sdt_expect_conn(p->c.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	sdt_expect_conn(p->s.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
}

/* ------------------------------------------------------------------ */
/* BARRIER_FENCE, ordering, lengths, edges, read depth                 */

/*
 * SEND-2: a BARRIER_FENCE send waits for the EP's earlier RDMA reads.
 * The client reads 4 MiB of the server's memory into L, then sends L,
 * fenced: the server receives exactly what it had, which it can only if
 * the SEND took L after the read completed (without the fence, the frame
 * would leave at once with L still zero: a 4 MiB read cannot be done
 * when the post returns, it takes at least a round trip).
 */
TEST_IMPL(provider_data2_fence_after_read)
{
	const size_t n = 4 << 20;
	struct pair p;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET r;
	DAT_DTO_COMPLETION_EVENT_DATA d;

	pair_up(&p);
	fill(p.s.buf, n, 17);
	memset(p.s.buf + n, 0, n);
	memset(p.c.buf, 0, n);
	ASSERT_OK(sdt_recv(&p.s, n, n, 1));
	iov = sdt_iov(&p.c, 0, n);
	r = sdt_rmr(&p.s, 0, n);
	ASSERT_OK(dat_ep_post_rdma_read(p.c.ep, 1, &iov, ck(2), &r, 0));
	ASSERT_OK(dat_ep_post_send(p.c.ep, 1, &iov, ck(3),
				   DAT_COMPLETION_BARRIER_FENCE_FLAG));
	d = sdt_expect_dto(p.s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 1);
	ASSERT_EQ(d.transfered_length, n);
	ASSERT(memcmp(p.s.buf + n, p.s.buf, n) == 0);
	sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_READ, 2);
	sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 3);
	sdt_disconnect(&p.c, &p.s);
	pair_down(&p);
	return 0;
}

/* WRITE-2: the same for a fenced RDMA write of what a read brought. */
TEST_IMPL(provider_data2_fence_write_after_read)
{
	const size_t n = 4 << 20;
	struct pair p;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET r, w;

	pair_up(&p);
	fill(p.s.buf, n, 29);
	memset(p.s.buf + n, 0, n);
	memset(p.c.buf, 0, n);
	iov = sdt_iov(&p.c, 0, n);
	r = sdt_rmr(&p.s, 0, n);
	w = sdt_rmr(&p.s, n, n);
	ASSERT_OK(dat_ep_post_rdma_read(p.c.ep, 1, &iov, ck(1), &r, 0));
	ASSERT_OK(dat_ep_post_rdma_write(p.c.ep, 1, &iov, ck(2), &w,
					 DAT_COMPLETION_BARRIER_FENCE_FLAG));
	sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_READ, 1);
	sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_WRITE, 2);
	ASSERT(memcmp(p.s.buf + n, p.s.buf, n) == 0);
	sdt_disconnect(&p.c, &p.s);
	pair_down(&p);
	return 0;
}

/*
 * Completions come in post order per queue, whatever the mix: a large
 * READ before small SENDs and WRITEs (whose acks arrive while the READ's
 * data still streams), suppressed ones skipped, an RMR bind among them.
 */
TEST_IMPL(provider_data2_order_mixed)
{
	struct pair p;
	DAT_LMR_TRIPLET iov, big;
	DAT_RMR_TRIPLET r, rbig;
	DAT_RMR_HANDLE rmr;
	DAT_RMR_CONTEXT ctx;
	DAT_EVENT ev;
	static const uint64_t want[] = { 1, 2, 3, 5, 6, 7, 8, 9, 10, 11 };
	size_t i;
	int k;

	pair_up(&p);
	ASSERT_OK(dat_rmr_create(p.c.pz, &rmr));
	for (k = 0; k < 3; k++)
		ASSERT_OK(sdt_recv(&p.s, (size_t)k * 1000, 1000, 100 + k));
	iov = sdt_iov(&p.c, 0, 100);
	big = sdt_iov(&p.c, 1 << 20, 4 << 20);
	r = sdt_rmr(&p.s, 1 << 20, 100);
	rbig = sdt_rmr(&p.s, 2 << 20, 4 << 20);
	ASSERT_OK(dat_ep_post_send(p.c.ep, 1, &iov, ck(1), 0));
	ASSERT_OK(dat_ep_post_rdma_read(p.c.ep, 1, &big, ck(2), &rbig, 0));
	ASSERT_OK(dat_ep_post_send(p.c.ep, 1, &iov, ck(3), 0));
	ASSERT_OK(dat_ep_post_rdma_write(p.c.ep, 1, &iov, ck(4), &r,
					 DAT_COMPLETION_SUPPRESS_FLAG));
	ASSERT_OK(dat_ep_post_rdma_write(p.c.ep, 1, &iov, ck(5), &r, 0));
	ASSERT_OK(dat_ep_post_rdma_read(p.c.ep, 1, &iov, ck(6), &r, 0));
	iov = sdt_iov(&p.c, 0, 4096);
	ASSERT_OK(dat_rmr_bind(rmr, p.c.lmr, &iov, DAT_MEM_PRIV_REMOTE_READ_FLAG,
			       DAT_VA_TYPE_VA, p.c.ep, ck(7), 0, &ctx));
	iov = sdt_iov(&p.c, 0, 100);
	ASSERT_OK(dat_ep_post_send(p.c.ep, 1, &iov, ck(8), 0));
	ASSERT_OK(dat_ep_post_rdma_read(p.c.ep, 1, &big, ck(9), &rbig, 0));
	ASSERT_OK(dat_ep_post_rdma_write(p.c.ep, 1, &iov, ck(10), &r, 0));
	ASSERT_OK(dat_ep_post_rdma_write(p.c.ep, 1, &big, ck(11), &rbig, 0));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		ev = sdt_wait(p.c.req_evd, 10000);
		if (ev.event_number == DAT_RMR_BIND_COMPLETION_EVENT) {
			ASSERT_UINT64_EQ(ev.event_data.rmr_completion_event_data.
					 user_cookie.as_64, want[i]);
			continue;
		}
		ASSERT_EQ(ev.event_number, DAT_DTO_COMPLETION_EVENT);
		ASSERT_EQ(ev.event_data.dto_completion_event_data.status,
			  DAT_DTO_SUCCESS);
		ASSERT_UINT64_EQ(ev.event_data.dto_completion_event_data.
				 user_cookie.as_64, want[i]);
	}
	sdt_expect_none(p.c.req_evd, 20);
	for (k = 0; k < 3; k++)
		sdt_expect_dto(p.s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE,
			       100 + (uint64_t)k);
	ASSERT_OK(dat_rmr_free(rmr));
	sdt_disconnect(&p.c, &p.s);
	pair_down(&p);
	return 0;
}

/* WRITE-5: more local data than the remote buffer: refused at post. */
TEST_IMPL(provider_data2_write_too_long)
{
	struct pair p;
	DAT_LMR_TRIPLET iov[2];
	DAT_RMR_TRIPLET r;

	pair_up_len(&p, NULL, NULL, 1 << 16);
	iov[0] = sdt_iov(&p.c, 0, 100);
	iov[1] = sdt_iov(&p.c, 1000, 100);
	r = sdt_rmr(&p.s, 0, 199);
	ASSERT_DAT_EQ(dat_ep_post_rdma_write(p.c.ep, 2, iov, ck(1), &r, 0),
		      ERR(DAT_LENGTH_ERROR, 0));
	/* The same for a read: more room than the remote data. */
	ASSERT_DAT_EQ(dat_ep_post_rdma_read(p.c.ep, 2, iov, ck(2), &r, 0),
		      ERR(DAT_LENGTH_ERROR, 0));
	/* Exactly as much is fine; and a failed post never completes. */
	r.segment_length = 200;
	ASSERT_OK(dat_ep_post_rdma_write(p.c.ep, 2, iov, ck(3), &r, 0));
	sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_WRITE, 3);
	sdt_expect_none(p.c.req_evd, 20);
	sdt_disconnect(&p.c, &p.s);
	pair_down(&p);
	return 0;
}

/*
 * RDMA exactly at a region's edges works; one byte beyond either edge is
 * refused (WRITE-6) and the bytes around the region stay untouched.
 */
TEST_IMPL(provider_data2_region_edges)
{
	const size_t lo = 4096, len = 8192, hi = lo + len;
	static const struct {
		long off;	/* from the start of the region */
		size_t n;
		bool read;
	} bad[] = {
		{ -1, 2, false }, { (long)len - 1, 2, false },
		{ -1, 1, true }, { (long)len, 1, true },
	};
	struct pair p;
	DAT_REGION_DESCRIPTION rd;
	DAT_LMR_HANDLE lmr;
	DAT_RMR_CONTEXT rc;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET r;
	size_t k, i;

	pair_up_len(&p, NULL, NULL, 1 << 16);
	rd.for_va = p.s.buf + lo;
	ASSERT_OK(dat_lmr_create(p.ia, DAT_MEM_TYPE_VIRTUAL, rd, len, p.s.pz,
				 DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &lmr,
				 NULL, &rc, NULL, NULL));
	fill(p.c.buf, 1 << 16, 3);
	/* The first and the last bytes, then the whole region. */
	iov = sdt_iov(&p.c, 0, 100);
	r = sdt_rmr(&p.s, lo, 100);
	r.rmr_context = rc;
	ASSERT_OK(dat_ep_post_rdma_write(p.c.ep, 1, &iov, ck(1), &r, 0));
	r = sdt_rmr(&p.s, hi - 100, 100);
	r.rmr_context = rc;
	ASSERT_OK(dat_ep_post_rdma_write(p.c.ep, 1, &iov, ck(2), &r, 0));
	iov = sdt_iov(&p.c, 20000, len);
	r = sdt_rmr(&p.s, lo, len);
	r.rmr_context = rc;
	ASSERT_OK(dat_ep_post_rdma_read(p.c.ep, 1, &iov, ck(3), &r, 0));
	/* Zero bytes at the end: nothing is checked, nothing moves. */
	r = sdt_rmr(&p.s, hi, 0);
	r.rmr_context = rc;
	ASSERT_OK(dat_ep_post_rdma_write(p.c.ep, 0, NULL, ck(4), &r, 0));
	sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_WRITE, 1);
	sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_WRITE, 2);
	sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_READ, 3);
	sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_WRITE, 4);
	ASSERT_MEM_EQ(p.s.buf + lo, p.c.buf, 100);
	ASSERT_MEM_EQ(p.s.buf + hi - 100, p.c.buf, 100);
	ASSERT_MEM_EQ(p.c.buf + 20000, p.s.buf + lo, len);

	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		memset(p.s.buf, 0x5a, 1 << 16);
		memset(p.c.buf, 0, 1 << 16);
		iov = sdt_iov(&p.c, 0, bad[k].n);
		r = sdt_rmr(&p.s, (size_t)((long)lo + bad[k].off), bad[k].n);
		r.rmr_context = rc;
		if (bad[k].read)
			ASSERT_OK(dat_ep_post_rdma_read(p.c.ep, 1, &iov, ck(9), &r, 0));
		else
			ASSERT_OK(dat_ep_post_rdma_write(p.c.ep, 1, &iov, ck(9), &r, 0));
		expect_broken(&p, bad[k].read ? DAT_DTO_RDMA_READ :
			      DAT_DTO_RDMA_WRITE, 9);
		for (i = 0; i < (1 << 16); i++)
			if ((unsigned char)p.s.buf[i] != 0x5a)
				TEST_FAIL("case %zu: server byte %zu written", k, i);
		for (i = 0; i < (1 << 16); i++)
			if (p.c.buf[i] != 0)
				TEST_FAIL("case %zu: client byte %zu read", k, i);
		ASSERT_OK(dat_ep_reset(p.c.ep));
		ASSERT_OK(dat_ep_reset(p.s.ep));
		sdt_connect(&p.c, &p.s);
	}
	ASSERT_OK(dat_lmr_free(lmr));
	sdt_disconnect(&p.c, &p.s);
	pair_down(&p);
	return 0;
}

/*
 * The read depth: the server serves 2 READs at a time, the client would
 * issue 16; 200 READs posted at once all complete, in order, with their
 * data. Had the client ever had more than 2 outstanding, the server would
 * have ended the connection (TERMINATE, protocol) and they would fail.
 */
TEST_IMPL(provider_data2_read_depth)
{
	const int n = 200;
	DAT_EP_ATTR ca = attr(256, 16, 16), sa = attr(16, 2, 2);
	struct pair p;
	DAT_EP_PARAM ep;
	int i;

	pair_up_len(&p, &ca, &sa, 1 << 20);
	ASSERT_OK(dat_ep_query(p.s.ep, DAT_EP_FIELD_EP_ATTR_ALL, &ep));
	ASSERT_EQ(ep.ep_attr.max_rdma_read_in, 2);
	fill(p.s.buf, 1 << 20, 41);
	memset(p.c.buf, 0, 1 << 20);
	for (i = 0; i < n; i++) {
		DAT_LMR_TRIPLET iov = sdt_iov(&p.c, (size_t)i * 4096, 4096);
		DAT_RMR_TRIPLET r = sdt_rmr(&p.s, (size_t)(n - 1 - i) * 4096, 4096);

		ASSERT_OK(dat_ep_post_rdma_read(p.c.ep, 1, &iov, ck((uint64_t)i),
						&r, 0));
	}
	for (i = 0; i < n; i++)
		sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_READ,
			       (uint64_t)i);
	for (i = 0; i < n; i++)
		ASSERT_MEM_EQ(p.c.buf + (size_t)i * 4096,
			      p.s.buf + (size_t)(n - 1 - i) * 4096, 4096);
	sdt_disconnect(&p.c, &p.s);
	pair_down(&p);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The IB extension: RDMA write with immediate data                    */

#define NOT_IMPL ERR(DAT_NOT_IMPLEMENTED, 0)

static DAT_IB_EXTENSION_EVENT_DATA *ext_of(DAT_EVENT *ev)
{
	return (DAT_IB_EXTENSION_EVENT_DATA *)(void *)ev->event_extension_data;
}

/* Waits for an extended DTO event and checks it. */
static DAT_EVENT expect_ext(DAT_EVD_HANDLE evd, DAT_DTO_COMPLETION_STATUS status,
			    int op, DAT_IB_EXT_TYPE type, uint64_t cookie)
{
	DAT_EVENT ev = sdt_wait(evd, 10000);
	DAT_DTO_COMPLETION_EVENT_DATA *d = &ev.event_data.dto_completion_event_data;

	ASSERT_EQ(ev.event_number, DAT_IB_DTO_EVENT);
	if (d->status != status || (int)d->operation != op ||
	    d->user_cookie.as_64 != cookie)
		TEST_FAIL("extended DTO status %d op %d cookie %llu, expected %d %d %llu",
			  d->status, d->operation,
			  (unsigned long long)d->user_cookie.as_64, status, op,
			  (unsigned long long)cookie);
	if (status == DAT_DTO_SUCCESS) {
		ASSERT_EQ(ext_of(&ev)->type, type);
		ASSERT_EQ(ext_of(&ev)->status, DAT_OP_SUCCESS);
	} else {
		ASSERT_EQ(ext_of(&ev)->status, DAT_IB_OP_ERR);
	}
	return ev;
}

TEST_IMPL(provider_data2_write_imm)
{
	struct pair p;
	DAT_LMR_TRIPLET iov[2];
	DAT_RMR_TRIPLET r;
	DAT_EVENT ev;
	DAT_RETURN ret;

	pair_up_len(&p, NULL, NULL, 1 << 16);
	fill(p.c.buf, 1 << 16, 7);
	memset(p.s.buf, 0, 1 << 16);
	ASSERT_OK(sdt_recv(&p.s, 60000, 16, 1));
	iov[0] = sdt_iov(&p.c, 0, 600);
	iov[1] = sdt_iov(&p.c, 1000, 400);
	r = sdt_rmr(&p.s, 4096, 1000);
	ret = dat_ib_post_rdma_write_immed(p.c.ep, 2, iov, ck(2), &r, 0x7777, 0);
	if (ret == NOT_IMPL) {
		pair_down(&p);
		TEST_SKIP("the IB extension is not implemented");
	}
	ASSERT_OK(ret);
	ev = expect_ext(p.c.req_evd, DAT_DTO_SUCCESS, DAT_IB_DTO_RDMA_WRITE_IMMED,
			DAT_IB_RDMA_WRITE_IMMED, 2);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.transfered_length, 1000);
	ev = expect_ext(p.s.recv_evd, DAT_DTO_SUCCESS, DAT_IB_DTO_RECV_IMMED,
			DAT_IB_RDMA_WRITE_IMMED_DATA, 1);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.transfered_length, 1000);
	ASSERT_PTR_EQ(ev.event_data.dto_completion_event_data.ep_handle, p.s.ep);
	ASSERT_EQ(ext_of(&ev)->val.immed.data, 0x7777);
	ASSERT_MEM_EQ(p.s.buf + 4096, p.c.buf, 600);
	ASSERT_MEM_EQ(p.s.buf + 4096 + 600, p.c.buf + 1000, 400);
	/* The receive's own buffer is not touched. */
	ASSERT_EQ(p.s.buf[60000], 0);

	/* Zero bytes: just the immediate data; and solicited. */
	ASSERT_OK(sdt_recv(&p.s, 60000, 16, 3));
	r = sdt_rmr(&p.s, 0, 0);
	ASSERT_OK(dat_ib_post_rdma_write_immed(p.c.ep, 0, NULL, ck(4), &r,
					       0xfeedbeef,
					       DAT_COMPLETION_SOLICITED_WAIT_FLAG));
	expect_ext(p.c.req_evd, DAT_DTO_SUCCESS, DAT_IB_DTO_RDMA_WRITE_IMMED,
		   DAT_IB_RDMA_WRITE_IMMED, 4);
	ev = expect_ext(p.s.recv_evd, DAT_DTO_SUCCESS, DAT_IB_DTO_RECV_IMMED,
			DAT_IB_RDMA_WRITE_IMMED_DATA, 3);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.transfered_length, 0);
	ASSERT_EQ(ext_of(&ev)->val.immed.data, 0xfeedbeef);

	/*
	 * No receive posted: the write waits (RNR, as a SEND does) and its
	 * data lands when one is. In order with a plain SEND behind it.
	 */
	r = sdt_rmr(&p.s, 8192, 100);
	iov[0] = sdt_iov(&p.c, 0, 100);
	ASSERT_OK(dat_ib_post_rdma_write_immed(p.c.ep, 1, iov, ck(5), &r, 5, 0));
	ASSERT_OK(sdt_send(&p.c, 0, 10, 6, 0));
	sdt_expect_none(p.s.recv_evd, 20);
	sdt_expect_none(p.c.req_evd, 1);
	ASSERT_OK(sdt_recv(&p.s, 60000, 16, 7));
	ASSERT_OK(sdt_recv(&p.s, 60000, 16, 8));
	ev = expect_ext(p.s.recv_evd, DAT_DTO_SUCCESS, DAT_IB_DTO_RECV_IMMED,
			DAT_IB_RDMA_WRITE_IMMED_DATA, 7);
	ASSERT_EQ(ext_of(&ev)->val.immed.data, 5);
	sdt_expect_dto(p.s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 8);
	expect_ext(p.c.req_evd, DAT_DTO_SUCCESS, DAT_IB_DTO_RDMA_WRITE_IMMED,
		   DAT_IB_RDMA_WRITE_IMMED, 5);
	sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 6);
	ASSERT_MEM_EQ(p.s.buf + 8192, p.c.buf, 100);
	sdt_disconnect(&p.c, &p.s);
	pair_down(&p);
	return 0;
}

/* Every error return of the write with immediate data. */
TEST_IMPL(provider_data2_write_imm_errors)
{
	struct pair p;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET r;
	DAT_RETURN ret;
	size_t i;

	pair_up_len(&p, NULL, NULL, 1 << 16);
	iov = sdt_iov(&p.c, 0, 100);
	r = sdt_rmr(&p.s, 0, 100);
	ret = dat_ib_post_rdma_write_immed(p.c.pz, 1, &iov, ck(1), &r, 1, 0);
	if (ret == NOT_IMPL) {
		pair_down(&p);
		TEST_SKIP("the IB extension is not implemented");
	}
	ASSERT_DAT_EQ(ret, ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	ASSERT_DAT_EQ(dat_ib_post_rdma_write_immed(p.c.ep, -1, &iov, ck(1), &r, 1, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_ib_post_rdma_write_immed(p.c.ep, 1, NULL, ck(1), &r, 1, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(dat_ib_post_rdma_write_immed(p.c.ep, 1, &iov, ck(1), NULL, 1, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	ASSERT_DAT_EQ(dat_ib_post_rdma_write_immed(p.c.ep, 1, &iov, ck(1), &r, 1, 0x100),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7));
	ASSERT_DAT_EQ(dat_ib_post_rdma_write_immed(p.c.ep, 1, &iov, ck(1), &r, 1,
						   DAT_COMPLETION_UNSIGNALLED_FLAG),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7));
	/* COMMON-5..7 on the local side, WRITE-5 on the remote one. */
	iov.lmr_context ^= 0x1234;
	ASSERT_DAT_EQ(dat_ib_post_rdma_write_immed(p.c.ep, 1, &iov, ck(1), &r, 1, 0),
		      ERR(DAT_PRIVILEGES_VIOLATION, 0));
	iov = sdt_iov(&p.c, (1 << 16) - 10, 11);
	ASSERT_DAT_EQ(dat_ib_post_rdma_write_immed(p.c.ep, 1, &iov, ck(1), &r, 1, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	iov = sdt_iov(&p.s, 0, 10);	/* the server's LMR: another PZ */
	ASSERT_DAT_EQ(dat_ib_post_rdma_write_immed(p.c.ep, 1, &iov, ck(1), &r, 1, 0),
		      ERR(DAT_PROTECTION_VIOLATION, DAT_PROTECTION_READ));
	iov = sdt_iov(&p.c, 0, 101);
	ASSERT_DAT_EQ(dat_ib_post_rdma_write_immed(p.c.ep, 1, &iov, ck(1), &r, 1, 0),
		      ERR(DAT_LENGTH_ERROR, 0));
	sdt_expect_none(p.c.req_evd, 20);

	/* WRITE-6: refused at the target, no receive consumed. */
	memset(p.s.buf, 0, 1 << 16);
	ASSERT_OK(sdt_recv(&p.s, 0, 16, 2));
	iov = sdt_iov(&p.c, 0, 100);
	r.rmr_context ^= 0x4321;
	ASSERT_OK(dat_ib_post_rdma_write_immed(p.c.ep, 1, &iov, ck(3), &r, 1, 0));
	expect_ext(p.c.req_evd, DAT_DTO_ERR_REMOTE_ACCESS,
		   DAT_IB_DTO_RDMA_WRITE_IMMED, DAT_IB_RDMA_WRITE_IMMED, 3);
	sdt_expect_conn(p.c.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	sdt_expect_conn(p.s.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	sdt_expect_dto(p.s.recv_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_RECEIVE, 2);
	for (i = 0; i < (1 << 16); i++)
		ASSERT_EQ(p.s.buf[i], 0);
	/* DISCONNECTED: flushed at once; UNCONNECTED: refused. */
	r.rmr_context ^= 0x4321;
	ASSERT_OK(dat_ib_post_rdma_write_immed(p.c.ep, 1, &iov, ck(4), &r, 1, 0));
	expect_ext(p.c.req_evd, DAT_DTO_ERR_FLUSHED, DAT_IB_DTO_RDMA_WRITE_IMMED,
		   DAT_IB_RDMA_WRITE_IMMED, 4);
	ASSERT_OK(dat_ep_reset(p.c.ep));
	ASSERT_DAT_EQ(dat_ib_post_rdma_write_immed(p.c.ep, 1, &iov, ck(5), &r, 1, 0),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONNECTED));
	pair_down(&p);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The IB extension: atomics                                           */

#define ATOMIC_PRIV \
	((DAT_MEM_PRIV_FLAGS)(DAT_MEM_PRIV_ALL_FLAG | DAT_IB_MEM_PRIV_REMOTE_ATOMIC))

/* Words the atomics work on, and an LMR over them with remote atomics. */
struct words {
	uint64_t	*w;
	DAT_LMR_HANDLE	lmr;
	DAT_RMR_CONTEXT	rc;
};

static void words_init(struct words *t, DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
		       size_t n)
{
	DAT_REGION_DESCRIPTION rd;

	/* aligned_alloc: the size a multiple of the alignment. */
	t->w = aligned_alloc(64, (n * sizeof(uint64_t) + 63) & ~(size_t)63);
	ASSERT_NOT_NULL(t->w);
	memset(t->w, 0, n * sizeof(uint64_t));
	rd.for_va = t->w;
	ASSERT_OK(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd,
				 n * sizeof(uint64_t), pz, ATOMIC_PRIV,
				 DAT_VA_TYPE_VA, &t->lmr, NULL, &t->rc, NULL,
				 NULL));
}

static void words_fini(struct words *t)
{
	ASSERT_OK(dat_lmr_free(t->lmr));
	free(t->w);
}

static DAT_RMR_TRIPLET word_at(const struct words *t, size_t i)
{
	DAT_RMR_TRIPLET r;

	r.virtual_address = (DAT_VADDR)(uintptr_t)&t->w[i];
	r.segment_length = sizeof(uint64_t);
	r.rmr_context = t->rc;
	return r;
}

/* The 8 bytes at @off of @n's buffer, as a host uint64_t. */
static uint64_t u64_at(const struct sdt_node *n, size_t off)
{
	uint64_t v;

	memcpy(&v, n->buf + off, sizeof(v));
	return v;
}

TEST_IMPL(provider_data2_atomics)
{
	struct pair p;
	struct words t;
	DAT_LMR_TRIPLET l;
	DAT_RMR_TRIPLET r;
	DAT_EVENT ev;
	DAT_RETURN ret;

	pair_up_len(&p, NULL, NULL, 1 << 16);
	words_init(&t, p.ia, p.s.pz, 4);
	t.w[1] = 40;
	l = sdt_iov(&p.c, 8, 8);
	r = word_at(&t, 1);
	ret = dat_ib_post_fetch_and_add(p.c.ep, 2, &l, ck(1), &r, 0);
	if (ret == NOT_IMPL) {
		words_fini(&t);
		pair_down(&p);
		TEST_SKIP("the IB extension is not implemented");
	}
	ASSERT_OK(ret);
	ev = expect_ext(p.c.req_evd, DAT_DTO_SUCCESS, DAT_IB_DTO_FETCH_ADD,
			DAT_IB_FETCH_AND_ADD, 1);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.transfered_length, 8);
	ASSERT_UINT64_EQ(u64_at(&p.c, 8), 40);
	ASSERT_UINT64_EQ(t.w[1], 42);
	/* The whole 64 bits: wraps modulo 2^64. */
	ASSERT_OK(dat_ib_post_fetch_and_add(p.c.ep, UINT64_MAX, &l, ck(2), &r, 0));
	expect_ext(p.c.req_evd, DAT_DTO_SUCCESS, DAT_IB_DTO_FETCH_ADD,
		   DAT_IB_FETCH_AND_ADD, 2);
	ASSERT_UINT64_EQ(u64_at(&p.c, 8), 42);
	ASSERT_UINT64_EQ(t.w[1], 41);

	/* Compare and swap: a miss leaves it, a hit swaps; both return it. */
	ASSERT_OK(dat_ib_post_cmp_and_swap(p.c.ep, 7, 99, &l, ck(3), &r, 0));
	expect_ext(p.c.req_evd, DAT_DTO_SUCCESS, DAT_IB_DTO_CMP_SWAP,
		   DAT_IB_CMP_AND_SWAP, 3);
	ASSERT_UINT64_EQ(u64_at(&p.c, 8), 41);
	ASSERT_UINT64_EQ(t.w[1], 41);
	ASSERT_OK(dat_ib_post_cmp_and_swap(p.c.ep, 41, 0x123456789abcdef0ull, &l,
					   ck(4), &r, 0));
	expect_ext(p.c.req_evd, DAT_DTO_SUCCESS, DAT_IB_DTO_CMP_SWAP,
		   DAT_IB_CMP_AND_SWAP, 4);
	ASSERT_UINT64_EQ(u64_at(&p.c, 8), 41);
	ASSERT_UINT64_EQ(t.w[1], 0x123456789abcdef0ull);
	/* Neighbours untouched. */
	ASSERT_UINT64_EQ(t.w[0], 0);
	ASSERT_UINT64_EQ(t.w[2], 0);

	/*
	 * In order with the rest, and fenced like reads: a SEND fenced
	 * behind an atomic carries the value the atomic returned.
	 */
	ASSERT_OK(sdt_recv(&p.s, 100, 8, 5));
	memset(p.c.buf + 8, 0, 8);
	ASSERT_OK(dat_ib_post_fetch_and_add(p.c.ep, 1, &l, ck(6), &r, 0));
	ASSERT_OK(dat_ep_post_send(p.c.ep, 1, &l, ck(7),
				   DAT_COMPLETION_BARRIER_FENCE_FLAG));
	expect_ext(p.c.req_evd, DAT_DTO_SUCCESS, DAT_IB_DTO_FETCH_ADD,
		   DAT_IB_FETCH_AND_ADD, 6);
	sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 7);
	sdt_expect_dto(p.s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 5);
	ASSERT_UINT64_EQ(u64_at(&p.s, 100), 0x123456789abcdef0ull);
	ASSERT_UINT64_EQ(t.w[1], 0x123456789abcdef1ull);
	sdt_disconnect(&p.c, &p.s);
	words_fini(&t);
	pair_down(&p);
	return 0;
}

/* Every error return of the atomics. */
TEST_IMPL(provider_data2_atomic_errors)
{
	struct pair p;
	struct words t;
	DAT_LMR_TRIPLET l, l4;
	DAT_RMR_TRIPLET r, bad;
	DAT_RETURN ret;

	pair_up_len(&p, NULL, NULL, 1 << 16);
	words_init(&t, p.ia, p.s.pz, 4);
	l = sdt_iov(&p.c, 8, 8);
	r = word_at(&t, 1);
	ret = dat_ib_post_fetch_and_add(p.c.pz, 1, &l, ck(1), &r, 0);
	if (ret == NOT_IMPL) {
		words_fini(&t);
		pair_down(&p);
		TEST_SKIP("the IB extension is not implemented");
	}
	ASSERT_DAT_EQ(ret, ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	ASSERT_DAT_EQ(dat_ib_post_cmp_and_swap(p.c.pz, 1, 2, &l, ck(1), &r, 0),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	/* Missing buffers. */
	ASSERT_DAT_EQ(dat_ib_post_fetch_and_add(p.c.ep, 1, NULL, ck(1), &r, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(dat_ib_post_cmp_and_swap(p.c.ep, 1, 2, NULL, ck(1), &r, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	ASSERT_DAT_EQ(dat_ib_post_fetch_and_add(p.c.ep, 1, &l, ck(1), NULL, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	ASSERT_DAT_EQ(dat_ib_post_cmp_and_swap(p.c.ep, 1, 2, &l, ck(1), NULL, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
	/* Flags: unknown, solicited, unsignalled not allowed. */
	ASSERT_DAT_EQ(dat_ib_post_fetch_and_add(p.c.ep, 1, &l, ck(1), &r, 0x100),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
	ASSERT_DAT_EQ(dat_ib_post_cmp_and_swap(p.c.ep, 1, 2, &l, ck(1), &r,
					       DAT_COMPLETION_SOLICITED_WAIT_FLAG),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7));
	ASSERT_DAT_EQ(dat_ib_post_fetch_and_add(p.c.ep, 1, &l, ck(1), &r,
						DAT_COMPLETION_UNSIGNALLED_FLAG),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
	/* A misaligned target. */
	bad = r;
	bad.virtual_address += 4;
	ASSERT_DAT_EQ(dat_ib_post_fetch_and_add(p.c.ep, 1, &l, ck(1), &bad, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	ASSERT_DAT_EQ(dat_ib_post_cmp_and_swap(p.c.ep, 1, 2, &l, ck(1), &bad, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
	/* Fewer than 8 bytes on either side. */
	l4 = sdt_iov(&p.c, 8, 4);
	ASSERT_DAT_EQ(dat_ib_post_fetch_and_add(p.c.ep, 1, &l4, ck(1), &r, 0),
		      ERR(DAT_LENGTH_ERROR, 0));
	bad = r;
	bad.segment_length = 4;
	ASSERT_DAT_EQ(dat_ib_post_cmp_and_swap(p.c.ep, 1, 2, &l, ck(1), &bad, 0),
		      ERR(DAT_LENGTH_ERROR, 0));
	/* COMMON-5..7 on the local buffer: it is written, so local write. */
	l4 = l;
	l4.lmr_context ^= 0x99;
	ASSERT_DAT_EQ(dat_ib_post_fetch_and_add(p.c.ep, 1, &l4, ck(1), &r, 0),
		      ERR(DAT_PRIVILEGES_VIOLATION, 0));
	l4 = sdt_iov(&p.c, (1 << 16) - 4, 8);
	ASSERT_DAT_EQ(dat_ib_post_fetch_and_add(p.c.ep, 1, &l4, ck(1), &r, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(dat_ib_post_cmp_and_swap(p.c.ep, 1, 2, &l4, ck(1), &r, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	l4 = sdt_iov(&p.s, 0, 8);
	ASSERT_DAT_EQ(dat_ib_post_fetch_and_add(p.c.ep, 1, &l4, ck(1), &r, 0),
		      ERR(DAT_PROTECTION_VIOLATION, DAT_PROTECTION_WRITE));
	sdt_expect_none(p.c.req_evd, 20);

	/*
	 * WRITE-6 for atomics: the server's buffer grants read and write but
	 * not atomics: refused at the target, memory untouched.
	 */
	memset(p.s.buf, 0x11, 64);
	bad = sdt_rmr(&p.s, 0, 8);
	ASSERT_OK(dat_ib_post_fetch_and_add(p.c.ep, 1, &l, ck(2), &bad, 0));
	expect_ext(p.c.req_evd, DAT_DTO_ERR_REMOTE_ACCESS, DAT_IB_DTO_FETCH_ADD,
		   DAT_IB_FETCH_AND_ADD, 2);
	sdt_expect_conn(p.c.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	sdt_expect_conn(p.s.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	ASSERT_UINT64_EQ(u64_at(&p.s, 0), 0x1111111111111111ull);
	/* DISCONNECTED: flushed at once; UNCONNECTED: refused. */
	ASSERT_OK(dat_ib_post_cmp_and_swap(p.c.ep, 1, 2, &l, ck(3), &r, 0));
	expect_ext(p.c.req_evd, DAT_DTO_ERR_FLUSHED, DAT_IB_DTO_CMP_SWAP,
		   DAT_IB_CMP_AND_SWAP, 3);
	ASSERT_OK(dat_ep_reset(p.c.ep));
	ASSERT_DAT_EQ(dat_ib_post_fetch_and_add(p.c.ep, 1, &l, ck(4), &r, 0),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONNECTED));
	words_fini(&t);
	pair_down(&p);
	return 0;
}

/*
 * Atomicity: four connections add 1 to the same word 250 times each,
 * while a local thread adds 2^32 to it 1000 times with the CPU's own
 * atomics. No update is lost (the word ends at 1000 + 1000 * 2^32), and
 * the low halves the remote atomics returned are exactly 0..999, each
 * once: no two executed on the same value.
 */
#define NCONN	4
#define NADD	250

struct adder {
	struct sdt_node	c, s;
	struct words	*t;
	uint64_t	old[NADD];
	int		failed;
};

static void *adder_main(void *arg)
{
	struct adder *a = arg;
	DAT_LMR_TRIPLET l = sdt_iov(&a->c, 0, 8);
	DAT_RMR_TRIPLET r = word_at(a->t, 0);
	int i;

	for (i = 0; i < NADD; i++) {
		DAT_EVENT ev;
		DAT_COUNT nmore;

		if (dat_ib_post_fetch_and_add(a->c.ep, 1, &l, ck((uint64_t)i),
					      &r, 0) != DAT_SUCCESS ||
		    dat_evd_wait(a->c.req_evd, DAT_TIMEOUT_INFINITE, 1, &ev,
				 &nmore) != DAT_SUCCESS ||
		    ev.event_data.dto_completion_event_data.status != DAT_DTO_SUCCESS) {
			a->failed = 1;
			return NULL;
		}
		memcpy(&a->old[i], a->c.buf, 8);
	}
	return NULL;
}

static void *local_adder_main(void *arg)
{
	uint64_t *w = arg;
	int i;

	for (i = 0; i < NCONN * NADD; i++)
		__atomic_fetch_add(w, (uint64_t)1 << 32, __ATOMIC_SEQ_CST);
	return NULL;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

TEST_IMPL(provider_data2_atomics_contended)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	struct adder *a = calloc(NCONN, sizeof(*a));
	struct words t;
	pthread_t th[NCONN], local;
	uint32_t seen[NCONN * NADD];
	DAT_RETURN ret;
	int i, j;

	ASSERT_NOT_NULL(a);
	for (i = 0; i < NCONN; i++) {
		DAT_EP_PARAM ep;

		sdt_node_init(&a[i].c, ia, NULL, 64);
		sdt_node_init(&a[i].s, ia, NULL, 64);
		if (i == 0)
			words_init(&t, ia, a[0].s.pz, 1);
		/* Every server EP in the first one's PZ: the word's. */
		memset(&ep, 0, sizeof(ep));
		ep.pz_handle = a[0].s.pz;
		if (i > 0)
			ASSERT_OK(dat_ep_modify(a[i].s.ep, DAT_EP_FIELD_PZ_HANDLE, &ep));
		sdt_connect(&a[i].c, &a[i].s);
		a[i].t = &t;
	}
	{
		DAT_LMR_TRIPLET l = sdt_iov(&a[0].c, 0, 8);
		DAT_RMR_TRIPLET r = word_at(&t, 0);

		ret = dat_ib_post_fetch_and_add(a[0].c.ep, 0, &l, ck(0), &r, 0);
		if (ret != NOT_IMPL) {
			ASSERT_OK(ret);
			expect_ext(a[0].c.req_evd, DAT_DTO_SUCCESS,
				   DAT_IB_DTO_FETCH_ADD, DAT_IB_FETCH_AND_ADD, 0);
		}
	}
	if (ret != NOT_IMPL) {
		ASSERT_EQ(pthread_create(&local, NULL, local_adder_main, t.w), 0);
		for (i = 0; i < NCONN; i++)
			ASSERT_EQ(pthread_create(&th[i], NULL, adder_main, &a[i]), 0);
		for (i = 0; i < NCONN; i++)
			ASSERT_EQ(pthread_join(th[i], NULL), 0);
		ASSERT_EQ(pthread_join(local, NULL), 0);
		for (i = 0; i < NCONN; i++)
			ASSERT_EQ(a[i].failed, 0);
		ASSERT_UINT64_EQ(__atomic_load_n(t.w, __ATOMIC_SEQ_CST),
				 (uint64_t)NCONN * NADD +
				 ((uint64_t)NCONN * NADD << 32));
		for (i = 0; i < NCONN; i++)
			for (j = 0; j < NADD; j++)
				seen[i * NADD + j] = (uint32_t)a[i].old[j];
		qsort(seen, NCONN * NADD, sizeof(seen[0]), cmp_u32);
		for (i = 0; i < NCONN * NADD; i++)
			ASSERT_EQ(seen[i], (uint32_t)i);
	}
	for (i = NCONN - 1; i >= 0; i--) {
		sdt_disconnect(&a[i].c, &a[i].s);
		sdt_node_fini(&a[i].c);
		if (i == 0)
			words_fini(&t);
		sdt_node_fini(&a[i].s);
	}
	free(a);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	if (ret == NOT_IMPL)
		TEST_SKIP("the IB extension is not implemented");
	return 0;
}

/* ------------------------------------------------------------------ */
/* A polled RDMA write target                                          */

/*
 * MPI's eager RDMA (Open MPI's uDAPL and openib BTLs): the sender writes
 * each small message into the next slot of a ring in the receiver's
 * memory, ending in a footer with a flag; the receiver polls the flag,
 * reads the message in front of it, and clears the flag. No receive, no
 * completion on the receiving side. It works on an HCA because a
 * write's last bytes land after the others, each once. Here: 32 slots of
 * 8 KiB, messages that end at the slot's end, of the sizes Open MPI
 * writes (its 8-byte footer: a sequence number, the flag at the last
 * byte but three), and a poller that also drives progress through
 * dat_evd_dequeue, as the BTL does. A header seen stale behind a set
 * flag, or a flag set again after it was cleared (seen a lap later as
 * the previous lap's message), fails.
 */
#define RING_SLOTS	32
#define RING_SLOT	8192
#define RING_SRCS	64

static const uint32_t ring_len[] = { 32, 40, 536, 2072, 24, 4096, 300, 8192 };

struct ring {
	struct pair	p;
	uint64_t	msgs;		/* const */
	uint64_t	consumed;	/* atomic: messages the poller is done with */
	int		failed;		/* atomic */
	char		why[160];
};

static uint32_t ring_msg_len(uint64_t seq)
{
	return ring_len[(seq * 7 + seq / 5) % (sizeof(ring_len) / sizeof(ring_len[0]))];
}

static unsigned char ring_byte(uint64_t seq, uint32_t i)
{
	return (unsigned char)(seq * 31 + i * 7 + 1);
}

/* Message @seq of @len bytes at @m: header, body, footer, flag. */
static void ring_fill(unsigned char *m, uint64_t seq, uint32_t len)
{
	uint32_t i, s32 = (uint32_t)seq;

	memcpy(m, &seq, 8);
	for (i = 8; i < len - 8; i++)
		m[i] = ring_byte(seq, i);
	memcpy(m + len - 8, &s32, 4);
	m[len - 4] = 1;
	m[len - 3] = m[len - 2] = m[len - 1] = 0xa5;
}

static void *ring_poller(void *arg)
{
	struct ring *r = arg;
	uint64_t seq;

	for (seq = 0; seq < r->msgs; seq++) {
		uint32_t len = ring_msg_len(seq), i, s32;
		unsigned char *m = (unsigned char *)r->p.s.buf +
			(seq % RING_SLOTS + 1) * RING_SLOT - len;
		uint64_t deadline = test_now_ms() + 20000, h;
		DAT_EVENT ev;

		while (__atomic_load_n(&m[len - 4], __ATOMIC_ACQUIRE) != 1) {
			(void)dat_evd_dequeue(r->p.s.recv_evd, &ev);
			if (__atomic_load_n(&r->failed, __ATOMIC_ACQUIRE) ||
			    test_now_ms() > deadline) {
				snprintf(r->why, sizeof(r->why),
					 "message %" PRIu64 " never arrived", seq);
				goto fail;
			}
		}
		memcpy(&h, m, 8);
		memcpy(&s32, m + len - 8, 4);
		if (h != seq || s32 != (uint32_t)seq) {
			snprintf(r->why, sizeof(r->why),
				 "message %" PRIu64 " (%u bytes, slot %u): flag set, "
				 "header says %" PRIu64 ", footer %u",
				 seq, len, (unsigned)(seq % RING_SLOTS), h, s32);
			goto fail;
		}
		for (i = 8; i < len - 8; i++)
			if (m[i] != ring_byte(seq, i)) {
				snprintf(r->why, sizeof(r->why),
					 "message %" PRIu64 " byte %u wrong", seq, i);
				goto fail;
			}
		__atomic_store_n(&m[len - 4], 0, __ATOMIC_RELEASE);
		__atomic_store_n(&r->consumed, seq + 1, __ATOMIC_RELEASE);
	}
	return NULL;
fail:
	__atomic_store_n(&r->failed, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Runs @msgs messages through the ring; fails the test on a stale one. */
static void ring_run(uint64_t msgs)
{
	struct ring *r = calloc(1, sizeof(*r));
	uint64_t seq, done = 0;
	pthread_t th;
	DAT_EVENT ev;

	ASSERT_NOT_NULL(r);
	r->msgs = msgs;
	pair_up_len(&r->p, NULL, NULL, RING_SRCS * RING_SLOT);
	memset(r->p.s.buf, 0, RING_SLOTS * RING_SLOT);
	ASSERT_EQ(pthread_create(&th, NULL, ring_poller, r), 0);
	for (seq = 0; seq < msgs; seq++) {
		uint32_t len = ring_msg_len(seq);
		size_t src = (seq % RING_SRCS) * RING_SLOT;
		DAT_LMR_TRIPLET l;
		DAT_RMR_TRIPLET t;

		/* A credit: the slot's previous message was read. */
		while (seq - __atomic_load_n(&r->consumed, __ATOMIC_ACQUIRE) >=
		       RING_SLOTS && !__atomic_load_n(&r->failed, __ATOMIC_ACQUIRE))
			if (dat_evd_dequeue(r->p.c.req_evd, &ev) == DAT_SUCCESS)
				done++;
		/* The source of RING_SRCS writes ago is free again. */
		while (seq - done >= RING_SRCS) {
			ev = sdt_wait(r->p.c.req_evd, 10000);
			ASSERT_EQ(ev.event_data.dto_completion_event_data.status,
				  DAT_DTO_SUCCESS);
			done++;
		}
		if (__atomic_load_n(&r->failed, __ATOMIC_ACQUIRE))
			break;
		ring_fill((unsigned char *)r->p.c.buf + src, seq, len);
		l = sdt_iov(&r->p.c, src, len);
		t = sdt_rmr(&r->p.s, (seq % RING_SLOTS + 1) * RING_SLOT - len, len);
		ASSERT_OK(dat_ep_post_rdma_write(r->p.c.ep, 1, &l, ck(seq), &t, 0));
	}
	ASSERT_EQ(pthread_join(th, NULL), 0);
	if (r->failed)
		TEST_FAIL("%s", r->why);
	for (; done < seq; done++)
		(void)sdt_wait(r->p.c.req_evd, 10000);
	sdt_disconnect(&r->p.c, &r->p.s);
	pair_down(&r->p);
	free(r);
}

TEST_IMPL(provider_data2_write_tail_polled)
{
	ring_run(40000);
	return 0;
}

HELPER_IMPL(write_tail_probe)
{
	ring_run(4000);
	printf("4000 messages polled, none stale\n");
	return 0;
}

/*
 * The same under libslowcopy.so: every memcpy of 24 bytes or more stores
 * its last 8 bytes first, pauses, then stores them again. Without the
 * ordered tail the poller sees the flag before the header almost every
 * time.
 */
TEST_IMPL(provider_data2_write_tail_slow_memcpy)
{
	char lib[1024], *out = NULL;
	int status;

#ifdef SANITIZED
	TEST_SKIP("the sanitizers own memcpy: nothing to preload");
#endif
	snprintf(lib, sizeof(lib), "%s/libslowcopy.so", test_builddir());
	sdt_conf(NULL);
	test_setenv("LD_PRELOAD", lib);
	ASSERT_OK(test_run_cmdl(300, &status, &out, test_self_exe(), "--helper",
				"write_tail_probe", NULL));
	test_setenv("LD_PRELOAD", NULL);
	printf("%s", out);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		TEST_FAIL("a polled write was seen stale:\n%s", out);
	ASSERT_STR_CONTAINS(out, "4000 messages polled, none stale");
	free(out);
	return 0;
}
