/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LMRs: registered memory, its contexts, and the checks the data path
 * makes against them (for LMR contexts and, through the same table, RMR
 * contexts: rmr.c).
 *
 * Registration pins nothing (the memory is the consumer's and we copy
 * through it in software); it records the region, checks that it is
 * mapped, and gives it two 32-bit contexts: an lmr_context that local
 * segments name (DAT_LMR_TRIPLET) and an rmr_context that a peer names in
 * RDMA requests. They differ, so a consumer who mixes them up is told.
 *
 * Memory types (provider attribute lmr_mem_types_supported says all
 * three):
 *
 *   DAT_MEM_TYPE_VIRTUAL         a range of the consumer's address space.
 *   DAT_MEM_TYPE_LMR             a new registration of an existing LMR's
 *                                whole region (dat_lmr_create(3): the
 *                                length is ignored), with its own PZ,
 *                                privileges and contexts. The parent
 *                                cannot be freed while it exists
 *                                (DAT_INVALID_STATE_LMR_IN_USE).
 *   DAT_MEM_TYPE_SHARED_VIRTUAL  memory the consumer mapped shared
 *                                (MAP_SHARED: POSIX or System V shared
 *                                memory, a shared file mapping), named by
 *                                a 40-byte DAT_LMR_COOKIE. The provider
 *                                moves data with the CPU through the
 *                                consumer's own mapping, so every process
 *                                that maps the same object sees what
 *                                RDMA placed, and needs nothing more:
 *                                the registration is that of the range,
 *                                checked to be a shared mapping
 *                                (/proc/self/maps; else DAT_INVALID_STATE,
 *                                as dat_lmr_create(3) says), and the
 *                                cookie is kept (all 40 bytes, never read
 *                                as a string) and returned by
 *                                dat_lmr_query. Registrations with the
 *                                same cookie are separate LMRs, each with
 *                                its own contexts.
 *
 * Contexts (what they are made of, and the table they live in): ctx.c.
 * The checks the data path makes with them: mem.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <dat2/dat_ib_extensions.h>

#include "cma.h"
#include "entry.h"
#include "ia.h"
#include "mem.h"
#include "obj.h"
#include "refuse.h"
#include "util.h"

/* Every privilege dat_lmr_create accepts: DAT's and the IB extension's. */
#define LMR_PRIVS	(DAT_MEM_PRIV_ALL_FLAG | DAT_IB_MEM_PRIV_REMOTE_ATOMIC)

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

/*
 * True when [addr, addr + len) lies in mappings shared with other
 * processes (the 's' of /proc/self/maps: MAP_SHARED). Reads the maps of
 * the process, which lists them in address order. Registration only:
 * it allocates (stdio).
 */
static bool is_shared(const char *addr, uint64_t len)
{
	uintptr_t cur = (uintptr_t)addr, end = (uintptr_t)addr + len;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "re");
	bool ok = false;

	if (f == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long lo, hi;
		char perms[8];
		size_t n = strlen(line);

		/* A line longer than the buffer: skip the rest of it. */
		while (n > 0 && line[n - 1] != '\n' &&
		       fgets(line, sizeof(line), f) != NULL)
			n = strlen(line);
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3)
			continue;
		if (hi <= cur)
			continue;
		if (lo > cur || strlen(perms) < 4 || perms[3] != 's')
			break;		/* a hole or a private mapping */
		cur = hi;
		if (cur >= end) {
			ok = true;
			break;
		}
	}
	fclose(f);
	return ok;
}

static struct sd_lmr *lmr_of(DAT_LMR_HANDLE h)
{
	struct sd_obj *obj = sd_obj_check(h, SD_MAGIC_LMR);

	return obj != NULL ? sd_container_of(obj, struct sd_lmr, obj) : NULL;
}

