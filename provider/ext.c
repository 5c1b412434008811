/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The handle_extendedop slot: every operation of <dat2/dat_ib_extensions.h>
 * arrives here through dat_extension_op as (handle, op code, va_list),
 * is decoded with exactly the argument types its dat_ib_* macro casts to
 * (they are part of the ABI), and goes to the code that does it:
 *
 *   RDMA write immediate, fetch-and-add, compare-and-swap
 *                        the data path: sd_post_write_imm, sd_post_atomic
 *   UD send, AH free, CM free            ud.c
 *
 * and the provider table's slots that go to UD or RC by their arguments:
 * ep_create, ep_create_with_srq (a UD service type makes a UD EP),
 * psp_create, psp_create_any, psp_free (with the PSP's UDP side, udcm.c).
 *   counters (query, print, start, stop) counters.c
 *   open/close query                     here
 *   collectives          DAT_NOT_IMPLEMENTED, as OFED built without
 *                        DAT_IB_COLLECTIVES answers (and they are not
 *                        advertised: no DAT_COLL_* provider attribute)
 *   anything else        DAT_NOT_IMPLEMENTED, as OFED
 *
 * Each callee checks its own arguments and returns the DAT_RETURN for the
 * consumer; this file adds nothing but the decoding and the per-EP
 * counters of the RC operations. Any thread, no lock held.
 *
 * The query handle. dat_ib_open_query reaches a provider with no IA open:
 * the registry passes the IA name as the handle. We answer with a small
 * object (struct sd_query) that holds the registration open (as an open
 * IA does: sd_reg_open) and the address ia_params names, so that the
 * attributes are those dat_ia_query would report, ia_address_ptr
 * included, valid until dat_ib_close_query. It opens no socket and does
 * not start the engine. Its first word is the IA name's provider table,
 * which routes dat_ib_close_query back here; it is not an IA, and every
 * other call refuses it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "entry.h"
#include "ext.h"
#include "ia.h"
#include "obj.h"
#include "post.h"
#include "qp.h"
#include "refuse.h"
#include "sp.h"
#include "trace.h"
#include "util.h"

struct sd_query {
	struct sd_obj		obj;		/* magic SD_MAGIC_QUERY */
	struct sd_ia_addr	addr;		/* const: what ia_params named */
	struct sd_ia_named	named;		/* const: provider_attr points here */
};

static DAT_RETURN open_query(const char *name, DAT_IA_HANDLE *out,
			     DAT_IA_ATTR_MASK ia_mask, DAT_IA_ATTR *ia_attr,
			     DAT_PROVIDER_ATTR_MASK pr_mask,
			     DAT_PROVIDER_ATTR *pr_attr)
{
	struct sd_query *q;
	DAT_PROVIDER *table;
	char *params = NULL, err[256];
	DAT_RETURN ret;
	int rc;

	(void)ia_mask;	/* as dat_ia_query: everything is filled */
	(void)pr_mask;
	/* The name is the handle: ARG1 of dat_ib_open_query (OFED's codes). */
	if (name == NULL)
		return sd_refuse_null("ib_open_query", NULL, "ia_name",
				      DAT_INVALID_ARG1);
	if (out == NULL)
		return sd_refuse_null("ib_open_query", NULL, "ia_handle",
				      DAT_INVALID_ARG2);
	if (ia_attr == NULL && pr_attr == NULL)
		return sd_refuse("ib_open_query", NULL,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5),
				 "%s: ia_attr and provider_attr are both NULL",
				 name);
	rc = sd_reg_open(name, &table, &params);
	if (rc < 0)
		return sd_api_fail("ib_open_query", NULL, rc,
				   &(const struct sd_argpos){ 0 }, "ia_name %s",
				   name);
	q = calloc(1, sizeof(*q));
	if (q == NULL) {
		ret = sd_refuse("ib_open_query", NULL,
				SD_ERR(DAT_INSUFFICIENT_RESOURCES,
				       DAT_RESOURCE_MEMORY),
				"%s: no memory for the query", name);
		goto fail;
	}
	rc = sd_params_parse(params, &q->addr, err, sizeof(err));
	if (rc != 0) {
		ret = sd_refuse("ib_open_query", NULL,
				SD_ERR(DAT_INVALID_ADDRESS, rc == -EINVAL ?
				       DAT_INVALID_ADDRESS_MALFORMED :
				       DAT_INVALID_ADDRESS_UNREACHABLE),
				"%s: ia_params: %s", name, err);
		goto fail;
	}
	q->obj.provider = table;
	q->obj.magic = SD_MAGIC_QUERY;
	q->obj.type = (DAT_HANDLE_TYPE)DAT_IB_HANDLE_TYPE_EXT;
	q->obj.ia = NULL;
	sd_list_init(&q->obj.node);
	sd_ia_named_init(&q->named, &q->addr);
	sd_ia_attr_fill(&q->addr, &q->named, ia_attr, pr_attr);
	free(params);
	*out = (DAT_IA_HANDLE)q;
	return DAT_SUCCESS;
fail:
	free(q);
	free(params);
	sd_reg_close(table);
	return ret;
}

