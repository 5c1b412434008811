/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which transport a connection takes (SOFTDAPL_TRANSPORT, provider/shm.c),
 * what dat_ep_query and the IA's attributes say about it, and what a peer
 * on shared memory can do to us: stay on TCP after an offer, write
 * impossible ring positions, end a ring mid-frame, or die.
 *
 * The raw requester here speaks the handshake by hand (proto.h): it sends
 * a HELLO that offers shared memory, reads the ACCEPT and its segment
 * extension, and then either answers by TCP or attaches the segment
 * itself (it is a process of the same user) and writes into the rings.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <netinet/in.h>

#include "../provider/proto.h"
#include "provider-conn.h"
#include "provider-util.h"
#include "test.h"

/* The value of the EP's SOFTDAPL_TRANSPORT attribute, or "" when none. */
static const char *ep_transport(DAT_EP_HANDLE ep)
{
	DAT_EP_PARAM p;
	DAT_COUNT i;

	ASSERT_OK(dat_ep_query(ep, DAT_EP_FIELD_ALL, &p));
	for (i = 0; i < p.ep_attr.ep_provider_specific_count; i++)
		if (strcmp(p.ep_attr.ep_provider_specific[i].name,
			   "SOFTDAPL_TRANSPORT") == 0)
			return p.ep_attr.ep_provider_specific[i].value;
	return "";
}

/* The IA's SOFTDAPL_TRANSPORT provider attribute (the setting). */
static const char *ia_transport(DAT_IA_HANDLE ia)
{
	DAT_PROVIDER_ATTR pa;
	DAT_COUNT i;

	ASSERT_OK(dat_ia_query(ia, NULL, 0, NULL, DAT_PROVIDER_FIELD_ALL, &pa));
	for (i = 0; i < pa.num_provider_specific_attr; i++)
		if (strcmp(pa.provider_specific_attr[i].name,
			   "SOFTDAPL_TRANSPORT") == 0)
			return pa.provider_specific_attr[i].value;
	return "";
}

/* One message each way, checked, over a connected pair. */
static void ping(struct sdt_node *c, struct sdt_node *s, uint64_t k)
{
	memset(c->buf, (int)k, 4096);
	ASSERT_OK(sdt_recv(s, 8192, 4096, k));
	ASSERT_OK(sdt_send(c, 0, 4096, k, 0));
	sdt_expect_dto(c->req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, k);
	sdt_expect_dto(s->recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, k);
	ASSERT_EQ(s->buf[8192 + 4095], (char)k);
}

/* Both ends in this process, with the setting @setting (NULL: unset). */
static void one_process(const char *setting, const char *want_ia,
			const char *want_ep)
{
	struct sdt_node c, s;
	DAT_IA_HANDLE ia;

	test_setenv("SOFTDAPL_TRANSPORT", setting);
	ia = sdt_open_ia(NULL, NULL);
	ASSERT_STR_EQ(ia_transport(ia), want_ia);
	sdt_node_init(&c, ia, NULL, 65536);
	sdt_node_init(&s, ia, NULL, 65536);
	ASSERT_STR_EQ(ep_transport(c.ep), "");		/* not connected */
	sdt_connect(&c, &s);
	ASSERT_STR_EQ(ep_transport(c.ep), want_ep);
	ASSERT_STR_EQ(ep_transport(s.ep), want_ep);
	ping(&c, &s, 1);
	ping(&s, &c, 2);
	sdt_disconnect(&c, &s);
	ASSERT_STR_EQ(ep_transport(c.ep), "");
	sdt_node_fini(&c);
	sdt_node_fini(&s);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
}

TEST_IMPL(provider_transport_default_shm)
{
	one_process(NULL, "auto", "shm");
	return 0;
}

TEST_IMPL(provider_transport_forced_tcp)
{
	one_process("tcp", "tcp", "tcp");
	return 0;
}

TEST_IMPL(provider_transport_forced_copy)
{
	one_process("copy", "copy", "shm");
	return 0;
}

/* Byte @i of pattern @k. */
static char pat(size_t i, unsigned k)
{
	return (char)((i * 7 + k) & 0xff);
}

static void fill(char *p, size_t n, unsigned k)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = pat(i, k);
}

/* Whether @p holds @n bytes of pattern @k; says where it does not. */
static void check(const char *p, size_t n, unsigned k, const char *what)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != pat(i, k)) {
			fprintf(stderr, "%s: byte %zu of %zu is wrong\n", what,
				i, n);
			ASSERT(0);
		}
}

#define BIG	(1024 * 1024 + 5)	/* spans 16 KiB rings 64 times over */


/*
 * Wake-ups of this process's engine so far: the voluntary context switches
 * of its thread (named softdapl-engine), each one a sleep it was woken
 * from. -1 when there is no such thread.
 */
