/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Broken networks and dying peers (issue 6): the fault-injection switch
 * (provider/fault.c, SOFTDAPL_FAULT), an exactly-once checker that runs
 * DTOs over connections cut at random and reconnected, and the ways a
 * peer can die: SIGKILL in the middle of sends, RDMA writes and reads,
 * a socket closed half way through a frame, a disconnect from both sides
 * at once, dat_ep_free and dat_ia_close(DAT_CLOSE_ABRUPT_FLAG) with DTOs
 * in flight, no file descriptors left, a full queue.
 *
 * The rule every test checks (post.c, "THE CONTRACT"): each DTO posted
 * successfully completes exactly once, SUCCESS or DAT_DTO_ERR_FLUSHED,
 * in post order per queue, so that a queue's completions read as
 * successes then flushes; a successful receive holds the bytes that were
 * sent; an RDMA write that succeeded is in the peer's memory whole.
 *
 * Random choices come from SOFTDAPL_TEST_SEED (default 1), printed by
 * each test that uses it: "SOFTDAPL_TEST_SEED=N run-tests NAME" reruns
 * the same choices (timing still varies, as on a network).
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../provider/proto.h"
#include "provider-conn.h"
#include "provider-util.h"
#include "test.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                             */

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static DAT_DTO_COOKIE ck(uint64_t v)
{
	DAT_DTO_COOKIE c;

	c.as_64 = v;
	return c;
}

/* splitmix64's finalizer: a 64-bit hash. */
static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The next number of the stream @s (splitmix64). */
static uint64_t rnd(uint64_t *s)
{
	*s += 0x9e3779b97f4a7c15ull;
	return mix(*s);
}

static uint64_t test_seed(void)
{
	const char *s = getenv("SOFTDAPL_TEST_SEED");

	return s != NULL && *s != '\0' ? strtoull(s, NULL, 0) : 1;
}

/* Byte @i of the pattern named @key: what a payload holds, checkably. */
static uint8_t pat(uint64_t key, size_t i)
{
	return (uint8_t)(mix(key ^ ((i >> 3) * 0x9e3779b97f4a7c15ull + 1)) >>
			 ((i & 7) * 8));
}

static void fill_pat(uint8_t *p, size_t len, uint64_t key)
{
	size_t i;

	for (i = 0; i < len; i += 8) {
		uint64_t w = mix(key ^ ((i >> 3) * 0x9e3779b97f4a7c15ull + 1));
		size_t j;

		for (j = 0; j < 8 && i + j < len; j++)
			p[i + j] = (uint8_t)(w >> (j * 8));
	}
}

/* Offset of the first byte of @p that is not pattern @key, or @len. */
static size_t check_pat(const uint8_t *p, size_t len, uint64_t key)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != pat(key, i))
			return i;
	return len;
}

static const char *conn_name(DAT_EVENT_NUMBER n)
{
	switch (n) {
	case DAT_CONNECTION_EVENT_ESTABLISHED:		return "ESTABLISHED";
	case DAT_CONNECTION_EVENT_DISCONNECTED:		return "DISCONNECTED";
	case DAT_CONNECTION_EVENT_BROKEN:		return "BROKEN";
	case DAT_CONNECTION_EVENT_PEER_REJECTED:	return "PEER_REJECTED";
	case DAT_CONNECTION_EVENT_NON_PEER_REJECTED:	return "NON_PEER_REJECTED";
	case DAT_CONNECTION_EVENT_TIMED_OUT:		return "TIMED_OUT";
	case DAT_CONNECTION_EVENT_UNREACHABLE:		return "UNREACHABLE";
	case DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR:
		return "ACCEPT_COMPLETION_ERROR";
	default:					return "?";
	}
}

/* A connection ended the way a dying peer or a broken network ends it. */
static void expect_end(DAT_EVENT_NUMBER n)
{
	if (n != DAT_CONNECTION_EVENT_BROKEN &&
	    n != DAT_CONNECTION_EVENT_DISCONNECTED)
		TEST_FAIL("connection event %s (0x%x), expected BROKEN or "
			  "DISCONNECTED", conn_name(n), (unsigned)n);
}

static DAT_EP_ATTR ep_attr(DAT_COUNT depth)
{
	DAT_EP_ATTR a;

	memset(&a, 0, sizeof(a));
	a.service_type = DAT_SERVICE_TYPE_RC;
	a.qos = DAT_QOS_BEST_EFFORT;
	a.recv_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG;
	a.request_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG;
	a.max_recv_dtos = depth;
	a.max_request_dtos = depth;
	a.max_recv_iov = 4;
	a.max_request_iov = 4;
	a.srq_soft_hw = DAT_HW_DEFAULT;
	return a;
}

/* What two processes tell each other in private data: their memory. */
#define PD_MAGIC	0x53544c46u	/* "FLTS" */

struct mem_pdata {
	uint32_t	magic;
	uint32_t	conn;		/* which of the test's connections */
	uint32_t	round;
	uint32_t	rctx;		/* the sender's rmr_context */
	uint64_t	base;		/* and the address it covers */
};

static struct mem_pdata mem_pdata(uint32_t conn, uint32_t round,
				  DAT_RMR_CONTEXT rctx, const void *base)
{
	struct mem_pdata m;

	memset(&m, 0, sizeof(m));
	m.magic = PD_MAGIC;
	m.conn = conn;
	m.round = round;
	m.rctx = rctx;
	m.base = (uint64_t)(uintptr_t)base;
	return m;
}

static struct mem_pdata pdata_of(const void *p, DAT_COUNT len)
{
	struct mem_pdata m;

	ASSERT_EQ(len, (DAT_COUNT)sizeof(m));
	memcpy(&m, p, sizeof(m));
	ASSERT_EQ(m.magic, PD_MAGIC);
	return m;
}

/* dat_ep_connect to @port of @ia's own address with @m as private data. */
static void connect_pd(DAT_IA_HANDLE ia, DAT_EP_HANDLE ep, DAT_CONN_QUAL port,
		       struct mem_pdata m)
{
	struct sockaddr_storage ss;

	sdt_ia_addr(ia, &ss);
	ASSERT_OK(dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&ss, port,
				 (DAT_TIMEOUT)(10000000 * test_timeout_scale()),
				 sizeof(m), &m, DAT_QOS_BEST_EFFORT,
				 DAT_CONNECT_DEFAULT_FLAG));
}

/* Accepts the next request on @n's CR EVD with @ep; its private data. */
static struct mem_pdata accept_pd(struct sdt_node *n, DAT_EP_HANDLE ep,
				  struct mem_pdata mine)
{
	DAT_CR_HANDLE cr = sdt_expect_cr(n->cr_evd, NULL);
	struct mem_pdata m;
	DAT_CR_PARAM p;

	ASSERT_OK(dat_cr_query(cr, DAT_CR_FIELD_ALL, &p));
	m = pdata_of(p.private_data, p.private_data_size);
	ASSERT_OK(dat_cr_accept(cr, ep, sizeof(mine), &mine));
	return m;
}

/* Waits for ESTABLISHED on @evd; the peer's private data. */
static struct mem_pdata established_pd(DAT_EVD_HANDLE evd)
{
	DAT_EVENT ev = sdt_wait(evd, 10000);
	DAT_CONNECTION_EVENT_DATA *c = &ev.event_data.connect_event_data;

	if (ev.event_number != DAT_CONNECTION_EVENT_ESTABLISHED)
		TEST_FAIL("connection event %s, expected ESTABLISHED",
			  conn_name(ev.event_number));
	return pdata_of(c->private_data, c->private_data_size);
}

/* ---- one EP's DTOs: exactly once, in order ------------------------ */

#define TRACK_MAX	512

/*
 * The cookies one EP posted, per queue in post order, and how many of
 * each queue completed. track_done checks each completion against the
 * contract: the oldest outstanding of its queue (so never twice, never
 * out of order), SUCCESS or FLUSHED, no success after a flush.
 */
struct track {
	const char	*who;
	uint64_t	req[TRACK_MAX], recv[TRACK_MAX];
	unsigned	nreq, nrecv;		/* posted */
	unsigned	req_done, recv_done;	/* completed */
	unsigned	req_ok, recv_ok;	/* of which successfully */
	bool		req_flushed, recv_flushed;
};

static void track_req(struct track *t, uint64_t c)
{
	ASSERT_LT(t->nreq, TRACK_MAX);
	t->req[t->nreq++] = c;
}

static void track_recv(struct track *t, uint64_t c)
{
	ASSERT_LT(t->nrecv, TRACK_MAX);
	t->recv[t->nrecv++] = c;
}

/* One completion of @t's EP: checked; returns whether it succeeded. */
static bool track_done(struct track *t, const DAT_EVENT *ev)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d =
		&ev->event_data.dto_completion_event_data;
	bool recv = d->operation == DAT_DTO_RECEIVE;
	uint64_t *q = recv ? t->recv : t->req;
	unsigned *done = recv ? &t->recv_done : &t->req_done;
	unsigned n = recv ? t->nrecv : t->nreq;
	bool *flushed = recv ? &t->recv_flushed : &t->req_flushed;
	uint64_t c = d->user_cookie.as_64;

	if (ev->event_number != DAT_DTO_COMPLETION_EVENT)
		TEST_FAIL("%s: event 0x%x, expected a DTO completion", t->who,
			  (unsigned)ev->event_number);
	if (*done >= n)
		TEST_FAIL("%s: cookie 0x%llx completed with nothing outstanding "
			  "(a second completion)", t->who, (unsigned long long)c);
	if (c != q[*done])
		TEST_FAIL("%s: cookie 0x%llx completed where 0x%llx was next "
			  "(twice, lost or out of order)", t->who,
			  (unsigned long long)c, (unsigned long long)q[*done]);
	(*done)++;
	if (d->status == DAT_DTO_SUCCESS) {
		if (*flushed)
			TEST_FAIL("%s: cookie 0x%llx succeeded after a flush",
				  t->who, (unsigned long long)c);
		if (recv)
			t->recv_ok++;
		else
			t->req_ok++;
		return true;
	}
	if (d->status != DAT_DTO_ERR_FLUSHED)
		TEST_FAIL("%s: cookie 0x%llx: status %d, expected SUCCESS or "
			  "FLUSHED", t->who, (unsigned long long)c, d->status);
	*flushed = true;
	return false;
}

static void track_all_done(const struct track *t)
{
	if (t->req_done != t->nreq || t->recv_done != t->nrecv)
		TEST_FAIL("%s: %u of %u requests and %u of %u receives "
			  "completed: lost completions", t->who, t->req_done,
			  t->nreq, t->recv_done, t->nrecv);
}

static unsigned track_flushed(const struct track *t)
{
	return (t->req_done - t->req_ok) + (t->recv_done - t->recv_ok);
}

/* ------------------------------------------------------------------ */
/* The switch: SOFTDAPL_FAULT                                          */

/*
 * A client in another process under SOFTDAPL_FAULT (argv: port, the
 * value or "-" for none, how many sends). It connects to the test's PSP
 * and sends @n messages of 1000 bytes one at a time, each waited for,
 * until one is flushed; then prints "probe: sends_ok=K event=NAME" (the
 * connection's end: a cut, or its own graceful disconnect). @n 0 only
 * opens and closes an IA: enough for SOFTDAPL_FAULT to be read.
 */
