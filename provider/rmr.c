/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RMRs: memory windows (DAT 2.0, 6.7; dat_rmr_bind(3), dat_rmr_free(3)).
 *
 * An RMR exposes a range of an LMR to the peer with remote privileges of
 * its own, through a context that a bind makes and the next bind (or an
 * unbind, a bind of length 0, or dat_rmr_free, or a peer's SEND with
 * invalidate) ends. Its context lives in the IA's context table (ctx.c):
 * the RMR holds a slot from creation, and every bind, even one that is
 * then flushed, takes the slot's next tag, random and never given twice,
 * so a context once replaced never grants anything again, even after the
 * RMR is freed and its slot reused. sd_mem_resolve_remote honours an RMR
 * context with the RMR's own range, privileges and PZ, and for an RMR of
 * dat_rmr_create_for_ep only on the EP it was bound through (scope EP;
 * dat_rmr_create's are of scope PZ: any EP of the PZ).
 *
 * A bind is a request of an EP (qp.c, sd_qp_post_bind): it waits in the
 * request queue behind the EP's earlier requests, takes effect when the
 * transmitter reaches it (tx.c: so every later request of that EP, a
 * SEND carrying the new context included, goes out after it, which is
 * the fencing dat_rmr_bind(3) asks for), and completes with a
 * DAT_RMR_BIND_COMPLETION_EVENT in order with the EP's other requests.
 * dat_rmr_bind returns the new context at once; until the bind takes
 * effect, the old binding still works. A bind flushed (the EP
 * disconnected first) changes nothing.
 *
 * Lifetime. A binding counts in its LMR's refs (dat_lmr_free refuses
 * while it exists), from the reservation at post time. dat_rmr_free is
 * allowed on a bound RMR (it unbinds first) and even with binds in flight:
 * the RMR is then only marked freed, and the last of them frees it.
 * Accesses already granted keep a busy reference on the LMR, not on the
 * RMR, so the memory stays registered while they place (dat_rmr_free(3):
 * they "might or might not complete successfully").
 *
 * Locks: object lists under ia->lock; bindings, pending binds and the
 * context table under the memory lock (mem.h), which the data path
 * takes under ep->lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dat2/dat_ib_extensions.h>

#include "api.h"
#include "entry.h"
#include "ia.h"
#include "mem.h"
#include "obj.h"
#include "qp.h"
#include "refuse.h"
#include "util.h"

/* The remote privileges a binding may grant. */
#define RMR_PRIVS	(DAT_MEM_PRIV_REMOTE_READ_FLAG | \
			 DAT_MEM_PRIV_REMOTE_WRITE_FLAG | \
			 DAT_IB_MEM_PRIV_REMOTE_ATOMIC)

static struct sd_rmr *rmr_of(DAT_RMR_HANDLE h)
{
	struct sd_obj *obj = sd_obj_check(h, SD_MAGIC_RMR);

	return obj != NULL ? sd_container_of(obj, struct sd_rmr, obj) : NULL;
}

static struct sd_pz *pz_of(DAT_PZ_HANDLE h)
{
	struct sd_obj *obj = sd_obj_check(h, SD_MAGIC_PZ);

	return obj != NULL ? sd_container_of(obj, struct sd_pz, obj) : NULL;
}

static struct sd_lmr *lmr_of(DAT_LMR_HANDLE h)
{
	struct sd_obj *obj = sd_obj_check(h, SD_MAGIC_LMR);

	return obj != NULL ? sd_container_of(obj, struct sd_lmr, obj) : NULL;
}

