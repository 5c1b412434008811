/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive half of the wire engine: a resumable state machine that
 * reads a header, checks it, and places the payload straight into its
 * destination with readv, with one handler per opcode.
 *
 *   SD_RX_HDR   reading the 32-byte header (into rx.hdr, through the stage)
 *   SD_RX_BUF   a SEND or WRITE_IMM arrived and no receive is posted: RNR. The engine
 *               stops reading the socket (TCP flow control holds the
 *               sender, nothing is dropped) until a receive is posted,
 *               however long that takes; the peer's EOF is still seen
 *               (UV_DISCONNECT, i.e. EPOLLRDHUP).
 *   SD_RX_DATA  placing the payload: a SEND into the receive's segments
 *               (the EP's or an SRQ buffer), a WRITE into the region that
 *               sd_mem_resolve_remote granted, a READ_RESP into the READ's
 *               segments; an atomic's operands and result (16 and 8
 *               bytes) into rx.args. No bounce buffer, no allocation.
 *
 * Everything the peer sends is checked before it is acted on: the
 * opcode, the reserved bits, lengths against our own limits (negotiated
 * in the handshake), the ack against what we sent, READ and atomic depth,
 * a response against the oldest READ or atomic outstanding. A violation
 * sends TERMINATE (protocol) and breaks the connection. Remote access is
 * checked by sd_mem_resolve_remote before a byte is placed (an LMR's or a
 * bound RMR's context, its range, PZ and privilege; for an atomic the
 * alignment too): a refusal sends TERMINATE (remote access) naming the
 * request, and breaks (WRITE-6).
 *
 * Under ep->lock, on whichever thread holds it: the engine when the
 * socket is readable, a consumer driving progress from dat_evd_dequeue or
 * dat_evd_wait (progress.c). Nothing here calls libuv: what needs the
 * loop (re-arming the poll, closing the socket) goes through sd_sock_update,
 * which only acts on the engine, and commands.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <dat2/dat_ib_extensions.h>

#include "engine.h"
#include "ia.h"
#include "mem.h"
#include "progress.h"
#include "proto.h"
#include "qp.h"
#include "sock.h"
#include "srqbuf.h"
#include "trace.h"
#include "transport.h"
#include "util.h"
#include "wire.h"
#include "wq.h"

#define RX_IOV_MAX	SD_MAX_IOV
/* Frames handled per readable event before other sockets get a turn. */
#define RX_BUDGET	256

/*
 * A frame handler (and take_receive) returns 0 to go on reading, or a
 * negative errno to stop: -EAGAIN, no receive is posted (RNR: reading
 * resumes when one is); -EPROTO, the frame broke the protocol and the
 * connection is closed (terminate); -ECONNRESET, the peer ended it
 * (TERMINATE); -ESHUTDOWN, the peer disconnected.
 */

/*
 * Tracing: the rx line of the frame being checked, unless written
 * already: refused, with @why (bad=), or accepted (@why NULL).
 */
static void trace_refused(struct sd_ep *ep, const char *why)
{
	if (ep->rx.trace_due && ep->sock != NULL) {
		ep->rx.trace_due = false;
		sd_trace_frame("rx", &ep->obj, sd_sock_trace(ep->sock),
			       ep->rx.hdr, why);
	}
}

/* Sends TERMINATE(@code, @tag) and breaks the connection. */
static int terminate(struct sd_ep *ep, uint32_t code, uint32_t tag, const char *why)
{
	struct sd_hdr t;

	sd_tx_ctl(ep, &t, SD_OP_TERMINATE, tag, code);
	sd_dbg("%s: terminate (%s)", sd_obj_name(&ep->obj).s, why);
	trace_refused(ep, why);
	sd_qp_close(ep, DAT_CONNECTION_EVENT_BROKEN, &t, why);
	return -EPROTO;
}

static int protocol_error(struct sd_ep *ep, const char *why)
{
	return terminate(ep, SD_TERM_PROTOCOL, SD_TAG_NONE, why);
}

/* Sets up the payload placement into @nsge segments for @len bytes. */
static void place(struct sd_ep *ep, const struct sd_sge *sge, uint32_t nsge,
		  uint64_t len)
{
	ep->rx.sge = sge;
	ep->rx.nsge = nsge;
	ep->rx.len = len;
	ep->rx.done = 0;
	ep->rx.tail = len;
	ep->rx.state = SD_RX_DATA;
}

/*
 * An RDMA write (with or without immediate) into ep->rx.one, its last
 * SD_WRITE_TAIL bytes stored in order (see place_staged).
 */
