/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared receive queues over loopback: several EPs drawing receives from
 * one SRQ. Each test names the seed rules (SEED-RULES.md) it checks.
 */
#include <stdlib.h>
#include <string.h>

#include "provider-conn.h"
#include "provider-util.h"
#include "test.h"

#define BUF (1 << 16)
#define ERR(type, sub) ((DAT_RETURN)(DAT_CLASS_ERROR | (type) | (sub)))

struct srq_setup {
	DAT_IA_HANDLE	ia;
	struct sdt_node	c[2], s[2];	/* s[i].ep use the SRQ */
	DAT_SRQ_HANDLE	srq;
};

/* Replaces @n's EP by one created with @srq (same PZ and EVDs). */
static void use_srq(struct sdt_node *n, DAT_SRQ_HANDLE srq)
{
	ASSERT_OK(dat_ep_free(n->ep));
	ASSERT_OK(dat_ep_create_with_srq(n->ia, n->pz, n->recv_evd, n->req_evd,
					 n->conn_evd, srq, NULL, &n->ep));
}

static DAT_DTO_COOKIE ck(uint64_t v)
{
	DAT_DTO_COOKIE c;

	c.as_64 = v;
	return c;
}

static void setup(struct srq_setup *t, DAT_COUNT depth)
{
	DAT_SRQ_ATTR a = { depth, 2, 0 };
	int i;

	t->ia = sdt_open_ia(NULL, NULL);
	for (i = 0; i < 2; i++) {
		sdt_node_init(&t->c[i], t->ia, NULL, BUF);
		sdt_node_init(&t->s[i], t->ia, NULL, BUF);
	}
	/* One PZ for the SRQ and both server EPs: s[0]'s. */
	ASSERT_OK(dat_srq_create(t->ia, t->s[0].pz, &a, &t->srq));
	for (i = 0; i < 2; i++) {
		if (i == 1) {
			/* s[1] joins s[0]'s PZ, buffer and receive EVD. */
			ASSERT_OK(dat_ep_free(t->s[1].ep));
			ASSERT_OK(dat_ep_create_with_srq(t->ia, t->s[0].pz,
							 t->s[0].recv_evd,
							 t->s[1].req_evd,
							 t->s[1].conn_evd, t->srq,
							 NULL, &t->s[1].ep));
		} else {
			use_srq(&t->s[0], t->srq);
		}
	}
	for (i = 0; i < 2; i++)
		sdt_connect(&t->c[i], &t->s[i]);
}

static void teardown(struct srq_setup *t)
{
	int i;

	for (i = 0; i < 2; i++) {
		ASSERT_OK(dat_ep_free(t->s[i].ep));
		t->s[i].ep = DAT_HANDLE_NULL;
	}
	ASSERT_OK(dat_srq_free(t->srq));
	for (i = 0; i < 2; i++) {
		sdt_node_fini(&t->c[i]);
		sdt_node_fini(&t->s[i]);
	}
	ASSERT_OK(dat_ia_close(t->ia, DAT_CLOSE_GRACEFUL_FLAG));
}

static DAT_RETURN srq_post(struct srq_setup *t, size_t off, size_t len, uint64_t c)
{
	DAT_LMR_TRIPLET iov = sdt_iov(&t->s[0], off, len);

	return dat_srq_post_recv(t->srq, 1, &iov, ck(c));
}

/* SRQ-1, SRQ-2, SRQ-3, SRQ-4: buffers go to whichever EP receives. */
TEST_IMPL(provider_srq_shared)
{
	struct srq_setup t;
	DAT_SRQ_PARAM p;
	int i, seen[2] = { 0, 0 };

	setup(&t, 16);
	ASSERT_OK(dat_srq_query(t.srq, DAT_SRQ_FIELD_ALL, &p));
	ASSERT_EQ(p.max_recv_dtos, 16);
	ASSERT_EQ(p.available_dto_count, 0);
	for (i = 0; i < 8; i++)
		ASSERT_OK(srq_post(&t, (size_t)i * 1000, 1000, (uint64_t)i));
	ASSERT_OK(dat_srq_query(t.srq, DAT_SRQ_FIELD_ALL, &p));
	ASSERT_EQ(p.available_dto_count, 8);
	/* Two sends from each client, in turn. */
	for (i = 0; i < 4; i++) {
		struct sdt_node *c = &t.c[i % 2];

		memset(c->buf, 'a' + i, 100);
		ASSERT_OK(sdt_send(c, 0, 100, 100 + (uint64_t)i, 0));
		sdt_expect_dto(c->req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 100 + (uint64_t)i);
	}
	/* The buffers were taken in posting order (SRQ-4 within an EP). */
	for (i = 0; i < 4; i++) {
		DAT_EVENT ev = sdt_wait(t.s[0].recv_evd, 10000);
		DAT_DTO_COMPLETION_EVENT_DATA *d = &ev.event_data.dto_completion_event_data;

		ASSERT_EQ(d->status, DAT_DTO_SUCCESS);
		ASSERT_EQ(d->user_cookie.as_64, (uint64_t)i);
		ASSERT_EQ(d->transfered_length, 100);
		ASSERT_EQ(t.s[0].buf[i * 1000], 'a' + i);
		seen[d->ep_handle == t.s[0].ep ? 0 : 1]++;
	}
	ASSERT_EQ(seen[0], 2);
	ASSERT_EQ(seen[1], 2);
	ASSERT_OK(dat_srq_query(t.srq, DAT_SRQ_FIELD_ALL, &p));
	ASSERT_EQ(p.available_dto_count, 4);
	ASSERT_EQ(p.outstanding_dto_count, 4);
	for (i = 0; i < 2; i++)
		sdt_disconnect(&t.c[i], &t.s[i]);
	teardown(&t);
	return 0;
}

