/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The provider's event dispatchers and CNOs (provider/evd.c, cno.c),
 * through libdat2 as a consumer sees them: every entry point's errors,
 * software events, waiting (thresholds, timeouts, a second waiter, an
 * unwaitable EVD), the overflow report, resize, CNO notification and
 * several threads posting to one waiter. test-provider-evd2.c goes on
 * with the fd CNO, dat_cno_trigger, the notification rules and overflow.
 *
 * Times are checked one way only: a wait of T returns after at least T,
 * and an upper bound, where there is one, is seconds away.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dat2/udat.h>

#include "provider-util.h"
#include "test.h"

#define ERR(type, sub) ((DAT_RETURN)(DAT_CLASS_ERROR | (type) | (sub)))

/* Waits this long at most for another thread to get somewhere. */
#define SETTLE_MS 10000

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

static DAT_EVD_HANDLE sw_evd(DAT_IA_HANDLE ia, DAT_COUNT qlen,
			     DAT_CNO_HANDLE cno)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;

	ASSERT_OK(dat_evd_create(ia, qlen, cno, DAT_EVD_SOFTWARE_FLAG, &evd));
	ASSERT_NOT_NULL(evd);
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

/* Dequeues one software event and checks it carries @value. */
static void expect_sw(DAT_EVD_HANDLE evd, uintptr_t value)
{
	DAT_EVENT ev;

	ASSERT_OK(dat_evd_dequeue(evd, &ev));
	ASSERT_EQ(ev.event_number, DAT_SOFTWARE_EVENT);
	ASSERT_PTR_EQ(ev.evd_handle, evd);
	ASSERT_UINT64_EQ((uintptr_t)ev.event_data.software_event_data.pointer,
			 value);
}

static void expect_empty(DAT_EVD_HANDLE evd)
{
	DAT_EVENT ev;

	ASSERT_DAT_EQ(dat_evd_dequeue(evd, &ev), ERR(DAT_QUEUE_EMPTY, 0));
}

static uint64_t cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * Returns once a thread is blocked in dat_evd_wait on @evd (which must
 * hold no event): dat_evd_dequeue is refused exactly then.
 */
static void wait_for_waiter(DAT_EVD_HANDLE evd)
{
	uint64_t end = test_now_ms() + SETTLE_MS;
	DAT_EVENT ev;

	while (dat_evd_dequeue(evd, &ev) !=
	       ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_WAITER)) {
		ASSERT(test_now_ms() < end);
		test_sleep_ms(1);
	}
}

/* A thread in dat_evd_wait, and what it got back. */
struct waiter {
	pthread_t	thread;
	DAT_EVD_HANDLE	evd;
	DAT_TIMEOUT	timeout;
	DAT_COUNT	threshold;
	DAT_RETURN	ret;
	DAT_EVENT	event;
	DAT_COUNT	nmore;
	int		*posted;	/* if set: posts seen when woken */
	int		posted_seen;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;

	w->ret = dat_evd_wait(w->evd, w->timeout, w->threshold, &w->event,
			      &w->nmore);
	if (w->posted != NULL)
		w->posted_seen = __atomic_load_n(w->posted, __ATOMIC_SEQ_CST);
	return NULL;
}

static void waiter_start(struct waiter *w, DAT_EVD_HANDLE evd,
			 DAT_TIMEOUT timeout, DAT_COUNT threshold, int *posted)
{
	memset(w, 0, sizeof(*w));
	w->evd = evd;
	w->timeout = timeout;
	w->threshold = threshold;
	w->posted = posted;
	ASSERT_OK(pthread_create(&w->thread, NULL, waiter_main, w));
}

static void waiter_join(struct waiter *w)
{
	ASSERT_OK(pthread_join(w->thread, NULL));
}

/*
 * Posts @n software events 1..n to @evd, @delay_ms apart, from a thread.
 * Before posting event i it stores i in *@posted (if set), a counter the
 * test owns and zeroes before starting any thread that reads it: the
 * poster never writes a byte that a running waiter reads except through
 * that atomic store.
 */
struct poster {
	pthread_t	thread;
	DAT_EVD_HANDLE	evd;
	int		n;
	unsigned	delay_ms;
	int		*posted;
};

static void *poster_main(void *arg)
{
	struct poster *p = arg;
	int i;

	for (i = 1; i <= p->n; i++) {
		test_sleep_ms(p->delay_ms);
		if (p->posted != NULL)
			__atomic_store_n(p->posted, i, __ATOMIC_SEQ_CST);
		ASSERT_OK(post_sw(p->evd, (uintptr_t)i));
	}
	return NULL;
}

static void poster_start(struct poster *p, DAT_EVD_HANDLE evd, int n,
			 unsigned delay_ms, int *posted)
{
	memset(p, 0, sizeof(*p));
	p->evd = evd;
	p->n = n;
	p->delay_ms = delay_ms;
	p->posted = posted;
	ASSERT_OK(pthread_create(&p->thread, NULL, poster_main, p));
}

/*
 * Marks a handle of our provider passed where one of another kind is
 * expected: the registry dispatches it (its first word is the provider
 * table), so the provider itself must refuse it.
 */
static DAT_HANDLE wrong_kind(DAT_HANDLE other)
{
	return other;
}

/* ------------------------------------------------------------------ */
/* Creation, query, free                                              */

