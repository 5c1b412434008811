/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Soak: mixed traffic with random abrupt disconnects between a server
 * and a client process over loopback, watching the resident memory and
 * the open file descriptors of both.
 *
 *	soak		hidden, run by `make soak`: SOAK_SECONDS (default
 *			3600), a sample every SOAK_INTERVAL s (default 60)
 *	soak_quick	in make check: 20 s, a sample every 2 s
 *
 * The server (helper soak_server) listens on a PSP. For each connection
 * request a thread of its own creates an EVD, an EP and a buffer the
 * peer may read and write, accepts with that buffer's RMR triplet as
 * private data, and echoes every message it receives; now and then it
 * breaks the connection itself (abrupt dat_ep_disconnect).
 *
 * The client (helper soak_client) runs SOAK_CONNS threads (default 4).
 * Each connects, runs a random number of rounds, each one of: a send the
 * server echoes (contents checked), or an RDMA write followed by an RDMA
 * read of what it wrote (contents checked); then ends the connection one
 * of three ways: a graceful disconnect, an abrupt one with a burst of
 * sends, writes and reads still in flight, or the server's break. It
 * frees everything and connects again.
 *
 * Both sides keep every DTO they post in a table by cookie: a completion
 * for a cookie that is not there (a second completion, or an invented
 * one) fails the helper, and so does a connection that ends with a
 * cookie that never completed; a completion may succeed or be flushed
 * (DAT_DTO_ERR_FLUSHED), nothing else.
 *
 * The test samples both processes every interval: VmRSS, the number of
 * open descriptors, and the client's counters. The warm-up is the first
 * fifth of the run (at most 5 minutes, at least 3 samples); the largest
 * values it saw are the baseline, and a later sample above the baseline
 * plus a small slack fails the run (SOAK_RSS_SLACK_KB, default 2048 KiB
 * or a tenth of the baseline, whichever is larger; SOAK_FD_SLACK, default
 * one per connection, as many as may be changing hands at a sample). So
 * does a client that stops making progress. In a sanitized build
 * RSS is shown but not judged: ASan's quarantine and TSan's history grow
 * by design.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "provider-conn.h"
#include "provider-util.h"
#include "test.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SOAK_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SOAK_SANITIZED 1
#endif
#endif

/* Sizes. A slot is one message; the RDMA area is what the server exposes. */
#define SOAK_SLOT	4096
#define SOAK_NRECV	16		/* receives posted per EP */
#define SOAK_BURST	8		/* DTOs in flight at an abrupt end */
#define SOAK_RDMA	(32 * 1024)	/* exposed region, and the largest op */
#define SOAK_MAXOUT	64		/* cookies one EP may have in flight */
#define SOAK_WAIT_US	(200 * 1000)	/* one dat_evd_wait */
#define SOAK_DRAIN_MS	20000		/* how long a connection may take to end */

/* Client buffer: receive slots, send slots, RDMA source, RDMA destination. */
#define CLI_RECV	0
#define CLI_SEND	(CLI_RECV + SOAK_NRECV * SOAK_SLOT)
#define CLI_WSRC	(CLI_SEND + SOAK_BURST * SOAK_SLOT)
#define CLI_RDST	(CLI_WSRC + SOAK_RDMA)
#define CLI_BUF		(CLI_RDST + SOAK_RDMA)

/* Server buffer: the exposed region, then the receive slots. */
#define SRV_RDMA	0
#define SRV_RECV	(SRV_RDMA + SOAK_RDMA)
#define SRV_BUF		(SRV_RECV + SOAK_NRECV * SOAK_SLOT)

/*
 * A cookie: what was posted (top byte), a sequence number, and the slot
 * of the buffer it uses (low byte), so that a completion says which
 * receive slot holds a message and which one to post again.
 */
enum { OP_SEND = 1, OP_RECV, OP_WRITE, OP_READ };
#define COOKIE(op, seq, slot) (((uint64_t)(op) << 56) | \
			       (((seq) & 0xffffffffffull) << 8) | (slot))
#define COOKIE_OP(c)	((unsigned)((c) >> 56))
#define COOKIE_SLOT(c)	((unsigned)((c) & 0xff))

/* What the server tells the client in its accept: its exposed region. */
struct soak_pd {
	uint32_t	magic;		/* SOAK_MAGIC */
	DAT_RMR_CONTEXT	rmr_context;
	uint64_t	va;
	uint32_t	len;
};
#define SOAK_MAGIC	0x50a4c0deu

/*
 * Set by SIGTERM: end the current connections, free everything, exit.
 * Read by every thread, so an atomic (lock-free: safe in a handler).
 */
static int soak_stop_flag;

static void on_term(int sig)
{
	(void)sig;
	__atomic_store_n(&soak_stop_flag, 1, __ATOMIC_RELAXED);
}

static int soak_stop(void)
{
	return __atomic_load_n(&soak_stop_flag, __ATOMIC_RELAXED);
}

static void catch_term(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigemptyset(&sa.sa_mask);
	ASSERT_OK(sigaction(SIGTERM, &sa, NULL));
}