HELPER_IMPL(faults_probe)
{
	DAT_CONN_QUAL port = strtoull(argv[1], NULL, 10);
	int n = atoi(argv[3]), ok = 0, k;
	DAT_IA_HANDLE ia;
	struct sdt_node c;
	DAT_EVENT ev;

	if (strcmp(argv[2], "-") != 0)
		test_setenv("SOFTDAPL_FAULT", argv[2]);
	else
		test_setenv("SOFTDAPL_FAULT", NULL);
	ia = sdt_open_ia(NULL, NULL);
	if (n == 0) {
		ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
		return 0;
	}
	sdt_node_init(&c, ia, NULL, 1 << 16);
	sdt_connect_to(ia, c.ep, port, DAT_TIMEOUT_INFINITE);
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	for (k = 0; k < n; k++) {
		DAT_DTO_COMPLETION_EVENT_DATA *d;

		fill_pat((uint8_t *)c.buf + (k % 64) * 1000, 1000, (uint64_t)k);
		ASSERT_OK(sdt_send(&c, (size_t)(k % 64) * 1000, 1000,
				   (uint64_t)k, 0));
		ev = sdt_wait(c.req_evd, 10000);
		d = &ev.event_data.dto_completion_event_data;
		ASSERT_EQ(d->user_cookie.as_64, (uint64_t)k);
		if (d->status != DAT_DTO_SUCCESS) {
			ASSERT_EQ(d->status, DAT_DTO_ERR_FLUSHED);
			break;
		}
		ok++;
	}
	if (k == n)
		ASSERT_OK(dat_ep_disconnect(c.ep, DAT_CLOSE_GRACEFUL_FLAG));
	ev = sdt_wait(c.conn_evd, 10000);
	printf("probe: sends_ok=%d event=%s\n", ok, conn_name(ev.event_number));
	fflush(stdout);
	sdt_node_fini(&c);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

struct probe {
	int		sends_ok;	/* the probe's, from its output */
	char		event[32];	/* its connection's end */
	unsigned	recvs_ok;	/* ours */
	DAT_EVENT_NUMBER srv_event;	/* our connection's end */
	char		*out;		/* what it printed (stdout, stderr) */
};

/*
 * Runs faults_probe with SOFTDAPL_FAULT=@spec (NULL: unset) and serves
 * it on @s (receives posted, every message checked); fills @r. @debug
 * sets SOFTDAPL_DEBUG=1 for the probe. @s is left UNCONNECTED.
 */
static void run_probe(struct sdt_node *s, const char *spec, int n, bool debug,
		      struct probe *r)
{
	char port[32], num[16];
	const char *argv[] = { test_self_exe(), "--helper", "faults_probe",
			       port, spec ? spec : "-", num, NULL };
	struct track t = { .who = "probe's server" };
	test_helper_t *h;
	const char *p;
	DAT_EVENT ev;
	int status, k;

	memset(r, 0, sizeof(*r));
	snprintf(port, sizeof(port), "%llu", (unsigned long long)s->port);
	snprintf(num, sizeof(num), "%d", n);
	for (k = 0; k < n && k < 64; k++) {
		ASSERT_OK(sdt_recv(s, (size_t)k * 1000, 1000, (uint64_t)k));
		track_recv(&t, (uint64_t)k);
	}
	test_setenv("SOFTDAPL_DEBUG", debug ? "1" : NULL);
	h = test_spawn_cmd(argv);
	test_setenv("SOFTDAPL_DEBUG", NULL);
	if (n > 0) {
		ASSERT_OK(dat_cr_accept(sdt_expect_cr(s->cr_evd, NULL), s->ep,
					0, NULL));
		sdt_expect_conn(s->conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
		ev = sdt_wait(s->conn_evd, 20000);
		r->srv_event = ev.event_number;
		while (sdt_poll(s->recv_evd, &ev)) {
			k = (int)ev.event_data.dto_completion_event_data.user_cookie.as_64;
			if (track_done(&t, &ev))
				ASSERT_EQ(check_pat((uint8_t *)s->buf + k * 1000,
						    1000, (uint64_t)k), 1000);
		}
		/* Receives beyond what the probe sends stay posted... */
		if (r->srv_event == DAT_CONNECTION_EVENT_ESTABLISHED)
			TEST_FAIL("a second ESTABLISHED");
		track_all_done(&t);	/* ...until the connection ends */
		r->recvs_ok = t.recv_ok;
		ASSERT_OK(dat_ep_reset(s->ep));
	}
	ASSERT_OK(test_helper_wait(h, 30, &status));
	r->out = strdup(test_helper_output(h));
	ASSERT_NOT_NULL(r->out);
	test_helper_free(h);
	ASSERT_EXIT_OK(status);
	p = strstr(r->out, "probe: sends_ok=");
	if (n > 0) {
		ASSERT_NOT_NULL(p);
		ASSERT_EQ(sscanf(p, "probe: sends_ok=%d event=%31s", &r->sends_ok,
				 r->event), 2);
	}
	printf("SOFTDAPL_FAULT=%s: probe sends_ok=%d %s, server receives %u %s\n",
	       spec ? spec : "(unset)", r->sends_ok, r->event, r->recvs_ok,
	       n > 0 ? conn_name(r->srv_event) : "-");
}

/* The number after "cut after " in @out, or -1. */
static int cut_after(const char *out)
{
	const char *p = strstr(out, "cut after ");

	return p != NULL ? atoi(p + 10) : -1;
}

/*
 * SOFTDAPL_FAULT: each malformed value is refused with a message naming
 * it and the reason, and leaves faults off (64 messages go through);
 * drop_after=10 cuts the probe's connection after its 10th frame (its
 * 10th message, written and flushed, its ack never read) and both ends
 * see BROKEN, the server having received all 10; cut=P cuts at the same
 * frame on each run with the same seed; delay_us holds writes back and
 * loses nothing.
 */
TEST_IMPL(provider_faults_switch)
{
	static const struct {
		const char *spec, *why;
	} bad[] = {
		{ "bogus=1", "unknown name \"bogus\"" },
		{ "drop_after=0", "bad value \"0\" for drop_after" },
		{ "drop_after=ten", "bad value \"ten\" for drop_after" },
		{ "cut=1.5", "bad value \"1.5\" for cut" },
		{ "cut=-0.1", "bad value \"-0.1\" for cut" },
		{ "delay_us=2000000", "bad value \"2000000\" for delay_us" },
		{ "seed=1", "names no fault" },
		{ "drop_after=5,drop_after=6", "drop_after given twice" },
		{ "drop_after", "\"drop_after\" is not name=value" },
	};
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	struct probe r, r2;
	struct sdt_node s;
	char spec[128], msg[256];
	uint64_t t0;
	unsigned i;
	int same = 0;

	sdt_node_init(&s, ia, NULL, 1 << 16);
	ASSERT_OK(dat_psp_create_any(ia, &s.port, s.cr_evd,
				     DAT_PSP_CONSUMER_FLAG, &s.psp));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		run_probe(&s, bad[i].spec, 0, false, &r);
		snprintf(msg, sizeof(msg), "softdapl: SOFTDAPL_FAULT=%s: %s",
			 bad[i].spec, bad[i].why);
		ASSERT_STR_CONTAINS(r.out, msg);
		ASSERT_STR_CONTAINS(r.out, "; fault injection stays off");
		free(r.out);
	}
	/* Off: nothing is cut. */
	run_probe(&s, "bogus=1,drop_after=3", 64, false, &r);
	ASSERT_EQ(r.sends_ok, 64);
	ASSERT_STR_EQ(r.event, "DISCONNECTED");
	ASSERT_EQ(r.recvs_ok, 64);
	ASSERT(strstr(r.out, "fault:") == NULL);
	free(r.out);

	/* drop_after=10: the probe writes 10 frames, all SENDs. */
	run_probe(&s, "seed=7,drop_after=10", 64, false, &r);
	ASSERT_STR_CONTAINS(r.out, "softdapl: fault injection on: seed=7 "
			    "drop_after=10 delay_us=0 cut=0");
	ASSERT_STR_CONTAINS(r.out, "cut after 10 frames (drop_after)");
	ASSERT_EQ(r.sends_ok, 9);
	ASSERT_STR_EQ(r.event, "BROKEN");
	ASSERT_EQ(r.recvs_ok, 10);
	ASSERT_EQ(r.srv_event, DAT_CONNECTION_EVENT_BROKEN);
	free(r.out);

	/* cut=P: the same seed cuts after the same frame. */
	for (i = 0; i < 3; i++) {
		snprintf(spec, sizeof(spec), "seed=%u,cut=0.08", 100 + i);
		run_probe(&s, spec, 64, false, &r);
		run_probe(&s, spec, 64, false, &r2);
		ASSERT_EQ(r.sends_ok, r2.sends_ok);
		ASSERT_EQ(cut_after(r.out), cut_after(r2.out));
		if (r.sends_ok < 64) {
			ASSERT_EQ(cut_after(r.out), r.sends_ok + 1);
			ASSERT_STR_EQ(r.event, "BROKEN");
			ASSERT_EQ(r.recvs_ok, (unsigned)r.sends_ok + 1);
			ASSERT_EQ(r.srv_event, DAT_CONNECTION_EVENT_BROKEN);
			same++;
		}
		free(r.out);
		free(r2.out);
	}
	ASSERT_GT(same, 0);	/* P = 0.08 over 64 frames: cut (99.5%) */

	/* delay_us: every write waits, nothing is lost. */
	t0 = test_now_ms();
	run_probe(&s, "seed=3,delay_us=4000", 32, true, &r);
	printf("delay_us=4000: 32 messages in %llu ms\n",
	       (unsigned long long)(test_now_ms() - t0));
	ASSERT_STR_CONTAINS(r.out, "write held");
	ASSERT_EQ(r.sends_ok, 32);
	ASSERT_EQ(r.recvs_ok, 32);
	ASSERT_STR_EQ(r.event, "DISCONNECTED");
	free(r.out);

	sdt_node_fini(&s);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* The exactly-once checker                                            */

/*
 * Two processes, a client and a server (faults_stress), each under a
 * SOFTDAPL_FAULT of its own, join NC connections. On each, for each
 * round, both sides post NRECV receives, then NREQ requests (sends, RDMA
 * writes into the peer's wdst, RDMA reads of the peer's rsrc, in an
 * order drawn from the seed) through a queue DEPTH deep, posting more as
 * completions come. A round ends with the connection: cut by the fault
 * switch, disconnected abruptly by either side at random, or gracefully
 * by the client once everything completed; both sides then account for
 * every cookie, check their memory, write a line per round to a file,
 * reset the EP and, the client, connect again, for ROUNDS rounds.
 *
 * Each side checks alone: each cookie completes once, in order, SUCCESS
 * then FLUSHED; a received message is the peer's next send, whole; a
 * read's bytes are the peer's; the bytes of the peer's writes in wdst
 * are each the write's or untouched. The test then checks across: every
 * send that succeeded was received, every write that succeeded is whole
 * in the peer's memory, nothing succeeded in a round the server never
 * saw.
 */
#define NC	4
#define NRECV	16
#define NSEND	16
#define NWRITE	12
#define NREAD	8
#define NREQ	(NSEND + NWRITE + NREAD)
#define SLOT	4096
#define DEPTH	16
#define FILL	0xa5
#define ROUNDS	200
#define BYE	0xffffffu

enum { K_RECV = 1, K_SEND, K_WRITE, K_READ };
enum { S_IDLE, S_CONNECTING, S_UP, S_CLOSING, S_ENDED, S_DONE };

/* One connection's part of a side's registered memory. */
struct area {
	uint8_t	recv[NRECV][SLOT];
	uint8_t	send[NSEND][SLOT];
	uint8_t	wsrc[NWRITE][SLOT];
	uint8_t	wdst[NWRITE][SLOT];	/* the peer's writes land here */
	uint8_t	rsrc[NREAD][SLOT];	/* the peer reads from here */
	uint8_t	rdst[NREAD][SLOT];
};

struct sconn {
	int		i;
	DAT_EP_HANDLE	ep;
	int		state;
	unsigned	round, rounds;	/* this one; how many begun */
	DAT_EVENT_NUMBER end;		/* how it ended */
	DAT_RMR_CONTEXT	prctx;		/* the peer's memory */
	uint64_t	pbase;
	uint8_t		plan[NREQ];	/* kinds, in post order */
	uint64_t	posted[NREQ];	/* cookies, in post order */
	unsigned	nposted, ndone, rdone;
	unsigned	nkind[K_READ + 1];
	bool		req_flushed, recv_flushed;
	unsigned	sends_ok, recvs_ok, reads_ok;
	uint64_t	writes_ok;
	DAT_CR_HANDLE	pending;	/* server: a request waiting for it */
	struct mem_pdata pending_pd;
	unsigned	last_round;	/* server: the newest request's */
};

struct stress {
	int		side;		/* 0 client, 1 server */
	uint64_t	rng;
	DAT_IA_HANDLE	ia;
	DAT_PZ_HANDLE	pz;
	DAT_EVD_HANDLE	evd;		/* every event of the side */
	DAT_PSP_HANDLE	psp;
	DAT_CONN_QUAL	port;
	struct area	*a;		/* [NC] */
	DAT_LMR_HANDLE	lmr;
	DAT_LMR_CONTEXT	lctx;
	DAT_RMR_CONTEXT	rctx;
	struct sconn	c[NC];
	FILE		*out;
	bool		bye;
	unsigned	abrupt_odds;
	unsigned long	cookies, ok, flushed, abrupt, ends[4];
};

static uint64_t cookie(int side, int conn, unsigned round, int kind, unsigned idx)
{
	return (uint64_t)side << 62 | (uint64_t)conn << 56 |
	       (uint64_t)round << 32 | (uint64_t)kind << 24 | idx;
}

/* A send's length (its first 8 bytes are its cookie); an RDMA's. */
static size_t send_len(uint64_t c)
{
	return 8 + (size_t)(mix(c) % (SLOT - 7));
}

static size_t rdma_len(uint64_t c)
{
	return 1 + (size_t)(mix(c) % SLOT);
}

/* The pattern of rsrc slot @k of connection @i of side @side. */
static uint64_t rsrc_key(int side, int i, unsigned k)
{
	return cookie(side, i, 0xffffff, K_READ, k);
}

static DAT_LMR_TRIPLET ltri(const struct stress *t, const void *p, size_t len)
{
	DAT_LMR_TRIPLET l;

	l.virtual_address = (DAT_VADDR)(uintptr_t)p;
	l.segment_length = (DAT_SEG_LENGTH)len;
	l.lmr_context = t->lctx;
	return l;
}

/* The peer's memory: @off into connection @c's area. */
static DAT_RMR_TRIPLET rtri(const struct sconn *c, size_t off, size_t len)
{
	DAT_RMR_TRIPLET r;

	r.virtual_address = c->pbase + (uint64_t)c->i * sizeof(struct area) + off;
	r.segment_length = (DAT_SEG_LENGTH)len;
	r.rmr_context = c->prctx;
	return r;
}

static struct sconn *conn_of(struct stress *t, DAT_EP_HANDLE ep)
{
	int i;

	for (i = 0; i < NC; i++)
		if (t->c[i].ep == ep)
			return &t->c[i];
	TEST_FAIL("an event names an EP that is not ours");
}

/* A new round on @c: counters, plan, untouched wdst, receives posted. */
static void round_begin(struct stress *t, struct sconn *c, unsigned round)
{
	struct area *a = &t->a[c->i];
	unsigned k;

	c->round = round;
	c->rounds++;
	c->nposted = c->ndone = c->rdone = 0;
	memset(c->nkind, 0, sizeof(c->nkind));
	c->req_flushed = c->recv_flushed = false;
	c->sends_ok = c->recvs_ok = c->reads_ok = 0;
	c->writes_ok = 0;
	for (k = 0; k < NREQ; k++)
		c->plan[k] = k < NSEND ? K_SEND : k < NSEND + NWRITE ? K_WRITE :
			     K_READ;
	for (k = NREQ - 1; k > 0; k--) {	/* Fisher-Yates */
		unsigned j = (unsigned)(rnd(&t->rng) % (k + 1));
		uint8_t x = c->plan[k];

		c->plan[k] = c->plan[j];
		c->plan[j] = x;
	}
	memset(a->wdst, FILL, sizeof(a->wdst));
	for (k = 0; k < NRECV; k++) {
		DAT_LMR_TRIPLET l = ltri(t, a->recv[k], SLOT);

		ASSERT_OK(dat_ep_post_recv(c->ep, 1, &l,
					   ck(cookie(t->side, c->i, round, K_RECV, k)),
					   DAT_COMPLETION_DEFAULT_FLAG));
		t->cookies++;
	}
}

/* Posts requests while the plan has some and the queue has room. */
static void post_more(struct stress *t, struct sconn *c)
{
	struct area *a = &t->a[c->i];

	while (c->state == S_UP && c->nposted < NREQ &&
	       c->nposted - c->ndone < DEPTH) {
		int kind = c->plan[c->nposted];
		unsigned k = c->nkind[kind]++;
		uint64_t id = cookie(t->side, c->i, c->round, kind, k);
		DAT_LMR_TRIPLET l;
		DAT_RMR_TRIPLET r;
		DAT_RETURN ret;
		size_t len;

		switch (kind) {
		case K_SEND:
			len = send_len(id);
			memcpy(a->send[k], &id, 8);
			fill_pat(a->send[k] + 8, len - 8, id);
			l = ltri(t, a->send[k], len);
			ret = dat_ep_post_send(c->ep, 1, &l, ck(id),
					       DAT_COMPLETION_DEFAULT_FLAG);
			break;
		case K_WRITE:
			len = rdma_len(id);
			fill_pat(a->wsrc[k], len, id);
			l = ltri(t, a->wsrc[k], len);
			r = rtri(c, offsetof(struct area, wdst) + k * SLOT, len);
			ret = dat_ep_post_rdma_write(c->ep, 1, &l, ck(id), &r,
						     DAT_COMPLETION_DEFAULT_FLAG);
			break;
		default:
			len = rdma_len(id);
			memset(a->rdst[k], 0, SLOT);
			l = ltri(t, a->rdst[k], len);
			r = rtri(c, offsetof(struct area, rsrc) + k * SLOT, len);
			ret = dat_ep_post_rdma_read(c->ep, 1, &l, ck(id), &r,
						    DAT_COMPLETION_DEFAULT_FLAG);
			break;
		}
		if (ret != DAT_SUCCESS)
			TEST_FAIL("conn %d round %u: post of 0x%llx: 0x%08x",
				  c->i, c->round, (unsigned long long)id,
				  (unsigned)ret);
		c->posted[c->nposted++] = id;
		t->cookies++;
	}
}

/* A receive completed: the peer's next send, whole, or a flush. */
static void recv_done(struct stress *t, struct sconn *c,
		      const DAT_DTO_COMPLETION_EVENT_DATA *d)
{
	uint64_t want = cookie(t->side, c->i, c->round, K_RECV, c->rdone);
	const uint8_t *buf;
	uint64_t s, got;
	size_t len, bad;

	if (c->rdone >= NRECV || d->user_cookie.as_64 != want)
		TEST_FAIL("conn %d round %u: receive 0x%llx completed where 0x%llx "
			  "was next (twice, lost or out of order)", c->i, c->round,
			  (unsigned long long)d->user_cookie.as_64,
			  (unsigned long long)want);
	buf = t->a[c->i].recv[c->rdone++];
	if (d->status == DAT_DTO_ERR_FLUSHED) {
		c->recv_flushed = true;
		t->flushed++;
		return;
	}
	if (d->status != DAT_DTO_SUCCESS || c->recv_flushed)
		TEST_FAIL("conn %d round %u: receive 0x%llx: status %d%s", c->i,
			  c->round, (unsigned long long)want, d->status,
			  c->recv_flushed ? " after a flush" : "");
	s = cookie(!t->side, c->i, c->round, K_SEND, c->recvs_ok);
	len = send_len(s);
	memcpy(&got, buf, 8);
	if (got != s || d->transfered_length != len)
		TEST_FAIL("conn %d round %u: receive %u holds 0x%llx (%llu bytes), "
			  "expected the peer's send 0x%llx (%zu bytes)", c->i,
			  c->round, c->recvs_ok, (unsigned long long)got,
			  (unsigned long long)d->transfered_length,
			  (unsigned long long)s, len);
	bad = check_pat(buf + 8, len - 8, s);
	if (bad != len - 8)
		TEST_FAIL("conn %d round %u: receive of 0x%llx wrong at byte %zu",
			  c->i, c->round, (unsigned long long)s, bad + 8);
	c->recvs_ok++;
	t->ok++;
}

/* A request completed: the oldest outstanding, SUCCESS then FLUSHED. */
static void req_done(struct stress *t, struct sconn *c,
		     const DAT_DTO_COMPLETION_EVENT_DATA *d)
{
	static const DAT_DTOS op[] = {
		[K_SEND] = DAT_DTO_SEND,
		[K_WRITE] = DAT_DTO_RDMA_WRITE,
		[K_READ] = DAT_DTO_RDMA_READ,
	};
	uint64_t id = d->user_cookie.as_64;
	int kind = (int)(id >> 24 & 0xff);
	unsigned k = (unsigned)(id & 0xffffff);
	size_t bad;

	if (c->ndone >= c->nposted || id != c->posted[c->ndone])
		TEST_FAIL("conn %d round %u: request 0x%llx completed where "
			  "%s was next (twice, lost or out of order)", c->i,
			  c->round, (unsigned long long)id,
			  c->ndone < c->nposted ? "another" : "none");
	ASSERT_EQ(d->operation, op[kind]);
	c->ndone++;
	if (d->status == DAT_DTO_ERR_FLUSHED) {
		c->req_flushed = true;
		t->flushed++;
		return;
	}
	if (d->status != DAT_DTO_SUCCESS || c->req_flushed)
		TEST_FAIL("conn %d round %u: request 0x%llx: status %d%s", c->i,
			  c->round, (unsigned long long)id, d->status,
			  c->req_flushed ? " after a flush" : "");
	t->ok++;
	switch (kind) {
	case K_SEND:
		ASSERT_EQ(d->transfered_length, send_len(id));
		c->sends_ok++;
		break;
	case K_WRITE:
		ASSERT_EQ(d->transfered_length, rdma_len(id));
		c->writes_ok |= 1ull << k;
		break;
	default:
		ASSERT_EQ(d->transfered_length, rdma_len(id));
		bad = check_pat(t->a[c->i].rdst[k], rdma_len(id),
				rsrc_key(!t->side, c->i, k));
		if (bad != rdma_len(id))
			TEST_FAIL("conn %d round %u: read 0x%llx wrong at byte %zu",
				  c->i, c->round, (unsigned long long)id, bad);
		c->reads_ok++;
		break;
	}
}

static void client_begin(struct stress *t, struct sconn *c);
static void server_accept(struct stress *t, struct sconn *c);

/*
 * The round is over once its connection ended and every cookie came
 * back (completions of posts made after the end, flushed at once, may
 * come after the connection event). Checks the peer's writes into wdst,
 * records the round, resets the EP, starts what comes next.
 */
static void round_end(struct stress *t, struct sconn *c)
{
	struct area *a = &t->a[c->i];
	uint64_t whole = 0;
	unsigned k;

	if (c->state != S_ENDED || c->ndone < c->nposted || c->rdone < NRECV)
		return;
	for (k = 0; k < NWRITE; k++) {
		uint64_t w = cookie(!t->side, c->i, c->round, K_WRITE, k);
		size_t len = rdma_len(w), i, same = 0;

		for (i = 0; i < SLOT; i++) {
			uint8_t b = a->wdst[k][i];

			if (i < len && b == pat(w, i))
				same++;
			else if (b != FILL)
				TEST_FAIL("conn %d round %u: wdst %u byte %zu is "
					  "0x%02x: neither the write 0x%llx's nor "
					  "untouched", c->i, c->round, k, i, b,
					  (unsigned long long)w);
		}
		if (same == len)
			whole |= 1ull << k;
	}
	fprintf(t->out, "%d %u %u %u %llx %llx %u %s\n", c->i, c->round,
		c->sends_ok, c->recvs_ok, (unsigned long long)c->writes_ok,
		(unsigned long long)whole, c->reads_ok, conn_name(c->end));
	fflush(t->out);
	t->ends[c->end == DAT_CONNECTION_EVENT_BROKEN ? 0 :
		c->end == DAT_CONNECTION_EVENT_DISCONNECTED ? 1 : 2]++;
	ASSERT_EQ(sdt_ep_state(c->ep), DAT_EP_STATE_DISCONNECTED);
	ASSERT_OK(dat_ep_reset(c->ep));
	c->state = S_IDLE;
	if (t->side == 0) {
		if (c->rounds < ROUNDS)
			client_begin(t, c);
		else
			c->state = S_DONE;
	} else if (c->pending != DAT_HANDLE_NULL) {
		server_accept(t, c);
	}
}

/* Client: round @c->rounds + 1: receives, then connect. */
static void client_begin(struct stress *t, struct sconn *c)
{
	struct mem_pdata m;

	round_begin(t, c, c->rounds + 1);
	m = mem_pdata((uint32_t)c->i, c->round, t->rctx, t->a);
	connect_pd(t->ia, c->ep, t->port, m);
	c->state = S_CONNECTING;
}

/* Server: the request waiting for @c (idle) is accepted. */
static void server_accept(struct stress *t, struct sconn *c)
{
	struct mem_pdata m = c->pending_pd;

	round_begin(t, c, m.round);
	c->prctx = m.rctx;
	c->pbase = m.base;
	m = mem_pdata((uint32_t)c->i, c->round, t->rctx, t->a);
	ASSERT_OK(dat_cr_accept(c->pending, c->ep, sizeof(m), &m));
	c->pending = DAT_HANDLE_NULL;
	c->state = S_CONNECTING;
}

/* Server: a connection request; its EP may still be busy. */
static void server_cr(struct stress *t, const DAT_EVENT *ev)
{
	DAT_CR_HANDLE cr = ev->event_data.cr_arrival_event_data.cr_handle;
	struct mem_pdata m;
	struct sconn *c;
	DAT_CR_PARAM p;

	ASSERT_OK(dat_cr_query(cr, DAT_CR_FIELD_ALL, &p));
	m = pdata_of(p.private_data, p.private_data_size);
	ASSERT_LT(m.conn, NC);
	if (m.round == BYE) {
		ASSERT_OK(dat_cr_reject(cr, 0, NULL));
		t->bye = true;
		return;
	}
	c = &t->c[m.conn];
	if (m.round <= c->last_round)
		TEST_FAIL("conn %u: request for round %u after round %u", m.conn,
			  m.round, c->last_round);
	c->last_round = m.round;
	/* The client gave up on the older one (it timed out). */
	if (c->pending != DAT_HANDLE_NULL)
		ASSERT_OK(dat_cr_reject(c->pending, 0, NULL));
	c->pending = cr;
	c->pending_pd = m;
	if (c->state == S_IDLE)
		server_accept(t, c);
}

static void on_event(struct stress *t, const DAT_EVENT *ev)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	const DAT_CONNECTION_EVENT_DATA *ce;
	struct sconn *c;

	switch (ev->event_number) {
	case DAT_CONNECTION_REQUEST_EVENT:
		ASSERT_EQ(t->side, 1);
		server_cr(t, ev);
		return;
	case DAT_DTO_COMPLETION_EVENT:
		d = &ev->event_data.dto_completion_event_data;
		c = conn_of(t, d->ep_handle);
		if (d->operation == DAT_DTO_RECEIVE)
			recv_done(t, c, d);
		else
			req_done(t, c, d);
		if (c->state == S_UP) {
			if (rnd(&t->rng) % t->abrupt_odds == 0) {
				ASSERT_OK(dat_ep_disconnect(c->ep,
							    DAT_CLOSE_ABRUPT_FLAG));
				c->state = S_CLOSING;
				t->abrupt++;
				return;
			}
			post_more(t, c);
			/* Client: all done, the server's sends all in. */
			if (t->side == 0 && c->ndone == NREQ &&
			    c->rdone == NRECV) {
				ASSERT_OK(dat_ep_disconnect(c->ep,
							    DAT_CLOSE_GRACEFUL_FLAG));
				c->state = S_CLOSING;
			}
		}
		round_end(t, c);
		return;
	default:
		break;
	}
	ce = &ev->event_data.connect_event_data;
	c = conn_of(t, ce->ep_handle);
	if (ev->event_number == DAT_CONNECTION_EVENT_ESTABLISHED) {
		ASSERT_EQ(c->state, S_CONNECTING);
		if (t->side == 0) {
			struct mem_pdata m = pdata_of(ce->private_data,
						      ce->private_data_size);

			ASSERT_EQ(m.conn, (uint32_t)c->i);
			ASSERT_EQ(m.round, c->round);
			c->prctx = m.rctx;
			c->pbase = m.base;
		}
		c->state = S_UP;
		post_more(t, c);
		return;
	}
	if (c->state != S_CONNECTING && c->state != S_UP &&
	    c->state != S_CLOSING)
		TEST_FAIL("conn %d round %u: %s in state %d", c->i, c->round,
			  conn_name(ev->event_number), c->state);
	c->end = ev->event_number;
	c->state = S_ENDED;
	round_end(t, c);
}

static bool stress_done(const struct stress *t)
{
	int i;

	for (i = 0; i < NC; i++) {
		if (t->side == 0 && t->c[i].state != S_DONE)
			return false;
		if (t->side == 1 && (t->c[i].state != S_IDLE ||
				     t->c[i].pending != DAT_HANDLE_NULL))
			return false;
	}
	return t->side == 0 || t->bye;
}

/*
 * run-tests --helper faults_stress client|server SEED SOFTDAPL_FAULT
 * [PORT]: one side of the exactly-once checker. The server reports its
 * port on the readiness line; the client is given it. Each writes a line
 * per round to faults-<side>.txt and exits 0 if every check passed.
 */
HELPER_IMPL(faults_stress)
{
	struct stress *t = calloc(1, sizeof(*t));
	DAT_REGION_DESCRIPTION rd;
	DAT_EP_ATTR attr = ep_attr(DEPTH);
	uint64_t deadline;
	DAT_VLEN rlen;
	DAT_VADDR raddr;
	DAT_EVENT ev;
	int i;
	unsigned k;

	ASSERT_NOT_NULL(t);
	t->side = strcmp(argv[1], "server") == 0;
	t->rng = strtoull(argv[2], NULL, 0);
	if (strcmp(argv[3], "-") != 0)
		test_setenv("SOFTDAPL_FAULT", argv[3]);
	t->abrupt_odds = 400;
	t->out = fopen(t->side ? "faults-server.txt" : "faults-client.txt", "w");
	ASSERT_NOT_NULL(t->out);

	t->ia = sdt_open_ia(NULL, NULL);
	ASSERT_OK(dat_pz_create(t->ia, &t->pz));
	ASSERT_OK(dat_evd_create(t->ia, 4096, DAT_HANDLE_NULL,
				 DAT_EVD_DTO_FLAG | DAT_EVD_CONNECTION_FLAG |
				 DAT_EVD_CR_FLAG, &t->evd));
	t->a = aligned_alloc(4096, NC * sizeof(struct area));
	ASSERT_NOT_NULL(t->a);
	memset(t->a, 0, NC * sizeof(struct area));
	rd.for_va = t->a;
	ASSERT_OK(dat_lmr_create(t->ia, DAT_MEM_TYPE_VIRTUAL, rd,
				 NC * sizeof(struct area), t->pz,
				 DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &t->lmr,
				 &t->lctx, &t->rctx, &rlen, &raddr));
	for (i = 0; i < NC; i++) {
		t->c[i].i = i;
		ASSERT_OK(dat_ep_create(t->ia, t->pz, t->evd, t->evd, t->evd,
					&attr, &t->c[i].ep));
		for (k = 0; k < NREAD; k++)
			fill_pat(t->a[i].rsrc[k], SLOT, rsrc_key(t->side, i, k));
	}
	if (t->side == 1) {
		ASSERT_OK(dat_psp_create_any(t->ia, &t->port, t->evd,
					     DAT_PSP_CONSUMER_FLAG, &t->psp));
		test_helper_ready("%llu", (unsigned long long)t->port);
	} else {
		t->port = strtoull(argv[4], NULL, 10);
		for (i = 0; i < NC; i++)
			client_begin(t, &t->c[i]);
	}

	deadline = test_now_ms() + (uint64_t)(60000 * test_timeout_scale());
	while (!stress_done(t)) {
		DAT_COUNT nmore;
		DAT_RETURN r = dat_evd_wait(t->evd, 1000000, 1, &ev, &nmore);

		if (r == DAT_SUCCESS) {
			on_event(t, &ev);
			continue;
		}
		ASSERT_EQ(DAT_GET_TYPE(r), DAT_TIMEOUT_EXPIRED);
		if (test_now_ms() > deadline) {
			for (i = 0; i < NC; i++)
				fprintf(stderr, "conn %d: round %u state %d: %u of "
					"%u requests, %u of %u receives done\n", i,
					t->c[i].round, t->c[i].state, t->c[i].ndone,
					t->c[i].nposted, t->c[i].rdone, NRECV);
			TEST_FAIL("%s: no progress: lost completions?",
				  t->side ? "server" : "client");
		}
	}
	if (t->side == 0) {
		/* Tell the server we are done: a request it refuses. */
		struct mem_pdata m = mem_pdata(0, BYE, t->rctx, t->a);

		connect_pd(t->ia, t->c[0].ep, t->port, m);
		ev = sdt_wait(t->evd, 20000);
		ASSERT_EQ(ev.event_number, DAT_CONNECTION_EVENT_PEER_REJECTED);
	}
	printf("%s: %u rounds ended BROKEN %lu, DISCONNECTED %lu, otherwise "
	       "%lu; %lu cookies: %lu succeeded, %lu flushed; %lu abrupt "
	       "disconnects\n", t->side ? "server" : "client",
	       (unsigned)(t->ends[0] + t->ends[1] + t->ends[2]), t->ends[0],
	       t->ends[1], t->ends[2], t->cookies, t->ok, t->flushed, t->abrupt);
	ASSERT_EQ(t->ok + t->flushed, t->cookies);
	fprintf(t->out, "total %lu %lu %lu %lu %lu\n", t->ends[0], t->ends[1],
		t->cookies, t->ok, t->flushed);
	fclose(t->out);

	if (t->psp != DAT_HANDLE_NULL)
		ASSERT_OK(dat_psp_free(t->psp));
	for (i = 0; i < NC; i++)
		ASSERT_OK(dat_ep_free(t->c[i].ep));
	ASSERT_OK(dat_lmr_free(t->lmr));
	ASSERT_OK(dat_evd_free(t->evd));
	ASSERT_OK(dat_pz_free(t->pz));
	ASSERT_OK(dat_ia_close(t->ia, DAT_CLOSE_GRACEFUL_FLAG));
	free(t->a);
	free(t);
	return 0;
}

/* One side's record of a round (a line of faults-<side>.txt). */
struct rec {
	bool		seen;
	unsigned	sends_ok, recvs_ok, reads_ok;
	unsigned long long writes_ok, whole;
	char		end[32];
};

/* Reads @path into @r[conn][round]; the totals line into @tot. */
static void read_recs(const char *path, struct rec r[NC][ROUNDS + 1],
		      unsigned long tot[5])
{
	char *text = test_read_file(path), *line, *save = NULL;
	int totals = 0;

	if (text == NULL)
		TEST_FAIL("%s: not written", path);
	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		struct rec x;
		int i;
		unsigned round;

		memset(&x, 0, sizeof(x));
		if (sscanf(line, "total %lu %lu %lu %lu %lu", &tot[0], &tot[1],
			   &tot[2], &tot[3], &tot[4]) == 5) {
			totals = 1;
			continue;
		}
		if (sscanf(line, "%d %u %u %u %llx %llx %u %31s", &i, &round,
			   &x.sends_ok, &x.recvs_ok, &x.writes_ok, &x.whole,
			   &x.reads_ok, x.end) != 8)
			TEST_FAIL("%s: bad line \"%s\"", path, line);
		ASSERT(i >= 0 && i < NC && round >= 1 && round <= ROUNDS);
		ASSERT(!r[i][round].seen);
		x.seen = true;
		r[i][round] = x;
	}
	if (!totals)
		TEST_FAIL("%s: no totals: the side did not finish", path);
	free(text);
}

