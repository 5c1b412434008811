/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unreliable datagram endpoints (DAT_IB_SERVICE_TYPE_UD): the object, the
 * provider table its handles dispatch through, address handles and the
 * data path. ext.h describes the service; udep.c is the EP's core below
 * these entry points (events, the socket, the engine's side); udcm.c
 * resolves the address handles; udproto.h is the wire.
 *
 * A UD EP is a UDP socket bound to the IA's address (an ephemeral port),
 * a request queue and a receive queue, both rings preallocated at
 * creation like an RC EP's (COMMON-4: the post and completion paths
 * allocate nothing), and the address handles it resolved.
 *
 * States: UNCONNECTED, CONNECTED once it resolved an address handle
 * (udcm.c), DISCONNECTED after dat_ep_disconnect or a hard high
 * watermark, UNCONNECTED again after dat_ep_reset. dat_ep_modify,
 * _dup_connect, _recv_query and _set_watermark follow ep.c's rules for
 * RC EPs carried over to these states; each says how.
 *
 * THE CONTRACT is post.c's (STYLE habit 4): a post that fails
 * synchronously never completes; one that succeeds completes exactly
 * once, in post order per queue:
 *
 *   - a send once the kernel took its datagram: DAT_DTO_SUCCESS (not
 *     posted with DAT_COMPLETION_SUPPRESS_FLAG), or DAT_DTO_ERR_TRANSPORT
 *     if the kernel refused it for good (no route, say). A send that
 *     finds the socket full (EAGAIN) waits in the queue for POLLOUT; one
 *     the kernel drops for want of buffers (ENOBUFS) is sent as far as the
 *     consumer can tell: UD delivers nothing reliably;
 *   - a receive once a datagram is in it (DAT_DTO_SUCCESS), or one too
 *     small for the datagram that came (DAT_DTO_LENGTH_ERROR);
 *   - DAT_DTO_ERR_FLUSHED for what is outstanding when the EP is
 *     disconnected, and at once for a post on a DISCONNECTED EP.
 *
 * Threads. Posts run on the consumer's thread under ep->lock; a send is
 * written there and then unless sends are queued. The engine reads the
 * socket (every datagram, data or CM, under ep->lock) and finishes queued
 * sends on POLLOUT. Events are posted under ep->lock by whichever thread
 * completes. dat_ep_free marks the EP freed and hands it to the engine,
 * which closes the socket and frees it after every command queued before.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "api.h"
#include "engine.h"
#include "entry.h"
#include "evq.h"
#include "ext.h"
#include "ia.h"
#include "mem.h"
#include "obj.h"
#include "qp.h"	/* SD_EVENT_WATERMARK */
#include "srqbuf.h"
#include "trace.h"
#include "udproto.h"
#include "util.h"
#include "wq.h"

/*
 * Numbers of UD EPs in this process (their "QP numbers", 24 bits as on
 * IB): unique, counting from a random start, atomically.
 */
static uint32_t ud_next_qpn;
static pthread_once_t ud_qpn_once = PTHREAD_ONCE_INIT;

static void ud_qpn_seed(void)
{
	uint32_t seed;

	if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
		seed = (uint32_t)getpid() << 8;
	ud_next_qpn = seed;
}

/* ------------------------------------------------------------------ */
/* Handles                                                             */

/* A live UD object (EP or CR), for the generic entry points; else NULL. */
static struct sd_obj *ud_any(DAT_HANDLE h)
{
	struct sd_obj *o = sd_obj_check(h, SD_MAGIC_UD_EP);

	return o ? o : sd_obj_check(h, SD_MAGIC_UD_CR);
}

DAT_RETURN DAT_API sd_ud_set_consumer_context(DAT_HANDLE h, DAT_CONTEXT c)
{
	struct sd_obj *o = ud_any(h);

	if (o == NULL)
		return sd_refuse_handle("set_consumer_context", NULL, "handle",
					h, 0, DAT_INVALID_HANDLE1);
	__atomic_store_n(&o->context.as_64, c.as_64, __ATOMIC_RELAXED);
	return DAT_SUCCESS;
}

DAT_RETURN DAT_API sd_ud_get_consumer_context(DAT_HANDLE h, DAT_CONTEXT *c)
{
	struct sd_obj *o = ud_any(h);

	if (o == NULL)
		return sd_refuse_handle("get_consumer_context", NULL, "handle",
					h, 0, DAT_INVALID_HANDLE1);
	if (c == NULL)
		return sd_refuse_null("get_consumer_context", o, "context",
				      DAT_INVALID_ARG2);
	c->as_64 = __atomic_load_n(&o->context.as_64, __ATOMIC_RELAXED);
	return DAT_SUCCESS;
}

