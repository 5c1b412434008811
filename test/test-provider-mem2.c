/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory, issue 4, over loopback connections: memory windows
 * (dat_rmr_bind, dat_rmr_create_for_ep, dat_rmr_free of a bound RMR),
 * dat_ep_post_send_with_invalidate, dat_ep_post_rdma_read_to_rmr, and the
 * LMR types DAT_MEM_TYPE_LMR and DAT_MEM_TYPE_SHARED_VIRTUAL. Every error
 * return of each call is checked. Seed rules are named where they apply
 * (WRITE-6: a refused remote access is reported in the requester's
 * completion, breaks the connection and touches nothing).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <dat2/dat_ib_extensions.h>

#include "provider-conn.h"
#include "provider-util.h"
#include "test.h"

#define BUF (1 << 16)

#define RW (DAT_MEM_PRIV_REMOTE_READ_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG)

struct pair {
	DAT_IA_HANDLE	ia;
	struct sdt_node	c, s;
};

static void pair_up(struct pair *p, const DAT_EP_ATTR *attr)
{
	p->ia = sdt_open_ia(NULL, NULL);
	sdt_node_init(&p->c, p->ia, attr, BUF);
	sdt_node_init(&p->s, p->ia, attr, BUF);
	sdt_connect(&p->c, &p->s);
}

static void pair_down(struct pair *p)
{
	sdt_node_fini(&p->c);
	sdt_node_fini(&p->s);
	ASSERT_OK(dat_ia_close(p->ia, DAT_CLOSE_GRACEFUL_FLAG));
}

/* After a broken connection: both EPs back to UNCONNECTED, connected again. */
static void reconnect(struct pair *p)
{
	ASSERT_OK(dat_ep_reset(p->c.ep));
	ASSERT_OK(dat_ep_reset(p->s.ep));
	sdt_connect(&p->c, &p->s);
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
		p[i] = (char)(seed + i * 7);
}

/* An RMR triplet of @n's buffer through context @ctx. */
static DAT_RMR_TRIPLET at(const struct sdt_node *n, size_t off, size_t len,
			  DAT_RMR_CONTEXT ctx)
{
	DAT_RMR_TRIPLET t = sdt_rmr(n, off, len);

	t.rmr_context = ctx;
	return t;
}

/* Waits for the completion of a bind and checks it. */
static void expect_bind(DAT_EVD_HANDLE evd, DAT_RMR_HANDLE rmr, uint64_t cookie,
			DAT_DTO_COMPLETION_STATUS status)
{
	DAT_EVENT ev = sdt_wait(evd, 10000);
	DAT_RMR_BIND_COMPLETION_EVENT_DATA *b =
		&ev.event_data.rmr_completion_event_data;

	ASSERT_EQ(ev.event_number, DAT_RMR_BIND_COMPLETION_EVENT);
	ASSERT_PTR_EQ(b->rmr_handle, rmr);
	ASSERT_UINT64_EQ(b->user_cookie.as_64, cookie);
	ASSERT_EQ(b->status, status);
}

/*
 * Binds @rmr to [off, off + len) of @n's buffer through @n's EP with
 * @priv, waits for the completion and returns the new context.
 */
static DAT_RMR_CONTEXT do_bind(struct sdt_node *n, DAT_RMR_HANDLE rmr, size_t off,
			    size_t len, DAT_MEM_PRIV_FLAGS priv, uint64_t cookie)
{
	DAT_LMR_TRIPLET t = sdt_iov(n, off, len);
	DAT_RMR_CONTEXT ctx = 0;

	ASSERT_OK(dat_rmr_bind(rmr, n->lmr, &t, priv, DAT_VA_TYPE_VA, n->ep,
			       ck(cookie), DAT_COMPLETION_DEFAULT_FLAG, &ctx));
	expect_bind(n->req_evd, rmr, cookie, DAT_DTO_SUCCESS);
	return ctx;
}

/*
 * WRITE-6: a write (or a read) by the client through @r is refused: the
 * request completes DAT_DTO_ERR_REMOTE_ACCESS, the connection breaks on
 * both sides, and the server's buffer (zero before) is still all zero.
 */
static void expect_refused(struct pair *p, DAT_RMR_TRIPLET r, bool read)
{
	DAT_LMR_TRIPLET iov = sdt_iov(&p->c, 0, r.segment_length);
	size_t i;

	if (read)
		ASSERT_OK(dat_ep_post_rdma_read(p->c.ep, 1, &iov, ck(77), &r, 0));
	else
		ASSERT_OK(dat_ep_post_rdma_write(p->c.ep, 1, &iov, ck(77), &r, 0));
	sdt_expect_dto(p->c.req_evd, DAT_DTO_ERR_REMOTE_ACCESS,
		       read ? DAT_DTO_RDMA_READ : DAT_DTO_RDMA_WRITE, 77);
	sdt_expect_conn(p->c.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	sdt_expect_conn(p->s.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	for (i = 0; i < BUF; i++)
		if (p->s.buf[i] != 0)
			TEST_FAIL("server byte %zu written", i);
}

/* The client writes @len bytes of its buffer (a pattern) through @r. */
static void write_ok(struct pair *p, DAT_RMR_TRIPLET r, uint64_t cookie)
{
	DAT_LMR_TRIPLET iov = sdt_iov(&p->c, 0, r.segment_length);

	ASSERT_OK(dat_ep_post_rdma_write(p->c.ep, 1, &iov, ck(cookie), &r, 0));
	sdt_expect_dto(p->c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_WRITE, cookie);
}

/* ------------------------------------------------------------------ */
/* dat_rmr_bind                                                        */

/*
 * A bound RMR's context grants exactly its range and privileges; the
 * completion comes on the request EVD; dat_rmr_query shows the binding;
 * rebinding makes a new context and the old one dead.
 */
TEST_IMPL(provider_mem2_rmr_bind)
{
	struct pair p;
	DAT_RMR_HANDLE rmr;
	DAT_RMR_CONTEXT ctx, ctx2;
	DAT_RMR_PARAM q;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET r;
	DAT_DTO_COMPLETION_EVENT_DATA d;

	pair_up(&p, NULL);
	fill(p.c.buf, BUF, 3);
	ASSERT_OK(dat_rmr_create(p.s.pz, &rmr));
	ctx = do_bind(&p.s, rmr, 4096, 8192, RW, 5);
	ASSERT_NE(ctx, 0);
	ASSERT_NE(ctx, p.s.rctx);
	ASSERT_NE(ctx, p.s.lctx);
	ASSERT_OK(dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &q));
	ASSERT_EQ(q.rmr_context, ctx);
	ASSERT_EQ(q.mem_priv, RW);
	ASSERT_EQ(q.rmr_scope, DAT_RMR_SCOPE_PZ);
	ASSERT_PTR_EQ(q.pz_handle, p.s.pz);
	ASSERT_UINT64_EQ(q.lmr_triplet.virtual_address, (uintptr_t)p.s.buf + 4096);
	ASSERT_UINT64_EQ(q.lmr_triplet.segment_length, 8192);
	ASSERT_EQ(q.lmr_triplet.lmr_context, p.s.lctx);

	/* The whole range, through the window. */
	write_ok(&p, at(&p.s, 4096, 8192, ctx), 1);
	ASSERT_MEM_EQ(p.s.buf + 4096, p.c.buf, 8192);
	memset(p.c.buf + 20000, 0, 100);
	iov = sdt_iov(&p.c, 20000, 100);
	r = at(&p.s, 4096 + 8192 - 100, 100, ctx);
	ASSERT_OK(dat_ep_post_rdma_read(p.c.ep, 1, &iov, ck(2), &r, 0));
	d = sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_READ, 2);
	ASSERT_EQ(d.transfered_length, 100);
	ASSERT_MEM_EQ(p.c.buf + 20000, p.s.buf + 4096 + 8092, 100);

	/* Rebind, read only, elsewhere: a new context. */
	ctx2 = do_bind(&p.s, rmr, 1024, 2048, DAT_MEM_PRIV_REMOTE_READ_FLAG, 6);
	ASSERT_NE(ctx2, ctx);
	ASSERT_OK(dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &q));
	ASSERT_EQ(q.rmr_context, ctx2);
	ASSERT_EQ(q.mem_priv, DAT_MEM_PRIV_REMOTE_READ_FLAG);
	iov = sdt_iov(&p.c, 0, 2048);
	r = at(&p.s, 1024, 2048, ctx2);
	ASSERT_OK(dat_ep_post_rdma_read(p.c.ep, 1, &iov, ck(3), &r, 0));
	sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_READ, 3);
	memset(p.s.buf, 0, BUF);

	/* The old context is dead. */
	expect_refused(&p, at(&p.s, 4096, 16, ctx), false);
	reconnect(&p);
	/* The new one has no write privilege. */
	expect_refused(&p, at(&p.s, 1024, 16, ctx2), false);
	reconnect(&p);
	/* Nor any byte outside its range (inside its LMR), on either side. */
	expect_refused(&p, at(&p.s, 1023, 2, ctx2), true);
	reconnect(&p);
	expect_refused(&p, at(&p.s, 1024 + 2048 - 1, 2, ctx2), true);
	ASSERT_OK(dat_rmr_free(rmr));
	pair_down(&p);
	return 0;
}