static void place_write(struct sd_ep *ep, uint64_t len)
{
	place(ep, &ep->rx.one, len > 0 ? 1 : 0, len);
	ep->rx.tail = len > SD_WRITE_TAIL ? len - SD_WRITE_TAIL : 0;
}

/* ---- SEND, WRITE_IMM: the receive they consume ------------------ */

static bool is_write_imm(uint8_t op)
{
	return op == SD_OP_WRITE_IMM || op == SD_OP_WRITE_IMM_SE;
}

/*
 * sd_srqbuf_take's @refuse for @arg, an EP: taking one more SRQ buffer
 * would exceed its hard high watermark.
 */
static bool srq_refuse(void *arg)
{
	return sd_qp_check_watermarks(arg, 1);
}

/*
 * Tracing: @ep enters the RNR wait (its frame's rx line first, so that
 * the wait follows the frame that caused it), once per wait.
 */
static void trace_rnr_wait(struct sd_ep *ep)
{
	trace_refused(ep, NULL);
	ep->rx.rnr_at = sd_trace_now();
	ep->rx.rnr_seq = ep->sock != NULL ? sd_sock_trace(ep->sock)->rx_seq - 1 : 0;
	sd_trace("rnr", sd_obj_name(&ep->obj).s, "wait", "op=%s seq=%u%s%s",
		 sd_trace_op_name(ep->rx.h.op), ep->rx.rnr_seq,
		 ep->srq != NULL ? " srq=" : "",
		 ep->srq != NULL ? sd_obj_name(&ep->srq->obj).s : "");
}

/* Tracing: a receive was found for the frame @ep waited with. */
static void trace_rnr_resume(struct sd_ep *ep)
{
	struct timespec now = sd_trace_now();
	int64_t us = (int64_t)(now.tv_sec - ep->rx.rnr_at.tv_sec) * 1000000 +
		     (now.tv_nsec - ep->rx.rnr_at.tv_nsec) / 1000;

	sd_trace_at(&now, "rnr", sd_obj_name(&ep->obj).s, "resume",
		    "op=%s seq=%u waited_us=%lld%s%s",
		    sd_trace_op_name(ep->rx.h.op), ep->rx.rnr_seq,
		    (long long)(us > 0 ? us : 0),
		    ep->rx.from_srq ? " srq=" : "",
		    ep->rx.from_srq ? sd_obj_name(&ep->srq->obj).s : "");
}

/*
 * A SEND or a WRITE_IMM needs a receive: the EP's head, or a buffer of
 * its SRQ. Without one, RNR: the engine stops reading until one is
 * posted, and this runs again (SD_RX_BUF). A SEND's payload then goes
 * into the receive's segments; a WRITE_IMM's into the region granted
 * before (ep->rx.one), the receive only reporting it.
 */
static int take_receive(struct sd_ep *ep)
{
	struct sd_hdr *h = &ep->rx.h;
	bool waited = ep->rx.state == SD_RX_BUF;
	struct sd_wqe *w;

	if (ep->srq != NULL) {
		/* SRQ-1, SRQ-4, SRQ-6 */
		(void)sd_srqbuf_take(ep->srq, &ep->srq_wait, srq_refuse, ep,
				     &w);	/* NULL unless taken */
		ep->rx.from_srq = true;
	} else {
		w = sd_wq_at(&ep->rq, 0);
		ep->rx.from_srq = false;
	}
	if (w == NULL) {
		if (!waited && sd_trace_enabled())
			trace_rnr_wait(ep);
		ep->rx.state = SD_RX_BUF;	/* RNR: wait for a post */
		return -EAGAIN;
	}
	if (waited && sd_trace_enabled())
		trace_rnr_resume(ep);
	ep->rx.wqe = w;
	if (is_write_imm(h->op)) {
		place_write(ep, h->len);
		return 0;
	}
	if (h->len > w->len) {
		/* RECV-5, SRQ-9: the receive fails, so does the connection. */
		struct sd_wqe c = *w;

		trace_refused(ep, "message longer than the receive");
		if (ep->rx.from_srq)
			sd_srqbuf_release(ep->srq, w, false);
		else
			sd_wq_pop(&ep->rq);
		sd_complete_dto(ep, &c, true, DAT_DTO_LENGTH_ERROR, 0);
		ep->rx.wqe = NULL;
		return terminate(ep, SD_TERM_LENGTH, ep->rx.executed,
				 "message longer than the receive");
	}
	place(ep, w->sge, w->nsge, h->len);
	ep->rx.pull = h->addr != 0;	/* SENDs only: rx_send checked it */
	return 0;
}

