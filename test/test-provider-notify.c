/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Notification: which completions wake a thread in dat_evd_wait.
 *
 * Every completion is queued; only a notification event ends a wait.
 * Unsignalled DTOs are not notifications (SEND-2, SEND-3, RECV-4); on an
 * EP whose receive completion flags say DAT_COMPLETION_SOLICITED_WAIT_FLAG
 * a receive notifies only when the sender asked for a solicited event
 * (RECV-3), and an SRQ buffer follows the EP that takes it (SRQ-3).
 * The same holds for the completions with events of their own: RMR
 * binds, the IB extension's requests and UD datagrams.
 */
#include <pthread.h>
#include <string.h>

#include <dat2/dat_ib_extensions.h>

#include "provider-conn.h"
#include "provider-ud.h"
#include "provider-util.h"
#include "test.h"

/* A thread blocked in dat_evd_wait(threshold 1), and what it got. */
struct waiter {
	pthread_t	thread;
	DAT_EVD_HANDLE	evd;
	DAT_EVENT	ev;
	DAT_COUNT	nmore;
	DAT_RETURN	ret;
	pthread_mutex_t	lock;
	int		done;		/* lock */
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;
	DAT_EVENT ev;
	DAT_COUNT nmore = 0;
	DAT_RETURN r;

	r = dat_evd_wait(w->evd, DAT_TIMEOUT_INFINITE, 1, &ev, &nmore);
	pthread_mutex_lock(&w->lock);
	w->ret = r;
	w->ev = ev;
	w->nmore = nmore;
	w->done = 1;
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static void waiter_start(struct waiter *w, DAT_EVD_HANDLE evd)
{
	memset(w, 0, sizeof(*w));
	w->evd = evd;
	pthread_mutex_init(&w->lock, NULL);
	ASSERT_OK(pthread_create(&w->thread, NULL, wait_thread, w));
	/*
	 * A wait that starts with events queued returns at once, so make
	 * sure the thread sleeps in it first: while it does, it owns the EVD
	 * and a dequeue is refused with DAT_INVALID_STATE_EVD_WAITER.
	 */
	for (;;) {
		DAT_EVENT ev;
		DAT_RETURN r = dat_evd_dequeue(evd, &ev);

		if (r == ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_WAITER))
			break;
		ASSERT_EQ(DAT_GET_TYPE(r), DAT_QUEUE_EMPTY);
		test_sleep_ms(1);
	}
}

static int waiter_done(struct waiter *w)
{
	int d;

	pthread_mutex_lock(&w->lock);
	d = w->done;
	pthread_mutex_unlock(&w->lock);
	return d;
}

static void waiter_join(struct waiter *w)
{
	ASSERT_OK(pthread_join(w->thread, NULL));
	pthread_mutex_destroy(&w->lock);
}

static DAT_EP_ATTR attrs(DAT_COMPLETION_FLAGS recv, DAT_COMPLETION_FLAGS req)
{
	DAT_EP_ATTR a;

	memset(&a, 0, sizeof(a));
	a.service_type = DAT_SERVICE_TYPE_RC;
	a.max_recv_dtos = a.max_request_dtos = 8;
	a.max_recv_iov = a.max_request_iov = 1;
	a.recv_completion_flags = recv;
	a.request_completion_flags = req;
	return a;
}