/* Every error return of dat_rmr_bind. */
TEST_IMPL(provider_mem2_rmr_bind_errors)
{
	struct pair p;
	struct sdt_node o;
	DAT_RMR_HANDLE rmr, rmr_o;
	DAT_LMR_TRIPLET t, bad;
	DAT_RMR_CONTEXT ctx;
	DAT_LMR_HANDLE ro;
	DAT_LMR_CONTEXT ro_l;
	DAT_REGION_DESCRIPTION rd;
	DAT_EP_ATTR a;

	memset(&a, 0, sizeof(a));
	a.service_type = DAT_SERVICE_TYPE_RC;
	a.max_recv_dtos = 8;
	a.max_request_dtos = 2;
	a.max_recv_iov = a.max_request_iov = 2;
	pair_up(&p, &a);
	sdt_node_init(&o, p.ia, NULL, 4096);	/* another PZ, unconnected */
	ASSERT_OK(dat_rmr_create(p.s.pz, &rmr));
	ASSERT_OK(dat_rmr_create(o.pz, &rmr_o));
	t = sdt_iov(&p.s, 0, 4096);

#define BIND(r, l, tp, pr, va, ep, fl, out) \
	dat_rmr_bind((r), (l), (tp), (pr), (va), (ep), ck(1), (fl), (out))

	ASSERT_DAT_EQ(BIND(p.s.lmr, p.s.lmr, &t, RW, DAT_VA_TYPE_VA, p.s.ep, 0, &ctx),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR));
	ASSERT_DAT_EQ(BIND(rmr, p.s.pz, &t, RW, DAT_VA_TYPE_VA, p.s.ep, 0, &ctx),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR));
	ASSERT_DAT_EQ(BIND(rmr, p.s.lmr, NULL, RW, DAT_VA_TYPE_VA, p.s.ep, 0, &ctx),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	/* A triplet that does not name the LMR, or leaves it. */
	bad = t;
	bad.lmr_context = p.c.lctx;
	ASSERT_DAT_EQ(BIND(rmr, p.s.lmr, &bad, RW, DAT_VA_TYPE_VA, p.s.ep, 0, &ctx),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	bad = sdt_iov(&p.s, BUF - 10, 11);
	ASSERT_DAT_EQ(BIND(rmr, p.s.lmr, &bad, RW, DAT_VA_TYPE_VA, p.s.ep, 0, &ctx),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	bad.virtual_address -= BUF;
	ASSERT_DAT_EQ(BIND(rmr, p.s.lmr, &bad, RW, DAT_VA_TYPE_VA, p.s.ep, 0, &ctx),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(BIND(rmr, p.s.lmr, &t, 0x80, DAT_VA_TYPE_VA, p.s.ep, 0, &ctx),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	ASSERT_DAT_EQ(BIND(rmr, p.s.lmr, &t, RW, DAT_VA_TYPE_ZB, p.s.ep, 0, &ctx),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	ASSERT_DAT_EQ(BIND(rmr, p.s.lmr, &t, RW, DAT_VA_TYPE_VA, p.s.ep, 0, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG9));
	/* Remote rights the LMR's local rights do not cover. */
	rd.for_va = p.s.buf;
	ASSERT_OK(dat_lmr_create(p.ia, DAT_MEM_TYPE_VIRTUAL, rd, BUF, p.s.pz,
				 DAT_MEM_PRIV_LOCAL_READ_FLAG, DAT_VA_TYPE_VA,
				 &ro, &ro_l, NULL, NULL, NULL));
	bad = t;
	bad.lmr_context = ro_l;
	ASSERT_DAT_EQ(BIND(rmr, ro, &bad, DAT_MEM_PRIV_REMOTE_WRITE_FLAG,
			   DAT_VA_TYPE_VA, p.s.ep, 0, &ctx),
		      ERR(DAT_PRIVILEGES_VIOLATION, DAT_PRIVILEGES_RDMA_WRITE));
	ASSERT_DAT_EQ(BIND(rmr, ro, &bad, (DAT_MEM_PRIV_FLAGS)DAT_IB_MEM_PRIV_REMOTE_ATOMIC,
			   DAT_VA_TYPE_VA, p.s.ep, 0, &ctx),
		      ERR(DAT_PRIVILEGES_VIOLATION, DAT_PRIVILEGES_RDMA_WRITE));
	/* ...while read is covered: that one binds. */
	ASSERT_OK(BIND(rmr, ro, &bad, DAT_MEM_PRIV_REMOTE_READ_FLAG,
		       DAT_VA_TYPE_VA, p.s.ep, 0, &ctx));
	expect_bind(p.s.req_evd, rmr, 1, DAT_DTO_SUCCESS);
	/* Unbound (length 0) before its LMR goes. */
	bad.segment_length = 0;
	ASSERT_OK(BIND(rmr, NULL, &bad, 0, DAT_VA_TYPE_VA, p.s.ep, 0, NULL));
	expect_bind(p.s.req_evd, rmr, 1, DAT_DTO_SUCCESS);
	ASSERT_OK(dat_lmr_free(ro));
	/* An LMR of another PZ than the RMR's. */
	bad = sdt_iov(&o, 0, 4096);
	ASSERT_DAT_EQ(BIND(rmr, o.lmr, &bad, RW, DAT_VA_TYPE_VA, p.s.ep, 0, &ctx),
		      ERR(DAT_PROTECTION_VIOLATION, 0));
	/* The EP: invalid, of another PZ, unconnected. */
	ASSERT_DAT_EQ(BIND(rmr, p.s.lmr, &t, RW, DAT_VA_TYPE_VA, p.s.pz, 0, &ctx),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	ASSERT_DAT_EQ(BIND(rmr, p.s.lmr, &t, RW, DAT_VA_TYPE_VA, p.c.ep, 0, &ctx),
		      ERR(DAT_PROTECTION_VIOLATION, 0));
	bad = sdt_iov(&o, 0, 4096);
	ASSERT_DAT_EQ(BIND(rmr_o, o.lmr, &bad, RW, DAT_VA_TYPE_VA, o.ep, 0, &ctx),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONNECTED));
	/* Flags: unknown, solicited (a send's), unsignalled not allowed. */
	ASSERT_DAT_EQ(BIND(rmr, p.s.lmr, &t, RW, DAT_VA_TYPE_VA, p.s.ep, 0x100, &ctx),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG8));
	ASSERT_DAT_EQ(BIND(rmr, p.s.lmr, &t, RW, DAT_VA_TYPE_VA, p.s.ep,
			   DAT_COMPLETION_SOLICITED_WAIT_FLAG, &ctx),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG8));
	ASSERT_DAT_EQ(BIND(rmr, p.s.lmr, &t, RW, DAT_VA_TYPE_VA, p.s.ep,
			   DAT_COMPLETION_UNSIGNALLED_FLAG, &ctx),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG8));
	/*
	 * A full request queue: two SENDs the peer has no receive for stay
	 * outstanding (RNR), and a bind finds no slot.
	 */
	ASSERT_OK(sdt_send(&p.s, 0, 10, 20, 0));
	ASSERT_OK(sdt_send(&p.s, 0, 10, 21, 0));
	ASSERT_DAT_EQ(BIND(rmr, p.s.lmr, &t, RW, DAT_VA_TYPE_VA, p.s.ep, 0, &ctx),
		      ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP));
	/* Let them through; a DISCONNECTED EP flushes a bind at once. */
	ASSERT_OK(sdt_recv(&p.c, 0, 100, 30));
	ASSERT_OK(sdt_recv(&p.c, 0, 100, 31));
	sdt_expect_dto(p.s.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 20);
	sdt_expect_dto(p.s.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 21);
	sdt_expect_dto(p.c.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 30);
	sdt_expect_dto(p.c.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 31);
	sdt_disconnect(&p.c, &p.s);
	ASSERT_OK(BIND(rmr, p.s.lmr, &t, RW, DAT_VA_TYPE_VA, p.s.ep, 0, &ctx));
	expect_bind(p.s.req_evd, rmr, 1, DAT_RMR_BIND_FAILURE);
	/* ...and the RMR stays unbound. */
	{
		DAT_RMR_PARAM q;

		ASSERT_OK(dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &q));
		ASSERT_EQ(q.rmr_context, 0);
	}
#undef BIND
	ASSERT_OK(dat_rmr_free(rmr));
	ASSERT_OK(dat_rmr_free(rmr_o));
	sdt_node_fini(&o);
	pair_down(&p);
	return 0;
}