/*
 * What a helper shows the test: its counters and what each client thread
 * is doing. It lives in memory the two share (a memfd the helper
 * inherits), which the test reads without a system call on either side:
 * a file rewritten now and then could stall the helper for seconds on a
 * busy disk (ext4 flushes a file replaced by rename).
 */
enum { ST_OPS, ST_FLUSHED, ST_CONNS, ST_GRACEFUL, ST_ABRUPT, ST_BY_PEER,
       ST_FAILED, ST_N };
#define SOAK_MAXTHR	64

enum soak_what { W_NONE, W_CONNECTING, W_SEND, W_ECHO, W_WRITE, W_READ,
		 W_END_PEER, W_END_ABRUPT, W_END_GRACEFUL, W_FREEING };
static const char *const what_name[] = {
	[W_NONE] = "-", [W_CONNECTING] = "connecting",
	[W_SEND] = "waiting for a send", [W_ECHO] = "waiting for an echo",
	[W_WRITE] = "waiting for a write", [W_READ] = "waiting for a read",
	[W_END_PEER] = "ending (by the peer)", [W_END_ABRUPT] = "ending (abrupt)",
	[W_END_GRACEFUL] = "ending (graceful)", [W_FREEING] = "freeing",
};

struct soak_shm {
	uint64_t	st[ST_N];	/* ST_*: DTOs that succeeded, ... */
	struct {
		uint64_t	id;	/* its connection */
		uint32_t	what;	/* enum soak_what */
		uint32_t	nout;	/* DTOs in flight */
		uint32_t	ended;	/* end event seen */
	} thr[SOAK_MAXTHR];
};

static struct soak_shm *shm;	/* in a helper: its own */

#define COUNT(i) __atomic_add_fetch(&shm->st[i], 1, __ATOMIC_RELAXED)
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

/* In a helper: maps the memfd whose number is @arg, and closes it. */
static void shm_attach(const char *arg)
{
	int fd = atoi(arg);

	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (shm == MAP_FAILED)
		TEST_FAIL("mmap of fd %d: %s", fd, strerror(errno));
	close(fd);
}

/* xorshift32: each thread and connection draws from its own. */
static uint32_t rnd(uint32_t *s)
{
	uint32_t x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

/* A value in [lo, hi]. */
static uint32_t rnd_in(uint32_t *s, uint32_t lo, uint32_t hi)
{
	return lo + rnd(s) % (hi - lo + 1);
}

/* The bytes of message or write @seq of connection @id. */
static void fill(char *p, size_t len, uint64_t id, uint64_t seq)
{
	uint32_t s = (uint32_t)(id * 2654435761u ^ seq * 40503u) | 1;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (char)rnd(&s);
}

/* ------------------------------------------------------------------------
 * One connection, either side.
 */

struct soak_conn {
	unsigned	thr;		/* client thread, for where(); else -1 */
	DAT_EVD_HANDLE	evd;		/* its DTOs and connection events */
	DAT_EP_HANDLE	ep;
	DAT_LMR_HANDLE	lmr;
	DAT_LMR_CONTEXT	lctx;
	DAT_RMR_CONTEXT	rctx;
	char		*buf;
	uint64_t	id;		/* in messages, and patterns */
	uint64_t	seq;		/* of cookies */
	uint64_t	out[SOAK_MAXOUT]; /* cookies in flight; 0 = free */
	unsigned	nout;
	int		established;	/* ESTABLISHED seen */
	int		ended;		/* the connection's end event seen */
	int		down;		/* a DTO flushed, or ended */
	uint32_t	rnd;
	DAT_DTO_COMPLETION_EVENT_DATA last; /* the last completion reaped */
	DAT_RMR_TRIPLET	remote;		/* client: the server's region */
};

/* Tells the test what client thread c->thr is doing. */
static void where(const struct soak_conn *c, enum soak_what what)
{
	if (c->thr >= SOAK_MAXTHR)
		return;
	__atomic_store_n(&shm->thr[c->thr].what, what, __ATOMIC_RELAXED);
	__atomic_store_n(&shm->thr[c->thr].id, c->id, __ATOMIC_RELAXED);
	__atomic_store_n(&shm->thr[c->thr].nout, c->nout, __ATOMIC_RELAXED);
	__atomic_store_n(&shm->thr[c->thr].ended, (uint32_t)c->ended,
			 __ATOMIC_RELAXED);
}

static void conn_init(struct soak_conn *c, DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
		      size_t len, uint64_t id, uint32_t seed)
{
	DAT_REGION_DESCRIPTION region;
	DAT_VLEN rlen;
	DAT_VADDR raddr;

	memset(c, 0, sizeof(*c));
	c->thr = (unsigned)-1;
	c->id = id;
	c->rnd = seed | 1;
	c->buf = calloc(1, len);
	ASSERT_NOT_NULL(c->buf);
	ASSERT_OK(dat_evd_create(ia, 4 * SOAK_MAXOUT, DAT_HANDLE_NULL,
				 DAT_EVD_DTO_FLAG | DAT_EVD_CONNECTION_FLAG,
				 &c->evd));
	ASSERT_OK(dat_ep_create(ia, pz, c->evd, c->evd, c->evd, NULL, &c->ep));
	region.for_va = c->buf;
	ASSERT_OK(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, region, len, pz,
				 DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &c->lmr,
				 &c->lctx, &c->rctx, &rlen, &raddr));
}

