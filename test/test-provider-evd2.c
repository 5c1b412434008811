/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Events, part two (provider/evd.c, cno.c; test-provider-evd.c is part
 * one): the DAT 2.0 CNO calls dat_cno_fd_create and dat_cno_trigger, the
 * CNO notification rules CNO-1..CNO-7 that evd.c writes down, the CNO
 * release rules, the proxy agent, dat_evd_wait's threshold rules on EVDs
 * with notification control, DAT_COMPLETION_EVD_THRESHOLD_FLAG,
 * unwaitable waiters, resize, and the state of an EVD after it overflowed.
 *
 * Every call is also checked for its error returns. Nothing asserts a
 * wall-clock time: "does not happen" is checked once the event that
 * could have caused it is known to be queued (a post_se returns after
 * the trigger decision; a dequeued completion was decided under the same
 * lock), and "happens" with a wait of seconds.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <dat2/udat.h>

#include "provider-conn.h"
#include "provider-util.h"
#include "test.h"

/* The longest a positive wait may take, in ms (scaled for sanitizers). */
#define LONG_MS		10000

/* ------------------------------------------------------------------ */
/* Helpers                                                            */

static DAT_IA_HANDLE open_ia(DAT_EVD_HANDLE *async)
{
	*async = DAT_HANDLE_NULL;
	return sdt_open_ia(NULL, async);
}

static void close_ia(DAT_IA_HANDLE ia)
{
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
}

static int long_ms(void)
{
	return (int)(LONG_MS * test_timeout_scale());
}

static DAT_EVD_HANDLE sw_evd(DAT_IA_HANDLE ia, DAT_COUNT qlen,
			     DAT_CNO_HANDLE cno)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;

	ASSERT_OK(dat_evd_create(ia, qlen, cno, DAT_EVD_SOFTWARE_FLAG, &evd));
	return evd;
}

static DAT_RETURN post_sw(DAT_EVD_HANDLE evd, uintptr_t value)
{
	DAT_EVENT ev;

	memset(&ev, 0, sizeof(ev));
	ev.event_number = DAT_SOFTWARE_EVENT;
	ev.event_data.software_event_data.pointer = (DAT_PVOID)value;
	return dat_evd_post_se(evd, &ev);
}

static void expect_sw(DAT_EVD_HANDLE evd, uintptr_t value)
{
	DAT_EVENT ev;

	ASSERT_OK(dat_evd_dequeue(evd, &ev));
	ASSERT_EQ(ev.event_number, DAT_SOFTWARE_EVENT);
	ASSERT_UINT64_EQ((uintptr_t)ev.event_data.software_event_data.pointer,
			 value);
}

static void expect_empty(DAT_EVD_HANDLE evd)
{
	DAT_EVENT ev;

	ASSERT_DAT_EQ(dat_evd_dequeue(evd, &ev), ERR(DAT_QUEUE_EMPTY, 0));
}

/* The CNO holds no trigger: dat_cno_trigger says so, and takes nothing. */
static void expect_untriggered(DAT_CNO_HANDLE cno)
{
	DAT_EVD_HANDLE got = (DAT_EVD_HANDLE)&got;

	ASSERT_DAT_EQ(dat_cno_trigger(cno, &got), ERR(DAT_QUEUE_EMPTY, 0));
	ASSERT_NULL(got);
}

/* The CNO holds a trigger naming @evd; takes it. */
static void expect_triggered(DAT_CNO_HANDLE cno, DAT_EVD_HANDLE evd)
{
	DAT_EVD_HANDLE got = (DAT_EVD_HANDLE)&got;

	ASSERT_OK(dat_cno_trigger(cno, &got));
	ASSERT_PTR_EQ(got, evd);
}

/* poll(2) on @fd for up to @ms: 1 readable, 0 not. */
static int fd_readable(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int n;

	do
		n = poll(&pfd, 1, ms);
	while (n < 0 && errno == EINTR);
	ASSERT_GE(n, 0);
	if (n > 0)
		ASSERT_EQ(pfd.revents, POLLIN);
	return n;
}

/* Dequeues the next event of @evd, waiting up to LONG_MS by polling. */
static DAT_EVENT dequeue_within(DAT_EVD_HANDLE evd)
{
	uint64_t end = test_now_ms() + (uint64_t)long_ms();
	DAT_EVENT ev;

	while (dat_evd_dequeue(evd, &ev) != DAT_SUCCESS) {
		ASSERT(test_now_ms() < end);
		test_sleep_ms(1);
	}
	return ev;
}

/* Returns once a thread is blocked in dat_evd_wait on the empty @evd. */
static void wait_for_waiter(DAT_EVD_HANDLE evd)
{
	uint64_t end = test_now_ms() + (uint64_t)long_ms();
	DAT_EVENT ev;
	DAT_RETURN r;

	while ((r = dat_evd_dequeue(evd, &ev)) !=
	       ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_WAITER)) {
		/* Plain or error class, by the EVD's kind (evd.c). */
		ASSERT_DAT_EQ(DAT_GET_TYPE(r), DAT_QUEUE_EMPTY);
		ASSERT(test_now_ms() < end);
		test_sleep_ms(1);
	}
}

/* True while a thread is still blocked in dat_evd_wait on @evd. */
static int still_waiting(DAT_EVD_HANDLE evd)
{
	DAT_EVENT ev;

	return dat_evd_dequeue(evd, &ev) ==
	       ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_WAITER);
}

/* A thread in dat_evd_wait, and what it got back. */
struct waiter {
	pthread_t	thread;
	DAT_EVD_HANDLE	evd;
	DAT_COUNT	threshold;
	DAT_RETURN	ret;
	DAT_EVENT	event;
	DAT_COUNT	nmore;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;

	w->ret = dat_evd_wait(w->evd, DAT_TIMEOUT_INFINITE, w->threshold,
			      &w->event, &w->nmore);
	return NULL;
}

/* Starts the waiter and returns once it sleeps (the EVD must be empty). */
static void waiter_start(struct waiter *w, DAT_EVD_HANDLE evd,
			 DAT_COUNT threshold)
{
	memset(w, 0, sizeof(*w));
	w->evd = evd;
	w->threshold = threshold;
	ASSERT_OK(pthread_create(&w->thread, NULL, waiter_main, w));
	wait_for_waiter(evd);
}

/*
 * Returns once thread @tid sleeps (state S in /proc): how a test tells
 * that a thread is inside dat_cno_wait or poll(2), where nothing else
 * shows it.
 */
static void wait_until_asleep(const pid_t *tidp)
{
	uint64_t end = test_now_ms() + (uint64_t)long_ms();
	char path[64], buf[256], *state;
	pid_t tid;
	FILE *f;

	for (;;) {
		ASSERT(test_now_ms() < end);
		tid = __atomic_load_n(tidp, __ATOMIC_SEQ_CST);
		if (tid != 0) {
			snprintf(path, sizeof(path), "/proc/self/task/%d/stat",
				 (int)tid);
			f = fopen(path, "r");
			ASSERT_NOT_NULL(f);
			buf[0] = '\0';
			ASSERT_NOT_NULL(fgets(buf, sizeof(buf), f));
			fclose(f);
			state = strrchr(buf, ')');
			if (state != NULL && state[1] == ' ' && state[2] == 'S')
				break;
		}
		test_sleep_ms(1);
	}
	test_sleep_ms(20);
}

/* A thread in dat_cno_wait, and what it got back. */
struct cno_waiter {
	pthread_t	thread;
	DAT_CNO_HANDLE	cno;
	DAT_RETURN	ret;
	DAT_EVD_HANDLE	evd;
	pid_t		tid;		/* atomic: set before it waits */
	int		done;		/* atomic: set once it returned */
};