static long engine_wakeups(void)
{
	char path[64], line[128];
	long n = -1;
	int t;

	for (t = 1; t < 1 << 22 && n < 0; t++) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/task/%d/comm", t);
		f = fopen(path, "r");
		if (f == NULL)
			continue;
		if (fgets(line, sizeof(line), f) == NULL ||
		    strcmp(line, "softdapl-engine\n") != 0) {
			fclose(f);
			continue;
		}
		fclose(f);
		snprintf(path, sizeof(path), "/proc/self/task/%d/status", t);
		f = fopen(path, "r");
		ASSERT_NOT_NULL(f);
		while (fgets(line, sizeof(line), f) != NULL)
			if (sscanf(line, "voluntary_ctxt_switches: %ld", &n) == 1)
				break;
		fclose(f);
	}
	return n;
}

/*
 * Dequeues the DTO completions of @evd, each checked to be a success of
 * @op and counted in *@count, while there are any and then on until
 * *@count reaches @until.
 */
static void poll_dtos(DAT_EVD_HANDLE evd, DAT_DTOS op, unsigned until,
		      unsigned *count)
{
	DAT_EVENT ev;

	for (;;) {
		DAT_RETURN r = dat_evd_dequeue(evd, &ev);

		if (DAT_GET_TYPE(r) == DAT_QUEUE_EMPTY) {
			if (*count >= until)
				return;
			continue;
		}
		ASSERT_OK(r);
		ASSERT_EQ(ev.event_number, DAT_DTO_COMPLETION_EVENT);
		ASSERT_EQ(ev.event_data.dto_completion_event_data.status,
			  DAT_DTO_SUCCESS);
		ASSERT_EQ(ev.event_data.dto_completion_event_data.operation, op);
		++*count;
	}
}

/*
 * One side of a ping-pong of polling consumers: @n messages received on
 * @self, each answered (the peer's first when @first); a receive is
 * always posted before the message it is for can come.
 */
struct pong {
	struct sdt_node	*self;
	unsigned	n;
	bool		first;
};

static void *pong_run(void *arg)
{
	struct pong *p = arg;
	struct sdt_node *me = p->self;
	unsigned i, recvs = 0, sends = 0;

	ASSERT_OK(sdt_recv(me, 8192, 64, 0));
	for (i = 0; i < p->n; i++) {
		if (p->first) {
			me->buf[0] = (char)i;
			ASSERT_OK(sdt_send(me, 0, 64, i, 0));
		}
		/*
		 * Now and then a pause of a few ticks, as when the scheduler
		 * takes the CPU: the engine unparks and reads for a while.
		 */
		if (i % 2000 == 1000)
			usleep(3000);
		poll_dtos(me->recv_evd, DAT_DTO_RECEIVE, i + 1, &recvs);
		ASSERT_EQ(me->buf[8192], (char)i);
		if (i + 1 < p->n)
			ASSERT_OK(sdt_recv(me, 8192, 64, i + 1));
		if (!p->first) {
			me->buf[0] = (char)i;
			ASSERT_OK(sdt_send(me, 0, 64, i, 0));
		}
		poll_dtos(me->req_evd, DAT_DTO_SEND, 0, &sends);
	}
	/* The last ACK may wait for the engine's tick. */
	poll_dtos(me->req_evd, DAT_DTO_SEND, p->n, &sends);
	return NULL;
}

/*
 * pong_run, and then a check of this process's engine: it may wake for
 * its tick (one a millisecond while connections are parked) and a little
 * more, not once a message. A rate, not a time: a slow machine takes
 * longer and ticks more, and a message costs a microsecond to some tens.
 */
static void pong_checked(struct pong *p, const char *who)
{
	struct timespec t0, t1;
	long before = engine_wakeups(), woken, ms, allowed;

	ASSERT(before >= 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pong_run(p);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	woken = engine_wakeups() - before;
	ms = (t1.tv_sec - t0.tv_sec) * 1000 +
	     (t1.tv_nsec - t0.tv_nsec) / 1000000;
	allowed = 2 * ms + 100;
	fprintf(stderr, "%u round trips polled in %ld ms: the %s's engine "
		"woke %ld times (allowed %ld)\n", p->n, ms, who, woken,
		allowed);
	ASSERT(woken <= allowed);
}

/*
 * Consumers that poll their EVDs (dat_evd_dequeue in a loop, as MPI's
 * transports and softbench's poll mode do) read the rings themselves: the
 * engines park their connections, and the writers ring no bell for each
 * message. Before, an engine armed for a ring could be woken by bells for
 * messages its consumer had already read, find the ring empty, arm again,
 * and never learn that it should park: a wake-up per message, each taking
 * a CPU from a polling consumer (send-lat poll over shared memory at 4 to
 * 60 us instead of 0.5, in some runs). 20,000 round trips over the copy
 * path between two processes, each side's consumer polling on its own
 * CPU and pausing now and then; each engine may wake for its ticks, not
 * once a message (pong_checked). The peer (transport_pong) checks its own
 * engine the same way.
 */
#define PONG_TRIPS	20000

TEST_IMPL(provider_transport_polling_parks)
{
	struct sdt_node c;
	struct sockaddr_storage ss;
	struct pong pc = { .self = &c, .n = PONG_TRIPS, .first = true };
	DAT_IA_HANDLE ia;
	test_helper_t *h;
	const char *line;
	int status;

	test_setenv("SOFTDAPL_TRANSPORT", "copy");
	h = test_spawn_helper("transport_pong", NULL);
	ASSERT_OK(test_helper_wait_ready(h, &line));
	ia = sdt_open_ia(NULL, NULL);
	sdt_node_init(&c, ia, NULL, 65536);
	sdt_ia_addr(ia, &ss);
	ASSERT_OK(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&ss,
				 (DAT_CONN_QUAL)atoi(line), DAT_TIMEOUT_INFINITE,
				 0, NULL, DAT_QOS_BEST_EFFORT,
				 DAT_CONNECT_DEFAULT_FLAG));
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	ASSERT_STR_EQ(ep_transport(c.ep), "shm");
	pong_checked(&pc, "requester");
	ASSERT_OK(dat_ep_disconnect(c.ep, DAT_CLOSE_GRACEFUL_FLAG));
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	ASSERT_OK(test_helper_wait(h, 20, &status));
	ASSERT_EXIT_CODE(status, 0);
	test_helper_free(h);
	sdt_node_fini(&c);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	return 0;
}