/*
 * A third party: a connection (c2 -> s2) whose server EP is in the PZ of
 * the pair's server, so that it can use the server's RMRs while the
 * pair's own connection is stalled.
 */
struct third {
	struct sdt_node	c2, s2;
};

static void third_up(struct third *t, struct pair *p)
{
	DAT_EP_PARAM ep;

	sdt_node_init(&t->c2, p->ia, NULL, BUF);
	sdt_node_init(&t->s2, p->ia, NULL, 16);
	memset(&ep, 0, sizeof(ep));
	ep.pz_handle = p->s.pz;
	ASSERT_OK(dat_ep_modify(t->s2.ep, DAT_EP_FIELD_PZ_HANDLE, &ep));
	sdt_connect(&t->c2, &t->s2);
}

static void third_down(struct third *t)
{
	sdt_node_fini(&t->c2);
	sdt_node_fini(&t->s2);
}

/* The third party writes @len bytes of its buffer through @r: 0 or status. */
static DAT_DTO_COMPLETION_STATUS third_write(struct third *t, DAT_RMR_TRIPLET r,
					     uint64_t cookie)
{
	DAT_LMR_TRIPLET iov = sdt_iov(&t->c2, 0, r.segment_length);
	DAT_EVENT ev;

	ASSERT_OK(dat_ep_post_rdma_write(t->c2.ep, 1, &iov, ck(cookie), &r, 0));
	ev = sdt_wait(t->c2.req_evd, 10000);
	ASSERT_EQ(ev.event_number, DAT_DTO_COMPLETION_EVENT);
	ASSERT_UINT64_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64,
			 cookie);
	return ev.event_data.dto_completion_event_data.status;
}

/*
 * Holds a bind of the server back, deterministically: the server SENDs
 * to the client, which has no receive (RNR: the client stops reading), then
 * READs from the client (the READ_REQ stays unread, the READ outstanding),
 * and the bind, fenced (SEND-2), waits for that READ. release_stall posts
 * the receive that lets it all through.
 */
static void stall(struct pair *p)
{
	DAT_LMR_TRIPLET iov = sdt_iov(&p->s, 60000, 100);
	DAT_RMR_TRIPLET r = sdt_rmr(&p->c, 0, 100);

	ASSERT_OK(sdt_send(&p->s, 0, 10, 100, 0));
	ASSERT_OK(dat_ep_post_rdma_read(p->s.ep, 1, &iov, ck(101), &r, 0));
}

static void release_stall(struct pair *p)
{
	ASSERT_OK(sdt_recv(&p->c, 60000, 100, 102));
	sdt_expect_dto(p->s.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 100);
	sdt_expect_dto(p->s.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_READ, 101);
	sdt_expect_dto(p->c.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 102);
}

/*
 * A bind takes effect in its turn: after the requests posted before it
 * went out, and, fenced, after the reads before it completed (SEND-2);
 * it completes in order with them; until it takes effect the old binding
 * still works (dat_rmr_bind(3)).
 */