DAT_RETURN DAT_API sd_ud_get_handle_type(DAT_HANDLE h, DAT_HANDLE_TYPE *t)
{
	struct sd_obj *o = ud_any(h);

	if (o == NULL)
		return sd_refuse_handle("get_handle_type", NULL, "handle", h, 0,
					DAT_INVALID_HANDLE1);
	if (t == NULL)
		return sd_refuse_null("get_handle_type", o, "handle_type",
				      DAT_INVALID_ARG2);
	*t = o->type;
	return DAT_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Creation                                                            */

/*
 * Checks the attributes of a UD EP and fills in its defaults; when they
 * break a limit, says which in @why (debugging on). The RDMA
 * attributes mean nothing for datagrams: they are accepted and reported
 * as 0; nor does max_recv_dtos for an EP of an SRQ (@srq), as ep.c.
 */
static bool ud_attr(const DAT_EP_ATTR *in, DAT_EP_ATTR *a, bool srq,
		    struct sd_why *why)
{
	const DAT_COMPLETION_FLAGS all = SD_COMPLETION_FLAGS_ALL;
	const struct sd_api_range r[] = {
		{ "max_message_size", (long long)in->max_message_size, 0,
		  SD_UD_MAX_MSG },
		{ "max_recv_dtos", srq ? 0 : in->max_recv_dtos, 0,
		  SD_MAX_DTO_PER_EP },
		{ "max_request_dtos", in->max_request_dtos, 0,
		  SD_MAX_DTO_PER_EP },
		{ "max_recv_iov", in->max_recv_iov, 0, SD_MAX_IOV },
		{ "max_request_iov", in->max_request_iov, 0, SD_MAX_IOV },
	};

	*a = *in;
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
	if (!sd_api_in_range(r, SD_ARRAY_SIZE(r), why))
		return false;
	if (a->max_message_size == 0)
		a->max_message_size = SD_UD_MAX_MSG;
	a->max_rdma_size = 0;
	a->max_rdma_read_in = a->max_rdma_read_out = 0;
	a->max_rdma_read_iov = a->max_rdma_write_iov = 0;
	a->ep_transport_specific_count = 0;
	a->ep_transport_specific = NULL;
	a->ep_provider_specific_count = 0;
	a->ep_provider_specific = NULL;
	return true;
}

/*
 * A UD EP of @ia, dat_ep_create's checks in ep.c's order; its receives
 * come from the SRQ of @srq_h unless that is DAT_HANDLE_NULL, which moves
 * the argument numbers after it, as dat_ep_create_with_srq does.
 */
DAT_RETURN sd_ud_ep_create(struct sd_ia *ia, DAT_PZ_HANDLE pz_handle,
			   DAT_EVD_HANDLE recv_h, DAT_EVD_HANDLE req_h,
			   DAT_EVD_HANDLE conn_h, DAT_SRQ_HANDLE srq_h,
			   const DAT_EP_ATTR *attr, DAT_EP_HANDLE *out)
{
	const char *call = srq_h != DAT_HANDLE_NULL ? "ep_create_with_srq" :
						      "ep_create";
	const DAT_RETURN nomem = SD_ERR(DAT_INSUFFICIENT_RESOURCES,
					DAT_RESOURCE_MEMORY);
	struct sd_srq *srq = NULL;
	struct sd_evd *recv_evd, *req_evd, *conn_evd;
	struct sd_pz *pz = NULL;
	struct sd_ud_ep *ep;
	struct sd_why why;
	DAT_EP_ATTR a;
	DAT_RETURN ret;
	int fd;

	ret = sd_api_pz_arg(call, &ia->obj, ia, pz_handle, &pz);
	if (ret == DAT_SUCCESS)
		ret = sd_api_ep_evds(call, &ia->obj, false, recv_h, req_h, conn_h,
				     ia, &recv_evd, &req_evd, &conn_evd);
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
	if (!ud_attr(attr, &a, srq != NULL, &why))
		return sd_refuse(call, &ia->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, srq ?
					DAT_INVALID_ARG7 : DAT_INVALID_ARG6),
				 "ep_attr: %s", why.s);

	ep = calloc(1, sizeof(*ep));
	if (ep == NULL)
		return sd_refuse(call, &ia->obj, nomem,
				 "no memory for the UD EP");
	ep->fd = -1;
	if (sd_wq_init(&ep->sq, (uint32_t)a.max_request_dtos,
		       (uint32_t)a.max_request_iov) < 0 ||
	    sd_wq_init(&ep->rq, srq ? 0 : (uint32_t)a.max_recv_dtos,
		       (uint32_t)a.max_recv_iov) < 0 ||
	    (a.max_request_dtos > 0 &&
	     (ep->dest = calloc((size_t)a.max_request_dtos, sizeof(*ep->dest))) == NULL))
		goto nomem;
	fd = sd_ud_socket(ia, &ep->local, &ep->local_len);
	if (fd < 0) {
		sd_wq_destroy(&ep->sq);
		sd_wq_destroy(&ep->rq);
		free(ep->dest);
		free(ep);
		return sd_refuse(call, &ia->obj,
				 SD_ERR(DAT_INSUFFICIENT_RESOURCES,
					DAT_RESOURCE_DEVICE),
				 "cannot open the UD EP's socket: %s",
				 strerror(-fd));
	}
	ep->fd = fd;
	if (getrandom(&ep->qkey, sizeof(ep->qkey), 0) != (ssize_t)sizeof(ep->qkey))
		ep->qkey = (uint32_t)(uintptr_t)ep ^ 0x5a5aa5a5u;
	pthread_once(&ud_qpn_once, ud_qpn_seed);
	do	/* never 0: the wire reserves it */
		ep->qpn = __atomic_fetch_add(&ud_next_qpn, 1, __ATOMIC_RELAXED) &
			  0xffffff;
	while (ep->qpn == 0);

	ep->obj.provider = sd_obj_ud_table;
	ep->obj.magic = SD_MAGIC_UD_EP;
	ep->obj.type = DAT_HANDLE_TYPE_EP;
	ep->obj.num = sd_obj_number(DAT_HANDLE_TYPE_EP);
	ep->obj.ia = ia;
	ep->obj.context.as_64 = 0;
	sd_list_init(&ep->obj.node);
	pthread_mutex_init(&ep->lock, NULL);
	ep->state = DAT_EP_STATE_UNCONNECTED;
	ep->attr = a;
	ep->soft_hw = ep->hard_hw = DAT_WATERMARK_INFINITE;
	ep->pz = pz;
	ep->recv_evd = recv_evd;
	ep->req_evd = req_evd;
	ep->conn_evd = conn_evd;
	ep->srq = srq;
	sd_list_init(&ep->ahs);
	sd_list_init(&ep->cm_new);
	sd_list_init(&ep->cms);
	ep->start_cmd.fn = sd_ud_start_cmd;
	ep->io_cmd.fn = sd_ud_io_cmd;
	ep->free_cmd.fn = sd_ud_free_cmd;

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
	sd_list_add_tail(&ia->ud_eps, &ep->obj.node);
	pthread_mutex_unlock(&ia->lock);
	sd_cnt_inc(ia->cnt, DCNT_IA_EP_CREATE);
	sd_engine_submit(&ep->start_cmd);
	sd_dbg("ud ep %p: qpn 0x%x", (void *)ep, ep->qpn);
	*out = (DAT_EP_HANDLE)ep;
	return DAT_SUCCESS;
nomem:
	sd_wq_destroy(&ep->sq);
	sd_wq_destroy(&ep->rq);
	free(ep->dest);
	free(ep);
	return sd_refuse(call, &ia->obj, nomem,
			 "no memory for the UD EP's queues");
}

/* ------------------------------------------------------------------ */
/* Query, state, free                                                  */