TEST_IMPL(provider_evd_create_errors)
{
	DAT_EVD_HANDLE async, evd;
	DAT_IA_ATTR attr;
	DAT_IA_HANDLE ia;
	DAT_CNO_HANDLE cno;

	ia = open_ia(&async);
	ASSERT_OK(dat_ia_query(ia, NULL, DAT_IA_FIELD_IA_MAX_EVD_QLEN, &attr,
			       0, NULL));
	ASSERT_GE(attr.max_evd_qlen, 1024);

	ASSERT_DAT_EQ(dat_evd_create(ia, 0, DAT_HANDLE_NULL,
				     DAT_EVD_SOFTWARE_FLAG, &evd),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_evd_create(ia, -5, DAT_HANDLE_NULL,
				     DAT_EVD_SOFTWARE_FLAG, &evd),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_evd_create(ia, attr.max_evd_qlen + 1, DAT_HANDLE_NULL,
				     DAT_EVD_SOFTWARE_FLAG, &evd),
		      ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEVD));
	ASSERT_DAT_EQ(dat_evd_create(ia, 8, DAT_HANDLE_NULL,
				     (DAT_EVD_FLAGS)0x200, &evd),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	ASSERT_DAT_EQ(dat_evd_create(ia, 8, DAT_HANDLE_NULL,
				     DAT_EVD_SOFTWARE_FLAG, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	ASSERT_DAT_EQ(dat_evd_create(DAT_HANDLE_NULL, 8, DAT_HANDLE_NULL,
				     DAT_EVD_SOFTWARE_FLAG, &evd),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
	/* An EVD handle where a CNO is expected. */
	ASSERT_DAT_EQ(dat_evd_create(ia, 8, wrong_kind(async),
				     DAT_EVD_SOFTWARE_FLAG, &evd),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO));

	/* The largest queue, every stream (DEFAULT includes ASYNC), a CNO. */
	ASSERT_OK(dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno));
	ASSERT_OK(dat_evd_create(ia, attr.max_evd_qlen, cno,
				 DAT_EVD_DEFAULT_FLAG | DAT_EVD_SOFTWARE_FLAG,
				 &evd));
	ASSERT_OK(dat_evd_free(evd));
	ASSERT_OK(dat_cno_free(cno));
	close_ia(ia);
	return 0;
}

TEST_IMPL(provider_evd_query_and_state)
{
	DAT_EVD_HANDLE async, evd;
	DAT_CNO_HANDLE cno;
	DAT_EVD_PARAM p;
	DAT_IA_HANDLE ia;
	DAT_EVENT ev;

	ia = open_ia(&async);
	ASSERT_OK(dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno));
	ASSERT_OK(dat_evd_create(ia, 16, cno,
				 DAT_EVD_SOFTWARE_FLAG | DAT_EVD_DTO_FLAG, &evd));

	memset(&p, 0, sizeof(p));
	ASSERT_OK(dat_evd_query(evd, DAT_EVD_FIELD_ALL, &p));
	ASSERT_PTR_EQ(p.ia_handle, ia);
	ASSERT_GE(p.evd_qlen, 16);
	ASSERT_EQ(p.evd_state, DAT_EVD_STATE_ENABLED | DAT_EVD_STATE_WAITABLE);
	ASSERT_PTR_EQ(p.cno_handle, cno);
	ASSERT_EQ(p.evd_flags, DAT_EVD_SOFTWARE_FLAG | DAT_EVD_DTO_FLAG);

	ASSERT_OK(dat_evd_disable(evd));
	ASSERT_OK(dat_evd_disable(evd));		/* a no-op */
	ASSERT_OK(dat_evd_set_unwaitable(evd));
	ASSERT_OK(dat_evd_query(evd, DAT_EVD_FIELD_EVD_STATE, &p));
	ASSERT_EQ(p.evd_state,
		  DAT_EVD_STATE_DISABLED | DAT_EVD_STATE_UNWAITABLE);
	ASSERT_OK(dat_evd_enable(evd));
	ASSERT_OK(dat_evd_clear_unwaitable(evd));
	ASSERT_OK(dat_evd_query(evd, DAT_EVD_FIELD_EVD_STATE, &p));
	ASSERT_EQ(p.evd_state, DAT_EVD_STATE_ENABLED | DAT_EVD_STATE_WAITABLE);

	ASSERT_OK(dat_evd_modify_cno(evd, DAT_HANDLE_NULL));
	ASSERT_OK(dat_evd_query(evd, DAT_EVD_FIELD_CNO, &p));
	ASSERT_NULL(p.cno_handle);

	/* Errors. */
	ASSERT_DAT_EQ(dat_evd_query(evd, DAT_EVD_FIELD_ALL, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(dat_evd_query(evd, (DAT_EVD_PARAM_MASK)0x40, &p),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_evd_query(wrong_kind(cno), DAT_EVD_FIELD_ALL, &p),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST));
	ASSERT_DAT_EQ(dat_evd_enable(wrong_kind(cno)),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST));
	ASSERT_DAT_EQ(dat_evd_disable(wrong_kind(cno)),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST));
	ASSERT_DAT_EQ(dat_evd_set_unwaitable(wrong_kind(cno)),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST));
	ASSERT_DAT_EQ(dat_evd_clear_unwaitable(wrong_kind(cno)),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST));
	ASSERT_DAT_EQ(dat_evd_modify_cno(wrong_kind(cno), cno),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST));
	ASSERT_DAT_EQ(dat_evd_modify_cno(evd, wrong_kind(evd)),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO));
	ASSERT_DAT_EQ(dat_evd_free(wrong_kind(cno)),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST));
	ASSERT_DAT_EQ(post_sw(wrong_kind(cno), 1),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST));
	ASSERT_DAT_EQ(dat_evd_dequeue(wrong_kind(cno), &ev),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST));
	ASSERT_DAT_EQ(dat_evd_resize(wrong_kind(cno), 8),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST));

	/* The async EVD belongs to the IA: dat_ia_close frees it. */
	ASSERT_DAT_EQ(dat_evd_free(async),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_IN_USE));

	ASSERT_OK(dat_evd_free(evd));
	ASSERT_OK(dat_cno_free(cno));
	close_ia(ia);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Software events, dequeue                                           */