static DAT_RETURN rmr_create(DAT_PZ_HANDLE pz_handle, DAT_RMR_SCOPE scope,
			     DAT_RMR_HANDLE *rmr_handle)
{
	const char *call = scope == DAT_RMR_SCOPE_EP ? "rmr_create_for_ep" :
						       "rmr_create";
	struct sd_pz *pz = pz_of(pz_handle);
	struct sd_rmr *rmr;
	struct sd_ia *ia;
	int err;

	if (pz == NULL)
		return sd_refuse_handle(call, NULL, "pz_handle", pz_handle,
					SD_MAGIC_PZ, DAT_INVALID_HANDLE_PZ);
	if (rmr_handle == NULL)
		return sd_refuse_null(call, &pz->obj, "rmr_handle",
				      DAT_INVALID_ARG2);
	ia = pz->obj.ia;

	rmr = calloc(1, sizeof(*rmr));
	if (rmr == NULL)
		return sd_refuse(call, &pz->obj,
				 SD_ERR(DAT_INSUFFICIENT_RESOURCES,
					DAT_RESOURCE_MEMORY),
				 "no memory for the RMR");
	sd_obj_init(&rmr->obj, ia, SD_MAGIC_RMR, DAT_HANDLE_TYPE_RMR);
	rmr->pz = pz;
	rmr->scope = scope;

	pthread_mutex_lock(&ia->lock);
	pthread_mutex_lock(&sd_mem_lock);
	err = sd_ctx_alloc_rmr(ia, rmr);
	pthread_mutex_unlock(&sd_mem_lock);
	if (err != 0) {
		pthread_mutex_unlock(&ia->lock);
		free(rmr);
		return sd_refuse(call, &pz->obj,
				 SD_ERR(DAT_INSUFFICIENT_RESOURCES,
					DAT_RESOURCE_MEMORY_REGION),
				 "no context left: the IA has %d LMRs and RMRs "
				 "(max_rmrs)", SD_MAX_LMRS);
	}
	pz->refs++;
	sd_list_add_tail(&ia->rmrs, &rmr->obj.node);
	pthread_mutex_unlock(&ia->lock);
	sd_cnt_inc(ia->cnt, DCNT_IA_RMR_CREATE);
	*rmr_handle = rmr;
	return DAT_SUCCESS;
}

/* An RMR of scope PZ. */
DAT_RETURN DAT_API sd_rmr_create(DAT_PZ_HANDLE pz_handle,
				 DAT_RMR_HANDLE *rmr_handle)
{
	return rmr_create(pz_handle, DAT_RMR_SCOPE_PZ, rmr_handle);
}

/* An RMR of scope EP: "specific to a single connection at a time". */
DAT_RETURN DAT_API sd_rmr_create_for_ep(DAT_PZ_HANDLE pz_handle,
					DAT_RMR_HANDLE *rmr_handle)
{
	return rmr_create(pz_handle, DAT_RMR_SCOPE_EP, rmr_handle);
}

/*
 * The current binding; an unbound RMR reports a zero triplet, privileges
 * and context (dat_rmr_query(3): they are "not defined").
 */
DAT_RETURN DAT_API sd_rmr_query(DAT_RMR_HANDLE rmr_handle,
				DAT_RMR_PARAM_MASK mask, DAT_RMR_PARAM *param)
{
	struct sd_rmr *rmr = rmr_of(rmr_handle);

	if (rmr == NULL)
		return sd_refuse_handle("rmr_query", NULL, "rmr_handle",
					rmr_handle, SD_MAGIC_RMR,
					DAT_INVALID_HANDLE_RMR);
	if (mask & ~DAT_RMR_FIELD_ALL)
		return sd_refuse_bits("rmr_query", &rmr->obj,
				      SD_ERR(DAT_INVALID_PARAMETER,
					     DAT_INVALID_ARG2),
				      "rmr_param_mask", mask, DAT_RMR_FIELD_ALL);
	if (param == NULL)
		return sd_refuse_null("rmr_query", &rmr->obj, "rmr_param",
				      DAT_INVALID_ARG3);
	memset(param, 0, sizeof(*param));
	param->ia_handle = sd_obj_ia_handle(rmr->obj.ia);
	param->pz_handle = rmr->pz;
	param->rmr_scope = rmr->scope;
	param->va_type = DAT_VA_TYPE_VA;
	param->mem_priv = DAT_MEM_PRIV_NONE_FLAG;
	pthread_mutex_lock(&sd_mem_lock);
	if (rmr->lmr != NULL) {
		param->lmr_triplet.lmr_context = rmr->lmr->lmr_context;
		param->lmr_triplet.virtual_address = rmr->va;
		param->lmr_triplet.segment_length = (DAT_SEG_LENGTH)rmr->len;
		param->mem_priv = rmr->priv;
		param->rmr_context = rmr->rmr_context;
	}
	pthread_mutex_unlock(&sd_mem_lock);
	return DAT_SUCCESS;
}