DAT_RETURN DAT_API sd_ud_ep_query(DAT_EP_HANDLE h, DAT_EP_PARAM_MASK mask,
				  DAT_EP_PARAM *p)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);
	/* A datagram EP has no one peer: an address of no family. */
	static struct sockaddr_storage none;

	if (ep == NULL)
		return sd_refuse_handle("ep_query", NULL, "ep_handle", h,
					SD_MAGIC_UD_EP, DAT_INVALID_HANDLE_EP);
	if (p == NULL)
		return sd_refuse_null("ep_query", &ep->obj, "ep_param",
				      DAT_INVALID_ARG3);
	(void)mask;	/* all of it, as ep.c */
	memset(p, 0, sizeof(*p));
	pthread_mutex_lock(&ep->lock);
	p->ia_handle = sd_obj_ia_handle(ep->obj.ia);
	p->ep_state = ep->state;
	p->local_ia_address_ptr = (DAT_IA_ADDRESS_PTR)&ep->local;
	p->local_port_qual = ntohs(ep->local.ss_family == AF_INET6 ?
				   ((struct sockaddr_in6 *)&ep->local)->sin6_port :
				   ((struct sockaddr_in *)&ep->local)->sin_port);
	p->remote_ia_address_ptr = (DAT_IA_ADDRESS_PTR)&none;
	p->pz_handle = (DAT_PZ_HANDLE)ep->pz;
	p->recv_evd_handle = (DAT_EVD_HANDLE)ep->recv_evd;
	p->request_evd_handle = (DAT_EVD_HANDLE)ep->req_evd;
	p->connect_evd_handle = (DAT_EVD_HANDLE)ep->conn_evd;
	p->srq_handle = (DAT_SRQ_HANDLE)ep->srq;
	p->ep_attr = ep->attr;
	pthread_mutex_unlock(&ep->lock);
	return DAT_SUCCESS;
}

DAT_RETURN DAT_API sd_ud_ep_get_status(DAT_EP_HANDLE h, DAT_EP_STATE *state,
				       DAT_BOOLEAN *recv_idle,
				       DAT_BOOLEAN *req_idle)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);

	if (ep == NULL)
		return sd_refuse_handle("ep_get_status", NULL, "ep_handle", h,
					SD_MAGIC_UD_EP, DAT_INVALID_HANDLE_EP);
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
 * dat_ep_disconnect on a UD EP: it has no connection to end, but the
 * consumer is done with it: DISCONNECTED, everything outstanding
 * flushed, attempts in progress abandoned (the engine drops them), and
 * DAT_CONNECTION_EVENT_DISCONNECTED as for any EP that leaves.
 */
DAT_RETURN DAT_API sd_ud_ep_disconnect(DAT_EP_HANDLE h, DAT_CLOSE_FLAGS flags)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);

	if (ep == NULL)
		return sd_refuse_handle("ep_disconnect", NULL, "ep_handle", h,
					SD_MAGIC_UD_EP, DAT_INVALID_HANDLE_EP);
	if (flags != DAT_CLOSE_ABRUPT_FLAG && flags != DAT_CLOSE_GRACEFUL_FLAG)
		return sd_refuse("ep_disconnect", &ep->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				 "disconnect_flags 0x%x is neither "
				 "DAT_CLOSE_ABRUPT_FLAG nor "
				 "DAT_CLOSE_GRACEFUL_FLAG", (unsigned)flags);
	pthread_mutex_lock(&ep->lock);
	if (ep->state != DAT_EP_STATE_DISCONNECTED)
		sd_ud_close(ep, DAT_CONNECTION_EVENT_DISCONNECTED, "disconnect");
	pthread_mutex_unlock(&ep->lock);
	return DAT_SUCCESS;
}

DAT_RETURN DAT_API sd_ud_ep_reset(DAT_EP_HANDLE h)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);
	DAT_RETURN ret = DAT_SUCCESS;

	if (ep == NULL)
		return sd_refuse_handle("ep_reset", NULL, "ep_handle", h,
					SD_MAGIC_UD_EP, DAT_INVALID_HANDLE_EP);
	pthread_mutex_lock(&ep->lock);
	if (ep->state == DAT_EP_STATE_DISCONNECTED) {
		sd_ud_set_state(ep, DAT_EP_STATE_UNCONNECTED, "dat_ep_reset");
		ep->has_remote = false;	/* as ep.c forgets the peer */
	} else if (ep->state != DAT_EP_STATE_UNCONNECTED) {
		ret = sd_refuse("ep_reset", &ep->obj,
				SD_ERR(DAT_INVALID_STATE,
				       DAT_INVALID_STATE_EP_CONNECTED),
				"state %s, needs DISCONNECTED or UNCONNECTED",
				sd_qp_state_name(ep->state));
	}
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

DAT_RETURN DAT_API sd_ud_ep_free(DAT_EP_HANDLE h)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);

	if (ep == NULL)
		return sd_refuse_handle("ep_free", NULL, "ep_handle", h,
					SD_MAGIC_UD_EP, DAT_INVALID_HANDLE_EP);
	sd_ud_ep_release(ep);
	return DAT_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Posts                                                               */

/*
 * What a post checks against the EP: its PZ, the completion flags it
 * allows and its segment limit for the queue posted to (@recv), read at
 * once under ep->lock since dat_ep_modify may change them. A modify that
 * lands between this and the post's own locked section is caught there
 * (the ring's max_sge). Any thread; allocates nothing.
 */
struct ud_post_attr {
	struct sd_pz		*pz;
	DAT_COMPLETION_FLAGS	flags;
	DAT_COUNT		max_iov;
};

static void ud_post_attr(struct sd_ud_ep *ep, bool recv, struct ud_post_attr *pa)
{
	pthread_mutex_lock(&ep->lock);
	pa->pz = ep->pz;
	pa->flags = recv ? ep->attr.recv_completion_flags :
			   ep->attr.request_completion_flags;
	pa->max_iov = recv ? ep->attr.max_recv_iov : ep->attr.max_request_iov;
	pthread_mutex_unlock(&ep->lock);
}

/* The live address handle of @ep behind @a, or NULL. ep->lock held. */
/*
 * The live address handle of @a that @ep may use: one of its IA, made
 * in its PZ. NULL if there is none. sd_ud_ah_lock held.
 */
static struct sd_ud_ah *ud_ah_check(const struct sd_ud_ep *ep,
				    const DAT_IB_ADDR_HANDLE *a)
{
	struct sd_ud_ah *ah = (struct sd_ud_ah *)(void *)a->ah;

	if ((uintptr_t)ah < SD_HANDLE_MIN || ah->magic != SD_UD_AH_MAGIC ||
	    ah->ia != ep->obj.ia || ah->pz != ep->pz)
		return NULL;
	return ah;
}

/* Where @a sends, for @ep, into @d; false if @ep may not use it. */
static bool ud_ah_dest(const struct sd_ud_ep *ep, const DAT_IB_ADDR_HANDLE *a,
		       struct sd_ud_dest *d)
{
	struct sd_ud_ah *ah;

	pthread_mutex_lock(&sd_ud_ah_lock);
	ah = ud_ah_check(ep, a);
	if (ah != NULL)
		*d = ah->dest;
	pthread_mutex_unlock(&sd_ud_ah_lock);
	return ah != NULL;
}

