/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl, layer 3: shared receive queues (struct sd_srq; srq.c is their
 * entry points) and their buffers (srqbuf.c): the FIFO, take and give-back,
 * and the waiting list of EPs in RNR.
 */
#ifndef SD_SRQBUF_H
#define SD_SRQBUF_H

#include "engine.h"
#include "obj.h"
#include "wq.h"

struct sd_pz;

/* ------------------------------------------------------------------ */
/* Shared receive queues (srq.c; their buffers srqbuf.c)               */

/*
 * An EP's place on its SRQ's list of those waiting for a buffer (RNR):
 * what srqbuf.c, which knows no EP, keeps of it. srq->lock.
 */
struct sd_srq_waiter {
	struct sd_list	node;		/* on srq->waiting */
	bool		waiting;
};

/*
 * Slots are allocated in chunks that never move (an EP placing into a
 * buffer holds a pointer to its slot without srq->lock): creation makes
 * the first, dat_srq_resize adds more, at least doubling the capacity,
 * so a few chunks reach SD_MAX_RECV_PER_SRQ.
 */
#define SD_SRQ_MAX_CHUNKS	24

struct sd_srq_chunk {
	struct sd_wqe	*slot;		/* @n buffers, numbered from @first */
	struct sd_sge	*sge;		/* @n * max_recv_iov segments */
	uint32_t	first, n;
};

struct sd_srq {
	struct sd_obj	obj;
	pthread_mutex_t	lock;
	struct sd_pz	*pz;		/* const */
	DAT_COUNT	max_recv_dtos;	/* lock: the consumer's limit (resize) */
	DAT_COUNT	max_recv_iov;	/* const */
	DAT_COUNT	low_watermark;	/* lock */
	bool		lw_armed;	/* lock: the low watermark may fire */
	struct sd_srq_chunk chunk[SD_SRQ_MAX_CHUNKS];	/* lock to add one */
	unsigned	nchunks;	/* lock */
	uint32_t	size;		/* lock: slots allocated (>= max_recv_dtos) */
	uint32_t	*avail;		/* lock: FIFO of posted slot numbers, @size */
	uint32_t	avail_head, avail_count;
	uint32_t	*free_slot;	/* lock: stack of free slot numbers, @size */
	uint32_t	nfree;
	uint32_t	taken;		/* lock: taken by EPs, not completed */
	unsigned	eps;		/* ia->lock: EPs using it */
	struct sd_list	waiting;	/* lock: EPs in RNR (srq_wait.node) */
	struct sd_cmd	cmd;		/* resume the waiting EPs */
	struct sd_cmd	lw_cmd;		/* engine: post the low-watermark event */
	struct sd_cmd	free_cmd;	/* frees it, after a queued resume */
};

static inline struct sd_srq *sd_srq_from_handle(DAT_SRQ_HANDLE h)
{
	struct sd_obj *o = sd_obj_check(h, SD_MAGIC_SRQ);

	return o ? sd_container_of(o, struct sd_srq, obj) : NULL;
}

/* Allocates @c: @n slots numbered from @first. 0 or -ENOMEM. No lock. */
int sd_srqbuf_chunk_alloc(const struct sd_srq *srq, struct sd_srq_chunk *c,
			  uint32_t first, uint32_t n);

/* The slot numbered @idx. srq->lock, or a slot the caller holds. */
struct sd_wqe *sd_srqbuf_slot_at(struct sd_srq *srq, uint32_t idx);

/*
 * Grows @srq's slots to at least @want: a new chunk of at least the
 * current size (so chunks stay few), and FIFO and free stack arrays for
 * the new size. Allocates with no lock held and installs under srq->lock;
 * a resize that raced and grew it first makes this one retry. 0, -ENOMEM
 * or -ENOSPC (out of chunk slots).
 */
int sd_srqbuf_grow(struct sd_srq *srq, uint32_t want);

/*
 * Takes the oldest posted buffer of @srq into *@w (SRQ-1, SRQ-4) for the
 * EP waiting through @wt, after asking @refuse(@arg), under srq->lock and
 * only when a buffer is posted, whether taking it would exceed the EP's
 * hard high watermark (rx.c passes sd_qp_check_watermarks). 0 with *@w;
 * -EAGAIN, *@w NULL and @wt put on the waiting list, when none is posted
 * (RNR); -EDQUOT, *@w NULL and not waiting, when refused: the buffer
 * stays posted and the engine breaks the connection (ep->wm_cmd). Either
 * way the caller treats a failure as RNR. Checks the SRQ's low
 * watermark. The EP's lock held.
 */
int sd_srqbuf_take(struct sd_srq *srq, struct sd_srq_waiter *wt,
		   bool (*refuse)(void *arg), void *arg, struct sd_wqe **w);

/*
 * Gives back a buffer taken by sd_srqbuf_take once its completion was
 * posted (or unused, @requeue: back to the front of the FIFO). ep->lock
 * held.
 */
void sd_srqbuf_release(struct sd_srq *srq, struct sd_wqe *w, bool requeue);

/*
 * A UD EP's take (ud.c): the oldest posted buffer of @srq, NULL when none
 * is (the datagram is dropped: no RNR wait, no EP watermark). The caller
 * completes it and gives it back with sd_srqbuf_release(requeue false)
 * before it drops its EP's lock. ep->lock of the UD EP held.
 */
struct sd_wqe *sd_srqbuf_take_dgram(struct sd_srq *srq);

/* Takes @wt off @srq's waiting list. The EP's lock held. */
void sd_srqbuf_forget(struct sd_srq *srq, struct sd_srq_waiter *wt);

#endif