static void conn_fini(struct soak_conn *c)
{
	ASSERT_OK(dat_ep_free(c->ep));
	ASSERT_OK(dat_lmr_free(c->lmr));
	ASSERT_OK(dat_evd_free(c->evd));
	free(c->buf);
}

static void track(struct soak_conn *c, uint64_t ck)
{
	unsigned i;

	for (i = 0; i < SOAK_MAXOUT; i++)
		if (c->out[i] == 0) {
			c->out[i] = ck;
			c->nout++;
			return;
		}
	TEST_FAIL("conn %" PRIx64 ": more than %d DTOs in flight", c->id,
		  SOAK_MAXOUT);
}

/* Takes @ck out of the table: a cookie completes once, and only if posted. */
static void untrack(struct soak_conn *c, uint64_t ck)
{
	unsigned i;

	for (i = 0; i < SOAK_MAXOUT; i++)
		if (c->out[i] == ck) {
			c->out[i] = 0;
			c->nout--;
			return;
		}
	TEST_FAIL("conn %" PRIx64 ": a completion of cookie 0x%" PRIx64
		  ", which is not in flight (twice, or never posted)", c->id, ck);
}

/*
 * Posts one DTO on buffer slot @slot: @len bytes at @off of the buffer,
 * at @roff of the peer's region for RDMA. Returns 0, or -1 when the EP
 * takes no more posts (DAT_INVALID_STATE: the connection is going down).
 * A post that fails produces no completion, so it is not tracked.
 */
static int post(struct soak_conn *c, unsigned op, unsigned slot, size_t off,
		size_t len, size_t roff)
{
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET r = c->remote;
	DAT_DTO_COOKIE ck;
	DAT_RETURN ret;

	iov.lmr_context = c->lctx;
	iov.virtual_address = (DAT_VADDR)(uintptr_t)(c->buf + off);
	iov.segment_length = (DAT_SEG_LENGTH)len;
	ck.as_64 = COOKIE(op, ++c->seq, slot);
	r.virtual_address += roff;
	r.segment_length = (DAT_SEG_LENGTH)len;
	switch (op) {
	case OP_SEND:
		ret = dat_ep_post_send(c->ep, 1, &iov, ck, DAT_COMPLETION_DEFAULT_FLAG);
		break;
	case OP_RECV:
		ret = dat_ep_post_recv(c->ep, 1, &iov, ck, DAT_COMPLETION_DEFAULT_FLAG);
		break;
	case OP_WRITE:
		ret = dat_ep_post_rdma_write(c->ep, 1, &iov, ck, &r,
					     DAT_COMPLETION_DEFAULT_FLAG);
		break;
	default:
		ret = dat_ep_post_rdma_read(c->ep, 1, &iov, ck, &r,
					    DAT_COMPLETION_DEFAULT_FLAG);
		break;
	}
	if (ret == DAT_SUCCESS) {
		track(c, ck.as_64);
		return 0;
	}
	if (DAT_GET_TYPE(ret) != DAT_INVALID_STATE)
		TEST_FAIL("conn %" PRIx64 ": post of op %u: 0x%08x", c->id, op,
			  (unsigned)ret);
	c->down = 1;
	return -1;
}

/*
 * Waits up to SOAK_WAIT_US for one event and accounts for it. Returns 1
 * for a successful DTO completion (in c->last), else 0: nothing came, a
 * DTO was flushed, or a connection event.
 */
static int reap(struct soak_conn *c)
{
	DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_CONNECTION_EVENT_DATA *cd;
	struct soak_pd pd;
	DAT_EVENT ev;
	DAT_COUNT more;
	DAT_RETURN ret;

	ret = dat_evd_wait(c->evd, SOAK_WAIT_US, 1, &ev, &more);
	if (DAT_GET_TYPE(ret) == DAT_TIMEOUT_EXPIRED)
		return 0;
	if (ret != DAT_SUCCESS)
		TEST_FAIL("conn %" PRIx64 ": dat_evd_wait: 0x%08x", c->id,
			  (unsigned)ret);
	switch (ev.event_number) {
	case DAT_DTO_COMPLETION_EVENT:
		d = &ev.event_data.dto_completion_event_data;
		untrack(c, d->user_cookie.as_64);
		c->last = *d;
		if (d->status == DAT_DTO_SUCCESS) {
			COUNT(ST_OPS);
			return 1;
		}
		if (d->status != DAT_DTO_ERR_FLUSHED)
			TEST_FAIL("conn %" PRIx64 ": cookie 0x%" PRIx64
				  " completed with status %d", c->id,
				  d->user_cookie.as_64, (int)d->status);
		COUNT(ST_FLUSHED);
		c->down = 1;
		return 0;
	case DAT_CONNECTION_EVENT_ESTABLISHED:
		cd = &ev.event_data.connect_event_data;
		c->established = 1;
		if (cd->private_data_size >= (DAT_COUNT)sizeof(pd)) {
			memcpy(&pd, cd->private_data, sizeof(pd));
			if (pd.magic == SOAK_MAGIC) {
				c->remote.rmr_context = pd.rmr_context;
				c->remote.virtual_address = pd.va;
				c->remote.segment_length = pd.len;
			}
		}
		return 0;
	case DAT_CONNECTION_EVENT_DISCONNECTED:
	case DAT_CONNECTION_EVENT_BROKEN:
	case DAT_CONNECTION_EVENT_PEER_REJECTED:
	case DAT_CONNECTION_EVENT_NON_PEER_REJECTED:
	case DAT_CONNECTION_EVENT_UNREACHABLE:
	case DAT_CONNECTION_EVENT_TIMED_OUT:
	case DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR:
		c->ended = 1;
		c->down = 1;
		return 0;
	default:
		TEST_FAIL("conn %" PRIx64 ": unexpected event 0x%x", c->id,
			  (unsigned)ev.event_number);
	}
}

