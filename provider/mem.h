/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl, layer 1: the memory objects (PZ, LMR, RMR, a bind in flight)
 * and the local segment (struct sd_sge), with their contexts (ctx.c, layer
 * 1). Declared here too, next to the objects they act on, is what mem.c
 * (layer 3) offers the data path: the memory lock, resolution of local
 * and remote accesses, and binds.
 */
#ifndef SD_MEM_H
#define SD_MEM_H

#include "obj.h"

/* ------------------------------------------------------------------ */
/* Memory (pz.c, lmr.c, rmr.c; ctx.c, mem.c)                          */

/*
 * The memory lock (mem.c): every IA's context table (ia->ctx_table,
 * ctx_size), the references and busy counts of LMRs and the bindings of
 * RMRs. It is what the data path takes to check a context, under ep->lock
 * or srq->lock, so it nests inside those and takes nothing itself (see
 * the lock order in softdapl.h). Object lists stay under ia->lock, which
 * is taken before it where both are needed. One lock for the process:
 * lookups are O(1) and short.
 */
extern pthread_mutex_t sd_mem_lock;

/*
 * Contexts (ctx.c explains them): 32 bits, never 0, a slot index of the
 * IA's context table above SD_CTX_INDEX_SHIFT and a tag below it that is
 * pseudo-random and never the same twice for a slot, so that a context
 * can be neither guessed nor used again once it has ended. The index is
 * no secret (tests use it to see a slot reused).
 */
#define SD_CTX_INDEX_SHIFT	18

static inline uint32_t sd_ctx_index(uint32_t ctx)
{
	return ctx >> SD_CTX_INDEX_SHIFT;
}

/*
 * Draws @ia's context key from getrandom(); ia_open calls it before the
 * IA has any memory object. 0 or a negative errno.
 */
int sd_ctx_init(struct sd_ia *ia);

/*
 * SipHash-2-4 of the 8 little-endian bytes of @m under @k (ctx.c). Not
 * exported from the library (libdaplsoft.map); provider_ctx_siphash
 * checks it against the paper's test vector.
 */
uint64_t sd_ctx_siphash(const uint64_t k[2], uint64_t m);

struct sd_pz {
	struct sd_obj	obj;
	unsigned	refs;		/* ia->lock: LMRs, RMRs, EPs, SRQs using it */
};

struct sd_lmr {
	struct sd_obj		obj;
	struct sd_pz		*pz;		/* const */
	char			*addr;		/* const; first byte registered */
	DAT_VLEN		len;		/* const */
	DAT_MEM_PRIV_FLAGS	priv;		/* const */
	DAT_MEM_TYPE		mem_type;	/* const */
	DAT_VA_TYPE		va_type;	/* const */
	DAT_LMR_CONTEXT		lmr_context;	/* const */
	DAT_RMR_CONTEXT		rmr_context;	/* const */
	struct sd_lmr		*parent;	/* const: DAT_MEM_TYPE_LMR: the LMR it
						 * was made over (counted in its refs) */
	unsigned		refs;		/* memory lock: LMRs made over it, RMRs
						 * bound or being bound to it */
	unsigned		busy;		/* memory lock: remote accesses placing now */
	char			cookie[DAT_LMR_COOKIE_SIZE]; /* const:
						 * DAT_MEM_TYPE_SHARED_VIRTUAL's id */
};

/*
 * True when [va, va + len) lies inside [start, start + size); overflow
 * safe for any va and len (nothing is added that could wrap).
 */
static inline bool sd_mem_in_range(uint64_t start, uint64_t size, uint64_t va,
				   uint64_t len)
{
	return va >= start && len <= size && va - start <= size - len;
}

/* True when [va, va + len) lies inside @lmr's region. */
static inline bool sd_lmr_in_region(const struct sd_lmr *lmr, uint64_t va,
				    uint64_t len)
{
	return sd_mem_in_range((uint64_t)(uintptr_t)lmr->addr, lmr->len, va,
			       len);
}

/*
 * ctx.c, for lmr.c and mem.c; memory lock held. alloc_lmr takes a slot
 * for @lmr and sets its two contexts (0 or -ENOMEM: no memory, or every
 * slot is in use or retired; may grow the table), release_lmr gives the
 * slot back (its tags stay spent: its contexts never match again).
 * find_lmr: the live LMR whose lmr_context (@remote false) or
 * rmr_context is @ctx, or NULL.
 */
