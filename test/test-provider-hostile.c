/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hostile peers (issue 6): a raw requester (hostile-peer.h) sends what no
 * DAT peer would, and the victim, this test's own process, must survive
 * all of it. Rules: PROTOCOL.md ("Checks" of the handshake and of frames,
 * "Errors", "Disconnect and flush", the handshake timeouts), WRITE-6, the
 * flush rules (SEND-5, RECV-7, post.c's contract), STYLE.md habit 6.
 *
 * The victim (struct victim) is an IA with a PZ whose LMRs sit inside one
 * larger buffer, each region between 4 KiB guards of 0xa5: one granting
 * remote read, write and atomics, one remote read only, one remote write
 * only, one no remote access, its receive buffers, its own DTOs'; RMRs
 * bound to parts of the first (write only, read only, one bound again so
 * that its first context is stale, one of EP scope bound through another
 * EP); a second PZ with an LMR of its own; the context of an LMR freed
 * before the others were registered. A PSP takes the hostile connections,
 * each accepted by a fresh EP with receives posted and, usually, a SEND
 * and an RDMA READ of its own outstanding.
 *
 * All the while a well-behaved DAT peer (the helper hostile_good_peer,
 * another process) is connected to the same PSP, and a thread of the
 * victim runs traffic over that connection without pause: a message and
 * its echo, an RDMA write and its read back, all checked.
 *
 * After each hostile input the test checks, in this order: how the
 * stream ended at the peer (the TERMINATE with its code and tag, a
 * DISCONNECT, or neither); the victim EP's connection event and state;
 * each posted DTO completed once with its documented status (recv_evd,
 * req_evd), and then no other event; every byte of the victim's buffer
 * (guards, regions not granted, regions granted but not written) equal
 * to what the test expects; the good connection still completing rounds.
 * At the end of each test every socket the hostile peers opened is gone
 * from the victim (its count of descriptors is back), the async EVD is
 * empty, and the IA closes cleanly (the ASan build checks for leaks).
 */
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <dat2/dat_ib_extensions.h>

#include "hostile-peer.h"
#include "provider-conn.h"
#include "provider-util.h"
#include "test.h"

/* ------------------------------------------------------------------ */
/* The victim's memory                                                 */

#define GUARD		4096
#define GUARD_BYTE	0xa5

#define NRECV		4	/* receives posted on each hostile connection */
#define RECV_LEN	256	/* each, RECV_STRIDE apart */
#define RECV_STRIDE	1024
#define RD_IN		2	/* the victim EP's max_rdma_read_in */

/* The victim's own DTOs on a hostile connection, and their cookies. */
#define RECV_COOKIE	10	/* + i */
#define SEND_COOKIE	100
#define READ_COOKIE	101
#define SEND_LEN	16
#define READ_OFF	256	/* in R_OWN: where the victim's READ lands */
#define READ_LEN	64
#define READ_RKEY	0x1234	/* what the victim's READ asks the peer for */
#define READ_ADDR	0x10000

/* How long the peer waits for any answer, in ms (scaled). */
#define TMO		10000

#define LOCAL	(DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG)
#define RREAD	DAT_MEM_PRIV_REMOTE_READ_FLAG
#define RWRITE	DAT_MEM_PRIV_REMOTE_WRITE_FLAG
#define RATOMIC	((DAT_MEM_PRIV_FLAGS)DAT_IB_MEM_PRIV_REMOTE_ATOMIC)

enum region {
	R_RW,		/* remote read, write, atomics */
	R_RO,		/* remote read only */
	R_WO,		/* remote write only */
	R_NONE,		/* no remote access */
	R_PZB,		/* every privilege, but another PZ */
	R_RECV,		/* the receives (local access only) */
	R_OWN,		/* the victim's SEND source and READ target */
	R_COUNT
};

static const struct {
	const char		*name;
	size_t			len;
	int			pzb;	/* in the second PZ */
	DAT_MEM_PRIV_FLAGS	priv;
} region_def[R_COUNT] = {
	[R_RW] = { "rw", 8192, 0, LOCAL | RREAD | RWRITE | RATOMIC },
	[R_RO] = { "remote-read-only", 4096, 0, LOCAL | RREAD },
	[R_WO] = { "remote-write-only", 4096, 0, LOCAL | RWRITE },
	[R_NONE] = { "local-only", 4096, 0, LOCAL },
	[R_PZB] = { "other-pz", 4096, 1, LOCAL | RREAD | RWRITE | RATOMIC },
	[R_RECV] = { "receives", NRECV * RECV_STRIDE, 0, LOCAL },
	[R_OWN] = { "own-dtos", 4096, 0, LOCAL },
};

/* The windows of R_RW that RMRs are bound to (offsets, 1 KiB each). */
#define W_WRITE		1024	/* rmr_w: remote write only */
#define W_EP		2048	/* rmr_ep: EP scope, bound through the good EP */
#define W_READ		4096	/* rmr_r: remote read only */
#define W_STALE_OLD	6144	/* rmr_stale's first binding */
#define W_STALE		7168	/* and its second */
#define W_LEN		1024

/* ------------------------------------------------------------------ */
/* The good connection                                                 */

#define G_BUF	65536
/* In the victim's buffer. */
#define G_SEND	0	/* a message, G_MSG bytes */
#define G_ECHO	4096	/* its echo */
#define G_WSRC	8192	/* RDMA write source, G_RDMA bytes */
#define G_RDST	12288	/* RDMA read destination */
#define G_MSG	512
#define G_RDMA	1024
/* In the good peer's: its receive slots, then the RDMA area. */
#define P_SLOTS	16
#define P_RDMA	32768

static const DAT_EP_ATTR good_attr = {
	.service_type = DAT_SERVICE_TYPE_RC,
	.qos = DAT_QOS_BEST_EFFORT,
	.recv_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG,
	.request_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG,
	.max_recv_dtos = 32,
	.max_request_dtos = 32,
	.max_recv_iov = 2,
	.max_request_iov = 2,
	.srq_soft_hw = DAT_HW_DEFAULT,
};

/* The EP each hostile connection is accepted with. */
static const DAT_EP_ATTR victim_attr = {
	.service_type = DAT_SERVICE_TYPE_RC,
	.max_message_size = 65536,
	.max_rdma_size = 65536,
	.qos = DAT_QOS_BEST_EFFORT,
	.recv_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG,
	.request_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG,
	.max_recv_dtos = 8,
	.max_request_dtos = 8,
	.max_recv_iov = 2,
	.max_request_iov = 2,
	.max_rdma_read_in = RD_IN,
	.max_rdma_read_out = 4,
	.srq_soft_hw = DAT_HW_DEFAULT,
};

struct good {
	DAT_EVD_HANDLE	req_evd, recv_evd, conn_evd;
	DAT_EP_HANDLE	ep;
	char		*buf;
	DAT_LMR_HANDLE	lmr;
	DAT_LMR_CONTEXT	lctx;
	DAT_RMR_CONTEXT	rctx;
	DAT_RMR_CONTEXT	peer_rctx;	/* the good peer's buffer */
	uint64_t	peer_addr;
	test_helper_t	*helper;
	pthread_t	thread;
	int		stop;		/* atomic: the traffic thread ends */
	unsigned long	rounds;		/* atomic: rounds of traffic done */
};

struct victim {
	DAT_IA_HANDLE	ia;
	DAT_EVD_HANDLE	async;
	DAT_PZ_HANDLE	pz, pzb;
	char		*arena;		/* guards and regions */
	char		*shadow;	/* what the arena must hold */
	size_t		arena_len;
	char		*reg[R_COUNT];
	DAT_LMR_HANDLE	lmr[R_COUNT];
	DAT_LMR_CONTEXT	lctx[R_COUNT];
	DAT_RMR_CONTEXT	rctx[R_COUNT];
	DAT_RMR_HANDLE	rmr_w, rmr_r, rmr_ep, rmr_stale;
	DAT_RMR_CONTEXT	ctx_w, ctx_r, ctx_ep, ctx_stale, ctx_stale_old;
	DAT_RMR_CONTEXT	ctx_freed;	/* of an LMR freed before the others */
	DAT_RMR_CONTEXT	ctx_unknown;	/* none of the above */
	/* Where every peer connects. */
	DAT_EVD_HANDLE	cr_evd;
	DAT_PSP_HANDLE	psp;
	DAT_CONN_QUAL	port;
	struct sockaddr_storage addr;	/* the IA's address with the port */
	/* The EP of the current hostile connection, and its EVDs. */
	DAT_EVD_HANDLE	req_evd, recv_evd, conn_evd;
	DAT_EP_HANDLE	ep;
	struct good	good;
	int		cm_timeout_ms;	/* SOFTDAPL_CM_TIMEOUT_MS */
	int		socks;		/* sockets open once set up */
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Payload bytes for the peer's frames. */
static uint8_t pay[16384];

static DAT_DTO_COOKIE ck(uint64_t v)
{
	DAT_DTO_COOKIE c;

	c.as_64 = v;
	return c;
}

static uint64_t va(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static socklen_t addr_len(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					   sizeof(struct sockaddr_in);
}

/*
 * The sockets this process has open (other descriptors come and go:
 * an EVD makes its eventfd when a waiter first sleeps in poll()).
 */
static int count_sockets(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	ASSERT_NOT_NULL(d);
	while ((e = readdir(d)) != NULL) {
		char path[300], target[64];
		ssize_t l;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		l = readlink(path, target, sizeof(target) - 1);
		if (l > 0 && strncmp(target, "socket:", 7) == 0)
			n++;
	}
	closedir(d);
	return n;
}

/* The bytes at @at of the victim's buffer must now be @data. */
static void expect_bytes(struct victim *v, const char *at, const void *data,
			 size_t n)
{
	memcpy(v->shadow + (at - v->arena), data, n);
}

/* Where byte @i of the arena is, for messages. */
static const char *where(const struct victim *v, size_t i, char *buf, size_t len)
{
	int r;

	for (r = 0; r < R_COUNT; r++) {
		size_t start = (size_t)(v->reg[r] - v->arena);

		if (i < start) {
			snprintf(buf, len, "the guard before %s, byte %zu",
				 region_def[r].name, GUARD - (start - i));
			return buf;
		}
		if (i < start + region_def[r].len) {
			snprintf(buf, len, "%s, byte %zu", region_def[r].name,
				 i - start);
			return buf;
		}
	}
	snprintf(buf, len, "the last guard, byte %zu",
		 i - (v->arena_len - GUARD));
	return buf;
}

/*
 * Every byte of the victim's buffer is what it must be: the guards, the
 * regions the peer may not touch, and what the peer was let write.
 */
static void check_memory(const struct victim *v, const char *what)
{
	char b[128];
	size_t i;

	if (memcmp(v->arena, v->shadow, v->arena_len) == 0)
		return;
	for (i = 0; v->arena[i] == v->shadow[i]; i++)
		;
	TEST_FAIL("%s: memory changed at %s: 0x%02x, expected 0x%02x", what,
		  where(v, i, b, sizeof(b)), (uint8_t)v->arena[i],
		  (uint8_t)v->shadow[i]);
}

static unsigned long rounds(struct victim *v)
{
	return __atomic_load_n(&v->good.rounds, __ATOMIC_ACQUIRE);
}

/* The good connection completes @n more rounds (within 10 s, scaled). */
static void wait_traffic(struct victim *v, unsigned n)
{
	unsigned long want = rounds(v) + n;
	uint64_t end = test_now_ms() + (uint64_t)(10000 * test_timeout_scale());

	while (rounds(v) < want) {
		if (test_now_ms() > end)
			TEST_FAIL("the good connection stalled at %lu rounds",
				  rounds(v));
		test_sleep_ms(1);
	}
}

/*
 * The process holds @extra sockets more than once set up, and no other:
 * the victim's ends of finished hostile connections are closed (within
 * the handshake timeout, or the linger limit of 5 s, plus slack).
 */
static void wait_sockets(struct victim *v, int extra)
{
	uint64_t end = test_now_ms() +
		(uint64_t)((v->cm_timeout_ms + 10000) * test_timeout_scale());
	int n;

	while ((n = count_sockets()) != v->socks + extra) {
		if (test_now_ms() > end)
			TEST_FAIL("%d sockets open, expected %d", n,
				  v->socks + extra);
		test_sleep_ms(5);
	}
}

/* ------------------------------------------------------------------ */
/* The good connection: a thread of the victim, and a helper process   */

static DAT_LMR_TRIPLET triplet(DAT_LMR_CONTEXT ctx, const char *p, uint64_t len)
{
	DAT_LMR_TRIPLET t;

	t.lmr_context = ctx;
	t.virtual_address = va(p);
	t.segment_length = len;
	return t;
}

static DAT_LMR_TRIPLET giov(const struct good *g, size_t off, size_t len)
{
	return triplet(g->lctx, g->buf + off, len);
}

/*
 * Round after round until told to stop: a message and its echo, an RDMA
 * write to the good peer and its read back, each checked. A round that
 * takes more than 10 s (scaled) fails the test.
 */
static void *traffic_main(void *arg)
{
	struct good *g = arg;
	uint64_t i;

	for (i = 0; !__atomic_load_n(&g->stop, __ATOMIC_ACQUIRE); i++) {
		DAT_LMR_TRIPLET s = giov(g, G_SEND, G_MSG), e = giov(g, G_ECHO, G_MSG);
		DAT_LMR_TRIPLET w = giov(g, G_WSRC, G_RDMA), r = giov(g, G_RDST, G_RDMA);
		DAT_RMR_TRIPLET rt;
		DAT_DTO_COMPLETION_EVENT_DATA d;

		rt.rmr_context = g->peer_rctx;
		rt.virtual_address = g->peer_addr + P_RDMA + (i % 16) * G_RDMA;
		rt.segment_length = G_RDMA;
		memset(g->buf + G_SEND, (int)(i * 7 + 1), G_MSG);
		memcpy(g->buf + G_SEND, &i, sizeof(i));
		memset(g->buf + G_ECHO, 0, G_MSG);
		ASSERT_OK(dat_ep_post_recv(g->ep, 1, &e, ck(i), DAT_COMPLETION_DEFAULT_FLAG));
		ASSERT_OK(dat_ep_post_send(g->ep, 1, &s, ck(i), DAT_COMPLETION_DEFAULT_FLAG));
		sdt_expect_dto(g->req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, i);
		d = sdt_expect_dto(g->recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, i);
		ASSERT_EQ(d.transfered_length, G_MSG);
		ASSERT_MEM_EQ(g->buf + G_ECHO, g->buf + G_SEND, G_MSG);

		memset(g->buf + G_WSRC, (int)(i * 13 + 5), G_RDMA);
		memcpy(g->buf + G_WSRC, &i, sizeof(i));
		memset(g->buf + G_RDST, 0, G_RDMA);
		ASSERT_OK(dat_ep_post_rdma_write(g->ep, 1, &w, ck(i), &rt,
						 DAT_COMPLETION_DEFAULT_FLAG));
		sdt_expect_dto(g->req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_WRITE, i);
		ASSERT_OK(dat_ep_post_rdma_read(g->ep, 1, &r, ck(i), &rt,
						DAT_COMPLETION_DEFAULT_FLAG));
		sdt_expect_dto(g->req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_READ, i);
		ASSERT_MEM_EQ(g->buf + G_RDST, g->buf + G_WSRC, G_RDMA);
		__atomic_add_fetch(&g->rounds, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/*
 * The good peer: an ordinary DAT consumer in a process of its own. It
 * connects to the victim's PSP at argv[1], telling it (private data) the
 * context and address of its RDMA area, echoes every message, and ends
 * when the victim disconnects: every DTO it posted completes once, the
 * last ones flushed, and the connection event is DISCONNECTED.
 */
HELPER_IMPL(hostile_good_peer)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL, dto, conn;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	DAT_EP_ATTR attr = good_attr;
	DAT_REGION_DESCRIPTION rd;
	struct sockaddr_storage ss;
	char name[] = SDT_IA_NAME;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_LMR_HANDLE lmr;
	DAT_PZ_HANDLE pz;
	DAT_EP_HANDLE ep;
	DAT_VLEN rlen;
	DAT_VADDR raddr;
	uint8_t pdata[12];
	char *buf = calloc(1, G_BUF);
	int k, outstanding = 0;
	bool ending = false;

	ASSERT_EQ(argc, 2);
	ASSERT_NOT_NULL(buf);
	ASSERT_OK(dat_ia_open(name, 16, &async, &ia));
	ASSERT_OK(dat_pz_create(ia, &pz));
	ASSERT_OK(dat_evd_create(ia, 128, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &dto));
	ASSERT_OK(dat_evd_create(ia, 16, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG, &conn));
	ASSERT_OK(dat_ep_create(ia, pz, dto, dto, conn, &attr, &ep));
	rd.for_va = buf;
	ASSERT_OK(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd, G_BUF, pz,
				 DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &lmr,
				 &lctx, &rctx, &rlen, &raddr));
	for (k = 0; k < P_SLOTS; k++) {
		DAT_LMR_TRIPLET t = triplet(lctx, buf + k * G_MSG, G_MSG);

		ASSERT_OK(dat_ep_post_recv(ep, 1, &t, ck((uint64_t)k),
					   DAT_COMPLETION_DEFAULT_FLAG));
		outstanding++;
	}
	sd_put32(pdata, rctx);
	sd_put64(pdata + 4, va(buf));
	sdt_ia_addr(ia, &ss);
	ASSERT_OK(dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&ss,
				 (DAT_CONN_QUAL)strtoul(argv[1], NULL, 10),
				 DAT_TIMEOUT_INFINITE, sizeof(pdata), pdata,
				 DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	sdt_expect_conn(conn, DAT_CONNECTION_EVENT_ESTABLISHED);
	test_helper_ready("established");

	/* Receive slot k echoes from itself (cookie P_SLOTS + k), then is reposted. */
	while (outstanding > 0) {
		DAT_EVENT ev;
		DAT_COUNT nmore;
		DAT_DTO_COMPLETION_EVENT_DATA *d = &ev.event_data.dto_completion_event_data;

		ASSERT_OK(dat_evd_wait(dto, (DAT_TIMEOUT)(120e6 * test_timeout_scale()),
				       1, &ev, &nmore));
		ASSERT_EQ(ev.event_number, DAT_DTO_COMPLETION_EVENT);
		outstanding--;
		k = (int)(d->user_cookie.as_64 % P_SLOTS);
		if (d->status == DAT_DTO_ERR_FLUSHED) {
			ending = true;
			continue;
		}
		ASSERT_EQ(d->status, DAT_DTO_SUCCESS);
		if (ending)
			continue;
		if (d->operation == DAT_DTO_RECEIVE) {
			DAT_LMR_TRIPLET t = triplet(lctx, buf + k * G_MSG,
							  d->transfered_length);

			ASSERT_OK(dat_ep_post_send(ep, 1, &t,
						   ck((uint64_t)(P_SLOTS + k)),
						   DAT_COMPLETION_DEFAULT_FLAG));
		} else {
			DAT_LMR_TRIPLET t = triplet(lctx, buf + k * G_MSG, G_MSG);

			ASSERT_EQ(d->operation, DAT_DTO_SEND);
			ASSERT_OK(dat_ep_post_recv(ep, 1, &t, ck((uint64_t)k),
						   DAT_COMPLETION_DEFAULT_FLAG));
		}
		outstanding++;
	}
	sdt_expect_conn(conn, DAT_CONNECTION_EVENT_DISCONNECTED);
	ASSERT_OK(dat_ep_free(ep));
	ASSERT_OK(dat_lmr_free(lmr));
	ASSERT_OK(dat_evd_free(dto));
	ASSERT_OK(dat_evd_free(conn));
	ASSERT_OK(dat_pz_free(pz));
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	free(buf);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Setting the victim up and down                                      */

static DAT_RMR_CONTEXT bind_rmr(struct victim *v, DAT_RMR_HANDLE rmr, size_t off,
				DAT_MEM_PRIV_FLAGS priv, uint64_t cookie)
{
	DAT_LMR_TRIPLET t;
	DAT_RMR_CONTEXT ctx = 0;
	DAT_RMR_COOKIE c;
	DAT_EVENT ev;

	t.lmr_context = v->lctx[R_RW];
	t.virtual_address = va(v->reg[R_RW] + off);
	t.segment_length = W_LEN;
	c.as_64 = cookie;
	ASSERT_OK(dat_rmr_bind(rmr, v->lmr[R_RW], &t, priv, DAT_VA_TYPE_VA,
			       v->good.ep, c, DAT_COMPLETION_DEFAULT_FLAG, &ctx));
	ev = sdt_wait(v->good.req_evd, 10000);
	ASSERT_EQ(ev.event_number, DAT_RMR_BIND_COMPLETION_EVENT);
	ASSERT_EQ(ev.event_data.rmr_completion_event_data.status, DAT_RMR_BIND_SUCCESS);
	ASSERT_UINT64_EQ(ev.event_data.rmr_completion_event_data.user_cookie.as_64, cookie);
	return ctx;
}

static bool known_ctx(const struct victim *v, DAT_RMR_CONTEXT c)
{
	int r;

	for (r = 0; r < R_COUNT; r++)
		if (c == v->rctx[r])
			return true;
	return c == v->ctx_w || c == v->ctx_r || c == v->ctx_ep ||
	       c == v->ctx_stale || c == v->ctx_stale_old ||
	       c == v->ctx_freed || c == v->good.rctx;
}

/* The good connection: the peer's request accepted, traffic started. */
static void good_start(struct victim *v)
{
	struct good *g = &v->good;
	DAT_REGION_DESCRIPTION rd;
	DAT_CR_PARAM crp;
	DAT_CR_HANDLE cr;
	DAT_VLEN rlen;
	DAT_VADDR raddr;
	DAT_EP_ATTR attr = good_attr;
	char port[16];

	ASSERT_OK(dat_evd_create(v->ia, 64, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &g->req_evd));
	ASSERT_OK(dat_evd_create(v->ia, 64, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &g->recv_evd));
	ASSERT_OK(dat_evd_create(v->ia, 16, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG,
				 &g->conn_evd));
	ASSERT_OK(dat_ep_create(v->ia, v->pz, g->recv_evd, g->req_evd, g->conn_evd,
				&attr, &g->ep));
	g->buf = calloc(1, G_BUF);
	ASSERT_NOT_NULL(g->buf);
	rd.for_va = g->buf;
	ASSERT_OK(dat_lmr_create(v->ia, DAT_MEM_TYPE_VIRTUAL, rd, G_BUF, v->pz,
				 DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &g->lmr,
				 &g->lctx, &g->rctx, &rlen, &raddr));
	snprintf(port, sizeof(port), "%llu", (unsigned long long)v->port);
	g->helper = test_spawn_helper("hostile_good_peer", port, NULL);
	cr = sdt_expect_cr(v->cr_evd, NULL);
	ASSERT_OK(dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp));
	ASSERT_EQ(crp.private_data_size, 12);
	g->peer_rctx = sd_get32(crp.private_data);
	g->peer_addr = sd_get64((uint8_t *)crp.private_data + 4);
	ASSERT_OK(dat_cr_accept(cr, g->ep, 0, NULL));
	sdt_expect_conn(g->conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	ASSERT_OK(test_helper_wait_ready(g->helper, NULL));
}

static void v_setup(struct victim *v)
{
	DAT_REGION_DESCRIPTION rd;
	DAT_LMR_HANDLE tmp;
	DAT_LMR_CONTEXT lctx;
	DAT_VLEN rlen;
	DAT_VADDR raddr;
	char ms[32];
	size_t off, i;
	int r;

	memset(v, 0, sizeof(*v));
	for (i = 0; i < sizeof(pay); i++)
		pay[i] = (uint8_t)(i * 13 + 7);
	/* The handshake timeout, short: the stall tests wait for it. */
	v->cm_timeout_ms = (int)(600 * test_timeout_scale());
	snprintf(ms, sizeof(ms), "%d", v->cm_timeout_ms);
	test_setenv("SOFTDAPL_CM_TIMEOUT_MS", ms);
	v->ia = sdt_open_ia(NULL, &v->async);
	ASSERT_OK(dat_pz_create(v->ia, &v->pz));
	ASSERT_OK(dat_pz_create(v->ia, &v->pzb));

	/* Guards and regions, one buffer; every region 4 KiB aligned. */
	v->arena_len = GUARD;
	for (r = 0; r < R_COUNT; r++)
		v->arena_len += region_def[r].len + GUARD;
	ASSERT_OK(posix_memalign((void **)&v->arena, 4096, v->arena_len));
	memset(v->arena, GUARD_BYTE, v->arena_len);
	for (off = GUARD, r = 0; r < R_COUNT; r++) {
		v->reg[r] = v->arena + off;
		for (i = 0; i < region_def[r].len; i++)
			v->reg[r][i] = (char)(i * 131 + (size_t)r * 29 + 3);
		off += region_def[r].len + GUARD;
	}
	v->shadow = malloc(v->arena_len);
	ASSERT_NOT_NULL(v->shadow);
	memcpy(v->shadow, v->arena, v->arena_len);

	/*
	 * A context that dies first: an LMR over R_RW, freed before R_RW
	 * is registered again (which may well take its slot).
	 */
	rd.for_va = v->reg[R_RW];
	ASSERT_OK(dat_lmr_create(v->ia, DAT_MEM_TYPE_VIRTUAL, rd,
				 region_def[R_RW].len, v->pz,
				 region_def[R_RW].priv, DAT_VA_TYPE_VA, &tmp,
				 &lctx, &v->ctx_freed, &rlen, &raddr));
	ASSERT_OK(dat_lmr_free(tmp));
	for (r = 0; r < R_COUNT; r++) {
		rd.for_va = v->reg[r];
		ASSERT_OK(dat_lmr_create(v->ia, DAT_MEM_TYPE_VIRTUAL, rd,
					 region_def[r].len,
					 region_def[r].pzb ? v->pzb : v->pz,
					 region_def[r].priv, DAT_VA_TYPE_VA,
					 &v->lmr[r], &v->lctx[r], &v->rctx[r],
					 &rlen, &raddr));
	}

	ASSERT_OK(dat_evd_create(v->ia, 16, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &v->cr_evd));
	ASSERT_OK(dat_evd_create(v->ia, 64, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &v->req_evd));
	ASSERT_OK(dat_evd_create(v->ia, 64, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &v->recv_evd));
	ASSERT_OK(dat_evd_create(v->ia, 16, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG,
				 &v->conn_evd));
	ASSERT_OK(dat_psp_create_any(v->ia, &v->port, v->cr_evd,
				     DAT_PSP_CONSUMER_FLAG, &v->psp));
	sdt_ia_addr(v->ia, &v->addr);
	if (v->addr.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&v->addr)->sin6_port = htons((uint16_t)v->port);
	else
		((struct sockaddr_in *)&v->addr)->sin_port = htons((uint16_t)v->port);

	good_start(v);

	/* The RMRs, bound through the good EP. */
	ASSERT_OK(dat_rmr_create(v->pz, &v->rmr_w));
	ASSERT_OK(dat_rmr_create(v->pz, &v->rmr_r));
	ASSERT_OK(dat_rmr_create(v->pz, &v->rmr_stale));
	ASSERT_OK(dat_rmr_create_for_ep(v->pz, &v->rmr_ep));
	v->ctx_w = bind_rmr(v, v->rmr_w, W_WRITE, RWRITE, 1);
	v->ctx_r = bind_rmr(v, v->rmr_r, W_READ, RREAD, 2);
	v->ctx_ep = bind_rmr(v, v->rmr_ep, W_EP, RREAD | RWRITE, 3);
	v->ctx_stale_old = bind_rmr(v, v->rmr_stale, W_STALE_OLD, RREAD | RWRITE, 4);
	v->ctx_stale = bind_rmr(v, v->rmr_stale, W_STALE, RREAD | RWRITE, 5);
	ASSERT_NE(v->ctx_stale, v->ctx_stale_old);
	for (v->ctx_unknown = 0x5a5a5a5a; known_ctx(v, v->ctx_unknown);)
		v->ctx_unknown += 0x01010101;

	ASSERT_OK(pthread_create(&v->good.thread, NULL, traffic_main, &v->good));
	wait_traffic(v, 2);
	v->socks = count_sockets();
}

/*
 * The end of a test: the hostile sockets are gone, the good connection
 * never stopped and ends gracefully (the good peer exits 0), nothing is
 * left on any EVD, everything is freed and the IA closes.
 */
static void v_teardown(struct victim *v)
{
	struct good *g = &v->good;
	DAT_EVENT ev;
	int st, r;

	wait_sockets(v, 0);
	wait_traffic(v, 2);
	__atomic_store_n(&g->stop, 1, __ATOMIC_RELEASE);
	ASSERT_OK(pthread_join(g->thread, NULL));
	ASSERT_OK(dat_ep_disconnect(g->ep, DAT_CLOSE_GRACEFUL_FLAG));
	sdt_expect_conn(g->conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	ASSERT_OK(test_helper_wait(g->helper, 30, &st));
	ASSERT_EXIT_OK(st);
	test_helper_free(g->helper);
	ASSERT(!sdt_poll(g->req_evd, &ev));
	ASSERT(!sdt_poll(g->recv_evd, &ev));
	ASSERT(!sdt_poll(g->conn_evd, &ev));
	ASSERT(!sdt_poll(v->req_evd, &ev));
	ASSERT(!sdt_poll(v->recv_evd, &ev));
	ASSERT(!sdt_poll(v->conn_evd, &ev));
	ASSERT(!sdt_poll(v->cr_evd, &ev));
	ASSERT(!sdt_poll(v->async, &ev));
	check_memory(v, "at the end");

	ASSERT_OK(dat_rmr_free(v->rmr_w));
	ASSERT_OK(dat_rmr_free(v->rmr_r));
	ASSERT_OK(dat_rmr_free(v->rmr_ep));
	ASSERT_OK(dat_rmr_free(v->rmr_stale));
	ASSERT_OK(dat_ep_free(g->ep));
	ASSERT_OK(dat_lmr_free(g->lmr));
	ASSERT_OK(dat_evd_free(g->req_evd));
	ASSERT_OK(dat_evd_free(g->recv_evd));
	ASSERT_OK(dat_evd_free(g->conn_evd));
	ASSERT_OK(dat_psp_free(v->psp));
	for (r = 0; r < R_COUNT; r++)
		ASSERT_OK(dat_lmr_free(v->lmr[r]));
	ASSERT_OK(dat_evd_free(v->cr_evd));
	ASSERT_OK(dat_evd_free(v->req_evd));
	ASSERT_OK(dat_evd_free(v->recv_evd));
	ASSERT_OK(dat_evd_free(v->conn_evd));
	ASSERT_OK(dat_pz_free(v->pz));
	ASSERT_OK(dat_pz_free(v->pzb));
	ASSERT_OK(dat_ia_close(v->ia, DAT_CLOSE_GRACEFUL_FLAG));
	free(g->buf);
	free(v->arena);
	free(v->shadow);
}

/* ------------------------------------------------------------------ */
/* One hostile connection                                              */

/*
 * A raw connection to the victim's PSP: a valid HELLO is sent and, once
 * the CR arrives, a fresh EP (v->ep) with NRECV receives posted accepts
 * it; the peer reads the ACCEPT. Returns the socket.
 */
static int hostile_accepted(struct victim *v)
{
	struct sd_cm_msg m;
	DAT_CR_HANDLE cr;
	int fd, i;

	fd = hp_connect((struct sockaddr *)&v->addr, addr_len(&v->addr));
	ASSERT_GE(fd, 0);
	hp_hello(&m, v->port);
	m.pdata_len = 7;
	ASSERT_OK(hp_send_cm(fd, &m, "hostile", 7));
	cr = sdt_expect_cr(v->cr_evd, NULL);
	ASSERT_OK(dat_ep_create(v->ia, v->pz, v->recv_evd, v->req_evd,
				v->conn_evd, &victim_attr, &v->ep));
	for (i = 0; i < NRECV; i++) {
		DAT_LMR_TRIPLET t;

		t.lmr_context = v->lctx[R_RECV];
		t.virtual_address = va(v->reg[R_RECV] + i * RECV_STRIDE);
		t.segment_length = RECV_LEN;
		ASSERT_OK(dat_ep_post_recv(v->ep, 1, &t, ck(RECV_COOKIE + (uint64_t)i),
					   DAT_COMPLETION_DEFAULT_FLAG));
	}
	ASSERT_OK(dat_cr_accept(cr, v->ep, 0, NULL));
	ASSERT_OK(hp_recv_cm(fd, &m, NULL, TMO));
	ASSERT_EQ(m.type, SD_CM_ACCEPT);
	ASSERT_EQ(m.rd_in, RD_IN);
	ASSERT_EQ(m.max_msg, 0x80000000u);
	ASSERT_EQ(m.pdata_len, 0);
	return fd;
}

/*
 * The victim's requests on a hostile connection: a SEND (request 0) and
 * an RDMA READ (request 1), neither of which the peer will ever ack or
 * answer, unless the case does. The peer reads their frames.
 */
static void victim_requests(struct victim *v, int fd)
{
	DAT_LMR_TRIPLET s, r;
	DAT_RMR_TRIPLET rt;
	struct sd_hdr h;
	uint8_t b[SEND_LEN];

	s.lmr_context = r.lmr_context = v->lctx[R_OWN];
	s.virtual_address = va(v->reg[R_OWN]);
	s.segment_length = SEND_LEN;
	r.virtual_address = va(v->reg[R_OWN] + READ_OFF);
	r.segment_length = READ_LEN;
	rt.rmr_context = READ_RKEY;
	rt.virtual_address = READ_ADDR;
	rt.segment_length = READ_LEN;
	ASSERT_OK(dat_ep_post_send(v->ep, 1, &s, ck(SEND_COOKIE),
				   DAT_COMPLETION_DEFAULT_FLAG));
	ASSERT_OK(dat_ep_post_rdma_read(v->ep, 1, &r, ck(READ_COOKIE), &rt,
					DAT_COMPLETION_DEFAULT_FLAG));
	ASSERT_EQ(hp_recv_frame(fd, &h, b, sizeof(b), TMO), SEND_LEN);
	ASSERT_EQ(h.op, SD_OP_SEND);
	ASSERT_EQ(h.len, SEND_LEN);
	ASSERT_EQ(h.tag, SD_TAG_NONE);
	ASSERT_MEM_EQ(b, v->reg[R_OWN], SEND_LEN);
	ASSERT_EQ(hp_recv_frame(fd, &h, NULL, 0, TMO), 0);
	ASSERT_EQ(h.op, SD_OP_READ_REQ);
	ASSERT_EQ(h.tag, 1);
	ASSERT_EQ(h.len, READ_LEN);
	ASSERT_EQ(h.rkey, READ_RKEY);
	ASSERT_UINT64_EQ(h.addr, READ_ADDR);
}

/* What a hostile input must lead to (struct fcase's run sets it). */
struct outcome {
	uint8_t		term;		/* the victim's TERMINATE code, 0: none */
	uint32_t	tag;		/* and the request it names */
	bool		disconnect;	/* the victim answers DISCONNECT */
	bool		closed;		/* the peer reset the connection: no end to read */
	bool		send_seen;	/* the case saw the SEND complete already */
	DAT_EVENT_NUMBER conn;		/* the victim EP's connection event */
	DAT_DTO_COMPLETION_STATUS recv[NRECV];	/* each receive's status */
	DAT_DTO_COMPLETION_STATUS send, read;	/* the victim's requests' */
};

/* A hostile input on an established connection (@fd; v->ep the victim). */
struct fcase {
	const char	*what;		/* the input, and the rule checked */
	bool		requests;	/* the victim has its SEND and READ out */
	void		(*run)(struct victim *v, int fd, struct outcome *o);
};

/*
 * The default outcome, which most inputs lead to: a TERMINATE(protocol)
 * naming nothing, BROKEN, every DTO flushed (PROTOCOL.md "Errors").
 */
static void outcome_init(struct outcome *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	o->term = SD_TERM_PROTOCOL;
	o->tag = SD_TAG_NONE;
	o->conn = DAT_CONNECTION_EVENT_BROKEN;
	for (i = 0; i < NRECV; i++)
		o->recv[i] = DAT_DTO_ERR_FLUSHED;
	o->send = o->read = DAT_DTO_ERR_FLUSHED;
}

/* For the refused accesses (WRITE-6): TERMINATE(remote access) of request @tag. */
static void refused(struct outcome *o, uint32_t tag)
{
	o->term = SD_TERM_REMOTE_ACCESS;
	o->tag = tag;
}

/* The end of the stream and every check after it (see the top). */
static void check_outcome(struct victim *v, int fd, const struct fcase *c,
			  const struct outcome *o)
{
	struct hp_end end;
	DAT_EVENT ev;
	int i;

	if (!o->closed) {
		int r = hp_expect_end(fd, &end, TMO);

		if (r != 0) {
			check_memory(v, c->what);	/* the likelier story */
			TEST_FAIL("%s: the victim did not end the connection "
				  "(%d)", c->what, r);
		}
		ASSERT_EQ(end.terminated, o->term != 0);
		if (o->term != 0) {
			ASSERT_EQ(end.term.code, o->term);
			ASSERT_EQ(end.term.tag, o->tag);
			ASSERT_EQ(end.term.len, 0);
			ASSERT_EQ(end.term.flags, 0);
		}
		ASSERT_EQ(end.disconnected, o->disconnect);
		ASSERT_EQ(end.reset, 0);
	}
	ev = sdt_wait(v->conn_evd, TMO);
	if (ev.event_number != o->conn)
		TEST_FAIL("%s: connection event 0x%x, expected 0x%x", c->what,
			  (unsigned)ev.event_number, (unsigned)o->conn);
	ASSERT_PTR_EQ(ev.event_data.connect_event_data.ep_handle, v->ep);
	ASSERT_EQ(sdt_ep_state(v->ep), DAT_EP_STATE_DISCONNECTED);
	for (i = 0; i < NRECV; i++)
		sdt_expect_dto(v->recv_evd, o->recv[i], DAT_DTO_RECEIVE,
			       RECV_COOKIE + (uint64_t)i);
	if (c->requests) {
		if (!o->send_seen)
			sdt_expect_dto(v->req_evd, o->send, DAT_DTO_SEND, SEND_COOKIE);
		sdt_expect_dto(v->req_evd, o->read, DAT_DTO_RDMA_READ, READ_COOKIE);
	}
	/* Exactly once: nothing else comes. */
	test_sleep_ms(20);
	ASSERT(!sdt_poll(v->conn_evd, &ev));
	ASSERT(!sdt_poll(v->recv_evd, &ev));
	ASSERT(!sdt_poll(v->req_evd, &ev));
	ASSERT(!sdt_poll(v->cr_evd, &ev));
	ASSERT_OK(dat_ep_free(v->ep));
	v->ep = DAT_HANDLE_NULL;
	if (fd >= 0)
		close(fd);
	check_memory(v, c->what);
	wait_traffic(v, 2);
	wait_sockets(v, 0);		/* the victim's end of it is closed too */
}

static void run_fcases(struct victim *v, const struct fcase *cases, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct fcase *c = &cases[i];
		struct outcome o;
		int fd;

		fprintf(stderr, "case: %s\n", c->what);
		outcome_init(&o);
		fd = hostile_accepted(v);
		ASSERT_OK(hp_send_rtu(fd));
		sdt_expect_conn(v->conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
		if (c->requests)
			victim_requests(v, fd);
		c->run(v, fd, &o);
		if (o.closed)
			fd = -1;
		check_outcome(v, fd, c, &o);
	}
}

/* ---- what the peer sends ------------------------------------------- */

/* A frame: the header and then @n bytes of pay[] (whatever h.len says). */
static void frame(int fd, struct sd_hdr h, size_t n)
{
	ASSERT_OK(hp_send_frame(fd, &h, pay, n));
}

/*
 * A frame with its payload of h.len bytes of pay[] (none for the ops
 * without one).
 */
static void frame_full(int fd, struct sd_hdr h)
{
	frame(fd, h, sd_op_has_payload(h.op) ? h.len : 0);
}

/*
 * The next frame that is not a standalone ACK (the victim acks what it
 * executes); its payload into @buf.
 */
static long next_frame(int fd, struct sd_hdr *h, void *buf, size_t cap)
{
	long r;

	do
		r = hp_recv_frame(fd, h, buf, cap, TMO);
	while (r == 0 && h->op == SD_OP_ACK);
	return r;
}

/* The peer closes its side (FIN): the victim reads to the end. */
static void peer_shut(int fd)
{
	ASSERT_OK(shutdown(fd, SHUT_WR));
}

/* Packs @h at @b, for inputs made byte by byte. */
static void put_hdr(uint8_t *b, struct sd_hdr h)
{
	sd_hdr_pack(&h, b);
}

/* ------------------------------------------------------------------ */
/* Refused accesses (WRITE-6, PROTOCOL.md "Checks")                    */

/* Which context an access names. */
enum ctx_sel {
	K_RW, K_RO, K_WO, K_NONE, K_PZB, K_RECV,	/* the LMRs' rmr_contexts */
	K_W, K_R, K_EP,				/* RMRs: write, read, EP scope */
	K_STALE_OLD,				/* an RMR's first, replaced, context */
	K_FREED,				/* a freed LMR's */
	K_UNKNOWN, K_ZERO, K_ONES,		/* nothing's */
};

static DAT_RMR_CONTEXT ctx_of(const struct victim *v, int k)
{
	switch (k) {
	case K_RW: return v->rctx[R_RW];
	case K_RO: return v->rctx[R_RO];
	case K_WO: return v->rctx[R_WO];
	case K_NONE: return v->rctx[R_NONE];
	case K_PZB: return v->rctx[R_PZB];
	case K_RECV: return v->rctx[R_RECV];
	case K_W: return v->ctx_w;
	case K_R: return v->ctx_r;
	case K_EP: return v->ctx_ep;
	case K_STALE_OLD: return v->ctx_stale_old;
	case K_FREED: return v->ctx_freed;
	case K_UNKNOWN: return v->ctx_unknown;
	case K_ZERO: return 0;
	default: return 0xffffffffu;
	}
}

/*
 * One access the victim must refuse: TERMINATE(remote access) naming
 * request 0, BROKEN, no byte touched, no receive consumed, the victim's
 * SEND and READ and every receive flushed.
 */
struct acase {
	const char	*what;
	uint8_t		op;	/* WRITE, WRITE_IMM*, READ_REQ, atomics, SEND*_INV */
	uint8_t		ctx;	/* enum ctx_sel */
	int8_t		base;	/* enum region; -1: @off is the address */
	int64_t		off;
	uint32_t	len;	/* atomics: 16 whatever this says */
};

#define END_RW		8192	/* R_RW's length */

static const struct acase acases[] = {
	{ "WRITE, an unknown rmr_context", SD_OP_WRITE, K_UNKNOWN, R_RW, 0, 64 },
	{ "WRITE, rmr_context 0", SD_OP_WRITE, K_ZERO, R_RW, 0, 64 },
	{ "WRITE, rmr_context 0xffffffff", SD_OP_WRITE, K_ONES, R_RW, 0, 64 },
	{ "WRITE through an LMR, starting one byte before its region",
	  SD_OP_WRITE, K_RW, R_RW, -1, 64 },
	{ "WRITE through an LMR, ending one byte past its region",
	  SD_OP_WRITE, K_RW, R_RW, END_RW - 63, 64 },
	{ "WRITE through an LMR, one byte longer than its region",
	  SD_OP_WRITE, K_RW, R_RW, 0, END_RW + 1 },
	{ "WRITE through an LMR, starting at its region's end",
	  SD_OP_WRITE, K_RW, R_RW, END_RW, 8 },
	{ "WRITE whose address plus length wraps around 2^64",
	  SD_OP_WRITE, K_RW, -1, -64, 128 },
	{ "WRITE through an RMR, starting one byte before its window",
	  SD_OP_WRITE, K_W, R_RW, W_WRITE - 1, 64 },
	{ "WRITE through an RMR, ending one byte past its window",
	  SD_OP_WRITE, K_W, R_RW, W_WRITE + W_LEN - 63, 64 },
	{ "WRITE through an RMR, inside its LMR but outside its window",
	  SD_OP_WRITE, K_W, R_RW, 0, 64 },
	{ "WRITE without remote write privilege (an LMR granting remote read)",
	  SD_OP_WRITE, K_RO, R_RO, 0, 64 },
	{ "WRITE without remote write privilege (an RMR granting remote read)",
	  SD_OP_WRITE, K_R, R_RW, W_READ, 64 },
	{ "WRITE to an LMR granting no remote access",
	  SD_OP_WRITE, K_NONE, R_NONE, 0, 64 },
	{ "WRITE to the LMR of the receive buffers (local access only)",
	  SD_OP_WRITE, K_RECV, R_RECV, 0, 64 },
	{ "WRITE with the context of an LMR of another PZ",
	  SD_OP_WRITE, K_PZB, R_PZB, 0, 64 },
	{ "WRITE with an RMR's stale context (the RMR was bound again)",
	  SD_OP_WRITE, K_STALE_OLD, R_RW, W_STALE_OLD, 64 },
	{ "WRITE with the context of a freed LMR (its memory registered again)",
	  SD_OP_WRITE, K_FREED, R_RW, 0, 64 },
	{ "WRITE through an EP-scope RMR bound through another EP",
	  SD_OP_WRITE, K_EP, R_RW, W_EP, 64 },
	{ "WRITE_IMM with an unknown context (no receive consumed)",
	  SD_OP_WRITE_IMM, K_UNKNOWN, R_RW, 0, 64 },
	{ "WRITE_IMM_SE ending one byte past the region",
	  SD_OP_WRITE_IMM_SE, K_RW, R_RW, END_RW - 63, 64 },
	{ "READ, an unknown rmr_context", SD_OP_READ_REQ, K_UNKNOWN, R_RW, 0, 64 },
	{ "READ through an LMR, starting one byte before its region",
	  SD_OP_READ_REQ, K_RW, R_RW, -1, 64 },
	{ "READ through an LMR, ending one byte past its region",
	  SD_OP_READ_REQ, K_RW, R_RW, END_RW - 63, 64 },
	{ "READ of 2 GiB (the largest allowed) from the region's start",
	  SD_OP_READ_REQ, K_RW, R_RW, 0, 0x80000000u },
	{ "READ whose address plus length wraps around 2^64",
	  SD_OP_READ_REQ, K_RW, -1, -64, 128 },
	{ "READ through an RMR, ending one byte past its window",
	  SD_OP_READ_REQ, K_R, R_RW, W_READ + W_LEN - 63, 64 },
	{ "READ without remote read privilege (an LMR granting remote write)",
	  SD_OP_READ_REQ, K_WO, R_WO, 0, 64 },
	{ "READ without remote read privilege (an RMR granting remote write)",
	  SD_OP_READ_REQ, K_W, R_RW, W_WRITE, 64 },
	{ "READ of an LMR granting no remote access",
	  SD_OP_READ_REQ, K_NONE, R_NONE, 0, 64 },
	{ "READ of the receive buffers",
	  SD_OP_READ_REQ, K_RECV, R_RECV, 0, 64 },
	{ "READ with the context of an LMR of another PZ",
	  SD_OP_READ_REQ, K_PZB, R_PZB, 0, 64 },
	{ "READ with an RMR's stale context",
	  SD_OP_READ_REQ, K_STALE_OLD, R_RW, W_STALE_OLD, 64 },
	{ "READ with the context of a freed LMR",
	  SD_OP_READ_REQ, K_FREED, R_RW, 0, 64 },
	{ "READ through an EP-scope RMR bound through another EP",
	  SD_OP_READ_REQ, K_EP, R_RW, W_EP, 64 },
	{ "FETCH_ADD at a misaligned address", SD_OP_FETCH_ADD, K_RW, R_RW, 4, 16 },
	{ "FETCH_ADD on the word before the region", SD_OP_FETCH_ADD, K_RW, R_RW, -8, 16 },
	{ "CMP_SWAP on the word at the region's end", SD_OP_CMP_SWAP, K_RW, R_RW, END_RW, 16 },
	{ "FETCH_ADD without atomic privilege (an LMR granting remote read)",
	  SD_OP_FETCH_ADD, K_RO, R_RO, 0, 16 },
	{ "CMP_SWAP without atomic privilege (an RMR granting remote write)",
	  SD_OP_CMP_SWAP, K_W, R_RW, W_WRITE, 16 },
	{ "FETCH_ADD with an unknown context", SD_OP_FETCH_ADD, K_UNKNOWN, R_RW, 0, 16 },
	{ "CMP_SWAP with the context of an LMR of another PZ",
	  SD_OP_CMP_SWAP, K_PZB, R_PZB, 0, 16 },
	{ "FETCH_ADD with an RMR's stale context",
	  SD_OP_FETCH_ADD, K_STALE_OLD, R_RW, W_STALE_OLD, 16 },
	{ "SEND_INV naming an LMR's context (never invalidated)",
	  SD_OP_SEND_INV, K_RW, R_RW, 0, 16 },
	{ "SEND_INV naming an unknown context", SD_OP_SEND_INV, K_UNKNOWN, R_RW, 0, 16 },
	{ "SEND_SE_INV naming an EP-scope RMR bound through another EP",
	  SD_OP_SEND_SE_INV, K_EP, R_RW, 0, 16 },
	{ "SEND_INV naming an RMR's stale context",
	  SD_OP_SEND_INV, K_STALE_OLD, R_RW, 0, 16 },
};

static void run_access(struct victim *v, const struct acase *a)
{
	struct fcase c = { a->what, true, NULL };
	bool atomic = a->op == SD_OP_FETCH_ADD || a->op == SD_OP_CMP_SWAP;
	bool read = a->op == SD_OP_READ_REQ;
	uint64_t addr = a->base < 0 ? (uint64_t)a->off :
		       va(v->reg[a->base]) + (uint64_t)a->off;
	struct outcome o;
	int fd;

	fprintf(stderr, "case: %s\n", a->what);
	outcome_init(&o);
	refused(&o, 0);
	fd = hostile_accepted(v);
	ASSERT_OK(hp_send_rtu(fd));
	sdt_expect_conn(v->conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	victim_requests(v, fd);
	/* The peer's first request: tag 0 where a tag belongs. */
	frame_full(fd, hp_hdr(a->op, atomic ? SD_ATOMIC_ARGS : a->len,
			      ctx_of(v, a->ctx), addr,
			      read || atomic ? 0 : SD_TAG_NONE));
	check_outcome(v, fd, &c, &o);
}

TEST_IMPL(provider_hostile_access)
{
	struct victim v;
	size_t i;

	v_setup(&v);
	for (i = 0; i < ARRAY_SIZE(acases); i++)
		run_access(&v, &acases[i]);
	v_teardown(&v);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Limits: the edges are exact, the read depth holds                   */

/*
 * The other half of WRITE-6, as a control: a WRITE of the whole region
 * and one of an RMR's whole window are placed; a zero-length WRITE with
 * an unknown context and a wild address is executed and checks nothing
 * (as on IB; mem.c sd_mem_resolve_remote); READs of the whole region and
 * of a read window return their bytes. Then a WRITE of 2 bytes at the
 * region's last byte is refused, naming request 5.
 */
static void c_edges(struct victim *v, int fd, struct outcome *o)
{
	static uint8_t got[END_RW];
	char *b = v->reg[R_RW];
	struct sd_hdr h;

	frame_full(fd, hp_hdr(SD_OP_WRITE, END_RW, v->rctx[R_RW], va(b), SD_TAG_NONE));
	expect_bytes(v, b, pay, END_RW);
	frame(fd, hp_hdr(SD_OP_WRITE, W_LEN, v->ctx_w, va(b + W_WRITE), SD_TAG_NONE),
	      W_LEN);
	expect_bytes(v, b + W_WRITE, pay, W_LEN);
	frame(fd, hp_hdr(SD_OP_WRITE, 0, v->ctx_unknown, 0xdead0000beefull,
			 SD_TAG_NONE), 0);
	frame(fd, hp_hdr(SD_OP_READ_REQ, END_RW, v->rctx[R_RW], va(b), 3), 0);
	ASSERT_EQ(next_frame(fd, &h, got, sizeof(got)), END_RW);
	ASSERT_EQ(h.op, SD_OP_READ_RESP);
	ASSERT_EQ(h.tag, 3);
	ASSERT_MEM_EQ(got, v->shadow + (b - v->arena), END_RW);
	frame(fd, hp_hdr(SD_OP_READ_REQ, W_LEN, v->ctx_r, va(b + W_READ), 4), 0);
	ASSERT_EQ(next_frame(fd, &h, got, sizeof(got)), W_LEN);
	ASSERT_EQ(h.op, SD_OP_READ_RESP);
	ASSERT_EQ(h.tag, 4);
	ASSERT_MEM_EQ(got, v->shadow + (b + W_READ - v->arena), W_LEN);
	frame_full(fd, hp_hdr(SD_OP_WRITE, 2, v->rctx[R_RW], va(b + END_RW - 1),
			      SD_TAG_NONE));
	refused(o, 5);
}

/*
 * Read depth (PROTOCOL.md "Read depth"): RD_IN READs at once are served
 * in order; RD_IN + 1 at once (in one segment, so that the victim has
 * them all before it answers any) is TERMINATE(protocol).
 */
static void c_read_depth(struct victim *v, int fd, struct outcome *o)
{
	uint8_t b[3 * SD_HDR_SIZE], got[64];
	char *r = v->reg[R_RW];
	struct sd_hdr h;
	uint32_t i;

	put_hdr(b, hp_hdr(SD_OP_READ_REQ, 64, v->rctx[R_RW], va(r + 128), 0));
	put_hdr(b + SD_HDR_SIZE, hp_hdr(SD_OP_READ_REQ, 64, v->ctx_r,
					va(r + W_READ + 64), 1));
	ASSERT_OK(hp_send(fd, b, 2 * SD_HDR_SIZE));
	ASSERT_EQ(next_frame(fd, &h, got, sizeof(got)), 64);
	ASSERT_EQ(h.tag, 0);
	ASSERT_MEM_EQ(got, v->shadow + (r + 128 - v->arena), 64);
	ASSERT_EQ(next_frame(fd, &h, got, sizeof(got)), 64);
	ASSERT_EQ(h.tag, 1);
	ASSERT_MEM_EQ(got, v->shadow + (r + W_READ + 64 - v->arena), 64);
	for (i = 0; i < 3; i++)
		put_hdr(b + i * SD_HDR_SIZE, hp_hdr(SD_OP_READ_REQ, 64,
						    v->rctx[R_RW], va(r), 2 + i));
	ASSERT_OK(hp_send(fd, b, sizeof(b)));
	(void)o;
}

/*
 * Atomics count against the read depth too: two FETCH_ADDs at once are
 * executed and answered with the word's old values; of three at once,
 * the first two are executed and the third is TERMINATE(protocol)
 * without touching the word.
 */
static void c_atomic_depth(struct victim *v, int fd, struct outcome *o)
{
	uint8_t b[3 * (SD_HDR_SIZE + SD_ATOMIC_ARGS)], got[8];
	const uint64_t add[5] = { 1, 0x100, 0x10000, 0x1000000, 0x100000000ull };
	char *w = v->reg[R_RW] + 64;
	size_t per = SD_HDR_SIZE + SD_ATOMIC_ARGS;
	struct sd_hdr h;
	uint64_t word;
	uint32_t i;

	memcpy(&word, v->shadow + (w - v->arena), sizeof(word));
	for (i = 0; i < 2; i++) {
		put_hdr(b + i * per, hp_hdr(SD_OP_FETCH_ADD, SD_ATOMIC_ARGS,
					    v->rctx[R_RW], va(w), i));
		sd_put64(b + i * per + SD_HDR_SIZE, add[i]);
		sd_put64(b + i * per + SD_HDR_SIZE + 8, 0);
	}
	ASSERT_OK(hp_send(fd, b, 2 * per));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(next_frame(fd, &h, got, sizeof(got)), 8);
		ASSERT_EQ(h.op, SD_OP_ATOMIC_RESP);
		ASSERT_EQ(h.tag, i);
		ASSERT_UINT64_EQ(sd_get64(got), word);
		word += add[i];
	}
	for (i = 0; i < 3; i++) {
		put_hdr(b + i * per, hp_hdr(SD_OP_FETCH_ADD, SD_ATOMIC_ARGS,
					    v->rctx[R_RW], va(w), 2 + i));
		sd_put64(b + i * per + SD_HDR_SIZE, add[2 + i]);
		sd_put64(b + i * per + SD_HDR_SIZE + 8, 0);
	}
	ASSERT_OK(hp_send(fd, b, sizeof(b)));
	word += add[2] + add[3];
	expect_bytes(v, w, &word, sizeof(word));
	(void)o;
}

static const struct fcase limit_cases[] = {
	{ "control: WRITEs and READs of exactly the region and a window, a "
	  "zero-length WRITE anywhere; then a WRITE past the end", true, c_edges },
	{ "READs beyond the negotiated depth (rd_in + 1 at once)", false, c_read_depth },
	{ "atomics beyond the negotiated depth (rd_in + 1 at once)", false,
	  c_atomic_depth },
};

TEST_IMPL(provider_hostile_limits)
{
	struct victim v;

	v_setup(&v);
	run_fcases(&v, limit_cases, ARRAY_SIZE(limit_cases));
	v_teardown(&v);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Lengths that lie (PROTOCOL.md "Checks")                             */

/*
 * RECV-5: a SEND longer than the receive: that receive completes
 * DAT_DTO_LENGTH_ERROR, TERMINATE(length) names the SEND, nothing is
 * placed.
 */
static void c_send_too_long(struct victim *v, int fd, struct outcome *o)
{
	frame_full(fd, hp_hdr(SD_OP_SEND, RECV_LEN + 1, 0, 0, SD_TAG_NONE));
	o->term = SD_TERM_LENGTH;
	o->tag = 0;
	o->recv[0] = DAT_DTO_LENGTH_ERROR;
	(void)v;
}

/* Above the 2 GiB the ACCEPT announced: protocol, nothing placed. */
static void c_send_huge(struct victim *v, int fd, struct outcome *o)
{
	frame(fd, hp_hdr(SD_OP_SEND, 0x80000001u, 0, 0, SD_TAG_NONE), 64);
	(void)v, (void)o;
}

static void c_send_ones(struct victim *v, int fd, struct outcome *o)
{
	frame(fd, hp_hdr(SD_OP_SEND_SE, 0xffffffffu, 0, 0, SD_TAG_NONE), 64);
	(void)v, (void)o;
}

static void c_write_huge(struct victim *v, int fd, struct outcome *o)
{
	frame(fd, hp_hdr(SD_OP_WRITE, 0x80000001u, v->rctx[R_RW],
			 va(v->reg[R_RW]), SD_TAG_NONE), 64);
	(void)o;
}

static void c_write_imm_ones(struct victim *v, int fd, struct outcome *o)
{
	frame(fd, hp_hdr(SD_OP_WRITE_IMM, 0xffffffffu, v->rctx[R_RW],
			 va(v->reg[R_RW]), SD_TAG_NONE), 64);
	(void)o;
}

static void c_read_huge(struct victim *v, int fd, struct outcome *o)
{
	frame(fd, hp_hdr(SD_OP_READ_REQ, 0x80000001u, v->rctx[R_RW],
			 va(v->reg[R_RW]), 0), 0);
	(void)o;
}

/* Atomics carry exactly 16 bytes of operands. */
static void c_atomic_short(struct victim *v, int fd, struct outcome *o)
{
	frame(fd, hp_hdr(SD_OP_FETCH_ADD, 8, v->rctx[R_RW], va(v->reg[R_RW]), 0), 8);
	(void)o;
}

static void c_atomic_long(struct victim *v, int fd, struct outcome *o)
{
	frame(fd, hp_hdr(SD_OP_CMP_SWAP, 32, v->rctx[R_RW], va(v->reg[R_RW]), 0), 32);
	(void)o;
}

/* ACK, DISCONNECT and TERMINATE carry len 0. */
static void c_ack_len(struct victim *v, int fd, struct outcome *o)
{
	frame(fd, hp_hdr(SD_OP_ACK, 8, 0, 0, SD_TAG_NONE), 0);
	(void)v, (void)o;
}

static void c_disconnect_len(struct victim *v, int fd, struct outcome *o)
{
	frame(fd, hp_hdr(SD_OP_DISCONNECT, 1, 0, 0, SD_TAG_NONE), 0);
	(void)v, (void)o;
}

static void c_terminate_len(struct victim *v, int fd, struct outcome *o)
{
	struct sd_hdr h = hp_hdr(SD_OP_TERMINATE, 4, 0, 0, SD_TAG_NONE);

	h.code = SD_TERM_PROTOCOL;
	frame(fd, h, 0);
	(void)v, (void)o;
}

/*
 * A SEND announcing 100 bytes followed by 300: the message is the 100
 * (the first receive completes with them), and what follows is read as
 * the next header, whose opcode (pay[100]) is not one: protocol.
 */
static void c_send_len_short(struct victim *v, int fd, struct outcome *o)
{
	ASSERT_GT(pay[100], SD_OP_MAX);
	frame(fd, hp_hdr(SD_OP_SEND, 100, 0, 0, SD_TAG_NONE), 300);
	expect_bytes(v, v->reg[R_RECV], pay, 100);
	o->recv[0] = DAT_DTO_SUCCESS;
}

static const struct fcase length_cases[] = {
	{ "SEND longer than the receive (RECV-5)", true, c_send_too_long },
	{ "SEND of len 2^31 + 1, above max_message_size", true, c_send_huge },
	{ "SEND_SE of len 0xffffffff", true, c_send_ones },
	{ "WRITE of len 2^31 + 1, above max_rdma_size", true, c_write_huge },
	{ "WRITE_IMM of len 0xffffffff", true, c_write_imm_ones },
	{ "READ of len 2^31 + 1, above max_rdma_size", true, c_read_huge },
	{ "FETCH_ADD with 8 bytes of operands", true, c_atomic_short },
	{ "CMP_SWAP with 32 bytes of operands", true, c_atomic_long },
	{ "ACK with a length", true, c_ack_len },
	{ "DISCONNECT with a length", true, c_disconnect_len },
	{ "TERMINATE with a length", true, c_terminate_len },
	{ "SEND whose len is shorter than what follows", true, c_send_len_short },
};

TEST_IMPL(provider_hostile_lengths)
{
	struct victim v;

	v_setup(&v);
	run_fcases(&v, length_cases, ARRAY_SIZE(length_cases));
	v_teardown(&v);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Streams cut short (PROTOCOL.md "Disconnect and flush")              */

/*
 * EOF inside a frame is BROKEN, and the victim has nothing to say (no
 * TERMINATE); what arrived of a payload before it is where it was
 * granted to go.
 */
static void cut(int fd, struct sd_hdr h, size_t hdr_bytes, size_t payload,
		struct outcome *o)
{
	uint8_t b[SD_HDR_SIZE];

	if (hdr_bytes < SD_HDR_SIZE) {
		put_hdr(b, h);
		ASSERT_OK(hp_send(fd, b, hdr_bytes));
	} else {
		frame(fd, h, payload);
	}
	peer_shut(fd);
	o->term = 0;
}

static void c_cut_header10(struct victim *v, int fd, struct outcome *o)
{
	cut(fd, hp_hdr(SD_OP_WRITE, 64, v->rctx[R_RW], va(v->reg[R_RW]), SD_TAG_NONE),
	    10, 0, o);
}

static void c_cut_header31(struct victim *v, int fd, struct outcome *o)
{
	cut(fd, hp_hdr(SD_OP_SEND, 64, 0, 0, SD_TAG_NONE), 31, 0, o);
	(void)v;
}

static void c_cut_send(struct victim *v, int fd, struct outcome *o)
{
	cut(fd, hp_hdr(SD_OP_SEND, 200, 0, 0, SD_TAG_NONE), SD_HDR_SIZE, 100, o);
	expect_bytes(v, v->reg[R_RECV], pay, 100);
}

static void c_cut_write(struct victim *v, int fd, struct outcome *o)
{
	cut(fd, hp_hdr(SD_OP_WRITE, 4096, v->rctx[R_RW], va(v->reg[R_RW] + 512),
		       SD_TAG_NONE), SD_HDR_SIZE, 1000, o);
	expect_bytes(v, v->reg[R_RW] + 512, pay, 1000);
}

static void c_cut_read_resp(struct victim *v, int fd, struct outcome *o)
{
	cut(fd, hp_hdr(SD_OP_READ_RESP, READ_LEN, 0, 0, 1), SD_HDR_SIZE, 20, o);
	expect_bytes(v, v->reg[R_OWN] + READ_OFF, pay, 20);
}

static void c_cut_atomic(struct victim *v, int fd, struct outcome *o)
{
	cut(fd, hp_hdr(SD_OP_FETCH_ADD, SD_ATOMIC_ARGS, v->rctx[R_RW],
		       va(v->reg[R_RW]), 0), SD_HDR_SIZE, 8, o);
}

/* EOF between frames is the peer closing: DISCONNECTED, not BROKEN. */
static void c_cut_between(struct victim *v, int fd, struct outcome *o)
{
	cut(fd, hp_hdr(SD_OP_WRITE, 64, v->rctx[R_RW], va(v->reg[R_RW] + 2048),
		       SD_TAG_NONE), SD_HDR_SIZE, 64, o);
	expect_bytes(v, v->reg[R_RW] + 2048, pay, 64);
	o->conn = DAT_CONNECTION_EVENT_DISCONNECTED;
}

/* A reset, wherever it comes, is the peer closing: DISCONNECTED. */
static void c_reset_mid_frame(struct victim *v, int fd, struct outcome *o)
{
	struct linger l = { 1, 0 };
	uint8_t b[SD_HDR_SIZE];

	put_hdr(b, hp_hdr(SD_OP_SEND, 64, 0, 0, SD_TAG_NONE));
	ASSERT_OK(hp_send(fd, b, 10));
	ASSERT_OK(setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l)));
	close(fd);
	o->closed = true;
	o->term = 0;
	o->conn = DAT_CONNECTION_EVENT_DISCONNECTED;
	(void)v;
}

static const struct fcase cut_cases[] = {
	{ "closed after 10 bytes of a header", true, c_cut_header10 },
	{ "closed after 31 bytes of a header", true, c_cut_header31 },
	{ "closed after 100 of a SEND's 200 bytes", true, c_cut_send },
	{ "WRITE announcing 4096 bytes, closed after 1000", true, c_cut_write },
	{ "READ_RESP closed after 20 of its 64 bytes", true, c_cut_read_resp },
	{ "FETCH_ADD closed after 8 of its 16 bytes of operands", true, c_cut_atomic },
	{ "closed between frames, without DISCONNECT", true, c_cut_between },
	{ "reset inside a header", true, c_reset_mid_frame },
};

TEST_IMPL(provider_hostile_truncated)
{
	struct victim v;

	v_setup(&v);
	run_fcases(&v, cut_cases, ARRAY_SIZE(cut_cases));
	v_teardown(&v);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Opcodes, flags, reserved bytes, TERMINATE and DISCONNECT            */

static void c_op(int fd, uint8_t op)
{
	frame(fd, hp_hdr(op, 0, 0, 0, SD_TAG_NONE), 0);
}

static void c_op0(struct victim *v, int fd, struct outcome *o)
{
	c_op(fd, 0);
	(void)v, (void)o;
}

static void c_op16(struct victim *v, int fd, struct outcome *o)
{
	c_op(fd, SD_OP_MAX + 1);
	(void)v, (void)o;
}

static void c_op255(struct victim *v, int fd, struct outcome *o)
{
	c_op(fd, 0xff);
	(void)v, (void)o;
}

/* A granted WRITE of 64 bytes at R_RW + 3072 with header byte @i = @val. */
static void write_with_byte(struct victim *v, int fd, int i, uint8_t val)
{
	uint8_t b[SD_HDR_SIZE + 64];

	put_hdr(b, hp_hdr(SD_OP_WRITE, 64, v->rctx[R_RW],
			  va(v->reg[R_RW] + 3072), SD_TAG_NONE));
	b[i] = val;
	memcpy(b + SD_HDR_SIZE, pay, 64);
	ASSERT_OK(hp_send(fd, b, sizeof(b)));
}

static void c_flags_write(struct victim *v, int fd, struct outcome *o)
{
	write_with_byte(v, fd, 1, 0x80);
	(void)o;
}

static void c_reserved2(struct victim *v, int fd, struct outcome *o)
{
	write_with_byte(v, fd, 2, 1);
	(void)o;
}

static void c_reserved3(struct victim *v, int fd, struct outcome *o)
{
	write_with_byte(v, fd, 3, 0x40);
	(void)o;
}

static void c_flags_send(struct victim *v, int fd, struct outcome *o)
{
	struct sd_hdr h = hp_hdr(SD_OP_SEND, 16, 0, 0, SD_TAG_NONE);

	h.flags = 1;
	frame_full(fd, h);
	(void)v, (void)o;
}

/* A TERMINATE of a code that is not one is itself a protocol error. */
static void term(int fd, uint32_t code, uint32_t tag)
{
	struct sd_hdr h = hp_hdr(SD_OP_TERMINATE, 0, 0, 0, tag);

	h.code = code;
	frame(fd, h, 0);
}

static void c_term_code0(struct victim *v, int fd, struct outcome *o)
{
	term(fd, 0, SD_TAG_NONE);
	(void)v, (void)o;
}

static void c_term_code4(struct victim *v, int fd, struct outcome *o)
{
	term(fd, SD_TERM_MAX + 1, 0);
	(void)v, (void)o;
}

/*
 * The peer's TERMINATE naming the victim's request: that request
 * completes with the code's status (PROTOCOL.md "Errors"), the rest is
 * flushed, and the victim answers nothing.
 */
static void c_peer_term_access(struct victim *v, int fd, struct outcome *o)
{
	term(fd, SD_TERM_REMOTE_ACCESS, 0);
	o->term = 0;
	o->send = DAT_DTO_ERR_REMOTE_ACCESS;
	(void)v;
}

static void c_peer_term_length(struct victim *v, int fd, struct outcome *o)
{
	term(fd, SD_TERM_LENGTH, 0);
	o->term = 0;
	o->send = DAT_DTO_ERR_REMOTE_RESPONDER;
	(void)v;
}

static void c_peer_term_protocol(struct victim *v, int fd, struct outcome *o)
{
	term(fd, SD_TERM_PROTOCOL, 1);
	o->term = 0;
	o->read = DAT_DTO_ERR_BAD_RESPONSE;
	(void)v;
}

static void c_peer_term_nothing(struct victim *v, int fd, struct outcome *o)
{
	term(fd, SD_TERM_REMOTE_ACCESS, 77);
	o->term = 0;
	(void)v;
}

/* An orderly end: the victim answers DISCONNECT; DISCONNECTED, flushed. */
static void c_disconnect(struct victim *v, int fd, struct outcome *o)
{
	frame(fd, hp_hdr(SD_OP_DISCONNECT, 0, 0, 0, SD_TAG_NONE), 0);
	o->term = 0;
	o->disconnect = true;
	o->conn = DAT_CONNECTION_EVENT_DISCONNECTED;
	(void)v;
}

/*
 * Nothing is placed after the end, even when it came in the same
 * segment: a granted WRITE behind a DISCONNECT, or behind a TERMINATE.
 */
static void after_end(struct victim *v, int fd, struct sd_hdr end)
{
	uint8_t b[2 * SD_HDR_SIZE + 64];

	put_hdr(b, end);
	put_hdr(b + SD_HDR_SIZE, hp_hdr(SD_OP_WRITE, 64, v->rctx[R_RW],
					va(v->reg[R_RW] + 3072), SD_TAG_NONE));
	memcpy(b + 2 * SD_HDR_SIZE, pay + 1, 64);
	ASSERT_OK(hp_send(fd, b, sizeof(b)));
}

static void c_after_disconnect(struct victim *v, int fd, struct outcome *o)
{
	after_end(v, fd, hp_hdr(SD_OP_DISCONNECT, 0, 0, 0, SD_TAG_NONE));
	o->term = 0;
	o->disconnect = true;
	o->conn = DAT_CONNECTION_EVENT_DISCONNECTED;
}

static void c_after_terminate(struct victim *v, int fd, struct outcome *o)
{
	struct sd_hdr t = hp_hdr(SD_OP_TERMINATE, 0, 0, 0, SD_TAG_NONE);

	t.code = SD_TERM_PROTOCOL;
	after_end(v, fd, t);
	o->term = 0;
}

static const struct fcase op_cases[] = {
	{ "opcode 0", true, c_op0 },
	{ "opcode 16 (SD_OP_MAX + 1)", true, c_op16 },
	{ "opcode 255", true, c_op255 },
	{ "flags 0x80 on a granted WRITE", true, c_flags_write },
	{ "reserved byte 2 set on a granted WRITE", true, c_reserved2 },
	{ "reserved byte 3 set on a granted WRITE", true, c_reserved3 },
	{ "flags 1 on a SEND", true, c_flags_send },
	{ "TERMINATE with code 0", true, c_term_code0 },
	{ "TERMINATE with code 4 (above the last)", true, c_term_code4 },
	{ "peer's TERMINATE(remote access) naming the victim's SEND", true,
	  c_peer_term_access },
	{ "peer's TERMINATE(length) naming the victim's SEND", true, c_peer_term_length },
	{ "peer's TERMINATE(protocol) naming the victim's READ", true,
	  c_peer_term_protocol },
	{ "peer's TERMINATE naming no request of the victim's", true,
	  c_peer_term_nothing },
	{ "control: DISCONNECT", true, c_disconnect },
	{ "a granted WRITE behind a DISCONNECT, in the same segment", true,
	  c_after_disconnect },
	{ "a granted WRITE behind a TERMINATE, in the same segment", true,
	  c_after_terminate },
};

TEST_IMPL(provider_hostile_opcodes)
{
	struct victim v;

	v_setup(&v);
	run_fcases(&v, op_cases, ARRAY_SIZE(op_cases));
	v_teardown(&v);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Acks of requests never sent, responses to requests never made       */

/* An ACK frame acknowledging @ack requests of the victim's. */
static void ack(int fd, uint32_t n)
{
	struct sd_hdr h = hp_hdr(SD_OP_ACK, 0, 0, 0, SD_TAG_NONE);

	h.ack = n;
	frame(fd, h, 0);
}

/* The victim sent 2 requests: an ack of 3 is a protocol error. */
static void c_ack_beyond(struct victim *v, int fd, struct outcome *o)
{
	ack(fd, 3);
	(void)v, (void)o;
}

static void c_ack_ones(struct victim *v, int fd, struct outcome *o)
{
	ack(fd, 0xffffffffu);
	(void)v, (void)o;
}

static void c_ack_nothing_sent(struct victim *v, int fd, struct outcome *o)
{
	ack(fd, 1);
	(void)v, (void)o;
}

/* An ack of 1 completes the SEND; going back to 0 then is refused. */
static void c_ack_backwards(struct victim *v, int fd, struct outcome *o)
{
	ack(fd, 1);
	sdt_expect_dto(v->req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, SEND_COOKIE);
	ack(fd, 0);
	o->send_seen = true;
}

/* The ack is checked before the frame carrying it is acted on. */
static void c_ack_on_write(struct victim *v, int fd, struct outcome *o)
{
	struct sd_hdr h = hp_hdr(SD_OP_WRITE, 64, v->rctx[R_RW],
				 va(v->reg[R_RW] + 3072), SD_TAG_NONE);

	h.ack = 5;
	frame_full(fd, h);
	(void)o;
}

/*
 * An ack covering the READ does not complete it: only its response
 * would. The SEND completes; the READ is flushed at the DISCONNECT.
 */
static void c_ack_read(struct victim *v, int fd, struct outcome *o)
{
	struct sd_hdr d = hp_hdr(SD_OP_DISCONNECT, 0, 0, 0, SD_TAG_NONE);

	ack(fd, 2);
	sdt_expect_dto(v->req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, SEND_COOKIE);
	d.ack = 2;	/* every frame carries the ack, which never goes back */
	frame(fd, d, 0);
	o->term = 0;
	o->disconnect = true;
	o->conn = DAT_CONNECTION_EVENT_DISCONNECTED;
	o->send_seen = true;
}

static void c_resp_nothing(struct victim *v, int fd, struct outcome *o)
{
	frame(fd, hp_hdr(SD_OP_READ_RESP, READ_LEN, 0, 0, 1), READ_LEN);
	(void)v, (void)o;
}

static void c_atomic_resp_nothing(struct victim *v, int fd, struct outcome *o)
{
	frame(fd, hp_hdr(SD_OP_ATOMIC_RESP, SD_ATOMIC_SIZE, 0, 0, 0), SD_ATOMIC_SIZE);
	(void)v, (void)o;
}

/* The READ outstanding is request 1, of 64 bytes. */
static void c_resp_wrong_tag(struct victim *v, int fd, struct outcome *o)
{
	frame(fd, hp_hdr(SD_OP_READ_RESP, READ_LEN, 0, 0, 0), READ_LEN);
	(void)v, (void)o;
}

static void c_resp_long(struct victim *v, int fd, struct outcome *o)
{
	frame(fd, hp_hdr(SD_OP_READ_RESP, READ_LEN + 1, 0, 0, 1), READ_LEN + 1);
	(void)v, (void)o;
}

static void c_resp_short(struct victim *v, int fd, struct outcome *o)
{
	frame(fd, hp_hdr(SD_OP_READ_RESP, READ_LEN - 1, 0, 0, 1), READ_LEN - 1);
	(void)v, (void)o;
}

static void c_resp_huge(struct victim *v, int fd, struct outcome *o)
{
	frame(fd, hp_hdr(SD_OP_READ_RESP, 0x80000000u, 0, 0, 1), 4096);
	(void)v, (void)o;
}

static void c_atomic_resp_for_read(struct victim *v, int fd, struct outcome *o)
{
	frame(fd, hp_hdr(SD_OP_ATOMIC_RESP, SD_ATOMIC_SIZE, 0, 0, 1), SD_ATOMIC_SIZE);
	(void)v, (void)o;
}

/*
 * The READ answered (its bytes placed; it waits behind the unacked SEND
 * to complete), then answered again: protocol. The SEND is flushed, the
 * READ completes as it was answered.
 */
static void c_resp_twice(struct victim *v, int fd, struct outcome *o)
{
	frame(fd, hp_hdr(SD_OP_READ_RESP, READ_LEN, 0, 0, 1), READ_LEN);
	expect_bytes(v, v->reg[R_OWN] + READ_OFF, pay, READ_LEN);
	frame(fd, hp_hdr(SD_OP_READ_RESP, READ_LEN, 0, 0, 1), READ_LEN);
	o->read = DAT_DTO_SUCCESS;
}

static const struct fcase ack_cases[] = {
	{ "ACK of 3 requests when the victim sent 2", true, c_ack_beyond },
	{ "ACK of 0xffffffff requests", true, c_ack_ones },
	{ "ACK of 1 request when the victim sent none", false, c_ack_nothing_sent },
	{ "acks going backwards (1, then 0)", true, c_ack_backwards },
	{ "a granted WRITE carrying an ack of 5 when 2 were sent", true,
	  c_ack_on_write },
	{ "control: an ack covering the READ, then DISCONNECT", true, c_ack_read },
	{ "READ_RESP when no READ is outstanding", false, c_resp_nothing },
	{ "ATOMIC_RESP when no atomic is outstanding", false, c_atomic_resp_nothing },
	{ "READ_RESP with the wrong tag", true, c_resp_wrong_tag },
	{ "READ_RESP one byte longer than the READ", true, c_resp_long },
	{ "READ_RESP one byte shorter than the READ", true, c_resp_short },
	{ "READ_RESP of len 2^31", true, c_resp_huge },
	{ "ATOMIC_RESP answering a READ", true, c_atomic_resp_for_read },
	{ "a second READ_RESP for an answered READ", true, c_resp_twice },
};

TEST_IMPL(provider_hostile_acks)
{
	struct victim v;

	v_setup(&v);
	run_fcases(&v, ack_cases, ARRAY_SIZE(ack_cases));
	v_teardown(&v);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The handshake (PROTOCOL.md "The handshake", "Checks")               */

/* A raw connection to the victim's PSP, nothing sent yet. */
static int hostile_connect(struct victim *v)
{
	int fd = hp_connect((struct sockaddr *)&v->addr, addr_len(&v->addr));

	ASSERT_GE(fd, 0);
	return fd;
}

/*
 * The victim answers REJECT(@reason) without private data and ends the
 * stream (it half-closes and drains what the peer still sends).
 */
static void expect_reject(int fd, uint8_t reason)
{
	struct sd_cm_msg m;

	ASSERT_OK(hp_recv_cm(fd, &m, NULL, TMO));
	ASSERT_EQ(m.type, SD_CM_REJECT);
	ASSERT_EQ(m.reason, reason);
	ASSERT_EQ(m.pdata_len, 0);
	ASSERT_EQ(hp_wait_eof(fd, TMO), 0);
}

/* A HELLO with one thing wrong: the REJECT expected, no CR made. */
struct hcase {
	const char	*what;
	uint32_t	magic;
	uint16_t	version;
	uint8_t		type;
	uint16_t	pdata_len;	/* what the header says */
	uint16_t	sent;		/* private data bytes that follow */
	uint64_t	qual_delta;	/* added to the PSP's port */
	uint8_t		reason;
};

#define MAGIC	SD_PROTO_MAGIC
#define VER	SD_PROTO_VERSION
#define HELLO	SD_CM_HELLO

static const struct hcase hcases[] = {
	{ "magic SDPM", 0x4d504453, VER, HELLO, 0, 0, 0, SD_REJ_PROTOCOL },
	{ "magic byte-swapped", 0x5344504c, VER, HELLO, 0, 0, 0, SD_REJ_PROTOCOL },
	{ "magic 0", 0, VER, HELLO, 0, 0, 0, SD_REJ_PROTOCOL },
	{ "version 0", MAGIC, 0, HELLO, 0, 0, 0, SD_REJ_PROTOCOL },
	{ "version 2", MAGIC, 2, HELLO, 0, 0, 0, SD_REJ_PROTOCOL },
	{ "version 0xffff", MAGIC, 0xffff, HELLO, 0, 0, 0, SD_REJ_PROTOCOL },
	{ "type 0", MAGIC, VER, 0, 0, 0, 0, SD_REJ_PROTOCOL },
	{ "type ACCEPT first", MAGIC, VER, SD_CM_ACCEPT, 0, 0, 0, SD_REJ_PROTOCOL },
	{ "type REJECT first", MAGIC, VER, SD_CM_REJECT, 0, 0, 0, SD_REJ_PROTOCOL },
	{ "type RTU first", MAGIC, VER, SD_CM_RTU, 0, 0, 0, SD_REJ_PROTOCOL },
	{ "type 5", MAGIC, VER, 5, 0, 0, 0, SD_REJ_PROTOCOL },
	{ "type 255", MAGIC, VER, 255, 0, 0, 0, SD_REJ_PROTOCOL },
	{ "private data of 1025 bytes (one above the maximum), all sent",
	  MAGIC, VER, HELLO, SD_PROTO_MAX_PDATA + 1, SD_PROTO_MAX_PDATA + 1, 0,
	  SD_REJ_PROTOCOL },
	{ "private data length 65535, 1024 bytes sent",
	  MAGIC, VER, HELLO, 0xffff, SD_PROTO_MAX_PDATA, 0, SD_REJ_PROTOCOL },
	{ "conn_qual of another port", MAGIC, VER, HELLO, 0, 0, 1, SD_REJ_NO_SP },
	{ "conn_qual of this port plus 2^32", MAGIC, VER, HELLO, 0, 0,
	  1ull << 32, SD_REJ_NO_SP },
};

TEST_IMPL(provider_hostile_handshake)
{
	static const char http[] = "GET / HTTP/1.1\r\nHost: softdapl\r\n"
				   "Accept: */*\r\n\r\n";
	uint8_t junk[SD_CM_MSG_SIZE], got[SD_PROTO_MAX_PDATA];
	struct sd_cm_msg m;
	struct victim v;
	DAT_CR_PARAM crp;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;
	size_t i;
	int fd;

	v_setup(&v);
	for (i = 0; i < ARRAY_SIZE(hcases); i++) {
		const struct hcase *h = &hcases[i];

		fprintf(stderr, "case: %s\n", h->what);
		fd = hostile_connect(&v);
		hp_hello(&m, v.port + h->qual_delta);
		m.magic = h->magic;
		m.version = h->version;
		m.type = h->type;
		m.pdata_len = h->pdata_len;
		ASSERT_OK(hp_send_cm(fd, &m, pay, h->sent));
		expect_reject(fd, h->reason);
		close(fd);
	}

	/* Not a handshake at all: 40 bytes of 0xff, of 0, an HTTP request. */
	fprintf(stderr, "case: 40 bytes of 0xff, 40 of 0, an HTTP request\n");
	memset(junk, 0xff, sizeof(junk));
	fd = hostile_connect(&v);
	ASSERT_OK(hp_send(fd, junk, sizeof(junk)));
	expect_reject(fd, SD_REJ_PROTOCOL);
	close(fd);
	memset(junk, 0, sizeof(junk));
	fd = hostile_connect(&v);
	ASSERT_OK(hp_send(fd, junk, sizeof(junk)));
	expect_reject(fd, SD_REJ_PROTOCOL);
	close(fd);
	fd = hostile_connect(&v);
	ASSERT_GE(sizeof(http) - 1, SD_CM_MSG_SIZE);
	ASSERT_OK(hp_send(fd, http, sizeof(http) - 1));
	expect_reject(fd, SD_REJ_PROTOCOL);
	close(fd);

	/* None of it reached the consumer. */
	sdt_expect_none(v.cr_evd, 50);

	/*
	 * Control: private data of exactly 1024 bytes reaches the consumer
	 * whole, and so does the consumer's 1024-byte answer.
	 */
	fprintf(stderr, "case: control: 1024 bytes of private data each way\n");
	fd = hostile_connect(&v);
	hp_hello(&m, v.port);
	m.pdata_len = SD_PROTO_MAX_PDATA;
	ASSERT_OK(hp_send_cm(fd, &m, pay, SD_PROTO_MAX_PDATA));
	cr = sdt_expect_cr(v.cr_evd, NULL);
	ASSERT_OK(dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp));
	ASSERT_EQ(crp.private_data_size, SD_PROTO_MAX_PDATA);
	ASSERT_MEM_EQ(crp.private_data, pay, SD_PROTO_MAX_PDATA);
	ASSERT_OK(dat_cr_reject(cr, SD_PROTO_MAX_PDATA, pay + 1));
	ASSERT_OK(hp_recv_cm(fd, &m, got, TMO));
	ASSERT_EQ(m.type, SD_CM_REJECT);
	ASSERT_EQ(m.reason, SD_REJ_CONSUMER);
	ASSERT_EQ(m.pdata_len, SD_PROTO_MAX_PDATA);
	ASSERT_MEM_EQ(got, pay + 1, SD_PROTO_MAX_PDATA);
	ASSERT_EQ(hp_wait_eof(fd, TMO), 0);
	close(fd);

	ASSERT(!sdt_poll(v.cr_evd, &ev));
	check_memory(&v, "handshake");
	wait_traffic(&v, 2);
	v_teardown(&v);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Handshakes that never complete (PROTOCOL.md "Timeouts")             */

/*
 * The victim EP that accepted a requester which then failed it ends
 * with ACCEPT_COMPLETION_ERROR, DISCONNECTED, its receives flushed once.
 */
static void expect_accept_error(struct victim *v)
{
	DAT_EVENT ev;
	int i;

	sdt_expect_conn(v->conn_evd, DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
	ASSERT_EQ(sdt_ep_state(v->ep), DAT_EP_STATE_DISCONNECTED);
	for (i = 0; i < NRECV; i++)
		sdt_expect_dto(v->recv_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_RECEIVE,
			       RECV_COOKIE + (uint64_t)i);
	test_sleep_ms(20);
	ASSERT(!sdt_poll(v->conn_evd, &ev));
	ASSERT(!sdt_poll(v->recv_evd, &ev));
	ASSERT(!sdt_poll(v->req_evd, &ev));
	ASSERT_OK(dat_ep_free(v->ep));
	v->ep = DAT_HANDLE_NULL;
}

TEST_IMPL(provider_hostile_handshake_stall)
{
	struct sd_cm_msg m;
	struct victim v;
	uint8_t b[SD_CM_MSG_SIZE + SD_HDR_SIZE];
	uint64_t t0, t;
	DAT_CR_HANDLE cr;
	int fd[3], held, i, f;

	v_setup(&v);

	/*
	 * A REJECTed requester that never closes its end: the victim's
	 * socket lingers at most 5 s (SD_LINGER_MS), then is closed (seen
	 * at the end, by the count of descriptors).
	 */
	fprintf(stderr, "case: a rejected requester keeps its socket open\n");
	held = hostile_connect(&v);
	hp_hello(&m, v.port);
	m.magic = 0;
	ASSERT_OK(hp_send_cm(held, &m, NULL, 0));
	expect_reject(held, SD_REJ_PROTOCOL);

	/*
	 * Silent requesters: one sends nothing, one 20 bytes of a HELLO, one
	 * a HELLO whose 100 bytes of private data stop after 50. Each is
	 * closed by the victim after the handshake timeout, without an
	 * answer and without a CR.
	 */
	fprintf(stderr, "case: nothing; half a HELLO; half its private data\n");
	t0 = test_now_ms();
	for (i = 0; i < 3; i++)
		fd[i] = hostile_connect(&v);
	hp_hello(&m, v.port);
	sd_cm_pack(&m, b);
	ASSERT_OK(hp_send(fd[1], b, 20));
	m.pdata_len = 100;
	ASSERT_OK(hp_send_cm(fd[2], &m, pay, 50));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(hp_wait_eof(fd[i], v.cm_timeout_ms + TMO), 0);
		t = test_now_ms() - t0;
		ASSERT_GE(t, (uint64_t)v.cm_timeout_ms / 2);
		close(fd[i]);
	}
	sdt_expect_none(v.cr_evd, 0);

	/* Accepted, and the RTU never comes: the timeout ends it. */
	fprintf(stderr, "case: accepted, no RTU\n");
	f = hostile_accepted(&v);
	t0 = test_now_ms();
	expect_accept_error(&v);
	ASSERT_GE(test_now_ms() - t0, (uint64_t)v.cm_timeout_ms / 2);
	ASSERT_EQ(hp_wait_eof(f, TMO), 0);
	close(f);

	/* Accepted, and an RTU with private data comes. */
	fprintf(stderr, "case: accepted, an RTU with private data\n");
	f = hostile_accepted(&v);
	memset(&m, 0, sizeof(m));
	m.magic = MAGIC;
	m.version = VER;
	m.type = SD_CM_RTU;
	m.pdata_len = 4;
	ASSERT_OK(hp_send_cm(f, &m, pay, 4));
	expect_accept_error(&v);
	close(f);

	/* Accepted, and a frame comes instead of the RTU. */
	fprintf(stderr, "case: accepted, a WRITE instead of the RTU\n");
	f = hostile_accepted(&v);
	put_hdr(b, hp_hdr(SD_OP_WRITE, 8, v.rctx[R_RW], va(v.reg[R_RW]), SD_TAG_NONE));
	memcpy(b + SD_HDR_SIZE, pay, 8);
	ASSERT_OK(hp_send(f, b, SD_HDR_SIZE + 8));
	expect_accept_error(&v);
	close(f);

	/* The requester leaves before the consumer decides. */
	fprintf(stderr, "case: the requester leaves before the accept\n");
	f = hostile_connect(&v);
	hp_hello(&m, v.port);
	ASSERT_OK(hp_send_cm(f, &m, NULL, 0));
	cr = sdt_expect_cr(v.cr_evd, NULL);
	close(f);
	test_sleep_ms(50);
	ASSERT_OK(dat_ep_create(v.ia, v.pz, v.recv_evd, v.req_evd, v.conn_evd,
				&victim_attr, &v.ep));
	for (i = 0; i < NRECV; i++) {
		DAT_LMR_TRIPLET tr;

		tr.lmr_context = v.lctx[R_RECV];
		tr.virtual_address = va(v.reg[R_RECV] + i * RECV_STRIDE);
		tr.segment_length = RECV_LEN;
		ASSERT_OK(dat_ep_post_recv(v.ep, 1, &tr, ck(RECV_COOKIE + (uint64_t)i),
					   DAT_COMPLETION_DEFAULT_FLAG));
	}
	ASSERT_OK(dat_cr_accept(cr, v.ep, 0, NULL));
	expect_accept_error(&v);

	check_memory(&v, "handshake stall");
	wait_traffic(&v, 2);
	wait_sockets(&v, 1);	/* the held socket is ours alone now */
	close(held);
	v_teardown(&v);
	return 0;
}

/* ------------------------------------------------------------------ */
/* A flood of connection requests                                      */

enum flood_kind {
	F_SILENT,	/* connects, sends nothing */
	F_HALF,		/* 20 bytes of a HELLO */
	F_FULL,		/* a HELLO: a CR, which the consumer rejects */
	F_GONE,		/* connects and closes at once */
	F_BAD,		/* a HELLO with a bad magic */
	F_LEAVER,	/* a HELLO, then closes before the decision */
	F_KINDS
};

#define FLOOD	300

/* Rejects every CR waiting; notes which flood requester it was. */
static void drain_crs(struct victim *v, bool *seen, int n, int *crs)
{
	DAT_EVENT ev;

	while (sdt_poll(v->cr_evd, &ev)) {
		DAT_CR_HANDLE cr = ev.event_data.cr_arrival_event_data.cr_handle;
		DAT_CR_PARAM p;
		char s[16];
		int i;

		ASSERT_EQ(ev.event_number, DAT_CONNECTION_REQUEST_EVENT);
		ASSERT_OK(dat_cr_query(cr, DAT_CR_FIELD_ALL, &p));
		ASSERT_EQ(p.private_data_size, 10);
		memcpy(s, p.private_data, 10);
		s[10] = '\0';
		ASSERT_EQ(sscanf(s, "flood %d", &i), 1);
		ASSERT(i >= 0 && i < n);
		ASSERT(i % F_KINDS == F_FULL || i % F_KINDS == F_LEAVER);
		ASSERT(!seen[i]);
		seen[i] = true;
		ASSERT_OK(dat_cr_reject(cr, 0, NULL));
		(*crs)++;
	}
}

/* Waits for @fd to be readable, rejecting CRs meanwhile. */
static void readable_draining(struct victim *v, int fd, bool *seen, int n, int *crs)
{
	uint64_t end = test_now_ms() + (uint64_t)(TMO * test_timeout_scale());

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		drain_crs(v, seen, n, crs);
		if (poll(&p, 1, 10) == 1)
			return;
		if (test_now_ms() > end)
			TEST_FAIL("flood: no answer");
	}
}

static const struct fcase after_flood[] = {
	{ "after the flood: a fresh connection is served", true, c_edges },
};

TEST_IMPL(provider_hostile_flood)
{
	static int fd[FLOOD];
	static bool seen[FLOOD];
	int n = FLOOD, i, r, crs = 0, consumer = 0;
	uint64_t t0;
	struct sd_cm_msg m;
	struct rlimit rl;
	unsigned long r0;
	struct victim v;
	uint8_t b[SD_CM_MSG_SIZE];

	v_setup(&v);
	/* Both ends of each connection are this process's. */
	ASSERT_OK(getrlimit(RLIMIT_NOFILE, &rl));
	if (rl.rlim_cur < (rlim_t)(2 * FLOOD + v.socks + 64)) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
		ASSERT_OK(getrlimit(RLIMIT_NOFILE, &rl));
		if (rl.rlim_cur < (rlim_t)(2 * FLOOD + v.socks + 64))
			n = ((int)rl.rlim_cur - v.socks - 64) / 2 / F_KINDS * F_KINDS;
		ASSERT_GE(n, 6 * F_KINDS);
	}
	fprintf(stderr, "flood: %d requesters\n", n);
	r0 = rounds(&v);
	t0 = test_now_ms();
	for (i = 0; i < n; i++) {
		char pd[24];

		fd[i] = hostile_connect(&v);
		hp_hello(&m, v.port);
		switch (i % F_KINDS) {
		case F_HALF:
			sd_cm_pack(&m, b);
			ASSERT_OK(hp_send(fd[i], b, 20));
			break;
		case F_FULL:
		case F_LEAVER:
			snprintf(pd, sizeof(pd), "flood %04d", i);
			m.pdata_len = 10;
			ASSERT_OK(hp_send_cm(fd[i], &m, pd, 10));
			break;
		case F_BAD:
			m.magic = ~m.magic;
			ASSERT_OK(hp_send_cm(fd[i], &m, NULL, 0));
			break;
		default:
			break;
		}
		if (i % F_KINDS == F_GONE || i % F_KINDS == F_LEAVER) {
			close(fd[i]);
			fd[i] = -1;
		}
		if (i % 8 == 7)
			drain_crs(&v, seen, n, &crs);
	}
	/* The good connection goes on meanwhile. */
	wait_traffic(&v, 3);

	/* Each HELLO is answered: rejected by the consumer, or malformed. */
	for (i = 0; i < n; i++) {
		if (i % F_KINDS != F_FULL && i % F_KINDS != F_BAD)
			continue;
		readable_draining(&v, fd[i], seen, n, &crs);
		r = hp_recv_cm(fd[i], &m, NULL, TMO);
		if (r != 0)
			TEST_FAIL("flood: requester %d (kind %d) at %llu ms: %d",
				  i, i % F_KINDS,
				  (unsigned long long)(test_now_ms() - t0), r);
		ASSERT_EQ(m.type, SD_CM_REJECT);
		if (i % F_KINDS == F_BAD) {
			ASSERT_EQ(m.reason, SD_REJ_PROTOCOL);
		} else if (seen[i]) {
			ASSERT_EQ(m.reason, SD_REJ_CONSUMER);
			consumer++;
		} else {
			/* The backlog (the CR EVD) was full: refused. */
			ASSERT_EQ(m.reason, SD_REJ_NO_SP);
		}
		ASSERT_EQ(hp_wait_eof(fd[i], TMO), 0);
		close(fd[i]);
		fd[i] = -1;
	}
	ASSERT_GT(consumer, 0);
	/* The silent ones are closed by the handshake timeout, unanswered. */
	for (i = 0; i < n; i++) {
		if (fd[i] < 0)
			continue;
		ASSERT_EQ(hp_wait_eof(fd[i], v.cm_timeout_ms + TMO), 0);
		close(fd[i]);
	}
	/* Late requests of the leavers; then nothing more comes. */
	test_sleep_ms(50);
	drain_crs(&v, seen, n, &crs);
	fprintf(stderr, "flood: %d requests reached the consumer, %d rejected "
		"by it; %lu rounds of good traffic meanwhile\n", crs, consumer,
		rounds(&v) - r0);
	wait_traffic(&v, 3);
	wait_sockets(&v, 0);

	/* The PSP still serves. */
	run_fcases(&v, after_flood, ARRAY_SIZE(after_flood));
	v_teardown(&v);
	return 0;
}