/* RECV-3: on a SOLICITED_WAIT EP only a solicited send wakes the waiter. */
TEST_IMPL(provider_notify_solicited_wait)
{
	DAT_EP_ATTR a = attrs(DAT_COMPLETION_SOLICITED_WAIT_FLAG,
			      DAT_COMPLETION_SOLICITED_WAIT_FLAG);
	struct sdt_node cli, srv;
	struct waiter w;
	DAT_IA_HANDLE ia;
	DAT_EVENT ev;

	ia = sdt_open_ia(NULL, NULL);
	sdt_node_init(&cli, ia, &a, 4096);
	sdt_node_init(&srv, ia, &a, 4096);
	sdt_connect(&cli, &srv);
	ASSERT_OK(sdt_recv(&srv, 0, 64, 1));
	ASSERT_OK(sdt_recv(&srv, 64, 64, 2));

	waiter_start(&w, srv.recv_evd);
	/* A plain send: its receive completes, but the waiter sleeps on. */
	ASSERT_OK(sdt_send(&cli, 0, 16, 10, DAT_COMPLETION_DEFAULT_FLAG));
	/*
	 * The send completes only once the receiver has placed it and queued
	 * its receive completion (the acknowledgement follows placement), so
	 * the completion is queued now; the waiter must not have woken.
	 */
	sdt_expect_dto(cli.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 10);
	test_sleep_ms(100);
	ASSERT_EQ(waiter_done(&w), 0);

	/* A solicited send wakes it; the first receive comes out first. */
	ASSERT_OK(sdt_send(&cli, 16, 16, 11, DAT_COMPLETION_SOLICITED_WAIT_FLAG));
	waiter_join(&w);
	ASSERT_OK(w.ret);
	ASSERT_EQ(w.ev.event_number, DAT_DTO_COMPLETION_EVENT);
	ASSERT_EQ(w.ev.event_data.dto_completion_event_data.user_cookie.as_64, 1);
	ASSERT_EQ(w.nmore, 1);
	ASSERT(sdt_poll(srv.recv_evd, &ev));
	ASSERT_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 2);
	sdt_expect_dto(cli.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 11);

	sdt_disconnect(&cli, &srv);
	sdt_node_fini(&cli);
	sdt_node_fini(&srv);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* SEND-2, SEND-3: an unsignalled send is queued but wakes nobody. */
TEST_IMPL(provider_notify_unsignalled_send)
{
	DAT_EP_ATTR a = attrs(DAT_COMPLETION_EVD_THRESHOLD_FLAG,
			      DAT_COMPLETION_UNSIGNALLED_FLAG);
	struct sdt_node cli, srv;
	struct waiter w;
	DAT_IA_HANDLE ia;
	DAT_EVENT ev;

	ia = sdt_open_ia(NULL, NULL);
	sdt_node_init(&cli, ia, &a, 4096);
	sdt_node_init(&srv, ia, &a, 4096);
	sdt_connect(&cli, &srv);
	ASSERT_OK(sdt_recv(&srv, 0, 64, 1));
	ASSERT_OK(sdt_recv(&srv, 64, 64, 2));

	waiter_start(&w, cli.req_evd);
	ASSERT_OK(sdt_send(&cli, 0, 16, 20, DAT_COMPLETION_UNSIGNALLED_FLAG));
	sdt_expect_dto(srv.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 1);
	test_sleep_ms(100);	/* the ack arrives, the completion is queued */
	ASSERT_EQ(waiter_done(&w), 0);

	ASSERT_OK(sdt_send(&cli, 16, 16, 21, DAT_COMPLETION_DEFAULT_FLAG));
	waiter_join(&w);
	ASSERT_OK(w.ret);
	ASSERT_EQ(w.ev.event_data.dto_completion_event_data.user_cookie.as_64, 20);
	ASSERT(sdt_poll(cli.req_evd, &ev));
	ASSERT_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 21);
	sdt_expect_dto(srv.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 2);

	sdt_disconnect(&cli, &srv);
	sdt_node_fini(&cli);
	sdt_node_fini(&srv);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/*
 * SEND-2, SEND-3 for the requests that complete with events of their
 * own: an unsignalled RMR bind (DAT_RMR_BIND_COMPLETION_EVENT) and an
 * unsignalled RDMA write with immediate data (the IB extension's
 * DAT_IB_DTO_EVENT) are queued but wake nobody; a signalled send then
 * wakes the waiter, and they come out first, in order.
 */