static void *cno_waiter_main(void *arg)
{
	struct cno_waiter *w = arg;

	__atomic_store_n(&w->tid, gettid(), __ATOMIC_SEQ_CST);
	w->ret = dat_cno_wait(w->cno, DAT_TIMEOUT_INFINITE, &w->evd);
	__atomic_store_n(&w->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* Returns once @n of the two waiters returned from dat_cno_wait. */
static void cno_waiters_done(struct cno_waiter *a, struct cno_waiter *b, int n)
{
	uint64_t end = test_now_ms() + (uint64_t)long_ms();

	while (__atomic_load_n(&a->done, __ATOMIC_SEQ_CST) +
	       __atomic_load_n(&b->done, __ATOMIC_SEQ_CST) < n) {
		ASSERT(test_now_ms() < end);
		test_sleep_ms(1);
	}
}

static void cno_waiter_start(struct cno_waiter *w, DAT_CNO_HANDLE cno)
{
	memset(w, 0, sizeof(*w));
	w->cno = cno;
	w->evd = (DAT_EVD_HANDLE)w;	/* must come back NULL or an EVD */
	ASSERT_OK(pthread_create(&w->thread, NULL, cno_waiter_main, w));
	wait_until_asleep(&w->tid);
}

static void cno_waiter_join(struct cno_waiter *w)
{
	ASSERT_OK(pthread_join(w->thread, NULL));
}

/* A proxy agent that counts its calls and notes the EVD of the last. */
struct agent_log {
	int		calls;		/* atomic */
	DAT_EVD_HANDLE	evd;		/* atomic */
};

static void DAT_API agent_fn(DAT_PVOID data, DAT_EVD_HANDLE evd)
{
	struct agent_log *log = data;

	__atomic_store_n(&log->evd, evd, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&log->calls, 1, __ATOMIC_SEQ_CST);
}

static DAT_OS_WAIT_PROXY_AGENT agent_of(struct agent_log *log)
{
	DAT_OS_WAIT_PROXY_AGENT a;

	memset(log, 0, sizeof(*log));
	a.instance_data = log;
	a.proxy_agent_func = agent_fn;
	return a;
}

static int agent_calls(struct agent_log *log)
{
	return __atomic_load_n(&log->calls, __ATOMIC_SEQ_CST);
}

static DAT_EP_ATTR ep_attrs(DAT_COMPLETION_FLAGS recv, DAT_COMPLETION_FLAGS req)
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

/* ------------------------------------------------------------------ */
/* dat_cno_fd_create                                                  */

/*
 * The fd is readable exactly while a trigger is pending; dat_cno_trigger
 * takes it and clears the fd; epoll sees the same; dat_cno_free closes
 * it.
 */
TEST_IMPL(provider_evd2_cno_fd)
{
	DAT_EVD_HANDLE async, evd, got;
	struct epoll_event ee, out;
	DAT_CNO_HANDLE cno, bad;
	DAT_CNO_PARAM cp;
	DAT_IA_HANDLE ia;
	DAT_FD fd = -1;
	uint64_t n;
	int ep;

	ia = open_ia(&async);

	/* Errors. */
	ASSERT_DAT_EQ(dat_cno_fd_create(DAT_HANDLE_NULL, &fd, &bad),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
	ASSERT_DAT_EQ(dat_cno_fd_create(ia, NULL, &bad),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_cno_fd_create(ia, &fd, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_EQ(fd, -1);

	ASSERT_OK(dat_cno_fd_create(ia, &fd, &cno));
	ASSERT_GE(fd, 0);
	ASSERT_NOT_NULL(cno);
	memset(&cp, 0xa5, sizeof(cp));
	ASSERT_OK(dat_cno_query(cno, DAT_CNO_FIELD_ALL, &cp));
	ASSERT_PTR_EQ(cp.ia_handle, ia);
	ASSERT_EQ(cp.proxy_type, DAT_PROXY_TYPE_FD);
	ASSERT_EQ(cp.proxy.fd, fd);
	ASSERT_EQ(fd_readable(fd, 0), 0);
	expect_untriggered(cno);

	evd = sw_evd(ia, 8, cno);
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_GE(ep, 0);
	memset(&ee, 0, sizeof(ee));
	ee.events = EPOLLIN;
	ee.data.u64 = 42;
	ASSERT_OK(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ee));
	ASSERT_EQ(epoll_wait(ep, &out, 1, 0), 0);

	/* A software event triggers it: readable until the trigger is taken. */
	ASSERT_OK(post_sw(evd, 1));
	ASSERT_EQ(fd_readable(fd, 0), 1);
	ASSERT_EQ(epoll_wait(ep, &out, 1, 0), 1);
	ASSERT_UINT64_EQ(out.data.u64, 42);
	ASSERT_OK(post_sw(evd, 2));		/* still one trigger */
	ASSERT_EQ(fd_readable(fd, 0), 1);
	expect_triggered(cno, evd);
	ASSERT_EQ(fd_readable(fd, 0), 0);
	ASSERT_EQ(epoll_wait(ep, &out, 1, 0), 0);
	expect_untriggered(cno);
	expect_sw(evd, 1);
	expect_sw(evd, 2);

	/* dat_cno_wait takes the trigger too, and clears the fd. */
	ASSERT_OK(post_sw(evd, 3));
	ASSERT_EQ(fd_readable(fd, 0), 1);
	got = DAT_HANDLE_NULL;
	ASSERT_OK(dat_cno_wait(cno, 0, &got));
	ASSERT_PTR_EQ(got, evd);
	ASSERT_EQ(fd_readable(fd, 0), 0);
	expect_sw(evd, 3);

	/*
	 * A consumer that reads the fd itself loses nothing: the trigger is
	 * still there for dat_cno_trigger, and the fd polls again once it
	 * is taken and the CNO triggers anew.
	 */
	ASSERT_OK(post_sw(evd, 4));
	ASSERT_EQ(read(fd, &n, sizeof(n)), (ssize_t)sizeof(n));
	ASSERT_EQ(fd_readable(fd, 0), 0);
	expect_triggered(cno, evd);
	ASSERT_OK(post_sw(evd, 5));
	ASSERT_EQ(fd_readable(fd, 0), 1);
	expect_triggered(cno, evd);
	expect_sw(evd, 4);
	expect_sw(evd, 5);

	/* No agent on an fd CNO; removing none is fine. */
	ASSERT_OK(dat_cno_modify_agent(cno, DAT_OS_WAIT_PROXY_AGENT_NULL));

	/* dat_cno_free(3): not while an EVD feeds it; then the fd is closed. */
	ASSERT_DAT_EQ(dat_cno_free(cno),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_CNO_IN_USE));
	ASSERT_OK(dat_evd_free(evd));
	ASSERT_OK(close(ep));
	ASSERT_OK(dat_cno_free(cno));
	ASSERT_EQ(fcntl(fd, F_GETFD), -1);
	ASSERT_EQ(errno, EBADF);
	close_ia(ia);
	return 0;
}

/* A thread blocked in poll(2) on the fd. */
struct fd_poller {
	pthread_t	thread;
	int		fd;
	int		ms;
	int		n;		/* poll's result */
	short		revents;
	pid_t		tid;		/* atomic: set before it polls */
};

static void *fd_poller_main(void *arg)
{
	struct fd_poller *p = arg;
	struct pollfd pfd = { .fd = p->fd, .events = POLLIN };

	__atomic_store_n(&p->tid, gettid(), __ATOMIC_SEQ_CST);
	do
		p->n = poll(&pfd, 1, p->ms);
	while (p->n < 0 && errno == EINTR);
	p->revents = pfd.revents;
	return NULL;
}

static void fd_poller_start(struct fd_poller *p, int fd)
{
	memset(p, 0, sizeof(*p));
	p->fd = fd;
	p->ms = long_ms();
	ASSERT_OK(pthread_create(&p->thread, NULL, fd_poller_main, p));
	wait_until_asleep(&p->tid);
}

/*
 * A thread asleep in poll(2) on the fd wakes when another thread's event
 * triggers the CNO, and finds the EVD with dat_cno_trigger.
 */
TEST_IMPL(provider_evd2_cno_fd_thread)
{
	DAT_EVD_HANDLE async, evd1, evd2;
	struct fd_poller p;
	DAT_CNO_HANDLE cno;
	DAT_IA_HANDLE ia;
	DAT_FD fd;

	ia = open_ia(&async);
	ASSERT_OK(dat_cno_fd_create(ia, &fd, &cno));
	evd1 = sw_evd(ia, 4, cno);
	evd2 = sw_evd(ia, 4, cno);

	fd_poller_start(&p, fd);
	ASSERT_OK(post_sw(evd2, 7));
	ASSERT_OK(pthread_join(p.thread, NULL));
	ASSERT_EQ(p.n, 1);
	ASSERT_EQ(p.revents, POLLIN);
	expect_triggered(cno, evd2);
	expect_untriggered(cno);
	expect_empty(evd1);
	expect_sw(evd2, 7);

	/* The latest EVD that triggered it is the one reported. */
	ASSERT_OK(post_sw(evd2, 8));
	ASSERT_OK(post_sw(evd1, 9));
	expect_triggered(cno, evd1);
	expect_sw(evd2, 8);
	expect_sw(evd1, 9);

	ASSERT_OK(dat_evd_free(evd1));
	ASSERT_OK(dat_evd_free(evd2));
	ASSERT_OK(dat_cno_free(cno));
	close_ia(ia);
	return 0;
}

/* ------------------------------------------------------------------ */
/* dat_cno_trigger on a CNO without fd                                 */

TEST_IMPL(provider_evd2_cno_trigger)
{
	DAT_EVD_HANDLE async, evd, got;
	DAT_CNO_HANDLE cno;
	DAT_IA_HANDLE ia;

	ia = open_ia(&async);
	ASSERT_OK(dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno));

	/* Errors. */
	ASSERT_DAT_EQ(dat_cno_trigger(cno, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_cno_trigger(async, &got),	/* an EVD */
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO));
	ASSERT_DAT_EQ(dat_cno_trigger(DAT_HANDLE_NULL, &got),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO));
	expect_untriggered(cno);

	/* Sticky until taken, by dat_cno_trigger or dat_cno_wait. */
	evd = sw_evd(ia, 4, cno);
	ASSERT_OK(post_sw(evd, 1));
	expect_triggered(cno, evd);
	got = evd;
	ASSERT_DAT_EQ(dat_cno_wait(cno, 0, &got), ERR(DAT_QUEUE_EMPTY, 0));
	ASSERT_NULL(got);
	ASSERT_OK(post_sw(evd, 2));
	ASSERT_OK(dat_cno_wait(cno, 0, &got));
	ASSERT_PTR_EQ(got, evd);
	expect_untriggered(cno);
	expect_sw(evd, 1);
	expect_sw(evd, 2);

	ASSERT_OK(dat_evd_free(evd));
	ASSERT_OK(dat_cno_free(cno));
	close_ia(ia);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The notification rules (evd.c: CNO-1..CNO-7)                        */

/* CNO-2..CNO-6 with software events, which are notification events. */
TEST_IMPL(provider_evd2_cno_rules)
{
	DAT_EVD_HANDLE async, evd, got;
	DAT_CNO_HANDLE cno, cno2;
	struct waiter w;
	DAT_IA_HANDLE ia;
	DAT_FD fd;

	ia = open_ia(&async);
	ASSERT_OK(dat_cno_fd_create(ia, &fd, &cno));
	ASSERT_OK(dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno2));
	evd = sw_evd(ia, 8, cno);

	/* CNO-3: a disabled EVD queues events but does not trigger. */
	ASSERT_OK(dat_evd_disable(evd));
	ASSERT_OK(post_sw(evd, 1));
	ASSERT_EQ(fd_readable(fd, 0), 0);
	expect_untriggered(cno);

	/* CNO-4: enabling does not trigger for what came while disabled... */
	ASSERT_OK(dat_evd_enable(evd));
	ASSERT_EQ(fd_readable(fd, 0), 0);
	expect_untriggered(cno);
	/* ...the next arrival does. */
	ASSERT_OK(post_sw(evd, 2));
	ASSERT_EQ(fd_readable(fd, 0), 1);
	expect_triggered(cno, evd);
	expect_sw(evd, 1);
	expect_sw(evd, 2);

	/* CNO-3: a disabled EVD still wakes its waiter by the threshold. */
	ASSERT_OK(dat_evd_disable(evd));
	waiter_start(&w, evd, 2);
	ASSERT_OK(post_sw(evd, 3));
	ASSERT(still_waiting(evd));
	ASSERT_OK(post_sw(evd, 4));
	ASSERT_OK(pthread_join(w.thread, NULL));
	ASSERT_OK(w.ret);
	ASSERT_UINT64_EQ((uintptr_t)w.event.event_data.software_event_data.pointer, 3);
	ASSERT_EQ(w.nmore, 1);
	expect_sw(evd, 4);
	ASSERT_OK(dat_evd_enable(evd));
	expect_untriggered(cno);

	/*
	 * CNO-2: a thread waiting on the enabled EVD preempts the CNO,
	 * below its threshold and at it.
	 */
	waiter_start(&w, evd, 2);
	ASSERT_OK(post_sw(evd, 5));
	ASSERT(still_waiting(evd));
	ASSERT_EQ(fd_readable(fd, 0), 0);
	ASSERT_OK(post_sw(evd, 6));
	ASSERT_OK(pthread_join(w.thread, NULL));
	ASSERT_OK(w.ret);
	ASSERT_UINT64_EQ((uintptr_t)w.event.event_data.software_event_data.pointer, 5);
	ASSERT_EQ(w.nmore, 1);
	ASSERT_EQ(fd_readable(fd, 0), 0);
	expect_untriggered(cno);
	expect_sw(evd, 6);
	expect_empty(evd);

	/* CNO-5: an unwaitable EVD still triggers. */
	ASSERT_OK(dat_evd_set_unwaitable(evd));
	ASSERT_OK(post_sw(evd, 6));
	expect_triggered(cno, evd);
	expect_sw(evd, 6);
	ASSERT_OK(dat_evd_clear_unwaitable(evd));

	/*
	 * CNO-6: after dat_evd_modify_cno, triggers go to the new CNO; one
	 * the old CNO holds stays there, naming the EVD.
	 */
	ASSERT_OK(post_sw(evd, 7));
	ASSERT_OK(dat_evd_modify_cno(evd, cno2));
	ASSERT_OK(post_sw(evd, 8));
	expect_triggered(cno2, evd);
	expect_triggered(cno, evd);
	ASSERT_EQ(fd_readable(fd, 0), 0);
	ASSERT_OK(dat_evd_modify_cno(evd, DAT_HANDLE_NULL));
	ASSERT_OK(post_sw(evd, 9));
	expect_untriggered(cno);
	expect_untriggered(cno2);
	/* Removing an EVD is not freeing it: no release (CNO-7). */
	got = evd;
	ASSERT_DAT_EQ(dat_cno_wait(cno2, 0, &got), ERR(DAT_QUEUE_EMPTY, 0));
	expect_sw(evd, 7);
	expect_sw(evd, 8);
	expect_sw(evd, 9);

	/* Errors. */
	ASSERT_DAT_EQ(dat_evd_modify_cno(cno, cno),	/* a CNO as EVD */
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST));
	ASSERT_DAT_EQ(dat_evd_modify_cno(evd, async),	/* an EVD as CNO */
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO));
	ASSERT_DAT_EQ(dat_evd_enable(DAT_HANDLE_NULL),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST));
	ASSERT_DAT_EQ(dat_evd_disable(cno),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST));

	ASSERT_OK(dat_evd_free(evd));
	ASSERT_OK(dat_cno_free(cno));
	ASSERT_OK(dat_cno_free(cno2));
	close_ia(ia);
	return 0;
}

