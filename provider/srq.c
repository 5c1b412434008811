/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared receive queues (dat_srq_*).
 *
 * An SRQ is a pool of receive slots, allocated in chunks that never move
 * (srqbuf.h: struct sd_srq_chunk): the first at creation, more when
 * dat_srq_resize grows it. Posted buffers wait in a FIFO (avail); the
 * engine, placing a SEND for an EP of the SRQ, takes the oldest (SRQ-1;
 * so each connection's messages land in the order they were sent, SRQ-4)
 * and gives it back to the free stack once its completion is posted on
 * that EP's receive EVD. Completions across EPs come in any order, so
 * slots are not a ring. The slots, the FIFO and the take and give-back
 * are srqbuf.c's (layer 3, below the connection core that calls them);
 * this file has the entry points and the engine commands.
 *
 * SRQ-6: only an EP whose connection is in its data phase takes buffers,
 * i.e. CONNECTED or DISCONNECT_PENDING: the engine reads frames (rx.c)
 * only then, and sd_srqbuf_take is called only from there. SRQ-7: a buffer
 * taken is completed exactly once, filled (rx.c) or flushed when its EP
 * becomes DISCONNECTED (post.c, sd_qp_flush); only an EP freed with it
 * gives it back unused (requeued at the front).
 *
 * Counts: "posted" buffers wait in avail; "taken" ones are held by an EP
 * until their completion; max_recv_dtos bounds posted + taken (COMMON-8:
 * DAT_INSUFFICIENT_RESOURCES past it).
 *
 * RNR: an EP that finds the FIFO empty waits on srq->waiting and its
 * engine stops reading; dat_srq_post_recv wakes the waiting EPs through
 * srq->cmd. A UD EP of the SRQ (ud.c) takes a buffer per datagram with
 * sd_srqbuf_take_dgram and gives it back once the datagram is placed and
 * completed; with none posted the datagram is lost, as on InfiniBand.
 *
 * Watermarks: the low watermark (dat_srq_set_lw) fires once per setting
 * when fewer than it are posted, at the call or when an EP takes one;
 * taking also checks the EP's high watermarks (qp.c, the callback rx.c
 * passes to sd_srqbuf_take). Both notify through
 * the async EVD (SD_EVENT_WATERMARK, qp.h).
 *
 * Locks: srq->lock nests inside ep->lock (an EP taking a buffer holds its
 * own lock); the resume command takes them in that order too, never
 * holding srq->lock while it locks an EP. Nothing here allocates under a
 * lock, and nothing on the post and take paths allocates at all.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "engine.h"
#include "entry.h"
#include "evq.h"
#include "ia.h"
#include "mem.h"
#include "obj.h"
#include "progress.h"
#include "qp.h"
#include "srqbuf.h"
#include "util.h"
#include "wire.h"
#include "wq.h"

static void srq_resume_cmd(struct sd_cmd *cmd);
static void srq_lw_cmd(struct sd_cmd *cmd);
static void srq_free_cmd(struct sd_cmd *cmd);

static void srq_destroy(struct sd_srq *srq)
{
	unsigned i;

	for (i = 0; i < srq->nchunks; i++) {
		free(srq->chunk[i].slot);
		free(srq->chunk[i].sge);
	}
	free(srq->avail);
	free(srq->free_slot);
	pthread_mutex_destroy(&srq->lock);
	free(srq);
}

/*
 * dat_srq_create. max_recv_dtos must be positive (DAT_INVALID_PARAMETER,
 * DAT_INVALID_ARG3) and within SD_MAX_RECV_PER_SRQ, max_recv_iov within
 * SD_MAX_IOV (else DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_SRQ: the
 * provider's limits, as ia_query reports them); low_watermark between 0
 * and max_recv_dtos. A low watermark above 0 is armed from creation, as
 * if set with dat_srq_set_lw, but can only fire when an EP takes a
 * buffer (nothing is posted yet).
 */