int sd_ctx_alloc_lmr(struct sd_ia *ia, struct sd_lmr *lmr);
void sd_ctx_release_lmr(struct sd_ia *ia, struct sd_lmr *lmr);
struct sd_lmr *sd_ctx_find_lmr(const struct sd_ia *ia, uint32_t ctx,
			       bool remote);

/*
 * A local segment resolved at post time: the memory the provider may read
 * or write for it, already checked against its LMR.
 */
struct sd_sge {
	char		*addr;
	uint64_t	len;
};

/*
 * Resolves one DAT_LMR_TRIPLET of a post on an EP or SRQ of PZ @pz that
 * needs local privilege @need (DAT_MEM_PRIV_LOCAL_READ_FLAG for data sent
 * or written out, DAT_MEM_PRIV_LOCAL_WRITE_FLAG for data received or read
 * in) into @sge. Returns 0 or, per COMMON-5..7: -ERANGE (segment
 * outside its LMR), -EPERM (LMR of another PZ), -ENOKEY (an
 * lmr_context that names no LMR of @ia), -EACCES (a missing
 * privilege); the entry point turns them into its
 * DAT_RETURN (sd_api_err). A zero segment_length resolves to an empty
 * @sge whatever the other fields (DAT: they are then don't-care). Any
 * thread; takes the memory lock; allocates nothing.
 */
int sd_mem_resolve_local(struct sd_ia *ia, struct sd_pz *pz,
			 const DAT_LMR_TRIPLET *t, DAT_MEM_PRIV_FLAGS need,
			 struct sd_sge *sge);

/*
 * Grants a remote peer access to [va, va + len) through @rmr_context for
 * an EP of PZ @pz with privilege @need (DAT_MEM_PRIV_REMOTE_READ_FLAG,
 * _WRITE_FLAG or DAT_IB_MEM_PRIV_REMOTE_ATOMIC). The context is an LMR's
 * rmr_context or the context of a bound RMR (with the RMR's own range,
 * privileges and PZ; an RMR of dat_rmr_create_for_ep only for the EP
 * whose identity @ep_id it was bound through: sd_tx.ep_id). On success
 * returns 0, points @sge at the memory and takes a busy reference on the
 * LMR the memory belongs to (release with sd_mem_remote_done once the
 * bytes are placed or sent): that LMR cannot be freed meanwhile (an RMR
 * can: dat_rmr_free(3) lets accesses already arrived finish). Returns
 * -ENOENT (unknown context, or an RMR bound through another EP), -EACCES
 * (no privilege), -EPERM (other PZ) or -ERANGE (outside the region); the
 * peer's bytes then touch nothing. A zero-length access checks nothing
 * (as on IB): 0, an empty @sge and *lmr = NULL, which sd_mem_remote_done
 * accepts. Any thread; takes the memory lock; allocates nothing.
 */
int sd_mem_resolve_remote(struct sd_ia *ia, struct sd_pz *pz, uint64_t ep_id,
			  DAT_RMR_CONTEXT rmr_context, uint64_t va,
			  uint64_t len, DAT_MEM_PRIV_FLAGS need,
			  struct sd_sge *sge, struct sd_lmr **lmr);
void sd_mem_remote_done(struct sd_lmr *lmr);

/*
 * dat_ep_post_rdma_read_to_rmr's local side: resolves the RMR triplet @t
 * of this IA (an LMR's rmr_context or a bound RMR's context, as above)
 * for the data of a read to be placed in, on an EP of PZ @pz and identity
 * @ep_id: it needs DAT_MEM_PRIV_REMOTE_WRITE_FLAG, the data arriving as a
 * remote write would. 0, or -ENOKEY (a context that names nothing),
 * -EACCES (no such privilege), -EPERM (another PZ), -ERANGE (outside the
 * region). Takes no
 * busy reference (a local buffer, as a post's LMR segments). Any thread;
 * takes the memory lock.
 */
int sd_mem_resolve_rmr_local(struct sd_ia *ia, struct sd_pz *pz,
			     uint64_t ep_id, const DAT_RMR_TRIPLET *t,
			     struct sd_sge *sge);

/*
 * An RMR (memory window, DAT 2.0 6.7). dat_rmr_create makes one of PZ
 * scope (its context works on any EP of its PZ), dat_rmr_create_for_ep
 * one of EP scope (only on the EP it was last bound through). Each holds
 * a slot of the IA's context table from creation; every bind takes the
 * slot's next tag, so an old context never matches again.
 */