/* The answering side of provider_transport_polling_parks. */
HELPER_IMPL(transport_pong)
{
	struct sdt_node s;
	struct pong ps = { .self = &s, .n = PONG_TRIPS, .first = false };
	DAT_IA_HANDLE ia;
	DAT_EVENT ev;

	(void)argc;
	(void)argv;
	test_setenv("SOFTDAPL_TRANSPORT", "copy");
	ia = sdt_open_ia(NULL, NULL);
	sdt_node_init(&s, ia, NULL, 65536);
	ASSERT_OK(dat_psp_create_any(ia, &s.port, s.cr_evd,
				     DAT_PSP_CONSUMER_FLAG, &s.psp));
	test_helper_ready("%u", (unsigned)s.port);
	ev = sdt_wait(s.cr_evd, 20000);
	ASSERT_EQ(ev.event_number, DAT_CONNECTION_REQUEST_EVENT);
	ASSERT_OK(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
				s.ep, 0, NULL));
	sdt_expect_conn(s.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	pong_checked(&ps, "listener");
	sdt_expect_conn(s.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	sdt_node_fini(&s);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	return 0;
}

/*
 * Messages and RDMA many times a ring's size, through the copy path's
 * smallest rings: a copy goes in and out of a ring a piece at a time,
 * wrapping, split across the segments of the iovs on both sides, while
 * the peer copies the other pieces. Every byte arrives where it should.
 */
TEST_IMPL(provider_transport_copy_small_rings)
{
	struct sdt_node c, s;
	DAT_LMR_TRIPLET iov[3];
	DAT_RMR_TRIPLET rt;
	DAT_DTO_COOKIE ck;
	DAT_IA_HANDLE ia;

	test_setenv("SOFTDAPL_TRANSPORT", "copy");
	test_setenv("SOFTDAPL_SHM_RING_KB", "16");
	ia = sdt_open_ia(NULL, NULL);
	sdt_node_init(&c, ia, NULL, 4 * BIG);
	sdt_node_init(&s, ia, NULL, 4 * BIG);
	sdt_connect(&c, &s);
	ASSERT_STR_EQ(ep_transport(c.ep), "shm");

	/* A SEND of three uneven segments into a receive of two. */
	fill(c.buf, BIG, 1);
	iov[0] = sdt_iov(&c, 0, 5001);
	iov[1] = sdt_iov(&c, 5001, 700000);
	iov[2] = sdt_iov(&c, 705001, BIG - 705001);
	memset(s.buf, 0, 2 * BIG);
	{
		DAT_LMR_TRIPLET r[2] = { sdt_iov(&s, 0, 12345),
					 sdt_iov(&s, 12345, BIG - 12345) };

		ck.as_64 = 1;
		ASSERT_OK(dat_ep_post_recv(s.ep, 2, r, ck,
					   DAT_COMPLETION_DEFAULT_FLAG));
	}
	ck.as_64 = 2;
	ASSERT_OK(dat_ep_post_send(c.ep, 3, iov, ck,
				   DAT_COMPLETION_DEFAULT_FLAG));
	sdt_expect_dto(c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 2);
	sdt_expect_dto(s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 1);
	check(s.buf, BIG, 1, "send");

	/* An RDMA write from three segments into the peer at BIG. */
	fill(c.buf, BIG, 2);
	rt = sdt_rmr(&s, BIG, BIG);
	ck.as_64 = 3;
	ASSERT_OK(dat_ep_post_rdma_write(c.ep, 3, iov, ck, &rt,
					 DAT_COMPLETION_DEFAULT_FLAG));
	sdt_expect_dto(c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_WRITE, 3);
	/* A read of it back, into two segments of our own at 2 * BIG. */
	{
		DAT_LMR_TRIPLET r[2] = { sdt_iov(&c, 2 * BIG, 777),
					 sdt_iov(&c, 2 * BIG + 777, BIG - 777) };

		ck.as_64 = 4;
		ASSERT_OK(dat_ep_post_rdma_read(c.ep, 2, r, ck, &rt,
						DAT_COMPLETION_DEFAULT_FLAG));
	}
	sdt_expect_dto(c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_READ, 4);
	check(s.buf + BIG, BIG, 2, "rdma write");
	check(c.buf + 2 * BIG, BIG, 2, "rdma read");

	sdt_disconnect(&c, &s);
	sdt_node_fini(&c);
	sdt_node_fini(&s);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	return 0;
}

TEST_IMPL(provider_transport_bad_setting)
{
	one_process("udp", "auto", "shm");	/* said, and auto taken */
	return 0;
}

/* ------------------------------------------------------------------ */
/* A listener in another process                                       */

/*
 * argv[1]: the listener's SOFTDAPL_TRANSPORT; argv[2]: "echo" or "sink";
 * argv[3], if there: the transport its connection must use. Accepts one
 * connection, checks that, then takes messages of
 * up to 16 KiB (echoing each 4 KiB one back with "echo") until the
 * requester disconnects or dies.
 */
HELPER_IMPL(transport_listener)
{
	struct sdt_node s;
	DAT_IA_HANDLE ia;
	DAT_EVENT ev;
	uint64_t k;

	test_setenv("SOFTDAPL_TRANSPORT", argv[1]);
	ia = sdt_open_ia(NULL, NULL);
	sdt_node_init(&s, ia, NULL, 1 << 20);
	ASSERT_OK(dat_psp_create_any(ia, &s.port, s.cr_evd,
				     DAT_PSP_CONSUMER_FLAG, &s.psp));
	for (k = 0; k < 64; k++)
		ASSERT_OK(sdt_recv(&s, (size_t)k * 16384, 16384, k));
	test_helper_ready("%u", (unsigned)s.port);
	ev = sdt_wait(s.cr_evd, 20000);
	ASSERT_EQ(ev.event_number, DAT_CONNECTION_REQUEST_EVENT);
	ASSERT_OK(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
				s.ep, 0, NULL));
	sdt_expect_conn(s.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	if (argc > 3)
		ASSERT_STR_EQ(ep_transport(s.ep), argv[3]);
	for (;;) {
		DAT_DTO_COMPLETION_EVENT_DATA *d;
		DAT_COUNT nmore;

		if (dat_evd_wait(s.recv_evd, 30000000, 1, &ev, &nmore) != DAT_SUCCESS)
			return 1;
		d = &ev.event_data.dto_completion_event_data;
		if (d->status != DAT_DTO_SUCCESS)
			break;		/* flushed: the requester left */
		k = d->user_cookie.as_64;
		if (d->transfered_length == 4096 && strcmp(argv[2], "echo") == 0) {
			ASSERT_OK(sdt_send(&s, (size_t)k * 16384, 4096, 1000 + k, 0));
			sdt_expect_dto(s.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND,
				       1000 + k);
		}
		ASSERT_OK(sdt_recv(&s, (size_t)k * 16384, 16384, k));
	}
	return 0;
}

/*
 * Connects to a transport_listener run with @their setting, from this
 * process with @ours; checks what both ends say they use and one echo.
 */
static void two_processes(const char *ours, const char *their,
			  const char *want)
{
	struct sdt_node c;
	struct sockaddr_storage ss;
	DAT_IA_HANDLE ia;
	test_helper_t *h;
	const char *line;
	int status;

	test_setenv("SOFTDAPL_TRANSPORT", ours);
	h = test_spawn_helper("transport_listener", their, "echo", want, NULL);
	ASSERT_OK(test_helper_wait_ready(h, &line));
	ia = sdt_open_ia(NULL, NULL);
	sdt_node_init(&c, ia, NULL, 65536);
	sdt_ia_addr(ia, &ss);
	ASSERT_OK(sdt_recv(&c, 16384, 4096, 7));
	ASSERT_OK(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&ss,
				 (DAT_CONN_QUAL)atoi(line), DAT_TIMEOUT_INFINITE,
				 0, NULL, DAT_QOS_BEST_EFFORT,
				 DAT_CONNECT_DEFAULT_FLAG));
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	ASSERT_STR_EQ(ep_transport(c.ep), want);
	memset(c.buf, 0x5a, 4096);
	ASSERT_OK(sdt_send(&c, 0, 4096, 1, 0));
	sdt_expect_dto(c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 1);
	sdt_expect_dto(c.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 7);
	ASSERT_EQ(c.buf[16384 + 4095], 0x5a);
	ASSERT_OK(dat_ep_disconnect(c.ep, DAT_CLOSE_GRACEFUL_FLAG));
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	ASSERT_OK(test_helper_wait(h, 20, &status));
	ASSERT_EXIT_CODE(status, 0);
	test_helper_free(h);
	sdt_node_fini(&c);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
}

