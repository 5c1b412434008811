/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DAT 1.2: protection zones, LMRs and RMRs (dat12.h).
 *
 * DAT 1.2 has no DAT_VA_TYPE: its addresses are virtual addresses, which
 * is DAT_VA_TYPE_VA. Its dat_rmr_bind names the LMR by the triplet's
 * lmr_context alone, where DAT 2.0 takes the LMR handle too: this library
 * remembers the handle of every LMR a 1.2 program made through it, by
 * context (the table below), and finds it there. An LMR made by a DAT 2.0
 * caller in the same process cannot be bound through the 1.2 call
 * (DAT_INVALID_PARAMETER, as for an unknown context).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dat12.h"

D12_API DAT_RETURN DAT_API dat_pz_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE *pz)
{
	return d12_ret(d2.pz_create(ia, pz));
}

D12_API DAT_RETURN DAT_API dat_pz_query(DAT_PZ_HANDLE pz, DAT_PZ_PARAM_MASK mask,
				DAT_PZ_PARAM *param)
{
	_Static_assert(sizeof(DAT_PZ_PARAM) == sizeof(D2_PZ_PARAM),
		       "DAT_PZ_PARAM: the IA handle alone in both APIs");
	return d12_ret(d2.pz_query(pz, (D2_PZ_PARAM_MASK)mask,
				   (D2_PZ_PARAM *)param));
}

D12_API DAT_RETURN DAT_API dat_pz_free(DAT_PZ_HANDLE pz)
{
	return d12_ret(d2.pz_free(pz));
}

/* ---- the LMRs of this process, by context (see the top) ---------- */

#define LMR_BUCKETS	1024

struct lmr_entry {
	DAT_LMR_CONTEXT		ctx;
	DAT_LMR_HANDLE		lmr;
	struct lmr_entry	*next;
};

static struct {
	pthread_mutex_t		lock;
	struct lmr_entry	*bucket[LMR_BUCKETS];
} lmrs = { .lock = PTHREAD_MUTEX_INITIALIZER };

static struct lmr_entry **lmr_slot(DAT_LMR_CONTEXT ctx)
{
	return &lmrs.bucket[(ctx * 2654435761u) % LMR_BUCKETS];
}

/* Takes lmrs.lock. 0, or -1 when out of memory. */
static int lmr_remember(DAT_LMR_CONTEXT ctx, DAT_LMR_HANDLE lmr)
{
	struct lmr_entry *e = malloc(sizeof(*e)), **s;

	if (e == NULL)
		return -1;
	e->ctx = ctx;
	e->lmr = lmr;
	pthread_mutex_lock(&lmrs.lock);
	s = lmr_slot(ctx);
	e->next = *s;
	*s = e;
	pthread_mutex_unlock(&lmrs.lock);
	return 0;
}

/* The handle of context @ctx, or DAT_HANDLE_NULL. Takes lmrs.lock. */
static DAT_LMR_HANDLE lmr_find(DAT_LMR_CONTEXT ctx)
{
	DAT_LMR_HANDLE lmr = DAT_HANDLE_NULL;
	struct lmr_entry *e;

	pthread_mutex_lock(&lmrs.lock);
	for (e = *lmr_slot(ctx); e != NULL; e = e->next)
		if (e->ctx == ctx) {
			lmr = e->lmr;
			break;
		}
	pthread_mutex_unlock(&lmrs.lock);
	return lmr;
}

/* Forgets @lmr, of context @ctx. Takes lmrs.lock. */
static void lmr_forget(DAT_LMR_CONTEXT ctx, DAT_LMR_HANDLE lmr)
{
	struct lmr_entry **s, *e;

	pthread_mutex_lock(&lmrs.lock);
	for (s = lmr_slot(ctx); (e = *s) != NULL; s = &e->next)
		if (e->lmr == lmr) {
			*s = e->next;
			break;
		}
	pthread_mutex_unlock(&lmrs.lock);
	free(e);
}