static DAT_RETURN close_query(DAT_HANDLE h)
{
	struct sd_obj *o = sd_obj_check(h, SD_MAGIC_QUERY);
	DAT_PROVIDER *table;

	if (o == NULL)
		return sd_refuse_handle("ib_close_query", NULL, "ia_handle", h,
					SD_MAGIC_QUERY, DAT_INVALID_HANDLE_IA);
	table = o->provider;
	o->magic = SD_MAGIC_DEAD;
	free(sd_container_of(o, struct sd_query, obj));
	sd_reg_close(table);
	return DAT_SUCCESS;
}

/* Bytes of @n segments of @iov, once the post that took them succeeded. */
static uint64_t iov_bytes(DAT_COUNT n, const DAT_LMR_TRIPLET *iov)
{
	uint64_t total = 0;
	DAT_COUNT i;

	for (i = 0; i < n && iov != NULL; i++)
		total += iov[i].segment_length;
	return total;
}

/* Counts a successful RC extension post on its EP. */
static void count_rc(DAT_EP_HANDLE h, unsigned posts, unsigned data,
		     uint64_t bytes)
{
	struct sd_ep *ep = sd_ep_from_handle(h);

	if (ep == NULL)
		return;
	sd_cnt_inc(ep->cnt, posts);
	if (data != posts)
		sd_cnt_add(ep->cnt, data, bytes);
}