/*
 * CNO-1 with DTO completions: an unsignalled send, and a receive without
 * a solicited event on a SOLICITED_WAIT EP, are queued but trigger
 * nothing; a signalled send and a solicited receive trigger (SEND-2,
 * RECV-3). Then CNO-3 and CNO-4 with solicited receives.
 */
TEST_IMPL(provider_evd2_cno_dto_notification)
{
	DAT_EP_ATTR a = ep_attrs(DAT_COMPLETION_SOLICITED_WAIT_FLAG,
				 DAT_COMPLETION_UNSIGNALLED_FLAG);
	DAT_EVD_HANDLE async, got;
	struct sdt_node cli, srv;
	DAT_CNO_HANDLE cno;
	DAT_IA_HANDLE ia;
	DAT_EVENT ev;
	DAT_FD fd;

	ia = open_ia(&async);
	ASSERT_OK(dat_cno_fd_create(ia, &fd, &cno));
	sdt_node_init(&cli, ia, &a, 4096);
	sdt_node_init(&srv, ia, &a, 4096);
	ASSERT_OK(dat_evd_modify_cno(cli.req_evd, cno));
	ASSERT_OK(dat_evd_modify_cno(srv.recv_evd, cno));
	sdt_connect(&cli, &srv);
	ASSERT_OK(sdt_recv(&srv, 0, 64, 1));
	ASSERT_OK(sdt_recv(&srv, 64, 64, 2));
	ASSERT_OK(sdt_recv(&srv, 128, 64, 3));

	/* An unsignalled, unsolicited send: two completions, no trigger. */
	ASSERT_OK(sdt_send(&cli, 0, 16, 10, DAT_COMPLETION_UNSIGNALLED_FLAG));
	ev = dequeue_within(srv.recv_evd);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 1);
	ev = dequeue_within(cli.req_evd);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 10);
	ASSERT_EQ(fd_readable(fd, 0), 0);
	expect_untriggered(cno);

	/* A signalled send triggers through the request EVD... */
	ASSERT_OK(sdt_send(&cli, 16, 16, 11, DAT_COMPLETION_DEFAULT_FLAG));
	ev = dequeue_within(cli.req_evd);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 11);
	ev = dequeue_within(srv.recv_evd);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 2);
	expect_triggered(cno, cli.req_evd);
	expect_untriggered(cno);	/* ...and its receive did not */

	/* A solicited send triggers through the receive EVD. */
	ASSERT_OK(sdt_send(&cli, 32, 16, 12, DAT_COMPLETION_SOLICITED_WAIT_FLAG |
			   DAT_COMPLETION_UNSIGNALLED_FLAG));
	ASSERT_EQ(fd_readable(fd, long_ms()), 1);
	got = DAT_HANDLE_NULL;
	ASSERT_OK(dat_cno_wait(cno, 0, &got));
	ASSERT_PTR_EQ(got, srv.recv_evd);
	ev = dequeue_within(srv.recv_evd);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 3);
	ev = dequeue_within(cli.req_evd);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 12);
	expect_untriggered(cno);

	/*
	 * CNO-3, CNO-4 with the same rules: a solicited receive on a
	 * disabled EVD triggers nothing, not even once it is enabled; the
	 * next one does.
	 */
	ASSERT_OK(sdt_recv(&srv, 192, 64, 4));
	ASSERT_OK(sdt_recv(&srv, 256, 64, 5));
	ASSERT_OK(dat_evd_disable(srv.recv_evd));
	ASSERT_OK(sdt_send(&cli, 48, 16, 13, DAT_COMPLETION_SOLICITED_WAIT_FLAG |
			   DAT_COMPLETION_UNSIGNALLED_FLAG));
	ev = dequeue_within(srv.recv_evd);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 4);
	ASSERT_OK(dat_evd_enable(srv.recv_evd));
	ASSERT_EQ(fd_readable(fd, 0), 0);
	expect_untriggered(cno);
	ASSERT_OK(sdt_send(&cli, 64, 16, 14, DAT_COMPLETION_SOLICITED_WAIT_FLAG |
			   DAT_COMPLETION_UNSIGNALLED_FLAG));
	ev = dequeue_within(srv.recv_evd);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 5);
	expect_triggered(cno, srv.recv_evd);
	ev = dequeue_within(cli.req_evd);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 13);
	ev = dequeue_within(cli.req_evd);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 14);

	sdt_disconnect(&cli, &srv);
	ASSERT_OK(dat_evd_modify_cno(cli.req_evd, DAT_HANDLE_NULL));
	ASSERT_OK(dat_evd_modify_cno(srv.recv_evd, DAT_HANDLE_NULL));
	sdt_node_fini(&cli);
	sdt_node_fini(&srv);
	ASSERT_OK(dat_cno_free(cno));
	close_ia(ia);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Release (CNO-7) and the proxy agent                                */