/*
 * The checker: a client and a server process, both under fault
 * injection with seeds drawn from the test's, NC connections, ROUNDS
 * rounds each. Then, round by round, what one side saw succeed must
 * have happened at the other.
 */
TEST_IMPL(provider_faults_exactly_once)
{
	static struct rec cr[NC][ROUNDS + 1], sr[NC][ROUNDS + 1];
	uint64_t seed = test_seed(), s = seed;
	char cseed[32], sseed[32], cspec[128], sspec[128], port[32];
	unsigned long ctot[5], stot[5];
	test_helper_t *hs, *hc;
	const char *line;
	int status, i, r, srv_rounds = 0;

	snprintf(cseed, sizeof(cseed), "%llu", (unsigned long long)rnd(&s));
	snprintf(sseed, sizeof(sseed), "%llu", (unsigned long long)rnd(&s));
	snprintf(cspec, sizeof(cspec), "seed=%llu,cut=0.004,delay_us=300",
		 (unsigned long long)(rnd(&s) & 0xffffffff));
	snprintf(sspec, sizeof(sspec), "seed=%llu,drop_after=%u,delay_us=200",
		 (unsigned long long)(rnd(&s) & 0xffffffff),
		 (unsigned)(30 + rnd(&s) % 14));
	printf("seed %llu (rerun: SOFTDAPL_TEST_SEED=%llu run-tests "
	       "provider_faults_exactly_once)\n"
	       "server: SOFTDAPL_FAULT=%s, choices %s\n"
	       "client: SOFTDAPL_FAULT=%s, choices %s\n",
	       (unsigned long long)seed, (unsigned long long)seed, sspec,
	       sseed, cspec, cseed);
	fflush(stdout);

	hs = test_spawn_helper("faults_stress", "server", sseed, sspec, NULL);
	ASSERT_OK(test_helper_wait_ready(hs, &line));
	snprintf(port, sizeof(port), "%s", line);
	hc = test_spawn_helper("faults_stress", "client", cseed, cspec, port,
			       NULL);
	ASSERT_OK(test_helper_wait(hc, 80, &status));
	ASSERT_EXIT_OK(status);
	ASSERT_OK(test_helper_wait(hs, 20, &status));
	ASSERT_EXIT_OK(status);
	test_helper_free(hc);
	test_helper_free(hs);

	read_recs("faults-client.txt", cr, ctot);
	read_recs("faults-server.txt", sr, stot);
	for (i = 0; i < NC; i++) {
		for (r = 1; r <= ROUNDS; r++) {
			const struct rec *c = &cr[i][r], *v = &sr[i][r];

			if (!c->seen)
				TEST_FAIL("conn %d round %d: not in the client's "
					  "record", i, r);
			if (!v->seen) {
				/* The server never accepted it: no success. */
				if (c->sends_ok || c->writes_ok || c->reads_ok ||
				    c->recvs_ok)
					TEST_FAIL("conn %d round %d: successes in "
						  "a round the server never saw",
						  i, r);
				continue;
			}
			srv_rounds++;
			if (c->sends_ok > v->recvs_ok || v->sends_ok > c->recvs_ok)
				TEST_FAIL("conn %d round %d: sends succeeded that "
					  "were not received: client %u/%u, "
					  "server %u/%u (sent/received)", i, r,
					  c->sends_ok, c->recvs_ok, v->sends_ok,
					  v->recvs_ok);
			if ((c->writes_ok & ~v->whole) || (v->writes_ok & ~c->whole))
				TEST_FAIL("conn %d round %d: writes succeeded that "
					  "are not whole at the peer: client "
					  "%llx/%llx, server %llx/%llx "
					  "(succeeded/whole)", i, r, c->writes_ok,
					  c->whole, v->writes_ok, v->whole);
		}
	}
	printf("%d rounds at the client, %d at the server; client: BROKEN %lu, "
	       "DISCONNECTED %lu, %lu cookies, %lu ok, %lu flushed; server: "
	       "BROKEN %lu, DISCONNECTED %lu, %lu cookies, %lu ok, %lu flushed\n",
	       NC * ROUNDS, srv_rounds, ctot[0], ctot[1], ctot[2], ctot[3],
	       ctot[4], stot[0], stot[1], stot[2], stot[3], stot[4]);
	/* Faults were injected, and work got done between them. */
	ASSERT_GT(ctot[0] + stot[0], 0);
	ASSERT_GT(ctot[3], ctot[2] / 4);
	ASSERT_GT(stot[3], stot[2] / 4);
	return 0;
}

