/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DTO entry points: dat_ep_post_send, _recv, _rdma_write, _rdma_read.
 *
 * THE CONTRACT (STYLE.md habit 4). A post that fails synchronously
 * (returns anything but DAT_SUCCESS) never produces a completion. A post
 * that succeeds produces exactly one, ever:
 *
 *   - DAT_DTO_SUCCESS when the DTO is done: a SEND or WRITE once the peer
 *     has placed it (its cumulative ack covers it), a READ once its
 *     response is placed here, a receive once a whole message is in it;
 *     not posted at all when the post asked for
 *     DAT_COMPLETION_SUPPRESS_FLAG (SEND-2), errors always are;
 *   - an error status when that DTO failed: DAT_DTO_LENGTH_ERROR for a
 *     receive too small for the message (RECV-5), DAT_DTO_ERR_REMOTE_ACCESS
 *     for a WRITE or READ the peer refused (WRITE-6),
 *     DAT_DTO_ERR_REMOTE_RESPONDER for a SEND the peer had no room for;
 *   - DAT_DTO_ERR_FLUSHED for everything else outstanding when the EP
 *     becomes DISCONNECTED (after the ones that completed normally), and
 *     at once for a post on a DISCONNECTED EP (SEND-5, RECV-7, WRITE-4).
 *
 * Completions come in post order per queue: the request queue (sends,
 * writes and reads together) and the receive queue. The one exception is
 * dat_ep_free, after which nothing of the EP is reported (ep.c).
 *
 * A post allocates nothing (COMMON-4): it resolves the consumer's
 * local_iov into a stack array (COMMON-3: copied, the consumer may reuse
 * it at once), then fills the next slot of the preallocated ring under
 * ep->lock and, when the connection is idle, writes the frame right away.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ep.h"
#include "entry.h"

int sd_wq_init(struct sd_wq *wq, uint32_t size, uint32_t max_sge)
{
	memset(wq, 0, sizeof(*wq));
	wq->size = size;
	wq->max_sge = max_sge;
	if (size == 0)
		return 0;
	wq->wqe = calloc(size, sizeof(*wq->wqe));
	wq->sge = calloc((size_t)size * (max_sge ? max_sge : 1), sizeof(*wq->sge));
	if (wq->wqe == NULL || wq->sge == NULL) {
		sd_wq_destroy(wq);
		return -ENOMEM;
	}
	return 0;
}

void sd_wq_destroy(struct sd_wq *wq)
{
	free(wq->wqe);
	free(wq->sge);
	memset(wq, 0, sizeof(*wq));
}

