/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoints: creation, parameters, the state machine, connect,
 * disconnect, reset and free (DAT 2.0, 6.5).
 *
 * The states (DAT_EP_STATE_*) and who moves an EP between them:
 *
 *   UNCONNECTED --connect--> ACTIVE_CONNECTION_PENDING --ACCEPT--> CONNECTED
 *   UNCONNECTED --cr_accept--> PASSIVE_CONNECTION_PENDING --RTU--> CONNECTED
 *   UNCONNECTED --rsp_create--> RESERVED --request--> TENTATIVE_CONNECTION_PENDING
 *   (PSP provider flag: UNCONFIGURED_TENTATIVE --ep_modify--> TENTATIVE)
 *   CONNECTED --graceful disconnect--> DISCONNECT_PENDING --peer--> DISCONNECTED
 *   any connected or pending state --error, reject, abrupt--> DISCONNECTED
 *   DISCONNECTED --ep_reset--> UNCONNECTED
 *
 * sd_ep_set_state is the only place that writes ep->state; it logs each
 * transition ("ep 0x.. CONNECTED => DISCONNECTED (peer closed)") and
 * flushes every outstanding DTO when the EP becomes DISCONNECTED.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "ep.h"
#include "entry.h"

/* Attributes of an EP created with ep_attributes NULL. */
static const DAT_EP_ATTR default_attr = {
	.service_type = DAT_SERVICE_TYPE_RC,
	.max_message_size = SD_MAX_MESSAGE_SIZE,
	.max_rdma_size = SD_MAX_RDMA_SIZE,
	.qos = DAT_QOS_BEST_EFFORT,
	.recv_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG,
	.request_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG,
	.max_recv_dtos = 256,
	.max_request_dtos = 256,
	.max_recv_iov = 8,
	.max_request_iov = 8,
	.max_rdma_read_in = 8,
	.max_rdma_read_out = 8,
	.srq_soft_hw = DAT_HW_DEFAULT,
	.max_rdma_read_iov = 8,
	.max_rdma_write_iov = 8,
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

/* The DAT_INVALID_STATE subtype of each state (dat_error.h). */
static const DAT_RETURN_SUBTYPE state_subtypes[] = {
	[DAT_EP_STATE_UNCONNECTED] = DAT_INVALID_STATE_EP_UNCONNECTED,
	[DAT_EP_STATE_UNCONFIGURED_UNCONNECTED] = DAT_INVALID_STATE_EP_UNCONFIGURED,
	[DAT_EP_STATE_RESERVED] = DAT_INVALID_STATE_EP_RESERVED,
	[DAT_EP_STATE_UNCONFIGURED_RESERVED] = DAT_INVALID_STATE_EP_UNCONFRESERVED,
	[DAT_EP_STATE_PASSIVE_CONNECTION_PENDING] = DAT_INVALID_STATE_EP_PASSCONNPENDING,
	[DAT_EP_STATE_UNCONFIGURED_PASSIVE] = DAT_INVALID_STATE_EP_UNCONFPASSIVE,
	[DAT_EP_STATE_ACTIVE_CONNECTION_PENDING] = DAT_INVALID_STATE_EP_ACTCONNPENDING,
	[DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING] = DAT_INVALID_STATE_EP_TENTCONNPENDING,
	[DAT_EP_STATE_UNCONFIGURED_TENTATIVE] = DAT_INVALID_STATE_EP_UNCONFTENTATIVE,
	[DAT_EP_STATE_CONNECTED] = DAT_INVALID_STATE_EP_CONNECTED,
	[DAT_EP_STATE_DISCONNECT_PENDING] = DAT_INVALID_STATE_EP_DISCPENDING,
	[DAT_EP_STATE_DISCONNECTED] = DAT_INVALID_STATE_EP_DISCONNECTED,
	[DAT_EP_STATE_COMPLETION_PENDING] = DAT_INVALID_STATE_EP_COMPLPENDING,
	[DAT_EP_STATE_CONNECTED_SINGLE_PATH] = DAT_INVALID_STATE_EP_CONNECTED,
	[DAT_EP_STATE_CONNECTED_MULTI_PATH] = DAT_INVALID_STATE_EP_CONNECTED,
};

const char *sd_ep_state_name(DAT_EP_STATE s)
{
	return (unsigned)s < SD_ARRAY_SIZE(state_names) && state_names[s] ?
	       state_names[s] : "?";
}

DAT_RETURN sd_ep_bad_state(const struct sd_ep *ep)
{
	DAT_EP_STATE s = ep->state;

	return SD_ERR(DAT_INVALID_STATE,
		      (unsigned)s < SD_ARRAY_SIZE(state_subtypes) ?
		      state_subtypes[s] : 0);
}

void sd_ep_set_state(struct sd_ep *ep, DAT_EP_STATE to, const char *why)
{
	DAT_EP_STATE from = ep->state;

	if (from == to)
		return;
	sd_dbg("ep %p %s => %s (%s)", (void *)ep, sd_ep_state_name(from),
	       sd_ep_state_name(to), why);
	ep->state = to;
	if (to == DAT_EP_STATE_DISCONNECTED)
		sd_ep_flush(ep);
}

void sd_ep_conn_event(struct sd_ep *ep, DAT_EVENT_NUMBER ev, bool pdata)
{
	DAT_EVENT e;

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
	sd_evd_post(ep->conn_evd, &e);
}

void sd_ep_close(struct sd_ep *ep, DAT_EVENT_NUMBER ev,
		 const struct sd_hdr *ctl, const char *why)
{
	bool was = ep->state != DAT_EP_STATE_DISCONNECTED;

	sd_sock_detach(ep, ctl);
	ep->cm_op = SD_CMOP_NONE;
	sd_ep_set_state(ep, DAT_EP_STATE_DISCONNECTED, why);
	if (was && ev != 0)
		sd_ep_conn_event(ep, ev, ev == DAT_CONNECTION_EVENT_PEER_REJECTED);
	/*
	 * An EP of an SRQ also reports, on the async EVD, that it will take
	 * no more buffers: verbs' "last WQE reached", which OFED delivers as
	 * DAT_ASYNC_ERROR_EP_BROKEN and dtestsrq waits for.
	 */
	if (was && ep->srq != NULL && !ep->freed)
		sd_ia_async_error(ep->obj.ia, DAT_ASYNC_ERROR_EP_BROKEN,
				  (DAT_HANDLE)ep);
}

void sd_ep_get(struct sd_ep *ep)
{
	atomic_fetch_add(&ep->refs, 1);
}

static void ep_destroy(struct sd_ep *ep)
{
	sd_wq_destroy(&ep->sq);
	sd_wq_destroy(&ep->rq);
	free(ep->tx.resp);
	pthread_mutex_destroy(&ep->lock);
	free(ep);
}

void sd_ep_put(struct sd_ep *ep)
{
	if (atomic_fetch_sub(&ep->refs, 1) == 1)
		ep_destroy(ep);
}

static void ep_free_cmd(struct sd_cmd *cmd)
{
	sd_ep_put(sd_container_of(cmd, struct sd_ep, free_cmd));
}

/* ------------------------------------------------------------------ */
/* Creation                                                            */

/* The EVD of @h for an EP of @ia, which must accept @flag; NULL if bad. */
static struct sd_evd *evd_arg(struct sd_ia *ia, DAT_EVD_HANDLE h,
			      DAT_EVD_FLAGS flag, bool *bad)
{
	struct sd_obj *o;
	struct sd_evd *evd;

	*bad = false;
	if (h == DAT_HANDLE_NULL)
		return NULL;
	o = sd_obj_check(h, SD_MAGIC_EVD);
	evd = o ? sd_container_of(o, struct sd_evd, obj) : NULL;
	if (evd == NULL || o->ia != ia || !(evd->flags & flag)) {
		*bad = true;
		return NULL;
	}
	return evd;
}

/* Checks a consumer's EP attributes against the limits. */
static bool attr_ok(const DAT_EP_ATTR *a, bool srq)
{
	const DAT_COMPLETION_FLAGS all = 0x3f;

	return a->service_type == DAT_SERVICE_TYPE_RC &&
	       a->max_message_size <= SD_MAX_MESSAGE_SIZE &&
	       a->max_rdma_size <= SD_MAX_RDMA_SIZE &&
	       !(a->recv_completion_flags & ~all) &&
	       !(a->request_completion_flags & ~all) &&
	       (srq || (a->max_recv_dtos >= 0 &&
			a->max_recv_dtos <= SD_MAX_DTO_PER_EP)) &&
	       a->max_request_dtos >= 0 &&
	       a->max_request_dtos <= SD_MAX_DTO_PER_EP &&
	       a->max_recv_iov >= 0 && a->max_recv_iov <= SD_MAX_IOV &&
	       a->max_request_iov >= 0 && a->max_request_iov <= SD_MAX_IOV &&
	       a->max_rdma_read_in >= 0 &&
	       a->max_rdma_read_in <= SD_MAX_RDMA_READ_PER_EP &&
	       a->max_rdma_read_out >= 0 &&
	       a->max_rdma_read_out <= SD_MAX_RDMA_READ_PER_EP &&
	       a->max_rdma_read_iov >= 0 && a->max_rdma_read_iov <= SD_MAX_IOV &&
	       a->max_rdma_write_iov >= 0 && a->max_rdma_write_iov <= SD_MAX_IOV;
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
static void attr_defaults(DAT_EP_ATTR *a)
{
	if (a->max_message_size == 0)
		a->max_message_size = SD_MAX_MESSAGE_SIZE;
	if (a->max_rdma_size == 0)
		a->max_rdma_size = SD_MAX_RDMA_SIZE;
	if (a->max_rdma_read_in == 0)
		a->max_rdma_read_in = default_attr.max_rdma_read_in;
	if (a->max_rdma_read_out == 0)
		a->max_rdma_read_out = default_attr.max_rdma_read_out;
	if (a->max_rdma_read_iov == 0)
		a->max_rdma_read_iov = a->max_request_iov;
	if (a->max_rdma_write_iov == 0)
		a->max_rdma_write_iov = a->max_request_iov;
}

static struct sd_ep *ep_new(struct sd_ia *ia, const DAT_EP_ATTR *attr,
			    struct sd_srq *srq)
{
	struct sd_ep *ep = calloc(1, sizeof(*ep));

	if (ep == NULL)
		return NULL;
	sd_obj_init(&ep->obj, ia, SD_MAGIC_EP, DAT_HANDLE_TYPE_EP);
	pthread_mutex_init(&ep->lock, NULL);
	atomic_init(&ep->refs, 1);
	ep->attr = *attr;
	attr_defaults(&ep->attr);
	ep->attr.ep_transport_specific_count = 0;
	ep->attr.ep_transport_specific = NULL;
	ep->attr.ep_provider_specific_count = 0;
	ep->attr.ep_provider_specific = NULL;
	ep->srq = srq;
	ep->state = DAT_EP_STATE_UNCONNECTED;
	ep->timeout = DAT_TIMEOUT_INFINITE;
	sd_list_init(&ep->srq_node);
	ep->cm_cmd.fn = sd_cm_connect_cmd;
	ep->io_cmd.fn = sd_ep_io_cmd;
	ep->free_cmd.fn = ep_free_cmd;
	if (ep_alloc_queues(ep) < 0) {
		pthread_mutex_destroy(&ep->lock);
		free(ep);
		return NULL;
	}
	return ep;
}

static DAT_RETURN ep_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
			    DAT_EVD_HANDLE recv_h, DAT_EVD_HANDLE req_h,
			    DAT_EVD_HANDLE conn_h, DAT_SRQ_HANDLE srq_h,
			    const DAT_EP_ATTR *attr, DAT_EP_HANDLE *out)
{
	struct sd_ia *ia = sd_ia_from_handle(ia_handle);
	struct sd_evd *recv_evd, *req_evd, *conn_evd;
	struct sd_srq *srq = NULL;
	struct sd_pz *pz = NULL;
	struct sd_ep *ep;
	bool bad;

	if (ia == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (pz_handle != DAT_HANDLE_NULL) {
		struct sd_obj *o = sd_obj_check(pz_handle, SD_MAGIC_PZ);

		if (o == NULL || o->ia != ia)
			return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
		pz = sd_container_of(o, struct sd_pz, obj);
	}
	recv_evd = evd_arg(ia, recv_h, DAT_EVD_DTO_FLAG, &bad);
	if (bad)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_RECV);
	req_evd = evd_arg(ia, req_h, DAT_EVD_DTO_FLAG, &bad);
	if (bad)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST);
	conn_evd = evd_arg(ia, conn_h, DAT_EVD_CONNECTION_FLAG, &bad);
	if (bad)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CONN);
	if (srq_h != DAT_HANDLE_NULL) {
		srq = sd_srq_from_handle(srq_h);
		if (srq == NULL || srq->obj.ia != ia)
			return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ);
	}
	if (out == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, srq ? DAT_INVALID_ARG8 :
							    DAT_INVALID_ARG7);
	if (attr == NULL)
		attr = &default_attr;
	else if (!attr_ok(attr, srq != NULL))
		return SD_ERR(DAT_INVALID_PARAMETER, srq ? DAT_INVALID_ARG7 :
							    DAT_INVALID_ARG6);

	ep = ep_new(ia, attr, srq);
	if (ep == NULL)
		return SD_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	ep->pz = pz;
	ep->recv_evd = recv_evd;
	ep->req_evd = req_evd;
	ep->conn_evd = conn_evd;

	pthread_mutex_lock(&ia->lock);
	if (pz)
		pz->refs++;
	if (recv_evd)
		recv_evd->refs++;
	if (req_evd)
		req_evd->refs++;
	if (conn_evd)
		conn_evd->refs++;
	if (srq)
		srq->eps++;
	sd_list_add_tail(&ia->eps, &ep->obj.node);
	pthread_mutex_unlock(&ia->lock);
	*out = (DAT_EP_HANDLE)ep;
	return DAT_SUCCESS;
}