TEST_IMPL(provider_mem2_rmr_bind_in_order)
{
	struct pair p;
	struct third t;
	DAT_RMR_HANDLE rmr;
	DAT_RMR_CONTEXT old, ctx = 0;
	DAT_LMR_TRIPLET lt;
	DAT_RMR_PARAM q;

	pair_up(&p, NULL);
	third_up(&t, &p);
	fill(t.c2.buf, BUF, 9);
	ASSERT_OK(dat_rmr_create(p.s.pz, &rmr));
	old = do_bind(&p.s, rmr, 0, 1024, RW, 1);
	stall(&p);
	lt = sdt_iov(&p.s, 2048, 1024);
	ASSERT_OK(dat_rmr_bind(rmr, p.s.lmr, &lt, RW, DAT_VA_TYPE_VA, p.s.ep,
			       ck(3), DAT_COMPLETION_BARRIER_FENCE_FLAG, &ctx));
	ASSERT_NE(ctx, old);
	/* Not in effect yet: the old context works. */
	ASSERT_EQ(third_write(&t, at(&p.s, 0, 1024, old), 4), DAT_DTO_SUCCESS);
	ASSERT_MEM_EQ(p.s.buf, t.c2.buf, 1024);
	ASSERT_OK(dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &q));
	ASSERT_EQ(q.rmr_context, old);
	sdt_expect_none(p.s.req_evd, 20);
	/* The SEND, the READ, then the bind; completions in that order. */
	release_stall(&p);
	expect_bind(p.s.req_evd, rmr, 3, DAT_DTO_SUCCESS);
	ASSERT_OK(dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &q));
	ASSERT_EQ(q.rmr_context, ctx);
	ASSERT_EQ(third_write(&t, at(&p.s, 2048, 1024, ctx), 5), DAT_DTO_SUCCESS);
	ASSERT_MEM_EQ(p.s.buf + 2048, t.c2.buf, 1024);
	ASSERT_EQ(third_write(&t, at(&p.s, 0, 16, old), 6),
		  DAT_DTO_ERR_REMOTE_ACCESS);
	sdt_expect_conn(t.c2.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	ASSERT_OK(dat_rmr_free(rmr));
	third_down(&t);
	pair_down(&p);
	return 0;
}

/*
 * Unbinding (length 0), and dat_rmr_free of a bound RMR: its context is
 * dead either way. A bound RMR keeps its LMR from being freed.
 */
TEST_IMPL(provider_mem2_rmr_unbind_free)
{
	struct pair p;
	DAT_RMR_HANDLE rmr;
	DAT_RMR_CONTEXT ctx, out = 7;
	DAT_LMR_TRIPLET t;
	DAT_LMR_HANDLE l2;
	DAT_LMR_CONTEXT l2_l;
	DAT_REGION_DESCRIPTION rd;
	DAT_RMR_PARAM q;

	pair_up(&p, NULL);
	ASSERT_OK(dat_rmr_create(p.s.pz, &rmr));
	ctx = do_bind(&p.s, rmr, 0, 4096, RW, 1);
	/* Unbind: the LMR, privileges and the rest are ignored. */
	t = sdt_iov(&p.s, 0, 0);
	ASSERT_OK(dat_rmr_bind(rmr, NULL, &t, 0, DAT_VA_TYPE_VA, p.s.ep, ck(2),
			       DAT_COMPLETION_DEFAULT_FLAG, &out));
	ASSERT_EQ(out, 0);
	expect_bind(p.s.req_evd, rmr, 2, DAT_DTO_SUCCESS);
	ASSERT_OK(dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &q));
	ASSERT_EQ(q.rmr_context, 0);
	ASSERT_UINT64_EQ(q.lmr_triplet.segment_length, 0);
	memset(p.s.buf, 0, BUF);
	expect_refused(&p, at(&p.s, 0, 16, ctx), false);
	reconnect(&p);

	/* Bound to a second LMR, which cannot be freed meanwhile. */
	rd.for_va = p.s.buf;
	ASSERT_OK(dat_lmr_create(p.ia, DAT_MEM_TYPE_VIRTUAL, rd, BUF, p.s.pz,
				 DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &l2,
				 &l2_l, NULL, NULL, NULL));
	t = sdt_iov(&p.s, 100, 200);
	t.lmr_context = l2_l;
	ASSERT_OK(dat_rmr_bind(rmr, l2, &t, RW, DAT_VA_TYPE_VA, p.s.ep, ck(3),
			       DAT_COMPLETION_DEFAULT_FLAG, &ctx));
	expect_bind(p.s.req_evd, rmr, 3, DAT_DTO_SUCCESS);
	ASSERT_DAT_EQ(dat_lmr_free(l2),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_LMR_IN_USE));
	write_ok(&p, at(&p.s, 100, 200, ctx), 4);
	/* dat_rmr_free(3): allowed bound; it unbinds. */
	ASSERT_OK(dat_rmr_free(rmr));
	ASSERT_OK(dat_lmr_free(l2));
	memset(p.s.buf, 0, BUF);
	expect_refused(&p, at(&p.s, 100, 16, ctx), false);
	pair_down(&p);
	return 0;
}

/*
 * dat_rmr_free with a bind still in flight: the bind completes
 * DAT_RMR_BIND_FAILURE and takes no effect. A bind flushed by a
 * disconnect takes none either. Nothing leaks: the LMR, referenced by
 * the binds meanwhile, can be freed after.
 */
TEST_IMPL(provider_mem2_rmr_free_pending)
{
	struct pair p;
	DAT_RMR_HANDLE rmr;
	DAT_RMR_CONTEXT ctx;
	DAT_LMR_TRIPLET t;

	pair_up(&p, NULL);
	ASSERT_OK(dat_rmr_create(p.s.pz, &rmr));
	stall(&p);
	t = sdt_iov(&p.s, 0, 4096);
	ASSERT_OK(dat_rmr_bind(rmr, p.s.lmr, &t, RW, DAT_VA_TYPE_VA, p.s.ep,
			       ck(2), DAT_COMPLETION_BARRIER_FENCE_FLAG, &ctx));
	ASSERT_DAT_EQ(dat_lmr_free(p.s.lmr),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_LMR_IN_USE));
	ASSERT_OK(dat_rmr_free(rmr));
	release_stall(&p);
	expect_bind(p.s.req_evd, rmr, 2, DAT_RMR_BIND_FAILURE);
	memset(p.s.buf, 0, BUF);
	expect_refused(&p, at(&p.s, 0, 16, ctx), false);

	reconnect(&p);
	ASSERT_OK(dat_rmr_create(p.s.pz, &rmr));
	stall(&p);
	ASSERT_OK(dat_rmr_bind(rmr, p.s.lmr, &t, RW, DAT_VA_TYPE_VA, p.s.ep,
			       ck(5), DAT_COMPLETION_BARRIER_FENCE_FLAG, &ctx));
	ASSERT_OK(dat_ep_disconnect(p.s.ep, DAT_CLOSE_ABRUPT_FLAG));
	sdt_expect_dto(p.s.req_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_SEND, 100);
	sdt_expect_dto(p.s.req_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_RDMA_READ, 101);
	expect_bind(p.s.req_evd, rmr, 5, DAT_DTO_ERR_FLUSHED);
	sdt_expect_conn(p.s.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	sdt_expect_conn(p.c.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	{
		DAT_RMR_PARAM q;

		ASSERT_OK(dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &q));
		ASSERT_EQ(q.rmr_context, 0);
	}
	ASSERT_OK(dat_rmr_free(rmr));
	pair_down(&p);		/* frees the LMR: no reference is left */
	return 0;
}