static const DAT_DTOS dto_op[] = {
	[SD_WR_SEND] = DAT_DTO_SEND,
	[SD_WR_RECV] = DAT_DTO_RECEIVE,
	[SD_WR_RDMA_WRITE] = DAT_DTO_RDMA_WRITE,
	[SD_WR_RDMA_READ] = DAT_DTO_RDMA_READ,
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
static bool dto_notifies(const struct sd_ep *ep, const struct sd_wqe *w,
			 bool recv, DAT_DTO_COMPLETION_STATUS status)
{
	if (status != DAT_DTO_SUCCESS)
		return true;
	if (w->flags & DAT_COMPLETION_UNSIGNALLED_FLAG)
		return false;
	if (recv && (ep->attr.recv_completion_flags &
		     DAT_COMPLETION_SOLICITED_WAIT_FLAG))
		return w->solicited;
	return true;
}

/*
 * Callers free the slot first (pop, release) and complete a copy: the
 * consumer woken by the event may post again into a queue that was full.
 */
void sd_dto_complete(struct sd_ep *ep, struct sd_wqe *w, bool recv,
		     DAT_DTO_COMPLETION_STATUS status, uint64_t len)
{
	struct sd_evd *evd = recv ? ep->recv_evd : ep->req_evd;

	if (evd == NULL || ep->freed)
		return;
	if (status == DAT_DTO_SUCCESS && (w->flags & DAT_COMPLETION_SUPPRESS_FLAG))
		return;		/* SEND-2: only errors of suppressed DTOs */
	if (status != DAT_DTO_SUCCESS)
		len = 0;
	sd_evd_post_dto(evd, (DAT_EP_HANDLE)ep, w->cookie, status,
			(DAT_SEG_LENGTH)len, dto_op[w->op],
			dto_notifies(ep, w, recv, status));
}

void sd_ep_flush(struct sd_ep *ep)
{
	struct sd_wqe *w;

	/* Requests: errors found by the wire keep their status. */
	while ((w = sd_wq_at(&ep->sq, 0)) != NULL) {
		struct sd_wqe c = *w;
		DAT_DTO_COMPLETION_STATUS st = c.status == SD_WQE_PENDING ?
			DAT_DTO_ERR_FLUSHED : c.status;

		sd_wq_pop(&ep->sq);
		sd_dto_complete(ep, &c, false, st, c.len);
	}
	ep->tx.next = 0;
	ep->tx.rd_out = 0;
	if (ep->tx.kind == SD_TX_REQ)
		ep->tx.kind = SD_TX_NONE;
	/* SRQ-7: the buffer taken from the SRQ, not filled by a message. */
	if (ep->rx.wqe != NULL && ep->rx.from_srq) {
		struct sd_wqe c = *ep->rx.wqe;

		sd_srq_release(ep->srq, ep->rx.wqe, false);
		sd_dto_complete(ep, &c, true, DAT_DTO_ERR_FLUSHED, 0);
	}
	ep->rx.wqe = NULL;
	ep->rx.from_srq = false;
	while ((w = sd_wq_at(&ep->rq, 0)) != NULL) {
		struct sd_wqe c = *w;

		sd_wq_pop(&ep->rq);
		sd_dto_complete(ep, &c, true, DAT_DTO_ERR_FLUSHED, 0);
	}
}

/*
 * Resolves @n triplets of @iov for PZ @pz and privilege @need into @sge
 * (zero-length segments are dropped: their other fields are don't-care).
 * Sets *@nsge and *@total. DAT_SUCCESS or the error of COMMON-1, 5..7.
 */
static DAT_RETURN resolve_iov(struct sd_ia *ia, struct sd_pz *pz, DAT_COUNT n,
			      const DAT_LMR_TRIPLET *iov, DAT_COUNT max,
			      DAT_MEM_PRIV_FLAGS need, struct sd_sge *sge,
			      uint16_t *nsge, uint64_t *total)
{
	DAT_COUNT i;
	uint16_t k = 0;

	*total = 0;
	if (n < 0 || n > max)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (n > 0 && iov == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	for (i = 0; i < n; i++) {
		DAT_RETURN r;

		if (iov[i].segment_length == 0)
			continue;
		if (pz == NULL)
			return SD_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_PZ);
		r = sd_lmr_resolve_local(ia, pz, &iov[i], need, &sge[k]);
		/*
		 * Local write implies local read, as with verbs, where every
		 * registration may be read locally: OFED's dtest sends from
		 * buffers registered DAT_MEM_PRIV_LOCAL_WRITE_FLAG only.
		 */
		if (DAT_GET_TYPE(r) == DAT_PRIVILEGES_VIOLATION &&
		    need == DAT_MEM_PRIV_LOCAL_READ_FLAG &&
		    sd_lmr_resolve_local(ia, pz, &iov[i],
					 DAT_MEM_PRIV_LOCAL_WRITE_FLAG,
					 &sge[k]) == DAT_SUCCESS)
			r = DAT_SUCCESS;
		if (r != DAT_SUCCESS)
			return r;
		*total += sge[k].len;
		k++;
	}
	*nsge = k;
	return DAT_SUCCESS;
}

/* Completion flags a post may carry; UNSIGNALLED only if @allowed has it. */
static bool flags_ok(DAT_COMPLETION_FLAGS f, DAT_COMPLETION_FLAGS allowed)
{
	if (f & ~(DAT_COMPLETION_SUPPRESS_FLAG | DAT_COMPLETION_SOLICITED_WAIT_FLAG |
		  DAT_COMPLETION_UNSIGNALLED_FLAG | DAT_COMPLETION_BARRIER_FENCE_FLAG))
		return false;
	/* SEND-3, RECV-4, WRITE-3 */
	if ((f & DAT_COMPLETION_UNSIGNALLED_FLAG) &&
	    !(allowed & DAT_COMPLETION_UNSIGNALLED_FLAG))
		return false;
	return true;
}

/* A post on a DISCONNECTED EP: flushed at once, no slot needed. */
static void flush_now(struct sd_ep *ep, DAT_DTO_COOKIE cookie,
		      DAT_COMPLETION_FLAGS flags, uint8_t op)
{
	struct sd_wqe w;

	memset(&w, 0, sizeof(w));
	w.cookie = cookie;
	w.flags = flags;
	w.op = op;
	sd_dto_complete(ep, &w, op == SD_WR_RECV, DAT_DTO_ERR_FLUSHED, 0);
}

/* The request posts: SEND, RDMA WRITE, RDMA READ. */
static DAT_RETURN post_request(DAT_EP_HANDLE h, uint8_t op, DAT_COUNT n,
			       const DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
			       const DAT_RMR_TRIPLET *remote,
			       DAT_COMPLETION_FLAGS flags)
{
	struct sd_ep *ep = sd_ep_from_handle(h);
	struct sd_sge sge[SD_MAX_IOV];
	DAT_MEM_PRIV_FLAGS need;
	DAT_COUNT max;
	DAT_RETURN ret;
	struct sd_wqe *w;
	uint64_t total, limit;
	uint16_t nsge = 0;

	if (ep == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (!flags_ok(flags, ep->attr.request_completion_flags) ||
	    (op != SD_WR_SEND && (flags & DAT_COMPLETION_SOLICITED_WAIT_FLAG)))
		return SD_ERR(DAT_INVALID_PARAMETER,
			      op == SD_WR_SEND ? DAT_INVALID_ARG5 : DAT_INVALID_ARG6);
	if (op != SD_WR_SEND && remote == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	switch (op) {
	case SD_WR_SEND:
		max = ep->attr.max_request_iov;
		need = DAT_MEM_PRIV_LOCAL_READ_FLAG;
		limit = SD_MAX_MESSAGE_SIZE;
		break;
	case SD_WR_RDMA_WRITE:
		max = ep->attr.max_rdma_write_iov;
		need = DAT_MEM_PRIV_LOCAL_READ_FLAG;
		limit = SD_MAX_RDMA_SIZE;
		break;
	default:
		max = ep->attr.max_rdma_read_iov;
		need = DAT_MEM_PRIV_LOCAL_WRITE_FLAG;
		limit = SD_MAX_RDMA_SIZE;
		break;
	}
	/* COMMON-5..7 */
	ret = resolve_iov(ep->obj.ia, ep->pz, n, iov, max, need, sge, &nsge, &total);
	if (ret != DAT_SUCCESS)
		return ret;
	/*
	 * The EP's max_message_size and max_rdma_size are not enforced, as
	 * in OFED (consumers rely on it); the provider's limits are.
	 */
	if (total > limit)
		return SD_ERR(DAT_LENGTH_ERROR, 0);
	/* WRITE-5, and the same for a read's source. */
	if (op != SD_WR_SEND && total > remote->segment_length)
		return SD_ERR(DAT_LENGTH_ERROR, 0);

	pthread_mutex_lock(&ep->lock);
	if (ep->state == DAT_EP_STATE_DISCONNECTED) {
		flush_now(ep, cookie, flags, op);	/* SEND-5, WRITE-4 */
		goto out;
	}
	if (ep->state != DAT_EP_STATE_CONNECTED) {	/* SEND-4, WRITE-4 */
		ret = sd_ep_bad_state(ep);
		goto out;
	}
	if (total > (op == SD_WR_SEND ? ep->peer_max_msg : ep->peer_max_rdma)) {
		ret = SD_ERR(DAT_LENGTH_ERROR, 0);
		goto out;
	}
	w = sd_wq_next(&ep->sq);
	if (w == NULL) {				/* COMMON-8 */
		ret = SD_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
		goto out;
	}
	w->cookie = cookie;
	w->flags = flags;
	w->op = op;
	w->status = SD_WQE_PENDING;
	w->nsge = nsge;
	w->seq = 0;
	w->len = total;
	w->done = 0;
	memcpy(w->sge, sge, nsge * sizeof(*sge));
	if (remote)
		w->remote = *remote;
	w->ep = NULL;
	sd_wq_push(&ep->sq);
	sd_tx_progress(ep);
out:
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

DAT_RETURN DAT_API sd_ep_post_send(DAT_EP_HANDLE ep, DAT_COUNT n,
				   DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
				   DAT_COMPLETION_FLAGS flags)
{
	return post_request(ep, SD_WR_SEND, n, iov, cookie, NULL, flags);
}

DAT_RETURN DAT_API sd_ep_post_rdma_write(DAT_EP_HANDLE ep, DAT_COUNT n,
					 DAT_LMR_TRIPLET *iov,
					 DAT_DTO_COOKIE cookie,
					 const DAT_RMR_TRIPLET *remote,
					 DAT_COMPLETION_FLAGS flags)
{
	return post_request(ep, SD_WR_RDMA_WRITE, n, iov, cookie, remote, flags);
}

DAT_RETURN DAT_API sd_ep_post_rdma_read(DAT_EP_HANDLE ep, DAT_COUNT n,
					DAT_LMR_TRIPLET *iov,
					DAT_DTO_COOKIE cookie,
					const DAT_RMR_TRIPLET *remote,
					DAT_COMPLETION_FLAGS flags)
{
	return post_request(ep, SD_WR_RDMA_READ, n, iov, cookie, remote, flags);
}

DAT_RETURN DAT_API sd_ep_post_recv(DAT_EP_HANDLE h, DAT_COUNT n,
				   DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
				   DAT_COMPLETION_FLAGS flags)
{
	struct sd_ep *ep = sd_ep_from_handle(h);
	struct sd_sge sge[SD_MAX_IOV];
	DAT_RETURN ret;
	struct sd_wqe *w;
	uint64_t total;
	uint16_t nsge = 0;

	if (ep == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (ep->srq != NULL)	/* its receives come from the SRQ */
		return SD_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_SRQ_IN_USE);
	if (!flags_ok(flags, ep->attr.recv_completion_flags))	/* RECV-4 */
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	ret = resolve_iov(ep->obj.ia, ep->pz, n, iov, ep->attr.max_recv_iov,
			  DAT_MEM_PRIV_LOCAL_WRITE_FLAG, sge, &nsge, &total);
	if (ret != DAT_SUCCESS)
		return ret;

	pthread_mutex_lock(&ep->lock);
	if (ep->state == DAT_EP_STATE_DISCONNECTED) {	/* RECV-7 */
		flush_now(ep, cookie, flags, SD_WR_RECV);
		goto out;
	}
	w = sd_wq_next(&ep->rq);			/* RECV-6: any state */
	if (w == NULL) {
		ret = SD_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
		goto out;
	}
	w->cookie = cookie;
	w->flags = flags;
	w->op = SD_WR_RECV;
	w->status = SD_WQE_PENDING;
	w->nsge = nsge;
	w->len = total;
	w->done = 0;
	memcpy(w->sge, sge, nsge * sizeof(*sge));
	w->ep = NULL;
	sd_wq_push(&ep->rq);
	/* The engine stopped reading for want of a buffer: resume it. */
	if (ep->sock != NULL && ep->rx.state == SD_RX_BUF)
		sd_engine_submit(&ep->io_cmd);
out:
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

DAT_RETURN DAT_API sd_ep_post_send_with_invalidate(DAT_EP_HANDLE ep, DAT_COUNT n,
						   DAT_LMR_TRIPLET *iov,
						   DAT_DTO_COOKIE cookie,
						   DAT_COMPLETION_FLAGS flags,
						   DAT_BOOLEAN invalidate,
						   DAT_RMR_CONTEXT rmr_context)
{
	/* A later issue, with RMR binds. */
	return SD_ERR(DAT_NOT_IMPLEMENTED, 0);
}

DAT_RETURN DAT_API sd_ep_post_rdma_read_to_rmr(DAT_EP_HANDLE ep,
					       const DAT_RMR_TRIPLET *local,
					       DAT_DTO_COOKIE cookie,
					       const DAT_RMR_TRIPLET *remote,
					       DAT_COMPLETION_FLAGS flags)
{
	/* A later issue, with RMR binds. */
	return SD_ERR(DAT_NOT_IMPLEMENTED, 0);
}