struct sd_rmr {
	struct sd_obj	obj;
	struct sd_pz	*pz;		/* const */
	DAT_RMR_SCOPE	scope;		/* const: DAT_RMR_SCOPE_PZ or _EP */
	/* The rest under the memory lock. */
	uint32_t	slot;		/* its slot in ia->ctx_table: where its
					 * next context comes from */
	uint32_t	old_slot;	/* a slot it left, its tags spent, that
					 * still points at it for the contexts
					 * it gave; 0: none (ctx.c) */
	struct sd_lmr	*lmr;		/* bound to (counted in its refs), or NULL */
	uint64_t	va, len;	/* the bound range */
	DAT_MEM_PRIV_FLAGS priv;	/* the bound remote privileges */
	DAT_RMR_CONTEXT	rmr_context;	/* the binding's context; 0 unbound */
	uint64_t	ep_id;		/* EP scope: the EP bound through */
	unsigned	pending;	/* binds posted, not yet done or flushed */
	bool		freed;		/* dat_rmr_free ran; the last pending
					 * bind's end frees it */
};

/*
 * A bind in flight (in its WQE): what dat_rmr_bind asked for, checked,
 * and the context it reserved. @lmr is counted in the LMR's refs from
 * sd_mem_bind_reserve until the binding ends.
 */
struct sd_bind {
	struct sd_rmr		*rmr;
	struct sd_lmr		*lmr;	/* NULL: unbind (length 0) */
	uint64_t		va, len;
	DAT_MEM_PRIV_FLAGS	priv;
	DAT_RMR_CONTEXT		ctx;	/* the new context; 0 for an unbind */
};

/*
 * ctx.c's context table, for rmr.c and mem.c; memory lock held.
 * alloc_rmr gives @rmr a slot of its own (0 or -ENOMEM; may grow the
 * table), release_rmr gives it back (its tags stay spent), next_rmr
 * reserves the next context of its slot, moving to another slot once
 * this one's tags are spent (0: none could be had; allocates nothing).
 * find_rmr: the bound RMR whose current context is @ctx, or NULL.
 */
int sd_ctx_alloc_rmr(struct sd_ia *ia, struct sd_rmr *rmr);
void sd_ctx_release_rmr(struct sd_ia *ia, struct sd_rmr *rmr);
DAT_RMR_CONTEXT sd_ctx_next_rmr(struct sd_ia *ia, struct sd_rmr *rmr);
struct sd_rmr *sd_ctx_find_rmr(const struct sd_ia *ia, DAT_RMR_CONTEXT ctx);

/*
 * mem.c, for qp.c and tx.c, under the memory lock taken inside (callers
 * may hold ep->lock). Reserve: counts the bind as pending, references its
 * LMR and gives it a new context (0, or -ENOSPC when the table has no
 * generation left).
 * Exec: applies it for EP @ep_id, dropping the old binding; returns
 * DAT_DTO_SUCCESS, or DAT_RMR_BIND_FAILURE if the RMR was freed
 * meanwhile. Abort: a flushed bind; undoes the reservation. Exec and
 * abort end the bind: they may free a freed RMR.
 */
int sd_mem_bind_reserve(struct sd_bind *b);
DAT_DTO_COMPLETION_STATUS sd_mem_bind_exec(struct sd_bind *b, uint64_t ep_id);
void sd_mem_bind_abort(struct sd_bind *b);

/*
 * Ends @rmr's binding, if any: drops its LMR reference and clears its
 * range, privileges and context (mem.c, for rmr.c's teardown). Memory
 * lock held.
 */
void sd_mem_unbind(struct sd_rmr *rmr);

/*
 * The receiving side of a SEND with invalidate: unbinds the RMR of @ia
 * whose current context is @ctx, if it is of PZ @pz and, for an EP-scope
 * RMR, bound through EP @ep_id. 0, or -ENOENT (no such RMR: an LMR's
 * context is never invalidated, dat_lmr_create(3)) or -EPERM (another
 * PZ). Any thread; takes the memory lock.
 */
int sd_mem_invalidate(struct sd_ia *ia, struct sd_pz *pz, uint64_t ep_id,
		      DAT_RMR_CONTEXT ctx);

#endif