/* Fails the run when @t0 is more than SOAK_DRAIN_MS (scaled) ago. */
static void check_time(struct soak_conn *c, uint64_t t0, const char *what)
{
	if (test_now_ms() - t0 > SOAK_DRAIN_MS * test_timeout_scale())
		TEST_FAIL("conn %" PRIx64 ": %s: nothing for %d ms, %u DTOs in "
			  "flight, %s", c->id, what, SOAK_DRAIN_MS, c->nout,
			  c->ended ? "ended" : "no end event");
}

/* Waits for a successful completion of @op. 0, or -1 if the connection
 * went down first. */
static int wait_op(struct soak_conn *c, unsigned op)
{
	uint64_t t0 = test_now_ms();

	while (!c->down) {
		where(c, op == OP_WRITE ? W_WRITE : W_READ);
		if (reap(c) && COOKIE_OP(c->last.user_cookie.as_64) == op)
			return 0;
		check_time(c, t0, "waiting for a completion");
	}
	return -1;
}

/* How conn_end ends a connection. */
enum soak_end {
	END_WAIT,		/* it is ending already: wait */
	END_ABRUPT,		/* dat_ep_disconnect(DAT_CLOSE_ABRUPT_FLAG) */
	END_GRACEFUL,		/* dat_ep_disconnect(DAT_CLOSE_GRACEFUL_FLAG) */
};

/*
 * Ends a connection, whoever began: after a disconnect of our own unless
 * @how is END_WAIT, waits until the EP has reported its end and every
 * DTO posted on it has completed, exactly once.
 */
static void conn_end(struct soak_conn *c, enum soak_end how)
{
	uint64_t t0 = test_now_ms();

	if (how != END_WAIT) {
		DAT_RETURN ret = dat_ep_disconnect(c->ep, how == END_ABRUPT ?
						   DAT_CLOSE_ABRUPT_FLAG :
						   DAT_CLOSE_GRACEFUL_FLAG);

		if (ret != DAT_SUCCESS && DAT_GET_TYPE(ret) != DAT_INVALID_STATE)
			TEST_FAIL("conn %" PRIx64 ": dat_ep_disconnect: 0x%08x",
				  c->id, (unsigned)ret);
	}
	while (!c->ended || c->nout > 0) {
		where(c, how == END_WAIT ? W_END_PEER : how == END_ABRUPT ?
		      W_END_ABRUPT : W_END_GRACEFUL);
		(void)reap(c);
		check_time(c, t0, "ending");
	}
}

/* ------------------------------------------------------------------------
 * The server: argv = shared memory fd, 1/N chance of a break per event.
 */

static DAT_IA_HANDLE srv_ia;
static DAT_PZ_HANDLE srv_pz;
static unsigned srv_threads;	/* connection threads still running */
static uint32_t srv_break_per;

struct srv_arg {
	DAT_CR_HANDLE	cr;
	uint64_t	id;
};

static void *srv_conn(void *arg)
{
	struct srv_arg *a = arg;
	struct soak_conn c;
	struct soak_pd pd;
	unsigned i;

	conn_init(&c, srv_ia, srv_pz, SRV_BUF, a->id, (uint32_t)a->id * 7919u);
	for (i = 0; i < SOAK_NRECV; i++)
		ASSERT_OK(post(&c, OP_RECV, i, SRV_RECV + i * SOAK_SLOT, SOAK_SLOT, 0));
	memset(&pd, 0, sizeof(pd));
	pd.magic = SOAK_MAGIC;
	pd.rmr_context = c.rctx;
	pd.va = (uint64_t)(uintptr_t)(c.buf + SRV_RDMA);
	pd.len = SOAK_RDMA;
	if (dat_cr_accept(a->cr, c.ep, (DAT_COUNT)sizeof(pd), &pd) != DAT_SUCCESS) {
		/* Never connected: dat_ep_free flushes the receives. */
		COUNT(ST_FAILED);
		goto out;
	}
	/* Echo every message from its slot; post the slot again once sent. */
	while (!c.down && !soak_stop()) {
		if (reap(&c)) {
			uint64_t ck = c.last.user_cookie.as_64;
			unsigned slot = COOKIE_SLOT(ck);

			if (COOKIE_OP(ck) == OP_RECV)
				(void)post(&c, OP_SEND, slot, SRV_RECV + slot * SOAK_SLOT,
					   c.last.transfered_length, 0);
			else if (COOKIE_OP(ck) == OP_SEND)
				(void)post(&c, OP_RECV, slot, SRV_RECV + slot * SOAK_SLOT,
					   SOAK_SLOT, 0);
		}
		if (c.established && !c.down && srv_break_per > 0 &&
		    rnd(&c.rnd) % srv_break_per == 0)
			break;
	}
	if (c.established)
		COUNT(ST_CONNS);
	if (c.down)
		COUNT(ST_BY_PEER);
	else if (!soak_stop())
		COUNT(ST_ABRUPT);
	conn_end(&c, END_ABRUPT);
out:
	conn_fini(&c);
	free(a);
	__atomic_sub_fetch(&srv_threads, 1, __ATOMIC_RELEASE);
	return NULL;
}