/*
 * The three memory types of the top of the file. Zero-based addressing
 * (DAT_VA_TYPE_ZB) is not supported (ia_attr.zb_supported is false).
 * Privileges are DAT_MEM_PRIV_ALL_FLAG's bits and the IB extension's
 * DAT_IB_MEM_PRIV_REMOTE_ATOMIC. The contexts and the registered length
 * and address are optional outputs; the region registered is exactly the
 * one asked for (for DAT_MEM_TYPE_LMR, the parent's).
 *
 * Argument errors, in this order: the IA, the type (ARG2), the region
 * (ARG3: NULL address or cookie, an unmapped range; DAT_INVALID_HANDLE_LMR
 * for a bad parent), the length (ARG4), the PZ, the privileges (ARG6),
 * va_type (ARG7), lmr_handle (ARG8); then DAT_INVALID_STATE for shared
 * memory that is not mapped shared.
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
	struct sd_ia *ia = sd_obj_ia(ia_handle);
	struct sd_obj *pz_obj = sd_obj_check(pz_handle, SD_MAGIC_PZ);
	struct sd_lmr *parent = NULL;
	struct sd_pz *pz;
	struct sd_lmr *lmr;
	const char *cookie = NULL;
	char *addr;
	int err;

	if (ia == NULL)
		return sd_refuse_handle("lmr_create", NULL, "ia_handle",
					ia_handle, SD_MAGIC_IA,
					DAT_INVALID_HANDLE_IA);
	switch (mem_type) {
	case DAT_MEM_TYPE_VIRTUAL:
		addr = region.for_va;
		break;
	case DAT_MEM_TYPE_LMR:
		parent = lmr_of(region.for_lmr_handle);
		if (parent == NULL || parent->obj.ia != ia)
			return sd_refuse_handle("lmr_create", &ia->obj,
						"region_description.for_lmr_handle",
						region.for_lmr_handle,
						SD_MAGIC_LMR,
						DAT_INVALID_HANDLE_LMR);
		addr = parent->addr;
		length = parent->len;	/* dat_lmr_create(3): ignored */
		break;
	case DAT_MEM_TYPE_SHARED_VIRTUAL:
		addr = region.for_shared_memory.virtual_address;
		if (region.for_shared_memory.shared_memory_id == NULL)
			return sd_refuse_null("lmr_create", &ia->obj,
					      "region_description.for_shared_"
					      "memory.shared_memory_id",
					      DAT_INVALID_ARG3);
		cookie = *region.for_shared_memory.shared_memory_id;
		break;
	default:
		return sd_refuse("lmr_create", &ia->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				 "mem_type 0x%x is not VIRTUAL, LMR or "
				 "SHARED_VIRTUAL (the ones softdapl registers)",
				 (unsigned)mem_type);
	}
	/*
	 * An empty region is a length error, whatever the address (OFED, and
	 * dapltest -T F mem case 2, which registers 0 bytes at NULL).
	 */
	if (length == 0)
		return sd_refuse("lmr_create", &ia->obj,
				 SD_ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE),
				 "length 0: an empty region");
	if (addr == NULL)
		return sd_refuse("lmr_create", &ia->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
				 "the region's address is NULL");
	if (length > UINTPTR_MAX - (uintptr_t)addr)
		return sd_refuse("lmr_create", &ia->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4),
				 "length %llu from %p passes the end of the "
				 "address space", (unsigned long long)length,
				 (void *)addr);
	if (pz_obj == NULL || pz_obj->ia != ia)
		return sd_refuse_handle("lmr_create", &ia->obj, "pz_handle",
					pz_handle, SD_MAGIC_PZ,
					DAT_INVALID_HANDLE_PZ);
	pz = sd_container_of(pz_obj, struct sd_pz, obj);
	if (priv & ~LMR_PRIVS)
		return sd_refuse_bits("lmr_create", &ia->obj,
				      SD_ERR(DAT_INVALID_PARAMETER,
					     DAT_INVALID_ARG6),
				      "mem_privileges", priv, LMR_PRIVS);
	if (va_type != DAT_VA_TYPE_VA)
		return sd_refuse("lmr_create", &ia->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7),
				 "va_type %u is not DAT_VA_TYPE_VA (the one "
				 "softdapl supports)", (unsigned)va_type);
	if (lmr_handle == NULL)
		return sd_refuse_null("lmr_create", &ia->obj, "lmr_handle",
				      DAT_INVALID_ARG8);
	if (parent == NULL && !is_mapped(addr, length))
		return sd_refuse("lmr_create", &ia->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
				 "region [%p, +%llu) is not all mapped",
				 (void *)addr, (unsigned long long)length);
	if (cookie != NULL && !is_shared(addr, length))
		return sd_refuse("lmr_create", &ia->obj,
				 SD_ERR(DAT_INVALID_STATE, 0),
				 "region [%p, +%llu) is not mapped shared",
				 (void *)addr, (unsigned long long)length);

	lmr = calloc(1, sizeof(*lmr));
	if (lmr == NULL)
		return sd_refuse("lmr_create", &ia->obj,
				 SD_ERR(DAT_INSUFFICIENT_RESOURCES,
					DAT_RESOURCE_MEMORY),
				 "no memory for the LMR");
	sd_obj_init(&lmr->obj, ia, SD_MAGIC_LMR, DAT_HANDLE_TYPE_LMR);
	lmr->pz = pz;
	lmr->addr = addr;
	lmr->len = length;
	lmr->priv = priv;
	lmr->mem_type = mem_type;
	lmr->va_type = va_type;
	lmr->parent = parent;
	if (cookie != NULL)
		memcpy(lmr->cookie, cookie, sizeof(lmr->cookie));

	pthread_mutex_lock(&ia->lock);
	pthread_mutex_lock(&sd_mem_lock);
	err = sd_ctx_alloc_lmr(ia, lmr);
	if (err == 0 && parent != NULL)
		parent->refs++;
	if (err == 0)
		sd_cma_grant(ia, lmr->rmr_context, (uint64_t)(uintptr_t)pz, 0,
			     priv & (DAT_MEM_PRIV_REMOTE_READ_FLAG |
				     DAT_MEM_PRIV_REMOTE_WRITE_FLAG),
			     (uint64_t)(uintptr_t)lmr->addr, lmr->len);
	pthread_mutex_unlock(&sd_mem_lock);
	if (err != 0) {
		pthread_mutex_unlock(&ia->lock);
		free(lmr);
		return sd_refuse("lmr_create", &ia->obj,
				 SD_ERR(DAT_INSUFFICIENT_RESOURCES,
					DAT_RESOURCE_MEMORY_REGION),
				 "no context left: the IA has %d LMRs and RMRs "
				 "(max_lmrs)", SD_MAX_LMRS);
	}
	pz->refs++;
	sd_list_add_tail(&ia->lmrs, &lmr->obj.node);
	pthread_mutex_unlock(&ia->lock);
	sd_cnt_inc(ia->cnt, DCNT_IA_LMR_CREATE);

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

