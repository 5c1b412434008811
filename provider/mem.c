/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory services below the entry points: the memory lock, and the checks
 * the data path makes against LMRs and RMRs (mem.h says what each
 * returns). Local segments of posts (sd_mem_resolve_local,
 * sd_mem_resolve_iov), a peer's RDMA (sd_mem_resolve_remote and
 * sd_mem_remote_done), the local side of dat_ep_post_rdma_read_to_rmr
 * (sd_mem_resolve_rmr_local); and the RMR binds of dat_rmr_bind as they
 * are reserved, take effect, are flushed (sd_mem_bind_reserve, _exec,
 * _abort) or are ended by a peer's SEND with invalidate
 * (sd_mem_invalidate). Contexts are looked up in ctx.c's table; lmr.c and
 * rmr.c make and free the objects.
 */
#include <errno.h>
#include <stdlib.h>

#include <dat2/dat_ib_extensions.h>

#include "cma.h"
#include "ia.h"
#include "mem.h"
#include "refuse.h"
#include "trace.h"
#include "util.h"
#include "wq.h"

/* The remote privileges an LMR or an RMR may grant. */
#define REMOTE_PRIVS	(DAT_MEM_PRIV_REMOTE_READ_FLAG | \
			 DAT_MEM_PRIV_REMOTE_WRITE_FLAG | \
			 DAT_IB_MEM_PRIV_REMOTE_ATOMIC)

pthread_mutex_t sd_mem_lock = PTHREAD_MUTEX_INITIALIZER;

/* The memory at address @va of @lmr (checked to be inside). */
static char *lmr_at(const struct sd_lmr *lmr, uint64_t va)
{
	return lmr->addr + (va - (uint64_t)(uintptr_t)lmr->addr);
}

int sd_mem_resolve_local(struct sd_ia *ia, struct sd_pz *pz,
			 const DAT_LMR_TRIPLET *t, DAT_MEM_PRIV_FLAGS need,
			 struct sd_sge *sge)
{
	struct sd_lmr *lmr;
	int ret = 0;

	if (t->segment_length == 0) {
		sge->addr = NULL;
		sge->len = 0;
		return 0;
	}
	pthread_mutex_lock(&sd_mem_lock);
	lmr = sd_ctx_find_lmr(ia, t->lmr_context, false);
	if (lmr == NULL)				/* COMMON-7 */
		ret = -ENOKEY;
	else if ((lmr->priv & need) != need)
		ret = -EACCES;
	else if (lmr->pz != pz)				/* COMMON-6 */
		ret = -EPERM;
	else if (!sd_lmr_in_region(lmr, t->virtual_address, t->segment_length))
		ret = -ERANGE;				/* COMMON-5 */
	else {
		sge->addr = lmr_at(lmr, t->virtual_address);
		sge->len = t->segment_length;
	}
	pthread_mutex_unlock(&sd_mem_lock);
	return ret;
}

/* What a remote context grants: found under the memory lock. */
struct grant {
	struct sd_lmr		*lmr;	/* whose memory it is */
	struct sd_pz		*pz;
	DAT_MEM_PRIV_FLAGS	priv;	/* remote privileges */
	uint64_t		start, size;
};

/*
 * The grant of remote context @ctx for EP @ep_id: an LMR's rmr_context,
 * or the current context of a bound RMR (of PZ scope, or of EP scope
 * bound through @ep_id). False if none. Memory lock held.
 */
static bool grant_of(const struct sd_ia *ia, uint32_t ctx, uint64_t ep_id,
		     struct grant *g)
{
	struct sd_lmr *lmr = sd_ctx_find_lmr(ia, ctx, true);
	struct sd_rmr *rmr;

	SD_ASSERT_HELD(&sd_mem_lock);
	if (lmr != NULL) {
		g->lmr = lmr;
		g->pz = lmr->pz;
		g->priv = lmr->priv & REMOTE_PRIVS;
		g->start = (uint64_t)(uintptr_t)lmr->addr;
		g->size = lmr->len;
		return true;
	}
	rmr = sd_ctx_find_rmr(ia, ctx);
	if (rmr == NULL ||
	    (rmr->scope == DAT_RMR_SCOPE_EP && (ep_id == 0 || rmr->ep_id != ep_id)))
		return false;
	g->lmr = rmr->lmr;
	g->pz = rmr->pz;
	g->priv = rmr->priv;
	g->start = rmr->va;
	g->size = rmr->len;
	return true;
}

int sd_mem_resolve_remote(struct sd_ia *ia, struct sd_pz *pz, uint64_t ep_id,
			  DAT_RMR_CONTEXT rmr_context, uint64_t va,
			  uint64_t len, DAT_MEM_PRIV_FLAGS need,
			  struct sd_sge *sge, struct sd_lmr **out)
{
	struct grant g;
	int err = 0;