DAT_RETURN sd_ud_post_send(DAT_EP_HANDLE h, DAT_COUNT n,
			   const DAT_LMR_TRIPLET *iov,
			   const DAT_IB_ADDR_HANDLE *a, DAT_DTO_COOKIE cookie,
			   DAT_COMPLETION_FLAGS flags)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);
	struct sd_sge sge[SD_MAX_IOV];
	struct ud_post_attr pa;
	struct sd_ud_dest d;
	struct sd_why why;
	struct sd_wqe *w;
	DAT_RETURN ret = DAT_SUCCESS;
	uint64_t total;
	uint16_t nsge = 0;
	int r;

	/* dat_ib_post_send_ud(ep, segments, lbuf, ah, cookie, flags) */
	if (ep == NULL)
		return sd_refuse_handle("ib_post_send_ud", NULL, "ep_handle", h,
					SD_MAGIC_UD_EP, DAT_INVALID_HANDLE_EP);
	ud_post_attr(ep, false, &pa);
	if (!sd_api_flags_ok(flags, pa.flags))
		return sd_api_bad_flags("ib_post_send_ud", &ep->obj, flags,
					pa.flags, "request_completion_flags",
					DAT_INVALID_ARG6);
	if (a == NULL)
		return sd_refuse_null("ib_post_send_ud", &ep->obj, "remote_ah",
				      DAT_INVALID_ARG4);
	r = sd_mem_resolve_iov(&why, ep->obj.ia, pa.pz, n, iov, pa.max_iov,
			       DAT_MEM_PRIV_LOCAL_READ_FLAG, sge, &nsge, &total);
	if (r < 0)
		return sd_refuse("ib_post_send_ud", &ep->obj,
				 sd_api_errno(r, &(struct sd_argpos){
					.count = DAT_INVALID_ARG2,
					.iov = DAT_INVALID_ARG3 }),
				 "%s", why.s);
	if (total > SD_UD_MAX_MSG)	/* one datagram's worth */
		return sd_refuse("ib_post_send_ud", &ep->obj,
				 SD_ERR(DAT_LENGTH_ERROR, 0),
				 "local_iov holds %llu bytes, above a "
				 "datagram's %u", (unsigned long long)total,
				 (unsigned)SD_UD_MAX_MSG);

	pthread_mutex_lock(&ep->lock);
	if (ep->freed) {
		ret = sd_refuse("ib_post_send_ud", &ep->obj,
				SD_ERR(DAT_INVALID_HANDLE,
				       DAT_INVALID_HANDLE_EP),
				"the EP is being freed");
		goto out;
	}
	if (!ud_ah_dest(ep, a, &d)) {
		ret = sd_refuse("ib_post_send_ud", &ep->obj,
				SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4),
				"remote_ah %p names no address handle this EP "
				"resolved in its IA and PZ", (void *)a->ah);
		goto out;
	}
	if (ep->state == DAT_EP_STATE_DISCONNECTED) {
		sd_ud_flush_now(ep, false, cookie, flags);
		goto out;
	}
	d.flags = (flags & DAT_COMPLETION_SOLICITED_WAIT_FLAG) ? SD_UD_F_SE : 0;
	if (ep->sq.count == 0) {
		struct sd_wqe c;

		/* Nothing queued: out now, complete now. */
		r = sd_ud_send_data(ep, &d, sge, nsge);
		if (r != -EAGAIN) {
			memset(&c, 0, sizeof(c));
			c.cookie = cookie;
			c.flags = flags;
			sd_ud_dto_event(ep, false, &c, r == 0 ? DAT_DTO_SUCCESS :
					DAT_DTO_ERR_TRANSPORT, total, NULL, NULL, 0);
			goto out;
		}
	}
	if (nsge > ep->sq.max_sge) {	/* dat_ep_modify shrank it meanwhile */
		ret = sd_refuse("ib_post_send_ud", &ep->obj,
				SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				"num_segments: %u segments, and dat_ep_modify "
				"just made the limit %u", (unsigned)nsge,
				(unsigned)ep->sq.max_sge);
		goto out;
	}
	w = sd_wq_next(&ep->sq);
	if (w == NULL) {			/* COMMON-8 */
		ret = sd_refuse("ib_post_send_ud", &ep->obj,
				SD_ERR(DAT_INSUFFICIENT_RESOURCES,
				       DAT_RESOURCE_TEP),
				"the request queue is full: %u sends queued "
				"(max_request_dtos %u) (COMMON-8)",
				(unsigned)ep->sq.count, (unsigned)ep->sq.size);
		goto out;
	}
	w->cookie = cookie;
	w->flags = flags;
	w->op = SD_WR_SEND;
	w->status = 0;
	w->nsge = nsge;
	w->len = total;
	w->done = 0;
	memcpy(w->sge, sge, nsge * sizeof(*sge));
	ep->dest[w - ep->sq.wqe] = d;
	sd_wq_push(&ep->sq);
	if (!ep->tx_blocked) {
		ep->tx_blocked = true;
		sd_engine_submit(&ep->io_cmd);	/* POLLOUT */
	}
out:
	if (ret == DAT_SUCCESS) {
		sd_cnt_inc(ep->cnt, DCNT_EP_POST_SEND_UD);
		sd_cnt_add(ep->cnt, DCNT_EP_POST_SEND_UD_DATA, total);
	}
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