TEST_IMPL(provider_transport_two_processes_shm)
{
	two_processes("auto", "auto", "shm");
	return 0;
}

TEST_IMPL(provider_transport_listener_tcp)
{
	two_processes("auto", "tcp", "tcp");	/* no offer: TCP */
	return 0;
}

TEST_IMPL(provider_transport_requester_tcp)
{
	two_processes("tcp", "auto", "tcp");	/* nothing asked: TCP */
	return 0;
}

/*
 * A listener killed (SIGKILL) while 128 messages of 16 KiB are on their
 * way through a 64 KiB ring: every one completes exactly once (done or
 * flushed), the connection ends (BROKEN or DISCONNECTED), nothing hangs.
 */
TEST_IMPL(provider_transport_peer_killed)
{
	enum { N = 128, LEN = 16384 };
	struct sdt_node c;
	struct sockaddr_storage ss;
	unsigned char seen[N];
	DAT_IA_HANDLE ia;
	test_helper_t *h;
	const char *line;
	DAT_EVENT ev;
	int i, status;

	test_setenv("SOFTDAPL_TRANSPORT", NULL);
	h = test_spawn_helper("transport_listener", "auto", "sink", NULL);
	ASSERT_OK(test_helper_wait_ready(h, &line));
	ia = sdt_open_ia(NULL, NULL);
	sdt_node_init(&c, ia, NULL, LEN);
	sdt_ia_addr(ia, &ss);
	ASSERT_OK(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&ss,
				 (DAT_CONN_QUAL)atoi(line), DAT_TIMEOUT_INFINITE,
				 0, NULL, DAT_QOS_BEST_EFFORT,
				 DAT_CONNECT_DEFAULT_FLAG));
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	ASSERT_STR_EQ(ep_transport(c.ep), "shm");
	for (i = 0; i < N; i++)
		ASSERT_OK(sdt_send(&c, 0, LEN, (uint64_t)i, 0));
	ASSERT_OK(test_helper_kill(h, SIGKILL));
	ASSERT_OK(test_helper_wait(h, 20, &status));
	test_helper_free(h);
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < N; i++) {
		DAT_DTO_COMPLETION_EVENT_DATA *d;

		ev = sdt_wait(c.req_evd, 20000);
		ASSERT_EQ(ev.event_number, DAT_DTO_COMPLETION_EVENT);
		d = &ev.event_data.dto_completion_event_data;
		ASSERT_LT(d->user_cookie.as_64, (uint64_t)N);
		ASSERT_EQ(seen[d->user_cookie.as_64], 0);	/* exactly once */
		seen[d->user_cookie.as_64] = 1;
		ASSERT(d->status == DAT_DTO_SUCCESS ||
		       d->status == DAT_DTO_ERR_FLUSHED);
	}
	ev = sdt_wait(c.conn_evd, 20000);
	ASSERT(ev.event_number == DAT_CONNECTION_EVENT_BROKEN ||
	       ev.event_number == DAT_CONNECTION_EVENT_DISCONNECTED);
	sdt_expect_none(c.req_evd, 0);
	sdt_node_fini(&c);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* A raw requester                                                     */

