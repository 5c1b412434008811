/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DTO path over loopback: dat_ep_post_send, _recv, _rdma_write,
 * _rdma_read, their argument checks, completions, errors and flushes.
 * Each test names the seed rules (SEED-RULES.md) it checks.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "provider-conn.h"
#include "provider-util.h"
#include "test.h"

#define BUF (1 << 20)

/* Two connected nodes on one IA. */
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

/* SEND-1, SEND-6, RECV-1, RECV-2, COMMON-2, COMMON-3 */
TEST_IMPL(provider_dto_send_recv_segments)
{
	struct pair p;
	DAT_LMR_TRIPLET iov[3];
	DAT_DTO_COMPLETION_EVENT_DATA d;

	pair_up(&p, NULL);
	/* Receive: three segments, 100 + 100 + 1000 bytes, out of order. */
	iov[0] = sdt_iov(&p.s, 5000, 100);
	iov[1] = sdt_iov(&p.s, 1000, 100);
	iov[2] = sdt_iov(&p.s, 20000, 1000);
	memset(p.s.buf, 0, BUF);
	ASSERT_OK(dat_ep_post_recv(p.s.ep, 3, iov, ck(0xfeed), DAT_COMPLETION_DEFAULT_FLAG));
	/* COMMON-3: the iov array may be reused at once. */
	memset(iov, 0xff, sizeof(iov));
	/* Send: two segments, 150 + 200 bytes. */
	fill(p.c.buf, 4096, 3);
	iov[0] = sdt_iov(&p.c, 0, 150);
	iov[1] = sdt_iov(&p.c, 2000, 200);
	ASSERT_OK(dat_ep_post_send(p.c.ep, 2, iov, ck(0xbeef), DAT_COMPLETION_DEFAULT_FLAG));
	memset(iov, 0xff, sizeof(iov));
	d = sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 0xbeef);
	ASSERT_EQ(d.transfered_length, 350);
	ASSERT_PTR_EQ(d.ep_handle, p.c.ep);
	d = sdt_expect_dto(p.s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 0xfeed);
	ASSERT_EQ(d.transfered_length, 350);
	/* RECV-2: first two segments full, the third partly. */
	ASSERT_MEM_EQ(p.s.buf + 5000, p.c.buf, 100);
	ASSERT_MEM_EQ(p.s.buf + 1000, p.c.buf + 100, 50);
	ASSERT_MEM_EQ(p.s.buf + 1050, p.c.buf + 2000, 50);
	ASSERT_MEM_EQ(p.s.buf + 20000, p.c.buf + 2050, 150);
	ASSERT_EQ(p.s.buf[20150], 0);
	sdt_disconnect(&p.c, &p.s);
	pair_down(&p);
	return 0;
}

/* COMMON-1: zero segments, NULL iov: a zero-length message. */
TEST_IMPL(provider_dto_zero_length)
{
	struct pair p;
	DAT_DTO_COMPLETION_EVENT_DATA d;

	pair_up(&p, NULL);
	ASSERT_OK(dat_ep_post_recv(p.s.ep, 0, NULL, ck(1), DAT_COMPLETION_DEFAULT_FLAG));
	ASSERT_OK(dat_ep_post_send(p.c.ep, 0, NULL, ck(2), DAT_COMPLETION_DEFAULT_FLAG));
	d = sdt_expect_dto(p.s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 1);
	ASSERT_EQ(d.transfered_length, 0);
	sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 2);
	/* A zero-length write and read too. */
	{
		DAT_RMR_TRIPLET r = sdt_rmr(&p.s, 0, 0);

		ASSERT_OK(dat_ep_post_rdma_write(p.c.ep, 0, NULL, ck(3), &r, 0));
		ASSERT_OK(dat_ep_post_rdma_read(p.c.ep, 0, NULL, ck(4), &r, 0));
		sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_WRITE, 3);
		sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_READ, 4);
	}
	sdt_disconnect(&p.c, &p.s);
	pair_down(&p);
	return 0;
}