/*
 * Freeing the last EVD of a CNO releases every waiter with DAT_SUCCESS
 * and a NULL EVD and calls the agent with a NULL EVD (dat_cno_wait(3));
 * an fd CNO becomes readable and dat_cno_trigger gives NULL.
 */
TEST_IMPL(provider_evd2_cno_release)
{
	DAT_EVD_HANDLE async, evd1, evd2, got;
	struct cno_waiter cw1, cw2;
	struct agent_log log;
	DAT_CNO_HANDLE cno, fcno;
	DAT_IA_HANDLE ia;
	DAT_FD fd;

	ia = open_ia(&async);
	ASSERT_OK(dat_cno_create(ia, agent_of(&log), &cno));
	evd1 = sw_evd(ia, 4, cno);
	evd2 = sw_evd(ia, 4, cno);

	/* Two waiters; freeing one of two EVDs releases nobody... */
	cno_waiter_start(&cw1, cno);
	cno_waiter_start(&cw2, cno);
	ASSERT_OK(dat_evd_free(evd1));
	ASSERT_EQ(agent_calls(&log), 0);
	/* ...so a trigger releases one of them, with the EVD. */
	ASSERT_OK(post_sw(evd2, 1));
	ASSERT_EQ(agent_calls(&log), 1);
	ASSERT_PTR_EQ(__atomic_load_n(&log.evd, __ATOMIC_SEQ_CST), evd2);
	cno_waiters_done(&cw1, &cw2, 1);
	expect_sw(evd2, 1);
	/* Put the agent back, then free the last EVD: the other goes too. */
	ASSERT_OK(dat_cno_modify_agent(cno, agent_of(&log)));
	ASSERT_OK(dat_evd_free(evd2));
	cno_waiter_join(&cw1);
	cno_waiter_join(&cw2);
	ASSERT_OK(cw1.ret);
	ASSERT_OK(cw2.ret);
	ASSERT(cw1.evd == DAT_HANDLE_NULL || cw2.evd == DAT_HANDLE_NULL);
	ASSERT(cw1.evd == evd2 || cw2.evd == evd2);
	ASSERT_EQ(agent_calls(&log), 1);
	ASSERT_NULL(__atomic_load_n(&log.evd, __ATOMIC_SEQ_CST));
	/* Nothing is left pending for a later wait. */
	got = async;
	ASSERT_DAT_EQ(dat_cno_wait(cno, 0, &got), ERR(DAT_QUEUE_EMPTY, 0));
	ASSERT_NULL(got);
	ASSERT_OK(dat_cno_free(cno));

	/* The fd form: readable, and dat_cno_trigger reports NULL. */
	ASSERT_OK(dat_cno_fd_create(ia, &fd, &fcno));
	evd1 = sw_evd(ia, 4, fcno);
	ASSERT_OK(dat_evd_free(evd1));
	ASSERT_EQ(fd_readable(fd, 0), 1);
	got = async;
	ASSERT_OK(dat_cno_trigger(fcno, &got));
	ASSERT_NULL(got);
	ASSERT_EQ(fd_readable(fd, 0), 0);
	expect_untriggered(fcno);
	ASSERT_OK(dat_cno_free(fcno));

	close_ia(ia);
	return 0;
}

/*
 * dat_ia_close releases the CNO's waiters (DAT_SUCCESS, NULL EVD), calls
 * its agent with a NULL EVD and wakes a thread polling an fd CNO
 * (dat_cno_wait(3): "when the IA instance is destroyed"). A second IA
 * keeps the provider loaded while the threads leave it.
 */
TEST_IMPL(provider_evd2_cno_ia_close)
{
	DAT_EVD_HANDLE async, async2;
	DAT_CNO_HANDLE cno, lone, fcno;
	struct cno_waiter cw, lw;
	struct agent_log log, lonelog;
	struct fd_poller p;
	DAT_IA_HANDLE ia, ia2;
	DAT_FD fd;

	ia2 = open_ia(&async2);
	ia = open_ia(&async);
	ASSERT_OK(dat_cno_create(ia, agent_of(&log), &cno));
	(void)sw_evd(ia, 4, cno);		/* freed by dat_ia_close */
	ASSERT_OK(dat_cno_create(ia, agent_of(&lonelog), &lone)); /* no EVD */
	ASSERT_OK(dat_cno_fd_create(ia, &fd, &fcno));
	(void)sw_evd(ia, 4, fcno);

	cno_waiter_start(&cw, cno);
	cno_waiter_start(&lw, lone);
	fd_poller_start(&p, fd);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	cno_waiter_join(&cw);
	cno_waiter_join(&lw);
	ASSERT_OK(pthread_join(p.thread, NULL));
	ASSERT_OK(cw.ret);
	ASSERT_NULL(cw.evd);
	ASSERT_OK(lw.ret);
	ASSERT_NULL(lw.evd);
	ASSERT_EQ(p.n, 1);		/* POLLIN, or POLLNVAL once closed */
	ASSERT_EQ(agent_calls(&log), 1);
	ASSERT_NULL(__atomic_load_n(&log.evd, __ATOMIC_SEQ_CST));
	ASSERT_EQ(agent_calls(&lonelog), 1);
	ASSERT_NULL(__atomic_load_n(&lonelog.evd, __ATOMIC_SEQ_CST));
	close_ia(ia2);
	return 0;
}

/*
 * A proxy agent that, called for a receive completion, works on the EP
 * that completed: it dequeues the completion, posts the next receive
 * and a send on that EP, and arms itself again. It may, as no provider
 * lock is held while it runs (cno.c). It does not assert: it may run on
 * another thread; the test checks what it noted.
 */
struct dto_agent {
	DAT_CNO_HANDLE	cno;
	struct sdt_node	*node;		/* the receiving side */
	int		calls;		/* atomic; the rest is written first */
	DAT_EVD_HANDLE	evd;		/* of the last call */
	DAT_RETURN	deq, recv, send, rearm;	/* of the last call */
	uint64_t	cookie;		/* of the receive it dequeued */
};