DAT_RETURN DAT_API sd_srq_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
				 DAT_SRQ_ATTR *attr, DAT_SRQ_HANDLE *out)
{
	const DAT_RETURN nomem = SD_ERR(DAT_INSUFFICIENT_RESOURCES,
					DAT_RESOURCE_MEMORY);
	struct sd_ia *ia = sd_obj_ia(ia_handle);
	struct sd_obj *o;
	struct sd_srq *srq;
	struct sd_why why;
	uint32_t i, n;

	if (ia == NULL)
		return sd_refuse_handle("srq_create", NULL, "ia_handle",
					ia_handle, SD_MAGIC_IA,
					DAT_INVALID_HANDLE_IA);
	o = sd_obj_check(pz_handle, SD_MAGIC_PZ);
	if (o == NULL || o->ia != ia)
		return sd_refuse_handle("srq_create", &ia->obj, "pz_handle",
					pz_handle, SD_MAGIC_PZ,
					DAT_INVALID_HANDLE_PZ);
	if (attr == NULL)
		return sd_refuse_null("srq_create", &ia->obj, "srq_attr",
				      DAT_INVALID_ARG3);
	if (out == NULL)
		return sd_refuse_null("srq_create", &ia->obj, "srq_handle",
				      DAT_INVALID_ARG4);
	if (!sd_api_in_range((const struct sd_api_range[]){
			{ "max_recv_dtos", attr->max_recv_dtos, 1, INT32_MAX },
			{ "max_recv_iov", attr->max_recv_iov, 0, INT32_MAX },
			{ "low_watermark", attr->low_watermark, 0,
			  attr->max_recv_dtos },
		}, 3, &why))
		return sd_refuse("srq_create", &ia->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
				 "srq_attr: %s", why.s);
	if (!sd_api_in_range((const struct sd_api_range[]){
			{ "max_recv_dtos", attr->max_recv_dtos, 1,
			  SD_MAX_RECV_PER_SRQ },
			{ "max_recv_iov", attr->max_recv_iov, 0, SD_MAX_IOV },
		}, 2, &why))
		return sd_refuse("srq_create", &ia->obj,
				 SD_ERR(DAT_INSUFFICIENT_RESOURCES,
					DAT_RESOURCE_SRQ),
				 "srq_attr: %s, the provider's limit", why.s);

	srq = calloc(1, sizeof(*srq));
	if (srq == NULL)
		return sd_refuse("srq_create", &ia->obj, nomem,
				 "no memory for the SRQ");
	pthread_mutex_init(&srq->lock, NULL);
	n = (uint32_t)attr->max_recv_dtos;
	srq->max_recv_iov = attr->max_recv_iov;
	srq->avail = calloc(n, sizeof(*srq->avail));
	srq->free_slot = calloc(n, sizeof(*srq->free_slot));
	if (srq->avail == NULL || srq->free_slot == NULL ||
	    sd_srqbuf_chunk_alloc(srq, &srq->chunk[0], 0, n) < 0) {
		srq_destroy(srq);
		return sd_refuse("srq_create", &ia->obj, nomem,
				 "no memory for %u receive slots", (unsigned)n);
	}
	srq->nchunks = 1;
	sd_obj_init(&srq->obj, ia, SD_MAGIC_SRQ, DAT_HANDLE_TYPE_SRQ);
	srq->pz = sd_container_of(o, struct sd_pz, obj);
	srq->max_recv_dtos = attr->max_recv_dtos;
	srq->low_watermark = attr->low_watermark;
	srq->lw_armed = attr->low_watermark > 0;
	srq->size = n;
	for (i = 0; i < n; i++)
		srq->free_slot[i] = n - 1 - i;
	srq->nfree = n;
	sd_list_init(&srq->waiting);
	srq->cmd.fn = srq_resume_cmd;
	srq->lw_cmd.fn = srq_lw_cmd;
	srq->free_cmd.fn = srq_free_cmd;

	pthread_mutex_lock(&ia->lock);
	srq->pz->refs++;
	sd_list_add_tail(&ia->srqs, &srq->obj.node);
	pthread_mutex_unlock(&ia->lock);
	sd_cnt_inc(ia->cnt, DCNT_IA_SRQ_CREATE);
	*out = (DAT_SRQ_HANDLE)srq;
	return DAT_SUCCESS;
}