TEST_IMPL(provider_evd_post_se_dequeue)
{
	DAT_EVD_HANDLE async, evd, dto;
	DAT_IA_HANDLE ia;
	DAT_EVENT ev;
	uintptr_t i;

	ia = open_ia(&async);
	evd = sw_evd(ia, 4, DAT_HANDLE_NULL);
	ASSERT_OK(dat_evd_create(ia, 4, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &dto));

	expect_empty(evd);
	for (i = 1; i <= 4; i++)
		ASSERT_OK(post_sw(evd, i * 0x1000));
	/* dat_evd_post_se(3): a full queue is DAT_QUEUE_FULL, no overflow. */
	ASSERT_DAT_EQ(post_sw(evd, 0x5000), ERR(DAT_QUEUE_FULL, 0));
	for (i = 1; i <= 4; i++)
		expect_sw(evd, i * 0x1000);
	expect_empty(evd);
	expect_empty(async);

	/* Errors. */
	ASSERT_DAT_EQ(post_sw(dto, 1),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1));
	ASSERT_DAT_EQ(dat_evd_post_se(evd, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	memset(&ev, 0, sizeof(ev));
	ev.event_number = DAT_DTO_COMPLETION_EVENT;
	ASSERT_DAT_EQ(dat_evd_post_se(evd, &ev),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_evd_dequeue(evd, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	expect_empty(evd);

	ASSERT_OK(dat_evd_free(dto));
	ASSERT_OK(dat_evd_free(evd));
	close_ia(ia);
	return 0;
}

/*
 * An empty EVD answers dat_evd_dequeue as OFED does (evd.c): plain
 * DAT_QUEUE_EMPTY (0x000D0000) from an EVD that OFED backs with a
 * completion queue, DAT_ERROR(DAT_QUEUE_EMPTY, 0) from the others.
 * dtest's polling loop compares with the plain value.
 */
TEST_IMPL(provider_evd_empty_value_per_kind)
{
	static const struct {
		DAT_EVD_FLAGS flags;
		DAT_RETURN empty;
	} kinds[] = {
		{ DAT_EVD_DTO_FLAG, DAT_QUEUE_EMPTY },
		{ DAT_EVD_RMR_BIND_FLAG, DAT_QUEUE_EMPTY },
		{ DAT_EVD_DTO_FLAG | DAT_EVD_RMR_BIND_FLAG, DAT_QUEUE_EMPTY },
		{ DAT_EVD_DTO_FLAG | DAT_EVD_CONNECTION_FLAG, DAT_QUEUE_EMPTY },
		{ DAT_EVD_DTO_FLAG | DAT_EVD_SOFTWARE_FLAG, DAT_QUEUE_EMPTY },
		{ DAT_EVD_CONNECTION_FLAG, DAT_CLASS_ERROR | DAT_QUEUE_EMPTY },
		{ DAT_EVD_CR_FLAG, DAT_CLASS_ERROR | DAT_QUEUE_EMPTY },
		{ DAT_EVD_SOFTWARE_FLAG, DAT_CLASS_ERROR | DAT_QUEUE_EMPTY },
		{ DAT_EVD_CR_FLAG | DAT_EVD_CONNECTION_FLAG,
		  DAT_CLASS_ERROR | DAT_QUEUE_EMPTY },
	};
	DAT_EVD_HANDLE async, evd;
	DAT_IA_HANDLE ia;
	DAT_EVENT ev;
	size_t i;

	ia = open_ia(&async);
	ASSERT_DAT_EQ(dat_evd_dequeue(async, &ev), DAT_CLASS_ERROR | DAT_QUEUE_EMPTY);
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		ASSERT_OK(dat_evd_create(ia, 8, DAT_HANDLE_NULL, kinds[i].flags, &evd));
		ASSERT_DAT_EQ(dat_evd_dequeue(evd, &ev), kinds[i].empty);
		ASSERT_DAT_EQ(DAT_GET_TYPE(dat_evd_dequeue(evd, &ev)), DAT_QUEUE_EMPTY);
		ASSERT_OK(dat_evd_free(evd));
	}
	close_ia(ia);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Waiting                                                            */

TEST_IMPL(provider_evd_wait_errors)
{
	DAT_EVD_HANDLE async, evd;
	DAT_CNO_HANDLE cno;
	DAT_IA_HANDLE ia;
	DAT_COUNT nmore;
	DAT_EVENT ev;

	ia = open_ia(&async);
	evd = sw_evd(ia, 4, DAT_HANDLE_NULL);
	ASSERT_OK(dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno));

	ASSERT_DAT_EQ(dat_evd_wait(evd, 0, 0, &ev, &nmore),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(dat_evd_wait(evd, 0, -1, &ev, &nmore),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(dat_evd_wait(evd, 0, 5, &ev, &nmore),	/* > qlen */
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(dat_evd_wait(evd, 0, 1, NULL, &nmore),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	ASSERT_DAT_EQ(dat_evd_wait(evd, 0, 1, &ev, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	ASSERT_DAT_EQ(dat_evd_wait(wrong_kind(cno), 0, 1, &ev, &nmore),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST));

	/* A zero timeout polls: nothing there, then thresholds. */
	nmore = -1;
	ASSERT_DAT_EQ(dat_evd_wait(evd, 0, 1, &ev, &nmore),
		      ERR(DAT_TIMEOUT_EXPIRED, 0));
	ASSERT_EQ(nmore, 0);
	ASSERT_OK(post_sw(evd, 1));
	ASSERT_OK(post_sw(evd, 2));
	ASSERT_DAT_EQ(dat_evd_wait(evd, 0, 3, &ev, &nmore),
		      ERR(DAT_TIMEOUT_EXPIRED, 0));
	ASSERT_EQ(nmore, 2);				/* nothing taken */
	ASSERT_OK(dat_evd_wait(evd, 0, 2, &ev, &nmore));
	ASSERT_UINT64_EQ((uintptr_t)ev.event_data.software_event_data.pointer, 1);
	ASSERT_EQ(nmore, 1);
	/* Being disabled or having a CNO does not refuse a wait. */
	ASSERT_OK(dat_evd_disable(evd));
	ASSERT_OK(dat_evd_modify_cno(evd, cno));
	ASSERT_OK(dat_evd_wait(evd, 0, 1, &ev, &nmore));
	ASSERT_UINT64_EQ((uintptr_t)ev.event_data.software_event_data.pointer, 2);
	ASSERT_EQ(nmore, 0);

	ASSERT_OK(dat_evd_free(evd));
	ASSERT_OK(dat_cno_free(cno));
	close_ia(ia);
	return 0;
}

TEST_IMPL(provider_evd_wait_timeout)
{
	DAT_EVD_HANDLE async, evd;
	DAT_IA_HANDLE ia;
	DAT_COUNT nmore = -1;
	DAT_EVENT ev;
	uint64_t t0, dt;

	ia = open_ia(&async);
	evd = sw_evd(ia, 4, DAT_HANDLE_NULL);

	t0 = test_now_ms();
	ASSERT_DAT_EQ(dat_evd_wait(evd, 50000, 1, &ev, &nmore),
		      ERR(DAT_TIMEOUT_EXPIRED, 0));
	dt = test_now_ms() - t0;
	ASSERT_GE(dt, 50);
	ASSERT_LT(dt, 5000);
	ASSERT_EQ(nmore, 0);

	/* Below the threshold when the time is up: still a timeout. */
	ASSERT_OK(post_sw(evd, 7));
	t0 = test_now_ms();
	ASSERT_DAT_EQ(dat_evd_wait(evd, 30000, 2, &ev, &nmore),
		      ERR(DAT_TIMEOUT_EXPIRED, 0));
	ASSERT_GE(test_now_ms() - t0, 30);
	ASSERT_EQ(nmore, 1);
	expect_sw(evd, 7);

	ASSERT_OK(dat_evd_free(evd));
	close_ia(ia);
	return 0;
}

/* The waiter wakes when the fourth event arrives, not before. */
TEST_IMPL(provider_evd_wait_threshold_from_thread)
{
	DAT_EVD_HANDLE async, evd;
	struct poster p;
	struct waiter w;
	DAT_IA_HANDLE ia;
	int posted = 0;		/* atomic once the threads run */

	ia = open_ia(&async);
	evd = sw_evd(ia, 8, DAT_HANDLE_NULL);

	waiter_start(&w, evd, DAT_TIMEOUT_INFINITE, 4, &posted);
	wait_for_waiter(evd);
	poster_start(&p, evd, 6, 20, &posted);
	waiter_join(&w);
	ASSERT_OK(w.ret);
	ASSERT_GE(w.posted_seen, 4);
	ASSERT_EQ(w.event.event_number, DAT_SOFTWARE_EVENT);
	ASSERT_UINT64_EQ((uintptr_t)w.event.event_data.software_event_data.pointer, 1);
	ASSERT_GE(w.nmore, 3);
	ASSERT_OK(pthread_join(p.thread, NULL));
	expect_sw(evd, 2);
	expect_sw(evd, 3);
	expect_sw(evd, 4);
	expect_sw(evd, 5);
	expect_sw(evd, 6);
	expect_empty(evd);

	ASSERT_OK(dat_evd_free(evd));
	close_ia(ia);
	return 0;
}

/* DAT_TIMEOUT_INFINITE sleeps (no spinning) until another thread posts. */
TEST_IMPL(provider_evd_wait_infinite)
{
	DAT_EVD_HANDLE async, evd;
	uint64_t t0, c0, wall, cpu;
	struct poster p;
	DAT_IA_HANDLE ia;
	DAT_COUNT nmore;
	DAT_EVENT ev;

	ia = open_ia(&async);
	evd = sw_evd(ia, 4, DAT_HANDLE_NULL);

	poster_start(&p, evd, 1, 300, NULL);
	t0 = test_now_ms();
	c0 = cpu_ms();
	ASSERT_OK(dat_evd_wait(evd, DAT_TIMEOUT_INFINITE, 1, &ev, &nmore));
	cpu = cpu_ms() - c0;
	wall = test_now_ms() - t0;
	ASSERT_OK(pthread_join(p.thread, NULL));
	ASSERT_UINT64_EQ((uintptr_t)ev.event_data.software_event_data.pointer, 1);
	ASSERT_EQ(nmore, 0);
	ASSERT_GE(wall, 250);
	printf("waited %" PRIu64 " ms using %" PRIu64 " ms of CPU\n", wall, cpu);
	ASSERT_LT(cpu, wall / 2);

	ASSERT_OK(dat_evd_free(evd));
	close_ia(ia);
	return 0;
}

/* dat_evd_wait(3): the waiter owns the EVD until it returns. */
TEST_IMPL(provider_evd_second_waiter_refused)
{
	DAT_EVD_HANDLE async, evd;
	DAT_IA_HANDLE ia;
	DAT_COUNT nmore;
	struct waiter w;
	DAT_EVENT ev;

	ia = open_ia(&async);
	evd = sw_evd(ia, 4, DAT_HANDLE_NULL);

	waiter_start(&w, evd, DAT_TIMEOUT_INFINITE, 1, NULL);
	wait_for_waiter(evd);
	ASSERT_DAT_EQ(dat_evd_wait(evd, 0, 1, &ev, &nmore),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_WAITER));
	ASSERT_DAT_EQ(dat_evd_wait(evd, DAT_TIMEOUT_INFINITE, 1, &ev, &nmore),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_WAITER));
	ASSERT_DAT_EQ(dat_evd_dequeue(evd, &ev),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_WAITER));
	ASSERT_DAT_EQ(dat_evd_free(evd),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_IN_USE));
	ASSERT_DAT_EQ(dat_evd_resize(evd, 8),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_WAITER));
	ASSERT_OK(post_sw(evd, 42));
	waiter_join(&w);
	ASSERT_OK(w.ret);
	ASSERT_UINT64_EQ((uintptr_t)w.event.event_data.software_event_data.pointer, 42);
	ASSERT_EQ(w.nmore, 0);

	/* The EVD is free again. */
	ASSERT_OK(post_sw(evd, 43));
	ASSERT_OK(dat_evd_wait(evd, 0, 1, &ev, &nmore));
	ASSERT_OK(dat_evd_free(evd));
	close_ia(ia);
	return 0;
}

/* dat_evd_set_unwaitable(3) */
TEST_IMPL(provider_evd_unwaitable)
{
	DAT_EVD_HANDLE async, evd;
	DAT_IA_HANDLE ia;
	DAT_COUNT nmore;
	struct waiter w;
	DAT_EVENT ev;

	ia = open_ia(&async);
	evd = sw_evd(ia, 4, DAT_HANDLE_NULL);

	ASSERT_OK(dat_evd_set_unwaitable(evd));
	ASSERT_DAT_EQ(dat_evd_wait(evd, 0, 1, &ev, &nmore),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_UNWAITABLE));
	/* Events still arrive and can be dequeued. */
	ASSERT_OK(post_sw(evd, 1));
	expect_sw(evd, 1);
	ASSERT_OK(dat_evd_clear_unwaitable(evd));

	/* A blocked waiter is released at once. */
	waiter_start(&w, evd, DAT_TIMEOUT_INFINITE, 1, NULL);
	wait_for_waiter(evd);
	ASSERT_OK(dat_evd_set_unwaitable(evd));
	waiter_join(&w);
	ASSERT_DAT_EQ(w.ret,
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_UNWAITABLE));
	ASSERT_OK(dat_evd_clear_unwaitable(evd));
	ASSERT_OK(post_sw(evd, 2));
	ASSERT_OK(dat_evd_wait(evd, DAT_TIMEOUT_INFINITE, 1, &ev, &nmore));
	ASSERT_UINT64_EQ((uintptr_t)ev.event_data.software_event_data.pointer, 2);

	ASSERT_OK(dat_evd_free(evd));
	close_ia(ia);
	return 0;
}