static void DAT_API dto_agent_fn(DAT_PVOID data, DAT_EVD_HANDLE evd)
{
	struct dto_agent *a = data;
	DAT_OS_WAIT_PROXY_AGENT self = { a, dto_agent_fn };
	int n = __atomic_load_n(&a->calls, __ATOMIC_SEQ_CST);
	DAT_EVENT ev;

	memset(&ev, 0, sizeof(ev));
	a->evd = evd;
	a->deq = dat_evd_dequeue(evd, &ev);
	a->cookie = ev.event_data.dto_completion_event_data.user_cookie.as_64;
	a->recv = sdt_recv(a->node, 64 * ((size_t)n + 1), 64, 100 + (uint64_t)n);
	a->send = sdt_send(a->node, 3072, 16, 200 + (uint64_t)n,
			   DAT_COMPLETION_DEFAULT_FLAG);
	a->rearm = dat_cno_modify_agent(a->cno, self);
	__atomic_add_fetch(&a->calls, 1, __ATOMIC_SEQ_CST);
}

/* Waits up to long_ms() for @a's @n-th call. */
static void dto_agent_wait(struct dto_agent *a, int n)
{
	uint64_t end = test_now_ms() + (uint64_t)long_ms();

	while (__atomic_load_n(&a->calls, __ATOMIC_SEQ_CST) < n) {
		if (test_now_ms() >= end)
			TEST_FAIL("the proxy agent was called %d times, not %d "
				  "(a provider lock held around it?)",
				  __atomic_load_n(&a->calls, __ATOMIC_SEQ_CST), n);
		test_sleep_ms(1);
	}
}

/*
 * The CNO rule: a proxy agent called for a real DTO completion runs with
 * no provider lock held (not the EP's, under which the completion was
 * posted), so it can post on the same EP and dequeue the EVD; each
 * trigger calls it once, and the agent it arms again is called at the
 * next trigger.
 */
TEST_IMPL(provider_evd2_cno_agent_dto)
{
	DAT_OS_WAIT_PROXY_AGENT agent;
	DAT_EVD_HANDLE async;
	struct sdt_node cli, srv;
	struct dto_agent a;
	DAT_CNO_HANDLE cno;
	DAT_IA_HANDLE ia;
	DAT_EVENT ev;
	int i;

	ia = open_ia(&async);
	ASSERT_OK(dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno));
	sdt_node_init(&cli, ia, NULL, 4096);
	sdt_node_init(&srv, ia, NULL, 4096);
	ASSERT_OK(dat_evd_modify_cno(srv.recv_evd, cno));
	sdt_connect(&cli, &srv);
	ASSERT_OK(sdt_recv(&cli, 1024, 64, 50));	/* for the agent's sends */
	ASSERT_OK(sdt_recv(&cli, 1088, 64, 51));
	ASSERT_OK(sdt_recv(&srv, 0, 64, 1));

	memset(&a, 0, sizeof(a));
	a.cno = cno;
	a.node = &srv;
	agent.instance_data = &a;
	agent.proxy_agent_func = dto_agent_fn;
	ASSERT_OK(dat_cno_modify_agent(cno, agent));
	for (i = 0; i < 2; i++) {
		ASSERT_OK(sdt_send(&cli, 2048, 16, 10 + (uint64_t)i,
				   DAT_COMPLETION_DEFAULT_FLAG));
		dto_agent_wait(&a, i + 1);
		ASSERT_PTR_EQ(a.evd, srv.recv_evd);
		ASSERT_OK(a.deq);
		ASSERT_UINT64_EQ(a.cookie, i == 0 ? 1 : 100);
		ASSERT_OK(a.recv);
		ASSERT_OK(a.send);
		ASSERT_OK(a.rearm);
		ev = dequeue_within(cli.req_evd);
		ASSERT_UINT64_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64,
				 10 + (uint64_t)i);
		ev = dequeue_within(cli.recv_evd);
		ASSERT_UINT64_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64,
				 50 + (uint64_t)i);
		ev = dequeue_within(srv.req_evd);
		ASSERT_UINT64_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64,
				 200 + (uint64_t)i);
	}
	/* Once per trigger: armed again, but nothing more arrived. */
	ASSERT_OK(dat_cno_modify_agent(cno, DAT_OS_WAIT_PROXY_AGENT_NULL));
	ASSERT_EQ(__atomic_load_n(&a.calls, __ATOMIC_SEQ_CST), 2);
	expect_triggered(cno, srv.recv_evd);

	sdt_disconnect(&cli, &srv);
	ASSERT_OK(dat_evd_modify_cno(srv.recv_evd, DAT_HANDLE_NULL));
	sdt_node_fini(&cli);
	sdt_node_fini(&srv);
	ASSERT_OK(dat_cno_free(cno));
	close_ia(ia);
	return 0;
}

/* An agent that counts its calls and holds its thread while @hold is set. */
struct hold_agent {
	int		calls;		/* atomic */
	int		hold;		/* atomic */
	DAT_EVD_HANDLE	evd;		/* atomic; of the last call */
};

static void DAT_API hold_agent_fn(DAT_PVOID data, DAT_EVD_HANDLE evd)
{
	struct hold_agent *a = data;

	__atomic_store_n(&a->evd, evd, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&a->calls, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&a->hold, __ATOMIC_SEQ_CST))
		test_sleep_ms(1);
}

static DAT_OS_WAIT_PROXY_AGENT hold_agent_of(struct hold_agent *a, int hold)
{
	DAT_OS_WAIT_PROXY_AGENT g = { a, hold_agent_fn };

	memset(a, 0, sizeof(*a));
	a->hold = hold;
	return g;
}

static int hold_calls(struct hold_agent *a)
{
	return __atomic_load_n(&a->calls, __ATOMIC_SEQ_CST);
}

/* Waits up to long_ms() for @a's @n-th call. */
static void hold_agent_wait(struct hold_agent *a, int n)
{
	uint64_t end = test_now_ms() + (uint64_t)long_ms();

	while (hold_calls(a) < n) {
		if (test_now_ms() >= end)
			TEST_FAIL("agent %p called %d times, not %d", (void *)a,
				  hold_calls(a), n);
		test_sleep_ms(1);
	}
}

/*
 * The CNO rule for triggers that the provider posts (here a watermark
 * event on the async EVD, posted from the consumer's thread): the engine
 * calls the agent, once per trigger, none lost. While an agent runs
 * there, a trigger takes the agent armed since, and one more leaves the
 * next armed agent for the engine; both are called in turn. An agent
 * still due when its CNO is freed is called by dat_cno_free, with a
 * NULL EVD, and the CNO outlives the engine's call.
 */
TEST_IMPL(provider_evd2_cno_agent_deferred)
{
	struct hold_agent a, b, c, d;
	DAT_SRQ_ATTR sa = { 8, 1, 0 };
	DAT_EVD_HANDLE async, async2;
	DAT_CNO_HANDLE cno, cno2;
	DAT_SRQ_HANDLE srq, srq2;
	DAT_PZ_HANDLE pz, pz2;
	DAT_IA_HANDLE ia, ia2;
	int i;

	ia = open_ia(&async);
	ia2 = open_ia(&async2);
	ASSERT_OK(dat_pz_create(ia, &pz));
	ASSERT_OK(dat_srq_create(ia, pz, &sa, &srq));
	ASSERT_OK(dat_pz_create(ia2, &pz2));
	ASSERT_OK(dat_srq_create(ia2, pz2, &sa, &srq2));
	ASSERT_OK(dat_cno_create(ia, hold_agent_of(&a, 1), &cno));
	ASSERT_OK(dat_cno_create(ia2, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno2));
	ASSERT_OK(dat_evd_modify_cno(async, cno));
	ASSERT_OK(dat_evd_modify_cno(async2, cno2));

	/* Nothing posted: each dat_srq_set_lw fires at once. */
	ASSERT_OK(dat_srq_set_lw(srq, 1));
	hold_agent_wait(&a, 1);		/* the engine is held in it */
	ASSERT_OK(dat_cno_modify_agent(cno, hold_agent_of(&b, 0)));
	ASSERT_OK(dat_srq_set_lw(srq, 1));	/* takes b */
	ASSERT_OK(dat_cno_modify_agent(cno, hold_agent_of(&c, 0)));
	ASSERT_OK(dat_srq_set_lw(srq, 1));	/* leaves c for the engine */

	/* cno2's agent is due behind a; freeing cno2 calls it. */
	ASSERT_OK(dat_cno_modify_agent(cno2, hold_agent_of(&d, 0)));
	ASSERT_OK(dat_srq_set_lw(srq2, 1));
	ASSERT_EQ(hold_calls(&d), 0);
	ASSERT_OK(dat_evd_modify_cno(async2, DAT_HANDLE_NULL));
	ASSERT_OK(dat_cno_free(cno2));
	ASSERT_EQ(hold_calls(&d), 1);
	ASSERT_NULL(__atomic_load_n(&d.evd, __ATOMIC_SEQ_CST));
	ASSERT_EQ(hold_calls(&b), 0);

	__atomic_store_n(&a.hold, 0, __ATOMIC_SEQ_CST);
	hold_agent_wait(&b, 1);
	hold_agent_wait(&c, 1);
	ASSERT_PTR_EQ(__atomic_load_n(&b.evd, __ATOMIC_SEQ_CST), async);
	ASSERT_PTR_EQ(__atomic_load_n(&c.evd, __ATOMIC_SEQ_CST), async);
	for (i = 0; i < 3; i++)
		sdt_expect_watermark(async, srq, DAT_SRQ_LOW_WATERMARK_EVENT);
	sdt_expect_watermark(async2, srq2, DAT_SRQ_LOW_WATERMARK_EVENT);
	ASSERT_EQ(hold_calls(&a), 1);
	ASSERT_EQ(hold_calls(&b), 1);
	ASSERT_EQ(hold_calls(&c), 1);
	ASSERT_EQ(hold_calls(&d), 1);

	ASSERT_OK(dat_evd_modify_cno(async, DAT_HANDLE_NULL));
	ASSERT_OK(dat_cno_free(cno));
	ASSERT_OK(dat_srq_free(srq));
	ASSERT_OK(dat_srq_free(srq2));
	ASSERT_OK(dat_pz_free(pz));
	ASSERT_OK(dat_pz_free(pz2));
	close_ia(ia2);
	close_ia(ia);
	return 0;
}

