/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DTO entry points: dat_ep_post_send, _recv, _rdma_write, _rdma_read,
 * _send_with_invalidate, _rdma_read_to_rmr; and the IB extension's
 * requests for ext.c (sd_post_write_imm, sd_post_atomic).
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
 *     for a WRITE, READ or atomic the peer refused (WRITE-6) or a SEND
 *     with invalidate naming nothing the peer may invalidate,
 *     DAT_DTO_ERR_REMOTE_RESPONDER for a SEND the peer had no room for;
 *   - for an RMR bind, DAT_RMR_BIND_COMPLETION_EVENT once it took effect
 *     (DAT_RMR_BIND_FAILURE if the RMR was freed meanwhile), flushed as
 *     the DTOs are;
 *   - DAT_DTO_ERR_FLUSHED for everything else outstanding when the EP
 *     becomes DISCONNECTED (after the ones that completed normally), and
 *     at once for a post on a DISCONNECTED EP (SEND-5, RECV-7, WRITE-4).
 *
 * Completions come in post order per queue: the request queue (sends,
 * writes, reads, binds and atomics together) and the receive queue. The one exception is
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

#include <dat2/dat_ib_extensions.h>

#include "api.h"
#include "entry.h"
#include "mem.h"
#include "post.h"
#include "progress.h"
#include "proto.h"
#include "qp.h"
#include "trace.h"
#include "util.h"
#include "wire.h"
#include "wq.h"

/*
 * A request to post: the arguments of the call, and where each stands
 * in it (the subtype that names it in an error).
 */
struct req {
	const char		*api;		/* the call's trace name, and
						 * its name in refusals */
	uint8_t			op;		/* enum sd_wr_op */
	DAT_COUNT		n;
	const DAT_LMR_TRIPLET	*iov;
	DAT_DTO_COOKIE		cookie;
	const DAT_RMR_TRIPLET	*remote;	/* NULL for a SEND */
	DAT_COMPLETION_FLAGS	flags;
	DAT_RETURN_SUBTYPE	arg_n, arg_iov, arg_remote, arg_flags;
	const DAT_RMR_TRIPLET	*rmr_local;	/* read_to_rmr: the local side */
	bool			inv;		/* SEND with invalidate of inv_ctx */
	DAT_RMR_CONTEXT		inv_ctx;
	uint32_t		imm;		/* WRITE_IMM */
	uint8_t			atomic[SD_ATOMIC_ARGS];
};

static bool is_atomic(uint8_t op)
{
	return op == SD_WR_FETCH_ADD || op == SD_WR_CMP_SWAP;
}

/*
 * Every request post: SEND (with or without invalidate), RDMA WRITE (with
 * or without immediate data), RDMA READ (into LMR segments or an RMR),
 * atomics. Checks, in this order: the EP handle, the flags, the remote
 * triplet's presence, the local segments (COMMON-1, 5..7), the lengths
 * (DAT_LENGTH_ERROR: above the provider's limit, WRITE-5, an atomic's
 * 8 bytes), then under ep->lock the state (SEND-4, SEND-5, WRITE-4) and
 * the queue (COMMON-8).
 */
/*
 * Counts a request post (dat_ib_query_counters: DCNT_EP_POST_*). The IB
 * extension's write-immediate and atomics are counted by ext.c.
 */
static void count_post(struct sd_ep *ep, uint8_t op, uint64_t bytes)
{
	switch (op) {
	case SD_WR_SEND:
		sd_cnt_inc(ep->cnt, DCNT_EP_POST_SEND);
		sd_cnt_add(ep->cnt, DCNT_EP_POST_SEND_DATA, bytes);
		break;
	case SD_WR_RDMA_WRITE:
		sd_cnt_inc(ep->cnt, DCNT_EP_POST_WRITE);
		sd_cnt_add(ep->cnt, DCNT_EP_POST_WRITE_DATA, bytes);
		break;
	case SD_WR_RDMA_READ:
		sd_cnt_inc(ep->cnt, DCNT_EP_POST_READ);
		sd_cnt_add(ep->cnt, DCNT_EP_POST_READ_DATA, bytes);
		break;
	default:
		break;
	}
}

