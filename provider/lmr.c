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
 * Contexts. A context is what a peer names to reach memory (an LMR's
 * rmr_context, an RMR's context) or a post names locally (lmr_context),
 * so it must not be guessable, and once it has ended (its LMR freed; its
 * RMR bound anew, unbound, invalidated or freed) it must never be
 * accepted again, even when its slot of the table serves another LMR or
 * RMR. The format (the IA's table, ia->ctx_table, under the memory lock):
 *
 *	bits 31..18	slot index, 1..SD_MAX_LMRS (slot 0 is never used,
 *			so no context is 0, which is what the provider
 *			reports for "none": an unbound RMR's, a flushed or
 *			unbinding dat_rmr_bind's)
 *	bits 17..0	tag = P_index(n)
 *
 * n counts the contexts the slot has given out, ever: an LMR takes two
 * (its lmr_context, then its rmr_context), each bind of an RMR one, even
 * a bind that is then flushed. P_index is a pseudo-random permutation of
 * 0..2^18-1 chosen by the IA's 128-bit key, drawn from getrandom() when
 * the IA opens (sd_ctx_init), and the index: a ten-round Feistel network
 * whose round function is SipHash-2-4 (a keyed PRF) of (index, round,
 * half). So:
 *
 *   - single use: P_index is a permutation and n only grows, so a slot
 *     never gives the same tag twice. A slot whose tags are spent is
 *     retired for the life of the IA (an RMR bound 2^18 times moves to
 *     another slot: sd_ctx_next_rmr), so an IA makes about 2^32
 *     contexts in all. A context that ended never matches again, however
 *     often its slot is reused.
 *   - not guessable: without the key, the tags a peer was given tell it
 *     nothing about any other, of that slot or another, in this IA or
 *     any other (each IA, each process, each run has its own key). A
 *     guess at a live context of a known slot is right with probability
 *     2^-18, and every wrong one costs the guesser its connection
 *     (WRITE-6: TERMINATE(remote access)). The index is not secret, as
 *     the index part of an InfiniBand rkey or an iWARP STag is not.
 *
 * Lookups compute nothing: index, then compare the whole context with
 * the one the slot's LMR or RMR holds now (O(1), no allocation; it is
 * what sd_mem_resolve_remote does per WRITE or READ frame). P runs only
 * when a context is made: at registration and at bind.
 *
 * Free slots are taken round robin, so a slot is reused as late as
 * possible. The table starts small and doubles up to SD_MAX_LMRS + 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include <dat2/dat_ib_extensions.h>

#include "softdapl.h"
#include "entry.h"

#define CTX_TAG_BITS	SD_CTX_INDEX_SHIFT
#define CTX_TAGS	(1u << CTX_TAG_BITS)	/* tags per slot, ever */
#define CTX_HALF_BITS	(CTX_TAG_BITS / 2)
#define CTX_HALF_MASK	((1u << CTX_HALF_BITS) - 1)
#define CTX_ROUNDS	10			/* Feistel rounds of P */
#define CTX_SLOTS_MAX	(SD_MAX_LMRS + 1u)	/* 2^14: slot 0 unused */
#define CTX_SLOTS_MIN	64u

_Static_assert(CTX_SLOTS_MAX == 1u << (32 - CTX_TAG_BITS),
	       "SD_MAX_LMRS must fill the context's index bits");
_Static_assert(CTX_TAG_BITS % 2 == 0, "P is a balanced Feistel network");

/* The remote privileges an LMR or an RMR may grant. */
#define REMOTE_PRIVS	(DAT_MEM_PRIV_REMOTE_READ_FLAG | \
			 DAT_MEM_PRIV_REMOTE_WRITE_FLAG | \
			 DAT_IB_MEM_PRIV_REMOTE_ATOMIC)
/* Every privilege dat_lmr_create accepts: DAT's and the IB extension's. */
#define LMR_PRIVS	(DAT_MEM_PRIV_ALL_FLAG | DAT_IB_MEM_PRIV_REMOTE_ATOMIC)

pthread_mutex_t sd_mem_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * A slot holds an LMR, an RMR, or nothing. A slot an RMR left because it
 * had spent its tags may still point at the RMR (rmr->old_slot): it is
 * retired, so nothing else ever takes it.
 */
struct sd_ctx_slot {
	struct sd_lmr	*lmr;	/* memory lock; NULL when not an LMR's */
	struct sd_rmr	*rmr;	/* memory lock; NULL when not an RMR's */
	uint32_t	used;	/* memory lock; tags given out (n); from
				 * CTX_TAGS - 1 on, nobody takes the slot */
};

struct sd_ctx_table {
	uint32_t		next;	/* memory lock; where the next search starts */
	struct sd_ctx_slot	slot[];	/* ia->ctx_size slots */
};

int sd_ctx_init(struct sd_ia *ia)
{
	ssize_t n = getrandom(ia->ctx_key, sizeof(ia->ctx_key), 0);

	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(ia->ctx_key) ? 0 : -EIO;
}

#define ROTL64(x, b)	(uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND							\
	do {								\
		v0 += v1; v1 = ROTL64(v1, 13); v1 ^= v0;		\
		v0 = ROTL64(v0, 32);					\
		v2 += v3; v3 = ROTL64(v3, 16); v3 ^= v2;		\
		v0 += v3; v3 = ROTL64(v3, 21); v3 ^= v0;		\
		v2 += v1; v1 = ROTL64(v1, 17); v1 ^= v2;		\
		v2 = ROTL64(v2, 32);					\
	} while (0)

/*
 * SipHash-2-4 (Aumasson and Bernstein) of the 8-byte little-endian
 * encoding of @m under the key k[0] | k[1] << 64: the reference
 * implementation's result for that message (provider_ctx_siphash checks
 * the paper's test vector).
 */
uint64_t sd_ctx_siphash(const uint64_t k[2], uint64_t m)
{
	uint64_t v0 = k[0] ^ 0x736f6d6570736575ULL;
	uint64_t v1 = k[1] ^ 0x646f72616e646f6dULL;
	uint64_t v2 = k[0] ^ 0x6c7967656e657261ULL;
	uint64_t v3 = k[1] ^ 0x7465646279746573ULL;
	uint64_t b = (uint64_t)8 << 56;		/* the length byte, no tail */

	v3 ^= m;
	SIPROUND;
	SIPROUND;
	v0 ^= m;
	v3 ^= b;
	SIPROUND;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

/*
 * P_index(n): a Feistel network on two 9-bit halves. Whatever the round
 * function, each round is invertible, so P_index is a permutation; with
 * a PRF as round function and ten rounds (as NIST's FF1 uses for small
 * domains) its values are unpredictable without the key.
 */
static uint32_t ctx_tag(const struct sd_ia *ia, uint32_t index, uint32_t n)
{
	uint32_t l = (n >> CTX_HALF_BITS) & CTX_HALF_MASK;
	uint32_t r = n & CTX_HALF_MASK;
	uint32_t round, t;

	for (round = 0; round < CTX_ROUNDS; round++) {
		uint64_t m = (uint64_t)index << 32 | (uint64_t)round << 16 | r;

		t = l ^ ((uint32_t)sd_ctx_siphash(ia->ctx_key, m) &
			 CTX_HALF_MASK);
		l = r;
		r = t;
	}
	return (l << CTX_HALF_BITS) | r;
}

/*
 * The next context of slot @index, whose record is @s: P_index of the
 * slot's next n. The caller has checked that one is left (s->used <
 * CTX_TAGS). Memory lock held.
 */
static uint32_t ctx_next(const struct sd_ia *ia, uint32_t index,
			 struct sd_ctx_slot *s)
{
	return (index << CTX_TAG_BITS) | ctx_tag(ia, index, s->used++);
}

/* The slot of @ctx's index, or NULL. Memory lock held. */
static struct sd_ctx_slot *ctx_slot(const struct sd_ia *ia, uint32_t ctx)
{
	uint32_t index = sd_ctx_index(ctx);

	if (index == 0 || index >= ia->ctx_size)
		return NULL;
	return &ia->ctx_table->slot[index];
}

/*
 * The live LMR whose lmr_context (@remote false) or rmr_context is @ctx.
 * Memory lock held.
 */
static struct sd_lmr *ctx_find(const struct sd_ia *ia, uint32_t ctx, bool remote)
{
	struct sd_ctx_slot *s = ctx_slot(ia, ctx);
	struct sd_lmr *lmr = s != NULL ? s->lmr : NULL;

	if (lmr == NULL ||
	    (remote ? lmr->rmr_context : lmr->lmr_context) != ctx)
		return NULL;
	return lmr;
}

struct sd_rmr *sd_ctx_find_rmr(const struct sd_ia *ia, DAT_RMR_CONTEXT ctx)
{
	struct sd_ctx_slot *s = ctx_slot(ia, ctx);
	struct sd_rmr *rmr = s != NULL ? s->rmr : NULL;

	if (rmr == NULL || rmr->lmr == NULL || rmr->rmr_context != ctx)
		return NULL;
	return rmr;
}

/* True when nobody holds slot @s and it has the two tags an LMR needs. */
static bool ctx_free(const struct sd_ctx_slot *s)
{
	return s->lmr == NULL && s->rmr == NULL && s->used <= CTX_TAGS - 2;
}

/*
 * Takes a free slot (growing the table if @grow) and returns its index,
 * or 0 (no memory, or every slot is in use or retired). Memory lock held.
 */
static uint32_t ctx_take(struct sd_ia *ia, bool grow)
{
	struct sd_ctx_table *t = ia->ctx_table;
	uint32_t i, index = 0;

	for (i = 0; t != NULL && i < ia->ctx_size; i++) {
		uint32_t k = (t->next + i) % ia->ctx_size;

		if (k != 0 && ctx_free(&t->slot[k])) {
			index = k;
			break;
		}
	}
	if (index == 0 && grow) {
		uint32_t size = ia->ctx_size ? ia->ctx_size * 2 : CTX_SLOTS_MIN;

		if (ia->ctx_size >= CTX_SLOTS_MAX)
			return 0;
		if (size > CTX_SLOTS_MAX)
			size = CTX_SLOTS_MAX;
		t = realloc(t, sizeof(*t) + size * sizeof(t->slot[0]));
		if (t == NULL)
			return 0;
		memset(&t->slot[ia->ctx_size], 0,
		       (size - ia->ctx_size) * sizeof(t->slot[0]));
		index = ia->ctx_size ? ia->ctx_size : 1;
		if (ia->ctx_size == 0)
			t->next = 1;
		ia->ctx_table = t;
		ia->ctx_size = size;
	}
	if (index != 0)
		t->next = index + 1;
	return index;
}

/*
 * Takes a slot for @lmr and sets its contexts. Memory lock held. Returns
 * 0 or -ENOMEM (no memory, or every slot is in use or retired).
 */
static int ctx_alloc(struct sd_ia *ia, struct sd_lmr *lmr)
{
	uint32_t index = ctx_take(ia, true);
	struct sd_ctx_slot *s;

	if (index == 0)
		return -ENOMEM;
	s = &ia->ctx_table->slot[index];
	s->lmr = lmr;
	lmr->lmr_context = ctx_next(ia, index, s);
	lmr->rmr_context = ctx_next(ia, index, s);
	return 0;
}

/*
 * Releases @lmr's slot. Its tags stay spent: its contexts never match
 * again. Memory lock held.
 */
static void ctx_release(struct sd_ia *ia, struct sd_lmr *lmr)
{
	ctx_slot(ia, lmr->lmr_context)->lmr = NULL;
}

int sd_ctx_alloc_rmr(struct sd_ia *ia, struct sd_rmr *rmr)
{
	uint32_t index = ctx_take(ia, true);

	if (index == 0)
		return -ENOMEM;
	ia->ctx_table->slot[index].rmr = rmr;
	rmr->slot = index;
	rmr->old_slot = 0;
	return 0;
}

void sd_ctx_release_rmr(struct sd_ia *ia, struct sd_rmr *rmr)
{
	ia->ctx_table->slot[rmr->slot].rmr = NULL;
	if (rmr->old_slot != 0)
		ia->ctx_table->slot[rmr->old_slot].rmr = NULL;
	rmr->old_slot = 0;
}

DAT_RMR_CONTEXT sd_ctx_next_rmr(struct sd_ia *ia, struct sd_rmr *rmr)
{
	struct sd_ctx_slot *s = &ia->ctx_table->slot[rmr->slot];
	uint32_t index;

	if (s->used >= CTX_TAGS) {
		/*
		 * This slot has spent its tags: move to a free one (no growth:
		 * this is the post path). The spent slot keeps pointing at
		 * the RMR while its binding or a bind in flight has a context
		 * of it, so that they work until they end (it is retired:
		 * nobody else takes it). An RMR leaves one such slot at a
		 * time; the one before is let go here once nothing has its
		 * contexts.
		 */
		if (rmr->old_slot != 0 && rmr->pending == 0 &&
		    (rmr->lmr == NULL ||
		     sd_ctx_index(rmr->rmr_context) != rmr->old_slot)) {
			ia->ctx_table->slot[rmr->old_slot].rmr = NULL;
			rmr->old_slot = 0;
		}
		if (rmr->old_slot != 0 || (index = ctx_take(ia, false)) == 0)
			return 0;
		rmr->old_slot = rmr->slot;
		ia->ctx_table->slot[index].rmr = rmr;
		rmr->slot = index;
		s = &ia->ctx_table->slot[index];
	}
	return ctx_next(ia, rmr->slot, s);
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
	struct sd_ia *ia = sd_ia_from_handle(ia_handle);
	struct sd_obj *pz_obj = sd_obj_check(pz_handle, SD_MAGIC_PZ);
	struct sd_lmr *parent = NULL;
	struct sd_pz *pz;
	struct sd_lmr *lmr;
	const char *cookie = NULL;
	char *addr;
	int err;

	if (ia == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	switch (mem_type) {
	case DAT_MEM_TYPE_VIRTUAL:
		addr = region.for_va;
		break;
	case DAT_MEM_TYPE_LMR:
		parent = lmr_of(region.for_lmr_handle);
		if (parent == NULL || parent->obj.ia != ia)
			return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
		addr = parent->addr;
		length = parent->len;	/* dat_lmr_create(3): ignored */
		break;
	case DAT_MEM_TYPE_SHARED_VIRTUAL:
		addr = region.for_shared_memory.virtual_address;
		if (region.for_shared_memory.shared_memory_id == NULL)
			return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
		cookie = *region.for_shared_memory.shared_memory_id;
		break;
	default:
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	}
	/*
	 * An empty region is a length error, whatever the address (OFED, and
	 * dapltest -T F mem case 2, which registers 0 bytes at NULL).
	 */
	if (length == 0)
		return SD_ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE);
	if (addr == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (length > UINTPTR_MAX - (uintptr_t)addr)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	if (pz_obj == NULL || pz_obj->ia != ia)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	pz = sd_container_of(pz_obj, struct sd_pz, obj);
	if (priv & ~LMR_PRIVS)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	if (va_type != DAT_VA_TYPE_VA)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7);
	if (lmr_handle == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG8);
	if (parent == NULL && !is_mapped(addr, length)) {
		sd_dbg("lmr_create: [%p, +%llu) is not all mapped", (void *)addr,
		       (unsigned long long)length);
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	}
	if (cookie != NULL && !is_shared(addr, length)) {
		sd_dbg("lmr_create: [%p, +%llu) is not mapped shared",
		       (void *)addr, (unsigned long long)length);
		return SD_ERR(DAT_INVALID_STATE, 0);
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
	lmr->parent = parent;
	if (cookie != NULL)
		memcpy(lmr->cookie, cookie, sizeof(lmr->cookie));

	pthread_mutex_lock(&ia->lock);
	pthread_mutex_lock(&sd_mem_lock);
	err = ctx_alloc(ia, lmr);
	if (err == 0 && parent != NULL)
		parent->refs++;
	pthread_mutex_unlock(&sd_mem_lock);
	if (err != 0) {
		pthread_mutex_unlock(&ia->lock);
		free(lmr);
		return SD_ERR(DAT_INSUFFICIENT_RESOURCES,
			      DAT_RESOURCE_MEMORY_REGION);
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
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
	if (mask & ~DAT_LMR_FIELD_ALL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (param == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	memset(param, 0, sizeof(*param));
	param->ia_handle = sd_ia_handle(lmr->obj.ia);
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
	ctx_release(ia, lmr);
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
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
	ia = lmr->obj.ia;
	pthread_mutex_lock(&ia->lock);
	pthread_mutex_lock(&sd_mem_lock);
	if (lmr->busy > 0 || lmr->refs > 0) {
		pthread_mutex_unlock(&sd_mem_lock);
		pthread_mutex_unlock(&ia->lock);
		return SD_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_LMR_IN_USE);
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
 * True when [va, va + len) lies inside [start, start + size); overflow
 * safe for any va and len (nothing is added that could wrap).
 */
static bool in_range(uint64_t start, uint64_t size, uint64_t va, uint64_t len)
{
	return va >= start && len <= size && va - start <= size - len;
}

static bool in_region(const struct sd_lmr *lmr, uint64_t va, uint64_t len)
{
	return in_range((uint64_t)(uintptr_t)lmr->addr, lmr->len, va, len);
}

/* The memory at address @va of @lmr (checked to be inside). */
static char *lmr_at(const struct sd_lmr *lmr, uint64_t va)
{
	return lmr->addr + (va - (uint64_t)(uintptr_t)lmr->addr);
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
	pthread_mutex_lock(&sd_mem_lock);
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
	struct sd_lmr *lmr = ctx_find(ia, ctx, true);
	struct sd_rmr *rmr;

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
	else if (!in_range(g.start, g.size, va, len))
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

void sd_lmr_remote_done(struct sd_lmr *lmr)
{
	if (lmr == NULL)
		return;
	pthread_mutex_lock(&sd_mem_lock);
	lmr->busy--;
	pthread_mutex_unlock(&sd_mem_lock);
}

DAT_RETURN sd_mem_resolve_rmr_local(struct sd_ia *ia, struct sd_pz *pz,
				    uint64_t ep_id, const DAT_RMR_TRIPLET *t,
				    struct sd_sge *sge)
{
	DAT_RETURN ret = DAT_SUCCESS;
	struct grant g;

	sge->addr = NULL;
	sge->len = 0;
	if (t->segment_length == 0)
		return DAT_SUCCESS;
	pthread_mutex_lock(&sd_mem_lock);
	if (!grant_of(ia, t->rmr_context, ep_id, &g) ||
	    !(g.priv & DAT_MEM_PRIV_REMOTE_WRITE_FLAG))
		ret = SD_ERR(DAT_PRIVILEGES_VIOLATION, DAT_PRIVILEGES_WRITE);
	else if (g.pz != pz)
		ret = SD_ERR(DAT_PROTECTION_VIOLATION, DAT_PROTECTION_WRITE);
	else if (!in_range(g.start, g.size, t->virtual_address, t->segment_length))
		ret = SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	else {
		sge->addr = lmr_at(g.lmr, t->virtual_address);
		sge->len = t->segment_length;
	}
	pthread_mutex_unlock(&sd_mem_lock);
	return ret;
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
	pthread_mutex_lock(&sd_mem_lock);
	for (i = 0; i < n && ret == DAT_SUCCESS; i++) {
		const struct sd_lmr *lmr;

		if (segs[i].segment_length == 0)
			continue;
		lmr = ctx_find(ia, segs[i].lmr_context, false);
		if (lmr == NULL ||
		    !in_region(lmr, segs[i].virtual_address, segs[i].segment_length))
			ret = SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	}
	pthread_mutex_unlock(&sd_mem_lock);
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

SD_OBJ_CLOSE_OP(SD_MAGIC_LMR, lmr_close)