/*
 * The region description is the one given: the parent LMR's handle for
 * DAT_MEM_TYPE_LMR, the address and (a pointer to the provider's copy of)
 * the cookie for shared memory.
 */
DAT_RETURN DAT_API sd_lmr_query(DAT_LMR_HANDLE lmr_handle,
				DAT_LMR_PARAM_MASK mask, DAT_LMR_PARAM *param)
{
	struct sd_lmr *lmr = lmr_of(lmr_handle);

	if (lmr == NULL)
		return sd_refuse_handle("lmr_query", NULL, "lmr_handle",
					lmr_handle, SD_MAGIC_LMR,
					DAT_INVALID_HANDLE_LMR);
	if (mask & ~DAT_LMR_FIELD_ALL)
		return sd_refuse_bits("lmr_query", &lmr->obj,
				      SD_ERR(DAT_INVALID_PARAMETER,
					     DAT_INVALID_ARG2),
				      "lmr_param_mask", mask, DAT_LMR_FIELD_ALL);
	if (param == NULL)
		return sd_refuse_null("lmr_query", &lmr->obj, "lmr_param",
				      DAT_INVALID_ARG3);
	memset(param, 0, sizeof(*param));
	param->ia_handle = sd_obj_ia_handle(lmr->obj.ia);
	param->mem_type = lmr->mem_type;
	switch (lmr->mem_type) {
	case DAT_MEM_TYPE_LMR:
		param->region_desc.for_lmr_handle = lmr->parent;
		break;
	case DAT_MEM_TYPE_SHARED_VIRTUAL:
		param->region_desc.for_shared_memory.virtual_address = lmr->addr;
		param->region_desc.for_shared_memory.shared_memory_id =
			&lmr->cookie;
		break;
	default:
		param->region_desc.for_va = lmr->addr;
		break;
	}
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

/*
 * Unlists @lmr and frees it; ia->lock and the memory lock held, both
 * released here.
 */
static void lmr_release(struct sd_ia *ia, struct sd_lmr *lmr)
{
	sd_cma_revoke(ia, lmr->rmr_context);	/* peers are out when it returns */
	sd_ctx_release_lmr(ia, lmr);
	if (lmr->parent != NULL)
		lmr->parent->refs--;
	pthread_mutex_unlock(&sd_mem_lock);
	lmr->pz->refs--;
	sd_list_del(&lmr->obj.node);
	lmr->obj.magic = SD_MAGIC_DEAD;
	pthread_mutex_unlock(&ia->lock);
	free(lmr);
}

/*
 * DAT_INVALID_STATE (DAT_INVALID_STATE_LMR_IN_USE) while an LMR made over
 * it exists, an RMR is bound or being bound to it, or a peer's RDMA is
 * placing into or reading it.
 */
DAT_RETURN DAT_API sd_lmr_free(DAT_LMR_HANDLE lmr_handle)
{
	struct sd_lmr *lmr = lmr_of(lmr_handle);
	struct sd_ia *ia;

	if (lmr == NULL)
		return sd_refuse_handle("lmr_free", NULL, "lmr_handle",
					lmr_handle, SD_MAGIC_LMR,
					DAT_INVALID_HANDLE_LMR);
	ia = lmr->obj.ia;
	pthread_mutex_lock(&ia->lock);
	pthread_mutex_lock(&sd_mem_lock);
	if (lmr->busy > 0 || lmr->refs > 0) {
		DAT_RETURN ret = sd_refuse("lmr_free", &lmr->obj,
					   SD_ERR(DAT_INVALID_STATE,
						  DAT_INVALID_STATE_LMR_IN_USE),
					   "%s", lmr->refs > 0 ?
					   "LMRs made over it or RMRs bound "
					   "to it remain" :
					   "a peer's RDMA is using it");

		pthread_mutex_unlock(&sd_mem_lock);
		pthread_mutex_unlock(&ia->lock);
		return ret;
	}
	/* Counted while the LMR is the IA's (see sd_pz_free). */
	sd_cnt_inc(ia->cnt, DCNT_IA_LMR_FREE);
	lmr_release(ia, lmr);
	return DAT_SUCCESS;
}

/*
 * ia_close (sd_obj_close): whatever its references. RMRs are gone already; LMRs made
 * over this one forget it (they are destroyed next, and must not count
 * down a freed parent).
 */
static void lmr_close(struct sd_obj *o)
{
	struct sd_lmr *lmr = sd_container_of(o, struct sd_lmr, obj);
	struct sd_ia *ia = o->ia;
	struct sd_list *pos;

	pthread_mutex_lock(&ia->lock);
	pthread_mutex_lock(&sd_mem_lock);
	if (lmr->refs > 0) {
		sd_list_for_each(pos, &ia->lmrs) {
			struct sd_lmr *c = sd_container_of(pos, struct sd_lmr,
							   obj.node);

			if (c->parent == lmr)
				c->parent = NULL;
		}
	}
	lmr_release(ia, lmr);
}

/*
 * Every segment must lie in a registered LMR of the IA. There is nothing
 * to synchronise beyond that: the provider reads and writes registered
 * memory with the CPU, through the same caches as the consumer, so data
 * an RDMA read placed is visible once its completion is, and data the
 * consumer wrote is what an RDMA write or a peer's read sends
 * (provider attribute lmr_sync_req is false).
 */
static DAT_RETURN lmr_sync(const char *call, DAT_IA_HANDLE ia_handle,
			   const DAT_LMR_TRIPLET *segs, DAT_VLEN n)
{
	struct sd_ia *ia = sd_obj_ia(ia_handle);
	DAT_RETURN ret = DAT_SUCCESS;
	DAT_VLEN i;

	if (ia == NULL)
		return sd_refuse_handle(call, NULL, "ia_handle", ia_handle,
					SD_MAGIC_IA, DAT_INVALID_HANDLE_IA);
	if (segs == NULL && n > 0)
		return sd_refuse(call, &ia->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				 "local_segments is NULL, num_segments %llu",
				 (unsigned long long)n);
	pthread_mutex_lock(&sd_mem_lock);
	for (i = 0; i < n && ret == DAT_SUCCESS; i++) {
		const struct sd_lmr *lmr;

		if (segs[i].segment_length == 0)
			continue;
		lmr = sd_ctx_find_lmr(ia, segs[i].lmr_context, false);
		if (lmr == NULL ||
		    !sd_lmr_in_region(lmr, segs[i].virtual_address, segs[i].segment_length))
			ret = sd_refuse(call, &ia->obj,
					SD_ERR(DAT_INVALID_PARAMETER,
					       DAT_INVALID_ARG2),
					"local_segments[%llu]: %s",
					(unsigned long long)i, lmr == NULL ?
					"its lmr_context names no LMR of this "
					"IA" : "not inside its LMR");
	}
	pthread_mutex_unlock(&sd_mem_lock);
	return ret;
}

DAT_RETURN DAT_API sd_lmr_sync_rdma_read(DAT_IA_HANDLE ia_handle,
					 const DAT_LMR_TRIPLET *segs, DAT_VLEN n)
{
	return lmr_sync("lmr_sync_rdma_read", ia_handle, segs, n);
}

DAT_RETURN DAT_API sd_lmr_sync_rdma_write(DAT_IA_HANDLE ia_handle,
					  const DAT_LMR_TRIPLET *segs, DAT_VLEN n)
{
	return lmr_sync("lmr_sync_rdma_write", ia_handle, segs, n);
}

SD_OBJ_CLOSE_OP(SD_MAGIC_LMR, lmr_close)