/*
 * The request's `api` line (trace.h): written by post_request where the
 * post is known to succeed, before its frame can go out, or when it
 * failed. @total and @nsge are the local segments' (success only).
 */
static void trace_post(DAT_EP_HANDLE h, const struct req *q, DAT_RETURN ret,
		       uint64_t total, unsigned nsge)
{
	if (ret != DAT_SUCCESS) {
		sd_trace("api", sd_handle_name(h).s, q->api,
			 "ret=%s cookie=0x%llx flags=%s",
			 sd_trace_ret_name(ret),
			 (unsigned long long)q->cookie.as_64,
			 sd_trace_flags(q->flags).s);
	} else if (q->remote == NULL) {
		sd_trace("api", sd_handle_name(h).s, q->api,
			 "ret=%s cookie=0x%llx len=%llu segs=%u flags=%s",
			 sd_trace_ret_name(ret),
			 (unsigned long long)q->cookie.as_64,
			 (unsigned long long)total, nsge,
			 sd_trace_flags(q->flags).s);
	} else {
		sd_trace("api", sd_handle_name(h).s, q->api,
			 "ret=%s cookie=0x%llx len=%llu segs=%u flags=%s rkey=0x%x raddr=0x%llx rlen=%llu",
			 sd_trace_ret_name(ret),
			 (unsigned long long)q->cookie.as_64,
			 (unsigned long long)total, nsge,
			 sd_trace_flags(q->flags).s,
			 (unsigned)q->remote->rmr_context,
			 (unsigned long long)q->remote->virtual_address,
			 (unsigned long long)q->remote->segment_length);
	}
}

/* A post refused before post_request: traced, and @ret returned. */
static DAT_RETURN post_refused(DAT_EP_HANDLE h, const struct req *q,
			       DAT_RETURN ret)
{
	if (sd_trace_enabled())
		trace_post(h, q, ret, 0, 0);
	return ret;
}

static DAT_RETURN post_checked(DAT_EP_HANDLE h, const struct req *q);

static DAT_RETURN post_request(DAT_EP_HANDLE h, const struct req *q)
{
	const char *outer = sd_trace_call;
	DAT_RETURN ret;

	/* Frames the post sends from this thread are its (by=, TRACE.md). */
	if (sd_trace_enabled())
		sd_trace_call = q->api;
	ret = post_checked(h, q);
	if (sd_trace_enabled())
		sd_trace_call = outer;
	/* A post that succeeds traced its line itself. */
	if (ret != DAT_SUCCESS && sd_trace_enabled())
		trace_post(h, q, ret, 0, 0);
	return ret;
}

