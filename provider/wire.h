/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl, layer 4: the wire engine. Each connection's transmit and
 * receive state (struct sd_tx, struct sd_rx), what tx.c, rx.c and
 * complete.c offer (framing out, placing in, completing DTOs), and fault
 * injection (fault.c).
 */
#ifndef SD_WIRE_H
#define SD_WIRE_H

#include <time.h>

#include "proto.h"
#include "wq.h"

struct sd_ep;

/* ------------------------------------------------------------------ */
/* The wire engine's per-connection state (tx.c, rx.c)                 */

/*
 * A READ_REQ being answered: the region granted and what is left; or an
 * atomic executed, whose response carries @val (issue 4).
 */
struct sd_rresp {
	uint32_t	tag;
	uint8_t		op;		/* SD_OP_READ_RESP or SD_OP_ATOMIC_RESP */
	struct sd_sge	sge;		/* the bytes to send */
	struct sd_lmr	*lmr;		/* busy reference, or NULL (len 0) */
	uint8_t		val[8];		/* ATOMIC_RESP: the old value, LE */
};

enum sd_tx_kind {
	SD_TX_NONE,
	SD_TX_RAW,	/* sock->out: RTU */
	SD_TX_REQ,	/* a request WQE: SEND, WRITE, READ_REQ */
	SD_TX_RESP,	/* a READ or atomic response */
	SD_TX_CTL,	/* ACK or DISCONNECT: header only */
};

/*
 * Frames chosen to go out, oldest first, written together with one
 * sendmsg (tx.c, "Batching"): at most SD_TX_BATCH, and SD_TX_IOV iovecs.
 */
#define SD_TX_BATCH	32
#define SD_TX_IOV	128

struct sd_txf {
	uint8_t		kind;		/* enum sd_tx_kind */
	uint8_t		hdr[SD_HDR_SIZE];	/* not for SD_TX_RAW */
	uint32_t	nsge;
	const struct sd_sge *sge;	/* payload segments */
	uint64_t	len;		/* payload bytes */
	struct sd_sge	one;		/* an atomic request's payload */
};

/*
 * Fault injection's state for one connection (fault.c), under ep->lock
 * with the rest of sd_tx: zeroed by sd_tx_reset, set up when the
 * connection is established. All zero while fault injection is off.
 */
struct sd_fault_conn {
	uint64_t	key;		/* the connection's draws: hash of seed, conn */
	uint64_t	hold_until;	/* delay_us: the held write goes then (ns); 0 */
	uint32_t	conn;		/* its number in this process, from 1; 0: none */
	uint32_t	frames;		/* frames written on it */
	uint32_t	writes;		/* writes that drew a delay */
	const char	*cut;		/* why it is to be cut (tx.c cuts it), or NULL */
};

/* Transmit state; all under ep->lock. */
struct sd_tx {
	struct sd_txf	f[SD_TX_BATCH];	/* ring of frames chosen */
	uint32_t	fhead, fcount;
	uint32_t	hdr_done;	/* f[fhead]: header bytes written */
	uint32_t	traced;		/* f[fhead..fhead + traced): tx lines written
					 * (trace.h; 0 when not tracing) */
	uint64_t	done;		/* f[fhead]: payload bytes written */
	uint32_t	unwritten;	/* requests in the ring */
	uint32_t	resp_picked;	/* responses in the ring */
	bool		disc_picked;	/* our DISCONNECT is in the ring */
	uint32_t	next;		/* requests sent: sq[0..next) from the head */
	uint32_t	seq;		/* number of the next request on the wire */
	uint32_t	peer_ack;	/* our requests the peer executed */
	uint32_t	rd_out;		/* READ_REQs out, response not placed */
	uint32_t	ack_sent;	/* last ack value put in a header */
	bool		blocked;	/* EAGAIN: waiting for POLLOUT */
	bool		ack_hold;	/* no standalone ACK now (progress.c) */
	uint8_t		ack_passes;	/* consumer passes that held the owed
					 * ACK (progress.c) */
	bool		disc_want;	/* graceful: DISCONNECT once drained */
	bool		disc_sent;	/* our DISCONNECT is written */
	struct sd_rresp	*resp;		/* ring of rd_in slots */
	uint32_t	resp_head, resp_count;
	uint64_t	ep_id;		/* the EP's identity for EP-scope RMRs:
					 * set once, by the first sd_tx_reset;
					 * never 0 afterwards, never reused */
	struct sd_fault_conn fault;	/* fault.c; zero unless SOFTDAPL_FAULT */
};

enum sd_rx_state {
	SD_RX_HDR,	/* reading a header */
	SD_RX_BUF,	/* SEND, WRITE_IMM: waiting for a receive (RNR) */
	SD_RX_DATA,	/* placing a payload */
};

/*
 * Bytes read from the socket ahead of the frame being handled: a header
 * and what follows it arrive with one recv (rx.c, "Staging").
 */
#define SD_RX_STAGE	4096
/* An RDMA write's last bytes, stored last and in order (rx.c). */
#define SD_WRITE_TAIL	64

/*
 * Receive state; under ep->lock, driven by whichever thread holds it (the
 * engine, or a consumer in dat_evd_dequeue / dat_evd_wait: progress.c).
 */