/*
 * SEND, SEND_SE, SEND_INV, SEND_SE_INV. With invalidate, the RMR named
 * by rkey is invalidated first, before a receive is taken: one that may
 * not be (unknown context, an LMR's, another PZ's, an EP-scope RMR bound
 * through another EP) breaks the connection, the SEND completing
 * DAT_DTO_ERR_REMOTE_ACCESS at the requester, and consumes no receive.
 */
static int rx_send(struct sd_ep *ep)
{
	struct sd_hdr *h = &ep->rx.h;

	if (h->len > SD_MAX_MESSAGE_SIZE)
		return protocol_error(ep, "SEND above max_message_size");
	if ((h->op == SD_OP_SEND_INV || h->op == SD_OP_SEND_SE_INV) &&
	    sd_mem_invalidate(ep->obj.ia, ep->pz, ep->tx.ep_id, h->rkey) < 0)
		return terminate(ep, SD_TERM_REMOTE_ACCESS, ep->rx.executed,
				 "nothing to invalidate");
	if (h->addr != 0 && !ep->sock->tp->pulls(ep->sock->stream))
		return protocol_error(ep, "SEND by address where we cannot read it");
	return take_receive(ep);
}

/* The message or the written data is in: complete the receive. */
static int receive_done(struct sd_ep *ep)
{
	struct sd_hdr *h = &ep->rx.h;
	struct sd_wqe c = *ep->rx.wqe;

	/* Only the copy says how it was filled: SRQ slots stay clean. */
	c.solicited = h->op == SD_OP_SEND_SE || h->op == SD_OP_SEND_SE_INV ||
		      h->op == SD_OP_WRITE_IMM_SE;	/* RECV-3 */
	c.inv = h->op == SD_OP_SEND_INV || h->op == SD_OP_SEND_SE_INV;
	c.remote.rmr_context = c.inv ? h->rkey : 0;
	c.has_imm = is_write_imm(h->op);
	c.imm = c.has_imm ? h->code : 0;

	if (ep->rx.lmr != NULL) {
		sd_mem_remote_done(ep->rx.lmr);
		ep->rx.lmr = NULL;
	}
	ep->rx.executed++;
	if (ep->rx.from_srq)
		sd_srqbuf_release(ep->srq, ep->rx.wqe, false);
	else
		sd_wq_pop(&ep->rq);
	ep->rx.wqe = NULL;
	ep->rx.from_srq = false;
	if (c.has_imm) {
		sd_cnt_inc(ep->cnt, DCNT_EP_RECV_RDMA_IMM);
		sd_cnt_add(ep->cnt, DCNT_EP_RECV_RDMA_IMM_DATA, h->len);
	} else {
		sd_cnt_inc(ep->cnt, DCNT_EP_RECV);
		sd_cnt_add(ep->cnt, DCNT_EP_RECV_DATA, h->len);
	}
	/* RECV-1, RECV-2: the whole message, front segments first. */
	sd_complete_dto(ep, &c, true, DAT_DTO_SUCCESS, h->len);
	return 0;
}

/* Why sd_mem_resolve_remote refused (@r) a WRITE (@write) or a READ. */
static const char *access_why(int r, bool write)
{
	switch (r) {
	case -ENOENT:
		return "rkey unknown";
	case -EACCES:
		return write ? "no remote write privilege" :
			       "no remote read privilege";
	case -EPERM:
		return "another protection zone";
	case -ERANGE:
		return "out of bounds";
	default:
		return write ? "WRITE refused" : "READ refused";
	}
}

/* ---- WRITE, WRITE_IMM ---------------------------------------------- */

/*
 * WRITE-6: nothing is touched unless the region grants it. A WRITE_IMM
 * is checked the same way, before it takes a receive.
 */
static int rx_write(struct sd_ep *ep)
{
	struct sd_hdr *h = &ep->rx.h;
	int r;

	if (h->len > SD_MAX_RDMA_SIZE)
		return protocol_error(ep, "WRITE above max_rdma_size");
	r = sd_mem_resolve_remote(ep->obj.ia, ep->pz, ep->tx.ep_id, h->rkey,
				  h->addr, h->len, DAT_MEM_PRIV_REMOTE_WRITE_FLAG,
				  &ep->rx.one, &ep->rx.lmr);
	if (r < 0) {
		ep->rx.lmr = NULL;
		return terminate(ep, SD_TERM_REMOTE_ACCESS, ep->rx.executed,
				 access_why(r, true));
	}
	if (is_write_imm(h->op))
		return take_receive(ep);
	place_write(ep, h->len);
	return 0;
}