DAT_RETURN DAT_API sd_ep_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
				DAT_EVD_HANDLE recv_evd, DAT_EVD_HANDLE req_evd,
				DAT_EVD_HANDLE conn_evd, const DAT_EP_ATTR *attr,
				DAT_EP_HANDLE *ep)
{
	return ep_create(ia, pz, recv_evd, req_evd, conn_evd, DAT_HANDLE_NULL,
			 attr, ep);
}

DAT_RETURN DAT_API sd_ep_create_with_srq(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
					 DAT_EVD_HANDLE recv_evd,
					 DAT_EVD_HANDLE req_evd,
					 DAT_EVD_HANDLE conn_evd,
					 DAT_SRQ_HANDLE srq,
					 const DAT_EP_ATTR *attr, DAT_EP_HANDLE *ep)
{
	if (srq == DAT_HANDLE_NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ);
	return ep_create(ia, pz, recv_evd, req_evd, conn_evd, srq, attr, ep);
}

struct sd_ep *sd_ep_create_for_psp(struct sd_ia *ia)
{
	struct sd_ep *ep = ep_new(ia, &default_attr, NULL);

	if (ep == NULL)
		return NULL;
	ep->state = DAT_EP_STATE_UNCONFIGURED_TENTATIVE;
	pthread_mutex_lock(&ia->lock);
	sd_list_add_tail(&ia->eps, &ep->obj.node);
	pthread_mutex_unlock(&ia->lock);
	return ep;
}

