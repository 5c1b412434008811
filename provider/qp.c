/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The connection core's endpoint (the queue pair, in verbs' words): the
 * EP state machine with its one failure path, references, watermarks,
 * creation and release, and the flush of everything outstanding. The
 * DAT entry points on EPs (ep.c) validate their arguments and call down
 * here; the wire (tx.c, rx.c, cm.c, fault.c) calls sd_qp_close when a
 * connection fails, and nothing here calls an entry point.
 *
 * The states (DAT_EP_STATE_*) and who moves an EP between them:
 *
 *   UNCONNECTED --connect--> ACTIVE_CONNECTION_PENDING --ACCEPT--> CONNECTED
 *   UNCONNECTED --cr_accept--> PASSIVE_CONNECTION_PENDING --RTU--> CONNECTED
 *   UNCONNECTED --rsp_create--> RESERVED --request--> TENTATIVE_CONNECTION_PENDING
 *   (PSP provider flag: UNCONFIGURED_TENTATIVE <--ep_modify--> TENTATIVE)
 *   TENTATIVE --cr_accept--> PASSIVE_CONNECTION_PENDING
 *   TENTATIVE --cr_reject, cr_handoff--> UNCONNECTED (RSP) or freed (provider's)
 *   CONNECTED --graceful disconnect--> DISCONNECT_PENDING --peer--> DISCONNECTED
 *   any connected or pending state --error, reject, timeout, abrupt--> DISCONNECTED
 *   DISCONNECTED --ep_reset--> UNCONNECTED
 *
 * COMPLETION_PENDING is never entered: the active side is CONNECTED as
 * soon as it reads the ACCEPT and sends the RTU at once (cm.c); nor are
 * the multipath states (no multipath: DAT_CONNECT_MULTIPATH_REQUIRED_FLAG
 * is DAT_MODEL_NOT_SUPPORTED).
 *
 * sd_qp_set_state is the only place that writes ep->state (but at
 * creation); it logs each transition ("ep2 CONNECTED => DISCONNECTED
 * (peer closed)"), traces it (a `state` line, provider/TRACE.md) and
 * flushes every outstanding DTO when the EP becomes DISCONNECTED.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "evq.h"
#include "ia.h"
#include "mem.h"
#include "obj.h"
#include "progress.h"
#include "proto.h"
#include "qp.h"
#include "sock.h"
#include "srqbuf.h"
#include "trace.h"
#include "transport.h"
#include "util.h"
#include "wire.h"
#include "wq.h"

/*
 * Attributes of an EP created with ep_attributes NULL: OFED's defaults
 * (dapl_ep_util.c: 16 DTOs per queue, 4 segments, 4 reads each way), so
 * that a consumer written for OFED sizes its posts the same here, and an
 * EP costs little memory (a few KiB of queues) until the consumer asks
 * for deep ones.
 */
const DAT_EP_ATTR sd_qp_default_attr = {
	.service_type = DAT_SERVICE_TYPE_RC,
	.max_message_size = SD_MAX_MESSAGE_SIZE,
	.max_rdma_size = SD_MAX_RDMA_SIZE,
	.qos = DAT_QOS_BEST_EFFORT,
	.recv_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG,
	.request_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG,
	.max_recv_dtos = 16,
	.max_request_dtos = 16,
	.max_recv_iov = 4,
	.max_request_iov = 4,
	.max_rdma_read_in = 4,
	.max_rdma_read_out = 4,
	.srq_soft_hw = DAT_HW_DEFAULT,
	.max_rdma_read_iov = 4,
	.max_rdma_write_iov = 4,
};

static const char *const state_names[] = {
	[DAT_EP_STATE_UNCONNECTED] = "UNCONNECTED",
	[DAT_EP_STATE_UNCONFIGURED_UNCONNECTED] = "UNCONFIGURED_UNCONNECTED",
	[DAT_EP_STATE_RESERVED] = "RESERVED",
	[DAT_EP_STATE_UNCONFIGURED_RESERVED] = "UNCONFIGURED_RESERVED",
	[DAT_EP_STATE_PASSIVE_CONNECTION_PENDING] = "PASSIVE_CONNECTION_PENDING",
	[DAT_EP_STATE_UNCONFIGURED_PASSIVE] = "UNCONFIGURED_PASSIVE",
	[DAT_EP_STATE_ACTIVE_CONNECTION_PENDING] = "ACTIVE_CONNECTION_PENDING",
	[DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING] = "TENTATIVE_CONNECTION_PENDING",
	[DAT_EP_STATE_UNCONFIGURED_TENTATIVE] = "UNCONFIGURED_TENTATIVE",
	[DAT_EP_STATE_CONNECTED] = "CONNECTED",
	[DAT_EP_STATE_DISCONNECT_PENDING] = "DISCONNECT_PENDING",
	[DAT_EP_STATE_DISCONNECTED] = "DISCONNECTED",
	[DAT_EP_STATE_COMPLETION_PENDING] = "COMPLETION_PENDING",
	[DAT_EP_STATE_CONNECTED_SINGLE_PATH] = "CONNECTED_SINGLE_PATH",
	[DAT_EP_STATE_CONNECTED_MULTI_PATH] = "CONNECTED_MULTI_PATH",
};

const char *sd_qp_state_name(DAT_EP_STATE s)
{
	return (unsigned)s < SD_ARRAY_SIZE(state_names) && state_names[s] ?
	       state_names[s] : "?";
}
void sd_qp_trace_state(const struct sd_obj *obj, DAT_EP_STATE from,
		       DAT_EP_STATE to, const char *why)
{
	sd_dbg("%s %s => %s (%s)", sd_obj_name(obj).s, sd_qp_state_name(from),
	       sd_qp_state_name(to), why);
	sd_trace("state", sd_obj_name(obj).s, sd_qp_state_name(from),
		 "to=%s why=\"%s\"", sd_qp_state_name(to), why);
}

void sd_qp_set_state(struct sd_ep *ep, DAT_EP_STATE to, const char *why)
{
	DAT_EP_STATE from = ep->state;

	SD_ASSERT_HELD(&ep->lock);
	if (from == to)
		return;
	sd_qp_trace_state(&ep->obj, from, to, why);
	ep->state = to;
	if (to == DAT_EP_STATE_DISCONNECTED)
		sd_qp_flush(ep);
}

void sd_qp_conn_event(struct sd_ep *ep, DAT_EVENT_NUMBER ev, bool pdata)
{
	DAT_EVENT e;

	SD_ASSERT_HELD(&ep->lock);
	if (ep->conn_evd == NULL || ep->freed)
		return;
	memset(&e, 0, sizeof(e));
	e.event_number = ev;
	e.event_data.connect_event_data.ep_handle = (DAT_EP_HANDLE)ep;
	if (pdata && ep->peer_pdata_len > 0) {
		e.event_data.connect_event_data.private_data_size =
			ep->peer_pdata_len;
		e.event_data.connect_event_data.private_data = ep->peer_pdata;
	}
	sd_cnt_inc(ep->conn_evd->cnt, DCNT_EVD_CONN_CALLBACK);
	sd_evq_post(ep->conn_evd, &e);
}

void sd_qp_close(struct sd_ep *ep, DAT_EVENT_NUMBER ev,
		 const struct sd_hdr *ctl, const char *why)
{
	bool was = ep->state != DAT_EP_STATE_DISCONNECTED;

	SD_ASSERT_HELD(&ep->lock);
	sd_sock_detach(ep, ctl);
	ep->cm_op = SD_CMOP_NONE;
	sd_qp_set_state(ep, DAT_EP_STATE_DISCONNECTED, why);
	if (was && ev != 0)
		sd_qp_conn_event(ep, ev, ev == DAT_CONNECTION_EVENT_PEER_REJECTED);
	/*
	 * An EP of an SRQ also reports, on the async EVD, that it will take
	 * no more buffers: verbs' "last WQE reached", which OFED delivers as
	 * DAT_ASYNC_ERROR_EP_BROKEN and dtestsrq waits for.
	 */
	if (was && ep->srq != NULL && !ep->freed)
		sd_evq_async_error(ep->obj.ia, DAT_ASYNC_ERROR_EP_BROKEN,
				  (DAT_HANDLE)ep, DAT_EP_TRANSFER_TO_ERROR);
}

void sd_qp_get(struct sd_ep *ep)
{
	atomic_fetch_add(&ep->refs, 1);
}

static void ep_destroy(struct sd_ep *ep)
{
	if (ep->connect_stream != NULL)	/* never armed: any thread */
		SD_TP_DEFAULT->close(ep->connect_stream, NULL, NULL);
	sd_wq_destroy(&ep->sq);
	sd_wq_destroy(&ep->rq);
	free(ep->tx.resp);
	pthread_mutex_destroy(&ep->lock);
	free(ep);
}

void sd_qp_put(struct sd_ep *ep)
{
	if (atomic_fetch_sub(&ep->refs, 1) == 1)
		ep_destroy(ep);
}

static void ep_free_cmd(struct sd_cmd *cmd)
{
	SD_ASSERT_ENGINE();
	sd_qp_put(sd_container_of(cmd, struct sd_ep, free_cmd));
}

DAT_COUNT sd_qp_recv_count(const struct sd_ep *ep)
{
	SD_ASSERT_HELD(&ep->lock);
	/* The engine places in order: an EP holds one SRQ buffer at most. */
	if (ep->srq != NULL)
		return ep->rx.wqe != NULL && ep->rx.from_srq ? 1 : 0;
	return (DAT_COUNT)ep->rq.count;
}

/* A connection the hard watermark may break. ep->lock. */
static bool ep_connected(const struct sd_ep *ep)
{
	return ep->sock != NULL &&
	       (ep->state == DAT_EP_STATE_CONNECTED ||
		ep->state == DAT_EP_STATE_DISCONNECT_PENDING);
}

bool sd_qp_check_watermarks(struct sd_ep *ep, DAT_COUNT more)
{
	DAT_COUNT n = sd_qp_recv_count(ep) + more;
	bool hard = false;

	SD_ASSERT_HELD(&ep->lock);
	/* The soft one fires once per setting (dat_ep_set_watermark). */
	if (ep->soft_armed && n > ep->soft_hw) {
		ep->soft_armed = false;
		ep->soft_fire = true;
	}
	/* The hard one breaks the connection, while there is one. */
	if (ep->hard_armed && n > ep->hard_hw && ep_connected(ep)) {
		ep->hard_fire = true;
		hard = true;
	}
	if ((ep->soft_fire || ep->hard_fire) && !ep->wm_queued) {
		ep->wm_queued = true;
		sd_qp_get(ep);		/* the command's */
		sd_engine_submit(&ep->wm_cmd);
	}
	return hard;
}

/* ep->wm_cmd: the engine side of a watermark that fired. */
static void ep_wm_cmd(struct sd_cmd *cmd)
{
	struct sd_ep *ep = sd_container_of(cmd, struct sd_ep, wm_cmd);
	struct sd_ia *ia = ep->obj.ia;
	struct sd_hdr t;
	bool soft;

	SD_ASSERT_ENGINE();
	pthread_mutex_lock(&ep->lock);
	ep->wm_queued = false;
	soft = ep->soft_fire && !ep->freed;
	ep->soft_fire = false;
	if (ep->hard_fire && ep_connected(ep)) {
		/* The peer sees BROKEN too; nothing of its is at fault. */
		sd_tx_ctl(ep, &t, SD_OP_TERMINATE, SD_TAG_NONE,
			  SD_TERM_PROTOCOL);
		sd_qp_close(ep, DAT_CONNECTION_EVENT_BROKEN, &t,
			    "hard high watermark exceeded");
	}
	ep->hard_fire = false;
	pthread_mutex_unlock(&ep->lock);
	if (soft)
		sd_evq_async_error(ia, SD_EVENT_WATERMARK, (DAT_HANDLE)ep,
				  DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);
	sd_qp_put(ep);
}

/* Segments per request WQE: enough for a send, a write and a read. */
static uint32_t req_sge(const DAT_EP_ATTR *a)
{
	DAT_COUNT n = a->max_request_iov;

	if (a->max_rdma_read_iov > n)
		n = a->max_rdma_read_iov;
	if (a->max_rdma_write_iov > n)
		n = a->max_rdma_write_iov;
	return (uint32_t)n;
}

/* Allocates the queues of @ep for ep->attr; 0 or -ENOMEM. */
static int ep_alloc_queues(struct sd_ep *ep)
{
	const DAT_EP_ATTR *a = &ep->attr;
	uint32_t rd = a->max_rdma_read_in > 0 ? (uint32_t)a->max_rdma_read_in : 1;

	if (sd_wq_init(&ep->sq, (uint32_t)a->max_request_dtos, req_sge(a)) < 0)
		return -ENOMEM;
	if (sd_wq_init(&ep->rq, ep->srq ? 0 : (uint32_t)a->max_recv_dtos,
		       (uint32_t)a->max_recv_iov) < 0) {
		sd_wq_destroy(&ep->sq);
		return -ENOMEM;
	}
	ep->tx.resp = calloc(rd, sizeof(*ep->tx.resp));
	if (ep->tx.resp == NULL) {
		sd_wq_destroy(&ep->sq);
		sd_wq_destroy(&ep->rq);
		return -ENOMEM;
	}
	ep->rd_in_max = (uint32_t)a->max_rdma_read_in;
	return 0;
}

/*
 * Zero in these attributes means "the provider's default", as OFED reads
 * them: dtest and dapltest create EPs with max_message_size,
 * max_rdma_size, the read depths and the RDMA iov counts all 0, and then
 * send, write and read.
 */
void sd_qp_attr_defaults(DAT_EP_ATTR *a)
{
	if (a->max_message_size == 0)
		a->max_message_size = SD_MAX_MESSAGE_SIZE;
	if (a->max_rdma_size == 0)
		a->max_rdma_size = SD_MAX_RDMA_SIZE;
	if (a->max_rdma_read_in == 0)
		a->max_rdma_read_in = sd_qp_default_attr.max_rdma_read_in;
	if (a->max_rdma_read_out == 0)
		a->max_rdma_read_out = sd_qp_default_attr.max_rdma_read_out;
	if (a->max_rdma_read_iov == 0)
		a->max_rdma_read_iov = a->max_request_iov;
	if (a->max_rdma_write_iov == 0)
		a->max_rdma_write_iov = a->max_request_iov;
}

struct sd_ep *sd_qp_new(struct sd_ia *ia, const DAT_EP_ATTR *attr,
			struct sd_srq *srq)
{
	struct sd_ep *ep = calloc(1, sizeof(*ep));

	if (ep == NULL)
		return NULL;
	sd_obj_init(&ep->obj, ia, SD_MAGIC_EP, DAT_HANDLE_TYPE_EP);
	pthread_mutex_init(&ep->lock, NULL);
	atomic_init(&ep->refs, 1);
	ep->attr = *attr;
	sd_qp_attr_defaults(&ep->attr);
	ep->attr.ep_transport_specific_count = 0;
	ep->attr.ep_transport_specific = NULL;
	ep->attr.ep_provider_specific_count = 0;
	ep->attr.ep_provider_specific = NULL;
	ep->srq = srq;
	ep->state = DAT_EP_STATE_UNCONNECTED;
	ep->timeout = DAT_TIMEOUT_INFINITE;
	sd_list_init(&ep->srq_wait.node);
	ep->soft_hw = ep->hard_hw = DAT_WATERMARK_INFINITE;
	ep->cm_cmd.fn = sd_cm_connect_cmd;
	ep->io_cmd.fn = sd_progress_io_cmd;
	ep->free_cmd.fn = ep_free_cmd;
	ep->wm_cmd.fn = ep_wm_cmd;
	if (ep_alloc_queues(ep) < 0) {
		pthread_mutex_destroy(&ep->lock);
		free(ep);
		return NULL;
	}
	return ep;
}

/* A read depth the peer offered, within our limit; 0 (none) stays 0. */
static DAT_COUNT peer_depth(uint32_t v)
{
	return v > SD_MAX_RDMA_READ_PER_EP ? SD_MAX_RDMA_READ_PER_EP : (DAT_COUNT)v;
}

struct sd_ep *sd_qp_create_passive(struct sd_ia *ia, const struct sd_cm_msg *hello)
{
	DAT_EP_ATTR a = sd_qp_default_attr;
	struct sd_ep *ep;

	SD_ASSERT_ENGINE();
	/* We serve the reads it issues and issue at most what it serves. */
	if (hello->rd_out > 0)
		a.max_rdma_read_in = peer_depth(hello->rd_out);
	if (hello->rd_in > 0)
		a.max_rdma_read_out = peer_depth(hello->rd_in);
	ep = sd_qp_new(ia, &a, NULL);
	if (ep == NULL)
		return NULL;
	ep->state = DAT_EP_STATE_UNCONFIGURED_TENTATIVE;
	pthread_mutex_lock(&ia->lock);
	sd_list_add_tail(&ia->eps, &ep->obj.node);
	sd_cnt_inc(ia->cnt, DCNT_IA_EP_CREATE);
	pthread_mutex_unlock(&ia->lock);
	return ep;
}

/*
 * Frees @ep whatever its state: dat_ep_free for the states it allows,
 * sd_qp_destroy, ia_close. A connected EP is closed abruptly (the peer
 * sees DISCONNECTED); what was outstanding is discarded without
 * completions, since the handle the events would name is gone (DAT:
 * "the Consumer must be ready for all completions that are not dequeued
 * yet either still being on the ... EVDs or not being there"); an SRQ
 * buffer it had taken goes back to the SRQ. ep->lock held; drops it.
 */
void sd_qp_unref(struct sd_obj *obj, struct sd_evd *const evds[3],
		 struct sd_pz *pz, struct sd_srq *srq)
{
	struct sd_ia *ia = obj->ia;
	unsigned i;

	pthread_mutex_lock(&ia->lock);
	/* Counted while the EP is the IA's (see sd_pz_free). */
	sd_cnt_inc(ia->cnt, DCNT_IA_EP_FREE);
	sd_list_del(&obj->node);
	for (i = 0; i < 3; i++)
		if (evds[i])
			evds[i]->refs--;
	if (pz)
		pz->refs--;
	if (srq)
		srq->eps--;
	pthread_mutex_unlock(&ia->lock);
}

void sd_qp_release(struct sd_ep *ep)
{
	struct sd_evd *evds[3];
	struct sd_pz *pz;
	struct sd_hdr disc;

	SD_ASSERT_HELD(&ep->lock);
	ep->freed = true;
	evds[0] = ep->recv_evd;
	evds[1] = ep->req_evd;
	evds[2] = ep->conn_evd;
	ep->recv_evd = ep->req_evd = ep->conn_evd = NULL;
	sd_progress_relink(ep);
	pz = ep->pz;
	ep->pz = NULL;
	if (ep->rx.wqe != NULL && ep->rx.from_srq) {
		sd_srqbuf_release(ep->srq, ep->rx.wqe, true);
		ep->rx.wqe = NULL;
	}
	sd_tx_ctl(ep, &disc, SD_OP_DISCONNECT, SD_TAG_NONE, 0);
	sd_qp_close(ep, 0, &disc, "freed");
	ep->rsp = NULL;
	ep->cr = NULL;
	ep->obj.magic = SD_MAGIC_DEAD;
	pthread_mutex_unlock(&ep->lock);

	sd_qp_unref(&ep->obj, evds, pz, ep->srq);

	/* After every command queued for it so far: see qp.h. */
	sd_engine_submit(&ep->free_cmd);
}

void sd_qp_destroy(struct sd_ep *ep)
{
	pthread_mutex_lock(&ep->lock);
	if (ep->obj.magic != SD_MAGIC_EP) {
		pthread_mutex_unlock(&ep->lock);	/* already freed */
		return;
	}
	sd_qp_release(ep);
}

void sd_qp_flush(struct sd_ep *ep)
{
	struct sd_wqe *w;

	SD_ASSERT_HELD(&ep->lock);
	/* Requests: errors found by the wire keep their status. */
	while ((w = sd_wq_at(&ep->sq, 0)) != NULL) {
		struct sd_wqe c = *w;
		DAT_DTO_COMPLETION_STATUS st = c.status == SD_WQE_PENDING ?
			DAT_DTO_ERR_FLUSHED : c.status;

		sd_wq_pop(&ep->sq);
		/* A bind that never took effect gives back its reservation. */
		if (c.op == SD_WR_BIND && c.status == SD_WQE_PENDING)
			sd_mem_bind_abort(&c.x.bind);
		sd_complete_dto(ep, &c, false, st, c.len);
	}
	ep->tx.next = 0;
	ep->tx.rd_out = 0;
	sd_tx_drop_frames(ep);	/* detached already: nothing is mid-frame */
	/* SRQ-7: the buffer taken from the SRQ, not filled by a message. */
	if (ep->rx.wqe != NULL && ep->rx.from_srq) {
		struct sd_wqe c = *ep->rx.wqe;

		sd_srqbuf_release(ep->srq, ep->rx.wqe, false);
		sd_complete_dto(ep, &c, true, DAT_DTO_ERR_FLUSHED, 0);
	}
	ep->rx.wqe = NULL;
	ep->rx.from_srq = false;
	while ((w = sd_wq_at(&ep->rq, 0)) != NULL) {
		struct sd_wqe c = *w;

		sd_wq_pop(&ep->rq);
		sd_complete_dto(ep, &c, true, DAT_DTO_ERR_FLUSHED, 0);
	}
}

int sd_qp_resize(struct sd_ep *ep, const DAT_EP_ATTR *a)
{
	struct sd_ep tmp;

	SD_ASSERT_HELD(&ep->lock);
	if (a->max_recv_dtos == ep->attr.max_recv_dtos &&
	    a->max_request_dtos == ep->attr.max_request_dtos &&
	    a->max_recv_iov == ep->attr.max_recv_iov &&
	    req_sge(a) == req_sge(&ep->attr) &&
	    a->max_rdma_read_in == ep->attr.max_rdma_read_in)
		return 0;
	if (ep->sq.count > 0 || ep->rq.count > 0)
		return -EBUSY;
	memset(&tmp, 0, sizeof(tmp));
	tmp.attr = *a;
	tmp.srq = ep->srq;
	if (ep_alloc_queues(&tmp) < 0)
		return -ENOMEM;
	sd_wq_destroy(&ep->sq);
	sd_wq_destroy(&ep->rq);
	free(ep->tx.resp);
	ep->sq = tmp.sq;
	ep->rq = tmp.rq;
	ep->tx.resp = tmp.tx.resp;
	ep->rd_in_max = tmp.rd_in_max;
	return 0;
}

/* A post on a DISCONNECTED EP: flushed at once, no slot needed. */
void sd_qp_flush_one(struct sd_ep *ep, const struct sd_wqe *tmpl)
{
	struct sd_wqe w = *tmpl;

	SD_ASSERT_HELD(&ep->lock);
	sd_complete_dto(ep, &w, w.op == SD_WR_RECV, DAT_DTO_ERR_FLUSHED, 0);
}

int sd_qp_post_bind(struct sd_ep *ep, const struct sd_bind *b,
		    DAT_RMR_COOKIE cookie, DAT_COMPLETION_FLAGS flags,
		    DAT_RMR_CONTEXT *ctx, DAT_EP_STATE *state)
{
	struct sd_wqe *w, tmpl;
	int ret = 0;

	memset(&tmpl, 0, sizeof(tmpl));
	tmpl.cookie = cookie;
	tmpl.flags = flags;
	tmpl.op = SD_WR_BIND;
	tmpl.status = SD_WQE_PENDING;
	tmpl.x.bind = *b;

	pthread_mutex_lock(&ep->lock);
	if (ep->pz != b->rmr->pz) {
		ret = -EXDEV;
		goto out;
	}
	if (ep->state == DAT_EP_STATE_DISCONNECTED) {
		*ctx = 0;		/* dat_rmr_bind(3): flushed at once */
		sd_qp_flush_one(ep, &tmpl);
		goto out;
	}
	if (ep->state != DAT_EP_STATE_CONNECTED) {
		*state = ep->state;
		ret = -ENOTCONN;
		goto out;
	}
	w = sd_wq_next(&ep->sq);
	if (w == NULL) {
		ret = -ENOBUFS;
		goto out;
	}
	ret = sd_mem_bind_reserve(&tmpl.x.bind);
	if (ret < 0)
		goto out;
	{
		struct sd_sge *slots = w->sge;

		*w = tmpl;
		w->sge = slots;
	}
	sd_wq_push(&ep->sq);
	*ctx = tmpl.x.bind.ctx;
	sd_tx_progress(ep);
out:
	pthread_mutex_unlock(&ep->lock);
	return ret;
}