DAT_RETURN DAT_API sd_ud_ep_post_recv(DAT_EP_HANDLE h, DAT_COUNT n,
				      DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
				      DAT_COMPLETION_FLAGS flags)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);
	struct sd_sge sge[SD_MAX_IOV];
	struct ud_post_attr pa;
	struct sd_why why;
	struct sd_ia *ia;
	struct sd_wqe *w;
	DAT_RETURN ret = DAT_SUCCESS;
	uint64_t total;
	uint16_t nsge = 0;
	bool soft = false;
	int r;

	if (ep == NULL)
		return sd_refuse_handle("ep_post_recv", NULL, "ep_handle", h,
					SD_MAGIC_UD_EP, DAT_INVALID_HANDLE_EP);
	if (ep->srq != NULL)	/* its receives come from the SRQ */
		return sd_refuse("ep_post_recv", &ep->obj,
				 SD_ERR(DAT_INVALID_STATE,
					DAT_INVALID_STATE_SRQ_IN_USE),
				 "the EP receives from %s: post to the SRQ",
				 sd_obj_name(&ep->srq->obj).s);
	ud_post_attr(ep, true, &pa);
	if (!sd_api_flags_ok(flags, pa.flags))	/* RECV-4 */
		return sd_api_bad_flags("ep_post_recv", &ep->obj, flags,
					pa.flags, "recv_completion_flags",
					DAT_INVALID_ARG5);
	ia = ep->obj.ia;
	r = sd_mem_resolve_iov(&why, ia, pa.pz, n, iov, pa.max_iov,
			       DAT_MEM_PRIV_LOCAL_WRITE_FLAG, sge, &nsge,
			       &total);
	if (r < 0)
		return sd_refuse("ep_post_recv", &ep->obj,
				 sd_api_errno(r, &(struct sd_argpos){
					.count = DAT_INVALID_ARG2,
					.iov = DAT_INVALID_ARG3,
					.write = true }), "%s", why.s);

	pthread_mutex_lock(&ep->lock);
	if (ep->freed) {
		ret = sd_refuse("ep_post_recv", &ep->obj,
				SD_ERR(DAT_INVALID_HANDLE,
				       DAT_INVALID_HANDLE_EP),
				"the EP is being freed");
		goto out;
	}
	if (ep->state == DAT_EP_STATE_DISCONNECTED) {	/* RECV-7 */
		sd_ud_flush_now(ep, true, cookie, flags);
		goto out;
	}
	if (nsge > ep->rq.max_sge) {	/* dat_ep_modify shrank it meanwhile */
		ret = sd_refuse("ep_post_recv", &ep->obj,
				SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				"num_segments: %u segments, and dat_ep_modify "
				"just made the limit %u", (unsigned)nsge,
				(unsigned)ep->rq.max_sge);
		goto out;
	}
	w = sd_wq_next(&ep->rq);
	if (w == NULL) {
		ret = sd_refuse("ep_post_recv", &ep->obj,
				SD_ERR(DAT_INSUFFICIENT_RESOURCES,
				       DAT_RESOURCE_TEP),
				"the receive queue is full: %u posted, none "
				"completed yet (max_recv_dtos %u) (COMMON-8)",
				(unsigned)ep->rq.count, (unsigned)ep->rq.size);
		goto out;
	}
	w->cookie = cookie;
	w->flags = flags;
	w->op = SD_WR_RECV;
	w->status = 0;
	w->nsge = nsge;
	w->len = total;
	w->done = 0;
	w->solicited = false;
	memcpy(w->sge, sge, nsge * sizeof(*sge));
	sd_wq_push(&ep->rq);
	/* The count rose: dat_ep_set_watermark's watermarks, if armed. */
	if (ep->soft_armed || ep->hard_armed)
		soft = sd_ud_check_watermarks(ep, true);
out:
	if (ret == DAT_SUCCESS) {
		sd_cnt_inc(ep->cnt, DCNT_EP_POST_RECV);
		sd_cnt_add(ep->cnt, DCNT_EP_POST_RECV_DATA, total);
	}
	pthread_mutex_unlock(&ep->lock);
	if (soft)
		sd_evq_async_error(ia, SD_EVENT_WATERMARK, h,
			       DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);
	return ret;
}

/*
 * RC operations, @call, on UD EP @h: a datagram EP has no RDMA and no
 * connection to send on (a datagram needs an address handle:
 * dat_ib_post_send_ud). DAT_MODEL_NOT_SUPPORTED, said.
 */
static DAT_RETURN ud_rc_only(const char *call, DAT_EP_HANDLE h)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);

	if (ep == NULL)
		return sd_refuse_handle(call, NULL, "ep_handle", h,
					SD_MAGIC_UD_EP, DAT_INVALID_HANDLE_EP);
	return sd_refuse(call, &ep->obj, SD_ERR(DAT_MODEL_NOT_SUPPORTED, 0),
			 "a UD EP has no connection and no RDMA (send with "
			 "dat_ib_post_send_ud)");
}

DAT_RETURN DAT_API sd_ud_ep_post_send(DAT_EP_HANDLE h, DAT_COUNT n,
				      DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE c,
				      DAT_COMPLETION_FLAGS f)
{
	(void)n; (void)iov; (void)c; (void)f;
	return ud_rc_only("ep_post_send", h);
}

DAT_RETURN DAT_API sd_ud_ep_post_rdma_read(DAT_EP_HANDLE h, DAT_COUNT n,
					   DAT_LMR_TRIPLET *iov,
					   DAT_DTO_COOKIE c,
					   const DAT_RMR_TRIPLET *r,
					   DAT_COMPLETION_FLAGS f)
{
	(void)n; (void)iov; (void)c; (void)r; (void)f;
	return ud_rc_only("ep_post_rdma_read", h);
}

DAT_RETURN DAT_API sd_ud_ep_post_rdma_write(DAT_EP_HANDLE h, DAT_COUNT n,
					    DAT_LMR_TRIPLET *iov,
					    DAT_DTO_COOKIE c,
					    const DAT_RMR_TRIPLET *r,
					    DAT_COMPLETION_FLAGS f)
{
	(void)n; (void)iov; (void)c; (void)r; (void)f;
	return ud_rc_only("ep_post_rdma_write", h);
}

DAT_RETURN DAT_API
sd_ud_ep_post_send_with_invalidate(DAT_EP_HANDLE h, DAT_COUNT n,
				   DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE c,
				   DAT_COMPLETION_FLAGS f, DAT_BOOLEAN inv,
				   DAT_RMR_CONTEXT ctx)
{
	(void)n; (void)iov; (void)c; (void)f; (void)inv; (void)ctx;
	return ud_rc_only("ep_post_send_with_invalidate", h);
}

DAT_RETURN DAT_API sd_ud_ep_post_rdma_read_to_rmr(DAT_EP_HANDLE h,
						  const DAT_RMR_TRIPLET *l,
						  DAT_DTO_COOKIE c,
						  const DAT_RMR_TRIPLET *r,
						  DAT_COMPLETION_FLAGS f)
{
	(void)l; (void)c; (void)r; (void)f;
	return ud_rc_only("ep_post_rdma_read_to_rmr", h);
}

/* ------------------------------------------------------------------ */
/* Modify, dup_connect, receive query, watermarks                      */