static DAT_RETURN post_checked(DAT_EP_HANDLE h, const struct req *q)
{
	struct sd_ep *ep = sd_ep_from_handle(h);
	struct sd_sge sge[SD_MAX_IOV];
	DAT_MEM_PRIV_FLAGS need;
	DAT_COUNT max;
	DAT_RETURN ret = DAT_SUCCESS;
	struct sd_wqe *w, tmpl;
	uint64_t total = 0, limit;
	uint16_t nsge = 0;
	bool solicited_ok = q->op == SD_WR_SEND || q->op == SD_WR_WRITE_IMM;
	struct sd_why why;

	if (ep == NULL)
		return sd_refuse_handle(q->api, NULL, "ep_handle", h,
					SD_MAGIC_EP, DAT_INVALID_HANDLE_EP);
	if (!sd_api_flags_ok(q->flags, ep->attr.request_completion_flags))
		return sd_api_bad_flags(q->api, &ep->obj, q->flags,
					ep->attr.request_completion_flags,
					"request_completion_flags",
					q->arg_flags);
	if (!solicited_ok && (q->flags & DAT_COMPLETION_SOLICITED_WAIT_FLAG))
		return sd_refuse(q->api, &ep->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, q->arg_flags),
				 "completion_flags 0x%x: "
				 "DAT_COMPLETION_SOLICITED_WAIT_FLAG is for a "
				 "send", (unsigned)q->flags);
	if (q->op != SD_WR_SEND && q->remote == NULL)
		return sd_refuse_null(q->api, &ep->obj, "remote_iov",
				      q->arg_remote);
	switch (q->op) {
	case SD_WR_SEND:
		max = ep->attr.max_request_iov;
		need = DAT_MEM_PRIV_LOCAL_READ_FLAG;
		limit = SD_MAX_MESSAGE_SIZE;
		break;
	case SD_WR_RDMA_WRITE:
	case SD_WR_WRITE_IMM:
		max = ep->attr.max_rdma_write_iov;
		need = DAT_MEM_PRIV_LOCAL_READ_FLAG;
		limit = SD_MAX_RDMA_SIZE;
		break;
	case SD_WR_RDMA_READ:
		max = ep->attr.max_rdma_read_iov;
		need = DAT_MEM_PRIV_LOCAL_WRITE_FLAG;
		limit = SD_MAX_RDMA_SIZE;
		break;
	default:	/* atomics: one segment, its first 8 bytes */
		max = 1;
		need = DAT_MEM_PRIV_LOCAL_WRITE_FLAG;
		limit = UINT64_MAX;
		break;
	}
	if (q->rmr_local != NULL) {
		/* read_to_rmr: resolved under ep->lock below. */
	} else {
		/* COMMON-5..7 */
		int r = sd_mem_resolve_iov(&why, ep->obj.ia, ep->pz, q->n,
					   q->iov, max, need, sge, &nsge,
					   &total);

		if (r < 0)
			return sd_refuse(q->api, &ep->obj,
					 sd_api_errno(r, &(struct sd_argpos){
						.count = q->arg_n,
						.iov = q->arg_iov,
						.write = need ==
						DAT_MEM_PRIV_LOCAL_WRITE_FLAG }),
					 "%s", why.s);
	}
	if (is_atomic(q->op)) {
		if (q->remote->virtual_address % SD_ATOMIC_SIZE != 0)
			return sd_refuse(q->api, &ep->obj,
					 SD_ERR(DAT_INVALID_PARAMETER,
						q->arg_remote),
					 "remote_iov.virtual_address 0x%llx is "
					 "not %u-byte aligned",
					 (unsigned long long)
					 q->remote->virtual_address,
					 (unsigned)SD_ATOMIC_SIZE);
		if (total < SD_ATOMIC_SIZE ||
		    q->remote->segment_length < SD_ATOMIC_SIZE)
			return sd_refuse(q->api, &ep->obj,
					 SD_ERR(DAT_LENGTH_ERROR, 0),
					 "%s is %llu bytes, an atomic needs %u",
					 total < SD_ATOMIC_SIZE ? "local_iov" :
					 "remote_iov",
					 (unsigned long long)
					 (total < SD_ATOMIC_SIZE ? total :
					  q->remote->segment_length),
					 (unsigned)SD_ATOMIC_SIZE);
		sge[0].len = SD_ATOMIC_SIZE;
		total = SD_ATOMIC_SIZE;
	}
	/*
	 * The EP's max_message_size and max_rdma_size are not enforced, as
	 * in OFED (consumers rely on it); the provider's limits are.
	 */
	if (total > limit)
		return sd_refuse(q->api, &ep->obj, SD_ERR(DAT_LENGTH_ERROR, 0),
				 "local_iov holds %llu bytes, above the "
				 "provider's limit of %llu",
				 (unsigned long long)total,
				 (unsigned long long)limit);
	/* WRITE-5, and the same for a read's source. */
	if (q->op != SD_WR_SEND && !is_atomic(q->op) &&
	    q->rmr_local == NULL && total > q->remote->segment_length)
		return sd_refuse(q->api, &ep->obj, SD_ERR(DAT_LENGTH_ERROR, 0),
				 "local_iov holds %llu bytes, remote_iov "
				 "only %llu (WRITE-5)",
				 (unsigned long long)total,
				 (unsigned long long)q->remote->segment_length);

	memset(&tmpl, 0, sizeof(tmpl));
	tmpl.cookie = q->cookie;
	tmpl.flags = q->flags;
	tmpl.op = q->op;
	tmpl.status = SD_WQE_PENDING;
	tmpl.inv = q->inv;
	tmpl.imm = q->imm;
	if (q->remote != NULL)
		tmpl.remote = *q->remote;
	else if (q->inv)
		tmpl.remote.rmr_context = q->inv_ctx;
	memcpy(tmpl.x.atomic, q->atomic, sizeof(tmpl.x.atomic));

	pthread_mutex_lock(&ep->lock);
	if (q->rmr_local != NULL) {
		const struct sd_argpos pos = { .iov = DAT_INVALID_ARG2,
					       .write = true };
		int r = sd_mem_resolve_rmr_local(ep->obj.ia, ep->pz,
						 ep->tx.ep_id, q->rmr_local,
						 &sge[0]);

		if (r < 0) {
			ret = sd_api_fail(q->api, &ep->obj, r, &pos,
					  "local_iov (rmr_context 0x%x, "
					  "[0x%llx, +%llu))",
					  (unsigned)q->rmr_local->rmr_context,
					  (unsigned long long)
					  q->rmr_local->virtual_address,
					  (unsigned long long)
					  q->rmr_local->segment_length);
			goto out;
		}
		nsge = sge[0].len > 0 ? 1 : 0;
		total = sge[0].len;
		if (total > limit || total > q->remote->segment_length) {
			ret = sd_refuse(q->api, &ep->obj,
					SD_ERR(DAT_LENGTH_ERROR, 0),
					"local_iov is %llu bytes, above %s "
					"(%llu)", (unsigned long long)total,
					total > limit ? "the provider's limit" :
					"remote_iov's length",
					(unsigned long long)(total > limit ?
					limit : q->remote->segment_length));
			goto out;
		}
	}
	if (ep->state == DAT_EP_STATE_DISCONNECTED) {
		count_post(ep, q->op, total);
		if (sd_trace_enabled())
			trace_post(h, q, DAT_SUCCESS, total, nsge);
		sd_qp_flush_one(ep, &tmpl);		/* SEND-5, WRITE-4 */
		goto out;
	}
	if (ep->state != DAT_EP_STATE_CONNECTED) {	/* SEND-4, WRITE-4 */
		ret = sd_api_bad_state(q->api, &ep->obj, ep->state,
				       "CONNECTED or DISCONNECTED (SEND-4)");
		goto out;
	}
	if (total > (q->op == SD_WR_SEND ? ep->peer_max_msg : ep->peer_max_rdma)) {
		ret = sd_refuse(q->api, &ep->obj, SD_ERR(DAT_LENGTH_ERROR, 0),
				"local_iov holds %llu bytes, above the peer's "
				"%s of %llu", (unsigned long long)total,
				q->op == SD_WR_SEND ? "max_message_size" :
				"max_rdma_size", (unsigned long long)
				(q->op == SD_WR_SEND ? ep->peer_max_msg :
				 ep->peer_max_rdma));
		goto out;
	}
	w = sd_wq_next(&ep->sq);
	if (w == NULL) {				/* COMMON-8 */
		ret = sd_refuse(q->api, &ep->obj,
				SD_ERR(DAT_INSUFFICIENT_RESOURCES,
				       DAT_RESOURCE_TEP),
				"the request queue is full: %u posted, none "
				"completed yet (max_request_dtos %u) (COMMON-8)",
				(unsigned)ep->sq.count, (unsigned)ep->sq.size);
		goto out;
	}
	{
		struct sd_sge *slots = w->sge;

		*w = tmpl;
		w->sge = slots;
	}
	w->nsge = nsge;
	w->len = total;
	memcpy(w->sge, sge, nsge * sizeof(*sge));
	count_post(ep, q->op, total);
	if (sd_trace_enabled())
		trace_post(h, q, DAT_SUCCESS, total, nsge);
	sd_wq_push(&ep->sq);
	sd_tx_post(ep);