static int write_done(struct sd_ep *ep)
{
	if (is_write_imm(ep->rx.h.op))
		return receive_done(ep);
	if (ep->rx.lmr != NULL) {
		sd_mem_remote_done(ep->rx.lmr);
		ep->rx.lmr = NULL;
	}
	ep->rx.executed++;
	return 0;
}

/* ---- READ_REQ and atomics: the responder --------------------------- */

/*
 * A READ or atomic was answered. On the engine, that is work no local
 * thread takes part in, and the requester is likely to issue the next at
 * once: the engine may spin for it (engine.c). After placing a SEND or a
 * WRITE it does not: a local consumer has to react, and wants the CPU.
 */
static void responded(void)
{
	if (sd_engine_on_thread())
		sd_engine_worked();
}

/* The next slot of the response ring, or NULL if the peer exceeds rd_in. */
static struct sd_rresp *resp_slot(struct sd_ep *ep)
{
	if (ep->tx.resp_count >= ep->rd_in_max)
		return NULL;
	return &ep->tx.resp[(ep->tx.resp_head + ep->tx.resp_count) %
			    ep->rd_in_max];
}

static int rx_read_req(struct sd_ep *ep)
{
	struct sd_hdr *h = &ep->rx.h;
	struct sd_rresp *resp = resp_slot(ep);
	struct sd_lmr *lmr = NULL;
	struct sd_sge sge = { NULL, 0 };
	int r;

	if (h->len > SD_MAX_RDMA_SIZE)
		return protocol_error(ep, "READ above max_rdma_size");
	if (resp == NULL)
		return protocol_error(ep, "too many READs outstanding");
	r = sd_mem_resolve_remote(ep->obj.ia, ep->pz, ep->tx.ep_id, h->rkey,
				  h->addr, h->len, DAT_MEM_PRIV_REMOTE_READ_FLAG,
				  &sge, &lmr);
	if (r < 0)
		return terminate(ep, SD_TERM_REMOTE_ACCESS, ep->rx.executed,
				 access_why(r, false));
	resp->tag = h->tag;
	resp->op = SD_OP_READ_RESP;
	resp->sge = sge;
	resp->lmr = lmr;
	ep->tx.resp_count++;
	ep->rx.executed++;
	ep->rx.state = SD_RX_HDR;
	responded();
	return 0;
}

/*
 * FETCH_ADD, CMP_SWAP: the operands come as the payload, into rx.args;
 * like READs, atomics count against the read depth (rd_in).
 */
static int rx_atomic(struct sd_ep *ep)
{
	struct sd_hdr *h = &ep->rx.h;

	if (h->len != SD_ATOMIC_ARGS)
		return protocol_error(ep, "atomic of a bad length");
	if (resp_slot(ep) == NULL)
		return protocol_error(ep, "too many atomics outstanding");
	ep->rx.one.addr = (char *)ep->rx.args;
	ep->rx.one.len = SD_ATOMIC_ARGS;
	place(ep, &ep->rx.one, 1, SD_ATOMIC_ARGS);
	return 0;
}

/*
 * The operands are in: check the access (8 bytes, aligned, with
 * DAT_IB_MEM_PRIV_REMOTE_ATOMIC), execute it with one atomic instruction
 * on the target word (so that it is atomic against every other atomic
 * on that word, whichever connection, IA or process issues it) and queue
 * the response carrying the previous value.
 */
