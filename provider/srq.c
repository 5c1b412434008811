/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared receive queues (dat_srq_*).
 *
 * An SRQ is a pool of @size receive slots allocated at creation. Posted
 * buffers wait in a FIFO (avail); the engine, placing a SEND for an EP of
 * the SRQ, takes the oldest (SRQ-1; so each connection's messages land
 * in the order they were sent, SRQ-4) and gives it back to the free stack
 * once its completion is posted on that EP's receive EVD. Completions
 * across EPs come in any order, so slots are not a ring.
 *
 * RNR: an EP that finds the FIFO empty waits on srq->waiting and its
 * engine stops reading; dat_srq_post_recv wakes the waiting EPs through
 * srq->cmd.
 *
 * Locks: srq->lock nests inside ep->lock (an EP taking a buffer holds its
 * own lock); the resume command takes them in that order too, never
 * holding srq->lock while it locks an EP.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ep.h"
#include "entry.h"

static void srq_resume_cmd(struct sd_cmd *cmd);
static void srq_free_cmd(struct sd_cmd *cmd);

DAT_RETURN DAT_API sd_srq_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
				 DAT_SRQ_ATTR *attr, DAT_SRQ_HANDLE *out)
{
	struct sd_ia *ia = sd_ia_from_handle(ia_handle);
	struct sd_obj *o;
	struct sd_srq *srq;
	uint32_t i, n;

	if (ia == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	o = sd_obj_check(pz_handle, SD_MAGIC_PZ);
	if (o == NULL || o->ia != ia)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	if (attr == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (out == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	if (attr->max_recv_dtos <= 0 || attr->max_recv_iov < 0 ||
	    attr->low_watermark < 0)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (attr->max_recv_dtos > SD_MAX_RECV_PER_SRQ ||
	    attr->max_recv_iov > SD_MAX_IOV)
		return SD_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_SRQ);

	srq = calloc(1, sizeof(*srq));
	if (srq == NULL)
		return SD_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	n = (uint32_t)attr->max_recv_dtos;
	srq->slot = calloc(n, sizeof(*srq->slot));
	srq->sge = calloc((size_t)n * (attr->max_recv_iov ? (size_t)attr->max_recv_iov : 1),
			  sizeof(*srq->sge));
	srq->avail = calloc(n, sizeof(*srq->avail));
	srq->free_slot = calloc(n, sizeof(*srq->free_slot));
	if (!srq->slot || !srq->sge || !srq->avail || !srq->free_slot) {
		free(srq->slot);
		free(srq->sge);
		free(srq->avail);
		free(srq->free_slot);
		free(srq);
		return SD_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	}
	sd_obj_init(&srq->obj, ia, SD_MAGIC_SRQ, DAT_HANDLE_TYPE_SRQ);
	pthread_mutex_init(&srq->lock, NULL);
	srq->pz = sd_container_of(o, struct sd_pz, obj);
	srq->max_recv_dtos = attr->max_recv_dtos;
	srq->max_recv_iov = attr->max_recv_iov;
	srq->low_watermark = attr->low_watermark;
	srq->size = n;
	for (i = 0; i < n; i++) {
		srq->slot[i].sge = &srq->sge[(size_t)i * (size_t)srq->max_recv_iov];
		srq->free_slot[i] = n - 1 - i;
	}
	srq->nfree = n;
	sd_list_init(&srq->waiting);
	srq->cmd.fn = srq_resume_cmd;
	srq->free_cmd.fn = srq_free_cmd;

	pthread_mutex_lock(&ia->lock);
	srq->pz->refs++;
	sd_list_add_tail(&ia->srqs, &srq->obj.node);
	pthread_mutex_unlock(&ia->lock);
	*out = (DAT_SRQ_HANDLE)srq;
	return DAT_SUCCESS;
}

DAT_RETURN DAT_API sd_srq_free(DAT_SRQ_HANDLE h)
{
	struct sd_srq *srq = sd_srq_from_handle(h);
	struct sd_ia *ia;

	if (srq == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ);
	ia = srq->obj.ia;
	pthread_mutex_lock(&ia->lock);
	if (srq->eps > 0) {
		pthread_mutex_unlock(&ia->lock);
		return SD_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_SRQ_IN_USE);
	}
	sd_list_del(&srq->obj.node);
	srq->pz->refs--;
	srq->obj.magic = SD_MAGIC_DEAD;
	pthread_mutex_unlock(&ia->lock);
	/*
	 * A resume queued by a post that raced with the last EP's free may
	 * still be waiting for the engine: free after it, on the engine.
	 */
	sd_engine_submit(&srq->free_cmd);
	return DAT_SUCCESS;
}

static void srq_free_cmd(struct sd_cmd *cmd)
{
	struct sd_srq *srq = sd_container_of(cmd, struct sd_srq, free_cmd);

	pthread_mutex_destroy(&srq->lock);
	free(srq->slot);
	free(srq->sge);
	free(srq->avail);
	free(srq->free_slot);
	free(srq);
}

DAT_RETURN DAT_API sd_srq_post_recv(DAT_SRQ_HANDLE h, DAT_COUNT n,
				    DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie)
{
	struct sd_srq *srq = sd_srq_from_handle(h);
	struct sd_sge sge[SD_MAX_IOV];
	struct sd_wqe *w;
	uint64_t total = 0;
	uint32_t idx;
	uint16_t k = 0;
	DAT_COUNT i;
	bool wake;

	if (srq == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ);
	if (n < 0 || n > srq->max_recv_iov)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (n > 0 && iov == NULL)	/* COMMON-1: n == 0 needs no iov */
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	for (i = 0; i < n; i++) {	/* SRQ-8 */
		DAT_RETURN r;

		if (iov[i].segment_length == 0)
			continue;
		r = sd_lmr_resolve_local(srq->obj.ia, srq->pz, &iov[i],
					 DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &sge[k]);
		if (r != DAT_SUCCESS)
			return r;
		total += sge[k].len;
		k++;
	}

	pthread_mutex_lock(&srq->lock);	/* SRQ-5: any state */
	if (srq->nfree == 0) {
		pthread_mutex_unlock(&srq->lock);
		return SD_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_SRQ);
	}
	idx = srq->free_slot[--srq->nfree];
	w = &srq->slot[idx];
	w->cookie = cookie;
	w->flags = 0;		/* SRQ-3: none of its own */
	w->op = SD_WR_RECV;
	w->status = SD_WQE_PENDING;
	w->nsge = k;
	w->len = total;
	w->done = 0;
	w->ep = NULL;
	memcpy(w->sge, sge, k * sizeof(*sge));
	srq->avail[(srq->avail_head + srq->avail_count) % srq->size] = idx;
	srq->avail_count++;
	wake = !sd_list_empty(&srq->waiting);
	if (wake)
		sd_engine_submit(&srq->cmd);
	pthread_mutex_unlock(&srq->lock);
	return DAT_SUCCESS;
}