TEST_IMPL(provider_notify_unsignalled_bind_ext)
{
	DAT_EP_ATTR a = attrs(DAT_COMPLETION_EVD_THRESHOLD_FLAG,
			      DAT_COMPLETION_UNSIGNALLED_FLAG);
	struct sdt_node cli, srv;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET r;
	DAT_RMR_HANDLE rmr;
	DAT_RMR_CONTEXT ctx;
	DAT_DTO_COOKIE c;
	struct waiter w;
	DAT_IA_HANDLE ia;
	DAT_EVENT ev;

	ia = sdt_open_ia(NULL, NULL);
	sdt_node_init(&cli, ia, &a, 4096);
	sdt_node_init(&srv, ia, &a, 4096);
	sdt_connect(&cli, &srv);
	ASSERT_OK(dat_rmr_create(cli.pz, &rmr));
	ASSERT_OK(sdt_recv(&srv, 0, 64, 1));
	ASSERT_OK(sdt_recv(&srv, 64, 64, 2));

	waiter_start(&w, cli.req_evd);
	iov = sdt_iov(&cli, 0, 4096);
	c.as_64 = 30;
	ASSERT_OK(dat_rmr_bind(rmr, cli.lmr, &iov, DAT_MEM_PRIV_REMOTE_READ_FLAG,
			       DAT_VA_TYPE_VA, cli.ep, c,
			       DAT_COMPLETION_UNSIGNALLED_FLAG, &ctx));
	test_sleep_ms(100);	/* the bind takes effect, its event is queued */
	ASSERT_EQ(waiter_done(&w), 0);

	/* Its receive completes once the data is placed; then the ack. */
	iov = sdt_iov(&cli, 0, 16);
	r = sdt_rmr(&srv, 1024, 16);
	c.as_64 = 31;
	ASSERT_OK(dat_ib_post_rdma_write_immed(cli.ep, 1, &iov, c, &r, 0x77,
					       DAT_COMPLETION_UNSIGNALLED_FLAG));
	ev = sdt_wait(srv.recv_evd, 10000);
	ASSERT_EQ(ev.event_number, (DAT_EVENT_NUMBER)DAT_IB_DTO_EVENT);
	test_sleep_ms(100);	/* the ack arrives, the completion is queued */
	ASSERT_EQ(waiter_done(&w), 0);

	ASSERT_OK(sdt_send(&cli, 16, 16, 32, DAT_COMPLETION_DEFAULT_FLAG));
	waiter_join(&w);
	ASSERT_OK(w.ret);
	ASSERT_EQ(w.ev.event_number, DAT_RMR_BIND_COMPLETION_EVENT);
	ASSERT_EQ(w.ev.event_data.rmr_completion_event_data.user_cookie.as_64, 30);
	ASSERT(sdt_poll(cli.req_evd, &ev));
	ASSERT_EQ(ev.event_number, (DAT_EVENT_NUMBER)DAT_IB_DTO_EVENT);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 31);
	ASSERT(sdt_poll(cli.req_evd, &ev));
	ASSERT_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 32);
	sdt_expect_dto(srv.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 2);

	sdt_disconnect(&cli, &srv);
	ASSERT_OK(dat_rmr_free(rmr));
	sdt_node_fini(&cli);
	sdt_node_fini(&srv);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* Waits for the next event on @evd and checks its number. */
static DAT_EVENT expect_num(DAT_EVD_HANDLE evd, int num)
{
	DAT_EVENT ev = sdt_wait(evd, 10000);

	ASSERT_EQ((int)ev.event_number, num);
	return ev;
}

/*
 * SEND-2 on a UD EP (the IB extension): an unsignalled datagram send is
 * queued but wakes nobody, whether the waiter is a thread in
 * dat_evd_wait or a CNO; a signalled one wakes it.
 */
