/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LMR and RMR contexts (issue 6): random, single use. What a peer names
 * in an RDMA request must be neither guessable nor accepted once it has
 * ended: ctx.c explains the scheme (a slot index in the top bits, above
 * SD_CTX_INDEX_SHIFT, and a keyed pseudo-random tag that a slot never
 * gives twice).
 *
 *   - contexts made by registrations and binds are distinct, never 0 and
 *     show no pattern (provider_ctx_random);
 *   - a freed LMR's rmr_context and an RMR's context once it was bound
 *     anew, unbound or freed are refused by the remote side (WRITE-6: the
 *     request completes DAT_DTO_ERR_REMOTE_ACCESS, the connection breaks,
 *     the memory is untouched), also once their slot serves a new LMR or
 *     RMR (provider_ctx_stale_refused);
 *   - every IA, process and run has its own contexts
 *     (provider_ctx_per_process);
 *   - a slot's tags run out only after 2^18 contexts, and an RMR that
 *     spent them moves on without a hitch (provider_ctx_tags_spent, on
 *     the memory objects linked into run-tests as test-provider-mem.c
 *     uses them), and the tags' PRF is SipHash-2-4 as published
 *     (provider_ctx_siphash).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../provider/entry.h"
#include "../provider/ia.h"
#include "../provider/mem.h"
#include "../provider/obj.h"
#include "../provider/util.h"
#include "provider-conn.h"
#include "provider-util.h"
#include "test.h"

#define BUF (1 << 16)

#define RW (DAT_MEM_PRIV_REMOTE_READ_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG)

/* Two connected EPs of one IA, client and server. */
struct pair {
	DAT_IA_HANDLE	ia;
	struct sdt_node	c, s;
};