/*
 * dat_rmr_create_for_ep: scope EP; its context works only on the
 * connection of the EP it was bound through, even for another EP of the
 * same PZ.
 */
TEST_IMPL(provider_mem2_rmr_for_ep)
{
	struct pair p;
	struct third t;
	DAT_RMR_HANDLE rmr, rmr_pz;
	DAT_RMR_CONTEXT ctx, ctx_pz;
	DAT_RMR_PARAM q;
	DAT_RMR_TRIPLET r;
	DAT_LMR_TRIPLET iov;
	size_t i;

	pair_up(&p, NULL);
	third_up(&t, &p);	/* another EP of the server's PZ */

	ASSERT_OK(dat_rmr_create_for_ep(p.s.pz, &rmr));
	ASSERT_OK(dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &q));
	ASSERT_EQ(q.rmr_scope, DAT_RMR_SCOPE_EP);
	ctx = do_bind(&p.s, rmr, 0, 4096, RW, 1);
	/* The same range through a PZ-scope RMR works on both. */
	ASSERT_OK(dat_rmr_create(p.s.pz, &rmr_pz));
	ctx_pz = do_bind(&p.s, rmr_pz, 0, 4096, RW, 2);

	fill(p.c.buf, BUF, 1);
	write_ok(&p, at(&p.s, 0, 4096, ctx), 3);
	ASSERT_MEM_EQ(p.s.buf, p.c.buf, 4096);
	fill(t.c2.buf, BUF, 2);
	r = at(&p.s, 0, 4096, ctx_pz);
	iov = sdt_iov(&t.c2, 0, 4096);
	ASSERT_OK(dat_ep_post_rdma_write(t.c2.ep, 1, &iov, ck(4), &r, 0));
	sdt_expect_dto(t.c2.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_WRITE, 4);
	ASSERT_MEM_EQ(p.s.buf, t.c2.buf, 4096);

	/* The EP-scope context on the other connection: refused. */
	memset(p.s.buf, 0, BUF);
	r = at(&p.s, 0, 16, ctx);
	iov = sdt_iov(&t.c2, 0, 16);
	ASSERT_OK(dat_ep_post_rdma_write(t.c2.ep, 1, &iov, ck(5), &r, 0));
	sdt_expect_dto(t.c2.req_evd, DAT_DTO_ERR_REMOTE_ACCESS, DAT_DTO_RDMA_WRITE, 5);
	sdt_expect_conn(t.c2.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	sdt_expect_conn(t.s2.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	for (i = 0; i < BUF; i++)
		ASSERT_EQ(p.s.buf[i], 0);
	/* Rebound through the second EP, it moves there. */
	ASSERT_OK(dat_ep_reset(t.c2.ep));
	ASSERT_OK(dat_ep_reset(t.s2.ep));
	sdt_connect(&t.c2, &t.s2);
	{
		DAT_LMR_TRIPLET lt = sdt_iov(&p.s, 0, 4096);

		ASSERT_OK(dat_rmr_bind(rmr, p.s.lmr, &lt, RW, DAT_VA_TYPE_VA,
				       t.s2.ep, ck(6), DAT_COMPLETION_DEFAULT_FLAG,
				       &ctx));
		expect_bind(t.s2.req_evd, rmr, 6, DAT_DTO_SUCCESS);
	}
	r = at(&p.s, 0, 4096, ctx);
	iov = sdt_iov(&t.c2, 0, 4096);
	ASSERT_OK(dat_ep_post_rdma_write(t.c2.ep, 1, &iov, ck(7), &r, 0));
	sdt_expect_dto(t.c2.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_WRITE, 7);
	ASSERT_MEM_EQ(p.s.buf, t.c2.buf, 4096);
	memset(p.s.buf, 0, BUF);
	expect_refused(&p, at(&p.s, 0, 16, ctx), false);

	ASSERT_OK(dat_rmr_free(rmr));
	ASSERT_OK(dat_rmr_free(rmr_pz));
	third_down(&t);
	pair_down(&p);
	return 0;
}

/* ------------------------------------------------------------------ */
/* dat_ep_post_send_with_invalidate                                    */

TEST_IMPL(provider_mem2_send_with_invalidate)
{
	struct pair p;
	DAT_RMR_HANDLE rmr;
	DAT_RMR_CONTEXT ctx;
	DAT_RMR_PARAM q;
	DAT_LMR_TRIPLET iov;
	DAT_EVENT ev;
	DAT_DTO_COMPLETION_EVENT_DATA *d = &ev.event_data.dto_completion_event_data;

	pair_up(&p, NULL);
	ASSERT_OK(dat_rmr_create(p.s.pz, &rmr));
	ctx = do_bind(&p.s, rmr, 0, 4096, RW, 1);
	fill(p.c.buf, BUF, 4);
	iov = sdt_iov(&p.c, 0, 64);

	/* Argument errors. */
	ASSERT_DAT_EQ(dat_ep_post_send_with_invalidate(p.c.pz, 1, &iov, ck(1), 0,
						       DAT_TRUE, ctx),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	ASSERT_DAT_EQ(dat_ep_post_send_with_invalidate(p.c.ep, 1, &iov, ck(1), 0x100,
						       DAT_TRUE, ctx),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	ASSERT_DAT_EQ(dat_ep_post_send_with_invalidate(p.c.ep, 1, &iov, ck(1), 0,
						       (DAT_BOOLEAN)7, ctx),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
	ASSERT_DAT_EQ(dat_ep_post_send_with_invalidate(p.c.ep, -1, &iov, ck(1), 0,
						       DAT_TRUE, ctx),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_ep_post_send_with_invalidate(p.c.ep, 1, NULL, ck(1), 0,
						       DAT_TRUE, ctx),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));

	/* invalidate false: a plain send; nothing is invalidated. */
	ASSERT_OK(sdt_recv(&p.s, 8192, 100, 10));
	ASSERT_OK(dat_ep_post_send_with_invalidate(p.c.ep, 1, &iov, ck(11), 0,
						   DAT_FALSE, ctx));
	sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 11);
	sdt_expect_dto(p.s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 10);
	ASSERT_OK(dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &q));
	ASSERT_EQ(q.rmr_context, ctx);

	/* With invalidate: the receive names the context; the RMR is unbound. */
	ASSERT_OK(sdt_recv(&p.s, 8192, 100, 12));
	ASSERT_OK(dat_ep_post_send_with_invalidate(p.c.ep, 1, &iov, ck(13),
						   DAT_COMPLETION_SOLICITED_WAIT_FLAG,
						   DAT_TRUE, ctx));
	sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 13);
	ev = sdt_wait(p.s.recv_evd, 10000);
	ASSERT_EQ(ev.event_number, DAT_DTO_COMPLETION_EVENT);
	ASSERT_EQ(d->status, DAT_DTO_SUCCESS);
	ASSERT_EQ(d->operation, DAT_DTO_RECEIVE_WITH_INVALIDATE);
	ASSERT_EQ(d->rmr_context, ctx);
	ASSERT_EQ(d->transfered_length, 64);
	ASSERT_UINT64_EQ(d->user_cookie.as_64, 12);
	ASSERT_MEM_EQ(p.s.buf + 8192, p.c.buf, 64);
	ASSERT_OK(dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &q));
	ASSERT_EQ(q.rmr_context, 0);
	memset(p.s.buf, 0, BUF);
	expect_refused(&p, at(&p.s, 0, 16, ctx), false);
	reconnect(&p);

	/*
	 * Nothing to invalidate (the dead context again; an LMR's context,
	 * which dat_lmr_create(3) says cannot be): the SEND fails with a
	 * remote access error, the connection breaks and the receive is
	 * not consumed but flushed.
	 */
	{
		DAT_RMR_CONTEXT bad[2] = { ctx, p.s.rctx };
		int k;

		for (k = 0; k < 2; k++) {
			ASSERT_OK(sdt_recv(&p.s, 0, 100, 20));
			ASSERT_OK(dat_ep_post_send_with_invalidate(p.c.ep, 1, &iov,
								   ck(21), 0,
								   DAT_TRUE,
								   bad[k]));
			sdt_expect_dto(p.c.req_evd, DAT_DTO_ERR_REMOTE_ACCESS,
				       DAT_DTO_SEND, 21);
			sdt_expect_conn(p.c.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
			sdt_expect_conn(p.s.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
			sdt_expect_dto(p.s.recv_evd, DAT_DTO_ERR_FLUSHED,
				       DAT_DTO_RECEIVE, 20);
			if (k == 0)
				reconnect(&p);
		}
	}
	/* SEND-5 holds for it too. */
	ASSERT_OK(dat_ep_post_send_with_invalidate(p.c.ep, 1, &iov, ck(22), 0,
						   DAT_TRUE, ctx));
	sdt_expect_dto(p.c.req_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_SEND, 22);
	ASSERT_OK(dat_ep_reset(p.c.ep));
	ASSERT_DAT_EQ(dat_ep_post_send_with_invalidate(p.c.ep, 1, &iov, ck(23), 0,
						       DAT_TRUE, ctx),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONNECTED));
	ASSERT_OK(dat_rmr_free(rmr));
	pair_down(&p);
	return 0;
}