/*
 * dat_ep_modify on a UD EP: ep.c's rules (sd_ep_modify) carried over to
 * the states a UD EP has.
 *
 *   - What may change: the PZ, the three EVDs (live EVDs of this IA
 *     accepting their stream, as dat_ep_create takes them, or NULL), the
 *     completion flags, the queue depths and segment counts (within the
 *     limits dat_ep_create enforces), max_message_size (at most a
 *     datagram's worth; 0: that), qos and srq_soft_hw (>= 0 or
 *     DAT_WATERMARK_INFINITE; the attribute only, dat_ep_set_watermark
 *     arms the watermark). The RDMA attributes are accepted and stay 0,
 *     as at creation. The consumer context is dat_set_consumer_context's.
 *   - When: only while the EP is quiescent, which for a UD EP means
 *     UNCONNECTED with no address handle being resolved. OFED's EP is
 *     ACTIVE_ or PASSIVE_CONNECTION_PENDING from dat_ep_connect or
 *     dat_cr_accept until the handle comes, and CONNECTED after, and its
 *     dapl_ep_modify refuses both, as an InfiniBand UD QP in RTS cannot
 *     change its CQs or queue sizes: here an attempt in progress is
 *     refused with DAT_INVALID_STATE_EP_ACTCONNPENDING (connect) or
 *     _PASSCONNPENDING (accept) although dat_ep_get_status says
 *     UNCONNECTED, CONNECTED and DISCONNECTED with their own subtypes
 *     (dat_ep_reset makes a DISCONNECTED EP UNCONNECTED again).
 *   - The receive completion flags only with no receive posted; new
 *     depths or segment counts reallocate the queues, only with nothing
 *     posted (DAT_INVALID_STATE with the state's subtype otherwise).
 *   - Service type: only DAT_IB_SERVICE_TYPE_UD (an EP cannot change its
 *     service), else DAT_INVALID_PARAMETER (DAT_INVALID_ARG3), as ep.c
 *     accepts only RC. Transport- and provider-specific attributes: none
 *     exist, so only a count of 0 (DAT_INVALID_ARG3).
 *   - The IA, state, communicator, addresses, port qualifiers and SRQ
 *     cannot be modified, nor can unknown mask bits be named:
 *     DAT_INVALID_PARAMETER (DAT_INVALID_ARG2).
 *
 * Checked in ep.c's order: DAT_INVALID_HANDLE (EP; PZ, EVD_RECV,
 * EVD_REQUEST, EVD_CONN for fields in @mask), DAT_INVALID_PARAMETER
 * (ARG3 for a NULL @p, ARG2, ARG3), DAT_INVALID_STATE, then
 * DAT_INSUFFICIENT_RESOURCES (DAT_RESOURCE_MEMORY) when new queues cannot
 * be allocated; a failed call changes nothing. The checks that need no
 * EP, and the copy of the masked attributes, are ep.c's own
 * (sd_api_modify_args, sd_api_modify_attr_check, sd_api_attr_take).
 * Handles in @p are read only for the fields @mask names. Any consumer
 * thread, no lock held: takes ia->lock (EVD and PZ references), then
 * ep->lock. Allocates (the queues), but not on the data path.
 */