static int atomic_done(struct sd_ep *ep)
{
	struct sd_hdr *h = &ep->rx.h;
	struct sd_rresp *resp = resp_slot(ep);
	uint64_t a = sd_get64(ep->rx.args), b = sd_get64(ep->rx.args + 8);
	uint64_t old;
	struct sd_lmr *lmr = NULL;
	struct sd_sge sge;
	uint64_t *word;

	if (h->addr % SD_ATOMIC_SIZE != 0 ||
	    sd_mem_resolve_remote(ep->obj.ia, ep->pz, ep->tx.ep_id, h->rkey,
				  h->addr, SD_ATOMIC_SIZE,
				  (DAT_MEM_PRIV_FLAGS)DAT_IB_MEM_PRIV_REMOTE_ATOMIC,
				  &sge, &lmr) < 0)
		return terminate(ep, SD_TERM_REMOTE_ACCESS, ep->rx.executed,
				 "atomic refused");
	word = (uint64_t *)(void *)sge.addr;	/* aligned: addr % 8 == 0 */
	if (h->op == SD_OP_FETCH_ADD) {
		old = __atomic_fetch_add(word, a, __ATOMIC_SEQ_CST);
	} else {
		old = a;
		/* On failure old receives the current value. */
		__atomic_compare_exchange_n(word, &old, b, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	}
	sd_mem_remote_done(lmr);
	resp->tag = h->tag;
	resp->op = SD_OP_ATOMIC_RESP;
	sd_put64(resp->val, old);
	resp->sge.addr = (char *)resp->val;
	resp->sge.len = SD_ATOMIC_SIZE;
	resp->lmr = NULL;
	ep->tx.resp_count++;
	ep->rx.executed++;
	responded();
	return 0;
}

/* ---- READ_RESP, ATOMIC_RESP: the requester ------------------------ */

/*
 * The peer answers in order: the response must be for the oldest READ
 * or atomic still waiting, of the matching kind, tag and length. A READ's
 * bytes go straight into its segments; an atomic's old value into
 * rx.args first (it is converted from little-endian when it lands).
 */
static int rx_resp(struct sd_ep *ep)
{
	struct sd_hdr *h = &ep->rx.h;
	struct sd_wqe *w = NULL;
	uint32_t i;

	for (i = 0; i < ep->tx.next; i++) {
		struct sd_wqe *x = sd_wq_at(&ep->sq, i);

		if ((x->op == SD_WR_RDMA_READ || x->op == SD_WR_FETCH_ADD ||
		     x->op == SD_WR_CMP_SWAP) && x->status == SD_WQE_PENDING) {
			w = x;
			break;
		}
	}
	if (w == NULL || w->seq != h->tag ||
	    (w->op == SD_WR_RDMA_READ) != (h->op == SD_OP_READ_RESP) ||
	    w->len != h->len)
		return protocol_error(ep, "unexpected response");
	ep->rx.wqe = w;
	ep->rx.from_srq = false;
	if (h->op == SD_OP_ATOMIC_RESP) {
		ep->rx.one.addr = (char *)ep->rx.args;
		ep->rx.one.len = SD_ATOMIC_SIZE;
		place(ep, &ep->rx.one, 1, SD_ATOMIC_SIZE);
	} else {
		place(ep, w->sge, w->nsge, h->len);
	}
	return 0;
}

static int resp_done(struct sd_ep *ep)
{
	struct sd_wqe *w = ep->rx.wqe;

	if (ep->rx.h.op == SD_OP_ATOMIC_RESP) {
		uint64_t old = sd_get64(ep->rx.args);

		memcpy(w->sge[0].addr, &old, SD_ATOMIC_SIZE);
	}
	w->status = DAT_DTO_SUCCESS;
	ep->rx.wqe = NULL;
	ep->tx.rd_out--;
	sd_tx_complete_acked(ep);
	return 0;
}

/* ---- the rest ---------------------------------------------------- */

static int rx_ack(struct sd_ep *ep)
{
	ep->rx.state = SD_RX_HDR;
	return 0;
}

static int rx_terminate(struct sd_ep *ep)
{
	struct sd_hdr *h = &ep->rx.h;
	uint32_t i;

	if (h->code == 0 || h->code > SD_TERM_MAX)
		return protocol_error(ep, "bad TERMINATE");
	for (i = 0; i < ep->tx.next; i++) {
		struct sd_wqe *w = sd_wq_at(&ep->sq, i);

		/* A bind went nowhere: its seq means nothing. */
		if (w->op == SD_WR_BIND || w->seq != h->tag)
			continue;
		/* The culprit; the rest is flushed when the EP closes. */
		if (h->code == SD_TERM_REMOTE_ACCESS)
			w->status = DAT_DTO_ERR_REMOTE_ACCESS;
		else if (h->code == SD_TERM_LENGTH)
			w->status = DAT_DTO_ERR_REMOTE_RESPONDER;
		else
			w->status = DAT_DTO_ERR_BAD_RESPONSE;
		break;
	}
	sd_qp_close(ep, DAT_CONNECTION_EVENT_BROKEN, NULL, "peer terminated");
	return -ECONNRESET;
}

static int rx_disconnect(struct sd_ep *ep)
{
	struct sd_hdr d;

	/* Answer with ours (its ack completes the peer's requests). */
	sd_tx_ctl(ep, &d, SD_OP_DISCONNECT, SD_TAG_NONE, 0);
	sd_cnt_inc(ep->obj.ia->cnt, ep->tx.disc_sent ? DCNT_IA_CM_DREP_RX :
		   DCNT_IA_CM_DREQ_RX);
	sd_cm_peer_order(ep);
	sd_qp_close(ep, DAT_CONNECTION_EVENT_DISCONNECTED,
		    ep->tx.disc_sent ? NULL : &d, "peer disconnected");
	return -ESHUTDOWN;
}

/*
 * One handler per opcode: @start runs when the header is in (checked
 * already), @done when the payload is placed. Whether len counts
 * payload bytes is proto.h's sd_op_has_payload.
 */
static const struct {
	int (*start)(struct sd_ep *ep);
	int (*done)(struct sd_ep *ep);
} handlers[SD_OP_MAX + 1] = {
	[SD_OP_SEND] = { rx_send, receive_done },
	[SD_OP_SEND_SE] = { rx_send, receive_done },
	[SD_OP_SEND_INV] = { rx_send, receive_done },
	[SD_OP_SEND_SE_INV] = { rx_send, receive_done },
	[SD_OP_WRITE] = { rx_write, write_done },
	[SD_OP_WRITE_IMM] = { rx_write, write_done },
	[SD_OP_WRITE_IMM_SE] = { rx_write, write_done },
	[SD_OP_READ_REQ] = { rx_read_req, NULL },
	[SD_OP_READ_RESP] = { rx_resp, resp_done },
	[SD_OP_FETCH_ADD] = { rx_atomic, atomic_done },
	[SD_OP_CMP_SWAP] = { rx_atomic, atomic_done },
	[SD_OP_ATOMIC_RESP] = { rx_resp, resp_done },
	[SD_OP_ACK] = { rx_ack, NULL },
	[SD_OP_TERMINATE] = { rx_terminate, NULL },
	[SD_OP_DISCONNECT] = { rx_disconnect, NULL },
};

/* A complete header: check it, take its ack, dispatch. */
static int rx_header(struct sd_ep *ep)
{
	struct sd_hdr *h = &ep->rx.h;
	uint32_t acked;
	int r;

	sd_hdr_unpack(h, ep->rx.hdr);
	ep->rx.hdr_have = 0;
	/*
	 * Tracing: the frame's rx line comes once it is checked, by its
	 * handler too: with bad= from terminate() if it is refused.
	 */
	ep->rx.trace_due = sd_trace_enabled();
	if (h->op == 0 || h->op > SD_OP_MAX || h->flags != 0 ||
	    ep->rx.hdr[SD_HDR_OFF_PAD] != 0 ||
	    ep->rx.hdr[SD_HDR_OFF_PAD + 1] != 0)
		return protocol_error(ep, "bad opcode or flags");
	if (!sd_op_has_payload(h->op) && h->len != 0 && h->op != SD_OP_READ_REQ)
		return protocol_error(ep, "length on a frame without payload");
	/* The ack may only cover requests we sent. */
	acked = h->ack - ep->tx.peer_ack;
	if (acked > ep->tx.seq - ep->tx.peer_ack)
		return protocol_error(ep, "ack beyond what was sent");
	if (acked > 0) {
		/*
		 * Tracing: the frame before the completions its ack makes
		 * (should its handler refuse it, state says why).
		 */
		trace_refused(ep, NULL);
		ep->tx.peer_ack = h->ack;
		sd_tx_complete_acked(ep);
	}
	r = handlers[h->op].start(ep);
	trace_refused(ep, NULL);
	return r;
}

/* ---- staging ------------------------------------------------------ */

/*
 * Staging. A recv into rx.stage (SD_RX_STAGE bytes) brings a header and
 * whatever follows it in one system call: a small message's payload, an
 * ACK behind it, the next frames of a burst. Payload bytes found there are
 * copied to their destination; the rest of a payload is read straight into
 * it with readv, which also takes up to SD_RX_STAGE bytes of what follows
 * into the stage. So a frame costs one system call, small or large, and at
 * most SD_RX_STAGE bytes per call pass through the stage: a copy of a few
 * hundred bytes costs far less than the recv it saves.
 */
static uint32_t staged(const struct sd_rx *rx)
{
	return rx->st_len - rx->st_off;
}

/* Refills the (empty) stage from the stream; its readv's result. */
static ssize_t stage_fill(struct sd_ep *ep, struct sd_sock *sock)
{
	struct iovec iov = { ep->rx.stage, SD_RX_STAGE };
	ssize_t n = sd_tp_readv(sock->tp, sock->stream, &iov, 1);

	if (n > 0) {
		sd_wire_received();
		ep->rx.st_off = 0;
		ep->rx.st_len = (uint32_t)n;
	}
	return n;
}

#if defined(__SANITIZE_THREAD__)
#define SD_TSAN 1
#else
#define SD_TSAN 0
#endif

/*
 * Stores @n bytes at @d, in address order, each byte once, after
 * everything stored before. memcpy promises neither: it may store the
 * end of a range before its start, and a byte twice (overlapping
 * vector stores), as may the kernel's copy in readv. A consumer that
 * polls the last bytes of an RDMA write's target (MPI's eager RDMA: a
 * flag in a footer, cleared by the consumer once read) needs both: the
 * flag seen set means the bytes in front of it are there, and a flag
 * cleared stays cleared. Release stores give the order on every
 * architecture, plain moves on x86; the fence orders the streaming
 * stores a large memcpy may have used.
 *
 * ThreadSanitizer pairs a release with an acquire at the same address
 * only, and a consumer polls one byte: in a TSan build every byte is a
 * store of its own, so that the poller's acquire of its flag orders
 * the whole write before its reads, as it does on the hardware.
 */
static void store_ordered(uint8_t *d, const uint8_t *s, size_t n)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_sfence();
#else
	__atomic_thread_fence(__ATOMIC_RELEASE);
#endif
	for (; n > 0 && (((uintptr_t)d & 7) != 0 || SD_TSAN); n--)
		__atomic_store_n(d++, *s++, __ATOMIC_RELEASE);
	for (; n >= 8; n -= 8, d += 8, s += 8) {
		uint64_t v;

		memcpy(&v, s, sizeof(v));
		__atomic_store_n((uint64_t *)(void *)d, v, __ATOMIC_RELEASE);
	}
	for (; n > 0; n--)
		__atomic_store_n(d++, *s++, __ATOMIC_RELEASE);
}