/* ------------------------------------------------------------------ */
/* Query and modify                                                    */

DAT_RETURN DAT_API sd_ep_query(DAT_EP_HANDLE h, DAT_EP_PARAM_MASK mask,
			       DAT_EP_PARAM *p)
{
	struct sd_ep *ep = sd_ep_from_handle(h);
	struct sd_ia *ia;

	if (ep == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (p == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	(void)mask;	/* everything is cheap: fill it all */
	ia = ep->obj.ia;
	memset(p, 0, sizeof(*p));
	pthread_mutex_lock(&ep->lock);
	p->ia_handle = sd_ia_handle(ia);
	p->ep_state = ep->state;
	p->local_ia_address_ptr = (DAT_IA_ADDRESS_PTR)&ia->addr.ss;
	p->local_port_qual = ep->local_port;
	p->remote_ia_address_ptr = (DAT_IA_ADDRESS_PTR)&ep->remote;
	p->remote_port_qual = ep->remote_port;
	p->pz_handle = (DAT_PZ_HANDLE)ep->pz;
	p->recv_evd_handle = (DAT_EVD_HANDLE)ep->recv_evd;
	p->request_evd_handle = (DAT_EVD_HANDLE)ep->req_evd;
	p->connect_evd_handle = (DAT_EVD_HANDLE)ep->conn_evd;
	p->srq_handle = (DAT_SRQ_HANDLE)ep->srq;
	p->ep_attr = ep->attr;
	pthread_mutex_unlock(&ep->lock);
	return DAT_SUCCESS;
}

/* States in which an EP may be modified: not yet connected. */
static bool modifiable(DAT_EP_STATE s)
{
	switch (s) {
	case DAT_EP_STATE_UNCONNECTED:
	case DAT_EP_STATE_UNCONFIGURED_UNCONNECTED:
	case DAT_EP_STATE_RESERVED:
	case DAT_EP_STATE_UNCONFIGURED_RESERVED:
	case DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING:
	case DAT_EP_STATE_UNCONFIGURED_TENTATIVE:
		return true;
	default:
		return false;
	}
}

/* Swaps in @from the evd reference of @slot under ia->lock. */
static void swap_ref(struct sd_evd **slot, struct sd_evd *to)
{
	if (*slot == to)
		return;
	if (*slot)
		(*slot)->refs--;
	if (to)
		to->refs++;
	*slot = to;
}

DAT_RETURN DAT_API sd_ep_modify(DAT_EP_HANDLE h, DAT_EP_PARAM_MASK mask,
				const DAT_EP_PARAM *p)
{
	const DAT_EP_PARAM_MASK fixed = DAT_EP_FIELD_IA_HANDLE |
		DAT_EP_FIELD_EP_STATE | DAT_EP_FIELD_COMM |
		DAT_EP_FIELD_LOCAL_IA_ADDRESS_PTR | DAT_EP_FIELD_LOCAL_PORT_QUAL |
		DAT_EP_FIELD_REMOTE_IA_ADDRESS_PTR |
		DAT_EP_FIELD_REMOTE_PORT_QUAL | DAT_EP_FIELD_SRQ_HANDLE |
		DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE;
	struct sd_ep *ep = sd_ep_from_handle(h);
	struct sd_evd *recv_evd, *req_evd, *conn_evd;
	struct sd_pz *pz = NULL;
	struct sd_ia *ia;
	DAT_EP_ATTR a;
	DAT_RETURN ret = DAT_SUCCESS;
	bool bad, requeue;

	if (ep == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (p == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (mask & fixed || mask & ~DAT_EP_FIELD_ALL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	ia = ep->obj.ia;
	if (mask & DAT_EP_FIELD_PZ_HANDLE && p->pz_handle != DAT_HANDLE_NULL) {
		struct sd_obj *o = sd_obj_check(p->pz_handle, SD_MAGIC_PZ);

		if (o == NULL || o->ia != ia)
			return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
		pz = sd_container_of(o, struct sd_pz, obj);
	}
	recv_evd = evd_arg(ia, p->recv_evd_handle, DAT_EVD_DTO_FLAG, &bad);
	if (bad && mask & DAT_EP_FIELD_RECV_EVD_HANDLE)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_RECV);
	req_evd = evd_arg(ia, p->request_evd_handle, DAT_EVD_DTO_FLAG, &bad);
	if (bad && mask & DAT_EP_FIELD_REQUEST_EVD_HANDLE)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST);
	conn_evd = evd_arg(ia, p->connect_evd_handle, DAT_EVD_CONNECTION_FLAG, &bad);
	if (bad && mask & DAT_EP_FIELD_CONNECT_EVD_HANDLE)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CONN);

	/* ia->lock for the references, then ep->lock (the lock order). */
	pthread_mutex_lock(&ia->lock);
	pthread_mutex_lock(&ep->lock);
	if (!modifiable(ep->state) || ep->freed) {
		ret = sd_ep_bad_state(ep);
		goto out;
	}
	a = ep->attr;
#define TAKE(bit, field) if (mask & (bit)) a.field = p->ep_attr.field
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE, max_message_size);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE, max_rdma_size);
	TAKE(DAT_EP_FIELD_EP_ATTR_QOS, qos);
	TAKE(DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS, recv_completion_flags);
	TAKE(DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS, request_completion_flags);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, max_recv_dtos);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS, max_request_dtos);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV, max_recv_iov);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV, max_request_iov);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN, max_rdma_read_in);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT, max_rdma_read_out);
	TAKE(DAT_EP_FIELD_EP_ATTR_SRQ_SOFT_HW, srq_soft_hw);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IOV, max_rdma_read_iov);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV, max_rdma_write_iov);
