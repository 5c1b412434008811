/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl, layer 3: work requests and their queues (wq.c), and the limits
 * of EPs, SRQs and the wire that ia_query reports and the entry points
 * enforce.
 */
#ifndef SD_WQ_H
#define SD_WQ_H

#include "mem.h"
#include "refuse.h"

/* ------------------------------------------------------------------ */
/* Limits of EPs, SRQs and the wire (ep.c, srq.c, cm.c; ia_query)      */

/*
 * What ia_query reports and what ep_create/srq_create/connect enforce;
 * one place so the two never disagree. Queues are preallocated, so the
 * depths bound memory, not speed.
 */
#define SD_MAX_EPS		65536
#define SD_MAX_DTO_PER_EP	16384	/* max_recv_dtos, max_request_dtos */
#define SD_MAX_IOV		32	/* segments per DTO, read, write, SRQ recv */

/* Every completion flag DAT 2.0 defines (dat_ep_create's attributes). */
#define SD_COMPLETION_FLAGS_ALL						\
	(DAT_COMPLETION_SUPPRESS_FLAG | DAT_COMPLETION_SOLICITED_WAIT_FLAG | \
	 DAT_COMPLETION_UNSIGNALLED_FLAG |				\
	 DAT_COMPLETION_BARRIER_FENCE_FLAG |				\
	 DAT_COMPLETION_EVD_THRESHOLD_FLAG |				\
	 DAT_COMPLETION_LMR_INVALIDATE_FENCE_FLAG)
#define SD_MAX_MESSAGE_SIZE	0x80000000u	/* bytes per send/recv (2 GiB) */
#define SD_MAX_RDMA_SIZE	0x80000000u	/* bytes per RDMA write/read */
#define SD_MAX_RDMA_READ_PER_EP	64	/* max_rdma_read_in/out of one EP */
#define SD_MAX_SRQS		4096
#define SD_MAX_RECV_PER_SRQ	65536
#define SD_MAX_EP_PER_SRQ	SD_MAX_EPS
#define SD_MAX_PRIVATE_DATA	1024	/* max_private_data_size (proto.h) */

/* ------------------------------------------------------------------ */
/* Work requests (post.c, srq.c, tx.c, rx.c)                           */

/*
 * COMMON-4: nothing on the post path allocates. A queue of work requests is
 * a ring of sd_wqe allocated with the queue, each with room for the
 * queue's maximum number of segments; posting fills the next free slot,
 * completing frees the oldest. COMMON-3: the consumer's local_iov is
 * copied (resolved into sge) at post time.
 */
enum sd_wr_op {
	SD_WR_SEND,
	SD_WR_RECV,
	SD_WR_RDMA_WRITE,
	SD_WR_RDMA_READ,
	SD_WR_BIND,		/* dat_rmr_bind: takes effect in turn, locally */
	SD_WR_WRITE_IMM,	/* sd_post_write_imm (ext.c) */
	SD_WR_FETCH_ADD,	/* sd_post_atomic (ext.c): completes as a READ */
	SD_WR_CMP_SWAP,
};

struct sd_ep;

struct sd_wqe {
	DAT_DTO_COOKIE		cookie;		/* COMMON-2: returned unchanged */
	DAT_COMPLETION_FLAGS	flags;
	uint8_t			op;		/* enum sd_wr_op */
	uint8_t			status;		/* DAT_DTO_COMPLETION_STATUS once done */
	uint16_t		nsge;
	uint32_t		seq;		/* request sequence number on the wire */
	bool			solicited;	/* receive: filled by a SEND_SE */
	bool			inv;		/* SEND: with invalidate of
						 * remote.rmr_context; receive: it
						 * invalidated remote.rmr_context */
	bool			has_imm;	/* receive: consumed by a WRITE_IMM */
	uint32_t		imm;		/* WRITE_IMM, receive: immediate data */
	uint64_t		len;		/* bytes the segments hold (or the message) */
	uint64_t		done;		/* bytes sent or placed so far */
	struct sd_sge		*sge;		/* the queue's max_sge slots for this WQE */
	DAT_RMR_TRIPLET		remote;		/* RDMA write/read, atomic target */
	union {
		uint8_t		atomic[16];	/* atomics: the request's payload
						 * (SD_ATOMIC_ARGS, proto.h) */
		struct sd_bind	bind;		/* SD_WR_BIND */
	} x;
};

/*
 * A ring of work requests. Guarded by the lock of its owner (ep->lock for
 * an EP's queues, srq->lock for an SRQ).
 */
struct sd_wq {
	struct sd_wqe	*wqe;		/* @size slots */
	struct sd_sge	*sge;		/* @size * @max_sge segments */
	uint32_t	size;
	uint32_t	max_sge;
	uint32_t	head;		/* oldest posted, not yet completed */
	uint32_t	count;		/* posted, not yet completed */
};

/*
 * Resolves @n triplets of a post's @iov (at most @max) for PZ @pz and local
 * privilege @need into @sge, dropping zero-length segments; sets *@nsge and
 * *@total. Local write implies local read. 0, or -E2BIG (@n negative or
 * above @max), -EFAULT (@iov NULL for @n > 0), -ENODEV (no PZ), or an
 * error of sd_mem_resolve_local (COMMON-1, 5..7): the entry points turn
 * them into their DAT_RETURN with sd_api_err. With SOFTDAPL_DEBUG, a
 * failure says why in words in @why (refuse.h): the segment, the LMR and
 * its bounds, for the caller's refusal line. Any thread; allocates
 * nothing (mem.c). Used by post.c, srq.c and ud.c.
 */
int sd_mem_resolve_iov(struct sd_why *why, struct sd_ia *ia,
		       struct sd_pz *pz, DAT_COUNT n,
		       const DAT_LMR_TRIPLET *iov, DAT_COUNT max,
		       DAT_MEM_PRIV_FLAGS need, struct sd_sge *sge,
		       uint16_t *nsge, uint64_t *total);

/* wq.c: allocates the ring; 0 or -ENOMEM. An empty ring (size 0) is allowed. */
int sd_wq_init(struct sd_wq *wq, uint32_t size, uint32_t max_sge);
void sd_wq_destroy(struct sd_wq *wq);

/* The slot the next post fills, or NULL when the queue is full (COMMON-8). */
static inline struct sd_wqe *sd_wq_next(struct sd_wq *wq)
{
	struct sd_wqe *w;

	if (wq->count == wq->size)
		return NULL;
	w = &wq->wqe[(wq->head + wq->count) % wq->size];
	w->sge = &wq->sge[(size_t)((w - wq->wqe)) * wq->max_sge];
	return w;
}

/* Makes the slot returned by sd_wq_next part of the queue. */
static inline void sd_wq_push(struct sd_wq *wq)
{
	wq->count++;
}

/* The @i-th oldest posted WQE (0: the head), or NULL. */
static inline struct sd_wqe *sd_wq_at(struct sd_wq *wq, uint32_t i)
{
	return i < wq->count ? &wq->wqe[(wq->head + i) % wq->size] : NULL;
}

/* Removes the head (completed in order, per queue). */
static inline void sd_wq_pop(struct sd_wq *wq)
{
	wq->head = (wq->head + 1) % wq->size;
	wq->count--;
}

#endif
