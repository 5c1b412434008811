/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LMRs: registered memory, its contexts, and the checks the data path
 * makes against them.
 *
 * Registration pins nothing (the memory is the consumer's and we copy
 * through it in software); it records the region, checks that it is
 * mapped, and gives it two 32-bit contexts: an lmr_context that local
 * segments name (DAT_LMR_TRIPLET) and an rmr_context that a peer names in
 * RDMA requests. They differ, so a consumer who mixes them up is told.
 *
 * Context format (the IA's table, ia->ctx_table, under ia->lock):
 *
 *	bits 31..18	slot index, 1..SD_MAX_LMRS (0 is never used, so
 *			no context is 0)
 *	bits 17..0	tag = P(2 * gen + kind), kind 0 for lmr_context,
 *			1 for rmr_context
 *
 * gen counts the registrations the slot has held, and P is a bijection on
 * 18 bits keyed by the IA's random ctx_seed (getrandom) and the slot index
 * (a four-round Feistel network). A context thus reveals nothing about the
 * next one of its slot, and as gen only grows, a freed context never
 * matches again: a slot whose 2^17 generations are used up is retired.
 * Lookups are O(1): index, then compare the whole context.
 *
 * Free slots are taken round robin, so a slot is reused as late as
 * possible. The table starts small and doubles up to SD_MAX_LMRS + 1.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "softdapl.h"
#include "entry.h"

#define CTX_TAG_BITS	18
#define CTX_TAG_MASK	((1u << CTX_TAG_BITS) - 1)
#define CTX_HALF_BITS	(CTX_TAG_BITS / 2)
#define CTX_HALF_MASK	((1u << CTX_HALF_BITS) - 1)
#define CTX_GEN_MAX	(1u << (CTX_TAG_BITS - 1))	/* two tags per generation */
#define CTX_SLOTS_MAX	(SD_MAX_LMRS + 1u)		/* 2^14: slot 0 unused */
#define CTX_SLOTS_MIN	64u

_Static_assert(CTX_SLOTS_MAX == 1u << (32 - CTX_TAG_BITS),
	       "SD_MAX_LMRS must fill the context's index bits");

struct sd_ctx_slot {
	struct sd_lmr	*lmr;	/* ia->lock; NULL when free */
	uint32_t	gen;	/* ia->lock; registrations held; CTX_GEN_MAX: retired */
};

struct sd_ctx_table {
	uint32_t		next;	/* ia->lock; where the next search starts */
	struct sd_ctx_slot	slot[];	/* ia->ctx_size slots */
};

/* A 32-bit integer hash (the finalizer of MurmurHash3's successors). */
static uint32_t mix(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

/* P: a keyed permutation of 0..2^18-1 (any round function gives one). */
static uint32_t ctx_tag(uint32_t seed, uint32_t index, uint32_t n)
{
	uint32_t l = (n >> CTX_HALF_BITS) & CTX_HALF_MASK;
	uint32_t r = n & CTX_HALF_MASK;
	uint32_t round, t;

	for (round = 0; round < 4; round++) {
		t = l ^ (mix(r ^ seed ^ (index * 0x9e3779b9U) ^ (round << 24)) &
			 CTX_HALF_MASK);
		l = r;
		r = t;
	}
	return (l << CTX_HALF_BITS) | r;
}

static uint32_t ctx_make(const struct sd_ia *ia, uint32_t index, uint32_t gen,
			 uint32_t kind)
{
	return (index << CTX_TAG_BITS) | ctx_tag(ia->ctx_seed, index, 2 * gen + kind);
}

/* The live LMR whose lmr_context (@remote false) or rmr_context is @ctx. */
static struct sd_lmr *ctx_find(const struct sd_ia *ia, uint32_t ctx, bool remote)
{
	uint32_t index = ctx >> CTX_TAG_BITS;
	struct sd_lmr *lmr;

	if (index == 0 || index >= ia->ctx_size)
		return NULL;
	lmr = ia->ctx_table->slot[index].lmr;
	if (lmr == NULL ||
	    (remote ? lmr->rmr_context : lmr->lmr_context) != ctx)
		return NULL;
	return lmr;
}

/*
 * Takes a slot for @lmr and sets its contexts. ia->lock held. Returns 0 or
 * -ENOMEM (no memory, or every slot is in use or retired).
 */
static int ctx_alloc(struct sd_ia *ia, struct sd_lmr *lmr)
{
	struct sd_ctx_table *t = ia->ctx_table;
	uint32_t i, index = 0;

	for (i = 0; t != NULL && i < ia->ctx_size; i++) {
		uint32_t k = (t->next + i) % ia->ctx_size;

		if (k != 0 && t->slot[k].lmr == NULL && t->slot[k].gen < CTX_GEN_MAX) {
			index = k;
			break;
		}
	}
	if (index == 0) {
		uint32_t size = ia->ctx_size ? ia->ctx_size * 2 : CTX_SLOTS_MIN;

		if (ia->ctx_size >= CTX_SLOTS_MAX)
			return -ENOMEM;
		if (size > CTX_SLOTS_MAX)
			size = CTX_SLOTS_MAX;
		t = realloc(t, sizeof(*t) + size * sizeof(t->slot[0]));
		if (t == NULL)
			return -ENOMEM;
		memset(&t->slot[ia->ctx_size], 0,
		       (size - ia->ctx_size) * sizeof(t->slot[0]));
		index = ia->ctx_size ? ia->ctx_size : 1;
		if (ia->ctx_size == 0)
			t->next = 1;
		ia->ctx_table = t;
		ia->ctx_size = size;
	}
	t->slot[index].lmr = lmr;
	t->next = index + 1;
	lmr->lmr_context = ctx_make(ia, index, t->slot[index].gen, 0);
	lmr->rmr_context = ctx_make(ia, index, t->slot[index].gen, 1);
	return 0;
}

/* Releases @lmr's slot; its contexts never match again. ia->lock held. */
static void ctx_release(struct sd_ia *ia, struct sd_lmr *lmr)
{
	uint32_t index = lmr->lmr_context >> CTX_TAG_BITS;

	ia->ctx_table->slot[index].lmr = NULL;
	ia->ctx_table->slot[index].gen++;
}

/*
 * True when every page of [addr, addr + len) is mapped (mincore fails
 * with ENOMEM on a hole). Asked a chunk at a time: no allocation.
 */
static bool is_mapped(const char *addr, uint64_t len)
{
	unsigned char vec[256];
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)addr & ~(page - 1);
	uintptr_t end = (uintptr_t)addr + len;	/* no wrap: checked before */

	while (start < end) {
		uintptr_t n = (end - start + page - 1) / page;

		if (n > sizeof(vec))
			n = sizeof(vec);
		if (mincore((void *)start, n * page, vec) != 0 && errno == ENOMEM)
			return false;
		start += n * page;
	}
	return true;
}

static struct sd_lmr *lmr_of(DAT_LMR_HANDLE h)
{
	struct sd_obj *obj = sd_obj_check(h, SD_MAGIC_LMR);

	return obj != NULL ? sd_container_of(obj, struct sd_lmr, obj) : NULL;
}

/*
 * DAT_MEM_TYPE_VIRTUAL only: DAT_MEM_TYPE_LMR and _SHARED_VIRTUAL are
 * DAT_NOT_IMPLEMENTED for now. Zero-based addressing (DAT_VA_TYPE_ZB) is
 * not supported (ia_attr.zb_supported is false). The contexts and the
 * registered length and address are optional outputs; the region
 * registered is exactly the one asked for.
 */
DAT_RETURN DAT_API sd_lmr_create(DAT_IA_HANDLE ia_handle, DAT_MEM_TYPE mem_type,
				 DAT_REGION_DESCRIPTION region, DAT_VLEN length,
				 DAT_PZ_HANDLE pz_handle, DAT_MEM_PRIV_FLAGS priv,
				 DAT_VA_TYPE va_type, DAT_LMR_HANDLE *lmr_handle,
				 DAT_LMR_CONTEXT *lmr_context,
				 DAT_RMR_CONTEXT *rmr_context,
				 DAT_VLEN *registered_length,
				 DAT_VADDR *registered_address)
{
	struct sd_ia *ia = sd_ia_from_handle(ia_handle);
	struct sd_obj *pz_obj = sd_obj_check(pz_handle, SD_MAGIC_PZ);
	struct sd_pz *pz;
	struct sd_lmr *lmr;
	char *addr = region.for_va;

	if (ia == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (mem_type == DAT_MEM_TYPE_LMR || mem_type == DAT_MEM_TYPE_SHARED_VIRTUAL)
		return SD_ERR(DAT_NOT_IMPLEMENTED, 0);
	if (mem_type != DAT_MEM_TYPE_VIRTUAL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (addr == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (length == 0 || length > UINTPTR_MAX - (uintptr_t)addr)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	if (pz_obj == NULL || pz_obj->ia != ia)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	pz = sd_container_of(pz_obj, struct sd_pz, obj);
	if (priv & ~DAT_MEM_PRIV_ALL_FLAG)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	if (va_type != DAT_VA_TYPE_VA)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7);
	if (lmr_handle == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG8);
	if (!is_mapped(addr, length)) {
		sd_dbg("lmr_create: [%p, +%llu) is not all mapped", (void *)addr,
		       (unsigned long long)length);
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	}

	lmr = calloc(1, sizeof(*lmr));
	if (lmr == NULL)
		return SD_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	sd_obj_init(&lmr->obj, ia, SD_MAGIC_LMR, DAT_HANDLE_TYPE_LMR);
	lmr->pz = pz;
	lmr->addr = addr;
	lmr->len = length;
	lmr->priv = priv;
	lmr->mem_type = mem_type;
	lmr->va_type = va_type;

	pthread_mutex_lock(&ia->lock);
	if (ctx_alloc(ia, lmr) != 0) {
		pthread_mutex_unlock(&ia->lock);
		free(lmr);
		return SD_ERR(DAT_INSUFFICIENT_RESOURCES,
			      DAT_RESOURCE_MEMORY_REGION);
	}
	pz->refs++;
	sd_list_add_tail(&ia->lmrs, &lmr->obj.node);
	pthread_mutex_unlock(&ia->lock);

	*lmr_handle = lmr;
	if (lmr_context != NULL)
		*lmr_context = lmr->lmr_context;
	if (rmr_context != NULL)
		*rmr_context = lmr->rmr_context;
	if (registered_length != NULL)
		*registered_length = length;
	if (registered_address != NULL)
		*registered_address = (DAT_VADDR)(uintptr_t)addr;
	return DAT_SUCCESS;
}

DAT_RETURN DAT_API sd_lmr_query(DAT_LMR_HANDLE lmr_handle,
				DAT_LMR_PARAM_MASK mask, DAT_LMR_PARAM *param)
{
	struct sd_lmr *lmr = lmr_of(lmr_handle);

	if (lmr == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
	if (mask & ~DAT_LMR_FIELD_ALL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (param == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	memset(param, 0, sizeof(*param));
	param->ia_handle = sd_ia_handle(lmr->obj.ia);
	param->mem_type = lmr->mem_type;
	param->region_desc.for_va = lmr->addr;
	param->length = lmr->len;
	param->pz_handle = lmr->pz;
	param->mem_priv = lmr->priv;
	param->va_type = lmr->va_type;
	param->lmr_context = lmr->lmr_context;
	param->rmr_context = lmr->rmr_context;
	param->registered_size = lmr->len;
	param->registered_address = (DAT_VADDR)(uintptr_t)lmr->addr;
	return DAT_SUCCESS;
}

/* Unlists @lmr and frees it; ia->lock held, released here. */
static void lmr_release(struct sd_ia *ia, struct sd_lmr *lmr)
{
	ctx_release(ia, lmr);
	lmr->pz->refs--;
	sd_list_del(&lmr->obj.node);
	lmr->obj.magic = SD_MAGIC_DEAD;
	pthread_mutex_unlock(&ia->lock);
	free(lmr);
}

/* DAT_INVALID_STATE while a peer's RDMA is placing into or reading it. */
DAT_RETURN DAT_API sd_lmr_free(DAT_LMR_HANDLE lmr_handle)
{
	struct sd_lmr *lmr = lmr_of(lmr_handle);
	struct sd_ia *ia;

	if (lmr == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
	ia = lmr->obj.ia;
	pthread_mutex_lock(&ia->lock);
	if (lmr->busy > 0) {
		pthread_mutex_unlock(&ia->lock);
		return SD_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_LMR_IN_USE);
	}
	lmr_release(ia, lmr);
	return DAT_SUCCESS;
}

void sd_lmr_destroy(struct sd_lmr *lmr)
{
	struct sd_ia *ia = lmr->obj.ia;

	pthread_mutex_lock(&ia->lock);
	lmr_release(ia, lmr);
}

/*
 * True when [va, va + len) lies inside @lmr; overflow-safe for any va and
 * len (nothing is added that could wrap).
 */
static bool in_region(const struct sd_lmr *lmr, uint64_t va, uint64_t len)
{
	uint64_t start = (uint64_t)(uintptr_t)lmr->addr;

	return va >= start && len <= lmr->len && va - start <= lmr->len - len;
}

DAT_RETURN sd_lmr_resolve_local(struct sd_ia *ia, struct sd_pz *pz,
				const DAT_LMR_TRIPLET *t, DAT_MEM_PRIV_FLAGS need,
				struct sd_sge *sge)
{
	bool write = need & DAT_MEM_PRIV_LOCAL_WRITE_FLAG;
	struct sd_lmr *lmr;
	DAT_RETURN ret = DAT_SUCCESS;

	if (t->segment_length == 0) {
		sge->addr = NULL;
		sge->len = 0;
		return DAT_SUCCESS;
	}
	pthread_mutex_lock(&ia->lock);
	lmr = ctx_find(ia, t->lmr_context, false);
	if (lmr == NULL || (lmr->priv & need) != need)	/* COMMON-7 */
		ret = SD_ERR(DAT_PRIVILEGES_VIOLATION,
			     write ? DAT_PRIVILEGES_WRITE : DAT_PRIVILEGES_READ);
	else if (lmr->pz != pz)				/* COMMON-6 */
		ret = SD_ERR(DAT_PROTECTION_VIOLATION,
			     write ? DAT_PROTECTION_WRITE : DAT_PROTECTION_READ);
	else if (!in_region(lmr, t->virtual_address, t->segment_length))
		ret = SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3); /* COMMON-5 */
	else {
		sge->addr = lmr->addr + (t->virtual_address -
					 (uint64_t)(uintptr_t)lmr->addr);
		sge->len = t->segment_length;
	}
	pthread_mutex_unlock(&ia->lock);
	return ret;
}

int sd_lmr_resolve_remote(struct sd_ia *ia, struct sd_pz *pz,
			  DAT_RMR_CONTEXT rmr_context, uint64_t va,
			  uint64_t len, DAT_MEM_PRIV_FLAGS need,
			  struct sd_sge *sge, struct sd_lmr **out)
{
	struct sd_lmr *lmr;
	int err = 0;

	*out = NULL;
	sge->addr = NULL;
	sge->len = 0;
	if (len == 0)
		return 0;
	pthread_mutex_lock(&ia->lock);
	lmr = ctx_find(ia, rmr_context, true);
	if (lmr == NULL)
		err = -ENOENT;
	else if (lmr->pz != pz)
		err = -EPERM;
	else if ((lmr->priv & need) != need)
		err = -EACCES;
	else if (!in_region(lmr, va, len))
		err = -ERANGE;
	else {
		lmr->busy++;
		sge->addr = lmr->addr + (va - (uint64_t)(uintptr_t)lmr->addr);
		sge->len = len;
		*out = lmr;
	}
	pthread_mutex_unlock(&ia->lock);
	return err;
}

void sd_lmr_remote_done(struct sd_lmr *lmr)
{
	struct sd_ia *ia;

	if (lmr == NULL)
		return;
	ia = lmr->obj.ia;
	pthread_mutex_lock(&ia->lock);
	lmr->busy--;
	pthread_mutex_unlock(&ia->lock);
}

/*
 * Every segment must lie in a registered LMR of the IA. There is nothing
 * to synchronise beyond that: the provider reads and writes registered
 * memory with the CPU, through the same caches as the consumer, so data
 * an RDMA read placed is visible once its completion is, and data the
 * consumer wrote is what an RDMA write or a peer's read sends
 * (provider attribute lmr_sync_req is false).
 */
static DAT_RETURN lmr_sync(DAT_IA_HANDLE ia_handle, const DAT_LMR_TRIPLET *segs,
			   DAT_VLEN n)
{
	struct sd_ia *ia = sd_ia_from_handle(ia_handle);
	DAT_RETURN ret = DAT_SUCCESS;
	DAT_VLEN i;

	if (ia == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (segs == NULL && n > 0)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	pthread_mutex_lock(&ia->lock);
	for (i = 0; i < n && ret == DAT_SUCCESS; i++) {
		const struct sd_lmr *lmr;

		if (segs[i].segment_length == 0)
			continue;
		lmr = ctx_find(ia, segs[i].lmr_context, false);
		if (lmr == NULL ||
		    !in_region(lmr, segs[i].virtual_address, segs[i].segment_length))
			ret = SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	}
	pthread_mutex_unlock(&ia->lock);
	return ret;
}

DAT_RETURN DAT_API sd_lmr_sync_rdma_read(DAT_IA_HANDLE ia_handle,
					 const DAT_LMR_TRIPLET *segs, DAT_VLEN n)
{
	return lmr_sync(ia_handle, segs, n);
}

DAT_RETURN DAT_API sd_lmr_sync_rdma_write(DAT_IA_HANDLE ia_handle,
					  const DAT_LMR_TRIPLET *segs, DAT_VLEN n)
{
	return lmr_sync(ia_handle, segs, n);
}