/* ------------------------------------------------------------------ */
/* A peer killed with SIGKILL                                          */

/*
 * Each side's memory: four regions of NB slots of MSG bytes: receives,
 * sources (sends, writes), the region the peer writes or reads (rdma),
 * and read destinations.
 */
#define NB	16
#define MSG	(512 * 1024)
#define R_RECV	0
#define R_SRC	1
#define R_RDMA	2
#define R_RDST	3
#define AT(n, reg, k)	((uint8_t *)(n)->buf + ((size_t)(reg) * NB + (k)) * MSG)
#define OFF(reg, k)	(((size_t)(reg) * NB + (k)) * MSG)

/* The pattern of slot @k of region @reg of side @side (0 test, 1 peer). */
static uint64_t slot_key(int side, int reg, unsigned k)
{
	return (uint64_t)side << 40 | (uint64_t)reg << 32 | k | 0x5100000000000ull;
}

/* Fills the source and RDMA regions of @n (side @side). */
static void fill_regions(struct sdt_node *n, int side)
{
	unsigned k;

	for (k = 0; k < NB; k++) {
		fill_pat(AT(n, R_SRC, k), MSG, slot_key(side, R_SRC, k));
		fill_pat(AT(n, R_RDMA, k), MSG, slot_key(side, R_RDMA, k));
	}
}