struct raw {
	struct sdt_node	s;		/* the listener under test */
	DAT_IA_HANDLE	ia;
	int		fd;		/* the requester's TCP socket */
	struct sd_cm_shm_ext ext;	/* the ACCEPT's offer */
	uint8_t		*seg;		/* mapped, when attached */
	size_t		seg_len;
	uint64_t	tail;		/* bytes written into ring 1 */
};

static void full_write(int fd, const void *p, size_t n)
{
	ASSERT_EQ(write(fd, p, n), (ssize_t)n);
}

static void full_read(int fd, void *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t r;

		ASSERT_EQ(poll(&pfd, 1, 20000), 1);
		r = read(fd, (uint8_t *)p + got, n - got);
		ASSERT_GT(r, 0);
		got += (size_t)r;
	}
}

/*
 * Opens the listener under test (this process, auto) and has a raw
 * requester send a HELLO that offers shared memory; the listener accepts
 * and the ACCEPT must offer a segment.
 */
static void raw_connect(struct raw *r)
{
	struct sockaddr_in sin;
	struct sd_cm_msg m;
	uint8_t b[SD_CM_MSG_SIZE + SD_CM_SHM_EXT_SIZE];
	DAT_EVENT ev;

	memset(r, 0, sizeof(*r));
	test_setenv("SOFTDAPL_TRANSPORT", NULL);
	r->ia = sdt_open_ia(NULL, NULL);
	sdt_node_init(&r->s, r->ia, NULL, 65536);
	ASSERT_OK(dat_psp_create_any(r->ia, &r->s.port, r->s.cr_evd,
				     DAT_PSP_CONSUMER_FLAG, &r->s.psp));
	r->fd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_GE(r->fd, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)r->s.port);
	ASSERT_OK(connect(r->fd, (struct sockaddr *)&sin, sizeof(sin)));
	memset(&m, 0, sizeof(m));
	m.magic = SD_PROTO_MAGIC;
	m.version = SD_PROTO_VERSION;
	m.type = SD_CM_HELLO;
	m.conn_qual = r->s.port;
	m.max_msg = m.max_rdma = 1u << 30;
	m.rd_in = m.rd_out = 4;
	m.flags = SD_CM_F_SHM;
	sd_cm_pack(&m, b);
	full_write(r->fd, b, SD_CM_MSG_SIZE);
	ev = sdt_wait(r->s.cr_evd, 20000);
	ASSERT_EQ(ev.event_number, DAT_CONNECTION_REQUEST_EVENT);
	ASSERT_OK(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
				r->s.ep, 0, NULL));
	full_read(r->fd, b, SD_CM_MSG_SIZE);
	sd_cm_unpack(&m, b);
	ASSERT_OK(sd_cm_check(&m, SD_CM_ACCEPT));
	ASSERT_EQ(m.pdata_len, 0);
	ASSERT(m.flags & SD_CM_F_SHM);
	full_read(r->fd, b, SD_CM_SHM_EXT_SIZE);
	sd_cm_shm_ext_unpack(&r->ext, b);
	ASSERT_EQ(r->ext.pid, (uint32_t)getpid());
}