out:
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

DAT_RETURN DAT_API sd_ep_post_send(DAT_EP_HANDLE ep, DAT_COUNT n,
				   DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
				   DAT_COMPLETION_FLAGS flags)
{
	struct req q = {
		.api = "ep_post_send",
		.op = SD_WR_SEND, .n = n, .iov = iov, .cookie = cookie,
		.flags = flags, .arg_n = DAT_INVALID_ARG2,
		.arg_iov = DAT_INVALID_ARG3, .arg_flags = DAT_INVALID_ARG5,
	};

	return post_request(ep, &q);
}

DAT_RETURN DAT_API sd_ep_post_rdma_write(DAT_EP_HANDLE ep, DAT_COUNT n,
					 DAT_LMR_TRIPLET *iov,
					 DAT_DTO_COOKIE cookie,
					 const DAT_RMR_TRIPLET *remote,
					 DAT_COMPLETION_FLAGS flags)
{
	struct req q = {
		.api = "ep_post_rdma_write",
		.op = SD_WR_RDMA_WRITE, .n = n, .iov = iov, .cookie = cookie,
		.remote = remote, .flags = flags, .arg_n = DAT_INVALID_ARG2,
		.arg_iov = DAT_INVALID_ARG3, .arg_remote = DAT_INVALID_ARG5,
		.arg_flags = DAT_INVALID_ARG6,
	};

	return post_request(ep, &q);
}