/* dat_cno_modify_agent(3) and dat_cno_query of the agent. */
TEST_IMPL(provider_evd2_cno_modify_agent)
{
	DAT_OS_WAIT_PROXY_AGENT agent;
	DAT_EVD_HANDLE async, evd;
	struct agent_log log;
	DAT_CNO_HANDLE cno, fcno;
	DAT_CNO_PARAM cp;
	DAT_IA_HANDLE ia;
	DAT_FD fd;

	ia = open_ia(&async);
	ASSERT_OK(dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno));
	ASSERT_OK(dat_cno_fd_create(ia, &fd, &fcno));
	agent = agent_of(&log);

	/* Errors. */
	ASSERT_DAT_EQ(dat_cno_modify_agent(DAT_HANDLE_NULL, agent),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO));
	ASSERT_DAT_EQ(dat_cno_modify_agent(async, agent),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO));
	/* The fd is an fd CNO's one proxy. */
	ASSERT_DAT_EQ(dat_cno_modify_agent(fcno, agent),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_OK(dat_cno_query(fcno, DAT_CNO_FIELD_ALL, &cp));
	ASSERT_EQ(cp.proxy_type, DAT_PROXY_TYPE_FD);
	ASSERT_DAT_EQ(dat_cno_query(fcno, DAT_CNO_FIELD_ALL, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));

	/* Set, reported, called once with the EVD, then gone. */
	evd = sw_evd(ia, 4, cno);
	ASSERT_OK(dat_cno_modify_agent(cno, agent));
	ASSERT_OK(dat_cno_query(cno, DAT_CNO_FIELD_ALL, &cp));
	ASSERT_EQ(cp.proxy_type, DAT_PROXY_TYPE_AGENT);
	ASSERT_PTR_EQ(cp.proxy.agent.instance_data, &log);
	ASSERT_OK(post_sw(evd, 1));
	ASSERT_EQ(agent_calls(&log), 1);
	ASSERT_PTR_EQ(__atomic_load_n(&log.evd, __ATOMIC_SEQ_CST), evd);
	ASSERT_OK(dat_cno_query(cno, DAT_CNO_FIELD_ALL, &cp));
	ASSERT_EQ(cp.proxy_type, DAT_PROXY_TYPE_NONE);
	expect_triggered(cno, evd);
	ASSERT_OK(post_sw(evd, 2));
	ASSERT_EQ(agent_calls(&log), 1);
	expect_triggered(cno, evd);

	/* DAT_OS_WAIT_PROXY_AGENT_NULL disassociates it. */
	ASSERT_OK(dat_cno_modify_agent(cno, agent));
	ASSERT_OK(dat_cno_modify_agent(cno, DAT_OS_WAIT_PROXY_AGENT_NULL));
	ASSERT_OK(post_sw(evd, 3));
	ASSERT_EQ(agent_calls(&log), 1);
	expect_triggered(cno, evd);
	expect_sw(evd, 1);
	expect_sw(evd, 2);
	expect_sw(evd, 3);

	ASSERT_OK(dat_evd_free(evd));
	ASSERT_OK(dat_cno_free(cno));
	ASSERT_OK(dat_cno_free(fcno));
	close_ia(ia);
	return 0;
}

/* ------------------------------------------------------------------ */
/* dat_evd_wait: thresholds                                           */

/*
 * dat_evd_wait(3): an EVD used by an EP for a completion stream with
 * notification control (receives: UNSIGNALLED or SOLICITED_WAIT;
 * requests: UNSIGNALLED) takes no threshold above 1: DAT_INVALID_STATE.
 * With EVD_THRESHOLD (the default) or once the EP is gone, it does.
 */
TEST_IMPL(provider_evd2_wait_threshold_config)
{
	DAT_EP_ATTR sol = ep_attrs(DAT_COMPLETION_SOLICITED_WAIT_FLAG,
				   DAT_COMPLETION_EVD_THRESHOLD_FLAG);
	DAT_EP_ATTR uns = ep_attrs(DAT_COMPLETION_EVD_THRESHOLD_FLAG,
				   DAT_COMPLETION_UNSIGNALLED_FLAG);
	DAT_EP_ATTR thr = ep_attrs(DAT_COMPLETION_EVD_THRESHOLD_FLAG,
				   DAT_COMPLETION_EVD_THRESHOLD_FLAG);
	DAT_EVD_HANDLE async, recv, req, conn;
	DAT_EP_HANDLE ep;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_COUNT nmore;
	DAT_EVENT ev;

	ia = open_ia(&async);
	ASSERT_OK(dat_pz_create(ia, &pz));
	ASSERT_OK(dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &recv));
	ASSERT_OK(dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &req));
	ASSERT_OK(dat_evd_create(ia, 8, DAT_HANDLE_NULL,
				 DAT_EVD_CONNECTION_FLAG, &conn));

	/* Receives with solicited wait: the receive EVD takes threshold 1. */
	ASSERT_OK(dat_ep_create(ia, pz, recv, req, conn, &sol, &ep));
	ASSERT_DAT_EQ(dat_evd_wait(recv, 0, 2, &ev, &nmore),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_CONFIG_SOLICITED));
	ASSERT_DAT_EQ(dat_evd_wait(recv, 0, 1, &ev, &nmore),
		      ERR(DAT_TIMEOUT_EXPIRED, 0));
	ASSERT_DAT_EQ(dat_evd_wait(req, 0, 2, &ev, &nmore),
		      ERR(DAT_TIMEOUT_EXPIRED, 0));
	/* Parameter errors come first. */
	ASSERT_DAT_EQ(dat_evd_wait(recv, 0, 9, &ev, &nmore),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(dat_evd_wait(recv, 0, 2, NULL, &nmore),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	ASSERT_OK(dat_ep_free(ep));
	ASSERT_DAT_EQ(dat_evd_wait(recv, 0, 2, &ev, &nmore),
		      ERR(DAT_TIMEOUT_EXPIRED, 0));

	/* Unsignalled requests: the request EVD takes threshold 1. */
	ASSERT_OK(dat_ep_create(ia, pz, recv, req, conn, &uns, &ep));
	ASSERT_DAT_EQ(dat_evd_wait(req, 0, 2, &ev, &nmore),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_CONFIG_NOTIFY));
	ASSERT_DAT_EQ(dat_evd_wait(req, 0, 1, &ev, &nmore),
		      ERR(DAT_TIMEOUT_EXPIRED, 0));
	ASSERT_DAT_EQ(dat_evd_wait(recv, 0, 8, &ev, &nmore),
		      ERR(DAT_TIMEOUT_EXPIRED, 0));
	ASSERT_OK(dat_ep_free(ep));

	/* Unsignalled receives: the same EVD for both streams. */
	uns.recv_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
	uns.request_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG;
	ASSERT_OK(dat_ep_create(ia, pz, recv, recv, conn, &uns, &ep));
	ASSERT_DAT_EQ(dat_evd_wait(recv, 0, 3, &ev, &nmore),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_CONFIG_NOTIFY));
	ASSERT_OK(dat_ep_free(ep));

	/* EVD_THRESHOLD: any threshold up to qlen. */
	ASSERT_OK(dat_ep_create(ia, pz, recv, req, conn, &thr, &ep));
	ASSERT_DAT_EQ(dat_evd_wait(recv, 0, 8, &ev, &nmore),
		      ERR(DAT_TIMEOUT_EXPIRED, 0));
	ASSERT_DAT_EQ(dat_evd_wait(req, 0, 8, &ev, &nmore),
		      ERR(DAT_TIMEOUT_EXPIRED, 0));
	ASSERT_OK(dat_ep_free(ep));

	ASSERT_OK(dat_evd_free(recv));
	ASSERT_OK(dat_evd_free(req));
	ASSERT_OK(dat_evd_free(conn));
	ASSERT_OK(dat_pz_free(pz));
	close_ia(ia);
	return 0;
}