DAT_RETURN DAT_API sd_srq_query(DAT_SRQ_HANDLE h, DAT_SRQ_PARAM_MASK mask,
				DAT_SRQ_PARAM *p)
{
	struct sd_srq *srq = sd_srq_from_handle(h);

	if (srq == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ);
	if (p == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	(void)mask;
	memset(p, 0, sizeof(*p));
	pthread_mutex_lock(&srq->lock);
	p->ia_handle = sd_ia_handle(srq->obj.ia);
	p->srq_state = DAT_SRQ_STATE_OPERATIONAL;
	p->pz_handle = (DAT_PZ_HANDLE)srq->pz;
	p->max_recv_dtos = srq->max_recv_dtos;
	p->max_recv_iov = srq->max_recv_iov;
	p->low_watermark = srq->low_watermark;
	p->available_dto_count = (DAT_COUNT)srq->avail_count;
	p->outstanding_dto_count = (DAT_COUNT)(srq->avail_count + srq->taken);
	pthread_mutex_unlock(&srq->lock);
	return DAT_SUCCESS;
}

DAT_RETURN DAT_API sd_srq_resize(DAT_SRQ_HANDLE h, DAT_COUNT max)
{
	/* A later issue. */
	return SD_ERR(DAT_NOT_IMPLEMENTED, 0);
}

DAT_RETURN DAT_API sd_srq_set_lw(DAT_SRQ_HANDLE h, DAT_COUNT lw)
{
	/* A later issue (srq_watermarks_supported is 0). */
	return SD_ERR(DAT_NOT_IMPLEMENTED, 0);
}

struct sd_wqe *sd_srq_take(struct sd_srq *srq, struct sd_ep *ep)
{
	struct sd_wqe *w = NULL;

	pthread_mutex_lock(&srq->lock);
	if (srq->avail_count > 0) {
		w = &srq->slot[srq->avail[srq->avail_head]];
		srq->avail_head = (srq->avail_head + 1) % srq->size;
		srq->avail_count--;
		srq->taken++;
		w->ep = ep;
		if (ep->srq_waiting) {
			sd_list_del(&ep->srq_node);
			ep->srq_waiting = false;
		}
	} else if (!ep->srq_waiting) {
		sd_list_add_tail(&srq->waiting, &ep->srq_node);
		ep->srq_waiting = true;
	}
	pthread_mutex_unlock(&srq->lock);
	return w;
}

void sd_srq_release(struct sd_srq *srq, struct sd_wqe *w, bool requeue)
{
	uint32_t idx = (uint32_t)(w - srq->slot);

	pthread_mutex_lock(&srq->lock);
	srq->taken--;
	w->ep = NULL;
	if (requeue) {
		srq->avail_head = (srq->avail_head + srq->size - 1) % srq->size;
		srq->avail[srq->avail_head] = idx;
		srq->avail_count++;
		if (!sd_list_empty(&srq->waiting))
			sd_engine_submit(&srq->cmd);
	} else {
		srq->free_slot[srq->nfree++] = idx;
	}
	pthread_mutex_unlock(&srq->lock);
}

void sd_srq_forget(struct sd_srq *srq, struct sd_ep *ep)
{
	pthread_mutex_lock(&srq->lock);
	if (ep->srq_waiting) {
		sd_list_del(&ep->srq_node);
		ep->srq_waiting = false;
	}
	pthread_mutex_unlock(&srq->lock);
}

/* Engine: buffers were posted; let the waiting EPs take them. */
static void srq_resume_cmd(struct sd_cmd *cmd)
{
	struct sd_srq *srq = sd_container_of(cmd, struct sd_srq, cmd);

	pthread_mutex_lock(&srq->lock);
	while (srq->avail_count > 0 && !sd_list_empty(&srq->waiting)) {
		struct sd_ep *ep = sd_container_of(srq->waiting.next,
						   struct sd_ep, srq_node);

		/* Off the list, so a failed take queues it at the end. */
		sd_list_del(&ep->srq_node);
		ep->srq_waiting = false;
		sd_ep_get(ep);
		pthread_mutex_unlock(&srq->lock);
		pthread_mutex_lock(&ep->lock);
		if (ep->sock != NULL && ep->rx.state == SD_RX_BUF) {
			sd_rx_progress(ep);
			if (ep->sock != NULL) {
				sd_tx_progress(ep);
				sd_sock_update(ep);
			}
		}
		pthread_mutex_unlock(&ep->lock);
		sd_ep_put(ep);
		pthread_mutex_lock(&srq->lock);
	}
	pthread_mutex_unlock(&srq->lock);
}