	*out = NULL;
	sge->addr = NULL;
	sge->len = 0;
	if (len == 0)
		return 0;
	pthread_mutex_lock(&sd_mem_lock);
	if (!grant_of(ia, rmr_context, ep_id, &g))
		err = -ENOENT;
	else if (g.pz != pz)
		err = -EPERM;
	else if ((g.priv & need) != need)
		err = -EACCES;
	else if (!sd_mem_in_range(g.start, g.size, va, len))
		err = -ERANGE;
	else {
		/* An RMR's range lies in its LMR (checked at bind). */
		g.lmr->busy++;
		sge->addr = lmr_at(g.lmr, va);
		sge->len = len;
		*out = g.lmr;
	}
	pthread_mutex_unlock(&sd_mem_lock);
	return err;
}

void sd_mem_remote_done(struct sd_lmr *lmr)
{
	if (lmr == NULL)
		return;
	pthread_mutex_lock(&sd_mem_lock);
	lmr->busy--;
	pthread_mutex_unlock(&sd_mem_lock);
}

int sd_mem_resolve_rmr_local(struct sd_ia *ia, struct sd_pz *pz,
			     uint64_t ep_id, const DAT_RMR_TRIPLET *t,
			     struct sd_sge *sge)
{
	struct grant g;
	int ret = 0;

	sge->addr = NULL;
	sge->len = 0;
	if (t->segment_length == 0)
		return 0;
	pthread_mutex_lock(&sd_mem_lock);
	if (!grant_of(ia, t->rmr_context, ep_id, &g))
		ret = -ENOKEY;
	else if (!(g.priv & DAT_MEM_PRIV_REMOTE_WRITE_FLAG))
		ret = -EACCES;
	else if (g.pz != pz)
		ret = -EPERM;
	else if (!sd_mem_in_range(g.start, g.size, t->virtual_address,
				  t->segment_length))
		ret = -ERANGE;
	else {
		sge->addr = lmr_at(g.lmr, t->virtual_address);
		sge->len = t->segment_length;
	}
	pthread_mutex_unlock(&sd_mem_lock);
	return ret;
}

/* Frees @rmr, whose last bind has ended. No lock held. */
static void rmr_final_free(struct sd_rmr *rmr)
{
	pthread_mutex_lock(&sd_mem_lock);
	sd_ctx_release_rmr(rmr->obj.ia, rmr);
	pthread_mutex_unlock(&sd_mem_lock);
	free(rmr);
}

/* Ends @rmr's binding, if any. Memory lock held. */
void sd_mem_unbind(struct sd_rmr *rmr)
{
	SD_ASSERT_HELD(&sd_mem_lock);
	sd_cma_revoke(rmr->obj.ia, rmr->rmr_context);
	if (rmr->lmr != NULL)
		rmr->lmr->refs--;
	rmr->lmr = NULL;
	rmr->va = rmr->len = 0;
	rmr->priv = 0;
	rmr->rmr_context = 0;
	rmr->ep_id = 0;
}

int sd_mem_bind_reserve(struct sd_bind *b)
{
	struct sd_rmr *rmr = b->rmr;
	int ret = 0;

	pthread_mutex_lock(&sd_mem_lock);
	b->ctx = 0;
	if (b->lmr != NULL) {
		b->ctx = sd_ctx_next_rmr(rmr->obj.ia, rmr);
		if (b->ctx == 0)
			ret = -ENOSPC;
		else
			b->lmr->refs++;
	}
	if (ret == 0)
		rmr->pending++;
	pthread_mutex_unlock(&sd_mem_lock);
	return ret;
}

DAT_DTO_COMPLETION_STATUS sd_mem_bind_exec(struct sd_bind *b, uint64_t ep_id)
{
	struct sd_rmr *rmr = b->rmr;
	DAT_DTO_COMPLETION_STATUS st = DAT_DTO_SUCCESS;
	bool last;

	pthread_mutex_lock(&sd_mem_lock);
	rmr->pending--;
	if (rmr->freed) {
		if (b->lmr != NULL)
			b->lmr->refs--;
		st = DAT_RMR_BIND_FAILURE;
	} else {
		sd_mem_unbind(rmr);
		if (b->lmr != NULL) {	/* its reference passes to the RMR */
			rmr->lmr = b->lmr;
			rmr->va = b->va;
			rmr->len = b->len;
			rmr->priv = b->priv;
			rmr->rmr_context = b->ctx;
			rmr->ep_id = ep_id;
			sd_cma_grant(rmr->obj.ia, b->ctx,
				     (uint64_t)(uintptr_t)rmr->pz,
				     rmr->scope == DAT_RMR_SCOPE_EP ? ep_id : 0,
				     b->priv, b->va, b->len);
		}
	}
	last = rmr->freed && rmr->pending == 0;
	pthread_mutex_unlock(&sd_mem_lock);
	if (last)
		rmr_final_free(rmr);
	return st;
}

void sd_mem_bind_abort(struct sd_bind *b)
{
	struct sd_rmr *rmr = b->rmr;
	bool last;

	pthread_mutex_lock(&sd_mem_lock);
	rmr->pending--;
	if (b->lmr != NULL)
		b->lmr->refs--;
	last = rmr->freed && rmr->pending == 0;
	pthread_mutex_unlock(&sd_mem_lock);
	if (last)
		rmr_final_free(rmr);
}