DAT_RETURN DAT_API sd_ep_post_rdma_read(DAT_EP_HANDLE ep, DAT_COUNT n,
					DAT_LMR_TRIPLET *iov,
					DAT_DTO_COOKIE cookie,
					const DAT_RMR_TRIPLET *remote,
					DAT_COMPLETION_FLAGS flags)
{
	struct req q = {
		.api = "ep_post_rdma_read",
		.op = SD_WR_RDMA_READ, .n = n, .iov = iov, .cookie = cookie,
		.remote = remote, .flags = flags, .arg_n = DAT_INVALID_ARG2,
		.arg_iov = DAT_INVALID_ARG3, .arg_remote = DAT_INVALID_ARG5,
		.arg_flags = DAT_INVALID_ARG6,
	};

	return post_request(ep, &q);
}

/*
 * DAT 2.0: a SEND that, when placed, invalidates the receiver's RMR whose
 * context is @rmr_context (an RMR of the receiver's PZ; of EP scope, one
 * bound through the receiving EP); the receive completes as
 * DAT_DTO_RECEIVE_WITH_INVALIDATE naming it. A context that names no
 * such RMR breaks the connection: the SEND completes
 * DAT_DTO_ERR_REMOTE_ACCESS and no receive is consumed. With
 * @invalidate false it is dat_ep_post_send. Subtypes: flags ARG5,
 * invalidate ARG6 (neither DAT_TRUE nor DAT_FALSE).
 */
DAT_RETURN DAT_API sd_ep_post_send_with_invalidate(DAT_EP_HANDLE ep, DAT_COUNT n,
						   DAT_LMR_TRIPLET *iov,
						   DAT_DTO_COOKIE cookie,
						   DAT_COMPLETION_FLAGS flags,
						   DAT_BOOLEAN invalidate,
						   DAT_RMR_CONTEXT rmr_context)
{
	struct req q = {
		.api = "ep_post_send_with_invalidate",
		.op = SD_WR_SEND, .n = n, .iov = iov, .cookie = cookie,
		.flags = flags, .arg_n = DAT_INVALID_ARG2,
		.arg_iov = DAT_INVALID_ARG3, .arg_flags = DAT_INVALID_ARG5,
		.inv = invalidate == DAT_TRUE, .inv_ctx = rmr_context,
	};

	struct sd_ep *e = sd_ep_from_handle(ep);

	if (e == NULL)
		return post_refused(ep, &q,
				    sd_refuse_handle(q.api, NULL, "ep_handle",
						     ep, SD_MAGIC_EP,
						     DAT_INVALID_HANDLE_EP));
	if (invalidate != DAT_TRUE && invalidate != DAT_FALSE)
		return post_refused(ep, &q,
				    sd_refuse(q.api, &e->obj,
					      SD_ERR(DAT_INVALID_PARAMETER,
						     DAT_INVALID_ARG6),
					      "invalidate_flag %u is neither "
					      "DAT_TRUE nor DAT_FALSE",
					      (unsigned)invalidate));
	return post_request(ep, &q);
}

/*
 * DAT 2.0: an RDMA read into @local, a region of this side exposed
 * remotely: an LMR's rmr_context, or a bound RMR's (of EP scope: bound
 * through this EP), that grants remote write, as the data arrives as a
 * remote write would. Errors: DAT_INVALID_PARAMETER (ARG2: no @local or
 * outside its region; ARG4: no @remote; ARG5: flags),
 * DAT_PRIVILEGES_VIOLATION, DAT_PROTECTION_VIOLATION (another PZ),
 * DAT_LENGTH_ERROR (@local longer than @remote), then the state and the
 * queue as dat_ep_post_rdma_read. It completes as DAT_DTO_RDMA_READ.
 */
