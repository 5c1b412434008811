/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The EP entry points: creation, parameters, connect (and
 * dup_connect, common_connect), disconnect, reset, free, the receive
 * query and the watermarks (DAT 2.0, 6.5).
 *
 * Which call is valid where (each refusal is DAT_INVALID_STATE with the
 * subtype of the state, sd_api_state_err):
 *
 *   connect, dup_connect, common_connect   UNCONNECTED
 *   disconnect     CONNECTED, DISCONNECT_PENDING (graceful: no effect),
 *                  ACTIVE_CONNECTION_PENDING and COMPLETION_PENDING
 *                  (abort), DISCONNECTED (no-op); "disallowed" in the
 *                  others
 *   reset          DISCONNECTED, UNCONNECTED (no-op)
 *   modify         see sd_ep_modify
 *   free           all but RESERVED, PASSIVE_ and TENTATIVE_CONNECTION_
 *                  PENDING and their UNCONFIGURED_ variants
 *   query, get_status, recv_query, set_watermark, post_recv: all
 *   the request posts (post.c): CONNECTED and DISCONNECTED (SEND-4)
 *
 * The state machine itself, creation, release and the flush live below
 * in the connection core (qp.c); these entry points check arguments and
 * states and call down.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "api.h"
#include "engine.h"
#include "entry.h"
#include "evq.h"
#include "ia.h"
#include "mem.h"
#include "obj.h"
#include "progress.h"
#include "proto.h"
#include "qp.h"
#include "sock.h"
#include "srqbuf.h"
#include "transport.h"
#include "util.h"
#include "wire.h"
#include "wq.h"

/* ------------------------------------------------------------------ */
/* Creation                                                            */

/*
 * Checks a consumer's EP attributes against the limits; when they break
 * one, says which in @why (debugging on: sd_api_in_range). An EP of an
 * SRQ (@srq) has no receive queue of its own: its max_recv_dtos is not
 * looked at.
 */
static bool attr_ok(const DAT_EP_ATTR *a, bool srq, struct sd_why *why)
{
	const DAT_COMPLETION_FLAGS all = SD_COMPLETION_FLAGS_ALL;
	const struct sd_api_range r[] = {
		{ "max_message_size", (long long)a->max_message_size, 0,
		  SD_MAX_MESSAGE_SIZE },
		{ "max_rdma_size", (long long)a->max_rdma_size, 0,
		  SD_MAX_RDMA_SIZE },
		{ "max_recv_dtos", srq ? 0 : a->max_recv_dtos, 0,
		  SD_MAX_DTO_PER_EP },
		{ "max_request_dtos", a->max_request_dtos, 0, SD_MAX_DTO_PER_EP },
		{ "max_recv_iov", a->max_recv_iov, 0, SD_MAX_IOV },
		{ "max_request_iov", a->max_request_iov, 0, SD_MAX_IOV },
		{ "max_rdma_read_in", a->max_rdma_read_in, 0,
		  SD_MAX_RDMA_READ_PER_EP },
		{ "max_rdma_read_out", a->max_rdma_read_out, 0,
		  SD_MAX_RDMA_READ_PER_EP },
		{ "max_rdma_read_iov", a->max_rdma_read_iov, 0, SD_MAX_IOV },
		{ "max_rdma_write_iov", a->max_rdma_write_iov, 0, SD_MAX_IOV },
		{ "srq_soft_hw",
		  a->srq_soft_hw == DAT_WATERMARK_INFINITE ? 0 :
		  a->srq_soft_hw, 0, INT32_MAX },
	};

	if (a->service_type != DAT_SERVICE_TYPE_RC) {
		if (SD_REFUSING())
			sd_why_set(why, "service_type %u is not "
				   "DAT_SERVICE_TYPE_RC", (unsigned)a->service_type);
		return false;
	}
	if ((a->recv_completion_flags | a->request_completion_flags) & ~all) {
		if (SD_REFUSING())
			sd_why_set(why, "%s 0x%x has bits DAT 2.0 does not "
				   "define", a->recv_completion_flags & ~all ?
				   "recv_completion_flags" :
				   "request_completion_flags",
				   (unsigned)(a->recv_completion_flags & ~all ?
					      a->recv_completion_flags :
					      a->request_completion_flags));
		return false;
	}
	return sd_api_in_range(r, SD_ARRAY_SIZE(r), why);
}

