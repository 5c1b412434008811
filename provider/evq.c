/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The event queue of an EVD, below the EVD entry points (evd.c): the ring,
 * its creation and destruction, and posting from the provider, from any
 * thread (the engine, a consumer thread completing a post at once, another
 * EVD's overflow). A post wakes the EVD's waiter or triggers its CNO
 * (trigger.c) and reports an overflow (sd_evq_async_error, at the end: an
 * overflow is itself an asynchronous error, posted to the IA's async
 * EVD through this same queue). evd.c states the rules (waiting,
 * notification, CNO-1..CNO-7, overflow) and where each comes from;
 * dat_evd_dequeue and dat_evd_wait empty the ring there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "evq.h"
#include "ia.h"
#include "obj.h"
#include "trace.h"
#include "util.h"

/*
 * Who pushes, which says how evd_push treats a full ring and who calls
 * the CNO's proxy agent (the CNO rule, trigger.c).
 */
enum evd_push_mode {
	PUSH_REPORT,	/* the provider, any lock held (sd_evq_post): mark
			 * overflowed, report once; the engine calls the agent */
	PUSH_QUIET,	/* dat_evd_post_se, no lock held but evd->lock: just
			 * fail; evd_push calls the agent */
};

/*
 * Calls a proxy agent that sd_trigger_notify (for dat_evd_post_se) or
 * sd_trigger_orphaned returned, if any. No provider lock held.
 */
void sd_evq_call_agent(DAT_OS_WAIT_PROXY_AGENT agent, struct sd_evd *evd)
{
	if (agent.proxy_agent_func != NULL)
		agent.proxy_agent_func(agent.instance_data, (DAT_EVD_HANDLE)evd);
}

/*
 * Wakes the thread waiting on @evd: on the condition variable, or through
 * the eventfd when it sleeps in poll() on its EPs' sockets (dat_evd_wait).
 * evd->lock held.
 */
void sd_evq_wake(struct sd_evd *evd)
{
	static const uint64_t one = 1;

	SD_ASSERT_HELD(&evd->lock);
	pthread_cond_signal(&evd->cond);
	if (evd->polling && write(evd->efd, &one, sizeof(one)) < 0 &&
	    errno != EAGAIN)
		sd_log("%s: cannot wake its waiter: %s", sd_obj_name(&evd->obj).s,
		       strerror(errno));
}

int sd_evq_wait_fd(struct sd_evd *evd)
{
	if (evd->efd < 0)
		evd->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	return evd->efd;
}

void sd_evq_wait_clear(const struct sd_evd *evd, int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		sd_dbg("evd %p: eventfd: %s", (const void *)evd, strerror(errno));
}

/*
 * Tracing: the `event` line of @ev, queued to @evd (@r 0) or not (full:
 * dropped=overflow), written under evd->lock, before a consumer can
 * take the event. DTO completions have their `dto` lines (post.c).
 */
static void trace_event(struct sd_evd *evd, const DAT_EVENT *ev, int r)
{
	const DAT_EVENT_DATA *d = &ev->event_data;
	char keys[128];

	SD_ASSERT_HELD(&evd->lock);
	switch ((int)ev->event_number) {
	case DAT_DTO_COMPLETION_EVENT:
	case DAT_RMR_BIND_COMPLETION_EVENT:
	case DAT_IB_DTO_EVENT:
		return;
	case DAT_CONNECTION_REQUEST_EVENT:
		snprintf(keys, sizeof(keys), "cr=%s sp=%s port=%llu",
			 sd_handle_name(d->cr_arrival_event_data.cr_handle).s,
			 sd_handle_name(d->cr_arrival_event_data.sp_handle.psp_handle).s,
			 (unsigned long long)d->cr_arrival_event_data.conn_qual);
		break;
	case DAT_CONNECTION_EVENT_ESTABLISHED:
	case DAT_CONNECTION_EVENT_PEER_REJECTED:
	case DAT_CONNECTION_EVENT_NON_PEER_REJECTED:
	case DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR:
	case DAT_CONNECTION_EVENT_DISCONNECTED:
	case DAT_CONNECTION_EVENT_BROKEN:
	case DAT_CONNECTION_EVENT_TIMED_OUT:
	case DAT_CONNECTION_EVENT_UNREACHABLE:
		snprintf(keys, sizeof(keys), "ep=%s pdata=%d",
			 sd_handle_name(d->connect_event_data.ep_handle).s,
			 (int)d->connect_event_data.private_data_size);
		break;
	case DAT_SOFTWARE_EVENT:
		snprintf(keys, sizeof(keys), "pointer=%p",
			 d->software_event_data.pointer);
		break;
	default:
		if (ev->event_number >= DAT_ASYNC_ERROR_EVD_OVERFLOW &&
		    ev->event_number <= DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR)
			snprintf(keys, sizeof(keys), "handle=%s",
				 sd_handle_name(d->asynch_error_event_data.dat_handle).s);
		else
			keys[0] = '\0';
		break;
	}
	sd_trace("event", sd_obj_name(&evd->obj).s,
		 sd_trace_event_name(ev->event_number), "%s%s%s", keys,
		 r == 0 ? "" : keys[0] != '\0' ? " " : "",
		 r == 0 ? "" : "dropped=overflow");
}

/* The EVD's state as its trace lines name it: "ENABLED|WAITABLE". */
const char *sd_evq_state_str(bool enabled, bool waitable, bool overflowed,
			     char *buf, size_t n)
{
	snprintf(buf, n, "%s|%s%s", enabled ? "ENABLED" : "DISABLED",
		 waitable ? "WAITABLE" : "UNWAITABLE",
		 overflowed ? "|OVERFLOWED" : "");
	return buf;
}

/*
 * Appends @ev to @evd, wakes the waiter or triggers the CNO (CNO-1..3),
 * and on a full ring acts as @mode says. Any thread; takes evd->lock
 * (and cno->lock inside it) and reports the overflow (through
 * sd_evq_async_error, which takes the IA's async lock) after dropping it.
 * The proxy agent of a trigger is called by this function after
 * dropping evd->lock for PUSH_QUIET, whose caller holds no other lock,
 * and by the engine thread for PUSH_REPORT, whose caller may hold any
 * (the CNO rule, trigger.c). Allocates nothing. Returns 0, or -ENOSPC when
 * the event is not queued (full, or overflowed before).
 */
static int evd_push(struct sd_evd *evd, const DAT_EVENT *ev,
		    enum evd_push_mode mode, bool notify)
{
	DAT_OS_WAIT_PROXY_AGENT agent = { NULL, NULL };
	bool report = false;
	DAT_EVENT *slot;
	DAT_COUNT i;

	pthread_mutex_lock(&evd->lock);
	if (evd->overflowed) {
		if (sd_trace_enabled())
			trace_event(evd, ev, -ENOSPC);
		evd->lost++;
		pthread_mutex_unlock(&evd->lock);
		return -ENOSPC;
	}
	if (evd->count == evd->qlen) {
		if (sd_trace_enabled())
			trace_event(evd, ev, -ENOSPC);
		report = mode == PUSH_REPORT;
		if (report) {
			evd->lost++;
			/* Out of service for good; the waiter returns. */
			if (sd_trace_enabled()) {
				char from[48], to[48];

				sd_trace("state", sd_obj_name(&evd->obj).s,
					 sd_evq_state_str(evd->enabled, evd->waitable,
							  false, from, sizeof(from)),
					 "to=%s why=\"queue full\"",
					 sd_evq_state_str(evd->enabled, evd->waitable,
							  true, to, sizeof(to)));
			}
			evd->overflowed = true;
			if (evd->waiters > 0)
				sd_evq_wake(evd);
		}
		pthread_mutex_unlock(&evd->lock);
		if (report) {
			/*
			 * Once per EVD, so that the async EVD overflowing
			 * while this is reported ends here too.
			 */
			sd_dbg("evd %p overflowed: out of service", (void *)evd);
			sd_evq_async_error(evd->obj.ia,
				       DAT_ASYNC_ERROR_EVD_OVERFLOW,
				       (DAT_HANDLE)evd, DAT_EVD_OVERFLOW_ERROR);
		}
		return -ENOSPC;
	}
	i = evd->head + evd->count;
	if (i >= evd->qlen)
		i -= evd->qlen;
	slot = &evd->ring[i];
	*slot = *ev;
	slot->evd_handle = (DAT_EVD_HANDLE)evd;
	evd->count++;
	if (sd_trace_enabled())
		trace_event(evd, ev, 0);
	if (evd->waiters != 0) {
		/*
		 * CNO-2: a waiter preempts the CNO. It sleeps until the ring
		 * holds its threshold and a notification event came, and
		 * nothing else takes events while it waits.
		 */
		bool was = evd->notified && evd->count > evd->threshold;

		if (notify)
			evd->notified = true;
		if (!was && evd->notified && evd->count >= evd->threshold)
			sd_evq_wake(evd);
	} else if (notify && evd->enabled && evd->cno != NULL) {
		/* CNO-1, CNO-3; the CNO rule */
		agent = sd_trigger_notify(evd->cno, evd, mode == PUSH_QUIET);
	}
	pthread_mutex_unlock(&evd->lock);
	sd_evq_call_agent(agent, evd);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Posting from the provider                                          */

int sd_evq_from_handle(DAT_EVD_HANDLE h, DAT_EVD_FLAGS flag,
		       const struct sd_ia *ia, struct sd_evd **out)
{
	struct sd_obj *o;
	struct sd_evd *evd;

	*out = NULL;
	if (h == DAT_HANDLE_NULL)
		return 0;
	o = sd_obj_check(h, SD_MAGIC_EVD);
	evd = o ? sd_container_of(o, struct sd_evd, obj) : NULL;
	if (evd == NULL || !(evd->flags & flag) || (ia != NULL && o->ia != ia))
		return -EINVAL;
	*out = evd;
	return 0;
}

int sd_evq_post(struct sd_evd *evd, const DAT_EVENT *ev)
{
	return evd_push(evd, ev, PUSH_REPORT, true);
}

int sd_evq_post_completion(struct sd_evd *evd, const DAT_EVENT *ev,
			   bool notify)
{
	return evd_push(evd, ev, PUSH_REPORT, notify);
}

int sd_evq_post_se(struct sd_evd *evd, const DAT_EVENT *ev)
{
	return evd_push(evd, ev, PUSH_QUIET, true);
}

int sd_evq_post_dto(struct sd_evd *evd, DAT_EP_HANDLE ep, DAT_DTO_COOKIE cookie,
		    DAT_DTO_COMPLETION_STATUS status, DAT_SEG_LENGTH len,
		    DAT_DTOS op, bool notify)
{
	DAT_DTO_COMPLETION_EVENT_DATA *dto;
	DAT_EVENT ev;

	memset(&ev, 0, sizeof(ev));
	ev.event_number = DAT_DTO_COMPLETION_EVENT;
	dto = &ev.event_data.dto_completion_event_data;
	dto->ep_handle = ep;
	dto->user_cookie = cookie;	/* COMMON-2 */
	dto->status = status;
	dto->transfered_length = len;	/* SEND-6 */
	dto->operation = op;
	return evd_push(evd, &ev, PUSH_REPORT, notify);
}

/* ------------------------------------------------------------------ */
/* Creation and destruction                                           */

/*
 * Points @evd at @cno (either may be NULL) and moves the CNO references;
 * returns the proxy agent to call with a NULL EVD once every lock is
 * dropped: when @freeing drops the old CNO's last EVD, that CNO releases
 * its waiters and agent (CNO-7, sd_trigger_orphaned). Caller holds ia->lock.
 */
DAT_OS_WAIT_PROXY_AGENT sd_evq_set_cno(struct sd_evd *evd,
				       struct sd_cno *cno, bool freeing)
{
	DAT_OS_WAIT_PROXY_AGENT agent = { NULL, NULL };
	struct sd_cno *old;

	SD_ASSERT_HELD(&evd->obj.ia->lock);
	pthread_mutex_lock(&evd->lock);
	old = evd->cno;
	evd->cno = cno;
	pthread_mutex_unlock(&evd->lock);
	if (cno != NULL)
		cno->refs++;
	if (old == NULL)
		return agent;
	old->refs--;
	if (freeing)
		sd_trigger_forget_evd(old, evd);
	if (freeing && old->refs == 0)
		agent = sd_trigger_orphaned(old);
	return agent;
}

/* Frees what sd_evq_create made; the EVD is unlisted and unused. */
void sd_evq_release(struct sd_evd *evd)
{
	if (evd->lost > 0)
		sd_dbg("evd %p freed: %llu events lost to its overflow",
		       (void *)evd, (unsigned long long)evd->lost);
	if (evd->efd >= 0)
		close(evd->efd);
	pthread_cond_destroy(&evd->cond);
	pthread_mutex_destroy(&evd->lock);
	free(evd->ring);
	free(evd);
}

int sd_evq_create(struct sd_ia *ia, DAT_COUNT qlen, DAT_EVD_FLAGS flags,
		  struct sd_evd **out)
{
	struct sd_evd *evd;

	if (qlen <= 0)
		return -EINVAL;
	if (qlen > SD_MAX_EVD_QLEN)
		return -EOVERFLOW;
	if (flags & ~(DAT_EVD_FLAGS)SD_EVD_FLAGS_KNOWN)
		return -EOPNOTSUPP;

	evd = calloc(1, sizeof(*evd));
	if (evd == NULL)
		goto fail;
	evd->ring = calloc((size_t)qlen, sizeof(DAT_EVENT));
	if (evd->ring == NULL)
		goto fail_evd;
	if (pthread_mutex_init(&evd->lock, NULL) != 0)
		goto fail_ring;
	if (sd_cond_init(&evd->cond) != 0)
		goto fail_lock;
	sd_obj_init(&evd->obj, ia, SD_MAGIC_EVD, DAT_HANDLE_TYPE_EVD);
	evd->flags = flags;
	evd->qlen = qlen;
	evd->enabled = true;
	evd->waitable = true;
	sd_list_init(&evd->drive);
	evd->efd = -1;

	pthread_mutex_lock(&ia->lock);
	sd_list_add_tail(&ia->evds, &evd->obj.node);
	pthread_mutex_unlock(&ia->lock);
	*out = evd;
	return 0;

fail_lock:
	pthread_mutex_destroy(&evd->lock);
fail_ring:
	free(evd->ring);
fail_evd:
	free(evd);
fail:
	return -ENOMEM;
}

void sd_evq_destroy(struct sd_evd *evd)
{
	DAT_OS_WAIT_PROXY_AGENT agent;
	struct sd_ia *ia = evd->obj.ia;

	pthread_mutex_lock(&ia->lock);
	pthread_mutex_lock(&evd->lock);
	evd->obj.magic = SD_MAGIC_DEAD;
	/* A waiter sees the EVD dead, returns DAT_ABORT and signals back. */
	while (evd->waiters > 0) {
		pthread_cond_broadcast(&evd->cond);
		sd_evq_wake(evd);
		pthread_cond_wait(&evd->cond, &evd->lock);
	}
	pthread_mutex_unlock(&evd->lock);
	sd_list_del(&evd->obj.node);
	agent = sd_evq_set_cno(evd, NULL, true);
	pthread_mutex_unlock(&ia->lock);

	sd_evq_call_agent(agent, NULL);
	sd_evq_release(evd);
}

/* ------------------------------------------------------------------ */
/* Asynchronous errors                                                 */

/*
 * Asynchronous errors: the one path to an IA's async EVD (ia.c points
 * the IA at it and detaches it).
 *
 * sd_evq_async_lock (after ep->lock and srq->lock, before evd->lock) is held
 * while an async error is posted and while ia->async_evd changes, so that
 * the EVD an error is posted to cannot be destroyed meanwhile.
 * ia->async_evd is written under ia->lock and sd_evq_async_lock both. Every
 * event for the async EVD goes through sd_evq_async_error (errors and the
 * watermark events alike), which holds sd_evq_async_lock while it posts. The
 * async EVD's CNO proxy agent does not run under it: the engine thread
 * calls it (the CNO rule, trigger.c).
 */
pthread_mutex_t sd_evq_async_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * Set while this thread posts an async error (recursion guard).
 * Initial-exec, as engine.c's on_engine: no allocation at first use.
 */
static __thread bool in_async __attribute__((tls_model("initial-exec")));

/*
 * The IB extension's counters (counters.c): every asynchronous event
 * counts in DCNT_IA_ASYNC_ERROR, whether or not it can be delivered (the
 * error happened either way), the watermark events included: they reach
 * the consumer as DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR
 * (SD_EVENT_WATERMARK, qp.h). Those about an EP (a QP, in verbs terms)
 * count also in DCNT_IA_ASYNC_QP_ERROR, an EVD overflow (a CQ's) in
 * DCNT_IA_ASYNC_CQ_ERROR.
 */
static void async_count(struct sd_ia *ia, DAT_EVENT_NUMBER ev)
{
	sd_cnt_inc(ia->cnt, DCNT_IA_ASYNC_ERROR);
	switch (ev) {
	case DAT_ASYNC_ERROR_EP_BROKEN:
	case DAT_ASYNC_ERROR_TIMED_OUT:
		sd_cnt_inc(ia->cnt, DCNT_IA_ASYNC_QP_ERROR);
		break;
	case DAT_ASYNC_ERROR_EVD_OVERFLOW:
		sd_cnt_inc(ia->cnt, DCNT_IA_ASYNC_CQ_ERROR);
		break;
	default:
		break;
	}
}

void sd_evq_async_error(struct sd_ia *ia, DAT_EVENT_NUMBER ev, DAT_HANDLE h,
		    DAT_COUNT reason)
{
	DAT_EVENT e;
	struct sd_evd *evd;
	int rc = -ENOENT;

	async_count(ia, ev);
	if (in_async) {
		sd_dbg("IA %s: async event 0x%x about %p dropped: the async EVD overflowed",
		       ia->name, (unsigned)ev, h);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.event_number = ev;
	e.event_data.asynch_error_event_data.dat_handle =
		h == (DAT_HANDLE)ia ? sd_obj_ia_handle(ia) : h;
	e.event_data.asynch_error_event_data.reason = reason;

	in_async = true;
	pthread_mutex_lock(&sd_evq_async_lock);
	evd = ia->async_evd;
	if (evd != NULL)
		rc = sd_evq_post(evd, &e);
	pthread_mutex_unlock(&sd_evq_async_lock);
	in_async = false;
	if (rc != 0)
		sd_dbg("IA %s: async event 0x%x about %p dropped: %s", ia->name,
		       (unsigned)ev, h,
		       evd == NULL ? "no async EVD" : "the async EVD is full");
}