/*
 * dat_ia_close abrupt frees the EVD under a waiter: it returns DAT_ABORT.
 * A second IA keeps the provider loaded: the registry unloads it at the
 * last close, and the waiter may still be on its way out of the library.
 */
TEST_IMPL(provider_evd_wait_aborted_by_ia_close)
{
	DAT_EVD_HANDLE async, async2, evd;
	DAT_IA_HANDLE ia, ia2;
	struct waiter w;

	ia2 = open_ia(&async2);
	ia = open_ia(&async);
	evd = sw_evd(ia, 4, DAT_HANDLE_NULL);
	waiter_start(&w, evd, DAT_TIMEOUT_INFINITE, 1, NULL);
	wait_for_waiter(evd);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	waiter_join(&w);
	ASSERT_DAT_EQ(w.ret, ERR(DAT_ABORT, 0));
	close_ia(ia2);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Resize                                                             */

TEST_IMPL(provider_evd_resize)
{
	DAT_EVD_HANDLE async, evd;
	DAT_EVD_PARAM p;
	DAT_IA_HANDLE ia;
	uintptr_t i;

	ia = open_ia(&async);
	evd = sw_evd(ia, 4, DAT_HANDLE_NULL);

	/* Make the ring wrap: 1..4 in, 1..2 out, 5..6 in. */
	for (i = 1; i <= 4; i++)
		ASSERT_OK(post_sw(evd, i));
	expect_sw(evd, 1);
	expect_sw(evd, 2);
	ASSERT_OK(post_sw(evd, 5));
	ASSERT_OK(post_sw(evd, 6));

	ASSERT_DAT_EQ(dat_evd_resize(evd, 3),		/* 4 queued */
		      ERR(DAT_INVALID_STATE, 0));
	ASSERT_DAT_EQ(dat_evd_resize(evd, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_evd_resize(evd, -1),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_OK(dat_evd_resize(evd, 8));
	ASSERT_OK(dat_evd_query(evd, DAT_EVD_FIELD_EVD_QLEN, &p));
	ASSERT_GE(p.evd_qlen, 8);
	for (i = 7; i <= 10; i++)
		ASSERT_OK(post_sw(evd, i));
	for (i = 3; i <= 10; i++)			/* in order */
		expect_sw(evd, i);
	expect_empty(evd);

	/* Smaller again, down to what is queued. */
	ASSERT_OK(post_sw(evd, 11));
	ASSERT_OK(dat_evd_resize(evd, 1));
	ASSERT_DAT_EQ(post_sw(evd, 12), ERR(DAT_QUEUE_FULL, 0));
	expect_sw(evd, 11);

	ASSERT_OK(dat_evd_free(evd));
	close_ia(ia);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Overflow                                                           */

/*
 * Three endpoints share a connection EVD of one event and each fails to
 * connect (nobody listens): the second and third events do not fit. The
 * overflow is reported once, on the async EVD, naming the EVD, which is
 * out of service from then on (evd.c: as OFED's catastrophic overflow):
 * even the event that fit can no longer be taken.
 */
TEST_IMPL(provider_evd_overflow_reported_once)
{
	DAT_EVD_HANDLE async, conn_evd, dto_evd, cr_evd;
	DAT_EP_HANDLE ep[3];
	DAT_BOOLEAN in_idle, out_idle;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL port;
	DAT_EP_STATE state;
	DAT_IA_ATTR attr;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_COUNT nmore;
	DAT_EVENT ev;
	uint64_t end;
	int i;

	ia = open_ia(&async);
	ASSERT_OK(dat_pz_create(ia, &pz));
	ASSERT_OK(dat_ia_query(ia, NULL, DAT_IA_FIELD_IA_ADDRESS_PTR, &attr,
			       0, NULL));
	ASSERT_OK(dat_evd_create(ia, 1, DAT_HANDLE_NULL,
				 DAT_EVD_CONNECTION_FLAG, &conn_evd));
	ASSERT_OK(dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG,
				 &dto_evd));
	ASSERT_OK(dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG,
				 &cr_evd));
	for (i = 0; i < 3; i++)
		ASSERT_OK(dat_ep_create(ia, pz, dto_evd, dto_evd, conn_evd,
					NULL, &ep[i]));
	/* Used by the endpoints: not freed. */
	ASSERT_DAT_EQ(dat_evd_free(conn_evd),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_IN_USE));

	/* A port nobody listens on. */
	ASSERT_OK(dat_psp_create_any(ia, &port, cr_evd, DAT_PSP_CONSUMER_FLAG,
				     &psp));
	ASSERT_OK(dat_psp_free(psp));
	for (i = 0; i < 3; i++) {
		ASSERT_OK(dat_ep_connect(ep[i], attr.ia_address_ptr, port,
					 5000000, 0, NULL, DAT_QOS_BEST_EFFORT,
					 DAT_CONNECT_DEFAULT_FLAG));
		end = test_now_ms() + SETTLE_MS;
		for (;;) {
			ASSERT_OK(dat_ep_get_status(ep[i], &state, &in_idle,
						    &out_idle));
			if (state == DAT_EP_STATE_DISCONNECTED)
				break;
			ASSERT(test_now_ms() < end);
			test_sleep_ms(5);
		}
	}

	ASSERT_OK(dat_evd_wait(async, 5000000, 1, &ev, &nmore));
	ASSERT_EQ(ev.event_number, DAT_ASYNC_ERROR_EVD_OVERFLOW);
	ASSERT_PTR_EQ(ev.evd_handle, async);
	ASSERT_PTR_EQ(ev.event_data.asynch_error_event_data.dat_handle,
		      conn_evd);
	test_sleep_ms(100);	/* a second report would be there by now */
	expect_empty(async);

	ASSERT_DAT_EQ(dat_evd_dequeue(conn_evd, &ev),
		      ERR(DAT_INVALID_STATE, 0));
	ASSERT_DAT_EQ(dat_evd_wait(conn_evd, 0, 1, &ev, &nmore),
		      ERR(DAT_INVALID_STATE, 0));

	for (i = 0; i < 3; i++)
		ASSERT_OK(dat_ep_free(ep[i]));
	ASSERT_OK(dat_evd_free(conn_evd));
	ASSERT_OK(dat_evd_free(dto_evd));
	ASSERT_OK(dat_evd_free(cr_evd));
	ASSERT_OK(dat_pz_free(pz));
	close_ia(ia);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Concurrency                                                        */

#define CONC_THREADS	4
#define CONC_EVENTS	2000

struct conc_poster {
	pthread_t	thread;
	DAT_EVD_HANDLE	evd;
	uintptr_t	id;
};

/* Posts CONC_EVENTS events (id << 32 | seq), retrying on a full queue. */
static void *conc_poster_main(void *arg)
{
	struct conc_poster *p = arg;
	uintptr_t seq;
	DAT_RETURN ret;

	for (seq = 0; seq < CONC_EVENTS; seq++) {
		while ((ret = post_sw(p->evd, p->id << 32 | seq)) ==
		       ERR(DAT_QUEUE_FULL, 0))
			sched_yield();
		ASSERT_OK(ret);
	}
	return NULL;
}

/*
 * Several threads post while one waits with threshold 1: every event
 * arrives once, in order per poster (dat_evd_dequeue(3): the order of an
 * event stream is kept). Run under TSan: make SAN=tsan.
 */
TEST_IMPL(provider_evd_concurrent_posters)
{
	struct conc_poster p[CONC_THREADS];
	uintptr_t next[CONC_THREADS] = { 0 };
	DAT_EVD_HANDLE async, evd;
	DAT_IA_HANDLE ia;
	DAT_COUNT nmore;
	DAT_EVENT ev;
	uintptr_t v;
	int i, n;

	ia = open_ia(&async);
	evd = sw_evd(ia, 64, DAT_HANDLE_NULL);
	for (i = 0; i < CONC_THREADS; i++) {
		p[i].evd = evd;
		p[i].id = (uintptr_t)i;
		ASSERT_OK(pthread_create(&p[i].thread, NULL, conc_poster_main,
					 &p[i]));
	}
	for (n = 0; n < CONC_THREADS * CONC_EVENTS; n++) {
		ASSERT_OK(dat_evd_wait(evd, 10000000, 1, &ev, &nmore));
		v = (uintptr_t)ev.event_data.software_event_data.pointer;
		ASSERT_LT(v >> 32, CONC_THREADS);
		ASSERT_UINT64_EQ(v & 0xffffffffu, next[v >> 32]);
		next[v >> 32]++;
	}
	for (i = 0; i < CONC_THREADS; i++)
		ASSERT_OK(pthread_join(p[i].thread, NULL));
	expect_empty(evd);
	expect_empty(async);

	ASSERT_OK(dat_evd_free(evd));
	close_ia(ia);
	return 0;
}

/* ------------------------------------------------------------------ */
/* CNO                                                                */

TEST_IMPL(provider_evd_cno_errors)
{
	DAT_EVD_HANDLE async, evd, got;
	DAT_CNO_HANDLE cno;
	DAT_CNO_PARAM cp;
	DAT_IA_HANDLE ia;
	DAT_FD fd;

	ia = open_ia(&async);
	ASSERT_DAT_EQ(dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(dat_cno_create(DAT_HANDLE_NULL,
				     DAT_OS_WAIT_PROXY_AGENT_NULL, &cno),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
	ASSERT_OK(dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno));

	memset(&cp, 0xa5, sizeof(cp));
	ASSERT_OK(dat_cno_query(cno, DAT_CNO_FIELD_ALL, &cp));
	ASSERT_PTR_EQ(cp.ia_handle, ia);
	ASSERT_EQ(cp.proxy_type, DAT_PROXY_TYPE_NONE);
	ASSERT_DAT_EQ(dat_cno_query(cno, DAT_CNO_FIELD_ALL, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(dat_cno_wait(cno, 0, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(dat_cno_query(wrong_kind(async), DAT_CNO_FIELD_ALL, &cp),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO));
	ASSERT_DAT_EQ(dat_cno_wait(wrong_kind(async), 0, &got),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO));
	ASSERT_DAT_EQ(dat_cno_modify_agent(wrong_kind(async),
					   DAT_OS_WAIT_PROXY_AGENT_NULL),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO));
	ASSERT_DAT_EQ(dat_cno_free(wrong_kind(async)),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO));

	/* dat_cno_wait(3): a timeout is DAT_QUEUE_EMPTY with a NULL EVD. */
	got = async;
	ASSERT_DAT_EQ(dat_cno_wait(cno, 0, &got), ERR(DAT_QUEUE_EMPTY, 0));
	ASSERT_NULL(got);

	/* In use by an EVD: not freed. */
	evd = sw_evd(ia, 4, cno);
	ASSERT_DAT_EQ(dat_cno_free(cno),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_CNO_IN_USE));
	ASSERT_OK(dat_evd_modify_cno(evd, DAT_HANDLE_NULL));

	/* The DAT 2.0 calls (test-provider-evd2.c tests them in depth). */
	ASSERT_DAT_EQ(dat_cno_fd_create(ia, NULL, &cno),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_cno_fd_create(ia, &fd, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(dat_cno_trigger(cno, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	got = async;
	ASSERT_DAT_EQ(dat_cno_trigger(cno, &got), ERR(DAT_QUEUE_EMPTY, 0));
	ASSERT_NULL(got);
	ASSERT_DAT_EQ(dat_cno_trigger(wrong_kind(async), &got),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO));

	ASSERT_OK(dat_cno_free(cno));
	ASSERT_OK(dat_evd_free(evd));
	close_ia(ia);
	return 0;
}

/* A thread in dat_cno_wait, and what it got back. */
struct cno_waiter {
	pthread_t	thread;
	DAT_CNO_HANDLE	cno;
	DAT_TIMEOUT	timeout;
	DAT_RETURN	ret;
	DAT_EVD_HANDLE	evd;
	pid_t		tid;		/* set before it calls dat_cno_wait */
};

static void *cno_waiter_main(void *arg)
{
	struct cno_waiter *w = arg;

	__atomic_store_n(&w->tid, gettid(), __ATOMIC_SEQ_CST);
	w->ret = dat_cno_wait(w->cno, w->timeout, &w->evd);
	return NULL;
}

static void cno_waiter_start(struct cno_waiter *w, DAT_CNO_HANDLE cno,
			     DAT_TIMEOUT timeout)
{
	memset(w, 0, sizeof(*w));
	w->cno = cno;
	w->timeout = timeout;
	ASSERT_OK(pthread_create(&w->thread, NULL, cno_waiter_main, w));
}

/*
 * Returns once the thread of @w sleeps, which it only does in
 * dat_cno_wait: nothing else tells a CNO waiter from none while an EVD
 * holds the CNO.
 */
static void wait_for_cno_waiter(struct cno_waiter *w)
{
	uint64_t end = test_now_ms() + SETTLE_MS;
	char path[64], buf[256], *state;
	pid_t tid;
	FILE *f;

	for (;;) {
		ASSERT(test_now_ms() < end);
		tid = __atomic_load_n(&w->tid, __ATOMIC_SEQ_CST);
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

TEST_IMPL(provider_evd_cno_wait_software_event)
{
	DAT_EVD_HANDLE async, evd, got;
	struct cno_waiter cw;
	struct waiter w;
	DAT_CNO_HANDLE cno;
	DAT_IA_HANDLE ia;
	uint64_t t0;

	ia = open_ia(&async);
	ASSERT_OK(dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno));
	evd = sw_evd(ia, 8, cno);

	/* A thread blocked in dat_cno_wait is woken by a software event. */
	cno_waiter_start(&cw, cno, DAT_TIMEOUT_INFINITE);
	test_sleep_ms(50);
	ASSERT_OK(post_sw(evd, 1));
	ASSERT_OK(pthread_join(cw.thread, NULL));
	ASSERT_OK(cw.ret);
	ASSERT_PTR_EQ(cw.evd, evd);
	expect_sw(evd, 1);

	/* A notification with nobody waiting is kept for the next wait. */
	ASSERT_OK(post_sw(evd, 2));
	ASSERT_OK(dat_cno_wait(cno, 0, &got));
	ASSERT_PTR_EQ(got, evd);
	ASSERT_DAT_EQ(dat_cno_wait(cno, 0, &got), ERR(DAT_QUEUE_EMPTY, 0));
	expect_sw(evd, 2);

	/* A disabled EVD does not notify; a timeout takes at least as long. */
	ASSERT_OK(dat_evd_disable(evd));
	ASSERT_OK(post_sw(evd, 3));
	t0 = test_now_ms();
	ASSERT_DAT_EQ(dat_cno_wait(cno, 50000, &got), ERR(DAT_QUEUE_EMPTY, 0));
	ASSERT_GE(test_now_ms() - t0, 50);
	ASSERT_NULL(got);
	expect_sw(evd, 3);
	ASSERT_OK(dat_evd_enable(evd));

	/* A direct waiter on the EVD preempts the CNO (dat_cno_wait(3)). */
	waiter_start(&w, evd, DAT_TIMEOUT_INFINITE, 2, NULL);
	wait_for_waiter(evd);
	ASSERT_OK(post_sw(evd, 4));
	ASSERT_DAT_EQ(dat_cno_wait(cno, 20000, &got), ERR(DAT_QUEUE_EMPTY, 0));
	ASSERT_OK(post_sw(evd, 5));
	waiter_join(&w);
	ASSERT_OK(w.ret);
	ASSERT_DAT_EQ(dat_cno_wait(cno, 0, &got), ERR(DAT_QUEUE_EMPTY, 0));
	expect_sw(evd, 5);

	/* Freeing the CNO's last EVD releases its waiter with no EVD. */
	cno_waiter_start(&cw, cno, 10000000);
	wait_for_cno_waiter(&cw);
	ASSERT_OK(dat_evd_free(evd));
	ASSERT_OK(pthread_join(cw.thread, NULL));
	ASSERT_OK(cw.ret);
	ASSERT_NULL(cw.evd);

	/* dat_cno_free(3): not while a thread waits on it. */
	cno_waiter_start(&cw, cno, 10000000);
	wait_for_cno_waiter(&cw);
	ASSERT_DAT_EQ(dat_cno_free(cno),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_CNO_IN_USE));
	evd = sw_evd(ia, 4, cno);
	ASSERT_OK(post_sw(evd, 6));
	ASSERT_OK(pthread_join(cw.thread, NULL));
	ASSERT_OK(cw.ret);
	ASSERT_PTR_EQ(cw.evd, evd);
	ASSERT_OK(dat_evd_free(evd));

	ASSERT_OK(dat_cno_free(cno));
	close_ia(ia);
	return 0;
}

/* The proxy agent: called once (then forgotten), with the EVD. */
struct agent_log {
	int		calls;
	DAT_EVD_HANDLE	evd;
	DAT_EVENT	event;
	DAT_RETURN	dequeued;
};

static void DAT_API agent_fn(DAT_PVOID data, DAT_EVD_HANDLE evd)
{
	struct agent_log *log = data;

	__atomic_add_fetch(&log->calls, 1, __ATOMIC_SEQ_CST);
	log->evd = evd;
	/* No provider lock is held: the agent may dequeue. */
	log->dequeued = dat_evd_dequeue(evd, &log->event);
}

TEST_IMPL(provider_evd_cno_proxy_agent)
{
	DAT_OS_WAIT_PROXY_AGENT agent;
	struct agent_log log;
	DAT_EVD_HANDLE async, evd, got;
	DAT_CNO_PARAM cp;
	DAT_CNO_HANDLE cno;
	DAT_IA_HANDLE ia;

	memset(&log, 0, sizeof(log));
	agent.instance_data = &log;
	agent.proxy_agent_func = agent_fn;
	ia = open_ia(&async);
	ASSERT_OK(dat_cno_create(ia, agent, &cno));
	ASSERT_OK(dat_cno_query(cno, DAT_CNO_FIELD_ALL, &cp));
	ASSERT_EQ(cp.proxy_type, DAT_PROXY_TYPE_AGENT);
	ASSERT_PTR_EQ(cp.proxy.agent.instance_data, &log);
	evd = sw_evd(ia, 4, cno);

	ASSERT_OK(post_sw(evd, 1));
	ASSERT_EQ(log.calls, 1);
	ASSERT_PTR_EQ(log.evd, evd);
	ASSERT_OK(log.dequeued);
	ASSERT_UINT64_EQ((uintptr_t)log.event.event_data.software_event_data.pointer, 1);
	ASSERT_OK(dat_cno_wait(cno, 0, &got));
	ASSERT_PTR_EQ(got, evd);

	/* Invoked once, then no longer associated (dat_cno_create(3)). */
	ASSERT_OK(dat_cno_query(cno, DAT_CNO_FIELD_ALL, &cp));
	ASSERT_EQ(cp.proxy_type, DAT_PROXY_TYPE_NONE);
	ASSERT_OK(post_sw(evd, 2));
	ASSERT_EQ(log.calls, 1);
	expect_sw(evd, 2);
	ASSERT_OK(dat_cno_modify_agent(cno, agent));
	ASSERT_OK(post_sw(evd, 3));
	ASSERT_EQ(log.calls, 2);
	ASSERT_OK(log.dequeued);

	ASSERT_OK(dat_evd_free(evd));
	ASSERT_OK(dat_cno_free(cno));
	close_ia(ia);
	return 0;
}

/* An EVD may only use a CNO of its own IA. */
TEST_IMPL(provider_evd_cno_other_ia)
{
	DAT_EVD_HANDLE async1, async2, evd;
	DAT_IA_HANDLE ia1, ia2;
	DAT_CNO_HANDLE cno;

	ia1 = open_ia(&async1);
	ia2 = open_ia(&async2);
	ASSERT_OK(dat_cno_create(ia1, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno));
	ASSERT_DAT_EQ(dat_evd_create(ia2, 4, cno, DAT_EVD_SOFTWARE_FLAG, &evd),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO));
	evd = sw_evd(ia2, 4, DAT_HANDLE_NULL);
	ASSERT_DAT_EQ(dat_evd_modify_cno(evd, cno),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO));
	ASSERT_OK(dat_evd_free(evd));
	ASSERT_OK(dat_cno_free(cno));
	close_ia(ia2);
	close_ia(ia1);
	return 0;
}