static DAT_RETURN ep_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
			    DAT_EVD_HANDLE recv_h, DAT_EVD_HANDLE req_h,
			    DAT_EVD_HANDLE conn_h, DAT_SRQ_HANDLE srq_h,
			    const DAT_EP_ATTR *attr, DAT_EP_HANDLE *out)
{
	const char *call = srq_h != DAT_HANDLE_NULL ? "ep_create_with_srq" :
						      "ep_create";
	struct sd_ia *ia = sd_obj_ia(ia_handle);
	struct sd_evd *recv_evd, *req_evd, *conn_evd;
	struct sd_srq *srq = NULL;
	struct sd_pz *pz = NULL;
	struct sd_why why;
	struct sd_ep *ep;
	DAT_RETURN ret;

	if (ia == NULL)
		return sd_refuse_handle(call, NULL, "ia_handle", ia_handle,
					SD_MAGIC_IA, DAT_INVALID_HANDLE_IA);
	ret = sd_api_pz_arg(call, &ia->obj, ia, pz_handle, &pz);
	if (ret != DAT_SUCCESS)
		return ret;
	/*
	 * The EVDs may belong to another IA of this provider: OFED accepts
	 * that, and dapltest's limit tests share one EVD among the EPs of
	 * several IAs.
	 */
	ret = sd_api_ep_evds(call, &ia->obj, false, recv_h, req_h, conn_h, NULL,
			     &recv_evd, &req_evd, &conn_evd);
	if (ret != DAT_SUCCESS)
		return ret;
	if (srq_h != DAT_HANDLE_NULL) {
		srq = sd_srq_from_handle(srq_h);
		if (srq == NULL || srq->obj.ia != ia)
			return sd_refuse_handle(call, &ia->obj, "srq_handle",
						srq_h, SD_MAGIC_SRQ,
						DAT_INVALID_HANDLE_SRQ);
	}
	if (out == NULL)
		return sd_refuse_null(call, &ia->obj, "ep_handle",
				      srq ? DAT_INVALID_ARG8 : DAT_INVALID_ARG7);
	if (attr == NULL)
		attr = &sd_qp_default_attr;
	else if (!attr_ok(attr, srq != NULL, &why))
		return sd_refuse(call, &ia->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, srq ?
					DAT_INVALID_ARG7 : DAT_INVALID_ARG6),
				 "ep_attr: %s", why.s);

	ep = sd_qp_new(ia, attr, srq);
	if (ep == NULL)
		return sd_refuse(call, &ia->obj, SD_ERR(DAT_INSUFFICIENT_RESOURCES,
							DAT_RESOURCE_MEMORY),
				 "no memory for the EP and its queues");
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
	sd_cnt_inc(ia->cnt, DCNT_IA_EP_CREATE);
	pthread_mutex_lock(&ep->lock);
	sd_progress_relink(ep);
	pthread_mutex_unlock(&ep->lock);
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
		return sd_refuse_handle("ep_create_with_srq", NULL, "srq_handle",
					srq, SD_MAGIC_SRQ,
					DAT_INVALID_HANDLE_SRQ);
	return ep_create(ia, pz, recv_evd, req_evd, conn_evd, srq, attr, ep);
}

/* ------------------------------------------------------------------ */
/* Query and modify                                                    */

/*
 * dat_ep_query's provider-specific attribute: while the EP is connected,
 * SOFTDAPL_TRANSPORT says what its connection uses, "tcp" or "shm"
 * (shared memory on one host, shm.c); not there otherwise, so that a
 * query's attributes can always be given back to dat_ep_modify.
 */
static const DAT_NAMED_ATTR ep_transport[] = {
	{ "SOFTDAPL_TRANSPORT", "tcp" },
	{ "SOFTDAPL_TRANSPORT", "shm" },
};

DAT_RETURN DAT_API sd_ep_query(DAT_EP_HANDLE h, DAT_EP_PARAM_MASK mask,
			       DAT_EP_PARAM *p)
{
	struct sd_ep *ep = sd_ep_from_handle(h);
	struct sd_ia *ia;

	if (ep == NULL)
		return sd_refuse_handle("ep_query", NULL, "ep_handle", h,
					SD_MAGIC_EP, DAT_INVALID_HANDLE_EP);
	if (p == NULL)
		return sd_refuse_null("ep_query", &ep->obj, "ep_param",
				      DAT_INVALID_ARG3);
	(void)mask;	/* everything is cheap: fill it all */
	ia = ep->obj.ia;
	memset(p, 0, sizeof(*p));
	pthread_mutex_lock(&ep->lock);
	p->ia_handle = sd_obj_ia_handle(ia);
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
	/* What the connection moves its bytes with, while it has one. */
	if (ep->sock != NULL && ep->sock->phase == SD_SK_DATA) {
		p->ep_attr.ep_provider_specific_count = 1;
		p->ep_attr.ep_provider_specific = (DAT_NAMED_ATTR *)(uintptr_t)
			(ep->sock->tp == &sd_shm && sd_shm_is_ring(ep->sock->stream) ?
			 &ep_transport[1] : &ep_transport[0]);
	}
	pthread_mutex_unlock(&ep->lock);
	return DAT_SUCCESS;
}

/*
 * dat_ep_modify: what may change in which state (DAT 2.0, dat_ep_modify).
 *
 *   - The PZ only in the quiescent states, UNCONNECTED and
 *     TENTATIVE_CONNECTION_PENDING (and their UNCONFIGURED_ variants).
 *   - The EVDs, the service type and every other attribute "only prior to
 *     a request for a connection for an Active side or prior to accepting
 *     a Connection Request for a Passive side": the quiescent states and
 *     RESERVED. The page's list also names PASSIVE_CONNECTION_PENDING,
 *     but an EP is in that state only once dat_cr_accept has sent its
 *     attributes to the peer: refused there, as after connect.
 *   - The receive completion flags only with no receive posted ("but
 *     before posting of any Recvs").
 *   - Transport- and provider-specific attributes: softdapl has none, so
 *     only a count of 0 is valid, and only in UNCONNECTED.
 *   - The IA, state, communicator, addresses, port qualifiers and SRQ
 *     "cannot be modified": DAT_INVALID_PARAMETER (DAT_INVALID_ARG2).
 *
 * Arguments are checked before the state (DAT_INVALID_HANDLE,
 * DAT_INVALID_PARAMETER, then DAT_INVALID_STATE with the state's subtype).
 * A change of queue depths or segment counts reallocates the EP's
 * queues, which is refused (DAT_INVALID_STATE) while DTOs are posted.
 */