static void pair_up(struct pair *p)
{
	p->ia = sdt_open_ia(NULL, NULL);
	sdt_node_init(&p->c, p->ia, NULL, BUF);
	sdt_node_init(&p->s, p->ia, NULL, BUF);
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

/* An RMR triplet of the server's buffer through context @ctx. */
static DAT_RMR_TRIPLET at(const struct pair *p, size_t off, size_t len,
			  DAT_RMR_CONTEXT ctx)
{
	DAT_RMR_TRIPLET t = sdt_rmr(&p->s, off, len);

	t.rmr_context = ctx;
	return t;
}

/* A new LMR over the server's whole buffer, all privileges. */
static DAT_LMR_HANDLE new_lmr(struct pair *p, DAT_LMR_CONTEXT *lc,
			      DAT_RMR_CONTEXT *rc)
{
	DAT_REGION_DESCRIPTION rd = { .for_va = p->s.buf };
	DAT_LMR_HANDLE lmr;

	ASSERT_OK(dat_lmr_create(p->ia, DAT_MEM_TYPE_VIRTUAL, rd, BUF, p->s.pz,
				 DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &lmr,
				 lc, rc, NULL, NULL));
	return lmr;
}

/*
 * Binds @rmr to [off, off + len) of the server's buffer through the
 * server's EP, remote read and write; waits for the completion and
 * returns the new context. @len 0 unbinds (and returns 0).
 */
static DAT_RMR_CONTEXT rebind(struct pair *p, DAT_RMR_HANDLE rmr, size_t off,
			      size_t len)
{
	DAT_LMR_TRIPLET t = sdt_iov(&p->s, off, len);
	DAT_RMR_CONTEXT ctx = 0;
	DAT_EVENT ev;

	ASSERT_OK(dat_rmr_bind(rmr, len ? p->s.lmr : DAT_HANDLE_NULL, &t,
			       len ? RW : 0, DAT_VA_TYPE_VA, p->s.ep, ck(9),
			       DAT_COMPLETION_DEFAULT_FLAG, &ctx));
	ev = sdt_wait(p->s.req_evd, 10000);
	ASSERT_EQ(ev.event_number, DAT_RMR_BIND_COMPLETION_EVENT);
	ASSERT_PTR_EQ(ev.event_data.rmr_completion_event_data.rmr_handle, rmr);
	ASSERT_EQ(ev.event_data.rmr_completion_event_data.status, DAT_DTO_SUCCESS);
	return len ? ctx : 0;
}

/* The client writes @len bytes of its buffer (a pattern) through @r. */
static void write_ok(struct pair *p, DAT_RMR_TRIPLET r)
{
	DAT_LMR_TRIPLET iov = sdt_iov(&p->c, 0, r.segment_length);
	size_t i;

	for (i = 0; i < r.segment_length; i++)
		p->c.buf[i] = (char)(i * 7 + 1);
	ASSERT_OK(dat_ep_post_rdma_write(p->c.ep, 1, &iov, ck(1), &r, 0));
	sdt_expect_dto(p->c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_WRITE, 1);
	ASSERT_MEM_EQ(p->s.buf + (r.virtual_address - (uintptr_t)p->s.buf),
		      p->c.buf, r.segment_length);
	memset(p->s.buf, 0, BUF);
}

/*
 * WRITE-6: an RDMA write (or read) by the client through @r is refused:
 * it completes DAT_DTO_ERR_REMOTE_ACCESS, the connection breaks on both
 * sides, and the server's buffer (zero before) is still all zero. Then
 * connects the pair again.
 */
static void expect_refused(struct pair *p, DAT_RMR_TRIPLET r, bool read)
{
	DAT_LMR_TRIPLET iov = sdt_iov(&p->c, 0, r.segment_length);
	size_t i;

	memset(p->c.buf, 0x5a, r.segment_length);
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
	reconnect(p);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* @n contexts: none 0, no two equal. */
static void expect_distinct(const uint32_t *ctx, size_t n)
{
	uint32_t *s = malloc(n * sizeof(*s));
	size_t i;

	ASSERT_NOT_NULL(s);
	memcpy(s, ctx, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_u32);
	ASSERT_NE(s[0], 0);
	for (i = 1; i < n; i++)
		if (s[i - 1] == s[i])
			TEST_FAIL("context 0x%08x given twice", s[i]);
	free(s);
}

static unsigned popcount32(uint32_t x)
{
	return (unsigned)__builtin_popcount(x);
}

/*
 * @n contexts, in the order they were made, show no pattern: the steps
 * between neighbours are (nearly) all different, and each of the low 16
 * bits (the tag's; the index above them is no secret) is set in about
 * half of them. Bounds are ~9 standard deviations wide for n >= 1000,
 * so a random source never fails them, while a counter, a constant
 * stride or a few fixed bits do.
 */
static void expect_no_pattern(const uint32_t *ctx, size_t n)
{
	uint32_t *step = malloc(n * sizeof(*step));
	size_t i, distinct = 1;
	unsigned bit;

	ASSERT_NOT_NULL(step);
	for (i = 1; i < n; i++)
		step[i - 1] = ctx[i] - ctx[i - 1];
	qsort(step, n - 1, sizeof(*step), cmp_u32);
	for (i = 1; i < n - 1; i++)
		distinct += step[i] != step[i - 1];
	if (distinct < (n - 1) * 9 / 10)
		TEST_FAIL("only %zu distinct steps between %zu contexts",
			  distinct, n);
	free(step);

	for (bit = 0; bit < 16; bit++) {
		size_t ones = 0;

		for (i = 0; i < n; i++)
			ones += (ctx[i] >> bit) & 1;
		if (ones < n * 35 / 100 || ones > n * 65 / 100)
			TEST_FAIL("bit %u set in %zu of %zu contexts", bit,
				  ones, n);
	}
}

/*
 * 1000 and more contexts, from LMRs kept alive (lmr and rmr contexts)
 * and from binds of two RMRs in turn, are distinct, nonzero and random
 * to look at: as a whole, and the successive contexts of one RMR.
 */
TEST_IMPL(provider_ctx_random)
{
	enum { LMRS = 400, BINDS = 300 };
	struct pair p;
	DAT_LMR_HANDLE *lmr = calloc(LMRS, sizeof(*lmr));
	uint32_t *all = malloc((2 * LMRS + BINDS) * sizeof(*all));
	uint32_t one[BINDS / 2];
	DAT_RMR_HANDLE rmr[2];
	size_t i, n = 0, same_low = 0;
	unsigned flips = 0;

	ASSERT_NOT_NULL(lmr);
	ASSERT_NOT_NULL(all);
	pair_up(&p);
	for (i = 0; i < LMRS; i++) {
		DAT_LMR_CONTEXT lc;
		DAT_RMR_CONTEXT rc;

		lmr[i] = new_lmr(&p, &lc, &rc);
		ASSERT_NE(lc, rc);
		all[n++] = lc;
		all[n++] = rc;
	}
	ASSERT_OK(dat_rmr_create(p.s.pz, &rmr[0]));
	ASSERT_OK(dat_rmr_create(p.s.pz, &rmr[1]));
	for (i = 0; i < BINDS; i++) {
		all[n] = rebind(&p, rmr[i % 2], 64 * i, 64);
		if (i % 2 == 0)
			one[i / 2] = all[n];
		n++;
	}
	expect_distinct(all, n);
	expect_no_pattern(all, n);
	/* The node's own LMRs: no bind or registration repeated theirs. */
	for (i = 0; i < n; i++) {
		ASSERT_NE(all[i], p.s.rctx);
		ASSERT_NE(all[i], p.c.rctx);
		ASSERT_NE(all[i], p.s.lctx);
	}

	/*
	 * One RMR's contexts, bind after bind: each differs from the one
	 * before in about half of its tag's bits (a counter flips one or
	 * two), and rarely in nothing of its low byte.
	 */
	for (i = 1; i < BINDS / 2; i++) {
		flips += popcount32((one[i] ^ one[i - 1]) & 0x3ffff);
		same_low += (one[i] & 0xff) == (one[i - 1] & 0xff);
	}
	ASSERT_GE(flips / (BINDS / 2 - 1), 6);
	ASSERT_LE(same_low, 8);

	ASSERT_OK(dat_rmr_free(rmr[0]));
	ASSERT_OK(dat_rmr_free(rmr[1]));
	for (i = 0; i < LMRS; i++)
		ASSERT_OK(dat_lmr_free(lmr[i]));
	free(lmr);
	free(all);
	pair_down(&p);
	return 0;
}

/*
 * Ended contexts are refused by the peer, before and after their slot of
 * the table is reused: a freed LMR's rmr_context; an RMR's context once
 * rebound, unbound, or freed (its slot then reused by an LMR and by an
 * RMR). Each refusal is WRITE-6's (expect_refused); live contexts of the
 * same slots work meanwhile.
 */
TEST_IMPL(provider_ctx_stale_refused)
{
	struct pair p;
	DAT_LMR_HANDLE x, y;
	DAT_LMR_CONTEXT xl, yl;
	DAT_RMR_CONTEXT xr, yr, c1, c2, c3;
	DAT_RMR_HANDLE rmr, rmr2;
	DAT_LMR_TRIPLET iov;
	int i;

	pair_up(&p);

	/* A freed LMR: its rmr_context worked, now it does not. */
	x = new_lmr(&p, &xl, &xr);
	write_ok(&p, at(&p, 100, 200, xr));
	ASSERT_OK(dat_lmr_free(x));
	expect_refused(&p, at(&p, 100, 200, xr), false);
	expect_refused(&p, at(&p, 100, 200, xr), true);
	/* Nor does its lmr_context name local memory any more (COMMON-7). */
	iov = sdt_iov(&p.s, 0, 16);
	iov.lmr_context = xl;
	ASSERT_DAT_EQ(dat_ep_post_send(p.s.ep, 1, &iov, ck(5), 0),
		      ERR(DAT_PRIVILEGES_VIOLATION, 0));

	/* A new LMR in the same slot: new contexts, the old ones dead. */
	for (i = 0; ; i++) {
		ASSERT_LT(i, 100000);
		y = new_lmr(&p, &yl, &yr);
		if (sd_ctx_index(yr) == sd_ctx_index(xr))
			break;
		ASSERT_OK(dat_lmr_free(y));
	}
	ASSERT_NE(yr, xr);
	ASSERT_NE(yl, xl);
	ASSERT_NE(yr, xl);
	ASSERT_NE(yl, xr);
	write_ok(&p, at(&p, 100, 200, yr));
	expect_refused(&p, at(&p, 100, 200, xr), false);
	expect_refused(&p, at(&p, 0, 16, xr), true);
	write_ok(&p, at(&p, 0, BUF, yr));
	ASSERT_OK(dat_lmr_free(y));

	/* An RMR: rebinding ends the old context, unbinding the new one. */
	ASSERT_OK(dat_rmr_create(p.s.pz, &rmr));
	c1 = rebind(&p, rmr, 4096, 4096);
	write_ok(&p, at(&p, 4096, 4096, c1));
	c2 = rebind(&p, rmr, 4096, 4096);		/* the same range again */
	ASSERT_NE(c2, c1);
	expect_refused(&p, at(&p, 4096, 16, c1), false);
	write_ok(&p, at(&p, 4096, 4096, c2));
	rebind(&p, rmr, 0, 0);
	expect_refused(&p, at(&p, 4096, 16, c2), false);
	expect_refused(&p, at(&p, 4096, 16, c1), true);

	/* Freed, its slot taken by an LMR: still refused. */
	ASSERT_OK(dat_rmr_free(rmr));
	for (i = 0; ; i++) {
		ASSERT_LT(i, 100000);
		y = new_lmr(&p, &yl, &yr);
		if (sd_ctx_index(yr) == sd_ctx_index(c1))
			break;
		ASSERT_OK(dat_lmr_free(y));
	}
	ASSERT_NE(yr, c1);
	ASSERT_NE(yr, c2);
	expect_refused(&p, at(&p, 4096, 16, c1), false);
	expect_refused(&p, at(&p, 4096, 16, c2), false);
	write_ok(&p, at(&p, 4096, 16, yr));
	ASSERT_OK(dat_lmr_free(y));

	/* ...then by a new RMR: its bind's context is new, the old dead. */
	for (i = 0; ; i++) {
		ASSERT_LT(i, 100000);
		ASSERT_OK(dat_rmr_create(p.s.pz, &rmr2));
		c3 = rebind(&p, rmr2, 4096, 4096);
		if (sd_ctx_index(c3) == sd_ctx_index(c1))
			break;
		ASSERT_OK(dat_rmr_free(rmr2));
	}
	ASSERT_NE(c3, c1);
	ASSERT_NE(c3, c2);
	ASSERT_NE(c3, yr);
	expect_refused(&p, at(&p, 4096, 16, c1), false);
	expect_refused(&p, at(&p, 4096, 16, c2), true);
	expect_refused(&p, at(&p, 4096, 16, yr), false);
	expect_refused(&p, at(&p, 4096, 16, xr), false);
	write_ok(&p, at(&p, 4096, 4096, c3));
	ASSERT_OK(dat_rmr_free(rmr2));
	expect_refused(&p, at(&p, 4096, 16, c3), false);

	pair_down(&p);
	return 0;
}

enum { PER_IA = 4 };

/*
 * The contexts of the first PER_IA LMRs registered on a fresh IA, lmr
 * and rmr context of each, as text: what every IA makes in the same
 * slots with the same n, so only its key tells them apart.
 */
static void first_contexts(DAT_IA_HANDLE ia, uint32_t out[2 * PER_IA])
{
	static char buf[64];
	DAT_REGION_DESCRIPTION rd = { .for_va = buf };
	DAT_LMR_HANDLE lmr[PER_IA];
	DAT_PZ_HANDLE pz;
	int i;

	ASSERT_OK(dat_pz_create(ia, &pz));
	for (i = 0; i < PER_IA; i++)
		ASSERT_OK(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd, sizeof(buf),
					 pz, DAT_MEM_PRIV_ALL_FLAG,
					 DAT_VA_TYPE_VA, &lmr[i], &out[2 * i],
					 &out[2 * i + 1], NULL, NULL));
	for (i = 0; i < PER_IA; i++)
		ASSERT_OK(dat_lmr_free(lmr[i]));
	ASSERT_OK(dat_pz_free(pz));
}

/* A process of its own: opens an IA (DAT_OVERRIDE from the test), reports. */
HELPER_IMPL(provider_ctx_print)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia;
	char name[] = SDT_IA_NAME;
	uint32_t c[2 * PER_IA];

	ASSERT_OK(dat_ia_open(name, 16, &async, &ia));
	first_contexts(ia, c);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	test_helper_ready("%x %x %x %x %x %x %x %x", c[0], c[1], c[2], c[3],
			  c[4], c[5], c[6], c[7]);
	return 0;
}

