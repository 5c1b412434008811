/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion delivery: the one place a finished (or flushed) work request
 * of an RC EP becomes its event on the EP's EVD, with the notification
 * rules of DAT 2.0 (SEND-2, RECV-3, SRQ-3) and its `dto` trace line. The
 * wire (tx.c, rx.c) and the flush (qp.c) call it under ep->lock; it calls
 * only the event queues below (evd.c's posting) and the trace.
 */
#include <errno.h>
#include <string.h>

#include <dat2/dat_ib_extensions.h>

#include "evq.h"
#include "qp.h"
#include "trace.h"
#include "util.h"
#include "wire.h"
#include "wq.h"

static const DAT_DTOS dto_op[] = {
	[SD_WR_SEND] = DAT_DTO_SEND,
	[SD_WR_RECV] = DAT_DTO_RECEIVE,
	[SD_WR_RDMA_WRITE] = DAT_DTO_RDMA_WRITE,
	[SD_WR_RDMA_READ] = DAT_DTO_RDMA_READ,
	[SD_WR_BIND] = DAT_DTO_BIND_MW,
	[SD_WR_WRITE_IMM] = (DAT_DTOS)DAT_IB_DTO_RDMA_WRITE_IMMED,
	[SD_WR_FETCH_ADD] = (DAT_DTOS)DAT_IB_DTO_FETCH_ADD,
	[SD_WR_CMP_SWAP] = (DAT_DTOS)DAT_IB_DTO_CMP_SWAP,
};

/* The IB extension's type of an extended request's completion. */
static const DAT_IB_EXT_TYPE ext_type[] = {
	[SD_WR_WRITE_IMM] = DAT_IB_RDMA_WRITE_IMMED,
	[SD_WR_FETCH_ADD] = DAT_IB_FETCH_AND_ADD,
	[SD_WR_CMP_SWAP] = DAT_IB_CMP_AND_SWAP,
};

/*
 * Whether a completion is a notification event (wakes an EVD waiter,
 * triggers a CNO). Errors always notify. SEND-2/SEND-3: a request posted
 * with DAT_COMPLETION_UNSIGNALLED_FLAG does not. RECV-3/RECV-4: a receive
 * posted unsignalled does not; on an EP whose receive completion flags
 * hold DAT_COMPLETION_SOLICITED_WAIT_FLAG, a receive notifies only when
 * the sender asked for a solicited event (SEND_SE). SRQ-3: an SRQ buffer
 * has no flags of its own, so the EP that took it decides.
 */
bool sd_complete_notifies(const struct sd_wqe *w, bool recv,
			  DAT_COMPLETION_FLAGS recv_flags,
			  DAT_DTO_COMPLETION_STATUS status)
{
	if (status != DAT_DTO_SUCCESS)
		return true;
	if (w->flags & DAT_COMPLETION_UNSIGNALLED_FLAG)
		return false;
	if (recv && (recv_flags & DAT_COMPLETION_SOLICITED_WAIT_FLAG))
		return w->solicited;
	return true;
}

/*
 * The `dto` line of a completion (trace.h): every DTO that was posted
 * successfully has exactly one, whether its event is queued to @evd, or
 * suppressed or dropped (evd=none, and dropped=freed for an EP freed
 * first), or lost because @evd overflowed (@r, what the post returned:
 * -ENOSPC gives dropped=overflow). @at: the time read before the event
 * was queued, so that the line is not later than what the consumer does
 * once it has taken the event.
 */
static void trace_dto(const struct timespec *at, struct sd_ep *ep,
		      const struct sd_wqe *w, bool recv, struct sd_evd *evd,
		      DAT_DTO_COMPLETION_STATUS status, uint64_t len, int r)
{
	const char *dropped = ep->freed ? " dropped=freed" :
			      r == -ENOSPC ? " dropped=overflow" : "";

	static const char *const ops[] = {
		[SD_WR_SEND] = "SEND",		[SD_WR_RECV] = "RECEIVE",
		[SD_WR_RDMA_WRITE] = "RDMA_WRITE", [SD_WR_RDMA_READ] = "RDMA_READ",
		[SD_WR_BIND] = "BIND",		[SD_WR_WRITE_IMM] = "RDMA_WRITE_IMMED",
		[SD_WR_FETCH_ADD] = "FETCH_ADD", [SD_WR_CMP_SWAP] = "CMP_SWAP",
	};
	/* A receive that an RDMA write with immediate data consumed
	 * completes as DAT_IB_DTO_RECV_IMMED (sd_complete_dto). */
	const char *op = recv ? (w->has_imm ? "RECV_IMMED" : "RECEIVE") :
			 w->op < SD_ARRAY_SIZE(ops) ? ops[w->op] : "?";

	if (status != DAT_DTO_SUCCESS)
		len = 0;
	if (recv && ep->srq != NULL)
		sd_trace_at(at, "dto", sd_obj_name(&ep->srq->obj).s, op,
			    "evd=%s cookie=0x%llx status=%s len=%llu ep=%s%s",
			    evd != NULL ? sd_obj_name(&evd->obj).s : "none",
			    (unsigned long long)w->cookie.as_64,
			    sd_trace_dto_status_name(status),
			    (unsigned long long)len, sd_obj_name(&ep->obj).s,
			    dropped);
	else
		sd_trace_at(at, "dto", sd_obj_name(&ep->obj).s, op,
			    "evd=%s cookie=0x%llx status=%s len=%llu%s",
			    evd != NULL ? sd_obj_name(&evd->obj).s : "none",
			    (unsigned long long)w->cookie.as_64,
			    sd_trace_dto_status_name(status),
			    (unsigned long long)len, dropped);
}

/*
 * Callers free the slot first (pop, release) and complete a copy: the
 * consumer woken by the event may post again into a queue that was full.
 * A completion the EVD cannot hold overflows it (evq.h, sd_evq_post):
 * the work request is done all the same and the EP goes on; the loss is
 * the EVD's to report, and this `dto` line says dropped=overflow.
 */
void sd_complete_dto(struct sd_ep *ep, struct sd_wqe *w, bool recv,
		     DAT_DTO_COMPLETION_STATUS status, uint64_t len)
{
	struct sd_evd *evd = recv ? ep->recv_evd : ep->req_evd;
	DAT_DTO_COMPLETION_EVENT_DATA *dto;
	DAT_IB_EXTENSION_EVENT_DATA *ext;
	struct timespec at = { 0, 0 };
	DAT_EVENT ev;
	bool notify;
	int r = 0;

	SD_ASSERT_HELD(&ep->lock);
	if (sd_trace_enabled())
		at = sd_trace_now();
	/* SEND-2: only errors of suppressed DTOs; nothing for a freed EP. */
	if (ep->freed || (status == DAT_DTO_SUCCESS &&
			  (w->flags & DAT_COMPLETION_SUPPRESS_FLAG)))
		evd = NULL;
	if (evd == NULL)
		goto out;
	if (status != DAT_DTO_SUCCESS)
		len = 0;
	notify = sd_complete_notifies(w, recv, ep->attr.recv_completion_flags,
				      status);
	sd_cnt_inc(evd->cnt, DCNT_EVD_DTO_CALLBACK);
	if (!recv && w->op == SD_WR_BIND) {
		/* dat_rmr_bind(3): the RMR, the cookie and the status. */
		memset(&ev, 0, sizeof(ev));
		ev.event_number = DAT_RMR_BIND_COMPLETION_EVENT;
		ev.event_data.rmr_completion_event_data.rmr_handle =
			(DAT_RMR_HANDLE)w->x.bind.rmr;
		ev.event_data.rmr_completion_event_data.user_cookie = w->cookie;
		ev.event_data.rmr_completion_event_data.status = status;
		r = sd_evq_post_completion(evd, &ev, notify);
		goto out;
	}
	if (!(recv ? w->has_imm : w->op >= SD_WR_WRITE_IMM) &&
	    !(recv && w->inv && status == DAT_DTO_SUCCESS)) {
		r = sd_evq_post_dto(evd, (DAT_EP_HANDLE)ep, w->cookie, status,
				    (DAT_SEG_LENGTH)len, dto_op[w->op], notify);
		goto out;
	}
	memset(&ev, 0, sizeof(ev));
	dto = &ev.event_data.dto_completion_event_data;
	dto->ep_handle = (DAT_EP_HANDLE)ep;
	dto->user_cookie = w->cookie;	/* COMMON-2 */
	dto->status = status;
	dto->transfered_length = (DAT_SEG_LENGTH)len;
	if (recv && !w->has_imm) {
		/* A SEND with invalidate: the context it invalidated. */
		ev.event_number = DAT_DTO_COMPLETION_EVENT;
		dto->operation = DAT_DTO_RECEIVE_WITH_INVALIDATE;
		dto->rmr_context = w->remote.rmr_context;
		r = sd_evq_post_completion(evd, &ev, notify);
		goto out;
	}
	/* OFED's extended completion (post.h, sd_post_write_imm). */
	ev.event_number = (DAT_EVENT_NUMBER)DAT_IB_DTO_EVENT;
	ext = (DAT_IB_EXTENSION_EVENT_DATA *)(void *)ev.event_extension_data;
	ext->status = status == DAT_DTO_SUCCESS ? DAT_OP_SUCCESS : DAT_IB_OP_ERR;
	if (recv) {
		dto->operation = (DAT_DTOS)DAT_IB_DTO_RECV_IMMED;
		ext->type = DAT_IB_RDMA_WRITE_IMMED_DATA;
		ext->val.immed.data = w->imm;
	} else {
		dto->operation = dto_op[w->op];
		ext->type = ext_type[w->op];
	}
	r = sd_evq_post_completion(evd, &ev, notify);
out:
	/*
	 * Traced once the post said whether the EVD held the event, with
	 * the time read before it; this EP's next completion needs
	 * ep->lock, so its lines stay in order.
	 */
	if (sd_trace_enabled())
		trace_dto(&at, ep, w, recv, evd, status, len, r);
}