static bool quiescent(DAT_EP_STATE s)
{
	return s == DAT_EP_STATE_UNCONNECTED ||
	       s == DAT_EP_STATE_UNCONFIGURED_UNCONNECTED ||
	       s == DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING ||
	       s == DAT_EP_STATE_UNCONFIGURED_TENTATIVE;
}

static bool before_connect(DAT_EP_STATE s)
{
	return quiescent(s) || s == DAT_EP_STATE_RESERVED ||
	       s == DAT_EP_STATE_UNCONFIGURED_RESERVED;
}

#define EP_FIELDS_SPECIFIC (DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR | \
	DAT_EP_FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR | \
	DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR | \
	DAT_EP_FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR)

DAT_RETURN DAT_API sd_ep_modify(DAT_EP_HANDLE h, DAT_EP_PARAM_MASK mask,
				const DAT_EP_PARAM *p)
{
	struct sd_ep *ep = sd_ep_from_handle(h);
	struct sd_evd *recv_evd, *req_evd, *conn_evd;
	struct sd_why why;
	struct sd_pz *pz;
	struct sd_ia *ia;
	DAT_EP_ATTR a;
	DAT_RETURN ret;

	if (ep == NULL)
		return sd_refuse_handle("ep_modify", NULL, "ep_handle", h,
					SD_MAGIC_EP, DAT_INVALID_HANDLE_EP);
	ia = ep->obj.ia;
	ret = sd_api_modify_args(&ep->obj, mask, p, &pz);
	if (ret != DAT_SUCCESS)
		return ret;
	/* EVDs of another IA will do, as at creation (ep_create). */
	ret = sd_api_modify_evds(&ep->obj, mask, p, NULL, &recv_evd, &req_evd,
				 &conn_evd);
	if (ret != DAT_SUCCESS)
		return ret;
	ret = sd_api_modify_attr_check(&ep->obj, mask, &p->ep_attr,
				       DAT_SERVICE_TYPE_RC);
	if (ret != DAT_SUCCESS)
		return ret;

	/* ia->lock for the references, then ep->lock (the lock order). */
	pthread_mutex_lock(&ia->lock);
	pthread_mutex_lock(&ep->lock);
	a = ep->attr;
	sd_api_attr_take(&a, mask, &p->ep_attr);
	sd_qp_attr_defaults(&a);
	if (!attr_ok(&a, ep->srq != NULL, &why)) {
		ret = sd_refuse("ep_modify", &ep->obj,
				SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
				"ep_param.ep_attr: %s", why.s);
		goto out;
	}

	/* The state each field needs. */
	if (ep->freed) {
		ret = sd_refuse("ep_modify", &ep->obj,
				sd_api_state_err(ep->state),
				"the EP is being freed");
		goto out;
	}
	if (!before_connect(ep->state)) {
		ret = sd_api_bad_state("ep_modify", &ep->obj, ep->state,
				       "UNCONNECTED, RESERVED or "
				       "TENTATIVE_CONNECTION_PENDING (before "
				       "a connection is asked for or accepted)");
		goto out;
	}
	if (mask & DAT_EP_FIELD_PZ_HANDLE && !quiescent(ep->state)) {
		ret = sd_api_bad_state("ep_modify", &ep->obj, ep->state,
				       "UNCONNECTED or "
				       "TENTATIVE_CONNECTION_PENDING to change "
				       "the PZ");
		goto out;
	}
	if (mask & EP_FIELDS_SPECIFIC &&
	    ep->state != DAT_EP_STATE_UNCONNECTED &&
	    ep->state != DAT_EP_STATE_UNCONFIGURED_UNCONNECTED) {
		ret = sd_api_bad_state("ep_modify", &ep->obj, ep->state,
				       "UNCONNECTED to change the specific "
				       "attributes");
		goto out;
	}
	if (a.recv_completion_flags != ep->attr.recv_completion_flags &&
	    ep->rq.count > 0) {
		ret = sd_refuse("ep_modify", &ep->obj,
				sd_api_state_err(ep->state),
				"recv_completion_flags cannot change with %u "
				"receives posted", (unsigned)ep->rq.count);
		goto out;
	}
	switch (sd_qp_resize(ep, &a)) {
	case 0:
		break;
	case -EBUSY:	/* only with nothing posted: receives may be queued */
		ret = sd_refuse("ep_modify", &ep->obj,
				sd_api_state_err(ep->state),
				"the queue depths or segment counts cannot "
				"change with DTOs posted (%u receives, %u "
				"requests)", (unsigned)ep->rq.count,
				(unsigned)ep->sq.count);
		goto out;
	default:
		ret = sd_refuse("ep_modify", &ep->obj,
				SD_ERR(DAT_INSUFFICIENT_RESOURCES,
				       DAT_RESOURCE_MEMORY),
				"no memory for the resized queues");
		goto out;
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
		sd_api_swap_ref(&ep->recv_evd, recv_evd);
	if (mask & DAT_EP_FIELD_REQUEST_EVD_HANDLE)
		sd_api_swap_ref(&ep->req_evd, req_evd);
	if (mask & DAT_EP_FIELD_CONNECT_EVD_HANDLE)
		sd_api_swap_ref(&ep->conn_evd, conn_evd);
	sd_progress_relink(ep);
	/*
	 * A provider-made EP (PSP with DAT_PSP_PROVIDER_FLAG) is configured
	 * once it has a PZ and a connection EVD, and unconfigured again if it
	 * loses either before the accept.
	 */
	if (ep->state == DAT_EP_STATE_UNCONFIGURED_TENTATIVE &&
	    ep->pz && ep->conn_evd)
		sd_qp_set_state(ep, DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING,
				"configured");
	else if (ep->state == DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING &&
		 ep->rsp == NULL && !(ep->pz && ep->conn_evd))
		sd_qp_set_state(ep, DAT_EP_STATE_UNCONFIGURED_TENTATIVE,
				"unconfigured");
out:
	pthread_mutex_unlock(&ep->lock);
	pthread_mutex_unlock(&ia->lock);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Connection management                                               */

/*
 * Checks a peer address given by the consumer (DAT 2.0 dat_ep_connect:
 * "if the Provider can locally determine that the remote_ia_address is
 * invalid ... DAT_INVALID_ADDRESS"). An IPv4 or IPv6 socket address
 * whose host is a unicast one: the unspecified address names no host
 * (_MALFORMED), a multicast or broadcast one no IA (_UNSUPPORTED). Copies
 * it into @ss and returns DAT_SUCCESS.
 */
static DAT_RETURN remote_addr(const char *call, const struct sd_ep *ep,
			      const struct sockaddr *sa,
			      struct sockaddr_storage *ss)
{
	const DAT_RETURN malformed = SD_ERR(DAT_INVALID_ADDRESS,
					    DAT_INVALID_ADDRESS_MALFORMED);
	const DAT_RETURN unsupported = SD_ERR(DAT_INVALID_ADDRESS,
					      DAT_INVALID_ADDRESS_UNSUPPORTED);

	memset(ss, 0, sizeof(*ss));
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)sa;
		uint32_t a = ntohl(sin->sin_addr.s_addr);

		if (a == INADDR_ANY)
			return sd_refuse(call, &ep->obj, malformed,
					 "remote_ia_address 0.0.0.0 names no "
					 "host");
		if (IN_MULTICAST(a) || a == INADDR_BROADCAST)
			return sd_refuse(call, &ep->obj, unsupported,
					 "remote_ia_address 0x%08x is a "
					 "multicast or broadcast address",
					 (unsigned)a);
		memcpy(ss, sin, sizeof(*sin));
		return DAT_SUCCESS;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)sa;

		if (IN6_IS_ADDR_UNSPECIFIED(&sin6->sin6_addr))
			return sd_refuse(call, &ep->obj, malformed,
					 "remote_ia_address :: names no host");
		if (IN6_IS_ADDR_MULTICAST(&sin6->sin6_addr))
			return sd_refuse(call, &ep->obj, unsupported,
					 "remote_ia_address is an IPv6 "
					 "multicast address");
		memcpy(ss, sin6, sizeof(*sin6));
		return DAT_SUCCESS;
	}
	return sd_refuse(call, &ep->obj, unsupported, "remote_ia_address has "
			 "address family %u, neither AF_INET nor AF_INET6",
			 (unsigned)sa->sa_family);
}