/* WRITE-1, WRITE-2 (suppress), SEND-2 (suppress), in-order completion */
TEST_IMPL(provider_dto_rdma_write_read)
{
	struct pair p;
	DAT_LMR_TRIPLET iov[2];
	DAT_RMR_TRIPLET r;
	DAT_DTO_COMPLETION_EVENT_DATA d;

	pair_up(&p, NULL);
	fill(p.c.buf, BUF, 11);
	memset(p.s.buf, 0, BUF);
	/* A 512 KiB write of two segments into the peer at offset 4096. */
	iov[0] = sdt_iov(&p.c, 0, 200000);
	iov[1] = sdt_iov(&p.c, 300000, 324288);
	r = sdt_rmr(&p.s, 4096, 524288);
	ASSERT_OK(dat_ep_post_rdma_write(p.c.ep, 2, iov, ck(10), &r,
					 DAT_COMPLETION_SUPPRESS_FLAG));
	ASSERT_OK(dat_ep_post_rdma_write(p.c.ep, 2, iov, ck(11), &r,
					 DAT_COMPLETION_DEFAULT_FLAG));
	/* SEND-2: the suppressed one is not reported. */
	d = sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_WRITE, 11);
	ASSERT_EQ(d.transfered_length, 524288);
	ASSERT_MEM_EQ(p.s.buf + 4096, p.c.buf, 200000);
	ASSERT_MEM_EQ(p.s.buf + 4096 + 200000, p.c.buf + 300000, 324288);
	ASSERT_EQ(p.s.buf[4095], 0);
	ASSERT_EQ(p.s.buf[4096 + 524288], 0);
	/* Read it back into another place of the client's buffer. */
	memset(p.c.buf + 600000, 0, 400000);
	iov[0] = sdt_iov(&p.c, 600000, 100000);
	iov[1] = sdt_iov(&p.c, 700000, 100000);
	r = sdt_rmr(&p.s, 4096, 200000);
	ASSERT_OK(dat_ep_post_rdma_read(p.c.ep, 2, iov, ck(12), &r, 0));
	/* BARRIER_FENCE: the send waits for the read (SEND-2). */
	ASSERT_OK(sdt_recv(&p.s, 0, 16, 13));
	ASSERT_OK(sdt_send(&p.c, 0, 16, 14, DAT_COMPLETION_BARRIER_FENCE_FLAG));
	d = sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_READ, 12);
	ASSERT_EQ(d.transfered_length, 200000);
	sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 14);
	sdt_expect_dto(p.s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 13);
	ASSERT_MEM_EQ(p.c.buf + 600000, p.c.buf, 200000);
	sdt_disconnect(&p.c, &p.s);
	pair_down(&p);
	return 0;
}

