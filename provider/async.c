/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Asynchronous errors: the one path to an IA's async EVD (ia.c points
 * the IA at it and detaches it).
 *
 * sd_async_lock (after ep->lock and srq->lock, before evd->lock) is held
 * while an async error is posted and while ia->async_evd changes, so that
 * the EVD an error is posted to cannot be destroyed meanwhile.
 * ia->async_evd is written under ia->lock and sd_async_lock both. Every
 * event for the async EVD goes through sd_async_error (errors and the
 * watermark events alike), which holds sd_async_lock while it posts. The
 * async EVD's CNO proxy agent does not run under it: the engine thread
 * calls it (the CNO rule, trigger.c).
 */
#include <errno.h>
#include <string.h>

#include "softdapl.h"

pthread_mutex_t sd_async_lock = PTHREAD_MUTEX_INITIALIZER;

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
 * (SD_EVENT_WATERMARK, ep.h). Those about an EP (a QP, in verbs terms)
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

void sd_async_error(struct sd_ia *ia, DAT_EVENT_NUMBER ev, DAT_HANDLE h,
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
		h == (DAT_HANDLE)ia ? sd_ia_handle(ia) : h;
	e.event_data.asynch_error_event_data.reason = reason;

	in_async = true;
	pthread_mutex_lock(&sd_async_lock);
	evd = ia->async_evd;
	if (evd != NULL)
		rc = sd_evq_post(evd, &e);
	pthread_mutex_unlock(&sd_async_lock);
	in_async = false;
	if (rc != 0)
		sd_dbg("IA %s: async event 0x%x about %p dropped: %s", ia->name,
		       (unsigned)ev, h,
		       evd == NULL ? "no async EVD" : "the async EVD is full");
}