/* DAT 1.2's dat_lmr_create has no DAT_VA_TYPE: the address is virtual. */
D12_API DAT_RETURN DAT_API dat_lmr_create(DAT_IA_HANDLE ia, DAT_MEM_TYPE mem_type,
				  DAT_REGION_DESCRIPTION region, DAT_VLEN length,
				  DAT_PZ_HANDLE pz, DAT_MEM_PRIV_FLAGS priv,
				  DAT_LMR_HANDLE *lmr, DAT_LMR_CONTEXT *lmr_context,
				  DAT_RMR_CONTEXT *rmr_context,
				  DAT_VLEN *registered_length,
				  DAT_VADDR *registered_address)
{
	D2_REGION_DESCRIPTION r;
	DAT_LMR_CONTEXT ctx;
	D2_RETURN ret;

	_Static_assert(sizeof(DAT_REGION_DESCRIPTION) == sizeof(D2_REGION_DESCRIPTION),
		       "DAT_REGION_DESCRIPTION: one layout in both APIs");
	memcpy(&r, &region, sizeof(r));
	/* DAT_MEM_PRIV_RO_DISABLE_FLAG: no relaxed ordering here to disable. */
	ret = d2.lmr_create(ia, (D2_MEM_TYPE)mem_type, r, length, pz,
			    (D2_MEM_PRIV_FLAGS)(priv & ~DAT_MEM_PRIV_RO_DISABLE_FLAG),
			    D2_VA_TYPE_VA, lmr, &ctx,
			    rmr_context, registered_length, registered_address);
	if (ret != D2_SUCCESS)
		return d12_ret(ret);
	if (lmr_remember(ctx, *lmr) < 0) {
		d2.lmr_free(*lmr);
		return D12_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	}
	if (lmr_context != NULL)
		*lmr_context = ctx;
	return DAT_SUCCESS;
}

D12_API DAT_RETURN DAT_API dat_lmr_query(DAT_LMR_HANDLE lmr, DAT_LMR_PARAM_MASK mask,
				 DAT_LMR_PARAM *param)
{
	D2_LMR_PARAM p;
	D2_RETURN r;

	if (param == NULL)
		return d12_ret(d2.lmr_query(lmr, mask ? D2_LMR_FIELD_ALL : 0, NULL));
	r = d2.lmr_query(lmr, mask ? D2_LMR_FIELD_ALL : 0, &p);
	if (r != D2_SUCCESS)
		return d12_ret(r);
	memset(param, 0, sizeof(*param));
	param->ia_handle = p.ia_handle;
	param->mem_type = (DAT_MEM_TYPE)p.mem_type;
	memcpy(&param->region_desc, &p.region_desc, sizeof(param->region_desc));
	param->length = p.length;
	param->pz_handle = p.pz_handle;
	param->mem_priv = (DAT_MEM_PRIV_FLAGS)p.mem_priv;
	param->lmr_context = p.lmr_context;
	param->rmr_context = p.rmr_context;
	param->registered_size = p.registered_size;
	param->registered_address = p.registered_address;
	return DAT_SUCCESS;
}

D12_API DAT_RETURN DAT_API dat_lmr_free(DAT_LMR_HANDLE lmr)
{
	D2_LMR_PARAM p;
	D2_RETURN r;

	/* Its context, to forget it once the free succeeded. */
	r = d2.lmr_query(lmr, D2_LMR_FIELD_LMR_CONTEXT, &p);
	if (r != D2_SUCCESS)
		return d12_ret(r);
	r = d2.lmr_free(lmr);
	if (r == D2_SUCCESS)
		lmr_forget(p.lmr_context, lmr);
	return d12_ret(r);
}

/* Any number of segments: converted D12_IOV_MAX at a time. */
static DAT_RETURN lmr_sync(DAT_IA_HANDLE ia, const DAT_LMR_TRIPLET *iov,
			   DAT_VLEN n, int write)
{
	D2_LMR_TRIPLET t[D12_IOV_MAX];
	DAT_RETURN ret;

	if (iov == NULL)
		return d12_ret(write ? d2.lmr_sync_rdma_write(ia, NULL, n) :
			       d2.lmr_sync_rdma_read(ia, NULL, n));
	do {
		DAT_COUNT k = n > D12_IOV_MAX ? D12_IOV_MAX : (DAT_COUNT)n;
		D2_RETURN r;

		ret = d12_lmr_iov(k, iov, t, DAT_INVALID_ARG3);
		if (ret != DAT_SUCCESS)
			return ret;
		r = write ? d2.lmr_sync_rdma_write(ia, t, (D2_VLEN)k) :
			    d2.lmr_sync_rdma_read(ia, t, (D2_VLEN)k);
		if (r != D2_SUCCESS)
			return d12_ret(r);
		iov += k;
		n -= (DAT_VLEN)k;
	} while (n > 0);
	return DAT_SUCCESS;
}