TEST_IMPL(provider_notify_unsignalled_ud_send)
{
	DAT_EP_ATTR attr = sdt_ud_attr(8, 1);
	DAT_IB_ADDR_HANDLE ab;
	struct sdt_ud u, v;
	DAT_EVD_HANDLE got;
	DAT_CNO_HANDLE cno;
	DAT_EVD_PARAM p;
	struct waiter w;
	DAT_IA_HANDLE ia;
	DAT_EVENT ev;

	attr.request_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
	ia = sdt_open_ia(NULL, NULL);
	sdt_ud_init(&u, ia, &attr, 8192, 0);
	sdt_ud_init(&v, ia, &attr, 8192, 1);
	ASSERT_OK(dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno));

	/* u resolves v. */
	sdt_connect_to(u.ia, u.ep, v.port, DAT_TIMEOUT_INFINITE);
	ev = expect_num(v.cr_evd, DAT_IB_UD_CONNECTION_REQUEST_EVENT);
	ASSERT_OK(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
				v.ep, 0, NULL));
	ev = expect_num(u.conn_evd, DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED);
	ab = sdt_ext_of(&ev)->remote_ah;
	ASSERT_OK(dat_ib_ud_cm_free(u.ep, sdt_ext_of(&ev)->context.as_ptr));
	ev = expect_num(v.conn_evd, DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED);
	ASSERT_OK(dat_ib_ud_cm_free(v.ep, sdt_ext_of(&ev)->context.as_ptr));
	ASSERT_OK(sdt_ud_recv(&v, 0, 1024, 1));
	ASSERT_OK(sdt_ud_recv(&v, 1024, 1024, 2));
	ASSERT_OK(sdt_ud_recv(&v, 2048, 1024, 3));

	/* A thread in dat_evd_wait sleeps on. */
	waiter_start(&w, u.dto_evd);
	ASSERT_OK(sdt_ud_send(&u, &ab, 4096, 8, 20,
			      DAT_COMPLETION_UNSIGNALLED_FLAG));
	sdt_ud_expect(v.dto_evd, DAT_IB_UD_RECV, DAT_DTO_SUCCESS, 1);
	test_sleep_ms(100);
	ASSERT_EQ(waiter_done(&w), 0);
	ASSERT_OK(sdt_ud_send(&u, &ab, 4096, 8, 21, DAT_COMPLETION_DEFAULT_FLAG));
	waiter_join(&w);
	ASSERT_OK(w.ret);
	ASSERT_EQ(w.ev.event_data.dto_completion_event_data.user_cookie.as_64, 20);
	ev = sdt_ud_expect(u.dto_evd, DAT_IB_UD_SEND, DAT_DTO_SUCCESS, 21);
	sdt_ud_expect(v.dto_evd, DAT_IB_UD_RECV, DAT_DTO_SUCCESS, 2);

	/* Nor is the CNO triggered; the event is still there to dequeue. */
	ASSERT_OK(dat_evd_modify_cno(u.dto_evd, cno));
	ASSERT_OK(dat_evd_query(u.dto_evd, DAT_EVD_FIELD_ALL, &p));
	ASSERT_PTR_EQ(p.cno_handle, cno);
	ASSERT_OK(sdt_ud_send(&u, &ab, 4096, 8, 22,
			      DAT_COMPLETION_UNSIGNALLED_FLAG));
	sdt_ud_expect(v.dto_evd, DAT_IB_UD_RECV, DAT_DTO_SUCCESS, 3);
	test_sleep_ms(100);
	/* dat_cno_wait(3): a timeout is DAT_QUEUE_EMPTY with a NULL EVD. */
	ASSERT_DAT_EQ(dat_cno_wait(cno, 100000, &got),
		      ERR(DAT_QUEUE_EMPTY, 0));
	ASSERT_NULL(got);
	sdt_ud_expect(u.dto_evd, DAT_IB_UD_SEND, DAT_DTO_SUCCESS, 22);

	ASSERT_OK(dat_evd_modify_cno(u.dto_evd, DAT_HANDLE_NULL));
	ASSERT_OK(dat_cno_free(cno));
	sdt_ud_fini(&u);
	sdt_ud_fini(&v);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}