DAT_RETURN DAT_API sd_handle_extendedop(DAT_HANDLE h, DAT_EXTENDED_OP op,
					va_list args)
{
	DAT_RETURN ret;

	switch (op) {
	case DAT_IB_RDMA_WRITE_IMMED_OP: {
		DAT_COUNT n = va_arg(args, DAT_COUNT);
		DAT_LMR_TRIPLET *iov = va_arg(args, DAT_LMR_TRIPLET *);
		DAT_DTO_COOKIE cookie = va_arg(args, DAT_DTO_COOKIE);
		DAT_RMR_TRIPLET *rmr = va_arg(args, DAT_RMR_TRIPLET *);
		DAT_UINT32 imm = va_arg(args, DAT_UINT32);
		DAT_COMPLETION_FLAGS flags = va_arg(args, DAT_COMPLETION_FLAGS);

		ret = sd_post_write_imm(h, n, iov, cookie, rmr, imm, flags);
		if (ret == DAT_SUCCESS)
			count_rc(h, DCNT_EP_POST_WRITE_IMM,
				 DCNT_EP_POST_WRITE_IMM_DATA, iov_bytes(n, iov));
		return ret;
	}
	case DAT_IB_FETCH_AND_ADD_OP: {
		DAT_UINT64 add = va_arg(args, DAT_UINT64);
		DAT_LMR_TRIPLET *lbuf = va_arg(args, DAT_LMR_TRIPLET *);
		DAT_DTO_COOKIE cookie = va_arg(args, DAT_DTO_COOKIE);
		DAT_RMR_TRIPLET *rbuf = va_arg(args, DAT_RMR_TRIPLET *);
		DAT_COMPLETION_FLAGS flags = va_arg(args, DAT_COMPLETION_FLAGS);

		ret = sd_post_atomic(h, SD_ATOMIC_FETCH_ADD, add, 0, lbuf,
				     cookie, rbuf, flags);
		if (ret == DAT_SUCCESS)
			count_rc(h, DCNT_EP_POST_FETCH_ADD,
				 DCNT_EP_POST_FETCH_ADD, 0);
		return ret;
	}
	case DAT_IB_CMP_AND_SWAP_OP: {
		DAT_UINT64 cmp = va_arg(args, DAT_UINT64);
		DAT_UINT64 swap = va_arg(args, DAT_UINT64);
		DAT_LMR_TRIPLET *lbuf = va_arg(args, DAT_LMR_TRIPLET *);
		DAT_DTO_COOKIE cookie = va_arg(args, DAT_DTO_COOKIE);
		DAT_RMR_TRIPLET *rbuf = va_arg(args, DAT_RMR_TRIPLET *);
		DAT_COMPLETION_FLAGS flags = va_arg(args, DAT_COMPLETION_FLAGS);

		ret = sd_post_atomic(h, SD_ATOMIC_CMP_SWAP, cmp, swap, lbuf,
				     cookie, rbuf, flags);
		if (ret == DAT_SUCCESS)
			count_rc(h, DCNT_EP_POST_CMP_SWAP,
				 DCNT_EP_POST_CMP_SWAP, 0);
		return ret;
	}
	case DAT_IB_UD_SEND_OP: {
		DAT_COUNT n = va_arg(args, DAT_COUNT);
		DAT_LMR_TRIPLET *iov = va_arg(args, DAT_LMR_TRIPLET *);
		DAT_IB_ADDR_HANDLE *ah = va_arg(args, DAT_IB_ADDR_HANDLE *);
		DAT_DTO_COOKIE cookie = va_arg(args, DAT_DTO_COOKIE);
		DAT_COMPLETION_FLAGS flags = va_arg(args, DAT_COMPLETION_FLAGS);
		/* The api line's TIME is the call's entry (TRACE.md). */
		struct timespec at = sd_trace_enabled() ? sd_trace_now() :
				     (struct timespec){ 0, 0 };
		DAT_RETURN r = sd_ud_post_send(h, n, iov, ah, cookie, flags);
		uint64_t len = 0;
		DAT_COUNT i;

		if (sd_trace_enabled()) {
			for (i = 0; r == DAT_SUCCESS && iov != NULL && i < n; i++)
				len += iov[i].segment_length;
			sd_trace_at(&at, "api", sd_handle_name(h).s,
				    "ib_post_send_ud",
				    "ret=%s cookie=0x%llx len=%llu segs=%d flags=%s",
				    sd_trace_ret_name(r),
				    (unsigned long long)cookie.as_64,
				    (unsigned long long)len, (int)n,
				    sd_trace_flags(flags).s);
		}
		return r;
	}
	case DAT_IB_UD_CM_FREE_OP: {
		DAT_CONTEXT cm = va_arg(args, DAT_CONTEXT);

		return sd_ud_cm_free(h, cm.as_ptr);
	}
	case DAT_IB_UD_AH_FREE_OP:
		return sd_ud_ah_free(h, va_arg(args, DAT_IB_ADDR_HANDLE *));
	case DAT_IB_QUERY_COUNTERS_OP: {
		int cntr = va_arg(args, int);
		DAT_UINT64 *out = va_arg(args, DAT_UINT64 *);
		int reset = va_arg(args, int);

		return sd_cnt_query(h, cntr, out, reset);
	}
	case DAT_IB_PRINT_COUNTERS_OP: {
		int cntr = va_arg(args, int);
		int reset = va_arg(args, int);

		return sd_cnt_print(h, cntr, reset);
	}
	case DAT_IB_START_COUNTERS_OP:
		return sd_cnt_start_stop(h, va_arg(args, int), true);
	case DAT_IB_STOP_COUNTERS_OP:
		return sd_cnt_start_stop(h, va_arg(args, int), false);
	case DAT_IB_OPEN_QUERY_OP: {
		DAT_IA_HANDLE *out = va_arg(args, DAT_IA_HANDLE *);
		DAT_IA_ATTR_MASK ia_mask = va_arg(args, DAT_IA_ATTR_MASK);
		DAT_IA_ATTR *ia_attr = va_arg(args, DAT_IA_ATTR *);
		DAT_PROVIDER_ATTR_MASK pr_mask = va_arg(args, DAT_PROVIDER_ATTR_MASK);
		DAT_PROVIDER_ATTR *pr_attr = va_arg(args, DAT_PROVIDER_ATTR *);

		/* The registry passes the IA name as the handle. */
		return open_query((const char *)h, out, ia_mask, ia_attr,
				  pr_mask, pr_attr);
	}
	case DAT_IB_CLOSE_QUERY_OP:
		return close_query(h);
	case DAT_IB_COLLECTIVE_CREATE_MEMBER_OP:
	case DAT_IB_COLLECTIVE_FREE_MEMBER_OP:
	case DAT_IB_COLLECTIVE_CREATE_GROUP_OP:
	case DAT_IB_COLLECTIVE_FREE_GROUP_OP:
	case DAT_IB_COLLECTIVE_SET_CLOCK_OP:
	case DAT_IB_COLLECTIVE_READ_CLOCK_OP:
	case DAT_IB_COLLECTIVE_SCATTER_OP:
	case DAT_IB_COLLECTIVE_SCATTERV_OP:
	case DAT_IB_COLLECTIVE_GATHER_OP:
	case DAT_IB_COLLECTIVE_GATHERV_OP:
	case DAT_IB_COLLECTIVE_ALLGATHER_OP:
	case DAT_IB_COLLECTIVE_ALLGATHERV_OP:
	case DAT_IB_COLLECTIVE_ALLTOALL_OP:
	case DAT_IB_COLLECTIVE_ALLTOALLV_OP:
	case DAT_IB_COLLECTIVE_REDUCE_OP:
	case DAT_IB_COLLECTIVE_ALLREDUCE_OP:
	case DAT_IB_COLLECTIVE_REDUCE_SCATTER_OP:
	case DAT_IB_COLLECTIVE_SCAN_OP:
	case DAT_IB_COLLECTIVE_BROADCAST_OP:
	case DAT_IB_COLLECTIVE_BARRIER_OP:
		/* MPI collectives need a group service softdapl has not got. */
		ret = sd_refuse("extension_op", NULL,
				SD_ERR(DAT_NOT_IMPLEMENTED, 0),
				"operation %d on %s %p: softdapl has no "
				"collectives", (int)op, sd_handle_name(h).s, h);
		break;
	default:
		ret = sd_refuse("extension_op", NULL,
				SD_ERR(DAT_NOT_IMPLEMENTED, 0),
				"operation %d on %s %p: not an operation of "
				"dat_ib_extensions.h", (int)op,
				sd_handle_name(h).s, h);
		break;
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* The slots routed before the RC entry points                         */

/*
 * provider.c's SD_SLOTS_EXT: a UD service type makes a UD EP (ud.c),
 * anything else goes to sd_ep_create or sd_ep_create_with_srq; every PSP
 * also listens for UD requests on its port's UDP side (udcm.c), then
 * psp.c does the rest.
 */

DAT_RETURN DAT_API sd_ext_ep_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz,
				    DAT_EVD_HANDLE recv_evd,
				    DAT_EVD_HANDLE req_evd,
				    DAT_EVD_HANDLE conn_evd,
				    const DAT_EP_ATTR *attr, DAT_EP_HANDLE *ep)
{
	struct sd_ia *ia;

	if (attr == NULL ||
	    attr->service_type != (DAT_SERVICE_TYPE)DAT_IB_SERVICE_TYPE_UD)
		return sd_ep_create(ia_handle, pz, recv_evd, req_evd, conn_evd,
				    attr, ep);
	ia = sd_obj_ia(ia_handle);
	if (ia == NULL)
		return sd_refuse_handle("ep_create", NULL, "ia_handle", ia_handle,
					SD_MAGIC_IA, DAT_INVALID_HANDLE_IA);
	return sd_ud_ep_create(ia, pz, recv_evd, req_evd, conn_evd,
			       DAT_HANDLE_NULL, attr, ep);
}

DAT_RETURN DAT_API sd_ext_ep_create_with_srq(DAT_IA_HANDLE ia_handle,
					     DAT_PZ_HANDLE pz,
					     DAT_EVD_HANDLE recv_evd,
					     DAT_EVD_HANDLE req_evd,
					     DAT_EVD_HANDLE conn_evd,
					     DAT_SRQ_HANDLE srq_h,
					     const DAT_EP_ATTR *attr,
					     DAT_EP_HANDLE *ep)
{
	struct sd_ia *ia;

	if (attr == NULL ||
	    attr->service_type != (DAT_SERVICE_TYPE)DAT_IB_SERVICE_TYPE_UD)
		return sd_ep_create_with_srq(ia_handle, pz, recv_evd, req_evd,
					     conn_evd, srq_h, attr, ep);
	ia = sd_obj_ia(ia_handle);
	if (ia == NULL)
		return sd_refuse_handle("ep_create_with_srq", NULL, "ia_handle",
					ia_handle, SD_MAGIC_IA,
					DAT_INVALID_HANDLE_IA);
	if (srq_h == DAT_HANDLE_NULL)
		return sd_refuse_handle("ep_create_with_srq", &ia->obj,
					"srq_handle", srq_h, SD_MAGIC_SRQ,
					DAT_INVALID_HANDLE_SRQ);
	return sd_ud_ep_create(ia, pz, recv_evd, req_evd, conn_evd, srq_h, attr,
			       ep);
}

DAT_RETURN DAT_API sd_ext_psp_create(DAT_IA_HANDLE ia, DAT_CONN_QUAL conn_qual,
				     DAT_EVD_HANDLE evd, DAT_PSP_FLAGS flags,
				     DAT_PSP_HANDLE *psp)
{
	DAT_RETURN ret = sd_psp_create(ia, conn_qual, evd, flags, psp);

	if (ret == DAT_SUCCESS)
		sd_ud_sp_open(sd_container_of((struct sd_obj *)*psp,
					      struct sd_sp, obj));
	return ret;
}

DAT_RETURN DAT_API sd_ext_psp_create_any(DAT_IA_HANDLE ia,
					 DAT_CONN_QUAL *conn_qual,
					 DAT_EVD_HANDLE evd,
					 DAT_PSP_FLAGS flags,
					 DAT_PSP_HANDLE *psp)
{
	DAT_RETURN ret = sd_psp_create_any(ia, conn_qual, evd, flags, psp);

	if (ret == DAT_SUCCESS)
		sd_ud_sp_open(sd_container_of((struct sd_obj *)*psp,
					      struct sd_sp, obj));
	return ret;
}

DAT_RETURN DAT_API sd_ext_psp_free(DAT_PSP_HANDLE h)
{
	struct sd_obj *o = sd_obj_check(h, SD_MAGIC_PSP);

	/* The UDP side first: its engine commands run before the PSP's free. */
	if (o != NULL)
		sd_ud_sp_close_for(sd_container_of(o, struct sd_sp, obj));
	return sd_psp_free(h);
}
