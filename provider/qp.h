/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl, layer 4: the endpoint (struct sd_ep) and what qp.c offers:
 * references, the state machine, closing, queues, flushing, binds,
 * watermarks (PROTOCOL.md tells the whole story).
 *
 * Lifetime. An EP is reference counted: the consumer's handle holds one
 * (dropped by dat_ep_free through the engine, after every command queued
 * before it ran), an attached or lingering sock one, an engine command in
 * flight one where said. Memory goes with the last reference; a consumer
 * may free an EP whose socket the engine still holds.
 */
#ifndef SD_QP_H
#define SD_QP_H

#include <stdatomic.h>

#include "evq.h"
#include "progress.h"
#include "sock.h"
#include "srqbuf.h"
#include "wire.h"

/* ------------------------------------------------------------------ */
/* Endpoints (ep.c)                                                    */

enum sd_cm_op {
	SD_CMOP_NONE,
	SD_CMOP_CONNECT,	/* dat_ep_connect, _dup_connect, _common_connect */
};

/* A WQE not completed yet carries this status. */
#define SD_WQE_PENDING	0xff

struct sd_ep {
	struct sd_obj	obj;
	pthread_mutex_t	lock;
	atomic_uint	refs;		/* see "Lifetime" above */
	DAT_EP_STATE	state;		/* lock; sd_qp_set_state only */
	bool		freed;		/* lock: dat_ep_free was called */
	struct sd_pz	*pz;		/* lock (ep_modify may set it) */
	struct sd_evd	*recv_evd;	/* lock; NULL once freed */
	struct sd_evd	*req_evd;	/* lock; NULL once freed */
	struct sd_evd	*conn_evd;	/* lock; NULL once freed */
	struct sd_srq	*srq;		/* const */
	DAT_EP_ATTR	attr;		/* lock */
	struct sd_wq	sq;		/* lock: requests (send, write, read) */
	struct sd_wq	rq;		/* lock: receives (not with an SRQ) */

	/* Connection: all under lock. */
	struct sd_sock	*sock;		/* attached socket, or NULL */
	struct sd_sp	*rsp;		/* RESERVED: the RSP holding it */
	struct sd_cr	*cr;		/* TENTATIVE: the request it waits on */
	struct sockaddr_storage remote;	/* the peer's address */
	DAT_CONN_QUAL	remote_port;	/* active: conn_qual; passive: port */
	DAT_CONN_QUAL	local_port;
	DAT_TIMEOUT	timeout;	/* connect timeout, microseconds */
	struct sd_stream *connect_stream; /* the stream the connect call
					 * opened (sd_tcp), until cm_cmd takes
					 * it; NULL (ep.c ep_start_connect) */
	/* What sd_cm_connect_now did with it, for cm_cmd (cm.c). */
	uint8_t		connect_now;	/* enum sd_connect_now */
	int		connect_err;	/* the connect or the HELLO's write
					 * failed: -errno, or 0 */
	uint32_t	hello_out;	/* bytes of the HELLO written (counted
					 * when > 0) */
	uint8_t		cm_op;		/* enum sd_cm_op for cm_cmd */
	bool		timed_out;	/* the connect timer fired */
	bool		active;		/* this side asked for the connection:
					 * remote and remote_port name the peer's
					 * service point (dat_ep_dup_connect) */
	uint16_t	pdata_len;	/* ours: HELLO or ACCEPT */
	uint16_t	peer_pdata_len;	/* the peer's, for the event */
	uint32_t	peer_max_msg;	/* what the peer accepts from us */
	uint32_t	peer_max_rdma;
	uint32_t	rd_out_max;	/* min(our rd_out, peer's rd_in) */
	uint32_t	rd_in_max;	/* our max_rdma_read_in */
	struct sd_tx	tx;
	struct sd_rx	rx;
	struct sd_drive_link drive[2];	/* on req_evd, recv_evd (progress.c) */
	struct sd_list	ack_node;	/* progress.c ack lock: ACK owed */
	bool		ack_listed;	/* progress.c ack lock */
	struct sd_list	park_node;	/* engine: parked (progress.c) */
	bool		parked;		/* engine, lock: not polled for input */
	uint8_t		eng_miss;	/* engine: readable, found nothing */
	uint64_t	park_hold;	/* engine: not parked before this uv_now
					 * (progress.c, sd_progress_park) */
	uint64_t	park_caught;	/* engine: uv_now of the last tick that
					   found its input waiting */
	bool		driven;		/* atomic: a consumer's pass over its
					 * EVD moved it since the last tick
					 * (progress.c, sd_progress_driven) */
	struct sd_srq_waiter srq_wait;	/* srq->lock: waiting for SRQ buffers */

