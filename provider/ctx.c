/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The contexts of LMRs and RMRs, and the IA's table that holds them
 * (mem.h declares what lmr.c, rmr.c and mem.c use). Every function
 * here but sd_ctx_init and sd_ctx_siphash needs the memory lock (mem.c)
 * held; none takes a lock.
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
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "ia.h"
#include "mem.h"

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
struct sd_lmr *sd_ctx_find_lmr(const struct sd_ia *ia, uint32_t ctx,
			       bool remote)
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
int sd_ctx_alloc_lmr(struct sd_ia *ia, struct sd_lmr *lmr)
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
void sd_ctx_release_lmr(struct sd_ia *ia, struct sd_lmr *lmr)
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