/* ------------------------------------------------------------------ */
/* dat_ep_post_rdma_read_to_rmr                                        */

TEST_IMPL(provider_mem2_read_to_rmr)
{
	struct pair p;
	struct sdt_node o;
	DAT_RMR_HANDLE rmr;
	DAT_RMR_CONTEXT ctx;
	DAT_RMR_TRIPLET local, remote, bad;
	DAT_LMR_HANDLE ro;
	DAT_RMR_CONTEXT ro_r;
	DAT_REGION_DESCRIPTION rd;
	DAT_DTO_COMPLETION_EVENT_DATA d;

	pair_up(&p, NULL);
	sdt_node_init(&o, p.ia, NULL, 4096);
	fill(p.s.buf, BUF, 8);
	/* Into an RMR of the client, bound for remote write. */
	ASSERT_OK(dat_rmr_create(p.c.pz, &rmr));
	ctx = do_bind(&p.c, rmr, 4096, 8192, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, 1);
	local = at(&p.c, 4096, 8192, ctx);
	remote = sdt_rmr(&p.s, 1000, 8192);
	ASSERT_OK(dat_ep_post_rdma_read_to_rmr(p.c.ep, &local, ck(2), &remote, 0));
	d = sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_READ, 2);
	ASSERT_EQ(d.transfered_length, 8192);
	ASSERT_MEM_EQ(p.c.buf + 4096, p.s.buf + 1000, 8192);
	/* Into an LMR's own rmr_context, part of it. */
	local = sdt_rmr(&p.c, 30000, 100);
	remote = sdt_rmr(&p.s, 0, 200);
	ASSERT_OK(dat_ep_post_rdma_read_to_rmr(p.c.ep, &local, ck(3), &remote, 0));
	d = sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_READ, 3);
	ASSERT_EQ(d.transfered_length, 100);
	ASSERT_MEM_EQ(p.c.buf + 30000, p.s.buf, 100);

	/* Errors. */
	local = at(&p.c, 4096, 100, ctx);
	remote = sdt_rmr(&p.s, 0, 100);
	ASSERT_DAT_EQ(dat_ep_post_rdma_read_to_rmr(p.c.pz, &local, ck(4), &remote, 0),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	ASSERT_DAT_EQ(dat_ep_post_rdma_read_to_rmr(p.c.ep, NULL, ck(4), &remote, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_ep_post_rdma_read_to_rmr(p.c.ep, &local, ck(4), NULL, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	ASSERT_DAT_EQ(dat_ep_post_rdma_read_to_rmr(p.c.ep, &local, ck(4), &remote,
						   DAT_COMPLETION_SOLICITED_WAIT_FLAG),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	bad = local;
	bad.rmr_context ^= 0x5a5a;	/* names nothing: no subtype */
	ASSERT_DAT_EQ(dat_ep_post_rdma_read_to_rmr(p.c.ep, &bad, ck(4), &remote, 0),
		      ERR(DAT_PRIVILEGES_VIOLATION, 0));
	bad = at(&p.c, 4096 + 8192 - 50, 51, ctx);	/* leaves the RMR */
	ASSERT_DAT_EQ(dat_ep_post_rdma_read_to_rmr(p.c.ep, &bad, ck(4), &remote, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	/* A context without remote write. */
	rd.for_va = p.c.buf;
	ASSERT_OK(dat_lmr_create(p.ia, DAT_MEM_TYPE_VIRTUAL, rd, BUF, p.c.pz,
				 DAT_MEM_PRIV_LOCAL_WRITE_FLAG |
				 DAT_MEM_PRIV_REMOTE_READ_FLAG, DAT_VA_TYPE_VA,
				 &ro, NULL, &ro_r, NULL, NULL));
	bad = local;
	bad.rmr_context = ro_r;
	ASSERT_DAT_EQ(dat_ep_post_rdma_read_to_rmr(p.c.ep, &bad, ck(4), &remote, 0),
		      ERR(DAT_PRIVILEGES_VIOLATION, DAT_PRIVILEGES_WRITE));
	ASSERT_OK(dat_lmr_free(ro));
	/* Memory of another PZ. */
	bad = sdt_rmr(&o, 0, 100);
	ASSERT_DAT_EQ(dat_ep_post_rdma_read_to_rmr(p.c.ep, &bad, ck(4), &remote, 0),
		      ERR(DAT_PROTECTION_VIOLATION, DAT_PROTECTION_WRITE));
	/* More room than the remote buffer has. */
	remote.segment_length = 99;
	ASSERT_DAT_EQ(dat_ep_post_rdma_read_to_rmr(p.c.ep, &local, ck(4), &remote, 0),
		      ERR(DAT_LENGTH_ERROR, 0));
	sdt_expect_none(p.c.req_evd, 20);
	/* DISCONNECTED: flushed at once; UNCONNECTED: refused. */
	remote.segment_length = 100;
	sdt_disconnect(&p.c, &p.s);
	ASSERT_OK(dat_ep_post_rdma_read_to_rmr(p.c.ep, &local, ck(5), &remote, 0));
	sdt_expect_dto(p.c.req_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_RDMA_READ, 5);
	ASSERT_OK(dat_ep_reset(p.c.ep));
	ASSERT_DAT_EQ(dat_ep_post_rdma_read_to_rmr(p.c.ep, &local, ck(6), &remote, 0),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONNECTED));
	ASSERT_OK(dat_rmr_free(rmr));
	sdt_node_fini(&o);
	pair_down(&p);
	return 0;
}

/* ------------------------------------------------------------------ */
/* LMR types                                                           */

/*
 * DAT_MEM_TYPE_LMR: a new LMR over the whole of an existing one (the
 * length is ignored), with its own PZ, privileges and contexts; the
 * parent cannot be freed while it exists.
 */
TEST_IMPL(provider_mem2_lmr_over_lmr)
{
	struct pair p;
	struct sdt_node o;
	DAT_REGION_DESCRIPTION rd;
	DAT_LMR_HANDLE child, first, grandchild;
	DAT_LMR_CONTEXT lc;
	DAT_RMR_CONTEXT rc;
	DAT_VLEN rlen;
	DAT_VADDR raddr;
	DAT_LMR_PARAM q;
	DAT_LMR_TRIPLET iov;
	DAT_IA_HANDLE ia2;
	DAT_PZ_HANDLE pz2;
	DAT_PROVIDER_ATTR pa;

	pair_up(&p, NULL);
	sdt_node_init(&o, p.ia, NULL, 4096);
	/* The provider says what it supports. */
	ASSERT_OK(dat_ia_query(p.ia, NULL, 0, NULL, DAT_PROVIDER_FIELD_ALL, &pa));
	ASSERT(pa.lmr_mem_types_supported & DAT_MEM_TYPE_LMR);
	ASSERT(pa.lmr_mem_types_supported & DAT_MEM_TYPE_SHARED_VIRTUAL);
	ASSERT_EQ(pa.rmr_scope_supported, DAT_RMR_SCOPE_ANY);

	/* The client's buffer again, in the other node's PZ, read only. */
	rd.for_lmr_handle = p.s.lmr;
	ASSERT_OK(dat_lmr_create(p.ia, DAT_MEM_TYPE_LMR, rd, 12345, o.pz,
				 DAT_MEM_PRIV_LOCAL_READ_FLAG |
				 DAT_MEM_PRIV_REMOTE_READ_FLAG, DAT_VA_TYPE_VA,
				 &child, &lc, &rc, &rlen, &raddr));
	first = child;
	ASSERT_UINT64_EQ(rlen, BUF);
	ASSERT_UINT64_EQ(raddr, (uintptr_t)p.s.buf);
	ASSERT_NE(lc, p.s.lctx);
	ASSERT_NE(rc, p.s.rctx);
	ASSERT_OK(dat_lmr_query(child, DAT_LMR_FIELD_ALL, &q));
	ASSERT_EQ(q.mem_type, DAT_MEM_TYPE_LMR);
	ASSERT_PTR_EQ(q.region_desc.for_lmr_handle, p.s.lmr);
	ASSERT_PTR_EQ(q.pz_handle, o.pz);
	ASSERT_UINT64_EQ(q.length, BUF);
	/* A grandchild, back in the server's PZ. */
	rd.for_lmr_handle = child;
	ASSERT_OK(dat_lmr_create(p.ia, DAT_MEM_TYPE_LMR, rd, 0, p.s.pz,
				 DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA,
				 &grandchild, NULL, NULL, NULL, NULL));
	ASSERT_DAT_EQ(dat_lmr_free(p.s.lmr),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_LMR_IN_USE));
	ASSERT_DAT_EQ(dat_lmr_free(child),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_LMR_IN_USE));

	/*
	 * Its contexts work with its own rights: readable by a peer of its
	 * PZ (none here: another PZ than the server's EP is refused, as
	 * WRITE-6 says) and locally with its own PZ.
	 */
	iov.virtual_address = (DAT_VADDR)(uintptr_t)p.s.buf;
	iov.segment_length = 64;
	iov.lmr_context = lc;
	ASSERT_DAT_EQ(dat_ep_post_send(p.s.ep, 1, &iov, ck(1), 0),
		      ERR(DAT_PROTECTION_VIOLATION, DAT_PROTECTION_READ));
	ASSERT_DAT_EQ(dat_ep_post_recv(o.ep, 1, &iov, ck(1), 0),
		      ERR(DAT_PRIVILEGES_VIOLATION, DAT_PRIVILEGES_WRITE));
	memset(p.s.buf, 0, BUF);
	expect_refused(&p, at(&p.s, 0, 16, rc), true);
	/* Argument errors of the type. */
	rd.for_lmr_handle = p.s.pz;
	ASSERT_DAT_EQ(dat_lmr_create(p.ia, DAT_MEM_TYPE_LMR, rd, 0, p.s.pz,
				     DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA,
				     &grandchild, NULL, NULL, NULL, NULL),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR));
	ia2 = sdt_open_ia(NULL, NULL);
	ASSERT_OK(dat_pz_create(ia2, &pz2));
	rd.for_lmr_handle = p.s.lmr;	/* an LMR of another IA */
	ASSERT_DAT_EQ(dat_lmr_create(ia2, DAT_MEM_TYPE_LMR, rd, 0, pz2,
				     DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA,
				     &child, NULL, NULL, NULL, NULL),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR));
	ASSERT_OK(dat_pz_free(pz2));
	ASSERT_OK(dat_ia_close(ia2, DAT_CLOSE_GRACEFUL_FLAG));
	/* Freed youngest first. */
	ASSERT_OK(dat_lmr_free(grandchild));
	ASSERT_DAT_EQ(dat_lmr_free(p.s.lmr),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_LMR_IN_USE));
	ASSERT_OK(dat_lmr_free(first));
	sdt_node_fini(&o);
	pair_down(&p);
	return 0;
}