	/*
	 * dat_ep_set_watermark (ep.c): limits on the receive buffers the EP
	 * holds (sd_qp_recv_count). DAT_WATERMARK_INFINITE: none. Armed
	 * until they fire once; all under lock. The engine side of a firing
	 * (the async event, the broken connection) is wm_cmd's.
	 */
	DAT_COUNT	soft_hw, hard_hw;
	bool		soft_armed, hard_armed;
	bool		soft_fire, hard_fire;	/* lock: wm_cmd has work */
	bool		wm_queued;	/* lock: wm_cmd submitted, not run yet */

	struct sd_cmd	cm_cmd;		/* connect (holds a reference) */
	struct sd_cmd	io_cmd;		/* re-arm the poll, resume rx */
	struct sd_cmd	free_cmd;	/* drops the consumer's reference */
	struct sd_cmd	wm_cmd;		/* a watermark fired (holds a reference) */

	uint8_t		pdata[SD_PROTO_MAX_PDATA];	/* lock */
	uint8_t		peer_pdata[SD_PROTO_MAX_PDATA];	/* lock */
	uint64_t	cnt[DCNT_EP_ALL_COUNTERS];	/* sd_cnt_*: DCNT_EP_* */
};

/* The live EP of a consumer handle, or NULL. */
static inline struct sd_ep *sd_ep_from_handle(DAT_EP_HANDLE h)
{
	struct sd_obj *o = sd_obj_check(h, SD_MAGIC_EP);

	return o ? sd_container_of(o, struct sd_ep, obj) : NULL;
}

void sd_qp_get(struct sd_ep *ep);
void sd_qp_put(struct sd_ep *ep);

/* "UNCONNECTED", ... for messages. */
const char *sd_qp_state_name(DAT_EP_STATE s);


/*
 * The debug and trace lines of a transition of EP @obj (RC or UD) from
 * @from to @to: "ep2 CONNECTED => DISCONNECTED (why)" and a `state` line.
 */
void sd_qp_trace_state(const struct sd_obj *obj, DAT_EP_STATE from,
		       DAT_EP_STATE to, const char *why);

/*
 * Whether a completion of @w (@recv: a receive, on an EP whose receive
 * completion flags are @recv_flags) with @status is a notification event
 * (complete.c; RC and UD EPs alike).
 */
bool sd_complete_notifies(const struct sd_wqe *w, bool recv,
			  DAT_COMPLETION_FLAGS recv_flags,
			  DAT_DTO_COMPLETION_STATUS status);

/*
 * The one transition function: logs "ep %p A => B (why)". Entering
 * DISCONNECTED from a connected state flushes (sd_qp_flush). ep->lock.
 */
void sd_qp_set_state(struct sd_ep *ep, DAT_EP_STATE to, const char *why);

/*
 * Ends the connection of @ep with connection event @ev (DISCONNECTED,
 * BROKEN, TIMED_OUT, ...; 0 for none): state DISCONNECTED, everything
 * flushed, the socket detached (with @ctl sent first if possible).
 * ep->lock; any thread.
 */
void sd_qp_close(struct sd_ep *ep, DAT_EVENT_NUMBER ev, const struct sd_hdr *ctl,
		 const char *why);

/* Posts connection event @ev with the peer's private data. ep->lock. */
void sd_qp_conn_event(struct sd_ep *ep, DAT_EVENT_NUMBER ev, bool pdata);

/*
 * The attributes of an EP created with ep_attributes NULL (and of the
 * EPs a PSP with DAT_PSP_PROVIDER_FLAG makes): OFED's defaults.
 */
extern const DAT_EP_ATTR sd_qp_default_attr;

/*
 * A new EP of @ia with attributes @attr (zeroes read as the provider's
 * defaults) taking its receives from @srq (or NULL), state UNCONNECTED,
 * one reference (the handle's), queues allocated; not yet on ia->eps.
 * Any thread; NULL when out of memory.
 */
struct sd_ep *sd_qp_new(struct sd_ia *ia, const DAT_EP_ATTR *attr,
			struct sd_srq *srq);

/*
 * Zero in these attributes means "the provider's default", as OFED reads
 * them (dtest and dapltest create EPs with max_message_size,
 * max_rdma_size, the read depths and the RDMA iov counts all 0): fills
 * them in. No lock.
 */
void sd_qp_attr_defaults(DAT_EP_ATTR *a);