/*
 * Sets @a and @b of the same slots and order agree in at most one place
 * (any one may by chance: 2^-18), and never in all.
 */
static void expect_differ(const uint32_t *a, const uint32_t *b)
{
	int i, same = 0;

	for (i = 0; i < 2 * PER_IA; i++) {
		ASSERT_NE(a[i], 0);
		same += a[i] == b[i];
	}
	ASSERT_LE(same, 1);
}

/*
 * Two IAs of this process, and two other processes, make the same slots'
 * contexts in the same order: each has its own.
 */
TEST_IMPL(provider_ctx_per_process)
{
	uint32_t c[4][2 * PER_IA];
	DAT_IA_HANDLE ia, ia2;
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL, async2 = DAT_HANDLE_NULL;
	char name[] = SDT_IA_NAME;
	int i, j, k;

	ia = sdt_open_ia(NULL, &async);		/* writes the dat.conf */
	ASSERT_OK(dat_ia_open(name, 16, &async2, &ia2));
	first_contexts(ia, c[0]);
	first_contexts(ia2, c[1]);
	ASSERT_OK(dat_ia_close(ia2, DAT_CLOSE_GRACEFUL_FLAG));
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));

	for (i = 2; i < 4; i++) {
		test_helper_t *h = test_spawn_helper("provider_ctx_print", NULL);
		const char *line;
		int status;

		ASSERT_OK(test_helper_wait_ready(h, &line));
		ASSERT_EQ(sscanf(line, "%x %x %x %x %x %x %x %x", &c[i][0],
				 &c[i][1], &c[i][2], &c[i][3], &c[i][4],
				 &c[i][5], &c[i][6], &c[i][7]), 8);
		ASSERT_OK(test_helper_wait(h, 30, &status));
		ASSERT_EXIT_OK(status);
		test_helper_free(h);
	}
	for (i = 0; i < 4; i++) {
		for (k = 0; k < 2 * PER_IA; k++)
			printf("%08x%c", c[i][k], k + 1 < 2 * PER_IA ? ' ' : '\n');
		for (j = 0; j < i; j++)
			expect_differ(c[i], c[j]);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* On the memory objects, called directly (lmr.o, rmr.o in run-tests)  */

static DAT_PROVIDER unit_table = { .device_name = "unit-ctx" };

/* An IA as ia_open leaves it, without address, engine or async EVD. */
static struct sd_ia *unit_ia(void)
{
	struct sd_ia *ia = calloc(1, sizeof(*ia));

	ASSERT_NOT_NULL(ia);
	ia->obj.provider = &unit_table;
	sd_obj_init(&ia->obj, ia, SD_MAGIC_IA, DAT_HANDLE_TYPE_IA);
	pthread_mutex_init(&ia->lock, NULL);
	sd_list_init(&ia->pzs);
	sd_list_init(&ia->lmrs);
	sd_list_init(&ia->rmrs);
	ASSERT_OK(sd_ctx_init(ia));
	return ia;
}

static void unit_ia_free(struct sd_ia *ia)
{
	ASSERT(sd_list_empty(&ia->pzs));
	ASSERT(sd_list_empty(&ia->lmrs));
	ASSERT(sd_list_empty(&ia->rmrs));
	free(ia->ctx_table);
	pthread_mutex_destroy(&ia->lock);
	free(ia);
}

/* True when a peer's write of 1 byte through @ctx would be placed. */
static bool grants(struct sd_ia *ia, struct sd_pz *pz, DAT_RMR_CONTEXT ctx,
		   uint64_t va)
{
	struct sd_lmr *got;
	struct sd_sge sge;
	int err;

	err = sd_mem_resolve_remote(ia, pz, 0, ctx, va, 1,
				    DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &sge, &got);
	sd_mem_remote_done(got);
	return err == 0;
}

/* The reference's test vector: key 00..0f, message 00..07. */
TEST_IMPL(provider_ctx_siphash)
{
	const uint64_t k[2] = { 0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL };

	ASSERT_UINT64_EQ(sd_ctx_siphash(k, 0x0706050403020100ULL),
			 0x93f5f5799a932462ULL);
	return 0;
}

/*
 * One RMR bound 2^18 + 40 times (sd_mem_bind_reserve, then _exec, as
 * post.c and tx.c call them): all its contexts are distinct; its slot
 * gives 2^18 of them, then the RMR moves to another slot. Binds in flight
 * across the move, and the binding made in the old slot, keep working
 * until the next bind takes effect; the spent slot never serves again.
 */
TEST_IMPL(provider_ctx_tags_spent)
{
	enum { TAGS = 1 << SD_CTX_INDEX_SHIFT, N = TAGS + 40, AHEAD = 8 };
	struct sd_ia *ia = unit_ia();
	DAT_PZ_HANDLE pzh;
	struct sd_pz *pz;
	static char buf[64];
	uint64_t va = (uintptr_t)buf;
	DAT_REGION_DESCRIPTION rd = { .for_va = buf };
	DAT_LMR_HANDLE lmr, extra[100];
	DAT_RMR_HANDLE rmr;
	struct sd_bind b[AHEAD];
	uint32_t *ctx = malloc(N * sizeof(*ctx));
	uint32_t spent, moved = 0;
	size_t i, done = 0;

	ASSERT_NOT_NULL(ctx);
	ASSERT_OK(sd_pz_create(ia, &pzh));
	pz = pzh;
	ASSERT_OK(sd_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd, sizeof(buf), pz,
				DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &lmr,
				NULL, NULL, NULL, NULL));
	ASSERT_OK(sd_rmr_create(pz, &rmr));

	/*
	 * Binds are reserved AHEAD at a time before the oldest is executed,
	 * as a queue of binds in flight would be.
	 */
	for (i = 0; i < N + AHEAD - 1; i++) {
		if (i < N) {
			struct sd_bind *r = &b[i % AHEAD];

			memset(r, 0, sizeof(*r));
			r->rmr = rmr;
			r->lmr = lmr;
			r->va = va;
			r->len = sizeof(buf);
			r->priv = DAT_MEM_PRIV_REMOTE_WRITE_FLAG;
			ASSERT_OK(sd_mem_bind_reserve(r));
			ctx[i] = r->ctx;
			if (moved == 0 && i > 0 &&
			    sd_ctx_index(ctx[i]) != sd_ctx_index(ctx[0]))
				moved = (uint32_t)i;
		}
		if (i + 1 >= AHEAD) {
			/* The binding so far works until this one is exec'd. */
			if (done > 0)
				ASSERT(grants(ia, pz, ctx[done - 1], va));
			ASSERT_EQ(sd_mem_bind_exec(&b[done % AHEAD], 1),
				  DAT_DTO_SUCCESS);
			ASSERT(grants(ia, pz, ctx[done], va));
			if (done > 0)
				ASSERT(!grants(ia, pz, ctx[done - 1], va));
			done++;
		}
	}
	ASSERT_EQ(done, N);
	ASSERT_EQ(moved, TAGS);
	expect_distinct(ctx, N);
	for (i = 0; i < N; i += 997)
		ASSERT(!grants(ia, pz, ctx[i], va));
	ASSERT(grants(ia, pz, ctx[N - 1], va));

	/* The spent slot serves nobody again, however many LMRs come. */
	spent = sd_ctx_index(ctx[0]);
	ASSERT_OK(sd_rmr_free(rmr));
	for (i = 0; i < SD_ARRAY_SIZE(extra); i++) {
		DAT_RMR_CONTEXT rc;

		ASSERT_OK(sd_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd, sizeof(buf),
					pz, DAT_MEM_PRIV_ALL_FLAG,
					DAT_VA_TYPE_VA, &extra[i], NULL, &rc,
					NULL, NULL));
		ASSERT_NE(sd_ctx_index(rc), spent);
	}
	for (i = 0; i < SD_ARRAY_SIZE(extra); i++)
		ASSERT_OK(sd_lmr_free(extra[i]));
	ASSERT_OK(sd_lmr_free(lmr));
	ASSERT_OK(sd_pz_free(pz));
	free(ctx);
	unit_ia_free(ia);
	return 0;
}