/* The port of an IPv4 or IPv6 socket address. */
static DAT_CONN_QUAL addr_port(const struct sockaddr_storage *ss)
{
	return ntohs(ss->ss_family == AF_INET6 ?
		     ((const struct sockaddr_in6 *)ss)->sin6_port :
		     ((const struct sockaddr_in *)ss)->sin_port);
}

/*
 * The active side of every connect call: @ep (ep->lock held) asks the
 * service point at @remote, port @conn_qual, for a connection. Valid only
 * in UNCONNECTED (DAT_INVALID_STATE with the state's subtype), and only
 * with a PZ and a connection EVD (DAT_INVALID_STATE_EP_NOTREADY). The
 * request leaves from this thread when it can (sd_cm_connect_now), the
 * engine does the rest (cm.c); the EP is ACTIVE_CONNECTION_PENDING when
 * this returns DAT_SUCCESS.
 */
static DAT_RETURN ep_start_connect(const char *call, struct sd_ep *ep,
				   const struct sockaddr_storage *remote,
				   DAT_CONN_QUAL conn_qual, DAT_TIMEOUT timeout,
				   DAT_COUNT pdata_size, const void *pdata)
{
	struct sockaddr_storage was;
	int r;

	if (ep->state != DAT_EP_STATE_UNCONNECTED)
		return sd_api_bad_state(call, &ep->obj, ep->state,
					"UNCONNECTED");
	if (ep->freed)
		return sd_refuse(call, &ep->obj, sd_api_state_err(ep->state),
				 "the EP is being freed");
	if (ep->pz == NULL || ep->conn_evd == NULL)
		return sd_refuse(call, &ep->obj,
				 SD_ERR(DAT_INVALID_STATE,
					DAT_INVALID_STATE_EP_NOTREADY),
				 "the EP has no %s", ep->pz == NULL ? "PZ" :
				 "connection EVD");
	/*
	 * The stream now, on the caller's thread, so that a process out of
	 * descriptors (or memory) hears it from this call, as from OFED's
	 * socket CM, rather than as a connection event. The engine's
	 * connect command takes it (cm.c); one an earlier attempt left,
	 * ended before the engine came to it, goes. Any other error is
	 * left for the engine to meet and report as it always did.
	 */
	if (ep->connect_stream != NULL)
		SD_TP_DEFAULT->close(ep->connect_stream, NULL, NULL);
	ep->connect_stream = NULL;
	was = ep->remote;
	ep->remote = *remote;
	if (remote->ss_family == AF_INET)
		((struct sockaddr_in *)&ep->remote)->sin_port = htons((uint16_t)conn_qual);
	else
		((struct sockaddr_in6 *)&ep->remote)->sin6_port = htons((uint16_t)conn_qual);
	r = sd_cm_open(ep, &ep->connect_stream);
	if (r == -EMFILE || r == -ENFILE || r == -ENOBUFS || r == -ENOMEM) {
		ep->remote = was;
		return sd_refuse(call, &ep->obj,
				 SD_ERR(DAT_INSUFFICIENT_RESOURCES,
					DAT_RESOURCE_TEP),
				 "no socket for the connection: %s",
				 strerror(-r));
	}
	ep->remote_port = conn_qual;
	ep->active = true;
	ep->timeout = timeout;
	ep->timed_out = false;
	ep->pdata_len = (uint16_t)pdata_size;
	if (pdata_size > 0)
		memcpy(ep->pdata, pdata, (size_t)pdata_size);
	ep->peer_pdata_len = 0;
	sd_qp_set_state(ep, DAT_EP_STATE_ACTIVE_CONNECTION_PENDING,
			"dat_ep_connect");
	ep->cm_op = SD_CMOP_CONNECT;
	sd_cnt_inc(ep->cnt, DCNT_EP_CONNECT);
	sd_cm_connect_now(ep);
	sd_qp_get(ep);		/* the command's */
	sd_engine_submit(&ep->cm_cmd);
	return DAT_SUCCESS;
}

