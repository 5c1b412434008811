/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SRQ buffers: the slots of a shared receive queue, the FIFO of posted
 * ones and the stack of free ones, and how the connection core takes
 * and gives them back (srqbuf.h). srq.c has the
 * DAT entry points that create, post to, resize and free an SRQ.
 *
 * Layer 3: nothing here knows an EP. An EP that finds the FIFO empty
 * waits on srq->waiting through the struct sd_srq_waiter it embeds;
 * srq.c's resume command wakes it. The EP's own watermark check on a
 * take comes in as a callback (sd_srqbuf_take's @refuse), called under
 * srq->lock only when a buffer is there to take.
 *
 * Locks: srq->lock, inside the caller's EP lock; nothing allocates under
 * it, and nothing on the take and release paths allocates at all.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "srqbuf.h"
#include "util.h"
#include "wq.h"

/* Segments per slot in the chunks' arrays (at least one, to index). */
static size_t slot_sges(const struct sd_srq *srq)
{
	return srq->max_recv_iov > 0 ? (size_t)srq->max_recv_iov : 1;
}

int sd_srqbuf_chunk_alloc(const struct sd_srq *srq, struct sd_srq_chunk *c,
			  uint32_t first, uint32_t n)
{
	size_t k = slot_sges(srq);
	uint32_t i;

	c->slot = calloc(n, sizeof(*c->slot));
	c->sge = calloc((size_t)n * k, sizeof(*c->sge));
	if (c->slot == NULL || c->sge == NULL) {
		free(c->slot);
		free(c->sge);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		c->slot[i].sge = &c->sge[(size_t)i * k];
	c->first = first;
	c->n = n;
	return 0;
}

struct sd_wqe *sd_srqbuf_slot_at(struct sd_srq *srq, uint32_t idx)
{
	unsigned i;

	for (i = 0; i < srq->nchunks; i++) {
		struct sd_srq_chunk *c = &srq->chunk[i];

		if (idx - c->first < c->n)
			return &c->slot[idx - c->first];
	}
	return NULL;	/* not reached: numbers come from the chunks */
}

/* The number of slot @w. srq->lock. */
static uint32_t slot_index(const struct sd_srq *srq, const struct sd_wqe *w)
{
	unsigned i;

	SD_ASSERT_HELD(&srq->lock);
	for (i = 0; i < srq->nchunks; i++) {
		const struct sd_srq_chunk *c = &srq->chunk[i];

		if (w >= c->slot && w < c->slot + c->n)
			return c->first + (uint32_t)(w - c->slot);
	}
	return UINT32_MAX;	/* not reached: @w was taken from a chunk */
}

int sd_srqbuf_grow(struct sd_srq *srq, uint32_t want)
{
	for (;;) {
		struct sd_srq_chunk c;
		uint32_t *avail, *free_slot, old, add, i;

		pthread_mutex_lock(&srq->lock);
		old = srq->size;
		pthread_mutex_unlock(&srq->lock);
		if (old >= want)
			return 0;
		add = want - old;
		if (add < old)
			add = old;
		if (old + add > SD_MAX_RECV_PER_SRQ)
			add = SD_MAX_RECV_PER_SRQ - old;
		avail = calloc(old + add, sizeof(*avail));
		free_slot = calloc(old + add, sizeof(*free_slot));
		if (avail == NULL || free_slot == NULL ||
		    sd_srqbuf_chunk_alloc(srq, &c, old, add) < 0) {
			free(avail);
			free(free_slot);
			return -ENOMEM;
		}

		pthread_mutex_lock(&srq->lock);
		if (srq->size != old || srq->nchunks == SD_SRQ_MAX_CHUNKS) {
			bool full = srq->nchunks == SD_SRQ_MAX_CHUNKS;

			pthread_mutex_unlock(&srq->lock);
			free(avail);
			free(free_slot);
			free(c.slot);
			free(c.sge);
			if (full)
				return -ENOSPC;
			continue;
		}
		/* The FIFO keeps its order, from 0 in the new array. */
		for (i = 0; i < srq->avail_count; i++)
			avail[i] = srq->avail[(srq->avail_head + i) % old];
		memcpy(free_slot, srq->free_slot, srq->nfree * sizeof(*free_slot));
		for (i = 0; i < add; i++)
			free_slot[srq->nfree + i] = old + add - 1 - i;
		srq->nfree += add;
		srq->chunk[srq->nchunks++] = c;
		free(srq->avail);
		free(srq->free_slot);
		srq->avail = avail;
		srq->avail_head = 0;
		srq->free_slot = free_slot;
		srq->size = old + add;
		pthread_mutex_unlock(&srq->lock);
		return 0;
	}
}

/*
 * Moves the oldest posted buffer from avail to taken and checks the low
 * watermark. srq->lock held; avail_count > 0.
 */
static struct sd_wqe *srq_pop(struct sd_srq *srq)
{
	struct sd_wqe *w = sd_srqbuf_slot_at(srq, srq->avail[srq->avail_head]);

	SD_ASSERT_HELD(&srq->lock);
	srq->avail_head = (srq->avail_head + 1) % srq->size;
	srq->avail_count--;
	srq->taken++;
	if (srq->lw_armed && srq->avail_count < (uint32_t)srq->low_watermark) {
		srq->lw_armed = false;
		sd_engine_submit(&srq->lw_cmd);
	}
	return w;
}

int sd_srqbuf_take(struct sd_srq *srq, struct sd_srq_waiter *wt,
		   bool (*refuse)(void *arg), void *arg, struct sd_wqe **w)
{
	int r = 0;

	*w = NULL;
	pthread_mutex_lock(&srq->lock);
	if (srq->avail_count > 0) {
		if (refuse(arg)) {
			pthread_mutex_unlock(&srq->lock);
			return -EDQUOT;
		}
		*w = srq_pop(srq);
		if (wt->waiting) {
			sd_list_del(&wt->node);
			wt->waiting = false;
		}
	} else {
		if (!wt->waiting) {
			sd_list_add_tail(&srq->waiting, &wt->node);
			wt->waiting = true;
		}
		r = -EAGAIN;
	}
	pthread_mutex_unlock(&srq->lock);
	return r;
}

struct sd_wqe *sd_srqbuf_take_dgram(struct sd_srq *srq)
{
	struct sd_wqe *w = NULL;

	pthread_mutex_lock(&srq->lock);
	if (srq->avail_count > 0) {
		w = srq_pop(srq);
	}
	pthread_mutex_unlock(&srq->lock);
	return w;
}

void sd_srqbuf_release(struct sd_srq *srq, struct sd_wqe *w, bool requeue)
{
	uint32_t idx;

	pthread_mutex_lock(&srq->lock);
	idx = slot_index(srq, w);
	srq->taken--;
	if (requeue) {
		srq->avail_head = (srq->avail_head + srq->size - 1) % srq->size;
		srq->avail[srq->avail_head] = idx;
		srq->avail_count++;
		if (!sd_list_empty(&srq->waiting))
			sd_engine_submit(&srq->cmd);
	} else {
		srq->free_slot[srq->nfree++] = idx;
	}
	pthread_mutex_unlock(&srq->lock);
}

void sd_srqbuf_forget(struct sd_srq *srq, struct sd_srq_waiter *wt)
{
	pthread_mutex_lock(&srq->lock);
	if (wt->waiting) {
		sd_list_del(&wt->node);
		wt->waiting = false;
	}
	pthread_mutex_unlock(&srq->lock);
}