/* SRQ-5, SRQ-8, COMMON-1, COMMON-8 */
TEST_IMPL(provider_srq_post_checks)
{
	struct srq_setup t;
	DAT_LMR_TRIPLET iov;
	int i;

	setup(&t, 4);
	/* COMMON-1: zero segments. */
	ASSERT_OK(dat_srq_post_recv(t.srq, 0, NULL, ck(1)));
	/* SRQ-8: outside the LMR; another PZ; no local write. */
	iov = sdt_iov(&t.s[0], BUF - 10, 20);
	ASSERT_EQ(DAT_GET_TYPE(dat_srq_post_recv(t.srq, 1, &iov, ck(2))),
		  DAT_INVALID_PARAMETER);
	iov = sdt_iov(&t.c[0], 0, 20);
	ASSERT_EQ(DAT_GET_TYPE(dat_srq_post_recv(t.srq, 1, &iov, ck(3))),
		  DAT_PROTECTION_VIOLATION);
	iov = sdt_iov(&t.s[0], 0, 20);
	iov.lmr_context ^= 0x333;
	ASSERT_EQ(DAT_GET_TYPE(dat_srq_post_recv(t.srq, 1, &iov, ck(4))),
		  DAT_PRIVILEGES_VIOLATION);
	ASSERT_EQ(DAT_GET_TYPE(dat_srq_post_recv(t.s[0].ep, 0, NULL, ck(5))),
		  DAT_INVALID_HANDLE);
	/* COMMON-8: full. */
	for (i = 0; i < 3; i++)
		ASSERT_OK(srq_post(&t, 0, 10, 6));
	ASSERT_EQ(DAT_GET_TYPE(srq_post(&t, 0, 10, 7)), DAT_INSUFFICIENT_RESOURCES);
	/* An EP of an SRQ takes no receives of its own. */
	ASSERT_NE(sdt_recv(&t.s[0], 0, 10, 8), DAT_SUCCESS);
	/* In use: not freed. */
	ASSERT_EQ(DAT_GET_TYPE(dat_srq_free(t.srq)), DAT_INVALID_STATE);
	for (i = 0; i < 2; i++)
		sdt_disconnect(&t.c[i], &t.s[i]);
	teardown(&t);
	return 0;
}

/*
 * SRQ-8, COMMON-1, COMMON-7 with two segments: the second one's LMR
 * context is unknown, so nothing is posted, whatever the first was; and
 * the segment count and local_iov are checked first.
 */
TEST_IMPL(provider_srq_post_bad_segment)
{
	struct srq_setup t;
	DAT_LMR_TRIPLET iov[3];
	DAT_SRQ_PARAM p;

	setup(&t, 4);
	iov[0] = sdt_iov(&t.s[0], 0, 20);
	iov[1] = sdt_iov(&t.s[0], 100, 20);
	iov[1].lmr_context ^= 0x333;
	ASSERT_DAT_EQ(dat_srq_post_recv(t.srq, 2, iov, ck(1)),
		      ERR(DAT_PRIVILEGES_VIOLATION, 0));
	iov[2] = iov[0];
	ASSERT_DAT_EQ(dat_srq_post_recv(t.srq, 3, iov, ck(2)),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_srq_post_recv(t.srq, 1, NULL, ck(3)),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_OK(dat_srq_query(t.srq, DAT_SRQ_FIELD_ALL, &p));
	ASSERT_EQ(p.available_dto_count, 0);
	/* The same two segments, both good, post one buffer. */
	iov[1] = sdt_iov(&t.s[0], 100, 20);
	ASSERT_OK(dat_srq_post_recv(t.srq, 2, iov, ck(4)));
	ASSERT_OK(dat_srq_query(t.srq, DAT_SRQ_FIELD_ALL, &p));
	ASSERT_EQ(p.available_dto_count, 1);
	sdt_disconnect(&t.c[0], &t.s[0]);
	sdt_disconnect(&t.c[1], &t.s[1]);
	teardown(&t);
	return 0;
}

/* SRQ-9 (as RECV-5), and RNR on an SRQ: a post wakes the waiting EP. */
TEST_IMPL(provider_srq_rnr_and_length)
{
	struct srq_setup t;

	setup(&t, 8);
	ASSERT_OK(sdt_send(&t.c[1], 0, 300, 1, 0));
	sdt_expect_none(t.c[1].req_evd, 50);
	ASSERT_OK(srq_post(&t, 0, 1000, 2));
	sdt_expect_dto(t.s[0].recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 2);
	sdt_expect_dto(t.c[1].req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 1);
	/* SRQ-9: too small a buffer. */
	ASSERT_OK(srq_post(&t, 0, 10, 3));
	ASSERT_OK(sdt_send(&t.c[0], 0, 300, 4, 0));
	sdt_expect_dto(t.s[0].recv_evd, DAT_DTO_LENGTH_ERROR, DAT_DTO_RECEIVE, 3);
	sdt_expect_dto(t.c[0].req_evd, DAT_DTO_ERR_REMOTE_RESPONDER, DAT_DTO_SEND, 4);
	sdt_expect_conn(t.c[0].conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	sdt_expect_conn(t.s[0].conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	/* SRQ-6, SRQ-7: the other connection goes on; buffers not taken stay. */
	ASSERT_OK(srq_post(&t, 2000, 1000, 5));
	ASSERT_OK(sdt_send(&t.c[1], 0, 300, 6, 0));
	sdt_expect_dto(t.s[0].recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 5);
	sdt_disconnect(&t.c[1], &t.s[1]);
	sdt_expect_dto(t.c[1].req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 6);
	sdt_expect_none(t.s[0].recv_evd, 20);
	teardown(&t);
	return 0;
}