/*
 * The LMR of an LMR works on the wire: a peer writes through its
 * rmr_context with its privileges, and the parent's memory changes.
 */
TEST_IMPL(provider_mem2_lmr_over_lmr_rdma)
{
	struct pair p;
	DAT_REGION_DESCRIPTION rd;
	DAT_LMR_HANDLE child;
	DAT_LMR_CONTEXT lc;
	DAT_RMR_CONTEXT rc;
	DAT_LMR_TRIPLET iov;

	pair_up(&p, NULL);
	rd.for_lmr_handle = p.s.lmr;
	ASSERT_OK(dat_lmr_create(p.ia, DAT_MEM_TYPE_LMR, rd, 0, p.s.pz,
				 DAT_MEM_PRIV_LOCAL_READ_FLAG |
				 DAT_MEM_PRIV_REMOTE_WRITE_FLAG, DAT_VA_TYPE_VA,
				 &child, &lc, &rc, NULL, NULL));
	fill(p.c.buf, BUF, 12);
	write_ok(&p, at(&p.s, 1000, 3000, rc), 1);
	ASSERT_MEM_EQ(p.s.buf + 1000, p.c.buf, 3000);
	/* Its lmr_context for a local send of the server. */
	ASSERT_OK(sdt_recv(&p.c, 40000, 3000, 2));
	iov.virtual_address = (DAT_VADDR)(uintptr_t)(p.s.buf + 1000);
	iov.segment_length = 3000;
	iov.lmr_context = lc;
	ASSERT_OK(dat_ep_post_send(p.s.ep, 1, &iov, ck(3), 0));
	sdt_expect_dto(p.s.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 3);
	sdt_expect_dto(p.c.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 2);
	ASSERT_MEM_EQ(p.c.buf + 40000, p.c.buf, 3000);
	/* No remote read through it. */
	memset(p.s.buf, 0, BUF);
	expect_refused(&p, at(&p.s, 0, 16, rc), true);
	ASSERT_OK(dat_lmr_free(child));
	pair_down(&p);
	return 0;
}