/*
 * Checks what the RMR's side of a bind needs, then hands it to the EP
 * (the EP and the flags here, then sd_qp_post_bind: its state and PZ,
 * the queue).
 * Errors, in this order: DAT_INVALID_HANDLE (RMR; for a length other
 * than 0, the LMR, which must be of the RMR's IA), DAT_INVALID_PARAMETER
 * (ARG3: no triplet, a triplet that does not name that LMR or lies
 * outside it; ARG4: privileges other than remote read, write and atomic
 * (the local bits of DAT_MEM_PRIV_ALL_FLAG are accepted and ignored);
 * ARG5: va_type not DAT_VA_TYPE_VA; ARG9: no rmr_context to return),
 * DAT_PRIVILEGES_VIOLATION (dat_rmr_bind(3): remote read needs the LMR's
 * local read, remote write and atomic its local write; local write
 * implies local read, as everywhere in this provider), and
 * DAT_PROTECTION_VIOLATION (an LMR of another PZ than the RMR). A length
 * of 0 unbinds: the LMR and the rest of the triplet are then ignored and
 * the returned context is 0 (dat_rmr_bind(3): "undefined").
 */
DAT_RETURN DAT_API sd_rmr_bind(DAT_RMR_HANDLE rmr_handle,
			       DAT_LMR_HANDLE lmr_handle,
			       const DAT_LMR_TRIPLET *t,
			       DAT_MEM_PRIV_FLAGS mem_priv, DAT_VA_TYPE va_type,
			       DAT_EP_HANDLE ep_handle, DAT_RMR_COOKIE cookie,
			       DAT_COMPLETION_FLAGS flags,
			       DAT_RMR_CONTEXT *rmr_context)
{
	struct sd_rmr *rmr = rmr_of(rmr_handle);
	DAT_RMR_CONTEXT ignored;
	struct sd_bind b;
	struct sd_ep *ep;
	DAT_EP_STATE state;
	int r;

	const DAT_MEM_PRIV_FLAGS privs = DAT_MEM_PRIV_ALL_FLAG | RMR_PRIVS;
	const struct sd_argpos pos = { 0 };

	if (rmr == NULL)
		return sd_refuse_handle("rmr_bind", NULL, "rmr_handle",
					rmr_handle, SD_MAGIC_RMR,
					DAT_INVALID_HANDLE_RMR);
	if (t == NULL)
		return sd_refuse_null("rmr_bind", &rmr->obj, "lmr_triplet",
				      DAT_INVALID_ARG3);
	memset(&b, 0, sizeof(b));
	b.rmr = rmr;
	if (t->segment_length > 0) {
		struct sd_lmr *lmr = lmr_of(lmr_handle);
		DAT_MEM_PRIV_FLAGS local;
		uint64_t start;

		if (lmr == NULL || lmr->obj.ia != rmr->obj.ia)
			return sd_refuse_handle("rmr_bind", &rmr->obj,
						"lmr_handle", lmr_handle,
						SD_MAGIC_LMR,
						DAT_INVALID_HANDLE_LMR);
		start = (uint64_t)(uintptr_t)lmr->addr;
		if (t->lmr_context != lmr->lmr_context)
			return sd_refuse("rmr_bind", &rmr->obj,
					 SD_ERR(DAT_INVALID_PARAMETER,
						DAT_INVALID_ARG3),
					 "lmr_triplet.lmr_context 0x%x is not "
					 "%s's (0x%x)", (unsigned)t->lmr_context,
					 sd_obj_name(&lmr->obj).s,
					 (unsigned)lmr->lmr_context);
		if (t->virtual_address < start ||
		    t->segment_length > lmr->len ||
		    t->virtual_address - start > lmr->len - t->segment_length)
			return sd_refuse("rmr_bind", &rmr->obj,
					 SD_ERR(DAT_INVALID_PARAMETER,
						DAT_INVALID_ARG3),
					 "lmr_triplet [0x%llx, +%llu) is not "
					 "inside %s [%p, +%llu)",
					 (unsigned long long)t->virtual_address,
					 (unsigned long long)t->segment_length,
					 sd_obj_name(&lmr->obj).s,
					 (void *)lmr->addr,
					 (unsigned long long)lmr->len);
		if (mem_priv & ~privs)
			return sd_refuse_bits("rmr_bind", &rmr->obj,
					      SD_ERR(DAT_INVALID_PARAMETER,
						     DAT_INVALID_ARG4),
					      "mem_privileges", mem_priv,
					      privs);
		if (va_type != DAT_VA_TYPE_VA)
			return sd_refuse("rmr_bind", &rmr->obj,
					 SD_ERR(DAT_INVALID_PARAMETER,
						DAT_INVALID_ARG5),
					 "va_type %u is not DAT_VA_TYPE_VA",
					 (unsigned)va_type);
		if (rmr_context == NULL)
			return sd_refuse_null("rmr_bind", &rmr->obj,
					      "rmr_context", DAT_INVALID_ARG9);
		local = lmr->priv;
		if (local & DAT_MEM_PRIV_LOCAL_WRITE_FLAG)
			local |= DAT_MEM_PRIV_LOCAL_READ_FLAG;
		if ((mem_priv & DAT_MEM_PRIV_REMOTE_READ_FLAG) &&
		    !(local & DAT_MEM_PRIV_LOCAL_READ_FLAG))
			return sd_refuse("rmr_bind", &rmr->obj,
					 SD_ERR(DAT_PRIVILEGES_VIOLATION,
						DAT_PRIVILEGES_RDMA_READ),
					 "remote read needs local read, and %s "
					 "was registered without it",
					 sd_obj_name(&lmr->obj).s);
		if ((mem_priv & (DAT_MEM_PRIV_REMOTE_WRITE_FLAG |
				 DAT_IB_MEM_PRIV_REMOTE_ATOMIC)) &&
		    !(local & DAT_MEM_PRIV_LOCAL_WRITE_FLAG))
			return sd_refuse("rmr_bind", &rmr->obj,
					 SD_ERR(DAT_PRIVILEGES_VIOLATION,
						DAT_PRIVILEGES_RDMA_WRITE),
					 "remote write or atomic needs local "
					 "write, and %s was registered without "
					 "it", sd_obj_name(&lmr->obj).s);
		if (lmr->pz != rmr->pz)
			return sd_refuse("rmr_bind", &rmr->obj,
					 SD_ERR(DAT_PROTECTION_VIOLATION, 0),
					 "%s is in %s, the RMR in %s",
					 sd_obj_name(&lmr->obj).s,
					 sd_obj_name(&lmr->pz->obj).s,
					 sd_obj_name(&rmr->pz->obj).s);
		b.lmr = lmr;
		b.va = t->virtual_address;
		b.len = t->segment_length;
		b.priv = mem_priv & RMR_PRIVS;
	} else {
		if (mem_priv & ~privs)
			return sd_refuse_bits("rmr_bind", &rmr->obj,
					      SD_ERR(DAT_INVALID_PARAMETER,
						     DAT_INVALID_ARG4),
					      "mem_privileges", mem_priv,
					      privs);
		if (va_type != DAT_VA_TYPE_VA)
			return sd_refuse("rmr_bind", &rmr->obj,
					 SD_ERR(DAT_INVALID_PARAMETER,
						DAT_INVALID_ARG5),
					 "va_type %u is not DAT_VA_TYPE_VA",
					 (unsigned)va_type);
		if (rmr_context == NULL)
			rmr_context = &ignored;
	}
	ep = sd_ep_from_handle(ep_handle);
	if (ep == NULL)
		return sd_refuse_handle("rmr_bind", &rmr->obj, "ep_handle",
					ep_handle, SD_MAGIC_EP,
					DAT_INVALID_HANDLE_EP);
	if (!sd_api_flags_ok(flags, ep->attr.request_completion_flags))
		return sd_api_bad_flags("rmr_bind", &rmr->obj, flags,
					ep->attr.request_completion_flags,
					"request_completion_flags",
					DAT_INVALID_ARG8);
	if (flags & DAT_COMPLETION_SOLICITED_WAIT_FLAG)
		return sd_refuse("rmr_bind", &rmr->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG8),
				 "completion_flags 0x%x: "
				 "DAT_COMPLETION_SOLICITED_WAIT_FLAG is for a "
				 "send", (unsigned)flags);
	r = sd_qp_post_bind(ep, &b, cookie, flags, rmr_context, &state);
	/* Not sd_api_bad_state: the memory tests link this file alone. */
	if (r == -ENOTCONN)
		return sd_refuse("rmr_bind", &rmr->obj, sd_api_state_err(state),
				 "ep_handle %s is not CONNECTED (the subtype "
				 "says what it is)", sd_obj_name(&ep->obj).s);
	if (r < 0)
		return sd_api_fail("rmr_bind", &rmr->obj, r, &pos,
				   "ep_handle %s", sd_obj_name(&ep->obj).s);
	return DAT_SUCCESS;
}