DAT_RETURN DAT_API sd_srq_free(DAT_SRQ_HANDLE h)
{
	struct sd_srq *srq = sd_srq_from_handle(h);
	struct sd_ia *ia;

	if (srq == NULL)
		return sd_refuse_handle("srq_free", NULL, "srq_handle", h,
					SD_MAGIC_SRQ, DAT_INVALID_HANDLE_SRQ);
	ia = srq->obj.ia;
	pthread_mutex_lock(&ia->lock);
	if (srq->eps > 0) {
		unsigned eps = srq->eps;

		pthread_mutex_unlock(&ia->lock);
		return sd_refuse("srq_free", &srq->obj,
				 SD_ERR(DAT_INVALID_STATE,
					DAT_INVALID_STATE_SRQ_IN_USE),
				 "%u EPs still receive from it: free them "
				 "first", eps);
	}
	/* Counted while the SRQ is the IA's (see sd_pz_free). */
	sd_cnt_inc(ia->cnt, DCNT_IA_SRQ_FREE);
	sd_list_del(&srq->obj.node);
	srq->pz->refs--;
	srq->obj.magic = SD_MAGIC_DEAD;
	pthread_mutex_unlock(&ia->lock);
	/*
	 * A resume or low-watermark command queued while the last EP still
	 * used it may be waiting for the engine: free after them, there.
	 */
	sd_engine_submit(&srq->free_cmd);
	return DAT_SUCCESS;
}

static void srq_free_cmd(struct sd_cmd *cmd)
{
	srq_destroy(sd_container_of(cmd, struct sd_srq, free_cmd));
}

/* Posted or taken, not completed: what max_recv_dtos bounds. srq->lock. */
static uint32_t srq_outstanding(const struct sd_srq *srq)
{
	return srq->avail_count + srq->taken;
}

DAT_RETURN DAT_API sd_srq_post_recv(DAT_SRQ_HANDLE h, DAT_COUNT n,
				    DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie)
{
	struct sd_srq *srq = sd_srq_from_handle(h);
	struct sd_sge sge[SD_MAX_IOV];
	struct sd_wqe *w;
	uint64_t total;
	struct sd_why why;
	uint32_t idx;
	uint16_t k;
	bool wake;
	int r;

	if (srq == NULL)
		return sd_refuse_handle("srq_post_recv", NULL, "srq_handle", h,
					SD_MAGIC_SRQ, DAT_INVALID_HANDLE_SRQ);
	/*
	 * COMMON-1 (n == 0 needs no iov; ARG2, ARG3), SRQ-8. The SRQ always
	 * has a PZ, and LOCAL_WRITE has no read-implies-write fallback.
	 */
	r = sd_mem_resolve_iov(&why, srq->obj.ia, srq->pz, n, iov,
			       srq->max_recv_iov, DAT_MEM_PRIV_LOCAL_WRITE_FLAG,
			       sge, &k, &total);
	if (r < 0)
		return sd_refuse("srq_post_recv", &srq->obj,
				 sd_api_errno(r, &(struct sd_argpos){
					.count = DAT_INVALID_ARG2,
					.iov = DAT_INVALID_ARG3,
					.write = true }), "%s", why.s);

	pthread_mutex_lock(&srq->lock);	/* SRQ-5: any state */
	if (srq->nfree == 0 ||
	    srq_outstanding(srq) >= (uint32_t)srq->max_recv_dtos) {
		uint32_t out = srq_outstanding(srq);

		pthread_mutex_unlock(&srq->lock);
		return sd_refuse("srq_post_recv", &srq->obj,
				 SD_ERR(DAT_INSUFFICIENT_RESOURCES,
					DAT_RESOURCE_SRQ),
				 "the SRQ is full: %u receives posted or "
				 "taken, not completed (max_recv_dtos %d)",
				 (unsigned)out, (int)srq->max_recv_dtos);
	}
	idx = srq->free_slot[--srq->nfree];
	w = sd_srqbuf_slot_at(srq, idx);
	w->cookie = cookie;
	w->flags = 0;		/* SRQ-3: none of its own */
	w->op = SD_WR_RECV;
	w->status = SD_WQE_PENDING;
	w->nsge = k;
	w->len = total;
	w->done = 0;
	memcpy(w->sge, sge, k * sizeof(*sge));
	srq->avail[(srq->avail_head + srq->avail_count) % srq->size] = idx;
	srq->avail_count++;
	wake = !sd_list_empty(&srq->waiting);
	if (wake)
		sd_engine_submit(&srq->cmd);
	pthread_mutex_unlock(&srq->lock);
	return DAT_SUCCESS;
}