DAT_RETURN DAT_API sd_ud_ep_modify(DAT_EP_HANDLE h, DAT_EP_PARAM_MASK mask,
				   const DAT_EP_PARAM *p)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);
	struct sd_evd *recv_evd, *req_evd, *conn_evd;
	struct sd_ud_dest *dest = NULL;
	struct sd_wq sq, rq;
	struct sd_why why;
	struct sd_pz *pz;
	DAT_RETURN ret;
	DAT_EP_ATTR in, a;
	struct sd_ia *ia;
	bool requeue;

	if (ep == NULL)
		return sd_refuse_handle("ep_modify", NULL, "ep_handle", h,
					SD_MAGIC_UD_EP, DAT_INVALID_HANDLE_EP);
	ia = ep->obj.ia;
	ret = sd_api_modify_args(&ep->obj, mask, p, &pz);
	if (ret != DAT_SUCCESS)
		return ret;
	ret = sd_api_modify_evds(&ep->obj, mask, p, ia, &recv_evd, &req_evd,
				 &conn_evd);
	if (ret != DAT_SUCCESS)
		return ret;
	ret = sd_api_modify_attr_check(&ep->obj, mask, &p->ep_attr,
				      (DAT_SERVICE_TYPE)DAT_IB_SERVICE_TYPE_UD);
	if (ret != DAT_SUCCESS)
		return ret;

	/* ia->lock for the references, then ep->lock (the lock order). */
	pthread_mutex_lock(&ia->lock);
	pthread_mutex_lock(&ep->lock);
	in = ep->attr;
	sd_api_attr_take(&in, mask, &p->ep_attr);
	if (!ud_attr(&in, &a, ep->srq != NULL, &why)) {
		ret = sd_refuse("ep_modify", &ep->obj,
				SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
				"ep_param.ep_attr: %s", why.s);
		goto out;
	}

	/* The state: quiescent only (see above). */
	if (ep->freed) {
		ret = sd_refuse("ep_modify", &ep->obj,
				SD_ERR(DAT_INVALID_HANDLE,
				       DAT_INVALID_HANDLE_EP),
				"the EP is being freed");
		goto out;
	}
	if (ep->state != DAT_EP_STATE_UNCONNECTED) {
		ret = sd_api_bad_state("ep_modify", &ep->obj, ep->state,
				       "UNCONNECTED");
		goto out;
	}
	if (ep->cm_act > 0 || ep->cm_pas > 0) {
		ret = sd_refuse("ep_modify", &ep->obj,
				SD_ERR(DAT_INVALID_STATE, ep->cm_act > 0 ?
				       DAT_INVALID_STATE_EP_ACTCONNPENDING :
				       DAT_INVALID_STATE_EP_PASSCONNPENDING),
				"address handles are being resolved (%u asked "
				"for, %u asked of it)", (unsigned)ep->cm_act,
				(unsigned)ep->cm_pas);
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
	requeue = a.max_recv_dtos != ep->attr.max_recv_dtos ||
		  a.max_request_dtos != ep->attr.max_request_dtos ||
		  a.max_recv_iov != ep->attr.max_recv_iov ||
		  a.max_request_iov != ep->attr.max_request_iov;
	if (requeue) {
		/* Only with nothing posted: receives may be queued. */
		if (ep->sq.count > 0 || ep->rq.count > 0) {
			ret = sd_refuse("ep_modify", &ep->obj,
					sd_api_state_err(ep->state),
					"the queue depths or segment counts "
					"cannot change with DTOs posted (%u "
					"receives, %u requests)",
					(unsigned)ep->rq.count,
					(unsigned)ep->sq.count);
			goto out;
		}
		memset(&sq, 0, sizeof(sq));
		memset(&rq, 0, sizeof(rq));
		if (sd_wq_init(&sq, (uint32_t)a.max_request_dtos,
			       (uint32_t)a.max_request_iov) < 0 ||
		    sd_wq_init(&rq, ep->srq ? 0 : (uint32_t)a.max_recv_dtos,
			       (uint32_t)a.max_recv_iov) < 0 ||
		    (a.max_request_dtos > 0 &&
		     (dest = calloc((size_t)a.max_request_dtos,
				    sizeof(*dest))) == NULL)) {
			sd_wq_destroy(&sq);
			sd_wq_destroy(&rq);
			ret = sd_refuse("ep_modify", &ep->obj,
					SD_ERR(DAT_INSUFFICIENT_RESOURCES,
					       DAT_RESOURCE_MEMORY),
					"no memory for the resized queues");
			goto out;
		}
		sd_wq_destroy(&ep->sq);
		sd_wq_destroy(&ep->rq);
		free(ep->dest);
		ep->sq = sq;
		ep->rq = rq;
		ep->dest = dest;
		ep->tx_blocked = false;
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
out:
	pthread_mutex_unlock(&ep->lock);
	pthread_mutex_unlock(&ia->lock);
	return ret;
}

/*
 * dat_ep_dup_connect on a UD EP (DAT 2.0, 6.5.8): resolves, for @h, an
 * address handle to the same remote as @dup's: the service point (remote
 * address and connection qualifier) that @dup's last dat_ep_connect (or
 * dat_ep_dup_connect) asked and got its address handle from. It is that
 * dat_ep_connect on @h, with @timeout, @pdata and @qos and the default
 * flags: one more independent attempt, ESTABLISHED (DAT_IB_UD_REMOTE_AH)
 * or REJECT/ERROR on @h's connection EVD. As OFED's dapl_ep_dup_connect,
 * which reads the dup EP's remote address and qualifier under its lock
 * and calls dapl_ep_connect, @dup must be CONNECTED. As ep.c, it must be
 * of the same IA and have asked for its handle itself: an EP that has
 * only accepted requests knows its peers' sockets, not a service point
 * of theirs (DAT_INVALID_PARAMETER, DAT_INVALID_ARG2). Unlike RC, where
 * @dup == @h cannot be both unconnected and connected, a UD EP may
 * resolve any number of handles, so @dup may be @h itself.
 *
 * Returns DAT_SUCCESS; DAT_INVALID_HANDLE (DAT_INVALID_HANDLE_EP: @h or
 * @dup not a live UD EP, or of another IA); DAT_INVALID_PARAMETER
 * (ARG3 @timeout 0, ARG4/ARG5 the private data, ARG2 as above);
 * DAT_INVALID_STATE (@dup not CONNECTED: the subtype of its state; @h
 * DISCONNECTED or without a connection EVD, as dat_ep_connect); or what
 * dat_ep_connect returns (DAT_INSUFFICIENT_RESOURCES). Any consumer
 * thread, no lock held: takes @dup's lock, drops it, then @h's (one EP
 * lock at a time).
 */
DAT_RETURN DAT_API sd_ud_ep_dup_connect(DAT_EP_HANDLE h, DAT_EP_HANDLE dup_h,
					DAT_TIMEOUT timeout,
					DAT_COUNT pdata_size,
					const DAT_PVOID pdata, DAT_QOS qos)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);
	struct sd_ud_ep *dup = sd_ud_ep_from_handle(dup_h);
	struct sockaddr_storage ss;
	DAT_CONN_QUAL qual = 0;
	DAT_RETURN ret = DAT_SUCCESS;

	if (ep == NULL)
		return sd_refuse_handle("ep_dup_connect", NULL, "ep_handle", h,
					SD_MAGIC_UD_EP, DAT_INVALID_HANDLE_EP);
	if (dup == NULL || dup->obj.ia != ep->obj.ia)
		return sd_refuse_handle("ep_dup_connect", &ep->obj,
					"ep_dup_handle", dup_h, SD_MAGIC_UD_EP,
					DAT_INVALID_HANDLE_EP);
	if (timeout == 0)
		return sd_refuse("ep_dup_connect", &ep->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
				 "timeout 0: an address handle cannot be "
				 "resolved in no time");
	if (pdata_size < 0 || pdata_size > SD_UD_MAX_PDATA)
		return sd_refuse("ep_dup_connect", &ep->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4),
				 "private_data_size %d is not from 0 to %d",
				 (int)pdata_size, (int)SD_UD_MAX_PDATA);
	if (pdata_size > 0 && pdata == NULL)
		return sd_refuse("ep_dup_connect", &ep->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5),
				 "private_data is NULL, private_data_size %d",
				 (int)pdata_size);

	memset(&ss, 0, sizeof(ss));
	pthread_mutex_lock(&dup->lock);
	if (dup->freed)
		ret = sd_refuse("ep_dup_connect", &ep->obj,
				SD_ERR(DAT_INVALID_HANDLE,
				       DAT_INVALID_HANDLE_EP),
				"ep_dup_handle %s is being freed",
				sd_obj_name(&dup->obj).s);
	else if (dup->state != DAT_EP_STATE_CONNECTED)
		ret = sd_refuse("ep_dup_connect", &ep->obj,
				sd_api_state_err(dup->state),
				"ep_dup_handle %s is %s, needs CONNECTED",
				sd_obj_name(&dup->obj).s,
				sd_qp_state_name(dup->state));
	else if (!dup->has_remote)
		ret = sd_refuse("ep_dup_connect", &ep->obj,
				SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				"ep_dup_handle %s has only accepted requests: "
				"it knows no service point to ask",
				sd_obj_name(&dup->obj).s);
	if (ret == DAT_SUCCESS) {
		ss = dup->remote;
		qual = dup->remote_qual;
	}
	pthread_mutex_unlock(&dup->lock);
	if (ret != DAT_SUCCESS)
		return ret;
	return sd_ud_ep_connect(h, (DAT_IA_ADDRESS_PTR)&ss, qual, timeout,
				pdata_size, pdata, qos, DAT_CONNECT_DEFAULT_FLAG);
}

/*
 * What RC EPs have and UD EPs have not: dat_ep_common_connect asks a
 * Common Service Point, which takes TCP connections only (psp.c), so a
 * UD EP answers DAT_NOT_IMPLEMENTED (DAT_INVALID_HANDLE_EP for a bad
 * handle). Any thread; no lock.
 */
DAT_RETURN DAT_API sd_ud_ep_common_connect(DAT_EP_HANDLE h,
					   DAT_IA_ADDRESS_PTR a,
					   DAT_TIMEOUT t, DAT_COUNT n,
					   const DAT_PVOID p)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);

	(void)a; (void)t; (void)n; (void)p;
	if (ep == NULL)
		return sd_refuse_handle("ep_common_connect", NULL, "ep_handle",
					h, SD_MAGIC_UD_EP,
					DAT_INVALID_HANDLE_EP);
	return sd_refuse("ep_common_connect", &ep->obj,
			 SD_ERR(DAT_NOT_IMPLEMENTED, 0),
			 "a CSP takes TCP connections only, not UD EPs");
}