static DAT_RMR_TRIPLET peer_rmr(const struct mem_pdata *m, size_t off, size_t len)
{
	DAT_RMR_TRIPLET r;

	r.virtual_address = m->base + off;
	r.segment_length = (DAT_SEG_LENGTH)len;
	r.rmr_context = m->rctx;
	return r;
}

/*
 * Posts DTOs @from to @to - 1 of @mode ("send", "write", "read") on @x
 * towards the peer whose memory @m describes; side @side's cookies.
 * Receives for the peer's sends are the caller's.
 */
static void post_mode(struct sdt_node *x, struct track *t, const char *mode,
		      const struct mem_pdata *m, int side, unsigned from,
		      unsigned to)
{
	uint64_t base = strcmp(mode, "send") == 0 ? 0x100 :
			strcmp(mode, "write") == 0 ? 0x300 : 0x500;
	unsigned k;

	for (k = from; k < to; k++) {
		uint64_t id = (uint64_t)side << 32 | base | k;
		DAT_LMR_TRIPLET l;
		DAT_RMR_TRIPLET r;

		if (strcmp(mode, "send") == 0) {
			l = sdt_iov(x, OFF(R_SRC, k), MSG);
			ASSERT_OK(dat_ep_post_send(x->ep, 1, &l, ck(id),
						   DAT_COMPLETION_DEFAULT_FLAG));
		} else if (strcmp(mode, "write") == 0) {
			l = sdt_iov(x, OFF(R_SRC, k), MSG);
			r = peer_rmr(m, OFF(R_RDMA, k), MSG);
			ASSERT_OK(dat_ep_post_rdma_write(x->ep, 1, &l, ck(id), &r,
							 DAT_COMPLETION_DEFAULT_FLAG));
		} else {
			l = sdt_iov(x, OFF(R_RDST, k), MSG);
			r = peer_rmr(m, OFF(R_RDMA, k), MSG);
			ASSERT_OK(dat_ep_post_rdma_read(x->ep, 1, &l, ck(id), &r,
							DAT_COMPLETION_DEFAULT_FLAG));
		}
		track_req(t, id);
	}
}

static void post_recvs(struct sdt_node *x, struct track *t, int side, unsigned n)
{
	unsigned k;

	for (k = 0; k < n; k++) {
		uint64_t id = (uint64_t)side << 32 | 0x200 | k;

		ASSERT_OK(sdt_recv(x, OFF(R_RECV, k), MSG, id));
		track_recv(t, id);
	}
}

/*
 * run-tests --helper faults_victim PORT MODE: connects to the test's PSP
 * and, once connected, posts NB DTOs of MODE towards the test (for
 * "send" it also posts only 2 receives for the test's sends, which then
 * wait); says "go" and sleeps until it is killed.
 */
HELPER_IMPL(faults_victim)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	const char *mode = argv[2];
	struct track t = { .who = "victim" };
	struct mem_pdata m;
	struct sdt_node v;

	sdt_node_init(&v, ia, NULL, (size_t)4 * NB * MSG);
	fill_regions(&v, 1);
	if (strcmp(mode, "send") == 0)
		post_recvs(&v, &t, 1, 2);
	connect_pd(ia, v.ep, strtoull(argv[1], NULL, 10),
		   mem_pdata(0, 0, v.rctx, v.buf));
	m = established_pd(v.conn_evd);
	post_mode(&v, &t, mode, &m, 1, 0, NB);
	test_helper_ready("go");
	for (;;)
		pause();
	return 0;
}

/* Checks a successful DTO of the survivor's against the victim's data. */
static void check_survivor_dto(struct sdt_node *s, const DAT_EVENT *ev)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d =
		&ev->event_data.dto_completion_event_data;
	unsigned k = (unsigned)(d->user_cookie.as_64 & 0xff);

	if (d->operation == DAT_DTO_RECEIVE) {
		/* Receive k holds the victim's send k (in order). */
		ASSERT_EQ(d->transfered_length, MSG);
		ASSERT_EQ(check_pat(AT(s, R_RECV, k), MSG, slot_key(1, R_SRC, k)),
			  MSG);
	} else if (d->operation == DAT_DTO_RDMA_READ) {
		ASSERT_EQ(check_pat(AT(s, R_RDST, k), MSG, slot_key(1, R_RDMA, k)),
			  MSG);
	}
}

/*
 * The test survives a peer killed with SIGKILL while both move data in
 * @mode: it sees its connection end (BROKEN, or DISCONNECTED where the
 * kernel's close came between frames or as a reset), and every DTO it
 * posted completes exactly once, the ones in flight flushed.
 */