HELPER_IMPL(soak_server)
{
	DAT_EVD_HANDLE cr_evd;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL port;
	pthread_attr_t attr;
	uint64_t id = 0, t0;
	DAT_EVENT ev;
	DAT_COUNT more;

	ASSERT_EQ(argc, 3);
	shm_attach(argv[1]);
	srv_break_per = (uint32_t)strtoul(argv[2], NULL, 10);
	catch_term();
	srv_ia = sdt_open_ia(NULL, NULL);
	ASSERT_OK(dat_pz_create(srv_ia, &srv_pz));
	ASSERT_OK(dat_evd_create(srv_ia, 64, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &cr_evd));
	ASSERT_OK(dat_psp_create_any(srv_ia, &port, cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
	ASSERT_OK(pthread_attr_init(&attr));
	ASSERT_OK(pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED));
	test_helper_ready("%" PRIu64, (uint64_t)port);

	while (!soak_stop()) {
		DAT_RETURN ret = dat_evd_wait(cr_evd, SOAK_WAIT_US, 1, &ev, &more);
		struct srv_arg *a;
		pthread_t tid;

		if (DAT_GET_TYPE(ret) == DAT_TIMEOUT_EXPIRED ||
		    DAT_GET_TYPE(ret) == DAT_INTERRUPTED_CALL)
			continue;
		ASSERT_OK(ret);
		ASSERT_EQ(ev.event_number, DAT_CONNECTION_REQUEST_EVENT);
		a = calloc(1, sizeof(*a));
		ASSERT_NOT_NULL(a);
		a->cr = ev.event_data.cr_arrival_event_data.cr_handle;
		a->id = ++id;
		__atomic_add_fetch(&srv_threads, 1, __ATOMIC_RELAXED);
		ASSERT_OK(pthread_create(&tid, &attr, srv_conn, a));
	}

	/* The connections end (they see soak_stop), then what is left. */
	t0 = test_now_ms();
	while (__atomic_load_n(&srv_threads, __ATOMIC_ACQUIRE) > 0) {
		if (test_now_ms() - t0 > 2 * SOAK_DRAIN_MS * test_timeout_scale())
			TEST_FAIL("server: %u connections did not end",
				  __atomic_load_n(&srv_threads, __ATOMIC_RELAXED));
		test_sleep_ms(10);
	}
	while (dat_evd_dequeue(cr_evd, &ev) == DAT_SUCCESS)
		if (ev.event_number == DAT_CONNECTION_REQUEST_EVENT)
			ASSERT_OK(dat_cr_reject(ev.event_data.cr_arrival_event_data.cr_handle,
						0, NULL));
	ASSERT_OK(dat_psp_free(psp));
	ASSERT_OK(dat_evd_free(cr_evd));
	ASSERT_OK(dat_pz_free(srv_pz));
	/* Graceful: refused if anything of ours were left in the IA. */
	ASSERT_OK(dat_ia_close(srv_ia, DAT_CLOSE_GRACEFUL_FLAG));
	pthread_attr_destroy(&attr);
	return 0;
}

/* ------------------------------------------------------------------------
 * The client: argv = shared memory fd, port, threads, seed.
 */

struct cli_arg {
	pthread_t	tid;
	DAT_IA_HANDLE	ia;
	DAT_PZ_HANDLE	pz;
	DAT_CONN_QUAL	port;
	unsigned	index;
	uint32_t	seed;
};

/* A send of random length, echoed by the server: compared, slot reposted. */
static void cli_send(struct soak_conn *c)
{
	size_t len = rnd_in(&c->rnd, 1, SOAK_SLOT);
	int sent = 0, echoed = 0;
	uint64_t t0 = test_now_ms();

	fill(c->buf + CLI_SEND, len, c->id, c->seq);
	if (post(c, OP_SEND, 0, CLI_SEND, len, 0) < 0)
		return;
	while (!(sent && echoed) && !c->down) {
		uint64_t ck;
		unsigned slot;

		where(c, sent ? W_ECHO : W_SEND);
		check_time(c, t0, "waiting for an echo");
		if (!reap(c))
			continue;
		ck = c->last.user_cookie.as_64;
		if (COOKIE_OP(ck) == OP_SEND) {
			sent = 1;
			continue;
		}
		if (COOKIE_OP(ck) != OP_RECV)
			TEST_FAIL("conn %" PRIx64 ": stray completion 0x%" PRIx64,
				  c->id, ck);
		slot = COOKIE_SLOT(ck);
		if (c->last.transfered_length != len ||
		    memcmp(c->buf + CLI_RECV + slot * SOAK_SLOT, c->buf + CLI_SEND,
			   len) != 0)
			TEST_FAIL("conn %" PRIx64 ": the echo of %zu bytes differs "
				  "(%u bytes came)", c->id, len,
				  (unsigned)c->last.transfered_length);
		echoed = 1;
		(void)post(c, OP_RECV, slot, CLI_RECV + slot * SOAK_SLOT, SOAK_SLOT, 0);
	}
}

/* An RDMA write of random size and place, then a read of it back. */
static void cli_rdma(struct soak_conn *c)
{
	size_t len = rnd_in(&c->rnd, 1, SOAK_RDMA);
	size_t roff = rnd_in(&c->rnd, 0, (uint32_t)(SOAK_RDMA - len));

	fill(c->buf + CLI_WSRC, len, c->id, c->seq);
	if (post(c, OP_WRITE, 0, CLI_WSRC, len, roff) < 0 ||
	    wait_op(c, OP_WRITE) < 0)
		return;
	memset(c->buf + CLI_RDST, 0, len);
	if (post(c, OP_READ, 0, CLI_RDST, len, roff) < 0 ||
	    wait_op(c, OP_READ) < 0)
		return;
	if (memcmp(c->buf + CLI_RDST, c->buf + CLI_WSRC, len) != 0)
		TEST_FAIL("conn %" PRIx64 ": %zu bytes read back at %zu differ "
			  "from those written", c->id, len, roff);
}

/* Posts a burst of sends, writes and reads, for an abrupt end to flush. */
static void cli_burst(struct soak_conn *c)
{
	unsigned i, n = rnd_in(&c->rnd, 1, SOAK_BURST), reads = 0;

	for (i = 0; i < n && !c->down; i++) {
		size_t len = rnd_in(&c->rnd, 1, SOAK_SLOT);

		switch (rnd(&c->rnd) % 3) {
		case 0:
			(void)post(c, OP_SEND, i, CLI_SEND + i * SOAK_SLOT, len, 0);
			break;
		case 1:
			(void)post(c, OP_WRITE, i, CLI_WSRC, len, 0);
			break;
		default:
			if (reads++ < 4)
				(void)post(c, OP_READ, i, CLI_RDST, len, 0);
			break;
		}
	}
}

static void *cli_thread(void *arg)
{
	struct cli_arg *a = arg;
	struct sockaddr_storage ss;
	uint32_t r = a->seed ^ (a->index + 1) * 0x9e3779b9u;
	uint64_t n = 0;

	sdt_ia_addr(a->ia, &ss);
	r |= 1;
	while (!soak_stop()) {
		struct soak_conn c;
		uint64_t t0 = test_now_ms();
		unsigned i, rounds, mode;

		conn_init(&c, a->ia, a->pz, CLI_BUF, (uint64_t)a->index << 40 | ++n,
			  rnd(&r));
		c.thr = a->index;
		for (i = 0; i < SOAK_NRECV; i++)
			ASSERT_OK(post(&c, OP_RECV, i, CLI_RECV + i * SOAK_SLOT,
				       SOAK_SLOT, 0));
		ASSERT_OK(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&ss, a->port,
					 10 * 1000 * 1000, 0, NULL,
					 DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
		while (!c.established && !c.ended) {
			where(&c, W_CONNECTING);
			(void)reap(&c);
			check_time(&c, t0, "connecting");
		}
		if (!c.established) {
			COUNT(ST_FAILED);
			conn_end(&c, END_WAIT);
			conn_fini(&c);
			continue;
		}
		COUNT(ST_CONNS);
		if (c.remote.segment_length != SOAK_RDMA)
			TEST_FAIL("conn %" PRIx64 ": no region in the accept", c.id);

		/* How it ends: 4 in 10 gracefully, 4 abruptly, 2 by the server. */
		mode = rnd(&c.rnd) % 10;
		rounds = mode < 8 ? rnd_in(&c.rnd, 1, 2000) : UINT32_MAX;
		for (i = 0; i < rounds && !c.down && !soak_stop(); i++) {
			if (rnd(&c.rnd) % 2)
				cli_send(&c);
			else
				cli_rdma(&c);
		}
		if (c.down) {
			COUNT(ST_BY_PEER);
			conn_end(&c, END_WAIT);
		} else if (mode < 4 || soak_stop()) {
			COUNT(ST_GRACEFUL);
			conn_end(&c, END_GRACEFUL);
		} else {
			COUNT(ST_ABRUPT);
			cli_burst(&c);
			conn_end(&c, END_ABRUPT);
		}
		where(&c, W_FREEING);
		conn_fini(&c);
	}
	return NULL;
}

HELPER_IMPL(soak_client)
{
	struct cli_arg *a;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	unsigned i, n;

	ASSERT_EQ(argc, 5);
	shm_attach(argv[1]);
	n = (unsigned)strtoul(argv[3], NULL, 10);
	ASSERT_GT(n, 0);
	catch_term();
	ia = sdt_open_ia(NULL, NULL);
	ASSERT_OK(dat_pz_create(ia, &pz));
	a = calloc(n, sizeof(*a));
	ASSERT_NOT_NULL(a);
	for (i = 0; i < n; i++) {
		a[i].ia = ia;
		a[i].pz = pz;
		a[i].port = (DAT_CONN_QUAL)strtoull(argv[2], NULL, 10);
		a[i].index = i;
		a[i].seed = (uint32_t)strtoul(argv[4], NULL, 10);
		ASSERT_OK(pthread_create(&a[i].tid, NULL, cli_thread, &a[i]));
	}
	test_helper_ready("running");
	for (i = 0; i < n; i++)
		ASSERT_OK(pthread_join(a[i].tid, NULL));
	free(a);
	ASSERT_OK(dat_pz_free(pz));
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------------
 * The test: the two helpers, sampled.
 */

struct soak_sample {
	unsigned	t;		/* seconds since the start */
	long		rss[2];		/* KiB: server, client */
	long		fds[2];
	uint64_t	st[ST_N];	/* the client's counters */
};

/* VmRSS of @pid in KiB, or -1. */
static long rss_kib(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/* The number of open descriptors of @pid, or -1. */
static long fd_count(pid_t pid)
{
	char path[64];
	struct dirent *e;
	long n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/*
 * A memfd of struct soak_shm for a helper, and its mapping here. It is
 * close-on-exec but while a helper is being started (spawn_with).
 */
static struct soak_shm *shm_new(int *fd)
{
	struct soak_shm *m;

	*fd = memfd_create("soak", MFD_CLOEXEC);
	ASSERT_GE(*fd, 0);
	ASSERT_OK(ftruncate(*fd, sizeof(*m)));
	m = mmap(NULL, sizeof(*m), PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	ASSERT(m != MAP_FAILED);
	return m;
}

/* Starts helper @name with shared memory @fd as its first argument. */
static test_helper_t *spawn_with(int fd, const char *name, const char *a2,
				 const char *a3, const char *a4)
{
	test_helper_t *h;
	char arg[16];

	snprintf(arg, sizeof(arg), "%d", fd);
	ASSERT_OK(fcntl(fd, F_SETFD, 0));
	h = test_spawn_helper(name, arg, a2, a3, a4, NULL);
	ASSERT_OK(fcntl(fd, F_SETFD, FD_CLOEXEC));
	return h;
}

/* What the client's threads were doing, when the run stalls. */
static void show_where(const struct soak_shm *m)
{
	unsigned i;

	for (i = 0; i < SOAK_MAXTHR; i++) {
		uint32_t w = LOAD(m->thr[i].what);

		if (w != W_NONE && w < sizeof(what_name) / sizeof(what_name[0]))
			printf("client thread %u: %s, conn %" PRIx64 ", %u DTOs "
			       "in flight%s\n", i, what_name[w], LOAD(m->thr[i].id),
			       LOAD(m->thr[i].nout),
			       LOAD(m->thr[i].ended) ? ", ended" : "");
	}
}

static unsigned env_uint(const char *name, unsigned dflt)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' ? (unsigned)strtoul(v, NULL, 10) : dflt;
}

/* Fails the test unless @h is still running. */
static void alive(test_helper_t *h, const char *who)
{
	int status;
	char buf[64];

	if (test_helper_wait(h, 0, &status) != -ETIMEDOUT)
		TEST_FAIL("the %s died: %s", who,
			  test_status_str(status, buf, sizeof(buf)));
}

static int soak(unsigned seconds, unsigned interval)
{
	static const char *const side[2] = { "server", "client" };
	unsigned conns = env_uint("SOAK_CONNS", 4);
	unsigned seed = env_uint("SOAK_SEED", (unsigned)getpid());
	unsigned rss_slack = env_uint("SOAK_RSS_SLACK_KB", 2048);
	unsigned fd_slack = env_uint("SOAK_FD_SLACK", conns);
	unsigned nmax = seconds / interval + 2, n, k, warm, stuck = 0, hang;
	char port[32], sconns[16], sseed[16];
	struct soak_sample *s;
	struct soak_shm *sm[2];
	test_helper_t *h[2];
	const char *line;
	long base_rss[2] = { 0, 0 }, base_fds[2] = { 0, 0 };
	long max_rss[2] = { 0, 0 }, max_fds[2] = { 0, 0 };
	uint64_t t0;
	int status, i, fd[2], failed = 0;

	ASSERT_GT(interval, 0);
	s = calloc(nmax, sizeof(*s));
	ASSERT_NOT_NULL(s);
	sdt_conf(NULL);
	sm[0] = shm_new(&fd[0]);
	sm[1] = shm_new(&fd[1]);
	h[0] = spawn_with(fd[0], "soak_server", "3000", NULL, NULL);
	ASSERT_OK(test_helper_wait_ready(h[0], &line));
	snprintf(port, sizeof(port), "%s", line);
	snprintf(sconns, sizeof(sconns), "%u", conns);
	snprintf(sseed, sizeof(sseed), "%u", seed);
	h[1] = spawn_with(fd[1], "soak_client", port, sconns, sseed);
	ASSERT_OK(test_helper_wait_ready(h[1], &line));
	printf("soak: %u s, %u connections, seed %u, a sample every %u s\n",
	       seconds, conns, seed, interval);
	printf("%7s %10s %7s %7s %7s %7s | %11s %5s | %11s %5s\n", "time",
	       "client ops", "conns", "gracef", "abrupt", "broken",
	       "server KiB", "fds", "client KiB", "fds");

	hang = (unsigned)(10 * test_timeout_scale()) / interval + 1;
	if (hang < 2)
		hang = 2;
	t0 = test_now_ms();
	for (n = 0; n < nmax; n++) {
		uint64_t due = t0 + (uint64_t)n * interval * 1000, now = test_now_ms();

		if (due > now)
			test_sleep_ms((unsigned)(due - now));
		alive(h[0], "server");
		alive(h[1], "client");
		s[n].t = (unsigned)((test_now_ms() - t0 + 500) / 1000);
		for (i = 0; i < 2; i++) {
			s[n].rss[i] = rss_kib(test_helper_pid(h[i]));
			s[n].fds[i] = fd_count(test_helper_pid(h[i]));
		}
		for (i = 0; i < ST_N; i++)
			s[n].st[i] = LOAD(sm[1]->st[i]);
		printf("%6us %10" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64
		       " %7" PRIu64 " | %11ld %5ld | %11ld %5ld\n", s[n].t,
		       s[n].st[0], s[n].st[2], s[n].st[3], s[n].st[4], s[n].st[5],
		       s[n].rss[0], s[n].fds[0], s[n].rss[1], s[n].fds[1]);
		fflush(stdout);
		/*
		 * A client that makes no progress for two intervals, and at
		 * least 10 s (scaled), hangs.
		 */
		if (n > 0 && s[n].st[0] == s[n - 1].st[0]) {
			if (++stuck >= hang) {
				show_where(sm[1]);
				TEST_FAIL("no progress for %u s", hang * interval);
			}
		} else {
			stuck = 0;
		}
		if (s[n].t >= seconds) {
			n++;
			break;
		}
	}

	/* The client first (its connections end gracefully), then the server. */
	for (i = 1; i >= 0; i--) {
		char buf[64];

		ASSERT_OK(test_helper_kill(h[i], SIGTERM));
		if (test_helper_wait(h[i], 60, &status) < 0)
			TEST_FAIL("the %s did not stop", side[i]);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			TEST_FAIL("the %s: %s", side[i],
				  test_status_str(status, buf, sizeof(buf)));
		test_helper_free(h[i]);
	}

	/* The warm-up: a fifth of the run, at most 5 min, at least 3 samples. */
	warm = (seconds / 5 < 300 ? seconds / 5 : 300) / interval;
	if (warm < 3)
		warm = 3;
	ASSERT_GT(n, warm);
	for (k = 0; k < n; k++)
		for (i = 0; i < 2; i++) {
			long rs = (long)rss_slack;

			if (k < warm) {
				if (s[k].rss[i] > base_rss[i])
					base_rss[i] = s[k].rss[i];
				if (s[k].fds[i] > base_fds[i])
					base_fds[i] = s[k].fds[i];
				continue;
			}
			if (s[k].rss[i] > max_rss[i])
				max_rss[i] = s[k].rss[i];
			if (s[k].fds[i] > max_fds[i])
				max_fds[i] = s[k].fds[i];
			if (base_rss[i] / 10 > rs)
				rs = base_rss[i] / 10;
#ifndef SOAK_SANITIZED
			if (s[k].rss[i] > base_rss[i] + rs) {
				printf("the %s's RSS grew: %ld KiB at %u s, warm-up "
				       "peak %ld KiB (slack %ld)\n", side[i],
				       s[k].rss[i], s[k].t, base_rss[i], rs);
				failed = 1;
			}
#endif
			if (s[k].fds[i] > base_fds[i] + (long)fd_slack) {
				printf("the %s's descriptors grew: %ld at %u s, "
				       "warm-up peak %ld (slack %u)\n", side[i],
				       s[k].fds[i], s[k].t, base_fds[i], fd_slack);
				failed = 1;
			}
		}
	for (i = 0; i < 2; i++)
		printf("%s: RSS warm-up peak %ld KiB, after %ld KiB; descriptors "
		       "%ld, after %ld%s\n", side[i], base_rss[i], max_rss[i],
		       base_fds[i], max_fds[i],
#ifdef SOAK_SANITIZED
		       " (sanitized build: RSS not judged)"
#else
		       ""
#endif
		       );
	k = n - 1;
	printf("client: %" PRIu64 " DTOs, %" PRIu64 " flushed, %" PRIu64
	       " connections: %" PRIu64 " ended gracefully, %" PRIu64
	       " abruptly, %" PRIu64 " by the server\n", s[k].st[0], s[k].st[1],
	       s[k].st[2], s[k].st[3], s[k].st[4], s[k].st[5]);
	if (s[k].st[4] + s[k].st[5] == 0)
		TEST_FAIL("the run saw no abrupt disconnect");
	free(s);
	for (i = 0; i < 2; i++) {
		munmap(sm[i], sizeof(*sm[i]));
		close(fd[i]);
	}
	if (failed)
		TEST_FAIL("resources grew after the warm-up (see above)");
	return 0;
}

TEST_IMPL(soak_quick)
{
	return soak(20, 2);
}

TEST_IMPL(soak)
{
	return soak(env_uint("SOAK_SECONDS", 3600), env_uint("SOAK_INTERVAL", 60));
}