/*
 * Copies @n staged bytes to @d, payload offset @at: in order from
 * rx.tail on (SD_WRITE_TAIL: an RDMA write's last bytes), with memcpy
 * before it.
 */
static void put_staged(struct sd_rx *rx, uint8_t *d, uint64_t at, uint64_t n)
{
	const uint8_t *s = rx->stage + rx->st_off;
	uint64_t bulk = at >= rx->tail ? 0 :
			rx->tail - at < n ? rx->tail - at : n;

	memcpy(d, s, (size_t)bulk);
	if (bulk < n)
		store_ordered(d + bulk, s + bulk, (size_t)(n - bulk));
}

/* Copies staged bytes into the placement set up by place(). */
static void place_staged(struct sd_ep *ep)
{
	uint64_t skip = ep->rx.done;
	uint64_t want = ep->rx.len - ep->rx.done;
	uint32_t i;

	if (want > staged(&ep->rx))
		want = staged(&ep->rx);
	for (i = 0; i < ep->rx.nsge && want > 0; i++) {
		const struct sd_sge *s = &ep->rx.sge[i];
		uint64_t l;

		if (skip >= s->len) {
			skip -= s->len;
			continue;
		}
		l = s->len - skip;
		if (l > want)
			l = want;
		put_staged(&ep->rx, (uint8_t *)s->addr + skip, ep->rx.done, l);
		ep->rx.st_off += (uint32_t)l;
		ep->rx.done += l;
		want -= l;
		skip = 0;
	}
}