/*
 * dat_ep_recv_query on a UD EP (DAT 2.0, 6.5.14), as ep.c answers it for
 * RC: a snapshot, under ep->lock, of the receives the EP holds (posted,
 * not completed) and of their span. Datagrams fill receives in post
 * order, one each, so the held ones are always the newest posted,
 * without gaps: the span is the count. Either output may be NULL. Valid
 * in every state (0 once a disconnect flushed them). DAT_SUCCESS, or
 * DAT_INVALID_HANDLE (DAT_INVALID_HANDLE_EP). Any thread; no lock held.
 */
DAT_RETURN DAT_API sd_ud_ep_recv_query(DAT_EP_HANDLE h, DAT_COUNT *nbufs,
				       DAT_COUNT *span)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);
	DAT_COUNT n;

	if (ep == NULL)
		return sd_refuse_handle("ep_recv_query", NULL, "ep_handle", h,
					SD_MAGIC_UD_EP, DAT_INVALID_HANDLE_EP);
	pthread_mutex_lock(&ep->lock);
	n = (DAT_COUNT)ep->rq.count;
	pthread_mutex_unlock(&ep->lock);
	if (nbufs)
		*nbufs = n;
	if (span)
		*span = n;
	return DAT_SUCCESS;
}

/*
 * dat_ep_set_watermark on a UD EP (DAT 2.0, 6.5.15), ep.c's semantics on
 * the receives a UD EP holds (posted, not completed: what
 * dat_ep_recv_query counts). Each watermark is a count >= 0 or
 * DAT_WATERMARK_INFINITE (none); anything else is DAT_INVALID_PARAMETER
 * (DAT_INVALID_ARG2 soft, _ARG3 hard) and changes nothing. Both are
 * recorded and armed, the soft one reported as ep_attr.srq_soft_hw, and
 * checked during this call ("these can occur during this call") and
 * whenever a receive is posted (the only way the count rises):
 *
 *   - exceeding the soft one posts SD_EVENT_WATERMARK (qp.h; reason
 *     DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT, dat_handle the EP) on the IA's
 *     async EVD, once per setting;
 *   - exceeding the hard one while the EP is CONNECTED (an address
 *     handle resolved) breaks it as an RC connection is broken:
 *     DISCONNECTED, everything flushed, DAT_CONNECTION_EVENT_BROKEN on
 *     its connection EVD; an UNCONNECTED EP is checked again when its
 *     first handle is resolved (udcm.c), as cm.c checks an RC EP once
 *     connected. The receive that exceeded it is posted (its post
 *     succeeds) and flushed with the rest.
 *
 * OFED's dapl_ep_set_watermark answers DAT_NOT_IMPLEMENTED for every EP;
 * this follows softdapl's RC EPs instead. Valid in every state. Returns
 * DAT_SUCCESS, DAT_INVALID_HANDLE (DAT_INVALID_HANDLE_EP) or
 * DAT_INVALID_PARAMETER. Any consumer thread, no lock held: ep->lock,
 * then (soft event) ia->lock and the async EVD's once it is dropped.
 */
DAT_RETURN DAT_API sd_ud_ep_set_watermark(DAT_EP_HANDLE h, DAT_COUNT soft,
					  DAT_COUNT hard)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);
	struct sd_ia *ia;
	DAT_RETURN ret = DAT_SUCCESS;
	bool fired = false;

	if (ep == NULL)
		return sd_refuse_handle("ep_set_watermark", NULL, "ep_handle", h,
					SD_MAGIC_UD_EP, DAT_INVALID_HANDLE_EP);
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
	ia = ep->obj.ia;
	pthread_mutex_lock(&ep->lock);
	if (ep->freed) {
		ret = sd_refuse("ep_set_watermark", &ep->obj,
				SD_ERR(DAT_INVALID_HANDLE,
				       DAT_INVALID_HANDLE_EP),
				"the EP is being freed");
	} else {
		ep->soft_hw = soft;
		ep->soft_armed = soft != DAT_WATERMARK_INFINITE;
		ep->attr.srq_soft_hw = soft;
		ep->hard_hw = hard;
		ep->hard_armed = hard != DAT_WATERMARK_INFINITE;
		fired = sd_ud_check_watermarks(ep, true);
	}
	pthread_mutex_unlock(&ep->lock);
	if (fired)
		sd_evq_async_error(ia, SD_EVENT_WATERMARK, h,
			       DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Address handles and CM objects                                      */

DAT_RETURN sd_ud_ah_free(DAT_EP_HANDLE h, const DAT_IB_ADDR_HANDLE *a)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);
	struct sd_ud_ah *ah;

	/* dat_ib_ud_ah_free(ep, ah) */
	if (ep == NULL)
		return sd_refuse_handle("ib_ud_ah_free", NULL, "ep_handle", h,
					SD_MAGIC_UD_EP, DAT_INVALID_HANDLE_EP);
	if (a == NULL)
		return sd_refuse_null("ib_ud_ah_free", &ep->obj, "ah",
				      DAT_INVALID_ARG2);
	pthread_mutex_lock(&ep->lock);
	pthread_mutex_lock(&sd_ud_ah_lock);
	ah = ud_ah_check(ep, a);
	if (ah != NULL) {
		sd_list_del(&ah->node);
		ah->magic = 0;
	}
	pthread_mutex_unlock(&sd_ud_ah_lock);
	pthread_mutex_unlock(&ep->lock);
	if (ah == NULL)
		return sd_refuse("ib_ud_ah_free", &ep->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				 "ah %p names no live address handle this EP "
				 "resolved in its IA and PZ", (void *)a->ah);
	free(ah);
	return DAT_SUCCESS;
}

DAT_RETURN sd_ud_cm_free(DAT_EP_HANDLE h, void *p)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);
	struct sd_ud_cm *cm = p;
	DAT_RETURN ret = DAT_SUCCESS;

	/* dat_ib_ud_cm_free(ep, cm): the engine frees it once it is done. */
	if (ep == NULL)
		return sd_refuse_handle("ib_ud_cm_free", NULL, "ep_handle", h,
					SD_MAGIC_UD_EP, DAT_INVALID_HANDLE_EP);
	if ((uintptr_t)cm < SD_HANDLE_MIN)
		return sd_refuse("ib_ud_cm_free", &ep->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				 "cm %p is not a CM object", p);
	pthread_mutex_lock(&ep->lock);
	if (cm->magic != SD_UD_CM_MAGIC || cm->ep != ep || cm->released)
		ret = sd_refuse("ib_ud_cm_free", &ep->obj,
				SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				"cm %p %s", p, cm->magic != SD_UD_CM_MAGIC ?
				"is not a CM object" : cm->ep != ep ?
				"belongs to another EP" :
				"was freed already");
	else
		cm->released = true;
	pthread_mutex_unlock(&ep->lock);
	return ret;
}