/*
 * DAT_COMPLETION_EVD_THRESHOLD_FLAG (SRQ-3): every completion notifies and
 * the waiter's threshold decides: a waiter for 3 sleeps through two
 * receive completions and wakes with the third.
 */
TEST_IMPL(provider_evd2_threshold_flag)
{
	DAT_EP_ATTR a = ep_attrs(DAT_COMPLETION_EVD_THRESHOLD_FLAG,
				 DAT_COMPLETION_EVD_THRESHOLD_FLAG);
	struct sdt_node cli, srv;
	DAT_EVD_HANDLE async;
	struct waiter w;
	DAT_IA_HANDLE ia;
	DAT_EVENT ev;
	int i;

	ia = open_ia(&async);
	sdt_node_init(&cli, ia, &a, 4096);
	sdt_node_init(&srv, ia, &a, 4096);
	sdt_connect(&cli, &srv);
	for (i = 0; i < 3; i++)
		ASSERT_OK(sdt_recv(&srv, (size_t)i * 64, 64, (uint64_t)i + 1));

	waiter_start(&w, srv.recv_evd, 3);
	for (i = 0; i < 2; i++) {
		ASSERT_OK(sdt_send(&cli, (size_t)i * 16, 16, (uint64_t)i + 10,
				   DAT_COMPLETION_DEFAULT_FLAG));
		/* Acked only once its receive completion is queued. */
		sdt_expect_dto(cli.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND,
			       (uint64_t)i + 10);
	}
	ASSERT(still_waiting(srv.recv_evd));
	ASSERT_OK(sdt_send(&cli, 32, 16, 12, DAT_COMPLETION_DEFAULT_FLAG));
	ASSERT_OK(pthread_join(w.thread, NULL));
	ASSERT_OK(w.ret);
	ASSERT_EQ(w.event.event_number, DAT_DTO_COMPLETION_EVENT);
	ASSERT_EQ(w.event.event_data.dto_completion_event_data.user_cookie.as_64, 1);
	ASSERT_EQ(w.nmore, 2);
	ASSERT(sdt_poll(srv.recv_evd, &ev));
	ASSERT_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 2);
	ASSERT(sdt_poll(srv.recv_evd, &ev));
	ASSERT_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 3);
	sdt_expect_dto(cli.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 12);

	sdt_disconnect(&cli, &srv);
	sdt_node_fini(&cli);
	sdt_node_fini(&srv);
	close_ia(ia);
	return 0;
}

/*
 * dat_evd_set_unwaitable(3): a waiter is released with DAT_INVALID_STATE
 * even with events queued, which stay; later waits are refused until
 * dat_evd_clear_unwaitable. Both are idempotent.
 */
TEST_IMPL(provider_evd2_unwaitable_release)
{
	DAT_EVD_HANDLE async, evd;
	DAT_EVD_PARAM p;
	struct waiter w;
	DAT_IA_HANDLE ia;
	DAT_COUNT nmore;
	DAT_EVENT ev;

	ia = open_ia(&async);
	evd = sw_evd(ia, 4, DAT_HANDLE_NULL);

	waiter_start(&w, evd, 2);
	ASSERT_OK(post_sw(evd, 1));
	ASSERT(still_waiting(evd));
	ASSERT_OK(dat_evd_set_unwaitable(evd));
	ASSERT_OK(dat_evd_set_unwaitable(evd));
	ASSERT_OK(pthread_join(w.thread, NULL));
	ASSERT_DAT_EQ(w.ret, ERR(DAT_INVALID_STATE,
				 DAT_INVALID_STATE_EVD_UNWAITABLE));
	ASSERT_OK(dat_evd_query(evd, DAT_EVD_FIELD_EVD_STATE, &p));
	ASSERT_EQ(p.evd_state, DAT_EVD_STATE_ENABLED | DAT_EVD_STATE_UNWAITABLE);
	ASSERT_DAT_EQ(dat_evd_wait(evd, 0, 1, &ev, &nmore),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_UNWAITABLE));
	ASSERT_OK(post_sw(evd, 2));
	ASSERT_OK(dat_evd_clear_unwaitable(evd));
	ASSERT_OK(dat_evd_clear_unwaitable(evd));
	ASSERT_OK(dat_evd_wait(evd, 0, 2, &ev, &nmore));
	ASSERT_UINT64_EQ((uintptr_t)ev.event_data.software_event_data.pointer, 1);
	ASSERT_EQ(nmore, 1);
	expect_sw(evd, 2);

	/* Released even when dat_evd_clear_unwaitable follows at once. */
	waiter_start(&w, evd, 1);
	ASSERT_OK(dat_evd_set_unwaitable(evd));
	ASSERT_OK(dat_evd_clear_unwaitable(evd));
	ASSERT_OK(pthread_join(w.thread, NULL));
	ASSERT_DAT_EQ(w.ret, ERR(DAT_INVALID_STATE,
				 DAT_INVALID_STATE_EVD_UNWAITABLE));
	ASSERT_OK(post_sw(evd, 3));
	ASSERT_OK(dat_evd_wait(evd, 0, 1, &ev, &nmore));
	ASSERT_UINT64_EQ((uintptr_t)ev.event_data.software_event_data.pointer, 3);

	ASSERT_DAT_EQ(dat_evd_set_unwaitable(DAT_HANDLE_NULL),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST));
	ASSERT_DAT_EQ(dat_evd_clear_unwaitable(DAT_HANDLE_NULL),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST));

	ASSERT_OK(dat_evd_free(evd));
	close_ia(ia);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Resize                                                             */

/*
 * dat_evd_resize(3): down to exactly what is queued is fine; below it is
 * DAT_INVALID_STATE and changes nothing; not while a thread waits; a wait
 * threshold is checked against the new length.
 */
TEST_IMPL(provider_evd2_resize_rules)
{
	DAT_EVD_HANDLE async, evd;
	DAT_IA_ATTR attr;
	DAT_EVD_PARAM p;
	struct waiter w;
	DAT_IA_HANDLE ia;
	DAT_COUNT nmore;
	DAT_EVENT ev;
	uintptr_t i;

	ia = open_ia(&async);
	ASSERT_OK(dat_ia_query(ia, NULL, DAT_IA_FIELD_IA_MAX_EVD_QLEN, &attr,
			       0, NULL));
	evd = sw_evd(ia, 8, DAT_HANDLE_NULL);
	for (i = 1; i <= 3; i++)
		ASSERT_OK(post_sw(evd, i));

	ASSERT_DAT_EQ(dat_evd_resize(evd, 2), ERR(DAT_INVALID_STATE, 0));
	ASSERT_OK(dat_evd_query(evd, DAT_EVD_FIELD_EVD_QLEN, &p));
	ASSERT_EQ(p.evd_qlen, 8);
	ASSERT_DAT_EQ(dat_evd_resize(evd, attr.max_evd_qlen + 1),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_evd_resize(DAT_HANDLE_NULL, 8),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST));
	ASSERT_OK(dat_evd_resize(evd, 3));
	ASSERT_OK(dat_evd_query(evd, DAT_EVD_FIELD_EVD_QLEN, &p));
	ASSERT_EQ(p.evd_qlen, 3);
	ASSERT_DAT_EQ(post_sw(evd, 4), ERR(DAT_QUEUE_FULL, 0));
	ASSERT_DAT_EQ(dat_evd_wait(evd, 0, 4, &ev, &nmore),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_OK(dat_evd_wait(evd, 0, 3, &ev, &nmore));
	ASSERT_UINT64_EQ((uintptr_t)ev.event_data.software_event_data.pointer, 1);
	expect_sw(evd, 2);
	expect_sw(evd, 3);

	/* Not under a waiter (as OFED). */
	waiter_start(&w, evd, 1);
	ASSERT_DAT_EQ(dat_evd_resize(evd, 16),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_WAITER));
	ASSERT_OK(post_sw(evd, 5));
	ASSERT_OK(pthread_join(w.thread, NULL));
	ASSERT_OK(w.ret);
	ASSERT_OK(dat_evd_resize(evd, 16));

	ASSERT_OK(dat_evd_free(evd));
	close_ia(ia);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Overflow                                                           */