/*
 * Reads the rest of the payload into the placement set up by place(),
 * and what follows into the (empty) stage. Returns readv's result and
 * accounts for the bytes. Bytes from rx.tail on go through the stage,
 * to be stored in order by place_staged.
 */
static ssize_t rx_readv(struct sd_ep *ep, struct sd_sock *sock)
{
	struct iovec iov[RX_IOV_MAX + 1];
	uint64_t skip = ep->rx.done;
	/* Never into the tail: its bytes are stored in order, from the stage. */
	uint64_t want = ep->rx.done < ep->rx.tail ?
			ep->rx.tail - ep->rx.done : 0;
	uint64_t payload = want;
	uint32_t i;
	ssize_t r;
	int n = 0;

	for (i = 0; i < ep->rx.nsge && n < RX_IOV_MAX && want > 0; i++) {
		const struct sd_sge *s = &ep->rx.sge[i];
		uint64_t l;

		if (skip >= s->len) {
			skip -= s->len;
			continue;
		}
		l = s->len - skip;
		if (l > want)
			l = want;
		iov[n].iov_base = s->addr + skip;
		iov[n].iov_len = l;
		want -= l;
		skip = 0;
		n++;
	}
	payload -= want;	/* what the iovs hold */
	iov[n].iov_base = ep->rx.stage;
	iov[n].iov_len = SD_RX_STAGE;
	r = sd_tp_readv(sock->tp, sock->stream, iov, n + 1);
	if (r <= 0)
		return r;
	sd_wire_received();
	if ((uint64_t)r <= payload) {
		ep->rx.done += (uint64_t)r;
	} else {
		ep->rx.done += payload;
		ep->rx.st_off = 0;
		ep->rx.st_len = (uint32_t)((uint64_t)r - payload);
	}
	return r;
}