/*
 * dat_srq_query. available_dto_count: buffers posted and not taken yet;
 * outstanding_dto_count: those plus the ones EPs took and have not
 * completed (the provider cannot know which completions the consumer
 * has reaped). srq_state is always OPERATIONAL: an SRQ has no error
 * state here.
 */
DAT_RETURN DAT_API sd_srq_query(DAT_SRQ_HANDLE h, DAT_SRQ_PARAM_MASK mask,
				DAT_SRQ_PARAM *p)
{
	struct sd_srq *srq = sd_srq_from_handle(h);

	if (srq == NULL)
		return sd_refuse_handle("srq_query", NULL, "srq_handle", h,
					SD_MAGIC_SRQ, DAT_INVALID_HANDLE_SRQ);
	if (p == NULL)
		return sd_refuse_null("srq_query", &srq->obj, "srq_param",
				      DAT_INVALID_ARG3);
	(void)mask;
	memset(p, 0, sizeof(*p));
	pthread_mutex_lock(&srq->lock);
	p->ia_handle = sd_obj_ia_handle(srq->obj.ia);
	p->srq_state = DAT_SRQ_STATE_OPERATIONAL;
	p->pz_handle = (DAT_PZ_HANDLE)srq->pz;
	p->max_recv_dtos = srq->max_recv_dtos;
	p->max_recv_iov = srq->max_recv_iov;
	p->low_watermark = srq->low_watermark;
	p->available_dto_count = (DAT_COUNT)srq->avail_count;
	p->outstanding_dto_count = (DAT_COUNT)srq_outstanding(srq);
	pthread_mutex_unlock(&srq->lock);
	return DAT_SUCCESS;
}

/*
 * dat_srq_resize (DAT 2.0, 6.6.6). Loses no buffer: below the buffers
 * outstanding (posted or taken, not completed), or below the low
 * watermark, it is DAT_INVALID_STATE (DAT_INVALID_STATE_SRQ_IN_USE) and
 * nothing changes. Shrinking lowers the limit at once (the slots stay
 * allocated; the page allows it); growing past what is allocated adds a
 * chunk. A size of 0 or less is DAT_INVALID_PARAMETER (DAT_INVALID_ARG2),
 * beyond SD_MAX_RECV_PER_SRQ DAT_INSUFFICIENT_RESOURCES (DAT_RESOURCE_SRQ),
 * as at creation. Any thread; the engine takes buffers meanwhile.
 */
DAT_RETURN DAT_API sd_srq_resize(DAT_SRQ_HANDLE h, DAT_COUNT max)
{
	struct sd_srq *srq = sd_srq_from_handle(h);
	DAT_RETURN ret = DAT_SUCCESS;
	int r;

	if (srq == NULL)
		return sd_refuse_handle("srq_resize", NULL, "srq_handle", h,
					SD_MAGIC_SRQ, DAT_INVALID_HANDLE_SRQ);
	if (max <= 0)
		return sd_refuse("srq_resize", &srq->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				 "srq_max_recv_dto %d is not positive", (int)max);
	if (max > SD_MAX_RECV_PER_SRQ)
		return sd_refuse("srq_resize", &srq->obj,
				 SD_ERR(DAT_INSUFFICIENT_RESOURCES,
					DAT_RESOURCE_SRQ),
				 "srq_max_recv_dto %d is above the provider's "
				 "limit of %d", (int)max, SD_MAX_RECV_PER_SRQ);
	r = sd_srqbuf_grow(srq, (uint32_t)max);
	if (r < 0)
		return sd_refuse("srq_resize", &srq->obj,
				 SD_ERR(DAT_INSUFFICIENT_RESOURCES, r == -ENOMEM ?
					DAT_RESOURCE_MEMORY : DAT_RESOURCE_SRQ),
				 "cannot grow the SRQ to %d receives: %s",
				 (int)max, strerror(-r));
	pthread_mutex_lock(&srq->lock);
	if ((uint32_t)max < srq_outstanding(srq) || max < srq->low_watermark)
		ret = sd_refuse("srq_resize", &srq->obj,
				SD_ERR(DAT_INVALID_STATE,
				       DAT_INVALID_STATE_SRQ_IN_USE),
				"srq_max_recv_dto %d is below %s (%u)",
				(int)max, (uint32_t)max < srq_outstanding(srq) ?
				"the receives posted or taken" :
				"the low watermark",
				(uint32_t)max < srq_outstanding(srq) ?
				(unsigned)srq_outstanding(srq) :
				(unsigned)srq->low_watermark);
	else
		srq->max_recv_dtos = max;
	pthread_mutex_unlock(&srq->lock);
	return ret;
}