static int sigkill_case(const char *mode)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	struct track t = { .who = "survivor" };
	char port[32];
	struct mem_pdata m;
	struct sdt_node s;
	test_helper_t *h;
	DAT_EVENT_NUMBER end;
	DAT_EVENT ev;
	int status;

	sdt_node_init(&s, ia, NULL, (size_t)4 * NB * MSG);
	fill_regions(&s, 0);
	ASSERT_OK(dat_psp_create_any(ia, &s.port, s.cr_evd,
				     DAT_PSP_CONSUMER_FLAG, &s.psp));
	snprintf(port, sizeof(port), "%llu", (unsigned long long)s.port);
	if (strcmp(mode, "send") == 0)
		post_recvs(&s, &t, 0, NB);
	h = test_spawn_helper("faults_victim", port, mode, NULL);
	m = accept_pd(&s, s.ep, mem_pdata(0, 0, s.rctx, s.buf));
	sdt_expect_conn(s.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	ASSERT_OK(test_helper_wait_ready(h, NULL));
	if (strcmp(mode, "send") == 0) {
		post_mode(&s, &t, mode, &m, 0, 0, NB);
	} else {
		/*
		 * A SEND among the writes or reads finds no receive at the
		 * victim, which stops reading (RNR): what follows it is in
		 * flight, for sure, when the victim dies.
		 */
		DAT_LMR_TRIPLET l = sdt_iov(&s, OFF(R_SRC, 0), 100);

		post_mode(&s, &t, mode, &m, 0, 0, NB / 4);
		ASSERT_OK(dat_ep_post_send(s.ep, 1, &l, ck(0x700), 0));
		track_req(&t, 0x700);
		post_mode(&s, &t, mode, &m, 0, NB / 4, NB);
	}

	/* Data moves: kill the peer in the middle of it. */
	ev = sdt_wait(strcmp(mode, "send") == 0 ? s.recv_evd : s.req_evd, 10000);
	if (track_done(&t, &ev))
		check_survivor_dto(&s, &ev);
	ASSERT_OK(test_helper_kill(h, SIGKILL));
	ev = sdt_wait(s.conn_evd, 10000);
	end = ev.event_number;
	expect_end(end);
	while (sdt_poll(s.req_evd, &ev) || sdt_poll(s.recv_evd, &ev))
		if (track_done(&t, &ev))
			check_survivor_dto(&s, &ev);
	track_all_done(&t);
	printf("%s: %s; %u requests, %u succeeded; %u receives, %u succeeded\n",
	       mode, conn_name(end), t.nreq, t.req_ok, t.nrecv,
	       t.recv_ok);
	ASSERT_GT(track_flushed(&t), 0);	/* it died mid-stream */
	sdt_expect_none(s.conn_evd, 20);
	ASSERT_EQ(sdt_ep_state(s.ep), DAT_EP_STATE_DISCONNECTED);

	ASSERT_OK(test_helper_wait(h, 10, &status));
	ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	test_helper_free(h);
	sdt_node_fini(&s);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

TEST_IMPL(provider_faults_sigkill_send)
{
	return sigkill_case("send");
}

TEST_IMPL(provider_faults_sigkill_write)
{
	return sigkill_case("write");
}

TEST_IMPL(provider_faults_sigkill_read)
{
	return sigkill_case("read");
}

/* ------------------------------------------------------------------ */
/* A peer closing its socket half way through a frame                  */

/* A requester by hand (provider/proto.h), as in test-provider-conn2.c. */
static void raw_write(int fd, const void *buf, size_t len)
{
	ASSERT_EQ(send(fd, buf, len, MSG_NOSIGNAL), (ssize_t)len);
}

static void raw_read(int fd, void *buf, size_t len)
{
	size_t have = 0;

	while (have < len) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		ASSERT_EQ(poll(&p, 1, (int)(10000 * test_timeout_scale())), 1);
		n = recv(fd, (char *)buf + have, len - have, 0);
		ASSERT_GT(n, 0);
		have += (size_t)n;
	}
}

static void raw_cm(int fd, uint8_t type, uint64_t qual)
{
	uint8_t b[SD_CM_MSG_SIZE];
	struct sd_cm_msg m;

	memset(&m, 0, sizeof(m));
	m.magic = SD_PROTO_MAGIC;
	m.version = SD_PROTO_VERSION;
	m.type = type;
	m.conn_qual = qual;
	m.max_msg = 1u << 20;
	m.max_rdma = 1u << 20;
	m.rd_in = 4;
	m.rd_out = 4;
	sd_cm_pack(&m, b);
	raw_write(fd, b, sizeof(b));
}

/* @s's EP connected to a raw requester: its socket. */
static int raw_connect(struct sdt_node *s)
{
	uint8_t b[SD_CM_MSG_SIZE + SD_PROTO_MAX_PDATA];
	struct sockaddr_storage ss;
	struct sd_cm_msg m;
	int fd;

	sdt_ia_addr(s->ia, &ss);
	((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)s->port);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_GE(fd, 0);
	ASSERT_OK(connect(fd, (struct sockaddr *)&ss, sizeof(struct sockaddr_in)));
	raw_cm(fd, SD_CM_HELLO, s->port);
	ASSERT_OK(dat_cr_accept(sdt_expect_cr(s->cr_evd, NULL), s->ep, 0, NULL));
	raw_read(fd, b, SD_CM_MSG_SIZE);
	sd_cm_unpack(&m, b);
	ASSERT_EQ(m.type, SD_CM_ACCEPT);
	raw_read(fd, b, m.pdata_len);
	raw_cm(fd, SD_CM_RTU, 0);
	sdt_expect_conn(s->conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	return fd;
}

/*
 * The raw peer's end: its write side shut (the victim reads the end of
 * the stream where the bytes stop), then what the victim sent drained
 * until it closes too, so that closing sends no reset.
 */
static void raw_finish(int fd)
{
	char b[4096];

	ASSERT_OK(shutdown(fd, SHUT_WR));
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		ASSERT_EQ(poll(&p, 1, (int)(10000 * test_timeout_scale())), 1);
		n = recv(fd, b, sizeof(b), 0);
		if (n <= 0)
			break;
	}
	close(fd);
}

/* A header of @op for @len payload bytes, into @b. */
static void raw_hdr(uint8_t *b, uint8_t op, uint32_t len, uint32_t rkey,
		    uint64_t addr)
{
	struct sd_hdr h;

	memset(&h, 0, sizeof(h));
	h.op = op;
	h.len = len;
	h.rkey = rkey;
	h.addr = addr;
	h.tag = SD_TAG_NONE;
	sd_hdr_pack(&h, b);
}

/*
 * The raw peer ends inside a frame: after half a header; after a SEND's
 * header and part of its payload; after a whole SEND, within a WRITE's
 * payload; and, for contrast, between frames. The victim has receives
 * and sends outstanding (the raw peer never acks): it sees BROKEN (the
 * last case DISCONNECTED), the whole SEND received, and everything else
 * flushed exactly once; a partly received message is never a success.
 */
TEST_IMPL(provider_faults_peer_cut_mid_frame)
{
	static const struct {
		const char *what;
		int whole;		/* whole SENDs first */
		int cut;		/* 0 half header, 1 mid SEND, 2 mid WRITE, 3 none */
		DAT_EVENT_NUMBER ev;
	} cases[] = {
		{ "half a header", 0, 0, DAT_CONNECTION_EVENT_BROKEN },
		{ "mid SEND payload", 0, 1, DAT_CONNECTION_EVENT_BROKEN },
		{ "mid WRITE payload", 1, 2, DAT_CONNECTION_EVENT_BROKEN },
		{ "between frames", 2, 3, DAT_CONNECTION_EVENT_DISCONNECTED },
	};
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	static uint8_t pay[8192];
	struct sdt_node s;
	unsigned i;
	int k;

	sdt_node_init(&s, ia, NULL, 1 << 16);
	ASSERT_OK(dat_psp_create_any(ia, &s.port, s.cr_evd,
				     DAT_PSP_CONSUMER_FLAG, &s.psp));
	fill_pat(pay, sizeof(pay), 77);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct track t = { .who = cases[i].what };
		uint8_t h[SD_HDR_SIZE];
		DAT_EVENT ev;
		int fd;

		memset(s.buf, 0, s.len);
		for (k = 0; k < 4; k++) {
			ASSERT_OK(sdt_recv(&s, (size_t)k * 4096, 4096, (uint64_t)k));
			track_recv(&t, (uint64_t)k);
		}
		fd = raw_connect(&s);
		for (k = 0; k < 3; k++) {
			ASSERT_OK(sdt_send(&s, 32768, 100, 100 + (uint64_t)k, 0));
			track_req(&t, 100 + (uint64_t)k);
		}
		for (k = 0; k < cases[i].whole; k++) {
			raw_hdr(h, SD_OP_SEND, 3000, 0, 0);
			raw_write(fd, h, sizeof(h));
			raw_write(fd, pay, 3000);
		}
		switch (cases[i].cut) {
		case 0:
			raw_hdr(h, SD_OP_SEND, 3000, 0, 0);
			raw_write(fd, h, sizeof(h) / 2);
			break;
		case 1:
			raw_hdr(h, SD_OP_SEND, 3000, 0, 0);
			raw_write(fd, h, sizeof(h));
			raw_write(fd, pay, 1000);
			break;
		case 2:
			raw_hdr(h, SD_OP_WRITE, 8192, s.rctx,
				(uint64_t)(uintptr_t)(s.buf + 40000));
			raw_write(fd, h, sizeof(h));
			raw_write(fd, pay, 5000);
			break;
		default:
			break;
		}
		raw_finish(fd);
		ev = sdt_wait(s.conn_evd, 10000);
		if (ev.event_number != cases[i].ev)
			TEST_FAIL("%s: %s, expected %s", cases[i].what,
				  conn_name(ev.event_number),
				  conn_name(cases[i].ev));
		while (sdt_poll(s.req_evd, &ev) || sdt_poll(s.recv_evd, &ev)) {
			DAT_DTO_COMPLETION_EVENT_DATA *d =
				&ev.event_data.dto_completion_event_data;

			if (track_done(&t, &ev) && d->operation == DAT_DTO_RECEIVE)
				ASSERT_EQ(check_pat((uint8_t *)s.buf +
						    d->user_cookie.as_64 * 4096,
						    3000, 77), 3000);
		}
		track_all_done(&t);
		ASSERT_EQ(t.recv_ok, (unsigned)cases[i].whole);
		ASSERT_EQ(t.req_ok, 0);
		if (cases[i].cut == 2)	/* placed as far as it came, no further */
			ASSERT_EQ(check_pat((uint8_t *)s.buf + 40000, 5000, 77), 5000);
		printf("%s: %s, %u receives succeeded, %u DTOs flushed\n",
		       cases[i].what, conn_name(cases[i].ev), t.recv_ok,
		       track_flushed(&t));
		sdt_expect_none(s.conn_evd, 10);
		ASSERT_OK(dat_ep_reset(s.ep));
	}
	sdt_node_fini(&s);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Disconnect from both sides at once                                  */

struct disc_arg {
	DAT_EP_HANDLE		ep;
	DAT_CLOSE_FLAGS		flags;
	pthread_barrier_t	*go;
	DAT_RETURN		ret;
};

static void *disc_thread(void *p)
{
	struct disc_arg *a = p;

	pthread_barrier_wait(a->go);
	a->ret = dat_ep_disconnect(a->ep, a->flags);
	return NULL;
}

/* @a's DTOs towards @b: receives for @b's sends, sends, RDMA writes. */
static void both_post(struct sdt_node *a, struct sdt_node *b, struct track *t,
		      unsigned iter)
{
	unsigned k;

	for (k = 0; k < 8; k++) {
		uint64_t id = (uint64_t)iter << 16 | 0x100 | k;

		ASSERT_OK(sdt_recv(a, (size_t)k * 65536, 65536, id));
		track_recv(t, id);
	}
	for (k = 0; k < 8; k++) {
		uint64_t id = (uint64_t)iter << 16 | 0x200 | k;
		DAT_LMR_TRIPLET l = sdt_iov(a, 8 * 65536, 4096 + k * 8000);
		DAT_RMR_TRIPLET r = sdt_rmr(b, 9 * 65536, 65536);

		if (k % 2 == 0) {
			ASSERT_OK(dat_ep_post_send(a->ep, 1, &l, ck(id), 0));
		} else {
			l.segment_length = 65536;
			ASSERT_OK(dat_ep_post_rdma_write(a->ep, 1, &l, ck(id),
							 &r, 0));
		}
		track_req(t, id);
	}
}