/*
 * An EVD that overflows goes out of service (evd.c): the waiter it had is
 * released with DAT_INVALID_STATE, DAT_ASYNC_ERROR_EVD_OVERFLOW names it
 * on the async EVD, and from then on dequeue, wait and resize return
 * DAT_INVALID_STATE and post_se DAT_QUEUE_FULL; query still works and it
 * is freed as usual. The EVD here is a request EVD of one event, filled
 * by two unsignalled sends, which wake nobody.
 */
TEST_IMPL(provider_evd2_overflow_state)
{
	DAT_EP_ATTR a = ep_attrs(DAT_COMPLETION_EVD_THRESHOLD_FLAG,
				 DAT_COMPLETION_UNSIGNALLED_FLAG);
	DAT_EVD_HANDLE async, tiny;
	struct sdt_node cli, srv;
	DAT_EP_PARAM ep_param;
	DAT_EVD_PARAM p;
	struct waiter w;
	DAT_IA_HANDLE ia;
	DAT_COUNT nmore;
	DAT_EVENT ev;

	ia = open_ia(&async);
	ASSERT_OK(dat_evd_create(ia, 1, DAT_HANDLE_NULL,
				 DAT_EVD_DTO_FLAG | DAT_EVD_SOFTWARE_FLAG, &tiny));
	sdt_node_init(&cli, ia, &a, 4096);
	sdt_node_init(&srv, ia, &a, 4096);
	memset(&ep_param, 0, sizeof(ep_param));
	ep_param.request_evd_handle = tiny;
	ASSERT_OK(dat_ep_modify(cli.ep, DAT_EP_FIELD_REQUEST_EVD_HANDLE,
				&ep_param));
	sdt_connect(&cli, &srv);
	ASSERT_OK(sdt_recv(&srv, 0, 64, 1));
	ASSERT_OK(sdt_recv(&srv, 64, 64, 2));

	waiter_start(&w, tiny, 1);
	ASSERT_OK(sdt_send(&cli, 0, 16, 10, DAT_COMPLETION_UNSIGNALLED_FLAG));
	ASSERT_OK(sdt_send(&cli, 16, 16, 11, DAT_COMPLETION_UNSIGNALLED_FLAG));
	ASSERT_OK(pthread_join(w.thread, NULL));
	ASSERT_DAT_EQ(w.ret, ERR(DAT_INVALID_STATE, 0));
	sdt_expect_dto(srv.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 1);
	sdt_expect_dto(srv.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 2);

	/* Reported once, naming the EVD. */
	ASSERT_OK(dat_evd_wait(async, (DAT_TIMEOUT)long_ms() * 1000, 1, &ev,
			       &nmore));
	ASSERT_EQ(ev.event_number, DAT_ASYNC_ERROR_EVD_OVERFLOW);
	ASSERT_PTR_EQ(ev.event_data.asynch_error_event_data.dat_handle, tiny);
	ASSERT_EQ(ev.event_data.asynch_error_event_data.reason,
		  DAT_EVD_OVERFLOW_ERROR);

	/* Out of service. */
	ASSERT_DAT_EQ(dat_evd_dequeue(tiny, &ev), ERR(DAT_INVALID_STATE, 0));
	ASSERT_DAT_EQ(dat_evd_wait(tiny, 0, 1, &ev, &nmore),
		      ERR(DAT_INVALID_STATE, 0));
	ASSERT_DAT_EQ(dat_evd_wait(tiny, DAT_TIMEOUT_INFINITE, 1, &ev, &nmore),
		      ERR(DAT_INVALID_STATE, 0));
	ASSERT_DAT_EQ(dat_evd_resize(tiny, 16), ERR(DAT_INVALID_STATE, 0));
	ASSERT_DAT_EQ(post_sw(tiny, 1), ERR(DAT_QUEUE_FULL, 0));
	ASSERT_OK(dat_evd_query(tiny, DAT_EVD_FIELD_ALL, &p));
	ASSERT_EQ(p.evd_qlen, 1);
	/* Argument errors are still reported as such. */
	ASSERT_DAT_EQ(dat_evd_dequeue(tiny, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_evd_wait(tiny, 0, 2, &ev, &nmore),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));

	/* The EP goes on; its completions are lost, and nothing else. */
	ASSERT_OK(sdt_recv(&srv, 128, 64, 3));
	ASSERT_OK(sdt_send(&cli, 32, 16, 12, DAT_COMPLETION_DEFAULT_FLAG));
	sdt_expect_dto(srv.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 3);
	ASSERT_DAT_EQ(dat_evd_dequeue(async, &ev), ERR(DAT_QUEUE_EMPTY, 0));

	sdt_disconnect(&cli, &srv);
	ASSERT_DAT_EQ(dat_evd_free(tiny),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_IN_USE));
	sdt_node_fini(&cli);
	sdt_node_fini(&srv);
	ASSERT_OK(dat_evd_free(tiny));
	close_ia(ia);
	return 0;
}

/*
 * Receive completions overflow a receive EVD of four events (its
 * evd_qlen, as dat_evd_query reports it): the peer sends to two receives
 * more than it holds. Every send completes (the receives were placed);
 * the EVD overflows once, DAT_ASYNC_ERROR_EVD_OVERFLOW names it, and it
 * answers DAT_INVALID_STATE from then on (evd.c, Overflow). The events
 * it could not hold are counted, not silently dropped: the `dto` trace
 * line of each says dropped=overflow.
 */
TEST_IMPL(provider_evd2_overflow_receives)
{
	DAT_EP_ATTR a = ep_attrs(DAT_COMPLETION_DEFAULT_FLAG,
				 DAT_COMPLETION_DEFAULT_FLAG);
	DAT_EVD_HANDLE async, tiny;
	struct sdt_node cli, srv;
	DAT_EP_PARAM ep_param;
	DAT_EVD_PARAM p;
	DAT_IA_HANDLE ia;
	DAT_COUNT nmore, n, i;
	DAT_EVENT ev;

	a.max_recv_dtos = a.max_request_dtos = 16;
	ia = open_ia(&async);
	ASSERT_OK(dat_evd_create(ia, 4, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG,
				 &tiny));
	ASSERT_OK(dat_evd_query(tiny, DAT_EVD_FIELD_EVD_QLEN, &p));
	ASSERT_GE(p.evd_qlen, 4);
	n = p.evd_qlen + 2;
	ASSERT_LE(n, a.max_recv_dtos);
	sdt_node_init(&cli, ia, &a, 4096);
	sdt_node_init(&srv, ia, &a, 4096);
	memset(&ep_param, 0, sizeof(ep_param));
	ep_param.recv_evd_handle = tiny;
	ASSERT_OK(dat_ep_modify(srv.ep, DAT_EP_FIELD_RECV_EVD_HANDLE,
				&ep_param));
	sdt_connect(&cli, &srv);
	for (i = 0; i < n; i++)
		ASSERT_OK(sdt_recv(&srv, (size_t)i * 64, 64, 100 + i));
	for (i = 0; i < n; i++)
		ASSERT_OK(sdt_send(&cli, (size_t)i * 16, 16, 200 + i,
				   DAT_COMPLETION_DEFAULT_FLAG));
	/* A send completes once its receive is placed and completed. */
	for (i = 0; i < n; i++)
		sdt_expect_dto(cli.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND,
			       200 + i);

	/* Reported once, naming the EVD. */
	ASSERT_OK(dat_evd_wait(async, (DAT_TIMEOUT)long_ms() * 1000, 1, &ev,
			       &nmore));
	ASSERT_EQ(ev.event_number, DAT_ASYNC_ERROR_EVD_OVERFLOW);
	ASSERT_PTR_EQ(ev.event_data.asynch_error_event_data.dat_handle, tiny);
	ASSERT_EQ(ev.event_data.asynch_error_event_data.reason,
		  DAT_EVD_OVERFLOW_ERROR);
	ASSERT_DAT_EQ(dat_evd_dequeue(async, &ev), ERR(DAT_QUEUE_EMPTY, 0));

	/* Out of service. */
	ASSERT_DAT_EQ(dat_evd_dequeue(tiny, &ev), ERR(DAT_INVALID_STATE, 0));
	ASSERT_DAT_EQ(dat_evd_wait(tiny, 0, 1, &ev, &nmore),
		      ERR(DAT_INVALID_STATE, 0));

	sdt_disconnect(&cli, &srv);
	sdt_node_fini(&cli);
	sdt_node_fini(&srv);
	ASSERT_OK(dat_evd_free(tiny));
	close_ia(ia);
	return 0;
}