int sd_mem_invalidate(struct sd_ia *ia, struct sd_pz *pz, uint64_t ep_id,
		      DAT_RMR_CONTEXT ctx)
{
	struct sd_rmr *rmr;
	int err = 0;

	pthread_mutex_lock(&sd_mem_lock);
	rmr = sd_ctx_find_rmr(ia, ctx);
	if (rmr == NULL ||
	    (rmr->scope == DAT_RMR_SCOPE_EP && rmr->ep_id != ep_id))
		err = -ENOENT;
	else if (rmr->pz != pz)
		err = -EPERM;
	else
		sd_mem_unbind(rmr);
	pthread_mutex_unlock(&sd_mem_lock);
	return err;
}

/*
 * SOFTDAPL_DEBUG: why segment @i of a post was refused with @err, in
 * words into @why, naming the LMR and its bounds. Off the data path: only
 * for a post that fails, and only with debugging on. No lock held.
 */
__attribute__((cold))
static void refusal(struct sd_why *why, struct sd_ia *ia, struct sd_pz *pz,
		    const DAT_LMR_TRIPLET *t, DAT_COUNT i,
		    DAT_MEM_PRIV_FLAGS need, int err)
{
	struct sd_lmr *lmr;

	pthread_mutex_lock(&sd_mem_lock);
	lmr = sd_ctx_find_lmr(ia, t->lmr_context, false);
	if (err == -ENOKEY || lmr == NULL) {
		sd_why_set(why, "local_iov[%d]: lmr_context 0x%x names no LMR "
			   "of this IA (never registered, or freed)", (int)i,
			   (unsigned)t->lmr_context);
	} else if (err == -EACCES) {
		sd_why_set(why, "local_iov[%d]: %s (lmr_context 0x%x) was "
			   "registered without local %s access", (int)i,
			   sd_obj_name(&lmr->obj).s, (unsigned)t->lmr_context,
			   need & DAT_MEM_PRIV_LOCAL_WRITE_FLAG ? "write" :
			   "read");
	} else if (err == -EPERM) {
		sd_why_set(why, "local_iov[%d]: %s is in %s, the poster in %s",
			   (int)i, sd_obj_name(&lmr->obj).s,
			   sd_obj_name(&lmr->pz->obj).s,
			   pz != NULL ? sd_obj_name(&pz->obj).s : "no PZ");
	} else {
		sd_why_set(why, "local_iov[%d]: [0x%llx, +%llu) is not inside "
			   "%s [%p, +%llu)", (int)i,
			   (unsigned long long)t->virtual_address,
			   (unsigned long long)t->segment_length,
			   sd_obj_name(&lmr->obj).s, (void *)lmr->addr,
			   (unsigned long long)lmr->len);
	}
	pthread_mutex_unlock(&sd_mem_lock);
}

/* See wq.h. Zero-length segments' other fields are don't-care. */
int sd_mem_resolve_iov(struct sd_why *why, struct sd_ia *ia,
		       struct sd_pz *pz, DAT_COUNT n,
		       const DAT_LMR_TRIPLET *iov, DAT_COUNT max,
		       DAT_MEM_PRIV_FLAGS need, struct sd_sge *sge,
		       uint16_t *nsge, uint64_t *total)
{
	DAT_COUNT i;
	uint16_t k = 0;

	*total = 0;
	if (n < 0 || n > max) {
		if (SD_REFUSING())
			sd_why_set(why, "num_segments %d: not from 0 to %d, "
				   "the limit it was created with", (int)n,
				   (int)max);
		return -E2BIG;
	}
	if (n > 0 && iov == NULL) {
		if (SD_REFUSING())
			sd_why_set(why, "num_segments %d and local_iov NULL",
				   (int)n);
		return -EFAULT;
	}
	for (i = 0; i < n; i++) {
		int r;

		if (iov[i].segment_length == 0)
			continue;
		if (pz == NULL) {
			if (SD_REFUSING())
				sd_why_set(why, "local_iov[%d]: the EP has no "
					   "PZ", (int)i);
			return -ENODEV;
		}
		r = sd_mem_resolve_local(ia, pz, &iov[i], need, &sge[k]);
		/*
		 * Local write implies local read, as with verbs, where every
		 * registration may be read locally: OFED's dtest sends from
		 * buffers registered DAT_MEM_PRIV_LOCAL_WRITE_FLAG only.
		 */
		if (r == -EACCES && need == DAT_MEM_PRIV_LOCAL_READ_FLAG &&
		    sd_mem_resolve_local(ia, pz, &iov[i],
					 DAT_MEM_PRIV_LOCAL_WRITE_FLAG,
					 &sge[k]) == 0)
			r = 0;
		if (r < 0) {
			if (SD_REFUSING())
				refusal(why, ia, pz, &iov[i], i, need, r);
			return r;
		}
		*total += sge[k].len;
		k++;
	}
	*nsge = k;
	return 0;
}
