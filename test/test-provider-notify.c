/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Notification: which completions wake a thread in dat_evd_wait.
 *
 * Every completion is queued; only a notification event ends a wait.
 * Unsignalled DTOs are not notifications (SEND-2, SEND-3, RECV-4); on an
 * EP whose receive completion flags say DAT_COMPLETION_SOLICITED_WAIT_FLAG
 * a receive notifies only when the sender asked for a solicited event
 * (RECV-3), and an SRQ buffer follows the EP that takes it (SRQ-3).
 */
#include <pthread.h>
#include <string.h>

#include "provider-conn.h"
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