/* The stream ended (EOF @n == 0, or -errno @n). */
/*
 * A SEND by address (proto.h): its payload read from the sender's memory
 * straight into the receive, in one system call. A sender that named
 * memory it does not have broke the protocol. One whose connection ended
 * before we read (it flushed the SEND, and its consumer may have reused
 * the buffer) withdrew it: it is dropped, as a frame lost with the
 * connection, and the receive stays posted for what comes next (its end).
 */
static int rx_pull(struct sd_ep *ep, struct sd_sock *sock)
{
	struct iovec iov[RX_IOV_MAX];
	struct sd_tp_rdma op;
	uint64_t left = ep->rx.len;
	uint32_t i;
	int r;

	for (i = 0; i < ep->rx.nsge && i < RX_IOV_MAX && left > 0; i++) {
		iov[i].iov_base = ep->rx.sge[i].addr;
		iov[i].iov_len = ep->rx.sge[i].len < left ? ep->rx.sge[i].len
							  : left;
		left -= iov[i].iov_len;
	}
	op.write = false;
	op.local = iov;
	op.n = (int)i;
	op.len = ep->rx.len;
	op.rkey = 0;
	op.addr = ep->rx.h.addr;
	ep->rx.pull = false;
	r = left != 0 ? -EFAULT : sock->tp->pull(sock->stream, &op);
	if (r == -ESHUTDOWN) {
		trace_refused(ep, "withdrawn: the sender's connection ended");
		if (ep->rx.from_srq)
			sd_srqbuf_release(ep->srq, ep->rx.wqe, true);
		ep->rx.wqe = NULL;
		ep->rx.from_srq = false;
		ep->rx.state = SD_RX_HDR;
		return 0;
	}
	if (r != 0)
		return protocol_error(ep, "SEND by address not readable");
	ep->rx.done = ep->rx.len;
	return 0;
}

static void rx_eof(struct sd_ep *ep, ssize_t n)
{
	bool clean = n == 0 && ep->rx.state == SD_RX_HDR &&
		     ep->rx.hdr_have == 0 && staged(&ep->rx) == 0;

	if (n == -ECONNRESET || n == -EPIPE)
		clean = true;
	sd_cm_peer_order(ep);
	sd_qp_close(ep, clean ? DAT_CONNECTION_EVENT_DISCONNECTED :
		    DAT_CONNECTION_EVENT_BROKEN, NULL,
		    clean ? "peer closed" : "connection lost");
}

bool sd_rx_progress(struct sd_ep *ep)
{
	int budget = RX_BUDGET;
	bool got = false;

	SD_ASSERT_HELD(&ep->lock);
	while (budget > 0) {
		struct sd_sock *sock = ep->sock;
		ssize_t n;

		if (sock == NULL || sock->phase != SD_SK_DATA)
			return got;
		switch (ep->rx.state) {
		case SD_RX_HDR: {
			uint32_t take = SD_HDR_SIZE - ep->rx.hdr_have;

			if (staged(&ep->rx) == 0) {
				n = stage_fill(ep, sock);
				if (n <= 0)
					goto eof_or_again;
				got = true;
			}
			if (take > staged(&ep->rx))
				take = staged(&ep->rx);
			memcpy(ep->rx.hdr + ep->rx.hdr_have,
			       ep->rx.stage + ep->rx.st_off, take);
			ep->rx.st_off += take;
			ep->rx.hdr_have += take;
			if (ep->rx.hdr_have < SD_HDR_SIZE)
				continue;
			budget--;
			if (rx_header(ep) < 0)
				return true;
			break;
		}
		case SD_RX_BUF:
			if (take_receive(ep) < 0)
				return got;
			break;
		case SD_RX_DATA:
			if (ep->rx.pull) {
				if (rx_pull(ep, sock) < 0)
					return true;
			} else if (ep->rx.done < ep->rx.len) {
				if (staged(&ep->rx) > 0) {
					place_staged(ep);
				} else {
					n = rx_readv(ep, sock);
					if (n <= 0)
						goto eof_or_again;
					got = true;
				}
			}
			break;
		}
		if (ep->rx.state == SD_RX_DATA && ep->rx.done == ep->rx.len) {
			ep->rx.state = SD_RX_HDR;
			if (handlers[ep->rx.h.op].done(ep) < 0)
				return true;
		}
		continue;
eof_or_again:
		if (n == -EAGAIN)
			return got;
		rx_eof(ep, n);
		return true;
	}
	/*
	 * Out of budget: frames may wait in the stage, where no poll event
	 * will announce them. The engine comes back for them.
	 */
	if (staged(&ep->rx) > 0)
		sd_engine_submit(&ep->io_cmd);
	return true;
}

bool sd_rx_staged(const struct sd_ep *ep)
{
	return staged(&ep->rx) > 0;
}