#undef TAKE
	attr_defaults(&a);
	if (!attr_ok(&a, ep->srq != NULL)) {
		ret = SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
		goto out;
	}
	requeue = a.max_recv_dtos != ep->attr.max_recv_dtos ||
		  a.max_request_dtos != ep->attr.max_request_dtos ||
		  a.max_recv_iov != ep->attr.max_recv_iov ||
		  req_sge(&a) != req_sge(&ep->attr) ||
		  a.max_rdma_read_in != ep->attr.max_rdma_read_in;
	if (requeue) {
		struct sd_ep tmp;

		/* Only with nothing posted: receives may be queued. */
		if (ep->sq.count > 0 || ep->rq.count > 0) {
			ret = sd_ep_bad_state(ep);
			goto out;
		}
		memset(&tmp, 0, sizeof(tmp));
		tmp.attr = a;
		tmp.srq = ep->srq;
		if (ep_alloc_queues(&tmp) < 0) {
			ret = SD_ERR(DAT_INSUFFICIENT_RESOURCES,
				     DAT_RESOURCE_MEMORY);
			goto out;
		}
		sd_wq_destroy(&ep->sq);
		sd_wq_destroy(&ep->rq);
		free(ep->tx.resp);
		ep->sq = tmp.sq;
		ep->rq = tmp.rq;
		ep->tx.resp = tmp.tx.resp;
		ep->rd_in_max = tmp.rd_in_max;
	}
	ep->attr = a;
	if (mask & DAT_EP_FIELD_PZ_HANDLE && ep->pz != pz) {
		if (ep->pz)
			ep->pz->refs--;
		if (pz)
			pz->refs++;
		ep->pz = pz;
	}
	if (mask & DAT_EP_FIELD_RECV_EVD_HANDLE)
		swap_ref(&ep->recv_evd, recv_evd);
	if (mask & DAT_EP_FIELD_REQUEST_EVD_HANDLE)
		swap_ref(&ep->req_evd, req_evd);
	if (mask & DAT_EP_FIELD_CONNECT_EVD_HANDLE)
		swap_ref(&ep->conn_evd, conn_evd);
	/* A provider-made EP is configured once it has a PZ and EVDs. */
	if (ep->state == DAT_EP_STATE_UNCONFIGURED_TENTATIVE &&
	    ep->pz && ep->conn_evd)
		sd_ep_set_state(ep, DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING,
				"configured");