static void raw_close(struct raw *r)
{
	if (r->seg != NULL)
		munmap(r->seg, r->seg_len);
	close(r->fd);
	sdt_node_fini(&r->s);
	ASSERT_OK(dat_ia_close(r->ia, DAT_CLOSE_ABRUPT_FLAG));
}

static uint8_t rtu[SD_CM_MSG_SIZE];

static void make_rtu(void)
{
	struct sd_cm_msg m;

	memset(&m, 0, sizeof(m));
	m.magic = SD_PROTO_MAGIC;
	m.version = SD_PROTO_VERSION;
	m.type = SD_CM_RTU;
	sd_cm_pack(&m, rtu);
}

/* The requester stays on TCP after the offer: the listener follows. */
TEST_IMPL(provider_transport_offer_declined)
{
	struct sd_hdr h;
	uint8_t b[SD_HDR_SIZE + 16];
	struct raw r;

	raw_connect(&r);
	ASSERT_OK(sdt_recv(&r.s, 0, 64, 3));
	make_rtu();
	full_write(r.fd, rtu, sizeof(rtu));
	sdt_expect_conn(r.s.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	ASSERT_STR_EQ(ep_transport(r.s.ep), "tcp");
	memset(&h, 0, sizeof(h));
	h.op = SD_OP_SEND;
	h.len = 16;
	sd_hdr_pack(&h, b);
	memset(b + SD_HDR_SIZE, 0x33, 16);
	full_write(r.fd, b, sizeof(b));
	sdt_expect_dto(r.s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 3);
	ASSERT_EQ(r.s.buf[15], 0x33);
	raw_close(&r);
	return 0;
}

/* Attaches the segment the ACCEPT offered, as a requester does. */
static void raw_attach(struct raw *r)
{
	char name[64];
	int fd;

	snprintf(name, sizeof(name), "/softdapl-%u-%016llx", r->ext.pid,
		 (unsigned long long)r->ext.nonce);
	fd = shm_open(name, O_RDWR, 0);
	ASSERT_GE(fd, 0);
	r->seg_len = SD_SHM_HDR_SIZE + 2 * (size_t)r->ext.ring_size;
	r->seg = mmap(NULL, r->seg_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT(r->seg != MAP_FAILED);
	close(fd);
	shm_unlink(name);
}

static uint64_t *w64(struct raw *r, unsigned off)
{
	return (uint64_t *)(void *)(r->seg + off);
}

static uint32_t *w32(struct raw *r, unsigned off)
{
	return (uint32_t *)(void *)(r->seg + off);
}

/* Publishes @tail as ring 1's, right or not, then a wake-up by TCP. */
static void publish_tail(struct raw *r, uint64_t tail)
{
	__atomic_store_n(w64(r, SD_SHM_OFF_WRITER(1) + SD_SHM_W_TAIL), tail,
			 __ATOMIC_RELEASE);
	full_write(r->fd, "!", 1);
}

/* Bytes into ring 1 (requester -> listener), then a wake-up by TCP. */
static void ring_put(struct raw *r, const void *p, size_t n)
{
	uint8_t *ring = r->seg + SD_SHM_HDR_SIZE + r->ext.ring_size;
	size_t i;

	for (i = 0; i < n; i++)
		ring[(r->tail + i) % r->ext.ring_size] = ((const uint8_t *)p)[i];
	r->tail += n;
	publish_tail(r, r->tail);
}

/* Attached, the RTU through the ring, the connection up on shm. */
static void raw_up(struct raw *r)
{
	raw_connect(r);
	raw_attach(r);
	make_rtu();
	ring_put(r, rtu, sizeof(rtu));
	sdt_expect_conn(r->s.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	ASSERT_STR_EQ(ep_transport(r->s.ep), "shm");
}

static void send_frame(struct raw *r, size_t len, uint8_t fill)
{
	uint8_t b[SD_HDR_SIZE + 256];
	struct sd_hdr h;

	ASSERT_LE(len, 256);
	memset(&h, 0, sizeof(h));
	h.op = SD_OP_SEND;
	h.len = (uint32_t)len;
	sd_hdr_pack(&h, b);
	memset(b + SD_HDR_SIZE, fill, len);
	ring_put(r, b, SD_HDR_SIZE + len);
}

/*
 * The attached requester sends a message through the ring (it arrives),
 * then does something no correct writer does; the listener's connection
 * breaks, its receives are flushed, and nothing else happens.
 */
static void hostile(void (*act)(struct raw *))
{
	struct raw r;

	raw_up(&r);
	ASSERT_OK(sdt_recv(&r.s, 0, 64, 1));
	ASSERT_OK(sdt_recv(&r.s, 64, 64, 2));
	send_frame(&r, 16, 0x44);
	sdt_expect_dto(r.s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 1);
	ASSERT_EQ(r.s.buf[0], 0x44);
	act(&r);
	sdt_expect_dto(r.s.recv_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_RECEIVE, 2);
	sdt_expect_conn(r.s.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	raw_close(&r);
}

/* The tail jumps past what the ring can hold. */
static void act_tail_jump(struct raw *r)
{
	r->tail += r->ext.ring_size + 1;
	publish_tail(r, r->tail);
}

/* The tail moves back before what the listener consumed. */
static void act_tail_back(struct raw *r)
{
	publish_tail(r, r->tail - 8);
}

/* Half a header, then the ring's end. */
static void act_end_mid_frame(struct raw *r)
{
	uint8_t half[SD_HDR_SIZE / 2];

	memset(half, 0, sizeof(half));
	half[0] = SD_OP_SEND;
	ring_put(r, half, sizeof(half));
	__atomic_store_n(w32(r, SD_SHM_OFF_WRITER(1) + SD_SHM_W_CLOSED),
			 SD_SHM_END, __ATOMIC_RELEASE);
	full_write(r->fd, "!", 1);
}

/*
 * The listener's own ring to us: its reader's head (ours to write) moved
 * past what it wrote. It finds out at its next write.
 */
static void act_head_jump(struct raw *r)
{
	__atomic_store_n(w64(r, SD_SHM_OFF_READER(0) + SD_SHM_R_HEAD),
			 (uint64_t)1 << 40, __ATOMIC_RELEASE);
	ASSERT_OK(sdt_send(&r->s, 0, 16, 9, 0));
	sdt_expect_dto(r->s.req_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_SEND, 9);
}

/* Garbage bytes where a header should be (rx.c's checks, via the ring). */
static void act_garbage(struct raw *r)
{
	uint8_t junk[SD_HDR_SIZE];

	memset(junk, 0xee, sizeof(junk));
	ring_put(r, junk, sizeof(junk));
}

/* A SEND "by address" (proto.h) of 64 bytes at @addr, through the ring. */
static void send_by_address(struct raw *r, uint64_t addr)
{
	uint8_t b[SD_HDR_SIZE];
	struct sd_hdr h;

	memset(&h, 0, sizeof(h));
	h.op = SD_OP_SEND;
	h.len = 64;
	h.addr = addr;
	sd_hdr_pack(&h, b);
	ring_put(r, b, sizeof(b));
}

/*
 * The requester's side of the segment says it takes one-sided accesses,
 * with its pid and, at @echo, what should be the listener's challenge.
 */
static void raw_expose(struct raw *r, const uint64_t *echo)
{
	uint8_t *blk = r->seg + SD_SHM_OFF_SIDE(1);

	*w32(r, SD_SHM_OFF_PID_R) = (uint32_t)getpid();
	__atomic_store_n((uint64_t *)(void *)(blk + SD_SHM_S_ECHO),
			 (uint64_t)(uintptr_t)echo, __ATOMIC_RELAXED);
	__atomic_store_n((uint32_t *)(void *)(blk + SD_SHM_S_EXPOSED), 1,
			 __ATOMIC_RELEASE);
}

/* A SEND by address from a requester never proved: refused. */
static void act_send_by_address(struct raw *r)
{
	send_by_address(r, (uint64_t)(uintptr_t)r->s.buf);
}

/*
 * A requester that exposes itself but cannot echo the listener's
 * challenge (it names a word that does not hold it): never proved, so
 * its SEND by address is refused.
 */
static void act_lying_echo(struct raw *r)
{
	static uint64_t wrong;

	wrong = ~*(uint64_t *)(void *)(r->seg + SD_SHM_OFF_SIDE(0) +
				       SD_SHM_S_CHALLENGE);
	raw_expose(r, &wrong);
	send_by_address(r, (uint64_t)(uintptr_t)r->s.buf);
}

/*
 * A proved requester (it echoes the challenge; it is this process) that
 * names memory it does not have: the listener's read fails, the
 * connection breaks, nothing is placed.
 */
static void act_address_unmapped(struct raw *r)
{
	static uint64_t echo;

	echo = *(uint64_t *)(void *)(r->seg + SD_SHM_OFF_SIDE(0) +
				     SD_SHM_S_CHALLENGE);
	raw_expose(r, &echo);
	send_by_address(r, 4096);	/* the first page is never mapped */
}

TEST_IMPL(provider_hostile_ring_send_by_address)
{
	hostile(act_send_by_address);
	return 0;
}

TEST_IMPL(provider_hostile_ring_lying_echo)
{
	hostile(act_lying_echo);
	return 0;
}

TEST_IMPL(provider_hostile_ring_address_unmapped)
{
	hostile(act_address_unmapped);
	return 0;
}

/*
 * A peer that says it is inside our memory and stays there (our side's
 * busy flag set for good, as a stopped or lying peer leaves it): a
 * revoke (dat_lmr_free) waits for it a bounded time, then says so and
 * returns, and later ones do not wait for it (the teardown's); the
 * connection goes on. One whose pid is gone is not waited for at all.
 */
static void busy_forever(bool peer_alive)
{
	DAT_REGION_DESCRIPTION rd;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_VLEN rlen;
	DAT_VADDR raddr;
	static char region[4096];
	struct raw r;
	pid_t dead;

	if (!peer_alive) {
		/* A pid that was ours and is gone: the peer died inside. */
		dead = fork();
		ASSERT_GE(dead, 0);
		if (dead == 0)
			_exit(0);
		ASSERT_EQ(waitpid(dead, NULL, 0), dead);
	}
	raw_connect(&r);
	raw_attach(&r);
	*w32(&r, SD_SHM_OFF_PID_R) = peer_alive ? (uint32_t)getpid() :
						  (uint32_t)dead;
	make_rtu();
	ring_put(&r, rtu, sizeof(rtu));
	sdt_expect_conn(r.s.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	ASSERT_EQ(*w32(&r, SD_SHM_OFF_SIDE(0) + SD_SHM_S_EXPOSED), 1);
	__atomic_store_n(w32(&r, SD_SHM_OFF_SIDE(0) + SD_SHM_S_BUSY), 1,
			 __ATOMIC_SEQ_CST);
	rd.for_va = region;
	ASSERT_OK(dat_lmr_create(r.ia, DAT_MEM_TYPE_VIRTUAL, rd, sizeof(region),
				 r.s.pz, DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA,
				 &lmr, &lctx, &rctx, &rlen, &raddr));
	ASSERT_OK(dat_lmr_free(lmr));	/* waits, bounded, or not at all */
	/* The connection is whole: a message still arrives. */
	ASSERT_OK(sdt_recv(&r.s, 0, 64, 1));
	send_frame(&r, 16, 0x45);
	sdt_expect_dto(r.s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 1);
	ASSERT_EQ(r.s.buf[0], 0x45);
	raw_close(&r);
}

TEST_IMPL(provider_hostile_ring_busy_forever)
{
	busy_forever(true);
	return 0;
}

TEST_IMPL(provider_hostile_ring_busy_peer_dead)
{
	busy_forever(false);
	return 0;
}

TEST_IMPL(provider_hostile_ring_tail_jump)
{
	hostile(act_tail_jump);
	return 0;
}

TEST_IMPL(provider_hostile_ring_tail_back)
{
	hostile(act_tail_back);
	return 0;
}

TEST_IMPL(provider_hostile_ring_end_mid_frame)
{
	hostile(act_end_mid_frame);
	return 0;
}

TEST_IMPL(provider_hostile_ring_head_jump)
{
	hostile(act_head_jump);
	return 0;
}

TEST_IMPL(provider_hostile_ring_garbage)
{
	hostile(act_garbage);
	return 0;
}

/* The requester dies (its TCP closes) with half a frame in the ring. */
TEST_IMPL(provider_hostile_ring_peer_gone)
{
	struct raw r;
	uint8_t half[SD_HDR_SIZE / 2];

	raw_up(&r);
	ASSERT_OK(sdt_recv(&r.s, 0, 64, 1));
	memset(half, 0, sizeof(half));
	ring_put(&r, half, sizeof(half));
	close(r.fd);
	r.fd = -1;
	sdt_expect_dto(r.s.recv_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_RECEIVE, 1);
	sdt_expect_conn(r.s.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	munmap(r.seg, r.seg_len);
	r.seg = NULL;
	sdt_node_fini(&r.s);
	ASSERT_OK(dat_ia_close(r.ia, DAT_CLOSE_ABRUPT_FLAG));
	return 0;
}