/*
 * dat_ep_modify's new attributes @a for @ep's queues: when a depth or a
 * segment count changes, reallocates the queues. 0 (done, or nothing to
 * change), -EBUSY when they must change but DTOs are posted, -ENOMEM.
 * ep->lock.
 */
int sd_qp_resize(struct sd_ep *ep, const DAT_EP_ATTR *a);

/*
 * Completes @tmpl, a post on a DISCONNECTED EP, with DAT_DTO_ERR_FLUSHED
 * at once (SEND-5, RECV-7, WRITE-4). ep->lock.
 */
void sd_qp_flush_one(struct sd_ep *ep, const struct sd_wqe *tmpl);

/*
 * Queues the bind @b (checked by dat_rmr_bind in rmr.c, with @ep's
 * handle and @flags) on @ep's request queue, where it takes effect in
 * order with the EP's other requests (the RMR's old binding works until
 * then) and completes with DAT_RMR_BIND_COMPLETION_EVENT on the request
 * EVD. On a DISCONNECTED EP it is flushed at once. Reserves the new
 * context and stores it in *@ctx (0 when flushed or unbinding). 0, or
 * -EXDEV (an EP of another PZ than the RMR's), -ENOTCONN (not CONNECTED:
 * *@state says what it is), -ENOBUFS (the queue is full), -ENOSPC (no
 * context left). Takes ep->lock.
 */
int sd_qp_post_bind(struct sd_ep *ep, const struct sd_bind *b,
		    DAT_RMR_COOKIE cookie, DAT_COMPLETION_FLAGS flags,
		    DAT_RMR_CONTEXT *ctx, DAT_EP_STATE *state);

/*
 * The IA's side of releasing an EP, RC or UD: unlists @obj, counts the
 * free, and drops the references it held on its three EVDs, its PZ and
 * its SRQ (any may be NULL). Takes ia->lock (not held on entry).
 */
void sd_qp_unref(struct sd_obj *obj, struct sd_evd *const evds[3],
		 struct sd_pz *pz, struct sd_srq *srq);

/*
 * Releases @ep whatever its state (dat_ep_free, sd_qp_destroy, the IA's
 * teardown): closed abruptly, nothing of it reported any more, its
 * references dropped, its handle dead, and its memory freed on the
 * engine after every command queued for it. ep->lock held; drops it.
 */
void sd_qp_release(struct sd_ep *ep);

/*
 * Creates an EP for a PSP with DAT_PSP_PROVIDER_FLAG: no PZ, no EVDs,
 * default attributes except the RDMA read depths, which match the
 * requester's @hello (DAT 2.0 dat_psp_create: "the Provider sets up
 * Endpoint attributes to match the Active side connection request"),
 * state UNCONFIGURED_TENTATIVE. Engine; NULL on failure.
 */
struct sd_ep *sd_qp_create_passive(struct sd_ia *ia, const struct sd_cm_msg *hello);

/*
 * Destroys @ep whatever its state, as dat_ep_free does for the states it
 * allows: for a provider-made EP whose request was rejected or handed
 * off (the EP goes back to the provider: its handle dies). No lock held.
 */
void sd_qp_destroy(struct sd_ep *ep);

/*
 * Receive buffers @ep holds (dat_ep_recv_query's nbufs_allocated): its
 * posted receives not completed, or, with an SRQ, the SRQ buffer it took
 * and has not completed. ep->lock.
 */
DAT_COUNT sd_qp_recv_count(const struct sd_ep *ep);

/*
 * Checks @ep's watermarks against sd_qp_recv_count + @more (the buffer
 * about to be taken) and fires the armed ones that it exceeds: the soft
 * one as an async event, the hard one by breaking the connection; both
 * through ep->wm_cmd on the engine, so any thread may call this. Returns
 * true when the hard watermark fired (the buffer must not be taken).
 * ep->lock held (srq->lock may be held too).
 */
bool sd_qp_check_watermarks(struct sd_ep *ep, DAT_COUNT more);

/*
 * The watermark notifications (dat_ep_set_watermark's soft high
 * watermark, dat_srq_set_lw's low watermark) are asynchronous events on
 * the IA's async EVD. DAT 2.0 names their reasons
 * (DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT for an EP,
 * DAT_SRQ_LOW_WATERMARK_EVENT for an SRQ) but gives them no event number
 * of their own; softdapl posts them under this one, with dat_handle the
 * EP or SRQ and the reason telling which. No other softdapl event uses
 * it, so a consumer that armed a watermark recognizes it by number and
 * reason. They are posted, and counted, by sd_evq_async_error
 * (evq.h), as every async event, once the poster holds no lock.
 */
#define SD_EVENT_WATERMARK	DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR

#endif