/*
 * dat_srq_set_lw (DAT 2.0, 6.6.7): sets the low watermark and arms it.
 * It fires once per setting, as SD_EVENT_WATERMARK with reason
 * DAT_SRQ_LOW_WATERMARK_EVENT and dat_handle the SRQ on the async EVD,
 * the first time fewer buffers than it are posted (available): at once,
 * from this call, if that is already so, or when an EP takes one. 0
 * (DAT_SRQ_LW_DEFAULT) never fires. Above max_recv_dtos, or negative:
 * DAT_INVALID_PARAMETER (DAT_INVALID_ARG2).
 */
DAT_RETURN DAT_API sd_srq_set_lw(DAT_SRQ_HANDLE h, DAT_COUNT lw)
{
	struct sd_srq *srq = sd_srq_from_handle(h);
	DAT_RETURN ret = DAT_SUCCESS;
	bool fire = false;

	if (srq == NULL)
		return sd_refuse_handle("srq_set_lw", NULL, "srq_handle", h,
					SD_MAGIC_SRQ, DAT_INVALID_HANDLE_SRQ);
	pthread_mutex_lock(&srq->lock);
	if (lw < 0 || lw > srq->max_recv_dtos) {
		ret = sd_refuse("srq_set_lw", &srq->obj,
				SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				"low_watermark %d is not from 0 to the SRQ's "
				"max_recv_dtos %d", (int)lw,
				(int)srq->max_recv_dtos);
	} else {
		srq->low_watermark = lw;
		srq->lw_armed = lw > 0;
		if (srq->lw_armed && srq->avail_count < (uint32_t)lw) {
			srq->lw_armed = false;
			fire = true;
		}
	}
	pthread_mutex_unlock(&srq->lock);
	if (fire)
		sd_evq_async_error(srq->obj.ia, SD_EVENT_WATERMARK,
			       (DAT_HANDLE)srq, DAT_SRQ_LOW_WATERMARK_EVENT);
	return ret;
}

/* srq->lw_cmd: an EP's take brought the SRQ below its low watermark. */
static void srq_lw_cmd(struct sd_cmd *cmd)
{
	struct sd_srq *srq = sd_container_of(cmd, struct sd_srq, lw_cmd);

	/* Its free_cmd, if any, is queued behind this one. */
	if (srq->obj.magic == SD_MAGIC_SRQ)
		sd_evq_async_error(srq->obj.ia, SD_EVENT_WATERMARK,
			       (DAT_HANDLE)srq, DAT_SRQ_LOW_WATERMARK_EVENT);
}

/* Engine: buffers were posted; let the waiting EPs take them. */
static void srq_resume_cmd(struct sd_cmd *cmd)
{
	struct sd_srq *srq = sd_container_of(cmd, struct sd_srq, cmd);

	pthread_mutex_lock(&srq->lock);
	while (srq->avail_count > 0 && !sd_list_empty(&srq->waiting)) {
		struct sd_ep *ep = sd_container_of(srq->waiting.next,
						   struct sd_ep, srq_wait.node);

		/* Off the list, so a failed take queues it at the end. */
		sd_list_del(&ep->srq_wait.node);
		ep->srq_wait.waiting = false;
		sd_qp_get(ep);
		pthread_mutex_unlock(&srq->lock);
		pthread_mutex_lock(&ep->lock);
		if (ep->rx.state == SD_RX_BUF)
			sd_progress_resume(ep);
		pthread_mutex_unlock(&ep->lock);
		sd_qp_put(ep);
		pthread_mutex_lock(&srq->lock);
	}
	pthread_mutex_unlock(&srq->lock);
}

/* ia_close (sd_obj_close), once the IA's EPs are gone. */
static void srq_close(struct sd_obj *o)
{
	sd_container_of(o, struct sd_srq, obj)->eps = 0;
	sd_srq_free((DAT_SRQ_HANDLE)o);
}

SD_OBJ_CLOSE_OP(SD_MAGIC_SRQ, srq_close)