struct sd_rx {
	uint8_t		state;		/* enum sd_rx_state */
	uint8_t		hdr[SD_HDR_SIZE];
	uint32_t	hdr_have;
	bool		trace_due;	/* tracing: h's rx line is not written yet
					 * (rx.c, rx_header) */
	struct sd_hdr	h;		/* the header being handled */
	const struct sd_sge *sge;	/* where the payload goes */
	uint32_t	nsge;
	uint64_t	len, done;
	uint64_t	tail;		/* payload offset from which bytes are
					 * stored in order, each once (rx.c,
					 * SD_WRITE_TAIL); len: none */
	struct sd_sge	one;		/* WRITE: the granted region; atomics:
					 * @args */
	struct sd_lmr	*lmr;		/* WRITE: busy reference */
	uint8_t		args[SD_ATOMIC_ARGS];	/* atomic operands or result */
	struct sd_wqe	*wqe;		/* SEND/READ_RESP: the WQE filled */
	bool		from_srq;	/* wqe is an SRQ buffer */
	bool		pull;		/* SEND: the payload is read from the
					 * sender's memory at h.addr (proto.h) */
	uint32_t	executed;	/* peer's requests executed: the ack */
	struct timespec	rnr_at;		/* tracing: when the RNR wait began */
	uint32_t	rnr_seq;	/* tracing: the waiting frame's seq= */
	uint32_t	st_off, st_len;	/* stage[st_off, st_len): not yet used */
	uint8_t		stage[SD_RX_STAGE];
};

/* ------------------------------------------------------------------ */
/* DTOs (post.c, tx.c, rx.c)                                           */

/*
 * Completes @w of @ep's request queue or receive (@recv) with @status
 * and length @len: posts the DTO event unless it is a successful
 * suppressed one (SEND-2), or the EP is freed. Does not pop. ep->lock.
 */
void sd_complete_dto(struct sd_ep *ep, struct sd_wqe *w, bool recv,
		     DAT_DTO_COMPLETION_STATUS status, uint64_t len);

/*
 * Completes, in post order, the requests at the head of the send queue
 * that are finished: SENDs and WRITEs covered by the peer's ack, READs
 * and atomics whose response is placed, binds that took effect. ep->lock.
 */
void sd_tx_complete_acked(struct sd_ep *ep);

/*
 * Flushes everything outstanding (requests, receives, the SRQ buffer
 * taken) with DAT_DTO_ERR_FLUSHED, in order per queue (SRQ-7). Requests
 * already marked with an error status complete with it. ep->lock.
 */
void sd_qp_flush(struct sd_ep *ep);

/*
 * Fills @h as a control frame @op (TERMINATE, DISCONNECT, ACK) of @ep
 * with @tag and @code, acknowledging what @ep has executed. The one
 * place a control header is built. ep->lock.
 */
void sd_tx_ctl(const struct sd_ep *ep, struct sd_hdr *h, uint8_t op,
	       uint32_t tag, uint32_t code);

/* Resets tx and rx for a new connection. ep->lock. */
void sd_tx_reset(struct sd_ep *ep);

/*
 * Writes what can be written now: RTU, READ responses, requests in order
 * (fences and the read depth permitting), the graceful DISCONNECT, and an
 * ACK if one is owed and nothing else went out. On EAGAIN it arms POLLOUT
 * (directly on the engine, through ep->io_cmd elsewhere). A socket error
 * ends the connection (BROKEN). ep->lock; any thread.
 */
void sd_tx_progress(struct sd_ep *ep);

/*
 * A request was queued on @ep: writes it now if nothing is in flight,
 * else leaves it for a batch (sd_progress_defer). ep->lock; any thread.
 */
void sd_tx_post(struct sd_ep *ep);

/* Whether a frame is partly written: nothing else may go before it ends. */
bool sd_tx_mid_frame(const struct sd_ep *ep);

/* Forgets the frames chosen (the connection is gone). ep->lock. */
void sd_tx_drop_frames(struct sd_ep *ep);

/*
 * Reads and places frames until EAGAIN, RNR, or the connection ends.
 * Returns whether it read anything. ep->lock; any thread (rx.c).
 */
bool sd_rx_progress(struct sd_ep *ep);

/* Whether bytes read from the socket wait in rx.stage. ep->lock. */
bool sd_rx_staged(const struct sd_ep *ep);

/* ------------------------------------------------------------------ */
/* Fault injection (fault.c): SOFTDAPL_FAULT                           */

/*
 * True when SOFTDAPL_FAULT turned fault injection on; set once when the
 * library is loaded, before any thread of ours runs, and never again. The
 * hooks in tx.c test it first, so that fault injection costs one branch
 * predicted not taken when it is off (sd_fault_active).
 */
extern bool sd_fault_on;
#define sd_fault_active()	__builtin_expect(sd_fault_on, 0)

/*
 * @ep's connection is established (sd_tx_reset with the socket
 * attached): numbers it and sets up its draws. ep->lock.
 */
void sd_fault_conn_start(struct sd_ep *ep);

/*
 * A frame whose header is @op was written whole on @ep's connection:
 * counts it, and decides whether the connection is to be cut
 * (tx.fault.cut set; the transmitter calls sd_fault_cut once the write
 * under way is accounted for). ep->lock.
 */
void sd_fault_frame(struct sd_ep *ep, uint8_t op);

/*
 * Cuts @ep's connection as a network failure would: this side ends it
 * with DAT_CONNECTION_EVENT_BROKEN, the peer sees it end inside a frame.
 * ep->lock; any thread (as sd_qp_close).
 */
void sd_fault_cut(struct sd_ep *ep);

/*
 * Whether the write @ep's transmitter is about to make is held back
 * (delay_us). If so the transmitter returns; it is called again when
 * the time is up (the engine's tick, the socket's timer). ep->lock.
 */
bool sd_fault_hold(struct sd_ep *ep);

#endif