DAT_RETURN DAT_API sd_ep_post_rdma_read_to_rmr(DAT_EP_HANDLE ep,
					       const DAT_RMR_TRIPLET *local,
					       DAT_DTO_COOKIE cookie,
					       const DAT_RMR_TRIPLET *remote,
					       DAT_COMPLETION_FLAGS flags)
{
	struct req q = {
		.api = "ep_post_rdma_read_to_rmr",
		.op = SD_WR_RDMA_READ, .cookie = cookie, .remote = remote,
		.flags = flags, .rmr_local = local,
		.arg_remote = DAT_INVALID_ARG4, .arg_flags = DAT_INVALID_ARG5,
	};
	struct sd_ep *e = sd_ep_from_handle(ep);

	if (e == NULL)
		return post_refused(ep, &q,
				    sd_refuse_handle(q.api, NULL, "ep_handle",
						     ep, SD_MAGIC_EP,
						     DAT_INVALID_HANDLE_EP));
	if (local == NULL)
		return post_refused(ep, &q,
				    sd_refuse_null(q.api, &e->obj, "local_iov",
						   DAT_INVALID_ARG2));
	return post_request(ep, &q);
}

DAT_RETURN sd_post_write_imm(DAT_EP_HANDLE ep, DAT_COUNT n,
			     const DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
			     const DAT_RMR_TRIPLET *remote, uint32_t imm,
			     DAT_COMPLETION_FLAGS flags)
{
	struct req q = {
		.api = "ib_post_rdma_write_immed",
		.op = SD_WR_WRITE_IMM, .n = n, .iov = iov, .cookie = cookie,
		.remote = remote, .flags = flags, .imm = imm,
		.arg_n = DAT_INVALID_ARG2, .arg_iov = DAT_INVALID_ARG3,
		.arg_remote = DAT_INVALID_ARG5, .arg_flags = DAT_INVALID_ARG7,
	};

	return post_request(ep, &q);
}

DAT_RETURN sd_post_atomic(DAT_EP_HANDLE ep, enum sd_atomic_op op,
			  uint64_t cmp_add, uint64_t swap,
			  const DAT_LMR_TRIPLET *local, DAT_DTO_COOKIE cookie,
			  const DAT_RMR_TRIPLET *remote,
			  DAT_COMPLETION_FLAGS flags)
{
	bool cas = op == SD_ATOMIC_CMP_SWAP;
	struct req q = {
		.api = cas ? "ib_post_cmp_and_swap" : "ib_post_fetch_and_add",
		.op = cas ? SD_WR_CMP_SWAP : SD_WR_FETCH_ADD, .n = 1,
		.iov = local, .cookie = cookie, .remote = remote,
		.flags = flags,
		/* fetch-and-add (ep, add, local, cookie, remote, flags);
		 * compare-and-swap (ep, cmp, swap, local, cookie, remote,
		 * flags) */
		.arg_n = cas ? DAT_INVALID_ARG4 : DAT_INVALID_ARG3,
		.arg_iov = cas ? DAT_INVALID_ARG4 : DAT_INVALID_ARG3,
		.arg_remote = cas ? DAT_INVALID_ARG6 : DAT_INVALID_ARG5,
		.arg_flags = cas ? DAT_INVALID_ARG7 : DAT_INVALID_ARG6,
	};

	struct sd_ep *e = sd_ep_from_handle(ep);

	if (e == NULL)
		return post_refused(ep, &q,
				    sd_refuse_handle(q.api, NULL, "ep_handle",
						     ep, SD_MAGIC_EP,
						     DAT_INVALID_HANDLE_EP));
	if (op != SD_ATOMIC_FETCH_ADD && op != SD_ATOMIC_CMP_SWAP)
		return post_refused(ep, &q,
				    sd_refuse(q.api, &e->obj,
					      SD_ERR(DAT_INVALID_PARAMETER,
						     DAT_INVALID_ARG2),
					      "atomic operation %d is not one "
					      "softdapl knows", (int)op));
	if (local == NULL)
		return post_refused(ep, &q,
				    sd_refuse_null(q.api, &e->obj, "local_iov",
						   q.arg_iov));
	sd_put64(q.atomic, cmp_add);
	sd_put64(q.atomic + 8, cas ? swap : 0);
	return post_request(ep, &q);
}