/* COMMON-5..8, SEND-3, RECV-4, WRITE-3, WRITE-5 */
TEST_IMPL(provider_dto_post_errors)
{
	struct pair p;
	DAT_LMR_TRIPLET iov[2];
	DAT_RMR_TRIPLET r;
	DAT_PZ_HANDLE pz2;
	DAT_LMR_HANDLE lmr2, lmr3;
	DAT_LMR_CONTEXT l2, l3;
	DAT_RMR_CONTEXT r2, r3;
	DAT_REGION_DESCRIPTION rd;
	DAT_VLEN rl;
	DAT_VADDR ra;
	char *other = malloc(4096);
	int i;

	pair_up(&p, NULL);
	/* COMMON-5: a segment beyond its LMR. */
	iov[0] = sdt_iov(&p.c, BUF - 10, 20);
	ASSERT_EQ(DAT_GET_TYPE(dat_ep_post_send(p.c.ep, 1, iov, ck(1), 0)),
		  DAT_INVALID_PARAMETER);
	/* COMMON-7: an unknown lmr_context. */
	iov[0] = sdt_iov(&p.c, 0, 20);
	iov[0].lmr_context ^= 0x5a5a5a;
	ASSERT_EQ(DAT_GET_TYPE(dat_ep_post_send(p.c.ep, 1, iov, ck(1), 0)),
		  DAT_PRIVILEGES_VIOLATION);
	/* COMMON-6: an LMR of another PZ. */
	ASSERT_OK(dat_pz_create(p.ia, &pz2));
	rd.for_va = other;
	ASSERT_OK(dat_lmr_create(p.ia, DAT_MEM_TYPE_VIRTUAL, rd, 4096, pz2,
				 DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &lmr2,
				 &l2, &r2, &rl, &ra));
	iov[0].virtual_address = (DAT_VADDR)(uintptr_t)other;
	iov[0].segment_length = 16;
	iov[0].lmr_context = l2;
	ASSERT_EQ(DAT_GET_TYPE(dat_ep_post_send(p.c.ep, 1, iov, ck(1), 0)),
		  DAT_PROTECTION_VIOLATION);
	ASSERT_EQ(DAT_GET_TYPE(dat_ep_post_recv(p.c.ep, 1, iov, ck(1), 0)),
		  DAT_PROTECTION_VIOLATION);
	/* COMMON-7: receiving needs local write. */
	ASSERT_OK(dat_lmr_create(p.ia, DAT_MEM_TYPE_VIRTUAL, rd, 4096, p.c.pz,
				 DAT_MEM_PRIV_REMOTE_READ_FLAG, DAT_VA_TYPE_VA,
				 &lmr3, &l3, &r3, &rl, &ra));
	iov[0].lmr_context = l3;
	ASSERT_EQ(DAT_GET_TYPE(dat_ep_post_recv(p.c.ep, 1, iov, ck(1), 0)),
		  DAT_PRIVILEGES_VIOLATION);
	ASSERT_EQ(DAT_GET_TYPE(dat_ep_post_send(p.c.ep, 1, iov, ck(1), 0)),
		  DAT_PRIVILEGES_VIOLATION);
	/* COMMON-8: bad handle. */
	ASSERT_EQ(DAT_GET_TYPE(dat_ep_post_send(p.c.pz, 0, NULL, ck(1), 0)),
		  DAT_INVALID_HANDLE);
	/* SEND-3, RECV-4, WRITE-3: UNSIGNALLED without the EP allowing it. */
	ASSERT_DAT_EQ(dat_ep_post_send(p.c.ep, 0, NULL, ck(1),
				       DAT_COMPLETION_UNSIGNALLED_FLAG),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	ASSERT_DAT_EQ(dat_ep_post_recv(p.c.ep, 0, NULL, ck(1),
				       DAT_COMPLETION_UNSIGNALLED_FLAG),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	r = sdt_rmr(&p.s, 0, 64);
	ASSERT_EQ(DAT_GET_TYPE(dat_ep_post_rdma_write(p.c.ep, 0, NULL, ck(1), &r,
						      DAT_COMPLETION_UNSIGNALLED_FLAG)),
		  DAT_INVALID_PARAMETER);
	/* WRITE-5: remote buffer smaller than the local data. */
	iov[0] = sdt_iov(&p.c, 0, 128);
	ASSERT_EQ(DAT_GET_TYPE(dat_ep_post_rdma_write(p.c.ep, 1, iov, ck(1), &r, 0)),
		  DAT_LENGTH_ERROR);
	/* COMMON-8: a full request queue (256 deep by default). */
	for (i = 0; i < 100000; i++) {
		DAT_RETURN ret = dat_ep_post_rdma_write(p.c.ep, 0, NULL, ck(1000 + i),
							&r, DAT_COMPLETION_SUPPRESS_FLAG);
		if (ret != DAT_SUCCESS) {
			ASSERT_EQ(DAT_GET_TYPE(ret), DAT_INSUFFICIENT_RESOURCES);
			break;
		}
	}
	ASSERT_LT(i, 100000);
	/* Nothing failed synchronously produced a completion (habit 4). */
	sdt_disconnect(&p.c, &p.s);
	ASSERT_OK(dat_lmr_free(lmr2));
	ASSERT_OK(dat_lmr_free(lmr3));
	ASSERT_OK(dat_pz_free(pz2));
	free(other);
	pair_down(&p);
	return 0;
}

/* RECV-5: a message longer than the receive; the sender learns it. */
TEST_IMPL(provider_dto_recv_too_small)
{
	struct pair p;

	pair_up(&p, NULL);
	ASSERT_OK(sdt_recv(&p.s, 0, 100, 1));
	ASSERT_OK(sdt_recv(&p.s, 100, 100, 2));
	ASSERT_OK(sdt_send(&p.c, 0, 101, 3, 0));
	ASSERT_OK(sdt_send(&p.c, 0, 10, 4, 0));
	sdt_expect_dto(p.s.recv_evd, DAT_DTO_LENGTH_ERROR, DAT_DTO_RECEIVE, 1);
	sdt_expect_dto(p.s.recv_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_RECEIVE, 2);
	sdt_expect_conn(p.s.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	sdt_expect_dto(p.c.req_evd, DAT_DTO_ERR_REMOTE_RESPONDER, DAT_DTO_SEND, 3);
	sdt_expect_dto(p.c.req_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_SEND, 4);
	sdt_expect_conn(p.c.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	pair_down(&p);
	return 0;
}

/* WRITE-6: remote access refused; remote memory untouched. */
TEST_IMPL(provider_dto_write_remote_errors)
{
	static const struct {
		int what;	/* 0 bad key, 1 beyond, 2 no privilege, 3 read */
	} cases[] = { { 0 }, { 1 }, { 2 }, { 3 } };
	size_t k;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct pair p;
		DAT_LMR_TRIPLET iov = { 0, 0, 0 };
		DAT_RMR_TRIPLET r;
		DAT_LMR_HANDLE ro = DAT_HANDLE_NULL;
		DAT_LMR_CONTEXT lc;
		DAT_RMR_CONTEXT rc;
		DAT_REGION_DESCRIPTION rd;
		DAT_VLEN rl;
		DAT_VADDR ra;

		pair_up(&p, NULL);
		memset(p.s.buf, 0, BUF);
		fill(p.c.buf, 4096, 5);
		iov = sdt_iov(&p.c, 0, 4096);
		r = sdt_rmr(&p.s, 0, 4096);
		if (cases[k].what == 0)
			r.rmr_context ^= 0x77;
		if (cases[k].what == 1)
			r.virtual_address += BUF - 100;
		if (cases[k].what == 2) {
			/* The server's buffer again, remote read only. */
			rd.for_va = p.s.buf;
			ASSERT_OK(dat_lmr_create(p.ia, DAT_MEM_TYPE_VIRTUAL, rd, BUF,
						 p.s.pz, DAT_MEM_PRIV_REMOTE_READ_FLAG,
						 DAT_VA_TYPE_VA, &ro, &lc, &rc, &rl, &ra));
			r.rmr_context = rc;
		}
		ASSERT_OK(sdt_recv(&p.s, 0, 16, 9));
		if (cases[k].what == 3) {
			r.rmr_context ^= 0x77;
			ASSERT_OK(dat_ep_post_rdma_read(p.c.ep, 1, &iov, ck(7), &r, 0));
		} else {
			ASSERT_OK(dat_ep_post_rdma_write(p.c.ep, 1, &iov, ck(7), &r, 0));
		}
		ASSERT_OK(sdt_send(&p.c, 0, 16, 8, 0));
		sdt_expect_dto(p.c.req_evd, DAT_DTO_ERR_REMOTE_ACCESS,
			       cases[k].what == 3 ? DAT_DTO_RDMA_READ : DAT_DTO_RDMA_WRITE, 7);
		sdt_expect_dto(p.c.req_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_SEND, 8);
		sdt_expect_conn(p.c.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
		sdt_expect_conn(p.s.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
		sdt_expect_dto(p.s.recv_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_RECEIVE, 9);
		/* Not a byte of the server's memory was touched. */
		for (rl = 0; rl < BUF; rl++)
			if (p.s.buf[rl] != 0)
				TEST_FAIL("case %zu: byte %llu written", k,
					  (unsigned long long)rl);
		if (ro)
			ASSERT_OK(dat_lmr_free(ro));
		pair_down(&p);
	}
	return 0;
}

/* SEND-5, RECV-7, WRITE-4: posts on a DISCONNECTED EP are flushed. */
TEST_IMPL(provider_dto_flush)
{
	struct pair p;
	DAT_RMR_TRIPLET r;
	int i;

	pair_up(&p, NULL);
	/* Receives outstanding at disconnect are flushed, in order. */
	for (i = 0; i < 5; i++)
		ASSERT_OK(sdt_recv(&p.s, (size_t)i * 100, 100, (uint64_t)i));
	ASSERT_OK(sdt_send(&p.c, 0, 50, 100, 0));
	sdt_expect_dto(p.s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 0);
	sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 100);
	sdt_disconnect(&p.c, &p.s);
	for (i = 1; i < 5; i++)
		sdt_expect_dto(p.s.recv_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_RECEIVE,
			       (uint64_t)i);
	/* Now DISCONNECTED: each post is flushed at once. */
	ASSERT_OK(sdt_send(&p.c, 0, 50, 200, 0));
	sdt_expect_dto(p.c.req_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_SEND, 200);
	ASSERT_OK(sdt_recv(&p.c, 0, 50, 201));
	sdt_expect_dto(p.c.recv_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_RECEIVE, 201);
	r = sdt_rmr(&p.s, 0, 50);
	ASSERT_OK(dat_ep_post_rdma_write(p.c.ep, 0, NULL, ck(202), &r, 0));
	sdt_expect_dto(p.c.req_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_RDMA_WRITE, 202);
	/* Errors are reported even when suppressed (SEND-2). */
	ASSERT_OK(sdt_send(&p.c, 0, 50, 203, DAT_COMPLETION_SUPPRESS_FLAG));
	sdt_expect_dto(p.c.req_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_SEND, 203);
	sdt_expect_none(p.c.req_evd, 20);
	pair_down(&p);
	return 0;
}

/* Requests queued at an abrupt disconnect are flushed in post order. */
TEST_IMPL(provider_dto_flush_abrupt_in_order)
{
	struct pair p;
	int i;

	pair_up(&p, NULL);
	/* No receives at the server: the sends wait (RNR), then flush. */
	for (i = 0; i < 20; i++)
		ASSERT_OK(sdt_send(&p.c, 0, 1000, (uint64_t)i, 0));
	sdt_expect_none(p.c.req_evd, 50);
	ASSERT_OK(dat_ep_disconnect(p.c.ep, DAT_CLOSE_ABRUPT_FLAG));
	for (i = 0; i < 20; i++)
		sdt_expect_dto(p.c.req_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_SEND,
			       (uint64_t)i);
	sdt_expect_conn(p.c.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	sdt_expect_conn(p.s.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	pair_down(&p);
	return 0;
}

/* RNR: sends wait for receives, indefinitely, and nothing is lost. */
TEST_IMPL(provider_dto_rnr_then_recv)
{
	struct pair p;
	int i;

	pair_up(&p, NULL);
	for (i = 0; i < 50; i++) {
		memset(p.c.buf + i * 1000, i, 1000);
		ASSERT_OK(sdt_send(&p.c, (size_t)i * 1000, 1000, (uint64_t)i, 0));
	}
	sdt_expect_none(p.c.req_evd, 100);
	/* Receives posted late take the messages in the order sent. */
	for (i = 0; i < 50; i++)
		ASSERT_OK(sdt_recv(&p.s, 500000 + (size_t)i * 1000, 1000, (uint64_t)i));
	for (i = 0; i < 50; i++) {
		sdt_expect_dto(p.s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, (uint64_t)i);
		ASSERT_EQ(p.s.buf[500000 + i * 1000 + 999], (char)i);
	}
	for (i = 0; i < 50; i++)
		sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, (uint64_t)i);
	sdt_disconnect(&p.c, &p.s);
	pair_down(&p);
	return 0;
}

/* Posting from several threads at once; large messages fill TCP. */
struct blaster {
	struct pair *p;
	int id, n;
};

static void *blast(void *arg)
{
	struct blaster *b = arg;
	int i;

	for (i = 0; i < b->n; i++) {
		DAT_RMR_TRIPLET r = sdt_rmr(&b->p->s, (size_t)b->id * 200000, 200000);
		DAT_LMR_TRIPLET l = sdt_iov(&b->p->c, (size_t)b->id * 200000, 200000);
		DAT_RETURN ret;

		do {
			ret = dat_ep_post_rdma_write(b->p->c.ep, 1, &l, ck(1), &r,
						     DAT_COMPLETION_SUPPRESS_FLAG);
		} while (DAT_GET_TYPE(ret) == DAT_INSUFFICIENT_RESOURCES);
		ASSERT_OK(ret);
	}
	return NULL;
}

TEST_IMPL(provider_dto_threads)
{
	struct blaster b[4];
	pthread_t th[4];
	struct pair p;
	DAT_RETURN r;
	int i;

	pair_up(&p, NULL);
	fill(p.c.buf, BUF, 1);
	for (i = 0; i < 4; i++) {
		b[i].p = &p;
		b[i].id = i;
		b[i].n = 200;
		ASSERT_OK(pthread_create(&th[i], NULL, blast, &b[i]));
	}
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	/* A last signalled write: its completion implies all before it. */
	ASSERT_OK(sdt_recv(&p.s, 900000, 16, 5));
	/* The queue may still be full of the blasters' writes. */
	while ((r = sdt_send(&p.c, 0, 16, 6, 0)) != DAT_SUCCESS)
		ASSERT_EQ(DAT_GET_TYPE(r), DAT_INSUFFICIENT_RESOURCES);
	sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 6);
	sdt_expect_dto(p.s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 5);
	ASSERT_MEM_EQ(p.s.buf, p.c.buf, 800000);
	sdt_disconnect(&p.c, &p.s);
	pair_down(&p);
	return 0;
}

/* UNSIGNALLED when the EP allows it (SEND-3, RECV-4). */
TEST_IMPL(provider_dto_unsignalled_allowed)
{
	DAT_EP_ATTR a;
	struct pair p;

	memset(&a, 0, sizeof(a));
	a.service_type = DAT_SERVICE_TYPE_RC;
	a.max_recv_dtos = a.max_request_dtos = 8;
	a.max_recv_iov = a.max_request_iov = 2;
	a.request_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
	a.recv_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
	pair_up(&p, &a);
	ASSERT_OK(dat_ep_post_recv(p.s.ep, 0, NULL, ck(1), DAT_COMPLETION_UNSIGNALLED_FLAG));
	ASSERT_OK(dat_ep_post_send(p.c.ep, 0, NULL, ck(2), DAT_COMPLETION_UNSIGNALLED_FLAG));
	/* Signalled ones behind them wake the waiters; all complete, in order. */
	ASSERT_OK(dat_ep_post_recv(p.s.ep, 0, NULL, ck(3), DAT_COMPLETION_DEFAULT_FLAG));
	ASSERT_OK(dat_ep_post_send(p.c.ep, 0, NULL, ck(4), DAT_COMPLETION_DEFAULT_FLAG));
	sdt_expect_dto(p.s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 1);
	sdt_expect_dto(p.s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 3);
	sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 2);
	sdt_expect_dto(p.c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 4);
	sdt_disconnect(&p.c, &p.s);
	pair_down(&p);
	return 0;
}

/*
 * Refused posts say why under SOFTDAPL_DEBUG (in a helper: the variable
 * is read when the provider loads), naming the call, the EP, the segment,
 * the LMR and what is wrong with it, and the DAT_RETURN (refuse.h); and a
 * context that names no LMR is told apart from one whose LMR lacks the
 * privilege by the subtype too (COMMON-7: both are
 * DAT_PRIVILEGES_VIOLATION). provider_refusals_say_why covers the other
 * refusals of every object.
 */
HELPER_IMPL(refusal_probe)
{
	DAT_REGION_DESCRIPTION rd;
	DAT_LMR_TRIPLET iov;
	DAT_LMR_HANDLE ro;
	DAT_LMR_CONTEXT roctx;
	DAT_RMR_CONTEXT rctx;
	DAT_VLEN rlen;
	DAT_VADDR raddr;
	struct sdt_node c, s;
	DAT_IA_HANDLE ia;

	ia = sdt_open_ia(NULL, NULL);
	sdt_node_init(&c, ia, NULL, 4096);
	sdt_node_init(&s, ia, NULL, 4096);
	sdt_connect(&c, &s);
	rd.for_va = c.buf;
	ASSERT_OK(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd, 4096, c.pz,
				 DAT_MEM_PRIV_LOCAL_READ_FLAG, DAT_VA_TYPE_VA,
				 &ro, &roctx, &rctx, &rlen, &raddr));

	iov = sdt_iov(&c, 0, 16);
	iov.lmr_context ^= 0x333;
	printf("unknown: 0x%x\n", (unsigned)dat_ep_post_send(c.ep, 1, &iov,
					(DAT_DTO_COOKIE){ .as_64 = 1 }, 0));
	iov = sdt_iov(&c, 0, 16);
	iov.lmr_context = roctx;
	printf("read-only: 0x%x\n", (unsigned)dat_ep_post_recv(c.ep, 1, &iov,
					(DAT_DTO_COOKIE){ .as_64 = 2 }, 0));
	iov = sdt_iov(&c, 4000, 200);
	printf("outside: 0x%x\n", (unsigned)dat_ep_post_send(c.ep, 1, &iov,
					(DAT_DTO_COOKIE){ .as_64 = 3 }, 0));
	printf("count: 0x%x\n", (unsigned)dat_ep_post_send(c.ep, 1000, &iov,
					(DAT_DTO_COOKIE){ .as_64 = 4 }, 0));
	fflush(stdout);
	ASSERT_OK(dat_lmr_free(ro));
	sdt_disconnect(&c, &s);
	sdt_node_fini(&c);
	sdt_node_fini(&s);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	return 0;
}

TEST_IMPL(provider_dto_refusal_says_why)
{
	const char *argv[] = { test_self_exe(), "--helper", "refusal_probe",
			       NULL };
	char want[256], *line;
	test_helper_t *h;
	const char *out;
	int status;

	test_setenv("SOFTDAPL_DEBUG", "1");
	h = test_spawn_cmd(argv);
	test_setenv("SOFTDAPL_DEBUG", NULL);
	ASSERT_OK(test_helper_wait(h, 30, &status));
	out = test_helper_output(h);
	printf("%s", out);
	ASSERT_EXIT_OK(status);
	/* COMMON-7 both, told apart by the subtype; COMMON-5; COMMON-1. */
	snprintf(want, sizeof(want), "unknown: 0x%x\nread-only: 0x%x\n"
		 "outside: 0x%x\ncount: 0x%x\n",
		 (unsigned)ERR(DAT_PRIVILEGES_VIOLATION, 0),
		 (unsigned)ERR(DAT_PRIVILEGES_VIOLATION, DAT_PRIVILEGES_WRITE),
		 (unsigned)ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
		 (unsigned)ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	for (line = strtok(want, "\n"); line != NULL; line = strtok(NULL, "\n"))
		ASSERT_STR_CONTAINS(out, line);
	ASSERT_STR_CONTAINS(out, "names no LMR of this IA (never registered, "
				 "or freed)");
	ASSERT_STR_CONTAINS(out, "was registered without local write access");
	ASSERT_STR_CONTAINS(out, "[0x");
	ASSERT_STR_CONTAINS(out, "is not inside lmr");
	ASSERT_STR_CONTAINS(out, "num_segments 1000: not from 0 to");
	/* refuse.h's line: the call, the EP, the reason, the names. */
	ASSERT_STR_CONTAINS(out, "softdapl: dat_ep_post_send(ep1): refused: "
				 "local_iov[0]: lmr_context 0x");
	ASSERT_STR_CONTAINS(out, "dat_ep_post_recv(ep1): refused: "
				 "local_iov[0]: lmr");
	ASSERT_STR_CONTAINS(out, "without local write access "
				 "(DAT_PRIVILEGES_VIOLATION "
				 "DAT_PRIVILEGES_WRITE)");
	test_helper_free(h);
	return 0;
}