D12_API DAT_RETURN DAT_API dat_lmr_sync_rdma_read(DAT_IA_HANDLE ia,
					  const DAT_LMR_TRIPLET *iov, DAT_VLEN n)
{
	return lmr_sync(ia, iov, n, 0);
}

D12_API DAT_RETURN DAT_API dat_lmr_sync_rdma_write(DAT_IA_HANDLE ia,
					   const DAT_LMR_TRIPLET *iov, DAT_VLEN n)
{
	return lmr_sync(ia, iov, n, 1);
}

D12_API DAT_RETURN DAT_API dat_rmr_create(DAT_PZ_HANDLE pz, DAT_RMR_HANDLE *rmr)
{
	return d12_ret(d2.rmr_create(pz, rmr));
}

D12_API DAT_RETURN DAT_API dat_rmr_query(DAT_RMR_HANDLE rmr, DAT_RMR_PARAM_MASK mask,
				 DAT_RMR_PARAM *param)
{
	D2_RMR_PARAM p;
	D2_RETURN r;

	if (param == NULL)
		return d12_ret(d2.rmr_query(rmr, mask ? D2_RMR_FIELD_ALL : 0, NULL));
	r = d2.rmr_query(rmr, mask ? D2_RMR_FIELD_ALL : 0, &p);
	if (r != D2_SUCCESS)
		return d12_ret(r);
	memset(param, 0, sizeof(*param));
	param->ia_handle = p.ia_handle;
	param->pz_handle = p.pz_handle;
	d12_lmr_triplet_back(&p.lmr_triplet, &param->lmr_triplet);
	param->mem_priv = (DAT_MEM_PRIV_FLAGS)p.mem_priv;
	param->rmr_context = p.rmr_context;
	return DAT_SUCCESS;
}

D12_API DAT_RETURN DAT_API dat_rmr_bind(DAT_RMR_HANDLE rmr, const DAT_LMR_TRIPLET *t,
				DAT_MEM_PRIV_FLAGS priv, DAT_EP_HANDLE ep,
				DAT_RMR_COOKIE cookie, DAT_COMPLETION_FLAGS flags,
				DAT_RMR_CONTEXT *rmr_context)
{
	DAT_LMR_HANDLE lmr = DAT_HANDLE_NULL;
	D2_LMR_TRIPLET t2;
	D2_RMR_COOKIE c2;
	DAT_RETURN ret;

	if (t == NULL)
		return d12_ret(d2.rmr_bind(rmr, NULL, NULL, (D2_MEM_PRIV_FLAGS)priv,
					   D2_VA_TYPE_VA, ep, (D2_RMR_COOKIE){ 0 },
					   (D2_COMPLETION_FLAGS)flags, rmr_context));
	ret = d12_lmr_iov(1, t, &t2, DAT_INVALID_ARG2);
	if (ret != DAT_SUCCESS)
		return ret;
	/* A length of 0 unbinds: no LMR is needed then. */
	if (t->segment_length > 0) {
		lmr = lmr_find(t->lmr_context);
		if (lmr == DAT_HANDLE_NULL)
			return D12_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	}
	c2.as_64 = cookie.as_64;
	return d12_ret(d2.rmr_bind(rmr, lmr, &t2, (D2_MEM_PRIV_FLAGS)priv,
				   D2_VA_TYPE_VA, ep, c2,
				   (D2_COMPLETION_FLAGS)flags, rmr_context));
}

D12_API DAT_RETURN DAT_API dat_rmr_free(DAT_RMR_HANDLE rmr)
{
	return d12_ret(d2.rmr_free(rmr));
}