/*
 * The arguments every connect call ends with: the timeout (0 is
 * DAT_INVALID_PARAMETER) then the private data's size and pointer, at
 * argument positions @arg_timeout, @arg_timeout + 1 and + 2 of the call.
 */
static DAT_RETURN connect_args(const char *call, const struct sd_ep *ep,
			       DAT_TIMEOUT timeout, DAT_COUNT size,
			       const void *pdata, DAT_RETURN_SUBTYPE arg_timeout)
{
	if (timeout == 0)
		return sd_refuse(call, &ep->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, arg_timeout),
				 "timeout 0: a connection cannot be made in no "
				 "time");
	if (size < 0 || size > SD_MAX_PRIVATE_DATA)
		return sd_refuse(call, &ep->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, arg_timeout + 1),
				 "private_data_size %d is not from 0 to %d",
				 (int)size, SD_MAX_PRIVATE_DATA);
	if (size > 0 && pdata == NULL)
		return sd_refuse(call, &ep->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, arg_timeout + 2),
				 "private_data is NULL, private_data_size %d",
				 (int)size);
	return DAT_SUCCESS;
}

/* ep_start_connect under ep->lock, for the three connect calls. */
static DAT_RETURN start_connect(const char *call, struct sd_ep *ep,
				const struct sockaddr_storage *remote,
				DAT_CONN_QUAL conn_qual, DAT_TIMEOUT timeout,
				DAT_COUNT pdata_size, const void *pdata)
{
	DAT_RETURN ret;

	pthread_mutex_lock(&ep->lock);
	ret = ep_start_connect(call, ep, remote, conn_qual, timeout,
			       pdata_size, pdata);
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

/*
 * dat_ep_connect. A connection qualifier is a TCP port (PROTOCOL.md):
 * above 65535 its low 16 bits (sd_qual_port), DAT_INVALID_PARAMETER when
 * those are 0. QoS: TCP gives every QoS the
 * same service, so every value is accepted, as OFED does.
 */
DAT_RETURN DAT_API sd_ep_connect(DAT_EP_HANDLE h, DAT_IA_ADDRESS_PTR addr,
				 DAT_CONN_QUAL conn_qual, DAT_TIMEOUT timeout,
				 DAT_COUNT pdata_size, const DAT_PVOID pdata,
				 DAT_QOS qos, DAT_CONNECT_FLAGS flags)
{
	struct sd_ep *ep = sd_ep_from_handle(h);
	struct sockaddr_storage ss;
	DAT_RETURN ret;

	(void)qos;
	if (ep == NULL)
		return sd_refuse_handle("ep_connect", NULL, "ep_handle", h,
					SD_MAGIC_EP, DAT_INVALID_HANDLE_EP);
	if (addr == NULL)
		return sd_refuse_null("ep_connect", &ep->obj,
				      "remote_ia_address", DAT_INVALID_ARG2);
	ret = remote_addr("ep_connect", ep, addr, &ss);
	if (ret != DAT_SUCCESS)
		return ret;
	if (sd_qual_port(conn_qual) < 0)
		return sd_refuse("ep_connect", &ep->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
				 "remote_conn_qual 0x%llx names no port (its "
				 "low 16 bits are 0)",
				 (unsigned long long)conn_qual);
	conn_qual = (DAT_CONN_QUAL)sd_qual_port(conn_qual);
	ret = connect_args("ep_connect", ep, timeout, pdata_size, pdata,
			   DAT_INVALID_ARG4);
	if (ret != DAT_SUCCESS)
		return ret;
	if (flags & DAT_CONNECT_MULTIPATH_REQUIRED_FLAG)
		return sd_refuse("ep_connect", &ep->obj,
				 SD_ERR(DAT_MODEL_NOT_SUPPORTED, 0),
				 "connect_flags 0x%x: "
				 "DAT_CONNECT_MULTIPATH_REQUIRED_FLAG, and "
				 "softdapl has one path", (unsigned)flags);
	if (flags & ~(DAT_CONNECT_MULTIPATH_FLAG))
		return sd_refuse_bits("ep_connect", &ep->obj,
				      SD_ERR(DAT_INVALID_PARAMETER,
					     DAT_INVALID_ARG8),
				      "connect_flags", flags,
				      DAT_CONNECT_MULTIPATH_FLAG |
				      DAT_CONNECT_MULTIPATH_REQUIRED_FLAG);
	return start_connect("ep_connect", ep, &ss, conn_qual, timeout,
			     pdata_size, pdata);
}

/*
 * dat_ep_dup_connect (DAT 2.0, 6.5.8): connects @h to the remote end of
 * the connection of @dup, "the same remote IA, Connection Qualifier ...
 * as used for establishing the connection" of @dup. So @dup must be a
 * CONNECTED EP of the same IA (DAT_INVALID_STATE with its state's
 * subtype otherwise) whose connection it asked for itself (dat_ep_connect,
 * _dup_connect, _common_connect): the passive side of a connection knows
 * its peer's port, not a service point of the peer, and is refused with
 * DAT_INVALID_PARAMETER (DAT_INVALID_ARG2).
 */
DAT_RETURN DAT_API sd_ep_dup_connect(DAT_EP_HANDLE h, DAT_EP_HANDLE dup_h,
				     DAT_TIMEOUT timeout, DAT_COUNT pdata_size,
				     const DAT_PVOID pdata, DAT_QOS qos)
{
	struct sd_ep *ep = sd_ep_from_handle(h);
	struct sd_ep *dup = sd_ep_from_handle(dup_h);
	struct sockaddr_storage ss;
	DAT_CONN_QUAL port = 0;
	DAT_RETURN ret = DAT_SUCCESS;

	(void)qos;
	if (ep == NULL)
		return sd_refuse_handle("ep_dup_connect", NULL, "ep_handle", h,
					SD_MAGIC_EP, DAT_INVALID_HANDLE_EP);
	if (dup == NULL || dup->obj.ia != ep->obj.ia)
		return sd_refuse_handle("ep_dup_connect", &ep->obj,
					"ep_dup_handle", dup_h, SD_MAGIC_EP,
					DAT_INVALID_HANDLE_EP);
	if (dup == ep)
		return sd_refuse("ep_dup_connect", &ep->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				 "ep_dup_handle is the EP itself");
	ret = connect_args("ep_dup_connect", ep, timeout, pdata_size, pdata,
			   DAT_INVALID_ARG3);
	if (ret != DAT_SUCCESS)
		return ret;

	/* One EP lock at a time: no order is defined between two EPs. */
	pthread_mutex_lock(&dup->lock);
	if (dup->state != DAT_EP_STATE_CONNECTED)
		ret = sd_refuse("ep_dup_connect", &ep->obj,
				sd_api_state_err(dup->state),
				"ep_dup_handle %s is %s, needs CONNECTED",
				sd_obj_name(&dup->obj).s,
				sd_qp_state_name(dup->state));
	else if (!dup->active)
		ret = sd_refuse("ep_dup_connect", &ep->obj,
				SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				"ep_dup_handle %s was connected by its peer: "
				"it knows no service point to connect to",
				sd_obj_name(&dup->obj).s);
	ss = dup->remote;
	port = dup->remote_port;
	pthread_mutex_unlock(&dup->lock);
	if (ret != DAT_SUCCESS)
		return ret;
	return start_connect("ep_dup_connect", ep, &ss, port, timeout,
			     pdata_size, pdata);
}

/*
 * dat_ep_common_connect (DAT 2.0): connects to the Common Service Point
 * listening at @addr, an IPv4 or IPv6 socket address whose port is the
 * service point's (psp.c: on TCP a CSP and a PSP are both a listening
 * port, so this reaches either). Port 0 names no service point:
 * DAT_INVALID_ADDRESS_MALFORMED. Otherwise as dat_ep_connect.
 */
DAT_RETURN DAT_API sd_ep_common_connect(DAT_EP_HANDLE h, DAT_IA_ADDRESS_PTR addr,
					DAT_TIMEOUT timeout, DAT_COUNT pdata_size,
					const DAT_PVOID pdata)
{
	struct sd_ep *ep = sd_ep_from_handle(h);
	struct sockaddr_storage ss;
	DAT_RETURN ret;

	if (ep == NULL)
		return sd_refuse_handle("ep_common_connect", NULL, "ep_handle",
					h, SD_MAGIC_EP, DAT_INVALID_HANDLE_EP);
	if (addr == NULL)
		return sd_refuse_null("ep_common_connect", &ep->obj,
				      "remote_ia_address", DAT_INVALID_ARG2);
	ret = remote_addr("ep_common_connect", ep, addr, &ss);
	if (ret != DAT_SUCCESS)
		return ret;
	if (addr_port(&ss) == 0)
		return sd_refuse("ep_common_connect", &ep->obj,
				 SD_ERR(DAT_INVALID_ADDRESS,
					DAT_INVALID_ADDRESS_MALFORMED),
				 "remote_ia_address has port 0, which names no "
				 "service point");
	ret = connect_args("ep_common_connect", ep, timeout, pdata_size, pdata,
			   DAT_INVALID_ARG3);
	if (ret != DAT_SUCCESS)
		return ret;
	return start_connect("ep_common_connect", ep, &ss, addr_port(&ss),
			     timeout, pdata_size, pdata);
}

DAT_RETURN DAT_API sd_ep_disconnect(DAT_EP_HANDLE h, DAT_CLOSE_FLAGS flags)
{
	struct sd_ep *ep = sd_ep_from_handle(h);
	DAT_RETURN ret = DAT_SUCCESS;
	struct sd_hdr disc;

	if (ep == NULL)
		return sd_refuse_handle("ep_disconnect", NULL, "ep_handle", h,
					SD_MAGIC_EP, DAT_INVALID_HANDLE_EP);
	if (flags != DAT_CLOSE_ABRUPT_FLAG && flags != DAT_CLOSE_GRACEFUL_FLAG)
		return sd_refuse("ep_disconnect", &ep->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				 "disconnect_flags 0x%x is neither "
				 "DAT_CLOSE_ABRUPT_FLAG nor "
				 "DAT_CLOSE_GRACEFUL_FLAG", (unsigned)flags);

	pthread_mutex_lock(&ep->lock);
	sd_tx_ctl(ep, &disc, SD_OP_DISCONNECT, SD_TAG_NONE, 0);
	switch (ep->state) {
	case DAT_EP_STATE_DISCONNECTED:
		break;		/* "Disconnecting a ... Disconnected Endpoint is no-op" */
	case DAT_EP_STATE_ACTIVE_CONNECTION_PENDING:
	case DAT_EP_STATE_COMPLETION_PENDING:
		/* Aborts the establishment; preposted receives are flushed. */
		sd_cnt_inc(ep->cnt, DCNT_EP_DISCONNECT);
		sd_qp_close(ep, DAT_CONNECTION_EVENT_DISCONNECTED, NULL,
			    "disconnect while connecting");
		break;
	case DAT_EP_STATE_CONNECTED:
		sd_cnt_inc(ep->cnt, DCNT_EP_DISCONNECT);
		if (flags == DAT_CLOSE_ABRUPT_FLAG) {
			sd_qp_close(ep, DAT_CONNECTION_EVENT_DISCONNECTED, &disc,
				    "abrupt disconnect");
			break;
		}
		/* Graceful: what is queued goes out first, then DISCONNECT. */
		sd_qp_set_state(ep, DAT_EP_STATE_DISCONNECT_PENDING,
				"graceful disconnect");
		ep->tx.disc_want = true;
		sd_tx_progress(ep);
		break;
	case DAT_EP_STATE_DISCONNECT_PENDING:
		/* A graceful one "has no effect"; an abrupt one ends it now. */
		if (flags != DAT_CLOSE_ABRUPT_FLAG)
			break;
		sd_cnt_inc(ep->cnt, DCNT_EP_DISCONNECT);
		sd_qp_close(ep, DAT_CONNECTION_EVENT_DISCONNECTED,
			    ep->tx.disc_sent ? NULL : &disc, "abrupt disconnect");
		break;
	default:
		/*
		 * "Disallowed" in UNCONNECTED, RESERVED, PASSIVE_ and
		 * TENTATIVE_CONNECTION_PENDING (and the UNCONFIGURED_ ones).
		 */
		ret = sd_api_bad_state("ep_disconnect", &ep->obj, ep->state,
				       "CONNECTED, a connection pending on "
				       "this side, or DISCONNECTED");
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
		return sd_refuse_handle("ep_reset", NULL, "ep_handle", h,
					SD_MAGIC_EP, DAT_INVALID_HANDLE_EP);
	pthread_mutex_lock(&ep->lock);
	if (ep->state == DAT_EP_STATE_DISCONNECTED) {
		sd_tx_reset(ep);
		ep->peer_pdata_len = 0;
		ep->local_port = ep->remote_port = 0;
		ep->active = false;
		memset(&ep->remote, 0, sizeof(ep->remote));
		sd_qp_set_state(ep, DAT_EP_STATE_UNCONNECTED, "dat_ep_reset");
	} else if (ep->state != DAT_EP_STATE_UNCONNECTED) {
		/* UNCONNECTED: a no-op, posted receives stay (dat_ep_reset). */
		ret = sd_api_bad_state("ep_reset", &ep->obj, ep->state,
				       "DISCONNECTED or UNCONNECTED");
	}
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

DAT_RETURN DAT_API sd_ep_get_status(DAT_EP_HANDLE h, DAT_EP_STATE *state,
				    DAT_BOOLEAN *recv_idle, DAT_BOOLEAN *req_idle)
{
	struct sd_ep *ep = sd_ep_from_handle(h);

	if (ep == NULL)
		return sd_refuse_handle("ep_get_status", NULL, "ep_handle", h,
					SD_MAGIC_EP, DAT_INVALID_HANDLE_EP);
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

DAT_RETURN DAT_API sd_ep_free(DAT_EP_HANDLE h)
{
	struct sd_ep *ep = sd_ep_from_handle(h);

	if (ep == NULL)
		return sd_refuse_handle("ep_free", NULL, "ep_handle", h,
					SD_MAGIC_EP, DAT_INVALID_HANDLE_EP);
	pthread_mutex_lock(&ep->lock);
	switch (ep->state) {
	case DAT_EP_STATE_RESERVED:
	case DAT_EP_STATE_UNCONFIGURED_RESERVED:
	case DAT_EP_STATE_PASSIVE_CONNECTION_PENDING:
	case DAT_EP_STATE_UNCONFIGURED_PASSIVE:
	case DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING:
	case DAT_EP_STATE_UNCONFIGURED_TENTATIVE: {
		DAT_RETURN ret = sd_api_bad_state("ep_free", &ep->obj,
						  ep->state, "a state with no "
						  "service point or request "
						  "holding the EP (free the "
						  "RSP, or accept or reject the "
						  "request, first)");

		pthread_mutex_unlock(&ep->lock);
		return ret;
	}
	default:
		break;
	}
	sd_qp_release(ep);
	return DAT_SUCCESS;
}

/*
 * dat_ep_recv_query (DAT 2.0, 6.5.14): a snapshot, under ep->lock, of
 * the receive buffers @h holds (sd_qp_recv_count: posted and not
 * completed; with an SRQ, the one it took and has not completed) and of
 * their span. The engine places messages in the order they were sent and
 * takes an SRQ buffer only for the message it is placing, so there are
 * never gaps: the span is the count. Either output may be NULL. Valid in
 * every state.
 */
DAT_RETURN DAT_API sd_ep_recv_query(DAT_EP_HANDLE h, DAT_COUNT *nbufs,
				    DAT_COUNT *span)
{
	struct sd_ep *ep = sd_ep_from_handle(h);
	DAT_COUNT n;

	if (ep == NULL)
		return sd_refuse_handle("ep_recv_query", NULL, "ep_handle", h,
					SD_MAGIC_EP, DAT_INVALID_HANDLE_EP);
	pthread_mutex_lock(&ep->lock);
	n = sd_qp_recv_count(ep);
	pthread_mutex_unlock(&ep->lock);
	if (nbufs)
		*nbufs = n;
	if (span)
		*span = n;
	return DAT_SUCCESS;
}

/*
 * dat_ep_set_watermark (DAT 2.0, 6.5.15). Both watermarks bound the
 * receive buffers the EP holds, as dat_ep_recv_query counts them; each
 * is a count >= 0 or DAT_WATERMARK_INFINITE (none), anything else
 * DAT_INVALID_PARAMETER. Setting one arms it, and it is checked at once
 * ("these can occur during this call"), when a connection is established
 * and whenever the EP takes a buffer from its SRQ (an EP without SRQ
 * holds what it was posted: its count rises only in dat_ep_post_recv,
 * checked at the next of these points); exceeding the soft one posts
 * SD_EVENT_WATERMARK
 * (reason DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT) on the async EVD once per
 * setting; exceeding the hard one while connected breaks the connection
 * (DAT_CONNECTION_EVENT_BROKEN on the connection EVD; the provider is
 * "ready to generate a connection broken event as soon as the connection
 * is established", cm.c checks then too). Valid in every state. The soft
 * value is reported as ep_attr.srq_soft_hw.
 */
DAT_RETURN DAT_API sd_ep_set_watermark(DAT_EP_HANDLE h, DAT_COUNT soft,
				       DAT_COUNT hard)
{
	struct sd_ep *ep = sd_ep_from_handle(h);

	if (ep == NULL)
		return sd_refuse_handle("ep_set_watermark", NULL, "ep_handle", h,
					SD_MAGIC_EP, DAT_INVALID_HANDLE_EP);
	if (soft < 0 && soft != DAT_WATERMARK_INFINITE)
		return sd_refuse("ep_set_watermark", &ep->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				 "soft_high_watermark %d is neither a count nor "
				 "DAT_WATERMARK_INFINITE", (int)soft);
	if (hard < 0 && hard != DAT_WATERMARK_INFINITE)
		return sd_refuse("ep_set_watermark", &ep->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
				 "hard_high_watermark %d is neither a count nor "
				 "DAT_WATERMARK_INFINITE", (int)hard);
	pthread_mutex_lock(&ep->lock);
	ep->soft_hw = soft;
	ep->soft_armed = soft != DAT_WATERMARK_INFINITE;
	ep->attr.srq_soft_hw = soft;
	ep->hard_hw = hard;
	ep->hard_armed = hard != DAT_WATERMARK_INFINITE;
	sd_qp_check_watermarks(ep, 0);
	pthread_mutex_unlock(&ep->lock);
	return DAT_SUCCESS;
}

