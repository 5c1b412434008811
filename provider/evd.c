/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Event dispatchers (DAT 2.0, 6.3): a ring of events per EVD, filled by
 * sd_evq_post (evq.c) from any thread (the engine, a consumer thread
 * completing a post at once, another EVD's overflow) and emptied by
 * dat_evd_dequeue and dat_evd_wait.
 *
 * The ring is allocated with the EVD (and again by dat_evd_resize), so
 * posting, dequeueing and waiting allocate nothing. Everything about the
 * ring is under evd->lock; the list of EVDs and the references EPs and
 * CNOs hold are under ia->lock, taken first (softdapl.h).
 *
 * Waiting (dat_evd_wait(3)). At most one thread waits at a time, and
 * while it does it owns the EVD: a second dat_evd_wait, a dat_evd_dequeue
 * or a resize is refused with DAT_INVALID_STATE / EVD_WAITER ("effectively
 * takes exclusive ownership"). A wait that finds @threshold events returns
 * at once; otherwise the waiter sleeps until the ring holds @threshold
 * events and a notification event has arrived since it began. Every event
 * counts towards the threshold; only a notification event ends the wait:
 * all events are notification events except completions that the data
 * path posts with notify false (sd_evq_post_dto, sd_evq_post_completion:
 * an unsignalled DTO, RMR bind, extended or UD request, SEND-2; a
 * receive without a solicited event on an EP whose receive completion
 * flags say DAT_COMPLETION_SOLICITED_WAIT_FLAG, RECV-3, SRQ-3). An EP
 * configured with DAT_COMPLETION_EVD_THRESHOLD_FLAG makes every completion
 * a notification event, and the threshold alone decides (SRQ-3). A post
 * signals the condition variable only when the waiter's condition becomes
 * true: one signal per wake-up.
 *
 * Threshold and notification control do not mix (dat_evd_wait(3)): on an
 * EVD that an EP uses for a receive stream configured with
 * DAT_COMPLETION_UNSIGNALLED_FLAG or DAT_COMPLETION_SOLICITED_WAIT_FLAG,
 * or for a request stream configured with DAT_COMPLETION_UNSIGNALLED_FLAG,
 * a threshold above 1 is DAT_INVALID_STATE (subtype EVD_CONFIG_SOLICITED
 * or EVD_CONFIG_NOTIFY). The EVD learns this from the IA's EPs at the
 * time of the call (evd_threshold_allowed); an EP created or modified
 * during the wait does not end it.
 *
 * Unwaitable (dat_evd_set_unwaitable(3)): a wait is refused with
 * DAT_INVALID_STATE / EVD_UNWAITABLE, and a thread already waiting
 * returns that at once, whatever the ring holds. Events still arrive,
 * can be dequeued and trigger the CNO.
 *
 * CNO notification. Each rule, and where it comes from:
 *
 *   CNO-1 Only notification events trigger the CNO (dat_cno_wait(3):
 *         it waits "for notification events"; the rule above says
 *         which events are).
 *   CNO-2 Not while a thread waits on the EVD, whatever the event and
 *         the threshold (dat_evd_wait(3): "The CNO ... is not triggered
 *         upon event arrival if there is a Consumer blocked on
 *         dat_evd_wait()"; dat_cno_wait(3): an EVD "in the Waited state
 *         does not deliver notifications").
 *   CNO-3 Not while the EVD is disabled (dat_evd_disable(3):
 *         "the arrival of an event does not affect the associated CNO";
 *         dat_cno_wait(3)). Enabling and disabling do not touch direct
 *         waiters (dat_evd_enable(3)).
 *   CNO-4 Enabling does not trigger the CNO for events that arrived
 *         while the EVD was disabled: only a later arrival does
 *         (dat_evd_enable(3): enabled "so that the arrival of an event
 *         can trigger the associated CNO"; OFED's dapl_evd_enable only
 *         re-arms the CQ for the next completion).
 *   CNO-5 An unwaitable EVD still triggers (dat_evd_set_unwaitable(3)).
 *   CNO-6 After dat_evd_modify_cno returns, triggers go to the new CNO
 *         (dat_evd_modify_cno(3); one in progress may reach the old).
 *   CNO-7 Freeing the last EVD of a CNO releases its waiters and agent
 *         with a NULL EVD (dat_cno_wait(3); cno.c).
 *
 * Overflow. A post that finds the ring full overflows the EVD. The DAT
 * pages say only that the consumer must size EVDs so that they do not
 * overflow (dat_evd_set_unwaitable(3), dat_ep_create(3)) and that a full
 * queue on dat_evd_post_se is not an overflow (dat_evd_post_se(3)); the
 * reference, OFED 2.1.10, treats an overflow as catastrophic for the EVD
 * (catastrophic_overflow: dat_evd_wait and dat_evd_dequeue return
 * DAT_INVALID_STATE from then on). So does this provider: the event is
 * lost and the EVD goes out of service for good. DAT_ASYNC_ERROR_EVD_OVERFLOW
 * naming it (asynch_error_event_data.dat_handle) is posted once to the
 * IA's async EVD (sd_evq_async_error, which drops what it cannot post: the
 * async EVD's own overflow is reported nowhere); a thread waiting on it
 * returns DAT_INVALID_STATE; later dat_evd_wait, dat_evd_dequeue and
 * dat_evd_resize return DAT_INVALID_STATE, dat_evd_post_se DAT_QUEUE_FULL,
 * and every later event is lost too (sd_evq_post returns -ENOSPC). The
 * CNO is not triggered. dat_evd_query and dat_evd_modify_cno still work,
 * and dat_evd_free frees it once nothing uses it. No loss is silent: each
 * lost event counts in evd->lost and its trace line says dropped=overflow
 * (the `event` line here; a completion's `dto` line is its poster's,
 * written with what the post returned). The poster decides what a lost
 * completion does to its EP: the DTO posters (post.c, ud.c) let the EP
 * go on, its work request done. dat_evd_post_se on a full ring
 * returns DAT_QUEUE_FULL instead and overflows nothing
 * (dat_evd_post_se(3)).
 *
 * An empty EVD. dat_evd_dequeue(3) says DAT_QUEUE_EMPTY, and consumers
 * written against OFED compare the whole return value with it (dtest:
 * "while (dat_evd_dequeue(evd, &ev) == DAT_QUEUE_EMPTY)"). OFED answers
 * with two values: an EVD backed by a completion queue (not the async
 * EVD, and accepting some stream besides software, connection and CR
 * events: DTO or RMR bind) returns the plain enumerator 0x000D0000, as
 * dapls_ib_completion_poll gives it; every other EVD returns
 * DAT_ERROR(DAT_QUEUE_EMPTY, 0), 0x800D0000. evd_empty_ret gives the same
 * answer per EVD; DAT_GET_TYPE of either is DAT_QUEUE_EMPTY.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "engine.h"
#include "entry.h"
#include "evq.h"
#include "ia.h"
#include "obj.h"
#include "progress.h"
#include "qp.h"	/* evd_threshold_allowed reads the IA's EPs */
#include "refuse.h"
#include "trace.h"
#include "util.h"

/*
 * The refusal of @call's evd_handle @h, which names no live EVD: OFED's
 * subtype for every EVD call, EVD_REQUEST.
 */
#define SD_EVD_BAD_HANDLE(call, h)					\
	sd_refuse_handle(call, NULL, "evd_handle", h, SD_MAGIC_EVD,	\
			 DAT_INVALID_HANDLE_EVD_REQUEST)

/* ------------------------------------------------------------------ */
/* Helpers                                                            */

/* The live EVD behind a consumer handle, or NULL. */
static struct sd_evd *evd_from_handle(DAT_EVD_HANDLE h)
{
	struct sd_obj *obj = sd_obj_check(h, SD_MAGIC_EVD);

	return obj ? sd_container_of(obj, struct sd_evd, obj) : NULL;
}

/* The live CNO behind a consumer handle, or NULL. */
static struct sd_cno *cno_from_handle(DAT_CNO_HANDLE h)
{
	struct sd_obj *obj = sd_obj_check(h, SD_MAGIC_CNO);

	return obj ? sd_container_of(obj, struct sd_cno, obj) : NULL;
}

/* True while @evd has not been freed or destroyed. Caller holds evd->lock. */
static bool evd_alive(const struct sd_evd *evd)
{
	return evd->obj.magic == SD_MAGIC_EVD;
}

/* Removes the oldest event into @ev. Caller holds evd->lock; count > 0. */
static void evd_pop(struct sd_evd *evd, DAT_EVENT *ev)
{
	*ev = evd->ring[evd->head];
	if (++evd->head == evd->qlen)
		evd->head = 0;
	evd->count--;
}

/* ------------------------------------------------------------------ */
/* Creation and freeing                                               */

/*
 * dat_evd_create. Returns DAT_INVALID_HANDLE (IA, or a CNO that is not
 * one of this IA's), DAT_INVALID_PARAMETER (qlen <= 0, unknown flags, no
 * evd_handle) or DAT_INSUFFICIENT_RESOURCES (qlen above max_evd_qlen, as
 * OFED). DAT_EVD_ASYNC_FLAG is accepted (DAT_EVD_DEFAULT_FLAG includes
 * it), but only the EVD ia_open made receives the IA's async events.
 */
DAT_RETURN DAT_API sd_evd_create(DAT_IA_HANDLE ia_handle, DAT_COUNT qlen,
				 DAT_CNO_HANDLE cno_handle, DAT_EVD_FLAGS flags,
				 DAT_EVD_HANDLE *evd_handle)
{
	const struct sd_argpos pos = { .count = DAT_INVALID_ARG2,
				       .flags = DAT_INVALID_ARG4 };
	struct sd_cno *cno = NULL;
	struct sd_evd *evd;
	struct sd_ia *ia;
	int r;

	ia = sd_obj_ia(ia_handle);
	if (ia == NULL)
		return sd_refuse_handle("evd_create", NULL, "ia_handle",
					ia_handle, SD_MAGIC_IA,
					DAT_INVALID_HANDLE_IA);
	if (cno_handle != DAT_HANDLE_NULL) {
		cno = cno_from_handle(cno_handle);
		if (cno == NULL || cno->obj.ia != ia)
			return sd_refuse_handle("evd_create", &ia->obj,
						"cno_handle", cno_handle,
						SD_MAGIC_CNO,
						DAT_INVALID_HANDLE_CNO);
	}
	if (evd_handle == NULL)
		return sd_refuse_null("evd_create", &ia->obj, "evd_handle",
				      DAT_INVALID_ARG5);

	r = sd_evq_create(ia, qlen, flags, &evd);
	if (r == -EOPNOTSUPP)
		return sd_refuse_bits("evd_create", &ia->obj,
				      sd_api_errno(r, &pos), "evd_flags", flags,
				      SD_EVD_FLAGS_KNOWN);
	if (r == -EOVERFLOW)
		return sd_api_fail("evd_create", &ia->obj, r, &pos,
				   "evd_min_qlen %d, max_evd_qlen %d", (int)qlen,
				   SD_MAX_EVD_QLEN);
	if (r < 0)
		return sd_api_fail("evd_create", &ia->obj, r, &pos,
				   "evd_min_qlen %d", (int)qlen);
	if (cno != NULL) {
		pthread_mutex_lock(&ia->lock);
		(void)sd_evq_set_cno(evd, cno, false);	/* no old CNO */
		pthread_mutex_unlock(&ia->lock);
	}
	sd_cnt_inc(ia->cnt, DCNT_IA_EVD_CREATE);
	*evd_handle = (DAT_EVD_HANDLE)evd;
	return DAT_SUCCESS;
}

/*
 * dat_evd_free. DAT_INVALID_STATE / DAT_INVALID_STATE_EVD_IN_USE while an
 * EP, service point or SRQ uses the EVD, while a thread waits on it, and
 * for the IA's async EVD (freed by dat_ia_close). The queued events are
 * lost (dat_evd_free(3)).
 */
DAT_RETURN DAT_API sd_evd_free(DAT_EVD_HANDLE evd_handle)
{
	DAT_OS_WAIT_PROXY_AGENT agent;
	struct sd_evd *evd;
	struct sd_ia *ia;

	evd = evd_from_handle(evd_handle);
	if (evd == NULL)
		return SD_EVD_BAD_HANDLE("evd_free", evd_handle);
	ia = evd->obj.ia;

	pthread_mutex_lock(&ia->lock);
	pthread_mutex_lock(&evd->lock);
	if (evd->refs > 0 || evd->waiters > 0 || ia->async_evd == evd) {
		DAT_RETURN ret = sd_refuse("evd_free", &evd->obj,
					   SD_ERR(DAT_INVALID_STATE,
						  DAT_INVALID_STATE_EVD_IN_USE),
					   "%s", evd->refs > 0 ?
					   "EPs, service points or another "
					   "IA's async errors still use it "
					   "(free them first)" :
					   evd->waiters > 0 ?
					   "a thread waits on it" :
					   "it is the IA's async EVD (freed by "
					   "dat_ia_close)");

		pthread_mutex_unlock(&evd->lock);
		pthread_mutex_unlock(&ia->lock);
		return ret;
	}
	evd->obj.magic = SD_MAGIC_DEAD;
	pthread_mutex_unlock(&evd->lock);
	/* Counted while the EVD is the IA's (see sd_pz_free). */
	sd_cnt_inc(ia->cnt, DCNT_IA_EVD_FREE);
	sd_list_del(&evd->obj.node);
	agent = sd_evq_set_cno(evd, NULL, true);
	pthread_mutex_unlock(&ia->lock);

	sd_evq_call_agent(agent, NULL);
	sd_evq_release(evd);
	return DAT_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Taking events out                                                  */

/*
 * What dat_evd_dequeue returns for an empty @evd (see the top): OFED's
 * value for an EVD of these flags.
 */
static DAT_RETURN evd_empty_ret(const struct sd_evd *evd)
{
	const DAT_EVD_FLAGS cqless = DAT_EVD_SOFTWARE_FLAG |
		DAT_EVD_CONNECTION_FLAG | DAT_EVD_CR_FLAG;

	if (!(evd->flags & DAT_EVD_ASYNC_FLAG) && (evd->flags & ~cqless))
		return DAT_QUEUE_EMPTY;
	return SD_ERR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE);
}

/* DAT_INVALID_STATE for an EVD that overflowed (see the top). */
#define SD_EVD_OVERFLOWED SD_ERR(DAT_INVALID_STATE, DAT_NO_SUBTYPE)
static const char evd_overflowed_why[] =
	"the EVD overflowed (an event found it full) and is out of service";

/*
 * dat_evd_dequeue: the oldest event, DAT_QUEUE_EMPTY when there is none
 * (plain or error class: evd_empty_ret),
 * DAT_INVALID_STATE / DAT_INVALID_STATE_EVD_WAITER while a thread waits
 * (dat_evd_dequeue(3)), DAT_INVALID_STATE once the EVD overflowed.
 * DAT_INVALID_PARAMETER without event (ARG2). Never blocks.
 */
DAT_RETURN DAT_API sd_evd_dequeue(DAT_EVD_HANDLE evd_handle, DAT_EVENT *event)
{
	struct sd_evd *evd;
	DAT_RETURN ret = DAT_SUCCESS;
	bool yield = false;

	evd = evd_from_handle(evd_handle);
	if (evd == NULL)
		return SD_EVD_BAD_HANDLE("evd_dequeue", evd_handle);
	if (event == NULL)
		return sd_refuse_null("evd_dequeue", &evd->obj, "event",
				      DAT_INVALID_ARG2);

	sd_polled();	/* a consumer is at work: the engine need not spin */
	pthread_mutex_lock(&evd->lock);
	if (evd->count == 0 && !evd->overflowed && evd->waiters == 0) {
		/* Nothing yet: move this EVD's EPs, then look again. */
		if (sd_trace_enabled())
			sd_trace_call = "evd_dequeue";
		yield = !sd_progress_poll(evd);
		if (sd_trace_enabled())
			sd_trace_call = NULL;
	}
	if (evd->overflowed)
		ret = sd_refuse("evd_dequeue", &evd->obj, SD_EVD_OVERFLOWED,
				"%s", evd_overflowed_why);
	else if (evd->waiters > 0)
		ret = sd_refuse("evd_dequeue", &evd->obj,
				SD_ERR(DAT_INVALID_STATE,
				       DAT_INVALID_STATE_EVD_WAITER),
				"a thread waits on the EVD (dat_evd_wait owns "
				"it meanwhile)");
	else if (evd->count == 0)
		ret = evd_empty_ret(evd);
	else
		evd_pop(evd, event);
	if (ret == DAT_SUCCESS || DAT_GET_TYPE(ret) == DAT_QUEUE_EMPTY) {
		sd_cnt_inc(evd->cnt, DCNT_EVD_DEQUEUE);
		sd_cnt_inc(evd->cnt, ret == DAT_SUCCESS ? DCNT_EVD_DEQUEUE_FOUND :
			   DCNT_EVD_DEQUEUE_NOT_FOUND);
	}
	pthread_mutex_unlock(&evd->lock);
	/*
	 * Only other threads fill this EVD (the engine: connection events,
	 * requests; or it has too many EPs to move): a consumer polling it in
	 * a loop must not keep them from the CPU when cores are few.
	 */
	if (yield && DAT_GET_TYPE(ret) == DAT_QUEUE_EMPTY)
		sched_yield();
	return ret;
}

/*
 * Whether dat_evd_wait may use a threshold above 1 on @evd (see the top:
 * threshold and notification control do not mix). Returns DAT_SUCCESS,
 * or DAT_INVALID_STATE with EVD_CONFIG_SOLICITED when an EP receives on
 * @evd with DAT_COMPLETION_SOLICITED_WAIT_FLAG, EVD_CONFIG_NOTIFY when an
 * EP completes receives or requests on it with
 * DAT_COMPLETION_UNSIGNALLED_FLAG, saying which EP in @why (refuse.h).
 * Only DTO EVDs in use can be either. Takes ia->lock, then each EP's
 * lock in turn (the lock order); the caller holds no lock. O(EPs of the
 * IA), for thresholds above 1 only.
 */
static DAT_RETURN evd_threshold_allowed(struct sd_evd *evd,
					struct sd_why *why)
{
	struct sd_ia *ia = evd->obj.ia;
	DAT_RETURN ret = DAT_SUCCESS;
	struct sd_list *pos;

	if (!(evd->flags & DAT_EVD_DTO_FLAG))
		return DAT_SUCCESS;
	pthread_mutex_lock(&ia->lock);
	if (evd->refs == 0)
		goto out;
	sd_list_for_each(pos, &ia->eps) {
		struct sd_ep *ep = sd_container_of(pos, struct sd_ep, obj.node);
		DAT_COMPLETION_FLAGS recv, req;

		pthread_mutex_lock(&ep->lock);
		recv = ep->recv_evd == evd ? ep->attr.recv_completion_flags : 0;
		req = ep->req_evd == evd ? ep->attr.request_completion_flags : 0;
		pthread_mutex_unlock(&ep->lock);
		if (recv & DAT_COMPLETION_SOLICITED_WAIT_FLAG) {
			ret = SD_ERR(DAT_INVALID_STATE,
				     DAT_INVALID_STATE_EVD_CONFIG_SOLICITED);
			if (SD_REFUSING())
				sd_why_set(why, "%s receives on the EVD with "
					   "DAT_COMPLETION_SOLICITED_WAIT_FLAG",
					   sd_obj_name(&ep->obj).s);
			break;
		}
		if ((recv | req) & DAT_COMPLETION_UNSIGNALLED_FLAG) {
			ret = SD_ERR(DAT_INVALID_STATE,
				     DAT_INVALID_STATE_EVD_CONFIG_NOTIFY);
			if (SD_REFUSING())
				sd_why_set(why, "%s completes %s on the EVD "
					   "with DAT_COMPLETION_UNSIGNALLED_FLAG",
					   sd_obj_name(&ep->obj).s,
					   recv & DAT_COMPLETION_UNSIGNALLED_FLAG ?
					   "receives" : "requests");
			break;
		}
	}
out:
	pthread_mutex_unlock(&ia->lock);
	return ret;
}

/* Whether the waiter of @evd is done, whatever the outcome. evd->lock. */
static bool wait_over(const struct sd_evd *evd, DAT_COUNT threshold)
{
	return (evd->count >= threshold && evd->notified) || evd->unwaited ||
	       evd->overflowed || !evd_alive(evd);
}

/*
 * dat_evd_wait: blocks until the EVD holds @threshold events and a
 * notification event came (see the top), then takes the oldest; *nmore
 * is the number left. Returns DAT_TIMEOUT_EXPIRED when @timeout
 * (microseconds; DAT_TIMEOUT_INFINITE: none) passes first, with *nmore
 * set and nothing taken. DAT_INVALID_PARAMETER for a threshold outside
 * 1..qlen (ARG3) or no event (ARG4) or nmore (ARG5); DAT_INVALID_STATE
 * with EVD_CONFIG_SOLICITED / EVD_CONFIG_NOTIFY for a threshold above 1
 * on an EVD with notification control, with EVD_WAITER when another
 * thread waits, with EVD_UNWAITABLE when the EVD is or becomes
 * unwaitable, with no subtype when it overflowed or overflows; DAT_ABORT
 * when the IA is closed underneath. Waits in sd_progress_wait: polls the
 * EVD's connections for up to SOFTDAPL_SPIN_US, then sleeps (in poll() on
 * their sockets, or on the condition variable), so an infinite wait does
 * not spin past that.
 */
DAT_RETURN DAT_API sd_evd_wait(DAT_EVD_HANDLE evd_handle, DAT_TIMEOUT timeout,
			       DAT_COUNT threshold, DAT_EVENT *event,
			       DAT_COUNT *nmore)
{
	struct timespec deadline, *until = NULL;
	DAT_RETURN ret = DAT_SUCCESS, config = DAT_SUCCESS;
	struct sd_why why;
	struct sd_evd *evd;

	evd = evd_from_handle(evd_handle);
	if (evd == NULL)
		return SD_EVD_BAD_HANDLE("evd_wait", evd_handle);
	if (threshold <= 0)
		return sd_refuse("evd_wait", &evd->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
				 "threshold %d is not positive", (int)threshold);
	if (event == NULL)
		return sd_refuse_null("evd_wait", &evd->obj, "event",
				      DAT_INVALID_ARG4);
	if (nmore == NULL)
		return sd_refuse_null("evd_wait", &evd->obj, "nmore",
				      DAT_INVALID_ARG5);
	if (threshold > 1)
		config = evd_threshold_allowed(evd, &why); /* before evd->lock */

	pthread_mutex_lock(&evd->lock);
	if (threshold > evd->qlen) {
		ret = sd_refuse("evd_wait", &evd->obj,
				SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
				"threshold %d above the EVD's qlen %d",
				(int)threshold, (int)evd->qlen);
		goto out;
	}
	if (evd->overflowed) {
		ret = sd_refuse("evd_wait", &evd->obj, SD_EVD_OVERFLOWED, "%s",
				evd_overflowed_why);
		goto out;
	}
	if (evd->waiters > 0) {
		ret = sd_refuse("evd_wait", &evd->obj,
				SD_ERR(DAT_INVALID_STATE,
				       DAT_INVALID_STATE_EVD_WAITER),
				"another thread waits on the EVD");
		goto out;
	}
	if (!evd->waitable) {
		ret = sd_refuse("evd_wait", &evd->obj,
				SD_ERR(DAT_INVALID_STATE,
				       DAT_INVALID_STATE_EVD_UNWAITABLE),
				"the EVD is unwaitable "
				"(dat_evd_set_unwaitable)");
		goto out;
	}
	if (config != DAT_SUCCESS) {
		ret = sd_refuse("evd_wait", &evd->obj, config, "threshold %d "
				"above 1 on an EVD with notification control: "
				"%s", (int)threshold, why.s);
		goto out;
	}
	sd_cnt_inc(evd->cnt, DCNT_EVD_WAIT);
	if (evd->count < threshold && timeout != 0) {
		sd_cnt_inc(evd->cnt, DCNT_EVD_WAIT_BLOCKED);
		if (timeout != DAT_TIMEOUT_INFINITE) {
			sd_deadline(&deadline, timeout);
			until = &deadline;
		}
		evd->waiters = 1;
		evd->threshold = threshold;
		evd->notified = false;
		evd->unwaited = false;
		if (sd_trace_enabled())
			sd_trace_call = "evd_wait";
		sd_progress_wait(evd, wait_over, threshold, until);
		if (sd_trace_enabled())
			sd_trace_call = NULL;
		evd->waiters = 0;
		if (!evd_alive(evd)) {
			/* sd_evq_destroy waits for us: let it go on. */
			pthread_cond_broadcast(&evd->cond);
			pthread_mutex_unlock(&evd->lock);
			return SD_ERR(DAT_ABORT, DAT_NO_SUBTYPE);
		}
		if (evd->overflowed) {
			ret = sd_refuse("evd_wait", &evd->obj,
					SD_EVD_OVERFLOWED, "%s while waiting",
					evd_overflowed_why);
			goto out;
		}
		/*
		 * dat_evd_set_unwaitable(3): released, whatever arrived,
		 * even if dat_evd_clear_unwaitable followed at once.
		 */
		if (evd->unwaited) {
			ret = sd_refuse("evd_wait", &evd->obj,
					SD_ERR(DAT_INVALID_STATE,
					       DAT_INVALID_STATE_EVD_UNWAITABLE),
					"dat_evd_set_unwaitable released the "
					"wait");
			goto out;
		}
		if (evd->count >= threshold)
			sd_cnt_inc(evd->cnt, DCNT_EVD_WAIT_NOTIFY);
	}
	if (evd->count >= threshold)
		evd_pop(evd, event);
	else
		ret = SD_ERR(DAT_TIMEOUT_EXPIRED, DAT_NO_SUBTYPE);
	*nmore = evd->count;
out:
	pthread_mutex_unlock(&evd->lock);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Software events                                                    */

/*
 * dat_evd_post_se: queues a DAT_SOFTWARE_EVENT carrying the consumer's
 * pointer; it is a notification event. DAT_INVALID_PARAMETER when the EVD
 * was not created with DAT_EVD_SOFTWARE_FLAG (arg 1, as OFED) or the
 * event is missing or of another number (arg 2); DAT_QUEUE_FULL when the
 * ring is full, which is not an overflow (dat_evd_post_se(3)), and once
 * the EVD overflowed (it takes no event any more).
 */
DAT_RETURN DAT_API sd_evd_post_se(DAT_EVD_HANDLE evd_handle,
				  const DAT_EVENT *event)
{
	struct sd_evd *evd;
	DAT_EVENT ev;

	evd = evd_from_handle(evd_handle);
	if (evd == NULL)
		return SD_EVD_BAD_HANDLE("evd_post_se", evd_handle);
	if (!(evd->flags & DAT_EVD_SOFTWARE_FLAG))
		return sd_refuse("evd_post_se", &evd->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1),
				 "the EVD was created without "
				 "DAT_EVD_SOFTWARE_FLAG (evd_flags 0x%x)",
				 (unsigned)evd->flags);
	if (event == NULL)
		return sd_refuse_null("evd_post_se", &evd->obj, "event",
				      DAT_INVALID_ARG2);
	if (event->event_number != DAT_SOFTWARE_EVENT)
		return sd_refuse("evd_post_se", &evd->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				 "event->event_number 0x%x is not "
				 "DAT_SOFTWARE_EVENT",
				 (unsigned)event->event_number);

	memset(&ev, 0, sizeof(ev));
	ev.event_number = DAT_SOFTWARE_EVENT;
	ev.event_data.software_event_data.pointer =
		event->event_data.software_event_data.pointer;
	if (sd_evq_post_se(evd, &ev) != 0)
		return sd_refuse("evd_post_se", &evd->obj,
				 SD_ERR(DAT_QUEUE_FULL, DAT_NO_SUBTYPE),
				 "the EVD is full (or out of service after an "
				 "overflow)");
	return DAT_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* State: enable, waitable, CNO                                       */

/*
 * Sets @evd's enabled and waitable state, tracing a change (TRACE.md,
 * `state`) with @why. Caller holds evd->lock.
 */
static void evd_set_state(struct sd_evd *evd, bool enabled, bool waitable,
			  const char *why)
{
	if (sd_trace_enabled() &&
	    (evd->enabled != enabled || evd->waitable != waitable)) {
		char from[48], to[48];

		sd_trace("state", sd_obj_name(&evd->obj).s,
			 sd_evq_state_str(evd->enabled, evd->waitable,
					  evd->overflowed, from, sizeof(from)),
			 "to=%s why=\"%s\"",
			 sd_evq_state_str(enabled, waitable, evd->overflowed, to,
					  sizeof(to)), why);
	}
	evd->enabled = enabled;
	evd->waitable = waitable;
}

/*
 * dat_evd_enable: later arrivals of notification events trigger the CNO
 * again; events already queued do not (CNO-4). No effect on a direct
 * waiter. Idempotent.
 */
DAT_RETURN DAT_API sd_evd_enable(DAT_EVD_HANDLE evd_handle)
{
	struct sd_evd *evd = evd_from_handle(evd_handle);

	if (evd == NULL)
		return SD_EVD_BAD_HANDLE("evd_enable", evd_handle);
	pthread_mutex_lock(&evd->lock);
	evd_set_state(evd, true, evd->waitable, "dat_evd_enable");
	pthread_mutex_unlock(&evd->lock);
	return DAT_SUCCESS;
}

/*
 * dat_evd_disable: arrivals no longer trigger the CNO (CNO-3); a direct
 * waiter is woken by its threshold as before, and events still queue.
 * Idempotent.
 */
DAT_RETURN DAT_API sd_evd_disable(DAT_EVD_HANDLE evd_handle)
{
	struct sd_evd *evd = evd_from_handle(evd_handle);

	if (evd == NULL)
		return SD_EVD_BAD_HANDLE("evd_disable", evd_handle);
	pthread_mutex_lock(&evd->lock);
	evd_set_state(evd, false, evd->waitable, "dat_evd_disable");
	pthread_mutex_unlock(&evd->lock);
	return DAT_SUCCESS;
}

/*
 * dat_evd_set_unwaitable: later waits fail and the current waiter returns
 * DAT_INVALID_STATE / EVD_UNWAITABLE at once, even if its threshold was
 * just met (dat_evd_set_unwaitable(3)); events still arrive, can be
 * dequeued and trigger the CNO (CNO-5). Idempotent.
 */
DAT_RETURN DAT_API sd_evd_set_unwaitable(DAT_EVD_HANDLE evd_handle)
{
	struct sd_evd *evd = evd_from_handle(evd_handle);

	if (evd == NULL)
		return SD_EVD_BAD_HANDLE("evd_set_unwaitable", evd_handle);
	pthread_mutex_lock(&evd->lock);
	evd_set_state(evd, evd->enabled, false, "dat_evd_set_unwaitable");
	if (evd->waiters > 0) {
		evd->unwaited = true;
		sd_evq_wake(evd);
	}
	pthread_mutex_unlock(&evd->lock);
	return DAT_SUCCESS;
}

/* dat_evd_clear_unwaitable: dat_evd_wait is allowed again. */
DAT_RETURN DAT_API sd_evd_clear_unwaitable(DAT_EVD_HANDLE evd_handle)
{
	struct sd_evd *evd = evd_from_handle(evd_handle);

	if (evd == NULL)
		return SD_EVD_BAD_HANDLE("evd_clear_unwaitable", evd_handle);
	pthread_mutex_lock(&evd->lock);
	evd_set_state(evd, evd->enabled, true, "dat_evd_clear_unwaitable");
	pthread_mutex_unlock(&evd->lock);
	return DAT_SUCCESS;
}

/*
 * dat_evd_modify_cno: triggers after the return go to @cno_handle (NULL:
 * none; CNO-6). A trigger the old CNO already holds stays there, naming
 * this EVD. DAT_INVALID_HANDLE for a CNO that is not one of the EVD's IA.
 */
DAT_RETURN DAT_API sd_evd_modify_cno(DAT_EVD_HANDLE evd_handle,
				     DAT_CNO_HANDLE cno_handle)
{
	struct sd_cno *cno = NULL;
	struct sd_evd *evd;
	struct sd_ia *ia;

	evd = evd_from_handle(evd_handle);
	if (evd == NULL)
		return SD_EVD_BAD_HANDLE("evd_modify_cno", evd_handle);
	ia = evd->obj.ia;
	if (cno_handle != DAT_HANDLE_NULL) {
		cno = cno_from_handle(cno_handle);
		if (cno == NULL || cno->obj.ia != ia)
			return sd_refuse_handle("evd_modify_cno", &evd->obj,
						"cno_handle", cno_handle,
						SD_MAGIC_CNO,
						DAT_INVALID_HANDLE_CNO);
	}
	pthread_mutex_lock(&ia->lock);
	(void)sd_evq_set_cno(evd, cno, false);	/* releases nobody */
	pthread_mutex_unlock(&ia->lock);
	return DAT_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Query and resize                                                   */

/*
 * dat_evd_query: every field, whatever the mask (the spec allows it).
 * evd_state is ENABLED or DISABLED plus WAITABLE or UNWAITABLE, as OFED
 * reports it (no CONFIG_* bits). DAT_INVALID_PARAMETER for unknown mask
 * bits or a NULL evd_param.
 */
DAT_RETURN DAT_API sd_evd_query(DAT_EVD_HANDLE evd_handle,
				DAT_EVD_PARAM_MASK mask, DAT_EVD_PARAM *param)
{
	struct sd_evd *evd;

	evd = evd_from_handle(evd_handle);
	if (evd == NULL)
		return SD_EVD_BAD_HANDLE("evd_query", evd_handle);
	if ((unsigned)mask & ~(unsigned)DAT_EVD_FIELD_ALL)
		return sd_refuse_bits("evd_query", &evd->obj,
				      SD_ERR(DAT_INVALID_PARAMETER,
					     DAT_INVALID_ARG2),
				      "evd_param_mask", (unsigned)mask,
				      (unsigned)DAT_EVD_FIELD_ALL);
	if (param == NULL)
		return sd_refuse_null("evd_query", &evd->obj, "evd_param",
				      DAT_INVALID_ARG3);

	param->ia_handle = sd_obj_ia_handle(evd->obj.ia);
	param->evd_flags = evd->flags;
	pthread_mutex_lock(&evd->lock);
	param->evd_qlen = evd->qlen;
	param->evd_state = (DAT_EVD_STATE)
		((evd->enabled ? DAT_EVD_STATE_ENABLED : DAT_EVD_STATE_DISABLED) |
		 (evd->waitable ? DAT_EVD_STATE_WAITABLE :
				  DAT_EVD_STATE_UNWAITABLE));
	param->cno_handle = (DAT_CNO_HANDLE)evd->cno;
	pthread_mutex_unlock(&evd->lock);
	return DAT_SUCCESS;
}

/*
 * dat_evd_resize: a new ring of @qlen events holding the queued ones in
 * order (dat_evd_resize(3): none is lost). DAT_INVALID_PARAMETER for qlen
 * outside 1..SD_MAX_EVD_QLEN (ARG2; above max_evd_qlen as OFED);
 * DAT_INVALID_STATE, the EVD unchanged, when more events are queued than
 * @qlen holds (dat_evd_resize(3)), with EVD_WAITER while a thread waits
 * (as OFED), and once the EVD overflowed; DAT_INSUFFICIENT_RESOURCES
 * without memory. A wait threshold is checked against the new length.
 * Consumer threads only (it allocates).
 */
DAT_RETURN DAT_API sd_evd_resize(DAT_EVD_HANDLE evd_handle, DAT_COUNT qlen)
{
	DAT_EVENT *ring, *old;
	struct sd_evd *evd;
	DAT_COUNT n;

	evd = evd_from_handle(evd_handle);
	if (evd == NULL)
		return SD_EVD_BAD_HANDLE("evd_resize", evd_handle);
	if (qlen <= 0 || qlen > SD_MAX_EVD_QLEN)
		return sd_refuse("evd_resize", &evd->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				 "evd_qlen %d is not from 1 to max_evd_qlen %d",
				 (int)qlen, SD_MAX_EVD_QLEN);
	ring = calloc((size_t)qlen, sizeof(DAT_EVENT));
	if (ring == NULL)
		return sd_refuse("evd_resize", &evd->obj,
				 SD_ERR(DAT_INSUFFICIENT_RESOURCES,
					DAT_RESOURCE_MEMORY),
				 "no memory for %d events", (int)qlen);

	pthread_mutex_lock(&evd->lock);
	if (evd->overflowed || evd->waiters > 0 || evd->count > qlen) {
		DAT_RETURN ret = evd->overflowed ?
			sd_refuse("evd_resize", &evd->obj, SD_EVD_OVERFLOWED,
				  "%s", evd_overflowed_why) :
			evd->waiters > 0 ?
			sd_refuse("evd_resize", &evd->obj,
				  SD_ERR(DAT_INVALID_STATE,
					 DAT_INVALID_STATE_EVD_WAITER),
				  "a thread waits on the EVD") :
			sd_refuse("evd_resize", &evd->obj,
				  SD_ERR(DAT_INVALID_STATE, DAT_NO_SUBTYPE),
				  "evd_qlen %d cannot hold the %d events "
				  "queued", (int)qlen, (int)evd->count);

		pthread_mutex_unlock(&evd->lock);
		free(ring);
		return ret;
	}
	for (n = 0; evd->count > 0; n++)
		evd_pop(evd, &ring[n]);
	old = evd->ring;
	evd->ring = ring;
	evd->qlen = qlen;
	evd->head = 0;
	evd->count = n;
	pthread_mutex_unlock(&evd->lock);
	free(old);
	return DAT_SUCCESS;
}