/*
 * Unlists @rmr and unbinds it; frees it now, or, with binds in flight,
 * marks it for the last of them to free (they hold a pointer to it).
 * Nothing touches @rmr after the memory lock is dropped unless it is
 * ours to free.
 */
static void rmr_destroy(struct sd_rmr *rmr)
{
	struct sd_ia *ia = rmr->obj.ia;
	bool now;

	pthread_mutex_lock(&ia->lock);
	rmr->pz->refs--;
	sd_list_del(&rmr->obj.node);
	rmr->obj.magic = SD_MAGIC_DEAD;
	pthread_mutex_lock(&sd_mem_lock);
	sd_mem_unbind(rmr);
	now = rmr->pending == 0;
	if (now)
		sd_ctx_release_rmr(ia, rmr);
	else
		rmr->freed = true;
	pthread_mutex_unlock(&sd_mem_lock);
	pthread_mutex_unlock(&ia->lock);
	if (now)
		free(rmr);
}

/*
 * dat_rmr_free(3): allowed bound or not; a bound RMR is unbound first,
 * so its context grants nothing from here on.
 */
DAT_RETURN DAT_API sd_rmr_free(DAT_RMR_HANDLE rmr_handle)
{
	struct sd_rmr *rmr = rmr_of(rmr_handle);
	struct sd_ia *ia;

	if (rmr == NULL)
		return sd_refuse_handle("rmr_free", NULL, "rmr_handle",
					rmr_handle, SD_MAGIC_RMR,
					DAT_INVALID_HANDLE_RMR);
	ia = rmr->obj.ia;
	/* Counted while the RMR is the IA's (see sd_pz_free). */
	sd_cnt_inc(ia->cnt, DCNT_IA_RMR_FREE);
	rmr_destroy(rmr);	/* @rmr may be gone from here on */
	return DAT_SUCCESS;
}

/* ia_close (sd_obj_close): as dat_rmr_free, uncounted. */
static void rmr_close(struct sd_obj *o)
{
	rmr_destroy(sd_container_of(o, struct sd_rmr, obj));
}

SD_OBJ_CLOSE_OP(SD_MAGIC_RMR, rmr_close)