static DAT_EVENT_NUMBER both_collect(struct sdt_node *n, struct track *t)
{
	DAT_EVENT ev = sdt_wait(n->conn_evd, 10000);
	DAT_EVENT_NUMBER end = ev.event_number;

	expect_end(end);
	while (sdt_poll(n->req_evd, &ev) || sdt_poll(n->recv_evd, &ev))
		if (track_done(t, &ev) &&
		    ev.event_data.dto_completion_event_data.operation ==
		    DAT_DTO_RECEIVE)
			ASSERT_EQ(ev.event_data.dto_completion_event_data.transfered_length,
				  4096 + (ev.event_data.dto_completion_event_data.user_cookie.as_64 & 0xff) * 16000);
	track_all_done(t);
	return end;
}

/*
 * Both ends call dat_ep_disconnect at the same moment (two threads, one
 * barrier), gracefully, abruptly, or one of each, with sends and RDMA
 * writes in flight both ways. Both calls succeed, each side gets exactly
 * one connection event (DISCONNECTED; BROKEN only where an abrupt close
 * stopped inside a frame), every DTO completes once, and the EPs reset
 * and connect again for the next turn.
 */
TEST_IMPL(provider_faults_disconnect_both_sides)
{
	static const char *const fname[] = { "graceful", "abrupt" };
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	struct sdt_node c, s;
	unsigned iter, broken = 0;

	sdt_node_init(&c, ia, NULL, 16 * 65536);
	sdt_node_init(&s, ia, NULL, 16 * 65536);
	for (iter = 0; iter < 24; iter++) {
		struct track tc = { .who = "client" }, ts = { .who = "server" };
		struct disc_arg ac, as;
		pthread_barrier_t go;
		pthread_t th[2];
		DAT_EVENT_NUMBER ec, es;

		if (iter > 0) {
			ASSERT_OK(dat_ep_reset(c.ep));
			ASSERT_OK(dat_ep_reset(s.ep));
		}
		sdt_connect(&c, &s);
		both_post(&c, &s, &tc, iter);
		both_post(&s, &c, &ts, iter);
		ASSERT_OK(pthread_barrier_init(&go, NULL, 2));
		ac.ep = c.ep;
		as.ep = s.ep;
		ac.flags = iter % 2 ? DAT_CLOSE_ABRUPT_FLAG : DAT_CLOSE_GRACEFUL_FLAG;
		as.flags = iter / 2 % 2 ? DAT_CLOSE_ABRUPT_FLAG :
			   DAT_CLOSE_GRACEFUL_FLAG;
		ac.go = as.go = &go;
		ASSERT_OK(pthread_create(&th[0], NULL, disc_thread, &ac));
		ASSERT_OK(pthread_create(&th[1], NULL, disc_thread, &as));
		pthread_join(th[0], NULL);
		pthread_join(th[1], NULL);
		pthread_barrier_destroy(&go);
		ASSERT_OK(ac.ret);
		ASSERT_OK(as.ret);
		ec = both_collect(&c, &tc);
		es = both_collect(&s, &ts);
		broken += (ec == DAT_CONNECTION_EVENT_BROKEN) +
			  (es == DAT_CONNECTION_EVENT_BROKEN);
		/* A graceful side saw no abrupt close inside a frame. */
		if (ac.flags == DAT_CLOSE_GRACEFUL_FLAG &&
		    as.flags == DAT_CLOSE_GRACEFUL_FLAG)
			ASSERT(ec == DAT_CONNECTION_EVENT_DISCONNECTED &&
			       es == DAT_CONNECTION_EVENT_DISCONNECTED);
		sdt_expect_none(c.conn_evd, 5);
		sdt_expect_none(s.conn_evd, 0);
		if (iter < 4)
			printf("client %s, server %s: client %s (%u/%u ok), "
			       "server %s (%u/%u ok)\n", fname[iter % 2],
			       fname[iter / 2 % 2], conn_name(ec),
			       tc.req_ok + tc.recv_ok, tc.nreq + tc.nrecv,
			       conn_name(es), ts.req_ok + ts.recv_ok,
			       ts.nreq + ts.nrecv);
	}
	printf("%u BROKEN of 48 ends\n", broken);
	sdt_node_fini(&c);
	sdt_node_fini(&s);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* dat_ep_free and dat_ia_close(ABRUPT) with DTOs in flight            */

/*
 * run-tests --helper faults_survivor: a PSP (its port on the readiness
 * line) that accepts two connections and moves data on both, every
 * kind, both ways, while the test frees one EP and closes its IA
 * abruptly. It checks that both connections end, and that every DTO of
 * its own completes exactly once; exits 0.
 */
HELPER_IMPL(faults_survivor)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	struct track t[2] = { { .who = "survivor ep 0" },
			      { .who = "survivor ep 1" } };
	struct sdt_node n[2];
	struct mem_pdata m[2];
	int i;

	for (i = 0; i < 2; i++) {
		sdt_node_init(&n[i], ia, NULL, (size_t)4 * NB * MSG);
		fill_regions(&n[i], 1);
	}
	ASSERT_OK(dat_psp_create_any(ia, &n[0].port, n[0].cr_evd,
				     DAT_PSP_CONSUMER_FLAG, &n[0].psp));
	test_helper_ready("%llu", (unsigned long long)n[0].port);
	for (i = 0; i < 2; i++) {
		post_recvs(&n[i], &t[i], 1, NB);
		m[i] = accept_pd(&n[0], n[i].ep, mem_pdata((uint32_t)i, 0,
							   n[i].rctx, n[i].buf));
		sdt_expect_conn(n[i].conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	}
	for (i = 0; i < 2; i++) {
		post_mode(&n[i], &t[i], "send", &m[i], 1, 0, 4);
		post_mode(&n[i], &t[i], "write", &m[i], 1, 0, 4);
		post_mode(&n[i], &t[i], "read", &m[i], 1, 0, 4);
	}
	for (i = 0; i < 2; i++) {
		DAT_EVENT ev = sdt_wait(n[i].conn_evd, 20000);
		DAT_EVENT_NUMBER end = ev.event_number;

		expect_end(end);
		while (sdt_poll(n[i].req_evd, &ev) || sdt_poll(n[i].recv_evd, &ev))
			track_done(&t[i], &ev);
		track_all_done(&t[i]);
		printf("survivor ep %d: %s, %u of %u DTOs flushed\n", i,
		       conn_name(end), track_flushed(&t[i]),
		       t[i].nreq + t[i].nrecv);
	}
	for (i = 0; i < 2; i++)
		sdt_node_fini(&n[i]);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/*
 * The test connects two EPs to faults_survivor and moves data both ways
 * on both, every kind; as soon as something completed it frees one EP
 * (dat_ep_free of a connected EP), then closes the IA abruptly with the
 * other EP, its EVDs, LMR and PZ still there and busy, and frees the
 * memory the peer was writing to and reading from. No crash, nothing
 * touched after the close (AddressSanitizer would say), nothing leaked;
 * the survivor sees both connections end and flushes exactly once.
 */
TEST_IMPL(provider_faults_free_close_in_flight)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	struct track t[2] = { { .who = "ep 0" }, { .who = "ep 1" } };
	struct sdt_node n[2];
	struct mem_pdata m;
	test_helper_t *h;
	const char *line;
	DAT_CONN_QUAL port;
	DAT_EVENT ev;
	int i, status;

	h = test_spawn_helper("faults_survivor", NULL);
	ASSERT_OK(test_helper_wait_ready(h, &line));
	port = strtoull(line, NULL, 10);
	for (i = 0; i < 2; i++) {
		sdt_node_init(&n[i], ia, NULL, (size_t)4 * NB * MSG);
		fill_regions(&n[i], 0);
		post_recvs(&n[i], &t[i], 0, NB);
		connect_pd(ia, n[i].ep, port, mem_pdata((uint32_t)i, 0,
							n[i].rctx, n[i].buf));
		m = established_pd(n[i].conn_evd);
		post_mode(&n[i], &t[i], "send", &m, 0, 0, 4);
		post_mode(&n[i], &t[i], "write", &m, 0, 0, 4);
		post_mode(&n[i], &t[i], "read", &m, 0, 0, 4);
	}
	ev = sdt_wait(n[0].req_evd, 10000);
	track_done(&t[0], &ev);
	ASSERT_OK(dat_ep_free(n[0].ep));
	n[0].ep = DAT_HANDLE_NULL;
	ev = sdt_wait(n[1].req_evd, 10000);
	track_done(&t[1], &ev);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	for (i = 0; i < 2; i++) {
		free(n[i].buf);
		n[i].buf = NULL;
	}
	ASSERT_OK(test_helper_wait(h, 30, &status));
	ASSERT_EXIT_OK(status);
	test_helper_free(h);
	return 0;
}

/* ------------------------------------------------------------------ */
/* No file descriptors left                                            */

static struct rlimit fds_saved;

/* Takes every free descriptor below a limit of @lim; how many. */
static int fds_exhaust(int *fds, int max, rlim_t lim)
{
	struct rlimit rl;
	int n = 0;

	ASSERT_OK(getrlimit(RLIMIT_NOFILE, &rl));
	fds_saved = rl;
	rl.rlim_cur = lim;
	ASSERT_OK(setrlimit(RLIMIT_NOFILE, &rl));
	while (n < max) {
		int fd = dup(2);

		if (fd < 0) {
			ASSERT_EQ(errno, EMFILE);
			break;
		}
		fds[n++] = fd;
	}
	ASSERT_LT(n, max);
	return n;
}

/* Takes what was freed since (the readiness pipe); the new count. */
static int fds_more(int *fds, int n, int max)
{
	int fd;

	while (n < max && (fd = dup(2)) >= 0)
		fds[n++] = fd;
	ASSERT_LT(n, max);
	return n;
}

static void fds_release(int *fds, int n)
{
	while (n > 0)
		close(fds[--n]);
	ASSERT_OK(setrlimit(RLIMIT_NOFILE, &fds_saved));
}

/* CPU time of this process (every thread), in ms. */
static uint64_t cpu_ms(void)
{
	struct rusage ru;

	ASSERT_OK(getrusage(RUSAGE_SELF, &ru));
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
}

/* Waits for one connection event on @evd; its number. */
static DAT_EVENT_NUMBER conn_event(DAT_EVD_HANDLE evd, int ms)
{
	return sdt_wait(evd, ms).event_number;
}

/*
 * run-tests --helper faults_nofds PORT: a process without file
 * descriptors. First an IA that has to start the engine; then, with an
 * IA open: a PSP, an EP, a CNO with an fd, a connect to the test's PSP
 * (PORT), and a wait; then (readiness line: its PSP's port) a request
 * from the test arrives with no descriptor to accept it. Every call
 * answers (DAT_INSUFFICIENT_RESOURCES where it needs a descriptor, a
 * connection event for the connect), nothing crashes or hangs; with the
 * descriptors back, both directions connect again.
 */
HELPER_IMPL(faults_nofds)
{
	DAT_CONN_QUAL tport = strtoull(argv[1], NULL, 10), port;
	static int fds[4096];
	DAT_EP_ATTR attr = ep_attr(8);
	DAT_IA_HANDLE ia, ia2;
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_PSP_HANDLE psp;
	DAT_CNO_HANDLE cno;
	DAT_EP_HANDLE ep;
	DAT_COUNT nmore;
	DAT_FD cfd;
	uint64_t cpu, t0;
	struct sdt_node n, x;
	struct mem_pdata mine;
	char name[] = SDT_IA_NAME;
	DAT_EVENT ev;
	DAT_RETURN r;
	int nf;

	/*
	 * An IA, with no descriptor left to look its interface up with,
	 * then with one, which the engine's loop takes: both times
	 * DAT_INSUFFICIENT_RESOURCES (the provider stays loaded between
	 * IAs: -z nodelete).
	 */
	ia = sdt_open_ia(NULL, NULL);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	nf = fds_exhaust(fds, 4096, 64);
	r = dat_ia_open(name, 16, &async, &ia);
	printf("nofds: dat_ia_open: 0x%08x\n", (unsigned)r);
	ASSERT_DAT_EQ(r, ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_DEVICE));
	close(fds[--nf]);
	r = dat_ia_open(name, 16, &async, &ia);
	printf("nofds: dat_ia_open, one descriptor free: 0x%08x\n", (unsigned)r);
	ASSERT_DAT_EQ(r, ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_DEVICE));
	fds_release(fds, nf);

	ia = sdt_open_ia(NULL, NULL);
	sdt_node_init(&n, ia, &attr, 1 << 16);
	sdt_node_init(&x, ia, &attr, 1 << 16);
	ASSERT_OK(dat_psp_create_any(ia, &port, n.cr_evd, DAT_PSP_CONSUMER_FLAG,
				     &n.psp));
	nf = fds_exhaust(fds, 4096, 64);

	/* Calls that need a descriptor. */
	r = dat_psp_create_any(ia, &port, x.cr_evd, DAT_PSP_CONSUMER_FLAG, &psp);
	printf("nofds: dat_psp_create_any: 0x%08x\n", (unsigned)r);
	ASSERT_EQ(DAT_GET_TYPE(r), DAT_INSUFFICIENT_RESOURCES);
	r = dat_cno_fd_create(ia, &cfd, &cno);
	printf("nofds: dat_cno_fd_create: 0x%08x\n", (unsigned)r);
	ASSERT_EQ(DAT_GET_TYPE(r), DAT_INSUFFICIENT_RESOURCES);
	/* Calls that need none. */
	ASSERT_OK(dat_ep_create(ia, n.pz, n.recv_evd, n.req_evd, n.conn_evd,
				&attr, &ep));
	ASSERT_OK(dat_ep_free(ep));
	r = dat_ia_open(name, 16, &async, &ia2);	/* the engine runs */
	printf("nofds: dat_ia_open (engine running): 0x%08x\n", (unsigned)r);
	if (r == DAT_SUCCESS)
		ASSERT_OK(dat_ia_close(ia2, DAT_CLOSE_GRACEFUL_FLAG));
	r = dat_evd_wait(n.req_evd, 100000, 1, &ev, &nmore);
	ASSERT_EQ(DAT_GET_TYPE(r), DAT_TIMEOUT_EXPIRED);
	/* Connect: no socket. */
	mine = mem_pdata(1, 0, n.rctx, n.buf);
	{
		struct sockaddr_storage ss;

		sdt_ia_addr(ia, &ss);
		r = dat_ep_connect(x.ep, (DAT_IA_ADDRESS_PTR)&ss, tport,
				   5000000, sizeof(mine), &mine,
				   DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
	}
	printf("nofds: dat_ep_connect: 0x%08x\n", (unsigned)r);
	ASSERT_DAT_EQ(r, ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP));
	ASSERT_EQ(sdt_ep_state(x.ep), DAT_EP_STATE_UNCONNECTED);
	sdt_expect_none(x.conn_evd, 0);

	/* Accept: the test connects to us now. */
	test_helper_ready("%llu", (unsigned long long)port);
	nf = fds_more(fds, nf, 4096);	/* the readiness pipe's */
	cpu = cpu_ms();
	t0 = test_now_ms();
	r = dat_evd_wait(n.cr_evd, (DAT_TIMEOUT)(2000000 * test_timeout_scale()),
			 1, &ev, &nmore);
	cpu = cpu_ms() - cpu;
	t0 = test_now_ms() - t0;
	printf("nofds: a request while out of descriptors: 0x%08x; %llu ms of "
	       "CPU in %llu ms\n", (unsigned)r, (unsigned long long)cpu,
	       (unsigned long long)t0);
	/* The engine does not spin on a listener it cannot accept from. */
	ASSERT_LT(cpu, t0 / 4);
	if (r == DAT_SUCCESS)	/* accepted after all: refuse it */
		ASSERT_OK(dat_cr_reject(ev.event_data.cr_arrival_event_data.cr_handle,
					0, NULL));
	fds_release(fds, nf);

	/* Descriptors back: we connect to the test, it connects to us. */
	mine.round = 2;
	connect_pd(ia, x.ep, tport, mine);
	sdt_expect_conn(x.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	for (;;) {
		DAT_CR_PARAM p;
		DAT_CR_HANDLE cr = sdt_expect_cr(n.cr_evd, NULL);

		ASSERT_OK(dat_cr_query(cr, DAT_CR_FIELD_ALL, &p));
		if (p.private_data_size == sizeof(struct mem_pdata) &&
		    pdata_of(p.private_data, p.private_data_size).round == 3) {
			ASSERT_OK(dat_cr_accept(cr, n.ep, 0, NULL));
			break;
		}
		ASSERT_OK(dat_cr_reject(cr, 0, NULL));	/* the stale one */
	}
	sdt_expect_conn(n.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	ASSERT_OK(dat_ep_disconnect(n.ep, DAT_CLOSE_GRACEFUL_FLAG));
	ASSERT_OK(dat_ep_disconnect(x.ep, DAT_CLOSE_GRACEFUL_FLAG));
	sdt_expect_conn(n.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	sdt_expect_conn(x.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	sdt_node_fini(&n);
	sdt_node_fini(&x);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/*
 * faults_nofds, seen from its peer: the test's connect to it while it
 * has no descriptor ends (refused or timed out), within its timeout; then
 * it connects to us and we to it.
 */
TEST_IMPL(provider_faults_out_of_fds)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	DAT_EP_ATTR attr = ep_attr(8);
	struct sdt_node a, b;
	struct mem_pdata m;
	struct sockaddr_storage ss;
	test_helper_t *h;
	const char *line;
	char port[32];
	DAT_CONN_QUAL hport;
	DAT_EVENT_NUMBER e;
	uint64_t t0;
	int status;

	sdt_node_init(&a, ia, &attr, 1 << 16);
	sdt_node_init(&b, ia, &attr, 1 << 16);
	ASSERT_OK(dat_psp_create_any(ia, &a.port, a.cr_evd,
				     DAT_PSP_CONSUMER_FLAG, &a.psp));
	snprintf(port, sizeof(port), "%llu", (unsigned long long)a.port);
	h = test_spawn_helper("faults_nofds", port, NULL);
	ASSERT_OK(test_helper_wait_ready(h, &line));
	hport = strtoull(line, NULL, 10);

	/* It has no descriptor to accept with. */
	m = mem_pdata(0, 1, a.rctx, a.buf);
	sdt_ia_addr(ia, &ss);
	t0 = test_now_ms();
	ASSERT_OK(dat_ep_connect(b.ep, (DAT_IA_ADDRESS_PTR)&ss, hport, 1500000,
				 sizeof(m), &m, DAT_QOS_BEST_EFFORT,
				 DAT_CONNECT_DEFAULT_FLAG));
	e = conn_event(b.conn_evd, 10000);
	printf("connect to a peer out of descriptors: %s after %llu ms\n",
	       conn_name(e), (unsigned long long)(test_now_ms() - t0));
	ASSERT(e == DAT_CONNECTION_EVENT_NON_PEER_REJECTED ||
	       e == DAT_CONNECTION_EVENT_TIMED_OUT);
	ASSERT_OK(dat_ep_reset(b.ep));

	/* It recovered: it connects to us, we to it. */
	accept_pd(&a, a.ep, m);
	sdt_expect_conn(a.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	m.round = 3;
	connect_pd(ia, b.ep, hport, m);
	sdt_expect_conn(b.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	sdt_expect_conn(a.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	sdt_expect_conn(b.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	ASSERT_OK(test_helper_wait(h, 30, &status));
	ASSERT_EXIT_OK(status);
	test_helper_free(h);
	sdt_node_fini(&a);
	sdt_node_fini(&b);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Out of queue space                                                  */

/*
 * COMMON-8 exactly: an EP whose queues hold 8 requests and 4 receives
 * (as dat_ep_query reports them) takes that many, and the next post of
 * each is DAT_INSUFFICIENT_RESOURCES (DAT_RESOURCE_TEP) and never
 * completes; a completion makes room for exactly one more; everything
 * accepted completes exactly once.
 */
TEST_IMPL(provider_faults_queue_full)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	DAT_EP_ATTR attr = ep_attr(8);
	struct track tc = { .who = "client" }, ts = { .who = "server" };
	struct sdt_node c, s;
	DAT_EP_PARAM p;
	DAT_RMR_TRIPLET r;
	DAT_LMR_TRIPLET l;
	DAT_EVENT ev;
	DAT_COUNT k, nreq, nrecv;

	attr.max_recv_dtos = 4;
	sdt_node_init(&c, ia, &attr, 1 << 16);
	sdt_node_init(&s, ia, &attr, 1 << 16);
	ASSERT_OK(dat_ep_query(c.ep, DAT_EP_FIELD_ALL, &p));
	nreq = p.ep_attr.max_request_dtos;
	nrecv = p.ep_attr.max_recv_dtos;
	printf("queues: %d requests, %d receives\n", nreq, nrecv);
	ASSERT_EQ(nreq, 8);
	ASSERT_EQ(nrecv, 4);
	sdt_connect(&c, &s);

	/* Receives: full in any state. */
	for (k = 0; k < nrecv; k++) {
		ASSERT_OK(sdt_recv(&c, (size_t)k * 100, 100, 1000 + (uint64_t)k));
		track_recv(&tc, 1000 + (uint64_t)k);
	}
	ASSERT_DAT_EQ(sdt_recv(&c, 0, 100, 1999),
		      ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP));
	/* Requests: the server posts no receive, the sends wait (RNR). */
	for (k = 0; k < nreq; k++) {
		ASSERT_OK(sdt_send(&c, 1000, 100, (uint64_t)k, 0));
		track_req(&tc, (uint64_t)k);
	}
	ASSERT_DAT_EQ(sdt_send(&c, 1000, 100, 999, 0),
		      ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP));
	r = sdt_rmr(&s, 0, 100);
	l = sdt_iov(&c, 0, 100);
	ASSERT_DAT_EQ(dat_ep_post_rdma_write(c.ep, 1, &l, ck(998), &r, 0),
		      ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP));
	ASSERT_DAT_EQ(dat_ep_post_rdma_read(c.ep, 1, &l, ck(997), &r, 0),
		      ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP));
	sdt_expect_none(c.req_evd, 50);

	/* One receive at the server: one send completes, one slot frees. */
	ASSERT_OK(sdt_recv(&s, 0, 100, 5000));
	track_recv(&ts, 5000);
	ev = sdt_wait(c.req_evd, 10000);
	ASSERT(track_done(&tc, &ev));
	ASSERT_OK(sdt_send(&c, 1000, 100, 100, 0));
	track_req(&tc, 100);
	ASSERT_DAT_EQ(sdt_send(&c, 1000, 100, 996, 0),
		      ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP));
	ev = sdt_wait(s.recv_evd, 10000);
	ASSERT(track_done(&ts, &ev));

	/* The rest waits; a disconnect flushes it, each once. */
	ASSERT_OK(dat_ep_disconnect(c.ep, DAT_CLOSE_ABRUPT_FLAG));
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	sdt_expect_conn(s.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	while (sdt_poll(c.req_evd, &ev) || sdt_poll(c.recv_evd, &ev))
		track_done(&tc, &ev);
	track_all_done(&tc);
	track_all_done(&ts);
	ASSERT_EQ(tc.req_ok, 1);
	ASSERT_EQ(tc.recv_ok, 0);
	sdt_node_fini(&c);
	sdt_node_fini(&s);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}