DAT_RETURN DAT_API sd_ep_post_recv(DAT_EP_HANDLE h, DAT_COUNT n,
				   DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
				   DAT_COMPLETION_FLAGS flags)
{
	struct sd_ep *ep = sd_ep_from_handle(h);
	struct sd_sge sge[SD_MAX_IOV];
	DAT_RETURN ret = DAT_SUCCESS;
	struct sd_wqe *w, tmpl;
	struct sd_why why;
	uint64_t total;
	uint16_t nsge = 0;
	int r;

	if (ep == NULL)
		return sd_refuse_handle("ep_post_recv", NULL, "ep_handle", h,
					SD_MAGIC_EP, DAT_INVALID_HANDLE_EP);
	if (ep->srq != NULL)	/* its receives come from the SRQ */
		return sd_refuse("ep_post_recv", &ep->obj,
				 SD_ERR(DAT_INVALID_STATE,
					DAT_INVALID_STATE_SRQ_IN_USE),
				 "the EP receives from %s: post to the SRQ",
				 sd_obj_name(&ep->srq->obj).s);
	if (!sd_api_flags_ok(flags, ep->attr.recv_completion_flags))	/* RECV-4 */
		return sd_api_bad_flags("ep_post_recv", &ep->obj, flags,
					ep->attr.recv_completion_flags,
					"recv_completion_flags",
					DAT_INVALID_ARG5);
	r = sd_mem_resolve_iov(&why, ep->obj.ia, ep->pz, n, iov,
			       ep->attr.max_recv_iov,
			       DAT_MEM_PRIV_LOCAL_WRITE_FLAG, sge, &nsge, &total);
	if (r < 0)
		return sd_refuse("ep_post_recv", &ep->obj,
				 sd_api_errno(r, &(struct sd_argpos){
					.count = DAT_INVALID_ARG2,
					.iov = DAT_INVALID_ARG3,
					.write = true }), "%s", why.s);

	memset(&tmpl, 0, sizeof(tmpl));
	tmpl.cookie = cookie;
	tmpl.flags = flags;
	tmpl.op = SD_WR_RECV;
	tmpl.status = SD_WQE_PENDING;
	tmpl.nsge = nsge;
	tmpl.len = total;

	pthread_mutex_lock(&ep->lock);
	sd_cnt_inc(ep->cnt, DCNT_EP_POST_RECV);
	sd_cnt_add(ep->cnt, DCNT_EP_POST_RECV_DATA, total);
	if (ep->state == DAT_EP_STATE_DISCONNECTED) {	/* RECV-7 */
		sd_qp_flush_one(ep, &tmpl);
		goto out;
	}
	w = sd_wq_next(&ep->rq);			/* RECV-6: any state */
	if (w == NULL) {
		ret = sd_refuse("ep_post_recv", &ep->obj,
				SD_ERR(DAT_INSUFFICIENT_RESOURCES,
				       DAT_RESOURCE_TEP),
				"the receive queue is full: %u posted, none "
				"completed yet (max_recv_dtos %u) (COMMON-8)",
				(unsigned)ep->rq.count, (unsigned)ep->rq.size);
		goto out;
	}
	{
		struct sd_sge *slots = w->sge;

		*w = tmpl;
		w->sge = slots;
	}
	memcpy(w->sge, sge, nsge * sizeof(*sge));
	sd_wq_push(&ep->rq);
	/* dat_ep_set_watermark: one more buffer held. */
	if (ep->soft_armed || ep->hard_armed)
		(void)sd_qp_check_watermarks(ep, 0);
	/*
	 * A message was waiting for a buffer (RNR): place it now, and have
	 * the engine poll the socket for input again.
	 */
	if (ep->rx.state == SD_RX_BUF)
		sd_progress_resume(ep);
out:
	pthread_mutex_unlock(&ep->lock);
	return ret;
}