/*
 * DAT_MEM_TYPE_SHARED_VIRTUAL: memory the consumer mapped shared, named
 * by a 40-byte cookie. An RDMA write into it is seen through another
 * mapping of the same object.
 */
TEST_IMPL(provider_mem2_shared_virtual)
{
	struct pair p;
	char cookie[DAT_LMR_COOKIE_SIZE];
	char *a, *b, *priv;
	int fd;
	DAT_REGION_DESCRIPTION rd;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lc;
	DAT_RMR_CONTEXT rc;
	DAT_LMR_PARAM q;
	DAT_VLEN rlen;
	DAT_VADDR raddr;
	long page = sysconf(_SC_PAGESIZE);

	pair_up(&p, NULL);
	fd = memfd_create("softdapl-test", 0);
	ASSERT(fd >= 0);
	ASSERT_EQ(ftruncate(fd, 4 * page), 0);
	a = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	b = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT(a != MAP_FAILED && b != MAP_FAILED);
	priv = mmap(NULL, page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT(priv != MAP_FAILED);
	/* All 40 bytes count, NULs included. */
	memset(cookie, 0, sizeof(cookie));
	memcpy(cookie, "region\0one", 10);
	cookie[39] = 'z';

	rd.for_shared_memory.virtual_address = a + 100;
	rd.for_shared_memory.shared_memory_id = &cookie;
	ASSERT_OK(dat_lmr_create(p.ia, DAT_MEM_TYPE_SHARED_VIRTUAL, rd,
				 3 * page, p.s.pz, DAT_MEM_PRIV_ALL_FLAG,
				 DAT_VA_TYPE_VA, &lmr, &lc, &rc, &rlen, &raddr));
	ASSERT_UINT64_EQ(rlen, 3 * page);
	ASSERT_UINT64_EQ(raddr, (uintptr_t)a + 100);
	memset(cookie, 'x', sizeof(cookie));	/* the provider kept a copy */
	ASSERT_OK(dat_lmr_query(lmr, DAT_LMR_FIELD_ALL, &q));
	ASSERT_EQ(q.mem_type, DAT_MEM_TYPE_SHARED_VIRTUAL);
	ASSERT_PTR_EQ(q.region_desc.for_shared_memory.virtual_address, a + 100);
	ASSERT_MEM_EQ(*q.region_desc.for_shared_memory.shared_memory_id,
		      "region\0one", 10);
	ASSERT_EQ((*q.region_desc.for_shared_memory.shared_memory_id)[39], 'z');

	/* A peer's write lands in the object: visible through @b. */
	fill(p.c.buf, BUF, 21);
	{
		DAT_RMR_TRIPLET r;

		r.virtual_address = (DAT_VADDR)(uintptr_t)(a + 100);
		r.segment_length = (DAT_SEG_LENGTH)(2 * page);
		r.rmr_context = rc;
		write_ok(&p, r, 1);
	}
	ASSERT_MEM_EQ(b + 100, p.c.buf, (size_t)(2 * page));

	ASSERT_OK(dat_lmr_free(lmr));
	/* Errors: no cookie, no address, zero length, private memory. */
	rd.for_shared_memory.shared_memory_id = NULL;
	ASSERT_DAT_EQ(dat_lmr_create(p.ia, DAT_MEM_TYPE_SHARED_VIRTUAL, rd, page,
				     p.s.pz, DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA,
				     &lmr, NULL, NULL, NULL, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	rd.for_shared_memory.shared_memory_id = &cookie;
	rd.for_shared_memory.virtual_address = NULL;
	ASSERT_DAT_EQ(dat_lmr_create(p.ia, DAT_MEM_TYPE_SHARED_VIRTUAL, rd, page,
				     p.s.pz, DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA,
				     &lmr, NULL, NULL, NULL, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	rd.for_shared_memory.virtual_address = a;
	ASSERT_DAT_EQ(dat_lmr_create(p.ia, DAT_MEM_TYPE_SHARED_VIRTUAL, rd, 0,
				     p.s.pz, DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA,
				     &lmr, NULL, NULL, NULL, NULL),
		      ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE));
	rd.for_shared_memory.virtual_address = priv;
	ASSERT_DAT_EQ(dat_lmr_create(p.ia, DAT_MEM_TYPE_SHARED_VIRTUAL, rd, page,
				     p.s.pz, DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA,
				     &lmr, NULL, NULL, NULL, NULL),
		      ERR(DAT_INVALID_STATE, 0));
	munmap(a, 4 * page);
	munmap(b, 4 * page);
	munmap(priv, page);
	close(fd);
	pair_down(&p);
	return 0;
}

/*
 * dat_lmr_sync_rdma_read / _write: nothing to do in software (the
 * provider attribute lmr_sync_req is false), but every argument is
 * checked: the IA, the segments (each inside an LMR of the IA; empty
 * ones are don't-care).
 */
TEST_IMPL(provider_mem2_lmr_sync)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	struct sdt_node n;
	DAT_LMR_TRIPLET t[3];
	int k;

	sdt_node_init(&n, ia, NULL, 4096);
	t[0] = sdt_iov(&n, 0, 4096);
	t[1] = sdt_iov(&n, 4095, 1);
	t[2] = sdt_iov(&n, 0, 0);
	t[2].lmr_context ^= 0x77;	/* empty: not looked at */
	for (k = 0; k < 2; k++) {
		DAT_RETURN (*sync)(DAT_IA_HANDLE, const DAT_LMR_TRIPLET *,
				   DAT_VLEN) =
			k ? dat_lmr_sync_rdma_write : dat_lmr_sync_rdma_read;
		DAT_LMR_TRIPLET bad[1];

		ASSERT_OK(sync(ia, t, 3));
		ASSERT_OK(sync(ia, NULL, 0));
		ASSERT_DAT_EQ(sync(n.pz, t, 3),
			      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
		ASSERT_DAT_EQ(sync(ia, NULL, 1),
			      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
		bad[0] = sdt_iov(&n, 4095, 2);
		ASSERT_DAT_EQ(sync(ia, bad, 1),
			      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
		bad[0] = t[0];
		bad[0].lmr_context = n.rctx;	/* not an lmr_context */
		ASSERT_DAT_EQ(sync(ia, bad, 1),
			      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	}
	sdt_node_fini(&n);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}