out:
	pthread_mutex_unlock(&ep->lock);
	pthread_mutex_unlock(&ia->lock);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Connection management                                               */

DAT_RETURN DAT_API sd_ep_connect(DAT_EP_HANDLE h, DAT_IA_ADDRESS_PTR addr,
				 DAT_CONN_QUAL conn_qual, DAT_TIMEOUT timeout,
				 DAT_COUNT pdata_size, const DAT_PVOID pdata,
				 DAT_QOS qos, DAT_CONNECT_FLAGS flags)
{
	struct sd_ep *ep = sd_ep_from_handle(h);
	DAT_RETURN ret = DAT_SUCCESS;
	size_t alen;

	(void)qos;	/* TCP gives every QoS the same service */
	if (ep == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (addr == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (addr->sa_family == AF_INET)
		alen = sizeof(struct sockaddr_in);
	else if (addr->sa_family == AF_INET6)
		alen = sizeof(struct sockaddr_in6);
	else
		return SD_ERR(DAT_INVALID_ADDRESS, DAT_INVALID_ADDRESS_UNSUPPORTED);
	if (conn_qual > 65535)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (timeout == 0)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	if (pdata_size < 0 || pdata_size > SD_MAX_PRIVATE_DATA)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	if (pdata_size > 0 && pdata == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	if (flags & DAT_CONNECT_MULTIPATH_REQUIRED_FLAG)
		return SD_ERR(DAT_MODEL_NOT_SUPPORTED, 0);
	if (flags & ~(DAT_CONNECT_MULTIPATH_FLAG))
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG8);

	pthread_mutex_lock(&ep->lock);
	if (ep->state != DAT_EP_STATE_UNCONNECTED) {
		ret = sd_ep_bad_state(ep);
		goto out;
	}
	if (ep->pz == NULL || ep->conn_evd == NULL) {
		ret = SD_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_NOTREADY);
		goto out;
	}
	memset(&ep->remote, 0, sizeof(ep->remote));
	memcpy(&ep->remote, addr, alen);
	if (addr->sa_family == AF_INET)
		((struct sockaddr_in *)&ep->remote)->sin_port = htons((uint16_t)conn_qual);
	else
		((struct sockaddr_in6 *)&ep->remote)->sin6_port = htons((uint16_t)conn_qual);
	ep->remote_port = conn_qual;
	ep->timeout = timeout;
	ep->timed_out = false;
	ep->pdata_len = (uint16_t)pdata_size;
	if (pdata_size > 0)
		memcpy(ep->pdata, pdata, (size_t)pdata_size);
	ep->peer_pdata_len = 0;
	sd_ep_set_state(ep, DAT_EP_STATE_ACTIVE_CONNECTION_PENDING, "connect");
	ep->cm_op = SD_CMOP_CONNECT;
	sd_ep_get(ep);		/* the command's */
	sd_engine_submit(&ep->cm_cmd);
out:
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

DAT_RETURN DAT_API sd_ep_disconnect(DAT_EP_HANDLE h, DAT_CLOSE_FLAGS flags)
{
	struct sd_ep *ep = sd_ep_from_handle(h);
	DAT_RETURN ret = DAT_SUCCESS;
	struct sd_hdr disc;

	if (ep == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (flags != DAT_CLOSE_ABRUPT_FLAG && flags != DAT_CLOSE_GRACEFUL_FLAG)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);

	pthread_mutex_lock(&ep->lock);
	memset(&disc, 0, sizeof(disc));
	disc.op = SD_OP_DISCONNECT;
	disc.ack = ep->rx.executed;
	disc.tag = SD_TAG_NONE;
	switch (ep->state) {
	case DAT_EP_STATE_DISCONNECTED:
		break;		/* a no-op, as in OFED */
	case DAT_EP_STATE_ACTIVE_CONNECTION_PENDING:
	case DAT_EP_STATE_PASSIVE_CONNECTION_PENDING:
	case DAT_EP_STATE_COMPLETION_PENDING:
		sd_ep_close(ep, DAT_CONNECTION_EVENT_DISCONNECTED, NULL,
			    "disconnect while connecting");
		break;
	case DAT_EP_STATE_CONNECTED:
		if (flags == DAT_CLOSE_ABRUPT_FLAG) {
			sd_ep_close(ep, DAT_CONNECTION_EVENT_DISCONNECTED, &disc,
				    "abrupt disconnect");
			break;
		}
		/* Graceful: what is queued goes out first, then DISCONNECT. */
		sd_ep_set_state(ep, DAT_EP_STATE_DISCONNECT_PENDING,
				"graceful disconnect");
		ep->tx.disc_want = true;
		sd_tx_progress(ep);
		break;
	case DAT_EP_STATE_DISCONNECT_PENDING:
		if (flags != DAT_CLOSE_ABRUPT_FLAG) {
			ret = SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
			break;
		}
		sd_ep_close(ep, DAT_CONNECTION_EVENT_DISCONNECTED,
			    ep->tx.disc_sent ? NULL : &disc, "abrupt disconnect");
		break;
	default:
		ret = sd_ep_bad_state(ep);
		break;
	}
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

DAT_RETURN DAT_API sd_ep_reset(DAT_EP_HANDLE h)
{
	struct sd_ep *ep = sd_ep_from_handle(h);
	DAT_RETURN ret = DAT_SUCCESS;

	if (ep == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	pthread_mutex_lock(&ep->lock);
	if (ep->state == DAT_EP_STATE_DISCONNECTED) {
		sd_wire_reset(ep);
		ep->peer_pdata_len = 0;
		ep->local_port = ep->remote_port = 0;
		memset(&ep->remote, 0, sizeof(ep->remote));
		sd_ep_set_state(ep, DAT_EP_STATE_UNCONNECTED, "reset");
	} else if (ep->state != DAT_EP_STATE_UNCONNECTED) {
		ret = sd_ep_bad_state(ep);
	}
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

DAT_RETURN DAT_API sd_ep_get_status(DAT_EP_HANDLE h, DAT_EP_STATE *state,
				    DAT_BOOLEAN *recv_idle, DAT_BOOLEAN *req_idle)
{
	struct sd_ep *ep = sd_ep_from_handle(h);

	if (ep == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	pthread_mutex_lock(&ep->lock);
	if (state)
		*state = ep->state;
	if (recv_idle)
		*recv_idle = ep->rq.count == 0 ? DAT_TRUE : DAT_FALSE;
	if (req_idle)
		*req_idle = ep->sq.count == 0 ? DAT_TRUE : DAT_FALSE;
	pthread_mutex_unlock(&ep->lock);
	return DAT_SUCCESS;
}

/*
 * dat_ep_free. A connected EP is closed abruptly (the peer sees
 * DISCONNECTED); what was outstanding is discarded without completions,
 * since the handle the events would name is gone (an SRQ buffer it had
 * taken goes back to the SRQ). Not in RESERVED or while a connection is
 * being accepted on it (DAT_INVALID_STATE, as OFED).
 */
/* Frees @ep whatever its state (see sd_ep_free). ep->lock held; drops it. */
static void ep_release(struct sd_ep *ep)
{
	struct sd_ia *ia = ep->obj.ia;
	struct sd_evd *evds[3];
	struct sd_pz *pz;
	struct sd_hdr disc;
	unsigned i;

	ep->freed = true;
	evds[0] = ep->recv_evd;
	evds[1] = ep->req_evd;
	evds[2] = ep->conn_evd;
	ep->recv_evd = ep->req_evd = ep->conn_evd = NULL;
	pz = ep->pz;
	ep->pz = NULL;
	if (ep->rx.wqe != NULL && ep->rx.from_srq) {
		sd_srq_release(ep->srq, ep->rx.wqe, true);
		ep->rx.wqe = NULL;
	}
	memset(&disc, 0, sizeof(disc));
	disc.op = SD_OP_DISCONNECT;
	disc.ack = ep->rx.executed;
	disc.tag = SD_TAG_NONE;
	sd_ep_close(ep, 0, &disc, "freed");
	ep->rsp = NULL;
	ep->cr = NULL;
	ep->obj.magic = SD_MAGIC_DEAD;
	pthread_mutex_unlock(&ep->lock);

	pthread_mutex_lock(&ia->lock);
	sd_list_del(&ep->obj.node);
	for (i = 0; i < 3; i++)
		if (evds[i])
			evds[i]->refs--;
	if (pz)
		pz->refs--;
	if (ep->srq)
		ep->srq->eps--;
	pthread_mutex_unlock(&ia->lock);

	/* After every command queued for it so far: see ep.h. */
	sd_engine_submit(&ep->free_cmd);
}

/*
 * dat_ep_free. A connected EP is closed abruptly (the peer sees
 * DISCONNECTED); what was outstanding is discarded without completions,
 * since the handle the events would name is gone (an SRQ buffer it had
 * taken goes back to the SRQ). Not in RESERVED or while a connection is
 * being accepted on it (DAT_INVALID_STATE, as OFED).
 */
DAT_RETURN DAT_API sd_ep_free(DAT_EP_HANDLE h)
{
	struct sd_ep *ep = sd_ep_from_handle(h);

	if (ep == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	pthread_mutex_lock(&ep->lock);
	if (ep->state == DAT_EP_STATE_RESERVED ||
	    ep->state == DAT_EP_STATE_PASSIVE_CONNECTION_PENDING ||
	    ep->state == DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING) {
		DAT_RETURN ret = sd_ep_bad_state(ep);

		pthread_mutex_unlock(&ep->lock);
		return ret;
	}
	ep_release(ep);
	return DAT_SUCCESS;
}

/* The first object on @list of @ia, or NULL. */
static struct sd_obj *first_obj(struct sd_ia *ia, struct sd_list *list)
{
	struct sd_obj *o = NULL;

	pthread_mutex_lock(&ia->lock);
	if (!sd_list_empty(list))
		o = sd_container_of(list->next, struct sd_obj, node);
	pthread_mutex_unlock(&ia->lock);
	return o;
}

void sd_ep_destroy_all(struct sd_ia *ia)
{
	struct sd_obj *o;

	while ((o = first_obj(ia, &ia->psps)) != NULL)
		sd_psp_free((DAT_PSP_HANDLE)o);
	while ((o = first_obj(ia, &ia->rsps)) != NULL)
		sd_rsp_free((DAT_RSP_HANDLE)o);
	while ((o = first_obj(ia, &ia->crs)) != NULL)
		sd_cr_reject((DAT_CR_HANDLE)o, 0, NULL);
	while ((o = first_obj(ia, &ia->eps)) != NULL) {
		struct sd_ep *ep = sd_container_of(o, struct sd_ep, obj);

		pthread_mutex_lock(&ep->lock);
		ep_release(ep);
	}
	while ((o = first_obj(ia, &ia->srqs)) != NULL) {
		struct sd_srq *srq = sd_container_of(o, struct sd_srq, obj);

		srq->eps = 0;	/* their EPs are gone */
		sd_srq_free((DAT_SRQ_HANDLE)o);
	}
	/* Everything queued above has run: the engine is done with them. */
	sd_engine_sync();
}

/* ------------------------------------------------------------------ */
/* Not implemented yet (later issues)                                   */

DAT_RETURN DAT_API sd_ep_dup_connect(DAT_EP_HANDLE ep, DAT_EP_HANDLE dup,
				     DAT_TIMEOUT timeout, DAT_COUNT size,
				     const DAT_PVOID pdata, DAT_QOS qos)
{
	/* A later issue: connect to the peer of @dup's connection. */
	return SD_ERR(DAT_NOT_IMPLEMENTED, 0);
}

DAT_RETURN DAT_API sd_ep_common_connect(DAT_EP_HANDLE ep,
					DAT_IA_ADDRESS_PTR addr,
					DAT_TIMEOUT timeout, DAT_COUNT size,
					const DAT_PVOID pdata)
{
	/* A later issue, with the CSP. */
	return SD_ERR(DAT_NOT_IMPLEMENTED, 0);
}

DAT_RETURN DAT_API sd_ep_recv_query(DAT_EP_HANDLE ep, DAT_COUNT *nbufs,
				    DAT_COUNT *span)
{
	/* A later issue (ep_recv_info_supported is 0). */
	return SD_ERR(DAT_NOT_IMPLEMENTED, 0);
}

DAT_RETURN DAT_API sd_ep_set_watermark(DAT_EP_HANDLE ep, DAT_COUNT soft,
				       DAT_COUNT hard)
{
	/* A later issue (srq_watermarks_supported is 0). */
	return SD_ERR(DAT_NOT_IMPLEMENTED, 0);
}
